// expect: exit 1, denial open EACCES /run/jr2/stand-ins
// SPDX-License-Identifier: GPL-2.0-only
/* Reads the Stand-ins file of the protected dir (R1): exit 0 when it can (the
 * bug), exit 1 when it cannot (as promised).  make repro REPRO=<this file> */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "channel.h" /* runtime/harness/: the protected dir's file names */
#include "policy.h" /* runtime/: the default protected dir */

int main(void)
{
	const char *path = JR2_DEFAULT_PROTECTED "/" JR2_STANDINS_FILE;
	char buf[512];
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		printf("open %s: %s (errno %d)\n", path, strerror(errno),
		       errno);
		return 1;
	}
	printf("read %zd bytes of %s\n", read(fd, buf, sizeof(buf)), path);
	return 0;
}
