// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helpers the kernel starts: modprobe, the core_pattern
 * program (at a crash of any dumpable process) and request-key run as root,
 * in the initial namespaces and outside every domain, from kthreadd's root;
 * init's services and cron run from it too.  Where that root is the
 * programs' own, a root program may change what they run (SECURITY.md,
 * Known gaps): nothing is weakened in silence, so `jr2-confine check`,
 * `run --verbose` and each spawner start say so in one line ("kernel
 * helpers:"), with what core_pattern does.
 *
 * The data: the initial pid namespace (its inode) and kthreadd's root
 * against ours.  The same line in a chroot of another root says "not the
 * machine's own"; in a pid namespace of its own (kthreadd out of view),
 * "unknown".  core_pattern is set to a pipe and to a file name (restored
 * at teardown) and the line names each.
 *
 * Promises: G6
 */
#include "ways.h"

#define KH_PATTERN  "/proc/sys/kernel/core_pattern"
#define KH_PID_INIT 0xEFFFFFFCU /* the initial pid namespace's inode */
#define KH_OWN	    "this root is the machine's own"
#define KH_OTHER    "this root is not the machine's own"
#define KH_UNKNOWN  "whether this root is the machine's own is unknown"

FIXTURE(helpers)
{
	struct way way;
	char pattern[256];
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

FIXTURE_SETUP(helpers)
{
	way_setup(_metadata, &self->way);
	self->saved = kh_read(KH_PATTERN, self->pattern, sizeof(self->pattern));
}

FIXTURE_TEARDOWN(helpers)
{
	hx_stop(&self->way.hx);
	if (self->saved)
		test_write(KH_PATTERN, self->pattern, 0);
}

/* The "kernel helpers:" line of argv's output (check, run --verbose). */
static void kh_line(struct __test_metadata *_metadata, char *const argv[],
		    char *line, size_t size)
{
	char out[16384], *at;

	way_run(argv, -1, false, out, sizeof(out));
	at = strstr(out, "kernel helpers: ");
	ASSERT_NE(NULL, at)
	{
		TH_LOG("no kernel helpers line in: %.2000s", out);
	}
	snprintf(line, size, "%.*s", (int)strcspn(at, "\n"), at);
}

/* The expected words, from the data. */
static const char *kh_expected(void)
{
	struct stat pidns, helpers_root, root;

	if (stat("/proc/self/ns/pid", &pidns) ||
	    (unsigned int)pidns.st_ino != KH_PID_INIT ||
	    stat("/proc/2/root/", &helpers_root) || stat("/", &root))
		return KH_UNKNOWN;
	return helpers_root.st_dev == root.st_dev &&
		       helpers_root.st_ino == root.st_ino
		   ? KH_OWN
		   : KH_OTHER;
}

/* A copy of jr2-confine at dst, and a proc file system beside it. */
static void kh_new_root(struct __test_metadata *_metadata, const char *confine,
			const char *root)
{
	char path[PATH_MAX], buf[65536];
	int src, dst;

	ASSERT_EQ(0, mkdir(root, 0755));
	snprintf(path, sizeof(path), "%s/proc", root);
	ASSERT_EQ(0, mkdir(path, 0755));
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's proc mount");
	ASSERT_EQ(0, mount("proc", path, "proc", 0, NULL));
	snprintf(path, sizeof(path), "%s/jr2-confine", root);
	src = open(confine, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, src);
	dst = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	ASSERT_LE(0, dst);
	for (ssize_t n; (n = read(src, buf, sizeof(buf))) > 0;)
		ASSERT_EQ(n, write(dst, buf, (size_t)n));
	close(src);
	close(dst);
}

/* In a child that `enter` moves (0: done), argv's line has want and also. */
static void kh_line_in_child(struct __test_metadata *_metadata,
			     int (*enter)(void), char *const argv[],
			     const char *want, const char *also)
{
	char line[1024];
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (enter())
			_exit(2);
		kh_line(_metadata, argv, line, sizeof(line));
		if (strstr(line, want) && strstr(line, also))
			_exit(0);
		printf("# %s\n", line);
		_exit(1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int kh_enter_chroot(void)
{
	return chroot(HX_MNT "/root") || chdir("/");
}

/* A proc of this pid namespace, in a mount namespace of its own (the
   test's /proc stays for its teardown). */
static int kh_enter_proc(void)
{
	return unshare(CLONE_NEWNS) ||
	       mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	       mount("proc", "/proc", "proc", 0, NULL);
}

TEST_F(helpers, G6_the_line_says_whose_root_this_is)
{
	char *const check[] = {self->way.confine, "check", NULL};
	char *const inside[] = {"/jr2-confine", "check", NULL};
	char line[1024];

	kh_line(_metadata, check, line, sizeof(line));
	ASSERT_NE(NULL, strstr(line, kh_expected()))
	{
		TH_LOG("expected '%s': %s", kh_expected(), line);
	}
	/* In a chroot of another root: not the machine's own. */
	kh_new_root(_metadata, self->way.confine, HX_MNT "/root");
	kh_line_in_child(_metadata, kh_enter_chroot, inside, KH_OTHER, "");
}

TEST_F(helpers, G6_the_line_says_unknown_in_a_pid_namespace_of_its_own)
{
	char *const check[] = {self->way.confine, "check", NULL};

	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's pid namespace");
	ASSERT_EQ(0, unshare(CLONE_NEWPID)); /* the child: its pid 1 */
	kh_line_in_child(_metadata, kh_enter_proc, check, KH_UNKNOWN,
			 "a pid namespace of its own");
}

TEST_F(helpers, G6_the_line_names_what_core_pattern_does)
{
	char *const check[] = {self->way.confine, "check", NULL};
	char *const run[] = {self->way.confine, "run", "--verbose", "--protect",
			     HX_PROTECTED,	"--",  "/bin/true", NULL};
	char line[1024], log[64 * 1024];
	int err;

	ASSERT_TRUE(self->saved);
	err = test_write(KH_PATTERN, "|/var/tmp/jr2-no-such-helper %p", 0);
	if (err == EROFS || err == EACCES || err == EPERM)
		SKIP(return, "%s cannot be written here (%s)", KH_PATTERN,
			   strerror(err));
	ASSERT_EQ(0, err);
	kh_line(_metadata, check, line, sizeof(line));
	ASSERT_NE(NULL, strstr(line, "core_pattern: pipes to "
				     "/var/tmp/jr2-no-such-helper)"))
	{
		TH_LOG("check: %s", line);
	}
	/* The same line where programs start: the spawner and run (here,
	   not first: a refused ABI skips the test). */
	WAY_START(&self->way);
	kh_line(_metadata, run, line, sizeof(line));
	ASSERT_NE(NULL, strstr(line, kh_expected()))
	{
		TH_LOG("run --verbose: %s", line);
	}
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "jr2-harness: kernel helpers: "))
	{
		TH_LOG("harness log: %.2000s", log);
	}
	ASSERT_EQ(0, test_write(KH_PATTERN, "core", 0));
	kh_line(_metadata, check, line, sizeof(line));
	ASSERT_NE(NULL, strstr(line, "core_pattern: a file name)"))
	{
		TH_LOG("check: %s", line);
	}
}

TEST_HARNESS_MAIN
