// SPDX-License-Identifier: GPL-2.0-only
/* The ABI table, the cap and the verdicts: pure, plus the probe here. */
#include "helpers.h"

#include "abi.h"
#include "landlock_uapi.h"

JR2T_GROUP(abi_table);
JR2T_GROUP(abi_cap);
JR2T_GROUP(abi_probe);

TEST_F(abi_table, G4_fs_rights_per_abi)
{
	const uint64_t v1 = (1ULL << 13) - 1; /* the 13 first rights */

	EXPECT_EQ(0, jr2_abi_fs_rights(0));
	EXPECT_EQ(v1, jr2_abi_fs_rights(1));
	EXPECT_EQ(v1 | JR2_ACCESS_FS_REFER, jr2_abi_fs_rights(2));
	EXPECT_EQ(jr2_abi_fs_rights(2) | JR2_ACCESS_FS_TRUNCATE,
		  jr2_abi_fs_rights(3));
	/* ABI 4 adds network rights only. */
	EXPECT_EQ(jr2_abi_fs_rights(3), jr2_abi_fs_rights(4));
	EXPECT_EQ(jr2_abi_fs_rights(4) | JR2_ACCESS_FS_IOCTL_DEV,
		  jr2_abi_fs_rights(5));
	EXPECT_EQ(jr2_abi_fs_rights(5), jr2_abi_fs_rights(8));
	EXPECT_EQ(jr2_abi_fs_rights(8) | JR2_ACCESS_FS_RESOLVE_UNIX,
		  jr2_abi_fs_rights(9));
	EXPECT_EQ(jr2_abi_fs_rights(9), jr2_abi_fs_rights(11));
	/* Beyond the newest known: the newest known. */
	EXPECT_EQ(jr2_abi_fs_rights(11), jr2_abi_fs_rights(42));
}

TEST_F(abi_table, G4_scopes_and_flags_per_abi)
{
	const uint64_t scopes =
	    JR2_SCOPE_SIGNAL | JR2_SCOPE_ABSTRACT_UNIX_SOCKET;
	const uint32_t log = JR2_RESTRICT_SELF_LOG_SAME_EXEC_OFF |
			     JR2_RESTRICT_SELF_LOG_NEW_EXEC_ON |
			     JR2_RESTRICT_SELF_LOG_SUBDOMAINS_OFF;

	EXPECT_EQ(0, jr2_abi_scopes(5));
	EXPECT_EQ(scopes, jr2_abi_scopes(6));
	EXPECT_EQ(scopes, jr2_abi_scopes(11));
	EXPECT_EQ(0, jr2_abi_log_flags(6));
	EXPECT_EQ(log, jr2_abi_log_flags(7));
	EXPECT_EQ(log, jr2_abi_restrict_flags(7));
	EXPECT_EQ(log | JR2_RESTRICT_SELF_TSYNC, jr2_abi_restrict_flags(8));
	EXPECT_EQ(log | JR2_RESTRICT_SELF_TSYNC |
		      JR2_RESTRICT_SELF_NO_NEW_PRIVS,
		  jr2_abi_restrict_flags(11));
}

TEST_F(abi_table, G5_features_min_abi)
{
	static const struct {
		const char *name;
		int min_abi;
	} want[JR2_FEAT_COUNT] = {
	    {"truncate", 3},	    {"ioctl_dev", 5},
	    {"scope_signal", 6},    {"scope_abstract_unix", 6},
	    {"audit_log_flags", 7}, {"tsync", 8},
	    {"resolve_unix", 9},    {"no_new_privs_flag", 11},
	};
	struct jr2_abi abi = {.kernel = 7};

	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		EXPECT_STREQ(want[f].name, jr2_features[f].name);
		EXPECT_EQ(want[f].min_abi, jr2_features[f].min_abi);
		abi.in_force = want[f].min_abi - 1;
		EXPECT_FALSE(jr2_abi_has(&abi, f));
		abi.in_force = want[f].min_abi;
		EXPECT_TRUE(jr2_abi_has(&abi, f));
	}
}

TEST_F(abi_table, G1_G2_G3_verdicts_and_reasons)
{
	struct jr2_abi abi = {0};
	char buf[400];

	abi.probe_errno = ENOSYS;
	EXPECT_EQ(JR2_VERDICT_NO_LANDLOCK, jr2_abi_verdict(&abi));
	EXPECT_NE(NULL, strstr(jr2_verdict_reason(&abi, buf, sizeof(buf)),
			       "lacks Landlock"));
	EXPECT_NE(NULL, strstr(buf, "6.2"));

	abi.probe_errno = EOPNOTSUPP;
	EXPECT_EQ(JR2_VERDICT_NOT_ENABLED, jr2_abi_verdict(&abi));
	EXPECT_NE(NULL, strstr(jr2_verdict_reason(&abi, buf, sizeof(buf)),
			       "'landlock' to the kernel's lsm="));

	abi = (struct jr2_abi){.kernel = 2, .in_force = 2};
	EXPECT_EQ(JR2_VERDICT_ABI_TOO_OLD, jr2_abi_verdict(&abi));
	EXPECT_NE(NULL, strstr(jr2_verdict_reason(&abi, buf, sizeof(buf)),
			       "ABI 2 found, ABI 3 required (truncate)"));

	abi = (struct jr2_abi){.kernel = 3, .in_force = 3};
	EXPECT_EQ(JR2_VERDICT_ACCEPT, jr2_abi_verdict(&abi));

	abi.probe_errno = EPERM;
	EXPECT_EQ(JR2_VERDICT_PROBE_FAILED, jr2_abi_verdict(&abi));
}

TEST_F(abi_cap, G7_flag_env_and_range)
{
	char msg[300];

	unsetenv("JR2_MAX_ABI");
	EXPECT_EQ(0, jr2_abi_cap(NULL, msg, sizeof(msg)));
	EXPECT_EQ(5, jr2_abi_cap("5", msg, sizeof(msg)));
	setenv("JR2_MAX_ABI", "4", 1);
	EXPECT_EQ(4, jr2_abi_cap(NULL, msg, sizeof(msg)));
	/* The flag wins over the environment. */
	EXPECT_EQ(6, jr2_abi_cap("6", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("0", msg, sizeof(msg)));
	EXPECT_STREQ("--max-abi '0' is not an ABI: give a number from 1 to 11",
		     msg);
	EXPECT_EQ(-1, jr2_abi_cap("12", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("3x", msg, sizeof(msg)));
	/* Digits only: no sign, no space, no trailing text. */
	EXPECT_EQ(3, jr2_abi_cap("03", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("+3", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap(" 3", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("3 ", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("-3", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("", msg, sizeof(msg)));
	EXPECT_EQ(-1, jr2_abi_cap("99999999999999999999999", msg, sizeof(msg)));
	setenv("JR2_MAX_ABI", "zero", 1);
	EXPECT_EQ(-1, jr2_abi_cap(NULL, msg, sizeof(msg)));
	EXPECT_STREQ("JR2_MAX_ABI 'zero' is not an ABI: give a number from 1 "
		     "to 11",
		     msg);
	unsetenv("JR2_MAX_ABI");
}

/* On this machine: the probe's ABI, and the cap applied to it. */
TEST_F(abi_probe, G7_cap_lowers_in_force)
{
	struct jr2_abi abi;

	jr2_abi_probe(&abi, 0);
	if (abi.probe_errno)
		SKIP(return, "no Landlock here (%s): nothing to probe",
			   strerror(abi.probe_errno));
	ASSERT_LE(1, abi.kernel);
	EXPECT_EQ(abi.kernel < JR2_ABI_NEWEST ? abi.kernel : JR2_ABI_NEWEST,
		  abi.in_force);
	jr2_abi_probe(&abi, 2);
	EXPECT_EQ(2, abi.in_force);
	EXPECT_EQ(JR2_VERDICT_ABI_TOO_OLD, jr2_abi_verdict(&abi));
	/* A cap above the kernel's ABI changes nothing. */
	jr2_abi_probe(&abi, 11);
	EXPECT_EQ(abi.kernel < 11 ? abi.kernel : 11, abi.in_force);
}

/* The errata query is trusted only when an undefined flag gets EINVAL. */
TEST_F(abi_probe, G5_errata_control)
{
	struct jr2_abi abi;
	long control;

	jr2_abi_probe(&abi, 0);
	if (abi.probe_errno)
		SKIP(return, "no Landlock here (%s)",
			   strerror(abi.probe_errno));
	control = jr2_sys_create_ruleset(NULL, 0, 1U << 31);
	ASSERT_EQ(-1, control);
	EXPECT_EQ(EINVAL, errno);
	if (abi.kernel >= 7)
		EXPECT_TRUE(abi.errata_known);
}

TEST_HARNESS_MAIN
