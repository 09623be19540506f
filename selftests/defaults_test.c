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
#include "ways.h"

WAY_FIXTURE(escapes)

/* `jr2-confine run [--protect DIR] -- jr2-try creat MARKER`: its status. */
static int run_defaults(struct way *way, const char *protect, char *out,
			size_t size)
{
	char *argv[] = {way->confine,	 "run", "--quiet",	  "--protect",
			(char *)protect, "--",	way->hx.try_tool, "creat",
			FX_WORK "/ran",	 NULL};

	if (!protect) /* the defaults: drop "--protect DIR" */
		memmove(&argv[3], &argv[5], 5 * sizeof(*argv));
	return way_run(argv, -1, false, out, size);
}

TEST_F(escapes, R1_defaults_fail_closed_run)
{
	struct way *way = &self->way;
	static const char *const states[] = {"missing", "a symlink",
					     "not a dir"};
	char out[WAY_OUT_SIZE], says[128];

	HX_REQUIRE_ACCEPTED(&way->hx);
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's private /run");
	ASSERT_EQ(0, mount("jr2-run", "/run", "tmpfs", 0, "mode=0755"));
	for (size_t i = 0; i < sizeof(states) / sizeof(*states); i++) {
		if (i == 1)
			ASSERT_EQ(0, symlink(FX_WORK, "/run/jr2"));
		if (i == 2) {
			ASSERT_EQ(0, unlink("/run/jr2"));
			fx_make_file(_metadata, "/run/jr2", "", 0600);
		}
		ASSERT_EQ(JR2_EXIT_REFUSED,
			  run_defaults(way, NULL, out, sizeof(out)))
		{
			TH_LOG("%s: %s", states[i], out);
		}
		snprintf(says, sizeof(says),
			 "the default protected dir /run/jr2 is %s", states[i]);
		ASSERT_NE(NULL, strstr(out, says))
		{
			TH_LOG("'%s' lacks '%s'", out, says);
		}
		ASSERT_NE(0, access(FX_WORK "/ran", F_OK));
		/* Control: the policy named, the same command runs. */
		ASSERT_EQ(0, run_defaults(way, FX_REPOS, out, sizeof(out)))
		{
			TH_LOG("%s", out);
		}
		ASSERT_EQ(0, unlink(FX_WORK "/ran"));
	}
	/* Control: /run/jr2 a real dir, the defaults run. */
	ASSERT_EQ(0, unlink("/run/jr2"));
	fx_make_dir(_metadata, "/run/jr2", 0700);
	ASSERT_EQ(0, run_defaults(way, NULL, out, sizeof(out)))
	{
		TH_LOG("%s", out);
	}
	ASSERT_EQ(0, access(FX_WORK "/ran", F_OK));
}

TEST_HARNESS_MAIN
