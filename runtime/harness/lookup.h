/* SPDX-License-Identifier: GPL-2.0-only */
/* A path looked up as the kernel looks it up, entry by entry. */
#ifndef JR2_HARNESS_LOOKUP_H
#define JR2_HARNESS_LOOKUP_H

#include <stdbool.h>

#include "policy.h"

/* Copies a, b and c, one after the other, into dst (PATH_MAX); false, dst
 * as it was, when they do not fit. */
bool jr2_path_put(char *dst, const char *a, const char *b, const char *c);

/*
 * Looks `path` up as open(2) does: each entry in its folder, `.` and `..`
 * by name, symbolic links followed (at most 40), a relative path from the
 * current folder.  Adds to `folders` each folder an entry is taken from,
 * in order: whoever can write one of them can replace what the path names.
 * Returns 0 with the path it ends at in real (PATH_MAX); else the errno of
 * the first entry that fails (ENOENT, ENOTDIR: missing; ELOOP,
 * ENAMETOOLONG, ...) with that entry's path in bad (PATH_MAX), the folders
 * up to it added.
 */
int jr2_lookup(const char *path, struct jr2_strv *folders, char *real,
	       char *bad);

#endif /* JR2_HARNESS_LOOKUP_H */
