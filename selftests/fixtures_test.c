// SPDX-License-Identifier: GPL-2.0-only
/*
 * The suite's own fixtures keep their word: these tests hold what their
 * cheap ways (shared setup, no per-test copies) must still give.  No promise of
 * docs/PROMISES.md: what every other test's isolation rests on.
 *
 *   fixtures_tree     common.h's tree is drawn with its exact modes (made
 *                     under umask 0, no chmod after each entry), and the
 *                     test then runs at umask 022.
 *   fixtures_harness  harness_helpers.h: the binary runs in a network
 *                     namespace of its own (made once, at its start), not
 *                     the host's; hx_stop ends the harness and every program
 *                     it started (read from /proc, no `status`); the
 *                     spawner hx_start waits for is the first one (the plan
 *                     the harness compiled at start confines it: no restart
 *                     hides a failed first confinement).
 *
 * Promises:
 */
#include "harness_helpers.h"

JR2_FIXTURE(fixtures_tree);

static mode_t ft_mode(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

TEST_F(fixtures_tree, modes_drawn_exactly)
{
	static const struct {
		const char *path;
		mode_t mode;
	} entries[] = {
	    {FX_RUN, 0755},	  {FX_PID, 0644},	 {FX_PROTECTED, 0700},
	    {FX_SECRET, 0600},	  {FX_SUB, 0700},	 {FX_DEEP, 0600},
	    {FX_REPOS, 0755},	  {FX_README, 0644},	 {FX_TOOL, 0755},
	    {FX_REPOS_SUB, 0755}, {FX_REPOS_FILE, 0644}, {FX_WORK, 0755},
	    {FX_FILE, 0644},	  {FX_DIR, 0755},	 {FX_FILE2, 0644},
	    {FX_OTHER, 0755},
	};
	mode_t was;
	int fd;

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		mode_t mode = ft_mode(entries[i].path);

		ASSERT_EQ(entries[i].mode, mode)
		{
			TH_LOG("'%s' drawn %04o, not %04o", entries[i].path,
			       mode, entries[i].mode);
		}
	}
	ASSERT_EQ(0, test_read(FX_SECRET));
	/* The test runs at 022: what it makes now gets 0644 and 0755. */
	was = umask(022);
	ASSERT_EQ(022, was);
	fd =
	    open(FX_WORK "/new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0644, ft_mode(FX_WORK "/new"));
	ASSERT_EQ(0, mkdir(FX_WORK "/d", 0777));
	ASSERT_EQ(0755, ft_mode(FX_WORK "/d"));
}

HX_FIXTURE(fixtures_harness);

/* The inode of /proc/PID/ns/net (PID "self" or a number), or 0. */
static ino_t fh_netns(const char *pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/net", pid);
	return stat(path, &st) ? 0 : st.st_ino;
}

TEST_F(fixtures_harness, own_network_namespace)
{
	char parent[16], starter[16], state;
	pid_t starter_pid;

	/*
	 * The binary's own process (this test's parent) made it at its start:
	 * the process that started the binary (the runner) is in another.
	 */
	if (fx_runtime_fixture())
		SKIP(return, "JR2_FIXTURE=runtime: the runtime's container is "
			     "the binaries' network namespace, one binary at a "
			     "time");
	hx_pid_str(getppid(), parent, sizeof(parent));
	ASSERT_TRUE(fx_proc_stat(parent, &state, &starter_pid));
	hx_pid_str(starter_pid, starter, sizeof(starter));
	ASSERT_NE(0, fh_netns("self"));
	ASSERT_NE(0, fh_netns(starter));
	ASSERT_NE(fh_netns(starter), fh_netns("self"))
	{
		TH_LOG("the test runs in the network namespace of the binary's "
		       "starter (%s): its abstract socket names are the "
		       "host's",
		       starter);
	}
	ASSERT_EQ(fh_netns(parent), fh_netns("self"));
}

/* Whether `pid` is gone (or a zombie) within 5 s. */
static bool fh_gone(pid_t pid)
{
	char name[32], state;
	pid_t ppid;

	snprintf(name, sizeof(name), "%d", (int)pid);
	for (int waited = 0; waited < 5000; waited += 10) {
		if (!fx_proc_stat(name, &state, &ppid) || state == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

TEST_F(fixtures_harness, stop_ends_every_program)
{
	struct hx *hx = &self->hx;
	pid_t client, program, harness;

	HX_START(hx, NULL);
	program = hx_start_sleeper(_metadata, hx, &client);
	ASSERT_LT(0, program);
	harness = hx->pid;
	/* Control: both live until hx_stop. */
	ASSERT_EQ(0, kill(program, 0));
	ASSERT_EQ(0, kill(harness, 0));
	hx_stop(hx);
	ASSERT_EQ(0, hx->pid);
	ASSERT_EQ(-1, kill(harness, 0));
	ASSERT_EQ(ESRCH, errno);
	ASSERT_TRUE(fh_gone(program))
	{
		TH_LOG("program %d outlived hx_stop", (int)program);
	}
	/* Its client ends with it (the connection closed). */
	ASSERT_EQ(client, waitpid(client, NULL, 0));
}

TEST_F(fixtures_harness, first_spawner_confines)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE * 4], line[128];

	HX_START(hx, NULL);
	ASSERT_EQ(1, hx->generation);
	hx_log(log, sizeof(log));
	ASSERT_EQ(NULL, strstr(log, "could not confine"))
	{
		TH_LOG("log: %s", log);
	}
	/* Control: its start line names it, confined. */
	snprintf(line, sizeof(line),
		 "spawner generation 1 (pid %d) confined at Landlock ABI ",
		 (int)hx->spawner);
	ASSERT_NE(NULL, strstr(log, line))
	{
		TH_LOG("no '%s' in the log: %s", line, log);
	}
}

TEST_HARNESS_MAIN
