// SPDX-License-Identifier: GPL-2.0-only
/*
 * confine-bench: what confinement costs, as ratios measured in one run.
 *   compile  compile time and rule count (goal: at most 200) of jr2's
 *            defaults on this host, as found and with /run/jr2 and
 *            /opt/jr2 present (overlays in a private mount namespace; the
 *            host is not changed), then without jr2's CA variables (a
 *            bundle outside /opt/jr2 freezes its folders), and with /srv
 *            protected too (a protected dir on the root file system)
 *   open     an open+close loop on a file at depth 1 and at depth 12 of a
 *            tree laid out as jr2's (a tmpfs root in a private mount
 *            namespace), unconfined vs. confined under jr2's defaults,
 *            and vs. Landlock's floor (one rule granting all on "/")
 *   filter   the seccomp filter of the confinement step (every system call's
 *            decision, docs/SYSCALLS.md): the CPU time of a getppid loop
 *            and of a program's start (fork, execve /bin/true, exit) with
 *            and without it, alternating, and the time to install it
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "confine_step.h"
#include "policy.h"
#include "ruleset.h"

#define PROG "confine-bench"

static void die(const char *what, const char *value)
{
	int saved = errno;

	fprintf(stderr, PROG ": %s '%s': %s\n", what, value, strerror(saved));
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time: on a loaded machine, wall time mostly measures the queue. */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void private_mounts(void)
{
	if (unshare(CLONE_NEWNS))
		die("unshare", "CLONE_NEWNS");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("mount --make-rprivate", "/");
}

static void make_dirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			die("mkdir", buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		die("mkdir", buf);
}

/* jr2's defaults, plus `also` protected when not NULL. */
static void compile_defaults(const char *label, const char *also,
			     int iterations)
{
	struct jr2_policy policy;
	struct jr2_abi abi;
	double *t = calloc((size_t)iterations, sizeof(double));
	double *cpu = calloc((size_t)iterations, sizeof(double));
	size_t rules = 0, notes = 0;

	jr2_abi_probe(&abi, 0);
	jr2_policy_init(&policy);
	jr2_policy_set_defaults(&policy);
	if (also) {
		struct jr2_err err;

		if (jr2_policy_add_protected(&policy, also, &err))
			die(err.msg, also);
	}
	for (int i = 0; i < iterations; i++) {
		struct jr2_ruleset_plan plan;
		struct jr2_err err;
		double start = now_ns(), start_cpu = cpu_ns();

		if (jr2_policy_compile(&policy, abi.in_force, &plan, &err)) {
			fprintf(stderr, PROG ": compile: %s\n", err.msg);
			exit(1);
		}
		t[i] = now_ns() - start;
		cpu[i] = cpu_ns() - start_cpu;
		rules = plan.n_rules;
		notes = plan.notes.n;
		jr2_plan_free(&plan);
	}
	printf("compile %-26s ABI %d: %zu rules (goal <= 200: %s), %zu "
	       "notes, median %.0f us (goal <= 1000: %s), CPU %.0f us\n",
	       label, abi.in_force, rules, rules <= 200 ? "met" : "missed",
	       notes, median(t, (size_t)iterations) / 1e3,
	       median(t, (size_t)iterations) <= 1e6 ? "met" : "missed",
	       median(cpu, (size_t)iterations) / 1e3);
	jr2_policy_free(&policy);
	free(t);
	free(cpu);
}

/* An overlay on `dir` (upper on a private tmpfs) with `name` made in it. */
static void overlay_with(const char *dir, const char *name, int n)
{
	char upper[64], work[64], opts[256], path[256];

	snprintf(upper, sizeof(upper), "/tmp/ovl%d/upper", n);
	snprintf(work, sizeof(work), "/tmp/ovl%d/work", n);
	make_dirs(upper);
	make_dirs(work);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", dir,
		 upper, work);
	if (mount("overlay", dir, "overlay", 0, opts))
		die("mount overlay", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	make_dirs(path);
}

/* In a fresh process (exec'd by confine_defaults): one confinement. */
static int confine_once(void)
{
	struct jr2_policy policy;
	struct jr2_abi abi;
	struct jr2_err err;
	double start = now_ns(), start_cpu = cpu_ns();

	jr2_abi_probe(&abi, 0);
	jr2_policy_init(&policy);
	jr2_policy_set_defaults(&policy);
	if (jr2_confine_self(&policy, &abi, 0, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	printf("%.0f %.0f\n", now_ns() - start, cpu_ns() - start_cpu);
	return 0;
}

/* Probe, compile, build the ruleset, restrict: what `run` pays. */
static void confine_defaults(int iterations)
{
	double *t = calloc((size_t)iterations, sizeof(double));
	double *cpu = calloc((size_t)iterations, sizeof(double));
	char self[PATH_MAX], command[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len < 0)
		die("readlink", "/proc/self/exe");
	self[len] = '\0';
	snprintf(command, sizeof(command), "'%s' confine-once", self);
	for (int i = 0; i < iterations; i++) {
		FILE *child = popen(command, "r");

		if (!child || fscanf(child, "%lf %lf", &t[i], &cpu[i]) != 2 ||
		    pclose(child))
			die("run", "confine-bench confine-once");
	}
	printf("confine (probe, compile, ruleset, restrict) of the defaults, "
	       "in a fresh process: median %.0f us (CPU %.0f us)\n",
	       median(t, (size_t)iterations) / 1e3,
	       median(cpu, (size_t)iterations) / 1e3);
	free(t);
	free(cpu);
}

static int bench_compile(int iterations)
{
	pid_t pid;
	int status;

	confine_defaults(iterations / 4);
	compile_defaults("(host as found)", NULL, iterations);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		private_mounts();
		if (mount("bench", "/tmp", "tmpfs", 0, "size=16m"))
			die("mount tmpfs", "/tmp");
		overlay_with("/run", "jr2", 1);
		overlay_with("/opt", "jr2", 2);
		compile_defaults("(+/run/jr2, /opt/jr2)", NULL, iterations);
		/* jr2's CA variables name bundles under /opt/jr2 (or none):
		   nothing in /etc is frozen. */
		unsetenv("SSL_CERT_FILE");
		unsetenv("NODE_EXTRA_CA_CERTS");
		unsetenv("REQUESTS_CA_BUNDLE");
		unsetenv("GIT_SSL_CAINFO");
		unsetenv("CURL_CA_BUNDLE");
		compile_defaults("(same, no CA variable)", NULL, iterations);
		/* A protected dir on the file system of /etc and /usr: every
		   file beside a restricted path is stat'ed for its links. */
		compile_defaults("(+ /srv protected, on /)", "/srv",
				 iterations);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		die("fork", "compile");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ns per open+close of `path`, one loop. */
static double open_loop(const char *path, int iterations)
{
	double start = now_ns();

	for (int i = 0; i < iterations; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die("open", path);
		close(fd);
	}
	return (now_ns() - start) / iterations;
}

/*
 * The tree, jr2's layout on a tmpfs root:
 * /run/jr2 (protected), /repos, /opt/jr2, /etc/ssl/certs (read-only),
 * /f1 (depth 1), /d2/d3/.../d12/f12 (depth 12), /usr/bin, /home, /tmp.
 */
static void make_tree(void)
{
	static const char *const dirs[] = {
	    "/t/run/jr2",
	    "/t/repos/r",
	    "/t/opt/jr2/bin",
	    "/t/etc/ssl/certs",
	    "/t/usr/bin",
	    "/t/home/u",
	    "/t/tmp",
	    "/t/proc",
	    "/t/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12",
	};
	int fd;

	private_mounts();
	make_dirs("/tmp/confine-bench-root");
	if (mount("bench", "/tmp/confine-bench-root", "tmpfs", 0, "size=16m"))
		die("mount tmpfs", "/tmp/confine-bench-root");
	if (chdir("/tmp/confine-bench-root") || mkdir("t", 0755) ||
	    mount("bench-root", "t", "tmpfs", 0, "mode=755"))
		die("make root", "/tmp/confine-bench-root/t");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		char rel[256];

		snprintf(rel, sizeof(rel), "/tmp/confine-bench-root%s",
			 dirs[i]);
		make_dirs(rel);
	}
	if (mount("proc", "t/proc", "proc", 0, NULL) || chroot("t") ||
	    chdir("/"))
		die("chroot", "/tmp/confine-bench-root/t");
	fd = open("/f1", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		die("creat", "/f1");
	close(fd);
	fd = open("/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/f12",
		  O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		die("creat", "/d2/.../d12/f12");
	close(fd);
}

/* The cost of any Landlock domain: every right handled, all granted. */
static void confine_floor(void)
{
	struct jr2_abi abi;
	int ruleset, root;

	jr2_abi_probe(&abi, 0);
	ruleset = jr2_ruleset_create(jr2_abi_fs_rights(abi.in_force),
				     jr2_abi_scopes(abi.in_force));
	root = open("/", O_PATH | O_CLOEXEC);
	if (ruleset < 0 || root < 0 ||
	    jr2_ruleset_add_path(ruleset, root,
				 jr2_abi_fs_rights(abi.in_force)) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_ruleset_restrict(ruleset, 0))
		die("confine", "floor ruleset");
	close(root);
	close(ruleset);
}

enum variant { UNCONFINED, JR2_POLICY, FLOOR, VARIANTS };

/* A child per variant: sets up, then runs one loop per request. */
static void variant_child(enum variant v, int requests, int results,
			  int iterations)
{
	static const char *const files[2] = {
	    "/f1", "/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/f12"};
	cpu_set_t cpu;
	char depth;

	/* One CPU for every variant: no migration, the same caches. */
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	sched_setaffinity(0, sizeof(cpu), &cpu);
	make_tree();
	if (v == FLOOR)
		confine_floor();
	if (v == JR2_POLICY) {
		struct jr2_policy policy;
		struct jr2_abi abi;
		struct jr2_err err;

		jr2_abi_probe(&abi, 0);
		jr2_policy_init(&policy);
		jr2_policy_set_defaults(&policy);
		if (jr2_confine_self(&policy, &abi, 0, &err)) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			exit(1);
		}
	}
	while (read(requests, &depth, 1) == 1) {
		double ns = open_loop(files[(int)depth], iterations);

		if (write(results, &ns, sizeof(ns)) != sizeof(ns))
			exit(1);
	}
	exit(0);
}

/*
 * The variants take turns, round after round, so that the machine's noise
 * falls on all of them alike; each figure is the median of its rounds.
 */
static int bench_open(int iterations, int rounds)
{
	static const char *const names[VARIANTS] = {"unconfined", "jr2 policy",
						    "Landlock floor"};
	static const int depths[2] = {1, 12};
	int requests[VARIANTS], results[VARIANTS];
	double *t[VARIANTS][2], med[VARIANTS][2], low[VARIANTS][2];

	for (int v = 0; v < VARIANTS; v++) {
		int req[2], res[2];
		pid_t pid;

		if (pipe(req) || pipe(res))
			die("pipe", names[v]);
		pid = fork();
		if (pid < 0)
			die("fork", names[v]);
		if (pid == 0) {
			close(req[1]);
			close(res[0]);
			variant_child(v, req[0], res[1], iterations);
		}
		close(req[0]);
		close(res[1]);
		requests[v] = req[1];
		results[v] = res[0];
		for (int d = 0; d < 2; d++)
			t[v][d] = calloc((size_t)rounds, sizeof(double));
	}
	for (int r = 0; r < rounds; r++)
		for (int d = 0; d < 2; d++)
			for (int v = 0; v < VARIANTS; v++) {
				char depth = (char)d;

				if (write(requests[v], &depth, 1) != 1 ||
				    read(results[v], &t[v][d][r],
					 sizeof(double)) != sizeof(double)) {
					fprintf(stderr,
						PROG ": the %s loop failed\n",
						names[v]);
					return 1;
				}
			}
	for (int v = 0; v < VARIANTS; v++) {
		close(requests[v]);
		for (int d = 0; d < 2; d++) {
			med[v][d] = median(t[v][d], (size_t)rounds);
			low[v][d] = t[v][d][0]; /* sorted by median() */
		}
	}
	while (wait(NULL) > 0)
		;
	for (int d = 0; d < 2; d++) {
		double ratio = med[JR2_POLICY][d] / med[UNCONFINED][d];

		printf("open+close depth %-2d: median unconfined %.0f ns, jr2 "
		       "policy %.0f ns, ratio %.3f (goal <= 1.15: %s); fastest "
		       "round ratio %.3f; Landlock floor (1 rule) ratio %.3f\n",
		       depths[d], med[UNCONFINED][d], med[JR2_POLICY][d], ratio,
		       ratio <= 1.15 ? "met" : "missed",
		       low[JR2_POLICY][d] / low[UNCONFINED][d],
		       med[FLOOR][d] / med[UNCONFINED][d]);
	}
	return 0;
}

/* no_new_privs, then the filter: its install time in ns. */
static double install_filter(void)
{
	double t0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("prctl", "PR_SET_NO_NEW_PRIVS");
	t0 = now_ns();
	if (jr2_step_deny_kernel_doors())
		die("seccomp", "the confinement step's filter");
	return now_ns() - t0;
}

static double children_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* fork, execve /bin/true, wait: the CPU time of that program. */
static double start_true(void)
{
	double before = children_cpu_ns();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("start", "/bin/true");
	return children_cpu_ns() - before;
}

/*
 * One child, filtered or not (as the spawner: the filter installed once,
 * inherited by what it starts): the CPU time of a getppid call (a loop's
 * median share), of a start of /bin/true, and the filter's install time.
 */
static void filter_child(bool filtered, double out[3])
{
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		die("pipe", "");
	pid = fork();
	if (pid < 0)
		die("fork", "");
	if (pid == 0) {
		double v[3] = {0, 0, filtered ? install_filter() : 0}, c0;

		c0 = cpu_ns();
		for (int i = 0; i < 20000; i++)
			syscall(SYS_getppid);
		v[0] = (cpu_ns() - c0) / 20000;
		v[1] = start_true();
		_exit(write(fds[1], v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], out, 3 * sizeof(*out)) != 3 * sizeof(*out))
		die("read", "a child's figures");
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("child", "filter bench");
}

static int bench_filter(int rounds)
{
	double call[2][64], start[2][64], install[64];

	if (rounds > 64)
		rounds = 64;
	for (int r = 0; r < rounds; r++)
		for (int f = 0; f < 2; f++) {
			double v[3];

			filter_child(f, v);
			call[f][r] = v[0];
			start[f][r] = v[1];
			if (f)
				install[r] = v[2];
		}
	printf("seccomp filter of the confinement step, %d rounds "
	       "alternating, CPU time (medians)\n",
	       rounds);
	printf("getppid:          %8.1f ns unfiltered, %8.1f ns filtered, "
	       "ratio %.3f\n",
	       median(call[0], rounds), median(call[1], rounds),
	       median(call[1], rounds) / median(call[0], rounds));
	printf("start /bin/true:  %8.1f us unfiltered, %8.1f us filtered, "
	       "ratio %.3f\n",
	       median(start[0], rounds) / 1e3, median(start[1], rounds) / 1e3,
	       median(start[1], rounds) / median(start[0], rounds));
	printf("install:          %8.1f us (wall)\n",
	       median(install, rounds) / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "compile"))
		return bench_compile(200);
	if (argc == 2 && !strcmp(argv[1], "confine-once"))
		return confine_once();
	if (argc == 2 && !strcmp(argv[1], "open"))
		return bench_open(20000, 41);
	if (argc == 2 && !strcmp(argv[1], "filter"))
		return bench_filter(41);
	fprintf(stderr, "usage: " PROG " compile|open|filter\n"
			"  compile: compile time and rule count of jr2's "
			"defaults on this host\n"
			"  open:    open+close loop, unconfined vs. confined, "
			"depth 1 and 12\n"
			"  filter:  a system call and a start, with and "
			"without the seccomp filter\n");
	return 2;
}
