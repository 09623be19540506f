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

/* How much of a path or value a message shows: the fix after it must fit. */
#define JR2_SHOWN_MAX 160

/*
 * `value` as is when it has at most `max` bytes, else its head and tail
 * around "...", in out (size > max).  Returns out.
 */
const char *jr2_shorten(const char *value, size_t max, char *out, size_t size);

/*
 * A decimal number from min to max, written as digits only: no sign, no
 * space, no trailing text ("+3", " 3", "3x" and "" are refused).  Returns 0
 * and sets *value, or -1.
 */
int jr2_parse_number(const char *text, long min, long max, long *value);

/*
 * Owned strings in order: paths of a policy, an environment's "NAME=VALUE"
 * entries, names.  The one vector of the runtime; running out of memory
 * ends the program (jr2_xrealloc), whoever adds.
 */
struct jr2_strv {
	char **v;
	size_t n;
};

void jr2_strv_add(struct jr2_strv *v, const char *s);
void jr2_strv_addf(struct jr2_strv *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void jr2_strv_free(struct jr2_strv *v);

struct jr2_policy {
	struct jr2_strv protect; /* nothing in them but list (R1-R8) */
	struct jr2_strv read_only; /* read, execute, list (O1-O2) */
	/* The defaults' CA bundles: ca_bundles.v[i] named by the environment
	   variable ca_vars.v[i] (read-only, like read_only). */
	struct jr2_strv ca_bundles, ca_vars;
	bool defaults; /* jr2's defaults: missing trees skipped */
};

/*
 * The environment variables whose CA bundles the defaults make read-only
 * (jr2's trust: the public roots, harness.caBundle, the Instance's CA).
 */
#define JR2_CA_VARS                                                   \
	"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", \
	    "GIT_SSL_CAINFO", "CURL_CA_BUNDLE"

struct jr2_rule {
	char *path;
	uint64_t access;
	char *why; /* "ancestor of /run/jr2", "beside /run/jr2", ... */
	bool is_dir; /* else only file rights are granted */
	uint64_t dev; /* what the compiler saw there: the rule is added */
	uint64_t ino; /* only when the path still names that inode (both
			 0: not looked at, only the type is checked) */
};

/* A restricted path as compiled: checked again before restricting. */
struct jr2_plan_target {
	char *path;
	char *origin; /* "--protect", "kernel control files", ... */
	int kind; /* enum jr2_kind (plan.h) */
	bool is_dir;
	uint64_t dev, ino;
};

struct jr2_ruleset_plan {
	int abi;
	uint64_t handled_fs;
	uint64_t scoped;
	uint32_t restrict_flags;
	struct jr2_rule *rules;
	size_t n_rules;
	struct jr2_strv notes; /* skipped trees, mounts found protected, ... */
	/*
	 * Frozen folders: nothing can be made, removed or renamed directly in
	 * them (the ancestors of restricted paths, /proc, /sys, /dev);
	 * frozen_why.v[i] says why frozen.v[i] is.
	 */
	struct jr2_strv frozen, frozen_why;
	/* What a start message must say (a CA bundle outside /opt/jr2 and
	   the folders it freezes). */
	struct jr2_strv warnings;
	struct jr2_plan_target *targets;
	size_t n_targets;
	/* The folders above the restricted paths, with the dev and ino the
	   compiler saw (0: not looked at): a later plan must find the same. */
	struct jr2_plan_target *dirs;
	size_t n_dirs;
};

/* The kernel's own trees, restricted in every policy: their files are
   kernel settings, and /dev's nodes are disks and memory. */
#define JR2_PROC_TREE "/proc" /* read-only: sysctls, sysrq-trigger, ... */
#define JR2_SYS_TREE  "/sys" /* read-only: uevent_helper, ... */
#define JR2_DEV_DIR   "/dev" /* only an allow-list of nodes opens */

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
 * Each restricted path of the plan still names the inode (dev, ino) the
 * compiler saw: 0, or -1 with *err (ESTALE, naming the path; exit 125).
 * jr2_confine_plan() calls it just before landlock_restrict_self().
 */
int jr2_plan_verify_targets(const struct jr2_ruleset_plan *plan,
			    struct jr2_err *err);

/* What the plan grants at `path` (a dir, or a file when is_dir is false):
   the OR of its rules at path and its ancestors. */
uint64_t jr2_plan_rights_at(const struct jr2_ruleset_plan *plan,
			    const char *path, bool is_dir);

/*
 * Called by jr2_confine_plan() with stage 0 before the first
 * landlock_add_rule, stage 1 before the targets are verified and the thread
 * restricted, only in the build of confine.c with JR2_CONFINE_SEAM (the
 * test binaries that define it link that object before libjr2.a).  The
 * library and the shipped programs hold no such call: nothing a program
 * links runs between the steps.
 */
void jr2_confine_seam(const struct jr2_ruleset_plan *plan, int stage);

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

/* 0, or -1 and *err when the ABI table refuses the kernel (G1-G3). */
int jr2_abi_accepted(const struct jr2_abi *abi, struct jr2_err *err);

/* The second half of jr2_confine_self(), for a plan already compiled. */
int jr2_confine_plan(const struct jr2_ruleset_plan *plan, uint32_t extra_flags,
		     struct jr2_err *err);

#endif /* JR2_POLICY_H */
