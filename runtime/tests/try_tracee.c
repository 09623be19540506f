// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's tracees (selftests/tracee_test.c): programs that make their
 * parent their tracer (PTRACE_TRACEME), and gdb's `run`, whose child asks
 * to be traced by it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "try.h"

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* The TracerPid line of /proc/self/status: 0 when untraced. */
static int tracer_pid(void)
{
	char line[256];
	int pid = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			pid = atoi(line + 10);
	if (f)
		fclose(f);
	return pid;
}

static void print_traceme(void)
{
	printf("traceme %s\n", ptrace(PTRACE_TRACEME, 0, NULL, NULL)
				   ? strerrorname_np(errno)
				   : "ok");
	fflush(stdout);
}

/* TRACEME, then a signal to itself: "traceme ok", "usr1 handled tracer 0". */
static void traceme_then_signal(void)
{
	print_traceme();
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	printf("usr1 %s tracer %d\n", got_usr1 ? "handled" : "lost",
	       tracer_pid());
	fflush(stdout);
}

static int traceme_signal(const struct try_call *c)
{
	int code = (int)try_number(c->arg[0], "CODE");

	traceme_then_signal();
	return code;
}

/* TRACEME, then execve (a tracee's SIGTRAP: a stop of its own). */
static int traceme_exec(const struct try_call *c)
{
	char *const next[] = {(char *)try_program, "tracer", c->arg[0], NULL};

	try_number(c->arg[0], "CODE");
	print_traceme();
	execv(try_program, next);
	return 100;
}

static int tracer(const struct try_call *c)
{
	int code = (int)try_number(c->arg[0], "CODE");

	printf("tracer %d\n", tracer_pid());
	return code;
}

/* A child left to the subreaper, then its tracee; it writes what it saw to
   FILE. */
static int traceme_orphan(const struct try_call *c)
{
	pid_t parent = getpid(), child = fork();

	if (child < 0)
		return 100;
	if (child > 0)
		return 0;
	while (getppid() == parent)
		usleep(1000);
	if (!freopen(c->arg[0], "w", stdout))
		_exit(100);
	traceme_then_signal();
	_exit(0);
}

/* gdb's `run`: its child asks to be traced by it. */
static int gdb_run(const struct try_call *c)
{
	int status;
	pid_t child = fork();

	(void)c;
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(100);
		raise(SIGSTOP);
		_exit(5);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 100;
	printf("%s %d\n", WIFSTOPPED(status) ? "stopped" : "not-stopped",
	       WIFSTOPPED(status) ? WSTOPSIG(status) : status);
	if (ptrace(PTRACE_CONT, child, NULL, NULL) ||
	    waitpid(child, &status, 0) != child)
		return 100;
	printf("exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

const struct try_verb try_tracee_verbs[] = {
    {"traceme-signal", 1, "CODE", traceme_signal, 0,
     "TRACEME, SIGUSR1 to itself, exit CODE (\"usr1 handled tracer 0\")"},
    {"traceme-exec", 1, "CODE", traceme_exec, 0,
     "TRACEME, then execve of `jr2-try tracer CODE`"},
    {"tracer", 1, "CODE", tracer, 0, "its TracerPid, exit CODE"},
    {"traceme-orphan", 1, "FILE", traceme_orphan, 0,
     "an orphan's TRACEME and signal, its lines in FILE"},
    {"gdb-run", 0, "", gdb_run, 0,
     "a child that asks to be traced and stops: \"stopped 19\", \"exit 5\""},
    {NULL, 0, NULL, NULL, 0, NULL},
};
