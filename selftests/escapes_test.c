// SPDX-License-Identifier: GPL-2.0-only
/*
 * R9 and friends: every way around the rules that SECURITY.md calls an
 * escape, one attempt per test, each with the exact errno.  The word after
 * the promise IDs is the category (symlink, hardlink, bindmount, dotdot,
 * proc, opath, openat2, iouring, handle, rename, mount, chroot, fd, fifo,
 * socket, ptrace, procmem, vmreadv, nested, truncate); `selftests/coverage`
 * counts them.  Each test's positive control does the same thing to a file
 * that is not protected.
 *
 * Each attempt runs under both ways jr2 confines (every escape test
 * passes under both `jr2-confine run` and `jr2-harness exec`), as
 * the fixture's variants:
 *
 *   escapes.library.*  jr2_confine_self(): the library's Landlock domain;
 *   escapes.step.*     jr2_confine_step() with the same policy: what `run`
 *                      and the harness's spawner do before execve (domain,
 *                      capability allow-list on every set, new session,
 *                      descriptors closed but the passed ones, read-only
 *                      mounts of the restricted dirs in a mount namespace
 *                      of its own).  execve changes neither the domain nor
 *                      the capability sets (the dropped ones are out of the
 *                      bounding set too); it only makes the program
 *                      dumpable again, which the variant does by hand.
 *
 * Per path, the exact errno comes from data: where the step made the
 * read-only mounts (struct jr2_step.ro_mounts, run's "metadata: holds"), a
 * write, create, remove or truncate through the restricted dir's own mount
 * gives EROFS, and a rename across it or a link out of it EXDEV, instead of
 * Landlock's EACCES (docs/PROMISES.md, "R").  Through another mount of the same
 * dir (a bind mount made before confinement, a descriptor or a process of the
 * mount namespace before the step) Landlock's EACCES stays.  The step
 * drops CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE: file
 * handles and unshare(CLONE_NEWNS) give EPERM there, before Landlock.
 * A descriptor into the protected dir taken across confinement is passed
 * as `run --pass-fd` passes it: the step refuses to confine (no program
 * runs).  The attempts that jr2-try can express also run through the real
 * `jr2-confine run` and `jr2-harness exec`: escapes_paths below.
 *
 * Promises: R1 R2 R3 R4 R5 R6 R9 O2 P1 P5 P6
 */
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "confine_step.h"
#include "ways.h"

/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
FIXTURE(escapes)
{
	struct jr2_fx fx;
};

FIXTURE_VARIANT(escapes)
{
	bool step; /* jr2_confine_step(), else jr2_confine_self() */
};
/* clang-format on */

FIXTURE_VARIANT_ADD(escapes, library){.step = false};
FIXTURE_VARIANT_ADD(escapes, step){.step = true};

/* The test child's path, and what crosses confinement (one test each). */
static struct {
	bool step;
	bool ro_mounts; /* the step made the read-only mounts */
	int keep[16]; /* descriptors passed across, as --pass-fd */
	size_t n_keep;
	struct ring *ring; /* the step's: set up after confinement */
	bool has_passrights; /* the kernel has SO_PASSRIGHTS (6.16) */
} es;

struct ring;
static int ring_setup(struct ring *ring);

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83 /* Linux 6.16 */
#endif

FIXTURE_SETUP(escapes)
{
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), off = 0;

	memset(&es, 0, sizeof(es));
	es.step = variant->step;
	es.has_passrights =
	    probe >= 0 &&
	    !setsockopt(probe, SOL_SOCKET, SO_PASSRIGHTS, &off, sizeof(off));
	if (probe >= 0)
		close(probe);
	fx_setup(_metadata, &self->fx);
}

FIXTURE_TEARDOWN(escapes)
{
}

/* A descriptor the test takes across confinement on purpose. */
static int es_keep(int fd)
{
	if (fd >= 0 && es.n_keep < sizeof(es.keep) / sizeof(es.keep[0]))
		es.keep[es.n_keep++] = fd;
	return fd;
}

/*
 * Confines the test child with `policy` by the variant's path.  The step
 * forks where setsid() is refused (the harness made the test child a group
 * leader), as `jr2-confine run` does from a shell: the test goes on in the
 * child, in a new session; the parent waits and mirrors its exit.
 */
static int es_confine_policy(struct __test_metadata *_metadata,
			     struct jr2_fx *fx, struct jr2_policy *policy,
			     struct jr2_err *err)
{
	struct jr2_step step = {.may_fork = true, .close_others = true};
	int rc;

	if (!es.step)
		return fx_confine_policy(_metadata, fx, policy, err);
	for (size_t i = 0; i < es.n_keep; i++)
		step.keep_fds[step.n_keep_fds++] = es.keep[i];
	rc = jr2_confine_step(policy, &fx->abi, 0, &step, err);
	if (rc) {
		TH_LOG("jr2_confine_step: %s", err->msg);
		return rc;
	}
	es.ro_mounts = step.ro_mounts;
	/* What execve of the program does (P1 holds by the domain). */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		err->code = errno;
		snprintf(err->msg, sizeof(err->msg), "PR_SET_DUMPABLE: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* FX_CONFINE of common.h, by the variant's path. */
#define ES_CONFINE()                                                          \
	do {                                                                  \
		struct jr2_policy _policy;                                    \
		struct jr2_err _err = {0};                                    \
		int _rc;                                                      \
		fx_policy(_metadata, &_policy);                               \
		_rc =                                                         \
		    es_confine_policy(_metadata, &self->fx, &_policy, &_err); \
		jr2_policy_free(&_policy);                                    \
		FX_CONFINED_OR_SKIP(&self->fx, _rc, &_err);                   \
		if (es.step && es.ring && (_rc = ring_setup(es.ring)))        \
			SKIP(return,                                          \
				   "io_uring unavailable in the domain "      \
				   "(io_uring_setup: %s)",                    \
				   strerror(_rc));                            \
	} while (0)

/*
 * For an attempt that needs `fd` (into the protected dir, opened before
 * confinement) on the other side: the library keeps every descriptor; the
 * step, given it as `run --pass-fd` would, refuses to confine, naming the
 * descriptor, and no program runs: the attempt ends there (passed).  Not
 * passed, the step closes it (descriptors_test.c).
 */
#define ES_CONFINE_HOLDING(fd)                                                \
	do {                                                                  \
		struct jr2_policy _policy;                                    \
		struct jr2_err _err = {0};                                    \
		int _rc;                                                      \
		if (!es.step || !fx_accepted(&self->fx.abi)) {                \
			ES_CONFINE();                                         \
			break;                                                \
		}                                                             \
		es_keep(fd);                                                  \
		fx_policy(_metadata, &_policy);                               \
		_rc =                                                         \
		    es_confine_policy(_metadata, &self->fx, &_policy, &_err); \
		jr2_policy_free(&_policy);                                    \
		ASSERT_EQ(-1, _rc);                                           \
		ASSERT_EQ(EPERM, _err.code);                                  \
		ASSERT_NE(NULL, strstr(_err.msg,                              \
				       "protected dir '" FX_PROTECTED "'"))   \
		{                                                             \
			TH_LOG("refused, but not for the descriptor: %s",     \
			       _err.msg);                                     \
		}                                                             \
		ASSERT_EQ(0, test_read(FX_SECRET)); /* nothing confined */    \
		return;                                                       \
	} while (0)

/*
 * A write, create, remove or truncate through the restricted dir's own
 * mount: EROFS where the step's read-only mounts hold, else Landlock's.
 */
static int es_write_denied(void)
{
	return es.ro_mounts ? EROFS : EACCES;
}

/*
 * A rename across the read-only mount, a link out of it, a walk into it
 * with RESOLVE_NO_XDEV: EXDEV, else Landlock's.  (A link into it makes
 * its new name there first: es_write_denied().)
 */
static int es_cross_denied(void)
{
	return es.ro_mounts ? EXDEV : EACCES;
}

/*
 * What a capability the step drops (CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH)
 * gives: EPERM under the step (P5: no program holds them), `otherwise`
 * under the library, which leaves the capabilities alone.
 */
static int es_cap_dropped(int otherwise)
{
	return es.step ? EPERM : otherwise;
}

/*
 * A child that lives until the test ends (fx_lifeline_child of common.h,
 * its pipe passed across confinement so that the step does not close it).
 */
static pid_t es_lifeline_child(struct __test_metadata *_metadata)
{
	int write_end = -1;
	pid_t pid = fx_lifeline_child_fd(_metadata, &write_end);

	if (write_end >= 0)
		es_keep(write_end);
	return pid;
}

/* ---- symlinks ---- */

TEST_F(escapes, R9_symlink_absolute)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_WORK "/link"));
	ASSERT_EQ(0, test_symlink(FX_FILE2, FX_WORK "/control"));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/link"));
	ASSERT_EQ(0, test_read(FX_WORK "/control"));
}

TEST_F(escapes, R9_symlink_relative)
{
	ASSERT_EQ(0, test_symlink("../run/jr2/secret", FX_WORK "/link"));
	ASSERT_EQ(0, test_symlink("../other", FX_WORK "/control"));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/link"));
	ASSERT_EQ(0, test_creat(FX_WORK "/control/new"));
}

TEST_F(escapes, R9_symlink_chained)
{
	ASSERT_EQ(0, test_symlink(FX_OTHER "/b", FX_WORK "/a"));
	ASSERT_EQ(0, test_symlink("../run/jr2", FX_OTHER "/b"));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/a/secret"));
	ASSERT_EQ(EACCES, test_read(FX_WORK "/a/sub/deep"));
	ASSERT_EQ(0, test_list(FX_WORK "/a", NULL)); /* R7: names only */
}

TEST_F(escapes, R9_symlink_to_protected_dir)
{
	ASSERT_EQ(0, test_symlink(FX_PROTECTED, FX_WORK "/jr2"));
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(), test_open(FX_WORK "/jr2/secret", O_RDWR));
	ASSERT_EQ(es_write_denied(), test_creat(FX_WORK "/jr2/new"));
	ASSERT_EQ(es_write_denied(), test_unlink(FX_WORK "/jr2/secret"));
	ASSERT_EQ(0, test_unlink(FX_WORK "/jr2")); /* the link itself */
}

TEST_F(escapes, R9_symlink_swapped_after_rules)
{
	ASSERT_EQ(0, test_symlink(FX_DIR, FX_WORK "/link"));
	ES_CONFINE();
	ASSERT_EQ(0, test_read(FX_WORK "/link/file2"));
	ASSERT_EQ(0, test_unlink(FX_WORK "/link"));
	ASSERT_EQ(0, test_symlink(FX_PROTECTED, FX_WORK "/link"));
	ASSERT_EQ(EACCES, test_read(FX_WORK "/link/secret"));
}

TEST_F(escapes, R9_symlink_made_confined)
{
	ES_CONFINE();
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_OTHER "/link"));
	ASSERT_EQ(EACCES, test_read(FX_OTHER "/link"));
	ASSERT_EQ(0, test_symlink(FX_FILE, FX_OTHER "/control"));
	ASSERT_EQ(0, test_read(FX_OTHER "/control"));
}

TEST_F(escapes, R9_symlink_in_read_only_tree)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_REPOS "/link"));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_REPOS "/link"));
	ASSERT_EQ(0, test_read(FX_README));
}

TEST_F(escapes, R2_R9_symlink_write_through)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_WORK "/link"));
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(),
		  test_write(FX_WORK "/link", "x", O_APPEND));
	ASSERT_EQ(0, test_write(FX_FILE, "x", O_APPEND));
}

TEST_F(escapes, R9_symlink_to_proc_self_root)
{
	ASSERT_EQ(0, test_symlink("/proc/self/root", FX_WORK "/root"));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/root" FX_SECRET));
	ASSERT_EQ(0, test_read(FX_WORK "/root" FX_FILE2));
}

/*
 * ---- hard links made before confinement ----
 * Landlock grants by path: a second name of a protected file, made before
 * confinement in a writable folder, is reached through that folder's rule.
 * The runtime keeps R9 either by refusing to confine while a file in a
 * protected dir has such a name (its message names the file; no program
 * runs, so nothing is reached), or by denying that name.  A reachable file
 * is the one outcome that fails.
 */
#define CONFINE_UNLESS_LINKED(fx, linked)                                     \
	do {                                                                  \
		struct jr2_policy _policy;                                    \
		struct jr2_err _err = {0};                                    \
		char _why[128];                                               \
		int _rc;                                                      \
		fx_policy(_metadata, &_policy);                               \
		_rc = es_confine_policy(_metadata, fx, &_policy, &_err);      \
		if (!fx_accepted(&(fx)->abi)) {                               \
			fx_assert_refusal(_metadata, &(fx)->abi, _rc, &_err); \
			SKIP(return, "%s",                                    \
				   fx_refusal_reason(&(fx)->abi, _why,        \
						     sizeof(_why)));          \
		}                                                             \
		if (_rc) {                                                    \
			ASSERT_NE(NULL, strstr(_err.msg, linked))             \
			{                                                     \
				TH_LOG("refused, but not for '%s': %s",       \
				       linked, _err.msg);                     \
			}                                                     \
			return;                                               \
		}                                                             \
	} while (0)

TEST_F(escapes, R9_hardlink_made_before_read)
{
	ASSERT_EQ(0, test_link(FX_SECRET, FX_WORK "/hard"));
	CONFINE_UNLESS_LINKED(&self->fx, FX_SECRET);
	ASSERT_EQ(EACCES, test_read(FX_WORK "/hard"));
	ASSERT_EQ(0, test_read(FX_FILE));
}

TEST_F(escapes, R2_R9_hardlink_made_before_write)
{
	ASSERT_EQ(0, test_link(FX_DEEP, FX_OTHER "/hard"));
	CONFINE_UNLESS_LINKED(&self->fx, FX_DEEP);
	ASSERT_EQ(EACCES, test_open(FX_OTHER "/hard", O_WRONLY));
	ASSERT_EQ(0, test_open(FX_FILE, O_WRONLY));
}

TEST_F(escapes, R6_R9_hardlink_made_before_truncate)
{
	ASSERT_EQ(0, test_link(FX_SECRET, FX_WORK "/hard"));
	CONFINE_UNLESS_LINKED(&self->fx, FX_SECRET);
	ASSERT_EQ(EACCES, test_truncate(FX_WORK "/hard", 0));
	ASSERT_EQ(0, test_truncate(FX_FILE, 0));
}

TEST_F(escapes, R9_hardlink_inside_protected_dir_is_fine)
{
	/* Both names inside: no way around the rules, nothing to refuse. */
	ASSERT_EQ(0, test_link(FX_SECRET, FX_SUB "/again"));
	CONFINE_UNLESS_LINKED(&self->fx, "<nothing>");
	ASSERT_EQ(EACCES, test_read(FX_SUB "/again"));
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
}

/*
 * ---- bind mounts of (parts of) the protected dir elsewhere ----
 * The runtime protects each such mount as the protected dir itself, so the
 * folder it sits in becomes an ancestor (list only): the positive controls
 * write into a sibling folder.
 */

static void bind_mount(struct __test_metadata *_metadata, const char *from,
		       const char *to)
{
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's bind mount");
	ASSERT_EQ(0, mount(from, to, NULL, MS_BIND, NULL))
	{
		TH_LOG("bind '%s' on '%s': %s", from, to, strerror(errno));
	}
}

TEST_F(escapes, R9_bindmount_dir_read)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	fx_make_dir(_metadata, FX_WORK "/control", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_WORK "/bound");
	bind_mount(_metadata, FX_DIR, FX_WORK "/control");
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/bound/secret"));
	ASSERT_EQ(EACCES, test_read(FX_WORK "/bound/sub/deep"));
	ASSERT_EQ(0, test_read(FX_WORK "/control/file2"));
}

TEST_F(escapes, R3_R9_bindmount_dir_create)
{
	fx_make_dir(_metadata, FX_OTHER "/bound", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_OTHER "/bound");
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_creat(FX_OTHER "/bound/new"));
	ASSERT_EQ(EACCES, test_mkdir(FX_OTHER "/bound/newdir"));
	ASSERT_EQ(0, test_creat(FX_WORK "/new"));
}

TEST_F(escapes, R9_bindmount_file)
{
	bind_mount(_metadata, FX_SECRET, FX_FILE);
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_FILE));
	ASSERT_EQ(EACCES, test_open(FX_FILE, O_WRONLY));
	ASSERT_EQ(0, test_read(FX_FILE2));
}

TEST_F(escapes, R9_bindmount_subdir)
{
	fx_make_dir(_metadata, FX_OTHER "/sub", 0755);
	bind_mount(_metadata, FX_SUB, FX_OTHER "/sub");
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_OTHER "/sub/deep"));
	ASSERT_EQ(EACCES, test_unlink(FX_OTHER "/sub/deep"));
	ASSERT_EQ(0, test_creat(FX_WORK "/new"));
}

TEST_F(escapes, R9_bindmount_ancestor)
{
	fx_make_dir(_metadata, FX_WORK "/run", 0755);
	bind_mount(_metadata, FX_RUN, FX_WORK "/run");
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/run/jr2/secret"));
	ASSERT_EQ(EACCES, test_creat(FX_WORK "/run/jr2/new"));
	ASSERT_EQ(0, test_creat(FX_OTHER "/new"));
}

/* ---- .. walks ---- */

TEST_F(escapes, R9_dotdot_from_work)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_WORK "/../run/jr2/secret"));
	ASSERT_EQ(0, test_read(FX_WORK "/../other/../work/file"));
}

TEST_F(escapes, R9_dotdot_deep)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read(FX_DIR "/../../run/./jr2/sub/../secret"));
	ASSERT_EQ(0, test_read(FX_DIR "/../../repos/sub/../README"));
}

TEST_F(escapes, R9_dotdot_past_root)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read("/../../.." FX_SECRET));
	ASSERT_EQ(0, test_read("/../../.." FX_FILE));
}

TEST_F(escapes, R9_dotdot_relative_to_cwd)
{
	ES_CONFINE();
	ASSERT_EQ(0, test_chdir(FX_DIR));
	ASSERT_EQ(EACCES, test_read("../../run/jr2/secret"));
	ASSERT_EQ(es_write_denied(), test_creat("../../run/jr2/new"));
	ASSERT_EQ(0, test_read("../file"));
}

TEST_F(escapes, R9_dotdot_openat_dirfd)
{
	int dirfd;

	ES_CONFINE();
	dirfd = open(FX_WORK, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(EACCES, test_openat(dirfd, "../run/jr2/secret", O_RDONLY));
	ASSERT_EQ(0, test_openat(dirfd, "../other/../work/file", O_RDWR));
	close(dirfd);
}

/* ---- /proc links ---- */

/* A pipe whose ends are above fd 7 (the holder's dup2 target). */
static int pipe_above_7(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	for (int i = 0; i < 2; i++) {
		int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 8);

		if (moved < 0)
			return -1;
		close(fds[i]);
		fds[i] = moved;
	}
	return 0;
}

/*
 * An unconfined process (made before confinement) with its cwd in the
 * protected dir and the secret open as fd 7.  It ends with the test.  It
 * says when it is there (a byte on `ready`: no polling of its cwd).
 */
static pid_t holder(struct __test_metadata *_metadata)
{
	char cwd[PATH_MAX], link[64];
	int lifeline[2], ready[2];
	ssize_t len;
	pid_t pid;
	char byte;

	ASSERT_EQ(0, pipe_above_7(lifeline));
	ASSERT_EQ(0, pipe_above_7(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(FX_SECRET, O_RDONLY);

		close(lifeline[1]);
		close(ready[0]);
		if (fd < 0 || dup2(fd, 7) != 7 || chdir(FX_PROTECTED) ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		close(ready[1]);
		while (read(lifeline[0], &byte, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(lifeline[0]);
	close(ready[1]);
	es_keep(lifeline[1]);
	len = read(ready[0], &byte, 1);
	close(ready[0]);
	ASSERT_EQ(1, len)
	{
		TH_LOG("the holder process never reached '%s'", FX_PROTECTED);
	}
	/* The kernel agrees: its cwd is the protected dir. */
	snprintf(link, sizeof(link), "/proc/%d/cwd", pid);
	len = readlink(link, cwd, sizeof(cwd) - 1);
	ASSERT_LT(0, len);
	cwd[len] = '\0';
	ASSERT_STREQ(FX_PROTECTED, cwd);
	return pid;
}

static int test_read_proc(pid_t pid, const char *rest)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, rest);
	return test_read(path);
}

TEST_F(escapes, R9_proc_self_root)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read("/proc/self/root" FX_SECRET));
	ASSERT_EQ(EACCES, test_read("/proc/thread-self/root" FX_DEEP));
	ASSERT_EQ(0, test_read("/proc/self/root" FX_FILE));
}

TEST_F(escapes, R9_proc_self_cwd)
{
	ES_CONFINE();
	ASSERT_EQ(0, test_chdir(FX_PROTECTED));
	ASSERT_EQ(EACCES, test_read("/proc/self/cwd/secret"));
	ASSERT_EQ(EACCES, test_read("secret"));
	ASSERT_EQ(0, test_chdir(FX_WORK));
	ASSERT_EQ(0, test_read("/proc/self/cwd/file"));
}

TEST_F(escapes, R9_proc_pid_cwd_of_unconfined)
{
	pid_t pid = holder(_metadata);

	ASSERT_EQ(0, test_read_proc(pid, "cwd/secret")); /* unconfined */
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read_proc(pid, "cwd/secret"));
	ASSERT_EQ(EACCES, test_read_proc(pid, "cwd/sub/deep"));
}

TEST_F(escapes, R9_proc_pid_root_of_unconfined)
{
	pid_t pid = holder(_metadata);

	ASSERT_EQ(0, test_read_proc(pid, "root" FX_SECRET));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read_proc(pid, "root" FX_SECRET));
}

TEST_F(escapes, R9_proc_pid_fd_of_unconfined)
{
	pid_t pid = holder(_metadata);

	ASSERT_EQ(0, test_read_proc(pid, "fd/7"));
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_read_proc(pid, "fd/7"));
}

TEST_F(escapes, R9_proc_self_fd_reopen_opath)
{
	char path[64];
	int fd;

	ES_CONFINE();
	/* O_PATH opens nothing: Landlock lets it by, the reopen is checked. */
	fd = open(FX_SECRET, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(EACCES, test_open(path, O_RDONLY));
	ASSERT_EQ(es_write_denied(), test_open(path, O_WRONLY));
	close(fd);
	fd = open(FX_FILE, O_PATH | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(0, test_open(path, O_RDWR));
	close(fd);
}

TEST_F(escapes, R9_proc_self_fd_dir_path)
{
	char path[64];
	int fd = open(FX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	ES_CONFINE_HOLDING(fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/secret", fd);
	ASSERT_EQ(EACCES, test_read(path));
	snprintf(path, sizeof(path), "/proc/self/fd/%d/new", fd);
	ASSERT_EQ(EACCES, test_creat(path));
	close(fd);
}

TEST_F(escapes, O2_R9_proc_self_fd_reopen_rdwr)
{
	char path[64];
	int fd;

	ES_CONFINE();
	fd = open(FX_README, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(es_write_denied(), test_open(path, O_RDWR));
	ASSERT_EQ(0, test_open(path, O_RDONLY));
	close(fd);
}

/* ---- O_PATH then openat ---- */

TEST_F(escapes, R9_opath_dir_openat)
{
	int dirfd, control;

	ES_CONFINE();
	dirfd = open(FX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(EACCES, test_openat(dirfd, "secret", O_RDONLY));
	ASSERT_EQ(es_write_denied(),
		  test_openat(dirfd, "new", O_WRONLY | O_CREAT));
	close(dirfd);
	control = open(FX_WORK, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_EQ(0, test_openat(control, "file", O_RDWR));
	close(control);
}

TEST_F(escapes, R9_opath_fchdir)
{
	int dirfd;

	ES_CONFINE();
	dirfd = open(FX_SUB, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(0, fchdir(dirfd));
	ASSERT_EQ(EACCES, test_read("deep"));
	ASSERT_EQ(EACCES, test_read("../secret"));
	close(dirfd);
}

static int link_empty_path(int fd, const char *to)
{
	return linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH) ? errno : 0;
}

/* The same link by the descriptor's /proc/self/fd name: no capability. */
static int link_proc_fd(int fd, const char *to)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, path, AT_FDCWD, to, AT_SYMLINK_FOLLOW) ? errno
								       : 0;
}

TEST_F(escapes, R5_R9_opath_linkat_empty_path)
{
	int fd, control, control_err;

	ES_CONFINE();
	fd = open(FX_SECRET, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	control = open(FX_FILE, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, control);
	control_err = link_empty_path(control, FX_OTHER "/alias");
	if ((es.step || !fx_has_cap(CAP_DAC_READ_SEARCH)) &&
	    control_err == ENOENT) {
		/*
		 * Data from the control: this kernel (before 6.10) wants
		 * CAP_DAC_READ_SEARCH for AT_EMPTY_PATH, which the step drops
		 * (and a container profile's set lacks);
		 * the attempt fails the same way, and goes on by the name
		 * that needs no capability.
		 */
		ASSERT_EQ(ENOENT, link_empty_path(fd, FX_WORK "/stolen"));
		ASSERT_EQ(EXDEV, link_proc_fd(fd, FX_WORK "/stolen"));
		ASSERT_EQ(0, link_proc_fd(control, FX_OTHER "/alias"));
		return;
	}
	ASSERT_EQ(0, control_err);
	/* Only REFER is missing for a link out of it (or, under the step,
	   the read-only mount is left): EXDEV. */
	ASSERT_EQ(EXDEV, link_empty_path(fd, FX_WORK "/stolen"));
	ASSERT_EQ(EXDEV, link_proc_fd(fd, FX_WORK "/stolen"));
	close(fd);
	close(control);
}

/* ---- openat2 ---- */

static int test_openat2(int dirfd, const char *path, uint64_t flags,
			uint64_t resolve)
{
	struct open_how how = {.flags = flags | O_CLOEXEC, .resolve = resolve};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

TEST_F(escapes, R9_openat2_plain)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_openat2(AT_FDCWD, FX_SECRET, O_RDONLY, 0));
	ASSERT_EQ(0, test_openat2(AT_FDCWD, FX_FILE, O_RDWR, 0));
}

TEST_F(escapes, R9_openat2_resolve_beneath)
{
	int dirfd;

	ES_CONFINE();
	dirfd = open(FX_RUN, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(EACCES,
		  test_openat2(dirfd, "jr2/secret", O_RDONLY, RESOLVE_BENEATH));
	ASSERT_EQ(0, test_openat2(dirfd, "pid", O_RDWR, RESOLVE_BENEATH));
	close(dirfd);
}

TEST_F(escapes, R9_openat2_resolve_in_root)
{
	int dirfd;

	ES_CONFINE();
	dirfd = open(FX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(EACCES, test_openat2(dirfd, "/sub/../secret", O_RDONLY,
				       RESOLVE_IN_ROOT));
	close(dirfd);
	dirfd = open(FX_WORK, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_EQ(0,
		  test_openat2(dirfd, "/dir/file2", O_RDONLY, RESOLVE_IN_ROOT));
	close(dirfd);
}

TEST_F(escapes, R9_openat2_no_symlinks_no_xdev)
{
	const uint64_t strict =
	    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
	int dirfd;

	ES_CONFINE();
	/* From the tmpfs's top: the walk crosses no mount. */
	dirfd = open(FX_ROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	/* Under the step run/jr2 is a mount of its own: RESOLVE_NO_XDEV. */
	ASSERT_EQ(es_cross_denied(),
		  test_openat2(dirfd, "run/jr2/secret", O_RDONLY, strict));
	ASSERT_EQ(0, test_openat2(dirfd, "work/file", O_RDONLY, strict));
	close(dirfd);
}

TEST_F(escapes, R6_R9_openat2_o_trunc)
{
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(),
		  test_openat2(AT_FDCWD, FX_SECRET, O_WRONLY | O_TRUNC, 0));
	ASSERT_EQ(es_write_denied(),
		  test_openat2(AT_FDCWD, FX_README, O_RDONLY | O_TRUNC, 0));
	ASSERT_EQ(0, test_openat2(AT_FDCWD, FX_FILE, O_WRONLY | O_TRUNC, 0));
}

/* ---- io_uring (raw syscalls; where the kernel offers it) ---- */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* 0, or the errno of a kernel without io_uring (or with it disabled). */
static int ring_setup(struct ring *ring)
{
	struct io_uring_params params;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&params, 0, sizeof(params));
	ring->fd = (int)syscall(__NR_io_uring_setup, 4, &params);
	if (ring->fd < 0)
		return errno;
	sq_len = params.sq_off.array + params.sq_entries * sizeof(unsigned int);
	cq_len = params.cq_off.cqes +
		 params.cq_entries * sizeof(struct io_uring_cqe);
	if (params.features & IORING_FEAT_SINGLE_MMAP)
		sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return errno;
	cq = sq;
	if (!(params.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, ring->fd,
			  IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return errno;
	}
	ring->sqes = mmap(NULL, params.sq_entries * sizeof(*ring->sqes),
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  ring->fd, IORING_OFF_SQES);
	if (ring->sqes == MAP_FAILED)
		return errno;
	ring->sq_tail = (unsigned int *)(sq + params.sq_off.tail);
	ring->sq_mask = (unsigned int *)(sq + params.sq_off.ring_mask);
	ring->sq_array = (unsigned int *)(sq + params.sq_off.array);
	ring->cq_head = (unsigned int *)(cq + params.cq_off.head);
	ring->cq_tail = (unsigned int *)(cq + params.cq_off.tail);
	ring->cq_mask = (unsigned int *)(cq + params.cq_off.ring_mask);
	ring->cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
	return 0;
}

/* Submits one request and waits for it: its result (fd, 0 or -errno). */
static int ring_run(struct ring *ring, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *ring->sq_tail;
	unsigned int index = tail & *ring->sq_mask;
	unsigned int head;
	int res;

	ring->sqes[index] = *sqe;
	ring->sq_array[index] = index;
	__atomic_store_n(ring->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = __atomic_load_n(ring->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(ring->cq_tail, __ATOMIC_ACQUIRE))
		return -EIO;
	res = ring->cqes[head & *ring->cq_mask].res;
	__atomic_store_n(ring->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/* io_uring's openat: 0 (the fd closed) or the errno. */
static int ring_openat(struct ring *ring, const char *path, int flags)
{
	struct io_uring_sqe sqe = {.opcode = IORING_OP_OPENAT,
				   .fd = AT_FDCWD,
				   .addr = (uintptr_t)path,
				   .len = 0600,
				   .open_flags = flags | O_CLOEXEC};
	int res = ring_run(ring, &sqe);

	if (res >= 0) {
		close(res);
		return 0;
	}
	return -res;
}

/*
 * Sets up a ring before confinement (the library keeps it), or skips
 * naming the reason: the kernel's, or a seccomp filter's (a container
 * profile's refuses io_uring).  The step refuses a ring made outside the
 * domain (an io_uring acts with its maker's files and credentials:
 * descriptors_test.c): under the step the ring is made just after the
 * confinement, as a program makes its own.
 */
#define RING_SETUP(r)                                                          \
	do {                                                                   \
		int _err;                                                      \
		es.ring = (r);                                                 \
		if (es.step)                                                   \
			break;                                                 \
		_err = ring_setup(r);                                          \
		es_keep((r)->fd);                                              \
		if (_err)                                                      \
			SKIP(                                                  \
			    return,                                            \
				  "io_uring unavailable %s (io_uring_setup: "  \
				  "%s)",                                       \
				  fx_seccomp_mode() == 2                       \
				      ? "under this process's seccomp filter " \
					"(a container profile's refuses it)"   \
				      : "on this kernel",                      \
				  strerror(_err));                             \
	} while (0)

/* A control that says EINVAL: the kernel predates this operation. */
#define RING_REQUIRE_OP(res, name)                                             \
	do {                                                                   \
		if ((res) == EINVAL)                                           \
			SKIP(return, "io_uring %s unsupported by this kernel", \
				   name);                                      \
	} while (0)

TEST_F(escapes, R1_R9_iouring_openat_read)
{
	struct ring ring;

	RING_SETUP(&ring);
	ES_CONFINE();
	ASSERT_EQ(0, ring_openat(&ring, FX_FILE, O_RDONLY));
	ASSERT_EQ(EACCES, ring_openat(&ring, FX_SECRET, O_RDONLY));
}

TEST_F(escapes, R2_R9_iouring_openat_write)
{
	struct ring ring;

	RING_SETUP(&ring);
	ES_CONFINE();
	ASSERT_EQ(0, ring_openat(&ring, FX_FILE, O_WRONLY | O_APPEND));
	ASSERT_EQ(es_write_denied(),
		  ring_openat(&ring, FX_DEEP, O_WRONLY | O_APPEND));
}

TEST_F(escapes, R3_R9_iouring_openat_create)
{
	struct ring ring;

	RING_SETUP(&ring);
	ES_CONFINE();
	ASSERT_EQ(0, ring_openat(&ring, FX_WORK "/new", O_WRONLY | O_CREAT));
	ASSERT_EQ(es_write_denied(),
		  ring_openat(&ring, FX_PROTECTED "/new", O_WRONLY | O_CREAT));
}

TEST_F(escapes, R6_R9_iouring_openat_trunc)
{
	struct ring ring;

	RING_SETUP(&ring);
	ES_CONFINE();
	ASSERT_EQ(0, ring_openat(&ring, FX_FILE, O_WRONLY | O_TRUNC));
	ASSERT_EQ(es_write_denied(),
		  ring_openat(&ring, FX_SECRET, O_WRONLY | O_TRUNC));
	ASSERT_EQ(es_write_denied(),
		  ring_openat(&ring, FX_README, O_RDONLY | O_TRUNC));
}

TEST_F(escapes, R9_iouring_openat2)
{
	struct open_how how = {.flags = O_RDONLY | O_CLOEXEC};
	struct io_uring_sqe sqe = {.opcode = IORING_OP_OPENAT2,
				   .fd = AT_FDCWD,
				   .len = sizeof(how),
				   .addr2 = (uintptr_t)&how};
	struct ring ring;
	int res;

	RING_SETUP(&ring);
	ES_CONFINE();
	sqe.addr = (uintptr_t)FX_FILE;
	res = ring_run(&ring, &sqe);
	RING_REQUIRE_OP(-res, "openat2");
	ASSERT_LE(0, res);
	close(res);
	sqe.addr = (uintptr_t)FX_SECRET;
	ASSERT_EQ(-EACCES, ring_run(&ring, &sqe));
}

TEST_F(escapes, R4_R9_iouring_unlinkat)
{
	struct io_uring_sqe sqe = {.opcode = IORING_OP_UNLINKAT,
				   .fd = AT_FDCWD};
	struct ring ring;

	RING_SETUP(&ring);
	ES_CONFINE();
	sqe.addr = (uintptr_t)FX_FILE;
	RING_REQUIRE_OP(-ring_run(&ring, &sqe), "unlinkat");
	ASSERT_EQ(ENOENT, test_stat(FX_FILE));
	sqe.addr = (uintptr_t)FX_SECRET;
	ASSERT_EQ(-es_write_denied(), ring_run(&ring, &sqe));
}

TEST_F(escapes, R5_R9_iouring_renameat)
{
	struct io_uring_sqe sqe = {.opcode = IORING_OP_RENAMEAT,
				   .fd = AT_FDCWD,
				   .len = (__u32)AT_FDCWD};
	struct ring ring;
	int res;

	RING_SETUP(&ring);
	ES_CONFINE();
	sqe.addr = (uintptr_t)FX_FILE;
	sqe.addr2 = (uintptr_t)(FX_OTHER "/file");
	res = -ring_run(&ring, &sqe);
	RING_REQUIRE_OP(res, "renameat");
	ASSERT_EQ(0, res);
	sqe.addr = (uintptr_t)FX_SECRET;
	sqe.addr2 = (uintptr_t)(FX_WORK "/stolen");
	ASSERT_EQ(-es_cross_denied(), ring_run(&ring, &sqe));
}

TEST_F(escapes, R3_R9_iouring_mkdirat)
{
	struct io_uring_sqe sqe = {
	    .opcode = IORING_OP_MKDIRAT, .fd = AT_FDCWD, .len = 0700};
	struct ring ring;
	int res;

	RING_SETUP(&ring);
	ES_CONFINE();
	sqe.addr = (uintptr_t)(FX_WORK "/newdir");
	res = -ring_run(&ring, &sqe);
	RING_REQUIRE_OP(res, "mkdirat");
	ASSERT_EQ(0, res);
	sqe.addr = (uintptr_t)(FX_PROTECTED "/newdir");
	ASSERT_EQ(-es_write_denied(), ring_run(&ring, &sqe));
}

TEST_F(escapes, R5_R9_iouring_linkat)
{
	struct io_uring_sqe sqe = {
	    .opcode = IORING_OP_LINKAT, .fd = AT_FDCWD, .len = (__u32)AT_FDCWD};
	struct ring ring;
	int res;

	RING_SETUP(&ring);
	ES_CONFINE();
	sqe.addr = (uintptr_t)FX_FILE;
	sqe.addr2 = (uintptr_t)(FX_OTHER "/alias");
	res = -ring_run(&ring, &sqe);
	RING_REQUIRE_OP(res, "linkat");
	ASSERT_EQ(0, res);
	sqe.addr = (uintptr_t)FX_FILE;
	sqe.addr2 = (uintptr_t)(FX_PROTECTED "/planted");
	/* linkat makes the new name (on the read-only mount: EROFS) before it
	   compares the two mounts. */
	ASSERT_EQ(-es_write_denied(), ring_run(&ring, &sqe));
}

/* ---- file handles (name_to_handle_at + open_by_handle_at, as root) ---- */

struct handle {
	struct file_handle head;
	unsigned char bytes[MAX_HANDLE_SZ];
};

static void get_handle(struct __test_metadata *_metadata, const char *path,
		       struct handle *handle)
{
	int mount_id;

	handle->head.handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(
	    0, name_to_handle_at(AT_FDCWD, path, &handle->head, &mount_id, 0))
	{
		TH_LOG("name_to_handle_at '%s': %s", path, strerror(errno));
	}
}

static int test_open_by_handle(struct handle *handle, int flags)
{
	int mount_fd = open(FX_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd, err = 0;

	if (mount_fd < 0)
		return errno;
	fd = open_by_handle_at(mount_fd, &handle->head, flags | O_CLOEXEC);
	if (fd < 0)
		err = errno;
	else
		close(fd);
	close(mount_fd);
	return err;
}

TEST_F(escapes, R1_R9_handle_open_read)
{
	struct handle secret, control;

	get_handle(_metadata, FX_SECRET, &secret);
	get_handle(_metadata, FX_FILE, &control);
	FX_SKIP_WITHOUT_CAP(CAP_DAC_READ_SEARCH,
			    "the unconfined control's open_by_handle_at");
	ASSERT_EQ(0, test_open_by_handle(&secret, O_RDONLY)); /* unconfined */
	ES_CONFINE();
	ASSERT_EQ(es_cap_dropped(EACCES),
		  test_open_by_handle(&secret, O_RDONLY));
	ASSERT_EQ(es_cap_dropped(0), test_open_by_handle(&control, O_RDONLY));
}

TEST_F(escapes, R2_R9_handle_open_write)
{
	struct handle secret, control;

	get_handle(_metadata, FX_DEEP, &secret);
	get_handle(_metadata, FX_FILE2, &control);
	FX_SKIP_WITHOUT_CAP(CAP_DAC_READ_SEARCH,
			    "the unconfined control's open_by_handle_at");
	ASSERT_EQ(0, test_open_by_handle(&secret, O_WRONLY)); /* unconfined */
	ES_CONFINE();
	ASSERT_EQ(es_cap_dropped(EACCES),
		  test_open_by_handle(&secret, O_WRONLY));
	ASSERT_EQ(es_cap_dropped(0), test_open_by_handle(&control, O_WRONLY));
}

TEST_F(escapes, R6_R9_handle_open_trunc)
{
	struct handle secret, control;

	get_handle(_metadata, FX_SECRET, &secret);
	get_handle(_metadata, FX_FILE, &control);
	FX_SKIP_WITHOUT_CAP(CAP_DAC_READ_SEARCH,
			    "the unconfined control's open_by_handle_at");
	ASSERT_EQ(0, test_open_by_handle(&secret, O_RDONLY)); /* unconfined */
	ES_CONFINE();
	ASSERT_EQ(es_cap_dropped(EACCES),
		  test_open_by_handle(&secret, O_WRONLY | O_TRUNC));
	ASSERT_EQ(es_cap_dropped(0),
		  test_open_by_handle(&control, O_WRONLY | O_TRUNC));
}

TEST_F(escapes, R9_handle_of_protected_dir)
{
	struct handle dir;
	int mount_fd, dirfd;

	get_handle(_metadata, FX_PROTECTED, &dir);
	ES_CONFINE();
	mount_fd = open(FX_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mount_fd);
	/* Listing is allowed (R7); what is in it is not. */
	dirfd = open_by_handle_at(mount_fd, &dir.head,
				  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (es.step || !fx_has_cap(CAP_DAC_READ_SEARCH)) {
		/* No CAP_DAC_READ_SEARCH (the step drops it, a container
		   profile lacks it): no handle opens at all. */
		ASSERT_EQ(EPERM, dirfd < 0 ? errno : 0);
		ASSERT_EQ(EACCES, test_read(FX_SECRET));
		close(mount_fd);
		return;
	}
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(EACCES, test_openat(dirfd, "secret", O_RDONLY));
	ASSERT_EQ(EACCES, test_openat(dirfd, "new", O_WRONLY | O_CREAT));
	close(dirfd);
	close(mount_fd);
}

/* ---- renaming an ancestor ---- */

TEST_F(escapes, R5_R9_rename_ancestor_into_work)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_rename(FX_RUN, FX_WORK "/run"));
	ASSERT_EQ(ENOENT, test_stat(FX_WORK "/run"));
	ASSERT_EQ(0, test_rename(FX_DIR, FX_OTHER "/dir"));
}

TEST_F(escapes, R5_R9_rename_protected_into_work)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_rename(FX_PROTECTED, FX_WORK "/jr2"));
	ASSERT_EQ(es_cross_denied(), test_rename(FX_SUB, FX_WORK "/sub"));
	ASSERT_EQ(0, test_stat(FX_SECRET));
}

TEST_F(escapes, R5_R9_rename_over_ancestor)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_rename(FX_OTHER, FX_RUN));
	ASSERT_EQ(EACCES, test_rename(FX_DIR, FX_PROTECTED));
	ASSERT_EQ(0, test_stat(FX_SECRET));
}

TEST_F(escapes, R5_R9_rename_exchange_protected_with_work)
{
	ES_CONFINE();
	ASSERT_EQ(EACCES,
		  test_renameat2(FX_PROTECTED, FX_DIR, RENAME_EXCHANGE));
	ASSERT_EQ(EACCES, test_renameat2(FX_RUN, FX_OTHER, RENAME_EXCHANGE));
	ASSERT_EQ(0, test_renameat2(FX_FILE, FX_FILE2, RENAME_EXCHANGE));
}

/* ---- unshare + mount (P5), even as root ---- */

TEST_F(escapes, P5_R9_mount_bind_protected_after_unshare)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	/* Control: unconfined, the same bind works (and is undone). */
	bind_mount(_metadata, FX_DIR, FX_WORK "/bound");
	ASSERT_EQ(0, umount(FX_WORK "/bound"));
	ES_CONFINE();
	ASSERT_EQ(es_cap_dropped(0), unshare(CLONE_NEWNS) ? errno : 0);
	ASSERT_EQ(EPERM,
		  mount(FX_PROTECTED, FX_WORK "/bound", NULL, MS_BIND, NULL)
		      ? errno
		      : 0);
	ASSERT_EQ(ENOENT, test_stat(FX_WORK "/bound/secret"));
}

TEST_F(escapes, P5_R9_mount_tmpfs_over_protected)
{
	ES_CONFINE();
	ASSERT_EQ(EPERM,
		  mount("jr2", FX_PROTECTED, "tmpfs", 0, NULL) ? errno : 0);
	ASSERT_EQ(EPERM, mount("jr2", FX_WORK, "tmpfs", 0, NULL) ? errno : 0);
	ASSERT_EQ(0, test_stat(FX_SECRET));
}

TEST_F(escapes, P5_mount_umount)
{
	fx_make_dir(_metadata, FX_OTHER "/bound", 0755);
	bind_mount(_metadata, FX_DIR, FX_OTHER "/bound");
	ES_CONFINE();
	ASSERT_EQ(EPERM, umount2(FX_OTHER "/bound", MNT_DETACH) ? errno : 0);
	ASSERT_EQ(EPERM, umount2(FX_ROOT, MNT_DETACH) ? errno : 0);
	ASSERT_EQ(0, test_read(FX_OTHER "/bound/file2"));
}

TEST_F(escapes, P5_mount_remount)
{
	ES_CONFINE();
	ASSERT_EQ(EPERM, mount(NULL, FX_ROOT, NULL, MS_REMOUNT | MS_BIND, NULL)
			     ? errno
			     : 0);
	ASSERT_EQ(EPERM,
		  mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL) ? errno : 0);
}

TEST_F(escapes, P5_mount_pivot_root)
{
	fx_make_dir(_metadata, FX_WORK "/new-root", 0755);
	fx_make_dir(_metadata, FX_WORK "/new-root/old", 0755);
	bind_mount(_metadata, FX_WORK "/new-root", FX_WORK "/new-root");
	ES_CONFINE();
	ASSERT_EQ(EPERM, syscall(SYS_pivot_root, FX_WORK "/new-root",
				 FX_WORK "/new-root/old")
			     ? errno
			     : 0);
	ASSERT_EQ(0, test_read(FX_FILE));
}

TEST_F(escapes, P5_R9_mount_move_mount_clone)
{
	int tree;

	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	ES_CONFINE();
	tree = (int)syscall(SYS_open_tree, AT_FDCWD, FX_PROTECTED,
			    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0) {
		/* Cloning a tree is itself a mount operation. */
		ASSERT_EQ(EPERM, errno);
		return;
	}
	ASSERT_EQ(EPERM, syscall(SYS_move_mount, tree, "", AT_FDCWD,
				 FX_WORK "/bound", MOVE_MOUNT_F_EMPTY_PATH)
			     ? errno
			     : 0);
	close(tree);
	ASSERT_EQ(ENOENT, test_stat(FX_WORK "/bound/secret"));
}

TEST_F(escapes, P5_mount_in_new_user_namespace)
{
	ES_CONFINE();
	ASSERT_EQ(0, unshare(CLONE_NEWUSER | CLONE_NEWNS))
	{
		TH_LOG("unshare(CLONE_NEWUSER): %s: the kernel needs "
		       "CONFIG_USER_NS (selftests/config)",
		       strerror(errno));
	}
	ASSERT_EQ(EPERM, mount("jr2", FX_WORK, "tmpfs", 0, NULL) ? errno : 0);
	ASSERT_EQ(EPERM, mount(FX_PROTECTED, FX_WORK, NULL, MS_BIND, NULL)
			     ? errno
			     : 0);
}

/* ---- chroot ---- */

TEST_F(escapes, R9_chroot_into_protected_dir)
{
	ES_CONFINE();
	/* Landlock does not hook chroot; the new root changes no rule.
	   Without CAP_SYS_CHROOT (a container profile's set) no chroot. */
	ASSERT_EQ(fx_errno_without(CAP_SYS_CHROOT, EPERM),
		  chroot(FX_PROTECTED) ? errno : 0);
	if (!fx_has_cap(CAP_SYS_CHROOT))
		return;
	ASSERT_EQ(0, test_chdir("/"));
	ASSERT_EQ(EACCES, test_read("/secret"));
	ASSERT_EQ(es_write_denied(), test_creat("/new"));
	ASSERT_EQ(0, test_list("/", NULL));
}

TEST_F(escapes, R9_chroot_then_break_out)
{
	int old_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	ASSERT_LE(0, es_keep(old_root));
	ES_CONFINE();
	/* Without CAP_SYS_CHROOT (a container profile's set) no chroot. */
	ASSERT_EQ(fx_errno_without(CAP_SYS_CHROOT, EPERM),
		  chroot(FX_WORK) ? errno : 0);
	if (!fx_has_cap(CAP_SYS_CHROOT))
		return;
	ASSERT_EQ(0, test_read("/file"));
	ASSERT_EQ(0, fchdir(old_root));
	ASSERT_EQ(EACCES, test_read("." FX_SECRET));
	ASSERT_EQ(EACCES, test_read("../../../.." FX_SECRET));
	close(old_root);
}

/* ---- inherited and passed descriptors ---- */

TEST_F(escapes, R9_fd_inherited_dir_openat)
{
	int dirfd = open(FX_PROTECTED, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ASSERT_LE(0, dirfd);
	ES_CONFINE_HOLDING(dirfd);
	ASSERT_EQ(EACCES, test_openat(dirfd, "secret", O_RDONLY));
	ASSERT_EQ(EACCES, test_openat(dirfd, "sub/deep", O_RDWR));
	ASSERT_EQ(EACCES, mkdirat(dirfd, "new", 0700) ? errno : 0);
	ASSERT_EQ(EACCES, unlinkat(dirfd, "secret", 0) ? errno : 0);
	close(dirfd);
}

TEST_F(escapes, R9_fd_inherited_dir_fchdir)
{
	int dirfd = open(FX_PROTECTED, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ASSERT_LE(0, dirfd);
	ES_CONFINE_HOLDING(dirfd);
	ASSERT_EQ(0, fchdir(dirfd));
	ASSERT_EQ(EACCES, test_read("secret"));
	ASSERT_EQ(EACCES, test_creat("new"));
	ASSERT_EQ(0, test_read("../pid"));
	close(dirfd);
}

/*
 * An unconfined child that, after the test confined itself, opens `path`
 * with `flags` and passes the descriptor: the fd the test receives.
 */
/*
 * waitpid of a child made before confinement: under the step it is the
 * child of the parent the step's fork left behind (ECHILD here).
 */
static pid_t es_reaped(pid_t pid)
{
	return es.step ? -1 : pid;
}

/*
 * Whether a descriptor sent to a socket kept across the confinement is
 * refused to its sender: under the step, where the kernel has
 * SO_PASSRIGHTS (probed before the confinement, es.has_passrights), the
 * step turns it off on every unix socket it passes (descriptors_test.c).
 */
static bool es_rights_refused(void)
{
	return es.step && es.has_passrights;
}

static int passed_fd(struct __test_metadata *_metadata, int sock[2],
		     const char *path, int flags)
{
	pid_t pid = fork();
	char go;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		close(sock[0]);
		if (read(sock[1], &go, 1) != 1)
			_exit(1);
		fd = open(path, flags | O_CLOEXEC);
		_exit(fd < 0 || fx_send_fd(sock[1], fd) ? 1 : 0);
	}
	close(sock[1]);
	return pid;
}

TEST_F(escapes, R9_fd_passed_dir_openat)
{
	int sock[2], dirfd, status;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock));
	pid = passed_fd(_metadata, sock, FX_PROTECTED, O_RDONLY | O_DIRECTORY);
	es_keep(sock[0]);
	ES_CONFINE();
	ASSERT_EQ(1, write(sock[0], "g", 1));
	dirfd = fx_recv_fd(sock[0]);
	if (es_rights_refused()) {
		ASSERT_EQ(-1, dirfd); /* the sender got EPERM */
		return;
	}
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(es_reaped(pid), waitpid(pid, &status, 0));
	ASSERT_EQ(EACCES, test_openat(dirfd, "secret", O_RDONLY));
	ASSERT_EQ(EACCES, test_openat(dirfd, "new", O_WRONLY | O_CREAT));
	ASSERT_EQ(0, test_openat(dirfd, "..", O_RDONLY | O_DIRECTORY));
	close(dirfd);
}

TEST_F(escapes, R6_R9_fd_passed_file_reopen_write)
{
	int sock[2], fd, status;
	char path[64];
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock));
	pid = passed_fd(_metadata, sock, FX_SECRET, O_RDONLY);
	es_keep(sock[0]);
	ES_CONFINE();
	ASSERT_EQ(1, write(sock[0], "g", 1));
	fd = fx_recv_fd(sock[0]);
	if (es_rights_refused()) {
		ASSERT_EQ(-1, fd); /* the sender got EPERM */
		return;
	}
	ASSERT_LE(0, fd);
	ASSERT_EQ(es_reaped(pid), waitpid(pid, &status, 0));
	/* A read-only fd passed on purpose: it cannot become more. */
	ASSERT_EQ(EINVAL, test_ftruncate(fd, 0));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(EACCES, test_open(path, O_RDWR));
	ASSERT_EQ(EACCES, test_open(path, O_WRONLY | O_TRUNC));
	close(fd);
}

/* ---- FIFO and socket creation by side paths ---- */

TEST_F(escapes, R3_R9_fifo_via_symlinked_dir)
{
	ASSERT_EQ(0, test_symlink(FX_PROTECTED, FX_WORK "/jr2"));
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(),
		  test_mknod(FX_WORK "/jr2/fifo", S_IFIFO | 0600, 0));
	ASSERT_EQ(0, test_mknod(FX_WORK "/fifo", S_IFIFO | 0600, 0));
}

TEST_F(escapes, R3_R9_fifo_via_dirfd)
{
	int dirfd = open(FX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int control = open(FX_WORK, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ASSERT_LE(0, dirfd);
	es_keep(control);
	ES_CONFINE_HOLDING(dirfd);
	ASSERT_EQ(EACCES, mkfifoat(dirfd, "fifo", 0600) ? errno : 0);
	ASSERT_EQ(0, mkfifoat(control, "fifo", 0600) ? errno : 0);
	close(dirfd);
	close(control);
}

TEST_F(escapes, R3_R9_socket_bind_via_proc_fd)
{
	int dirfd = open(FX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC);
	char path[64];

	ASSERT_LE(0, dirfd);
	ES_CONFINE_HOLDING(dirfd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/sock", dirfd);
	ASSERT_EQ(EACCES, test_bind_unix(path));
	ASSERT_EQ(0, test_bind_unix(FX_WORK "/sock"));
	close(dirfd);
}

TEST_F(escapes, R3_R9_socket_bind_via_dotdot)
{
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(),
		  test_bind_unix(FX_WORK "/../run/jr2/sock"));
	ASSERT_EQ(0, test_bind_unix(FX_WORK "/../other/sock"));
}

TEST_F(escapes, R3_R9_socket_bind_via_bindmount)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_WORK "/bound");
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_bind_unix(FX_WORK "/bound/sock"));
	ASSERT_EQ(0, test_bind_unix(FX_OTHER "/sock"));
}

/*
 * ---- ptrace, process_vm_readv, /proc/<pid>/mem across the domain ----
 * The process made before confinement stands for the Harness: unconfined,
 * on the parent's side of the domain (P1).
 */

/*
 * The positive control of tracing: a child made inside the domain, traced
 * by its parent.  Yama decides it (data, never the kernel's name): scope 3
 * allows no attach at all; scope 2 needs CAP_SYS_PTRACE, which the step
 * drops (the library leaves it).  Then only the control skips, after the
 * denial was asserted, naming Yama and its value.
 */
#define ES_REQUIRE_TRACING_CONTROL()                                          \
	do {                                                                  \
		int _scope = jr2_yama_ptrace_scope();                         \
		if (_scope >= 3 || (_scope == 2 && es.step))                  \
			SKIP(return,                                          \
				   "Yama's ptrace_scope is %d: %s, so the "   \
				   "positive control (tracing a child in "    \
				   "the domain) cannot run",                  \
				   _scope,                                    \
				   _scope >= 3 ? "no attach at all"           \
					       : "tracing needs "             \
						 "CAP_SYS_PTRACE, which the " \
						 "step drops");               \
	} while (0)

static int test_ptrace(long request, pid_t pid)
{
	if (ptrace(request, pid, NULL, NULL))
		return errno;
	if (request == PTRACE_ATTACH)
		waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return 0;
}

TEST_F(escapes, P1_R9_ptrace_attach_outside_domain)
{
	pid_t outside = es_lifeline_child(_metadata), inside;

	ES_CONFINE();
	ASSERT_EQ(EPERM, test_ptrace(PTRACE_ATTACH, outside));
	ES_REQUIRE_TRACING_CONTROL();
	inside = es_lifeline_child(_metadata);
	ASSERT_EQ(0, test_ptrace(PTRACE_ATTACH, inside));
}

TEST_F(escapes, P1_R9_ptrace_seize_outside_domain)
{
	pid_t outside = es_lifeline_child(_metadata), inside;

	ES_CONFINE();
	ASSERT_EQ(EPERM, test_ptrace(PTRACE_SEIZE, outside));
	ES_REQUIRE_TRACING_CONTROL();
	inside = es_lifeline_child(_metadata);
	ASSERT_EQ(0, test_ptrace(PTRACE_SEIZE, inside));
}

TEST_F(escapes, P1_R9_ptrace_attach_parent)
{
	pid_t parent = getppid(); /* the harness runner: unconfined */

	ES_CONFINE();
	ASSERT_EQ(EPERM, test_ptrace(PTRACE_ATTACH, parent));
}

static int test_proc_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	return test_open(path, O_RDONLY);
}

TEST_F(escapes, P1_R9_procmem_outside_domain)
{
	pid_t outside = es_lifeline_child(_metadata), inside;

	ES_CONFINE();
	ASSERT_EQ(EACCES, test_proc_mem(outside));
	ES_REQUIRE_TRACING_CONTROL();
	inside = es_lifeline_child(_metadata);
	ASSERT_EQ(0, test_proc_mem(inside));
}

static int test_vm_readv(pid_t pid, void *addr)
{
	char buf[8];
	struct iovec local = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct iovec remote = {.iov_base = addr, .iov_len = sizeof(buf)};

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0 ? errno : 0;
}

TEST_F(escapes, P1_R9_vmreadv_outside_domain)
{
	/* Both children are forks of this test: the address is theirs too. */
	static char marker[8] = "marker";
	pid_t outside = es_lifeline_child(_metadata), inside;

	ES_CONFINE();
	ASSERT_EQ(EPERM, test_vm_readv(outside, marker));
	ES_REQUIRE_TRACING_CONTROL();
	inside = es_lifeline_child(_metadata);
	ASSERT_EQ(0, test_vm_readv(inside, marker));
}

/* ---- a nested ruleset trying to widen access (P6) ---- */

/* Adds a ruleset of its own: handles `handled`, grants `granted` on path. */
static int nested_restrict(const char *path, uint64_t handled, uint64_t granted)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs = handled};
	struct jr2_path_beneath_attr rule = {.allowed_access = granted};
	int ruleset, err = 0;

	ruleset = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0);
	if (ruleset < 0)
		return errno;
	rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0 ||
	    jr2_sys_add_rule(ruleset, JR2_RULE_PATH_BENEATH, &rule, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_sys_restrict_self(ruleset, 0))
		err = errno;
	if (rule.parent_fd >= 0)
		close(rule.parent_fd);
	close(ruleset);
	return err;
}

TEST_F(escapes, P6_R9_nested_grants_protected_dir)
{
	const uint64_t rw = JR2_ACCESS_FS_READ_FILE | JR2_ACCESS_FS_WRITE_FILE;

	ES_CONFINE();
	ASSERT_EQ(0, nested_restrict(FX_PROTECTED, rw, rw));
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
	ASSERT_EQ(es_write_denied(), test_open(FX_SECRET, O_WRONLY));
	/* The nested layer now denies what it handles outside its rule. */
	ASSERT_EQ(EACCES, test_read(FX_FILE));
}

TEST_F(escapes, P6_R9_nested_grants_root_everything)
{
	const uint64_t all = jr2_abi_fs_rights(self->fx.abi.in_force);

	ES_CONFINE();
	ASSERT_EQ(0, nested_restrict("/", all, all));
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
	ASSERT_EQ(es_write_denied(), test_creat(FX_PROTECTED "/new"));
	ASSERT_EQ(es_write_denied(), test_truncate(FX_README, 0));
	ASSERT_EQ(0, test_read(FX_FILE));
}

/* `sh -c` that exits 0 when it can open `path` for reading, else 9. */
#define READ_SCRIPT(path) \
	"if (exec 3< " path ") 2>/dev/null; then exit 0; fi; exit 9"

TEST_F(escapes, P6_R9_nested_survives_exec)
{
	char *const secret[] = {"/bin/sh", "-c", READ_SCRIPT(FX_SECRET), NULL};
	char *const control[] = {"/bin/sh", "-c", READ_SCRIPT(FX_FILE), NULL};
	const uint64_t all = jr2_abi_fs_rights(self->fx.abi.in_force);
	int status = -1;

	ES_CONFINE();
	ASSERT_EQ(0, nested_restrict("/", all, all));
	ASSERT_EQ(0, test_execve("/bin/sh", secret, &status));
	ASSERT_EQ(9, status);
	ASSERT_EQ(0, test_execve("/bin/sh", control, &status));
	ASSERT_EQ(0, status);
}

/* ---- truncate by every side path ---- */

TEST_F(escapes, R6_R9_truncate_via_symlink)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_WORK "/link"));
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(), test_truncate(FX_WORK "/link", 0));
	ASSERT_EQ(es_write_denied(),
		  test_open(FX_WORK "/link", O_WRONLY | O_TRUNC));
	ASSERT_EQ(0, test_truncate(FX_FILE, 0));
}

TEST_F(escapes, R6_R9_truncate_via_bindmount)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_WORK "/bound");
	ES_CONFINE();
	ASSERT_EQ(EACCES, test_truncate(FX_WORK "/bound/secret", 0));
	ASSERT_EQ(EACCES, test_creat(FX_WORK "/bound/secret"));
	ASSERT_EQ(0, test_creat(FX_OTHER "/new"));
}

TEST_F(escapes, R6_R9_truncate_via_dotdot)
{
	ES_CONFINE();
	ASSERT_EQ(es_write_denied(),
		  test_truncate(FX_WORK "/../run/jr2/secret", 0));
	ASSERT_EQ(es_write_denied(),
		  test_open(FX_DIR "/../../run/jr2/secret", O_RDWR | O_TRUNC));
	ASSERT_EQ(0, test_truncate(FX_DIR "/../file", 0));
}

TEST_F(escapes, R6_R9_truncate_via_proc_fd_reopen)
{
	char path[64];
	int fd;

	ES_CONFINE();
	fd = open(FX_SECRET, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(es_write_denied(), test_truncate(path, 0));
	ASSERT_EQ(es_write_denied(), test_open(path, O_WRONLY | O_TRUNC));
	close(fd);
}

TEST_F(escapes, R6_R9_truncate_via_opath_dirfd)
{
	int dirfd;

	ES_CONFINE();
	dirfd = open(FX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	ASSERT_EQ(es_write_denied(),
		  test_openat(dirfd, "secret", O_WRONLY | O_TRUNC));
	ASSERT_EQ(es_write_denied(),
		  test_openat(dirfd, "secret", O_RDONLY | O_TRUNC));
	close(dirfd);
}

/*
 * ---- the same attempts through the real programs ----
 * escapes_paths.run.*   jr2-try under `jr2-confine run`, ways.h's policy
 * escapes_paths.exec.*  jr2-try under `jr2-harness exec`, the harness
 *                       started with the same policy
 * Both on ways.h's tree (the fixture's on /tmp), drawn before confinement
 * (symlinks, bind mounts, processes), then the harness starts.  Every
 * attempt jr2-try can express (a verb on a path, from a cwd) is here, named
 * as in `escapes`; the others need the confined process's own state across
 * confinement (an O_PATH descriptor or an io_uring ring opened confined, a
 * file handle, a nested ruleset, a mount or chroot call, openat2 flags, a
 * child of its own to trace) and run under the step variant above, which is
 * what both programs do before execve.
 */
/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
FIXTURE(escapes_paths)
{
	struct way way;
	const char *write_denied; /* EROFS where the read-only mounts hold */
};

FIXTURE_VARIANT(escapes_paths)
{
	enum way_path path;
};
/* clang-format on */

FIXTURE_VARIANT_ADD(escapes_paths, run){.path = WAY_RUN};
FIXTURE_VARIANT_ADD(escapes_paths, exec){.path = WAY_EXEC};

FIXTURE_SETUP(escapes_paths)
{
	memset(&es, 0, sizeof(es));
	way_setup(_metadata, &self->way);
}

FIXTURE_TEARDOWN(escapes_paths)
{
	hx_stop(&self->way.hx);
}

/*
 * Confines by the variant's path: starts the harness (exec), or skips where
 * the runtime refuses this ABI (run); then reads what a denied write in a
 * restricted dir gives by that path (way_write_denied).
 */
#define ES_WAY_CONFINE()                                         \
	do {                                                     \
		WAY_CONFINE(&self->way, variant->path);          \
		self->write_denied =                             \
		    way_write_denied(&self->way, variant->path); \
	} while (0)

/* jr2-try VERB ARG... by the variant's path: its first word. */
#define ES_TRY(...) WAY_TRY(&self->way, variant->path, __VA_ARGS__)
/* The same, started in `dir`. */
#define ES_TRY_IN(dir, ...) \
	WAY_TRY_IN(&self->way, variant->path, dir, __VA_ARGS__)

/* A rename out of a read-only mount: EXDEV where it holds, else Landlock. */
#define ES_CROSS_DENIED \
	(strcmp(self->write_denied, "EROFS") ? "EACCES" : "EXDEV")

TEST_F(escapes_paths, R9_symlink_absolute)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_WORK "/link"));
	ASSERT_EQ(0, test_symlink(FX_FILE2, FX_WORK "/control"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/link"));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_WORK "/control"));
}

TEST_F(escapes_paths, R9_symlink_relative)
{
	ASSERT_EQ(0, test_symlink("../run/jr2/secret", FX_WORK "/link"));
	ASSERT_EQ(0, test_symlink("../other", FX_WORK "/control"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/link"));
	ASSERT_STREQ("ok", ES_TRY("creat", FX_WORK "/control/new"));
}

TEST_F(escapes_paths, R9_symlink_chained)
{
	ASSERT_EQ(0, test_symlink(FX_OTHER "/b", FX_WORK "/a"));
	ASSERT_EQ(0, test_symlink("../run/jr2", FX_OTHER "/b"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/a/secret"));
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/a/sub/deep"));
	ASSERT_STREQ("ok", ES_TRY("list", FX_WORK "/a")); /* R7: names only */
}

TEST_F(escapes_paths, R9_symlink_to_protected_dir)
{
	ASSERT_EQ(0, test_symlink(FX_PROTECTED, FX_WORK "/jr2"));
	ES_WAY_CONFINE();
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("open-write", FX_WORK "/jr2/secret"));
	ASSERT_STREQ(self->write_denied, ES_TRY("creat", FX_WORK "/jr2/new"));
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("unlink", FX_WORK "/jr2/secret"));
	ASSERT_STREQ("ok", ES_TRY("unlink", FX_WORK "/jr2")); /* the link */
}

/* Each step is a program of its own: the link changes between them. */
TEST_F(escapes_paths, R9_symlink_swapped_after_rules)
{
	ASSERT_EQ(0, test_symlink(FX_DIR, FX_WORK "/link"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_WORK "/link/file2"));
	ASSERT_STREQ("ok", ES_TRY("unlink", FX_WORK "/link"));
	ASSERT_STREQ("ok", ES_TRY("symlink", FX_PROTECTED, FX_WORK "/link"));
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/link/secret"));
}

TEST_F(escapes_paths, R9_symlink_made_confined)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("ok", ES_TRY("symlink", FX_SECRET, FX_OTHER "/link"));
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_OTHER "/link"));
	ASSERT_STREQ("ok", ES_TRY("symlink", FX_FILE, FX_OTHER "/control"));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_OTHER "/control"));
}

TEST_F(escapes_paths, R9_symlink_in_read_only_tree)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_REPOS "/link"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_REPOS "/link"));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_README));
}

TEST_F(escapes_paths, R2_R9_symlink_write_through)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_WORK "/link"));
	ES_WAY_CONFINE();
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("open-append", FX_WORK "/link"));
	ASSERT_STREQ("ok", ES_TRY("open-append", FX_FILE));
}

TEST_F(escapes_paths, R9_symlink_to_proc_self_root)
{
	ASSERT_EQ(0, test_symlink("/proc/self/root", FX_WORK "/root"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/root" FX_SECRET));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_WORK "/root" FX_FILE2));
}

/*
 * Hard links made before confinement: the runtime refuses to confine,
 * naming the file (run exits 125 before the program; the harness does not
 * start, or its spawner runs nothing), or the name is denied.  A reachable
 * file is the one outcome that fails.
 */
static void es_linked(struct __test_metadata *_metadata, struct way *way,
		      enum way_path path, const char *linked, const char *verb,
		      const char *file)
{
	const char *const argv[] = {verb, file, NULL};
	char out[WAY_OUT_SIZE], log[HX_OUT_SIZE];
	int status;

	if (!fx_accepted(&way->hx.abi))
		return; /* the caller skips */
	if (path == WAY_EXEC && way_start(_metadata, way)) {
		hx_log(log, sizeof(log));
		ASSERT_NE(NULL, strstr(log, linked))
		{
			TH_LOG("refused, but not for '%s': %s", linked, log);
		}
		return;
	}
	status = way_try(way, path, argv, out, sizeof(out));
	if (status == JR2_EXIT_REFUSED) {
		ASSERT_NE(NULL, strstr(out, linked))
		{
			TH_LOG("refused, but not for '%s': %s", linked, out);
		}
		return;
	}
	out[strcspn(out, " \n")] = '\0';
	ASSERT_STREQ("EACCES", out);
}

TEST_F(escapes_paths, R9_hardlink_made_before_read)
{
	HX_REQUIRE_ACCEPTED(&self->way.hx);
	ASSERT_EQ(0, test_link(FX_SECRET, FX_WORK "/hard"));
	es_linked(_metadata, &self->way, variant->path, FX_SECRET, "read-file",
		  FX_WORK "/hard");
}

TEST_F(escapes_paths, R2_R9_hardlink_made_before_write)
{
	HX_REQUIRE_ACCEPTED(&self->way.hx);
	ASSERT_EQ(0, test_link(FX_DEEP, FX_OTHER "/hard"));
	es_linked(_metadata, &self->way, variant->path, FX_DEEP, "open-write",
		  FX_OTHER "/hard");
}

TEST_F(escapes_paths, R6_R9_hardlink_made_before_truncate)
{
	HX_REQUIRE_ACCEPTED(&self->way.hx);
	ASSERT_EQ(0, test_link(FX_SECRET, FX_WORK "/hard"));
	es_linked(_metadata, &self->way, variant->path, FX_SECRET, "truncate",
		  FX_WORK "/hard");
}

/* Both names inside: nothing to refuse, both denied; control: a program
 * runs. */
TEST_F(escapes_paths, R9_hardlink_inside_protected_dir_is_fine)
{
	ASSERT_EQ(0, test_link(FX_SECRET, FX_SUB "/again"));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_SUB "/again"));
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_SECRET));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_FILE));
}

TEST_F(escapes_paths, R9_bindmount_dir_read)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	fx_make_dir(_metadata, FX_WORK "/control", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_WORK "/bound");
	bind_mount(_metadata, FX_DIR, FX_WORK "/control");
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/bound/secret"));
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/bound/sub/deep"));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_WORK "/control/file2"));
}

/* Another mount of the protected dir is not the read-only one: Landlock. */
TEST_F(escapes_paths, R3_R9_bindmount_dir_create)
{
	fx_make_dir(_metadata, FX_OTHER "/bound", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_OTHER "/bound");
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("creat", FX_OTHER "/bound/new"));
	ASSERT_STREQ("EACCES", ES_TRY("mkdir", FX_OTHER "/bound/newdir"));
	ASSERT_STREQ("ok", ES_TRY("creat", FX_WORK "/new"));
}

TEST_F(escapes_paths, R9_bindmount_file)
{
	bind_mount(_metadata, FX_SECRET, FX_FILE);
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_FILE));
	ASSERT_STREQ("EACCES", ES_TRY("open-write", FX_FILE));
	ASSERT_STREQ("ok", ES_TRY("read-file", FX_FILE2));
}

TEST_F(escapes_paths, R9_bindmount_subdir)
{
	fx_make_dir(_metadata, FX_OTHER "/sub", 0755);
	bind_mount(_metadata, FX_SUB, FX_OTHER "/sub");
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_OTHER "/sub/deep"));
	ASSERT_STREQ("EACCES", ES_TRY("unlink", FX_OTHER "/sub/deep"));
	ASSERT_STREQ("ok", ES_TRY("creat", FX_WORK "/new"));
}

TEST_F(escapes_paths, R9_bindmount_ancestor)
{
	fx_make_dir(_metadata, FX_WORK "/run", 0755);
	bind_mount(_metadata, FX_RUN, FX_WORK "/run");
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", FX_WORK "/run/jr2/secret"));
	ASSERT_STREQ("EACCES", ES_TRY("creat", FX_WORK "/run/jr2/new"));
	ASSERT_STREQ("ok", ES_TRY("creat", FX_OTHER "/new"));
}

TEST_F(escapes_paths, R9_dotdot_from_work)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES",
		     ES_TRY("read-file", FX_WORK "/../run/jr2/secret"));
	ASSERT_STREQ("ok",
		     ES_TRY("read-file", FX_WORK "/../other/../work/file"));
}

TEST_F(escapes_paths, R9_dotdot_deep)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file",
				      FX_DIR "/../../run/./jr2/sub/../secret"));
	ASSERT_STREQ("ok",
		     ES_TRY("read-file", FX_DIR "/../../repos/sub/../README"));
}

TEST_F(escapes_paths, R9_dotdot_past_root)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", "/../../.." FX_SECRET));
	ASSERT_STREQ("ok", ES_TRY("read-file", "/../../.." FX_FILE));
}

TEST_F(escapes_paths, R9_dotdot_relative_to_cwd)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES",
		     ES_TRY_IN(FX_DIR, "read-file", "../../run/jr2/secret"));
	ASSERT_STREQ(self->write_denied,
		     ES_TRY_IN(FX_DIR, "creat", "../../run/jr2/new"));
	ASSERT_STREQ("ok", ES_TRY_IN(FX_DIR, "read-file", "../file"));
}

TEST_F(escapes_paths, R9_proc_self_root)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES",
		     ES_TRY("read-file", "/proc/self/root" FX_SECRET));
	ASSERT_STREQ("EACCES",
		     ES_TRY("read-file", "/proc/thread-self/root" FX_DEEP));
	ASSERT_STREQ("ok", ES_TRY("read-file", "/proc/self/root" FX_FILE));
}

/* The program starts with its cwd in the protected dir (run's, --cwd). */
TEST_F(escapes_paths, R9_proc_self_cwd)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY_IN(FX_PROTECTED, "read-file",
					 "/proc/self/cwd/secret"));
	ASSERT_STREQ("EACCES", ES_TRY_IN(FX_PROTECTED, "read-file", "secret"));
	ASSERT_STREQ("ok",
		     ES_TRY_IN(FX_WORK, "read-file", "/proc/self/cwd/file"));
}

/* A process outside the domain with its cwd in the protected dir. */
static const char *es_proc(pid_t pid, const char *rest, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/%d/%s", pid, rest);
	return buf;
}

TEST_F(escapes_paths, R9_proc_pid_cwd_of_unconfined)
{
	pid_t pid = holder(_metadata);
	char path[PATH_MAX];

	ASSERT_STREQ("ok",
		     WAY_TRY(&self->way, WAY_UNCONFINED, "read-file",
			     es_proc(pid, "cwd/secret", path, sizeof(path))));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES",
		     ES_TRY("read-file",
			    es_proc(pid, "cwd/secret", path, sizeof(path))));
	ASSERT_STREQ("EACCES",
		     ES_TRY("read-file",
			    es_proc(pid, "cwd/sub/deep", path, sizeof(path))));
}

TEST_F(escapes_paths, R9_proc_pid_root_of_unconfined)
{
	pid_t pid = holder(_metadata);
	char path[PATH_MAX];

	es_proc(pid, "root" FX_SECRET, path, sizeof(path));
	ASSERT_STREQ("ok",
		     WAY_TRY(&self->way, WAY_UNCONFINED, "read-file", path));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", path));
}

TEST_F(escapes_paths, R9_proc_pid_fd_of_unconfined)
{
	pid_t pid = holder(_metadata);
	char path[PATH_MAX];

	es_proc(pid, "fd/7", path, sizeof(path));
	ASSERT_STREQ("ok",
		     WAY_TRY(&self->way, WAY_UNCONFINED, "read-file", path));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("read-file", path));
}

TEST_F(escapes_paths, R5_R9_rename_ancestor_into_work)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("rename", FX_RUN, FX_WORK "/run"));
	ASSERT_EQ(ENOENT, test_stat(FX_WORK "/run"));
	ASSERT_STREQ("ok", ES_TRY("rename", FX_DIR, FX_OTHER "/dir"));
}

TEST_F(escapes_paths, R5_R9_rename_protected_into_work)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("rename", FX_PROTECTED, FX_WORK "/jr2"));
	/* From inside the read-only mount: EXDEV where it holds. */
	ASSERT_STREQ(ES_CROSS_DENIED, ES_TRY("rename", FX_SUB, FX_WORK "/sub"));
	ASSERT_EQ(0, test_stat(FX_SECRET));
	ASSERT_STREQ("ok", ES_TRY("rename", FX_FILE2, FX_WORK "/moved"));
}

TEST_F(escapes_paths, R5_R9_rename_over_ancestor)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("rename", FX_OTHER, FX_RUN));
	ASSERT_STREQ("EACCES", ES_TRY("rename", FX_DIR, FX_PROTECTED));
	ASSERT_EQ(0, test_stat(FX_SECRET));
	ASSERT_STREQ("ok", ES_TRY("rename", FX_DIR, FX_OTHER "/dir"));
}

TEST_F(escapes_paths, R5_R9_rename_exchange_protected_with_work)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("exchange", FX_PROTECTED, FX_DIR));
	ASSERT_STREQ("EACCES", ES_TRY("exchange", FX_RUN, FX_OTHER));
	ASSERT_STREQ("ok", ES_TRY("exchange", FX_FILE, FX_FILE2));
}

TEST_F(escapes_paths, R3_R9_fifo_via_symlinked_dir)
{
	ASSERT_EQ(0, test_symlink(FX_PROTECTED, FX_WORK "/jr2"));
	ES_WAY_CONFINE();
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("mknod-fifo", FX_WORK "/jr2/fifo"));
	ASSERT_STREQ("ok", ES_TRY("mknod-fifo", FX_WORK "/fifo"));
}

TEST_F(escapes_paths, R3_R9_socket_bind_via_dotdot)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("bind-unix", FX_WORK "/../run/jr2/sock"));
	ASSERT_STREQ("ok", ES_TRY("bind-unix", FX_WORK "/../other/sock"));
}

TEST_F(escapes_paths, R3_R9_socket_bind_via_bindmount)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_WORK "/bound");
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("bind-unix", FX_WORK "/bound/sock"));
	ASSERT_STREQ("ok", ES_TRY("bind-unix", FX_OTHER "/sock"));
}

/*
 * Why this process cannot trace a process that is no descendant of it (the
 * positive control of the attempts below), or NULL: Yama's scope 3 lets
 * nobody attach, scopes 1 and 2 only CAP_SYS_PTRACE, which a container
 * profile's set lacks.
 */
static const char *es_outsider_trace_blocked(char *why, size_t size)
{
	int scope = jr2_yama_ptrace_scope();

	if (scope >= 3)
		snprintf(why, size,
			 "Yama's ptrace_scope is 3: no attach at all, so the "
			 "positive control cannot run");
	else if (scope >= 1 && !fx_has_cap(CAP_SYS_PTRACE))
		snprintf(why, size,
			 "Yama's ptrace_scope is %d and this process lacks "
			 "CAP_SYS_PTRACE: the positive control cannot run; "
			 "the bare profile proves it",
			 scope);
	else
		return NULL;
	return why;
}

TEST_F(escapes_paths, P1_R9_ptrace_attach_outside_domain)
{
	pid_t outside = es_lifeline_child(_metadata);
	char pid[16], why[160];

	hx_pid_str(outside, pid, sizeof(pid));
	/* Control: root unconfined traces it, where Yama lets it. */
	if (es_outsider_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_STREQ("ok",
		     WAY_TRY(&self->way, WAY_UNCONFINED, "ptrace-attach", pid));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EPERM", ES_TRY("ptrace-attach", pid));
	ASSERT_STREQ("EPERM", ES_TRY("ptrace-seize", pid));
}

/* The test itself: an ancestor of the program, outside its domain. */
TEST_F(escapes_paths, P1_R9_ptrace_attach_parent)
{
	char pid[16];

	hx_pid_str(getpid(), pid, sizeof(pid));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EPERM", ES_TRY("ptrace-attach", pid));
}

TEST_F(escapes_paths, P1_R9_procmem_outside_domain)
{
	pid_t outside = es_lifeline_child(_metadata);
	char path[64], why[160];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)outside);
	/* Control: root unconfined traces it, where Yama lets it. */
	if (es_outsider_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_STREQ("ok",
		     WAY_TRY(&self->way, WAY_UNCONFINED, "open-read", path));
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("open-read", path));
}

TEST_F(escapes_paths, R6_R9_truncate_via_symlink)
{
	ASSERT_EQ(0, test_symlink(FX_SECRET, FX_WORK "/link"));
	ES_WAY_CONFINE();
	ASSERT_STREQ(self->write_denied, ES_TRY("truncate", FX_WORK "/link"));
	ASSERT_STREQ(self->write_denied, ES_TRY("open-trunc", FX_WORK "/link"));
	ASSERT_STREQ("ok", ES_TRY("truncate", FX_FILE));
}

TEST_F(escapes_paths, R6_R9_truncate_via_bindmount)
{
	fx_make_dir(_metadata, FX_WORK "/bound", 0755);
	bind_mount(_metadata, FX_PROTECTED, FX_WORK "/bound");
	ES_WAY_CONFINE();
	ASSERT_STREQ("EACCES", ES_TRY("truncate", FX_WORK "/bound/secret"));
	ASSERT_STREQ("EACCES", ES_TRY("creat", FX_WORK "/bound/secret"));
	ASSERT_STREQ("ok", ES_TRY("creat", FX_OTHER "/new"));
}

TEST_F(escapes_paths, R6_R9_truncate_via_dotdot)
{
	ES_WAY_CONFINE();
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("truncate", FX_WORK "/../run/jr2/secret"));
	ASSERT_STREQ(self->write_denied,
		     ES_TRY("open-trunc", FX_DIR "/../../run/jr2/secret"));
	ASSERT_STREQ("ok", ES_TRY("truncate", FX_DIR "/../file"));
}

TEST_HARNESS_MAIN
