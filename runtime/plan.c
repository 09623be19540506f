// SPDX-License-Identifier: GPL-2.0-only
/*
 * Landlock only grants, and a right granted on a dir holds in all of its
 * subtree.  So to deny one subtree, each ancestor gets only what every
 * restricted path below it may have, and every other entry along the way
 * (a "sibling") gets its region's rights in full: all handled rights outside
 * the read-only trees (REFER included, so files move between folders, A2),
 * read/execute/list inside them.  A rule that adds nothing to what its
 * ancestors already grant is left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "landlock_uapi.h"
#include "plan.h"
#include "policy_internal.h"

/* Rights the kernel accepts on a rule for a non-directory. */
#define FILE_RIGHTS                                         \
	(JR2_ACCESS_FS_EXECUTE | JR2_ACCESS_FS_WRITE_FILE | \
	 JR2_ACCESS_FS_READ_FILE | JR2_ACCESS_FS_TRUNCATE | \
	 JR2_ACCESS_FS_IOCTL_DEV)

/*
 * RESOLVE_UNIX (ABI 9) is granted everywhere, protected dirs included: the
 * Custodian's socket lives in the protected dir and must stay connectable
 * (R8).  jr2 restricts no connect; the Custodian authenticates each request
 * (it wants the control Stand-in), which Landlock cannot do.
 */
static uint64_t jr2_rights_protected(uint64_t handled)
{
	return handled & (JR2_ACCESS_FS_READ_DIR | JR2_ACCESS_FS_RESOLVE_UNIX);
}

uint64_t jr2_rights_read_only(uint64_t handled)
{
	return handled & (JR2_ACCESS_FS_EXECUTE | JR2_ACCESS_FS_READ_FILE |
			  JR2_ACCESS_FS_READ_DIR | JR2_ACCESS_FS_RESOLVE_UNIX);
}

uint64_t jr2_rights_file_only(uint64_t rights)
{
	return rights & FILE_RIGHTS;
}

/*
 * No device node can be made anywhere: a root program would make
 * one for a disk or for memory and read around every rule.
 */
uint64_t jr2_rights_full(uint64_t handled)
{
	return handled & ~(JR2_ACCESS_FS_MAKE_CHAR | JR2_ACCESS_FS_MAKE_BLOCK);
}

/*
 * The allow-list of a DEVICES folder (/dev): the harmless character devices
 * and terminals open for read, write and ioctl (terminals need it); execute
 * too, which the kernel refuses on a device anyway, so that a device bound
 * over a file of a read-only tree (Docker's /dev/null on /proc/kcore) has no
 * fewer rights than there.  shm and mqueue are folders programs fill.
 * Everything else (disks, mem, port, kmsg, loop-control, ...) gets no rule.
 */
static const struct {
	const char *name;
	unsigned int major, minor;
} device_files[] = {
    {"null", 1, 3},    {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8},
    {"urandom", 1, 9}, {"tty", 5, 0},  {"ptmx", 5, 2},
};

/* A node with an allowed name must be that device: a disk named "null"
   (made before confinement) gets no rule. */
static bool jr2_device_is_expected(const char *name, uint64_t rdev)
{
	for (size_t i = 0; i < sizeof(device_files) / sizeof(*device_files);
	     i++)
		if (!strcmp(name, device_files[i].name))
			return rdev && major(rdev) == device_files[i].major &&
			       minor(rdev) == device_files[i].minor;
	return true; /* folders (pts, shm, mqueue) are checked by type */
}

uint64_t jr2_rights_device(uint64_t handled, const char *name, bool is_dir)
{
	const uint64_t dev_rights =
	    JR2_ACCESS_FS_EXECUTE | JR2_ACCESS_FS_READ_FILE |
	    JR2_ACCESS_FS_WRITE_FILE | JR2_ACCESS_FS_TRUNCATE |
	    JR2_ACCESS_FS_IOCTL_DEV;

	if (is_dir && !strcmp(name, "pts"))
		return handled & (dev_rights | JR2_ACCESS_FS_READ_DIR |
				  JR2_ACCESS_FS_RESOLVE_UNIX);
	if (is_dir && (!strcmp(name, "shm") || !strcmp(name, "mqueue")))
		return jr2_rights_full(handled);
	if (is_dir)
		return 0;
	for (size_t i = 0; i < sizeof(device_files) / sizeof(*device_files);
	     i++)
		if (!strcmp(name, device_files[i].name))
			return handled & dev_rights;
	return 0;
}

bool jr2_path_within(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, len) &&
	       (path[len] == '\0' || path[len] == '/');
}

static bool strictly_within(const char *path, const char *dir)
{
	return strcmp(path, dir) && jr2_path_within(path, dir);
}

static const char *kind_name(enum jr2_kind kind)
{
	if (kind == JR2_KIND_DEVICES)
		return "device folder";
	return kind == JR2_KIND_PROTECT ? "protected dir" : "read-only tree";
}

static void drop_target(struct jr2_target *targets, size_t *n, size_t i)
{
	free(targets[i].path);
	free(targets[i].origin);
	memmove(&targets[i], &targets[i + 1], (*n - i - 1) * sizeof(*targets));
	(*n)--;
}

int jr2_plan_targets(struct jr2_target *targets, size_t *n,
		     struct jr2_strv *notes, struct jr2_err *err)
{
	for (size_t i = 0; i < *n; i++) {
		const struct jr2_target *t = &targets[i];

		if (t->type == JR2_FT_SYMLINK)
			return jr2_fail(err, ELOOP, true,
					"%s '%s' is a symlink: give the path "
					"it points to (rules never follow "
					"symlinks)",
					t->origin, t->path);
		if (t->kind == JR2_KIND_PROTECT && !strcmp(t->path, "/"))
			return jr2_fail(err, EINVAL, true,
					"%s '/' would protect everything: "
					"name the Harness's own dir",
					t->origin);
	}
	for (size_t i = 0; i < *n; i++) {
		for (size_t j = 0; j < *n; j++) {
			struct jr2_target *in = &targets[i], *out = &targets[j];

			if (i == j || !jr2_path_within(in->path, out->path))
				continue;
			if (out->kind == JR2_KIND_PROTECT &&
			    in->kind == JR2_KIND_READ_ONLY)
				return jr2_fail(
				    err, EINVAL, true,
				    "%s '%s' is inside protected dir "
				    "'%s': nothing in a protected dir "
				    "can be read; drop one of them",
				    in->origin, in->path, out->path);
			if (out->kind != in->kind &&
			    out->kind != JR2_KIND_PROTECT)
				continue; /* protected in read-only: kept */
			if (out->kind != in->kind &&
			    in->kind == JR2_KIND_DEVICES)
				return jr2_fail(
				    err, EINVAL, true,
				    "%s '%s' is inside protected dir '%s': "
				    "the devices would be unusable; protect "
				    "a folder beside it",
				    in->origin, in->path, out->path);
			/* Same kind, or nested in a protected dir. */
			if (strcmp(in->path, out->path) || i > j) {
				jr2_strv_addf(notes,
					      "%s '%s' is inside %s '%s': "
					      "covered by it",
					      kind_name(in->kind), in->path,
					      kind_name(out->kind), out->path);
				drop_target(targets, n, i);
				i = (size_t)-1; /* restart: indexes moved */
				break;
			}
		}
	}
	return 0;
}

static bool paths_has(const struct jr2_strv *paths, const char *path)
{
	for (size_t i = 0; i < paths->n; i++)
		if (!strcmp(paths->v[i], path))
			return true;
	return false;
}

void jr2_plan_ancestors(const struct jr2_target *targets, size_t n,
			struct jr2_strv *out)
{
	for (size_t i = 0; i < n; i++) {
		char *prefix = jr2_xstrdup(targets[i].path);
		char *slash;

		if (targets[i].kind == JR2_KIND_DEVICES &&
		    !paths_has(out, prefix))
			jr2_strv_add(out, prefix);

		while ((slash = strrchr(prefix, '/'))) {
			slash[slash == prefix ? 1 : 0] = '\0';
			if (!paths_has(out, prefix))
				jr2_strv_add(out, prefix);
			if (slash == prefix)
				break;
		}
		free(prefix);
	}
}

static size_t depth(const char *path)
{
	size_t d = 0;

	if (!strcmp(path, "/"))
		return 0;
	for (; *path; path++)
		d += *path == '/';
	return d;
}

static int by_depth(const void *a, const void *b)
{
	const char *pa = *(char *const *)a, *pb = *(char *const *)b;
	size_t da = depth(pa), db = depth(pb);

	if (da != db)
		return da < db ? -1 : 1;
	return strcmp(pa, pb);
}

static void add_rule(struct jr2_ruleset_plan *plan, const char *path,
		     uint64_t access, bool is_dir, uint64_t dev, uint64_t ino,
		     const char *why)
{
	struct jr2_rule *rule;

	plan->rules = jr2_xrealloc(plan->rules,
				   (plan->n_rules + 1) * sizeof(*plan->rules));
	rule = &plan->rules[plan->n_rules++];
	rule->path = jr2_xstrdup(path);
	rule->access = access;
	rule->is_dir = is_dir;
	rule->dev = dev;
	rule->ino = ino;
	rule->why = jr2_xstrdup(why);
}

static char *join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path = jr2_xrealloc(NULL, len);

	strcpy(path, dir);
	if (strcmp(dir, "/"))
		strcat(path, "/");
	strcat(path, name);
	return path;
}

struct plan_ctx {
	const struct jr2_fsview *view;
	uint64_t handled;
	struct jr2_strv ancestors; /* sorted by depth */
	uint64_t *granted; /* per ancestor: what it and its own
			      ancestors grant */
};

static bool in_read_only(const struct plan_ctx *ctx, const char *path)
{
	for (size_t i = 0; i < ctx->view->n_targets; i++) {
		const struct jr2_target *t = &ctx->view->targets[i];

		if (t->kind == JR2_KIND_READ_ONLY &&
		    jr2_path_within(path, t->path))
			return true;
	}
	return false;
}

static uint64_t kind_rights(const struct plan_ctx *ctx, enum jr2_kind kind)
{
	if (kind == JR2_KIND_DEVICES)
		return jr2_rights_protected(ctx->handled);
	return kind == JR2_KIND_PROTECT ? jr2_rights_protected(ctx->handled)
					: jr2_rights_read_only(ctx->handled);
}

/* The DEVICES target `path` is strictly inside, or NULL. */
static const struct jr2_target *in_devices(const struct plan_ctx *ctx,
					   const char *path)
{
	for (size_t i = 0; i < ctx->view->n_targets; i++) {
		const struct jr2_target *t = &ctx->view->targets[i];

		if (t->kind == JR2_KIND_DEVICES &&
		    strictly_within(path, t->path))
			return t;
	}
	return NULL;
}

/* What a place may have, were nothing restricted below it. */
static uint64_t region_rights_as(const struct plan_ctx *ctx, const char *path,
				 bool is_dir)
{
	const struct jr2_target *devices = in_devices(ctx, path);
	uint64_t rights = in_read_only(ctx, path)
			      ? jr2_rights_read_only(ctx->handled)
			      : jr2_rights_full(ctx->handled);

	if (devices) {
		/* The first name below the folder decides. */
		const char *rest = path + strlen(devices->path) +
				   (strcmp(devices->path, "/") ? 1 : 0);
		size_t len = strcspn(rest, "/");
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)len, rest);
		rights &= jr2_rights_device(ctx->handled, name,
					    is_dir || rest[len] == '/');
	}
	return rights;
}

static uint64_t region_rights(const struct plan_ctx *ctx, const char *path)
{
	return region_rights_as(ctx, path, true);
}

/* What the ancestors of `path` grant (path itself excluded). */
static uint64_t inherited(const struct plan_ctx *ctx, const char *path)
{
	uint64_t rights = 0;

	for (size_t i = 0; i < ctx->ancestors.n; i++)
		if (strictly_within(path, ctx->ancestors.v[i]))
			rights |= ctx->granted[i];
	return rights;
}

static const struct jr2_target *find_target(const struct plan_ctx *ctx,
					    const char *path)
{
	for (size_t i = 0; i < ctx->view->n_targets; i++)
		if (!strcmp(ctx->view->targets[i].path, path))
			return &ctx->view->targets[i];
	return NULL;
}

static const struct jr2_fsdir *find_dir(const struct plan_ctx *ctx,
					const char *path)
{
	for (size_t i = 0; i < ctx->view->n_dirs; i++)
		if (!strcmp(ctx->view->dirs[i].path, path))
			return &ctx->view->dirs[i];
	return NULL;
}

/* "/run/jr2" or "/proc, /sys, /dev and 2 more": the restricted paths
   below dir. */
static void describe_below(const struct plan_ctx *ctx, const char *dir,
			   char *buf, size_t size)
{
	size_t len = 0, named = 0, more = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ctx->view->n_targets; i++) {
		const char *path = ctx->view->targets[i].path;

		if (!strictly_within(path, dir))
			continue;
		if (named < 4 && len + strlen(path) + 3 < size) {
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						named ? ", " : "", path);
			named++;
		} else {
			more++;
		}
	}
	if (more)
		snprintf(buf + len, size - len, " and %zu more", more);
	if (!named)
		snprintf(buf, size, "?");
}

static void plan_ancestor(struct plan_ctx *ctx, size_t i,
			  struct jr2_ruleset_plan *plan)
{
	const char *path = ctx->ancestors.v[i];
	const struct jr2_fsdir *dir = find_dir(ctx, path);
	const struct jr2_target *self = find_target(ctx, path);
	uint64_t access = region_rights(ctx, path);
	char below[600], why[700];

	for (size_t t = 0; t < ctx->view->n_targets; t++)
		if (strictly_within(ctx->view->targets[t].path, path))
			access &= kind_rights(ctx, ctx->view->targets[t].kind);
	if (self) /* a DEVICES folder: list, and its allow-list below */
		access &= kind_rights(ctx, self->kind);
	describe_below(ctx, path, below, sizeof(below));
	if (self)
		snprintf(why, sizeof(why), "%s (%s): only its allow-list opens",
			 kind_name(self->kind), self->origin);
	else
		snprintf(why, sizeof(why), "ancestor of %s", below);
	jr2_strv_add(&plan->frozen, path);
	jr2_strv_add(&plan->frozen_why, why);
	ctx->granted[i] = access & ~inherited(ctx, path);
	if (!ctx->granted[i])
		return;
	add_rule(plan, path, ctx->granted[i], true, dir ? dir->dev : 0,
		 dir ? dir->ino : 0, why);
}

/* A sibling that is a restricted path's inode (a bind mount mountinfo did
   not show, or a rename since): its rule would land on the restricted inode. */
static int same_inode_as_target(const struct plan_ctx *ctx, const char *child,
				const struct jr2_fsentry *entry,
				struct jr2_err *err)
{
	for (size_t t = 0; t < ctx->view->n_targets; t++) {
		const struct jr2_target *target = &ctx->view->targets[t];

		if (!entry->ino || target->dev != entry->dev ||
		    target->ino != entry->ino)
			continue;
		return jr2_fail(err, EEXIST, false,
				"'%s' is %s '%s' mounted again, unseen in "
				"/proc/self/mountinfo: unmount it or "
				"restrict it too",
				child, kind_name(target->kind), target->path);
	}
	return 0;
}

static int plan_siblings(struct plan_ctx *ctx, size_t i,
			 struct jr2_ruleset_plan *plan, struct jr2_err *err)
{
	const char *path = ctx->ancestors.v[i];
	const struct jr2_fsdir *dir = find_dir(ctx, path);
	const struct jr2_target *self = find_target(ctx, path);
	uint64_t above = inherited(ctx, path) | ctx->granted[i];
	char below[600], why[700];
	size_t unlisted = 0;

	if (!dir)
		return jr2_fail(err, EINVAL, false,
				"compiler: no listing of ancestor '%s': this "
				"is a bug in jr2, please report it",
				path);
	describe_below(ctx, path, below, sizeof(below));
	for (size_t e = 0; e < dir->n_entries; e++) {
		const struct jr2_fsentry *entry = &dir->entries[e];
		char *child = join(path, entry->name);
		uint64_t access =
		    region_rights_as(ctx, child, entry->type == JR2_FT_DIR);

		if (paths_has(&ctx->ancestors, child) ||
		    find_target(ctx, child) || entry->type == JR2_FT_SYMLINK) {
			/* A symlink gets no rule: its target's rules apply. */
			free(child);
			continue;
		}
		if (entry->type != JR2_FT_DIR) {
			access = jr2_rights_file_only(access);
			if (entry->nlink > 1) {
				/* Rules bind to inodes: a rule here would
				   also open its other names. */
				jr2_strv_addf(&plan->notes,
					      "'%s' has %llu hard links: it "
					      "gets no rule, since a link may "
					      "lie in a protected dir",
					      child,
					      (unsigned long long)entry->nlink);
				free(child);
				continue;
			}
		}
		if (same_inode_as_target(ctx, child, entry, err)) {
			free(child);
			return -1;
		}
		if (self && self->kind == JR2_KIND_DEVICES && access &&
		    entry->type != JR2_FT_DIR &&
		    !jr2_device_is_expected(entry->name, entry->rdev)) {
			jr2_strv_addf(&plan->notes,
				      "'%s' is not the device its name says: "
				      "it gets no rule (remove it, or make it "
				      "with mknod's usual numbers)",
				      child);
			access = 0;
		}
		if (self && self->kind == JR2_KIND_DEVICES && !access)
			unlisted++;
		access &= ~above;
		if (access) {
			if (self && self->kind == JR2_KIND_DEVICES)
				snprintf(why, sizeof(why), "in %s (%s)", path,
					 JR2_ORIGIN_DEVICES);
			else
				snprintf(why, sizeof(why), "beside %s (%s)",
					 below,
					 access & JR2_ACCESS_FS_WRITE_FILE
					     ? "full"
					     : "read-only tree");
			add_rule(plan, child, access, entry->type == JR2_FT_DIR,
				 entry->dev, entry->ino, why);
		}
		free(child);
	}
	if (unlisted)
		jr2_strv_addf(&plan->notes,
			      "%s: %zu entries off the allow-list get no "
			      "rule: they cannot be opened (listing works)",
			      path, unlisted);
	return 0;
}

static void plan_leaf(struct plan_ctx *ctx, const struct jr2_target *t,
		      struct jr2_ruleset_plan *plan)
{
	uint64_t access = kind_rights(ctx, t->kind);
	char why[600];

	if (t->kind == JR2_KIND_PROTECT) {
		jr2_strv_addf(&plan->notes,
			      "protected: '%s' (%s): no rule of its own, so "
			      "only what its ancestors grant (%s)",
			      t->path, t->origin,
			      ctx->handled & JR2_ACCESS_FS_RESOLVE_UNIX
				  ? "list, connect to unix sockets"
				  : "list");
		return;
	}
	if (t->type != JR2_FT_DIR)
		access = jr2_rights_file_only(access);
	access &= ~inherited(ctx, t->path);
	if (!access)
		return;
	snprintf(why, sizeof(why), "read-only tree (%s)", t->origin);
	add_rule(plan, t->path, access, t->type == JR2_FT_DIR, t->dev, t->ino,
		 why);
}

/* /proc and /sys are read-only trees that are also frozen folders. */
static void kernel_trees_frozen(const struct jr2_fsview *view,
				struct jr2_ruleset_plan *plan)
{
	for (size_t t = 0; t < view->n_targets; t++) {
		const struct jr2_target *target = &view->targets[t];

		if (target->kind != JR2_KIND_READ_ONLY ||
		    strcmp(target->origin, JR2_ORIGIN_KERNEL) ||
		    paths_has(&plan->frozen, target->path))
			continue;
		jr2_strv_add(&plan->frozen, target->path);
		jr2_strv_addf(&plan->frozen_why,
			      "read-only tree (%s): no sysctl or other kernel "
			      "setting can be written",
			      JR2_ORIGIN_KERNEL);
	}
}

static void copy_targets(const struct jr2_fsview *view,
			 struct jr2_ruleset_plan *plan)
{
	plan->targets =
	    jr2_xrealloc(NULL, (view->n_targets + 1) * sizeof(*plan->targets));
	for (size_t t = 0; t < view->n_targets; t++) {
		const struct jr2_target *target = &view->targets[t];

		plan->targets[t] = (struct jr2_plan_target){
		    .path = jr2_xstrdup(target->path),
		    .origin =
			jr2_xstrdup(target->origin ? target->origin : "?"),
		    .kind = target->kind,
		    .is_dir = target->type == JR2_FT_DIR,
		    .dev = target->dev,
		    .ino = target->ino,
		};
	}
	plan->n_targets = view->n_targets;
	plan->dirs =
	    jr2_xrealloc(NULL, (view->n_dirs + 1) * sizeof(*plan->dirs));
	for (size_t d = 0; d < view->n_dirs; d++)
		plan->dirs[d] = (struct jr2_plan_target){
		    .path = jr2_xstrdup(view->dirs[d].path),
		    .origin = jr2_xstrdup("a folder above"),
		    .is_dir = true,
		    .dev = view->dirs[d].dev,
		    .ino = view->dirs[d].ino,
		};
	plan->n_dirs = view->n_dirs;
}

uint64_t jr2_plan_rights_at(const struct jr2_ruleset_plan *plan,
			    const char *path, bool is_dir)
{
	uint64_t rights = 0;

	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct jr2_rule *rule = &plan->rules[i];

		if (!strcmp(rule->path, path) ||
		    (rule->is_dir && jr2_path_within(path, rule->path)))
			rights |= rule->access;
	}
	return is_dir ? rights : jr2_rights_file_only(rights);
}

int jr2_plan_build(const struct jr2_fsview *view, int abi,
		   struct jr2_ruleset_plan *plan, struct jr2_err *err)
{
	struct plan_ctx ctx = {.view = view};
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	plan->abi = abi;
	plan->handled_fs = ctx.handled = jr2_abi_fs_rights(abi);
	plan->scoped = jr2_abi_scopes(abi);
	/* TSYNC: every thread of the caller, not only the calling one. */
	plan->restrict_flags =
	    jr2_abi_restrict_flags(abi) &
	    (JR2_RESTRICT_SELF_TSYNC | JR2_RESTRICT_SELF_NO_NEW_PRIVS);

	copy_targets(view, plan);
	if (!view->n_targets) {
		/* Nothing restricted: without this rule, nothing allowed. */
		add_rule(plan, "/", jr2_rights_full(ctx.handled), true, 0, 0,
			 "nothing is restricted");
		return 0;
	}
	jr2_plan_ancestors(view->targets, view->n_targets, &ctx.ancestors);
	qsort(ctx.ancestors.v, ctx.ancestors.n, sizeof(*ctx.ancestors.v),
	      by_depth);
	ctx.granted =
	    jr2_xrealloc(NULL, (ctx.ancestors.n + 1) * sizeof(*ctx.granted));
	for (size_t i = 0; i < ctx.ancestors.n; i++)
		plan_ancestor(&ctx, i, plan);
	for (size_t i = 0; i < ctx.ancestors.n && !ret; i++)
		ret = plan_siblings(&ctx, i, plan, err);
	for (size_t t = 0; t < view->n_targets && !ret; t++)
		if (!paths_has(&ctx.ancestors, view->targets[t].path))
			plan_leaf(&ctx, &view->targets[t], plan);
	kernel_trees_frozen(view, plan);
	free(ctx.granted);
	jr2_strv_free(&ctx.ancestors);
	if (ret)
		jr2_plan_free(plan);
	return ret;
}

void jr2_fsview_free(struct jr2_fsview *view)
{
	for (size_t i = 0; i < view->n_targets; i++) {
		free(view->targets[i].path);
		free(view->targets[i].origin);
	}
	for (size_t i = 0; i < view->n_dirs; i++) {
		for (size_t e = 0; e < view->dirs[i].n_entries; e++)
			free(view->dirs[i].entries[e].name);
		free(view->dirs[i].entries);
		free(view->dirs[i].path);
	}
	free(view->targets);
	free(view->dirs);
	memset(view, 0, sizeof(*view));
}
