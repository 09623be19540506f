// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness's children: the spawner (its start, the messages it sends,
 * its death and its replacement) and the programs, reaped by their pidfds;
 * at a stop, the signals to them and the wait for their exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "channel.h"
#include "confine_step.h"
#include "exit_status.h"
#include "log.h"
#include "policy_internal.h"
#include "request.h"
#include "serve.h"
#include "spawner.h"

/* ---- the spawner ---------------------------------------------------- */

/*
 * Less to steal: the spawner (a fork of the harness) needs no Stand-in and
 * no bearer; they are wiped from its copy of the memory before it runs
 * anything.  The Stand-ins of one request reach it in that request's spawn
 * message only, wiped after the start (spawner.c).
 */
static void forget_secrets(void)
{
	explicit_bzero(harness.standins.control,
		       sizeof(harness.standins.control));
	for (size_t i = 0; i < harness.standins.n; i++)
		explicit_bzero(harness.standins.values[i],
			       sizeof(harness.standins.values[i]));
	explicit_bzero(harness.bearer_digest, sizeof(harness.bearer_digest));
	/* Never read into: its pages are the bss's untouched zeros. */
	if (harness.request_buf_used)
		explicit_bzero(harness.request_buf,
			       sizeof(harness.request_buf));
	for (int i = 0; i < harness.conn_slots; i++) {
		/* A free connection is all zeros (conn_close, or never used):
		 * wiping its line would only fault its pages in, 1 MiB over
		 * the table, in every new spawner. */
		if (harness.conns[i].kind == CONN_FREE)
			continue;
		if (harness.conns[i].spawn.buf)
			explicit_bzero(harness.conns[i].spawn.buf,
				       harness.conns[i].spawn.cap);
		/* A Custodian line not ended yet may start with the
		 * control Stand-in. */
		explicit_bzero(harness.conns[i].line,
			       sizeof(harness.conns[i].line));
		/* A stream exec's token, a frame read in part (a bearer). */
		explicit_bzero(harness.conns[i].token,
			       sizeof(harness.conns[i].token));
		if (harness.conns[i].frame)
			explicit_bzero(harness.conns[i].frame,
				       harness.conns[i].frame_have);
	}
}

static void log_generation(void)
{
	char enforced[512] = "", unavailable[1024] = "";

	for (int f = 0; f < JR2_FEAT_COUNT; f++) {
		char *list =
		    jr2_abi_has(&harness.abi, f) ? enforced : unavailable;
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
	char frozen[1024];

	frozen_folders(frozen, sizeof(frozen));
	/* G6: every start says what this ABI cannot give. */
	say("spawner generation %u (pid %d) confined at Landlock ABI %d; "
	    "enforced: %s; unavailable on this ABI: %s; frozen folders: %s",
	    harness.generation, (int)harness.spawner_pid, harness.abi.in_force,
	    enforced[0] ? enforced : "none",
	    unavailable[0] ? unavailable : "none", frozen);
}

void start_spawner(void)
{
	int pair[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair)) {
		say("cannot make the spawner's channel: %s; retrying",
		    strerror(errno));
		harness.restart_at_ms = jr2_now_ms() + 1000;
		return;
	}
	/*
	 * Room for one spawn message with its environment: a SEQPACKET
	 * message larger than the sender's buffer gives EMSGSIZE.  SO_SNDBUF
	 * is capped at net.core.wmem_max (SO_RCVBUF at rmem_max); the FORCE
	 * options, with CAP_NET_ADMIN, are not.
	 */
	int size = JR2_SPAWN_MAX_BYTES * 2;

	if (setsockopt(pair[0], SOL_SOCKET, SO_SNDBUFFORCE, &size,
		       sizeof(size)))
		setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (setsockopt(pair[1], SOL_SOCKET, SO_RCVBUFFORCE, &size,
		       sizeof(size)))
		setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	pid = fork();
	if (pid < 0) {
		say("cannot fork the spawner: %s; retrying", strerror(errno));
		close(pair[0]);
		close(pair[1]);
		harness.restart_at_ms = jr2_now_ms() + 1000;
		return;
	}
	if (pid == 0) {
		close(pair[0]);
		prctl(PR_SET_NAME, "jr2-spawner");
		forget_secrets();
		setrlimit(RLIMIT_NOFILE, &harness.start_nofile);
		/* Raising it back needs no capability: it cannot fail. */
		if (harness.start_oom_score_adj[0] &&
		    write_proc_self("oom_score_adj",
				    harness.start_oom_score_adj))
			_exit(JR2_EXIT_REFUSED);
		/*
		 * Every spawner compiles once, after its read-only mounts
		 * (or, without them, just before restricting); the plan
		 * compiled at start is only the reference: each protected
		 * dir must still be the inode it was then (exit 125).
		 */
		jr2_spawner_main(pair[1], &harness.policy, &harness.abi,
				 &harness.plan);
	}
	close(pair[1]);
	fcntl(pair[0], F_SETFL, O_NONBLOCK);
	harness.spawner_fd = pair[0];
	harness.spawner_pid = pid;
	harness.spawner_ready = false;
	harness.generation++;
	harness.spawner_started_ms = jr2_now_ms();
	harness.restart_at_ms = 0;
}

/* ---- reaping ---------------------------------------------------------- */

static void program_exited(size_t i, int status)
{
	struct program p = harness.programs[i];

	harness.programs[i] = harness.programs[--harness.n_programs];
	close(p.pidfd);
	leader_gone(p.id);
	if (p.conn)
		exit_status_to_client(p.conn, status);
}

static void program_forget(size_t i)
{
	leader_gone(harness.programs[i].id);
	close(harness.programs[i].pidfd);
	harness.programs[i] = harness.programs[--harness.n_programs];
}

/* "fail": the spawner cannot confine itself; the queued execs are refused. */
static void on_spawner_fail(const char *why)
{
	say("spawner generation %u could not confine itself: %s",
	    harness.generation, why);
	for (int i = 0; i < harness.conn_slots; i++)
		if (harness.conns[i].kind == CONN_CONTROL &&
		    harness.conns[i].state == QUEUED)
			refuse(&harness.conns[i],
			       "the spawner cannot confine itself, so nothing "
			       "runs: %s",
			       why);
}

/* "started": the program runs; pidfd (-1: none came) is now the harness's. */
static void on_program_started(unsigned long id, int pid, int pidfd)
{
	struct conn *c = conn_by_id(id, false);

	if (pidfd < 0 || harness.n_programs == MAX_PROGRAMS) {
		say("program pid %d of request %lu cannot be tracked (%s); its "
		    "client gets no exit status",
		    pid, id,
		    pidfd < 0 ? "no pidfd came with its start"
			      : "too many live programs");
		if (pidfd >= 0)
			close(pidfd);
		if (c) {
			conn_reply(c,
				   "error %d the harness cannot follow '%s' "
				   "(pid %d); see its log\n",
				   EMFILE, c->cmd, pid);
			conn_close(c);
		}
		return;
	}
	harness.programs[harness.n_programs++] =
	    (struct program){.pid = pid,
			     .pidfd = pidfd,
			     .generation = harness.generation,
			     .id = id,
			     .conn = c};
	if (c) {
		c->state = RUNNING;
		conn_reply(c, "started %d %lu\n", pid, id);
	} else {
		/* Its client went away while it started. */
		cancel_program(harness.n_programs - 1,
			       "its client went away while it started");
	}
}

/* "error": request id did not start (after "started" when execve failed). */
static void on_request_error(unsigned long id, int err, const char *message)
{
	struct conn *c = conn_by_id(id, true);

	if (!c)
		return;
	for (size_t i = 0; i < harness.n_programs; i++)
		if (harness.programs[i].conn == c)
			program_forget(i--);
	conn_reply(c, "error %d %s\n", err, message);
	conn_close(c);
}

/* Reads the spawner's messages (spawner.h) until none waits. */
void on_spawner_message(void)
{
	char buf[1024];
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds;
	ssize_t len;

	while ((len = jr2_recv_msg(harness.spawner_fd, buf, sizeof(buf) - 1,
				   fds, JR2_REQ_MAX_FDS, &n_fds)) > 0) {
		struct jr2_spawner_msg msg;
		int pidfd = -1;

		buf[(size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf) - 1] =
		    '\0';
		/* Only a program's own pidfd, with its "started", comes this
		 * way; anything else is closed here, as the last close of a
		 * pidfd never waits. */
		if (jr2_spawner_msg_parse(buf, &msg) == JR2_SPAWNER_STARTED &&
		    n_fds == 1) {
			pidfd = fds[0];
			n_fds = 0;
		}
		jr2_close_fds(fds, n_fds);
		switch (msg.kind) {
		case JR2_SPAWNER_READY:
			harness.spawner_ready = true;
			log_generation();
			flush_queue();
			break;
		case JR2_SPAWNER_LOG:
			/* A start line of the spawner, which writes to no
			 * stderr (spawner.c): a kind of line of its own. */
			say("%s", msg.text);
			break;
		case JR2_SPAWNER_FAIL:
			on_spawner_fail(msg.text);
			break;
		case JR2_SPAWNER_STARTED:
			on_program_started(msg.id, msg.pid, pidfd);
			break;
		case JR2_SPAWNER_ERROR:
			on_request_error(msg.id, msg.err, msg.text);
			break;
		case JR2_SPAWNER_UNKNOWN:
			say("unexpected message from the spawner: '%.200s'",
			    buf);
			break;
		}
	}
	if (len == 0 || (len < 0 && len != -EAGAIN)) {
		/* The spawner is gone; its exit status tells the rest. */
		close(harness.spawner_fd);
		harness.spawner_fd = -1;
		harness.spawner_ready = false;
	}
}

static void spawner_died(int status)
{
	long long lived = jr2_now_ms() - harness.spawner_started_ms;
	char how[64];
	unsigned int delay;

	if (harness.spawner_fd >= 0)
		on_spawner_message(); /* answers it sent before it died */
	if (harness.spawner_fd >= 0) {
		close(harness.spawner_fd);
		harness.spawner_fd = -1;
	}
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(status));
	/* In flight: the spawner took it and never answered. */
	for (int i = 0; i < harness.conn_slots; i++) {
		struct conn *c = &harness.conns[i];

		if (c->kind != CONN_CONTROL || c->state != IN_FLIGHT)
			continue;
		conn_reply(c,
			   "error %d the spawner (generation %u, pid %d) %s "
			   "while starting '%s'; it may not have run; a new "
			   "spawner is starting, retry\n",
			   ECHILD, harness.generation, (int)harness.spawner_pid,
			   how, c->cmd);
		conn_close(c);
	}
	harness.quick_deaths =
	    (!harness.spawner_ready || lived < QUICK_DEATH_MS)
		? harness.quick_deaths + 1
		: 0;
	delay = 0;
	if (harness.quick_deaths > 0) {
		unsigned int shift = harness.quick_deaths - 1 > 16
					 ? 16
					 : harness.quick_deaths - 1;

		delay = BACKOFF_FIRST_MS << shift;
		if (delay > harness.max_backoff_ms)
			delay = harness.max_backoff_ms;
	}
	say("spawner generation %u (pid %d) %s after %lld ms; its programs "
	    "keep running; generation %u starts in %u ms",
	    harness.generation, (int)harness.spawner_pid, how, lived,
	    harness.generation + 1, delay);
	harness.spawner_pid = 0;
	harness.spawner_ready = false;
	harness.restart_at_ms = jr2_now_ms() + delay;
}

/* An exit, not a stop: what waitid's siginfo says ends a process. */
static bool is_exit(const siginfo_t *info)
{
	return info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	       info->si_code == CLD_DUMPED;
}

/* A wait status from waitid's siginfo. */
static int wait_status(const siginfo_t *info)
{
	if (info->si_code == CLD_EXITED)
		return (info->si_status & 0xff) << 8;
	return info->si_status & 0x7f; /* killed or dumped: the signal */
}

/*
 * Every exit is matched by pidfd (P7): a program's status goes to its own
 * client only.  The harness is a subreaper, so orphans of programs end here
 * too: reaped and forgotten, never recorded under a pid that a later program
 * could be given.  A program reports its start (with its pidfd) before it
 * can exit, and reports are read first, so no program is taken for one.
 */
void reap(void)
{
	siginfo_t info;
	int status;
	pid_t pid;

	/* The spawner: stopped, or gone. */
	while (harness.spawner_pid > 0 &&
	       (pid = waitpid(harness.spawner_pid, &status,
			      WNOHANG | WUNTRACED)) == harness.spawner_pid) {
		if (!WIFSTOPPED(status)) {
			spawner_died(status);
			break;
		}
		/*
		 * Its programs may stop their spawner (a layer below it).
		 * Stopped, it would hold requests and the stdio of its
		 * clients: a new one takes over at once.
		 */
		say("spawner generation %u (pid %d) stopped by signal %d; "
		    "replacing it",
		    harness.generation, (int)pid, WSTOPSIG(status));
		kill(pid, SIGKILL);
	}
	if (harness.spawner_fd >= 0)
		on_spawner_message(); /* reports first */
	for (size_t i = 0; i < harness.n_programs;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PIDFD, (id_t)harness.programs[i].pidfd, &info,
			   WEXITED | WNOHANG) == 0 &&
		    info.si_pid != 0) {
			if (!is_exit(&info)) {
				/* Its tracer: let go (its stop was taken). */
				jr2_let_tracee_go(info.si_pid, info.si_status);
				continue; /* looked at again: its exit? */
			}
			program_exited(i, wait_status(&info));
			continue; /* the last one moved to i */
		}
		i++;
	}
	for (;;) {
		bool tracked = false;

		/* WNOWAIT: looked at, still a zombie, so its pid is its own. */
		memset(&info, 0, sizeof(info));
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) ||
		    info.si_pid == 0)
			break;
		pid = info.si_pid;
		if (!is_exit(&info)) {
			/* A stop is no exit: the tracee let go, the report
			   taken (so a failed detach is not seen again). */
			if (jr2_let_tracee_go(pid, info.si_status))
				say("cannot let go of pid %d, which made the "
				    "harness its tracer: %s",
				    (int)pid, strerror(errno));
			waitid(P_PID, (id_t)pid, &info, WSTOPPED | WNOHANG);
			continue;
		}
		if (pid == harness.spawner_pid) {
			waitpid(pid, &status, 0);
			spawner_died(status);
			continue;
		}
		if (harness_process_reaped(pid))
			continue;
		for (int pass = 0; pass < 2 && !tracked; pass++) {
			if (pass && harness.spawner_fd >= 0)
				on_spawner_message(); /* its report, late */
			for (size_t i = 0; i < harness.n_programs; i++) {
				if (harness.programs[i].pid != pid)
					continue;
				memset(&info, 0, sizeof(info));
				waitid(P_PIDFD, (id_t)harness.programs[i].pidfd,
				       &info, WEXITED);
				program_exited(i, wait_status(&info));
				tracked = true;
				break;
			}
		}
		if (!tracked)
			waitpid(pid, &status, 0); /* an orphan: forgotten */
	}
}

/* Whether the harness has a child, zombies reaped (reap) or not. */
/*
 * As pid 1 of its pid namespace, with that namespace's /proc (/proc/self is
 * "1"): whether a process other than itself is left.  One a `docker exec`
 * started is no child of the harness, yet ends when pid 1 exits: the stop
 * waits for it too, up to the grace period.
 */
static bool others_in_namespace(void)
{
	char self[8];
	ssize_t n = readlink("/proc/self", self, sizeof(self));
	struct dirent *d;
	bool any = false;
	DIR *proc;

	if (getpid() != 1 || n != 1 || self[0] != '1')
		return false;
	proc = opendir("/proc");
	while (proc && !any && (d = readdir(proc)))
		any = strtol(d->d_name, NULL, 10) > 1;
	if (proc)
		closedir(proc);
	return any;
}

bool children_left(void)
{
	siginfo_t info;

	return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 ||
	       errno != ECHILD || others_in_namespace();
}

/*
 * The children of the harness the walk below signalled with `signo` in this
 * stop.  An orphan reparented after a walk (its parent ended on the SIGTERM,
 * or died of the SIGKILL after the walk passed it) is a child the walk did
 * not see: each round of the stop walks again and signals those, and only
 * those (a second SIGTERM may end a program's own grace).  Each walk keeps
 * what it found, so a pid reaped since is forgotten by the next round.
 */
static struct {
	int signo;
	pid_t *pids;
	size_t n;
} signalled;

static bool was_signalled(pid_t pid, int signo)
{
	if (signalled.signo != signo)
		return false;
	for (size_t i = 0; i < signalled.n; i++)
		if (signalled.pids[i] == pid)
			return true;
	return false;
}

/*
 * signo to every child of the harness not yet signalled with it: orphans
 * reparent to it (a subreaper) and only it reaps them, so a pid read from
 * /proc is still that child when signalled.  Whether one was.
 */
static bool signal_children(int signo)
{
	pid_t *found = NULL;
	size_t n_found = 0, cap = 0;
	struct dirent *d;
	siginfo_t info;
	bool any = false;
	DIR *proc;

	/*
	 * No child at all, running or a zombie (waitid: ECHILD): no orphan
	 * is reparented to the harness, and /proc has none of its children
	 * to find.  One reparented later is the next round's.
	 */
	if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) &&
	    errno == ECHILD) {
		signalled.n = 0;
		return false;
	}
	proc = opendir("/proc");
	while (proc && (d = readdir(proc))) {
		long pid = strtol(d->d_name, NULL, 10);

		if (pid <= 0 || proc_parent((pid_t)pid) != getpid())
			continue;
		if (!was_signalled((pid_t)pid, signo) &&
		    kill((pid_t)pid, signo) == 0)
			any = true;
		if (n_found == cap) {
			cap = cap ? cap * 2 : 64;
			found = jr2_xrealloc(found, cap * sizeof(*found));
		}
		found[n_found++] = (pid_t)pid;
	}
	if (proc)
		closedir(proc);
	free(signalled.pids);
	signalled.signo = signo;
	signalled.pids = found;
	signalled.n = n_found;
	return any;
}

/*
 * signo to every program and every orphan of one; whether one was.  As
 * pid 1 of its pid namespace (a container's init) every process of the
 * namespace, as the kernel would SIGKILL them at its exit.  Else each
 * program's process group (its pid: the leader is unreaped, so the id is
 * its own), those of programs that exited but are not reaped yet included,
 * and every child of the harness (signal_children).
 */
bool signal_programs(int signo)
{
	bool any = false;

	if (getpid() == 1)
		return kill(-1, signo) == 0;
	for (size_t i = 0; i < harness.n_programs; i++)
		/* Its pidfd too: the program may have left its group. */
		any |=
		    (kill(-harness.programs[i].pid, signo) == 0) |
		    (syscall(SYS_pidfd_send_signal, harness.programs[i].pidfd,
			     signo, NULL, 0) == 0);
	/* The programs that exited go now, their groups signalled: their
	 * exits reported, and with no child left the walk reads no /proc. */
	reap();
	return signal_children(signo) || any;
}

/*
 * Reaps, reporting each exit to its client, until no child is left or ms
 * passed; true when none is left.  After signal_programs(signo), which has
 * just walked: each round after the first sends signo to the children that
 * came since the last walk (signal_children).  Another stop signal ends it
 * early.
 */
bool wait_for_children(long long ms, int signo, bool *hurried)
{
	long long deadline = jr2_now_ms() + ms;

	for (bool walked = true;; walked = false) {
		struct signalfd_siginfo info;
		struct pollfd pfd = {.fd = harness.signal_fd, .events = POLLIN};
		long long left;

		reap();
		if (!children_left())
			return true;
		if (!walked && getpid() != 1)
			signal_children(signo);
		left = deadline - jr2_now_ms();
		if (left <= 0 || *hurried)
			return false;
		poll(&pfd, 1, (int)(left > 100 ? 100 : left));
		while (read(harness.signal_fd, &info, sizeof(info)) ==
		       sizeof(info))
			if (info.ssi_signo != SIGCHLD)
				*hurried = true;
	}
}
