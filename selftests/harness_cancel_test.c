// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program ends when its client says so or goes away: `jr2-harness exec`
 * passes the signals a parent sends it on to its program and exits with the
 * program's status; a client that goes away while its program runs takes
 * the program and its session with it (SIGTERM, then SIGKILL after
 * --stop-grace-ms); a server that left the session, or that outlives its
 * command's normal end, stays.  Ends are seen on pidfds, never guessed by a
 * sleep.  Also `status` whole, however many programs and trees.
 *
 * Promises: P9
 */
#include <sys/syscall.h>

#include "harness_helpers.h"

#define GRACE_MS 1000
#define MARKS	 HX_MNT "/marks"

HX_FIXTURE(harness_cancel);

/* `jr2-harness exec -- jr2-try VERB...` in the background, output to
 * /dev/null; the client's pid. */
static pid_t start_client(struct hx *hx, const char *const verb[])
{
	pid_t client = fork();

	if (client == 0) {
		char *argv[16] = {hx->harness, "exec", "--root",
				  HX_ROOT,     "--",   hx->try_tool};
		int null = open("/dev/null", O_RDWR), n = 6;

		for (int i = 0; verb[i] && n < 15; i++)
			argv[n++] = (char *)verb[i];
		argv[n] = NULL;
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(hx->harness, argv);
		_exit(127);
	}
	return client;
}

/* The contents of path once it exists (a whole write: rename). */
static bool wait_file(const char *path, char *out, size_t size)
{
	for (int waited = 0; waited < HX_READY_MS; waited += 5) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			ssize_t n = read(fd, out, size - 1);

			close(fd);
			out[n > 0 ? n : 0] = '\0';
			return true;
		}
		usleep(5000);
	}
	return false;
}

/* Whether the process of pidfd ends within ms (its pidfd polls readable). */
static bool ends_within(int pidfd, int ms)
{
	struct pollfd pfd = {.fd = pidfd, .events = POLLIN};

	return poll(&pfd, 1, ms) == 1;
}

static int pidfd_of(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Each signal a parent sends the client reaches the program, whose exit
 * status (it exits with the signal's number) the client keeps. */
TEST_F(harness_cancel, P9_exec_passes_on_each_signal)
{
	static const int sigs[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT,
				   SIGUSR1, SIGUSR2, SIGWINCH};
	struct hx *hx = &self->hx;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, NULL);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char path[PATH_MAX], ready[PATH_MAX + 8], text[32];
		const char *verb[] = {"on-signal", path, NULL};
		pid_t client;

		snprintf(path, sizeof(path), MARKS "/sig-%d", sigs[i]);
		snprintf(ready, sizeof(ready), "%s.ready", path);
		client = start_client(hx, verb);
		ASSERT_TRUE(wait_file(ready, text, sizeof(text)));
		ASSERT_EQ(0, kill(client, sigs[i]));
		ASSERT_EQ(sigs[i], fx_exit_code(client))
		{
			TH_LOG("signal %d: %s", sigs[i], strsignal(sigs[i]));
		}
		ASSERT_TRUE(wait_file(path, text, sizeof(text)));
		ASSERT_EQ(sigs[i], atoi(text));
	}
}

/* A program killed by the signal passed on: the client exits 128+N. */
TEST_F(harness_cancel, P9_exec_exits_128_plus_the_signal)
{
	const char *verb[] = {"session", "exit", MARKS "/s", NULL};
	const char *sleeper[] = {"sleep", NULL};
	struct hx *hx = &self->hx;
	char text[64];
	pid_t client;
	int pid, child, fd;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, NULL);
	/* Control: a program that exits 0 gives 0. */
	client = start_client(hx, verb);
	ASSERT_EQ(0, fx_exit_code(client));
	ASSERT_TRUE(wait_file(MARKS "/s.ready", text, sizeof(text)));
	ASSERT_EQ(2, sscanf(text, "%d %d", &pid, &child));
	kill(child, SIGKILL);
	client = start_client(hx, sleeper);
	/* The sleeper runs once status lists a program. */
	for (int waited = 0;; waited += 5) {
		char out[HX_OUT_SIZE], value[256];

		ASSERT_LT(waited, HX_READY_MS);
		if (hx_status(hx, out, sizeof(out)) == 0 &&
		    hx_field(out, "programs", value, sizeof(value)) &&
		    value[0] && (pid = atoi(value)) > 0)
			break;
		usleep(5000);
	}
	fd = pidfd_of(pid);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kill(client, SIGTERM));
	ASSERT_EQ(128 + SIGTERM, fx_exit_code(client));
	ASSERT_TRUE(ends_within(fd, 0));
	close(fd);
}

/*
 * SIGKILL of the client while its program runs: the program and its child
 * (in another process group of its session) go.  mode "catch": both end on
 * the SIGTERM, well within the grace; "ignore": both are still there at
 * half the grace, and gone by SIGKILL after it.
 */
static void cancel_by_sigkill(struct __test_metadata *_metadata, struct hx *hx,
			      const char *mode)
{
	const char *const extra[] = {"--stop-grace-ms", "1000", NULL};
	char path[PATH_MAX], ready[PATH_MAX + 8], text[64];
	const char *verb[] = {"session", mode, path, NULL};
	int pid, child, fds[2];
	pid_t client;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, extra);
	snprintf(path, sizeof(path), MARKS "/%s", mode);
	snprintf(ready, sizeof(ready), "%s.ready", path);
	client = start_client(hx, verb);
	ASSERT_TRUE(wait_file(ready, text, sizeof(text)));
	ASSERT_EQ(2, sscanf(text, "%d %d", &pid, &child));
	fds[0] = pidfd_of(pid);
	fds[1] = pidfd_of(child);
	ASSERT_LE(0, fds[0]);
	ASSERT_LE(0, fds[1]);
	/* Control: both run while their client does. */
	ASSERT_FALSE(ends_within(fds[0], 0));
	ASSERT_FALSE(ends_within(fds[1], 0));
	ASSERT_EQ(0, kill(client, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, fx_exit_code(client));
	if (!strcmp(mode, "ignore")) {
		ASSERT_FALSE(ends_within(fds[0], GRACE_MS / 2))
		{
			TH_LOG("SIGKILL came before the grace was over");
		}
		ASSERT_FALSE(ends_within(fds[1], 0));
	}
	for (int i = 0; i < 2; i++) {
		ASSERT_TRUE(ends_within(fds[i], strcmp(mode, "ignore")
						    ? GRACE_MS / 2
						    : GRACE_MS + 3000))
		{
			TH_LOG("%s %d still runs after its client was killed",
			       i ? "the child" : "the program",
			       i ? child : pid);
		}
		close(fds[i]);
	}
}

TEST_F(harness_cancel, P9_client_killed_program_ends_on_sigterm)
{
	cancel_by_sigkill(_metadata, &self->hx, "catch");
}

TEST_F(harness_cancel, P9_client_killed_program_ignoring_sigterm_killed)
{
	cancel_by_sigkill(_metadata, &self->hx, "ignore");
}

/*
 * What a cancel leaves: a server that left the session (setsid) when its
 * program is cancelled, and a child of the session when its program ended
 * normally (no cancel: its client got the exit status).
 */
TEST_F(harness_cancel, P9_servers_started_on_purpose_stay)
{
	const char *const extra[] = {"--stop-grace-ms", "1000", NULL};
	const char *setsid_verb[] = {"session", "setsid", MARKS "/d", NULL};
	const char *exit_verb[] = {"session", "exit", MARKS "/e", NULL};
	struct hx *hx = &self->hx;
	int pid, child, fds[2];
	char text[64];
	pid_t client;

	fx_make_dir(_metadata, MARKS, 0755);
	HX_START(hx, extra);
	client = start_client(hx, setsid_verb);
	ASSERT_TRUE(wait_file(MARKS "/d.ready", text, sizeof(text)));
	ASSERT_EQ(2, sscanf(text, "%d %d", &pid, &child));
	fds[0] = pidfd_of(pid);
	fds[1] = pidfd_of(child);
	ASSERT_EQ(0, kill(client, SIGKILL));
	fx_exit_code(client);
	/* The program goes (positive control), its server stays past the
	 * grace. */
	ASSERT_TRUE(ends_within(fds[0], GRACE_MS / 2));
	ASSERT_FALSE(ends_within(fds[1], GRACE_MS + 1000));
	close(fds[0]);
	close(fds[1]);
	kill(child, SIGKILL);

	client = start_client(hx, exit_verb);
	ASSERT_EQ(0, fx_exit_code(client));
	ASSERT_TRUE(wait_file(MARKS "/e.ready", text, sizeof(text)));
	ASSERT_EQ(2, sscanf(text, "%d %d", &pid, &child));
	fds[1] = pidfd_of(child);
	ASSERT_LE(0, fds[1]);
	ASSERT_FALSE(ends_within(fds[1], GRACE_MS + 1000));
	close(fds[1]);
	kill(child, SIGKILL);
}

/*
 * `op signal` of signo to the program of request `id`, with the bearer
 * (NULL: none); the answer in out.
 */
static void signal_request(struct __test_metadata *_metadata,
			   const char *bearer, const char *id,
			   const char *signo, char *out, size_t size)
{
	struct jr2_msg msg;

	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "signal");
	if (bearer)
		jr2_msg_field(&msg, "bearer", bearer);
	jr2_msg_field(&msg, "id", id);
	jr2_msg_field(&msg, "signal", signo);
	ASSERT_FALSE(msg.failed);
	hx_control_raw(_metadata, msg.buf, msg.len, NULL, 0, out, size);
	jr2_msg_free(&msg);
}

/*
 * op signal: with the bearer, to the program of the id its "started" gave
 * (status lists it); refused without the bearer; ESRCH for an id that runs
 * nothing.
 */
TEST_F(harness_cancel, P9_signal_request_by_id)
{
	const char *sleeper[] = {"sleep", NULL};
	struct hx *hx = &self->hx;
	char bearer[256], id[32] = "", out[HX_OUT_SIZE], *at;
	struct jr2_msg status;
	pid_t client;
	int pid = 0, fd;

	HX_START(hx, NULL);
	hx_bearer(_metadata, bearer, sizeof(bearer));
	jr2_msg_init(&status);
	jr2_msg_field(&status, "op", "status");
	jr2_msg_field(&status, "bearer", bearer);
	jr2_msg_field(&status, "json", "1");
	ASSERT_FALSE(status.failed);
	client = start_client(hx, sleeper);
	for (int waited = 0; !id[0]; waited += 5) {
		ASSERT_LT(waited, HX_READY_MS);
		hx_control_raw(_metadata, status.buf, status.len, NULL, 0, out,
			       sizeof(out));
		at = strstr(out, "{\"pid\": ");
		if (at) {
			ASSERT_EQ(2, sscanf(at,
					    "{\"pid\": %d, \"generation\": "
					    "%*u, \"id\": %31[0-9]",
					    &pid, id));
		} else {
			usleep(5000);
		}
	}
	jr2_msg_free(&status);
	fd = pidfd_of(pid);
	ASSERT_LE(0, fd);
	/* Without the bearer: refused, the program runs on. */
	signal_request(_metadata, NULL, id, "15", out, sizeof(out));
	ASSERT_EQ(0, strncmp(out, "refused no bearer", 17))
	{
		TH_LOG("answer: %s", out);
	}
	ASSERT_FALSE(ends_within(fd, 0));
	/* An id that runs nothing. */
	signal_request(_metadata, bearer, "9999999", "15", out, sizeof(out));
	ASSERT_EQ(0, strncmp(out, "error 3 ", 8))
	{
		TH_LOG("answer: %s", out);
	}
	ASSERT_FALSE(ends_within(fd, 0));
	/* Its own id: the program ends by the signal, its client says so. */
	signal_request(_metadata, bearer, id, "9", out, sizeof(out));
	ASSERT_EQ(0, strncmp(out, "signalled ", 10))
	{
		TH_LOG("answer: %s", out);
	}
	ASSERT_TRUE(ends_within(fd, HX_READY_MS));
	ASSERT_EQ(128 + SIGKILL, fx_exit_code(client));
	close(fd);
}

/* Occurrences of needle in haystack. */
static int count_of(const char *haystack, const char *needle)
{
	int n = 0;

	for (const char *at = haystack; (at = strstr(at, needle)); at++)
		n++;
	return n;
}

/*
 * `status` with 80 programs running and 60 read-only trees: the answer
 * arrives whole (text and JSON), every program and every tree in it.
 */
TEST_F(harness_cancel, P9_status_whole_with_many_programs_and_trees)
{
	enum { PROGRAMS = 80, TREES = 60 };
	const char *const extra[] = {"--config", HX_ETC "/harness.conf", NULL};
	const char *sleeper[] = {"sleep", NULL};
	static char conf[TREES * 80 + 256], out[256 * 1024];
	struct hx *hx = &self->hx;
	pid_t clients[PROGRAMS];
	size_t used;
	int status = -1;

	used = (size_t)snprintf(conf, sizeof(conf), "%s", HX_TRUST_ETC);
	fx_make_dir(_metadata, HX_MNT "/ro", 0755);
	/* Each tree in a folder of its own: that folder is frozen (an
	 * ancestor), listed as "<folder> (ancestor of <tree>)". */
	for (int i = 0; i < TREES; i++) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir),
			 HX_MNT "/ro/a-folder-named-at-some-length-%02d", i);
		fx_make_dir(_metadata, dir, 0755);
		strcat(dir, "/tree");
		fx_make_dir(_metadata, dir, 0755);
		used += (size_t)snprintf(conf + used, sizeof(conf) - used,
					 "read-only %s\n", dir);
	}
	fx_make_file(_metadata, HX_ETC "/harness.conf", conf, 0644);
	HX_START(hx, extra);
	for (int i = 0; i < PROGRAMS; i++)
		clients[i] = start_client(hx, sleeper);
	for (int json = 0; json < 2; json++) {
		char *args[] = {hx->harness,
				"status",
				"--root",
				HX_ROOT,
				json ? "--json" : NULL,
				NULL};

		for (int waited = 0;; waited += 20) {
			ASSERT_LT(waited, 4 * HX_READY_MS);
			ASSERT_EQ(0, fx_run(args, out, sizeof(out), &status));
			ASSERT_EQ(0, status)
			{
				TH_LOG("status: %.300s", out);
			}
			if (count_of(out, json ? "{\"pid\": " : "/1") >=
			    PROGRAMS)
				break;
			usleep(20000);
		}
		ASSERT_EQ(TREES, count_of(out, "/tree)"))
		{
			TH_LOG("status is %zu bytes: %s", strlen(out), out);
		}
		if (json) {
			size_t len = strlen(out);

			ASSERT_EQ('{', out[0]);
			ASSERT_EQ(0, strcmp(out + len - 3, "]}\n"))
			{
				TH_LOG("JSON cut at %zu bytes: ...%s", len,
				       out + (len > 80 ? len - 80 : 0));
			}
			ASSERT_EQ(PROGRAMS, count_of(out, "{\"pid\": "));
		}
	}
	/* The start line's list is cut at a folder's end, and says so. */
	{
		static char log[64 * 1024];
		const char *line, *end;

		hx_log(log, sizeof(log));
		line = strstr(log, "serving; ");
		ASSERT_NE(NULL, line);
		end = strchr(line, '\n');
		ASSERT_NE(NULL, end);
		ASSERT_EQ(0, strncmp(end - strlen(" more (see status)"),
				     " more (see status)",
				     strlen(" more (see status)")))
		{
			TH_LOG("start line: %.*s", (int)(end - line), line);
		}
		/* The last folder before the note is whole: "... (why)". */
		{
			const char *note = NULL;

			for (const char *at = line;
			     (at = strstr(at, "; and ")) && at < end; at++)
				note = at;
			ASSERT_NE(NULL, note);
			ASSERT_EQ(')', note[-1]);
		}
	}
	for (int i = 0; i < PROGRAMS; i++)
		kill(clients[i], SIGKILL);
	for (int i = 0; i < PROGRAMS; i++)
		waitpid(clients[i], NULL, 0);
}

TEST_HARNESS_MAIN
