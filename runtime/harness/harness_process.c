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
 * such a folder.  Checked: CMD's real path, its script interpreter (#!,
 * with its argument, as the kernel reads the line), its ELF interpreter
 * (the first PT_INTERP, as the kernel takes it), /etc/ld.so.preload, each
 * library the interpreter lists (`ld.so --list`, run with an empty
 * environment once the interpreter itself passed), and, when what runs is
 * Node (by its code, not its name), Node's arguments as Node parses them
 * (options off serve's list refused), its main script, the options' files
 * (-r, --import, --loader), the node_modules folders and
 * package.json files from the main script's folder up to /, NODE_PATH,
 * $HOME/.node_modules, $HOME/.node_libraries and $PREFIX/lib/node, and
 * every symbolic link under those folders.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "die.h"
#include "env.h"
#include "log.h"
#include "lookup.h"
#include "policy.h"
#include "policy_internal.h"
#include "serve.h"

/* The kernel's BINPRM_BUF_SIZE: the bytes of a file it reads to choose how
 * to run it (a #! line longer than that is cut). */
#define BINPRM_BUF 256

/* What runs is Node (check_program found it). */
static bool process_is_node;

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

/*
 * Looks `path` up as the kernel does (relative to serve's folder), one
 * entry at a time: FOUND (real path in *real) when it exists in a trusted
 * tree, MISSING when it is not there and cannot be made, else OPEN with the
 * entry a program could change in *bad.  All three are PATH_MAX long.
 */
static enum lookup look_up(const char *path, char *real, char *bad)
{
	struct jr2_strv folders = {0};
	enum lookup found = FOUND;
	int err = jr2_lookup(path, &folders, real, bad);

	/* An entry's folder a program can write: it can replace the entry. */
	for (size_t i = 0; i < folders.n && found == FOUND; i++)
		if (!sealed(folders.v[i])) {
			jr2_path_put(bad, folders.v[i], "", "");
			found = OPEN;
		}
	if (found == FOUND && err)
		found = err == ENOENT || err == ENOTDIR ? MISSING : OPEN;
	if (found == FOUND && !within_trusted(real)) {
		jr2_path_put(bad, real, "", "");
		found = OPEN;
	}
	jr2_strv_free(&folders);
	return found;
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

/*
 * What the kernel runs for a file (fs/binfmt_elf.c, fs/binfmt_script.c): a
 * 64-bit ELF executable, whose interpreter is its FIRST PT_INTERP header
 * ("" when static), or a #! script, whose interpreter and one optional
 * argument the kernel reads from the first 256 bytes.
 */
struct exe {
	bool script;
	bool has_arg;
	char interp[PATH_MAX];
	char arg[BINPRM_BUF];
};

static bool spacetab(char c)
{
	return c == ' ' || c == '\t';
}

static char *next_non_spacetab(char *first, char *last)
{
	for (; first <= last; first++)
		if (!spacetab(*first))
			return first;
	return NULL;
}

static char *next_terminator(char *first, char *last)
{
	for (; first <= last; first++)
		if (spacetab(*first) || !*first)
			return first;
	return NULL;
}

/* The #! line as binfmt_script reads it: the line ends at the first '\n'
 * (or at byte 255), trailing blanks go, the interpreter is the first word,
 * and the rest, blanks inside kept, is ONE argument. */
static void read_shebang(const char *real, char *buf, struct exe *x)
{
	char *buf_end = buf + BINPRM_BUF - 1, *i_end, *i_name, *i_sep;
	char *i_arg = NULL;

	i_end = memchr(buf, '\n', strnlen(buf, BINPRM_BUF));
	if (!i_end) {
		i_end = next_non_spacetab(buf + 2, buf_end);
		if (!i_end || !next_terminator(i_end, buf_end))
			jr2_die(JR2_EXIT_USAGE,
				"refusing to start: the #! line of the Harness "
				"process's program '%s' has no interpreter the "
				"kernel can read in its first %d bytes; "
				"shorten the line",
				real, BINPRM_BUF);
		i_end = buf_end;
	}
	while (spacetab(i_end[-1]))
		i_end--;
	i_name = next_non_spacetab(buf + 2, i_end);
	if (!i_name || i_name == i_end)
		jr2_die(JR2_EXIT_USAGE,
			"refusing to start: the #! line of the Harness "
			"process's program '%s' names no interpreter; give "
			"its absolute path",
			real);
	i_sep = next_terminator(i_name, i_end);
	if (i_sep && *i_sep != '\0')
		i_arg = next_non_spacetab(i_sep, i_end);
	*i_end = '\0';
	if (i_sep)
		*i_sep = '\0';
	x->script = true;
	snprintf(x->interp, sizeof(x->interp), "%s", i_name);
	x->has_arg = i_arg != NULL;
	if (i_arg)
		snprintf(x->arg, sizeof(x->arg), "%s", i_arg);
}

static void refuse_elf(const char *real, const char *why)
{
	jr2_die(JR2_EXIT_USAGE,
		"refusing to start: the Harness process's program '%s' %s; "
		"give a normal 64-bit build",
		real, why);
}

/* The first PT_INTERP, as load_elf_binary takes it; more than one refused,
 * since a reader taking another one checks a file the kernel never runs. */
static void read_elf_interp(const char *real, int fd, const Elf64_Ehdr *eh,
			    struct exe *x)
{
	int interps = 0;

	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		refuse_elf(real, "has program headers of an unknown size");
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh->e_phoff + (Elf64_Off)i * sizeof(ph))) !=
		    sizeof(ph))
			refuse_elf(real, "has a program header past its end");
		if (ph.p_type != PT_INTERP || interps++)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > sizeof(x->interp) ||
		    pread(fd, x->interp, ph.p_filesz, (off_t)ph.p_offset) !=
			(ssize_t)ph.p_filesz ||
		    x->interp[ph.p_filesz - 1] != '\0')
			refuse_elf(real, "has a PT_INTERP header the kernel "
					 "refuses");
	}
	if (interps > 1)
		refuse_elf(real, "has more than one PT_INTERP header (the "
				 "kernel takes the first)");
}

static void read_exe(const char *real, struct exe *x)
{
	char buf[BINPRM_BUF] = {0};
	int fd = open(real, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), 0);
	Elf64_Ehdr eh;

	memset(x, 0, sizeof(*x));
	if (n < 0)
		jr2_die_path(JR2_EXIT_USAGE,
			     "cannot read the Harness "
			     "process's program",
			     real);
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		read_shebang(real, buf, x);
	} else if (n >= (ssize_t)sizeof(eh) && !memcmp(buf, ELFMAG, SELFMAG) &&
		   buf[EI_CLASS] == ELFCLASS64) {
		memcpy(&eh, buf, sizeof(eh));
		read_elf_interp(real, fd, &eh, x);
	} else if (n >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG)) {
		refuse_elf(real, "is a 32-bit ELF file, whose libraries jr2 "
				 "does not check");
	} else {
		jr2_die(JR2_EXIT_USAGE,
			"refusing to start: the Harness process's program "
			"'%s' is neither an ELF executable nor a #! script, "
			"so the kernel would hand it to a binfmt_misc handler "
			"jr2 does not check; give the program itself",
			real);
	}
	close(fd);
}

/*
 * Node, by what the file is and not by its name: an ELF whose dynamic
 * string table (DT_STRTAB, as the loader finds it) names
 * napi_module_register, the entry point of Node's addon API, which every
 * Node executable or libnode exports.
 */
static bool elf_is_node(const char *real)
{
	static const char mark[] = "\0napi_module_register";
	int fd = open(real, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Off dyn_off = 0, dyn_size = 0, str_off = 0;
	Elf64_Addr str_addr = 0;
	Elf64_Xword str_size = 0;
	bool found = false;
	char *text;

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		goto out;
	for (int i = 0; i < eh.e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) ==
			sizeof(ph) &&
		    ph.p_type == PT_DYNAMIC) {
			dyn_off = ph.p_offset;
			dyn_size = ph.p_filesz;
		}
	for (Elf64_Off at = 0; at + sizeof(Elf64_Dyn) <= dyn_size;
	     at += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;

		if (pread(fd, &d, sizeof(d), (off_t)(dyn_off + at)) !=
			sizeof(d) ||
		    d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB)
			str_addr = d.d_un.d_ptr;
		if (d.d_tag == DT_STRSZ)
			str_size = d.d_un.d_val;
	}
	if (!str_addr || !str_size || str_size > 64 << 20)
		goto out;
	for (int i = 0; i < eh.e_phnum && !str_off; i++)
		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) ==
			sizeof(ph) &&
		    ph.p_type == PT_LOAD && str_addr >= ph.p_vaddr &&
		    str_addr - ph.p_vaddr < ph.p_filesz)
			str_off = str_addr - ph.p_vaddr + ph.p_offset;
	if (!str_off)
		goto out;
	text = jr2_xrealloc(NULL, str_size + 1);
	if (pread(fd, text, str_size, (off_t)str_off) == (ssize_t)str_size) {
		text[str_size] = '\0';
		found = memmem(text, str_size + 1, mark, sizeof(mark)) != NULL;
	}
	free(text);
out:
	close(fd);
	return found;
}

/*
 * A Node built with "externalized builtins" (Debian's: ./configure
 * --shared-builtin-<name>-path) reads some of its own modules (acorn,
 * undici, cjs-module-lexer) from the absolute paths built into it, at start
 * or at first use, and aborts without them ("Cannot load externalized
 * builtin").  Each path is in the build's defines, which Node keeps in its
 * process.config text: "NODE_SHARED_BUILTIN_<NAME>_PATH=<path>".  Each is
 * code of the Harness process: it must exist in a trusted tree.
 */
static void check_builtin_files(const char *elf)
{
	static const char mark[] = "NODE_SHARED_BUILTIN_";
	int fd = open(elf, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const char *map, *end, *at;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0)
		jr2_die_path(JR2_EXIT_USAGE, "cannot read Node's program", elf);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		jr2_die_path(JR2_EXIT_USAGE, "cannot read Node's program", elf);
	end = map + st.st_size;
	for (at = map;
	     (at = memmem(at, (size_t)(end - at), mark, sizeof(mark) - 1));
	     at += sizeof(mark) - 1) {
		const char *c = at + sizeof(mark) - 1, *path;
		char file[PATH_MAX];

		while (c < end && ((*c >= 'A' && *c <= 'Z') || *c == '_' ||
				   (*c >= '0' && *c <= '9')))
			c++;
		if (end - c < 6 || memcmp(c - 5, "_PATH", 5) || *c != '=' ||
		    c[1] != '/')
			continue;
		path = ++c;
		while (c<end && * c> ' ' && *c < 0x7f && *c != '"' &&
		       *c != '\'' && *c != ',')
			c++;
		if (c - path >= PATH_MAX)
			continue;
		snprintf(file, sizeof(file), "%.*s", (int)(c - path), path);
		check_found("externalized builtin module", file, NULL);
	}
	munmap((void *)map, (size_t)st.st_size);
}

/* Each library the interpreter would load, as `INTERP --list` says. */
static void check_libraries(const char *interp_real, const char *exe,
			    bool *node)
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
		_exit(JR2_EXIT_NOT_FOUND);
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
		char lib[PATH_MAX], real[PATH_MAX];

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
			check_found("library", lib, real);
			if (!*node && elf_is_node(real)) {
				*node = true;
				check_builtin_files(real);
			}
		}
	}
	free(text);
}

static void check_node(char **argv, const char *exe_real);

/* A program that finds the one it runs by PATH: what runs is not this
 * file's code, and its name comes from the #! line. */
static bool runs_by_path(const char *interp, const char *real)
{
	const char *a = strrchr(interp, '/'), *b = strrchr(real, '/');

	return !strcmp(a ? a + 1 : interp, "env") ||
	       !strcmp(b ? b + 1 : real, "env");
}

/*
 * An executable started with `argv` as execve(`path`) starts it: its real
 * path, its #! interpreters (argv as binfmt_script makes it: interpreter,
 * the #! argument, the script's name, then argv[1..]), its ELF interpreter
 * and libraries, and Node's checks when the ELF or a library it loads is
 * Node.
 */
static void check_program(const char *what, const char *path, char *real,
			  char **argv, int depth)
{
	char interp_real[PATH_MAX];
	struct exe x;
	bool node = false;

	check_found(what, path, real);
	read_exe(real, &x);
	if (x.script) {
		size_t n = 0, k = 0;
		char **next;

		if (depth >= 4)
			jr2_die(JR2_EXIT_USAGE,
				"refusing to start: the Harness process's "
				"program '%s' has more than 4 #! "
				"interpreters; run the last one directly",
				path);
		check_found("script interpreter", x.interp, interp_real);
		if (runs_by_path(x.interp, interp_real))
			jr2_die(JR2_EXIT_USAGE,
				"refusing to start: the #! line of the "
				"Harness process's program '%s' runs '%s', "
				"which finds its program by PATH; give the "
				"interpreter's absolute path in the #! line",
				path, x.interp);
		while (argv[n])
			n++;
		next = jr2_xrealloc(NULL, (n + 3) * sizeof(*next));
		next[k++] = x.interp;
		if (x.has_arg)
			next[k++] = x.arg;
		next[k++] = depth ? (char *)path : real;
		for (size_t i = 1; i <= n; i++)
			next[k++] = argv[i];
		check_program("script interpreter", x.interp, interp_real, next,
			      depth + 1);
		free(next);
		return;
	}
	if (x.interp[0]) {
		check_found("ELF interpreter", x.interp, interp_real);
		/* glibc's loader reads it at every start of a dynamic
		 * program. */
		check_looked_in("loader's preload list", "/etc/ld.so.preload");
		check_libraries(interp_real, real, &node);
	}
	if (!node && elf_is_node(real)) {
		node = true;
		check_builtin_files(real);
	}
	if (node) {
		process_is_node = true;
		check_node(argv, real);
	}
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

/*
 * The Node options the Harness process may start with: Node's own table
 * (src/node_options.cc) cut to the options that load no code and read no
 * file, plus the four that load code (checked like the main script).  Node
 * splits `--name=value` only for a name that starts with "--", turns each
 * '_' after the first two characters into '-', reads the value of a
 * value-taking option from the next argument when there is no '=', negates a
 * boolean by "--no-", and stops at the first argument that is no option (the
 * main script) or at "--".  V8's options (--max-old-space-size ...) go to
 * V8 as they are: their value comes after '=' only, and the argument after
 * one is Node's next (the main script, maybe), so serve asks for the '='.
 * Any other option is refused: it may load code
 * (--openssl-config, --icu-data-dir, --experimental-policy, --snapshot-blob,
 * --use-openssl-ca ...), write a file a program chose (--redirect-warnings,
 * --tls-keylog ...), open the inspector (--inspect ...) or change how
 * modules are found (--preserve-symlinks ...), or set names E2 keeps from
 * it (--env-file: NODE_OPTIONS among them).
 */
/* The entries of the folders Node loads from that the check reads. */
#define JR2_NODE_WALK_MAX 100000

enum node_arg { NODE_FLAG, NODE_VALUE, NODE_V8_VALUE, NODE_CODE, NODE_EVAL };

static const struct {
	const char *name;
	enum node_arg kind;
} node_options[] = {
    {"--require", NODE_CODE},
    {"-r", NODE_CODE},
    {"--import", NODE_CODE},
    {"--loader", NODE_CODE},
    {"--experimental-loader", NODE_CODE},
    {"--eval", NODE_EVAL},
    {"-e", NODE_EVAL},
    {"--print", NODE_EVAL},
    {"-p", NODE_EVAL},
    {"-pe", NODE_EVAL},
    {"--title", NODE_VALUE},
    {"--conditions", NODE_VALUE},
    {"-C", NODE_VALUE},
    {"--dns-result-order", NODE_VALUE},
    {"--unhandled-rejections", NODE_VALUE},
    {"--max-old-space-size", NODE_V8_VALUE},
    {"--max-semi-space-size", NODE_V8_VALUE},
    {"--stack-size", NODE_V8_VALUE},
    {"--stack-trace-limit", NODE_V8_VALUE},
    {"--max-http-header-size", NODE_VALUE},
    {"--input-type", NODE_VALUE},
    {"--disable-proto", NODE_VALUE},
    {"--secure-heap", NODE_VALUE},
    {"--secure-heap-min", NODE_VALUE},
    {"--abort-on-uncaught-exception", NODE_FLAG},
    {"--addons", NODE_FLAG},
    {"--check", NODE_FLAG},
    {"-c", NODE_FLAG},
    {"--deprecation", NODE_FLAG},
    {"--disable-sigusr1", NODE_FLAG},
    {"--disallow-code-generation-from-strings", NODE_FLAG},
    {"--enable-source-maps", NODE_FLAG},
    {"--experimental-vm-modules", NODE_FLAG},
    {"--expose-gc", NODE_FLAG},
    {"--frozen-intrinsics", NODE_FLAG},
    {"--global-search-paths", NODE_FLAG},
    {"--jitless", NODE_FLAG},
    {"--pending-deprecation", NODE_FLAG},
    {"--throw-deprecation", NODE_FLAG},
    {"--trace-deprecation", NODE_FLAG},
    {"--trace-exit", NODE_FLAG},
    {"--trace-sigint", NODE_FLAG},
    {"--trace-uncaught", NODE_FLAG},
    {"--trace-warnings", NODE_FLAG},
    {"--use-bundled-ca", NODE_FLAG},
    {"--warnings", NODE_FLAG},
    {"--zero-fill-buffers", NODE_FLAG},
};

static bool node_option(const char *name, enum node_arg *kind)
{
	bool negated = !strncmp(name, "--no-", 5);

	for (size_t i = 0; i < sizeof(node_options) / sizeof(node_options[0]);
	     i++) {
		if (!strcmp(name, node_options[i].name)) {
			*kind = node_options[i].kind;
			return true;
		}
		if (negated && node_options[i].kind == NODE_FLAG &&
		    !strncmp(node_options[i].name, "--", 2) &&
		    !strcmp(name + 5, node_options[i].name + 2)) {
			*kind = NODE_FLAG;
			return true;
		}
	}
	return false;
}

static void refuse_node_option(const char *arg, const char *why)
{
	jr2_die(JR2_EXIT_USAGE,
		"refusing to start: the Harness process's Node option '%s' %s; "
		"remove it from CMD (jr2-harness(1), E8, lists the Node "
		"options serve takes)",
		arg, why);
}

/* Every symbolic link under `dir`, a folder Node loads from, leads where
 * no program can change what it names; at most *budget entries. */
static void check_links_under(const char *dir, size_t *budget, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX], real[PATH_MAX];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!*budget)
			jr2_die(JR2_EXIT_USAGE,
				"refusing to start: the folders the Harness "
				"process's Node loads from hold more than %d "
				"entries to check for links (at '%s'); put "
				"its main script in a folder of its own",
				JR2_NODE_WALK_MAX, dir);
		--*budget;
		if (!jr2_path_put(path, dir, strcmp(dir, "/") ? "/" : "",
				  e->d_name) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			check_links_under(path, budget, depth);
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		check_looked_in("module file (a link)", path);
		/* A link to a trusted folder: its links count too. */
		if (depth < 8 && realpath(path, real) && !stat(real, &st) &&
		    S_ISDIR(st.st_mode))
			check_links_under(real, budget, depth + 1);
	}
	closedir(d);
}

/* node_modules and package.json from `dir` up to /; the links under each
 * node_modules folder there. */
static void check_module_chain(const char *dir, size_t *budget)
{
	char at[PATH_MAX], place[PATH_MAX + 16];

	snprintf(at, sizeof(at), "%s", dir);
	for (;;) {
		char *slash;

		snprintf(place, sizeof(place), "%s/node_modules",
			 strcmp(at, "/") ? at : "");
		check_looked_in("module folder", place);
		check_links_under(place, budget, 0);
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

/* A file Node loads (main script, -r ...): found in a trusted tree; the
 * links under its folder and the module chain from there checked. */
static void check_node_file(const char *what, const char *path, size_t *budget)
{
	char real[PATH_MAX];

	check_found(what, path, real);
	*strrchr(real, '/') = '\0';
	check_links_under(real[0] ? real : "/", budget, 0);
	check_module_chain(real[0] ? real : "/", budget);
}

#if defined(__x86_64__)
#define JR2_MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define JR2_MULTIARCH "aarch64-linux-gnu"
#else
#define JR2_MULTIARCH "linux-gnu"
#endif

static const char *const global_dirs[] = {
    "/lib/node",
    "/lib/" JR2_MULTIARCH "/nodejs",
    "/share/nodejs",
    "/lib/nodejs",
};

/* Node started with argv: its options, main script, and every folder it
 * looks in for a module. */
static void check_node(char **argv, const char *exe_real)
{
	char place[PATH_MAX + 32], cwd[PATH_MAX];
	const char *home = process_getenv("HOME");
	const char *node_path = process_getenv("NODE_PATH");
	size_t budget = JR2_NODE_WALK_MAX;
	bool from_cwd = true, eval = false, no_sigusr1 = false;

	for (char **a = argv + 1; *a; a++) {
		char name[128];
		const char *value = NULL, *eq = strchr(*a, '=');
		enum node_arg kind;

		if (!strcmp(*a, "--") || (*a)[0] != '-' || !strcmp(*a, "-")) {
			const char *script = strcmp(*a, "--") ? *a : a[1];

			if (!eval && script && strcmp(script, "-")) {
				check_node_file("main script", script, &budget);
				from_cwd = false;
			}
			break;
		}
		if (strncmp(*a, "--", 2) || !eq)
			eq = NULL;
		if ((eq ? (size_t)(eq - *a) : strlen(*a)) >= sizeof(name))
			refuse_node_option(*a, "is not one jr2 knows");
		snprintf(name, sizeof(name), "%.*s",
			 (int)(eq ? (size_t)(eq - *a) : strlen(*a)), *a);
		for (char *u = name + 2; u < name + strlen(name); u++)
			if (*u == '_')
				*u = '-';
		if (!node_option(name, &kind))
			refuse_node_option(
			    *a, "is not one jr2 knows to load no file a "
				"program could change (it may load code, read "
				"or write a file, open the inspector or change "
				"how modules are found)");
		if (kind == NODE_FLAG) {
			if (eq)
				refuse_node_option(*a, "takes no value");
			if (!strcmp(name, "--disable-sigusr1"))
				no_sigusr1 = true;
			if (!strcmp(name, "--no-disable-sigusr1"))
				no_sigusr1 = false;
			continue;
		}
		if (kind == NODE_V8_VALUE) {
			if (!eq)
				refuse_node_option(
				    *a, "is V8's, whose value comes after '=' "
					"only (the next argument would be "
					"Node's main script): give "
					"--name=value");
			continue;
		}
		value = eq ? eq + 1 : *++a;
		if (!value)
			refuse_node_option(name, "needs a value");
		/* No main script: the first argument that is no option is
		 * the code's, and modules come from the folder. */
		eval = eval || kind == NODE_EVAL;
		if (kind != NODE_CODE)
			continue;
		/* --import and --loader take URLs too: a file: URL names a
		 * file (refused: its path is checked, give that), data: and
		 * node: carry no file; another scheme is not one Node loads
		 * without an option serve refuses. */
		if (strcspn(value, ":/") < strlen(value) &&
		    value[strcspn(value, ":/")] == ':' &&
		    strncmp(value, "data:", 5) && strncmp(value, "node:", 5))
			refuse_node_option(*a,
					   "names a URL; give a file's path "
					   "(checked as the main script's)");
		/* A bare name: looked for in node_modules, from the folder. */
		if (value[0] == '/' || value[0] == '.')
			check_node_file("file of a Node option", value,
					&budget);
	}
	/*
	 * Node starts its inspector (a debugger that runs any code sent to
	 * 127.0.0.1:9229) on SIGUSR1, whatever disposition it was started
	 * with: it resets every signal's at start.  From ABI 6 the spawner's
	 * signal scope keeps the programs' signals from it; below, a program
	 * of the same user reaches it, and only Node's --disable-sigusr1
	 * (22.14+, 23.7+) closes that door.
	 */
	if (!no_sigusr1 && !jr2_abi_has(&harness.abi, JR2_FEAT_SCOPE_SIGNAL))
		jr2_die(JR2_EXIT_USAGE,
			"refusing to start: at Landlock ABI %d (below 6, no "
			"signal scope) a program can send SIGUSR1 to the "
			"Harness process's Node '%s', which opens its "
			"inspector; give CMD Node's --disable-sigusr1 (Node "
			"22.14+ or 23.7+), or run on a kernel with Landlock "
			"ABI 6 (6.12+)",
			harness.abi.in_force, exe_real);
	if (from_cwd) {
		if (!getcwd(cwd, sizeof(cwd)))
			jr2_die_path(1, "cannot read", "the current folder");
		check_module_chain(cwd, &budget);
	}
	for (const char *p = node_path; p && *p;) {
		size_t len = strcspn(p, ":");

		if (len) {
			snprintf(place, sizeof(place), "%.*s", (int)len, p);
			check_looked_in("NODE_PATH folder", place);
			check_links_under(place, &budget, 0);
		}
		p += len + (p[len] == ':');
	}
	if (home) {
		snprintf(place, sizeof(place), "%s/.node_modules", home);
		check_looked_in("global module folder", place);
		check_links_under(place, &budget, 0);
		snprintf(place, sizeof(place), "%s/.node_libraries", home);
		check_looked_in("global module folder", place);
		check_links_under(place, &budget, 0);
	}
	/* $PREFIX: the folder above the one of Node's real path.  Node's
	 * global folder is $PREFIX/lib/node; Debian's Node looks in
	 * $PREFIX/lib/<multiarch>/nodejs and $PREFIX/share/nodejs instead
	 * (and its older ones in $PREFIX/lib/nodejs). */
	for (size_t i = 0; i < sizeof(global_dirs) / sizeof(global_dirs[0]);
	     i++) {
		char prefix[PATH_MAX];

		snprintf(prefix, sizeof(prefix), "%s", exe_real);
		for (int up = 0; up < 2; up++) {
			char *slash = strrchr(prefix, '/');

			if (slash)
				*slash = '\0';
		}
		snprintf(place, sizeof(place), "%s%s", prefix, global_dirs[i]);
		check_looked_in("global module folder", place);
		check_links_under(place, &budget, 0);
	}
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
	/* E4: a file the Harness process reads by a name of its environment,
	 * whatever the name's source, lies where no program can change it. */
	for (size_t i = 0; i < harness.process_env.n; i++) {
		const char *entry = harness.process_env.v[i];
		const char *eq = strchr(entry, '=');
		const char *cursor = eq + 1;
		char name[256], what[300], path[PATH_MAX];
		enum jr2_path_kind kind;

		snprintf(name, sizeof(name), "%.*s", (int)(eq - entry), entry);
		while (jr2_env_next_read_path(name, &cursor, path, sizeof(path),
					      &kind)) {
			snprintf(what, sizeof(what), "%s named by %s",
				 kind == JR2_PATH_FILE	   ? "file"
				 : kind == JR2_PATH_FOLDER ? "folder"
							   : "file or folder",
				 name);
			check_found(what, path, NULL);
		}
	}
	find_cmd(opts->cmd[0], path);
	check_program("program", path, harness.cmd_path, opts->cmd, 0);
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
		_exit(JR2_EXIT_REFUSED);
	if (setsid() < 0)
		_exit(JR2_EXIT_REFUSED);
	if (harness.start_nofile.rlim_cur)
		setrlimit(RLIMIT_NOFILE, &harness.start_nofile);
	if (harness.start_oom_score_adj[0])
		write_proc_self("oom_score_adj", harness.start_oom_score_adj);
	syscall(SYS_close_range, 3U, ~0U, 0U);
	if (!envp)
		_exit(JR2_EXIT_REFUSED);
	execve(harness.cmd_path, opts->cmd, envp);
	dprintf(2, "jr2-harness: cannot start the Harness process '%s': %s\n",
		harness.cmd_path, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/*
 * A Node Harness process reads no OpenSSL file a program can write: OpenSSL
 * reads OPENSSLDIR/openssl.cnf at every Node start (/etc/ssl for Node's own
 * OpenSSL, /usr/lib/ssl for Debian's), and loads each provider `module`
 * it names, unless OPENSSL_CONF names another file: here an empty one in
 * the protected dir, made by serve.  Its CA store is the one built into
 * Node (--use-bundled-ca): a Node built to use OpenSSL's default store
 * (Debian's) reads its folder, /usr/lib/ssl/certs, by hash at each
 * handshake.  Both go in through names no other source may give it (E2).
 */
static void pin_node_files(void)
{
	static const char text[] =
	    "# jr2: the Harness process's OpenSSL config, empty: no file of\n"
	    "# /etc/ssl or /usr/lib/ssl is read, no provider is loaded.\n";
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/harness-openssl.cnf",
		     harness.protected_dir) >= (int)sizeof(path))
		jr2_die(1, "the protected dir '%s' is too long for its files",
			harness.protected_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 ||
	    write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1) ||
	    close(fd))
		jr2_die_path(1,
			     "cannot write the Harness process's OpenSSL "
			     "config",
			     path);
	made_file(path);
	jr2_env_set(&harness.process_env, "OPENSSL_CONF", path);
	jr2_env_set(&harness.process_env, "NODE_OPTIONS", "--use-bundled-ca");
}

void harness_process_start(const struct serve_options *opts)
{
	pid_t serve_pid = getpid(), pid;

	if (!opts->cmd)
		return;
	if (process_is_node)
		pin_node_files();
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
