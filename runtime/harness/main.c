// SPDX-License-Identifier: GPL-2.0-only
/* jr2-harness: command line of the harness (serve) and its clients. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "harness.h"
#include "policy.h"
#include "request.h"

#define DEFAULT_MAX_BACKOFF_MS	   2000
#define DEFAULT_REQUEST_TIMEOUT_MS 5000
/* Below the 10 s that docker and podman stop give before their SIGKILL. */
#define DEFAULT_STOP_GRACE_MS 5000

static const char usage[] =
    "usage: jr2-harness serve [--root DIR] [--config FILE] [--bearer-file "
    "FILE]\n"
    "                         [--max-abi N] [--max-backoff-ms MS]\n"
    "                         [--request-timeout-ms MS] [--stop-grace-ms MS]\n"
    "                         [--make-root] [-- CMD [ARG]...]\n"
    "       jr2-harness exec [--root DIR] [--bearer-file FILE] [--cwd DIR]\n"
    "                        [--secret NAME]... [--pass-fd N]... -- CMD "
    "[ARG]...\n"
    "       jr2-harness status [--root DIR] [--bearer-file FILE] [--json]\n"
    "       jr2-harness read|write [--root DIR] [--bearer-file FILE] PATH\n"
    "       jr2-harness edit [--root DIR] [--bearer-file FILE] PATH OLD NEW\n"
    "       jr2-harness --help | --version\n"
    "\n"
    "serve   the unconfined harness: protected dir <DIR>" JR2_DEFAULT_PROTECTED
    " (default " JR2_DEFAULT_PROTECTED "),\n"
    "        Stand-ins, Custodian sockets, and the confined spawner (restarted "
    "in\n"
    "        a new Landlock domain when it stops).  A --root that does not "
    "exist\n"
    "        is refused unless --make-root.  On SIGTERM, SIGINT or SIGHUP: "
    "SIGTERM\n"
    "        to every program, SIGKILL to those left after --stop-grace-ms "
    "(5000).\n"
    "        -- CMD: started as the Harness process (unconfined, its own "
    "session,\n"
    "        the harness's environment, HOME in the protected dir, "
    "JR2_HARNESS_ROOT\n"
    "        the --root); refused when a program could change a file it "
    "loads.\n"
    "        When CMD exits, serve stops and exits with CMD's status.\n"
    "        A client that goes away while its program runs cancels it: "
    "SIGTERM\n"
    "        to the program and its session, SIGKILL after --stop-grace-ms.\n"
    "        control-stream.sock serves Node.js (runtime/harness/node).\n"
    "exec    runs CMD through the spawner with this stdin/stdout/stderr; "
    "exits\n"
    "        with CMD's status, 125 when the harness refuses, 126/127 as env "
    "does,\n"
    "        124 when the --cwd folder cannot be entered.  Passes TERM, INT,\n"
    "        HUP, QUIT, USR1, USR2 and WINCH on to CMD.\n"
    "        A descriptor into a protected dir, or one that hands out\n"
    "        descriptors (a listening unix socket or one with some queued,\n"
    "        io_uring, fanotify, a pidfd), is refused (125).  --bearer-file\n"
    "        must be a regular file.\n"
    "status  spawner pid, domain generation, ABI, protections, live programs.\n"
    "read    PATH's bytes to stdout; write: stdin to PATH, whole or not at "
    "all;\n"
    "edit    OLD, in PATH exactly once, becomes NEW.  Each is done by a "
    "confined\n"
    "        program of the harness, so it reaches what the shell reaches; "
    "~ is\n"
    "        the programs' HOME.  Exit 1 with the shell's message when it "
    "cannot.\n"
    "\n"
    "The ABI cap: --max-abi N, else the environment variable JR2_MAX_ABI.\n"
    "See jr2-harness(1).\n";

static long parse_number(const char *flag, const char *value, long min,
			 long max)
{
	long n;

	if (jr2_parse_number(value, min, max, &n))
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' is not a number from %ld to %ld; give one",
			flag, value, min, max);
	return n;
}

/* The value of a flag; exits when it is missing. */
static const char *flag_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		jr2_die(JR2_EXIT_USAGE,
			"%s needs a value; see jr2-harness --help", argv[*i]);
	return argv[++*i];
}

/* --root: absolute, no "." or ".." component (the policy names real places). */
static void check_root(const char *root)
{
	if (root[0] != '/')
		jr2_die(JR2_EXIT_USAGE,
			"--root '%s' is relative; give an absolute path", root);
	for (const char *p = root; *p;) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			jr2_die(JR2_EXIT_USAGE,
				"--root '%s' has a '%.*s' component; give the "
				"path without '.' or '..'",
				root, (int)len, p);
		p += len;
	}
}

static int run_serve(int argc, char **argv)
{
	struct serve_options opts = {.root = "/",
				     .max_backoff_ms = DEFAULT_MAX_BACKOFF_MS,
				     .request_timeout_ms =
					 DEFAULT_REQUEST_TIMEOUT_MS,
				     .stop_grace_ms = DEFAULT_STOP_GRACE_MS,
				     .start_env_fd = -1,
				     .argv = argv};
	const char *max_abi = NULL;
	char msg[256];

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				jr2_die(JR2_EXIT_USAGE,
					"serve: no command after --; write "
					"jr2-harness serve [OPTIONS] -- CMD "
					"[ARG]... or leave out the --");
			opts.cmd = argv + i + 1;
			opts.cmd_at = i;
			break;
		}
		if (!strcmp(argv[i], "--root"))
			opts.root = flag_value(argc, argv, &i);
		else if (!strcmp(argv[i], "--config"))
			opts.config = flag_value(argc, argv, &i);
		else if (!strcmp(argv[i], "--bearer-file"))
			opts.bearer_file = flag_value(argc, argv, &i);
		else if (!strcmp(argv[i], "--max-abi"))
			max_abi = flag_value(argc, argv, &i);
		else if (!strcmp(argv[i], "--max-backoff-ms"))
			opts.max_backoff_ms = (unsigned int)parse_number(
			    "--max-backoff-ms", flag_value(argc, argv, &i), 0,
			    600000);
		else if (!strcmp(argv[i], "--request-timeout-ms"))
			opts.request_timeout_ms = (unsigned int)parse_number(
			    "--request-timeout-ms", flag_value(argc, argv, &i),
			    1000, 600000);
		else if (!strcmp(argv[i], "--stop-grace-ms"))
			opts.stop_grace_ms = (unsigned int)parse_number(
			    "--stop-grace-ms", flag_value(argc, argv, &i), 0,
			    600000);
		else if (!strcmp(argv[i], "--make-root"))
			opts.make_root = true;
		else if (!strcmp(argv[i], "--start-env-fd") && i + 2 <= argc &&
			 (!argv[i + 2] || !strcmp(argv[i + 2], "--")) &&
			 opts.start_env_fd < 0)
			/* Internal: the re-execution's own, always last
			 * before the -- of a CMD; serve() checks that it is
			 * (E2). */
			opts.start_env_fd = (int)parse_number(
			    "--start-env-fd", flag_value(argc, argv, &i), 3,
			    1 << 20);
		else
			jr2_die(JR2_EXIT_USAGE,
				"serve: unknown argument '%s'; see jr2-harness "
				"--help",
				argv[i]);
	}
	/* The ABI cap: --max-abi, else JR2_MAX_ABI (jr2-confine's code). */
	opts.max_abi = jr2_abi_cap(max_abi, msg, sizeof(msg));
	if (opts.max_abi < 0)
		jr2_die(JR2_EXIT_USAGE, "%s", msg);
	check_root(opts.root);
	serve(&opts);
}

static int run_client(int argc, char **argv, bool exec)
{
	struct client_options opts = {.root = "/"};
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--root")) {
			opts.root = flag_value(argc, argv, &i);
		} else if (!strcmp(argv[i], "--bearer-file")) {
			opts.bearer_file = flag_value(argc, argv, &i);
		} else if (exec && !strcmp(argv[i], "--cwd")) {
			opts.cwd = flag_value(argc, argv, &i);
		} else if (exec && !strcmp(argv[i], "--secret")) {
			if (opts.n_secrets == 32)
				jr2_die(JR2_EXIT_USAGE,
					"--secret given more than 32 times; "
					"list fewer");
			opts.secrets[opts.n_secrets] =
			    flag_value(argc, argv, &i);
			if (!jr2_env_name(opts.secrets[opts.n_secrets],
					  strlen(opts.secrets[opts.n_secrets])))
				jr2_die(JR2_EXIT_USAGE,
					"--secret '%s' is not a secret's name "
					"([A-Za-z_][A-Za-z0-9_]*); give the "
					"name only, e.g. --secret GH_TOKEN",
					opts.secrets[opts.n_secrets]);
			opts.n_secrets++;
		} else if (exec && !strcmp(argv[i], "--pass-fd")) {
			if (opts.n_pass_fds == 13)
				jr2_die(JR2_EXIT_USAGE,
					"--pass-fd given more than 13 times; "
					"pass fewer");
			opts.pass_fds[opts.n_pass_fds] = (int)parse_number(
			    "--pass-fd", flag_value(argc, argv, &i), 0,
			    1 << 20);
			if (fcntl(opts.pass_fds[opts.n_pass_fds], F_GETFD) < 0)
				jr2_die(JR2_EXIT_USAGE,
					"--pass-fd %d is not an open "
					"descriptor of this process; open it "
					"(e.g. 3<FILE) or drop the flag",
					opts.pass_fds[opts.n_pass_fds]);
			opts.n_pass_fds++;
		} else if (!exec && !strcmp(argv[i], "--json")) {
			opts.json = true;
		} else if (exec && !strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			jr2_die(JR2_EXIT_USAGE,
				"%s: unknown argument '%s'%s; see jr2-harness "
				"--help",
				argv[1], argv[i],
				exec ? " (put the command after --)" : "");
		}
	}
	check_root(opts.root);
	if (opts.cwd && opts.cwd[0] != '/')
		jr2_die(JR2_EXIT_USAGE,
			"--cwd '%s' is relative; give an absolute path",
			opts.cwd);
	if (!exec)
		return client_status(&opts);
	if (i >= argc || strcmp(argv[i - 1], "--"))
		jr2_die(JR2_EXIT_USAGE, "exec: no command; write jr2-harness "
					"exec [OPTIONS] -- CMD [ARG]...");
	if (!argv[i][0])
		jr2_die(JR2_EXIT_USAGE,
			"exec: the command after -- is empty (''); name a "
			"program");
	return client_exec(&opts, argv + i);
}

/* read|write PATH, edit PATH OLD NEW: a confined program does it (R12). */
static int run_file_tool(int argc, char **argv)
{
	struct client_options opts = {.root = "/"};
	int want = strcmp(argv[1], "edit") ? 1 : 3, i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--root"))
			opts.root = flag_value(argc, argv, &i);
		else if (!strcmp(argv[i], "--bearer-file"))
			opts.bearer_file = flag_value(argc, argv, &i);
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1])
			jr2_die(JR2_EXIT_USAGE,
				"%s: unknown argument '%s'; see jr2-harness "
				"--help",
				argv[1], argv[i]);
		else
			break;
	}
	check_root(opts.root);
	if (argc - i != want || !argv[i][0])
		jr2_die(JR2_EXIT_USAGE, "%s: give %s; see jr2-harness --help",
			argv[1], want == 1 ? "one PATH" : "PATH OLD NEW");
	return client_file_tool(&opts, argv[1], argv + i);
}

int main(int argc, char **argv)
{
	jr2_die_init("jr2-harness");
	if (argc < 2)
		jr2_die(JR2_EXIT_USAGE,
			"no command; use serve, exec, status, read, "
			"write or edit "
			"(see jr2-harness --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("jr2-harness %s (Landlock ABI up to %d)\n", JR2_VERSION,
		       JR2_ABI_NEWEST);
		return 0;
	}
	if (!strcmp(argv[1], "serve"))
		return run_serve(argc, argv);
	if (!strcmp(argv[1], "exec"))
		return run_client(argc, argv, true);
	if (!strcmp(argv[1], "status"))
		return run_client(argc, argv, false);
	if (!strcmp(argv[1], "read") || !strcmp(argv[1], "write") ||
	    !strcmp(argv[1], "edit"))
		return run_file_tool(argc, argv);
	/* Internal: what those run as a confined program. */
	if (!strcmp(argv[1], "file-tool"))
		return file_tool_main(argc, argv);
	jr2_die(JR2_EXIT_USAGE,
		"unknown command '%s'; use serve, exec, status, read, write or "
		"edit (see "
		"jr2-harness --help)",
		argv[1]);
}
