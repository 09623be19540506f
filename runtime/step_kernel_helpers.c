// SPDX-License-Identifier: GPL-2.0-only
/*
 * Step 5 of the confinement step (confine_step.h): the kernel's helpers,
 * said, not changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine_step.h"

/* The pid namespace the kernel starts in (include/linux/proc_ns.h). */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

/*
 * What a crash makes the kernel do, from core_pattern, in a few words:
 * "pipes to PROG", "a socket, PATH", "a file name", or why it is unknown.
 */
static void core_pattern_words(char *buf, size_t size)
{
	char pattern[256] = "";
	int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, pattern, sizeof(pattern) - 1);
	int err = errno;
	size_t word;

	if (fd >= 0)
		close(fd);
	if (n < 0) {
		snprintf(buf, size, "unreadable: %s", strerror(err));
		return;
	}
	pattern[n] = '\0';
	word = strcspn(pattern + 1, " \n");
	if (pattern[0] == '|')
		snprintf(buf, size, "pipes to %.*s", (int)word, pattern + 1);
	else if (pattern[0] == '@') /* Linux 6.16+ */
		snprintf(buf, size, "a socket, %.*s", (int)word, pattern + 1);
	else
		snprintf(buf, size, "a file name");
}

/*
 * Whether this root is the one the kernel starts its helpers in (modprobe,
 * the core_pattern program, request-key): they run in the initial
 * namespaces with kthreadd's root (pid 2 there), which init shares.
 * 1: it is; 0: it is not; -1: unknown, why in buf.
 */
static int root_is_the_machines(char *why, size_t size)
{
	struct stat ns, helpers_root, root;

	if (stat("/proc/self/ns/pid", &ns)) {
		snprintf(why, size, "/proc/self/ns/pid: %s", strerror(errno));
		return -1;
	}
	if ((unsigned int)ns.st_ino != PROC_PID_INIT_INO) {
		snprintf(why, size,
			 "a pid namespace of its own: kthreadd is "
			 "out of view");
		return -1;
	}
	if (stat("/proc/2/root/", &helpers_root) || stat("/", &root)) {
		snprintf(why, size, "/proc/2/root: %s", strerror(errno));
		return -1;
	}
	return helpers_root.st_dev == root.st_dev &&
	       helpers_root.st_ino == root.st_ino;
}

/*
 * The kernel runs modprobe, the core_pattern program (at a crash of any
 * dumpable process) and request-key as root, outside every domain, from
 * kthreadd's root; init's services and cron run from it too, and every
 * dynamically linked one reads /etc/ld.so.preload.  Where that root is the
 * programs' own, a root program may change what they run: no Landlock rule
 * can guard those names without freezing /etc and /usr (SECURITY.md, Known
 * gaps).  In a container they are the host's files.  Said in one line.
 */
void jr2_step_helpers_line(char *buf, size_t size)
{
	char core[200], why[160];
	int own = root_is_the_machines(why, sizeof(why));

	core_pattern_words(core, sizeof(core));
	if (own > 0)
		snprintf(buf, size,
			 "kernel helpers: this root is the machine's own "
			 "(kthreadd's): modprobe, init's services and any "
			 "core_pattern program (core_pattern: %s) run files "
			 "of it that root programs may change, outside every "
			 "domain (SECURITY.md, Known gaps: confine in a "
			 "container)",
			 core);
	else if (own == 0)
		snprintf(buf, size,
			 "kernel helpers: this root is not the machine's own "
			 "(kthreadd's is another): modprobe and any "
			 "core_pattern program (core_pattern: %s) run the "
			 "machine's files, not these",
			 core);
	else
		snprintf(buf, size,
			 "kernel helpers: whether this root is the machine's "
			 "own is unknown (%s); where it is, modprobe, init's "
			 "services and any core_pattern program (core_pattern: "
			 "%s) run files of it that root programs may change "
			 "(SECURITY.md, Known gaps)",
			 why, core);
}
