// SPDX-License-Identifier: GPL-2.0-only
/*
 * The start transaction of `jr2-harness serve`: everything is checked before
 * anything is written, and what a start made in the file system is undone
 * when a later step fails (die_set_cleanup), so that a refused start leaves
 * the file system as it found it.  Files are written under a ".new" name
 * and renamed into place once nothing can fail any more.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "abi.h"
#include "channel.h"
#include "config.h"
#include "die.h"
#include "digest.h"
#include "env.h"
#include "harness.h"
#include "json.h"
#include "leftovers.h"
#include "log.h"
#include "policy.h"
#include "serve.h"
#include "standins.h"

static void make_private_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		made_dir(path);
	else if (errno != EEXIST)
		jr2_die_path(1, "cannot make the protected dir", path);
	if (lstat(path, &st))
		jr2_die_path(1, "cannot stat the protected dir", path);
	if (!S_ISDIR(st.st_mode))
		jr2_die(1,
			"protected dir '%s' exists and is not a directory (a "
			"symlink?); remove it",
			path);
	if (st.st_uid != geteuid())
		jr2_die(1,
			"protected dir '%s' is owned by uid %u, not by the "
			"harness (uid %u); remove it or chown it",
			path, (unsigned int)st.st_uid, (unsigned int)geteuid());
	if ((st.st_mode & 07777) != 0700 && chmod(path, 0700))
		jr2_die_path(1, "cannot chmod 0700 the protected dir", path);
}

/*
 * A path for a message: as given when it is text, else in bash's $'...'
 * form, every byte that is not printable ASCII as \xNN, so it can be pasted.
 */
static const char *quoted_path(const char *path, char *out, size_t size)
{
	size_t used = 0;
	bool text = jr2_json_utf8_valid(path, strlen(path));

	for (const char *p = path; *p && text; p++)
		text = (unsigned char)*p >= 0x20 && *p != 0x7f && *p != '\'';
	if (text) {
		snprintf(out, size, "'%s'", path);
		return out;
	}
	used = (size_t)snprintf(out, size, "$'");
	for (const unsigned char *p = (const unsigned char *)path;
	     *p && used + 8 < size; p++)
		used += (size_t)snprintf(out + used, size - used,
					 *p >= 0x20 && *p < 0x7f &&
						 *p != '\'' && *p != '\\'
					     ? "%c"
					     : "\\x%02x",
					 *p);
	snprintf(out + used, size - used, "'");
	return out;
}

/*
 * The root is the user's: a typo must not make a tree somewhere and serve
 * there.  It is made (and unmade by a refused start) only on --make-root.
 */
static void check_root_exists(const char *root, bool make_root)
{
	char shown[4 * PATH_MAX + 8];
	struct stat st;

	if (lstat(root, &st) == 0 || make_root)
		return; /* not a folder, a symlink: check_no_symlink says */
	quoted_path(root, shown, sizeof(shown));
	if (errno == ENOENT)
		jr2_die(JR2_EXIT_USAGE,
			"--root %s does not exist; make it first (mkdir -p "
			"-- %s) or add --make-root",
			shown, shown);
	jr2_die(JR2_EXIT_USAGE, "--root %s: %s; give an existing folder", shown,
		strerror(errno));
}

/* Checks made before anything is written: the path fits a socket. */
static void check_protected_dir(const char *root)
{
	struct stat st;

	if (strlen(harness.protected_dir) + 32 >
	    sizeof(((struct sockaddr_un *)0)->sun_path))
		jr2_die(JR2_EXIT_USAGE,
			"--root '%s' is too long for a unix socket path under "
			"it; use a shorter root",
			root);
	check_no_symlink("--root", harness.protected_dir);
	if (lstat(harness.protected_dir, &st) == 0 && st.st_uid != geteuid())
		jr2_die(1,
			"protected dir '%s' is owned by uid %u, not by the "
			"harness (uid %u); remove it or chown it",
			harness.protected_dir, (unsigned int)st.st_uid,
			(unsigned int)geteuid());
}

static void make_protected_dir(void)
{
	char path[PATH_MAX + 16];

	/* The ancestors are ordinary folders: `ls` of them works (R7). */
	for (char *slash = strchr(harness.protected_dir + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(harness.protected_dir, 0755) == 0)
			made_dir(harness.protected_dir);
		else if (errno != EEXIST)
			jr2_die_path(1, "cannot make the folder",
				     harness.protected_dir);
		*slash = '/';
	}
	make_private_dir(harness.protected_dir);
	snprintf(path, sizeof(path), "%s/%s", harness.protected_dir,
		 JR2_HARNESS_HOME);
	make_private_dir(path);
}

static void load_config(const char *path)
{
	struct jr2_err err = {0};
	char *text;

	jr2_config_init(&harness.cfg);
	if (!path)
		return;
	/* jr2-confine's reader and text check: the same files refused. */
	text = jr2_config_read("--config", path, &err);
	if (!text ||
	    jr2_config_parse(&harness.cfg, text, strlen(text), path, &err))
		jr2_die(err.bad_input ? JR2_EXIT_USAGE : 1, "%s", err.msg);
	free(text);
}

static void make_policy(const char *root)
{
	struct jr2_err err = {0};
	bool at_slash = !strcmp(root, "/");
	const struct jr2_policy *lines = &harness.cfg.policy;
	struct stat st;

	jr2_policy_init(&harness.policy);
	if (at_slash && !lines->protect.n && !lines->read_only.n) {
		jr2_policy_set_defaults(&harness.policy);
		return;
	}
	if (jr2_policy_add_protected(&harness.policy, harness.protected_dir,
				     &err))
		jr2_die(JR2_EXIT_USAGE, "%s", err.msg);
	/* Each configured folder must be there: the spawner would fail. */
	for (int pass = 0; pass < 2; pass++) {
		const struct jr2_strv *paths =
		    pass ? &lines->read_only : &lines->protect;

		for (size_t i = 0; i < paths->n; i++) {
			const char *path = paths->v[i];

			if (stat(path, &st) || (!pass && !S_ISDIR(st.st_mode)))
				jr2_die(JR2_EXIT_USAGE,
					"config '%s': %s '%s' %s; make it or "
					"remove the line",
					harness.config_path,
					pass ? "read-only" : "protect", path,
					errno == ENOENT || !pass
					    ? "is not an existing folder"
					    : strerror(errno));
			if (pass ? jr2_policy_add_read_only(&harness.policy,
							    path, &err)
				 : jr2_policy_add_protected(&harness.policy,
							    path, &err))
				jr2_die(JR2_EXIT_USAGE, "%s", err.msg);
		}
	}
}

/* The policy compiled once, before anything starts (after the dirs). */
static void compile_policy(void)
{
	struct jr2_err err = {0};

	if (jr2_policy_compile(&harness.policy, harness.abi.in_force,
			       &harness.plan, &err))
		jr2_die(err.bad_input ? JR2_EXIT_USAGE : 1,
			"the policy does not compile, so no program could run: "
			"%s",
			err.msg);
}

/* The bearer of the control channel, read once (nothing written yet). */
static void read_bearer(const char *bearer_file)
{
	char *bearer;
	size_t len;

	if (!bearer_file)
		return;
	check_read_file("--bearer-file", bearer_file, JR2_PATH_FILE);
	check_trusted_file("--bearer-file", bearer_file, true);
	bearer = read_small_file(bearer_file, "--bearer-file");
	len = strcspn(bearer, "\r\n");
	if (len < 16)
		jr2_die(JR2_EXIT_USAGE,
			"--bearer-file '%s' holds %zu characters on its first "
			"line; write a secret of at least 16",
			bearer_file, len);
	jr2_sha256(bearer, len, harness.bearer_digest);
	explicit_bzero(bearer, strlen(bearer));
	free(bearer);
}

/* Writes `text` to a new file path.new (0600), renamed later. */
static void write_new_file(const char *path, const char *text)
{
	char tmp[PATH_MAX + 40];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		jr2_die_path(1, "cannot write the file", tmp);
	made_file(tmp);
	if (dprintf(fd, "%s", text) < 0 || close(fd))
		jr2_die_path(1, "cannot write the file", tmp);
}

static void make_secrets(bool make_bearer)
{
	char path[PATH_MAX + 32], token[JR2_STANDIN_SIZE + 2];
	int ret = jr2_standins_make(&harness.standins, &harness.cfg.secrets);

	if (ret) {
		errno = -ret;
		jr2_die_path(1, "cannot make the Stand-ins", "getrandom");
	}
	snprintf(path, sizeof(path), "%s/%s.new", harness.protected_dir,
		 JR2_STANDINS_FILE);
	unlink(path);
	ret = jr2_standins_write(&harness.standins, path);
	if (ret) {
		errno = -ret;
		jr2_die_path(1, "cannot write the Stand-ins file", path);
	}
	made_file(path);
	if (!make_bearer)
		return;
	/* No bearer given: a fresh one, readable by the harness's user only. */
	ret = jr2_random_token(token);
	if (ret) {
		errno = -ret;
		jr2_die_path(1, "cannot make the bearer", "getrandom");
	}
	jr2_sha256(token, strlen(token), harness.bearer_digest);
	harness.bearer_made = true;
	strcat(token, "\n");
	snprintf(path, sizeof(path), "%s/%s", harness.protected_dir,
		 JR2_BEARER_FILE);
	write_new_file(path, token);
	explicit_bzero(token, sizeof(token));
}

/*
 * Programs an earlier harness on this dir left running keep its spawner's
 * policy, whatever this config protects (leftovers.h): refused, named.
 */
#define LEFTOVER_WAIT_MS 1000
static void refuse_leftover_programs(void)
{
	pid_t pids[8];
	size_t n = jr2_leftover_programs(harness.protected_dir, pids, 8);
	char list[512] = "", kill_list[128] = "";

	/* A spawner killed as its harness stopped may still be exiting. */
	for (int tries = 0; n && tries < LEFTOVER_WAIT_MS / 50; tries++) {
		usleep(50 * 1000);
		n = jr2_leftover_programs(harness.protected_dir, pids, 8);
	}
	if (!n)
		return;
	for (size_t i = 0; i < n && i < 8; i++) {
		char comm[32];
		size_t used = strlen(list), kused = strlen(kill_list);

		jr2_proc_comm(pids[i], comm, sizeof(comm));
		snprintf(list + used, sizeof(list) - used, "%s%d (%s)",
			 i ? ", " : "", (int)pids[i], comm);
		snprintf(kill_list + kused, sizeof(kill_list) - kused, " %d",
			 (int)pids[i]);
	}
	jr2_die(1,
		"refusing to start: %zu program(s) an earlier harness on '%s' "
		"started still run under its policy, which this config does "
		"not change: %s%s; end them first (kill%s%s)",
		n, harness.protected_dir, list, n > 8 ? ", ..." : "", kill_list,
		n > 8 ? " ..." : "");
}

/*
 * R11: a program that fills the memory (a tmpfs file is no process's) must
 * not get the harness killed once the OOM killer has taken the programs: the
 * harness is out of its choice (-1000: CAP_SYS_RESOURCE), and the spawner
 * and its programs get the start value back.
 */
static void keep_out_of_oom(void)
{
	int fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1
			   : read(fd, harness.start_oom_score_adj,
				  sizeof(harness.start_oom_score_adj) - 1);

	if (fd >= 0)
		close(fd);
	harness.start_oom_score_adj[n > 0 ? strcspn(harness.start_oom_score_adj,
						    "\n")
					  : 0] = '\0';
	if (n > 0 && !write_proc_self("oom_score_adj", "-1000"))
		return;
	say("cannot keep the harness out of the OOM killer's choice "
	    "(/proc/self/oom_score_adj -1000: %s): a program that fills the "
	    "memory may get it killed; give the harness CAP_SYS_RESOURCE",
	    strerror(errno));
	harness.start_oom_score_adj[0] = '\0';
}

/* Room for every connection and its descriptors; programs get the old. */
static void raise_nofile(void)
{
	struct rlimit more;

	if (getrlimit(RLIMIT_NOFILE, &harness.start_nofile))
		return;
	more = harness.start_nofile;
	more.rlim_cur = more.rlim_max < 65536 ? more.rlim_max : 65536;
	if (more.rlim_cur > harness.start_nofile.rlim_cur)
		setrlimit(RLIMIT_NOFILE, &more);
}

/*
 * The checks of a start: flags, config, files, policy, sockets; nothing is
 * written but the abstract socket's binding (no file).  The first run
 * re-executes from here (E2).
 */
void start_check(const struct serve_options *opts)
{
	struct jr2_strv start = {0};

	/*
	 * harness is static, so zero from the start, and serve() runs once per
	 * process: no memset (1.2 MB of it, mostly the connection table,
	 * would fault every page in, twice per start with the re-execution:
	 * ~10 ms each under TCG, and a bigger copy at the spawner's fork).
	 */
	harness.spawner_fd = -1;
	harness.max_backoff_ms = opts->max_backoff_ms;
	harness.request_timeout_ms = opts->request_timeout_ms;
	harness.stop_grace_ms = opts->stop_grace_ms;
	harness.config_path = opts->config;
	/* ps, pgrep and the kernel's messages say jr2-harness, not "exe"
	 * (the re-execution's /proc/self/exe); first, so that the threads,
	 * the log's writer included, get the name too. */
	prctl(PR_SET_NAME, "jr2-harness");
	/* Before any line: a program of an earlier harness may still hold
	 * the terminal stopped (tcflow TCOOFF), and a write to it blocks.
	 * The first process re-executes (E2): its writer starts with its
	 * first line, if it has one. */
	if (opts->start_env_fd < 0)
		start_log_lazily();
	else
		start_log();
	jr2_abi_probe(&harness.abi, opts->max_abi);
	if (jr2_abi_verdict(&harness.abi) != JR2_VERDICT_ACCEPT) {
		char reason[512];

		jr2_die(
		    1, "refusing to start: %s",
		    jr2_verdict_reason(&harness.abi, reason, sizeof(reason)));
	}
	load_config(opts->config);
	jr2_protected_dir_of(opts->root, harness.protected_dir,
			     sizeof(harness.protected_dir));
	/* E2 first: it writes nothing (a memfd). */
	if (opts->start_env_fd < 0)
		reexec_with_own_environment(opts);
	take_start_environment(opts->start_env_fd, &start);

	/* Validate: flags, config, files, policy, sockets; nothing written. */
	if (opts->config)
		check_read_file("--config", opts->config, JR2_PATH_FILE);
	check_root_exists(opts->root, opts->make_root);
	check_protected_dir(opts->root);
	make_policy(opts->root);
	if (opts->config)
		check_trusted_file("--config", opts->config, false);
	if (jr2_crypto_init())
		jr2_die(1, "cannot start libsodium (sodium_init failed); "
			   "check that getrandom or /dev/urandom works");
	read_bearer(opts->bearer_file);
	compose_environments(&start);
	jr2_strv_free(&start);
	/* E8: what the Harness process loads; nothing made yet. */
	harness_process_check(opts);
	refuse_second_harness();
	refuse_leftover_programs();
	/* check_protected_dir: the path fits. */
	snprintf(harness.abstract_name, sizeof(harness.abstract_name),
		 "%s%.100s", JR2_ABSTRACT_PREFIX, harness.protected_dir);
	bind_abstract();
	raise_nofile();
	keep_out_of_oom();
}

/* The acts of a start, each undone if a later one fails (undo_start). */
void start_act(const struct serve_options *opts)
{
	jr2_die_set_cleanup(undo_start);
	make_protected_dir();
	compile_policy();
	open_sockets();
	make_secrets(!opts->bearer_file);
	/*
	 * P1: not dumpable, so its /proc/<pid>/{environ,mem,maps} and ptrace
	 * need CAP_SYS_PTRACE, which no confined program has (spawner.c).
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		jr2_die_path(1, "cannot make the harness non-dumpable",
			     "PR_SET_DUMPABLE");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		jr2_die_path(1, "cannot become a child subreaper",
			     "PR_SET_CHILD_SUBREAPER");
	watch_signals();
	commit_files();
}
