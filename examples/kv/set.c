/* SPDX-License-Identifier: MIT */
/*
 * set.c - the kv example's set, sorted integers or a table of member
 * nodes (set.h).
 *
 * A large set's member is one allocation: the chain's next pointer, a
 * length byte (255: a size_t follows) and the bytes. No hash is kept: a
 * rehash hashes the member again, which costs less than the four bytes
 * it would take in each of a million nodes (a 14-byte member fits
 * malloc's 32-byte chunk whole). The table doubles when it holds as many
 * members as buckets and, at a removal that leaves it under an eighth
 * full, moves to the smallest that holds them; the move is a bucket per
 * write, as dict.c does for the keyspace. Lookups do not move buckets,
 * so that a set can be read while it is iterated.
 */
#include "set.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "resp.h"

#define MIN_BUCKETS 4
#define EMPTY_VISITS 10 /* empty buckets one rehash step may pass over */
#define LONG_LEN 255	/* the length byte of a member of 255 bytes or more */

struct node {
	struct node *next;
	unsigned char b[]; /* the length, then the bytes */
};

struct table {
	struct node **t[2]; /* t[1] is the new table while rehashing */
	size_t size[2];	    /* buckets, a power of two (or 0) */
	size_t used[2];
	size_t rehash; /* next bucket of t[0] to move, when t[1] */
};

struct kv_set {
	bool large;
	uint32_t n, cap; /* small: the integers */
	int64_t *iv;	 /* small: sorted ascending */
	struct table h;	 /* large */
};

/* ---- random picks -------------------------------------------------------- */

static uint64_t rng;

void set_seed(uint64_t seed)
{
	rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

/* xorshift64*: fast, and random enough to pick members by. */
static uint64_t rnd(void)
{
	struct timespec ts;
	uint64_t x = rng;

	if (!x) {
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 20 ^
		    (uint64_t)getpid() << 40;
		x = x ? x : 1;
	}
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* ---- member nodes -------------------------------------------------------- */

static const char *node_bytes(const struct node *m, size_t *n)
{
	if (m->b[0] < LONG_LEN) {
		*n = m->b[0];
		return (const char *)m->b + 1;
	}
	memcpy(n, m->b + 1, sizeof(*n));
	return (const char *)m->b + 1 + sizeof(*n);
}

static struct node *node_new(const char *p, size_t n)
{
	size_t head = n < LONG_LEN ? 1 : 1 + sizeof(n);
	struct node *m = malloc(sizeof(*m) + head + n);

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

static bool node_is(const struct node *m, const char *p, size_t n)
{
	size_t len;
	const char *b = node_bytes(m, &len);

	return len == n && !memcmp(b, p, n);
}

static size_t node_hash(const struct node *m)
{
	size_t n;
	const char *p = node_bytes(m, &n);

	return (size_t)kv_hash(p, n);
}

/* ---- the large encoding's table ------------------------------------------ */

static bool rehashing(const struct table *h)
{
	return h->t[1] != NULL;
}

static size_t tab_count(const struct table *h)
{
	return h->used[0] + h->used[1];
}

/* The chain of t[w] where hash would be, or NULL: t[0]'s buckets below
 * the rehash point are empty, moved to t[1]. */
static struct node **chain(const struct table *h, int w, size_t hash)
{
	size_t i;

	if (!h->t[w])
		return NULL;
	i = hash & (h->size[w] - 1);
	if (w == 0 && rehashing(h) && i < h->rehash)
		return NULL;
	return &h->t[w][i];
}

/* The link that points at the member p[0..n), or NULL; *in: its table. */
static struct node **tab_find(const struct table *h, const char *p, size_t n,
			      size_t hash, int *in)
{
	struct node **link;
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

static void tab_done(struct table *h)
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
static void tab_step(struct table *h)
{
	size_t visits = EMPTY_VISITS, mask = h->size[1] - 1, i;
	struct node *m, *next;

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
static bool tab_resize(struct table *h, size_t n)
{
	struct node **t = calloc(n, sizeof(*t));
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

/* Links m in (it is not there). False: no table for it at all. */
static bool tab_insert(struct table *h, struct node *m, size_t hash)
{
	struct node **b;
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

static int tab_add(struct table *h, const char *p, size_t n)
{
	size_t hash = (size_t)kv_hash(p, n);
	struct node *m;
	int w;

	if (tab_find(h, p, n, hash, &w))
		return 0;
	m = node_new(p, n);
	if (!m)
		return -1;
	if (!tab_insert(h, m, hash)) {
		free(m);
		return -1;
	}
	return 1;
}

/* A table far emptier than its buckets starts moving to a smaller one:
 * random picks probe buckets until one is not empty. */
static void tab_maybe_shrink(struct table *h)
{
	if (rehashing(h) || h->size[0] <= MIN_BUCKETS ||
	    h->used[0] * 8 >= h->size[0])
		return;
	tab_resize(h, pow2_at_least(h->used[0])); /* no memory: as it is */
}

static bool tab_remove(struct table *h, const char *p, size_t n)
{
	size_t hash = (size_t)kv_hash(p, n);
	struct node **link, *m;
	int w;

	link = tab_find(h, p, n, hash, &w);
	if (!link)
		return false;
	m = *link;
	*link = m->next;
	free(m);
	h->used[w]--;
	if (rehashing(h))
		tab_step(h);
	else
		tab_maybe_shrink(h);
	return true;
}

static void tab_clear(struct table *h)
{
	struct node *m, *next;
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
static const struct node *tab_random(const struct table *h)
{
	const struct node *b, *m;
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

/* ---- the small encoding -------------------------------------------------- */

/* True if v is there; *at: its index, or where it would go. */
static bool small_find(const struct kv_set *s, int64_t v, uint32_t *at)
{
	uint32_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->iv[mid] == v) {
			*at = mid;
			return true;
		}
		if (s->iv[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}

static bool small_insert(struct kv_set *s, int64_t v, uint32_t at)
{
	int64_t *a;
	uint32_t cap;

	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 4;
		a = realloc(s->iv, cap * sizeof(*a));
		if (!a)
			return false;
		s->iv = a;
		s->cap = cap;
	}
	memmove(&s->iv[at + 1], &s->iv[at], (s->n - at) * sizeof(*s->iv));
	s->iv[at] = v;
	s->n++;
	return true;
}

/* Small to large: every integer into a table sized for them, at once. */
static bool grow_large(struct kv_set *s)
{
	struct table h;
	char buf[24];
	uint32_t i;

	memset(&h, 0, sizeof(h));
	if (!tab_resize(&h, pow2_at_least(s->n + 1)))
		return false;
	for (i = 0; i < s->n; i++) {
		size_t n = out_lltoa(buf, s->iv[i]);

		if (tab_add(&h, buf, n) < 0) {
			tab_clear(&h);
			return false;
		}
	}
	free(s->iv);
	s->iv = NULL;
	s->n = s->cap = 0;
	s->h = h;
	s->large = true;
	return true;
}

/* ---- the set ------------------------------------------------------------- */

struct kv_set *set_new(void)
{
	return calloc(1, sizeof(struct kv_set));
}

void set_free(struct kv_set *x)
{
	if (!x)
		return;
	tab_clear(&x->h);
	free(x->iv);
	free(x);
}

int set_add(struct kv_set *s, const char *p, size_t n)
{
	long long v;
	uint32_t at;

	if (!s->large) {
		if (resp_string2ll(p, n, &v)) {
			if (small_find(s, v, &at))
				return 0;
			if (s->n < KV_SET_INTSET_MAX)
				return small_insert(s, v, at) ? 1 : -1;
		}
		if (!grow_large(s))
			return -1;
	}
	return tab_add(&s->h, p, n);
}

bool set_remove(struct kv_set *s, const char *p, size_t n)
{
	long long v;
	uint32_t at;

	if (s->large)
		return tab_remove(&s->h, p, n);
	if (!resp_string2ll(p, n, &v) || !small_find(s, v, &at))
		return false;
	memmove(&s->iv[at], &s->iv[at + 1], (s->n - at - 1) * sizeof(*s->iv));
	s->n--;
	return true;
}

bool set_has(const struct kv_set *s, const char *p, size_t n)
{
	long long v;
	uint32_t at;
	int w;

	if (s->large)
		return tab_find(&s->h, p, n, (size_t)kv_hash(p, n), &w) != NULL;
	return resp_string2ll(p, n, &v) && small_find(s, v, &at);
}

size_t set_card(const struct kv_set *s)
{
	return s->large ? tab_count(&s->h) : s->n;
}

bool set_is_small(const struct kv_set *s)
{
	return !s->large;
}

static void member_of_int(struct kv_member *m, int64_t v)
{
	m->n = out_lltoa(m->buf, v);
	m->p = m->buf;
}

void set_random(const struct kv_set *s, struct kv_member *m)
{
	if (s->large)
		m->p = node_bytes(tab_random(&s->h), &m->n);
	else
		member_of_int(m, s->iv[rnd() % s->n]);
}

void set_swap(struct kv_set *a, struct kv_set *b)
{
	struct kv_set t = *a;

	*a = *b;
	*b = t;
}

void set_iter_init(struct kv_set_iter *it, const struct kv_set *s)
{
	memset(it, 0, sizeof(*it));
	it->s = s;
}

bool set_next(struct kv_set_iter *it, struct kv_member *m)
{
	const struct table *h = &it->s->h;
	const struct node *node = it->node;

	if (!it->s->large) {
		if (it->i >= it->s->n)
			return false;
		member_of_int(m, it->s->iv[it->i++]);
		return true;
	}
	while (!node) {
		if (it->i >= h->size[it->table]) {
			if (it->table == 1 || !h->t[1])
				return false;
			it->table = 1;
			it->i = 0;
			continue;
		}
		node = h->t[it->table][it->i++];
	}
	it->node = node->next;
	m->p = node_bytes(node, &m->n);
	return true;
}
