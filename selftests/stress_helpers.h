/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The size of a load test: the tests whose point is load (many rounds, many
 * connections), not a kernel's answer, run `full` on the host, in `make
 * test` and `make stress` (JR2_STRESS unset or "full"), and `small` where
 * JR2_STRESS=small, which the vmtest guest sets (one TCG CPU: the load is the
 * host's business, the kernel's answers are the guest's).  A small size
 * still asserts everything the full one does.  Any other value fails the
 * test.
 */
#ifndef JR2_SELFTESTS_STRESS_HELPERS_H
#define JR2_SELFTESTS_STRESS_HELPERS_H

#include "common.h"

static inline int stress_size(struct __test_metadata *_metadata, int full,
			      int small)
{
	const char *size = getenv("JR2_STRESS");

	if (!size || !*size || !strcmp(size, "full"))
		return full;
	if (!strcmp(size, "small"))
		return small;
	ASSERT_TRUE(false)
	{
		TH_LOG("JR2_STRESS='%s' is not a stress size: set it to full "
		       "or small, or unset it (full)",
		       size);
	}
	return 0;
}

#endif /* JR2_SELFTESTS_STRESS_HELPERS_H */
