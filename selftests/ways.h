/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A verb of jr2-try (runtime/tests/try_*.c) run three ways on one tree, so
 * that each door is proven through every path that confines:
 *
 *   WAY_UNCONFINED  the positive control: jr2-try in the test's child
 *   WAY_RUN         jr2-try under `jr2-confine run --quiet POLICY --`
 *   WAY_EXEC        jr2-try under `jr2-harness exec`, the harness started
 *                   with `--config WAY_CONF` (the same policy)
 *
 * Each verb prints one line: "ok ..." or the errno's name.  The tree, in
 * the test's own mount namespace:
 *
 * /tmp (tmpfs: the suite's tree, common.h)
 * ├── run/jr2/       a protected dir (secret, sub/deep)
 * ├── repos/         a read-only tree (README, tool, sub/file)
 * └── work/, other/  the user's folders
 * /mnt (tmpfs: the harness's, harness_helpers.h)
 * ├── etc/ways.conf  a read-only tree: the harness trusts its config (E4)
 * └── h/run/jr2/     the harness's protected dir (stand-ins, sockets)
 *
 * POLICY, and WAY_CONF's: protect /tmp/run/jr2, read-only /tmp/repos and
 * /mnt/etc; run protects the harness's protected dir too once a harness has
 * made it, as the harness does for its own programs.  With way->defaults,
 * both take jr2's own policy instead: run with no policy flags, the harness
 * with no config.
 */
#ifndef JR2_SELFTESTS_WAYS_H
#define JR2_SELFTESTS_WAYS_H

#include "harness_helpers.h"

#define WAY_CONF     HX_ETC "/ways.conf"
#define WAY_OUT_SIZE 8192
/* Words of jr2-try's command line (`batch` takes two per attempt). */
#define WAY_MAX_WORDS 80

enum way_path { WAY_UNCONFINED, WAY_RUN, WAY_EXEC };

static const char *const way_name[] = {"unconfined", "jr2-confine run",
				       "jr2-harness exec"};

struct way {
	struct jr2_fx fx;
	struct hx hx;
	char confine[PATH_MAX];
	int in_fd; /* stdin of what runs; -1: the test's own */
	const char *cwd; /* where it starts; NULL: the test's cwd */
	bool defaults; /* jr2's own policy, not the tree's */
};

/*
 * Runs argv with stdin in_fd (-1: as is), stdout and stderr into out;
 * `session`: first a new session whose controlling terminal is in_fd.
 * Returns the exit status (-1: a signal, or no child: fx_run_in).
 */
static inline int way_run(char *const argv[], int in_fd, bool session,
			  char *out, size_t size)
{
	int status;

	return fx_run_in(argv, in_fd, session, out, size, &status) ? -1
								   : status;
}

/* `jr2-confine run --quiet` and the tree's policy into argv; the count. */
static inline size_t way_run_head(struct way *way, const char *argv[])
{
	static const char *const policy[] = {
	    "--protect",   FX_PROTECTED, "--read-only", FX_REPOS,
	    "--read-only", HX_ETC,	 NULL};
	size_t n = 0;

	argv[n++] = way->confine;
	argv[n++] = "run";
	argv[n++] = "--quiet";
	for (size_t i = 0; !way->defaults && policy[i]; i++)
		argv[n++] = policy[i];
	if (!way->defaults && way->hx.pid > 0) {
		argv[n++] = "--protect";
		argv[n++] = HX_PROTECTED;
	}
	return n;
}

/*
 * The command line of jr2-try VERB... by `path`, with `opts` (run's or
 * exec's flags before `--`), into argv (room for max words and the NULL).
 */
static inline void way_argv(struct way *way, enum way_path path,
			    const char *const opts[], const char *const verb[],
			    const char *argv[], size_t max)
{
	size_t n = 0;

	if (path == WAY_RUN) {
		n = way_run_head(way, argv);
	} else if (path == WAY_EXEC) {
		argv[n++] = way->hx.harness;
		argv[n++] = "exec";
		argv[n++] = "--root";
		argv[n++] = HX_ROOT;
		if (way->cwd) {
			argv[n++] = "--cwd";
			argv[n++] = way->cwd;
		}
	}
	for (size_t i = 0; path != WAY_UNCONFINED && opts && opts[i]; i++)
		argv[n++] = opts[i];
	if (path != WAY_UNCONFINED)
		argv[n++] = "--";
	argv[n++] = way->hx.try_tool;
	for (size_t i = 0; verb[i] && n < max; i++)
		argv[n++] = verb[i];
	argv[n] = NULL;
}

/*
 * jr2-try VERB... by `path`, with `opts`; `session`: in a new session whose
 * terminal is way->in_fd.  Its output into out; its exit status.
 */
static inline int way_try_opts(struct way *way, enum way_path path,
			       const char *const opts[], bool session,
			       const char *const verb[], char *out, size_t size)
{
	const char *argv[WAY_MAX_WORDS + 32];
	char cwd_before[PATH_MAX];
	int status;

	way_argv(way, path, opts, verb, argv, WAY_MAX_WORDS + 31);
	/* run's program, and the unconfined one, start in this cwd. */
	if (path != WAY_EXEC && way->cwd &&
	    (!getcwd(cwd_before, sizeof(cwd_before)) || chdir(way->cwd))) {
		snprintf(out, size, "(chdir to %s failed)", way->cwd);
		return -1;
	}
	status = way_run((char *const *)argv, way->in_fd, session, out, size);
	if (path != WAY_EXEC && way->cwd && chdir(cwd_before)) {
		snprintf(out, size, "(chdir back to %s failed)", cwd_before);
		return -1;
	}
	return status;
}

/* jr2-try VERB... by `path` (no flags, no new session). */
static inline int way_try(struct way *way, enum way_path path,
			  const char *const verb[], char *out, size_t size)
{
	return way_try_opts(way, path, NULL, false, verb, out, size);
}

/* jr2-try's output by `path`, cut at the first of `stop`. */
#define WAY_TRY_CUT(way, path, stop, ...)                        \
	({                                                       \
		static char _out[WAY_OUT_SIZE];                  \
		const char *const _verb[] = {__VA_ARGS__, NULL}; \
		way_try(way, path, _verb, _out, sizeof(_out));   \
		_out[strcspn(_out, stop)] = '\0';                \
		(const char *)_out;                              \
	})

/* Its first word ("ok", "EACCES", ...). */
#define WAY_TRY(way, path, ...) WAY_TRY_CUT(way, path, " \n", __VA_ARGS__)

/* Its first line. */
#define WAY_TRY_LINE(way, path, ...) WAY_TRY_CUT(way, path, "\n", __VA_ARGS__)

/* Its first word, the program started in `dir`. */
#define WAY_TRY_IN(way, path, dir, ...)                             \
	({                                                          \
		const char *_word;                                  \
		(way)->cwd = (dir);                                 \
		_word = WAY_TRY_CUT(way, path, " \n", __VA_ARGS__); \
		(way)->cwd = NULL;                                  \
		_word;                                              \
	})

/* An errno's name as jr2-try prints it ("ok" for none). */
static inline const char *way_word(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

/*
 * The errno of a write the policy denies in a protected dir or a read-only
 * tree, by `path`: EROFS where its read-only mounts hold (run --verbose
 * and the harness's log say "metadata: holds"), else Landlock's EACCES.
 * The mount answers first: the kernel takes write access to the mount
 * before it asks the LSMs about the open.
 */
static inline const char *way_write_denied(struct way *way, enum way_path path)
{
	const char *const verbose[] = {"--verbose", NULL};
	const char *const stat_root[] = {"stat", "/", NULL};
	static char out[WAY_OUT_SIZE];

	if (path == WAY_EXEC)
		return hx_write_denied();
	way_try_opts(way, WAY_RUN, verbose, false, stat_root, out, sizeof(out));
	return strstr(out, "jr2-confine: metadata: holds") ? "EROFS" : "EACCES";
}

/* The harness with the tree's policy (jr2's own with way->defaults). */
static inline int way_start(struct __test_metadata *_metadata, struct way *way)
{
	const char *const config[] = {"--config", WAY_CONF, NULL};

	return hx_start(_metadata, &way->hx, way->defaults ? NULL : config);
}

/* The same, or a skip where the runtime must refuse this ABI (HX_START). */
#define WAY_START(way)                                                      \
	do {                                                                \
		const char *const _config[] = {"--config", WAY_CONF, NULL}; \
		HX_START(&(way)->hx, (way)->defaults ? NULL : _config);     \
	} while (0)

/*
 * Ready to confine by `path`: the harness started (exec), else a skip where
 * the runtime refuses this ABI, as WAY_START skips.  In a helper, the last
 * call of its test: a skip returns from the helper only.
 */
#define WAY_CONFINE(way, path)                           \
	do {                                             \
		if ((path) == WAY_EXEC)                  \
			WAY_START(way);                  \
		else if ((path) == WAY_RUN)              \
			HX_REQUIRE_ACCEPTED(&(way)->hx); \
	} while (0)

/* The tree and the tools: the harness's /mnt first, then /tmp, in the one
 * private mount namespace hx_setup makes. */
static inline void way_setup(struct __test_metadata *_metadata, struct way *way)
{
	memset(way, 0, sizeof(*way));
	hx_setup(_metadata, &way->hx);
	fx_setup_tree(_metadata, &way->fx);
	way->in_fd = -1;
	FX_FIND_TOOL("jr2-confine", way->confine);
	fx_make_file(_metadata, WAY_CONF,
		     "protect " FX_PROTECTED "\nread-only " FX_REPOS
		     "\n" HX_TRUST_ETC,
		     0644);
}

/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
#define WAY_FIXTURE(group)                        \
	FIXTURE(group)                            \
	{                                         \
		struct way way;                   \
	};                                        \
	FIXTURE_SETUP(group)                      \
	{                                         \
		way_setup(_metadata, &self->way); \
	}                                         \
	FIXTURE_TEARDOWN(group)                   \
	{                                         \
		hx_stop(&self->way.hx);           \
	}
/* clang-format on */

#endif /* JR2_SELFTESTS_WAYS_H */
