// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace: the eBPF tracer (jr2-trace) against denials this suite makes.
 *
 * A test runs `jr2-trace --output FILE -- <this binary>` with the operations
 * to do in JR2_TRACE_DENIER: this binary's constructor then confines itself
 * (jr2_confine_self with jr2's layout on the fixture, or a plain Landlock
 * ruleset on ABI 1-2, which the runtime refuses), does the operations and
 * prints "OP ARG ERRNO" for each.  The test asserts each errno (from the ABI
 * table) and that the trace holds exactly the denials, each attributed to
 * Landlock with its target.  Where jr2-trace --probe says the kernel cannot
 * trace, those tests skip with its reason; T3 checks that reason.
 *
 * Promises: T1 T2 T3
 */
#include <ctype.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>

#include "common.h"
#include "ruleset.h"

#define DENIER_ENV "JR2_TRACE_DENIER"
#define TRACE_FILE FX_ROOT "/trace.jsonl"
#define AUDIT_FILE FX_ROOT "/audit.jsonl"
#define OUT_SIZE   65536
#define MAX_OPS	   16
#define MAX_GROUPS 8

/* ---- the traced side: runs before main() when DENIER_ENV is set ---- */

/*
 * ABI 1-2: a plain ruleset; everything handled, full rights on work/ and
 * other/, read on repos/, nothing elsewhere.
 */
static int denier_plain_ruleset(const struct jr2_abi *abi)
{
	uint64_t handled = jr2_abi_fs_rights(abi->in_force);
	uint64_t read = JR2_ACCESS_FS_READ_FILE | JR2_ACCESS_FS_READ_DIR |
			JR2_ACCESS_FS_EXECUTE;
	int ruleset =
	    jr2_ruleset_create(handled, jr2_abi_scopes(abi->in_force));
	const struct {
		const char *path;
		uint64_t access;
	} rules[] = {{FX_WORK, handled}, {FX_OTHER, handled}, {FX_REPOS, read}};
	int ret = ruleset;

	if (ruleset < 0)
		return ruleset;
	for (size_t i = 0; i < 3 && ret >= 0; i++) {
		int fd = open(rules[i].path, O_PATH | O_CLOEXEC);

		ret = fd < 0
			  ? -errno
			  : jr2_ruleset_add_path(ruleset, fd, rules[i].access);
		if (fd >= 0)
			close(fd);
	}
	if (ret >= 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		ret = -errno;
	if (ret >= 0)
		ret = jr2_ruleset_restrict(ruleset, 0);
	close(ruleset);
	return ret < 0 ? ret : 0;
}

static int denier_confine(void)
{
	struct jr2_policy policy;
	struct jr2_err err = {0};
	struct jr2_abi abi;
	int cap = jr2_abi_cap(NULL, err.msg, sizeof(err.msg));
	int ret;

	jr2_abi_probe(&abi, cap < 0 ? 0 : cap);
	if (abi.in_force > 0 && abi.in_force < JR2_ABI_REQUIRED)
		return denier_plain_ruleset(&abi);
	jr2_policy_init(&policy);
	ret = jr2_policy_add_protected(&policy, FX_PROTECTED, &err);
	if (!ret)
		ret = jr2_policy_add_read_only(&policy, FX_REPOS, &err);
	/* Tracing is on: denials after an exec must be logged too. */
	if (!ret)
		ret = jr2_confine_self(&policy, &abi,
				       JR2_RESTRICT_SELF_LOG_NEW_EXEC_ON, &err);
	if (ret)
		fprintf(stderr, "denier: %s\n", err.msg);
	jr2_policy_free(&policy);
	return ret;
}

/* An ioctl the device itself answers (ENOTTY) unless Landlock denies it. */
static int denier_ioctl(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n, err;

	if (fd < 0)
		return errno;
	err = ioctl(fd, FIONREAD, &n) ? errno : 0;
	close(fd);
	return err;
}

/* A grandchild of the tracer: it must be followed through fork(). */
static int denier_fork_open(const char *path)
{
	int status;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return errno;
	if (child == 0) {
		printf("child pid %d\n", getpid());
		fflush(stdout);
		_exit(test_open(path, O_RDONLY));
	}
	if (waitpid(child, &status, 0) < 0)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int denier_op(const char *op, const char *arg)
{
	if (!strcmp(op, "open-read"))
		return test_open(arg, O_RDONLY);
	if (!strcmp(op, "open-write"))
		return test_open(arg, O_WRONLY);
	if (!strcmp(op, "mkdir"))
		return test_mkdir(arg);
	if (!strcmp(op, "unlink"))
		return test_unlink(arg);
	if (!strcmp(op, "truncate"))
		return test_truncate(arg, 0);
	if (!strcmp(op, "symlink"))
		return test_symlink("target", arg);
	if (!strcmp(op, "kill-pid"))
		return kill(atoi(arg), 0) ? errno : 0;
	if (!strcmp(op, "connect-unix"))
		return test_connect_unix(arg);
	if (!strcmp(op, "fork-open"))
		return denier_fork_open(arg);
	if (!strcmp(op, "ioctl"))
		return denier_ioctl(arg);
	return EINVAL;
}

/* "op arg;op arg;..." -> one "op arg errno" line each on stdout. */
static void denier_ops(char *ops)
{
	char *save = NULL;

	for (char *item = strtok_r(ops, ";", &save); item;
	     item = strtok_r(NULL, ";", &save)) {
		char op[32], arg[100]; /* fits a sun_path */

		if (sscanf(item, "%31s %99s", op, arg) != 2)
			_exit(2);
		printf("%s %s %d\n", op, arg, denier_op(op, arg));
	}
	fflush(stdout);
}

/*
 * "ops|ops|...": several groups, each run by a child of its own, one after
 * the other, which says "group pid PID" first: the test tells the groups'
 * denials apart by their tgid.  One group runs in the denier itself.
 */
static void __attribute__((constructor)) denier(void)
{
	const char *ops = getenv(DENIER_ENV);
	char list[2048], *save = NULL;

	if (!ops)
		return;
	snprintf(list, sizeof(list), "%s", ops);
	if (denier_confine())
		_exit(125);
	printf("denier pid %d ppid %d\n", getpid(), getppid());
	if (!strchr(list, '|')) {
		denier_ops(list);
		_exit(0);
	}
	for (char *group = strtok_r(list, "|", &save); group;
	     group = strtok_r(NULL, "|", &save)) {
		int status;
		pid_t child;

		fflush(stdout);
		child = fork();
		if (child < 0)
			_exit(3);
		if (child == 0) {
			printf("group pid %d\n", getpid());
			denier_ops(group);
			_exit(0);
		}
		if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			_exit(3);
	}
	_exit(0);
}

/* ---- the test side ---- */

/* A group of a run with several ("ops|ops"): its child and its denials. */
struct traced_group {
	pid_t pid;
	pid_t child; /* of a fork-open op */
	int ops;
	int errnos[MAX_OPS];
	int events; /* trace lines of tgid pid or child */
};

struct traced_run {
	char out[OUT_SIZE]; /* the denier's lines and jr2-trace's stderr */
	char trace[OUT_SIZE]; /* the JSON lines */
	char audit[OUT_SIZE]; /* jr2-trace --audit's lines, when asked */
	int status;
	int errnos[MAX_OPS]; /* per op, as the denier saw them */
	pid_t pid, ppid;
	pid_t child; /* of a fork-open op */
	int events;
	int groups;
	struct traced_group group[MAX_GROUPS];
};

/*
 * `jr2-trace --probe`'s answer, asked once per run of this binary: each
 * probe loads the tracer's BPF programs, which takes seconds under TCG.
 * The harness forks every test from main(), so a shared mapping made before
 * main() carries the first test's answer to the later ones.
 */
struct tracer_probe {
	bool done;
	int status;
	char out[OUT_SIZE];
};

static struct tracer_probe probe_private, *probe_cache = &probe_private;

static void __attribute__((constructor)) map_probe_cache(void)
{
	void *shared;

	if (getenv(DENIER_ENV))
		return;
	shared = mmap(NULL, sizeof(*probe_cache), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* Without it each test probes for itself: slower, still right. */
	if (shared != MAP_FAILED)
		probe_cache = shared;
}

/* `jr2-trace --probe`: its output; its exit status and verdict line. */
static const char *probe_tracer(struct __test_metadata *_metadata, char *why,
				size_t size, int *status)
{
	const char *verdict;

	if (!probe_cache->done) {
		char tool[PATH_MAX];
		char *argv[] = {tool, "--probe", NULL};

		FX_FIND_TOOL("jr2-trace", tool);
		probe_cache->status = -1;
		ASSERT_EQ(0, fx_run(argv, probe_cache->out,
				    sizeof(probe_cache->out),
				    &probe_cache->status));
		probe_cache->done = true;
	}
	*status = probe_cache->status;
	verdict = strstr(probe_cache->out, "verdict: ");
	ASSERT_NE(NULL, verdict)
	{
		TH_LOG("jr2-trace --probe printed no verdict:\n%s",
		       probe_cache->out);
	}
	snprintf(why, size, "jr2-trace --probe: %.*s",
		 (int)strcspn(verdict, "\n"), verdict + strlen("verdict: "));
	return probe_cache->out;
}

/* Skips with the tracer's own reason where this kernel cannot trace. */
#define REQUIRE_TRACING()                                              \
	do {                                                           \
		char _why[600];                                        \
		int _status;                                           \
		probe_tracer(_metadata, _why, sizeof(_why), &_status); \
		if (_status != 0)                                      \
			SKIP(return, "%s", _why);                      \
	} while (0)

static void read_file(struct __test_metadata *_metadata, const char *path,
		      char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ASSERT_LE(0, fd)
	{
		TH_LOG("no trace file '%s': %s", path, strerror(errno));
	}
	n = read(fd, buf, size - 1);
	ASSERT_LE(0, n);
	buf[n] = '\0';
	close(fd);
}

/* The tgid of a trace line; 0 when it names none. */
static pid_t line_tgid(const char *line)
{
	const char *tgid = strstr(line, "\"tgid\":");

	return tgid ? atoi(tgid + strlen("\"tgid\":")) : 0;
}

/* The "group pid" lines, the ops after each, and each group's events. */
static void parse_groups(struct traced_run *run)
{
	struct traced_group *g = NULL;

	run->groups = 0;
	for (const char *line = run->out; line && *line;) {
		char op[32], arg[256];
		int err;

		if (sscanf(line, "group pid %d", &err) == 1 &&
		    run->groups < MAX_GROUPS) {
			g = &run->group[run->groups++];
			memset(g, 0, sizeof(*g));
			g->pid = err;
		} else if (g && sscanf(line, "child pid %d", &err) == 1) {
			g->child = err;
		} else if (g && g->ops < MAX_OPS &&
			   sscanf(line, "%31s %255s %d", op, arg, &err) == 3 &&
			   strcmp(op, "jr2-trace:")) {
			g->errnos[g->ops++] = err;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	for (const char *line = run->trace; line && *line;) {
		pid_t tgid = line_tgid(line);

		for (int i = 0; i < run->groups; i++)
			if (tgid && (tgid == run->group[i].pid ||
				     tgid == run->group[i].child))
				run->group[i].events++;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
}

/*
 * Runs the ops (";"-separated "op arg") confined, under the tracer; with
 * `audit`, the tracer itself runs under `jr2-trace --audit`.
 */
static void run_traced_as(struct __test_metadata *_metadata, const char *ops,
			  bool audit, const char *avoid, struct traced_run *run)
{
	char tool[PATH_MAX], self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *line;
	int n = 0;

	ASSERT_LT(0, len);
	self[len] = '\0';
	FX_FIND_TOOL("jr2-trace", tool);
	ASSERT_EQ(0, setenv(DENIER_ENV, ops, 1));
	{
		char *traced[] = {tool, "--output", TRACE_FILE,
				  "--", self,	    NULL};
		/* The fallbacks load one point's programs, not all. */
		char *avoiding[] = {tool,	"--avoid",   (char *)avoid,
				    "--points", "file_open", "--output",
				    TRACE_FILE, "--",	     self,
				    NULL};
		char *audited[] = {tool, "--audit", "--output", AUDIT_FILE,
				   "--", tool,	    "--output", TRACE_FILE,
				   "--", self,	    NULL};
		char **argv = audit ? audited : avoid ? avoiding : traced;

		ASSERT_EQ(
		    0, fx_run(argv, run->out, sizeof(run->out), &run->status));
	}
	unsetenv(DENIER_ENV);
	ASSERT_EQ(0, run->status)
	{
		TH_LOG("jr2-trace -- denier: exit %d:\n%s", run->status,
		       run->out);
	}
	line = strstr(run->out, "denier pid ");
	ASSERT_NE(NULL, line);
	ASSERT_EQ(2,
		  sscanf(line, "denier pid %d ppid %d", &run->pid, &run->ppid));
	for (line = strchr(line, '\n'); line && n < MAX_OPS;
	     line = strchr(line + 1, '\n')) {
		char op[32], arg[256];

		if (sscanf(line + 1, "%31s %255s %d", op, arg,
			   &run->errnos[n]) == 3 &&
		    strstr(ops, op))
			n++;
	}
	line = strstr(run->out, "child pid ");
	run->child = line ? atoi(line + strlen("child pid ")) : 0;
	read_file(_metadata, TRACE_FILE, run->trace, sizeof(run->trace));
	run->events = 0;
	for (line = run->trace; (line = strchr(line, '\n')); line++)
		run->events++;
	if (audit)
		read_file(_metadata, AUDIT_FILE, run->audit,
			  sizeof(run->audit));
	parse_groups(run);
}

/*
 * The line of `lines` (JSON lines) that has every needle ("key":value
 * fragments), or NULL.
 * Copies it into buf for messages.
 */
static const char *find_line(const char *lines, const char *const needles[],
			     char *buf, size_t size)
{
	for (const char *line = lines; *line;) {
		size_t len = strcspn(line, "\n");
		bool all = true;

		snprintf(buf, size, "%.*s", (int)len, line);
		for (int i = 0; needles[i] && all; i++)
			all = strstr(buf, needles[i]) != NULL;
		if (all)
			return buf;
		line += len + (line[len] ? 1 : 0);
	}
	return NULL;
}

static const char *find_event(const struct traced_run *run,
			      const char *const needles[], char *buf,
			      size_t size)
{
	return find_line(run->trace, needles, buf, size);
}

/* Asserts one Landlock denial of `operation` on `target` with `err` by tgid. */
#define ASSERT_TRACED(run, tgid, operation, target, err)                       \
	do {                                                                   \
		char _op[64], _errno[32], _tgid[32], _line[1024];              \
		const char *_needles[] = {                                     \
		    _op, target, _errno, _tgid, "\"lsm\":\"landlock\"", NULL}; \
		snprintf(_op, sizeof(_op), "\"operation\":\"%s\"", operation); \
		snprintf(_errno, sizeof(_errno), "\"errno\":%d,", err);        \
		snprintf(_tgid, sizeof(_tgid), "\"tgid\":%d,", tgid);          \
		ASSERT_NE(NULL,                                                \
			  find_event(run, _needles, _line, sizeof(_line)))     \
		{                                                              \
			TH_LOG("no Landlock denial %s %s errno %d of tgid %d " \
			       "in the trace:\n%s",                            \
			       operation, target, err, tgid, (run)->trace);    \
		}                                                              \
	} while (0)

static const char *path_needle(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "\"path\":\"%s\"", path);
	return buf;
}

JR2_FIXTURE(trace);

/* The errno name (EPERM, ESRCH, ...) that `text` holds, or NULL. */
static const char *errno_named(const char *text)
{
	for (int err = 1; err < 4096; err++) {
		const char *name = strerrorname_np(err);
		const char *at = name ? strstr(text, name) : NULL;

		if (at && !isupper((unsigned char)at[strlen(name)]))
			return name;
	}
	return NULL;
}

/*
 * A point line of the probe ("point ID WAY NOTE") whose way is none though
 * its hook is there: a program for it failed to load or attach, and no note
 * says the hook is not in this kernel.  Returns its id in `id`.
 */
static bool probe_lists_lost_point(const char *out, char *id, size_t size)
{
	for (const char *line = strstr(out, "\npoint "); line;
	     line = strstr(line + 1, "\npoint ")) {
		char name[64], way[16], text[1024];

		snprintf(text, sizeof(text), "%.*s",
			 (int)strcspn(line + 1, "\n"), line + 1);
		if (sscanf(text, "point %63s %15s", name, way) != 2 ||
		    strcmp(way, "none") || strstr(text, "not in this kernel") ||
		    strstr(text, "not asked") ||
		    (!strstr(text, "failed to load") &&
		     !strstr(text, "failed to attach")))
			continue;
		snprintf(id, size, "%s", name);
		return true;
	}
	return false;
}

/*
 * The probe's verdict agrees with the kernel and names its reason; it says
 * "tracing works" only when every point whose hook this kernel has is
 * traced (a point whose programs the kernel refused is a denial unseen).
 */
TEST_F_TIMEOUT(trace, T3_probe_names_why, 120)
{
	char why[600], lost[64];
	const char *out;
	int status;

	out = probe_tracer(_metadata, why, sizeof(why), &status);

	TH_LOG("%s", why);
	if (self->fx.abi.kernel <= 0) {
		/* 5.10, or lsm= without landlock: it loads, and says so. */
		ASSERT_EQ(4, status);
		ASSERT_NE(NULL, strstr(why, "no Landlock to trace"));
		return;
	}
	ASSERT_TRUE(status == 0 || status == 3)
	{
		TH_LOG("jr2-trace --probe: exit %d", status);
	}
	if (probe_lists_lost_point(out, lost, sizeof(lost))) {
		/* Not traced though its hook is there: the verdict says so. */
		ASSERT_EQ(3, status)
		{
			TH_LOG("point %s is not traced, yet: %s\n%s", lost, why,
			       out);
		}
		ASSERT_NE(NULL, strstr(why, lost));
	}
	if (status == 0) {
		ASSERT_NE(NULL, strstr(why, "tracing works"));
		return;
	}
	/* It cannot: the reason must name what refused and the errno. */
	ASSERT_NE(NULL, strstr(why, "cannot trace"));
	ASSERT_NE(NULL, errno_named(why))
	{
		TH_LOG("the reason names no errno: %s", why);
	}
	/* No kernel BTF: the reason says so (5.15's vm config has none). */
	if (access("/sys/kernel/btf/vmlinux", F_OK))
		ASSERT_NE(NULL, strstr(why, "no kernel BTF"));
}

/*
 * The ways, each forced with --avoid: where landlock_log_denial is traced
 * (6.15+), the default sees an open's denial there alone, with no program
 * on hook_file_open; then fexit on the hook (where the kernel takes tracing
 * programs), a kprobe pair on the hook (where it has kprobes), then fexit on
 * security_file_open.  Each sees the denial; the last names Landlock only
 * where landlock_log_denial tells.  (The shared kprobe.multi link, the
 * default for the other hooks, serves the other tests.)
 */
TEST_F_TIMEOUT(trace, T3_fallback_ways_see_the_denial, 240)
{
	static const char *const avoid[] = {
	    NULL, "denial,multi", "denial,multi,fexit", "denial,fexit,kprobe"};
	static struct traced_run run;
	char why[600], path[256], line[1024], way[16];
	const char *out, *point;
	bool kprobes, tracing, in_btf, log_denial;
	int status;

	out = probe_tracer(_metadata, why, sizeof(why), &status);
	if (status != 0)
		SKIP(return, "%s", why);
	kprobes = strstr(out, "\nkprobes: yes\n") != NULL;
	tracing = strstr(out, "\ntracing programs: yes\n") != NULL;
	log_denial = strstr(out, "\nlandlock_log_denial: no") == NULL;
	/* fexit on the hook needs it in BTF (6.12's lacks hook_file_open). */
	point = strstr(out, "\npoint file_open ");
	ASSERT_NE(NULL, point);
	in_btf = !strstr(point, "not in BTF") ||
		 strstr(point, "not in BTF") > strchr(point + 1, '\n');
	/* Where landlock_log_denial is traced, opens are its alone. */
	ASSERT_EQ(1, sscanf(point, "\npoint file_open %15s", way));
	ASSERT_EQ(log_denial, !strcmp(way, "log_denial"))
	{
		TH_LOG("landlock_log_denial %s, yet file_open: %s",
		       log_denial ? "traced" : "not traced", way);
	}
	for (int i = 0; i < 4; i++) {
		bool fexit = i == 1 && tracing && in_btf;
		bool security = i > 0 && !fexit && (i == 3 || !kprobes);
		const char *needles[] = {
		    i == 0  ? "\"hook\":\"hook_file_open\","
			      "\"source\":\"log_denial\""
		    : fexit ? "\"hook\":\"hook_file_open\",\"source\":\"fexit\""
		    : security ? "\"hook\":\"security_file_open\","
				 "\"source\":\"security\""
			       : "\"hook\":\"hook_file_open\","
				 "\"source\":\"kretprobe\"",
		    path_needle(FX_SECRET, path, sizeof(path)), "\"errno\":13,",
		    security && self->fx.abi.kernel < 7
			? "\"lsm\":null"
			: "\"lsm\":\"landlock\"",
		    NULL};

		if (i == 0 && !log_denial) {
			TH_LOG("landlock_log_denial is not traced here "
			       "(6.15+): no open is its alone");
			continue;
		}
		run_traced_as(_metadata, "open-read " FX_SECRET, false,
			      avoid[i], &run);
		ASSERT_EQ(EACCES, run.errnos[0]);
		ASSERT_NE(NULL, find_event(&run, needles, line, sizeof(line)))
		{
			TH_LOG("--avoid %s: no such denial (%s) in:\n%s",
			       avoid[i] ? avoid[i] : "(none)", needles[0],
			       run.trace);
		}
		ASSERT_EQ(1, run.events);
	}
}

/*
 * T1 and T2 from one traced run: a tracer start costs seconds under TCG, so
 * five groups of operations run under one, each group in a child of the
 * confined denier, its denials told apart by their tgid:
 *   0: one denial as one JSON line with every field T1 names;
 *   1: a denial of the group's own child, followed through fork();
 *   2: a denial (the positive control), then allowed operations: the trace
 *      holds the control's denial and nothing else;
 *   3: file-system denials, each seen, Landlock's, with its path and errno
 *      (an ioctl on a device in the read-only tree: ABI 5);
 *   4: scope denials (ABI 6): a signal to this test's process and an
 *      abstract unix socket outside the domain; on a kernel (or a cap)
 *      without scoping, the honest side: both reach, and nothing is traced.
 * The whole trace then holds exactly these groups' denials.  Where Landlock
 * writes audit records (ABI 7+), the tracer runs under `jr2-trace --audit`:
 * the independent check, the same denial, blocker and path in the domain the
 * trace saw for group 0.
 */
TEST_F_TIMEOUT(trace, T1_T2_denials_of_one_traced_run, 180)
{
	static struct traced_run run;
	const struct traced_group *g = run.group;
	int truncate_errno =
	    fx_expect(&self->fx.abi, JR2_FEAT_TRUNCATE, EACCES);
	/* Allowed, /dev/null's own answer to FIONREAD. */
	int ioctl_errno =
	    fx_expect(&self->fx.abi, JR2_FEAT_IOCTL_DEV, EACCES) ?: ENOTTY;
	const int fs_denials =
	    4 + (truncate_errno != 0) + (ioctl_errno == EACCES);
	const bool signal_scoped =
	    jr2_abi_has(&self->fx.abi, JR2_FEAT_SCOPE_SIGNAL);
	const bool abstract_scoped =
	    jr2_abi_has(&self->fx.abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	const bool audited =
	    jr2_abi_has(&self->fx.abi, JR2_FEAT_AUDIT_LOG_FLAGS);
	char path[256], pid[32], tgid[32], line[1024], name[64], ops[2048];
	char target[96], domain[64], needle[96];
	const char *audit_needles[] = {"\"type\":\"landlock_access\"",
				       "\"blockers\":\"fs.read_file\"", path,
				       needle, NULL};
	const char *found;
	const char *json_needles[] = {
	    "{\"time\":\"",
	    pid,
	    tgid,
	    "\"comm\":\"trace_test\"",
	    "\"hook\":\"",
	    "\"operation\":\"open\"",
	    path_needle(FX_SECRET, path, sizeof(path)),
	    "\"errno\":13,",
	    "\"error\":\"EACCES\"",
	    "\"lsm\":\"landlock\"",
	    NULL};
	const char *fork_needles[] = {tgid,
				      "\"operation\":\"open\"",
				      json_needles[6],
				      "\"errno\":13,",
				      "\"lsm\":\"landlock\"",
				      NULL};
	int listener;

	REQUIRE_TRACING();
	snprintf(name, sizeof(name), "@jr2-trace-test-%d", getpid());
	listener = fx_unix_listen(name);
	ASSERT_LE(0, listener);
	/* Positive control: unconfined, the socket answers. */
	ASSERT_EQ(0, test_connect_unix(name));
	/* A device where the read-only tree grants no ioctl: /dev/null's. */
	ASSERT_EQ(0, mknod(FX_REPOS "/null", S_IFCHR | 0666, makedev(1, 3)));
	ASSERT_EQ(ENOTTY, denier_ioctl(FX_REPOS "/null"));
	snprintf(ops, sizeof(ops),
		 "open-read " FX_SECRET "|fork-open " FX_SECRET
		 "|open-read " FX_SECRET ";open-read " FX_FILE
		 ";open-write " FX_FILE ";mkdir " FX_WORK "/new"
		 ";unlink " FX_FILE2 ";open-read " FX_README
		 "|open-write " FX_SECRET ";mkdir " FX_PROTECTED "/new"
		 ";unlink " FX_DEEP ";symlink " FX_PROTECTED "/link"
		 ";truncate " FX_DEEP ";ioctl " FX_REPOS "/null"
		 "|kill-pid %d;connect-unix %s",
		 getpid(), name);
	run_traced_as(_metadata, ops, audited, NULL, &run);
	close(listener);
	ASSERT_EQ(5, run.groups)
	{
		TH_LOG("denier output:\n%s", run.out);
	}

	/* 0: one denial as one JSON line with every field T1 names. */
	ASSERT_EQ(1, g[0].ops);
	ASSERT_EQ(EACCES, g[0].errnos[0]);
	snprintf(pid, sizeof(pid), "\"pid\":%d,", g[0].pid);
	snprintf(tgid, sizeof(tgid), "\"tgid\":%d,", g[0].pid);
	ASSERT_EQ(1, g[0].events)
	{
		TH_LOG("group 0, pid %d; trace:\n%s", g[0].pid, run.trace);
	}
	ASSERT_NE(NULL, find_event(&run, json_needles, line, sizeof(line)))
	{
		TH_LOG("trace line lacks a field:\n%s", run.trace);
	}
	/* The domain, where the kernel tells (landlock_log_denial, 6.15+). */
	if (self->fx.abi.kernel >= 7)
		ASSERT_NE(NULL, strstr(line, "\"domain\":\""))
		{
			TH_LOG("ABI %d kernel, yet no domain: %s",
			       self->fx.abi.kernel, line);
		}
	/* The independent check: Landlock's audit record of that denial. */
	if (audited) {
		found = strstr(line, "\"domain\":\"");
		ASSERT_NE(NULL, found)
		{
			TH_LOG("ABI 7+ but no domain in the trace: %s", line);
		}
		ASSERT_EQ(1,
			  sscanf(found, "\"domain\":\"%63[0-9a-f]\"", domain));
		snprintf(needle, sizeof(needle), "\"domain\":\"%s\"", domain);
		path_needle(FX_SECRET, path, sizeof(path));
		ASSERT_NE(NULL, find_line(run.audit, audit_needles, line,
					  sizeof(line)))
		{
			TH_LOG("no audit record of domain %s for %s:\n%s",
			       domain, FX_SECRET, run.audit);
		}
	} else {
		TH_LOG("Landlock ABI %d < 7 (audit_log_flags): no audit "
		       "records to check the trace against",
		       self->fx.abi.in_force);
	}

	/* 1: a denial of the group's child: followed through fork(). */
	ASSERT_EQ(1, g[1].ops);
	ASSERT_EQ(EACCES, g[1].errnos[0]);
	ASSERT_LT(0, g[1].child);
	ASSERT_NE(g[1].pid, g[1].child);
	snprintf(tgid, sizeof(tgid), "\"tgid\":%d,", g[1].child);
	ASSERT_NE(NULL, find_event(&run, fork_needles, line, sizeof(line)))
	{
		TH_LOG("no denial of child %d in the trace:\n%s", g[1].child,
		       run.trace);
	}
	ASSERT_EQ(1, g[1].events);

	/* 2: the positive control's denial, then allowed operations. */
	ASSERT_EQ(6, g[2].ops);
	ASSERT_EQ(EACCES, g[2].errnos[0]);
	ASSERT_TRACED(&run, g[2].pid, "open",
		      path_needle(FX_SECRET, path, sizeof(path)), EACCES);
	for (int i = 1; i < 6; i++)
		ASSERT_EQ(0, g[2].errnos[i]);
	ASSERT_EQ(1, g[2].events)
	{
		TH_LOG("allowed operations were traced:\n%s", run.trace);
	}

	/* 3: file-system denials with their targets. */
	ASSERT_EQ(6, g[3].ops);
	ASSERT_EQ(EACCES, g[3].errnos[0]);
	ASSERT_EQ(EACCES, g[3].errnos[1]);
	ASSERT_EQ(EACCES, g[3].errnos[2]);
	ASSERT_EQ(EACCES, g[3].errnos[3]);
	ASSERT_EQ(truncate_errno, g[3].errnos[4]);
	ASSERT_EQ(ioctl_errno, g[3].errnos[5]);
	ASSERT_TRACED(&run, g[3].pid, "open",
		      path_needle(FX_SECRET, path, sizeof(path)), EACCES);
	ASSERT_TRACED(&run, g[3].pid, "mkdir",
		      path_needle(FX_PROTECTED "/new", path, sizeof(path)),
		      EACCES);
	ASSERT_TRACED(&run, g[3].pid, "unlink",
		      path_needle(FX_DEEP, path, sizeof(path)), EACCES);
	ASSERT_TRACED(&run, g[3].pid, "symlink",
		      path_needle(FX_PROTECTED "/link", path, sizeof(path)),
		      EACCES);
	if (truncate_errno)
		ASSERT_TRACED(&run, g[3].pid, "truncate",
			      path_needle(FX_DEEP, path, sizeof(path)),
			      truncate_errno);
	if (ioctl_errno == EACCES)
		ASSERT_TRACED(&run, g[3].pid, "ioctl",
			      path_needle(FX_REPOS "/null", path, sizeof(path)),
			      EACCES);
	ASSERT_EQ(fs_denials, g[3].events)
	{
		TH_LOG("expected %d denials, trace:\n%s", fs_denials,
		       run.trace);
	}

	/* 4: scope denials, or none where scoping is not in force. */
	ASSERT_EQ(2, g[4].ops);
	ASSERT_EQ(signal_scoped ? EPERM : 0, g[4].errnos[0]);
	ASSERT_EQ(abstract_scoped ? EPERM : 0, g[4].errnos[1]);
	snprintf(target, sizeof(target), "\"target_pid\":%d,", getpid());
	if (signal_scoped)
		ASSERT_TRACED(&run, g[4].pid, "signal", target, EPERM);
	snprintf(target, sizeof(target), "\"socket\":\"%s\"", name);
	if (abstract_scoped)
		ASSERT_TRACED(&run, g[4].pid, "unix_connect", target, EPERM);
	ASSERT_EQ(signal_scoped + abstract_scoped, g[4].events)
	{
		TH_LOG("ABI %d in force; trace:\n%s", self->fx.abi.in_force,
		       run.trace);
	}

	/* Nothing but the groups' denials: no other process, no extra. */
	ASSERT_EQ(3 + fs_denials + signal_scoped + abstract_scoped, run.events)
	{
		TH_LOG("trace:\n%s", run.trace);
	}
}

TEST_HARNESS_MAIN
