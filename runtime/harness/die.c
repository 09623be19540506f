// SPDX-License-Identifier: GPL-2.0-only
/* The one error exit of jr2-harness (see die.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "policy.h"

/* A path of PATH_MAX bytes still leaves room for the fix after it. */
#define VALUE_MAX 240

static void (*die_cleanup)(void);
static void (*die_writer)(const char *line);

void die_set_writer(void (*writer)(const char *line))
{
	die_writer = writer;
}

/* One whole line: through the writer once serve set one (its log). */
static void die_write(const char *line)
{
	if (die_writer)
		die_writer(line);
	else
		fputs(line, stderr);
}

void die_set_cleanup(void (*cleanup)(void))
{
	die_cleanup = cleanup;
}

static void run_cleanup(void)
{
	void (*cleanup)(void) = die_cleanup;

	die_cleanup = NULL; /* once, even if it dies itself */
	if (cleanup)
		cleanup();
}

void die(int status, const char *what, const char *value)
{
	int saved = errno;
	char shortened[VALUE_MAX + 1], line[2048];

	snprintf(line, sizeof(line), "jr2-harness: %s '%s': %s\n", what,
		 jr2_shorten(value, VALUE_MAX, shortened, sizeof(shortened)),
		 strerror(saved));
	die_write(line);
	run_cleanup();
	exit(status);
}

void die_msg(int status, const char *fmt, ...)
{
	static const char prefix[] = "jr2-harness: ";
	char line[4096];
	size_t used = sizeof(prefix) - 1;
	va_list ap;
	int len;

	memcpy(line, prefix, used);
	va_start(ap, fmt);
	len = vsnprintf(line + used, sizeof(line) - used - 1, fmt, ap);
	va_end(ap);
	/* Cut to fit, the newline kept: one whole line. */
	if (len > 0)
		used += (size_t)len < sizeof(line) - used - 2
			    ? (size_t)len
			    : sizeof(line) - used - 2;
	line[used] = '\n';
	line[used + 1] = '\0';
	die_write(line);
	run_cleanup();
	exit(status);
}
