// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness's sockets: the control socket and the Custodian's, bound as
 * NAME.new and renamed into place by the start's commit, and the abstract
 * Custodian socket, whose holder is named when the name is taken; before
 * them, the check that no other harness serves the protected dir.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "channel.h"
#include "die.h"
#include "leftovers.h"
#include "serve.h"

/* Before anything in the protected dir is rewritten: one harness per dir. */
void refuse_second_harness(void)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		jr2_die_path(1, "cannot make a unix socket for",
			     harness.protected_dir);
	/* check_protected_dir: the path fits. */
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%.80s/%s",
		 harness.protected_dir, JR2_CONTROL_SOCKET);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
		jr2_die(1,
			"another harness serves '%s' (its control socket "
			"answers); stop it first or give another --root",
			harness.protected_dir);
	close(fd);
}

/*
 * The pid (and name) of a process that holds a socket bound to the abstract
 * `name`: its inode from /proc/net/unix (of this network namespace), then
 * the process whose /proc/<pid>/fd has it.  0 when not found.
 */
static pid_t abstract_holder(const char *name, char *comm, size_t size)
{
	char line[PATH_MAX + 256], want[PATH_MAX + 8], link[600], target[64];
	unsigned long inode = 0;
	FILE *file = fopen("/proc/net/unix", "re");
	DIR *proc, *fds;
	struct dirent *p, *f;
	pid_t found = 0;

	snprintf(want, sizeof(want), "@%s", name);
	comm[0] = '\0';
	while (file && fgets(line, sizeof(line), file)) {
		unsigned long ino;
		int path_at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %n", &ino,
			   &path_at) == 1 &&
		    path_at > 0 && !strcmp(line + path_at, want)) {
			inode = ino;
			break;
		}
	}
	if (file)
		fclose(file);
	if (!inode || !(proc = opendir("/proc")))
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (!found && (p = readdir(proc))) {
		char dir[300];

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/fd", p->d_name);
		if (!(fds = opendir(dir)))
			continue;
		while ((f = readdir(fds))) {
			ssize_t n;

			snprintf(link, sizeof(link), "%s/%s", dir, f->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (!strcmp(target, want)) {
				found = atoi(p->d_name);
				break;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	if (found)
		jr2_proc_comm(found, comm, size);
	return found;
}

static int unix_socket(int type, const char *what)
{
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		jr2_die_path(1, "cannot make a unix socket for", what);
	return fd;
}

/* The abstract Custodian socket: bound first (it writes no file). */
void bind_abstract(void)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(harness.abstract_name);
	int fd = unix_socket(SOCK_STREAM, harness.abstract_name);

	/* sun_path[0] stays NUL: the name lives in no file system. */
	memcpy(addr.sun_path + 1, harness.abstract_name, len);
	if (bind(fd, (struct sockaddr *)&addr,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     len))) {
		char comm[64];
		pid_t holder;

		if (errno != EADDRINUSE)
			jr2_die_path(1, "cannot bind the abstract socket",
				     harness.abstract_name);
		holder =
		    abstract_holder(harness.abstract_name, comm, sizeof(comm));
		if (holder > 0)
			jr2_die(1,
				"the abstract socket '@%s' is taken by pid %d "
				"(%s), maybe a program left by an earlier "
				"harness; stop it (kill %d) and start again",
				harness.abstract_name, (int)holder, comm,
				(int)holder);
		jr2_die(1,
			"the abstract socket '@%s' is taken by a process of "
			"this network namespace that /proc does not show; stop "
			"it (see ss -xlp) and start again",
			harness.abstract_name);
	}
	if (listen(fd, 64))
		jr2_die_path(1, "cannot listen on the socket",
			     harness.abstract_name);
	harness.abstract_fd = fd;
}

/* A pathname socket: bound as NAME.new, renamed into place later. */
static int bind_path(int type, const char *name, mode_t mode)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = unix_socket(type, name);

	/* check_protected_dir: the path fits. */
	if ((size_t)snprintf(addr.sun_path, sizeof(addr.sun_path),
			     "%.80s/%s.new", harness.protected_dir,
			     name) >= sizeof(addr.sun_path))
		jr2_die(1, "socket path under '%s' too long",
			harness.protected_dir);
	unlink(addr.sun_path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
		jr2_die_path(1, "cannot bind the socket", addr.sun_path);
	made_file(addr.sun_path);
	if (chmod(addr.sun_path, mode))
		jr2_die_path(1, "cannot chmod the socket", addr.sun_path);
	if (listen(fd, 64))
		jr2_die_path(1, "cannot listen on the socket", addr.sun_path);
	return fd;
}

void open_sockets(void)
{
	harness.control_fd =
	    bind_path(SOCK_SEQPACKET, JR2_CONTROL_SOCKET, 0600);
	/* The same requests in frames, for clients that have no SEQPACKET
	 * or SCM_RIGHTS (Node's net): stdio comes as connections. */
	harness.stream_fd = bind_path(SOCK_STREAM, JR2_STREAM_SOCKET, 0600);
	/* R8: the Custodian's socket is for everyone; its answer needs the
	 * control Stand-in. */
	harness.custodian_fd =
	    bind_path(SOCK_STREAM, JR2_CUSTODIAN_SOCKET, 0666);
}

void watch_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		jr2_die_path(1, "cannot block signals", "SIGCHLD");
	harness.signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (harness.signal_fd < 0)
		jr2_die_path(1, "cannot make a signalfd for", "SIGCHLD");
	signal(SIGPIPE, SIG_IGN);
}
