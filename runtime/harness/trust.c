// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files the harness trusts (E4, R9): a file it reads lies where no
 * confined program writes, the config and the bearer where no confined
 * program can change them, and --root has no symlink on the way.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "die.h"
#include "env.h"
#include "log.h"
#include "policy.h"
#include "policy_internal.h"
#include "serve.h"

char *read_small_file(const char *path, const char *what)
{
	char *text = NULL;
	size_t size = 0, len = 0;
	FILE *file = fopen(path, "re");

	if (!file)
		jr2_die(JR2_EXIT_USAGE, "%s '%s': %s; name a readable file",
			what, path, strerror(errno));
	for (;;) {
		if (len + 4096 + 1 > size) {
			size = size ? size * 2 : 8192;
			if (size > 1024 * 1024)
				jr2_die(JR2_EXIT_USAGE,
					"%s '%s' is larger than 1 MiB; give a "
					"smaller file",
					what, path);
			text = realloc(text, size);
			if (!text)
				jr2_die_path(1, "out of memory reading", path);
		}
		size_t n = fread(text + len, 1, 4096, file);

		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(file))
		jr2_die_path(JR2_EXIT_USAGE, what, path);
	fclose(file);
	text[len] = '\0';
	return text;
}

/*
 * E4: a file the harness reads must not be where the sandbox user writes
 * (refused), and should not be writable by that user elsewhere (warned).
 */
void check_read_file(const char *input, const char *path)
{
	char resolved[PATH_MAX], parent[PATH_MAX];
	struct stat st;
	uid_t uid = harness.cfg.sandbox_uid;

	if (!realpath(path, resolved))
		jr2_die(JR2_EXIT_USAGE, "%s '%s': %s; name an existing file",
			input, path, strerror(errno));
	if (jr2_path_in_sandbox_area(resolved))
		jr2_die(JR2_EXIT_USAGE,
			"%s '%s' (%s) is in a folder the sandbox writes "
			"(/work, /tmp, /dev/shm, /home/jr2); move it into a "
			"read-only tree of the policy (e.g. under /opt/jr2)",
			input, path, resolved);
	snprintf(parent, sizeof(parent), "%s", resolved);
	*strrchr(parent, '/') = '\0';
	for (const char *p = resolved; p; p = parent[0] ? parent : "/") {
		if (stat(p, &st) == 0 &&
		    ((st.st_uid == uid && (st.st_mode & S_IWUSR)) ||
		     (st.st_mode & S_IWOTH)))
			say("warning: %s '%s': '%s' can be written by the "
			    "sandbox user (uid %u); make it owned by root and "
			    "not world-writable",
			    input, path, p, (unsigned int)uid);
		if (p != resolved)
			break;
	}
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
