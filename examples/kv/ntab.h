/* SPDX-License-Identifier: MIT */
/*
 * ntab.h - the table of a large set's members and a large hash's
 * fields: chained, power-of-two buckets, rehashed a bucket per write as
 * dict.c does for the keyspace, of nodes that are each one allocation.
 *
 * A node is the chain's next pointer, a length byte (255: a size_t
 * follows) and the key's bytes, then whatever its owner puts after them
 * (a hash's value; nothing, for a set). No hash is kept: a rehash hashes
 * the key again, which costs less than the four bytes it would take in
 * each of a million nodes (a 14-byte member fits malloc's 32-byte chunk
 * whole). The table doubles when it holds as many nodes as buckets and,
 * at a removal that leaves it under an eighth full, moves to the
 * smallest that holds them. Lookups do not move buckets, so that a table
 * can be read while it is iterated. One owner (a shard process).
 */
#ifndef KV_NTAB_H
#define KV_NTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kv_node {
	struct kv_node *next;
	unsigned char b[]; /* the key's length, the key, the owner's bytes */
};

struct kv_ntab {
	struct kv_node **t[2]; /* t[1] is the new table while rehashing */
	size_t size[2];	       /* buckets, a power of two (or 0) */
	size_t used[2];
	size_t rehash; /* next bucket of t[0] to move, when t[1] */
};

/* A node of key p[0..n) with extra bytes of room after it (ntab_extra):
 * NULL on no memory. */
struct kv_node *ntab_node(const char *p, size_t n, size_t extra);
const char *ntab_key(const struct kv_node *m, size_t *n);
unsigned char *ntab_extra(const struct kv_node *m);

size_t ntab_count(const struct kv_ntab *h);
/* The link that points at key p[0..n) (hash: kv_hash of it), or NULL;
 * *in: its table. */
struct kv_node **ntab_find(const struct kv_ntab *h, const char *p, size_t n,
			   size_t hash, int *in);
/* Links m in (its key is not there). False: no table at all for it. */
bool ntab_insert(struct kv_ntab *h, struct kv_node *m, size_t hash);
/* Takes *link (ntab_find's, table in) out: the caller frees it. */
struct kv_node *ntab_unlink(struct kv_ntab *h, struct kv_node **link, int in);
/* m in *link's place (the same key), and the old node back to free. */
struct kv_node *ntab_replace(struct kv_node **link, struct kv_node *m);
/* A first table of at least n buckets, for a known count. */
bool ntab_presize(struct kv_ntab *h, size_t n);
/* Frees every node (and the tables). */
void ntab_clear(struct kv_ntab *h);
/* A node at random (rnd: 64 random bits a call); h not empty. */
const struct kv_node *ntab_random(const struct kv_ntab *h,
				  uint64_t (*rnd)(void));

/* Every node once, for a table that does not change meanwhile. */
struct kv_ntab_iter {
	size_t i;
	int table;
	const struct kv_node *node;
};
void ntab_iter_init(struct kv_ntab_iter *it);
const struct kv_node *ntab_next(const struct kv_ntab *h,
				struct kv_ntab_iter *it);

#endif /* KV_NTAB_H */
