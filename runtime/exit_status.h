/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exit statuses of jr2-confine, jr2-harness and jr2-trace: one table, so
 * that a script reads the same number the same way from each (HACKING.md,
 * each man page's EXIT STATUS).
 */
#ifndef JR2_EXIT_STATUS_H
#define JR2_EXIT_STATUS_H

#define JR2_EXIT_FAILURE      1 /* a failure the message names */
#define JR2_EXIT_USAGE	      2 /* bad input, found before anything is done */
#define JR2_EXIT_CANNOT_TRACE 3 /* jr2-trace: denials would go unseen */
#define JR2_EXIT_NO_LANDLOCK  4 /* jr2-trace: no Landlock to trace */
#define JR2_EXIT_CWD	      124 /* jr2-harness exec: --cwd cannot be entered */
#define JR2_EXIT_REFUSED      125 /* confinement cannot be done: nothing runs */
#define JR2_EXIT_CANNOT_EXEC  126 /* the program cannot be run */
#define JR2_EXIT_NOT_FOUND    127 /* the program is not found */

#endif /* JR2_EXIT_STATUS_H */
