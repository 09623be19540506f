// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Harness process as it runs in an image: a real Node (`node` on the
 * host's PATH; skipped, naming it, where there is none, as in the VMs) with
 * main.js in a read-only tree, started by `serve -- node main.js`.
 *
 * E2: NODE_OPTIONS=--require hook.js in serve's start environment runs the
 * hook in a program's node (main.js starts it through the runtime, with
 * JR2_HARNESS_ROOT) and not in the Harness process's.  E8: a node_modules
 * folder that Node would look in, where programs write, refuses the start
 * (exit 2, named); without it the same start runs.  Node is known by what
 * runs (a copy under another name, a #! script), its arguments as Node
 * reads them (the #! line's argument, an option's value, options after
 * -e), an option not on serve's list refused by name, and a link in a
 * trusted node_modules folder to where programs write refused.  P1: below
 * ABI 6 (--max-abi 5), where a program can signal it, a Node Harness
 * process without --disable-sigusr1 (SIGUSR1 opens its inspector) is
 * refused; with the flag the check passes.  E8: the Harness process's
 * Node reads no OpenSSL config a program can write (one that loads a
 * missing provider, bound over OPENSSLDIR/openssl.cnf, stops a Node that
 * reads it) and uses its built-in CA store.
 *
 * Promises: E2 E8 P1
 */
#include "harness_helpers.h"

HX_FIXTURE(harness_node)

#define HN_RO	  HX_MNT "/ro"
#define HN_RW	  HX_MNT "/rw"
#define HN_CONFIG HX_ETC "/node.conf"
#define HN_LOG	  HN_RW "/log"
/* Node, its loader and libraries (under /usr), and /etc (the loader's
 * preload list) as read-only trees: nothing a program can change. */
#define HN_CONFIG_TEXT \
	HX_TRUST_ETC "read-only " HN_RO "\nread-only /usr\nread-only /etc\n"

/* main.js: appends "main PID" to the log, then runs a program through the
 * runtime (jr2-harness exec, reached by JR2_HARNESS_ROOT), and lives. */
static const char main_js[] =
    "const fs = require('fs');\n"
    "const cp = require('child_process');\n"
    "fs.appendFileSync('" HN_LOG "', 'main ' + process.pid + '\\n');\n"
    "const r = cp.spawnSync(process.argv[2], ['exec', '--root',\n"
    "  process.env.JR2_HARNESS_ROOT, '--', process.execPath, '-e',\n"
    "  \"require('fs').appendFileSync('" HN_LOG "', 'program ' + "
    "process.pid + '\\\\n')\"], {stdio: 'inherit'});\n"
    "fs.appendFileSync('" HN_LOG "', 'exec ' + r.status + '\\n');\n"
    "setInterval(() => {}, 1000);\n";

static const char hook_js[] = "require('fs').appendFileSync('" HN_LOG
			      "', 'hook ' + process.pid + '\\n');\n";

/* The real path of node, or skips naming why. */
static bool find_node(char *node, size_t size)
{
	static const char *const dirs[] = {"/usr/bin", "/usr/local/bin"};
	char path[64];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/node", dirs[i]);
		if (access(path, X_OK) == 0 && realpath(path, node) &&
		    !strncmp(node, "/usr/", 5))
			return true;
	}
	(void)size;
	return false;
}

static void make_tree(struct __test_metadata *_metadata)
{
	fx_make_dir(_metadata, HN_RO, 0755);
	fx_make_dir(_metadata, HN_RW, 0755);
	fx_make_file(_metadata, HN_RO "/main.js", main_js, 0644);
	fx_make_file(_metadata, HN_RO "/hook.js", hook_js, 0644);
	fx_make_file(_metadata, HN_CONFIG, HN_CONFIG_TEXT, 0644);
}

/* The log's text, once it has the line of main.js's exec (or after
 * HX_READY_MS). */
static void read_log(char *text, size_t size)
{
	for (int waited = 0; waited < HX_READY_MS; waited += 10) {
		int fd = open(HN_LOG, O_RDONLY | O_CLOEXEC);
		ssize_t len = fd < 0 ? 0 : read(fd, text, size - 1);

		if (fd >= 0)
			close(fd);
		text[len > 0 ? len : 0] = '\0';
		if (strstr(text, "exec "))
			return;
		usleep(10000);
	}
}

TEST_F(harness_node, E2_node_options_hook_runs_in_programs_only)
{
	struct hx *hx = &self->hx;
	char node[PATH_MAX], text[4096], main_pid[32], word[64], log[8192];
	char *envp[] = {"PATH=/usr/bin:/bin",
			"NODE_OPTIONS=--require " HN_RO "/hook.js", NULL};
	const char *extra[] = {"--config",	 HN_CONFIG,   "--", node,
			       HN_RO "/main.js", hx->harness, NULL};
	const char *at;
	int rc;

	if (!find_node(node, sizeof(node)))
		SKIP(return, "no Node.js under /usr (/usr/bin/node): the "
			     "Harness process's Node test needs one");
	HX_REQUIRE_ACCEPTED(hx);
	make_tree(_metadata);
	rc = hx_start_env(_metadata, hx, extra, envp);
	hx_log(log, sizeof(log));
	ASSERT_EQ(0, rc)
	{
		TH_LOG("serve -- node main.js ended with %d; log: %s", rc, log);
	}
	read_log(text, sizeof(text));
	at = strstr(text, "main ");
	ASSERT_NE(NULL, at)
	{
		TH_LOG("main.js did not run; log: %s; serve: %s", text, log);
	}
	snprintf(main_pid, sizeof(main_pid), "%.*s", (int)strcspn(at + 5, "\n"),
		 at + 5);
	/* The program ran through the runtime, and its node ran the hook. */
	ASSERT_NE(NULL, strstr(text, "exec 0\n"))
	{
		hx_log(log, sizeof(log));
		TH_LOG("log: %s; serve: %s", text, log);
	}
	ASSERT_NE(NULL, strstr(text, "program "));
	ASSERT_NE(NULL, strstr(text, "hook "))
	{
		TH_LOG("the program's node did not run the hook: %s", text);
	}
	/* Not in the Harness process. */
	snprintf(word, sizeof(word), "hook %s\n", main_pid);
	ASSERT_EQ(NULL, strstr(text, word))
	{
		TH_LOG("the hook ran in the Harness process: %s", text);
	}
}

TEST_F(harness_node, E8_node_modules_where_programs_write_refused)
{
	struct hx *hx = &self->hx;
	char node[PATH_MAX], log[8192];
	const char *extra[] = {"--config",	 HN_CONFIG,   "--", node,
			       HN_RO "/main.js", hx->harness, NULL};

	if (!find_node(node, sizeof(node)))
		SKIP(return, "no Node.js under /usr (/usr/bin/node): the "
			     "Harness process's Node test needs one");
	HX_REQUIRE_ACCEPTED(hx);
	make_tree(_metadata);
	/* /mnt is frozen (an ancestor of the trees), but a folder made in it
	 * before is not: programs write in it, and Node looks there. */
	fx_make_dir(_metadata, HX_MNT "/node_modules", 0755);
	ASSERT_EQ(2, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "'" HX_MNT "/node_modules'"))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_EQ(-1, access(HX_ROOT "/run", F_OK));
	/* Positive control: without it, the same start runs. */
	ASSERT_EQ(0, rmdir(HX_MNT "/node_modules"));
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
	ASSERT_EQ(0, kill(hx->pid, 0));
}

/* The log serve wrote since its last start. */
static void log_since(struct hx *hx, char *out, size_t size)
{
	int fd = open(HX_LOG, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : pread(fd, out, size - 1, hx->log_from);

	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = '\0';
}

/* serve --config HN_CONFIG -- CMD... is refused: exit 2, the message names
 * `named`, nothing made. */
static void assert_node_refused(struct __test_metadata *_metadata,
				struct hx *hx, const char *const cmd[],
				const char *named)
{
	const char *extra[16] = {"--config", HN_CONFIG, "--"};
	char log[8192];
	int n = 3;

	for (int i = 0; cmd[i] && n < 15; i++)
		extra[n++] = cmd[i];
	extra[n] = NULL;
	ASSERT_EQ(2, hx_start(_metadata, hx, extra))
	{
		TH_LOG("'%s ...' was not refused (naming %s)", cmd[0], named);
	}
	log_since(hx, log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, named))
	{
		TH_LOG("the refusal does not name '%s': %s", named, log);
	}
	ASSERT_EQ(-1, access(HX_ROOT "/run", F_OK));
	ASSERT_EQ(ENOENT, errno);
}

/* serve --config HN_CONFIG -- CMD... starts. */
static void assert_node_refused_not(struct __test_metadata *_metadata,
				    struct hx *hx, const char *const cmd[])
{
	const char *extra[16] = {"--config", HN_CONFIG, "--"};
	char log[8192];
	int n = 3, rc;

	for (int i = 0; cmd[i] && n < 15; i++)
		extra[n++] = cmd[i];
	extra[n] = NULL;
	rc = hx_start(_metadata, hx, extra);
	log_since(hx, log, sizeof(log));
	ASSERT_EQ(0, rc)
	{
		TH_LOG("'%s ...' did not start: %s", cmd[0], log);
	}
}

TEST_F(harness_node, E8_node_known_by_what_runs_not_by_name)
{
	struct hx *hx = &self->hx;
	char node[PATH_MAX], script[sizeof(main_js) + PATH_MAX + 8], text[4096];
	const char *const renamed[] = {HN_RO "/jr2-engine", HN_RO "/main.js",
				       hx->harness, NULL};
	const char *const shebang[] = {HN_RO "/app", hx->harness, NULL};
	const char *extra[] = {"--config",   HN_CONFIG,	  "--",
			       HN_RO "/app", hx->harness, NULL};

	if (!find_node(node, sizeof(node)))
		SKIP(return, "no Node.js under /usr (/usr/bin/node): the "
			     "Harness process's Node test needs one");
	HX_REQUIRE_ACCEPTED(hx);
	make_tree(_metadata);
	/* Node under another name (a bind mount: its real path is the
	 * mount's), and a #! script that Node runs. */
	fx_make_file(_metadata, HN_RO "/jr2-engine", "", 0755);
	ASSERT_EQ(0, mount(node, HN_RO "/jr2-engine", NULL, MS_BIND, NULL));
	snprintf(script, sizeof(script), "#!%s\n%s", node, main_js);
	fx_make_file(_metadata, HN_RO "/app", script, 0755);
	fx_make_dir(_metadata, HX_MNT "/node_modules", 0755);
	assert_node_refused(_metadata, hx, renamed,
			    "'" HX_MNT "/node_modules'");
	assert_node_refused(_metadata, hx, shebang,
			    "'" HX_MNT "/node_modules'");
	/* Positive control: without the folder, the script runs. */
	ASSERT_EQ(0, rmdir(HX_MNT "/node_modules"));
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
	read_log(text, sizeof(text));
	ASSERT_NE(NULL, strstr(text, "exec 0\n"))
	{
		TH_LOG("main.js did not run a program: %s", text);
	}
}

TEST_F(harness_node, E8_node_arguments_as_node_reads_them)
{
	struct hx *hx = &self->hx;
	char node[PATH_MAX], script[PATH_MAX + 128], text[4096];
	const char *const title[] = {node, "--title", HN_RO "/main.js",
				     HN_RW "/evil.js", NULL};
	const char *const conditions[] = {node, "-C", HN_RO "/main.js",
					  HN_RW "/evil.js", NULL};
	const char *const v8[] = {node, "--stack-size", HN_RW "/evil.js", NULL};
	const char *const url[] = {node, "--import=file://" HN_RW "/evil.js",
				   HN_RO "/main.js", NULL};
	const char *const after_eval[] = {
	    node, "-e", "1", "--require", HN_RW "/evil.js", NULL};
	const char *const shebang[] = {HN_RO "/hb", NULL};
	const char *const openssl[] = {node, "--openssl-config=" HN_RW "/x.cnf",
				       HN_RO "/main.js", NULL};
	const char *const env_file[] = {node, "--env-file=" HN_RO "/hook.js",
					HN_RO "/main.js", NULL};
	const char *const inspect[] = {node, "--inspect", HN_RO "/main.js",
				       NULL};
	const char *const linked[] = {node, HN_RO "/main.js", hx->harness,
				      NULL};
	const char *extra[] = {"--config",
			       HN_CONFIG,
			       "--",
			       node,
			       "--title=jr2",
			       "--no-warnings",
			       "--max_old_space_size=64",
			       HN_RO "/main.js",
			       hx->harness,
			       NULL};

	if (!find_node(node, sizeof(node)))
		SKIP(return, "no Node.js under /usr (/usr/bin/node): the "
			     "Harness process's Node test needs one");
	HX_REQUIRE_ACCEPTED(hx);
	make_tree(_metadata);
	fx_make_file(_metadata, HN_RW "/evil.js", hook_js, 0644);
	fx_make_dir(_metadata, HN_RW "/dep", 0755);
	fx_make_file(_metadata, HN_RW "/dep/index.js", hook_js, 0644);
	/* An option's value is not the main script. */
	assert_node_refused(_metadata, hx, title, "'" HN_RW "/evil.js'");
	assert_node_refused(_metadata, hx, conditions, "'" HN_RW "/evil.js'");
	/* V8's options take their value after '=' only. */
	assert_node_refused(_metadata, hx, v8, "'--stack-size'");
	/* A file: URL is a file too. */
	assert_node_refused(_metadata, hx, url,
			    "'--import=file://" HN_RW "/evil.js'");
	/* Node reads options after -e's code. */
	assert_node_refused(_metadata, hx, after_eval, "'" HN_RW "/evil.js'");
	/* The #! line's argument is an argument of Node. */
	snprintf(script, sizeof(script),
		 "#!%s --require=" HN_RW "/evil.js\nsetInterval(() => {}, "
		 "1000);\n",
		 node);
	fx_make_file(_metadata, HN_RO "/hb", script, 0755);
	assert_node_refused(_metadata, hx, shebang, "'" HN_RW "/evil.js'");
	/* Options not on serve's list, named. */
	assert_node_refused(_metadata, hx, openssl,
			    "'--openssl-config=" HN_RW "/x.cnf'");
	assert_node_refused(_metadata, hx, inspect, "'--inspect'");
	/* Its names (NODE_OPTIONS among them) would pass E2 by. */
	assert_node_refused(_metadata, hx, env_file,
			    "'--env-file=" HN_RO "/hook.js'");
	/* A package in a trusted node_modules that links out. */
	fx_make_dir(_metadata, HN_RO "/node_modules", 0755);
	ASSERT_EQ(0, symlink("../../rw/dep", HN_RO "/node_modules/dep"));
	assert_node_refused(_metadata, hx, linked, "'" HN_RW "'");
	/* Positive control: options on the list, no link out; main.js
	 * runs. */
	ASSERT_EQ(0, unlink(HN_RO "/node_modules/dep"));
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
	read_log(text, sizeof(text));
	ASSERT_NE(NULL, strstr(text, "exec 0\n"))
	{
		TH_LOG("main.js did not run a program: %s", text);
	}
}

TEST_F(harness_node, E8_openssl_config_and_ca_store_pinned)
{
	static const char *const defaults[] = {"/etc/ssl/openssl.cnf",
					       "/usr/lib/ssl/openssl.cnf"};
	static const char evil[] = "openssl_conf = init\n"
				   "nodejs_conf = init\n"
				   "[init]\nproviders = providers\n"
				   "[providers]\nevil = evil\n"
				   "[evil]\nmodule = " HN_RW "/evil.so\n"
				   "activate = 1\n";
	struct hx *hx = &self->hx;
	char node[PATH_MAX], text[4096], env[8192], path[64], log[8192];
	const char *extra[] = {"--config",	 HN_CONFIG,   "--", node,
			       HN_RO "/main.js", hx->harness, NULL};
	const char *at;
	int bound = 0, fd, rc;
	ssize_t n;

	if (!find_node(node, sizeof(node)))
		SKIP(return, "no Node.js under /usr (/usr/bin/node): the "
			     "Harness process's Node test needs one");
	HX_REQUIRE_ACCEPTED(hx);
	make_tree(_metadata);
	fx_make_file(_metadata, HN_RO "/evil.cnf", evil, 0644);
	for (size_t i = 0; i < 2; i++)
		if (access(defaults[i], F_OK) == 0) {
			ASSERT_EQ(0, mount(HN_RO "/evil.cnf", defaults[i], NULL,
					   MS_BIND, NULL));
			bound++;
		}
	if (!bound)
		SKIP(return, "no OpenSSL config at /etc/ssl or /usr/lib/ssl");
	rc = hx_start(_metadata, hx, extra);
	hx_log(log, sizeof(log));
	ASSERT_EQ(0, rc)
	{
		TH_LOG("serve -- node main.js ended with %d; log: %s", rc, log);
	}
	read_log(text, sizeof(text));
	at = strstr(text, "main ");
	ASSERT_NE(NULL, at)
	{
		TH_LOG("Node did not run main.js (read the config?); log: %s; "
		       "serve: %s",
		       text, log);
	}
	snprintf(path, sizeof(path), "/proc/%d/environ", atoi(at + 5));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	ASSERT_LT(0, n);
	for (ssize_t i = 0; i < n; i++)
		if (!env[i])
			env[i] = '\n';
	env[n] = '\0';
	ASSERT_NE(NULL, strstr(env, "\nOPENSSL_CONF=" HX_PROTECTED
				    "/harness-openssl.cnf\n"))
	{
		TH_LOG("the Harness process's environment: %s", env);
	}
	ASSERT_NE(NULL, strstr(env, "\nNODE_OPTIONS=--use-bundled-ca\n"));
	/* Positive control: a Node that reads the default config stops. */
	snprintf(log, sizeof(log),
		 "env -u OPENSSL_CONF %s -e 0 >/dev/null 2>&1", node);
	ASSERT_NE(0, system(log));
}

TEST_F(harness_node, P1_E8_sigusr1_inspector_below_abi6_refused)
{
	struct hx *hx = &self->hx;
	char node[PATH_MAX], log[8192];
	const char *const plain[] = {node, HN_RO "/main.js", hx->harness, NULL};
	const char *capped[] = {"--max-abi",	  "5",	       "--config",
				HN_CONFIG,	  "--",	       node,
				HN_RO "/main.js", hx->harness, NULL};
	const char *flagged[] = {
	    "--max-abi", "5",  "--config",	    HN_CONFIG,
	    "--",	 node, "--disable-sigusr1", HN_RO "/main.js",
	    hx->harness, NULL};
	int rc;

	if (!find_node(node, sizeof(node)))
		SKIP(return, "no Node.js under /usr (/usr/bin/node): the "
			     "Harness process's Node test needs one");
	HX_REQUIRE_ACCEPTED(hx);
	if (hx->abi.in_force < 5)
		SKIP(return, "Landlock ABI %d here: the test caps it at 5",
			   hx->abi.in_force);
	make_tree(_metadata);
	rc = hx_start(_metadata, hx, capped);
	log_since(hx, log, sizeof(log));
	ASSERT_EQ(2, rc)
	{
		TH_LOG("serve --max-abi 5 -- node main.js: %d; log: %s", rc,
		       log);
	}
	ASSERT_NE(NULL, strstr(log, "SIGUSR1"));
	ASSERT_NE(NULL, strstr(log, "--disable-sigusr1"));
	ASSERT_EQ(-1, access(HX_ROOT "/run", F_OK));
	/* Positive control: with the flag the check passes and CMD starts
	 * (a Node older than 22.14 then stops on the flag it lacks: serve
	 * ends with its status). */
	rc = hx_start(_metadata, hx, flagged);
	log_since(hx, log, sizeof(log));
	ASSERT_EQ(NULL, strstr(log, "refusing to start"))
	{
		TH_LOG("log: %s", log);
	}
	if (rc == 0) {
		kill(hx->pid, SIGTERM);
		waitpid(hx->pid, NULL, 0);
		hx->pid = 0;
	}
	/* Where the kernel scopes signals, the plain start runs. */
	if (hx->abi.in_force >= 6)
		assert_node_refused_not(_metadata, hx, plain);
}

TEST_HARNESS_MAIN
