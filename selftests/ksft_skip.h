/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kselftest_harness.h with skips named: the 6.1 harness prints a skip as
 * "ok N # SKIP why", without the test's name; results/formats/README.md
 * (and every TAP reader) needs "ok N group.test # SKIP why".  Its one
 * caller, __run_test(), has the fixture `f`, `variant` and test `t` in
 * scope.  The suite (common.h) and the runtime's tests (helpers.h) include
 * the harness through this header only.
 */
#ifndef JR2_KSFT_SKIP_H
#define JR2_KSFT_SKIP_H

#include <stdio.h>

#include "kselftest.h"

static inline void jr2_ksft_result_skip(const char *fixture,
					const char *variant, const char *test,
					const char *reason)
{
	ksft_cnt.ksft_xskip++;
	printf("ok %d %s%s%s.%s # SKIP %s\n", ksft_test_num(), fixture,
	       variant[0] ? "." : "", variant, test, reason);
}
#define ksft_test_result_skip(fmt, reason) \
	jr2_ksft_result_skip(f->name, variant->name, t->name, reason)

#include "kselftest_harness.h"

#endif /* JR2_KSFT_SKIP_H */
