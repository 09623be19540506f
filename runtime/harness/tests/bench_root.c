// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "bench_root.h"
#include "die.h"
#include "exit_status.h"

void bench_make_root(const char *root, const char *etc, const char *config)
{
	FILE *file;

	if (unshare(CLONE_NEWNS | CLONE_NEWNET))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot unshare (run as root)",
			     "CLONE_NEWNS");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(root, 0755) && errno != EEXIST) ||
	    mount("jr2-bench", root, "tmpfs", 0, "size=8m"))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot mount a tmpfs on", root);
	if (mkdir(etc, 0755) || !(file = fopen(config, "we")) ||
	    fprintf(file, "secret BENCH_TOKEN\nread-only %s\n", etc) < 0 ||
	    fclose(file))
		jr2_die_path(JR2_EXIT_FAILURE, "cannot write", config);
}
