// SPDX-License-Identifier: GPL-2.0-only
/* The one confinement step (see confine_step.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine_step.h"
#include "exit_status.h"
#include "plan.h"
#include "step_internal.h"
#include "policy_internal.h"

/*
 * Kept: what admin work in the container needs, none of which reaches past
 * a path Landlock guards or into a process outside the domain.  Every other
 * capability, known now or added by a later kernel, is dropped.  The reasons
 * per capability are jr2-confine(1)'s table.
 */
const int jr2_kept_capabilities[] = {
    CAP_CHOWN,	       CAP_DAC_OVERRIDE, CAP_FOWNER,
    CAP_FSETID,	       CAP_KILL,	 CAP_SETGID,
    CAP_SETUID,	       CAP_SETPCAP,	 CAP_NET_BIND_SERVICE,
    CAP_NET_BROADCAST, CAP_IPC_LOCK,	 CAP_SYS_CHROOT,
    CAP_SYS_NICE,      CAP_SYS_RESOURCE, CAP_LEASE,
    CAP_AUDIT_WRITE,   CAP_SETFCAP,	 CAP_WAKE_ALARM,
    CAP_BLOCK_SUSPEND,
};
const size_t jr2_n_kept_capabilities =
    sizeof(jr2_kept_capabilities) / sizeof(jr2_kept_capabilities[0]);

static bool jr2_capability_kept(int cap)
{
	for (size_t i = 0; i < jr2_n_kept_capabilities; i++)
		if (jr2_kept_capabilities[i] == cap)
			return true;
	return false;
}

/* The highest capability this kernel knows. */
static int last_capability(void)
{
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	char buf[16] = "";
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n > 0 && atoi(buf) > 0 && atoi(buf) < 64)
		return atoi(buf);
	return 63; /* unknown: try them all (EINVAL for the unknown ones) */
}

/* Step 6 alone: 0 or -errno. */
static int jr2_step_drop_capabilities(void)
{
	struct __user_cap_header_struct head = {
	    .version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	const int last = last_capability();

	if (syscall(SYS_capget, &head, data))
		return -errno;
	for (int cap = 0; cap < 64; cap++) {
		bool permitted = data[cap / 32].permitted & (1U << (cap % 32));

		if (jr2_capability_kept(cap))
			continue;
		/*
		 * EINVAL: a capability this kernel does not know.  EPERM: no
		 * CAP_SETPCAP (a confiner that is not root); then a capability
		 * not permitted now cannot come back: the domain has
		 * no_new_privs.  One permitted but not droppable: refuse.
		 */
		if (cap <= last && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) &&
		    errno != EINVAL && !(errno == EPERM && !permitted))
			return -errno;
		if (cap <= last &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0) &&
		    errno != EINVAL)
			return -errno;
		data[cap / 32].effective &= ~(1U << (cap % 32));
		data[cap / 32].permitted &= ~(1U << (cap % 32));
		data[cap / 32].inheritable &= ~(1U << (cap % 32));
	}
	if (syscall(SYS_capset, &head, data))
		return -errno;
	return 0;
}

static bool has_effective(int cap)
{
	struct __user_cap_header_struct head = {
	    .version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &head, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* ---- step 2: the session ---- */

int jr2_let_tracee_go(pid_t pid, int sig)
{
	siginfo_t why;

	memset(&why, 0, sizeof(why));
	/* The SIGTRAP of execve: sent by the tracee to itself (SI_USER). */
	if (sig == SIGTRAP && !ptrace(PTRACE_GETSIGINFO, pid, NULL, &why) &&
	    why.si_code == SI_USER && why.si_pid == pid)
		sig = 0;
	if (ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig) &&
	    errno != ESRCH)
		return -1;
	return 0;
}

static volatile pid_t waited_child;

static void forward_signal(int sig)
{
	if (waited_child > 0)
		kill(waited_child, sig);
}

/* The parent of a forked step: waits, then ends as its child did. */
static void __attribute__((noreturn)) wait_and_mirror(pid_t child)
{
	static const int forwarded[] = {SIGINT,	 SIGTERM, SIGHUP,  SIGQUIT,
					SIGUSR1, SIGUSR2, SIGWINCH};
	struct sigaction sa = {.sa_handler = forward_signal};
	int status;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	waited_child = child;
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
		sigaction(forwarded[i], &sa, NULL);
	for (;;) {
		if (waitpid(child, &status, 0) < 0) {
			if (errno != EINTR)
				_exit(JR2_EXIT_REFUSED);
		} else if (!WIFSTOPPED(status)) {
			break;
		} else {
			/* Only a tracee's stop reaches a wait without
			   WUNTRACED: the child made this process its
			   tracer (PTRACE_TRACEME). */
			jr2_let_tracee_go(child, WSTOPSIG(status));
		}
	}
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	signal(WTERMSIG(status), SIG_DFL);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	kill(getpid(), WTERMSIG(status));
	_exit(128 + WTERMSIG(status));
}

static int step_session(struct jr2_step *step, struct jr2_err *err)
{
	pid_t parent = getpid(), child;

	if (step->keep_session || setsid() >= 0)
		return 0;
	if (errno != EPERM || !step->may_fork)
		return jr2_fail(err, errno, false,
				"setsid: %s: the program would share the "
				"caller's terminal; run it from a process that "
				"is not a process group leader",
				strerror(errno));
	/* A group leader (a shell's job) cannot setsid(): its child can. */
	fflush(NULL);
	child = fork();
	if (child < 0)
		return jr2_fail(err, errno, false, "fork: %s: no new session",
				strerror(errno));
	if (child > 0)
		wait_and_mirror(child);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
		_exit(JR2_EXIT_REFUSED);
	if (setsid() < 0)
		return jr2_fail(err, errno, false, "setsid: %s",
				strerror(errno));
	return 0;
}

/* ---- step 4: metadata ---- */

static void describe_fallback(const struct jr2_policy *policy,
			      struct jr2_step *step, const char *why)
{
	struct jr2_ident prot[64];
	size_t n = jr2_idents(&policy->protect, prot, 64), used;
	uid_t uid = geteuid();
	bool all_other = n > 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!lstat(prot[i].path, &st) && st.st_uid == uid)
			all_other = false;
	}
	used = (size_t)snprintf(step->metadata, sizeof(step->metadata),
				"metadata: no read-only mounts (%s); ", why);
	if (used >= sizeof(step->metadata))
		return;
	if (all_other && !has_effective(CAP_FOWNER) &&
	    !has_effective(CAP_CHOWN))
		snprintf(step->metadata + used, sizeof(step->metadata) - used,
			 "holds by ownership: the protected dirs are not "
			 "owned by uid %u, which has no CAP_FOWNER or "
			 "CAP_CHOWN; read-only trees rely on theirs",
			 (unsigned int)uid);
	else
		snprintf(step->metadata + used, sizeof(step->metadata) - used,
			 "does NOT hold: programs of uid %u own a protected "
			 "dir or keep CAP_FOWNER/CAP_CHOWN and may chmod, "
			 "chown, touch, setxattr them; run as root with "
			 "CAP_SYS_ADMIN",
			 (unsigned int)uid);
	/* No mount namespace: no devpts instance of the programs' own. */
	used = strlen(step->metadata);
	if (used < sizeof(step->metadata))
		snprintf(step->metadata + used, sizeof(step->metadata) - used,
			 "; other sessions' terminals stay reachable by path "
			 "(/dev/pts): the same fix");
}

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

struct jr2_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* Bind-mounts `path` on itself, read-only with every submount. */
static int bind_read_only(const struct jr2_ident *t, struct jr2_err *err)
{
	struct jr2_mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
	struct stat st;

	if (mount(t->path, t->path, NULL, MS_BIND | MS_REC, NULL))
		return jr2_fail(err, errno, false,
				"bind mount of '%s' on itself: %s: no "
				"read-only mount for its metadata",
				t->path, strerror(errno));
	/* Still the dir that was looked at (a rename race is refused). */
	if (lstat(t->path, &st) || st.st_dev != t->dev || st.st_ino != t->ino)
		return jr2_fail(err, ESTALE, false,
				"'%s' was replaced while confining; run again",
				t->path);
	if (syscall(SYS_mount_setattr, AT_FDCWD, t->path,
		    AT_RECURSIVE | AT_SYMLINK_NOFOLLOW, &attr, sizeof(attr)))
		return jr2_fail(err, errno, false,
				"mount_setattr('%s', MOUNT_ATTR_RDONLY, "
				"recursive): %s: no read-only mount for its "
				"metadata",
				t->path, strerror(errno));
	return 0;
}

#ifndef DEVPTS_SUPER_MAGIC
#define DEVPTS_SUPER_MAGIC 0x1cd1
#endif

/*
 * The terminals of other sessions (the terminal door): the /dev
 * allow-list opens /dev/pts, so a root program would open the user's own
 * terminal by path and read what is typed there (and take over a terminal
 * no session holds, then TIOCSTI into it).  In the programs' own mount
 * namespace, /dev/pts is a new devpts instance: only the terminals made
 * inside (through /dev/ptmx, which uses the instance beside it) can be
 * opened by path; the terminal a program got as a descriptor still works.
 */
static int own_terminals(struct jr2_step *step, struct jr2_err *err)
{
	struct statfs fs;

	step->own_pts = false;
	if (statfs(JR2_DEV_DIR "/pts", &fs) || fs.f_type != DEVPTS_SUPER_MAGIC)
		return 0; /* no devpts there: nothing to hide */
	if (mount("devpts", JR2_DEV_DIR "/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620,gid=5"))
		return jr2_fail(err, errno, false,
				"mount of a devpts instance of its own on "
				"%s/pts: %s: programs could open other "
				"sessions' terminals",
				JR2_DEV_DIR, strerror(errno));
	step->own_pts = true;
	return 0;
}

/*
 * The kernel's trees: the metadata of their files is kernel state Landlock
 * does not guard (Landlock refuses writes to /proc and /sys, not chmod).  As
 * root a program could chmod or chown a node of /dev (a disk, /dev/mem), a
 * file of /sys or a file of /proc (/proc/kmsg) and so open it to processes
 * outside the domain; the change outlives the program.  Each tree is a
 * read-only mount, recursively, in the programs' own mount namespace;
 * /dev/pts, /dev/shm and /dev/mqueue keep the state they had (each made a
 * mount of its own first where it is a plain folder).  A device node still
 * opens for writing on a read-only mount (the mount guards the file system,
 * not the device): /dev/null and /dev/tty work.
 */
static const char *const kernel_trees[] = {JR2_PROC_TREE, JR2_SYS_TREE,
					   JR2_DEV_DIR};
static const char *const dev_writable[] = {
    JR2_DEV_DIR "/pts", JR2_DEV_DIR "/shm", JR2_DEV_DIR "/mqueue"};
#define N_DEV_WRITABLE (sizeof(dev_writable) / sizeof(*dev_writable))

/* Marks which of dev_writable are writable now, each a mount of its own. */
static int dev_writable_mounts(bool writable[], struct jr2_err *err)
{
	struct stat dev;

	if (stat(JR2_DEV_DIR, &dev))
		return 0;
	for (size_t i = 0; i < N_DEV_WRITABLE; i++) {
		struct statvfs vfs;
		struct stat st;

		writable[i] = false;
		if (lstat(dev_writable[i], &st) || !S_ISDIR(st.st_mode) ||
		    statvfs(dev_writable[i], &vfs) || (vfs.f_flag & ST_RDONLY))
			continue;
		if (st.st_dev == dev.st_dev &&
		    mount(dev_writable[i], dev_writable[i], NULL, MS_BIND,
			  NULL))
			return jr2_fail(err, errno, false,
					"bind mount of '%s' on itself: %s: it "
					"would turn read-only with %s",
					dev_writable[i], strerror(errno),
					JR2_DEV_DIR);
		writable[i] = true;
	}
	return 0;
}

static int kernel_trees_read_only(struct jr2_err *err)
{
	struct jr2_mount_attr rw = {.attr_clr = MOUNT_ATTR_RDONLY};
	bool writable[N_DEV_WRITABLE] = {false};

	if (dev_writable_mounts(writable, err))
		return -1;
	for (size_t i = 0; i < sizeof(kernel_trees) / sizeof(*kernel_trees);
	     i++) {
		struct stat st;
		struct jr2_ident t = {kernel_trees[i], 0, 0};

		if (lstat(t.path, &st) || !S_ISDIR(st.st_mode))
			continue; /* absent here: nothing to hold */
		t.dev = st.st_dev;
		t.ino = st.st_ino;
		if (bind_read_only(&t, err))
			return -1;
	}
	for (size_t i = 0; i < N_DEV_WRITABLE; i++)
		if (writable[i] &&
		    syscall(SYS_mount_setattr, AT_FDCWD, dev_writable[i],
			    AT_SYMLINK_NOFOLLOW, &rw, sizeof(rw)))
			return jr2_fail(err, errno, false,
					"mount_setattr('%s', clear "
					"MOUNT_ATTR_RDONLY): %s: it would stay "
					"read-only",
					dev_writable[i], strerror(errno));
	return 0;
}

static int step_metadata(const struct jr2_policy *policy, struct jr2_step *step,
			 struct jr2_err *err)
{
	struct jr2_ident t[128];
	size_t n_prot = jr2_idents(&policy->protect, t, 64);
	size_t n = n_prot + jr2_idents(&policy->read_only, t + n_prot, 64);

	step->ro_mounts = false;
	if (policy->protect.n > 64 || policy->read_only.n > 64)
		return jr2_fail(err, E2BIG, true,
				"the policy has more than 64 protected dirs "
				"or read-only trees: merge some");
	if (!has_effective(CAP_SYS_ADMIN)) {
		describe_fallback(policy, step,
				  "the confiner lacks CAP_SYS_ADMIN");
		return 0;
	}
	if (unshare(CLONE_NEWNS)) {
		char why[128];

		if (errno != EPERM && errno != EINVAL && errno != ENOSYS)
			return jr2_fail(err, errno, false,
					"unshare(CLONE_NEWNS): %s",
					strerror(errno));
		snprintf(why, sizeof(why), "unshare(CLONE_NEWNS): %s",
			 strerror(errno));
		describe_fallback(policy, step, why);
		return 0;
	}
	/*
	 * Private, every mount: nothing propagates in or out.  A mount the
	 * host makes later would come in read-write, whatever the read-only
	 * mounts say, and Landlock's rule of the folder it lands in would
	 * cover it: a bind of the protected dir below the user's folder, a
	 * proc or a devtmpfs there.  Programs see the host's mounts as they
	 * were at the confinement.
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		if (errno == EPERM) {
			/* Already in a Landlock domain: no mount at all. */
			describe_fallback(policy, step,
					  "mount: EPERM: a Landlock domain "
					  "or an LSM refuses mounts here");
			return 0;
		}
		return jr2_fail(err, errno, false,
				"mount --make-rprivate /: %s: no private mount "
				"namespace for the read-only mounts",
				strerror(errno));
	}
	if (own_terminals(step, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (bind_read_only(&t[i], err))
			return -1;
	if (kernel_trees_read_only(err))
		return -1;
	step->ro_mounts = true;
	snprintf(step->metadata, sizeof(step->metadata),
		 "metadata: holds: %zu protected dir%s and %zu read-only "
		 "tree%s, /proc, /sys and /dev (but /dev/pts, /dev/shm, "
		 "/dev/mqueue) are read-only mounts in the programs' own "
		 "mount namespace (chmod, chown, utimes, setxattr, chattr: "
		 "EROFS; CAP_SYS_ADMIN dropped, Landlock forbids mounts)%s",
		 n_prot, n_prot == 1 ? "" : "s", n - n_prot,
		 n - n_prot == 1 ? "" : "s",
		 step->own_pts ? "; " JR2_DEV_DIR "/pts is a devpts instance "
				 "of their own (other sessions' terminals "
				 "cannot be opened)"
			       : "");
	return 0;
}

void jr2_step_metadata_forecast(char *buf, size_t size)
{
	int status = 0, err = 0;
	pid_t pid;

	if (!has_effective(CAP_SYS_ADMIN)) {
		snprintf(buf, size,
			 "metadata: no read-only mounts (no CAP_SYS_ADMIN): "
			 "only ownership guards the restricted dirs' "
			 "metadata (a program of the harness's uid may chmod "
			 "the protected dir; the harness puts its modes back "
			 "at once) and other sessions' terminals stay "
			 "reachable by path; fix: give the confiner "
			 "CAP_SYS_ADMIN (Kubernetes: capabilities add "
			 "SYS_ADMIN); see `run --verbose`");
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNS))
			_exit(errno & 0x7f);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(errno & 0x7f);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		err = errno;
	else if (!WIFEXITED(status))
		err = EINTR;
	else
		err = WEXITSTATUS(status);
	if (err)
		snprintf(buf, size,
			 "metadata: no read-only mounts (a mount namespace: "
			 "%s): only ownership guards the restricted dirs' "
			 "metadata",
			 strerror(err));
	else
		snprintf(buf, size,
			 "metadata: holds: run and the spawner make the "
			 "restricted dirs read-only mounts in their own mount "
			 "namespace (chmod, chown, utimes, setxattr, chattr: "
			 "EROFS)");
}

/* ---- the step ---- */

static const struct jr2_plan_target *
find_planned(const struct jr2_plan_target *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].path, path))
			return &v[i];
	return NULL;
}

/*
 * Each protected dir of `reference` (what the caller planned, e.g. the
 * harness at its start), and each folder above it, is still the inode it
 * planned.  Renamed before this step planned and put back once it
 * restricted, either would leave the protected inode under full rights:
 * the dir exchanged with a sibling, or its parent replaced (the dir moved
 * into the stand-in, the old parent left beside it).  Refused, exit 125.
 */
static int same_targets(const struct jr2_ruleset_plan *fresh,
			const struct jr2_ruleset_plan *reference,
			struct jr2_err *err)
{
	for (size_t r = 0; reference && r < reference->n_targets; r++) {
		const struct jr2_plan_target *want = &reference->targets[r];
		const struct jr2_plan_target *got;

		/* Protected dirs only: a read-only tree (a CA bundle renamed
		   into place by an upgrade) may be replaced on purpose. */
		if (want->kind != JR2_KIND_PROTECT)
			continue;
		got =
		    find_planned(fresh->targets, fresh->n_targets, want->path);
		/* A mount that showed it elsewhere, unmounted since. */
		if (!got && !strncmp(want->origin, "mount ", 6))
			continue;
		if (!got || got->dev != want->dev || got->ino != want->ino)
			return jr2_fail(err, ESTALE, false,
					"restricted path '%s' (%s) is not the "
					"inode it was when planned first (%s): "
					"it was replaced; restart the confiner",
					want->path, want->origin,
					got ? "another inode now"
					    : "no longer restricted");
		for (size_t d = 0; d < reference->n_dirs; d++) {
			const struct jr2_plan_target *dir = &reference->dirs[d];

			if (!dir->ino || !strcmp(dir->path, want->path) ||
			    !jr2_path_within(want->path, dir->path))
				continue;
			got =
			    find_planned(fresh->dirs, fresh->n_dirs, dir->path);
			if (!got || got->dev != dir->dev ||
			    got->ino != dir->ino)
				return jr2_fail(
				    err, ESTALE, false,
				    "'%s', a folder above the restricted path "
				    "'%s' (%s), is not the inode it was when "
				    "planned first: it was replaced; restart "
				    "the confiner",
				    dir->path, want->path, want->origin);
		}
	}
	return 0;
}

/*
 * plan: compiled moments ago in this process (jr2-confine run), used as is
 * unless step 4 made mounts; NULL: compiled here, once, after step 4, at
 * `abi` (the spawner, whichever its generation).  reference: checked by
 * same_targets(), or NULL.
 */
static int confine_step(const struct jr2_policy *policy,
			const struct jr2_ruleset_plan *plan, int abi,
			const struct jr2_ruleset_plan *reference,
			uint32_t extra_flags, struct jr2_step *step,
			struct jr2_err *err)
{
	struct jr2_ruleset_plan fresh;
	int ret;

	if (jr2_step_descriptors(policy, step, err) || step_session(step, err))
		return -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return jr2_fail(err, errno, false, "prctl(PR_SET_DUMPABLE): %s",
				strerror(errno));
	if (step_metadata(policy, step, err))
		return -1;
	jr2_step_helpers_line(step->helpers, sizeof(step->helpers));
	if (step->ro_mounts || !plan) {
		/* The mounts of step 4 (the new devpts root above all) are
		   other inodes than a plan made before saw: compiled here. */
		if (jr2_policy_compile(policy, abi, &fresh, err))
			return -1;
		plan = &fresh;
		if (same_targets(&fresh, reference, err)) {
			jr2_plan_free(&fresh);
			return -1;
		}
	}
	ret = jr2_step_drop_capabilities();
	if (ret && plan == &fresh)
		jr2_plan_free(&fresh);
	if (ret)
		return jr2_fail(err, -ret, false,
				"cannot drop the capabilities programs must "
				"not keep: %s: see jr2-confine(1), "
				"CAPABILITIES",
				strerror(-ret));
	ret = jr2_confine_plan(plan, extra_flags, err);
	if (plan == &fresh)
		jr2_plan_free(&fresh);
	if (ret)
		return -1;
	ret = jr2_step_deny_kernel_doors();
	if (ret)
		return jr2_fail(err, -ret, false,
				"seccomp (the system calls docs/SYSCALLS.md "
				"refuses): %s: the kernel needs "
				"CONFIG_SECCOMP_FILTER; "
				"see jr2-confine(1), CONFINEMENT STEP",
				strerror(-ret));
	return 0;
}

int jr2_confine_step_plan(const struct jr2_policy *policy,
			  const struct jr2_ruleset_plan *plan,
			  uint32_t extra_flags, struct jr2_step *step,
			  struct jr2_err *err)
{
	return confine_step(policy, plan, plan->abi, plan, extra_flags, step,
			    err);
}

int jr2_confine_step_ref(const struct jr2_policy *policy,
			 const struct jr2_abi *abi,
			 const struct jr2_ruleset_plan *reference,
			 uint32_t extra_flags, struct jr2_step *step,
			 struct jr2_err *err)
{
	if (jr2_abi_accepted(abi, err))
		return -1;
	return confine_step(policy, NULL, abi->in_force, reference, extra_flags,
			    step, err);
}

int jr2_confine_step(const struct jr2_policy *policy, const struct jr2_abi *abi,
		     uint32_t extra_flags, struct jr2_step *step,
		     struct jr2_err *err)
{
	return jr2_confine_step_ref(policy, abi, NULL, extra_flags, step, err);
}
