// SPDX-License-Identifier: GPL-2.0-only
/*
 * P2 (signals), G6: from ABI 6 no signal of a confined program reaches the
 * harness (the Custodian here): EPERM.  Below ABI 6 the
 * runtime must say so (status: scope_signal unavailable) and must not claim
 * more: the signal does reach the harness.  Positive control: a program of
 * the same domain can be signalled.
 *
 * Below the harness, the kernel rule P2 stands on, by the raw syscalls
 * (selftests/scope_helpers.h): a sender may signal a target only when the
 * target's domain is the sender's or nested in it, by every delivery route:
 * kill (a pid, its own group, the target's group, -1), tkill, tgkill,
 * rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, signal 0 as the
 * probe, and SIGIO/SIGURG of a descriptor whose owner the sender set
 * (F_SETOWN, F_SETOWN_EX, F_SETSIG) through a pipe, a socket and a tty.
 * Fixture variants are the domain relations; each test one route, with the
 * exact errno and delivery proven by the target's handler.  Under an ABI in
 * force without scope_signal (a kernel below 6, or JR2_MAX_ABI=5) every
 * route delivers: the tests assert that honest side.  Threads of one
 * process: allowed whatever their domains where the kernel reports erratum 2.
 *
 * Promises: G6 P2
 */
#include <pthread.h>
#include <sys/ioctl.h>

#include "harness_helpers.h"
#include "scope_helpers.h"

HX_FIXTURE(scoped_signal)

static void assert_status_lists(struct __test_metadata *_metadata,
				struct hx *hx, enum jr2_feature feature)
{
	char out[HX_OUT_SIZE], value[512], padded[520], word[64];
	bool has = jr2_abi_has(&hx->abi, feature);

	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
	ASSERT_NE(NULL, hx_field(out, has ? "enforced" : "unavailable", value,
				 sizeof(value)));
	snprintf(padded, sizeof(padded), " %s ", value);
	snprintf(word, sizeof(word), " %s ", jr2_features[feature].name);
	ASSERT_NE(NULL, strstr(padded, word))
	{
		TH_LOG("status does not list %s as %s: %s",
		       jr2_features[feature].name,
		       has ? "enforced" : "unavailable", out);
	}
}

static void assert_signal(struct __test_metadata *_metadata, struct hx *hx,
			  pid_t target, const char *sig)
{
	int expected = fx_expect(&hx->abi, JR2_FEAT_SCOPE_SIGNAL, EPERM);
	char pid[16];

	hx_pid_str(target, pid, sizeof(pid));
	ASSERT_STREQ(expected ? "EPERM" : "ok", HX_TRY(hx, "kill", pid, sig));
}

TEST_F(scoped_signal, P2_G6_signal_to_harness)
{
	struct hx *hx = &self->hx;
	char peer[16];
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer,
		   sizeof(peer));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", peer, "0"));
	assert_status_lists(_metadata, hx, JR2_FEAT_SCOPE_SIGNAL);
	assert_signal(_metadata, hx, hx->pid, "0");
	/* SIGWINCH: delivered and ignored by the harness where allowed. */
	assert_signal(_metadata, hx, hx->pid, "28");
	ASSERT_EQ(0, kill(hx->pid, 0));
}

TEST_F(scoped_signal, P2_sigkill_to_harness)
{
	struct hx *hx = &self->hx;
	char peer[16];
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer,
		   sizeof(peer));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", peer, "0"));
	/* SIGKILL to the harness: refused from ABI 6 (it must live on). */
	if (jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_SIGNAL)) {
		assert_signal(_metadata, hx, hx->pid, "9");
		ASSERT_EQ(0, kill(hx->pid, 0));
	} else {
		assert_signal(_metadata, hx, hx->pid, "0");
	}
}

/* ---- the domain relations x delivery routes, by the raw syscalls ---- */

#define SIG_VALUE 4242

FIXTURE(sig)
{
	struct jr2_fx fx;
};

FIXTURE_VARIANT(sig)
{
	struct sx_rel rel;
	bool denied; /* where the ABI in force scopes signals */
};

SX_RELATION_VARIANTS(sig, JR2_SCOPE_SIGNAL, JR2_SCOPE_ABSTRACT_UNIX_SOCKET);

#define SIG_PTS FX_ROOT "/pts"

FIXTURE_SETUP(sig)
{
	sx_setup(_metadata, &self->fx);
}

FIXTURE_TEARDOWN(sig)
{
}

static bool sig_denied(const struct jr2_abi *abi,
		       const FIXTURE_VARIANT(sig) * variant)
{
	return variant->denied && jr2_abi_has(abi, JR2_FEAT_SCOPE_SIGNAL);
}

/* ---- the routes, run by S ---- */

static int err_of(long ret)
{
	return ret < 0 ? errno : 0;
}

static int send_kill(struct sx_ctx *ctx)
{
	return err_of(kill(ctx->t_pid, SIGUSR1));
}

static int send_kill_probe(struct sx_ctx *ctx)
{
	return err_of(kill(ctx->t_pid, 0));
}

static int send_kill_own_group(struct sx_ctx *ctx)
{
	(void)ctx;
	return err_of(kill(0, SIGUSR1));
}

static int send_kill_target_group(struct sx_ctx *ctx)
{
	return err_of(kill(-ctx->t_pgid, SIGUSR1));
}

static int send_kill_all(struct sx_ctx *ctx)
{
	(void)ctx;
	return err_of(kill(-1, SIGUSR1));
}

static int send_tkill(struct sx_ctx *ctx)
{
	return err_of(syscall(SYS_tkill, ctx->t_pid, SIGUSR1));
}

static int send_tgkill(struct sx_ctx *ctx)
{
	return err_of(syscall(SYS_tgkill, ctx->t_pid, ctx->t_pid, SIGUSR1));
}

static int send_tgkill_probe(struct sx_ctx *ctx)
{
	return err_of(syscall(SYS_tgkill, ctx->t_pid, ctx->t_pid, 0));
}

static void queue_info(siginfo_t *info)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = SIGUSR1;
	info->si_code = SI_QUEUE;
	info->si_pid = getpid();
	info->si_uid = getuid();
	info->si_value.sival_int = SIG_VALUE;
}

static int send_rt_sigqueueinfo(struct sx_ctx *ctx)
{
	siginfo_t info;

	queue_info(&info);
	return err_of(syscall(SYS_rt_sigqueueinfo, ctx->t_pid, SIGUSR1, &info));
}

static int send_rt_tgsigqueueinfo(struct sx_ctx *ctx)
{
	siginfo_t info;

	queue_info(&info);
	return err_of(syscall(SYS_rt_tgsigqueueinfo, ctx->t_pid, ctx->t_pid,
			      SIGUSR1, &info));
}

static int pidfd_send(pid_t pid, int sig)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), err;

	if (pidfd < 0)
		return errno;
	err = err_of(syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0));
	close(pidfd);
	return err;
}

static int send_pidfd(struct sx_ctx *ctx)
{
	return pidfd_send(ctx->t_pid, SIGUSR1);
}

static int send_pidfd_probe(struct sx_ctx *ctx)
{
	return pidfd_send(ctx->t_pid, 0);
}

/* O_ASYNC first: a tty's fasync sets its own owner, F_SETOWN then wins. */
static int own_async(int fd, int cmd, long arg, int setsig)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_ASYNC | O_NONBLOCK))
		return errno;
	if (setsig && fcntl(fd, F_SETSIG, setsig))
		return errno;
	if (fcntl(fd, cmd, arg))
		return errno;
	return 0;
}

static int own_async_ex(int fd, int type, pid_t pid)
{
	struct f_owner_ex owner = {.type = type, .pid = pid};

	return own_async(fd, F_SETOWN_EX, (long)&owner, 0);
}

/* Makes the reader end readable: SIGIO to its owner, queued by write(). */
static int poke_pipe(int fds[2], int err)
{
	if (!err && write(fds[1], "x", 1) != 1)
		err = errno;
	close(fds[0]);
	close(fds[1]);
	return err;
}

static int send_sigio_pipe(struct sx_ctx *ctx)
{
	int fds[2];

	if (pipe(fds))
		return errno;
	return poke_pipe(fds, own_async(fds[0], F_SETOWN, ctx->t_pid, 0));
}

static int send_sigio_pipe_owner_ex_pid(struct sx_ctx *ctx)
{
	int fds[2];

	if (pipe(fds))
		return errno;
	return poke_pipe(fds, own_async_ex(fds[0], F_OWNER_PID, ctx->t_pid));
}

static int send_sigio_pipe_owner_ex_tid(struct sx_ctx *ctx)
{
	int fds[2];

	if (pipe(fds))
		return errno;
	return poke_pipe(fds, own_async_ex(fds[0], F_OWNER_TID, ctx->t_pid));
}

static int send_sigio_pipe_owner_pgrp(struct sx_ctx *ctx)
{
	int fds[2];

	if (pipe(fds))
		return errno;
	return poke_pipe(fds, own_async(fds[0], F_SETOWN, -ctx->t_pgid, 0));
}

static int send_sigio_pipe_owner_ex_pgrp(struct sx_ctx *ctx)
{
	int fds[2];

	if (pipe(fds))
		return errno;
	return poke_pipe(fds, own_async_ex(fds[0], F_OWNER_PGRP, ctx->t_pgid));
}

static int send_sigio_setsig(struct sx_ctx *ctx)
{
	int fds[2];

	if (pipe(fds))
		return errno;
	return poke_pipe(fds,
			 own_async(fds[0], F_SETOWN, ctx->t_pid, SIGRTMIN));
}

static int send_sigio_socket(struct sx_ctx *ctx)
{
	int fds[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		return errno;
	return poke_pipe(fds, own_async(fds[0], F_SETOWN, ctx->t_pid, 0));
}

/* The tty: data written to the pty's peer makes the master readable. */
static int send_sigio_tty(struct sx_ctx *ctx)
{
	struct pollfd pfd = {.events = POLLIN};
	int master, peer, unlock = 0, err;

	master = open(SIG_PTS "/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return errno;
	if (ioctl(master, TIOCSPTLCK, &unlock))
		return errno;
	peer = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (peer < 0)
		return errno;
	err = own_async(master, F_SETOWN, ctx->t_pid, 0);
	if (!err && write(peer, "x\n", 2) != 2)
		err = errno;
	/* The pty hands the bytes over in a worker: wait until it did (the
	 * signal is queued before the reader is woken). */
	pfd.fd = master;
	if (!err && poll(&pfd, 1, 5000) != 1)
		err = ETIMEDOUT;
	close(peer);
	close(master);
	return err;
}

static int send_sigurg_socket(struct sx_ctx *ctx)
{
	int fds[2], err = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		return errno;
	if (fcntl(fds[0], F_SETOWN, ctx->t_pid))
		err = errno;
	if (!err && send(fds[1], "!", 1, MSG_OOB) != 1)
		err = errno;
	close(fds[0]);
	close(fds[1]);
	return err;
}

/* T owns the shared pipe's reader (it ran F_SETOWN): S only writes. */
static int target_owns_shared(struct sx_ctx *ctx)
{
	return own_async(ctx->shared[0], F_SETOWN, getpid(), 0);
}

static int send_write_shared(struct sx_ctx *ctx)
{
	return write(ctx->shared[1], "x", 1) == 1 ? 0 : errno;
}

/* ---- the expectations ---- */

enum sig_kind {
	DIRECT, /* the call fails with EPERM where scoped */
	GROUP, /* the call succeeds (another member takes it); T's does not */
	PROBE, /* signal 0: the answer alone */
	ASYNC, /* F_SETOWN ... : nothing fails, T gets nothing where scoped */
	OWNED, /* T set the owner: always delivered */
};

static void sig_case(struct __test_metadata *_metadata, struct jr2_fx *fx,
		     const FIXTURE_VARIANT(sig) * variant,
		     const struct sx_route *route, enum sig_kind kind,
		     int signo)
{
	bool denied = sig_denied(&fx->abi, variant);
	struct sx_result res;

	FX_REQUIRE_LANDLOCK(fx);

	sx_run(_metadata, &fx->abi, &variant->rel, route, &res);
	if (res.op_err == EOPNOTSUPP && signo == SIGURG)
		SKIP(return, "no SIGURG route: unix MSG_OOB gives EOPNOTSUPP "
			     "(the kernel lacks CONFIG_AF_UNIX_OOB)");
	ASSERT_TRUE(res.fenced)
	{
		TH_LOG("the fence never reached the target");
	}
	switch (kind) {
	case DIRECT:
	case PROBE:
		ASSERT_EQ(denied ? EPERM : 0, res.op_err);
		break;
	case GROUP:
	case ASYNC:
	case OWNED:
		ASSERT_EQ(0, res.op_err);
		break;
	}
	if (kind == PROBE) {
		/* Nothing but the fence. */
		ASSERT_EQ(1ULL << SIGRTMAX, res.got);
		return;
	}
	if (kind == OWNED)
		denied = false;
	ASSERT_EQ(!denied, sx_got(&res, signo))
	{
		TH_LOG("signal %d %s, the ABI in force (%d) %s", signo,
		       sx_got(&res, signo) ? "delivered" : "not delivered",
		       fx->abi.in_force,
		       denied ? "scopes it" : "does not scope it");
	}
	if (!denied && signo == SIGUSR1 && route->send == send_rt_sigqueueinfo)
		ASSERT_EQ(SIG_VALUE, res.value[SIGUSR1]);
	/* SIGIO says SI_KERNEL; a signal chosen by F_SETSIG carries the
	 * event. */
	if (!denied && signo == SIGIO)
		ASSERT_EQ(SI_KERNEL, res.code[signo]);
	if (!denied && signo == SIGRTMIN)
		ASSERT_EQ(POLL_IN, res.code[signo]);
	/* Nothing else reached T. */
	ASSERT_EQ(0ULL, res.got & ~((1ULL << signo) | (1ULL << SIGRTMAX)));
}

#define SIG_ROUTE(name, kind, signo, ...)                                     \
	TEST_F(sig, P2_##name)                                                \
	{                                                                     \
		static const struct sx_route route = {__VA_ARGS__};           \
		sig_case(_metadata, &self->fx, variant, &route, kind, signo); \
	}

SIG_ROUTE(kill, DIRECT, SIGUSR1, .send = send_kill)
SIG_ROUTE(kill_0_probe, PROBE, 0, .send = send_kill_probe)
SIG_ROUTE(kill_own_group, GROUP, SIGUSR1, .send = send_kill_own_group)
SIG_ROUTE(kill_target_group, DIRECT, SIGUSR1, .send = send_kill_target_group,
	  .t_own_pgrp = true)
SIG_ROUTE(kill_minus_1, GROUP, SIGUSR1, .send = send_kill_all, .all_pids = true)
SIG_ROUTE(tkill, DIRECT, SIGUSR1, .send = send_tkill)
SIG_ROUTE(tgkill, DIRECT, SIGUSR1, .send = send_tgkill)
SIG_ROUTE(tgkill_0_probe, PROBE, 0, .send = send_tgkill_probe)
SIG_ROUTE(rt_sigqueueinfo, DIRECT, SIGUSR1, .send = send_rt_sigqueueinfo)
SIG_ROUTE(rt_tgsigqueueinfo, DIRECT, SIGUSR1, .send = send_rt_tgsigqueueinfo)
SIG_ROUTE(pidfd_send_signal, DIRECT, SIGUSR1, .send = send_pidfd)
SIG_ROUTE(pidfd_send_signal_0_probe, PROBE, 0, .send = send_pidfd_probe)
SIG_ROUTE(sigio_pipe_f_setown, ASYNC, SIGIO, .send = send_sigio_pipe)
SIG_ROUTE(sigio_pipe_f_setown_ex_pid, ASYNC, SIGIO,
	  .send = send_sigio_pipe_owner_ex_pid)
SIG_ROUTE(sigio_pipe_f_setown_ex_tid, ASYNC, SIGIO,
	  .send = send_sigio_pipe_owner_ex_tid)
SIG_ROUTE(sigio_pipe_f_setown_pgrp, ASYNC, SIGIO,
	  .send = send_sigio_pipe_owner_pgrp, .t_own_pgrp = true)
SIG_ROUTE(sigio_pipe_f_setown_ex_pgrp, ASYNC, SIGIO,
	  .send = send_sigio_pipe_owner_ex_pgrp, .t_own_pgrp = true)
SIG_ROUTE(sigio_pipe_f_setsig, ASYNC, SIGRTMIN, .send = send_sigio_setsig)
SIG_ROUTE(sigio_socket_f_setown, ASYNC, SIGIO, .send = send_sigio_socket)
SIG_ROUTE(sigurg_socket_oob_f_setown, ASYNC, SIGURG, .send = send_sigurg_socket)
SIG_ROUTE(sigio_owner_set_by_target, OWNED, SIGIO, .send = send_write_shared,
	  .target_post = target_owns_shared)

TEST_F(sig, P2_sigio_tty_f_setown)
{
	static const struct sx_route route = {.send = send_sigio_tty};

	/* A private devpts (its mount ends with the test's namespace). */
	ASSERT_EQ(0, mkdir(SIG_PTS, 0755));
	if (mount("devpts", SIG_PTS, "devpts", 0,
		  "newinstance,ptmxmode=0666,mode=0620"))
		SKIP(return, "no tty: mount devpts: %s (CONFIG_UNIX98_PTYS)",
			   strerror(errno));
	sig_case(_metadata, &self->fx, variant, &route, ASYNC, SIGIO);
}

/* ---- threads of one process ---- */

FIXTURE(sig_thread)
{
	struct jr2_fx fx;
};

FIXTURE_VARIANT(sig_thread)
{
	bool sender_confined; /* else the target thread is */
};

/* clang-format off */
FIXTURE_VARIANT_ADD(sig_thread, sender_thread_confined) {
	.sender_confined = true,
};
FIXTURE_VARIANT_ADD(sig_thread, target_thread_confined) {
	.sender_confined = false,
};
/* clang-format on */

FIXTURE_SETUP(sig_thread)
{
	sx_setup(_metadata, &self->fx);
}

FIXTURE_TEARDOWN(sig_thread)
{
}

struct sig_thread_arg {
	const struct jr2_abi *abi;
	bool confine;
	pid_t pid, target_tid;
	int go[2];
	int (*send)(struct sig_thread_arg *arg);
	int layer_err, op_err;
};

static void *sig_sender_thread(void *p)
{
	struct sig_thread_arg *arg = p;
	sigset_t routes;
	char token;

	/* Process-directed signals must find the target thread. */
	sigemptyset(&routes);
	sigaddset(&routes, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &routes, NULL);
	if (read(arg->go[0], &token, 1) != 1)
		return NULL;
	if (arg->confine)
		arg->layer_err = sx_layer(arg->abi, JR2_SCOPE_SIGNAL);
	if (!arg->layer_err)
		arg->op_err = arg->send(arg);
	return NULL;
}

static int thread_tgkill(struct sig_thread_arg *arg)
{
	return err_of(syscall(SYS_tgkill, arg->pid, arg->target_tid, SIGUSR1));
}

static int thread_tkill(struct sig_thread_arg *arg)
{
	return err_of(syscall(SYS_tkill, arg->target_tid, SIGUSR1));
}

static int thread_rt_tgsigqueueinfo(struct sig_thread_arg *arg)
{
	siginfo_t info;

	queue_info(&info);
	return err_of(syscall(SYS_rt_tgsigqueueinfo, arg->pid, arg->target_tid,
			      SIGUSR1, &info));
}

static int thread_kill_process(struct sig_thread_arg *arg)
{
	return err_of(kill(arg->pid, SIGUSR1));
}

static int thread_pidfd(struct sig_thread_arg *arg)
{
	return pidfd_send(arg->pid, SIGUSR1);
}

static void sig_thread_case(struct __test_metadata *_metadata,
			    struct jr2_fx *fx,
			    const FIXTURE_VARIANT(sig_thread) * variant,
			    int (*send)(struct sig_thread_arg *arg))
{
	struct sig_thread_arg arg = {.abi = &fx->abi, .send = send};
	bool erratum2 = fx->abi.errata_known && (fx->abi.errata & (1U << 1));
	bool denied = variant->sender_confined &&
		      jr2_abi_has(&fx->abi, JR2_FEAT_SCOPE_SIGNAL) && !erratum2;
	struct sx_result res = {0};
	int report[2];
	pthread_t thread;

	FX_REQUIRE_LANDLOCK(fx);

	ASSERT_EQ(0, pipe2(report, O_CLOEXEC | O_NONBLOCK));
	ASSERT_EQ(0, pipe2(arg.go, O_CLOEXEC));
	sx_report_fd = report[1];
	ASSERT_EQ(0, sx_catch_all());
	arg.pid = getpid();
	arg.target_tid = gettid();
	arg.confine = variant->sender_confined;
	ASSERT_EQ(0, pthread_create(&thread, NULL, sig_sender_thread, &arg));
	/* The target thread (this one) alone takes the domain. */
	if (!variant->sender_confined)
		ASSERT_EQ(0, sx_layer(&fx->abi, JR2_SCOPE_SIGNAL));
	ASSERT_EQ(1, write(arg.go[1], "g", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, arg.layer_err);
	ASSERT_EQ(0, syscall(SYS_tgkill, arg.pid, arg.target_tid, SIGRTMAX));
	sx_collect(report[0], &res);
	ASSERT_TRUE(res.fenced);
	ASSERT_EQ(denied ? EPERM : 0, arg.op_err)
	{
		TH_LOG("ABI in force %d, errata %#x (known: %d)",
		       fx->abi.in_force, fx->abi.errata, fx->abi.errata_known);
	}
	ASSERT_EQ(!denied, sx_got(&res, SIGUSR1));
}

TEST_F(sig_thread, P2_tgkill)
{
	sig_thread_case(_metadata, &self->fx, variant, thread_tgkill);
}

TEST_F(sig_thread, P2_tkill)
{
	sig_thread_case(_metadata, &self->fx, variant, thread_tkill);
}

TEST_F(sig_thread, P2_rt_tgsigqueueinfo)
{
	sig_thread_case(_metadata, &self->fx, variant,
			thread_rt_tgsigqueueinfo);
}

TEST_F(sig_thread, P2_kill_own_process)
{
	sig_thread_case(_metadata, &self->fx, variant, thread_kill_process);
}

TEST_F(sig_thread, P2_pidfd_send_signal_own_process)
{
	sig_thread_case(_metadata, &self->fx, variant, thread_pidfd);
}

TEST_HARNESS_MAIN
