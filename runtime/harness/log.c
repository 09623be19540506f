// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness's log (see log.h): the lines of serve (say(), one kind of line
 * rate-limited), their queue and its writer thread.
 */
#include <errno.h>
#include <stdarg.h>
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

#include "die.h"
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

long long jr2_now_ms(void)
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
			    jr2_now_ms() - since);

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

/* Starts the writer thread (once, before any program runs); 0 or -errno. */
static int jr2_log_start(void)
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

/* The process whose writer starts with its first line (start_log_lazily). */
static pid_t lazy_pid;

static void __attribute__((noreturn)) no_writer(int err)
{
	jr2_die_set_writer(NULL);
	jr2_die(1,
		"cannot make the log's writer thread: %s; without it a "
		"program that stops the log's reader (a terminal it "
		"shares) would stop the harness; raise the limit of "
		"tasks (ulimit -u, the cgroup's pids.max) or free "
		"memory",
		strerror(-err));
}

/*
 * Queues one line (its newline included).  In a process with no writer
 * thread (before jr2_log_start(), or a forked child: the spawner, which never
 * takes the queue's lock) it is written to fd 2 at once.
 */
static void jr2_log_line(const char *line)
{
	size_t len = strlen(line);
	int err;

	if (lazy_pid && lazy_pid == getpid()) {
		lazy_pid = 0;
		err = jr2_log_start();
		if (err)
			no_writer(err);
	}

	/* No writer in this process: before the start, or a forked child,
	 * where the writer does not exist and may have held the lock. */
	if (Q.pid != getpid()) {
		write_all(line, len);
		return;
	}
	pthread_mutex_lock(&Q.lock);
	if (len > sizeof(Q.buf) - Q.len) {
		if (!Q.dropped)
			Q.first_drop_ms = jr2_now_ms();
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

/* Per kind of line (its format): this many a second, the rest counted. */
#define LOG_WINDOW_MS  1000
#define LOG_PER_WINDOW 5
#define LOG_KINDS      32

static struct {
	const char *fmt;
	long long start_ms;
	unsigned long printed, dropped;
} L[LOG_KINDS];

/* Says how many lines of each kind were dropped in a window now over. */
void log_tick(long long now)
{
	for (int i = 0; i < LOG_KINDS; i++) {
		if (!L[i].fmt || now - L[i].start_ms < LOG_WINDOW_MS)
			continue;
		if (L[i].dropped) {
			char line[160];

			snprintf(
			    line, sizeof(line),
			    "jr2-harness: %lu more lines like \"%.40s...\" "
			    "within %d ms were not logged (a flood?)\n",
			    L[i].dropped, L[i].fmt, LOG_WINDOW_MS);
			jr2_log_line(line);
		}
		L[i].fmt = NULL;
	}
}

/* Milliseconds until the first window with dropped lines is over; -1: none. */
int log_wait_ms(long long now)
{
	long long first = -1;

	for (int i = 0; i < LOG_KINDS; i++) {
		long long left = L[i].start_ms + LOG_WINDOW_MS - now;

		if (L[i].fmt && L[i].dropped && (first < 0 || left < first))
			first = left > 0 ? left : 0;
	}
	return (int)first;
}

/*
 * The harness's log: stderr, one line per event.  Every control character
 * (newlines of a client's argument included) is written as \xNN, so no value
 * from a client can forge a line; a flood of one kind of line is counted.
 * Lines go through log.h's queue: no write of the loop waits for the log's
 * reader, which a program may stop (R11).
 */
void say(const char *fmt, ...)
{
	char raw[1536], line[2048 + 16] = "jr2-harness: ";
	size_t used = strlen(line);
	long long now = jr2_now_ms();
	int slot = -1;
	va_list ap;

	log_tick(now);
	for (int i = 0; i < LOG_KINDS && slot < 0; i++)
		if (L[i].fmt == fmt)
			slot = i;
	for (int i = 0; i < LOG_KINDS && slot < 0; i++)
		if (!L[i].fmt) {
			slot = i;
			L[i].fmt = fmt;
			L[i].start_ms = now;
			L[i].printed = L[i].dropped = 0;
		}
	if (slot >= 0 && L[slot].printed >= LOG_PER_WINDOW) {
		L[slot].dropped++;
		return;
	}
	if (slot >= 0)
		L[slot].printed++;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	for (const unsigned char *c = (const unsigned char *)raw;
	     *c && used + 6 < sizeof(line); c++) {
		if (*c < 0x20 || *c == 0x7f || *c == '\\')
			used += (size_t)snprintf(
			    line + used, sizeof(line) - used, "\\x%02x", *c);
		else
			line[used++] = (char)*c;
	}
	line[used++] = '\n';
	line[used] = '\0';
	jr2_log_line(line);
}

/* An exit's line (die.h) through the queue, written if the reader takes it
 * within JR2_LOG_EXIT_MS. */
static void die_to_log(const char *line)
{
	jr2_log_line(line);
	jr2_log_flush(JR2_LOG_EXIT_MS);
}

/*
 * R11: the log's writer, before any line (a program of an earlier harness
 * may hold the terminal) and before any program runs.  Without it, a program
 * that stops the log's reader (a terminal it shares: tcflow TCOOFF) would
 * hold the loop in write(2): no start rather than such a harness.
 */
void start_log(void)
{
	int err = jr2_log_start();

	if (err)
		no_writer(err);
	jr2_die_set_writer(die_to_log);
}

void start_log_lazily(void)
{
	lazy_pid = getpid();
	jr2_die_set_writer(die_to_log);
}
