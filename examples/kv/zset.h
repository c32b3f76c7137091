/* SPDX-License-Identifier: MIT */
/*
 * zset.h - the kv example's sorted set: distinct byte strings (members),
 * each with a score, ordered by score and then by the members' bytes
 * (memcmp, the shorter first on a tie), as redis 7.0 orders them.
 *
 * Two encodings, with redis's thresholds, so that the few replies that
 * depend on the encoding (a lex range over mixed scores, a zero's sign)
 * are redis's too:
 *
 * Small, while there are at most 128 members of at most 64 bytes (redis's
 * listpack): a sorted array of pointers to (score, member) items. Lookups
 * by member are a scan, inserts a binary search and a move of at most 128
 * pointers; ranges are scanned as redis scans its listpack. A zero score
 * is kept as +0 here, as the listpack keeps it.
 *
 * Large: a skiplist whose links carry spans (the ranks they skip), for
 * O(log n) ranks and rank ranges, and a chained hash table from member to
 * node, rehashed a bucket or so per operation so that a million members
 * never stop a shard. Each member is one allocation: its node, which is
 * also its hash chain entry and holds the member's bytes (24 bytes of
 * header, a link per level, a 32-bit span per level above the first),
 * and there are no back links: a walk backwards reads blocks forwards.
 * A set becomes large for good, as in redis; it holds at most
 * UINT32_MAX - 1 members (the spans' width).
 *
 * Ranks are 0-based from the lowest score. One owner (a shard process):
 * nothing here is shared. A write ends the validity of the member
 * pointers handed out by reads.
 */
#ifndef KV_ZSET_H
#define KV_ZSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"

#define KV_ZSET_SMALL_MEMBERS 128 /* zset-max-listpack-entries */
#define KV_ZSET_SMALL_BYTES 64	  /* zset-max-listpack-value */

struct kv_zset;

/* ZADD's options (redis's ZADD_IN_*) */
enum {
	ZSET_INCR = 1 << 0,
	ZSET_NX = 1 << 1,
	ZSET_XX = 1 << 2,
	ZSET_GT = 1 << 3,
	ZSET_LT = 1 << 4,
};

/* What zset_add did (redis's ZADD_OUT_*), and its failures */
enum {
	ZSET_ADDED = 1 << 0,
	ZSET_UPDATED = 1 << 1,
	ZSET_NOP = 1 << 2, /* NX, XX, GT or LT said no */
	ZSET_NAN = 1 << 3, /* the increment made a NaN: nothing done */
	ZSET_NOMEM = 1 << 4,
};

/* One end of a lex range: "-", "+", or "[m" / "(m" (ex) */
struct zset_lexb {
	int inf; /* -1: "-", 1: "+", 0: the bytes p[0..n) */
	bool ex;
	const char *p;
	size_t n;
};

/* A range of scores, or (lex) of members, as ZRANGEBYSCORE and
 * ZRANGEBYLEX give it; min after max is an empty range. */
struct zset_spec {
	bool lex;
	double min, max;
	bool minex, maxex;
	struct zset_lexb lmin, lmax;
};

typedef void zset_fn(const char *m, size_t n, double score, void *ctx);

struct kv_zset *zset_new(void);
/* Frees x and every member. */
void zset_free(struct kv_zset *x);

size_t zset_len(const struct kv_zset *z);
bool zset_is_small(const struct kv_zset *z);

/*
 * ZADD's one member, as redis's zsetAdd: score set (or, ZSET_INCR, added
 * to the current one) under the options' conditions. Returns ZSET_* of
 * what it did; *newscore is the score it gave when neither ZSET_NOP nor
 * a failure is returned. score is not a NaN.
 */
int zset_add(struct kv_zset *z, double score, const char *m, size_t n,
	     int flags, double *newscore);
/* Removes member m: false if it was not there. */
bool zset_del(struct kv_zset *z, const char *m, size_t n);
bool zset_score(struct kv_zset *z, const char *m, size_t n, double *score);
/* m's rank from the lowest score: false if it is not there. */
bool zset_rank(struct kv_zset *z, const char *m, size_t n, size_t *rank);
/* The member at rank (< zset_len), and its score. */
void zset_at(struct kv_zset *z, size_t rank, const char **m, size_t *n,
	     double *score);

/* fn on count members from rank, rank up (or, rev, rank down): count
 * must fit. */
void zset_walk(struct kv_zset *z, size_t rank, size_t count, bool rev,
	       zset_fn *fn, void *ctx);
/* Removes the members of ranks [lo, hi]; hi < zset_len. */
void zset_del_ranks(struct kv_zset *z, size_t lo, size_t hi);

/* The rank of the first member in the range (redis's *FirstIn*Range),
 * or of the last: false if there is none. */
bool zset_first(struct kv_zset *z, const struct zset_spec *r, size_t *rank);
bool zset_last(struct kv_zset *z, const struct zset_spec *r, size_t *rank);
/* How many members from rank on (itself first), up or (rev) down, are in
 * the range before the first that is not, as redis's range replies walk
 * them; a large set's count is by the range's ends, for it is sorted by
 * the range (a lex range over mixed scores is not). */
size_t zset_run(struct kv_zset *z, const struct zset_spec *r, size_t rank,
		bool rev);

/* A random number of the set's own generator (ZRANDMEMBER's picks). */
uint64_t zset_random(struct kv_zset *z);

#endif /* KV_ZSET_H */
