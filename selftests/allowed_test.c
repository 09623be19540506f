// SPDX-License-Identifier: GPL-2.0-only
/*
 * A1-A5: under confinement everything outside the protected dir and the
 * read-only trees stays usable: writing the user's folders, moving files
 * between them, running the image's tools, the network, chdir/stat/ls.
 * Each test also shows the protected dir still shut (its negative control).
 *
 * Promises: A1 A2 A3 A4 A5
 */
#include <netinet/in.h>

#include "common.h"

JR2_FIXTURE(allowed)

TEST_F(allowed, A1_create_write_read_file)
{
	char buf[8] = "";
	int fd;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_write(FX_WORK "/new", "hello", O_CREAT | O_EXCL));
	fd = open(FX_WORK "/new", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, read(fd, buf, sizeof(buf)));
	ASSERT_STREQ("hello", buf);
	close(fd);
	ASSERT_EQ(EACCES, test_write(FX_PROTECTED "/new", "x", O_CREAT));
}

TEST_F(allowed, A1_append_and_overwrite)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_write(FX_FILE, "more", O_APPEND));
	ASSERT_EQ(0, test_write(FX_FILE2, "over", O_TRUNC));
	ASSERT_EQ(EACCES, test_write(FX_SECRET, "x", O_APPEND));
}

TEST_F(allowed, A1_truncate_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_truncate(FX_FILE, 1));
	ASSERT_EQ(0, test_open(FX_FILE2, O_WRONLY | O_TRUNC));
	ASSERT_EQ(EACCES, test_truncate(FX_SECRET, 1));
}

TEST_F(allowed, A1_remove_file)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_unlink(FX_FILE));
	ASSERT_EQ(ENOENT, test_stat(FX_FILE));
	ASSERT_EQ(EACCES, test_unlink(FX_SECRET));
}

TEST_F(allowed, A1_make_and_remove_folders)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_mkdir(FX_WORK "/a"));
	ASSERT_EQ(0, test_mkdir(FX_WORK "/a/b"));
	ASSERT_EQ(0, test_creat(FX_WORK "/a/b/c"));
	ASSERT_EQ(0, test_unlink(FX_WORK "/a/b/c"));
	ASSERT_EQ(0, test_rmdir(FX_WORK "/a/b"));
	ASSERT_EQ(0, test_rmdir(FX_WORK "/a"));
	ASSERT_EQ(0, test_unlink(FX_FILE2));
	ASSERT_EQ(0, test_rmdir(FX_DIR));
	ASSERT_EQ(EACCES, test_mkdir(FX_PROTECTED "/a"));
}

TEST_F(allowed, A1_make_special_files)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_mknod(FX_WORK "/fifo", S_IFIFO | 0600, 0));
	ASSERT_EQ(0, test_symlink("file", FX_WORK "/link"));
	ASSERT_EQ(0, test_read(FX_WORK "/link"));
	ASSERT_EQ(0, test_bind_unix(FX_OTHER "/sock"));
	ASSERT_EQ(EACCES, test_mknod(FX_PROTECTED "/fifo", S_IFIFO | 0600, 0));
}

TEST_F(allowed, A1_write_new_tree_depth_12)
{
	char path[PATH_MAX] = FX_WORK;

	FX_CONFINE(&self->fx);
	for (int depth = 0; depth < 12; depth++) {
		strcat(path, "/d");
		ASSERT_EQ(0, test_mkdir(path));
	}
	strcat(path, "/leaf");
	ASSERT_EQ(0, test_write(path, "leaf", O_CREAT | O_EXCL));
	ASSERT_EQ(0, test_truncate(path, 0));
	ASSERT_EQ(EACCES, test_creat(FX_SUB "/leaf"));
}

TEST_F(allowed, A2_move_file_between_folders)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_rename(FX_FILE, FX_OTHER "/file"));
	ASSERT_EQ(0, test_read(FX_OTHER "/file"));
	ASSERT_EQ(0, test_rename(FX_OTHER "/file", FX_DIR "/file"));
	ASSERT_EQ(EACCES, test_rename(FX_DIR "/file", FX_PROTECTED "/file"));
}

TEST_F(allowed, A2_rename_in_place)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_rename(FX_FILE, FX_WORK "/renamed"));
	ASSERT_EQ(0, test_rename(FX_WORK "/renamed", FX_FILE));
	ASSERT_EQ(0, test_creat(FX_WORK "/target"));
	ASSERT_EQ(0, test_rename(FX_FILE, FX_WORK "/target")); /* over a file */
	ASSERT_EQ(EACCES, test_rename(FX_SECRET, FX_PROTECTED "/renamed"));
}

TEST_F(allowed, A2_move_folder_between_folders)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_rename(FX_DIR, FX_OTHER "/dir"));
	ASSERT_EQ(0, test_read(FX_OTHER "/dir/file2"));
	ASSERT_EQ(EACCES, test_rename(FX_OTHER "/dir", FX_PROTECTED "/dir"));
}

TEST_F(allowed, A2_exchange_and_link)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_renameat2(FX_FILE, FX_FILE2, RENAME_EXCHANGE));
	ASSERT_EQ(0, test_link(FX_FILE, FX_OTHER "/hard"));
	ASSERT_EQ(EACCES, test_link(FX_FILE, FX_PROTECTED "/hard"));
}

TEST_F(allowed, A3_exec_bin_sh)
{
	char *const argv[] = {"/bin/sh", "-c", "exit 3", NULL};
	int status = -1;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_execve("/bin/sh", argv, &status));
	ASSERT_EQ(3, status);
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(allowed, A3_exec_usr_bin_tool)
{
	/* One of these is in every image: Debian's coreutils, or busybox. */
	const char *const tools[] = {"/usr/bin/env", "/usr/bin/id",
				     "/usr/bin/true", "/bin/true"};
	const char *tool = NULL;
	int status = -1;

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]) && !tool; i++)
		if (!access(tools[i], X_OK))
			tool = tools[i];
	ASSERT_NE(NULL, tool)
	{
		TH_LOG("none of /usr/bin/env, /usr/bin/id, /usr/bin/true, "
		       "/bin/true is in this image");
	}
	FX_CONFINE(&self->fx);
	{
		char *const argv[] = {(char *)tool, NULL};

		ASSERT_EQ(0, test_execve(tool, argv, &status));
		ASSERT_EQ(0, status);
	}
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(allowed, A3_exec_script_from_work)
{
	char *const argv[] = {FX_WORK "/run.sh", NULL};
	int status = -1;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_write(FX_WORK "/run.sh", "#!/bin/sh\nexit 5\n",
				O_CREAT | O_EXCL));
	ASSERT_EQ(0, chmod(FX_WORK "/run.sh", 0755));
	ASSERT_EQ(0, test_execve(argv[0], argv, &status));
	ASSERT_EQ(5, status);
}

/* A network namespace of the test's own, its loopback up: hermetic. */
static void loopback_up(struct __test_metadata *_metadata)
{
	/* The runtime's container: a network namespace of its own. */
	if (fx_runtime_fixture()) {
		fx_loopback_up(_metadata);
		return;
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNET))
	{
		TH_LOG("unshare(CLONE_NEWNET): %s: the kernel needs "
		       "CONFIG_NET_NS (selftests/config)",
		       strerror(errno));
	}
	fx_loopback_up(_metadata);
}

/* Binds type on 127.0.0.1 port 0, connects to it: 0 or the errno. */
static int loopback_pair(int type, int *bind_err)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	int server = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	int client = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	int err = 0;

	*bind_err = 0;
	if (server < 0 || client < 0)
		return errno;
	if (bind(server, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (type == SOCK_STREAM && listen(server, 1)) ||
	    getsockname(server, (struct sockaddr *)&addr, &len)) {
		*bind_err = errno;
	} else if (connect(client, (struct sockaddr *)&addr, sizeof(addr)) ||
		   (type == SOCK_DGRAM && send(client, "x", 1, 0) != 1)) {
		err = errno;
	}
	close(server);
	close(client);
	return err;
}

TEST_F(allowed, A4_tcp_loopback)
{
	int bind_err;

	loopback_up(_metadata);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, loopback_pair(SOCK_STREAM, &bind_err));
	ASSERT_EQ(0, bind_err);
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(allowed, A4_udp_loopback)
{
	int bind_err;

	loopback_up(_metadata);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, loopback_pair(SOCK_DGRAM, &bind_err));
	ASSERT_EQ(0, bind_err);
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(allowed, A4_unix_pathname_socket_outside)
{
	int listener;

	FX_CONFINE(&self->fx);
	listener = fx_unix_listen(FX_WORK "/sock");
	ASSERT_LE(0, listener);
	ASSERT_EQ(0, test_connect_unix(FX_WORK "/sock"));
	close(listener);
	ASSERT_EQ(EACCES, test_bind_unix(FX_PROTECTED "/sock"));
}

TEST_F(allowed, A4_unix_socket_made_before)
{
	int listener = fx_unix_listen(FX_OTHER "/sock");

	ASSERT_LE(0, listener);
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_connect_unix(FX_OTHER "/sock"));
	close(listener);
}

TEST_F(allowed, A4_abstract_socket_of_own_domain)
{
	int listener;

	FX_CONFINE(&self->fx);
	/* Made inside the domain: reachable on every ABI, scoped or not. */
	listener = fx_unix_listen("@jr2-selftest-allowed");
	ASSERT_LE(0, listener);
	ASSERT_EQ(0, test_connect_unix("@jr2-selftest-allowed"));
	close(listener);
}

TEST_F(allowed, A5_chdir_anywhere)
{
	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_chdir("/"));
	ASSERT_EQ(0, test_chdir(FX_REPOS_SUB));
	ASSERT_EQ(0, test_chdir(FX_RUN));
	ASSERT_EQ(0, test_chdir(FX_PROTECTED));
	ASSERT_EQ(0, test_chdir("sub"));
	/* Being there does not open it. */
	ASSERT_EQ(EACCES, test_read("deep"));
	ASSERT_EQ(0, test_chdir(FX_DIR));
	ASSERT_EQ(0, test_read("file2"));
}

TEST_F(allowed, A5_stat_anywhere)
{
	const char *const paths[] = {"/",     "/proc/self", FX_RUN,
				     FX_PID,  FX_PROTECTED, FX_SECRET,
				     FX_DEEP, FX_TOOL,	    FX_FILE2};

	FX_CONFINE(&self->fx);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *path = paths[i];

		ASSERT_EQ(0, test_stat(path))
		{
			TH_LOG("stat '%s'", path);
		}
	}
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_F(allowed, A5_ls_system_folders)
{
	int count = 0;

	FX_CONFINE(&self->fx);
	ASSERT_EQ(0, test_list("/", &count));
	ASSERT_LT(0, count);
	ASSERT_EQ(0, test_list("/proc/self/fd", &count));
	ASSERT_LT(0, count);
	ASSERT_EQ(0, test_list("/dev", &count));
	ASSERT_LT(0, count);
	ASSERT_EQ(0, test_read("/proc/self/status"));
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

TEST_HARNESS_MAIN
