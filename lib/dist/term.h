/* SPDX-License-Identifier: MIT */
/*
 * term.h - the external term format from a peer, checked before anything
 * of it is decoded (doc/design/distribution.md "Terms").
 *
 * act__term_check walks one term without recursion and without
 * allocating: a stack of ACT__TERM_DEPTH_MAX counts on the caller's
 * stack. It refuses, with the offset and a reason:
 *   - a term nested deeper than ACT__TERM_DEPTH_MAX (a list's tail and a
 *     tuple's, map's or fun's elements are one level down);
 *   - a length or count that the bytes left cannot hold (each element
 *     takes a byte at least), so that no later decoder is asked to
 *     allocate for bytes that are not there;
 *   - an atom cache reference (ATOM_CACHE_REF): no cache is negotiated;
 *   - compressed terms, LOCAL_EXT and unknown tags;
 *   - atoms over 255 characters (1,020 bytes in UTF-8), as Erlang's.
 * A term that passes can be decoded by libei's functions, or skipped,
 * without reading past its end.
 */
#ifndef ACT_DIST_TERM_H
#define ACT_DIST_TERM_H

#include <stddef.h>
#include <stdint.h>

/* The deepest nesting taken from a peer. */
#define ACT__TERM_DEPTH_MAX 512

/* The tags of the external term format (ERTS's erl_ext_dist). */
enum {
	ACT__ET_VERSION = 131,
	ACT__ET_NEW_FLOAT = 70,
	ACT__ET_BIT_BINARY = 77,
	ACT__ET_COMPRESSED = 80,
	ACT__ET_ATOM_CACHE_REF = 82,
	ACT__ET_NEW_PID = 88,
	ACT__ET_NEW_PORT = 89,
	ACT__ET_NEWER_REFERENCE = 90,
	ACT__ET_SMALL_INTEGER = 97,
	ACT__ET_INTEGER = 98,
	ACT__ET_FLOAT = 99,
	ACT__ET_ATOM = 100,
	ACT__ET_REFERENCE = 101,
	ACT__ET_PORT = 102,
	ACT__ET_PID = 103,
	ACT__ET_SMALL_TUPLE = 104,
	ACT__ET_LARGE_TUPLE = 105,
	ACT__ET_NIL = 106,
	ACT__ET_STRING = 107,
	ACT__ET_LIST = 108,
	ACT__ET_BINARY = 109,
	ACT__ET_SMALL_BIG = 110,
	ACT__ET_LARGE_BIG = 111,
	ACT__ET_NEW_FUN = 112,
	ACT__ET_EXPORT = 113,
	ACT__ET_NEW_REFERENCE = 114,
	ACT__ET_SMALL_ATOM = 115,
	ACT__ET_MAP = 116,
	ACT__ET_FUN = 117,
	ACT__ET_ATOM_UTF8 = 118,
	ACT__ET_SMALL_ATOM_UTF8 = 119,
	ACT__ET_V4_PORT = 120,
	ACT__ET_LOCAL = 121,
};

/* The big-endian 32-bit word at p, as the format writes its lengths. */
static inline uint32_t act__term_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* What a refused term was refused for: its reason and offset. */
struct act__term_err {
	const char *why;
	size_t at;
};

/*
 * One term at p[0] (no version byte: the caller takes it), n bytes at
 * most: its length on success; -1 with *err set when it is refused or
 * cut short (err->why says which).
 */
long act__term_check(const uint8_t *p, size_t n, struct act__term_err *err);

#endif /* ACT_DIST_TERM_H */
