/* SPDX-License-Identifier: MIT */
/*
 * term.c - act__term_check: one term of the external format walked
 * without recursion or allocation (term.h).
 */
#include <stdbool.h>

#include "term.h"

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* The walk's position, the bytes and the refusal. */
struct walk {
	const uint8_t *p;
	size_t n, i;
	struct act__term_err *err;
};

static bool refuse(struct walk *w, const char *why)
{
	w->err->why = why;
	w->err->at = w->i;
	return false;
}

/* k more bytes are there, from i */
static bool have(struct walk *w, size_t k)
{
	return k <= w->n - w->i || refuse(w, "term cut short");
}

/* An atom at i, as a pid's, port's or reference's node: skipped. */
static bool atom(struct walk *w)
{
	size_t len, max;
	uint8_t tag;

	if (!have(w, 1))
		return false;
	tag = w->p[w->i];
	switch (tag) {
	case ACT__ET_ATOM:
	case ACT__ET_ATOM_UTF8:
		if (!have(w, 3))
			return false;
		len = be16(w->p + w->i + 1);
		max = tag == ACT__ET_ATOM ? 255 : 1020;
		w->i += 3;
		break;
	case ACT__ET_SMALL_ATOM:
	case ACT__ET_SMALL_ATOM_UTF8:
		if (!have(w, 2))
			return false;
		len = w->p[w->i + 1];
		max = 255;
		w->i += 2;
		break;
	case ACT__ET_ATOM_CACHE_REF:
		return refuse(w, "an atom cache reference, and no atom cache "
				 "was negotiated");
	default:
		return refuse(w, "a node that is not an atom");
	}
	if (len > max)
		return refuse(w, "an atom of more than 255 characters");
	if (!have(w, len))
		return false;
	w->i += len;
	return true;
}

/* A pid, port or reference at i (its tag read): skipped whole. */
static bool node_term(struct walk *w, uint8_t tag)
{
	size_t words = 0, tail;

	if (tag == ACT__ET_NEWER_REFERENCE || tag == ACT__ET_NEW_REFERENCE) {
		if (!have(w, 3))
			return false;
		words = be16(w->p + w->i + 1);
		if (words < 1 || words > 5)
			return refuse(w, "a reference of other than 1 to 5 "
					 "words");
		w->i += 3;
	} else {
		w->i += 1;
	}
	if (!atom(w))
		return false;
	switch (tag) {
	case ACT__ET_PID:
		tail = 9;
		break;
	case ACT__ET_NEW_PID:
		tail = 12;
		break;
	case ACT__ET_PORT:
	case ACT__ET_REFERENCE:
		tail = 5;
		break;
	case ACT__ET_NEW_PORT:
		tail = 8;
		break;
	case ACT__ET_V4_PORT:
		tail = 12;
		break;
	case ACT__ET_NEW_REFERENCE:
		tail = 1 + 4 * words;
		break;
	default: /* NEWER_REFERENCE */
		tail = 4 + 4 * words;
		break;
	}
	if (!have(w, tail))
		return false;
	w->i += tail;
	return true;
}

/* The bytes of a term of no elements at i, by its tag (read): *len;
 * false: refused. */
static bool leaf_len(struct walk *w, uint8_t tag, uint64_t *len)
{
	switch (tag) {
	case ACT__ET_SMALL_INTEGER:
		*len = 2;
		return true;
	case ACT__ET_INTEGER:
		*len = 5;
		return true;
	case ACT__ET_NEW_FLOAT:
		*len = 9;
		return true;
	case ACT__ET_FLOAT:
		*len = 32;
		return true;
	case ACT__ET_NIL:
		*len = 1;
		return true;
	case ACT__ET_STRING:
		if (!have(w, 3))
			return false;
		*len = 3 + (uint64_t)be16(w->p + w->i + 1);
		return true;
	case ACT__ET_BINARY:
		if (!have(w, 5))
			return false;
		*len = 5 + (uint64_t)act__term_be32(w->p + w->i + 1);
		return true;
	case ACT__ET_BIT_BINARY:
		if (!have(w, 6))
			return false;
		*len = 6 + (uint64_t)act__term_be32(w->p + w->i + 1);
		if (w->p[w->i + 5] < 1 || w->p[w->i + 5] > 8 || *len == 6)
			return refuse(w, "a bitstring's last byte of other "
					 "than 1 to 8 bits");
		return true;
	case ACT__ET_SMALL_BIG:
		if (!have(w, 2))
			return false;
		*len = 3 + (uint64_t)w->p[w->i + 1];
		return true;
	case ACT__ET_LARGE_BIG:
		if (!have(w, 5))
			return false;
		*len = 6 + (uint64_t)act__term_be32(w->p + w->i + 1);
		return true;
	case ACT__ET_NEW_FUN:
		/* passed through whole: its size counts its own 4 bytes */
		if (!have(w, 5))
			return false;
		*len = 1 + (uint64_t)act__term_be32(w->p + w->i + 1);
		if (*len < 5)
			return refuse(w, "a fun shorter than its own size");
		return true;
	default:
		return refuse(w, "an unknown term tag");
	}
}

/* A tuple's, list's, map's or export's head at i, by its tag (read):
 * *len its bytes, *kids its elements to come; false: refused. */
static bool compound_len(struct walk *w, uint8_t tag, uint64_t *len,
			 uint64_t *kids)
{
	if (tag == ACT__ET_EXPORT) {
		*kids = 3; /* module, function, arity */
		*len = 1;
		return true;
	}
	if (tag == ACT__ET_SMALL_TUPLE) {
		if (!have(w, 2))
			return false;
		*kids = w->p[w->i + 1];
		*len = 2;
		return true;
	}
	if (!have(w, 5))
		return false;
	*kids = act__term_be32(w->p + w->i + 1);
	*len = 5;
	if (tag == ACT__ET_LIST)
		*kids += 1; /* and its tail */
	else if (tag == ACT__ET_MAP)
		*kids *= 2;
	return true;
}

/* A term's head at i: skipped; *kids its elements to come (0 for a
 * term of none). false: refused. */
static bool head(struct walk *w, uint64_t *kids)
{
	uint8_t tag = w->p[w->i];
	uint64_t len = 0;
	bool ok;

	*kids = 0;
	switch (tag) {
	case ACT__ET_ATOM:
	case ACT__ET_ATOM_UTF8:
	case ACT__ET_SMALL_ATOM:
	case ACT__ET_SMALL_ATOM_UTF8:
	case ACT__ET_ATOM_CACHE_REF:
		return atom(w);
	case ACT__ET_PID:
	case ACT__ET_NEW_PID:
	case ACT__ET_PORT:
	case ACT__ET_NEW_PORT:
	case ACT__ET_V4_PORT:
	case ACT__ET_REFERENCE:
	case ACT__ET_NEW_REFERENCE:
	case ACT__ET_NEWER_REFERENCE:
		return node_term(w, tag);
	case ACT__ET_SMALL_TUPLE:
	case ACT__ET_LARGE_TUPLE:
	case ACT__ET_LIST:
	case ACT__ET_MAP:
	case ACT__ET_EXPORT:
		ok = compound_len(w, tag, &len, kids);
		break;
	case ACT__ET_COMPRESSED:
		return refuse(w, "a compressed term");
	case ACT__ET_LOCAL:
		return refuse(w, "a LOCAL_EXT term, which is another "
				 "node's own");
	case ACT__ET_FUN:
		return refuse(w, "an old FUN_EXT fun (before OTP 23)");
	default:
		ok = leaf_len(w, tag, &len);
		break;
	}
	if (!ok)
		return false;
	if (len > w->n - w->i)
		return refuse(w, "term cut short");
	w->i += len;
	/* each element takes a byte at least (and so a count fits the
	 * walk's 32 bits: a frame is far below 4 GiB) */
	if (*kids > w->n - w->i || *kids > UINT32_MAX)
		return refuse(w, "more elements than bytes left");
	return true;
}

long act__term_check(const uint8_t *p, size_t n, struct act__term_err *err)
{
	uint32_t left[ACT__TERM_DEPTH_MAX + 1];
	struct walk w = { p, n, 0, err };
	uint32_t depth = 0;
	uint64_t kids;
	size_t start;

	left[0] = 1; /* the term itself */
	while (depth || left[0]) {
		start = w.i;
		if (!have(&w, 1) || !head(&w, &kids))
			return -1;
		left[depth]--;
		if (kids) {
			if (depth == ACT__TERM_DEPTH_MAX) {
				w.i = start; /* the term that went too deep */
				refuse(&w, "a term nested too deep");
				return -1;
			}
			left[++depth] = (uint32_t)kids;
		}
		while (depth && !left[depth])
			depth--;
	}
	return (long)w.i;
}
