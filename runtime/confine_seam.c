// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seam of jr2_confine_plan() between its steps (policy.h): the programs
 * link this one, which does nothing.  A test binary that defines
 * jr2_confine_seam() itself links its own instead (the linker takes no
 * member of an archive for a symbol already defined), so no program holds
 * a writable pointer to code that runs before landlock_restrict_self.
 */
#include "policy.h"

void jr2_confine_seam(const struct jr2_ruleset_plan *plan, int stage)
{
	(void)plan;
	(void)stage;
}
