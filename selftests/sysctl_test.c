// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sysctl door: /proc is a read-only tree in every policy, so
 * no kernel setting (core_pattern, modprobe, binfmt_misc, sysrq-trigger,
 * drop_caches) and no process setting (/proc/<pid>/oom_score_adj, ...) can
 * be written by a confined program, even as root: EACCES.  /proc stays
 * readable (ps, top), and /proc/self/fd/N still reaches its file.  Proven
 * through jr2_confine_self(), `jr2-confine run` and `jr2-harness exec`; the
 * positive control opens the same file unconfined.  No test writes a
 * setting but core_pattern, with the value it already has.
 *
 * Promises: R9 A5
 */
#include "doors.h"

JR2_FIXTURE(sysctl)
HX_FIXTURE(sysctl_exec)

static const char *const kernel_settings[] = {
    "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
    "/proc/sys/kernel/poweroff_cmd", "/proc/sys/fs/binfmt_misc/register",
    "/proc/sysrq-trigger",	     "/proc/sys/vm/drop_caches",
    "/proc/sys/net/ipv4/ip_forward", NULL,
};

static const char *const process_settings[] = {
    "/proc/self/oom_score_adj",
    "/proc/self/coredump_filter",
    "/proc/self/comm",
    "/proc/self/timerslack_ns",
    NULL,
};

TEST_F(sysctl, R9_kernel_settings_read_only)
{
	const char *doors[16];
	size_t n =
	    dr_open_doors(_metadata, kernel_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "kernel setting");
	FX_CONFINE(&self->fx);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(EACCES, test_open(doors[i], O_WRONLY))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	/* Reading stays: sysctl -a, ps, top. */
	EXPECT_EQ(0, test_read("/proc/sys/kernel/core_pattern"));
	EXPECT_EQ(0, test_list("/proc/sys/kernel", NULL));
}

/* A real write, with the value it already has: allowed unconfined,
   EACCES confined, and the value is unchanged. */
TEST_F(sysctl, R9_core_pattern_rewritten_with_its_own_value)
{
	static const char path[] = "/proc/sys/kernel/core_pattern";
	char value[256] = "", after[256] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	ASSERT_LE(0, fd);
	len = read(fd, value, sizeof(value) - 1);
	close(fd);
	ASSERT_LT(0, len);
	value[strcspn(value, "\n")] = '\0';
	FX_SKIP_UNLESS_ROOT("the unconfined control's sysctl write");
	FX_SKIP_READ_ONLY("/proc/sys", "the unconfined control's sysctl write");
	ASSERT_EQ(0, test_write(path, value, 0));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_write(path, value, 0));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, after, sizeof(after) - 1));
	close(fd);
	after[strcspn(after, "\n")] = '\0';
	ASSERT_STREQ(value, after);
}

TEST_F(sysctl, R9_process_settings_read_only)
{
	const char *doors[16];
	size_t n =
	    dr_open_doors(_metadata, process_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "process setting");
	FX_CONFINE(&self->fx);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(EACCES, test_open(doors[i], O_WRONLY))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	EXPECT_EQ(0, test_read("/proc/self/status"));
}

/* The magic link resolves to the file's own path: its rules apply. */
TEST_F(sysctl, A5_proc_self_fd_reaches_its_file)
{
	char path[64];
	int fd;

	FX_CONFINE(&self->fx);
	fd = open(FX_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	EXPECT_EQ(0, test_write(path, "via fd\n", O_TRUNC));
	close(fd);
	fd = open(FX_README, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	EXPECT_EQ(EACCES, test_open(path, O_WRONLY));
	close(fd);
}

TEST_F(sysctl, A5_proc_readable)
{
	int before = 0, after = 0;

	ASSERT_EQ(0, test_list("/proc", &before));
	FX_CONFINE(&self->fx);
	EXPECT_EQ(0, test_list("/proc", &after));
	EXPECT_LT(0, after);
	EXPECT_EQ(0, test_read("/proc/1/stat"));
	EXPECT_EQ(0, test_read("/proc/loadavg"));
	EXPECT_EQ(0, test_read("/proc/self/mountinfo"));
}

TEST_F(sysctl, R9_kernel_settings_read_only_run)
{
	const char *doors[16], *denied;
	size_t n =
	    dr_open_doors(_metadata, kernel_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "kernel setting");
	DR_REQUIRE_ACCEPTED(&self->fx);
	denied = dr_write_denied(_metadata);
	for (size_t i = 0; i < n; i++) {
		EXPECT_STREQ("ok", DR_UNCONFINED("open-write", doors[i]));
		EXPECT_STREQ(denied, DR_RUN("open-write", doors[i]))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	EXPECT_STREQ(denied, DR_RUN("open-write", "/proc/self/oom_score_adj"));
	EXPECT_STREQ("ok",
		     DR_RUN("read-file", "/proc/sys/kernel/core_pattern"));
}

TEST_F(sysctl_exec, R9_kernel_settings_read_only_exec)
{
	struct hx *hx = &self->hx;
	const char *doors[16], *denied;
	size_t n =
	    dr_open_doors(_metadata, kernel_settings, O_WRONLY, doors, 16);

	DR_NEED_DOORS(n, "kernel setting");
	HX_START(hx, NULL);
	denied = hx_write_denied();
	for (size_t i = 0; i < n; i++) {
		EXPECT_STREQ(denied, HX_TRY(hx, "open-write", doors[i]))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	EXPECT_STREQ(denied,
		     HX_TRY(hx, "open-write", "/proc/self/oom_score_adj"));
	EXPECT_STREQ("ok",
		     HX_TRY(hx, "read-file", "/proc/sys/kernel/core_pattern"));
}

TEST_HARNESS_MAIN
