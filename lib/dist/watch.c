/* SPDX-License-Identifier: MIT */
/*
 * watch.c - the remote monitors of a connection (watch.h): an array and
 * two indexes of it, by the proxy's monitor reference and by the
 * watcher's (pid, Erlang reference). Deletion shifts the probe run back
 * (no tombstones), and the entry moved into a hole is renumbered in
 * both indexes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "watch.h"
#include "base/internal.h"

static uint64_t hash_lref(uint64_t lref)
{
	return act__internal_mix64(lref);
}

static uint64_t hash_eref(act_pid watcher, const erlang_ref *e)
{
	uint64_t h = act__internal_mix64(watcher.id ^ e->creation);
	int i;

	for (i = 0; i < e->len && i < 5; i++)
		h = act__internal_mix64(h ^ e->n[i]);
	return h;
}

static uint64_t hash_of(const struct act__watches *t, bool by_lref, size_t i)
{
	const struct act__watch *w = &t->w[i];

	return by_lref ? hash_lref(w->lref) : hash_eref(w->watcher, &w->eref);
}

/* The slot holding entry i in one index (it is there) */
static size_t slot_of(const struct act__watches *t, bool by_lref, size_t i)
{
	const uint32_t *s = by_lref ? t->by_lref : t->by_eref;
	size_t k = (size_t)hash_of(t, by_lref, i) & t->mask;

	while (s[k] != i + 1)
		k = (k + 1) & t->mask;
	return k;
}

static void put(struct act__watches *t, bool by_lref, size_t i)
{
	uint32_t *s = by_lref ? t->by_lref : t->by_eref;
	size_t k = (size_t)hash_of(t, by_lref, i) & t->mask;

	while (s[k])
		k = (k + 1) & t->mask;
	s[k] = (uint32_t)(i + 1);
}

/* Entry i out of one index: the run after its slot shifts back over
 * the hole, each entry that may move (its home not in (hole, j]) */
static void unput(struct act__watches *t, bool by_lref, size_t i)
{
	uint32_t *s = by_lref ? t->by_lref : t->by_eref;
	size_t hole = slot_of(t, by_lref, i), j = hole, home;

	for (;;) {
		j = (j + 1) & t->mask;
		if (!s[j])
			break;
		home = (size_t)hash_of(t, by_lref, s[j] - 1) & t->mask;
		if (((j - home) & t->mask) < ((j - hole) & t->mask))
			continue; /* its home is after the hole */
		s[hole] = s[j];
		hole = j;
	}
	s[hole] = 0;
}

/* Indexes of twice as many slots, built again */
static int grow(struct act__watches *t)
{
	size_t slots = t->mask ? 2 * (t->mask + 1) : 32, i;
	uint32_t *a = calloc(slots, sizeof(*a)), *b = calloc(slots, sizeof(*b));
	struct act__watch *w = realloc(t->w, slots / 2 * sizeof(*w));

	if (!a || !b || !w) {
		free(a);
		free(b);
		if (w)
			t->w = w;
		return -ENOMEM;
	}
	free(t->by_lref);
	free(t->by_eref);
	t->w = w;
	t->cap = slots / 2;
	t->by_lref = a;
	t->by_eref = b;
	t->mask = slots - 1;
	for (i = 0; i < t->n; i++) {
		put(t, true, i);
		put(t, false, i);
	}
	return 0;
}

int act__watch_add(struct act__watches *t, const struct act__watch *w)
{
	if (t->n == t->cap && grow(t))
		return -ENOMEM;
	t->w[t->n] = *w;
	put(t, true, t->n);
	put(t, false, t->n);
	t->n++;
	return 0;
}

long act__watch_find_lref(const struct act__watches *t, uint64_t lref)
{
	size_t k;

	if (!t->n)
		return -1;
	for (k = (size_t)hash_lref(lref) & t->mask; t->by_lref[k];
	     k = (k + 1) & t->mask)
		if (t->w[t->by_lref[k] - 1].lref == lref)
			return (long)t->by_lref[k] - 1;
	return -1;
}

long act__watch_find_eref(const struct act__watches *t, act_pid watcher,
			  const erlang_ref *eref)
{
	size_t k;

	if (!t->n)
		return -1;
	for (k = (size_t)hash_eref(watcher, eref) & t->mask; t->by_eref[k];
	     k = (k + 1) & t->mask) {
		const struct act__watch *w = &t->w[t->by_eref[k] - 1];

		if (w->watcher.id == watcher.id &&
		    !ei_cmp_refs((erlang_ref *)&w->eref, (erlang_ref *)eref))
			return (long)t->by_eref[k] - 1;
	}
	return -1;
}

void act__watch_take(struct act__watches *t, size_t i, struct act__watch *out)
{
	size_t last = t->n - 1;

	*out = t->w[i];
	unput(t, true, i);
	unput(t, false, i);
	if (i != last) {
		t->by_lref[slot_of(t, true, last)] = (uint32_t)(i + 1);
		t->by_eref[slot_of(t, false, last)] = (uint32_t)(i + 1);
		t->w[i] = t->w[last];
	}
	t->n--;
}

void act__watch_fini(struct act__watches *t)
{
	free(t->w);
	free(t->by_lref);
	free(t->by_eref);
	memset(t, 0, sizeof(*t));
}
