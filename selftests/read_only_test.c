// SPDX-License-Identifier: GPL-2.0-only
/*
 * O1-O2: a read-only tree (common.h's /tmp/repos) can be read, executed and
 * listed; nothing in it can be written, truncated, made, removed, moved or
 * linked.  Each denial has its positive control in /tmp/work.
 *
 * Promises: R6 O1 O2
 */
#include "common.h"

JR2_FIXTURE(read_only)

TEST_F(read_only, O1_read_file)
{
	char buf[16] = "";
	int fd;

	FX_CONFINE(&self->fx);
	fd = open(FX_README, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(7, read(fd, buf, sizeof(buf)));
	ASSERT_STREQ("readme\n", buf);
	close(fd);
	ASSERT_EQ(0, test_read(FX_REPOS_FILE));
	ASSERT_EQ(EACCES, test_open(FX_README, O_WRONLY));
}

TEST_F(read_only, O1_execute_file)
{
	char *const argv[] = {FX_TOOL, NULL};
	int status = -1;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_execve(FX_TOOL, argv, &status));
	ASSERT_EQ(FX_TOOL_STATUS, status);
	/* The same script beside the protected dir would not run. */
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(read_only, O1_list_folders)
{
	int count = 0;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_list(FX_REPOS, &count));
	ASSERT_EQ(3, count); /* README, tool, sub */
	ASSERT_EQ(0, test_list(FX_REPOS_SUB, &count));
	ASSERT_EQ(1, count);
	ASSERT_EQ(0, test_chdir(FX_REPOS_SUB));
	ASSERT_EQ(0, test_read("file"));
	ASSERT_EQ(EACCES, test_creat("new"));
}

TEST_F(read_only, O2_write_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_README, O_WRONLY));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY));
}

TEST_F(read_only, O2_append_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_REPOS_FILE, O_WRONLY | O_APPEND));
	ASSERT_EQ(0, test_open(FX_FILE2, O_WRONLY | O_APPEND));
}

TEST_F(read_only, O2_read_write_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_TOOL, O_RDWR));
	ASSERT_EQ(0, test_open(FX_FILE, O_RDWR));
}

TEST_F(read_only, O2_R6_truncate_path)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_truncate(FX_README, 0));
	ASSERT_EQ(0, test_truncate(FX_FILE, 0));
}

TEST_F(read_only, O2_R6_truncate_o_trunc)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_README, O_WRONLY | O_TRUNC));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY | O_TRUNC));
}

TEST_F(read_only, O2_R6_truncate_creat)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_creat(FX_REPOS_FILE));
	ASSERT_EQ(0, test_creat(FX_FILE2));
}

TEST_F(read_only, O2_make_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_creat(FX_REPOS "/new"));
	ASSERT_EQ(EACCES,
		  test_open(FX_REPOS_SUB "/new", O_WRONLY | O_CREAT | O_EXCL));
	ASSERT_EQ(0, test_creat(FX_WORK "/new"));
}

TEST_F(read_only, O2_make_dir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mkdir(FX_REPOS "/newdir"));
	ASSERT_EQ(0, test_mkdir(FX_WORK "/newdir"));
}

TEST_F(read_only, O2_make_fifo)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mknod(FX_REPOS "/fifo", S_IFIFO | 0600, 0));
	ASSERT_EQ(0, test_mknod(FX_WORK "/fifo", S_IFIFO | 0600, 0));
}

TEST_F(read_only, O2_make_symlink)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_symlink(FX_FILE, FX_REPOS "/link"));
	ASSERT_EQ(0, test_symlink(FX_FILE, FX_WORK "/link"));
}

TEST_F(read_only, O2_make_device)
{
	/* Control, unconfined: the test can make one. */
	FX_SKIP_WITHOUT_CAP(CAP_MKNOD, "the unconfined control's device node");
	ASSERT_EQ(0,
		  test_mknod(FX_WORK "/null0", S_IFCHR | 0600, makedev(1, 3)));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES,
		  test_mknod(FX_REPOS "/null", S_IFCHR | 0600, makedev(1, 3)));
	/* No device node anywhere: CAP_MKNOD is dropped. */
	ASSERT_EQ(EACCES,
		  test_mknod(FX_WORK "/null", S_IFCHR | 0600, makedev(1, 3)));
}

TEST_F(read_only, O2_make_socket)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_bind_unix(FX_REPOS "/sock"));
	ASSERT_EQ(0, test_bind_unix(FX_WORK "/sock"));
}

TEST_F(read_only, O2_remove_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_unlink(FX_README));
	ASSERT_EQ(0, test_unlink(FX_FILE));
}

TEST_F(read_only, O2_remove_dir)
{
	fx_make_dir(_metadata, FX_REPOS "/empty", 0755);
	fx_make_dir(_metadata, FX_WORK "/empty", 0755);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rmdir(FX_REPOS "/empty"));
	ASSERT_EQ(0, test_rmdir(FX_WORK "/empty"));
}

TEST_F(read_only, O2_rename_within)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_README, FX_REPOS "/README.old"));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_WORK "/file.old"));
}

TEST_F(read_only, O2_rename_out)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_README, FX_WORK "/README"));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_OTHER "/file"));
}

TEST_F(read_only, O2_rename_into)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_FILE, FX_REPOS "/planted"));
	ASSERT_EQ(EACCES, test_rename(FX_FILE, FX_README));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_OTHER "/planted"));
}

TEST_F(read_only, O2_rename_tree)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_REPOS_SUB, FX_WORK "/sub"));
	ASSERT_EQ(EACCES, test_rename(FX_REPOS, FX_WORK "/repos"));
	ASSERT_EQ(0, test_rename(FX_DIR, FX_OTHER "/dir"));
}

TEST_F(read_only, O2_link_out)
{
	FX_CONFINE(&self->fx);
	/* Only REFER is missing: a link must not widen the file's access. */
	ASSERT_EQ(EXDEV, test_link(FX_README, FX_WORK "/README"));
	ASSERT_EQ(0, test_link(FX_FILE, FX_OTHER "/file"));
}

TEST_F(read_only, O2_link_into)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_link(FX_FILE, FX_REPOS "/planted"));
	ASSERT_EQ(0, test_link(FX_FILE, FX_OTHER "/planted"));
}

TEST_F(read_only, O2_exchange)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_renameat2(FX_FILE, FX_README, RENAME_EXCHANGE));
	ASSERT_EQ(0, test_renameat2(FX_FILE, FX_FILE2, RENAME_EXCHANGE));
}

TEST_HARNESS_MAIN
