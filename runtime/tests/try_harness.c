// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's programs of the harness (selftests/harness_helpers.h runs them
 * through `jr2-harness exec`): what a program sees (descriptors,
 * environment), how it ends (orphans, stops), and the load it puts on the
 * harness's sockets (floods, vanished and deep peers, leases, lingering
 * sockets).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "try.h"
#include "try_shared.h"

/* The descriptors this process holds, but the one that lists them. */
static int fds(const struct try_call *c)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;
	bool first = true;

	(void)c;
	if (!dir)
		return try_report(errno);
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

/* What descriptor FD of this process refers to, as /proc shows it. */
static int fd_link(const struct try_call *c)
{
	char link[64], target[PATH_MAX];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%ld",
		 try_number(c->arg[0], "FD"));
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return try_report(errno);
	printf("%.*s\n", (int)len, target);
	return 0;
}

static int print_environ(const struct try_call *c)
{
	extern char **environ;

	(void)c;
	for (char **e = environ; *e; e++)
		printf("%s\n", *e);
	return 0;
}

/* The kernel's copy of the environment, one entry a line. */
static int proc_environ(const struct try_call *c)
{
	char buf[65536];
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	(void)c;
	if (n < 0)
		return try_report(errno);
	for (ssize_t i = 0; i < n; i++)
		putchar(buf[i] ? buf[i] : '\n');
	return 0;
}

static int print_getenv(const struct try_call *c)
{
	const char *value = getenv(c->arg[0]);

	printf("%s\n", value ? value : "(unset)");
	return 0;
}

/*
 * Forks N children that each sleep MS then exit with CODE, prints their
 * pids and returns at once: the children become orphans of this program.
 */
static int orphans(const struct try_call *c)
{
	int n = (int)try_number(c->arg[0], "N");
	int ms = (int)try_number(c->arg[1], "MS");
	int code = (int)try_number(c->arg[2], "CODE");

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return try_report(errno);
		if (pid == 0) {
			usleep((useconds_t)ms * 1000);
			_exit(code);
		}
		printf("%s%d", i ? " " : "", (int)pid);
	}
	printf("\n");
	return 0;
}

/* Its own pid, then it lives MS and exits with CODE. */
static int pid_sleep_exit(const struct try_call *c)
{
	int ms = (int)try_number(c->arg[0], "MS");
	int code = (int)try_number(c->arg[1], "CODE");

	printf("%d\n", (int)getpid());
	fflush(stdout);
	usleep((useconds_t)ms * 1000);
	return code;
}

/*
 * How a program meets a stop (SIGTERM): "catch" writes "term" to PATH and
 * exits 3; "ignore" ignores it (only SIGKILL ends it); "orphan" leaves a
 * child in a session of its own that catches it, and exits 0 (the child is
 * then the harness's, a subreaper); "late-orphan" has that child too, and
 * exits 3 only 300 ms after its own SIGTERM: the child becomes the
 * harness's after the stop signalled its children.  Each writes PATH.ready
 * once it waits.
 */
static int on_term(const struct try_call *c)
{
	const char *mode = c->arg[0], *path = c->arg[1];
	char ready[PATH_MAX];
	sigset_t term;
	int sig, fd;

	snprintf(ready, sizeof(ready), "%s.ready", path);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (!strcmp(mode, "orphan") || !strcmp(mode, "late-orphan")) {
		pid_t child;

		/* Blocked before the fork: no SIGTERM ends either at once. */
		sigprocmask(SIG_BLOCK, &term, NULL);
		child = fork();
		if (child < 0)
			return try_report(errno);
		if (child > 0) {
			while (access(ready, F_OK))
				usleep(1000);
			if (!strcmp(mode, "orphan"))
				return 0;
			if (sigwait(&term, &sig))
				return 1;
			usleep(300 * 1000);
			return 3;
		}
		setsid();
	}
	if (!strcmp(mode, "ignore"))
		signal(SIGTERM, SIG_IGN);
	else
		sigprocmask(SIG_BLOCK, &term, NULL);
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return try_report(errno);
	close(fd);
	if (!strcmp(mode, "ignore"))
		for (;;)
			pause();
	if (sigwait(&term, &sig))
		return 1;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "term", 4) != 4)
		return try_report(errno);
	return 3;
}

/* Writes text to path whole: a reader never sees a part (rename). */
static int write_whole(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    close(fd) || rename(tmp, path))
		return errno;
	return 0;
}

/*
 * A program and a child of its session, for a cancel.  The child moves to
 * a process group of its own (still the session's), or with "setsid" to a
 * session of its own (a server started on purpose).  "catch": both exit 3
 * on SIGTERM; "ignore": both ignore it; "exit": the program exits 0 once
 * ready, its child (which exits 3 on SIGTERM) lives on; "setsid": the
 * program exits 3 on SIGTERM, its child (setsid) too.  PATH.ready holds
 * "PID CHILD" once both wait.
 */
static int session(const struct try_call *c)
{
	const char *mode = c->arg[0], *path = c->arg[1];
	char ready[PATH_MAX], pids[64];
	int report[2], sig, err;
	sigset_t term;
	pid_t child;

	snprintf(ready, sizeof(ready), "%s.ready", path);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (!strcmp(mode, "ignore"))
		signal(SIGTERM, SIG_IGN);
	else
		sigprocmask(SIG_BLOCK, &term, NULL);
	if (pipe(report))
		return try_report(errno);
	child = fork();
	if (child < 0)
		return try_report(errno);
	if (child == 0) {
		if (!strcmp(mode, "setsid") ? setsid() < 0 : setpgid(0, 0))
			_exit(1);
		close(report[0]);
		close(report[1]); /* ready: the parent reads its end */
		if (!strcmp(mode, "ignore"))
			for (;;)
				pause();
		if (sigwait(&term, &sig))
			_exit(1);
		_exit(3);
	}
	close(report[1]);
	while (read(report[0], &sig, 1) > 0)
		;
	close(report[0]);
	snprintf(pids, sizeof(pids), "%d %d", (int)getpid(), (int)child);
	err = write_whole(ready, pids);
	if (err)
		return try_report(err);
	if (!strcmp(mode, "exit"))
		return 0;
	if (!strcmp(mode, "ignore"))
		for (;;)
			pause();
	if (sigwait(&term, &sig))
		return 1;
	return 3;
}

/*
 * Waits for one of the signals a client passes on; writes its number to
 * PATH and exits with it (PATH.ready once it waits).
 */
static int on_signal(const struct try_call *c)
{
	static const int sigs[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT,
				   SIGUSR1, SIGUSR2, SIGWINCH};
	char ready[PATH_MAX], number[16];
	sigset_t set;
	int sig, err;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	snprintf(ready, sizeof(ready), "%s.ready", c->arg[0]);
	err = write_whole(ready, "ready");
	if (err)
		return try_report(err);
	if (sigwait(&set, &sig))
		return 1;
	snprintf(number, sizeof(number), "%d", sig);
	err = write_whole(c->arg[0], number);
	if (err)
		return try_report(err);
	return sig;
}

/* Sends one line to a Custodian socket (pathname, or @abstract) and prints
 * its answer, or the errno of connect. */
static int custodian(const struct try_call *c)
{
	const char *where = c->arg[0], *line = c->arg[1];
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
		return try_report(errno);
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		return try_report(errno);
	n = read(fd, answer, sizeof(answer) - 1);
	if (n < 0)
		return try_report(errno);
	answer[n] = '\0';
	printf("%s", answer);
	return 0;
}

/* The harness's control socket is SOCK_SEQPACKET, the Custodian's a stream. */
static int socket_type_of(const char *path)
{
	return strstr(path, "control.sock") ? SOCK_SEQPACKET : SOCK_STREAM;
}

/*
 * Holds N connections to the unix socket PATH, from PROCS processes (N /
 * PROCS each), for SECONDS (bounded: it stops itself), then exits.  Each
 * process prints the connections it opened once its share is open (a line
 * each: PROCS lines tell the flood is in full force).
 */
static int flood(const struct try_call *c)
{
	const char *path = c->arg[0];
	int n = (int)try_number(c->arg[1], "N");
	int procs = (int)try_number(c->arg[2], "PROCS");
	int seconds = (int)try_number(c->arg[3], "SECONDS");
	struct rlimit lim = {.rlim_cur = 4096, .rlim_max = 4096};
	struct sockaddr_un addr;

	setrlimit(RLIMIT_NOFILE, &lim);
	try_unix_addr(&addr, path);
	for (int p = procs - 1; p >= 0; p--) {
		int opened = 0;

		/* The others first, each its own process (own peer pid). */
		if (p > 0 && fork() != 0)
			continue;
		for (int i = 0; i < n / procs; i++) {
			int fd = socket(AF_UNIX, socket_type_of(path), 0);

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
 * Prints "ready", waits for a byte on stdin, then makes up to N connections
 * to the control socket PATH, each from a child that exits at once (the
 * harness then finds no such peer) while a grandchild keeps the descriptor
 * until stdin ends.  Non-blocking: a full backlog ends the round.  Prints
 * "held N".
 */
static int vanish(const struct try_call *c)
{
	int n = (int)try_number(c->arg[1], "N");
	struct sockaddr_un addr;
	int held = 0;
	char go;

	try_unix_addr(&addr, c->arg[0]);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &go, 1) != 1)
		return try_report(EIO);
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
 * A chain of DEPTH processes, each waiting for its child; the deepest makes
 * up to N connections to the control socket PATH, prints "held N" and keeps
 * them until stdin ends (a peer deeper than the harness's walk).
 */
static int deep(const struct try_call *c)
{
	int depth = (int)try_number(c->arg[1], "DEPTH");
	int n = (int)try_number(c->arg[2], "N");
	struct sockaddr_un addr;
	int held = 0, status;
	char byte;

	for (; depth > 1; depth--) {
		pid_t child = fork();

		if (child < 0)
			return try_report(errno);
		if (child > 0) {
			waitpid(child, &status, 0);
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
		}
	}
	try_unix_addr(&addr, c->arg[0]);
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
 * Takes a write lease on FILE ("self-stat": its own /proc/self/stat), then
 * a write delegation (6.19's F_SETDELEG), and prints "lease 0|ERRNO deleg
 * 0|ERRNO"; with a socket PATH (not "-"), it then connects there (the
 * harness looks at the peer's /proc stat).  Prints "held" and keeps both
 * until stdin ends.  A lease holds every other open of the file for
 * fs.lease-break-time (45 s).
 */
static int lease(const struct try_call *c)
{
	const char *file = c->arg[0], *path = c->arg[1];
	const char *what = strcmp(file, "self-stat") ? file : "/proc/self/stat";
	int fd = open(what, O_RDONLY | O_CLOEXEC), s = -1;
	char byte;

	/* struct delegation (6.19's uapi): d_flags, d_type, padding. */
	struct {
		__u32 d_flags;
		__u16 d_type, pad;
	} deleg = {.d_type = F_WRLCK};
	int leased, delegated;

	signal(SIGIO, SIG_IGN); /* the break notice */
	leased = fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK) ? errno : 0;
	delegated = fd < 0 || fcntl(fd, F_SETLEASE + 16, &deleg) ? errno : 0;
	printf("lease %s deleg %s\n", leased ? strerrorname_np(leased) : "0",
	       delegated ? strerrorname_np(delegated) : "0");
	if (strcmp(path, "-")) {
		struct sockaddr_un addr;

		try_unix_addr(&addr, path);
		s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof(addr)))
			return try_report(errno);
	}
	printf("held\n");
	fflush(stdout);
	while (read(0, &byte, 1) > 0)
		;
	return 0;
}

/*
 * Connects to the harness's socket `path` (control: SOCK_SEQPACKET, an
 * empty message; else the Custodian's SOCK_STREAM, "x\n") and passes fd
 * with SCM_RIGHTS.  `behind` (control): first a message that is no request,
 * so the harness ends the connection and never reads the one with fd.
 * 0 or errno.
 */
static int pass_fd(const char *path, bool behind, int fd)
{
	bool control = socket_type_of(path) == SOCK_SEQPACKET;
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
	int sock = socket(AF_UNIX, socket_type_of(path) | SOCK_CLOEXEC, 0);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	try_unix_addr(&addr, path);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (behind && send(sock, "x", 1, 0) != 1) ||
	    sendmsg(sock, &msg, 0) < 0)
		return errno;
	return 0;
}

/*
 * R11: makes a lingering TCP socket (try_lingering_tcp), prints "ready", waits
 * for a byte on stdin, then has the harness hold its last reference: a
 * child passes it on the socket PATH (pass_fd; HOW: "read", or "unread"
 * behind a refused message) and keeps its copy until this process closed
 * its own, then exits.  So no live process of this program makes a last
 * close (an exiting one never lingers).  Prints "sent N" (N: the bytes
 * unsent), or the errno, then keeps the peer unread until stdin ends.
 */
static int linger(const struct try_call *c)
{
	const char *path = c->arg[0], *how = c->arg[1];
	int peer, unsent = 0, err = EIO, sent[2], held[2];
	int tcp = try_lingering_tcp(&peer, &unsent);
	char byte;
	pid_t child;

	if (tcp < 0)
		return try_report(-tcp);
	printf("ready\n");
	fflush(stdout);
	if (read(0, &byte, 1) != 1 || pipe2(sent, O_CLOEXEC) ||
	    pipe2(held, O_CLOEXEC) || (child = fork()) < 0)
		return try_report(errno ? errno : EIO);
	if (child == 0) {
		err = pass_fd(path, !strcmp(how, "unread"), tcp);
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
		return try_report(err);
	printf("sent %d\n", unsent);
	fflush(stdout);
	while (read(0, &byte, 1) > 0)
		;
	close(peer);
	return 0;
}

const struct try_verb try_harness_verbs[] = {
    {"fds", 0, "", fds, 0, "the descriptors it holds, on one line (\"0 1 2\")"},
    {"fd-link", 1, "FD", fd_link, 0,
     "what its descriptor FD refers to (/dev/null, socket:[N], ...)"},
    {"environ", 0, "", print_environ, 0, "its environment, a line each"},
    {"proc-environ", 0, "", proc_environ, 0,
     "/proc/self/environ, an entry a line"},
    {"getenv", 1, "NAME", print_getenv, 0, "NAME's value, or \"(unset)\""},
    {"orphans", 3, "N MS CODE", orphans, 0,
     "N children that exit CODE after MS; their pids; exits at once"},
    {"pid-sleep-exit", 2, "MS CODE", pid_sleep_exit, 0,
     "its pid, then exits CODE after MS"},
    {"on-term", 2, "catch|ignore|orphan|late-orphan PATH", on_term, 0,
     "meets SIGTERM so (PATH.ready once it waits)"},
    {"session", 2, "catch|ignore|exit|setsid PATH", session, 0,
     "a child in its session; \"PID CHILD\" in PATH.ready"},
    {"on-signal", 1, "PATH", on_signal, 0,
     "the signal a client passes on: its number to PATH, exits with it"},
    {"custodian", 2, "SOCKET LINE", custodian, 0,
     "LINE to a Custodian socket (@NAME: abstract); its answer"},
    {"flood", 4, "SOCKET N PROCS SECONDS", flood, 0,
     "holds N connections from PROCS processes for SECONDS"},
    {"vanish", 2, "SOCKET N", vanish, 0,
     "after a byte on stdin, N connections of exited peers; \"held N\""},
    {"deep", 3, "SOCKET DEPTH N", deep, 0,
     "N connections from DEPTH processes down; \"held N\""},
    {"lease", 2, "FILE|self-stat SOCKET|-", lease, 0,
     "a write lease and delegation, then a connection; held"},
    {"linger", 2, "SOCKET read|unread", linger, 0,
     "passes a lingering TCP socket to the harness; \"sent N\""},
    {NULL, 0, NULL, NULL, 0, NULL},
};
