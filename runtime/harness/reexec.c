// SPDX-License-Identifier: GPL-2.0-only
/*
 * E2: the harness re-executes itself with the environment it composes
 * (env.c), so that no name that loads code is in its process; the start
 * environment crosses the execve in a sealed memfd, read back and checked
 * after it, and gives the confined programs theirs (E1).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "channel.h"
#include "die.h"
#include "env.h"
#include "harness.h"
#include "log.h"
#include "policy_internal.h"
#include "request.h"
#include "serve.h"
#include "standins.h"

/*
 * E2: the harness's own environment, from the start environment: what the
 * re-execution gets, and what a re-executed harness must hold exactly.
 */
static void compose_own_environment(const struct jr2_strv *start,
				    struct jr2_strv *own,
				    struct jr2_strv *dropped)
{
	char home[PATH_MAX + 16];

	snprintf(home, sizeof(home), "%s/%s", harness.protected_dir,
		 JR2_HARNESS_HOME);
	jr2_env_compose_harness(start, &harness.cfg, home, own, dropped);
}

#define START_ENV_MEMFD "jr2-start-environment"
#define START_ENV_SEALS \
	(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* The entries, each with its NUL, in one write (a syscall per entry is
 * what a TCG guest pays most for). */
static void write_entries(int fd, char **entries)
{
	size_t len = 0, at = 0;
	char *text;

	for (char **e = entries; *e; e++)
		len += strlen(*e) + 1;
	text = jr2_xrealloc(NULL, len ? len : 1);
	for (char **e = entries; *e; e++) {
		size_t n = strlen(*e) + 1;

		memcpy(text + at, *e, n);
		at += n;
	}
	for (at = 0; at < len;) {
		ssize_t n = write(fd, text + at, len - at);

		if (n <= 0)
			jr2_die_path(1, "cannot write the start environment to",
				     "memfd");
		at += (size_t)n;
	}
	free(text);
}

/*
 * E2: the harness re-executes itself with the environment it composed, so
 * that no name that loads code is in its process at all (/proc/<pid>/environ
 * included, which setenv cannot change).  The start environment, which the
 * confined programs inherit (E1), crosses the execve in a sealed memfd.
 */
void reexec_with_own_environment(const struct serve_options *opts)
{
	extern char **environ;
	struct jr2_strv start = {0}, own = {0};
	struct jr2_strv dropped = {0};
	char fd_arg[16];
	char **args, **own_array;
	int fd = memfd_create(START_ENV_MEMFD, MFD_ALLOW_SEALING), argc = 0;

	if (fd < 0)
		jr2_die_path(1, "cannot make a memfd for",
			     "the start environment");
	write_entries(fd, environ);
	if (fcntl(fd, F_ADD_SEALS, START_ENV_SEALS))
		jr2_die_path(1, "cannot seal the memfd of",
			     "the start environment");
	jr2_env_from_environ(&start, environ);
	compose_own_environment(&start, &own, &dropped);
	for (size_t i = 0; i < dropped.n; i++)
		say("dropped '%s' from the harness's own environment: it loads "
		    "code from a path (E2)",
		    dropped.v[i]);
	while (opts->argv[argc])
		argc++;
	args = calloc((size_t)argc + 3, sizeof(*args));
	own_array = jr2_env_array(&own);
	if (!args || !own_array)
		jr2_die_path(1, "cannot compose the environment", "(memory)");
	snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
	/* The flag goes last before the -- of a CMD, else last. */
	{
		int at = opts->cmd_at ? opts->cmd_at : argc;

		memcpy(args, opts->argv, (size_t)at * sizeof(*args));
		args[at] = "--start-env-fd";
		args[at + 1] = fd_arg;
		memcpy(args + at + 2, opts->argv + at,
		       (size_t)(argc - at) * sizeof(*args));
	}
	/* The execve ends the writer thread: its lines go first, if the
	 * reader takes them soon. */
	jr2_log_flush(JR2_LOG_EXIT_MS);
	execve("/proc/self/exe", args, own_array);
	jr2_die_path(1,
		     "cannot re-execute the harness with its own environment",
		     "/proc/self/exe");
}

/* After the re-execution: the start environment back from the memfd. */
static void read_start_environment(int fd, struct jr2_strv *start)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			text = realloc(text, cap);
			if (!text)
				jr2_die_path(
				    1, "cannot read the start environment",
				    "memfd");
		}
		n = pread(fd, text + len, 4096, (off_t)len);
		if (n < 0)
			jr2_die_path(1, "cannot read the start environment",
				     "memfd");
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	for (size_t at = 0; at < len;) {
		size_t entry_len = strnlen(text + at, len - at);
		char *entry = strndup(text + at, entry_len);
		char *argv1[] = {entry, NULL};

		if (!entry)
			jr2_die_path(1, "cannot read the start environment",
				     "memfd");
		jr2_env_from_environ(start, argv1);
		free(entry);
		at += entry_len + 1;
	}
	free(text);
}

/*
 * E2: --start-env-fd is the re-execution's own: a sealed memfd of that name,
 * and this process's environment is exactly the one the harness composes
 * from it (so no name that loads code can come in with the flag).  Then the
 * start environment is read from it.
 */
void take_start_environment(int fd, struct jr2_strv *start)
{
	extern char **environ;
	struct jr2_strv own = {0};
	struct jr2_strv dropped = {0};
	char link[64], target[256];
	ssize_t len;
	size_t n = 0;
	int seals;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	target[len > 0 ? len : 0] = '\0';
	seals = fcntl(fd, F_GET_SEALS);
	if (strncmp(target, "/memfd:" START_ENV_MEMFD " ",
		    strlen("/memfd:" START_ENV_MEMFD " ")) ||
	    seals < 0 || (seals & START_ENV_SEALS) != START_ENV_SEALS)
		goto refuse;
	read_start_environment(fd, start);
	compose_own_environment(start, &own, &dropped);
	for (char **e = environ; *e; e++, n++)
		if (n >= own.n || strcmp(*e, own.v[n]))
			goto refuse;
	if (n != own.n)
		goto refuse;
	jr2_strv_free(&own);
	jr2_strv_free(&dropped);
	return;
refuse:
	jr2_die(JR2_EXIT_USAGE,
		"--start-env-fd is internal to jr2-harness (its re-execution "
		"with its own environment, E2); start `jr2-harness serve` "
		"without it");
}

/*
 * The bytes the programs' environment takes in every spawn request, with
 * the Stand-in of each Held secret at its largest (JR2_STANDIN_SIZE - 1
 * bytes): its "env" fields, framed by jr2_msg_field as conns.c frames them.
 */
static size_t env_field_bytes(void)
{
	char standin[JR2_STANDIN_SIZE];
	struct jr2_msg msg;
	size_t bytes;

	memset(standin, 'x', sizeof(standin) - 1);
	standin[sizeof(standin) - 1] = '\0';
	jr2_msg_init(&msg);
	for (size_t i = 0; i < harness.confined_env.n; i++)
		jr2_msg_field(&msg, "env", harness.confined_env.v[i]);
	for (size_t i = 0; i < harness.cfg.secrets.n; i++) {
		size_t len =
		    strlen(harness.cfg.secrets.v[i]) + sizeof(standin) + 1;
		char *entry = jr2_xrealloc(NULL, len);

		snprintf(entry, len, "%s=%s", harness.cfg.secrets.v[i],
			 standin);
		jr2_msg_field(&msg, "env", entry);
		free(entry);
	}
	bytes = msg.failed ? SIZE_MAX : msg.len;
	jr2_msg_free(&msg);
	return bytes;
}

/* E1, once the harness runs with its own environment. */
void compose_environments(struct jr2_strv *start)
{
	extern char **environ;

	struct jr2_err err = {0};

	/* E7: a JR2_ENVFROM_ key that would change what jr2 sets: refused. */
	if (jr2_env_check_envfrom(start, &harness.cfg, &err))
		jr2_die(JR2_EXIT_USAGE, "%s", err.msg);
	jr2_env_compose_confined(start, &harness.cfg, &harness.confined_env);
	/*
	 * A spawn request carries the programs' environment and a Stand-in
	 * per secret it lists, at most JR2_REQ_MAX_ENV entries (the spawner's
	 * parser refuses more) in at most JR2_SPAWN_MAX_BYTES (the harness
	 * refuses a larger request): no start rather than a harness whose
	 * every request fails.
	 */
	if (harness.confined_env.n + harness.cfg.secrets.n > JR2_REQ_MAX_ENV)
		jr2_die(JR2_EXIT_USAGE,
			"the start environment gives the programs %zu "
			"variables, and the config declares %zu Held "
			"secret(s): more than the %d variables a request to "
			"the spawner carries; start jr2-harness serve with "
			"fewer (env -u NAME, env -i)",
			harness.confined_env.n, harness.cfg.secrets.n,
			JR2_REQ_MAX_ENV);
	size_t env_bytes = env_field_bytes();

	if (env_bytes > JR2_SPAWN_MAX_BYTES)
		jr2_die(JR2_EXIT_USAGE,
			"the start environment gives the programs %zu bytes "
			"of variables, Stand-ins of the %zu Held secret(s) "
			"counted: more than the %d bytes a request to the "
			"spawner carries; start jr2-harness serve without the "
			"largest (env -u NAME, env -i)",
			env_bytes, harness.cfg.secrets.n, JR2_SPAWN_MAX_BYTES);
	/* E4: every file the harness reads because of its environment, the
	 * config's env lines and each JR2_ENVFROM_<KEY> included.  A relative
	 * path is read from each program's own folder, not from the one
	 * checked here: refused. */
	for (size_t i = 0; i < start->n + harness.cfg.env.n; i++) {
		const char *entry = i < start->n
					? start->v[i]
					: harness.cfg.env.v[i - start->n];
		const char *eq = strchr(entry, '=');
		const char *cursor = eq ? eq + 1 : NULL;
		char name[256], path[PATH_MAX];
		enum jr2_path_kind kind;

		if (!eq)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - entry), entry);
		while (jr2_env_next_read_path(name, &cursor, path, sizeof(path),
					      &kind)) {
			if (path[0] != '/')
				jr2_die(JR2_EXIT_USAGE,
					"%s '%s' names the relative path '%s': "
					"each program reads it from its own "
					"folder, which may be one the sandbox "
					"writes; give an absolute path",
					name, eq + 1, path);
			check_read_file(name, path, kind);
		}
	}
}
