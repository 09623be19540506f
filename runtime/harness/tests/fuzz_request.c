// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the control channel's intake (`make fuzz`): each input
 * is read as the head of a stream socket's frame (jr2_frame_head), then sent
 * as one SOCK_SEQPACKET message with descriptors attached (its first
 * byte says how many, 0 to 20, so more than the 16 allowed too) and taken by
 * jr2_control_take(), the code the harness runs.  Any bytes must give either
 * a request whose fields satisfy the parser's own rules (re-encoded, it
 * parses the same) or a refusal with a message; never a crash, an
 * out-of-bounds read (ASan, UBSan), a leak of memory (LeakSanitizer) or of a
 * descriptor: every descriptor of a refused or empty message is closed, and
 * the process holds as many descriptors after each input as before.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channel.h"
#include "request.h"

static void check_accepted(const struct jr2_request *req)
{
	struct jr2_request again;
	struct jr2_msg msg;
	struct jr2_err err = {0};

	if (req->op == JR2_OP_NONE ||
	    ((req->op == JR2_OP_EXEC || req->op == JR2_OP_SPAWN) &&
	     !req->argc) ||
	    (req->op == JR2_OP_SIGNAL && (!req->id || !req->signo)) ||
	    (req->op == JR2_OP_ATTACH && (!req->token || req->stdio < 0)))
		abort();
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", jr2_op_name(req->op));
	if (req->bearer)
		jr2_msg_field(&msg, "bearer", req->bearer);
	if (req->cwd)
		jr2_msg_field(&msg, "cwd", req->cwd);
	if (req->id)
		jr2_msg_field(&msg, "id", req->id);
	if (req->json)
		jr2_msg_field(&msg, "json", "1");
	if (req->token)
		jr2_msg_field(&msg, "token", req->token);
	if (req->signo) {
		char number[16];

		snprintf(number, sizeof(number), "%d", req->signo);
		jr2_msg_field(&msg, "signal", number);
	}
	if (req->stdio >= 0)
		jr2_msg_field(&msg, "fd",
			      req->stdio == 0	? "0"
			      : req->stdio == 1 ? "1"
						: "2");
	for (size_t i = 0; i < req->argc; i++)
		jr2_msg_field(&msg, "arg", req->argv[i]);
	for (size_t i = 0; i < req->envc; i++)
		jr2_msg_field(&msg, "env", req->envp[i]);
	for (size_t i = 0; i < req->n_secrets; i++)
		jr2_msg_field(&msg, "secret", req->secrets[i]);
	if (msg.failed ||
	    jr2_request_parse(msg.buf, msg.len, msg.len, &again, &err))
		abort();
	if (again.argc != req->argc || again.envc != req->envc ||
	    again.n_secrets != req->n_secrets || again.op != req->op ||
	    again.signo != req->signo || again.stdio != req->stdio)
		abort();
	for (size_t i = 0; i < req->argc; i++)
		if (strcmp(again.argv[i], req->argv[i]))
			abort();
	jr2_request_free(&again);
	jr2_msg_free(&msg);
}

static int open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		abort();
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static int pair[2] = {-1, -1};

/* One message with n descriptors (up to 20: more than the channel takes). */
static void send_raw(const void *data, size_t size, const int *fds, size_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 20)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = (void *)data, .iov_len = size};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (n) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n);
	}
	if (sendmsg(pair[0], &msg, 0) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[JR2_REQ_MAX_BYTES + 1];
	int sent[20], fds[JR2_REQ_MAX_FDS], before, ret;
	size_t n_sent = 0, n_fds = 0;
	struct jr2_request req;
	struct jr2_err err = {0};

	if (pair[0] < 0) {
		int room = 2 * JR2_REQ_MAX_BYTES + 4096;

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair))
			abort();
		setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &room, sizeof(room));
		setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &room, sizeof(room));
	}
	if (size > 0) {
		n_sent = data[0] % 21;
		data++;
		size--;
	}
	if (size > 2 * JR2_REQ_MAX_BYTES)
		return 0;
	/* The stream socket's frame head, on the same bytes: a length it
	 * accepts is within the bound and ends at a newline. */
	{
		size_t body = 0;
		int head = jr2_frame_head((const char *)data, size,
					  JR2_REQ_MAX_BYTES, &body, &err);

		if (head == 0 && (body == 0 || body > JR2_REQ_MAX_BYTES ||
				  !memchr(data, '\n', size < 9 ? size : 9)))
			abort();
		if (head == -1 && !err.msg[0])
			abort();
		if (head == -EAGAIN && size >= JR2_FRAME_HEAD_MAX)
			abort();
		memset(&err, 0, sizeof(err));
	}
	before = open_fds();
	for (size_t i = 0; i < n_sent; i++)
		if ((sent[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			abort();
	send_raw(data, size, sent, n_sent);
	jr2_close_fds(sent, n_sent);
	ret = jr2_control_take(pair[1], buf, JR2_REQ_MAX_BYTES, &req, fds,
			       &n_fds, &err);
	if (ret == 0) {
		check_accepted(&req);
		jr2_request_free(&req);
		jr2_close_fds(fds, n_fds);
	} else if (ret == -1) {
		if (!err.msg[0] || !err.bad_input || req.storage || n_fds)
			abort();
	} else if (ret != 1 || n_fds) {
		abort(); /* -EAGAIN cannot be: the message was sent */
	}
	/* Not one descriptor more than before this input. */
	if (open_fds() != before)
		abort();
	return 0;
}
