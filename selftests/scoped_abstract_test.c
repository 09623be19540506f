// SPDX-License-Identifier: GPL-2.0-only
/*
 * P2 (abstract sockets), G6: from ABI 6 a confined program cannot connect
 * to the abstract unix socket the harness (the Custodian here) made: EPERM.
 * Below ABI 6 the status says scope_abstract_unix is unavailable and the
 * connection works.  Positive control: the unconfined test connects.
 *
 * Promises: G6 P2
 */
#include "harness_helpers.h"

HX_FIXTURE(scoped_abstract)

TEST_F(scoped_abstract, P2_G6_connect_to_harness_abstract_socket)
{
	struct hx *hx = &self->hx;
	int expected;
	bool has;
	char out[HX_OUT_SIZE], value[512];

	HX_START(hx, NULL);
	has = jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	expected = fx_expect(&hx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX, EPERM);
	/* Positive control: the socket exists and answers, unconfined. */
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
	ASSERT_STREQ("@" HX_ABSTRACT,
		     hx_field(out, "abstract_socket", value, sizeof(value)));
	ASSERT_NE(NULL, hx_field(out, has ? "enforced" : "unavailable", value,
				 sizeof(value)));
	ASSERT_NE(NULL, strstr(value, "scope_abstract_unix"));
	ASSERT_STREQ(expected ? "EPERM" : "ok",
		     HX_TRY(hx, "connect-abstract", HX_ABSTRACT));
}

TEST_F(scoped_abstract, P2_abstract_custodian_answers_unconfined_client)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE];
	int status;
	char *const argv[] = {hx->self,	       "--hx-helper", "custodian",
			      "@" HX_ABSTRACT, "no-stand-in", NULL};

	HX_START(hx, NULL);
	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	ASSERT_EQ(0, status);
	ASSERT_NE(NULL, strstr(out, "refused"))
	{
		TH_LOG("answer: %s", out);
	}
}

HX_MAIN
