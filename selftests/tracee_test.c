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
 * gdb's `run` does (P3).
 *
 * Promises: P7
 */
#include <sys/ptrace.h>

#include "step_helpers.h"

ST_FIXTURE(tracee)

/* ---- the programs: `<binary> --tracee-helper VERB ARG...` ---- */

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* The TracerPid line of /proc/self/status: 0 when untraced. */
static int tracer_pid(void)
{
	char line[256];
	int pid = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			pid = atoi(line + 10);
	if (f)
		fclose(f);
	return pid;
}

/* TRACEME, then a signal to itself: "traceme ok", "usr1 handled tracer 0". */
static int traceme_then_signal(void)
{
	printf("traceme %s\n", ptrace(PTRACE_TRACEME, 0, NULL, NULL)
				   ? strerrorname_np(errno)
				   : "ok");
	fflush(stdout);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	printf("usr1 %s tracer %d\n", got_usr1 ? "handled" : "lost",
	       tracer_pid());
	fflush(stdout);
	return 0;
}

static int tracee_helper(int argc, char **argv, const char *self)
{
	if (argc == 2 && !strcmp(argv[0], "signal")) {
		traceme_then_signal();
		return atoi(argv[1]);
	}
	if (argc == 2 && !strcmp(argv[0], "exec")) {
		/* execve sends a tracee SIGTRAP: a stop of its own. */
		char *const next[] = {(char *)self, "--tracee-helper",
				      "untraced", argv[1], NULL};

		printf("traceme %s\n", ptrace(PTRACE_TRACEME, 0, NULL, NULL)
					   ? strerrorname_np(errno)
					   : "ok");
		fflush(stdout);
		execv(self, next);
		return 100;
	}
	if (argc == 2 && !strcmp(argv[0], "untraced")) {
		printf("tracer %d\n", tracer_pid());
		return atoi(argv[1]);
	}
	if (argc == 2 && !strcmp(argv[0], "orphan")) {
		/* A child left to the subreaper, then its tracee; it writes
		   what it saw to argv[1]. */
		pid_t parent = getpid(), child = fork();

		if (child < 0)
			return 100;
		if (child > 0)
			return 0;
		while (getppid() == parent)
			usleep(1000);
		if (!freopen(argv[1], "w", stdout))
			_exit(100);
		traceme_then_signal();
		_exit(0);
	}
	if (argc == 0 || (argc == 1 && !strcmp(argv[0], "gdb-run"))) {
		/* gdb's `run`: its child asks to be traced by it. */
		int status;
		pid_t child = fork();

		if (child == 0) {
			if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
				_exit(100);
			raise(SIGSTOP);
			_exit(5);
		}
		if (child < 0 || waitpid(child, &status, 0) != child)
			return 100;
		printf("%s %d\n",
		       WIFSTOPPED(status) ? "stopped" : "not-stopped",
		       WIFSTOPPED(status) ? WSTOPSIG(status) : status);
		if (ptrace(PTRACE_CONT, child, NULL, NULL) ||
		    waitpid(child, &status, 0) != child)
			return 100;
		printf("exit %d\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	fprintf(stderr, "tracee-helper: unknown verb\n");
	return 101;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--tracee-helper"))
		return tracee_helper(argc - 2, argv + 2, argv[0]);
	if (argc > 1 && !strcmp(argv[1], "--step-helper"))
		return st_helper(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--hx-helper"))
		return hx_helper(argc - 2, argv + 2);
	return test_harness_run(argc, argv);
}

/* ---- running them ---- */

/*
 * `<binary> --tracee-helper VERB...` by `path`; run's path as a process
 * group leader, so that jr2-confine forks (setsid() refuses a leader) and
 * its parent waits for the program.  Output in out; the exit status.
 */
static int tracee_run(struct st *st, enum st_path path,
		      const char *const verb[], char *out, size_t size)
{
	char *argv[24];
	int n = 0, fds[2], status;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	if (path == ST_RUN) {
		argv[n++] = st->confine;
		argv[n++] = "run";
		argv[n++] = "--quiet";
		argv[n++] = "--protect";
		argv[n++] = HX_PROTECTED;
		argv[n++] = "--";
	} else if (path == ST_EXEC) {
		argv[n++] = st->hx.harness;
		argv[n++] = "exec";
		argv[n++] = "--root";
		argv[n++] = HX_ROOT;
		argv[n++] = "--";
	}
	argv[n++] = st->hx.self;
	argv[n++] = "--tracee-helper";
	for (size_t i = 0; verb[i] && n < 23; i++)
		argv[n++] = (char *)verb[i];
	argv[n] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execv(argv[0], argv);
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

#define TRACEE(st, path, out, ...)                               \
	({                                                       \
		const char *const _verb[] = {__VA_ARGS__, NULL}; \
		tracee_run(st, path, _verb, out, sizeof(out));   \
	})

/* The program's own status, once it has taken its signal untraced. */
static void assert_signal_taken(struct __test_metadata *_metadata,
				struct st *st, enum st_path path)
{
	char out[ST_OUT_SIZE];

	EXPECT_EQ(7, TRACEE(st, path, out, "signal", "7"))
	{
		TH_LOG("%s: %s", st_path_name[path], out);
	}
	EXPECT_STREQ("traceme ok\nusr1 handled tracer 0\n", out)
	{
		TH_LOG("%s", st_path_name[path]);
	}
	EXPECT_EQ(9, TRACEE(st, path, out, "exec", "9"))
	{
		TH_LOG("%s: %s", st_path_name[path], out);
	}
	EXPECT_STREQ("traceme ok\ntracer 0\n", out)
	{
		TH_LOG("%s", st_path_name[path]);
	}
}

/* P3: a program's child asks to be traced by it, as under gdb's `run`. */
static void assert_gdb_run(struct __test_metadata *_metadata, struct st *st,
			   enum st_path path)
{
	char out[ST_OUT_SIZE];

	EXPECT_EQ(0, TRACEE(st, path, out, "gdb-run"))
	{
		TH_LOG("%s: %s", st_path_name[path], out);
	}
	EXPECT_STREQ("stopped 19\nexit 5\n", out)
	{
		TH_LOG("%s", st_path_name[path]);
	}
}

TEST_F(tracee, P7_traceme_program_runs_on_run)
{
	struct st *st = &self->st;

	ST_START(st);
	assert_gdb_run(_metadata, st, ST_UNCONFINED);
	assert_gdb_run(_metadata, st, ST_RUN);
	assert_signal_taken(_metadata, st, ST_RUN);
}

TEST_F(tracee, P7_traceme_program_runs_on_exec)
{
	struct st *st = &self->st;

	ST_START(st);
	assert_gdb_run(_metadata, st, ST_EXEC);
	assert_signal_taken(_metadata, st, ST_EXEC);
}

/* An orphan, the harness's child now (its subreaper), takes it as tracer. */
TEST_F(tracee, P7_traceme_orphan_runs_on_exec)
{
	struct st *st = &self->st;
	char out[ST_OUT_SIZE], seen[256] = "";
	const char *file = ST_FREE "/orphan";

	ST_START(st);
	ASSERT_EQ(0, TRACEE(st, ST_EXEC, out, "orphan", file))
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
