/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every test binary of the suite shares: the kselftest harness, the
 * fixture tree in a private mount namespace on a tmpfs, errno-returning
 * operation helpers, the ABI in force (probe + JR2_MAX_ABI cap) and the
 * expectations derived from runtime/abi.h's one table, and confinement of
 * the test child with jr2_confine_self().
 *
 * A test names the promise IDs it proves first: TEST_F(protected_dir,
 * R6_truncate_o_trunc).  Asserts put the expected value first:
 * ASSERT_EQ(EACCES, test_open(FX_SECRET, O_RDONLY)).
 */
#ifndef JR2_SELFTESTS_COMMON_H
#define JR2_SELFTESTS_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksft_skip.h"

/*
 * kselftest's runner reads exit status 4 (KSFT_SKIP) as "all skipped"; the
 * 6.1 harness exits 0 then.  Only the harness's own process (not a test
 * child, which inherits this handler and the counts) turns its exit into 4.
 */
static pid_t jr2_ksft_main_pid;

static void jr2_ksft_exit_skip(void)
{
	if (getpid() == jr2_ksft_main_pid && ksft_cnt.ksft_xskip &&
	    !ksft_cnt.ksft_pass && !ksft_cnt.ksft_fail &&
	    !ksft_cnt.ksft_error && !ksft_cnt.ksft_xpass &&
	    !ksft_cnt.ksft_xfail) {
		fflush(NULL);
		_exit(KSFT_SKIP);
	}
}

static void __attribute__((constructor)) jr2_ksft_exit_skip_init(void)
{
	jr2_ksft_main_pid = getpid();
	atexit(jr2_ksft_exit_skip);
}

#include "abi.h"
#include "exit_status.h"
#include "landlock_uapi.h"
#include "policy.h"

/*
 * The fixture tree, drawn fresh for each test on a tmpfs over /tmp in the
 * test child's own mount namespace (the host's /tmp is never touched):
 *
 * /tmp                       tmpfs
 * ├── run/                   ancestor of the protected dir: list only
 * │   ├── pid                "4242\n"  a file beside the protected dir
 * │   └── jr2/               protected (0700)
 * │       ├── secret         "s3cret\n"
 * │       └── sub/
 * │           └── deep       "deep\n"
 * ├── repos/                 read-only tree
 * │   ├── README             "readme\n"
 * │   ├── tool               "#!/bin/sh\nexit 7\n" (0755)
 * │   └── sub/
 * │       └── file           "file\n"
 * ├── work/                  the user's folder: everything allowed
 * │   ├── file               "data\n"
 * │   └── dir/
 * │       └── file2          "data2\n"
 * └── other/                 a second writable folder (moves between them)
 */
#define FX_ROOT	      "/tmp"
#define FX_RUN	      FX_ROOT "/run"
#define FX_PID	      FX_RUN "/pid"
#define FX_PROTECTED  FX_RUN "/jr2"
#define FX_SECRET     FX_PROTECTED "/secret"
#define FX_SUB	      FX_PROTECTED "/sub"
#define FX_DEEP	      FX_SUB "/deep"
#define FX_REPOS      FX_ROOT "/repos"
#define FX_README     FX_REPOS "/README"
#define FX_TOOL	      FX_REPOS "/tool"
#define FX_REPOS_SUB  FX_REPOS "/sub"
#define FX_REPOS_FILE FX_REPOS_SUB "/file"
#define FX_WORK	      FX_ROOT "/work"
#define FX_FILE	      FX_WORK "/file"
#define FX_DIR	      FX_WORK "/dir"
#define FX_FILE2      FX_DIR "/file2"
#define FX_OTHER      FX_ROOT "/other"

#define FX_SECRET_TEXT "s3cret\n"
#define FX_TOOL_STATUS 7

struct jr2_fx {
	struct jr2_abi abi; /* the ABI in force: kernel's, or the cap */
};

/* ---- operations: 0 or the errno, never an assert ---- */

static inline int test_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static inline int test_openat(int dirfd, const char *path, int flags)
{
	int fd = openat(dirfd, path, flags | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Opens and reads one byte: proves the content is reachable, not only the
 * name. */
static inline int test_read(const char *path)
{
	char byte;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (read(fd, &byte, 1) < 0) {
		int err = errno;

		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

static inline int test_creat(const char *path)
{
	int fd = creat(path, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static inline int test_mkdir(const char *path)
{
	return mkdir(path, 0700) ? errno : 0;
}

static inline int test_mknod(const char *path, mode_t mode, dev_t dev)
{
	return mknod(path, mode, dev) ? errno : 0;
}

static inline int test_symlink(const char *target, const char *path)
{
	return symlink(target, path) ? errno : 0;
}

static inline int test_link(const char *oldpath, const char *newpath)
{
	return link(oldpath, newpath) ? errno : 0;
}

static inline int test_rename(const char *oldpath, const char *newpath)
{
	return rename(oldpath, newpath) ? errno : 0;
}

static inline int test_renameat2(const char *oldpath, const char *newpath,
				 unsigned int flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, oldpath, AT_FDCWD, newpath,
		       flags)
		   ? errno
		   : 0;
}

static inline int test_unlink(const char *path)
{
	return unlink(path) ? errno : 0;
}

static inline int test_rmdir(const char *path)
{
	return rmdir(path) ? errno : 0;
}

static inline int test_truncate(const char *path, off_t length)
{
	return truncate(path, length) ? errno : 0;
}

static inline int test_ftruncate(int fd, off_t length)
{
	return ftruncate(fd, length) ? errno : 0;
}

static inline int test_chdir(const char *path)
{
	return chdir(path) ? errno : 0;
}

static inline int test_stat(const char *path)
{
	struct stat st;

	return stat(path, &st) ? errno : 0;
}

/* Lists a folder; *count gets the number of names (without . and ..). */
static inline int test_list(const char *path, int *count)
{
	DIR *dir = opendir(path);
	struct dirent *entry;
	int n = 0;

	if (!dir)
		return errno;
	errno = 0;
	while ((entry = readdir(dir)))
		if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
			n++;
	if (errno) {
		int err = errno;

		closedir(dir);
		return err;
	}
	closedir(dir);
	if (count)
		*count = n;
	return 0;
}

/*
 * The state letter and parent pid of process `pid` (a /proc name), read
 * after its name in /proc/PID/stat (a name may hold spaces and
 * parentheses); false when it is gone.
 */
static inline bool fx_proc_stat(const char *pid, char *state, pid_t *ppid)
{
	char path[300], stat[512], *paren;
	int fd, parent;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return false;
	stat[n] = '\0';
	paren = strrchr(stat, ')');
	if (!paren || sscanf(paren + 1, " %c %d", state, &parent) != 2)
		return false;
	*ppid = parent;
	return true;
}

/*
 * The children of `parent` (only the zombies with `zombies`), at most max
 * of them into pids (NULL: counted only); their number.
 */
static inline size_t fx_children_of(pid_t parent, bool zombies, pid_t *pids,
				    size_t max)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	size_t n = 0;
	pid_t ppid;
	char state;

	while (proc && (entry = readdir(proc)) && (!pids || n < max))
		if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9' &&
		    fx_proc_stat(entry->d_name, &state, &ppid) &&
		    ppid == parent && (!zombies || state == 'Z')) {
			if (pids)
				pids[n] = atoi(entry->d_name);
			n++;
		}
	if (proc)
		closedir(proc);
	return n;
}

static inline int test_write(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0600);
	ssize_t len = (ssize_t)strlen(text);

	if (fd < 0)
		return errno;
	if (write(fd, text, len) != len) {
		int err = errno ? errno : EIO;

		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

/* Sends `fd` over the unix socket `sock` (SCM_RIGHTS, one byte): 0 or errno. */
static inline int fx_send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control = {0};
	struct iovec iov = {.iov_base = "f", .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : errno;
}

/*
 * The descriptor sent over `sock` (close-on-exec), or -1 with errno set
 * (EPROTO: the byte came without a descriptor).
 */
static inline int fx_recv_fd(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control = {0};
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS) {
		errno = EPROTO;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

static inline void fx_unix_addr(struct sockaddr_un *addr, const char *path)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	/* A leading '@' names an abstract socket. */
	strncpy(addr->sun_path, path, sizeof(addr->sun_path) - 1);
	if (path[0] == '@')
		addr->sun_path[0] = '\0';
}

static inline socklen_t fx_unix_len(const char *path)
{
	return offsetof(struct sockaddr_un, sun_path) + strlen(path) +
	       (path[0] == '@' ? 0 : 1);
}

/* Binds a unix stream socket at `path` and listens; the fd, or -errno. */
static inline int fx_unix_listen(const char *path)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	fx_unix_addr(&addr, path);
	if (bind(fd, (struct sockaddr *)&addr, fx_unix_len(path)) ||
	    listen(fd, 8)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* bind() of a new unix socket at `path` (makes the socket file). */
static inline int test_bind_unix(const char *path)
{
	int fd = fx_unix_listen(path);

	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

static inline int test_connect_unix(const char *path)
{
	struct sockaddr_un addr;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return errno;
	fx_unix_addr(&addr, path);
	if (connect(fd, (struct sockaddr *)&addr, fx_unix_len(path)))
		err = errno;
	close(fd);
	return err;
}

/*
 * execve() of `path` in a child: the errno of a failed execve, else 0 with
 * the child's exit status in *status (-1 when it did not exit).
 */
static inline int test_execve(const char *path, char *const argv[], int *status)
{
	int pipefd[2], err = 0, wstatus;
	char *const envp[] = {"PATH=/bin:/usr/bin:/sbin:/usr/sbin", NULL};
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0) {
		close(pipefd[0]);
		execve(path, argv, envp);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(pipefd[0]);
	if (waitpid(pid, &wstatus, 0) < 0)
		return errno;
	if (status)
		*status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
	return err;
}

/*
 * The folders a runtime program (jr2-confine, jr2-harness, ...) is looked
 * for in, in order: $JR2_BIN_DIR alone when set, else ../bin beside this
 * binary's folder (build/selftests -> build/bin), then that folder itself
 * (a kselftest install puts them side by side).  Returns how many.
 */
static inline int fx_tool_dirs(char dirs[2][PATH_MAX])
{
	const char *bin_dir = getenv("JR2_BIN_DIR");
	char self[PATH_MAX];
	ssize_t len;
	char *slash;

	if (bin_dir && *bin_dir)
		return snprintf(dirs[0], PATH_MAX, "%s", bin_dir) < PATH_MAX;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 0;
	self[len] = '\0';
	slash = strrchr(self, '/');
	if (!slash || slash == self)
		return 0;
	*slash = '\0';
	if (snprintf(dirs[0], PATH_MAX, "%s/../bin", self) >= PATH_MAX)
		return 0;
	memcpy(dirs[1], self, (size_t)(slash - self) + 1);
	return 2;
}

static inline const char *fx_tool_at(const char *dir, const char *name,
				     char *buf, size_t size)
{
	int len = snprintf(buf, size, "%s/%s", dir, name);

	return len < 0 || (size_t)len >= size || access(buf, X_OK) ? NULL : buf;
}

/* The path of runtime program NAME into buf, NULL when none is executable. */
static inline const char *fx_tool(const char *name, char *buf, size_t size)
{
	char dirs[2][PATH_MAX];
	int n = fx_tool_dirs(dirs);

	for (int i = 0; i < n; i++)
		if (fx_tool_at(dirs[i], name, buf, size))
			return buf;
	return NULL;
}

/*
 * The suite's own folders: fx_tool_dirs() and, when JR2_BIN_DIR named
 * another, this binary's (trace_test executes itself again).
 */
static inline int fx_suite_dirs(char dirs[3][PATH_MAX])
{
	int n = fx_tool_dirs(dirs);
	ssize_t len;
	char *slash;

	if (n != 1)
		return n;
	len = readlink("/proc/self/exe", dirs[1], PATH_MAX - 1);
	if (len <= 0)
		return n;
	dirs[1][len] = '\0';
	slash = strrchr(dirs[1], '/');
	if (!slash || slash == dirs[1])
		return n;
	*slash = '\0';
	return 2;
}

/*
 * How many names directly in `dir` hold the suite's own folders
 * (fx_suite_dirs), which fx_mount_tmpfs() binds back on a tmpfs mounted over
 * `dir`: a test that counts a fixture folder's names counts these too.
 */
static inline int fx_suite_names_in(const char *dir)
{
	char dirs[3][PATH_MAX], real[PATH_MAX], names[3][PATH_MAX];
	int n = fx_suite_dirs(dirs), found = 0;
	size_t len = strlen(dir);

	for (int i = 0; i < n; i++) {
		char *name = real + len + 1, *slash;

		if (!realpath(dirs[i], real) || strncmp(real, dir, len) ||
		    real[len] != '/')
			continue;
		slash = strchr(name, '/');
		if (slash)
			*slash = '\0';
		for (int j = 0; j <= found; j++) {
			if (j == found) {
				snprintf(names[found++], PATH_MAX, "%s", name);
				break;
			}
			if (!strcmp(names[j], name))
				break;
		}
	}
	return found;
}

/*
 * JR2_FIXTURE=runtime: an OCI runtime made the test's mounts, as a pod's
 * runtime makes its volumes (vmtest's container profiles,
 * vmtest/jr2vm/profiles.py): a tmpfs on /tmp and on /mnt, the container's
 * own mount and network namespaces, whose tests run one at a time.  Without
 * CAP_SYS_ADMIN there, a test neither unshares nor mounts: its fixture
 * empties the runtime's tmpfs instead (fx_mount_tmpfs).
 */
static inline bool fx_runtime_fixture(void)
{
	const char *fixture = getenv("JR2_FIXTURE");

	return fixture && !strcmp(fixture, "runtime");
}

/* A folder of the runtime's tmpfs opened to its owner, so that its
   entries can go (a test leaves folders of mode 0). */
static inline int fx_open_up(const char *path, const struct stat *st, int type,
			     struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && (st->st_mode & 0700) != 0700)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

static inline int fx_remove(const char *path, const struct stat *st, int type,
			    struct FTW *ftw)
{
	(void)st;
	(void)type;
	if (ftw->level > 0 && remove(path))
		return errno;
	return 0;
}

/* The runtime's tmpfs on `target`, emptied, its mode that of `options`'
   "mode=" (an octal number). */
static inline void fx_empty_tmpfs(struct __test_metadata *_metadata,
				  const char *target, const char *options)
{
	const char *mode = strstr(options, "mode=");
	struct statfs fs;
	int err;

	ASSERT_EQ(0, statfs(target, &fs))
	{
		TH_LOG("statfs '%s': %s: the runtime gives a tmpfs there "
		       "(vmtest/jr2vm/profiles.py)",
		       target, strerror(errno));
	}
	ASSERT_EQ(TMPFS_MAGIC, fs.f_type)
	{
		TH_LOG("'%s' is no tmpfs (f_type %#lx): JR2_FIXTURE=runtime "
		       "needs the runtime's tmpfs there",
		       target, (unsigned long)fs.f_type);
	}
	nftw(target, fx_open_up, 16, FTW_PHYS | FTW_MOUNT);
	err = nftw(target, fx_remove, 16, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
	ASSERT_EQ(0, err)
	{
		TH_LOG("emptying the runtime's tmpfs '%s': %s", target,
		       strerror(err));
	}
	if (mode)
		ASSERT_EQ(0, chmod(target, strtoul(mode + 5, NULL, 8)));
}

/*
 * Mounts a tmpfs on `target` (an absolute path, no trailing slash) and keeps
 * the suite's own programs where they were: each folder of fx_suite_dirs()
 * that `target` would cover is bound back at its own path on the new tmpfs.
 * kselftest installs the suite where its user says (run_kselftest.sh from
 * INSTALL_PATH=/tmp/ksft, say), and the fixtures mount over /tmp and /mnt.
 * The kernel binds only a source of the caller's mount namespace: the
 * folders are opened here, after the test's unshare(CLONE_NEWNS), before
 * the mount hides them.
 */
static inline void fx_mount_tmpfs(struct __test_metadata *_metadata,
				  const char *source, const char *target,
				  const char *options)
{
	char dirs[3][PATH_MAX], kept[3][PATH_MAX], proc[32];
	int fds[3] = {-1, -1, -1}, n;
	size_t len = strlen(target);

	(void)source;
	if (fx_runtime_fixture()) {
		fx_empty_tmpfs(_metadata, target, options);
		return;
	}
	n = fx_suite_dirs(dirs);
	for (int i = 0; i < n; i++) {
		bool seen = false;

		if (!realpath(dirs[i], kept[i]) ||
		    strncmp(kept[i], target, len) || kept[i][len] != '/')
			continue;
		for (int j = 0; j < i; j++)
			seen |= fds[j] >= 0 && !strcmp(kept[i], kept[j]);
		if (seen)
			continue;
		fds[i] = open(kept[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, fds[i])
		{
			TH_LOG("open '%s': %s", kept[i], strerror(errno));
		}
	}
	ASSERT_EQ(0, mount(source, target, "tmpfs", 0, options))
	{
		TH_LOG("mount tmpfs on '%s': %s: the kernel needs "
		       "CONFIG_TMPFS (selftests/config)",
		       target, strerror(errno));
	}
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		for (char *slash = kept[i] + len + 1;
		     (slash = strchr(slash, '/')); *slash++ = '/') {
			*slash = '\0';
			ASSERT_TRUE(!mkdir(kept[i], 0755) || errno == EEXIST)
			{
				TH_LOG("mkdir '%s': %s", kept[i],
				       strerror(errno));
			}
		}
		ASSERT_TRUE(!mkdir(kept[i], 0755) || errno == EEXIST);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fds[i]);
		ASSERT_EQ(0, mount(proc, kept[i], NULL, MS_BIND, NULL))
		{
			TH_LOG("binding the suite's folder '%s' back over "
			       "the tmpfs on '%s': %s",
			       kept[i], target, strerror(errno));
		}
		close(fds[i]);
	}
}

/*
 * A child that lives until the test ends (the pipe it waits on closes with
 * the test): made before confinement it is outside the domain, made after it
 * is inside.  A confined test may not signal it, so the pipe ends it.
 */
static inline pid_t fx_lifeline_child_fd(struct __test_metadata *_metadata,
					 int *write_end)
{
	int lifeline[2];
	pid_t pid;
	char byte;

	ASSERT_EQ(0, pipe2(lifeline, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(lifeline[1]);
		while (read(lifeline[0], &byte, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(lifeline[0]);
	if (write_end)
		*write_end = lifeline[1];
	return pid;
}

/* The same, for a test that keeps no hand on the pipe. */
static inline pid_t fx_lifeline_child(struct __test_metadata *_metadata)
{
	return fx_lifeline_child_fd(_metadata, NULL);
}

/* Room for `jr2-confine rules`: a rule for each entry beside a restricted
   path, so its size follows the machine's root, not the test. */
#define FX_RULES_SIZE (256 * 1024)

/* Waits for the child pid: its exit status as a shell gives it (128 + N
 * for signal N), or -1 when it is no child of this process. */
static inline int fx_exit_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Runs argv[0] with argv in a child, its stdout and stderr into out (NUL
 * terminated), its stdin in_fd (-1: this process's); with `session`, first
 * in a new session whose controlling terminal is in_fd.  0 with the exit
 * status in *status (-1 when killed), the errno of fork/pipe, or E2BIG
 * when the output did not fit: it is read to its end all the same, so the
 * child never dies of a closed pipe, and no test reads a cut answer.
 */
static inline int fx_run_in(char *const argv[], int in_fd, bool session,
			    char *out, size_t size, int *status)
{
	int pipefd[2], wstatus;
	size_t used = 0;
	bool cut = false;
	char rest[4096];
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (session && (setsid() < 0 || ioctl(in_fd, TIOCSCTTY, 0)))
			_exit(120);
		if (in_fd >= 0 && dup2(in_fd, STDIN_FILENO) < 0)
			_exit(121);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (used + 1 < size &&
	       (n = read(pipefd[0], out + used, size - 1 - used)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	while ((n = read(pipefd[0], rest, sizeof(rest))) > 0)
		cut = true;
	close(pipefd[0]);
	if (waitpid(pid, &wstatus, 0) < 0)
		return errno;
	*status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
	return cut ? E2BIG : 0;
}

/* The same with this process's stdin. */
static inline int fx_run(char *const argv[], char *out, size_t size,
			 int *status)
{
	return fx_run_in(argv, -1, false, out, size, status);
}

/*
 * Runs `args[0..n-1] -- argv...` (args has room for 64 words): a program's
 * flags, then the command it runs.  Its output into out; its exit status,
 * or -1 when it could not be run.
 */
static inline int fx_run_command(char *args[64], int n,
				 const char *const argv[], char *out,
				 size_t size)
{
	int status = -1;

	args[n++] = "--";
	for (int i = 0; argv[i] && n < 63; i++)
		args[n++] = (char *)argv[i];
	args[n] = NULL;
	return fx_run(args, out, size, &status) ? -1 : status;
}

/* Finds a runtime program or fails the test, naming the fix. */
#define FX_FIND_TOOL(name, buf)                                            \
	({                                                                 \
		const char *_tool = fx_tool(name, buf, sizeof(buf));       \
		ASSERT_NE(NULL, _tool)                                     \
		{                                                          \
			char _dirs[2][PATH_MAX];                           \
			int _n = fx_tool_dirs(_dirs);                      \
			TH_LOG("%s not found in '%s'%s%s%s: build it "     \
			       "(make) or set JR2_BIN_DIR to its "         \
			       "folder",                                   \
			       name, _n ? _dirs[0] : "?",                  \
			       _n > 1 ? " nor in '" : "",                  \
			       _n > 1 ? _dirs[1] : "", _n > 1 ? "'" : ""); \
		}                                                          \
		_tool;                                                     \
	})

/* ---- the fixture ---- */

/*
 * The tree's own entries, made under umask 0 (fx_setup_tree): the mode
 * given is the mode drawn, with no chmod after each (a syscall an entry,
 * measurable under TCG on ~1200 tests a kernel).
 */
static inline void fx_tree_file(struct __test_metadata *_metadata,
				const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	ssize_t len = (ssize_t)strlen(text);

	ASSERT_LE(0, fd)
	{
		TH_LOG("fixture: cannot make '%s': %s", path, strerror(errno));
	}
	ASSERT_EQ(len, write(fd, text, len));
	ASSERT_EQ(0, close(fd));
}

static inline void fx_make_file(struct __test_metadata *_metadata,
				const char *path, const char *text, mode_t mode)
{
	fx_tree_file(_metadata, path, text, mode);
	/* The umask must not decide the mode the tree draws. */
	ASSERT_EQ(0, chmod(path, mode));
}

static inline void fx_tree_dir(struct __test_metadata *_metadata,
			       const char *path, mode_t mode)
{
	ASSERT_EQ(0, mkdir(path, mode))
	{
		TH_LOG("fixture: cannot make '%s': %s", path, strerror(errno));
	}
}

static inline void fx_make_dir(struct __test_metadata *_metadata,
			       const char *path, mode_t mode)
{
	fx_tree_dir(_metadata, path, mode);
	ASSERT_EQ(0, chmod(path, mode));
}

/*
 * The ABI in force: the kernel's, capped by JR2_MAX_ABI (what `make test
 * ABI=N` exports); a bad cap fails the test rather than being ignored.
 */
static inline void fx_probe_abi(struct __test_metadata *_metadata,
				struct jr2_abi *abi)
{
	char msg[256] = "";
	int cap = jr2_abi_cap(NULL, msg, sizeof(msg));

	ASSERT_LE(0, cap)
	{
		TH_LOG("%s", msg);
	}
	jr2_abi_probe(abi, cap);
}

/* The ABI in force and a tmpfs on FX_ROOT, in this mount namespace. */
static inline void fx_mount_root(struct __test_metadata *_metadata,
				 struct jr2_fx *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx_probe_abi(_metadata, &fx->abi);
	fx_mount_tmpfs(_metadata, "jr2-selftest", FX_ROOT,
		       "mode=0755,size=16m");
}

/* The loopback interface up, in this network namespace (tests' own TCP). */
static inline void fx_loopback_up(struct __test_metadata *_metadata)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, SIOCGIFFLAGS, &ifr));
	/* Up already: the runtime's network namespace (a pod's CNI). */
	if (ifr.ifr_flags & IFF_UP) {
		close(fd);
		return;
	}
	ifr.ifr_flags |= IFF_UP;
	ASSERT_EQ(0, ioctl(fd, SIOCSIFFLAGS, &ifr))
	{
		TH_LOG("bringing lo up: %s", strerror(errno));
	}
	close(fd);
}

/* A mount namespace of the test's own, nothing shared with the host. */
static inline void fx_private_mounts(struct __test_metadata *_metadata)
{
	if (fx_runtime_fixture())
		return;
	ASSERT_EQ(0, unshare(CLONE_NEWNS))
	{
		TH_LOG("unshare(CLONE_NEWNS): %s: run the suite as root",
		       strerror(errno));
	}
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
}

/*
 * The tmpfs over /tmp and the tree drawn above, in a mount namespace the
 * caller made its own (fx_setup, or hx_setup of harness_helpers.h); umask
 * 022 afterwards.
 */
static inline void fx_setup_tree(struct __test_metadata *_metadata,
				 struct jr2_fx *fx)
{
	fx_mount_root(_metadata, fx);
	/* The modes below are drawn exactly; the tests then run at 022. */
	umask(0);
	fx_tree_dir(_metadata, FX_RUN, 0755);
	fx_tree_file(_metadata, FX_PID, "4242\n", 0644);
	fx_tree_dir(_metadata, FX_PROTECTED, 0700);
	fx_tree_file(_metadata, FX_SECRET, FX_SECRET_TEXT, 0600);
	fx_tree_dir(_metadata, FX_SUB, 0700);
	fx_tree_file(_metadata, FX_DEEP, "deep\n", 0600);
	fx_tree_dir(_metadata, FX_REPOS, 0755);
	fx_tree_file(_metadata, FX_README, "readme\n", 0644);
	fx_tree_file(_metadata, FX_TOOL, "#!/bin/sh\nexit 7\n", 0755);
	fx_tree_dir(_metadata, FX_REPOS_SUB, 0755);
	fx_tree_file(_metadata, FX_REPOS_FILE, "file\n", 0644);
	fx_tree_dir(_metadata, FX_WORK, 0755);
	fx_tree_file(_metadata, FX_FILE, "data\n", 0644);
	fx_tree_dir(_metadata, FX_DIR, 0755);
	fx_tree_file(_metadata, FX_FILE2, "data2\n", 0644);
	fx_tree_dir(_metadata, FX_OTHER, 0755);
	umask(022);
}

/* Private mount namespace, tmpfs over /tmp, the tree drawn above. */
static inline void fx_setup(struct __test_metadata *_metadata,
			    struct jr2_fx *fx)
{
	fx_private_mounts(_metadata);
	fx_setup_tree(_metadata, fx);
}

/* A fixture named `group` with the tree above; its data is self->fx. */
#define JR2_FIXTURE(group)                      \
	FIXTURE(group)                          \
	{                                       \
		struct jr2_fx fx;               \
	};                                      \
	FIXTURE_SETUP(group)                    \
	{                                       \
		fx_setup(_metadata, &self->fx); \
	}                                       \
	FIXTURE_TEARDOWN(group)                 \
	{                                       \
	}

/*
 * The doors of `doors` (NULL-ended) that open with `flags` here, unconfined
 * (the positive control): into open[], at most max; returns their count.
 * A door missing on this kernel is logged and left out.
 */
static inline size_t fx_open_doors(struct __test_metadata *_metadata,
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
#define FX_NEED_DOORS(n, what)                                             \
	do {                                                               \
		if (!(n))                                                  \
			SKIP(return, "no %s opens here unconfined", what); \
	} while (0)

/* Skips (naming the reason) where the runtime refuses this kernel's ABI. */
#define FX_REQUIRE_ACCEPTED(abi)                                               \
	do {                                                                   \
		char _why[256];                                                \
		if (!fx_accepted(abi))                                         \
			SKIP(                                                  \
			    return, "%s",                                      \
				  fx_refusal_reason(abi, _why, sizeof(_why))); \
	} while (0)

/*
 * The size of a load test: the tests whose point is load (many rounds, many
 * connections), not a kernel's answer, run `full` on the host, in `make
 * test` and `make stress` (JR2_STRESS unset or "full"), and `small` where
 * JR2_STRESS=small, which the vmtest guest sets (one TCG CPU: the load is the
 * host's business, the kernel's answers are the guest's).  A small size
 * still asserts everything the full one does.  Any other value fails the
 * test.
 */
static inline int fx_stress_size(struct __test_metadata *_metadata, int full,
				 int small)
{
	const char *size = getenv("JR2_STRESS");

	if (!size || !*size || !strcmp(size, "full"))
		return full;
	if (!strcmp(size, "small"))
		return small;
	ASSERT_TRUE(false)
	{
		TH_LOG("JR2_STRESS='%s' is not a stress size: set it to full "
		       "or small, or unset it (full)",
		       size);
	}
	return 0;
}

/* ---- expectations, from the privileges this process holds ---- */

/*
 * Whether this process holds `cap` in its effective set.  A container
 * profile (vmtest/jr2vm/profiles.py) gives the suite the runtime's default
 * set, or none: a control that needs a capability expects what the kernel
 * answers without it, read here, never from the profile's name.
 */
static inline bool fx_has_cap(int cap)
{
	struct __user_cap_header_struct head = {
	    .version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {0};

	if (syscall(SYS_capget, &head, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* The errno of an action that needs `cap`: 0 with it, else `denied`. */
static inline int fx_errno_without(int cap, int denied)
{
	return fx_has_cap(cap) ? 0 : denied;
}

/*
 * A test whose fixture or unconfined control needs `cap`, which this
 * process lacks (a container profile's set: vmtest/jr2vm/profiles.py), is
 * skipped, naming the capability: the profile cannot make what the test
 * compares against; the bare profile proves the promise.  It leaves by
 * the harness's longjmp, so that a skip in FIXTURE_SETUP skips the body.
 */
#define FX_SKIP_WITHOUT_CAP(cap, what)                                      \
	do {                                                                \
		if (!fx_has_cap(cap))                                       \
			SKIP(longjmp(_metadata->env, 1),                    \
			     "%s needs " #cap ", which this process lacks " \
			     "(a container profile's capability set): "     \
			     "the bare profile proves it",                  \
			     what);                                         \
	} while (0)

/* The Seccomp: field of /proc/self/status: 2 under a filter. */
static inline int fx_seccomp_mode(void)
{
	char line[128];
	int mode = 0;
	FILE *status = fopen("/proc/self/status", "re");

	while (status && fgets(line, sizeof(line), status))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	if (status)
		fclose(status);
	return mode;
}

/* A test whose control compares with the kernel's own answer to a call
   that the runtime's seccomp filter (a container profile's) may answer
   first is skipped under such a filter, saying so. */
#define FX_SKIP_UNDER_SECCOMP(what)                                           \
	do {                                                                  \
		if (fx_seccomp_mode() == 2)                                   \
			SKIP(longjmp(_metadata->env, 1),                      \
			     "%s: this process runs under its runtime's "     \
			     "seccomp filter (a container profile's), which " \
			     "answers some calls before the kernel: the "     \
			     "bare profile proves it",                        \
			     what);                                           \
	} while (0)

/* A test whose control writes below `path`, a read-only mount here (a
   container profile's readonlyPaths), is skipped, saying so. */
#define FX_SKIP_READ_ONLY(path, what)                                        \
	do {                                                                 \
		struct statvfs _vfs;                                         \
		if (!statvfs(path, &_vfs) && (_vfs.f_flag & ST_RDONLY))      \
			SKIP(longjmp(_metadata->env, 1),                     \
			     "%s: '%s' is a read-only mount here (a "        \
			     "container profile's readonlyPaths): the bare " \
			     "profile proves it",                            \
			     what, path);                                    \
	} while (0)

/* A test that starts without no_new_privs (to show what it changes) is
   skipped where its runtime set it (allowPrivilegeEscalation: false). */
#define FX_SKIP_WITH_NO_NEW_PRIVS(what)                                      \
	do {                                                                 \
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)             \
			SKIP(longjmp(_metadata->env, 1),                     \
			     "%s: no_new_privs is set before the test "      \
			     "starts (its runtime's, a container profile's " \
			     "allowPrivilegeEscalation: false): the bare "   \
			     "profile proves it",                            \
			     what);                                          \
	} while (0)

/* A test that reads a harness's /proc files (the harness is not
   dumpable: they are root's) is skipped where the suite is not root. */
#define FX_SKIP_UNLESS_ROOT(what)                                            \
	do {                                                                 \
		if (geteuid() != 0)                                          \
			SKIP(longjmp(_metadata->env, 1),                     \
			     "%s needs uid 0, and the suite runs as uid %u " \
			     "(a container profile's runAsUser): the bare "  \
			     "profile proves it",                            \
			     what, (unsigned int)geteuid());                 \
	} while (0)

/* ---- expectations, from runtime/abi.h's table alone ---- */

/* Whether the runtime confines at all under this ABI (G1-G4). */
static inline bool fx_accepted(const struct jr2_abi *abi)
{
	return jr2_abi_verdict(abi) == JR2_VERDICT_ACCEPT;
}

/* The errno a denial gives when `feature` is in force, else 0 (allowed). */
static inline int fx_expect(const struct jr2_abi *abi, enum jr2_feature feature,
			    int denied_errno)
{
	return jr2_abi_has(abi, feature) ? denied_errno : 0;
}

/* "ABI 5 < 6: scope_signal unavailable" into buf (or the probe's errno). */
static inline const char *fx_unavailable_reason(const struct jr2_abi *abi,
						enum jr2_feature feature,
						char *buf, size_t size)
{
	if (abi->probe_errno)
		snprintf(buf, size, "no Landlock (%s): %s unavailable",
			 strerrorname_np(abi->probe_errno),
			 jr2_features[feature].name);
	else
		snprintf(buf, size, "ABI %d < %d: %s unavailable",
			 abi->in_force, jr2_features[feature].min_abi,
			 jr2_features[feature].name);
	return buf;
}

/* Skips, naming the ABI reason, when the ABI in force lacks `feature`. */
#define FX_REQUIRE_FEATURE(abi, feature)                                     \
	do {                                                                 \
		char _why[128];                                              \
		if (!jr2_abi_has(abi, feature))                              \
			SKIP(return, "%s",                                   \
				   fx_unavailable_reason(abi, feature, _why, \
							 sizeof(_why)));     \
	} while (0)

/* Why the runtime refuses this ABI, for a skip line. */
static inline const char *fx_refusal_reason(const struct jr2_abi *abi,
					    char *buf, size_t size)
{
	switch (jr2_abi_verdict(abi)) {
	case JR2_VERDICT_NO_LANDLOCK:
		snprintf(buf, size,
			 "no Landlock (ENOSYS): the runtime refuses this "
			 "kernel");
		break;
	case JR2_VERDICT_NOT_ENABLED:
		snprintf(buf, size,
			 "Landlock not enabled (EOPNOTSUPP): the runtime "
			 "refuses this kernel");
		break;
	case JR2_VERDICT_ABI_TOO_OLD:
		snprintf(buf, size,
			 "ABI %d < %d: the runtime refuses this kernel",
			 abi->in_force, JR2_ABI_REQUIRED);
		break;
	default:
		snprintf(buf, size, "probe failed (%s): the runtime refuses",
			 strerror(abi->probe_errno));
	}
	return buf;
}

/*
 * The words a refusal must carry (G1-G3): what was found and the fix.  NULL
 * ends the list.
 */
static inline void fx_refusal_words(const struct jr2_abi *abi,
				    const char *words[3], char *abi_word,
				    size_t size)
{
	words[0] = words[1] = words[2] = NULL;
	switch (jr2_abi_verdict(abi)) {
	case JR2_VERDICT_NO_LANDLOCK:
		words[0] = "Landlock";
		words[1] = "6.2";
		break;
	case JR2_VERDICT_NOT_ENABLED:
		words[0] = "lsm=";
		break;
	case JR2_VERDICT_ABI_TOO_OLD:
		snprintf(abi_word, size, "ABI %d", abi->in_force);
		words[0] = abi_word;
		words[1] = "ABI 3";
		break;
	default:
		words[0] = "Landlock";
	}
}

/* Asserts that *err is the refusal this ABI calls for. */
static inline void fx_assert_refusal(struct __test_metadata *_metadata,
				     const struct jr2_abi *abi, int rc,
				     const struct jr2_err *err)
{
	const char *words[3];
	char abi_word[32];

	ASSERT_NE(0, rc);
	ASSERT_NE(0, err->code);
	fx_refusal_words(abi, words, abi_word, sizeof(abi_word));
	for (int i = 0; i < 3 && words[i]; i++) {
		const char *word = words[i];

		ASSERT_NE(NULL, strstr(err->msg, word))
		{
			TH_LOG("refusal '%s' lacks '%s'", err->msg, word);
		}
	}
}

/* Confines with `policy` under the fixture's ABI; logs a refusal. */
static inline int fx_confine_policy(struct __test_metadata *_metadata,
				    struct jr2_fx *fx,
				    struct jr2_policy *policy,
				    struct jr2_err *err)
{
	int rc = jr2_confine_self(policy, &fx->abi, 0, err);

	if (rc)
		TH_LOG("jr2_confine_self: %s", err->msg);
	return rc;
}

/* jr2's layout on the fixture: protect run/jr2, read-only repos. */
static inline void fx_policy(struct __test_metadata *_metadata,
			     struct jr2_policy *policy)
{
	struct jr2_err err = {0};

	jr2_policy_init(policy);
	ASSERT_EQ(0, jr2_policy_add_protected(policy, FX_PROTECTED, &err))
	{
		TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(0, jr2_policy_add_read_only(policy, FX_REPOS, &err))
	{
		TH_LOG("%s", err.msg);
	}
}

/*
 * Confines the test child with `policy` under the ABI in force.  Where the
 * runtime must refuse (G1-G3), asserts the refusal, its words and that
 * nothing was restricted, then skips naming the reason.
 */
/*
 * After a confinement attempt (rc, err): where the runtime must refuse this
 * kernel (G1-G3), the refusal is asserted, nothing was confined (the secret
 * still reads), and the test skips naming why; else it must have confined.
 */
#define FX_CONFINED_OR_SKIP(fx, rc, err)                                   \
	do {                                                               \
		char _why[128];                                            \
		if (!fx_accepted(&(fx)->abi)) {                            \
			fx_assert_refusal(_metadata, &(fx)->abi, rc, err); \
			ASSERT_EQ(0, test_read(FX_SECRET));                \
			SKIP(return, "%s",                                 \
				   fx_refusal_reason(&(fx)->abi, _why,     \
						     sizeof(_why)));       \
		}                                                          \
		ASSERT_EQ(0, rc);                                          \
	} while (0)

#define FX_CONFINE_WITH(fx, policy)                                        \
	do {                                                               \
		struct jr2_err _err = {0};                                 \
		int _rc = fx_confine_policy(_metadata, fx, policy, &_err); \
		FX_CONFINED_OR_SKIP(fx, _rc, &_err);                       \
	} while (0)

/*
 * The raw cases (the tests' own rulesets, no runtime) need Landlock in the
 * kernel: where the probe found none (ENOSYS, EOPNOTSUPP), the raw call gives
 * that same errno, and the case skips saying so.
 */
#define FX_REQUIRE_LANDLOCK(fx)                                              \
	do {                                                                 \
		if ((fx)->abi.probe_errno) {                                 \
			ASSERT_EQ(-1,                                        \
				  jr2_sys_create_ruleset(                    \
				      NULL, 0, JR2_CREATE_RULESET_VERSION)); \
			ASSERT_EQ((fx)->abi.probe_errno, errno);             \
			SKIP(return,                                         \
				   "no Landlock in this kernel (%s): the "   \
				   "raw cases need it",                      \
				   strerror((fx)->abi.probe_errno));         \
		}                                                            \
	} while (0)

/* Confines the test child with jr2's layout on the fixture tree. */
#define FX_CONFINE(fx)                          \
	do {                                    \
		struct jr2_policy _policy;      \
		fx_policy(_metadata, &_policy); \
		FX_CONFINE_WITH(fx, &_policy);  \
		jr2_policy_free(&_policy);      \
	} while (0)

#endif /* JR2_SELFTESTS_COMMON_H */
