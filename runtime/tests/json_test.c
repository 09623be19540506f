// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one JSON string writer (runtime/json.h): exact bytes for UTF-8, control
 * characters and bytes that are not UTF-8, and each output parsed back by
 * Python's json module, whose reading of "<key>" and "<key>_hex" must give
 * the original bytes again.
 */
#include "helpers.h"

#include "json.h"

#define PYTHON "/usr/bin/python3"

/* argv[1]: a JSON object with member "s" (and "s_hex"); prints the hex of
   the bytes a reader recovers, as json.h tells it to. */
static const char roundtrip_py[] =
    "import json, sys\n"
    "d = json.loads(sys.argv[1])\n"
    "b = bytes.fromhex(d['s_hex']) if 's_hex' in d else d['s'].encode()\n"
    "print(b.hex(), 'hex' if 's_hex' in d else 'utf8')\n";

struct buf {
	char text[4096];
	size_t len;
};

static void emit_buf(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;

	if (n > sizeof(b->text) - 1 - b->len)
		n = sizeof(b->text) - 1 - b->len;
	memcpy(b->text + b->len, s, n);
	b->len += n;
	b->text[b->len] = '\0';
}

/* `{"s":...}` of s[0..n) by jr2_json_member(). */
static void member_object(struct buf *b, const char *s, size_t n)
{
	b->len = 0;
	emit_buf(b, "{", 1);
	jr2_json_member(emit_buf, b, "", "s", s, n);
	emit_buf(b, "}", 1);
}

/* Runs roundtrip_py on json; its one line of output into out, or "". */
static int python_reads(const char *json, char *out, size_t size)
{
	int fds[2], status;
	ssize_t got;
	size_t len = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(fds[1], 1);
		execl(PYTHON, PYTHON, "-c", roundtrip_py, json, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len < size - 1 &&
	       (got = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	out[strcspn(out, "\n")] = '\0';
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void to_hex(const char *s, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)s[i]);
	out[2 * n] = '\0';
}

/* The writer's output is s_json exactly, and Python recovers s's bytes
   from it through the member (and "_hex" note when how is "hex"). */
#define EXPECT_ROUNDTRIP(s, n, s_json, how)                                   \
	do {                                                                  \
		struct buf b;                                                 \
		char want[2 * sizeof(b.text) + 8], got[2 * sizeof(b.text)];   \
		member_object(&b, s, n);                                      \
		ASSERT_STREQ(s_json, b.text);                                 \
		if (access(PYTHON, X_OK))                                     \
			SKIP(return, "no " PYTHON " to parse the JSON back: " \
				     "apt-get install python3");              \
		to_hex(s, n, want);                                           \
		strcat(want, " " how);                                        \
		ASSERT_EQ(0, python_reads(b.text, got, sizeof(got)));         \
		ASSERT_STREQ(want, got);                                      \
	} while (0)

TEST(utf8_passes_through)
{
	static const char s[] = "/tmp/d\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x94\x92";

	ASSERT_TRUE(jr2_json_utf8_valid(s, sizeof(s) - 1));
	EXPECT_ROUNDTRIP(s, sizeof(s) - 1,
			 "{\"s\":\""
			 "/tmp/d\xc3\xa9/\xe2\x82\xac/"
			 "\xf0\x9f\x94\x92"
			 "\"}",
			 "utf8");
}

TEST(quotes_backslashes_and_control_characters_escaped)
{
	static const char s[] = "a\"b\\c\td\ne\x01\x1f\x7f";

	EXPECT_ROUNDTRIP(s, sizeof(s) - 1,
			 "{\"s\":\"a\\\"b\\\\c\\u0009d\\u000ae\\u0001\\u001f"
			 "\\u007f\"}",
			 "utf8");
	/* A NUL inside the counted bytes is kept, not an end. */
	EXPECT_ROUNDTRIP("x\0y", 3, "{\"s\":\"x\\u0000y\"}", "utf8");
}

TEST(not_utf8_escaped_byte_by_byte_with_hex_note)
{
	static const char s[] = "/tmp/a\xff"
				"b";

	ASSERT_FALSE(jr2_json_utf8_valid(s, sizeof(s) - 1));
	EXPECT_ROUNDTRIP(
	    s, sizeof(s) - 1,
	    "{\"s\":\"/tmp/a\\u00ffb\",\"s_hex\":\"2f746d702f61ff62\"}", "hex");
}

TEST(mixed_utf8_and_bad_bytes_round_trip)
{
	/* é (valid) and 0xe9 (a lead byte cut short) read alike as text:
	   only the note tells them apart. */
	static const char s[] = "d\xc3\xa9\xe9\xff";

	EXPECT_ROUNDTRIP(s, sizeof(s) - 1,
			 "{\"s\":\"d\xc3\xa9\\u00e9\\u00ff\",\"s_hex\":"
			 "\"64c3a9e9ff\"}",
			 "hex");
}

TEST(invalid_forms_each_refused)
{
	static const struct {
		const char *s;
		const char *json;
	} cases[] = {
	    {"\xc0\xaf", "\"\\u00c0\\u00af\""}, /* overlong '/' */
	    {"\xe0\x80\xaf", "\"\\u00e0\\u0080\\u00af\""}, /* overlong */
	    {"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""}, /* surrogate */
	    {"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""},
	    {"\xe2\x82", "\"\\u00e2\\u0082\""}, /* cut short */
	    {"\x80x", "\"\\u0080x\""}, /* stray */
	    {"\xf8\x88\x80\x80\x80", "\"\\u00f8\\u0088\\u0080\\u0080\\u0080\""},
	};
	struct buf b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b.len = 0;
		ASSERT_FALSE(jr2_json_string(emit_buf, &b, cases[i].s,
					     strlen(cases[i].s)));
		ASSERT_STREQ(cases[i].json, b.text);
	}
	/* The largest valid forms of each length pass. */
	b.len = 0;
	ASSERT_TRUE(jr2_json_string(emit_buf, &b,
				    "\x7f\xdf\xbf\xef\xbf\xbf"
				    "\xf4\x8f\xbf\xbf",
				    10));
	ASSERT_STREQ("\"\\u007f\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf\"", b.text);
}

TEST_HARNESS_MAIN
