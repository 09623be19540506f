/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the library's files; not part of the contract. */
#ifndef JR2_POLICY_INTERNAL_H
#define JR2_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* Fills *err (code, bad_input, printf-style message); returns -1. */
int jr2_fail(struct jr2_err *err, int code, bool bad_input, const char *fmt,
	     ...) __attribute__((format(printf, 4, 5)));
/* Prints "jr2: out of memory" and aborts where realloc fails. */
void *jr2_xrealloc(void *ptr, size_t size);
char *jr2_xstrdup(const char *s);
/* Adds `path` in normal form (absolute, no ".", "..", "//"); `input` names
   where it came from in messages ("--protect", "config 'f' line 3"). */
int jr2_paths_add_normal(struct jr2_strv *paths, const char *input,
			 const char *path, struct jr2_err *err);
/* True when `path` is `dir` or inside it (both in normal form). */
bool jr2_path_within(const char *path, const char *dir);

#endif /* JR2_POLICY_INTERNAL_H */
