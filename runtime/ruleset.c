// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>

#include "landlock_uapi.h"
#include "ruleset.h"

int jr2_ruleset_create(uint64_t handled_fs, uint64_t scoped)
{
	const struct jr2_ruleset_attr attr = {
	    .handled_access_fs = handled_fs,
	    .scoped = scoped,
	};
	/* Older kernels accept the larger struct while its extra fields are 0.
	 */
	long fd = jr2_sys_create_ruleset(&attr, sizeof(attr), 0);

	return fd < 0 ? -errno : (int)fd;
}

int jr2_ruleset_add_path(int ruleset_fd, int path_fd, uint64_t access)
{
	const struct jr2_path_beneath_attr rule = {
	    .allowed_access = access,
	    .parent_fd = path_fd,
	};

	if (jr2_sys_add_rule(ruleset_fd, JR2_RULE_PATH_BENEATH, &rule, 0) < 0)
		return -errno;
	return 0;
}

int jr2_ruleset_restrict(int ruleset_fd, uint32_t flags)
{
	if (jr2_sys_restrict_self(ruleset_fd, flags) < 0)
		return -errno;
	return 0;
}
