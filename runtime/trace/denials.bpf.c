// SPDX-License-Identifier: GPL-2.0-only
/*
 * Landlock denials of one process tree, out through a ring buffer.
 *
 * Every traced point has four programs; the loader loads only those whose
 * target this kernel has: fx_ (fexit on the Landlock hook), kp_ and kr_ (a
 * kprobe pair on the hook, where BTF lacks it), sx_ (fexit on the
 * security_* entry point, where the hook itself cannot be traced).  fentry
 * on landlock_log_denial (6.15+) adds the request type, access and domain;
 * there it emits an open's denial itself, and hook_file_open carries no
 * program at all (denial_points), so an allowed open runs none.
 * Where the kernel has kprobe.multi (fprobe), km_entry and km_return serve
 * every hook, and landlock_log_denial, through one link each: the link's
 * cookie names the point.  One link is one ftrace update, not a trampoline
 * per function, and two programs to verify instead of dozens.
 */
#include "kernel_types.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "denials.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_UNIX		1
#define AF_INET		2
#define AF_INET6	10
#define PARENT_WALK_MAX 32
#define EACCES		13
/* LANDLOCK_ACCESS_FS_{EXECUTE,WRITE_FILE,READ_FILE,READ_DIR} (uapi). */
#define LANDLOCK_OPEN_RIGHTS 0xfULL
#define LANDLOCK_IOCTL_DEV   (1ULL << 15)
#define SUN_PATH_MAX	     108

/* The tgid whose descendants are traced; 0 traces every process. */
const volatile __u32 root_tgid = 0;

/* Points (1 << JR2_POINT_*) whose hooks carry no program: on_log_denial
   emits their denials itself (JR2_DENIAL_POINTS). */
const volatile __u64 denial_points = 0;

/* Events the ring buffer had no room for. */
__u64 lost = 0;

/*
 * 4 MiB: some 25,000 short records (168 bytes) the reader has not taken
 * yet; `make bench-trace` loses none of a burst of 100,000 denials.  The
 * kernel allocates and clears all of it at load: 32 MiB took 0.2 s of a
 * start under TCG.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

/* tgids known to descend from root_tgid: filled on fork and by the walk. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/* What landlock_log_denial said, kept per thread until the hook returns. */
struct denial_request {
	__u32 type;
	__u32 layer;
	__u64 access;
	__u64 domain;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct denial_request);
} requests SEC(".maps");

/* Hook arguments from a kprobe, for its kretprobe. */
struct hook_args {
	__u64 arg[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct hook_args);
} kprobe_args SEC(".maps");

static __always_inline bool descends_from_root(struct task_struct *task)
{
	const __u8 yes = 1;
	__u32 tgid;

	if (!root_tgid)
		return true;
	tgid = BPF_CORE_READ(task, tgid);
	if (bpf_map_lookup_elem(&traced, &tgid))
		return true;
	/* Started before the tracer: look up the parents once, then cache. */
	for (int i = 0; i < PARENT_WALK_MAX && task; i++) {
		__u32 t = BPF_CORE_READ(task, tgid);

		if (t == root_tgid) {
			bpf_map_update_elem(&traced, &tgid, &yes, BPF_ANY);
			return true;
		}
		if (t <= 1)
			return false;
		task = BPF_CORE_READ(task, real_parent);
	}
	return false;
}

SEC("raw_tracepoint/sched_process_fork")
int on_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (void *)ctx->args[0];
	struct task_struct *child = (void *)ctx->args[1];
	const __u8 yes = 1;
	__u32 tgid;

	if (!root_tgid || !descends_from_root(parent))
		return 0;
	tgid = BPF_CORE_READ(child, tgid);
	bpf_map_update_elem(&traced, &tgid, &yes, BPF_ANY);
	return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int on_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (void *)ctx->args[0];
	__u32 pid = BPF_CORE_READ(task, pid);

	/* The group leader's exit frees the tgid for reuse. */
	if (pid == BPF_CORE_READ(task, tgid))
		bpf_map_delete_elem(&traced, &pid);
	return 0;
}

/* From 7.0 the subject's domain is a struct landlock_domain. */
struct landlock_domain___jr2 {
	struct landlock_hierarchy *hierarchy;
} __attribute__((preserve_access_index));

struct landlock_cred_security___jr2 {
	struct landlock_domain___jr2 *domain;
} __attribute__((preserve_access_index));

static __always_inline void
read_request(const struct landlock_cred_security *subject,
	     const struct landlock_request *request, struct denial_request *r)
{
	r->type = BPF_CORE_READ(request, type);
	r->layer = BPF_CORE_READ(request, layer_plus_one);
	/* u16 before 7.0, u32 from 7.0: read at this kernel's size. */
	r->access = BPF_CORE_READ_BITFIELD_PROBED(request, access);
	if (bpf_core_type_exists(struct landlock_domain___jr2))
		r->domain = BPF_CORE_READ(
		    (const struct landlock_cred_security___jr2 *)subject,
		    domain, hierarchy, id);
	else if (bpf_core_field_exists(struct landlock_hierarchy, id))
		r->domain = BPF_CORE_READ(subject, domain, hierarchy, id);
}

static __always_inline int emit_file(const struct denial_request *r,
				     const struct landlock_request *request,
				     __u16 point);

static __always_inline int
log_denial(const struct landlock_cred_security *subject,
	   const struct landlock_request *request)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct denial_request r = {};

	read_request(subject, request, &r);
	/*
	 * An open's request wants a file access right that only opening asks
	 * for, an ioctl's the ioctl right alone; every other file-system
	 * request wants a make, remove, refer or truncate right.
	 */
	if (denial_points &&
	    r.type == bpf_core_enum_value(enum landlock_request_type,
					  LANDLOCK_REQUEST_FS_ACCESS)) {
		if ((denial_points & (1ULL << JR2_POINT_file_open)) &&
		    (r.access & LANDLOCK_OPEN_RIGHTS))
			return emit_file(&r, request, JR2_POINT_file_open);
		if ((denial_points & (1ULL << JR2_POINT_file_ioctl)) &&
		    r.access == LANDLOCK_IOCTL_DEV)
			return emit_file(&r, request, JR2_POINT_file_ioctl);
	}
	bpf_map_update_elem(&requests, &tid, &r, BPF_ANY);
	return 0;
}

SEC("fentry/landlock_log_denial")
int BPF_PROG(on_log_denial, const struct landlock_cred_security *subject,
	     const struct landlock_request *request)
{
	return log_denial(subject, request);
}

/* The event is built here, then copied into the ring buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct jr2_denial);
} scratch SEC(".maps");

_Static_assert((JR2_TRACE_PATH_LIMIT & (JR2_TRACE_PATH_LIMIT - 1)) == 0,
	       "path_step() masks offsets with JR2_TRACE_PATH_LIMIT - 1");

/* One step up the path, per bpf_loop() iteration. */
struct path_walk {
	struct vfsmount *vfsmnt;
	struct mount *mnt;
	struct dentry *dentry;
	__u64 mnt_off; /* offsetof(struct mount, mnt) on this kernel */
	__u32 off; /* where the next component goes in path[] */
	__u16 parts;
	__u8 done;
};

static long path_step(__u32 i, void *data)
{
	struct path_walk *w = data;
	const __u32 zero = 0;
	struct jr2_denial *e = bpf_map_lookup_elem(&scratch, &zero);
	/* Locals: CO-RE reads must not relocate through struct path_walk. */
	struct vfsmount *vfsmnt = w->vfsmnt;
	struct dentry *dentry = w->dentry;
	struct mount *mnt = w->mnt;
	struct dentry *root, *parent;
	const unsigned char *name;
	__u32 off = w->off;
	long n;

	if (!e)
		return 1;
	root = BPF_CORE_READ(vfsmnt, mnt_root);
	parent = BPF_CORE_READ(dentry, d_parent);
	if (dentry == root || dentry == parent) {
		/* The top of a mount: go on from where it is mounted. */
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (!up || up == mnt) {
			w->done = 1;
			return 1;
		}
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->vfsmnt = (void *)up + w->mnt_off;
		return 0;
	}
	if (off >= JR2_TRACE_PATH_LIMIT)
		return 1;
	name = BPF_CORE_READ(dentry, d_name.name);
	/*
	 * The test above bounds off in the register it tests.  The compiler
	 * may read off again from its stack slot, and a verifier before 6.9
	 * (6.8) does not carry the bound to the slot: "R1 unbounded memory
	 * access", the program refused.  The mask bounds off where it is used
	 * (JR2_TRACE_PATH_LIMIT is a power of two: it changes nothing).
	 */
	barrier_var(off);
	off &= JR2_TRACE_PATH_LIMIT - 1;
	n = bpf_probe_read_kernel_str(&e->path[off], JR2_TRACE_NAME_MAX, name);
	if (n <= 0)
		return 1;
	w->off = off + n;
	w->parts++;
	w->dentry = parent;
	return 0;
}

/* Path components from dentry up to the root of the mount tree. */
static __always_inline void
read_path(struct jr2_denial *e, struct vfsmount *vfsmnt, struct dentry *dentry)
{
	struct path_walk w = {
	    .vfsmnt = vfsmnt,
	    .dentry = dentry,
	    .mnt_off = bpf_core_field_offset(struct mount, mnt),
	};

	w.mnt = (void *)vfsmnt - w.mnt_off;
	bpf_loop(JR2_TRACE_PATH_DEPTH + 8, path_step, &w, 0);
	e->path_parts = w.parts;
	e->path_truncated = !w.done;
	e->path_used = w.off;
}

static __always_inline void read_unix_name(struct jr2_denial *e,
					   struct sock *peer)
{
	struct unix_address *addr =
	    BPF_CORE_READ((struct unix_sock *)peer, addr);
	int addr_len;
	__u32 len;

	e->family = AF_UNIX;
	if (!addr)
		return; /* unnamed: socketpair() */
	addr_len = BPF_CORE_READ(addr, len);
	if (addr_len <= (int)sizeof(__u16))
		return;
	len = addr_len - sizeof(__u16);
	if (len > SUN_PATH_MAX)
		len = SUN_PATH_MAX;
	/*
	 * name[0].sun_path: the family (2 bytes) comes first.  A constant size
	 * keeps the verifier sure of the bound; only len bytes are used.
	 */
	bpf_probe_read_kernel(
	    e->path, SUN_PATH_MAX,
	    (void *)addr + bpf_core_field_offset(struct unix_address, name) +
		sizeof(__u16));
	e->sun_len = len;
	e->path_used = SUN_PATH_MAX;
}

static __always_inline void read_sockaddr(struct jr2_denial *e,
					  struct sockaddr *sa)
{
	__u16 port = 0;

	if (!sa)
		return; /* sendmsg() on a connected socket */
	e->family = BPF_CORE_READ(sa, sa_family);
	/* sin_port and sin6_port sit right after the family. */
	if (e->family == AF_INET || e->family == AF_INET6)
		bpf_probe_read_kernel(&port, sizeof(port),
				      (void *)sa + sizeof(__u16));
	e->port = bpf_ntohs(port);
}

static __always_inline void read_target(struct jr2_denial *e, int kind,
					__u64 a0, __u64 a1, __u64 a2)
{
	switch (kind) {
	case JR2_TARGET_FILE: {
		struct file *file = (void *)a0;

		read_path(e, BPF_CORE_READ(file, f_path.mnt),
			  BPF_CORE_READ(file, f_path.dentry));
		e->ioctl_cmd = a1; /* the ioctl points: arg1 is the command */
		break;
	}
	case JR2_TARGET_PATH0:
	case JR2_TARGET_PATH1: {
		const struct path *path =
		    (void *)(kind == JR2_TARGET_PATH0 ? a0 : a1);

		read_path(e, BPF_CORE_READ(path, mnt),
			  BPF_CORE_READ(path, dentry));
		break;
	}
	case JR2_TARGET_DIR_DENTRY: {
		const struct path *dir = (void *)a0;

		read_path(e, BPF_CORE_READ(dir, mnt), (void *)a1);
		break;
	}
	case JR2_TARGET_LINK: {
		const struct path *dir = (void *)a1;

		read_path(e, BPF_CORE_READ(dir, mnt), (void *)a2);
		break;
	}
	case JR2_TARGET_VFSMOUNT: {
		struct vfsmount *mnt = (void *)a0;

		read_path(e, mnt, BPF_CORE_READ(mnt, mnt_root));
		break;
	}
	case JR2_TARGET_TASK:
		e->target_pid = BPF_CORE_READ((struct task_struct *)a0, tgid);
		break;
	case JR2_TARGET_SOCKADDR:
		read_sockaddr(e, (struct sockaddr *)a1);
		break;
	case JR2_TARGET_MSGHDR:
		read_sockaddr(e, BPF_CORE_READ((struct msghdr *)a1, msg_name));
		break;
	case JR2_TARGET_UNIX_SOCK:
		read_unix_name(e, (struct sock *)a1);
		break;
	case JR2_TARGET_UNIX_SOCKET:
		read_unix_name(e, BPF_CORE_READ((struct socket *)a1, sk));
		break;
	}
}

#define RECORD(path_bytes) \
	(__builtin_offsetof(struct jr2_denial, path) + (path_bytes))

/* The event's common fields; NULL when this task is not traced. */
static __always_inline struct jr2_denial *begin(long ret, __u16 point,
						__u8 source)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	const __u32 zero = 0;
	struct jr2_denial *e;

	if (!descends_from_root(task))
		return NULL;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return NULL;
	__builtin_memset(e, 0, sizeof(*e) - sizeof(e->path));
	e->path[0] = 0;
	e->time_ns = bpf_ktime_get_ns();
	e->pid = (__u32)pid_tgid;
	e->tgid = pid_tgid >> 32;
	e->ret = (int)ret;
	e->point = point;
	e->source = source;
	e->landlock = source != JR2_SOURCE_SECURITY;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

static __always_inline void put_request(struct jr2_denial *e,
					const struct denial_request *r)
{
	e->has_request = 1;
	e->landlock = 1;
	e->request_type = r->type;
	e->layer = r->layer;
	e->access = r->access;
	e->domain = r->domain;
}

static __always_inline int output(struct jr2_denial *e)
{
	long ret;

	/* Constant sizes: most paths are short, and a burst must fit. */
	if (e->path_used <= JR2_TRACE_PATH_SHORT)
		ret = bpf_ringbuf_output(&events, e,
					 RECORD(JR2_TRACE_PATH_SHORT), 0);
	else if (e->path_used <= JR2_TRACE_PATH_MEDIUM)
		ret = bpf_ringbuf_output(&events, e,
					 RECORD(JR2_TRACE_PATH_MEDIUM), 0);
	else
		ret = bpf_ringbuf_output(&events, e, sizeof(*e), 0);
	if (ret)
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

static __always_inline int emit(long ret, __u16 point, __u8 source, int kind,
				__u64 a0, __u64 a1, __u64 a2)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct denial_request *request;
	struct jr2_denial *e;

	/* Hooks return 0 or -errno; only a denial goes on. */
	if ((int)ret >= 0)
		return 0;
	e = begin(ret, point, source);
	if (!e)
		return 0;
	request = bpf_map_lookup_elem(&requests, &tid);
	if (request) {
		put_request(e, request);
		bpf_map_delete_elem(&requests, &tid);
	}
	read_target(e, kind, a0, a1, a2);
	return output(e);
}

/*
 * An open's or an ioctl's denial from its request alone: the path it names
 * (an ioctl's request names it in its ioctl record, with the command).
 */
static __always_inline int emit_file(const struct denial_request *r,
				     const struct landlock_request *request,
				     __u16 point)
{
	struct jr2_denial *e = begin(-EACCES, point, JR2_SOURCE_LOG_DENIAL);
	struct lsm_ioctlop_audit *op;

	if (!e)
		return 0;
	put_request(e, r);
	if (point == JR2_POINT_file_ioctl) {
		op = BPF_CORE_READ(request, audit.u.op);
		read_path(e, BPF_CORE_READ(op, path.mnt),
			  BPF_CORE_READ(op, path.dentry));
		e->ioctl_cmd = BPF_CORE_READ(op, cmd);
	} else {
		read_path(e, BPF_CORE_READ(request, audit.u.path.mnt),
			  BPF_CORE_READ(request, audit.u.path.dentry));
	}
	return output(e);
}

static __always_inline int save_args(__u64 a0, __u64 a1, __u64 a2)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct hook_args args = {.arg = {a0, a1, a2}};

	bpf_map_update_elem(&kprobe_args, &tid, &args, BPF_ANY);
	return 0;
}

static __always_inline int kret(long ret, __u16 point, int kind)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct hook_args *args = bpf_map_lookup_elem(&kprobe_args, &tid);
	__u64 a0, a1, a2;

	if (!args)
		return 0;
	a0 = args->arg[0];
	a1 = args->arg[1];
	a2 = args->arg[2];
	bpf_map_delete_elem(&kprobe_args, &tid);
	return emit(ret, point, JR2_SOURCE_KRETPROBE, kind, a0, a1, a2);
}

/* The return value follows the nargs arguments in a fexit context. */
#define ARG(ctx, n, nargs) ((n) < (nargs) ? (ctx)[n] : 0)

#define JR2_PROGRAMS(id, hook, sec, op, kind, nargs)                         \
	SEC("fexit")                                                         \
	int fx_##id(unsigned long long *ctx)                                 \
	{                                                                    \
		return emit(ctx[nargs], JR2_POINT_##id, JR2_SOURCE_FEXIT,    \
			    kind, ARG(ctx, 0, nargs), ARG(ctx, 1, nargs),    \
			    ARG(ctx, 2, nargs));                             \
	}                                                                    \
	SEC("fexit")                                                         \
	int sx_##id(unsigned long long *ctx)                                 \
	{                                                                    \
		return emit(ctx[nargs], JR2_POINT_##id, JR2_SOURCE_SECURITY, \
			    kind, ARG(ctx, 0, nargs), ARG(ctx, 1, nargs),    \
			    ARG(ctx, 2, nargs));                             \
	}                                                                    \
	SEC("kprobe")                                                        \
	int kp_##id(struct pt_regs *ctx)                                     \
	{                                                                    \
		return save_args(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx),     \
				 PT_REGS_PARM3(ctx));                        \
	}                                                                    \
	SEC("kretprobe")                                                     \
	int kr_##id(struct pt_regs *ctx)                                     \
	{                                                                    \
		return kret(PT_REGS_RC(ctx), JR2_POINT_##id, kind);          \
	}

JR2_TRACE_POINTS(JR2_PROGRAMS)

/* Each point's target kind, for the programs that serve every point. */
#define JR2_KIND(id, hook, sec, op, kind, nargs) [JR2_POINT_##id] = kind,
static const __u8 point_kinds[JR2_POINT_COUNT] = {JR2_TRACE_POINTS(JR2_KIND)};
#undef JR2_KIND

/* The cookie: a point, or JR2_COOKIE_LOG_DENIAL (denials.h). */
SEC("kprobe.multi")
int km_entry(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	if (cookie == JR2_COOKIE_LOG_DENIAL) {
		/* Before 6.15 there is none: the branch is not even loaded. */
		if (!bpf_core_type_exists(struct landlock_request))
			return 0;
		return log_denial((void *)PT_REGS_PARM1(ctx),
				  (void *)PT_REGS_PARM2(ctx));
	}
	return save_args(PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx),
			 PT_REGS_PARM3(ctx));
}

SEC("kretprobe.multi")
int km_return(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	if (cookie >= JR2_POINT_COUNT)
		return 0;
	return kret(PT_REGS_RC(ctx), (__u16)cookie, point_kinds[cookie]);
}
