// SPDX-License-Identifier: GPL-2.0-only
/* The harness's log queue and its writer thread (see log.h). */
#include <errno.h>
#include <sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOG_CHUNK    4096 /* written at once; a line is at most ~2 KiB */
#define WRITER_STACK (256 * 1024)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more, drained, started;
	int start_err; /* the writer's start: 1 pending, 0 or -errno */
	char buf[JR2_LOG_QUEUE_BYTES];
	size_t len;
	bool writing; /* the writer holds lines taken from buf */
	unsigned long dropped, dropped_total; /* dropped: not reported yet */
	long long first_drop_ms;
	pid_t pid; /* the process whose thread writes; 0: none yet */
} Q = {.lock = PTHREAD_MUTEX_INITIALIZER};

static long long log_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Blocking, whole: a program may have set O_NONBLOCK on a shared stderr. */
static void write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, buf, len);
		struct pollfd pfd = {.fd = STDERR_FILENO, .events = POLLOUT};

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EAGAIN) {
			poll(&pfd, 1, -1);
		} else if (n == 0 || errno != EINTR) {
			return; /* no reader left (EPIPE, EIO): nobody to tell
				 */
		}
	}
}

/* Whole lines from the queue's head, at most LOG_CHUNK bytes; locked. */
static size_t take_lines(char *out)
{
	size_t n = Q.len < LOG_CHUNK ? Q.len : LOG_CHUNK;

	while (n > 0 && Q.buf[n - 1] != '\n')
		n--;
	if (n == 0) /* cannot be: lines are shorter; do not stall on it */
		n = Q.len < LOG_CHUNK ? Q.len : LOG_CHUNK;
	memcpy(out, Q.buf, n);
	memmove(Q.buf, Q.buf + n, Q.len - n);
	Q.len -= n;
	return n;
}

static void *log_writer(void *arg)
{
	char chunk[LOG_CHUNK];
	int err = 0;

	(void)arg;
	/*
	 * A descriptor table of its own, with fds 0-2 only: the harness closes
	 * what peers sent while a thread holds the table they were in and
	 * then exits (channel.h, R11); sharing it, this thread, which never
	 * exits, would keep those open for good.
	 */
	if (unshare(CLONE_FILES))
		err = -errno;
	else
		syscall(SYS_close_range, 3U, ~0U, 0);
	pthread_mutex_lock(&Q.lock);
	Q.start_err = err;
	pthread_cond_broadcast(&Q.started);
	pthread_mutex_unlock(&Q.lock);
	if (err)
		return NULL;
	for (;;) {
		unsigned long dropped = 0;
		long long since = 0;
		size_t n = 0;

		pthread_mutex_lock(&Q.lock);
		while (!Q.len && !Q.dropped)
			pthread_cond_wait(&Q.more, &Q.lock);
		if (Q.len) {
			n = take_lines(chunk);
		} else {
			/* Caught up: what the queue could not hold, once. */
			dropped = Q.dropped;
			since = Q.first_drop_ms;
			Q.dropped = 0;
		}
		Q.writing = true;
		pthread_mutex_unlock(&Q.lock);
		if (dropped) {
			int len = snprintf(
			    chunk, sizeof(chunk),
			    "jr2-harness: %lu log lines were not written: the "
			    "harness's queue of %d KiB was full for %lld ms, "
			    "its reader (stderr) taking none (a stopped "
			    "terminal: Ctrl-S, tcflow TCOOFF; a pipe nobody "
			    "reads); keep the reader reading (Ctrl-Q) or send "
			    "the log to a file (2>>FILE)\n",
			    dropped, JR2_LOG_QUEUE_BYTES / 1024,
			    log_now_ms() - since);

			n = len > 0 && (size_t)len < sizeof(chunk) ? (size_t)len
								   : 0;
		}
		write_all(chunk, n);
		pthread_mutex_lock(&Q.lock);
		Q.writing = false;
		if (!Q.len && !Q.dropped)
			pthread_cond_broadcast(&Q.drained);
		pthread_mutex_unlock(&Q.lock);
	}
	return NULL;
}

int jr2_log_start(void)
{
	pthread_condattr_t clock;
	pthread_attr_t attr;
	pthread_t writer;
	sigset_t all, old;
	int err;

	if (Q.pid == getpid())
		return 0;
	Q.start_err = 1;
	pthread_condattr_init(&clock);
	pthread_condattr_setclock(&clock, CLOCK_MONOTONIC);
	pthread_cond_init(&Q.more, &clock);
	pthread_cond_init(&Q.drained, &clock);
	pthread_cond_init(&Q.started, &clock);
	pthread_condattr_destroy(&clock);
	err = pthread_attr_init(&attr);
	if (err)
		return -err;
	pthread_attr_setstacksize(&attr, WRITER_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/*
	 * Every signal blocked in the writer: the harness reads its own from a
	 * signalfd (a thread that did not block one would take it), and a
	 * blocked SIGTTOU counts as ignored for its writes (the kernel's
	 * is_ignored() reads the writing thread's mask in tty_check_change()),
	 * so `stty tostop` on a terminal where the harness is a background job
	 * lets the log through instead of stopping the harness.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&writer, &attr, log_writer, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	pthread_mutex_lock(&Q.lock);
	while (Q.start_err == 1)
		pthread_cond_wait(&Q.started, &Q.lock);
	err = Q.start_err;
	pthread_mutex_unlock(&Q.lock);
	if (err)
		return err;
	Q.pid = getpid();
	return 0;
}

void jr2_log_line(const char *line)
{
	size_t len = strlen(line);

	/* No writer in this process: before the start, or a forked child,
	 * where the writer does not exist and may have held the lock. */
	if (Q.pid != getpid()) {
		write_all(line, len);
		return;
	}
	pthread_mutex_lock(&Q.lock);
	if (len > sizeof(Q.buf) - Q.len) {
		if (!Q.dropped)
			Q.first_drop_ms = log_now_ms();
		Q.dropped++;
		Q.dropped_total++;
	} else {
		memcpy(Q.buf + Q.len, line, len);
		Q.len += len;
	}
	pthread_cond_signal(&Q.more);
	pthread_mutex_unlock(&Q.lock);
}

int jr2_log_flush(int ms)
{
	struct timespec until;
	int err = 0;

	if (Q.pid != getpid())
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&Q.lock);
	while ((Q.len || Q.dropped || Q.writing) && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&Q.drained, &Q.lock, &until);
	pthread_mutex_unlock(&Q.lock);
	return err == ETIMEDOUT ? -ETIMEDOUT : 0;
}

unsigned long jr2_log_dropped(void)
{
	unsigned long n;

	if (Q.pid != getpid())
		return 0;
	pthread_mutex_lock(&Q.lock);
	n = Q.dropped_total;
	pthread_mutex_unlock(&Q.lock);
	return n;
}
