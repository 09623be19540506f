// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fswalk.h"
#include "links.h"
#include "policy_internal.h"

#define MAX_DEPTH 64

/* A linked file: its names seen inside the protected dirs so far. */
struct linked {
	uint64_t dev, ino, nlink, seen;
	char *path; /* the first name seen, for the message */
};

struct walk {
	struct linked *files;
	size_t n_files;
	struct {
		uint64_t dev, ino;
	} * dirs; /* walked already: a bind mount shows the same names */
	size_t n_dirs;
};

static bool dir_walked(struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].dev == st->st_dev &&
		    w->dirs[i].ino == st->st_ino)
			return true;
	w->dirs = jr2_xrealloc(w->dirs, (w->n_dirs + 1) * sizeof(*w->dirs));
	w->dirs[w->n_dirs].dev = st->st_dev;
	w->dirs[w->n_dirs++].ino = st->st_ino;
	return false;
}

static void count_name(struct walk *w, const struct stat *st, const char *path)
{
	for (size_t i = 0; i < w->n_files; i++) {
		if (w->files[i].dev == st->st_dev &&
		    w->files[i].ino == st->st_ino) {
			w->files[i].seen++;
			return;
		}
	}
	w->files = jr2_xrealloc(w->files, (w->n_files + 1) * sizeof(*w->files));
	w->files[w->n_files++] = (struct linked){
	    .dev = st->st_dev,
	    .ino = st->st_ino,
	    .nlink = st->st_nlink,
	    .seen = 1,
	    .path = jr2_xstrdup(path),
	};
}

/* Walks dir `fd` (named `path`), never following a symlink. */
static int walk_dir(struct walk *w, int fd, const char *path, int depth,
		    struct jr2_err *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (fstat(fd, &st) || dir_walked(w, &st)) {
		close(fd);
		return 0;
	}
	if (depth > MAX_DEPTH) {
		close(fd);
		return jr2_fail(err, ELOOP, false,
				"protected dir '%s' is deeper than %d levels: "
				"flatten it",
				path, MAX_DEPTH);
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return jr2_fail(err, errno, false,
				"cannot list protected dir '%s': %s: the "
				"confiner must be able to read it",
				path, strerror(errno));
	}
	while (!ret && (de = readdir(d))) {
		char child[PATH_MAX];
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
		if (de->d_type == DT_DIR) {
			sub = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
			if (sub >= 0)
				ret = walk_dir(w, sub, child, depth + 1, err);
			continue;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone: no name left to reach it */
		if (S_ISDIR(st.st_mode)) {
			sub = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
			if (sub >= 0)
				ret = walk_dir(w, sub, child, depth + 1, err);
		} else if (st.st_nlink > 1) {
			count_name(w, &st, child);
		}
	}
	closedir(d);
	return ret;
}

int jr2_check_protected_links(const struct jr2_fsview *view,
			      struct jr2_err *err)
{
	struct walk w = {0};
	int ret = 0;

	for (size_t t = 0; t < view->n_targets && !ret; t++) {
		const struct jr2_target *target = &view->targets[t];
		struct stat st;
		int fd;

		if (target->kind != JR2_KIND_PROTECT)
			continue;
		fd = jr2_open_nofollow(target->path, &st, NULL);
		if (fd < 0)
			continue; /* found missing by the compiler already */
		if (!S_ISDIR(st.st_mode)) {
			if (st.st_nlink > 1)
				count_name(&w, &st, target->path);
			close(fd);
			continue;
		}
		close(fd);
		fd = open(target->path,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			ret = walk_dir(&w, fd, target->path, 0, err);
	}
	for (size_t i = 0; i < w.n_files && !ret; i++)
		if (w.files[i].seen < w.files[i].nlink)
			ret = jr2_fail(
			    err, EMLINK, false,
			    "protected file '%s' has %llu links, %llu of "
			    "them outside the protected dirs: a link "
			    "would reach it around the rules; remove the "
			    "other links (find / -samefile '%s')",
			    w.files[i].path,
			    (unsigned long long)w.files[i].nlink,
			    (unsigned long long)(w.files[i].nlink -
						 w.files[i].seen),
			    w.files[i].path);
	for (size_t i = 0; i < w.n_files; i++)
		free(w.files[i].path);
	free(w.files);
	free(w.dirs);
	return ret;
}
