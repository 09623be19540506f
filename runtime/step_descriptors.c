// SPDX-License-Identifier: GPL-2.0-only
/*
 * Step 1 of the confinement step (confine_step.h): no descriptor into a
 * protected dir, and none open for writing into a read-only tree, crosses
 * into the domain.  Landlock checks paths at open(2), never a descriptor
 * already open.  Nor does a descriptor cross that hands out others: what it
 * hands out was opened outside the domain too (carriers(), below).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "confine_step.h"
#include "policy_internal.h"
#include "step_internal.h"

size_t jr2_idents(const struct jr2_strv *paths, struct jr2_ident *out,
		  size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < paths->n && n < max; i++) {
		struct stat st;

		if (lstat(paths->v[i], &st) || S_ISLNK(st.st_mode))
			continue;
		out[n++] =
		    (struct jr2_ident){paths->v[i], st.st_dev, st.st_ino};
	}
	return n;
}

/*
 * Walks from the dir `fd` up to the root by "..": the first of `ids` met
 * (the dir itself included), or NULL.  Closes fd.
 */
static const struct jr2_ident *walk_up(int fd, const struct jr2_ident *ids,
				       size_t n)
{
	for (int depth = 0; fd >= 0 && depth < 4096; depth++) {
		struct stat st, up_st;
		int up;

		if (fstat(fd, &st))
			break;
		for (size_t i = 0; i < n; i++) {
			if (st.st_dev == ids[i].dev &&
			    st.st_ino == ids[i].ino) {
				close(fd);
				return &ids[i];
			}
		}
		up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &up_st) ||
		    (up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino)) {
			if (up >= 0)
				close(up);
			break;
		}
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The restricted place `fd` lies in (by dev and inode, then by name). */
static const struct jr2_ident *fd_inside(int fd, const struct stat *st,
					 const char *target,
					 const struct jr2_ident *ids, size_t n)
{
	const struct jr2_ident *hit;
	char dir[PATH_MAX];
	char *slash;

	if (S_ISDIR(st->st_mode)) {
		char self[32];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		/* O_PATH of the same dir: ".." walks from it. */
		hit = walk_up(open(self, O_PATH | O_DIRECTORY | O_CLOEXEC), ids,
			      n);
		if (hit)
			return hit;
	}
	if (target[0] != '/')
		return NULL; /* pipe:, socket:, anon_inode: */
	for (size_t i = 0; i < n; i++)
		if (jr2_path_within(target, ids[i].path))
			return &ids[i];
	snprintf(dir, sizeof(dir), "%s", target);
	slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*(slash == dir ? slash + 1 : slash) = '\0';
	return walk_up(open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), ids, n);
}

/* The restricted places of a policy, as they are named now. */
struct places {
	struct jr2_ident prot[64], ro[64];
	size_t n_prot, n_ro;
};

static int places_of(const struct jr2_policy *policy, struct places *pl,
		     struct jr2_err *err)
{
	if (policy->protect.n > 64 || policy->read_only.n > 64)
		return jr2_fail(err, E2BIG, true,
				"the policy has more than 64 protected dirs "
				"or read-only trees: merge some");
	pl->n_prot = jr2_idents(&policy->protect, pl->prot, 64);
	pl->n_ro = jr2_idents(&policy->read_only, pl->ro, 64);
	return 0;
}

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83 /* Linux 6.16 */
#endif

/* The number after `key` in /proc/self/fdinfo/FD, or -1 without one. */
static long fdinfo_number(int fd, const char *key)
{
	char path[64], buf[1024];
	size_t klen = strlen(key);
	ssize_t n;
	int info;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (info < 0)
		return -1;
	n = read(info, buf, sizeof(buf) - 1);
	close(info);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen))
			return strtol(line + klen, NULL, 10);
	}
	return -1;
}

int jr2_fd_refuse_rights(int fd)
{
	int on = 1, off = 0;
	socklen_t len = sizeof(on);

	if (getsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &on, &len))
		return -1;
	if (!on)
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &off, sizeof(off));
}

/*
 * A descriptor that hands out descriptors: what it hands out was opened
 * outside the domain, and Landlock checks paths at open(2) only.
 *  - A unix socket connected to a socket in a protected dir (by the name
 *    its peer was bound to) is a door into it, refused as a descriptor of
 *    it is.
 *  - A unix socket carries descriptors (SCM_RIGHTS): one listening takes
 *    connections that carry them, and one with descriptors queued
 *    (fdinfo's scm_fds) gives them at the program's first recvmsg.  The
 *    rest cross with SO_PASSRIGHTS off where the kernel has it (6.16), set
 *    before the queue is read: a later sendmsg with descriptors to it gives
 *    EPERM.  stdio of a Node parent are such sockets (libuv's pipes).
 *  - io_uring: its registered files, and its credentials (SQPOLL's thread
 *    and registered personalities act as the ring's maker, outside the
 *    domain).
 *  - fanotify: each event read carries a descriptor of the file it reports.
 *  - a pidfd: pidfd_getfd(2) copies its process's descriptors, where ptrace
 *    may (Yama's and Landlock's rules, which differ by kernel).
 * Pipes, terminals, epoll, signalfd, eventfd, timerfd and other sockets
 * hand out none (epoll_wait gives back data, never a descriptor).
 */
static int carriers(const struct places *pl, int fd, int shown_as,
		    const char *target, const struct stat *st,
		    struct jr2_err *err)
{
	static const struct {
		const char *target, *why;
	} kinds[] = {
	    {"anon_inode:[io_uring]",
	     "an io_uring acts with its maker's files and credentials"},
	    {"anon_inode:[fanotify]",
	     "a fanotify group's events carry descriptors of the files"},
	    {"anon_inode:[pidfd]",
	     "a pidfd hands out its process's descriptors (pidfd_getfd)"},
	};
	int domain = 0, listening = 0;
	socklen_t len = sizeof(domain);
	struct sockaddr_un peer;
	long queued;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strcmp(target, kinds[i].target))
			return jr2_fail(err, EPERM, false,
					"descriptor %d is '%s': %s, opened "
					"outside the domain; do not pass it",
					shown_as, target, kinds[i].why);
	if (!S_ISSOCK(st->st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) ||
	    domain != AF_UNIX)
		return 0;
	/* Connected to a socket in a protected dir (the Harness's control
	 * socket): a door to what serves there, passed on. */
	len = sizeof(peer);
	memset(&peer, 0, sizeof(peer));
	if (!getpeername(fd, (struct sockaddr *)&peer, &len) &&
	    len > offsetof(struct sockaddr_un, sun_path) &&
	    peer.sun_path[0] == '/') {
		peer.sun_path[sizeof(peer.sun_path) - 1] = '\0';
		for (size_t i = 0; i < pl->n_prot; i++)
			if (jr2_path_within(peer.sun_path, pl->prot[i].path))
				return jr2_fail(
				    err, EPERM, false,
				    "descriptor %d is a unix socket connected "
				    "to '%s' in the protected dir '%s': no "
				    "door into a protected dir reaches a "
				    "program; do not pass it",
				    shown_as, peer.sun_path, pl->prot[i].path);
	}
	len = sizeof(listening);
	if (!getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) &&
	    listening)
		return jr2_fail(err, EPERM, false,
				"descriptor %d is a listening unix socket "
				"('%s'): its connections carry descriptors "
				"opened outside the domain; pass a connected "
				"socket or a pipe",
				shown_as, target);
	if (jr2_fd_refuse_rights(fd) && errno != ENOPROTOOPT)
		return jr2_fail(err, errno, false,
				"descriptor %d ('%s'): SO_PASSRIGHTS stays on: "
				"%s; pass a pipe",
				shown_as, target, strerror(errno));
	queued = fdinfo_number(fd, "scm_fds:");
	if (queued < 0)
		return jr2_fail(err, EPERM, false,
				"descriptor %d is a unix socket ('%s') whose "
				"queued descriptors /proc/self/fdinfo does "
				"not show: mount /proc or pass a pipe",
				shown_as, target);
	if (queued > 0)
		return jr2_fail(err, EPERM, false,
				"descriptor %d is a unix socket ('%s') with "
				"%ld descriptors queued on it, opened outside "
				"the domain: receive them first or pass a pipe",
				shown_as, target, queued);
	return 0;
}

/*
 * A file one descriptor of a batch was checked on: what the verdict depends
 * on (its inode, its path: fd_inside reads nothing else) and which checks
 * it passed.
 */
struct checked {
	dev_t dev;
	ino_t ino;
	char *target;
	bool write_passed; /* not in a read-only tree either */
};

static int check_fd_in(const struct places *pl, int fd, int shown_as,
		       struct checked *seen, size_t *n_seen, size_t max_seen,
		       struct jr2_err *err)
{
	const struct jr2_ident *hit;
	struct checked *same = NULL;
	char link[64], target[PATH_MAX];
	struct stat st;
	ssize_t len;
	bool writing;
	int flags;

	if (fstat(fd, &st) || (flags = fcntl(fd, F_GETFL)) < 0)
		return 0; /* not open: nothing crosses */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return jr2_fail(err, errno, false,
				"descriptor %d: readlink %s: %s: cannot tell "
				"where it leads; mount /proc",
				shown_as, link, strerror(errno));
	target[len] = '\0';
	if (len > 10 && !strcmp(target + len - 10, " (deleted)"))
		target[len - 10] = '\0';
	if (carriers(pl, fd, shown_as, target, &st, err))
		return -1;
	writing = (flags & O_ACCMODE) != O_RDONLY && !(flags & O_PATH);
	for (size_t i = 0; i < *n_seen && !same; i++)
		if (seen[i].dev == st.st_dev && seen[i].ino == st.st_ino &&
		    !strcmp(seen[i].target, target))
			same = &seen[i];
	if (!same) {
		hit = fd_inside(fd, &st, target, pl->prot, pl->n_prot);
		if (hit)
			return jr2_fail(
			    err, EPERM, false,
			    "descriptor %d refers to '%s' in the protected "
			    "dir '%s': no descriptor into a protected dir "
			    "reaches a program; close it or do not pass it",
			    shown_as, target, hit->path);
		if (*n_seen < max_seen &&
		    (seen[*n_seen].target = strdup(target))) {
			seen[*n_seen].dev = st.st_dev;
			seen[*n_seen].ino = st.st_ino;
			seen[*n_seen].write_passed = false;
			same = &seen[(*n_seen)++];
		}
	}
	if (writing && !(same && same->write_passed)) {
		hit = fd_inside(fd, &st, target, pl->ro, pl->n_ro);
		if (hit)
			return jr2_fail(err, EPERM, false,
					"descriptor %d is open for writing on "
					"'%s' in the read-only tree '%s': "
					"open it read-only or do not pass it",
					shown_as, target, hit->path);
		if (same)
			same->write_passed = true;
	}
	return 0;
}

int jr2_step_check_fd(const struct jr2_policy *policy, int fd, int shown_as,
		      struct jr2_err *err)
{
	struct places pl;
	size_t n_seen = 0;

	if (places_of(policy, &pl, err))
		return -1;
	return check_fd_in(&pl, fd, shown_as, NULL, &n_seen, 0, err);
}

int jr2_step_check_fds(const struct jr2_policy *policy, const int *fds,
		       size_t n, struct jr2_err *err)
{
	struct checked seen[JR2_STEP_CHECK_MAX_FDS];
	struct places pl;
	size_t n_seen = 0;
	int ret = 0;

	if (places_of(policy, &pl, err))
		return -1;
	for (size_t i = 0; i < n && !ret; i++)
		ret = check_fd_in(&pl, fds[i], (int)i, seen, &n_seen,
				  JR2_STEP_CHECK_MAX_FDS, err);
	for (size_t i = 0; i < n_seen; i++)
		free(seen[i].target);
	return ret;
}

static bool kept_fd(const struct jr2_step *step, int fd)
{
	if (fd <= 2)
		return true;
	for (size_t i = 0; i < step->n_keep_fds; i++)
		if (step->keep_fds[i] == fd)
			return true;
	return false;
}

int jr2_step_descriptors(const struct jr2_policy *policy, struct jr2_step *step,
			 struct jr2_err *err)
{
	if (step->close_others) {
		/* Closes the gaps between the kept ones, then the rest. */
		int lo = 3;

		for (int fd = 3; fd < 65536; fd++) {
			if (!kept_fd(step, fd))
				continue;
			if (fd > lo &&
			    syscall(SYS_close_range, lo, fd - 1, 0) && errno)
				return jr2_fail(err, errno, false,
						"close_range(%d, %d): %s", lo,
						fd - 1, strerror(errno));
			lo = fd + 1;
		}
		if (syscall(SYS_close_range, lo, ~0U, 0))
			return jr2_fail(err, errno, false,
					"close_range(%d, ~0): %s", lo,
					strerror(errno));
	}
	for (int fd = 0; fd <= 2 && !step->fds_per_program; fd++)
		if (jr2_step_check_fd(policy, fd, fd, err))
			return -1;
	for (size_t i = 0; i < step->n_keep_fds; i++) {
		if (fcntl(step->keep_fds[i], F_GETFD) < 0)
			return jr2_fail(err, EBADF, true,
					"--pass-fd %d: that descriptor is not "
					"open: open it or drop the flag",
					step->keep_fds[i]);
		if (jr2_step_check_fd(policy, step->keep_fds[i],
				      step->keep_fds[i], err))
			return -1;
		/* Passed on purpose: across execve too. */
		if (fcntl(step->keep_fds[i], F_SETFD, 0))
			return jr2_fail(err, errno, false,
					"--pass-fd %d: fcntl(F_SETFD): %s",
					step->keep_fds[i], strerror(errno));
	}
	return 0;
}
