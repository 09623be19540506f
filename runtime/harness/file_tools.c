// SPDX-License-Identifier: GPL-2.0-only
/*
 * R12: the file tools `jr2-harness read|write|edit [--root DIR] PATH ...`.
 * The client does nothing to the file: it asks the harness to run this
 * binary's internal verb `file-tool` as a confined program (the exec path
 * of `jr2-harness exec`, this stdin, stdout and stderr), so that a tool
 * reaches exactly what the shell reaches.  A path in a protected dir, or a
 * link to one at any depth, fails there as an unreadable file does:
 * Landlock answers the open EACCES, "Permission denied", exit 1.  In PATH,
 * `~` and a leading `~/` are the program's HOME (the programs' HOME).
 *
 * write: stdin to a new file beside the target (its links followed, a
 * dangling one's too, as the shell's `>` follows them), renamed over it
 * once whole; a failure leaves the target as it was.  Where the folder
 * takes no new entry (frozen) and the file exists and opens to write, as
 * the shell's `>` writes it: in place, its space reserved first.  edit OLD
 * NEW: OLD must be in the file exactly once; it becomes NEW, written as
 * write writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "die.h"
#include "harness.h"
#include "policy.h"
#include "policy_internal.h"

/* The confined side's one error path: the shell's form, exit 1. */
static void __attribute__((noreturn))
tool_fail(const char *verb, const char *path, int err, const char *fix)
{
	fprintf(stderr, "jr2-harness %s: %s: %s%s%s\n", verb, path,
		strerror(err), fix ? "; " : "", fix ? fix : "");
	exit(JR2_EXIT_FAILURE);
}

/* `~` and `~/...`: the program's HOME. */
static const char *expand_home(const char *path, char *buf, size_t size)
{
	const char *home = getenv("HOME");

	if (path[0] != '~' || (path[1] && path[1] != '/'))
		return path;
	if (!home || !*home)
		tool_fail("file-tool", path, ENOENT,
			  "the program has no HOME to expand ~ to");
	if ((size_t)snprintf(buf, size, "%s%s", home, path + 1) >= size)
		tool_fail("file-tool", path, ENAMETOOLONG, NULL);
	return buf;
}

static char *read_all(int fd, size_t *len)
{
	char *text = NULL;
	size_t cap = 0;

	*len = 0;
	for (;;) {
		ssize_t n;

		if (*len + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 131072;
			text = jr2_xrealloc(text, cap);
		}
		n = read(fd, text + *len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	text[*len] = '\0';
	return text;
}

static int write_all(int fd, const char *text, size_t len)
{
	for (size_t at = 0; at < len;) {
		ssize_t n = write(fd, text + at, len - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += (size_t)n;
	}
	return 0;
}

/* A missing entry kept by name: its folder's real path, then its name. */
static void missing_target(const char *verb, const char *shown,
			   const char *path, char *out)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base;

	if (slash) {
		snprintf(dir, sizeof(dir), "%.*s",
			 (int)(slash == path ? 1 : slash - path), path);
		base = slash + 1;
	} else {
		snprintf(dir, sizeof(dir), ".");
		base = path;
	}
	if (!realpath(dir, real))
		tool_fail(verb, shown, errno, NULL);
	if (!*base)
		tool_fail(verb, shown, EISDIR, NULL);
	if ((size_t)snprintf(out, PATH_MAX, "%s/%s",
			     strcmp(real, "/") ? real : "", base) >= PATH_MAX)
		tool_fail(verb, shown, ENAMETOOLONG, NULL);
}

/*
 * Where a write lands, as the shell's `>` (open O_CREAT) finds it: the
 * target's links followed, a dangling link's too (the kernel makes the file
 * it names, so the write lands there, not over the link), a missing last
 * entry kept by name.
 */
static void write_target(const char *verb, const char *path, char *out)
{
	char at[PATH_MAX], link[PATH_MAX], next[PATH_MAX];

	snprintf(at, sizeof(at), "%s", path);
	for (int hops = 0;; hops++) {
		struct stat st;
		ssize_t n;
		const char *slash;

		if (realpath(at, out))
			return;
		if (errno != ENOENT)
			tool_fail(verb, path, errno, NULL);
		if (lstat(at, &st) || !S_ISLNK(st.st_mode))
			break;
		if (hops >= 40)
			tool_fail(verb, path, ELOOP, NULL);
		n = readlink(at, link, sizeof(link) - 1);
		if (n < 0)
			tool_fail(verb, path, errno, NULL);
		link[n] = '\0';
		slash = strrchr(at, '/');
		if (link[0] == '/' || !slash)
			snprintf(next, sizeof(next), "%s", link);
		else if ((size_t)snprintf(next, sizeof(next), "%.*s/%s",
					  (int)(slash - at), at,
					  link) >= sizeof(next))
			tool_fail(verb, path, ENAMETOOLONG, NULL);
		snprintf(at, sizeof(at), "%s", next);
	}
	missing_target(verb, path, at, out);
}

/*
 * An existing file whose folder takes no new entry (a frozen folder: the
 * shell's `>` still writes the file): written in place, its space
 * reserved first (posix_fallocate), so that only an I/O error leaves it
 * part written; then cut to the new length.
 */
static void write_in_place(const char *verb, const char *path,
			   const char *target, const char *text, size_t len)
{
	int fd = open(target, O_WRONLY | O_CLOEXEC), err;
	size_t at = 0;

	if (fd < 0)
		tool_fail(verb, path, errno, NULL);
	err = len ? posix_fallocate(fd, 0, (off_t)len) : 0;
	/* A file system without fallocate still takes the write. */
	if (err && err != EOPNOTSUPP && err != EINVAL)
		tool_fail(verb, path, err, NULL);
	while (at < len) {
		ssize_t n = pwrite(fd, text + at, len - at, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			tool_fail(verb, path, n < 0 ? errno : EIO, NULL);
		at += (size_t)n;
	}
	if (ftruncate(fd, (off_t)len) || fsync(fd) || close(fd))
		tool_fail(verb, path, errno, NULL);
}

/*
 * The text to `path`: whole or not at all (a new file beside it, renamed
 * over it) where its folder takes a new entry; in place where it does not
 * (a frozen folder) and the file exists and opens to write.
 */
static void replace_file(const char *verb, const char *path, const char *text,
			 size_t len)
{
	char target[PATH_MAX], tmp[PATH_MAX + 32];
	struct stat st;
	mode_t mask = umask(0), mode = 0666 & ~mask;
	bool exists = false;
	int fd;

	umask(mask);
	write_target(verb, path, target);
	if (stat(target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			tool_fail(verb, path, EISDIR, NULL);
		mode = st.st_mode & 07777;
		/* The shell opens the file to write: the same check first. */
		fd = open(target, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			tool_fail(verb, path, errno, NULL);
		close(fd);
		exists = true;
	}
	snprintf(tmp, sizeof(tmp), "%s.jr2-XXXXXX", target);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 && exists &&
	    (errno == EACCES || errno == EPERM || errno == EROFS)) {
		write_in_place(verb, path, target, text, len);
		return;
	}
	if (fd < 0)
		tool_fail(verb, path, errno, NULL);
	if (write_all(fd, text, len) || fchmod(fd, mode) || fsync(fd) ||
	    close(fd) || rename(tmp, target)) {
		int err = errno;

		unlink(tmp);
		tool_fail(verb, path, err, NULL);
	}
}

static char *read_file(const char *verb, const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *text;

	if (fd < 0)
		tool_fail(verb, path, errno, NULL);
	text = read_all(fd, len);
	if (!text)
		tool_fail(verb, path, errno, NULL);
	close(fd);
	return text;
}

/* The confined side: jr2-harness file-tool read|write|edit PATH [OLD NEW]. */
int file_tool_main(int argc, char **argv)
{
	char buf[PATH_MAX];
	const char *verb = argc > 2 ? argv[2] : "", *path;
	char *text;
	size_t len;

	if (!(argc == 4 && (!strcmp(verb, "read") || !strcmp(verb, "write"))) &&
	    !(argc == 6 && !strcmp(verb, "edit")))
		jr2_die(JR2_EXIT_USAGE,
			"file-tool is internal to jr2-harness read, write and "
			"edit; use those");
	path = expand_home(argv[3], buf, sizeof(buf));
	if (!strcmp(verb, "read")) {
		text = read_file(verb, path, &len);
		if (write_all(1, text, len))
			tool_fail(verb, "standard output", errno, NULL);
		return 0;
	}
	if (!strcmp(verb, "write")) {
		text = read_all(0, &len);
		if (!text)
			tool_fail(verb, "standard input", errno, NULL);
		replace_file(verb, path, text, len);
		return 0;
	}
	{
		const char *old = argv[4], *new = argv[5], *at, *again;
		size_t old_len = strlen(old), new_len = strlen(new);
		char *out;
		size_t count = 0;

		if (!old_len)
			jr2_die(JR2_EXIT_USAGE,
				"edit: OLD is empty; give the exact text to "
				"replace");
		text = read_file(verb, path, &len);
		at = memmem(text, len, old, old_len);
		for (again = at; again; count++)
			again =
			    memmem(again + 1, len - (size_t)(again + 1 - text),
				   old, old_len);
		if (count != 1) {
			fprintf(stderr,
				"jr2-harness edit: %s: the text to replace is "
				"in the file %zu times; give text that is in "
				"it exactly once (add the lines around it)\n",
				path, count);
			return 1;
		}
		out = jr2_xrealloc(NULL, len - old_len + new_len + 1);
		memcpy(out, text, (size_t)(at - text));
		memcpy(out + (at - text), new, new_len);
		memcpy(out + (at - text) + new_len, at + old_len,
		       len - (size_t)(at - text) - old_len);
		replace_file(verb, path, out, len - old_len + new_len);
	}
	return 0;
}

/* The client: the tool, run as a confined program of the harness. */
int client_file_tool(const struct client_options *opts, const char *verb,
		     char **args)
{
	char self[PATH_MAX];
	char *argv[8] = {self, "file-tool", (char *)verb};
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int i = 3;

	if (n <= 0)
		jr2_die_path(JR2_EXIT_REFUSED,
			     "cannot read this program's path",
			     "/proc/self/exe");
	self[n] = '\0';
	for (; *args && i < 7; args++)
		argv[i++] = *args;
	argv[i] = NULL;
	return client_exec(opts, argv);
}
