/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spawner: a child of the harness that confines itself once, so that
 * every program it starts lives in its Landlock domain, one layer below it
 * (P3: one layer shared by the requests given no Stand-in, one of its own
 * for each request given one), then starts programs on the harness's
 * request.  Its programs are made children of the
 * harness (CLONE_PARENT), which reaps them and reports their exit status.
 *
 * Spawner -> harness messages (one per SOCK_SEQPACKET message):
 *   "ready"                 confined; waiting for requests
 *   "fail <message>"        could not confine; the spawner then exits 125
 *   "started <id> <pid>"    program of request <id> is running as <pid>
 *   "error <id> <errno> <message>"  request <id> could not be started
 * "started" and most "error"s are sent by the program's own process before
 * its execve or its exit, so they always precede its exit status.
 */
#ifndef JR2_SPAWNER_H
#define JR2_SPAWNER_H

#include "abi.h"
#include "policy.h"

#define JR2_SPAWNER_FD 3 /* the spawner's end of its channel */

/*
 * Never returns.  Runs in the forked child; sock is its channel.  plan: the
 * harness's plan at start, the reference for the protected dirs' inodes.
 */
void jr2_spawner_main(int sock, const struct jr2_policy *policy,
		      const struct jr2_abi *abi,
		      const struct jr2_ruleset_plan *plan)
    __attribute__((noreturn));

#endif /* JR2_SPAWNER_H */
