/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the runtime's own tests share: the kselftest harness (with skips
 * that name their test), a private mount namespace with a tmpfs over /tmp
 * (the host's /tmp is never touched), file helpers, and a runner for the
 * built programs that captures their output and exit status.
 */
#ifndef JR2_RUNTIME_TESTS_HELPERS_H
#define JR2_RUNTIME_TESTS_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksft_skip.h"

#include "exit_status.h"
#include "policy.h"

/* A test group without state: tests named group.<IDs>_<what>. */
#define JR2T_GROUP(group)       \
	FIXTURE(group)          \
	{                       \
		int unused;     \
	};                      \
	FIXTURE_SETUP(group)    \
	{                       \
	}                       \
	FIXTURE_TEARDOWN(group) \
	{                       \
	}

/* A private mount namespace and a fresh tmpfs over /tmp; 0 or -errno. */
static inline int jr2t_private_tmp(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mount("jr2-test", "/tmp", "tmpfs", 0, "mode=1777,size=64m"))
		return -errno;
	return 0;
}

/* mkdir -p; 0 or -errno. */
static inline int jr2t_mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static inline int jr2t_write(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t len = (ssize_t)strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, (size_t)len) != len) {
		close(fd);
		return -EIO;
	}
	return close(fd) ? -errno : 0;
}

static inline bool jr2t_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Where the runner finds the programs; set by jr2t_private_tmp_bins(). */
static char jr2t_bins[PATH_MAX / 2] = "build/bin";

static inline const char *jr2t_bin_dir(void)
{
	return jr2t_bins;
}

/*
 * jr2t_private_tmp(), with jr2-confine and jr2-try copied into /tmp/bin
 * first: the tmpfs would hide them when the tree lives under /tmp (a clone
 * in /tmp), and a program run from a hidden mount is not where the rules
 * say.  The originals are build/bin, beside this test's build/runtime-tests.
 */
static inline int jr2t_private_tmp_bins(void)
{
	static const char *const names[] = {"jr2-confine", "jr2-try"};
	char self[PATH_MAX / 2], path[PATH_MAX];
	int fds[2];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;
	int ret;

	if (len < 0)
		return -errno;
	self[len] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/../bin/%s", self, names[i]);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			return -errno;
	}
	ret = jr2t_private_tmp();
	if (!ret && mkdir("/tmp/bin", 0755))
		ret = -errno;
	for (int i = 0; i < 2 && !ret; i++) {
		char buf[65536];
		ssize_t n;
		int out;

		snprintf(path, sizeof(path), "/tmp/bin/%s", names[i]);
		out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
		if (out < 0) {
			ret = -errno;
			break;
		}
		while ((n = read(fds[i], buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				n = -1;
		if (n < 0 || close(out))
			ret = -EIO;
	}
	close(fds[0]);
	close(fds[1]);
	snprintf(jr2t_bins, sizeof(jr2t_bins), "/tmp/bin");
	return ret;
}

struct jr2t_out {
	int status; /* exit status, 128 + signal, or -1: output cut */
	/* `rules` writes a rule for each entry beside a restricted path: its
	   size follows the machine's root, not the test. */
	char out[256 * 1024];
	char err[16384];
};

/* Appends what fd has to buf (NUL kept); past size - 1, counts it cut.
   Returns false at the end of fd. */
static inline bool jr2t_drain(int fd, char *buf, size_t size, size_t *len,
			      bool *cut)
{
	char rest[4096];
	ssize_t n;

	if (*len + 1 < size)
		n = read(fd, buf + *len, size - 1 - *len);
	else
		n = read(fd, rest, sizeof(rest));
	if (n <= 0)
		return false;
	if (*len + 1 < size)
		*len += (size_t)n;
	else
		*cut = true;
	buf[*len] = '\0';
	return true;
}

/*
 * Runs argv (argv[0] "jr2-confine" or "jr2-try" means the built program)
 * with `env` (NULL: ours), captures stdout and stderr, both read to their
 * end (no child dies of a closed pipe).  Returns the status, or -1 when an
 * output did not fit: no test reads a cut answer.
 */
static inline int jr2t_runv_setup(struct jr2t_out *o, char *const env[],
				  char *const argv[], void (*setup)(int arg),
				  int arg)
{
	int out[2], err[2];
	char path[PATH_MAX + 64];
	size_t out_len = 0, err_len = 0;
	bool cut = false;
	struct pollfd fds[2];
	pid_t pid;
	int wstatus;

	if (strchr(argv[0], '/'))
		snprintf(path, sizeof(path), "%s", argv[0]);
	else
		snprintf(path, sizeof(path), "%s/%s", jr2t_bin_dir(), argv[0]);
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (setup)
			setup(arg);
		if (env)
			execve(path, argv, env);
		else
			execv(path, argv);
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	o->out[0] = o->err[0] = '\0';
	fds[0] = (struct pollfd){.fd = out[0], .events = POLLIN};
	fds[1] = (struct pollfd){.fd = err[0], .events = POLLIN};
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[0].revents &&
		    !jr2t_drain(out[0], o->out, sizeof(o->out), &out_len, &cut))
			fds[0].fd = -1;
		if (fds[1].revents &&
		    !jr2t_drain(err[0], o->err, sizeof(o->err), &err_len, &cut))
			fds[1].fd = -1;
	}
	close(out[0]);
	close(err[0]);
	if (waitpid(pid, &wstatus, 0) < 0)
		return -1;
	o->status =
	    WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	if (cut)
		o->status = -1;
	return o->status;
}

static inline int jr2t_runv(struct jr2t_out *o, char *const env[],
			    char *const argv[])
{
	return jr2t_runv_setup(o, env, argv, NULL, 0);
}

/* jr2t_run(&o, "jr2-confine", "run", ..., NULL) */
static inline int jr2t_run(struct jr2t_out *o, const char *arg0, ...)
{
	char *argv[64];
	size_t n = 0;
	va_list ap;

	argv[n++] = (char *)arg0;
	va_start(ap, arg0);
	while (n < 63 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return jr2t_runv(o, NULL, argv);
}

/* Counts lines of `text` that contain `needle`. */
static inline int jr2t_count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *line = text; line && *line;) {
		const char *end = strchrnul(line, '\n');
		const char *hit = strstr(line, needle);

		if (hit && hit < end)
			n++;
		line = *end ? end + 1 : NULL;
	}
	return n;
}

/* The access of the rule on `path` in a compiled plan; -1 when none. */
static inline long long rule_of(const struct jr2_ruleset_plan *plan,
				const char *path)
{
	for (size_t i = 0; i < plan->n_rules; i++)
		if (!strcmp(plan->rules[i].path, path))
			return (long long)plan->rules[i].access;
	return -1;
}

/* Whether a note of the plan contains `text`. */
static inline bool has_note(const struct jr2_ruleset_plan *plan,
			    const char *text)
{
	for (size_t i = 0; i < plan->notes.n; i++)
		if (strstr(plan->notes.v[i], text))
			return true;
	return false;
}

#endif /* JR2_RUNTIME_TESTS_HELPERS_H */
