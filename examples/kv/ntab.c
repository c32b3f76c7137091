/* SPDX-License-Identifier: MIT */
/* ntab.c - a table of nodes that are each one allocation (ntab.h). */
#include "ntab.h"

#include <stdlib.h>
#include <string.h>

#include "dict.h"

#define MIN_BUCKETS 4
#define EMPTY_VISITS 10 /* empty buckets one rehash step may pass over */
#define LONG_LEN 255	/* the length byte of a key of 255 bytes or more */

/* ---- nodes ----------------------------------------------------------------- */

const char *ntab_key(const struct kv_node *m, size_t *n)
{
	if (m->b[0] < LONG_LEN) {
		*n = m->b[0];
		return (const char *)m->b + 1;
	}
	memcpy(n, m->b + 1, sizeof(*n));
	return (const char *)m->b + 1 + sizeof(*n);
}

struct kv_node *ntab_node(const char *p, size_t n, size_t extra)
{
	size_t head = n < LONG_LEN ? 1 : 1 + sizeof(n);
	struct kv_node *m = malloc(sizeof(*m) + head + n + extra);

	if (!m)
		return NULL;
	m->next = NULL;
	if (n < LONG_LEN) {
		m->b[0] = (unsigned char)n;
	} else {
		m->b[0] = LONG_LEN;
		memcpy(m->b + 1, &n, sizeof(n));
	}
	memcpy(m->b + head, p, n);
	return m;
}

unsigned char *ntab_extra(const struct kv_node *m)
{
	size_t n;
	const char *k = ntab_key(m, &n);

	return (unsigned char *)k + n;
}

static bool node_is(const struct kv_node *m, const char *p, size_t n)
{
	size_t len;
	const char *b = ntab_key(m, &len);

	return len == n && !memcmp(b, p, n);
}

static size_t node_hash(const struct kv_node *m)
{
	size_t n;
	const char *p = ntab_key(m, &n);

	return (size_t)kv_hash(p, n);
}

/* ---- the table -------------------------------------------------------------- */

static bool rehashing(const struct kv_ntab *h)
{
	return h->t[1] != NULL;
}

size_t ntab_count(const struct kv_ntab *h)
{
	return h->used[0] + h->used[1];
}

/* The chain of t[w] where hash would be, or NULL: t[0]'s buckets below
 * the rehash point are empty, moved to t[1]. */
static struct kv_node **chain(const struct kv_ntab *h, int w, size_t hash)
{
	size_t i;

	if (!h->t[w])
		return NULL;
	i = hash & (h->size[w] - 1);
	if (w == 0 && rehashing(h) && i < h->rehash)
		return NULL;
	return &h->t[w][i];
}

struct kv_node **ntab_find(const struct kv_ntab *h, const char *p, size_t n,
			   size_t hash, int *in)
{
	struct kv_node **link;
	int w;

	for (w = 0; w < 2; w++) {
		for (link = chain(h, w, hash); link && *link;
		     link = &(*link)->next) {
			if (node_is(*link, p, n)) {
				*in = w;
				return link;
			}
		}
	}
	return NULL;
}

static void tab_done(struct kv_ntab *h)
{
	free(h->t[0]);
	h->t[0] = h->t[1];
	h->size[0] = h->size[1];
	h->used[0] = h->used[1];
	h->t[1] = NULL;
	h->size[1] = h->used[1] = 0;
	h->rehash = 0;
}

/* Moves one bucket of t[0] (passing over a few empty ones) to t[1]. */
static void tab_step(struct kv_ntab *h)
{
	size_t visits = EMPTY_VISITS, mask = h->size[1] - 1, i;
	struct kv_node *m, *next;

	while (h->rehash < h->size[0] && !h->t[0][h->rehash] && visits--)
		h->rehash++;
	if (h->rehash < h->size[0]) {
		for (m = h->t[0][h->rehash]; m; m = next) {
			next = m->next;
			i = node_hash(m) & mask;
			m->next = h->t[1][i];
			h->t[1][i] = m;
			h->used[0]--;
			h->used[1]++;
		}
		h->t[0][h->rehash++] = NULL;
	}
	if (h->rehash >= h->size[0] && !h->used[0])
		tab_done(h);
}

/* Starts moving everything to a table of n buckets (or makes the first). */
static bool tab_resize(struct kv_ntab *h, size_t n)
{
	struct kv_node **t = calloc(n, sizeof(*t));
	int w = h->t[0] ? 1 : 0;

	if (!t)
		return false;
	h->t[w] = t;
	h->size[w] = n;
	h->rehash = 0;
	return true;
}

static size_t pow2_at_least(size_t n)
{
	size_t b = MIN_BUCKETS;

	while (b < n && b < SIZE_MAX / 4)
		b *= 2;
	return b;
}

bool ntab_insert(struct kv_ntab *h, struct kv_node *m, size_t hash)
{
	struct kv_node **b;
	int w;

	if (rehashing(h))
		tab_step(h);
	else if (!h->t[0])
		tab_resize(h, MIN_BUCKETS);
	else if (h->used[0] >= h->size[0] && h->size[0] < SIZE_MAX / 4)
		tab_resize(h, h->size[0] * 2); /* no memory: a longer chain */
	if (!h->t[0])
		return false;
	w = rehashing(h) ? 1 : 0; /* new members go to the new table */
	b = &h->t[w][hash & (h->size[w] - 1)];
	m->next = *b;
	*b = m;
	h->used[w]++;
	return true;
}

/* A table far emptier than its buckets starts moving to a smaller one:
 * random picks probe buckets until one is not empty. */
static void tab_maybe_shrink(struct kv_ntab *h)
{
	if (rehashing(h) || h->size[0] <= MIN_BUCKETS ||
	    h->used[0] * 8 >= h->size[0])
		return;
	tab_resize(h, pow2_at_least(h->used[0])); /* no memory: as it is */
}

struct kv_node *ntab_unlink(struct kv_ntab *h, struct kv_node **link, int in)
{
	struct kv_node *m = *link;

	*link = m->next;
	h->used[in]--;
	if (rehashing(h))
		tab_step(h);
	else
		tab_maybe_shrink(h);
	return m;
}

struct kv_node *ntab_replace(struct kv_node **link, struct kv_node *m)
{
	struct kv_node *old = *link;

	m->next = old->next;
	*link = m;
	return old;
}

void ntab_clear(struct kv_ntab *h)
{
	struct kv_node *m, *next;
	size_t i;
	int w;

	for (w = 0; w < 2; w++) {
		for (i = 0; i < h->size[w]; i++) {
			for (m = h->t[w][i]; m; m = next) {
				next = m->next;
				free(m);
			}
		}
		free(h->t[w]);
	}
	memset(h, 0, sizeof(*h));
}

/* A member at random: a random bucket until one is not empty, then a
 * random member of its chain (redis's dictGetRandomKey). The table is
 * not empty. */
const struct kv_node *ntab_random(const struct kv_ntab *h,
				  uint64_t (*rnd)(void))
{
	const struct kv_node *b, *m;
	size_t i, len, span;

	do {
		if (rehashing(h)) {
			span = h->size[0] + h->size[1] - h->rehash;
			i = h->rehash + (size_t)(rnd() % span);
			b = i < h->size[0] ? h->t[0][i] :
					     h->t[1][i - h->size[0]];
		} else {
			b = h->t[0][rnd() & (h->size[0] - 1)];
		}
	} while (!b);
	for (len = 0, m = b; m; m = m->next)
		len++;
	for (i = (size_t)(rnd() % len); i; i--)
		b = b->next;
	return b;
}

bool ntab_presize(struct kv_ntab *h, size_t n)
{
	return tab_resize(h, pow2_at_least(n));
}

void ntab_iter_init(struct kv_ntab_iter *it)
{
	memset(it, 0, sizeof(*it));
}

const struct kv_node *ntab_next(const struct kv_ntab *h,
				struct kv_ntab_iter *it)
{
	const struct kv_node *node = it->node;

	while (!node) {
		if (it->i >= h->size[it->table]) {
			if (it->table == 1 || !h->t[1])
				return NULL;
			it->table = 1;
			it->i = 0;
			continue;
		}
		node = h->t[it->table][it->i++];
	}
	it->node = node->next;
	return node;
}
