// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cancels: a program no client waits for any more, and its session, get
 * SIGTERM, then SIGKILL once --stop-grace-ms passed; a signal asked for by
 * a client reaches its program's group and its pidfd.
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "serve.h"

/* Now in /proc's starttime units: clock ticks of CLOCK_BOOTTIME. */
static unsigned long long boot_ticks(void)
{
	struct timespec ts;
	unsigned long long hz = (unsigned long long)sysconf(_SC_CLK_TCK);

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * hz +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / hz);
}

/* Whether the process of pidfd is not reaped yet (a zombie counts). */
static bool pidfd_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

/*
 * signo to every process of session `c->sid`; how many.  Each is opened as
 * a pidfd and its session read again after, so a signal never reaches a
 * process that took a pid number the walk saw.  The session's number is
 * its leader's pid, free for reuse once the leader is reaped and no member
 * is left: a process in it counts only while that number is proven the
 * cancelled session's.  So it is while the leader is a program not reaped
 * yet (only the harness reaps it), or for a process that started by the
 * clock tick the leader was reaped in (the number was held then, a process
 * never changes its session to a number not its own, and the kernel hands
 * pid numbers out cyclically: a freed one comes back only after the others
 * are used, which takes longer than a tick unless the pid space is nearly
 * full or a privileged process picks the number: ns_last_pid, clone3's
 * set_tid; SECURITY.md), or while such a process (the anchor, held by
 * pidfd) is not reaped.
 */
static size_t signal_session(const struct cancel *c, int signo)
{
	int anchor = -1;
	size_t n = 0;
	bool leader = c->gone_ticks == ULLONG_MAX;
	struct dirent *d;
	DIR *proc;

	if (leader)
		kill(-c->sid, signo); /* its group: atomic against a fork */
	for (int pass = 0; pass < 2; pass++) {
		proc = opendir("/proc");
		while (proc && (d = readdir(proc))) {
			long pid = strtol(d->d_name, NULL, 10);
			struct proc_stat st;
			int fd;

			if (pid <= 0 || !proc_stat((pid_t)pid, &st) ||
			    st.session != c->sid)
				continue;
			/* First pass: the anchor only. */
			if (pass == 0 &&
			    (leader || st.start > c->gone_ticks || anchor >= 0))
				continue;
			fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
			if (fd < 0)
				continue;
			if (!proc_stat((pid_t)pid, &st) ||
			    st.session != c->sid || !pidfd_alive(fd)) {
				close(fd);
				continue;
			}
			if (pass == 0) {
				anchor = fd;
				continue;
			}
			if (leader || st.start <= c->gone_ticks ||
			    (anchor >= 0 && pidfd_alive(anchor))) {
				if (syscall(SYS_pidfd_send_signal, fd, signo,
					    NULL, 0) == 0)
					n++;
			}
			close(fd);
		}
		if (proc)
			closedir(proc);
	}
	if (anchor >= 0)
		close(anchor);
	return n;
}

/* signo to program p: its process group (its pid while it is not reaped)
 * and its pidfd (it may have left its group). */
void signal_program(const struct program *p, int signo)
{
	kill(-p->pid, signo);
	syscall(SYS_pidfd_send_signal, p->pidfd, signo, NULL, 0);
}

/*
 * Program i is cancelled: no client waits for it any more.  It and its
 * session get SIGTERM (and SIGCONT, so a stopped one meets it), SIGKILL
 * once --stop-grace-ms passed.  A process that left the session (setsid:
 * a server started on purpose) stays, as after a terminal's hangup.
 */
void cancel_program(size_t i, const char *why)
{
	struct program *p = &harness.programs[i];
	struct cancel c = {.id = p->id,
			   .sid = p->pid,
			   .gone_ticks = ULLONG_MAX,
			   .kill_at_ms = jr2_now_ms() + harness.stop_grace_ms};

	p->conn = NULL;
	say("cancelling program %d (request %lu): %s; SIGTERM to its session, "
	    "SIGKILL to what is left after %u ms",
	    (int)p->pid, p->id, why, harness.stop_grace_ms);
	signal_program(p, SIGTERM);
	signal_session(&c, SIGTERM);
	signal_program(p, SIGCONT);
	signal_session(&c, SIGCONT);
	if (harness.n_cancels == MAX_PROGRAMS) {
		say("too many cancels at once: program %d gets SIGKILL now",
		    (int)p->pid);
		signal_program(p, SIGKILL);
		signal_session(&c, SIGKILL);
		return;
	}
	harness.cancels[harness.n_cancels++] = c;
}

void leader_gone(unsigned long id)
{
	for (size_t i = 0; i < harness.n_cancels; i++)
		if (harness.cancels[i].id == id &&
		    harness.cancels[i].gone_ticks == ULLONG_MAX)
			harness.cancels[i].gone_ticks = boot_ticks();
}

long long cancel_next_ms(void)
{
	long long next = 0;

	for (size_t i = 0; i < harness.n_cancels; i++)
		if (!next || harness.cancels[i].kill_at_ms < next)
			next = harness.cancels[i].kill_at_ms;
	return next;
}

/* The SIGKILLs due: again while a round finds one (a fork may race it). */
void cancel_tick(long long now)
{
	for (size_t i = 0; i < harness.n_cancels;) {
		struct cancel c = harness.cancels[i];

		if (now < c.kill_at_ms) {
			i++;
			continue;
		}
		/* By request id: once the program is reaped, its pid number
		 * may be another request's program. */
		for (size_t p = 0; p < harness.n_programs; p++)
			if (harness.programs[p].id == c.id)
				signal_program(&harness.programs[p], SIGKILL);
		for (int round = 0; round < 8; round++)
			if (!signal_session(&c, SIGKILL))
				break;
		harness.cancels[i] = harness.cancels[--harness.n_cancels];
	}
}
