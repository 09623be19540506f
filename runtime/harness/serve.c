// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jr2-harness serve`: the unconfined supervisor, and its loop.  One poll loop
 * (its log has a writer thread of its own, log.h) serves the control channel
 * (bearer-authenticated), the Custodian-like sockets, the spawner's channel
 * and a signalfd for SIGCHLD and the stop signals.  Its parts share struct
 * harness (serve.h): start.c, trust.c, reexec.c, sockets.c, conns.c,
 * status.c and children.c.  The harness is a child
 * subreaper and reaps every process; programs are its children (the spawner
 * starts them with CLONE_PARENT), so their exit status reaches the client
 * even after the spawner that started them is gone (P4).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "die.h"
#include "harness.h"
#include "log.h"
#include "serve.h"

/* The one harness of this process: static, so zero from the start. */
struct harness harness;

/*
 * What a stop removes: the sockets, and the secrets this start wrote (the
 * Stand-ins file, control.bearer unless --bearer-file named the user's own),
 * so none stays readable on disk.  The protected dir and its home stay.
 */
static void remove_run_files(void)
{
	static const char *const names[] = {
	    JR2_CONTROL_SOCKET, JR2_STREAM_SOCKET, JR2_CUSTODIAN_SOCKET,
	    JR2_STANDINS_FILE,
	    JR2_BEARER_FILE /* last: only when bearer_made */};
	size_t n = sizeof(names) / sizeof(names[0]) - !harness.bearer_made;
	char path[PATH_MAX + 32];

	/* A mode a program changed would keep the files on disk. */
	guard_repair();
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", harness.protected_dir,
			 names[i]);
		if (unlink(path) && errno != ENOENT)
			say("cannot remove %s at the stop: %s", path,
			    strerror(errno));
	}
}

/*
 * A stop: no new connection, the spawner killed, SIGTERM to every program,
 * up to --stop-grace-ms for them to exit, SIGKILL to the rest; each exit is
 * still reported to its client.  Then the files go (remove_run_files), and
 * the harness exits 0.
 */
static void shut_down(int signo)
{
	long long started = jr2_now_ms();
	bool hurried = false;

	if (signo)
		say("stopping on signal %d: SIGTERM to the programs, SIGKILL "
		    "to those left after %u ms",
		    signo, harness.stop_grace_ms);
	else
		say("stopping as the Harness process ended: SIGTERM to the "
		    "programs, SIGKILL to those left after %u ms",
		    harness.stop_grace_ms);
	remove_run_files();
	close(harness.control_fd);
	close(harness.stream_fd);
	close(harness.custodian_fd);
	close(harness.abstract_fd);
	if (harness.spawner_pid > 0) {
		kill(harness.spawner_pid, SIGKILL);
		waitpid(harness.spawner_pid, NULL, 0);
		harness.spawner_pid = 0;
	}
	if (harness.spawner_fd >= 0) {
		on_spawner_message(); /* start reports it sent: programs */
		close(harness.spawner_fd);
		harness.spawner_fd = -1;
	}
	signal_programs(SIGTERM);
	if (!wait_for_children(harness.stop_grace_ms, SIGTERM, &hurried)) {
		signal_programs(SIGKILL);
		say("programs left after %lld ms%s: SIGKILL",
		    jr2_now_ms() - started,
		    hurried ? " (a second stop signal came)" : "");
		/* The kernel kills at once; a task in D state may lag. */
		wait_for_children(1000, SIGKILL, &(bool){false});
	}
	say("stopped after %lld ms; %s", jr2_now_ms() - started,
	    children_left() ? "some programs are still exiting"
			    : "no program is left");
	/* Written if the log's reader takes it soon; the exit waits no more. */
	jr2_log_flush(JR2_LOG_EXIT_MS);
	/* A stop signal: 0 (P8); the Harness process's end: its status, so
	 * that the container's restart policy acts. */
	exit(signo ? 0 : harness.process_status);
}

static void on_signal(void)
{
	struct signalfd_siginfo info;

	while (read(harness.signal_fd, &info, sizeof(info)) == sizeof(info)) {
		if (info.ssi_signo == SIGCHLD)
			reap();
		else
			shut_down((int)info.ssi_signo);
	}
	reap(); /* SIGCHLDs merge: always look */
}

int serve(const struct serve_options *opts)
{
	enum { FIXED = 7 };
	struct pollfd pfd[FIXED + MAX_CONNS];
	struct conn *polled[MAX_CONNS];
	char frozen[1024];
	int guard;

	start_check(opts);
	start_act(opts);
	/* An exit on an error leaves no secret on disk either. */
	jr2_die_set_cleanup(remove_run_files);
	guard = guard_start();
	if (guard >= 0)
		say("guard: the modes and owners of %s and its files are put "
		    "back at each change (where no read-only mount holds "
		    "them: no CAP_SYS_ADMIN)",
		    harness.protected_dir);
	if (guard < 0)
		say("guard: cannot watch %s (%s): a mode a program changes "
		    "there stays where no read-only mount holds it",
		    harness.protected_dir, strerror(errno));
	frozen_folders(frozen, sizeof(frozen));
	say("serving; protected dir %s, pid %d, ABI %d; frozen folders: %s",
	    harness.protected_dir, (int)getpid(), harness.abi.in_force, frozen);
	for (size_t i = 0; i < harness.plan.warnings.n; i++)
		say("warning: %s", harness.plan.warnings.v[i]);
	start_spawner();
	harness_process_start(opts);

	for (;;) {
		long long now = jr2_now_ms();
		int timeout = -1, n = FIXED, ready, log_wait, err;
		size_t room;
		bool peers;

		/* The Harness process ended (reap): serve stops. */
		if (harness.process_exited)
			shut_down(0);

		/* What the last round dropped closes now (R11, channel.h). */
		err = jr2_drop_flush();
		if (err)
			say("cannot make a thread to close what peers sent: "
			    "%s; "
			    "kept for the next round",
			    strerror(-err));
		if (harness.spawner_pid == 0 && harness.restart_at_ms &&
		    now >= harness.restart_at_ms)
			start_spawner();
		if (harness.spawner_pid == 0 && harness.restart_at_ms)
			timeout = (int)(harness.restart_at_ms - now);
		log_tick(now);
		log_wait = log_wait_ms(now);
		/* The count of a flood's dropped lines, when its window ends.
		 */
		if (log_wait >= 0 && (timeout < 0 || timeout > log_wait))
			timeout = log_wait;
		pfd[0] =
		    (struct pollfd){.fd = harness.signal_fd, .events = POLLIN};
		pfd[1] =
		    (struct pollfd){.fd = harness.control_fd, .events = POLLIN};
		pfd[2] = (struct pollfd){.fd = harness.custodian_fd,
					 .events = POLLIN};
		pfd[3] = (struct pollfd){.fd = harness.abstract_fd,
					 .events = POLLIN};
		pfd[5] =
		    (struct pollfd){.fd = harness.stream_fd, .events = POLLIN};
		pfd[6] = (struct pollfd){.fd = guard, .events = POLLIN};
		pfd[4] = (struct pollfd){
		    .fd = harness.spawner_fd,
		    .events =
			(short)(POLLIN | (harness.spawner_ready && queue_waits()
					      ? POLLOUT
					      : 0))};
		/* No room for what peers may send: they wait (R11). */
		room = 0;
		peers = peer_room(&room);
		if (!peers && (timeout < 0 || timeout > PEER_PAUSE_MS))
			timeout = PEER_PAUSE_MS;
		for (int i = 1; i <= 5; i++)
			if (i != 4)
				pfd[i].events = peers ? POLLIN : 0;
		/* A cancelled program's SIGKILL, when its grace ends. */
		if (cancel_next_ms()) {
			long long left = cancel_next_ms() - now;

			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		for (int i = 0; i < harness.conn_slots && peers; i++) {
			struct conn *c = &harness.conns[i];

			if (c->kind == CONN_FREE)
				continue;
			if (c->state == WAIT_REQUEST || c->state == IN_FLIGHT ||
			    c->state == ATTACHING) {
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
			jr2_die_path(1, "poll failed in", "the main loop");
		if (ready <= 0) {
			expire_waiting(jr2_now_ms());
			cancel_tick(jr2_now_ms());
			continue;
		}
		/* Reports first: a program's report precedes its exit. */
		if ((pfd[4].revents & ~POLLOUT) && harness.spawner_fd >= 0)
			on_spawner_message();
		if (pfd[0].revents)
			on_signal();
		if (pfd[6].revents)
			guard_on_events();
		if ((pfd[4].revents & POLLOUT) && harness.spawner_fd >= 0)
			flush_queue();
		for (int i = FIXED; i < n; i++) {
			struct conn *c = polled[i - FIXED];

			if (!pfd[i].revents || c->kind == CONN_FREE ||
			    c->fd != pfd[i].fd)
				continue;
			if (room < PEER_READ_ROOM && !peer_room(&room))
				break; /* the rest wait for the next round */
			room -= PEER_READ_ROOM;
			if (c->kind == CONN_CONTROL)
				on_control_readable(c);
			else
				on_custodian_readable(c);
		}
		if (pfd[1].revents)
			on_accept(harness.control_fd, CONN_CONTROL, false);
		if (pfd[5].revents)
			on_accept(harness.stream_fd, CONN_CONTROL, true);
		if (pfd[2].revents)
			on_accept(harness.custodian_fd, CONN_CUSTODIAN, false);
		if (pfd[3].revents)
			on_accept(harness.abstract_fd, CONN_CUSTODIAN, false);
		expire_waiting(jr2_now_ms());
		cancel_tick(jr2_now_ms());
	}
}
