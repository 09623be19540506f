// SPDX-License-Identifier: GPL-2.0-only
/*
 * R1-R8: nothing in the protected dir can be read, written, made, removed,
 * moved, linked or truncated; its names can be listed; a socket in it can
 * still be connected to.  The tree is common.h's; each test first proves
 * the operation works unconfined or elsewhere (its positive control).
 *
 * Promises: R1 R2 R3 R4 R5 R6 R7 R8 A5
 */
#include "common.h"

JR2_FIXTURE(protected_dir)

TEST_F(protected_dir, R1_read_file)
{
	ASSERT_EQ(0, test_read(FX_SECRET));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
	ASSERT_EQ(0, test_read(FX_FILE));
}

TEST_F(protected_dir, R1_read_file_in_subdir)
{
	ASSERT_EQ(0, test_read(FX_DEEP));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_read(FX_DEEP));
	ASSERT_EQ(0, test_read(FX_FILE2));
}

TEST_F(protected_dir, R1_exec_file)
{
	char *const argv[] = {FX_PROTECTED "/tool", NULL};
	int status;

	fx_make_file(_metadata, FX_PROTECTED "/tool", "#!/bin/sh\nexit 7\n",
		     0755);
	ASSERT_EQ(0, test_execve(argv[0], argv, &status));
	ASSERT_EQ(FX_TOOL_STATUS, status);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_execve(argv[0], argv, &status));
}

TEST_F(protected_dir, R2_write_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_WRONLY));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY));
}

TEST_F(protected_dir, R2_append_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_WRONLY | O_APPEND));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY | O_APPEND));
}

TEST_F(protected_dir, R1_R2_read_write_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_RDWR));
	ASSERT_EQ(0, test_open(FX_FILE, O_RDWR));
}

TEST_F(protected_dir, R2_write_file_in_subdir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_write(FX_DEEP, "x", 0));
	ASSERT_EQ(0, test_write(FX_FILE2, "x", 0));
}

TEST_F(protected_dir, R3_make_file_creat)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_creat(FX_PROTECTED "/new"));
	ASSERT_EQ(0, test_creat(FX_WORK "/new"));
}

TEST_F(protected_dir, R3_make_file_o_creat_excl)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES,
		  test_open(FX_SUB "/new", O_WRONLY | O_CREAT | O_EXCL));
	ASSERT_EQ(0, test_open(FX_DIR "/new", O_WRONLY | O_CREAT | O_EXCL));
}

TEST_F(protected_dir, R3_make_dir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mkdir(FX_PROTECTED "/newdir"));
	ASSERT_EQ(0, test_mkdir(FX_WORK "/newdir"));
}

TEST_F(protected_dir, R3_make_fifo)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mknod(FX_PROTECTED "/fifo", S_IFIFO | 0600, 0));
	ASSERT_EQ(0, test_mknod(FX_WORK "/fifo", S_IFIFO | 0600, 0));
}

TEST_F(protected_dir, R3_make_symlink)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_symlink(FX_FILE, FX_PROTECTED "/link"));
	ASSERT_EQ(0, test_symlink(FX_FILE, FX_WORK "/link"));
}

TEST_F(protected_dir, R3_make_char_device)
{
	/* Control, unconfined: the test can make one (/dev/null's numbers)
	   with CAP_MKNOD; without it (a container's default set) EPERM. */
	ASSERT_EQ(fx_errno_without(CAP_MKNOD, EPERM),
		  test_mknod(FX_WORK "/null0", S_IFCHR | 0600, makedev(1, 3)));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mknod(FX_PROTECTED "/null", S_IFCHR | 0600,
				     makedev(1, 3)));
	/* No device node anywhere: CAP_MKNOD is dropped. */
	ASSERT_EQ(EACCES,
		  test_mknod(FX_WORK "/null", S_IFCHR | 0600, makedev(1, 3)));
}

TEST_F(protected_dir, R3_make_block_device)
{
	ASSERT_EQ(fx_errno_without(CAP_MKNOD, EPERM),
		  test_mknod(FX_WORK "/blk0", S_IFBLK | 0600, makedev(7, 0)));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mknod(FX_PROTECTED "/blk", S_IFBLK | 0600,
				     makedev(7, 0)));
	/* No device node anywhere: CAP_MKNOD is dropped. */
	ASSERT_EQ(EACCES,
		  test_mknod(FX_WORK "/blk", S_IFBLK | 0600, makedev(7, 0)));
}

TEST_F(protected_dir, R3_make_socket_bind)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_bind_unix(FX_PROTECTED "/sock"));
	ASSERT_EQ(0, test_bind_unix(FX_WORK "/sock"));
}

TEST_F(protected_dir, R3_make_socket_mknod)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_mknod(FX_PROTECTED "/sock", S_IFSOCK | 0600, 0));
	ASSERT_EQ(0, test_mknod(FX_WORK "/sock", S_IFSOCK | 0600, 0));
}

TEST_F(protected_dir, R4_remove_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_unlink(FX_SECRET));
	ASSERT_EQ(0, test_stat(FX_SECRET));
	ASSERT_EQ(0, test_unlink(FX_FILE));
}

TEST_F(protected_dir, R4_remove_file_in_subdir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_unlink(FX_DEEP));
	ASSERT_EQ(0, test_unlink(FX_FILE2));
}

TEST_F(protected_dir, R4_remove_empty_dir)
{
	fx_make_dir(_metadata, FX_PROTECTED "/empty", 0700);
	fx_make_dir(_metadata, FX_WORK "/empty", 0700);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rmdir(FX_PROTECTED "/empty"));
	ASSERT_EQ(0, test_rmdir(FX_WORK "/empty"));
}

TEST_F(protected_dir, R4_remove_symlink)
{
	ASSERT_EQ(0, test_symlink("secret", FX_PROTECTED "/link"));
	ASSERT_EQ(0, test_symlink("file", FX_WORK "/link"));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_unlink(FX_PROTECTED "/link"));
	ASSERT_EQ(0, test_unlink(FX_WORK "/link"));
}

TEST_F(protected_dir, R5_rename_within)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_SECRET, FX_PROTECTED "/moved"));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_WORK "/moved"));
}

TEST_F(protected_dir, R5_rename_out)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_SECRET, FX_WORK "/stolen"));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_OTHER "/file"));
}

TEST_F(protected_dir, R5_rename_dir_out)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_SUB, FX_WORK "/sub"));
	ASSERT_EQ(0, test_rename(FX_DIR, FX_OTHER "/dir"));
}

TEST_F(protected_dir, R5_rename_into)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_FILE, FX_PROTECTED "/planted"));
	ASSERT_EQ(0, test_read(FX_FILE));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_OTHER "/planted"));
}

TEST_F(protected_dir, R5_rename_over_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_FILE, FX_SECRET));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_FILE2));
}

TEST_F(protected_dir, R5_exchange_with_outside)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_renameat2(FX_FILE, FX_SECRET, RENAME_EXCHANGE));
	ASSERT_EQ(0, test_renameat2(FX_FILE, FX_FILE2, RENAME_EXCHANGE));
}

TEST_F(protected_dir, R5_link_within)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_link(FX_SECRET, FX_PROTECTED "/alias"));
	ASSERT_EQ(0, test_link(FX_FILE, FX_WORK "/alias"));
}

TEST_F(protected_dir, R5_link_out)
{
	FX_CONFINE(&self->fx);
	/*
	 * The destination grants MAKE_REG, so only REFER is missing: the
	 * kernel says EXDEV (a link must not widen a file's access).
	 */
	ASSERT_EQ(EXDEV, test_link(FX_SECRET, FX_WORK "/stolen"));
	ASSERT_EQ(ENOENT, test_stat(FX_WORK "/stolen"));
	ASSERT_EQ(0, test_link(FX_FILE, FX_OTHER "/alias"));
}

TEST_F(protected_dir, R5_link_into)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_link(FX_FILE, FX_PROTECTED "/planted"));
	ASSERT_EQ(0, test_link(FX_FILE, FX_OTHER "/planted"));
}

TEST_F(protected_dir, R5_rename_protected_dir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_PROTECTED, FX_RUN "/jr2.old"));
	ASSERT_EQ(EACCES, test_rename(FX_PROTECTED, FX_WORK "/jr2"));
	ASSERT_EQ(0, test_rename(FX_DIR, FX_WORK "/dir.old"));
}

TEST_F(protected_dir, R5_remove_protected_dir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rmdir(FX_PROTECTED));
	ASSERT_EQ(0, test_stat(FX_SECRET));
	ASSERT_EQ(0, test_unlink(FX_FILE2));
	ASSERT_EQ(0, test_rmdir(FX_DIR));
}

TEST_F(protected_dir, R5_rename_ancestor)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rename(FX_RUN, FX_ROOT "/run.old"));
	ASSERT_EQ(EACCES, test_rename(FX_RUN, FX_WORK "/run"));
	ASSERT_EQ(0, test_rename(FX_DIR, FX_OTHER "/dir"));
}

TEST_F(protected_dir, R5_remove_ancestor)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_rmdir(FX_RUN));
	ASSERT_EQ(EACCES, test_unlink(FX_PID));
	ASSERT_EQ(0, test_unlink(FX_FILE2));
}

TEST_F(protected_dir, R5_exchange_ancestor)
{
	fx_make_dir(_metadata, FX_WORK "/dir2", 0755);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_renameat2(FX_RUN, FX_WORK, RENAME_EXCHANGE));
	ASSERT_EQ(EACCES, test_renameat2(FX_RUN, FX_DIR, RENAME_EXCHANGE));
	ASSERT_EQ(0, test_renameat2(FX_DIR, FX_WORK "/dir2", RENAME_EXCHANGE));
}

TEST_F(protected_dir, R6_truncate_path)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_truncate(FX_SECRET, 0));
	ASSERT_EQ(0, test_truncate(FX_FILE, 0));
}

TEST_F(protected_dir, R6_truncate_o_trunc)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_WRONLY | O_TRUNC));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY | O_TRUNC));
}

TEST_F(protected_dir, R6_truncate_creat)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_creat(FX_SECRET));
	ASSERT_EQ(0, test_creat(FX_FILE));
}

TEST_F(protected_dir, R7_list_protected_dir)
{
	int count = 0;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_list(FX_PROTECTED, &count));
	ASSERT_EQ(2, count); /* secret, sub */
	ASSERT_EQ(0, test_list(FX_SUB, &count));
	ASSERT_EQ(1, count); /* deep */
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(protected_dir, R7_list_root_and_ancestors)
{
	int count = 0;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_list("/", &count));
	ASSERT_LT(0, count);
	ASSERT_EQ(0, test_list(FX_ROOT, &count));
	/* run, repos, work, other, and the suite's own folder when under /tmp
	 */
	ASSERT_EQ(4 + fx_suite_names_in(FX_ROOT), count);
	ASSERT_EQ(0, test_list(FX_RUN, &count));
	ASSERT_EQ(2 + fx_suite_names_in(FX_RUN), count); /* pid, jr2 */
}

/* What `find` does: walk every folder of the tree, counting names. */
static int walk(const char *path, int *names)
{
	DIR *dir = opendir(path);
	struct dirent *entry;
	int err = 0;

	if (!dir)
		return errno;
	while (!err && (entry = readdir(dir))) {
		char child[PATH_MAX];

		if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
			continue;
		(*names)++;
		snprintf(child, sizeof(child), "%s/%s", path, entry->d_name);
		if (entry->d_type == DT_DIR)
			err = walk(child, names);
	}
	closedir(dir);
	return err;
}

TEST_F(protected_dir, R7_find_whole_tree)
{
	int before = 0, after = 0;

	ASSERT_EQ(0, walk(FX_ROOT, &before));
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, walk(FX_ROOT, &after));
	ASSERT_EQ(before, after);
	ASSERT_EQ(EACCES, test_read(FX_DEEP));
}

TEST_F(protected_dir, R7_A5_stat_names)
{
	struct stat st;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, stat(FX_SECRET, &st));
	ASSERT_EQ(strlen(FX_SECRET_TEXT), (size_t)st.st_size);
	ASSERT_EQ(0, test_stat(FX_DEEP));
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(protected_dir, R8_connect_socket)
{
	int listener = fx_unix_listen(FX_PROTECTED "/custodian.sock");

	ASSERT_LE(0, listener);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_connect_unix(FX_PROTECTED "/custodian.sock"));
	/* The socket file is still protected as a file. */
	ASSERT_EQ(EACCES, test_unlink(FX_PROTECTED "/custodian.sock"));
	ASSERT_EQ(EACCES, test_bind_unix(FX_PROTECTED "/other.sock"));
	close(listener);
}

TEST_F(protected_dir, R8_connect_socket_in_subdir)
{
	int listener = fx_unix_listen(FX_SUB "/custodian.sock");

	ASSERT_LE(0, listener);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_connect_unix(FX_SUB "/custodian.sock"));
	/* Nobody listens there: the kernel's own answer, not Landlock's. */
	ASSERT_EQ(0, test_mknod(FX_WORK "/dead.sock", S_IFSOCK | 0600, 0));
	ASSERT_EQ(ECONNREFUSED, test_connect_unix(FX_WORK "/dead.sock"));
	close(listener);
}

TEST_HARNESS_MAIN
