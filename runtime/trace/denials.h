/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What denials.bpf.c and the jr2-trace loader share: the table of traced
 * points and the event that goes through the ring buffer.  Included by the
 * BPF side (after kernel_types.h) and by user space (after <linux/types.h>).
 */
#ifndef JR2_TRACE_DENIALS_H
#define JR2_TRACE_DENIALS_H

/*
 * How a point's arguments name the target of the denied operation.
 * The argument numbers are those of the LSM hook (and of its security_*
 * entry point, which has the same arguments).
 */
enum jr2_target_kind {
	JR2_TARGET_NONE,
	JR2_TARGET_FILE, /* arg0: struct file * */
	JR2_TARGET_PATH0, /* arg0: const struct path * */
	JR2_TARGET_PATH1, /* arg1: const struct path * */
	JR2_TARGET_DIR_DENTRY, /* arg0: dir path, arg1: dentry in it */
	JR2_TARGET_LINK, /* arg1: new dir path, arg2: new dentry */
	JR2_TARGET_VFSMOUNT, /* arg0: struct vfsmount * */
	JR2_TARGET_TASK, /* arg0: struct task_struct * */
	JR2_TARGET_SOCKADDR, /* arg1: struct sockaddr * */
	JR2_TARGET_MSGHDR, /* arg1: struct msghdr *, its msg_name */
	JR2_TARGET_UNIX_SOCK, /* arg1: struct sock * of the peer */
	JR2_TARGET_UNIX_SOCKET, /* arg1: struct socket * of the peer */
};

/*
 * X(id, landlock hook, security_* entry point, operation, target, nargs):
 * one line per place where Landlock can deny.  nargs is the hook's arity
 * (the fexit return value follows the arguments).
 */
#define JR2_TRACE_POINTS(X)                                                   \
	X(file_open, hook_file_open, security_file_open, "open",              \
	  JR2_TARGET_FILE, 1)                                                 \
	X(file_truncate, hook_file_truncate, security_file_truncate,          \
	  "truncate", JR2_TARGET_FILE, 1)                                     \
	X(path_truncate, hook_path_truncate, security_path_truncate,          \
	  "truncate", JR2_TARGET_PATH0, 1)                                    \
	X(file_ioctl, hook_file_ioctl, security_file_ioctl, "ioctl",          \
	  JR2_TARGET_FILE, 3)                                                 \
	X(file_ioctl_compat, hook_file_ioctl_compat,                          \
	  security_file_ioctl_compat, "ioctl", JR2_TARGET_FILE, 3)            \
	X(path_mkdir, hook_path_mkdir, security_path_mkdir, "mkdir",          \
	  JR2_TARGET_DIR_DENTRY, 3)                                           \
	X(path_mknod, hook_path_mknod, security_path_mknod, "mknod",          \
	  JR2_TARGET_DIR_DENTRY, 4)                                           \
	X(path_symlink, hook_path_symlink, security_path_symlink, "symlink",  \
	  JR2_TARGET_DIR_DENTRY, 3)                                           \
	X(path_unlink, hook_path_unlink, security_path_unlink, "unlink",      \
	  JR2_TARGET_DIR_DENTRY, 2)                                           \
	X(path_rmdir, hook_path_rmdir, security_path_rmdir, "rmdir",          \
	  JR2_TARGET_DIR_DENTRY, 2)                                           \
	X(path_link, hook_path_link, security_path_link, "link",              \
	  JR2_TARGET_LINK, 3)                                                 \
	X(path_rename, hook_path_rename, security_path_rename, "rename",      \
	  JR2_TARGET_DIR_DENTRY, 5)                                           \
	X(sb_mount, hook_sb_mount, security_sb_mount, "mount",                \
	  JR2_TARGET_PATH1, 5)                                                \
	X(move_mount, hook_move_mount, security_move_mount, "move_mount",     \
	  JR2_TARGET_PATH1, 2)                                                \
	X(sb_umount, hook_sb_umount, security_sb_umount, "umount",            \
	  JR2_TARGET_VFSMOUNT, 2)                                             \
	X(sb_remount, hook_sb_remount, security_sb_remount, "remount",        \
	  JR2_TARGET_NONE, 2)                                                 \
	X(sb_pivotroot, hook_sb_pivotroot, security_sb_pivotroot,             \
	  "pivot_root", JR2_TARGET_PATH1, 2)                                  \
	X(ptrace_access_check, hook_ptrace_access_check,                      \
	  security_ptrace_access_check, "ptrace", JR2_TARGET_TASK, 2)         \
	X(ptrace_traceme, hook_ptrace_traceme, security_ptrace_traceme,       \
	  "ptrace_traceme", JR2_TARGET_TASK, 1)                               \
	X(socket_bind, hook_socket_bind, security_socket_bind, "bind",        \
	  JR2_TARGET_SOCKADDR, 3)                                             \
	X(socket_connect, hook_socket_connect, security_socket_connect,       \
	  "connect", JR2_TARGET_SOCKADDR, 3)                                  \
	X(socket_sendmsg, hook_socket_sendmsg, security_socket_sendmsg,       \
	  "sendmsg", JR2_TARGET_MSGHDR, 3)                                    \
	X(unix_stream_connect, hook_unix_stream_connect,                      \
	  security_unix_stream_connect, "unix_connect", JR2_TARGET_UNIX_SOCK, \
	  3)                                                                  \
	X(unix_may_send, hook_unix_may_send, security_unix_may_send,          \
	  "unix_send", JR2_TARGET_UNIX_SOCKET, 2)                             \
	X(unix_find, hook_unix_find, security_unix_find, "unix_resolve",      \
	  JR2_TARGET_PATH0, 3)                                                \
	X(task_kill, hook_task_kill, security_task_kill, "signal",            \
	  JR2_TARGET_TASK, 4)                                                 \
	X(file_send_sigiotask, hook_file_send_sigiotask,                      \
	  security_file_send_sigiotask, "sigio", JR2_TARGET_TASK, 3)

#define JR2_POINT_ENUM(id, hook, sec, op, kind, nargs) JR2_POINT_##id,
enum jr2_point { JR2_TRACE_POINTS(JR2_POINT_ENUM) JR2_POINT_COUNT };
#undef JR2_POINT_ENUM

/* The kprobe.multi cookie of landlock_log_denial (the others: a point). */
#define JR2_COOKIE_LOG_DENIAL 0xffff

/* Which program saw the denial. */
enum jr2_source {
	JR2_SOURCE_FEXIT = 1, /* fexit on the Landlock hook */
	JR2_SOURCE_KRETPROBE, /* kretprobe on the Landlock hook */
	JR2_SOURCE_SECURITY, /* fexit on the security_* entry point */
	JR2_SOURCE_LOG_DENIAL, /* landlock_log_denial alone (6.15+) */
};

/*
 * The points that landlock_log_denial (6.15+) tells whole, so that no
 * program runs on their hook when Landlock allows: an open's request names
 * the file's path, an ioctl's the file's path and the command, and their
 * hooks return -EACCES whenever they log.  A 32-bit program's ioctl keeps
 * its own hook (hook_file_ioctl_compat), so that the event names it.
 */
#define JR2_DENIAL_POINTS \
	(1ULL << JR2_POINT_file_open | 1ULL << JR2_POINT_file_ioctl)

#define JR2_TRACE_COMM_LEN 16
/* Path components, leaf first, each NUL-terminated. */
#define JR2_TRACE_PATH_DEPTH 24
#define JR2_TRACE_NAME_MAX   256
#define JR2_TRACE_PATH_LIMIT 512 /* no component starts at or after this */
#define JR2_TRACE_PATH_BUF   (JR2_TRACE_PATH_LIMIT + JR2_TRACE_NAME_MAX)
/* Records carry path[] cut to the first of these sizes that holds it. */
#define JR2_TRACE_PATH_SHORT  64
#define JR2_TRACE_PATH_MEDIUM 256

struct jr2_denial {
	__u64 time_ns; /* bpf_ktime_get_ns() */
	__u32 pid; /* thread id */
	__u32 tgid;
	__s32 ret; /* the hook's return value: -errno */
	__u16 point; /* enum jr2_point */
	__u8 source; /* enum jr2_source */
	__u8 landlock; /* 1: the denial is Landlock's */
	/* From fentry on landlock_log_denial (6.15+), when has_request. */
	__u8 has_request;
	__u8 path_truncated;
	__u16 path_parts;
	__u32 request_type; /* enum landlock_request_type */
	__u32 layer; /* layer_plus_one; 0 when the kernel did not say */
	__u64 access; /* access the request wanted */
	__u64 domain; /* id of the youngest domain of the subject */
	/* Target, as the point's kind says. */
	__u32 target_pid;
	__u16 family; /* AF_* of a socket target */
	__u16 port; /* host order (AF_INET, AF_INET6) */
	__u16 sun_len; /* bytes of path[] holding a sun_path (AF_UNIX) */
	__u16
	    path_used; /* bytes of path[] written: the record may stop there */
	__u64 ioctl_cmd;
	char comm[JR2_TRACE_COMM_LEN];
	char path[JR2_TRACE_PATH_BUF];
};

#endif /* JR2_TRACE_DENIALS_H */
