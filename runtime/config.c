// SPDX-License-Identifier: GPL-2.0-only
/* The config files of jr2 (see config.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "policy.h"
#include "policy_internal.h"

/* A file name for a message: shortened so that the fix after it fits. */
#define SHORT(name)                                                    \
	jr2_shorten(name, JR2_SHOWN_MAX, (char[JR2_SHOWN_MAX + 1]){0}, \
		    JR2_SHOWN_MAX + 1)

/* The length of the UTF-8 sequence at s (at most `left` bytes), 0: invalid. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > left)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond U+10FFFF; C1 controls. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

int jr2_config_check_text(const char *text, size_t len, const char *name,
			  struct jr2_err *err)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned int lineno = 1;
	size_t line_start = 0;

	for (size_t at = 0; at < len;) {
		size_t n = 1;

		if (s[at] == '\n') {
			lineno++;
			line_start = at + 1;
		} else if (s[at] == '\0') {
			return jr2_fail(err, EINVAL, true,
					"config '%s' line %u: a NUL byte at "
					"byte %zu: the config must be text; "
					"remove it",
					SHORT(name), lineno, at);
		} else if ((s[at] < 0x20 && s[at] != '\t' && s[at] != '\r') ||
			   s[at] == 0x7f || !(n = utf8_len(s + at, len - at))) {
			return jr2_fail(err, EINVAL, true,
					"config '%s' line %u: byte 0x%02x at "
					"byte %zu is not text (UTF-8 without "
					"control characters); remove it",
					SHORT(name), lineno, s[at], at);
		}
		at += n;
		if (at - line_start > JR2_CONFIG_LINE_MAX)
			return jr2_fail(err, EINVAL, true,
					"config '%s' line %u is longer than %d "
					"bytes; shorten it",
					SHORT(name), lineno,
					JR2_CONFIG_LINE_MAX);
	}
	return 0;
}

char *jr2_config_read(const char *input, const char *file, struct jr2_err *err)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *text;
	ssize_t got;

	if (fd < 0) {
		jr2_fail(err, errno, true, "%s '%s': %s: name a readable file",
			 input, SHORT(file), strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > JR2_CONFIG_MAX_SIZE) {
		close(fd);
		jr2_fail(err, EINVAL, true,
			 "%s '%s' is not a regular file of at most %d bytes: "
			 "name the config file",
			 input, SHORT(file), JR2_CONFIG_MAX_SIZE);
		return NULL;
	}
	text = jr2_xrealloc(NULL, (size_t)st.st_size + 1);
	got = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (got < 0 || got != st.st_size) {
		free(text);
		jr2_fail(err, got < 0 ? errno : EIO, true,
			 "%s '%s': short read: name a readable file", input,
			 SHORT(file));
		return NULL;
	}
	text[got] = '\0';
	if (jr2_config_check_text(text, (size_t)got, file, err)) {
		free(text);
		return NULL;
	}
	return text;
}

int jr2_config_policy_line(struct jr2_policy *policy, const char *word,
			   const char *arg, const char *where,
			   struct jr2_err *err)
{
	char input[600];

	if (strcmp(word, "protect") && strcmp(word, "read-only"))
		return 1;
	if (!*arg)
		return jr2_fail(err, EINVAL, true,
				"%s: '%s' needs a path: write '%s /absolute/"
				"path'",
				where, word, word);
	snprintf(input, sizeof(input), "%s:", where);
	return jr2_paths_add_normal(strcmp(word, "protect") ? &policy->read_only
							    : &policy->protect,
				    input, arg, err);
}

static int parse_line(struct jr2_policy *policy, char *line, const char *name,
		      unsigned int lineno, struct jr2_err *err)
{
	char where[300];
	char *word, *arg, *end;
	size_t len;
	int ret;

	snprintf(where, sizeof(where), "config '%s' line %u", SHORT(name),
		 lineno);
	word = line + strspn(line, " \t\r");
	end = word + strlen(word);
	while (end > word && strchr(" \t\r", end[-1]))
		*--end = '\0';
	if (!*word || *word == '#')
		return 0;
	len = strcspn(word, " \t");
	arg = word + len;
	arg += strspn(arg, " \t");
	word[len] = '\0';
	ret = jr2_config_policy_line(policy, word, arg, where, err);
	if (ret == 1)
		return jr2_fail(err, EINVAL, true,
				"%s: unknown directive '%s': write 'protect "
				"PATH' or 'read-only PATH'",
				where, word);
	return ret;
}

int jr2_policy_parse_config(struct jr2_policy *policy, const char *text,
			    const char *name, struct jr2_err *err)
{
	char *copy;
	char *line;
	unsigned int lineno = 1;
	int ret;

	ret = jr2_config_check_text(text, strlen(text), name, err);
	copy = jr2_xstrdup(text);
	line = copy;
	while (line && ret == 0) {
		char *next = strchr(line, '\n');

		if (next)
			*next++ = '\0';
		ret = parse_line(policy, line, name, lineno++, err);
		line = next;
	}
	free(copy);
	return ret;
}

int jr2_policy_load_config(struct jr2_policy *policy, const char *file,
			   struct jr2_err *err)
{
	char *text = jr2_config_read("--config", file, err);
	int ret;

	if (!text)
		return -1;
	ret = jr2_policy_parse_config(policy, text, file, err);
	free(text);
	return ret;
}
