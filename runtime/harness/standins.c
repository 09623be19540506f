// SPDX-License-Identifier: GPL-2.0-only
/* Making and storing the Stand-ins (see standins.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "policy_internal.h"
#include "standins.h"

int jr2_random_token(char out[JR2_STANDIN_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[32];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	memcpy(out, "jr2-", 4);
	for (size_t i = 0; i < sizeof(raw); i++) {
		out[4 + 2 * i] = hex[raw[i] >> 4];
		out[5 + 2 * i] = hex[raw[i] & 15];
	}
	out[JR2_STANDIN_SIZE - 1] = '\0';
	explicit_bzero(raw, sizeof(raw));
	return 0;
}

int jr2_standins_make(struct jr2_standins *s, const struct jr2_strv *secrets)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = jr2_random_token(s->control);
	if (ret)
		return ret;
	s->names = jr2_xrealloc(NULL, (secrets->n + 1) * sizeof(*s->names));
	s->values = jr2_xrealloc(NULL, (secrets->n + 1) * sizeof(*s->values));
	memset(s->names, 0, (secrets->n + 1) * sizeof(*s->names));
	memset(s->values, 0, (secrets->n + 1) * sizeof(*s->values));
	for (size_t i = 0; i < secrets->n; i++) {
		s->names[i] = jr2_xstrdup(secrets->v[i]);
		s->n++;
		ret = jr2_random_token(s->values[i]);
		if (ret)
			return ret;
	}
	return 0;
}

const char *jr2_standin_of(const struct jr2_standins *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return s->values[i];
	return NULL;
}

/* One line by write(2): no stdio buffer keeps a copy in the heap. */
static int write_line(int fd, const char *name, const char *value)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "%s=%s\n", name, value);
	int ret = 0;

	if (len < 0 || len >= (int)sizeof(line))
		ret = -ENAMETOOLONG;
	else if (write(fd, line, (size_t)len) != len)
		ret = errno ? -errno : -EIO;
	explicit_bzero(line, sizeof(line));
	return ret;
}

int jr2_standins_write(const struct jr2_standins *s, const char *path)
{
	int fd = open(
	    path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write_line(fd, JR2_STANDIN_NAME_CONTROL, s->control);
	if (!ret)
		ret = write_line(fd, JR2_STANDIN_NAME_FETCH, JR2_FETCH_STANDIN);
	for (size_t i = 0; i < s->n && !ret; i++)
		ret = write_line(fd, s->names[i], s->values[i]);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}
