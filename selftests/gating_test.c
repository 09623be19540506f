// SPDX-License-Identifier: GPL-2.0-only
/*
 * G1-G7: the runtime gates on what the kernel's Landlock syscall answers.
 * Kernels this host is not are reproduced by answering the syscall
 * ourselves, as the kernel would: a seccomp filter returns ENOSYS (no
 * Landlock, G1) or EOPNOTSUPP (not enabled, G2), and a seccomp user
 * notification answers the ABI version query with 1, 2 or 12 (G3, G4).
 * The same filters apply to the jr2-confine program the tests run, so the
 * preflight (G5) is proven on each answer too.  The real kernel's answer is
 * compared with a raw probe (G4) and the cap is shown to behave as a kernel
 * of that ABI, scopes included (G6, G7).
 *
 * Promises: G1 G2 G3 G4 G5 G6 G7 P2
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#include "common.h"

JR2_FIXTURE(gating)

#define LOAD_FIELD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))

static int install_filter(struct sock_filter *insns, unsigned short len,
			  unsigned int flags)
{
	struct sock_fprog prog = {.len = len, .filter = insns};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* landlock_create_ruleset() answers -err, whatever it is asked. */
static void fake_landlock_errno(struct __test_metadata *_metadata, int err)
{
	struct sock_filter insns[] = {
	    LOAD_FIELD(arch),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    LOAD_FIELD(nr),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_create_ruleset, 0,
		     1),
	    BPF_STMT(BPF_RET | BPF_K,
		     SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	FX_SKIP_WITHOUT_CAP(
	    CAP_SYS_ADMIN,
	    "the fixture's seccomp filter (without no_new_privs)");
	ASSERT_EQ(0, install_filter(insns, sizeof(insns) / sizeof(insns[0]), 0))
	{
		TH_LOG("seccomp: %s: the kernel needs CONFIG_SECCOMP_FILTER "
		       "(selftests/config)",
		       strerror(errno));
	}
}

struct version_faker {
	int ready[2]; /* the listener fd travels through this pipe */
	int version;
};

/* Answers every version query of this process and its children. */
static void *serve_version(void *arg)
{
	struct version_faker *faker = arg;
	int listener;

	if (read(faker->ready[0], &listener, sizeof(listener)) !=
	    sizeof(listener))
		return NULL;
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return NULL;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.val = faker->version;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/*
 * landlock_create_ruleset(NULL, 0, VERSION) answers `version`; every other
 * call (errata query, real rulesets) reaches the kernel.  A thread started
 * before the filter (so not under it) answers the notifications.
 */
static void fake_landlock_version(struct __test_metadata *_metadata,
				  int version)
{
	static struct version_faker faker;
	struct sock_filter insns[] = {
	    LOAD_FIELD(arch),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    LOAD_FIELD(nr),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_create_ruleset, 0,
		     3),
	    LOAD_FIELD(args[2]),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, JR2_CREATE_RULESET_VERSION, 0,
		     1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	pthread_t thread;
	int listener;

	faker.version = version;
	ASSERT_EQ(0, pipe2(faker.ready, O_CLOEXEC));
	ASSERT_EQ(0, pthread_create(&thread, NULL, serve_version, &faker));
	FX_SKIP_WITHOUT_CAP(
	    CAP_SYS_ADMIN,
	    "the fixture's seccomp filter (without no_new_privs)");
	listener = install_filter(insns, sizeof(insns) / sizeof(insns[0]),
				  SECCOMP_FILTER_FLAG_NEW_LISTENER);
	ASSERT_LE(0, listener)
	{
		TH_LOG("seccomp user notification: %s: the kernel needs "
		       "CONFIG_SECCOMP_FILTER, 5.5+ (selftests/config)",
		       strerror(errno));
	}
	ASSERT_EQ(sizeof(listener),
		  write(faker.ready[1], &listener, sizeof(listener)));
}

/* The kernel's own answer, without the runtime: version, or -errno. */
static int raw_abi(void)
{
	long version =
	    jr2_sys_create_ruleset(NULL, 0, JR2_CREATE_RULESET_VERSION);

	return version < 0 ? -errno : (int)version;
}

/* In-process: probe, then confine; asserts the refusal and no effect. */
static void assert_refused(struct __test_metadata *_metadata,
			   const struct jr2_abi *abi, enum jr2_verdict verdict)
{
	struct jr2_policy policy;
	struct jr2_err err = {0};
	int rc;

	ASSERT_EQ(verdict, jr2_abi_verdict(abi));
	fx_policy(_metadata, &policy);
	rc = jr2_confine_self(&policy, abi, 0, &err);
	fx_assert_refusal(_metadata, abi, rc, &err);
	TH_LOG("refusal: %s", err.msg);
	/* Nothing was restricted: the secret is still readable. */
	ASSERT_EQ(0, test_read(FX_SECRET));
	ASSERT_EQ(0, test_creat(FX_PROTECTED "/new"));
	jr2_policy_free(&policy);
}

/*
 * The scalar value of "key" in JSON text (after "within" when given, for a
 * key of a nested object): a string without its quotes, or a number, true,
 * false, null.  "" when absent.  Enough for the preflight's flat output.
 */
static const char *json_value(const char *json, const char *within,
			      const char *key, char *buf, size_t size)
{
	char quoted[128];
	const char *at = json;
	size_t len;

	buf[0] = '\0';
	if (within) {
		snprintf(quoted, sizeof(quoted), "\"%s\"", within);
		at = strstr(at, quoted);
		if (!at)
			return buf;
	}
	snprintf(quoted, sizeof(quoted), "\"%s\"", key);
	at = strstr(at, quoted);
	if (!at)
		return buf;
	at += strlen(quoted);
	at += strspn(at, " \t\n");
	if (*at++ != ':')
		return buf;
	at += strspn(at, " \t\n");
	if (*at == '"')
		len = strcspn(++at, "\"");
	else
		len = strcspn(at, ",}] \t\n");
	if (len >= size)
		len = size - 1;
	memcpy(buf, at, len);
	buf[len] = '\0';
	return buf;
}

/* Runs `jr2-confine ARGS...`; the output into out, the status back. */
static int confine_cli(struct __test_metadata *_metadata, char *out,
		       size_t size, const char *arg1, const char *arg2,
		       const char *arg3)
{
	char tool[PATH_MAX];
	char *argv[] = {(char *)FX_FIND_TOOL("jr2-confine", tool), (char *)arg1,
			(char *)arg2, (char *)arg3, NULL};
	int status = -1;

	ASSERT_EQ(0, fx_run(argv, out, size, &status));
	return status;
}

/* `jr2-confine run -- /bin/sh -c 'echo ran > FILE'`: CMD must not run. */
static void assert_run_refused(struct __test_metadata *_metadata)
{
	char tool[PATH_MAX], out[4096];
	char *argv[] = {(char *)FX_FIND_TOOL("jr2-confine", tool),
			"run",
			"--protect",
			FX_PROTECTED,
			"--",
			"/bin/sh",
			"-c",
			"echo ran > " FX_WORK "/ran",
			NULL};
	int status = -1;

	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	ASSERT_EQ(JR2_EXIT_REFUSED, status)
	{
		TH_LOG("jr2-confine run said: %s", out);
	}
	ASSERT_EQ(ENOENT, test_stat(FX_WORK "/ran"));
}

TEST_F(gating, G1_no_landlock_refused)
{
	struct jr2_abi abi;

	fake_landlock_errno(_metadata, ENOSYS);
	jr2_abi_probe(&abi, 0);
	ASSERT_EQ(ENOSYS, abi.probe_errno);
	ASSERT_EQ(0, abi.in_force);
	assert_refused(_metadata, &abi, JR2_VERDICT_NO_LANDLOCK);
}

TEST_F(gating, G1_G5_no_landlock_check)
{
	char out[8192], value[64];

	fake_landlock_errno(_metadata, ENOSYS);
	ASSERT_EQ(
	    1, confine_cli(_metadata, out, sizeof(out), "check", NULL, NULL));
	ASSERT_NE(NULL, strstr(out, "lacks Landlock"));
	ASSERT_NE(NULL, strstr(out, "6.2"));
	ASSERT_EQ(1, confine_cli(_metadata, out, sizeof(out), "check", "--json",
				 NULL));
	ASSERT_STREQ("ENOSYS",
		     json_value(out, NULL, "landlock", value, sizeof(value)))
	{
		TH_LOG("check --json: %s", out);
	}
}

TEST_F(gating, G1_no_landlock_run_never_runs_command)
{
	fake_landlock_errno(_metadata, ENOSYS);
	assert_run_refused(_metadata);
}

TEST_F(gating, G2_not_enabled_refused)
{
	struct jr2_abi abi;

	fake_landlock_errno(_metadata, EOPNOTSUPP);
	jr2_abi_probe(&abi, 0);
	ASSERT_EQ(EOPNOTSUPP, abi.probe_errno);
	assert_refused(_metadata, &abi, JR2_VERDICT_NOT_ENABLED);
}

TEST_F(gating, G2_G5_not_enabled_check)
{
	char out[8192], value[64];

	fake_landlock_errno(_metadata, EOPNOTSUPP);
	ASSERT_EQ(
	    1, confine_cli(_metadata, out, sizeof(out), "check", NULL, NULL));
	ASSERT_NE(NULL, strstr(out, "lsm="))
	{
		TH_LOG("check: %s", out);
	}
	ASSERT_EQ(1, confine_cli(_metadata, out, sizeof(out), "check", "--json",
				 NULL));
	ASSERT_STREQ("EOPNOTSUPP",
		     json_value(out, NULL, "landlock", value, sizeof(value)))
	{
		TH_LOG("check --json: %s", out);
	}
}

TEST_F(gating, G2_not_enabled_run_never_runs_command)
{
	fake_landlock_errno(_metadata, EOPNOTSUPP);
	assert_run_refused(_metadata);
}

TEST_F(gating, G3_abi1_kernel_refused)
{
	struct jr2_abi abi;

	fake_landlock_version(_metadata, 1);
	jr2_abi_probe(&abi, 0);
	ASSERT_EQ(1, abi.kernel);
	ASSERT_EQ(1, abi.in_force);
	assert_refused(_metadata, &abi, JR2_VERDICT_ABI_TOO_OLD);
}

TEST_F(gating, G3_abi2_kernel_refused)
{
	struct jr2_abi abi;

	fake_landlock_version(_metadata, 2);
	jr2_abi_probe(&abi, 0);
	ASSERT_EQ(2, abi.in_force);
	assert_refused(_metadata, &abi, JR2_VERDICT_ABI_TOO_OLD);
}

TEST_F(gating, G3_G5_abi2_kernel_check_and_run)
{
	char out[8192];

	fake_landlock_version(_metadata, 2);
	ASSERT_EQ(
	    1, confine_cli(_metadata, out, sizeof(out), "check", NULL, NULL));
	ASSERT_NE(NULL, strstr(out, "ABI 2 found"))
	{
		TH_LOG("check: %s", out);
	}
	ASSERT_NE(NULL, strstr(out, "ABI 3 required"));
	assert_run_refused(_metadata);
}

TEST_F(gating, G3_G7_cap2_refused_as_abi2_kernel)
{
	struct jr2_abi abi;

	jr2_abi_probe(&abi, 2);
	ASSERT_EQ(2, abi.cap);
	if (self->fx.abi.probe_errno) {
		/* Nothing to cap: the kernel's own refusal stands (G1, G2). */
		assert_refused(_metadata, &abi, jr2_abi_verdict(&self->fx.abi));
		return;
	}
	ASSERT_EQ(self->fx.abi.kernel < 2 ? self->fx.abi.kernel : 2,
		  abi.in_force);
	assert_refused(_metadata, &abi, JR2_VERDICT_ABI_TOO_OLD);
}

TEST_F(gating, G4_newer_kernel_used_at_newest_abi)
{
	struct jr2_abi abi;

	fake_landlock_version(_metadata, JR2_ABI_NEWEST + 1);
	jr2_abi_probe(&abi, 0);
	ASSERT_EQ(JR2_ABI_NEWEST + 1, abi.kernel);
	ASSERT_EQ(JR2_ABI_NEWEST, abi.in_force);
	ASSERT_EQ(JR2_VERDICT_ACCEPT, jr2_abi_verdict(&abi));
	for (int f = 0; f < JR2_FEAT_COUNT; f++)
		ASSERT_TRUE(jr2_abi_has(&abi, f));
	/* The lowest accepted answer is accepted too. */
	jr2_abi_probe(&abi, JR2_ABI_REQUIRED);
	ASSERT_EQ(JR2_ABI_REQUIRED, abi.in_force);
	ASSERT_EQ(JR2_VERDICT_ACCEPT, jr2_abi_verdict(&abi));
}

TEST_F(gating, G4_G7_probe_matches_kernel)
{
	const struct jr2_abi *abi = &self->fx.abi;
	int raw = raw_abi();
	int expected;

	if (raw < 0) {
		ASSERT_EQ(-raw, abi->probe_errno);
		ASSERT_EQ(0, abi->in_force);
		ASSERT_FALSE(fx_accepted(abi));
		return;
	}
	ASSERT_EQ(0, abi->probe_errno);
	ASSERT_EQ(raw, abi->kernel);
	expected = raw < JR2_ABI_NEWEST ? raw : JR2_ABI_NEWEST;
	if (abi->cap && abi->cap < expected)
		expected = abi->cap;
	ASSERT_EQ(expected, abi->in_force);
	ASSERT_EQ(expected >= JR2_ABI_REQUIRED, fx_accepted(abi));
}

TEST_F(gating, G4_confines_under_abi_in_force)
{
	/* Refused below ABI 3 (asserted, then skipped), else enforced. */
	FX_CONFINE(&self->fx);
	ASSERT_EQ(EACCES, test_read(FX_SECRET));
	ASSERT_EQ(EACCES, test_truncate(FX_SECRET, 0));
	ASSERT_EQ(0, test_read(FX_FILE));
}

TEST_F(gating, G4_compiles_every_right_and_scope)
{
	const struct jr2_abi *abi = &self->fx.abi;
	struct jr2_ruleset_plan plan;
	struct jr2_policy policy;
	struct jr2_err err = {0};

	if (!fx_accepted(abi))
		FX_CONFINE(&self->fx); /* asserts the refusal, then skips */
	fx_policy(_metadata, &policy);
	ASSERT_EQ(0, jr2_policy_compile(&policy, abi->in_force, &plan, &err))
	{
		TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(jr2_abi_fs_rights(abi->in_force), plan.handled_fs);
	ASSERT_EQ(jr2_abi_scopes(abi->in_force), plan.scoped);
	ASSERT_EQ(abi->in_force >= jr2_features[JR2_FEAT_SCOPE_SIGNAL].min_abi,
		  (plan.scoped & JR2_SCOPE_SIGNAL) != 0);
	ASSERT_EQ(abi->in_force >= jr2_features[JR2_FEAT_TRUNCATE].min_abi,
		  (plan.handled_fs & JR2_ACCESS_FS_TRUNCATE) != 0);
	ASSERT_LT(0, plan.n_rules);
	jr2_plan_free(&plan);
	jr2_policy_free(&policy);
}

/* `"name": {"status": "enforced"` in check --json, as the table says. */
/* Each feature's status in check --json is what the table says. */
static void assert_features_reported(struct __test_metadata *_metadata,
				     const struct jr2_abi *abi,
				     const char *json)
{
	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		const char *name = jr2_features[f].name;
		char status[32];

		ASSERT_STREQ(
		    jr2_abi_has(abi, f) ? "enforced" : "unavailable",
		    json_value(json, name, "status", status, sizeof(status)))
		{
			TH_LOG("feature %s in check --json: %s", name, json);
		}
	}
}

TEST_F(gating, G5_check_json_matches_table)
{
	const struct jr2_abi *abi = &self->fx.abi;
	char out[8192], want[64], value[256];
	struct utsname uts;

	ASSERT_EQ(
	    fx_accepted(abi) ? 0 : 1,
	    confine_cli(_metadata, out, sizeof(out), "check", "--json", NULL));
	ASSERT_EQ(0, uname(&uts));
	ASSERT_STREQ(uts.release,
		     json_value(out, NULL, "release", value, sizeof(value)));
	snprintf(want, sizeof(want), "%d", abi->in_force);
	ASSERT_STREQ(want,
		     json_value(out, "abi", "in_force", value, sizeof(value)));
	ASSERT_STREQ(fx_accepted(abi) ? "accepted" : "refused",
		     json_value(out, NULL, "verdict", value, sizeof(value)))
	{
		TH_LOG("check --json: %s", out);
	}
	if (abi->errata_known) {
		snprintf(want, sizeof(want), "%u", abi->errata);
		ASSERT_STREQ(want, json_value(out, NULL, "errata", value,
					      sizeof(value)));
	}
	/* Yama's ptrace_scope as /proc has it (its text, not the library's
	 * reading of it), null without Yama. */
	int yama =
	    open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	ssize_t len = yama < 0 ? -1 : read(yama, want, sizeof(want) - 1);

	if (yama >= 0)
		close(yama);
	if (len > 0) {
		want[len] = '\0';
		want[strcspn(want, "\n")] = '\0';
	} else {
		snprintf(want, sizeof(want), "null");
	}
	ASSERT_STREQ(want, json_value(out, NULL, "yama_ptrace_scope", value,
				      sizeof(value)))
	{
		TH_LOG("check --json: %s", out);
	}
	assert_features_reported(_metadata, abi, out);
}

TEST_F(gating, G5_check_text_names_each_feature)
{
	const struct jr2_abi *abi = &self->fx.abi;
	char out[8192];

	ASSERT_EQ(
	    fx_accepted(abi) ? 0 : 1,
	    confine_cli(_metadata, out, sizeof(out), "check", NULL, NULL));
	ASSERT_NE(NULL, strstr(out, "release: "));
	ASSERT_NE(NULL, strstr(out, "verdict: "));
	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		const char *line = strstr(out, jr2_features[f].name);
		const char *status =
		    jr2_abi_has(abi, f) ? "enforced" : "unavailable";
		size_t gap;

		ASSERT_NE(NULL, line);
		line += strlen(jr2_features[f].name);
		gap = strspn(line, " ");
		ASSERT_EQ(0, strncmp(line + gap, status, strlen(status)))
		{
			TH_LOG("feature %s is not '%s': %.80s",
			       jr2_features[f].name, status, line);
		}
	}
}

TEST_F(gating, G6_G7_cap5_names_scopes_unavailable)
{
	struct jr2_abi abi;
	char out[8192], value[32];

	jr2_abi_probe(&abi, 5);
	ASSERT_FALSE(jr2_abi_has(&abi, JR2_FEAT_SCOPE_SIGNAL));
	ASSERT_FALSE(jr2_abi_has(&abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX));
	ASSERT_EQ(fx_accepted(&abi) ? 0 : 1,
		  confine_cli(_metadata, out, sizeof(out), "check", "--json",
			      "--max-abi=5"));
	ASSERT_STREQ("unavailable", json_value(out, "scope_signal", "status",
					       value, sizeof(value)))
	{
		TH_LOG("check --json --max-abi=5: %s", out);
	}
	ASSERT_STREQ("unavailable", json_value(out, "scope_abstract_unix",
					       "status", value, sizeof(value)));
	assert_features_reported(_metadata, &abi, out);
}

TEST_F(gating, G7_cap_flag_wins_over_environment)
{
	const int kernel = self->fx.abi.kernel; /* 0 without Landlock */
	char out[8192];

	ASSERT_EQ(0, setenv("JR2_MAX_ABI", "1", 1));
	ASSERT_EQ(
	    1, confine_cli(_metadata, out, sizeof(out), "check", NULL, NULL));
	if (kernel > 1)
		ASSERT_NE(NULL, strstr(out, "capped at 1"))
		{
			TH_LOG("check with JR2_MAX_ABI=1: %s", out);
		}
	/* The flag wins: at 3 the runtime accepts any kernel of ABI 3+. */
	ASSERT_EQ(kernel >= 3 ? 0 : 1, confine_cli(_metadata, out, sizeof(out),
						   "check", "--max-abi", "3"));
}

TEST_F(gating, G7_bad_cap_refused)
{
	char out[8192], msg[256] = "";

	ASSERT_EQ(0, setenv("JR2_MAX_ABI", "12", 1));
	ASSERT_EQ(-1, jr2_abi_cap(NULL, msg, sizeof(msg)));
	ASSERT_NE(NULL, strstr(msg, "JR2_MAX_ABI"));
	ASSERT_NE(NULL, strstr(msg, "'12'"));
	ASSERT_EQ(0, setenv("JR2_MAX_ABI", "3", 1));
	ASSERT_EQ(3, jr2_abi_cap(NULL, msg, sizeof(msg)));
	ASSERT_EQ(2, confine_cli(_metadata, out, sizeof(out), "check",
				 "--max-abi", "0"));
	ASSERT_NE(NULL, strstr(out, "--max-abi"));
	ASSERT_EQ(2, confine_cli(_metadata, out, sizeof(out), "check",
				 "--max-abi", "x"));
}

/* Confines with the ABI in force capped at `cap` (and by JR2_MAX_ABI). */
#define CONFINE_CAPPED(limit)                                              \
	do {                                                               \
		int _env_cap = self->fx.abi.cap;                           \
		jr2_abi_probe(&self->fx.abi, _env_cap &&_env_cap < (limit) \
						 ? _env_cap                \
						 : (limit));               \
		FX_CONFINE(&self->fx);                                     \
	} while (0)

static void assert_signal_outcome(struct __test_metadata *_metadata,
				  const struct jr2_abi *abi, pid_t pid)
{
	/* EPERM when scope_signal is in force, else the signal arrives. */
	ASSERT_EQ(fx_expect(abi, JR2_FEAT_SCOPE_SIGNAL, EPERM),
		  kill(pid, SIGTERM) ? errno : 0);
}

TEST_F(gating, G6_G7_P2_cap5_signal_reaches_outside)
{
	pid_t pid = fx_lifeline_child(_metadata);
	char out[8192], cap[32], value[32];
	int status;

	CONFINE_CAPPED(5);
	ASSERT_FALSE(jr2_abi_has(&self->fx.abi, JR2_FEAT_SCOPE_SIGNAL));
	/* The preflight at this ABI names the scope unavailable (G6)... */
	snprintf(cap, sizeof(cap), "--max-abi=%d", self->fx.abi.in_force);
	ASSERT_EQ(0, confine_cli(_metadata, out, sizeof(out), "check", "--json",
				 cap));
	ASSERT_STREQ("unavailable", json_value(out, "scope_signal", "status",
					       value, sizeof(value)));
	/* ...and does not claim what it does not give: it arrives. */
	ASSERT_EQ(0, kill(pid, SIGTERM));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGTERM, WTERMSIG(status));
}

TEST_F(gating, G7_P2_cap6_signal_scoped)
{
	pid_t pid = fx_lifeline_child(_metadata);
	pid_t own;

	CONFINE_CAPPED(6);
	assert_signal_outcome(_metadata, &self->fx.abi, pid);
	/* Inside the domain a signal always arrives. */
	own = fx_lifeline_child(_metadata);
	ASSERT_EQ(0, kill(own, SIGKILL));
}

TEST_F(gating, G6_G7_P2_cap5_abstract_socket_reachable)
{
	char name[64];
	int listener;

	snprintf(name, sizeof(name), "@jr2-gating-%d", getpid());
	listener = fx_unix_listen(name);
	ASSERT_LE(0, listener);
	CONFINE_CAPPED(5);
	ASSERT_FALSE(jr2_abi_has(&self->fx.abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX));
	ASSERT_EQ(0, test_connect_unix(name));
	close(listener);
}

TEST_F(gating, G7_P2_cap6_abstract_socket_scoped)
{
	char name[64], own[64];
	int listener, own_listener;

	snprintf(name, sizeof(name), "@jr2-gating-%d", getpid());
	listener = fx_unix_listen(name);
	ASSERT_LE(0, listener);
	CONFINE_CAPPED(6);
	ASSERT_EQ(fx_expect(&self->fx.abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX, EPERM),
		  test_connect_unix(name));
	snprintf(own, sizeof(own), "@jr2-gating-own-%d", getpid());
	own_listener = fx_unix_listen(own);
	ASSERT_LE(0, own_listener);
	ASSERT_EQ(0, test_connect_unix(own));
	close(own_listener);
	close(listener);
}

TEST_HARNESS_MAIN
