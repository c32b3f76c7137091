/* SPDX-License-Identifier: MIT */
/*
 * md5.c - MD5 as RFC 1321 section 3 describes it: the message padded with
 * a 1 bit, 0 bits to 448 mod 512 and its length in bits (64 bits, low
 * byte first); then each 512-bit block, as sixteen little-endian 32-bit
 * words X, mixed into the state A B C D by four rounds of sixteen steps
 *
 *	a = b + ((a + f(b, c, d) + X[k] + T[i]) <<< s)
 *
 * with f F, G, H, I in rounds 1 to 4, T[i] the integer part of
 * 4294967296 * abs(sin(i)) (i counted from 1, radians), the word k and
 * the shift s as the round prescribes, and the four registers rotating
 * their roles after each step. The digest is A B C D, low byte first.
 */
#include <string.h>

#include "md5.h"

/* T[i - 1] = floor(2^32 * |sin(i)|), i = 1..64 (RFC 1321 3.4), four a
 * row as the steps go. */
/* clang-format off */
static const uint32_t sine[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, /* round 1 */
	0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, /* round 2 */
	0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, /* round 3 */
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
	0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, /* round 4 */
	0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
/* clang-format on */

/* The shifts of each round's four steps, which repeat four times. */
static const uint8_t shift[4][4] = {
	{ 7, 12, 17, 22 },
	{ 5, 9, 14, 20 },
	{ 4, 11, 16, 23 },
	{ 6, 10, 15, 21 },
};

static uint32_t rol(uint32_t x, unsigned s)
{
	return (x << s) | (x >> (32 - s));
}

/* Round r's function of b, c, d, and the word step i (0..15) takes. */
static uint32_t mix(unsigned r, unsigned i, uint32_t b, uint32_t c, uint32_t d,
		    unsigned *k)
{
	switch (r) {
	case 0:
		*k = i;
		return (b & c) | (~b & d);
	case 1:
		*k = (1 + 5 * i) & 15;
		return (b & d) | (c & ~d);
	case 2:
		*k = (5 + 3 * i) & 15;
		return b ^ c ^ d;
	default:
		*k = (7 * i) & 15;
		return c ^ (b | ~d);
	}
}

/* One 64-byte block into the state. */
static void block(uint32_t st[4], const uint8_t *p)
{
	uint32_t x[16], a = st[0], b = st[1], c = st[2], d = st[3], t;
	unsigned r, i, k;

	for (i = 0; i < 16; i++)
		x[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 |
		       (uint32_t)p[4 * i + 3] << 24;
	for (r = 0; r < 4; r++) {
		for (i = 0; i < 16; i++) {
			t = mix(r, i, b, c, d, &k);
			t = a + t + x[k] + sine[16 * r + i];
			/* the roles rotate: d becomes a, a the new b */
			a = d;
			d = c;
			c = b;
			b = b + rol(t, shift[r][i & 3]);
		}
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

void act__md5_init(struct act__md5_ctx *c)
{
	c->state[0] = 0x67452301;
	c->state[1] = 0xefcdab89;
	c->state[2] = 0x98badcfe;
	c->state[3] = 0x10325476;
	c->len = 0;
}

void act__md5_update(struct act__md5_ctx *c, const void *p, size_t n)
{
	const uint8_t *in = p;
	size_t have = (size_t)(c->len & 63), take;

	c->len += n;
	if (have) {
		take = 64 - have < n ? 64 - have : n;
		memcpy(c->block + have, in, take);
		in += take;
		n -= take;
		if (have + take < 64)
			return;
		block(c->state, c->block);
	}
	for (; n >= 64; in += 64, n -= 64)
		block(c->state, in);
	if (n)
		memcpy(c->block, in, n);
}

void act__md5_final(struct act__md5_ctx *c, uint8_t out[ACT__MD5_LEN])
{
	static const uint8_t pad[64] = { 0x80 };
	uint64_t bits = c->len * 8;
	uint8_t len[8];
	size_t have = (size_t)(c->len & 63);
	int i;

	for (i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (8 * i));
	/* to 56 mod 64, at least one byte (the 0x80) */
	act__md5_update(c, pad, have < 56 ? 56 - have : 120 - have);
	act__md5_update(c, len, 8);
	for (i = 0; i < 16; i++)
		out[i] = (uint8_t)(c->state[i / 4] >> (8 * (i % 4)));
}

void act__md5(const void *p, size_t n, uint8_t out[ACT__MD5_LEN])
{
	struct act__md5_ctx c;

	act__md5_init(&c);
	act__md5_update(&c, p, n);
	act__md5_final(&c, out);
}
