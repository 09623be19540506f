// SPDX-License-Identifier: GPL-2.0-only
#include "format.h"
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JR2_POINT_INFO(id, hook, sec, op, kind, nargs) \
	[JR2_POINT_##id] = {#id, #hook, #sec, op, kind},
const struct jr2_point_info jr2_points[JR2_POINT_COUNT] = {
    JR2_TRACE_POINTS(JR2_POINT_INFO)};
#undef JR2_POINT_INFO

static const char *jr2_source_name(enum jr2_source source)
{
	switch (source) {
	case JR2_SOURCE_FEXIT:
		return "fexit";
	case JR2_SOURCE_KRETPROBE:
		return "kretprobe";
	case JR2_SOURCE_SECURITY:
		return "security";
	case JR2_SOURCE_LOG_DENIAL:
		return "log_denial";
	}
	return "unknown";
}

/* "EACCES" for 13; NULL when unknown. */
static const char *jr2_errno_name(int err)
{
	switch (err) {
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EXDEV:
		return "EXDEV";
	case ENOENT:
		return "ENOENT";
	case EINVAL:
		return "EINVAL";
	case ENOTDIR:
		return "ENOTDIR";
	case EISDIR:
		return "EISDIR";
	case EEXIST:
		return "EEXIST";
	case ENOTTY:
		return "ENOTTY";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	case ENOMEM:
		return "ENOMEM";
	}
	return NULL;
}

/* "fs_access" for LANDLOCK_REQUEST_FS_ACCESS; NULL when unknown. */
static const char *jr2_request_name(uint32_t type)
{
	/* enum landlock_request_type (security/landlock/audit.h, 6.15+) */
	static const char *const names[] = {
	    [1] = "ptrace",
	    [2] = "fs_change_topology",
	    [3] = "fs_access",
	    [4] = "net_access",
	    [5] = "scope_abstract_unix",
	    [6] = "scope_signal",
	};

	if (type < sizeof(names) / sizeof(names[0]))
		return names[type];
	return NULL;
}

int jr2_denial_path(const struct jr2_denial *event, char *out, size_t size)
{
	const char *start[JR2_TRACE_PATH_DEPTH];
	size_t len = 0, off = 0;
	int parts = 0;

	/* The components, leaf first, each NUL-terminated inside path[]. */
	while (parts < event->path_parts && parts < JR2_TRACE_PATH_DEPTH &&
	       off < sizeof(event->path)) {
		const char *name = event->path + off;
		size_t n = strnlen(name, sizeof(event->path) - off);

		if (off + n == sizeof(event->path))
			return -1; /* not terminated: a corrupt event */
		start[parts++] = name;
		off += n + 1;
	}
	if (parts == 0) {
		if (size < 2)
			return -1;
		memcpy(out, "/", 2);
		return 1;
	}
	for (int i = parts - 1; i >= 0; i--) {
		size_t n = strlen(start[i]);

		if (len + 1 + n + 1 > size)
			return -1;
		out[len++] = '/';
		memcpy(out + len, start[i], n);
		len += n;
	}
	out[len] = '\0';
	return (int)len;
}

struct json_out {
	char *buf;
	size_t size;
	size_t len;
	bool overflow;
};

static void put(struct json_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct json_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->size - o->len)
		o->overflow = true;
	else
		o->len += n;
}

static void emit_out(void *ctx, const char *s, size_t n)
{
	struct json_out *o = ctx;

	if (o->overflow)
		return;
	if (n >= o->size - o->len) {
		o->overflow = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* `"key":"s"` by the one JSON writer (runtime/json.h): valid UTF-8 passes,
   other bytes are \u00XX with a "<key>_hex" note holding every byte. */
static void put_member(struct json_out *o, const char *key, const char *s,
		       size_t n)
{
	jr2_json_member(emit_out, o, "", key, s, n);
}

static void put_time(struct json_out *o, uint64_t mono_ns, int64_t offset_ns)
{
	int64_t ns = (int64_t)mono_ns + offset_ns;
	time_t secs = ns / 1000000000;
	struct tm tm;
	char stamp[32];

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	put(o, "\"time\":\"%s.%09" PRId64 "Z\"", stamp, ns % 1000000000);
}

static void put_target(struct json_out *o, const struct jr2_denial *e)
{
	const struct jr2_point_info *info = &jr2_points[e->point];
	char path[sizeof(e->path) + JR2_TRACE_PATH_DEPTH + 1];

	switch (info->kind) {
	case JR2_TARGET_NONE:
		break;
	case JR2_TARGET_TASK:
		put(o, ",\"target_pid\":%u", e->target_pid);
		break;
	case JR2_TARGET_SOCKADDR:
	case JR2_TARGET_MSGHDR:
		if (e->family == 0)
			break; /* sendmsg() without an address */
		put(o, ",\"family\":%u", e->family);
		if (e->family == 2 || e->family == 10)
			put(o, ",\"port\":%u", e->port);
		break;
	case JR2_TARGET_UNIX_SOCK:
	case JR2_TARGET_UNIX_SOCKET:
		if (e->sun_len == 0) {
			put(o, ",\"socket\":null"); /* unnamed (socketpair) */
		} else if (e->path[0] == '\0') {
			/* Abstract: shown with '@' as ss(8) does. */
			char name[JR2_TRACE_NAME_MAX + 1] = "@";
			size_t n = e->sun_len - 1;

			if (n > sizeof(name) - 2)
				n = sizeof(name) - 2;
			memcpy(name + 1, e->path + 1, n);
			put(o, ",");
			put_member(o, "socket", name, n + 1);
		} else {
			put(o, ",");
			put_member(o, "socket", e->path,
				   strnlen(e->path, e->sun_len));
		}
		break;
	default:
		if (jr2_denial_path(e, path, sizeof(path)) < 0) {
			put(o, ",\"path\":null");
			break;
		}
		put(o, ",");
		put_member(o, "path", path, strlen(path));
		if (e->path_truncated)
			put(o, ",\"path_truncated\":true");
		if (e->point == JR2_POINT_file_ioctl ||
		    e->point == JR2_POINT_file_ioctl_compat)
			put(o, ",\"ioctl_cmd\":\"0x%llx\"",
			    (unsigned long long)e->ioctl_cmd);
		break;
	}
}

int jr2_denial_json(const struct jr2_denial *e, int64_t realtime_offset_ns,
		    char *out, size_t size)
{
	struct json_out o = {.buf = out, .size = size};
	const struct jr2_point_info *info;
	const char *err_name;
	int err = -e->ret;

	if (size == 0 || e->point >= JR2_POINT_COUNT)
		return -1;
	info = &jr2_points[e->point];
	put(&o, "{");
	put_time(&o, e->time_ns, realtime_offset_ns);
	put(&o, ",\"pid\":%u,\"tgid\":%u,", e->pid, e->tgid);
	put_member(&o, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	put(&o, ",\"hook\":\"%s\",\"source\":\"%s\",\"operation\":\"%s\"",
	    e->source == JR2_SOURCE_SECURITY ? info->security : info->hook,
	    jr2_source_name(e->source), info->operation);
	put_target(&o, e);
	put(&o, ",\"errno\":%d", err);
	err_name = jr2_errno_name(err);
	if (err_name)
		put(&o, ",\"error\":\"%s\"", err_name);
	put(&o, ",\"lsm\":%s", e->landlock ? "\"landlock\"" : "null");
	if (e->has_request) {
		const char *request = jr2_request_name(e->request_type);

		if (request)
			put(&o, ",\"request\":\"%s\"", request);
		else
			put(&o, ",\"request\":%u", e->request_type);
		put(&o, ",\"access\":\"0x%llx\"",
		    (unsigned long long)e->access);
		if (e->domain)
			put(&o, ",\"domain\":\"%llx\"",
			    (unsigned long long)e->domain);
		if (e->layer)
			put(&o, ",\"layer\":%u", e->layer);
	}
	put(&o, "}\n");
	return o.overflow ? -1 : (int)o.len;
}

bool jr2_ksym_match(const char *line, const char *func, char *sym, size_t size)
{
	char type, name[256];
	size_t n = strlen(func);

	/* "ffffffff81afbe50 t hook_file_open" (a module name may follow). */
	if (sscanf(line, "%*s %c %255s", &type, name) != 2)
		return false;
	if (type != 't' && type != 'T')
		return false;
	if (strncmp(name, func, n) != 0 || (name[n] != '\0' && name[n] != '.'))
		return false;
	if (strlen(name) >= size)
		return false;
	strcpy(sym, name);
	return true;
}

bool jr2_audit_split(const char *text, unsigned long long *serial,
		     const char **fields)
{
	const char *colon = strstr(text, ":");
	const char *end;
	char *tail;

	if (strncmp(text, "audit(", 6) || !colon)
		return false;
	*serial = strtoull(colon + 1, &tail, 10);
	end = tail;
	if (tail == colon + 1 || strncmp(end, "): ", 3))
		return false;
	*fields = end + 3;
	return true;
}

bool jr2_audit_field(const char *fields, const char *key, char *value,
		     size_t size)
{
	size_t key_len = strlen(key), n;
	const char *p = fields;

	while ((p = strstr(p, key))) {
		if ((p == fields || p[-1] == ' ') && p[key_len] == '=')
			break;
		p += key_len;
	}
	if (!p || size == 0)
		return false;
	p += key_len + 1;
	if (*p == '"') {
		p++;
		n = strcspn(p, "\"");
	} else {
		n = strcspn(p, " ");
	}
	if (n >= size)
		n = size - 1;
	memcpy(value, p, n);
	value[n] = '\0';
	return true;
}

int jr2_audit_json(int type, unsigned long long serial, const char *fields,
		   int pid, char *out, size_t size)
{
	struct json_out o = {.buf = out, .size = size};
	static const char *const keys[] = {"domain", "blockers", "path",
					   "opid",   "ocomm",	 "status"};
	char value[512];

	if (size == 0)
		return -1;
	/* 1423 AUDIT_LANDLOCK_ACCESS, 1424 AUDIT_LANDLOCK_DOMAIN */
	put(&o, "{\"source\":\"audit\",\"type\":\"%s\",\"serial\":%llu",
	    type == 1423 ? "landlock_access" : "landlock_domain", serial);
	if (pid > 0)
		put(&o, ",\"pid\":%d", pid);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!jr2_audit_field(fields, keys[i], value, sizeof(value)))
			continue;
		put(&o, ",");
		put_member(&o, keys[i], value, strlen(value));
	}
	put(&o, ",");
	put_member(&o, "record", fields, strcspn(fields, "\n"));
	put(&o, "}\n");
	return o.overflow ? -1 : (int)o.len;
}
