// SPDX-License-Identifier: GPL-2.0-only
/*
 * The keyring door: the kernel's keyrings are not paths, and
 * Landlock guards neither of their two ways out of the domain.
 *  - Shared keys: root's user and session keyrings are shared with the
 *    unconfined processes of the same uid; a key an unconfined process keeps
 *    there (here: this test's session keyring, which the harness and
 *    jr2-confine inherit) reads back in a confined program.
 *  - A kernel helper: request_key(2) with callout info makes the kernel run
 *    /sbin/request-key as root, in the init namespaces and outside every
 *    domain; a confined root program plants that file (/usr/sbin is the
 *    user's) and the helper reads the protected dir for it.
 * The confinement step closes the keyring syscalls (add_key, request_key,
 * keyctl: EPERM), in the compat table too (int 0x80 on x86_64).  Through
 * `jr2-confine run` and `jr2-harness exec`; the control is the same call
 * unconfined (a request_key with callout info for a key that exists: found,
 * no helper is ever started by this test).
 *
 * Promises: R9
 */
#include <linux/keyctl.h>

#include "ways.h"

/* The key jr2-try's key-* verbs look for (runtime/tests/try_keys.c). */
#define KR_TYPE	  "user"
#define KR_DESC	  "jr2-keyrings-test"
#define KR_SECRET "keyring-secret"

WAY_FIXTURE(escapes)

/* A session keyring of this test's own, holding the unconfined key: the
   harness and jr2-confine started after it inherit it. */
static void kr_setup(struct __test_metadata *_metadata, struct way *way)
{
	long id;

	ASSERT_LE(0, syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL))
	{
		TH_LOG("keyctl(JOIN_SESSION_KEYRING): %s: the kernel needs "
		       "CONFIG_KEYS",
		       strerror(errno));
	}
	FX_SKIP_UNDER_SECCOMP("the fixture's add_key");
	id = syscall(SYS_add_key, KR_TYPE, KR_DESC, KR_SECRET,
		     strlen(KR_SECRET), KEY_SPEC_SESSION_KEYRING);
	ASSERT_LE(0, id);
	ASSERT_STREQ("ok " KR_SECRET,
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "key-read"));
}

TEST_F(escapes, R9_keyrings_shared_key_stays_out)
{
	struct way *way = &self->way;

	kr_setup(_metadata, way);
	/* Here, not in kr_setup: a refused ABI skips the test itself. */
	WAY_START(way);
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("EPERM", WAY_TRY_LINE(way, path, "key-read"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_F(escapes, R9_keyrings_no_request_key_helper)
{
	struct way *way = &self->way;

	kr_setup(_metadata, way);
	/* Here, not in kr_setup: a refused ABI skips the test itself. */
	WAY_START(way);
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_UNCONFINED, "key-upcall"));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("EPERM", WAY_TRY_LINE(way, path, "key-upcall"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_F(escapes, R9_keyrings_no_new_key)
{
	struct way *way = &self->way;
	char control[WAY_OUT_SIZE];

	kr_setup(_metadata, way);
	/* Here, not in kr_setup: a refused ABI skips the test itself. */
	WAY_START(way);
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_UNCONFINED, "key-add"));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("EPERM", WAY_TRY_LINE(way, path, "key-add"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
#if defined(__x86_64__)
	snprintf(control, sizeof(control), "%s",
		 WAY_TRY_LINE(way, WAY_UNCONFINED, "key-add-compat"));
	if (!strcmp(control, "ENOSYS"))
		SKIP(return, "the compat table: int 0x80 gives ENOSYS "
			     "unconfined (no CONFIG_IA32_EMULATION)");
	if (!strcmp(control, "SIGSEGV"))
		SKIP(return,
			   "the compat table: int 0x80 faults unconfined "
			   "(SIGSEGV: this machine's kernel or hypervisor has "
			   "no 32-bit syscall entry)");
	ASSERT_STREQ("ok", control);
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("EPERM", WAY_TRY_LINE(way, path, "key-add-compat"))
		{
			TH_LOG("%s: int 0x80", way_name[path]);
		}
	}
#else
	(void)control;
#endif
}

TEST_HARNESS_MAIN
