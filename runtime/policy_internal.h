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
void *jr2_xrealloc(void *ptr, size_t size);
char *jr2_xstrdup(const char *s);
void jr2_paths_add(struct jr2_paths *paths, const char *path);
void jr2_paths_addf(struct jr2_paths *paths, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void jr2_paths_free(struct jr2_paths *paths);
/* Adds `path` in normal form (absolute, no ".", "..", "//"); `input` names
   where it came from in messages ("--protect", "config 'f' line 3"). */
int jr2_paths_add_normal(struct jr2_paths *paths, const char *input,
			 const char *path, struct jr2_err *err);
/* True when `path` is `dir` or inside it (both in normal form). */
bool jr2_path_within(const char *path, const char *dir);

#endif /* JR2_POLICY_INTERNAL_H */
