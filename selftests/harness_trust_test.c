// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the harness trusts is out of its programs' reach, and a start it
 * refuses changes nothing: the bearer file and the config lie in a protected
 * dir or a read-only tree of the policy (E4); a config with a NUL byte, an
 * over-long line or a byte that is not text is refused, as jr2-confine
 * refuses it (E4); every bad input of `serve` and `exec` gets its documented
 * exit code, one line with the fix, and leaves the file system as it was
 * (E6); a squatted abstract name is refused naming its holder (R8, E6); the
 * internal --start-env-fd cannot bring a name that loads code in (E2); a
 * bearer file that is not a regular file is refused at once by serve, status
 * and exec, and a client with no harness on its --root says so (E6); each
 * path of a variable whose value names files is checked, as what its
 * programs take: a ':' list (KUBECONFIG's files, SSL_CERT_DIR's and
 * NODE_ICU_DATA's folders) path by path, a path of the wrong kind or a
 * relative one refused (E4).
 *
 * Promises: E2 E4 E6 R8
 */
#include "harness_helpers.h"

HX_FIXTURE(harness_trust)

#define CONFIG HX_ETC "/harness.conf"
#define BEARER HX_ETC "/bearer"

/*
 * Everything under /mnt but the log, as "path mode size content-digest"
 * lines: what a refused start must leave as it was.
 */
static void snapshot_at(const char *dir, char *out, size_t size, size_t *used)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		unsigned long sum = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "harness.log"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISREG(st.st_mode)) {
			char buf[4096];
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			ssize_t n;

			while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
				for (ssize_t i = 0; i < n; i++)
					sum = sum * 131 + (unsigned char)buf[i];
			if (fd >= 0)
				close(fd);
		}
		if (*used < size)
			*used += (size_t)snprintf(
			    out + *used, size - *used, "%s %o %lld %lx\n", path,
			    st.st_mode, (long long)st.st_size, sum);
		if (S_ISDIR(st.st_mode))
			snapshot_at(path, out, size, used);
	}
	closedir(d);
}

static void snapshot(char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	snapshot_at(HX_MNT, out, size, &used);
}

/* Runs `jr2-harness serve ARGS` to its refusal: status, log in out. */
static int refused_start(struct __test_metadata *_metadata, struct hx *hx,
			 const char *const args[], char *out, size_t size)
{
	char *argv[24] = {hx->harness, "serve", "--root", HX_ROOT};
	int n = 4, status = -1;

	for (int i = 0; args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	EXPECT_EQ(0, fx_run(argv, out, size, &status));
	if (status == 0)
		TH_LOG("serve did not refuse: %s", out);
	return status;
}

/* A bearer file where a program could read or change it: outside
 * every restricted dir, or in a read-only tree, which programs read (with
 * it, exec --secret gives a program every Held secret's Stand-in). */
TEST_F(harness_trust, E4_bearer_file_outside_trusted_trees_refused)
{
	struct hx *hx = &self->hx;
	const char *const args[] = {"--bearer-file", BEARER, NULL};
	const char *const readable[] = {"--bearer-file", BEARER, "--config",
					CONFIG, NULL};
	const char *const trusted[] = {"--bearer-file", HX_SECRET "/bearer",
				       "--config", CONFIG, NULL};
	char before[8192], after[8192], out[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	fx_make_file(_metadata, BEARER, "a-long-enough-bearer\n", 0600);
	snapshot(before, sizeof(before));
	ASSERT_EQ(2, refused_start(_metadata, hx, args, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "--bearer-file '" BEARER "'"))
	{
		TH_LOG("%s", out);
	}
	ASSERT_NE(NULL, strstr(out, "add 'protect <its folder>'"));
	/* A harness of its programs' uid (a non-root pod) warns first that
	   the file is theirs to write: the refusal is then one line. */
	while (geteuid() != 0 && !strncmp(out, "jr2-harness: warning: ", 22) &&
	       strchr(out, '\n'))
		memmove(out, strchr(out, '\n') + 1,
			strlen(strchr(out, '\n') + 1) + 1);
	ASSERT_EQ(NULL, strchr(out, '\n') + 1 < out + strlen(out)
			    ? strchr(strchr(out, '\n') + 1, '\n')
			    : NULL) /* one line */
	{
		TH_LOG("%s", out);
	}
	snapshot(after, sizeof(after));
	ASSERT_STREQ(before, after);
	/* In a read-only tree (programs read it): refused too. */
	fx_make_file(_metadata, CONFIG, HX_TRUST_ETC, 0644);
	snapshot(before, sizeof(before));
	ASSERT_EQ(2, refused_start(_metadata, hx, readable, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "a confined program could read it"))
	{
		TH_LOG("%s", out);
	}
	snapshot(after, sizeof(after));
	ASSERT_STREQ(before, after);
	/* Positive control: in a protected dir of the policy, it starts, and
	 * no program can read or change it. */
	unlink(CONFIG);
	fx_make_file(_metadata, CONFIG, HX_TRUST_ETC HX_TRUST_SECRET, 0644);
	fx_make_dir(_metadata, HX_SECRET, 0700);
	fx_make_file(_metadata, HX_SECRET "/bearer", "a-long-enough-bearer\n",
		     0600);
	hx->bearer_file = HX_SECRET "/bearer";
	HX_START(hx, trusted);
	ASSERT_STREQ("EACCES", HX_TRY(hx, "open-read", HX_SECRET "/bearer"));
	ASSERT_STREQ(hx_write_denied(),
		     HX_TRY(hx, "open-write", HX_SECRET "/bearer"));
	ASSERT_STREQ(hx_write_denied(),
		     HX_TRY(hx, "unlink", HX_SECRET "/bearer"));
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
}

/* A config a program could rewrite (drop a `protect` line). */
TEST_F(harness_trust, E4_config_outside_trusted_trees_refused)
{
	struct hx *hx = &self->hx;
	const char *const args[] = {"--config", CONFIG, NULL};
	char before[8192], after[8192], out[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	fx_make_dir(_metadata, HX_MNT "/keep", 0755);
	fx_make_file(_metadata, CONFIG, "protect " HX_MNT "/keep\n", 0644);
	snapshot(before, sizeof(before));
	ASSERT_EQ(2, refused_start(_metadata, hx, args, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "--config '" CONFIG "'"))
	{
		TH_LOG("%s", out);
	}
	ASSERT_NE(NULL, strstr(out, "outside every protected dir and "
				    "read-only tree"));
	snapshot(after, sizeof(after));
	ASSERT_STREQ(before, after);
	/* Positive control: its folder read-only, it starts; the programs can
	 * neither rewrite nor remove it, and the protect line holds. */
	ASSERT_EQ(0, unlink(CONFIG));
	fx_make_file(_metadata, CONFIG,
		     "protect " HX_MNT "/keep\n" HX_TRUST_ETC, 0644);
	HX_START(hx, args);
	ASSERT_STREQ(hx_write_denied(), HX_TRY(hx, "open-write", CONFIG));
	ASSERT_STREQ(hx_write_denied(), HX_TRY(hx, "unlink", CONFIG));
	ASSERT_STREQ(hx_write_denied(), HX_TRY(hx, "mkdir", HX_MNT "/keep/x"));
}

/*
 * A NUL byte, an over-long line, a byte that is not text: the harness
 * refuses the config (nothing after it was taken silently), with the message
 * jr2-confine gives for the same file.
 */
TEST_F(harness_trust, E4_config_text_refused_as_jr2_confine_does)
{
	struct hx *hx = &self->hx;
	const char *const args[] = {"--config", CONFIG, NULL};
	static const struct {
		const char *text;
		size_t len;
		const char *why;
	} cases[] = {
	    {HX_TRUST_ETC "\0protect /mnt/keep\n", sizeof(HX_TRUST_ETC) + 18,
	     "a NUL byte"},
	    {HX_TRUST_ETC "\x1b[2Kprotect /mnt/keep\n",
	     sizeof(HX_TRUST_ETC) + 21, "byte 0x1b"},
	    {HX_TRUST_ETC "protect /mnt/k\xc3\n", sizeof(HX_TRUST_ETC) + 16,
	     "byte 0xc3"},
	};
	char confine[PATH_MAX], out[HX_OUT_SIZE], mine[HX_OUT_SIZE];
	char long_line[5000];
	int status;

	HX_REQUIRE_ACCEPTED(hx);
	FX_FIND_TOOL("jr2-confine", confine);
	fx_make_dir(_metadata, HX_MNT "/keep", 0755);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) + 1; i++) {
		char *const check[] = {confine, "rules", "--config", CONFIG,
				       NULL};
		const char *why = i < 3 ? cases[i].why : "longer than";
		int fd;

		unlink(CONFIG);
		fd =
		    open(CONFIG, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		ASSERT_LE(0, fd);
		if (i < 3) {
			ASSERT_EQ((ssize_t)cases[i].len,
				  write(fd, cases[i].text, cases[i].len));
		} else {
			memset(long_line, 'a', sizeof(long_line));
			memcpy(long_line, "protect /", 9);
			long_line[sizeof(long_line) - 1] = '\n';
			ASSERT_EQ((ssize_t)sizeof(long_line),
				  write(fd, long_line, sizeof(long_line)));
		}
		close(fd);
		ASSERT_EQ(
		    2, refused_start(_metadata, hx, args, mine, sizeof(mine)));
		ASSERT_NE(NULL, strstr(mine, why))
		{
			TH_LOG("case %zu: %s", i, mine);
		}
		ASSERT_EQ(0, access(HX_ROOT "/run", F_OK) ? 0 : -1);
		/* jr2-confine: the same refusal, the same words. */
		ASSERT_EQ(0, fx_run(check, out, sizeof(out), &status));
		ASSERT_EQ(2, status);
		mine[strcspn(mine, "\n")] = '\0';
		ASSERT_NE(NULL, strstr(out, strstr(mine, "config '")))
		{
			TH_LOG("harness: %s; jr2-confine: %s", mine, out);
		}
	}
	/* Positive control: the same lines, clean, start. */
	unlink(CONFIG);
	fx_make_file(_metadata, CONFIG, HX_TRUST_ETC "protect /mnt/keep\n",
		     0644);
	HX_START(hx, args);
	ASSERT_STREQ(hx_write_denied(), HX_TRY(hx, "mkdir", HX_MNT "/keep/x"));
}

/*
 * A --root that does not exist (a typo, a name that is not text) is refused
 * in one line naming it and the fix, exit 2, nothing made; --make-root makes
 * it.
 */
TEST_F(harness_trust, E6_missing_root_refused_unless_make_root)
{
	static const struct {
		const char *root, *shown;
	} cases[] = {
	    {HX_MNT "/missing/deeper", "'" HX_MNT "/missing/deeper'"},
	    {HX_MNT "/\xff\x01", "$'" HX_MNT "/\\xff\\x01'"},
	};
	struct hx *hx = &self->hx;
	char before[8192], after[8192], out[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const args[] = {"--root", cases[i].root, NULL};
		char want[256];

		snapshot(before, sizeof(before));
		ASSERT_EQ(2,
			  refused_start(_metadata, hx, args, out, sizeof(out)));
		snprintf(want, sizeof(want),
			 "jr2-harness: --root %s does not exist; make it first "
			 "(mkdir -p -- %s) or add --make-root\n",
			 cases[i].shown, cases[i].shown);
		ASSERT_STREQ(want, out);
		snapshot(after, sizeof(after));
		ASSERT_STREQ(before, after);
	}
	/* Positive control: asked to, it makes the root and serves there. */
	{
		const char *const args[] = {"--root", cases[0].root,
					    "--make-root", NULL};

		HX_START(hx, args);
		ASSERT_EQ(0, access(HX_MNT "/missing/deeper/run/jr2/stand-ins",
				    F_OK));
	}
}

/*
 * Bad input: each refused start exits 2 with its fix and leaves the file
 * system as it found it (here: after an earlier harness left its files).
 */
TEST_F(harness_trust, E6_refused_starts_change_nothing)
{
	struct hx *hx = &self->hx;
	char before[8192], after[8192], out[HX_OUT_SIZE];
	static const struct {
		const char *args[5];
		const char *fix;
	} cases[] = {
	    {{"--config", CONFIG, NULL}, "is not an existing folder"},
	    {{"--root", HX_MNT "/link", NULL}, "is a symlink"},
	    {{"--root", HX_MNT "/h/../h", NULL}, "without '.' or '..'"},
	    {{"--root", HX_MNT "/./h", NULL}, "without '.' or '..'"},
	    {{"--bearer-file", HX_SECRET "/short", "--config", CONFIG + 0,
	      NULL},
	     "write a secret of at least 16"},
	    {{"--bearer-file", HX_ETC "/none", NULL}, "No such file"},
	    {{"--max-abi", "99", NULL}, "is not an ABI"},
	};

	HX_REQUIRE_ACCEPTED(hx);
	/* First start, refused only when the policy compiles (after the
	 * protected dir was made): the dirs it made are gone again. */
	{
		const char *const args[] = {"--config", CONFIG, NULL};

		fx_make_file(_metadata, CONFIG,
			     "protect " HX_ETC "\nread-only " HX_ETC "\n",
			     0644);
		snapshot(before, sizeof(before));
		ASSERT_EQ(2,
			  refused_start(_metadata, hx, args, out, sizeof(out)));
		ASSERT_NE(NULL, strstr(out, "the policy does not compile"))
		{
			TH_LOG("%s", out);
		}
		snapshot(after, sizeof(after));
		ASSERT_STREQ(before, after);
		ASSERT_NE(0, access(HX_ROOT "/run", F_OK));
	}
	HX_START(hx, NULL);
	hx_stop(hx); /* its home and protected dir stay */
	ASSERT_EQ(0, symlink(HX_ROOT, HX_MNT "/link"));
	fx_make_dir(_metadata, HX_SECRET, 0700);
	fx_make_file(_metadata, HX_SECRET "/short", "short\n", 0600);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Case 0: a protect line naming a folder that is not there;
		 * case 4: a valid config, so that the bearer is what fails. */
		unlink(CONFIG);
		fx_make_file(_metadata, CONFIG,
			     i == 0 ? HX_TRUST_ETC "protect /mnt/missing\n"
				    : HX_TRUST_ETC HX_TRUST_SECRET,
			     0644);
		snapshot(before, sizeof(before));
		ASSERT_EQ(2, refused_start(_metadata, hx, cases[i].args, out,
					   sizeof(out)))
		{
			TH_LOG("case %zu: %s", i, out);
		}
		ASSERT_NE(NULL, strstr(out, cases[i].fix))
		{
			TH_LOG("case %zu: %s", i, out);
		}
		snapshot(after, sizeof(after));
		ASSERT_STREQ(before, after)
		{
			TH_LOG("case %zu changed the file system", i);
		}
	}
	/* Positive control: the good start from the same state works. */
	HX_START(hx, NULL);
}

/*
 * A program that outlived the harness holds @jr2:<protected dir>.
 * The next start is refused naming the holder's pid, before it rewrote
 * control.bearer or the Stand-ins or left a socket.
 */
TEST_F(harness_trust, R8_E6_squatted_abstract_name_refused_naming_holder)
{
	struct hx *hx = &self->hx;
	char before[8192], after[8192], out[HX_OUT_SIZE], want[64];
	const char *const none[] = {NULL};
	int ready[2];
	pid_t squatter;
	char c;

	HX_START(hx, NULL);
	hx_stop(hx);
	ASSERT_EQ(0, pipe(ready));
	squatter = fork();
	ASSERT_LE(0, squatter);
	if (squatter == 0) {
		struct sockaddr_un addr = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memcpy(addr.sun_path + 1, HX_ABSTRACT, strlen(HX_ABSTRACT));
		if (bind(fd, (struct sockaddr *)&addr,
			 (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     1 + strlen(HX_ABSTRACT))) ||
		    listen(fd, 1))
			_exit(1);
		(void)!write(ready[1], "r", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	snapshot(before, sizeof(before));
	ASSERT_EQ(1, refused_start(_metadata, hx, none, out, sizeof(out)));
	snprintf(want, sizeof(want), "is taken by pid %d", (int)squatter);
	ASSERT_NE(NULL, strstr(out, want))
	{
		TH_LOG("%s", out);
	}
	snapshot(after, sizeof(after));
	ASSERT_STREQ(before, after);
	/* Positive control: the holder gone, the harness starts. */
	kill(squatter, SIGKILL);
	waitpid(squatter, NULL, 0);
	HX_START(hx, NULL);
}

/* The internal --start-env-fd from a user's command line. */
TEST_F(harness_trust, E2_start_env_fd_from_a_user_refused)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE];
	char *const env[] = {"LD_AUDIT=/nonexistent/audit.so", NULL};
	int fd = memfd_create("jr2-start-environment", MFD_ALLOW_SEALING);
	char fd_arg[16];
	int status;

	HX_REQUIRE_ACCEPTED(hx);
	ASSERT_LE(3, fd);
	ASSERT_EQ(
	    0, fcntl(fd, F_ADD_SEALS,
		     F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE));
	snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
	{
		char *const argv[] = {hx->harness, "serve",	     "--root",
				      HX_ROOT,	   "--start-env-fd", fd_arg,
				      NULL};
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			int log =
			    open(HX_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			dup2(log, 2);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			execve(argv[0], argv, env);
			_exit(127);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	}
	hx_log(out, sizeof(out));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(2, WEXITSTATUS(status))
	{
		TH_LOG("log: %s", out);
	}
	ASSERT_NE(NULL, strstr(out, "--start-env-fd is internal"));
	ASSERT_NE(0, access(HX_ROOT "/run", F_OK));
	/* Positive control: without the flag the same environment starts
	 * (and LD_AUDIT is dropped, E2). */
	close(fd);
	ASSERT_EQ(0, hx_start_env(_metadata, hx, NULL, env));
	hx_log(out, sizeof(out));
	ASSERT_NE(NULL, strstr(out, "dropped 'LD_AUDIT'"));
}

/*
 * Bad input of exec: usage errors are 2 (not 125), a --cwd that cannot be
 * entered its own 124 (not 127, "command not found"); a long path keeps the
 * fix of its message.
 */
TEST_F(harness_trust, E6_exec_bad_inputs_exit_codes)
{
	struct hx *hx = &self->hx;
	const char *const empty[] = {"", NULL};
	const char *const truth[] = {"/bin/true", NULL};
	const char *const secret_value[] = {"--secret", "A=B", NULL};
	const char *const closed_fd[] = {"--pass-fd", "77", NULL};
	const char *const missing_cwd[] = {"--cwd", HX_MNT "/missing", NULL};
	static const char *const bad_numbers[] = {
	    "+3", " 3", "3 ", "3x", "", "99999999999999999999"};
	char out[HX_OUT_SIZE], long_config[3000];
	char *const long_serve[] = {hx->harness, "serve",     "--root", HX_ROOT,
				    "--config",	 long_config, NULL};
	int status;

	HX_START(hx, NULL);
	ASSERT_EQ(2, hx_exec(hx, empty, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "name a program"));
	ASSERT_EQ(2, hx_exec_opts(hx, secret_value, truth, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "give the name only"));
	ASSERT_EQ(2, hx_exec_opts(hx, closed_fd, truth, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "--pass-fd 77 is not an open descriptor"));
	ASSERT_EQ(JR2_EXIT_CWD,
		  hx_exec_opts(hx, missing_cwd, truth, out, sizeof(out)));
	/* Numbers are digits only: no sign, no space, no trailing text. */
	for (size_t i = 0; i < sizeof(bad_numbers) / sizeof(*bad_numbers);
	     i++) {
		const char *const pass_fd[] = {"--pass-fd", bad_numbers[i],
					       NULL};
		char *const serve_grace[] = {
		    hx->harness, "serve",	    "--root",
		    HX_ROOT,	 "--stop-grace-ms", (char *)bad_numbers[i],
		    NULL};
		char *const serve_abi[] = {hx->harness, "serve",
					   "--root",	HX_ROOT,
					   "--max-abi", (char *)bad_numbers[i],
					   NULL};

		EXPECT_EQ(2, hx_exec_opts(hx, pass_fd, truth, out, sizeof(out)))
		TH_LOG("--pass-fd '%s': %s", bad_numbers[i], out);
		EXPECT_NE(NULL, strstr(out, "is not a number from 0"));
		ASSERT_EQ(0, fx_run(serve_grace, out, sizeof(out), &status));
		EXPECT_EQ(2, status) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "--stop-grace-ms '"))
		TH_LOG("%s", out);
		ASSERT_EQ(0, fx_run(serve_abi, out, sizeof(out), &status));
		EXPECT_EQ(2, status) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "is not an ABI")) TH_LOG("%s", out);
	}
	ASSERT_EQ(0, hx_exec(hx, truth, out, sizeof(out)));
	/* A long path: the message still ends with its fix. */
	memset(long_config, 'c', sizeof(long_config) - 1);
	long_config[0] = '/';
	for (size_t i = 200; i < sizeof(long_config) - 1; i += 200)
		long_config[i] = '/';
	long_config[sizeof(long_config) - 1] = '\0';
	ASSERT_EQ(0, fx_run(long_serve, out, sizeof(out), &status));
	ASSERT_EQ(2, status);
	ASSERT_NE(NULL, strstr(out, "name a readable file\n"))
	{
		TH_LOG("%s", out);
	}
}

/*
 * `jr2-harness serve --root HX_ROOT` by /bin/sh running `how` first (the
 * standard descriptors it leaves); 0 once `status` answers, else the exit
 * status it ended with, or -1 when it neither served nor ended in time.
 * It is stopped (SIGTERM) before this returns.
 */
static int serve_after(struct __test_metadata *_metadata, struct hx *hx,
		       const char *how)
{
	char script[128];
	char *const serve[] = {"/bin/sh", "-c",	    script,  "sh", hx->harness,
			       "serve",	  "--root", HX_ROOT, NULL};
	char out[HX_OUT_SIZE];
	int ret = -1, wstatus;
	pid_t pid;

	snprintf(script, sizeof(script), "%s; exec \"$@\"", how);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(null, 0);
		dup2(null, 1);
		execv(serve[0], serve);
		_exit(127);
	}
	for (int waited = 0; waited < HX_READY_MS && ret < 0; waited += 50) {
		if (waitpid(pid, &wstatus, WNOHANG) == pid)
			return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
						  : 128 + WTERMSIG(wstatus);
		if (hx_status(hx, out, sizeof(out)) == 0)
			ret = 0;
		else
			usleep(50000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &wstatus, 0);
	return ret;
}

/*
 * A harness started with stderr closed serves: its own files (the start's
 * environment, handed to its re-execution) take no standard descriptor's
 * number, where one taken as stderr ended the start with exit 2 and no
 * word.  A closed standard descriptor is /dev/null before anything opens.
 */
TEST_F(harness_trust, E6_a_start_with_stderr_closed_serves)
{
	struct hx *hx = &self->hx;

	HX_REQUIRE_ACCEPTED(hx);
	/* Positive control: with stderr open (to /dev/null), it serves. */
	ASSERT_EQ(0, serve_after(_metadata, hx, "exec 2>/dev/null"));
	ASSERT_EQ(0, serve_after(_metadata, hx, "exec 2>&-"));
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * --bearer-file naming a FIFO, a directory, a socket or /dev/zero: `serve`,
 * `status` and `exec` each give one line naming its type and exit 2, in
 * under a second (a FIFO's plain open waits for a writer for ever), and the
 * refused start changes nothing.  Control: the harness's own bearer file.
 */
TEST_F(harness_trust, E6_bearer_file_not_regular_refused)
{
	struct hx *hx = &self->hx;
	static const struct {
		const char *path, *kind;
	} bad[] = {
	    {HX_SECRET "/fifo", "is a FIFO"},
	    {HX_SECRET "/dir", "is a directory"},
	    {HX_SECRET "/sock", "is a socket"},
	    {"/dev/zero", "is a character device"},
	};
	const char *const truth[] = {"/bin/true", NULL};
	char before[8192], after[8192], out[HX_OUT_SIZE], expected[128];
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int sock;

	HX_REQUIRE_ACCEPTED(hx);
	fx_make_dir(_metadata, HX_SECRET, 0700);
	ASSERT_EQ(0, mkfifo(HX_SECRET "/fifo", 0600));
	fx_make_dir(_metadata, HX_SECRET "/dir", 0700);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", HX_SECRET "/sock");
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, sock);
	ASSERT_EQ(0, bind(sock, (struct sockaddr *)&sun, sizeof(sun)));
	ASSERT_EQ(0, listen(sock, 1));
	fx_make_file(_metadata, CONFIG, HX_TRUST_ETC HX_TRUST_SECRET, 0644);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *const args[] = {"--bearer-file", bad[i].path,
					    "--config", CONFIG, NULL};
		long start = now_ms();

		snapshot(before, sizeof(before));
		ASSERT_EQ(2,
			  refused_start(_metadata, hx, args, out, sizeof(out)))
		{
			TH_LOG("serve, %s: %s", bad[i].path, out);
		}
		ASSERT_GT(1000, now_ms() - start);
		snprintf(expected, sizeof(expected), "'%s' %s", bad[i].path,
			 bad[i].kind);
		ASSERT_NE(NULL, strstr(out, expected))
		{
			TH_LOG("serve: '%s' lacks '%s'", out, expected);
		}
		snapshot(after, sizeof(after));
		ASSERT_STREQ(before, after);
	}
	HX_START(hx, NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		long start = now_ms();

		snprintf(expected, sizeof(expected), "'%s' %s", bad[i].path,
			 bad[i].kind);
		hx->bearer_file = bad[i].path;
		ASSERT_EQ(2, hx_status(hx, out, sizeof(out)))
		{
			TH_LOG("status, %s: %s", bad[i].path, out);
		}
		ASSERT_NE(NULL, strstr(out, expected)) TH_LOG("%s", out);
		ASSERT_EQ(2, hx_exec(hx, truth, out, sizeof(out)))
		{
			TH_LOG("exec, %s: %s", bad[i].path, out);
		}
		ASSERT_NE(NULL, strstr(out, expected)) TH_LOG("%s", out);
		ASSERT_GT(1000, now_ms() - start);
		hx->bearer_file = NULL;
	}
	/* Control: the harness's own bearer file. */
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(0, hx_exec(hx, truth, out, sizeof(out))) TH_LOG("%s", out);
	close(sock);
}

/*
 * The other files serve reads: a --config and a file its environment names
 * (AWS_CONFIG_FILE) that are FIFOs give one line (the latter naming the
 * type) and exit 2 in under a second, and the refused start changes nothing.
 * Control: the same names as regular files start.
 */
TEST_F(harness_trust, E4_E6_read_files_not_regular_refused)
{
	struct hx *hx = &self->hx;
	const char *const fifo_config[] = {"--config", HX_SECRET "/fifo", NULL};
	const char *const env_config[] = {"--config", CONFIG, NULL};
	char before[8192], after[8192], out[HX_OUT_SIZE];
	long start;

	HX_REQUIRE_ACCEPTED(hx);
	fx_make_dir(_metadata, HX_SECRET, 0700);
	ASSERT_EQ(0, mkfifo(HX_SECRET "/fifo", 0600));
	fx_make_file(_metadata, CONFIG,
		     "env AWS_CONFIG_FILE=" HX_SECRET
		     "/fifo\n" HX_TRUST_ETC HX_TRUST_SECRET,
		     0644);
	snapshot(before, sizeof(before));
	start = now_ms();
	ASSERT_EQ(2,
		  refused_start(_metadata, hx, fifo_config, out, sizeof(out)));
	ASSERT_GT(1000, now_ms() - start);
	ASSERT_NE(NULL, strstr(out, "--config '" HX_SECRET
				    "/fifo' is not a regular file"))
	TH_LOG("%s", out);
	start = now_ms();
	ASSERT_EQ(2,
		  refused_start(_metadata, hx, env_config, out, sizeof(out)));
	ASSERT_GT(1000, now_ms() - start);
	ASSERT_NE(NULL,
		  strstr(out, "AWS_CONFIG_FILE '" HX_SECRET "/fifo' is a FIFO"))
	TH_LOG("%s", out);
	snapshot(after, sizeof(after));
	ASSERT_STREQ(before, after);
	/* Control: a regular file under the same name starts. */
	ASSERT_EQ(0, unlink(HX_SECRET "/fifo"));
	fx_make_file(_metadata, HX_SECRET "/fifo", "[default]\n", 0600);
	ASSERT_EQ(0, hx_start(_metadata, hx, env_config));
}

#define HT_RO HX_MNT "/ro"

/*
 * The trees of the E4 tests below: HT_RO a read-only tree of the config
 * (files a and b, a folder icu, a FIFO), and /tmp (a tmpfs: the sandbox
 * writes there) with the same.
 */
static void ht_make_trees(struct __test_metadata *_metadata)
{
	fx_mount_tmpfs(_metadata, "jr2-e4", "/tmp", "size=1m");
	fx_make_dir(_metadata, HT_RO, 0755);
	fx_make_dir(_metadata, HT_RO "/icu", 0755);
	fx_make_dir(_metadata, "/tmp/icu", 0755);
	fx_make_file(_metadata, HT_RO "/a", "apiVersion: v1\n", 0644);
	fx_make_file(_metadata, HT_RO "/b", "apiVersion: v1\n", 0644);
	fx_make_file(_metadata, "/tmp/b", "apiVersion: v1\n", 0644);
	ASSERT_EQ(0, mkfifo(HT_RO "/fifo", 0644));
	fx_make_file(_metadata, CONFIG, HX_TRUST_ETC "read-only " HT_RO "\n",
		     0644);
}

/*
 * `serve --config CONFIG` with a start environment of PATH and `var`: its
 * status (0: it served, then stopped), the log of this start in log.
 */
static int ht_start_with(struct __test_metadata *_metadata, struct hx *hx,
			 const char *var, char *log, size_t size)
{
	const char *const extra[] = {"--config", CONFIG, NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", (char *)var, NULL};
	int status;

	ASSERT_EQ(0, truncate(HX_LOG, 0) && errno != ENOENT);
	status = hx_start_env(_metadata, hx, extra, envp);
	hx_log(log, size);
	hx_stop(hx);
	return status;
}

/* Starts (0) with `var`, or says why not. */
#define HT_STARTS(hx, var, log)                                               \
	do {                                                                  \
		int ht_status =                                               \
		    ht_start_with(_metadata, hx, var, log, sizeof(log));      \
		ASSERT_EQ(0, ht_status)                                       \
		{                                                             \
			TH_LOG("%s: serve ended with %d: %s", var, ht_status, \
			       log);                                          \
		}                                                             \
	} while (0)

/* Refused with exit 2 (JR2_EXIT_USAGE), the log naming `says`. */
#define HT_REFUSED(hx, var, log, says)                                        \
	do {                                                                  \
		int ht_status =                                               \
		    ht_start_with(_metadata, hx, var, log, sizeof(log));      \
		ASSERT_EQ(2, ht_status)                                       \
		{                                                             \
			TH_LOG("%s: serve ended with %d: %s", var, ht_status, \
			       log);                                          \
		}                                                             \
		ASSERT_NE(NULL, strstr(log, says))                            \
		{                                                             \
			TH_LOG("%s: '%s' lacks '%s'", var, log, says);        \
		}                                                             \
	} while (0)

/*
 * KUBECONFIG is a ':' list of files (kubectl merges them): each is checked,
 * the second where the sandbox writes refused naming it, whether the start
 * environment has it under its name or as a harness.envFrom key.
 */
TEST_F(harness_trust, E4_kubeconfig_each_file_of_its_list_checked)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	/* Positive control: two files of a read-only tree. */
	HT_STARTS(hx, "KUBECONFIG=" HT_RO "/a:" HT_RO "/b", log);
	HT_REFUSED(hx, "KUBECONFIG=" HT_RO "/a:/tmp/b", log,
		   "KUBECONFIG '/tmp/b' (/tmp/b) is in a folder the sandbox "
		   "writes");
	HT_REFUSED(hx, "JR2_ENVFROM_KUBECONFIG=" HT_RO "/a::/tmp/b", log,
		   "JR2_ENVFROM_KUBECONFIG '/tmp/b' (/tmp/b) is in a folder "
		   "the sandbox writes");
}

/*
 * NODE_ICU_DATA is ICU's data path, a ':' list of folders (or the .dat file
 * itself): a folder of a read-only tree starts, one where the sandbox
 * writes is refused naming it.
 */
TEST_F(harness_trust, E4_node_icu_data_folders_checked)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	/* Positive control: a folder, and a folder and a file. */
	HT_STARTS(hx, "NODE_ICU_DATA=" HT_RO "/icu", log);
	HT_STARTS(hx, "NODE_ICU_DATA=" HT_RO "/icu:" HT_RO "/a", log);
	HT_REFUSED(hx, "NODE_ICU_DATA=" HT_RO "/icu:/tmp/icu", log,
		   "NODE_ICU_DATA '/tmp/icu' (/tmp/icu) is in a folder the "
		   "sandbox writes");
}

/*
 * A path that is not what its name's programs take is refused naming it:
 * a file in SSL_CERT_DIR's list of folders, a folder in KUBECONFIG's list
 * of files, a FIFO as REQUESTS_CA_BUNDLE (a file or a folder).
 */
TEST_F(harness_trust, E4_path_of_the_wrong_kind_refused)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	/* Positive control: each of the right kind. */
	HT_STARTS(hx, "SSL_CERT_DIR=" HT_RO "/icu:" HT_RO, log);
	HT_STARTS(hx, "KUBECONFIG=" HT_RO "/a", log);
	HT_STARTS(hx, "REQUESTS_CA_BUNDLE=" HT_RO "/icu", log);
	HT_STARTS(hx, "REQUESTS_CA_BUNDLE=" HT_RO "/a", log);
	HT_REFUSED(hx, "SSL_CERT_DIR=" HT_RO "/icu:" HT_RO "/a", log,
		   "SSL_CERT_DIR '" HT_RO "/a' is a regular file, not a "
		   "directory; name a folder");
	HT_REFUSED(hx, "KUBECONFIG=" HT_RO "/a:" HT_RO "/icu", log,
		   "KUBECONFIG '" HT_RO "/icu' is a directory, not a regular "
		   "file; name a regular file");
	HT_REFUSED(hx, "REQUESTS_CA_BUNDLE=" HT_RO "/fifo", log,
		   "REQUESTS_CA_BUNDLE '" HT_RO "/fifo' is a FIFO, neither a "
		   "regular file nor a directory");
}

/*
 * The AWS SDKs' AWS_CA_BUNDLE (one file) and git's GIT_SSL_CAPATH (':'
 * folders) name certificates the programs trust: checked as the others.
 */
TEST_F(harness_trust, E4_aws_and_git_trust_names_checked)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	/* Positive control: a file and folders of a read-only tree. */
	HT_STARTS(hx, "AWS_CA_BUNDLE=" HT_RO "/a", log);
	HT_STARTS(hx, "GIT_SSL_CAPATH=" HT_RO "/icu:" HT_RO, log);
	HT_REFUSED(hx, "AWS_CA_BUNDLE=/tmp/b", log,
		   "AWS_CA_BUNDLE '/tmp/b' (/tmp/b) is in a folder the sandbox "
		   "writes");
	HT_REFUSED(hx, "GIT_SSL_CAPATH=" HT_RO ":/tmp/icu", log,
		   "GIT_SSL_CAPATH '/tmp/icu' (/tmp/icu) is in a folder the "
		   "sandbox writes");
	HT_REFUSED(hx, "GIT_SSL_CAPATH=" HT_RO "/icu:" HT_RO "/b", log,
		   "GIT_SSL_CAPATH '" HT_RO "/b' is a regular file, not a "
		   "directory");
}

/*
 * A relative path in such a value is read from each program's own folder
 * (/work, say), not from serve's: refused naming it, from whatever folder
 * serve starts in.
 */
TEST_F(harness_trust, E4_relative_path_in_a_value_refused)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	ASSERT_EQ(0, chdir(HT_RO));
	/* Positive control: the same files by their absolute paths. */
	HT_STARTS(hx, "KUBECONFIG=" HT_RO "/a", log);
	HT_STARTS(hx, "NODE_ICU_DATA=" HT_RO "/icu:" HT_RO "/icu", log);
	HT_REFUSED(hx, "KUBECONFIG=a", log,
		   "KUBECONFIG 'a' names the relative path 'a': each program "
		   "reads it from its own folder");
	HT_REFUSED(hx, "NODE_ICU_DATA=" HT_RO "/icu:icu", log,
		   "NODE_ICU_DATA '" HT_RO "/icu:icu' names the relative path "
		   "'icu'");
	HT_REFUSED(hx, "JR2_ENVFROM_AWS_CONFIG_FILE=./a", log,
		   "JR2_ENVFROM_AWS_CONFIG_FILE './a' names the relative path "
		   "'./a'");
}

/*
 * exec and status with no harness serving their --root say so first,
 * naming `jr2-harness serve` and the --root; with one serving, they run.
 */
TEST_F(harness_trust, E6_exec_without_harness_names_serve)
{
	struct hx *hx = &self->hx;
	const char *const truth[] = {"/bin/true", NULL};
	char out[HX_OUT_SIZE];

	HX_START(hx, NULL);
	ASSERT_EQ(0, hx_exec(hx, truth, out, sizeof(out))) TH_LOG("%s", out);
	hx_stop(hx);
	for (int i = 0; i < 2; i++) {
		int status = i ? hx_status(hx, out, sizeof(out))
			       : hx_exec(hx, truth, out, sizeof(out));

		ASSERT_EQ(JR2_EXIT_REFUSED, status) TH_LOG("%s", out);
		ASSERT_EQ(
		    0, strncmp(out,
			       "jr2-harness: no harness serves --root '" HX_ROOT
			       "'",
			       strlen("jr2-harness: no harness serves "
				      "--root '" HX_ROOT "'")))
		{
			TH_LOG("%s", out);
		}
		ASSERT_NE(
		    NULL,
		    strstr(out, "start `jr2-harness serve --root " HX_ROOT "`"))
		{
			TH_LOG("%s", out);
		}
	}
}

/*
 * Two `serve` started at once on one dir: exactly one serves, the other is
 * refused (exit 1) naming a holder, whoever wins the race; the abstract
 * name @jr2:<protected dir> is taken by one bind(2), which the kernel
 * gives to one of them.  Five rounds.
 */
TEST_F(harness_trust, E6_two_serves_at_once_one_serves)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	for (int round = 0; round < 5; round++) {
		pid_t pids[2];
		int refused = 0, alive = -1, status;

		for (int i = 0; i < 2; i++) {
			pids[i] = fork();
			ASSERT_LE(0, pids[i]);
			if (pids[i] == 0) {
				int null = open("/dev/null", O_RDWR);

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				dup2(null, 0);
				dup2(null, 1);
				dup2(null, 2);
				execl(hx->harness, hx->harness, "serve",
				      "--root", HX_ROOT, (char *)NULL);
				_exit(127);
			}
		}
		/* The refused one ends within the start's checks. */
		for (int ms = 0; ms < HX_READY_MS && !refused; ms += 10) {
			for (int i = 0; i < 2; i++) {
				if (waitpid(pids[i], &status, WNOHANG) !=
				    pids[i])
					continue;
				ASSERT_TRUE(WIFEXITED(status));
				ASSERT_EQ(1, WEXITSTATUS(status));
				refused++;
				alive = 1 - i;
			}
			usleep(10000);
		}
		ASSERT_EQ(1, refused) TH_LOG("round %d", round);
		ASSERT_EQ(0, kill(pids[alive], 0));
		for (int ms = 0; ms < HX_READY_MS; ms += 10) {
			if (hx_status(hx, out, sizeof(out)) == 0)
				break;
			usleep(10000);
		}
		ASSERT_EQ(0, hx_status(hx, out, sizeof(out))) TH_LOG("%s", out);
		ASSERT_EQ(0, kill(pids[alive], SIGTERM));
		ASSERT_EQ(pids[alive], waitpid(pids[alive], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
}

/*
 * Programs open a value's path as given: a link, or a folder, in a place
 * the sandbox writes can be replaced there, whatever it points to now.  A
 * link under /tmp to a file of the read-only tree is refused naming /tmp,
 * for a name of one file, an entry of a list and a JR2_ENVFROM_ name; a
 * link inside the read-only tree to another of its files starts (the
 * control).
 */
TEST_F(harness_trust, E4_link_in_a_sandbox_folder_refused)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	ASSERT_EQ(0, symlink(HT_RO "/a", "/tmp/link"));
	ASSERT_EQ(0, symlink(HT_RO "/icu", "/tmp/icul"));
	ASSERT_EQ(0, symlink(HT_RO "/a", HT_RO "/link"));
	/* Positive control: a link within the read-only tree. */
	HT_STARTS(hx, "SSL_CERT_FILE=" HT_RO "/link", log);
	HT_REFUSED(hx, "SSL_CERT_FILE=/tmp/link", log,
		   "SSL_CERT_FILE '/tmp/link' is looked up through '/tmp', a "
		   "folder the sandbox writes");
	HT_REFUSED(hx, "KUBECONFIG=" HT_RO "/a:/tmp/link", log,
		   "KUBECONFIG '/tmp/link' is looked up through '/tmp'");
	HT_REFUSED(hx, "JR2_ENVFROM_SSL_CERT_DIR=/tmp/icul", log,
		   "JR2_ENVFROM_SSL_CERT_DIR '/tmp/icul' is looked up through "
		   "'/tmp'");
}

/*
 * The warning names every folder of the lookup the sandbox user can
 * write, not only the file's own: one it owns two levels up can rename
 * the folder below it and put its own file at the path.  The control: a
 * folder of root's, not world-writable, warns of nothing.
 */
TEST_F(harness_trust, E4_ancestor_writable_by_the_sandbox_user_warned)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	/* The control needs folders of another user than the sandbox's. */
	if (geteuid() == 1000)
		SKIP(return, "this suite runs as uid 1000, the sandbox user: "
			     "every folder it makes is that user's, so no "
			     "folder of another owner stands as the control; "
			     "the bare and container profiles run it as root");
	FX_SKIP_WITHOUT_CAP(CAP_CHOWN, "giving /mnt/u to the sandbox user");
	ht_make_trees(_metadata);
	fx_make_dir(_metadata, HX_MNT "/u", 0755);
	fx_make_dir(_metadata, HX_MNT "/u/d", 0755);
	fx_make_file(_metadata, HX_MNT "/u/d/f", "apiVersion: v1\n", 0644);
	HT_STARTS(hx, "KUBECONFIG=" HX_MNT "/u/d/f", log);
	ASSERT_EQ(NULL, strstr(log, "warning: KUBECONFIG")) TH_LOG("%s", log);
	/* The default sandbox user, uid 1000, owns /mnt/u. */
	ASSERT_EQ(0, chown(HX_MNT "/u", 1000, 1000));
	HT_STARTS(hx, "KUBECONFIG=" HX_MNT "/u/d/f", log);
	ASSERT_NE(NULL, strstr(log, "warning: KUBECONFIG '" HX_MNT
				    "/u/d/f': '" HX_MNT "/u' can be written "
				    "by the sandbox user (uid 1000)"))
	{
		TH_LOG("%s", log);
	}
}

/*
 * The programs' home and tmpdir of the config are folders the sandbox
 * writes as /home/jr2 and /tmp are: a value there is refused naming it
 * (an image whose programs run with HOME=/root).  The control: the same
 * value starts while the config names another home.
 */
TEST_F(harness_trust, E4_the_programs_home_and_tmpdir_refused)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE];

	HX_REQUIRE_ACCEPTED(hx);
	ht_make_trees(_metadata);
	fx_make_dir(_metadata, HX_MNT "/home", 0755);
	fx_make_dir(_metadata, HX_MNT "/spool", 0755);
	fx_make_file(_metadata, HX_MNT "/home/kc", "apiVersion: v1\n", 0644);
	fx_make_file(_metadata, HX_MNT "/spool/kc", "apiVersion: v1\n", 0644);
	/* Positive control: the default home and tmpdir. */
	HT_STARTS(hx, "KUBECONFIG=" HX_MNT "/home/kc", log);
	ASSERT_EQ(0, unlink(CONFIG));
	fx_make_file(_metadata, CONFIG,
		     HX_TRUST_ETC "read-only " HT_RO "\nhome " HX_MNT
				  "/home\ntmpdir " HX_MNT "/spool\n",
		     0644);
	HT_REFUSED(hx, "KUBECONFIG=" HX_MNT "/home/kc", log,
		   "KUBECONFIG '" HX_MNT "/home/kc' (" HX_MNT
		   "/home/kc) is in a folder the sandbox writes");
	HT_REFUSED(hx, "AWS_CONFIG_FILE=" HX_MNT "/spool/kc", log,
		   "AWS_CONFIG_FILE '" HX_MNT "/spool/kc' (" HX_MNT
		   "/spool/kc) is in a folder the sandbox writes");
}

TEST_HARNESS_MAIN
