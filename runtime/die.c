// SPDX-License-Identifier: GPL-2.0-only
/* The one error exit of the three programs (see die.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "policy.h"

/* A path of PATH_MAX bytes still leaves room for what follows it. */
#define VALUE_MAX 240

static const char *die_program = "jr2";
static void (*die_cleanup)(void);
static void (*die_writer)(const char *line);

void jr2_die_init(const char *program)
{
	die_program = program;
	/*
	 * open(2) takes the lowest free number: with 0, 1 or 2 closed, a file
	 * the program opens later would stand in for that stream (its
	 * messages written into it; a client's socket to the harness passed
	 * as a program's stdin).  /dev/null takes each closed one first.
	 */
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", O_RDWR) != fd)
			jr2_die_errno(JR2_EXIT_FAILURE, errno,
				      "descriptor %d is closed and /dev/null "
				      "cannot take it; start with stdin, "
				      "stdout and stderr open",
				      fd);
	}
}

void jr2_die_set_writer(void (*writer)(const char *line))
{
	die_writer = writer;
}

void jr2_die_set_cleanup(void (*cleanup)(void))
{
	die_cleanup = cleanup;
}

static void __attribute__((noreturn))
die_line(int status, const char *fmt, va_list ap, int err)
{
	char line[4096];
	size_t used = 0, room = sizeof(line) - 2; /* the newline, the NUL */
	void (*cleanup)(void) = die_cleanup;
	int len;

	len = snprintf(line, room, "%s: ", die_program);
	used = len > 0 && (size_t)len < room ? (size_t)len : 0;
	len = vsnprintf(line + used, room - used, fmt, ap);
	if (len > 0)
		used +=
		    (size_t)len < room - used ? (size_t)len : room - used - 1;
	if (err && used < room - 1) {
		len = snprintf(line + used, room - used, ": %s", strerror(err));
		if (len > 0)
			used += (size_t)len < room - used ? (size_t)len
							  : room - used - 1;
	}
	/* Cut to fit, the newline kept: one whole line. */
	line[used] = '\n';
	line[used + 1] = '\0';
	if (die_writer)
		die_writer(line);
	else
		fputs(line, stderr);
	die_cleanup = NULL; /* once, even if it dies itself */
	if (cleanup)
		cleanup();
	exit(status);
}

void jr2_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	die_line(status, fmt, ap, 0);
}

void jr2_die_errno(int status, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	die_line(status, fmt, ap, err);
}

void jr2_die_path(int status, const char *what, const char *value)
{
	char shortened[VALUE_MAX + 1];
	int err = errno;

	jr2_die_errno(
	    status, err, "%s '%s'", what,
	    jr2_shorten(value, VALUE_MAX, shortened, sizeof(shortened)));
}
