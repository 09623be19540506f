// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guard of the protected dir's metadata where no privilege holds it.
 *
 * Without CAP_SYS_ADMIN (a container's default set, a non-root pod) the
 * spawner makes no read-only mount, and a program of the harness's own
 * uid owns the protected dir and its files: chmod, chown (with CAP_CHOWN)
 * work on them, since Landlock has no right for metadata.  A mode of 0 on
 * the dir stops every client's connect and the stop's removal of the
 * secrets' files.  The harness owns them too: it watches the dir with
 * inotify (IN_ATTRIB reports a change of the dir's own metadata and of
 * each entry's) and puts back the modes and owners it made, at once, in
 * its loop.  No entry is made by a program (Landlock refuses every
 * create there, R3), so what the harness sees made is what it made.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "serve.h"

#define GUARD_MAX 32

struct kept {
	char name[NAME_MAX + 1];
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

static struct kept kept[GUARD_MAX];
static size_t n_kept;
static struct kept dir_kept;
static int dir_fd = -1;
static int watch_fd = -1;

static void keep(const char *name)
{
	struct stat st;
	size_t i;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return;
	for (i = 0; i < n_kept && strcmp(kept[i].name, name); i++)
		;
	if (i == GUARD_MAX)
		return;
	if (i == n_kept)
		n_kept++;
	snprintf(kept[i].name, sizeof(kept[i].name), "%s", name);
	kept[i].mode = st.st_mode & 07777;
	kept[i].uid = st.st_uid;
	kept[i].gid = st.st_gid;
}

int guard_start(void)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	dir_fd = open(harness.protected_dir,
		      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir_fd < 0 || fstat(dir_fd, &st))
		return -1;
	dir_kept = (struct kept){
	    .mode = st.st_mode & 07777, .uid = st.st_uid, .gid = st.st_gid};
	watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (watch_fd < 0)
		return -1;
	if (inotify_add_watch(watch_fd, harness.protected_dir,
			      IN_ATTRIB | IN_CREATE | IN_MOVED_TO | IN_ONLYDIR |
				  IN_DONT_FOLLOW) < 0)
		return -1;
	fd = dup(dir_fd);
	d = fd < 0 ? NULL : fdopendir(fd);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			keep(e->d_name);
	if (d)
		closedir(d);
	return watch_fd;
}

/* Puts back one entry's (name NULL: the dir's) mode and owners. */
static void restore(const char *name, const struct kept *k)
{
	const char *what = name ? name : ".";
	struct stat st;

	/* The dir by its descriptor: a mode of 0 refuses "." to its owner. */
	if (name ? fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW)
		 : fstat(dir_fd, &st))
		return;
	if (st.st_uid != k->uid || st.st_gid != k->gid) {
		if (name ? fchownat(dir_fd, name, k->uid, k->gid,
				    AT_SYMLINK_NOFOLLOW)
			 : fchown(dir_fd, k->uid, k->gid))
			say("guard: cannot give %s/%s back to %u:%u: %s",
			    harness.protected_dir, what, (unsigned int)k->uid,
			    (unsigned int)k->gid, strerror(errno));
		else
			say("guard: %s/%s was given to %u:%u; back to %u:%u",
			    harness.protected_dir, what,
			    (unsigned int)st.st_uid, (unsigned int)st.st_gid,
			    (unsigned int)k->uid, (unsigned int)k->gid);
	}
	if ((st.st_mode & 07777) == k->mode || S_ISLNK(st.st_mode))
		return;
	if (name ? fchmodat(dir_fd, name, k->mode, 0) : fchmod(dir_fd, k->mode))
		say("guard: cannot put back mode %04o of %s/%s (now %04o): %s",
		    (unsigned int)k->mode, harness.protected_dir, what,
		    (unsigned int)(st.st_mode & 07777), strerror(errno));
	else
		say("guard: %s/%s had mode %04o; put back to %04o",
		    harness.protected_dir, what,
		    (unsigned int)(st.st_mode & 07777), (unsigned int)k->mode);
}

void guard_repair(void)
{
	if (dir_fd < 0)
		return;
	/* The dir first: its search bit opens the way to the entries. */
	restore(NULL, &dir_kept);
	for (size_t i = 0; i < n_kept; i++)
		restore(kept[i].name, &kept[i]);
}

void guard_on_events(void)
{
	union {
		struct inotify_event ev;
		char bytes[4096];
	} buf;
	ssize_t n;

	while ((n = read(watch_fd, buf.bytes, sizeof(buf.bytes))) > 0)
		for (char *p = buf.bytes; p < buf.bytes + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && (ev->mask & (IN_CREATE | IN_MOVED_TO)))
				keep(ev->name);
			p += sizeof(*ev) + ev->len;
		}
	guard_repair();
}
