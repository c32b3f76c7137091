/* SPDX-License-Identifier: MIT */
/*
 * dict.h - the kv example's hash table: chained, power-of-two buckets,
 * rehashed incrementally (a bucket or so per operation, as redis's dict
 * does) so that growing a table of a million keys never stops a shard for
 * the whole move.
 *
 * An entry is one allocation: its header, the key's bytes, then the
 * value's (a string's bytes, or a pointer to its object). The keyspace
 * of a shard and a large hash's fields are both dicts of entries. A
 * kv_str is the other unit of storage: a length and bytes, for the items
 * of lists and small hashes. One owner (a shard process): nothing here
 * is shared.
 */
#ifndef KV_DICT_H
#define KV_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kv_type {
	KV_STRING = 1,
	KV_LIST,
	KV_HASH,
	KV_SET,
	KV_ZSET,
	KV_STREAM,
};

struct kv_entry {
	struct kv_entry *next; /* the bucket's chain */
	int64_t expire_ms;     /* unix time in ms; 0: never (keys only) */
	uint32_t hash;	       /* the key's hash, low half */
	uint32_t klen;
	uint32_t vlen; /* strings: the value's bytes */
	uint32_t vcap; /* bytes allocated after the key */
	uint8_t type;  /* enum kv_type */
	uint8_t mark;  /* keys: the append-only rewrite that has it (db.h) */
	char data[];   /* key, then value (or its object's pointer) */
};

struct kv_str {
	uint32_t len;
	char p[];
};

/* A string of p[0..n): NULL on no memory or past 4 GiB. */
struct kv_str *kv_str_new(const void *p, size_t n);

struct kv_dict {
	struct kv_entry **t[2]; /* t[1] is the new table while rehashing */
	size_t size[2];		/* buckets, a power of two (or 0) */
	size_t used[2];
	size_t rehash; /* next bucket of t[0] to move, when t[1] */
};

/* The seeded hash of the kv example; the shard of a key is from its high
 * half, the bucket from its low half. */
uint64_t kv_hash(const void *p, size_t n);
void kv_hash_seed(uint64_t seed);

static inline const char *kv_key(const struct kv_entry *e)
{
	return e->data;
}

static inline char *kv_val(struct kv_entry *e)
{
	return e->data + e->klen;
}

void dict_init(struct kv_dict *d);
/* Every entry is handed to drop (NULL: free()), then the tables freed. */
void dict_clear(struct kv_dict *d, void (*drop)(struct kv_entry *e));
size_t dict_count(const struct kv_dict *d);

struct kv_entry *dict_find(struct kv_dict *d, const void *key, size_t klen,
			   uint32_t hash);
/* Adds e (its key not there: the caller looked). False: no memory for
 * the table's growth, e is added all the same to the old one. */
bool dict_add(struct kv_dict *d, struct kv_entry *e);
/* Unlinks e, which is in d. */
void dict_remove(struct kv_dict *d, struct kv_entry *e);

/*
 * A walk over every entry, a few buckets at a time, robust to changes
 * between calls (while a rehash moves entries, one may be seen twice or
 * missed in a pass). *cursor starts at 0. fn is called on each entry of
 * the next `buckets` buckets and may remove that entry, nothing else.
 * False when the pass is over (the cursor is 0 again).
 */
bool dict_scan(struct kv_dict *d, size_t *cursor, size_t buckets,
	       void (*fn)(struct kv_entry *e, void *ctx), void *ctx);
/*
 * SCAN's walk (redis's dictScan): the buckets in the order of their
 * index's bits reversed, so that a key there from the first call to the
 * last is seen at least once although the table grows, shrinks or is
 * being rehashed between calls (a key may be seen twice). Calls fn on
 * the entries of the next bucket (of each table, while rehashing) and
 * returns the cursor to pass next, 0 when the walk is over. fn must not
 * change d.
 */
size_t dict_scan_rb(struct kv_dict *d, size_t cursor,
		    void (*fn)(struct kv_entry *e, void *ctx), void *ctx);

/* Halves the table while it is less than an eighth full (the owner's
 * periodic work: removals never move a table). */
void dict_shrink(struct kv_dict *d);

/* A new entry with room for vcap value bytes: NULL on no memory. */
struct kv_entry *kv_entry_new(const void *key, size_t klen, uint32_t hash,
			      size_t vcap);

#endif /* KV_DICT_H */
