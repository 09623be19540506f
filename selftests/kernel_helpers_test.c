// SPDX-License-Identifier: GPL-2.0-only
/*
 * Issue 17, the helpers the kernel starts: where core_pattern pipes to a
 * program, a crash makes the kernel run it as root, in the initial
 * namespaces and outside every domain; a root program that may change that
 * file (it is the user's, under /usr) gets out by crashing.  The
 * confinement step pins the programs' core limit at 1, for which the
 * kernel starts no pipe (fs/coredump.c), and setrlimit/prlimit of
 * RLIMIT_CORE give EPERM (in the compat table too).  A core_pattern that
 * names a file leaves the limit the user's.
 *
 * The test sets core_pattern to a helper of its own under /var/tmp (the
 * kernel's helpers see the machine's root, not this test's tmpfs), with
 * core_pipe_limit 1: the kernel waits for the helper before the crashed
 * process is reaped, so "it did not run" is known at waitpid, not after a
 * sleep.  Both are restored at teardown.  The control is the same crash
 * unconfined: the helper runs and the status says "core dumped".
 *
 * Also the one line `jr2-confine check` gives on the kernel's helpers: this
 * root is the machine's own (here, where /proc says so), and is not in a
 * chroot of another root.
 *
 * Promises: R9
 */
#include <sys/resource.h>

#include "step_helpers.h"

#define KH_PATTERN   "/proc/sys/kernel/core_pattern"
#define KH_PIPELIMIT "/proc/sys/kernel/core_pipe_limit"
#define KH_PID_INIT  0xEFFFFFFCU /* the initial pid namespace's inode */

/* ---- the helper verbs (`--step-helper core-*`) ---- */

/* A child crashes (SIGSEGV): "ok dumped PID" or "ok nodump PID". */
static int kh_crash(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		kill(getpid(), SIGSEGV);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return st_print_errno(errno);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV) {
		printf("not killed by SIGSEGV: status 0x%x\n", status);
		return 1;
	}
	printf("ok %s %d\n", WCOREDUMP(status) ? "dumped" : "nodump", pid);
	return 0;
}

static int kh_helper(const char *verb)
{
	struct rlimit lim;

	if (!strcmp(verb, "core-crash"))
		return kh_crash();
	if (getrlimit(RLIMIT_CORE, &lim))
		return st_print_errno(errno);
	if (!strcmp(verb, "core-limit")) {
		printf("ok %llu %llu\n", (unsigned long long)lim.rlim_cur,
		       (unsigned long long)lim.rlim_max);
		return 0;
	}
	lim.rlim_cur = 0; /* lowering the soft limit: no capability needed */
	if (!strcmp(verb, "core-set")) /* glibc: prlimit64(0, ...) */
		return st_print_errno(ST_ERR(setrlimit(RLIMIT_CORE, &lim)));
	if (!strcmp(verb, "core-set-raw"))
		return st_print_errno(
		    ST_ERR(syscall(SYS_setrlimit, RLIMIT_CORE, &lim)));
#if defined(__x86_64__)
	if (!strcmp(verb, "core-set-compat")) {
		/* i386's setrlimit (75) by int 0x80: two 32-bit words, in
		   this static, non-PIE binary's data. */
		static unsigned int lim32[2];
		long ret;

		lim32[1] = lim.rlim_max > 0xffffffffULL
			       ? 0xffffffffU
			       : (unsigned int)lim.rlim_max;
		__asm__ volatile("int $0x80"
				 : "=a"(ret)
				 : "0"(75L), "b"((long)RLIMIT_CORE), "c"(lim32)
				 : "memory", "r8", "r9", "r10", "r11", "cc");
		return st_print_errno(ret < 0 ? (int)-ret : 0);
	}
#endif
	if (!strcmp(verb, "core-nofile-set")) {
		/* Another limit of its own: still the program's to set. */
		if (getrlimit(RLIMIT_NOFILE, &lim))
			return st_print_errno(errno);
		lim.rlim_cur = lim.rlim_cur > 64 ? lim.rlim_cur - 1 : 64;
		return st_print_errno(ST_ERR(setrlimit(RLIMIT_NOFILE, &lim)));
	}
	fprintf(stderr, "kernel_helpers_test: unknown verb '%s'\n", verb);
	return 101;
}

/* ---- the fixture: step_helpers.h's, and core_pattern kept ---- */

FIXTURE(helpers)
{
	struct st st;
	char pattern[256], pipe_limit[32];
	char dir[64]; /* the helper's dir under /var/tmp; "" when none */
	bool saved;
};

static bool kh_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

static int kh_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
	int err = n < 0 ? errno : 0;

	if (fd >= 0)
		close(fd);
	return err;
}

FIXTURE_SETUP(helpers)
{
	st_setup(_metadata, &self->st);
	self->dir[0] = '\0';
	self->saved =
	    kh_read(KH_PATTERN, self->pattern, sizeof(self->pattern)) &&
	    kh_read(KH_PIPELIMIT, self->pipe_limit, sizeof(self->pipe_limit));
}

FIXTURE_TEARDOWN(helpers)
{
	char path[PATH_MAX];

	hx_stop(&self->st.hx);
	if (self->saved) {
		kh_write(KH_PATTERN, self->pattern);
		kh_write(KH_PIPELIMIT, self->pipe_limit);
	}
	if (self->dir[0]) {
		DIR *d = opendir(self->dir);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", self->dir,
					 e->d_name);
				unlink(path);
			}
		if (d)
			closedir(d);
		rmdir(self->dir);
	}
}

/*
 * core_pattern pipes to a helper of this test's, which writes DIR/ran-PID
 * for the crashed PID and reads the core; skips where core_pattern cannot
 * be written (a container's read-only /proc/sys).
 */
#define KH_PIPE(self)                                                          \
	do {                                                                   \
		char _line[200];                                               \
		int _err;                                                      \
		FILE *_f;                                                      \
                                                                               \
		ASSERT_TRUE((self)->saved);                                    \
		snprintf((self)->dir, sizeof((self)->dir),                     \
			 "/var/tmp/jr2-core.XXXXXX");                          \
		ASSERT_NE(NULL, mkdtemp((self)->dir))                          \
		{                                                              \
			TH_LOG("mkdtemp under /var/tmp: %s", strerror(errno)); \
		}                                                              \
		snprintf(_line, sizeof(_line), "%s/helper", (self)->dir);      \
		_f = fopen(_line, "we");                                       \
		ASSERT_NE(NULL, _f);                                           \
		fprintf(_f,                                                    \
			"#!/bin/sh\necho \"$1\" > %s/ran-$1\n"                 \
			"exec cat > /dev/null\n",                              \
			(self)->dir);                                          \
		ASSERT_EQ(0, fclose(_f));                                      \
		ASSERT_EQ(0, chmod(_line, 0755));                              \
		_err = kh_write(KH_PIPELIMIT, "1");                            \
		if (_err == EROFS || _err == EACCES || _err == EPERM)          \
			SKIP(return,                                           \
				   "%s cannot be written here (%s): the "      \
				   "core_pattern door is the machine's",       \
				   KH_PIPELIMIT, strerror(_err));              \
		ASSERT_EQ(0, _err);                                            \
		snprintf(_line, sizeof(_line), "|%s/helper %%p", (self)->dir); \
		ASSERT_EQ(0, kh_write(KH_PATTERN, _line));                     \
	} while (0)

/* Whether the helper ran for the crash line "ok dumped|nodump PID". */
static bool kh_helper_ran(const char *dir, const char *crash)
{
	char path[128];
	const char *pid = strrchr(crash, ' ');

	snprintf(path, sizeof(path), "%s/ran-%s", dir, pid ? pid + 1 : "");
	return access(path, F_OK) == 0;
}

TEST_F(helpers, R9_a_crash_starts_no_core_pattern_helper)
{
	struct st *st = &self->st;
	char control[ST_OUT_SIZE];

	KH_PIPE(self);
	ST_START(st);
	snprintf(control, sizeof(control), "%s",
		 ST_HELP(st, ST_UNCONFINED, "core-crash"));
	ASSERT_EQ(0, strncmp(control, "ok dumped ", 10))
	{
		TH_LOG("unconfined: %s", control);
	}
	ASSERT_TRUE(kh_helper_ran(self->dir, control))
	{
		TH_LOG("the kernel did not run %s/helper for an unconfined "
		       "crash (%s)",
		       self->dir, control);
	}
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		const char *out = ST_HELP(st, path, "core-crash");

		ASSERT_EQ(0, strncmp(out, "ok nodump ", 10))
		{
			TH_LOG("%s: %s", st_path_name[path], out);
		}
		ASSERT_FALSE(kh_helper_ran(self->dir, out))
		{
			TH_LOG("%s: the kernel ran the core_pattern helper "
			       "for a program's crash (%s)",
			       st_path_name[path], out);
		}
	}
}

TEST_F(helpers, R9_core_limit_pinned_while_core_pattern_pipes)
{
	struct st *st = &self->st;
	char control[ST_OUT_SIZE];

	KH_PIPE(self);
	ST_START(st);
	ASSERT_STREQ("ok", ST_HELP(st, ST_UNCONFINED, "core-set"));
	ASSERT_STREQ("ok", ST_HELP(st, ST_UNCONFINED, "core-set-raw"));
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		const char *name = st_path_name[path];

		ASSERT_STREQ("ok 1 1", ST_HELP(st, path, "core-limit"))
		{
			TH_LOG("%s", name);
		}
		ASSERT_STREQ("EPERM", ST_HELP(st, path, "core-set"))
		{
			TH_LOG("%s: setrlimit (prlimit64 of itself)", name);
		}
		ASSERT_STREQ("EPERM", ST_HELP(st, path, "core-set-raw"))
		{
			TH_LOG("%s: the setrlimit syscall", name);
		}
		ASSERT_STREQ("ok", ST_HELP(st, path, "core-nofile-set"))
		{
			TH_LOG("%s: RLIMIT_NOFILE stays the program's", name);
		}
	}
#if defined(__x86_64__)
	snprintf(control, sizeof(control), "%s",
		 ST_HELP(st, ST_UNCONFINED, "core-set-compat"));
	if (!strcmp(control, "ENOSYS"))
		SKIP(return, "the compat table: int 0x80 gives ENOSYS "
			     "unconfined (no CONFIG_IA32_EMULATION)");
	ASSERT_STREQ("ok", control);
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ("EPERM", ST_HELP(st, path, "core-set-compat"))
		{
			TH_LOG("%s: int 0x80", st_path_name[path]);
		}
	}
#else
	(void)control;
#endif
}

TEST_F(helpers, R9_core_limit_is_the_users_with_a_file_pattern)
{
	struct st *st = &self->st;
	char control[ST_OUT_SIZE];
	int err;

	ASSERT_TRUE(self->saved);
	err = kh_write(KH_PATTERN, "core");
	if (err == EROFS || err == EACCES || err == EPERM)
		SKIP(return, "%s cannot be written here (%s)", KH_PATTERN,
			   strerror(err));
	ASSERT_EQ(0, err);
	ST_START(st);
	snprintf(control, sizeof(control), "%s",
		 ST_HELP(st, ST_UNCONFINED, "core-limit"));
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ(control, ST_HELP(st, path, "core-limit"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
		ASSERT_STREQ("ok", ST_HELP(st, path, "core-set"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
}

/* `jr2-confine check`'s "kernel helpers:" line, run as `argv`. */
static void kh_check_line(struct __test_metadata *_metadata, char *const argv[],
			  char *line, size_t size)
{
	char out[8192], *at;

	st_run(argv, -1, false, out, sizeof(out));
	at = strstr(out, "\nkernel helpers: ");
	ASSERT_NE(NULL, at)
	{
		TH_LOG("no kernel helpers line in: %s", out);
	}
	snprintf(line, size, "%.*s", (int)strcspn(at + 1, "\n"), at + 1);
}

TEST_F(helpers, the_check_line_says_whose_root_this_is)
{
	const char *const own = "this root is the machine's own";
	const char *const other = "this root is not the machine's own";
	char *const check[] = {self->st.confine, "check", NULL};
	char line[512], bin[PATH_MAX];
	struct stat pidns, helpers_root, root;
	bool machines;
	int fd, src;

	/* The data: the initial pid namespace, and kthreadd's root ours. */
	ASSERT_EQ(0, stat("/proc/self/ns/pid", &pidns));
	machines = (unsigned int)pidns.st_ino == KH_PID_INIT &&
		   !stat("/proc/2/root/", &helpers_root) && !stat("/", &root) &&
		   helpers_root.st_dev == root.st_dev &&
		   helpers_root.st_ino == root.st_ino;
	kh_check_line(_metadata, check, line, sizeof(line));
	ASSERT_NE(NULL, strstr(line, machines ? own : other))
	{
		TH_LOG("%s", line);
	}
	/* In a chroot of another root: not the machine's own. */
	ASSERT_EQ(0, mkdir(HX_MNT "/root", 0755));
	ASSERT_EQ(0, mkdir(HX_MNT "/root/proc", 0755));
	ASSERT_EQ(0, mount("proc", HX_MNT "/root/proc", "proc", 0, NULL));
	src = open(self->st.confine, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, src);
	fd = open(HX_MNT "/root/jr2-confine", O_WRONLY | O_CREAT | O_CLOEXEC,
		  0755);
	ASSERT_LE(0, fd);
	for (ssize_t n; (n = read(src, bin, sizeof(bin))) > 0;)
		ASSERT_EQ(n, write(fd, bin, (size_t)n));
	close(src);
	close(fd);
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		char *const inside[] = {"/jr2-confine", "check", NULL};

		if (chroot(HX_MNT "/root") || chdir("/"))
			_exit(2);
		kh_check_line(_metadata, inside, line, sizeof(line));
		_exit(strstr(line, other) ? 0 : (printf("%s\n", line), 1));
	}
	int status;

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--step-helper") &&
	    !strncmp(argv[2], "core-", 5))
		return kh_helper(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "--step-helper"))
		return st_helper(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--hx-helper"))
		return hx_helper(argc - 2, argv + 2);
	return test_harness_run(argc, argv);
}
