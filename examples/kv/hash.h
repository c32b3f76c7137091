/* SPDX-License-Identifier: MIT */
/*
 * hash.h - the kv example's hash: a small array of (field, value) pairs
 * in insertion order until it has more than 128 fields or a field or
 * value over 64 bytes, then a table (ntab.h) of one node per field, the
 * value after the field in it: a field of 14 bytes and a value of 3 take
 * a 48-byte allocation and a bucket. The thresholds are redis's listpack limits, so HGETALL
 * answers in redis's order wherever redis keeps one. One owner (a shard
 * process): nothing here is shared.
 */
#ifndef KV_HASH_H
#define KV_HASH_H

#include <stdbool.h>
#include <stddef.h>

#include "dict.h"
#include "ntab.h"

#define KV_HASH_SMALL_FIELDS 128
#define KV_HASH_SMALL_BYTES 64

struct kv_hash {
	bool large;
	size_t n, cap;	    /* small: pairs; 0 once large */
	struct kv_str **fv; /* small: field, value, field, value... */
	struct kv_ntab t;   /* large: a node per field, its value in it */
};

struct kv_hash *hash_new(void);
/* Frees h and every field and value. */
void hash_free(struct kv_hash *h);

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

#endif /* KV_HASH_H */
