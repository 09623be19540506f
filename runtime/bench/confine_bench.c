// SPDX-License-Identifier: GPL-2.0-only
/*
 * confine-bench: what confinement costs, as ratios measured in one run.
 *   compile  compile time and rule count of jr2's defaults on this host, as
 *            found and with /run/jr2 and /opt/jr2 present (overlays in a
 *            private mount namespace; the host is not changed)
 *   open     an open+close loop on a file at depth 1 and at depth 12 of a
 *            tree laid out as jr2's (a tmpfs root in a private mount
 *            namespace), unconfined vs. confined under jr2's defaults
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy.h"

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

static void compile_defaults(const char *label, int iterations)
{
	struct jr2_policy policy;
	struct jr2_abi abi;
	double *t = calloc((size_t)iterations, sizeof(double));
	size_t rules = 0, notes = 0;

	jr2_abi_probe(&abi, 0);
	jr2_policy_init(&policy);
	jr2_policy_set_defaults(&policy);
	for (int i = 0; i < iterations; i++) {
		struct jr2_ruleset_plan plan;
		struct jr2_err err;
		double start = now_ns();

		if (jr2_policy_compile(&policy, abi.in_force, &plan, &err)) {
			fprintf(stderr, PROG ": compile: %s\n", err.msg);
			exit(1);
		}
		t[i] = now_ns() - start;
		rules = plan.n_rules;
		notes = plan.notes.n;
		jr2_plan_free(&plan);
	}
	printf("compile %-26s ABI %d: %zu rules, %zu notes, median %.0f us, "
	       "goal <= 1000 us and <= 200 rules: %s\n",
	       label, abi.in_force, rules, notes,
	       median(t, (size_t)iterations) / 1e3,
	       median(t, (size_t)iterations) <= 1e6 && rules <= 200 ? "met"
								    : "missed");
	jr2_policy_free(&policy);
	free(t);
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

static int bench_compile(int iterations)
{
	pid_t pid;
	int status;

	compile_defaults("(host as found)", iterations);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		private_mounts();
		if (mount("bench", "/tmp", "tmpfs", 0, "size=16m"))
			die("mount tmpfs", "/tmp");
		overlay_with("/run", "jr2", 1);
		overlay_with("/opt", "jr2", 2);
		compile_defaults("(+/run/jr2, /opt/jr2)", iterations);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		die("fork", "compile");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ns per open+close of `path`, the median of `rounds` loops. */
static double open_loop(const char *path, int iterations, int rounds)
{
	double *t = calloc((size_t)rounds, sizeof(double));
	double result;

	for (int r = 0; r < rounds; r++) {
		double start = now_ns();

		for (int i = 0; i < iterations; i++) {
			int fd = open(path, O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				die("open", path);
			close(fd);
		}
		t[r] = (now_ns() - start) / iterations;
	}
	result = median(t, (size_t)rounds);
	free(t);
	return result;
}

/*
 * The tree, jr2's layout on a tmpfs root:
 * /run/jr2 (protected), /repos, /opt/jr2, /etc/ssl/certs (read-only),
 * /f1 (depth 1), /d2/d3/.../d12/f12 (depth 12), /usr/bin, /home, /tmp.
 */
static void make_tree(void)
{
	static const char *const dirs[] = {
		"/t/run/jr2",	   "/t/repos/r",     "/t/opt/jr2/bin",
		"/t/etc/ssl/certs", "/t/usr/bin",     "/t/home/u",
		"/t/tmp",	   "/t/proc",
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

static int bench_open(int iterations, int rounds)
{
	static const char *const files[2] = {
		"/f1", "/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/f12"};
	static const int depths[2] = {1, 12};
	int pipes[2][2];
	double plain[2], confined[2];
	pid_t pid;

	for (int c = 0; c < 2; c++) {
		if (pipe(pipes[c]))
			die("pipe", "results");
		pid = fork();
		if (pid < 0)
			die("fork", "open loop");
		if (pid == 0) {
			double r[2];

			make_tree();
			if (c == 1) {
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
			for (int d = 0; d < 2; d++)
				r[d] = open_loop(files[d], iterations, rounds);
			if (write(pipes[c][1], r, sizeof(r)) != sizeof(r))
				exit(1);
			exit(0);
		}
		close(pipes[c][1]);
		if (waitpid(pid, NULL, 0) < 0)
			die("waitpid", "open loop");
		{
			double r[2];

			if (read(pipes[c][0], r, sizeof(r)) != sizeof(r)) {
				fprintf(stderr, PROG ": the %s loop failed\n",
					c ? "confined" : "unconfined");
				return 1;
			}
			for (int d = 0; d < 2; d++)
				(c ? confined : plain)[d] = r[d];
		}
	}
	for (int d = 0; d < 2; d++)
		printf("open+close depth %-2d: unconfined %.0f ns, confined "
		       "%.0f ns, ratio %.3f (goal <= 1.15: %s)\n",
		       depths[d], plain[d], confined[d],
		       confined[d] / plain[d],
		       confined[d] / plain[d] <= 1.15 ? "met" : "missed");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "compile"))
		return bench_compile(200);
	if (argc == 2 && !strcmp(argv[1], "open"))
		return bench_open(200000, 7);
	fprintf(stderr, "usage: " PROG " compile|open\n"
			"  compile: compile time and rule count of jr2's "
			"defaults on this host\n"
			"  open:    open+close loop, unconfined vs. confined, "
			"depth 1 and 12\n");
	return 2;
}
