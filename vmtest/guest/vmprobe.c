// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-vmprobe: what the guest's kernel says about Landlock, as one JSON line.
 * vmtest's own measure, apart from the runtime under test, so that a kernel
 * answering another ABI than its matrix entry is caught even when jr2-confine
 * is wrong or missing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#define CREATE_RULESET_VERSION (1U << 0)
#define CREATE_RULESET_ERRATA  (1U << 1)
/* No kernel defines it: the control that proves the errata query exists. */
#define CREATE_RULESET_UNDEFINED (1U << 31)

static long create_ruleset(unsigned int flags)
{
	return syscall(__NR_landlock_create_ruleset, NULL, 0, flags);
}

static const char *errno_name(int err)
{
	switch (err) {
	case 0:
		return "";
	case ENOSYS:
		return "ENOSYS";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EINVAL:
		return "EINVAL";
	default:
		return strerror(err);
	}
}

int main(void)
{
	struct utsname uts;
	long abi, errata, control;
	int abi_errno;

	if (uname(&uts) != 0)
		strcpy(uts.release, "unknown");
	abi = create_ruleset(CREATE_RULESET_VERSION);
	abi_errno = abi < 0 ? errno : 0;
	errata = create_ruleset(CREATE_RULESET_ERRATA);
	control = create_ruleset(CREATE_RULESET_UNDEFINED);
	/* Errata are known only where an undefined flag gives EINVAL. */
	if (abi < 0 || errata < 0 || control >= 0 || errno != EINVAL)
		errata = -1;
	printf("{\"release\": \"%s\", \"abi\": %ld, \"errno\": \"%s\", "
	       "\"errata\": %ld}\n",
	       uts.release, abi < 0 ? 0 : abi, errno_name(abi_errno), errata);
	return 0;
}
