// SPDX-License-Identifier: GPL-2.0-only
/*
 * The terminal door: a confined program shares no controlling
 * terminal with anything outside its domain, so it cannot type into the
 * user's shell (TIOCSTI: the user's unconfined shell would run what it
 * types, e.g. `cat <protected file>`) nor take the terminal over
 * (TIOCSCTTY with force).  Through `jr2-confine run` (a new session, with
 * --keep-session as the documented opt-out) and `jr2-harness exec` (the
 * spawner's own session), on a pty whose slave is the client's stdin and
 * controlling terminal.  Controls: the same ioctl unconfined in the same
 * session, and `run --keep-session`; the injected byte is read back as the
 * master's echo.  Where dev.tty.legacy_tiocsti is 0 the kernel refuses
 * TIOCSTI to every caller without CAP_SYS_ADMIN (EIO), confined or not.
 *
 * Promises: R1
 */
#include <poll.h>

#include "ways.h"

WAY_FIXTURE(escapes)

/* The master and the slave (close-on-exec: way_run dup2s it to stdin). */
static void open_pty(struct __test_metadata *_metadata, int *master, int *slave)
{
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, *master);
	ASSERT_EQ(0, grantpt(*master));
	ASSERT_EQ(0, unlockpt(*master));
	*slave = open(ptsname(*master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, *slave);
}

/*
 * True when the master shows `c` (the slave's echo) before a fence: a byte
 * the test writes to the master now, which the slave's line discipline
 * echoes back behind whatever it echoed before.  A TIOCSTI byte is echoed
 * within the ioctl (the echo is written to the master's buffer before
 * TIOCSTI returns), and the master's buffer keeps its order: once the
 * fence is read, every earlier echo was, so no wait "in case" is needed.
 * 1 shown, 0 not, -1 when the fence never came back (a broken terminal).
 */
#define FENCE '~'
static int master_shows(int master, char c)
{
	struct pollfd pfd = {.fd = master, .events = POLLIN};
	char buf[256], *fence = NULL;
	bool seen = false;

	if (write(master, (char[]){FENCE}, 1) != 1)
		return -1;
	/* The bound is for a broken terminal only: the fence comes back. */
	while (!fence && poll(&pfd, 1, 10000) == 1) {
		ssize_t n = read(master, buf, sizeof(buf));

		if (n <= 0)
			break;
		fence = memchr(buf, FENCE, (size_t)n);
		seen =
		    seen ||
		    memchr(buf, c, fence ? (size_t)(fence - buf) : (size_t)n);
	}
	return fence ? seen : -1;
}

/* The errno TIOCSTI gives a caller without CAP_SYS_ADMIN on its own tty. */
static const char *tiocsti_own_tty(void)
{
	FILE *f = fopen("/proc/sys/dev/tty/legacy_tiocsti", "re");
	int legacy = 1;

	if (f) {
		if (fscanf(f, "%d", &legacy) != 1)
			legacy = 1;
		fclose(f);
	}
	return legacy ? "ok" : "EIO";
}

/* ... and on a terminal that is not its controlling one. */
static const char *tiocsti_other_tty(void)
{
	return strcmp(tiocsti_own_tty(), "ok") ? "EIO" : "EPERM";
}

static const char *tiocsti(struct way *way, enum way_path path,
			   const char *const opts[], char byte, bool session)
{
	static char out[WAY_OUT_SIZE];
	const char arg[2] = {byte, '\0'};
	const char *const verb[] = {"tiocsti", arg, NULL};

	way_try_opts(way, path, opts, session, verb, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	return out;
}

TEST_F(escapes, R1_terminal_tiocsti_run)
{
	const char *const keep[] = {"--keep-session", NULL};
	struct way *way = &self->way;
	int master, slave;

	WAY_START(way); /* makes the protected dir */
	open_pty(_metadata, &master, &slave);
	way->in_fd = slave;
	/* Control: unconfined, in the terminal's session, it types. */
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the unconfined control's TIOCSTI");
	ASSERT_STREQ("ok", tiocsti(way, WAY_UNCONFINED, NULL, 'U', true));
	ASSERT_EQ(1, master_shows(master, 'U'));
	/* Control: confined but in the caller's session (the opt-out). */
	ASSERT_STREQ(tiocsti_own_tty(), tiocsti(way, WAY_RUN, keep, 'K', true));
	ASSERT_EQ(!strcmp(tiocsti_own_tty(), "ok"), master_shows(master, 'K'));
	/* run: its own session; the terminal is not its to type into. */
	ASSERT_STREQ(tiocsti_other_tty(),
		     tiocsti(way, WAY_RUN, NULL, 'X', true));
	ASSERT_EQ(0, master_shows(master, 'X'));
	close(slave);
	close(master);
}

/*
 * The harness started from the user's terminal: the harness leads the
 * terminal's session (as a shell's `jr2-harness serve &` would share it);
 * its programs must not be in it.
 */
TEST_F(escapes, R1_terminal_tiocsti_exec)
{
	struct way *way = &self->way;
	char *argv[] = {way->hx.harness, "serve",  "--root", HX_ROOT,
			"--config",	 WAY_CONF, NULL};
	int master, slave;
	pid_t pid;

	HX_REQUIRE_ACCEPTED(&way->hx);
	open_pty(_metadata, &master, &slave);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int log = open(HX_LOG, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0))
			_exit(120);
		dup2(slave, 0);
		dup2(log, 1);
		dup2(log, 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(argv[0], argv);
		_exit(127);
	}
	way->hx.pid = pid;
	hx_wait_ready(_metadata, &way->hx, 1);
	way->in_fd = slave;
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the unconfined control's TIOCSTI");
	ASSERT_STREQ("ok", tiocsti(way, WAY_UNCONFINED, NULL, 'U', false));
	ASSERT_EQ(1, master_shows(master, 'U'));
	/* The client's terminal reaches the program as stdin, not as its
	   controlling terminal: the spawner has a session of its own. */
	ASSERT_STREQ(tiocsti_other_tty(),
		     tiocsti(way, WAY_EXEC, NULL, 'X', false));
	ASSERT_EQ(0, master_shows(master, 'X'));
	close(slave);
	close(master);
}

/* TIOCSCTTY with force from a new session: steals a session's terminal. */
TEST_F(escapes, R1_terminal_steal_controlling_tty)
{
	struct way *way = &self->way;
	char out[WAY_OUT_SIZE];
	const char *const verb[] = {"steal", NULL};
	int master, slave;

	WAY_START(way);
	open_pty(_metadata, &master, &slave);
	way->in_fd = slave;
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		way_try_opts(way, path, NULL, true, verb, out, sizeof(out));
		ASSERT_STREQ("EPERM\n", out)
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
	}
	/* Control: unconfined (CAP_SYS_ADMIN), the same steal succeeds. */
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the unconfined control's steal");
	way_try_opts(way, WAY_UNCONFINED, NULL, true, verb, out, sizeof(out));
	ASSERT_STREQ("ok\n", out);
	close(slave);
	close(master);
}

TEST_HARNESS_MAIN
