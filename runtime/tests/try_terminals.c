// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's terminal verbs: typing into a terminal (TIOCSTI), taking one
 * as controlling terminal or console, terminals of its own, another
 * session's terminal read by path, and the flow of the terminal the
 * harness logs to.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "try.h"

/* TIOCSTI of CHAR's first byte on stdin. */
static int tiocsti(const struct try_call *c)
{
	return try_report(TRY_ERR(ioctl(0, TIOCSTI, c->arg[0])));
}

/* TIOCSCTTY with force of stdin, from a new session (a child: no leader). */
static int steal(const struct try_call *c)
{
	pid_t pid = fork();
	int status;

	(void)c;
	if (pid == 0) {
		int ret = setsid() < 0
			      ? try_report(errno)
			      : try_report(TRY_ERR(ioctl(0, TIOCSCTTY, 1)));

		fflush(stdout);
		_exit(ret);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return try_report(errno);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int tioccons(const struct try_call *c)
{
	(void)c;
	return try_report(TRY_ERR(ioctl(0, TIOCCONS)));
}

/* A pty of its own: PTMX, then its pts/N, mode 0620 again. */
static int pty(const struct try_call *c)
{
	int ptm = open(c->arg[0], O_RDWR | O_NOCTTY | O_CLOEXEC);
	char *pts = ptm < 0 ? NULL : ptsname(ptm);

	if (!pts || grantpt(ptm) || unlockpt(ptm))
		return try_report(errno);
	return try_report(TRY_ERR(chmod(pts, 0620)));
}

/* A terminal of its own: made, then its slave opened by path, used. */
static int pty_own(const struct try_call *c)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), slave;
	char buf[16] = "";

	(void)c;
	if (master < 0 || grantpt(master) || unlockpt(master))
		return try_report(errno);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		return try_report(errno);
	if (write(master, "own\n", 4) != 4 || read(slave, buf, 3) != 3)
		return try_report(errno ? errno : EIO);
	return try_report(strncmp(buf, "own", 3) ? EIO : 0);
}

/* Opens PATH (never as a controlling terminal), reads what waits there. */
static int tty_read(const struct try_call *c)
{
	struct pollfd pfd = {.events = POLLIN};

	pfd.fd = open(c->arg[0], O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (pfd.fd < 0)
		return try_report(errno);
	if (poll(&pfd, 1, 2000) != 1)
		return try_report(ETIMEDOUT);
	return try_report_line(pfd.fd);
}

/*
 * R11: on its stdout, a terminal the harness logs to: "off" and "on"
 * suspend and resume its output (tcflow: no controlling terminal needed),
 * "tostop" sets TOSTOP.  It prints nothing there (the output may be
 * stopped): its exit status is 0 or the errno.
 */
static int tty_flow(const struct try_call *c)
{
	const char *how = c->arg[0];
	struct termios t;

	if (!strcmp(how, "tostop")) {
		if (tcgetattr(1, &t))
			return errno;
		t.c_lflag |= TOSTOP;
		return tcsetattr(1, TCSANOW, &t) ? errno : 0;
	}
	return tcflow(1, strcmp(how, "off") ? TCOON : TCOOFF) ? errno : 0;
}

const struct try_verb try_terminal_verbs[] = {
    {"tiocsti", 1, "CHAR", tiocsti, 0, "TIOCSTI of CHAR on stdin"},
    {"steal", 0, "", steal, 0,
     "a child in a new session takes stdin by TIOCSCTTY with force"},
    {"tioccons", 0, "", tioccons, 0, "TIOCCONS on stdin"},
    {"pty", 1, "PTMX", pty, 0, "a pty of PTMX, its pts/N chmod 0620"},
    {"pty-own", 0, "", pty_own, 0,
     "a pty of its own, its slave opened by path and used"},
    {"tty-read", 1, "PATH", tty_read, 0,
     "opens PATH O_NOCTTY, reads what waits: \"ok TEXT\""},
    {"tty-flow", 1, "off|on|tostop", tty_flow, 0,
     "tcflow or TOSTOP on stdout; prints nothing: exit 0 or the errno"},
    {NULL, 0, NULL, NULL, 0, NULL},
};
