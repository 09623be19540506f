// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness holds against its own programs on its channels: every
 * descriptor of a refused or empty control message is closed (R10); a flood
 * of the Custodian socket leaves the control channel working, and its log
 * lines are counted, not repeated (R11); a socket whose last close lingers,
 * passed on a channel or to exec, holds neither the harness nor its spawner,
 * even under a low RLIMIT_NOFILE or with no thread to be had (R11); no value
 * from a client forges a log line, and a terminal the harness logs to that a
 * program stops (tcflow, tostop) holds neither status, exec nor a new
 * spawner (R11); a client gets the exit status of its
 * own program only, even when orphans' pids are reused (P7); the spawner holds
 * no Stand-in or bearer in its memory (E5).
 *
 * Promises: R10 R11 P7 E5
 */
#include <sys/resource.h>
#include <termios.h>
#include <time.h>

#include "harness_helpers.h"
#include "tests/try_shared.h"

HX_FIXTURE(harness_channel)

/* The descriptors the harness holds (the test is root: it may look). */
static int harness_fds(pid_t pid)
{
	char path[64];
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n - 2;
}

/* Connects to the control socket and sends one raw message. */
static int control_send(const void *msg, size_t len, const int *fds,
			size_t n_fds)
{
	struct sockaddr_un addr;
	int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	fx_unix_addr(&addr, HX_CONTROL);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    jr2_send_msg(sock, msg, len, fds, n_fds)) {
		if (sock >= 0)
			close(sock);
		return -1;
	}
	return sock;
}

/*
 * Waits until the harness holds at most `want` descriptors (it closes a
 * client's after the client left); returns what it holds.  Only a leak waits
 * the whole 3 s: waiting for exactly `want` waited them too whenever a
 * connection counted in `want` had ended meanwhile.
 */
static int wait_fds(pid_t pid, int want)
{
	int n = harness_fds(pid);

	for (int waited = 0; n > want && waited < 3000; waited += 10) {
		usleep(10000);
		n = harness_fds(pid);
	}
	return n;
}

/*
 * Zero-length control messages with SCM_RIGHTS (no bearer needed) each
 * carry 16 descriptors; kept, they would fill the table until exec fails.
 * Each is closed, and so are those of a message that does not parse: 100 rounds
 * of the two (10 where JR2_STRESS=small, the vmtest guest: one leaked message
 * shows).
 */
TEST_F(harness_channel, R10_descriptors_of_empty_and_refused_messages_closed)
{
	struct hx *hx = &self->hx;
	const char *const truth[] = {"/bin/true", NULL};
	char out[HX_OUT_SIZE];
	int fds[16], before, after;
	int rounds = fx_stress_size(_metadata, 100, 10);

	HX_START(hx, NULL);
	for (int i = 0; i < 16; i++)
		ASSERT_LE(0, fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC));
	FX_SKIP_UNLESS_ROOT("listing the harness's descriptors");
	before = harness_fds(hx->pid);
	ASSERT_LT(0, before);
	for (int round = 0; round < rounds; round++) {
		int sock = control_send("", 0, fds, 16);
		int garbage = control_send("not a request", 13, fds, 16);
		char answer[512];

		ASSERT_LE(0, sock);
		ASSERT_LE(0, garbage);
		/* The empty one: the connection ends; the other: refused. */
		ASSERT_EQ(0, recv(sock, answer, sizeof(answer), 0));
		ASSERT_LT(0, recv(garbage, answer, sizeof(answer), 0));
		close(sock);
		close(garbage);
	}
	after = wait_fds(hx->pid, before);
	/* Not one more (one fewer: a status connection of the start ended). */
	ASSERT_GE(before, after)
	{
		TH_LOG("the harness held %d descriptors before %d messages "
		       "of 16 descriptors each, %d after",
		       before, 2 * rounds, after);
	}
	/* Positive control: exec still works. */
	ASSERT_EQ(0, hx_exec(hx, truth, out, sizeof(out)))
	{
		TH_LOG("exec: %s", out);
	}
	jr2_close_fds(fds, 16);
}

/* Reads from fd until `lines` newlines came (bounded: 30 s); 0 or -1. */
static int read_lines(int fd, int lines)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char buf[256];

	while (lines > 0 && poll(&pfd, 1, 30000) == 1) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			return -1;
		for (ssize_t i = 0; i < n; i++)
			lines -= buf[i] == '\n';
	}
	return lines > 0 ? -1 : 0;
}

/*
 * Floods `path` with 1,000 connections from a program (10 processes,
 * bounded: they stop after 30 s; 200 where JR2_STRESS=small, the vmtest
 * guest: still 12 refusals a process past its budget of 8, and more refusals
 * than the log's 5 lines a second).  The flood is in full force once each of
 * its ten processes said its share is open (a line each on the pipe): no
 * fixed wait for it.  Returns the flood's pid; `start` is when it began.
 */
static pid_t flood_start(struct __test_metadata *_metadata, struct hx *hx,
			 const char *path, struct timespec *start)
{
	char connections[16];
	int opened[2];
	pid_t flood;

	snprintf(connections, sizeof(connections), "%d",
		 fx_stress_size(_metadata, 1000, 200));
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, start));
	ASSERT_EQ(0, pipe2(opened, O_CLOEXEC));
	flood = fork();
	ASSERT_LE(0, flood);
	if (flood == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(opened[1], 1);
		dup2(null, 2);
		execl(hx->harness, hx->harness, "exec", "--root", HX_ROOT, "--",
		      hx->try_tool, "flood", path, connections, "10", "30",
		      NULL);
		_exit(127);
	}
	close(opened[1]);
	/* All ten have opened their share. */
	ASSERT_EQ(0, read_lines(opened[0], 10))
	{
		TH_LOG("the flood of %s: its ten processes did not all say "
		       "their connections are open within 30 s",
		       path);
	}
	close(opened[0]);
	return flood;
}

/* True when a line of `log` says how many lines like `refusal` were not
   logged (the count the window ends with). */
static bool dropped_counted(const char *log, const char *refusal)
{
	for (const char *at = log; (at = strstr(at, "were not logged")); at++) {
		const char *line = at;

		while (line > log && line[-1] != '\n')
			line--;
		if (memmem(line, (size_t)(at - line), refusal, strlen(refusal)))
			return true;
	}
	return false;
}

/*
 * The refusals of the flood begun at `start` (`refusal` in the log) are
 * counted, not written one line each: at most 5 a second, and the count of
 * those not logged comes when the window is over.
 */
static void refusals_limited(struct __test_metadata *_metadata,
			     const struct timespec *start, const char *refusal)
{
	char log[64 * 1024];
	int fd, lines = 0, most;
	struct timespec end;
	ssize_t n;

	fd = open(HX_LOG, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, log, sizeof(log) - 1);
	close(fd);
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &end));
	ASSERT_LT(0, n);
	log[n] = '\0';
	for (char *at = log; (at = strstr(at, refusal)); at++)
		lines++;
	/* At most 5 lines of a kind each second (jr2-harness(1)), in every
	   second the flood lasted so far: a slow guest has more seconds. */
	most = 5 * (int)(end.tv_sec - start->tv_sec + 2);
	ASSERT_LT(0, lines)
	{
		TH_LOG("no '%s' logged: the flood did not reach the budget; "
		       "log: %.2000s",
		       refusal, log);
	}
	ASSERT_GE(most, lines)
	{
		TH_LOG("%d '%s' lines, more than %d: not rate-limited", lines,
		       refusal, most);
	}
	/* And the count of those not logged comes within the window. */
	for (int waited = 0; !dropped_counted(log, refusal) && waited < 3000;
	     waited += 50) {
		usleep(50000);
		hx_log(log, sizeof(log));
	}
	ASSERT_TRUE(dropped_counted(log, refusal))
	{
		TH_LOG("no 'were not logged' line for '%s': %.2000s", refusal,
		       log);
	}
}

/*
 * Connections held on the 0666 Custodian socket must not starve the control
 * channel, as one shared cap would.  Separate budgets, and at most 8 a process.
 * The same on the control socket itself: programs may be root, so they can
 * connect to it; together they hold at most 16 of its connections.  Both
 * floods at once, each with its own log window (a second each, waited for
 * together): status and exec keep working through both, ten times a flood,
 * and each flood's refusals are counted on their own.
 */
TEST_F(harness_channel, R11_floods_of_custodian_and_control_leave_status_exec)
{
	const char *const truth[] = {"/bin/true", NULL};
	struct timespec custodian_start, control_start;
	struct hx *hx = &self->hx;
	pid_t custodian, control;
	char out[HX_OUT_SIZE];
	int status;

	HX_START(hx, NULL);
	custodian = flood_start(_metadata, hx, HX_CUSTODIAN, &custodian_start);
	control = flood_start(_metadata, hx, HX_CONTROL, &control_start);
	for (int i = 0; i < 2 * 5; i++) {
		ASSERT_EQ(0, hx_status(hx, out, sizeof(out)))
		{
			TH_LOG("status during the floods: %s", out);
		}
		ASSERT_EQ(0, hx_exec(hx, truth, out, sizeof(out)))
		{
			TH_LOG("exec during the floods: %s", out);
		}
	}
	refusals_limited(_metadata, &custodian_start, "refused a Custodian");
	refusals_limited(_metadata, &control_start,
			 "refused a control connection");
	kill(custodian, SIGTERM);
	kill(control, SIGTERM);
	waitpid(custodian, &status, 0);
	waitpid(control, &status, 0);
}

/* One line of fd into buf (at most size - 1 bytes), without its newline. */
static void read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size && read(fd, buf + n, 1) == 1 && buf[n] != '\n')
		n++;
	buf[n] = '\0';
}

/* A program run by `exec`, its stdin and stdout pipes to this test. */
struct held_program {
	pid_t client;
	int in, from; /* its stdin (write end), its stdout (read end) */
};

static void start_program(struct __test_metadata *_metadata, struct hx *hx,
			  const char *const helper_args[],
			  struct held_program *p)
{
	const char *argv[16] = {hx->harness, "exec", "--root",
				HX_ROOT,     "--",   hx->try_tool};
	int in[2], from[2], n = 6;

	for (int i = 0; helper_args[i] && n < 15; i++)
		argv[n++] = helper_args[i];
	argv[n] = NULL;
	ASSERT_EQ(0, pipe2(in, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(from, O_CLOEXEC));
	p->client = fork();
	ASSERT_LE(0, p->client);
	if (p->client == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(in[0], 0);
		dup2(from[1], 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(from[1]);
	p->in = in[1];
	p->from = from[0];
}

/*
 * `status`, or `exec /bin/true`, answered within ms: 0; 1 when it did not
 * answer in time (killed then), else the client's exit status.
 */
static int answers_within(struct hx *hx, bool exec, int ms)
{
	const char *const truth[] = {"/bin/true", NULL};
	char out[HX_OUT_SIZE];
	pid_t child = fork();
	int status = -1, pidfd;
	struct pollfd pfd;

	if (child == 0)
		_exit(exec ? hx_exec(hx, truth, out, sizeof(out))
			   : hx_status(hx, out, sizeof(out)));
	pidfd = child < 0 ? -1 : (int)syscall(SYS_pidfd_open, child, 0);
	pfd = (struct pollfd){.fd = pidfd, .events = POLLIN};
	if (pidfd < 0 || poll(&pfd, 1, ms) != 1) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		return 1;
	}
	close(pidfd);
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The harness (this test's child) stopped, so that it reads nothing. */
static void harness_stop(struct __test_metadata *_metadata, struct hx *hx)
{
	siginfo_t info = {0};

	ASSERT_EQ(0, kill(hx->pid, SIGSTOP));
	ASSERT_EQ(0, waitid(P_PID, (id_t)hx->pid, &info,
			    WSTOPPED | WEXITED | WNOWAIT));
	ASSERT_EQ(CLD_STOPPED, info.si_code)
	{
		kill(hx->pid, SIGCONT);
	}
}

/*
 * The trap of the R11 tests: a TCP socket whose last close would linger (its
 * peer, in *peer, never reads what it holds); the test passes it, then
 * closes its own copy.
 */
static int lingering_trap(struct __test_metadata *_metadata, int *peer)
{
	int unsent = 0, tcp = try_lingering_tcp(peer, &unsent);

	ASSERT_LE(0, tcp)
	{
		TH_LOG("the lingering socket: %s", strerror(-tcp));
	}
	/* The trap is set: its last close would linger. */
	ASSERT_LT(0, unsent);
	return tcp;
}

/*
 * After the trap: an hour's linger against this bound, which a slow guest's
 * `status` or `exec` keeps well within.
 */
#define HELD_MS 10000

/*
 * A program may pass the harness a TCP socket with SO_LINGER of an hour and
 * data its peer never reads, on the control socket (in an empty message, or
 * in one the harness never reads, behind a refused one) or on the Custodian
 * socket.  The last close of such a socket waits in the task that makes it
 * (signals read from a signalfd do not cut it short), so what peers send is
 * dropped and closed while a thread that then exits holds a copy: status,
 * exec and reaping go on.  The harness is stopped
 * while the program passes it, so that the harness's close is the last: the
 * program's own copies close first (the last of them in a child that exits,
 * where nothing lingers).  Control: status answers before each round.
 */
TEST_F(harness_channel, R11_a_lingering_socket_passed_leaves_status)
{
	static const char *const rounds[][2] = {{HX_CONTROL, "read"},
						{HX_CONTROL, "unread"},
						{HX_CUSTODIAN, "read"}};
	struct hx *hx = &self->hx;

	fx_loopback_up(_metadata);
	HX_START(hx, NULL);
	for (size_t i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		const char *const args[] = {"linger", rounds[i][0],
					    rounds[i][1], NULL};
		struct held_program p;
		char line[256];
		int unsent = 0, status, answered;
		ssize_t go;

		ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
		start_program(_metadata, hx, args, &p);
		read_line(p.from, line, sizeof(line));
		ASSERT_STREQ("ready", line);
		harness_stop(_metadata, hx);
		go = write(p.in, "g", 1);
		read_line(p.from, line, sizeof(line));
		ASSERT_EQ(0, kill(hx->pid, SIGCONT));
		ASSERT_EQ(1, go);
		ASSERT_EQ(1, sscanf(line, "sent %d", &unsent))
		{
			TH_LOG("%s %s: the program said '%s'", rounds[i][0],
			       rounds[i][1], line);
		}
		/* The trap is set: its last close would linger. */
		ASSERT_LT(0, unsent);
		answered = answers_within(hx, false, HELD_MS);
		ASSERT_EQ(0, answered)
		{
			TH_LOG("status did not succeed within %d ms (%d; 1: no "
			       "answer) once a program passed a lingering "
			       "socket on %s (%s)",
			       HELD_MS, answered, rounds[i][0], rounds[i][1]);
			/* SIGKILL ends a wait in close(2): the teardown. */
			kill(hx->pid, SIGKILL);
		}
		close(p.in);
		close(p.from);
		ASSERT_EQ(p.client, waitpid(p.client, &status, 0));
	}
}

/* An exec request of /bin/true, with the bearer the harness wrote. */
static void exec_true_msg(struct __test_metadata *_metadata,
			  struct jr2_msg *msg)
{
	char bearer[256];

	hx_bearer(_metadata, bearer, sizeof(bearer));
	jr2_msg_init(msg);
	jr2_msg_field(msg, "op", "exec");
	jr2_msg_field(msg, "bearer", bearer);
	jr2_msg_field(msg, "arg", "/bin/true");
}

/*
 * The exec path: a client's stdin is such a socket, and the client's copy
 * closes as the request waits for the stopped harness; the spawner refuses
 * the start (another descriptor leads into the protected dir), so no program
 * ever holds it.  The last close was the harness's, after it handed the
 * request to the spawner, or the spawner's, after the start: either held in
 * close(2) stopped every exec (the spawner's requests timed out after 10 s).
 * Control: exec answers before.
 */
TEST_F(harness_channel, R11_a_lingering_socket_given_to_exec_leaves_exec)
{
	struct hx *hx = &self->hx;
	struct pollfd pfd = {.events = POLLIN};
	char answer[1024] = "";
	int peer, fds[4], answered;
	struct jr2_msg msg;
	ssize_t n;

	fx_loopback_up(_metadata);
	HX_START(hx, NULL);
	ASSERT_EQ(0, answers_within(hx, true, HELD_MS));
	fds[0] = lingering_trap(_metadata, &peer);
	ASSERT_LE(0, fds[1] = fds[2] = open("/dev/null", O_RDWR | O_CLOEXEC));
	ASSERT_LE(0, fds[3] =
			 open(HX_PROTECTED, O_PATH | O_DIRECTORY | O_CLOEXEC));
	exec_true_msg(_metadata, &msg);
	harness_stop(_metadata, hx);
	pfd.fd = control_send(msg.buf, msg.len, fds, 4);
	/* The queued message holds them: these closes are not the last. */
	close(fds[0]);
	close(fds[1]);
	close(fds[3]);
	jr2_msg_free(&msg);
	ASSERT_EQ(0, kill(hx->pid, SIGCONT));
	ASSERT_LE(0, pfd.fd);
	n = poll(&pfd, 1, HELD_MS) == 1
		? recv(pfd.fd, answer, sizeof(answer) - 1, 0)
		: -1;
	answer[n > 0 ? n : 0] = '\0';
	close(pfd.fd);
	ASSERT_EQ(0, strncmp(answer, "error 1 descriptor 3 refers to", 30))
	{
		TH_LOG("the start with a descriptor into the protected dir: "
		       "'%s'",
		       answer);
		kill(hx->pid, SIGKILL);
	}
	answered = answers_within(hx, true, HELD_MS);
	ASSERT_EQ(0, answered)
	{
		TH_LOG("exec did not succeed within %d ms (%d; 1: no answer) "
		       "once a start with a lingering stdin was refused",
		       HELD_MS, answered);
		kill(hx->pid, SIGKILL);
	}
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	close(peer);
}

/* ---- a terminal the harness logs to (R11) ---- */

/* What the log's terminal showed so far (its master, read by the test). */
struct shown {
	int master;
	size_t len;
	char text[256 * 1024];
};

/* A pty for the harness's stderr: the master (non-blocking) and the slave. */
static void log_pty(struct __test_metadata *_metadata, struct shown *t,
		    int *slave)
{
	t->len = 0;
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, t->master);
	ASSERT_EQ(0, grantpt(t->master));
	ASSERT_EQ(0, unlockpt(t->master));
	*slave = open(ptsname(t->master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, *slave);
}

/*
 * Reads the master until `needle` shows at or after offset `from`, at most
 * ms: its place in t->text, or NULL.  Nothing written there holds a NUL.
 */
static const char *shown_wait(struct shown *t, size_t from, const char *needle,
			      int ms)
{
	long long until = hx_now_ms() + ms;

	for (;;) {
		struct pollfd pfd = {.fd = t->master, .events = POLLIN};
		const char *at = from < t->len
				     ? memmem(t->text + from, t->len - from,
					      needle, strlen(needle))
				     : NULL;
		long long left = until - hx_now_ms();
		ssize_t n;

		if (at || left <= 0)
			return at;
		if (poll(&pfd, 1, (int)left) != 1)
			continue;
		n = read(t->master, t->text + t->len,
			 sizeof(t->text) - 1 - t->len);
		if (n <= 0 && errno != EAGAIN)
			return NULL;
		if (n > 0)
			t->len += (size_t)n;
		t->text[t->len] = '\0';
	}
}

/* Waits up to ms for a child; its exit status, or -1 (killed then). */
static int child_within(pid_t child, int ms)
{
	int pidfd, status = 0;
	struct pollfd pfd;
	bool done;

	if (child < 0)
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	pfd = (struct pollfd){.fd = pidfd, .events = POLLIN};
	done = pidfd >= 0 && poll(&pfd, 1, ms) == 1;
	if (!done)
		kill(child, SIGKILL);
	if (pidfd >= 0)
		close(pidfd);
	waitpid(child, &status, 0);
	if (!done)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* jr2-try `tty-flow HOW` run by exec with stdout `tty`: its status, or -1. */
static int tty_program(struct hx *hx, int tty, const char *how, int ms)
{
	pid_t client = fork();

	if (client == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(tty, 1);
		dup2(null, 2);
		execl(hx->harness, hx->harness, "exec", "--root", HX_ROOT, "--",
		      hx->try_tool, "tty-flow", how, NULL);
		_exit(127);
	}
	return child_within(client, ms);
}

/*
 * `status` within ms, its text in out: 0; 1 when it did not answer in time,
 * else its exit status.
 */
static int status_within(struct hx *hx, char *out, size_t size, int ms)
{
	int text[2], rc;
	ssize_t n = 0, got;
	pid_t child;

	out[0] = '\0';
	if (pipe2(text, O_CLOEXEC))
		return -1;
	child = fork();
	if (child == 0) {
		char mine[HX_OUT_SIZE];
		int status = hx_status(hx, mine, sizeof(mine));

		if (write(text[1], mine, strlen(mine)) < 0)
			_exit(126);
		_exit(status);
	}
	close(text[1]);
	rc = child_within(child, ms);
	while (rc >= 0 && (size_t)n < size - 1 &&
	       (got = read(text[0], out + n, size - 1 - (size_t)n)) > 0)
		n += got;
	out[n] = '\0';
	close(text[0]);
	return rc < 0 ? 1 : rc;
}

/* The number in status's `key` (0 when absent). */
static unsigned long status_number(const char *status, const char *key)
{
	char value[64];

	return hx_field(status, key, value, sizeof(value))
		   ? strtoul(value, NULL, 10)
		   : 0;
}

/*
 * A request the harness refuses and logs in one long line (~900 bytes: a
 * relative cwd of `tag` and 190 control characters, each written \xNN).
 * 0 once refused within HELD_MS.
 */
static int refuse_logged(const char *tag)
{
	char cwd[256], answer[512];
	struct pollfd pfd = {.events = POLLIN};
	struct jr2_msg msg;
	ssize_t n = -1;

	snprintf(cwd, sizeof(cwd), "%s-", tag);
	memset(cwd + strlen(cwd), '\x01', 190);
	cwd[strlen(tag) + 1 + 190] = '\0';
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "exec");
	jr2_msg_field(&msg, "arg", "/bin/true");
	jr2_msg_field(&msg, "cwd", cwd);
	pfd.fd = control_send(msg.buf, msg.len, NULL, 0);
	jr2_msg_free(&msg);
	if (pfd.fd >= 0 && poll(&pfd, 1, HELD_MS) == 1)
		n = recv(pfd.fd, answer, sizeof(answer) - 1, 0);
	if (pfd.fd >= 0)
		close(pfd.fd);
	answer[n > 0 ? n : 0] = '\0';
	return strncmp(answer, "refused request: cwd", 20) ? -1 : 0;
}

/*
 * The harness's stderr may be a terminal a program also has (jr2-harness(1)
 * EXAMPLES: `serve ... &`, then `exec` in that shell).  A program can suspend
 * its output (tcflow TCOOFF: no controlling terminal needed), and then a
 * write(2) to it does not return (n_tty_write) until someone types Ctrl-Q.
 * So the log goes through a queue that a thread writes: the loop never waits
 * for the reader.  While stopped, refusals are logged until the
 * queue holds no more (status says how many were dropped); status and exec
 * answer all along.  Once resumed, one line says how many were not written
 * (what status says), and the log works again.  Control: before the stop the
 * log reaches the terminal and status and exec answer.
 */
TEST_F_TIMEOUT(harness_channel, R11_a_stopped_terminal_leaves_status_exec, 90)
{
	static struct shown t;
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE];
	int slave, stopped_status = -1, stopped_exec = -1, refused = 0;
	unsigned long dropped_while = 0, counted = 0;
	const char *count, *line;
	long long start, stopped_ms;

	/* A refused harness would say so on the pty, not in the log file
	 * HX_START reads (its refusal is the other tests'): a skip. */
	HX_REQUIRE_ACCEPTED(hx);
	log_pty(_metadata, &t, &slave);
	hx->log_fd = slave;
	HX_START(hx, NULL);
	ASSERT_EQ(0, refuse_logged("tty-before"));
	ASSERT_NE(NULL, shown_wait(&t, 0, "cwd 'tty-before-", HELD_MS))
	{
		TH_LOG("the terminal showed: %.2000s", t.text);
	}
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	ASSERT_EQ(0, answers_within(hx, true, HELD_MS));
	ASSERT_EQ(0, tty_program(hx, slave, "off", HELD_MS));
	/* Stopped: measured first, asserted once the terminal runs again. */
	start = hx_now_ms();
	while (hx_now_ms() - start < 30000) {
		bool answered = true;

		/* A refusal unanswered: the loop is held (and status then). */
		for (int i = 0; i < 3 && answered; i++)
			refused += answered = refuse_logged("tty-stopped") == 0;
		stopped_status =
		    answered ? status_within(hx, out, sizeof(out), HELD_MS) : 1;
		dropped_while = status_number(out, "log_lines_dropped");
		if (stopped_status || dropped_while)
			break;
	}
	stopped_ms = hx_now_ms() - start;
	if (stopped_status == 0)
		stopped_exec = answers_within(hx, true, HELD_MS);
	/* The test's own TCOON, whatever the harness did. */
	ASSERT_EQ(0, tcflow(slave, TCOON));
	ASSERT_EQ(0, stopped_status)
	{
		TH_LOG("a refusal or status did not succeed within %d ms (%d; "
		       "1: no answer) while the terminal of the harness's "
		       "stderr was stopped (%d requests refused before)",
		       HELD_MS, stopped_status, refused);
	}
	ASSERT_EQ(0, stopped_exec)
	{
		TH_LOG("exec did not succeed within %d ms (%d; 1: no answer) "
		       "while the terminal of the harness's stderr was stopped",
		       HELD_MS, stopped_exec);
	}
	ASSERT_LT(0, dropped_while)
	{
		TH_LOG("no log line dropped after %d refusals in 30 s; "
		       "status: %s",
		       refused, out);
	}
	count = shown_wait(&t, 0, " log lines were not written", HELD_MS);
	ASSERT_NE(NULL, count)
	{
		TH_LOG("no count of the lines not written: %.3000s",
		       t.len > 3000 ? t.text + t.len - 3000 : t.text);
	}
	for (line = count; line > t.text && line[-1] != '\n'; line--)
		;
	ASSERT_EQ(1, sscanf(line, "jr2-harness: %lu log lines", &counted))
	{
		TH_LOG("the count's line: %.300s", line);
	}
	ASSERT_EQ(0, status_within(hx, out, sizeof(out), HELD_MS));
	ASSERT_EQ(status_number(out, "log_lines_dropped"), counted);
	ASSERT_LE(dropped_while, counted);
	TH_LOG("while stopped: %d refusals in %lld ms, status said %lu lines "
	       "dropped; once resumed the count said %lu",
	       refused, stopped_ms, dropped_while, counted);
	/*
	 * Written again, after the count.  The log passes 5 lines of a kind a
	 * second: a refusal in the flood's last second may still be counted
	 * rather than written, so one is sent each second until one shows.
	 */
	{
		const char *after = NULL;

		for (int i = 0; i < HELD_MS / 1000 && !after; i++) {
			ASSERT_EQ(0, refuse_logged("tty-after"));
			after = shown_wait(&t, (size_t)(count - t.text),
					   "cwd 'tty-after-", 1000);
		}
		ASSERT_NE(NULL, after);
	}
	close(slave);
}

/*
 * A program of an earlier harness may still hold the terminal stopped
 * (tcflow TCOOFF) when the next harness starts, and a line written before
 * the log's writer exists (E2's "dropped" line, before the re-execution)
 * would hold that start for good.  So the writer comes first: the start goes
 * on (what the reader does not take within 500 ms before the
 * re-execution is lost), and once the terminal runs the log reaches it.
 */
TEST_F_TIMEOUT(harness_channel,
	       R11_a_terminal_stopped_before_the_start_leaves_it_starting, 60)
{
	static struct shown t;
	struct hx *hx = &self->hx;
	const char *abi = getenv("JR2_MAX_ABI");
	char cap[32];
	char *envp[] = {"LD_PRELOAD=/nonexistent/evil.so", "PATH=/usr/bin:/bin",
			abi ? cap : NULL, NULL};
	int slave, rc;

	HX_REQUIRE_ACCEPTED(hx);
	snprintf(cap, sizeof(cap), "JR2_MAX_ABI=%s", abi ? abi : "");
	log_pty(_metadata, &t, &slave);
	hx->log_fd = slave;
	ASSERT_EQ(0, tcflow(slave, TCOOFF));
	rc = hx_start_env(_metadata, hx, NULL, envp);
	/* The test's own TCOON, whatever the start did. */
	ASSERT_EQ(0, tcflow(slave, TCOON));
	ASSERT_EQ(0, rc);
	ASSERT_EQ(0, answers_within(hx, true, HELD_MS));
	/* Control: the log reaches the terminal that runs again. */
	ASSERT_EQ(0, refuse_logged("tty-after"));
	ASSERT_NE(NULL, shown_wait(&t, 0, "cwd 'tty-after-", HELD_MS))
	{
		TH_LOG("the terminal showed: %.2000s", t.text);
	}
}

/*
 * The spawner wrote its start lines to that stderr itself, so a new
 * spawner, after a restart while the terminal was stopped, blocked there
 * before it said "ready": exec stopped (and a spawner the harness replaced
 * blocked again).  Now its lines go to the harness on its channel, and its
 * own stdio is /dev/null.  The spawner is killed while the output is
 * stopped: the next one is ready and exec answers; once resumed, its start
 * lines are written, before the harness's line of its generation.  Control:
 * the first spawner's lines reach the terminal.
 */
TEST_F_TIMEOUT(harness_channel,
	       R11_a_stopped_terminal_leaves_a_new_spawner_ready, 90)
{
	static struct shown t;
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE];
	int slave, exec_rc = -1, status_rc = -1;
	const char *gen2, *metadata, *helpers;
	unsigned long generation = 0;
	long long start;
	size_t mark;

	/* A refused harness would say so on the pty, not in the log file
	 * HX_START reads (its refusal is the other tests'): a skip. */
	HX_REQUIRE_ACCEPTED(hx);
	log_pty(_metadata, &t, &slave);
	hx->log_fd = slave;
	HX_START(hx, NULL);
	ASSERT_NE(NULL,
		  shown_wait(&t, 0, "jr2-harness: kernel helpers:", HELD_MS))
	{
		TH_LOG("the terminal showed: %.2000s", t.text);
	}
	ASSERT_NE(NULL,
		  shown_wait(&t, 0, "spawner generation 1 (pid", HELD_MS));
	ASSERT_EQ(0, answers_within(hx, true, HELD_MS));
	ASSERT_EQ(0, tty_program(hx, slave, "off", HELD_MS));
	mark = t.len;
	ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
	start = hx_now_ms();
	while (hx_now_ms() - start < HX_READY_MS) {
		status_rc = status_within(hx, out, sizeof(out), HELD_MS);
		generation = status_number(out, "generation");
		if (status_rc ||
		    (generation >= 2 && strstr(out, "spawner_ready: true")))
			break;
	}
	if (status_rc == 0)
		exec_rc = answers_within(hx, true, HELD_MS);
	ASSERT_EQ(0, tcflow(slave, TCOON));
	ASSERT_EQ(0, status_rc)
	{
		TH_LOG("status did not succeed within %d ms (%d; 1: no answer) "
		       "after a spawner restart while the terminal was stopped",
		       HELD_MS, status_rc);
	}
	ASSERT_EQ(2, generation)
	{
		TH_LOG("no ready spawner of generation 2 within %d ms while "
		       "the terminal was stopped: %s",
		       HX_READY_MS, out);
	}
	ASSERT_EQ(0, exec_rc)
	{
		TH_LOG("exec did not succeed within %d ms (%d; 1: no answer) "
		       "by a spawner started while the terminal was stopped",
		       HELD_MS, exec_rc);
	}
	gen2 = shown_wait(&t, mark, "spawner generation 2 (pid", HELD_MS);
	metadata = shown_wait(&t, mark, "jr2-harness: metadata:", 0);
	helpers = shown_wait(&t, mark, "jr2-harness: kernel helpers:", 0);
	ASSERT_NE(NULL, gen2)
	{
		TH_LOG("after the restart the terminal showed: %.3000s",
		       t.text + mark);
	}
	ASSERT_TRUE(metadata && metadata < gen2);
	ASSERT_TRUE(helpers && helpers < gen2);
	close(slave);
}

/*
 * The same door with job control: the harness a background job of the
 * terminal it logs to, and a program sets TOSTOP there (it is in no session
 * of that terminal, so nothing stops it); the harness's next write sent
 * SIGTTOU to its group, which stopped it: status and exec stopped until a
 * `fg`.  Now the writer thread blocks every signal, and a blocked SIGTTOU
 * counts as ignored (the kernel's tty_check_change): the line is written,
 * and nothing stops.  Control: the harness is a background job of that
 * terminal, its log reaches it, and TOSTOP took.
 */
TEST_F_TIMEOUT(harness_channel,
	       R11_tostop_on_a_background_harness_terminal_leaves_status_exec,
	       90)
{
	static struct shown t;
	struct hx *hx = &self->hx;
	int slave, stopped_status, stopped_exec = -1;
	struct termios term;
	const char *shown = NULL;
	size_t mark;

	/* A refused harness would say so on the pty, not in the log file
	 * HX_START reads (its refusal is the other tests'): a skip. */
	HX_REQUIRE_ACCEPTED(hx);
	log_pty(_metadata, &t, &slave);
	hx->log_fd = slave;
	hx->tty_job = true;
	HX_START(hx, NULL);
	ASSERT_EQ(hx->session, tcgetpgrp(t.master));
	ASSERT_EQ(hx->pid, getpgid(hx->pid));
	ASSERT_EQ(0, refuse_logged("tty-before"));
	ASSERT_NE(NULL, shown_wait(&t, 0, "cwd 'tty-before-", HELD_MS));
	mark = t.len;
	ASSERT_EQ(0, tty_program(hx, slave, "tostop", HELD_MS));
	ASSERT_EQ(0, tcgetattr(slave, &term));
	ASSERT_TRUE(term.c_lflag & TOSTOP);
	ASSERT_EQ(0, refuse_logged("tty-tostop"));
	stopped_status = answers_within(hx, false, HELD_MS);
	if (stopped_status == 0)
		stopped_exec = answers_within(hx, true, HELD_MS);
	if (stopped_exec == 0)
		shown = shown_wait(&t, mark, "cwd 'tty-tostop-", HELD_MS);
	/* Restored first, whatever the harness did: TOSTOP off, and SIGCONT. */
	term.c_lflag &= ~(tcflag_t)TOSTOP;
	ASSERT_EQ(0, tcsetattr(slave, TCSANOW, &term));
	ASSERT_EQ(0, kill(hx->pid, SIGCONT));
	ASSERT_EQ(0, stopped_status)
	{
		TH_LOG("status did not succeed within %d ms (%d; 1: no answer) "
		       "once a program set TOSTOP on the terminal of a "
		       "background harness",
		       HELD_MS, stopped_status);
	}
	ASSERT_EQ(0, stopped_exec);
	ASSERT_NE(NULL, shown)
	{
		TH_LOG("the refusal was not written with TOSTOP: %.2000s",
		       t.text + mark);
	}
	close(slave);
}

/* A connection to the Custodian socket (SOCK_STREAM); -errno. */
static int custodian_connect(void)
{
	struct sockaddr_un addr;
	int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	fx_unix_addr(&addr, HX_CUSTODIAN);
	if (sock < 0)
		return -errno;
	if (connect(sock, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = errno;

		close(sock);
		return -err;
	}
	return sock;
}

/*
 * Sends `data` on sock with n descriptors (SCM_RIGHTS, n at most
 * JR2_SCM_MAX_FD): n - 1 copies of fill, then `last`.  0 or errno.
 */
static int send_copies(int sock, const char *data, int fill, int last, int n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * JR2_SCM_MAX_FD)];
		struct cmsghdr align;
	} control = {0};
	struct iovec iov = {.iov_base = (void *)data, .iov_len = strlen(data)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * n)};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	int fds[JR2_SCM_MAX_FD];

	if (n < 1 || n > JR2_SCM_MAX_FD)
		return EINVAL;
	for (int i = 0; i < n - 1; i++)
		fds[i] = fill;
	fds[n - 1] = last;
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n);
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)strlen(data)
		   ? 0
		   : errno;
}

/*
 * The Custodian's answer on sock, up to its newline or its end, read within
 * ms: 0, or -1 when it did not come in time (out holds what came).
 */
static int answer_within(int sock, char *out, size_t size, int ms)
{
	long long deadline = hx_now_ms() + ms;
	struct pollfd pfd = {.fd = sock, .events = POLLIN};
	size_t n = 0;

	out[0] = '\0';
	while (n + 1 < size && !memchr(out, '\n', n)) {
		long long left = deadline - hx_now_ms();
		ssize_t got;

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
			return -1;
		got = recv(sock, out + n, size - 1 - n, 0);
		if (got <= 0)
			break;
		n += (size_t)got;
		out[n] = '\0';
	}
	return 0;
}

/* The first answer to an exec of /bin/true with fds[0..n): one line. */
static void exec_answer(struct __test_metadata *_metadata, const int *fds,
			size_t n, char *out, size_t size)
{
	struct jr2_msg msg;
	int sock;

	exec_true_msg(_metadata, &msg);
	sock = control_send(msg.buf, msg.len, fds, n);
	jr2_msg_free(&msg);
	ASSERT_LE(0, sock);
	ASSERT_EQ(0, answer_within(sock, out, size, HX_READY_MS));
	close(sock);
}

/*
 * R10: the spawner checks a request's descriptors as one batch and walks a
 * file once however many of them lead to it; a descriptor that is read-only
 * there clears no other one open for writing on the same file.  A file in a
 * read-only tree, passed read-only as 3 and for writing as 4: refused with
 * EPERM, naming descriptor 4.  Control: read-only as both starts.
 */
TEST_F(harness_channel, R10_a_file_read_only_once_is_not_writable_twice)
{
	struct hx *hx = &self->hx;
	const char *const config[] = {"--config", HX_ETC "/harness.conf", NULL};
	char answer[1024], want[64];
	int fds[5];

	fx_make_file(_metadata, HX_ETC "/file", "data\n", 0644);
	fx_make_file(_metadata, HX_ETC "/harness.conf", HX_TRUST_ETC, 0644);
	HX_START(hx, config);
	ASSERT_LE(0, fds[0] = fds[1] = fds[2] =
			 open("/dev/null", O_RDWR | O_CLOEXEC));
	ASSERT_LE(0, fds[3] = open(HX_ETC "/file", O_RDONLY | O_CLOEXEC));
	ASSERT_LE(0, fds[4] = open(HX_ETC "/file", O_RDONLY | O_CLOEXEC));
	exec_answer(_metadata, fds, 5, answer, sizeof(answer));
	ASSERT_EQ(0, strncmp(answer, "started ", 8))
	{
		TH_LOG("the start with descriptors read-only: '%s'", answer);
	}
	ASSERT_EQ(0, close(fds[4]));
	ASSERT_LE(0, fds[4] = open(HX_ETC "/file", O_WRONLY | O_CLOEXEC));
	exec_answer(_metadata, fds, 5, answer, sizeof(answer));
	snprintf(want, sizeof(want),
		 "error %d descriptor 4 is open for writing", EPERM);
	ASSERT_EQ(0, strncmp(answer, want, strlen(want)))
	{
		TH_LOG("the start with descriptor 4 writable: '%s'", answer);
	}
	for (int i = 2; i < 5; i++)
		ASSERT_EQ(0, close(fds[i]));
}

/* What the Custodian answers a line that holds no control Stand-in. */
#define CUSTODIAN_REFUSAL                                                      \
	"refused the request has no control Stand-in; only the Harness holds " \
	"it\n"

/*
 * The harness's RLIMIT_NOFILE may be low and hard (a container's
 * limit: raise_nofile cannot go above it), here 400 above what it holds at
 * rest (set on its process alone, prlimit).  Two Custodian connections
 * (the socket is every program's; this test is the peer) each send one line
 * with 253 socket descriptors, the last one of the second a lingering TCP
 * socket, while the harness is stopped: it accepts both in one round and
 * reads both in the next, the first connection first.  The first fills the
 * table with what it dropped and has not closed yet, so the kernel installs
 * only part of the second (MSG_CTRUNC) and releases the rest in the harness's
 * own task on its return from recvmsg: the lingering socket's last close would
 * be there.  So the peers wait while the table has no room for what one read
 * may bring, and what was dropped closes first.  Controls: status answers
 * before and once the limit is set; each connection's line is answered (read
 * whole, its descriptors dropped) before status and exec are asked.
 */
TEST_F(harness_channel, R11_a_low_nofile_limit_leaves_status_exec)
{
	struct hx *hx = &self->hx;
	char answer[512];
	struct rlimit limit, now;
	int peer, udp, tcp, sock[2], base, answered;

	fx_loopback_up(_metadata);
	HX_START(hx, NULL);
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	FX_SKIP_UNLESS_ROOT("listing the harness's descriptors");
	base = harness_fds(hx->pid);
	ASSERT_LT(0, base);
	limit.rlim_cur = limit.rlim_max = (rlim_t)base + 400;
	ASSERT_EQ(0, prlimit(hx->pid, RLIMIT_NOFILE, &limit, NULL));
	ASSERT_EQ(0, prlimit(hx->pid, RLIMIT_NOFILE, NULL, &now));
	ASSERT_EQ(limit.rlim_cur, now.rlim_cur);
	ASSERT_EQ(limit.rlim_max, now.rlim_max);
	/* The limit alone: status still answers. */
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	ASSERT_LE(0, udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	tcp = lingering_trap(_metadata, &peer);
	harness_stop(_metadata, hx);
	for (int i = 0; i < 2; i++) {
		sock[i] = custodian_connect();
		ASSERT_LE(0, sock[i])
		{
			TH_LOG("Custodian connection %d: %s", i,
			       strerror(-sock[i]));
			kill(hx->pid, SIGCONT);
		}
		ASSERT_EQ(0, send_copies(sock[i], "x\n", udp, i ? tcp : udp,
					 JR2_SCM_MAX_FD))
		{
			kill(hx->pid, SIGCONT);
		}
	}
	/* In flight only now: the harness holds the last reference. */
	close(tcp);
	close(udp);
	ASSERT_EQ(0, kill(hx->pid, SIGCONT));
	for (int i = 0; i < 2; i++) {
		answered =
		    answer_within(sock[i], answer, sizeof(answer), HELD_MS);
		ASSERT_EQ(0, answered)
		{
			TH_LOG("Custodian connection %d (%s) was not answered "
			       "within %d ms under a limit of %d descriptors",
			       i, i ? "the lingering socket last" : "sockets",
			       HELD_MS, (int)limit.rlim_max);
			kill(hx->pid, SIGKILL);
		}
		ASSERT_STREQ(CUSTODIAN_REFUSAL, answer);
		close(sock[i]);
	}
	answered = answers_within(hx, false, HELD_MS);
	ASSERT_EQ(0, answered)
	{
		TH_LOG("status did not succeed within %d ms (%d; 1: no answer) "
		       "once 2 messages of %d sockets came under a limit of %d",
		       HELD_MS, answered, JR2_SCM_MAX_FD, (int)limit.rlim_max);
		kill(hx->pid, SIGKILL);
	}
	answered = answers_within(hx, true, HELD_MS);
	ASSERT_EQ(0, answered)
	{
		TH_LOG("exec did not succeed within %d ms (%d; 1: no answer)",
		       HELD_MS, answered);
		kill(hx->pid, SIGKILL);
	}
	close(peer);
}

/*
 * A pids cgroup of the test's own, for the harness alone, in the hierarchy
 * that has the pids controller where it is mounted (the harness refuses a
 * cgroup file system outside /sys, so none of the test's own): cgroup2's,
 * enabled in its root's subtree_control while the test runs where it was
 * not, else the cgroup v1 pids hierarchy.  A guard made first, in a session
 * of its own (a timeout kills the test's process group), undoes what the
 * test did when the test ends, however it ends: the pipe carries what to
 * undo ('g' the group, 'p' the subtree_control) before each step is taken,
 * and its end says the test is over.  The guard exits 0 once all is undone.
 */
struct pids_cage {
	char group[600], root_control[600];
	int undo; /* the guard's pipe */
	pid_t guard;
};

static int cage_file(const struct pids_cage *cage, const char *name,
		     const char *text)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", cage->group, name);
	return test_write(path, text, 0);
}

static void cage_guard(const struct pids_cage *cage, int in)
{
	bool group = false, control = false, done = true;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	long long deadline;
	char step;
	ssize_t n;

	setsid();
	/* Nothing of the test's: not its output, not its sockets. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0 || dup2(in, 3) < 0)
		_exit(2);
	syscall(SYS_close_range, 4, ~0U, 0);
	while ((n = read(3, &step, 1)) == 1 || (n < 0 && errno == EINTR)) {
		if (n != 1)
			continue;
		group |= step == 'g';
		/* 'P': the +pids was refused, nothing to undo there. */
		if (step == 'p' || step == 'P')
			control = step == 'p';
	}
	deadline = hx_now_ms() + 10000;
	if (group) {
		cage_file(cage, "pids.max", "max");
		/* The harness's last tasks may still be leaving. */
		while (rmdir(cage->group) && errno == EBUSY &&
		       hx_now_ms() < deadline)
			usleep(10000);
		done = access(cage->group, F_OK) && errno == ENOENT;
	}
	if (control)
		done &= !test_write(cage->root_control, "-pids", 0);
	_exit(done ? 0 : 1);
}

/* Whether text (changed) holds `word` among the words seps separate. */
static bool words_hold(char *text, const char *seps, const char *word)
{
	char *save = NULL;

	for (char *w = strtok_r(text, seps, &save); w;
	     w = strtok_r(NULL, seps, &save))
		if (!strcmp(w, word))
			return true;
	return false;
}

/* Whether the file's first KiB holds `word` among its words. */
static bool file_has_word(const char *path, const char *word)
{
	char text[1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	return words_hold(text, " \n", word);
}

/*
 * Where the pids controller is mounted (/proc/self/mountinfo): a cgroup2
 * mount whose cgroup.controllers lists it (*v2), else a cgroup v1 mount of
 * it.  False when there is none.
 */
static bool pids_mount(char *dir, size_t size, bool *v2)
{
	FILE *mounts = fopen("/proc/self/mountinfo", "re");
	char line[2048], point[512], type[64], options[1024];
	char path[600];

	dir[0] = '\0';
	*v2 = false;
	while (mounts && !*v2 && fgets(line, sizeof(line), mounts)) {
		const char *dash = strstr(line, " - ");

		if (!dash ||
		    sscanf(line, "%*s %*s %*s %*s %511s", point) != 1 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, options) != 2)
			continue;
		snprintf(path, sizeof(path), "%s/cgroup.controllers", point);
		if (!strcmp(type, "cgroup2") && file_has_word(path, "pids")) {
			snprintf(dir, size, "%s", point);
			*v2 = true;
		} else if (!strcmp(type, "cgroup") && !dir[0] &&
			   words_hold(options, ",", "pids")) {
			snprintf(dir, size, "%s", point);
		}
	}
	if (mounts)
		fclose(mounts);
	return dir[0];
}

/* Makes the cage: NULL, or why it cannot be had here (the test skips). */
static const char *pids_cage_make(struct __test_metadata *_metadata,
				  struct pids_cage *cage, char *why,
				  size_t size)
{
	char root[512], path[700];
	int pipe_fds[2];
	bool v2;

	cage->guard = -1;
	cage->undo = -1;
	if (!pids_mount(root, sizeof(root), &v2)) {
		snprintf(why, size,
			 "no pids cgroup controller is mounted to limit the "
			 "harness with (/proc/self/mountinfo: no cgroup2 "
			 "listing pids, no cgroup v1 pids hierarchy)");
		return why;
	}
	snprintf(cage->group, sizeof(cage->group), "%s/jr2-r11-%d", root,
		 (int)getpid());
	snprintf(cage->root_control, sizeof(cage->root_control),
		 "%s/cgroup.subtree_control", root);
	ASSERT_EQ(0, pipe2(pipe_fds, O_CLOEXEC));
	cage->guard = fork();
	ASSERT_LE(0, cage->guard);
	if (cage->guard == 0) {
		close(pipe_fds[1]);
		cage_guard(cage, pipe_fds[0]);
	}
	close(pipe_fds[0]);
	cage->undo = pipe_fds[1];
	if (v2 && !file_has_word(cage->root_control, "pids")) {
		int err;

		ASSERT_EQ(1, write(cage->undo, "p", 1));
		err = test_write(cage->root_control, "+pids", 0);
		if (err) {
			ASSERT_EQ(1, write(cage->undo, "P", 1));
			snprintf(why, size,
				 "the pids controller cannot be enabled in "
				 "%.200s: %s",
				 cage->root_control, strerrorname_np(err));
			return why;
		}
	}
	ASSERT_EQ(1, write(cage->undo, "g", 1));
	if (mkdir(cage->group, 0755)) {
		ASSERT_TRUE(errno == EROFS || errno == EACCES || errno == EPERM)
		{
			TH_LOG("mkdir %s: %s", cage->group, strerror(errno));
		}
		snprintf(why, size,
			 "a pids cgroup cannot be made in %s (a read-only or "
			 "delegated cgroup tree): mkdir: %s",
			 root, strerrorname_np(errno));
		return why;
	}
	snprintf(path, sizeof(path), "%s/pids.max", cage->group);
	ASSERT_EQ(0, access(path, W_OK));
	return NULL;
}

/* Ends the guard (the test is over for it) and waits for its undoing. */
static int pids_cage_undo(struct pids_cage *cage)
{
	int status = -1;

	if (cage->undo >= 0)
		close(cage->undo);
	cage->undo = -1;
	if (cage->guard <= 0)
		return 0; /* nothing was done */
	if (waitpid(cage->guard, &status, 0) != cage->guard)
		return -1;
	cage->guard = -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* 17 lines of 253 sockets: past the 4096 descriptors the old drop list
 * held, after which it closed them in the loop. */
#define PAST_OLD_DROP_MAX 17

/*
 * No thread may be had to close what peers sent (a pids limit reached: in a
 * container, a program forks up to pids.max), so what the harness dropped
 * piles up; a bounded list would close the rest in the loop, and a line of
 * 17 x 253 sockets, then a lingering TCP socket, would make the harness's
 * last close there.  The
 * harness alone is put in a pids cgroup whose pids.max is 1, its own task
 * (its spawner stays out: exec still has programs), and its RLIMIT_NOFILE
 * is raised where it would not hold them all (a guest's 4096), so that the
 * table never fills (that is the other test's case).  The list grows and
 * the harness keeps every one (counted in its /proc fd).  Controls:
 * status answers before and inside the cgroup; the line is answered, read
 * whole, before status and exec are asked; the harness said it could not
 * make a thread.
 */
TEST_F(harness_channel, R11_no_thread_to_close_with_leaves_status_exec)
{
	const int copies = PAST_OLD_DROP_MAX * JR2_SCM_MAX_FD + 1;
	struct hx *hx = &self->hx;
	struct pids_cage cage;
	char why[256], pid[32], answer[512], log[64 * 1024];
	struct rlimit limit;
	int peer, udp, tcp, sock, base, answered, held;
	const char *skip;
	rlim_t need;

	fx_loopback_up(_metadata);
	HX_START(hx, NULL);
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	skip = pids_cage_make(_metadata, &cage, why, sizeof(why));
	if (skip) {
		ASSERT_EQ(0, pids_cage_undo(&cage));
		SKIP(return, "%s", skip);
	}
	ASSERT_EQ(0, cage_file(&cage, "cgroup.procs",
			       hx_pid_str(hx->pid, pid, sizeof(pid))));
	ASSERT_EQ(0, cage_file(&cage, "pids.max", "1"));
	base = harness_fds(hx->pid);
	ASSERT_LT(0, base);
	need = (rlim_t)base + (rlim_t)copies + 1024;
	ASSERT_EQ(0, prlimit(hx->pid, RLIMIT_NOFILE, NULL, &limit));
	if (limit.rlim_cur < need) {
		limit.rlim_cur = need;
		if (limit.rlim_max < need)
			limit.rlim_max = need;
		ASSERT_EQ(0, prlimit(hx->pid, RLIMIT_NOFILE, &limit, NULL));
	}
	/* In the cgroup, before the line: status answers. */
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	ASSERT_LE(0, udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	tcp = lingering_trap(_metadata, &peer);
	harness_stop(_metadata, hx);
	sock = custodian_connect();
	ASSERT_LE(0, sock)
	{
		TH_LOG("Custodian connection: %s", strerror(-sock));
		kill(hx->pid, SIGCONT);
	}
	/* "x" without a newline: the harness reads on, a message a read. */
	for (int i = 0; i < PAST_OLD_DROP_MAX; i++)
		ASSERT_EQ(0, send_copies(sock, "x", udp, udp, JR2_SCM_MAX_FD))
		{
			kill(hx->pid, SIGCONT);
		}
	ASSERT_EQ(0, send_copies(sock, "x\n", udp, tcp, 1))
	{
		kill(hx->pid, SIGCONT);
	}
	close(tcp);
	close(udp);
	ASSERT_EQ(0, kill(hx->pid, SIGCONT));
	answered = answer_within(sock, answer, sizeof(answer), HELD_MS);
	ASSERT_EQ(0, answered)
	{
		TH_LOG("the Custodian line of %d sockets, the lingering one "
		       "last, was not answered within %d ms with no thread to "
		       "be had",
		       copies, HELD_MS);
		kill(hx->pid, SIGKILL);
	}
	ASSERT_STREQ(CUSTODIAN_REFUSAL, answer);
	close(sock);
	answered = answers_within(hx, false, HELD_MS);
	ASSERT_EQ(0, answered)
	{
		TH_LOG("status did not succeed within %d ms (%d; 1: no answer) "
		       "once %d sockets came with no thread to be had",
		       HELD_MS, answered, copies);
		kill(hx->pid, SIGKILL);
	}
	answered = answers_within(hx, true, HELD_MS);
	ASSERT_EQ(0, answered)
	{
		TH_LOG("exec did not succeed within %d ms (%d; 1: no answer)",
		       HELD_MS, answered);
		kill(hx->pid, SIGKILL);
	}
	/* The condition held: no thread, and every one of them kept. */
	held = harness_fds(hx->pid);
	ASSERT_LE(base + copies, held);
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "cannot make a thread to close what "
				    "peers sent"))
	{
		TH_LOG("log: %.2000s", log);
	}
	/* Undone: the harness gone first, then the cgroup. */
	ASSERT_EQ(0, cage_file(&cage, "pids.max", "max"));
	hx_stop(hx);
	ASSERT_EQ(0, pids_cage_undo(&cage));
	ASSERT_EQ(-1, access(cage.group, F_OK));
	ASSERT_EQ(ENOENT, errno);
	close(peer);
}

/*
 * The program said "held N": more than the programs' 16 and fewer than the
 * clients' 128; the harness refuses some as the programs', status works,
 * then the program's descriptors' keepers end (stdin closed).
 */
static void expect_programs_budget(struct __test_metadata *_metadata,
				   struct hx *hx, struct held_program *p,
				   const char *held_line, const char *peers)
{
	char out[HX_OUT_SIZE], log[64 * 1024];
	int held = 0, status;

	ASSERT_EQ(1, sscanf(held_line, "held %d", &held))
	{
		TH_LOG("the program said: %s", held_line);
	}
	ASSERT_LT(16, held);
	for (int waited = 0; waited < 10000; waited += 50) {
		hx_log(log, sizeof(log));
		if (strstr(log, "refused a control connection"))
			break;
		usleep(50000);
	}
	ASSERT_NE(NULL, strstr(log, "refused a control connection"))
	{
		TH_LOG("%d connections of %s, none refused: they counted as "
		       "clients; log: %.2000s",
		       held, peers, log);
	}
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)))
	{
		TH_LOG("status: %s", out);
	}
	close(p->in);
	close(p->from);
	ASSERT_EQ(p->client, waitpid(p->client, &status, 0));
}

/*
 * A program's connection whose peer is gone by the time the harness looks
 * (the connecting process exited; a child of it keeps the descriptor) was
 * counted as a client's: programs could hold the clients' whole budget.
 * An unknown peer counts as a program.  The harness is stopped while the
 * peers vanish, so none is looked up before it is gone.
 */
TEST_F(harness_channel, R11_vanished_peers_take_the_programs_budget)
{
	const char *const vanish[] = {"vanish", HX_CONTROL, "60", NULL};
	struct held_program p;
	char line[256];

	HX_START(&self->hx, NULL);
	start_program(_metadata, &self->hx, vanish, &p);
	read_line(p.from, line, sizeof(line));
	ASSERT_STREQ("ready", line);
	ASSERT_EQ(0, kill(self->hx.pid, SIGSTOP));
	ASSERT_EQ(1, write(p.in, "g", 1));
	read_line(p.from, line, sizeof(line));
	ASSERT_EQ(0, kill(self->hx.pid, SIGCONT));
	expect_programs_budget(_metadata, &self->hx, &p, line,
			       "vanished peers");
}

/*
 * A peer more than 128 generations below the harness was past the walk up
 * its parents, and counted as a client: 30 connections from the bottom of
 * a chain of 200 programs are the programs' (16 at most), and status works.
 */
TEST_F(harness_channel, R11_deep_peers_take_the_programs_budget)
{
	const char *const deep[] = {"deep", HX_CONTROL, "200", "30", NULL};
	struct held_program p;
	char line[256];

	HX_START(&self->hx, NULL);
	start_program(_metadata, &self->hx, deep, &p);
	read_line(p.from, line, sizeof(line));
	expect_programs_budget(_metadata, &self->hx, &p, line,
			       "peers 200 generations down");
}

/*
 * A write lease (F_SETLEASE F_WRLCK) needs only to own the file, and a root
 * program owns its /proc/self/stat; when it connects to the control
 * socket, the harness's look at its peer (peer_is_program opens that file)
 * would wait in break_lease() for fs.lease-break-time (45 s) with its whole
 * loop.  So programs cannot take a lease (seccomp: EPERM), and the harness
 * opens /proc files O_NONBLOCK.  Control: status answers before.
 */
TEST_F(harness_channel, R11_a_lease_on_a_peers_proc_file_leaves_status)
{
	const char *const lease[] = {"lease", "self-stat", HX_CONTROL, NULL};
	struct hx *hx = &self->hx;
	struct held_program p;
	char line[256];
	int answered, status;

	HX_START(hx, NULL);
	ASSERT_EQ(0, answers_within(hx, false, HELD_MS));
	start_program(_metadata, hx, lease, &p);
	read_line(p.from, line, sizeof(line));
	/* Refused by seccomp on every kernel, before the kernel's own check. */
	ASSERT_STREQ("lease EPERM deleg EPERM", line);
	read_line(p.from, line, sizeof(line));
	ASSERT_STREQ("held", line);
	answered = answers_within(hx, false, HELD_MS);
	EXPECT_EQ(0, answered)
	{
		TH_LOG("status did not succeed within %d ms (%d; 1: no answer) "
		       "while a program that leased its /proc stat was "
		       "connected",
		       HELD_MS, answered);
	}
	close(p.in);
	close(p.from);
	ASSERT_EQ(p.client, waitpid(p.client, &status, 0));
}

/*
 * A lease on an executable no one runs holds the next exec of it in execve
 * (open_exec -> break_lease) for fs.lease-break-time (45 s): the spawner's
 * vfork child, and the spawner with it.  So a program's lease is refused
 * (EPERM): both run.
 */
TEST_F(harness_channel, R11_a_lease_on_an_executable_leaves_exec)
{
	const char *const lease[] = {"lease", HX_MNT "/tool", "-", NULL};
	const char *const tool[] = {HX_MNT "/tool", NULL};
	struct hx *hx = &self->hx;
	struct held_program p;
	char line[256], out[HX_OUT_SIZE];
	int status, rc;
	pid_t client;

	fx_make_file(_metadata, HX_MNT "/tool", "#!/bin/sh\nexit 7\n", 0755);
	HX_START(hx, NULL);
	start_program(_metadata, hx, lease, &p);
	read_line(p.from, line, sizeof(line));
	/* Refused by seccomp on every kernel, before the kernel's own check. */
	ASSERT_STREQ("lease EPERM deleg EPERM", line);
	read_line(p.from, line, sizeof(line));
	ASSERT_STREQ("held", line);
	client = fork();
	ASSERT_LE(0, client);
	if (client == 0)
		_exit(hx_exec(hx, tool, out, sizeof(out)));
	rc = answers_within(hx, true, HELD_MS);
	EXPECT_EQ(0, rc)
	{
		TH_LOG("exec /bin/true did not succeed within %d ms (%d) after "
		       "an exec of a leased file",
		       HELD_MS, rc);
	}
	/* The leased file's own exec: its status, 7, not a hang. */
	for (int waited = 0; waited < HELD_MS; waited += 50) {
		if (waitpid(client, &status, WNOHANG) == client)
			break;
		usleep(50000);
	}
	if (waitpid(client, &status, WNOHANG) == 0) {
		kill(client, SIGKILL);
		waitpid(client, &status, 0);
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7)
	{
		TH_LOG("exec of the leased file: status 0x%x", status);
	}
	close(p.in);
	close(p.from);
	ASSERT_EQ(p.client, waitpid(p.client, &status, 0));
}

/*
 * A client value with a newline must not forge a line of the harness's log:
 * every control character of it is written as \xNN.
 */
TEST_F(harness_channel, R11_client_values_cannot_forge_log_lines)
{
	struct hx *hx = &self->hx;
	const char *forged = "jr2-harness: spawner generation 77 (pid 1) "
			     "forged";
	char value[256], log[HX_OUT_SIZE], answer[2048];
	struct jr2_msg msg;
	int sock;

	HX_START(hx, NULL);
	snprintf(value, sizeof(value), "x\n%s", forged);
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", value);
	sock = control_send(msg.buf, msg.len, NULL, 0);
	ASSERT_LE(0, sock);
	ASSERT_LT(0, recv(sock, answer, sizeof(answer) - 1, 0));
	close(sock);
	jr2_msg_free(&msg);
	/* The log holds the value, escaped, on the refusal's own line. */
	for (int waited = 0; waited < 2000; waited += 10) {
		hx_log(log, sizeof(log));
		if (strstr(log, "unknown op"))
			break;
		usleep(10000);
	}
	ASSERT_NE(NULL, strstr(log, "unknown op 'x\\x0ajr2-harness: spawner "
				    "generation 77"))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_EQ(NULL, strstr(log, "\njr2-harness: spawner generation 77"))
	{
		TH_LOG("a forged line: %s", log);
	}
}

/* Runs argv; its first output line and exit status, and how long it took. */
static int run_timed(char *const argv[], char *out, size_t size, long *ms)
{
	struct timespec t0, t1;
	int status = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fx_run(argv, out, size, &status))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	      (t1.tv_nsec - t0.tv_nsec) / 1000000;
	return status;
}

/*
 * Whether a process of init's pid namespace has one of `pids` (as that
 * namespace numbers them): the last NSpid field of each process whose pid
 * namespace is init's.  -1 when /proc cannot tell.
 */
static int ns_pids_in_use(pid_t init, const pid_t *pids, int n)
{
	char path[300], ns[64], their[64], line[256];
	struct dirent *entry;
	int found = 0;
	DIR *proc;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)init);
	if (readlink(path, ns, sizeof(ns)) <= 0 || !(proc = opendir("/proc")))
		return -1;
	while (!found && (entry = readdir(proc))) {
		ssize_t len;
		FILE *status;

		if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/pid", entry->d_name);
		memset(their, 0, sizeof(their));
		len = readlink(path, their, sizeof(their));
		if (len <= 0 || strncmp(ns, their, (size_t)len))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", entry->d_name);
		status = fopen(path, "re");
		while (status && !found && fgets(line, sizeof(line), status)) {
			char *last = strrchr(line, '\t');

			if (strncmp(line, "NSpid:", 6) || !last)
				continue;
			for (int i = 0; i < n && !found; i++)
				found = atoi(last + 1) == pids[i];
		}
		if (status)
			fclose(status);
	}
	closedir(proc);
	return found;
}

/*
 * A program leaves orphans that exit 42, then the next program is
 * given one of their pids (ns_last_pid, in a pid namespace of the test's
 * own); its client must get its own program's status (7, after 300 ms),
 * not 42 at once.  The harness matches exits by pidfd and keeps no record of
 * orphans.
 */
TEST_F(harness_channel, P7_client_gets_its_own_programs_status_only)
{
	struct hx *hx = &self->hx;
	char out[HX_OUT_SIZE], orphans[HX_OUT_SIZE], last[32];
	char *const make_orphans[] = {
	    hx->harness, "exec", "--root", HX_ROOT, "--", hx->try_tool,
	    "orphans",	 "40",	 "300",	   "42",    NULL};
	char *const mine[] = {
	    hx->harness,  "exec",	    "--root", HX_ROOT, "--",
	    hx->try_tool, "pid-sleep-exit", "300",    "7",     NULL};
	pid_t init, setter, harness, lowest = 0, program, orphan[40];
	long ms = 0;
	int status, n_orphans = 0, in_use = 1;

	HX_REQUIRE_ACCEPTED(hx);
	/* The reproducer picks the next pid with ns_last_pid, which only a
	 * kernel with CONFIG_CHECKPOINT_RESTORE has. */
	if (access("/proc/sys/kernel/ns_last_pid", F_OK))
		SKIP(return,
			   "/proc/sys/kernel/ns_last_pid: %s (a kernel without "
			   "CONFIG_CHECKPOINT_RESTORE): the pid of a new "
			   "program "
			   "cannot be chosen, so pid reuse cannot be arranged",
			   strerrorname_np(errno));
	/* A pid namespace of its own: ns_last_pid there touches no one. */
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's pid namespace");
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	init = fork();
	ASSERT_LE(0, init);
	if (init == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			if (wait(NULL) < 0)
				pause();
	}
	HX_START(hx, NULL);
	/* Its pids are the namespace's: hx_stop must not kill by them. */
	harness = hx->pid;
	hx->pid = 0;
	ASSERT_EQ(0, run_timed(make_orphans, orphans, sizeof(orphans), &ms));
	for (char *tok = strtok(orphans, " \n"); tok && n_orphans < 40;
	     tok = strtok(NULL, " \n")) {
		orphan[n_orphans++] = atoi(tok);
		if (!lowest || atoi(tok) < lowest)
			lowest = atoi(tok);
	}
	ASSERT_LT(0, lowest);
	/* The orphans exited 42 and were reaped: none of their pids is in
	 * use in the namespace any more (bounded: 10 s). */
	for (int waited = 0; waited < 10000 && in_use > 0; waited += 10) {
		in_use = ns_pids_in_use(init, orphan, n_orphans);
		if (in_use > 0)
			usleep(10000);
	}
	ASSERT_EQ(0, in_use)
	{
		TH_LOG("the orphans' pids are still in use after 10 s "
		       "(or /proc cannot tell: %d)",
		       in_use);
	}
	/* The next pids of the namespace are the orphans' own. */
	snprintf(last, sizeof(last), "%d", (int)lowest - 1);
	setter = fork();
	ASSERT_LE(0, setter);
	if (setter == 0) {
		int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);

		_exit(fd >= 0 && write(fd, last, strlen(last)) > 0 ? 0 : 1);
	}
	ASSERT_EQ(setter, waitpid(setter, &status, 0));
	ASSERT_EQ(0, status)
	{
		TH_LOG("cannot write ns_last_pid in the test's pid namespace");
	}
	ASSERT_EQ(7, run_timed(mine, out, sizeof(out), &ms))
	{
		TH_LOG("the client got another program's status: %s", out);
	}
	ASSERT_LE(250, ms);
	/* The reproducer held: the program had an orphan's pid. */
	program = atoi(out);
	ASSERT_LE(lowest, program);
	ASSERT_GT(lowest + 40, program)
	{
		TH_LOG("program pid %d is not one of the orphans' (%d-%d)",
		       (int)program, (int)lowest, (int)lowest + 39);
	}
	kill(init, SIGKILL);
	waitpid(harness, NULL, 0);
	waitpid(init, NULL, 0);
}

/* True when `needle` is in pid's memory (its writable mappings). */
static bool memory_holds(pid_t pid, const char *needle)
{
	char path[64], line[512];
	size_t len = strlen(needle);
	bool found = false;
	FILE *maps;
	int mem;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "re");
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	while (maps && mem >= 0 && !found && fgets(line, sizeof(line), maps)) {
		unsigned long start, end;
		char perms[8];
		char *buf;

		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
		    perms[0] != 'r' || perms[1] != 'w' ||
		    end - start > (64 << 20))
			continue;
		buf = malloc(end - start);
		if (buf && pread(mem, buf, end - start, (off_t)start) ==
			       (ssize_t)(end - start))
			found = memmem(buf, end - start, needle, len) != NULL;
		free(buf);
	}
	if (maps)
		fclose(maps);
	if (mem >= 0)
		close(mem);
	return found;
}

/*
 * The spawner, a fork of the harness, would keep the control Stand-in in
 * its memory: it holds no Stand-in and no bearer (the test, root,
 * reads its memory; the harness itself still holds them: positive control).
 */
TEST_F(harness_channel, E5_spawner_memory_holds_no_standin_or_bearer)
{
	struct hx *hx = &self->hx;
	const char *const with_secret[] = {"--secret", "GH_TOKEN", NULL};
	const char *const truth[] = {"/bin/true", NULL};
	char text[4096], control[128], token[128], bearer[128],
	    out[HX_OUT_SIZE];
	const char *const extra[] = {"--config", HX_ETC "/harness.conf", NULL};
	char *at;
	int fd;
	ssize_t n;

	fx_make_file(_metadata, HX_ETC "/harness.conf",
		     "secret GH_TOKEN\n" HX_TRUST_ETC, 0644);
	HX_START(hx, extra);
	/* A request with a Stand-in went through the spawner. */
	ASSERT_EQ(0, hx_exec_opts(hx, with_secret, truth, out, sizeof(out)));
	fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	text[n] = '\0';
	ASSERT_NE(NULL, at = strstr(text, "control="));
	snprintf(control, sizeof(control), "%.*s", (int)strcspn(at + 8, "\n"),
		 at + 8);
	ASSERT_NE(NULL, at = strstr(text, "GH_TOKEN="));
	snprintf(token, sizeof(token), "%.*s", (int)strcspn(at + 9, "\n"),
		 at + 9);
	hx_bearer(_metadata, bearer, sizeof(bearer));
	FX_SKIP_WITHOUT_CAP(CAP_SYS_PTRACE, "reading the harness's memory");
	ASSERT_TRUE(memory_holds(hx->pid, control));
	ASSERT_FALSE(memory_holds(hx->spawner, control));
	ASSERT_FALSE(memory_holds(hx->spawner, token));
	ASSERT_FALSE(memory_holds(hx->spawner, bearer));
}

/*
 * A spawn message that grows by realloc() leaves, in the freed old blocks,
 * the Stand-ins written before each growth, and a spawner forked after such
 * requests (any generation after the first: a program may kill its spawner)
 * inherits them.  Twelve secrets a request: their fields span more than one
 * doubling of the message, whatever comes before them.  No later spawner
 * holds a Stand-in of an earlier request (the harness
 * itself holds each: positive control).
 */
#define N_HELD 12
TEST_F(harness_channel, E5_later_spawner_inherits_no_standin_of_requests)
{
	struct hx *hx = &self->hx;
	const char *opts[2 * N_HELD + 1] = {NULL};
	const char *const truth[] = {"/bin/true", NULL};
	const char *const extra[] = {"--config", HX_ETC "/harness.conf", NULL};
	char conf[64 * N_HELD + 256] = "", names[N_HELD][16];
	char value[N_HELD][128], control[128], out[HX_OUT_SIZE];
	unsigned int generation;
	int held = 0;

	for (int i = 0; i < N_HELD; i++) {
		snprintf(names[i], sizeof(names[i]), "HELD_%02d", i);
		snprintf(conf + strlen(conf), sizeof(conf) - strlen(conf),
			 "secret %s\n", names[i]);
		opts[2 * i] = "--secret";
		opts[2 * i + 1] = names[i];
	}
	strcat(conf, HX_TRUST_ETC);
	fx_make_file(_metadata, HX_ETC "/harness.conf", conf, 0644);
	HX_START(hx, extra);
	/* Requests of other sizes: blocks of other places in the heap. */
	for (int i = 0; i < 4; i++) {
		static char pad[4][4096];
		const char *const padded[] = {"/bin/true", pad[i], NULL};

		memset(pad[i], 'x', (size_t)(i * 700));
		ASSERT_EQ(0, hx_exec_opts(hx, opts, i ? padded : truth, out,
					  sizeof(out)));
	}
	hx_standin(_metadata, "control", control, sizeof(control));
	for (int i = 0; i < N_HELD; i++) {
		hx_standin(_metadata, names[i], value[i], sizeof(value[i]));
		FX_SKIP_WITHOUT_CAP(CAP_SYS_PTRACE,
				    "reading the harness's memory");
		ASSERT_TRUE(memory_holds(hx->pid, value[i]));
	}
	generation = hx->generation;
	ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
	hx_wait_ready(_metadata, hx, generation + 1);
	ASSERT_EQ(generation + 1, hx->generation);
	for (int i = 0; i < N_HELD; i++)
		if (memory_holds(hx->spawner, value[i])) {
			TH_LOG("generation %u's spawner holds the Stand-in of "
			       "%s",
			       hx->generation, names[i]);
			held++;
		}
	ASSERT_EQ(0, held);
	ASSERT_FALSE(memory_holds(hx->spawner, control));
}

/* A Custodian connection that sent `line`; its start in *start. */
static int custodian_send(struct __test_metadata *_metadata, const char *line,
			  long long *start)
{
	struct sockaddr_un addr;
	struct timeval wait = {.tv_sec = 12};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*start = hx_now_ms();
	ASSERT_LE(0, fd);
	fx_unix_addr(&addr, HX_CUSTODIAN);
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(0,
		  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)));
	ASSERT_EQ((ssize_t)strlen(line), write(fd, line, strlen(line)));
	return fd;
}

/* Its answer (waited for at most 12 s), closing fd; `ms`: since its start,
 * `closed`: whether the harness ended it. */
static void custodian_answer(int fd, long long start, char *answer, size_t size,
			     long long *ms, bool *closed)
{
	ssize_t n = read(fd, answer, size - 1);
	char more;

	answer[n > 0 ? n : 0] = '\0';
	*ms = hx_now_ms() - start;
	*closed = n > 0 && read(fd, &more, 1) == 0;
	close(fd);
}

/*
 * A Custodian connection that sends part of a line and waits finds, read
 * again at its deadline, nothing (EAGAIN); kept, its deadline past, it would
 * have the loop poll with timeout 0 for as long as the peer waits (a core at
 * 100 %, and a slot of the Custodian's budget held).  So the part that came
 * is answered at the deadline (--request-timeout-ms, short
 * here) and the connection ends: without the control Stand-in refused, with
 * it accepted (as a full buffer is judged), and a whole line at once
 * (positive control).  A control connection that sends nothing is refused
 * at the same deadline.  The three wait for it together.
 */
#define PARTIAL_DEADLINE_MS 2000

static void deadline_answered(struct __test_metadata *_metadata,
			      const char *expected, const char *answer,
			      long long ms, bool closed)
{
	ASSERT_STREQ(expected, answer)
	{
		TH_LOG("no such answer within %lld ms", ms);
	}
	ASSERT_TRUE(closed);
	ASSERT_LE(PARTIAL_DEADLINE_MS * 9 / 10, ms);
	ASSERT_GT(PARTIAL_DEADLINE_MS + 3000, ms);
}

TEST_F(harness_channel,
       R11_a_partial_custodian_line_is_answered_at_its_deadline)
{
	static const char refused[] = "refused the request has no control "
				      "Stand-in; only the Harness holds it\n";
	char flag[16], control[128], line[160], answer[256],
	    silent_refused[160], status[HX_OUT_SIZE];
	const char *const deadline[] = {"--request-timeout-ms", flag, NULL};
	struct hx *hx = &self->hx;
	long long ms, start, start_bare, start_control, start_silent;
	struct timeval wait = {.tv_sec = 12};
	int bare, with_control, silent;
	struct sockaddr_un addr;
	bool closed;
	ssize_t n;

	snprintf(flag, sizeof(flag), "%d", PARTIAL_DEADLINE_MS);
	snprintf(silent_refused, sizeof(silent_refused),
		 "refused no request within %d ms of connecting; send the "
		 "request right after connecting\n",
		 PARTIAL_DEADLINE_MS);
	HX_START(hx, deadline);
	hx_standin(_metadata, "control", control, sizeof(control));
	bare = custodian_send(_metadata, "partial\n", &start);
	custodian_answer(bare, start, answer, sizeof(answer), &ms, &closed);
	ASSERT_STREQ(refused, answer);
	ASSERT_TRUE(closed);
	ASSERT_GT(PARTIAL_DEADLINE_MS / 2, ms);
	snprintf(line, sizeof(line), "%s GET /x", control);
	bare = custodian_send(_metadata, "partial", &start_bare);
	with_control = custodian_send(_metadata, line, &start_control);
	start_silent = hx_now_ms();
	silent = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, silent);
	fx_unix_addr(&addr, HX_CONTROL);
	ASSERT_EQ(0, connect(silent, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(0, setsockopt(silent, SOL_SOCKET, SO_RCVTIMEO, &wait,
				sizeof(wait)));
	custodian_answer(bare, start_bare, answer, sizeof(answer), &ms,
			 &closed);
	deadline_answered(_metadata, refused, answer, ms, closed);
	custodian_answer(with_control, start_control, answer, sizeof(answer),
			 &ms, &closed);
	deadline_answered(_metadata,
			  "ok request accepted with the control Stand-in\n",
			  answer, ms, closed);
	n = recv(silent, answer, sizeof(answer) - 1, 0);
	answer[n > 0 ? n : 0] = '\0';
	ms = hx_now_ms() - start_silent;
	closed = n > 0 && recv(silent, line, 1, 0) == 0;
	close(silent);
	deadline_answered(_metadata, silent_refused, answer, ms, closed);
	/* The harness serves on. */
	ASSERT_EQ(0, hx_status(hx, status, sizeof(status)));
	ASSERT_STREQ("true",
		     hx_field(status, "spawner_ready", answer, sizeof(answer)));
}

TEST_HARNESS_MAIN
