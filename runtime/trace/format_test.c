// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of jr2-trace's pure half: events to JSON lines, path assembly
 * from leaf-first components, kallsyms matching.  No BPF, any kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "format.h"

/* Components go leaf first, NUL-separated, as denials.bpf.c writes them. */
static void set_path(struct jr2_denial *e, const char *const parts[])
{
	size_t off = 0;

	e->path_parts = 0;
	for (int i = 0; parts[i]; i++) {
		size_t n = strlen(parts[i]) + 1;

		memcpy(e->path + off, parts[i], n);
		off += n;
		e->path_parts++;
	}
}

static void base_event(struct jr2_denial *e, enum jr2_point point)
{
	memset(e, 0, sizeof(*e));
	e->time_ns = 1500000000ULL; /* 1.5 s after the offset below */
	e->pid = 42;
	e->tgid = 41;
	e->ret = -EACCES;
	e->point = point;
	e->source = JR2_SOURCE_FEXIT;
	e->landlock = 1;
	strcpy(e->comm, "cat");
}

TEST(path_is_assembled_root_first)
{
	const char *const parts[] = {"secret", "jr2", "run", "tmp", NULL};
	struct jr2_denial e;
	char out[64];

	base_event(&e, JR2_POINT_file_open);
	set_path(&e, parts);
	ASSERT_EQ((int)strlen("/tmp/run/jr2/secret"),
		  jr2_denial_path(&e, out, sizeof(out)));
	ASSERT_STREQ("/tmp/run/jr2/secret", out);
}

TEST(path_without_components_is_root)
{
	struct jr2_denial e;
	char out[8];

	base_event(&e, JR2_POINT_file_open);
	ASSERT_EQ(1, jr2_denial_path(&e, out, sizeof(out)));
	ASSERT_STREQ("/", out);
}

TEST(path_too_long_for_buffer_fails)
{
	const char *const parts[] = {"secret", "jr2", NULL};
	struct jr2_denial e;
	char out[12];

	base_event(&e, JR2_POINT_file_open);
	set_path(&e, parts);
	ASSERT_EQ(-1, jr2_denial_path(&e, out, 8));
	/* Exactly "/jr2/secret" plus its NUL fits in 12 bytes. */
	ASSERT_EQ(11, jr2_denial_path(&e, out, sizeof(out)));
}

TEST(open_denial_json_has_every_field)
{
	const char *const parts[] = {"secret", "tmp", NULL};
	struct jr2_denial e;
	char out[1024];

	base_event(&e, JR2_POINT_file_open);
	set_path(&e, parts);
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_STREQ(
	    "{\"time\":\"1970-01-01T00:00:01.500000000Z\",\"pid\":42,"
	    "\"tgid\":41,\"comm\":\"cat\",\"hook\":\"hook_file_open\","
	    "\"source\":\"fexit\",\"operation\":\"open\","
	    "\"path\":\"/tmp/secret\",\"errno\":13,\"error\":\"EACCES\","
	    "\"lsm\":\"landlock\"}\n",
	    out);
}

TEST(request_fields_follow_when_the_kernel_tells)
{
	struct jr2_denial e;
	char out[1024];

	base_event(&e, JR2_POINT_task_kill);
	e.ret = -EPERM;
	e.target_pid = 1;
	e.has_request = 1;
	e.request_type = 6;
	e.domain = 0x1a2b;
	e.layer = 2;
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"operation\":\"signal\",\"target_pid\":1,"
				    "\"errno\":1,\"error\":\"EPERM\""));
	ASSERT_NE(NULL,
		  strstr(out, "\"request\":\"scope_signal\",\"access\":"
			      "\"0x0\",\"domain\":\"1a2b\",\"layer\":2}"));
}

TEST(security_source_is_not_attributed_without_request)
{
	struct jr2_denial e;
	char out[1024];

	base_event(&e, JR2_POINT_file_open);
	e.source = JR2_SOURCE_SECURITY;
	e.landlock = 0;
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"hook\":\"security_file_open\","
				    "\"source\":\"security\""));
	ASSERT_NE(NULL, strstr(out, "\"lsm\":null"));
}

TEST(comm_and_path_are_escaped)
{
	const char *const parts[] = {"a\"b\\c\n", NULL};
	struct jr2_denial e;
	char out[1024];

	base_event(&e, JR2_POINT_path_unlink);
	strcpy(e.comm, "x\ty");
	set_path(&e, parts);
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"comm\":\"x\\u0009y\""));
	ASSERT_NE(NULL, strstr(out, "\"path\":\"/a\\\"b\\\\c\\u000a\""));
}

/* The hex of the bytes Python's json module recovers from an event's
   "path" (or "path_hex", runtime/json.h), then "hex" or "utf8". */
static int python_path(const char *json, char *out, size_t size)
{
	static const char py[] =
	    "import json, sys\n"
	    "d = json.loads(sys.argv[1])\n"
	    "h = d.get('path_hex')\n"
	    "b = bytes.fromhex(h) if h else d['path'].encode()\n"
	    "print(b.hex(), 'hex' if h else 'utf8', d['comm'])\n";
	int fds[2], status;
	ssize_t got;
	size_t len = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(fds[1], 1);
		execl("/usr/bin/python3", "python3", "-c", py, json,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len < size - 1 &&
	       (got = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	out[strcspn(out, "\n")] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST(path_not_utf8_round_trips_through_json)
{
	/* "/tmp/d\xc3\xa9\xff": é in UTF-8, then a byte that is not UTF-8. */
	const char *const parts[] = {"d\xc3\xa9\xff", "tmp", NULL};
	struct jr2_denial e;
	char out[1024], got[256];

	base_event(&e, JR2_POINT_file_open);
	strcpy(e.comm, "d\xc3\xa9");
	set_path(&e, parts);
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"comm\":\"d\xc3\xa9\","));
	ASSERT_NE(NULL, strstr(out, "\"path\":\"/tmp/d\xc3\xa9\\u00ff\","
				    "\"path_hex\":\"2f746d702f64c3a9ff\""));
	if (access("/usr/bin/python3", X_OK))
		SKIP(return, "no /usr/bin/python3 to parse the event back: "
			     "apt-get install python3");
	ASSERT_EQ(0, python_path(out, got, sizeof(got)));
	ASSERT_STREQ("2f746d702f64c3a9ff hex d\xc3\xa9", got);
	/* The same name in UTF-8 only: no note, the text is the bytes. */
	const char *const utf8[] = {"d\xc3\xa9", "tmp", NULL};

	set_path(&e, utf8);
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_EQ(NULL, strstr(out, "path_hex"));
	ASSERT_EQ(0, python_path(out, got, sizeof(got)));
	ASSERT_STREQ("2f746d702f64c3a9 utf8 d\xc3\xa9", got);
}

TEST(abstract_and_unnamed_sockets)
{
	struct jr2_denial e;
	char out[1024];

	base_event(&e, JR2_POINT_unix_stream_connect);
	e.ret = -EPERM;
	e.family = 1;
	memcpy(e.path, "\0jr2-sock", 9);
	e.sun_len = 9;
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"socket\":\"@jr2-sock\""));
	e.sun_len = 0;
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"socket\":null"));
}

TEST(tcp_port_is_shown)
{
	struct jr2_denial e;
	char out[1024];

	base_event(&e, JR2_POINT_socket_connect);
	e.family = 10;
	e.port = 443;
	ASSERT_LT(0, jr2_denial_json(&e, 0, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "\"family\":10,\"port\":443,"));
}

TEST(small_buffer_fails_instead_of_cutting)
{
	struct jr2_denial e;
	char out[32], big[1024];

	base_event(&e, JR2_POINT_file_open);
	ASSERT_EQ(-1, jr2_denial_json(&e, 0, out, sizeof(out)));
	/* A point number from a newer BPF object is refused, not guessed. */
	e.point = JR2_POINT_COUNT;
	ASSERT_EQ(-1, jr2_denial_json(&e, 0, big, sizeof(big)));
}

TEST(kallsyms_matches_name_and_clones_only)
{
	char sym[64];

	ASSERT_TRUE(jr2_ksym_match("ffffffff81afbe50 t hook_file_open\n",
				   "hook_file_open", sym, sizeof(sym)));
	ASSERT_STREQ("hook_file_open", sym);
	ASSERT_TRUE(jr2_ksym_match("0000000000000000 t hook_file_open.isra.0\n",
				   "hook_file_open", sym, sizeof(sym)));
	ASSERT_STREQ("hook_file_open.isra.0", sym);
	ASSERT_FALSE(jr2_ksym_match("ffffffff81afbe50 t hook_file_open_x\n",
				    "hook_file_open", sym, sizeof(sym)));
	ASSERT_FALSE(jr2_ksym_match("ffffffff81afbe50 d hook_file_open\n",
				    "hook_file_open", sym, sizeof(sym)));
	ASSERT_FALSE(
	    jr2_ksym_match("garbage", "hook_file_open", sym, sizeof(sym)));
}

TEST(every_point_has_names)
{
	for (int i = 0; i < JR2_POINT_COUNT; i++) {
		ASSERT_EQ(0, strncmp("hook_", jr2_points[i].hook, 5));
		ASSERT_EQ(0, strncmp("security_", jr2_points[i].security, 9));
		ASSERT_NE(NULL, jr2_points[i].operation);
	}
}

TEST(audit_record_split_and_fields)
{
	const char *text = "audit(1764503000.123:456): domain=1e99670e7 "
			   "blockers=fs.read_file path=\"/tmp/p/secret\" "
			   "dev=\"tmpfs\" ino=3";
	unsigned long long serial = 0;
	const char *fields = NULL;
	char value[64];

	ASSERT_TRUE(jr2_audit_split(text, &serial, &fields));
	ASSERT_EQ(456ULL, serial);
	ASSERT_EQ(0, strncmp("domain=", fields, 7));
	ASSERT_TRUE(jr2_audit_field(fields, "blockers", value, sizeof(value)));
	ASSERT_STREQ("fs.read_file", value);
	ASSERT_TRUE(jr2_audit_field(fields, "path", value, sizeof(value)));
	ASSERT_STREQ("/tmp/p/secret", value);
	ASSERT_FALSE(jr2_audit_field(fields, "pid", value, sizeof(value)));
	ASSERT_FALSE(jr2_audit_split("type=1423 msg=x", &serial, &fields));
}

TEST(audit_field_skips_longer_keys)
{
	char value[16];

	/* "ppid=1" must not be read as "pid". */
	ASSERT_TRUE(jr2_audit_field("arch=c000003e ppid=1 pid=130 comm=\"cat\"",
				    "pid", value, sizeof(value)));
	ASSERT_STREQ("130", value);
}

TEST(audit_access_record_as_json)
{
	char out[1024];

	ASSERT_LT(0, jr2_audit_json(1423, 7,
				    "domain=1a blockers=fs.make_dir "
				    "path=\"/tmp/p\" dev=\"tmpfs\" ino=2",
				    131, out, sizeof(out)));
	ASSERT_STREQ("{\"source\":\"audit\",\"type\":\"landlock_access\","
		     "\"serial\":7,\"pid\":131,\"domain\":\"1a\","
		     "\"blockers\":\"fs.make_dir\",\"path\":\"/tmp/p\","
		     "\"record\":\"domain=1a blockers=fs.make_dir "
		     "path=\\\"/tmp/p\\\" dev=\\\"tmpfs\\\" ino=2\"}\n",
		     out);
}

TEST_HARNESS_MAIN
