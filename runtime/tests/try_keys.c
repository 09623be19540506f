// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-try's keyring verbs (selftests/keyrings_test.c): the key the test
 * keeps in its session keyring read back, a request with callout info, a
 * key added, by the native table and by i386's (int 0x80).
 */
#include <errno.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "try.h"

/* The key the test adds to its session keyring. */
#define KEY_TYPE "user"
#define KEY_DESC "jr2-keyrings-test"

/* The key's payload: "ok PAYLOAD" or the errno. */
static int key_read(const struct try_call *c)
{
	char buf[64] = "";
	long id, n;

	(void)c;
	id = syscall(SYS_request_key, KEY_TYPE, KEY_DESC, NULL, 0);
	if (id < 0)
		return try_report(errno);
	n = syscall(SYS_keyctl, KEYCTL_READ, id, buf, sizeof(buf) - 1);
	if (n < 0)
		return try_report(errno);
	buf[n < (long)sizeof(buf) ? n : 0] = '\0';
	printf("ok %s\n", buf);
	return 0;
}

/*
 * Callout info: the kernel would start /sbin/request-key for a missing
 * key; this one exists, so none is started.
 */
static int key_upcall(const struct try_call *c)
{
	long id = syscall(SYS_request_key, KEY_TYPE, KEY_DESC, "jr2-callout",
			  KEY_SPEC_PROCESS_KEYRING);

	(void)c;
	return try_report(id < 0 ? errno : 0);
}

static int key_add(const struct try_call *c)
{
	long id = syscall(SYS_add_key, KEY_TYPE, "jr2-keyrings-new", "x", 1,
			  KEY_SPEC_PROCESS_KEYRING);

	(void)c;
	return try_report(id < 0 ? errno : 0);
}

#if defined(__x86_64__)
static void said_sigsegv(int sig)
{
	static const char word[] = "SIGSEGV\n";

	(void)sig;
	if (write(STDOUT_FILENO, word, sizeof(word) - 1) < 0)
		_exit(2);
	_exit(0);
}

/*
 * i386's add_key (286) by int 0x80: 32-bit pointers, fine in this static,
 * non-PIE binary's data.
 */
static int key_add_compat(const struct try_call *c)
{
	static const char type[] = KEY_TYPE, desc[] = "jr2-compat",
			  data[] = "x";
	long ret;

	(void)c;
	/* Some hypervisors give no int 0x80 entry: a general protection
	   fault, said as a word, not a silent death. */
	signal(SIGSEGV, said_sigsegv);
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "0"(286L), "b"(type), "c"(desc), "d"(data), "S"(1L),
			   "D"((long)KEY_SPEC_PROCESS_KEYRING)
			 : "memory", "r8", "r9", "r10", "r11", "cc");
	return try_report(ret < 0 ? (int)-ret : 0);
}
#endif

const struct try_verb try_key_verbs[] = {
    {"key-read", 0, "", key_read, 0,
     "request_key and read the test's key: \"ok PAYLOAD\""},
    {"key-upcall", 0, "", key_upcall, 0,
     "request_key of the test's key with callout info"},
    {"key-add", 0, "", key_add, 0, "add_key to the process keyring"},
#if defined(__x86_64__)
    {"key-add-compat", 0, "", key_add_compat, 0,
     "add_key by int 0x80 (\"SIGSEGV\" without that entry)"},
#endif
    {NULL, 0, NULL, NULL, 0, NULL},
};
