/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What jr2-try's verbs and the suite's own side of a test both make: a TCP
 * socket whose last close lingers (R11: jr2-try's `linger` passes one to
 * the harness, harness_channel_test sets the same trap itself) and a
 * one-element bpf map (R9: syscalls_test pins one, jr2-try's `sc-bpf`
 * writes it).  The suite includes it as "tests/try_shared.h".
 */
#ifndef JR2_TRY_SHARED_H
#define JR2_TRY_SHARED_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * A TCP socket whose last close lingers: SO_LINGER of an hour, and data it
 * cannot send to a loopback peer (*peer, to keep) that never reads.
 * Returns it, or -errno; *unsent: the bytes it holds (TIOCOUTQ, more than 0).
 */
static inline int try_lingering_tcp(int *peer, int *unsent)
{
	struct sockaddr_in at = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct linger linger = {.l_onoff = 1, .l_linger = 3600};
	socklen_t len = sizeof(at);
	int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int small = 4096, err = 0;
	char block[4096] = {0};

	*peer = -1;
	setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	setsockopt(tcp, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	if (listener < 0 || tcp < 0 ||
	    bind(listener, (struct sockaddr *)&at, sizeof(at)) ||
	    listen(listener, 1) ||
	    getsockname(listener, (struct sockaddr *)&at, &len) ||
	    connect(tcp, (struct sockaddr *)&at, sizeof(at)) ||
	    (*peer = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    fcntl(tcp, F_SETFL, O_NONBLOCK))
		err = errno;
	while (!err && write(tcp, block, sizeof(block)) > 0)
		;
	/* Lingering last: no close below waits. */
	if (!err &&
	    (ioctl(tcp, TIOCOUTQ, unsent) ||
	     setsockopt(tcp, SOL_SOCKET, SO_LINGER, &linger, sizeof(linger))))
		err = errno;
	if (listener >= 0)
		close(listener);
	if (!err)
		return tcp;
	if (*peer >= 0)
		close(*peer);
	if (tcp >= 0)
		close(tcp);
	return -err;
}

static inline long try_bpf_call(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* An array map of one element, 4-byte key and value: its fd, or -1. */
static inline int try_bpf_map_create(void)
{
	union bpf_attr attr = {.map_type = BPF_MAP_TYPE_ARRAY,
			       .key_size = sizeof(uint32_t),
			       .value_size = sizeof(uint32_t),
			       .max_entries = 1};

	return (int)try_bpf_call(BPF_MAP_CREATE, &attr);
}

/* Element 0 of the map `fd`: set to `value` (write) or read into it. */
static inline int try_bpf_elem(int fd, bool write, uint32_t *value)
{
	uint32_t key = 0;
	union bpf_attr attr = {.map_fd = (uint32_t)fd,
			       .key = (uintptr_t)&key,
			       .value = (uintptr_t)value};

	return (int)try_bpf_call(
	    write ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM, &attr);
}

#endif /* JR2_TRY_SHARED_H */
