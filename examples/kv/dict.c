/* SPDX-License-Identifier: MIT */
/* dict.c - the kv example's incrementally rehashed table (dict.h). */
#include "dict.h"

#include <stdlib.h>
#include <string.h>

#define MIN_BUCKETS 4
#define EMPTY_VISITS 10 /* empty buckets one rehash step may pass over */

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

void kv_hash_seed(uint64_t s)
{
	seed = s;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	return x;
}

/*
 * Eight bytes at a time, each word mixed into the state by a multiply and
 * a rotation, then a full avalanche. Seeded at start-up so that a client
 * cannot choose keys that share a bucket without knowing the seed; not a
 * cryptographic hash (redis uses SipHash for the same end).
 */
uint64_t kv_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0xff51afd7ed558ccdULL), w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h ^= w * 0x87c37b91114253d5ULL;
		h = ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fULL;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h ^= (w | (uint64_t)n << 56) * 0x87c37b91114253d5ULL;
		h = ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fULL;
	}
	return mix(h);
}

void dict_init(struct kv_dict *d)
{
	memset(d, 0, sizeof(*d));
}

size_t dict_count(const struct kv_dict *d)
{
	return d->used[0] + d->used[1];
}

static bool rehashing(const struct kv_dict *d)
{
	return d->t[1] != NULL;
}

/* Moves one bucket of t[0] (passing over a few empty ones) to t[1]. */
static void step(struct kv_dict *d)
{
	size_t visits = EMPTY_VISITS, mask1 = d->size[1] - 1;
	struct kv_entry *e, *next;

	while (d->rehash < d->size[0] && !d->t[0][d->rehash] && visits--)
		d->rehash++;
	if (d->rehash < d->size[0]) {
		for (e = d->t[0][d->rehash]; e; e = next) {
			next = e->next;
			e->next = d->t[1][e->hash & mask1];
			d->t[1][e->hash & mask1] = e;
			d->used[0]--;
			d->used[1]++;
		}
		d->t[0][d->rehash++] = NULL;
	}
	if (d->rehash >= d->size[0] && !d->used[0]) {
		free(d->t[0]);
		d->t[0] = d->t[1];
		d->size[0] = d->size[1];
		d->used[0] = d->used[1];
		d->t[1] = NULL;
		d->size[1] = d->used[1] = 0;
		d->rehash = 0;
	}
}

/* Starts moving everything to a table of n buckets. */
static bool resize(struct kv_dict *d, size_t n)
{
	struct kv_entry **t = calloc(n, sizeof(*t));

	if (!t)
		return false;
	if (!d->t[0]) {
		d->t[0] = t;
		d->size[0] = n;
		return true;
	}
	d->t[1] = t;
	d->size[1] = n;
	d->rehash = 0;
	return true;
}

/* The chain of t[which] where hash would be, or NULL: t[0]'s buckets
 * below the rehash point are empty, moved to t[1]. */
static struct kv_entry **chain(struct kv_dict *d, int which, uint32_t hash)
{
	size_t i;

	if (!d->t[which])
		return NULL;
	i = hash & (d->size[which] - 1);
	if (which == 0 && rehashing(d) && i < d->rehash)
		return NULL;
	return &d->t[which][i];
}

struct kv_entry *dict_find(struct kv_dict *d, const void *key, size_t klen,
			   uint32_t hash)
{
	struct kv_entry **h, *e;
	int w;

	if (rehashing(d))
		step(d);
	for (w = 0; w < 2; w++) {
		h = chain(d, w, hash);
		for (e = h ? *h : NULL; e; e = e->next)
			if (e->hash == hash && e->klen == klen &&
			    !memcmp(e->data, key, klen))
				return e;
	}
	return NULL;
}

bool dict_add(struct kv_dict *d, struct kv_entry *e)
{
	struct kv_entry **h;
	bool ok = true;
	int w;

	if (rehashing(d))
		step(d);
	else if (!d->t[0])
		ok = resize(d, MIN_BUCKETS);
	else if (d->used[0] + 1 > d->size[0] && d->size[0] < SIZE_MAX / 4)
		ok = resize(d, d->size[0] * 2);
	if (!d->t[0])
		return false;	  /* not even a first table */
	w = rehashing(d) ? 1 : 0; /* new entries go to the new table */
	h = &d->t[w][e->hash & (d->size[w] - 1)];
	e->next = *h;
	*h = e;
	d->used[w]++;
	return ok;
}

void dict_remove(struct kv_dict *d, struct kv_entry *e)
{
	struct kv_entry **p;
	int w;

	for (w = 0; w < 2; w++) {
		for (p = chain(d, w, e->hash); p && *p; p = &(*p)->next) {
			if (*p == e) {
				*p = e->next;
				d->used[w]--;
				return;
			}
		}
	}
}

void dict_shrink(struct kv_dict *d)
{
	size_t n = MIN_BUCKETS;

	if (rehashing(d) || d->size[0] <= MIN_BUCKETS ||
	    d->used[0] * 8 >= d->size[0])
		return;
	while (n < d->used[0] * 2)
		n *= 2;
	resize(d, n); /* no memory: it stays as it is */
}

bool dict_scan(struct kv_dict *d, size_t *cursor, size_t buckets,
	       void (*fn)(struct kv_entry *e, void *ctx), void *ctx)
{
	struct kv_entry *e, *next;
	size_t c = *cursor, i;
	int which;

	while (buckets--) {
		if (c < d->size[0]) {
			which = 0;
			i = c;
		} else if (c < d->size[0] + d->size[1]) {
			which = 1;
			i = c - d->size[0];
		} else {
			*cursor = 0;
			return false;
		}
		for (e = d->t[which][i]; e; e = next) {
			next = e->next;
			fn(e, ctx);
		}
		c++;
	}
	*cursor = c;
	return true;
}

static size_t rev(size_t v)
{
	size_t r = 0;
	unsigned i;

	for (i = 0; i < sizeof(v) * 8; i++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

/* The cursor's next value within mask: its reversed bits plus one. */
static size_t rev_next(size_t v, size_t mask)
{
	v |= ~mask;
	return rev(rev(v) + 1);
}

static void chain_each(struct kv_entry *e,
		       void (*fn)(struct kv_entry *e, void *ctx), void *ctx)
{
	struct kv_entry *next;

	for (; e; e = next) {
		next = e->next;
		fn(e, ctx);
	}
}

size_t dict_scan_rb(struct kv_dict *d, size_t cursor,
		    void (*fn)(struct kv_entry *e, void *ctx), void *ctx)
{
	size_t v = cursor, m0, m1;
	int small, large;

	if (!dict_count(d))
		return 0;
	if (!rehashing(d)) {
		m0 = d->size[0] - 1;
		chain_each(d->t[0][v & m0], fn, ctx);
		return rev_next(v, m0);
	}
	/* the smaller table's bucket, then every bucket of the larger one
	 * that its entries may have gone to (t[0]'s buckets below the
	 * rehash point are empty: all moved) */
	small = d->size[0] <= d->size[1] ? 0 : 1;
	large = 1 - small;
	m0 = d->size[small] - 1;
	m1 = d->size[large] - 1;
	chain_each(d->t[small][v & m0], fn, ctx);
	do {
		chain_each(d->t[large][v & m1], fn, ctx);
		v = rev_next(v, m1);
	} while (v & (m0 ^ m1));
	return v;
}

void dict_clear(struct kv_dict *d, void (*drop)(struct kv_entry *e))
{
	struct kv_entry *e, *next;
	size_t i;
	int w;

	for (w = 0; w < 2; w++) {
		for (i = 0; i < d->size[w]; i++) {
			for (e = d->t[w][i]; e; e = next) {
				next = e->next;
				if (drop)
					drop(e);
				else
					free(e);
			}
		}
		free(d->t[w]);
	}
	dict_init(d);
}

struct kv_entry *kv_entry_new(const void *key, size_t klen, uint32_t hash,
			      size_t vcap)
{
	struct kv_entry *e;

	if (klen > UINT32_MAX || vcap > UINT32_MAX)
		return NULL;
	e = malloc(sizeof(*e) + klen + vcap);
	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->hash = hash;
	e->klen = (uint32_t)klen;
	e->vcap = (uint32_t)vcap;
	memcpy(e->data, key, klen);
	return e;
}

struct kv_str *kv_str_new(const void *p, size_t n)
{
	struct kv_str *s;

	if (n > UINT32_MAX)
		return NULL;
	s = malloc(sizeof(*s) + n);
	if (!s)
		return NULL;
	s->len = (uint32_t)n;
	if (n)
		memcpy(s->p, p, n);
	return s;
}
