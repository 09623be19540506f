/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spawner: a child of the harness that confines itself once, so that
 * every program it starts lives in its Landlock domain, one layer below it
 * (P3: one layer shared by the requests given no Stand-in, one of its own
 * for each request given one), then starts programs on the harness's
 * request.  Its programs are made children of the harness (CLONE_PARENT),
 * which reaps them and reports their exit status.
 *
 * Its messages to the harness are enum jr2_spawner_msg_kind below, one per
 * SOCK_SEQPACKET message, each the word of its kind and its fields.
 * "started" and most "error"s are sent by the program's own process before
 * its execve or its exit, so they always precede its exit status.
 */
#ifndef JR2_SPAWNER_H
#define JR2_SPAWNER_H

#include <stdarg.h>
#include <stddef.h>

#include "abi.h"
#include "policy.h"

#define JR2_SPAWNER_FD 3 /* the spawner's end of its channel */

/* Every message the spawner sends, by the word it starts with. */
enum jr2_spawner_msg_kind {
	JR2_SPAWNER_READY, /* "ready": confined; waiting for requests */
	JR2_SPAWNER_FAIL, /* "fail <message>": could not confine; the spawner
			     then exits 125 */
	JR2_SPAWNER_LOG, /* "log <line>": a line for the harness's log (the
			    spawner writes to no stderr) */
	JR2_SPAWNER_STARTED, /* "started <id> <pid>", with the program's pidfd:
				request <id> runs as <pid> */
	JR2_SPAWNER_ERROR, /* "error <id> <errno> <message>": request <id>
			      could not be started; <id> "-" when the
			      request could not be read */
	JR2_SPAWNER_MSG_KINDS,
	JR2_SPAWNER_UNKNOWN = JR2_SPAWNER_MSG_KINDS, /* none of the above */
};

/* The word of each kind, as sent. */
extern const char *const jr2_spawner_words[JR2_SPAWNER_MSG_KINDS];

struct jr2_spawner_msg {
	enum jr2_spawner_msg_kind kind;
	unsigned long id; /* started, error */
	int pid; /* started: > 0 */
	int err; /* error */
	const char *text; /* fail, log, error: the rest, in the parsed buffer */
};

/*
 * One message, NUL-terminated, into *msg; its kind.  JR2_SPAWNER_UNKNOWN for
 * any other word, or a known word without its fields ("error -" among
 * them: no request to answer).
 */
enum jr2_spawner_msg_kind jr2_spawner_msg_parse(const char *buf,
						struct jr2_spawner_msg *msg);

/*
 * Formats the message of `kind` into buf: its word, then a space and fmt's
 * text unless fmt is NULL.  Its length, at most size - 1 (cut there).
 */
size_t jr2_spawner_msg_vformat(char *buf, size_t size,
			       enum jr2_spawner_msg_kind kind, const char *fmt,
			       va_list ap);

/*
 * Never returns.  Runs in the forked child; sock is its channel.  plan: the
 * harness's plan at start, the reference for the protected dirs' inodes.
 */
void jr2_spawner_main(int sock, const struct jr2_policy *policy,
		      const struct jr2_abi *abi,
		      const struct jr2_ruleset_plan *plan)
    __attribute__((noreturn));

#endif /* JR2_SPAWNER_H */
