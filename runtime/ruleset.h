/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The thin syscall layer: create a ruleset, add a path rule, restrict the
 * calling thread.  Nothing else; each returns 0 (or an fd) or -errno.
 */
#ifndef JR2_RULESET_H
#define JR2_RULESET_H

#include <stdint.h>

int jr2_ruleset_create(uint64_t handled_fs, uint64_t scoped);
int jr2_ruleset_add_path(int ruleset_fd, int path_fd, uint64_t access);
int jr2_ruleset_restrict(int ruleset_fd, uint32_t flags);

#endif /* JR2_RULESET_H */
