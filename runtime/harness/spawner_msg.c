// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spawner's messages to the harness (spawner.h): one table of words, the
 * formatter the spawner sends with and the parser the harness reads with.
 * Pure code, unit-tested.
 */
#include <stdio.h>
#include <string.h>

#include "spawner.h"

const char *const jr2_spawner_words[JR2_SPAWNER_MSG_KINDS] = {
    [JR2_SPAWNER_READY] = "ready", [JR2_SPAWNER_FAIL] = "fail",
    [JR2_SPAWNER_LOG] = "log",	   [JR2_SPAWNER_STARTED] = "started",
    [JR2_SPAWNER_ERROR] = "error",
};

size_t jr2_spawner_msg_vformat(char *buf, size_t size,
			       enum jr2_spawner_msg_kind kind, const char *fmt,
			       va_list ap)
{
	int len = snprintf(buf, size, "%s%s", jr2_spawner_words[kind],
			   fmt ? " " : "");

	if (fmt && len >= 0 && (size_t)len < size)
		len += vsnprintf(buf + len, size - (size_t)len, fmt, ap);
	if (len < 0)
		len = 0;
	return (size_t)len < size ? (size_t)len : size - 1;
}

static enum jr2_spawner_msg_kind kind_of(const char *buf)
{
	for (int k = 0; k < JR2_SPAWNER_MSG_KINDS; k++) {
		size_t len = strlen(jr2_spawner_words[k]);

		if (!strncmp(buf, jr2_spawner_words[k], len) &&
		    (buf[len] == ' ' || buf[len] == '\0'))
			return (enum jr2_spawner_msg_kind)k;
	}
	return JR2_SPAWNER_UNKNOWN;
}

enum jr2_spawner_msg_kind jr2_spawner_msg_parse(const char *buf,
						struct jr2_spawner_msg *msg)
{
	int used = 0;

	memset(msg, 0, sizeof(*msg));
	msg->kind = kind_of(buf);
	switch (msg->kind) {
	case JR2_SPAWNER_READY:
		if (strcmp(buf, "ready"))
			msg->kind = JR2_SPAWNER_UNKNOWN;
		break;
	case JR2_SPAWNER_FAIL:
	case JR2_SPAWNER_LOG: {
		size_t len = strlen(jr2_spawner_words[msg->kind]);

		if (buf[len] == ' ')
			msg->text = buf + len + 1;
		else
			msg->kind = JR2_SPAWNER_UNKNOWN;
		break;
	}
	case JR2_SPAWNER_STARTED:
		if (sscanf(buf, "started %lu %d%n", &msg->id, &msg->pid,
			   &used) != 2 ||
		    msg->pid <= 0)
			msg->kind = JR2_SPAWNER_UNKNOWN;
		break;
	case JR2_SPAWNER_ERROR:
		if (sscanf(buf, "error %lu %d %n", &msg->id, &msg->err,
			   &used) != 2 ||
		    used <= 0)
			msg->kind = JR2_SPAWNER_UNKNOWN;
		else
			msg->text = buf + used;
		break;
	case JR2_SPAWNER_UNKNOWN:
		break;
	}
	return msg->kind;
}
