// SPDX-License-Identifier: GPL-2.0-only
/*
 * The start's undo list: the folders and files a start made, removed when
 * it fails later, renamed into place when nothing can fail any more.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "serve.h"

/*
 * What this start made in the file system, undone when it fails later
 * (die_set_cleanup), so that a refused start leaves the file system as it
 * found it.  Files are written under a ".new" name and renamed into place
 * once nothing can fail any more.
 */
static struct {
	char dirs[16][PATH_MAX];
	size_t n_dirs;
	char files[8][PATH_MAX + 40]; /* write_new_file's NAME.new */
	size_t n_files;
} U;

void undo_start(void)
{
	for (size_t i = U.n_files; i-- > 0;)
		unlink(U.files[i]);
	for (size_t i = U.n_dirs; i-- > 0;)
		rmdir(U.dirs[i]);
}

void made_file(const char *path)
{
	if (U.n_files < sizeof(U.files) / sizeof(U.files[0]))
		snprintf(U.files[U.n_files++], sizeof(U.files[0]), "%s", path);
}

void made_dir(const char *path)
{
	if (U.n_dirs < sizeof(U.dirs) / sizeof(U.dirs[0]))
		snprintf(U.dirs[U.n_dirs++], sizeof(U.dirs[0]), "%s", path);
}

/* Every NAME.new made by this start goes to NAME: nothing fails after. */
void commit_files(void)
{
	for (size_t i = 0; i < U.n_files; i++) {
		char final[PATH_MAX + 40];
		size_t len = strlen(U.files[i]) - strlen(".new");

		snprintf(final, sizeof(final), "%.*s", (int)len, U.files[i]);
		if (rename(U.files[i], final))
			jr2_die_path(1, "cannot rename into place", U.files[i]);
	}
	U.n_files = 0;
	U.n_dirs = 0;
	jr2_die_set_cleanup(NULL);
}
