// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the harness reads and writes of /proc: its own settings, and a
 * process's parent, session and start time from /proc/PID/stat (the
 * kernel's numbers: a chroot or a mount namespace of the process does not
 * change them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"

/* Writes text to /proc/self/NAME; 0 or -1 (errno set). */
int write_proc_self(const char *name, const char *text)
{
	char path[64];
	int fd, ret, err;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/*
 * The parent, session and start time (clock ticks since boot) of pid, from
 * one read of /proc/PID/stat ("pid (comm) state ppid pgrp session ...
 * starttime", field 22; comm may hold ") "); false: gone or not read.
 * stat, not status: the kernel formats a few numbers for it where status
 * takes every field.  O_NONBLOCK: root may hold a lease on the file, and a
 * blocking open would wait the lease break time
 * (/proc/sys/fs/lease-break-time), and the harness's loop with it.
 */
bool proc_stat(pid_t pid, struct proc_stat *st)
{
	char path[64], line[1024];
	const char *after_comm;
	int fd, parent, session;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (len <= 0)
		return false;
	line[len] = '\0';
	after_comm = strrchr(line, ')');
	if (!after_comm ||
	    sscanf(after_comm,
		   ") %*c %d %*d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
		   "%*d %*d %*d %*d %*d %*d %llu",
		   &parent, &session, &st->start) != 3)
		return false;
	st->parent = parent < 0 ? -1 : (pid_t)parent;
	st->session = (pid_t)session;
	return true;
}

pid_t proc_parent(pid_t pid)
{
	struct proc_stat st;

	return proc_stat(pid, &st) ? st.parent : -1;
}
