/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the harness groups share (P1-P6, E1-E5, R8, R10): a jr2-harness
 * started in the test child's own mount and network namespaces, on a tmpfs,
 * with programs run through its spawner; and a helper mode of the test binary
 * itself for the operations jr2-try has no verb for.
 *
 * /mnt                      tmpfs (the test's mount namespace only)
 * ├── etc/                  files the harness reads (config, bearer)
 * ├── harness.log           the harness's stderr
 * └── h/                    --root (made here: serve refuses a missing one)
 *     └── run/jr2/          the protected dir the harness makes (0700)
 *         ├── control.sock, custodian.sock, control.bearer, stand-ins
 *         └── home/         the harness's HOME (E5)
 *
 * The harness and jr2-try are found as common.h's fx_tool() finds them
 * (JR2_BIN_DIR, ../bin beside the test binary, the test binary's folder), so
 * the same binaries run in the VMs.  Every test binary that includes this
 * header ends with HX_MAIN instead of TEST_HARNESS_MAIN.
 */
#ifndef JR2_SELFTESTS_HARNESS_HELPERS_H
#define JR2_SELFTESTS_HARNESS_HELPERS_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>

#include "common.h"

#define HX_MNT	     "/mnt"
#define HX_ETC	     HX_MNT "/etc"
#define HX_LOG	     HX_MNT "/harness.log"
#define HX_ROOT	     HX_MNT "/h"
#define HX_PROTECTED HX_ROOT "/run/jr2"
#define HX_STANDINS  HX_PROTECTED "/stand-ins"
#define HX_BEARER    HX_PROTECTED "/control.bearer"
#define HX_CONTROL   HX_PROTECTED "/control.sock"
#define HX_CUSTODIAN HX_PROTECTED "/custodian.sock"
#define HX_ABSTRACT  "jr2:" HX_PROTECTED
#define HX_READY_MS  10000
/* A config line that makes HX_ETC a read-only tree: the files the harness
 * trusts (config, bearer) must lie in one (E4). */
#define HX_TRUST_ETC "read-only " HX_ETC "\n"
/* A folder for a bearer file, protected by the config line below: a secret
 * lies in a protected dir, not in a read-only tree, which programs read. */
#define HX_SECRET	"/mnt/secret"
#define HX_TRUST_SECRET "protect " HX_SECRET "\n"
#define HX_OUT_SIZE	8192

struct hx {
	struct jr2_abi abi;
	char harness[PATH_MAX], try_tool[PATH_MAX], self[PATH_MAX];
	pid_t pid; /* the harness, as this test sees it */
	pid_t spawner;
	unsigned int generation;
	int serve_status; /* when it exited at start: its exit status */
	const char *bearer_file; /* NULL: the one the harness makes */
	int log_fd; /* above 2: the harness's stderr (a pty), not HX_LOG */
	off_t log_from; /* HX_LOG's size when this harness started */
	/* With log_fd: the harness is a background job of a session whose
	 * terminal log_fd is (`serve ... &` in a shell there); its leader: */
	bool tty_job;
	pid_t session;
};

/* ---- the helper mode: `<test binary> --hx-helper VERB ARG...` ---- */

/* Same address in every run of this static, non-PIE binary. */
static volatile char hx_marker[16] = "jr2-hx-marker";

static int hx_print_errno(int err)
{
	printf("%s\n", err ? strerrorname_np(err) : "ok");
	return err ? 1 : 0;
}

/* The descriptors this process holds, but the one that lists them. */
static int hx_helper_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;
	bool first = true;

	if (!dir)
		return hx_print_errno(errno);
	while ((entry = readdir(dir))) {
		int fd = atoi(entry->d_name);

		if (entry->d_name[0] == '.' || fd == dirfd(dir))
			continue;
		printf("%s%d", first ? "" : " ", fd);
		first = false;
	}
	printf("\n");
	closedir(dir);
	return 0;
}

/*
 * A child joins process group `pgid` ("own": this helper's group):
 * setpgid's answer, "ok" or the errno.
 */
static int hx_helper_join_pgid(const char *pgid)
{
	pid_t target = strcmp(pgid, "own") ? (pid_t)atoi(pgid) : getpgrp();
	int status, err;
	pid_t child = fork();

	if (child == 0)
		_exit(setpgid(0, target) ? errno : 0);
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status))
		return hx_print_errno(ECHILD);
	err = WEXITSTATUS(status);
	return hx_print_errno(err);
}

static int hx_helper_vm_read(pid_t pid)
{
	char buf[sizeof(hx_marker)];
	struct iovec local = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct iovec remote = {.iov_base = (void *)hx_marker,
			       .iov_len = sizeof(buf)};

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0)
		return hx_print_errno(errno);
	return hx_print_errno(0);
}

/* pidfd_getfd(2) of descriptor `fd` of `pid` (ptrace attach mode). */
static int hx_helper_pidfd_getfd(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), got;

	if (pidfd < 0)
		return hx_print_errno(errno);
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (got < 0)
		return hx_print_errno(errno);
	close(got);
	close(pidfd);
	return hx_print_errno(0);
}

/*
 * A program left running that watches every other process's environment
 * for NAME= until the file `file`.stop appears (60 s at most), and scans
 * once more then.  It appends to `file` "start", then for each pid each
 * change of what it gets: "read PID", "denied PID ERRNO" or "found PID"
 * (NAME= is in it).  A program is not dumpable until its execve: denied,
 * then read.
 */
static int hx_helper_lurk(const char *file, const char *name)
{
	static char seen[1 << 22]; /* by pid: 'r', 'd' or 'f' */
	char stop[PATH_MAX], needle[128], buf[65536], path[64];
	int out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	bool last = false;

	if (out < 0)
		return hx_print_errno(errno);
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

/* P6: a nested ruleset that grants reading `path` must not widen access. */
static int hx_helper_nested_widen(const char *path)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_READ_FILE};
	struct jr2_path_beneath_attr rule = {.allowed_access =
						 JR2_ACCESS_FS_READ_FILE};
	int ruleset, err;

	ruleset = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0);
	if (ruleset < 0)
		return hx_print_errno(errno);
	rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0)
		return hx_print_errno(errno);
	if (jr2_sys_add_rule(ruleset, JR2_RULE_PATH_BENEATH, &rule, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_sys_restrict_self(ruleset, 0))
		return hx_print_errno(errno);
	err = test_read(path);
	return hx_print_errno(err);
}

/* Sends one line to a Custodian socket (pathname, or @abstract) and prints
 * its answer, or the errno of connect. */
static int hx_helper_custodian(const char *where, const char *line)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	socklen_t len = sizeof(addr);
	char answer[512];
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (where[0] == '@') {
		memcpy(addr.sun_path + 1, where + 1, strlen(where + 1));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  strlen(where + 1));
	} else {
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", where);
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, len))
		return hx_print_errno(errno);
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		return hx_print_errno(errno);
	n = read(fd, answer, sizeof(answer) - 1);
	if (n < 0)
		return hx_print_errno(errno);
	answer[n] = '\0';
	printf("%s", answer);
	return 0;
}

/*
 * R11: a TCP socket whose last close lingers: SO_LINGER of an hour, and data
 * it cannot send to a loopback peer (*peer, to keep) that never reads.
 * Returns it, or -errno; *unsent: the bytes it holds (TIOCOUTQ, more than 0).
 */
static int hx_lingering_tcp(int *peer, int *unsent)
{
	struct sockaddr_in at = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct linger linger = {.l_onoff = 1, .l_linger = 3600};
	socklen_t len = sizeof(at);
	int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int small = 4096, err = 0;
	char block[4096] = {0};

	*peer = -1;
	setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	setsockopt(tcp, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	if (listener < 0 || tcp < 0 ||
	    bind(listener, (struct sockaddr *)&at, sizeof(at)) ||
	    listen(listener, 1) ||
	    getsockname(listener, (struct sockaddr *)&at, &len) ||
	    connect(tcp, (struct sockaddr *)&at, sizeof(at)) ||
	    (*peer = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    fcntl(tcp, F_SETFL, O_NONBLOCK))
		err = errno;
	while (!err && write(tcp, block, sizeof(block)) > 0)
		;
	/* Lingering last: no close below waits. */
	if (!err &&
	    (ioctl(tcp, TIOCOUTQ, unsent) ||
	     setsockopt(tcp, SOL_SOCKET, SO_LINGER, &linger, sizeof(linger))))
		err = errno;
	if (listener >= 0)
		close(listener);
	if (!err)
		return tcp;
	if (*peer >= 0)
		close(*peer);
	if (tcp >= 0)
		close(tcp);
	return -err;
}

/*
 * Connects to the harness's socket `path` (control: SOCK_SEQPACKET, an
 * empty message; else the Custodian's SOCK_STREAM, "x\n") and passes fd
 * with SCM_RIGHTS.  `behind` (control): first a message that is no request,
 * so the harness ends the connection and never reads the one with fd.
 * 0 or errno.
 */
static int hx_pass_fd(const char *path, bool behind, int fd)
{
	bool control = strstr(path, "control.sock");
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cmsg_buf;
	struct iovec iov = {.iov_base = "x\n", .iov_len = control ? 0 : 2};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cmsg_buf.buf,
			     .msg_controllen = sizeof(cmsg_buf.buf)};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	struct sockaddr_un addr;
	int sock =
	    socket(AF_UNIX,
		   (control ? SOCK_SEQPACKET : SOCK_STREAM) | SOCK_CLOEXEC, 0);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	fx_unix_addr(&addr, path);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (behind && send(sock, "x", 1, 0) != 1) ||
	    sendmsg(sock, &msg, 0) < 0)
		return errno;
	return 0;
}

/*
 * R11: makes a lingering TCP socket (hx_lingering_tcp), prints "ready",
 * waits for a byte on stdin, then has the harness hold its last reference:
 * a child passes it on the socket `path` (hx_pass_fd; `how`: "read", or
 * "unread" behind a refused message) and keeps its copy until this process
 * closed its own, then exits.  So no live process of this program makes a
 * last close (an exiting one never lingers).  Prints "sent N" (N: the bytes
 * unsent), or the errno, then keeps the peer unread until stdin ends.
 */
static int hx_helper_linger(const char *path, const char *how)
{
	int peer, unsent = 0, err = EIO, sent[2], held[2];
	int tcp = hx_lingering_tcp(&peer, &unsent);
	char byte;
	pid_t child;

	if (tcp < 0)
		return hx_print_errno(-tcp);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &byte, 1) != 1 || pipe2(sent, O_CLOEXEC) ||
	    pipe2(held, O_CLOEXEC) || (child = fork()) < 0)
		return hx_print_errno(errno ? errno : EIO);
	if (child == 0) {
		err = hx_pass_fd(path, !strcmp(how, "unread"), tcp);
		close(held[1]);
		if (write(sent[1], &err, sizeof(err)) == sizeof(err))
			while (read(held[0], &byte, 1) > 0)
				;
		_exit(0);
	}
	close(sent[1]);
	close(held[0]);
	if (read(sent[0], &err, sizeof(err)) != sizeof(err))
		err = EIO;
	close(tcp);
	close(held[1]);
	waitpid(child, NULL, 0);
	if (err)
		return hx_print_errno(err);
	printf("sent %d\n", unsent);
	fflush(stdout);
	while (read(0, &byte, 1) > 0)
		;
	close(peer);
	return 0;
}

static int hx_helper_mount(const char *verb, const char *path)
{
	int err = 0;

	if (!strcmp(verb, "mount-tmpfs"))
		err = mount("jr2", path, "tmpfs", 0, "size=1m") ? errno : 0;
	else if (!strcmp(verb, "umount"))
		err = umount2(path, MNT_DETACH) ? errno : 0;
	else if (!strcmp(verb, "bind"))
		err = mount(path, path, NULL, MS_BIND, NULL) ? errno : 0;
	else if (!strcmp(verb, "pivot-root"))
		err = syscall(SYS_pivot_root, path, path) ? errno : 0;
	else if (!strcmp(verb, "move-mount"))
		err = syscall(SYS_move_mount, AT_FDCWD, path, AT_FDCWD, path, 0)
			  ? errno
			  : 0;
	return hx_print_errno(err);
}

/*
 * Forks n children that each sleep ms then exit with `code`, prints their
 * pids and returns at once: the children become orphans of this program.
 */
static int hx_helper_orphans(int n, int ms, int code)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return hx_print_errno(errno);
		if (pid == 0) {
			usleep((useconds_t)ms * 1000);
			_exit(code);
		}
		printf("%s%d", i ? " " : "", (int)pid);
	}
	printf("\n");
	return 0;
}

/*
 * How a program meets a stop (SIGTERM): "catch" writes "term" to path and
 * exits 3; "ignore" ignores it (only SIGKILL ends it); "orphan" leaves a
 * child in a session of its own that catches it, and exits 0 (the child is
 * then the harness's, a subreaper).  Each writes path.ready once it waits.
 */
static int hx_helper_on_term(const char *mode, const char *path)
{
	char ready[PATH_MAX];
	sigset_t term;
	int sig, fd;

	snprintf(ready, sizeof(ready), "%s.ready", path);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (!strcmp(mode, "orphan")) {
		pid_t child = fork();

		if (child < 0)
			return hx_print_errno(errno);
		if (child > 0) {
			while (access(ready, F_OK))
				usleep(1000);
			return 0;
		}
		setsid();
	}
	if (!strcmp(mode, "ignore"))
		signal(SIGTERM, SIG_IGN);
	else
		sigprocmask(SIG_BLOCK, &term, NULL);
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return hx_print_errno(errno);
	close(fd);
	if (!strcmp(mode, "ignore"))
		for (;;)
			pause();
	if (sigwait(&term, &sig))
		return 1;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "term", 4) != 4)
		return hx_print_errno(errno);
	return 3;
}

/*
 * Holds n connections to the unix stream socket `path`, from `procs`
 * processes (n / procs each), for `seconds` (bounded: it stops itself), then
 * exits.  Each process prints the connections it opened once its share is
 * open (a line each: `procs` lines tell the flood is in full force).
 */
static int hx_helper_flood(const char *path, int n, int procs, int seconds)
{
	struct rlimit lim = {.rlim_cur = 4096, .rlim_max = 4096};
	struct sockaddr_un addr;

	setrlimit(RLIMIT_NOFILE, &lim);
	fx_unix_addr(&addr, path);
	for (int p = procs - 1; p >= 0; p--) {
		int opened = 0;

		/* The others first, each its own process (own peer pid). */
		if (p > 0 && fork() != 0)
			continue;
		for (int i = 0; i < n / procs; i++) {
			/* The control socket is SOCK_SEQPACKET. */
			int fd =
			    socket(AF_UNIX,
				   strstr(path, "control.sock") ? SOCK_SEQPACKET
								: SOCK_STREAM,
				   0);

			if (fd >= 0 && connect(fd, (struct sockaddr *)&addr,
					       sizeof(addr)) == 0)
				opened++;
		}
		printf("%d\n", opened);
		fflush(stdout);
		close(1);
		sleep((unsigned int)seconds);
		_exit(0);
	}
	return 0;
}

/*
 * Prints "ready", waits for a byte on stdin, then makes up to n connections
 * to the control socket `path`, each from a child that exits at once (the
 * harness then finds no such peer) while a grandchild keeps the descriptor
 * until stdin ends.  Non-blocking: a full backlog ends the round.  Prints
 * "held N".
 */
static int hx_helper_vanish(const char *path, int n)
{
	struct sockaddr_un addr;
	int held = 0;
	char go;

	fx_unix_addr(&addr, path);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &go, 1) != 1)
		return hx_print_errno(EIO);
	for (int i = 0; i < n; i++) {
		int status;
		pid_t child = fork();

		if (child == 0) {
			int fd =
			    socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
			int null = open("/dev/null", O_WRONLY);

			if (fd < 0 || null < 0 ||
			    connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
				_exit(1);
			dup2(null, 1);
			dup2(null, 2);
			if (fork() == 0) {
				while (read(0, &go, 1) > 0)
					;
				_exit(0);
			}
			_exit(0);
		}
		if (child < 0 || waitpid(child, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			break;
		held++;
	}
	printf("held %d\n", held);
	return 0;
}

/*
 * A chain of `depth` processes, each waiting for its child; the deepest
 * makes up to n connections to the control socket `path`, prints "held N"
 * and keeps them until stdin ends (a peer deeper than the harness's walk).
 */
static int hx_helper_deep(const char *path, int depth, int n)
{
	struct sockaddr_un addr;
	int held = 0, status;
	char byte;

	for (; depth > 1; depth--) {
		pid_t child = fork();

		if (child < 0)
			return hx_print_errno(errno);
		if (child > 0) {
			waitpid(child, &status, 0);
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
		}
	}
	fx_unix_addr(&addr, path);
	for (int i = 0; i < n; i++) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

		if (fd < 0 ||
		    connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
			break;
		held++;
	}
	printf("held %d\n", held);
	fflush(stdout);
	while (read(0, &byte, 1) > 0)
		;
	return 0;
}

/*
 * Takes a write lease on `file` ("self-stat": its own /proc/self/stat),
 * then a write delegation (6.19's F_SETDELEG), and prints "lease 0|ERRNO
 * deleg 0|ERRNO"; with a socket `path` (not "-"), it
 * then connects there (the harness looks at the peer's /proc stat).
 * Prints "held" and keeps both until stdin ends.  A lease holds
 * every other open of the file for fs.lease-break-time (45 s).
 */
static int hx_helper_lease(const char *file, const char *path)
{
	const char *what = strcmp(file, "self-stat") ? file : "/proc/self/stat";
	int fd = open(what, O_RDONLY | O_CLOEXEC), s = -1;
	char byte;

	/* struct delegation (6.19's uapi): d_flags, d_type, padding. */
	struct {
		__u32 d_flags;
		__u16 d_type, pad;
	} deleg = {.d_type = F_WRLCK};
	int lease, delegated;

	signal(SIGIO, SIG_IGN); /* the break notice */
	lease = fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK) ? errno : 0;
	delegated = fd < 0 || fcntl(fd, F_SETLEASE + 16, &deleg) ? errno : 0;
	printf("lease %s deleg %s\n", lease ? strerrorname_np(lease) : "0",
	       delegated ? strerrorname_np(delegated) : "0");
	if (strcmp(path, "-")) {
		struct sockaddr_un addr;

		fx_unix_addr(&addr, path);
		s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof(addr)))
			return hx_print_errno(errno);
	}
	printf("held\n");
	fflush(stdout);
	while (read(0, &byte, 1) > 0)
		;
	return 0;
}

/*
 * R11: on its stdout, a terminal the harness logs to: "off" and "on" suspend
 * and resume its output (tcflow: no controlling terminal needed), "tostop"
 * sets TOSTOP.  It prints nothing there (the output may be stopped): its exit
 * status is 0 or the errno.
 */
static int hx_helper_tty(const char *how)
{
	struct termios t;

	if (!strcmp(how, "tostop")) {
		if (tcgetattr(1, &t))
			return errno;
		t.c_lflag |= TOSTOP;
		return tcsetattr(1, TCSANOW, &t) ? errno : 0;
	}
	return tcflow(1, strcmp(how, "off") ? TCOON : TCOOFF) ? errno : 0;
}

static int hx_helper(int argc, char **argv)
{
	if (argc == 1 && !strcmp(argv[0], "fds"))
		return hx_helper_fds();
	if (argc == 1 && !strcmp(argv[0], "environ")) {
		extern char **environ;

		for (char **e = environ; *e; e++)
			printf("%s\n", *e);
		return 0;
	}
	if (argc == 1 &&
	    (!strcmp(argv[0], "sleep") || !strcmp(argv[0], "sleep-unnamed"))) {
		/*
		 * A long-lived program whose memory holds hx_marker.  "sleep"
		 * names every program as its tracer (PR_SET_PTRACER_ANY): under
		 * Yama's ptrace_scope 1 its peers may then trace it, and a
		 * denial comes from Landlock, not Yama.  Without Yama the call
		 * fails with EINVAL, and nothing needs it.
		 */
		if (!strcmp(argv[0], "sleep") &&
		    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) &&
		    jr2_yama_ptrace_scope() >= 0)
			return hx_print_errno(errno);
		for (int i = 0; i < 120 && hx_marker[0]; i++)
			sleep(1);
		return 0;
	}
	if (argc == 1 && !strcmp(argv[0], "proc-environ")) {
		/* The kernel's copy of the environment, one entry a line. */
		char buf[65536];
		int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

		if (n < 0)
			return hx_print_errno(errno);
		for (ssize_t i = 0; i < n; i++)
			putchar(buf[i] ? buf[i] : '\n');
		return 0;
	}
	if (argc == 2 && !strcmp(argv[0], "getenv")) {
		const char *value = getenv(argv[1]);

		printf("%s\n", value ? value : "(unset)");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[0], "orphans"))
		return hx_helper_orphans(atoi(argv[1]), atoi(argv[2]),
					 atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[0], "pid-sleep-exit")) {
		/* Its own pid, then it lives ms and exits with code. */
		printf("%d\n", (int)getpid());
		fflush(stdout);
		usleep((useconds_t)atoi(argv[1]) * 1000);
		return atoi(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[0], "on-term"))
		return hx_helper_on_term(argv[1], argv[2]);
	if (argc == 5 && !strcmp(argv[0], "flood"))
		return hx_helper_flood(argv[1], atoi(argv[2]), atoi(argv[3]),
				       atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[0], "deep"))
		return hx_helper_deep(argv[1], atoi(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[0], "vanish"))
		return hx_helper_vanish(argv[1], atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[0], "pidfd-getfd"))
		return hx_helper_pidfd_getfd(atoi(argv[1]), atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[0], "lurk"))
		return hx_helper_lurk(argv[1], argv[2]);
	if (argc == 2 && !strcmp(argv[0], "vm-read"))
		return hx_helper_vm_read(atoi(argv[1]));
	if (argc == 2 && !strcmp(argv[0], "join-pgid"))
		return hx_helper_join_pgid(argv[1]);
	if (argc == 2 && !strcmp(argv[0], "nested-widen"))
		return hx_helper_nested_widen(argv[1]);
	if (argc == 3 && !strcmp(argv[0], "custodian"))
		return hx_helper_custodian(argv[1], argv[2]);
	if (argc == 3 && !strcmp(argv[0], "lease"))
		return hx_helper_lease(argv[1], argv[2]);
	if (argc == 2 && !strcmp(argv[0], "tty"))
		return hx_helper_tty(argv[1]);
	if (argc == 3 && !strcmp(argv[0], "linger"))
		return hx_helper_linger(argv[1], argv[2]);
	if (argc == 2)
		return hx_helper_mount(argv[0], argv[1]);
	fprintf(stderr, "hx-helper: unknown verb; see harness_helpers.h\n");
	return 101;
}

#define HX_MAIN                                                  \
	int main(int argc, char **argv)                          \
	{                                                        \
		if (argc > 1 && !strcmp(argv[1], "--hx-helper")) \
			return hx_helper(argc - 2, argv + 2);    \
		return test_harness_run(argc, argv);             \
	}

/* ---- the harness under test ---- */

/*
 * A network namespace for the test binary (abstract socket names are per
 * netns): made once at its start, before the kselftest harness forks the
 * tests, so that no harness of a test meets the host's (or another binary's)
 * abstract names; a namespace per test cost 3-20 ms under TCG to make, and
 * more to tear down, in every harness test.  The tests of one binary run one
 * after the other, each harness stopped (its abstract socket closed) before
 * the next starts.  Not in a helper mode (`--hx-helper`, `--step-helper`,
 * any `--` first argument): those run as the harness's programs, in its
 * namespace.
 */
static int hx_netns_err = -1;

static void __attribute__((constructor)) hx_own_netns(int argc, char **argv)
{
	if (argc > 1 && !strncmp(argv[1], "--", 2))
		return;
	hx_netns_err = unshare(CLONE_NEWNET) ? errno : 0;
}

/* Own mount namespace and tmpfs, in the binary's own network namespace. */
static inline void hx_setup(struct __test_metadata *_metadata, struct hx *hx)
{
	ssize_t len;

	memset(hx, 0, sizeof(*hx));
	fx_probe_abi(_metadata, &hx->abi);
	ASSERT_EQ(0, hx_netns_err)
	{
		TH_LOG("unshare(CLONE_NEWNET) at the binary's start: %s: run "
		       "the suite as root",
		       strerror(hx_netns_err));
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNS))
	{
		TH_LOG("unshare(CLONE_NEWNS): %s: run the suite as root",
		       strerror(errno));
	}
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	if (mkdir(HX_MNT, 0755) && errno != EEXIST)
		ASSERT_EQ(0, errno);
	fx_mount_tmpfs(_metadata, "jr2-harness-test", HX_MNT,
		       "mode=0755,size=16m");
	umask(022);
	fx_make_dir(_metadata, HX_ETC, 0755);
	/* The root is the user's: serve refuses one that does not exist. */
	fx_make_dir(_metadata, HX_ROOT, 0755);
	FX_FIND_TOOL("jr2-harness", hx->harness);
	FX_FIND_TOOL("jr2-try", hx->try_tool);
	len = readlink("/proc/self/exe", hx->self, sizeof(hx->self) - 1);
	ASSERT_LT(0, len);
	hx->self[len] = '\0';
}

/* The value of "key: value" in `jr2-harness status` text, or NULL. */
static inline const char *hx_field(const char *status, const char *key,
				   char *buf, size_t size)
{
	size_t key_len = strlen(key);

	for (const char *line = status; line && *line;) {
		const char *end = strchrnul(line, '\n');

		if (!strncmp(line, key, key_len) && line[key_len] == ':') {
			const char *v = line + key_len + 1;

			while (*v == ' ')
				v++;
			snprintf(buf, size, "%.*s", (int)(end - v), v);
			return buf;
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

/* Runs `jr2-harness status`; 0 with its text in out, else its exit status. */
static inline int hx_status(struct hx *hx, char *out, size_t size)
{
	char *const argv[] = {hx->harness,
			      "status",
			      "--root",
			      HX_ROOT,
			      hx->bearer_file ? "--bearer-file" : NULL,
			      (char *)hx->bearer_file,
			      NULL};
	int status = -1, err = fx_run(argv, out, size, &status);

	return err ? -err : status;
}

/*
 * Whether the log's last 16 KiB say that a spawner of generation >= gen is
 * ready: the harness logs its start line, with its generation and pid, when
 * the spawner says "ready" (its log's writer writes it just after `status`
 * would say spawner_ready: true).  Only lines of this harness count (from
 * hx->log_from: a test may start another in the same log).  Sets hx->generation
 * and hx->spawner from the last such line.
 */
static inline bool hx_log_says_ready(struct hx *hx, unsigned int gen)
{
	static const char start_line[] = "\njr2-harness: spawner generation ";
	char tail[16384];
	const char *at, *last = NULL;
	int fd = open(HX_LOG, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	off_t from;
	ssize_t n = -1;
	unsigned int seen;
	int pid, whole = 0;

	/* Emptied since (truncate): its lines start over. */
	if (end >= 0 && end < hx->log_from)
		hx->log_from = 0;
	from = end - (off_t)sizeof(tail) + 2;
	if (from < hx->log_from)
		from = hx->log_from;
	/* A line is one the harness began (a client's newline is written
	 * \x0a): the first one read is whole only from log_from. */
	tail[0] = '\n';
	if (end >= 0)
		n = pread(fd, tail + 1, sizeof(tail) - 2, from);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	tail[n + 1] = '\0';
	for (at = from == hx->log_from ? tail : strchrnul(tail + 1, '\n');
	     (at = strstr(at, start_line)); at++)
		last = at + 1;
	/* %n: set only when the words after the pid match too. */
	if (!last ||
	    sscanf(last,
		   "jr2-harness: spawner generation %u (pid %d) confined "
		   "at Landlock ABI %n",
		   &seen, &pid, &whole) != 2 ||
	    !whole || seen < gen || pid <= 0)
		return false;
	hx->generation = seen;
	hx->spawner = pid;
	return true;
}

static inline long long hx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * The wait of hx_wait_ready(), woken by the log (inotify: every line the
 * harness writes) and, when `serve` is the harness's pid, by its exit (a
 * pidfd; without one, waitpid every 5 ms as before).  Ready when the log
 * says so (hx_log_says_ready), else when `jr2-harness status` (an exec),
 * asked every 100 ms, says so: a flood of start lines may be counted, not
 * logged, and a log on a terminal is not HX_LOG.  1 when ready
 * (hx->generation, hx->spawner set); 0 when `serve` ended (reaped, its wait
 * status in *status); -1 after HX_READY_MS.
 */
static inline int hx_await_ready(struct hx *hx, unsigned int min_generation,
				 pid_t serve, int *status)
{
	char out[HX_OUT_SIZE], value[64];
	int log_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	int exit_fd = serve > 0 ? (int)syscall(SYS_pidfd_open, serve, 0) : -1;
	long long start = hx_now_ms(), asked = start, now = start;
	int ret = -1;

	/* The harness appends to the log: made here first, to be watched. */
	close(open(HX_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
	if (log_fd >= 0 && inotify_add_watch(log_fd, HX_LOG, IN_MODIFY) < 0) {
		close(log_fd);
		log_fd = -1;
	}
	for (;;) {
		struct pollfd pfd[2] = {{.fd = log_fd, .events = POLLIN},
					{.fd = exit_fd, .events = POLLIN}};
		char drain[4096];
		int wait_ms;

		if (hx_log_says_ready(hx, min_generation)) {
			ret = 1;
			break;
		}
		if (now - asked >= 100) {
			asked = now;
			if (hx_status(hx, out, sizeof(out)) == 0 &&
			    hx_field(out, "spawner_ready", value,
				     sizeof(value)) &&
			    !strcmp(value, "true") &&
			    hx_field(out, "generation", value, sizeof(value)) &&
			    (unsigned int)atoi(value) >= min_generation) {
				hx->generation = (unsigned int)atoi(value);
				hx_field(out, "spawner_pid", value,
					 sizeof(value));
				hx->spawner = atoi(value);
				ret = 1;
				break;
			}
		}
		if (serve > 0 && exit_fd < 0 &&
		    waitpid(serve, status, WNOHANG) == serve) {
			ret = 0;
			break;
		}
		now = hx_now_ms();
		if (now - start >= HX_READY_MS)
			break;
		/* Without a watch or without a pidfd: as often as the old
		   5 ms polling. */
		wait_ms = log_fd < 0 || (serve > 0 && exit_fd < 0)
			      ? 5
			      : (int)(asked + 100 - now);
		if (wait_ms < 1)
			wait_ms = 1;
		if (poll(pfd, 2, wait_ms) > 0) {
			if (pfd[1].revents) {
				waitpid(serve, status, 0);
				ret = 0;
				break;
			}
			while (read(log_fd, drain, sizeof(drain)) > 0)
				;
		}
		now = hx_now_ms();
	}
	if (log_fd >= 0)
		close(log_fd);
	if (exit_fd >= 0)
		close(exit_fd);
	return ret;
}

/* Waits until a spawner of generation >= min_generation is ready. */
static inline void hx_wait_ready(struct __test_metadata *_metadata,
				 struct hx *hx, unsigned int min_generation)
{
	ASSERT_EQ(1, hx_await_ready(hx, min_generation, 0, NULL))
	{
		TH_LOG("no ready spawner of generation >= %u within %d ms",
		       min_generation, HX_READY_MS);
	}
}

/*
 * In the harness's child, before its exec (hx->tty_job): a new session whose
 * controlling terminal is hx->log_fd, led by this process, which stays in the
 * foreground and forks the harness-to-be into a process group of its own (a
 * background job, as a shell's `serve ... &`; its parent in the session keeps
 * the group from being orphaned, so the kernel's job control applies).  The
 * leader reports the job's pid on `report` and exits with it.  Returns in the
 * job.
 */
static inline void hx_become_job(struct hx *hx, int report)
{
	int status = 0;
	pid_t job;

	if (setsid() < 0 || ioctl(hx->log_fd, TIOCSCTTY, 0))
		_exit(126);
	job = fork();
	if (job < 0)
		_exit(126);
	if (job == 0) {
		setpgid(0, 0);
		close(report);
		return;
	}
	setpgid(job, job);
	if (write(report, &job, sizeof(job)) != sizeof(job))
		_exit(126);
	close(report);
	while (waitpid(job, &status, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

/*
 * Starts `jr2-harness serve --root HX_ROOT EXTRA...` with envp (NULL: this
 * process's environment).  Returns 0 once it serves with a ready spawner,
 * or the exit status it ended with (a refusal at start).
 */
static inline int hx_start_env(struct __test_metadata *_metadata, struct hx *hx,
			       const char *const extra[], char *const envp[])
{
	extern char **environ;
	char *argv[32] = {hx->harness, "serve", "--root", HX_ROOT};
	int n = 4, status = -1, report[2] = {-1, -1};
	struct stat log;

	for (int i = 0; extra && extra[i]; i++)
		argv[n++] = (char *)extra[i];
	argv[n] = NULL;
	if (hx->tty_job)
		ASSERT_EQ(0, pipe2(report, O_CLOEXEC));
	hx->log_from = stat(HX_LOG, &log) ? 0 : log.st_size;
	hx->pid = fork();
	ASSERT_LE(0, hx->pid);
	if (hx->pid == 0) {
		int log =
		    hx->log_fd > 2
			? hx->log_fd
			: open(HX_LOG, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int null = open("/dev/null", O_RDWR);

		/* Never outlives the test, even when an assert aborts it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (hx->tty_job) {
			close(report[0]);
			hx_become_job(hx, report[1]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		}
		dup2(null, 0);
		dup2(null, 1);
		dup2(log, 2);
		execve(argv[0], argv, envp ? envp : environ);
		_exit(127);
	}
	if (hx->tty_job) {
		hx->session = hx->pid;
		close(report[1]);
		ASSERT_EQ((ssize_t)sizeof(hx->pid),
			  read(report[0], &hx->pid, sizeof(hx->pid)));
		close(report[0]);
	}
	switch (hx_await_ready(hx, 1, hx->pid, &status)) {
	case 1:
		return 0;
	case 0:
		/* Ended before its spawner was ready: a refusal at start. */
		hx->pid = 0;
		hx->serve_status = WIFEXITED(status) ? WEXITSTATUS(status)
						     : 128 + WTERMSIG(status);
		return hx->serve_status;
	}
	ASSERT_TRUE(false)
	{
		TH_LOG("no ready spawner of generation >= 1 within %d ms",
		       HX_READY_MS);
	}
	return -1;
}

static inline int hx_start(struct __test_metadata *_metadata, struct hx *hx,
			   const char *const extra[])
{
	return hx_start_env(_metadata, hx, extra, NULL);
}

/* The harness's log, for messages and for TH_LOG on failure. */
static inline void hx_log(char *out, size_t size)
{
	int fd = open(HX_LOG, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, out, size - 1);

	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * The errno of a write the policy denies in a protected dir or a read-only
 * tree, for a program of the harness: EROFS where the spawner's read-only
 * mounts hold (its "metadata: holds" log line), else Landlock's EACCES.
 */
static inline const char *hx_write_denied(void)
{
	char log[HX_OUT_SIZE];

	hx_log(log, sizeof(log));
	return strstr(log, "jr2-harness: metadata: holds") ? "EROFS" : "EACCES";
}

/*
 * Starts the harness, or, where the runtime must refuse this ABI (G1-G3),
 * asserts that it refused with the reason and skips naming it.
 */
#define HX_START(hx, extra)                                                \
	do {                                                               \
		char _why[256], _log[HX_OUT_SIZE];                         \
		int _rc = hx_start(_metadata, hx, extra);                  \
		if (!fx_accepted(&(hx)->abi)) {                            \
			hx_log(_log, sizeof(_log));                        \
			ASSERT_EQ(1, _rc);                                 \
			ASSERT_NE(NULL, strstr(_log, "refusing to start")) \
			{                                                  \
				TH_LOG("log: %s", _log);                   \
			}                                                  \
			SKIP(return, "%s",                                 \
				   fx_refusal_reason(&(hx)->abi, _why,     \
						     sizeof(_why)));       \
		}                                                          \
		ASSERT_EQ(0, _rc)                                          \
		{                                                          \
			hx_log(_log, sizeof(_log));                        \
			TH_LOG("serve ended with %d; log: %s", _rc, _log); \
		}                                                          \
	} while (0)

/* The value of NAME in the Stand-ins file (the test is unconfined). */
static inline void hx_standin(struct __test_metadata *_metadata,
			      const char *name, char *value, size_t size)
{
	char text[4096], key[128];
	int fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	const char *at;

	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	text[n] = '\0';
	snprintf(key, sizeof(key), "\n%s=", name);
	at = !strncmp(text, key + 1, strlen(key + 1)) ? text - 1
						      : strstr(text, key);
	ASSERT_NE(NULL, at)
	{
		TH_LOG("no Stand-in '%s' in %s", name, HX_STANDINS);
	}
	at += strlen(key);
	snprintf(value, size, "%.*s", (int)strcspn(at, "\n"), at);
}

/* For tests of refusals at start: the ABI refusal would come first. */
#define HX_REQUIRE_ACCEPTED(hx)                                        \
	do {                                                           \
		char _why[256];                                        \
		if (!fx_accepted(&(hx)->abi))                          \
			SKIP(return, "%s",                             \
				   fx_refusal_reason(&(hx)->abi, _why, \
						     sizeof(_why)));   \
	} while (0)

/*
 * Runs argv through `jr2-harness exec [OPTIONS] --`; its output (stdout and
 * stderr) in out.  Returns the client's exit status.
 */
static inline int hx_exec_opts(struct hx *hx, const char *const opts[],
			       const char *const argv[], char *out, size_t size)
{
	char *args[64] = {hx->harness, "exec", "--root", HX_ROOT};
	int n = 4, status = -1;

	if (hx->bearer_file) {
		args[n++] = "--bearer-file";
		args[n++] = (char *)hx->bearer_file;
	}
	for (int i = 0; opts && opts[i]; i++)
		args[n++] = (char *)opts[i];
	args[n++] = "--";
	for (int i = 0; argv[i] && n < 63; i++)
		args[n++] = (char *)argv[i];
	args[n] = NULL;
	if (fx_run(args, out, size, &status))
		return -1;
	return status;
}

static inline int hx_exec(struct hx *hx, const char *const argv[], char *out,
			  size_t size)
{
	return hx_exec_opts(hx, NULL, argv, out, size);
}

/* jr2-try VERB ARGS run confined: its first word ("ok", "EACCES", ...). */
#define HX_TRY(hx, ...)                                                   \
	({                                                                \
		static char _out[HX_OUT_SIZE];                            \
		const char *const _argv[] = {(hx)->try_tool, __VA_ARGS__, \
					     NULL};                       \
		hx_exec(hx, _argv, _out, sizeof(_out));                   \
		_out[strcspn(_out, " \n")] = '\0';                        \
		(const char *)_out;                                       \
	})

/* The helper mode of this binary, run confined: its first line. */
#define HX_HELP(hx, ...)                                                \
	({                                                              \
		static char _out[HX_OUT_SIZE];                          \
		const char *const _argv[] = {(hx)->self, "--hx-helper", \
					     __VA_ARGS__, NULL};        \
		hx_exec(hx, _argv, _out, sizeof(_out));                 \
		_out[strcspn(_out, "\n")] = '\0';                       \
		(const char *)_out;                                     \
	})

/*
 * Starts a long-lived confined program (this binary's helper `verb`, through
 * `exec OPTS`) in the background; returns its pid as the harness reports it
 * (waits for it).
 */
static inline pid_t hx_start_helper(struct __test_metadata *_metadata,
				    struct hx *hx, pid_t *client,
				    const char *const opts[],
				    const char *const verb[])
{
	char out[HX_OUT_SIZE], value[1024], before[1100] = "";

	if (hx_status(hx, out, sizeof(out)) == 0 &&
	    hx_field(out, "programs", value, sizeof(value)))
		snprintf(before, sizeof(before), " %s ", value);
	*client = fork();
	if (*client == 0) {
		char *argv[32] = {hx->harness, "exec", "--root", HX_ROOT};
		int null = open("/dev/null", O_RDWR), n = 4;

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		for (int i = 0; opts && opts[i] && n < 24; i++)
			argv[n++] = (char *)opts[i];
		argv[n++] = "--";
		argv[n++] = hx->self;
		argv[n++] = "--hx-helper";
		for (int i = 0; verb[i] && n < 31; i++)
			argv[n++] = (char *)verb[i];
		argv[n] = NULL;
		execv(hx->harness, argv);
		_exit(127);
	}
	for (int waited = 0; waited < HX_READY_MS; waited += 5) {
		if (hx_status(hx, out, sizeof(out)) == 0 &&
		    hx_field(out, "programs", value, sizeof(value))) {
			/* The first "PID/GEN" not there before. */
			for (char *tok = strtok(value, " "); tok;
			     tok = strtok(NULL, " ")) {
				char key[64];

				snprintf(key, sizeof(key), " %s ", tok);
				if (!strstr(before, key))
					return atoi(tok);
			}
		}
		usleep(5000);
	}
	ASSERT_TRUE(false)
	{
		TH_LOG("the sleeper did not start within %d ms", HX_READY_MS);
	}
	return -1;
}

static inline pid_t hx_start_sleeper_verb(struct __test_metadata *_metadata,
					  struct hx *hx, pid_t *client,
					  const char *verb)
{
	const char *const argv[] = {verb, NULL};

	return hx_start_helper(_metadata, hx, client, NULL, argv);
}

/* A sleeper that every program may trace as far as Yama goes. */
static inline pid_t hx_start_sleeper(struct __test_metadata *_metadata,
				     struct hx *hx, pid_t *client)
{
	return hx_start_sleeper_verb(_metadata, hx, client, "sleep");
}

/*
 * Whether Yama lets a confined program trace a peer of its own domain that
 * named it with PR_SET_PTRACER (the sleeper does): NULL when it does (no
 * Yama, ptrace_scope 0 or 1), else why not, naming Yama and its value
 * (2: CAP_SYS_PTRACE only, which the domain lacks; 3: never).
 */
static inline const char *hx_peer_trace_blocked(char *why, size_t size)
{
	int scope = jr2_yama_ptrace_scope();

	if (scope <= 1)
		return NULL;
	snprintf(why, size,
		 "Yama's ptrace_scope is %d (%s): no program of the domain "
		 "may trace another, so the positive control of tracing "
		 "cannot run",
		 scope,
		 scope == 2 ? "tracing needs CAP_SYS_PTRACE, which the domain "
			      "drops"
			    : "no attach at all");
	return why;
}

/*
 * Ends the programs and the harness.  Every program is a child of the
 * harness (the spawner starts them with CLONE_PARENT; an orphan of one is
 * reparented to it, a subreaper) leading its own process group.  The
 * harness's children are read from /proc (no `status`, an exec), the
 * harness is stopped (its spawner dies with it), then each child's group
 * is killed: the spawner is not killed first, which the harness would
 * restart.
 */
static inline void hx_stop(struct hx *hx)
{
	pid_t groups[1024];
	size_t n;

	if (hx->pid <= 0)
		return;
	n = fx_children_of(hx->pid, false, groups,
			   sizeof(groups) / sizeof(groups[0]));
	/* The programs first: the harness's stop then has none to wait for
	 * (a program ignoring its SIGTERM would hold it the grace period). */
	for (size_t i = 0; i < n; i++)
		kill(-groups[i], SIGKILL);
	kill(hx->pid, SIGTERM);
	waitpid(hx->pid, NULL, 0);
	/* A job's harness is the session leader's child: it reaps it. */
	if (hx->session > 0)
		waitpid(hx->session, NULL, 0);
	hx->pid = 0;
	hx->session = 0;
}

/* A fixture `group` with a struct hx; the harness stops at teardown. */
/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
#define HX_FIXTURE(group)                       \
	FIXTURE(group)                          \
	{                                       \
		struct hx hx;                   \
	};                                      \
	FIXTURE_SETUP(group)                    \
	{                                       \
		hx_setup(_metadata, &self->hx); \
	}                                       \
	FIXTURE_TEARDOWN(group)                 \
	{                                       \
		hx_stop(&self->hx);             \
	}
/* clang-format on */

static inline const char *hx_pid_str(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, "%d", (int)pid);
	return buf;
}

#endif /* JR2_SELFTESTS_HARNESS_HELPERS_H */
