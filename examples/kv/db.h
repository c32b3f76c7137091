/* SPDX-License-Identifier: MIT */
/*
 * db.h - one shard's keyspace: keys to strings, lists and hashes, with
 * expiry lazy on access and a bounded sweep (db_sweep) for the keys no
 * one reads again.
 *
 * A string's bytes live in its key's entry. A list is a ring of items, a
 * hash is a small array of (field, value) pairs in insertion order until
 * it has more than 128 fields or a field or value over 64 bytes, then a
 * dict: the same thresholds as redis's listpack encoding, so that
 * HGETALL answers in redis's order wherever redis keeps one.
 */
#ifndef KV_DB_H
#define KV_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"

#define KV_HASH_SMALL_FIELDS 128
#define KV_HASH_SMALL_BYTES 64

struct kv_str {
	uint32_t len;
	char p[];
};

struct kv_list {
	struct kv_str **a;
	size_t cap; /* a power of two, or 0 */
	size_t head;
	size_t n;
};

struct kv_hash {
	bool large;
	size_t n, cap;	    /* small: pairs */
	struct kv_str **fv; /* small: field, value, field, value... */
	struct kv_dict d;   /* large: field -> value entries */
};

struct kv_db {
	struct kv_dict keys;
	size_t expires; /* keys with an expiry */
	size_t sweep_cursor;
	uint64_t expired; /* keys removed by expiry, lazily or swept */
};

/* unix time in ms */
int64_t kv_now_ms(void);

void db_init(struct kv_db *db);
void db_flush(struct kv_db *db);
size_t db_count(const struct kv_db *db);

/* The live entry of key (an expired one is removed first), or NULL. */
struct kv_entry *db_find(struct kv_db *db, const char *k, size_t klen,
			 uint32_t hash);
void db_delete(struct kv_db *db, struct kv_entry *e);
/* A new entry of type, expiry 0, with vcap value bytes, added to db. NULL
 * on no memory. The key must not be in db. */
struct kv_entry *db_add(struct kv_db *db, const char *k, size_t klen,
			uint32_t hash, enum kv_type type, size_t vcap);
/* e's string value set to v (e may move: the new entry is returned, NULL
 * on no memory with e as it was). */
struct kv_entry *db_set_value(struct kv_db *db, struct kv_entry *e,
			      const void *v, size_t vlen);
/* e's string value with n bytes appended (may move, NULL on no memory). */
struct kv_entry *db_append(struct kv_db *db, struct kv_entry *e, const void *v,
			   size_t n);
void db_set_expire(struct kv_db *db, struct kv_entry *e, int64_t at_ms);

/* Removes expired keys among up to `buckets` buckets; returns them. */
size_t db_sweep(struct kv_db *db, size_t buckets);

/* Objects behind list and hash entries. */
struct kv_list *db_list(struct kv_entry *e);
struct kv_hash *db_hash(struct kv_entry *e);

struct kv_str *kv_str_new(const void *p, size_t n);

bool list_push(struct kv_list *l, bool left, struct kv_str *s);
struct kv_str *list_pop(struct kv_list *l, bool left);
struct kv_str *list_at(const struct kv_list *l, size_t i);

/* True and the value of field in *v, *vn; false if it is not there. */
bool hash_get(struct kv_hash *h, const char *f, size_t fn, const char **v,
	      size_t *vn);
/* Sets field to value: 1 if the field is new, 0 if replaced, -1 on no
 * memory. */
int hash_set(struct kv_hash *h, const char *f, size_t fn, const char *v,
	     size_t vn);
bool hash_del(struct kv_hash *h, const char *f, size_t fn);
size_t hash_len(const struct kv_hash *h);
/* Calls fn on every (field, value), in insertion order while small. */
void hash_each(struct kv_hash *h,
	       void (*fn)(const char *f, size_t fn, const char *v, size_t vn,
			  void *ctx),
	       void *ctx);

#endif /* KV_DB_H */
