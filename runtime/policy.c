// SPDX-License-Identifier: GPL-2.0-only
/* The policy as data: which dirs are protected, which trees read-only. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy_internal.h"

/*
 * Only jr2's own trees: the image's /etc, /usr (its trust store included)
 * are the image user's, and freezing them would stop ldconfig, useradd,
 * sed -i in /etc.  jr2's CA bundles come from the environment.
 */
static const char *const default_read_only[] = {
    "/repos",
    "/opt/jr2",
};

static const char *const ca_vars[] = {JR2_CA_VARS};

const char *jr2_shorten(const char *value, size_t max, char *out, size_t size)
{
	size_t len = strlen(value), head, tail;

	if (max + 1 > size)
		max = size - 1;
	if (len <= max) {
		snprintf(out, size, "%s", value);
		return out;
	}
	head = (max - 3) / 2;
	tail = max - 3 - head;
	snprintf(out, size, "%.*s...%s", (int)head, value, value + len - tail);
	return out;
}

int jr2_parse_number(const char *text, long min, long max, long *value)
{
	long n = 0;

	if (!*text)
		return -1;
	for (const char *c = text; *c; c++) {
		if (*c < '0' || *c > '9' || n > (LONG_MAX - (*c - '0')) / 10)
			return -1;
		n = n * 10 + (*c - '0');
	}
	if (n < min || n > max)
		return -1;
	*value = n;
	return 0;
}

int jr2_fail(struct jr2_err *err, int code, bool bad_input, const char *fmt,
	     ...)
{
	va_list ap;

	err->code = code;
	err->bad_input = bad_input;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void *jr2_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p) {
		fprintf(stderr, "jr2: out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

char *jr2_xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(jr2_xrealloc(NULL, len), s, len);
}

void jr2_strv_add(struct jr2_strv *v, const char *s)
{
	v->v = jr2_xrealloc(v->v, (v->n + 1) * sizeof(*v->v));
	v->v[v->n++] = jr2_xstrdup(s);
}

void jr2_strv_addf(struct jr2_strv *v, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jr2_strv_add(v, buf);
}

void jr2_strv_free(struct jr2_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

void jr2_policy_init(struct jr2_policy *policy)
{
	memset(policy, 0, sizeof(*policy));
}

void jr2_policy_set_defaults(struct jr2_policy *policy)
{
	jr2_policy_free(policy);
	policy->defaults = true;
	jr2_strv_add(&policy->protect, JR2_DEFAULT_PROTECTED);
	for (size_t i = 0;
	     i < sizeof(default_read_only) / sizeof(*default_read_only); i++)
		jr2_strv_add(&policy->read_only, default_read_only[i]);
	for (size_t i = 0; i < sizeof(ca_vars) / sizeof(*ca_vars); i++) {
		const char *value = getenv(ca_vars[i]);
		struct jr2_err err;
		size_t before = policy->ca_bundles.n;

		/* A relative or odd value is skipped: the defaults never
		   fail; compile notes what it makes read-only. */
		if (!value || !*value ||
		    jr2_paths_add_normal(&policy->ca_bundles, ca_vars[i], value,
					 &err) ||
		    policy->ca_bundles.n == before)
			continue;
		jr2_strv_add(&policy->ca_vars, ca_vars[i]);
	}
}

/*
 * Absolute, no "." or ".." component (the rules name real places), no
 * doubled or trailing slash.  Returns the normal form or NULL.
 */
static char *normalize(const char *input, const char *path, struct jr2_err *err)
{
	char shown[JR2_SHOWN_MAX + 1];
	char *out, *o;

	jr2_shorten(path, JR2_SHOWN_MAX, shown, sizeof(shown));
	if (path[0] != '/') {
		jr2_fail(err, EINVAL, true,
			 "%s '%s' is a relative path: give an absolute path "
			 "(starting with /)",
			 input, shown);
		return NULL;
	}
	if (strlen(path) >= PATH_MAX) {
		jr2_fail(err, ENAMETOOLONG, true,
			 "%s '%s' has %zu bytes, more than the %d of a path: "
			 "give a shorter path",
			 input, shown, strlen(path), PATH_MAX - 1);
		return NULL;
	}
	out = o = jr2_xrealloc(NULL, strlen(path) + 1);
	for (const char *p = path; *p;) {
		const char *end;
		size_t len;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.')) {
			jr2_fail(err, EINVAL, true,
				 "%s '%s' has a '%.*s' component: give the "
				 "path without '.' or '..'",
				 input, shown, (int)len, p);
			free(out);
			return NULL;
		}
		if (len > NAME_MAX) {
			jr2_fail(err, ENAMETOOLONG, true,
				 "%s '%s' has a component of %zu bytes, more "
				 "than the %d of a file name: give a shorter "
				 "path",
				 input, shown, len, NAME_MAX);
			free(out);
			return NULL;
		}
		if (len) {
			*o++ = '/';
			memcpy(o, p, len);
			o += len;
		}
		p = end;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

int jr2_paths_add_normal(struct jr2_strv *paths, const char *input,
			 const char *path, struct jr2_err *err)
{
	char *norm = normalize(input, path, err);

	if (!norm)
		return -1;
	for (size_t i = 0; i < paths->n; i++) {
		if (!strcmp(paths->v[i], norm)) {
			free(norm);
			return 0;
		}
	}
	paths->v = jr2_xrealloc(paths->v, (paths->n + 1) * sizeof(*paths->v));
	paths->v[paths->n++] = norm;
	return 0;
}

int jr2_policy_add_protected(struct jr2_policy *policy, const char *path,
			     struct jr2_err *err)
{
	return jr2_paths_add_normal(&policy->protect, "--protect", path, err);
}

int jr2_policy_add_read_only(struct jr2_policy *policy, const char *path,
			     struct jr2_err *err)
{
	return jr2_paths_add_normal(&policy->read_only, "--read-only", path,
				    err);
}

void jr2_policy_free(struct jr2_policy *policy)
{
	jr2_strv_free(&policy->protect);
	jr2_strv_free(&policy->read_only);
	jr2_strv_free(&policy->ca_bundles);
	jr2_strv_free(&policy->ca_vars);
	policy->defaults = false;
}

void jr2_plan_free(struct jr2_ruleset_plan *plan)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		free(plan->rules[i].path);
		free(plan->rules[i].why);
	}
	free(plan->rules);
	for (size_t i = 0; i < plan->n_targets; i++) {
		free(plan->targets[i].path);
		free(plan->targets[i].origin);
	}
	free(plan->targets);
	for (size_t i = 0; i < plan->n_dirs; i++) {
		free(plan->dirs[i].path);
		free(plan->dirs[i].origin);
	}
	free(plan->dirs);
	jr2_strv_free(&plan->notes);
	jr2_strv_free(&plan->frozen);
	jr2_strv_free(&plan->frozen_why);
	jr2_strv_free(&plan->warnings);
	memset(plan, 0, sizeof(*plan));
}
