// SPDX-License-Identifier: GPL-2.0-only
/* `jr2-harness exec` and `jr2-harness status`: clients of the control channel.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "channel.h"
#include "die.h"
#include "harness.h"
#include "request.h"
#include "serve.h"

static int connect_control(const char *protected_dir)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		jr2_die_path(JR2_EXIT_REFUSED, "cannot make a socket for",
			     protected_dir);
	if ((size_t)snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s",
			     protected_dir,
			     JR2_CONTROL_SOCKET) >= sizeof(addr.sun_path))
		jr2_die(JR2_EXIT_USAGE,
			"--root: the control socket path under '%s' is too "
			"long; use a shorter root",
			protected_dir);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		jr2_die_path(
		    JR2_EXIT_REFUSED,
		    "cannot connect to the harness (is `jr2-harness serve` "
		    "running?) at",
		    addr.sun_path);
	return fd;
}

/*
 * The bearer: the first line of the file, a regular file of at most 64 KiB
 * (opened non-blocking: a FIFO or a device there holds no client).  The
 * default file is missing when no harness serves this --root: that is said
 * first.
 */
static void add_bearer(struct jr2_msg *msg, const struct client_options *opts,
		       const char *protected_dir)
{
	const char *root = opts->root ? opts->root : "/";
	char path[PATH_MAX + 32], *text;
	mode_t mode = 0;
	size_t size;
	int ret;

	if (opts->bearer_file)
		snprintf(path, sizeof(path), "%s", opts->bearer_file);
	else
		snprintf(path, sizeof(path), "%s/%s", protected_dir,
			 JR2_BEARER_FILE);
	ret = jr2_read_regular(path, 64 * 1024, &text, &mode);
	if (ret > 0)
		jr2_die(JR2_EXIT_USAGE,
			"--bearer-file '%s' is %s, not a regular file; name "
			"the bearer file `jr2-harness serve` was given",
			path, jr2_file_kind(mode));
	if (ret == -EFBIG)
		jr2_die(JR2_EXIT_USAGE,
			"--bearer-file '%s' is larger than 64 KiB, so not a "
			"bearer; name the bearer file `jr2-harness serve` was "
			"given",
			path);
	if (ret == -ENOENT && !opts->bearer_file)
		jr2_die(JR2_EXIT_REFUSED,
			"no harness serves --root '%s' (its bearer file '%s' "
			"does not exist): start `jr2-harness serve --root %s`, "
			"or give the --root the running harness was started "
			"with",
			root, path, root);
	if (ret) {
		errno = -ret;
		jr2_die_path(JR2_EXIT_REFUSED,
			     "cannot read the bearer file (--bearer-file)",
			     path);
	}
	size = strlen(text);
	text[strcspn(text, "\r\n")] = '\0';
	jr2_msg_field(msg, "bearer", text);
	explicit_bzero(text, size);
	free(text);
}

static void send_request(int fd, struct jr2_msg *msg, const int *fds,
			 size_t n_fds)
{
	int ret;

	if (msg->failed)
		jr2_die(JR2_EXIT_REFUSED, "out of memory building the request");
	if (msg->len > JR2_REQ_MAX_BYTES)
		jr2_die(JR2_EXIT_USAGE,
			"the request is %zu bytes, more than %d; pass fewer or "
			"shorter arguments",
			msg->len, JR2_REQ_MAX_BYTES);
	ret = jr2_send_msg(fd, msg->buf, msg->len, fds, n_fds);
	if (ret) {
		errno = -ret;
		jr2_die_path(JR2_EXIT_REFUSED, "cannot send the request to",
			     "the harness");
	}
	jr2_msg_free(msg);
}

/* Reads one answer; exits when the harness went away. */
static ssize_t read_answer(int fd, char *buf, size_t size)
{
	ssize_t len;

	do {
		len = recv(fd, buf, size - 1, 0);
	} while (len < 0 && errno == EINTR);
	if (len < 0)
		jr2_die_path(JR2_EXIT_REFUSED, "cannot read the answer of",
			     "the harness");
	if (len == 0)
		jr2_die(JR2_EXIT_REFUSED, "the harness closed the connection "
					  "without an answer; see its log");
	buf[len] = '\0';
	return len;
}

/* "refused ..." and "error N ..." end the client with 125, 126 or 127. */
static void answer_failed(const char *buf)
{
	int err = 0, used = 0;

	if (!strncmp(buf, "refused ", 8))
		jr2_die(JR2_EXIT_REFUSED, "the harness refused: %s", buf + 8);
	if (sscanf(buf, "error %d %n", &err, &used) == 1 && used > 0) {
		fprintf(stderr, "jr2-harness: %s", buf + used);
		/* The spawner's step "chdir": the --cwd folder (man page). */
		if (!strncmp(buf + used, "chdir ", 6))
			exit(JR2_EXIT_CWD);
		if (err == ENOENT)
			exit(JR2_EXIT_NOT_FOUND);
		exit(err == EACCES || err == ENOEXEC ? 126 : JR2_EXIT_REFUSED);
	}
	jr2_die(JR2_EXIT_REFUSED, "unexpected answer of the harness: '%.200s'",
		buf);
}

/*
 * The signals a parent (a shell, a Node Harness) sends its exec client to
 * stop or steer the program: passed on to it (op signal), as a terminal
 * passes Ctrl-C to its foreground job.
 */
static const int forwarded[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT,
				SIGUSR1, SIGUSR2, SIGWINCH};

/* signo to the program of request id, on a connection of its own. */
static void forward_signal(const struct client_options *opts,
			   const char *protected_dir, const char *id, int signo)
{
	char buf[4096], number[16];
	struct jr2_msg msg;
	int fd;

	snprintf(number, sizeof(number), "%d", signo);
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "signal");
	add_bearer(&msg, opts, protected_dir);
	jr2_msg_field(&msg, "id", id);
	jr2_msg_field(&msg, "signal", number);
	fd = connect_control(protected_dir);
	send_request(fd, &msg, NULL, 0);
	/* "signalled", or "error 3": it ended meanwhile (its exit comes). */
	read_answer(fd, buf, sizeof(buf));
	close(fd);
}

int client_exec(const struct client_options *opts, char **argv)
{
	char protected_dir[PATH_MAX], cwd[PATH_MAX], buf[4096], id[24];
	int fds[3 + 13] = {0, 1, 2};
	struct jr2_msg msg;
	int fd, code, sigfd, pid;
	sigset_t mask;

	jr2_protected_dir_of(opts->root, protected_dir, sizeof(protected_dir));
	if (!opts->cwd && !getcwd(cwd, sizeof(cwd)))
		jr2_die_path(JR2_EXIT_REFUSED, "cannot read the current folder",
			     ".");
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "exec");
	add_bearer(&msg, opts, protected_dir);
	jr2_msg_field(&msg, "cwd", opts->cwd ? opts->cwd : cwd);
	for (int i = 0; i < opts->n_secrets; i++)
		jr2_msg_field(&msg, "secret", opts->secrets[i]);
	for (char **arg = argv; *arg; arg++)
		jr2_msg_field(&msg, "arg", *arg);
	for (int i = 0; i < opts->n_pass_fds; i++)
		fds[3 + i] = opts->pass_fds[i];
	/* Held from before the request: one sent before the start is
	 * passed on once the program runs. */
	sigemptyset(&mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&mask, forwarded[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) ||
	    (sigfd = signalfd(-1, &mask, SFD_CLOEXEC)) < 0)
		jr2_die_path(JR2_EXIT_REFUSED,
			     "cannot hold the signals to pass "
			     "on with",
			     "signalfd");
	fd = connect_control(protected_dir);
	send_request(fd, &msg, fds, 3 + (size_t)opts->n_pass_fds);
	read_answer(fd, buf, sizeof(buf));
	if (sscanf(buf, "started %d %23[0-9]", &pid, id) != 2)
		answer_failed(buf);
	for (;;) {
		struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN},
					{.fd = sigfd, .events = POLLIN}};
		struct signalfd_siginfo info;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			jr2_die_path(JR2_EXIT_REFUSED, "cannot wait for",
				     "the harness");
		}
		if (pfd[0].revents)
			break;
		if (read(sigfd, &info, sizeof(info)) == sizeof(info))
			forward_signal(opts, protected_dir, id,
				       (int)info.ssi_signo);
	}
	read_answer(fd, buf, sizeof(buf));
	if (sscanf(buf, "exit %d", &code) != 1)
		answer_failed(buf);
	close(fd);
	close(sigfd);
	return code;
}

int client_status(const struct client_options *opts)
{
	char protected_dir[PATH_MAX], *buf;
	struct jr2_msg msg;
	ssize_t size;
	int fd;

	jr2_protected_dir_of(opts->root, protected_dir, sizeof(protected_dir));
	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "status");
	add_bearer(&msg, opts, protected_dir);
	if (opts->json)
		jr2_msg_field(&msg, "json", "1");
	fd = connect_control(protected_dir);
	send_request(fd, &msg, NULL, 0);
	/* Its size first: the answer is read whole, however long. */
	do {
		size = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
	} while (size < 0 && errno == EINTR);
	if (size < 0)
		jr2_die_path(JR2_EXIT_REFUSED, "cannot read the answer of",
			     "the harness");
	buf = malloc((size_t)size + 2);
	if (!buf)
		jr2_die(JR2_EXIT_REFUSED,
			"out of memory for an answer of %zd "
			"bytes",
			size);
	read_answer(fd, buf, (size_t)size + 2);
	if (strncmp(buf, "status\n", 7))
		answer_failed(buf);
	fputs(buf + 7, stdout);
	free(buf);
	close(fd);
	return 0;
}
