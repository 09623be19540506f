/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The harness's log (R11): its lines go to a bounded queue in memory that
 * one thread of the harness writes to fd 2 with blocking writes, so that no
 * reader of the log (a terminal a program stopped with tcflow(TCOOFF), a pipe
 * nobody reads) can hold the harness's loop.  What the queue cannot hold is
 * counted, and one line says how many once the writer caught up.
 */
#ifndef JR2_HARNESS_LOG_H
#define JR2_HARNESS_LOG_H

#include <stddef.h>

#define JR2_LOG_QUEUE_BYTES (16 * 1024)
#define JR2_LOG_EXIT_MS	    500 /* what an exit waits for the queue */

/* Waits up to ms for the queue to be written; 0, or -ETIMEDOUT. */
int jr2_log_flush(int ms);
/* Lines the queue could not hold since the start. */
unsigned long jr2_log_dropped(void);

/* CLOCK_MONOTONIC in ms: the log's windows and serve's deadlines. */
long long jr2_now_ms(void);

/*
 * One line of serve's log, "jr2-harness: " and the message; every control
 * character is written as \xNN, and a flood of one kind of line (one fmt)
 * is counted, not logged.
 */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Says how many lines of each kind were dropped in a window now over. */
void log_tick(long long now);
/* Milliseconds until the first window with dropped lines is over; -1: none. */
int log_wait_ms(long long now);
/* Starts the writer (jr2_log_start) and sends jr2_die_path()'s line through it.
 */
void start_log(void);
/*
 * The same, but the writer starts with this process's first line, before
 * that line is written: for the first process of a start, which re-executes
 * itself (E2) and mostly writes none, a thread made for nothing.
 */
void start_log_lazily(void);

#endif /* JR2_HARNESS_LOG_H */
