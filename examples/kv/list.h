/* SPDX-License-Identifier: MIT */
/*
 * list.h - the kv example's list: a ring of strings, a power of two long,
 * so that a push or a pop at either end is O(1) and an index is one mask.
 * Inserts and removals inside it move the shorter side. One owner (a
 * shard process): nothing here is shared.
 */
#ifndef KV_LIST_H
#define KV_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "dict.h"

struct kv_list {
	struct kv_str **a;
	size_t cap; /* a power of two, or 0 */
	size_t head;
	size_t n;
};

struct kv_list *list_new(void);
/* Frees l and every string in it. */
void list_free(struct kv_list *l);

/* s at the head (left) or the tail; false on no memory (s not taken). */
bool list_push(struct kv_list *l, bool left, struct kv_str *s);
/* The string at the head or the tail, taken out; NULL when empty. */
struct kv_str *list_pop(struct kv_list *l, bool left);
/* The i-th string, 0 at the head; i < l->n. */
struct kv_str *list_at(const struct kv_list *l, size_t i);
/* The i-th string freed and s in its place; i < l->n. */
void list_set(struct kv_list *l, size_t i, struct kv_str *s);
/* s as the i-th string (i <= l->n), those from i one further on; false on
 * no memory (s not taken). */
bool list_insert(struct kv_list *l, size_t i, struct kv_str *s);
/* The i-th string taken out (i < l->n), the others closing up. */
struct kv_str *list_remove(struct kv_list *l, size_t i);
/* Frees the strings equal to p[0..n), the first `limit` of them from the
 * head or the tail (0: all), in one pass; how many. */
size_t list_remove_equal(struct kv_list *l, const char *p, size_t n,
			 bool from_tail, size_t limit);

#endif /* KV_LIST_H */
