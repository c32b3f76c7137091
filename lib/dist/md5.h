/* SPDX-License-Identifier: MIT */
/*
 * md5.h - MD5 (RFC 1321), for the distribution handshake's digests: the
 * MD5 of the cookie followed by a challenge in decimal (handshake.h).
 * Written from the RFC's description (section 3); checked against its
 * appendix A.5 test suite (tests/test_dist_wire.c). MD5 is broken as a
 * hash; Erlang's handshake uses it anyway, and so must we to talk to it.
 *
 * Pure functions on memory: no allocation, no I/O, any thread, any
 * number of contexts at once.
 */
#ifndef ACT_DIST_MD5_H
#define ACT_DIST_MD5_H

#include <stddef.h>
#include <stdint.h>

#define ACT__MD5_LEN 16 /* bytes of a digest */

/* An MD5 computation under way: the caller's memory, opaque. */
struct act__md5_ctx {
	uint32_t state[4]; /* A, B, C, D of the RFC */
	uint64_t len;	   /* bytes taken so far */
	uint8_t block[64]; /* the current block's first len % 64 bytes */
};

/* Starts a computation in c (any previous one is forgotten). */
void act__md5_init(struct act__md5_ctx *c);

/* Appends p[0..n) to c's message; n may be 0, p then NULL. */
void act__md5_update(struct act__md5_ctx *c, const void *p, size_t n);

/* Ends c's message: its digest into out. c must be initialised again
 * before another use. */
void act__md5_final(struct act__md5_ctx *c, uint8_t out[ACT__MD5_LEN]);

/* The digest of p[0..n) in one call. */
void act__md5(const void *p, size_t n, uint8_t out[ACT__MD5_LEN]);

#endif
