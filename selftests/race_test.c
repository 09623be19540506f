// SPDX-License-Identifier: GPL-2.0-only
/*
 * Issue 17 row 9, the race door: the protected dir exchanged with a sibling
 * (renameat2 RENAME_EXCHANGE) between planning and landlock_add_rule, or
 * between the rules and landlock_restrict_self.  Every rule carries the
 * dev and ino it was planned for and every restricted path is checked again
 * before restricting: confinement is refused (ESTALE, exit 125), nothing is
 * restricted.  Deterministic: the library's test-only hook runs the
 * exchange at the exact step (no sleep).  The positive control confines
 * the same policy without the exchange.
 *
 * Promises: R9
 */
#include <linux/fs.h>

#include "common.h"

JR2_FIXTURE(race)

static const char *swap_a, *swap_b;
static int swap_stage;

static void swap_hook(const struct jr2_ruleset_plan *plan, int stage)
{
	(void)plan;
	if (stage == swap_stage)
		syscall(SYS_renameat2, AT_FDCWD, swap_a, AT_FDCWD, swap_b,
			RENAME_EXCHANGE);
}

static void exchange_at(struct __test_metadata *_metadata, struct jr2_fx *fx,
			int stage, const char *words)
{
	struct jr2_policy policy;
	struct jr2_ruleset_plan plan;
	struct jr2_err err = {0};

	FX_REQUIRE_FEATURE(&fx->abi, JR2_FEAT_TRUNCATE);
	fx_make_dir(_metadata, FX_RUN "/sib", 0755);
	fx_policy(_metadata, &policy);
	ASSERT_EQ(0,
		  jr2_policy_compile(&policy, fx->abi.in_force, &plan, &err));
	swap_a = FX_PROTECTED;
	swap_b = FX_RUN "/sib";
	swap_stage = stage;
	jr2_confine_test_hook = swap_hook;
	EXPECT_EQ(-1, jr2_confine_plan(&plan, 0, &err));
	jr2_confine_test_hook = NULL;
	EXPECT_EQ(ESTALE, err.code);
	EXPECT_FALSE(err.bad_input);
	EXPECT_NE(NULL, strstr(err.msg, words)) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "run again")) TH_LOG("%s", err.msg);
	/* Nothing restricted: the secret (now at sib) still reads. */
	EXPECT_EQ(0, test_read(FX_RUN "/sib/secret"));
	jr2_plan_free(&plan);
	jr2_policy_free(&policy);
	/* Control: exchanged back, the same policy confines. */
	ASSERT_EQ(0,
		  test_renameat2(FX_PROTECTED, FX_RUN "/sib", RENAME_EXCHANGE));
	FX_CONFINE(fx);
	EXPECT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(race, R9_exchange_before_add_rule_refused)
{
	exchange_at(_metadata, &self->fx, 0, "'" FX_RUN "/sib'");
}

TEST_F(race, R9_exchange_before_restrict_refused)
{
	exchange_at(_metadata, &self->fx, 1,
		    "restricted path '" FX_PROTECTED "'");
}

TEST_HARNESS_MAIN
