// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-harness-start: what a start of `jr2-harness serve` costs, as ratios
 * against a baseline measured in the same run, round-robin so that drift of
 * the machine hits each way alike:
 *   fork+exec    the baseline: fork, execve /bin/true, waitpid
 *   serve        `jr2-harness serve` on a fresh root until its start line
 *                ("serving": a client can connect) and its spawner's
 *                ("confined": an exec runs), then SIGTERM and its exit
 *   serve (old)  the same of a second binary (--old PATH), e.g. the build
 *                of main, to compare before and after in one run
 * Wall times are taken from the harness's log lines as they arrive on a
 * pipe; CPU time is the user+sys of the harness and every process it
 * waited for (its spawner), from wait4(): a start and its stop.  Runs as
 * root in its own mount and network namespaces, on a tmpfs; prints the
 * load average, since the machine is shared.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_root.h"
#include "die.h"

#define ROOT	  "/run/jr2-bench-start"
#define ETC	  ROOT "/etc"
#define CONFIG	  ETC "/harness.conf"
#define TRUE_PATH "/bin/true"
#define ROUND	  5
#define MAX_WAYS  3
#define LOG_MAX	  65536

enum measure { SERVING, READY, CPU, MEASURES };

static const char *const measure_names[MEASURES] = {
    "wall to serving", "wall to ready", "cpu start+stop"};

struct way {
	const char *name;
	const char *harness; /* NULL: the baseline */
	double *samples[MEASURES];
};

/* The harness of the round under way: killed before any error exit. */
static pid_t running;

static void kill_running(void)
{
	if (running > 0) {
		kill(running, SIGKILL);
		waitpid(running, NULL, 0);
	}
}

static void unmount_root(void);

static void kill_running_and_unmount(void)
{
	kill_running();
	unmount_root();
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double rusage_us(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e6 +
	       (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

/* The baseline: fork, execve /bin/true, wait4; wall and CPU. */
static void fork_exec(struct way *w, int i)
{
	double start = now_us();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		jr2_die_path(JR2_EXIT_FAILURE, "cannot fork for", TRUE_PATH);
	if (pid == 0) {
		execl(TRUE_PATH, TRUE_PATH, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		jr2_die_path(JR2_EXIT_FAILURE, "a start failed:", TRUE_PATH);
	w->samples[SERVING][i] = now_us() - start;
	w->samples[READY][i] = w->samples[SERVING][i];
	w->samples[CPU][i] = rusage_us(&ru);
}

/* The harness's own files of the last start go: each start is a first. */
static void clean_root(void)
{
	static const char *const paths[] = {ROOT "/run/jr2/home",
					    ROOT "/run/jr2/control.bearer",
					    ROOT "/run/jr2", ROOT "/run"};

	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++)
		if (rmdir(paths[i]) && errno == ENOTDIR)
			unlink(paths[i]);
}

/*
 * One start: its log on a pipe, each line timed as it arrives; SIGTERM once
 * the spawner is confined, then the exit and its rusage.
 */
static void serve_once(struct way *w, int i)
{
	char log[LOG_MAX];
	size_t len = 0;
	double start, serving = 0, ready = 0;
	struct rusage ru;
	int pipefd[2], status;

	clean_root();
	if (pipe2(pipefd, O_CLOEXEC))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot make a pipe for",
			     w->harness);
	start = now_us();
	running = fork();
	if (running < 0)
		jr2_die_path(JR2_EXIT_FAILURE, "cannot fork for", w->harness);
	if (running == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(pipefd[1], 2);
		execl(w->harness, w->harness, "serve", "--root", ROOT,
		      "--config", CONFIG, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n = read(pipefd[0], log + len, sizeof(log) - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		log[len] = '\0';
		if (!serving && strstr(log, "jr2-harness: serving;"))
			serving = now_us() - start;
		if (!ready && strstr(log, ") confined at Landlock ABI")) {
			ready = now_us() - start;
			kill(running, SIGTERM);
		}
		if (len == sizeof(log) - 1)
			len = 0; /* what counts is early: the rest is kept */
	}
	close(pipefd[0]);
	if (wait4(running, &status, 0, &ru) != running)
		jr2_die_path(JR2_EXIT_FAILURE, "cannot wait for", w->harness);
	running = 0;
	if (!serving || !ready || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s", log);
		jr2_die(JR2_EXIT_FAILURE,
			"'%s serve' did not start and stop cleanly (status "
			"0x%x, %s); see its log above",
			w->harness, (unsigned int)status,
			!serving ? "no start line"
			: !ready ? "no ready spawner"
				 : "exit");
	}
	w->samples[SERVING][i] = serving;
	w->samples[READY][i] = ready;
	w->samples[CPU][i] = rusage_us(&ru);
}

/* The root's tmpfs (bench_make_root) and the folder it is mounted on. */
static void unmount_root(void)
{
	umount2(ROOT, MNT_DETACH);
	rmdir(ROOT);
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print_load(const char *when)
{
	double load[3];

	if (getloadavg(load, 3) == 3)
		printf("load average %s: %.2f %.2f %.2f\n", when, load[0],
		       load[1], load[2]);
}

static void report(struct way *ways, int n_ways, int n)
{
	double median[MAX_WAYS][MEASURES];

	printf("%-12s %-16s %10s %10s %10s\n", "way", "measure", "median us",
	       "p10 us", "p90 us");
	for (int w = 0; w < n_ways; w++) {
		for (int m = 0; m < MEASURES; m++) {
			double *v = ways[w].samples[m];

			qsort(v, (size_t)n, sizeof(double), compare);
			median[w][m] = v[n / 2];
			if (w == 0 && m == READY)
				continue; /* the baseline has one wall time */
			printf("%-12s %-16s %10.0f %10.0f %10.0f\n",
			       ways[w].name, measure_names[m], median[w][m],
			       v[n / 10], v[n * 9 / 10]);
		}
	}
	for (int w = 1; w < n_ways; w++)
		printf("ratio %s / fork+exec: wall to serving %.1f, to ready "
		       "%.1f, cpu %.1f\n",
		       ways[w].name, median[w][SERVING] / median[0][SERVING],
		       median[w][READY] / median[0][SERVING],
		       median[w][CPU] / median[0][CPU]);
	if (n_ways == 3)
		printf("ratio serve / serve (old): wall to serving %.3f, to "
		       "ready %.3f, cpu %.3f\n",
		       median[1][SERVING] / median[2][SERVING],
		       median[1][READY] / median[2][READY],
		       median[1][CPU] / median[2][CPU]);
}

int main(int argc, char **argv)
{
	struct way ways[MAX_WAYS] = {{.name = "fork+exec"}};
	int n = 100, n_ways = 1;

	jr2_die_init("bench_start");
	jr2_die_set_cleanup(kill_running);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--harness") && i + 1 < argc)
			ways[1] = (struct way){"serve", argv[++i], {NULL}};
		else if (!strcmp(argv[i], "--old") && i + 1 < argc)
			ways[2] =
			    (struct way){"serve (old)", argv[++i], {NULL}};
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else
			jr2_die(JR2_EXIT_USAGE,
				"usage: bench_start --harness PATH [--old "
				"PATH] [-n N]; '%s' is not one of them",
				argv[i]);
	}
	if (!ways[1].harness || n < ROUND)
		jr2_die(JR2_EXIT_USAGE,
			"bench_start needs --harness PATH and -n of at least "
			"%d",
			ROUND);
	n_ways = ways[2].harness ? 3 : 2;
	for (int w = 0; w < n_ways; w++)
		for (int m = 0; m < MEASURES; m++)
			if (!(ways[w].samples[m] =
				  calloc((size_t)n, sizeof(double))))
				jr2_die_path(JR2_EXIT_FAILURE,
					     "out of memory for", "samples");
	bench_make_root(ROOT, ETC, CONFIG);
	jr2_die_set_cleanup(kill_running_and_unmount);
	print_load("before");
	/* Warm-up: each binary's pages in the page cache. */
	fork_exec(&ways[0], 0);
	for (int w = 1; w < n_ways; w++)
		serve_once(&ways[w], 0);
	for (int done = 0; done < n; done += ROUND)
		for (int w = 0; w < n_ways; w++)
			for (int i = done; i < done + ROUND && i < n; i++)
				if (w == 0)
					fork_exec(&ways[w], i);
				else
					serve_once(&ways[w], i);
	printf("start of `jr2-harness serve --root %s --config %s`, %d times "
	       "each, round-robin by %d\n",
	       ROOT, CONFIG, n, ROUND);
	report(ways, n_ways, n);
	print_load("after");
	unmount_root();
	return 0;
}
