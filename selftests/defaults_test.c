// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jr2-confine run` with jr2's defaults fails closed when
 * the default protected dir /run/jr2 is missing, a symlink or not a dir
 * (exit 125, nothing runs): a /run/jr2 made afterwards would be readable.
 * Controls: the same run once /run/jr2 is a real dir, and with the policy
 * named (--protect).  /run is a tmpfs of the test's own mount namespace.
 *
 * Promises: R1
 */
#include "step_helpers.h"

ST_FIXTURE(escapes)

/* `jr2-confine run [--protect DIR] -- jr2-try creat MARKER`: its status. */
static int run_defaults(struct st *st, const char *protect, char *out,
			size_t size)
{
	char *argv[] = {st->confine,	 "run", "--quiet",	 "--protect",
			(char *)protect, "--",	st->hx.try_tool, "creat",
			ST_FREE "/ran",	 NULL};

	if (!protect) /* the defaults: drop "--protect DIR" */
		memmove(&argv[3], &argv[5], 5 * sizeof(*argv));
	return st_run(argv, -1, false, out, size);
}

TEST_F(escapes, R1_defaults_fail_closed_run)
{
	struct st *st = &self->st;
	static const char *const states[] = {"missing", "a symlink",
					     "not a dir"};
	char out[ST_OUT_SIZE], says[128];

	HX_REQUIRE_ACCEPTED(&st->hx);
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's private /run");
	ASSERT_EQ(0, mount("jr2-run", "/run", "tmpfs", 0, "mode=0755"));
	for (size_t i = 0; i < sizeof(states) / sizeof(*states); i++) {
		if (i == 1)
			ASSERT_EQ(0, symlink(ST_FREE, "/run/jr2"));
		if (i == 2) {
			ASSERT_EQ(0, unlink("/run/jr2"));
			fx_make_file(_metadata, "/run/jr2", "", 0600);
		}
		ASSERT_EQ(JR2_EXIT_REFUSED,
			  run_defaults(st, NULL, out, sizeof(out)))
		{
			TH_LOG("%s: %s", states[i], out);
		}
		snprintf(says, sizeof(says),
			 "the default protected dir /run/jr2 is %s", states[i]);
		ASSERT_NE(NULL, strstr(out, says))
		{
			TH_LOG("'%s' lacks '%s'", out, says);
		}
		ASSERT_NE(0, access(ST_FREE "/ran", F_OK));
		/* Control: the policy named, the same command runs. */
		ASSERT_EQ(0, run_defaults(st, ST_RO, out, sizeof(out)))
		{
			TH_LOG("%s", out);
		}
		ASSERT_EQ(0, unlink(ST_FREE "/ran"));
	}
	/* Control: /run/jr2 a real dir, the defaults run. */
	ASSERT_EQ(0, unlink("/run/jr2"));
	fx_make_dir(_metadata, "/run/jr2", 0700);
	ASSERT_EQ(0, run_defaults(st, NULL, out, sizeof(out)))
	{
		TH_LOG("%s", out);
	}
	ASSERT_EQ(0, access(ST_FREE "/ran", F_OK));
}

TEST_HARNESS_MAIN
