/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Landlock ABI in force: probed with the syscall (never uname or sysfs),
 * capped for pinning and tests (G7), and the one table of what each ABI gives.
 * Every other part (check, compiler, spawner, suite, the Python driver through
 * `jr2-confine abi-table --json`) reads features from this table alone.
 */
#ifndef JR2_ABI_H
#define JR2_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JR2_ABI_REQUIRED 3 /* LANDLOCK_ACCESS_FS_TRUNCATE */
#define JR2_ABI_NEWEST	 11 /* the newest ABI this runtime knows */

struct jr2_abi {
	int kernel; /* ABI the kernel reports; 0 when probe_errno != 0 */
	int cap; /* --max-abi / JR2_MAX_ABI; 0 when none */
	int in_force; /* min(kernel, cap, JR2_ABI_NEWEST) */
	int probe_errno; /* 0, ENOSYS (no Landlock), EOPNOTSUPP (not enabled) */
	uint32_t errata; /* errata bitmask; 0 when the kernel has no query */
	bool errata_known;
};

enum jr2_feature {
	JR2_FEAT_TRUNCATE,
	JR2_FEAT_IOCTL_DEV,
	JR2_FEAT_SCOPE_SIGNAL,
	JR2_FEAT_SCOPE_ABSTRACT_UNIX,
	JR2_FEAT_AUDIT_LOG_FLAGS,
	JR2_FEAT_TSYNC,
	JR2_FEAT_RESOLVE_UNIX,
	JR2_FEAT_NO_NEW_PRIVS_FLAG,
	JR2_FEAT_COUNT,
};

struct jr2_feature_info {
	const char *name; /* stable key: "truncate", "scope_signal", ... */
	int min_abi;
	const char *protects; /* one line for people: what it keeps safe */
};

extern const struct jr2_feature_info jr2_features[JR2_FEAT_COUNT];

enum jr2_verdict {
	JR2_VERDICT_ACCEPT,
	JR2_VERDICT_NO_LANDLOCK, /* ENOSYS: G1 */
	JR2_VERDICT_NOT_ENABLED, /* EOPNOTSUPP: G2 */
	JR2_VERDICT_ABI_TOO_OLD, /* ABI 1 or 2: G3 */
	JR2_VERDICT_PROBE_FAILED, /* any other errno */
};

/* Fills *abi; cap 0 means none.  Never fails: the outcome is in *abi. */
void jr2_abi_probe(struct jr2_abi *abi, int cap);

bool jr2_abi_has(const struct jr2_abi *abi, enum jr2_feature feature);
enum jr2_verdict jr2_abi_verdict(const struct jr2_abi *abi);
/* The sentence that says why a verdict refuses and how to fix it. */
const char *jr2_verdict_reason(const struct jr2_abi *abi, char *buf,
			       size_t size);
const char *jr2_verdict_name(enum jr2_verdict verdict);

/* What ABI `abi` handles: every right, scope and restrict flag it offers. */
uint64_t jr2_abi_fs_rights(int abi);
uint64_t jr2_abi_scopes(int abi);
uint32_t jr2_abi_log_flags(int abi);
/* Every restrict_self flag of `abi`: log flags, TSYNC (8), NO_NEW_PRIVS (11).
 */
uint32_t jr2_abi_restrict_flags(int abi);

/*
 * The cap (G7): `flag` is the value of --max-abi (NULL when not given), else
 * the environment's JR2_MAX_ABI is read.  Returns 0 (no cap) or 1..NEWEST;
 * -1 on a bad value, with one line naming input, value and fix in msg.
 */
int jr2_abi_cap(const char *flag, char *msg, size_t size);

/*
 * G6: the protections of the table that `abi` cannot give, for people:
 * "scope_signal (ABI 6+), scope_abstract_unix (ABI 6+)", or "" when none.
 * For the preflight and each spawner start's log line.
 */
const char *jr2_abi_unavailable(const struct jr2_abi *abi, char *buf,
				size_t size);

/*
 * Yama's kernel.yama.ptrace_scope (0-3), or -1 when the kernel has no Yama.
 * Not Landlock's: it decides whether programs of one domain can trace each
 * other (P3), so `check` reports it and the suite's tracing expects it.
 */
int jr2_yama_ptrace_scope(void);

/* Stable names of the bits of fs rights, scopes and restrict flags. */
enum jr2_bit_kind { JR2_BITS_FS, JR2_BITS_SCOPE, JR2_BITS_RESTRICT };
const char *jr2_bit_name(enum jr2_bit_kind kind, unsigned int bit);
/* "read_file,read_dir" (joined by sep), "none" when bits is 0. */
const char *jr2_format_bits(enum jr2_bit_kind kind, uint64_t bits,
			    const char *sep, char *buf, size_t size);

#endif /* JR2_ABI_H */
