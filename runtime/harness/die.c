// SPDX-License-Identifier: GPL-2.0-only
/* The one error exit of jr2-harness (see die.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"

/* A path of PATH_MAX bytes still leaves room for the fix after it. */
#define VALUE_MAX 240

static void (*die_cleanup)(void);

void die_set_cleanup(void (*cleanup)(void))
{
	die_cleanup = cleanup;
}

const char *jr2_shorten(const char *value, size_t max, char *out, size_t size)
{
	size_t len = strlen(value), head, tail;

	if (max + 1 > size)
		max = size - 1;
	if (len <= max) {
		snprintf(out, size, "%s", value);
		return out;
	}
	head = (max - 3) / 2;
	tail = max - 3 - head;
	snprintf(out, size, "%.*s...%s", (int)head, value, value + len - tail);
	return out;
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
