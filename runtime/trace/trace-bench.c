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
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "landlock_uapi.h"
#include "ruleset.h"

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("trace-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* Every right of this ABI handled; all of them granted beneath / or none. */
static void confine(bool allow_all)
{
	struct jr2_abi abi;
	uint64_t handled;
	int ruleset, root, ret;

	jr2_abi_probe(&abi, 0);
	if (abi.kernel <= 0)
		die(abi.probe_errno, "no Landlock to confine with");
	handled = jr2_abi_fs_rights(abi.kernel);
	ruleset = jr2_ruleset_create(handled, 0);
	if (ruleset < 0)
		die(-ruleset, "landlock_create_ruleset (ABI %d)", abi.kernel);
	if (allow_all) {
		root = open("/", O_PATH | O_CLOEXEC);
		if (root < 0)
			die(errno, "opening '/'");
		ret = jr2_ruleset_add_path(ruleset, root, handled);
		if (ret)
			die(-ret, "landlock_add_rule '/'");
		close(root);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die(errno, "prctl(PR_SET_NO_NEW_PRIVS)");
	ret = jr2_ruleset_restrict(ruleset, 0);
	if (ret)
		die(-ret, "landlock_restrict_self");
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
	char *end;

	if (argc != 4 || (strcmp(argv[1], "open") && strcmp(argv[1], "deny")))
		die(0, "usage: trace-bench open|deny N FILE");
	n = strtol(argv[2], &end, 10);
	if (*end || n <= 0)
		die(0, "N '%s' is not a positive number: give one, e.g. 100000",
		    argv[2]);
	if (!strcmp(argv[1], "open")) {
		long long start;

		confine(true);
		start = now_ns();
		for (long i = 0; i < n; i++) {
			int fd = open(argv[3], O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				die(errno, "opening '%s'", argv[3]);
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
