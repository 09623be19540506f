/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the harness groups share (P1-P6, E1-E5, R8, R10): a jr2-harness
 * started in the test child's own mount and network namespaces, on a tmpfs,
 * with programs run through its spawner; the programs are jr2-try's verbs
 * (runtime/tests/try_*.c).
 *
 * /mnt                      tmpfs (the test's mount namespace only)
 * ├── etc/                  files the harness reads (config, bearer)
 * ├── harness.log           the harness's stderr
 * └── h/                    --root (made here: serve refuses a missing one)
 *     └── run/jr2/          the protected dir the harness makes (0700)
 *         ├── control.sock, custodian.sock, control.bearer, stand-ins
 *         └── home/         the harness's HOME (E5)
 *
 * The harness and jr2-try are found as common.h's fx_tool() finds them
 * (JR2_BIN_DIR, ../bin beside the test binary, the test binary's folder), so
 * the same binaries run in the VMs.
 */
#ifndef JR2_SELFTESTS_HARNESS_HELPERS_H
#define JR2_SELFTESTS_HARNESS_HELPERS_H

#include <linux/capability.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <time.h>

#include "common.h"
#include "harness/channel.h"
#include "harness/request.h"

#define HX_MNT	     "/mnt"
#define HX_ETC	     HX_MNT "/etc"
#define HX_LOG	     HX_MNT "/harness.log"
#define HX_ROOT	     HX_MNT "/h"
#define HX_PROTECTED HX_ROOT "/run/jr2"
#define HX_STANDINS  HX_PROTECTED "/stand-ins"
#define HX_BEARER    HX_PROTECTED "/control.bearer"
#define HX_CONTROL   HX_PROTECTED "/control.sock"
#define HX_CUSTODIAN HX_PROTECTED "/custodian.sock"
#define HX_ABSTRACT  "jr2:" HX_PROTECTED
#define HX_READY_MS  10000
/* A config line that makes HX_ETC a read-only tree: the files the harness
 * trusts (config, bearer) must lie in one (E4). */
#define HX_TRUST_ETC "read-only " HX_ETC "\n"
/* A folder for a bearer file, protected by the config line below: a secret
 * lies in a protected dir, not in a read-only tree, which programs read. */
#define HX_SECRET	"/mnt/secret"
#define HX_TRUST_SECRET "protect " HX_SECRET "\n"
#define HX_OUT_SIZE	8192

struct hx {
	struct jr2_abi abi;
	char harness[PATH_MAX], try_tool[PATH_MAX];
	pid_t pid; /* the harness, as this test sees it */
	pid_t spawner;
	unsigned int generation;
	int serve_status; /* when it exited at start: its exit status */
	const char *bearer_file; /* NULL: the one the harness makes */
	int log_fd; /* above 2: the harness's stderr (a pty), not HX_LOG */
	off_t log_from; /* HX_LOG's size when this harness started */
	/* With log_fd: the harness is a background job of a session whose
	 * terminal log_fd is (`serve ... &` in a shell there); its leader: */
	bool tty_job;
	pid_t session;
	bool no_net_admin; /* started without CAP_NET_ADMIN (bounding set) */
};

/* ---- the harness under test ---- */

/*
 * A network namespace for the test binary (abstract socket names are per
 * netns): made once at its start, before the kselftest harness forks the
 * tests, so that no harness of a test meets the host's (or another binary's)
 * abstract names; a namespace per test cost 3-20 ms under TCG to make, and
 * more to tear down, in every harness test.  The tests of one binary run one
 * after the other, each harness stopped (its abstract socket closed) before
 * the next starts.
 */
static int hx_netns_err = -1;

static void __attribute__((constructor)) hx_own_netns(void)
{
	/* The runtime's container is a network namespace of its own. */
	if (fx_runtime_fixture())
		hx_netns_err = 0;
	else
		hx_netns_err = unshare(CLONE_NEWNET) ? errno : 0;
}

/* Own mount namespace and tmpfs, in the binary's own network namespace. */
static inline void hx_setup(struct __test_metadata *_metadata, struct hx *hx)
{
	memset(hx, 0, sizeof(*hx));
	fx_probe_abi(_metadata, &hx->abi);
	ASSERT_EQ(0, hx_netns_err)
	{
		TH_LOG("unshare(CLONE_NEWNET) at the binary's start: %s: run "
		       "the suite as root",
		       strerror(hx_netns_err));
	}
	fx_private_mounts(_metadata);
	if (mkdir(HX_MNT, 0755) && errno != EEXIST)
		ASSERT_EQ(0, errno);
	fx_mount_tmpfs(_metadata, "jr2-harness-test", HX_MNT,
		       "mode=0755,size=16m");
	umask(022);
	fx_make_dir(_metadata, HX_ETC, 0755);
	/* The root is the user's: serve refuses one that does not exist. */
	fx_make_dir(_metadata, HX_ROOT, 0755);
	FX_FIND_TOOL("jr2-harness", hx->harness);
	FX_FIND_TOOL("jr2-try", hx->try_tool);
}

/* The value of "key: value" in `jr2-harness status` text, or NULL. */
static inline const char *hx_field(const char *status, const char *key,
				   char *buf, size_t size)
{
	size_t key_len = strlen(key);

	for (const char *line = status; line && *line;) {
		const char *end = strchrnul(line, '\n');

		if (!strncmp(line, key, key_len) && line[key_len] == ':') {
			const char *v = line + key_len + 1;

			while (*v == ' ')
				v++;
			snprintf(buf, size, "%.*s", (int)(end - v), v);
			return buf;
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

/* Runs `jr2-harness status`; 0 with its text in out, else its exit status. */
static inline int hx_status(struct hx *hx, char *out, size_t size)
{
	char *const argv[] = {hx->harness,
			      "status",
			      "--root",
			      HX_ROOT,
			      hx->bearer_file ? "--bearer-file" : NULL,
			      (char *)hx->bearer_file,
			      NULL};
	int status = -1, err = fx_run(argv, out, size, &status);

	return err ? -err : status;
}

/*
 * Whether the log's last 16 KiB say that a spawner of generation >= gen is
 * ready: the harness logs its start line, with its generation and pid, when
 * the spawner says "ready" (its log's writer writes it just after `status`
 * would say spawner_ready: true).  Only lines of this harness count (from
 * hx->log_from: a test may start another in the same log).  Sets hx->generation
 * and hx->spawner from the last such line.
 */
static inline bool hx_log_says_ready(struct hx *hx, unsigned int gen)
{
	static const char start_line[] = "\njr2-harness: spawner generation ";
	char tail[16384];
	const char *at, *last = NULL;
	int fd = open(HX_LOG, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	off_t from;
	ssize_t n = -1;
	unsigned int seen;
	int pid, whole = 0;

	/* Emptied since (truncate): its lines start over. */
	if (end >= 0 && end < hx->log_from)
		hx->log_from = 0;
	from = end - (off_t)sizeof(tail) + 2;
	if (from < hx->log_from)
		from = hx->log_from;
	/* A line is one the harness began (a client's newline is written
	 * \x0a): the first one read is whole only from log_from. */
	tail[0] = '\n';
	if (end >= 0)
		n = pread(fd, tail + 1, sizeof(tail) - 2, from);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	tail[n + 1] = '\0';
	for (at = from == hx->log_from ? tail : strchrnul(tail + 1, '\n');
	     (at = strstr(at, start_line)); at++)
		last = at + 1;
	/* %n: set only when the words after the pid match too. */
	if (!last ||
	    sscanf(last,
		   "jr2-harness: spawner generation %u (pid %d) confined "
		   "at Landlock ABI %n",
		   &seen, &pid, &whole) != 2 ||
	    !whole || seen < gen || pid <= 0)
		return false;
	hx->generation = seen;
	hx->spawner = pid;
	return true;
}

static inline long long hx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * The wait of hx_wait_ready(), woken by the log (inotify: every line the
 * harness writes) and, when `serve` is the harness's pid, by its exit (a
 * pidfd; without one, waitpid every 5 ms as before).  Ready when the log
 * says so (hx_log_says_ready), else when `jr2-harness status` (an exec),
 * asked every 100 ms, says so: a flood of start lines may be counted, not
 * logged, and a log on a terminal is not HX_LOG.  1 when ready
 * (hx->generation, hx->spawner set); 0 when `serve` ended (reaped, its wait
 * status in *status); -1 after HX_READY_MS.
 */
static inline int hx_await_ready(struct hx *hx, unsigned int min_generation,
				 pid_t serve, int *status)
{
	char out[HX_OUT_SIZE], value[64];
	int log_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	int exit_fd = serve > 0 ? (int)syscall(SYS_pidfd_open, serve, 0) : -1;
	long long start = hx_now_ms(), asked = start, now = start;
	int ret = -1;

	/* The harness appends to the log: made here first, to be watched. */
	close(open(HX_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
	if (log_fd >= 0 && inotify_add_watch(log_fd, HX_LOG, IN_MODIFY) < 0) {
		close(log_fd);
		log_fd = -1;
	}
	for (;;) {
		struct pollfd pfd[2] = {{.fd = log_fd, .events = POLLIN},
					{.fd = exit_fd, .events = POLLIN}};
		char drain[4096];
		int wait_ms;

		if (hx_log_says_ready(hx, min_generation)) {
			ret = 1;
			break;
		}
		if (now - asked >= 100) {
			asked = now;
			if (hx_status(hx, out, sizeof(out)) == 0 &&
			    hx_field(out, "spawner_ready", value,
				     sizeof(value)) &&
			    !strcmp(value, "true") &&
			    hx_field(out, "generation", value, sizeof(value)) &&
			    (unsigned int)atoi(value) >= min_generation) {
				hx->generation = (unsigned int)atoi(value);
				hx_field(out, "spawner_pid", value,
					 sizeof(value));
				hx->spawner = atoi(value);
				ret = 1;
				break;
			}
		}
		if (serve > 0 && exit_fd < 0 &&
		    waitpid(serve, status, WNOHANG) == serve) {
			ret = 0;
			break;
		}
		now = hx_now_ms();
		if (now - start >= HX_READY_MS)
			break;
		/* Without a watch or without a pidfd: as often as the old
		   5 ms polling. */
		wait_ms = log_fd < 0 || (serve > 0 && exit_fd < 0)
			      ? 5
			      : (int)(asked + 100 - now);
		if (wait_ms < 1)
			wait_ms = 1;
		if (poll(pfd, 2, wait_ms) > 0) {
			if (pfd[1].revents) {
				waitpid(serve, status, 0);
				ret = 0;
				break;
			}
			while (read(log_fd, drain, sizeof(drain)) > 0)
				;
		}
		now = hx_now_ms();
	}
	if (log_fd >= 0)
		close(log_fd);
	if (exit_fd >= 0)
		close(exit_fd);
	return ret;
}

/* Waits until a spawner of generation >= min_generation is ready. */
static inline void hx_wait_ready(struct __test_metadata *_metadata,
				 struct hx *hx, unsigned int min_generation)
{
	ASSERT_EQ(1, hx_await_ready(hx, min_generation, 0, NULL))
	{
		TH_LOG("no ready spawner of generation >= %u within %d ms",
		       min_generation, HX_READY_MS);
	}
}

/*
 * In the harness's child, before its exec (hx->tty_job): a new session whose
 * controlling terminal is hx->log_fd, led by this process, which stays in the
 * foreground and forks the harness-to-be into a process group of its own (a
 * background job, as a shell's `serve ... &`; its parent in the session keeps
 * the group from being orphaned, so the kernel's job control applies).  The
 * leader reports the job's pid on `report` and exits with it.  Returns in the
 * job.
 */
static inline void hx_become_job(struct hx *hx, int report)
{
	int status = 0;
	pid_t job;

	if (setsid() < 0 || ioctl(hx->log_fd, TIOCSCTTY, 0))
		_exit(126);
	job = fork();
	if (job < 0)
		_exit(126);
	if (job == 0) {
		setpgid(0, 0);
		close(report);
		return;
	}
	setpgid(job, job);
	if (write(report, &job, sizeof(job)) != sizeof(job))
		_exit(126);
	close(report);
	while (waitpid(job, &status, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

/*
 * Starts `jr2-harness serve --root HX_ROOT EXTRA...` with envp (NULL: this
 * process's environment).  Returns 0 once it serves with a ready spawner,
 * or the exit status it ended with (a refusal at start).
 */
static inline int hx_start_env(struct __test_metadata *_metadata, struct hx *hx,
			       const char *const extra[], char *const envp[])
{
	extern char **environ;
	char *argv[32] = {hx->harness, "serve", "--root", HX_ROOT};
	int n = 4, status = -1, report[2] = {-1, -1};
	struct stat log;

	for (int i = 0; extra && extra[i]; i++)
		argv[n++] = (char *)extra[i];
	argv[n] = NULL;
	if (hx->tty_job)
		ASSERT_EQ(0, pipe2(report, O_CLOEXEC));
	hx->log_from = stat(HX_LOG, &log) ? 0 : log.st_size;
	hx->pid = fork();
	ASSERT_LE(0, hx->pid);
	if (hx->pid == 0) {
		int log =
		    hx->log_fd > 2
			? hx->log_fd
			: open(HX_LOG, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int null = open("/dev/null", O_RDWR);

		/* Never outlives the test, even when an assert aborts it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (hx->tty_job) {
			close(report[0]);
			hx_become_job(hx, report[1]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		}
		dup2(null, 0);
		dup2(null, 1);
		dup2(log, 2);
		/* Dropped already where the bounding set lacks it (a
		   container profile's, which may lack CAP_SETPCAP too). */
		if (hx->no_net_admin &&
		    prctl(PR_CAPBSET_READ, CAP_NET_ADMIN, 0, 0, 0) == 1 &&
		    prctl(PR_CAPBSET_DROP, CAP_NET_ADMIN, 0, 0, 0))
			_exit(126);
		execve(argv[0], argv, envp ? envp : environ);
		_exit(127);
	}
	if (hx->tty_job) {
		hx->session = hx->pid;
		close(report[1]);
		ASSERT_EQ((ssize_t)sizeof(hx->pid),
			  read(report[0], &hx->pid, sizeof(hx->pid)));
		close(report[0]);
	}
	switch (hx_await_ready(hx, 1, hx->pid, &status)) {
	case 1:
		return 0;
	case 0:
		/* Ended before its spawner was ready: a refusal at start. */
		hx->pid = 0;
		hx->serve_status = WIFEXITED(status) ? WEXITSTATUS(status)
						     : 128 + WTERMSIG(status);
		return hx->serve_status;
	}
	ASSERT_TRUE(false)
	{
		TH_LOG("no ready spawner of generation >= 1 within %d ms",
		       HX_READY_MS);
	}
	return -1;
}

static inline int hx_start(struct __test_metadata *_metadata, struct hx *hx,
			   const char *const extra[])
{
	return hx_start_env(_metadata, hx, extra, NULL);
}

/* The harness's log, for messages and for TH_LOG on failure. */
static inline void hx_log(char *out, size_t size)
{
	int fd = open(HX_LOG, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, out, size - 1);

	out[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * The errno of a write the policy denies in a protected dir or a read-only
 * tree, for a program of the harness: EROFS where the spawner's read-only
 * mounts hold (its "metadata: holds" log line), else Landlock's EACCES.
 */
static inline const char *hx_write_denied(void)
{
	char log[HX_OUT_SIZE];

	hx_log(log, sizeof(log));
	return strstr(log, "jr2-harness: metadata: holds") ? "EROFS" : "EACCES";
}

/*
 * Starts the harness, or, where the runtime must refuse this ABI (G1-G3),
 * asserts that it refused with the reason and skips naming it.
 */
#define HX_START(hx, extra)                                                \
	do {                                                               \
		char _why[256], _log[HX_OUT_SIZE];                         \
		int _rc = hx_start(_metadata, hx, extra);                  \
		if (!fx_accepted(&(hx)->abi)) {                            \
			hx_log(_log, sizeof(_log));                        \
			ASSERT_EQ(1, _rc);                                 \
			ASSERT_NE(NULL, strstr(_log, "refusing to start")) \
			{                                                  \
				TH_LOG("log: %s", _log);                   \
			}                                                  \
			SKIP(return, "%s",                                 \
				   fx_refusal_reason(&(hx)->abi, _why,     \
						     sizeof(_why)));       \
		}                                                          \
		ASSERT_EQ(0, _rc)                                          \
		{                                                          \
			hx_log(_log, sizeof(_log));                        \
			TH_LOG("serve ended with %d; log: %s", _rc, _log); \
		}                                                          \
	} while (0)

/* The value of NAME in the Stand-ins file (the test is unconfined). */
static inline void hx_standin(struct __test_metadata *_metadata,
			      const char *name, char *value, size_t size)
{
	char text[4096], key[128];
	int fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	const char *at;

	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	text[n] = '\0';
	snprintf(key, sizeof(key), "\n%s=", name);
	at = !strncmp(text, key + 1, strlen(key + 1)) ? text - 1
						      : strstr(text, key);
	ASSERT_NE(NULL, at)
	{
		TH_LOG("no Stand-in '%s' in %s", name, HX_STANDINS);
	}
	at += strlen(key);
	snprintf(value, size, "%.*s", (int)strcspn(at, "\n"), at);
}

/* For tests of refusals at start: the ABI refusal would come first. */
#define HX_REQUIRE_ACCEPTED(hx) FX_REQUIRE_ACCEPTED(&(hx)->abi)

/* The bearer the harness wrote (HX_BEARER), its newline cut, into value. */
static inline void hx_bearer(struct __test_metadata *_metadata, char *value,
			     size_t size)
{
	int fd = open(HX_BEARER, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ASSERT_LE(0, fd);
	n = read(fd, value, size - 1);
	close(fd);
	ASSERT_LT(0, n);
	value[n] = '\0';
	value[strcspn(value, "\n")] = '\0';
}

/*
 * One message (with n_fds descriptors) on the control socket, as a client
 * sends it; the harness's answer in out.
 */
static inline void hx_control_raw(struct __test_metadata *_metadata,
				  const void *msg, size_t len, const int *fds,
				  size_t n_fds, char *out, size_t size)
{
	struct sockaddr_un addr;
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct pollfd pfd = {.fd = sock, .events = POLLIN};
	ssize_t n;

	ASSERT_LE(0, sock);
	fx_unix_addr(&addr, HX_CONTROL);
	ASSERT_EQ(0, connect(sock, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(0, jr2_send_msg(sock, msg, len, fds, n_fds));
	/* Never a hang: the answer comes within the harness's own limit. */
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	n = recv(sock, out, size - 1, 0);
	ASSERT_LE(0, n);
	out[n] = '\0';
	close(sock);
}

/*
 * Runs argv through `jr2-harness exec [OPTIONS] --`; its output (stdout and
 * stderr) in out.  Returns the client's exit status.
 */
static inline int hx_exec_opts(struct hx *hx, const char *const opts[],
			       const char *const argv[], char *out, size_t size)
{
	char *args[64] = {hx->harness, "exec", "--root", HX_ROOT};
	int n = 4;

	if (hx->bearer_file) {
		args[n++] = "--bearer-file";
		args[n++] = (char *)hx->bearer_file;
	}
	for (int i = 0; opts && opts[i] && n < 40; i++)
		args[n++] = (char *)opts[i];
	return fx_run_command(args, n, argv, out, size);
}

static inline int hx_exec(struct hx *hx, const char *const argv[], char *out,
			  size_t size)
{
	return hx_exec_opts(hx, NULL, argv, out, size);
}

/* jr2-try VERB ARGS run confined: its output, cut at the first of `stop`. */
#define HX_TRY_CUT(hx, stop, ...)                                         \
	({                                                                \
		static char _out[HX_OUT_SIZE];                            \
		const char *const _argv[] = {(hx)->try_tool, __VA_ARGS__, \
					     NULL};                       \
		hx_exec(hx, _argv, _out, sizeof(_out));                   \
		_out[strcspn(_out, stop)] = '\0';                         \
		(const char *)_out;                                       \
	})

/* Its first word ("ok", "EACCES", ...). */
#define HX_TRY(hx, ...) HX_TRY_CUT(hx, " \n", __VA_ARGS__)

/* Its first line. */
#define HX_TRY_LINE(hx, ...) HX_TRY_CUT(hx, "\n", __VA_ARGS__)

/*
 * Starts a long-lived confined program (jr2-try `verb`, through `exec OPTS`)
 * in the background; returns its pid as the harness reports it
 * (waits for it).
 */
static inline pid_t hx_start_program(struct __test_metadata *_metadata,
				     struct hx *hx, pid_t *client,
				     const char *const opts[],
				     const char *const verb[])
{
	char out[HX_OUT_SIZE], value[1024], before[1100] = "";

	if (hx_status(hx, out, sizeof(out)) == 0 &&
	    hx_field(out, "programs", value, sizeof(value)))
		snprintf(before, sizeof(before), " %s ", value);
	*client = fork();
	if (*client == 0) {
		char *argv[32] = {hx->harness, "exec", "--root", HX_ROOT};
		int null = open("/dev/null", O_RDWR), n = 4;

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		for (int i = 0; opts && opts[i] && n < 24; i++)
			argv[n++] = (char *)opts[i];
		argv[n++] = "--";
		argv[n++] = hx->try_tool;
		for (int i = 0; verb[i] && n < 31; i++)
			argv[n++] = (char *)verb[i];
		argv[n] = NULL;
		execv(hx->harness, argv);
		_exit(127);
	}
	for (int waited = 0; waited < HX_READY_MS; waited += 5) {
		if (hx_status(hx, out, sizeof(out)) == 0 &&
		    hx_field(out, "programs", value, sizeof(value))) {
			/* The first "PID/GEN" not there before. */
			for (char *tok = strtok(value, " "); tok;
			     tok = strtok(NULL, " ")) {
				char key[64];

				snprintf(key, sizeof(key), " %s ", tok);
				if (!strstr(before, key))
					return atoi(tok);
			}
		}
		usleep(5000);
	}
	ASSERT_TRUE(false)
	{
		TH_LOG("the sleeper did not start within %d ms", HX_READY_MS);
	}
	return -1;
}

static inline pid_t hx_start_sleeper_verb(struct __test_metadata *_metadata,
					  struct hx *hx, pid_t *client,
					  const char *verb)
{
	const char *const argv[] = {verb, NULL};

	return hx_start_program(_metadata, hx, client, NULL, argv);
}

/* A sleeper that every program may trace as far as Yama goes. */
static inline pid_t hx_start_sleeper(struct __test_metadata *_metadata,
				     struct hx *hx, pid_t *client)
{
	return hx_start_sleeper_verb(_metadata, hx, client, "sleep");
}

/*
 * Whether Yama lets a confined program trace a peer of its own domain that
 * named it with PR_SET_PTRACER (the sleeper does): NULL when it does (no
 * Yama, ptrace_scope 0 or 1), else why not, naming Yama and its value
 * (2: CAP_SYS_PTRACE only, which the domain lacks; 3: never).
 */
static inline const char *hx_peer_trace_blocked(char *why, size_t size)
{
	int scope = jr2_yama_ptrace_scope();

	if (scope <= 1)
		return NULL;
	snprintf(why, size,
		 "Yama's ptrace_scope is %d (%s): no program of the domain "
		 "may trace another, so the positive control of tracing "
		 "cannot run",
		 scope,
		 scope == 2 ? "tracing needs CAP_SYS_PTRACE, which the domain "
			      "drops"
			    : "no attach at all");
	return why;
}

/*
 * Ends the programs and the harness.  Every program is a child of the
 * harness (the spawner starts them with CLONE_PARENT; an orphan of one is
 * reparented to it, a subreaper) leading its own process group.  The
 * harness's children are read from /proc (no `status`, an exec), the
 * harness is stopped (its spawner dies with it), then each child's group
 * is killed: the spawner is not killed first, which the harness would
 * restart.
 */
static inline void hx_stop(struct hx *hx)
{
	pid_t groups[1024];
	size_t n;

	if (hx->pid <= 0)
		return;
	n = fx_children_of(hx->pid, false, groups,
			   sizeof(groups) / sizeof(groups[0]));
	/* The programs first: the harness's stop then has none to wait for
	 * (a program ignoring its SIGTERM would hold it the grace period). */
	for (size_t i = 0; i < n; i++)
		kill(-groups[i], SIGKILL);
	kill(hx->pid, SIGTERM);
	waitpid(hx->pid, NULL, 0);
	/* A job's harness is the session leader's child: it reaps it. */
	if (hx->session > 0)
		waitpid(hx->session, NULL, 0);
	hx->pid = 0;
	hx->session = 0;
}

/* A fixture `group` with a struct hx; the harness stops at teardown. */
/* clang-format off: FIXTURE is one of .clang-format's ForEachMacros */
#define HX_FIXTURE(group)                       \
	FIXTURE(group)                          \
	{                                       \
		struct hx hx;                   \
	};                                      \
	FIXTURE_SETUP(group)                    \
	{                                       \
		hx_setup(_metadata, &self->hx); \
	}                                       \
	FIXTURE_TEARDOWN(group)                 \
	{                                       \
		hx_stop(&self->hx);             \
	}
/* clang-format on */

static inline const char *hx_pid_str(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, "%d", (int)pid);
	return buf;
}

#endif /* JR2_SELFTESTS_HARNESS_HELPERS_H */
