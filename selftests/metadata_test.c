// SPDX-License-Identifier: GPL-2.0-only
/*
 * Issue 17, the metadata door (row 5): chmod, chown, utimes, setxattr
 * (user.* and trusted.*) and chattr (FS_IOC_SETFLAGS) of the protected dir,
 * its files, and of read-only trees fail, for root too.  Landlock has no
 * right for them: the confinement step makes each restricted dir a
 * read-only bind mount in the programs' own mount namespace (EROFS), and
 * says so in one line (`run --verbose`, the harness's log).  Each change
 * writes the value it read, so a success changes nothing.  Controls: the
 * same change unconfined (the test's view of the tree stays writable), and
 * confined in the user's folder.
 *
 * Promises: O2 R2
 */
#include "step_helpers.h"

ST_FIXTURE(escapes)

static const char *const verbs[] = {"chmod",	  "chown",	   "utimes",
				    "xattr-user", "xattr-trusted", "chattr"};
#define N_VERBS (sizeof(verbs) / sizeof(*verbs))

static const char *const places[] = {HX_PROTECTED, HX_STANDINS, ST_RO,
				     ST_RO_FILE};

/* What the change gives confined: EROFS, but a file it cannot open. */
static const char *confined_expected(const char *verb, const char *place)
{
	if (!strcmp(verb, "chattr") && !strcmp(place, HX_STANDINS))
		return "EACCES"; /* R1: the ioctl needs an open file */
	return "EROFS";
}

#define N_PLACES (sizeof(places) / sizeof(*places))

/*
 * Every verb on every place (n_places of them) by `path`, in one run of
 * the helper (`batch`): line p * N_VERBS + v of out is the answer of verb v
 * on place p.  Each attempt is its own syscall, as in a run of its own.
 */
static void mt_batch(struct st *st, enum st_path path,
		     const char *const *place_list, size_t n_places,
		     char lines[][64])
{
	const char *verb[2 + 2 * N_VERBS * N_PLACES] = {"batch"};
	static char out[ST_OUT_SIZE];
	size_t n = 1;
	char *at = out;

	for (size_t p = 0; p < n_places; p++)
		for (size_t v = 0; v < N_VERBS; v++) {
			verb[n++] = verbs[v];
			verb[n++] = place_list[p];
		}
	verb[n] = NULL;
	st_help_opts(st, path, NULL, false, verb, out, sizeof(out));
	for (size_t i = 0; i < n_places * N_VERBS; i++) {
		size_t len = strcspn(at, "\n");

		snprintf(lines[i], 64, "%.*s", (int)len, at);
		at += len;
		if (*at)
			at++;
	}
}

static void assert_metadata_held(struct __test_metadata *_metadata,
				 struct st *st, enum st_path path)
{
	char lines[N_PLACES * N_VERBS][64];

	mt_batch(st, path, places, N_PLACES, lines);
	for (size_t p = 0; p < N_PLACES; p++) {
		for (size_t v = 0; v < N_VERBS; v++) {
			ASSERT_STREQ(confined_expected(verbs[v], places[p]),
				     lines[p * N_VERBS + v])
			{
				TH_LOG("%s: %s %s", st_path_name[path],
				       verbs[v], places[p]);
			}
		}
	}
}

/* Controls: unconfined, every change succeeds where it was refused. */
static void assert_unconfined_can(struct __test_metadata *_metadata,
				  struct st *st)
{
	char lines[N_PLACES * N_VERBS][64];

	mt_batch(st, ST_UNCONFINED, places, N_PLACES, lines);
	for (size_t p = 0; p < N_PLACES; p++)
		for (size_t v = 0; v < N_VERBS; v++) {
			const char *out = lines[p * N_VERBS + v];

			/* tmpfs has user.* xattrs from Linux 6.6 on. */
			if (!strcmp(verbs[v], "xattr-user") &&
			    !strcmp(out, "EOPNOTSUPP"))
				continue;
			ASSERT_STREQ("ok", out)
			{
				TH_LOG("unconfined: %s %s", verbs[v],
				       places[p]);
			}
		}
}

/* In the user's folder the changes work confined; trusted.* needs
   CAP_SYS_ADMIN, which programs lose. */
static void assert_free_folder(struct __test_metadata *_metadata, struct st *st,
			       enum st_path path)
{
	static const char *const free_file[] = {ST_FREE "/file"};
	char lines[N_VERBS][64];

	mt_batch(st, path, free_file, 1, lines);
	for (size_t v = 0; v < N_VERBS; v++) {
		const char *out = lines[v];

		if (!strcmp(verbs[v], "xattr-user") &&
		    !strcmp(out, "EOPNOTSUPP"))
			continue;
		ASSERT_STREQ(strcmp(verbs[v], "xattr-trusted") ? "ok" : "EPERM",
			     out)
		{
			TH_LOG("%s: %s in the user's folder",
			       st_path_name[path], verbs[v]);
		}
	}
}

TEST_F(escapes, R2_O2_metadata_run)
{
	struct st *st = &self->st;
	const char *const verbose[] = {"--verbose", NULL};
	const char *const verb[] = {"chmod", ST_FREE, NULL};
	char out[ST_OUT_SIZE];

	ST_START(st);
	/* The one line says what holds on this machine (root: the mounts). */
	ASSERT_EQ(0, st_help_opts(st, ST_RUN, verbose, false, verb, out,
				  sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "jr2-confine: metadata: holds: 1 "
				    "protected dir and 1 read-only tree"))
	{
		TH_LOG("%s", out);
	}
	assert_metadata_held(_metadata, st, ST_RUN);
	assert_free_folder(_metadata, st, ST_RUN);
	assert_unconfined_can(_metadata, st);
}

TEST_F(escapes, R2_O2_metadata_exec)
{
	struct st *st = &self->st;
	char log[HX_OUT_SIZE];

	ST_START(st);
	hx_log(log, sizeof(log));
	/* The read-only trees: ST_RO and the harness's trusted config folder.
	 */
	ASSERT_NE(NULL, strstr(log, "jr2-harness: metadata: holds: 1 "
				    "protected dir and 2 read-only trees"))
	{
		TH_LOG("log: %s", log);
	}
	assert_metadata_held(_metadata, st, ST_EXEC);
	assert_free_folder(_metadata, st, ST_EXEC);
	assert_unconfined_can(_metadata, st);
}

ST_MAIN
