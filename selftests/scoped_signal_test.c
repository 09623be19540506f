// SPDX-License-Identifier: GPL-2.0-only
/*
 * P2 (signals), G6: from ABI 6 no signal of a confined program reaches the
 * harness (the Custodian here): EPERM.  Below ABI 6 the
 * runtime must say so (status: scope_signal unavailable) and must not claim
 * more: the signal does reach the harness.  Positive control: a program of
 * the same domain can be signalled.
 *
 * Promises: G6 P2
 */
#include "harness_helpers.h"

HX_FIXTURE(scoped_signal)

static void assert_status_lists(struct __test_metadata *_metadata,
				struct hx *hx, enum jr2_feature feature)
{
	char out[HX_OUT_SIZE], value[512], padded[520], word[64];
	bool has = jr2_abi_has(&hx->abi, feature);

	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
	ASSERT_NE(NULL, hx_field(out, has ? "enforced" : "unavailable", value,
				 sizeof(value)));
	snprintf(padded, sizeof(padded), " %s ", value);
	snprintf(word, sizeof(word), " %s ", jr2_features[feature].name);
	ASSERT_NE(NULL, strstr(padded, word))
	{
		TH_LOG("status does not list %s as %s: %s",
		       jr2_features[feature].name,
		       has ? "enforced" : "unavailable", out);
	}
}

static void assert_signal(struct __test_metadata *_metadata, struct hx *hx,
			  pid_t target, const char *sig)
{
	int expected = fx_expect(&hx->abi, JR2_FEAT_SCOPE_SIGNAL, EPERM);
	char pid[16];

	hx_pid_str(target, pid, sizeof(pid));
	ASSERT_STREQ(expected ? "EPERM" : "ok", HX_TRY(hx, "kill", pid, sig));
}

TEST_F(scoped_signal, P2_G6_signal_to_harness)
{
	struct hx *hx = &self->hx;
	char peer[16];
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer,
		   sizeof(peer));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", peer, "0"));
	assert_status_lists(_metadata, hx, JR2_FEAT_SCOPE_SIGNAL);
	assert_signal(_metadata, hx, hx->pid, "0");
	/* SIGWINCH: delivered and ignored by the harness where allowed. */
	assert_signal(_metadata, hx, hx->pid, "28");
	ASSERT_EQ(0, kill(hx->pid, 0));
}

TEST_F(scoped_signal, P2_sigkill_to_harness)
{
	struct hx *hx = &self->hx;
	char peer[16];
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer,
		   sizeof(peer));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", peer, "0"));
	/* SIGKILL to the harness: refused from ABI 6 (it must live on). */
	if (jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_SIGNAL)) {
		assert_signal(_metadata, hx, hx->pid, "9");
		ASSERT_EQ(0, kill(hx->pid, 0));
	} else {
		assert_signal(_metadata, hx, hx->pid, "0");
	}
}

HX_MAIN
