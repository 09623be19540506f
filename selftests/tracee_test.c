// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program that makes its parent its tracer (PTRACE_TRACEME): the harness
 * is the parent of every program and the subreaper of their orphans, and the
 * forked parent of `jr2-confine run` (a group leader's run) waits for its
 * child.  No LSM refuses TRACEME to an unconfined parent; so such a parent
 * counts only exits (a tracee's stop reaches even a wait for exits) and lets
 * the tracee go at its first stop, with the signal it stopped for.  The
 * client gets the program's own status when it really exits (P7), the
 * program runs on untraced, and a program still traces its own child, as
 * gdb's `run` does (P3).  The programs are jr2-try's tracee verbs
 * (runtime/tests/try_tracee.c).
 *
 * Promises: P7
 */
#include "ways.h"

WAY_FIXTURE(tracee)

/* ---- running them ---- */

/*
 * jr2-try VERB... by `path`; run's path as a process group leader, so that
 * jr2-confine forks (setsid() refuses a leader) and its parent waits for
 * the program.  Output in out; the exit status.
 */
static int tracee_run(struct way *way, enum way_path path,
		      const char *const verb[], char *out, size_t size)
{
	const char *argv[24];
	int fds[2], status;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	way_argv(way, path, NULL, verb, argv, 23);
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && used + 1 < size &&
	       (got = read(fds[0], out + used, size - 1 - used)) > 0)
		used += (size_t)got;
	out[used] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define TRACEE(way, path, out, ...)                              \
	({                                                       \
		const char *const _verb[] = {__VA_ARGS__, NULL}; \
		tracee_run(way, path, _verb, out, sizeof(out));  \
	})

/* The program's own status, once it has taken its signal untraced. */
static void assert_signal_taken(struct __test_metadata *_metadata,
				struct way *way, enum way_path path)
{
	char out[WAY_OUT_SIZE];

	EXPECT_EQ(7, TRACEE(way, path, out, "traceme-signal", "7"))
	{
		TH_LOG("%s: %s", way_name[path], out);
	}
	EXPECT_STREQ("traceme ok\nusr1 handled tracer 0\n", out)
	{
		TH_LOG("%s", way_name[path]);
	}
	EXPECT_EQ(9, TRACEE(way, path, out, "traceme-exec", "9"))
	{
		TH_LOG("%s: %s", way_name[path], out);
	}
	EXPECT_STREQ("traceme ok\ntracer 0\n", out)
	{
		TH_LOG("%s", way_name[path]);
	}
}

/* P3: a program's child asks to be traced by it, as under gdb's `run`. */
static void assert_gdb_run(struct __test_metadata *_metadata, struct way *way,
			   enum way_path path)
{
	char out[WAY_OUT_SIZE];

	EXPECT_EQ(0, TRACEE(way, path, out, "gdb-run"))
	{
		TH_LOG("%s: %s", way_name[path], out);
	}
	EXPECT_STREQ("stopped 19\nexit 5\n", out)
	{
		TH_LOG("%s", way_name[path]);
	}
}

TEST_F(tracee, P7_traceme_program_runs_on_run)
{
	struct way *way = &self->way;

	WAY_START(way);
	assert_gdb_run(_metadata, way, WAY_UNCONFINED);
	assert_gdb_run(_metadata, way, WAY_RUN);
	assert_signal_taken(_metadata, way, WAY_RUN);
}

TEST_F(tracee, P7_traceme_program_runs_on_exec)
{
	struct way *way = &self->way;

	WAY_START(way);
	assert_gdb_run(_metadata, way, WAY_EXEC);
	assert_signal_taken(_metadata, way, WAY_EXEC);
}

/* An orphan, the harness's child now (its subreaper), takes it as tracer. */
TEST_F(tracee, P7_traceme_orphan_runs_on_exec)
{
	struct way *way = &self->way;
	char out[WAY_OUT_SIZE], seen[256] = "";
	const char *file = FX_WORK "/orphan";

	WAY_START(way);
	ASSERT_EQ(0, TRACEE(way, WAY_EXEC, out, "traceme-orphan", file))
	{
		TH_LOG("%s", out);
	}
	/* Bounded: 10 s for it to take its signal and write. */
	for (int waited = 0; waited < 10000; waited += 20) {
		int fd = open(file, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, seen, sizeof(seen) - 1);

		if (fd >= 0)
			close(fd);
		seen[n > 0 ? n : 0] = '\0';
		if (strstr(seen, "tracer"))
			break;
		usleep(20000);
	}
	EXPECT_STREQ("traceme ok\nusr1 handled tracer 0\n", seen);
}

TEST_HARNESS_MAIN
