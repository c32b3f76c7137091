/* SPDX-License-Identifier: MIT */
/* hash.c - the kv example's hash, small array or dict (hash.h). */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

struct kv_hash *hash_new(void)
{
	struct kv_hash *h = calloc(1, sizeof(*h));

	if (h)
		dict_init(&h->d);
	return h;
}

/* A large hash's fields: entries keyed by the field, the value inline. */
static struct kv_entry *field_find(struct kv_hash *h, const char *f, size_t fn)
{
	return dict_find(&h->d, f, fn, (uint32_t)kv_hash(f, fn));
}

static bool small_find(struct kv_hash *h, const char *f, size_t fn, size_t *at)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		struct kv_str *s = h->fv[2 * i];

		if (s->len == fn && !memcmp(s->p, f, fn)) {
			*at = i;
			return true;
		}
	}
	return false;
}

bool hash_get(struct kv_hash *h, const char *f, size_t fn, const char **v,
	      size_t *vn)
{
	struct kv_entry *e;
	size_t i;

	if (h->large) {
		e = field_find(h, f, fn);
		if (!e)
			return false;
		*v = kv_val(e);
		*vn = e->vlen;
		return true;
	}
	if (!small_find(h, f, fn, &i))
		return false;
	*v = h->fv[2 * i + 1]->p;
	*vn = h->fv[2 * i + 1]->len;
	return true;
}

static int large_set(struct kv_hash *h, const char *f, size_t fn, const char *v,
		     size_t vn)
{
	uint32_t hv = (uint32_t)kv_hash(f, fn);
	struct kv_entry *e = dict_find(&h->d, f, fn, hv), *ne;

	ne = kv_entry_new(f, fn, hv, vn);
	if (!ne)
		return -1;
	memcpy(kv_val(ne), v, vn);
	ne->vlen = (uint32_t)vn;
	if (e) {
		dict_remove(&h->d, e);
		free(e);
	}
	dict_add(&h->d, ne);
	return e ? 0 : 1;
}

/* Small to large: every pair into a dict, the array freed. */
static bool grow_large(struct kv_hash *h)
{
	struct kv_dict d = h->d;
	size_t i;

	dict_init(&h->d);
	h->large = true;
	for (i = 0; i < h->n; i++) {
		struct kv_str *f = h->fv[2 * i], *v = h->fv[2 * i + 1];

		if (large_set(h, f->p, f->len, v->p, v->len) < 0) {
			dict_clear(&h->d, NULL);
			h->d = d;
			h->large = false;
			return false;
		}
	}
	for (i = 0; i < 2 * h->n; i++)
		free(h->fv[i]);
	free(h->fv);
	/* n and cap count the small array's pairs: none are left (they
	 * were kept once, and hash_free walked a NULL array past them) */
	h->fv = NULL;
	h->n = h->cap = 0;
	return true;
}

int hash_set(struct kv_hash *h, const char *f, size_t fn, const char *v,
	     size_t vn)
{
	struct kv_str *sf, *sv, **a;
	size_t i;

	if (!h->large &&
	    (fn > KV_HASH_SMALL_BYTES || vn > KV_HASH_SMALL_BYTES ||
	     (h->n >= KV_HASH_SMALL_FIELDS && !small_find(h, f, fn, &i))) &&
	    !grow_large(h))
		return -1;
	if (h->large)
		return large_set(h, f, fn, v, vn);
	sv = kv_str_new(v, vn);
	if (!sv)
		return -1;
	if (small_find(h, f, fn, &i)) {
		free(h->fv[2 * i + 1]);
		h->fv[2 * i + 1] = sv;
		return 0;
	}
	sf = kv_str_new(f, fn);
	if (!sf) {
		free(sv);
		return -1;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 4;

		a = realloc(h->fv, 2 * cap * sizeof(*a));
		if (!a) {
			free(sf);
			free(sv);
			return -1;
		}
		h->fv = a;
		h->cap = cap;
	}
	h->fv[2 * h->n] = sf;
	h->fv[2 * h->n + 1] = sv;
	h->n++;
	return 1;
}

bool hash_del(struct kv_hash *h, const char *f, size_t fn)
{
	struct kv_entry *e;
	size_t i;

	if (h->large) {
		e = field_find(h, f, fn);
		if (!e)
			return false;
		dict_remove(&h->d, e);
		free(e);
		return true;
	}
	if (!small_find(h, f, fn, &i))
		return false;
	free(h->fv[2 * i]);
	free(h->fv[2 * i + 1]);
	/* the order of the rest kept, as in redis's listpack */
	memmove(&h->fv[2 * i], &h->fv[2 * i + 2],
		(h->n - i - 1) * 2 * sizeof(*h->fv));
	h->n--;
	return true;
}

size_t hash_len(const struct kv_hash *h)
{
	return h->large ? dict_count(&h->d) : h->n;
}

struct each {
	void (*fn)(const char *, size_t, const char *, size_t, void *);
	void *ctx;
};

static void each_entry(struct kv_entry *e, void *ctx)
{
	struct each *x = ctx;

	x->fn(kv_key(e), e->klen, kv_val(e), e->vlen, x->ctx);
}

void hash_each(struct kv_hash *h,
	       void (*fn)(const char *f, size_t fn, const char *v, size_t vn,
			  void *ctx),
	       void *ctx)
{
	struct each x = { fn, ctx };
	size_t i, cursor = 0;

	if (h->large) {
		while (dict_scan(&h->d, &cursor, SIZE_MAX, each_entry, &x))
			;
		return;
	}
	for (i = 0; i < h->n; i++)
		fn(h->fv[2 * i]->p, h->fv[2 * i]->len, h->fv[2 * i + 1]->p,
		   h->fv[2 * i + 1]->len, ctx);
}

void hash_free(struct kv_hash *h)
{
	size_t i;

	if (h->large) {
		dict_clear(&h->d, NULL);
	} else {
		for (i = 0; i < 2 * h->n; i++)
			free(h->fv[i]);
		free(h->fv);
	}
	free(h);
}
