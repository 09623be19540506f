// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Harness process (`jr2-harness serve -- CMD`, jr2's Node code in an
 * image), here a static jr2-try `harness-like` in a read-only tree: a
 * listening abstract socket, a second thread, any program its tracer (so
 * that a denial comes from Landlock, not Yama).
 *
 * P1, P2: from the programs' shared layer and from a request's own layer
 * (given a Stand-in), its pid and its thread's: /proc/<id>/environ, mem and
 * maps EACCES; PTRACE_ATTACH, PTRACE_SEIZE, process_vm_readv and
 * pidfd_getfd EPERM; on ABI 6+ kill EPERM and a connect to its abstract
 * socket EPERM (below: both reach it, and status says unavailable).  The
 * positive control: the same operation on a peer program of the layer, and
 * the test (unconfined) reaching the Harness process.
 *
 * E5, E2, E7: its HOME in the protected dir, made before it starts;
 * JR2_HARNESS_ROOT the --root; no name that loads code; each
 * JR2_ENVFROM_<KEY> under KEY for it and the programs; a JR2_ key, or one
 * a secret or env line of the config names, refuses the start (exit 2).
 * E8: a CMD, or a link to one, where a program could write is refused (exit
 * 2, naming the folder), nothing made; so is a program the kernel would
 * run otherwise than the check reads it: an ELF with two PT_INTERP
 * headers, a file that is neither ELF nor #! (binfmt_misc's), a #! line
 * through env (a program found by PATH).  A Node (here a copy of a dynamic
 * program that names napi_module_register, as Node does) whose build names
 * an externalized builtin module where programs write, or with a global
 * module folder Debian's Node looks in ($PREFIX/share/nodejs) where they
 * write, is refused.  P8: when it exits, serve stops and
 * exits with its status.
 *
 * E4: a file the Harness process reads by a name of its environment
 * (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, SSL_CERT_DIR ...), from the start
 * environment, a JR2_ENVFROM_ key or an env line of the config alike, lies
 * in a read-only tree or the start is refused (exit 2, naming it); so does
 * each path of a ':' list (KUBECONFIG, NODE_ICU_DATA), and a path of the
 * wrong kind (a file in SSL_CERT_DIR, a folder as KUBECONFIG) is refused.
 *
 * Promises: E2 E4 E5 E7 E8 P1 P2 P8
 */
#include <elf.h>
#include <sys/sendfile.h>

#include "harness_helpers.h"

HX_FIXTURE(harness_process)

#define HP_RO	       HX_MNT "/ro"
#define HP_RW	       HX_MNT "/rw"
#define HP_TRY	       HP_RO "/jr2-try"
#define HP_CONFIG      HX_ETC "/hp.conf"
#define HP_ABS	       "jr2-hp-test"
#define HP_CONFIG_TEXT HX_TRUST_ETC "read-only " HP_RO "\nsecret GH_TOKEN\n"

static const char *const with_standin[] = {"--secret", "GH_TOKEN", NULL};

static void copy_file(struct __test_metadata *_metadata, const char *from,
		      const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	struct stat st;

	ASSERT_LE(0, in);
	ASSERT_LE(0, out);
	ASSERT_EQ(0, fstat(in, &st));
	ASSERT_EQ(st.st_size, sendfile(out, in, NULL, (size_t)st.st_size));
	close(in);
	close(out);
}

/* The trees: jr2-try copied into HP_RO (read-only) and HP_RW (not). */
static void make_trees(struct __test_metadata *_metadata, struct hx *hx,
		       const char *config)
{
	fx_make_dir(_metadata, HP_RO, 0755);
	fx_make_dir(_metadata, HP_RW, 0755);
	copy_file(_metadata, hx->try_tool, HP_TRY);
	copy_file(_metadata, hx->try_tool, HP_RW "/jr2-try");
	fx_make_file(_metadata, HP_CONFIG, config, 0644);
}

/* serve --config HP_CONFIG -- CMD...; its status as hx_start_env's.  With
 * no envp, a PATH alone: the runner's own names (a NODE_EXTRA_CA_CERTS in
 * /etc, which programs write here) are not the test's. */
static int start_cmd(struct __test_metadata *_metadata, struct hx *hx,
		     const char *const cmd[], char *const envp[])
{
	const char *extra[16] = {"--config", HP_CONFIG, "--"};
	static char *const path_only[] = {"PATH=/usr/bin:/bin", NULL};
	int n = 3;

	if (!envp)
		envp = path_only;

	for (int i = 0; cmd[i] && n < 15; i++)
		extra[n++] = cmd[i];
	extra[n] = NULL;
	return hx_start_env(_metadata, hx, extra, envp);
}

/* status --json's harness_process_pid. */
static pid_t process_pid(struct __test_metadata *_metadata, struct hx *hx)
{
	char *const argv[] = {hx->harness, "status", "--root",
			      HX_ROOT,	   "--json", NULL};
	char out[HX_OUT_SIZE];
	const char *at;
	int status = -1;

	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	ASSERT_EQ(0, status);
	at = strstr(out, "\"harness_process_pid\": ");
	ASSERT_NE(NULL, at)
	{
		TH_LOG("status --json names no harness_process_pid: %s", out);
	}
	return atoi(at + strlen("\"harness_process_pid\": "));
}

/* Starts serve -- HP_TRY harness-like HP_ABS; the process's pid, its
 * second thread's id in *tid. */
static pid_t start_harness_like(struct __test_metadata *_metadata,
				struct hx *hx, pid_t *tid)
{
	const char *const cmd[] = {HP_TRY, "harness-like", HP_ABS, NULL};
	char path[64], log[HX_OUT_SIZE];
	pid_t pid;
	int rc;

	make_trees(_metadata, hx, HP_CONFIG_TEXT);
	rc = start_cmd(_metadata, hx, cmd, NULL);
	if (!fx_accepted(&hx->abi))
		SKIP(return 0, "the runtime refuses this ABI");
	ASSERT_EQ(0, rc)
	{
		hx_log(log, sizeof(log));
		TH_LOG("serve ended with %d; log: %s", rc, log);
	}
	pid = process_pid(_metadata, hx);
	ASSERT_LT(0, pid);
	*tid = 0;
	for (int waited = 0; waited < HX_READY_MS && !*tid; waited += 5) {
		DIR *dir;
		struct dirent *e;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		dir = opendir(path);
		ASSERT_NE(NULL, dir);
		while ((e = readdir(dir)))
			if (atoi(e->d_name) > 0 && atoi(e->d_name) != pid)
				*tid = atoi(e->d_name);
		closedir(dir);
		if (!*tid)
			usleep(5000);
	}
	ASSERT_LT(0, *tid)
	{
		TH_LOG("the Harness process %d made no second thread", pid);
	}
	return pid;
}

/* jr2-try VERB ARGS in the shared layer (standin false) or a request's own. */
static const char *try_in(struct hx *hx, bool standin, const char *verb,
			  const char *a, const char *b, bool line)
{
	static char out[HX_OUT_SIZE];
	const char *const argv[] = {hx->try_tool, verb, a, b, NULL};

	hx_exec_opts(hx, standin ? with_standin : NULL, argv, out, sizeof(out));
	out[strcspn(out, line ? "\n" : " \n")] = '\0';
	return out;
}

TEST_F(harness_process, E5_E2_P8_starts_with_its_environment)
{
	struct hx *hx = &self->hx;
	char env_path[64], text[8192],
	    *envp[] = {"PATH=/usr/bin:/bin", "LD_PRELOAD=/mnt/rw/evil.so",
		       "NODE_OPTIONS=--require /mnt/rw/hook.js", NULL};
	const char *const cmd[] = {HP_TRY, "harness-like", HP_ABS, NULL};
	pid_t pid;
	ssize_t n;
	int fd, status = -1;
	char *ppid_line, stat_text[512];

	make_trees(_metadata, hx, HP_CONFIG_TEXT);
	HX_REQUIRE_ACCEPTED(hx);
	ASSERT_EQ(0, start_cmd(_metadata, hx, cmd, envp));
	pid = process_pid(_metadata, hx);
	ASSERT_LT(0, pid);
	/* Its own session, a child of serve. */
	ASSERT_EQ(pid, getsid(pid));
	snprintf(env_path, sizeof(env_path), "/proc/%d/stat", (int)pid);
	fd = open(env_path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, stat_text, sizeof(stat_text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	stat_text[n] = '\0';
	ppid_line = strrchr(stat_text, ')');
	ASSERT_NE(NULL, ppid_line);
	ASSERT_EQ(hx->pid, atoi(ppid_line + 4));
	/* Its environment, as the test (unconfined) reads it. */
	snprintf(env_path, sizeof(env_path), "/proc/%d/environ", (int)pid);
	fd = open(env_path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	for (ssize_t i = 0; i < n; i++)
		if (!text[i])
			text[i] = '\n';
	text[n] = '\0';
	ASSERT_NE(NULL, strstr(text, "HOME=" HX_PROTECTED "/home\n"))
	{
		TH_LOG("environment: %s", text);
	}
	ASSERT_NE(NULL, strstr(text, "JR2_HARNESS_ROOT=" HX_ROOT "\n"));
	ASSERT_EQ(NULL, strstr(text, "LD_PRELOAD"));
	ASSERT_EQ(NULL, strstr(text, "NODE_OPTIONS"));
	/* The programs keep the start environment's (E1). */
	ASSERT_STREQ("--require", HX_TRY(hx, "getenv", "NODE_OPTIONS"));
	/* P8: its end stops serve, with its status. */
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(hx->pid, waitpid(hx->pid, &status, 0));
	hx->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(128 + SIGKILL, WEXITSTATUS(status));
	ASSERT_NE(0, access(HX_STANDINS, F_OK));
}

TEST_F(harness_process, P8_exit_status_of_cmd)
{
	struct hx *hx = &self->hx;
	const char *const cmd[] = {HP_TRY, "pid-sleep-exit", "1500", "7", NULL};
	int status = -1;

	make_trees(_metadata, hx, HP_CONFIG_TEXT);
	HX_REQUIRE_ACCEPTED(hx);
	ASSERT_EQ(0, start_cmd(_metadata, hx, cmd, NULL));
	ASSERT_LT(0, process_pid(_metadata, hx));
	ASSERT_EQ(hx->pid, waitpid(hx->pid, &status, 0));
	hx->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(7, WEXITSTATUS(status));
}

/* /proc/<id>/FILE of the Harness process and its thread: EACCES from both
 * layers; a peer's: readable. */
static void assert_proc_denied(struct __test_metadata *_metadata, struct hx *hx,
			       const char *file)
{
	const char *verb = strcmp(file, "mem") ? "read-file" : "open-read";
	char path[64], why[256];
	pid_t tid, pid = start_harness_like(_metadata, hx, &tid), client;
	pid_t peer;

	if (!pid)
		return;
	peer = hx_start_sleeper(_metadata, hx, &client);
	for (int layer = 0; layer < 2; layer++) {
		for (int t = 0; t < 2; t++) {
			snprintf(path, sizeof(path), "/proc/%d/%s",
				 (int)(t ? tid : pid), file);
			ASSERT_STREQ("EACCES",
				     try_in(hx, layer, verb, path, NULL, false))
			{
				TH_LOG("%s of the Harness process is open to "
				       "a program (layer %s)",
				       path, layer ? "own" : "shared");
			}
		}
	}
	/* Positive controls: the test reads it; a peer's is readable. */
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	ASSERT_EQ(0, test_open(path, O_RDONLY));
	if (!strcmp(file, "mem") && hx_peer_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)peer, file);
	ASSERT_STREQ("ok", HX_TRY(hx, verb, path));
}

TEST_F(harness_process, P1_proc_environ_eacces)
{
	assert_proc_denied(_metadata, &self->hx, "environ");
}

TEST_F(harness_process, P1_proc_mem_eacces)
{
	assert_proc_denied(_metadata, &self->hx, "mem");
}

TEST_F(harness_process, P1_proc_maps_eacces)
{
	assert_proc_denied(_metadata, &self->hx, "maps");
}

TEST_F(harness_process, P1_ptrace_vm_read_pidfd_getfd_eperm)
{
	struct hx *hx = &self->hx;
	char id[16], peer_id[16], why[256];
	pid_t tid, pid = start_harness_like(_metadata, hx, &tid), client;

	if (!pid)
		return;
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer_id,
		   sizeof(peer_id));
	for (int layer = 0; layer < 2; layer++) {
		for (int t = 0; t < 2; t++) {
			hx_pid_str(t ? tid : pid, id, sizeof(id));
			ASSERT_STREQ("EPERM", try_in(hx, layer, "ptrace-attach",
						     id, NULL, false));
			ASSERT_STREQ("EPERM", try_in(hx, layer, "ptrace-seize",
						     id, NULL, false));
			ASSERT_STREQ("EPERM", try_in(hx, layer, "vm-read", id,
						     NULL, true));
		}
		/* Its descriptor 3, the listening socket. */
		hx_pid_str(pid, id, sizeof(id));
		ASSERT_STREQ("EPERM",
			     try_in(hx, layer, "pidfd-getfd", id, "3", false));
	}
	if (hx_peer_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-attach", peer_id));
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-seize", peer_id));
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "vm-read", peer_id));
	ASSERT_STREQ("ok", HX_TRY(hx, "pidfd-getfd", peer_id, "0"));
}

TEST_F(harness_process, P2_signal_and_abstract_socket)
{
	struct hx *hx = &self->hx;
	bool signals = jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_SIGNAL);
	bool sockets = jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_ABSTRACT_UNIX);
	char id[16], peer_id[16];
	pid_t tid, pid = start_harness_like(_metadata, hx, &tid), client;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (!pid)
		return;
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer_id,
		   sizeof(peer_id));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", peer_id, "0"));
	for (int layer = 0; layer < 2; layer++) {
		for (int t = 0; t < 2; t++) {
			hx_pid_str(t ? tid : pid, id, sizeof(id));
			ASSERT_STREQ(signals ? "EPERM" : "ok",
				     try_in(hx, layer, "kill", id, "0", false));
		}
		if (signals) {
			hx_pid_str(pid, id, sizeof(id));
			ASSERT_STREQ("EPERM",
				     try_in(hx, layer, "kill", id, "9", false));
		}
		ASSERT_STREQ(
		    sockets ? "EPERM" : "ok",
		    try_in(hx, layer, "connect-abstract", HP_ABS, NULL, false));
	}
	/* Positive control: it lives and listens. */
	ASSERT_EQ(0, kill(pid, 0));
	memcpy(addr.sun_path + 1, HP_ABS, strlen(HP_ABS));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0,
		  connect(fd, (struct sockaddr *)&addr,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + strlen(HP_ABS))));
	close(fd);
}

/* A refused start: exit 2, the message names `named`, nothing made. */
static void assert_refused(struct __test_metadata *_metadata, struct hx *hx,
			   const char *const cmd[], char *const envp[],
			   const char *named)
{
	char log[HX_OUT_SIZE];

	ASSERT_EQ(2, start_cmd(_metadata, hx, cmd, envp));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, named))
	{
		TH_LOG("the refusal does not name '%s': %s", named, log);
	}
	ASSERT_EQ(-1, access(HX_ROOT "/run", F_OK));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(harness_process, E8_cmd_where_programs_write_refused)
{
	struct hx *hx = &self->hx;
	const char *const open_cmd[] = {HP_RW "/jr2-try", "harness-like",
					HP_ABS, NULL};
	const char *const link_cmd[] = {HP_RO "/link", "harness-like", HP_ABS,
					NULL};
	const char *const ok_cmd[] = {HP_TRY, "harness-like", HP_ABS, NULL};

	make_trees(_metadata, hx, HP_CONFIG_TEXT);
	HX_REQUIRE_ACCEPTED(hx);
	assert_refused(_metadata, hx, open_cmd, NULL, "'" HP_RW "'");
	/* A link in the read-only tree to a file programs can change. */
	ASSERT_EQ(0, symlink("../rw/jr2-try", HP_RO "/link"));
	assert_refused(_metadata, hx, link_cmd, NULL, "'" HP_RW "'");
	/* Found by PATH in a folder programs write. */
	{
		const char *const path_cmd[] = {"jr2-try", "sleep", NULL};
		char *envp[] = {"PATH=" HP_RW, NULL};

		/* The Harness process's PATH is the harness's fixed one:
		 * not found there, a bad input too. */
		ASSERT_EQ(2, start_cmd(_metadata, hx, path_cmd, envp));
		ASSERT_EQ(-1, access(HX_ROOT "/run", F_OK));
	}
	/* Positive control: the same program in the read-only tree. */
	ASSERT_EQ(0, start_cmd(_metadata, hx, ok_cmd, NULL));
	ASSERT_LT(0, process_pid(_metadata, hx));
}

/* A copy of a dynamic program whose PT_NOTE header is made a second
 * PT_INTERP, naming the same loader: the kernel runs it as before. */
static void make_two_interps(struct __test_metadata *_metadata,
			     const char *from, const char *to)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph, interp = {0};
	int fd, note = -1;

	copy_file(_metadata, from, to);
	fd = open(to, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(sizeof(eh), pread(fd, &eh, sizeof(eh), 0));
	for (int i = 0; i < eh.e_phnum; i++) {
		off_t at = (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph));

		ASSERT_EQ(sizeof(ph), pread(fd, &ph, sizeof(ph), at));
		if (ph.p_type == PT_INTERP)
			interp = ph;
		if (ph.p_type == PT_NOTE && interp.p_type && note < 0) {
			note = i;
			ph = interp;
			ASSERT_EQ(sizeof(ph), pwrite(fd, &ph, sizeof(ph), at));
		}
	}
	ASSERT_LE(0, note)
	{
		TH_LOG("%s has no PT_NOTE header after its PT_INTERP", from);
	}
	close(fd);
}

TEST_F(harness_process, E8_what_the_kernel_runs)
{
	struct hx *hx = &self->hx;
	const char *const two[] = {HP_RO "/two", "1000", NULL};
	const char *const text[] = {HP_RO "/text", NULL};
	const char *const by_path[] = {HP_RO "/by-path", NULL};
	const char *const ok_cmd[] = {HP_RO "/sleep", "1000", NULL};

	if (access("/usr/bin/sleep", X_OK))
		SKIP(return, "no /usr/bin/sleep (a dynamic program) here");
	make_trees(_metadata, hx,
		   HP_CONFIG_TEXT "read-only /usr\nread-only /etc\n");
	HX_REQUIRE_ACCEPTED(hx);
	copy_file(_metadata, "/usr/bin/sleep", HP_RO "/sleep");
	make_two_interps(_metadata, HP_RO "/sleep", HP_RO "/two");
	fx_make_file(_metadata, HP_RO "/text", "sleep 1000\n", 0755);
	fx_make_file(_metadata, HP_RO "/by-path", "#!/usr/bin/env sleep\n",
		     0755);
	assert_refused(_metadata, hx, two, NULL, "more than one PT_INTERP");
	assert_refused(_metadata, hx, text, NULL, "binfmt_misc");
	assert_refused(_metadata, hx, by_path, NULL, "'/usr/bin/env'");
	/* Positive control: the program as built. */
	ASSERT_EQ(0, start_cmd(_metadata, hx, ok_cmd, NULL));
	ASSERT_LT(0, process_pid(_metadata, hx));
}

TEST_F(harness_process, E4_files_read_by_every_source_of_names)
{
	struct hx *hx = &self->hx;
	const char *const cmd[] = {HP_TRY, "harness-like", HP_ABS, NULL};
	char *envfrom[] = {"JR2_ENVFROM_NODE_EXTRA_CA_CERTS=" HP_RW "/ca.pem",
			   NULL};
	char *envfrom_ssl[] = {"JR2_ENVFROM_SSL_CERT_FILE=" HP_RW "/ca.pem",
			       NULL};
	char *cert_dir[] = {"SSL_CERT_DIR=" HP_RO ":" HP_RW, NULL};
	char *good[] = {"PATH=/usr/bin:/bin",
			"JR2_ENVFROM_NODE_EXTRA_CA_CERTS=" HP_RO "/ca.pem",
			"SSL_CERT_DIR=" HP_RO, NULL};
	char path[64], text[8192];
	ssize_t n;
	int fd;

	make_trees(_metadata, hx, HP_CONFIG_TEXT);
	HX_REQUIRE_ACCEPTED(hx);
	fx_make_file(_metadata, HP_RW "/ca.pem", "", 0644);
	fx_make_file(_metadata, HP_RO "/ca.pem", "", 0644);
	assert_refused(_metadata, hx, cmd, envfrom,
		       "NODE_EXTRA_CA_CERTS '" HP_RW "/ca.pem'");
	assert_refused(_metadata, hx, cmd, envfrom_ssl,
		       "SSL_CERT_FILE '" HP_RW "/ca.pem'");
	assert_refused(_metadata, hx, cmd, cert_dir,
		       "SSL_CERT_DIR '" HP_RW "'");
	ASSERT_EQ(0, unlink(HP_CONFIG));
	fx_make_file(_metadata, HP_CONFIG,
		     HP_CONFIG_TEXT "env NODE_ICU_DATA=" HP_RW "\n", 0644);
	assert_refused(_metadata, hx, cmd, NULL,
		       "folder named by NODE_ICU_DATA '" HP_RW "' lies where");
	/* Positive control: the same names, their files read-only. */
	ASSERT_EQ(0, unlink(HP_CONFIG));
	fx_make_file(_metadata, HP_CONFIG, HP_CONFIG_TEXT, 0644);
	ASSERT_EQ(0, start_cmd(_metadata, hx, cmd, good));
	snprintf(path, sizeof(path), "/proc/%d/environ",
		 (int)process_pid(_metadata, hx));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	for (ssize_t i = 0; i < n; i++)
		if (!text[i])
			text[i] = '\n';
	text[n] = '\0';
	ASSERT_NE(NULL,
		  strstr(text, "\nNODE_EXTRA_CA_CERTS=" HP_RO "/ca.pem\n"))
	{
		TH_LOG("the Harness process's environment: %s", text);
	}
}

/*
 * Each path of a list the Harness process reads (KUBECONFIG's files,
 * NODE_ICU_DATA's folders) lies in a read-only tree, or the start is
 * refused naming that path; a path of the wrong kind is refused too.
 */
TEST_F(harness_process, E4_each_path_of_a_list_checked)
{
	struct hx *hx = &self->hx;
	const char *const cmd[] = {HP_TRY, "harness-like", HP_ABS, NULL};
	char *kube_rw[] = {"PATH=/usr/bin:/bin",
			   "JR2_ENVFROM_KUBECONFIG=" HP_RO "/a:" HP_RW "/b",
			   NULL};
	char *icu_rw[] = {
	    "PATH=/usr/bin:/bin",
	    "JR2_ENVFROM_NODE_ICU_DATA=" HP_RO "/icu:" HP_RW "/icu", NULL};
	char *cert_file[] = {"PATH=/usr/bin:/bin",
			     "JR2_ENVFROM_SSL_CERT_DIR=" HP_RO "/a", NULL};
	char *kube_dir[] = {"PATH=/usr/bin:/bin",
			    "JR2_ENVFROM_KUBECONFIG=" HP_RO "/icu", NULL};
	char *good[] = {"PATH=/usr/bin:/bin",
			"JR2_ENVFROM_KUBECONFIG=" HP_RO "/a:" HP_RO "/b",
			"JR2_ENVFROM_NODE_ICU_DATA=" HP_RO "/icu",
			"JR2_ENVFROM_SSL_CERT_DIR=" HP_RO "/icu", NULL};

	make_trees(_metadata, hx, HP_CONFIG_TEXT);
	HX_REQUIRE_ACCEPTED(hx);
	fx_make_file(_metadata, HP_RO "/a", "apiVersion: v1\n", 0644);
	fx_make_file(_metadata, HP_RO "/b", "apiVersion: v1\n", 0644);
	fx_make_file(_metadata, HP_RW "/b", "apiVersion: v1\n", 0644);
	fx_make_dir(_metadata, HP_RO "/icu", 0755);
	fx_make_dir(_metadata, HP_RW "/icu", 0755);
	assert_refused(_metadata, hx, cmd, kube_rw,
		       "the Harness process's file named by KUBECONFIG '" HP_RW
		       "/b' lies where a confined program could write");
	assert_refused(_metadata, hx, cmd, icu_rw,
		       "the Harness process's file or folder named by "
		       "NODE_ICU_DATA '" HP_RW
		       "/icu' lies where a confined program could write");
	assert_refused(_metadata, hx, cmd, cert_file,
		       "SSL_CERT_DIR '" HP_RO "/a' is a regular file, not a "
		       "directory; name a folder");
	assert_refused(_metadata, hx, cmd, kube_dir,
		       "KUBECONFIG '" HP_RO "/icu' is a directory, not a "
		       "regular file; name a regular file");
	/* Positive control: every path in the read-only tree, each of its
	 * kind. */
	ASSERT_EQ(0, start_cmd(_metadata, hx, cmd, good));
	ASSERT_LT(0, process_pid(_metadata, hx));
}

/* A copy of a dynamic program that E8 takes for Node: a weak import's
 * name in its dynamic string table made napi_module_register, and its
 * build's define of an externalized builtin module at `builtin`. */
static void make_fake_node(struct __test_metadata *_metadata, const char *from,
			   const char *to, const char *builtin)
{
	static const char weak[] = "_ITM_deregisterTMCloneTable";
	static const char napi[] = "napi_module_register";
	char *text = NULL, define[256];
	size_t size = 0;
	FILE *file;
	char *at;

	copy_file(_metadata, from, to);
	file = fopen(to, "r+e");
	ASSERT_NE(NULL, file);
	text = malloc(64 << 20);
	ASSERT_NE(NULL, text);
	size = fread(text, 1, 64 << 20, file);
	at = memmem(text, size, weak, sizeof(weak));
	ASSERT_NE(NULL, at)
	{
		TH_LOG("%s imports no %s", from, weak);
	}
	ASSERT_EQ(0, fseek(file, at - text, SEEK_SET));
	ASSERT_EQ(sizeof(napi), fwrite(napi, 1, sizeof(napi), file));
	ASSERT_EQ(0, fseek(file, 0, SEEK_END));
	snprintf(define, sizeof(define),
		 "%c\"NODE_SHARED_BUILTIN_ACORN_PATH=%s\"%c", 0, builtin, 0);
	ASSERT_EQ(strlen(define + 1) + 2,
		  fwrite(define, 1, strlen(define + 1) + 2, file));
	ASSERT_EQ(0, fclose(file));
	free(text);
}

TEST_F(harness_process, E8_node_builtins_and_global_folders)
{
	struct hx *hx = &self->hx;
	const char *const open_builtin[] = {
	    HP_RO "/open-node", "--disable-sigusr1", HP_RO "/main.js", NULL};
	const char *const ok_cmd[] = {HP_RO "/fake-node", "--disable-sigusr1",
				      HP_RO "/main.js", NULL};
	char log[HX_OUT_SIZE];
	int rc;

	if (access("/usr/bin/sleep", X_OK))
		SKIP(return, "no /usr/bin/sleep (a dynamic program) here");
	make_trees(_metadata, hx,
		   HP_CONFIG_TEXT "read-only /usr\nread-only /etc\n");
	HX_REQUIRE_ACCEPTED(hx);
	fx_make_file(_metadata, HP_RO "/main.js", "", 0644);
	fx_make_file(_metadata, HP_RO "/acorn.js", "", 0644);
	fx_make_file(_metadata, HP_RW "/acorn.js", "", 0644);
	make_fake_node(_metadata, "/usr/bin/sleep", HP_RO "/open-node",
		       HP_RW "/acorn.js");
	make_fake_node(_metadata, "/usr/bin/sleep", HP_RO "/fake-node",
		       HP_RO "/acorn.js");
	assert_refused(_metadata, hx, open_builtin, NULL,
		       "externalized builtin module '" HP_RW "/acorn.js'");
	/* $PREFIX/share/nodejs ($PREFIX: /mnt here), made where programs
	 * write. */
	fx_make_dir(_metadata, HX_MNT "/share", 0755);
	assert_refused(_metadata, hx, ok_cmd, NULL,
		       "folder '" HX_MNT "/share/nodejs'");
	ASSERT_EQ(0, rmdir(HX_MNT "/share"));
	/* Positive control: the check passes (the copy then stops on
	 * options it does not know: serve ends with its status). */
	rc = start_cmd(_metadata, hx, ok_cmd, NULL);
	hx_log(log, sizeof(log));
	ASSERT_NE(2, rc);
	ASSERT_NE(NULL, strstr(log, "the Harness process (pid"))
	{
		TH_LOG("log: %s", log);
	}
}

TEST_F(harness_process, E7_envfrom_keys)
{
	struct hx *hx = &self->hx;
	const char *const cmd[] = {HP_TRY, "harness-like", HP_ABS, NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", "JR2_ENVFROM_FOO=bar",
			"FOO=image", "JR2_ENVFROM_NODE_OPTIONS=--require x",
			NULL};
	char *bad_jr2[] = {"JR2_ENVFROM_JR2_X=1", NULL};
	char *bad_secret[] = {"JR2_ENVFROM_GH_TOKEN=x", NULL};
	char *bad_env[] = {"JR2_ENVFROM_LANG=x", NULL};
	char path[64], text[8192];
	pid_t pid;
	ssize_t n;
	int fd;

	make_trees(_metadata, hx, HP_CONFIG_TEXT "env LANG=C.UTF-8\n");
	HX_REQUIRE_ACCEPTED(hx);
	assert_refused(_metadata, hx, cmd, bad_jr2, "JR2_ENVFROM_JR2_X");
	assert_refused(_metadata, hx, cmd, bad_secret, "GH_TOKEN");
	assert_refused(_metadata, hx, cmd, bad_env, "JR2_ENVFROM_LANG");
	ASSERT_EQ(0, start_cmd(_metadata, hx, cmd, envp));
	ASSERT_STREQ("bar", HX_TRY(hx, "getenv", "FOO"));
	ASSERT_STREQ("(unset)", HX_TRY(hx, "getenv", "JR2_ENVFROM_FOO"));
	ASSERT_STREQ("--require", HX_TRY(hx, "getenv", "NODE_OPTIONS"));
	ASSERT_STREQ("bar", try_in(hx, true, "getenv", "FOO", NULL, false));
	pid = process_pid(_metadata, hx);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	for (ssize_t i = 0; i < n; i++)
		if (!text[i])
			text[i] = '\n';
	text[n] = '\0';
	ASSERT_NE(NULL, strstr(text, "\nFOO=bar\n"))
	{
		TH_LOG("the Harness process's environment: %s", text);
	}
	ASSERT_EQ(NULL, strstr(text, "JR2_ENVFROM_"));
	ASSERT_EQ(NULL, strstr(text, "NODE_OPTIONS"));
}

TEST_HARNESS_MAIN
