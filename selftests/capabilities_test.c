// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capability door: a confined program keeps the allow-list of
 * jr2-confine(1) in every set (bounding, permitted, effective; inheritable
 * and ambient empty) and loses the rest, so the doors around paths and into
 * other processes stay shut even for root: open_by_handle_at (EPERM without
 * CAP_DAC_READ_SEARCH), device nodes (CAP_MKNOD), the /proc files of an
 * unconfined process of more capabilities (the parent's environ).
 * Through `jr2-confine run` and `jr2-harness exec`; the control is the same
 * operation unconfined.
 *
 * Promises: P1 R3 R9
 */
#include <linux/capability.h>

#include "confine_step.h"
#include "ways.h"

WAY_FIXTURE(escapes)

static unsigned long long kept_mask(void)
{
	unsigned long long mask = 0;

	for (size_t i = 0; i < jr2_n_kept_capabilities; i++)
		mask |= 1ULL << jr2_kept_capabilities[i];
	return mask;
}

TEST_F(escapes, R9_capabilities_sets_are_the_allow_list)
{
	static const int shut[] = {CAP_SYS_ADMIN,
				   CAP_SYS_PTRACE,
				   CAP_PERFMON,
				   CAP_BPF,
				   CAP_SYS_MODULE,
				   CAP_SYS_RAWIO,
				   CAP_SYS_BOOT,
				   CAP_MKNOD,
				   CAP_DAC_READ_SEARCH,
				   CAP_LINUX_IMMUTABLE,
				   CAP_MAC_ADMIN,
				   CAP_MAC_OVERRIDE,
				   CAP_SYSLOG,
				   CAP_SYS_TIME,
				   CAP_NET_ADMIN,
				   CAP_NET_RAW,
				   CAP_AUDIT_CONTROL,
				   CAP_AUDIT_READ,
				   CAP_CHECKPOINT_RESTORE,
				   CAP_SYS_PACCT,
				   CAP_SYS_TTY_CONFIG,
				   CAP_IPC_OWNER};
	struct way *way = &self->way;
	unsigned long long set[5], all[5];

	WAY_START(way);
	ASSERT_EQ(5, sscanf(WAY_TRY_LINE(way, WAY_UNCONFINED, "caps"),
			    "%llx %llx %llx %llx %llx", &all[0], &all[1],
			    &all[2], &all[3], &all[4]));
	FX_SKIP_WITHOUT_CAP(
	    CAP_SYS_ADMIN,
	    "the control (a root that holds what programs lose)");
	/* Control: the test (root) holds what programs must lose. */
	ASSERT_TRUE(all[0] & (1ULL << CAP_SYS_ADMIN));
	ASSERT_TRUE(all[2] & (1ULL << CAP_MKNOD));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		const char *out = WAY_TRY_LINE(way, path, "caps");

		ASSERT_EQ(5, sscanf(out, "%llx %llx %llx %llx %llx", &set[0],
				    &set[1], &set[2], &set[3], &set[4]))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		/* Root after execve: permitted = effective = bounding. */
		for (int i = 0; i < 3; i++) {
			ASSERT_EQ(all[0] & kept_mask(), set[i])
			{
				TH_LOG("%s: set %d is %llx", way_name[path], i,
				       set[i]);
			}
		}
		ASSERT_EQ(0, set[3]);
		ASSERT_EQ(0, set[4]);
		/* Whatever the list says, these doors stay shut. */
		for (size_t i = 0; i < sizeof(shut) / sizeof(*shut); i++) {
			ASSERT_EQ(0, set[0] & (1ULL << shut[i]))
			{
				TH_LOG("%s: capability %d kept", way_name[path],
				       shut[i]);
			}
		}
	}
}

/* The handle of a file, opened by handle: around every path rule. */
TEST_F(escapes, R9_capabilities_open_by_handle)
{
	struct way *way = &self->way;
	static const char *const files[] = {HX_STANDINS, FX_FILE};

	WAY_START(way);
	FX_SKIP_WITHOUT_CAP(CAP_DAC_READ_SEARCH,
			    "the unconfined control's open_by_handle_at");
	for (size_t i = 0; i < 2; i++) {
		ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_UNCONFINED, "handle",
						files[i]));
		for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
			ASSERT_STREQ("EPERM", WAY_TRY_LINE(way, path, "handle",
							   files[i]))
			{
				TH_LOG("%s: %s", way_name[path], files[i]);
			}
		}
	}
}

/*
 * A block device node made anywhere reads the protected dir's storage
 * too.  Where no rule grants MAKE_BLOCK (`rules --json`), Landlock
 * denies first (EACCES), else CAP_MKNOD's absence does (EPERM).
 */
TEST_F(escapes, R3_capabilities_no_block_device)
{
	struct way *way = &self->way;
	char *const rules[] = {way->confine, "rules",	   "--json",
			       "--protect",  HX_PROTECTED, "--read-only",
			       FX_REPOS,     NULL};
	static char out[FX_RULES_SIZE];
	const char *expected;

	WAY_START(way);
	ASSERT_EQ(0, way_run(rules, -1, false, out, sizeof(out)));
	/* A rule that grants make_block, not the handled list, lets mknod
	   reach the capability check. */
	ASSERT_NE(NULL, strstr(out, "\"rules\": ["));
	expected = strstr(strstr(out, "\"rules\": ["), "\"make_block\"")
		       ? "EPERM"
		       : "EACCES";
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ(expected, WAY_TRY_LINE(way, path, "mknod-block",
						    FX_WORK "/blk"))
		{
			TH_LOG("%s", way_name[path]);
		}
		ASSERT_NE(0, access(FX_WORK "/blk", F_OK));
	}
	FX_SKIP_WITHOUT_CAP(CAP_MKNOD, "the unconfined control's device node");
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_UNCONFINED, "mknod-block",
					FX_WORK "/blk"));
	ASSERT_EQ(0, unlink(FX_WORK "/blk"));
}

/* The environment of the unconfined, root parent (this test). */
TEST_F(escapes, P1_capabilities_parent_environ)
{
	struct way *way = &self->way;
	char pid[32];

	WAY_START(way);
	hx_pid_str(getpid(), pid, sizeof(pid));
	ASSERT_STREQ("ok",
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "environ-of", pid));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("EACCES",
			     WAY_TRY_LINE(way, path, "environ-of", pid))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_HARNESS_MAIN
