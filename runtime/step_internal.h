/* SPDX-License-Identifier: GPL-2.0-only */
/* What the files of the confinement step share; not part of the contract. */
#ifndef JR2_STEP_INTERNAL_H
#define JR2_STEP_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

#include "confine_step.h"

/* A restricted place as it is named now: its path, device and inode. */
struct jr2_ident {
	const char *path;
	dev_t dev;
	ino_t ino;
};

/* The places of `paths` that exist as they are named (no symlink). */
size_t jr2_idents(const struct jr2_strv *paths, struct jr2_ident *out,
		  size_t max);

/* Step 1: closes what is not kept (close_others), checks what is. */
int jr2_step_descriptors(const struct jr2_policy *policy, struct jr2_step *step,
			 struct jr2_err *err);

#endif /* JR2_STEP_INTERNAL_H */
