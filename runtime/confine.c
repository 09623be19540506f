// SPDX-License-Identifier: GPL-2.0-only
/*
 * Confine the calling process: compile, build the ruleset, set
 * no_new_privs, restrict.  All or nothing: on failure nothing is
 * restricted, and the caller must not run what it meant to confine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fswalk.h"
#include "landlock_uapi.h"
#include "policy.h"
#include "policy_internal.h"
#include "ruleset.h"

/* Test binaries change the file system between the steps (policy.h). */
#ifdef JR2_CONFINE_SEAM
#define confine_seam(plan, stage) jr2_confine_seam(plan, stage)
#else
#define confine_seam(plan, stage) ((void)(plan), (void)(stage))
#endif

/* The dir of the previous rule: rules come grouped by their parent. */
struct parent_cache {
	char *path;
	int fd;
};

/*
 * Opens `path` with O_PATH|O_NOFOLLOW relative to its parent's fd (the
 * parent itself walked from "/" without following a symlink, once per
 * group).  Returns the fd or -errno.
 */
static int open_rule_path(struct parent_cache *cache, const char *path,
			  struct stat *st)
{
	const char *slash = strrchr(path, '/');
	size_t parent_len = slash == path ? 1 : (size_t)(slash - path);
	int fd;

	if (!strcmp(path, "/"))
		return jr2_open_nofollow(path, st, NULL);
	if (!cache->path || strlen(cache->path) != parent_len ||
	    strncmp(cache->path, path, parent_len)) {
		if (cache->fd >= 0)
			close(cache->fd);
		free(cache->path);
		cache->path = strndup(path, parent_len);
		cache->fd = jr2_open_nofollow(cache->path, st, NULL);
		if (cache->fd < 0)
			return cache->fd;
	}
	if (cache->fd < 0)
		return cache->fd;
	fd = openat(cache->fd, slash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	return fd;
}

/* Opens a rule's path again, and only when it is still what was planned. */
static int add_planned_rule(int ruleset_fd, struct parent_cache *cache,
			    const struct jr2_rule *rule, struct jr2_err *err)
{
	struct stat st;
	int fd = open_rule_path(cache, rule->path, &st);
	int ret;

	if (fd < 0)
		return jr2_fail(err, -fd, false,
				"rule '%s': %s: it changed while confining; "
				"run again",
				rule->path, strerror(-fd));
	/* dev and ino 0: the compiler did not stat it; the type still counts.
	   A symlink is never a rule (O_NOFOLLOW opened the link itself). */
	if (((rule->dev || rule->ino) && ((uint64_t)st.st_dev != rule->dev ||
					  (uint64_t)st.st_ino != rule->ino)) ||
	    S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode) != rule->is_dir) {
		close(fd);
		return jr2_fail(err, ESTALE, false,
				"rule '%s': it was replaced while confining; "
				"run again",
				rule->path);
	}
	ret = jr2_ruleset_add_path(ruleset_fd, fd, rule->access);
	close(fd);
	if (ret)
		return jr2_fail(err, -ret, false,
				"landlock_add_rule '%s': %s: this is a bug in "
				"jr2 or the kernel, please report it",
				rule->path, strerror(-ret));
	return 0;
}

int jr2_confine_plan(const struct jr2_ruleset_plan *plan, uint32_t extra_flags,
		     struct jr2_err *err)
{
	uint32_t flags = plan->restrict_flags |
			 (extra_flags & jr2_abi_restrict_flags(plan->abi));
	int ruleset_fd = jr2_ruleset_create(plan->handled_fs, plan->scoped);
	int ret = 0;

	if (ruleset_fd < 0)
		return jr2_fail(err, -ruleset_fd, false,
				"landlock_create_ruleset (ABI %d): %s: check "
				"`jr2-confine check`",
				plan->abi, strerror(-ruleset_fd));
	struct parent_cache cache = {.fd = -1};

	confine_seam(plan, 0);
	for (size_t i = 0; i < plan->n_rules && !ret; i++)
		ret =
		    add_planned_rule(ruleset_fd, &cache, &plan->rules[i], err);
	if (cache.fd >= 0)
		close(cache.fd);
	free(cache.path);
	if (!ret)
		confine_seam(plan, 1);
	/* The restricted paths are still the inodes planned: a rename or an
	 * exchange since planning would move the rules onto another tree. */
	if (!ret)
		ret = jr2_plan_verify_targets(plan, err);
	if (!ret && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		ret = jr2_fail(err, errno, false,
			       "prctl(PR_SET_NO_NEW_PRIVS): %s: Landlock needs "
			       "it to restrict",
			       strerror(errno));
	if (!ret) {
		int r = jr2_ruleset_restrict(ruleset_fd, flags);

		if (r)
			ret = jr2_fail(err, -r, false,
				       "landlock_restrict_self (flags 0x%x): "
				       "%s: check `jr2-confine check`",
				       flags, strerror(-r));
	}
	close(ruleset_fd);
	return ret;
}

int jr2_abi_accepted(const struct jr2_abi *abi, struct jr2_err *err)
{
	char reason[400];

	if (jr2_abi_verdict(abi) == JR2_VERDICT_ACCEPT)
		return 0;
	return jr2_fail(err, abi->probe_errno ? abi->probe_errno : ENOTSUP,
			false, "refusing to confine: %s",
			jr2_verdict_reason(abi, reason, sizeof(reason)));
}

/* Refuses a kernel the ABI table refuses (G1-G3), else compiles at the ABI
   in force: the first half of jr2_confine_self() and jr2_confine_step(). */
static int jr2_compile_accepted(const struct jr2_policy *policy,
				const struct jr2_abi *abi,
				struct jr2_ruleset_plan *plan,
				struct jr2_err *err)
{
	if (jr2_abi_accepted(abi, err))
		return -1;
	return jr2_policy_compile(policy, abi->in_force, plan, err);
}

int jr2_confine_self(const struct jr2_policy *policy, const struct jr2_abi *abi,
		     uint32_t extra_flags, struct jr2_err *err)
{
	struct jr2_ruleset_plan plan;
	int ret;

	if (jr2_compile_accepted(policy, abi, &plan, err))
		return -1;
	ret = jr2_confine_plan(&plan, extra_flags, err);
	jr2_plan_free(&plan);
	return ret;
}
