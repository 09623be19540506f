// SPDX-License-Identifier: GPL-2.0-only
/*
 * Issue 18 row 11, other processes' limits: prlimit(2) on a process of the
 * same user needs no capability, and Landlock does not check it, so a root
 * program would set the harness's RLIMIT_NOFILE to 0 (the harness then
 * ends at its next connection) or its RLIMIT_CORE.  The confinement step
 * refuses prlimit64 with another pid and new limits (EPERM); reading another
 * process's limits and setting a program's own stay.  The limits set are
 * the ones in force (nothing changes, even where it succeeds).  Through
 * `jr2-confine run` (on this test, the unconfined parent) and `jr2-harness
 * exec` (on the harness); the control is the same call unconfined.
 *
 * Promises: P1
 */
#include <sys/resource.h>

#include "step_helpers.h"

/* prlimit(PID, RLIMIT_NOFILE): "set" the values in force, or "get". */
static int lm_helper(const char *verb, pid_t pid)
{
	struct rlimit now;

	if (prlimit(pid, RLIMIT_NOFILE, NULL, &now))
		return st_print_errno(errno);
	if (!strcmp(verb, "lm-get"))
		return st_print_errno(0);
	return st_print_errno(prlimit(pid, RLIMIT_NOFILE, &now, NULL) ? errno
								      : 0);
}

ST_FIXTURE(escapes)

TEST_F(escapes, P1_limits_no_prlimit_of_others)
{
	struct st *st = &self->st;
	char me[32], harness[32];

	ST_START(st);
	hx_pid_str(getpid(), me, sizeof(me));
	hx_pid_str(st->hx.pid, harness, sizeof(harness));
	/* Control: unconfined, both are set (to what they are). */
	ASSERT_STREQ("ok", ST_HELP(st, ST_UNCONFINED, "lm-set", me));
	ASSERT_STREQ("ok", ST_HELP(st, ST_UNCONFINED, "lm-set", harness));
	ASSERT_STREQ("EPERM", ST_HELP(st, ST_RUN, "lm-set", me));
	ASSERT_STREQ("EPERM", ST_HELP(st, ST_EXEC, "lm-set", harness));
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		/* Reading stays, and a program's own limits. */
		ASSERT_STREQ("ok", ST_HELP(st, path, "lm-get",
					   path == ST_RUN ? me : harness))
		{
			TH_LOG("%s", st_path_name[path]);
		}
		ASSERT_STREQ("ok", ST_HELP(st, path, "lm-set", "0"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
	/* The harness still serves. */
	ASSERT_STREQ("ok", ST_HELP(st, ST_EXEC, "lm-get", "0"));
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--step-helper") &&
	    !strncmp(argv[2], "lm-", 3))
		return lm_helper(argv[2], (pid_t)atoi(argv[3]));
	if (argc > 1 && !strcmp(argv[1], "--step-helper"))
		return st_helper(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--hx-helper"))
		return hx_helper(argc - 2, argv + 2);
	return test_harness_run(argc, argv);
}
