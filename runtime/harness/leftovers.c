// SPDX-License-Identifier: GPL-2.0-only
/* The programs an earlier harness left running (see leftovers.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_status.h"
#include "leftovers.h"

/* A mountinfo path field with its octal escapes (\040 ...) undone. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] &&
		    s[3]) {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * The mounts on `dir` of file system `dev` in the mountinfo at `path`; -1
 * when unreadable.  Another harness's dir of the same name elsewhere (in
 * another mount namespace, another file system) is not counted.
 */
static int mounts_on_fd(int fd, const char *dir, dev_t dev)
{
	FILE *file = fdopen(fd, "re");
	char line[8192];
	int n = 0;

	if (!file) {
		close(fd);
		return -1;
	}
	/* "ID PARENT MAJ:MIN ROOT MOUNT-POINT ...". */
	while (fgets(line, sizeof(line), file)) {
		unsigned int major, minor;
		char point[4096];

		if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &major, &minor,
			   point) != 3)
			continue;
		unescape(point);
		n += !strcmp(point, dir) && makedev(major, minor) == dev;
	}
	fclose(file);
	return n;
}

static int mounts_on(const char *path, const char *dir, dev_t dev)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -1 : mounts_on_fd(fd, dir, dev);
}

/*
 * The mounts on `dir` of `dev` in the mount namespace of `pid`, read from
 * that namespace's own root: a child joins it (setns resets its root and
 * cwd to the namespace's root) and reads its own mountinfo.  A process's
 * /proc/PID/mountinfo lists only the mounts under its root, which chroot
 * moves (root keeps CAP_SYS_CHROOT); its namespace it cannot leave (setns
 * needs CAP_SYS_ADMIN, dropped; a namespace it unshares copies the mounts,
 * which Landlock keeps it from unmounting).  -1 when the namespace cannot
 * be joined (no CAP_SYS_ADMIN: then the spawner made no such mounts).
 */
static int ns_mounts_on(pid_t pid, int proc, const char *dir, dev_t dev)
{
	char path[64];
	int fds[2], n = -1, status;
	pid_t child;
	int ns;

	snprintf(path, sizeof(path), "%d/ns/mnt", (int)pid);
	ns = openat(proc, path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return -1;
	if (pipe2(fds, O_CLOEXEC)) {
		close(ns);
		return -1;
	}
	child = fork();
	if (child == 0) {
		int got = -1, info;

		close(fds[0]);
		if (!setns(ns, CLONE_NEWNS) &&
		    (info = openat(proc, "self/mountinfo",
				   O_RDONLY | O_NONBLOCK | O_CLOEXEC)) >= 0) {
			got = mounts_on_fd(info, dir, dev);
		}
		if (write(fds[1], &got, sizeof(got)) != sizeof(got))
			_exit(JR2_EXIT_FAILURE);
		_exit(0);
	}
	close(fds[1]);
	close(ns);
	if (child > 0) {
		if (read(fds[0], &n, sizeof(n)) != sizeof(n))
			n = -1;
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	return n;
}

#define MAX_NAMESPACES 256

size_t jr2_leftover_programs(const char *protected_dir, pid_t *pids, size_t max)
{
	struct {
		ino_t ino;
		bool leftover;
	} seen[MAX_NAMESPACES];
	size_t n_seen = 0, found = 0;
	struct stat self_ns, dir;
	struct dirent *entry;
	DIR *proc;
	int own;

	if (stat(protected_dir, &dir) || stat("/proc/self/ns/mnt", &self_ns))
		return 0;
	own = mounts_on("/proc/self/mountinfo", protected_dir, dir.st_dev);
	if (own < 0 || !(proc = opendir("/proc")))
		return 0;
	while ((entry = readdir(proc))) {
		pid_t pid = (pid_t)atoi(entry->d_name);
		char path[64];
		struct stat ns;
		int mounts;
		size_t i;

		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
		if (pid <= 0 || stat(path, &ns) || ns.st_ino == self_ns.st_ino)
			continue;
		for (i = 0; i < n_seen && seen[i].ino != ns.st_ino; i++)
			;
		if (i == n_seen) {
			snprintf(path, sizeof(path), "/proc/%d/mountinfo",
				 (int)pid);
			if (n_seen == MAX_NAMESPACES)
				i = 0; /* full: the first is reused */
			else
				n_seen++;
			seen[i].ino = ns.st_ino;
			mounts = ns_mounts_on(pid, dirfd(proc), protected_dir,
					      dir.st_dev);
			if (mounts < 0) /* not joined: the process's view */
				mounts =
				    mounts_on(path, protected_dir, dir.st_dev);
			seen[i].leftover = mounts > own;
		}
		if (!seen[i].leftover)
			continue;
		if (found < max)
			pids[found] = pid;
		found++;
	}
	closedir(proc);
	return found;
}

void jr2_proc_comm(pid_t pid, char *out, size_t size)
{
	char path[64], buf[64];
	ssize_t n = -1;
	size_t o = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0 && buf[n - 1] == '\n')
		n--; /* the kernel's line end */
	for (ssize_t i = 0; i < n && o + 1 < size; i++)
		out[o++] = (unsigned char)buf[i] < 0x20 || buf[i] == 0x7f
			       ? '?'
			       : buf[i];
	if (!o && size > 1)
		out[o++] = '?';
	if (size)
		out[o] = '\0';
}
