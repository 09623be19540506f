/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Written by scripts/syscall-census from docs/syscalls/census.tsv (do not
 * edit): the calls the census refuses, in each table of linux-libc-dev
 * 7.3.4-1~bpo13+1, and the numbers the filter needs.  Above a table's
 * highest number, a call is one the census never saw: ENOSYS.
 */
#ifndef JR2_SYSCALL_CENSUS_H
#define JR2_SYSCALL_CENSUS_H

#include <errno.h>

/* A row a call, as the census has them. */
/* clang-format off */
struct jr2_syscall_rule {
	unsigned int nr;
	int err;
	const char *name;
};

#define JR2_X86_64_MAX 472
#define JR2_X86_64_PRLIMIT64 302
#define JR2_X86_64_FCNTL 72
#define JR2_X86_64_SETSOCKOPT 54
static const struct jr2_syscall_rule jr2_x86_64_refused[] = {
    {248, EPERM, "add_key"},
    {249, EPERM, "request_key"},
    {250, EPERM, "keyctl"},
    {300, EPERM, "fanotify_init"},
    {301, EPERM, "fanotify_mark"},
    {321, EPERM, "bpf"},
    {428, EPERM, "open_tree"},
    {429, EPERM, "move_mount"},
    {430, EPERM, "fsopen"},
    {431, EPERM, "fsconfig"},
    {432, EPERM, "fsmount"},
    {433, EPERM, "fspick"},
    {435, ENOSYS, "clone3"},
    {442, EPERM, "mount_setattr"},
    {467, EPERM, "open_tree_attr"},
};

#define JR2_I386_MAX 472
#define JR2_I386_PRLIMIT64 340
#define JR2_I386_FCNTL 55
#define JR2_I386_FCNTL64 221
#define JR2_I386_SETSOCKOPT 366
#define JR2_I386_SOCKETCALL 102
static const struct jr2_syscall_rule jr2_i386_refused[] = {
    {286, EPERM, "add_key"},
    {287, EPERM, "request_key"},
    {288, EPERM, "keyctl"},
    {338, EPERM, "fanotify_init"},
    {339, EPERM, "fanotify_mark"},
    {357, EPERM, "bpf"},
    {428, EPERM, "open_tree"},
    {429, EPERM, "move_mount"},
    {430, EPERM, "fsopen"},
    {431, EPERM, "fsconfig"},
    {432, EPERM, "fsmount"},
    {433, EPERM, "fspick"},
    {435, ENOSYS, "clone3"},
    {442, EPERM, "mount_setattr"},
    {467, EPERM, "open_tree_attr"},
};

/* clang-format on */

#endif /* JR2_SYSCALL_CENSUS_H */
