/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What this kernel offers jr2-trace (probe.c), for attach.c's plan and
 * report.c's verdict.
 */
#ifndef JR2_TRACE_PROBE_H
#define JR2_TRACE_PROBE_H

#include <stdbool.h>

#include "attach.h"

#define KPROBE_PMU   "/sys/bus/event_source/devices/kprobe/type"
#define PROBE_TARGET "security_file_open" /* of the fexit probe */

struct btf;

/* Landlock's ABI, the kernel's BTF (*btf, NULL when none), the kprobe PMU. */
void probe_kernel(struct jr2_kernel *k, struct btf **btf);
/* Which hook_*, security_* and landlock_* functions BTF has, in one pass. */
void scan_btf(struct jr2_tracer *t, const struct btf *btf);
/* 0 when the kernel takes kprobe.multi links, else the errno it says. */
int probe_kprobe_multi(void);
/* Whether an fexit program loads and attaches; asked once, when needed. */
bool tracing_works(struct jr2_kernel *k, const struct btf *btf);
/* Each hook's kallsyms name, from one read of /proc/kallsyms (once);
 * true when this call read the file. */
bool find_ksyms(struct jr2_tracer *t);

#endif /* JR2_TRACE_PROBE_H */
