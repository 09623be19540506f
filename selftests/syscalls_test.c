// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every system call has a decision (docs/SYSCALLS.md): the census of the
 * kernel's x86_64 and i386 tables, and the seccomp filter of the
 * confinement step built from it (runtime/syscall_census.h).  Doors where a
 * system call changes the kernel's or another process's state without
 * opening a file, so that no Landlock hook is asked:
 *  - clone3's CLONE_INTO_CGROUP starts a child in any cgroup of a read-only
 *    descriptor (cgroup_may_write() is an inode permission check): clone3
 *    gives ENOSYS, and fork, posix_spawn, threads and pipelines still work
 *    (libc falls back to clone, which cannot name a cgroup);
 *  - fanotify with FAN_REPORT_FID and an inode mark needs only read
 *    permission of the path and reports every open and read of a protected
 *    file: fanotify_init and fanotify_mark give EPERM;
 *  - the mount API makes a detached mount that meets no Landlock hook: EPERM;
 *  - bpf's BPF_OBJ_GET of a pinned map needs only DAC permission of its path
 *    and gives the map writable: bpf gives EPERM;
 *  - a program's own seccomp filter cannot re-open what ours refuses;
 *  - the census probe: every number of both tables, the numbers above the
 *    census's highest and x32's, under the filter programs get, each refused
 *    with the census's errno or reaching the kernel.
 * Through `jr2-confine run` and `jr2-harness exec`; the control is the same
 * call unconfined.  The calls are jr2-try's sc-* verbs
 * (runtime/tests/try_syscalls.c, try_census.c).
 *
 * Promises: R1 R9
 */
#include <pthread.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "ways.h"
#include "tests/try_shared.h"

#define SC_OUT_SIZE 16384
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
/* Made by jr2-try's watcher once it watches; the test then reads the file. */
#define SC_WATCHING FX_WORK "/watching"
#define SC_WATCHED  "notify-me"

/* ---- the tests ---- */

WAY_FIXTURE(syscalls)

/* jr2-try's whole output by `path` (the census prints many lines). */
static const char *sc_try_all(struct way *way, enum way_path path,
			      const char *verb, const char *arg)
{
	static char out[SC_OUT_SIZE];
	const char *const argv[] = {verb, arg, NULL};

	way_try_opts(way, path, NULL, false, argv, out, sizeof(out));
	return out;
}

/* The last line of out (the census's tally), in place. */
static const char *sc_last_line(const char *out)
{
	static char line[256];
	size_t n = strlen(out);
	const char *start;

	while (n && out[n - 1] == '\n')
		n--;
	start = out + n;
	while (start > out && start[-1] != '\n')
		start--;
	snprintf(line, sizeof(line), "%.*s", (int)(out + n - start), start);
	return line;
}

TEST_F(syscalls, R9_census_decides_every_number)
{
	struct way *way = &self->way;
	char want[128];
	const char *out;

	WAY_START(way);
	/* Control: unconfined, every probed call reaches the kernel (the
	   probe's tracer sees each one and lets none run). */
	out = sc_try_all(way, WAY_UNCONFINED, "sc-census", "open");
	if (!strncmp(out, "tracer: ", 8))
		SKIP(return,
			   "the probe cannot trace its own child here (%.40s): "
			   "Yama's ptrace_scope above 1?",
			   out);
	ASSERT_NE(NULL, strstr(out, "census: "))
	{
		TH_LOG("%s", out);
	}
	FX_SKIP_UNDER_SECCOMP("the unconfined census");
	ASSERT_NE(NULL, strstr(sc_last_line(out), " checked, 0 differ"))
	{
		TH_LOG("unconfined: %s", out);
	}
	snprintf(want, sizeof(want), "%s", sc_last_line(out));
	TH_LOG("unconfined: %s", want);
	if (strstr(want, "no i386 table"))
		TH_LOG("int 0x80 reaches no table here: the i386 part is left "
		       "out");
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		out = sc_try_all(way, path, "sc-census", "filter");
		ASSERT_STREQ(want, sc_last_line(out))
		{
			TH_LOG("%s:\n%s", way_name[path], out);
		}
	}
}

/*
 * The cgroup v2 folder this test runs in (moving into it is no move), under
 * /sys/fs/cgroup, where cgroup v2 is mounted or this test mounts it.  ""
 * when there is none.
 */
static void sc_own_cgroup(struct __test_metadata *_metadata, char *dir,
			  size_t size)
{
	char line[PATH_MAX], rel[PATH_MAX] = "";
	const char *root = "/sys/fs/cgroup";
	FILE *f = fopen("/proc/self/cgroup", "re");
	struct statfs fs;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			snprintf(rel, sizeof(rel), "%.*s",
				 (int)strcspn(line + 3, "\n"), line + 3);
	if (f)
		fclose(f);
	dir[0] = '\0';
	if (!rel[0]) {
		TH_LOG("no cgroup v2 line in /proc/self/cgroup");
		return;
	}
	/* Over /sys/fs/cgroup in this test's private mount namespace: under
	   /sys, a read-only tree (elsewhere the runtime would refuse a kernel
	   file system that shows a restricted one again). */
	if (statfs(root, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		if (mount("cgroup2", root, "cgroup2", 0, NULL)) {
			TH_LOG("mount of cgroup2: %s", strerror(errno));
			return;
		}
	}
	snprintf(dir, size, "%s%s", root, rel);
}

TEST_F(syscalls, R9_clone3_refused_spawning_works)
{
	struct way *way = &self->way;
	char cgroup[2 * PATH_MAX];

	sc_own_cgroup(_metadata, cgroup, sizeof(cgroup));
	WAY_START(way);
	ASSERT_STREQ("ok", WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-clone3", "-"));
	ASSERT_STREQ("ok fork posix_spawn pthread_create pipeline",
		     WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-spawn"));
	if (cgroup[0] &&
	    strcmp(WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-clone3", cgroup),
		   "ok")) {
		TH_LOG("CLONE_INTO_CGROUP of %s unconfined: %s: left out",
		       cgroup,
		       WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-clone3", cgroup));
		cgroup[0] = '\0';
	} else if (cgroup[0]) {
		TH_LOG("CLONE_INTO_CGROUP of %s unconfined: ok", cgroup);
	}
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("ENOSYS",
			     WAY_TRY_LINE(way, path, "sc-clone3", "-"))
		{
			TH_LOG("%s", way_name[path]);
		}
		if (cgroup[0])
			ASSERT_STREQ(
			    "ENOSYS",
			    WAY_TRY_LINE(way, path, "sc-clone3", cgroup))
			{
				TH_LOG("%s: CLONE_INTO_CGROUP %s",
				       way_name[path], cgroup);
			}
		ASSERT_STREQ("ok fork posix_spawn pthread_create pipeline",
			     WAY_TRY_LINE(way, path, "sc-spawn"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_F(syscalls, R9_fanotify_refused)
{
	struct way *way = &self->way;
	char control[WAY_OUT_SIZE];

	WAY_START(way);
	/* Control: root marks the protected dir with FAN_REPORT_FID. */
	snprintf(
	    control, sizeof(control), "%s",
	    WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-fanotify", HX_PROTECTED));
	/* A kernel without CONFIG_FANOTIFY has no such door; the filter
	   refuses the calls before the kernel all the same. */
	if (!strcmp(control, "init ENOSYS")) {
		TH_LOG("fanotify: ENOSYS unconfined (no CONFIG_FANOTIFY): "
		       "the filter's refusal only");
	} else {
		/* A file system without a file system id refuses the mark;
		   the group is made all the same. */
		if (strcmp(control, "ok"))
			TH_LOG("unconfined: %s (the mark; the group was made)",
			       control);
		FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN,
				    "the unconfined control's fanotify group");
		ASSERT_TRUE(!strcmp(control, "ok") ||
			    !strncmp(control, "mark ", 5))
		{
			TH_LOG("unconfined: %s", control);
		}
		ASSERT_STREQ("EBADF", WAY_TRY_LINE(way, WAY_UNCONFINED,
						   "sc-fanotify-mark"));
	}
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ(
		    "init EPERM",
		    WAY_TRY_LINE(way, path, "sc-fanotify", HX_PROTECTED))
		{
			TH_LOG("%s", way_name[path]);
		}
		ASSERT_STREQ("EPERM",
			     WAY_TRY_LINE(way, path, "sc-fanotify-mark"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

/*
 * The test's own bpf file system, over /sys/fs/bpf in its private mount
 * namespace (the host's is never seen): the runtime refuses to confine where
 * a bpf file system is mounted outside /sys, whose kernel objects a work
 * folder's rights would expose.
 */
#define SC_BPF_DIR "/sys/fs/bpf"
#define SC_BPF_MAP SC_BPF_DIR "/jr2-map"

/*
 * A map of the test's, pinned at SC_BPF_MAP: its fd, or -1 with the reason
 * in `why` (no bpf in the kernel, no bpf file system).
 */
static int sc_bpf_pin(char *why, size_t size)
{
	union bpf_attr attr = {.pathname = (uintptr_t)SC_BPF_MAP};
	int map = try_bpf_map_create();

	if (map < 0)
		return snprintf(why, size, "BPF_MAP_CREATE unconfined: %s",
				strerrorname_np(errno)),
		       -1;
	if (mount("bpf", SC_BPF_DIR, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0700"))
		return snprintf(why, size,
				"mount of a bpf file system on %s: %s",
				SC_BPF_DIR, strerrorname_np(errno)),
		       -1;
	attr.bpf_fd = (uint32_t)map;
	if (try_bpf_call(BPF_OBJ_PIN, &attr))
		return snprintf(why, size, "BPF_OBJ_PIN at %s: %s", SC_BPF_MAP,
				strerrorname_np(errno)),
		       -1;
	return map;
}

/*
 * BPF_OBJ_GET needs only DAC permission of the pinned object's path (root
 * passes); no file is opened, so Landlock is not asked, and since Linux 6.5
 * unprivileged_bpf_disabled gates map creation and loading, not OBJ_GET.
 * The fd it gives writes a map an unconfined process made.  bpf is refused:
 * EPERM, before the path is looked up.
 */
TEST_F(syscalls, R9_bpf_refused)
{
	static const char refused[] = "obj_get:EPERM map_create:EPERM";
	struct way *way = &self->way;
	char why[160] = "", control[WAY_OUT_SIZE];
	uint32_t value = 0;
	int map = sc_bpf_pin(why, sizeof(why));

	WAY_START(way);
	/* Control: unconfined, the pinned map opens writable and its element
	   changes in the test's own map. */
	snprintf(control, sizeof(control), "%s",
		 WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-bpf", SC_BPF_MAP, "42"));
	FX_SKIP_WITHOUT_CAP(CAP_BPF, "the unconfined control's BPF map");
	if (map < 0) {
		/* No map to reach: the kernel's own answer (ENOSYS, ENOENT) is
		   not the filter's. */
		TH_LOG("%s: the filter's refusal only (unconfined: %s)", why,
		       control);
		ASSERT_STRNE(refused, control);
	} else {
		ASSERT_STREQ("obj_get:ok update:ok map_create:ok", control);
		ASSERT_EQ(0, try_bpf_elem(map, false, &value));
		ASSERT_EQ(42, value);
	}
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ(refused, WAY_TRY_LINE(way, path, "sc-bpf",
						   SC_BPF_MAP, "666"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
	if (map >= 0) {
		ASSERT_EQ(0, try_bpf_elem(map, false, &value));
		ASSERT_EQ(42, value);
	}
}

/* The test's side: once the watcher watches, reads the watched file. */
static void *sc_reader(void *arg)
{
	char buf[64];
	int fd;

	(void)arg;
	for (int i = 0; i < 1000 && access(SC_WATCHING, F_OK); i++)
		usleep(10000);
	fd = open(HX_PROTECTED "/" SC_WATCHED, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return NULL;
}

/* The watcher's line while the test reads the watched file. */
static const char *sc_watch(struct way *way, enum way_path path,
			    const char *const argv[])
{
	static char out[WAY_OUT_SIZE];
	pthread_t reader;

	unlink(SC_WATCHING);
	if (pthread_create(&reader, NULL, sc_reader, NULL))
		return "pthread_create failed";
	way_try_opts(way, path, NULL, false, argv, out, sizeof(out));
	pthread_join(reader, NULL);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * inotify and dnotify are allowed: a known gap (SECURITY.md).  A watch
 * needs only DAC read of the path (root passes) and Landlock is not asked;
 * refusing the calls would stop every file watcher of build tools and
 * editors.  What a program learns of a file of the protected dir: that it
 * was opened, read, closed, made or removed, when, and its name (inotify;
 * this test reads one file: open, access, close); that something in the
 * dir was read, when (dnotify).  Never the bytes: the file itself opens to
 * nobody in the domain (R1, EACCES).
 */
TEST_F(syscalls, R1_R9_notify_learns_when_not_what)
{
	struct way *way = &self->way;
	const char *const read_it[] = {"read-file", HX_PROTECTED "/" SC_WATCHED,
				       NULL};
	const char *const inotify[] = {"sc-inotify", HX_PROTECTED, SC_WATCHED,
				       SC_WATCHING, NULL};
	const char *const dnotify[] = {"sc-dnotify", HX_PROTECTED, SC_WATCHING,
				       NULL};
	char out[WAY_OUT_SIZE];

	WAY_START(way);
	fx_make_file(_metadata, HX_PROTECTED "/" SC_WATCHED, "s3cret\n", 0600);
	for (int path = WAY_UNCONFINED; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("watch ok events: open access close",
			     sc_watch(way, path, inotify))
		{
			TH_LOG("%s", way_name[path]);
		}
		ASSERT_STREQ("signal for the dir", sc_watch(way, path, dnotify))
		{
			TH_LOG("%s", way_name[path]);
		}
		way_try(way, path, read_it, out, sizeof(out));
		ASSERT_STREQ(
		    path == WAY_UNCONFINED ? "ok\ns3cret\n" : "EACCES\n", out)
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_F(syscalls, R9_mount_api_refused)
{
	static const char refused[] =
	    "fsopen:EPERM fsconfig:EPERM fsmount:EPERM fspick:EPERM "
	    "open_tree:EPERM open_tree_attr:EPERM move_mount:EPERM "
	    "mount_setattr:EPERM";
	struct way *way = &self->way;
	const char *control;

	WAY_START(way);
	/* Control: unconfined, in its own user namespace, fsopen and
	   open_tree give descriptors; the calls on no descriptor meet the
	   kernel's own checks. */
	control = WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-mount-api");
	ASSERT_EQ(0, strncmp(control, "fsopen:ok ", 10));
	ASSERT_NE(NULL, strstr(control, " open_tree:ok "));
	ASSERT_EQ(NULL, strstr(control, "EPERM"))
	{
		TH_LOG("unconfined: %s", control);
	}
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ(refused, WAY_TRY_LINE(way, path, "sc-mount-api"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_F(syscalls, R9_own_filter_cannot_reopen)
{
	struct way *way = &self->way;
	const char *control;

	WAY_START(way);

	/* Control: unconfined, the allow-everything filter allows them
	   (fanotify_init: ENOSYS where the kernel has no CONFIG_FANOTIFY). */
	FX_SKIP_UNDER_SECCOMP("the unconfined control's add_key");
	control = WAY_TRY_LINE(way, WAY_UNCONFINED, "sc-own-filter");
	ASSERT_TRUE(
	    !strcmp(control, "add_key:ok clone3:ok fanotify_init:ok") ||
	    !strcmp(control, "add_key:ok clone3:ok fanotify_init:ENOSYS"))
	{
		TH_LOG("unconfined: %s", control);
	}
	for (int path = WAY_RUN; path <= WAY_EXEC; path++) {
		ASSERT_STREQ("add_key:EPERM clone3:ENOSYS fanotify_init:EPERM",
			     WAY_TRY_LINE(way, path, "sc-own-filter"))
		{
			TH_LOG("%s", way_name[path]);
		}
	}
}

TEST_HARNESS_MAIN
