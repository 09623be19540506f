// SPDX-License-Identifier: GPL-2.0-only
#include "attach.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "denials.skel.h"
#include "format.h"
#include "probe.h"

/* libbpf's messages: kept for the failing program's name, or printed. */
static struct {
	bool verbose;
	struct timespec start; /* of jr2_tracer_open, for the time stamps */
	char failed_prog[64];
	char last[1024];
} libbpf_log;

/* Seconds since jr2_tracer_open: --verbose shows where the time goes. */
static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - libbpf_log.start.tv_sec) +
	       (double)(now.tv_nsec - libbpf_log.start.tv_nsec) / 1e9;
}

static void verbose_step(const char *step)
{
	if (libbpf_log.verbose)
		fprintf(stderr, "jr2-trace: %.3f s: %s\n", elapsed(), step);
}

void jr2_tracer_step(const char *step)
{
	verbose_step(step);
}

/* find_ksyms() once, with its step when it read the file. */
static void read_ksyms(struct jr2_tracer *t)
{
	if (find_ksyms(t))
		verbose_step("kallsyms read");
}

static int on_libbpf_print(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	char line[1024];
	char name[64];
	va_list whole;

	/* A verifier log comes as one message: shown whole, kept cut. */
	va_copy(whole, ap);
	if (libbpf_log.verbose) {
		fprintf(stderr, "%.3f s: ", elapsed());
		vfprintf(stderr, fmt, whole);
	}
	va_end(whole);
	vsnprintf(line, sizeof(line), fmt, ap);
	if (level != LIBBPF_WARN)
		return 0;
	snprintf(libbpf_log.last, sizeof(libbpf_log.last), "%s", line);
	libbpf_log.last[strcspn(libbpf_log.last, "\n")] = '\0';
	if (sscanf(line, "libbpf: prog '%63[^']'", name) == 1 &&
	    libbpf_log.failed_prog[0] == '\0')
		strcpy(libbpf_log.failed_prog, name);
	return 0;
}

static void note(char *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(char *buf, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len && len < JR2_NOTE_LEN - 2) {
		strcpy(buf + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + len, JR2_NOTE_LEN - len, fmt, ap);
	va_end(ap);
}

/*
 * The symbol a kprobe on the hook attaches to.  Without kallsyms read, the
 * hook's own name is presumed (a kprobe resolves it in the kernel, cheaply;
 * attach() reads kallsyms for a clone such as hook_x.isra.0 when it fails),
 * unless kprobe.multi already found no function of that name.
 */
static bool kprobe_sym(struct jr2_tracer *t, int i)
{
	struct jr2_point_state *s = &t->points[i];

	if (s->ksym[0])
		return true;
	if (!t->ksyms_read && !s->multi_esrch) {
		snprintf(s->ksym, sizeof(s->ksym), "%s", jr2_points[i].hook);
		s->ksym_presumed = true;
		return true;
	}
	read_ksyms(t);
	return s->ksym[0] != '\0';
}

/* Landlock has the hook: BTF or kallsyms names it. */
static bool hook_exists(struct jr2_tracer *t, int i)
{
	if (t->points[i].hook_btf)
		return true;
	read_ksyms(t);
	return t->points[i].ksym[0] != '\0';
}

/* The best way to see a point's denials that is left after `failed`. */
static enum jr2_how next_way(struct jr2_tracer *t, int i, enum jr2_how failed,
			     const struct btf *btf)
{
	struct jr2_kernel *k = &t->kernel;
	const struct jr2_point_state *s = &t->points[i];

	/* kprobe.multi is a kprobe: --avoid kprobe avoids it too. */
	if (failed < JR2_HOW_MULTI && !t->multi_errno &&
	    (s->hook_btf || s->security_btf) &&
	    !(t->avoid & (1U << JR2_HOW_MULTI | 1U << JR2_HOW_KPROBE)))
		return JR2_HOW_MULTI;
	if (failed < JR2_HOW_FEXIT && s->hook_btf &&
	    !(t->avoid & (1U << JR2_HOW_FEXIT)) && tracing_works(k, btf))
		return JR2_HOW_FEXIT;
	if (failed < JR2_HOW_KPROBE && k->kprobes_errno == 0 &&
	    !(t->avoid & (1U << JR2_HOW_KPROBE)) && kprobe_sym(t, i))
		return JR2_HOW_KPROBE;
	/* Without the hook Landlock cannot deny here at all. */
	if (failed < JR2_HOW_SECURITY && s->security_btf && hook_exists(t, i) &&
	    tracing_works(k, btf))
		return JR2_HOW_SECURITY;
	return JR2_HOW_NONE;
}

static void note_why_not(struct jr2_tracer *t, int i);

static void plan_point(struct jr2_tracer *t, int i, const struct btf *btf)
{
	const struct jr2_point_info *p = &jr2_points[i];
	struct jr2_point_state *s = &t->points[i];

	if (t->points_asked && !(t->points_asked & (1ULL << i))) {
		note(s->note, "not asked (--points)");
		return;
	}
	/*
	 * No LSM hook, no Landlock hook: the security_* entry point is in BTF
	 * wherever the LSM hook exists (kallsyms is not read for this).
	 */
	if (!s->hook_btf && !s->security_btf) {
		note(s->note, "%s: not in this kernel (nor %s)", p->hook,
		     p->security);
		return;
	}
	s->how = next_way(t, i, JR2_HOW_NONE, btf);
	if (!s->hook_btf && s->how == JR2_HOW_MULTI)
		note(s->note, "fexit: %s not in BTF", p->hook);
	/* A kprobe by a presumed name: attach() tells whether it is there. */
	if (!s->hook_btf && s->how == JR2_HOW_NONE && !hook_exists(t, i)) {
		note(s->note, "%s: not in this kernel", p->hook);
		return;
	}
	note_why_not(t, i);
}

/* Why the point has no better way than the one it got. */
static void note_why_not(struct jr2_tracer *t, int i)
{
	const struct jr2_kernel *k = &t->kernel;
	const struct jr2_point_info *p = &jr2_points[i];
	struct jr2_point_state *s = &t->points[i];

	if (s->how != JR2_HOW_MULTI &&
	    (t->avoid & (1U << JR2_HOW_MULTI | 1U << JR2_HOW_KPROBE)))
		note(s->note, "kprobe.multi: avoided (--avoid)");
	else if (s->how != JR2_HOW_MULTI && t->multi_probed)
		note(s->note, "kprobe.multi: refused (%s)",
		     strerrorname_np(t->multi_errno));
	if (s->how == JR2_HOW_NONE || s->how > JR2_HOW_FEXIT) {
		if (t->avoid & (1U << JR2_HOW_FEXIT))
			note(s->note, "fexit: avoided (--avoid)");
		else if (k->tracing_errno)
			note(s->note, "fexit: tracing programs refused (%s)",
			     strerrorname_np(k->tracing_errno));
		else
			note(s->note, "fexit: %s not in BTF", p->hook);
	}
	if (s->how == JR2_HOW_NONE || s->how > JR2_HOW_KPROBE)
		note(s->note, "kprobe: %s",
		     t->avoid & (1U << JR2_HOW_KPROBE)
			 ? "avoided (--avoid)"
			 : (k->kprobes_errno ? "no kprobe PMU in this kernel"
					     : "no symbol in kallsyms"));
	if (s->how == JR2_HOW_SECURITY)
		note(s->note, "Landlock named only where landlock_log_denial "
			      "is traced");
}

/*
 * The points landlock_log_denial tells whole (JR2_DENIAL_POINTS) lose their
 * hook programs where it is traced: an allowed open then runs none (the
 * tracer's cost on every open).  Where the shared kprobe.multi link would
 * carry landlock_log_denial alone, fentry serves it, or nothing changes.
 */
static void use_log_denial(struct jr2_tracer *t, const struct btf *btf)
{
	bool multi_left = false;

	if (!t->log_denial || (t->avoid & (1U << JR2_HOW_DENIAL)))
		return;
	for (int i = 0; i < JR2_POINT_COUNT; i++)
		if (!(JR2_DENIAL_POINTS & (1ULL << i)) &&
		    t->points[i].how == JR2_HOW_MULTI)
			multi_left = true;
	if (t->log_denial_multi && !multi_left) {
		if (!tracing_works(&t->kernel, btf))
			return;
		t->log_denial_multi = false;
	}
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		struct jr2_point_state *s = &t->points[i];

		if (!(JR2_DENIAL_POINTS & (1ULL << i)) ||
		    s->how == JR2_HOW_NONE)
			continue;
		s->how = JR2_HOW_DENIAL;
		s->note[0] = '\0';
		note(s->note, "no program on %s: landlock_log_denial tells",
		     jr2_points[i].hook);
	}
}

/* landlock_log_denial is not traced after all: the hooks' ways again. */
static void drop_denial_points(struct jr2_tracer *t, const struct btf *btf)
{
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		struct jr2_point_state *s = &t->points[i];

		if (s->how != JR2_HOW_DENIAL)
			continue;
		s->note[0] = '\0';
		note(s->note, "landlock_log_denial: not traced");
		s->how = next_way(t, i, JR2_HOW_NONE, btf);
		note_why_not(t, i);
	}
}

static bool has_denial_points(const struct jr2_tracer *t)
{
	for (int i = 0; i < JR2_POINT_COUNT; i++)
		if (t->points[i].how == JR2_HOW_DENIAL)
			return true;
	return false;
}

static struct bpf_program *program(struct denials_bpf *skel, const char *prefix,
				   int i)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%s", prefix, jr2_points[i].id);
	return bpf_object__find_program_by_name(skel->obj, name);
}

static void set_autoload(struct denials_bpf *skel, const struct jr2_tracer *t,
			 __u32 root_tgid)
{
	struct bpf_program *prog;
	bool multi = false;

	bpf_object__for_each_program (prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		switch (t->points[i].how) {
		case JR2_HOW_NONE:
		case JR2_HOW_DENIAL:
			break;
		case JR2_HOW_MULTI:
			multi = true;
			break;
		case JR2_HOW_FEXIT:
			prog = program(skel, "fx", i);
			bpf_program__set_autoload(prog, true);
			bpf_program__set_attach_target(prog, 0,
						       jr2_points[i].hook);
			break;
		case JR2_HOW_KPROBE:
			bpf_program__set_autoload(program(skel, "kp", i), true);
			bpf_program__set_autoload(program(skel, "kr", i), true);
			break;
		case JR2_HOW_SECURITY:
			prog = program(skel, "sx", i);
			bpf_program__set_autoload(prog, true);
			bpf_program__set_attach_target(prog, 0,
						       jr2_points[i].security);
			break;
		}
	}
	bpf_program__set_autoload(skel->progs.km_entry, multi);
	bpf_program__set_autoload(skel->progs.km_return, multi);
	bpf_program__set_autoload(skel->progs.on_log_denial,
				  t->log_denial && !t->log_denial_multi);
	bpf_program__set_autoload(skel->progs.on_fork,
				  root_tgid && t->fork_tracking);
	bpf_program__set_autoload(skel->progs.on_exit,
				  root_tgid && t->fork_tracking);
}

/* kprobe.multi failed (to load or to attach): each point's next way. */
static void fall_back_from_multi(struct jr2_tracer *t, const char *what,
				 int err, const struct btf *btf)
{
	t->multi_errno = err;
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		struct jr2_point_state *s = &t->points[i];

		if (s->how != JR2_HOW_MULTI)
			continue;
		s->note[0] = '\0'; /* the plan's notes, said again below */
		note(s->note, "kprobe.multi: %s (%s)", what,
		     strerrorname_np(err));
		s->how = next_way(t, i, JR2_HOW_MULTI, btf);
		note_why_not(t, i);
	}
	if (t->log_denial_multi) {
		t->log_denial_multi = false;
		t->log_denial = tracing_works(&t->kernel, btf);
		note(t->log_denial_note, "kprobe.multi: %s (%s)", what,
		     strerrorname_np(err));
	}
	if (!t->log_denial)
		drop_denial_points(t, btf);
}

/* A program failed to load: fall back for what it served. */
static bool give_up_program(struct jr2_tracer *t, const char *name, int err,
			    const struct btf *btf)
{
	static const struct {
		const char *prefix;
		enum jr2_how how;
	} kinds[] = {{"fx_", JR2_HOW_FEXIT},
		     {"kp_", JR2_HOW_KPROBE},
		     {"kr_", JR2_HOW_KPROBE},
		     {"sx_", JR2_HOW_SECURITY}};

	if (!strcmp(name, "km_entry") || !strcmp(name, "km_return")) {
		fall_back_from_multi(t, "failed to load", err, btf);
		return true;
	}
	if (!strcmp(name, "on_log_denial")) {
		t->log_denial = false;
		note(t->log_denial_note, "failed to load: %s",
		     strerrorname_np(err));
		drop_denial_points(t, btf);
		return true;
	}
	if (!strcmp(name, "on_fork") || !strcmp(name, "on_exit")) {
		t->fork_tracking = false;
		note(t->fork_note,
		     "%s failed to load (%s): parents walked instead", name,
		     strerrorname_np(err));
		return true;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (strncmp(name, kinds[k].prefix, 3))
			continue;
		for (int i = 0; i < JR2_POINT_COUNT; i++) {
			struct jr2_point_state *s = &t->points[i];

			if (strcmp(name + 3, jr2_points[i].id) ||
			    s->how != kinds[k].how)
				continue;
			note(s->note, "%s failed to load (%s)", name,
			     strerrorname_np(err));
			s->how = next_way(t, i, s->how, btf);
			return true;
		}
	}
	return false;
}

static int load(struct jr2_tracer *t, __u32 root_tgid, const struct btf *btf,
		char *err, size_t size)
{
	/* Each failed load takes one program out, so this ends. */
	for (int attempt = 0; attempt <= 4 * JR2_POINT_COUNT + 3; attempt++) {
		int ret;

		t->skel = denials_bpf__open();
		if (!t->skel) {
			ret = -errno;
			snprintf(err, size, "opening the BPF object: %s",
				 strerror(-ret));
			return ret;
		}
		verbose_step("BPF object opened");
		t->skel->rodata->root_tgid = root_tgid;
		for (int i = 0; i < JR2_POINT_COUNT; i++)
			if (t->points[i].how == JR2_HOW_DENIAL)
				t->skel->rodata->denial_points |= 1ULL << i;
		set_autoload(t->skel, t, root_tgid);
		libbpf_log.failed_prog[0] = '\0';
		ret = denials_bpf__load(t->skel);
		if (ret == 0)
			return 0;
		denials_bpf__destroy(t->skel);
		t->skel = NULL;
		if (!libbpf_log.failed_prog[0] ||
		    !give_up_program(t, libbpf_log.failed_prog, -ret, btf)) {
			snprintf(err, size, "loading the BPF programs: %s (%s)",
				 strerror(-ret), libbpf_log.last);
			return ret;
		}
	}
	snprintf(err, size, "loading the BPF programs: no program would load");
	return -ENOEXEC;
}

static bool attach_one(struct jr2_tracer *t, struct bpf_program *prog,
		       const char *ksym, bool retprobe, char *why)
{
	struct bpf_link *link;

	link = ksym ? bpf_program__attach_kprobe(prog, retprobe, ksym)
		    : bpf_program__attach(prog);
	if (!link) {
		note(why, "%s failed to attach (%s)", bpf_program__name(prog),
		     strerrorname_np(errno));
		return false;
	}
	t->links[t->n_links++] = link;
	return true;
}

/* The return half, then the entry, on sym (an entry alone is useless);
   none kept when either fails. */
static bool attach_pair(struct jr2_tracer *t, struct bpf_program *kr,
			struct bpf_program *kp, const char *sym, char *why)
{
	int links = t->n_links;

	if (attach_one(t, kr, sym, true, why) &&
	    attach_one(t, kp, sym, false, why))
		return true;
	while (t->n_links > links)
		bpf_link__destroy(t->links[--t->n_links]);
	return false;
}

/* A kprobe pair on the hook: by a presumed name, then by kallsyms' name
 * where it differs. */
static bool attach_kprobe(struct jr2_tracer *t, int i)
{
	struct jr2_point_state *s = &t->points[i];
	struct bpf_program *kr = program(t->skel, "kr", i);
	struct bpf_program *kp = program(t->skel, "kp", i);
	char why[JR2_NOTE_LEN] = "";

	/* kallsyms, read since the plan, has no such symbol. */
	if (!s->ksym[0]) {
		note(s->note, "%s: not in this kernel (kallsyms)",
		     jr2_points[i].hook);
		return false;
	}
	if (attach_pair(t, kr, kp, s->ksym, why))
		return true;
	if (s->ksym_presumed) {
		verbose_step("a kprobe by the hook's name failed: kallsyms");
		read_ksyms(t);
		if (!s->ksym[0]) {
			note(s->note, "%s: not in this kernel (kallsyms)",
			     jr2_points[i].hook);
			return false;
		}
		if (strcmp(s->ksym, jr2_points[i].hook)) {
			why[0] = '\0';
			if (attach_pair(t, kr, kp, s->ksym, why))
				return true;
		}
	}
	note(s->note, "%s", why);
	return false;
}

/* A kretprobe.multi then a kprobe.multi link on syms; -errno, none kept. */
static int attach_multi_pair(struct jr2_tracer *t, const char **syms,
			     const __u64 *cookies, size_t n, size_t entries)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms,
		    .cookies = cookies, .cnt = n, .retprobe = true);
	struct bpf_link *ret, *entry;
	int err;

	ret = bpf_program__attach_kprobe_multi_opts(t->skel->progs.km_return,
						    NULL, &opts);
	if (!ret)
		return -errno;
	opts.cnt = entries;
	opts.retprobe = false;
	entry = bpf_program__attach_kprobe_multi_opts(t->skel->progs.km_entry,
						      NULL, &opts);
	if (!entry) {
		err = -errno;
		bpf_link__destroy(ret);
		return err;
	}
	t->links[t->n_links++] = ret;
	t->links[t->n_links++] = entry;
	return 0;
}

/*
 * A hook BTF lacks (its security_* entry point has it) gets a kprobe.multi
 * pair of its own, tried first: the kernel resolves its name, and a failure
 * there is its alone.  Then one kretprobe.multi link for every MULTI point
 * whose hook BTF has (the return half first: an entry alone is useless),
 * then one kprobe.multi link for their entries and landlock_log_denial;
 * each cookie names its point.  A point whose next way needs no program
 * (none is left: the hook is not in this kernel) costs no new load.
 * Returns 0; 1 when a point must fall back to programs not loaded (a new
 * load); or -errno when the shared link failed.
 */
static int attach_multi(struct jr2_tracer *t, const struct btf *btf)
{
	const char *syms[JR2_POINT_COUNT + 1];
	__u64 cookies[JR2_POINT_COUNT + 1];
	size_t n = 0, entries;
	int ret = 0, err;

	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		struct jr2_point_state *s = &t->points[i];
		const char *sym = jr2_points[i].hook;
		__u64 cookie = i;

		if (s->how != JR2_HOW_MULTI || s->hook_btf)
			continue;
		err = attach_multi_pair(t, &sym, &cookie, 1, 1);
		verbose_step(
		    err ? "kprobe.multi pair of a hook outside BTF: failed"
			: "kprobe.multi pair of a hook outside BTF: attached");
		if (!err)
			continue;
		/* Not its name: kprobe.multi itself; the shared link fails too.
		 */
		if (err != -ESRCH && err != -ENOENT)
			return err;
		s->note[0] = '\0';
		s->multi_esrch = err == -ESRCH;
		note(s->note, "kprobe.multi on %s (not in BTF): %s", sym,
		     strerrorname_np(-err));
		s->how = next_way(t, i, JR2_HOW_MULTI, btf);
		note_why_not(t, i);
		if (s->how != JR2_HOW_NONE)
			ret = 1;
	}
	if (ret)
		return ret;
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		if (t->points[i].how != JR2_HOW_MULTI || !t->points[i].hook_btf)
			continue;
		syms[n] = jr2_points[i].hook;
		cookies[n++] = i;
	}
	entries = n;
	if (t->log_denial_multi && !n) {
		/* Rare: no hook in BTF; the pairs above have one sym each. */
		t->log_denial_multi = t->log_denial = false;
		note(t->log_denial_note, "no hook in BTF to share its link");
	}
	if (t->log_denial_multi) {
		syms[entries] = "landlock_log_denial";
		cookies[entries++] = JR2_COOKIE_LOG_DENIAL;
	}
	if (entries) {
		err = attach_multi_pair(t, syms, cookies, n, entries);
		verbose_step(err ? "the shared kprobe.multi pair: refused"
				 : "the shared kprobe.multi pair: attached");
		return err;
	}
	return 0;
}

static void detach(struct jr2_tracer *t)
{
	for (int i = 0; i < t->n_links; i++)
		bpf_link__destroy(t->links[i]);
	t->n_links = 0;
}

/*
 * Returns 0; or 1 (a point must fall back: load again) or -errno (the
 * kprobe.multi link failed), with no link kept.
 */
static int attach(struct jr2_tracer *t, const struct btf *btf)
{
	struct denials_bpf *skel = t->skel;
	int ret = attach_multi(t, btf);

	if (ret) {
		detach(t);
		return ret;
	}
	if (t->log_denial && !t->log_denial_multi &&
	    !attach_one(t, skel->progs.on_log_denial, NULL, false,
			t->log_denial_note)) {
		t->log_denial = false;
		if (has_denial_points(t)) {
			drop_denial_points(t, btf);
			detach(t);
			return 1;
		}
	}
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		struct jr2_point_state *s = &t->points[i];
		bool ok = false;

		switch (s->how) {
		case JR2_HOW_NONE:
			continue;
		case JR2_HOW_MULTI:
			ok = true; /* by attach_multi() */
			break;
		case JR2_HOW_DENIAL:
			ok = true; /* by landlock_log_denial's program */
			break;
		case JR2_HOW_FEXIT:
			ok = attach_one(t, program(skel, "fx", i), NULL, false,
					s->note);
			break;
		case JR2_HOW_KPROBE:
			ok = attach_kprobe(t, i);
			break;
		case JR2_HOW_SECURITY:
			ok = attach_one(t, program(skel, "sx", i), NULL, false,
					s->note);
			break;
		}
		if (!ok) {
			s->how = JR2_HOW_NONE;
			continue;
		}
		t->traced_points++;
		if (s->how != JR2_HOW_SECURITY)
			t->landlock_points++;
	}
	if (bpf_program__autoload(skel->progs.on_fork) &&
	    (!attach_one(t, skel->progs.on_fork, NULL, false, t->fork_note) ||
	     !attach_one(t, skel->progs.on_exit, NULL, false, t->fork_note)))
		t->fork_tracking = false;
	return 0;
}

int jr2_tracer_open(struct jr2_tracer *t, const struct jr2_trace_opts *opts,
		    char *err, size_t size)
{
	struct btf *btf = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	t->avoid = opts->avoid;
	t->points_asked = opts->points;
	libbpf_log.verbose = opts->verbose;
	clock_gettime(CLOCK_MONOTONIC, &libbpf_log.start);
	libbpf_set_print(on_libbpf_print);
	probe_kernel(&t->kernel, &btf);
	scan_btf(t, btf);
	if (!(t->avoid & (1U << JR2_HOW_MULTI | 1U << JR2_HOW_KPROBE)) &&
	    !t->kernel.btf_errno) {
		t->multi_errno = probe_kprobe_multi();
		t->multi_probed = t->multi_errno != 0;
	}
	if (opts->probe_all)
		tracing_works(&t->kernel, btf);
	verbose_step("kernel probed (Landlock, BTF)");
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		plan_point(t, i, btf);
		t->log_denial_multi |= t->points[i].how == JR2_HOW_MULTI;
	}
	verbose_step(t->ksyms_read ? "points planned (kallsyms read)"
				   : "points planned (BTF only)");
	t->log_denial_multi &= t->log_denial_btf;
	t->log_denial = t->log_denial_btf &&
			(t->log_denial_multi || tracing_works(&t->kernel, btf));
	if (!t->log_denial)
		note(t->log_denial_note, "%s",
		     !t->log_denial_btf ? "not in this kernel (6.15+)"
					: "tracing programs refused");
	use_log_denial(t, btf);
	t->fork_tracking = true;
	if (t->kernel.btf_errno) {
		/* CO-RE needs the kernel's BTF: nothing can load. */
		snprintf(
		    err, size,
		    "no kernel BTF (/sys/kernel/btf/vmlinux: %s): the "
		    "tracer needs a kernel built with CONFIG_DEBUG_INFO_BTF=y",
		    strerror(t->kernel.btf_errno));
		ret = -t->kernel.btf_errno;
		goto out;
	}
	for (;;) {
		ret = load(t, opts->root_tgid, btf, err, size);
		verbose_step("BPF programs loaded");
		if (ret)
			break;
		ret = attach(t, btf);
		if (!ret)
			break;
		denials_bpf__destroy(t->skel);
		t->skel = NULL;
		if (ret == 1) {
			verbose_step("a point falls back to programs not "
				     "loaded: loading again");
			continue;
		}
		/* No kprobe.multi here (no fprobe): the ways per function. */
		fall_back_from_multi(t, "failed to attach", -ret, btf);
		verbose_step("kprobe.multi refused: loading per function");
	}
	verbose_step("BPF programs attached");
	/* The refusal names the tracing programs' answer. */
	if (ret == 0 && t->traced_points == 0)
		tracing_works(&t->kernel, btf);
out:
	btf__free(btf);
	return ret;
}

void jr2_tracer_close(struct jr2_tracer *t)
{
	detach(t);
	denials_bpf__destroy(t->skel);
	t->skel = NULL;
	verbose_step("BPF programs detached and unloaded");
}
