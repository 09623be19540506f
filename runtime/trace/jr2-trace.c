// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-trace: Landlock denials of one process tree as JSON lines.
 *
 *   jr2-trace --probe            what this kernel lets us attach, and why not
 *   jr2-trace --pid PID          trace PID and its descendants until it exits
 *   jr2-trace -- CMD [ARGS]      run CMD traced from its first instruction
 *   jr2-trace --audit ...        the same from Landlock's audit records
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "attach.h"
#include "audit.h"
#include "denials.skel.h"
#include "die.h"
#include "format.h"
#include "policy.h"

#define POLL_MS 100

static const char usage[] =
    "usage: jr2-trace [--output FILE] [--verbose] [--avoid WAYS] "
    "[--points IDS]\n"
    "                 --pid PID\n"
    "       jr2-trace [--output FILE] [--verbose] [--avoid WAYS] "
    "[--points IDS]\n"
    "                 [--max-abi N] -- CMD [ARGS...]\n"
    "       jr2-trace --audit [--output FILE] (--pid PID | -- CMD [ARGS...])\n"
    "       jr2-trace --probe [--verbose] [--avoid WAYS] [--points IDS]\n"
    "       jr2-trace --help | --version\n"
    "\n"
    "Prints each Landlock denial of PID or CMD and of their descendants as\n"
    "one JSON object per line: time, pid, tgid, comm, hook, operation,\n"
    "target (path, target_pid, port or socket), errno, and the domain and\n"
    "layer where the kernel tells.\n"
    "\n"
    "  --probe        say what can attach on this kernel and why not;\n"
    "                 exit 0 when Landlock denials can be traced\n"
    "  --pid PID      trace PID and its descendants until PID exits\n"
    "  -- CMD ARGS    run CMD under the tracer; exit with its status\n"
    "  --audit        read Landlock's audit records (ABI 7+) instead of\n"
    "                 tracing: the independent check; audit is switched on\n"
    "                 for the run when it is off\n"
    "  --output FILE  write the JSON lines to FILE (default: stdout)\n"
    "  --max-abi N    run CMD with JR2_MAX_ABI=N (the ABI cap)\n"
    "  --verbose      show libbpf's messages and each step's time on stderr\n"
    "  --points IDS   trace only these points (as --probe names them,\n"
    "                 file_open,path_mkdir,...): less to load and attach\n"
    "  --avoid WAYS   attach without denial (on 6.15+, opens and ioctls\n"
    "                 seen by landlock_log_denial alone, no program on\n"
    "                 their hooks), multi (one kprobe.multi link for all\n"
    "                 hooks), fexit or kprobe (any kprobe, multi too), or\n"
    "                 a list of them (denial,multi): checks the fallbacks\n"
    "\n"
    "Exit status: 0 done (or CMD's status), 1 error, 2 usage, 3 this\n"
    "kernel cannot trace (the reason is printed; first, when this process\n"
    "lacks CAP_BPF and CAP_PERFMON: run it as root or give it those), 4 no\n"
    "Landlock to trace.\n"
    "See jr2-trace(1).\n";

struct output {
	FILE *file;
	int64_t realtime_offset_ns;
	unsigned long long events;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* The command's exit interrupts the ring buffer's poll: no wait for it. */
static void on_child(int sig)
{
	(void)sig;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct output *out = ctx;
	struct jr2_denial event = {0};
	char line[8192]; /* a path of JR2_TRACE_PATH_BUF bytes, all escaped */
	int n;

	/* A record stops after the path bytes it uses (denials.h). */
	if (size < offsetof(struct jr2_denial, path))
		return 0;
	memcpy(&event, data, size < sizeof(event) ? size : sizeof(event));
	n = jr2_denial_json(&event, out->realtime_offset_ns, line,
			    sizeof(line));
	if (n < 0)
		return 0;
	fwrite(line, 1, n, out->file);
	out->events++;
	return 0;
}

static int64_t realtime_offset_ns(void)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	return (real.tv_sec - mono.tv_sec) * 1000000000LL +
	       (real.tv_nsec - mono.tv_nsec);
}

static long parse_number(const char *what, const char *text, long max)
{
	long value;

	if (jr2_parse_number(text, 1, max, &value))
		jr2_die(
		    JR2_EXIT_USAGE,
		    "%s '%s' is not a number from 1 to %ld: give one, as in "
		    "%s 1234",
		    what, text, max, what);
	return value;
}

/* An unknown flag, or a known one given a value it takes none of. */
static void __attribute__((noreturn)) bad_flag(const char *arg)
{
	if (arg[0] == '-' && arg[1] != '-' && optopt)
		jr2_die(JR2_EXIT_USAGE,
			"unknown flag '-%c' in '%s': see 'jr2-trace "
			"--help'",
			optopt, arg);
	if (optopt)
		jr2_die(JR2_EXIT_USAGE,
			"flag '%.*s' takes no value: write it "
			"without '=%s'",
			(int)strcspn(arg, "="), arg,
			arg[strcspn(arg, "=")] ? arg + strcspn(arg, "=") + 1
					       : "");
	jr2_die(JR2_EXIT_USAGE, "unknown flag '%s': see 'jr2-trace --help'",
		arg);
}

/* "fexit,kprobe" -> bits (1 << JR2_HOW_*). */
static unsigned int parse_avoid(const char *text)
{
	char list[64], *save = NULL;
	unsigned int avoid = 0;

	snprintf(list, sizeof(list), "%s", text);
	for (char *way = strtok_r(list, ",", &save); way;
	     way = strtok_r(NULL, ",", &save)) {
		if (!strcmp(way, "multi"))
			avoid |= 1U << JR2_HOW_MULTI;
		else if (!strcmp(way, "fexit"))
			avoid |= 1U << JR2_HOW_FEXIT;
		else if (!strcmp(way, "kprobe"))
			avoid |= 1U << JR2_HOW_KPROBE;
		else if (!strcmp(way, "denial"))
			avoid |= 1U << JR2_HOW_DENIAL;
		else
			jr2_die(
			    JR2_EXIT_USAGE,
			    "--avoid '%s': '%s' is not a way to attach: name "
			    "denial, multi, fexit or kprobe, or a list "
			    "(denial,multi)",
			    text, way);
	}
	return avoid;
}

/* "file_open,path_mkdir" -> bits (1 << JR2_POINT_*). */
static __u64 parse_points(const char *text)
{
	char list[1024], *save = NULL;
	__u64 points = 0;

	snprintf(list, sizeof(list), "%s", text);
	for (char *id = strtok_r(list, ",", &save); id;
	     id = strtok_r(NULL, ",", &save)) {
		int i = 0;

		while (i < JR2_POINT_COUNT && strcmp(id, jr2_points[i].id))
			i++;
		if (i == JR2_POINT_COUNT)
			jr2_die(
			    JR2_EXIT_USAGE,
			    "--points '%s': '%s' is not a point: name them as "
			    "'jr2-trace --probe' lists them (file_open, "
			    "path_mkdir, ...)",
			    text, id);
		points |= 1ULL << i;
	}
	if (!points)
		jr2_die(JR2_EXIT_USAGE,
			"--points '%s' names no point: name them as 'jr2-trace "
			"--probe' lists them (file_open, path_mkdir, ...)",
			text);
	return points;
}

/* The command waits on `go` until the tracer is attached. */
static pid_t start_command(char **argv, int *go_fd)
{
	int pipe_fds[2];
	pid_t pid;
	char byte;

	if (pipe2(pipe_fds, O_CLOEXEC))
		jr2_die_errno(1, errno, "creating the start pipe");
	pid = fork();
	if (pid < 0)
		jr2_die_errno(1, errno, "forking '%s'", argv[0]);
	if (pid == 0) {
		close(pipe_fds[1]);
		if (read(pipe_fds[0], &byte, 1) != 1)
			_exit(JR2_EXIT_NOT_FOUND); /* the tracer failed: never
						      run untraced */
		execvp(argv[0], argv);
		jr2_die_errno(127, errno, "running '%s'", argv[0]);
	}
	close(pipe_fds[0]);
	*go_fd = pipe_fds[1];
	return pid;
}

static bool alive(pid_t pid, pid_t child, int *status)
{
	if (child > 0)
		return waitpid(child, status, WNOHANG) == 0;
	return kill(pid, 0) == 0 || errno != ESRCH;
}

/* The audit records of the run, until PID exits; then what is in flight. */
static unsigned long long run_audit(pid_t pid, pid_t child, int go_fd,
				    struct output *out, int *status)
{
	struct jr2_audit audit;
	struct jr2_abi abi;
	char err[512];
	int ret;

	jr2_abi_probe(&abi, 0);
	if (abi.kernel < 7)
		jr2_die(abi.kernel > 0 ? JR2_EXIT_CANNOT_TRACE
				       : JR2_EXIT_NO_LANDLOCK,
			"--audit: Landlock ABI %d < 7: this kernel writes no "
			"Landlock audit records (Linux 6.15 or newer does)",
			abi.kernel);
	ret = jr2_audit_open(&audit, err, sizeof(err));
	if (ret)
		jr2_die(JR2_EXIT_CANNOT_TRACE, "--audit: %s", err);
	if (audit.enabled_by_us)
		fprintf(stderr, "jr2-trace: audit was off: on for this run\n");
	if (child && write(go_fd, "g", 1) != 1)
		jr2_die_errno(1, errno, "starting the command of pid %d",
			      child);
	while (!stop_signal && alive(pid, child, status)) {
		ret = jr2_audit_read(&audit, out->file, POLL_MS);
		if (ret < 0)
			jr2_die_errno(1, -ret, "reading the audit socket");
		fflush(out->file);
	}
	/* kauditd sends records after the syscall: let the last ones come. */
	for (int i = 0; i < 5; i++)
		jr2_audit_read(&audit, out->file, POLL_MS);
	jr2_audit_close(&audit, out->file);
	fflush(out->file);
	return audit.records;
}

static int probe(struct jr2_trace_opts *opts)
{
	struct jr2_tracer tracer;
	char err[512], why[512];
	int ret;

	/* Our own pid as the root, so that every program kind loads. */
	opts->root_tgid = getpid();
	opts->probe_all = true;
	ret = jr2_tracer_open(&tracer, opts, err, sizeof(err));
	if (ret == 0)
		printf("bpf object: loaded\n");
	else
		printf("bpf object: not loaded: %s\n", err);
	jr2_tracer_report(&tracer, stdout);
	ret = !jr2_tracer_refusal(&tracer, why, sizeof(why))
		  ? 0
		  : (tracer.kernel.landlock_abi <= 0 ? JR2_EXIT_NO_LANDLOCK
						     : JR2_EXIT_CANNOT_TRACE);
	jr2_tracer_close(&tracer);
	return ret;
}

/* What the flags ask for. */
struct cli {
	struct jr2_trace_opts opts;
	const char *output, *max_abi;
	bool probe, audit;
	pid_t pid;
};

/* Reads the flags; every one is checked here, before any probe. */
static void parse_flags(int argc, char **argv, struct cli *cli)
{
	static const struct option options[] = {
	    {"probe", no_argument, NULL, 'P'},
	    {"audit", no_argument, NULL, 'a'},
	    {"pid", required_argument, NULL, 'p'},
	    {"output", required_argument, NULL, 'o'},
	    {"max-abi", required_argument, NULL, 'A'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"avoid", required_argument, NULL, 'X'},
	    {"points", required_argument, NULL, 'I'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {},
	};
	char err[512];
	int opt;

	opterr = 0; /* a bad flag gets one line, below */
	while ((opt = getopt_long(argc, argv, "+:p:o:vh", options, NULL)) !=
	       -1) {
		switch (opt) {
		case 'P':
			cli->probe = true;
			break;
		case 'a':
			cli->audit = true;
			break;
		case 'p':
			cli->pid = parse_number("--pid", optarg, 1 << 22);
			break;
		case 'o':
			cli->output = optarg;
			break;
		case 'A':
			if (jr2_abi_cap(optarg, err, sizeof(err)) < 0)
				jr2_die(JR2_EXIT_USAGE, "%s", err);
			cli->max_abi = optarg;
			break;
		case 'v':
			cli->opts.verbose = true;
			break;
		case 'X':
			cli->opts.avoid = parse_avoid(optarg);
			break;
		case 'I':
			cli->opts.points = parse_points(optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case 'V':
			printf("jr2-trace %s\n", JR2_VERSION);
			exit(0);
		case ':':
			jr2_die(JR2_EXIT_USAGE,
				"%s needs a value: write '%s VALUE'",
				argv[optind - 1], argv[optind - 1]);
		default:
			bad_flag(argv[optind - 1]);
		}
	}
	if (cli->probe && (cli->pid || optind < argc))
		jr2_die(JR2_EXIT_USAGE,
			"--probe takes no --pid or command: run "
			"'jr2-trace --probe' alone");
	if (!cli->probe && !cli->pid == !(optind < argc))
		jr2_die(JR2_EXIT_USAGE,
			"name what to trace: either --pid PID or -- CMD [ARGS] "
			"(see jr2-trace --help)");
}

/* Traces pid through the BPF programs until it (or the child) ends. */
static void trace_denials(struct jr2_trace_opts *opts, pid_t pid, pid_t child,
			  int go_fd, const char *command, struct output *out,
			  int *status)
{
	struct jr2_tracer tracer;
	struct ring_buffer *rb;
	char err[512], why[512];
	int ret;

	opts->root_tgid = pid;
	if (jr2_tracer_open(&tracer, opts, err, sizeof(err))) {
		if (jr2_trace_missing_caps(why, sizeof(why)))
			jr2_die(JR2_EXIT_CANNOT_TRACE,
				"cannot trace: this process (uid %d) lacks "
				"%s, without which the kernel loads no BPF "
				"program: give it CAP_BPF and CAP_PERFMON "
				"(root's own, or setcap cap_bpf,cap_perfmon+ep "
				"on the program); the kernel said: %s",
				(int)getuid(), why, err);
		jr2_die(JR2_EXIT_CANNOT_TRACE,
			"cannot trace on this kernel: %s", err);
	}
	if (jr2_tracer_refusal(&tracer, why, sizeof(why)))
		jr2_die(tracer.kernel.landlock_abi <= 0 ? JR2_EXIT_NO_LANDLOCK
							: JR2_EXIT_CANNOT_TRACE,
			"%s: %s (see jr2-trace --probe)",
			jr2_trace_missing_caps(err, sizeof(err))
			    ? "cannot trace"
			    : "cannot trace on this kernel",
			why);
	out->realtime_offset_ns = realtime_offset_ns();
	rb = ring_buffer__new(bpf_map__fd(tracer.skel->maps.events), on_event,
			      out, NULL);
	if (!rb)
		jr2_die_errno(JR2_EXIT_FAILURE, errno,
			      "opening the ring buffer of '%s'", "events");
	fprintf(stderr, "jr2-trace: tracing pid %d: %d points (%d by hook)%s\n",
		pid, tracer.traced_points, tracer.landlock_points,
		tracer.log_denial ? ", landlock_log_denial" : "");
	if (child && write(go_fd, "g", 1) != 1)
		jr2_die_errno(JR2_EXIT_FAILURE, errno, "starting '%s'",
			      command);
	jr2_tracer_step("ready: ring buffer open, the command started");
	while (!stop_signal && alive(pid, child, status)) {
		ret = ring_buffer__poll(rb, POLL_MS);
		if (ret < 0 && ret != -EINTR)
			jr2_die_errno(JR2_EXIT_FAILURE, -ret,
				      "reading the ring buffer");
		fflush(out->file);
	}
	ring_buffer__consume(rb);
	fflush(out->file);
	fprintf(stderr, "jr2-trace: %llu denials traced, %llu lost\n",
		out->events, (unsigned long long)tracer.skel->bss->lost);
	ring_buffer__free(rb);
	jr2_tracer_close(&tracer);
}

int main(int argc, char **argv)
{
	struct output out = {.file = stdout};
	struct cli cli = {0};
	pid_t pid, child = 0;
	int go_fd = -1, status = 0;

	jr2_die_init("jr2-trace");
	parse_flags(argc, argv, &cli);
	if (cli.probe)
		return probe(&cli.opts);
	if (cli.output) {
		out.file = fopen(cli.output, "we");
		if (!out.file)
			jr2_die_errno(JR2_EXIT_FAILURE, errno,
				      "opening --output '%s'", cli.output);
	}
	if (cli.max_abi && setenv("JR2_MAX_ABI", cli.max_abi, 1))
		jr2_die_errno(JR2_EXIT_FAILURE, errno,
			      "setting JR2_MAX_ABI '%s'", cli.max_abi);
	pid = cli.pid;
	if (!pid)
		pid = child = start_command(argv + optind, &go_fd);
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	if (child) {
		struct sigaction sa = {.sa_handler = on_child};

		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
	}
	if (cli.audit) {
		unsigned long long records;

		records = run_audit(pid, child, go_fd, &out, &status);
		fprintf(stderr, "jr2-trace: %llu Landlock audit records\n",
			records);
	} else {
		trace_denials(&cli.opts, pid, child, go_fd,
			      child ? argv[optind] : NULL, &out, &status);
	}
	if (stop_signal && child)
		kill(child, stop_signal);
	if (child) {
		if (stop_signal)
			waitpid(child, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status)
					 : 128 + WTERMSIG(status);
	}
	return 0;
}
