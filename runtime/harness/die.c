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
	char shortened[VALUE_MAX + 1];

	fprintf(stderr, "jr2-harness: %s '%s': %s\n", what,
		jr2_shorten(value, VALUE_MAX, shortened, sizeof(shortened)),
		strerror(saved));
	run_cleanup();
	exit(status);
}

void die_msg(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("jr2-harness: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	run_cleanup();
	exit(status);
}
