// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try: perform one operation and report its outcome, so that the tests
 * (`jr2-confine run -- jr2-try ...`, `jr2-harness exec -- jr2-try ...`, or
 * unconfined) assert exact errnos.  The verbs of files, dirs, sockets and
 * processes print "ok" or the errno's name (then data for read verbs) and
 * exit 0, the errno when below 100, 100 for another errno; the other verbs
 * print what their help line says and exit 0 or 1.  A usage error exits
 * 101.  The verbs: the table below, by subject in try_*.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "try.h"

const char *try_program = "jr2-try";

static const struct {
	const char *title;
	const struct try_verb *verbs;
} sections[] = {
    {"Files, dirs, sockets and processes (exit: the errno)", try_file_verbs},
    {"Programs of the harness", try_harness_verbs},
    {"Domains: tracing, other processes, mounts", try_domain_verbs},
    {"Doors of the confinement step: metadata, mounts, capabilities",
     try_step_verbs},
    {"Terminals", try_terminal_verbs},
    {"Keyrings", try_key_verbs},
    {"System calls that open no file", try_syscall_verbs},
    {"The census of system calls", try_census_verbs},
    {"Limits of processes", try_limit_verbs},
    {"Tracees (PTRACE_TRACEME)", try_tracee_verbs},
};

#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

/* The help column: a row's call, then its help wrapped within 79 columns. */
#define HELP_COLUMN 33
#define LINE_WIDTH  79

static void print_row(FILE *out, const struct try_verb *verb)
{
	char call[64];
	const char *word = verb->help;
	int column;

	snprintf(call, sizeof(call), "%s%s%s", verb->name,
		 verb->usage[0] ? " " : "", verb->usage);
	column = fprintf(out, "  %-*s", HELP_COLUMN - 3, call);
	while (*word) {
		int len = (int)strcspn(word, " ");

		if (column + 1 + len > LINE_WIDTH && column > HELP_COLUMN) {
			fprintf(out, "\n%*s", HELP_COLUMN - 1, "");
			column = HELP_COLUMN - 1;
		}
		column += fprintf(out, " %.*s", len, word);
		word += len;
		word += strspn(word, " ");
	}
	fputc('\n', out);
}

static void print_usage(FILE *out)
{
	fputs("Usage: jr2-try VERB ARG...\n"
	      "Perform one operation and report it on stdout: 'ok' or the "
	      "errno's name\n"
	      "(EACCES, ...), or what the verb's line says.  Exit status: 0 "
	      "when it worked;\n"
	      "the first section's verbs the errno when below 100, else 100; "
	      "the others 1;\n"
	      "101 on a usage error.\n",
	      out);
	for (size_t s = 0; s < N_SECTIONS; s++) {
		fprintf(out, "\n%s:\n", sections[s].title);
		for (const struct try_verb *v = sections[s].verbs; v->name; v++)
			print_row(out, v);
	}
	fprintf(out, "\n  %-30s %s\n", "--help", "this text");
}

int try_result(int ret)
{
	int err = ret < 0 ? errno : 0;

	if (!err) {
		printf("ok\n");
		return 0;
	}
	printf("%s\n", strerrorname_np(err) ? strerrorname_np(err) : "E?");
	return err < TRY_EXIT_OTHER_ERRNO ? err : TRY_EXIT_OTHER_ERRNO;
}

int try_report(int err)
{
	printf("%s\n", err ? strerrorname_np(err) : "ok");
	return err ? 1 : 0;
}

int try_report_line(int fd)
{
	char buf[128];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int err = errno;

	close(fd);
	if (n < 0)
		return try_report(err);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("ok %s\n", buf);
	return 0;
}

void try_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("jr2-try: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(": see 'jr2-try --help'\n", stderr);
	exit(TRY_EXIT_USAGE);
}

long try_number(const char *text, const char *what)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || end == text || *end)
		try_usage_error("%s '%s' is not a number: give one", what,
				text);
	return n;
}

void try_unix_addr(struct sockaddr_un *addr, const char *path)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	strncpy(addr->sun_path, path, sizeof(addr->sun_path) - 1);
	if (path[0] == '@')
		addr->sun_path[0] = '\0';
}

static const struct try_verb *find_verb(const char *name)
{
	for (size_t s = 0; s < N_SECTIONS; s++)
		for (const struct try_verb *v = sections[s].verbs; v->name; v++)
			if (!strcmp(v->name, name))
				return v;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct try_verb *verb;
	struct try_call call;

	if (argv[0])
		try_program = argv[0];
	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return 0;
	}
	if (argc < 2)
		try_usage_error("no verb: give a verb and its arguments");
	verb = find_verb(argv[1]);
	if (!verb)
		try_usage_error("unknown verb '%s'", argv[1]);
	call = (struct try_call){.arg = argv + 2,
				 .n = argc - 2,
				 .how = verb->how,
				 .name = verb->name};
	if (verb->args >= 0 ? call.n != verb->args : call.n < -verb->args) {
		print_row(stderr, verb);
		try_usage_error("'%s' takes %s%d argument(s), not %d: give "
				"them as above",
				verb->name, verb->args < 0 ? "at least " : "",
				abs(verb->args), call.n);
	}
	/* Data of read verbs follows the status line: flush in order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return verb->run(&call);
}
