/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening paths without ever following a symlink, and listing dirs. */
#ifndef JR2_FSWALK_H
#define JR2_FSWALK_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * Opens `path` (absolute, normal form) with O_PATH|O_NOFOLLOW|O_CLOEXEC,
 * following no symlink on the way: in one openat2(RESOLVE_NO_SYMLINKS), else
 * one component at a time, each relative to its parent's fd.  A symlink as the
 * last component is opened itself (see st); one before it fails with
 * -ELOOP and *bad_len is the length of the prefix that is the symlink.
 * Returns the fd, or -errno.
 */
int jr2_open_nofollow(const char *path, struct stat *st, size_t *bad_len);

#endif /* JR2_FSWALK_H */
