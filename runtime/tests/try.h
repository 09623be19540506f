/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jr2-try's verbs: one table, assembled from a section per subject
 * (try_*.c); try.c looks a verb up, checks its argument count and prints
 * the usage text from the table.
 */
#ifndef JR2_TRY_H
#define JR2_TRY_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>

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
extern const struct try_verb try_harness_verbs[];
extern const struct try_verb try_domain_verbs[];
extern const struct try_verb try_step_verbs[];
extern const struct try_verb try_terminal_verbs[];
extern const struct try_verb try_key_verbs[];
extern const struct try_verb try_syscall_verbs[];
extern const struct try_verb try_census_verbs[];
extern const struct try_verb try_limit_verbs[];
extern const struct try_verb try_tracee_verbs[];

/* The path this program was started by (argv[0]), to execute it again. */
extern const char *try_program;

/*
 * jr2-try's first verbs' report: "ok" or the errno's name; the exit status
 * the errno when below 100, else 100.  ret < 0: the errno is errno's.
 */
int try_result(int ret);

/* The other verbs' report: "ok" or err's name; the exit status 0 or 1. */
int try_report(int err);

/* One read of fd (up to 127 bytes), closed then: "ok LINE" (its first
 * line) or the read's errno, as try_report. */
int try_report_line(int fd);

/* The one error path: a usage error (exit 101). */
void try_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* `text` as a number (a usage error when it is none; `what` names it). */
long try_number(const char *text, const char *what);

/* A unix socket address of `path`; a leading '@' names an abstract one. */
void try_unix_addr(struct sockaddr_un *addr, const char *path);

/* 0 when call >= 0, else errno. */
#define TRY_ERR(call) ((call) < 0 ? errno : 0)

#endif /* JR2_TRY_H */
