// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's system-call doors (selftests/syscalls_test.c): calls that change
 * the kernel's or another process's state without opening a file, so that
 * no Landlock hook is asked: clone3 into a cgroup, fanotify, bpf's
 * BPF_OBJ_GET, the mount API, a filter of the program's own; and what still
 * works (spawning) or is allowed by design (inotify, dnotify).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "try.h"
#include "try_shared.h"

#ifndef FAN_CLASS_NOTIF
#define FAN_CLASS_NOTIF 0x00000000
#endif
#define FAN_ARG_REPORT_FID     0x00000200
#define FAN_ARG_MARK_ADD       0x00000001
#define FAN_ARG_OPEN	       0x00000020
#define CLONE_INTO_CGROUP_FLAG 0x200000000ULL

/* clone3's argument, as linux/sched.h has it (its CLONE_ names clash with
   sched.h's). */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
	    stack_size, tls, set_tid, set_tid_size, cgroup;
};

static const char *name_of(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

/*
 * BPF_OBJ_GET of the pinned map `path` and, with the fd it gives, element 0
 * set to `value`; then BPF_MAP_CREATE of a map of its own.  One line:
 * "obj_get:ok update:ok map_create:ok", or the errno of each call made.
 */
static int bpf_obj_get(const struct try_call *c)
{
	const char *path = c->arg[0], *value = c->arg[1];
	union bpf_attr attr = {.pathname = (uintptr_t)path};
	uint32_t v = (uint32_t)strtoul(value, NULL, 10);
	int fd = (int)try_bpf_call(BPF_OBJ_GET, &attr);

	printf("obj_get:%s", name_of(fd < 0 ? errno : 0));
	if (fd >= 0)
		printf(" update:%s",
		       name_of(TRY_ERR(try_bpf_elem(fd, true, &v))));
	fd = try_bpf_map_create();
	printf(" map_create:%s\n", name_of(fd < 0 ? errno : 0));
	return 0;
}

/* clone3, with CLONE_INTO_CGROUP of `cgroup` (a dir) unless it is "-". */
static int clone3_into(const struct try_call *c)
{
	const char *cgroup = c->arg[0];
	struct clone3_args args = {.exit_signal = SIGCHLD};
	long pid;
	int fd = -1, status;

	if (strcmp(cgroup, "-")) {
		fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return try_report(errno);
		args.flags = CLONE_INTO_CGROUP_FLAG;
		args.cgroup = (unsigned int)fd;
	}
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return try_report(errno);
	waitpid((pid_t)pid, &status, 0);
	return try_report(0);
}

static void *thread_main(void *arg)
{
	return arg;
}

/* fork, posix_spawn, a thread, a shell pipeline: "ok" or what failed. */
static int spawn_all(const struct try_call *c)
{
	static char *const true_argv[] = {"true", NULL};
	static char *const pipeline[] = {
	    "sh", "-c", "test \"$(echo jr2 | cat | tr j J)\" = Jr2", NULL};
	pthread_t thread;
	pid_t pid;
	int status, err;

	(void)c;

	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status)
		return printf("fork: %s\n", name_of(errno)), 1;
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, true_argv, environ);
	if (err || waitpid(pid, &status, 0) < 0 || status)
		return printf("posix_spawn: %s\n", name_of(err)), 1;
	err = pthread_create(&thread, NULL, thread_main, NULL);
	if (err || pthread_join(thread, NULL))
		return printf("pthread_create: %s\n", name_of(err)), 1;
	err = posix_spawn(&pid, "/bin/sh", NULL, NULL, pipeline, environ);
	if (err || waitpid(pid, &status, 0) < 0 || status)
		return printf("pipeline: %s status %d\n", name_of(err), status),
		       1;
	printf("ok fork posix_spawn pthread_create pipeline\n");
	return 0;
}

/* Waits up to 10 s for fd to be readable: 1, or 0 at the deadline. */
static int wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 10000) == 1;
}

/*
 * An inotify watch on DIR, then MARKER made (the test then reads the file):
 * the kinds of event the watcher learns about NAME in DIR, in order, up to
 * its close, one line ("watch ok events: open access close" or the errno).
 * An event carries a kind, a cookie and a name: never the file's bytes.
 */
static int inotify_watch(const struct try_call *c)
{
	const char *dir = c->arg[0], *name = c->arg[1], *marker = c->arg[2];
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), done = 0;
	char buf[4096] __attribute__((aligned(8))), events[256] = "";

	if (fd < 0)
		return printf("init %s\n", name_of(errno)), 1;
	if (inotify_add_watch(fd, dir, IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE) <
	    0)
		return printf("watch %s\n", name_of(errno)), 1;
	if (mknod(marker, S_IFREG | 0600, 0))
		return printf("marker %s\n", name_of(errno)), 1;
	while (!done && wait_readable(fd)) {
		ssize_t n = read(fd, buf, sizeof(buf));

		for (ssize_t at = 0; at < n;) {
			const struct inotify_event *e = (void *)(buf + at);

			at += (ssize_t)(sizeof(*e) + e->len);
			if (!e->len || strcmp(e->name, name))
				continue; /* another file of the dir */
			strcat(events, e->mask & IN_OPEN     ? " open"
				       : e->mask & IN_ACCESS ? " access"
							     : " close");
			done = !!(e->mask & IN_CLOSE_NOWRITE);
		}
	}
	printf("watch ok events:%s\n", done ? events : " none by 10 s");
	return 0;
}

/*
 * dnotify: DIR opened (listing it is allowed, R7), then F_NOTIFY with a
 * signal of its own, then MARKER made: what the watcher learns when a file
 * in it is read ("signal for the dir" or the errno).  The signal names the
 * dir's descriptor, not the file.  An O_PATH descriptor takes no F_NOTIFY.
 */
static int dnotify_watch(const struct try_call *c)
{
	const char *dir = c->arg[0], *marker = c->arg[1];
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct timespec deadline = {.tv_sec = 10};
	siginfo_t info;
	sigset_t set;

	if (fd < 0 || fcntl(fd, F_NOTIFY, DN_ACCESS) != -1 || errno != EBADF)
		return printf("O_PATH F_NOTIFY not EBADF\n"), 1;
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return printf("open %s\n", name_of(errno)), 1;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (fcntl(fd, F_SETSIG, SIGRTMIN) || fcntl(fd, F_NOTIFY, DN_ACCESS))
		return printf("notify %s\n", name_of(errno)), 1;
	if (mknod(marker, S_IFREG | 0600, 0))
		return printf("marker %s\n", name_of(errno)), 1;
	if (sigtimedwait(&set, &info, &deadline) != SIGRTMIN)
		return printf("no signal by 10 s\n"), 1;
	printf("signal for the %s\n", info.si_fd == fd ? "dir" : "other");
	return 0;
}

/* fanotify_init(FAN_REPORT_FID), then an inode mark on DIR. */
static int fanotify_watch(const struct try_call *c)
{
	const char *dir = c->arg[0];
	int fd = (int)syscall(SYS_fanotify_init,
			      FAN_CLASS_NOTIF | FAN_ARG_REPORT_FID, O_RDONLY);

	if (fd < 0)
		return printf("init %s\n", name_of(errno)), 1;
	if (syscall(SYS_fanotify_mark, fd, FAN_ARG_MARK_ADD, FAN_ARG_OPEN,
		    AT_FDCWD, dir))
		return printf("mark %s\n", name_of(errno)), 1;
	printf("ok\n");
	return 0;
}

/* fanotify_mark of no group (-1): EBADF from the kernel, or ours. */
static int fanotify_no_group(const struct try_call *c)
{
	(void)c;
	return try_report(
	    TRY_ERR(syscall(SYS_fanotify_mark, -1, FAN_ARG_MARK_ADD,
			    FAN_ARG_OPEN, AT_FDCWD, "/")));
}

/*
 * The mount API, each call in a way that changes nothing, in a user and
 * mount namespace of the program's own (where it holds CAP_SYS_ADMIN, so
 * that only the filter can refuse): one line.
 */
static int mount_api(const struct try_call *c)
{
	struct {
		const char *name;
		long nr, a0, a1, a2, a3, a4;
	} calls[] = {
	    {"fsopen", 430, (long)"tmpfs", 0, 0, 0, 0},
	    {"fsconfig", 431, -1, 0, 0, 0, 0},
	    {"fsmount", 432, -1, 0, 0, 0, 0},
	    {"fspick", 433, AT_FDCWD, (long)"/", 0, 0, 0},
	    {"open_tree", 428, AT_FDCWD, (long)"/", 0, 0, 0},
	    {"open_tree_attr", 467, -1, (long)"", 0, 0, 0},
	    {"move_mount", 429, -1, (long)"", -1, (long)"", 0},
	    {"mount_setattr", 442, -1, (long)"", 0, 0, 0},
	};

	(void)c;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return printf("unshare: %s\n", name_of(errno)), 1;
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++) {
		long fd = syscall(calls[i].nr, calls[i].a0, calls[i].a1,
				  calls[i].a2, calls[i].a3, calls[i].a4);

		printf("%s%s:%s", i ? " " : "", calls[i].name,
		       name_of(fd < 0 ? errno : 0));
		if (fd >= 0)
			close((int)fd);
	}
	printf("\n");
	return 0;
}

/*
 * A filter of the program's own that allows every call, then three calls
 * ours refuses: "add_key:E clone3:E fanotify_init:E".
 */
static int own_filter(const struct try_call *c)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = 1, .filter = &allow};
	struct clone3_args args = {.exit_signal = SIGCHLD};
	long ret;
	int status;

	(void)c;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return printf("own filter: %s\n", name_of(errno)), 1;
	ret = syscall(SYS_add_key, "user", "jr2-own-filter", "x", 1,
		      KEY_SPEC_PROCESS_KEYRING);
	printf("add_key:%s", name_of(ret < 0 ? errno : 0));
	ret = syscall(SYS_clone3, &args, sizeof(args));
	if (ret == 0)
		_exit(0);
	if (ret > 0)
		waitpid((pid_t)ret, &status, 0);
	printf(" clone3:%s", name_of(ret < 0 ? errno : 0));
	ret = syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_ARG_REPORT_FID,
		      O_RDONLY);
	printf(" fanotify_init:%s\n", name_of(ret < 0 ? errno : 0));
	return 0;
}

const struct try_verb try_syscall_verbs[] = {
    {"sc-clone3", 1, "CGROUP|-", clone3_into, 0,
     "clone3, with CLONE_INTO_CGROUP of CGROUP unless \"-\""},
    {"sc-spawn", 0, "", spawn_all, 0,
     "fork, posix_spawn, a thread, a shell pipeline: \"ok ...\""},
    {"sc-fanotify", 1, "DIR", fanotify_watch, 0,
     "fanotify_init(FAN_REPORT_FID), an inode mark on DIR"},
    {"sc-fanotify-mark", 0, "", fanotify_no_group, 0,
     "fanotify_mark of no group (EBADF from the kernel)"},
    {"sc-bpf", 2, "MAP VALUE", bpf_obj_get, 0,
     "BPF_OBJ_GET of MAP, element 0 set; BPF_MAP_CREATE: a line"},
    {"sc-inotify", 3, "DIR NAME MARKER", inotify_watch, 0,
     "watches DIR, makes MARKER: the events of NAME up to its close"},
    {"sc-dnotify", 2, "DIR MARKER", dnotify_watch, 0,
     "F_NOTIFY on DIR, makes MARKER: \"signal for the dir\""},
    {"sc-mount-api", 0, "", mount_api, 0,
     "each call of the mount API in a user namespace: a line"},
    {"sc-own-filter", 0, "", own_filter, 0,
     "a filter of its own allowing all, then add_key, clone3, fanotify"},
    {NULL, 0, NULL, NULL, 0, NULL},
};
