// SPDX-License-Identifier: GPL-2.0-only
/* The spawner (see spawner.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "confine_step.h"
#include "exit_status.h"
#include "landlock_uapi.h"
#include "request.h"
#include "ruleset.h"
#include "spawner.h"

/*
 * P1: the harness is not dumpable (serve.c), and the spawner confines itself
 * with jr2_confine_step() (confine_step.h), whose capability allow-list drops
 * CAP_SYS_PTRACE, CAP_SYS_ADMIN and CAP_PERFMON from every set: each lets a
 * caller of the same uid read another process's /proc files (measured on
 * 6.18), even when the target is not dumpable.  Programs of one layer keep
 * tracing each other (P3): same uid, dumpable after execve, equal sets.
 *
 * P3, E1: every program runs in a Landlock layer below the spawner's
 * domain.  Landlock lets a task trace a task, or read its environ, mem and
 * fds (ptrace_may_access), only when the target's domain is the tracer's
 * own or one below it; so sibling layers cannot reach each other, and no
 * program reaches the spawner.  The programs of requests given no Stand-in
 * share one layer, made once per spawner: a domain belongs to a task's
 * credentials and landlock_restrict_self() without TSYNC restricts the
 * calling thread alone, so a thread of the spawner restricts itself once
 * and starts those programs, which inherit its domain.  A request given a
 * Stand-in gets a layer of its own, made by its program's process before
 * its execve: nothing outside that request can trace it or read its
 * environment, and it reaches no other request's programs.  The layers set
 * no scope: signals and abstract sockets stay as the spawner's domain sets
 * them (a later request stops a server an earlier one started).
 */

static int layer_fail(struct jr2_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fills *err (a system error: the spawner exits 125); returns -1. */
static int layer_fail(struct jr2_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = code;
	err->bad_input = false;
	return -1;
}

/* Closes every descriptor of this thread's table but keep. */
static void close_range_but(int keep)
{
	if (keep > 0)
		syscall(SYS_close_range, 0U, (unsigned int)keep - 1, 0U);
	syscall(SYS_close_range, (unsigned int)keep + 1, ~0U, 0U);
}

/*
 * A layer that takes no path right away.  A ruleset must handle some right,
 * and every layer denies REFER (moves and links across folders) unless one
 * of its rules grants it, handled or not; so the layer handles REFER alone
 * (ABI 2+) and grants it beneath /, the root every path walk ends at.
 *
 * Where the kernel scopes signals (ABI 6+, `scoped`), a layer's programs
 * signal only programs of their own layer.  Runtimes open a debugger on a
 * signal (Node's inspector on SIGUSR1, the JVM's attach listener on
 * SIGQUIT), and a program of another request would read a Stand-in through
 * it: so no program outside a request given a Stand-in signals its
 * programs, and they signal no other request's.  Requests given none share
 * one layer and still stop each other's servers.
 */
static int make_layer_ruleset(uint64_t scoped, struct jr2_err *err)
{
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd, ret;

	if (root < 0)
		return layer_fail(err, errno,
				  "open / for the programs' layer: %s",
				  strerror(errno));
	fd = jr2_ruleset_create(JR2_ACCESS_FS_REFER, scoped);
	ret = fd < 0 ? fd : jr2_ruleset_add_path(fd, root, JR2_ACCESS_FS_REFER);
	close(root);
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		return layer_fail(err, -ret,
				  "cannot make the programs' Landlock layer "
				  "(REFER beneath /, signals scoped where "
				  "the ABI has it): %s",
				  strerror(-ret));
	}
	return fd;
}

static void reply_fd(int sock, int fd, enum jr2_spawner_msg_kind kind,
		     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * One message of `kind` to the harness (spawner.h), with descriptor fd (-1:
 * none); fmt NULL: the word alone.
 */
static void reply_fd(int sock, int fd, enum jr2_spawner_msg_kind kind,
		     const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	len = jr2_spawner_msg_vformat(buf, sizeof(buf), kind, fmt, ap);
	va_end(ap);
	/* The harness is gone when this fails: the next recv sees the end. */
	jr2_send_msg(sock, buf, len, &fd, fd >= 0 ? 1 : 0);
}

#define reply(sock, ...) reply_fd(sock, -1, __VA_ARGS__)

#define MAX_CANDIDATES 64

/*
 * Programs start with every signal at its default, whatever the harness
 * inherited (an ignored signal stays ignored across fork and execve).  The
 * raw syscall: glibc refuses the two signals it keeps for itself.
 */
static void reset_signal_dispositions(void)
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} dfl = {.handler = SIG_DFL};

	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL,
				sizeof(dfl.mask));
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* What the vfork child needs; shared with the spawner (CLONE_VM). */
struct launch {
	const struct jr2_request *req;
	int sock; /* the channel to the harness */
	int layer; /* a layer of its own from this ruleset, or -1 */
	pid_t pid; /* clone's result, or -1 */
	int launch_errno; /* when pid is -1: why, at which step */
	const char *launch_step;
	char *candidates[MAX_CANDIDATES]; /* argv[0], or along PATH */
	size_t n_candidates;
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds;
	int exec_errno; /* set by the child when it fails */
	const char *failed_step; /* and where */
	const char *failed_on; /* and on what */
	bool child_reported; /* the child told the harness itself */
};

/*
 * The child reports its own start ("started", just before execve) and its
 * own failure ("error", before it exits), on its copy of the channel.  So
 * the harness reads the report before the exit status can reach it, and a
 * program that stops or kills its spawner at once cannot hide its start.
 */
static int launch_child(void *arg)
{
	struct launch *l = arg;
	int moved[JR2_REQ_MAX_FDS], ctl, err, pidfd;
	sigset_t none;

	/* Only syscalls here: the memory is the spawner's until execve. */
	ctl = fcntl(l->sock, F_DUPFD_CLOEXEC, (int)l->n_fds);
	if (ctl < 0) {
		l->failed_step = "fcntl(F_DUPFD)";
		l->exec_errno = errno;
		_exit(JR2_EXIT_NOT_FOUND); /* the spawner reports this one */
	}
	if (l->layer >= 0 && jr2_sys_restrict_self(l->layer, 0)) {
		l->failed_step = "landlock_restrict_self";
		l->failed_on = "the request's own layer";
		goto fail;
	}
	/*
	 * E1: a program given a Stand-in dumps no core.  Any program may make
	 * it dump (signals cross the layers by design), and the kernel writes
	 * the core, its environment and memory with the Stand-in, where
	 * core_pattern says: a file in its working folder, readable by the
	 * programs of every request.  Soft and hard limit 0: another program
	 * cannot raise them (prlimit64 of another pid is refused), only the
	 * program itself, as root.
	 */
	if (l->layer >= 0 &&
	    setrlimit(RLIMIT_CORE, &(struct rlimit){.rlim_cur = 0})) {
		l->failed_step = "setrlimit(RLIMIT_CORE, 0)";
		goto fail;
	}
	/*
	 * A session of its own, and so a process group of its own that no
	 * other program can join: setpgid(2) moves a process only into a
	 * group of its own session.  A program of another request that joined
	 * it, stopped itself and lost its parent would have the kernel send
	 * the group SIGHUP and SIGCONT (an orphaned group with a stopped
	 * member), which no LSM is asked about.
	 */
	if (setsid() < 0) {
		l->failed_step = "setsid";
		goto fail;
	}
	/* Above every target first, so no dup2 below closes a source. */
	for (size_t i = 0; i < l->n_fds; i++) {
		moved[i] = fcntl(l->fds[i], F_DUPFD_CLOEXEC, (int)l->n_fds);
		if (moved[i] < 0) {
			l->failed_step = "fcntl(F_DUPFD)";
			goto fail;
		}
	}
	for (size_t i = 0; i < l->n_fds; i++) {
		if (dup2(moved[i], (int)i) < 0) {
			l->failed_step = "dup2";
			goto fail;
		}
	}
	/*
	 * R10: nothing but the fds of the request crosses execve.  Marked
	 * close-on-exec rather than closed: ctl must outlive a failed execve.
	 */
	if (syscall(SYS_close_range, (unsigned int)l->n_fds, ~0U,
		    CLOSE_RANGE_CLOEXEC)) {
		l->failed_step = "close_range";
		goto fail;
	}
	if (l->req->cwd && chdir(l->req->cwd)) {
		l->failed_step = "chdir";
		l->failed_on = l->req->cwd;
		goto fail;
	}
	/* An ignored signal stays ignored across execve: not SIGPIPE. */
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/*
	 * P7: the harness knows this program by its pidfd (close-on-exec),
	 * sent with the report, so its exit is never matched by a bare pid.
	 */
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0) {
		l->failed_step = "pidfd_open";
		goto fail;
	}
	reply_fd(ctl, pidfd, JR2_SPAWNER_STARTED, "%s %d", l->req->id,
		 (int)getpid());
	close(pidfd);
	/* As execvpe: ENOENT and ENOTDIR try the next, EACCES is kept. */
	err = ENOENT;
	for (size_t i = 0; i < l->n_candidates; i++) {
		execve(l->candidates[i], (char *const *)l->req->argv,
		       (char *const *)l->req->envp);
		if (errno == EACCES) {
			err = EACCES;
		} else if (errno != ENOENT && errno != ENOTDIR) {
			err = errno;
			break;
		}
	}
	l->failed_step = "execve";
	goto report;
fail:
	err = errno;
report:
	reply(ctl, JR2_SPAWNER_ERROR, "%s %d %s '%s': %s", l->req->id, err,
	      l->failed_step, l->failed_on ? l->failed_on : l->req->argv[0],
	      strerror(err));
	l->child_reported = true;
	_exit(JR2_EXIT_NOT_FOUND);
}

/* The files to try for argv[0]: itself with a '/', else along PATH. */
static void find_candidates(struct launch *l)
{
	const char *name = l->req->argv[0], *path = NULL;

	if (strchr(name, '/')) {
		l->candidates[l->n_candidates++] = strdup(name);
		return;
	}
	for (size_t i = 0; i < l->req->envc; i++)
		if (!strncmp(l->req->envp[i], "PATH=", 5))
			path = l->req->envp[i] + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path && l->n_candidates < MAX_CANDIDATES) {
		const char *end = strchrnul(path, ':');
		int dir_len = (int)(end - path);
		char *candidate;

		if (asprintf(&candidate, "%.*s/%s", dir_len ? dir_len : 1,
			     dir_len ? path : ".", name) >= 0)
			l->candidates[l->n_candidates++] = candidate;
		path = *end ? end + 1 : end;
	}
}

/*
 * CLONE_PARENT: the program is the harness's child, so the harness reaps it
 * and learns its status even after this spawner is gone.
 * CLONE_VM|CLONE_VFORK: no page-table copy, as posix_spawn does.  The
 * child's credentials, its domain among them, are the calling thread's.
 */
static void launch(struct launch *l)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));

	l->pid = clone(launch_child, stack + sizeof(stack),
		       CLONE_PARENT | CLONE_VM | CLONE_VFORK | SIGCHLD, l);
	l->launch_errno = l->pid < 0 ? errno : 0;
	l->launch_step = "clone";
}

/*
 * The thread of the shared layer, and its end of the pair with this one.
 * It has a descriptor table of its own: the spawner's main thread replaces
 * its table at each jr2_drop_flush() (channel.h), and a thread sharing the
 * old one would keep what was dropped open, and never see a request's
 * descriptors.  So it takes each of them from the main thread's table with
 * pidfd_getfd() (a thread of the same process: no ptrace check), starts
 * the program with those, and closes its copies while the main thread
 * still holds its own: never a last close here (R11).
 */
static int shared_layer[2] = {-1, -1};

/* l's channel and descriptors, as copies in this thread's own table. */
static int take_fds(int pidfd, struct launch *l, int *taken, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i <= l->n_fds; i++) {
		int fd = i < l->n_fds ? l->fds[i] : l->sock;
		int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

		if (copy < 0)
			return -1;
		taken[(*n)++] = copy;
	}
	memcpy(l->fds, taken, l->n_fds * sizeof(*taken));
	l->sock = taken[l->n_fds];
	return 0;
}

/* Restricts this thread once, says so, then launches what it is given. */
static void *shared_layer_main(void *arg)
{
	int ruleset = *(int *)arg, ret = 0, pidfd = -1;
	int taken[JR2_REQ_MAX_FDS + 1];
	struct launch *l;
	size_t n;

	if (jr2_sys_restrict_self(ruleset, 0) || unshare(CLONE_FILES))
		ret = errno;
	else
		close_range_but(shared_layer[1]);
	if (!ret && (pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0)) < 0)
		ret = errno;
	if (send(shared_layer[1], &ret, sizeof(ret), 0) != sizeof(ret) || ret)
		return NULL;
	while (recv(shared_layer[1], &l, sizeof(l), 0) == sizeof(l)) {
		if (take_fds(pidfd, l, taken, &n)) {
			l->pid = -1;
			l->launch_errno = errno;
			l->launch_step =
			    "pidfd_getfd (the request's descriptors "
			    "for the shared layer)";
		} else {
			launch(l);
		}
		for (size_t i = 0; i < n; i++)
			close(taken[i]);
		if (send(shared_layer[1], &ret, sizeof(ret), 0) != sizeof(ret))
			break;
	}
	return NULL;
}

static int start_shared_layer(int *ruleset, struct jr2_err *err)
{
	pthread_t thread;
	int ret;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, shared_layer))
		return layer_fail(err, errno,
				  "socketpair for the shared layer: %s",
				  strerror(errno));
	ret = pthread_create(&thread, NULL, shared_layer_main, ruleset);
	if (ret)
		return layer_fail(err, ret,
				  "cannot start the shared layer's thread: %s",
				  strerror(ret));
	if (recv(shared_layer[0], &ret, sizeof(ret), 0) != sizeof(ret))
		ret = EPIPE;
	if (ret)
		return layer_fail(err, ret,
				  "cannot make the programs' shared Landlock "
				  "layer: %s%s",
				  strerror(ret),
				  ret == E2BIG ? " (the kernel's limit is 16 "
						 "layers: run the harness in "
						 "fewer)"
					       : "");
	return 0;
}

/*
 * In the shared layer: the thread launches it; this one waits.  A thread
 * that no longer answers cannot come back: the spawner exits, and the
 * harness answers the client and starts a new one.
 */
static void launch_shared(struct launch *l)
{
	int ret;

	if (send(shared_layer[0], &l, sizeof(l), 0) != sizeof(l) ||
	    recv(shared_layer[0], &ret, sizeof(ret), 0) != sizeof(ret))
		_exit(JR2_EXIT_REFUSED);
}

static void spawn(int sock, const struct jr2_request *req, int *fds,
		  size_t n_fds, const struct jr2_policy *policy, int ruleset)
{
	struct launch l = {.req = req,
			   .sock = sock,
			   .n_fds = n_fds,
			   .layer = req->own_layer ? ruleset : -1};
	struct jr2_err err;

	if (n_fds < 3) {
		reply(sock, JR2_SPAWNER_ERROR,
		      "%s %d the request passed %zu descriptors, not "
		      "stdin, stdout and stderr",
		      req->id, EBADF, n_fds);
		return;
	}
	/* No descriptor into a protected dir reaches a program: Landlock
	 * checks paths at open(2), never a descriptor already open. */
	if (jr2_step_check_fds(policy, fds, n_fds, &err)) {
		reply(sock, JR2_SPAWNER_ERROR, "%s %d %s", req->id, err.code,
		      err.msg);
		return;
	}
	memcpy(l.fds, fds, n_fds * sizeof(*fds));
	find_candidates(&l);
	if (req->own_layer)
		launch(&l);
	else
		launch_shared(&l);
	if (l.pid < 0)
		reply(sock, JR2_SPAWNER_ERROR, "%s %d %s: %s", req->id,
		      l.launch_errno, l.launch_step, strerror(l.launch_errno));
	else if (l.exec_errno && !l.child_reported)
		reply(sock, JR2_SPAWNER_ERROR, "%s %d %s '%s': %s", req->id,
		      l.exec_errno, l.failed_step, req->argv[0],
		      strerror(l.exec_errno));
	for (size_t i = 0; i < l.n_candidates; i++)
		free(l.candidates[i]);
}

/*
 * R11: the harness's stdin, stdout and stderr may be a terminal a program
 * shares and stops (tcflow TCOOFF): a write of the spawner there would hold
 * it, and every exec with it.  So it has /dev/null on all three, and its
 * lines go to the harness on its channel ("log ...").  Its close of the
 * terminal is never the last: the harness keeps its copies.
 */
static void quiet_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		_exit(JR2_EXIT_REFUSED); /* the harness logs the exit status */
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(null, fd) < 0)
			_exit(JR2_EXIT_REFUSED);
	if (null > 2)
		close(null);
}

void jr2_spawner_main(int sock, const struct jr2_policy *policy,
		      const struct jr2_abi *abi,
		      const struct jr2_ruleset_plan *plan)
{
	static char buf[JR2_SPAWN_MAX_BYTES + 1];
	struct jr2_err err = {0};
	sigset_t none;
	int ruleset;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	reset_signal_dispositions();
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Everything of the harness but this channel is closed first, as
	 * dropped (R11, channel.h): the harness may have dropped its own
	 * copies of what peers sent since the fork, so these can be the last.
	 */
	jr2_drop_from(JR2_SPAWNER_FD, sock);
	if (sock != JR2_SPAWNER_FD) {
		if (dup2(sock, JR2_SPAWNER_FD) < 0)
			_exit(JR2_EXIT_REFUSED);
		close(sock);
		sock = JR2_SPAWNER_FD;
	}
	quiet_stdio();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * The one confinement step of `jr2-confine run` too: a new
	 * session, not dumpable, read-only mounts for the metadata, the
	 * capability allow-list, the Landlock domain.  Descriptors: this
	 * spawner holds only its channel; each request's are checked above.
	 */
	struct jr2_step step = {.fds_per_program = true};

	if (jr2_confine_step_ref(policy, abi, plan, JR2_LOG_EXECED_PROGRAMS,
				 &step, &err)) {
		reply(sock, JR2_SPAWNER_FAIL, "%s", err.msg);
		_exit(JR2_EXIT_REFUSED);
	}
	ruleset = make_layer_ruleset(plan->scoped & JR2_SCOPE_SIGNAL, &err);
	if (ruleset < 0 || start_shared_layer(&ruleset, &err)) {
		reply(sock, JR2_SPAWNER_FAIL, "%s", err.msg);
		_exit(JR2_EXIT_REFUSED);
	}
	/* The harness logs them (its queue: R11), before "ready". */
	reply(sock, JR2_SPAWNER_LOG, "%s", step.metadata);
	reply(sock, JR2_SPAWNER_LOG, "%s", step.helpers);
	reply(sock, JR2_SPAWNER_READY, NULL);
	for (;;) {
		int fds[JR2_REQ_MAX_FDS];
		size_t n_fds = 0;
		struct jr2_request req;
		struct jr2_err perr = {0};
		ssize_t len;

		/*
		 * A request's descriptors are dropped, never closed here:
		 * its program may have closed its own already, its client
		 * and the harness theirs (R11, channel.h).
		 */
		jr2_drop_flush();
		len = jr2_recv_msg(sock, buf, JR2_SPAWN_MAX_BYTES, fds,
				   JR2_REQ_MAX_FDS, &n_fds);
		if (len == 0 || len == -ECONNRESET)
			_exit(0); /* the harness is gone */
		if (len < 0)
			continue;
		if (jr2_request_parse(buf, (size_t)len, JR2_SPAWN_MAX_BYTES,
				      &req, &perr) ||
		    req.op != JR2_OP_SPAWN) {
			/* The harness wrote it: a bug, said and skipped. */
			if (req.storage || !perr.msg[0])
				snprintf(perr.msg, sizeof(perr.msg),
					 "op is not spawn");
			reply(sock, JR2_SPAWNER_ERROR, "- %d %s", EPROTO,
			      perr.msg);
			jr2_request_free(&req);
			jr2_drop_fds(fds, n_fds);
			continue;
		}
		spawn(sock, &req, fds, n_fds, policy, ruleset);
		jr2_request_free(&req);
		/* Less to steal: the Stand-ins of this request go, first. */
		explicit_bzero(buf, (size_t)len < sizeof(buf) ? (size_t)len
							      : sizeof(buf));
		jr2_drop_fds(fds, n_fds);
	}
}
