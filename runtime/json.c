// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one JSON string writer: the scheme is in json.h.
 */
#include <string.h>

#include "json.h"

/* The length of the valid UTF-8 sequence at s[0..n), or 0 when the byte
   at s does not start one (RFC 3629, section 4). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0; /* a continuation byte, 0xc0, 0xc1, 0xf5-0xff */
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* U+D800-U+DFFF: surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

bool jr2_json_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0, len; i < n; i += len) {
		len = utf8_seq(u + i, n - i);
		if (!len)
			return false;
	}
	return true;
}

static const char hexdigit[] = "0123456789abcdef";

static void emit_u00(jr2_json_emit_fn *emit, void *ctx, unsigned char c)
{
	char esc[6] = {
	    '\\', 'u', '0', '0', hexdigit[c >> 4], hexdigit[c & 0xf]};

	emit(ctx, esc, sizeof(esc));
}

bool jr2_json_string(jr2_json_emit_fn *emit, void *ctx, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	bool valid = true;
	size_t run = 0; /* bytes at u + i - run that pass through */

	emit(ctx, "\"", 1);
	for (size_t i = 0, len; i < n; i += len) {
		unsigned char c = u[i];

		len = utf8_seq(u + i, n - i);
		if (len && c >= 0x20 && c != '"' && c != '\\' && c != 0x7f) {
			run += len;
			continue;
		}
		if (run)
			emit(ctx, (const char *)u + i - run, run);
		run = 0;
		if (!len) {
			valid = false;
			len =
			    1; /* this byte alone; the next is looked at anew */
			emit_u00(emit, ctx, c);
		} else if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};

			emit(ctx, esc, 2);
		} else {
			emit_u00(emit, ctx, c);
		}
	}
	if (run)
		emit(ctx, (const char *)u + n - run, run);
	emit(ctx, "\"", 1);
	return valid;
}

void jr2_json_hex(jr2_json_emit_fn *emit, void *ctx, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	emit(ctx, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		char pair[2] = {hexdigit[u[i] >> 4], hexdigit[u[i] & 0xf]};

		emit(ctx, pair, 2);
	}
	emit(ctx, "\"", 1);
}

void jr2_json_member(jr2_json_emit_fn *emit, void *ctx, const char *sep,
		     const char *key, const char *s, size_t n)
{
	emit(ctx, "\"", 1);
	emit(ctx, key, strlen(key));
	emit(ctx, "\":", 2);
	emit(ctx, sep, strlen(sep));
	if (jr2_json_string(emit, ctx, s, n))
		return;
	emit(ctx, ",", 1);
	emit(ctx, sep, strlen(sep));
	emit(ctx, "\"", 1);
	emit(ctx, key, strlen(key));
	emit(ctx, "_hex\":", 6);
	emit(ctx, sep, strlen(sep));
	jr2_json_hex(emit, ctx, s, n);
}

void jr2_json_emit_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}
