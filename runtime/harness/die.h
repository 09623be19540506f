/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one error exit of jr2-harness (main.c, client.c and serve.c share it):
 * one line on stderr naming the thing, the value and the fix, then exit.
 * A long value is shortened in its middle, so that the fix after it is
 * always printed whole.
 */
#ifndef JR2_HARNESS_DIE_H
#define JR2_HARNESS_DIE_H

#include <stddef.h>

#define JR2_EXIT_USAGE	 2 /* bad input */
#define JR2_EXIT_CWD	 124 /* exec: the --cwd folder cannot be entered */
#define JR2_EXIT_REFUSED 125 /* exec: the harness refused or failed */

/* Run by die() and die_msg() before they exit (serve: undo a start). */
void die_set_cleanup(void (*cleanup)(void));

/*
 * Where die() and die_msg() write their line (NULL: stderr); serve sets its
 * log's queue, so that an exit does not wait on the log's reader (R11).
 */
void die_set_writer(void (*writer)(const char *line));

/* Prints "jr2-harness: <what> '<value>': <strerror(errno)>" and exits. */
void die(int status, const char *what, const char *value)
    __attribute__((noreturn));
/* Prints one line "jr2-harness: <message>" and exits with status. */
void die_msg(int status, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

#endif /* JR2_HARNESS_DIE_H */
