// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every system call has a decision (docs/SYSCALLS.md): the census of the
 * kernel's x86_64 and i386 tables, and the seccomp filter of the
 * confinement step built from it (runtime/syscall_census.h).  Doors where a
 * system call changes the kernel's or another process's state without
 * opening a file, so that no Landlock hook is asked:
 *  - clone3's CLONE_INTO_CGROUP starts a child in any cgroup of a read-only
 *    descriptor (cgroup_may_write() is an inode permission check): clone3
 *    gives ENOSYS, and fork, posix_spawn, threads and pipelines still work
 *    (libc falls back to clone, which cannot name a cgroup);
 *  - fanotify with FAN_REPORT_FID and an inode mark needs only read
 *    permission of the path and reports every open and read of a protected
 *    file: fanotify_init and fanotify_mark give EPERM;
 *  - the mount API makes a detached mount that meets no Landlock hook: EPERM;
 *  - bpf's BPF_OBJ_GET of a pinned map needs only DAC permission of its path
 *    and gives the map writable: bpf gives EPERM;
 *  - a program's own seccomp filter cannot re-open what ours refuses;
 *  - the census probe: every number of both tables, the numbers above the
 *    census's highest and x32's, under the filter programs get, each refused
 *    with the census's errno or reaching the kernel.
 * Through `jr2-confine run` and `jr2-harness exec`; the control is the same
 * call unconfined.
 *
 * Promises: R1 R9
 */
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <setjmp.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "step_helpers.h"
#include "syscall_census.h"

#define SC_OUT_SIZE 16384
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef SYS_uretprobe
#define SYS_uretprobe 335
#endif
#ifndef SYS_uprobe
#define SYS_uprobe 336
#endif

#ifndef FAN_CLASS_NOTIF
#define FAN_CLASS_NOTIF 0x00000000
#endif
#define SC_FAN_REPORT_FID    0x00000200
#define SC_FAN_MARK_ADD	     0x00000001
#define SC_FAN_OPEN	     0x00000020
#define SC_CLONE_INTO_CGROUP 0x200000000ULL

/* clone3's argument, as linux/sched.h has it (its CLONE_ names clash with
   sched.h's). */
struct sc_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
	    stack_size, tls, set_tid, set_tid_size, cgroup;
};

/* ---- the helper verbs (`--step-helper sc-*`) ---- */

static const char *sc_name(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

static long sc_bpf_call(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* An array map of one element, 4-byte key and value: its fd, or -1. */
static int sc_bpf_map_create(void)
{
	union bpf_attr attr = {.map_type = BPF_MAP_TYPE_ARRAY,
			       .key_size = sizeof(uint32_t),
			       .value_size = sizeof(uint32_t),
			       .max_entries = 1};

	return (int)sc_bpf_call(BPF_MAP_CREATE, &attr);
}

/* Element 0 of the map `fd`: set to `value` (write) or read into it. */
static int sc_bpf_elem(int fd, bool write, uint32_t *value)
{
	uint32_t key = 0;
	union bpf_attr attr = {.map_fd = (uint32_t)fd,
			       .key = (uintptr_t)&key,
			       .value = (uintptr_t)value};

	return (int)sc_bpf_call(
	    write ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM, &attr);
}

/*
 * BPF_OBJ_GET of the pinned map `path` and, with the fd it gives, element 0
 * set to `value`; then BPF_MAP_CREATE of a map of its own.  One line:
 * "obj_get:ok update:ok map_create:ok", or the errno of each call made.
 */
static int sc_bpf(const char *path, const char *value)
{
	union bpf_attr attr = {.pathname = (uintptr_t)path};
	uint32_t v = (uint32_t)strtoul(value, NULL, 10);
	int fd = (int)sc_bpf_call(BPF_OBJ_GET, &attr);

	printf("obj_get:%s", sc_name(fd < 0 ? errno : 0));
	if (fd >= 0)
		printf(" update:%s",
		       sc_name(ST_ERR(sc_bpf_elem(fd, true, &v))));
	fd = sc_bpf_map_create();
	printf(" map_create:%s\n", sc_name(fd < 0 ? errno : 0));
	return 0;
}

/* clone3, with CLONE_INTO_CGROUP of `cgroup` (a dir) unless it is "-". */
static int sc_clone3(const char *cgroup)
{
	struct sc_clone_args args = {.exit_signal = SIGCHLD};
	long pid;
	int fd = -1, status;

	if (strcmp(cgroup, "-")) {
		fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return st_print_errno(errno);
		args.flags = SC_CLONE_INTO_CGROUP;
		args.cgroup = (unsigned int)fd;
	}
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return st_print_errno(errno);
	waitpid((pid_t)pid, &status, 0);
	return st_print_errno(0);
}

static void *sc_thread(void *arg)
{
	return arg;
}

/* fork, posix_spawn, a thread, a shell pipeline: "ok" or what failed. */
static int sc_spawn(void)
{
	static char *const true_argv[] = {"true", NULL};
	static char *const pipeline[] = {
	    "sh", "-c", "test \"$(echo jr2 | cat | tr j J)\" = Jr2", NULL};
	pthread_t thread;
	pid_t pid;
	int status, err;

	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status)
		return printf("fork: %s\n", sc_name(errno)), 1;
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, true_argv, environ);
	if (err || waitpid(pid, &status, 0) < 0 || status)
		return printf("posix_spawn: %s\n", sc_name(err)), 1;
	err = pthread_create(&thread, NULL, sc_thread, NULL);
	if (err || pthread_join(thread, NULL))
		return printf("pthread_create: %s\n", sc_name(err)), 1;
	err = posix_spawn(&pid, "/bin/sh", NULL, NULL, pipeline, environ);
	if (err || waitpid(pid, &status, 0) < 0 || status)
		return printf("pipeline: %s status %d\n", sc_name(err), status),
		       1;
	printf("ok fork posix_spawn pthread_create pipeline\n");
	return 0;
}

/* Made by a watcher once it watches; the test then reads the file. */
#define SC_WATCHING ST_FREE "/watching"
#define SC_WATCHED  "notify-me"

/* Waits up to 10 s for fd to be readable: 1, or 0 at the deadline. */
static int sc_wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 10000) == 1;
}

/*
 * An inotify watch on `dir`: then the kinds of event the watcher learns
 * about SC_WATCHED in it, in order, up to its close, one line ("watch ok
 * events: open access close" or the errno).  An event carries a kind, a
 * cookie and a name: never the file's bytes.
 */
static int sc_inotify(const char *dir)
{
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), done = 0;
	char buf[4096] __attribute__((aligned(8))), events[256] = "";

	if (fd < 0)
		return printf("init %s\n", sc_name(errno)), 1;
	if (inotify_add_watch(fd, dir, IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE) <
	    0)
		return printf("watch %s\n", sc_name(errno)), 1;
	if (mknod(SC_WATCHING, S_IFREG | 0600, 0))
		return printf("marker %s\n", sc_name(errno)), 1;
	while (!done && sc_wait_readable(fd)) {
		ssize_t n = read(fd, buf, sizeof(buf));

		for (ssize_t at = 0; at < n;) {
			const struct inotify_event *e = (void *)(buf + at);

			at += (ssize_t)(sizeof(*e) + e->len);
			if (!e->len || strcmp(e->name, SC_WATCHED))
				continue; /* another file of the dir */
			strcat(events, e->mask & IN_OPEN     ? " open"
				       : e->mask & IN_ACCESS ? " access"
							     : " close");
			done = !!(e->mask & IN_CLOSE_NOWRITE);
		}
	}
	printf("watch ok events:%s\n", done ? events : " none by 10 s");
	return 0;
}

/*
 * dnotify: `dir` opened (listing it is allowed, R7), then F_NOTIFY with a
 * signal of its own: what the watcher learns when a file in it is read
 * ("signal for the dir" or the errno).  The signal names the dir's
 * descriptor, not the file.  An O_PATH descriptor takes no F_NOTIFY.
 */
static int sc_dnotify(const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct timespec deadline = {.tv_sec = 10};
	siginfo_t info;
	sigset_t set;

	if (fd < 0 || fcntl(fd, F_NOTIFY, DN_ACCESS) != -1 || errno != EBADF)
		return printf("O_PATH F_NOTIFY not EBADF\n"), 1;
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return printf("open %s\n", sc_name(errno)), 1;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (fcntl(fd, F_SETSIG, SIGRTMIN) || fcntl(fd, F_NOTIFY, DN_ACCESS))
		return printf("notify %s\n", sc_name(errno)), 1;
	if (mknod(SC_WATCHING, S_IFREG | 0600, 0))
		return printf("marker %s\n", sc_name(errno)), 1;
	if (sigtimedwait(&set, &info, &deadline) != SIGRTMIN)
		return printf("no signal by 10 s\n"), 1;
	printf("signal for the %s\n", info.si_fd == fd ? "dir" : "other");
	return 0;
}

/* fanotify_init(FAN_REPORT_FID), then an inode mark on `dir`. */
static int sc_fanotify(const char *dir)
{
	int fd = (int)syscall(SYS_fanotify_init,
			      FAN_CLASS_NOTIF | SC_FAN_REPORT_FID, O_RDONLY);

	if (fd < 0)
		return printf("init %s\n", sc_name(errno)), 1;
	if (syscall(SYS_fanotify_mark, fd, SC_FAN_MARK_ADD, SC_FAN_OPEN,
		    AT_FDCWD, dir))
		return printf("mark %s\n", sc_name(errno)), 1;
	printf("ok\n");
	return 0;
}

/* fanotify_mark of no group (-1): EBADF from the kernel, or ours. */
static int sc_fanotify_mark(void)
{
	return st_print_errno(
	    ST_ERR(syscall(SYS_fanotify_mark, -1, SC_FAN_MARK_ADD, SC_FAN_OPEN,
			   AT_FDCWD, "/")));
}

/*
 * The mount API, each call in a way that changes nothing, in a user and
 * mount namespace of the program's own (where it holds CAP_SYS_ADMIN, so
 * that only the filter can refuse): one line.
 */
static int sc_mount_api(void)
{
	struct {
		const char *name;
		long nr, a0, a1, a2, a3, a4;
	} calls[] = {
	    {"fsopen", 430, (long)"tmpfs", 0, 0, 0, 0},
	    {"fsconfig", 431, -1, 0, 0, 0, 0},
	    {"fsmount", 432, -1, 0, 0, 0, 0},
	    {"fspick", 433, AT_FDCWD, (long)"/", 0, 0, 0},
	    {"open_tree", 428, AT_FDCWD, (long)"/", 0, 0, 0},
	    {"open_tree_attr", 467, -1, (long)"", 0, 0, 0},
	    {"move_mount", 429, -1, (long)"", -1, (long)"", 0},
	    {"mount_setattr", 442, -1, (long)"", 0, 0, 0},
	};

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return printf("unshare: %s\n", sc_name(errno)), 1;
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++) {
		long fd = syscall(calls[i].nr, calls[i].a0, calls[i].a1,
				  calls[i].a2, calls[i].a3, calls[i].a4);

		printf("%s%s:%s", i ? " " : "", calls[i].name,
		       sc_name(fd < 0 ? errno : 0));
		if (fd >= 0)
			close((int)fd);
	}
	printf("\n");
	return 0;
}

/*
 * A filter of the program's own that allows every call, then three calls
 * ours refuses: "add_key:E clone3:E fanotify_init:E".
 */
static int sc_own_filter(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = 1, .filter = &allow};
	struct sc_clone_args args = {.exit_signal = SIGCHLD};
	long ret;
	int status;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return printf("own filter: %s\n", sc_name(errno)), 1;
	ret = syscall(SYS_add_key, "user", "jr2-own-filter", "x", 1,
		      KEY_SPEC_PROCESS_KEYRING);
	printf("add_key:%s", sc_name(ret < 0 ? errno : 0));
	ret = syscall(SYS_clone3, &args, sizeof(args));
	if (ret == 0)
		_exit(0);
	if (ret > 0)
		waitpid((pid_t)ret, &status, 0);
	printf(" clone3:%s", sc_name(ret < 0 ? errno : 0));
	ret = syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | SC_FAN_REPORT_FID,
		      O_RDONLY);
	printf(" fanotify_init:%s\n", sc_name(ret < 0 ? errno : 0));
	return 0;
}

/* ---- the census probe ---- */

/*
 * A probed call carries SC_COOKIE as its sixth argument.  The probe's own
 * filter gives those SECCOMP_RET_TRACE; ours, installed before, wins with
 * its errno where it refuses (ERRNO takes precedence over TRACE).  The
 * tracer skips every call that stops (orig_rax -1) and makes it return
 * -SC_REACHED: no probed call runs, whatever the filters decide (TRACE
 * without a tracer gives ENOSYS and runs nothing either).
 */
#define SC_COOKIE  0x6a723239U
#define SC_REACHED EL3HLT
#define SC_ABOVE   16 /* numbers probed above the census's highest */

static long sc_call64(long nr, long a0, long a1, long a2, long a3)
{
	long ret;
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = SC_COOKIE;

	/* r9 is cleared after the call: no later call carries the cookie. */
	__asm__ volatile("syscall\n\t"
			 "xor %%r9d, %%r9d"
			 : "=a"(ret), "+r"(r9)
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret < 0 && ret > -4096 ? -ret : 0;
}

static sigjmp_buf sc_no_int80;

static void sc_int80_fault(int sig)
{
	siglongjmp(sc_no_int80, sig);
}

/* int 0x80: the i386 table (ebp is the sixth argument). */
static long sc_call32(long nr, long a0, long a1, long a2, long a3, long a5)
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

struct sc_tally {
	unsigned int checked, differ;
};

static void sc_expect(struct sc_tally *t, const char *table, long nr,
		      const char *what, int want, int got)
{
	t->checked++;
	if (want == got)
		return;
	t->differ++;
	printf("%s %ld %s: want %s got %s\n", table, nr, what,
	       want == SC_REACHED ? "the kernel" : sc_name(want),
	       got == SC_REACHED ? "the kernel" : sc_name(got));
}

/* The census's decision for nr in one table (`open`: every call reaches). */
static int sc_want(const struct jr2_syscall_rule *refused, size_t n,
		   unsigned int max, long nr, bool open)
{
	if (open)
		return SC_REACHED;
	for (size_t i = 0; i < n; i++)
		if (refused[i].nr == nr)
			return refused[i].err;
	return nr > max ? ENOSYS : SC_REACHED;
}

/* The probe itself, in the traced child; `open`: no filter but the probe's. */
static void sc_probe(bool open, bool int80)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, args[5])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_COOKIE, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = 4, .filter = f};
	struct sc_tally t = {0, 0};
	const long other = 1; /* another pid: init */
	const size_t n64 =
	    sizeof(jr2_x86_64_refused) / sizeof(*jr2_x86_64_refused);
	const size_t n32 = sizeof(jr2_i386_refused) / sizeof(*jr2_i386_refused);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		printf("probe filter: %s\n", sc_name(errno));
		return;
	}
	for (long nr = 0; nr <= JR2_X86_64_MAX + SC_ABOVE; nr++) {
		int want =
		    sc_want(jr2_x86_64_refused, n64, JR2_X86_64_MAX, nr, open);

		if (nr == SYS_uretprobe || nr == SYS_uprobe) {
			/* Seccomp passes them to the kernel unfiltered (6.13+),
			   which sends SIGILL outside a probe's trampoline: no
			   filter decides them (the census: allowed). */
			continue;
		}
		if (nr == JR2_X86_64_PRLIMIT64) {
			sc_expect(&t, "x86_64", nr, "another pid, new limits",
				  open ? SC_REACHED : EPERM,
				  (int)sc_call64(nr, other, 0, 1, 0));
			/* the program's own: reaches the kernel */
			sc_expect(&t, "x86_64", nr, "own", SC_REACHED,
				  (int)sc_call64(nr, 0, 0, 1, 0));
		} else if (nr == JR2_X86_64_FCNTL) {
			sc_expect(&t, "x86_64", nr, "F_SETLEASE",
				  open ? SC_REACHED : EPERM,
				  (int)sc_call64(nr, 0, F_SETLEASE, 0, 0));
			sc_expect(&t, "x86_64", nr, "F_GETFL", SC_REACHED,
				  (int)sc_call64(nr, 0, F_GETFL, 0, 0));
		} else {
			sc_expect(&t, "x86_64", nr, "", want,
				  (int)sc_call64(nr, 0, 0, 0, 0));
		}
	}
	/* x32: bit 30 on a native number, and x32's own numbers (512+). */
	for (long nr = 0; nr < 600; nr += nr < 512 ? 37 : 1)
		sc_expect(&t, "x32", nr, "", open ? SC_REACHED : ENOSYS,
			  (int)sc_call64(nr | 0x40000000L, 0, 0, 0, 0));
	if (int80) {
		for (long nr = 0; nr <= JR2_I386_MAX + SC_ABOVE; nr++) {
			int want = sc_want(jr2_i386_refused, n32, JR2_I386_MAX,
					   nr, open);

			if (nr == JR2_I386_PRLIMIT64)
				sc_expect(&t, "i386", nr, "another pid",
					  open ? SC_REACHED : EPERM,
					  (int)sc_call32(nr, other, 0, 1, 0,
							 SC_COOKIE));
			else if (nr == JR2_I386_FCNTL || nr == JR2_I386_FCNTL64)
				sc_expect(&t, "i386", nr, "F_SETLEASE",
					  open ? SC_REACHED : EPERM,
					  (int)sc_call32(nr, 0, F_SETLEASE, 0,
							 0, SC_COOKIE));
			else
				sc_expect(
				    &t, "i386", nr, "", want,
				    (int)sc_call32(nr, 0, 0, 0, 0, SC_COOKIE));
		}
	}
	printf("census: %u checked, %u differ%s\n", t.checked, t.differ,
	       int80 ? "" : " (no i386 table here)");
}

/* Whether int 0x80 reaches a table here (getpid, not probed). */
static bool sc_has_int80(void)
{
	struct sigaction sa = {.sa_handler = sc_int80_fault}, old;
	bool has = false;

	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(sc_no_int80, 1))
		has = sc_call32(20, 0, 0, 0, 0, 0) != ENOSYS;
	sigaction(SIGSEGV, &old, NULL);
	return has;
}

/*
 * `sc-census open|filter`: the probe in a child this process traces; its
 * output, then "census: N checked, M differ".
 */
static int sc_census(bool open)
{
	int sync[2], status;
	bool int80 = sc_has_int80();
	pid_t child;

	fflush(stdout);
	if (pipe(sync))
		return st_print_errno(errno);
	child = fork();
	if (child == 0) {
		char go;

		close(sync[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (read(sync[0], &go, 1) != 1)
			_exit(1);
		sc_probe(open, int80);
		fflush(stdout);
		_exit(0);
	}
	close(sync[0]);
	if (child < 0 || ptrace(PTRACE_SEIZE, child, 0,
				PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) {
		printf("tracer: %s\n", sc_name(errno));
		return 1;
	}
	if (write(sync[1], "g", 1) != 1)
		return st_print_errno(errno);
	while (waitpid(child, &status, __WALL) == child && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);

		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
			struct user_regs_struct regs;

			if (ptrace(PTRACE_GETREGS, child, 0, &regs))
				break;
			regs.orig_rax = -1UL;
			regs.rax = (unsigned long)-SC_REACHED;
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

static int sc_helper(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[0], "sc-census"))
		return sc_census(!strcmp(argv[1], "open"));
	if (argc == 2 && !strcmp(argv[0], "sc-clone3"))
		return sc_clone3(argv[1]);
	if (argc == 1 && !strcmp(argv[0], "sc-spawn"))
		return sc_spawn();
	if (argc == 2 && !strcmp(argv[0], "sc-fanotify"))
		return sc_fanotify(argv[1]);
	if (argc == 1 && !strcmp(argv[0], "sc-fanotify-mark"))
		return sc_fanotify_mark();
	if (argc == 3 && !strcmp(argv[0], "sc-bpf"))
		return sc_bpf(argv[1], argv[2]);
	if (argc == 2 && !strcmp(argv[0], "sc-inotify"))
		return sc_inotify(argv[1]);
	if (argc == 2 && !strcmp(argv[0], "sc-dnotify"))
		return sc_dnotify(argv[1]);
	if (argc == 1 && !strcmp(argv[0], "sc-mount-api"))
		return sc_mount_api();
	if (argc == 1 && !strcmp(argv[0], "sc-own-filter"))
		return sc_own_filter();
	fprintf(stderr, "syscalls_test: unknown verb '%s'\n", argv[0]);
	return 101;
}

/* ---- the tests ---- */

ST_FIXTURE(syscalls)

/* The helper's whole output by `path` (the census prints many lines). */
static const char *sc_help(struct st *st, enum st_path path, const char *verb,
			   const char *arg)
{
	static char out[SC_OUT_SIZE];
	const char *const argv[] = {verb, arg, NULL};

	st_help_opts(st, path, NULL, false, argv, out, sizeof(out));
	return out;
}

/* The last line of out (the census's tally), in place. */
static const char *sc_last_line(const char *out)
{
	static char line[256];
	size_t n = strlen(out);
	const char *start;

	while (n && out[n - 1] == '\n')
		n--;
	start = out + n;
	while (start > out && start[-1] != '\n')
		start--;
	snprintf(line, sizeof(line), "%.*s", (int)(out + n - start), start);
	return line;
}

TEST_F(syscalls, R9_census_decides_every_number)
{
	struct st *st = &self->st;
	char want[128];
	const char *out;

	ST_START(st);
	/* Control: unconfined, every probed call reaches the kernel (the
	   probe's tracer sees each one and lets none run). */
	out = sc_help(st, ST_UNCONFINED, "sc-census", "open");
	if (!strncmp(out, "tracer: ", 8))
		SKIP(return,
			   "the probe cannot trace its own child here (%.40s): "
			   "Yama's ptrace_scope above 1?",
			   out);
	ASSERT_NE(NULL, strstr(out, "census: "))
	{
		TH_LOG("%s", out);
	}
	ASSERT_NE(NULL, strstr(sc_last_line(out), " checked, 0 differ"))
	{
		TH_LOG("unconfined: %s", out);
	}
	snprintf(want, sizeof(want), "%s", sc_last_line(out));
	TH_LOG("unconfined: %s", want);
	if (strstr(want, "no i386 table"))
		TH_LOG("int 0x80 reaches no table here: the i386 part is left "
		       "out");
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		out = sc_help(st, path, "sc-census", "filter");
		ASSERT_STREQ(want, sc_last_line(out))
		{
			TH_LOG("%s:\n%s", st_path_name[path], out);
		}
	}
}

/*
 * The cgroup v2 folder this test runs in (moving into it is no move), under
 * /sys/fs/cgroup, where cgroup v2 is mounted or this test mounts it.  ""
 * when there is none.
 */
static void sc_own_cgroup(struct __test_metadata *_metadata, char *dir,
			  size_t size)
{
	char line[PATH_MAX], rel[PATH_MAX] = "";
	const char *root = "/sys/fs/cgroup";
	FILE *f = fopen("/proc/self/cgroup", "re");
	struct statfs fs;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			snprintf(rel, sizeof(rel), "%.*s",
				 (int)strcspn(line + 3, "\n"), line + 3);
	if (f)
		fclose(f);
	dir[0] = '\0';
	if (!rel[0]) {
		TH_LOG("no cgroup v2 line in /proc/self/cgroup");
		return;
	}
	/* Over /sys/fs/cgroup in this test's private mount namespace: under
	   /sys, a read-only tree (elsewhere the runtime would refuse a kernel
	   file system that shows a restricted one again). */
	if (statfs(root, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		if (mount("cgroup2", root, "cgroup2", 0, NULL)) {
			TH_LOG("mount of cgroup2: %s", strerror(errno));
			return;
		}
	}
	snprintf(dir, size, "%s%s", root, rel);
}

TEST_F(syscalls, R9_clone3_refused_spawning_works)
{
	struct st *st = &self->st;
	char cgroup[2 * PATH_MAX];

	sc_own_cgroup(_metadata, cgroup, sizeof(cgroup));
	ST_START(st);
	ASSERT_STREQ("ok", ST_HELP(st, ST_UNCONFINED, "sc-clone3", "-"));
	ASSERT_STREQ("ok fork posix_spawn pthread_create pipeline",
		     ST_HELP(st, ST_UNCONFINED, "sc-spawn"));
	if (cgroup[0] &&
	    strcmp(ST_HELP(st, ST_UNCONFINED, "sc-clone3", cgroup), "ok")) {
		TH_LOG("CLONE_INTO_CGROUP of %s unconfined: %s: left out",
		       cgroup, ST_HELP(st, ST_UNCONFINED, "sc-clone3", cgroup));
		cgroup[0] = '\0';
	} else if (cgroup[0]) {
		TH_LOG("CLONE_INTO_CGROUP of %s unconfined: ok", cgroup);
	}
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ("ENOSYS", ST_HELP(st, path, "sc-clone3", "-"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
		if (cgroup[0])
			ASSERT_STREQ("ENOSYS",
				     ST_HELP(st, path, "sc-clone3", cgroup))
			{
				TH_LOG("%s: CLONE_INTO_CGROUP %s",
				       st_path_name[path], cgroup);
			}
		ASSERT_STREQ("ok fork posix_spawn pthread_create pipeline",
			     ST_HELP(st, path, "sc-spawn"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
}

TEST_F(syscalls, R9_fanotify_refused)
{
	struct st *st = &self->st;
	char control[ST_OUT_SIZE];

	ST_START(st);
	/* Control: root marks the protected dir with FAN_REPORT_FID. */
	snprintf(control, sizeof(control), "%s",
		 ST_HELP(st, ST_UNCONFINED, "sc-fanotify", HX_PROTECTED));
	/* A kernel without CONFIG_FANOTIFY has no such door; the filter
	   refuses the calls before the kernel all the same. */
	if (!strcmp(control, "init ENOSYS")) {
		TH_LOG("fanotify: ENOSYS unconfined (no CONFIG_FANOTIFY): "
		       "the filter's refusal only");
	} else {
		/* A file system without a file system id refuses the mark;
		   the group is made all the same. */
		if (strcmp(control, "ok"))
			TH_LOG("unconfined: %s (the mark; the group was made)",
			       control);
		ASSERT_TRUE(!strcmp(control, "ok") ||
			    !strncmp(control, "mark ", 5))
		{
			TH_LOG("unconfined: %s", control);
		}
		ASSERT_STREQ("EBADF",
			     ST_HELP(st, ST_UNCONFINED, "sc-fanotify-mark"));
	}
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ("init EPERM",
			     ST_HELP(st, path, "sc-fanotify", HX_PROTECTED))
		{
			TH_LOG("%s", st_path_name[path]);
		}
		ASSERT_STREQ("EPERM", ST_HELP(st, path, "sc-fanotify-mark"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
}

/*
 * The test's own bpf file system, over /sys/fs/bpf in its private mount
 * namespace (the host's is never seen): the runtime refuses to confine where
 * a bpf file system is mounted outside /sys, whose kernel objects a work
 * folder's rights would expose.
 */
#define SC_BPF_DIR "/sys/fs/bpf"
#define SC_BPF_MAP SC_BPF_DIR "/jr2-map"

/*
 * A map of the test's, pinned at SC_BPF_MAP: its fd, or -1 with the reason
 * in `why` (no bpf in the kernel, no bpf file system).
 */
static int sc_bpf_pin(char *why, size_t size)
{
	union bpf_attr attr = {.pathname = (uintptr_t)SC_BPF_MAP};
	int map = sc_bpf_map_create();

	if (map < 0)
		return snprintf(why, size, "BPF_MAP_CREATE unconfined: %s",
				strerrorname_np(errno)),
		       -1;
	if (mount("bpf", SC_BPF_DIR, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0700"))
		return snprintf(why, size,
				"mount of a bpf file system on %s: %s",
				SC_BPF_DIR, strerrorname_np(errno)),
		       -1;
	attr.bpf_fd = (uint32_t)map;
	if (sc_bpf_call(BPF_OBJ_PIN, &attr))
		return snprintf(why, size, "BPF_OBJ_PIN at %s: %s", SC_BPF_MAP,
				strerrorname_np(errno)),
		       -1;
	return map;
}

/*
 * BPF_OBJ_GET needs only DAC permission of the pinned object's path (root
 * passes); no file is opened, so Landlock is not asked, and since Linux 6.5
 * unprivileged_bpf_disabled gates map creation and loading, not OBJ_GET.
 * The fd it gives writes a map an unconfined process made.  bpf is refused:
 * EPERM, before the path is looked up.
 */
TEST_F(syscalls, R9_bpf_refused)
{
	static const char refused[] = "obj_get:EPERM map_create:EPERM";
	struct st *st = &self->st;
	char why[160] = "", control[ST_OUT_SIZE];
	uint32_t value = 0;
	int map = sc_bpf_pin(why, sizeof(why));

	ST_START(st);
	/* Control: unconfined, the pinned map opens writable and its element
	   changes in the test's own map. */
	snprintf(control, sizeof(control), "%s",
		 ST_HELP(st, ST_UNCONFINED, "sc-bpf", SC_BPF_MAP, "42"));
	if (map < 0) {
		/* No map to reach: the kernel's own answer (ENOSYS, ENOENT) is
		   not the filter's. */
		TH_LOG("%s: the filter's refusal only (unconfined: %s)", why,
		       control);
		ASSERT_STRNE(refused, control);
	} else {
		ASSERT_STREQ("obj_get:ok update:ok map_create:ok", control);
		ASSERT_EQ(0, sc_bpf_elem(map, false, &value));
		ASSERT_EQ(42, value);
	}
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ(refused,
			     ST_HELP(st, path, "sc-bpf", SC_BPF_MAP, "666"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
	if (map >= 0) {
		ASSERT_EQ(0, sc_bpf_elem(map, false, &value));
		ASSERT_EQ(42, value);
	}
}

/* The test's side: once the watcher watches, reads the watched file. */
static void *sc_reader(void *arg)
{
	char buf[64];
	int fd;

	(void)arg;
	for (int i = 0; i < 1000 && access(SC_WATCHING, F_OK); i++)
		usleep(10000);
	fd = open(HX_PROTECTED "/" SC_WATCHED, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return NULL;
}

/* The watcher's line while the test reads the watched file. */
static const char *sc_watch(struct st *st, enum st_path path, const char *verb)
{
	static char out[ST_OUT_SIZE];
	const char *const argv[] = {verb, HX_PROTECTED, NULL};
	pthread_t reader;

	unlink(SC_WATCHING);
	if (pthread_create(&reader, NULL, sc_reader, NULL))
		return "pthread_create failed";
	st_help_opts(st, path, NULL, false, argv, out, sizeof(out));
	pthread_join(reader, NULL);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * inotify and dnotify are allowed: a known gap (SECURITY.md).  A watch
 * needs only DAC read of the path (root passes) and Landlock is not asked;
 * refusing the calls would stop every file watcher of build tools and
 * editors.  What a program learns of a file of the protected dir: that it
 * was opened, read, closed, made or removed, when, and its name (inotify;
 * this test reads one file: open, access, close); that something in the
 * dir was read, when (dnotify).  Never the bytes: the file itself opens to
 * nobody in the domain (R1, EACCES).
 */
TEST_F(syscalls, R1_R9_notify_learns_when_not_what)
{
	struct st *st = &self->st;
	const char *const read_it[] = {"read-file", HX_PROTECTED "/" SC_WATCHED,
				       NULL};
	char out[ST_OUT_SIZE];

	ST_START(st);
	fx_make_file(_metadata, HX_PROTECTED "/" SC_WATCHED, "s3cret\n", 0600);
	for (int path = ST_UNCONFINED; path <= ST_EXEC; path++) {
		ASSERT_STREQ("watch ok events: open access close",
			     sc_watch(st, path, "sc-inotify"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
		ASSERT_STREQ("signal for the dir",
			     sc_watch(st, path, "sc-dnotify"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
		st_try(st, path, read_it, out, sizeof(out));
		ASSERT_STREQ(
		    path == ST_UNCONFINED ? "ok\ns3cret\n" : "EACCES\n", out)
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
}

TEST_F(syscalls, R9_mount_api_refused)
{
	static const char refused[] =
	    "fsopen:EPERM fsconfig:EPERM fsmount:EPERM fspick:EPERM "
	    "open_tree:EPERM open_tree_attr:EPERM move_mount:EPERM "
	    "mount_setattr:EPERM";
	struct st *st = &self->st;
	const char *control;

	ST_START(st);
	/* Control: unconfined, in its own user namespace, fsopen and
	   open_tree give descriptors; the calls on no descriptor meet the
	   kernel's own checks. */
	control = ST_HELP(st, ST_UNCONFINED, "sc-mount-api");
	ASSERT_EQ(0, strncmp(control, "fsopen:ok ", 10));
	ASSERT_NE(NULL, strstr(control, " open_tree:ok "));
	ASSERT_EQ(NULL, strstr(control, "EPERM"))
	{
		TH_LOG("unconfined: %s", control);
	}
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ(refused, ST_HELP(st, path, "sc-mount-api"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
}

TEST_F(syscalls, R9_own_filter_cannot_reopen)
{
	struct st *st = &self->st;
	const char *control;

	ST_START(st);

	/* Control: unconfined, the allow-everything filter allows them
	   (fanotify_init: ENOSYS where the kernel has no CONFIG_FANOTIFY). */
	control = ST_HELP(st, ST_UNCONFINED, "sc-own-filter");
	ASSERT_TRUE(
	    !strcmp(control, "add_key:ok clone3:ok fanotify_init:ok") ||
	    !strcmp(control, "add_key:ok clone3:ok fanotify_init:ENOSYS"))
	{
		TH_LOG("unconfined: %s", control);
	}
	for (int path = ST_RUN; path <= ST_EXEC; path++) {
		ASSERT_STREQ("add_key:EPERM clone3:ENOSYS fanotify_init:EPERM",
			     ST_HELP(st, path, "sc-own-filter"))
		{
			TH_LOG("%s", st_path_name[path]);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--step-helper") &&
	    !strncmp(argv[2], "sc-", 3))
		return sc_helper(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--step-helper"))
		return st_helper(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--hx-helper"))
		return hx_helper(argc - 2, argv + 2);
	return test_harness_run(argc, argv);
}
