/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Landlock UAPI up to ABI 11 (Linux 7.3), defined here because the build
 * machine's <linux/landlock.h> is 6.1's (ABI 2).  Values are those of the
 * kernel's include/uapi/linux/landlock.h; the raw syscall numbers are x86_64's.
 */
#ifndef JR2_LANDLOCK_UAPI_H
#define JR2_LANDLOCK_UAPI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule	     445
#define __NR_landlock_restrict_self  446
#endif

/*
 * The first three fields only: ABI 10 appended the quiet_* fields, and a
 * kernel older than that refuses a larger struct (E2BIG).  jr2 sets no quiet
 * rule, so this size serves every ABI.
 */
struct jr2_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct jr2_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* clang-format off */
#define JR2_CREATE_RULESET_VERSION		(1U << 0)
#define JR2_CREATE_RULESET_ERRATA		(1U << 1)

#define JR2_RULE_PATH_BENEATH			1

#define JR2_RESTRICT_SELF_LOG_SAME_EXEC_OFF	(1U << 0) /* ABI 7 */
#define JR2_RESTRICT_SELF_LOG_NEW_EXEC_ON	(1U << 1) /* ABI 7 */
#define JR2_RESTRICT_SELF_LOG_SUBDOMAINS_OFF	(1U << 2) /* ABI 7 */
#define JR2_RESTRICT_SELF_TSYNC			(1U << 3) /* ABI 8 */
#define JR2_RESTRICT_SELF_NO_NEW_PRIVS		(1U << 4) /* ABI 11 */

#define JR2_ACCESS_FS_EXECUTE			(1ULL << 0)
#define JR2_ACCESS_FS_WRITE_FILE		(1ULL << 1)
#define JR2_ACCESS_FS_READ_FILE			(1ULL << 2)
#define JR2_ACCESS_FS_READ_DIR			(1ULL << 3)
#define JR2_ACCESS_FS_REMOVE_DIR		(1ULL << 4)
#define JR2_ACCESS_FS_REMOVE_FILE		(1ULL << 5)
#define JR2_ACCESS_FS_MAKE_CHAR			(1ULL << 6)
#define JR2_ACCESS_FS_MAKE_DIR			(1ULL << 7)
#define JR2_ACCESS_FS_MAKE_REG			(1ULL << 8)
#define JR2_ACCESS_FS_MAKE_SOCK			(1ULL << 9)
#define JR2_ACCESS_FS_MAKE_FIFO			(1ULL << 10)
#define JR2_ACCESS_FS_MAKE_BLOCK		(1ULL << 11)
#define JR2_ACCESS_FS_MAKE_SYM			(1ULL << 12)
#define JR2_ACCESS_FS_REFER			(1ULL << 13) /* ABI 2 */
#define JR2_ACCESS_FS_TRUNCATE			(1ULL << 14) /* ABI 3 */
#define JR2_ACCESS_FS_IOCTL_DEV			(1ULL << 15) /* ABI 5 */
#define JR2_ACCESS_FS_RESOLVE_UNIX		(1ULL << 16) /* ABI 9 */

#define JR2_ACCESS_NET_BIND_TCP			(1ULL << 0) /* ABI 4 */
#define JR2_ACCESS_NET_CONNECT_TCP		(1ULL << 1) /* ABI 4 */
#define JR2_ACCESS_NET_BIND_UDP			(1ULL << 2) /* ABI 10 */
#define JR2_ACCESS_NET_CONNECT_SEND_UDP		(1ULL << 3) /* ABI 10 */

#define JR2_SCOPE_ABSTRACT_UNIX_SOCKET		(1ULL << 0) /* ABI 6 */
#define JR2_SCOPE_SIGNAL			(1ULL << 1) /* ABI 6 */
/* clang-format on */

static inline long jr2_sys_create_ruleset(const struct jr2_ruleset_attr *attr,
					  size_t size, uint32_t flags)
{
	return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline long jr2_sys_add_rule(int ruleset_fd, int rule_type,
				    const void *rule_attr, uint32_t flags)
{
	return syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, rule_attr,
		       flags);
}

static inline long jr2_sys_restrict_self(int ruleset_fd, uint32_t flags)
{
	return syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

#endif /* JR2_LANDLOCK_UAPI_H */
