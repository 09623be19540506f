// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-harness: start and reap /bin/true N times four ways, in one run,
 * round-robin so that drift of the machine hits each way alike:
 *   fork+exec      the baseline: fork, execve, waitpid
 *   spawner        a request on the harness's control channel until the
 *                  program's exit status comes back (the harness reaps it);
 *                  its program starts in the layer requests without a
 *                  Stand-in share
 *   spawner+secret the same with --secret: a Landlock layer of its own
 *   jr2-confine    fork+exec of `jr2-confine run --protect DIR -- /bin/true`
 *   bwrap          fork+exec of `bwrap --ro-bind / / --tmpfs DIR /bin/true`
 * and the peak RSS (VmHWM) of the harness and of its spawner.  Runs as root
 * in its own mount and network namespaces, on a tmpfs.  Where a start
 * through the spawner spends its time, step by step: scripts/spawn-phases.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "bench_root.h"
#include "die.h"
#include "request.h"

#define ROOT	  "/mnt/jr2-bench"
#define PROTECTED ROOT "/run/jr2"
#define ETC	  ROOT "/etc"
#define CONFIG	  ETC "/harness.conf"
#define TRUE_PATH "/bin/true"
#define ROUND	  25

enum way { FORK_EXEC, SPAWNER, SPAWNER_SECRET, CONFINE, BWRAP, WAYS };

static const char *const way_names[WAYS] = {
    "fork+exec", "spawner", "spawner+secret", "jr2-confine run", "bwrap"};

/* The harness under test: stopped before any error exit, so none is left. */
static pid_t harness_pid;

static void stop_harness(void)
{
	if (harness_pid > 0) {
		kill(harness_pid, SIGTERM);
		waitpid(harness_pid, NULL, 0);
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void run_and_reap(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		jr2_die_path(JR2_EXIT_FAILURE, "cannot fork for", argv[0]);
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		jr2_die_path(JR2_EXIT_FAILURE, "a start failed:", argv[0]);
}

/* One start through the harness: request, "started", "exit 0". */
static void through_spawner(const struct jr2_msg *request)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int stdio[3] = {0, 1, 2};
	char answer[256];
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/control.sock",
		 PROTECTED);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot connect to",
			     addr.sun_path);
	if (jr2_send_msg(sock, request->buf, request->len, stdio, 3))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot send to", addr.sun_path);
	for (int i = 0; i < 2; i++) {
		ssize_t n = recv(sock, answer, sizeof(answer) - 1, 0);

		if (n <= 0)
			jr2_die_path(JR2_EXIT_FAILURE, "no answer from",
				     addr.sun_path);
		answer[n] = '\0';
	}
	if (strcmp(answer, "exit 0\n"))
		jr2_die_path(JR2_EXIT_FAILURE,
			     "the program did not exit 0:", answer);
	close(sock);
}

static long peak_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *file;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	file = fopen(path, "re");
	while (file && fgets(line, sizeof(line), file))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (file)
		fclose(file);
	return kib;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "status" text: the value of `key`. */
static long status_field(const char *harness, const char *key)
{
	char cmd[PATH_MAX + 64], line[256];
	long value = -1;
	FILE *pipe;

	snprintf(cmd, sizeof(cmd), "%s status --root %s 2>/dev/null", harness,
		 ROOT);
	pipe = popen(cmd, "r");
	while (pipe && fgets(line, sizeof(line), pipe))
		if (!strncmp(line, key, strlen(key)) &&
		    line[strlen(key)] == ':')
			value = atol(line + strlen(key) + 1);
	if (pipe)
		pclose(pipe);
	return value;
}

/*
 * A harness serving a fresh tmpfs root (its own mount and network
 * namespaces), with one Held secret; waits for its spawner and reads the
 * bearer it made.
 */
static void start_harness(const char *harness, char *bearer, size_t size)
{
	FILE *file;

	bench_make_root(ROOT, ETC, CONFIG);
	harness_pid = fork();
	if (harness_pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(harness, harness, "serve", "--root", ROOT, "--config",
		      CONFIG, NULL);
		_exit(127);
	}
	for (int i = 0; i < 2000 && status_field(harness, "spawner_ready") < 0;
	     i++)
		usleep(5000);
	file = fopen(PROTECTED "/control.bearer", "re");
	if (!file || !fgets(bearer, (int)size, file))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot read the bearer of",
			     PROTECTED);
	fclose(file);
	bearer[strcspn(bearer, "\n")] = '\0';
}

/* An exec request of TRUE_PATH; secret: a Held secret's name, or NULL. */
static void exec_request(struct jr2_msg *msg, const char *bearer,
			 const char *secret)
{
	jr2_msg_init(msg);
	jr2_msg_field(msg, "op", "exec");
	jr2_msg_field(msg, "bearer", bearer);
	jr2_msg_field(msg, "cwd", "/");
	if (secret)
		jr2_msg_field(msg, "secret", secret);
	jr2_msg_field(msg, "arg", TRUE_PATH);
}

/* The medians, the spreads and the ratios of the ways, sorted in place. */
static void report(double *samples[WAYS], int n, const char *harness)
{
	double median[WAYS];

	printf("start+reap %s, %d times each, round-robin by %d\n", TRUE_PATH,
	       n, ROUND);
	printf("%-16s %10s %10s %10s\n", "way", "median us", "p10 us",
	       "p90 us");
	for (int w = 0; w < WAYS; w++) {
		qsort(samples[w], (size_t)n, sizeof(double), compare);
		median[w] = samples[w][n / 2];
		printf("%-16s %10.1f %10.1f %10.1f\n", way_names[w], median[w],
		       samples[w][n / 10], samples[w][n * 9 / 10]);
	}
	printf("ratio spawner / fork+exec:      %.3f (goal <= 1.05: %s)\n",
	       median[SPAWNER] / median[FORK_EXEC],
	       median[SPAWNER] / median[FORK_EXEC] <= 1.05 ? "met" : "not met");
	printf("ratio spawner+secret / spawner: %.3f (a layer of its own)\n",
	       median[SPAWNER_SECRET] / median[SPAWNER]);
	printf("ratio bwrap / spawner:          %.2f (goal >= 5: %s)\n",
	       median[BWRAP] / median[SPAWNER],
	       median[BWRAP] / median[SPAWNER] >= 5 ? "met" : "not met");
	printf("ratio jr2-confine / fork+exec:  %.3f\n",
	       median[CONFINE] / median[FORK_EXEC]);
	printf("peak RSS: harness %ld KiB, spawner %ld KiB\n",
	       peak_rss_kib(harness_pid),
	       peak_rss_kib((pid_t)status_field(harness, "spawner_pid")));
}

int main(int argc, char **argv)
{
	const char *harness = NULL, *confine = NULL;
	int n = 400;
	char *fork_argv[] = {TRUE_PATH, NULL};
	char *confine_argv[] = {NULL,	   "run", "--protect", PROTECTED,
				"--quiet", "--",  TRUE_PATH,   NULL};
	char *bwrap_argv[] = {"/usr/bin/bwrap", "--ro-bind", "/",	"/",
			      "--tmpfs",	PROTECTED,   TRUE_PATH, NULL};
	double *samples[WAYS];
	char bearer[256] = "";
	struct jr2_msg request, with_secret;

	jr2_die_init("bench_spawn");
	jr2_die_set_cleanup(stop_harness);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--harness") && i + 1 < argc)
			harness = argv[++i];
		else if (!strcmp(argv[i], "--confine") && i + 1 < argc)
			confine = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench_spawn --harness PATH "
					"--confine PATH [-n N]\n");
			return 2;
		}
	}
	if (!harness || !confine || n < ROUND)
		jr2_die_path(JR2_EXIT_FAILURE,
			     "missing --harness/--confine or -n below", "25");
	confine_argv[0] = (char *)confine;
	start_harness(harness, bearer, sizeof(bearer));
	exec_request(&request, bearer, NULL);
	exec_request(&with_secret, bearer, "BENCH_TOKEN");

	for (int w = 0; w < WAYS; w++) {
		samples[w] = calloc((size_t)n, sizeof(double));
		if (!samples[w])
			jr2_die_path(JR2_EXIT_FAILURE, "out of memory for",
				     "samples");
	}
	/* Warm-up, then rounds: each way ROUND starts in turn. */
	run_and_reap(fork_argv);
	through_spawner(&request);
	through_spawner(&with_secret);
	run_and_reap(confine_argv);
	run_and_reap(bwrap_argv);
	for (int done = 0; done < n; done += ROUND) {
		for (int w = 0; w < WAYS; w++) {
			for (int i = done; i < done + ROUND && i < n; i++) {
				double start = now_us();

				if (w == FORK_EXEC)
					run_and_reap(fork_argv);
				else if (w == SPAWNER)
					through_spawner(&request);
				else if (w == SPAWNER_SECRET)
					through_spawner(&with_secret);
				else if (w == CONFINE)
					run_and_reap(confine_argv);
				else
					run_and_reap(bwrap_argv);
				samples[w][i] = now_us() - start;
			}
		}
	}
	report(samples, n, harness);
	kill(harness_pid, SIGTERM);
	waitpid(harness_pid, NULL, 0);
	jr2_msg_free(&request);
	jr2_msg_free(&with_secret);
	return 0;
}
