/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The commands of jr2-harness: main.c parses the command line into these
 * options and calls serve.c or client.c; neither calls back into main.c (the
 * error exit is die.h's, the paths are channel.h's).
 */
#ifndef JR2_HARNESS_H
#define JR2_HARNESS_H

#include <stdbool.h>

#include "die.h"

struct serve_options {
	const char *root; /* the protected dir is <root>/run/jr2 */
	bool make_root; /* --make-root: make a root that does not exist */
	const char *config; /* NULL: none */
	const char *bearer_file; /* NULL: make one in the protected dir */
	int max_abi; /* 0: none */
	unsigned int max_backoff_ms;
	unsigned int request_timeout_ms; /* to send a request or a line */
	unsigned int stop_grace_ms; /* from SIGTERM to SIGKILL at a stop */
	int start_env_fd; /* -1: first run, re-executes with its own env;
			     else validated as the re-execution's own */
	char **argv; /* for that re-execution */
	char **cmd; /* after --: the Harness process's argv; NULL: none */
	int cmd_at; /* argv's index of that --, else 0 */
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

int serve(const struct serve_options *opts) __attribute__((noreturn));
int client_exec(const struct client_options *opts, char **argv);
int client_status(const struct client_options *opts);
/* file_tools.c: read, write, edit (R12): the client, and the confined verb
 * `file-tool` it runs through the harness. */
int client_file_tool(const struct client_options *opts, const char *verb,
		     char **args);
int file_tool_main(int argc, char **argv);

#endif /* JR2_HARNESS_H */
