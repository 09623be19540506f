// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this kernel offers jr2-trace, asked before anything loads: its
 * Landlock ABI, its BTF (one pass for every function a plan may name),
 * tracing programs, kprobe.multi links, the kprobe PMU and the kallsyms
 * names of the Landlock hooks.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "attach.h"
#include "format.h"
#include "probe.h"

/*
 * One pass over the kernel's BTF for every function a plan may name: a
 * lookup per name scans every type, 55 times, which takes 0.2 s under TCG.
 */
void scan_btf(struct jr2_tracer *t, const struct btf *btf)
{
	__u32 n = btf ? btf__type_cnt(btf) : 0;

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *type = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(type))
			continue;
		name = btf__name_by_offset(btf, type->name_off);
		if (!name || (strncmp(name, "hook_", 5) &&
			      strncmp(name, "security_", 9) &&
			      strncmp(name, "landlock_", 9)))
			continue;
		if (!strcmp(name, "landlock_log_denial"))
			t->log_denial_btf = true;
		for (int i = 0; i < JR2_POINT_COUNT; i++) {
			if (!strcmp(name, jr2_points[i].hook))
				t->points[i].hook_btf = true;
			else if (!strcmp(name, jr2_points[i].security))
				t->points[i].security_btf = true;
		}
	}
}

/* Can a trivial fexit program be loaded and attached?  Sets the errno. */
static void probe_tracing(struct jr2_kernel *k, const struct btf *btf)
{
	const struct bpf_insn ret0[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FEXIT);
	int fd, link;

	k->tracing_step = "load";
	if (!btf) {
		k->tracing_errno = k->btf_errno;
		return;
	}
	opts.attach_btf_id =
	    btf__find_by_name_kind(btf, PROBE_TARGET, BTF_KIND_FUNC);
	if ((int)opts.attach_btf_id <= 0) {
		k->tracing_errno = ENOENT;
		return;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "jr2_probe", "GPL", ret0, 2,
			   &opts);
	if (fd < 0) {
		k->tracing_errno = errno;
		return;
	}
	k->tracing_step = "attach";
	link = bpf_link_create(fd, 0, BPF_TRACE_FEXIT, NULL);
	k->tracing_errno = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
}

/*
 * Does the kernel take kprobe.multi links (fprobe)?  A two-insn program
 * and a link to no function: the kernel refuses the empty list (EINVAL)
 * only once it knows kprobe.multi, and says EOPNOTSUPP without fprobe.
 * Nothing attaches, so it costs no ftrace update; it spares a load of the
 * programs whose link would then fail (a kernel before 5.18 says EINVAL
 * too: its attach fails, and the fallback loads again, as it must).
 */
int probe_kprobe_multi(void)
{
	const struct bpf_insn ret0[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	int fd, link, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "jr2_kmulti", "GPL", ret0, 2,
			   &opts);
	if (fd < 0)
		return errno;
	link = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, NULL);
	err = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return err == EINVAL ? 0 : err;
}

/*
 * The fexit probe attaches a trampoline, which under TCG takes a good part
 * of a second: asked only when a way needs tracing programs (or --probe).
 */
bool tracing_works(struct jr2_kernel *k, const struct btf *btf)
{
	if (!k->tracing_probed) {
		k->tracing_probed = true;
		probe_tracing(k, btf);
	}
	return k->tracing_errno == 0;
}

void probe_kernel(struct jr2_kernel *k, struct btf **btf)
{
	struct jr2_abi abi;

	jr2_abi_probe(&abi, 0);
	k->landlock_abi = abi.kernel;
	k->landlock_errno = abi.probe_errno;
	*btf = btf__load_vmlinux_btf();
	k->btf_errno = *btf ? 0 : errno;
	k->kprobes_errno = access(KPROBE_PMU, R_OK) == 0 ? 0 : errno;
}

/* A line of /proc/kallsyms naming a hook_* symbol: each point's match. */
static void match_ksym(struct jr2_tracer *t, const char *line)
{
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		char *sym = t->points[i].ksym;

		if (!sym[0])
			jr2_ksym_match(line, jr2_points[i].hook, sym,
				       sizeof(t->points[i].ksym));
	}
}

/*
 * One pass over /proc/kallsyms finds every hook's symbol.  Read only when a
 * point needs more than kprobe.multi or fexit on its hook and its own name
 * will not do (kprobe_sym(), hook_exists()).  Big reads and a
 * search for " hook_" in each: the file is some 200,000 lines, and a read
 * per 1 KiB line buffer, each line looked at, took over 0.5 s under TCG.
 */
bool find_ksyms(struct jr2_tracer *t)
{
	static char buf[1 << 18];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (t->ksyms_read)
		return false;
	t->ksyms_read = true;
	/* What kallsyms says replaces a presumed name. */
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		if (t->points[i].ksym_presumed)
			t->points[i].ksym[0] = '\0';
		t->points[i].ksym_presumed = false;
	}
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	t->kernel.kallsyms = true;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		char *p = buf, *end, *hit;

		len += n;
		buf[len] = '\0';
		end = memrchr(buf, '\n', len);
		if (!end) {
			len = 0; /* a line longer than the buffer: not ours */
			continue;
		}
		*end = '\0';
		while ((hit = strstr(p, " hook_"))) {
			char *start = memrchr(p, '\n', hit - p);
			char *stop = strchr(hit, '\n');

			start = start ? start + 1 : p;
			if (stop)
				*stop = '\0';
			match_ksym(t, start);
			if (!stop)
				break;
			p = stop + 1;
		}
		/* The partial last line goes first in the next read. */
		len = buf + len - (end + 1);
		memmove(buf, end + 1, len);
	}
	close(fd);
	return true;
}
