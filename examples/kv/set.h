/* SPDX-License-Identifier: MIT */
/*
 * set.h - the kv example's set: distinct byte strings, in one of two
 * encodings as redis 7.0 keeps them.
 *
 * Small: a sorted array of 64-bit integers while every member is an
 * integer in canonical form (as redis's string2ll reads it) and there are
 * at most 512 of them (set-max-intset-entries); members iterate in
 * ascending order, as redis's intset does. Large: a chained hash table of
 * compact member nodes (a next pointer, a length byte, the bytes), grown
 * and shrunk by an incremental rehash of a bucket or so per write, so a
 * million members never stop a shard. A set becomes large for good, as
 * in redis. Lookups and random picks are O(1) expected on the large
 * encoding, O(log n) and O(1) on the small one.
 *
 * One owner (a shard process): nothing here is shared. Reads (set_has,
 * set_random, the iterator) never move members, so a set may be read
 * while it is iterated; a write during an iteration ends its validity.
 */
#ifndef KV_SET_H
#define KV_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"
#include "ntab.h"

#define KV_SET_INTSET_MAX 512

struct kv_set;

/* A member as read from a set: its bytes at p, which point into buf for
 * an integer of the small encoding, or into the set (valid until the
 * set's next write). */
struct kv_member {
	const char *p;
	size_t n;
	char buf[24];
};

struct kv_set_iter {
	const struct kv_set *s;
	size_t i;	       /* small: the next index */
	struct kv_ntab_iter t; /* large */
};

struct kv_set *set_new(void);
/* Frees x and every member. */
void set_free(struct kv_set *x);

/* Adds p[0..n): 1 if it is new, 0 if it was there, -1 on no memory (the
 * set as it was). */
int set_add(struct kv_set *s, const char *p, size_t n);
/* Removes p[0..n) (which may point into s's own member): false if it was
 * not there. */
bool set_remove(struct kv_set *s, const char *p, size_t n);
bool set_has(const struct kv_set *s, const char *p, size_t n);
size_t set_card(const struct kv_set *s);
/* True while the small (intset) encoding holds it. */
bool set_is_small(const struct kv_set *s);

/* A member picked at random into *m: s must not be empty. */
void set_random(const struct kv_set *s, struct kv_member *m);
/* The random picks' generator restarted from seed (tests); it starts
 * from the clock otherwise. */
void set_seed(uint64_t seed);

/* Exchanges the contents of a and b. */
void set_swap(struct kv_set *a, struct kv_set *b);

void set_iter_init(struct kv_set_iter *it, const struct kv_set *s);
/* The next member into *m; false at the end. */
bool set_next(struct kv_set_iter *it, struct kv_member *m);

#endif /* KV_SET_H */
