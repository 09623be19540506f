// SPDX-License-Identifier: GPL-2.0-only
/*
 * P2 (abstract sockets), G6: from ABI 6 a confined program cannot connect
 * to the abstract unix socket the harness (the Custodian here) made: EPERM.
 * Below ABI 6 the status says scope_abstract_unix is unavailable and the
 * connection works.  Positive control: the unconfined test connects.
 *
 * Below the harness, the kernel rule P2 stands on, by the raw syscalls
 * (selftests/scope_helpers.h): a client may reach an abstract unix socket
 * only when the domain of the process that made the socket is the client's
 * or nested in it.  Stream, seqpacket and datagram x connect and (datagram)
 * sendto/sendmsg unconnected, listeners made before and after the client's
 * domain, autobound names, as fixture variants of the domain relations.
 * Never scoped, the positive controls: pathname sockets, socketpair, and a
 * connected socket passed by SCM_RIGHTS from outside the domain.  Under an
 * ABI in force without scope_abstract_unix (below 6, or JR2_MAX_ABI=5) every
 * connection works: the tests assert that honest side.  RESOLVE_UNIX (ABI
 * 9) for pathname sockets beside and inside the protected dir, raw and
 * through the runtime (R8: the runtime grants it everywhere).
 *
 * Promises: G6 P2 R8
 */
#include "harness_helpers.h"
#include "scope_helpers.h"

HX_FIXTURE(scoped_abstract)

/*
 * Abstract names are per network namespace.  The tests of the domain
 * relations name theirs in the binary's own (hx_own_netns(), made once at
 * its start), so that they meet neither the host's names nor another run's.
 * The tests run one at a time and each scenario's processes die with its
 * PID namespace: no name outlives its test (a leftover would fail the next
 * bind loudly, EADDRINUSE).
 */
#define ABS_REQUIRE_NETNS()                                                  \
	ASSERT_EQ(0, hx_netns_err)                                           \
	{                                                                    \
		TH_LOG(                                                      \
		    "unshare(CLONE_NEWNET) at the start: %s: run the suite " \
		    "as root",                                               \
		    strerror(hx_netns_err));                                 \
	}

TEST_F(scoped_abstract, P2_G6_connect_to_harness_abstract_socket)
{
	struct hx *hx = &self->hx;
	int expected;
	bool has;
	char out[HX_OUT_SIZE], value[512];

	HX_START(hx, NULL);
	has = jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	expected = fx_expect(&hx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX, EPERM);
	/* Positive control: the socket exists and answers, unconfined. */
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
	ASSERT_STREQ("@" HX_ABSTRACT,
		     hx_field(out, "abstract_socket", value, sizeof(value)));
	ASSERT_NE(NULL, hx_field(out, has ? "enforced" : "unavailable", value,
				 sizeof(value)));
	ASSERT_NE(NULL, strstr(value, "scope_abstract_unix"));
	ASSERT_STREQ(expected ? "EPERM" : "ok",
		     HX_TRY(hx, "connect-abstract", HX_ABSTRACT));
}

TEST_F(scoped_abstract, P2_abstract_custodian_answers_unconfined_client)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE];
	int status;
	char *const argv[] = {hx->try_tool, "custodian", "@" HX_ABSTRACT,
			      "no-stand-in", NULL};

	HX_START(hx, NULL);
	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	ASSERT_EQ(0, status);
	ASSERT_NE(NULL, strstr(out, "refused"))
	{
		TH_LOG("answer: %s", out);
	}
}

TEST_F(scoped_abstract, P2_custodian_abstract_socket_from_confined_program)
{
	struct hx *hx = &self->hx;
	const char *answer;
	bool scoped;

	HX_START(hx, NULL);
	scoped = jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	/* Positive control: the unconfined test reaches it (the answer is a
	 * refusal of the request, not of the connection). */
	{
		char out[HX_OUT_SIZE];
		int status;
		char *const argv[] = {hx->try_tool, "custodian",
				      "@" HX_ABSTRACT, "ping", NULL};

		ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
		ASSERT_EQ(0, status);
		ASSERT_EQ(NULL, strstr(out, "EPERM"));
	}
	answer = HX_TRY_LINE(hx, "custodian", "@" HX_ABSTRACT, "ping");
	if (scoped) {
		ASSERT_STREQ("EPERM", answer);
	} else {
		ASSERT_EQ(NULL, strstr(answer, "EPERM"))
		{
			TH_LOG("ABI %d: scope_abstract_unix unavailable, yet "
			       "'%s'",
			       hx->abi.in_force, answer);
		}
	}
}

/* ---- the domain relations x socket routes, by the raw syscalls ---- */

#define ABS_NAME "@jr2-scope-test"
#define ABS_PATH FX_WORK "/listener.sock"

FIXTURE(abs)
{
	struct jr2_fx fx;
};

FIXTURE_VARIANT(abs)
{
	struct sx_rel rel;
	bool denied; /* where the ABI in force scopes abstract sockets */
};

SX_RELATION_VARIANTS(abs, JR2_SCOPE_ABSTRACT_UNIX_SOCKET, JR2_SCOPE_SIGNAL);

FIXTURE_SETUP(abs)
{
	sx_setup(_metadata, &self->fx);
	/* Where the pathname listeners bind (ABS_PATH). */
	fx_make_dir(_metadata, FX_WORK, 0755);
	ABS_REQUIRE_NETNS();
}

FIXTURE_TEARDOWN(abs)
{
}

/* ctx->name/name_len from "@abstract" or a path; NULL: autobind. */
static int make_socket(struct sx_ctx *ctx, int type, const char *where)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof(addr);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	if (where) {
		fx_unix_addr(&addr, where);
		if (bind(fd, (struct sockaddr *)&addr, fx_unix_len(where)))
			return errno;
	} else {
		addr.sun_family = AF_UNIX;
		if (bind(fd, (struct sockaddr *)&addr, sizeof(sa_family_t)))
			return errno;
	}
	if (type != SOCK_DGRAM && listen(fd, 8))
		return errno;
	if (getsockname(fd, (struct sockaddr *)&addr, &len))
		return errno;
	/* An autobound name is abstract: NUL and five hex digits. */
	if (!where && (len != offsetof(struct sockaddr_un, sun_path) + 6 ||
		       addr.sun_path[0]))
		return EPROTO;
	memcpy(ctx->name, addr.sun_path, sizeof(ctx->name));
	ctx->name_len = len;
	ctx->t_fd = fd;
	return 0;
}

static int listen_abstract(struct sx_ctx *ctx)
{
	return make_socket(ctx, ctx->kind, ABS_NAME);
}

static int listen_autobind(struct sx_ctx *ctx)
{
	return make_socket(ctx, ctx->kind, NULL);
}

static int listen_pathname(struct sx_ctx *ctx)
{
	return make_socket(ctx, ctx->kind, ABS_PATH);
}

static void addr_of(const struct sx_ctx *ctx, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, ctx->name, sizeof(addr->sun_path));
}

static int client_connect(struct sx_ctx *ctx)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, ctx->kind | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return errno;
	addr_of(ctx, &addr);
	if (connect(fd, (struct sockaddr *)&addr, ctx->name_len))
		err = errno;
	close(fd);
	return err;
}

static int client_sendto(struct sx_ctx *ctx)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return errno;
	addr_of(ctx, &addr);
	if (sendto(fd, "d", 1, 0, (struct sockaddr *)&addr, ctx->name_len) != 1)
		err = errno;
	close(fd);
	return err;
}

static int client_sendmsg(struct sx_ctx *ctx)
{
	struct sockaddr_un addr;
	struct iovec iov = {.iov_base = "m", .iov_len = 1};
	struct msghdr msg = {.msg_name = &addr,
			     .msg_namelen = ctx->name_len,
			     .msg_iov = &iov,
			     .msg_iovlen = 1};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return errno;
	addr_of(ctx, &addr);
	if (sendmsg(fd, &msg, 0) != 1)
		err = errno;
	close(fd);
	return err;
}

/* The client's own autobind works in its domain (binding is not scoped);
 * then it sends.  A failure before the send comes back as 1000 + errno. */
static int client_autobind_sendto(struct sx_ctx *ctx)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX}, own;
	socklen_t len = sizeof(own);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return 1000 + errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(sa_family_t)) ||
	    getsockname(fd, (struct sockaddr *)&own, &len))
		err = 1000 + errno;
	else if (len != offsetof(struct sockaddr_un, sun_path) + 6 ||
		 own.sun_path[0])
		err = 1000 + EPROTO;
	addr_of(ctx, &addr);
	if (!err &&
	    sendto(fd, "a", 1, 0, (struct sockaddr *)&addr, ctx->name_len) != 1)
		err = errno;
	close(fd);
	return err;
}

/* socketpair is never scoped: both ends talk inside the domain. */
static int client_socketpair(struct sx_ctx *ctx)
{
	int fds[2], err = 0;
	char byte;

	if (socketpair(AF_UNIX, ctx->kind | SOCK_CLOEXEC, 0, fds))
		return errno;
	if (write(fds[0], "p", 1) != 1 || read(fds[1], &byte, 1) != 1)
		err = errno ? errno : EIO;
	close(fds[0]);
	close(fds[1]);
	return err;
}

/* T connects to its own listener and passes the connected end to S. */
static int target_pass_connected(struct sx_ctx *ctx)
{
	struct sockaddr_un addr;
	int err = make_socket(ctx, SOCK_STREAM, ABS_NAME), fd;

	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	addr_of(ctx, &addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, ctx->name_len))
		return errno;
	err = fx_send_fd(ctx->pass[0], fd);
	close(fd);
	return err;
}

/* The passed socket works (1000 + errno when not); then S's own connect. */
static int client_use_passed(struct sx_ctx *ctx)
{
	int fd = fx_recv_fd(ctx->pass[1]);

	if (fd < 0)
		return 1000 + errno;
	if (write(fd, "passed", 6) != 6)
		return 1000 + errno;
	close(fd);
	ctx->kind = SOCK_STREAM;
	return client_connect(ctx);
}

enum abs_kind {
	SCOPED, /* abstract: EPERM where scoped */
	NEVER, /* never scoped: 0 */
};

static void abs_case(struct __test_metadata *_metadata, struct jr2_fx *fx,
		     const FIXTURE_VARIANT(abs) * variant,
		     const struct sx_route *route, enum abs_kind kind)
{
	bool denied = kind == SCOPED && variant->denied &&
		      jr2_abi_has(&fx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	struct sx_result res;

	FX_REQUIRE_LANDLOCK(fx);

	sx_run(_metadata, &fx->abi, &variant->rel, route, &res);
	ASSERT_EQ(denied ? EPERM : 0, res.op_err)
	{
		TH_LOG("ABI in force %d: %s", fx->abi.in_force,
		       denied ? "scopes abstract sockets"
			      : "does not scope this");
	}
}

#define ABS_ROUTE(name, kind, ...)                                     \
	TEST_F(abs, P2_##name)                                         \
	{                                                              \
		static const struct sx_route route = {__VA_ARGS__};    \
		abs_case(_metadata, &self->fx, variant, &route, kind); \
	}

ABS_ROUTE(stream_connect, SCOPED, .kind = SOCK_STREAM,
	  .target_pre = listen_abstract, .send = client_connect)
ABS_ROUTE(stream_connect_listener_after_client_domain, SCOPED,
	  .kind = SOCK_STREAM, .target_post = listen_abstract,
	  .send = client_connect)
ABS_ROUTE(stream_connect_autobind_listener, SCOPED, .kind = SOCK_STREAM,
	  .target_pre = listen_autobind, .send = client_connect)
ABS_ROUTE(seqpacket_connect, SCOPED, .kind = SOCK_SEQPACKET,
	  .target_pre = listen_abstract, .send = client_connect)
ABS_ROUTE(seqpacket_connect_listener_after_client_domain, SCOPED,
	  .kind = SOCK_SEQPACKET, .target_post = listen_abstract,
	  .send = client_connect)
ABS_ROUTE(dgram_connect, SCOPED, .kind = SOCK_DGRAM,
	  .target_pre = listen_abstract, .send = client_connect)
ABS_ROUTE(dgram_sendto_unconnected, SCOPED, .kind = SOCK_DGRAM,
	  .target_pre = listen_abstract, .send = client_sendto)
ABS_ROUTE(dgram_sendmsg_unconnected, SCOPED, .kind = SOCK_DGRAM,
	  .target_pre = listen_abstract, .send = client_sendmsg)
ABS_ROUTE(dgram_sendto_listener_after_client_domain, SCOPED, .kind = SOCK_DGRAM,
	  .target_post = listen_abstract, .send = client_sendto)
ABS_ROUTE(dgram_sendto_autobind_listener, SCOPED, .kind = SOCK_DGRAM,
	  .target_pre = listen_autobind, .send = client_sendto)
ABS_ROUTE(dgram_sendto_from_autobound_client, SCOPED, .kind = SOCK_DGRAM,
	  .target_pre = listen_abstract, .send = client_autobind_sendto)
ABS_ROUTE(scm_rights_passed_socket_works, SCOPED, .kind = SOCK_STREAM,
	  .target_post = target_pass_connected, .send = client_use_passed)
ABS_ROUTE(pathname_stream_connect_never_scoped, NEVER, .kind = SOCK_STREAM,
	  .target_pre = listen_pathname, .send = client_connect)
ABS_ROUTE(pathname_seqpacket_connect_never_scoped, NEVER,
	  .kind = SOCK_SEQPACKET, .target_pre = listen_pathname,
	  .send = client_connect)
ABS_ROUTE(pathname_dgram_sendto_never_scoped, NEVER, .kind = SOCK_DGRAM,
	  .target_pre = listen_pathname, .send = client_sendto)
ABS_ROUTE(socketpair_stream_never_scoped, NEVER, .kind = SOCK_STREAM,
	  .send = client_socketpair)
ABS_ROUTE(socketpair_dgram_never_scoped, NEVER, .kind = SOCK_DGRAM,
	  .send = client_socketpair)

/* ---- one process: its own socket, made before or after its domain ---- */

FIXTURE(abs_self)
{
	struct jr2_fx fx;
};

FIXTURE_VARIANT(abs_self)
{
	int type;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(abs_self, stream) { .type = SOCK_STREAM };
FIXTURE_VARIANT_ADD(abs_self, seqpacket) { .type = SOCK_SEQPACKET };
FIXTURE_VARIANT_ADD(abs_self, dgram) { .type = SOCK_DGRAM };
/* clang-format on */

FIXTURE_SETUP(abs_self)
{
	sx_setup(_metadata, &self->fx);
	ABS_REQUIRE_NETNS();
}

FIXTURE_TEARDOWN(abs_self)
{
}

static int self_reach(struct sx_ctx *ctx)
{
	return ctx->kind == SOCK_DGRAM ? client_sendto(ctx)
				       : client_connect(ctx);
}

static void self_case(struct __test_metadata *_metadata, struct jr2_fx *fx,
		      int type, bool socket_before, bool bind_before)
{
	/* The socket's maker decides: made before the domain, it is
	 * outside it, wherever it was bound. */
	int expected =
	    socket_before
		? fx_expect(&fx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX, EPERM)
		: 0;
	struct sockaddr_un addr;
	struct sx_ctx ctx = {.kind = type};
	int fd = -1;

	FX_REQUIRE_LANDLOCK(fx);

	if (socket_before) {
		fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, fd);
	}
	if (bind_before) {
		fx_unix_addr(&addr, ABS_NAME);
		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&addr,
				  fx_unix_len(ABS_NAME)));
		if (type != SOCK_DGRAM)
			ASSERT_EQ(0, listen(fd, 8));
	}
	ASSERT_EQ(0, sx_layer(&fx->abi, JR2_SCOPE_ABSTRACT_UNIX_SOCKET));
	if (!socket_before) {
		ASSERT_EQ(0, make_socket(&ctx, type, ABS_NAME));
	} else if (!bind_before) {
		fx_unix_addr(&addr, ABS_NAME);
		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&addr,
				  fx_unix_len(ABS_NAME)));
		if (type != SOCK_DGRAM)
			ASSERT_EQ(0, listen(fd, 8));
	}
	fx_unix_addr(&addr, ABS_NAME);
	memcpy(ctx.name, addr.sun_path, sizeof(ctx.name));
	ctx.name_len = fx_unix_len(ABS_NAME);
	ASSERT_EQ(expected, self_reach(&ctx));
	/* Positive control: a socket made in the domain is reachable. */
	if (expected) {
		struct sx_ctx mine = {.kind = type};

		ASSERT_EQ(0, make_socket(&mine, type, "@jr2-scope-mine"));
		ASSERT_EQ(0, self_reach(&mine));
	}
}

TEST_F(abs_self, P2_own_socket_made_and_bound_before_domain)
{
	self_case(_metadata, &self->fx, variant->type, true, true);
}

TEST_F(abs_self, P2_own_socket_made_before_bound_after_domain)
{
	self_case(_metadata, &self->fx, variant->type, true, false);
}

TEST_F(abs_self, P2_own_socket_made_after_domain)
{
	self_case(_metadata, &self->fx, variant->type, false, false);
}

/* ---- RESOLVE_UNIX (ABI 9): pathname sockets, beside and inside ---- */

#define RU_WORK_SOCK	  FX_WORK "/ru.sock"
#define RU_PROTECTED_SOCK FX_PROTECTED "/ru.sock"

JR2_FIXTURE(resolve_unix)

/* A ruleset handling RESOLVE_UNIX where the kernel has it (else only
 * MAKE_BLOCK, so that a domain exists), granting it beneath FX_WORK. */
static int resolve_unix_domain(const struct jr2_abi *abi)
{
	bool has = jr2_abi_has(abi, JR2_FEAT_RESOLVE_UNIX);
	struct jr2_ruleset_attr attr = {
	    .handled_access_fs =
		has ? JR2_ACCESS_FS_RESOLVE_UNIX : JR2_ACCESS_FS_MAKE_BLOCK,
	};
	struct jr2_path_beneath_attr rule = {.allowed_access =
						 attr.handled_access_fs};
	int fd = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0), err = 0;

	if (fd < 0)
		return errno;
	rule.parent_fd = open(FX_WORK, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0 ||
	    jr2_sys_add_rule(fd, JR2_RULE_PATH_BENEATH, &rule, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_sys_restrict_self(fd, 0))
		err = errno;
	close(rule.parent_fd);
	close(fd);
	return err;
}

TEST_F(resolve_unix, R8_raw_connect_beside_and_inside_granted_tree)
{
	int work = fx_unix_listen(RU_WORK_SOCK);
	int protected = fx_unix_listen(RU_PROTECTED_SOCK);

	FX_REQUIRE_LANDLOCK(&self->fx);

	ASSERT_LE(0, work);
	ASSERT_LE(0, protected);
	ASSERT_EQ(0, resolve_unix_domain(&self->fx.abi));
	ASSERT_EQ(0, test_connect_unix(RU_WORK_SOCK));
	ASSERT_EQ(fx_expect(&self->fx.abi, JR2_FEAT_RESOLVE_UNIX, EACCES),
		  test_connect_unix(RU_PROTECTED_SOCK));
	/* Abstract names are no path: RESOLVE_UNIX does not see them. */
	ASSERT_EQ(0, test_bind_unix("@jr2-ru-abstract"));
	ASSERT_EQ(0, test_connect_unix(RU_WORK_SOCK));
}

TEST_F(resolve_unix, R8_raw_dgram_sendto_outside_granted_tree)
{
	struct sx_ctx work = {.kind = SOCK_DGRAM},
		      protected = {.kind = SOCK_DGRAM};

	FX_REQUIRE_LANDLOCK(&self->fx);

	ASSERT_EQ(0, make_socket(&work, SOCK_DGRAM, RU_WORK_SOCK));
	ASSERT_EQ(0, make_socket(&protected, SOCK_DGRAM, RU_PROTECTED_SOCK));
	ASSERT_EQ(0, resolve_unix_domain(&self->fx.abi));
	ASSERT_EQ(0, client_sendto(&work));
	ASSERT_EQ(fx_expect(&self->fx.abi, JR2_FEAT_RESOLVE_UNIX, EACCES),
		  client_sendto(&protected));
}

/* The runtime grants RESOLVE_UNIX everywhere (R8): both connect. */
TEST_F(resolve_unix, R8_runtime_connect_beside_and_inside_protected_dir)
{
	int work = fx_unix_listen(RU_WORK_SOCK);
	int protected = fx_unix_listen(RU_PROTECTED_SOCK);

	ASSERT_LE(0, work);
	ASSERT_LE(0, protected);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_connect_unix(RU_WORK_SOCK));
	ASSERT_EQ(0, test_connect_unix(RU_PROTECTED_SOCK));
	/* ...and the protected dir stays closed otherwise (R1, R3). */
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
	ASSERT_EQ(EACCES, test_bind_unix(FX_PROTECTED "/new.sock"));
}

TEST_HARNESS_MAIN
