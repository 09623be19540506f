// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jr2-harness serve`: the unconfined supervisor.  One thread, one poll loop:
 * the control channel (bearer-authenticated), the Custodian-like sockets, the
 * spawner's channel and a signalfd for SIGCHLD.  The harness is a child
 * subreaper and reaps every process; programs are its children (the spawner
 * starts them with CLONE_PARENT), so their exit status reaches the client
 * even after the spawner that started them is gone (P4).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "channel.h"
#include "env.h"
#include "harness.h"
#include "json.h"
#include "policy.h"
#include "request.h"
#include "sha256.h"
#include "spawner.h"
#include "standins.h"

#define MAX_CONNS	   256
#define MAX_PROGRAMS	   4096
#define MAX_UNCLAIMED	   1024
#define REQUEST_TIMEOUT_MS 5000 /* to send a request after connecting */
#define SPAWN_TIMEOUT_MS   10000 /* for the spawner to answer a request */
#define QUICK_DEATH_MS	   1000 /* a spawner that lived less backs off */
#define BACKOFF_FIRST_MS   10
#define CUSTODIAN_LINE_MAX 4096

enum conn_kind { CONN_FREE, CONN_CONTROL, CONN_CUSTODIAN };

enum conn_state {
	WAIT_REQUEST, /* connected, nothing read yet */
	QUEUED, /* authenticated exec, waiting for a ready spawner */
	IN_FLIGHT, /* sent to the spawner, no answer yet */
	RUNNING, /* program started, waiting for its exit */
};

struct conn {
	enum conn_kind kind;
	enum conn_state state;
	int fd;
	unsigned long id;
	long long deadline_ms; /* WAIT_REQUEST and IN_FLIGHT */
	char cmd[80]; /* argv[0], for messages */
	struct jr2_msg spawn; /* QUEUED: the message for the spawner */
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds;
	char line[CUSTODIAN_LINE_MAX];
	size_t line_len;
};

struct program {
	pid_t pid;
	unsigned int generation;
	struct conn *conn; /* NULL once its client went away */
};

struct exit_record {
	pid_t pid;
	int status;
};

static struct {
	char protected_dir[PATH_MAX];
	char abstract_name[108];
	struct jr2_abi abi;
	struct jr2_policy policy;
	struct jr2_harness_config cfg;
	struct jr2_env confined_env;
	struct jr2_standins standins;
	uint8_t bearer_digest[JR2_SHA256_LEN];
	unsigned int max_backoff_ms;

	int signal_fd, control_fd, custodian_fd, abstract_fd;
	int spawner_fd; /* -1: none */
	pid_t spawner_pid;
	bool spawner_ready;
	unsigned int generation;
	long long spawner_started_ms, restart_at_ms; /* restart_at 0: none */
	unsigned int quick_deaths;

	struct conn conns[MAX_CONNS];
	struct program programs[MAX_PROGRAMS];
	size_t n_programs;
	struct exit_record unclaimed[MAX_UNCLAIMED];
	size_t n_unclaimed;
	unsigned long next_id;
} H;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The harness's log: stderr, one line per event. */
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("jr2-harness: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void protected_dir_of(const char *root, char *out, unsigned long size)
{
	size_t len = strlen(root);

	while (len > 0 && root[len - 1] == '/')
		len--;
	snprintf(out, size, "%.*s%s", (int)len, root, JR2_PROTECTED_UNDER_ROOT);
}

/* ---- setup ---------------------------------------------------------- */

static char *read_small_file(const char *path, const char *what)
{
	char *text = NULL;
	size_t size = 0, len = 0;
	FILE *file = fopen(path, "re");

	if (!file)
		die(JR2_EXIT_USAGE, what, path);
	for (;;) {
		if (len + 4096 + 1 > size) {
			size = size ? size * 2 : 8192;
			if (size > 1024 * 1024)
				die_msg(JR2_EXIT_USAGE,
					"%s '%s' is larger than 1 MiB; give a "
					"smaller file",
					what, path);
			text = realloc(text, size);
			if (!text)
				die(1, "out of memory reading", path);
		}
		size_t n = fread(text + len, 1, 4096, file);

		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(file))
		die(JR2_EXIT_USAGE, what, path);
	fclose(file);
	text[len] = '\0';
	return text;
}

/*
 * E4: a file the harness reads must not be where the sandbox user writes
 * (refused), and should not be writable by that user elsewhere (warned).
 */
static void check_read_file(const char *input, const char *path)
{
	char resolved[PATH_MAX], parent[PATH_MAX];
	struct stat st;
	uid_t uid = H.cfg.sandbox_uid;

	if (!realpath(path, resolved))
		die(JR2_EXIT_USAGE, input, path);
	if (jr2_path_in_sandbox_area(resolved))
		die_msg(JR2_EXIT_USAGE,
			"%s '%s' (%s) is in a folder the sandbox writes "
			"(/work, /tmp, /dev/shm, /home/jr2); move it, e.g. "
			"under /etc/jr2 or /run/jr2",
			input, path, resolved);
	snprintf(parent, sizeof(parent), "%s", resolved);
	*strrchr(parent, '/') = '\0';
	for (const char *p = resolved; p; p = parent[0] ? parent : "/") {
		if (stat(p, &st) == 0 &&
		    ((st.st_uid == uid && (st.st_mode & S_IWUSR)) ||
		     (st.st_mode & S_IWOTH)))
			say("warning: %s '%s': '%s' can be written by the "
			    "sandbox user (uid %u); make it owned by root and "
			    "not world-writable",
			    input, path, p, (unsigned int)uid);
		if (p != resolved)
			break;
	}
}

static void make_private_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) && errno != EEXIST)
		die(1, "cannot make the protected dir", path);
	if (lstat(path, &st))
		die(1, "cannot stat the protected dir", path);
	if (!S_ISDIR(st.st_mode))
		die_msg(1,
			"protected dir '%s' exists and is not a directory (a "
			"symlink?); remove it",
			path);
	if (st.st_uid != geteuid())
		die_msg(1,
			"protected dir '%s' is owned by uid %u, not by the "
			"harness (uid %u); remove it or chown it",
			path, (unsigned int)st.st_uid, (unsigned int)geteuid());
	if (chmod(path, 0700))
		die(1, "cannot chmod 0700 the protected dir", path);
}

static void make_protected_dir(const char *root)
{
	char path[PATH_MAX];

	if (strlen(H.protected_dir) + 32 >
	    sizeof(((struct sockaddr_un *)0)->sun_path))
		die_msg(JR2_EXIT_USAGE,
			"--root '%s' is too long for a unix socket path under "
			"it; use a shorter root",
			root);
	/* The ancestors are ordinary folders: `ls` of them works (R7). */
	for (char *slash = strchr(H.protected_dir + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(H.protected_dir, 0755) && errno != EEXIST)
			die(1, "cannot make the folder", H.protected_dir);
		*slash = '/';
	}
	make_private_dir(H.protected_dir);
	snprintf(path, sizeof(path), "%s/%s", H.protected_dir,
		 JR2_HARNESS_HOME);
	make_private_dir(path);
}

/*
 * E2: the harness re-executes itself with the environment it composed, so
 * that no name that loads code is in its process at all (/proc/<pid>/environ
 * included, which setenv cannot change).  The start environment, which the
 * confined programs inherit (E1), crosses the execve in a memfd.
 */
static void reexec_with_own_environment(const struct serve_options *opts)
{
	extern char **environ;
	struct jr2_env start = {0}, own = {0};
	struct jr2_strings dropped = {0};
	char home[PATH_MAX + 16], fd_arg[16];
	char **args, **own_array;
	int fd = memfd_create("jr2-start-environment", 0), argc = 0;

	if (fd < 0)
		die(1, "cannot make a memfd for", "the start environment");
	for (char **e = environ; *e; e++)
		if (write(fd, *e, strlen(*e) + 1) < 0)
			die(1, "cannot write the start environment to",
			    "memfd");
	snprintf(home, sizeof(home), "%s/%s", H.protected_dir,
		 JR2_HARNESS_HOME);
	if (jr2_env_from_environ(&start, environ) ||
	    jr2_env_compose_harness(&start, &H.cfg, home, &own, &dropped))
		die(1, "cannot compose the environment", "(memory)");
	for (size_t i = 0; i < dropped.n; i++)
		say("dropped '%s' from the harness's own environment: it loads "
		    "code from a path (E2)",
		    dropped.v[i]);
	while (opts->argv[argc])
		argc++;
	args = calloc((size_t)argc + 3, sizeof(*args));
	own_array = jr2_env_array(&own);
	if (!args || !own_array)
		die(1, "cannot compose the environment", "(memory)");
	memcpy(args, opts->argv, (size_t)argc * sizeof(*args));
	snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
	args[argc] = "--start-env-fd";
	args[argc + 1] = fd_arg;
	execve("/proc/self/exe", args, own_array);
	die(1, "cannot re-execute the harness with its own environment",
	    "/proc/self/exe");
}

/* After the re-execution: the start environment back from the memfd. */
static void read_start_environment(int fd, struct jr2_env *start)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			text = realloc(text, cap);
			if (!text)
				die(1, "cannot read the start environment",
				    "memfd");
		}
		n = pread(fd, text + len, 4096, (off_t)len);
		if (n < 0)
			die(1, "cannot read the start environment", "memfd");
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	for (size_t at = 0; at < len;) {
		size_t entry_len = strnlen(text + at, len - at);
		char *entry = strndup(text + at, entry_len);
		char *argv1[] = {entry, NULL};

		if (!entry || jr2_env_from_environ(start, argv1))
			die(1, "cannot read the start environment", "memfd");
		free(entry);
		at += entry_len + 1;
	}
	free(text);
}

/* E1 and E4, once the harness runs with its own environment. */
static void compose_environments(int start_env_fd)
{
	extern char **environ;
	struct jr2_env start = {0};

	read_start_environment(start_env_fd, &start);
	if (jr2_env_compose_confined(&start, &H.cfg, &H.confined_env))
		die(1, "cannot compose the environment", "(memory)");
	/* E4: every file the harness reads because of its environment. */
	for (char **e = environ; *e; e++) {
		char *eq = strchr(*e, '=');
		char name[256];

		if (!eq)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
		if (jr2_env_names_read_file(name) && eq[1])
			check_read_file(name, eq + 1);
	}
	jr2_env_free(&start);
}

static void load_config(const char *path)
{
	char err[1024];
	char *text;

	jr2_config_init(&H.cfg);
	if (!path)
		return;
	text = read_small_file(path, "--config");
	if (jr2_config_parse(&H.cfg, text, path, err, sizeof(err)))
		die_msg(JR2_EXIT_USAGE, "%s", err);
	free(text);
}

static void make_policy(const char *root)
{
	struct jr2_err err = {0};
	bool at_slash = !strcmp(root, "/");

	jr2_policy_init(&H.policy);
	if (at_slash && !H.cfg.protect.n && !H.cfg.read_only.n) {
		jr2_policy_set_defaults(&H.policy);
		return;
	}
	if (jr2_policy_add_protected(&H.policy, H.protected_dir, &err))
		die_msg(JR2_EXIT_USAGE, "%s", err.msg);
	for (size_t i = 0; i < H.cfg.protect.n; i++)
		if (jr2_policy_add_protected(&H.policy, H.cfg.protect.v[i],
					     &err))
			die_msg(JR2_EXIT_USAGE, "%s", err.msg);
	for (size_t i = 0; i < H.cfg.read_only.n; i++)
		if (jr2_policy_add_read_only(&H.policy, H.cfg.read_only.v[i],
					     &err))
			die_msg(JR2_EXIT_USAGE, "%s", err.msg);
}

static void make_secrets(const char *bearer_file)
{
	char path[PATH_MAX + 32];
	int ret = jr2_standins_make(&H.standins, &H.cfg.secrets);

	if (ret) {
		errno = -ret;
		die(1, "cannot make the Stand-ins", "getrandom");
	}
	snprintf(path, sizeof(path), "%s/%s", H.protected_dir,
		 JR2_STANDINS_FILE);
	ret = jr2_standins_write(&H.standins, path);
	if (ret) {
		errno = -ret;
		die(1, "cannot write the Stand-ins file", path);
	}
	if (bearer_file) {
		char *bearer;
		size_t len;

		check_read_file("--bearer-file", bearer_file);
		bearer = read_small_file(bearer_file, "--bearer-file");
		len = strcspn(bearer, "\r\n");
		if (len == 0)
			die_msg(JR2_EXIT_USAGE,
				"--bearer-file '%s' is empty; write a secret "
				"of at least 16 characters",
				bearer_file);
		jr2_sha256(bearer, len, H.bearer_digest);
		explicit_bzero(bearer, len);
		free(bearer);
		return;
	}
	/* No bearer given: a fresh one, readable by the harness's user only. */
	char token[JR2_STANDIN_SIZE];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", H.protected_dir, JR2_BEARER_FILE);
	ret = jr2_random_token(token);
	if (ret) {
		errno = -ret;
		die(1, "cannot make the bearer", "getrandom");
	}
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 || dprintf(fd, "%s\n", token) < 0 || close(fd))
		die(1, "cannot write the bearer file", path);
	jr2_sha256(token, strlen(token), H.bearer_digest);
	explicit_bzero(token, sizeof(token));
}

/* Before anything in the protected dir is rewritten: one harness per dir. */
static void refuse_second_harness(void)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die(1, "cannot make a unix socket for", H.protected_dir);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", H.protected_dir,
		 JR2_CONTROL_SOCKET);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		die_msg(1,
			"another harness serves '%s' (its control socket "
			"answers); stop it first or give another --root",
			H.protected_dir);
	close(fd);
}

static int listen_unix(int type, const char *path, bool abstract, mode_t mode)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	socklen_t len;
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		die(1, "cannot make a unix socket for", path);
	if (abstract) {
		/* sun_path[0] stays NUL: the name lives in no file system. */
		memcpy(addr.sun_path + 1, path, strlen(path));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  strlen(path));
	} else {
		unlink(path);
		snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
		len = sizeof(addr);
	}
	if (bind(fd, (struct sockaddr *)&addr, len))
		die(1, "cannot bind the socket", path);
	if (!abstract && chmod(path, mode))
		die(1, "cannot chmod the socket", path);
	if (listen(fd, 64))
		die(1, "cannot listen on the socket", path);
	return fd;
}

static void open_sockets(void)
{
	char path[PATH_MAX + 32];
	sigset_t mask;

	snprintf(path, sizeof(path), "%s/%s", H.protected_dir,
		 JR2_CONTROL_SOCKET);
	H.control_fd = listen_unix(SOCK_SEQPACKET, path, false, 0600);
	/* R8: the Custodian's socket is for everyone; its answer needs the
	 * control Stand-in. */
	snprintf(path, sizeof(path), "%s/%s", H.protected_dir,
		 JR2_CUSTODIAN_SOCKET);
	H.custodian_fd = listen_unix(SOCK_STREAM, path, false, 0666);
	snprintf(H.abstract_name, sizeof(H.abstract_name), "%s%s",
		 JR2_ABSTRACT_PREFIX, H.protected_dir);
	H.abstract_fd = listen_unix(SOCK_STREAM, H.abstract_name, true, 0);

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		die(1, "cannot block signals", "SIGCHLD");
	H.signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (H.signal_fd < 0)
		die(1, "cannot make a signalfd for", "SIGCHLD");
	signal(SIGPIPE, SIG_IGN);
}

/* ---- the spawner ---------------------------------------------------- */

static void log_generation(void)
{
	char enforced[512] = "", unavailable[1024] = "";

	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		char *list = jr2_abi_has(&H.abi, f) ? enforced : unavailable;
		size_t used = strlen(list);
		size_t room = (list == enforced ? sizeof(enforced)
						: sizeof(unavailable)) -
			      used;

		if (list == enforced)
			snprintf(list + used, room, "%s%s", used ? ", " : "",
				 jr2_features[f].name);
		else
			snprintf(list + used, room, "%s%s (%s, needs ABI %d)",
				 used ? "; " : "", jr2_features[f].name,
				 jr2_features[f].protects,
				 jr2_features[f].min_abi);
	}
	/* G6: every start says what this ABI cannot give. */
	say("spawner generation %u (pid %d) confined at Landlock ABI %d; "
	    "enforced: %s; unavailable on this ABI: %s",
	    H.generation, (int)H.spawner_pid, H.abi.in_force,
	    enforced[0] ? enforced : "none",
	    unavailable[0] ? unavailable : "none");
}

static void start_spawner(void)
{
	int pair[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair)) {
		say("cannot make the spawner's channel: %s; retrying",
		    strerror(errno));
		H.restart_at_ms = now_ms() + 1000;
		return;
	}
	/* Room for one spawn message with its environment. */
	int size = JR2_SPAWN_MAX_BYTES * 2;

	setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	pid = fork();
	if (pid < 0) {
		say("cannot fork the spawner: %s; retrying", strerror(errno));
		close(pair[0]);
		close(pair[1]);
		H.restart_at_ms = now_ms() + 1000;
		return;
	}
	if (pid == 0) {
		close(pair[0]);
		jr2_spawner_main(pair[1], &H.policy, &H.abi);
	}
	close(pair[1]);
	fcntl(pair[0], F_SETFL, O_NONBLOCK);
	H.spawner_fd = pair[0];
	H.spawner_pid = pid;
	H.spawner_ready = false;
	H.generation++;
	H.spawner_started_ms = now_ms();
	H.restart_at_ms = 0;
}

/* ---- connections ---------------------------------------------------- */

static void conn_close(struct conn *c)
{
	for (size_t i = 0; i < H.n_programs; i++)
		if (H.programs[i].conn == c)
			H.programs[i].conn = NULL;
	jr2_close_fds(c->fds, c->n_fds);
	c->n_fds = 0;
	jr2_msg_free(&c->spawn);
	close(c->fd);
	memset(c, 0, sizeof(*c));
	c->kind = CONN_FREE;
}

static void conn_reply(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One answer to a client; a client that left just misses it. */
static void conn_reply(struct conn *c, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	if (c->kind == CONN_CONTROL)
		jr2_send_msg(c->fd, buf, (size_t)len, NULL, 0);
	else if (write(c->fd, buf, (size_t)len) < 0)
		return;
}

static void refuse(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A refusal ends the connection; the harness keeps serving. */
static void refuse(struct conn *c, const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	conn_reply(c, "refused %s\n", buf);
	say("refused a request: %s", buf);
	conn_close(c);
}

/* The connection of request `id` in `state` (or RUNNING too, if asked). */
static struct conn *conn_by_id(unsigned long id, bool running_too)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &H.conns[i];

		if (c->kind == CONN_CONTROL && c->id == id &&
		    (c->state == IN_FLIGHT ||
		     (running_too && c->state == RUNNING)))
			return c;
	}
	return NULL;
}

static void send_to_spawner(struct conn *c)
{
	int ret = jr2_send_msg(H.spawner_fd, c->spawn.buf, c->spawn.len, c->fds,
			       c->n_fds);

	if (ret == -EAGAIN)
		return; /* still QUEUED: sent when the channel has room */
	if (ret) {
		/* The spawner is going away: kept for the next one. */
		say("cannot send request %lu to the spawner: %s; kept for the "
		    "next generation",
		    c->id, strerror(-ret));
		return;
	}
	jr2_close_fds(c->fds, c->n_fds);
	c->n_fds = 0;
	jr2_msg_free(&c->spawn);
	c->state = IN_FLIGHT;
	c->deadline_ms = now_ms() + SPAWN_TIMEOUT_MS;
}

static bool queue_waits(void)
{
	for (int i = 0; i < MAX_CONNS; i++)
		if (H.conns[i].kind == CONN_CONTROL &&
		    H.conns[i].state == QUEUED)
			return true;
	return false;
}

static void flush_queue(void)
{
	for (int i = 0; i < MAX_CONNS && H.spawner_ready; i++)
		if (H.conns[i].kind == CONN_CONTROL &&
		    H.conns[i].state == QUEUED)
			send_to_spawner(&H.conns[i]);
}

static void exit_status_to_client(struct conn *c, int status)
{
	int code =
	    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	conn_reply(c, "exit %d\n", code);
	conn_close(c);
}

struct status_buf {
	char text[8192];
	size_t used;
};

/* Appends for the JSON writer (runtime/json.h); too much sets used past
   the end, as the snprintf()s below do. */
static void status_emit(void *ctx, const char *s, size_t n)
{
	struct status_buf *b = ctx;

	if (b->used + n < sizeof(b->text))
		memcpy(b->text + b->used, s, n);
	b->used += n;
}

static void status_reply(struct conn *c, bool json)
{
	struct status_buf sb = {.used = 0};
	char *const buf = sb.text;
	size_t used = 0;
	char abstract[sizeof(H.abstract_name) + 1];
#define OUT(...)                                                              \
	do {                                                                  \
		if (used < sizeof(sb.text))                                   \
			used += (size_t)snprintf(                             \
			    buf + used, sizeof(sb.text) - used, __VA_ARGS__); \
	} while (0)
	/* The paths and names are bytes: the one JSON writer escapes them. */
#define OUT_STR(key, s)                                                \
	do {                                                           \
		sb.used = used;                                        \
		if (used < sizeof(sb.text))                            \
			jr2_json_member(status_emit, &sb, " ", key, s, \
					strlen(s));                    \
		used = sb.used;                                        \
	} while (0)
	snprintf(abstract, sizeof(abstract), "@%s", H.abstract_name);
	if (json) {
		OUT("{\"harness_pid\": %d, ", (int)getpid());
		OUT_STR("protected_dir", H.protected_dir);
		OUT(", \"abi\": %d, \"spawner_pid\": %d, \"spawner_ready\": "
		    "%s, \"generation\": %u, ",
		    H.abi.in_force, (int)H.spawner_pid,
		    H.spawner_ready ? "true" : "false", H.generation);
		OUT_STR("abstract_socket", abstract);
	} else {
		OUT("harness_pid: %d\nprotected_dir: %s\nabi: %d\nspawner_pid: "
		    "%d\nspawner_ready: %s\ngeneration: %u\nabstract_socket: "
		    "%s",
		    (int)getpid(), H.protected_dir, H.abi.in_force,
		    (int)H.spawner_pid, H.spawner_ready ? "true" : "false",
		    H.generation, abstract);
	}
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;

		OUT(json ? ", \"%s\": [" : "\n%s:",
		    pass ? "unavailable" : "enforced");
		for (int f = 0; f < JR2_FEAT_COUNT; f++) {
			if (jr2_abi_has(&H.abi, f) == (pass == 1))
				continue;
			OUT(json ? "%s\"%s\"" : " %s%s",
			    json && !first ? ", " : "", jr2_features[f].name);
			first = false;
		}
		OUT(json ? "]" : "");
	}
	OUT(json ? ", \"programs\": [" : "\nprograms:");
	for (size_t i = 0; i < H.n_programs; i++)
		OUT(json ? "%s{\"pid\": %d, \"generation\": %u}" : "%s %d/%u",
		    json && i ? ", " : "", (int)H.programs[i].pid,
		    H.programs[i].generation);
	OUT(json ? "]}\n" : "\n");
#undef OUT
#undef OUT_STR
	if (used >= sizeof(sb.text))
		used = sizeof(sb.text) - 1;
	conn_reply(c, "status\n%.*s", (int)used, buf);
	conn_close(c);
}

/* An authenticated exec: compose the spawn message and queue it. */
static void accept_exec(struct conn *c, const struct jr2_request *req, int *fds,
			size_t n_fds)
{
	char id[32];

	for (size_t i = 0; i < req->n_secrets; i++) {
		if (!jr2_standin_of(&H.standins, req->secrets[i])) {
			jr2_close_fds(fds, n_fds);
			refuse(c,
			       "unknown secret '%s': the config declares %zu "
			       "Held secret(s); add 'secret %s' to the config "
			       "or drop it",
			       req->secrets[i], H.cfg.secrets.n,
			       req->secrets[i]);
			return;
		}
	}
	if (n_fds < 3) {
		jr2_close_fds(fds, n_fds);
		refuse(c,
		       "the request passed %zu descriptors; pass stdin, stdout "
		       "and stderr (SCM_RIGHTS) first",
		       n_fds);
		return;
	}
	c->id = ++H.next_id;
	snprintf(id, sizeof(id), "%lu", c->id);
	snprintf(c->cmd, sizeof(c->cmd), "%s", req->argv[0]);
	jr2_msg_init(&c->spawn);
	jr2_msg_field(&c->spawn, "op", "spawn");
	jr2_msg_field(&c->spawn, "id", id);
	if (req->cwd)
		jr2_msg_field(&c->spawn, "cwd", req->cwd);
	for (size_t i = 0; i < req->argc; i++)
		jr2_msg_field(&c->spawn, "arg", req->argv[i]);
	for (size_t i = 0; i < H.confined_env.n; i++)
		jr2_msg_field(&c->spawn, "env", H.confined_env.v[i]);
	/* E1: the Stand-in of each listed secret, under its name. */
	for (size_t i = 0; i < req->n_secrets; i++) {
		const char *value =
		    jr2_standin_of(&H.standins, req->secrets[i]);
		char entry[256];

		snprintf(entry, sizeof(entry), "%s=%s", req->secrets[i], value);
		jr2_msg_field(&c->spawn, "env", entry);
	}
	if (c->spawn.failed || c->spawn.len > JR2_SPAWN_MAX_BYTES) {
		jr2_close_fds(fds, n_fds);
		refuse(c,
		       "the request with its environment is larger than %d "
		       "bytes; pass fewer arguments",
		       JR2_SPAWN_MAX_BYTES);
		return;
	}
	memcpy(c->fds, fds, n_fds * sizeof(*fds));
	c->n_fds = n_fds;
	c->state = QUEUED;
	if (H.spawner_ready)
		send_to_spawner(c);
}

static void on_control_readable(struct conn *c)
{
	static char buf[JR2_REQ_MAX_BYTES + 1];
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds = 0;
	struct jr2_request req;
	uint8_t digest[JR2_SHA256_LEN];
	char err[512];
	ssize_t len;

	if (c->state != WAIT_REQUEST) {
		/* Only a hang-up is expected now; anything else is ignored. */
		char scratch[1];

		len = recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		if (len == 0 || (len < 0 && errno != EAGAIN))
			conn_close(c);
		return;
	}
	len = jr2_recv_msg(c->fd, buf, JR2_REQ_MAX_BYTES, fds, JR2_REQ_MAX_FDS,
			   &n_fds);
	if (len == -EAGAIN)
		return;
	if (len == -ETOOMANYREFS) {
		refuse(c,
		       "more than %d descriptors passed; pass stdin, stdout, "
		       "stderr and at most %d more",
		       JR2_REQ_MAX_FDS, JR2_REQ_MAX_FDS - 3);
		return;
	}
	if (len <= 0) {
		conn_close(c);
		return;
	}
	if (jr2_request_parse(buf, (size_t)len, JR2_REQ_MAX_BYTES, &req, err,
			      sizeof(err))) {
		jr2_close_fds(fds, n_fds);
		refuse(c, "%s", err);
		return;
	}
	if (!req.bearer) {
		refuse(c,
		       "no bearer; the control channel needs one: pass "
		       "--bearer-file FILE (default %s/%s)",
		       H.protected_dir, JR2_BEARER_FILE);
		goto out;
	}
	jr2_sha256(req.bearer, strlen(req.bearer), digest);
	if (!jr2_digest_equal(digest, H.bearer_digest)) {
		refuse(c,
		       "wrong bearer; pass the file the harness was started "
		       "with (--bearer-file), default %s/%s",
		       H.protected_dir, JR2_BEARER_FILE);
		goto out;
	}
	if (req.op == JR2_OP_STATUS) {
		status_reply(c, req.json);
		goto out;
	}
	if (req.op != JR2_OP_EXEC) {
		refuse(c,
		       "op '%s' is not served on the control channel; use exec "
		       "or status",
		       jr2_op_name(req.op));
		goto out;
	}
	accept_exec(c, &req, fds, n_fds);
	n_fds = 0;
out:
	jr2_close_fds(fds, n_fds);
	jr2_request_free(&req);
}

/* R8: a request is answered only when it starts with the control Stand-in. */
static void on_custodian_readable(struct conn *c)
{
	ssize_t len = read(c->fd, c->line + c->line_len,
			   sizeof(c->line) - 1 - c->line_len);
	size_t standin_len = strlen(H.standins.control);
	char *newline;

	if (len < 0 && errno == EAGAIN)
		return;
	if (len > 0)
		c->line_len += (size_t)len;
	c->line[c->line_len] = '\0';
	newline = strchr(c->line, '\n');
	if (!newline && len > 0 && c->line_len < sizeof(c->line) - 1)
		return;
	if (c->line_len > standin_len &&
	    !memcmp(c->line, H.standins.control, standin_len) &&
	    (c->line[standin_len] == ' ' || c->line[standin_len] == '\n'))
		conn_reply(c,
			   "ok request accepted with the control Stand-in\n");
	else
		conn_reply(c, "refused the request has no control Stand-in; "
			      "only the Harness holds it\n");
	conn_close(c);
}

static void on_accept(int listen_fd, enum conn_kind kind)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &H.conns[i];

		if (c->kind != CONN_FREE)
			continue;
		memset(c, 0, sizeof(*c));
		c->kind = kind;
		c->fd = fd;
		c->state = WAIT_REQUEST;
		c->deadline_ms = now_ms() + REQUEST_TIMEOUT_MS;
		return;
	}
	say("refused a connection: %d connections are open already", MAX_CONNS);
	close(fd);
}

/* ---- reaping ---------------------------------------------------------- */

static void program_exited(size_t i, int status)
{
	struct program p = H.programs[i];

	H.programs[i] = H.programs[--H.n_programs];
	if (p.conn)
		exit_status_to_client(p.conn, status);
}

static void on_spawner_message(void)
{
	char buf[1024];
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds;
	ssize_t len;

	while ((len = jr2_recv_msg(H.spawner_fd, buf, sizeof(buf) - 1, fds,
				   JR2_REQ_MAX_FDS, &n_fds)) > 0) {
		unsigned long id;
		int pid, err, used = 0;
		struct conn *c;

		jr2_close_fds(fds, n_fds);
		buf[(size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf) - 1] =
		    '\0';
		if (!strcmp(buf, "ready")) {
			H.spawner_ready = true;
			log_generation();
			flush_queue();
		} else if (!strncmp(buf, "fail ", 5)) {
			say("spawner generation %u could not confine itself: "
			    "%s",
			    H.generation, buf + 5);
			for (int i = 0; i < MAX_CONNS; i++)
				if (H.conns[i].kind == CONN_CONTROL &&
				    H.conns[i].state == QUEUED)
					refuse(&H.conns[i],
					       "the spawner cannot confine "
					       "itself, so nothing runs: %s",
					       buf + 5);
		} else if (sscanf(buf, "started %lu %d%n", &id, &pid, &used) ==
			       2 &&
			   pid > 0) {
			c = conn_by_id(id, false);
			if (H.n_programs == MAX_PROGRAMS) {
				say("more than %d live programs; pid %d is not "
				    "tracked",
				    MAX_PROGRAMS, pid);
				if (c)
					conn_close(c);
				continue;
			}
			H.programs[H.n_programs++] = (struct program){
			    .pid = pid, .generation = H.generation, .conn = c};
			if (c) {
				c->state = RUNNING;
				conn_reply(c, "started %d\n", pid);
			}
			/* It may have ended before this message was read. */
			for (size_t u = 0; u < H.n_unclaimed; u++) {
				if (H.unclaimed[u].pid != pid)
					continue;
				int status = H.unclaimed[u].status;

				H.unclaimed[u] = H.unclaimed[--H.n_unclaimed];
				program_exited(H.n_programs - 1, status);
				break;
			}
		} else if (sscanf(buf, "error %lu %d %n", &id, &err, &used) ==
			       2 &&
			   used > 0) {
			/* After "started" when execve itself failed. */
			c = conn_by_id(id, true);
			if (c) {
				for (size_t i = 0; i < H.n_programs; i++)
					if (H.programs[i].conn == c)
						H.programs[i] =
						    H.programs[--H.n_programs];
				conn_reply(c, "error %d %s\n", err, buf + used);
				conn_close(c);
			}
		} else {
			say("unexpected message from the spawner: '%.200s'",
			    buf);
		}
	}
	if (len == 0 || (len < 0 && len != -EAGAIN)) {
		/* The spawner is gone; its exit status tells the rest. */
		close(H.spawner_fd);
		H.spawner_fd = -1;
		H.spawner_ready = false;
	}
}

static void spawner_died(int status)
{
	long long lived = now_ms() - H.spawner_started_ms;
	char how[64];
	unsigned int delay;

	if (H.spawner_fd >= 0)
		on_spawner_message(); /* answers it sent before it died */
	if (H.spawner_fd >= 0) {
		close(H.spawner_fd);
		H.spawner_fd = -1;
	}
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(status));
	/* In flight: the spawner took it and never answered. */
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &H.conns[i];

		if (c->kind != CONN_CONTROL || c->state != IN_FLIGHT)
			continue;
		conn_reply(c,
			   "error %d the spawner (generation %u, pid %d) %s "
			   "while starting '%s'; it may not have run; a new "
			   "spawner is starting, retry\n",
			   ECHILD, H.generation, (int)H.spawner_pid, how,
			   c->cmd);
		conn_close(c);
	}
	H.quick_deaths = (!H.spawner_ready || lived < QUICK_DEATH_MS)
			     ? H.quick_deaths + 1
			     : 0;
	delay = 0;
	if (H.quick_deaths > 0) {
		unsigned int shift =
		    H.quick_deaths - 1 > 16 ? 16 : H.quick_deaths - 1;

		delay = BACKOFF_FIRST_MS << shift;
		if (delay > H.max_backoff_ms)
			delay = H.max_backoff_ms;
	}
	say("spawner generation %u (pid %d) %s after %lld ms; its programs "
	    "keep running; generation %u starts in %u ms",
	    H.generation, (int)H.spawner_pid, how, lived, H.generation + 1,
	    delay);
	H.spawner_pid = 0;
	H.spawner_ready = false;
	H.restart_at_ms = now_ms() + delay;
}

static void reap(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | WUNTRACED)) > 0) {
		bool known = false;

		if (WIFSTOPPED(status)) {
			/*
			 * Its programs may stop their spawner (same domain).
			 * Stopped, it would hold requests and the stdio of
			 * its clients: a new one takes over at once.
			 */
			if (pid == H.spawner_pid) {
				say("spawner generation %u (pid %d) stopped by "
				    "signal %d; replacing it",
				    H.generation, (int)pid, WSTOPSIG(status));
				kill(pid, SIGKILL);
			}
			continue; /* a stopped program is its own business */
		}
		if (pid == H.spawner_pid) {
			spawner_died(status);
			continue;
		}
		for (size_t i = 0; i < H.n_programs; i++) {
			if (H.programs[i].pid == pid) {
				program_exited(i, status);
				known = true;
				break;
			}
		}
		if (known)
			continue;
		/* A program whose "started" is still on its way, or an
		 * orphan of a program (subreaper): remembered a while. */
		if (H.n_unclaimed == MAX_UNCLAIMED) {
			memmove(&H.unclaimed[0], &H.unclaimed[1],
				(MAX_UNCLAIMED - 1) * sizeof(H.unclaimed[0]));
			H.n_unclaimed--;
		}
		H.unclaimed[H.n_unclaimed++] =
		    (struct exit_record){.pid = pid, .status = status};
	}
}

/* ---- the loop ------------------------------------------------------- */

static void shut_down(int signo)
{
	char path[PATH_MAX + 32];

	say("stopping on signal %d; programs keep running", signo);
	if (H.spawner_pid > 0)
		kill(H.spawner_pid, SIGKILL);
	snprintf(path, sizeof(path), "%s/%s", H.protected_dir,
		 JR2_CONTROL_SOCKET);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", H.protected_dir,
		 JR2_CUSTODIAN_SOCKET);
	unlink(path);
	exit(0);
}

static void on_signal(void)
{
	struct signalfd_siginfo info;

	while (read(H.signal_fd, &info, sizeof(info)) == sizeof(info)) {
		if (info.ssi_signo == SIGCHLD)
			reap();
		else
			shut_down((int)info.ssi_signo);
	}
	reap(); /* SIGCHLDs merge: always look */
}

static void expire_waiting(long long now)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &H.conns[i];

		if (c->kind == CONN_FREE || now < c->deadline_ms)
			continue;
		if (c->state == IN_FLIGHT) {
			/*
			 * A stopped spawner (its programs may SIGSTOP it, even
			 * before it reported their own start) must not hang a
			 * client: answer, and replace the spawner.
			 */
			conn_reply(c,
				   "error %d the spawner (generation %u, pid "
				   "%d) did not answer within %d ms while "
				   "starting '%s'; it is replaced, retry\n",
				   ETIMEDOUT, H.generation, (int)H.spawner_pid,
				   SPAWN_TIMEOUT_MS, c->cmd);
			conn_close(c);
			if (H.spawner_pid > 0)
				kill(H.spawner_pid, SIGKILL);
			continue;
		}
		if (c->state != WAIT_REQUEST)
			continue;
		if (c->kind == CONN_CONTROL)
			refuse(c,
			       "no request within %d ms of connecting; send "
			       "the request right after connecting",
			       REQUEST_TIMEOUT_MS);
		else
			on_custodian_readable(c);
	}
}

int serve(const struct serve_options *opts)
{
	enum { FIXED = 5 };
	struct pollfd pfd[FIXED + MAX_CONNS];
	struct conn *polled[MAX_CONNS];

	memset(&H, 0, sizeof(H));
	H.spawner_fd = -1;
	H.max_backoff_ms = opts->max_backoff_ms;
	jr2_abi_probe(&H.abi, opts->max_abi);
	if (jr2_abi_verdict(&H.abi) != JR2_VERDICT_ACCEPT) {
		char reason[512];

		die_msg(1, "refusing to start: %s",
			jr2_verdict_reason(&H.abi, reason, sizeof(reason)));
	}
	load_config(opts->config);
	if (opts->config)
		check_read_file("--config", opts->config);
	protected_dir_of(opts->root, H.protected_dir, sizeof(H.protected_dir));
	if (opts->start_env_fd < 0)
		reexec_with_own_environment(opts);
	make_protected_dir(opts->root);
	refuse_second_harness();
	compose_environments(opts->start_env_fd);
	make_policy(opts->root);
	make_secrets(opts->bearer_file);
	/*
	 * P1: not dumpable, so its /proc/<pid>/{environ,mem,maps} and ptrace
	 * need CAP_SYS_PTRACE, which no confined program has (spawner.c).
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die(1, "cannot make the harness non-dumpable",
		    "PR_SET_DUMPABLE");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die(1, "cannot become a child subreaper",
		    "PR_SET_CHILD_SUBREAPER");
	open_sockets();
	say("serving; protected dir %s, pid %d, ABI %d", H.protected_dir,
	    (int)getpid(), H.abi.in_force);
	start_spawner();

	for (;;) {
		long long now = now_ms();
		int timeout = -1, n = FIXED, ready;

		if (H.spawner_pid == 0 && H.restart_at_ms &&
		    now >= H.restart_at_ms)
			start_spawner();
		if (H.spawner_pid == 0 && H.restart_at_ms)
			timeout = (int)(H.restart_at_ms - now);
		pfd[0] = (struct pollfd){.fd = H.signal_fd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = H.control_fd, .events = POLLIN};
		pfd[2] =
		    (struct pollfd){.fd = H.custodian_fd, .events = POLLIN};
		pfd[3] = (struct pollfd){.fd = H.abstract_fd, .events = POLLIN};
		pfd[4] = (struct pollfd){
		    .fd = H.spawner_fd,
		    .events = (short)(POLLIN | (H.spawner_ready && queue_waits()
						    ? POLLOUT
						    : 0))};
		for (int i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &H.conns[i];

			if (c->kind == CONN_FREE)
				continue;
			if (c->state == WAIT_REQUEST || c->state == IN_FLIGHT) {
				int left = (int)(c->deadline_ms - now);

				if (left < 0)
					left = 0;
				if (timeout < 0 || left < timeout)
					timeout = left;
			}
			polled[n - FIXED] = c;
			pfd[n++] =
			    (struct pollfd){.fd = c->fd, .events = POLLIN};
		}
		ready = poll(pfd, (nfds_t)n, timeout);
		if (ready < 0 && errno != EINTR)
			die(1, "poll failed in", "the main loop");
		if (ready <= 0) {
			expire_waiting(now_ms());
			continue;
		}
		/* Reports first: a program's report precedes its exit. */
		if ((pfd[4].revents & ~POLLOUT) && H.spawner_fd >= 0)
			on_spawner_message();
		if (pfd[0].revents)
			on_signal();
		if ((pfd[4].revents & POLLOUT) && H.spawner_fd >= 0)
			flush_queue();
		for (int i = FIXED; i < n; i++) {
			struct conn *c = polled[i - FIXED];

			if (!pfd[i].revents || c->kind == CONN_FREE ||
			    c->fd != pfd[i].fd)
				continue;
			if (c->kind == CONN_CONTROL)
				on_control_readable(c);
			else
				on_custodian_readable(c);
		}
		if (pfd[1].revents)
			on_accept(H.control_fd, CONN_CONTROL);
		if (pfd[2].revents)
			on_accept(H.custodian_fd, CONN_CUSTODIAN);
		if (pfd[3].revents)
			on_accept(H.abstract_fd, CONN_CUSTODIAN);
		expire_waiting(now_ms());
	}
}
