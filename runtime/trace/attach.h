/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What this kernel lets jr2-trace attach, decided per function at run time:
 * one kprobe.multi link pair for every hook BTF has (and landlock_log_denial)
 * where the kernel has fprobe, else fexit on the Landlock hook where the
 * kernel takes tracing programs, else a kprobe pair where kallsyms has it,
 * else fexit on the security_* entry point; fentry on landlock_log_denial
 * where present, which then tells an open's denial alone (no program on
 * hook_file_open: JR2_HOW_DENIAL).
 */
#ifndef JR2_TRACE_ATTACH_H
#define JR2_TRACE_ATTACH_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "denials.h"

enum jr2_how {
	JR2_HOW_NONE,
	JR2_HOW_MULTI, /* kprobe.multi + kretprobe.multi: one link for all */
	JR2_HOW_FEXIT, /* fexit on the Landlock hook */
	JR2_HOW_KPROBE, /* kprobe + kretprobe on the Landlock hook */
	JR2_HOW_SECURITY, /* fexit on the security_* entry point */
	JR2_HOW_DENIAL, /* landlock_log_denial alone: nothing on the hook */
};

#define JR2_NOTE_LEN 256

struct jr2_point_state {
	enum jr2_how how;
	bool hook_btf, security_btf; /* the functions BTF has */
	char ksym[128]; /* the kallsyms name a kprobe attaches to */
	bool ksym_presumed; /* the hook's own name, kallsyms not read */
	bool multi_esrch; /* kprobe.multi found no function of that name */
	char note[JR2_NOTE_LEN]; /* why not a better way; why none */
};

struct jr2_kernel {
	int landlock_abi; /* > 0, or 0 with landlock_errno set */
	int landlock_errno; /* ENOSYS: none; EOPNOTSUPP: not enabled */
	int btf_errno; /* 0: /sys/kernel/btf/vmlinux loaded */
	bool tracing_probed; /* only when a way needs tracing programs */
	int tracing_errno; /* 0: an fexit program loads and attaches */
	const char *tracing_step; /* "load" or "attach" when refused */
	int kprobes_errno; /* 0: the kprobe PMU is there */
	bool kallsyms; /* /proc/kallsyms shows addresses */
};

/* What to trace and how; avoid: bits (1 << JR2_HOW_*) not to use. */
struct jr2_trace_opts {
	__u32 root_tgid; /* its descendants are traced; 0: every process */
	bool verbose; /* libbpf's messages on stderr */
	bool probe_all; /* --probe: ask about every way, used or not */
	unsigned int avoid;
	__u64 points; /* bits (1 << JR2_POINT_*) to trace; 0: every point */
};

struct denials_bpf;
struct bpf_link;

struct jr2_tracer {
	struct denials_bpf *skel;
	struct jr2_kernel kernel;
	struct jr2_point_state points[JR2_POINT_COUNT];
	bool log_denial; /* landlock_log_denial traced */
	bool log_denial_btf; /* BTF has landlock_log_denial */
	bool log_denial_multi; /* by the kprobe.multi link, not fentry */
	char log_denial_note[JR2_NOTE_LEN];
	bool fork_tracking; /* sched_process_fork/exit raw tracepoints */
	char fork_note[JR2_NOTE_LEN];
	unsigned int avoid; /* from jr2_trace_opts */
	__u64 points_asked; /* from jr2_trace_opts */
	bool ksyms_read; /* /proc/kallsyms looked at for the hooks' symbols */
	int traced_points; /* points with a way to see their denials */
	int landlock_points; /* of those, attributed to Landlock */
	int multi_errno; /* why the kprobe.multi link failed; 0: it did not */
	bool multi_probed; /* multi_errno from the probe, before any load */
	struct bpf_link *links[4 * JR2_POINT_COUNT + 3];
	int n_links;
};

/*
 * Probes the kernel, loads what it allows and attaches it.  Returns 0, or
 * -errno with a sentence in err when nothing could be loaded at all.
 */
int jr2_tracer_open(struct jr2_tracer *tracer,
		    const struct jr2_trace_opts *opts, char *err, size_t size);
/* Human-readable: what attached where and why not; one line each. */
void jr2_tracer_report(const struct jr2_tracer *tracer, FILE *out);
/*
 * The capabilities this process lacks for BPF tracing ("CAP_BPF and
 * CAP_PERFMON"), NULL when it has them: the kernel loads tracing programs
 * and kprobes only for CAP_BPF with CAP_PERFMON, or CAP_SYS_ADMIN (the one
 * capability of kernels before 5.8), and answers EPERM to anyone else.
 */
const char *jr2_trace_missing_caps(char *buf, size_t size);
/*
 * Why tracing Landlock denials cannot work here; NULL when it can.  A
 * process without the capabilities is told that first, whatever the kernel.
 */
const char *jr2_tracer_refusal(const struct jr2_tracer *tracer, char *buf,
			       size_t size);
void jr2_tracer_close(struct jr2_tracer *tracer);
/* With --verbose: the step and the seconds since jr2_tracer_open. */
void jr2_tracer_step(const char *step);

#endif /* JR2_TRACE_ATTACH_H */
