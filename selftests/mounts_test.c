// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mount door: no mount may show a restricted path (or a part
 * of it) at another place with more rights.  A read-only tree bound in a
 * full folder, a mount below the protected dir mounted again in a full
 * folder, an overlay with the protected dir as a layer, proc or sysfs
 * mounted outside /proc and /sys, an alias that cannot be opened:
 * each is refused, nothing runs (exit 125), and the message names both
 * paths and the fix.  Docker's masks (/dev/null on a /proc file, /proc/sys
 * bound read-only at its own place) still confine.  Through
 * jr2_confine_self(), `jr2-confine run` and (a spawner that restarts after
 * the mount) `jr2-harness exec`; the positive control is the same policy
 * without the mount.
 *
 * Promises: O2 R9
 */
#include "ways.h"

WAY_FIXTURE(mounts)
HX_FIXTURE(mounts_exec)

static void bind_at(struct __test_metadata *_metadata, const char *from,
		    const char *to)
{
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's bind mount");
	ASSERT_EQ(0, mount(from, to, NULL, MS_BIND, NULL))
	{
		TH_LOG("bind '%s' on '%s': %s", from, to, strerror(errno));
	}
}

/*
 * The fixture's policy is refused, with a message holding `a` and `b`:
 * through the library (nothing restricted) and `jr2-confine run` (exit 125,
 * the command never runs).
 */
static void refused(struct __test_metadata *_metadata, struct way *way,
		    const char *a, const char *b)
{
	struct jr2_policy policy;
	struct jr2_ruleset_plan plan;
	struct jr2_err err = {0};
	const char *const verb[] = {"creat", FX_WORK "/ran", NULL};
	char out[WAY_OUT_SIZE];

	fx_policy(_metadata, &policy);
	/* The compiler refuses, on every kernel (bad input and these come
	   before the kernel's verdict). */
	ASSERT_EQ(-1,
		  jr2_policy_compile(&policy, JR2_ABI_REQUIRED, &plan, &err));
	EXPECT_FALSE(err.bad_input);
	EXPECT_NE(NULL, strstr(err.msg, a)) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, b)) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "umount")) TH_LOG("%s", err.msg);
	/* Confining is refused as a whole: nothing restricted. */
	EXPECT_EQ(-1, jr2_confine_self(&policy, &way->fx.abi, 0, &err));
	jr2_policy_free(&policy);
	/* Nothing was restricted. */
	EXPECT_EQ(0, test_read(FX_SECRET));
	EXPECT_EQ(JR2_EXIT_REFUSED,
		  way_try(way, WAY_RUN, verb, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, a)) TH_LOG("%s", out);
	EXPECT_EQ(ENOENT, test_stat(FX_WORK "/ran"));
}

/* The positive control: the same policy confines without the mount. */
static void confines(struct __test_metadata *_metadata, struct jr2_fx *fx)
{
	struct jr2_policy policy;
	struct jr2_ruleset_plan plan;
	struct jr2_err err = {0};

	fx_policy(_metadata, &policy);
	ASSERT_EQ(0, jr2_policy_compile(&policy, JR2_ABI_REQUIRED, &plan, &err))
	{
		TH_LOG("%s", err.msg);
	}
	jr2_plan_free(&plan);
	jr2_policy_free(&policy);
	(void)fx;
}

TEST_F(mounts, O2_R9_read_only_tree_bound_in_full_folder_refused)
{
	confines(_metadata, &self->way.fx);
	fx_make_dir(_metadata, FX_WORK "/r", 0755);
	bind_at(_metadata, FX_REPOS_SUB, FX_WORK "/r");
	refused(_metadata, &self->way, "'" FX_REPOS_SUB "'", "'" FX_WORK "/r'");
}

TEST_F(mounts, R9_mount_below_protected_dir_shown_elsewhere_refused)
{
	fx_make_dir(_metadata, FX_PROTECTED "/m", 0700);
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's mount");
	ASSERT_EQ(0,
		  mount("jr2-sub", FX_PROTECTED "/m", "tmpfs", 0, "size=1m"));
	fx_make_file(_metadata, FX_PROTECTED "/m/key", "k\n", 0600);
	confines(_metadata, &self->way.fx);
	fx_make_dir(_metadata, FX_WORK "/m", 0755);
	bind_at(_metadata, FX_PROTECTED "/m", FX_WORK "/m");
	refused(_metadata, &self->way, "'" FX_PROTECTED "/m'",
		"'" FX_WORK "/m'");
}

TEST_F(mounts, R9_overlay_with_protected_layer_refused)
{
	confines(_metadata, &self->way.fx);
	fx_make_dir(_metadata, FX_WORK "/up", 0755);
	fx_make_dir(_metadata, FX_WORK "/wd", 0755);
	fx_make_dir(_metadata, FX_WORK "/o", 0755);
	if (mount("overlay", FX_WORK "/o", "overlay", 0,
		  "lowerdir=" FX_PROTECTED ",upperdir=" FX_WORK
		  "/up,workdir=" FX_WORK "/wd"))
		SKIP(return, "overlayfs cannot be mounted here: %s",
			   strerror(errno));
	refused(_metadata, &self->way, "lowerdir '" FX_PROTECTED "'",
		"'" FX_WORK "/o'");
}

TEST_F(mounts, R9_proc_outside_its_tree_refused)
{
	confines(_metadata, &self->way.fx);
	fx_make_dir(_metadata, FX_WORK "/p", 0755);
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's mount");
	ASSERT_EQ(0, mount("proc", FX_WORK "/p", "proc", 0, NULL));
	refused(_metadata, &self->way, "proc file system at '" FX_WORK "/p'",
		"'/proc'");
}

TEST_F(mounts, R9_sysfs_outside_its_tree_refused)
{
	confines(_metadata, &self->way.fx);
	fx_make_dir(_metadata, FX_WORK "/s", 0755);
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's mount");
	ASSERT_EQ(0, mount("sysfs", FX_WORK "/s", "sysfs", 0, NULL));
	/* One sysfs per network namespace: the same file system as /sys. */
	refused(_metadata, &self->way, "'" FX_WORK "/s'", "'/sys'");
}

/* /proc/sys bound at a full folder: the sysctls would be writable there. */
TEST_F(mounts, R9_proc_sys_bound_in_full_folder_refused)
{
	confines(_metadata, &self->way.fx);
	fx_make_dir(_metadata, FX_WORK "/sys", 0755);
	bind_at(_metadata, "/proc/sys", FX_WORK "/sys");
	refused(_metadata, &self->way, "'" FX_WORK "/sys'", "umount -l");
}

/* An alias of the protected dir hidden under another mount
   (reachable by an inherited working dir) is refused, not skipped. */
TEST_F(mounts, R9_alias_that_cannot_be_opened_refused)
{
	fx_make_dir(_metadata, FX_WORK "/x", 0755);
	fx_make_dir(_metadata, FX_WORK "/x/b", 0755);
	bind_at(_metadata, FX_PROTECTED, FX_WORK "/x/b");
	ASSERT_EQ(0, mount("jr2-hide", FX_WORK "/x", "tmpfs", 0, "size=1m"));
	refused(_metadata, &self->way, "'" FX_WORK "/x/b'", "cannot be opened");
}

/* Docker's masks: equal or fewer rights at the alias; still confines. */
TEST_F(mounts, R9_docker_masks_still_confine)
{
	static const char *const masked[] = {"/proc/kcore", "/proc/keys",
					     "/proc/timer_list", NULL};
	const char *file = NULL;

	for (int i = 0; masked[i] && !file; i++)
		if (!test_stat(masked[i]))
			file = masked[i];
	if (!file)
		SKIP(return, "none of /proc/kcore, keys, timer_list here");
	bind_at(_metadata, "/dev/null", file);
	bind_at(_metadata, "/proc/sys", "/proc/sys");
	ASSERT_EQ(0, mount(NULL, "/proc/sys", NULL,
			   MS_BIND | MS_REMOUNT | MS_RDONLY, NULL));
	FX_CONFINE(&self->way.fx);
	/* (/proc/sys is read-only twice now: EROFS comes first there.) */
	EXPECT_EQ(EROFS, test_open("/proc/sys/kernel/core_pattern", O_WRONLY));
	EXPECT_EQ(EACCES, test_open("/proc/self/oom_score_adj", O_WRONLY));
	/* The mask is /dev/null's inode: its rule goes with it. */
	EXPECT_EQ(0, test_open(file, O_WRONLY));
	EXPECT_EQ(EACCES, test_read(FX_SECRET));
	EXPECT_EQ(0, test_open("/dev/null", O_RDWR));
}

/*
 * Through the harness: a mount made after it started is seen by the next
 * spawner, which refuses to confine itself; nothing runs.
 */
TEST_F(mounts_exec, R9_alias_refused_by_next_spawner)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE], out[HX_OUT_SIZE];
	const char *const argv[] = {hx->try_tool, "creat", HX_ETC "/ran", NULL};
	bool said = false;

	HX_START(hx, NULL);
	/* Control: a program runs. */
	ASSERT_STREQ("ok", HX_TRY(hx, "creat", HX_ETC "/ran0"));
	ASSERT_EQ(0, mkdir(HX_PROTECTED "/m", 0700));
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's mount");
	ASSERT_EQ(0, mount("jr2-sub", HX_PROTECTED "/m", "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(HX_ETC "/m", 0755));
	ASSERT_EQ(0,
		  mount(HX_PROTECTED "/m", HX_ETC "/m", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
	for (int waited = 0; waited < HX_READY_MS && !said; waited += 10) {
		hx_log(log, sizeof(log));
		said = strstr(log, "could not confine itself") &&
		       strstr(log, "'" HX_ETC "/m'");
		if (!said)
			usleep(10000);
	}
	ASSERT_TRUE(said) TH_LOG("log: %s", log);
	EXPECT_NE(0, hx_exec(hx, argv, out, sizeof(out)));
	EXPECT_EQ(ENOENT, test_stat(HX_ETC "/ran"));
}

TEST_HARNESS_MAIN
