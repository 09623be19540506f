/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jr2's layout as data (protected dirs, read-only trees, everything else
 * full) and its compiler into Landlock path rules.  Landlock only grants, so
 * denying one subtree means granting its ancestors only what that subtree may
 * have, and every sibling along the path in full.
 */
#ifndef JR2_POLICY_H
#define JR2_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi.h"
#include "landlock_uapi.h"

#define JR2_DEFAULT_PROTECTED "/run/jr2"

/* One line for the user: names the input, the value and the fix. */
struct jr2_err {
	int code; /* errno-like */
	bool bad_input; /* the user's input is wrong (CLI: exit 2), else the
			   system refused (CLI: exit 125) */
	char msg[512];
};

struct jr2_paths {
	char **v;
	size_t n;
};

struct jr2_policy {
	struct jr2_paths protect; /* nothing in them but list (R1-R8) */
	struct jr2_paths read_only; /* read, execute, list (O1-O2) */
	bool defaults; /* jr2's defaults: missing trees skipped */
};

struct jr2_rule {
	char *path;
	uint64_t access;
	char *why; /* "ancestor of /run/jr2", "beside /run/jr2", ... */
	bool is_dir; /* else only file rights are granted */
	uint64_t dev; /* what the compiler saw there: the rule is added */
	uint64_t ino; /* only when the path still names that inode (both
			 0: not looked at, only the type is checked) */
};

struct jr2_ruleset_plan {
	int abi;
	uint64_t handled_fs;
	uint64_t scoped;
	uint32_t restrict_flags;
	struct jr2_rule *rules;
	size_t n_rules;
	struct jr2_paths notes; /* skipped trees, mounts found protected, ... */
};

void jr2_policy_init(struct jr2_policy *policy);
void jr2_policy_set_defaults(struct jr2_policy *policy);
int jr2_policy_add_protected(struct jr2_policy *policy, const char *path,
			     struct jr2_err *err);
int jr2_policy_add_read_only(struct jr2_policy *policy, const char *path,
			     struct jr2_err *err);
/* Pure: parses a config file's text; `name` is used in messages. */
int jr2_policy_parse_config(struct jr2_policy *policy, const char *text,
			    const char *name, struct jr2_err *err);
int jr2_policy_load_config(struct jr2_policy *policy, const char *file,
			   struct jr2_err *err);
void jr2_policy_free(struct jr2_policy *policy);

/* Walks the file system and /proc/self/mountinfo; opens nothing for later. */
int jr2_policy_compile(const struct jr2_policy *policy, int abi,
		       struct jr2_ruleset_plan *plan, struct jr2_err *err);
void jr2_plan_free(struct jr2_ruleset_plan *plan);

/*
 * Compiles, builds the ruleset and restricts the calling thread (with
 * no_new_privs).  On failure nothing is restricted and *err says why; the
 * caller must then not run anything.  extra_flags are ORed into the
 * restrict flags the ABI allows (for example LOG_NEW_EXEC_ON when tracing).
 */
/*
 * For a confiner that execs the programs (jr2-confine run, the spawner): from
 * ABI 7 the audit log records the programs' denials, not the confiner's own.
 */
#define JR2_LOG_EXECED_PROGRAMS                \
	(JR2_RESTRICT_SELF_LOG_SAME_EXEC_OFF | \
	 JR2_RESTRICT_SELF_LOG_NEW_EXEC_ON)

int jr2_confine_self(const struct jr2_policy *policy, const struct jr2_abi *abi,
		     uint32_t extra_flags, struct jr2_err *err);

/* The second half of jr2_confine_self(), for a plan already compiled. */
int jr2_confine_plan(const struct jr2_ruleset_plan *plan, uint32_t extra_flags,
		     struct jr2_err *err);

#endif /* JR2_POLICY_H */
