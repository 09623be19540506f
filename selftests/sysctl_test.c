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
#include "ways.h"

WAY_FIXTURE(sysctl)
WAY_FIXTURE(sysctl_exec)

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
	    fx_open_doors(_metadata, kernel_settings, O_WRONLY, doors, 16);

	FX_NEED_DOORS(n, "kernel setting");
	FX_CONFINE(&self->way.fx);
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
	FX_CONFINE(&self->way.fx);
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
	    fx_open_doors(_metadata, process_settings, O_WRONLY, doors, 16);

	FX_NEED_DOORS(n, "process setting");
	FX_CONFINE(&self->way.fx);
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

	FX_CONFINE(&self->way.fx);
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
	FX_CONFINE(&self->way.fx);
	EXPECT_EQ(0, test_list("/proc", &after));
	EXPECT_LT(0, after);
	EXPECT_EQ(0, test_read("/proc/1/stat"));
	EXPECT_EQ(0, test_read("/proc/loadavg"));
	EXPECT_EQ(0, test_read("/proc/self/mountinfo"));
}

/* The same by `path`: each door opens unconfined (the control), and no
   program of `path` opens it; reading stays. */
static void kernel_settings_by(struct __test_metadata *_metadata,
			       struct way *way, enum way_path path)
{
	const char *doors[16], *denied;
	size_t n =
	    fx_open_doors(_metadata, kernel_settings, O_WRONLY, doors, 16);

	FX_NEED_DOORS(n, "kernel setting");
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
	EXPECT_STREQ(denied, WAY_TRY(way, path, "open-write",
				     "/proc/self/oom_score_adj"));
	EXPECT_STREQ("ok", WAY_TRY(way, path, "read-file",
				   "/proc/sys/kernel/core_pattern"));
}

TEST_F(sysctl, R9_kernel_settings_read_only_run)
{
	kernel_settings_by(_metadata, &self->way, WAY_RUN);
}

TEST_F(sysctl_exec, R9_kernel_settings_read_only_exec)
{
	kernel_settings_by(_metadata, &self->way, WAY_EXEC);
}

TEST_HARNESS_MAIN
