// SPDX-License-Identifier: GPL-2.0-only
/*
 * What jr2-trace says of this kernel: the refusal when Landlock denials
 * cannot be traced here, and the report of --probe (what attached where,
 * and why not a better way).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"
#include "format.h"
#include "probe.h"

static const char *how_name(enum jr2_how how)
{
	switch (how) {
	case JR2_HOW_MULTI:
		return "kprobe.multi";
	case JR2_HOW_FEXIT:
		return "fexit";
	case JR2_HOW_KPROBE:
		return "kprobe";
	case JR2_HOW_SECURITY:
		return "security";
	case JR2_HOW_DENIAL:
		return "log_denial";
	case JR2_HOW_NONE:
		break;
	}
	return "none";
}

/*
 * A point asked for whose Landlock hook this kernel has (BTF or kallsyms
 * names it) but that no way traces: every program for it failed to load or
 * attach (a verifier that refuses what another kernel's accepts, a missing
 * attach type).  Landlock denies there unseen.
 */
static bool point_lost(const struct jr2_tracer *t, int i)
{
	const struct jr2_point_state *s = &t->points[i];

	if (s->how != JR2_HOW_NONE ||
	    (t->points_asked && !(t->points_asked & (1ULL << i))))
		return false;
	return s->hook_btf || (s->ksym[0] && !s->ksym_presumed);
}

static bool has_cap(const struct __user_cap_data_struct data[2], int cap)
{
	return data[cap / 32].effective & (1U << (cap % 32));
}

const char *jr2_trace_missing_caps(char *buf, size_t size)
{
	struct __user_cap_header_struct head = {
	    .version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {0};
	bool bpf, perfmon;

	if (syscall(SYS_capget, &head, data) != 0 ||
	    has_cap(data, CAP_SYS_ADMIN))
		return NULL;
	bpf = has_cap(data, CAP_BPF);
	perfmon = has_cap(data, CAP_PERFMON);
	if (bpf && perfmon)
		return NULL;
	snprintf(buf, size, "%s%s%s", bpf ? "" : "CAP_BPF",
		 !bpf && !perfmon ? " and " : "", perfmon ? "" : "CAP_PERFMON");
	return buf;
}

const char *jr2_tracer_refusal(const struct jr2_tracer *t, char *buf,
			       size_t size)
{
	const struct jr2_kernel *k = &t->kernel;
	int lost = 0, first = -1;
	size_t len;
	char caps[64];

	if (k->landlock_abi > 0 && t->traced_points == 0 &&
	    jr2_trace_missing_caps(caps, sizeof(caps))) {
		snprintf(
		    buf, size,
		    "this process (uid %d) lacks %s, without which the "
		    "kernel loads no tracing program (fexit on %s: %s): "
		    "give it CAP_BPF and CAP_PERFMON (root's own, or setcap "
		    "cap_bpf,cap_perfmon+ep on the program)",
		    (int)getuid(), caps, PROBE_TARGET,
		    strerrorname_np(k->tracing_errno));
		return buf;
	}
	if (k->landlock_abi <= 0) {
		snprintf(buf, size, "%s",
			 k->landlock_errno == EOPNOTSUPP
			     ? "Landlock is built but not enabled (add "
			       "landlock to the lsm= boot parameter): "
			       "there is no Landlock to trace"
			     : "this kernel has no Landlock "
			       "(landlock_create_ruleset: ENOSYS): there "
			       "is no Landlock to trace");
		return buf;
	}
	if (k->btf_errno) {
		snprintf(buf, size,
			 "no kernel BTF (/sys/kernel/btf/vmlinux: %s): build "
			 "the kernel with CONFIG_DEBUG_INFO_BTF=y",
			 strerrorname_np(k->btf_errno));
		return buf;
	}
	if (t->traced_points == 0) {
		snprintf(buf, size,
			 "the kernel refuses tracing programs (an fexit "
			 "program on %s fails to %s: %s) and has no kprobes "
			 "(%s: %s): no Landlock hook can be traced",
			 PROBE_TARGET, k->tracing_step,
			 strerrorname_np(k->tracing_errno), KPROBE_PMU,
			 strerrorname_np(k->kprobes_errno));
		return buf;
	}
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		if (!point_lost(t, i))
			continue;
		if (first < 0)
			first = i;
		lost++;
	}
	if (!lost)
		return NULL;
	len = snprintf(buf, size,
		       "%d point%s where this kernel's Landlock denies cannot "
		       "be traced, their denials would go unseen:",
		       lost, lost == 1 ? "" : "s");
	for (int i = 0; i < JR2_POINT_COUNT && len < size; i++)
		if (point_lost(t, i))
			len += snprintf(buf + len, size - len, " %s",
					jr2_points[i].id);
	if (len < size)
		snprintf(buf + len, size - len,
			 " (%s: %s; jr2-trace --probe --verbose shows the "
			 "kernel's reason)",
			 jr2_points[first].id, t->points[first].note);
	return buf;
}

void jr2_tracer_report(const struct jr2_tracer *t, FILE *out)
{
	const struct jr2_kernel *k = &t->kernel;
	char why[512];

	if (k->landlock_abi > 0)
		fprintf(out, "landlock: ABI %d\n", k->landlock_abi);
	else
		fprintf(out, "landlock: absent (%s)\n",
			strerrorname_np(k->landlock_errno));
	fprintf(out, "btf: %s\n",
		k->btf_errno ? strerrorname_np(k->btf_errno) : "yes");
	if (!k->tracing_probed)
		fprintf(out, "tracing programs: not asked (not needed)\n");
	else if (k->tracing_errno)
		fprintf(out,
			"tracing programs: refused (fexit on %s: %s at %s)\n",
			PROBE_TARGET, strerrorname_np(k->tracing_errno),
			k->tracing_step);
	else
		fprintf(out, "tracing programs: yes\n");
	fprintf(out, "kprobes: %s\n",
		k->kprobes_errno ? "no (no kprobe PMU)" : "yes");
	if (t->avoid & (1U << JR2_HOW_MULTI | 1U << JR2_HOW_KPROBE))
		fprintf(out, "kprobe.multi: avoided (--avoid)\n");
	else
		fprintf(out, "kprobe.multi: %s%s\n",
			t->multi_errno ? "refused: " : "yes",
			t->multi_errno ? strerrorname_np(t->multi_errno) : "");
	fprintf(out, "landlock_log_denial: %s%s%s\n",
		t->log_denial
		    ? (t->log_denial_multi ? "kprobe.multi" : "fentry")
		    : "no",
		t->log_denial_note[0] ? ": " : "", t->log_denial_note);
	fprintf(out, "fork tracking: %s%s%s\n",
		t->fork_tracking ? "yes" : "no (parents walked instead)",
		t->fork_note[0] ? ": " : "", t->fork_note);
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		const struct jr2_point_state *s = &t->points[i];

		fprintf(out, "point %-20s %-10s %s%s%s\n", jr2_points[i].id,
			how_name(s->how),
			s->how == JR2_HOW_KPROBE ? s->ksym : "",
			s->how == JR2_HOW_KPROBE && s->note[0] ? "; " : "",
			s->note);
	}
	if (jr2_tracer_refusal(t, why, sizeof(why)))
		fprintf(out, "verdict: cannot trace: %s\n", why);
	else
		fprintf(out,
			"verdict: tracing works: %d points traced, %d of them "
			"attributed to Landlock by their hook\n",
			t->traced_points, t->landlock_points);
}
