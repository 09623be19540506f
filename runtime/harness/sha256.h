/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA-256 (FIPS 180-4), enough to keep only the digest of the control
 * channel's bearer in memory.  Pure code, no allocation.
 */
#ifndef JR2_SHA256_H
#define JR2_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define JR2_SHA256_LEN 32

struct jr2_sha256 {
	uint32_t state[8];
	uint64_t length; /* bytes hashed so far */
	uint8_t block[64];
	size_t used; /* bytes waiting in block */
};

void jr2_sha256_init(struct jr2_sha256 *ctx);
void jr2_sha256_update(struct jr2_sha256 *ctx, const void *data, size_t len);
void jr2_sha256_final(struct jr2_sha256 *ctx, uint8_t out[JR2_SHA256_LEN]);
void jr2_sha256(const void *data, size_t len, uint8_t out[JR2_SHA256_LEN]);
/*
 * Compares len bytes of two secrets (a digest, a Stand-in) in time that does
 * not depend on where they differ: a peer that times its refusals learns
 * nothing of the secret's bytes.
 */
int jr2_secret_equal(const void *a, const void *b, size_t len);
int jr2_digest_equal(const uint8_t a[JR2_SHA256_LEN],
		     const uint8_t b[JR2_SHA256_LEN]);

#endif /* JR2_SHA256_H */
