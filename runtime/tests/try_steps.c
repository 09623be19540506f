// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's verbs for the doors of the confinement step (run three ways by
 * selftests/ways.h): metadata changes that leave the value as it
 * was, mounts made writable again, descriptors given, capabilities, file
 * handles, another process's environment.  Each prints one line: "ok ..."
 * or the errno's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "try.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif

/* A metadata change that leaves the value as it was: only the write counts. */
static int metadata(const char *verb, const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return try_report(errno);
	if (!strcmp(verb, "chmod"))
		return try_report(TRY_ERR(chmod(path, st.st_mode & 07777)));
	if (!strcmp(verb, "chown"))
		return try_report(TRY_ERR(lchown(path, st.st_uid, st.st_gid)));
	if (!strcmp(verb, "utimes"))
		return try_report(TRY_ERR(utimensat(AT_FDCWD, path, NULL, 0)));
	if (!strcmp(verb, "xattr-user"))
		return try_report(
		    TRY_ERR(lsetxattr(path, "user.jr2", "1", 1, 0)));
	if (!strcmp(verb, "xattr-trusted"))
		return try_report(
		    TRY_ERR(lsetxattr(path, "trusted.jr2", "1", 1, 0)));
	if (!strcmp(verb, "utimes-same")) {
		const struct timespec times[2] = {st.st_atim, st.st_mtim};

		return try_report(TRY_ERR(
		    utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW)));
	}
	if (!strcmp(verb, "fchmod") || !strcmp(verb, "fchown")) {
		int fd =
		    open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		int err;

		if (fd < 0) { /* the open, not the change, was refused */
			printf("open:");
			return try_report(errno);
		}
		err = verb[2] == 'm'
			  ? TRY_ERR(fchmod(fd, st.st_mode & 07777))
			  : TRY_ERR(fchown(fd, st.st_uid, st.st_gid));
		close(fd);
		return try_report(err);
	}
	if (!strcmp(verb, "fchownat-empty")) {
		/* An O_PATH descriptor opens whatever the file is. */
		int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), err;

		if (fd < 0)
			return try_report(errno);
		err = TRY_ERR(
		    fchownat(fd, "", st.st_uid, st.st_gid, AT_EMPTY_PATH));
		close(fd);
		return try_report(err);
	}
	if (!strcmp(verb, "fchmodat2")) /* Linux 6.6+: ENOSYS before */
		return try_report(
		    TRY_ERR(syscall(452, AT_FDCWD, path, st.st_mode & 07777,
				    AT_SYMLINK_NOFOLLOW)));
	/* Neither leaves anything: the name does not exist (ENODATA). */
	if (!strcmp(verb, "xattr-replace"))
		return try_report(TRY_ERR(lsetxattr(path, "trusted.jr2-none",
						    "1", 1, XATTR_REPLACE)));
	if (!strcmp(verb, "removexattr"))
		return try_report(
		    TRY_ERR(lremovexattr(path, "trusted.jr2-none")));
	if (!strcmp(verb, "chattr")) {
		/* The flags as they are, set again (FS_IOC_SETFLAGS). */
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags;
		int err;

		if (fd < 0)
			return try_report(errno);
		err = TRY_ERR(ioctl(fd, FS_IOC_GETFLAGS, &flags));
		if (!err)
			err = TRY_ERR(ioctl(fd, FS_IOC_SETFLAGS, &flags));
		close(fd);
		return try_report(err);
	}
	try_usage_error("'%s' is no metadata verb: give one of 'jr2-try "
			"--help'",
			verb);
}

static int metadata_verb(const struct try_call *c)
{
	return metadata(c->name, c->arg[0]);
}

/* Each metadata change in turn, a line each (each its own syscall). */
static int batch(const struct try_call *c)
{
	int ret = 0;

	if (c->n % 2)
		try_usage_error("batch takes pairs VERB PATH: gave %d words",
				c->n);
	for (int i = 0; i + 1 < c->n; i += 2) {
		ret |= metadata(c->arg[i], c->arg[i + 1]) ? 1 : 0;
		fflush(stdout);
	}
	return ret;
}

/* The mount at PATH made writable again: how is the way. */
static int mount_rw(const struct try_call *c)
{
	const char *path = c->arg[0];
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} rw = {.attr_clr = MOUNT_ATTR_RDONLY};

	if (c->how == 'r')
		return try_report(TRY_ERR(
		    mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL)));
	/* In a user and mount namespace of its own, where a root program
	   holds every capability over its copy of the mounts. */
	if (c->how == 'u' && unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return try_report(errno);
	return try_report(TRY_ERR(
	    syscall(SYS_mount_setattr, AT_FDCWD, path, 0, &rw, sizeof(rw))));
}

/*
 * Says it runs (READY), waits for GO (mounts made meanwhile), then chmods
 * PATH to its own mode: "ok" or the errno (ENOENT: the mount is not seen
 * here).
 */
static int late_chmod(const struct try_call *c)
{
	const char *ready = c->arg[0], *go = c->arg[1], *path = c->arg[2];
	struct stat st;

	if (mknod(ready, S_IFREG | 0600, 0))
		return try_report(errno);
	for (int i = 0; i < 1000 && access(go, F_OK); i++)
		usleep(10000);
	if (lstat(path, &st))
		return try_report(errno);
	return try_report(TRY_ERR(chmod(path, st.st_mode & 07777)));
}

/* Reads FD (a descriptor this program was given): "ok TEXT" or errno. */
static int fd_read(const struct try_call *c)
{
	int fd = (int)try_number(c->arg[0], "FD");
	char buf[256];
	/* From the start: the open file is shared with other readers. */
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0 && errno == ESPIPE)
		n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return try_report(errno);
	buf[n] = '\0';
	printf("ok %s\n", buf);
	return 0;
}

/*
 * recvmsg on the socket FD (not waiting): a descriptor that comes with it
 * is read from its start, "ok got TEXT"; none, "ok none"; else the errno.
 */
static int fd_recv(const struct try_call *c)
{
	int fd = (int)try_number(c->arg[0], "FD"), got = -1;
	char byte, cbuf[CMSG_SPACE(sizeof(int) * 4)], text[256];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	ssize_t n;

	if (recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0 &&
	    errno != EAGAIN)
		return try_report(errno);
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h && got < 0;
	     h = CMSG_NXTHDR(&msg, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
			memcpy(&got, CMSG_DATA(h), sizeof(got));
	if (got < 0) {
		printf("ok none\n");
		return 0;
	}
	n = pread(got, text, sizeof(text) - 1, 0);
	if (n < 0)
		return try_report(errno);
	text[n] = '\0';
	printf("ok got %s\n", text);
	return 0;
}

/* openat(FD, NAME) and a read of it: "ok TEXT" or the errno. */
static int fd_openat(const struct try_call *c)
{
	int dir = (int)try_number(c->arg[0], "FD");
	int fd = openat(dir, c->arg[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? try_report(errno) : try_report_line(fd);
}

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83 /* Linux 6.16 */
#endif

/* setsockopt(FD, SOL_SOCKET, SO_PASSRIGHTS, 1): SCM_RIGHTS back on. */
static int passrights_on(const struct try_call *c)
{
	int fd = (int)try_number(c->arg[0], "FD"), on = 1;

	return try_report(TRY_ERR(
	    setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &on, sizeof(on))));
}

/* The five capability sets of /proc/self/status: "BND PRM EFF INH AMB". */
static int caps(const struct try_call *c)
{
	static const char *const keys[] = {
	    "CapBnd:", "CapPrm:", "CapEff:", "CapInh:", "CapAmb:"};
	char line[256], vals[5][32] = {""};
	FILE *f = fopen("/proc/self/status", "re");

	(void)c;
	if (!f)
		return try_report(errno);
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 5; i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				sscanf(line + strlen(keys[i]), "%31s", vals[i]);
	fclose(f);
	printf("%s %s %s %s %s\n", vals[0], vals[1], vals[2], vals[3], vals[4]);
	return 0;
}

/* open_by_handle_at on a handle of PATH (needs CAP_DAC_READ_SEARCH). */
static int handle(const struct try_call *c)
{
	const char *path = c->arg[0];
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = {.fh.handle_bytes = MAX_HANDLE_SZ};
	char dir[PATH_MAX];
	int mount_id, mount_fd, fd;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return try_report(errno);
	/* Any descriptor on the file's mount: its dir (listing is allowed). */
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mount_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mount_fd < 0)
		return try_report(errno);
	fd = open_by_handle_at(mount_fd, &h.fh, O_RDONLY | O_CLOEXEC);
	return try_report(fd < 0 ? errno : 0);
}

/* Reads /proc/PID/environ: "ok" or the errno of open or read. */
static int environ_of(const struct try_call *c)
{
	char path[64], buf[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/environ", c->arg[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return try_report(errno);
	return try_report(read(fd, buf, sizeof(buf)) < 0 ? errno : 0);
}

/* chmod PATH to MODE (octal): a change that stays, where it is allowed. */
static int chmod_to(const struct try_call *c)
{
	char *end;
	unsigned long mode = strtoul(c->arg[0], &end, 8);

	if (*end || mode > 07777)
		return try_report(EINVAL);
	return try_report(TRY_ERR(chmod(c->arg[1], (mode_t)mode)));
}

const struct try_verb try_step_verbs[] = {
    {"chmod", 1, "PATH", metadata_verb, 0, "chmod to its own mode"},
    {"chmod-to", 2, "MODE PATH", chmod_to, 0, "chmod PATH to MODE (octal)"},
    {"chown", 1, "PATH", metadata_verb, 0, "lchown to its own owner"},
    {"utimes", 1, "PATH", metadata_verb, 0, "utimensat, now"},
    {"utimes-same", 1, "PATH", metadata_verb, 0, "utimensat to its own times"},
    {"xattr-user", 1, "PATH", metadata_verb, 0, "lsetxattr user.jr2"},
    {"xattr-trusted", 1, "PATH", metadata_verb, 0, "lsetxattr trusted.jr2"},
    {"xattr-replace", 1, "PATH", metadata_verb, 0,
     "lsetxattr XATTR_REPLACE of a name it lacks"},
    {"removexattr", 1, "PATH", metadata_verb, 0,
     "lremovexattr of a name it lacks"},
    {"fchmod", 1, "PATH", metadata_verb, 0,
     "open, fchmod to its own mode (\"open:ERRNO\" when the open fails)"},
    {"fchown", 1, "PATH", metadata_verb, 0,
     "open, fchown to its own owner (\"open:ERRNO\" likewise)"},
    {"fchownat-empty", 1, "PATH", metadata_verb, 0,
     "fchownat(AT_EMPTY_PATH) of an O_PATH descriptor"},
    {"fchmodat2", 1, "PATH", metadata_verb, 0,
     "fchmodat2 to its own mode (Linux 6.6+)"},
    {"chattr", 1, "PATH", metadata_verb, 0, "FS_IOC_SETFLAGS to its own flags"},
    {"batch", -2, "VERB PATH...", batch, 0,
     "each metadata change in turn, a line each"},
    {"remount-rw", 1, "PATH", mount_rw, 'r',
     "remount the bind mount at PATH read-write"},
    {"setattr-rw", 1, "PATH", mount_rw, 's',
     "mount_setattr clearing MOUNT_ATTR_RDONLY"},
    {"userns-setattr-rw", 1, "PATH", mount_rw, 'u',
     "the same in a user and mount namespace of its own"},
    {"late-chmod", 3, "READY GO PATH", late_chmod, 0,
     "makes READY, waits for GO, then chmods PATH"},
    {"fd-read", 1, "FD", fd_read, 0, "reads FD: \"ok TEXT\""},
    {"fd-recv", 1, "FD", fd_recv, 0,
     "recvmsg on FD: a descriptor it brings read, \"ok got TEXT\""},
    {"fd-openat", 2, "FD NAME", fd_openat, 0,
     "openat(FD, NAME) and a read: \"ok TEXT\""},
    {"passrights-on", 1, "FD", passrights_on, 0,
     "setsockopt SO_PASSRIGHTS 1 on the socket FD"},
    {"caps", 0, "", caps, 0, "its capability sets: \"BND PRM EFF INH AMB\""},
    {"handle", 1, "PATH", handle, 0, "open_by_handle_at of PATH's handle"},
    {"environ-of", 1, "PID", environ_of, 0, "reads /proc/PID/environ"},
    {NULL, 0, NULL, NULL, 0, NULL},
};
