// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fswalk.h"

/*
 * openat2(2) with RESOLVE_NO_SYMLINKS follows no symlink, magic links
 * included, in any component, and O_NOFOLLOW with O_PATH opens a last one
 * itself: one call for the whole walk below.  It cannot say which prefix
 * was the symlink, nor run before Linux 5.6: on any error the walk below
 * answers, component by component.
 */
static int open_nofollow_at_once(const char *path, struct stat *st)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_NO_SYMLINKS};
	int fd = path[0] == '/' ? (int)syscall(SYS_openat2, AT_FDCWD, path,
					       &how, sizeof(how))
				: -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, st)) {
		close(fd);
		return -1;
	}
	return fd;
}

int jr2_open_nofollow(const char *path, struct stat *st, size_t *bad_len)
{
	int fd = open_nofollow_at_once(path, st);
	const char *p = path;

	if (fd >= 0)
		return fd;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
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
