// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stop of the harness (SIGTERM, as `docker stop` and `podman stop` send
 * it): every program and every orphan of one gets SIGTERM first, those left
 * after --stop-grace-ms get SIGKILL, each client gets its program's status,
 * the harness exits 0, and the secrets it wrote are gone from the disk.
 *
 * Promises: P8
 */
#include "harness_helpers.h"

#define GRACE_MS "1000"
/* Not in /mnt itself: a folder above the protected dir is frozen (and the
 * rules are planned at start: made before the harness starts). */
#define MARKS HX_MNT "/marks"
#define MARK  MARKS "/mark"

HX_FIXTURE(harness_stop);

/* `jr2-harness exec` of the on-term helper, once its program waits. */
static pid_t start_program(struct __test_metadata *_metadata, struct hx *hx,
			   const char *mode, const char *path)
{
	char ready[PATH_MAX];
	pid_t client;

	snprintf(ready, sizeof(ready), "%s.ready", path);
	client = fork();
	if (client == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(2, 1);
		execl(hx->harness, hx->harness, "exec", "--root", HX_ROOT, "--",
		      hx->try_tool, "on-term", mode, path, NULL);
		_exit(127);
	}
	for (int waited = 0; access(ready, F_OK); waited += 5) {
		ASSERT_LT(waited, HX_READY_MS)
		{
			TH_LOG("program '%s' did not start", mode);
		}
		usleep(5000);
	}
	return client;
}

/* SIGTERM to the harness; its exit code, and how long it took. */
static int stop_harness(struct hx *hx, long long *took_ms)
{
	long long start = hx_now_ms();
	int code;

	kill(hx->pid, SIGTERM);
	code = fx_exit_code(hx->pid);
	hx->pid = 0;
	*took_ms = hx_now_ms() - start;
	return code;
}

static void read_text(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, out, size - 1);

	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * One program catches SIGTERM (exits 3), one ignores it: the first ends on
 * the SIGTERM, the second by SIGKILL once the grace period is over (not
 * before), and each client reports its own program's end.
 */
TEST_F(harness_stop, P8_sigterm_first_then_sigkill_after_the_grace)
{
	const char *const extra[] = {"--stop-grace-ms", GRACE_MS, NULL};
	struct hx *hx = &self->hx;
	pid_t catcher, ignorer;
	char text[16], log[HX_OUT_SIZE];
	long long took;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, extra);
	catcher = start_program(_metadata, hx, "catch", MARK "-catch");
	ignorer = start_program(_metadata, hx, "ignore", MARK "-ignore");
	ASSERT_EQ(0, stop_harness(hx, &took));
	ASSERT_EQ(3, fx_exit_code(catcher));
	read_text(MARK "-catch", text, sizeof(text));
	ASSERT_STREQ("term", text);
	ASSERT_EQ(128 + SIGKILL, fx_exit_code(ignorer));
	ASSERT_LE(atoi(GRACE_MS), took);
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "programs left after"))
	{
		TH_LOG("log: %s", log);
	}
}

/* Programs that all end on SIGTERM: the stop waits for none of the grace. */
TEST_F(harness_stop, P8_no_sigkill_when_programs_end_on_sigterm)
{
	const char *const extra[] = {"--stop-grace-ms", "20000", NULL};
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];
	pid_t catcher;
	long long took;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, extra);
	catcher = start_program(_metadata, hx, "catch", MARK);
	ASSERT_EQ(0, stop_harness(hx, &took));
	ASSERT_EQ(3, fx_exit_code(catcher));
	hx_log(log, sizeof(log));
	ASSERT_EQ(NULL, strstr(log, "programs left after"))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_NE(NULL, strstr(log, "no program is left"));
}

/* An orphan in a session of its own (no process group of a program) is a
 * child of the harness, and gets the SIGTERM too. */
TEST_F(harness_stop, P8_orphans_get_sigterm)
{
	struct hx *hx = &self->hx;
	char text[16];
	pid_t client;
	long long took;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, NULL);
	client = start_program(_metadata, hx, "orphan", MARK);
	ASSERT_EQ(0, fx_exit_code(client));
	/* Control: the orphan lives on after its program ended. */
	ASSERT_NE(0, access(MARK, F_OK));
	ASSERT_EQ(0, stop_harness(hx, &took));
	read_text(MARK, text, sizeof(text));
	ASSERT_STREQ("term", text);
}

/*
 * An orphan reparented to the harness after the stop's SIGTERM went out (its
 * parent, a program, ends 300 ms after its own SIGTERM) gets the SIGTERM too,
 * before the grace is over, not only the SIGKILL after it.
 */
TEST_F(harness_stop, P8_late_orphans_get_sigterm)
{
	const char *const extra[] = {"--stop-grace-ms", GRACE_MS, NULL};
	struct hx *hx = &self->hx;
	char text[16];
	pid_t client;
	long long took;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, extra);
	client = start_program(_metadata, hx, "late-orphan", MARK);
	ASSERT_EQ(0, stop_harness(hx, &took));
	ASSERT_EQ(3, fx_exit_code(client));
	read_text(MARK, text, sizeof(text));
	ASSERT_STREQ("term", text);
}

/*
 * The sockets, the Stand-ins file and the control.bearer it wrote are gone
 * after a stop (no secret stays on disk); the protected dir, its home and a
 * --bearer-file (the user's) stay.
 */
TEST_F(harness_stop, P8_stop_removes_the_secrets_it_wrote)
{
	const char *const run_files[] = {HX_STANDINS, HX_BEARER, HX_CONTROL,
					 HX_CUSTODIAN};
	const char *const own_bearer[] = {"--bearer-file", HX_SECRET "/bearer",
					  "--config", HX_ETC "/harness.conf",
					  NULL};
	struct hx *hx = &self->hx;
	long long took;

	HX_START(hx, NULL);
	for (size_t i = 0; i < 4; i++)
		ASSERT_EQ(0, access(run_files[i], F_OK)); /* control */
	ASSERT_EQ(0, stop_harness(hx, &took));
	for (size_t i = 0; i < 4; i++) {
		ASSERT_EQ(-1, access(run_files[i], F_OK))
		{
			TH_LOG("%s stayed after the stop", run_files[i]);
		}
		ASSERT_EQ(ENOENT, errno);
	}
	ASSERT_EQ(0, access(HX_PROTECTED "/home", F_OK));

	fx_make_dir(_metadata, HX_SECRET, 0700);
	fx_make_file(_metadata, HX_SECRET "/bearer",
		     "a-long-enough-bearer-value\n", 0600);
	fx_make_file(_metadata, HX_ETC "/harness.conf",
		     HX_TRUST_ETC HX_TRUST_SECRET, 0644);
	HX_START(hx, own_bearer);
	ASSERT_EQ(-1, access(HX_BEARER, F_OK)); /* none written */
	ASSERT_EQ(0, access(HX_STANDINS, F_OK));
	ASSERT_EQ(0, stop_harness(hx, &took));
	ASSERT_EQ(-1, access(HX_STANDINS, F_OK));
	ASSERT_EQ(0, access(HX_SECRET "/bearer", F_OK));
}

TEST_HARNESS_MAIN
