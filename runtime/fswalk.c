// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fswalk.h"

int jr2_open_nofollow(const char *path, struct stat *st, size_t *bad_len)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *p = path;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	while (*p) {
		char name[256];
		const char *end;
		size_t len;
		int next;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len >= sizeof(name)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		if (S_ISLNK(st->st_mode) || !S_ISDIR(st->st_mode)) {
			close(fd);
			if (bad_len)
				*bad_len = (size_t)(p - path - 1);
			return S_ISLNK(st->st_mode) ? -ELOOP : -ENOTDIR;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
		if (fstat(fd, st)) {
			int saved = errno;

			close(fd);
			return -saved;
		}
		p = end;
	}
	return fd;
}
