/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one JSON string writer of jr2-confine, jr2-trace and jr2-harness.
 *
 * A string is written between double quotes: '"' and '\' are escaped with a
 * backslash, control bytes (0x00-0x1f and 0x7f) as \u00XX, and valid UTF-8
 * passes through unchanged.  A byte that does not start a valid UTF-8
 * sequence (a stray continuation byte, an overlong form, a surrogate, a code
 * point above U+10FFFF, a sequence cut short) is written as \u00XX of that
 * byte, each byte in turn, so the output is always valid JSON and UTF-8.
 *
 * That escape alone is ambiguous (the byte 0xe9 and the character U+00E9
 * parse alike), so the bytes are kept too: where a member's value is not
 * valid UTF-8, jr2_json_member() adds the note member "<key>_hex" holding
 * every byte of the value in lower-case hex.  A reader takes "<key>_hex"
 * where it is present, else the UTF-8 of "<key>": the bytes always
 * round-trip.  Documented in jr2-confine(1) and jr2-trace(1), "JSON STRINGS".
 */
#ifndef JR2_JSON_H
#define JR2_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where the writer puts its output: n bytes at s. */
typedef void jr2_json_emit_fn(void *ctx, const char *s, size_t n);

/* Is s[0..n) valid UTF-8 (no overlong form, surrogate or value > U+10FFFF)? */
bool jr2_json_utf8_valid(const char *s, size_t n);

/* Writes s[0..n) as a JSON string, quotes included.  Returns true when s
   was valid UTF-8, false when some byte was written as \u00XX for that
   reason (then the caller owes its reader the "_hex" note). */
bool jr2_json_string(jr2_json_emit_fn *emit, void *ctx, const char *s,
		     size_t n);

/* Writes s[0..n) as a JSON string of lower-case hex digits, quotes
   included: "2f746d70" for "/tmp". */
void jr2_json_hex(jr2_json_emit_fn *emit, void *ctx, const char *s, size_t n);

/* Writes `"key":"value"` and, when the value is not valid UTF-8,
   `,"key_hex":"..."` after it.  sep goes after each colon and comma (""
   or " "), as the caller's style has it.  key must be plain ASCII. */
void jr2_json_member(jr2_json_emit_fn *emit, void *ctx, const char *sep,
		     const char *key, const char *s, size_t n);

/* The emitter that writes to a stdio stream (ctx: the FILE *). */
void jr2_json_emit_file(void *ctx, const char *s, size_t n);

#endif
