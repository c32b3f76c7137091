/* SPDX-License-Identifier: MIT */
/* list.c - the kv example's list, a ring of strings (list.h). */
#include "list.h"

#include <stdlib.h>

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

struct kv_str *list_at(const struct kv_list *l, size_t i)
{
	return l->a[(l->head + i) & (l->cap - 1)];
}

void list_free(struct kv_list *l)
{
	while (l->n)
		free(list_pop(l, true));
	free(l->a);
	free(l);
}
