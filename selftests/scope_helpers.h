/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Landlock scopes between two processes, by the raw syscalls: a sender S and
 * a target T, each in a chain of Landlock domains that shares `common` layers
 * and adds its own.  The routes that name abstract sockets run in their
 * binary's own network namespace (scoped_abstract_test.c); the signal routes
 * name none.
 *
 *   test child (the coordinator: `common` layers, asserts)
 *   ├── T  (target: +t_layers; signal handlers report to the coordinator)
 *   └── S  (sender: +s_layers; runs the route, reports its errno)
 *
 * A route that reaches every process it may (kill(-1)) runs the same in a
 * fresh PID namespace, so that it reaches nothing but this test's processes:
 * there the coordinator is the namespace's pid 1, a child of the test child,
 * and hands it the outcome.  The other routes name their target (a pid, a
 * process group of the scenario) and need no namespace of their own: a PID
 * namespace and its init cost a fork and a teardown per test, about a tenth
 * of a test under TCG.  T and S die with their coordinator (PDEATHSIG, and
 * the end of their token pipes).
 *
 * Each layer handles MAKE_BLOCK (so that a domain exists on every ABI) and
 * scopes what the test asks, masked by the ABI in force (the kernel's, capped
 * by JR2_MAX_ABI): under a cap below 6 the domains exist but scope nothing,
 * as the runtime's would, and the tests assert the honest side.
 *
 * Delivery is proven by T's handlers (SA_SIGINFO; every signal blocked while
 * one runs, so reports keep the order of delivery): after S is done, the
 * coordinator sends T a fence (SIGRTMAX); whatever S's route queued was
 * pending before the fence and is reported before it.
 */
#ifndef JR2_SELFTESTS_SCOPE_HELPERS_H
#define JR2_SELFTESTS_SCOPE_HELPERS_H

#include <poll.h>
#include <sys/prctl.h>

#include "common.h"

#define SX_NAME_MAX 108
#define SX_MAX_SIG  65

/*
 * The scope tests' fixture: the ABI in force, a private mount namespace and
 * a tmpfs on FX_ROOT, as every suite test has, without common.h's tree of
 * files and folders: no scope route opens one (making them was about a
 * tenth of a scope test under TCG).  A test makes what it names.
 */
static inline void sx_setup(struct __test_metadata *_metadata,
			    struct jr2_fx *fx)
{
	fx_private_mounts(_metadata);
	fx_mount_root(_metadata, fx);
	umask(022);
}

/* What T tells S (through the coordinator) once it is ready. */
struct sx_ctx {
	pid_t t_pid; /* as S and ns-init see it */
	pid_t t_pgid;
	int shared[2]; /* a pipe made by ns-init, held by S and T */
	int pass[2]; /* a unix socketpair made by ns-init, for SCM_RIGHTS */
	socklen_t name_len; /* T's socket address (abstract or pathname) */
	char name[SX_NAME_MAX];
	int t_fd; /* T's own descriptor (its listener), T side only */
	int kind; /* the route's socket type, when it has one */
};

struct sx_route {
	/* In T before its layers / after S's layers (late listeners). */
	int (*target_pre)(struct sx_ctx *ctx);
	int (*target_post)(struct sx_ctx *ctx);
	/* In S, in its domain: 0 or the errno of the operation. */
	int (*send)(struct sx_ctx *ctx);
	bool t_own_pgrp; /* T leads its own process group */
	bool all_pids; /* reaches every process: in its own PID namespace */
	int kind;
};

struct sx_rel {
	int common, s_layers, t_layers;
	bool t_first; /* T's domain is made before S's */
	uint64_t scope; /* what each layer scopes (before the ABI mask) */
};

struct sx_report {
	int signo, code, value;
};

struct sx_result {
	char stage[64]; /* where the scenario broke, "" when it ran */
	int stage_err;
	int op_err; /* S's route */
	uint64_t got; /* signals T received, bit per number */
	int code[SX_MAX_SIG], value[SX_MAX_SIG];
	bool fenced; /* the fence came back */
};

static int sx_report_fd = -1;

static void sx_handler(int signo, siginfo_t *info, void *uc)
{
	struct sx_report rep = {signo, info->si_code, info->si_value.sival_int};
	int saved = errno;

	(void)uc;
	if (write(sx_report_fd, &rep, sizeof(rep)) < 0)
		_exit(90);
	errno = saved;
}

/* Catches every signal a route sends, and the fence. */
static int sx_catch_all(void)
{
	const int sigs[] = {SIGUSR1, SIGUSR2,  SIGIO,
			    SIGURG,  SIGRTMIN, SIGRTMAX};
	struct sigaction sa = {.sa_sigaction = sx_handler,
			       .sa_flags = SA_SIGINFO | SA_RESTART};

	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return errno;
	return 0;
}

static int sx_ignore_routes(void)
{
	const int sigs[] = {SIGUSR1, SIGUSR2, SIGIO, SIGURG};
	struct sigaction sa = {.sa_handler = SIG_IGN};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return errno;
	return 0;
}

/*
 * One Landlock layer on the calling thread: MAKE_BLOCK handled, `scope`
 * masked by what `abi` offers.  0 or the errno.
 */
static int sx_layer(const struct jr2_abi *abi, uint64_t scope)
{
	struct jr2_ruleset_attr attr = {
	    .handled_access_fs = JR2_ACCESS_FS_MAKE_BLOCK,
	    .scoped = scope & jr2_abi_scopes(abi->in_force),
	};
	int fd, err = 0;

	fd = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0);
	if (fd < 0)
		return errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_sys_restrict_self(fd, 0))
		err = errno;
	close(fd);
	return err;
}

static int sx_layers(const struct jr2_abi *abi, int n, uint64_t scope)
{
	for (int i = 0; i < n; i++) {
		int err = sx_layer(abi, scope);

		if (err)
			return err;
	}
	return 0;
}

static int sx_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EPIPE;
		got += (size_t)n;
	}
	return 0;
}

static int sx_write_full(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len ? 0 : (errno ? errno : EIO);
}

/* A member of the scenario: waits for tokens, answers with an int. */
struct sx_member {
	pid_t pid;
	int to[2], from[2];
};

static int sx_token(struct sx_member *m, char token, int *answer)
{
	int err = sx_write_full(m->to[1], &token, 1);

	return err ? err : sx_read_full(m->from[0], answer, sizeof(*answer));
}

#define SX_FAIL(res, what, err)                                           \
	do {                                                              \
		snprintf((res)->stage, sizeof((res)->stage), "%s", what); \
		(res)->stage_err = (err);                                 \
		goto out;                                                 \
	} while (0)

static void sx_target_main(const struct jr2_abi *abi, const struct sx_rel *rel,
			   const struct sx_route *route, struct sx_ctx *ctx,
			   struct sx_member *m, int report_w)
{
	char token;
	int answer = 0;

	sx_report_fd = report_w;
	answer = sx_catch_all();
	if (!answer && route->t_own_pgrp && setpgid(0, 0))
		answer = errno;
	ctx->t_pid = getpid();
	ctx->t_pgid = getpgid(0);
	ctx->t_fd = -1;
	ctx->kind = route->kind;
	if (!answer && route->target_pre)
		answer = route->target_pre(ctx);
	/* 'L': make T's layers. */
	if (sx_read_full(m->to[0], &token, 1))
		_exit(91);
	if (!answer)
		answer = sx_layers(abi, rel->t_layers, rel->scope);
	if (sx_write_full(m->from[1], &answer, sizeof(answer)))
		_exit(92);
	/* 'R': late setup, then the context for S. */
	if (sx_read_full(m->to[0], &token, 1))
		_exit(93);
	if (!answer && route->target_post)
		answer = route->target_post(ctx);
	if (sx_write_full(m->from[1], &answer, sizeof(answer)) ||
	    sx_write_full(m->from[1], ctx, sizeof(*ctx)))
		_exit(94);
	/* Lives (and serves its listener) until ns-init closes the pipe. */
	while (read(m->to[0], &token, 1) != 0)
		;
	_exit(0);
}

static void sx_sender_main(const struct jr2_abi *abi, const struct sx_rel *rel,
			   const struct sx_route *route, struct sx_ctx *ctx,
			   struct sx_member *m)
{
	char token;
	int answer;

	answer = sx_ignore_routes();
	if (sx_read_full(m->to[0], &token, 1))
		_exit(91);
	if (!answer)
		answer = sx_layers(abi, rel->s_layers, rel->scope);
	if (sx_write_full(m->from[1], &answer, sizeof(answer)))
		_exit(92);
	if (sx_read_full(m->to[0], &token, 1) ||
	    sx_read_full(m->to[0], ctx, sizeof(*ctx)))
		_exit(93);
	answer = route->send(ctx);
	if (sx_write_full(m->from[1], &answer, sizeof(answer)))
		_exit(94);
	_exit(0);
}

/* A member dies with its coordinator, even one killed by an assert. */
static int sx_fork_member(struct sx_member *m)
{
	pid_t parent = getpid();

	if (pipe(m->to) || pipe(m->from))
		return errno;
	m->pid = fork();
	if (m->pid < 0)
		return errno;
	if (m->pid == 0 &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
		_exit(96);
	return 0;
}

static void sx_close_member(struct sx_member *m)
{
	close(m->to[0]);
	close(m->from[1]);
}

/*
 * Reads T's reports up to the fence, then whatever is already written.  No
 * waiting "a little longer" is needed: every route has returned before the
 * fence is sent (its signals, SIGIO/SIGURG included, are queued by the
 * route's own syscall; the tty's before the reader it waited for is woken),
 * and the fence is the last signal T takes of what was pending then: the
 * kernel hands out a thread's private signals before the process-wide ones
 * and, within each set, the lowest number first; the fence is process-wide
 * and SIGRTMAX, the highest.  T blocks every signal while a handler runs,
 * so its reports are in the order of delivery.  (A fence sent by tgkill to
 * the caller itself is private and comes first, but then every pending
 * signal has run before tgkill returned: the rest is already written.)
 */
static void sx_collect(int report_r, struct sx_result *res)
{
	struct pollfd pfd = {.fd = report_r, .events = POLLIN};
	int timeout = 10000;

	while (poll(&pfd, 1, timeout) == 1) {
		struct sx_report rep;

		if (sx_read_full(report_r, &rep, sizeof(rep)))
			break;
		if (rep.signo <= 0 || rep.signo >= SX_MAX_SIG)
			continue;
		if (!(res->got & (1ULL << rep.signo))) {
			res->code[rep.signo] = rep.code;
			res->value[rep.signo] = rep.value;
		}
		res->got |= 1ULL << rep.signo;
		if (rep.signo == SIGRTMAX) {
			res->fenced = true;
			timeout = 0;
		}
	}
}

/*
 * The coordinator: takes the `common` layers, forks T and S, runs the route
 * and the fence; the outcome in *res (res->stage says where it broke).  Its
 * descriptors are closed and T and S reaped when it returns.
 */
static void sx_coordinate(const struct jr2_abi *abi, const struct sx_rel *rel,
			  const struct sx_route *route, struct sx_result *res)
{
	struct sx_member t = {0}, s = {0};
	struct sx_ctx ctx = {.shared = {-1, -1}, .pass = {-1, -1}};
	int report[2] = {-1, -1}, answer, err;

	memset(res, 0, sizeof(*res));
	sx_ignore_routes();
	if (setpgid(0, 0))
		SX_FAIL(res, "setpgid", errno);
	if (pipe(report) || pipe(ctx.shared) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, ctx.pass))
		SX_FAIL(res, "pipes", errno);
	err = sx_layers(abi, rel->common, rel->scope);
	if (err)
		SX_FAIL(res, "common layers", err);
	err = sx_fork_member(&t);
	if (err)
		SX_FAIL(res, "fork T", err);
	if (t.pid == 0)
		sx_target_main(abi, rel, route, &ctx, &t, report[1]);
	sx_close_member(&t);
	err = sx_fork_member(&s);
	if (err)
		SX_FAIL(res, "fork S", err);
	if (s.pid == 0)
		sx_sender_main(abi, rel, route, &ctx, &s);
	sx_close_member(&s);
	close(report[1]);
	report[1] = -1;
	for (int i = 0; i < 2; i++) {
		bool target = (i == 0) == rel->t_first;

		err = sx_token(target ? &t : &s, 'L', &answer);
		if (err || answer)
			SX_FAIL(res, target ? "T layers" : "S layers",
				err ? err : answer);
	}
	err = sx_token(&t, 'R', &answer);
	if (err || answer)
		SX_FAIL(res, "T setup", err ? err : answer);
	err = sx_read_full(t.from[0], &ctx, sizeof(ctx));
	if (err)
		SX_FAIL(res, "T context", err);
	if (sx_write_full(s.to[1], "R", 1) ||
	    sx_write_full(s.to[1], &ctx, sizeof(ctx)))
		SX_FAIL(res, "S context", errno);
	err = sx_read_full(s.from[0], &res->op_err, sizeof(res->op_err));
	if (err)
		SX_FAIL(res, "S result", err);
	/* The fence: T is in a domain nested in ours, so this is allowed. */
	if (kill(t.pid, SIGRTMAX))
		SX_FAIL(res, "fence", errno);
	sx_collect(report[0], res);
out:
	if (t.pid > 0) {
		close(t.to[1]);
		close(t.from[0]);
		kill(t.pid, SIGKILL);
		waitpid(t.pid, NULL, 0);
	}
	if (s.pid > 0) {
		close(s.to[1]);
		close(s.from[0]);
		kill(s.pid, SIGKILL);
		waitpid(s.pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (report[i] >= 0)
			close(report[i]);
		if (ctx.shared[i] >= 0)
			close(ctx.shared[i]);
		if (ctx.pass[i] >= 0)
			close(ctx.pass[i]);
	}
}

/* Runs `route` between S and T in relation `rel`; the outcome in *res. */
static void sx_run(struct __test_metadata *_metadata, const struct jr2_abi *abi,
		   const struct sx_rel *rel, const struct sx_route *route,
		   struct sx_result *res)
{
	int result[2], status;
	pid_t init;

	if (!route->all_pids) {
		sx_coordinate(abi, rel, route, res);
	} else {
		memset(res, 0, sizeof(*res));
		ASSERT_EQ(0, pipe2(result, O_CLOEXEC));
		FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN,
				    "the fixture's pid namespace");
		ASSERT_EQ(0, unshare(CLONE_NEWPID))
		{
			TH_LOG("unshare(CLONE_NEWPID): %s: run the suite as "
			       "root",
			       strerror(errno));
		}
		init = fork();
		ASSERT_LE(0, init);
		if (init == 0) {
			/* pid 1 of the scenario's namespace. */
			close(result[0]);
			sx_coordinate(abi, rel, route, res);
			_exit(sx_write_full(result[1], res, sizeof(*res)) ? 95
									  : 0);
		}
		close(result[1]);
		ASSERT_EQ(0, sx_read_full(result[0], res, sizeof(*res)));
		close(result[0]);
		ASSERT_EQ(init, waitpid(init, &status, 0));
	}
	ASSERT_STREQ("", res->stage)
	{
		TH_LOG("scenario broke at %s: %s", res->stage,
		       strerror(res->stage_err));
	}
}

static inline bool sx_got(const struct sx_result *res, int signo)
{
	return res->got & (1ULL << signo);
}

/*
 * The domain relations, as variants of fixture `f` whose variant has
 * `struct sx_rel rel` and `bool denied` (where the ABI in force has the
 * scope).  `scope` is the subject's scope bit, `other` the other one.
 */
/* clang-format off */
#define SX_VARIANT(f, name, common, s, t, t_first, bits, deny)           \
	FIXTURE_VARIANT_ADD(f, name) {                                   \
		.rel = {common, s, t, t_first, bits}, .denied = deny,    \
	}
#define SX_RELATION_VARIANTS(f, scope, other)                            \
	SX_VARIANT(f, no_domain, 0, 0, 0, false, scope, false);          \
	SX_VARIANT(f, same_domain, 1, 0, 0, false, scope, false);        \
	SX_VARIANT(f, target_in_parent_domain, 1, 1, 0, false, scope,    \
		   true);                                                \
	SX_VARIANT(f, target_in_child_domain, 1, 0, 1, false, scope,     \
		   false);                                               \
	SX_VARIANT(f, sibling_domains, 1, 1, 1, false, scope, true);     \
	SX_VARIANT(f, nested_three_deep_target_outer, 1, 2, 0, false,    \
		   scope, true);                                         \
	SX_VARIANT(f, nested_three_deep_target_inner, 1, 0, 2, false,    \
		   scope, false);                                        \
	SX_VARIANT(f, target_unconfined, 0, 1, 0, false, scope, true);   \
	SX_VARIANT(f, sender_unconfined, 0, 0, 1, false, scope, false);  \
	/* Two spawner generations: top-level domains, the target's   \
	 * made before the sender's, or after it. */                     \
	SX_VARIANT(f, target_of_older_spawner_domain, 0, 1, 1, true,     \
		   scope, true);                                         \
	SX_VARIANT(f, target_of_newer_spawner_domain, 0, 1, 1, false,    \
		   scope, true);                                         \
	/* The other subject's scope alone scopes nothing here. */       \
	SX_VARIANT(f, other_scope_only, 0, 1, 0, false, other, false)
/* clang-format on */

#endif /* JR2_SELFTESTS_SCOPE_HELPERS_H */
