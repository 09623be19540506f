/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one error exit of jr2-confine, jr2-harness and jr2-trace: one line
 * "<program>: <message>" naming the thing, the value and the fix, then the
 * exit status of exit_status.h.  The message is cut to one whole line; a
 * long value given to jr2_die_path() is shortened in its middle.
 */
#ifndef JR2_DIE_H
#define JR2_DIE_H

#include "exit_status.h"

/*
 * The program's name before the colon (set once, first, by main); a closed
 * stdin, stdout or stderr is opened on /dev/null.
 */
void jr2_die_init(const char *program);

/* Run once before the exit (jr2-harness serve: undo a start). */
void jr2_die_set_cleanup(void (*cleanup)(void));

/*
 * Where the line goes (NULL: stderr); serve sets its log's queue, so that
 * an exit does not wait on the log's reader.
 */
void jr2_die_set_writer(void (*writer)(const char *line));

/* "<program>: <message>" */
void jr2_die(int status, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* "<program>: <message>: <strerror(err)>" */
void jr2_die_errno(int status, int err, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* "<program>: <what> '<value>': <strerror(errno)>" */
void jr2_die_path(int status, const char *what, const char *value)
    __attribute__((noreturn));

#endif /* JR2_DIE_H */
