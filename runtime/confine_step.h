/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one confinement step of `jr2-confine run` and of the harness's spawner
 * too: Landlock guards paths; this step closes the kernel's other
 * doors a root program could take around them.  In order:
 *
 *  1. descriptors: only stdio and the ones passed on purpose cross it, and
 *     none of them may refer into a protected dir (O_PATH included) or be
 *     open for writing into a read-only tree;
 *  2. a new session: no controlling terminal shared with anything outside
 *     the domain (TIOCSTI, TIOCSCTTY), unless the caller opts out;
 *  3. not dumpable until execve (P1);
 *  4. the metadata guard: where the confiner may, a mount namespace of its
 *     own (slave of the host's) in which every protected dir and read-only
 *     tree is bind-mounted read-only, recursively: chmod, chown, utimes,
 *     setxattr, chattr there fail with EROFS; else it says what holds;
 *     in the same namespace /dev/pts is a devpts instance of the programs'
 *     own (no other session's terminal opens by path);
 *  5. the kernel's helpers, said in one line: whether this root is the one
 *     the kernel runs modprobe and the core_pattern program from (and
 *     init's services run from), whose files root programs may change
 *     (SECURITY.md, Known gaps); nothing is changed;
 *  6. the capability allow-list, applied to every set (bounding, permitted,
 *     effective, inheritable, ambient);
 *  7. the Landlock domain (no_new_privs, jr2_confine_plan());
 *  8. the kernel's keyrings closed: add_key, request_key and keyctl give
 *     EPERM (seccomp; root's keyring is shared with unconfined processes,
 *     and request_key makes the kernel run /sbin/request-key unconfined);
 *     so does prlimit with new limits for another process (the harness).
 * All or nothing: on failure *err says why and the caller must exit 125.
 */
#ifndef JR2_CONFINE_STEP_H
#define JR2_CONFINE_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

#define JR2_STEP_MAX_FDS 64

struct jr2_step {
	/* in */
	bool keep_session; /* jr2-confine run --keep-session: opt-out of 2 */
	bool may_fork; /* when setsid() is refused (a group leader), fork: the
			  parent waits, unconfined and not dumpable, and exits
			  with the child's status; else such a refusal fails */
	bool close_others; /* close every descriptor but 0-2 and keep_fds */
	bool fds_per_program; /* the caller's own 0-2 reach no program: it
				 checks each program's descriptors itself
				 with jr2_step_check_fds() (the spawner) */
	int keep_fds[JR2_STEP_MAX_FDS]; /* --pass-fd N */
	size_t n_keep_fds;
	/* out */
	bool ro_mounts; /* step 4 made the read-only mounts */
	bool own_pts; /* step 4 gave programs a devpts instance of their own */
	char metadata[512]; /* one line: what holds for metadata, and why */
	char helpers[512]; /* one line: the kernel's helpers (step 5) */
};

/*
 * The capabilities a program keeps (every other one is dropped from every
 * set); the table with the reasons is in jr2-confine(1).
 */
extern const int jr2_kept_capabilities[];
extern const size_t jr2_n_kept_capabilities;

/* The whole step for a plan already compiled (jr2-confine run). */
int jr2_confine_step_plan(const struct jr2_policy *policy,
			  const struct jr2_ruleset_plan *plan,
			  uint32_t extra_flags, struct jr2_step *step,
			  struct jr2_err *err);

/* The whole step, compiling once after the read-only mounts (the spawner);
   reference (the harness's plan at start, or NULL): each restricted path it
   names must still be the inode it saw there, else ESTALE (exit 125). */
int jr2_confine_step_ref(const struct jr2_policy *policy,
			 const struct jr2_abi *abi,
			 const struct jr2_ruleset_plan *reference,
			 uint32_t extra_flags, struct jr2_step *step,
			 struct jr2_err *err);

/* The whole step: compiles, then as jr2_confine_step_plan() (the spawner). */
int jr2_confine_step(const struct jr2_policy *policy, const struct jr2_abi *abi,
		     uint32_t extra_flags, struct jr2_step *step,
		     struct jr2_err *err);

/*
 * Step 1 for one descriptor: 0 when `fd` may reach a program, else -1 with
 * *err naming the descriptor as the program would see it (`shown_as`) and its
 * path (exit 125).  The spawner calls it for each descriptor of a request.
 */
int jr2_step_check_fd(const struct jr2_policy *policy, int fd, int shown_as,
		      struct jr2_err *err);

/*
 * SO_PASSRIGHTS off on the unix socket fd (Linux 6.16): a later sendmsg of
 * descriptors to it gives the sender EPERM.  0 when off, else -1 and errno
 * (ENOPROTOOPT: the kernel has no such switch; EOPNOTSUPP, ENOTSOCK: not a
 * unix socket; EPERM: under the confinement's filter, which keeps it as it
 * is).  The harness calls it on each descriptor of a request as it takes
 * it, before its spawner (filtered) checks them.
 */
int jr2_fd_refuse_rights(int fd);

/*
 * The same for fds[0..n), each shown as its index (a request's descriptors,
 * the spawner).  The restricted places are looked up once for all, and a
 * descriptor on a file already checked (same inode, same path: all the
 * verdict reads) is not walked again: stdout and stderr are mostly one file.
 */
#define JR2_STEP_CHECK_MAX_FDS 16
int jr2_step_check_fds(const struct jr2_policy *policy, const int *fds,
		       size_t n, struct jr2_err *err);

/*
 * What step 4 would give on this machine, for `jr2-confine check`: one line
 * in buf ("metadata: ..."), probed in a child (unshare, make-rslave).
 */
void jr2_step_metadata_forecast(char *buf, size_t size);

/* Step 5's line ("kernel helpers: ..."), for `jr2-confine check` too. */
void jr2_step_helpers_line(char *buf, size_t size);

/*
 * A child that made the caller its tracer (PTRACE_TRACEME), seen stopped for
 * `sig`: detached, with `sig` passed on as it would reach it untraced (but
 * the SIGTRAP execve sends a tracee, which is not).  No LSM refuses TRACEME
 * to an unconfined parent; the harness (the programs' parent and subreaper)
 * and the forked parent of `jr2-confine run` let such a tracee go at its
 * first stop, and count only exits (P7).  0, or -1 with errno.
 */
int jr2_let_tracee_go(pid_t pid, int sig);

/* Step 8 alone (after no_new_privs): 0 or -errno. */
int jr2_step_deny_kernel_doors(void);

#endif /* JR2_CONFINE_STEP_H */
