/* SPDX-License-Identifier: MIT */
/* db.c - a shard's keyspace and its lists and hashes (db.h). */
#include "db.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t kv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

/* ---- objects ----------------------------------------------------------- */

static void *obj(struct kv_entry *e)
{
	void *o;

	memcpy(&o, kv_val(e), sizeof(o));
	return o;
}

struct kv_list *db_list(struct kv_entry *e)
{
	return obj(e);
}

struct kv_hash *db_hash(struct kv_entry *e)
{
	return obj(e);
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

static void list_free(struct kv_list *l)
{
	while (l->n)
		free(list_pop(l, true));
	free(l->a);
	free(l);
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

static void hash_free(struct kv_hash *h)
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

/* ---- the keyspace ------------------------------------------------------ */

void db_init(struct kv_db *db)
{
	memset(db, 0, sizeof(*db));
	dict_init(&db->keys);
}

static void drop(struct kv_entry *e)
{
	if (e->type == KV_LIST)
		list_free(db_list(e));
	else if (e->type == KV_HASH)
		hash_free(db_hash(e));
	free(e);
}

void db_flush(struct kv_db *db)
{
	dict_clear(&db->keys, drop);
	db->expires = 0;
	db->sweep_cursor = 0;
}

size_t db_count(const struct kv_db *db)
{
	return dict_count(&db->keys);
}

void db_delete(struct kv_db *db, struct kv_entry *e)
{
	if (e->expire_ms)
		db->expires--;
	dict_remove(&db->keys, e);
	drop(e);
}

struct kv_entry *db_find(struct kv_db *db, const char *k, size_t klen,
			 uint32_t hash)
{
	struct kv_entry *e = dict_find(&db->keys, k, klen, hash);

	if (e && e->expire_ms && e->expire_ms <= kv_now_ms()) {
		db_delete(db, e);
		db->expired++;
		return NULL;
	}
	return e;
}

struct kv_entry *db_add(struct kv_db *db, const char *k, size_t klen,
			uint32_t hash, enum kv_type type, size_t vcap)
{
	struct kv_entry *e;
	void *o = NULL;

	if (type == KV_LIST)
		o = calloc(1, sizeof(struct kv_list));
	else if (type == KV_HASH)
		o = calloc(1, sizeof(struct kv_hash));
	if (type != KV_STRING) {
		if (!o)
			return NULL;
		vcap = sizeof(o);
	}
	e = kv_entry_new(k, klen, hash, vcap);
	if (!e) {
		free(o);
		return NULL;
	}
	e->type = (uint8_t)type;
	if (o) {
		memcpy(kv_val(e), &o, sizeof(o));
		if (type == KV_HASH)
			dict_init(&db_hash(e)->d);
	}
	dict_add(&db->keys, e);
	return e;
}

/* e copied into an entry of vcap value bytes, which takes its place. */
static struct kv_entry *move(struct kv_db *db, struct kv_entry *e, size_t vcap)
{
	struct kv_entry *ne = kv_entry_new(kv_key(e), e->klen, e->hash, vcap);

	if (!ne)
		return NULL;
	ne->expire_ms = e->expire_ms;
	ne->type = e->type;
	ne->vlen = e->vlen < vcap ? e->vlen : (uint32_t)vcap;
	memcpy(kv_val(ne), kv_val(e), ne->vlen);
	dict_remove(&db->keys, e);
	free(e);
	dict_add(&db->keys, ne);
	return ne;
}

struct kv_entry *db_set_value(struct kv_db *db, struct kv_entry *e,
			      const void *v, size_t vlen)
{
	/* exact room, or what there is unless it wastes more than half */
	if (vlen > e->vcap || (e->vcap > 64 && vlen < e->vcap / 2)) {
		e = move(db, e, vlen);
		if (!e)
			return NULL;
	}
	memcpy(kv_val(e), v, vlen);
	e->vlen = (uint32_t)vlen;
	return e;
}

struct kv_entry *db_append(struct kv_db *db, struct kv_entry *e, const void *v,
			   size_t n)
{
	size_t want = (size_t)e->vlen + n, cap;

	if (want > e->vcap) {
		/* doubling, so that n appends cost O(n) copies in all */
		cap = (size_t)e->vcap * 2 > want ? (size_t)e->vcap * 2 : want;
		if (cap > UINT32_MAX)
			cap = want;
		e = move(db, e, cap);
		if (!e)
			return NULL;
	}
	memcpy(kv_val(e) + e->vlen, v, n);
	e->vlen = (uint32_t)want;
	return e;
}

void db_set_expire(struct kv_db *db, struct kv_entry *e, int64_t at_ms)
{
	if (e->expire_ms && !at_ms)
		db->expires--;
	else if (!e->expire_ms && at_ms)
		db->expires++;
	e->expire_ms = at_ms;
}

struct sweep {
	struct kv_db *db;
	int64_t now;
	size_t removed;
};

static void sweep_one(struct kv_entry *e, void *ctx)
{
	struct sweep *s = ctx;

	if (e->expire_ms && e->expire_ms <= s->now) {
		db_delete(s->db, e);
		s->db->expired++;
		s->removed++;
	}
}

size_t db_sweep(struct kv_db *db, size_t buckets)
{
	struct sweep s = { db, kv_now_ms(), 0 };

	if (!db->expires)
		return 0;
	dict_scan(&db->keys, &db->sweep_cursor, buckets, sweep_one, &s);
	dict_shrink(&db->keys);
	return s.removed;
}
