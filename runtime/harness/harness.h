/* SPDX-License-Identifier: GPL-2.0-only */
/* The commands of jr2-harness and the one error exit they share. */
#ifndef JR2_HARNESS_H
#define JR2_HARNESS_H

#include <stdbool.h>

#define JR2_EXIT_REFUSED 125 /* exec: the harness refused or failed */
#define JR2_EXIT_USAGE	 2 /* bad input */

struct serve_options {
	const char *root; /* the protected dir is <root>/run/jr2 */
	const char *config; /* NULL: none */
	const char *bearer_file; /* NULL: make one in the protected dir */
	int max_abi; /* 0: none */
	unsigned int max_backoff_ms;
	int start_env_fd; /* -1: first run, re-executes with its own env */
	char **argv; /* for that re-execution */
};

struct client_options {
	const char *root;
	const char *bearer_file; /* NULL: <protected dir>/control.bearer */
	const char *cwd; /* NULL: the client's own */
	const char *secrets[32];
	int n_secrets;
	int pass_fds[13];
	int n_pass_fds;
	bool json;
};

/* Prints "jr2-harness: <what> '<value>': <strerror(errno)>" and exits. */
void die(int status, const char *what, const char *value)
    __attribute__((noreturn));
/* Prints one line "jr2-harness: <message>" and exits with status. */
void die_msg(int status, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

int serve(const struct serve_options *opts) __attribute__((noreturn));
int client_exec(const struct client_options *opts, char **argv);
int client_status(const struct client_options *opts);
/* "<root>/run/jr2" without a doubled slash. */
void protected_dir_of(const char *root, char *out, unsigned long size);

#endif /* JR2_HARNESS_H */
