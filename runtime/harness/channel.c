// SPDX-License-Identifier: GPL-2.0-only
/* send/recv of one message with descriptors (see channel.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "confine_step.h"
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

static ssize_t recv_with(int sock, void *buf, size_t cap, int *fds,
			 size_t max_fds, size_t *n_fds, int flags);

ssize_t jr2_recv_msg(int sock, void *buf, size_t cap, int *fds, size_t max_fds,
		     size_t *n_fds)
{
	return recv_with(sock, buf, cap, fds, max_fds, n_fds, MSG_TRUNC);
}

ssize_t jr2_recv_stream(int sock, void *buf, size_t cap)
{
	int fds[1];
	size_t n_fds = 0;
	ssize_t len = recv_with(sock, buf, cap, fds, 0, &n_fds, 0);

	/* Descriptors have no place on the stream: every one is dropped. */
	return len == -ETOOMANYREFS ? -EPROTO : len;
}

static ssize_t recv_with(int sock, void *buf, size_t cap, int *fds,
			 size_t max_fds, size_t *n_fds, int flags)
{
	union {
		/* Room for the kernel's most: what did not fit, the kernel
		 * would close here itself (R11, jr2_drop_fds). */
		char buf[CMSG_SPACE(sizeof(int) * JR2_SCM_MAX_FD)];
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
		len = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
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
				jr2_drop_fds(&fd, 1);
				too_many = true;
			}
		}
	}
	if (too_many || (msg.msg_flags & MSG_CTRUNC)) {
		jr2_drop_fds(fds, *n_fds);
		*n_fds = 0;
		return -ETOOMANYREFS;
	}
	/* With MSG_TRUNC (a SEQPACKET message), len is the whole message's
	 * length, even if longer. */
	return len;
}

void jr2_close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * Kept until jr2_drop_flush(), which also runs every DROP_FLUSH_AT.  The
 * list grows as it must (the descriptors are in the table already; the
 * table's room is jr2_fd_room's): only when memory fails is one closed here.
 */
#define DROP_FLUSH_AT 1024
#define HOLDER_STACK  (256 * 1024)

static int *dropped;
static size_t n_dropped, dropped_cap;

/* Holds the old table until this process's copies are closed, then exits
 * with it: the last copies close as it exits. */
static void *drop_holder(void *arg)
{
	char byte;

	while (read((int)(intptr_t)arg, &byte, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* close_range(2) of [from, ~0] but two descriptors (-1: none). */
static void close_from_but(int from, int keep1, int keep2)
{
	int first = keep1 < keep2 ? keep1 : keep2;
	int second = keep1 < keep2 ? keep2 : keep1;
	unsigned int start = (unsigned int)from;

	for (int pass = 0; pass < 2; pass++) {
		int keep = pass ? second : first;

		if (keep < 0 || (unsigned int)keep < start)
			continue;
		if ((unsigned int)keep > start)
			syscall(SYS_close_range, start, (unsigned int)keep - 1,
				0);
		start = (unsigned int)keep + 1;
	}
	syscall(SYS_close_range, start, ~0U, 0);
}

/*
 * Closes fds[0..n) (fds NULL: every descriptor from `from` up but `keep`)
 * in a copy of the descriptor table (unshare(CLONE_FILES)) while a new
 * thread keeps the old one, whose copies then close as that thread exits.
 * join: returns once it is gone.  -errno: nothing closed.
 */
static int close_held(const int *fds, size_t n, int from, int keep, bool join)
{
	pthread_attr_t attr;
	pthread_t holder;
	int gate[2], err;

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	err = pthread_attr_init(&attr);
	if (!err) {
		/* Not below the arch's least: the default then. */
		pthread_attr_setstacksize(&attr, HOLDER_STACK);
		if (!join)
			pthread_attr_setdetachstate(&attr,
						    PTHREAD_CREATE_DETACHED);
		err = pthread_create(&holder, &attr, drop_holder,
				     (void *)(intptr_t)gate[0]);
		pthread_attr_destroy(&attr);
	}
	if (err) {
		close(gate[0]);
		close(gate[1]);
		return -err;
	}
	if (unshare(CLONE_FILES))
		err = errno;
	else if (fds)
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
	else
		close_from_but(from, keep, gate[1]);
	while (write(gate[1], "", 1) < 0 && errno == EINTR)
		;
	if (fds || gate[0] < from)
		close(gate[0]);
	close(gate[1]);
	if (join)
		pthread_join(holder, NULL);
	return -err;
}

/*
 * Whether fd's last close may wait, or let go of what a peer queued: a
 * socket's (its linger; an AF_UNIX socket's unread messages), a terminal's
 * (a serial port's until its output drains), another device's or kernel
 * object's.  Pipes, files, folders and the memory devices (/dev/null,
 * /dev/zero, ...) close at once.  SO_TYPE and statx(AT_STATX_DONT_SYNC) ask
 * no file system's server (fstat(2) on FUSE may wait for it).
 */
static bool may_wait(int fd)
{
	struct statx stx;
	socklen_t len = sizeof(int);
	int type;

	if (!getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return true;
	/* O_PATH (EBADF too): its last close may free an unlinked file. */
	if (errno == EBADF)
		return fcntl(fd, F_GETFL) >= 0;
	if (errno != ENOTSOCK ||
	    statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE, &stx))
		return true;
	switch (stx.stx_mode & S_IFMT) {
	case S_IFIFO:
	case S_IFREG:
	case S_IFDIR:
	case S_IFLNK:
		return false;
	case S_IFCHR:
		return stx.stx_rdev_major != 1; /* mem: null, zero, random */
	default:
		return true;
	}
}

void jr2_drop_fds(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		if (!may_wait(fds[i])) {
			close(fds[i]);
			continue;
		}
		if (n_dropped && n_dropped % DROP_FLUSH_AT == 0)
			jr2_drop_flush();
		if (n_dropped == dropped_cap) {
			size_t cap = dropped_cap ? dropped_cap * 2 : 256;
			int *grown = realloc(dropped, cap * sizeof(*dropped));

			if (!grown) { /* no memory: the last resort */
				close(fds[i]);
				continue;
			}
			dropped = grown;
			dropped_cap = cap;
		}
		dropped[n_dropped++] = fds[i];
	}
}

int jr2_drop_flush(void)
{
	int ret = n_dropped ? close_held(dropped, n_dropped, -1, -1, false) : 0;

	if (!ret)
		n_dropped = 0;
	return ret;
}

int jr2_drop_from(int from, int keep)
{
	int ret = close_held(NULL, 0, from, keep, true);

	if (ret)
		close_from_but(from, keep, -1);
	n_dropped = 0;
	return ret;
}

size_t jr2_fd_room(void)
{
	static int dir = -1;
	struct rlimit limit;
	char buf[4096];
	size_t open_fds = 0;
	long n;

	if (dir < 0)
		dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || lseek(dir, 0, SEEK_SET) ||
	    getrlimit(RLIMIT_NOFILE, &limit))
		return SIZE_MAX; /* cannot tell: read as before */
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n;) {
			const struct dirent64 *d = (const void *)(buf + at);

			open_fds += d->d_name[0] != '.';
			at += d->d_reclen;
		}
	if (n < 0)
		return SIZE_MAX;
	return open_fds >= limit.rlim_cur ? 0 : limit.rlim_cur - open_fds;
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
		jr2_drop_fds(fds, *n_fds);
		*n_fds = 0;
		return 1;
	}
	if (jr2_request_parse(buf, (size_t)len, cap, req, err)) {
		jr2_drop_fds(fds, *n_fds);
		*n_fds = 0;
		return -1;
	}
	/* The spawner's filter keeps SO_PASSRIGHTS as it is: off here. */
	for (size_t i = 0; i < *n_fds; i++)
		(void)jr2_fd_refuse_rights(fds[i]);
	return 0;
}
