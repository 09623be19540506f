// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lookup.h"

/* The kernel's bound on the links of one lookup (MAXSYMLINKS). */
#define LOOKUP_MAX_LINKS 40

bool jr2_path_put(char *dst, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc >= PATH_MAX)
		return false;
	memmove(dst, a, la);
	memmove(dst + la, b, lb);
	memmove(dst + la + lb, c, lc + 1);
	return true;
}

int jr2_lookup(const char *path, struct jr2_strv *folders, char *real,
	       char *bad)
{
	char todo[PATH_MAX], cur[PATH_MAX] = "", cwd[PATH_MAX];
	int hops = 0;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		jr2_path_put(bad, path, "", "");
		return errno;
	}
	if (!jr2_path_put(todo, path[0] == '/' ? "" : cwd,
			  path[0] == '/' ? "" : "/", path)) {
		jr2_path_put(bad, path, "", "");
		return ENAMETOOLONG;
	}
	for (char *at = todo; *at;) {
		char next[PATH_MAX], comp[NAME_MAX + 1], link[PATH_MAX];
		char rest[PATH_MAX];
		size_t len;
		struct stat st;
		ssize_t n;

		while (*at == '/')
			at++;
		len = strcspn(at, "/");
		if (!len)
			break;
		if (len > NAME_MAX) {
			jr2_path_put(bad, cur, "/", "...");
			return ENAMETOOLONG;
		}
		memcpy(comp, at, len);
		comp[len] = '\0';
		at += len;
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			continue;
		}
		jr2_strv_add(folders, cur[0] ? cur : "/");
		if (!jr2_path_put(next, cur, "/", comp)) {
			jr2_path_put(bad, cur, "/", "...");
			return ENAMETOOLONG;
		}
		if (lstat(next, &st)) {
			jr2_path_put(bad, next, "", "");
			return errno;
		}
		if (!S_ISLNK(st.st_mode)) {
			jr2_path_put(cur, next, "", "");
			continue;
		}
		n = readlink(next, link, sizeof(link) - 1);
		if (n < 0 || ++hops > LOOKUP_MAX_LINKS) {
			jr2_path_put(bad, next, "", "");
			return n < 0 ? errno : ELOOP;
		}
		link[n] = '\0';
		if (!jr2_path_put(rest, link, at, "")) {
			jr2_path_put(bad, next, "", "");
			return ENAMETOOLONG;
		}
		jr2_path_put(todo, rest, "", "");
		at = todo;
		if (link[0] == '/')
			cur[0] = '\0';
	}
	jr2_path_put(real, cur[0] ? cur : "/", "", "");
	return 0;
}
