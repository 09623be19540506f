// SPDX-License-Identifier: GPL-2.0-only
/*
 * The descriptor door: only stdin, stdout, stderr and
 * the descriptors passed on purpose (--pass-fd) reach a confined program,
 * and a passed or stdio descriptor into the protected dir (O_PATH
 * included), or open for writing into a read-only tree, is refused with
 * exit 125 naming the descriptor and the path.  Through `jr2-confine run`
 * and `jr2-harness exec`; controls: the same descriptors read unconfined,
 * and descriptors elsewhere passed on purpose.  A descriptor that hands out
 * descriptors (a unix socket listening or with some queued, io_uring,
 * fanotify, a pidfd) is refused the same way; a connected unix socket with
 * none queued arrives, closed to later ones where the kernel has
 * SO_PASSRIGHTS.
 *
 * Promises: R10
 */
#include <linux/io_uring.h>
#include <sys/fanotify.h>

#include "ways.h"

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83
#endif

WAY_FIXTURE(escapes)

/* `path` opened with `flags` at descriptor `fd` (inherited across exec). */
static void open_at(struct __test_metadata *_metadata, const char *path,
		    int flags, int fd)
{
	int opened = open(path, flags);

	ASSERT_LE(0, opened);
	/* The kselftest runner holds 3 and 4: open() may give fd itself. */
	if (opened == fd)
		return;
	ASSERT_EQ(fd, dup2(opened, fd));
	ASSERT_EQ(0, close(opened));
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static int pass_fd_to(struct way *way, enum way_path path, const char *fd,
		      const char *what, char *out, size_t size)
{
	const char *const opts[] = {"--pass-fd", fd, NULL};
	const char *const verb[] = {what, "3", NULL};
	const char *const verb_run[] = {what, fd, NULL};

	/* exec renumbers passed descriptors from 3; run keeps them. */
	return way_try_opts(way, path, opts, false,
			    path == WAY_EXEC ? verb : verb_run, out, size);
}

/* jr2-try fd-read of the passed descriptor `fd`. */
static int pass_fd(struct way *way, enum way_path path, const char *fd,
		   char *out, size_t size)
{
	return pass_fd_to(way, path, fd, "fd-read", out, size);
}

/* `exec 5<P/k 6>>P/k; jr2-confine run -- sh -c 'cat <&5; ...'`. */
TEST_F(escapes, R10_descriptors_inherited_are_closed_run)
{
	struct way *way = &self->way;
	char *const sh[] = {way->confine, "run",	"--quiet",
			    "--protect",  HX_PROTECTED, "--",
			    "/bin/sh",	  "-c",		"cat <&5; echo x >&6",
			    NULL};
	char out[WAY_OUT_SIZE];
	off_t before;

	WAY_START(way);
	open_at(_metadata, HX_STANDINS, O_RDONLY, 5);
	open_at(_metadata, HX_STANDINS, O_WRONLY | O_APPEND, 6);
	before = size_of(HX_STANDINS);
	/* Control: unconfined, descriptor 5 reads the Stand-ins. */
	ASSERT_EQ(0, strncmp("ok ",
			     WAY_TRY_LINE(way, WAY_UNCONFINED, "fd-read", "5"),
			     3));
	ASSERT_STREQ("EBADF", WAY_TRY_LINE(way, WAY_RUN, "fd-read", "5"));
	/* The shell's own status for a bad redirection (dash 2, busybox 1);
	   the errno is jr2-try's EBADF above. */
	ASSERT_NE(0, way_run(sh, -1, false, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "5"))
	{
		TH_LOG("no word about descriptor 5: %s", out);
	}
	ASSERT_EQ(NULL, strstr(out, "control"))
	{
		TH_LOG("the Stand-ins leaked: %s", out);
	}
	ASSERT_EQ(before, size_of(HX_STANDINS));
	close(5);
	close(6);
}

/* --pass-fd and stdin into the protected dir: refused, 125, named. */
TEST_F(escapes, R10_descriptors_into_protected_dir_refused)
{
	struct way *way = &self->way;
	static const struct {
		const char *path;
		int flags;
	} bad[] = {
	    {HX_STANDINS, O_RDONLY},
	    {HX_STANDINS, O_WRONLY | O_APPEND},
	    {HX_STANDINS, O_PATH},
	    {HX_PROTECTED, O_PATH | O_DIRECTORY},
	    {HX_PROTECTED "/home", O_PATH | O_DIRECTORY},
	    {FX_README, O_WRONLY | O_APPEND},
	};
	char out[WAY_OUT_SIZE], expected[128];

	WAY_START(way);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		open_at(_metadata, bad[i].path, bad[i].flags, 9);
		for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
			ASSERT_EQ(JR2_EXIT_REFUSED,
				  pass_fd(way, path, "9", out, sizeof(out)))
			{
				TH_LOG("%s, %s: %s", way_name[path],
				       bad[i].path, out);
			}
			snprintf(
			    expected, sizeof(expected), "descriptor %d %s '%s",
			    path == WAY_RUN ? 9 : 3,
			    !strcmp(bad[i].path, FX_README) ? "is open for "
							      "writing on"
							    : "refers to",
			    bad[i].path);
			ASSERT_NE(NULL, strstr(out, expected))
			{
				TH_LOG("%s: '%s' lacks '%s'", way_name[path],
				       out, expected);
			}
		}
		close(9);
	}
	/* stdin from a protected file: refused too. */
	way->in_fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, way->in_fd);
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		const char *const verb[] = {"fd-read", "0", NULL};

		ASSERT_EQ(JR2_EXIT_REFUSED,
			  way_try_opts(way, path, NULL, false, verb, out,
				       sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_NE(NULL,
			  strstr(out, "descriptor 0 refers to '" HX_STANDINS))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
	}
	/* Control: unconfined, that stdin reads the Stand-ins. */
	ASSERT_EQ(0, strncmp("ok ",
			     WAY_TRY_LINE(way, WAY_UNCONFINED, "fd-read", "0"),
			     3));
	close(way->in_fd);
	way->in_fd = -1;
}

/* Controls: descriptors elsewhere, and read-only ones on read-only trees. */
TEST_F(escapes, R10_descriptors_passed_on_purpose_arrive)
{
	struct way *way = &self->way;
	char out[WAY_OUT_SIZE];

	WAY_START(way);
	open_at(_metadata, FX_FILE, O_RDONLY, 9);
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_EQ(0, pass_fd(way, path, "9", out, sizeof(out)));
		ASSERT_STREQ("ok data\n\n", out);
	}
	close(9);
	open_at(_metadata, FX_README, O_RDONLY, 9);
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_EQ(0, pass_fd(way, path, "9", out, sizeof(out)));
		ASSERT_STREQ("ok readme\n\n", out);
	}
	close(9);
}

/* Sends the descriptor `fd` on the socket `sock`, with one byte; errno. */
static int send_fd(int sock, int fd)
{
	char byte = 'x', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *h = CMSG_FIRSTHDR(&msg);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	return sendmsg(sock, &msg, MSG_DONTWAIT) < 0 ? errno : 0;
}

/* `fd` made descriptor 9 (closed as itself). */
static void at_9(struct __test_metadata *_metadata, int fd)
{
	ASSERT_LE(0, fd);
	if (fd != 9) {
		ASSERT_EQ(9, dup2(fd, 9));
		ASSERT_EQ(0, close(fd));
	}
}

/*
 * Passing descriptor 9 by `path` is refused (125), the message naming
 * `what`; by exec, `exec_what` where not NULL (the client's own refusal).
 */
static void refused_9_as(struct __test_metadata *_metadata, struct way *way,
			 const char *what, const char *exec_what)
{
	char out[WAY_OUT_SIZE], expected[160];

	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_EQ(JR2_EXIT_REFUSED,
			  pass_fd(way, path, "9", out, sizeof(out)))
		{
			TH_LOG("%s, %s: %s", way_name[path], what, out);
		}
		snprintf(expected, sizeof(expected), "descriptor %d %s",
			 path == WAY_RUN ? 9 : 3, what);
		if (path == WAY_EXEC && exec_what)
			snprintf(expected, sizeof(expected), "%s", exec_what);
		ASSERT_NE(NULL, strstr(out, expected))
		{
			TH_LOG("%s: '%s' lacks '%s'", way_name[path], out,
			       expected);
		}
	}
}

static void refused_9(struct __test_metadata *_metadata, struct way *way,
		      const char *what)
{
	refused_9_as(_metadata, way, what, NULL);
}

/*
 * A unix socket with a descriptor of the Stand-ins queued on it, passed or
 * as stdin; a listening one; io_uring, fanotify, a pidfd: refused, 125.
 * Control: unconfined, the queued descriptor reads the Stand-ins.
 */
TEST_F(escapes, R10_descriptors_carriers_refused)
{
	struct way *way = &self->way;
	static const char *const kinds[] = {
	    "'anon_inode:[pidfd]'",
	    "'anon_inode:[fanotify]'",
	    "'anon_inode:[io_uring]'",
	};
	char out[WAY_OUT_SIZE];
	int sv[2], standins, made, carried;

	WAY_START(way);
	standins = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, standins);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, send_fd(sv[1], standins));
	at_9(_metadata, dup(sv[0]));
	refused_9(_metadata, way, "is a unix socket");
	close(9);
	way->in_fd = sv[0];
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		const char *const verb[] = {"fd-recv", "0", NULL};

		ASSERT_EQ(JR2_EXIT_REFUSED,
			  way_try_opts(way, path, NULL, false, verb, out,
				       sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_NE(NULL, strstr(out, "descriptor 0 is a unix socket"))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_NE(NULL, strstr(out, "1 descriptors queued"));
	}
	/* Control: unconfined, stdin gives the Stand-ins' descriptor. */
	{
		const char *line =
		    WAY_TRY_LINE(way, WAY_UNCONFINED, "fd-recv", "0");
		char first[512] = "";
		int fd = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);

		ASSERT_LE(0, read(fd, first, sizeof(first) - 1));
		close(fd);
		first[strcspn(first, "\n")] = '\0';
		ASSERT_EQ(0, strncmp("ok got ", line, 7));
		ASSERT_LT(20, strlen(line + 7));
		ASSERT_EQ(0, strncmp(first, line + 7, strlen(line + 7)));
	}
	way->in_fd = -1;
	close(sv[0]);
	close(sv[1]);
	/* A listening socket: connections bring descriptors. */
	at_9(_metadata, socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	{
		struct sockaddr_un sun = {.sun_family = AF_UNIX};

		ASSERT_EQ(
		    0, bind(9, (struct sockaddr *)&sun, sizeof(sa_family_t)));
		ASSERT_EQ(0, listen(9, 1));
	}
	refused_9(_metadata, way, "is a listening unix socket");
	close(9);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
		struct io_uring_params params = {0};

		if (i == 0)
			made = (int)syscall(SYS_pidfd_open, getpid(), 0);
		else if (i == 1)
			made = fanotify_init(FAN_CLOEXEC, O_RDONLY);
		else
			made = (int)syscall(SYS_io_uring_setup, 4, &params);
		if (made < 0) {
			TH_LOG("%s: not made here (%s): not tried", kinds[i],
			       strerror(errno));
			continue;
		}
		/* The kernel carries no io_uring in SCM_RIGHTS (EINVAL, 6.x):
		 * then exec's client is refused its send. */
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
		carried = send_fd(sv[0], made);
		close(sv[0]);
		close(sv[1]);
		at_9(_metadata, made);
		refused_9_as(_metadata, way, "is ",
			     carried == EINVAL ? "cannot send the request to "
						 "'the harness': Invalid "
						 "argument"
					       : NULL);
		ASSERT_EQ(JR2_EXIT_REFUSED,
			  pass_fd(way, WAY_RUN, "9", out, sizeof(out)));
		ASSERT_NE(NULL, strstr(out, kinds[i]))
		{
			TH_LOG("'%s' lacks %s", out, kinds[i]);
		}
		close(9);
	}
	close(standins);
}

/*
 * Control: a connected unix socket with nothing queued arrives, passed and
 * as stdin (a Node parent's stdio).  Where the kernel has SO_PASSRIGHTS
 * (the probe: setsockopt on a socket of the test's own), a descriptor its
 * peer sends after the check is refused (EPERM); without it, the send is
 * taken (SECURITY.md).
 */
TEST_F(escapes, R10_descriptors_socket_arrives_closed_to_more)
{
	struct way *way = &self->way;
	char out[WAY_OUT_SIZE];
	int sv[2], off = 0, probe, standins, expected_send;

	WAY_START(way);
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, probe);
	expected_send =
	    setsockopt(probe, SOL_SOCKET, SO_PASSRIGHTS, &off, sizeof(off))
		? 0
		: EPERM;
	TH_LOG("SO_PASSRIGHTS: %s", expected_send ? "yes" : strerror(errno));
	close(probe);
	standins = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, standins);
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		const char *const stdin_verb[] = {"fd-recv", "0", NULL};

		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
		at_9(_metadata, dup(sv[0]));
		ASSERT_EQ(
		    0, pass_fd_to(way, path, "9", "fd-recv", out, sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_STREQ("ok none\n", out);
		/* Nor does the program turn SCM_RIGHTS back on (the filter:
		 * EPERM on every kernel). */
		ASSERT_EQ(1, pass_fd_to(way, path, "9", "passrights-on", out,
					sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_STREQ("EPERM\n", out);
		ASSERT_EQ(expected_send, send_fd(sv[1], standins));
		/* Without SO_PASSRIGHTS the late one is queued: the next
		 * pass of the socket is refused. */
		if (!expected_send)
			ASSERT_EQ(JR2_EXIT_REFUSED,
				  pass_fd_to(way, path, "9", "fd-recv", out,
					     sizeof(out)));
		close(9);
		close(sv[0]);
		close(sv[1]);
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
		way->in_fd = sv[0];
		ASSERT_EQ(0, way_try_opts(way, path, NULL, false, stdin_verb,
					  out, sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_STREQ("ok none\n", out);
		ASSERT_EQ(expected_send, send_fd(sv[1], standins));
		way->in_fd = -1;
		close(sv[0]);
		close(sv[1]);
	}
	/* Control: a socket the step never saw takes the descriptor, and
	 * unconfined, SO_PASSRIGHTS is the kernel's to refuse or take. */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, send_fd(sv[1], standins));
	at_9(_metadata, dup(sv[0]));
	ASSERT_STREQ(expected_send ? "ok" : "ENOPROTOOPT",
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "passrights-on", "9"));
	close(9);
	close(sv[0]);
	close(sv[1]);
	close(standins);
}

/* A unix socket connected to `path`, at descriptor 9. */
static void connected_9(struct __test_metadata *_metadata, const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	at_9(_metadata, socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
	ASSERT_EQ(0, connect(9, (struct sockaddr *)&sun, sizeof(sun)));
}

/*
 * A socket connected to the harness's control socket (in the protected
 * dir) passed: refused (125), naming where it leads.  Control: one
 * connected to a listener elsewhere arrives.
 */
TEST_F(escapes, R10_descriptors_socket_into_protected_dir_refused)
{
	struct way *way = &self->way;
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char out[WAY_OUT_SIZE];
	int listener;

	WAY_START(way);
	connected_9(_metadata, HX_PROTECTED "/control.sock");
	refused_9(_metadata, way,
		  "is a unix socket connected to '" HX_PROTECTED
		  "/control.sock");
	close(9);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", FX_WORK "/sock");
	listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, listener);
	ASSERT_EQ(0, bind(listener, (struct sockaddr *)&sun, sizeof(sun)));
	ASSERT_EQ(0, listen(listener, 4));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		connected_9(_metadata, FX_WORK "/sock");
		ASSERT_EQ(
		    0, pass_fd_to(way, path, "9", "fd-recv", out, sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_STREQ("ok none\n", out);
		close(9);
	}
	close(listener);
}

/*
 * Dirs opened before the confinement and passed: "/" and /proc/PID of the
 * test (outside the domain).  Landlock checks the path at openat(2) from
 * any dir (the Stand-ins: EACCES), and /proc's environ, fd/N and root
 * links ask ptrace, which Landlock refuses outside the domain (EACCES).
 * Control: the same opens unconfined succeed.
 */
TEST_F(escapes, R10_descriptors_dirs_opened_before_lead_nowhere)
{
	struct way *way = &self->way;
	char out[WAY_OUT_SIZE], proc[64], fd_name[32];
	const char *standins = HX_STANDINS + 1; /* relative to "/" */
	int held;

	WAY_START(way);
	held = open(HX_STANDINS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, held);
	snprintf(fd_name, sizeof(fd_name), "fd/%d", held);
	at_9(_metadata, open("/", O_RDONLY | O_DIRECTORY));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		const char *const opts[] = {"--pass-fd", "9", NULL};
		const char *const verb[] = {
		    "fd-openat", path == WAY_RUN ? "9" : "3", standins, NULL};

		ASSERT_EQ(1, way_try_opts(way, path, opts, false, verb, out,
					  sizeof(out)))
		{
			TH_LOG("%s: %s", way_name[path], out);
		}
		ASSERT_STREQ("EACCES\n", out);
	}
	ASSERT_EQ(0, strncmp("ok ",
			     WAY_TRY_LINE(way, WAY_UNCONFINED, "fd-openat", "9",
					  standins),
			     3));
	close(9);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)getpid());
	at_9(_metadata, open(proc, O_RDONLY | O_DIRECTORY));
	{
		const char *const names[] = {"environ", fd_name,
					     "root/dev/null"};

		for (size_t i = 0; i < 3; i++) {
			for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
				const char *const opts[] = {"--pass-fd", "9",
							    NULL};
				const char *const verb[] = {
				    "fd-openat", path == WAY_RUN ? "9" : "3",
				    names[i], NULL};

				ASSERT_EQ(1,
					  way_try_opts(way, path, opts, false,
						       verb, out, sizeof(out)))
				{
					TH_LOG("%s, %s: %s", way_name[path],
					       names[i], out);
				}
				ASSERT_STREQ("EACCES\n", out)
				TH_LOG("%s", names[i]);
			}
			ASSERT_EQ(
			    0, strncmp("ok",
				       WAY_TRY_LINE(way, WAY_UNCONFINED,
						    "fd-openat", "9", names[i]),
				       2))
			TH_LOG("%s", names[i]);
		}
	}
	close(9);
	close(held);
}

TEST_HARNESS_MAIN
