// SPDX-License-Identifier: GPL-2.0-only
/*
 * An agent's day: what an agent does as the container's root
 * user, confined under jr2's defaults (`jr2-confine run` with no policy
 * flag, /run/jr2 present), behaves as unconfined: ldconfig, an in-place edit
 * in /etc (sed -i), a new file in /etc, useradd -M/userdel, a daemon's pid
 * file in an existing /var/run subfolder, a `make install`-like copy into
 * /usr/local, git init/commit, a compiler run, python3 -m venv.  Each step
 * runs unconfined (the control) and confined, in the test's own mount
 * namespace where /etc, /usr/local and /var are overlays on a tmpfs and
 * /run a tmpfs, so the host is left as it was.  A tool that is absent (or
 * fails unconfined) skips its step, naming it.
 *
 * Promises: A1 A3
 */
#include "common.h"

FIXTURE(agent_day)
{
	struct jr2_fx fx;
	bool overlays;
	char why[256];
};

/* An overlay of `dir` on itself, its upper layer on /tmp/ovl. */
static int overlay_on(const char *dir, const char *name)
{
	char upper[128], work[128], opts[512];

	snprintf(upper, sizeof(upper), "/tmp/ovl/%s-u", name);
	snprintf(work, sizeof(work), "/tmp/ovl/%s-w", name);
	if (mkdir(upper, 0755) || mkdir(work, 0755))
		return errno;
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", dir,
		 upper, work);
	return mount("overlay", dir, "overlay", 0, opts) ? errno : 0;
}

FIXTURE_SETUP(agent_day)
{
	static const char *const dirs[][2] = {
	    {"/etc", "etc"}, {"/usr/local", "usr-local"}, {"/var", "var"}};

	fx_setup(_metadata, &self->fx);
	ASSERT_EQ(0, mkdir("/tmp/ovl", 0755));
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's overlays");
	ASSERT_EQ(0, mount("jr2-ovl", "/tmp/ovl", "tmpfs", 0, "size=256m"));
	self->overlays = true;
	for (size_t i = 0; i < 3 && self->overlays; i++) {
		int err = overlay_on(dirs[i][0], dirs[i][1]);

		if (err) {
			snprintf(self->why, sizeof(self->why),
				 "no overlay on %s (%s: the folder or "
				 "CONFIG_OVERLAY_FS is missing): the day "
				 "would change the host",
				 dirs[i][0], strerrorname_np(err));
			self->overlays = false;
		}
	}
	/* The defaults' setting: /run/jr2 present, a /run/lock to use. */
	ASSERT_EQ(0, mount("jr2-run", "/run", "tmpfs", 0, "mode=0755,size=8m"));
	fx_make_dir(_metadata, "/run/jr2", 0700);
	fx_make_file(_metadata, "/run/jr2/secret", "s3cret\n", 0600);
	fx_make_dir(_metadata, "/run/lock", 0755);
	fx_make_dir(_metadata, FX_WORK "/home", 0755);
	/* The environment of both runs: jr2's CA variables unset. */
	clearenv();
	setenv("PATH",
	       "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
	       "/sbin:/bin",
	       1);
	setenv("HOME", FX_WORK "/home", 1);
	setenv("LC_ALL", "C", 1);
}

FIXTURE_TEARDOWN(agent_day)
{
}

/*
 * Runs `sh -c CMD` with %s in CMD replaced by "u" (unconfined) and then "c"
 * (under `jr2-confine run` and the defaults); asserts both end 0.
 */
static void day_step(struct __test_metadata *_metadata,
		     FIXTURE_DATA(agent_day) * self, const char *need,
		     const char *cmd)
{
	char line[1024], out[8192], tool[PATH_MAX];
	const char *const sh[] = {"/bin/sh", "-c", line, NULL};
	char *run[64] = {(char *)FX_FIND_TOOL("jr2-confine", tool), "run",
			 "--quiet"}; /* and jr2's own policy */
	int status = -1;

	if (!self->overlays)
		SKIP(return, "%s", self->why);
	if (need && access(need, X_OK))
		SKIP(return, "%s is absent here", need);
	snprintf(line, sizeof(line), cmd, "u", "u", "u", "u");
	ASSERT_EQ(0, fx_run((char *const *)sh, out, sizeof(out), &status));
	if (status)
		SKIP(return, "'%.200s' fails unconfined here (%d): %.300s",
			   line, status, out);
	FX_REQUIRE_ACCEPTED(&self->fx.abi);
	snprintf(line, sizeof(line), cmd, "c", "c", "c", "c");
	status = fx_run_command(run, 3, sh, out, sizeof(out));
	EXPECT_EQ(0, status)
	{
		TH_LOG("confined '%s': %s", line, out);
	}
	/* And the defaults still hold: the protected dir is shut. */
	snprintf(line, sizeof(line), "cat /run/jr2/secret");
	EXPECT_NE(0, fx_run_command(run, 3, sh, out, sizeof(out)));
}

TEST_F(agent_day, A1_A3_ldconfig)
{
	day_step(_metadata, self, "/usr/sbin/ldconfig",
		 "ldconfig && test -s /etc/ld.so.cache # %s");
}

TEST_F(agent_day, A1_sed_in_place_in_etc)
{
	day_step(_metadata, self, "/bin/sed",
		 "sed -i 's/^#jr2-probe.*$/#jr2-probe %s/' /etc/hosts && "
		 "sed -i '$a #jr2-probe %s' /etc/hosts && "
		 "grep -q 'jr2-probe %s' /etc/hosts");
}

TEST_F(agent_day, A1_new_file_in_etc)
{
	day_step(_metadata, self, NULL,
		 "echo x > /etc/new-%s.conf && test -s /etc/new-%s.conf");
}

TEST_F(agent_day, A1_A3_useradd_userdel)
{
	day_step(_metadata, self, "/usr/sbin/useradd",
		 "useradd -M jr2day%s && id jr2day%s && userdel jr2day%s");
}

TEST_F(agent_day, A1_daemon_files_in_var_run_subfolder)
{
	day_step(_metadata, self, NULL,
		 "echo $$ > /var/run/lock/jr2d-%s.pid && mkdir "
		 "/var/run/lock/jr2d-%s && rm /var/run/lock/jr2d-%s.pid");
}

TEST_F(agent_day, A1_make_install_into_usr_local)
{
	day_step(_metadata, self, "/usr/bin/install",
		 "install -D -m 0755 /bin/true /usr/local/bin/jr2-tool-%s && "
		 "install -d /usr/local/share/jr2-%s && jr2-tool-%s");
}

TEST_F(agent_day, A1_A3_git_init_commit)
{
	day_step(_metadata, self, "/usr/bin/git",
		 "cd " FX_WORK " && git init -q repo-%s && cd repo-%s && "
		 "echo a > f && git add f && git -c user.name=a -c "
		 "user.email=a@b commit -qm x && git log --oneline | grep -q "
		 "x # %s");
}

TEST_F(agent_day, A3_compiler_run)
{
	day_step(_metadata, self, "/usr/bin/gcc",
		 "cd " FX_WORK " && printf 'int main(void){return 0;}\\n' > "
		 "t-%s.c && gcc -o t-%s t-%s.c && ./t-%s");
}

TEST_F(agent_day, A1_A3_python_venv)
{
	day_step(_metadata, self, "/usr/bin/python3",
		 "/usr/bin/python3 -m venv --without-pip " FX_WORK
		 "/venv-%s && " FX_WORK "/venv-%s/bin/python -c 'print(1)' "
		 "# %s");
}

TEST_HARNESS_MAIN
