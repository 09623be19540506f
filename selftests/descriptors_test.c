// SPDX-License-Identifier: GPL-2.0-only
/*
 * The descriptor door: only stdin, stdout, stderr and
 * the descriptors passed on purpose (--pass-fd) reach a confined program,
 * and a passed or stdio descriptor into the protected dir (O_PATH
 * included), or open for writing into a read-only tree, is refused with
 * exit 125 naming the descriptor and the path.  Through `jr2-confine run`
 * and `jr2-harness exec`; controls: the same descriptors read unconfined,
 * and descriptors elsewhere passed on purpose.
 *
 * Promises: R10
 */
#include "step_helpers.h"

ST_FIXTURE(escapes)

/* `path` opened with `flags` at descriptor `fd` (inherited across exec). */
static void open_at(struct __test_metadata *_metadata, const char *path,
		    int flags, int fd)
{
	int opened = open(path, flags);

	ASSERT_LE(0, opened);
	/* The kselftest runner holds 3 and 4: open() may give fd itself. */
	if (opened == fd)
		return;
	ASSERT_EQ(fd, dup2(opened, fd));
	ASSERT_EQ(0, close(opened));
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static int pass_fd(struct st *st, enum st_path path, const char *fd, char *out,
		   size_t size)
{
	const char *const opts[] = {"--pass-fd", fd, NULL};
	const char *const verb[] = {"fd-read", "3", NULL};
	const char *const verb_run[] = {"fd-read", fd, NULL};

	/* exec renumbers passed descriptors from 3; run keeps them. */
	return st_try_opts(st, path, opts, false,
			   path == ST_EXEC ? verb : verb_run, out, size);
}

/* `exec 5<P/k 6>>P/k; jr2-confine run -- sh -c 'cat <&5; ...'`. */
TEST_F(escapes, R10_descriptors_inherited_are_closed_run)
{
	struct st *st = &self->st;
	char *const sh[] = {st->confine, "run",	       "--quiet",
			    "--protect", HX_PROTECTED, "--",
			    "/bin/sh",	 "-c",	       "cat <&5; echo x >&6",
			    NULL};
	char out[ST_OUT_SIZE];
	off_t before;

	ST_START(st);
	open_at(_metadata, HX_STANDINS, O_RDONLY, 5);
	open_at(_metadata, HX_STANDINS, O_WRONLY | O_APPEND, 6);
	before = size_of(HX_STANDINS);
	/* Control: unconfined, descriptor 5 reads the Stand-ins. */
	ASSERT_EQ(
	    0,
	    strncmp("ok ", ST_TRY_LINE(st, ST_UNCONFINED, "fd-read", "5"), 3));
	ASSERT_STREQ("EBADF", ST_TRY_LINE(st, ST_RUN, "fd-read", "5"));
	/* The shell's own status for a bad redirection (dash 2, busybox 1);
	   the errno is jr2-try's EBADF above. */
	ASSERT_NE(0, st_run(sh, -1, false, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "5"))
	{
		TH_LOG("no word about descriptor 5: %s", out);
	}
	ASSERT_EQ(NULL, strstr(out, "control"))
	{
		TH_LOG("the Stand-ins leaked: %s", out);
	}
	ASSERT_EQ(before, size_of(HX_STANDINS));
	close(5);
	close(6);
}

/* --pass-fd and stdin into the protected dir: refused, 125, named. */
TEST_F(escapes, R10_descriptors_into_protected_dir_refused)
{
	struct st *st = &self->st;
	static const struct {
		const char *path;
		int flags;
	} bad[] = {
	    {HX_STANDINS, O_RDONLY},
	    {HX_STANDINS, O_WRONLY | O_APPEND},
	    {HX_STANDINS, O_PATH},
	    {HX_PROTECTED, O_PATH | O_DIRECTORY},
	    {HX_PROTECTED "/home", O_PATH | O_DIRECTORY},
	    {ST_RO_FILE, O_WRONLY | O_APPEND},
	};
	char out[ST_OUT_SIZE], expected[128];

	ST_START(st);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		open_at(_metadata, bad[i].path, bad[i].flags, 9);
		for (int path = ST_RUN; path <= ST_EXEC; path++) {
			ASSERT_EQ(125, pass_fd(st, path, "9", out, sizeof(out)))
			{
				TH_LOG("%s, %s: %s", st_path_name[path],
				       bad[i].path, out);
			}
			snprintf(expected, sizeof(expected),
				 "descriptor %d %s '%s", path == ST_RUN ? 9 : 3,
				 !strcmp(bad[i].path, ST_RO_FILE)
				     ? "is open for "
				       "writing on"
				     : "refers to",
				 bad[i].path);
			ASSERT_NE(NULL, strstr(out, expected))
			{
				TH_LOG("%s: '%s' lacks '%s'",
				       st_path_name[path], out, expected);
			}
		}
		close(9);
	}
	/* stdin from a protected file: refused too. */
	st->in_fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, st->in_fd);
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		const char *const verb[] = {"fd-read", "0", NULL};

		ASSERT_EQ(125, st_try_opts(st, path, NULL, false, verb, out,
					   sizeof(out)))
		{
			TH_LOG("%s: %s", st_path_name[path], out);
		}
		ASSERT_NE(NULL,
			  strstr(out, "descriptor 0 refers to '" HX_STANDINS))
		{
			TH_LOG("%s: %s", st_path_name[path], out);
		}
	}
	/* Control: unconfined, that stdin reads the Stand-ins. */
	ASSERT_EQ(
	    0,
	    strncmp("ok ", ST_TRY_LINE(st, ST_UNCONFINED, "fd-read", "0"), 3));
	close(st->in_fd);
	st->in_fd = -1;
}

/* Controls: descriptors elsewhere, and read-only ones on read-only trees. */
TEST_F(escapes, R10_descriptors_passed_on_purpose_arrive)
{
	struct st *st = &self->st;
	char out[ST_OUT_SIZE];

	ST_START(st);
	open_at(_metadata, ST_FREE "/file", O_RDONLY, 9);
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_EQ(0, pass_fd(st, path, "9", out, sizeof(out)));
		ASSERT_STREQ("ok free-data\n\n", out);
	}
	close(9);
	open_at(_metadata, ST_RO_FILE, O_RDONLY, 9);
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_EQ(0, pass_fd(st, path, "9", out, sizeof(out)));
		ASSERT_STREQ("ok ro-data\n\n", out);
	}
	close(9);
}

TEST_HARNESS_MAIN
