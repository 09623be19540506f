/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the groups of the confinement step share (terminal, metadata,
 * descriptors, capabilities): the harness fixture of
 * harness_helpers.h, plus `jr2-confine run` on the same tree, running
 * jr2-try's verbs (runtime/tests/try_*.c) for the operations of each door.
 * Each verb prints one line: "ok ..." or the errno's name.
 *
 * /mnt (tmpfs, the test's own mount namespace)
 * ├── etc/step.conf     read-only /mnt/ro and /mnt/etc (the harness's policy)
 * ├── ro/file, ro/sub/  a read-only tree
 * ├── free/             the user's folder
 * └── h/run/jr2/        the protected dir (stand-ins, ...) of both paths
 *
 * Both paths run the same policy: `jr2-confine run --protect
 * /mnt/h/run/jr2 --read-only /mnt/ro` and `jr2-harness serve --config
 * /mnt/etc/step.conf --root /mnt/h`.
 */
#ifndef JR2_SELFTESTS_STEP_HELPERS_H
#define JR2_SELFTESTS_STEP_HELPERS_H

#include "harness_helpers.h"

#define ST_CONF	    HX_ETC "/step.conf"
#define ST_RO	    HX_MNT "/ro"
#define ST_RO_FILE  ST_RO "/file"
#define ST_FREE	    HX_MNT "/free"
#define ST_OUT_SIZE 4096
/* Words of jr2-try's command line (`batch` takes two per attempt). */
#define ST_MAX_WORDS 80

/* ---- running it: unconfined, through run, through exec ---- */

struct st {
	struct hx hx;
	char confine[PATH_MAX];
	int in_fd; /* stdin of what runs; -1: the test's own */
};

/*
 * Runs argv with stdin in_fd (-1: as is), stdout and stderr into out;
 * `session`: first a new session whose controlling terminal is in_fd.
 * Returns the exit status (-1: a signal, or no child: fx_run_in).
 */
static inline int st_run(char *const argv[], int in_fd, bool session, char *out,
			 size_t size)
{
	int status;

	return fx_run_in(argv, in_fd, session, out, size, &status) ? -1
								   : status;
}

/* argv[0..]: NULL-terminated, appended after the fixed words. */
static inline int st_argv(char **dst, size_t max, const char *const head[],
			  const char *const tail[])
{
	size_t n = 0;

	for (size_t i = 0; head && head[i] && n + 1 < max; i++)
		dst[n++] = (char *)head[i];
	for (size_t i = 0; tail && tail[i] && n + 1 < max; i++)
		dst[n++] = (char *)tail[i];
	dst[n] = NULL;
	return (int)n;
}

enum st_path { ST_UNCONFINED, ST_RUN, ST_EXEC };

static const char *const st_path_name[] = {"unconfined", "jr2-confine run",
					   "jr2-harness exec"};

/*
 * jr2-try VERB... by `path`, with `opts` (run's or exec's flags before
 * `--`); `session`: in a new session whose terminal is st->in_fd.  Its
 * output into out; its exit status.
 */
static inline int st_try_opts(struct st *st, enum st_path path,
			      const char *const opts[], bool session,
			      const char *const verb[], char *out, size_t size)
{
	const char *run[24] = {st->confine, "run",	  "--quiet",
			       "--protect", HX_PROTECTED, "--read-only",
			       ST_RO};
	const char *exec[24] = {st->hx.harness, "exec", "--root", HX_ROOT};
	const char **head = path == ST_RUN ? run : exec;
	size_t n = path == ST_RUN ? 7 : 4;
	char *argv[ST_MAX_WORDS + 24];
	const char *full[ST_MAX_WORDS];
	size_t m = 0;

	for (size_t i = 0; opts && opts[i] && n < 20; i++)
		head[n++] = opts[i];
	head[n++] = "--";
	head[n] = NULL;
	full[m++] = st->hx.try_tool;
	for (size_t i = 0; verb[i] && m + 1 < ST_MAX_WORDS; i++)
		full[m++] = verb[i];
	full[m] = NULL;
	if (path == ST_UNCONFINED)
		st_argv(argv, ST_MAX_WORDS + 24, full, NULL);
	else
		st_argv(argv, ST_MAX_WORDS + 24, head, full);
	return st_run(argv, st->in_fd, session, out, size);
}

/* jr2-try VERB... by `path` (no flags, no new session). */
static inline int st_try(struct st *st, enum st_path path,
			 const char *const verb[], char *out, size_t size)
{
	return st_try_opts(st, path, NULL, false, verb, out, size);
}

/* jr2-try's first line by `path` (no flags, no new session). */
#define ST_TRY_LINE(st, path, ...)                               \
	({                                                       \
		static char _out[ST_OUT_SIZE];                   \
		const char *const _verb[] = {__VA_ARGS__, NULL}; \
		st_try(st, path, _verb, _out, sizeof(_out));     \
		_out[strcspn(_out, "\n")] = '\0';                \
		(const char *)_out;                              \
	})

/* The tree and the tools; ST_START starts the harness. */
static inline void st_setup(struct __test_metadata *_metadata, struct st *st)
{
	hx_setup(_metadata, &st->hx);
	st->in_fd = -1;
	FX_FIND_TOOL("jr2-confine", st->confine);
	fx_make_dir(_metadata, ST_RO, 0755);
	fx_make_dir(_metadata, ST_RO "/sub", 0755);
	fx_make_dir(_metadata, ST_FREE, 0755);
	fx_make_file(_metadata, ST_RO_FILE, "ro-data\n", 0644);
	fx_make_file(_metadata, ST_FREE "/file", "free-data\n", 0644);
	fx_make_file(_metadata, ST_CONF, "read-only " ST_RO "\n" HX_TRUST_ETC,
		     0644);
}

/* The harness, with the policy of run (or a skip where the ABI is refused). */
#define ST_START(st)                                                      \
	do {                                                              \
		const char *const _extra[] = {"--config", ST_CONF, NULL}; \
		HX_START(&(st)->hx, _extra);                              \
	} while (0)

/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
#define ST_FIXTURE(group)                       \
	FIXTURE(group)                          \
	{                                       \
		struct st st;                   \
	};                                      \
	FIXTURE_SETUP(group)                    \
	{                                       \
		st_setup(_metadata, &self->st); \
	}                                       \
	FIXTURE_TEARDOWN(group)                 \
	{                                       \
		hx_stop(&self->st.hx);          \
	}
/* clang-format on */

#endif /* JR2_SELFTESTS_STEP_HELPERS_H */
