// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ABI probe (the syscall alone decides), the cap (G7) and the one table
 * of what each ABI offers.  Every other part reads features from here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "landlock_uapi.h"
#include "policy.h"

const struct jr2_feature_info jr2_features[JR2_FEAT_COUNT] = {
    [JR2_FEAT_TRUNCATE] = {"truncate", 3,
			   "truncate(2) and O_TRUNC of protected and "
			   "read-only files are denied (R6, O2)"},
    [JR2_FEAT_IOCTL_DEV] = {"ioctl_dev", 5,
			    "ioctl(2) on device files is handled"},
    [JR2_FEAT_SCOPE_SIGNAL] = {"scope_signal", 6,
			       "confined programs cannot signal the "
			       "Harness or the Custodian (P2)"},
    [JR2_FEAT_SCOPE_ABSTRACT_UNIX] = {"scope_abstract_unix", 6,
				      "confined programs cannot connect to "
				      "abstract unix sockets made outside "
				      "their domain (P2)"},
    [JR2_FEAT_AUDIT_LOG_FLAGS] = {"audit_log_flags", 7,
				  "denials are logged to the audit log, "
				  "tunable per domain"},
    [JR2_FEAT_TSYNC] = {"tsync", 8,
			"the domain is applied to every thread of the "
			"confining process at once"},
    [JR2_FEAT_RESOLVE_UNIX] = {"resolve_unix", 9,
			       "connects to pathname unix sockets are "
			       "handled (jr2 grants them everywhere, R8)"},
    [JR2_FEAT_NO_NEW_PRIVS_FLAG] = {"no_new_privs_flag", 11,
				    "no_new_privs is set by the restrict "
				    "call itself"},
};

/* Each ABI's additions; the rights of ABI n are those of 1..n. */
static const uint64_t fs_rights_added[JR2_ABI_NEWEST + 1] = {
    [1] = (JR2_ACCESS_FS_MAKE_SYM << 1) - 1,
    [2] = JR2_ACCESS_FS_REFER,
    [3] = JR2_ACCESS_FS_TRUNCATE,
    [5] = JR2_ACCESS_FS_IOCTL_DEV,
    [9] = JR2_ACCESS_FS_RESOLVE_UNIX,
};

uint64_t jr2_abi_fs_rights(int abi)
{
	uint64_t rights = 0;

	for (int i = 1; i <= abi && i <= JR2_ABI_NEWEST; i++)
		rights |= fs_rights_added[i];
	return rights;
}

uint64_t jr2_abi_scopes(int abi)
{
	if (abi >= 6)
		return JR2_SCOPE_ABSTRACT_UNIX_SOCKET | JR2_SCOPE_SIGNAL;
	return 0;
}

uint32_t jr2_abi_log_flags(int abi)
{
	if (abi >= 7)
		return JR2_RESTRICT_SELF_LOG_SAME_EXEC_OFF |
		       JR2_RESTRICT_SELF_LOG_NEW_EXEC_ON |
		       JR2_RESTRICT_SELF_LOG_SUBDOMAINS_OFF;
	return 0;
}

uint32_t jr2_abi_restrict_flags(int abi)
{
	uint32_t flags = jr2_abi_log_flags(abi);

	if (abi >= 8)
		flags |= JR2_RESTRICT_SELF_TSYNC;
	if (abi >= 11)
		flags |= JR2_RESTRICT_SELF_NO_NEW_PRIVS;
	return flags;
}

/* clang-format off */
static const char *const fs_right_names[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir",
	"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
	"make_fifo", "make_block", "make_sym", "refer", "truncate",
	"ioctl_dev", "resolve_unix",
};
static const char *const scope_names[] = {"abstract_unix_socket", "signal"};
static const char *const restrict_flag_names[] = {
	"log_same_exec_off", "log_new_exec_on", "log_subdomains_off", "tsync",
	"no_new_privs",
};
/* clang-format on */

const char *jr2_bit_name(enum jr2_bit_kind kind, unsigned int bit)
{
	switch (kind) {
	case JR2_BITS_FS:
		if (bit < sizeof(fs_right_names) / sizeof(*fs_right_names))
			return fs_right_names[bit];
		break;
	case JR2_BITS_SCOPE:
		if (bit < sizeof(scope_names) / sizeof(*scope_names))
			return scope_names[bit];
		break;
	case JR2_BITS_RESTRICT:
		if (bit <
		    sizeof(restrict_flag_names) / sizeof(*restrict_flag_names))
			return restrict_flag_names[bit];
		break;
	}
	return NULL;
}

const char *jr2_format_bits(enum jr2_bit_kind kind, uint64_t bits,
			    const char *sep, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int bit = 0; bit < 64; bit++) {
		const char *name;

		if (!(bits & (1ULL << bit)))
			continue;
		name = jr2_bit_name(kind, bit);
		len += snprintf(buf + len, len < size ? size - len : 0, "%s%s",
				len ? sep : "", name ? name : "unknown");
	}
	if (!len)
		snprintf(buf, size, "none");
	return buf;
}

static long probe_flags(uint32_t flags)
{
	long ret = jr2_sys_create_ruleset(NULL, 0, flags);

	return ret < 0 ? -errno : ret;
}

void jr2_abi_probe(struct jr2_abi *abi, int cap)
{
	long version = probe_flags(JR2_CREATE_RULESET_VERSION);

	memset(abi, 0, sizeof(*abi));
	abi->cap = cap;
	if (version < 0) {
		abi->probe_errno = (int)-version;
		return;
	}
	abi->kernel = (int)version;
	abi->in_force = abi->kernel;
	if (abi->in_force > JR2_ABI_NEWEST)
		abi->in_force = JR2_ABI_NEWEST;
	if (cap > 0 && abi->in_force > cap)
		abi->in_force = cap;

	/*
	 * Some kernels (Debian's 6.1) answer any flag with 0 instead of
	 * EINVAL; a flag no kernel defines tells "no errata query" apart
	 * from "errata 0".
	 */
	long errata = probe_flags(JR2_CREATE_RULESET_ERRATA);
	long control = probe_flags(1U << 31);

	if (errata >= 0 && control == -EINVAL) {
		abi->errata = (uint32_t)errata;
		abi->errata_known = true;
	}
}

bool jr2_abi_has(const struct jr2_abi *abi, enum jr2_feature feature)
{
	return feature < JR2_FEAT_COUNT &&
	       abi->in_force >= jr2_features[feature].min_abi;
}

enum jr2_verdict jr2_abi_verdict(const struct jr2_abi *abi)
{
	if (abi->probe_errno == ENOSYS)
		return JR2_VERDICT_NO_LANDLOCK;
	if (abi->probe_errno == EOPNOTSUPP)
		return JR2_VERDICT_NOT_ENABLED;
	if (abi->probe_errno)
		return JR2_VERDICT_PROBE_FAILED;
	if (abi->in_force < JR2_ABI_REQUIRED)
		return JR2_VERDICT_ABI_TOO_OLD;
	return JR2_VERDICT_ACCEPT;
}

const char *jr2_verdict_name(enum jr2_verdict verdict)
{
	switch (verdict) {
	case JR2_VERDICT_ACCEPT:
		return "accepted";
	case JR2_VERDICT_NO_LANDLOCK:
		return "no_landlock";
	case JR2_VERDICT_NOT_ENABLED:
		return "not_enabled";
	case JR2_VERDICT_ABI_TOO_OLD:
		return "abi_too_old";
	case JR2_VERDICT_PROBE_FAILED:
		return "probe_failed";
	}
	return "unknown";
}

const char *jr2_verdict_reason(const struct jr2_abi *abi, char *buf,
			       size_t size)
{
	switch (jr2_abi_verdict(abi)) {
	case JR2_VERDICT_ACCEPT:
		snprintf(buf, size,
			 "Landlock ABI %d is in force (required: %d): every "
			 "right and scope of ABI %d is used",
			 abi->in_force, JR2_ABI_REQUIRED, abi->in_force);
		break;
	case JR2_VERDICT_NO_LANDLOCK:
		snprintf(buf, size,
			 "the kernel lacks Landlock (landlock_create_ruleset: "
			 "ENOSYS): boot Linux 6.2 or newer built with "
			 "CONFIG_SECURITY_LANDLOCK=y");
		break;
	case JR2_VERDICT_NOT_ENABLED:
		snprintf(buf, size,
			 "Landlock is built but not enabled at boot "
			 "(landlock_create_ruleset: EOPNOTSUPP): add "
			 "'landlock' to the kernel's lsm= boot parameter");
		break;
	case JR2_VERDICT_ABI_TOO_OLD:
		if (abi->cap && abi->cap < abi->kernel)
			snprintf(buf, size,
				 "Landlock ABI %d found (kernel %d, capped at "
				 "%d), ABI %d required (truncate): raise or "
				 "drop the cap (--max-abi, JR2_MAX_ABI)",
				 abi->in_force, abi->kernel, abi->cap,
				 JR2_ABI_REQUIRED);
		else
			snprintf(buf, size,
				 "Landlock ABI %d found, ABI %d required "
				 "(truncate): boot Linux 6.2 or newer",
				 abi->in_force, JR2_ABI_REQUIRED);
		break;
	case JR2_VERDICT_PROBE_FAILED:
		snprintf(buf, size,
			 "the Landlock probe failed (landlock_create_ruleset: "
			 "%s): check the kernel's seccomp or LSM setup",
			 strerror(abi->probe_errno));
		break;
	}
	return buf;
}

int jr2_abi_cap(const char *flag, char *msg, size_t size)
{
	const char *input = flag ? "--max-abi" : "JR2_MAX_ABI";
	const char *text = flag ? flag : getenv("JR2_MAX_ABI");
	long cap;

	if (!text || (!flag && !*text))
		return 0;
	if (jr2_parse_number(text, 1, JR2_ABI_NEWEST, &cap)) {
		snprintf(msg, size,
			 "%s '%s' is not an ABI: give a number from 1 to %d",
			 input, text, JR2_ABI_NEWEST);
		return -1;
	}
	return (int)cap;
}

const char *jr2_abi_unavailable(const struct jr2_abi *abi, char *buf,
				size_t size)
{
	/* The features that protect something; the others only refine. */
	static const enum jr2_feature protections[] = {
	    JR2_FEAT_TRUNCATE,
	    JR2_FEAT_IOCTL_DEV,
	    JR2_FEAT_SCOPE_SIGNAL,
	    JR2_FEAT_SCOPE_ABSTRACT_UNIX,
	};
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(protections) / sizeof(*protections);
	     i++) {
		const struct jr2_feature_info *f =
		    &jr2_features[protections[i]];

		if (jr2_abi_has(abi, protections[i]))
			continue;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
					"%s%s (ABI %d+)", len ? ", " : "",
					f->name, f->min_abi);
	}
	return buf;
}

int jr2_yama_ptrace_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int scope = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &scope) != 1 || scope < 0)
		scope = -1;
	fclose(f);
	return scope;
}
