// SPDX-License-Identifier: GPL-2.0-only
/*
 * The terminal door, other sessions: the /dev allow-list opens
 * /dev/pts (programs make terminals through /dev/ptmx and open their slaves
 * by path), so a root program could open the terminal of another session,
 * the user's own shell, by its path and read what the user types there
 * (a password, a token), or write to it; a terminal that no session holds
 * it could take as its own and type into (TIOCSTI).  In the programs' own
 * mount namespace /dev/pts is a devpts instance of their own: another
 * session's terminal does not exist there (ENOENT), while the terminals
 * programs make still work.  Through `jr2-confine run` and `jr2-harness
 * exec`; the control is the same open and read unconfined, and a terminal
 * made and used by a confined program.
 *
 * Promises: R9
 */
#include "ways.h"

#define TM_TYPED "typed-secret"

WAY_FIXTURE(escapes)

/* The user's terminal: a session leader (this test's child) holds it. */
static pid_t user_session(struct __test_metadata *_metadata, int *master,
			  char *name, size_t size)
{
	int slave;
	pid_t pid;

	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, *master);
	ASSERT_EQ(0, grantpt(*master));
	ASSERT_EQ(0, unlockpt(*master));
	snprintf(name, size, "%s", ptsname(*master));
	slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, slave);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0))
			_exit(1);
		pause();
		_exit(0);
	}
	close(slave);
	return pid;
}

TEST_F(escapes, R9_terminal_other_session_unreachable)
{
	struct way *way = &self->way;
	char name[64], expect[64];
	int master;
	pid_t user;

	WAY_START(way);
	user = user_session(_metadata, &master, name, sizeof(name));
	snprintf(expect, sizeof(expect), "ok %s", TM_TYPED);
	/* Control: what the user types reads back unconfined. */
	ASSERT_EQ(13, write(master, TM_TYPED "\n", 13));
	ASSERT_STREQ(expect,
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "tty-read", name));
	/* Without CAP_SYS_ADMIN (a container profile) the confiner cannot
	   give programs a devpts of their own: the terminals of the
	   container's other sessions stay reachable by path, which its
	   line says (SECURITY.md). */
	if (!fx_has_cap(CAP_SYS_ADMIN)) {
		const char *const verbose[] = {"--verbose", NULL};
		const char *const verb[] = {"tty-read", name, NULL};
		char out[WAY_OUT_SIZE];

		ASSERT_EQ(13, write(master, TM_TYPED "\n", 13));
		ASSERT_EQ(0, way_try_opts(way, WAY_RUN, verbose, false, verb,
					  out, sizeof(out)));
		ASSERT_NE(NULL, strstr(out, expect));
		ASSERT_NE(NULL, strstr(out, "other sessions' terminals stay "
					    "reachable"))
		{
			TH_LOG("%s", out);
		}
		return;
	}
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_EQ(13, write(master, TM_TYPED "\n", 13));
		ASSERT_STREQ("ENOENT",
			     WAY_TRY_LINE(way, path, "tty-read", name))
		{
			TH_LOG("%s: %s", way_name[path], name);
		}
		/* Still the user's: the line waits for the user's shell. */
		ASSERT_STREQ(expect, WAY_TRY_LINE(way, WAY_UNCONFINED,
						  "tty-read", name));
		/* Terminals of their own still work. */
		ASSERT_STREQ("ok", WAY_TRY_LINE(way, path, "pty-own"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
	kill(user, SIGKILL);
	waitpid(user, NULL, 0);
	close(master);
}

TEST_HARNESS_MAIN
