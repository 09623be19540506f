/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stand-ins (E5): fresh random values at each harness start, one for the
 * control channel of the Custodian and one per Held secret, plus the one
 * public fetch Stand-in.  Kept in a file of the protected dir (mode 0600).
 */
#ifndef JR2_STANDINS_H
#define JR2_STANDINS_H

#include <stddef.h>

#include "env.h"

#define JR2_FETCH_STANDIN	 "jr2-fetch-public" /* public by design */
#define JR2_STANDIN_NAME_CONTROL "control"
#define JR2_STANDIN_NAME_FETCH	 "fetch"

/* "jr2-" + 64 hex digits of 32 random bytes (getrandom) + NUL. */
#define JR2_STANDIN_SIZE (4 + 64 + 1)

struct jr2_standins {
	char control[JR2_STANDIN_SIZE];
	size_t n;
	char **names; /* the Held secrets, in config order */
	char (*values)[JR2_STANDIN_SIZE];
};

/* Returns 0 or -errno (getrandom failed). */
int jr2_random_token(char out[JR2_STANDIN_SIZE]);
int jr2_standins_make(struct jr2_standins *s, const struct jr2_strv *secrets);
const char *jr2_standin_of(const struct jr2_standins *s, const char *name);
/* Writes NAME=VALUE lines to a new file at path (0600); 0 or -errno. */
int jr2_standins_write(const struct jr2_standins *s, const char *path);

#endif /* JR2_STANDINS_H */
