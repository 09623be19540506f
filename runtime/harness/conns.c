// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connections: the control channel's (a request with the bearer, then
 * exec or status) and the Custodian's (a line that starts with the control
 * Stand-in), their budgets, their deadlines, and the queue of execs that
 * wait for a ready spawner.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "confine_step.h"
#include "digest.h"
#include "env.h"
#include "log.h"
#include "policy.h"
#include "policy_internal.h"
#include "request.h"
#include "serve.h"
#include "standins.h"

/*
 * R11: every descriptor a client or a program passed is dropped (channel.h),
 * never closed here: the loop closes them with jr2_drop_flush(), where no
 * last close can hold it.  So is a connection that showed no bearer, with
 * its unread messages and what they carry; a client's own connection (no
 * program holds it) closes here.
 */
void conn_close(struct conn *c)
{
	/* A program whose client's connection closes while it runs is
	 * cancelled: its exit status has no one left to reach. */
	for (size_t i = 0; i < harness.n_programs; i++)
		if (harness.programs[i].conn == c)
			cancel_program(i, "its client's connection closed");
	for (size_t i = 0; i < c->n_fds; i++)
		if (c->fds[i] >= 0)
			jr2_drop_fds(&c->fds[i], 1);
	c->n_fds = 0;
	jr2_msg_free(&c->spawn);
	if (c->frame) {
		/* It may hold a bearer. */
		explicit_bzero(c->frame,
			       JR2_FRAME_HEAD_MAX + JR2_REQ_MAX_BYTES);
		free(c->frame);
	}
	if (c->bearer_shown)
		close(c->fd);
	else
		jr2_drop_fds(&c->fd, 1);
	memset(c, 0, sizeof(*c));
	c->kind = CONN_FREE;
}

/*
 * Writes all of buf to a stream connection (non-blocking): what the socket
 * does not take at once waits up to the request timeout for room.
 */
static void stream_write(struct conn *c, const char *buf, size_t len)
{
	long long deadline = jr2_now_ms() + harness.request_timeout_ms;

	while (len > 0) {
		ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
		struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
		long long left = deadline - jr2_now_ms();

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN || left <= 0 ||
		    poll(&pfd, 1, (int)left) <= 0)
			return; /* a client that left misses it */
	}
}

/*
 * One answer, whole: one SEQPACKET message, or a frame of the stream
 * socket.  A SEQPACKET message larger than the socket's send buffer is
 * refused (EMSGSIZE): the buffer grows for it first.
 */
void conn_send(struct conn *c, const char *buf, size_t len)
{
	char head[JR2_FRAME_HEAD_MAX + 8];
	int size = (int)(len + 4096);

	if (c->kind == CONN_CUSTODIAN) {
		if (write(c->fd, buf, len) < 0)
			return;
		return;
	}
	/* Room for the whole answer at once (a status may be long): the
	 * loop does not wait on a client that reads slowly. */
	if (len > 2048)
		setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (c->stream) {
		snprintf(head, sizeof(head), "%zu\n", len);
		stream_write(c, head, strlen(head));
		stream_write(c, buf, len);
		return;
	}
	if (jr2_send_msg(c->fd, buf, len, NULL, 0) == -EMSGSIZE)
		say("an answer of %zu bytes is larger than the control "
		    "socket's send buffer (net.core.wmem_max); raise it",
		    len);
}

/* One answer to a client; a client that left just misses it. */
void conn_reply(struct conn *c, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	conn_send(c, buf, (size_t)len);
}

/* A refusal ends the connection; the harness keeps serving. */
void refuse(struct conn *c, const char *fmt, ...)
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
struct conn *conn_by_id(unsigned long id, bool running_too)
{
	for (int i = 0; i < harness.conn_slots; i++) {
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
	/* Larger than the channel's buffer: no later send or spawner takes
	 * it, so the client is told (conn_close drops its descriptors). */
	if (ret == -EMSGSIZE) {
		refuse(c,
		       "the request with its environment is %zu bytes, more "
		       "than the spawner's channel takes here; pass fewer "
		       "arguments, start the harness with a smaller "
		       "environment, or give it CAP_NET_ADMIN",
		       c->spawn.len);
		return;
	}
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

bool queue_waits(void)
{
	for (int i = 0; i < harness.conn_slots; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].state == QUEUED)
			return true;
	return false;
}

void flush_queue(void)
{
	for (int i = 0; i < harness.conn_slots && harness.spawner_ready; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].state == QUEUED)
			send_to_spawner(&harness.conns[i]);
}

void exit_status_to_client(struct conn *c, int status)
{
	/* The signal is said apart: a program can exit 143 itself. */
	if (WIFEXITED(status))
		conn_reply(c, "exit %d\n", WEXITSTATUS(status));
	else
		conn_reply(c, "exit %d signal %d\n", 128 + WTERMSIG(status),
			   WTERMSIG(status));
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
	if (n_fds < 3 && !c->stream) {
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
		struct jr2_strv env = {0};

		/* Its names are unique already (jr2_env_compose_confined). */
		for (size_t i = 0; i < harness.confined_env.n; i++)
			jr2_strv_add(&env, harness.confined_env.v[i]);
		for (size_t i = 0; i < req->n_secrets; i++)
			jr2_env_set(
			    &env, req->secrets[i],
			    jr2_standin_of(&harness.standins, req->secrets[i]));
		for (size_t i = 0; i < env.n; i++) {
			jr2_msg_field(&c->spawn, "env", env.v[i]);
			if (i >= harness.confined_env.n)
				explicit_bzero(env.v[i], strlen(env.v[i]));
		}
		jr2_strv_free(&env);
	}
	if (c->spawn.failed || c->spawn.len > JR2_SPAWN_MAX_BYTES) {
		jr2_drop_fds(fds, n_fds);
		refuse(c,
		       "the request with its environment is larger than %d "
		       "bytes; pass fewer arguments",
		       JR2_SPAWN_MAX_BYTES);
		return;
	}
	if (c->stream) {
		/* Its stdio comes as three more connections that name it by
		 * a token of its own, given here once. */
		uint8_t raw[JR2_TOKEN_BYTES];

		if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
			refuse(c, "cannot draw a token (getrandom: %s); retry",
			       strerror(errno));
			return;
		}
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(c->token + 2 * i, 3, "%02x", raw[i]);
		explicit_bzero(raw, sizeof(raw));
		c->fds[0] = c->fds[1] = c->fds[2] = -1;
		c->n_fds = 3;
		c->state = ATTACHING;
		c->deadline_ms = jr2_now_ms() + harness.request_timeout_ms;
		conn_reply(c, "attach %s\n", c->token);
		return;
	}
	memcpy(c->fds, fds, n_fds * sizeof(*fds));
	c->n_fds = n_fds;
	c->state = QUEUED;
	if (harness.spawner_ready)
		send_to_spawner(c);
}

/*
 * An attach: connection `a` becomes stdin, stdout or stderr of the stream
 * exec whose token it names.  Its socket moves to that exec (the harness
 * reads nothing more from it: what follows the frame is the program's),
 * and its own slot is freed without a close.
 */
static void on_attach(struct conn *a, const struct jr2_request *req)
{
	struct conn *c = NULL;

	for (int i = 0; i < harness.conn_slots && !c; i++) {
		struct conn *e = &harness.conns[i];

		if (e->kind == CONN_CONTROL && e->state == ATTACHING &&
		    jr2_secret_equal(e->token, req->token, JR2_TOKEN_HEX))
			c = e;
	}
	if (!c) {
		refuse(a,
		       "no stream exec waits for this token; send the "
		       "token its 'attach' answer gave, while its "
		       "connection is open, within %u ms",
		       harness.request_timeout_ms);
		return;
	}
	if (c->fds[req->stdio] >= 0) {
		refuse(a,
		       "fd %d of that exec is attached already; attach "
		       "each of 0, 1 and 2 once",
		       req->stdio);
		return;
	}
	/* The program's stdio blocks, as a pipe does: accept4 made the
	 * socket's file O_NONBLOCK, and the program shares that file. */
	if (fcntl(a->fd, F_SETFL, fcntl(a->fd, F_GETFL) & ~O_NONBLOCK)) {
		refuse(a, "cannot make the stdio socket blocking: %s; retry",
		       strerror(errno));
		return;
	}
	/* No descriptor reaches the program through its stdio (R10): the
	 * spawner's filter keeps SO_PASSRIGHTS as it is, so it is off here. */
	(void)jr2_fd_refuse_rights(a->fd);
	c->fds[req->stdio] = a->fd;
	free(a->frame);
	memset(a, 0, sizeof(*a));
	a->kind = CONN_FREE;
	if (c->fds[0] < 0 || c->fds[1] < 0 || c->fds[2] < 0)
		return;
	explicit_bzero(c->token, sizeof(c->token));
	c->state = QUEUED;
	if (harness.spawner_ready)
		send_to_spawner(c);
}

/* A signal to the program of request `id`, for a client with the bearer. */
static void on_signal_request(struct conn *c, const struct jr2_request *req)
{
	unsigned long id = strtoul(req->id, NULL, 10);

	for (size_t i = 0; i < harness.n_programs; i++) {
		if (harness.programs[i].id != id)
			continue;
		signal_program(&harness.programs[i], req->signo);
		conn_reply(c, "signalled %lu %d\n", id, req->signo);
		conn_close(c);
		return;
	}
	conn_reply(c,
		   "error %d no program of request %lu runs: it ended, or no "
		   "'started' answer gave that id\n",
		   ESRCH, id);
	conn_close(c);
}

/*
 * Reads the stream connection's frame, never past its end (an attach's
 * socket goes on as a program's stdin).  As jr2_control_take: 0 with *req,
 * -EAGAIN, 1 at the end, or -1 with *err.
 */
static int stream_take(struct conn *c, struct jr2_request *req,
		       struct jr2_err *err)
{
	const size_t cap = JR2_FRAME_HEAD_MAX + JR2_REQ_MAX_BYTES;
	int ret;

	memset(req, 0, sizeof(*req));
	if (!c->frame)
		c->frame = jr2_xrealloc(NULL, cap);
	for (;;) {
		/* The head a byte at a time: its end is not known before. */
		size_t want = c->frame_head ? c->frame_head + c->frame_body -
						  c->frame_have
					    : 1;
		ssize_t n =
		    jr2_recv_stream(c->fd, c->frame + c->frame_have, want);

		if (n == -EAGAIN)
			return -EAGAIN;
		if (n == -EPROTO)
			return jr2_fail(err, EPROTO, true,
					"stream: descriptors came with a "
					"frame; the stream socket takes none");
		if (n <= 0)
			return 1;
		c->frame_have += (size_t)n;
		if (!c->frame_head) {
			ret = jr2_frame_head(c->frame, c->frame_have,
					     JR2_REQ_MAX_BYTES, &c->frame_body,
					     err);
			if (ret == -EAGAIN)
				continue;
			if (ret)
				return -1;
			c->frame_head = c->frame_have;
			continue;
		}
		if (c->frame_have < c->frame_head + c->frame_body)
			continue;
		ret = jr2_request_parse(c->frame + c->frame_head, c->frame_body,
					JR2_REQ_MAX_BYTES, req, err);
		explicit_bzero(c->frame, c->frame_have);
		c->frame_have = c->frame_head = c->frame_body = 0;
		return ret ? -1 : 0;
	}
}

void on_control_readable(struct conn *c)
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
		char scratch[64];

		if (c->stream)
			ret = (int)jr2_recv_stream(c->fd, scratch,
						   sizeof(scratch));
		else
			ret = (int)jr2_recv_msg(c->fd, scratch, 1, fds,
						JR2_REQ_MAX_FDS, &n_fds);
		jr2_drop_fds(fds, n_fds);
		if (ret == 0 || (ret < 0 && ret != -EAGAIN && ret != -EPROTO))
			conn_close(c);
		return;
	}
	/* Every descriptor of a refused or empty message is dropped there. */
	harness.request_buf_used = true;
	if (c->stream)
		ret = stream_take(c, &req, &err);
	else
		ret = jr2_control_take(c->fd, harness.request_buf,
				       JR2_REQ_MAX_BYTES, &req, fds, &n_fds,
				       &err);
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
	if (req.op == JR2_OP_ATTACH && c->stream) {
		on_attach(c, &req);
		goto out;
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
		size_t len;
		char *answer = status_answer(req.json, &len);

		conn_send(c, answer, len);
		free(answer);
		conn_close(c);
		goto out;
	}
	if (req.op == JR2_OP_SIGNAL) {
		on_signal_request(c, &req);
		goto out;
	}
	if (req.op != JR2_OP_EXEC) {
		refuse(c,
		       "op '%s' is not served on the %s; use exec, status or "
		       "signal%s",
		       jr2_op_name(req.op),
		       c->stream ? "stream socket" : "control channel",
		       c->stream ? " (attach: on a connection of its own)"
				 : "");
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
void on_custodian_readable(struct conn *c)
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
 * other way, programs could hold the clients' whole budget.  The Harness
 * process (serve -- CMD) and its descendants are clients.  pid 0 (a peer
 * of another pid namespace, which no program can be) is a client.
 */
static bool peer_is_program(pid_t pid)
{
	const pid_t self = getpid();

	if (pid <= 0)
		return false;
	for (int depth = 0; depth < 128; depth++) {
		pid_t parent;

		if (pid == self)
			return true;
		/* The Harness process and what it starts are clients. */
		if (pid == harness.process_pid)
			return false;
		if (pid == 1)
			return false;
		/* Unknown (gone, or a lease held: EWOULDBLOCK): a program. */
		parent = proc_parent(pid);
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

	for (int i = 0; i < harness.conn_slots; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].from_program)
			n++;
	return n;
}

static size_t conns_of(enum conn_kind kind, pid_t peer)
{
	size_t n = 0;

	for (int i = 0; i < harness.conn_slots; i++)
		if (harness.conns[i].kind == kind &&
		    (!peer || harness.conns[i].peer == peer))
			n++;
	return n;
}

/*
 * Takes every waiting connection (so a full backlog never stalls the
 * socket); one over its budget is closed at once.
 */
void on_accept(int listen_fd, enum conn_kind kind, bool stream)
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
		if (c - harness.conns >= harness.conn_slots)
			harness.conn_slots = (int)(c - harness.conns) + 1;
		memset(c, 0, sizeof(*c));
		c->kind = kind;
		c->fd = fd;
		c->peer = cred.pid;
		c->from_program = program;
		c->stream = stream;
		c->state = WAIT_REQUEST;
		c->deadline_ms = jr2_now_ms() + harness.request_timeout_ms;
	}
}

bool peer_room(size_t *room)
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

void expire_waiting(long long now)
{
	bool room_asked = false;
	size_t room = 0;

	for (int i = 0; i < harness.conn_slots; i++) {
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
		if (c->state == ATTACHING) {
			refuse(c,
			       "stdin, stdout and stderr did not all attach "
			       "within %u ms of the 'attach' answer; open the "
			       "three connections at once",
			       harness.request_timeout_ms);
			continue;
		}
		if (c->state != WAIT_REQUEST)
			continue;
		/*
		 * What came by the deadline is read first, where there is room
		 * for what it may carry: a round made long by other peers (a
		 * flood of deep ones, each a walk up its parents) must not
		 * refuse a request sent in time.
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
			 * 0 while the peer waits: a busy loop holding a
			 * slot. */
			custodian_answer(c);
	}
}
