// SPDX-License-Identifier: GPL-2.0-only
/*
 * The side-effect half of the compiler: look at the file system (never
 * following a symlink) and /proc/self/mountinfo, describe the tree, and hand
 * it to the pure planner (plan.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fswalk.h"
#include "links.h"
#include "plan.h"
#include "policy.h"
#include "policy_internal.h"

static enum jr2_ftype ftype(mode_t mode)
{
	if (S_ISDIR(mode))
		return JR2_FT_DIR;
	return S_ISLNK(mode) ? JR2_FT_SYMLINK : JR2_FT_FILE;
}

static void add_target(struct jr2_fsview *view, const char *path,
		       enum jr2_kind kind, const struct stat *st,
		       const char *origin)
{
	struct jr2_target *t;

	view->targets =
	    jr2_xrealloc(view->targets, (view->n_targets + 1) * sizeof(*t));
	t = &view->targets[view->n_targets++];
	t->path = jr2_xstrdup(path);
	t->kind = kind;
	t->type = ftype(st->st_mode);
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->origin = jr2_xstrdup(origin);
}

/* 0 and a target added; 0 and a note (a missing default); -1 on error. */
static int look_at(struct jr2_fsview *view, const char *path,
		   enum jr2_kind kind, const char *origin, bool is_default,
		   struct jr2_paths *notes, struct jr2_err *err)
{
	struct stat st;
	size_t bad_len = 0;
	int fd = jr2_open_nofollow(path, &st, &bad_len);

	if (fd >= 0) {
		close(fd);
		if (is_default && S_ISLNK(st.st_mode)) {
			jr2_paths_addf(notes,
				       "skipped: %s '%s' is a symlink "
				       "(rules never follow symlinks)",
				       origin, path);
			return 0;
		}
		add_target(view, path, kind, &st, origin);
		return 0;
	}
	if (fd == -ENOENT && is_default) {
		jr2_paths_addf(notes, "skipped: %s '%s' does not exist", origin,
			       path);
		return 0;
	}
	if (fd == -ENOENT)
		return jr2_fail(err, ENOENT, true,
				"%s '%s' does not exist: create it first or "
				"leave it out",
				origin, path);
	if (fd == -ELOOP || fd == -ENOTDIR)
		return jr2_fail(err, -fd, true,
				"%s '%s': '%.*s' is %s: give the real path "
				"(rules never follow symlinks)",
				origin, path, (int)bad_len, path,
				fd == -ELOOP ? "a symlink" : "not a directory");
	return jr2_fail(err, -fd, false, "%s '%s': %s: check its permissions",
			origin, path, strerror(-fd));
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

struct mount {
	unsigned int major, minor;
	char *root, *point;
	int id;
};

static size_t read_mounts(struct mount **out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct mount *v = NULL;
	char *line = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		char root[4096], point[4096];
		struct mount m;

		if (sscanf(line, "%d %*d %u:%u %4095s %4095s", &m.id, &m.major,
			   &m.minor, root, point) != 5)
			continue;
		unescape(root);
		unescape(point);
		m.root = jr2_xstrdup(root);
		m.point = jr2_xstrdup(point);
		v = jr2_xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = m;
	}
	free(line);
	fclose(f);
	*out = v;
	return n;
}

/* `base` + the part of `path` below `prefix` (both in normal form). */
static char *rebase(const char *path, const char *prefix, const char *base)
{
	const char *rest = path + (strcmp(prefix, "/") ? strlen(prefix) : 0);
	size_t len = strlen(base) + strlen(rest) + 2;
	char *out = jr2_xrealloc(NULL, len);

	snprintf(out, len, "%s%s", strcmp(base, "/") ? base : "", rest);
	if (!*out)
		strcpy(out, "/");
	return out;
}

static bool covered(const struct jr2_fsview *view, const char *path)
{
	for (size_t i = 0; i < view->n_targets; i++)
		if (view->targets[i].kind == JR2_KIND_PROTECT &&
		    jr2_path_within(path, view->targets[i].path))
			return true;
	return false;
}

/* Is `path` within a target of `kind` already? */
static bool within_kind(const struct jr2_fsview *view, const char *path,
			enum jr2_kind kind)
{
	for (size_t i = 0; i < view->n_targets; i++)
		if (view->targets[i].kind == kind &&
		    jr2_path_within(path, view->targets[i].path))
			return true;
	return false;
}

/*
 * A protected dir (or a read-only tree) is as reachable through every other
 * mount of the same file system that shows it or a part of it (a bind
 * mount): Landlock rules bind to inodes, but the walk up from a file crosses
 * the other mount's ancestors, which are granted in full.  Each such place
 * is protected (or read-only) too.
 */
static void add_mount_aliases(struct jr2_fsview *view,
			      const struct mount *mounts, size_t n,
			      struct jr2_paths *notes)
{
	size_t n_targets = view->n_targets;

	for (size_t t = 0; t < n_targets; t++) {
		char *path = jr2_xstrdup(view->targets[t].path);
		enum jr2_kind kind = view->targets[t].kind;
		const char *word =
		    kind == JR2_KIND_PROTECT ? "protected" : "read-only";
		const struct mount *home = NULL;
		char *fspath;
		for (size_t i = 0; i < n; i++)
			if (jr2_path_within(path, mounts[i].point) &&
			    (!home ||
			     strlen(mounts[i].point) >= strlen(home->point)))
				home = &mounts[i];
		if (!home) {
			free(path);
			continue;
		}
		fspath = rebase(path, home->point, home->root);
		for (size_t i = 0; i < n; i++) {
			const struct mount *m = &mounts[i];
			char *alias = NULL, origin[600];
			struct stat st;
			int fd;

			if (m == home || m->major != home->major ||
			    m->minor != home->minor)
				continue;
			if (jr2_path_within(m->root, fspath))
				alias = jr2_xstrdup(m->point);
			else if (jr2_path_within(fspath, m->root))
				alias = rebase(fspath, m->root, m->point);
			if (!alias || covered(view, alias) ||
			    within_kind(view, alias, kind)) {
				free(alias);
				continue;
			}
			fd = jr2_open_nofollow(alias, &st, NULL);
			if (fd < 0) {
				jr2_paths_addf(notes,
					       "mount %d shows %s '%s' "
					       "at '%s', which cannot be "
					       "opened (%s): no rule needed",
					       m->id, word, path, alias,
					       strerror(-fd));
				free(alias);
				continue;
			}
			close(fd);
			snprintf(origin, sizeof(origin), "mount %d of %s '%s'",
				 m->id, word, path);
			jr2_paths_addf(notes, "'%s' is %s (mountinfo): %s too",
				       alias, origin, word);
			add_target(view, alias, kind, &st, origin);
			free(alias);
		}
		free(fspath);
		free(path);
	}
}

/* Is `dir`/`name` a mount point?  (No string built: called per entry.) */
static bool is_mount_point(const struct mount *mounts, size_t n,
			   const char *dir, const char *name)
{
	size_t len = strcmp(dir, "/") ? strlen(dir) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *point = mounts[i].point;

		if (!strncmp(point, dir, len) && point[len] == '/' &&
		    !strcmp(point + len + 1, name))
			return true;
	}
	return false;
}

/*
 * Hard links stay within a file system: only there is a file's link count
 * needed (a rule on a file linked into a restricted path would grant it).
 */
static bool holds_restricted(const struct jr2_fsview *view, dev_t dev)
{
	for (size_t i = 0; i < view->n_targets; i++)
		if (view->targets[i].dev == dev)
			return true;
	return false;
}

/*
 * Lists an ancestor.  An entry is stat'ed only where readdir cannot tell
 * enough (unknown type, a mount point, a file on the file system of a
 * restricted path, whose hard links count): the rest keeps dev and ino 0,
 * "unchecked", so confining re-checks only its type.
 */
static int list_dir(struct jr2_fsview *view, const char *path,
		    const struct mount *mounts, size_t n_mounts,
		    struct jr2_err *err)
{
	struct jr2_fsdir *dir;
	struct stat st;
	struct dirent *de;
	size_t bad_len = 0;
	int pfd = jr2_open_nofollow(path, &st, &bad_len);
	int fd;
	DIR *d;

	if (pfd < 0)
		return jr2_fail(err, -pfd, -pfd == ELOOP || -pfd == ENOTDIR,
				"ancestor '%s' of a restricted path: %s: "
				"give real paths (no symlink in them)",
				path, strerror(-pfd));
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	if (fd < 0 || !(d = fdopendir(fd))) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		return jr2_fail(err, saved, false,
				"cannot list ancestor '%s': %s: the confiner "
				"must be able to read it",
				path, strerror(saved));
	}
	view->dirs =
	    jr2_xrealloc(view->dirs, (view->n_dirs + 1) * sizeof(*view->dirs));
	dir = &view->dirs[view->n_dirs++];
	memset(dir, 0, sizeof(*dir));
	dir->path = jr2_xstrdup(path);
	dir->dev = st.st_dev;
	dir->ino = st.st_ino;
	while ((de = readdir(d))) {
		struct jr2_fsentry *e;
		struct stat est;

		bool need_stat;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		need_stat =
		    de->d_type == DT_UNKNOWN ||
		    is_mount_point(mounts, n_mounts, path, de->d_name) ||
		    (de->d_type != DT_DIR && de->d_type != DT_LNK &&
		     holds_restricted(view, st.st_dev));
		memset(&est, 0, sizeof(est));
		est.st_nlink = 1;
		est.st_mode = de->d_type == DT_DIR   ? S_IFDIR
			      : de->d_type == DT_LNK ? S_IFLNK
						     : S_IFREG;
		/* Gone since readdir: nothing to grant. */
		if (need_stat &&
		    fstatat(dirfd(d), de->d_name, &est, AT_SYMLINK_NOFOLLOW))
			continue;
		dir->entries = jr2_xrealloc(dir->entries,
					    (dir->n_entries + 1) * sizeof(*e));
		e = &dir->entries[dir->n_entries++];
		e->name = jr2_xstrdup(de->d_name);
		e->type = ftype(est.st_mode);
		e->dev = est.st_dev;
		e->ino = est.st_ino;
		e->nlink = est.st_nlink;
	}
	closedir(d);
	return 0;
}

int jr2_policy_compile(const struct jr2_policy *policy, int abi,
		       struct jr2_ruleset_plan *plan, struct jr2_err *err)
{
	struct jr2_fsview view = {0};
	struct jr2_paths notes = {0}, ancestors = {0};
	const char *pro =
	    policy->defaults ? "default protected dir" : "protected dir";
	const char *ro =
	    policy->defaults ? "default read-only tree" : "read-only tree";
	struct mount *mounts = NULL;
	size_t n_mounts = read_mounts(&mounts);
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; i < policy->protect.n && !ret; i++)
		ret = look_at(&view, policy->protect.v[i], JR2_KIND_PROTECT,
			      pro, policy->defaults, &notes, err);
	for (size_t i = 0; i < policy->read_only.n && !ret; i++)
		ret = look_at(&view, policy->read_only.v[i], JR2_KIND_READ_ONLY,
			      ro, policy->defaults, &notes, err);
	if (!ret)
		ret = jr2_plan_targets(view.targets, &view.n_targets, &notes,
				       err);
	if (!ret) {
		add_mount_aliases(&view, mounts, n_mounts, &notes);
		ret = jr2_plan_targets(view.targets, &view.n_targets, &notes,
				       err);
	}
	if (!ret)
		ret = jr2_check_protected_links(&view, err);
	if (!ret)
		jr2_plan_ancestors(view.targets, view.n_targets, &ancestors);
	for (size_t i = 0; i < ancestors.n && !ret; i++)
		ret = list_dir(&view, ancestors.v[i], mounts, n_mounts, err);
	if (!ret)
		ret = jr2_plan_build(&view, abi, plan, err);
	if (!ret) {
		/* The walk's notes first, then the planner's. */
		for (size_t i = 0; i < plan->notes.n; i++)
			jr2_paths_add(&notes, plan->notes.v[i]);
		jr2_paths_free(&plan->notes);
		plan->notes = notes;
	} else {
		jr2_paths_free(&notes);
	}
	for (size_t i = 0; i < n_mounts; i++) {
		free(mounts[i].root);
		free(mounts[i].point);
	}
	free(mounts);
	jr2_paths_free(&ancestors);
	jr2_fsview_free(&view);
	return ret;
}
