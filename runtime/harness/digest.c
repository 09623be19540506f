// SPDX-License-Identifier: GPL-2.0-only
/* SHA-256 and constant-time comparison, from libsodium. */
#include <sodium.h>

#include "digest.h"

_Static_assert(JR2_SHA256_LEN == crypto_hash_sha256_BYTES,
	       "the digest is libsodium's SHA-256");

int jr2_crypto_init(void)
{
	/* 1: done before; idempotent and safe from any thread. */
	return sodium_init() < 0 ? -1 : 0;
}

void jr2_sha256(const void *data, size_t len, uint8_t out[JR2_SHA256_LEN])
{
	crypto_hash_sha256(out, data, len);
}

int jr2_secret_equal(const void *a, const void *b, size_t len)
{
	return sodium_memcmp(a, b, len) == 0;
}

int jr2_digest_equal(const uint8_t a[JR2_SHA256_LEN],
		     const uint8_t b[JR2_SHA256_LEN])
{
	return crypto_verify_32(a, b) == 0;
}
