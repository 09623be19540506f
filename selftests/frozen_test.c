// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frozen folders: Landlock only grants, so nothing can be made,
 * removed or renamed directly in an ancestor of a restricted path (with the
 * defaults: / and /run), nor in /proc, /sys and /dev.  The compiler lists
 * them (plan.frozen, `jr2-confine rules` and `check`, text and JSON) with
 * why, and the list is exact: creating a file in each listed folder gives
 * EACCES, and in every other folder beside them it works.  Through
 * jr2_confine_self() (the fixture's layout), `jr2-confine run` (jr2's
 * defaults, on a private /run) and `jr2-harness exec`.
 *
 * Promises: A1 R3
 */
#include "ways.h"

WAY_FIXTURE(frozen)
WAY_FIXTURE(frozen_exec)

static bool listed(const struct jr2_strv *paths, const char *path)
{
	for (size_t i = 0; i < paths->n; i++)
		if (!strcmp(paths->v[i], path))
			return true;
	return false;
}

static void add_ancestors(struct jr2_strv *out, const char *path)
{
	char buf[PATH_MAX];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", path);
	while ((slash = strrchr(buf, '/'))) {
		slash[slash == buf ? 1 : 0] = '\0';
		if (!listed(out, buf)) {
			out->v = realloc(out->v, (out->n + 1) * sizeof(char *));
			out->v[out->n++] = strdup(buf);
		}
		if (slash == buf)
			break;
	}
}

static void add_path(struct jr2_strv *out, const char *path)
{
	out->v = realloc(out->v, (out->n + 1) * sizeof(char *));
	out->v[out->n++] = strdup(path);
}

TEST_F(frozen, A1_R3_frozen_list_is_exact)
{
	static const char *const kernel[] = {"/proc", "/sys", "/dev"};
	struct jr2_strv expected = {0};
	struct jr2_policy policy;
	struct jr2_ruleset_plan plan;
	struct jr2_err err = {0};
	char probe[PATH_MAX];
	int natural[32];
	struct statvfs vfs;

	/* Expected from the layout alone: the ancestors of the restricted
	   paths, and the kernel's trees that exist here. */
	add_ancestors(&expected, FX_PROTECTED);
	add_ancestors(&expected, FX_REPOS);
	for (int i = 0; i < 3; i++)
		if (!test_stat(kernel[i]))
			add_path(&expected, kernel[i]);
	fx_policy(_metadata, &policy);
	ASSERT_EQ(0, jr2_policy_compile(&policy, JR2_ABI_REQUIRED, &plan, &err))
	{
		TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(plan.frozen.n, plan.frozen_why.n);
	EXPECT_EQ(expected.n, plan.frozen.n);
	for (size_t i = 0; i < expected.n; i++) {
		EXPECT_TRUE(listed(&plan.frozen, expected.v[i]))
		{
			TH_LOG("'%s' is not listed as frozen", expected.v[i]);
		}
	}
	for (size_t i = 0; i < plan.frozen.n; i++)
		EXPECT_NE(0, strlen(plan.frozen_why.v[i]));
	/* Control, unconfined: the fixture's frozen folders take files;
	   /proc and /sys take none by nature (their errno then stands). */
	ASSERT_EQ(0, test_creat(FX_ROOT "/probe0"));
	ASSERT_EQ(0, test_creat(FX_RUN "/probe0"));
	for (size_t i = 0; i < plan.frozen.n && i < 32; i++) {
		snprintf(probe, sizeof(probe), "%s/jr2-frozen-probe",
			 plan.frozen.v[i]);
		natural[i] = 0;
		if (!strcmp(plan.frozen.v[i], "/proc") ||
		    !strcmp(plan.frozen.v[i], "/sys"))
			natural[i] = test_creat(probe);
		/* A read-only mount answers first (a container's read-only
		   root): the kernel takes write access before the LSMs. */
		else if (!statvfs(plan.frozen.v[i], &vfs) &&
			 (vfs.f_flag & ST_RDONLY))
			natural[i] = EROFS;
		ASSERT_EQ(ENOENT, test_stat(probe));
	}
	FX_CONFINE_WITH(&self->way.fx, &policy);
	for (size_t i = 0; i < plan.frozen.n && i < 32; i++) {
		int expect = natural[i] ? natural[i] : EACCES;

		snprintf(probe, sizeof(probe), "%s/jr2-frozen-probe",
			 strcmp(plan.frozen.v[i], "/") ? plan.frozen.v[i] : "");
		EXPECT_EQ(expect, test_creat(probe))
		{
			TH_LOG("%s", probe);
		}
		EXPECT_EQ(expect, test_mkdir(probe))
		{
			TH_LOG("%s", probe);
		}
	}
	/* Every other folder beside them in the fixture: it works. */
	EXPECT_EQ(0, test_creat(FX_WORK "/probe"));
	EXPECT_EQ(0, test_creat(FX_OTHER "/probe"));
	EXPECT_EQ(0, test_creat(FX_DIR "/probe"));
	/* Nor is anything removed there. */
	EXPECT_EQ(EACCES, test_unlink(FX_ROOT "/probe0"));
	EXPECT_EQ(EACCES, test_unlink(FX_RUN "/probe0"));
	jr2_plan_free(&plan);
	jr2_policy_free(&policy);
	for (size_t i = 0; i < expected.n; i++)
		free(expected.v[i]);
	free(expected.v);
}

/* A private /run with /run/jr2 (and /run/lock): the defaults' setting. */
static void private_run(struct __test_metadata *_metadata)
{
	FX_SKIP_WITHOUT_CAP(CAP_SYS_ADMIN, "the fixture's private /run");
	ASSERT_EQ(0, mount("jr2-run", "/run", "tmpfs", 0, "mode=0755,size=4m"));
	fx_make_dir(_metadata, "/run/jr2", 0700);
	fx_make_dir(_metadata, "/run/lock", 0755);
	/* jr2's trust variables would freeze their folders: not here. */
	unsetenv("SSL_CERT_FILE");
	unsetenv("NODE_EXTRA_CA_CERTS");
	unsetenv("REQUESTS_CA_BUNDLE");
	unsetenv("GIT_SSL_CAINFO");
	unsetenv("CURL_CA_BUNDLE");
}

/* `jr2-confine rules` names each frozen folder; each one refuses a new
   file, its neighbours take one. */
TEST_F(frozen, A1_R3_defaults_named_and_enforced_run)
{
	struct way *way = &self->way;
	static char out[FX_RULES_SIZE];
	char tool[PATH_MAX], probe[PATH_MAX];
	char *argv[] = {(char *)FX_FIND_TOOL("jr2-confine", tool), "rules",
			NULL, NULL};
	const char *denied;
	int status = -1, n = 0;

	private_run(_metadata);
	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	ASSERT_EQ(0, status) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# frozen: /: ancestor of "))
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# frozen: /run: ancestor of /run/jr2"))
	TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "# frozen: /etc")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "# frozen: /usr")) TH_LOG("%s", out);
	HX_REQUIRE_ACCEPTED(&way->hx);
	way->defaults = true;
	denied = way_write_denied(way, WAY_RUN);
	/* Control, unconfined: a pid file in /run. */
	ASSERT_EQ(0, test_creat("/run/x0.pid"));
	for (char *line = strstr(out, "# frozen: "); line;
	     line = strstr(line + 1, "# frozen: ")) {
		const char *path = line + strlen("# frozen: ");
		size_t len = strcspn(path, ":");
		const char *word;
		char natural[WAY_OUT_SIZE];

		snprintf(probe, sizeof(probe), "%.*s/jr2-frozen-probe",
			 len == 1 ? 0 : (int)len, path);
		const char *expect = "EACCES";

		if (!strncmp(path, "/dev:", 5))
			/* A read-only mount where the mounts hold.  (No
			   unconfined control here: it would make the file in
			   the host's /dev.) */
			expect = denied;
		if (!strncmp(path, "/proc:", 6) || !strncmp(path, "/sys:", 5)) {
			/* Nothing is made there by nature: the file system's
			   own errno where its lookup fails (/proc's ENOENT
			   comes before any write access is asked); else the
			   read-only mount answers before the file system or
			   Landlock refuse a create, where the mounts hold. */
			word = WAY_TRY(way, WAY_UNCONFINED, "creat", probe);
			expect = strcmp(word, "ok") && strcmp(word, "EACCES") &&
					 strcmp(word, "EPERM")
				     ? strcpy(natural, word)
				     : denied;
		}
		word = WAY_TRY(way, WAY_RUN, "creat", probe);
		EXPECT_STREQ(expect, word)
		{
			TH_LOG("%s", probe);
		}
		n++;
	}
	EXPECT_LE(2, n);
	/* These two fail, and are named above. */
	EXPECT_STREQ("EACCES", WAY_TRY(way, WAY_RUN, "mkdir", "/jr2-x"));
	EXPECT_STREQ("EACCES", WAY_TRY(way, WAY_RUN, "creat", "/run/x.pid"));
	EXPECT_STREQ("ok", WAY_TRY(way, WAY_RUN, "creat", "/run/lock/x.pid"));
	EXPECT_STREQ("ok", WAY_TRY(way, WAY_RUN, "creat", FX_WORK "/x"));
	argv[2] = "--json";
	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	EXPECT_NE(NULL, strstr(out, "{\"path\": \"/run\", \"why\": "))
	TH_LOG("%s", out);
	argv[1] = "check";
	argv[2] = NULL;
	ASSERT_EQ(0, fx_run(argv, out, sizeof(out), &status));
	EXPECT_NE(NULL, strstr(out, "\nfrozen: /run: ")) TH_LOG("%s", out);
}

TEST_F(frozen_exec, A1_R3_ancestors_frozen_exec)
{
	struct way *way = &self->way;

	/* Control, unconfined. */
	ASSERT_EQ(0, test_creat(HX_MNT "/x0"));
	way->defaults = true;
	WAY_START(way);
	/* /mnt and /mnt/h/run are ancestors of the protected dir. */
	EXPECT_STREQ("EACCES", WAY_TRY(way, WAY_EXEC, "creat", HX_MNT "/x"));
	EXPECT_STREQ("EACCES",
		     WAY_TRY(way, WAY_EXEC, "creat", HX_ROOT "/run/x"));
	EXPECT_STREQ(way_write_denied(way, WAY_EXEC),
		     WAY_TRY(way, WAY_EXEC, "creat", "/dev/x"));
	EXPECT_STREQ("ok", WAY_TRY(way, WAY_EXEC, "creat", HX_ETC "/x"));
}

TEST_HARNESS_MAIN
