/* SPDX-License-Identifier: MIT */
/* hash.c - the kv example's hash, small array or node table (hash.h). */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

#define LONG_LEN 255 /* a value's length byte for 255 bytes or more */

struct kv_hash *hash_new(void)
{
	return calloc(1, sizeof(struct kv_hash));
}

/* ---- a large hash's fields: nodes of the field, then the value ---------- */

static size_t value_head(size_t vn)
{
	return vn < LONG_LEN ? 1 : 1 + sizeof(vn);
}

static struct kv_node *field_node(const char *f, size_t fn, const char *v,
				  size_t vn)
{
	struct kv_node *m = ntab_node(f, fn, value_head(vn) + vn);
	unsigned char *x;

	if (!m)
		return NULL;
	x = ntab_extra(m);
	if (vn < LONG_LEN) {
		x[0] = (unsigned char)vn;
	} else {
		x[0] = LONG_LEN;
		memcpy(x + 1, &vn, sizeof(vn));
	}
	memcpy(x + value_head(vn), v, vn);
	return m;
}

static const char *node_value(const struct kv_node *m, size_t *vn)
{
	const unsigned char *x = ntab_extra(m);

	if (x[0] < LONG_LEN) {
		*vn = x[0];
		return (const char *)x + 1;
	}
	memcpy(vn, x + 1, sizeof(*vn));
	return (const char *)x + 1 + sizeof(*vn);
}

static struct kv_node **field_find(const struct kv_ntab *t, const char *f,
				   size_t fn, int *in)
{
	return ntab_find(t, f, fn, (size_t)kv_hash(f, fn), in);
}

/* f set to v in t: 1 new, 0 replaced, -1 no memory. */
static int table_set(struct kv_ntab *t, const char *f, size_t fn, const char *v,
		     size_t vn)
{
	struct kv_node **link, *m;
	int w;

	m = field_node(f, fn, v, vn);
	if (!m)
		return -1;
	link = field_find(t, f, fn, &w);
	if (link) { /* a new node for the new value, in the old one's place */
		free(ntab_replace(link, m));
		return 0;
	}
	if (!ntab_insert(t, m, (size_t)kv_hash(f, fn))) {
		free(m);
		return -1;
	}
	return 1;
}

/* ---- the small array ---------------------------------------------------- */

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
	struct kv_node **link;
	size_t i;
	int w;

	if (h->large) {
		link = field_find(&h->t, f, fn, &w);
		if (!link)
			return false;
		*v = node_value(*link, vn);
		return true;
	}
	if (!small_find(h, f, fn, &i))
		return false;
	*v = h->fv[2 * i + 1]->p;
	*vn = h->fv[2 * i + 1]->len;
	return true;
}

/* Small to large: every pair into a table sized for them, the array
 * freed. */
static bool grow_large(struct kv_hash *h)
{
	struct kv_ntab t;
	size_t i;

	memset(&t, 0, sizeof(t));
	if (!ntab_presize(&t, h->n + 1))
		return false;
	for (i = 0; i < h->n; i++) {
		struct kv_str *f = h->fv[2 * i], *v = h->fv[2 * i + 1];

		if (table_set(&t, f->p, f->len, v->p, v->len) < 0) {
			ntab_clear(&t);
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
	h->t = t;
	h->large = true;
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
		return table_set(&h->t, f, fn, v, vn);
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
	struct kv_node **link;
	size_t i;
	int w;

	if (h->large) {
		link = field_find(&h->t, f, fn, &w);
		if (!link)
			return false;
		free(ntab_unlink(&h->t, link, w));
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
	return h->large ? ntab_count(&h->t) : h->n;
}

void hash_each(struct kv_hash *h,
	       void (*fn)(const char *f, size_t fn, const char *v, size_t vn,
			  void *ctx),
	       void *ctx)
{
	const struct kv_node *m;
	struct kv_ntab_iter it;
	const char *k, *v;
	size_t i, kn, vn;

	if (h->large) {
		ntab_iter_init(&it);
		while ((m = ntab_next(&h->t, &it))) {
			k = ntab_key(m, &kn);
			v = node_value(m, &vn);
			fn(k, kn, v, vn, ctx);
		}
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
		ntab_clear(&h->t);
	} else {
		for (i = 0; i < 2 * h->n; i++)
			free(h->fv[i]);
		free(h->fv);
	}
	free(h);
}
