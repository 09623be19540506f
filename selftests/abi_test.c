// SPDX-License-Identifier: GPL-2.0-only
/*
 * G4 at the syscall level: what the kernel's Landlock syscalls accept and
 * refuse, each answer checked against the one ABI table (runtime/abi.h), so
 * that a kernel whose VERSION answer lies about what it handles fails here.
 * No runtime is used: these tests run on every kernel with Landlock, 6.1's
 * ABI 2 included; the kernel's own ABI counts (JR2_MAX_ABI caps the runtime,
 * not the kernel).
 *
 * For each ABI N of the table: a ruleset handling exactly ABI N's fs rights,
 * and one scoping exactly ABI N's scopes, is accepted when N <= the kernel's
 * ABI and refused otherwise (EINVAL; E2BIG where the kernel's ruleset_attr
 * has no scoped field at all); ABI N's restrict_self flags likewise; each bit
 * that ABI N adds, alone.  Then the VERSION and ERRATA answers, the attr
 * size rules (0 bytes, short, NULL, oversized), add_rule's refusals,
 * restrict_self without no_new_privs nor CAP_SYS_ADMIN (EPERM), the log flags
 * (7), TSYNC (8), the no_new_privs flag (11) and the 16-domain nesting limit
 * (64 on an ABI 1 kernel older than the change).
 *
 * Promises: G4
 */
#include <linux/capability.h>
#include <pthread.h>
#include <sys/prctl.h>

#include "common.h"

/*
 * Which of landlock_restrict_self()'s checks comes first, and how deep
 * domains nest, as the kernel's Landlock changed them:
 * - 5.13 (ABI 1): the flags (an unknown flag, unprivileged: EINVAL), then
 *   no_new_privs or CAP_SYS_ADMIN; at most 64 domains;
 * - 5.19 (ABI 2), one series, backported to the stable kernels of ABI 1:
 *   the privilege first (EPERM), and at most 16 domains (an ABI 1 kernel
 *   may predate the backport: 5.15.0 does);
 * - ABI 11 (LANDLOCK_RESTRICT_SELF_NO_NEW_PRIVS): the flags first again
 *   (EINVAL), since one of them sets no_new_privs.
 */
#define MAX_DOMAINS	   16
#define MAX_DOMAINS_ABI1   64
#define RESTRICT_FLAG_NONE (1U << 31)

/* The kernel's ABI as the table knows it; skips where there is none. */
#define KERNEL_ABI(fx)                                                         \
	({                                                                     \
		char _why[128];                                                \
		if ((fx)->abi.probe_errno)                                     \
			SKIP(return, "%s",                                     \
				   fx_unavailable_reason(&(fx)->abi,           \
							 JR2_FEAT_TRUNCATE,    \
							 _why, sizeof(_why))); \
		(fx)->abi.kernel < JR2_ABI_NEWEST ? (fx)->abi.kernel           \
						  : JR2_ABI_NEWEST;            \
	})

static int create(uint64_t fs, uint64_t scoped)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs = fs,
					.scoped = scoped};
	int fd = (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int create_fd(uint64_t fs)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs = fs};

	return (int)jr2_sys_create_ruleset(&attr, sizeof(attr), 0);
}

static int restrict_with(uint32_t flags)
{
	int fd = create_fd(JR2_ACCESS_FS_MAKE_BLOCK), err = 0;

	if (fd < 0)
		return errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    jr2_sys_restrict_self(fd, flags))
		err = errno;
	close(fd);
	return err;
}

/* The errno a scope the kernel does not know gives: its ruleset_attr has
 * no scoped field before ABI 6, so the non-zero tail is too big. */
static int unknown_scope_errno(int kernel)
{
	return jr2_abi_scopes(kernel) ? EINVAL : E2BIG;
}

static uint64_t high_bit(uint64_t bits)
{
	uint64_t high = 0;

	for (uint64_t b = 1; b; b <<= 1)
		if (bits & b)
			high = b;
	return high;
}

/* ---- per ABI N of the table ---- */

FIXTURE(abi_n)
{
	struct jr2_fx fx;
};

FIXTURE_VARIANT(abi_n)
{
	int n;
};

/* clang-format off */
#define ABI_N(v) FIXTURE_VARIANT_ADD(abi_n, abi_##v) { .n = v }
ABI_N(1); ABI_N(2); ABI_N(3); ABI_N(4); ABI_N(5); ABI_N(6); ABI_N(7);
ABI_N(8); ABI_N(9); ABI_N(10); ABI_N(11);
/* clang-format on */

FIXTURE_SETUP(abi_n)
{
	fx_setup(_metadata, &self->fx);
}

FIXTURE_TEARDOWN(abi_n)
{
}

TEST_F(abi_n, G4_fs_rights_of_abi)
{
	int kernel = KERNEL_ABI(&self->fx);
	uint64_t rights = jr2_abi_fs_rights(variant->n);
	bool known = !(rights & ~jr2_abi_fs_rights(kernel));
	struct jr2_path_beneath_attr rule = {.allowed_access = rights};
	int fd;

	fd = create_fd(rights);
	if (!known) {
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EINVAL, errno)
		{
			TH_LOG("kernel ABI %d, ABI %d's rights %#llx", kernel,
			       variant->n, (unsigned long long)rights);
		}
		return;
	}
	ASSERT_LE(0, fd)
	{
		TH_LOG("kernel ABI %d refuses ABI %d's rights %#llx: %s",
		       kernel, variant->n, (unsigned long long)rights,
		       strerror(errno));
	}
	/* Every one of them can be granted on a folder. */
	rule.parent_fd = open(FX_WORK, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, rule.parent_fd);
	ASSERT_EQ(0, jr2_sys_add_rule(fd, JR2_RULE_PATH_BENEATH, &rule, 0));
	close(rule.parent_fd);
	close(fd);
}

TEST_F(abi_n, G4_scopes_of_abi)
{
	int kernel = KERNEL_ABI(&self->fx);
	uint64_t scopes = jr2_abi_scopes(variant->n);
	bool known = !(scopes & ~jr2_abi_scopes(kernel));

	ASSERT_EQ(known ? 0 : -unknown_scope_errno(kernel),
		  create(JR2_ACCESS_FS_MAKE_BLOCK, scopes))
	{
		TH_LOG("kernel ABI %d, ABI %d's scopes %#llx", kernel,
		       variant->n, (unsigned long long)scopes);
	}
	/* A ruleset of scopes alone (ABI 6): nothing else handled. */
	if (scopes)
		ASSERT_EQ(known ? 0 : -unknown_scope_errno(kernel),
			  create(0, scopes));
}

TEST_F(abi_n, G4_restrict_flags_of_abi)
{
	int kernel = KERNEL_ABI(&self->fx);
	uint32_t flags = jr2_abi_restrict_flags(variant->n);
	bool known = !(flags & ~jr2_abi_restrict_flags(kernel));

	ASSERT_EQ(known ? 0 : EINVAL, restrict_with(flags))
	{
		TH_LOG("kernel ABI %d, ABI %d's restrict flags %#x", kernel,
		       variant->n, flags);
	}
}

TEST_F(abi_n, G4_each_bit_the_abi_adds)
{
	int kernel = KERNEL_ABI(&self->fx), n = variant->n, checked = 0;
	uint64_t fs = jr2_abi_fs_rights(n) & ~jr2_abi_fs_rights(n - 1);
	uint64_t scopes = jr2_abi_scopes(n) & ~jr2_abi_scopes(n - 1);
	uint32_t flags =
	    jr2_abi_restrict_flags(n) & ~jr2_abi_restrict_flags(n - 1);
	bool known = n <= kernel;

	for (uint64_t b = 1; b; b <<= 1) {
		if (fs & b) {
			ASSERT_EQ(known ? 0 : -EINVAL, create(b, 0))
			{
				TH_LOG("fs bit %#llx of ABI %d, kernel %d",
				       (unsigned long long)b, n, kernel);
			}
			checked++;
		}
		if (scopes & b) {
			ASSERT_EQ(known ? 0 : -unknown_scope_errno(kernel),
				  create(0, b));
			checked++;
		}
		if (flags & b) {
			ASSERT_EQ(known ? 0 : EINVAL,
				  restrict_with((uint32_t)b))
			{
				TH_LOG("restrict flag %#llx of ABI %d, kernel "
				       "%d",
				       (unsigned long long)b, n, kernel);
			}
			checked++;
		}
	}
	if (!checked)
		SKIP(return,
			   "ABI %d adds network rights only, which the ABI "
			   "table does not list",
			   n);
}

/* ---- the kernel's answers, one by one ---- */

JR2_FIXTURE(abi)

TEST_F(abi, G4_version_answer_matches_what_it_handles)
{
	long version =
	    jr2_sys_create_ruleset(NULL, 0, JR2_CREATE_RULESET_VERSION);
	int kernel = KERNEL_ABI(&self->fx);
	int above;

	ASSERT_LE(1, version);
	ASSERT_EQ(self->fx.abi.kernel, version);
	/* What the answer claims is accepted... */
	ASSERT_EQ(0, create(jr2_abi_fs_rights(kernel), 0));
	ASSERT_EQ(0, create(JR2_ACCESS_FS_MAKE_BLOCK, jr2_abi_scopes(kernel)));
	/* ...and the first ABI above it that adds a bit of the table is
	 * refused. */
	for (above = kernel + 1; above <= JR2_ABI_NEWEST; above++)
		if (jr2_abi_fs_rights(above) != jr2_abi_fs_rights(kernel) ||
		    jr2_abi_scopes(above) != jr2_abi_scopes(kernel) ||
		    jr2_abi_restrict_flags(above) !=
			jr2_abi_restrict_flags(kernel))
			break;
	if (above <= JR2_ABI_NEWEST) {
		if (jr2_abi_fs_rights(above) != jr2_abi_fs_rights(kernel))
			ASSERT_EQ(-EINVAL, create(jr2_abi_fs_rights(above), 0));
		if (jr2_abi_scopes(above) != jr2_abi_scopes(kernel))
			ASSERT_EQ(-unknown_scope_errno(kernel),
				  create(JR2_ACCESS_FS_MAKE_BLOCK,
					 jr2_abi_scopes(above)));
		if (jr2_abi_restrict_flags(above) !=
		    jr2_abi_restrict_flags(kernel))
			ASSERT_EQ(EINVAL,
				  restrict_with(jr2_abi_restrict_flags(above)));
	}
	/* Last, as it makes a domain: the flags it claims are accepted. */
	ASSERT_EQ(0, restrict_with(jr2_abi_restrict_flags(kernel)));
}

TEST_F(abi, G4_version_query_takes_no_attr)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_EXECUTE};

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(-1,
		  jr2_sys_create_ruleset(&attr, 0, JR2_CREATE_RULESET_VERSION));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, jr2_sys_create_ruleset(NULL, sizeof(attr),
					     JR2_CREATE_RULESET_VERSION));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_LE(1,
		  jr2_sys_create_ruleset(NULL, 0, JR2_CREATE_RULESET_VERSION));
}

TEST_F(abi, G4_errata_answer)
{
	long errata, control;

	KERNEL_ABI(&self->fx);
	errata = jr2_sys_create_ruleset(NULL, 0, JR2_CREATE_RULESET_ERRATA);
	errata = errata < 0 ? -errno : errata;
	control = jr2_sys_create_ruleset(NULL, 0, 1U << 31);
	control = control < 0 ? -errno : control;
	if (self->fx.abi.errata_known) {
		ASSERT_EQ(-EINVAL, control);
		ASSERT_EQ((long)self->fx.abi.errata, errata);
		/* One query at a time. */
		ASSERT_EQ(
		    -1, jr2_sys_create_ruleset(NULL, 0,
					       JR2_CREATE_RULESET_VERSION |
						   JR2_CREATE_RULESET_ERRATA));
		ASSERT_EQ(EINVAL, errno);
	} else if (control == -EINVAL) {
		/* A kernel without the query refuses it as any unknown flag. */
		ASSERT_EQ(-EINVAL, errata);
	} else {
		/* A kernel that answers every flag: the probe says so. */
		ASSERT_EQ(control, errata);
		TH_LOG("this kernel answers an undefined flag with %ld: "
		       "errata unknown",
		       control);
	}
}

TEST_F(abi, G4_unknown_create_flag_with_attr)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_EXECUTE};

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(-1, jr2_sys_create_ruleset(&attr, sizeof(attr), 1U << 31));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, create(JR2_ACCESS_FS_EXECUTE, 0));
}

TEST_F(abi, G4_zero_byte_attr)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_EXECUTE};

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(-1, jr2_sys_create_ruleset(&attr, 0, 0));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(abi, G4_short_attr)
{
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_EXECUTE};
	int fd;

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(-1, jr2_sys_create_ruleset(&attr, sizeof(uint64_t) - 1, 0));
	ASSERT_EQ(EINVAL, errno);
	/* ABI 1's attr: the fs rights alone. */
	fd = (int)jr2_sys_create_ruleset(&attr, sizeof(uint64_t), 0);
	ASSERT_LE(0, fd);
	close(fd);
}

TEST_F(abi, G4_null_attr_with_size)
{
	KERNEL_ABI(&self->fx);
	ASSERT_EQ(-1, jr2_sys_create_ruleset(
			  NULL, sizeof(struct jr2_ruleset_attr), 0));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(abi, G4_oversized_attr)
{
	static char page[8192] __attribute__((aligned(8)));
	struct jr2_ruleset_attr attr = {.handled_access_fs =
					    JR2_ACCESS_FS_EXECUTE};
	long page_size = sysconf(_SC_PAGESIZE);
	int fd;

	KERNEL_ABI(&self->fx);
	memcpy(page, &attr, sizeof(attr));
	/* A zero tail up to a page is accepted... */
	fd = (int)jr2_sys_create_ruleset((void *)page, page_size, 0);
	ASSERT_LE(0, fd);
	close(fd);
	/* ...a non-zero byte in it is not, nor more than a page. */
	page[page_size - 1] = 1;
	ASSERT_EQ(-1, jr2_sys_create_ruleset((void *)page, page_size, 0));
	ASSERT_EQ(E2BIG, errno);
	page[page_size - 1] = 0;
	ASSERT_EQ(-1, jr2_sys_create_ruleset((void *)page, page_size + 1, 0));
	ASSERT_EQ(E2BIG, errno);
}

TEST_F(abi, G4_ruleset_handling_nothing)
{
	KERNEL_ABI(&self->fx);
	ASSERT_EQ(-ENOMSG, create(0, 0));
}

TEST_F(abi, G4_next_fs_bit_above_kernel)
{
	int kernel = KERNEL_ABI(&self->fx);
	uint64_t next = high_bit(jr2_abi_fs_rights(kernel)) << 1;

	ASSERT_EQ(0, create(jr2_abi_fs_rights(kernel), 0));
	ASSERT_EQ(-EINVAL, create(next, 0));
	ASSERT_EQ(-EINVAL, create(jr2_abi_fs_rights(kernel) | next, 0));
	ASSERT_EQ(-EINVAL, create(1ULL << 63, 0));
}

TEST_F(abi, G4_next_scope_bit_above_kernel)
{
	int kernel = KERNEL_ABI(&self->fx);
	uint64_t scopes = jr2_abi_scopes(kernel);
	uint64_t next = scopes ? high_bit(scopes) << 1 : 1;

	ASSERT_EQ(0, create(JR2_ACCESS_FS_MAKE_BLOCK, scopes));
	ASSERT_EQ(-unknown_scope_errno(kernel),
		  create(JR2_ACCESS_FS_MAKE_BLOCK, next));
}

TEST_F(abi, G4_next_restrict_flag_above_kernel)
{
	int kernel = KERNEL_ABI(&self->fx);
	uint32_t flags = jr2_abi_restrict_flags(kernel);
	uint32_t next = flags ? (uint32_t)high_bit(flags) << 1 : 1;

	ASSERT_EQ(EINVAL, restrict_with(next));
	ASSERT_EQ(EINVAL, restrict_with(1U << 31));
	/* Nothing was restricted by the refusals. */
	ASSERT_EQ(0, restrict_with(flags));
}

/* ---- add_rule ---- */

static int add_rule(int ruleset, uint64_t access, const char *path,
		    uint32_t type, uint32_t flags)
{
	struct jr2_path_beneath_attr rule = {.allowed_access = access};
	int err = 0;

	rule.parent_fd = path ? open(path, O_PATH | O_CLOEXEC) : -1;
	if (path && rule.parent_fd < 0)
		return errno;
	if (jr2_sys_add_rule(ruleset, (int)type, &rule, flags))
		err = errno;
	if (rule.parent_fd >= 0)
		close(rule.parent_fd);
	return err;
}

#define RULESET(fs)                      \
	({                               \
		int _fd = create_fd(fs); \
		ASSERT_LE(0, _fd);       \
		_fd;                     \
	})

TEST_F(abi, G4_add_rule_unhandled_right)
{
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(EINVAL, add_rule(fd, JR2_ACCESS_FS_WRITE_FILE, FX_WORK,
				   JR2_RULE_PATH_BENEATH, 0));
	ASSERT_EQ(EINVAL,
		  add_rule(fd,
			   JR2_ACCESS_FS_READ_FILE | JR2_ACCESS_FS_WRITE_FILE,
			   FX_WORK, JR2_RULE_PATH_BENEATH, 0));
	ASSERT_EQ(0, add_rule(fd, JR2_ACCESS_FS_READ_FILE, FX_WORK,
			      JR2_RULE_PATH_BENEATH, 0));
	close(fd);
}

TEST_F(abi, G4_add_rule_right_above_kernel)
{
	int kernel = KERNEL_ABI(&self->fx), fd;
	uint64_t rights = jr2_abi_fs_rights(kernel);

	fd = RULESET(rights);
	ASSERT_EQ(EINVAL, add_rule(fd, high_bit(rights) << 1, FX_WORK,
				   JR2_RULE_PATH_BENEATH, 0));
	ASSERT_EQ(0, add_rule(fd, rights, FX_WORK, JR2_RULE_PATH_BENEATH, 0));
	close(fd);
}

TEST_F(abi, G4_add_rule_no_access)
{
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(ENOMSG, add_rule(fd, 0, FX_WORK, JR2_RULE_PATH_BENEATH, 0));
	close(fd);
}

TEST_F(abi, G4_add_rule_flags)
{
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(EINVAL, add_rule(fd, JR2_ACCESS_FS_READ_FILE, FX_WORK,
				   JR2_RULE_PATH_BENEATH, 1));
	close(fd);
}

TEST_F(abi, G4_add_rule_unknown_type)
{
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(EINVAL, add_rule(fd, JR2_ACCESS_FS_READ_FILE, FX_WORK, 0, 0));
	ASSERT_EQ(EINVAL,
		  add_rule(fd, JR2_ACCESS_FS_READ_FILE, FX_WORK, 99, 0));
	close(fd);
}

TEST_F(abi, G4_add_rule_dir_right_on_file)
{
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE | JR2_ACCESS_FS_READ_DIR);
	ASSERT_EQ(EINVAL, add_rule(fd, JR2_ACCESS_FS_READ_DIR, FX_FILE,
				   JR2_RULE_PATH_BENEATH, 0));
	ASSERT_EQ(0, add_rule(fd, JR2_ACCESS_FS_READ_FILE, FX_FILE,
			      JR2_RULE_PATH_BENEATH, 0));
	close(fd);
}

TEST_F(abi, G4_add_rule_bad_descriptors)
{
	int fd, pipefd[2];

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(EBADF, add_rule(fd, JR2_ACCESS_FS_READ_FILE, NULL,
				  JR2_RULE_PATH_BENEATH, 0));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	/* Not a ruleset. */
	ASSERT_EQ(EBADFD, add_rule(pipefd[0], JR2_ACCESS_FS_READ_FILE, FX_WORK,
				   JR2_RULE_PATH_BENEATH, 0));
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
}

TEST_F(abi, G4_ruleset_fd_io_and_cloexec)
{
	char byte;
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(-1, read(fd, &byte, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, write(fd, ".", 1));
	ASSERT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(abi, G4_null_attr_zero_size_is_checked_first)
{
	KERNEL_ABI(&self->fx);
	/* The pointer is checked before the size. */
	ASSERT_EQ(-1, jr2_sys_create_ruleset(NULL, 0, 0));
	ASSERT_EQ(EFAULT, errno);
}

/* A ruleset passed by SCM_RIGHTS serves the process that receives it. */
TEST_F(abi, G4_ruleset_fd_transfer)
{
	int sv[2], fd, status;
	pid_t child;

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int got = fx_recv_fd(sv[1]);

		if (got < 0)
			_exit(1);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    jr2_sys_restrict_self(got, 0))
			_exit(3);
		_exit(test_read(FX_FILE) == EACCES ? 0 : 4);
	}
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, fx_send_fd(sv[0], fd));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* The sender is not restricted by the child's use of it. */
	ASSERT_EQ(0, test_read(FX_FILE));
	close(fd);
}

/* A rule added after restrict_self does not widen the domain made. */
TEST_F(abi, G4_add_rule_after_restrict_does_not_widen)
{
	int fd;

	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ASSERT_EQ(0, jr2_sys_restrict_self(fd, 0));
	ASSERT_EQ(EACCES, test_read(FX_FILE));
	ASSERT_EQ(0, add_rule(fd, JR2_ACCESS_FS_READ_FILE, FX_WORK,
			      JR2_RULE_PATH_BENEATH, 0));
	ASSERT_EQ(EACCES, test_read(FX_FILE));
	close(fd);
}

/* ---- restrict_self ---- */

static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct head = {
	    .version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &head, data))
		return errno;
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &head, data) ? errno : 0;
}

TEST_F(abi, G4_restrict_without_nnp_nor_cap_sys_admin)
{
	int fd;

	KERNEL_ABI(&self->fx);
	FX_SKIP_WITH_NO_NEW_PRIVS("restrict_self without no_new_privs");
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	ASSERT_EQ(0, drop_cap_sys_admin());
	ASSERT_EQ(-1, jr2_sys_restrict_self(fd, 0));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(0, test_read(FX_FILE));
	/* Positive control: with no_new_privs it is allowed. */
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ASSERT_EQ(0, jr2_sys_restrict_self(fd, 0));
	ASSERT_EQ(EACCES, test_read(FX_FILE));
	close(fd);
}

TEST_F(abi, G4_restrict_with_cap_sys_admin_without_nnp)
{
	int fd;

	FX_SKIP_WITH_NO_NEW_PRIVS("restrict_self without no_new_privs");
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN,
			    "restrict_self without no_new_privs");
	KERNEL_ABI(&self->fx);
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	ASSERT_EQ(0, jr2_sys_restrict_self(fd, 0));
	ASSERT_EQ(EACCES, test_read(FX_FILE));
	close(fd);
}

/*
 * The errno of an unprivileged landlock_restrict_self() with a flag no ABI
 * knows, in a child without no_new_privs nor CAP_SYS_ADMIN: what the ABI
 * says (above), either on ABI 1.
 */
static int unknown_flag_errno(struct __test_metadata *_metadata, int kernel)
{
	int status;
	pid_t child;

	FX_SKIP_WITH_NO_NEW_PRIVS("an unprivileged restrict_self's errno");
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0 ||
		    drop_cap_sys_admin())
			_exit(255);
		if (jr2_sys_restrict_self(-1, RESTRICT_FLAG_NONE) != -1)
			_exit(254);
		_exit(errno);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	status = WEXITSTATUS(status);
	if (kernel >= 11) {
		ASSERT_EQ(EINVAL, status);
	} else if (kernel >= 2) {
		ASSERT_EQ(EPERM, status);
	}
	ASSERT_TRUE(status == EPERM || status == EINVAL)
	{
		TH_LOG("ABI %d: an unknown flag, unprivileged: %d (%s)", kernel,
		       status, strerror(status));
	}
	return status;
}

TEST_F(abi, G4_restrict_no_new_privs_flag)
{
	int kernel = KERNEL_ABI(&self->fx), fd;
	bool has =
	    jr2_abi_restrict_flags(kernel) & JR2_RESTRICT_SELF_NO_NEW_PRIVS;
	/* Without the flag, it is an unknown flag like any other. */
	int unknown = unknown_flag_errno(_metadata, kernel);

	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, drop_cap_sys_admin());
	ASSERT_EQ(has ? 0 : -1,
		  jr2_sys_restrict_self(fd, JR2_RESTRICT_SELF_NO_NEW_PRIVS));
	if (has) {
		/* The flag set no_new_privs itself. */
		ASSERT_EQ(1, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
		ASSERT_EQ(EACCES, test_read(FX_FILE));
	} else {
		ASSERT_EQ(unknown, errno);
		ASSERT_EQ(0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
		ASSERT_EQ(0, test_read(FX_FILE));
	}
	close(fd);
}

TEST_F(abi, G4_restrict_bad_descriptors)
{
	int pipefd[2];

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ASSERT_EQ(-1, jr2_sys_restrict_self(-1, 0));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	ASSERT_EQ(-1, jr2_sys_restrict_self(pipefd[0], 0));
	ASSERT_EQ(EBADFD, errno);
	ASSERT_EQ(0, test_read(FX_FILE));
}

TEST_F(abi, G4_log_subdomains_off_without_ruleset)
{
	int kernel = KERNEL_ABI(&self->fx);
	bool has =
	    jr2_abi_log_flags(kernel) & JR2_RESTRICT_SELF_LOG_SUBDOMAINS_OFF;

	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	/* ABI 7: this one flag needs no ruleset; the others do. */
	ASSERT_EQ(has ? 0 : -1, jr2_sys_restrict_self(
				    -1, JR2_RESTRICT_SELF_LOG_SUBDOMAINS_OFF));
	if (!has)
		ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(
	    -1, jr2_sys_restrict_self(-1, JR2_RESTRICT_SELF_LOG_SAME_EXEC_OFF));
	ASSERT_EQ(has ? EBADF : EINVAL, errno);
	ASSERT_EQ(0, test_read(FX_FILE));
}

struct tsync_probe {
	int go[2], done[2];
	int err;
};

static void *tsync_thread(void *p)
{
	struct tsync_probe *probe = p;
	char token;

	if (read(probe->go[0], &token, 1) != 1)
		return NULL;
	probe->err = test_read(FX_FILE);
	if (write(probe->done[1], "d", 1) != 1)
		probe->err = -1;
	return NULL;
}

TEST_F(abi, G4_tsync_restricts_every_thread)
{
	int kernel = KERNEL_ABI(&self->fx), fd;
	bool has = jr2_abi_restrict_flags(kernel) & JR2_RESTRICT_SELF_TSYNC;
	struct tsync_probe probe = {0};
	pthread_t thread;
	char token;

	ASSERT_EQ(0, pipe2(probe.go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(probe.done, O_CLOEXEC));
	ASSERT_EQ(0, pthread_create(&thread, NULL, tsync_thread, &probe));
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ASSERT_EQ(has ? 0 : -1,
		  jr2_sys_restrict_self(fd, JR2_RESTRICT_SELF_TSYNC));
	if (!has)
		ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(1, write(probe.go[1], "g", 1));
	ASSERT_EQ(1, read(probe.done[0], &token, 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	/* The other thread is in the domain only with TSYNC. */
	ASSERT_EQ(has ? EACCES : 0, probe.err);
	ASSERT_EQ(has ? EACCES : 0, test_read(FX_FILE));
	close(fd);
}

TEST_F(abi, G4_restrict_without_tsync_leaves_other_threads)
{
	struct tsync_probe probe = {0};
	pthread_t thread;
	char token;
	int fd;

	KERNEL_ABI(&self->fx);
	ASSERT_EQ(0, pipe2(probe.go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(probe.done, O_CLOEXEC));
	ASSERT_EQ(0, pthread_create(&thread, NULL, tsync_thread, &probe));
	fd = RULESET(JR2_ACCESS_FS_READ_FILE);
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ASSERT_EQ(0, jr2_sys_restrict_self(fd, 0));
	ASSERT_EQ(1, write(probe.go[1], "g", 1));
	ASSERT_EQ(1, read(probe.done[0], &token, 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, probe.err);
	ASSERT_EQ(EACCES, test_read(FX_FILE));
	close(fd);
}

TEST_F(abi, G4_nesting_beyond_16_domains)
{
	int kernel = KERNEL_ABI(&self->fx), fd;
	/* 64: an ABI 1 kernel that checks the flags first (above). */
	int max = kernel == 1 && unknown_flag_errno(_metadata, kernel) == EINVAL
		      ? MAX_DOMAINS_ABI1
		      : MAX_DOMAINS;

	TH_LOG("ABI %d: at most %d domains", kernel, max);
	fd = RULESET(JR2_ACCESS_FS_MAKE_BLOCK);
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	for (int i = 0; i < max; i++) {
		ASSERT_EQ(0, jr2_sys_restrict_self(fd, 0))
		{
			TH_LOG("domain %d of %d: %s", i + 1, max,
			       strerror(errno));
		}
	}
	ASSERT_EQ(-1, jr2_sys_restrict_self(fd, 0));
	ASSERT_EQ(E2BIG, errno);
	close(fd);
}

TEST_HARNESS_MAIN
