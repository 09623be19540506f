/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The messages of the control channel (client -> harness) and of the spawner
 * channel (harness -> spawner).  Pure code: parse and build, no I/O.
 *
 * A message is the line "JR2H1\n" followed by fields, each written as
 *   <key> <length>:<value>\n
 * where key is one of the words below, length is the decimal byte count of
 * value (no leading zero), and value holds any byte but NUL.  Lengths make
 * arguments with spaces or newlines safe, and make truncation visible.
 */
#ifndef JR2_REQUEST_H
#define JR2_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h" /* struct jr2_err: errors as the library reports them */

#define JR2_REQ_MAGIC	    "JR2H1\n"
#define JR2_REQ_MAX_BYTES   (64 * 1024) /* a control request */
#define JR2_SPAWN_MAX_BYTES (1024 * 1024) /* a spawn message, env included */
#define JR2_REQ_MAX_ARGS    256
#define JR2_REQ_MAX_ENV	    1024
#define JR2_REQ_MAX_SECRETS 32
#define JR2_REQ_MAX_FDS	    16 /* stdin, stdout, stderr and those passed */

enum jr2_op {
	JR2_OP_NONE,
	JR2_OP_EXEC, /* client: run argv through the spawner */
	JR2_OP_STATUS, /* client: report the state */
	JR2_OP_SPAWN, /* harness to spawner: start argv with env */
	JR2_OP_SIGNAL, /* client: a signal to a program it started */
	JR2_OP_ATTACH, /* stream client: a connection as a program's stdio */
};

/* A stream connection's frame: "<length>\n" then length bytes. */
#define JR2_FRAME_HEAD_MAX 8 /* at most 7 digits and the newline */
/* The one-time token of an exec over the stream socket: hex of 16 bytes. */
#define JR2_TOKEN_BYTES 16
#define JR2_TOKEN_HEX	(2 * JR2_TOKEN_BYTES)

struct jr2_request {
	enum jr2_op op;
	const char *bearer; /* NULL when absent */
	const char *cwd; /* NULL when absent */
	const char *id; /* spawn, signal: the harness's request id */
	const char *token; /* attach: the token the exec's answer gave */
	int signo; /* signal: 1 to 64 */
	int stdio; /* attach: 0 stdin, 1 stdout, 2 stderr; -1 absent */
	bool json; /* status: answer in JSON */
	bool own_layer; /* spawn: the env holds a Stand-in ("layer own") */
	const char *argv[JR2_REQ_MAX_ARGS + 1]; /* NULL-terminated */
	size_t argc;
	const char *envp[JR2_REQ_MAX_ENV + 1]; /* NULL-terminated */
	size_t envc;
	const char *secrets[JR2_REQ_MAX_SECRETS];
	size_t n_secrets;
	char *storage; /* the values, NUL-terminated; owned */
	size_t storage_size; /* wiped by jr2_request_free */
};

/*
 * Parses len bytes of buf.  On success fills *req (free with
 * jr2_request_free) and returns 0.  On failure returns -1 and fills *err
 * (bad input, EPROTO) with one line that names the field, the byte offset
 * and the fix.
 */
int jr2_request_parse(const char *buf, size_t len, size_t max_bytes,
		      struct jr2_request *req, struct jr2_err *err);
void jr2_request_free(struct jr2_request *req);
const char *jr2_op_name(enum jr2_op op);

/*
 * The head of a frame of the stream socket in buf[0, len): 0 with *body set
 * when it is whole ("<digits>\n", no leading zero, at most max), -EAGAIN
 * when more bytes may still complete it, -1 with *err filled when it cannot.
 */
int jr2_frame_head(const char *buf, size_t len, size_t max, size_t *body,
		   struct jr2_err *err);

/* An environment (and secret) name: [A-Za-z_][A-Za-z0-9_]*, len bytes. */
bool jr2_env_name(const char *name, size_t len);

/* A growing message; on allocation failure `failed` is set and kept. */
struct jr2_msg {
	char *buf;
	size_t len, cap;
	bool failed;
};

void jr2_msg_init(struct jr2_msg *msg);
void jr2_msg_field(struct jr2_msg *msg, const char *key, const char *value);
void jr2_msg_free(struct jr2_msg *msg);

#endif /* JR2_REQUEST_H */
