// SPDX-License-Identifier: GPL-2.0-only
/*
 * The config file: one directive a line, '#' starts a comment line.
 *   protect PATH      a protected dir (nothing in it but list)
 *   read-only PATH    a read-only tree (read, execute, list)
 * PATH is the rest of the line (spaces kept, surrounding blanks dropped).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "policy_internal.h"

#define CONFIG_MAX_SIZE (1 << 20)

static int parse_line(struct jr2_policy *policy, char *line, const char *name,
		      unsigned int lineno, struct jr2_err *err)
{
	char input[300];
	char *word, *arg, *end;
	size_t len;

	snprintf(input, sizeof(input), "config '%s' line %u:", name, lineno);
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
	if (strcmp(word, "protect") && strcmp(word, "read-only"))
		return jr2_fail(err, EINVAL, true,
				"%s unknown directive '%s': write 'protect "
				"PATH' or 'read-only PATH'",
				input, word);
	if (!*arg)
		return jr2_fail(err, EINVAL, true,
				"%s '%s' needs a path: write '%s /absolute/"
				"path'",
				input, word, word);
	return jr2_paths_add_normal(strcmp(word, "protect") ? &policy->read_only
							    : &policy->protect,
				    input, arg, err);
}

int jr2_policy_parse_config(struct jr2_policy *policy, const char *text,
			    const char *name, struct jr2_err *err)
{
	char *copy = jr2_xstrdup(text);
	char *line = copy;
	unsigned int lineno = 1;
	int ret = 0;

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
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *text;
	ssize_t got;
	int ret;

	if (fd < 0)
		return jr2_fail(err, errno, true,
				"--config '%s': %s: name a readable file", file,
				strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > CONFIG_MAX_SIZE) {
		close(fd);
		return jr2_fail(err, EINVAL, true,
				"--config '%s' is not a regular file of at "
				"most %d bytes: name the config file",
				file, CONFIG_MAX_SIZE);
	}
	text = jr2_xrealloc(NULL, (size_t)st.st_size + 1);
	got = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (got < 0 || got != st.st_size) {
		free(text);
		return jr2_fail(err, got < 0 ? errno : EIO, true,
				"--config '%s': short read: name a readable "
				"file",
				file);
	}
	text[got] = '\0';
	if (memchr(text, '\0', (size_t)got)) {
		free(text);
		return jr2_fail(err, EINVAL, true,
				"--config '%s' holds a NUL byte: it must be "
				"text",
				file);
	}
	ret = jr2_policy_parse_config(policy, text, file, err);
	free(text);
	return ret;
}
