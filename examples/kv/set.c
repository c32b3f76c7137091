/* SPDX-License-Identifier: MIT */
/*
 * set.c - the kv example's set, sorted integers or a table of member
 * nodes (set.h): a large set is an ntab.h table whose nodes hold only
 * their member.
 */
#include "set.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "resp.h"

struct kv_set {
	bool large;
	uint32_t n, cap;  /* small: the integers */
	int64_t *iv;	  /* small: sorted ascending */
	struct kv_ntab h; /* large */
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

/* ---- the large encoding --------------------------------------------------- */

static int tab_add(struct kv_ntab *h, const char *p, size_t n)
{
	size_t hash = (size_t)kv_hash(p, n);
	struct kv_node *m;
	int w;

	if (ntab_find(h, p, n, hash, &w))
		return 0;
	m = ntab_node(p, n, 0);
	if (!m)
		return -1;
	if (!ntab_insert(h, m, hash)) {
		free(m);
		return -1;
	}
	return 1;
}

static bool tab_remove(struct kv_ntab *h, const char *p, size_t n)
{
	struct kv_node **link;
	int w;

	link = ntab_find(h, p, n, (size_t)kv_hash(p, n), &w);
	if (!link)
		return false;
	free(ntab_unlink(h, link, w));
	return true;
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
	struct kv_ntab h;
	char buf[24];
	uint32_t i;

	memset(&h, 0, sizeof(h));
	if (!ntab_presize(&h, s->n + 1))
		return false;
	for (i = 0; i < s->n; i++) {
		size_t n = out_lltoa(buf, s->iv[i]);

		if (tab_add(&h, buf, n) < 0) {
			ntab_clear(&h);
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
	ntab_clear(&x->h);
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
		return ntab_find(&s->h, p, n, (size_t)kv_hash(p, n), &w) !=
		       NULL;
	return resp_string2ll(p, n, &v) && small_find(s, v, &at);
}

size_t set_card(const struct kv_set *s)
{
	return s->large ? ntab_count(&s->h) : s->n;
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
		m->p = ntab_key(ntab_random(&s->h, rnd), &m->n);
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
	const struct kv_node *node;

	if (!it->s->large) {
		if (it->i >= it->s->n)
			return false;
		member_of_int(m, it->s->iv[it->i++]);
		return true;
	}
	node = ntab_next(&it->s->h, &it->t);
	if (!node)
		return false;
	m->p = ntab_key(node, &m->n);
	return true;
}
