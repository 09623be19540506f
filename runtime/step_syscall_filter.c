// SPDX-License-Identifier: GPL-2.0-only
/*
 * Step 8 of the confinement step: the seccomp filter that gives every system
 * call the decision of the census (docs/SYSCALLS.md, generated into
 * syscall_census.h).  Landlock guards paths; these calls change the kernel's
 * or another process's state without opening a file, so no Landlock hook is
 * asked about them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine_step.h"
#include "syscall_census.h"

#if !defined(__x86_64__)
#error \
    "the census (docs/SYSCALLS.md) covers x86_64 and its i386 table only: add this arch's tables to it first"
#endif

/* One syscall table the filter meets, and its decisions. */
struct sys_table {
	unsigned int arch;
	unsigned int max; /* the highest number the census knows */
	unsigned int prlimit64, fcntl, fcntl64; /* fcntl64: 0 where none */
	unsigned int setsockopt, socketcall; /* socketcall: 0 where none */
	const struct jr2_syscall_rule *refused;
	size_t n_refused;
	bool wide; /* 64-bit pointers: both halves of an argument count */
};

#define N_OF(a) (sizeof(a) / sizeof(*(a)))

static const struct sys_table sys_tables[] = {
    {AUDIT_ARCH_X86_64, JR2_X86_64_MAX, JR2_X86_64_PRLIMIT64, JR2_X86_64_FCNTL,
     0, JR2_X86_64_SETSOCKOPT, 0, jr2_x86_64_refused, N_OF(jr2_x86_64_refused),
     true},
    {AUDIT_ARCH_I386, JR2_I386_MAX, JR2_I386_PRLIMIT64, JR2_I386_FCNTL,
     JR2_I386_FCNTL64, JR2_I386_SETSOCKOPT, JR2_I386_SOCKETCALL,
     jr2_i386_refused, N_OF(jr2_i386_refused), false},
};

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i) (ARG_LO(i) + 4) /* little-endian */

/* Linux 6.19's delegation: a lease by another name (the same setlease()). */
#ifndef F_SETDELEG
#define F_SETDELEG (F_SETLEASE + 16)
#endif

/* Linux 6.16's switch of a unix socket's SCM_RIGHTS (socket.h: 83). */
#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83
#endif
#define SOCKETCALL_SETSOCKOPT 14 /* linux/net.h's SYS_SETSOCKOPT */

/*
 * A filter is written from its end to its start: every jump goes forward,
 * so its target is already in place and its offset known when it is put.
 * A jump spans at most one table's part (PART_MAX, below 256: the 8 bits of
 * an offset); FILTER_MAX holds them all (static checks below).
 */
#define PART_FIXED  32 /* a part's instructions besides its refused calls */
#define PART_MAX(t) (PART_FIXED + N_OF(t))
#define FILTER_MAX \
	(2 + PART_MAX(jr2_x86_64_refused) + PART_MAX(jr2_i386_refused))
_Static_assert(PART_MAX(jr2_x86_64_refused) < 255 &&
		   PART_MAX(jr2_i386_refused) < 255,
	       "a table's part of the seccomp filter is too long for a jump");
_Static_assert(FILTER_MAX < 4096, "the seccomp filter exceeds BPF_MAXINSNS");

struct filter {
	struct sock_filter f[FILTER_MAX];
	size_t start; /* the first instruction; FILTER_MAX when empty */
};

/* jt, jf: the indexes a jump goes to (ignored for other instructions). */
static size_t put(struct filter *p, unsigned short code, unsigned int k,
		  size_t jt, size_t jf)
{
	size_t at = --p->start;
	bool jump = BPF_CLASS(code) == BPF_JMP;

	p->f[at] =
	    (struct sock_filter){code, jump ? (unsigned char)(jt - at - 1) : 0,
				 jump ? (unsigned char)(jf - at - 1) : 0, k};
	return at;
}

static size_t ret(struct filter *p, unsigned int action)
{
	return put(p, BPF_RET | BPF_K, action, 0, 0);
}

/* A = the word at offset; if (A == k) goto jt else goto jf. */
static size_t load_jeq(struct filter *p, unsigned int offset, unsigned int k,
		       size_t jt, size_t jf)
{
	put(p, BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf);
	return put(p, BPF_LD | BPF_W | BPF_ABS, offset, 0, 0);
}

/* if (A == k) goto jt, else on to the instruction after it. */
static void jeq(struct filter *p, unsigned int k, size_t jt)
{
	put(p, BPF_JMP | BPF_JEQ | BPF_K, k, jt, p->start);
}

/*
 * One table's part, with the arch in A on entry.  Not this arch: on to the
 * next part.  Else, by the number: any above the census's highest gives
 * ENOSYS (x32's too: the native numbers with bit 30 set, and its own from
 * 0x40000200, are all above it); the census's refused calls their errno;
 * prlimit64(pid, resource, new, old) with new limits for another pid (not
 * 0) EPERM; fcntl(fd, F_SETLEASE or F_SETDELEG, ...) EPERM (the command is
 * an unsigned int: its low half); setsockopt(fd, SOL_SOCKET,
 * SO_PASSRIGHTS, ...) EPERM (level and name are ints: their low half), and
 * i386's socketcall(SYS_SETSOCKOPT, args) EPERM (its arguments lie in
 * memory, out of the filter's reach); all else is allowed.
 */
static void emit_table(struct filter *p, const struct sys_table *t)
{
	const size_t next = p->start;
	const size_t enosys = ret(p, SECCOMP_RET_ERRNO | ENOSYS);
	const size_t eperm = ret(p, SECCOMP_RET_ERRNO | EPERM);
	const size_t allow = ret(p, SECCOMP_RET_ALLOW);
	const size_t new_limits = load_jeq(p, ARG_LO(0), 0, allow, eperm);
	const size_t hi =
	    t->wide ? load_jeq(p, ARG_HI(2), 0, allow, new_limits) : allow;
	const size_t prlimit = load_jeq(p, ARG_LO(2), 0, hi, new_limits);
	const size_t deleg =
	    put(p, BPF_JMP | BPF_JEQ | BPF_K, F_SETDELEG, eperm, allow);
	const size_t lease = load_jeq(p, ARG_LO(1), F_SETLEASE, eperm, deleg);
	const size_t rights =
	    load_jeq(p, ARG_LO(2), SO_PASSRIGHTS, eperm, allow);
	const size_t sockopt =
	    load_jeq(p, ARG_LO(1), SOL_SOCKET, rights, allow);
	const size_t socketcall =
	    load_jeq(p, ARG_LO(0), SOCKETCALL_SETSOCKOPT, eperm, allow);

	ret(p, SECCOMP_RET_ALLOW);
	jeq(p, t->setsockopt, sockopt);
	if (t->socketcall)
		jeq(p, t->socketcall, socketcall);
	jeq(p, t->prlimit64, prlimit);
	jeq(p, t->fcntl, lease);
	if (t->fcntl64)
		jeq(p, t->fcntl64, lease);
	for (size_t i = t->n_refused; i--;)
		jeq(p, t->refused[i].nr,
		    t->refused[i].err == ENOSYS ? enosys : eperm);
	put(p, BPF_JMP | BPF_JGT | BPF_K, t->max, enosys, p->start);
	put(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0,
	    0);
	put(p, BPF_JMP | BPF_JEQ | BPF_K, t->arch, p->start, next);
}

/*
 * The census's decisions, in the x86_64 table and the i386 one (int 0x80 of
 * a 64-bit program; x32 is x86_64 with bit 30: above every number, ENOSYS);
 * any other arch gets ENOSYS for every call.  The reasons per call are
 * docs/SYSCALLS.md's; in short:
 *  - the keyrings (add_key, request_key, keyctl: EPERM): root's user keyring
 *    is shared with every process of uid 0, and request_key(2) with callout
 *    info makes the kernel run /sbin/request-key as root outside every
 *    domain;
 *  - other processes' limits: prlimit(2) of a process of the same user needs
 *    no capability, and RLIMIT_NOFILE 0 ends the harness: prlimit64 with
 *    another pid and new limits gives EPERM (reading them, and a program's
 *    own, stay);
 *  - file leases: a write lease needs only to own the file; every other open
 *    of it, by any process, then waits fs.lease-break-time (the harness
 *    looking at its peer's /proc status, the spawner's execve): F_SETLEASE
 *    and 6.19's F_SETDELEG give EPERM;
 *  - SCM_RIGHTS switched back on (setsockopt SO_PASSRIGHTS, EPERM): a
 *    passed unix socket crosses with it off (step 1), so that its peer sends
 *    it no descriptor opened outside the domain;
 *  - clone3 (ENOSYS, so that libc falls back to clone): CLONE_INTO_CGROUP
 *    moves the child into any cgroup of a read-only descriptor, by an inode
 *    permission check, no open;
 *  - fanotify (EPERM): an inode mark needs only read permission (DAC) and
 *    reports every open and read of the file, a protected one too;
 *  - the mount API (EPERM): in a user namespace of its own a program holds
 *    CAP_SYS_ADMIN, and a detached mount meets none of Landlock's hooks;
 *  - a number the census does not know (a later kernel's call) gives
 *    ENOSYS, as a kernel without the call does.
 */
int jr2_step_deny_kernel_doors(void)
{
	struct filter p = {.start = FILTER_MAX};
	struct sock_fprog prog;
	size_t i = N_OF(sys_tables);

	ret(&p, SECCOMP_RET_ERRNO | ENOSYS);
	while (i--)
		emit_table(&p, &sys_tables[i]);
	put(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch),
	    0, 0);
	prog =
	    (struct sock_fprog){.len = (unsigned short)(FILTER_MAX - p.start),
				.filter = p.f + p.start};
	/* Every thread, as the Landlock domain (no_new_privs is set). */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &prog))
		return -errno;
	return 0;
}
