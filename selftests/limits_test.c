// SPDX-License-Identifier: GPL-2.0-only
/*
 * Other processes' limits: prlimit(2) on a process of the
 * same user needs no capability, and Landlock does not check it, so a root
 * program would set the harness's RLIMIT_NOFILE to 0 (the harness then
 * ends at its next connection) or its RLIMIT_CORE.  The confinement step
 * refuses prlimit64 with another pid and new limits (EPERM); reading another
 * process's limits and setting a program's own stay.  The limits set are
 * the ones in force (nothing changes, even where it succeeds).  Through
 * `jr2-confine run` (on this test, the unconfined parent) and `jr2-harness
 * exec` (on the harness); the control is the same call unconfined.
 *
 * R11 too: the harness is out of the OOM killer's choice, its programs are
 * not.
 *
 * Promises: P1 R11
 */
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "ways.h"

WAY_FIXTURE(escapes)

TEST_F(escapes, P1_limits_no_prlimit_of_others)
{
	struct way *way = &self->way;
	char me[32], harness[32];

	WAY_START(way);
	hx_pid_str(getpid(), me, sizeof(me));
	hx_pid_str(way->hx.pid, harness, sizeof(harness));
	/* Control: unconfined, both are set (to what they are). */
	ASSERT_STREQ("ok",
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "prlimit-set", me));
	ASSERT_STREQ("ok",
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "prlimit-set", harness));
	ASSERT_STREQ("EPERM", WAY_TRY_LINE(way, WAY_RUN, "prlimit-set", me));
	ASSERT_STREQ("EPERM",
		     WAY_TRY_LINE(way, WAY_EXEC, "prlimit-set", harness));
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		/* Reading stays, and a program's own limits. */
		ASSERT_STREQ("ok", WAY_TRY_LINE(way, path, "prlimit-get",
						path == WAY_RUN ? me : harness))
		{
			TH_LOG("%s", way_name[path]);
		}
		ASSERT_STREQ("ok", WAY_TRY_LINE(way, path, "prlimit-set", "0"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
	/* The harness still serves. */
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_EXEC, "prlimit-get", "0"));
}

/* This process's oom_score_adj, as /proc prints it, into buf. */
static const char *lm_oom_score_adj(pid_t pid, char *buf, size_t size)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? (size_t)n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Whether this process may lower an oom_score_adj (CAP_SYS_RESOURCE). */
static bool lm_has_sys_resource(void)
{
	struct __user_cap_header_struct head = {
	    .version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {0};

	return !syscall(SYS_capget, &head, data) &&
	       (data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective &
		CAP_TO_MASK(CAP_SYS_RESOURCE));
}

/*
 * R11: a program that fills the memory (tmpfs pages are no process's) must
 * not get the harness killed once the OOM killer has taken the programs:
 * the harness is out of its choice (-1000), and the spawner's programs have
 * the value the harness started with (the test's own), so the killer still
 * takes them.  Where the harness may not lower it (no CAP_SYS_RESOURCE), it
 * says so in its log and nothing changes.
 */
TEST_F(escapes, R11_harness_out_of_the_oom_killers_choice)
{
	struct way *way = &self->way;
	char start[16], harness[16], log[HX_OUT_SIZE];

	lm_oom_score_adj(getpid(), start, sizeof(start));
	ASSERT_NE('\0', start[0]);
	WAY_START(way);
	lm_oom_score_adj(way->hx.pid, harness, sizeof(harness));
	if (lm_has_sys_resource()) {
		ASSERT_STREQ("-1000", harness);
	} else {
		hx_log(log, sizeof(log));
		ASSERT_STREQ(start, harness);
		ASSERT_NE(NULL, strstr(log, "out of the OOM killer's choice"))
		{
			TH_LOG("no CAP_SYS_RESOURCE, and the log says nothing "
			       "of it: %s",
			       log);
		}
	}
	/* Control: the test's own value, unconfined; then the programs'. */
	ASSERT_STREQ(start, WAY_TRY_LINE(way, WAY_UNCONFINED, "oom-score-adj"));
	ASSERT_STREQ(start, WAY_TRY_LINE(way, WAY_EXEC, "oom-score-adj"));
	ASSERT_STREQ(start, WAY_TRY_LINE(way, WAY_RUN, "oom-score-adj"));
}

TEST_HARNESS_MAIN
