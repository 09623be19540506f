// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sysfs door: /sys is a read-only tree in every policy, so no
 * kernel setting in it (uevent_helper, power/state, the mm knobs, module
 * parameters, cgroup files) can be written by a confined program, even as
 * root: EACCES.  /sys stays readable.  Proven through jr2_confine_self(),
 * `jr2-confine run` and `jr2-harness exec`; the positive control opens the
 * same file unconfined.  Only opens for writing: nothing is written.
 *
 * Promises: R9 A5
 */
#include "doors.h"

JR2_FIXTURE(sysfs)
HX_FIXTURE(sysfs_exec)

static const char *const sysfs_settings[] = {
    "/sys/kernel/uevent_helper",
    "/sys/power/state",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/kernel/mm/ksm/run",
    "/sys/module/printk/parameters/time",
    "/sys/kernel/profiling",
    "/sys/fs/cgroup/cgroup.procs",
    "/sys/fs/cgroup/cgroup.subtree_control",
    NULL,
};

TEST_F(sysfs, R9_sysfs_settings_read_only)
{
	const char *doors[16];
	size_t n =
	    dr_open_doors(_metadata, sysfs_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "sysfs setting");
	FX_CONFINE(&self->fx);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(EACCES, test_open(doors[i], O_WRONLY))
		{
			TH_LOG("%s", doors[i]);
		}
	}
}

TEST_F(sysfs, A5_sysfs_readable)
{
	int count = 0;

	ASSERT_EQ(0, test_list("/sys", NULL));
	FX_CONFINE(&self->fx);
	EXPECT_EQ(0, test_list("/sys", &count));
	EXPECT_LT(0, count);
	EXPECT_EQ(0, test_list("/sys/class", NULL));
	EXPECT_EQ(0, test_read("/sys/kernel/uevent_seqnum"));
}

TEST_F(sysfs, R9_sysfs_settings_read_only_run)
{
	const char *doors[16], *denied;
	size_t n =
	    dr_open_doors(_metadata, sysfs_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "sysfs setting");
	DR_REQUIRE_ACCEPTED(&self->fx);
	denied = dr_write_denied(_metadata);
	for (size_t i = 0; i < n; i++) {
		EXPECT_STREQ("ok", DR_UNCONFINED("open-write", doors[i]));
		EXPECT_STREQ(denied, DR_RUN("open-write", doors[i]))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	EXPECT_STREQ("ok", DR_RUN("read-file", "/sys/kernel/uevent_seqnum"));
}

TEST_F(sysfs_exec, R9_sysfs_settings_read_only_exec)
{
	struct hx *hx = &self->hx;
	const char *doors[16], *denied;
	size_t n =
	    dr_open_doors(_metadata, sysfs_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "sysfs setting");
	HX_START(hx, NULL);
	denied = hx_write_denied();
	for (size_t i = 0; i < n; i++) {
		EXPECT_STREQ(denied, HX_TRY(hx, "open-write", doors[i]))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	EXPECT_STREQ("ok", HX_TRY(hx, "list", "/sys"));
}

TEST_HARNESS_MAIN
