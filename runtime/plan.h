/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pure half of the compiler: given a description of the tree (the
 * restricted paths and a listing of each of their ancestors), the rules.
 * No syscall here, so the unit tests draw trees as data.
 */
#ifndef JR2_PLAN_H
#define JR2_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* DEVICES: a folder of device nodes of which only an allow-list opens. */
enum jr2_kind { JR2_KIND_PROTECT, JR2_KIND_READ_ONLY, JR2_KIND_DEVICES };
enum jr2_ftype { JR2_FT_DIR, JR2_FT_FILE, JR2_FT_SYMLINK };

struct jr2_fsentry {
	char *name;
	enum jr2_ftype type;
	uint64_t dev, ino, nlink;
	uint64_t rdev; /* a character device's number (st_rdev), else 0 */
};

/* One ancestor dir of a restricted path and what it holds. */
struct jr2_fsdir {
	char *path;
	uint64_t dev, ino;
	struct jr2_fsentry *entries;
	size_t n_entries;
};

struct jr2_target {
	char *path; /* normal form */
	enum jr2_kind kind;
	enum jr2_ftype type;
	uint64_t dev, ino;
	char *origin; /* why it is restricted, e.g. "--protect", "mount of" */
};

/* The origin of /proc and /sys: read-only trees that are also frozen. */
#define JR2_ORIGIN_KERNEL  "kernel control files"
#define JR2_ORIGIN_DEVICES "device allow-list"

struct jr2_fsview {
	struct jr2_target *targets;
	size_t n_targets;
	struct jr2_fsdir *dirs;
	size_t n_dirs;
};

/*
 * Checks and trims the targets in place: a read-only tree inside a protected
 * dir, a symlink, or "/" protected is bad input; a restricted path inside a
 * protected dir (or a read-only tree in a read-only tree) is dropped, noted.
 */
int jr2_plan_targets(struct jr2_target *targets, size_t *n,
		     struct jr2_strv *notes, struct jr2_err *err);
/* The dirs the compiler must list: every proper ancestor of a target, and
   every DEVICES target. */
void jr2_plan_ancestors(const struct jr2_target *targets, size_t n,
			struct jr2_strv *out);
/* The rules for ABI `abi`; the view's targets must have passed
   jr2_plan_targets. */
int jr2_plan_build(const struct jr2_fsview *view, int abi,
		   struct jr2_ruleset_plan *plan, struct jr2_err *err);

void jr2_fsview_free(struct jr2_fsview *view);

/* What the other kinds of place may do under `handled` rights. */
uint64_t jr2_rights_read_only(uint64_t handled);
uint64_t jr2_rights_file_only(uint64_t rights);
/* Everything handled but making device nodes (withheld everywhere). */
uint64_t jr2_rights_full(uint64_t handled);
/* The rights of `name` in a DEVICES folder (0: not on the allow-list). */
uint64_t jr2_rights_device(uint64_t handled, const char *name, bool is_dir);

#endif /* JR2_PLAN_H */
