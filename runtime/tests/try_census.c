// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's census probe (selftests/syscalls_test.c): every number of the
 * kernel's x86_64 and i386 tables, the numbers above the census's highest
 * and x32's, called under the filter this program was given, each refused
 * with the census's errno (runtime/syscall_census.h) or reaching the
 * kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscall_census.h"
#include "try.h"

#ifndef SYS_uretprobe
#define SYS_uretprobe 335
#endif
#ifndef SYS_uprobe
#define SYS_uprobe 336
#endif

static const char *name_of(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

/*
 * A probed call carries PROBE_COOKIE as its sixth argument.  The probe's own
 * filter gives those SECCOMP_RET_TRACE; ours, installed before, wins with
 * its errno where it refuses (ERRNO takes precedence over TRACE).  The
 * tracer skips every call that stops (orig_rax -1) and makes it return
 * -PROBE_REACHED: no probed call runs, whatever the filters decide (TRACE
 * without a tracer gives ENOSYS and runs nothing either).
 */
#define PROBE_COOKIE  0x6a723239U
#define PROBE_REACHED EL3HLT
#define PROBE_ABOVE   16 /* numbers probed above the census's highest */

static long call64(long nr, long a0, long a1, long a2, long a3)
{
	long ret;
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = PROBE_COOKIE;

	/* r9 is cleared after the call: no later call carries the cookie. */
	__asm__ volatile("syscall\n\t"
			 "xor %%r9d, %%r9d"
			 : "=a"(ret), "+r"(r9)
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret < 0 && ret > -4096 ? -ret : 0;
}

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83 /* Linux 6.16 */
#endif

static sigjmp_buf no_int80;

static void int80_fault(int sig)
{
	siglongjmp(no_int80, sig);
}

/* int 0x80: the i386 table (ebp is the sixth argument). */
static long call32(long nr, long a0, long a1, long a2, long a3, long a5)
{
	long ret;

	__asm__ volatile("push %%rbp\n\t"
			 "mov %[a5], %%rbp\n\t"
			 "int $0x80\n\t"
			 "pop %%rbp"
			 : "=a"(ret)
			 : "0"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3),
			   "D"(0L), [a5] "r"(a5)
			 : "memory", "r8", "r9", "r10", "r11", "cc");
	return (int)ret < 0 && (int)ret > -4096 ? -(int)ret : 0;
}

struct tally {
	unsigned int checked, differ;
};

static void expect(struct tally *t, const char *table, long nr,
		   const char *what, int want, int got)
{
	t->checked++;
	if (want == got)
		return;
	t->differ++;
	printf("%s %ld %s: want %s got %s\n", table, nr, what,
	       want == PROBE_REACHED ? "the kernel" : name_of(want),
	       got == PROBE_REACHED ? "the kernel" : name_of(got));
}

/* The census's decision for nr in one table (`open`: every call reaches). */
static int want_of(const struct jr2_syscall_rule *refused, size_t n,
		   unsigned int max, long nr, bool open)
{
	if (open)
		return PROBE_REACHED;
	for (size_t i = 0; i < n; i++)
		if (refused[i].nr == nr)
			return refused[i].err;
	return nr > max ? ENOSYS : PROBE_REACHED;
}

/* The probe itself, in the traced child; `open`: no filter but the probe's. */
static void probe(bool open, bool int80)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, args[5])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROBE_COOKIE, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = 4, .filter = f};
	struct tally t = {0, 0};
	const long other = 1; /* another pid: init */
	const size_t n64 =
	    sizeof(jr2_x86_64_refused) / sizeof(*jr2_x86_64_refused);
	const size_t n32 = sizeof(jr2_i386_refused) / sizeof(*jr2_i386_refused);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		printf("probe filter: %s\n", name_of(errno));
		return;
	}
	for (long nr = 0; nr <= JR2_X86_64_MAX + PROBE_ABOVE; nr++) {
		int want =
		    want_of(jr2_x86_64_refused, n64, JR2_X86_64_MAX, nr, open);

		if (nr == SYS_uretprobe || nr == SYS_uprobe) {
			/* Seccomp passes them to the kernel unfiltered (6.13+),
			   which sends SIGILL outside a probe's trampoline: no
			   filter decides them (the census: allowed). */
			continue;
		}
		if (nr == JR2_X86_64_PRLIMIT64) {
			expect(&t, "x86_64", nr, "another pid, new limits",
			       open ? PROBE_REACHED : EPERM,
			       (int)call64(nr, other, 0, 1, 0));
			/* the program's own: reaches the kernel */
			expect(&t, "x86_64", nr, "own", PROBE_REACHED,
			       (int)call64(nr, 0, 0, 1, 0));
		} else if (nr == JR2_X86_64_FCNTL) {
			expect(&t, "x86_64", nr, "F_SETLEASE",
			       open ? PROBE_REACHED : EPERM,
			       (int)call64(nr, 0, F_SETLEASE, 0, 0));
			expect(&t, "x86_64", nr, "F_GETFL", PROBE_REACHED,
			       (int)call64(nr, 0, F_GETFL, 0, 0));
		} else if (nr == JR2_X86_64_SETSOCKOPT) {
			expect(
			    &t, "x86_64", nr, "SO_PASSRIGHTS",
			    open ? PROBE_REACHED : EPERM,
			    (int)call64(nr, 0, SOL_SOCKET, SO_PASSRIGHTS, 0));
			expect(&t, "x86_64", nr, "SO_REUSEADDR", PROBE_REACHED,
			       (int)call64(nr, 0, SOL_SOCKET, SO_REUSEADDR, 0));
		} else {
			expect(&t, "x86_64", nr, "", want,
			       (int)call64(nr, 0, 0, 0, 0));
		}
	}
	/* x32: bit 30 on a native number, and x32's own numbers (512+). */
	for (long nr = 0; nr < 600; nr += nr < 512 ? 37 : 1)
		expect(&t, "x32", nr, "", open ? PROBE_REACHED : ENOSYS,
		       (int)call64(nr | 0x40000000L, 0, 0, 0, 0));
	if (int80) {
		for (long nr = 0; nr <= JR2_I386_MAX + PROBE_ABOVE; nr++) {
			int want = want_of(jr2_i386_refused, n32, JR2_I386_MAX,
					   nr, open);

			if (nr == JR2_I386_PRLIMIT64)
				expect(&t, "i386", nr, "another pid",
				       open ? PROBE_REACHED : EPERM,
				       (int)call32(nr, other, 0, 1, 0,
						   PROBE_COOKIE));
			else if (nr == JR2_I386_FCNTL || nr == JR2_I386_FCNTL64)
				expect(&t, "i386", nr, "F_SETLEASE",
				       open ? PROBE_REACHED : EPERM,
				       (int)call32(nr, 0, F_SETLEASE, 0, 0,
						   PROBE_COOKIE));
			else if (nr == JR2_I386_SETSOCKOPT) {
				expect(&t, "i386", nr, "SO_PASSRIGHTS",
				       open ? PROBE_REACHED : EPERM,
				       (int)call32(nr, 0, SOL_SOCKET,
						   SO_PASSRIGHTS, 0,
						   PROBE_COOKIE));
				expect(&t, "i386", nr, "SO_REUSEADDR",
				       PROBE_REACHED,
				       (int)call32(nr, 0, SOL_SOCKET,
						   SO_REUSEADDR, 0,
						   PROBE_COOKIE));
			} else if (nr == JR2_I386_SOCKETCALL) {
				/* linux/net.h: 14 SYS_SETSOCKOPT, 1 SYS_SOCKET
				 */
				expect(
				    &t, "i386", nr, "SYS_SETSOCKOPT",
				    open ? PROBE_REACHED : EPERM,
				    (int)call32(nr, 14, 0, 0, 0, PROBE_COOKIE));
				expect(
				    &t, "i386", nr, "SYS_SOCKET", PROBE_REACHED,
				    (int)call32(nr, 1, 0, 0, 0, PROBE_COOKIE));
			} else
				expect(
				    &t, "i386", nr, "", want,
				    (int)call32(nr, 0, 0, 0, 0, PROBE_COOKIE));
		}
	}
	printf("census: %u checked, %u differ%s\n", t.checked, t.differ,
	       int80 ? "" : " (no i386 table here)");
}

/* Whether int 0x80 reaches a table here (getpid, not probed). */
static bool has_int80(void)
{
	struct sigaction sa = {.sa_handler = int80_fault}, old;
	bool has = false;

	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(no_int80, 1))
		has = call32(20, 0, 0, 0, 0, 0) != ENOSYS;
	sigaction(SIGSEGV, &old, NULL);
	return has;
}

/*
 * `sc-census open|filter`: the probe in a child this process traces; its
 * output, then "census: N checked, M differ".
 */
static int census(const struct try_call *c)
{
	bool open = !strcmp(c->arg[0], "open");
	int sync[2], status;
	bool int80 = has_int80();
	pid_t child;

	fflush(stdout);
	if (pipe(sync))
		return try_report(errno);
	child = fork();
	if (child == 0) {
		char go;

		close(sync[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (read(sync[0], &go, 1) != 1)
			_exit(1);
		probe(open, int80);
		fflush(stdout);
		_exit(0);
	}
	close(sync[0]);
	if (child < 0 || ptrace(PTRACE_SEIZE, child, 0,
				PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) {
		printf("tracer: %s\n", name_of(errno));
		return 1;
	}
	if (write(sync[1], "g", 1) != 1)
		return try_report(errno);
	while (waitpid(child, &status, __WALL) == child && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);

		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
			struct user_regs_struct regs;

			if (ptrace(PTRACE_GETREGS, child, 0, &regs))
				break;
			regs.orig_rax = -1UL;
			regs.rax = (unsigned long)-PROBE_REACHED;
			if (ptrace(PTRACE_SETREGS, child, 0, &regs))
				break;
			sig = 0;
		} else if (status >> 16) {
			sig = 0; /* another ptrace event */
		}
		ptrace(PTRACE_CONT, child, 0, sig);
	}
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}

const struct try_verb try_census_verbs[] = {
    {"sc-census", 1, "open|filter", census, 0,
     "the probe in a traced child: \"census: N checked, M differ\""},
    {NULL, 0, NULL, NULL, 0, NULL},
};
