// SPDX-License-Identifier: GPL-2.0-only
/*
 * End to end: `jr2-confine run ... -- jr2-try VERB ARG...` on a fixture
 * tree, asserting the exact errno of each denial with a positive control,
 * the ABI gating through the cap, exit statuses and bad input.  Each test
 * runs in its own child, mount namespace and tmpfs over /tmp.
 *
 * The ABI in force follows JR2_MAX_ABI (make test ABI=N): expectations come
 * from the ABI table, never from a list of test names.
 */
#include "helpers.h"

#include <arpa/inet.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "abi.h"

/*
 * /tmp/fx/
 * ├── prot/            protected
 * │   ├── secret       "s3cret\n"
 * │   ├── sub/         (with sub/deep)
 * │   └── empty/
 * ├── ro/              read-only
 * │   ├── file         "ro-data\n"
 * │   ├── tool         "#!/bin/sh\necho tool-ran\n" (0755)
 * │   └── sub/
 * ├── free/            the user's folder
 * │   ├── file         "data\n"
 * │   ├── a/x          "x\n"
 * │   └── b/
 * └── marker           never there unless a command ran
 * /tmp/bin/            copies of jr2-confine and jr2-try
 */
#define FX     "/tmp/fx"
#define PROT   FX "/prot"
#define RO     FX "/ro"
#define FREE   FX "/free"
#define MARKER FX "/free/marker"

FIXTURE(e2e)
{
	struct jr2_abi abi; /* in force for `run` without --max-abi */
	char try_bin[PATH_MAX];
	struct jr2t_out o;
	/*
	 * Where `run` says it made the restricted dirs read-only
	 * mounts (its --verbose line), a write there fails with EROFS before
	 * Landlock's EACCES, and a move or link across their mount with EXDEV.
	 */
	int write_denied, cross_denied;
};

FIXTURE_SETUP(e2e)
{
	char msg[300];
	int cap = jr2_abi_cap(NULL, msg, sizeof(msg));

	ASSERT_LE(0, cap) TH_LOG("%s", msg);
	jr2_abi_probe(&self->abi, cap);
	ASSERT_EQ(0, jr2t_private_tmp_bins());
	snprintf(self->try_bin, sizeof(self->try_bin), "%s/jr2-try",
		 jr2t_bin_dir());
	ASSERT_EQ(0, jr2t_mkdirs(PROT "/sub"));
	ASSERT_EQ(0, jr2t_mkdirs(PROT "/empty"));
	ASSERT_EQ(0, jr2t_mkdirs(RO "/sub"));
	ASSERT_EQ(0, jr2t_mkdirs(FREE "/a"));
	ASSERT_EQ(0, jr2t_mkdirs(FREE "/b"));
	ASSERT_EQ(0, jr2t_write(PROT "/secret", "s3cret\n", 0600));
	ASSERT_EQ(0, jr2t_write(PROT "/sub/deep", "deep\n", 0600));
	ASSERT_EQ(0, jr2t_write(RO "/file", "ro-data\n", 0644));
	ASSERT_EQ(0,
		  jr2t_write(RO "/tool", "#!/bin/sh\necho tool-ran\n", 0755));
	ASSERT_EQ(0, jr2t_write(FREE "/file", "data\n", 0644));
	ASSERT_EQ(0, jr2t_write(FREE "/a/x", "x\n", 0644));
	self->write_denied = self->cross_denied = EACCES;
	if (jr2t_run(&self->o, "jr2-confine", "run", "--verbose", "--protect",
		     PROT, "--read-only", RO, "--", "/bin/true", NULL) == 0 &&
	    strstr(self->o.err, "jr2-confine: metadata: holds")) {
		self->write_denied = EROFS;
		self->cross_denied = EXDEV;
	}
}

FIXTURE_TEARDOWN(e2e)
{
	/* The tmpfs goes with the test child's mount namespace. */
}

/* Confined jr2-try under the fixture's policy; returns its status. */
static int try_in(FIXTURE_DATA(e2e) * self, const char *max_abi,
		  const char *verb, const char *a, const char *b)
{
	char *argv[16];
	size_t n = 0;

	argv[n++] = "jr2-confine";
	argv[n++] = "run";
	argv[n++] = "--quiet";
	argv[n++] = "--protect";
	argv[n++] = PROT;
	argv[n++] = "--read-only";
	argv[n++] = RO;
	if (max_abi) {
		argv[n++] = "--max-abi";
		argv[n++] = (char *)max_abi;
	}
	argv[n++] = "--";
	argv[n++] = self->try_bin;
	argv[n++] = (char *)verb;
	argv[n++] = (char *)a;
	argv[n++] = (char *)b;
	argv[n] = NULL;
	return jr2t_runv(&self->o, NULL, argv);
}

/* The same operation, unconfined: the positive control. */
static int try_free(FIXTURE_DATA(e2e) * self, const char *verb, const char *a,
		    const char *b)
{
	char *argv[] = {self->try_bin, (char *)verb, (char *)a, (char *)b,
			NULL};

	return jr2t_runv(&self->o, NULL, argv);
}

/* The JSON in self->o.out parses (Python's json, as the driver reads it). */
static int json_parses(FIXTURE_DATA(e2e) * self, const char *expr)
{
	char code[400];
	char *argv[] = {"/usr/bin/python3", "-c", code, NULL};

	if (jr2t_write("/tmp/out.json", self->o.out, 0644))
		return -1;
	snprintf(code, sizeof(code),
		 "import json; d = json.load(open('/tmp/out.json')); "
		 "print(%s)",
		 expr);
	return jr2t_runv(&self->o, NULL, argv);
}

/* jr2-try's report: its status is the errno, its first line the name. */
#define EXPECT_TRY(expected, call)                                     \
	do {                                                           \
		int _status = (call);                                  \
		EXPECT_EQ(expected, _status)                           \
		{                                                      \
			TH_LOG("%s: stdout '%s' stderr '%s'", #call,   \
			       self->o.out, self->o.err);              \
		}                                                      \
		if ((expected) == 0) {                                 \
			EXPECT_EQ(0, strncmp(self->o.out, "ok\n", 3)); \
		} else {                                               \
			EXPECT_STREQ(strerrorname_np(expected),        \
				     strtok(self->o.out, "\n"));       \
		}                                                      \
	} while (0)

#define W_DENIED	       self->write_denied
#define X_DENIED	       self->cross_denied
#define CONFINED(verb, a, b)   try_in(self, NULL, verb, a, b)
#define UNCONFINED(verb, a, b) try_free(self, verb, a, b)

#define NEED_CONFINEMENT()                                                 \
	do {                                                               \
		if (jr2_abi_verdict(&self->abi) != JR2_VERDICT_ACCEPT)     \
			SKIP(return,                                       \
				   "ABI %d < 3: the runtime refuses this " \
				   "kernel (see e2e.G3_*)",                \
				   self->abi.in_force);                    \
	} while (0)

TEST_F(e2e, R1_read_denied)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, UNCONFINED("open-read", PROT "/secret", NULL));
	EXPECT_TRY(EACCES, CONFINED("open-read", PROT "/secret", NULL));
	EXPECT_TRY(EACCES, CONFINED("open-read", PROT "/sub/deep", NULL));
	EXPECT_TRY(0, CONFINED("open-read", FREE "/file", NULL));
}

TEST_F(e2e, R2_write_and_append_denied)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, UNCONFINED("open-write", PROT "/secret", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("open-write", PROT "/secret", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("open-append", PROT "/secret", NULL));
	EXPECT_TRY(0, CONFINED("open-append", FREE "/file", NULL));
}

TEST_F(e2e, R3_nothing_made)
{
	static const char *const verbs[] = {"creat", "mkdir", "mknod-fifo",
					    "bind-unix"};

	NEED_CONFINEMENT();
	for (size_t i = 0; i < sizeof(verbs) / sizeof(*verbs); i++) {
		char in_prot[64], in_free[64];

		snprintf(in_prot, sizeof(in_prot), PROT "/new-%zu", i);
		snprintf(in_free, sizeof(in_free), FREE "/new-%zu", i);
		EXPECT_TRY(W_DENIED, CONFINED(verbs[i], in_prot, NULL));
		EXPECT_FALSE(jr2t_exists(in_prot));
		if (!strcmp(verbs[i], "mknod-char")) {
			/* No device node anywhere (CAP_MKNOD is
			   dropped); the control runs unconfined. */
			EXPECT_TRY(EPERM, CONFINED(verbs[i], in_free, NULL));
			EXPECT_FALSE(jr2t_exists(in_free));
			EXPECT_TRY(0, UNCONFINED(verbs[i], in_free, NULL));
		} else {
			EXPECT_TRY(0, CONFINED(verbs[i], in_free, NULL));
		}
		EXPECT_TRUE(jr2t_exists(in_free));
	}
	EXPECT_TRY(W_DENIED, CONFINED("symlink", "/etc", PROT "/new"));
	EXPECT_TRY(0, CONFINED("symlink", "/etc", FREE "/new"));
	/* No device node anywhere; unconfined it can be made. */
	EXPECT_TRY(EACCES, CONFINED("mknod-char", FREE "/null", NULL));
	EXPECT_FALSE(jr2t_exists(FREE "/null"));
	EXPECT_TRY(0, UNCONFINED("mknod-char", FREE "/null", NULL));
}

TEST_F(e2e, R4_nothing_removed)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(W_DENIED, CONFINED("unlink", PROT "/secret", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("rmdir", PROT "/empty", NULL));
	EXPECT_TRY(0, CONFINED("unlink", FREE "/a/x", NULL));
	EXPECT_TRY(0, CONFINED("rmdir", FREE "/b", NULL));
	EXPECT_TRUE(jr2t_exists(PROT "/secret"));
}

/*
 * Landlock prefers EACCES (a remove or make right missing) to EXDEV (only
 * REFER missing): moves out of or into the protected dir lack one of them;
 * a link from it into a free folder lacks only REFER at the source.
 */
TEST_F(e2e, R5_no_move_or_link_in_out_or_within)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(X_DENIED,
		   CONFINED("rename", PROT "/secret", FREE "/stolen"));
	EXPECT_TRY(X_DENIED, CONFINED("rename", FREE "/file", PROT "/planted"));
	EXPECT_TRY(W_DENIED, CONFINED("rename", PROT "/secret", PROT "/moved"));
	EXPECT_TRY(X_DENIED,
		   CONFINED("exchange", PROT "/secret", FREE "/file"));
	EXPECT_TRY(W_DENIED, CONFINED("link", FREE "/file", PROT "/planted"));
	EXPECT_TRY(EXDEV, CONFINED("link", PROT "/secret", FREE "/stolen"));
	/* The dir itself and its ancestors: neither renamed nor removed. */
	EXPECT_TRY(EACCES, CONFINED("rename", PROT, FX "/prot2"));
	EXPECT_TRY(EACCES, CONFINED("rename", FX, "/tmp/fx2"));
	EXPECT_TRY(EACCES, CONFINED("rmdir", PROT, NULL));
	/* Control: the same moves between free folders work. */
	EXPECT_TRY(0, CONFINED("link", FREE "/file", FREE "/a/file"));
	EXPECT_TRY(0, UNCONFINED("rename", PROT "/secret", PROT "/moved"));
}

TEST_F(e2e, R6_no_truncate)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(W_DENIED, CONFINED("truncate", PROT "/secret", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("open-trunc", PROT "/secret", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("creat", PROT "/secret", NULL));
	EXPECT_TRY(0, CONFINED("truncate", FREE "/file", NULL));
	EXPECT_TRY(0, CONFINED("open-trunc", FREE "/a/x", NULL));
	EXPECT_TRY(0, UNCONFINED("read-file", PROT "/secret", NULL));
	EXPECT_STREQ("ok\ns3cret\n", self->o.out);
}

TEST_F(e2e, R7_names_listed)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, CONFINED("list", PROT, NULL));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "secret"));
	EXPECT_TRY(0, CONFINED("list", "/", NULL));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "tmp"));
	EXPECT_TRY(0, CONFINED("list", FX, NULL));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "prot"));
	/* Control: listing does not open the files. */
	EXPECT_TRY(EACCES, CONFINED("open-read", PROT "/secret", NULL));
}

/* R8: on every ABI the socket in the protected dir stays connectable. */
TEST_F(e2e, R8_socket_in_protected_dir_connectable)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	NEED_CONFINEMENT();
	ASSERT_LE(0, fd);
	strcpy(addr.sun_path, PROT "/custodian.sock");
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(0, listen(fd, 8));
	EXPECT_TRY(0, CONFINED("connect-unix", PROT "/custodian.sock", NULL));
	/* Control: nothing else in the dir can be opened. */
	EXPECT_TRY(EACCES, CONFINED("open-read", PROT "/secret", NULL));
	close(fd);
}

TEST_F(e2e, O1_read_exec_list)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, CONFINED("read-file", RO "/file", NULL));
	EXPECT_STREQ("ok\nro-data\n", self->o.out);
	EXPECT_TRY(0, CONFINED("list", RO, NULL));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "tool"));
	EXPECT_EQ(0, CONFINED("exec", RO "/tool", NULL));
	EXPECT_STREQ("tool-ran\n", self->o.out);
	/* Control: write is what is denied. */
	EXPECT_TRY(W_DENIED, CONFINED("open-write", RO "/file", NULL));
}

TEST_F(e2e, O2_nothing_written_made_removed_moved)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(W_DENIED, CONFINED("open-write", RO "/file", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("truncate", RO "/file", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("creat", RO "/new", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("mkdir", RO "/sub/new", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("unlink", RO "/file", NULL));
	EXPECT_TRY(W_DENIED, CONFINED("rmdir", RO "/sub", NULL));
	EXPECT_TRY(X_DENIED, CONFINED("rename", RO "/file", FREE "/moved"));
	EXPECT_TRY(EXDEV, CONFINED("link", RO "/file", FREE "/linked"));
	EXPECT_TRY(0, UNCONFINED("open-write", RO "/file", NULL));
	EXPECT_TRY(0, CONFINED("open-read", RO "/file", NULL));
}

TEST_F(e2e, A1_user_folder_writable)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, CONFINED("write-file", FREE "/new", "hello"));
	EXPECT_TRY(0, CONFINED("read-file", FREE "/new", NULL));
	EXPECT_STREQ("ok\nhello", self->o.out);
	EXPECT_TRY(0, CONFINED("truncate", FREE "/new", NULL));
	EXPECT_TRY(0, CONFINED("unlink", FREE "/new", NULL));
	EXPECT_TRY(0, CONFINED("mkdir", FREE "/d", NULL));
	EXPECT_TRY(0, CONFINED("rmdir", FREE "/d", NULL));
	/* Control: the same in the protected dir is denied. */
	EXPECT_TRY(W_DENIED, CONFINED("write-file", PROT "/new", "hello"));
}

TEST_F(e2e, A2_move_between_folders_and_in_place)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, CONFINED("rename", FREE "/a/x", FREE "/b/x"));
	EXPECT_TRUE(jr2t_exists(FREE "/b/x"));
	EXPECT_TRY(0, CONFINED("rename", FREE "/b/x", FREE "/b/y"));
	EXPECT_TRY(0, CONFINED("rename", FREE "/b", FREE "/a/b"));
	EXPECT_TRY(X_DENIED, CONFINED("rename", FREE "/a/b/y", PROT "/y"));
}

TEST_F(e2e, A3_tools_run)
{
	char *sh[] = {
	    "jr2-confine", "run",     "--quiet", "--protect",	  PROT,
	    "--",	   "/bin/sh", "-c",	 "echo $((6*7))", NULL};

	NEED_CONFINEMENT();
	EXPECT_EQ(0, jr2t_runv(&self->o, NULL, sh));
	EXPECT_STREQ("42\n", self->o.out);
	EXPECT_EQ(0, CONFINED("exec", "/usr/bin/env", NULL));
	EXPECT_EQ(0, CONFINED("exec", "/bin/true", NULL));
	/* Control: a protected file cannot be run. */
	EXPECT_TRY(EACCES, CONFINED("exec", PROT "/secret", NULL));
}

TEST_F(e2e, A4_network_not_restricted)
{
	struct sockaddr_in in = {.sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	socklen_t len = sizeof(in);
	int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int unx = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char port[16], uport[16];

	NEED_CONFINEMENT();
	ASSERT_EQ(0, bind(tcp, (struct sockaddr *)&in, sizeof(in)));
	ASSERT_EQ(0, listen(tcp, 8));
	ASSERT_EQ(0, getsockname(tcp, (struct sockaddr *)&in, &len));
	snprintf(port, sizeof(port), "%d", ntohs(in.sin_port));
	in.sin_port = 0;
	ASSERT_EQ(0, bind(udp, (struct sockaddr *)&in, sizeof(in)));
	len = sizeof(in);
	ASSERT_EQ(0, getsockname(udp, (struct sockaddr *)&in, &len));
	snprintf(uport, sizeof(uport), "%d", ntohs(in.sin_port));
	strcpy(un.sun_path, FREE "/server.sock");
	ASSERT_EQ(0, bind(unx, (struct sockaddr *)&un, sizeof(un)));
	ASSERT_EQ(0, listen(unx, 8));

	EXPECT_TRY(0, CONFINED("connect-tcp", port, NULL));
	EXPECT_TRY(0, CONFINED("bind-tcp", "0", NULL));
	EXPECT_TRY(0, CONFINED("send-udp", uport, NULL));
	EXPECT_TRY(0, CONFINED("connect-unix", FREE "/server.sock", NULL));
	EXPECT_TRY(0, CONFINED("bind-unix", FREE "/client.sock", NULL));
	/* Control: a socket cannot be made in the protected dir. */
	EXPECT_TRY(W_DENIED, CONFINED("bind-unix", PROT "/client.sock", NULL));
	close(tcp);
	close(udp);
	close(unx);
}

TEST_F(e2e, A5_chdir_stat_list_anywhere)
{
	NEED_CONFINEMENT();
	EXPECT_TRY(0, CONFINED("chdir", PROT, NULL));
	EXPECT_TRY(0, CONFINED("stat", PROT "/secret", NULL));
	EXPECT_TRY(0, CONFINED("chdir", "/", NULL));
	EXPECT_TRY(0, CONFINED("list", "/usr/bin", NULL));
	EXPECT_TRY(0, CONFINED("list", "/proc/self", NULL));
	/* Control: stat is allowed, open is not. */
	EXPECT_TRY(EACCES, CONFINED("open-read", PROT "/secret", NULL));
}

/* P2 through the cap: scopes from ABI 6, none at 5 (G7 behaves as 5). */
TEST_F(e2e, G7_P2_scopes_follow_the_cap)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	int unx = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char pid[16], name[64];
	socklen_t len;

	if (self->abi.kernel < 6)
		SKIP(return, "kernel ABI %d < 6: no scopes to compare",
			   self->abi.kernel);
	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(name, sizeof(name), "jr2-e2e-%d", getpid());
	memcpy(un.sun_path + 1, name, strlen(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  strlen(name));
	ASSERT_EQ(0, bind(unx, (struct sockaddr *)&un, len));
	ASSERT_EQ(0, listen(unx, 8));

	EXPECT_TRY(EPERM, try_in(self, "6", "kill", pid, "0"));
	EXPECT_TRY(EPERM, try_in(self, "6", "connect-abstract", name, NULL));
	EXPECT_TRY(0, try_in(self, "5", "kill", pid, "0"));
	EXPECT_TRY(0, try_in(self, "5", "connect-abstract", name, NULL));
	/* Control: the cap keeps the rest (ABI 5 still denies reading). */
	EXPECT_TRY(EACCES,
		   try_in(self, "5", "open-read", PROT "/secret", NULL));
	close(unx);
}

TEST_F(e2e, G3_G7_cap_2_refuses_and_runs_nothing)
{
	EXPECT_EQ(JR2_EXIT_REFUSED, try_in(self, "2", "creat", MARKER, NULL));
	EXPECT_FALSE(jr2t_exists(MARKER));
	EXPECT_EQ(1, jr2t_count_lines(self->o.err, "jr2-confine: "));
	EXPECT_NE(NULL, strstr(self->o.err, "ABI 2 found"));
	EXPECT_NE(NULL, strstr(self->o.err, "ABI 3 required (truncate)"));

	EXPECT_EQ(1, jr2t_run(&self->o, "jr2-confine", "check", "--max-abi",
			      "2", NULL));
	EXPECT_NE(NULL, strstr(self->o.out, "verdict: refused"));
	EXPECT_EQ(1, jr2t_run(&self->o, "jr2-confine", "check", "--json",
			      "--max-abi", "2", NULL));
	EXPECT_NE(NULL, strstr(self->o.out, "\"verdict\": \"refused\", "
					    "\"verdict_code\": "
					    "\"abi_too_old\""));
	/* Control: at the kernel's ABI it runs (unless the kernel is 1-2). */
	if (self->abi.kernel >= 3) {
		EXPECT_EQ(0, try_in(self, "3", "creat", MARKER, NULL));
		EXPECT_TRUE(jr2t_exists(MARKER));
	}
}

TEST_F(e2e, G7_env_cap_and_flag_wins)
{
	char *env_cap2[] = {"JR2_MAX_ABI=2", "PATH=/usr/bin:/bin", NULL};
	char *argv[] = {"jr2-confine", "run", self->try_bin, "creat", MARKER,
			NULL,	       NULL,  NULL,	     NULL,    NULL};
	char *with_flag[] = {"jr2-confine", "run",  "--max-abi", "3",
			     "--protect",   PROT,   "--",	 self->try_bin,
			     "creat",	    MARKER, NULL};

	argv[2] = "--";
	argv[3] = self->try_bin;
	argv[4] = "creat";
	argv[5] = MARKER;
	EXPECT_EQ(JR2_EXIT_REFUSED, jr2t_runv(&self->o, env_cap2, argv));
	EXPECT_FALSE(jr2t_exists(MARKER));
	if (self->abi.kernel < 3)
		SKIP(return, "kernel ABI %d < 3: no run to compare",
			   self->abi.kernel);
	EXPECT_EQ(0, jr2t_runv(&self->o, env_cap2, with_flag));
	EXPECT_TRUE(jr2t_exists(MARKER));
}

TEST_F(e2e, G5_G6_cap_5_reports_scopes_unavailable)
{
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "check", "--max-abi",
			      "5", NULL));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "scope_signal         "
						   "unavailable"));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "scope_abstract_unix  "
						   "unavailable"));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "truncate             "
						   "enforced"));
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "check", "--json",
			      "--max-abi", "5", NULL));
	EXPECT_NE(NULL,
		  strstr(self->o.out, "\"scope_signal\": {\"status\": "
				      "\"unavailable\", \"min_abi\": 6}"));
	EXPECT_NE(NULL, strstr(self->o.out, "\"cap\": 5"));
	/* run names them on stderr too (G6), and still runs. */
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "run", "--max-abi", "5",
			      "--protect", PROT, "--", self->try_bin, "creat",
			      MARKER, NULL));
	EXPECT_NE(NULL, strstr(self->o.err, "unavailable: scope_signal "
					    "(ABI 6+), scope_abstract_unix "
					    "(ABI 6+)"));
	EXPECT_TRUE(jr2t_exists(MARKER));
}

TEST_F(e2e, G5_check_on_this_kernel)
{
	int status = jr2t_run(&self->o, "jr2-confine", "check", "--json", NULL);

	EXPECT_EQ(jr2_abi_verdict(&self->abi) == JR2_VERDICT_ACCEPT ? 0 : 1,
		  status);
	EXPECT_NE(NULL, strstr(self->o.out, "\"release\": "));
	EXPECT_NE(NULL, strstr(self->o.out, "\"errata\": "));
	EXPECT_EQ(0, json_parses(self, "d['abi']['in_force'], "
				       "d['features']['truncate']['status'], "
				       "len(d['features'])"));
	{
		char want[64];

		snprintf(want, sizeof(want), "%d %s 8\n", self->abi.in_force,
			 self->abi.in_force >= 3 ? "enforced" : "unavailable");
		EXPECT_STREQ(want, self->o.out);
	}
	EXPECT_EQ(2,
		  jr2t_run(&self->o, "jr2-confine", "check", "--frob", NULL));
}

TEST_F(e2e, G4_exit_statuses_as_env)
{
	NEED_CONFINEMENT();
	EXPECT_EQ(JR2_EXIT_NOT_FOUND,
		  jr2t_run(&self->o, "jr2-confine", "run", "--quiet",
			   "--protect", PROT, "--", FX "/no-such-command",
			   NULL));
	EXPECT_EQ(JR2_EXIT_CANNOT_EXEC,
		  jr2t_run(&self->o, "jr2-confine", "run", "--quiet",
			   "--protect", PROT, "--", FREE "/file", NULL));
	/* Else CMD's own status: jr2-try's ENOENT. */
	EXPECT_EQ(ENOENT, CONFINED("open-read", FREE "/missing", NULL));
	EXPECT_EQ(0, CONFINED("open-read", FREE "/file", NULL));
}

/* Each bad input: exit 2, one line naming input and value, nothing run. */
TEST_F(e2e, G4_bad_input_refused)
{
	static const struct {
		const char *args[8];
		const char *says;
	} cases[] = {
	    {{"--frobnicate"}, "unknown flag '--frobnicate' for 'run'"},
	    {{"--protect", "rel/dir"}, "'rel/dir' is a relative path"},
	    {{"--protect", FX "/nope"}, "'" FX "/nope' does not exist"},
	    {{"--protect", FX "/plink"}, "'" FX "/plink' is a symlink"},
	    {{"--protect", PROT, "--read-only", PROT "/sub"},
	     "'" PROT "/sub' is inside protected dir '" PROT "'"},
	    {{"--max-abi", "0"}, "--max-abi '0' is not an ABI"},
	    {{"--max-abi", "12"}, "--max-abi '12' is not an ABI"},
	    {{"--max-abi", "x"}, "--max-abi 'x' is not an ABI"},
	    /* Digits only: no sign, no space, no trailing text. */
	    {{"--max-abi", "+3"}, "--max-abi '+3' is not an ABI"},
	    {{"--max-abi", " 3"}, "--max-abi ' 3' is not an ABI"},
	    {{"--max-abi", "3 "}, "--max-abi '3 ' is not an ABI"},
	    {{"--max-abi", ""}, "--max-abi '' is not an ABI"},
	    {{"--pass-fd", "+3"}, "--pass-fd '+3': give a descriptor number"},
	    {{"--pass-fd", " 3"}, "--pass-fd ' 3': give a descriptor number"},
	    {{"--pass-fd", "3x"}, "--pass-fd '3x': give a descriptor number"},
	    {{"--pass-fd", "99999999999999999999"},
	     "give a descriptor number from 3 to 65535"},
	    {{"--config", FX "/bad.conf"},
	     "config '" FX "/bad.conf' line 3: unknown directive 'protec'"},
	    {{"--config", FX "/nope.conf"}, "--config '" FX "/nope.conf'"},
	};

	ASSERT_EQ(0, symlink("prot", FX "/plink"));
	ASSERT_EQ(0,
		  jr2t_write(FX "/bad.conf",
			     "# policy\nprotect " PROT "\nprotec /x\n", 0644));
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *argv[20] = {"jr2-confine", "run"};
		size_t n = 2;

		for (size_t a = 0; cases[i].args[a]; a++)
			argv[n++] = (char *)cases[i].args[a];
		argv[n++] = "--";
		argv[n++] = self->try_bin;
		argv[n++] = "creat";
		argv[n++] = MARKER;
		EXPECT_EQ(2, jr2t_runv(&self->o, NULL, argv))
		{
			TH_LOG("case %zu: %s", i, self->o.err);
		}
		EXPECT_EQ(1, jr2t_count_lines(self->o.err, "jr2-confine: "));
		EXPECT_EQ('\n', self->o.err[strlen(self->o.err) - 1]);
		EXPECT_EQ(strlen(self->o.err) - 1,
			  (size_t)(strchr(self->o.err, '\n') - self->o.err));
		EXPECT_NE(NULL, strstr(self->o.err, cases[i].says))
		{
			TH_LOG("case %zu: '%s' lacks '%s'", i, self->o.err,
			       cases[i].says);
		}
		EXPECT_FALSE(jr2t_exists(MARKER));
	}
	/* Missing "--": the command is named. */
	EXPECT_EQ(2, jr2t_run(&self->o, "jr2-confine", "run", self->try_bin,
			      "creat", MARKER, NULL));
	EXPECT_NE(NULL, strstr(self->o.err, "missing '--' before"));
	EXPECT_FALSE(jr2t_exists(MARKER));
	/* Control: the same command, well formed, runs. */
	if (jr2_abi_verdict(&self->abi) == JR2_VERDICT_ACCEPT) {
		EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "run", "--quiet",
				      "--protect", PROT, "--", self->try_bin,
				      "creat", MARKER, NULL));
		EXPECT_TRUE(jr2t_exists(MARKER));
	}
}

/* The rules listing (`rules`): the protected dir's bind mount is reported. */
TEST_F(e2e, R9_rules_report_bind_mount)
{
	ASSERT_EQ(0, jr2t_mkdirs(FREE "/alias"));
	ASSERT_EQ(0, mount(PROT, FREE "/alias", NULL, MS_BIND, NULL));
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "rules", "--protect",
			      PROT, NULL));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out,
				      "# note: '" FREE "/alias' is mount "));
	EXPECT_EQ(0, jr2t_count_lines(self->o.out, FREE "/alias\t"));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, FREE "/a\t"));
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "rules", "--json",
			      "--protect", PROT, NULL));
	EXPECT_NE(NULL, strstr(self->o.out, "{\"path\": \"" FREE "/a\", "
					    "\"access\": [\"execute\""));
	NEED_CONFINEMENT();
	EXPECT_TRY(EACCES, CONFINED("open-read", FREE "/alias/secret", NULL));
	EXPECT_TRY(0, UNCONFINED("open-read", FREE "/alias/secret", NULL));
}

/* A link to a protected file made before: refused, nothing run (R9). */
TEST_F(e2e, R9_hard_link_outside_refused)
{
	NEED_CONFINEMENT();
	ASSERT_EQ(0, link(PROT "/secret", FREE "/a/stolen"));
	EXPECT_EQ(JR2_EXIT_REFUSED, CONFINED("creat", MARKER, NULL));
	EXPECT_FALSE(jr2t_exists(MARKER));
	EXPECT_NE(NULL, strstr(self->o.err, "protected file '" PROT "/secret' "
					    "has 2 links, 1 of them outside"));
	/* Control: without the link, it runs. */
	ASSERT_EQ(0, unlink(FREE "/a/stolen"));
	EXPECT_TRY(0, CONFINED("creat", MARKER, NULL));
}

/* A config file gives the same policy as the flags. */
TEST_F(e2e, R1_O1_config_file)
{
	char *argv[] = {"jr2-confine",	"run", "--quiet",     "--config",
			FX "/policy",	"--",  self->try_bin, "open-read",
			PROT "/secret", NULL};

	NEED_CONFINEMENT();
	ASSERT_EQ(0, jr2t_write(FX "/policy",
				"# test policy\nprotect " PROT "\nread-only " RO
				"\n",
				0644));
	EXPECT_TRY(EACCES, jr2t_runv(&self->o, NULL, argv));
	argv[7] = "open-write";
	argv[8] = RO "/file";
	EXPECT_TRY(W_DENIED, jr2t_runv(&self->o, NULL, argv));
	argv[8] = FREE "/file";
	EXPECT_TRY(0, jr2t_runv(&self->o, NULL, argv));
}

/*
 * A kernel without Landlock (ENOSYS) or with Landlock not enabled at boot
 * (EOPNOTSUPP), as the program sees it: a seccomp filter answers the three
 * Landlock syscalls with that errno (run in the child, before exec).
 */
static void landlock_answers(int err)
{
	struct sock_filter filter[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 444, 0, 2),
	    BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 446, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned int)err &
							   SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
	    .len = sizeof(filter) / sizeof(*filter),
	    .filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(98);
}

static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(e2e) * self, int err,
			   const char *landlock, const char *code,
			   const char *says)
{
	char *check[] = {"jr2-confine", "check", "--json", NULL};
	char *run[] = {"jr2-confine", "run",   "--protect", PROT, "--",
		       self->try_bin, "creat", MARKER,	    NULL};
	char *bad[] = {"jr2-confine", "run",   "--protect", "rel", "--",
		       self->try_bin, "creat", MARKER,	    NULL};
	char want[200];

	EXPECT_EQ(
	    1, jr2t_runv_setup(&self->o, NULL, check, landlock_answers, err));
	snprintf(want, sizeof(want), "\"landlock\": \"%s\"", landlock);
	EXPECT_NE(NULL, strstr(self->o.out, want));
	snprintf(want, sizeof(want),
		 "\"verdict\": \"refused\", \"verdict_code\": \"%s\"", code);
	EXPECT_NE(NULL, strstr(self->o.out, want));
	EXPECT_NE(NULL, strstr(self->o.out, says));

	EXPECT_EQ(JR2_EXIT_REFUSED,
		  jr2t_runv_setup(&self->o, NULL, run, landlock_answers, err));
	EXPECT_NE(NULL, strstr(self->o.err, says));
	EXPECT_EQ(1, jr2t_count_lines(self->o.err, "jr2-confine: "));
	EXPECT_FALSE(jr2t_exists(MARKER));
	/* Bad input is still bad input (2), whatever the kernel. */
	EXPECT_EQ(2,
		  jr2t_runv_setup(&self->o, NULL, bad, landlock_answers, err));
	/* Control: without the filter, the same check passes here. */
	if (jr2_abi_verdict(&self->abi) == JR2_VERDICT_ACCEPT)
		EXPECT_EQ(0, jr2t_runv(&self->o, NULL, check));
}

TEST_F(e2e, G1_no_landlock_refused)
{
	expect_refused(_metadata, self, ENOSYS, "ENOSYS", "no_landlock",
		       "lacks Landlock (landlock_create_ruleset: ENOSYS): "
		       "boot Linux 6.2 or newer");
}

TEST_F(e2e, G2_landlock_not_enabled_refused)
{
	expect_refused(_metadata, self, EOPNOTSUPP, "EOPNOTSUPP", "not_enabled",
		       "add 'landlock' to the kernel's lsm= boot parameter");
}

/* The table the Python driver reads: 11 ABIs, each with its features. */
TEST_F(e2e, G4_abi_table_json)
{
	EXPECT_EQ(
	    0, jr2t_run(&self->o, "jr2-confine", "abi-table", "--json", NULL));
	EXPECT_EQ(11, jr2t_count_lines(self->o.out, "{\"abi\": "));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out,
				      "{\"abi\": 2, \"verdict\": \"refused\""));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out, "{\"abi\": 3, \"verdict\": "
						   "\"accepted\""));
	EXPECT_EQ(1, jr2t_count_lines(self->o.out,
				      "\"abi\": 6, \"verdict\": \"accepted\", "
				      "\"fs_rights\": [\"execute\""));
	EXPECT_NE(NULL, strstr(self->o.out, "\"name\": \"resolve_unix\", "
					    "\"min_abi\": 9"));
	EXPECT_EQ(0, json_parses(self, "[a['features']['scope_signal'] "
				       "for a in d['abis']]"));
	EXPECT_STREQ("[False, False, False, False, False, True, True, True, "
		     "True, True, True]\n",
		     self->o.out);
	EXPECT_EQ(2, jr2t_run(&self->o, "jr2-confine", "abi-table", "--max-abi",
			      "3", NULL));
}

/* A path too long for the kernel is the user's mistake (exit 2), and the
   message keeps its fix however long the path. */
TEST_F(e2e, G4_over_long_paths_are_bad_input)
{
	char component[300], path[4300];

	memset(component, 'a', sizeof(component) - 1);
	component[sizeof(component) - 1] = '\0';
	snprintf(path, sizeof(path), "/tmp/%s", component);
	EXPECT_EQ(2, jr2t_run(&self->o, "jr2-confine", "rules", "--protect",
			      path, NULL));
	EXPECT_NE(NULL, strstr(self->o.err, "a component of 299 bytes, more "
					    "than the 255 of a file name: give "
					    "a shorter path"));
	for (size_t n = strlen(path); n + 300 < sizeof(path); n = strlen(path))
		snprintf(path + n, sizeof(path) - n, "/%s", component);
	EXPECT_EQ(2, jr2t_run(&self->o, "jr2-confine", "run", "--read-only",
			      path, "--", "true", NULL));
	EXPECT_NE(NULL, strstr(self->o.err, "of a path: give a shorter path"));
	EXPECT_GT(400, strlen(self->o.err));
	/* Control: a name of 255 bytes is a name (it is only missing). */
	component[255] = '\0';
	snprintf(path, sizeof(path), "/tmp/%s", component);
	EXPECT_EQ(2, jr2t_run(&self->o, "jr2-confine", "rules", "--protect",
			      path, NULL));
	EXPECT_EQ(NULL, strstr(self->o.err, "give a shorter path"));
}

/* A path that is not UTF-8 stays JSON, and its bytes come back from the
   "_hex" notes (runtime/json.h); a UTF-8 one passes through as text. */
TEST_F(e2e, G4_rules_json_keeps_bytes_of_any_path)
{
	EXPECT_EQ(0, jr2t_mkdirs("/tmp/a\xff"
				 "b"));
	EXPECT_EQ(0, jr2t_mkdirs("/tmp/d\xc3\xa9"));
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "rules", "--json",
			      "--protect",
			      "/tmp/a\xff"
			      "b",
			      NULL));
	EXPECT_EQ(NULL, strchr(self->o.out, '\xff'));
	EXPECT_EQ(0, json_parses(self, "[n for n in d['notes'] if 'a\\xff' "
				       "in n], [b for b in map(bytes.fromhex, "
				       "d['notes_hex']) if b'a\\xff' in b]"));
	EXPECT_NE(NULL, strstr(self->o.out, "[\"protected: '/tmp/aÿb' "));
	EXPECT_NE(NULL, strstr(self->o.out, "[b\"protected: '/tmp/a\\xffb' "));
	/* Control: a UTF-8 name is its own text, with no note. */
	EXPECT_EQ(0, rmdir("/tmp/a\xff"
			   "b"));
	EXPECT_EQ(0, jr2t_run(&self->o, "jr2-confine", "rules", "--json",
			      "--protect", "/tmp/d\xc3\xa9", NULL));
	EXPECT_EQ(NULL, strstr(self->o.out, "_hex"));
	EXPECT_EQ(0, json_parses(self, "[n.encode() for n in d['notes'] "
				       "if 'protected' in n][0]"));
	EXPECT_NE(NULL,
		  strstr(self->o.out, "b\"protected: '/tmp/d\\xc3\\xa9'"));
}

TEST_HARNESS_MAIN
