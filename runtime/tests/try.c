// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try: perform one operation and report its outcome by errno name, so
 * that end-to-end tests (`jr2-confine run -- jr2-try ...`) assert exact
 * errnos.  stdout: "ok" or the errno's name (then data for read verbs);
 * exit status: 0 ok, the errno when below 100, 100 another errno, 101 usage.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define EXIT_OTHER_ERRNO 100
#define EXIT_USAGE	 101

static const char usage_text[] =
    "Usage: jr2-try VERB ARG...\n"
    "Perform one operation; print 'ok' or the errno's name (EACCES, ...)\n"
    "on stdout; exit 0 when it worked, else the errno when below 100,\n"
    "100 for a larger errno, 101 on a usage error.\n"
    "\n"
    "Files (PATH):\n"
    "  open-read PATH        open O_RDONLY\n"
    "  open-write PATH       open O_WRONLY\n"
    "  open-append PATH      open O_WRONLY|O_APPEND\n"
    "  open-trunc PATH       open O_WRONLY|O_TRUNC\n"
    "  open-path PATH        open O_PATH (no access check on the file)\n"
    "  creat PATH            creat(2) (O_CREAT|O_WRONLY|O_TRUNC, 0600)\n"
    "  truncate PATH         truncate(2) to 0 bytes\n"
    "  read-file PATH        open and read; the bytes follow 'ok'\n"
    "  write-file PATH TEXT  open O_WRONLY|O_CREAT|O_TRUNC and write TEXT\n"
    "  ioctl-tty PATH        open O_RDONLY|O_NOCTTY, then ioctl TCGETS\n"
    "  exec PATH [ARG]...    execv(2); on success PATH's output follows\n"
    "Dirs and names:\n"
    "  list DIR              read the dir; the names follow 'ok'\n"
    "  stat PATH             lstat(2)\n"
    "  chdir DIR             chdir(2)\n"
    "  mkdir PATH            mkdir(2), 0700\n"
    "  rmdir PATH            rmdir(2)\n"
    "  unlink PATH           unlink(2)\n"
    "  mknod-fifo PATH       mknod S_IFIFO\n"
    "  mknod-char PATH       mknod S_IFCHR 1:3 (the null device)\n"
    "  mknod-block PATH      mknod S_IFBLK 7:0\n"
    "  symlink TARGET PATH   symlink(2)\n"
    "  link OLD NEW          link(2)\n"
    "  rename OLD NEW        rename(2)\n"
    "  exchange A B          renameat2(RENAME_EXCHANGE)\n"
    "Sockets and processes:\n"
    "  bind-unix PATH        bind a pathname unix stream socket\n"
    "  connect-unix PATH     connect to a pathname unix stream socket\n"
    "  bind-abstract NAME    bind an abstract unix socket (\\0NAME)\n"
    "  connect-abstract NAME connect to an abstract unix socket\n"
    "  bind-tcp PORT         bind TCP 127.0.0.1:PORT\n"
    "  connect-tcp PORT      connect TCP 127.0.0.1:PORT\n"
    "  send-udp PORT         send one UDP datagram to 127.0.0.1:PORT\n"
    "  kill PID SIG          kill(2), SIG a number (0 probes)\n"
    "  ptrace-attach PID     PTRACE_ATTACH, then detach\n"
    "  ptrace-seize PID      PTRACE_SEIZE, then detach\n"
    "  --help                this text\n";

static int result(int ret)
{
	int err = ret < 0 ? errno : 0;

	if (!err) {
		printf("ok\n");
		return 0;
	}
	printf("%s\n", strerrorname_np(err) ? strerrorname_np(err) : "E?");
	return err < EXIT_OTHER_ERRNO ? err : EXIT_OTHER_ERRNO;
}

/* The one error path: a usage error (the operation's errno is a result). */
static void die_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("jr2-try: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(": see 'jr2-try --help'\n", stderr);
	exit(EXIT_USAGE);
}

static long number(const char *text, const char *what)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || end == text || *end)
		die_usage("%s '%s' is not a number: give one", what, text);
	return n;
}

static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
	return result(fd);
}

static int try_read(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int status;

	if (fd < 0)
		return result(-1);
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return result(-1);
	}
	close(fd);
	status = result(0);
	fwrite(buf, 1, (size_t)n, stdout);
	return status;
}

static int try_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t len = (ssize_t)strlen(text);
	int ret = 0;

	if (fd < 0)
		return result(-1);
	if (write(fd, text, (size_t)len) != len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return result(ret);
}

static int try_ioctl_tty(const char *path)
{
	struct termios tio;
	int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return result(-1);
	ret = ioctl(fd, TCGETS, &tio);
	if (ret < 0 && errno == ENOTTY)
		ret = 0; /* not a tty, but the ioctl was allowed through */
	ret = ret < 0 ? -errno : 0;
	close(fd);
	errno = -ret;
	return result(ret);
}

static int try_list(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int status;

	if (!d)
		return result(-1);
	status = result(0);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			printf("%s\n", de->d_name);
	closedir(d);
	return status;
}

static int unix_socket(const char *name, bool abstract, bool do_bind)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(name);
	socklen_t addr_len;
	int fd, ret;

	if (len + 1 > sizeof(addr.sun_path))
		die_usage(
		    "socket name '%s' is too long: give at most %zu bytes",
		    name, sizeof(addr.sun_path) - 2);
	memcpy(addr.sun_path + (abstract ? 1 : 0), name, len);
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			       (abstract ? 1 : 0));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return result(-1);
	ret = do_bind ? bind(fd, (struct sockaddr *)&addr, addr_len)
		      : connect(fd, (struct sockaddr *)&addr, addr_len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	errno = -ret;
	return result(ret);
}

static int inet_socket(const char *port_text, int type, int op)
{
	struct sockaddr_in addr = {
	    .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)number(port_text, "PORT")),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return result(-1);
	if (op == 'b')
		ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	else if (op == 'c')
		ret = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	else
		ret = (int)sendto(fd, "x", 1, 0, (struct sockaddr *)&addr,
				  sizeof(addr));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	errno = -ret;
	return result(ret);
}

static int try_ptrace(const char *pid_text, enum __ptrace_request request)
{
	pid_t pid = (pid_t)number(pid_text, "PID");
	long ret = ptrace(request, pid, NULL, NULL);

	if (ret < 0)
		return result(-1);
	if (request == PTRACE_ATTACH)
		waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return result(0);
}

/* Verbs by the number of their arguments. */
static int run1(const char *verb, const char *a)
{
	if (!strcmp(verb, "open-read"))
		return try_open(a, O_RDONLY);
	if (!strcmp(verb, "open-write"))
		return try_open(a, O_WRONLY);
	if (!strcmp(verb, "open-append"))
		return try_open(a, O_WRONLY | O_APPEND);
	if (!strcmp(verb, "open-trunc"))
		return try_open(a, O_WRONLY | O_TRUNC);
	if (!strcmp(verb, "open-path"))
		return try_open(a, O_PATH);
	if (!strcmp(verb, "creat"))
		return try_open(a, O_CREAT | O_WRONLY | O_TRUNC);
	if (!strcmp(verb, "truncate"))
		return result(truncate(a, 0));
	if (!strcmp(verb, "read-file"))
		return try_read(a);
	if (!strcmp(verb, "ioctl-tty"))
		return try_ioctl_tty(a);
	if (!strcmp(verb, "list"))
		return try_list(a);
	if (!strcmp(verb, "stat")) {
		struct stat st;

		return result(lstat(a, &st));
	}
	if (!strcmp(verb, "chdir"))
		return result(chdir(a));
	if (!strcmp(verb, "mkdir"))
		return result(mkdir(a, 0700));
	if (!strcmp(verb, "rmdir"))
		return result(rmdir(a));
	if (!strcmp(verb, "unlink"))
		return result(unlink(a));
	if (!strcmp(verb, "mknod-fifo"))
		return result(mknod(a, S_IFIFO | 0600, 0));
	if (!strcmp(verb, "mknod-char"))
		return result(mknod(a, S_IFCHR | 0600, makedev(1, 3)));
	if (!strcmp(verb, "mknod-block"))
		return result(mknod(a, S_IFBLK | 0600, makedev(7, 0)));
	if (!strcmp(verb, "bind-unix"))
		return unix_socket(a, false, true);
	if (!strcmp(verb, "connect-unix"))
		return unix_socket(a, false, false);
	if (!strcmp(verb, "bind-abstract"))
		return unix_socket(a, true, true);
	if (!strcmp(verb, "connect-abstract"))
		return unix_socket(a, true, false);
	if (!strcmp(verb, "bind-tcp"))
		return inet_socket(a, SOCK_STREAM, 'b');
	if (!strcmp(verb, "connect-tcp"))
		return inet_socket(a, SOCK_STREAM, 'c');
	if (!strcmp(verb, "send-udp"))
		return inet_socket(a, SOCK_DGRAM, 's');
	if (!strcmp(verb, "ptrace-attach"))
		return try_ptrace(a, PTRACE_ATTACH);
	if (!strcmp(verb, "ptrace-seize"))
		return try_ptrace(a, PTRACE_SEIZE);
	return -1;
}

static int run2(const char *verb, const char *a, const char *b)
{
	if (!strcmp(verb, "write-file"))
		return try_write(a, b);
	if (!strcmp(verb, "symlink"))
		return result(symlink(a, b));
	if (!strcmp(verb, "link"))
		return result(link(a, b));
	if (!strcmp(verb, "rename"))
		return result(rename(a, b));
	if (!strcmp(verb, "exchange"))
		return result(
		    renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE));
	if (!strcmp(verb, "kill"))
		return result(
		    kill((pid_t)number(a, "PID"), (int)number(b, "SIG")));
	return -1;
}

int main(int argc, char **argv)
{
	int status = -1;

	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc < 3)
		die_usage("no verb: give a verb and its arguments");
	/* Data of read verbs follows the status line: flush in order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "exec")) {
		fflush(stdout);
		execv(argv[2], &argv[2]);
		return result(-1);
	}
	if (argc == 3)
		status = run1(argv[1], argv[2]);
	else if (argc == 4)
		status = run2(argv[1], argv[2], argv[3]);
	if (status < 0)
		die_usage("unknown verb '%s' with %d argument(s)", argv[1],
			  argc - 2);
	return status;
}
