// SPDX-License-Identifier: GPL-2.0-only
/*
 * The race door: the protected dir exchanged with a sibling
 * (renameat2 RENAME_EXCHANGE) between planning and landlock_add_rule, or
 * between the rules and landlock_restrict_self.  Every rule carries the
 * dev and ino it was planned for and every restricted path is checked again
 * before restricting: confinement is refused (ESTALE, exit 125), nothing is
 * restricted.  Deterministic: the library's test-only hook runs the
 * exchange at the exact step (no sleep).  The positive control confines
 * the same policy without the exchange.  The same exchange before the
 * step plans (the harness's spawner, later than the harness's own plan), or
 * a replacement of its parent, is refused against the harness's plan.
 *
 * Promises: R9
 */
#include <linux/fs.h>

#include "common.h"
#include "confine_step.h"

JR2_FIXTURE(race)

static const char *swap_a, *swap_b;
static int swap_stage = -1; /* -1: no exchange */

/* The library's seam (policy.h), this binary's own: the exchange, if armed. */
void jr2_confine_seam(const struct jr2_ruleset_plan *plan, int stage)
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
	EXPECT_EQ(-1, jr2_confine_plan(&plan, 0, &err));
	swap_stage = -1;
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

/*
 * The step in a child, with `reference` as the harness's plan at its start:
 * ESTALE and the message when refused, 0 when it confined and the secret
 * then reads EACCES, else 1.
 */
static int step_in_child(struct __test_metadata *_metadata,
			 const struct jr2_policy *policy,
			 const struct jr2_abi *abi,
			 const struct jr2_ruleset_plan *reference, char *msg,
			 size_t size)
{
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct jr2_step step = {.may_fork = true};
		struct jr2_err err = {0};

		close(pipefd[0]);
		if (jr2_confine_step_ref(policy, abi, reference, 0, &step,
					 &err)) {
			n = write(pipefd[1], err.msg, strlen(err.msg));
			_exit(err.code & 0xff);
		}
		_exit(test_read(FX_SECRET) == EACCES ? 0 : 1);
	}
	close(pipefd[1]);
	n = read(pipefd[0], msg, size - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * The harness's spawner plans after its read-only mounts, moments or hours
 * after the harness planned at its start.  A protected dir exchanged with a
 * sibling in between would take the sibling's full rights, and keep them
 * by its own name once exchanged back: the harness's plan is the step's
 * reference, each protected dir must still be the inode it planned.
 */
TEST_F(race, R9_exchange_before_the_step_plans_refused)
{
	struct jr2_fx *fx = &self->fx;
	struct jr2_policy policy;
	struct jr2_ruleset_plan reference;
	struct jr2_err err = {0};
	char msg[sizeof(err.msg)];

	FX_REQUIRE_FEATURE(&fx->abi, JR2_FEAT_TRUNCATE);
	fx_make_dir(_metadata, FX_RUN "/sib", 0755);
	fx_policy(_metadata, &policy);
	ASSERT_EQ(
	    0, jr2_policy_compile(&policy, fx->abi.in_force, &reference, &err));
	ASSERT_EQ(0,
		  test_renameat2(FX_PROTECTED, FX_RUN "/sib", RENAME_EXCHANGE));
	EXPECT_EQ(ESTALE, step_in_child(_metadata, &policy, &fx->abi,
					&reference, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "restricted path '" FX_PROTECTED "'"))
	TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "not the inode it was when planned first"))
	TH_LOG("%s", msg);
	/* Control: exchanged back, the same reference confines. */
	ASSERT_EQ(0,
		  test_renameat2(FX_PROTECTED, FX_RUN "/sib", RENAME_EXCHANGE));
	EXPECT_EQ(0, step_in_child(_metadata, &policy, &fx->abi, &reference,
				   msg, sizeof(msg)))
	TH_LOG("%s", msg);
	jr2_plan_free(&reference);
	jr2_policy_free(&policy);
}

/*
 * The same one level up: the protected dir's parent replaced before the
 * step plans (the protected dir moved into a new parent, the old one left
 * beside it, where a sibling's full rights would land) and put back once it
 * restricted.  The protected dir is the inode it was; its parent is not.
 */
TEST_F(race, R9_parent_replaced_before_the_step_plans_refused)
{
	struct jr2_fx *fx = &self->fx;
	struct jr2_policy policy;
	struct jr2_ruleset_plan reference;
	struct jr2_err err = {0};
	char msg[sizeof(err.msg)];

	FX_REQUIRE_FEATURE(&fx->abi, JR2_FEAT_TRUNCATE);
	fx_policy(_metadata, &policy);
	ASSERT_EQ(
	    0, jr2_policy_compile(&policy, fx->abi.in_force, &reference, &err));
	ASSERT_EQ(0, rename(FX_RUN, FX_ROOT "/old-run"));
	ASSERT_EQ(0, mkdir(FX_RUN, 0755));
	ASSERT_EQ(0, rename(FX_ROOT "/old-run/jr2", FX_PROTECTED));
	EXPECT_EQ(ESTALE, step_in_child(_metadata, &policy, &fx->abi,
					&reference, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "'" FX_RUN "', a folder above the "
				    "restricted path '" FX_PROTECTED "'"))
	TH_LOG("%s", msg);
	/* Control: the parent put back, the same reference confines. */
	ASSERT_EQ(0, rename(FX_PROTECTED, FX_ROOT "/old-run/jr2"));
	ASSERT_EQ(0, rmdir(FX_RUN));
	ASSERT_EQ(0, rename(FX_ROOT "/old-run", FX_RUN));
	EXPECT_EQ(0, step_in_child(_metadata, &policy, &fx->abi, &reference,
				   msg, sizeof(msg)))
	TH_LOG("%s", msg);
	jr2_plan_free(&reference);
	jr2_policy_free(&policy);
}

TEST_HARNESS_MAIN
