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
#include <sys/mman.h>
#include <sys/prctl.h>

#include "common.h"
#include "ruleset.h"

#define DENIER_ENV "JR2_TRACE_DENIER"
#define TRACE_FILE FX_ROOT "/trace.jsonl"
#define AUDIT_FILE FX_ROOT "/audit.jsonl"
#define OUT_SIZE   65536
#define MAX_OPS	   16

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
	if (!strcmp(op, "kill-parent"))
		return kill(getppid(), 0) ? errno : 0;
	if (!strcmp(op, "connect-unix"))
		return test_connect_unix(arg);
	if (!strcmp(op, "fork-open"))
		return denier_fork_open(arg);
	return EINVAL;
}

/* "op arg;op arg;..." -> one "op arg errno" line each on stdout. */
static void __attribute__((constructor)) denier(void)
{
	const char *ops = getenv(DENIER_ENV);
	char list[1024], *save = NULL;

	if (!ops)
		return;
	snprintf(list, sizeof(list), "%s", ops);
	if (denier_confine())
		_exit(125);
	printf("denier pid %d ppid %d\n", getpid(), getppid());
	for (char *item = strtok_r(list, ";", &save); item;
	     item = strtok_r(NULL, ";", &save)) {
		char op[32], arg[100]; /* fits a sun_path */

		if (sscanf(item, "%31s %99s", op, arg) != 2)
			_exit(2);
		printf("%s %s %d\n", op, arg, denier_op(op, arg));
	}
	fflush(stdout);
	_exit(0);
}

/* ---- the test side ---- */

struct traced_run {
	char out[OUT_SIZE]; /* the denier's lines and jr2-trace's stderr */
	char trace[OUT_SIZE]; /* the JSON lines */
	char audit[OUT_SIZE]; /* jr2-trace --audit's lines, when asked */
	int status;
	int errnos[MAX_OPS]; /* per op, as the denier saw them */
	pid_t pid, ppid;
	pid_t child; /* of a fork-open op */
	int events;
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
		char *avoiding[] = {tool,	"--avoid",  (char *)avoid,
				    "--output", TRACE_FILE, "--",
				    self,	NULL};
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
}

static void run_traced(struct __test_metadata *_metadata, const char *ops,
		       struct traced_run *run)
{
	run_traced_as(_metadata, ops, false, NULL, run);
}

/*
 * The trace line that has every needle ("key":value fragments), or NULL.
 * Copies it into buf for messages.
 */
static const char *find_event(const struct traced_run *run,
			      const char *const needles[], char *buf,
			      size_t size)
{
	for (const char *line = run->trace; *line;) {
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

/* Asserts one Landlock denial of `operation` on `target` with `err`. */
#define ASSERT_TRACED(run, operation, target, err)                             \
	do {                                                                   \
		char _op[64], _errno[32], _line[1024];                         \
		const char *_needles[] = {_op, target, _errno,                 \
					  "\"lsm\":\"landlock\"", NULL};       \
		snprintf(_op, sizeof(_op), "\"operation\":\"%s\"", operation); \
		snprintf(_errno, sizeof(_errno), "\"errno\":%d,", err);        \
		ASSERT_NE(NULL,                                                \
			  find_event(run, _needles, _line, sizeof(_line)))     \
		{                                                              \
			TH_LOG("no Landlock denial %s %s errno %d in the "     \
			       "trace:\n%s",                                   \
			       operation, target, err, (run)->trace);          \
		}                                                              \
	} while (0)

static const char *path_needle(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "\"path\":\"%s\"", path);
	return buf;
}

JR2_FIXTURE(trace);

/* The probe's verdict agrees with the kernel and names its reason. */
TEST_F_TIMEOUT(trace, T3_probe_names_why, 120)
{
	char why[600];
	int status;

	probe_tracer(_metadata, why, sizeof(why), &status);

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
	if (status == 0) {
		ASSERT_NE(NULL, strstr(why, "tracing works"));
		return;
	}
	/* It cannot: the reason must name what refused and the errno. */
	ASSERT_NE(NULL, strstr(why, "cannot trace"));
	ASSERT_TRUE(strstr(why, "EPERM") || strstr(why, "EACCES") ||
		    strstr(why, "EINVAL") || strstr(why, "ENOENT") ||
		    strstr(why, "EOPNOTSUPP"))
	{
		TH_LOG("the reason names no errno: %s", why);
	}
}

/*
 * The fallback ways, forced with --avoid: a kprobe pair on the hook (where
 * the kernel has kprobes), then fexit on security_file_open.  Each sees the
 * denial; the latter names Landlock only where landlock_log_denial tells.
 */
TEST_F_TIMEOUT(trace, T3_fallback_ways_see_the_denial, 240)
{
	static struct traced_run run;
	char why[600], path[256], line[1024];
	const char *out;
	bool kprobes;
	int status;

	out = probe_tracer(_metadata, why, sizeof(why), &status);
	if (status != 0)
		SKIP(return, "%s", why);
	kprobes = strstr(out, "\nkprobes: yes\n") != NULL;
	for (int i = 0; i < 2; i++) {
		bool security = i == 1 || !kprobes;
		const char *needles[] = {
		    security ? "\"hook\":\"security_file_open\","
			       "\"source\":\"security\""
			     : "\"hook\":\"hook_file_open\","
			       "\"source\":\"kretprobe\"",
		    path_needle(FX_SECRET, path, sizeof(path)), "\"errno\":13,",
		    security && self->fx.abi.kernel < 7
			? "\"lsm\":null"
			: "\"lsm\":\"landlock\"",
		    NULL};

		run_traced_as(_metadata, "open-read " FX_SECRET, false,
			      i == 0 ? "fexit" : "fexit,kprobe", &run);
		ASSERT_EQ(EACCES, run.errnos[0]);
		ASSERT_NE(NULL, find_event(&run, needles, line, sizeof(line)))
		{
			TH_LOG("--avoid %s: no such denial (%s) in:\n%s",
			       i == 0 ? "fexit" : "fexit,kprobe", needles[0],
			       run.trace);
		}
		ASSERT_EQ(1, run.events);
	}
}

/* One denial as one JSON line with every field T1 names. */
TEST_F_TIMEOUT(trace, T1_denial_is_one_json_line, 120)
{
	static struct traced_run run;
	char path[256], pid[32], tgid[32], line[1024];
	const char *needles[] = {"{\"time\":\"",
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

	REQUIRE_TRACING();
	run_traced(_metadata, "open-read " FX_SECRET, &run);
	ASSERT_EQ(EACCES, run.errnos[0]);
	snprintf(pid, sizeof(pid), "\"pid\":%d,", run.pid);
	snprintf(tgid, sizeof(tgid), "\"tgid\":%d,", run.pid);
	ASSERT_EQ(1, run.events)
	{
		TH_LOG("trace:\n%s", run.trace);
	}
	ASSERT_NE(NULL, find_event(&run, needles, line, sizeof(line)))
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
}

/* A denial of the traced command's child: followed through fork(). */
TEST_F_TIMEOUT(trace, T1_child_followed_through_fork, 120)
{
	static struct traced_run run;
	char path[256], pid[32], line[1024];
	const char *needles[] = {pid,
				 "\"operation\":\"open\"",
				 path_needle(FX_SECRET, path, sizeof(path)),
				 "\"errno\":13,",
				 "\"lsm\":\"landlock\"",
				 NULL};

	REQUIRE_TRACING();
	run_traced(_metadata, "fork-open " FX_SECRET, &run);
	ASSERT_EQ(EACCES, run.errnos[0]);
	ASSERT_LT(0, run.child);
	ASSERT_NE(run.pid, run.child);
	snprintf(pid, sizeof(pid), "\"tgid\":%d,", run.child);
	ASSERT_NE(NULL, find_event(&run, needles, line, sizeof(line)))
	{
		TH_LOG("no denial of child %d in the trace:\n%s", run.child,
		       run.trace);
	}
	ASSERT_EQ(1, run.events);
}

/*
 * The positive control first (a denial the tracer must see), then allowed
 * operations: the trace holds the control's denial and nothing else.
 */
TEST_F_TIMEOUT(trace, T2_allowed_operations_trace_nothing, 120)
{
	static struct traced_run run;
	char path[256];

	REQUIRE_TRACING();
	run_traced(_metadata,
		   "open-read " FX_SECRET ";open-read " FX_FILE
		   ";open-write " FX_FILE ";mkdir " FX_WORK "/new"
		   ";unlink " FX_FILE2 ";open-read " FX_README,
		   &run);
	ASSERT_EQ(EACCES, run.errnos[0]);
	ASSERT_TRACED(&run, "open", path_needle(FX_SECRET, path, sizeof(path)),
		      EACCES);
	for (int i = 1; i < 6; i++)
		ASSERT_EQ(0, run.errnos[i]);
	ASSERT_EQ(1, run.events)
	{
		TH_LOG("allowed operations were traced:\n%s", run.trace);
	}
}

/* File-system denials: each seen, Landlock's, with its path and errno. */
TEST_F_TIMEOUT(trace, T2_fs_denials_seen_with_target, 120)
{
	static struct traced_run run;
	int truncate_errno =
	    fx_expect(&self->fx.abi, JR2_FEAT_TRUNCATE, EACCES);
	int denials = 4 + (truncate_errno != 0);
	char path[256];

	REQUIRE_TRACING();
	run_traced(_metadata,
		   "open-write " FX_SECRET ";mkdir " FX_PROTECTED "/new"
		   ";unlink " FX_DEEP ";symlink " FX_PROTECTED "/link"
		   ";truncate " FX_DEEP,
		   &run);
	ASSERT_EQ(EACCES, run.errnos[0]);
	ASSERT_EQ(EACCES, run.errnos[1]);
	ASSERT_EQ(EACCES, run.errnos[2]);
	ASSERT_EQ(EACCES, run.errnos[3]);
	ASSERT_EQ(truncate_errno, run.errnos[4]);
	ASSERT_TRACED(&run, "open", path_needle(FX_SECRET, path, sizeof(path)),
		      EACCES);
	ASSERT_TRACED(&run, "mkdir",
		      path_needle(FX_PROTECTED "/new", path, sizeof(path)),
		      EACCES);
	ASSERT_TRACED(&run, "unlink", path_needle(FX_DEEP, path, sizeof(path)),
		      EACCES);
	ASSERT_TRACED(&run, "symlink",
		      path_needle(FX_PROTECTED "/link", path, sizeof(path)),
		      EACCES);
	if (truncate_errno)
		ASSERT_TRACED(&run, "truncate",
			      path_needle(FX_DEEP, path, sizeof(path)),
			      truncate_errno);
	ASSERT_EQ(denials, run.events)
	{
		TH_LOG("expected %d denials, trace:\n%s", denials, run.trace);
	}
}

/*
 * Scope denials (ABI 6): a signal and an abstract unix socket outside.  On a
 * kernel (or a cap) without scoping, the honest side: both reach, and the
 * trace shows no denial for them.
 */
TEST_F_TIMEOUT(trace, T2_scope_denials_seen_with_target, 120)
{
	static struct traced_run run;
	char name[64], ops[256], target[96];
	const bool signal_scoped =
	    jr2_abi_has(&self->fx.abi, JR2_FEAT_SCOPE_SIGNAL);
	const bool abstract_scoped =
	    jr2_abi_has(&self->fx.abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	int listener;

	REQUIRE_TRACING();
	snprintf(name, sizeof(name), "@jr2-trace-test-%d", getpid());
	listener = fx_unix_listen(name);
	ASSERT_LE(0, listener);
	/* Positive control: unconfined, the socket answers. */
	ASSERT_EQ(0, test_connect_unix(name));
	snprintf(ops, sizeof(ops), "kill-parent x;connect-unix %s", name);
	run_traced(_metadata, ops, &run);
	close(listener);
	ASSERT_EQ(signal_scoped ? EPERM : 0, run.errnos[0]);
	ASSERT_EQ(abstract_scoped ? EPERM : 0, run.errnos[1]);
	snprintf(target, sizeof(target), "\"target_pid\":%d,", run.ppid);
	if (signal_scoped)
		ASSERT_TRACED(&run, "signal", target, EPERM);
	snprintf(target, sizeof(target), "\"socket\":\"%s\"", name);
	if (abstract_scoped)
		ASSERT_TRACED(&run, "unix_connect", target, EPERM);
	ASSERT_EQ(signal_scoped + abstract_scoped, run.events)
	{
		TH_LOG("ABI %d in force; trace:\n%s", self->fx.abi.in_force,
		       run.trace);
	}
}

/*
 * The independent check (ABI 7+): Landlock's own audit records of the same
 * run name the same denial, blocker and path, in the domain the trace saw.
 */
TEST_F_TIMEOUT(trace, T2_trace_agrees_with_audit, 180)
{
	static struct traced_run run;
	char path[256], line[1024], domain[64], needle[96];
	const char *open_needles[] = {
	    "\"operation\":\"open\"",
	    path_needle(FX_SECRET, path, sizeof(path)), NULL};
	const char *audit_needles[] = {"\"type\":\"landlock_access\"",
				       "\"blockers\":\"fs.read_file\"", path,
				       needle, NULL};
	const char *found;

	FX_REQUIRE_FEATURE(&self->fx.abi, JR2_FEAT_AUDIT_LOG_FLAGS);
	REQUIRE_TRACING();
	run_traced_as(_metadata, "open-read " FX_SECRET, true, NULL, &run);
	ASSERT_EQ(EACCES, run.errnos[0]);
	found = find_event(&run, open_needles, line, sizeof(line));
	ASSERT_NE(NULL, found)
	{
		TH_LOG("trace:\n%s", run.trace);
	}
	found = strstr(found, "\"domain\":\"");
	ASSERT_NE(NULL, found)
	{
		TH_LOG("ABI 7+ but no domain in the trace: %s", line);
	}
	ASSERT_EQ(1, sscanf(found, "\"domain\":\"%63[0-9a-f]\"", domain));
	snprintf(needle, sizeof(needle), "\"domain\":\"%s\"", domain);
	/* find_event() reads run.trace: look in the audit lines instead. */
	memcpy(run.trace, run.audit, sizeof(run.trace));
	ASSERT_NE(NULL, find_event(&run, audit_needles, line, sizeof(line)))
	{
		TH_LOG("no audit record of domain %s for %s:\n%s", domain,
		       FX_SECRET, run.audit);
	}
}

TEST_HARNESS_MAIN
