// SPDX-License-Identifier: GPL-2.0-only
/* Parser and builder of the harness's messages (format in request.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "request.h"

#define KEY_MAX 16

const char *jr2_op_name(enum jr2_op op)
{
	switch (op) {
	case JR2_OP_EXEC:
		return "exec";
	case JR2_OP_STATUS:
		return "status";
	case JR2_OP_SPAWN:
		return "spawn";
	case JR2_OP_SIGNAL:
		return "signal";
	case JR2_OP_ATTACH:
		return "attach";
	case JR2_OP_NONE:
		break;
	}
	return "none";
}

bool jr2_env_name(const char *name, size_t len)
{
	if (len == 0 || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return false;
	return true;
}

/* Decimal digits only, no leading zero, from min to max. */
static bool small_number(const char *value, int min, int max, int *out)
{
	long n = 0;

	if (!value[0] || (value[0] == '0' && value[1]) || strlen(value) > 9)
		return false;
	for (const char *p = value; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		n = n * 10 + (*p - '0');
	}
	if (n < min || n > max)
		return false;
	*out = (int)n;
	return true;
}

/* An id: digits only, no leading zero, at most 19 (an unsigned long). */
static bool id_number(const char *value)
{
	size_t len = strlen(value);

	if (len == 0 || len > 19 || (value[0] == '0' && len > 1))
		return false;
	return strspn(value, "0123456789") == len;
}

/* Stores one value under its key; `at` is the field's offset for messages. */
static int store(struct jr2_request *req, const char *key, const char *value,
		 size_t at, struct jr2_err *err)
{
	const char **single = NULL;

	if (!strcmp(key, "bearer"))
		single = &req->bearer;
	else if (!strcmp(key, "cwd"))
		single = &req->cwd;
	else if (!strcmp(key, "id"))
		single = &req->id;
	else if (!strcmp(key, "token"))
		single = &req->token;
	if (single) {
		if (*single)
			return jr2_fail(err, EPROTO, true,
					"request: field '%s' at byte %zu given "
					"twice; send it once",
					key, at);
		*single = value;
		return 0;
	}
	if (!strcmp(key, "op")) {
		if (req->op != JR2_OP_NONE)
			return jr2_fail(err, EPROTO, true,
					"request: field 'op' at byte %zu given "
					"twice; send it once",
					at);
		if (!strcmp(value, "exec"))
			req->op = JR2_OP_EXEC;
		else if (!strcmp(value, "status"))
			req->op = JR2_OP_STATUS;
		else if (!strcmp(value, "spawn"))
			req->op = JR2_OP_SPAWN;
		else if (!strcmp(value, "signal"))
			req->op = JR2_OP_SIGNAL;
		else if (!strcmp(value, "attach"))
			req->op = JR2_OP_ATTACH;
		else
			return jr2_fail(
			    err, EPROTO, true,
			    "request: unknown op '%.64s' at byte %zu; "
			    "use exec, status, signal or attach",
			    value, at);
		return 0;
	}
	if (!strcmp(key, "signal")) {
		if (req->signo || !small_number(value, 1, 64, &req->signo))
			return jr2_fail(err, EPROTO, true,
					"request: field 'signal' at byte %zu "
					"is '%.16s' or given twice; send one "
					"signal number from 1 to 64",
					at, value);
		return 0;
	}
	if (!strcmp(key, "fd")) {
		if (req->stdio >= 0 || !small_number(value, 0, 2, &req->stdio))
			return jr2_fail(err, EPROTO, true,
					"request: field 'fd' at byte %zu is "
					"'%.16s' or given twice; send 0, 1 or "
					"2 once",
					at, value);
		return 0;
	}
	if (!strcmp(key, "json")) {
		if (strcmp(value, "1"))
			return jr2_fail(err, EPROTO, true,
					"request: field 'json' at byte %zu is "
					"'%.16s'; the only value is 1",
					at, value);
		req->json = true;
		return 0;
	}
	if (!strcmp(key, "layer")) {
		if (strcmp(value, "own") || req->own_layer)
			return jr2_fail(
			    err, EPROTO, true,
			    "request: field 'layer' at byte %zu is "
			    "'%.16s' or given twice; send 'own' once",
			    at, value);
		req->own_layer = true;
		return 0;
	}
	if (!strcmp(key, "arg")) {
		if (req->argc == JR2_REQ_MAX_ARGS)
			return jr2_fail(err, EPROTO, true,
					"request: more than %d 'arg' fields at "
					"byte %zu; pass fewer arguments",
					JR2_REQ_MAX_ARGS, at);
		req->argv[req->argc++] = value;
		return 0;
	}
	if (!strcmp(key, "env")) {
		const char *eq = strchr(value, '=');

		if (!eq || eq == value)
			return jr2_fail(err, EPROTO, true,
					"request: field 'env' at byte %zu is "
					"'%.64s', not NAME=VALUE",
					at, value);
		if (req->envc == JR2_REQ_MAX_ENV)
			return jr2_fail(
			    err, EPROTO, true,
			    "request: more than %d 'env' fields at byte %zu",
			    JR2_REQ_MAX_ENV, at);
		req->envp[req->envc++] = value;
		return 0;
	}
	if (!strcmp(key, "secret")) {
		if (!jr2_env_name(value, strlen(value)))
			return jr2_fail(
			    err, EPROTO, true,
			    "request: secret name '%.64s' at byte %zu "
			    "is not [A-Za-z_][A-Za-z0-9_]*",
			    value, at);
		if (req->n_secrets == JR2_REQ_MAX_SECRETS)
			return jr2_fail(
			    err, EPROTO, true,
			    "request: more than %d 'secret' fields at byte %zu",
			    JR2_REQ_MAX_SECRETS, at);
		req->secrets[req->n_secrets++] = value;
		return 0;
	}
	return jr2_fail(
	    err, EPROTO, true,
	    "request: unknown field '%s' at byte %zu; known: op bearer "
	    "cwd id json layer arg env secret signal token fd",
	    key, at);
}

/* What each op needs and refuses, once every field is read. */
static int validate(const struct jr2_request *req, struct jr2_err *err)
{
	switch (req->op) {
	case JR2_OP_NONE:
		return jr2_fail(
		    err, EPROTO, true,
		    "request: no 'op' field; send op exec or op status");
	case JR2_OP_SIGNAL:
		if (!req->id || !id_number(req->id) || !req->signo)
			return jr2_fail(err, EPROTO, true,
					"request: op signal needs an 'id' (the "
					"number its 'started' answer gave) and "
					"a 'signal' number");
		if (req->argc || req->envc || req->n_secrets || req->cwd ||
		    req->json || req->token || req->stdio >= 0)
			return jr2_fail(err, EPROTO, true,
					"request: op signal takes only bearer, "
					"id and signal");
		return 0;
	case JR2_OP_ATTACH:
		if (!req->token || strlen(req->token) != JR2_TOKEN_HEX ||
		    strspn(req->token, "0123456789abcdef") != JR2_TOKEN_HEX ||
		    req->stdio < 0)
			return jr2_fail(err, EPROTO, true,
					"request: op attach needs a 'token' of "
					"%d lowercase hex digits (the exec's "
					"'attach' answer) and an 'fd' of 0, 1 "
					"or 2",
					JR2_TOKEN_HEX);
		if (req->bearer || req->argc || req->envc || req->n_secrets ||
		    req->cwd || req->json || req->id || req->signo)
			return jr2_fail(err, EPROTO, true,
					"request: op attach takes only token "
					"and fd");
		return 0;
	case JR2_OP_STATUS:
		if (req->argc || req->envc || req->n_secrets || req->cwd)
			return jr2_fail(err, EPROTO, true,
					"request: op status takes no arg, env, "
					"secret or cwd field");
		break;
	case JR2_OP_EXEC:
	case JR2_OP_SPAWN:
		if (req->argc == 0 || !req->argv[0][0])
			return jr2_fail(
			    err, EPROTO, true,
			    "request: op %s needs a first 'arg' field "
			    "that names the program",
			    jr2_op_name(req->op));
		if (req->cwd && req->cwd[0] != '/')
			return jr2_fail(
			    err, EPROTO, true,
			    "request: cwd '%.200s' is relative; send "
			    "an absolute path",
			    req->cwd);
		if (req->json)
			return jr2_fail(
			    err, EPROTO, true,
			    "request: field 'json' belongs to op status only");
		break;
	}
	if (req->op == JR2_OP_EXEC && req->envc)
		return jr2_fail(err, EPROTO, true,
				"request: op exec takes no 'env' field; the "
				"harness composes the environment");
	if (req->op == JR2_OP_SPAWN &&
	    (!req->id || req->bearer || req->n_secrets))
		return jr2_fail(err, EPROTO, true,
				"request: op spawn needs an 'id' and takes no "
				"bearer or secret");
	if (req->op != JR2_OP_SPAWN && req->id)
		return jr2_fail(
		    err, EPROTO, true,
		    "request: field 'id' belongs to op spawn and signal only");
	if (req->signo || req->token || req->stdio >= 0)
		return jr2_fail(err, EPROTO, true,
				"request: fields 'signal', 'token' and 'fd' "
				"belong to op signal and attach only");
	if (req->op != JR2_OP_SPAWN && req->own_layer)
		return jr2_fail(
		    err, EPROTO, true,
		    "request: field 'layer' belongs to op spawn only");
	return 0;
}

int jr2_request_parse(const char *buf, size_t len, size_t max_bytes,
		      struct jr2_request *req, struct jr2_err *err)
{
	const size_t magic_len = strlen(JR2_REQ_MAGIC);
	size_t pos = magic_len;
	char *out;

	memset(req, 0, sizeof(*req));
	req->stdio = -1;
	if (len > max_bytes)
		return jr2_fail(
		    err, EPROTO, true,
		    "request: %zu bytes, more than the %zu allowed; "
		    "send fewer or shorter fields",
		    len, max_bytes);
	if (len < magic_len || memcmp(buf, JR2_REQ_MAGIC, magic_len))
		return jr2_fail(
		    err, EPROTO, true,
		    "request: does not start with the line JR2H1; use "
		    "jr2-harness exec or status");
	req->storage = malloc(len + 1);
	req->storage_size = len + 1;
	if (!req->storage) {
		jr2_fail(err, EPROTO, true,
			 "request: out of memory for %zu bytes", len);
		err->code = ENOMEM;
		err->bad_input = false;
		return -1;
	}
	out = req->storage;
	while (pos < len) {
		const size_t at = pos;
		char key[KEY_MAX + 1];
		size_t key_len = 0, value_len = 0, digits = 0;

		while (pos < len && buf[pos] >= 'a' && buf[pos] <= 'z' &&
		       key_len < KEY_MAX)
			key[key_len++] = buf[pos++];
		key[key_len] = '\0';
		if (key_len == 0 || pos >= len || buf[pos] != ' ')
			goto bad_field;
		pos++;
		while (pos < len && buf[pos] >= '0' && buf[pos] <= '9') {
			if (digits == 1 && value_len == 0)
				goto bad_field; /* leading zero */
			if (++digits > 7)
				goto bad_field;
			value_len = value_len * 10 + (size_t)(buf[pos++] - '0');
		}
		if (digits == 0 || pos >= len || buf[pos] != ':')
			goto bad_field;
		pos++;
		if (value_len > len - pos || len - pos - value_len < 1) {
			jr2_request_free(req);
			return jr2_fail(
			    err, EPROTO, true,
			    "request: field '%s' at byte %zu announces %zu "
			    "bytes but %zu are left; the request is truncated",
			    key, at, value_len, len - pos);
		}
		if (memchr(buf + pos, '\0', value_len)) {
			jr2_request_free(req);
			return jr2_fail(
			    err, EPROTO, true,
			    "request: field '%s' at byte %zu holds a "
			    "NUL byte; values cannot",
			    key, at);
		}
		if (buf[pos + value_len] != '\n')
			goto bad_field;
		memcpy(out, buf + pos, value_len);
		out[value_len] = '\0';
		if (store(req, key, out, at, err)) {
			jr2_request_free(req);
			return -1;
		}
		out += value_len + 1;
		pos += value_len + 1;
		continue;
	bad_field:
		jr2_request_free(req);
		return jr2_fail(err, EPROTO, true,
				"request: malformed field at byte %zu; write "
				"'<key> <length>:<value>\\n'",
				at);
	}
	if (validate(req, err)) {
		jr2_request_free(req);
		return -1;
	}
	return 0;
}

void jr2_request_free(struct jr2_request *req)
{
	/* Values may be a bearer or Stand-ins: nothing stays in the heap. */
	if (req->storage)
		explicit_bzero(req->storage, req->storage_size);
	free(req->storage);
	memset(req, 0, sizeof(*req));
	req->stdio = -1;
}

int jr2_frame_head(const char *buf, size_t len, size_t max, size_t *body,
		   struct jr2_err *err)
{
	size_t n = 0, i;

	for (i = 0; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		if (i == 1 && buf[0] == '0')
			break;
		n = n * 10 + (size_t)(buf[i] - '0');
		if (i + 1 >= JR2_FRAME_HEAD_MAX || n > max)
			goto bad;
	}
	if (i == len)
		return -EAGAIN;
	if (i == 0 || buf[i] != '\n' || n == 0)
		goto bad;
	*body = n;
	return 0;
bad:
	return jr2_fail(
	    err, EPROTO, true,
	    "stream: a frame starts with its length in decimal "
	    "(1 to %zu, no leading zero) and a newline; got "
	    "'%.*s'",
	    max, (int)(len < JR2_FRAME_HEAD_MAX ? len : JR2_FRAME_HEAD_MAX),
	    buf);
}

static void append(struct jr2_msg *msg, const void *data, size_t len)
{
	if (msg->failed)
		return;
	if (msg->len + len > msg->cap) {
		size_t cap = msg->cap ? msg->cap : 256;
		char *bigger;

		while (cap < msg->len + len)
			cap *= 2;
		/*
		 * Not realloc: the old block, freed, would keep what the
		 * message held (a bearer, Stand-ins) in the heap, which a
		 * spawner forked later inherits.
		 */
		bigger = malloc(cap);
		if (!bigger) {
			msg->failed = true;
			return;
		}
		if (msg->buf) {
			memcpy(bigger, msg->buf, msg->len);
			explicit_bzero(msg->buf, msg->cap);
			free(msg->buf);
		}
		msg->buf = bigger;
		msg->cap = cap;
	}
	memcpy(msg->buf + msg->len, data, len);
	msg->len += len;
}

void jr2_msg_init(struct jr2_msg *msg)
{
	memset(msg, 0, sizeof(*msg));
	append(msg, JR2_REQ_MAGIC, strlen(JR2_REQ_MAGIC));
}

void jr2_msg_field(struct jr2_msg *msg, const char *key, const char *value)
{
	char head[64];
	size_t value_len;
	int n;

	value_len = strlen(value);
	n = snprintf(head, sizeof(head), "%s %zu:", key, value_len);
	if (n < 0 || (size_t)n >= sizeof(head)) {
		msg->failed = true;
		return;
	}
	append(msg, head, (size_t)n);
	append(msg, value, value_len);
	append(msg, "\n", 1);
}

void jr2_msg_free(struct jr2_msg *msg)
{
	if (msg->buf)
		explicit_bzero(msg->buf, msg->cap);
	free(msg->buf);
	memset(msg, 0, sizeof(*msg));
}
