// SPDX-License-Identifier: GPL-2.0-only
/*
 * R6 in depth: no file in the protected dir (nor in a read-only tree) can be
 * truncated, by any path: truncate(2), open(O_TRUNC) with every access mode,
 * creat(2), O_CREAT|O_TRUNC, ftruncate(2) on a descriptor, reopen of a
 * descriptor through /proc/self/fd.  Landlock checks TRUNCATE when a file
 * is opened (ABI 3), so ftruncate of a descriptor follows how it was opened.
 *
 * In depth (fixture `where`): every way to change a size x where the file
 * is (the protected dir, the read-only tree, a workspace folder, beside the
 * protected dir, under a bind mount of the protected dir; a bind mount of a
 * read-only tree in a full folder is refused: mounts_test) x when its
 * descriptor was opened (before the domain, in it, passed
 * in by SCM_RIGHTS from an unconfined process after the domain was made).
 * fallocate(2), copy_file_range(2) and writes through mmap(2) need a
 * writable descriptor, not the truncate right: where the domain gives none
 * they are out of reach, and a descriptor opened outside keeps them.  The
 * kernel's rule, proven by the raw syscalls (fixture `opener`): ftruncate
 * follows the rights of the domain that opened the file, not the caller's.
 *
 * Promises: R6 O2 A1
 */
#include <sys/mman.h>
#include <sys/prctl.h>

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

/* ---- where the file is x how its size changes x when it was opened ---- */

#define BIND_PROTECTED FX_OTHER "/bind-jr2"

FIXTURE(where)
{
	struct jr2_fx fx;
	off_t size; /* the file's size before the test */
};

FIXTURE_VARIANT(where)
{
	const char *path;
	const char *bind_src, *bind_dst; /* a bind mount made first */
	bool denied; /* no write nor truncate there (ABI 3+) */
};

/* clang-format off */
FIXTURE_VARIANT_ADD(where, protected_dir) {
	.path = FX_SECRET, .denied = true,
};
FIXTURE_VARIANT_ADD(where, protected_subdir) {
	.path = FX_DEEP, .denied = true,
};
FIXTURE_VARIANT_ADD(where, read_only_tree) {
	.path = FX_REPOS_FILE, .denied = true,
};
FIXTURE_VARIANT_ADD(where, workspace) {
	.path = FX_FILE2, .denied = false,
};
FIXTURE_VARIANT_ADD(where, beside_protected_dir) {
	.path = FX_PID, .denied = false,
};
FIXTURE_VARIANT_ADD(where, bind_mount_of_protected_dir) {
	.path = BIND_PROTECTED "/secret", .bind_src = FX_PROTECTED,
	.bind_dst = BIND_PROTECTED, .denied = true,
};
/* clang-format on */

FIXTURE_SETUP(where)
{
	fx_setup(_metadata, &self->fx);
	if (variant->bind_src) {
		fx_make_dir(_metadata, variant->bind_dst, 0755);
		FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's bind mount");
		ASSERT_EQ(0, mount(variant->bind_src, variant->bind_dst, NULL,
				   MS_BIND, NULL));
	}
	self->size = size_of(variant->path);
	ASSERT_LT(0, self->size);
}

FIXTURE_TEARDOWN(where)
{
}

/* The errno a denied change gives here, else 0. */
static int where_errno(const FIXTURE_VARIANT(where) * variant)
{
	return variant->denied ? EACCES : 0;
}

/* The size is what the change made it, or untouched where denied. */
#define ASSERT_SIZE(changed_to)                                       \
	ASSERT_EQ(variant->denied ? self->size : (off_t)(changed_to), \
		  size_of(variant->path))

TEST_F(where, R6_O2_truncate_path)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 1));
	ASSERT_SIZE(1);
}

TEST_F(where, R6_O2_truncate_grow)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 65536));
	ASSERT_SIZE(65536);
}

TEST_F(where, R6_O2_o_trunc_write_only)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant),
		  test_open(variant->path, O_WRONLY | O_TRUNC));
	ASSERT_SIZE(0);
}

TEST_F(where, R6_O2_o_trunc_read_write)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant),
		  test_open(variant->path, O_RDWR | O_TRUNC));
	ASSERT_SIZE(0);
}

TEST_F(where, R6_O2_o_trunc_read_only)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant),
		  test_open(variant->path, O_RDONLY | O_TRUNC));
	ASSERT_SIZE(0);
}

TEST_F(where, R6_O2_o_trunc_append)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant),
		  test_open(variant->path, O_WRONLY | O_APPEND | O_TRUNC));
	ASSERT_SIZE(0);
}

TEST_F(where, R6_O2_creat)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant), test_creat(variant->path));
	ASSERT_SIZE(0);
}

TEST_F(where, R6_O2_o_creat_o_trunc)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant),
		  test_open(variant->path, O_RDWR | O_CREAT | O_TRUNC));
	ASSERT_SIZE(0);
}

TEST_F(where, R6_O2_o_trunc_by_dirfd_opened_before)
{
	char dir[PATH_MAX];
	const char *base;
	int dirfd;

	snprintf(dir, sizeof(dir), "%s", variant->path);
	*strrchr(dir, '/') = '\0';
	base = strrchr(variant->path, '/') + 1;
	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(where_errno(variant),
		  test_openat(dirfd, base, O_WRONLY | O_TRUNC));
	ASSERT_SIZE(0);
	close(dirfd);
}

TEST_F(where, R6_O2_o_trunc_reopen_through_proc)
{
	char proc_path[64];
	int fd = open(variant->path, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	FX_CONFINE(&self->fx);
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(where_errno(variant),
		  test_open(proc_path, O_RDONLY | O_TRUNC));
	ASSERT_SIZE(0);
	close(fd);
}

TEST_F(where, R6_O2_ftruncate_fd_opened_in_domain)
{
	int fd;

	FX_CONFINE(&self->fx);
	fd = open(variant->path, O_WRONLY | O_CLOEXEC);
	if (variant->denied) {
		/* No writable descriptor to begin with. */
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EACCES, errno);
		ASSERT_SIZE(0);
		return;
	}
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, test_ftruncate(fd, 2));
	ASSERT_SIZE(2);
	close(fd);
}

/* Opened before the domain: its opener had every right, so it keeps them. */
TEST_F(where, R6_ftruncate_fd_opened_before_domain)
{
	int fd = open(variant->path, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_ftruncate(fd, 3));
	ASSERT_EQ(3, size_of(variant->path));
	/* The path itself stays out of reach where it is denied. */
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 0));
	close(fd);
}

/*
 * An unconfined process opens the file once the domain exists and passes
 * the descriptor in: its opener had every right, so ftruncate works.
 */
TEST_F(where, R6_ftruncate_fd_passed_in_by_scm_rights)
{
	int sv[2], fd;
	char byte;
	pid_t outside;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	outside = fork();
	ASSERT_LE(0, outside);
	if (outside == 0) {
		close(sv[0]);
		if (read(sv[1], &byte, 1) != 1)
			_exit(1);
		fd = open(variant->path, O_RDWR | O_CLOEXEC);
		_exit(fd < 0 || fx_send_fd(sv[1], fd) ? 2 : 0);
	}
	close(sv[1]);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(1, write(sv[0], "g", 1));
	fd = fx_recv_fd(sv[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, test_ftruncate(fd, 4));
	ASSERT_EQ(4, size_of(variant->path));
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 0));
	close(fd);
	ASSERT_EQ(outside, waitpid(outside, NULL, 0));
}

TEST_F(where, R6_O2_open_by_handle_at_then_ftruncate)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} handle;
	int mount_id, mount_fd, fd;

	handle.fh.handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, variant->path, &handle.fh,
				       &mount_id, 0))
	{
		TH_LOG("name_to_handle_at: %s", strerror(errno));
	}
	mount_fd = open(FX_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mount_fd);
	FX_CONFINE(&self->fx);
	fd = open_by_handle_at(mount_fd, &handle.fh, O_RDWR | O_CLOEXEC);
	if (!fx_has_cap(CAP_DAC_READ_SEARCH)) {
		/* Without CAP_DAC_READ_SEARCH (a container profile's set) no
		   handle opens at all, before Landlock is asked. */
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EPERM, errno);
		ASSERT_EQ(self->size, size_of(variant->path));
		return;
	}
	if (variant->denied) {
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EACCES, errno);
		ASSERT_SIZE(0);
		return;
	}
	ASSERT_LE(0, fd)
	{
		TH_LOG("open_by_handle_at: %s", strerror(errno));
	}
	ASSERT_EQ(0, test_ftruncate(fd, 5));
	ASSERT_SIZE(5);
	close(fd);
}

/* fallocate is not a truncate: a writable descriptor is what it needs. */
TEST_F(where, R6_fallocate_modes_on_fd_opened_before_domain)
{
	int fd = open(variant->path, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, fallocate(fd, 0, 0, 8192));
	ASSERT_EQ(8192, size_of(variant->path));
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 16384));
	ASSERT_EQ(8192, size_of(variant->path));
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       0, 4096));
	ASSERT_EQ(8192, size_of(variant->path));
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 0));
	close(fd);
}

TEST_F(where, R6_O2_fallocate_on_fd_opened_in_domain)
{
	int fd;

	FX_CONFINE(&self->fx);
	fd = open(variant->path, O_WRONLY | O_CLOEXEC);
	if (variant->denied) {
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EACCES, errno);
		ASSERT_SIZE(0);
		return;
	}
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, 8192));
	ASSERT_SIZE(8192);
	close(fd);
}

TEST_F(where, R6_O2_copy_file_range_into_file)
{
	int src, dst;

	FX_CONFINE(&self->fx);
	src = open(FX_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, src);
	dst = open(variant->path, O_WRONLY | O_CLOEXEC);
	if (variant->denied) {
		ASSERT_EQ(-1, dst);
		ASSERT_EQ(EACCES, errno);
		ASSERT_SIZE(0);
		close(src);
		return;
	}
	ASSERT_LE(0, dst);
	/* Past the end: the copy grows the file. */
	ASSERT_EQ(5, copy_file_range(src, NULL, dst, &(loff_t){4096}, 5, 0));
	ASSERT_SIZE(4096 + 5);
	close(dst);
	close(src);
}

TEST_F(where, R6_copy_file_range_into_fd_opened_before_domain)
{
	int src, dst = open(variant->path, O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, dst);
	FX_CONFINE(&self->fx);
	src = open(FX_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, src);
	ASSERT_EQ(5, copy_file_range(src, NULL, dst, &(loff_t){4096}, 5, 0));
	ASSERT_EQ(4096 + 5, size_of(variant->path));
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 0));
	close(dst);
	close(src);
}

TEST_F(where, R6_mmap_then_ftruncate_fd_opened_before_domain)
{
	int fd = open(variant->path, O_RDWR | O_CLOEXEC);
	char *map;

	ASSERT_LE(0, fd);
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_ftruncate(fd, 4096));
	map[4095] = 'm';
	ASSERT_EQ(0, msync(map, 4096, MS_SYNC));
	ASSERT_EQ(4096, size_of(variant->path));
	ASSERT_EQ(where_errno(variant), test_truncate(variant->path, 0));
	ASSERT_EQ(0, munmap(map, 4096));
	close(fd);
}

TEST_F(where, R6_O2_mmap_then_ftruncate_fd_opened_in_domain)
{
	int fd;
	char *map;

	FX_CONFINE(&self->fx);
	fd = open(variant->path, O_RDWR | O_CLOEXEC);
	if (variant->denied) {
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EACCES, errno);
		ASSERT_SIZE(0);
		return;
	}
	ASSERT_LE(0, fd);
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, test_ftruncate(fd, 4096));
	map[4095] = 'm';
	ASSERT_SIZE(4096);
	ASSERT_EQ(0, munmap(map, 4096));
	close(fd);
}

/* ---- the kernel's rule, by the raw syscalls: the opener's domain ---- */

JR2_FIXTURE(opener)

/*
 * One layer that handles TRUNCATE (where the ABI in force has it; else
 * MAKE_BLOCK, so that a domain exists and the honest side is asserted) and
 * grants it beneath `allowed` (NULL: nowhere).
 */
static int truncate_layer(const struct jr2_abi *abi, const char *allowed)
{
	bool has = jr2_abi_has(abi, JR2_FEAT_TRUNCATE);
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    has ? JR2_ACCESS_FS_TRUNCATE
						: JR2_ACCESS_FS_MAKE_BLOCK};
	struct jr2_path_beneath_attr rule = {.allowed_access =
						 attr.handled_access_fs};
	int fd = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0), err = 0;

	if (fd < 0)
		return errno;
	if (allowed) {
		rule.parent_fd = open(allowed, O_PATH | O_CLOEXEC);
		if (rule.parent_fd < 0 ||
		    jr2_sys_add_rule(fd, JR2_RULE_PATH_BENEATH, &rule, 0))
			err = errno;
		close(rule.parent_fd);
	}
	if (!err && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		     jr2_sys_restrict_self(fd, 0)))
		err = errno;
	close(fd);
	return err;
}

TEST_F(opener, R6_ftruncate_keeps_rights_of_outer_domain)
{
	int expected = fx_expect(&self->fx.abi, JR2_FEAT_TRUNCATE, EACCES);
	int outer_fd, inner_fd;

	FX_REQUIRE_LANDLOCK(&self->fx);

	ASSERT_EQ(0, truncate_layer(&self->fx.abi, FX_WORK));
	outer_fd = open(FX_FILE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, outer_fd);
	ASSERT_EQ(0, truncate_layer(&self->fx.abi, NULL));
	/* The caller's domain now denies it by path and on a new fd... */
	ASSERT_EQ(expected, test_truncate(FX_FILE, 0));
	inner_fd = open(FX_FILE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, inner_fd);
	ASSERT_EQ(expected, test_ftruncate(inner_fd, 0));
	/* ...but the fd opened in the outer domain keeps its right. */
	ASSERT_EQ(0, test_ftruncate(outer_fd, 1));
	ASSERT_EQ(1, size_of(FX_FILE));
	close(inner_fd);
	close(outer_fd);
}

TEST_F(opener, R6_ftruncate_in_unconfined_process_of_fd_opened_in_domain)
{
	int expected = fx_expect(&self->fx.abi, JR2_FEAT_TRUNCATE, EACCES);
	int sv[2], fd, own;
	pid_t inside;

	FX_REQUIRE_LANDLOCK(&self->fx);

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	inside = fork();
	ASSERT_LE(0, inside);
	if (inside == 0) {
		close(sv[0]);
		if (truncate_layer(&self->fx.abi, NULL))
			_exit(1);
		fd = open(FX_FILE, O_RDWR | O_CLOEXEC);
		if (fd < 0 || test_ftruncate(fd, 0) != expected)
			_exit(2);
		_exit(fx_send_fd(sv[1], fd) ? 3 : 0);
	}
	close(sv[1]);
	fd = fx_recv_fd(sv[0]);
	ASSERT_LE(0, fd);
	/* This process has no domain, yet the fd carries its opener's. */
	ASSERT_EQ(expected, test_ftruncate(fd, 0));
	ASSERT_EQ(expected ? 5 : 0, size_of(FX_FILE));
	/* Positive control: its own fd of the same file. */
	own = open(FX_FILE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, own);
	ASSERT_EQ(0, test_ftruncate(own, 2));
	ASSERT_EQ(2, size_of(FX_FILE));
	close(own);
	close(fd);
	ASSERT_EQ(inside, waitpid(inside, NULL, 0));
}

TEST_F(opener, R6_ftruncate_denied_on_fd_opened_in_domain_without_right)
{
	int expected = fx_expect(&self->fx.abi, JR2_FEAT_TRUNCATE, EACCES);
	int fd;

	FX_REQUIRE_LANDLOCK(&self->fx);

	ASSERT_EQ(0, truncate_layer(&self->fx.abi, FX_DIR));
	/* Writing is not handled: the open works, the truncate does not. */
	fd = open(FX_FILE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(expected, test_ftruncate(fd, 0));
	ASSERT_EQ(1, write(fd, "w", 1));
	close(fd);
	fd = open(FX_FILE2, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, test_ftruncate(fd, 0));
	close(fd);
}

TEST_HARNESS_MAIN
