/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the groups of the confinement step share (terminal, metadata,
 * descriptors, capabilities): the harness fixture of
 * harness_helpers.h, plus `jr2-confine run` on the same tree, and a second
 * helper mode of the test binary (`--step-helper VERB ARG...`) for the
 * operations of each door.  Each verb prints one line: "ok ..." or the
 * errno's name.
 *
 * /mnt (tmpfs, the test's own mount namespace)
 * ├── etc/step.conf     read-only /mnt/ro and /mnt/etc (the harness's policy)
 * ├── ro/file, ro/sub/  a read-only tree
 * ├── free/             the user's folder
 * └── h/run/jr2/        the protected dir (stand-ins, ...) of both paths
 *
 * Both paths run the same policy: `jr2-confine run --protect
 * /mnt/h/run/jr2 --read-only /mnt/ro` and `jr2-harness serve --config
 * /mnt/etc/step.conf --root /mnt/h`.
 */
#ifndef JR2_SELFTESTS_STEP_HELPERS_H
#define JR2_SELFTESTS_STEP_HELPERS_H

#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <termios.h>

#include "harness_helpers.h"

#define ST_CONF	    HX_ETC "/step.conf"
#define ST_RO	    HX_MNT "/ro"
#define ST_RO_FILE  ST_RO "/file"
#define ST_FREE	    HX_MNT "/free"
#define ST_OUT_SIZE 4096
/* Words of a helper's command line (`batch` takes two per attempt). */
#define ST_MAX_WORDS 80

/* ---- the helper mode ---- */

static int st_print_errno(int err)
{
	printf("%s\n", err ? strerrorname_np(err) : "ok");
	return err ? 1 : 0;
}

#define ST_ERR(call) ((call) < 0 ? errno : 0)

/* Reads fd (a descriptor this program was given): "ok TEXT" or errno. */
static int st_helper_fd_read(int fd)
{
	char buf[256];
	/* From the start: the open file is shared with other readers. */
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0 && errno == ESPIPE)
		n = read(fd, buf, sizeof(buf) - 1);

	if (n < 0)
		return st_print_errno(errno);
	buf[n] = '\0';
	printf("ok %s\n", buf);
	return 0;
}

/* The five capability sets of /proc/self/status: "BND PRM EFF INH AMB". */
static int st_helper_caps(void)
{
	static const char *const keys[] = {
	    "CapBnd:", "CapPrm:", "CapEff:", "CapInh:", "CapAmb:"};
	char line[256], vals[5][32] = {""};
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return st_print_errno(errno);
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 5; i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				sscanf(line + strlen(keys[i]), "%31s", vals[i]);
	fclose(f);
	printf("%s %s %s %s %s\n", vals[0], vals[1], vals[2], vals[3], vals[4]);
	return 0;
}

/* TIOCSCTTY with force, from a new session (a child: not a leader). */
static int st_helper_steal(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int ret = setsid() < 0
			      ? st_print_errno(errno)
			      : st_print_errno(ST_ERR(ioctl(0, TIOCSCTTY, 1)));

		fflush(stdout);
		_exit(ret);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return st_print_errno(errno);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* open_by_handle_at on a handle of `path` (needs CAP_DAC_READ_SEARCH). */
static int st_helper_handle(const char *path)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = {.fh.handle_bytes = MAX_HANDLE_SZ};
	char dir[PATH_MAX];
	int mount_id, mount_fd, fd;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return st_print_errno(errno);
	/* Any descriptor on the file's mount: its dir (listing it is allowed).
	 */
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mount_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mount_fd < 0)
		return st_print_errno(errno);
	fd = open_by_handle_at(mount_fd, &h.fh, O_RDONLY | O_CLOEXEC);
	return st_print_errno(fd < 0 ? errno : 0);
}

/* Reads /proc/PID/environ: "ok" or the errno of open or read. */
static int st_helper_environ(const char *pid)
{
	char path[64], buf[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return st_print_errno(errno);
	return st_print_errno(read(fd, buf, sizeof(buf)) < 0 ? errno : 0);
}

/* A metadata change that leaves the value as it was: only the write counts. */
static int st_helper_metadata(const char *verb, const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return st_print_errno(errno);
	if (!strcmp(verb, "chmod"))
		return st_print_errno(ST_ERR(chmod(path, st.st_mode & 07777)));
	if (!strcmp(verb, "chown"))
		return st_print_errno(
		    ST_ERR(lchown(path, st.st_uid, st.st_gid)));
	if (!strcmp(verb, "utimes"))
		return st_print_errno(
		    ST_ERR(utimensat(AT_FDCWD, path, NULL, 0)));
	if (!strcmp(verb, "xattr-user"))
		return st_print_errno(
		    ST_ERR(lsetxattr(path, "user.jr2", "1", 1, 0)));
	if (!strcmp(verb, "xattr-trusted"))
		return st_print_errno(
		    ST_ERR(lsetxattr(path, "trusted.jr2", "1", 1, 0)));
	if (!strcmp(verb, "utimes-same")) {
		const struct timespec times[2] = {st.st_atim, st.st_mtim};

		return st_print_errno(ST_ERR(
		    utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW)));
	}
	if (!strcmp(verb, "fchmod") || !strcmp(verb, "fchown")) {
		int fd =
		    open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		int err;

		if (fd < 0) { /* the open, not the change, was refused */
			printf("open:");
			return st_print_errno(errno);
		}
		err = verb[2] == 'm' ? ST_ERR(fchmod(fd, st.st_mode & 07777))
				     : ST_ERR(fchown(fd, st.st_uid, st.st_gid));
		close(fd);
		return st_print_errno(err);
	}
	if (!strcmp(verb, "fchownat-empty")) {
		/* An O_PATH descriptor opens whatever the file is. */
		int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), err;

		if (fd < 0)
			return st_print_errno(errno);
		err = ST_ERR(
		    fchownat(fd, "", st.st_uid, st.st_gid, AT_EMPTY_PATH));
		close(fd);
		return st_print_errno(err);
	}
	if (!strcmp(verb, "fchmodat2")) /* Linux 6.6+: ENOSYS before */
		return st_print_errno(
		    ST_ERR(syscall(452, AT_FDCWD, path, st.st_mode & 07777,
				   AT_SYMLINK_NOFOLLOW)));
	/* Neither leaves anything: the name does not exist (ENODATA). */
	if (!strcmp(verb, "xattr-replace"))
		return st_print_errno(ST_ERR(lsetxattr(path, "trusted.jr2-none",
						       "1", 1, XATTR_REPLACE)));
	if (!strcmp(verb, "removexattr"))
		return st_print_errno(
		    ST_ERR(lremovexattr(path, "trusted.jr2-none")));
	if (!strcmp(verb, "chattr")) {
		/* The flags as they are, set again (FS_IOC_SETFLAGS). */
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags;
		int err;

		if (fd < 0)
			return st_print_errno(errno);
		err = ST_ERR(ioctl(fd, FS_IOC_GETFLAGS, &flags));
		if (!err)
			err = ST_ERR(ioctl(fd, FS_IOC_SETFLAGS, &flags));
		close(fd);
		return st_print_errno(err);
	}
	fprintf(stderr, "step-helper: unknown metadata verb '%s'\n", verb);
	return 101;
}

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif

/* The mount at `path` made writable again: "ok" or the errno. */
static int st_helper_mount_rw(const char *how, const char *path)
{
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} rw = {.attr_clr = MOUNT_ATTR_RDONLY};

	if (!strcmp(how, "remount-rw"))
		return st_print_errno(ST_ERR(
		    mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL)));
	if (!strcmp(how, "umount"))
		return st_print_errno(ST_ERR(umount2(path, MNT_DETACH)));
	/* In a user and mount namespace of its own, where a root program
	   holds every capability over its copy of the mounts. */
	if (!strcmp(how, "userns-setattr-rw") &&
	    unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return st_print_errno(errno);
	return st_print_errno(ST_ERR(
	    syscall(SYS_mount_setattr, AT_FDCWD, path, 0, &rw, sizeof(rw))));
}

/*
 * `late-chmod READY GO PATH`: says it runs (READY), waits for GO (mounts
 * made meanwhile), then chmods PATH to its own mode: "ok" or the errno
 * (ENOENT: the mount is not seen here).
 */
static int st_late_chmod(const char *ready, const char *go, const char *path)
{
	struct stat st;

	if (mknod(ready, S_IFREG | 0600, 0))
		return st_print_errno(errno);
	for (int i = 0; i < 1000 && access(go, F_OK); i++)
		usleep(10000);
	if (lstat(path, &st))
		return st_print_errno(errno);
	return st_print_errno(ST_ERR(chmod(path, st.st_mode & 07777)));
}

static int st_helper(int argc, char **argv)
{
	/* `batch VERB PATH...`: each metadata change in turn, one line each
	   (one program run for many attempts; each is its own syscall). */
	if (argc >= 3 && argc % 2 == 1 && !strcmp(argv[0], "batch")) {
		int ret = 0;

		for (int i = 1; i + 1 < argc; i += 2) {
			ret |= st_helper_metadata(argv[i], argv[i + 1]) ? 1 : 0;
			fflush(stdout);
		}
		return ret;
	}
	if (argc == 2 && !strcmp(argv[0], "tiocsti"))
		return st_print_errno(ST_ERR(ioctl(0, TIOCSTI, argv[1])));
	if (argc == 1 && !strcmp(argv[0], "steal"))
		return st_helper_steal();
	if (argc == 1 && !strcmp(argv[0], "tioccons"))
		return st_print_errno(ST_ERR(ioctl(0, TIOCCONS)));
	if (argc == 2 && !strcmp(argv[0], "fd-read"))
		return st_helper_fd_read(atoi(argv[1]));
	if (argc == 1 && !strcmp(argv[0], "caps"))
		return st_helper_caps();
	if (argc == 2 && !strcmp(argv[0], "mknod-block"))
		return st_print_errno(
		    ST_ERR(mknod(argv[1], S_IFBLK | 0600, makedev(7, 0))));
	if (argc == 2 &&
	    (!strcmp(argv[0], "remount-rw") || !strcmp(argv[0], "umount") ||
	     !strcmp(argv[0], "setattr-rw") ||
	     !strcmp(argv[0], "userns-setattr-rw")))
		return st_helper_mount_rw(argv[0], argv[1]);
	if (argc == 2 && !strcmp(argv[0], "pty")) {
		/* A pty of its own: ptmx, then its pts/N, mode 0620 again. */
		int ptm = open(argv[1], O_RDWR | O_NOCTTY | O_CLOEXEC);
		char *pts = ptm < 0 ? NULL : ptsname(ptm);

		if (!pts || grantpt(ptm) || unlockpt(ptm))
			return st_print_errno(errno);
		return st_print_errno(ST_ERR(chmod(pts, 0620)));
	}
	if (argc == 4 && !strcmp(argv[0], "late-chmod"))
		return st_late_chmod(argv[1], argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[0], "handle"))
		return st_helper_handle(argv[1]);
	if (argc == 2 && !strcmp(argv[0], "environ"))
		return st_helper_environ(argv[1]);
	if (argc == 2)
		return st_helper_metadata(argv[0], argv[1]);
	fprintf(stderr, "step-helper: unknown verb; see step_helpers.h\n");
	return 101;
}

#define ST_MAIN                                                    \
	int main(int argc, char **argv)                            \
	{                                                          \
		if (argc > 1 && !strcmp(argv[1], "--step-helper")) \
			return st_helper(argc - 2, argv + 2);      \
		if (argc > 1 && !strcmp(argv[1], "--hx-helper"))   \
			return hx_helper(argc - 2, argv + 2);      \
		return test_harness_run(argc, argv);               \
	}

/* ---- running it: unconfined, through run, through exec ---- */

struct st {
	struct hx hx;
	char confine[PATH_MAX];
	int in_fd; /* stdin of what runs; -1: the test's own */
};

/*
 * Runs argv with stdin in_fd (-1: as is), stdout and stderr into out;
 * `session`: first a new session whose controlling terminal is in_fd.
 * Returns the exit status (-1: a signal, or no child: fx_run_in).
 */
static inline int st_run(char *const argv[], int in_fd, bool session, char *out,
			 size_t size)
{
	int status;

	return fx_run_in(argv, in_fd, session, out, size, &status) ? -1
								   : status;
}

/* argv[0..]: NULL-terminated, appended after the fixed words. */
static inline int st_argv(char **dst, size_t max, const char *const head[],
			  const char *const tail[])
{
	size_t n = 0;

	for (size_t i = 0; head && head[i] && n + 1 < max; i++)
		dst[n++] = (char *)head[i];
	for (size_t i = 0; tail && tail[i] && n + 1 < max; i++)
		dst[n++] = (char *)tail[i];
	dst[n] = NULL;
	return (int)n;
}

enum st_path { ST_UNCONFINED, ST_RUN, ST_EXEC };

static const char *const st_path_name[] = {"unconfined", "jr2-confine run",
					   "jr2-harness exec"};

/*
 * Runs this binary's `--step-helper VERB...` by `path`, with `opts` (run's
 * or exec's flags before `--`).  Its output in out; returns its status.
 */
/* `tool` VERB... by `path`: its output into out; its exit status. */
static inline int st_tool_opts(struct st *st, enum st_path path,
			       const char *const opts[], bool session,
			       const char *const tool[],
			       const char *const verb[], char *out, size_t size)
{
	const char *run[24] = {st->confine, "run",	  "--quiet",
			       "--protect", HX_PROTECTED, "--read-only",
			       ST_RO};
	const char *exec[24] = {st->hx.harness, "exec", "--root", HX_ROOT};
	const char **head = path == ST_RUN ? run : exec;
	size_t n = path == ST_RUN ? 7 : 4;
	char *argv[ST_MAX_WORDS + 24];
	const char *full[ST_MAX_WORDS];
	size_t m = 0;

	for (size_t i = 0; opts && opts[i] && n < 20; i++)
		head[n++] = opts[i];
	head[n++] = "--";
	head[n] = NULL;
	for (size_t i = 0; tool[i]; i++)
		full[m++] = tool[i];
	for (size_t i = 0; verb[i] && m + 1 < ST_MAX_WORDS; i++)
		full[m++] = verb[i];
	full[m] = NULL;
	if (path == ST_UNCONFINED)
		st_argv(argv, ST_MAX_WORDS + 24, full, NULL);
	else
		st_argv(argv, ST_MAX_WORDS + 24, head, full);
	return st_run(argv, st->in_fd, session, out, size);
}

/* This binary's `--step-helper` VERB... by `path`. */
static inline int st_help_opts(struct st *st, enum st_path path,
			       const char *const opts[], bool session,
			       const char *const verb[], char *out, size_t size)
{
	const char *const helper[] = {st->hx.self, "--step-helper", NULL};

	return st_tool_opts(st, path, opts, session, helper, verb, out, size);
}

/* jr2-try VERB... by `path` (its verbs: runtime/tests/try.c). */
static inline int st_try(struct st *st, enum st_path path,
			 const char *const verb[], char *out, size_t size)
{
	const char *const tool[] = {st->hx.try_tool, NULL};

	return st_tool_opts(st, path, NULL, false, tool, verb, out, size);
}

/* The helper's first line by `path` (no flags, no new session). */
#define ST_HELP(st, path, ...)                                   \
	({                                                       \
		static char _out[ST_OUT_SIZE];                   \
		const char *const _verb[] = {__VA_ARGS__, NULL}; \
		st_help_opts(st, path, NULL, false, _verb, _out, \
			     sizeof(_out));                      \
		_out[strcspn(_out, "\n")] = '\0';                \
		(const char *)_out;                              \
	})

/* The tree and the tools; ST_START starts the harness. */
static inline void st_setup(struct __test_metadata *_metadata, struct st *st)
{
	hx_setup(_metadata, &st->hx);
	st->in_fd = -1;
	FX_FIND_TOOL("jr2-confine", st->confine);
	fx_make_dir(_metadata, ST_RO, 0755);
	fx_make_dir(_metadata, ST_RO "/sub", 0755);
	fx_make_dir(_metadata, ST_FREE, 0755);
	fx_make_file(_metadata, ST_RO_FILE, "ro-data\n", 0644);
	fx_make_file(_metadata, ST_FREE "/file", "free-data\n", 0644);
	fx_make_file(_metadata, ST_CONF, "read-only " ST_RO "\n" HX_TRUST_ETC,
		     0644);
}

/* The harness, with the policy of run (or a skip where the ABI is refused). */
#define ST_START(st)                                                      \
	do {                                                              \
		const char *const _extra[] = {"--config", ST_CONF, NULL}; \
		HX_START(&(st)->hx, _extra);                              \
	} while (0)

/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
#define ST_FIXTURE(group)                       \
	FIXTURE(group)                          \
	{                                       \
		struct st st;                   \
	};                                      \
	FIXTURE_SETUP(group)                    \
	{                                       \
		st_setup(_metadata, &self->st); \
	}                                       \
	FIXTURE_TEARDOWN(group)                 \
	{                                       \
		hx_stop(&self->st.hx);          \
	}
/* clang-format on */

#endif /* JR2_SELFTESTS_STEP_HELPERS_H */
