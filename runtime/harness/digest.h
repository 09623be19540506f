/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control channel's bearer is kept as its SHA-256 only, and secrets are
 * compared in constant time: both from libsodium (linked statically), never
 * from code of this project.
 */
#ifndef JR2_DIGEST_H
#define JR2_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define JR2_SHA256_LEN 32

/* 0, or -1 when libsodium cannot start (then nothing else may be called). */
int jr2_crypto_init(void);
void jr2_sha256(const void *data, size_t len, uint8_t out[JR2_SHA256_LEN]);
/*
 * Compares len bytes of two secrets (a digest, a Stand-in) in time that does
 * not depend on where they differ: a peer that times its refusals learns
 * nothing of the secret's bytes.
 */
int jr2_secret_equal(const void *a, const void *b, size_t len);
int jr2_digest_equal(const uint8_t a[JR2_SHA256_LEN],
		     const uint8_t b[JR2_SHA256_LEN]);

#endif /* JR2_DIGEST_H */
