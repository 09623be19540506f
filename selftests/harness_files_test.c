// SPDX-License-Identifier: GPL-2.0-only
/*
 * R12: the file tools `jr2-harness read|write|edit` are done by a confined
 * program of the harness, so they reach exactly what the shell reaches.
 * read of the Stand-ins file, or of a link to it (absolute, relative,
 * through /proc/self/root, a link to a link), fails "Permission denied"
 * (EACCES), exit 1; write through such a link fails as a program's write
 * there does (hx_write_denied: EROFS where the read-only mounts hold, else
 * EACCES) and leaves the file as it was.  `~/x` is the programs' HOME: what
 * `write '~/x'` writes, `exec -- cat "$HOME/x"` gives back.  edit replaces
 * text that is in the file exactly once, and refuses otherwise.  write
 * through a dangling link lands where the link points, as the shell's `>`
 * does: into the protected dir or a read-only tree it fails with the
 * shell's error and leaves the link a link.  An existing file of a frozen
 * folder (no new entry there) is written and edited, as the shell writes
 * it; a new one there fails as the shell's does.  Positive controls: a
 * file of an ordinary folder is read, written and edited.
 *
 * Promises: R12
 */
#include "harness_helpers.h"

HX_FIXTURE(harness_files)

#define HF_RW	  HX_MNT "/rw"
#define HF_HOME	  HX_MNT "/home"
#define HF_CONFIG HX_ETC "/files.conf"

/* jr2-harness VERB --root HX_ROOT ARGS, `in` on its stdin (NULL: none);
 * its output (stdout and stderr) in out; its exit status. */
static int tool(struct hx *hx, const char *in, char *out, size_t size,
		const char *verb, const char *a, const char *b, const char *c)
{
	char *argv[] = {hx->harness, (char *)verb, "--root",  HX_ROOT,
			(char *)a,   (char *)b,	   (char *)c, NULL};
	int status = -1, fd = -1, err;
	char path[] = HX_MNT "/stdin-XXXXXX";

	if (in) {
		fd = mkstemp(path);
		if (fd < 0 || write(fd, in, strlen(in)) != (ssize_t)strlen(in))
			return -1;
		lseek(fd, 0, SEEK_SET);
		unlink(path);
	}
	err = fx_run_in(argv, fd, false, out, size, &status);
	if (fd >= 0)
		close(fd);
	return err ? -1 : status;
}

/* A macro, not a function: HX_START's SKIP (a kernel the runtime refuses)
 * must end the test itself. */
#define HF_START(hx)                                                           \
	do {                                                                   \
		const char *const _extra[] = {"--config", HF_CONFIG, NULL};    \
                                                                               \
		fx_make_dir(_metadata, HF_RW, 0755);                           \
		fx_make_dir(_metadata, HF_HOME, 0755);                         \
		fx_make_file(                                                  \
		    _metadata, HF_CONFIG,                                      \
		    HX_TRUST_ETC "home " HF_HOME "\nsecret GH_TOKEN\n", 0644); \
		HX_START(hx, _extra);                                          \
	} while (0)

static void read_text(const char *path, char *text, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, size - 1);

	text[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

TEST_F(harness_files, R12_read_of_standins_or_link_permission_denied)
{
	struct hx *hx = &self->hx;
	static const char *const links[] = {HF_RW "/abs", HF_RW "/rel",
					    HF_RW "/root", HF_RW "/twice",
					    HX_STANDINS};
	char out[HX_OUT_SIZE], want[512];

	HF_START(hx);
	ASSERT_EQ(0, symlink(HX_STANDINS, HF_RW "/abs"));
	ASSERT_EQ(0, symlink("../h/run/jr2/stand-ins", HF_RW "/rel"));
	ASSERT_EQ(0, symlink("/proc/self/root" HF_RW "/rel", HF_RW "/root"));
	ASSERT_EQ(0, symlink("root", HF_RW "/twice"));
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		ASSERT_EQ(1, tool(hx, NULL, out, sizeof(out), "read", links[i],
				  NULL, NULL));
		snprintf(want, sizeof(want),
			 "jr2-harness read: %s: Permission denied\n", links[i]);
		ASSERT_STREQ(want, out);
	}
	/* Positive control: an ordinary file, its bytes. */
	fx_make_file(_metadata, HF_RW "/f", "hello\n", 0644);
	ASSERT_EQ(0, tool(hx, NULL, out, sizeof(out), "read", HF_RW "/f", NULL,
			  NULL));
	ASSERT_STREQ("hello\n", out);
}

TEST_F(harness_files, R12_write_home_and_through_link)
{
	struct hx *hx = &self->hx;
	const char *const cat[] = {"/bin/sh", "-c", "cat \"$HOME/x\"", NULL};
	char out[HX_OUT_SIZE], before[512], after[512], want[512];

	HF_START(hx);
	ASSERT_EQ(
	    0, tool(hx, "data\n", out, sizeof(out), "write", "~/x", NULL, NULL))
	{
		TH_LOG("write: %s", out);
	}
	ASSERT_EQ(0, hx_exec(hx, cat, out, sizeof(out)));
	ASSERT_STREQ("data\n", out);
	/* Through a link to the Stand-ins: refused, the file unchanged. */
	read_text(HX_STANDINS, before, sizeof(before));
	ASSERT_EQ(0, symlink(HX_STANDINS, HF_RW "/abs"));
	ASSERT_EQ(1, tool(hx, "evil\n", out, sizeof(out), "write", HF_RW "/abs",
			  NULL, NULL));
	snprintf(want, sizeof(want), "jr2-harness write: %s: %s\n",
		 HF_RW "/abs",
		 strcmp(hx_write_denied(), "EROFS") ? strerror(EACCES)
						    : strerror(EROFS));
	ASSERT_STREQ(want, out);
	read_text(HX_STANDINS, after, sizeof(after));
	ASSERT_STREQ(before, after);
}

TEST_F(harness_files, R12_edit_once_or_refused)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE], text[512];

	HF_START(hx);
	fx_make_file(_metadata, HF_HOME "/e", "one two two\n", 0644);
	ASSERT_EQ(
	    0, tool(hx, NULL, out, sizeof(out), "edit", "~/e", "one", "ONE"));
	read_text(HF_HOME "/e", text, sizeof(text));
	ASSERT_STREQ("ONE two two\n", text);
	/* Twice, or not at all: refused, the file unchanged. */
	ASSERT_EQ(1,
		  tool(hx, NULL, out, sizeof(out), "edit", "~/e", "two", "2"));
	ASSERT_NE(NULL, strstr(out, "2 times"));
	ASSERT_EQ(
	    1, tool(hx, NULL, out, sizeof(out), "edit", "~/e", "three", "3"));
	read_text(HF_HOME "/e", text, sizeof(text));
	ASSERT_STREQ("ONE two two\n", text);
	/* In the protected dir: as the read. */
	ASSERT_EQ(1, tool(hx, NULL, out, sizeof(out), "edit", HX_STANDINS,
			  "GH_TOKEN", "X"));
	ASSERT_NE(NULL, strstr(out, "Permission denied"));
}

/* The error text of the shell's `echo x > path` in a program. */
static void shell_error(struct hx *hx, const char *path, char *err, size_t size)
{
	char cmd[PATH_MAX + 32], out[HX_OUT_SIZE];
	const char *const argv[] = {"/bin/sh", "-c", cmd, NULL};
	const char *colon;

	snprintf(cmd, sizeof(cmd), "echo x > '%s'", path);
	hx_exec(hx, argv, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	colon = strrchr(out, ':');
	snprintf(err, size, "%.200s", colon ? colon + 2 : out);
}

TEST_F(harness_files, R12_write_through_dangling_link_as_the_shell)
{
	struct hx *hx = &self->hx;
	static const char *const links[] = {HF_RW "/to-protected",
					    HF_RW "/to-read-only"};
	static const char *const targets[] = {HX_PROTECTED "/new",
					      HX_ETC "/new"};
	char out[HX_OUT_SIZE], err[256], want[512], text[64];
	struct stat st;

	HF_START(hx);
	for (size_t i = 0; i < 2; i++) {
		ASSERT_EQ(0, symlink(targets[i], links[i]));
		shell_error(hx, links[i], err, sizeof(err));
		ASSERT_TRUE(!strcmp(err, strerror(EACCES)) ||
			    !strcmp(err, strerror(EROFS)))
		{
			TH_LOG("the shell's > %s: %s", links[i], err);
		}
		ASSERT_EQ(1, tool(hx, "data\n", out, sizeof(out), "write",
				  links[i], NULL, NULL));
		snprintf(want, sizeof(want), "jr2-harness write: %s: %s\n",
			 links[i], err);
		ASSERT_STREQ(want, out);
		ASSERT_EQ(0, lstat(links[i], &st));
		ASSERT_TRUE(S_ISLNK(st.st_mode));
		ASSERT_EQ(-1, access(targets[i], F_OK));
		ASSERT_EQ(ENOENT, errno);
	}
	/* Positive control: a dangling link to an ordinary folder: the file
	 * is made where it points, the link stays. */
	ASSERT_EQ(0, symlink("made", HF_RW "/to-rw"));
	ASSERT_EQ(0, tool(hx, "data\n", out, sizeof(out), "write",
			  HF_RW "/to-rw", NULL, NULL))
	{
		TH_LOG("write: %s", out);
	}
	ASSERT_EQ(0, lstat(HF_RW "/to-rw", &st));
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	read_text(HF_RW "/made", text, sizeof(text));
	ASSERT_STREQ("data\n", text);
}

TEST_F(harness_files, R12_write_and_edit_in_frozen_folder_as_the_shell)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE], err[256], want[512], text[64];

	/* HX_MNT is frozen (an ancestor of the read-only HX_ETC): the shell
	 * writes a file that was there when the policy was made, and makes
	 * no new one. */
	fx_make_file(_metadata, HX_MNT "/f", "old text\n", 0644);
	HF_START(hx);

	shell_error(hx, HX_MNT "/f", err, sizeof(err));
	read_text(HX_MNT "/f", text, sizeof(text));
	ASSERT_STREQ("x\n", text)
	{
		TH_LOG("the shell's > " HX_MNT "/f: %s", err);
	}
	ASSERT_EQ(0, tool(hx, "whole new text\n", out, sizeof(out), "write",
			  HX_MNT "/f", NULL, NULL))
	{
		TH_LOG("write: %s", out);
	}
	read_text(HX_MNT "/f", text, sizeof(text));
	ASSERT_STREQ("whole new text\n", text);
	ASSERT_EQ(0, tool(hx, "short\n", out, sizeof(out), "write", HX_MNT "/f",
			  NULL, NULL));
	read_text(HX_MNT "/f", text, sizeof(text));
	ASSERT_STREQ("short\n", text);
	ASSERT_EQ(0, tool(hx, NULL, out, sizeof(out), "edit", HX_MNT "/f",
			  "short", "edited"))
	{
		TH_LOG("edit: %s", out);
	}
	read_text(HX_MNT "/f", text, sizeof(text));
	ASSERT_STREQ("edited\n", text);
	/* A new file there: refused as the shell's. */
	shell_error(hx, HX_MNT "/new", err, sizeof(err));
	ASSERT_EQ(-1, access(HX_MNT "/new", F_OK));
	ASSERT_EQ(1, tool(hx, "data\n", out, sizeof(out), "write",
			  HX_MNT "/new", NULL, NULL));
	snprintf(want, sizeof(want), "jr2-harness write: %s: %s\n",
		 HX_MNT "/new", err);
	ASSERT_STREQ(want, out);
	ASSERT_EQ(-1, access(HX_MNT "/new", F_OK));
}

TEST_HARNESS_MAIN
