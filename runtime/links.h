/* SPDX-License-Identifier: GPL-2.0-only */
/* Hard links that would reach a protected file around the rules. */
#ifndef JR2_LINKS_H
#define JR2_LINKS_H

#include "plan.h"
#include "policy.h"

/*
 * Landlock rules bind to the path walked, and a hard link is another path
 * to the same file: a link made before confinement in a granted folder
 * opens a protected file.  No rule can deny a link one cannot find, so the
 * confiner refuses (-1, *err naming the file) while a file in a protected
 * dir has more links than the protected dirs hold.
 */
int jr2_check_protected_links(const struct jr2_fsview *view,
			      struct jr2_err *err);

#endif /* JR2_LINKS_H */
