// SPDX-License-Identifier: GPL-2.0-only
/* send/recv of one message with descriptors (see channel.h). */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channel.h"
#include "policy.h"
#include "request.h"

int jr2_send_msg(int sock, const void *buf, size_t len, const int *fds,
		 size_t n_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * JR2_REQ_MAX_FDS)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (n_fds > JR2_REQ_MAX_FDS)
		return -E2BIG;
	if (n_fds) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n_fds);
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

ssize_t jr2_recv_msg(int sock, void *buf, size_t cap, int *fds, size_t max_fds,
		     size_t *n_fds)
{
	union {
		/* Room for more than allowed, so that extras are seen and
		 * closed. */
		char buf[CMSG_SPACE(sizeof(int) * 64)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = cap};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	bool too_many = false;
	ssize_t len;

	*n_fds = 0;
	do {
		len = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_TRUNC);
	} while (len < 0 && errno == EINTR);
	if (len < 0)
		return -errno;
	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg); cmsg;
	     cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		size_t count;

		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int),
			       sizeof(int));
			if (*n_fds < max_fds) {
				fds[(*n_fds)++] = fd;
			} else {
				close(fd);
				too_many = true;
			}
		}
	}
	if (too_many || (msg.msg_flags & MSG_CTRUNC)) {
		jr2_close_fds(fds, *n_fds);
		*n_fds = 0;
		return -ETOOMANYREFS;
	}
	/* With MSG_TRUNC, len is the whole message's length, even if longer. */
	return len;
}

void jr2_close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

void jr2_protected_dir_of(const char *root, char *out, size_t size)
{
	size_t len = strlen(root);

	while (len > 0 && root[len - 1] == '/')
		len--;
	snprintf(out, size, "%.*s%s", (int)len, root, JR2_DEFAULT_PROTECTED);
}

int jr2_control_take(int sock, char *buf, size_t cap, struct jr2_request *req,
		     int *fds, size_t *n_fds, struct jr2_err *err)
{
	ssize_t len = jr2_recv_msg(sock, buf, cap, fds, JR2_REQ_MAX_FDS, n_fds);

	memset(req, 0, sizeof(*req));
	if (len == -EAGAIN)
		return -EAGAIN;
	if (len == -ETOOMANYREFS) {
		err->code = ETOOMANYREFS;
		err->bad_input = true;
		snprintf(err->msg, sizeof(err->msg),
			 "more than %d descriptors passed; pass stdin, "
			 "stdout, stderr and at most %d more",
			 JR2_REQ_MAX_FDS, JR2_REQ_MAX_FDS - 3);
		return -1;
	}
	if (len <= 0) {
		/* An empty message may carry descriptors too. */
		jr2_close_fds(fds, *n_fds);
		*n_fds = 0;
		return 1;
	}
	if (jr2_request_parse(buf, (size_t)len, cap, req, err)) {
		jr2_close_fds(fds, *n_fds);
		*n_fds = 0;
		return -1;
	}
	return 0;
}
