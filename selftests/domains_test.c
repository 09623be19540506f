// SPDX-License-Identifier: GPL-2.0-only
/*
 * P3-P6 and the spawner's faults: the programs of one spawner's requests
 * given no Stand-in share one Landlock domain, a request given one is a
 * domain of its own that no other program can trace or read (E1); a new
 * spawner is a new domain that cannot reach the old
 * one's programs; a confined program can neither mount nor leave its domain;
 * a spawner killed 100 times while programs start leaves no hang, no zombie
 * and no leaked descriptor in the harness (10 times where JR2_STRESS=small:
 * the vmtest guest, where a kernel's answers are the point, not the load).
 *
 * Promises: G6 A3 P3 P4 P5 P6 E1 E6 R10
 */
#include <sys/resource.h>

#include "harness_helpers.h"

HX_FIXTURE(domains)

/*
 * Tracing a peer of the same domain is also Yama's to allow: the peer (the
 * sleeper) names every program as its tracer with PR_SET_PTRACER, which is
 * enough under ptrace_scope 0 and 1; under 2 and 3 no confined program may
 * trace another, and only that positive control is skipped, naming Yama.
 */
TEST_F(domains, P3_programs_of_one_spawner_trace_and_signal_each_other)
{
	struct hx *hx = &self->hx;
	char pid[16], harness[16], why[256];
	const char *blocked = hx_peer_trace_blocked(why, sizeof(why));
	pid_t client, peer;

	HX_START(hx, NULL);
	peer = hx_start_sleeper(_metadata, hx, &client);
	hx_pid_str(peer, pid, sizeof(pid));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", pid, "0"));
	/* The negative control: the harness is outside that domain. */
	hx_pid_str(hx->pid, harness, sizeof(harness));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-attach", harness));
	if (blocked)
		SKIP(return, "%s", blocked);
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-attach", pid));
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-seize", pid));
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "vm-read", pid));
}

/*
 * A peer that names no tracer: Yama alone decides (ptrace_scope read from
 * /proc): no Yama or scope 0 let programs of one user trace each other;
 * scope 1 only an ancestor (the peer is a sibling), 2 and 3 no confined
 * program.  The named peer is the positive control under scope 1.
 */
TEST_F(domains, P3_yama_decides_tracing_of_a_peer_naming_no_tracer)
{
	struct hx *hx = &self->hx;
	char pid[16], named_pid[16], why[256];
	const char *blocked = hx_peer_trace_blocked(why, sizeof(why));
	int scope = jr2_yama_ptrace_scope();
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(
	    hx_start_sleeper_verb(_metadata, hx, &client, "sleep-unnamed"), pid,
	    sizeof(pid));
	ASSERT_STREQ(scope <= 0 ? "ok" : "EPERM",
		     HX_TRY(hx, "ptrace-attach", pid))
	{
		TH_LOG("Yama ptrace_scope %d, a peer naming no tracer", scope);
	}
	ASSERT_STREQ(scope <= 0 ? "ok" : "EPERM",
		     HX_TRY_LINE(hx, "vm-read", pid));
	if (blocked)
		SKIP(return, "%s", blocked);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), named_pid,
		   sizeof(named_pid));
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-attach", named_pid));
}

#define DOMAINS_CONFIG HX_ETC "/harness.conf"
#define LURK_DIR       HX_MNT "/lurk"
#define LURK_FILE      LURK_DIR "/seen"

static const char *const with_standin[] = {"--secret", "GH_TOKEN", NULL};

/* Starts the harness with the Held secret GH_TOKEN. */
#define START_WITH_SECRET(hx)                                             \
	do {                                                              \
		const char *const _extra[] = {"--config", DOMAINS_CONFIG, \
					      NULL};                      \
		fx_make_file(_metadata, DOMAINS_CONFIG,                   \
			     "secret GH_TOKEN\n" HX_TRUST_ETC, 0644);     \
		HX_START(hx, _extra);                                     \
	} while (0)

/* jr2-try VERB ARGS in a request given GH_TOKEN's Stand-in. */
#define TRY_WITH_STANDIN(hx, ...)                                          \
	({                                                                 \
		static char _out[HX_OUT_SIZE];                             \
		const char *const _argv[] = {(hx)->try_tool, __VA_ARGS__,  \
					     NULL};                        \
		hx_exec_opts(hx, with_standin, _argv, _out, sizeof(_out)); \
		_out[strcspn(_out, " \n")] = '\0';                         \
		(const char *)_out;                                        \
	})

/* Whether the layers scope signals: the ABI in force has the scope. */
static bool signals_scoped(const struct hx *hx)
{
	return jr2_abi_has(&hx->abi, JR2_FEAT_SCOPE_SIGNAL);
}

static const char *proc_file(pid_t pid, const char *file, char *buf,
			     size_t size)
{
	snprintf(buf, size, "/proc/%d/%s", (int)pid, file);
	return buf;
}

/*
 * A request given a Stand-in runs in a Landlock layer of its own: a program
 * of any other request (a no-Stand-in one shares one layer; another given a
 * Stand-in has its own) can neither trace it nor read its environment or
 * memory, nor take its descriptors, and it cannot trace theirs.  Reading
 * /proc/<pid>/environ is PTRACE_MODE_READ, which Yama leaves alone: those
 * denials are Landlock's on every Yama setting.  Positive controls: the
 * programs of two requests without a Stand-in read and trace each other.
 */
TEST_F(domains, P3_E1_a_request_given_a_standin_is_a_domain_of_its_own)
{
	struct hx *hx = &self->hx;
	char held[16], plain[16], held_env[64], plain_env[64], why[256];
	const char *blocked = hx_peer_trace_blocked(why, sizeof(why));
	const char *const sleep_verb[] = {"sleep", NULL};
	pid_t client, held_pid, plain_pid;

	START_WITH_SECRET(hx);
	held_pid =
	    hx_start_program(_metadata, hx, &client, with_standin, sleep_verb);
	plain_pid = hx_start_sleeper(_metadata, hx, &client);
	hx_pid_str(held_pid, held, sizeof(held));
	hx_pid_str(plain_pid, plain, sizeof(plain));
	proc_file(held_pid, "environ", held_env, sizeof(held_env));
	proc_file(plain_pid, "environ", plain_env, sizeof(plain_env));
	/* From a request without a Stand-in. */
	ASSERT_STREQ("EACCES", HX_TRY(hx, "read-file", held_env));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-attach", held));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-seize", held));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "pidfd-getfd", held, "1"));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "vm-read", held));
	/* From another request given the same Stand-in: its own layer. */
	ASSERT_STREQ("EACCES", TRY_WITH_STANDIN(hx, "read-file", held_env));
	ASSERT_STREQ("EPERM", TRY_WITH_STANDIN(hx, "ptrace-attach", held));
	/* And a request given a Stand-in cannot trace the others. */
	ASSERT_STREQ("EACCES", TRY_WITH_STANDIN(hx, "read-file", plain_env));
	ASSERT_STREQ("EPERM", TRY_WITH_STANDIN(hx, "ptrace-attach", plain));
	/* No program joins another request's process group (each program
	   is a session of its own); a child joins its own parent's. */
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "join-pgid", held));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "join-pgid", plain));
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "join-pgid", "own"));
	/* Signals: within a layer only, where the ABI scopes them. */
	ASSERT_STREQ(signals_scoped(hx) ? "EPERM" : "ok",
		     HX_TRY(hx, "kill", held, "0"));
	ASSERT_STREQ(signals_scoped(hx) ? "EPERM" : "ok",
		     TRY_WITH_STANDIN(hx, "kill", plain, "0"));
	/* Positive controls: two requests without a Stand-in. */
	ASSERT_STREQ("ok", HX_TRY(hx, "read-file", plain_env));
	if (blocked)
		SKIP(return, "%s", blocked);
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-attach", plain));
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-seize", plain));
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "pidfd-getfd", plain, "1"));
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "vm-read", plain));
}

/* The "Max core file size" line of /proc/<pid>/limits: "soft hard". */
static const char *core_limits(pid_t pid, char *out, size_t size)
{
	char path[64], text[4096], soft[32] = "", hard[32] = "";
	const char *line;
	ssize_t n = -1;
	int fd = open(proc_file(pid, "limits", path, sizeof(path)),
		      O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	text[n > 0 ? n : 0] = '\0';
	line = strstr(text, "Max core file size");
	if (line)
		sscanf(line + strlen("Max core file size"), " %31s %31s", soft,
		       hard);
	snprintf(out, size, "%s %s", soft, hard);
	return out;
}

/*
 * A program given a Stand-in dumps no core: any program may make it dump
 * (SIGQUIT crosses the layers) and a core file in its working folder holds
 * its environment, Stand-in included, for every request to read.  Its core
 * limit is 0, soft and hard; a program of a request without one keeps the
 * harness's (the positive control: the test's own limit, inherited).
 */
TEST_F(domains, E1_a_program_given_a_standin_dumps_no_core)
{
	struct hx *hx = &self->hx;
	const struct rlimit core = {.rlim_cur = 1 << 20,
				    .rlim_max = RLIM_INFINITY};
	const char *const sleep_verb[] = {"sleep", NULL};
	char held[80], plain[80];
	pid_t client, held_pid, plain_pid;

	ASSERT_EQ(0, setrlimit(RLIMIT_CORE, &core));
	START_WITH_SECRET(hx);
	/* The harness has it; this test, if it fails, dumps no core. */
	ASSERT_EQ(0, setrlimit(RLIMIT_CORE, &(struct rlimit){0}));
	held_pid =
	    hx_start_program(_metadata, hx, &client, with_standin, sleep_verb);
	plain_pid = hx_start_sleeper(_metadata, hx, &client);
	ASSERT_STREQ("0 0", core_limits(held_pid, held, sizeof(held)));
	ASSERT_STREQ("1048576 unlimited",
		     core_limits(plain_pid, plain, sizeof(plain)));
}

/* Whether pid runs jr2-try yet (its execve done): its comm says so. */
static bool runs_try(pid_t pid)
{
	char comm[32] = "", path[64];
	int fd = open(proc_file(pid, "comm", path, sizeof(path)),
		      O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, comm, sizeof(comm) - 1) < 0)
		comm[0] = '\0';
	if (fd >= 0)
		close(fd);
	return !strcmp(comm, "jr2-try\n");
}

/*
 * The known gap this closes, as it was measured: a program left running by
 * a request without a Stand-in watches every process's environment; a later
 * request is given GH_TOKEN's Stand-in.  The watcher reads the environment
 * of a later request without one (the positive control) and never that of
 * the one given the Stand-in (EACCES, before and after its execve).
 */
TEST_F(domains, P3_E1_lurker_reads_no_standin_of_a_later_request)
{
	struct hx *hx = &self->hx;
	const char *const lurk[] = {"lurk", LURK_FILE, "GH_TOKEN", NULL};
	const char *const sleep_verb[] = {"sleep", NULL};
	char text[HX_OUT_SIZE], line[64];
	pid_t lurker, client, held, plain;
	int status = -1, fd;
	ssize_t n;

	/* Before the start: the policy plans the folders there then. */
	fx_make_dir(_metadata, LURK_DIR, 0755);
	START_WITH_SECRET(hx);
	hx_start_program(_metadata, hx, &lurker, NULL, lurk);
	held =
	    hx_start_program(_metadata, hx, &client, with_standin, sleep_verb);
	plain = hx_start_sleeper(_metadata, hx, &client);
	for (int ms = 0;
	     ms < HX_READY_MS && !(runs_try(held) && runs_try(plain)); ms += 10)
		usleep(10000);
	ASSERT_TRUE(runs_try(held) && runs_try(plain));
	/* It scans once more after it sees this, then ends. */
	fx_make_file(_metadata, LURK_FILE ".stop", "", 0644);
	for (int ms = 0;
	     ms < HX_READY_MS && waitpid(lurker, &status, WNOHANG) != lurker;
	     ms += 10)
		usleep(10000);
	fd = open(LURK_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_LT(0, n);
	text[n] = '\0';
	ASSERT_EQ(0, status)
	{
		TH_LOG("the lurker's client: status %d; it wrote: %s", status,
		       text);
	}
	ASSERT_EQ(NULL, strstr(text, "found "))
	{
		TH_LOG("the lurker read a Stand-in: %s", text);
	}
	snprintf(line, sizeof(line), "\ndenied %d EACCES\n", (int)held);
	ASSERT_NE(NULL, strstr(text, line))
	{
		TH_LOG("no '%s' in: %s", line + 1, text);
	}
	snprintf(line, sizeof(line), "\nread %d\n", (int)held);
	ASSERT_EQ(NULL, strstr(text, line));
	snprintf(line, sizeof(line), "\nread %d\n", (int)plain);
	ASSERT_NE(NULL, strstr(text, line))
	{
		TH_LOG("no '%s' in: %s", line + 1, text);
	}
}

/*
 * A later shell command still finds and stops a server an earlier request
 * without a Stand-in started (pkill reads /proc/<pid>/stat and cmdline,
 * which need no ptrace access): SIGTERM ends it, its client exits 128 + 15.
 * A request given a Stand-in is a layer of its own, and where the kernel
 * scopes signals (ABI 6+) no other request signals its programs, nor they
 * another request's (EPERM): a runtime that opens a debugger on a signal
 * (Node's SIGUSR1, the JVM's SIGQUIT) would hand over the Stand-in.  Below
 * ABI 6 signals cross the layers (G6 says so at each start).  The harness,
 * outside every domain, stops them all.
 */
TEST_F(domains, P3_a_later_request_stops_an_earlier_server)
{
	struct hx *hx = &self->hx;
	const char *const sleep_verb[] = {"sleep", NULL};
	const char *want = signals_scoped(hx) ? "EPERM" : "ok";
	char held[16], plain[16], other[16], path[64];
	pid_t held_client, plain_client, other_client, held_pid, plain_pid;
	pid_t other_pid;
	int status = -1;

	START_WITH_SECRET(hx);
	held_pid = hx_start_program(_metadata, hx, &held_client, with_standin,
				    sleep_verb);
	plain_pid = hx_start_sleeper(_metadata, hx, &plain_client);
	other_pid = hx_start_sleeper(_metadata, hx, &other_client);
	hx_pid_str(held_pid, held, sizeof(held));
	hx_pid_str(plain_pid, plain, sizeof(plain));
	hx_pid_str(other_pid, other, sizeof(other));
	ASSERT_STREQ(
	    "ok", HX_TRY(hx, "read-file",
			 proc_file(held_pid, "cmdline", path, sizeof(path))));
	ASSERT_STREQ("ok",
		     HX_TRY(hx, "read-file",
			    proc_file(held_pid, "stat", path, sizeof(path))));
	/* The positive control: one layer, a later request stops it. */
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", plain, "15"));
	ASSERT_EQ(plain_client, waitpid(plain_client, &status, 0));
	ASSERT_EQ(128 + SIGTERM, WEXITSTATUS(status));
	ASSERT_STREQ(want, HX_TRY(hx, "kill", held, "15"));
	ASSERT_STREQ(want, TRY_WITH_STANDIN(hx, "kill", other, "15"));
	if (signals_scoped(hx)) {
		/* Both run on; the harness's side ends them. */
		ASSERT_EQ(0, kill(held_pid, 0));
		ASSERT_EQ(0, kill(other_pid, 0));
		ASSERT_EQ(0, kill(held_pid, SIGTERM));
		ASSERT_EQ(0, kill(other_pid, SIGTERM));
	}
	ASSERT_EQ(held_client, waitpid(held_client, &status, 0));
	ASSERT_EQ(128 + SIGTERM, WEXITSTATUS(status));
	ASSERT_EQ(other_client, waitpid(other_client, &status, 0));
	ASSERT_EQ(128 + SIGTERM, WEXITSTATUS(status));
}

/*
 * The programs of the shared layer get their request's descriptors also
 * after the spawner dropped a socket a request passed (closing it in a
 * copy of its descriptor table: channel.h): stdin a unix socket, three
 * requests in a row, each program sees exactly 0, 1 and 2.
 */
TEST_F(domains, P3_R10_shared_layer_programs_get_their_descriptors)
{
	struct hx *hx = &self->hx;
	char *const argv[] = {hx->harness, "exec",	 "--root", HX_ROOT,
			      "--",	   hx->try_tool, "fds",	   NULL};
	char out[HX_OUT_SIZE];
	int pair[2], status = -1;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair));
	HX_START(hx, NULL);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, fx_run_in(argv, pair[0], false, out, sizeof(out),
				       &status));
		ASSERT_EQ(0, status)
		{
			TH_LOG("request %d: %s", i + 1, out);
		}
		ASSERT_STREQ("0 1 2\n", out);
	}
	close(pair[0]);
	close(pair[1]);
}

TEST_F(domains, P4_new_spawner_new_domain_old_program_lives)
{
	struct hx *hx = &self->hx;
	char old_pid[16], new_pid[16], why[256];
	const char *blocked;
	pid_t client, old_program, new_program;
	unsigned int generation;
	int expected_kill;

	HX_START(hx, NULL);
	old_program = hx_start_sleeper(_metadata, hx, &client);
	generation = hx->generation;
	ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
	hx_wait_ready(_metadata, hx, generation + 1);
	ASSERT_EQ(generation + 1, hx->generation);
	/* The old program goes on running. */
	ASSERT_EQ(0, kill(old_program, 0));
	hx_pid_str(old_program, old_pid, sizeof(old_pid));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-attach", old_pid));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-seize", old_pid));
	expected_kill = fx_expect(&hx->abi, JR2_FEAT_SCOPE_SIGNAL, EPERM);
	ASSERT_STREQ(expected_kill ? "EPERM" : "ok",
		     HX_TRY(hx, "kill", old_pid, "0"));
	ASSERT_EQ(0, kill(old_program, 0));
	/* Positive control: a program of the new domain is reachable. */
	new_program = hx_start_sleeper(_metadata, hx, &client);
	hx_pid_str(new_program, new_pid, sizeof(new_pid));
	ASSERT_STREQ("ok", HX_TRY(hx, "kill", new_pid, "0"));
	/* Tracing it is Yama's to allow too (see P3 above). */
	blocked = hx_peer_trace_blocked(why, sizeof(why));
	if (blocked)
		SKIP(return, "%s", blocked);
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-attach", new_pid));
}

/*
 * A program an earlier harness started keeps that harness's policy after
 * the harness dies: a harness started again on the same dir, with a config that
 * protects one more folder, would serve while that program reads the
 * folder.  It refuses to start (exit 1), naming the program's pid, until
 * the program is gone; then it starts, and its programs are denied the
 * folder (the positive control).  The programs are known by the read-only
 * mount of the protected dir in their spawner's mount namespace: where the
 * spawner cannot make it (no CAP_SYS_ADMIN), the test is skipped.
 */
TEST_F(domains, P4_E6_restart_refused_while_an_earlier_harness_programs_run)
{
	struct hx *hx = &self->hx;
	const char *const extra[] = {"--config", DOMAINS_CONFIG, NULL};
	char log[HX_OUT_SIZE * 4], want[128];
	const char *at;
	pid_t client, program;

	fx_make_dir(_metadata, HX_MNT "/later", 0755);
	fx_make_file(_metadata, HX_MNT "/later/key", "later\n", 0644);
	HX_START(hx, NULL);
	hx_log(log, sizeof(log));
	if (!strstr(log, "jr2-harness: metadata: holds"))
		SKIP(return, "the spawner made no read-only mounts (no "
			     "CAP_SYS_ADMIN): earlier programs cannot be told");
	program = hx_start_sleeper(_metadata, hx, &client);
	ASSERT_STREQ("ok", HX_TRY(hx, "read-file", HX_MNT "/later/key"));
	/*
	 * The harness dies without its stop (a stop ends its programs, P8):
	 * SIGKILL, as a crash or the OOM killer ends it; its program runs on.
	 */
	ASSERT_EQ(0, kill(hx->pid, SIGKILL));
	ASSERT_EQ(hx->pid, waitpid(hx->pid, NULL, 0));
	hx->pid = 0;
	ASSERT_EQ(0, kill(program, 0));
	fx_make_file(_metadata, DOMAINS_CONFIG,
		     "protect " HX_MNT "/later\n" HX_TRUST_ETC, 0644);
	ASSERT_EQ(1, hx_start(_metadata, hx, extra));
	hx_log(log, sizeof(log));
	/* Named by its pid, after "does not change: " (maybe not first). */
	at = strstr(log, "still run under its policy, which this config does "
			 "not change: ");
	ASSERT_NE(NULL, at)
	{
		TH_LOG("log: %s", log);
	}
	snprintf(want, sizeof(want), " %d (", (int)program);
	ASSERT_NE(NULL, strstr(at, want))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_EQ(0, kill(program, SIGKILL));
	waitpid(client, NULL, 0);
	for (int ms = 0; ms < HX_READY_MS && !kill(program, 0); ms += 10)
		usleep(10000);
	ASSERT_EQ(0, hx_start(_metadata, hx, extra));
	ASSERT_STREQ("EACCES", HX_TRY(hx, "read-file", HX_MNT "/later/key"));
}

/*
 * The same with a program that chrooted into a folder of its own (root
 * keeps CAP_SYS_CHROOT), `verb`: its /proc/PID/mountinfo then lists nothing
 * of the protected dir, yet the next start is refused naming it, and when
 * it is gone the start serves and its programs get EACCES on the new
 * folder.  The program's name, which it sets itself, reaches the message
 * without its control bytes.  *hid: false when the program could not hide
 * (said why).
 */
static void restart_refused_while_hidden(struct __test_metadata *_metadata,
					 struct hx *hx, const char *verb,
					 bool *hid)
{
	const char *const extra[] = {"--config", DOMAINS_CONFIG, NULL};
	const char *const argv[] = {verb, HX_MNT "/jail", NULL};
	char log[HX_OUT_SIZE * 4], want[128], path[64], info[8192] = "";
	const char *at;
	pid_t client, program;
	ssize_t n;
	int fd;

	unlink(DOMAINS_CONFIG);
	HX_START(hx, NULL);
	program = hx_start_program(_metadata, hx, &client, NULL, argv);
	/* Its own view holds no mount of the protected dir. */
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)program);
	for (int ms = 0; ms < HX_READY_MS; ms += 10) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, info, sizeof(info) - 1);
		if (fd >= 0)
			close(fd);
		info[n > 0 ? n : 0] = '\0';
		if (n >= 0 && !strstr(info, HX_PROTECTED))
			break; /* empty: nothing is mounted under its root */
		usleep(10000);
	}
	if (kill(program, 0) || n < 0 || strstr(info, HX_PROTECTED)) {
		TH_LOG("%s: the program did not hide (no user namespace for "
		       "programs here?): not tried",
		       verb);
		waitpid(client, NULL, 0);
		hx_stop(hx);
		*hid = false;
		return;
	}
	*hid = true;
	EXPECT_EQ(0, kill(hx->pid, SIGKILL));
	EXPECT_EQ(hx->pid, waitpid(hx->pid, NULL, 0));
	hx->pid = 0;
	fx_make_file(_metadata, DOMAINS_CONFIG,
		     "protect " HX_MNT "/later\n" HX_TRUST_ETC, 0644);
	EXPECT_EQ(1, hx_start(_metadata, hx, extra)) TH_LOG("%s", verb);
	hx_log(log, sizeof(log));
	at = strstr(log, "still run under its policy, which this config does "
			 "not change: ");
	EXPECT_NE(NULL, at) TH_LOG("%s: log: %s", verb, log);
	/* Named by its pid, its own name's control bytes shown as '?'. */
	snprintf(want, sizeof(want), " %d (hid?[2J?x)", (int)program);
	EXPECT_NE(NULL, at ? strstr(at, want) : NULL)
	TH_LOG("%s: log: %s", verb, log);
	EXPECT_EQ(NULL, strchr(log, '\033'));
	kill(program, SIGKILL);
	waitpid(client, NULL, 0);
	for (int ms = 0; ms < HX_READY_MS && !kill(program, 0); ms += 10)
		usleep(10000);
	EXPECT_EQ(0, hx_start(_metadata, hx, extra));
	EXPECT_STREQ("EACCES", HX_TRY(hx, "read-file", HX_MNT "/later/key"));
	hx_stop(hx);
}

TEST_F(domains, P4_E6_restart_refused_while_a_chrooted_program_runs)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE * 4];

	fx_make_dir(_metadata, HX_MNT "/later", 0755);
	fx_make_file(_metadata, HX_MNT "/later/key", "later\n", 0644);
	fx_make_dir(_metadata, HX_MNT "/jail", 0755);
	HX_START(hx, NULL);
	hx_log(log, sizeof(log));
	hx_stop(hx);
	if (!strstr(log, "jr2-harness: metadata: holds"))
		SKIP(return, "the spawner made no read-only mounts (no "
			     "CAP_SYS_ADMIN): earlier programs cannot be told");
	bool hid;

	restart_refused_while_hidden(_metadata, hx, "chroot-sleep", &hid);
	ASSERT_TRUE(hid);
	restart_refused_while_hidden(_metadata, hx, "unshare-chroot-sleep",
				     &hid);
}

TEST_F(domains, G6_each_spawner_start_logs_generation_and_unavailable)
{
	struct hx *hx = &self->hx;
	char log[HX_OUT_SIZE], line[64];

	HX_START(hx, NULL);
	ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
	hx_wait_ready(_metadata, hx, 2);
	hx_log(log, sizeof(log));
	for (unsigned int g = 1; g <= 2; g++) {
		snprintf(line, sizeof(line), "spawner generation %u (pid", g);
		ASSERT_NE(NULL, strstr(log, line))
		{
			TH_LOG("log lacks '%s': %s", line, log);
		}
	}
	/* Each feature the ABI lacks is named in the start line. */
	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		const char *at = strstr(log, "unavailable on this ABI:");

		ASSERT_NE(NULL, at);
		if (!jr2_abi_has(&hx->abi, f))
			ASSERT_NE(NULL, strstr(at, jr2_features[f].name))
			{
				TH_LOG("'%s' not named unavailable: %s",
				       jr2_features[f].name, at);
			}
	}
}

/*
 * The name ps, pgrep and the kernel's messages show for each thread of pid
 * (/proc/<pid>/task/<tid>/comm): `name` when every one has it, else the
 * first other name met.
 */
static const char *threads_named(pid_t pid, const char *name, char *buf,
				 size_t size)
{
	char path[320];
	struct dirent *task;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	snprintf(buf, size, "(no threads)");
	while (tasks && (task = readdir(tasks))) {
		int fd;
		ssize_t n;

		if (task->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid,
			 task->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, size - 1);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, name))
			break;
	}
	if (tasks)
		closedir(tasks);
	return buf;
}

/*
 * The harness (every thread of it: the log's writer is the one a stopped
 * terminal holds) and each spawner are named as themselves, not "exe" (the
 * harness re-executes /proc/self/exe, E2), so `ps` and the kernel's
 * messages tell them apart.  A program keeps its own name (positive
 * control).
 */
TEST_F(domains, P4_harness_and_each_spawner_named_as_themselves)
{
	struct hx *hx = &self->hx;
	char name[32];
	pid_t client, program;

	HX_START(hx, NULL);
	ASSERT_STREQ("jr2-harness",
		     threads_named(hx->pid, "jr2-harness", name, sizeof(name)));
	ASSERT_STREQ("jr2-spawner", threads_named(hx->spawner, "jr2-spawner",
						  name, sizeof(name)));
	ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
	hx_wait_ready(_metadata, hx, 2);
	ASSERT_STREQ("jr2-spawner", threads_named(hx->spawner, "jr2-spawner",
						  name, sizeof(name)));
	program = hx_start_sleeper(_metadata, hx, &client);
	ASSERT_STREQ("jr2-try",
		     threads_named(program, "jr2-try", name, sizeof(name)));
}

TEST_F(domains, P5_no_mount_umount_pivot_root_move_mount)
{
	struct hx *hx = &self->hx;

	fx_make_dir(_metadata, HX_MNT "/target", 0755);
	/* Positive control: unconfined, in this namespace, root mounts. */
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the unconfined control's mount");
	ASSERT_EQ(0, mount("jr2", HX_MNT "/target", "tmpfs", 0, NULL));
	ASSERT_EQ(0, umount(HX_MNT "/target"));
	HX_START(hx, NULL);
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "mount-tmpfs", HX_MNT "/target"));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "bind", HX_MNT "/target"));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "umount", HX_MNT));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "pivot-root", HX_MNT));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "move-mount", HX_MNT));
}

TEST_F(domains, P6_nested_ruleset_cannot_widen_access)
{
	struct hx *hx = &self->hx;
	char standins[PATH_MAX];

	fx_make_file(_metadata, HX_ETC "/file", "data\n", 0644);
	HX_START(hx, NULL);
	snprintf(standins, sizeof(standins), "%s", HX_STANDINS);
	/* Unconfined, the nested ruleset grants the read it names. */
	ASSERT_EQ(0, test_read(standins));
	ASSERT_STREQ("EACCES", HX_TRY(hx, "open-read", standins));
	ASSERT_STREQ("EACCES", HX_TRY_LINE(hx, "nested-widen", standins));
	/* Positive control: the nested ruleset works where it may. */
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "nested-widen", HX_ETC "/file"));
}

/*
 * The harness's descriptor count when it is quiet: the least of a few
 * samples, since a client that just left may not be closed yet.
 */
static unsigned int hx_fd_count(pid_t pid)
{
	unsigned int least = ~0U;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	for (int i = 0; i < 10; i++) {
		int count = 0;

		if (test_list(path, &count) == 0 && (unsigned int)count < least)
			least = (unsigned int)count;
		usleep(10000);
	}
	return least == ~0U ? 0 : least;
}

/*
 * The fault: SIGKILL the spawner 100 times (10 with JR2_STRESS=small, each
 * of the 10 kill delays once) while programs are being started.  Each start
 * ends (never hangs) with the program's status or a clear error; a new spawner
 * comes up each time; no zombie stays behind; the harness's descriptor count
 * does not grow.
 */
TEST_F(domains, P4_spawner_killed_repeatedly_while_starting)
{
	const char *const fast_restart[] = {"--max-backoff-ms", "20", NULL};
	struct hx *hx = &self->hx;
	unsigned int fds_before, ran = 0, refused = 0;
	int rounds = fx_stress_size(_metadata, 100, 10);

	HX_START(hx, fast_restart);
	FX_SKIP_UNLESS_ROOT("listing the harness's descriptors");
	fds_before = hx_fd_count(hx->pid);
	ASSERT_LT(0, fds_before);
	for (int round = 0; round < rounds; round++) {
		unsigned int generation = hx->generation;
		int pipefd[2], status = -1;
		char out[1024] = "";
		ssize_t n = 0;
		pid_t client;

		ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
		client = fork();
		ASSERT_LE(0, client);
		if (client == 0) {
			dup2(pipefd[1], 1);
			dup2(pipefd[1], 2);
			execl(hx->harness, hx->harness, "exec", "--root",
			      HX_ROOT, "--", "/bin/true", NULL);
			_exit(127);
		}
		close(pipefd[1]);
		/* Spread the kill over the start's phases. */
		usleep((useconds_t)(round % 10) * 150);
		ASSERT_EQ(0, kill(hx->spawner, SIGKILL));
		for (int waited = 0; waited < HX_READY_MS; waited += 1) {
			if (waitpid(client, &status, WNOHANG) == client)
				break;
			usleep(1000);
		}
		ASSERT_TRUE(WIFEXITED(status))
		{
			kill(client, SIGKILL);
			TH_LOG("round %d: the client hung", round);
		}
		n = read(pipefd[0], out, sizeof(out) - 1);
		out[n > 0 ? n : 0] = '\0';
		close(pipefd[0]);
		if (WEXITSTATUS(status) == 0) {
			ran++;
		} else {
			/* 125 with a message that says what happened. */
			ASSERT_EQ(JR2_EXIT_REFUSED, WEXITSTATUS(status));
			ASSERT_NE(NULL, strstr(out, "spawner"))
			{
				TH_LOG("round %d: unclear error '%s'", round,
				       out);
			}
			refused++;
		}
		hx_wait_ready(_metadata, hx, generation + 1);
	}
	TH_LOG("%d kills: %u starts ran, %u ended with a clear error", rounds,
	       ran, refused);
	ASSERT_LE((unsigned int)rounds + 1, hx->generation);
	ASSERT_EQ(0, fx_children_of(hx->pid, true, NULL, 0));
	ASSERT_GE(fds_before, hx_fd_count(hx->pid));
	/* And it still serves. */
	{
		const char *const argv[] = {"/bin/true", NULL};
		char out[256];

		ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	}
}

/* As env(1): 127 not found, 126 not executable, else CMD's own status;
 * 124 when the --cwd folder cannot be entered. */
TEST_F(domains, A3_exec_statuses_and_failures)
{
	struct hx *hx = &self->hx;
	const char *const missing[] = {"no-such-program", NULL};
	const char *const not_exec[] = {HX_ETC "/file", NULL};
	const char *const sh7[] = {"/bin/sh", "-c", "exit 7", NULL};
	const char *const killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
	const char *const bad_cwd[] = {"--cwd", HX_MNT "/missing", NULL};
	const char *const truth[] = {"/bin/true", NULL};
	char out[HX_OUT_SIZE];

	fx_make_file(_metadata, HX_ETC "/file", "data\n", 0644);
	HX_START(hx, NULL);
	ASSERT_EQ(7, hx_exec(hx, sh7, out, sizeof(out)));
	ASSERT_EQ(128 + SIGKILL, hx_exec(hx, killed, out, sizeof(out)));
	ASSERT_EQ(JR2_EXIT_NOT_FOUND, hx_exec(hx, missing, out, sizeof(out)));
	ASSERT_STREQ("jr2-harness: execve 'no-such-program': No such file or "
		     "directory\n",
		     out);
	ASSERT_EQ(JR2_EXIT_CANNOT_EXEC,
		  hx_exec(hx, not_exec, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "Permission denied"));
	/* A missing --cwd has its own code (jr2-harness(1)), not 127. */
	ASSERT_EQ(JR2_EXIT_CWD,
		  hx_exec_opts(hx, bad_cwd, truth, out, sizeof(out)));
	ASSERT_STREQ("jr2-harness: chdir '" HX_MNT "/missing': No such file or "
		     "directory\n",
		     out);
	/* No failed start is left as a live program. */
	ASSERT_EQ(0, hx_status(hx, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\nprograms:\n"));
}

/*
 * A program may stop its spawner (a layer below its domain, P3): stopped,
 * it would hold requests and its clients' stdio, so the harness replaces it
 * at once (it sees the stop as the spawner's parent).
 */
TEST_F(domains, P4_stopped_spawner_is_replaced)
{
	struct hx *hx = &self->hx;
	const char *const argv[] = {"/bin/true", NULL};
	char out[HX_OUT_SIZE], log[HX_OUT_SIZE], spawner[16];
	unsigned int generation;
	pid_t stopped;

	HX_START(hx, NULL);
	generation = hx->generation;
	stopped = hx->spawner;
	hx_pid_str(stopped, spawner, sizeof(spawner));
	/* A program stops it where signals cross its layer (below ABI 6);
	   else it cannot, and the test does. */
	ASSERT_STREQ(signals_scoped(hx) ? "EPERM" : "ok",
		     HX_TRY(hx, "kill", spawner, "19"));
	if (signals_scoped(hx))
		ASSERT_EQ(0, kill(stopped, SIGSTOP));
	hx_wait_ready(_metadata, hx, generation + 1);
	ASSERT_NE(stopped, hx->spawner);
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "stopped by signal 19; replacing it"))
	{
		TH_LOG("log: %s", log);
	}
	/* The stopped one is gone, not left behind stopped. */
	ASSERT_EQ(-1, kill(stopped, 0));
	ASSERT_EQ(ESRCH, errno);
}

TEST_HARNESS_MAIN
