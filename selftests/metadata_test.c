// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metadata door: chmod, chown, utimes, setxattr
 * (user.* and trusted.*) and chattr (FS_IOC_SETFLAGS) of the protected dir,
 * its files, and of read-only trees fail, for root too.  Landlock has no
 * right for them: the confinement step makes each restricted dir a
 * read-only bind mount in the programs' own mount namespace (EROFS), and
 * says so in one line (`run --verbose`, the harness's log).  Each change
 * writes the value it read, so a success changes nothing.  Controls: the
 * same change unconfined (the test's view of the tree stays writable), and
 * confined in the user's folder.
 *
 * Promises: O2 R2 R9
 */
#include <pthread.h>

#include "ways.h"

WAY_FIXTURE(escapes)

static const char *const verbs[] = {"chmod",	  "chown",	   "utimes",
				    "xattr-user", "xattr-trusted", "chattr"};
#define N_VERBS (sizeof(verbs) / sizeof(*verbs))

static const char *const places[] = {HX_PROTECTED, HX_STANDINS, FX_REPOS,
				     FX_README};

/* What the change gives confined: EROFS, but a file it cannot open. */
static const char *confined_expected(const char *verb, const char *place)
{
	if (!strcmp(verb, "chattr") && !strcmp(place, HX_STANDINS))
		return "EACCES"; /* R1: the ioctl needs an open file */
	return "EROFS";
}

#define N_PLACES (sizeof(places) / sizeof(*places))

/*
 * Every verb on every place (n_places of them) by `path`, in one run of
 * jr2-try (`batch`): line p * N_VERBS + v of out is the answer of verb v
 * on place p.  Each attempt is its own syscall, as in a run of its own.
 */
static void mt_batch(struct way *way, enum way_path path,
		     const char *const *place_list, size_t n_places,
		     char lines[][64])
{
	const char *verb[2 + 2 * N_VERBS * N_PLACES] = {"batch"};
	static char out[WAY_OUT_SIZE];
	size_t n = 1;
	char *at = out;

	for (size_t p = 0; p < n_places; p++)
		for (size_t v = 0; v < N_VERBS; v++) {
			verb[n++] = verbs[v];
			verb[n++] = place_list[p];
		}
	verb[n] = NULL;
	way_try_opts(way, path, NULL, false, verb, out, sizeof(out));
	for (size_t i = 0; i < n_places * N_VERBS; i++) {
		size_t len = strcspn(at, "\n");

		snprintf(lines[i], 64, "%.*s", (int)len, at);
		at += len;
		if (*at)
			at++;
	}
}

static void assert_metadata_held(struct __test_metadata *_metadata,
				 struct way *way, enum way_path path)
{
	char lines[N_PLACES * N_VERBS][64];

	mt_batch(way, path, places, N_PLACES, lines);
	for (size_t p = 0; p < N_PLACES; p++) {
		for (size_t v = 0; v < N_VERBS; v++) {
			ASSERT_STREQ(confined_expected(verbs[v], places[p]),
				     lines[p * N_VERBS + v])
			{
				TH_LOG("%s: %s %s", way_name[path], verbs[v],
				       places[p]);
			}
		}
	}
}

/* Controls: unconfined, every change succeeds where it was refused. */
static void assert_unconfined_can(struct __test_metadata *_metadata,
				  struct way *way)
{
	char lines[N_PLACES * N_VERBS][64];

	mt_batch(way, WAY_UNCONFINED, places, N_PLACES, lines);
	for (size_t p = 0; p < N_PLACES; p++)
		for (size_t v = 0; v < N_VERBS; v++) {
			const char *out = lines[p * N_VERBS + v];

			/* tmpfs has user.* xattrs from Linux 6.6 on. */
			if (!strcmp(verbs[v], "xattr-user") &&
			    !strcmp(out, "EOPNOTSUPP"))
				continue;
			ASSERT_STREQ("ok", out)
			{
				TH_LOG("unconfined: %s %s", verbs[v],
				       places[p]);
			}
		}
}

/* In the user's folder the changes work confined; trusted.* needs
   CAP_SYS_ADMIN, which programs lose. */
static void assert_free_folder(struct __test_metadata *_metadata,
			       struct way *way, enum way_path path)
{
	static const char *const free_file[] = {FX_FILE};
	char lines[N_VERBS][64];

	mt_batch(way, path, free_file, 1, lines);
	for (size_t v = 0; v < N_VERBS; v++) {
		const char *out = lines[v];

		if (!strcmp(verbs[v], "xattr-user") &&
		    !strcmp(out, "EOPNOTSUPP"))
			continue;
		ASSERT_STREQ(strcmp(verbs[v], "xattr-trusted") ? "ok" : "EPERM",
			     out)
		{
			TH_LOG("%s: %s in the user's folder", way_name[path],
			       verbs[v]);
		}
	}
}

/*
 * Without CAP_SYS_ADMIN (a container profile) the confiner makes no
 * read-only mount: its line says the metadata does NOT hold and names the
 * fix, and a program that owns the protected dir (root's under a root
 * container, the user's under a non-root one) changes its mode: the
 * documented cost of the profile (docs/PROMISES.md, SECURITY.md).
 */
static void assert_metadata_not_held(struct __test_metadata *_metadata,
				     struct way *way, enum way_path path,
				     const char *line)
{
	const char *const verb[] = {"chmod", HX_PROTECTED, NULL};
	char out[WAY_OUT_SIZE];

	ASSERT_NE(NULL, strstr(line, "metadata: no read-only mounts (the "
				     "confiner lacks CAP_SYS_ADMIN); does NOT "
				     "hold"))
	{
		TH_LOG("%s", line);
	}
	ASSERT_NE(NULL, strstr(line, "run as root with CAP_SYS_ADMIN"));
	way_try_opts(way, path, NULL, false, verb, out, sizeof(out));
	ASSERT_STREQ("ok\n", out)
	{
		TH_LOG("%s: chmod %s", way_name[path], HX_PROTECTED);
	}
}

/*
 * What `path` says of metadata (run's --verbose output, the harness's log:
 * `said`), and what then holds: the one policy of ways.h, two protected
 * dirs (the harness's own among them) and two read-only trees.
 */
static void metadata_by(struct __test_metadata *_metadata, struct way *way,
			enum way_path path, const char *said)
{
	char line[128];

	if (!fx_has_cap(CAP_SYS_ADMIN)) {
		assert_metadata_not_held(_metadata, way, path, said);
		return;
	}
	snprintf(line, sizeof(line),
		 "%s: metadata: holds: 2 protected dirs and 2 read-only trees",
		 path == WAY_RUN ? "jr2-confine" : "jr2-harness");
	ASSERT_NE(NULL, strstr(said, line))
	{
		TH_LOG("%s", said);
	}
	assert_metadata_held(_metadata, way, path);
	assert_free_folder(_metadata, way, path);
	assert_unconfined_can(_metadata, way);
}

TEST_F(escapes, R2_O2_metadata_run)
{
	struct way *way = &self->way;
	const char *const verbose[] = {"--verbose", NULL};
	const char *const verb[] = {"chmod", FX_WORK, NULL};
	char out[WAY_OUT_SIZE];

	WAY_START(way);
	/* The one line says what holds on this machine (root: the mounts). */
	ASSERT_EQ(0, way_try_opts(way, WAY_RUN, verbose, false, verb, out,
				  sizeof(out)));
	metadata_by(_metadata, way, WAY_RUN, out);
}

TEST_F(escapes, R2_O2_metadata_exec)
{
	struct way *way = &self->way;
	char log[HX_OUT_SIZE];

	WAY_START(way);
	hx_log(log, sizeof(log));
	metadata_by(_metadata, way, WAY_EXEC, log);
}

/* The ms until `path` has `mode` again (a change the harness puts back
   in its loop), by looks 1 ms apart; -1 after `ms`. */
static int mode_back_ms(const char *path, mode_t mode, int ms)
{
	struct stat st;

	for (int waited = 0; waited <= ms; waited++) {
		if (!stat(path, &st) && (st.st_mode & 07777) == mode)
			return waited;
		usleep(1000);
	}
	return -1;
}

#define mode_back(path, mode, ms)                                      \
	({                                                             \
		int _ms = mode_back_ms(path, mode, ms);                \
		if (_ms >= 0)                                          \
			TH_LOG("%s back to %04o after %d looks", path, \
			       (unsigned int)(mode), _ms);             \
		_ms >= 0;                                              \
	})

/*
 * Where the read-only mounts hold, a program's chmod of the protected dir
 * gives EROFS; where they do not (no CAP_SYS_ADMIN: a container profile),
 * it is made, and the harness puts the mode back at once (its guard, an
 * inotify watch of the dir): the next exec works and the log says so.  A
 * change made outside the programs' namespace, which no mount holds, is
 * put back the same way: the test's own chmod of the dir and a file.
 */
TEST_F(escapes, R2_O2_chmod_of_the_protected_dir_is_put_back)
{
	struct way *way = &self->way;
	char log[HX_OUT_SIZE];
	struct stat standins;

	WAY_START(way);
	ASSERT_STREQ(
	    fx_has_cap(CAP_SYS_ADMIN) ? "EROFS" : "ok",
	    WAY_TRY_LINE(way, WAY_EXEC, "chmod-to", "0", HX_PROTECTED));
	ASSERT_TRUE(mode_back(HX_PROTECTED, 0700, 3000));
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_EXEC, "creat", FX_WORK "/a"));
	/* Unconfined, outside the programs' mount namespace. */
	ASSERT_EQ(0, stat(HX_STANDINS, &standins));
	ASSERT_EQ(0, chmod(HX_STANDINS, 0644));
	ASSERT_EQ(0, chmod(HX_PROTECTED, 0));
	ASSERT_TRUE(mode_back(HX_PROTECTED, 0700, 3000));
	ASSERT_TRUE(mode_back(HX_STANDINS, standins.st_mode & 07777, 3000));
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_EXEC, "creat", FX_WORK "/b"));
	hx_log(log, sizeof(log));
	ASSERT_NE(NULL, strstr(log, "guard: " HX_PROTECTED "/. had mode 0000; "
				    "put back to 0700"))
	{
		TH_LOG("log: %s", log);
	}
	ASSERT_NE(NULL, strstr(log, "guard: " HX_STANDINS " had mode 0644"));
}

/*
 * `jr2-confine check --json` says in one line what this confiner's
 * privileges hold of the metadata, as the node preflight reads it: the
 * read-only mounts with CAP_SYS_ADMIN; without (a container profile)
 * what is not held and the fix.
 */
TEST_F(escapes, R2_O2_check_says_what_holds_and_the_fix)
{
	char *argv[] = {self->way.confine, "check", "--json", NULL};
	char out[16384];
	int status = -1;

	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	ASSERT_NE(NULL, strstr(out, "\"metadata\": \"metadata: "))
	{
		TH_LOG("%s", out);
	}
	if (fx_has_cap(CAP_SYS_ADMIN)) {
		ASSERT_NE(NULL,
			  strstr(out, "\"metadata\": \"metadata: holds: "));
		return;
	}
	ASSERT_NE(NULL, strstr(out, "no read-only mounts (no CAP_SYS_ADMIN)"));
	ASSERT_NE(NULL, strstr(out, "the harness puts its modes back at once"));
	ASSERT_NE(NULL, strstr(out, "fix: give the confiner CAP_SYS_ADMIN"));
}

/* ---- the kernel's trees: /proc, /sys, /dev ---- */

/*
 * The metadata calls of the class.  Each leaves the value as it was (the
 * times as read; xattrs of a name that does not exist: ENODATA), so the
 * unconfined control changes at most the ctime of the host's files.
 */
static const char *const kernel_verbs[] = {
    "chmod",	      "chown",	   "utimes-same",   "fchmod",	   "fchown",
    "fchownat-empty", "fchmodat2", "xattr-replace", "removexattr",
};
#define N_KERNEL_VERBS (sizeof(kernel_verbs) / sizeof(*kernel_verbs))

/* The kernel's files: the first of each row that exists here. */
static const char *const kernel_rows[][3] = {
    {"/dev/null", NULL},
    {"/dev/tty", NULL},
    {"/dev", NULL},
    {"/sys/kernel/uevent_seqnum", "/sys/kernel", NULL},
    {"/proc/kmsg", "/proc/buddyinfo", NULL},
    {"/proc/sys/kernel/core_pattern", NULL},
};
#define N_KERNEL_ROWS (sizeof(kernel_rows) / sizeof(*kernel_rows))

static size_t kernel_places(const char *out[N_KERNEL_ROWS])
{
	size_t n = 0;

	for (size_t r = 0; r < N_KERNEL_ROWS; r++)
		for (size_t i = 0; kernel_rows[r][i]; i++)
			if (!access(kernel_rows[r][i], F_OK)) {
				out[n++] = kernel_rows[r][i];
				break;
			}
	return n;
}

/* One verb on one place by `path`: its line. */
static const char *kt_try(struct way *way, enum way_path path, const char *verb,
			  const char *place)
{
	static char out[WAY_OUT_SIZE];
	const char *const argv[] = {verb, place, NULL};

	way_try_opts(way, path, NULL, false, argv, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * Every verb on every kernel file: where the unconfined control reaches the
 * file system (anything but EROFS: ok, or ENODATA for an xattr name that is
 * not there, EPERM where procfs refuses the mode of a sysctl), the confined
 * call gives EROFS.  The calls every place must take unconfined (chmod,
 * chown, the times) are asserted "ok" where the file system allows them.
 */
static void assert_kernel_trees_held(struct __test_metadata *_metadata,
				     struct way *way, enum way_path path)
{
	const char *places[N_KERNEL_ROWS];
	size_t n = kernel_places(places), held = 0;

	for (size_t p = 0; p < n; p++) {
		for (size_t v = 0; v < N_KERNEL_VERBS; v++) {
			char control[64];
			const char *got;

			snprintf(control, sizeof(control), "%.63s",
				 kt_try(way, WAY_UNCONFINED, kernel_verbs[v],
					places[p]));
			if (!strncmp(control, "open:", 5) ||
			    !strcmp(control, "EROFS") ||
			    !strcmp(control, "ENOSYS") ||
			    !strcmp(control, "EACCES")) {
				TH_LOG("%s %s: %s unconfined: not a door here",
				       kernel_verbs[v], places[p], control);
				continue;
			}
			got = kt_try(way, path, kernel_verbs[v], places[p]);
			/* Confined, it may not even open (/proc/kmsg needs
			   CAP_SYSLOG, which programs lose). */
			if (!strcmp(got, "open:EPERM") ||
			    !strcmp(got, "open:EACCES")) {
				TH_LOG("%s %s: %s confined", kernel_verbs[v],
				       places[p], got);
				got = "EROFS";
			}
			EXPECT_STREQ("EROFS", got)
			{
				TH_LOG("%s: %s %s (unconfined: %s)",
				       way_name[path], kernel_verbs[v],
				       places[p], control);
			}
			held++;
		}
	}
	/* chmod and chown of /dev/null at least: the door itself. */
	ASSERT_LE(2 * N_KERNEL_VERBS - 2, held);
}

/*
 * Names in /dev (frozen by Landlock already, EACCES): the read-only mount
 * answers first.  The positive control is the same call confined in the
 * user's folder.
 */
static void assert_dev_names_held(struct __test_metadata *_metadata,
				  struct way *way, enum way_path path)
{
	static const char *const make[][3] = {
	    {"mknod-fifo", "%s/jr2-fifo", NULL},
	    {"mkdir", "%s/jr2-dir", NULL},
	    {"symlink", "null", "%s/jr2-sym"},
	    {"link", FX_FILE, "%s/jr2-link"},
	    {"unlink", "%s/jr2-none", NULL},
	    {"rename", "%s/jr2-none", "%s/jr2-none2"},
	};
	char out[WAY_OUT_SIZE];

	for (size_t i = 0; i < sizeof(make) / sizeof(*make); i++) {
		for (int in_dev = 0; in_dev < 2; in_dev++) {
			const char *dir = in_dev ? "/dev" : FX_WORK;
			char a[PATH_MAX], b[PATH_MAX];
			const char *argv[4] = {make[i][0], a, b, NULL};
			const char *want = in_dev ? "EROFS" : "ok";

			snprintf(a, sizeof(a), make[i][1], dir);
			if (make[i][2])
				snprintf(b, sizeof(b), make[i][2], dir);
			else
				argv[2] = NULL;
			/* unlink, rename of what is not there: ENOENT. */
			if (!in_dev && (!strcmp(make[i][0], "unlink") ||
					!strcmp(make[i][0], "rename")))
				want = "ENOENT";
			way_try(way, path, argv, out, sizeof(out));
			out[strcspn(out, "\n")] = '\0';
			EXPECT_STREQ(want, out)
			{
				TH_LOG("%s: %s %s %s", way_name[path], argv[0],
				       argv[1], argv[2] ? argv[2] : "");
			}
		}
	}
}

/* The read-only mounts stay read-only: no way back for a root program. */
static void assert_no_remount(struct __test_metadata *_metadata,
			      struct way *way, enum way_path path)
{
	static const char *const ways[] = {"remount-rw", "setattr-rw",
					   "userns-setattr-rw", "umount"};

	/* Control: the test's own /dev mount (already writable) takes it. */
	ASSERT_STREQ("ok", kt_try(way, WAY_UNCONFINED, "setattr-rw", "/dev"));
	for (size_t w = 0; w < sizeof(ways) / sizeof(*ways); w++)
		for (size_t t = 0; t < 3; t++) {
			const char *tree =
			    (const char *[]){"/dev", "/sys", "/proc"}[t];

			EXPECT_STREQ("EPERM", kt_try(way, path, ways[w], tree))
			{
				TH_LOG("%s: %s %s", way_name[path], ways[w],
				       tree);
			}
		}
	/* And they are still read-only after the attempts. */
	EXPECT_STREQ("EROFS", kt_try(way, path, "chmod", "/dev/null"));
}

/* What stays writable: device nodes, /dev/shm, a pty of /dev/pts. */
static void assert_dev_still_works(struct __test_metadata *_metadata,
				   struct way *way, enum way_path path)
{
	char out[WAY_OUT_SIZE];
	const char *const shm[] = {"mknod-fifo", "/dev/shm/jr2-meta", NULL};
	const char *const shm_rm[] = {"unlink", "/dev/shm/jr2-meta", NULL};
	const char *const write_null[] = {"write-file", "/dev/null", "x", NULL};

	way_try(way, path, shm, out, sizeof(out));
	EXPECT_STREQ("ok\n", out) TH_LOG("%s", way_name[path]);
	way_try(way, path, shm_rm, out, sizeof(out));
	EXPECT_STREQ("ok\n", out) TH_LOG("%s", way_name[path]);
	/* As a shell's '>': O_CREAT | O_TRUNC on the node, then a write. */
	way_try(way, path, write_null, out, sizeof(out));
	EXPECT_STREQ("ok\n", out) TH_LOG("%s", way_name[path]);
	if (!strcmp("ok", kt_try(way, WAY_UNCONFINED, "pty", "/dev/ptmx")))
		EXPECT_STREQ("ok", kt_try(way, path, "pty", "/dev/ptmx"));
}

/* The kernel's trees by `path`: held, and what stays usable. */
static void kernel_trees(struct __test_metadata *_metadata, struct way *way,
			 enum way_path path)
{
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's /dev/shm");
	ASSERT_EQ(0, mount("jr2-shm", "/dev/shm", "tmpfs", 0, "size=1m"));
	WAY_START(way);
	assert_kernel_trees_held(_metadata, way, path);
	assert_dev_names_held(_metadata, way, path);
	assert_no_remount(_metadata, way, path);
	assert_dev_still_works(_metadata, way, path);
}

TEST_F(escapes, R9_kernel_trees_metadata_run)
{
	kernel_trees(_metadata, &self->way, WAY_RUN);
}

TEST_F(escapes, R9_kernel_trees_metadata_exec)
{
	kernel_trees(_metadata, &self->way, WAY_EXEC);
}

/* ---- mounts the host makes after the confinement ---- */

#define LATE_READY FX_WORK "/late-ready"
#define LATE_GO	   FX_WORK "/late-go"
#define LATE_DIR   FX_WORK "/late"

/*
 * The test's side: once the program runs, a tmpfs below the read-only
 * tree, one below the user's folder, and a bind of the protected dir
 * there, each with a file "f" (a mknod in the protected dir), then GO.
 */
static void *late_mounts(void *arg)
{
	int *err = arg;

	for (int i = 0; i < 1000 && access(LATE_READY, F_OK); i++)
		usleep(10000);
	*err = 0;
	if (mount("jr2-late", FX_REPOS "/sub", "tmpfs", 0, "size=64k") ||
	    mknod(FX_REPOS "/sub/f", S_IFREG | 0644, 0) ||
	    mount("jr2-late", LATE_DIR "/tmp", "tmpfs", 0, "size=64k") ||
	    mknod(LATE_DIR "/tmp/f", S_IFREG | 0644, 0) ||
	    mknod(HX_PROTECTED "/f", S_IFREG | 0600, 0) ||
	    mount(HX_PROTECTED, LATE_DIR "/prot", NULL, MS_BIND, NULL) ||
	    mknod(LATE_GO, S_IFREG | 0644, 0))
		*err = errno;
	return NULL;
}

/* Undoes late_mounts(), so that it can run again. */
static void late_clear(void)
{
	umount2(FX_REPOS "/sub", MNT_DETACH);
	umount2(LATE_DIR "/tmp", MNT_DETACH);
	umount2(LATE_DIR "/prot", MNT_DETACH);
	unlink(HX_PROTECTED "/f");
	unlink(LATE_READY);
	unlink(LATE_GO);
}

/*
 * The control: a process of a mount namespace that is a slave of the
 * test's, made before the mounts, as the programs' was before the fix:
 * its jr2-try `late-chmod` line.
 */
static void late_slave(const char *try_tool, const char *target, char *out,
		       size_t size)
{
	int fds[2];
	pid_t pid;
	ssize_t n;

	out[0] = '\0';
	if (pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
			_exit(100);
		execl(try_tool, try_tool, "late-chmod", LATE_READY, LATE_GO,
		      target, NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, NULL, 0);
}

/* `late-chmod` of `target` by `path` (WAY_UNCONFINED: the slave control),
   while the mounts are made. */
static const char *late_chmod(struct __test_metadata *_metadata,
			      struct way *way, enum way_path path,
			      const char *target)
{
	static char out[WAY_OUT_SIZE];
	const char *const argv[] = {"late-chmod", LATE_READY, LATE_GO, target,
				    NULL};
	pthread_t mounter;
	int err = -1;

	late_clear();
	ASSERT_EQ(0, pthread_create(&mounter, NULL, late_mounts, &err));
	if (path == WAY_UNCONFINED)
		late_slave(way->hx.try_tool, target, out, sizeof(out));
	else
		way_try_opts(way, path, NULL, false, argv, out, sizeof(out));
	pthread_join(mounter, NULL);
	EXPECT_EQ(0, err) TH_LOG("the late mounts: %s", strerror(err));
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * A mount the host makes after the confinement does not reach the
 * programs: their mount namespace is private.  Had it propagated in, it
 * would come read-write below a read-only tree (its metadata open to
 * change), and a bind of the protected dir below the user's folder would
 * open it through the folder's rule.  The control: a slave namespace made
 * at the same time sees each late mount (the test's /tmp and /mnt are
 * shared, as / is on a systemd machine).
 */
static void assert_late_mounts(struct __test_metadata *_metadata,
			       struct way *way, enum way_path path)
{
	static const char *const targets[] = {
	    FX_REPOS "/sub/f", LATE_DIR "/tmp/f", LATE_DIR "/prot/f"};

	for (size_t i = 0; i < sizeof(targets) / sizeof(*targets); i++) {
		EXPECT_STREQ("ok", late_chmod(_metadata, way, WAY_UNCONFINED,
					      targets[i]))
		TH_LOG("a slave namespace: %s", targets[i]);
		EXPECT_STREQ("ENOENT",
			     late_chmod(_metadata, way, path, targets[i]))
		TH_LOG("%s: %s", way_name[path], targets[i]);
	}
}

/* The late mounts by `path`, on a shared /tmp and /mnt. */
static void late_mounts_stay_out(struct __test_metadata *_metadata,
				 struct way *way, enum way_path path)
{
	fx_make_dir(_metadata, LATE_DIR, 0755);
	fx_make_dir(_metadata, LATE_DIR "/tmp", 0755);
	fx_make_dir(_metadata, LATE_DIR "/prot", 0755);
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's shared mount");
	ASSERT_EQ(0, mount(NULL, HX_MNT, NULL, MS_SHARED, NULL));
	ASSERT_EQ(0, mount(NULL, FX_ROOT, NULL, MS_SHARED, NULL));
	WAY_START(way);
	assert_late_mounts(_metadata, way, path);
}

TEST_F(escapes, O2_R9_late_mounts_stay_out_run)
{
	late_mounts_stay_out(_metadata, &self->way, WAY_RUN);
}

TEST_F(escapes, O2_R9_late_mounts_stay_out_exec)
{
	late_mounts_stay_out(_metadata, &self->way, WAY_EXEC);
}

TEST_HARNESS_MAIN
