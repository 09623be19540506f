/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Messages with descriptors over SOCK_SEQPACKET unix sockets: one send is one
 * message, SCM_RIGHTS carries the client's stdin, stdout, stderr and the
 * descriptors it passes on purpose.  Paths of the sockets in the protected dir.
 */
#ifndef JR2_CHANNEL_H
#define JR2_CHANNEL_H

#include <stddef.h>
#include <sys/types.h>

#include "request.h"

#define JR2_CONTROL_SOCKET   "control.sock"
#define JR2_STREAM_SOCKET    "control-stream.sock"
#define JR2_CUSTODIAN_SOCKET "custodian.sock"
#define JR2_BEARER_FILE	     "control.bearer"
#define JR2_STANDINS_FILE    "stand-ins"
#define JR2_HARNESS_HOME     "home"
#define JR2_ABSTRACT_PREFIX  "jr2:" /* + the protected dir's path */
/* Under --root: policy.h's JR2_DEFAULT_PROTECTED, the one constant. */

/* Sends len bytes and n_fds descriptors; returns 0 or -errno. */
int jr2_send_msg(int sock, const void *buf, size_t len, const int *fds,
		 size_t n_fds);
/*
 * Receives one message into cap bytes (MSG_CMSG_CLOEXEC).  Returns its
 * whole length (more than cap when it was longer: its rest is discarded),
 * 0 at end of stream, or -errno: -ETOOMANYREFS when more than max_fds
 * descriptors came (all of them are then dropped: jr2_drop_fds).
 */
ssize_t jr2_recv_msg(int sock, void *buf, size_t cap, int *fds, size_t max_fds,
		     size_t *n_fds);
/*
 * Receives at most cap bytes of a SOCK_STREAM socket, never more (what
 * follows stays queued for the next reader).  Descriptors sent with them
 * are dropped (a stream carries none): -EPROTO when some came.  Returns
 * the count, 0 at end of stream, or -errno.
 */
ssize_t jr2_recv_stream(int sock, void *buf, size_t cap);
void jr2_close_fds(int *fds, size_t n);

/*
 * R11: what a peer sent (descriptors, and a connection whose unread messages
 * may carry some) is dropped, never closed with close(2) in a live process.
 * The last close of a socket with SO_LINGER and data its peer does not read
 * (TCP over IPv4 or IPv6, SCTP, vsock: every family that lingers) waits up to
 * the linger time in the task that makes it, and a signal the process blocks
 * (the harness's, read from its signalfd) does not cut it short; an AF_UNIX
 * socket's last close lets go, in that task, of its unread messages and what
 * they carry.  A task that is exiting never lingers.  So jr2_drop_fds() keeps
 * what may wait (sockets, terminals, other devices, kernel objects; pipes,
 * files and /dev/null close at once), and jr2_drop_flush() closes them while
 * a thread of this process holds the descriptor table they were in, then
 * lets that thread exit: any last copy closes as it exits.  What is still
 * kept when the process exits closes with it.
 */
void jr2_drop_fds(const int *fds, size_t n);
/* 0, or -errno when no holding thread could be had: they stay kept. */
int jr2_drop_flush(void);
/*
 * Every descriptor from `from` up but `keep` (-1: none), the same way, and
 * nothing kept any more (a forked process's copies).  The holding thread has
 * ended when it returns, though its table may still be closing (pthread_join
 * wakes before the exiting thread lets go of it).  0, or -errno: closed here,
 * as close_range(2) does.
 */
int jr2_drop_from(int from, int keep);
/*
 * Free slots in this process's descriptor table (RLIMIT_NOFILE less the
 * open descriptors, counted in /proc/self/fd); SIZE_MAX when it cannot
 * tell.  A message read with less room than its descriptors has the kernel
 * release, in this task, those that do not fit: a lingering socket's last
 * close (R11).
 */
size_t jr2_fd_room(void);
/* The kernel's most descriptors in one message (SCM_MAX_FD). */
#define JR2_SCM_MAX_FD 253

/*
 * Receives and parses one control request (at most cap bytes, buf has cap+1
 * bytes).  Returns 0 with *req parsed (the caller owns fds[0..*n_fds) and
 * frees req), -EAGAIN when nothing came yet, 1 at the end of the stream or
 * on an empty message, or -1 with a refusal in *err.  On every return but 0,
 * every descriptor that came with the message is dropped (R10, R11).
 */
int jr2_control_take(int sock, char *buf, size_t cap, struct jr2_request *req,
		     int *fds, size_t *n_fds, struct jr2_err *err);

/* "<root>/run/jr2" (JR2_DEFAULT_PROTECTED under root), no doubled slash. */
void jr2_protected_dir_of(const char *root, char *out, size_t size);

#endif /* JR2_CHANNEL_H */
