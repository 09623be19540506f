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
#include "ways.h"

WAY_FIXTURE(sysfs)
WAY_FIXTURE(sysfs_exec)

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
	    fx_open_doors(_metadata, sysfs_settings, O_WRONLY, doors, 16);

	FX_NEED_DOORS(n, "sysfs setting");
	FX_CONFINE(&self->way.fx);
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
	FX_CONFINE(&self->way.fx);
	EXPECT_EQ(0, test_list("/sys", &count));
	EXPECT_LT(0, count);
	EXPECT_EQ(0, test_list("/sys/class", NULL));
	EXPECT_EQ(0, test_read("/sys/kernel/uevent_seqnum"));
}

/* The same by `path`: each door opens unconfined (the control), and no
   program of `path` opens it; reading and listing stay. */
static void sysfs_settings_by(struct __test_metadata *_metadata,
			      struct way *way, enum way_path path)
{
	const char *doors[16], *denied;
	size_t n =
	    fx_open_doors(_metadata, sysfs_settings, O_WRONLY, doors, 16);

	FX_NEED_DOORS(n, "sysfs setting");
	WAY_CONFINE(way, path);
	denied = way_write_denied(way, path);
	for (size_t i = 0; i < n; i++) {
		EXPECT_STREQ(
		    "ok", WAY_TRY(way, WAY_UNCONFINED, "open-write", doors[i]));
		EXPECT_STREQ(denied, WAY_TRY(way, path, "open-write", doors[i]))
		{
			TH_LOG("%s: %s", way_name[path], doors[i]);
		}
	}
	EXPECT_STREQ(
	    "ok", WAY_TRY(way, path, "read-file", "/sys/kernel/uevent_seqnum"));
	EXPECT_STREQ("ok", WAY_TRY(way, path, "list", "/sys"));
}

TEST_F(sysfs, R9_sysfs_settings_read_only_run)
{
	sysfs_settings_by(_metadata, &self->way, WAY_RUN);
}

TEST_F(sysfs_exec, R9_sysfs_settings_read_only_exec)
{
	sysfs_settings_by(_metadata, &self->way, WAY_EXEC);
}

TEST_HARNESS_MAIN
