/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The programs an earlier harness on the same protected dir left running.
 * Each spawner that holds CAP_SYS_ADMIN makes a mount namespace of its own
 * with the protected dir bind-mounted read-only (confine_step.h, step 4);
 * every program inherits it, and no confined program can shed that mount:
 * Landlock refuses umount, setns needs capabilities the programs lack, and
 * a namespace a program unshares (with a user namespace) copies it.  Those
 * programs keep the policy of their spawner, whatever a later config says.
 * Each namespace is read from its own root (a child joins it), never
 * through a program's /proc/PID/mountinfo, which lists only the mounts
 * under that program's root: a chroot of its own would hide them.
 */
#ifndef JR2_HARNESS_LEFTOVERS_H
#define JR2_HARNESS_LEFTOVERS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The processes outside this process's mount namespace whose namespace has
 * more mounts on `protected_dir` than this one's: up to `max` pids in pids;
 * returns how many there are (0: none, or none can be seen).
 */
size_t jr2_leftover_programs(const char *protected_dir, pid_t *pids,
			     size_t max);

/*
 * The name of pid (/proc/PID/comm) for a message, every control byte
 * shown as '?': a program sets its own name (prctl PR_SET_NAME, 15 bytes,
 * newlines and terminal escapes included), and a message is one line of
 * text.  "?" when it cannot be read.
 */
void jr2_proc_comm(pid_t pid, char *out, size_t size);

#endif /* JR2_HARNESS_LEFTOVERS_H */
