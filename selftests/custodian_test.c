// SPDX-License-Identifier: GPL-2.0-only
/*
 * R8: the Custodian's socket in the protected dir can be connected to by a
 * confined program, and a request without the control Stand-in is refused;
 * with it (from the unconfined harness side) it is accepted.  The control
 * channel of the harness: every request without the right bearer, and every
 * malformed, truncated or oversized one, gets one clear refusal, and the
 * harness keeps serving; a confined program cannot drive the harness.
 *
 * Promises: R8 E5
 */
#include "harness_helpers.h"

HX_FIXTURE(custodian)

static void control_standin(struct __test_metadata *_metadata, char *value,
			    size_t size)
{
	char text[4096];
	int fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	text[n] = '\0';
	ASSERT_EQ(0, strncmp(text, "control=", 8));
	snprintf(value, size, "%.*s", (int)strcspn(text + 8, "\n"), text + 8);
}

TEST_F(custodian, R8_connect_works_request_refused_without_standin)
{
	struct hx *hx = &self->hx;
	char control[128], out[HX_OUT_SIZE];
	int status;

	HX_START(hx, NULL);
	ASSERT_STREQ("ok", HX_TRY(hx, "connect-unix", HX_CUSTODIAN));
	ASSERT_STREQ("refused the request has no control Stand-in; only the "
		     "Harness holds it",
		     HX_TRY_LINE(hx, "custodian", HX_CUSTODIAN, "GET /menu"));
	/* The public fetch Stand-in is no control Stand-in. */
	ASSERT_STREQ("refused the request has no control Stand-in; only the "
		     "Harness holds it",
		     HX_TRY_LINE(hx, "custodian", HX_CUSTODIAN,
				 "jr2-fetch-public GET /menu"));
	/* The confined program cannot read the Stand-in to try it. */
	ASSERT_STREQ("EACCES", HX_TRY(hx, "read-file", HX_STANDINS));
	/* Positive control: the harness side, with the control Stand-in. */
	control_standin(_metadata, control, sizeof(control));
	{
		char line[256];
		char *const argv[] = {hx->try_tool, "custodian", HX_CUSTODIAN,
				      line, NULL};

		snprintf(line, sizeof(line), "%s GET /menu", control);
		ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
		ASSERT_STREQ("ok request accepted with the control Stand-in\n",
			     out);
		/* Every byte counts: a near miss, first or last, is refused
		   (compared in constant time, jr2_secret_equal). */
		for (int at = 0; at < 2; at++) {
			snprintf(line, sizeof(line), "%s GET /menu", control);
			line[at ? strlen(control) - 1 : 0] ^= 0x01;
			ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
			EXPECT_STREQ("refused the request has no control "
				     "Stand-in; only the Harness holds it\n",
				     out)
			{
				TH_LOG("the Stand-in changed in its %s byte "
				       "was taken",
				       at ? "last" : "first");
			}
		}
	}
}

static void assert_still_serves(struct __test_metadata *_metadata,
				struct hx *hx)
{
	char out[HX_OUT_SIZE];

	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)))
	{
		TH_LOG("status after a refusal: %s", out);
	}
}

TEST_F(custodian, R8_control_channel_refuses_bad_requests)
{
	struct hx *hx = &self->hx;
	char good[128], out[HX_OUT_SIZE], *big;
	int stdio[3] = {0, 1, 2};
	static const struct {
		const char *what, *message_part;
	} cases[] = {
	    {"JR2H1\nop 6:status\n", "refused no bearer"},
	    {"JR2H1\nop 6:status\nbearer 5:guess\n", "refused wrong bearer"},
	    {"GET / HTTP/1.1\r\n\r\n", "refused request: does not start"},
	    {"JR2H1\nop 6:status\nbearer 99:x\n",
	     "refused request: field 'bearer' at byte 18 announces 99"},
	    {"JR2H1\nop 6:status\nbogus", "refused request: malformed field"},
	};

	HX_START(hx, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hx_control_raw(_metadata, cases[i].what, strlen(cases[i].what),
			       NULL, 0, out, sizeof(out));
		ASSERT_EQ(0, strncmp(out, cases[i].message_part,
				     strlen(cases[i].message_part)))
		{
			TH_LOG("case %zu: answer '%s'", i, out);
		}
		assert_still_serves(_metadata, hx);
	}
	/* Oversized: 70000 bytes. */
	big = malloc(70000);
	ASSERT_NE(NULL, big);
	memset(big, 'x', 70000);
	memcpy(big, "JR2H1\n", 6);
	hx_control_raw(_metadata, big, 70000, NULL, 0, out, sizeof(out));
	free(big);
	ASSERT_NE(NULL, strstr(out, "70000 bytes, more than the 65536"))
	{
		TH_LOG("answer '%s'", out);
	}
	assert_still_serves(_metadata, hx);
	/* Right bearer, unknown secret. */
	hx_bearer(_metadata, good, sizeof(good));
	{
		struct jr2_msg msg;

		jr2_msg_init(&msg);
		jr2_msg_field(&msg, "op", "exec");
		jr2_msg_field(&msg, "bearer", good);
		jr2_msg_field(&msg, "secret", "NO_SUCH_SECRET");
		jr2_msg_field(&msg, "arg", "/bin/true");
		hx_control_raw(_metadata, msg.buf, msg.len, stdio, 3, out,
			       sizeof(out));
		jr2_msg_free(&msg);
		ASSERT_NE(NULL, strstr(out, "unknown secret 'NO_SUCH_SECRET'"));
	}
	/* Right bearer, no stdio passed. */
	{
		struct jr2_msg msg;

		jr2_msg_init(&msg);
		jr2_msg_field(&msg, "op", "exec");
		jr2_msg_field(&msg, "bearer", good);
		jr2_msg_field(&msg, "arg", "/bin/true");
		hx_control_raw(_metadata, msg.buf, msg.len, NULL, 0, out,
			       sizeof(out));
		jr2_msg_free(&msg);
		ASSERT_NE(NULL, strstr(out, "passed 0 descriptors"));
	}
	assert_still_serves(_metadata, hx);
	/* Positive control: the right bearer gets an answer. */
	{
		struct jr2_msg msg;

		jr2_msg_init(&msg);
		jr2_msg_field(&msg, "op", "status");
		jr2_msg_field(&msg, "bearer", good);
		hx_control_raw(_metadata, msg.buf, msg.len, NULL, 0, out,
			       sizeof(out));
		jr2_msg_free(&msg);
		ASSERT_EQ(0, strncmp(out, "status\nharness_pid: ", 20));
	}
}

TEST_F(custodian, R8_confined_program_cannot_drive_the_harness)
{
	struct hx *hx = &self->hx;
	const char *const status[] = {hx->harness, "status", "--root", HX_ROOT,
				      NULL};
	char out[HX_OUT_SIZE];

	HX_START(hx, NULL);
	/* Positive control: unconfined, with the bearer file, it works. */
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
	/* Confined: the bearer file is out of reach. */
	ASSERT_EQ(JR2_EXIT_REFUSED, hx_exec(hx, status, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "control.bearer': Permission denied"))
	{
		TH_LOG("answer: %s", out);
	}
	/* A guessed bearer: refused. */
	{
		char path[] = HX_ETC "/guess";
		const char *const guessed[] = {
		    hx->harness,     "status", "--root", HX_ROOT,
		    "--bearer-file", path,     NULL};

		fx_make_file(_metadata, path, "jr2-0000\n", 0644);
		ASSERT_EQ(JR2_EXIT_REFUSED,
			  hx_exec(hx, guessed, out, sizeof(out)));
		ASSERT_NE(NULL, strstr(out, "refused: wrong bearer"))
		{
			TH_LOG("answer: %s", out);
		}
	}
}

TEST_F(custodian, R8_bearer_file_read_once_at_start)
{
	struct hx *hx = &self->hx;
	/* The bearer file lies in a protected dir (E4): HX_SECRET. */
	const char *const extra[] = {"--bearer-file", HX_SECRET "/bearer",
				     "--config", HX_ETC "/harness.conf", NULL};
	char *const with_file[] = {
	    hx->harness,	 "status", "--root", HX_ROOT, "--bearer-file",
	    HX_SECRET "/bearer", NULL};
	char out[HX_OUT_SIZE];
	int status;

	fx_make_dir(_metadata, HX_SECRET, 0700);
	fx_make_file(_metadata, HX_SECRET "/bearer", "a-long-enough-bearer\n",
		     0600);
	fx_make_file(_metadata, HX_ETC "/harness.conf",
		     HX_TRUST_ETC HX_TRUST_SECRET, 0644);
	hx->bearer_file = HX_SECRET "/bearer";
	HX_START(hx, extra);
	/* No bearer file of its own in the protected dir. */
	ASSERT_EQ(ENOENT, test_open(HX_BEARER, O_RDONLY));
	ASSERT_EQ(0, fx_run(with_file, out, sizeof(out), &status));
	ASSERT_EQ(0, status);
	/* Read once at start (only its SHA-256 kept): a new file changes
	 * nothing. */
	ASSERT_EQ(0, unlink(HX_SECRET "/bearer"));
	fx_make_file(_metadata, HX_SECRET "/bearer", "a-long-enough-bearer\n",
		     0600);
	ASSERT_EQ(0, fx_run(with_file, out, sizeof(out), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, unlink(HX_SECRET "/bearer"));
	fx_make_file(_metadata, HX_SECRET "/bearer", "another\n", 0600);
	ASSERT_EQ(0, fx_run(with_file, out, sizeof(out), &status));
	ASSERT_EQ(JR2_EXIT_REFUSED, status);
	ASSERT_NE(NULL, strstr(out, "wrong bearer"));
	/* Back to the right bearer for the teardown. */
	ASSERT_EQ(0, unlink(HX_SECRET "/bearer"));
	fx_make_file(_metadata, HX_SECRET "/bearer", "a-long-enough-bearer\n",
		     0600);
}

/* A second harness on the same dir must not rewrite the Stand-ins. */
TEST_F(custodian, R8_E5_second_harness_on_same_dir_refused)
{
	struct hx *hx = &self->hx;
	char *const second[] = {hx->harness, "serve", "--root", HX_ROOT, NULL};
	char before[128], after[128], log[HX_OUT_SIZE];
	int status;

	HX_START(hx, NULL);
	control_standin(_metadata, before, sizeof(before));
	ASSERT_EQ(0, fx_run(second, log, sizeof(log), &status));
	ASSERT_EQ(1, status);
	ASSERT_NE(NULL, strstr(log, "another harness serves '" HX_PROTECTED))
	{
		TH_LOG("log: %s", log);
	}
	control_standin(_metadata, after, sizeof(after));
	ASSERT_STREQ(before, after);
	ASSERT_EQ(0, hx_status(hx, log, sizeof(log)));
}

TEST_HARNESS_MAIN
