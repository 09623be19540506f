// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compiler on real trees: each test draws its tree on a fresh tmpfs,
 * chroots into it (in its own mount namespace), compiles, checks the
 * rules, then confines itself with them and checks what is reachable.
 */
#include "helpers.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/fs.h>
#include <sys/sysmacros.h>

#include "fswalk.h"
#include "landlock_uapi.h"
#include "plan.h"
#include "policy.h"

#define LIST JR2_ACCESS_FS_READ_DIR

FIXTURE(compile)
{
	struct jr2_abi abi;
	struct jr2_policy policy;
};

/* A tmpfs as "/" (its own mount, so mountinfo shows it) with /proc. */
FIXTURE_SETUP(compile)
{
	char msg[300];
	int cap = jr2_abi_cap(NULL, msg, sizeof(msg)); /* make test ABI=N */

	ASSERT_LE(0, cap) TH_LOG("%s", msg);
	jr2_abi_probe(&self->abi, cap);
	jr2_policy_init(&self->policy);
	ASSERT_EQ(0, jr2t_private_tmp());
	ASSERT_EQ(0, mkdir("/tmp/root", 0755));
	ASSERT_EQ(0, mount("jr2-root", "/tmp/root", "tmpfs", 0, "mode=755"));
	ASSERT_EQ(0, mkdir("/tmp/root/proc", 0755));
	ASSERT_EQ(0, mount("proc", "/tmp/root/proc", "proc", 0, NULL));
	ASSERT_EQ(0, chroot("/tmp/root"));
	ASSERT_EQ(0, chdir("/"));
}

FIXTURE_TEARDOWN(compile)
{
	/* The mount namespace, and with it the tmpfs, ends with the child. */
	jr2_policy_free(&self->policy);
}

/* open(2) as the Landlock selftests do: 0 or the errno. */
static int test_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

#define NEED_LANDLOCK()                                                 \
	do {                                                            \
		char _why[400];                                         \
                                                                        \
		if (jr2_abi_verdict(&self->abi) != JR2_VERDICT_ACCEPT)  \
			SKIP(return, "cannot confine here: %s",         \
				   jr2_verdict_reason(&self->abi, _why, \
						      sizeof(_why)));   \
	} while (0)

static int confine(struct __test_metadata *_metadata,
		   const struct jr2_policy *policy, const struct jr2_abi *abi)
{
	struct jr2_err err;
	int ret = jr2_confine_self(policy, abi, 0, &err);

	if (ret)
		TH_LOG("jr2_confine_self: %s", err.msg);
	return ret;
}

/*
 * /              ancestor: list
 * ├── prot/      protected (depth 1)
 * │   └── secret
 * ├── other/     full
 * │   └── file
 * ├── file       file rights
 * ├── link@ -> prot   no rule
 * └── proc/      full
 */
TEST_F(compile, R1_R7_protected_dir_at_depth_1)
{
	const uint64_t full =
	    jr2_rights_full(jr2_abi_fs_rights(self->abi.in_force));
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/other"));
	ASSERT_EQ(0, jr2t_write("/prot/secret", "s3cret\n", 0600));
	ASSERT_EQ(0, jr2t_write("/other/file", "data\n", 0600));
	ASSERT_EQ(0, jr2t_write("/file", "top\n", 0600));
	ASSERT_EQ(0, symlink("prot", "/link"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));

	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_EQ(LIST, rule_of(&plan, "/"));
	EXPECT_EQ(-1, rule_of(&plan, "/prot"));
	EXPECT_EQ(-1, rule_of(&plan, "/link"));
	EXPECT_EQ(full & ~LIST, rule_of(&plan, "/other"));
	/* /proc: read-only in every policy (kernel control files). */
	EXPECT_EQ(jr2_rights_read_only(full) & ~LIST, rule_of(&plan, "/proc"));
	EXPECT_EQ(jr2_rights_file_only(full), rule_of(&plan, "/file"));
	EXPECT_EQ(4, plan.n_rules); /* /, /other, /file, /proc */
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/prot/secret", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/link/secret", O_RDONLY));
	EXPECT_EQ(0, test_open("/prot", O_RDONLY | O_DIRECTORY));
	EXPECT_EQ(0, test_open("/other/file", O_RDWR));
	EXPECT_EQ(0, test_open("/file", O_RDWR));
	/* Nothing can be made in an ancestor. */
	EXPECT_EQ(EACCES, test_open("/new", O_CREAT | O_WRONLY));
}

/* /d1/d2/.../d11/prot: depth 12, a dir and a file beside each level. */
TEST_F(compile, R1_A1_protected_dir_at_depth_12)
{
	const uint64_t full =
	    jr2_rights_full(jr2_abi_fs_rights(self->abi.in_force));
	struct jr2_ruleset_plan plan;
	struct jr2_err err;
	char path[256] = "", deep[300];

	NEED_LANDLOCK();
	for (int level = 1; level <= 11; level++) {
		char sib[300];

		snprintf(path + strlen(path), sizeof(path) - strlen(path),
			 "/d%d", level);
		ASSERT_EQ(0, jr2t_mkdirs(path));
		snprintf(sib, sizeof(sib), "%s/sib", path);
		ASSERT_EQ(0, mkdir(sib, 0755));
		snprintf(sib, sizeof(sib), "%s/file", path);
		ASSERT_EQ(0, jr2t_write(sib, "f\n", 0600));
	}
	snprintf(deep, sizeof(deep), "%s/prot", path);
	ASSERT_EQ(0, mkdir(deep, 0700));
	snprintf(deep, sizeof(deep), "%s/prot/secret", path);
	ASSERT_EQ(0, jr2t_write(deep, "s\n", 0600));
	snprintf(deep, sizeof(deep), "%s/prot", path);
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, deep, &err));

	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	/* "/" lists; the 11 dirs on the way add nothing; 2 siblings each. */
	EXPECT_EQ(LIST, rule_of(&plan, "/"));
	EXPECT_EQ(-1, rule_of(&plan, "/d1"));
	EXPECT_EQ(-1, rule_of(&plan, path));
	snprintf(deep, sizeof(deep), "%s/sib", path);
	EXPECT_EQ(full & ~LIST, rule_of(&plan, deep));
	snprintf(deep, sizeof(deep), "%s/file", path);
	EXPECT_EQ(jr2_rights_file_only(full), rule_of(&plan, deep));
	EXPECT_EQ(1 + 1 + 11 * 2, plan.n_rules); /* /, /proc, 2 per level */
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	snprintf(deep, sizeof(deep), "%s/prot/secret", path);
	EXPECT_EQ(EACCES, test_open(deep, O_RDONLY));
	snprintf(deep, sizeof(deep), "%s/file", path);
	EXPECT_EQ(0, test_open(deep, O_RDWR));
	snprintf(deep, sizeof(deep), "%s/sib/new", path);
	EXPECT_EQ(0, test_open(deep, O_CREAT | O_RDWR));
}

/*
 * /a/prot/sub/x   protected (via /a/prot)
 * /b/alias        bind mount of /a/prot/sub: protected too
 * /c              bind mount of /a: /c/prot protected too
 */
TEST_F(compile, R9_bind_mounts_of_protected_dir)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot/sub"));
	ASSERT_EQ(0, jr2t_mkdirs("/b/alias"));
	ASSERT_EQ(0, jr2t_mkdirs("/b/other"));
	ASSERT_EQ(0, jr2t_mkdirs("/c"));
	ASSERT_EQ(0, jr2t_write("/a/prot/sub/x", "x\n", 0600));
	ASSERT_EQ(0, jr2t_write("/b/other/y", "y\n", 0600));
	ASSERT_EQ(0, mount("/a/prot/sub", "/b/alias", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount("/a", "/c", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));

	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_TRUE(has_note(&plan, "'/b/alias' is mount"));
	EXPECT_TRUE(has_note(&plan, "'/c/prot' is mount"));
	EXPECT_EQ(-1, rule_of(&plan, "/b"));
	EXPECT_EQ(-1, rule_of(&plan, "/b/alias"));
	EXPECT_EQ(-1, rule_of(&plan, "/c"));
	EXPECT_NE(-1, rule_of(&plan, "/b/other"));
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/a/prot/sub/x", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/b/alias/x", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/c/prot/sub/x", O_RDONLY));
	EXPECT_EQ(0, test_open("/b/other/y", O_RDWR));
}

/* A symlink beside the protected dir gets no rule, and is no way in. */
TEST_F(compile, R9_symlinks_in_siblings)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/a/dir"));
	ASSERT_EQ(0, jr2t_write("/a/prot/secret", "s\n", 0600));
	ASSERT_EQ(0, symlink("/a/prot", "/a/to-prot"));
	ASSERT_EQ(0, symlink("prot/secret", "/a/dir/to-secret"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));

	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_EQ(-1, rule_of(&plan, "/a/to-prot"));
	EXPECT_NE(-1, rule_of(&plan, "/a/dir"));
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/a/to-prot/secret", O_RDONLY));
	EXPECT_EQ(0, test_open("/a/dir", O_RDONLY | O_DIRECTORY));
}

/* Paths through or at a symlink are bad input, named with the fix. */
TEST_F(compile, R9_symlink_paths_refused)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, symlink("/a/prot", "/a/link"));
	ASSERT_EQ(0, symlink("/a", "/via"));

	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/link", &err));
	ASSERT_EQ(-1, jr2_policy_compile(&self->policy, 7, &plan, &err));
	EXPECT_TRUE(err.bad_input);
	EXPECT_STREQ("protected dir '/a/link' is a symlink: give the path it "
		     "points to (rules never follow symlinks)",
		     err.msg);
	jr2_policy_free(&self->policy);

	ASSERT_EQ(0,
		  jr2_policy_add_protected(&self->policy, "/via/prot", &err));
	ASSERT_EQ(-1, jr2_policy_compile(&self->policy, 7, &plan, &err));
	EXPECT_TRUE(err.bad_input);
	EXPECT_EQ(ELOOP, err.code);
	EXPECT_STREQ("protected dir '/via/prot': '/via' is a symlink: give the "
		     "real path (rules never follow symlinks)",
		     err.msg);
}

/* jr2_open_nofollow(): -errno, and the symlink's prefix length for ELOOP. */
static int open_nofollow(const char *path, struct stat *st, size_t *bad_len)
{
	int fd = jr2_open_nofollow(path, st, bad_len);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/*
 * The walk every rule's inode comes from follows no symlink in any
 * component, crosses mounts, and opens a symlink at the end itself.
 */
TEST_F(compile, R9_open_nofollow_follows_no_symlink)
{
	struct stat st, want;
	size_t bad_len = 0;

	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/a/mnt"));
	ASSERT_EQ(0, mount("jr2-sub", "/a/mnt", "tmpfs", 0, NULL));
	ASSERT_EQ(0, jr2t_write("/a/file", "f\n", 0644));
	ASSERT_EQ(0, symlink("/a/prot", "/a/link"));
	ASSERT_EQ(0, symlink("/a", "/via"));

	/* Positive controls: a dir, and a dir across a mount. */
	ASSERT_EQ(0, open_nofollow("/a/prot", &st, &bad_len));
	ASSERT_EQ(0, lstat("/a/prot", &want));
	EXPECT_EQ(want.st_dev, st.st_dev);
	EXPECT_EQ(want.st_ino, st.st_ino);
	ASSERT_EQ(0, open_nofollow("/a/mnt", &st, &bad_len));
	ASSERT_EQ(0, lstat("/a/mnt", &want));
	EXPECT_EQ(want.st_dev, st.st_dev);
	EXPECT_EQ(want.st_ino, st.st_ino);
	/* A symlink at the end: itself, not what it points to. */
	ASSERT_EQ(0, open_nofollow("/a/link", &st, &bad_len));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_EQ(0, open_nofollow("/proc/self", &st, &bad_len));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	/* A symlink before the end: ELOOP, and its prefix. */
	EXPECT_EQ(-ELOOP, open_nofollow("/via/prot", &st, &bad_len));
	EXPECT_EQ(strlen("/via"), bad_len);
	EXPECT_EQ(-ELOOP, open_nofollow("/a/link/x", &st, &bad_len));
	EXPECT_EQ(strlen("/a/link"), bad_len);
	EXPECT_EQ(-ELOOP, open_nofollow("/proc/self/fd", &st, &bad_len));
	EXPECT_EQ(strlen("/proc/self"), bad_len);
	/* A file before the end: ENOTDIR, and its prefix. */
	EXPECT_EQ(-ENOTDIR, open_nofollow("/a/file/x", &st, &bad_len));
	EXPECT_EQ(strlen("/a/file"), bad_len);
	EXPECT_EQ(-ENOENT, open_nofollow("/a/missing", &st, &bad_len));
}

/* /a/file beside the protected dir: its file rights, no more. */
TEST_F(compile, R3_A1_files_in_ancestors)
{
	const uint64_t full =
	    jr2_rights_full(jr2_abi_fs_rights(self->abi.in_force));
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_write("/a/file", "f\n", 0600));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_EQ(jr2_rights_file_only(full), rule_of(&plan, "/a/file"));
	EXPECT_EQ(0, rule_of(&plan, "/a/file") & JR2_ACCESS_FS_MAKE_REG);
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(0, test_open("/a/file", O_RDWR | O_TRUNC));
	EXPECT_EQ(EACCES, test_open("/a/prot/new", O_CREAT | O_WRONLY));
	EXPECT_EQ(EACCES, test_open("/a/new", O_CREAT | O_WRONLY));
}

/* /a/prot and /a/prot/inner: one protected dir, noted. */
TEST_F(compile, R1_nested_protected_dirs)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot/inner"));
	ASSERT_EQ(0, jr2t_write("/a/prot/inner/s", "s\n", 0600));
	ASSERT_EQ(
	    0, jr2_policy_add_protected(&self->policy, "/a/prot/inner", &err));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_TRUE(has_note(&plan, "'/a/prot/inner' is inside protected dir "
				    "'/a/prot'"));
	EXPECT_EQ(-1, rule_of(&plan, "/a/prot"));
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/a/prot/inner/s", O_RDONLY));
	EXPECT_EQ(0, test_open("/a/prot/inner", O_RDONLY | O_DIRECTORY));
}

/*
 * A hard link to a protected file, made before confinement in a granted
 * folder, is another path to it: confining is refused, naming the file.
 */
TEST_F(compile, R9_hard_link_outside_protected_dir_refused)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/a/work/deep"));
	ASSERT_EQ(0, jr2t_write("/a/prot/secret", "s\n", 0600));
	ASSERT_EQ(0, link("/a/prot/secret", "/a/work/deep/hardlink"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(-1, jr2_policy_compile(&self->policy, self->abi.in_force,
					 &plan, &err));
	EXPECT_EQ(EMLINK, err.code);
	EXPECT_FALSE(err.bad_input);
	EXPECT_STREQ("protected file '/a/prot/secret' has 2 links, 1 of them "
		     "outside the protected dirs: a link would reach it "
		     "around the rules; remove the other links (find / "
		     "-samefile '/a/prot/secret')",
		     err.msg);
	EXPECT_EQ(-1, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(0, test_open("/a/work/deep/hardlink", O_RDONLY));

	/* Control: without the outside link, confined, and denied. */
	ASSERT_EQ(0, unlink("/a/work/deep/hardlink"));
	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/a/prot/secret", O_RDONLY));
}

/* Links with every name inside the protected dir reach nothing more. */
TEST_F(compile, R9_hard_link_inside_protected_dir_fine)
{
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot/sub"));
	ASSERT_EQ(0, jr2t_write("/a/prot/secret", "s\n", 0600));
	ASSERT_EQ(0, link("/a/prot/secret", "/a/prot/sub/again"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/a/prot/secret", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/a/prot/sub/again", O_RDONLY));
}

/*
 * A file beside a restricted path with several links gets no rule: a rule
 * binds to the inode, and would grant it under its other names (here a
 * read-only file).
 */
TEST_F(compile, O2_R9_hard_linked_sibling_gets_no_rule)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/ro"));
	ASSERT_EQ(0, jr2t_write("/a/ro/file", "r\n", 0644));
	ASSERT_EQ(0, link("/a/ro/file", "/a/hardlink"));
	ASSERT_EQ(0, jr2_policy_add_read_only(&self->policy, "/a/ro", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_EQ(-1, rule_of(&plan, "/a/hardlink"));
	EXPECT_TRUE(has_note(&plan, "'/a/hardlink' has 2 hard links"));
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(EACCES, test_open("/a/ro/file", O_WRONLY));
	EXPECT_EQ(EACCES, test_open("/a/hardlink", O_WRONLY));
	EXPECT_EQ(0, test_open("/a/ro/file", O_RDONLY));
}

/* Mount points with a space (mountinfo writes it \\040) are found too. */
TEST_F(compile, R9_bind_mount_at_path_with_space)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/b/with space"));
	ASSERT_EQ(0, mount("/a/prot", "/b/with space", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, 7, &plan, &err));
	EXPECT_TRUE(has_note(&plan, "'/b/with space' is mount"));
	EXPECT_EQ(-1, rule_of(&plan, "/b/with space"));
	jr2_plan_free(&plan);
}

/* A rule whose path changed after compiling: nothing is restricted. */
TEST_F(compile, G4_confine_all_or_nothing)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/a/dir"));
	ASSERT_EQ(0, jr2t_write("/a/prot/secret", "s\n", 0600));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	ASSERT_NE(-1, rule_of(&plan, "/a/dir"));
	/* The dir is now a file: its rule cannot be added as planned. */
	ASSERT_EQ(0, rmdir("/a/dir"));
	ASSERT_EQ(0, jr2t_write("/a/dir", "now a file\n", 0600));
	EXPECT_EQ(-1, jr2_confine_plan(&plan, 0, &err));
	EXPECT_EQ(ESTALE, err.code);
	EXPECT_FALSE(err.bad_input);
	EXPECT_STREQ("rule '/a/dir': it was replaced while confining; run "
		     "again",
		     err.msg);
	jr2_plan_free(&plan);
	/* Not restricted: the secret still opens, and no_new_privs unset. */
	EXPECT_EQ(0, test_open("/a/prot/secret", O_RDONLY));
	EXPECT_EQ(0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
}

/* Explicit paths must exist; jr2's defaults are skipped when missing. */
TEST_F(compile, G4_missing_paths)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	ASSERT_EQ(0, jr2_policy_add_read_only(&self->policy, "/nope", &err));
	ASSERT_EQ(-1, jr2_policy_compile(&self->policy, 7, &plan, &err));
	EXPECT_TRUE(err.bad_input);
	EXPECT_STREQ("read-only tree '/nope' does not exist: create it first "
		     "or leave it out",
		     err.msg);

	jr2_policy_set_defaults(&self->policy);
	ASSERT_EQ(0, jr2t_mkdirs("/etc/ssl/certs"));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, 7, &plan, &err));
	EXPECT_TRUE(has_note(&plan, "skipped: default protected dir '/run/jr2' "
				    "does not exist"));
	EXPECT_TRUE(has_note(&plan, "skipped: default read-only tree '/repos' "
				    "does not exist"));
	EXPECT_EQ(JR2_ACCESS_FS_EXECUTE | JR2_ACCESS_FS_READ_FILE | LIST,
		  rule_of(&plan, "/"));
	jr2_plan_free(&plan);
}

/*
 * /dev: only the allow-list opens; every other node (a disk, memory) gets
 * no rule; listing works; no device node can be made anywhere.
 */
TEST_F(compile, R1_devices_allow_list_and_no_device_nodes)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;
	const uint64_t handled = jr2_abi_fs_rights(self->abi.in_force);

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/dev/pts"));
	ASSERT_EQ(0, jr2t_mkdirs("/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/work"));
	ASSERT_EQ(0, mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)));
	ASSERT_EQ(0, mknod("/dev/mem", S_IFCHR | 0600, makedev(1, 1)));
	ASSERT_EQ(0, mknod("/dev/loop0", S_IFBLK | 0600, makedev(7, 0)));
	/* A disk under an allowed name: not the device the name says. */
	ASSERT_EQ(0, mknod("/dev/zero", S_IFBLK | 0600, makedev(7, 1)));
	ASSERT_EQ(0, symlink("/proc/self/fd", "/dev/fd"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	EXPECT_EQ(jr2_rights_device(handled, "null", false),
		  rule_of(&plan, "/dev/null"));
	EXPECT_NE(0, rule_of(&plan, "/dev/null") & JR2_ACCESS_FS_WRITE_FILE);
	EXPECT_EQ(-1, rule_of(&plan, "/dev/mem"));
	EXPECT_EQ(-1, rule_of(&plan, "/dev/loop0"));
	EXPECT_EQ(-1, rule_of(&plan, "/dev/fd"));
	EXPECT_NE(-1, rule_of(&plan, "/dev/pts"));
	for (size_t i = 0; i < plan.n_rules; i++)
		EXPECT_EQ(0, plan.rules[i].access & (JR2_ACCESS_FS_MAKE_CHAR |
						     JR2_ACCESS_FS_MAKE_BLOCK));
	EXPECT_EQ(-1, rule_of(&plan, "/dev/zero"));
	EXPECT_TRUE(has_note(&plan, "'/dev/zero' is not the device"));
	EXPECT_TRUE(has_note(&plan, "/dev: 3 entries off the allow-list"));
	jr2_plan_free(&plan);

	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(0, test_open("/dev/null", O_RDWR));
	EXPECT_EQ(EACCES, test_open("/dev/mem", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/dev/loop0", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/dev/zero", O_RDONLY));
	EXPECT_EQ(0, test_open("/dev", O_RDONLY | O_DIRECTORY));
	EXPECT_EQ(EACCES, mknod("/work/null", S_IFCHR | 0600, makedev(1, 3))
			      ? errno
			      : 0);
	EXPECT_EQ(EACCES, mknod("/work/loop", S_IFBLK | 0600, makedev(7, 0))
			      ? errno
			      : 0);
	EXPECT_EQ(0, mknod("/work/fifo", S_IFIFO | 0600, 0) ? errno : 0);
	EXPECT_EQ(EACCES, test_open("/dev/new", O_CREAT | O_WRONLY));
}

/* /proc is read-only: writes to its files fail, reads work. */
TEST_F(compile, R1_proc_read_only)
{
	struct jr2_err err;
	char path[64];
	int fd;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/work"));
	ASSERT_EQ(0, jr2t_write("/work/file", "w\n", 0600));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));
	/* Control, unconfined: the same write works. */
	ASSERT_EQ(0, test_open("/proc/self/oom_score_adj", O_WRONLY));
	ASSERT_EQ(0, confine(_metadata, &self->policy, &self->abi));
	EXPECT_EQ(0, test_open("/proc/self/status", O_RDONLY));
	EXPECT_EQ(EACCES, test_open("/proc/self/oom_score_adj", O_WRONLY));
	EXPECT_EQ(EACCES, test_open("/proc/sys/kernel/core_pattern", O_WRONLY));
	/* /proc/self/fd/N resolves to the file's own path: writable. */
	fd = open("/work/file", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	EXPECT_EQ(0, test_open(path, O_WRONLY));
	close(fd);
}

static void must_refuse(struct __test_metadata *_metadata,
			const struct jr2_policy *policy, const char *words1,
			const char *words2)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	ASSERT_EQ(-1, jr2_policy_compile(policy, 7, &plan, &err));
	EXPECT_FALSE(err.bad_input); /* exit 125 */
	EXPECT_NE(NULL, strstr(err.msg, words1)) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, words2)) TH_LOG("%s", err.msg);
	EXPECT_NE(NULL, strstr(err.msg, "umount")) TH_LOG("%s", err.msg);
}

/* A read-only tree bind-mounted in a full folder: refused, naming both. */
TEST_F(compile, O2_R9_read_only_tree_alias_refused)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/repos/sub"));
	ASSERT_EQ(0, jr2t_mkdirs("/work/r"));
	ASSERT_EQ(0, jr2_policy_add_read_only(&self->policy, "/repos", &err));
	/* Control: no alias, compiles. */
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, 7, &plan, &err))
	TH_LOG("%s", err.msg);
	jr2_plan_free(&plan);
	ASSERT_EQ(0, mount("/repos/sub", "/work/r", NULL, MS_BIND, NULL));
	must_refuse(_metadata, &self->policy, "'/repos/sub'", "'/work/r'");
}

/* A mount below a protected dir, mounted again in a full folder. */
TEST_F(compile, R9_submount_of_protected_dir_alias_refused)
{
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/prot/m"));
	ASSERT_EQ(0, jr2t_mkdirs("/work/m"));
	ASSERT_EQ(0, mount("sub", "/prot/m", "tmpfs", 0, NULL));
	ASSERT_EQ(0, jr2t_write("/prot/m/secret", "s\n", 0600));
	ASSERT_EQ(0, mount("/prot/m", "/work/m", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));
	must_refuse(_metadata, &self->policy, "'/prot/m'", "'/work/m'");
}

/* proc (or sysfs) mounted outside its tree: refused. */
TEST_F(compile, R1_kernel_fs_outside_its_tree_refused)
{
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/work/p"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));
	ASSERT_EQ(0, mount("proc", "/work/p", "proc", 0, NULL));
	must_refuse(_metadata, &self->policy, "proc file system at '/work/p'",
		    "'/proc'");
}

/* Overlayfs with the protected dir as a lower layer: refused. */
TEST_F(compile, R9_overlay_of_protected_dir_refused)
{
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/work/up"));
	ASSERT_EQ(0, jr2t_mkdirs("/work/wd"));
	ASSERT_EQ(0, jr2t_mkdirs("/work/o"));
	ASSERT_EQ(0, jr2t_write("/prot/secret", "s\n", 0600));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));
	if (mount("overlay", "/work/o", "overlay", 0,
		  "lowerdir=/prot,upperdir=/work/up,workdir=/work/wd"))
		SKIP(return, "no overlayfs here: %s", strerror(errno));
	must_refuse(_metadata, &self->policy, "lowerdir '/prot'", "'/work/o'");
}

/*
 * Docker's masks: /dev/null bound over /proc/keys (and kcore), /proc/sys bound
 * read-only at its own place.  Equal or fewer rights: compiles.
 */
TEST_F(compile, R1_docker_masks_allowed)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	ASSERT_EQ(0, jr2t_mkdirs("/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/dev"));
	ASSERT_EQ(0, mount("dev", "/dev", "tmpfs", 0, NULL));
	ASSERT_EQ(0, mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)));
	ASSERT_EQ(0, mount("/dev/null", "/proc/keys", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount("/proc/sys", "/proc/sys", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(NULL, "/proc/sys", NULL,
			   MS_BIND | MS_REMOUNT | MS_RDONLY, NULL));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, 7, &plan, &err))
	TH_LOG("%s", err.msg);
	jr2_plan_free(&plan);
	/* Seen to fail: the same device shown in a full folder. */
	ASSERT_EQ(0, jr2t_mkdirs("/work"));
	ASSERT_EQ(0, jr2t_write("/work/null", "", 0600));
	ASSERT_EQ(0, mount("/dev/null", "/work/null", NULL, MS_BIND, NULL));
	must_refuse(_metadata, &self->policy, "'/work/null'", "more rights");
}

/* The protected dir exchanged with a sibling between planning and
   landlock_add_rule (the library's seam, this binary's own: no sleep). */
static const char *exchange_a, *exchange_b;
static int exchange_stage = -1; /* -1: no exchange */

void jr2_confine_seam(const struct jr2_ruleset_plan *plan, int stage)
{
	(void)plan;
	if (stage == exchange_stage)
		syscall(SYS_renameat2, AT_FDCWD, exchange_a, AT_FDCWD,
			exchange_b, RENAME_EXCHANGE);
}

TEST_F(compile, R9_exchange_before_add_rule_refused)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/a/sib"));
	ASSERT_EQ(0, jr2t_write("/a/prot/secret", "s\n", 0600));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	exchange_a = "/a/prot";
	exchange_b = "/a/sib";
	exchange_stage = 0;
	EXPECT_EQ(-1, jr2_confine_plan(&plan, 0, &err));
	exchange_stage = -1;
	EXPECT_EQ(ESTALE, err.code);
	EXPECT_NE(NULL, strstr(err.msg, "'/a/sib'")) TH_LOG("%s", err.msg);
	/* Nothing restricted; the secret (now at /a/sib) still opens. */
	EXPECT_EQ(0, test_open("/a/sib/secret", O_RDONLY));
	EXPECT_EQ(0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	jr2_plan_free(&plan);
}

/* The same exchange after the rules, before restricting: the targets are
   checked again. */
TEST_F(compile, R9_exchange_before_restrict_refused)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;

	NEED_LANDLOCK();
	ASSERT_EQ(0, jr2t_mkdirs("/a/prot"));
	ASSERT_EQ(0, jr2t_mkdirs("/a/sib"));
	ASSERT_EQ(0, jr2_policy_add_protected(&self->policy, "/a/prot", &err));
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, self->abi.in_force,
					&plan, &err));
	exchange_a = "/a/prot";
	exchange_b = "/a/sib";
	exchange_stage = 1;
	EXPECT_EQ(-1, jr2_confine_plan(&plan, 0, &err));
	exchange_stage = -1;
	EXPECT_EQ(ESTALE, err.code);
	EXPECT_NE(NULL, strstr(err.msg, "restricted path '/a/prot'"))
	TH_LOG("%s", err.msg);
	EXPECT_EQ(0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	jr2_plan_free(&plan);
}

/* The frozen folders of a policy, with why. */
TEST_F(compile, A1_frozen_folders_listed)
{
	struct jr2_ruleset_plan plan;
	struct jr2_err err;
	bool root = false, run = false, proc = false, etc = false;

	ASSERT_EQ(0, jr2t_mkdirs("/run/jr2"));
	ASSERT_EQ(0, jr2t_mkdirs("/etc"));
	ASSERT_EQ(0, jr2t_mkdirs("/dev"));
	clearenv();
	jr2_policy_set_defaults(&self->policy);
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, 7, &plan, &err));
	ASSERT_EQ(plan.frozen.n, plan.frozen_why.n);
	for (size_t i = 0; i < plan.frozen.n; i++) {
		root |= !strcmp(plan.frozen.v[i], "/");
		run |= !strcmp(plan.frozen.v[i], "/run");
		proc |= !strcmp(plan.frozen.v[i], "/proc");
		etc |= !strcmp(plan.frozen.v[i], "/etc");
	}
	EXPECT_TRUE(root);
	EXPECT_TRUE(run);
	EXPECT_TRUE(proc);
	EXPECT_FALSE(etc);
	EXPECT_EQ(0, plan.warnings.n);
	jr2_plan_free(&plan);
	jr2_policy_free(&self->policy);

	/* A CA bundle in /etc freezes /etc, and says so. */
	ASSERT_EQ(0, jr2t_write("/etc/ca.pem", "pem\n", 0644));
	setenv("SSL_CERT_FILE", "/etc/ca.pem", 1);
	jr2_policy_set_defaults(&self->policy);
	ASSERT_EQ(0, jr2_policy_compile(&self->policy, 7, &plan, &err));
	ASSERT_EQ(1, plan.warnings.n);
	EXPECT_STREQ("CA bundle ($SSL_CERT_FILE) '/etc/ca.pem' is outside "
		     "/opt/jr2: it is read-only, and nothing can be made or "
		     "removed directly in /etc; move it under /opt/jr2",
		     plan.warnings.v[0]);
	jr2_plan_free(&plan);
}

TEST_HARNESS_MAIN
