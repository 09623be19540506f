// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's verbs on processes' limits (selftests/limits_test.c): prlimit
 * of another process, and the OOM killer's view of this one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "try.h"

/* prlimit(PID, RLIMIT_NOFILE): how 's' sets the values in force, else gets. */
static int prlimit_nofile(const struct try_call *c)
{
	pid_t pid = (pid_t)try_number(c->arg[0], "PID");
	struct rlimit now;

	if (prlimit(pid, RLIMIT_NOFILE, NULL, &now))
		return try_report(errno);
	if (c->how != 's')
		return try_report(0);
	return try_report(TRY_ERR(prlimit(pid, RLIMIT_NOFILE, &now, NULL)));
}

/* Its own oom_score_adj, as /proc prints it (empty when unread). */
static int oom_score_adj(const struct try_call *c)
{
	char buf[16];
	int fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	(void)c;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? (size_t)n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("%s\n", buf);
	return 0;
}

const struct try_verb try_limit_verbs[] = {
    {"prlimit-set", 1, "PID", prlimit_nofile, 's',
     "PID's RLIMIT_NOFILE set to what it is"},
    {"prlimit-get", 1, "PID", prlimit_nofile, 'g', "PID's RLIMIT_NOFILE read"},
    {"oom-score-adj", 0, "", oom_score_adj, 0,
     "its own oom_score_adj (the value only)"},
    {NULL, 0, NULL, NULL, 0, NULL},
};
