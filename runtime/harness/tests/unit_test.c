// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the harness's pure code: SHA-256 from libsodium (FIPS 180-4
 * vectors, so a changed or badly linked library is seen), the
 * request parser (good, malformed, truncated, oversized), the composition
 * of the two environments (E1-E3) and the spawner's messages (spawner.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "kselftest_harness.h"

#include "config.h"
#include "env.h"
#include "request.h"
#include "spawner.h"
#include "digest.h"
#include "standins.h"

static void hex(const uint8_t digest[JR2_SHA256_LEN], char out[65])
{
	for (int i = 0; i < JR2_SHA256_LEN; i++)
		sprintf(out + 2 * i, "%02x", digest[i]);
}

TEST(sha256_vectors)
{
	/* FIPS 180-4 examples and the empty string. */
	static const struct {
		const char *input, *digest;
	} vectors[] = {
	    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b"
		 "855"},
	    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2"
		    "0015ad"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c"
	     "1"},
	};
	uint8_t digest[JR2_SHA256_LEN];
	char text[65];

	ASSERT_EQ(0, jr2_crypto_init());
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		jr2_sha256(vectors[i].input, strlen(vectors[i].input), digest);
		hex(digest, text);
		ASSERT_STREQ(vectors[i].digest, text);
	}
}

TEST(sha256_million_a_in_pieces)
{
	crypto_hash_sha256_state ctx;
	uint8_t digest[JR2_SHA256_LEN];
	char chunk[1000], text[65];

	ASSERT_EQ(0, jr2_crypto_init());
	memset(chunk, 'a', sizeof(chunk));
	crypto_hash_sha256_init(&ctx);
	/* Uneven pieces cross the 64-byte blocks at every offset. */
	for (size_t done = 0, piece = 1; done < 1000000;
	     piece = piece % 997 + 1) {
		size_t len = 1000000 - done < piece ? 1000000 - done : piece;

		crypto_hash_sha256_update(&ctx, (const unsigned char *)chunk,
					  len);
		done += len;
	}
	crypto_hash_sha256_final(&ctx, digest);
	hex(digest, text);
	ASSERT_STREQ(
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    text);
}

TEST(sha256_padding_edges)
{
	/* 55, 56 and 64 bytes: the length fits, does not fit, full block. */
	static const struct {
		size_t len;
		const char *digest;
	} vectors[] = {
	    {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734"
		 "318"},
	    {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec67"
		 "38a"},
	    {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df15466"
		 "8eb"},
	};
	char input[64], text[65];
	uint8_t digest[JR2_SHA256_LEN], other[JR2_SHA256_LEN];

	ASSERT_EQ(0, jr2_crypto_init());
	memset(input, 'a', sizeof(input));
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		jr2_sha256(input, vectors[i].len, digest);
		hex(digest, text);
		ASSERT_STREQ(vectors[i].digest, text);
	}
	jr2_sha256("a", 1, other);
	ASSERT_TRUE(jr2_digest_equal(digest, digest));
	ASSERT_FALSE(jr2_digest_equal(digest, other));
}

/* A difference anywhere, first byte or last, makes two secrets unequal. */
TEST(secret_equal_sees_every_byte)
{
	char a[JR2_STANDIN_SIZE] = "jr2-standin-0123456789abcdef", b[sizeof(a)];
	size_t len = strlen(a);

	memcpy(b, a, sizeof(a));
	ASSERT_TRUE(jr2_secret_equal(a, b, len));
	ASSERT_TRUE(jr2_secret_equal(a, b, 0));
	for (size_t i = 0; i < len; i++) {
		b[i] ^= 0x01;
		EXPECT_FALSE(jr2_secret_equal(a, b, len))
		{
			TH_LOG("a difference at byte %zu was not seen", i);
		}
		b[i] = a[i];
	}
	b[len] = 'x'; /* past len: not compared */
	ASSERT_TRUE(jr2_secret_equal(a, b, len));
}

static int parse(const char *text, struct jr2_request *req, struct jr2_err *err)
{
	return jr2_request_parse(text, strlen(text), JR2_REQ_MAX_BYTES, req,
				 err);
}

TEST(request_exec_round_trip)
{
	struct jr2_request req;
	struct jr2_msg msg;
	struct jr2_err err = {0};

	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "exec");
	jr2_msg_field(&msg, "bearer", "b");
	jr2_msg_field(&msg, "cwd", "/work");
	jr2_msg_field(&msg, "secret", "GH_TOKEN");
	jr2_msg_field(&msg, "arg", "/bin/sh");
	jr2_msg_field(&msg, "arg", "a b\nc");
	jr2_msg_field(&msg, "arg", "");
	ASSERT_FALSE(msg.failed);
	ASSERT_EQ(0, jr2_request_parse(msg.buf, msg.len, JR2_REQ_MAX_BYTES,
				       &req, &err))
	{
		TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(JR2_OP_EXEC, req.op);
	ASSERT_STREQ("b", req.bearer);
	ASSERT_STREQ("/work", req.cwd);
	ASSERT_EQ(3, req.argc);
	ASSERT_STREQ("a b\nc", req.argv[1]);
	ASSERT_STREQ("", req.argv[2]);
	ASSERT_EQ(NULL, req.argv[3]);
	ASSERT_EQ(1, req.n_secrets);
	ASSERT_STREQ("GH_TOKEN", req.secrets[0]);
	jr2_request_free(&req);
	jr2_msg_free(&msg);
}

/* A spawn of a request given a Stand-in says so: "layer own". */
TEST(request_spawn_own_layer)
{
	struct jr2_request req;
	struct jr2_msg msg;
	struct jr2_err err = {0};

	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "spawn");
	jr2_msg_field(&msg, "id", "7");
	jr2_msg_field(&msg, "layer", "own");
	jr2_msg_field(&msg, "arg", "/bin/true");
	jr2_msg_field(&msg, "env", "GH_TOKEN=standin");
	ASSERT_FALSE(msg.failed);
	ASSERT_EQ(0, jr2_request_parse(msg.buf, msg.len, JR2_SPAWN_MAX_BYTES,
				       &req, &err))
	{
		TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(JR2_OP_SPAWN, req.op);
	ASSERT_TRUE(req.own_layer);
	jr2_request_free(&req);
	jr2_msg_free(&msg);
}

TEST(request_refusals_name_the_problem)
{
	static const struct {
		const char *text, *message_part;
	} cases[] = {
	    {"", "does not start with the line JR2H1"},
	    {"JR2H0\nop 4:exec\n", "does not start with the line JR2H1"},
	    {"JR2H1\n", "no 'op' field"},
	    {"JR2H1\nop 4:exec\n", "needs a first 'arg'"},
	    {"JR2H1\nop 4:exec\narg 10:/bin/true\n",
	     "announces 10 bytes but 10 are left"},
	    {"JR2H1\nop 4:exec\narg 9:/bin/true",
	     "announces 9 bytes but 9 are left"},
	    {"JR2H1\nop 4:exec\narg 9:/bin/trueX",
	     "malformed field at byte 16"},
	    {"JR2H1\nop 4:exec\narg 09:/bin/true\n",
	     "malformed field at byte 16"},
	    {"JR2H1\nop 4:exec\narg 99999999:x\n",
	     "malformed field at byte 16"},
	    {"JR2H1\nop 4:exec\nARG 1:x\n", "malformed field at byte 16"},
	    {"JR2H1\nop 4:exec\nargv 1:x\n", "unknown field 'argv' at byte 16"},
	    {"JR2H1\nop 4:kill\n", "unknown op 'kill'"},
	    {"JR2H1\nop 4:exec\nop 4:exec\n", "'op' at byte 16 given twice"},
	    {"JR2H1\nop 4:exec\narg 1:x\ncwd 3:rel\n", "cwd 'rel' is relative"},
	    {"JR2H1\nop 4:exec\narg 1:x\nenv 3:A=1\n", "takes no 'env' field"},
	    {"JR2H1\nop 4:exec\narg 1:x\nsecret 3:1AB\n", "secret name '1AB'"},
	    {"JR2H1\nop 6:status\narg 1:x\n", "op status takes no arg"},
	    {"JR2H1\nop 5:spawn\narg 1:x\n", "op spawn needs an 'id'"},
	    {"JR2H1\nop 4:exec\narg 1:x\nid 1:3\n", "'id' belongs to op spawn"},
	    {"JR2H1\nop 6:status\njson 1:2\n", "the only value is 1"},
	    {"JR2H1\nop 4:exec\narg 1:x\nlayer 3:own\n",
	     "'layer' belongs to op spawn"},
	    {"JR2H1\nop 5:spawn\nid 1:3\narg 1:x\nlayer 6:shared\n",
	     "send 'own' once"},
	};
	struct jr2_request req;
	struct jr2_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		ASSERT_EQ(-1, parse(cases[i].text, &req, &err))
		{
			TH_LOG("case %zu accepted: '%s'", i, cases[i].text);
		}
		/* As the library reports: bad input, one line. */
		ASSERT_TRUE(err.bad_input);
		ASSERT_EQ(EPROTO, err.code);
		ASSERT_NE(NULL, strstr(err.msg, cases[i].message_part))
		{
			TH_LOG("case %zu: '%s' lacks '%s'", i, err.msg,
			       cases[i].message_part);
		}
		ASSERT_EQ(NULL, req.storage);
	}
}

/* op signal and op attach: their fields, each bounded. */
TEST(request_signal_and_attach)
{
	static const struct {
		const char *text, *message_part; /* NULL: accepted */
	} cases[] = {
	    {"JR2H1\nop 6:signal\nbearer 1:b\nid 2:12\nsignal 2:15\n", NULL},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 2:64\n", NULL},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 1:0\n", "from 1 to 64"},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 2:65\n", "from 1 to 64"},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 2:09\n", "from 1 to 64"},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 3:-15\n", "from 1 to 64"},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 1:9\nsignal 1:9\n",
	     "given twice"},
	    {"JR2H1\nop 6:signal\nsignal 1:9\n", "needs an 'id'"},
	    {"JR2H1\nop 6:signal\nid 2:07\nsignal 1:9\n", "needs an 'id'"},
	    {"JR2H1\nop 6:signal\nid 20:12345678901234567890\nsignal 1:9\n",
	     "needs an 'id'"},
	    {"JR2H1\nop 6:signal\nid 1:1\n", "needs an 'id'"},
	    {"JR2H1\nop 6:signal\nid 1:1\nsignal 1:9\narg 1:x\n",
	     "takes only bearer, id and signal"},
	    {"JR2H1\nop 6:attach\ntoken 32:0123456789abcdef0123456789abcdef\n"
	     "fd 1:2\n",
	     NULL},
	    {"JR2H1\nop 6:attach\ntoken 32:0123456789ABCDEF0123456789abcdef\n"
	     "fd 1:2\n",
	     "32 lowercase hex digits"},
	    {"JR2H1\nop 6:attach\ntoken 31:0123456789abcdef0123456789abcde\n"
	     "fd 1:0\n",
	     "32 lowercase hex digits"},
	    {"JR2H1\nop 6:attach\ntoken 32:0123456789abcdef0123456789abcdef\n",
	     "an 'fd' of 0, 1 or 2"},
	    {"JR2H1\nop 6:attach\ntoken 32:0123456789abcdef0123456789abcdef\n"
	     "fd 1:3\n",
	     "send 0, 1 or 2 once"},
	    {"JR2H1\nop 6:attach\ntoken 32:0123456789abcdef0123456789abcdef\n"
	     "fd 1:1\nbearer 1:b\n",
	     "takes only token and fd"},
	    {"JR2H1\nop 4:exec\narg 1:x\nsignal 1:9\n",
	     "belong to op signal and attach only"},
	    {"JR2H1\nop 6:status\nfd 1:1\n",
	     "belong to op signal and attach only"},
	    {"JR2H1\nop 4:exec\narg 1:x\nfd 1:1\n",
	     "belong to op signal and attach only"},
	};
	struct jr2_request req;
	struct jr2_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		memset(&err, 0, sizeof(err));
		ret = parse(cases[i].text, &req, &err);
		if (!cases[i].message_part) {
			ASSERT_EQ(0, ret)
			{
				TH_LOG("case %zu refused: %s", i, err.msg);
			}
			jr2_request_free(&req);
			continue;
		}
		ASSERT_EQ(-1, ret)
		{
			TH_LOG("case %zu accepted: '%s'", i, cases[i].text);
		}
		ASSERT_EQ(EPROTO, err.code);
		ASSERT_NE(NULL, strstr(err.msg, cases[i].message_part))
		{
			TH_LOG("case %zu: '%s' lacks '%s'", i, err.msg,
			       cases[i].message_part);
		}
	}
	/* The values as parsed. */
	ASSERT_EQ(0, parse(cases[0].text, &req, &err));
	ASSERT_EQ(JR2_OP_SIGNAL, req.op);
	ASSERT_EQ(15, req.signo);
	ASSERT_STREQ("12", req.id);
	jr2_request_free(&req);
	ASSERT_EQ(0, parse(cases[12].text, &req, &err));
	ASSERT_EQ(JR2_OP_ATTACH, req.op);
	ASSERT_EQ(2, req.stdio);
	jr2_request_free(&req);
}

/* The stream socket's frame head: "<1-7 digits>\n", no leading zero,
 * within the bound; a head cut short may still complete. */
TEST(frame_head)
{
	static const struct {
		const char *text;
		int ret;
		size_t body;
	} cases[] = {
	    {"1\n", 0, 1},	 {"65536\nJR2H1", 0, 65536},
	    {"65537\n", -1, 0},	 {"0\n", -1, 0},
	    {"01\n", -1, 0},	 {"\n", -1, 0},
	    {"12x", -1, 0},	 {"", -EAGAIN, 0},
	    {"123", -EAGAIN, 0}, {"1234567", -1, 0},
	    {" 1\n", -1, 0},	 {"-1\n", -1, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jr2_err err = {0};
		size_t body = 0;
		int ret = jr2_frame_head(cases[i].text, strlen(cases[i].text),
					 JR2_REQ_MAX_BYTES, &body, &err);

		ASSERT_EQ(cases[i].ret, ret)
		{
			TH_LOG("case %zu '%s': %d", i, cases[i].text, ret);
		}
		if (!ret)
			ASSERT_EQ(cases[i].body, body);
		if (ret == -1)
			ASSERT_NE(NULL, strstr(err.msg, "a frame starts with"));
	}
}

TEST(request_nul_and_oversize)
{
	static const char nul[] = "JR2H1\nop 4:exec\narg 3:a\0b\n";
	struct jr2_request req;
	struct jr2_err err = {0};
	char *big;
	size_t len = JR2_REQ_MAX_BYTES + 1;

	ASSERT_EQ(-1, jr2_request_parse(nul, sizeof(nul) - 1, JR2_REQ_MAX_BYTES,
					&req, &err));
	ASSERT_NE(NULL, strstr(err.msg, "holds a NUL byte"));
	big = malloc(len);
	ASSERT_NE(NULL, big);
	memset(big, 'x', len);
	ASSERT_EQ(-1,
		  jr2_request_parse(big, len, JR2_REQ_MAX_BYTES, &req, &err));
	ASSERT_NE(NULL,
		  strstr(err.msg, "65537 bytes, more than the 65536 allowed"));
	free(big);
}

TEST(request_too_many_args)
{
	struct jr2_msg msg;
	struct jr2_request req;
	struct jr2_err err = {0};

	jr2_msg_init(&msg);
	jr2_msg_field(&msg, "op", "exec");
	for (int i = 0; i <= JR2_REQ_MAX_ARGS; i++)
		jr2_msg_field(&msg, "arg", "x");
	ASSERT_EQ(-1, jr2_request_parse(msg.buf, msg.len, JR2_REQ_MAX_BYTES,
					&req, &err));
	ASSERT_NE(NULL, strstr(err.msg, "more than 256 'arg' fields"));
	jr2_msg_free(&msg);
}

static char *joined(const struct jr2_strv *env)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < env->n; i++)
		len += strlen(env->v[i]) + 1;
	out = calloc(1, len);
	for (size_t i = 0; out && i < env->n; i++) {
		strcat(out, env->v[i]);
		strcat(out, ";");
	}
	return out;
}

static void load(struct __test_metadata *_metadata,
		 struct jr2_harness_config *cfg, const char *text)
{
	struct jr2_err err = {0};

	jr2_config_init(cfg);
	ASSERT_EQ(0,
		  jr2_config_parse(cfg, text, strlen(text), "test.conf", &err))
	{
		TH_LOG("%s", err.msg);
	}
}

TEST(env_confined_E1)
{
	char *const start_env[] = {"PATH=/usr/bin",
				   "JR2_SECRET_THING=x",
				   "HOME=/root",
				   "JR2_CUSTODIAN_URL=http://c",
				   "LD_PRELOAD=/a.so",
				   "TMPDIR=/var/tmp",
				   "GH_TOKEN=REAL",
				   "B=old",
				   NULL};
	struct jr2_strv start = {0}, out = {0};
	struct jr2_harness_config cfg;
	char *text;

	/* GH_TOKEN is Held: its real value in the start env never passes. */
	load(_metadata, &cfg,
	     "# a comment\nenv B=new\nenv C=3\nsecret GH_TOKEN\n");
	jr2_env_from_environ(&start, start_env);
	jr2_env_compose_confined(&start, &cfg, &out);
	text = joined(&out);
	/* JR2_ names go but one; the image's LD_PRELOAD stays for programs. */
	ASSERT_STREQ(
	    "PATH=/usr/bin;JR2_CUSTODIAN_URL=http://c;LD_PRELOAD=/a.so;"
	    "B=new;C=3;HOME=/home/jr2;TMPDIR=/tmp;",
	    text);
	free(text);
	jr2_strv_free(&start);
	jr2_strv_free(&out);
	jr2_config_free(&cfg);
}

TEST(env_harness_E2)
{
	char *const start_env[] = {"PATH=/evil",
				   "HTTPS_PROXY=http://p",
				   "JR2_CUSTODIAN_URL=http://c",
				   "LD_PRELOAD=/a.so",
				   "NODE_OPTIONS=--require x",
				   "IMAGE_ENV=1",
				   "OPENSSL_CONF=/x",
				   NULL};
	struct jr2_strv start = {0}, out = {0};
	struct jr2_strv dropped = {0};
	struct jr2_harness_config cfg;
	char *text;

	load(_metadata, &cfg,
	     "env LD_AUDIT=/b.so\nenv LD_LIBRARY_PATH=/l\nenv KEEP=1\n");
	jr2_env_from_environ(&start, start_env);
	jr2_env_compose_harness(&start, &cfg, "/run/jr2/home", &out, &dropped);
	text = joined(&out);
	ASSERT_STREQ("KEEP=1;HTTPS_PROXY=http://p;JR2_CUSTODIAN_URL=http://c;"
		     "HOME=/run/jr2/home;"
		     "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/"
		     "sbin:/bin;",
		     text);
	free(text);
	ASSERT_EQ(5, dropped.n);
	jr2_strv_free(&dropped);
	jr2_strv_free(&start);
	jr2_strv_free(&out);
	jr2_config_free(&cfg);
}

TEST(env_envfrom_E7)
{
	char *const start_env[] = {"FOO=image",
				   "JR2_ENVFROM_FOO=bar",
				   "JR2_ENVFROM_NODE_OPTIONS=--require x",
				   "JR2_ENVFROM_PATH=/p",
				   "JR2_MAX_ABI=6",
				   NULL};
	static const char *const bad[][2] = {
	    {"JR2_ENVFROM_JR2_X=1", "starts with JR2_"},
	    {"JR2_ENVFROM_=1", "no key"},
	    {"JR2_ENVFROM_A-B=1", "no key"},
	    {"JR2_ENVFROM_HOME=/x", "sets for every program"},
	    {"JR2_ENVFROM_TMPDIR=/x", "sets for every program"},
	    {"JR2_ENVFROM_GH_TOKEN=x", "Held secret"},
	    {"JR2_ENVFROM_LANG=x", "env line"},
	};
	struct jr2_strv start = {0}, out = {0}, own = {0}, dropped = {0};
	struct jr2_harness_config cfg;
	struct jr2_err err = {0};
	char *text;

	load(_metadata, &cfg, "env LANG=C\nsecret GH_TOKEN\n");
	jr2_env_from_environ(&start, start_env);
	ASSERT_EQ(0, jr2_env_check_envfrom(&start, &cfg, &err));
	/* Programs: the key under its name, winning over the image's. */
	jr2_env_compose_confined(&start, &cfg, &out);
	text = joined(&out);
	ASSERT_STREQ("FOO=bar;NODE_OPTIONS=--require x;PATH=/p;LANG=C;"
		     "HOME=/home/jr2;TMPDIR=/tmp;",
		     text);
	free(text);
	/* The Harness process: not a name that loads code, not PATH. */
	jr2_strv_free(&out);
	jr2_env_compose_harness(&start, &cfg, "/run/jr2/home", &own, &dropped);
	jr2_strv_free(&dropped);
	jr2_env_compose_harness_process(&own, "/", &out, &dropped);
	text = joined(&out);
	ASSERT_STREQ("LANG=C;JR2_MAX_ABI=6;HOME=/run/jr2/home;"
		     "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/"
		     "sbin:/bin;FOO=bar;JR2_HARNESS_ROOT=/;",
		     text);
	free(text);
	ASSERT_EQ(1, dropped.n);
	ASSERT_STREQ("NODE_OPTIONS", dropped.v[0]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *const one[] = {(char *)bad[i][0], NULL};
		struct jr2_strv env = {0};

		jr2_env_from_environ(&env, one);
		/* "JR2_ENVFROM_=1" has a name: the empty key is refused. */
		ASSERT_EQ(-1, jr2_env_check_envfrom(&env, &cfg, &err))
		{
			TH_LOG("%s is not refused", bad[i][0]);
		}
		ASSERT_NE(NULL, strstr(err.msg, bad[i][1]))
		{
			TH_LOG("%s: %s", bad[i][0], err.msg);
		}
		jr2_strv_free(&env);
	}
	jr2_strv_free(&dropped);
	jr2_strv_free(&own);
	jr2_strv_free(&start);
	jr2_strv_free(&out);
	jr2_config_free(&cfg);
}

TEST(env_loads_code_names)
{
	ASSERT_TRUE(jr2_env_loads_code("LD_PRELOAD"));
	ASSERT_TRUE(jr2_env_loads_code("LD_AUDIT"));
	ASSERT_TRUE(jr2_env_loads_code("LD_LIBRARY_PATH"));
	ASSERT_TRUE(jr2_env_loads_code("NODE_OPTIONS"));
	ASSERT_TRUE(jr2_env_loads_code("OPENSSL_CONF"));
	ASSERT_TRUE(jr2_env_loads_code("PYTHONPATH"));
	ASSERT_FALSE(jr2_env_loads_code("PATH"));
	ASSERT_FALSE(jr2_env_loads_code("HOME"));
	ASSERT_FALSE(jr2_env_loads_code("OLD_PRELOAD"));
}

TEST(config_refusals_E3)
{
	static const struct {
		const char *text, *message_part;
	} cases[] = {
	    {"env JR2_TOKEN=1\n",
	     "line 1: environment name 'JR2_TOKEN' starts with JR2_"},
	    {"\n\nsecret JR2_X\n",
	     "line 3: secret name 'JR2_X' starts with JR2_"},
	    {"env NOVALUE\n", "env 'NOVALUE' is not NAME=VALUE"},
	    {"secret A\nsecret A\n", "secret 'A' is declared twice"},
	    {"protect rel\n", "line 1: 'rel' is a relative path"},
	    {"read-only\n", "line 1: 'read-only' needs a path"},
	    {"secret GH_TOKEN\nenv GH_TOKEN=x\n",
	     "line 2: env 'GH_TOKEN' is a Held secret"},
	    {"env GH_TOKEN=x\nsecret GH_TOKEN\n",
	     "line 2: secret 'GH_TOKEN' is also set by an env line"},
	    {"env A=1\n\x01\n", "line 2: byte 0x01 at byte 8 is not text"},
	    {"env A=\xff\n", "line 1: byte 0xff at byte 6 is not text"},
	    {"sandbox-user bob\n", "sandbox-user 'bob' is not a numeric uid"},
	    {"sandbox-user +1000\n", "sandbox-user '+1000' is not a numeric"},
	    {"sandbox-user -1\n", "sandbox-user '-1' is not a numeric uid"},
	    {"sandbox-user 4294967295\n", "'4294967295' is not a numeric uid"},
	    {"mount /x\n", "unknown directive 'mount'"},
	    {"secret\n", "directive 'secret' has no argument"},
	    {"secret control\n",
	     "secret name 'control' is the name of a Stand-in"},
	};
	struct jr2_harness_config cfg;
	struct jr2_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		jr2_config_init(&cfg);
		memset(&err, 0, sizeof(err));
		ASSERT_EQ(-1, jr2_config_parse(&cfg, cases[i].text,
					       strlen(cases[i].text),
					       "test.conf", &err));
		ASSERT_TRUE(err.bad_input);
		ASSERT_NE(NULL, strstr(err.msg, cases[i].message_part))
		{
			TH_LOG("case %zu: '%s' lacks '%s'", i, err.msg,
			       cases[i].message_part);
		}
		jr2_config_free(&cfg);
	}
}

/* E4: one parser: a NUL byte, an over-long line, a non-text byte refuse the
 * harness's config as they refuse jr2-confine's, with the same message. */
TEST(config_text_same_as_confine_E4)
{
	static const struct {
		const char *text;
		size_t len;
	} cases[] = {
	    {"protect /a\n\0protect /b\n", 23},
	    {"protect /a\n\x1bprotect /b\n", 23},
	    {"read-only /\xc0\xaf\n", 14},
	};
	char long_line[JR2_CONFIG_LINE_MAX + 20];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) + 1; i++) {
		struct jr2_harness_config cfg;
		struct jr2_policy policy;
		struct jr2_err harness = {0}, confine = {0};
		const char *text = i < 3 ? cases[i].text : long_line;
		size_t len = i < 3 ? cases[i].len : 0;

		if (i == 3) {
			memset(long_line, 'a', sizeof(long_line) - 1);
			memcpy(long_line, "protect /", 9);
			long_line[sizeof(long_line) - 1] = '\0';
			len = strlen(long_line);
		}
		jr2_config_init(&cfg);
		jr2_policy_init(&policy);
		ASSERT_EQ(-1, jr2_config_parse(&cfg, text, len, "c", &harness));
		ASSERT_EQ(-1, jr2_config_check_text(text, len, "c", &confine));
		ASSERT_STREQ(confine.msg, harness.msg);
		/* Nothing after the bad byte was taken either. */
		ASSERT_EQ(0, cfg.policy.protect.n);
		jr2_config_free(&cfg);
		jr2_policy_free(&policy);
	}
	/* Positive control: the same lines without the bad byte. */
	{
		struct jr2_harness_config cfg;
		struct jr2_err err = {0};
		const char *good =
		    "protect /a\nprotect /b\nread-only /r\xc3\xa9\n";

		jr2_config_init(&cfg);
		ASSERT_EQ(
		    0, jr2_config_parse(&cfg, good, strlen(good), "c", &err));
		ASSERT_EQ(2, cfg.policy.protect.n);
		ASSERT_EQ(1, cfg.policy.read_only.n);
		jr2_config_free(&cfg);
	}
}

TEST(sandbox_area_E4)
{
	ASSERT_TRUE(jr2_path_in_sandbox_area(NULL, "/work/x"));
	ASSERT_TRUE(jr2_path_in_sandbox_area(NULL, "/tmp"));
	ASSERT_TRUE(jr2_path_in_sandbox_area(NULL, "/dev/shm/a"));
	ASSERT_TRUE(jr2_path_in_sandbox_area(NULL, "/home/jr2/.aws/config"));
	ASSERT_FALSE(jr2_path_in_sandbox_area(NULL, "/workshop/x"));
	ASSERT_FALSE(jr2_path_in_sandbox_area(NULL, "/home/jr2x"));
	ASSERT_FALSE(jr2_path_in_sandbox_area(NULL, "/etc/jr2/config"));
	{
		/* The config's home and tmpdir are the programs' too. */
		struct jr2_harness_config cfg;

		jr2_config_init(&cfg);
		ASSERT_FALSE(jr2_path_in_sandbox_area(&cfg, "/root/.kube/c"));
		cfg.home = strdup("/root/");
		cfg.tmpdir = strdup("/var/tmp");
		ASSERT_TRUE(jr2_path_in_sandbox_area(&cfg, "/root/.kube/c"));
		ASSERT_TRUE(jr2_path_in_sandbox_area(&cfg, "/root"));
		ASSERT_TRUE(jr2_path_in_sandbox_area(&cfg, "/var/tmp/x"));
		ASSERT_FALSE(jr2_path_in_sandbox_area(&cfg, "/rootx/c"));
		ASSERT_FALSE(jr2_path_in_sandbox_area(&cfg, "/var/lib/x"));
		jr2_config_free(&cfg);
	}
}

/* The paths of `name=value` as "kind:path " words (f file, d folder, e
 * either), into out. */
static void read_paths(const char *name, const char *value, char *out,
		       size_t size)
{
	const char *cursor = value;
	char path[16];
	enum jr2_path_kind kind;
	size_t used = 0;

	out[0] = '\0';
	while (
	    jr2_env_next_read_path(name, &cursor, path, sizeof(path), &kind) &&
	    used < size)
		used += (size_t)snprintf(out + used, size - used, "%c:%s ",
					 kind == JR2_PATH_FILE	   ? 'f'
					 : kind == JR2_PATH_FOLDER ? 'd'
								   : 'e',
					 path);
}

/* E4: one table says what each name's value names; a list is split on
 * ':' (empty entries skipped), one path is the whole value. */
TEST(read_paths_E4_kind_of_each_name)
{
	char out[256];

	read_paths("KUBECONFIG", "/a:/b", out, sizeof(out));
	ASSERT_STREQ("f:/a f:/b ", out);
	read_paths("JR2_ENVFROM_KUBECONFIG", "::/a::/b:", out, sizeof(out));
	ASSERT_STREQ("f:/a f:/b ", out);
	read_paths("SSL_CERT_DIR", "/etc/ssl/certs:/c", out, sizeof(out));
	ASSERT_STREQ("d:/etc/ssl/certs d:/c ", out);
	read_paths("NODE_ICU_DATA", "/icu:/i/icudt74l.dat", out, sizeof(out));
	ASSERT_STREQ("e:/icu e:/i/icudt74l.dat ", out);
	/* One path: a ':' is part of it. */
	read_paths("AWS_CONFIG_FILE", "/a:/b", out, sizeof(out));
	ASSERT_STREQ("f:/a:/b ", out);
	read_paths("REQUESTS_CA_BUNDLE", "/etc/ssl/certs", out, sizeof(out));
	ASSERT_STREQ("e:/etc/ssl/certs ", out);
	read_paths("SSL_CERT_FILE", "/ca.pem", out, sizeof(out));
	ASSERT_STREQ("f:/ca.pem ", out);
	read_paths("AWS_CA_BUNDLE", "/ca.pem", out, sizeof(out));
	ASSERT_STREQ("f:/ca.pem ", out);
	read_paths("GIT_SSL_CAPATH", "/c:/d", out, sizeof(out));
	ASSERT_STREQ("d:/c d:/d ", out);
	read_paths("TZDIR", "/zi", out, sizeof(out));
	ASSERT_STREQ("d:/zi ", out);
	read_paths("JR2_ENVFROM_ICU_TIMEZONE_FILES_DIR", "/tz:/x", out,
		   sizeof(out));
	ASSERT_STREQ("d:/tz:/x ", out);
	/* A path longer than the buffer comes cut. */
	read_paths("GIT_SSL_CAINFO", "/0123456789abcdefgh", out, sizeof(out));
	ASSERT_STREQ("f:/0123456789abcd ", out);
	/* Nothing: an empty value, or a name that names no file. */
	read_paths("KUBECONFIG", "", out, sizeof(out));
	ASSERT_STREQ("", out);
	read_paths("PATH", "/usr/bin:/bin", out, sizeof(out));
	ASSERT_STREQ("", out);
}

TEST(names_read_file_E4_every_source)
{
	/* Positive control: the names themselves. */
	ASSERT_TRUE(jr2_env_names_read_file("NODE_EXTRA_CA_CERTS"));
	ASSERT_TRUE(jr2_env_names_read_file("SSL_CERT_FILE"));
	/* The same names as harness.envFrom keys (E7), and SSL_CERT_DIR. */
	ASSERT_TRUE(jr2_env_names_read_file("JR2_ENVFROM_NODE_EXTRA_CA_CERTS"));
	ASSERT_TRUE(jr2_env_names_read_file("JR2_ENVFROM_SSL_CERT_FILE"));
	ASSERT_TRUE(jr2_env_names_read_file("SSL_CERT_DIR"));
	ASSERT_TRUE(jr2_env_names_read_file("JR2_ENVFROM_SSL_CERT_DIR"));
	ASSERT_TRUE(jr2_env_names_read_file("NODE_ICU_DATA"));
	ASSERT_TRUE(jr2_env_names_read_file("HOSTALIASES"));
	ASSERT_TRUE(jr2_env_names_read_file("JR2_ENVFROM_RESOLV_HOST_CONF"));
	ASSERT_FALSE(jr2_env_names_read_file("JR2_ENVFROM_FOO"));
	ASSERT_FALSE(jr2_env_names_read_file("NODE_EXTRA_CA_CERTSX"));
	ASSERT_TRUE(jr2_env_names_read_file("KUBECONFIG"));
	ASSERT_TRUE(jr2_env_names_read_file("REQUESTS_CA_BUNDLE"));
	/* Node finds modules by the links' paths: kept from the Harness
	 * process, as the names that write where they point. */
	ASSERT_TRUE(jr2_env_loads_code("NODE_PRESERVE_SYMLINKS"));
	ASSERT_TRUE(jr2_env_loads_code("NODE_REDIRECT_WARNINGS"));
	ASSERT_TRUE(jr2_env_loads_code("NODE_COMPILE_CACHE"));
	ASSERT_FALSE(jr2_env_loads_code("NODE_ENV"));
}

static size_t spawner_format(char *buf, size_t size,
			     enum jr2_spawner_msg_kind kind, const char *fmt,
			     ...) __attribute__((format(printf, 4, 5)));

static size_t spawner_format(char *buf, size_t size,
			     enum jr2_spawner_msg_kind kind, const char *fmt,
			     ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	len = jr2_spawner_msg_vformat(buf, size, kind, fmt, ap);
	va_end(ap);
	return len;
}

/* Each kind, as the spawner formats it, is read back as that kind. */
TEST(spawner_messages_round_trip)
{
	struct jr2_spawner_msg msg;
	char buf[128];

	ASSERT_EQ(5, spawner_format(buf, sizeof(buf), JR2_SPAWNER_READY, NULL));
	ASSERT_STREQ("ready", buf);
	ASSERT_EQ(JR2_SPAWNER_READY, jr2_spawner_msg_parse(buf, &msg));

	spawner_format(buf, sizeof(buf), JR2_SPAWNER_FAIL, "%s", "no ABI");
	ASSERT_STREQ("fail no ABI", buf);
	ASSERT_EQ(JR2_SPAWNER_FAIL, jr2_spawner_msg_parse(buf, &msg));
	ASSERT_STREQ("no ABI", msg.text);

	spawner_format(buf, sizeof(buf), JR2_SPAWNER_LOG, "%s", "helpers: x");
	ASSERT_STREQ("log helpers: x", buf);
	ASSERT_EQ(JR2_SPAWNER_LOG, jr2_spawner_msg_parse(buf, &msg));
	ASSERT_STREQ("helpers: x", msg.text);

	spawner_format(buf, sizeof(buf), JR2_SPAWNER_STARTED, "%s %d", "42",
		       4242);
	ASSERT_STREQ("started 42 4242", buf);
	ASSERT_EQ(JR2_SPAWNER_STARTED, jr2_spawner_msg_parse(buf, &msg));
	ASSERT_EQ(42, msg.id);
	ASSERT_EQ(4242, msg.pid);

	spawner_format(buf, sizeof(buf), JR2_SPAWNER_ERROR, "%s %d %s '%s'",
		       "7", ENOENT, "execve", "/bin/none");
	ASSERT_STREQ("error 7 2 execve '/bin/none'", buf);
	ASSERT_EQ(JR2_SPAWNER_ERROR, jr2_spawner_msg_parse(buf, &msg));
	ASSERT_EQ(7, msg.id);
	ASSERT_EQ(ENOENT, msg.err);
	ASSERT_STREQ("execve '/bin/none'", msg.text);

	/* Cut at the buffer's end, NUL-terminated: the length says so. */
	ASSERT_EQ(7, spawner_format(buf, 8, JR2_SPAWNER_LOG, "%s", "0123456"));
	ASSERT_STREQ("log 012", buf);
}

/* Every word is its own; a known word without its fields is not taken. */
TEST(spawner_messages_unknown)
{
	static const char *const unknown[] = {
	    "",
	    "readyx",
	    "ready ",
	    "fail",
	    "log",
	    "started 1",
	    "started 1 0",
	    "started x 5",
	    "startedx 1 5",
	    "error - 71 cannot read",
	    "error 3 x",
	    "exit 0",
	};
	struct jr2_spawner_msg msg;

	for (int k = 0; k < JR2_SPAWNER_MSG_KINDS; k++) {
		ASSERT_NE(NULL, jr2_spawner_words[k]);
		ASSERT_NE('\0', jr2_spawner_words[k][0]);
		for (int j = 0; j < k; j++)
			ASSERT_STRNE(jr2_spawner_words[j],
				     jr2_spawner_words[k]);
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		ASSERT_EQ(JR2_SPAWNER_UNKNOWN,
			  jr2_spawner_msg_parse(unknown[i], &msg))
		TH_LOG("message '%s' was taken as kind %d", unknown[i],
		       msg.kind);
	}
}

TEST_HARNESS_MAIN
