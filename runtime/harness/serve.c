// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jr2-harness serve`: the unconfined supervisor.  One poll loop (its log has
 * a writer thread of its own, log.h):
 * the control channel (bearer-authenticated), the Custodian-like sockets, the
 * spawner's channel and a signalfd for SIGCHLD.  The harness is a child
 * subreaper and reaps every process; programs are its children (the spawner
 * starts them with CLONE_PARENT), so their exit status reaches the client
 * even after the spawner that started them is gone (P4).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "channel.h"
#include "config.h"
#include "confine_step.h"
#include "die.h"
#include "digest.h"
#include "env.h"
#include "harness.h"
#include "json.h"
#include "leftovers.h"
#include "log.h"
#include "policy.h"
#include "request.h"
#include "serve.h"
#include "spawner.h"
#include "standins.h"

/* The one harness of this process: static, so zero from the start. */
struct harness harness;

/*
 * The folders in which programs can create or remove nothing (the plan's
 * frozen folders, each with why), for the start lines and `status`.
 */
static void frozen_folders(char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < harness.plan.frozen.n && used + 1 < size; i++)
		used += (size_t)snprintf(
		    out + used, size - used, "%s%s (%s)", i ? "; " : "",
		    harness.plan.frozen.v[i], harness.plan.frozen_why.v[i]);
	if (!out[0])
		snprintf(out, size, "none");
}

/* ---- the spawner ---------------------------------------------------- */

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
 * Less to steal: the spawner (a fork of the harness) needs no Stand-in and
 * no bearer; they are wiped from its copy of the memory before it runs
 * anything.  The Stand-ins of one request reach it in that request's spawn
 * message only, wiped after the start (spawner.c).
 */
static void forget_secrets(void)
{
	explicit_bzero(harness.standins.control,
		       sizeof(harness.standins.control));
	for (size_t i = 0; i < harness.standins.n; i++)
		explicit_bzero(harness.standins.values[i],
			       sizeof(harness.standins.values[i]));
	explicit_bzero(harness.bearer_digest, sizeof(harness.bearer_digest));
	explicit_bzero(harness.request_buf, sizeof(harness.request_buf));
	for (int i = 0; i < MAX_CONNS; i++) {
		if (harness.conns[i].spawn.buf)
			explicit_bzero(harness.conns[i].spawn.buf,
				       harness.conns[i].spawn.cap);
		/* A Custodian line not ended yet may start with the
		 * control Stand-in. */
		explicit_bzero(harness.conns[i].line,
			       sizeof(harness.conns[i].line));
	}
}

static void log_generation(void)
{
	char enforced[512] = "", unavailable[1024] = "";

	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		char *list =
		    jr2_abi_has(&harness.abi, f) ? enforced : unavailable;
		size_t used = strlen(list);
		size_t room = (list == enforced ? sizeof(enforced)
						: sizeof(unavailable)) -
			      used;

		if (list == enforced)
			snprintf(list + used, room, "%s%s", used ? ", " : "",
				 jr2_features[f].name);
		else
			snprintf(list + used, room, "%s%s (%s, needs ABI %d)",
				 used ? "; " : "", jr2_features[f].name,
				 jr2_features[f].protects,
				 jr2_features[f].min_abi);
	}
	char frozen[1024];

	frozen_folders(frozen, sizeof(frozen));
	/* G6: every start says what this ABI cannot give. */
	say("spawner generation %u (pid %d) confined at Landlock ABI %d; "
	    "enforced: %s; unavailable on this ABI: %s; frozen folders: %s",
	    harness.generation, (int)harness.spawner_pid, harness.abi.in_force,
	    enforced[0] ? enforced : "none",
	    unavailable[0] ? unavailable : "none", frozen);
}

static void start_spawner(void)
{
	int pair[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair)) {
		say("cannot make the spawner's channel: %s; retrying",
		    strerror(errno));
		harness.restart_at_ms = jr2_now_ms() + 1000;
		return;
	}
	/* Room for one spawn message with its environment. */
	int size = JR2_SPAWN_MAX_BYTES * 2;

	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	pid = fork();
	if (pid < 0) {
		say("cannot fork the spawner: %s; retrying", strerror(errno));
		close(pair[0]);
		close(pair[1]);
		harness.restart_at_ms = jr2_now_ms() + 1000;
		return;
	}
	if (pid == 0) {
		close(pair[0]);
		prctl(PR_SET_NAME, "jr2-spawner");
		forget_secrets();
		setrlimit(RLIMIT_NOFILE, &harness.start_nofile);
		/* Raising it back needs no capability: it cannot fail. */
		if (harness.start_oom_score_adj[0] &&
		    write_proc_self("oom_score_adj",
				    harness.start_oom_score_adj))
			_exit(125);
		/*
		 * Every spawner compiles once, after its read-only mounts
		 * (or, without them, just before restricting); the plan
		 * compiled at start is only the reference: each protected
		 * dir must still be the inode it was then (exit 125).
		 */
		jr2_spawner_main(pair[1], &harness.policy, &harness.abi,
				 &harness.plan);
	}
	close(pair[1]);
	fcntl(pair[0], F_SETFL, O_NONBLOCK);
	harness.spawner_fd = pair[0];
	harness.spawner_pid = pid;
	harness.spawner_ready = false;
	harness.generation++;
	harness.spawner_started_ms = jr2_now_ms();
	harness.restart_at_ms = 0;
}

/* ---- connections ---------------------------------------------------- */

/*
 * R11: every descriptor a client or a program passed is dropped (channel.h),
 * never closed here: the loop closes them with jr2_drop_flush(), where no
 * last close can hold it.  So is a connection that showed no bearer, with
 * its unread messages and what they carry; a client's own connection (no
 * program holds it) closes here.
 */
static void conn_close(struct conn *c)
{
	for (size_t i = 0; i < harness.n_programs; i++)
		if (harness.programs[i].conn == c)
			harness.programs[i].conn = NULL;
	jr2_drop_fds(c->fds, c->n_fds);
	c->n_fds = 0;
	jr2_msg_free(&c->spawn);
	if (c->bearer_shown)
		close(c->fd);
	else
		jr2_drop_fds(&c->fd, 1);
	memset(c, 0, sizeof(*c));
	c->kind = CONN_FREE;
}

static void conn_reply(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One answer to a client; a client that left just misses it. */
static void conn_reply(struct conn *c, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	if (c->kind == CONN_CONTROL)
		jr2_send_msg(c->fd, buf, (size_t)len, NULL, 0);
	else if (write(c->fd, buf, (size_t)len) < 0)
		return;
}

static void refuse(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A refusal ends the connection; the harness keeps serving. */
static void refuse(struct conn *c, const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	conn_reply(c, "refused %s\n", buf);
	say("refused a request: %s", buf);
	conn_close(c);
}

/* The connection of request `id` in `state` (or RUNNING too, if asked). */
static struct conn *conn_by_id(unsigned long id, bool running_too)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &harness.conns[i];

		if (c->kind == CONN_CONTROL && c->id == id &&
		    (c->state == IN_FLIGHT ||
		     (running_too && c->state == RUNNING)))
			return c;
	}
	return NULL;
}

static void send_to_spawner(struct conn *c)
{
	int ret = jr2_send_msg(harness.spawner_fd, c->spawn.buf, c->spawn.len,
			       c->fds, c->n_fds);

	if (ret == -EAGAIN)
		return; /* still QUEUED: sent when the channel has room */
	if (ret) {
		/* The spawner is going away: kept for the next one. */
		say("cannot send request %lu to the spawner: %s; kept for the "
		    "next generation",
		    c->id, strerror(-ret));
		return;
	}
	/* The spawner may be done with its copies already (R11). */
	jr2_drop_fds(c->fds, c->n_fds);
	c->n_fds = 0;
	jr2_msg_free(&c->spawn);
	c->state = IN_FLIGHT;
	c->deadline_ms = jr2_now_ms() + SPAWN_TIMEOUT_MS;
}

static bool queue_waits(void)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].state == QUEUED)
			return true;
	return false;
}

static void flush_queue(void)
{
	for (int i = 0; i < MAX_CONNS && harness.spawner_ready; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].state == QUEUED)
			send_to_spawner(&harness.conns[i]);
}

static void exit_status_to_client(struct conn *c, int status)
{
	int code =
	    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	conn_reply(c, "exit %d\n", code);
	conn_close(c);
}

struct status_buf {
	char text[8192];
	size_t used;
};

/* Appends for the JSON writer (runtime/json.h); too much sets used past
   the end, as the snprintf()s below do. */
static void status_emit(void *ctx, const char *s, size_t n)
{
	struct status_buf *b = ctx;

	if (b->used + n < sizeof(b->text))
		memcpy(b->text + b->used, s, n);
	b->used += n;
}

static void status_reply(struct conn *c, bool json)
{
	struct status_buf sb = {.used = 0};
	char *const buf = sb.text;
	size_t used = 0;
	char abstract[sizeof(harness.abstract_name) + 1];
#define OUT(...)                                                              \
	do {                                                                  \
		if (used < sizeof(sb.text))                                   \
			used += (size_t)snprintf(                             \
			    buf + used, sizeof(sb.text) - used, __VA_ARGS__); \
	} while (0)
	/* The paths and names are bytes: the one JSON writer escapes them. */
#define OUT_STR(key, s)                                                \
	do {                                                           \
		sb.used = used;                                        \
		if (used < sizeof(sb.text))                            \
			jr2_json_member(status_emit, &sb, " ", key, s, \
					strlen(s));                    \
		used = sb.used;                                        \
	} while (0)
	snprintf(abstract, sizeof(abstract), "@%s", harness.abstract_name);
	if (json) {
		OUT("{\"harness_pid\": %d, ", (int)getpid());
		OUT_STR("protected_dir", harness.protected_dir);
		OUT(", \"abi\": %d, \"spawner_pid\": %d, \"spawner_ready\": "
		    "%s, \"generation\": %u, \"log_lines_dropped\": %lu, ",
		    harness.abi.in_force, (int)harness.spawner_pid,
		    harness.spawner_ready ? "true" : "false",
		    harness.generation, jr2_log_dropped());
		OUT_STR("abstract_socket", abstract);
	} else {
		OUT("harness_pid: %d\nprotected_dir: %s\nabi: %d\nspawner_pid: "
		    "%d\nspawner_ready: %s\ngeneration: %u\nlog_lines_dropped: "
		    "%lu\nabstract_socket: %s",
		    (int)getpid(), harness.protected_dir, harness.abi.in_force,
		    (int)harness.spawner_pid,
		    harness.spawner_ready ? "true" : "false",
		    harness.generation, jr2_log_dropped(), abstract);
	}
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;

		OUT(json ? ", \"%s\": [" : "\n%s:",
		    pass ? "unavailable" : "enforced");
		for (int f = 0; f < JR2_FEAT_COUNT; f++) {
			if (jr2_abi_has(&harness.abi, f) == (pass == 1))
				continue;
			OUT(json ? "%s\"%s\"" : " %s%s",
			    json && !first ? ", " : "", jr2_features[f].name);
			first = false;
		}
		OUT(json ? "]" : "");
	}
	{
		char frozen[1024];

		frozen_folders(frozen, sizeof(frozen));
		if (json) {
			OUT(",");
			OUT_STR("frozen_folders", frozen);
		} else {
			OUT("\nfrozen_folders: %s", frozen);
		}
	}
	OUT(json ? ", \"programs\": [" : "\nprograms:");
	for (size_t i = 0; i < harness.n_programs; i++)
		OUT(json ? "%s{\"pid\": %d, \"generation\": %u}" : "%s %d/%u",
		    json && i ? ", " : "", (int)harness.programs[i].pid,
		    harness.programs[i].generation);
	OUT(json ? "]}\n" : "\n");
#undef OUT
#undef OUT_STR
	if (used >= sizeof(sb.text))
		used = sizeof(sb.text) - 1;
	conn_reply(c, "status\n%.*s", (int)used, buf);
	conn_close(c);
}

/* An authenticated exec: compose the spawn message and queue it. */
static void accept_exec(struct conn *c, const struct jr2_request *req, int *fds,
			size_t n_fds)
{
	char id[32];

	for (size_t i = 0; i < req->n_secrets; i++) {
		if (!jr2_standin_of(&harness.standins, req->secrets[i])) {
			jr2_drop_fds(fds, n_fds);
			refuse(c,
			       "unknown secret '%s': the config declares %zu "
			       "Held secret(s); add 'secret %s' to the config "
			       "or drop it",
			       req->secrets[i], harness.cfg.secrets.n,
			       req->secrets[i]);
			return;
		}
	}
	if (n_fds < 3) {
		jr2_drop_fds(fds, n_fds);
		refuse(c,
		       "the request passed %zu descriptors; pass stdin, stdout "
		       "and stderr (SCM_RIGHTS) first",
		       n_fds);
		return;
	}
	c->id = ++harness.next_id;
	snprintf(id, sizeof(id), "%lu", c->id);
	snprintf(c->cmd, sizeof(c->cmd), "%s", req->argv[0]);
	jr2_msg_init(&c->spawn);
	jr2_msg_field(&c->spawn, "op", "spawn");
	jr2_msg_field(&c->spawn, "id", id);
	/* P3: a request given a Stand-in runs in a layer of its own. */
	if (req->n_secrets)
		jr2_msg_field(&c->spawn, "layer", "own");
	if (req->cwd)
		jr2_msg_field(&c->spawn, "cwd", req->cwd);
	for (size_t i = 0; i < req->argc; i++)
		jr2_msg_field(&c->spawn, "arg", req->argv[i]);
	/* E1: the Stand-in of each listed secret, under its name, which
	 * then appears once (set, not appended). */
	{
		struct jr2_env env = {0};
		int ret = 0;

		for (size_t i = 0; i < harness.confined_env.n && !ret; i++) {
			const char *eq = strchr(harness.confined_env.v[i], '=');
			char name[256];

			snprintf(name, sizeof(name), "%.*s",
				 (int)(eq - harness.confined_env.v[i]),
				 harness.confined_env.v[i]);
			ret = jr2_env_set(&env, name, eq + 1);
		}
		for (size_t i = 0; i < req->n_secrets && !ret; i++)
			ret = jr2_env_set(
			    &env, req->secrets[i],
			    jr2_standin_of(&harness.standins, req->secrets[i]));
		for (size_t i = 0; i < env.n; i++) {
			jr2_msg_field(&c->spawn, "env", env.v[i]);
			if (i >= harness.confined_env.n)
				explicit_bzero(env.v[i], strlen(env.v[i]));
		}
		if (ret)
			c->spawn.failed = true;
		jr2_env_free(&env);
	}
	if (c->spawn.failed || c->spawn.len > JR2_SPAWN_MAX_BYTES) {
		jr2_drop_fds(fds, n_fds);
		refuse(c,
		       "the request with its environment is larger than %d "
		       "bytes; pass fewer arguments",
		       JR2_SPAWN_MAX_BYTES);
		return;
	}
	memcpy(c->fds, fds, n_fds * sizeof(*fds));
	c->n_fds = n_fds;
	c->state = QUEUED;
	if (harness.spawner_ready)
		send_to_spawner(c);
}

static void on_control_readable(struct conn *c)
{
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds = 0;
	struct jr2_request req;
	uint8_t digest[JR2_SHA256_LEN];
	struct jr2_err err = {0};
	int ret;

	if (c->state != WAIT_REQUEST) {
		/* Only a hang-up is expected now; anything else is dropped,
		 * descriptors included (R10). */
		char scratch[1];

		ret = (int)jr2_recv_msg(c->fd, scratch, sizeof(scratch), fds,
					JR2_REQ_MAX_FDS, &n_fds);
		jr2_drop_fds(fds, n_fds);
		if (ret == 0 || (ret < 0 && ret != -EAGAIN))
			conn_close(c);
		return;
	}
	/* Every descriptor of a refused or empty message is dropped there. */
	ret = jr2_control_take(c->fd, harness.request_buf, JR2_REQ_MAX_BYTES,
			       &req, fds, &n_fds, &err);
	if (ret == -EAGAIN)
		return;
	if (ret == 1) {
		conn_close(c);
		return;
	}
	if (ret) {
		refuse(c, "%s", err.msg);
		return;
	}
	if (!req.bearer) {
		refuse(c,
		       "no bearer; the control channel needs one: pass "
		       "--bearer-file FILE (default %s/%s)",
		       harness.protected_dir, JR2_BEARER_FILE);
		goto out;
	}
	jr2_sha256(req.bearer, strlen(req.bearer), digest);
	explicit_bzero((char *)req.bearer, strlen(req.bearer));
	explicit_bzero(harness.request_buf, sizeof(harness.request_buf));
	if (!jr2_digest_equal(digest, harness.bearer_digest)) {
		refuse(c,
		       "wrong bearer; pass the file the harness was started "
		       "with (--bearer-file), default %s/%s",
		       harness.protected_dir, JR2_BEARER_FILE);
		goto out;
	}
	c->bearer_shown = true;
	if (req.op == JR2_OP_STATUS) {
		status_reply(c, req.json);
		goto out;
	}
	if (req.op != JR2_OP_EXEC) {
		refuse(c,
		       "op '%s' is not served on the control channel; use exec "
		       "or status",
		       jr2_op_name(req.op));
		goto out;
	}
	accept_exec(c, &req, fds, n_fds);
	n_fds = 0;
out:
	jr2_drop_fds(fds, n_fds);
	jr2_request_free(&req);
}

static void custodian_answer(struct conn *c);

/* R8: a request is answered only when it starts with the control Stand-in. */
static void on_custodian_readable(struct conn *c)
{
	/* recvmsg: read(2) would have the kernel close, here, what a
	 * message carries (R11). */
	int fds[JR2_SCM_MAX_FD];
	size_t n_fds = 0;
	ssize_t len = jr2_recv_msg(c->fd, c->line + c->line_len,
				   sizeof(c->line) - 1 - c->line_len, fds,
				   JR2_SCM_MAX_FD, &n_fds);
	char *newline;

	jr2_drop_fds(fds, n_fds);
	if (len == -EAGAIN)
		return;
	if (len > 0)
		c->line_len += (size_t)len;
	c->line[c->line_len] = '\0';
	newline = strchr(c->line, '\n');
	if (!newline && len > 0 && c->line_len < sizeof(c->line) - 1)
		return;
	custodian_answer(c);
}

/*
 * The answer to what the connection sent, a line or (at its deadline, or
 * when the peer ended it) what came of one; the connection ends.
 */
static void custodian_answer(struct conn *c)
{
	size_t standin_len = strlen(harness.standins.control);

	if (c->line_len > standin_len &&
	    jr2_secret_equal(c->line, harness.standins.control, standin_len) &&
	    (c->line[standin_len] == ' ' || c->line[standin_len] == '\n'))
		conn_reply(c,
			   "ok request accepted with the control Stand-in\n");
	else
		conn_reply(c, "refused the request has no control Stand-in; "
			      "only the Harness holds it\n");
	conn_close(c);
}

/*
 * A peer is a client only when its chain of parents leaves the harness's
 * reach without passing through it: it reaches pid 1, or a parent outside
 * this pid namespace (PPid 0: `docker exec`).  Programs are the harness's
 * children (CLONE_PARENT) and it is their subreaper, so even a program's
 * orphans stay below it.  Anything not known is a program's: a peer or a
 * parent gone before it is read (its descriptor may live on in a child), a
 * chain deeper than the walk.  That costs a client nothing it needs; the
 * other way, programs could hold the clients' whole budget.  pid 0 (a peer
 * of another pid namespace, which no program can be) is a client.
 */
static bool peer_is_program(pid_t pid)
{
	const pid_t self = getpid();

	if (pid <= 0)
		return false;
	for (int depth = 0; depth < 128; depth++) {
		char path[64], line[128];
		FILE *status;
		pid_t parent = -1;
		int fd;

		if (pid == self)
			return true;
		if (pid == 1)
			return false;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		/* O_NONBLOCK: a lease on the file (its owner, root, may take
		 * one) would hold this open, and the loop, for the lease
		 * break time; then it is unknown (red team). */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		status = fd < 0 ? NULL : fdopen(fd, "r");
		if (!status) {
			if (fd >= 0)
				close(fd);
			return true;
		}
		while (fgets(line, sizeof(line), status))
			if (sscanf(line, "PPid: %d", &parent) == 1)
				break;
		fclose(status);
		if (parent < 0)
			return true;
		if (parent == 0)
			return false;
		pid = parent;
	}
	return true;
}

static size_t control_of_programs(void)
{
	size_t n = 0;

	for (int i = 0; i < MAX_CONNS; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].from_program)
			n++;
	return n;
}

static size_t conns_of(enum conn_kind kind, pid_t peer)
{
	size_t n = 0;

	for (int i = 0; i < MAX_CONNS; i++)
		if (harness.conns[i].kind == kind &&
		    (!peer || harness.conns[i].peer == peer))
			n++;
	return n;
}

/*
 * Takes every waiting connection (so a full backlog never stalls the
 * socket); one over its budget is closed at once.
 */
static void on_accept(int listen_fd, enum conn_kind kind)
{
	const size_t budget =
	    kind == CONN_CONTROL ? MAX_CONTROL_CONNS : MAX_CUSTODIAN_CONNS;
	const char *name = kind == CONN_CONTROL ? "control" : "Custodian";

	for (int taken = 0; taken < 64; taken++) {
		struct ucred cred = {0};
		socklen_t len = sizeof(cred);
		int fd = accept4(listen_fd, NULL, NULL,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct conn *c = NULL;

		if (fd < 0)
			return;
		/* Refused, it is dropped: messages may wait in it (R11). */
		getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
		if (conns_of(kind, 0) >= budget) {
			say("refused a %s connection: its %zu connections are "
			    "open",
			    name, budget);
			jr2_drop_fds(&fd, 1);
			continue;
		}
		bool program =
		    kind == CONN_CONTROL && peer_is_program(cred.pid);

		/* The control socket is 0600 in a 0700 dir, but programs may
		 * be root: theirs cannot take the budget of the clients. */
		if (program && control_of_programs() >= MAX_CONTROL_PROGRAMS) {
			say("refused a control connection of pid %d: programs "
			    "hold %d already",
			    (int)cred.pid, MAX_CONTROL_PROGRAMS);
			jr2_drop_fds(&fd, 1);
			continue;
		}
		if (kind == CONN_CUSTODIAN && cred.pid > 0 &&
		    conns_of(kind, cred.pid) >= MAX_PER_PEER) {
			say("refused a Custodian connection of pid %d: it "
			    "holds %d already",
			    (int)cred.pid, MAX_PER_PEER);
			jr2_drop_fds(&fd, 1);
			continue;
		}
		for (int i = 0; i < MAX_CONNS && !c; i++)
			if (harness.conns[i].kind == CONN_FREE)
				c = &harness.conns[i];
		if (!c) { /* cannot be: the budgets add up to MAX_CONNS */
			jr2_drop_fds(&fd, 1);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->kind = kind;
		c->fd = fd;
		c->peer = cred.pid;
		c->from_program = program;
		c->state = WAIT_REQUEST;
		c->deadline_ms = jr2_now_ms() + harness.request_timeout_ms;
	}
}

/* ---- reaping ---------------------------------------------------------- */

static void program_exited(size_t i, int status)
{
	struct program p = harness.programs[i];

	harness.programs[i] = harness.programs[--harness.n_programs];
	close(p.pidfd);
	if (p.conn)
		exit_status_to_client(p.conn, status);
}

static void program_forget(size_t i)
{
	close(harness.programs[i].pidfd);
	harness.programs[i] = harness.programs[--harness.n_programs];
}

static void on_spawner_message(void)
{
	char buf[1024];
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds;
	ssize_t len;

	/* Only the pidfds its children open come this way: closed here, as
	 * the last close of a pidfd never waits. */
	while ((len = jr2_recv_msg(harness.spawner_fd, buf, sizeof(buf) - 1,
				   fds, JR2_REQ_MAX_FDS, &n_fds)) > 0) {
		unsigned long id;
		int pid, err, used = 0;
		struct conn *c;

		buf[(size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf) - 1] =
		    '\0';
		if (strncmp(buf, "started ", 8))
			jr2_close_fds(fds, n_fds);
		if (!strcmp(buf, "ready")) {
			harness.spawner_ready = true;
			log_generation();
			flush_queue();
		} else if (!strncmp(buf, "log ", 4)) {
			/* A start line of the spawner, which writes to no
			 * stderr (spawner.c): a kind of line of its own. */
			say("%s", buf + 4);
		} else if (!strncmp(buf, "fail ", 5)) {
			say("spawner generation %u could not confine itself: "
			    "%s",
			    harness.generation, buf + 5);
			for (int i = 0; i < MAX_CONNS; i++)
				if (harness.conns[i].kind == CONN_CONTROL &&
				    harness.conns[i].state == QUEUED)
					refuse(&harness.conns[i],
					       "the spawner cannot confine "
					       "itself, so nothing runs: %s",
					       buf + 5);
		} else if (sscanf(buf, "started %lu %d%n", &id, &pid, &used) ==
			       2 &&
			   pid > 0) {
			/* The program's own pidfd came with its report. */
			int pidfd = n_fds == 1 ? fds[0] : -1;

			if (pidfd >= 0)
				n_fds = 0;
			jr2_close_fds(fds, n_fds);
			c = conn_by_id(id, false);
			if (pidfd < 0 || harness.n_programs == MAX_PROGRAMS) {
				say("program pid %d of request %lu cannot be "
				    "tracked (%s); its client gets no exit "
				    "status",
				    pid, id,
				    pidfd < 0 ? "no pidfd came with its start"
					      : "too many live programs");
				if (pidfd >= 0)
					close(pidfd);
				if (c) {
					conn_reply(
					    c,
					    "error %d the harness cannot "
					    "follow '%s' (pid %d); see "
					    "its log\n",
					    EMFILE, c->cmd, pid);
					conn_close(c);
				}
				continue;
			}
			harness.programs[harness.n_programs++] =
			    (struct program){.pid = pid,
					     .pidfd = pidfd,
					     .generation = harness.generation,
					     .conn = c};
			if (c) {
				c->state = RUNNING;
				conn_reply(c, "started %d\n", pid);
			}
		} else if (sscanf(buf, "error %lu %d %n", &id, &err, &used) ==
			       2 &&
			   used > 0) {
			/* After "started" when execve itself failed. */
			c = conn_by_id(id, true);
			if (c) {
				for (size_t i = 0; i < harness.n_programs; i++)
					if (harness.programs[i].conn == c)
						program_forget(i--);
				conn_reply(c, "error %d %s\n", err, buf + used);
				conn_close(c);
			}
		} else {
			say("unexpected message from the spawner: '%.200s'",
			    buf);
		}
	}
	if (len == 0 || (len < 0 && len != -EAGAIN)) {
		/* The spawner is gone; its exit status tells the rest. */
		close(harness.spawner_fd);
		harness.spawner_fd = -1;
		harness.spawner_ready = false;
	}
}

static void spawner_died(int status)
{
	long long lived = jr2_now_ms() - harness.spawner_started_ms;
	char how[64];
	unsigned int delay;

	if (harness.spawner_fd >= 0)
		on_spawner_message(); /* answers it sent before it died */
	if (harness.spawner_fd >= 0) {
		close(harness.spawner_fd);
		harness.spawner_fd = -1;
	}
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(status));
	/* In flight: the spawner took it and never answered. */
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &harness.conns[i];

		if (c->kind != CONN_CONTROL || c->state != IN_FLIGHT)
			continue;
		conn_reply(c,
			   "error %d the spawner (generation %u, pid %d) %s "
			   "while starting '%s'; it may not have run; a new "
			   "spawner is starting, retry\n",
			   ECHILD, harness.generation, (int)harness.spawner_pid,
			   how, c->cmd);
		conn_close(c);
	}
	harness.quick_deaths =
	    (!harness.spawner_ready || lived < QUICK_DEATH_MS)
		? harness.quick_deaths + 1
		: 0;
	delay = 0;
	if (harness.quick_deaths > 0) {
		unsigned int shift = harness.quick_deaths - 1 > 16
					 ? 16
					 : harness.quick_deaths - 1;

		delay = BACKOFF_FIRST_MS << shift;
		if (delay > harness.max_backoff_ms)
			delay = harness.max_backoff_ms;
	}
	say("spawner generation %u (pid %d) %s after %lld ms; its programs "
	    "keep running; generation %u starts in %u ms",
	    harness.generation, (int)harness.spawner_pid, how, lived,
	    harness.generation + 1, delay);
	harness.spawner_pid = 0;
	harness.spawner_ready = false;
	harness.restart_at_ms = jr2_now_ms() + delay;
}

/* An exit, not a stop: what waitid's siginfo says ends a process. */
static bool is_exit(const siginfo_t *info)
{
	return info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	       info->si_code == CLD_DUMPED;
}

/* A wait status from waitid's siginfo. */
static int wait_status(const siginfo_t *info)
{
	if (info->si_code == CLD_EXITED)
		return (info->si_status & 0xff) << 8;
	return info->si_status & 0x7f; /* killed or dumped: the signal */
}

/*
 * Every exit is matched by pidfd (P7): a program's status goes to its own
 * client only.  The harness is a subreaper, so orphans of programs end here
 * too: reaped and forgotten, never recorded under a pid that a later program
 * could be given.  A program reports its start (with its pidfd) before it
 * can exit, and reports are read first, so no program is taken for one.
 */
static void reap(void)
{
	siginfo_t info;
	int status;
	pid_t pid;

	/* The spawner: stopped, or gone. */
	while (harness.spawner_pid > 0 &&
	       (pid = waitpid(harness.spawner_pid, &status,
			      WNOHANG | WUNTRACED)) == harness.spawner_pid) {
		if (!WIFSTOPPED(status)) {
			spawner_died(status);
			break;
		}
		/*
		 * Its programs may stop their spawner (a layer below it).
		 * Stopped, it would hold requests and the stdio of its
		 * clients: a new one takes over at once.
		 */
		say("spawner generation %u (pid %d) stopped by signal %d; "
		    "replacing it",
		    harness.generation, (int)pid, WSTOPSIG(status));
		kill(pid, SIGKILL);
	}
	if (harness.spawner_fd >= 0)
		on_spawner_message(); /* reports first */
	for (size_t i = 0; i < harness.n_programs;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PIDFD, (id_t)harness.programs[i].pidfd, &info,
			   WEXITED | WNOHANG) == 0 &&
		    info.si_pid != 0) {
			if (!is_exit(&info)) {
				/* Its tracer: let go (its stop was taken). */
				jr2_let_tracee_go(info.si_pid, info.si_status);
				continue; /* looked at again: its exit? */
			}
			program_exited(i, wait_status(&info));
			continue; /* the last one moved to i */
		}
		i++;
	}
	for (;;) {
		bool tracked = false;

		/* WNOWAIT: looked at, still a zombie, so its pid is its own. */
		memset(&info, 0, sizeof(info));
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) ||
		    info.si_pid == 0)
			break;
		pid = info.si_pid;
		if (!is_exit(&info)) {
			/* A stop is no exit: the tracee let go, the report
			   taken (so a failed detach is not seen again). */
			if (jr2_let_tracee_go(pid, info.si_status))
				say("cannot let go of pid %d, which made the "
				    "harness its tracer: %s",
				    (int)pid, strerror(errno));
			waitid(P_PID, (id_t)pid, &info, WSTOPPED | WNOHANG);
			continue;
		}
		if (pid == harness.spawner_pid) {
			waitpid(pid, &status, 0);
			spawner_died(status);
			continue;
		}
		for (int pass = 0; pass < 2 && !tracked; pass++) {
			if (pass && harness.spawner_fd >= 0)
				on_spawner_message(); /* its report, late */
			for (size_t i = 0; i < harness.n_programs; i++) {
				if (harness.programs[i].pid != pid)
					continue;
				memset(&info, 0, sizeof(info));
				waitid(P_PIDFD, (id_t)harness.programs[i].pidfd,
				       &info, WEXITED);
				program_exited(i, wait_status(&info));
				tracked = true;
				break;
			}
		}
		if (!tracked)
			waitpid(pid, &status, 0); /* an orphan: forgotten */
	}
}

/* ---- the loop ------------------------------------------------------- */

/*
 * What a stop removes: the sockets, and the secrets this start wrote (the
 * Stand-ins file, control.bearer unless --bearer-file named the user's own),
 * so none stays readable on disk.  The protected dir and its home stay.
 */
static void remove_run_files(void)
{
	static const char *const names[] = {
	    JR2_CONTROL_SOCKET, JR2_CUSTODIAN_SOCKET, JR2_STANDINS_FILE,
	    JR2_BEARER_FILE /* last: only when bearer_made */};
	size_t n = sizeof(names) / sizeof(names[0]) - !harness.bearer_made;
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", harness.protected_dir,
			 names[i]);
		if (unlink(path) && errno != ENOENT)
			say("cannot remove %s at the stop: %s", path,
			    strerror(errno));
	}
}

/* Whether the harness has a child, zombies reaped (reap) or not. */
static bool children_left(void)
{
	siginfo_t info;

	return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 ||
	       errno != ECHILD;
}

/*
 * signo to every program and every orphan of one; whether one was.  As
 * pid 1 of its pid namespace (a container's init) every process of the
 * namespace, as the kernel would SIGKILL them at its exit.  Else each
 * program's process group (its pid: the leader is unreaped, so the id is
 * its own), and every child of the harness: orphans reparent to it (a
 * subreaper) and only it reaps them, so a pid read from /proc is still
 * that child when signalled.
 */
static bool signal_programs(int signo)
{
	char path[64], stat_line[512];
	struct dirent *d;
	bool any = false;
	DIR *proc;

	if (getpid() == 1)
		return kill(-1, signo) == 0;
	for (size_t i = 0; i < harness.n_programs; i++)
		/* Its pidfd too: the program may have left its group. */
		any |=
		    (kill(-harness.programs[i].pid, signo) == 0) |
		    (syscall(SYS_pidfd_send_signal, harness.programs[i].pidfd,
			     signo, NULL, 0) == 0);
	proc = opendir("/proc");
	while (proc && (d = readdir(proc))) {
		long pid = strtol(d->d_name, NULL, 10);
		const char *after_comm;
		int ppid = 0, fd;
		ssize_t len;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		len = fd < 0 ? -1 : read(fd, stat_line, sizeof(stat_line) - 1);
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;
		stat_line[len] = '\0';
		/* "pid (comm) state ppid": comm may hold ") ". */
		after_comm = strrchr(stat_line, ')');
		if (after_comm && sscanf(after_comm, ") %*c %d", &ppid) == 1 &&
		    ppid == getpid() && kill((pid_t)pid, signo) == 0)
			any = true;
	}
	if (proc)
		closedir(proc);
	return any;
}

/* Reaps, reporting each exit to its client, until no child is left or
 * ms passed; true when none is left.  Another stop signal ends it early. */
static bool wait_for_children(long long ms, bool *hurried)
{
	long long deadline = jr2_now_ms() + ms;

	for (;;) {
		struct signalfd_siginfo info;
		struct pollfd pfd = {.fd = harness.signal_fd, .events = POLLIN};
		long long left;

		reap();
		if (!children_left())
			return true;
		left = deadline - jr2_now_ms();
		if (left <= 0 || *hurried)
			return false;
		poll(&pfd, 1, (int)(left > 100 ? 100 : left));
		while (read(harness.signal_fd, &info, sizeof(info)) ==
		       sizeof(info))
			if (info.ssi_signo != SIGCHLD)
				*hurried = true;
	}
}

/*
 * A stop: no new connection, the spawner killed, SIGTERM to every program,
 * up to --stop-grace-ms for them to exit, SIGKILL to the rest; each exit is
 * still reported to its client.  Then the files go (remove_run_files), and
 * the harness exits 0.
 */
static void shut_down(int signo)
{
	long long started = jr2_now_ms();
	bool hurried = false;

	say("stopping on signal %d: SIGTERM to the programs, SIGKILL to those "
	    "left after %u ms",
	    signo, harness.stop_grace_ms);
	remove_run_files();
	close(harness.control_fd);
	close(harness.custodian_fd);
	close(harness.abstract_fd);
	if (harness.spawner_pid > 0) {
		kill(harness.spawner_pid, SIGKILL);
		waitpid(harness.spawner_pid, NULL, 0);
		harness.spawner_pid = 0;
	}
	if (harness.spawner_fd >= 0) {
		on_spawner_message(); /* start reports it sent: programs */
		close(harness.spawner_fd);
		harness.spawner_fd = -1;
	}
	signal_programs(SIGTERM);
	if (!wait_for_children(harness.stop_grace_ms, &hurried)) {
		signal_programs(SIGKILL);
		say("programs left after %lld ms%s: SIGKILL",
		    jr2_now_ms() - started,
		    hurried ? " (a second stop signal came)" : "");
		/* The kernel kills at once; a task in D state may lag. */
		wait_for_children(1000, &(bool){false});
	}
	say("stopped after %lld ms; %s", jr2_now_ms() - started,
	    children_left() ? "some programs are still exiting"
			    : "no program is left");
	/* Written if the log's reader takes it soon; the exit waits no more. */
	jr2_log_flush(JR2_LOG_EXIT_MS);
	exit(0);
}

static void on_signal(void)
{
	struct signalfd_siginfo info;

	while (read(harness.signal_fd, &info, sizeof(info)) == sizeof(info)) {
		if (info.ssi_signo == SIGCHLD)
			reap();
		else
			shut_down((int)info.ssi_signo);
	}
	reap(); /* SIGCHLDs merge: always look */
}

/*
 * R11: one read of a peer may bring JR2_SCM_MAX_FD descriptors, and closing
 * its connection drops it and a request's own; where the table has no room
 * for them (a low RLIMIT_NOFILE, what was dropped not closed yet: no thread
 * could be had), the kernel would release the rest in this task, a
 * lingering socket's last close among them.  Then the peers wait.
 */
#define PEER_READ_ROOM (JR2_SCM_MAX_FD + 1 + JR2_REQ_MAX_FDS)
#define PEER_PAUSE_MS  100

static bool peer_room(size_t *room)
{
	*room = jr2_fd_room();
	if (*room >= PEER_READ_ROOM)
		return true;
	jr2_drop_flush();
	*room = jr2_fd_room();
	if (*room >= PEER_READ_ROOM)
		return true;
	say("no room for what peers may send: %zu descriptors free of "
	    "RLIMIT_NOFILE, %d needed; their connections wait (raise the "
	    "limit: ulimit -n)",
	    *room, PEER_READ_ROOM);
	return false;
}

static void expire_waiting(long long now)
{
	bool room_asked = false;
	size_t room = 0;

	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &harness.conns[i];

		if (c->kind == CONN_FREE || now < c->deadline_ms)
			continue;
		if (c->state == IN_FLIGHT) {
			/*
			 * A stopped spawner (its programs may SIGSTOP it, even
			 * before it reported their own start) must not hang a
			 * client: answer, and replace the spawner.
			 */
			conn_reply(c,
				   "error %d the spawner (generation %u, pid "
				   "%d) did not answer within %d ms while "
				   "starting '%s'; it is replaced, retry\n",
				   ETIMEDOUT, harness.generation,
				   (int)harness.spawner_pid, SPAWN_TIMEOUT_MS,
				   c->cmd);
			conn_close(c);
			if (harness.spawner_pid > 0)
				kill(harness.spawner_pid, SIGKILL);
			continue;
		}
		if (c->state != WAIT_REQUEST)
			continue;
		/*
		 * What came by the deadline is read first, where there is room
		 * for what it may carry: a round made long by other peers (a
		 * flood of deep ones, each a walk up its parents) refused
		 * requests sent in time (review).
		 */
		if (!room_asked) {
			room_asked = true;
			peer_room(&room);
		}
		if (room >= PEER_READ_ROOM) {
			room -= PEER_READ_ROOM;
			if (c->kind == CONN_CONTROL)
				on_control_readable(c);
			else
				on_custodian_readable(c);
			if (c->kind == CONN_FREE || c->state != WAIT_REQUEST)
				continue;
		}
		if (c->kind == CONN_CONTROL)
			refuse(c,
			       "no request within %u ms of connecting; send "
			       "the request right after connecting",
			       harness.request_timeout_ms);
		else
			/* Answered from what came, never left: a read that
			 * found nothing (EAGAIN) keeps the connection, its
			 * deadline past, and the loop would poll with timeout
			 * 0 while the peer waits (red team: a busy loop, a
			 * slot held). */
			custodian_answer(c);
	}
}

int serve(const struct serve_options *opts)
{
	enum { FIXED = 5 };
	struct pollfd pfd[FIXED + MAX_CONNS];
	struct conn *polled[MAX_CONNS];
	char frozen[1024];

	start_check(opts);
	start_act(opts);
	/* An exit on an error leaves no secret on disk either. */
	die_set_cleanup(remove_run_files);
	frozen_folders(frozen, sizeof(frozen));
	say("serving; protected dir %s, pid %d, ABI %d; frozen folders: %s",
	    harness.protected_dir, (int)getpid(), harness.abi.in_force, frozen);
	for (size_t i = 0; i < harness.plan.warnings.n; i++)
		say("warning: %s", harness.plan.warnings.v[i]);
	start_spawner();

	for (;;) {
		long long now = jr2_now_ms();
		int timeout = -1, n = FIXED, ready, log_wait, err;
		size_t room;
		bool peers;

		/* What the last round dropped closes now (R11, channel.h). */
		err = jr2_drop_flush();
		if (err)
			say("cannot make a thread to close what peers sent: "
			    "%s; "
			    "kept for the next round",
			    strerror(-err));
		if (harness.spawner_pid == 0 && harness.restart_at_ms &&
		    now >= harness.restart_at_ms)
			start_spawner();
		if (harness.spawner_pid == 0 && harness.restart_at_ms)
			timeout = (int)(harness.restart_at_ms - now);
		log_tick(now);
		log_wait = log_wait_ms(now);
		/* The count of a flood's dropped lines, when its window ends.
		 */
		if (log_wait >= 0 && (timeout < 0 || timeout > log_wait))
			timeout = log_wait;
		pfd[0] =
		    (struct pollfd){.fd = harness.signal_fd, .events = POLLIN};
		pfd[1] =
		    (struct pollfd){.fd = harness.control_fd, .events = POLLIN};
		pfd[2] = (struct pollfd){.fd = harness.custodian_fd,
					 .events = POLLIN};
		pfd[3] = (struct pollfd){.fd = harness.abstract_fd,
					 .events = POLLIN};
		pfd[4] = (struct pollfd){
		    .fd = harness.spawner_fd,
		    .events =
			(short)(POLLIN | (harness.spawner_ready && queue_waits()
					      ? POLLOUT
					      : 0))};
		/* No room for what peers may send: they wait (R11). */
		room = 0;
		peers = peer_room(&room);
		if (!peers && (timeout < 0 || timeout > PEER_PAUSE_MS))
			timeout = PEER_PAUSE_MS;
		for (int i = 1; i <= 3; i++)
			pfd[i].events = peers ? POLLIN : 0;
		for (int i = 0; i < MAX_CONNS && peers; i++) {
			struct conn *c = &harness.conns[i];

			if (c->kind == CONN_FREE)
				continue;
			if (c->state == WAIT_REQUEST || c->state == IN_FLIGHT) {
				int left = (int)(c->deadline_ms - now);

				if (left < 0)
					left = 0;
				if (timeout < 0 || left < timeout)
					timeout = left;
			}
			polled[n - FIXED] = c;
			pfd[n++] =
			    (struct pollfd){.fd = c->fd, .events = POLLIN};
		}
		ready = poll(pfd, (nfds_t)n, timeout);
		if (ready < 0 && errno != EINTR)
			die(1, "poll failed in", "the main loop");
		if (ready <= 0) {
			expire_waiting(jr2_now_ms());
			continue;
		}
		/* Reports first: a program's report precedes its exit. */
		if ((pfd[4].revents & ~POLLOUT) && harness.spawner_fd >= 0)
			on_spawner_message();
		if (pfd[0].revents)
			on_signal();
		if ((pfd[4].revents & POLLOUT) && harness.spawner_fd >= 0)
			flush_queue();
		for (int i = FIXED; i < n; i++) {
			struct conn *c = polled[i - FIXED];

			if (!pfd[i].revents || c->kind == CONN_FREE ||
			    c->fd != pfd[i].fd)
				continue;
			if (room < PEER_READ_ROOM && !peer_room(&room))
				break; /* the rest wait for the next round */
			room -= PEER_READ_ROOM;
			if (c->kind == CONN_CONTROL)
				on_control_readable(c);
			else
				on_custodian_readable(c);
		}
		if (pfd[1].revents)
			on_accept(harness.control_fd, CONN_CONTROL);
		if (pfd[2].revents)
			on_accept(harness.custodian_fd, CONN_CUSTODIAN);
		if (pfd[3].revents)
			on_accept(harness.abstract_fd, CONN_CUSTODIAN);
		expire_waiting(jr2_now_ms());
	}
}
