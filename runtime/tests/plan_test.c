// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pure compiler (plan.c) on trees drawn as data, and the config parser.
 * No syscall: the tree below is what each test describes.
 */
#include "helpers.h"

#include <sys/sysmacros.h>

#include "landlock_uapi.h"
#include "plan.h"
#include "policy.h"

#define LIST JR2_ACCESS_FS_READ_DIR
#define RO_RIGHTS                                          \
	(JR2_ACCESS_FS_EXECUTE | JR2_ACCESS_FS_READ_FILE | \
	 JR2_ACCESS_FS_READ_DIR)

JR2T_GROUP(plan);
JR2T_GROUP(config);

static uint64_t next_ino = 100;

static void target(struct jr2_fsview *v, const char *path, enum jr2_kind kind,
		   enum jr2_ftype type)
{
	struct jr2_target *t;

	v->targets = realloc(v->targets, (v->n_targets + 1) * sizeof(*t));
	t = &v->targets[v->n_targets++];
	*t = (struct jr2_target){.path = strdup(path),
				 .kind = kind,
				 .type = type,
				 .dev = 1,
				 .ino = next_ino++,
				 .origin = strdup("test")};
}

/* dir("/run", "jr2/", "pid", "lock/", "link@") : '/' dir, '@' symlink,
   '=' a file with 2 hard links. */
static void dir(struct jr2_fsview *v, const char *path, ...)
{
	struct jr2_fsdir *d;
	const char *name;
	va_list ap;

	v->dirs = realloc(v->dirs, (v->n_dirs + 1) * sizeof(*d));
	d = &v->dirs[v->n_dirs++];
	*d = (struct jr2_fsdir){
	    .path = strdup(path), .dev = 1, .ino = next_ino++};
	va_start(ap, path);
	while ((name = va_arg(ap, const char *))) {
		size_t len = strlen(name);
		struct jr2_fsentry *e;
		char last = name[len - 1];

		d->entries =
		    realloc(d->entries, (d->n_entries + 1) * sizeof(*e));
		e = &d->entries[d->n_entries++];
		*e = (struct jr2_fsentry){
		    .dev = 1, .ino = next_ino++, .nlink = last == '=' ? 2 : 1};
		e->type = last == '/'	? JR2_FT_DIR
			  : last == '@' ? JR2_FT_SYMLINK
					: JR2_FT_FILE;
		e->name = strndup(name, strchr("/@=", last) ? len - 1 : len);
	}
	va_end(ap);
}

/* The protected dir's inode, as an entry of its parent. */
static void same_inode(struct jr2_fsview *v, const char *dir_path,
		       const char *name, const char *target_path)
{
	for (size_t i = 0; i < v->n_dirs; i++) {
		if (strcmp(v->dirs[i].path, dir_path))
			continue;
		for (size_t e = 0; e < v->dirs[i].n_entries; e++)
			if (!strcmp(v->dirs[i].entries[e].name, name))
				for (size_t t = 0; t < v->n_targets; t++)
					if (!strcmp(v->targets[t].path,
						    target_path))
						v->dirs[i].entries[e].ino =
						    v->targets[t].ino;
	}
}

/*
 * /                  ancestor: list only
 * ├── bin/           full
 * ├── etc/hostname   file rights only
 * ├── bin-link@      no rule (symlink)
 * └── run/           ancestor (no rule: / already lists)
 *     ├── pid        file rights
 *     ├── lock/      full
 *     └── jr2/       protected: no rule
 */
TEST_F(plan, R1_R7_protected_dir_ancestors_list_siblings_full)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;
	const uint64_t full = jr2_rights_full(jr2_abi_fs_rights(7));

	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "bin/", "hostname", "bin-link@", "run/", NULL);
	dir(&v, "/run", "pid", "lock/", "jr2/", NULL);
	ASSERT_EQ(0, jr2_plan_build(&v, 7, &p, &err));
	EXPECT_EQ(LIST, rule_of(&p, "/"));
	EXPECT_EQ(-1, rule_of(&p, "/run"));
	EXPECT_EQ(-1, rule_of(&p, "/run/jr2"));
	EXPECT_EQ(-1, rule_of(&p, "/bin-link"));
	/* Siblings: full, less what the ancestors already grant. */
	EXPECT_EQ(full & ~LIST, rule_of(&p, "/bin"));
	EXPECT_EQ(full & ~LIST, rule_of(&p, "/run/lock"));
	EXPECT_EQ(jr2_rights_file_only(full), rule_of(&p, "/hostname"));
	EXPECT_EQ(jr2_rights_file_only(full), rule_of(&p, "/run/pid"));
	EXPECT_EQ(0, jr2_rights_file_only(full) & JR2_ACCESS_FS_READ_DIR);
	EXPECT_EQ(5, p.n_rules); /* /, /bin, /hostname, /run/{pid,lock} */
	EXPECT_TRUE(has_note(&p, "protected: '/run/jr2'"));
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

/* ABI 9: RESOLVE_UNIX granted above (so in) the protected dir (R8). */
/* No restricted path at all (no default exists): "/" in full. */
TEST_F(plan, A1_nothing_restricted_everything_allowed)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;

	ASSERT_EQ(0, jr2_plan_build(&v, 7, &p, &err));
	ASSERT_EQ(1, p.n_rules);
	/* All but making device nodes, withheld everywhere. */
	EXPECT_EQ(jr2_abi_fs_rights(7) &
		      ~(JR2_ACCESS_FS_MAKE_CHAR | JR2_ACCESS_FS_MAKE_BLOCK),
		  rule_of(&p, "/"));
	jr2_plan_free(&p);
}

TEST_F(plan, R8_resolve_unix_granted_at_abi_9)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;

	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "run/", NULL);
	dir(&v, "/run", "jr2/", NULL);
	ASSERT_EQ(0, jr2_plan_build(&v, 9, &p, &err));
	EXPECT_EQ(LIST | JR2_ACCESS_FS_RESOLVE_UNIX, rule_of(&p, "/"));
	EXPECT_NE(0, p.handled_fs & JR2_ACCESS_FS_RESOLVE_UNIX);
	jr2_plan_free(&p);
	ASSERT_EQ(0, jr2_plan_build(&v, 8, &p, &err));
	EXPECT_EQ(LIST, rule_of(&p, "/"));
	EXPECT_EQ(0, p.handled_fs & JR2_ACCESS_FS_RESOLVE_UNIX);
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

/*
 * /                 ancestor of both: list (the intersection)
 * ├── run/          ancestor of jr2: nothing more
 * │   └── jr2/      protected
 * └── srv/          ancestor of repos only: read, execute, list
 *     ├── notes     file: full file rights
 *     └── repos/    read-only: nothing more than srv gives
 */
TEST_F(plan, O1_A1_read_only_and_protected_intersect)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;
	const uint64_t full = jr2_rights_full(jr2_abi_fs_rights(3));

	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	target(&v, "/srv/repos", JR2_KIND_READ_ONLY, JR2_FT_DIR);
	dir(&v, "/", "run/", "srv/", NULL);
	dir(&v, "/run", "jr2/", NULL);
	dir(&v, "/srv", "notes", "repos/", NULL);
	ASSERT_EQ(0, jr2_plan_build(&v, 3, &p, &err));
	EXPECT_EQ(LIST, rule_of(&p, "/"));
	EXPECT_EQ(-1, rule_of(&p, "/run"));
	EXPECT_EQ(RO_RIGHTS & ~LIST, rule_of(&p, "/srv"));
	EXPECT_EQ(-1, rule_of(&p, "/srv/repos"));
	EXPECT_EQ(jr2_rights_file_only(full) & ~RO_RIGHTS,
		  rule_of(&p, "/srv/notes"));
	EXPECT_EQ(0, p.scoped); /* ABI 3: no scopes */
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

/*
 * /opt/jr2/          read-only tree holding a protected dir: list only
 * ├── bin/           read-only rights (a sibling inside the tree)
 * └── secret/        protected
 */
TEST_F(plan, O2_R1_protected_inside_read_only)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;

	target(&v, "/opt/jr2", JR2_KIND_READ_ONLY, JR2_FT_DIR);
	target(&v, "/opt/jr2/secret", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "opt/", NULL);
	dir(&v, "/opt", "jr2/", "other/", NULL);
	dir(&v, "/opt/jr2", "bin/", "secret/", "VERSION", NULL);
	ASSERT_EQ(0, jr2_plan_targets(v.targets, &v.n_targets, &p.notes, &err));
	ASSERT_EQ(0, jr2_plan_build(&v, 7, &p, &err));
	EXPECT_EQ(LIST, rule_of(&p, "/"));
	EXPECT_EQ(-1, rule_of(&p, "/opt/jr2"));
	EXPECT_EQ(RO_RIGHTS & ~LIST, rule_of(&p, "/opt/jr2/bin"));
	EXPECT_EQ(jr2_rights_file_only(RO_RIGHTS),
		  rule_of(&p, "/opt/jr2/VERSION"));
	EXPECT_EQ(-1, rule_of(&p, "/opt/jr2/secret"));
	EXPECT_EQ(jr2_rights_full(jr2_abi_fs_rights(7)) & ~LIST,
		  rule_of(&p, "/opt/other"));
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

TEST_F(plan, R9_hard_linked_sibling_gets_no_rule)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;

	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "run/", NULL);
	dir(&v, "/run", "jr2/", "copy=", NULL);
	ASSERT_EQ(0, jr2_plan_build(&v, 7, &p, &err));
	EXPECT_EQ(-1, rule_of(&p, "/run/copy"));
	EXPECT_TRUE(has_note(&p, "'/run/copy' has 2 hard links"));
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

/* A sibling that is the protected dir's inode (an unseen bind mount). */
TEST_F(plan, R9_sibling_with_protected_inode_refused)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;

	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "run/", "mnt/", NULL);
	dir(&v, "/run", "jr2/", NULL);
	same_inode(&v, "/", "mnt", "/run/jr2");
	ASSERT_EQ(-1, jr2_plan_build(&v, 7, &p, &err));
	EXPECT_EQ(EEXIST, err.code);
	EXPECT_FALSE(err.bad_input);
	EXPECT_NE(NULL, strstr(err.msg, "'/mnt' is protected dir '/run/jr2'"));
	jr2_fsview_free(&v);
}

TEST_F(plan, R1_nested_protected_dirs_merged)
{
	struct jr2_target t[3] = {
	    {strdup("/run/jr2/inner"), JR2_KIND_PROTECT, JR2_FT_DIR, 1, 1,
	     strdup("protected dir")},
	    {strdup("/run/jr2"), JR2_KIND_PROTECT, JR2_FT_DIR, 1, 2,
	     strdup("protected dir")},
	    {strdup("/repos/a"), JR2_KIND_READ_ONLY, JR2_FT_DIR, 1, 3,
	     strdup("read-only tree")},
	};
	struct jr2_strv notes = {0};
	struct jr2_err err;
	size_t n = 3;

	ASSERT_EQ(0, jr2_plan_targets(t, &n, &notes, &err));
	ASSERT_EQ(2, n);
	EXPECT_STREQ("/run/jr2", t[0].path);
	EXPECT_STREQ("/repos/a", t[1].path);
	ASSERT_EQ(1, notes.n);
	EXPECT_STREQ("protected dir '/run/jr2/inner' is inside protected dir "
		     "'/run/jr2': covered by it",
		     notes.v[0]);
	for (size_t i = 0; i < n; i++) {
		free(t[i].path);
		free(t[i].origin);
	}
	for (size_t i = 0; i < notes.n; i++)
		free(notes.v[i]);
	free(notes.v);
}

TEST_F(plan, R1_bad_targets_refused)
{
	struct jr2_target t[2] = {
	    {strdup("/run/jr2"), JR2_KIND_PROTECT, JR2_FT_DIR, 1, 1,
	     strdup("protected dir")},
	    {strdup("/run/jr2/repos"), JR2_KIND_READ_ONLY, JR2_FT_DIR, 1, 2,
	     strdup("read-only tree")},
	};
	struct jr2_strv notes = {0};
	struct jr2_err err;
	size_t n = 2;

	ASSERT_EQ(-1, jr2_plan_targets(t, &n, &notes, &err));
	EXPECT_TRUE(err.bad_input);
	EXPECT_STREQ("read-only tree '/run/jr2/repos' is inside protected dir "
		     "'/run/jr2': nothing in a protected dir can be read; drop "
		     "one of them",
		     err.msg);
	t[1].kind = JR2_KIND_PROTECT;
	t[0].type = JR2_FT_SYMLINK;
	ASSERT_EQ(-1, jr2_plan_targets(t, &n, &notes, &err));
	EXPECT_EQ(ELOOP, err.code);
	EXPECT_STREQ("protected dir '/run/jr2' is a symlink: give the path it "
		     "points to (rules never follow symlinks)",
		     err.msg);
	for (size_t i = 0; i < n; i++) {
		free(t[i].path);
		free(t[i].origin);
	}
}

/*
 * /dev as a DEVICES folder: list only; the allow-list by name (and, for a
 * file, by its device number); everything else no rule; frozen.
 */
TEST_F(plan, R9_devices_allow_list)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;
	const uint64_t handled = jr2_abi_fs_rights(7);
	bool dev_frozen = false;

	target(&v, "/dev", JR2_KIND_DEVICES, JR2_FT_DIR);
	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "dev/", "run/", NULL);
	dir(&v, "/run", "jr2/", NULL);
	dir(&v, "/dev", "null", "zero", "sda", "mem", "pts/", "shm/", "fd@",
	    "disks/", NULL);
	for (size_t e = 0; e < v.dirs[2].n_entries; e++) {
		struct jr2_fsentry *entry = &v.dirs[2].entries[e];

		if (!strcmp(entry->name, "null"))
			entry->rdev = makedev(1, 3);
		if (!strcmp(entry->name, "zero")) /* a disk named zero */
			entry->rdev = makedev(8, 0);
	}
	ASSERT_EQ(0, jr2_plan_build(&v, 7, &p, &err));
	EXPECT_EQ(LIST, rule_of(&p, "/"));
	EXPECT_EQ(-1, rule_of(&p, "/dev")); /* "/" lists already */
	EXPECT_EQ(jr2_rights_device(handled, "null", false) & ~LIST,
		  rule_of(&p, "/dev/null"));
	EXPECT_NE(0, rule_of(&p, "/dev/null") & JR2_ACCESS_FS_IOCTL_DEV);
	EXPECT_EQ(-1, rule_of(&p, "/dev/zero"));
	EXPECT_EQ(-1, rule_of(&p, "/dev/sda"));
	EXPECT_EQ(-1, rule_of(&p, "/dev/mem"));
	EXPECT_EQ(-1, rule_of(&p, "/dev/fd"));
	EXPECT_EQ(-1, rule_of(&p, "/dev/disks"));
	EXPECT_EQ(jr2_rights_full(handled) & ~LIST, rule_of(&p, "/dev/shm"));
	EXPECT_EQ(0, rule_of(&p, "/dev/pts") & JR2_ACCESS_FS_MAKE_REG);
	EXPECT_NE(0, rule_of(&p, "/dev/pts") & JR2_ACCESS_FS_IOCTL_DEV);
	EXPECT_TRUE(has_note(&p, "/dev: 4 entries off the allow-list"));
	for (size_t i = 0; i < p.frozen.n; i++)
		dev_frozen |= !strcmp(p.frozen.v[i], "/dev");
	EXPECT_TRUE(dev_frozen);
	/* The rights at a path: the OR of its rules and its ancestors'. */
	EXPECT_EQ(0, jr2_plan_rights_at(&p, "/dev/sda", false));
	EXPECT_EQ(LIST | (uint64_t)rule_of(&p, "/dev/shm"),
		  jr2_plan_rights_at(&p, "/dev/shm/x/y", true));
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

/* Every rule carries the dev and ino the compiler saw, siblings too. */
TEST_F(plan, R9_sibling_rules_carry_dev_and_ino)
{
	struct jr2_fsview v = {0};
	struct jr2_ruleset_plan p;
	struct jr2_err err;

	target(&v, "/run/jr2", JR2_KIND_PROTECT, JR2_FT_DIR);
	dir(&v, "/", "run/", "tmp/", "file", NULL);
	dir(&v, "/run", "jr2/", "lock/", NULL);
	ASSERT_EQ(0, jr2_plan_build(&v, 7, &p, &err));
	for (size_t i = 0; i < p.n_rules; i++) {
		EXPECT_NE(0, p.rules[i].ino)
		{
			TH_LOG("rule '%s' has no inode", p.rules[i].path);
		}
	}
	ASSERT_EQ(1, p.n_targets);
	EXPECT_STREQ("/run/jr2", p.targets[0].path);
	EXPECT_NE(0, p.targets[0].ino);
	jr2_plan_free(&p);
	jr2_fsview_free(&v);
}

TEST_F(plan, G4_ancestors_of_every_target)
{
	struct jr2_target t[2] = {
	    {(char *)"/a/b/c", JR2_KIND_PROTECT, JR2_FT_DIR, 0, 0, NULL},
	    {(char *)"/a/d", JR2_KIND_READ_ONLY, JR2_FT_DIR, 0, 0, NULL},
	};
	struct jr2_strv out = {0};

	jr2_plan_ancestors(t, 2, &out);
	ASSERT_EQ(3, out.n);
	EXPECT_STREQ("/a/b", out.v[0]);
	EXPECT_STREQ("/a", out.v[1]);
	EXPECT_STREQ("/", out.v[2]);
	for (size_t i = 0; i < out.n; i++)
		free(out.v[i]);
	free(out.v);
}

static const char config_text[] = "# jr2 policy\n"
				  "\n"
				  "protect /run/jr2\n"
				  "  read-only   /opt/my tools  \n"
				  "read-only //repos/\n";

TEST_F(config, R1_O1_directives_parsed)
{
	struct jr2_policy policy;
	struct jr2_err err;

	jr2_policy_init(&policy);
	ASSERT_EQ(
	    0, jr2_policy_parse_config(&policy, config_text, "t.conf", &err));
	ASSERT_EQ(1, policy.protect.n);
	EXPECT_STREQ("/run/jr2", policy.protect.v[0]);
	ASSERT_EQ(2, policy.read_only.n);
	EXPECT_STREQ("/opt/my tools", policy.read_only.v[0]);
	EXPECT_STREQ("/repos", policy.read_only.v[1]);
	EXPECT_FALSE(policy.defaults);
	jr2_policy_free(&policy);
}

TEST_F(config, R1_errors_name_file_and_line)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"protect /a\n\nprotekt /b\n",
	     "config 'p.conf' line 3: unknown directive 'protekt': write "
	     "'protect PATH' or 'read-only PATH'"},
	    {"# c\nread-only\n",
	     "config 'p.conf' line 2: 'read-only' needs a path: write "
	     "'read-only /absolute/path'"},
	    {"protect run/jr2\n",
	     "config 'p.conf' line 1: 'run/jr2' is a relative path: give an "
	     "absolute path (starting with /)"},
	    {"\n\n\n\nprotect /run/../etc\n",
	     "config 'p.conf' line 5: '/run/../etc' has a '..' component: "
	     "give the path without '.' or '..'"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct jr2_policy policy;
		struct jr2_err err;

		jr2_policy_init(&policy);
		EXPECT_EQ(-1, jr2_policy_parse_config(&policy, cases[i].text,
						      "p.conf", &err));
		EXPECT_TRUE(err.bad_input);
		EXPECT_STREQ(cases[i].msg, err.msg);
		jr2_policy_free(&policy);
	}
}

TEST_F(config, G4_defaults)
{
	struct jr2_policy policy;

	jr2_policy_init(&policy);
	jr2_policy_set_defaults(&policy);
	EXPECT_TRUE(policy.defaults);
	ASSERT_EQ(1, policy.protect.n);
	EXPECT_STREQ("/run/jr2", policy.protect.v[0]);
	ASSERT_EQ(2, policy.read_only.n);
	EXPECT_STREQ("/repos", policy.read_only.v[0]);
	EXPECT_STREQ("/opt/jr2", policy.read_only.v[1]);
	jr2_policy_free(&policy);
}

/* The CA bundles of jr2's trust variables, and no more. */
TEST_F(config, G4_defaults_ca_bundles_from_environment)
{
	struct jr2_policy policy;

	clearenv();
	setenv("SSL_CERT_FILE", "/opt/jr2/ca/roots.pem", 1);
	setenv("GIT_SSL_CAINFO", "/etc//ssl/mine.pem", 1);
	setenv("CURL_CA_BUNDLE", "/opt/jr2/ca/roots.pem", 1); /* same */
	setenv("REQUESTS_CA_BUNDLE", "relative.pem", 1); /* skipped */
	setenv("NODE_EXTRA_CA_CERTS", "", 1);
	jr2_policy_init(&policy);
	jr2_policy_set_defaults(&policy);
	ASSERT_EQ(2, policy.ca_bundles.n);
	ASSERT_EQ(2, policy.ca_vars.n);
	EXPECT_STREQ("/opt/jr2/ca/roots.pem", policy.ca_bundles.v[0]);
	EXPECT_STREQ("SSL_CERT_FILE", policy.ca_vars.v[0]);
	EXPECT_STREQ("/etc/ssl/mine.pem", policy.ca_bundles.v[1]);
	EXPECT_STREQ("GIT_SSL_CAINFO", policy.ca_vars.v[1]);
	EXPECT_EQ(2, policy.read_only.n);
	jr2_policy_free(&policy);
	EXPECT_EQ(0, policy.ca_bundles.n);
}

TEST_HARNESS_MAIN
