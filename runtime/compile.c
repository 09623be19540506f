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
		   struct jr2_strv *notes, struct jr2_err *err)
{
	struct stat st;
	size_t bad_len = 0;
	int fd = jr2_open_nofollow(path, &st, &bad_len);

	if (fd >= 0) {
		close(fd);
		if (is_default && S_ISLNK(st.st_mode)) {
			jr2_strv_addf(notes,
				      "skipped: %s '%s' is a symlink "
				      "(rules never follow symlinks)",
				      origin, path);
			return 0;
		}
		add_target(view, path, kind, &st, origin);
		return 0;
	}
	if (fd == -ENOENT && is_default) {
		jr2_strv_addf(notes, "skipped: %s '%s' does not exist", origin,
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
	char *fstype, *super; /* after " - ": type, super block options */
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
		char root[4096], point[4096], fstype[256] = "",
					      super[4096] = "";
		const char *dash = strstr(line, " - ");
		struct mount m;

		if (sscanf(line, "%d %*d %u:%u %4095s %4095s", &m.id, &m.major,
			   &m.minor, root, point) != 5)
			continue;
		if (dash)
			sscanf(dash + 3, "%255s %*s %4095s", fstype, super);
		unescape(root);
		unescape(point);
		unescape(super);
		m.root = jr2_xstrdup(root);
		m.point = jr2_xstrdup(point);
		m.fstype = jr2_xstrdup(fstype);
		m.super = jr2_xstrdup(super);
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

	if (!strcmp(rest, "/"))
		rest = ""; /* path is "/" itself */
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

/*
 * A protected dir is as reachable through every other mount of the same
 * file system that shows it or a part of it (a bind mount): Landlock rules
 * bind to inodes, but the walk up from a file crosses the other mount's
 * ancestors, which are granted in full.  Each such place is protected too.
 */
static int add_mount_aliases(struct jr2_fsview *view,
			     const struct mount *mounts, size_t n,
			     struct jr2_strv *notes, struct jr2_err *err)
{
	size_t n_targets = view->n_targets;

	for (size_t t = 0; t < n_targets; t++) {
		char *path = jr2_xstrdup(view->targets[t].path);
		const struct mount *home = NULL;
		char *fspath;

		if (view->targets[t].kind != JR2_KIND_PROTECT) {
			free(path);
			continue;
		}
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
			if (!alias || covered(view, alias)) {
				free(alias);
				continue;
			}
			fd = jr2_open_nofollow(alias, &st, NULL);
			if (fd < 0) {
				/* Not reachable by path now, but by an
				   inherited working dir or descriptor. */
				jr2_fail(err, -fd, false,
					 "mount %d shows protected '%s' at "
					 "'%s', which cannot be opened (%s): "
					 "unmount '%s' (umount -l)",
					 m->id, path, alias, strerror(-fd),
					 m->point);
				free(alias);
				free(fspath);
				free(path);
				return -1;
			}
			close(fd);
			snprintf(origin, sizeof(origin),
				 "mount %d of protected '%s'", m->id, path);
			jr2_strv_addf(notes,
				      "'%s' is %s (mountinfo): protected too",
				      alias, origin);
			add_target(view, alias, JR2_KIND_PROTECT, &st, origin);
			free(alias);
		}
		free(fspath);
		free(path);
	}
	return 0;
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
 * Lists an ancestor, each entry stat'ed (never followed): every rule carries
 * the dev and ino it was planned for, and confining adds it only to that
 * inode (a rename or exchange in between is refused).  An
 * entry that cannot be stat'ed may be an alias of a restricted path: refused,
 * unless it is gone.  A file's link count matters only on the file
 * system of a restricted path (a hard link stays within its file system).
 */
static int list_dir(struct jr2_fsview *view, const char *path,
		    struct jr2_err *err)
{
	struct jr2_fsdir *dir;
	struct stat st;
	struct dirent *de;
	size_t bad_len = 0;
	int pfd = jr2_open_nofollow(path, &st, &bad_len);
	int fd, ret = 0;
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
	while (!ret && (de = readdir(d))) {
		struct jr2_fsentry *e;
		struct stat est;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &est, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue; /* gone since readdir */
			ret = jr2_fail(err, errno, false,
				       "'%s/%s' beside a restricted path "
				       "cannot be looked at (%s): it may "
				       "show a restricted path; unmount it "
				       "or make it readable by the confiner",
				       strcmp(path, "/") ? path : "",
				       de->d_name, strerror(errno));
			break;
		}
		if (!S_ISDIR(est.st_mode) &&
		    !holds_restricted(view, est.st_dev))
			est.st_nlink = 1;
		dir->entries = jr2_xrealloc(dir->entries,
					    (dir->n_entries + 1) * sizeof(*e));
		e = &dir->entries[dir->n_entries++];
		e->name = jr2_xstrdup(de->d_name);
		e->type = ftype(est.st_mode);
		e->dev = est.st_dev;
		e->ino = est.st_ino;
		e->nlink = est.st_nlink;
		e->rdev = S_ISCHR(est.st_mode) ? est.st_rdev : 0;
	}
	closedir(d);
	return ret;
}

/* Kernel file systems and the one tree where each belongs. */
static const struct {
	const char *type, *home;
} kernel_fs[] = {
    {"proc", JR2_PROC_TREE},	{"binfmt_misc", JR2_PROC_TREE},
    {"sysfs", JR2_SYS_TREE},	{"debugfs", JR2_SYS_TREE},
    {"tracefs", JR2_SYS_TREE},	{"securityfs", JR2_SYS_TREE},
    {"configfs", JR2_SYS_TREE}, {"bpf", JR2_SYS_TREE},
    {"cgroup", JR2_SYS_TREE},	{"cgroup2", JR2_SYS_TREE},
    {"pstore", JR2_SYS_TREE},	{"efivarfs", JR2_SYS_TREE},
    {"fusectl", JR2_SYS_TREE},	{"devtmpfs", JR2_DEV_DIR},
};

static const struct jr2_target *target_at(const struct jr2_fsview *view,
					  const char *path)
{
	for (size_t i = 0; i < view->n_targets; i++)
		if (!strcmp(view->targets[i].path, path))
			return &view->targets[i];
	return NULL;
}

/* Is the file system of mount m also mounted at or under `home`?  Then
   its other mounts are aliases, which check_mount_aliases() compares. */
static bool shown_in(const struct mount *mounts, size_t n,
		     const struct mount *m, const char *home)
{
	for (size_t i = 0; i < n; i++)
		if (mounts[i].major == m->major &&
		    mounts[i].minor == m->minor &&
		    jr2_path_within(mounts[i].point, home))
			return true;
	return false;
}

/*
 * A kernel file system mounted outside its tree (a second proc at /x/proc,
 * sysfs or debugfs in a work folder) would show the kernel's control files
 * with that folder's full rights: refused.  One that is also mounted in its
 * tree (a bind of /proc/sys, of /dev/null) is an alias: compared by rights.
 */
static int check_kernel_mounts(const struct jr2_fsview *view,
			       const struct mount *mounts, size_t n,
			       struct jr2_err *err)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof(kernel_fs) / sizeof(*kernel_fs);
		     k++) {
			const char *home = kernel_fs[k].home;

			if (strcmp(mounts[i].fstype, kernel_fs[k].type) ||
			    !target_at(view, home) ||
			    jr2_path_within(mounts[i].point, home) ||
			    shown_in(mounts, n, &mounts[i], home))
				continue;
			return jr2_fail(err, EEXIST, false,
					"mount %d: a %s file system at '%s', "
					"outside '%s' where the kernel's files "
					"are restricted: unmount it (umount "
					"-l '%s')",
					mounts[i].id, mounts[i].fstype,
					mounts[i].point, home, mounts[i].point);
		}
	}
	return 0;
}

static bool is_dir_path(const char *path)
{
	struct stat st;

	return lstat(path, &st) || S_ISDIR(st.st_mode);
}

/*
 * The same inodes at `canon` (the restricted view) and at `alias` (another
 * mount of the same file system): nothing may be granted more at the alias
 * than at the canonical place, neither by the alias's ancestors nor by a
 * rule inside the alias (a rule lands on the inode, so at both places).
 */
static int check_alias(const struct jr2_ruleset_plan *plan,
		       const struct mount *m, const char *canon,
		       const char *alias, const char *restricted,
		       struct jr2_err *err)
{
	bool is_dir = is_dir_path(canon);
	uint64_t at_canon = jr2_plan_rights_at(plan, canon, is_dir);
	uint64_t more = jr2_plan_rights_at(plan, alias, is_dir) & ~at_canon;
	const char *what = alias;
	char names[300];

	if (!strcmp(canon, alias))
		return 0;
	for (size_t i = 0; i < plan->n_rules && !more; i++) {
		const struct jr2_rule *rule = &plan->rules[i];
		char *mirror;

		if (!jr2_path_within(rule->path, alias) ||
		    !strcmp(rule->path, alias))
			continue;
		mirror = rebase(rule->path, alias, canon);
		more = rule->access &
		       ~jr2_plan_rights_at(plan, mirror, rule->is_dir);
		free(mirror);
		what = rule->path;
	}
	if (!more)
		return 0;
	return jr2_fail(
	    err, EEXIST, false,
	    "mount %d at '%s' shows '%s' (restricted: '%s') again "
	    "at '%s', where it would get more rights (%s): "
	    "unmount '%s' (umount -l) or restrict it too",
	    m->id, m->point, canon, restricted, what,
	    jr2_format_bits(JR2_BITS_FS, more, ",", names, sizeof(names)),
	    m->point);
}

/* Every other mount of the file system region `fsroot` of mount `m`, which
   the restricted view shows at `canon`. */
static int check_region(const struct jr2_ruleset_plan *plan,
			const struct mount *mounts, size_t n,
			const struct mount *m, const char *fsroot,
			const char *canon, const char *restricted,
			bool borrowed_ok, struct jr2_err *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct mount *o = &mounts[i];
		char *alias, *at;
		int ret;

		if (o == m || o->major != m->major || o->minor != m->minor)
			continue;
		if (jr2_path_within(o->root, fsroot)) {
			alias = jr2_xstrdup(o->point);
			at = rebase(o->root, fsroot, canon);
		} else if (jr2_path_within(fsroot, o->root)) {
			/* A file bound into /proc, /sys or /dev from elsewhere
			   (Docker's /dev/null on /proc/kcore) is no kernel
			   file: its own place is the other mount. */
			if (borrowed_ok && strcmp(fsroot, o->root))
				continue;
			alias = rebase(fsroot, o->root, o->point);
			at = jr2_xstrdup(canon);
		} else {
			continue;
		}
		ret = check_alias(plan, o, at, alias, restricted, err);
		free(alias);
		free(at);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Mounts can't alias a restricted path: for each restricted
 * path, its own mount and every mount below it are compared, by device and
 * root, with every other mount of the same file system.
 */
static int check_mount_aliases(const struct jr2_ruleset_plan *plan,
			       const struct mount *mounts, size_t n,
			       struct jr2_err *err)
{
	for (size_t t = 0; t < plan->n_targets; t++) {
		const char *path = plan->targets[t].path;
		const struct mount *home = NULL;
		char *fspath;
		int ret = 0;

		for (size_t i = 0; i < n; i++)
			if (jr2_path_within(path, mounts[i].point) &&
			    (!home ||
			     strlen(mounts[i].point) >= strlen(home->point)))
				home = &mounts[i];
		if (!home)
			continue;
		fspath = rebase(path, home->point, home->root);
		ret = check_region(plan, mounts, n, home, fspath, path, path,
				   false, err);
		free(fspath);
		for (size_t i = 0; i < n && !ret; i++)
			if (&mounts[i] != home &&
			    jr2_path_within(mounts[i].point, path) &&
			    strcmp(mounts[i].point, path))
				ret = check_region(
				    plan, mounts, n, &mounts[i], mounts[i].root,
				    mounts[i].point, path,
				    plan->targets[t].kind == JR2_KIND_DEVICES ||
					!strcmp(plan->targets[t].origin,
						JR2_ORIGIN_KERNEL),
				    err);
		if (ret)
			return ret;
	}
	return 0;
}

/* Splits at `sep` not escaped by a backslash; drops the backslashes. */
static char *next_field(char **cursor, char sep)
{
	char *start = *cursor, *o = start, *p = start;

	if (!start)
		return NULL;
	for (; *p && *p != sep; p++) {
		if (*p == '\\' && p[1])
			p++;
		*o++ = *p;
	}
	*cursor = *p ? p + 1 : NULL;
	*o = '\0';
	return start;
}

static int check_layer(const struct jr2_ruleset_plan *plan,
		       const struct mount *m, const char *key,
		       const char *layer, struct jr2_err *err)
{
	for (size_t t = 0; t < plan->n_targets; t++) {
		const char *path = plan->targets[t].path;
		bool shown_elsewhere = false;

		if (*layer != '/')
			continue;
		if (jr2_path_within(path, layer)) {
			char *at = rebase(path, layer, m->point);

			shown_elsewhere = strcmp(at, path);
			free(at);
		} else if (jr2_path_within(layer, path)) {
			shown_elsewhere =
			    strcmp(layer, m->point) || strcmp(key, "lowerdir");
		}
		if (shown_elsewhere)
			return jr2_fail(
			    err, EEXIST, false,
			    "overlay mount %d at '%s' has %s '%s', which is, "
			    "holds or lies in restricted '%s': its files "
			    "would be reachable through '%s' around the "
			    "rules; unmount it (umount -l '%s')",
			    m->id, m->point, key, layer, path, m->point,
			    m->point);
	}
	return 0;
}

/* Overlayfs whose layers are, hold or lie in a restricted path. */
static int check_overlays(const struct jr2_ruleset_plan *plan,
			  const struct mount *mounts, size_t n,
			  struct jr2_err *err)
{
	for (size_t i = 0; i < n; i++) {
		char *super, *cursor, *opt;
		int ret = 0;

		if (strcmp(mounts[i].fstype, "overlay"))
			continue;
		super = jr2_xstrdup(mounts[i].super);
		cursor = super;
		while (!ret && (opt = next_field(&cursor, ','))) {
			char *value = strchr(opt, '='), *layers, *layer;

			if (!value)
				continue;
			*value++ = '\0';
			if (strcmp(opt, "lowerdir") &&
			    strcmp(opt, "upperdir") && strcmp(opt, "workdir") &&
			    strcmp(opt, "lowerdir+") && strcmp(opt, "datadir+"))
				continue;
			layers = value;
			while (!ret && (layer = next_field(&layers, ':')))
				ret = check_layer(plan, &mounts[i], opt, layer,
						  err);
		}
		free(super);
		if (ret)
			return ret;
	}
	return 0;
}

/* Each CA bundle outside /opt/jr2, and the folders that it alone freezes. */
static void ca_warnings(const struct jr2_fsview *view,
			struct jr2_ruleset_plan *plan)
{
	for (size_t t = 0; t < view->n_targets; t++) {
		const struct jr2_target *ca = &view->targets[t];
		char frozen[800] = "";
		size_t len = 0;

		if (strncmp(ca->origin, "CA bundle", 9) ||
		    jr2_path_within(ca->path, "/opt/jr2"))
			continue;
		for (size_t f = 0; f < plan->frozen.n; f++) {
			const char *dir = plan->frozen.v[f];
			bool other = false;

			if (!jr2_path_within(ca->path, dir) ||
			    !strcmp(ca->path, dir))
				continue;
			for (size_t o = 0; o < view->n_targets && !other; o++)
				other =
				    strncmp(view->targets[o].origin,
					    "CA bundle", 9) &&
				    jr2_path_within(view->targets[o].path, dir);
			if (!other && len < sizeof(frozen))
				len += (size_t)snprintf(
				    frozen + len, sizeof(frozen) - len, "%s%s",
				    len ? ", " : "", dir);
		}
		jr2_strv_addf(&plan->warnings,
			      "%s '%s' is outside /opt/jr2: it is read-only, "
			      "and nothing can be made or removed directly in "
			      "%s; move it under /opt/jr2",
			      ca->origin, ca->path,
			      len ? frozen : "no other folder");
	}
}

int jr2_plan_verify_targets(const struct jr2_ruleset_plan *plan,
			    struct jr2_err *err)
{
	for (size_t t = 0; t < plan->n_targets; t++) {
		const struct jr2_plan_target *target = &plan->targets[t];
		struct stat st;
		int fd = jr2_open_nofollow(target->path, &st, NULL);

		if (fd >= 0)
			close(fd);
		if (fd < 0 || (uint64_t)st.st_dev != target->dev ||
		    (uint64_t)st.st_ino != target->ino)
			return jr2_fail(err, ESTALE, false,
					"restricted path '%s' (%s) was "
					"replaced or moved while confining "
					"(%s): run again",
					target->path, target->origin,
					fd < 0 ? strerror(-fd)
					       : "another inode now");
	}
	return 0;
}

int jr2_policy_compile(const struct jr2_policy *policy, int abi,
		       struct jr2_ruleset_plan *plan, struct jr2_err *err)
{
	struct jr2_fsview view = {0};
	struct jr2_strv notes = {0}, ancestors = {0};
	const char *pro =
	    policy->defaults ? "default protected dir" : "protected dir";
	const char *ro =
	    policy->defaults ? "default read-only tree" : "read-only tree";
	struct mount *mounts = NULL;
	size_t n_mounts = read_mounts(&mounts);
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	/* In every policy: the kernel's control files, the devices. */
	ret = look_at(&view, JR2_PROC_TREE, JR2_KIND_READ_ONLY,
		      JR2_ORIGIN_KERNEL, true, &notes, err);
	if (!ret)
		ret = look_at(&view, JR2_SYS_TREE, JR2_KIND_READ_ONLY,
			      JR2_ORIGIN_KERNEL, true, &notes, err);
	if (!ret)
		ret = look_at(&view, JR2_DEV_DIR, JR2_KIND_DEVICES,
			      JR2_ORIGIN_DEVICES, true, &notes, err);
	for (size_t i = 0; i < policy->protect.n && !ret; i++)
		ret = look_at(&view, policy->protect.v[i], JR2_KIND_PROTECT,
			      pro, policy->defaults, &notes, err);
	for (size_t i = 0; i < policy->read_only.n && !ret; i++)
		ret = look_at(&view, policy->read_only.v[i], JR2_KIND_READ_ONLY,
			      ro, policy->defaults, &notes, err);
	for (size_t i = 0; i < policy->ca_bundles.n && !ret; i++) {
		char origin[64];

		snprintf(origin, sizeof(origin), "CA bundle ($%s)",
			 i < policy->ca_vars.n ? policy->ca_vars.v[i] : "?");
		ret = look_at(&view, policy->ca_bundles.v[i],
			      JR2_KIND_READ_ONLY, origin, true, &notes, err);
	}
	if (!ret)
		ret = jr2_plan_targets(view.targets, &view.n_targets, &notes,
				       err);
	if (!ret)
		ret = check_kernel_mounts(&view, mounts, n_mounts, err);
	if (!ret)
		ret = add_mount_aliases(&view, mounts, n_mounts, &notes, err);
	if (!ret)
		ret = jr2_plan_targets(view.targets, &view.n_targets, &notes,
				       err);
	if (!ret)
		ret = jr2_check_protected_links(&view, err);
	if (!ret)
		jr2_plan_ancestors(view.targets, view.n_targets, &ancestors);
	for (size_t i = 0; i < ancestors.n && !ret; i++)
		ret = list_dir(&view, ancestors.v[i], err);
	if (!ret)
		ret = jr2_plan_build(&view, abi, plan, err);
	if (!ret && (check_mount_aliases(plan, mounts, n_mounts, err) ||
		     check_overlays(plan, mounts, n_mounts, err))) {
		jr2_plan_free(plan);
		ret = -1;
	}
	if (!ret)
		ca_warnings(&view, plan);
	if (!ret) {
		/* The walk's notes first, then the planner's. */
		for (size_t i = 0; i < plan->notes.n; i++)
			jr2_strv_add(&notes, plan->notes.v[i]);
		jr2_strv_free(&plan->notes);
		plan->notes = notes;
	} else {
		jr2_strv_free(&notes);
	}
	for (size_t i = 0; i < n_mounts; i++) {
		free(mounts[i].root);
		free(mounts[i].point);
		free(mounts[i].fstype);
		free(mounts[i].super);
	}
	free(mounts);
	jr2_strv_free(&ancestors);
	jr2_fsview_free(&view);
	return ret;
}
