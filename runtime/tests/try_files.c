// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's first verbs: one system call on a file, a dir, a socket or a
 * process each, reported by try_result(): "ok" or the errno's name, the
 * errno as exit status.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "try.h"

static int open_as(const struct try_call *c)
{
	int fd = open(c->arg[0], (int)c->how | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
	return try_result(fd);
}

static int read_file(const struct try_call *c)
{
	char buf[65536];
	int fd = open(c->arg[0], O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int status;

	if (fd < 0)
		return try_result(-1);
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return try_result(-1);
	}
	close(fd);
	status = try_result(0);
	fwrite(buf, 1, (size_t)n, stdout);
	return status;
}

static int write_file(const struct try_call *c)
{
	int fd =
	    open(c->arg[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t len = (ssize_t)strlen(c->arg[1]);
	int ret = 0;

	if (fd < 0)
		return try_result(-1);
	if (write(fd, c->arg[1], (size_t)len) != len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return try_result(ret);
}

static int ioctl_tty(const struct try_call *c)
{
	struct termios tio;
	int fd = open(c->arg[0], O_RDONLY | O_NOCTTY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return try_result(-1);
	ret = ioctl(fd, TCGETS, &tio);
	if (ret < 0 && errno == ENOTTY)
		ret = 0; /* not a tty, but the ioctl was allowed through */
	ret = ret < 0 ? -errno : 0;
	close(fd);
	errno = -ret;
	return try_result(ret);
}

static int exec_path(const struct try_call *c)
{
	fflush(stdout);
	execv(c->arg[0], c->arg);
	return try_result(-1);
}

static int list_dir(const struct try_call *c)
{
	DIR *d = opendir(c->arg[0]);
	struct dirent *de;
	int status;

	if (!d)
		return try_result(-1);
	status = try_result(0);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			printf("%s\n", de->d_name);
	closedir(d);
	return status;
}

/* The calls on one name: how is the call's letter. */
static int one_name(const struct try_call *c)
{
	const char *path = c->arg[0];
	struct stat st;

	switch (c->how) {
	case 't':
		return try_result(truncate(path, 0));
	case 's':
		return try_result(lstat(path, &st));
	case 'c':
		return try_result(chdir(path));
	case 'm':
		return try_result(mkdir(path, 0700));
	case 'r':
		return try_result(rmdir(path));
	case 'u':
		return try_result(unlink(path));
	case 'p':
		return try_result(mknod(path, S_IFIFO | 0600, 0));
	case 'n':
		return try_result(mknod(path, S_IFCHR | 0600, makedev(1, 3)));
	case 'b':
		return try_result(mknod(path, S_IFBLK | 0600, makedev(7, 0)));
	}
	return try_result(0);
}

/* The calls on two names: how is the call's letter. */
static int two_names(const struct try_call *c)
{
	const char *a = c->arg[0], *b = c->arg[1];

	switch (c->how) {
	case 's':
		return try_result(symlink(a, b));
	case 'l':
		return try_result(link(a, b));
	case 'r':
		return try_result(rename(a, b));
	case 'x':
		return try_result(
		    renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE));
	}
	return try_result(0);
}

/* how: 'b'ind or 'c'onnect, upper case for an abstract name. */
static int unix_socket(const struct try_call *c)
{
	bool abstract = c->how == 'B' || c->how == 'C';
	bool do_bind = c->how == 'b' || c->how == 'B';
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	const char *name = c->arg[0];
	size_t len = strlen(name);
	socklen_t addr_len;
	int fd, ret;

	if (len + 1 > sizeof(addr.sun_path))
		try_usage_error(
		    "socket name '%s' is too long: give at most %zu bytes",
		    name, sizeof(addr.sun_path) - 2);
	memcpy(addr.sun_path + (abstract ? 1 : 0), name, len);
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			       (abstract ? 1 : 0));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return try_result(-1);
	ret = do_bind ? bind(fd, (struct sockaddr *)&addr, addr_len)
		      : connect(fd, (struct sockaddr *)&addr, addr_len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	errno = -ret;
	return try_result(ret);
}

/* how: 'b'ind or 'c'onnect TCP, 's'end UDP. */
static int inet_socket(const struct try_call *c)
{
	struct sockaddr_in addr = {
	    .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)try_number(c->arg[0], "PORT")),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(
	    AF_INET, (c->how == 's' ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC,
	    0);
	int ret;

	if (fd < 0)
		return try_result(-1);
	if (c->how == 'b')
		ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	else if (c->how == 'c')
		ret = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	else
		ret = (int)sendto(fd, "x", 1, 0, (struct sockaddr *)&addr,
				  sizeof(addr));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	errno = -ret;
	return try_result(ret);
}

static int kill_pid(const struct try_call *c)
{
	return try_result(kill((pid_t)try_number(c->arg[0], "PID"),
			       (int)try_number(c->arg[1], "SIG")));
}

/* how: PTRACE_ATTACH or PTRACE_SEIZE, then detach. */
static int ptrace_pid(const struct try_call *c)
{
	pid_t pid = (pid_t)try_number(c->arg[0], "PID");
	long ret = ptrace((enum __ptrace_request)c->how, pid, NULL, NULL);

	if (ret < 0)
		return try_result(-1);
	if (c->how == PTRACE_ATTACH)
		waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return try_result(0);
}

const struct try_verb try_file_verbs[] = {
    {"open-read", 1, "PATH", open_as, O_RDONLY, "open O_RDONLY"},
    {"open-write", 1, "PATH", open_as, O_WRONLY, "open O_WRONLY"},
    {"open-append", 1, "PATH", open_as, O_WRONLY | O_APPEND,
     "open O_WRONLY|O_APPEND"},
    {"open-trunc", 1, "PATH", open_as, O_WRONLY | O_TRUNC,
     "open O_WRONLY|O_TRUNC"},
    {"open-path", 1, "PATH", open_as, O_PATH,
     "open O_PATH (no access check on the file)"},
    {"creat", 1, "PATH", open_as, O_CREAT | O_WRONLY | O_TRUNC,
     "creat(2) (O_CREAT|O_WRONLY|O_TRUNC, 0600)"},
    {"truncate", 1, "PATH", one_name, 't', "truncate(2) to 0 bytes"},
    {"read-file", 1, "PATH", read_file, 0, "open and read; the bytes follow"},
    {"write-file", 2, "PATH TEXT", write_file, 0,
     "open O_WRONLY|O_CREAT|O_TRUNC and write TEXT"},
    {"ioctl-tty", 1, "PATH", ioctl_tty, 0,
     "open O_RDONLY|O_NOCTTY, then ioctl TCGETS"},
    {"exec", -1, "PATH [ARG]...", exec_path, 0,
     "execv(2); on success PATH's output follows"},
    {"list", 1, "DIR", list_dir, 0, "read the dir; the names follow"},
    {"stat", 1, "PATH", one_name, 's', "lstat(2)"},
    {"chdir", 1, "DIR", one_name, 'c', "chdir(2)"},
    {"mkdir", 1, "PATH", one_name, 'm', "mkdir(2), 0700"},
    {"rmdir", 1, "PATH", one_name, 'r', "rmdir(2)"},
    {"unlink", 1, "PATH", one_name, 'u', "unlink(2)"},
    {"mknod-fifo", 1, "PATH", one_name, 'p', "mknod S_IFIFO"},
    {"mknod-char", 1, "PATH", one_name, 'n',
     "mknod S_IFCHR 1:3 (the null device)"},
    {"mknod-block", 1, "PATH", one_name, 'b', "mknod S_IFBLK 7:0"},
    {"symlink", 2, "TARGET PATH", two_names, 's', "symlink(2)"},
    {"link", 2, "OLD NEW", two_names, 'l', "link(2)"},
    {"rename", 2, "OLD NEW", two_names, 'r', "rename(2)"},
    {"exchange", 2, "A B", two_names, 'x', "renameat2(RENAME_EXCHANGE)"},
    {"bind-unix", 1, "PATH", unix_socket, 'b',
     "bind a pathname unix stream socket"},
    {"connect-unix", 1, "PATH", unix_socket, 'c',
     "connect to a pathname unix stream socket"},
    {"bind-abstract", 1, "NAME", unix_socket, 'B',
     "bind an abstract unix socket (\\0NAME)"},
    {"connect-abstract", 1, "NAME", unix_socket, 'C',
     "connect to an abstract unix socket"},
    {"bind-tcp", 1, "PORT", inet_socket, 'b', "bind TCP 127.0.0.1:PORT"},
    {"connect-tcp", 1, "PORT", inet_socket, 'c', "connect TCP 127.0.0.1:PORT"},
    {"send-udp", 1, "PORT", inet_socket, 's',
     "send one UDP datagram to 127.0.0.1:PORT"},
    {"kill", 2, "PID SIG", kill_pid, 0, "kill(2), SIG a number (0 probes)"},
    {"ptrace-attach", 1, "PID", ptrace_pid, PTRACE_ATTACH,
     "PTRACE_ATTACH, then detach"},
    {"ptrace-seize", 1, "PID", ptrace_pid, PTRACE_SEIZE,
     "PTRACE_SEIZE, then detach"},
    {NULL, 0, NULL, NULL, 0, NULL},
};
