// SPDX-License-Identifier: GPL-2.0-only
/*
 * P1: a confined program cannot trace the harness nor read its memory: its
 * /proc/<pid>/environ, mem and maps give EACCES, PTRACE_ATTACH and
 * PTRACE_SEIZE give EPERM, process_vm_readv gives EPERM.  The positive
 * control is the same operation on a program of the same domain.
 *
 * Landlock alone leaves environ and maps readable from 6.16 on (KERNELS.md);
 * the harness adds its own measure (runtime/harness/spawner.c: not dumpable,
 * CAP_SYS_PTRACE, CAP_SYS_ADMIN and CAP_PERFMON dropped from the domain).
 *
 * Yama decides too: the peer names every program as its tracer
 * (PR_SET_PTRACER), enough under ptrace_scope 0 and 1; under 2 and 3 the
 * positive controls that attach (mem, PTRACE_ATTACH, process_vm_readv)
 * cannot run and are skipped naming Yama, after the negative side.
 *
 * Promises: P1
 */
#include "harness_helpers.h"

HX_FIXTURE(ptrace_proc)

static void proc_path(char *buf, size_t size, pid_t pid, const char *file)
{
	snprintf(buf, size, "/proc/%d/%s", (int)pid, file);
}

/* One /proc file of the harness: EACCES; of a peer program: readable. */
static void assert_proc_file(struct __test_metadata *_metadata, struct hx *hx,
			     const char *file)
{
	char path[64], peer_path[64], why[256];
	/* mem: open is the check (reading address 0 gives EIO). */
	const char *verb = strcmp(file, "mem") ? "read-file" : "open-read";
	pid_t client, peer;

	HX_START(hx, NULL);
	peer = hx_start_sleeper(_metadata, hx, &client);
	proc_path(path, sizeof(path), hx->pid, file);
	proc_path(peer_path, sizeof(peer_path), peer, file);
	ASSERT_STREQ("EACCES", HX_TRY(hx, verb, path))
	{
		TH_LOG("%s of the harness is readable by a confined program",
		       path);
	}
	/* The spawner holds the same secrets in its memory. */
	proc_path(path, sizeof(path), hx->spawner, file);
	ASSERT_STREQ("EACCES", HX_TRY(hx, verb, path));
	/* mem is opened in attach mode, which Yama checks; the others read. */
	if (!strcmp(file, "mem") && hx_peer_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_STREQ("ok", HX_TRY(hx, verb, peer_path));
}

TEST_F(ptrace_proc, P1_proc_environ_eacces)
{
	assert_proc_file(_metadata, &self->hx, "environ");
}

TEST_F(ptrace_proc, P1_proc_mem_eacces)
{
	assert_proc_file(_metadata, &self->hx, "mem");
}

TEST_F(ptrace_proc, P1_proc_maps_eacces)
{
	assert_proc_file(_metadata, &self->hx, "maps");
}

TEST_F(ptrace_proc, P1_ptrace_attach_seize_eperm)
{
	struct hx *hx = &self->hx;
	char pid[16], peer_pid[16], why[256];
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer_pid,
		   sizeof(peer_pid));
	hx_pid_str(hx->pid, pid, sizeof(pid));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-attach", pid));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-seize", pid));
	hx_pid_str(hx->spawner, pid, sizeof(pid));
	ASSERT_STREQ("EPERM", HX_TRY(hx, "ptrace-attach", pid));
	if (hx_peer_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-attach", peer_pid));
	ASSERT_STREQ("ok", HX_TRY(hx, "ptrace-seize", peer_pid));
}

TEST_F(ptrace_proc, P1_process_vm_readv_eperm)
{
	struct hx *hx = &self->hx;
	char pid[16], peer_pid[16], why[256];
	pid_t client;

	HX_START(hx, NULL);
	hx_pid_str(hx_start_sleeper(_metadata, hx, &client), peer_pid,
		   sizeof(peer_pid));
	hx_pid_str(hx->pid, pid, sizeof(pid));
	ASSERT_STREQ("EPERM", HX_TRY_LINE(hx, "vm-read", pid));
	if (hx_peer_trace_blocked(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_STREQ("ok", HX_TRY_LINE(hx, "vm-read", peer_pid));
}

TEST_F(ptrace_proc, P1_no_ptrace_capabilities_in_the_domain)
{
	struct hx *hx = &self->hx;
	const char *const argv[] = {"/bin/grep", "^Cap", "/proc/self/status",
				    NULL};
	char out[HX_OUT_SIZE], value[64];
	unsigned long long caps;

	HX_START(hx, NULL);
	ASSERT_EQ(0, hx_exec(hx, argv, out, sizeof(out)));
	/*
	 * Bounding, permitted and effective sets lack CAP_SYS_PTRACE (19),
	 * CAP_SYS_ADMIN (21) and CAP_PERFMON (38): each would open the
	 * harness's /proc files (runtime/harness/spawner.c).
	 */
	for (const char *key = "CapBnd"; key;
	     key = !strcmp(key, "CapBnd")   ? "CapPrm"
		   : !strcmp(key, "CapPrm") ? "CapEff"
					    : NULL) {
		ASSERT_NE(NULL, hx_field(out, key, value, sizeof(value)));
		caps = strtoull(value, NULL, 16);
		ASSERT_EQ(0, caps & (1ULL << 19 | 1ULL << 21 | 1ULL << 38))
		{
			TH_LOG("%s %s holds a ptrace capability", key, value);
		}
		/* Positive control: the rest of root's power stays (where
		   the suite holds CAP_CHOWN: a container profile may not). */
		ASSERT_EQ(fx_has_cap(CAP_CHOWN), !!(caps & (1ULL << 0)));
	}
}

TEST_HARNESS_MAIN
