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
#include <poll.h>

#include "step_helpers.h"

#define TM_TYPED "typed-secret"

/* Opens `path` (never as a controlling terminal), reads what waits there. */
static int tm_read(const char *path)
{
	struct pollfd pfd = {.events = POLLIN};
	char buf[128];
	ssize_t n;

	pfd.fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (pfd.fd < 0)
		return st_print_errno(errno);
	if (poll(&pfd, 1, 2000) != 1)
		return st_print_errno(ETIMEDOUT);
	n = read(pfd.fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return st_print_errno(errno);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("ok %s\n", buf);
	return 0;
}

/* A terminal of its own: made, then its slave opened by path, used. */
static int tm_own(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave;
	char buf[16] = "";

	if (master < 0 || grantpt(master) || unlockpt(master))
		return st_print_errno(errno);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return st_print_errno(errno);
	if (write(master, "own\n", 4) != 4 || read(slave, buf, 3) != 3)
		return st_print_errno(errno ? errno : EIO);
	return st_print_errno(strncmp(buf, "own", 3) ? EIO : 0);
}

ST_FIXTURE(escapes)

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
	struct st *st = &self->st;
	char name[64], expect[64];
	int master;
	pid_t user;

	ST_START(st);
	user = user_session(_metadata, &master, name, sizeof(name));
	snprintf(expect, sizeof(expect), "ok %s", TM_TYPED);
	/* Control: what the user types reads back unconfined. */
	ASSERT_EQ(13, write(master, TM_TYPED "\n", 13));
	ASSERT_STREQ(expect, ST_HELP(st, ST_UNCONFINED, "tm-read", name));
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_EQ(13, write(master, TM_TYPED "\n", 13));
		ASSERT_STREQ("ENOENT", ST_HELP(st, path, "tm-read", name))
		{
			TH_LOG("%s: %s", st_path_name[path], name);
		}
		/* Still the user's: the line waits for the user's shell. */
		ASSERT_STREQ(expect,
			     ST_HELP(st, ST_UNCONFINED, "tm-read", name));
		/* Terminals of their own still work. */
		ASSERT_STREQ("ok", ST_HELP(st, path, "tm-own"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
	kill(user, SIGKILL);
	waitpid(user, NULL, 0);
	close(master);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--step-helper") &&
	    !strcmp(argv[2], "tm-read"))
		return tm_read(argv[3]);
	if (argc == 3 && !strcmp(argv[1], "--step-helper") &&
	    !strcmp(argv[2], "tm-own"))
		return tm_own();
	if (argc > 1 && !strcmp(argv[1], "--step-helper"))
		return st_helper(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--hx-helper"))
		return hx_helper(argc - 2, argv + 2);
	return test_harness_run(argc, argv);
}
