// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jr2-harness serve -- CMD`: the Harness process (jr2's Node code in an
 * image).  serve starts CMD unconfined, in a session of its own, with the
 * environment E2 composes plus the JR2_ENVFROM_ keys under their own names
 * (E7) and JR2_HARNESS_ROOT, its HOME the protected dir's home (E5), made
 * before.  Its pid is in `status`; when it exits, serve stops (P8) and exits
 * with its status.
 *
 * P1, P2: it is in no Landlock domain and the programs are in the spawner's:
 * Landlock lets a task trace a task, read its /proc/<pid>/environ and mem,
 * process_vm_readv or pidfd_getfd it only when the target's domain is the
 * caller's or one below it, and on ABI 6+ the spawner's scopes keep its
 * programs' signals and abstract-socket connections inside its domain.
 *
 * E8: only code no program can change runs in it.  Every file the kernel,
 * the loader or Node opens by name to start it must lie in a protected dir
 * or a read-only tree of the policy in force, and every folder on the way,
 * each symbolic link's folder included, must be one a program cannot
 * change (such a tree, or a frozen folder: an ancestor of one, where
 * nothing can be made, removed or renamed); a missing entry is fine only in
 * such a folder.  Checked: CMD's real path, its script interpreter (#!),
 * its ELF interpreter, /etc/ld.so.preload, each library the interpreter
 * lists (`ld.so --list`, run with an empty environment once the
 * interpreter itself passed), and for Node its main script, the options'
 * files (-r, --import, --env-file, ...), the node_modules folders and
 * package.json files from the main script's folder up to /, NODE_PATH,
 * $HOME/.node_modules, $HOME/.node_libraries and $PREFIX/lib/node.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "die.h"
#include "env.h"
#include "log.h"
#include "policy.h"
#include "policy_internal.h"
#include "serve.h"

/* The trees no program can change: protected dirs, read-only trees, CA
 * bundles (read-only files), real paths. */
static struct jr2_strv trusted;

/* A tree that is not there is skipped by the policy's compiler: it
 * neither holds nor freezes anything, so it is not taken. */
static void add_trusted(const char *path)
{
	char real[PATH_MAX];

	if (realpath(path, real))
		jr2_strv_add(&trusted, real);
}

static void collect_trusted(void)
{
	const struct jr2_policy *p = &harness.policy;

	/* This start makes it (and its ancestors) before the policy is
	 * compiled: held, and its ancestors frozen, from the first program. */
	jr2_strv_add(&trusted, harness.protected_dir);
	for (size_t i = 0; i < p->protect.n; i++)
		add_trusted(p->protect.v[i]);
	for (size_t i = 0; i < p->read_only.n; i++)
		add_trusted(p->read_only.v[i]);
	for (size_t i = 0; i < p->ca_bundles.n; i++)
		add_trusted(p->ca_bundles.v[i]);
	/* The kernel's trees: read-only in every policy (plan.h). */
	add_trusted(JR2_PROC_TREE);
	add_trusted(JR2_SYS_TREE);
}

static bool within_trusted(const char *real)
{
	for (size_t i = 0; i < trusted.n; i++)
		if (jr2_path_within(real, trusted.v[i]))
			return true;
	return false;
}

/* A folder no program can change: in a trusted tree, or frozen (an
 * ancestor of one: nothing is made, removed or renamed in it). */
static bool sealed(const char *dir)
{
	if (within_trusted(dir))
		return true;
	for (size_t i = 0; i < trusted.n; i++)
		if (jr2_path_within(trusted.v[i], dir))
			return true;
	return false;
}

enum lookup { FOUND, MISSING, OPEN };

/* Copies a path into a PATH_MAX buffer; false when it does not fit. */
static bool put(char *dst, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc >= PATH_MAX)
		return false;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb);
	memcpy(dst + la + lb, c, lc + 1);
	return true;
}

/*
 * Looks `path` up as the kernel does (relative to serve's folder), one
 * entry at a time: FOUND (real path in *real) when it exists in a trusted
 * tree, MISSING when it is not there and cannot be made, else OPEN with the
 * entry a program could change in *bad.  All three are PATH_MAX long.
 */
static enum lookup look_up(const char *path, char *real, char *bad)
{
	char todo[PATH_MAX], cur[PATH_MAX] = "", cwd[PATH_MAX];
	int hops = 0;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		jr2_die_path(1, "cannot read the current folder for", path);
	if (!put(todo, path[0] == '/' ? "" : cwd, path[0] == '/' ? "" : "/",
		 path)) {
		put(bad, path, "", "");
		return OPEN;
	}
	for (char *at = todo; *at;) {
		char next[PATH_MAX], comp[NAME_MAX + 1], link[PATH_MAX];
		char rest[PATH_MAX];
		size_t len;
		struct stat st;
		ssize_t n;

		while (*at == '/')
			at++;
		len = strcspn(at, "/");
		if (!len)
			break;
		if (len > NAME_MAX)
			len = NAME_MAX;
		memcpy(comp, at, len);
		comp[len] = '\0';
		at += strcspn(at, "/");
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			continue;
		}
		/* The entry's folder: a program could replace the entry. */
		if (!sealed(cur[0] ? cur : "/")) {
			put(bad, cur[0] ? cur : "/", "", "");
			return OPEN;
		}
		if (!put(next, cur, "/", comp)) {
			put(bad, cur, "/", "...");
			return OPEN;
		}
		if (lstat(next, &st)) {
			put(bad, next, "", "");
			return errno == ENOENT || errno == ENOTDIR ? MISSING
								   : OPEN;
		}
		if (!S_ISLNK(st.st_mode)) {
			put(cur, next, "", "");
			continue;
		}
		n = readlink(next, link, sizeof(link) - 1);
		if (n < 0 || ++hops > 40) {
			put(bad, next, "", "");
			return OPEN;
		}
		link[n] = '\0';
		if (!put(rest, link, at, "")) {
			put(bad, next, "", "");
			return OPEN;
		}
		put(todo, rest, "", "");
		at = todo;
		if (link[0] == '/')
			cur[0] = '\0';
	}
	put(real, cur[0] ? cur : "/", "", "");
	if (within_trusted(real))
		return FOUND;
	put(bad, real, "", "");
	return OPEN;
}

static void refuse_open(const char *what, const char *path, const char *bad)
{
	jr2_die(JR2_EXIT_USAGE,
		"refusing to start: the Harness process's %s '%s' lies where a "
		"confined program could write or create it ('%s' is outside "
		"every protected dir and read-only tree in force, and not a "
		"missing entry of a frozen folder); move it under a read-only "
		"tree (/opt/jr2 with the defaults) or add 'read-only <its "
		"folder>' to the config (where it is missing, a read-only "
		"tree inside that folder freezes it: nothing can be made "
		"there)",
		what, path, bad);
}

/* A file or folder that must exist and lie in a trusted tree. */
static void check_found(const char *what, const char *path, char *real)
{
	char bad[PATH_MAX], own[PATH_MAX];
	enum lookup r = look_up(path, real ? real : own, bad);

	if (r == MISSING)
		jr2_die(JR2_EXIT_USAGE,
			"refusing to start: the Harness process's %s '%s' "
			"does not exist ('%s'); install it or fix the path",
			what, path, bad);
	if (r == OPEN)
		refuse_open(what, path, bad);
}

/* A place looked in: missing is fine where it cannot be made. */
static void check_looked_in(const char *what, const char *path)
{
	char bad[PATH_MAX], real[PATH_MAX];

	if (look_up(path, real, bad) == OPEN)
		refuse_open(what, path, bad);
}

/* CMD as execvp finds it, in the Harness process's PATH. */
static void find_cmd(const char *cmd, char *out)
{
	const char *path = NULL;

	if (strchr(cmd, '/')) {
		snprintf(out, PATH_MAX, "%s", cmd);
		return;
	}
	for (size_t i = 0; i < harness.process_env.n; i++)
		if (!strncmp(harness.process_env.v[i], "PATH=", 5))
			path = harness.process_env.v[i] + 5;
	for (const char *dir = path; dir && *dir;) {
		size_t len = strcspn(dir, ":");

		snprintf(out, PATH_MAX, "%.*s/%s", (int)len, len ? dir : ".",
			 cmd);
		if (access(out, X_OK) == 0)
			return;
		dir += len + (dir[len] == ':');
	}
	jr2_die(JR2_EXIT_USAGE,
		"serve: CMD '%s' is not found in the Harness process's PATH "
		"(%s); give its absolute path",
		cmd, path ? path : "none");
}

/* The ELF interpreter of an executable, or "" (static, or not ELF). */
static void elf_interp(const char *real, char *interp, size_t size,
		       bool *script)
{
	unsigned char head[256];
	int fd = open(real, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, head, sizeof(head) - 1, 0);

	interp[0] = '\0';
	*script = false;
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		char *p = (char *)head + 2;

		head[n] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(interp, size, "%.*s", (int)strcspn(p, " \t\n"), p);
		*script = true;
	} else if (n >= (ssize_t)sizeof(Elf64_Ehdr) &&
		   !memcmp(head, ELFMAG, SELFMAG) &&
		   head[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;

		memcpy(&eh, head, sizeof(eh));
		for (int i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph),
				  (off_t)(eh.e_phoff +
					  (Elf64_Off)i * eh.e_phentsize)) !=
			    sizeof(ph))
				break;
			if (ph.p_type != PT_INTERP || !ph.p_filesz ||
			    ph.p_filesz >= size)
				continue;
			if (pread(fd, interp, ph.p_filesz,
				  (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
				interp[0] = '\0';
			else
				interp[ph.p_filesz] = '\0';
		}
	} else if (n >= (ssize_t)sizeof(Elf32_Ehdr) &&
		   !memcmp(head, ELFMAG, SELFMAG)) {
		jr2_die(JR2_EXIT_USAGE,
			"refusing to start: the Harness process's program "
			"'%s' is a 32-bit ELF file, whose libraries jr2 does "
			"not check; give a 64-bit build",
			real);
	}
	if (fd >= 0)
		close(fd);
}

/* Each library the interpreter would load, as `INTERP --list` says. */
static void check_libraries(const char *interp_real, const char *exe)
{
	char *const argv[] = {(char *)interp_real, "--list", (char *)exe, NULL};
	char *const envp[] = {NULL};
	char *text = NULL;
	size_t len = 0;
	int pipefd[2], status = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		jr2_die_path(1, "cannot make a pipe to list the libraries of",
			     exe);
	pid = fork();
	if (pid < 0)
		jr2_die_path(1, "cannot fork to list the libraries of", exe);
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(pipefd[1], 1);
		execve(interp_real, argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n;

		text = jr2_xrealloc(text, len + 4097);
		n = read(pipefd[0], text + len, 4096);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		jr2_die(JR2_EXIT_USAGE,
			"refusing to start: '%s --list %s' (the loader's list "
			"of the Harness process's libraries) failed with "
			"status %d; check that the program runs",
			interp_real, exe, status);
	for (char *rest = text, *line; (line = strsep(&rest, "\n"));) {
		char *arrow = strstr(line, " => "), *path;
		char lib[PATH_MAX];

		path = arrow ? arrow + 4 : line;
		while (*path == ' ' || *path == '\t')
			path++;
		if (arrow && !strncmp(path, "not found", 9))
			jr2_die(JR2_EXIT_USAGE,
				"refusing to start: the Harness process's "
				"library '%.*s' is not found; install it "
				"beside the program",
				(int)(arrow - line - 1), line + 1);
		if (path[0] == '/') {
			snprintf(lib, sizeof(lib), "%.*s",
				 (int)strcspn(path, " "), path);
			check_found("library", lib, NULL);
		}
	}
	free(text);
}

/* An executable: its real path, its interpreters, its libraries. */
static void check_program(const char *what, const char *path, char *real,
			  int depth)
{
	char interp[PATH_MAX], interp_real[PATH_MAX];
	bool script;

	check_found(what, path, real);
	elf_interp(real, interp, sizeof(interp), &script);
	if (!interp[0])
		return;
	if (script) {
		if (depth >= 4)
			jr2_die(JR2_EXIT_USAGE,
				"refusing to start: the Harness process's "
				"program '%s' has more than 4 #! "
				"interpreters; run the last one directly",
				path);
		check_program("script interpreter", interp, interp_real,
			      depth + 1);
		return;
	}
	check_found("ELF interpreter", interp, interp_real);
	/* glibc's loader reads it at every start of a dynamic program. */
	check_looked_in("loader's preload list", "/etc/ld.so.preload");
	check_libraries(interp_real, real);
}

static const char *process_getenv(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < harness.process_env.n; i++)
		if (!strncmp(harness.process_env.v[i], name, len) &&
		    harness.process_env.v[i][len] == '=')
			return harness.process_env.v[i] + len + 1;
	return NULL;
}

/* node_modules and package.json from `dir` up to /. */
static void check_module_chain(const char *dir)
{
	char at[PATH_MAX], place[PATH_MAX + 16];

	snprintf(at, sizeof(at), "%s", dir);
	for (;;) {
		char *slash;

		snprintf(place, sizeof(place), "%s/node_modules",
			 strcmp(at, "/") ? at : "");
		check_looked_in("module folder", place);
		snprintf(place, sizeof(place), "%s/package.json",
			 strcmp(at, "/") ? at : "");
		check_looked_in("package file", place);
		if (!strcmp(at, "/"))
			return;
		slash = strrchr(at, '/');
		if (slash == at)
			at[1] = '\0';
		else
			*slash = '\0';
	}
}

/* Node's options whose value is a file it loads or reads. */
static bool node_file_option(const char *opt)
{
	static const char *const names[] = {
	    "-r",
	    "--require",
	    "--import",
	    "--loader",
	    "--experimental-loader",
	    "--env-file",
	    "--env-file-if-exists",
	    "--experimental-config-file",
	    "--snapshot-blob",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(opt, names[i]))
			return true;
	return false;
}

/* Node: its main script, its options' files, every folder it looks in. */
static void check_node(char **cmd, const char *exe_real)
{
	char real[PATH_MAX], place[PATH_MAX + 32], cwd[PATH_MAX];
	const char *home = process_getenv("HOME");
	const char *node_path = process_getenv("NODE_PATH");
	bool script = false, bare = false;

	for (char **a = cmd + 1; *a; a++) {
		char opt[64];
		const char *value = NULL, *eq = strchr(*a, '=');

		if (!strcmp(*a, "--")) {
			if (a[1])
				check_found("main script", a[1], real);
			script = a[1] != NULL;
			break;
		}
		if ((*a)[0] != '-') {
			check_found("main script", *a, real);
			script = true;
			break;
		}
		snprintf(opt, sizeof(opt), "%.*s",
			 (int)(eq ? (size_t)(eq - *a) : strlen(*a)), *a);
		if (!strcmp(opt, "-e") || !strcmp(opt, "--eval") ||
		    !strcmp(opt, "-p") || !strcmp(opt, "--print"))
			break; /* no main script: modules from the folder */
		if (!node_file_option(opt))
			continue;
		value = eq ? eq + 1 : *++a;
		if (!value)
			break;
		/* A bare name: looked for in node_modules, from the folder. */
		if (value[0] == '/' || value[0] == '.')
			check_found("file of a Node option", value, NULL);
		else
			bare = true;
	}
	if (script) {
		*strrchr(real, '/') = '\0';
		check_module_chain(real[0] ? real : "/");
	}
	if (!script || bare) {
		if (!getcwd(cwd, sizeof(cwd)))
			jr2_die_path(1, "cannot read", "the current folder");
		check_module_chain(cwd);
	}
	for (const char *p = node_path; p && *p;) {
		size_t len = strcspn(p, ":");

		if (len) {
			snprintf(place, sizeof(place), "%.*s", (int)len, p);
			check_looked_in("NODE_PATH folder", place);
		}
		p += len + (p[len] == ':');
	}
	if (home) {
		snprintf(place, sizeof(place), "%s/.node_modules", home);
		check_looked_in("global module folder", place);
		snprintf(place, sizeof(place), "%s/.node_libraries", home);
		check_looked_in("global module folder", place);
	}
	/* $PREFIX: the folder above the one of Node's real path. */
	snprintf(place, sizeof(place), "%s", exe_real);
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(place, '/');

		if (slash)
			*slash = '\0';
	}
	strcat(place, "/lib/node");
	check_looked_in("global module folder", place);
}

static bool is_node(const char *real)
{
	const char *base = strrchr(real, '/');

	base = base ? base + 1 : real;
	return !strncmp(base, "node", 4) &&
	       (!base[4] || !strcmp(base + 4, "js") ||
		strspn(base + 4, "0123456789.-") == strlen(base + 4));
}

void harness_process_check(const struct serve_options *opts)
{
	extern char **environ;
	struct jr2_strv own = {0}, dropped = {0};
	char path[PATH_MAX];

	if (!opts->cmd)
		return;
	jr2_env_from_environ(&own, environ);
	jr2_env_compose_harness_process(&own, opts->root, &harness.process_env,
					&dropped);
	for (size_t i = 0; i < dropped.n; i++)
		say("dropped '%s' (from %s%s) from the Harness process's "
		    "environment: it loads code from a path (E2)",
		    dropped.v[i], JR2_ENVFROM_PREFIX, dropped.v[i]);
	jr2_strv_free(&own);
	jr2_strv_free(&dropped);
	collect_trusted();
	find_cmd(opts->cmd[0], path);
	check_program("program", path, harness.cmd_path, 0);
	if (is_node(harness.cmd_path))
		check_node(opts->cmd, harness.cmd_path);
}

bool harness_process_reaped(pid_t pid)
{
	int status = 0;

	if (pid <= 0 || pid != harness.process_pid)
		return false;
	waitpid(pid, &status, 0);
	harness.process_pid = 0;
	harness.process_exited = true;
	harness.process_status = WIFEXITED(status)     ? WEXITSTATUS(status)
				 : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
						       : 1;
	say("the Harness process (pid %d) exited with status %d: stopping",
	    (int)pid, harness.process_status);
	return true;
}

/* In the child: what serve changed for itself goes back, then CMD. */
static void become_harness_process(const struct serve_options *opts,
				   pid_t serve_pid)
{
	char **envp = jr2_env_array(&harness.process_env);
	sigset_t none;

	sigemptyset(&none);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* It ends with serve, however serve ends. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != serve_pid)
		_exit(125);
	if (setsid() < 0)
		_exit(125);
	if (harness.start_nofile.rlim_cur)
		setrlimit(RLIMIT_NOFILE, &harness.start_nofile);
	if (harness.start_oom_score_adj[0])
		write_proc_self("oom_score_adj", harness.start_oom_score_adj);
	syscall(SYS_close_range, 3U, ~0U, 0U);
	if (!envp)
		_exit(125);
	execve(harness.cmd_path, opts->cmd, envp);
	dprintf(2, "jr2-harness: cannot start the Harness process '%s': %s\n",
		harness.cmd_path, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

void harness_process_start(const struct serve_options *opts)
{
	pid_t serve_pid = getpid(), pid;

	if (!opts->cmd)
		return;
	pid = fork();
	if (pid < 0)
		jr2_die_path(1, "cannot fork the Harness process",
			     opts->cmd[0]);
	if (pid == 0)
		become_harness_process(opts, serve_pid);
	harness.process_pid = pid;
	say("the Harness process (pid %d) runs %s; %s=%s", (int)pid,
	    harness.cmd_path, JR2_HARNESS_ROOT_NAME, opts->root);
}
