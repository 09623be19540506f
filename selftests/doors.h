/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel's-doors groups share (sysctl, sysfs, devices, mounts,
 * race, frozen, the agent's day): one operation run three
 * ways, so that each door is proven through every path that confines:
 *
 *   unconfined              the positive control, in the test child itself
 *   jr2-confine run         DR_RUN(fx, VERB, ARG...): jr2-try under
 *                           `jr2-confine run --quiet --protect FX_PROTECTED
 *                           --read-only FX_REPOS` (the fixture's layout)
 *   jr2-harness exec        HX_TRY() of harness_helpers.h (its own fixture)
 *
 * Every operation on a kernel file is an open for writing without a write
 * (jr2-try open-write): allowed or not, no setting of the host changes.
 */
#ifndef JR2_SELFTESTS_DOORS_H
#define JR2_SELFTESTS_DOORS_H

#include "harness_helpers.h"

#define DR_OUT_SIZE 8192

/*
 * Runs `jr2-confine run --quiet POLICY... -- ARGV...` (policy NULL: the
 * fixture's layout; an empty list: jr2's defaults).  Its output into out;
 * returns its exit status (-1 when it could not be run).
 */
static inline int dr_confine_run(struct __test_metadata *_metadata,
				 const char *const policy[],
				 const char *const argv[], char *out,
				 size_t size)
{
	static const char *const fixture[] = {"--protect", FX_PROTECTED,
					      "--read-only", FX_REPOS, NULL};
	char tool[PATH_MAX];
	char *args[64];
	int n = 0;

	args[n++] = (char *)FX_FIND_TOOL("jr2-confine", tool);
	args[n++] = "run";
	args[n++] = "--quiet";
	if (!policy)
		policy = fixture;
	for (int i = 0; policy[i] && n < 40; i++)
		args[n++] = (char *)policy[i];
	return fx_run_command(args, n, argv, out, size);
}

/* jr2-try VERB ARG... unconfined: its first word ("ok", "EACCES", ...). */
static inline const char *dr_try_word(struct __test_metadata *_metadata,
				      const char *const policy[], bool confined,
				      const char *const argv[], char *out,
				      size_t size)
{
	char tool[PATH_MAX];
	const char *args[16];
	int n = 0, status = -1;

	args[n++] = FX_FIND_TOOL("jr2-try", tool);
	for (int i = 0; argv[i] && n < 15; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	if (confined)
		dr_confine_run(_metadata, policy, args, out, size);
	else
		fx_run((char *const *)args, out, size, &status);
	out[strcspn(out, " \n")] = '\0';
	return out;
}

/* jr2-try VERB ARG... under `jr2-confine run` with the fixture's layout. */
#define DR_RUN(...)                                                            \
	({                                                                     \
		static char _out[DR_OUT_SIZE];                                 \
		const char *const _argv[] = {__VA_ARGS__, NULL};               \
		dr_try_word(_metadata, NULL, true, _argv, _out, sizeof(_out)); \
	})

/* The same, unconfined: the positive control of DR_RUN. */
#define DR_UNCONFINED(...)                                       \
	({                                                       \
		static char _out[DR_OUT_SIZE];                   \
		const char *const _argv[] = {__VA_ARGS__, NULL}; \
		dr_try_word(_metadata, NULL, false, _argv, _out, \
			    sizeof(_out));                       \
	})

/*
 * The errno of a write the policy denies in a read-only tree or in /proc,
 * /sys and /dev, for a program of `jr2-confine run`: EROFS where its
 * read-only mounts hold (run --verbose says "metadata: holds"), else
 * Landlock's EACCES.  The mount answers first: the kernel takes write
 * access to the mount before it asks the LSMs about the open.
 */
static inline const char *dr_write_denied(struct __test_metadata *_metadata)
{
	static const char *const verbose[] = {"--verbose",  "--protect",
					      FX_PROTECTED, "--read-only",
					      FX_REPOS,	    NULL};
	static const char *const truth[] = {"/bin/true", NULL};
	static char out[DR_OUT_SIZE];

	dr_confine_run(_metadata, verbose, truth, out, sizeof(out));
	return strstr(out, "jr2-confine: metadata: holds") ? "EROFS" : "EACCES";
}

/* Skips (naming the reason) where the runtime refuses this kernel. */
#define DR_REQUIRE_ACCEPTED(fx)                                        \
	do {                                                           \
		char _why[128];                                        \
		if (!fx_accepted(&(fx)->abi))                          \
			SKIP(return, "%s",                             \
				   fx_refusal_reason(&(fx)->abi, _why, \
						     sizeof(_why)));   \
	} while (0)

/* An errno's name as jr2-try prints it. */
static inline const char *dr_name(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

/*
 * The doors of `doors` (NULL-ended) that open for writing here, unconfined
 * (the positive control): into open[], at most max; returns their count.
 * A door missing on this kernel is logged and left out.
 */
static inline size_t dr_open_doors(struct __test_metadata *_metadata,
				   const char *const doors[], int flags,
				   const char *open[], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; doors[i] && n < max; i++) {
		int err = test_open(doors[i], flags);

		if (err)
			TH_LOG("'%s' does not open here unconfined (%s): "
			       "left out",
			       doors[i], strerrorname_np(err));
		else
			open[n++] = doors[i];
	}
	return n;
}

/* Skips, naming the doors, when none of them opens here. */
#define DR_NEED_DOORS(n, what)                                             \
	do {                                                               \
		if (!(n))                                                  \
			SKIP(return, "no %s opens here unconfined", what); \
	} while (0)

#endif /* JR2_SELFTESTS_DOORS_H */
