// SPDX-License-Identifier: GPL-2.0-only
/*
 * R6 in depth: no file in the protected dir (nor in a read-only tree) can be
 * truncated, by any path: truncate(2), open(O_TRUNC) with every access mode,
 * creat(2), O_CREAT|O_TRUNC, ftruncate(2) on a descriptor, reopen of a
 * descriptor through /proc/self/fd.  Landlock checks TRUNCATE when a file
 * is opened (ABI 3), so ftruncate of a descriptor follows how it was opened.
 *
 * Promises: R6 O2 A1
 */
#include "common.h"

JR2_FIXTURE(truncate)

/* The file's size, or -1. */
static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

TEST_F(truncate, R6_truncate_to_zero)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_truncate(FX_SECRET, 0));
	ASSERT_EQ((off_t)strlen(FX_SECRET_TEXT), size_of(FX_SECRET));
	ASSERT_EQ(0, test_truncate(FX_FILE, 0));
	ASSERT_EQ(0, size_of(FX_FILE));
}

TEST_F(truncate, R6_truncate_to_grow)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_truncate(FX_SECRET, 4096));
	ASSERT_EQ(0, test_truncate(FX_FILE, 4096));
	ASSERT_EQ(4096, size_of(FX_FILE));
}

TEST_F(truncate, R6_truncate_in_subdir)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_truncate(FX_DEEP, 1));
	ASSERT_EQ(0, test_truncate(FX_FILE2, 1));
}

TEST_F(truncate, R6_o_trunc_write_only)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_WRONLY | O_TRUNC));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY | O_TRUNC));
	ASSERT_EQ(0, size_of(FX_FILE));
}

TEST_F(truncate, R6_o_trunc_read_write)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_RDWR | O_TRUNC));
	ASSERT_EQ(0, test_open(FX_FILE, O_RDWR | O_TRUNC));
}

TEST_F(truncate, R6_o_trunc_read_only)
{
	FX_CONFINE(&self->fx);
	/* O_RDONLY|O_TRUNC truncates on Linux: a path many forget. */
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_RDONLY | O_TRUNC));
	ASSERT_EQ((off_t)strlen(FX_SECRET_TEXT), size_of(FX_SECRET));
	ASSERT_EQ(0, test_open(FX_FILE, O_RDONLY | O_TRUNC));
	ASSERT_EQ(0, size_of(FX_FILE));
}

TEST_F(truncate, R6_o_trunc_append)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_WRONLY | O_APPEND | O_TRUNC));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY | O_APPEND | O_TRUNC));
}

TEST_F(truncate, R6_creat_existing)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_creat(FX_SECRET));
	ASSERT_EQ(EACCES, test_creat(FX_DEEP));
	ASSERT_EQ(0, test_creat(FX_FILE));
	ASSERT_EQ(0, size_of(FX_FILE));
}

TEST_F(truncate, R6_o_creat_o_trunc_existing)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_RDWR | O_CREAT | O_TRUNC));
	ASSERT_EQ(0, test_open(FX_FILE, O_RDWR | O_CREAT | O_TRUNC));
}

TEST_F(truncate, R6_ftruncate_fd_opened_confined)
{
	int fd;

	FX_CONFINE(&self->fx);
	fd = open(FX_FILE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, test_ftruncate(fd, 0));
	close(fd);
	ASSERT_EQ(EACCES, test_open(FX_SECRET, O_RDWR));
}

TEST_F(truncate, R6_ftruncate_read_only_fd_then_reopen)
{
	char proc_path[64];
	int fd, reopened;

	/* A read-only descriptor, taken before confinement. */
	fd = open(FX_SECRET, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	FX_CONFINE(&self->fx);
	/* Not open for writing: the kernel refuses before Landlock. */
	ASSERT_EQ(EINVAL, test_ftruncate(fd, 0));
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(EACCES, test_open(proc_path, O_RDWR));
	ASSERT_EQ(EACCES, test_open(proc_path, O_WRONLY | O_TRUNC));
	ASSERT_EQ((off_t)strlen(FX_SECRET_TEXT), size_of(FX_SECRET));
	close(fd);
	/* The same reopen of a file outside works. */
	fd = open(FX_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	reopened = open(proc_path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, reopened);
	ASSERT_EQ(0, test_ftruncate(reopened, 0));
	close(reopened);
	close(fd);
}

TEST_F(truncate, R6_O2_read_only_tree_every_path)
{
	int fd;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_truncate(FX_README, 0));
	ASSERT_EQ(EACCES, test_open(FX_README, O_WRONLY | O_TRUNC));
	ASSERT_EQ(EACCES, test_open(FX_README, O_RDONLY | O_TRUNC));
	ASSERT_EQ(EACCES, test_creat(FX_README));
	fd = open(FX_README, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(EINVAL, test_ftruncate(fd, 0));
	close(fd);
	ASSERT_EQ(7, size_of(FX_README));
	ASSERT_EQ(0, test_truncate(FX_FILE, 0));
}

TEST_F(truncate, R6_file_beside_protected_dir)
{
	FX_CONFINE(&self->fx);
	/* A file in an ancestor gets file rights in full: it is not secret. */
	ASSERT_EQ(0, test_truncate(FX_PID, 0));
	ASSERT_EQ(0, size_of(FX_PID));
	ASSERT_EQ(EACCES, test_truncate(FX_SECRET, 0));
}

TEST_F(truncate, R6_A1_truncate_own_files)
{
	int fd;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_creat(FX_WORK "/new"));
	ASSERT_EQ(0, test_write(FX_WORK "/new", "grow", 0));
	ASSERT_EQ(0, test_truncate(FX_WORK "/new", 1));
	fd = open(FX_WORK "/new", O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, test_ftruncate(fd, 3));
	close(fd);
	ASSERT_EQ(3, size_of(FX_WORK "/new"));
	ASSERT_EQ(EACCES, test_truncate(FX_DEEP, 0));
}

TEST_HARNESS_MAIN
