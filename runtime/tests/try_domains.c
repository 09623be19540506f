// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's verbs on other processes and the domain itself: a sleeper to be
 * traced, the reads and joins a domain may not make of another's processes,
 * a watcher of every environment, a nested ruleset, and the mount calls a
 * domain may not make.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "abi.h"
#include "landlock_uapi.h"
#include "try.h"

/*
 * Same address in every run of this static, non-PIE binary: "vm-read" of a
 * "sleep" reads the sleeper's copy at its own copy's address.
 */
static volatile char marker[16] = "jr2-try-marker";

/*
 * A long-lived program whose memory holds the marker.  "sleep" (how 1)
 * names every program as its tracer (PR_SET_PTRACER_ANY): under Yama's
 * ptrace_scope 1 its peers may then trace it, and a denial comes from
 * Landlock, not Yama.  Without Yama the call fails with EINVAL, and nothing
 * needs it.
 */
static int sleeper(const struct try_call *c)
{
	if (c->how && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) &&
	    jr2_yama_ptrace_scope() >= 0)
		return try_report(errno);
	for (int i = 0; i < 120 && marker[0]; i++)
		sleep(1);
	return 0;
}

static void *sleeping_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 120 && marker[0]; i++)
		sleep(1);
	return NULL;
}

/*
 * The Harness process as a test runs it (serve -- jr2-try harness-like
 * NAME): the marker, a listening abstract socket @NAME (its descriptor
 * 3), a second thread; any program its tracer, so that a denial comes from
 * Landlock, not Yama.  Lives 120 s.
 */
static int harness_like(const struct try_call *c)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(c->arg[0]);
	pthread_t thread;
	int fd;

	if (len + 2 > sizeof(addr.sun_path))
		try_usage_error("socket name '%s' is too long: give at most "
				"%zu bytes",
				c->arg[0], sizeof(addr.sun_path) - 2);
	memcpy(addr.sun_path + 1, c->arg[0], len);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 ||
	    bind(fd, (struct sockaddr *)&addr,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     len)) ||
	    listen(fd, 8))
		return try_report(errno);
	if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) &&
	    jr2_yama_ptrace_scope() >= 0)
		return try_report(errno);
	errno = pthread_create(&thread, NULL, sleeping_thread, NULL);
	if (errno)
		return try_report(errno);
	sleeping_thread(NULL);
	return 0;
}

/*
 * A program that hides where it came from: keeps "/" open (O_PATH), then
 * (how 1: first in a user and mount namespace of its own) chroots into DIR
 * (root keeps CAP_SYS_CHROOT) and lives 120 s; its /proc/PID/mountinfo
 * then lists only what lies under DIR.  Its name holds an escape and a
 * newline.
 */
static int chroot_sleep(const struct try_call *c)
{
	int root = open("/", O_PATH | O_DIRECTORY);

	if (c->how && unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return try_report(errno);
	if (root < 0 || chroot(c->arg[0]) || chdir("/"))
		return try_report(errno);
	/* A name that would end a message's line and clear a terminal. */
	prctl(PR_SET_NAME, "hid\033[2J\nx", 0, 0, 0);
	for (int i = 0; i < 120; i++)
		sleep(1);
	return 0;
}

static int vm_read(const struct try_call *c)
{
	pid_t pid = (pid_t)try_number(c->arg[0], "PID");
	char buf[sizeof(marker)];
	struct iovec local = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct iovec remote = {.iov_base = (void *)marker,
			       .iov_len = sizeof(buf)};

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0)
		return try_report(errno);
	return try_report(0);
}

/* pidfd_getfd(2) of descriptor FD of PID (ptrace attach mode). */
static int pidfd_getfd(const struct try_call *c)
{
	pid_t pid = (pid_t)try_number(c->arg[0], "PID");
	int fd = (int)try_number(c->arg[1], "FD");
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), got;

	if (pidfd < 0)
		return try_report(errno);
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (got < 0)
		return try_report(errno);
	close(got);
	close(pidfd);
	return try_report(0);
}

/* A child joins process group PGID ("own": this program's group). */
static int join_pgid(const struct try_call *c)
{
	pid_t target = strcmp(c->arg[0], "own")
			   ? (pid_t)try_number(c->arg[0], "PGID")
			   : getpgrp();
	int status;
	pid_t child = fork();

	if (child == 0)
		_exit(setpgid(0, target) ? errno : 0);
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status))
		return try_report(ECHILD);
	return try_report(WEXITSTATUS(status));
}

/*
 * A program left running that watches every other process's environment
 * for NAME= until the file FILE.stop appears (60 s at most), and scans once
 * more then.  It appends to FILE "start", then for each pid each change of
 * what it gets: "read PID", "denied PID ERRNO" or "found PID" (NAME= is in
 * it).  A program is not dumpable until its execve: denied, then read.
 */
static int lurk(const struct try_call *c)
{
	static char seen[1 << 22]; /* by pid: 'r', 'd' or 'f' */
	const char *file = c->arg[0], *name = c->arg[1];
	char stop[PATH_MAX], needle[128], buf[65536], path[64];
	int out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	bool last = false;

	if (out < 0)
		return try_report(errno);
	snprintf(stop, sizeof(stop), "%s.stop", file);
	snprintf(needle, sizeof(needle), "\n%s=", name);
	dprintf(out, "start\n");
	for (int round = 0; round < 6000 && !last; round++) {
		DIR *proc = opendir("/proc");
		struct dirent *entry;

		last = !access(stop, F_OK);
		while (proc && (entry = readdir(proc))) {
			pid_t pid = atoi(entry->d_name);
			ssize_t n = -1;
			char now;
			int fd;

			if (pid <= 0 || pid == getpid() ||
			    pid >= (pid_t)sizeof(seen))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/environ", pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				/* From buf + 1: the first name follows a \n. */
				buf[0] = '\n';
				n = read(fd, buf + 1, sizeof(buf) - 2);
				close(fd);
			}
			if (n < 0 && (errno == ENOENT || errno == ESRCH))
				continue; /* gone */
			for (ssize_t i = 1; i <= n; i++)
				buf[i] = buf[i] ? buf[i] : '\n';
			buf[n < 0 ? 1 : n + 1] = '\0';
			now = n < 0 ? 'd' : strstr(buf, needle) ? 'f' : 'r';
			if (now == seen[pid])
				continue;
			seen[pid] = now;
			if (now == 'd')
				dprintf(out, "denied %d %s\n", pid,
					strerrorname_np(errno));
			else
				dprintf(out, "%s %d\n",
					now == 'f' ? "found" : "read", pid);
		}
		if (proc)
			closedir(proc);
		usleep(10000);
	}
	close(out);
	return 0;
}

/* The errno of opening `path` and reading a byte, or 0. */
static int read_byte(const char *path)
{
	char byte;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (read(fd, &byte, 1) < 0)
		err = errno;
	close(fd);
	return err;
}

/* P6: a nested ruleset that grants reading PATH must not widen access. */
static int nested_widen(const struct try_call *c)
{
	const char *path = c->arg[0];
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_READ_FILE};
	struct jr2_path_beneath_attr rule = {.allowed_access =
						 JR2_ACCESS_FS_READ_FILE};
	int ruleset;

	ruleset = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0);
	if (ruleset < 0)
		return try_report(errno);
	rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0)
		return try_report(errno);
	if (jr2_sys_add_rule(ruleset, JR2_RULE_PATH_BENEATH, &rule, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_sys_restrict_self(ruleset, 0))
		return try_report(errno);
	return try_report(read_byte(path));
}

/* The mount calls on PATH: how is the call's letter. */
static int mount_call(const struct try_call *c)
{
	const char *path = c->arg[0];
	int err = 0;

	switch (c->how) {
	case 't':
		err = TRY_ERR(mount("jr2", path, "tmpfs", 0, "size=1m"));
		break;
	case 'u':
		err = TRY_ERR(umount2(path, MNT_DETACH));
		break;
	case 'b':
		err = TRY_ERR(mount(path, path, NULL, MS_BIND, NULL));
		break;
	case 'p':
		err = TRY_ERR(syscall(SYS_pivot_root, path, path));
		break;
	case 'm':
		err = TRY_ERR(
		    syscall(SYS_move_mount, AT_FDCWD, path, AT_FDCWD, path, 0));
		break;
	}
	return try_report(err);
}

const struct try_verb try_domain_verbs[] = {
    {"sleep", 0, "", sleeper, 1,
     "lives 120 s, any program its tracer (PR_SET_PTRACER_ANY)"},
    {"sleep-unnamed", 0, "", sleeper, 0, "lives 120 s, naming no tracer"},
    {"harness-like", 1, "NAME", harness_like, 0,
     "a sleeper listening on @NAME (fd 3) with a second thread"},
    {"chroot-sleep", 1, "DIR", chroot_sleep, 0,
     "keeps / open, chroots into DIR, lives 120 s"},
    {"unshare-chroot-sleep", 1, "DIR", chroot_sleep, 1,
     "the same in a user and mount namespace of its own"},
    {"vm-read", 1, "PID", vm_read, 0,
     "process_vm_readv of PID's copy of a sleeper's marker"},
    {"pidfd-getfd", 2, "PID FD", pidfd_getfd, 0, "pidfd_getfd(2) of PID's FD"},
    {"join-pgid", 1, "PGID|own", join_pgid, 0,
     "a child's setpgid(0, PGID) (own: this program's group)"},
    {"lurk", 2, "FILE NAME", lurk, 0,
     "watches every environment for NAME= until FILE.stop; log in FILE"},
    {"nested-widen", 1, "PATH", nested_widen, 0,
     "a nested ruleset granting PATH's read, then the read"},
    {"mount-tmpfs", 1, "PATH", mount_call, 't', "mount a tmpfs on PATH"},
    {"umount", 1, "PATH", mount_call, 'u', "umount2(MNT_DETACH)"},
    {"bind", 1, "PATH", mount_call, 'b', "bind mount PATH on itself"},
    {"pivot-root", 1, "PATH", mount_call, 'p', "pivot_root(PATH, PATH)"},
    {"move-mount", 1, "PATH", mount_call, 'm', "move_mount(PATH, PATH)"},
    {NULL, 0, NULL, NULL, 0, NULL},
};
