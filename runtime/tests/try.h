/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jr2-try's verbs: one table, assembled from a section per subject
 * (try_*.c); try.c looks a verb up, checks its argument count and prints
 * the usage text from the table.
 */
#ifndef JR2_TRY_H
#define JR2_TRY_H

#define TRY_EXIT_OTHER_ERRNO 100
#define TRY_EXIT_USAGE	     101

/* One run of a verb: its arguments, and the `how` of its table row. */
struct try_call {
	char **arg;
	int n;
	long how;
	const char *name;
};

/* A row of the table; a section of rows ends with a NULL name. */
struct try_verb {
	const char *name;
	int args; /* how many arguments; a negative -N: N or more */
	const char *usage; /* the arguments' names, for the help */
	int (*run)(const struct try_call *call);
	long how; /* passed to run: a flag, a mode, a way */
	const char *help; /* one line */
};

extern const struct try_verb try_file_verbs[];

/*
 * The report: "ok" or the errno's name; the exit status the errno when
 * below 100, else 100.  ret < 0: the errno is errno's.
 */
int try_result(int ret);

/* The one error path: a usage error (exit 101). */
void try_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* `text` as a number (a usage error when it is none; `what` names it). */
long try_number(const char *text, const char *what);

#endif /* JR2_TRY_H */
