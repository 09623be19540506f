// SPDX-License-Identifier: GPL-2.0-only
/*
 * E1-E5: the environment of a confined program (byte for byte), the
 * harness's own environment, the refusals of configuration (JR2_ names,
 * files the harness reads where the sandbox writes), the harness's HOME and
 * its fresh Stand-ins.
 *
 * Promises: E1 E2 E3 E4 E5
 */
#include "harness_helpers.h"

HX_FIXTURE(environment)

#define HX_CONFIG HX_ETC "/harness.conf"

/* The harness's start environment: `entries`, plus the ABI cap in force. */
static void start_env(char **out, size_t size, const char *const entries[])
{
	static char cap[64];
	const char *abi = getenv("JR2_MAX_ABI");
	size_t n = 0;

	for (; entries[n] && n + 2 < size; n++)
		out[n] = (char *)entries[n];
	if (abi) {
		snprintf(cap, sizeof(cap), "JR2_MAX_ABI=%s", abi);
		out[n++] = cap;
	}
	out[n] = NULL;
}

static void read_proc_environ(struct __test_metadata *_metadata, pid_t pid,
			      char *out, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	/* The harness is not dumpable: its environ is root's with
	   CAP_SYS_PTRACE only. */
	FX_SKIP_WITHOUT_CAP(CAP_SYS_PTRACE, "reading the harness's environ");
	FX_SKIP_UNLESS_ROOT("reading the harness's environ");
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, out, size - 1);
	close(fd);
	ASSERT_LE(0, n);
	/* NUL-separated entries, as lines. */
	for (ssize_t i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = '\n';
	out[n] = '\0';
}

TEST_F(environment, E1_confined_environment_exact)
{
	const char *const entries[] = {"A=1",
				       "JR2_PRIVATE=2",
				       "JR2_CUSTODIAN_URL=http://custodian",
				       "HOME=/root",
				       "TMPDIR=/var/tmp",
				       "PATH=/usr/bin:/bin",
				       "B=image",
				       NULL};
	const char *const with_secret[] = {"--secret", "GH_TOKEN", NULL};
	char *envp[16], out[HX_OUT_SIZE], expected[2048], token[128],
	    model_key[128], control[128];
	const char *const argv[] = {self->hx.try_tool, "environ", NULL};
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG,
		     "env B=config\nenv C=3\nsecret GH_TOKEN\n"
		     "secret OPENAI_API_KEY\n" HX_TRUST_ETC,
		     0644);
	start_env(envp, 16, entries);
	{
		const char *const extra[] = {"--config", HX_CONFIG, NULL};
		int rc = hx_start_env(_metadata, hx, extra, envp);

		ASSERT_EQ(0, rc);
	}
	hx_standin(_metadata, "GH_TOKEN", token, sizeof(token));
	hx_standin(_metadata, "OPENAI_API_KEY", model_key, sizeof(model_key));
	hx_standin(_metadata, "control", control, sizeof(control));
	/* The workspace lists GH_TOKEN only. */
	ASSERT_EQ(0, hx_exec_opts(hx, with_secret, argv, out, sizeof(out)));
	snprintf(expected, sizeof(expected),
		 "A=1\nJR2_CUSTODIAN_URL=http://custodian\nPATH=/usr/bin:/bin\n"
		 "B=config\nC=3\nHOME=/home/jr2\nTMPDIR=/tmp\nGH_TOKEN=%s\n",
		 token);
	ASSERT_STREQ(expected, out);
	ASSERT_EQ(NULL, strstr(out, model_key));
	ASSERT_EQ(NULL, strstr(out, control));
	/* Without a listed secret: no Stand-in at all. */
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	ASSERT_EQ(NULL, strstr(out, "GH_TOKEN="));
	ASSERT_EQ(NULL, strstr(out, "OPENAI_API_KEY="));
}

/* Occurrences of `needle` in `text`. */
static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *at = text; (at = strstr(at, needle)); at++)
		n++;
	return n;
}

/*
 * A Held secret's name also in the harness's start
 * environment (GH_TOKEN=REAL).  Without --secret the program has no
 * GH_TOKEN; with it, the Stand-in only, once: seen by getenv, in
 * /proc/self/environ and by a shell.
 */
TEST_F(environment, E1_held_secret_in_start_env_never_reaches_programs)
{
	const char *const entries[] = {"GH_TOKEN=REAL-VALUE", "A=1", NULL};
	const char *const with_secret[] = {"--secret", "GH_TOKEN", NULL};
	const char *const get[] = {self->hx.try_tool, "getenv", "GH_TOKEN",
				   NULL};
	const char *const proc_environ[] = {self->hx.try_tool, "proc-environ",
					    NULL};
	const char *const shell[] = {
	    "/bin/sh", "-c", "printf '%s\\n' \"${GH_TOKEN-unset}\"", NULL};
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char *envp[16], out[HX_OUT_SIZE], token[128], line[160];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);
	fx_make_file(_metadata, HX_CONFIG, "secret GH_TOKEN\n" HX_TRUST_ETC,
		     0644);
	start_env(envp, 16, entries);
	ASSERT_EQ(0, hx_start_env(_metadata, hx, extra, envp));
	hx_standin(_metadata, "GH_TOKEN", token, sizeof(token));
	/* Not listed: no GH_TOKEN at all. */
	ASSERT_EQ(0, hx_exec(hx, get, out, sizeof(out)));
	ASSERT_STREQ("(unset)\n", out);
	ASSERT_EQ(0, hx_exec(hx, proc_environ, out, sizeof(out)));
	ASSERT_EQ(0, count(out, "GH_TOKEN="));
	ASSERT_EQ(0, count(out, "REAL-VALUE"));
	ASSERT_EQ(1, count(out, "A=1")); /* positive control */
	ASSERT_EQ(0, hx_exec(hx, shell, out, sizeof(out)));
	ASSERT_STREQ("unset\n", out);
	/* Listed: its Stand-in, once, first and only. */
	snprintf(line, sizeof(line), "%s\n", token);
	ASSERT_EQ(0, hx_exec_opts(hx, with_secret, get, out, sizeof(out)));
	ASSERT_STREQ(line, out);
	ASSERT_EQ(
	    0, hx_exec_opts(hx, with_secret, proc_environ, out, sizeof(out)));
	ASSERT_EQ(1, count(out, "GH_TOKEN="));
	ASSERT_EQ(0, count(out, "REAL-VALUE"));
	ASSERT_EQ(0, hx_exec_opts(hx, with_secret, shell, out, sizeof(out)));
	ASSERT_STREQ(line, out);
}

TEST_F(environment, E1_unknown_secret_refused)
{
	const char *const unknown[] = {"--secret", "NOT_DECLARED", NULL};
	const char *const argv[] = {"/bin/true", NULL};
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char out[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	fx_make_file(_metadata, HX_CONFIG, "secret GH_TOKEN\n" HX_TRUST_ETC,
		     0644);
	HX_START(hx, extra);
	ASSERT_EQ(JR2_EXIT_REFUSED,
		  hx_exec_opts(hx, unknown, argv, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "unknown secret 'NOT_DECLARED'"))
	{
		TH_LOG("answer: %s", out);
	}
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
}

TEST_F(environment, E2_harness_environment_has_no_code_loading_name)
{
	const char *const entries[] = {"LD_PRELOAD=/nonexistent/evil.so",
				       "LD_AUDIT=/nonexistent/audit.so",
				       "LD_LIBRARY_PATH=/nonexistent",
				       "NODE_OPTIONS=--require /app/hook.js",
				       "OPENSSL_CONF=/nonexistent/openssl.cnf",
				       "HTTPS_PROXY=http://proxy:3128",
				       "IMAGE_ENV=1",
				       "JR2_CUSTODIAN_URL=http://custodian",
				       NULL};
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char *envp[16], out[HX_OUT_SIZE], expected[1024], log[HX_OUT_SIZE];
	const char *abi = getenv("JR2_MAX_ABI");
	struct hx *hx = &self->hx;
	int rc;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG,
		     "env KEEP=1\nenv NODE_OPTIONS=--require /x.js\n"
		     "env PYTHONPATH=/x\n" HX_TRUST_ETC,
		     0644);
	start_env(envp, 16, entries);
	rc = hx_start_env(_metadata, hx, extra, envp);
	ASSERT_EQ(0, rc);
	read_proc_environ(_metadata, hx->pid, out, sizeof(out));
	snprintf(expected, sizeof(expected),
		 "KEEP=1\nHTTPS_PROXY=http://proxy:3128\n"
		 "JR2_CUSTODIAN_URL=http://custodian\n%s%s%s"
		 "HOME=" HX_PROTECTED "/home\n"
		 "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:"
		 "/bin\n",
		 abi ? "JR2_MAX_ABI=" : "", abi ? abi : "", abi ? "\n" : "");
	ASSERT_STREQ(expected, out);
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "dropped 'LD_PRELOAD'"));
	ASSERT_NE(NULL, strstr(log, "dropped 'NODE_OPTIONS'"));
}

/* A start environment of n variables (and the suite's cap, if any). */
static char **many_variables(size_t n)
{
	static char cap[64];
	const char *abi = getenv("JR2_MAX_ABI");
	char **envp = calloc(n + 2, sizeof(*envp));
	size_t at = 0;

	for (; envp && at < n; at++)
		if (asprintf(&envp[at], "V%05zu=%zu", at, at) < 0)
			return NULL;
	if (envp && abi) {
		snprintf(cap, sizeof(cap), "JR2_MAX_ABI=%s", abi);
		envp[at] = cap;
	}
	return envp;
}

/*
 * A request to the spawner carries at most 1024 variables (JR2_REQ_MAX_ENV):
 * a start environment with more for the programs is refused at the start,
 * not taken and then failing every request after the spawner's timeout.
 * Its positive control: 1000 variables start, and a program gets the last.
 */
TEST_F(environment, E1_more_variables_than_a_request_carries_refused)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	const char *const argv[] = {"/bin/sh", "-c", "echo $V00999", NULL};
	char log[HX_OUT_SIZE], out[HX_OUT_SIZE];
	struct hx *hx = &self->hx;
	char **envp;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC, 0644);
	envp = many_variables(1100);
	ASSERT_NE(NULL, envp);
	ASSERT_EQ(2, hx_start_env(_metadata, hx, extra, envp));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "more than the 1024 variables a request "
				    "to the spawner carries"))
	{
		TH_LOG("log: %s", log);
	}
	envp = many_variables(1000);
	ASSERT_NE(NULL, envp);
	ASSERT_EQ(0, hx_start_env(_metadata, hx, extra, envp));
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	ASSERT_STREQ("999\n", out);
}

/*
 * A variable of the start environment reaches programs whole, whatever the
 * length of its name (here 300 bytes; Linux bounds an entry only by the
 * size of the whole environment).  Control: a short name beside it.
 */
TEST_F(environment, E1_a_long_variable_name_reaches_programs_whole)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	const char *const argv[] = {self->hx.try_tool, "environ", NULL};
	static char long_entry[320], want[328];
	const char *const entries[] = {"PATH=/usr/bin:/bin", "SHORT=1",
				       long_entry, NULL};
	char *envp[8], out[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);

	memset(long_entry, 'N', 300);
	strcpy(long_entry + 300, "=long");
	snprintf(want, sizeof(want), "\n%s\n", long_entry);
	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC, 0644);
	start_env(envp, 8, entries);
	ASSERT_EQ(0, hx_start_env(_metadata, hx, extra, envp));
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\nSHORT=1\n"));
	ASSERT_NE(NULL, strstr(out, want))
	{
		TH_LOG("environ: %s", out);
	}
}

/* A start environment of n variables of `len` bytes each (and the cap). */
static char **large_variables(size_t n, size_t len)
{
	char **envp = many_variables(n);
	int name;

	for (size_t at = 0; envp && at < n; at++) {
		free(envp[at]);
		envp[at] = malloc(len + 8);
		if (!envp[at])
			return NULL;
		name = snprintf(envp[at], len + 8, "B%zu=", at);
		memset(envp[at] + name, 'v', len);
		envp[at][name + len] = '\0';
	}
	return envp;
}

static bool seqpacket_refuses(size_t len);

/*
 * A spawn request is at most 1 MiB (JR2_SPAWN_MAX_BYTES), the programs'
 * environment included: a start environment larger than that is refused at
 * the start, not taken and then every request refused.  Its positive
 * control: 8 variables of 120,000 bytes start, and a program gets the last.
 */
TEST_F(environment, E1_more_bytes_than_a_request_carries_refused)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	const char *const argv[] = {"/bin/sh", "-c", "echo ${#B7}", NULL};
	char log[HX_OUT_SIZE], out[HX_OUT_SIZE];
	struct hx *hx = &self->hx;
	char **envp;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC, 0644);
	envp = large_variables(9, 120000);
	ASSERT_NE(NULL, envp);
	ASSERT_EQ(2, hx_start_env(_metadata, hx, extra, envp));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "more than the 1048576 bytes a request to "
				    "the spawner carries"))
	{
		TH_LOG("log: %s", log);
	}
	envp = large_variables(8, 120000);
	ASSERT_NE(NULL, envp);
	ASSERT_EQ(0, hx_start_env(_metadata, hx, extra, envp));
	/* Without CAP_NET_ADMIN the harness cannot force its channel past
	   what this kernel takes (E1_a_request_the_channel_cannot_carry_...).
	 */
	if (!fx_has_cap(CAP_NET_ADMIN) && seqpacket_refuses(8 * 120020)) {
		ASSERT_NE(0, hx_exec(hx, argv, out, sizeof(out)));
		ASSERT_NE(NULL, strstr(out, "more than the spawner's channel "
					    "takes here"))
		{
			TH_LOG("exec: %s", out);
		}
		return;
	}
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	ASSERT_STREQ("120000\n", out);
}

/*
 * Whether a SEQPACKET socket pair with 2 MiB asked of SO_SNDBUF and
 * SO_RCVBUF (capped at net.core.wmem_max and rmem_max without
 * CAP_NET_ADMIN) refuses a message of `len` bytes with EMSGSIZE: what this
 * kernel does, read rather than assumed.
 */
static bool seqpacket_refuses(size_t len)
{
	int pair[2], size = 2 << 20;
	char *msg = calloc(1, len);
	bool refused;

	if (!msg || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair)) {
		free(msg);
		return false;
	}
	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	refused =
	    send(pair[0], msg, len, MSG_DONTWAIT) < 0 && errno == EMSGSIZE;
	close(pair[0]);
	close(pair[1]);
	free(msg);
	return refused;
}

/*
 * A harness without CAP_NET_ADMIN cannot force its channel to the spawner
 * past net.core.wmem_max: a request of ~1 MB (8 variables of 120,000 bytes)
 * is then refused at once with why, never kept for a spawner that can
 * never take it.  Where this kernel takes such a message anyway (as it
 * says for a plain socket pair), the program runs and gets the variable.
 */
TEST_F(environment, E1_a_request_the_channel_cannot_carry_is_refused)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	const char *const argv[] = {"/bin/sh", "-c", "echo ${#B7}", NULL};
	char out[HX_OUT_SIZE];
	struct hx *hx = &self->hx;
	char **envp;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC, 0644);
	envp = large_variables(8, 120000);
	ASSERT_NE(NULL, envp);
	hx->no_net_admin = true;
	ASSERT_EQ(0, hx_start_env(_metadata, hx, extra, envp))
	{
		char log[HX_OUT_SIZE];

		hx_log(log, sizeof(log));
		TH_LOG("log: %s", log);
	}
	if (seqpacket_refuses(8 * 120020)) {
		TH_LOG(
		    "this kernel refuses such a message: a refusal expected");
		ASSERT_NE(0, hx_exec(hx, argv, out, sizeof(out)));
		ASSERT_NE(NULL, strstr(out, "more than the spawner's channel "
					    "takes here"))
		{
			TH_LOG("exec: %s", out);
		}
	} else {
		TH_LOG("this kernel takes such a message: the program runs");
		ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
		ASSERT_STREQ("120000\n", out);
	}
}

TEST_F(environment, E3_jr2_name_in_config_refused)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char log[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG, "env OK=1\nenv JR2_TOKEN=x\n", 0644);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "line 2: environment name 'JR2_TOKEN' "
				    "starts with JR2_"))
	{
		TH_LOG("log: %s", log);
	}
	/* Positive control: the same config without that line starts. */
	ASSERT_EQ(0, unlink(HX_CONFIG));
	fx_make_file(_metadata, HX_CONFIG, "env OK=1\n" HX_TRUST_ETC, 0644);
	HX_START(hx, extra);
}

TEST_F(environment, E3_jr2_secret_name_refused)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char log[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG, "secret JR2_CONTROL\n", 0644);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "secret name 'JR2_CONTROL'"));
}

/*
 * HOME and TMPDIR are the harness's for every program: as a Held secret's
 * name, a program that lists no secret would still get it.  Refused; its
 * positive control: a secret HOME_TOKEN starts.
 */
TEST_F(environment, E3_secret_named_home_or_tmpdir_refused)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char log[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);

	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC "secret HOME\n", 0644);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "secret 'HOME' is a name the harness sets"))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_EQ(0, unlink(HX_CONFIG));
	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC "secret TMPDIR\n",
		     0644);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	ASSERT_EQ(0, unlink(HX_CONFIG));
	fx_make_file(_metadata, HX_CONFIG, HX_TRUST_ETC "secret HOME_TOKEN\n",
		     0644);
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
}

TEST_F(environment, E4_config_in_sandbox_area_refused)
{
	const char *const extra[] = {"--config", "/tmp/harness.conf", NULL};
	char log[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);

	fx_mount_tmpfs(_metadata, "jr2-e4", "/tmp", "size=1m");
	fx_make_file(_metadata, "/tmp/harness.conf", "env A=1\n", 0644);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "--config '/tmp/harness.conf'"))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_NE(NULL, strstr(log, "a folder the sandbox writes"));
}

/* harness.env names a file the harness reads (its own environment, E2). */
TEST_F(environment, E4_file_named_by_env_refused_or_warned)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char log[HX_OUT_SIZE];
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);
	fx_mount_tmpfs(_metadata, "jr2-e4", "/tmp", "size=1m");
	fx_make_file(_metadata, "/tmp/aws-config", "[default]\n", 0644);
	fx_make_file(_metadata, HX_CONFIG,
		     "env AWS_CONFIG_FILE=/tmp/aws-config\n" HX_TRUST_ETC,
		     0644);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "AWS_CONFIG_FILE '/tmp/aws-config'"))
	{
		TH_LOG("log: %s", log);
	}
	/* Elsewhere: it starts, with a warning when the sandbox can write. */
	fx_make_file(_metadata, HX_ETC "/aws-config", "[default]\n", 0666);
	ASSERT_EQ(0, unlink(HX_CONFIG));
	fx_make_file(_metadata, HX_CONFIG,
		     "env AWS_CONFIG_FILE=" HX_ETC "/aws-config\n" HX_TRUST_ETC,
		     0644);
	ASSERT_EQ(0, truncate(HX_LOG, 0));
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "warning: AWS_CONFIG_FILE"))
	{
		TH_LOG("log: %s", log);
	}
	/* Positive control: not writable by the sandbox user, no warning. */
	hx_stop(hx);
	ASSERT_EQ(0, chmod(HX_ETC "/aws-config", 0644));
	ASSERT_EQ(0, truncate(HX_LOG, 0));
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	/* A harness of its programs' uid (a non-root pod) owns the file:
	   a program may chmod it again, so the warning stays. */
	if (geteuid() != 0) {
		ASSERT_NE(NULL, strstr(log, "warning: AWS_CONFIG_FILE"));
		return;
	}
	ASSERT_EQ(NULL, strstr(log, "warning"));
}

TEST_F(environment, E5_home_in_protected_dir_and_fresh_standins)
{
	const char *const extra[] = {"--config", HX_CONFIG, NULL};
	char first[128], second[128], token1[128], token2[128], fetch[128],
	    out[HX_OUT_SIZE];
	struct hx *hx = &self->hx;
	struct stat st;

	fx_make_file(_metadata, HX_CONFIG, "secret GH_TOKEN\n" HX_TRUST_ETC,
		     0644);
	HX_START(hx, extra);
	read_proc_environ(_metadata, hx->pid, out, sizeof(out));
	ASSERT_NE(NULL, strstr(out, "\nHOME=" HX_PROTECTED "/home\n"));
	ASSERT_EQ(0, stat(HX_STANDINS, &st));
	ASSERT_EQ(0600, st.st_mode & 07777);
	ASSERT_EQ(geteuid(), st.st_uid);
	ASSERT_STREQ("EACCES", HX_TRY(hx, "read-file", HX_STANDINS));
	ASSERT_STREQ("EACCES", HX_TRY(hx, "read-file", HX_BEARER));
	hx_standin(_metadata, "control", first, sizeof(first));
	hx_standin(_metadata, "GH_TOKEN", token1, sizeof(token1));
	hx_standin(_metadata, "fetch", fetch, sizeof(fetch));
	ASSERT_STREQ("jr2-fetch-public", fetch);
	ASSERT_EQ(68, strlen(first));
	ASSERT_EQ(0, strncmp(first, "jr2-", 4));
	hx_stop(hx);
	HX_START(hx, extra);
	hx_standin(_metadata, "control", second, sizeof(second));
	hx_standin(_metadata, "GH_TOKEN", token2, sizeof(token2));
	hx_standin(_metadata, "fetch", fetch, sizeof(fetch));
	ASSERT_STRNE(first, second);
	ASSERT_STRNE(token1, token2);
	ASSERT_STRNE(first, token1);
	ASSERT_STREQ("jr2-fetch-public", fetch);
}

TEST_HARNESS_MAIN
