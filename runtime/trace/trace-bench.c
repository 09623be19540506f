// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace-bench: the workloads of `make bench-trace`, run in a VM with and
 * without jr2-trace attached.
 *
 *   trace-bench open N FILE   confined (everything allowed), N open+close of
 *                             FILE; prints "open N NS_PER_OP"
 *   trace-bench deny N FILE   confined (reading denied), N opens of FILE for
 *                             reading; prints "deny N DENIED"
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "die.h"
#include "landlock_uapi.h"
#include "policy.h"
#include "ruleset.h"

/* Every right of this ABI handled; all of them granted beneath / or none. */
static void confine(bool allow_all)
{
	struct jr2_abi abi;
	uint64_t handled;
	int ruleset, root, ret;

	jr2_abi_probe(&abi, 0);
	if (abi.kernel <= 0)
		jr2_die_errno(JR2_EXIT_FAILURE, abi.probe_errno,
			      "no Landlock to confine with");
	handled = jr2_abi_fs_rights(abi.kernel);
	ruleset = jr2_ruleset_create(handled, 0);
	if (ruleset < 0)
		jr2_die_errno(JR2_EXIT_FAILURE, -ruleset,
			      "landlock_create_ruleset (ABI %d)", abi.kernel);
	if (allow_all) {
		root = open("/", O_PATH | O_CLOEXEC);
		if (root < 0)
			jr2_die_errno(JR2_EXIT_FAILURE, errno, "opening '/'");
		ret = jr2_ruleset_add_path(ruleset, root, handled);
		if (ret)
			jr2_die_errno(JR2_EXIT_FAILURE, -ret,
				      "landlock_add_rule '/'");
		close(root);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		jr2_die_errno(JR2_EXIT_FAILURE, errno,
			      "prctl(PR_SET_NO_NEW_PRIVS)");
	ret = jr2_ruleset_restrict(ruleset, 0);
	if (ret)
		jr2_die_errno(JR2_EXIT_FAILURE, -ret, "landlock_restrict_self");
	close(ruleset);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n;

	jr2_die_init("trace-bench");
	if (argc != 4 || (strcmp(argv[1], "open") && strcmp(argv[1], "deny")))
		jr2_die(JR2_EXIT_FAILURE,
			"usage: trace-bench open|deny N FILE");
	if (jr2_parse_number(argv[2], 1, LONG_MAX, &n))
		jr2_die(
		    JR2_EXIT_FAILURE,
		    "N '%s' is not a positive number: give one, e.g. 100000",
		    argv[2]);
	if (!strcmp(argv[1], "open")) {
		long long start;

		confine(true);
		start = now_ns();
		for (long i = 0; i < n; i++) {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				jr2_die_errno(JR2_EXIT_FAILURE, errno,
					      "opening '%s'", argv[3]);
			close(fd);
		}
		printf("open %ld %.1f\n", n, (double)(now_ns() - start) / n);
	} else {
		long denied = 0;

		confine(false);
		for (long i = 0; i < n; i++) {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);

			if (fd >= 0)
				close(fd);
			else if (errno == EACCES)
				denied++;
		}
		printf("deny %ld %ld\n", n, denied);
	}
	return 0;
}
