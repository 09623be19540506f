/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state of `jr2-harness serve` (one process, one harness): its
 * connections, its programs, its spawner and what it composed at start.
 * Each file of serve's parts reads and writes the one instance `harness`;
 * the functions below are what one part calls in another.
 */
#ifndef JR2_HARNESS_SERVE_H
#define JR2_HARNESS_SERVE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "abi.h"
#include "channel.h"
#include "digest.h"
#include "env.h"
#include "harness.h"
#include "policy.h"
#include "request.h"
#include "standins.h"

#ifndef P_PIDFD
#define P_PIDFD ((idtype_t)3)
#endif

/* Separate budgets: a flood of the Custodian cannot starve the control
 * channel; one peer (SO_PEERCRED pid) holds few of the Custodian's. */
#define MAX_CONTROL_CONNS   128
#define MAX_CUSTODIAN_CONNS 128
#define MAX_PER_PEER	    8
/* Programs (the harness's descendants) may hold this many control ones. */
#define MAX_CONTROL_PROGRAMS 16
#define MAX_CONNS	     (MAX_CONTROL_CONNS + MAX_CUSTODIAN_CONNS)
#define MAX_PROGRAMS	     4096
#define SPAWN_TIMEOUT_MS     10000 /* for the spawner to answer a request */
#define QUICK_DEATH_MS	     1000 /* a spawner that lived less backs off */
#define BACKOFF_FIRST_MS     10
/*
 * R11: one read of a peer may bring JR2_SCM_MAX_FD descriptors, and closing
 * its connection drops it and a request's own; where the table has no room
 * for them (a low RLIMIT_NOFILE, what was dropped not closed yet: no thread
 * could be had), the kernel would release the rest in this task, a
 * lingering socket's last close among them.  Then the peers wait.
 */
#define PEER_READ_ROOM	   (JR2_SCM_MAX_FD + 1 + JR2_REQ_MAX_FDS)
#define PEER_PAUSE_MS	   100
#define CUSTODIAN_LINE_MAX 4096

enum conn_kind { CONN_FREE, CONN_CONTROL, CONN_CUSTODIAN };

enum conn_state {
	WAIT_REQUEST, /* connected, nothing read yet */
	ATTACHING, /* a stream exec: waiting for its stdio connections */
	QUEUED, /* authenticated exec, waiting for a ready spawner */
	IN_FLIGHT, /* sent to the spawner, no answer yet */
	RUNNING, /* program started, waiting for its exit */
};

struct conn {
	enum conn_kind kind;
	enum conn_state state;
	int fd;
	pid_t peer; /* SO_PEERCRED at accept */
	bool from_program; /* the peer descends from the harness */
	bool bearer_shown; /* a client's: a request with the bearer came */
	bool stream; /* of the stream socket: frames "<length>\n" + bytes */
	char *frame; /* stream: the frame being read (wiped, freed at close) */
	size_t frame_have, frame_head, frame_body; /* head 0: not whole yet */
	char token[JR2_TOKEN_HEX + 1]; /* ATTACHING: the one-time token */
	unsigned long id;
	long long deadline_ms; /* WAIT_REQUEST, ATTACHING and IN_FLIGHT */
	char cmd[80]; /* argv[0], for messages */
	struct jr2_msg spawn; /* QUEUED: the message for the spawner */
	int fds[JR2_REQ_MAX_FDS];
	size_t n_fds;
	char line[CUSTODIAN_LINE_MAX];
	size_t line_len;
};

/* A program is known by its pidfd (sent by the program's own process with
 * its "started"): its exit is read from that, never matched by a bare pid. */
struct program {
	pid_t pid; /* for status and logs */
	int pidfd;
	unsigned int generation;
	unsigned long id; /* its request's, as "started" gave it */
	struct conn *conn; /* NULL once its client went away */
};

/*
 * A cancel: the client of program `sid` went away while it ran.  Its
 * session had SIGTERM; at kill_at_ms, SIGKILL.  gone_ticks: when the
 * program (the session's leader) was reaped, in /proc's starttime units
 * (clock ticks of CLOCK_BOOTTIME); ULLONG_MAX while it is not.
 */
struct cancel {
	unsigned long id; /* the request's: never reused, unlike its pid */
	pid_t sid;
	unsigned long long gone_ticks;
	long long kill_at_ms;
};

struct harness {
	char protected_dir[PATH_MAX];
	char abstract_name[108];
	struct jr2_abi abi;
	struct jr2_policy policy;
	struct jr2_ruleset_plan plan; /* compiled once at start */
	const char *config_path;
	struct jr2_harness_config cfg;
	struct jr2_strv confined_env;
	struct jr2_standins standins;
	uint8_t bearer_digest[JR2_SHA256_LEN];
	bool
	    bearer_made; /* control.bearer is this start's (no --bearer-file) */
	unsigned int max_backoff_ms;
	unsigned int stop_grace_ms;
	unsigned int request_timeout_ms; /* to send a request or a line */

	int signal_fd, control_fd, stream_fd, custodian_fd, abstract_fd;
	int spawner_fd; /* -1: none */
	pid_t spawner_pid;
	bool spawner_ready;
	unsigned int generation;
	long long spawner_started_ms, restart_at_ms; /* restart_at 0: none */
	unsigned int quick_deaths;

	/* The Harness process (serve -- CMD): the checked real path of CMD,
	 * its environment, its pid (0: none or gone), its wait status. */
	char cmd_path[PATH_MAX];
	struct jr2_strv process_env;
	pid_t process_pid;
	bool process_exited;
	int process_status;

	/* RLIMIT_NOFILE at start: the spawner and its programs get it back. */
	struct rlimit start_nofile;
	/* oom_score_adj at start (keep_out_of_oom), likewise; "" when
	 * unchanged. */
	char start_oom_score_adj[16];
	/* The last control request read (it held a bearer); see
	 * forget_secrets. */
	char request_buf[JR2_REQ_MAX_BYTES + 1];
	bool request_buf_used; /* set before the first read into it */

	/*
	 * conns[0, conn_slots) have held a connection; the rest never did and
	 * are all zeros (CONN_FREE), their pages never touched: a scan stops
	 * at conn_slots, so that a start, its spawner's fork and each round of
	 * the loop do not fault in the whole table (a slot per ~4 KiB page).
	 */
	struct conn conns[MAX_CONNS];
	int conn_slots;
	struct program programs[MAX_PROGRAMS];
	size_t n_programs;
	struct cancel cancels[MAX_PROGRAMS];
	size_t n_cancels;
	unsigned long next_id;
};

extern struct harness harness;

/* undo.c: what a start made, undone on failure (undo_start, the die
 * cleanup) or renamed from NAME.new into place (commit_files) */
void made_file(const char *path);
void made_dir(const char *path);
void undo_start(void);
void commit_files(void);

/* start.c: the start transaction */
void start_act(const struct serve_options *opts);
void start_check(const struct serve_options *opts);

/* trust.c: the files the harness trusts (E4, R9) */
/* "a FIFO", "a directory", ...: the type of `mode` for a message. */
const char *jr2_file_kind(mode_t mode);
/*
 * The regular file `path` whole, at most `max` bytes, into *text (a new
 * NUL-terminated string): opened non-blocking, so that no FIFO or device
 * holds the caller.  0; 1 when it is not a regular file (its type in
 * *mode); -EFBIG when larger than max; else -errno of the open or read.
 */
int jr2_read_regular(const char *path, size_t max, char **text, mode_t *mode);
/* The same, for a flag's file: exit 2 with one line naming `what`. */
char *read_small_file(const char *path, const char *what);
void check_no_symlink(const char *input, const char *path);
void check_read_file(const char *input, const char *path,
		     enum jr2_path_kind kind);
void check_trusted_file(const char *input, const char *path, bool secret);

/* harness_process.c: the Harness process (serve -- CMD) and its checks */
void harness_process_check(const struct serve_options *opts);
void harness_process_start(const struct serve_options *opts);
/* In reap(): true when pid was the Harness process (then reaped). */
bool harness_process_reaped(pid_t pid);

/* reexec.c: the re-execution with its own environment (E1, E2) */
void compose_environments(struct jr2_strv *start);
void reexec_with_own_environment(const struct serve_options *opts);
void take_start_environment(int fd, struct jr2_strv *start);

/* sockets.c: the sockets and the signals */
void bind_abstract(void);
void open_sockets(void);
void refuse_second_harness(void);
void watch_signals(void);

/* conns.c: the connections */
bool peer_room(size_t *room);
bool queue_waits(void);
struct conn *conn_by_id(unsigned long id, bool running_too);
void conn_close(struct conn *c);
void conn_send(struct conn *c, const char *buf, size_t len);
void conn_reply(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void exit_status_to_client(struct conn *c, int status);
void expire_waiting(long long now);
void flush_queue(void);
void on_accept(int listen_fd, enum conn_kind kind, bool stream);
void on_control_readable(struct conn *c);
void on_custodian_readable(struct conn *c);
void refuse(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* status.c: the answer to `status`, the start's lines; formats only */
void frozen_folders(char *out, size_t size);
/* "status\n" and the state, text or JSON, whole; *len its bytes; free it. */
char *status_answer(bool json, size_t *len);

/* children.c: the spawner, its protocol, and the reaping */
bool children_left(void);
bool signal_programs(int signo);
bool wait_for_children(long long ms, int signo, bool *hurried);
void on_spawner_message(void);
void reap(void);
void start_spawner(void);

/* cancel.c: a cancelled program and its session; a client's signal */
void cancel_program(size_t i, const char *why);
void cancel_tick(long long now);
long long cancel_next_ms(void); /* 0: none */
/* The program of request id is reaped: its session's number may be reused. */
void leader_gone(unsigned long id);
void signal_program(const struct program *p, int signo);

/* procfs.c: /proc/self settings, and a process's numbers in /proc/PID/stat */
int write_proc_self(const char *name, const char *text);
struct proc_stat {
	pid_t parent; /* 0: outside this pid namespace */
	pid_t session;
	unsigned long long start; /* clock ticks since boot */
};
bool proc_stat(pid_t pid, struct proc_stat *st);
/* The parent of pid (0: outside this pid namespace), or -1: not known. */
pid_t proc_parent(pid_t pid);
/* guard.c: the protected dir's modes and owners put back at each change;
 * guard_start returns the inotify descriptor to poll, -1 on failure. */
int guard_start(void);
void guard_on_events(void);
void guard_repair(void);

#endif /* JR2_HARNESS_SERVE_H */
