/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's types as denials.bpf.c reads them: only the members it
 * reads, each with the kernel's own name and type.  This file stands where
 * a vmlinux.h dumped from one kernel's BTF would, and is what makes the
 * BPF object the same whatever kernel the build machine runs.
 *
 * preserve_access_index (on every struct and union below) makes clang
 * record each member access as a CO-RE relocation: libbpf finds the member
 * by name in the running kernel's BTF at load and writes that kernel's
 * offset, so the layout here (offsets, the members left out, packing) is
 * never used.  An enum's values and a type's existence are relocated too
 * (bpf_core_enum_value, bpf_core_type_exists).  What CO-RE does not fix is
 * a read's size: BPF_CORE_READ reads sizeof(the member here).  So each
 * member has the kernel's type; one whose size changes between kernels is
 * read with BPF_CORE_READ_BITFIELD_PROBED, at the running kernel's size
 * (marked core-sized below); check-core-sizes compares every other
 * member's size with kernels' BTF (`make test-trace-unit`).
 *
 * __VMLINUX_H__ tells libbpf's bpf_tracing.h that struct pt_regs is the
 * kernel's (di, si, ...), not the user-space one (rdi, rsi, ...).
 */
#ifndef JR2_TRACE_KERNEL_TYPES_H
#define JR2_TRACE_KERNEL_TYPES_H
#define __VMLINUX_H__

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef _Bool bool;
enum { false = 0, true = 1 };
typedef unsigned long size_t;
typedef int pid_t;
typedef unsigned short sa_family_t;

/* The uapi's (include/uapi/linux/bpf.h): fixed numbers, never relocated. */
enum bpf_map_type {
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), \
			     apply_to = record)

struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

/*
 * arch/x86/include/asm/ptrace.h: the kprobe context, the registers
 * bpf_tracing.h names (arguments, return value, stack, frame, ip).
 */
struct pt_regs {
	unsigned long bp;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long ip;
	unsigned long sp;
};

struct task_struct {
	pid_t pid;
	pid_t tgid;
	struct task_struct *real_parent;
};

struct qstr {
	const unsigned char *name;
};

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
};

struct vfsmount {
	struct dentry *mnt_root;
};

/* fs/mount.h: a vfsmount is the member mnt of its struct mount. */
struct mount {
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
};

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct file {
	struct path f_path;
};

struct sockaddr {
	sa_family_t sa_family;
};

struct sockaddr_un {
	sa_family_t sun_family;
	char sun_path[108];
};

struct msghdr {
	void *msg_name;
};

struct sock;

struct socket {
	struct sock *sk;
};

struct unix_address {
	int len;
	struct sockaddr_un name[0];
};

struct unix_sock {
	struct unix_address *addr;
};

struct lsm_ioctlop_audit {
	struct path path;
	u16 cmd;
};

struct common_audit_data {
	char type;
	union {
		struct path path;
		struct lsm_ioctlop_audit *op;
	} u;
};

/* security/landlock/: the domain's ids (6.15+, CONFIG_AUDIT). */
struct landlock_hierarchy {
	u64 id;
};

/* The subject's domain before 7.0 (denials.bpf.c names the later one). */
struct landlock_ruleset {
	struct landlock_hierarchy *hierarchy;
};

struct landlock_cred_security {
	struct landlock_ruleset *domain;
};

/* security/landlock/audit.h (6.15+). */
enum landlock_request_type {
	LANDLOCK_REQUEST_PTRACE = 1,
	LANDLOCK_REQUEST_FS_CHANGE_TOPOLOGY,
	LANDLOCK_REQUEST_FS_ACCESS,
	LANDLOCK_REQUEST_NET_ACCESS,
	LANDLOCK_REQUEST_SCOPE_ABSTRACT_UNIX_SOCKET,
	LANDLOCK_REQUEST_SCOPE_SIGNAL,
};

struct landlock_request {
	enum landlock_request_type type;
	struct common_audit_data audit;
	size_t layer_plus_one;
	/*
	 * access_mask_t: u16 before 7.0, u32 from 7.0 (more access rights).
	 * core-sized: read with BPF_CORE_READ_BITFIELD_PROBED, which takes the
	 * running kernel's size as well as its offset.
	 */
	u32 access;
};

#pragma clang attribute pop

#endif /* JR2_TRACE_KERNEL_TYPES_H */
