// SPDX-License-Identifier: GPL-2.0-only
/*
 * R10: a program the spawner starts holds exactly stdin, stdout, stderr and
 * the descriptors passed on purpose; none of the harness's (sockets, the
 * protected dir, the Stand-ins) and none the client did not pass.
 *
 * Promises: R10 A3
 */
#include "harness_helpers.h"

HX_FIXTURE(fd_hygiene)

/* A descriptor at `fd` the client process inherits (no O_CLOEXEC). */
static void open_at(struct __test_metadata *_metadata, const char *path, int fd)
{
	int opened = open(path, O_RDONLY);

	ASSERT_LE(0, opened);
	ASSERT_EQ(fd, dup2(opened, fd));
	ASSERT_EQ(0, close(opened));
}

TEST_F(fd_hygiene, R10_only_stdio_reaches_a_program)
{
	struct hx *hx = &self->hx;
	char *const unconfined[] = {hx->try_tool, "fds", NULL};
	char out[HX_OUT_SIZE];
	int status;

	fx_make_file(_metadata, HX_ETC "/file", "data\n", 0644);
	HX_START(hx, NULL);
	open_at(_metadata, HX_ETC "/file", 9);
	/* Positive control: run directly, jr2-try sees fd 9. */
	ASSERT_EQ(0, fx_run(unconfined, out, sizeof(out), &status));
	ASSERT_NE(NULL, strstr(out, " 9"));
	/* Through the spawner: the client's stray fd 9 stays behind. */
	ASSERT_STREQ("0 1 2", HX_TRY_LINE(hx, "fds"));
	ASSERT_EQ(0, close(9));
}

/*
 * A client started with stdin closed: its own socket to the harness would
 * take descriptor 0 and reach the program as its stdin (the client's control
 * connection in a program's hands).  A closed standard descriptor is
 * /dev/null before the client opens anything.
 */
TEST_F(fd_hygiene, R10_a_client_with_stdin_closed_passes_no_socket)
{
	struct hx *hx = &self->hx;
	char *const from_file[] = {
	    "/bin/sh",	  "-c",	       "exec <" HX_ETC "/file; exec \"$@\"",
	    "sh",	  hx->harness, "exec",
	    "--root",	  HX_ROOT,     "--",
	    hx->try_tool, "fd-link",   "0",
	    NULL};
	char *closed[sizeof(from_file) / sizeof(*from_file)];
	char out[HX_OUT_SIZE];
	int status;

	memcpy(closed, from_file, sizeof(closed));
	closed[2] = "exec <&-; exec \"$@\"";
	fx_make_file(_metadata, HX_ETC "/file", "data\n", 0644);
	HX_START(hx, NULL);
	/* Positive control: the client's stdin is the program's. */
	ASSERT_EQ(0, fx_run(from_file, out, sizeof(out), &status));
	ASSERT_EQ(0, status);
	ASSERT_STREQ(HX_ETC "/file\n", out);
	ASSERT_EQ(0, fx_run(closed, out, sizeof(out), &status));
	ASSERT_EQ(0, status)
	{
		TH_LOG("output: %s", out);
	}
	ASSERT_STREQ("/dev/null\n", out);
}

TEST_F(fd_hygiene, R10_passed_descriptor_arrives_as_3)
{
	struct hx *hx = &self->hx;
	const char *const pass[] = {"--pass-fd", "9", NULL};
	const char *const fds[] = {hx->try_tool, "fds", NULL};
	const char *const cat[] = {"/bin/cat", "/proc/self/fd/3", NULL};
	char out[HX_OUT_SIZE];

	fx_make_file(_metadata, HX_ETC "/file", "passed on purpose\n", 0644);
	HX_START(hx, NULL);
	open_at(_metadata, HX_ETC "/file", 9);
	ASSERT_EQ(0, hx_exec_opts(hx, pass, fds, out, sizeof(out)));
	ASSERT_STREQ("0 1 2 3\n", out);
	ASSERT_EQ(0, hx_exec_opts(hx, pass, cat, out, sizeof(out)));
	ASSERT_STREQ("passed on purpose\n", out);
	ASSERT_EQ(0, close(9));
}

TEST_F(fd_hygiene, R10_no_descriptor_into_the_protected_dir)
{
	struct hx *hx = &self->hx;
	const char *const links[] = {"/bin/ls", "-l", "/proc/self/fd/", NULL};
	char out[HX_OUT_SIZE], harness_fds[64];
	int count = 0;

	HX_START(hx, NULL);
	/* The harness itself holds sockets in the protected dir... */
	FX_SKIP_UNLESS_ROOT("listing the harness's descriptors");
	snprintf(harness_fds, sizeof(harness_fds), "/proc/%d/fd", (int)hx->pid);
	ASSERT_EQ(0, test_list(harness_fds, &count));
	ASSERT_LT(5, count);
	/* ...and none of them reaches a program. */
	ASSERT_EQ(0, hx_exec(hx, links, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "0 ->"));
	ASSERT_EQ(NULL, strstr(out, HX_PROTECTED));
	ASSERT_EQ(NULL, strstr(out, "socket:"))
	{
		TH_LOG("descriptors: %s", out);
	}
}

/*
 * With the descriptors, the rest of a clean start: default signal
 * dispositions and an empty mask (the harness ignores SIGPIPE and blocks
 * SIGCHLD), its own process group, the requested folder (A3: the image's
 * tools behave as when started from a shell).
 */
TEST_F(fd_hygiene, R10_A3_clean_start_state)
{
	struct hx *hx = &self->hx;
	const char *const cwd[] = {"--cwd", HX_ETC, NULL};
	const char *const sig[] = {"/bin/grep", "^Sig[BI]", "/proc/self/status",
				   NULL};
	const char *const pwd[] = {"/bin/pwd", NULL};
	const char *const stat[] = {"/bin/cat", "/proc/self/stat", NULL};
	char out[HX_OUT_SIZE];
	int pid, pgrp;

	HX_START(hx, NULL);
	ASSERT_EQ(0, hx_exec(hx, sig, out, sizeof(out)));
	ASSERT_STREQ("SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n",
		     out);
	ASSERT_EQ(0, hx_exec_opts(hx, cwd, pwd, out, sizeof(out)));
	ASSERT_STREQ(HX_ETC "\n", out);
	ASSERT_EQ(0, hx_exec(hx, stat, out, sizeof(out)));
	ASSERT_EQ(2, sscanf(out, "%d (cat) %*c %*d %d", &pid, &pgrp));
	ASSERT_EQ(pid, pgrp);
	/* Not the group of the harness, which stayed in this test's. */
	ASSERT_EQ(getpgrp(), getpgid(hx->pid));
	ASSERT_NE(getpgrp(), pgrp);
}

TEST_HARNESS_MAIN
