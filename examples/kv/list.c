/* SPDX-License-Identifier: MIT */
/* list.c - the kv example's list, a ring of strings (list.h). */
#include "list.h"

#include <stdlib.h>
#include <string.h>

struct kv_list *list_new(void)
{
	return calloc(1, sizeof(struct kv_list));
}

bool list_push(struct kv_list *l, bool left, struct kv_str *s)
{
	struct kv_str **a;
	size_t cap, i;

	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 8;
		a = malloc(cap * sizeof(*a));
		if (!a)
			return false;
		for (i = 0; i < l->n; i++) /* unrolled from the ring */
			a[i] = l->a[(l->head + i) & (l->cap - 1)];
		free(l->a);
		l->a = a;
		l->cap = cap;
		l->head = 0;
	}
	if (left) {
		l->head = (l->head - 1) & (l->cap - 1);
		l->a[l->head] = s;
	} else {
		l->a[(l->head + l->n) & (l->cap - 1)] = s;
	}
	l->n++;
	return true;
}

struct kv_str *list_pop(struct kv_list *l, bool left)
{
	struct kv_str *s;

	if (!l->n)
		return NULL;
	if (left) {
		s = l->a[l->head];
		l->head = (l->head + 1) & (l->cap - 1);
	} else {
		s = l->a[(l->head + l->n - 1) & (l->cap - 1)];
	}
	l->n--;
	return s;
}

static struct kv_str **slot(const struct kv_list *l, size_t i)
{
	return &l->a[(l->head + i) & (l->cap - 1)];
}

struct kv_str *list_at(const struct kv_list *l, size_t i)
{
	return *slot(l, i);
}

void list_set(struct kv_list *l, size_t i, struct kv_str *s)
{
	free(*slot(l, i));
	*slot(l, i) = s;
}

bool list_insert(struct kv_list *l, size_t i, struct kv_str *s)
{
	bool front = i < l->n / 2; /* the room made on the nearer end */
	size_t k;

	if (!list_push(l, front, s))
		return false;
	if (front) { /* pushed at the head: the first i move down */
		for (k = 0; k < i; k++)
			*slot(l, k) = *slot(l, k + 1);
	} else { /* at the tail: those from i move up */
		for (k = l->n - 1; k > i; k--)
			*slot(l, k) = *slot(l, k - 1);
	}
	*slot(l, i) = s;
	return true;
}

struct kv_str *list_remove(struct kv_list *l, size_t i)
{
	struct kv_str *s = *slot(l, i);
	size_t k;

	if (i < l->n / 2) { /* the ones before it move up a place */
		for (k = i; k > 0; k--)
			*slot(l, k) = *slot(l, k - 1);
		list_pop(l, true);
	} else {
		for (k = i; k + 1 < l->n; k++)
			*slot(l, k) = *slot(l, k + 1);
		list_pop(l, false);
	}
	return s;
}

size_t list_remove_equal(struct kv_list *l, const char *p, size_t n,
			 bool from_tail, size_t limit)
{
	size_t i, k, kept = 0, removed = 0;
	struct kv_str *s;

	/* one pass, in the direction asked: the survivors packed toward the
	 * end the pass starts from, the freed places then popped */
	for (k = 0; k < l->n; k++) {
		i = from_tail ? l->n - 1 - k : k;
		s = *slot(l, i);
		if ((!limit || removed < limit) && s->len == n &&
		    !memcmp(s->p, p, n)) {
			free(s);
			removed++;
			continue;
		}
		*slot(l, from_tail ? l->n - 1 - kept : kept) = s;
		kept++;
	}
	for (k = 0; k < removed; k++)
		list_pop(l, from_tail);
	return removed;
}

void list_free(struct kv_list *l)
{
	while (l->n)
		free(list_pop(l, true));
	free(l->a);
	free(l);
}
