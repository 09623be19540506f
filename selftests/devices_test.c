// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device door: in every policy no device node can be made
 * anywhere (MAKE_CHAR and MAKE_BLOCK withheld: EACCES), and in /dev only an
 * allow-list opens (null, zero, full, random, urandom, tty, ptmx, pts/N,
 * shm/, mqueue/): block disks, memory, ports, the kernel log and
 * loop-control cannot be opened (EACCES), while /dev lists.  Terminal
 * ioctls work on the allow-list (IOCTL_DEV, ABI 5+).  Proven through
 * jr2_confine_self(), `jr2-confine run` and `jr2-harness exec`; each
 * positive control is the same operation unconfined.  Devices are only
 * opened, never read or written.
 *
 * Promises: R3 R9 A1 A5
 */
#include <sys/ioctl.h>
#include <termios.h>

#include "ways.h"

WAY_FIXTURE(devices)
WAY_FIXTURE(devices_exec)

static const char *const harmful_devices[] = {
    "/dev/mem",		  "/dev/kmem",
    "/dev/port",	  "/dev/kmsg",
    "/dev/vda",		  "/dev/sda",
    "/dev/nvme0n1",	  "/dev/loop0",
    "/dev/loop-control",  "/dev/cpu_dma_latency",
    "/dev/btrfs-control", NULL,
};

static const char *const harmless_devices[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL,
};

/* The first block device in /dev, into buf; NULL when there is none. */
static const char *first_block_device(char *buf, size_t size)
{
	DIR *dir = opendir("/dev");
	struct dirent *entry;
	const char *found = NULL;

	if (!dir)
		return NULL;
	while (!found && (entry = readdir(dir))) {
		struct stat st;

		snprintf(buf, size, "/dev/%s", entry->d_name);
		if (!lstat(buf, &st) && S_ISBLK(st.st_mode))
			found = buf;
	}
	closedir(dir);
	return found;
}

TEST_F(devices, R9_disks_and_memory_do_not_open)
{
	const char *doors[16];
	size_t n =
	    fx_open_doors(_metadata, harmful_devices, O_RDONLY, doors, 16);
	char block[PATH_MAX];

	if (n < 15 && first_block_device(block, sizeof(block)) &&
	    !test_open(block, O_RDONLY))
		doors[n++] = block;
	FX_NEED_DOORS(n, "disk, memory or control device");
	FX_CONFINE(&self->way.fx);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(EACCES, test_open(doors[i], O_RDONLY))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	/* Their names still list. */
	EXPECT_EQ(0, test_stat(doors[0]));
}

TEST_F(devices, A1_allow_list_opens)
{
	const char *doors[8];
	size_t n = fx_open_doors(_metadata, harmless_devices, O_RDWR, doors, 8);
	int tty_before = test_open("/dev/tty", O_RDWR | O_NOCTTY);

	FX_NEED_DOORS(n, "harmless device");
	FX_CONFINE(&self->way.fx);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(0, test_open(doors[i], O_RDWR))
		{
			TH_LOG("%s", doors[i]);
		}
	}
	/* /dev/tty: as unconfined (ENXIO without a controlling terminal). */
	EXPECT_EQ(tty_before, test_open("/dev/tty", O_RDWR | O_NOCTTY));
	EXPECT_EQ(0, test_write("/dev/null", "x", 0));
}

/* A pseudo-terminal: ptmx, its ioctls (IOCTL_DEV) and its pts/N. */
TEST_F(devices, A1_terminals_work)
{
	struct termios tio;
	char pts[64];
	int ptm = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	int pts_fd;

	if (ptm < 0)
		SKIP(return, "/dev/ptmx does not open here unconfined: %s",
			   strerrorname_np(errno));
	close(ptm);
	FX_CONFINE(&self->way.fx);
	ptm = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, ptm);
	ASSERT_EQ(0, grantpt(ptm));
	ASSERT_EQ(0, unlockpt(ptm));
	ASSERT_EQ(0, ptsname_r(ptm, pts, sizeof(pts)));
	EXPECT_EQ(0, tcgetattr(ptm, &tio));
	pts_fd = open(pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
	EXPECT_LE(0, pts_fd);
	EXPECT_EQ(0, tcgetattr(pts_fd, &tio));
	EXPECT_EQ(2, write(pts_fd, "x\n", 2));
	close(pts_fd);
	close(ptm);
}

TEST_F(devices, R3_no_device_node_anywhere)
{
	/* Control: unconfined, the test (root) makes them. */
	FX_SKIP_WITHOUT_CAP(CAP_MKNOD, "the unconfined control's device node");
	ASSERT_EQ(0, test_mknod(FX_WORK "/c0", S_IFCHR | 0600, makedev(1, 3)));
	ASSERT_EQ(0, test_mknod(FX_WORK "/b0", S_IFBLK | 0600, makedev(7, 0)));
	FX_CONFINE(&self->way.fx);
	EXPECT_EQ(EACCES,
		  test_mknod(FX_WORK "/c", S_IFCHR | 0600, makedev(1, 3)));
	EXPECT_EQ(EACCES,
		  test_mknod(FX_WORK "/b", S_IFBLK | 0600, makedev(7, 0)));
	EXPECT_EQ(EACCES,
		  test_mknod(FX_DIR "/c", S_IFCHR | 0600, makedev(1, 1)));
	EXPECT_EQ(EACCES,
		  test_mknod(FX_OTHER "/b", S_IFBLK | 0600, makedev(8, 0)));
	EXPECT_EQ(EACCES,
		  test_mknod("/dev/jr2-c", S_IFCHR | 0600, makedev(1, 3)));
	/* What a device node is not: a fifo, a file. */
	EXPECT_EQ(0, test_mknod(FX_WORK "/fifo", S_IFIFO | 0600, 0));
	EXPECT_EQ(0, test_creat(FX_WORK "/file3"));
}

TEST_F(devices, A5_dev_lists_and_shm_works)
{
	int before = 0, after = 0;

	ASSERT_EQ(0, test_list("/dev", &before));
	/* A private /dev/shm: the host's is left as it was. */
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's /dev/shm");
	ASSERT_EQ(0, mount("jr2-shm", "/dev/shm", "tmpfs", 0, "size=1m"));
	FX_CONFINE(&self->way.fx);
	EXPECT_EQ(0, test_list("/dev", &after));
	EXPECT_EQ(before, after);
	EXPECT_EQ(0, test_creat("/dev/shm/jr2-seg"));
	EXPECT_EQ(0, test_unlink("/dev/shm/jr2-seg"));
	/* /dev itself is frozen: nothing is made in it. */
	EXPECT_EQ(EACCES, test_creat("/dev/jr2-new"));
}

/*
 * The same by `path`: no device node is made (a FIFO is), /dev lists and
 * /dev/null opens, a disk and the kernel's log do not; the controls run
 * unconfined first.
 */
static void devices_by(struct __test_metadata *_metadata, struct way *way,
		       enum way_path path)
{
	char block[PATH_MAX];
	const char *disk = first_block_device(block, sizeof(block));

	FX_SKIP_WITHOUT_CAP(CAP_MKNOD, "the unconfined control's device node");
	ASSERT_STREQ("ok",
		     WAY_TRY(way, WAY_UNCONFINED, "mknod-char", FX_WORK "/c0"));
	WAY_CONFINE(way, path);
	EXPECT_STREQ("EACCES", WAY_TRY(way, path, "mknod-char", FX_WORK "/c"));
	EXPECT_STREQ("EACCES", WAY_TRY(way, path, "mknod-block", FX_WORK "/b"));
	EXPECT_STREQ("ok", WAY_TRY(way, path, "mknod-fifo", FX_WORK "/f"));
	EXPECT_STREQ("ok", WAY_TRY(way, path, "open-write", "/dev/null"));
	EXPECT_STREQ("ok", WAY_TRY(way, path, "list", "/dev"));
	if (disk &&
	    !strcmp("ok", WAY_TRY(way, WAY_UNCONFINED, "open-read", disk)))
		EXPECT_STREQ("EACCES", WAY_TRY(way, path, "open-read", disk));
	if (!strcmp("ok",
		    WAY_TRY(way, WAY_UNCONFINED, "open-read", "/dev/kmsg")))
		EXPECT_STREQ("EACCES",
			     WAY_TRY(way, path, "open-read", "/dev/kmsg"));
	if (!strcmp("ok",
		    WAY_TRY(way, WAY_UNCONFINED, "ioctl-tty", "/dev/ptmx")))
		EXPECT_STREQ("ok",
			     WAY_TRY(way, path, "ioctl-tty", "/dev/ptmx"));
}

TEST_F(devices, R3_R9_devices_run)
{
	devices_by(_metadata, &self->way, WAY_RUN);
}

TEST_F(devices_exec, R3_R9_devices_exec)
{
	devices_by(_metadata, &self->way, WAY_EXEC);
}

TEST_HARNESS_MAIN
