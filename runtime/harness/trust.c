// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files the harness trusts (E4, R9): a file it reads lies where no
 * confined program writes, the config and the bearer where no confined
 * program can change them, and --root has no symlink on the way.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "die.h"
#include "env.h"
#include "log.h"
#include "lookup.h"
#include "policy.h"
#include "policy_internal.h"
#include "serve.h"

const char *jr2_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "not a regular file";
	}
}

int jr2_read_regular(const char *path, size_t max, char **text, mode_t *mode)
{
	/* Non-blocking: a FIFO's open waits for a writer, a device's may. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t size = 0, len = 0;
	struct stat st;
	char *buf = NULL;

	*text = NULL;
	if (fd < 0) {
		int err = errno;

		/* A socket cannot be opened (ENXIO): say what it is. */
		if (err == ENXIO && !stat(path, &st) && !S_ISREG(st.st_mode)) {
			*mode = st.st_mode;
			return 1;
		}
		return -err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*mode = st.st_mode;
		close(fd);
		return 1;
	}
	*mode = st.st_mode;
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > size) {
			size = size ? size * 2 : 8192;
			if (size > max + 4096 + 1)
				size = max + 4096 + 1;
			buf = jr2_xrealloc(buf, size);
		}
		n = read(fd, buf + len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			free(buf);
			close(fd);
			return -err;
		}
		len += (size_t)n;
		if (len > max) {
			explicit_bzero(buf, len);
			free(buf);
			close(fd);
			return -EFBIG;
		}
		if (n == 0)
			break;
	}
	close(fd);
	buf[len] = '\0';
	*text = buf;
	return 0;
}

char *read_small_file(const char *path, const char *what)
{
	char *text;
	mode_t mode = 0;
	int ret = jr2_read_regular(path, 1024 * 1024, &text, &mode);

	if (ret > 0)
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' is %s, not a regular file; name a regular "
			"file",
			what, path, jr2_file_kind(mode));
	if (ret == -EFBIG)
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' is larger than 1 MiB; give a smaller file",
			what, path);
	if (ret)
		jr2_die(JR2_EXIT_USAGE, "%s '%s': %s; name a readable file",
			what, path, strerror(-ret));
	return text;
}

/*
 * E4: a file the harness reads must not be where the sandbox user writes
 * (refused), and should not be writable by that user elsewhere (warned);
 * it is what `kind` says (refused otherwise).  Programs open the path as
 * given, so each folder its lookup takes an entry from counts as the file
 * does: whoever writes that folder can put a link or a folder of its own
 * in the entry's place.
 */
void check_read_file(const char *input, const char *path,
		     enum jr2_path_kind kind)
{
	static const char *const noun[] = {
	    [JR2_PATH_FILE] = "file",
	    [JR2_PATH_FOLDER] = "folder",
	    [JR2_PATH_FILE_OR_FOLDER] = "file or folder",
	};
	struct jr2_strv folders = {0};
	char resolved[PATH_MAX], bad[PATH_MAX];
	struct stat st;
	uid_t uid = harness.cfg.sandbox_uid;
	int err = jr2_lookup(path, &folders, resolved, bad);

	if (err)
		jr2_die(JR2_EXIT_USAGE, "%s '%s': %s; name an existing %s",
			input, path, strerror(err), noun[kind]);
	if (stat(resolved, &st))
		jr2_die(JR2_EXIT_USAGE, "%s '%s': %s; name an existing %s",
			input, path, strerror(errno), noun[kind]);
	if (kind == JR2_PATH_FOLDER && !S_ISDIR(st.st_mode))
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' is %s, not a directory; name a folder (%s "
			"names folders)",
			input, path, jr2_file_kind(st.st_mode), input);
	if (kind == JR2_PATH_FILE && !S_ISREG(st.st_mode))
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' is %s, not a regular file; name a regular "
			"file",
			input, path, jr2_file_kind(st.st_mode));
	if (kind == JR2_PATH_FILE_OR_FOLDER && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode))
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' is %s, neither a regular file nor a "
			"directory; name a regular file or a folder",
			input, path, jr2_file_kind(st.st_mode));
	if (jr2_path_in_sandbox_area(&harness.cfg, resolved))
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' (%s) is in a folder the sandbox writes "
			"(/work, /tmp, /dev/shm, /home/jr2, the programs' home "
			"and tmpdir); move it into a "
			"read-only tree of the policy (e.g. under /opt/jr2)",
			input, path, resolved);
	for (size_t i = 0; i < folders.n; i++)
		if (jr2_path_in_sandbox_area(&harness.cfg, folders.v[i]))
			jr2_die(JR2_EXIT_USAGE,
				"%s '%s' is looked up through '%s', a folder "
				"the sandbox writes (/work, /tmp, /dev/shm, "
				"/home/jr2, the programs' home and tmpdir): a "
				"program could put its own file "
				"there; name it by a path of a read-only tree "
				"(e.g. under /opt/jr2), no link on the way",
				input, path, folders.v[i]);
	jr2_strv_add(&folders, resolved);
	for (size_t i = 0; i < folders.n; i++)
		if (stat(folders.v[i], &st) == 0 &&
		    ((st.st_uid == uid && (st.st_mode & S_IWUSR)) ||
		     (st.st_mode & S_IWOTH)))
			say("warning: %s '%s': '%s' can be written by the "
			    "sandbox user (uid %u); make it owned by root and "
			    "not world-writable",
			    input, path, folders.v[i], (unsigned int)uid);
	jr2_strv_free(&folders);
}

static bool within_any(const char *resolved, const struct jr2_strv *dirs)
{
	char real[PATH_MAX];

	for (size_t i = 0; i < dirs->n; i++) {
		if (!realpath(dirs->v[i], real))
			snprintf(real, sizeof(real), "%s", dirs->v[i]);
		if (jr2_path_within(resolved, real))
			return true;
	}
	return false;
}

/*
 * E4: the files the harness trusts lie where no confined program can change
 * them: the config in a protected dir or a read-only tree of the policy in
 * force; the bearer file, a secret, in a protected dir only, since programs
 * read read-only trees, and a program that reads the bearer can ask for
 * the Stand-in of every Held secret (exec --secret).  Else the start is
 * refused.
 */
void check_trusted_file(const char *input, const char *path, bool secret)
{
	char resolved[PATH_MAX];

	if (!realpath(path, resolved))
		jr2_die(JR2_EXIT_USAGE, "%s '%s': %s; name an existing file",
			input, path, strerror(errno));
	if (within_any(resolved, &harness.policy.protect))
		return;
	if (secret)
		jr2_die(
		    JR2_EXIT_USAGE,
		    "%s '%s' (%s) is outside every protected dir of the "
		    "policy, so a confined program could read it (read-only "
		    "trees are readable) or change it; move it into one "
		    "(e.g. under %s) or add 'protect <its folder>' to the "
		    "config",
		    input, path, resolved, harness.protected_dir);
	if (within_any(resolved, &harness.policy.read_only))
		return;
	jr2_die(JR2_EXIT_USAGE,
		"%s '%s' (%s) is outside every protected dir and read-only "
		"tree of the policy, so a confined program could change it; "
		"move it into one (e.g. under /opt/jr2 with the defaults) or "
		"add 'read-only <its folder>' to the config",
		input, path, resolved);
}

/* --root and the protected dir under it: no symlink on the way (R9). */
void check_no_symlink(const char *input, const char *path)
{
	char prefix[PATH_MAX];
	struct stat st;

	for (const char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(p - path), path);
		if (lstat(prefix, &st)) {
			if (errno == ENOENT)
				return; /* made below, as a folder */
			jr2_die(JR2_EXIT_USAGE,
				"%s '%s': '%s': %s; give a path of existing "
				"folders, each name at most 255 bytes",
				input, path, prefix, strerror(errno));
		}
		if (S_ISLNK(st.st_mode))
			jr2_die(JR2_EXIT_USAGE,
				"%s '%s': '%s' is a symlink; give the real "
				"path (see realpath)",
				input, path, prefix);
		if (!S_ISDIR(st.st_mode))
			jr2_die(JR2_EXIT_USAGE,
				"%s '%s': '%s' is not a folder; give a folder",
				input, path, prefix);
		if (!*p)
			return;
	}
}
