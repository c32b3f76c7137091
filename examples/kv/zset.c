/* SPDX-License-Identifier: MIT */
/*
 * zset.c - the kv example's sorted set (zset.h): a sorted array of items
 * while small, then a skiplist with spans whose nodes are also the
 * chains of an incrementally rehashed member table.
 */
#include "zset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXLVL 32	/* as redis: 4^32 members before the top fills */
#define HT_MIN 4	/* buckets */
#define EMPTY_VISITS 10 /* empty buckets one rehash step may pass over */
#define BLOCK 64	/* nodes read forwards per step of a backward walk */
#define MAX_MEMBERS (UINT32_MAX - 1)

/* A small set's member: its score, then its bytes. */
struct zitem {
	double score;
	uint32_t len;
	char p[];
};

/*
 * A large set's member, one allocation of 24 + 12 * lvl - 4 + len bytes:
 * the header, fwd[lvl], then the spans of levels 1..lvl-1 (a level-0
 * link always skips one rank, so it has none), then the member's bytes.
 * A 20-byte member on one level is 52 bytes, one 64-byte malloc chunk.
 */
struct znode {
	double score;
	struct znode *hnext; /* the member table's chain */
	uint32_t len;
	uint16_t tag; /* the hash's top bits: most chain misses, no memcmp */
	uint8_t lvl;
	struct znode *fwd[];
};

/* member -> node, chained through the nodes; t[1] while rehashing */
struct zht {
	struct znode **t[2];
	size_t size[2]; /* a power of two, or 0 */
	size_t used[2];
	size_t rehash; /* the next bucket of t[0] to move */
};

struct kv_zset {
	uint64_t rng; /* xorshift64*: levels and ZRANDMEMBER, never 0 */
	bool large;
	size_t n, cap;	    /* small: items, sorted */
	struct zitem **a;   /* small */
	struct znode *head; /* large: MAXLVL links, no member */
	struct znode *tail;
	int level; /* large: levels in use, >= 1 */
	size_t len;
	struct zht ht;
};

/* ---- order ------------------------------------------------------------- */

static int cmp_member(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

/* redis's order: the score, then the member's bytes */
static int cmp(double s1, const char *a, size_t an, double s2, const char *b,
	       size_t bn)
{
	if (s1 < s2)
		return -1;
	if (s1 > s2)
		return 1;
	return cmp_member(a, an, b, bn);
}

/* ---- nodes ------------------------------------------------------------- */

static uint32_t *spans(struct znode *x)
{
	return (uint32_t *)(x->fwd + x->lvl);
}

static char *mem(struct znode *x)
{
	return (char *)(spans(x) + x->lvl - 1);
}

static size_t span(struct znode *x, int i)
{
	return i ? spans(x)[i - 1] : 1;
}

static void set_span(struct znode *x, int i, size_t v)
{
	if (i)
		spans(x)[i - 1] = (uint32_t)v;
}

static struct znode *node_new(int lvl, double score, const char *m, size_t n,
			      uint64_t hash)
{
	size_t links = (size_t)lvl * sizeof(struct znode *);
	size_t sp = (size_t)(lvl - 1) * sizeof(uint32_t);
	struct znode *x = malloc(sizeof(*x) + links + sp + n);

	if (!x)
		return NULL;
	x->score = score;
	x->hnext = NULL;
	x->len = (uint32_t)n;
	x->tag = (uint16_t)(hash >> 48);
	x->lvl = (uint8_t)lvl;
	memset(x->fwd, 0, links + sp);
	if (n)
		memcpy(mem(x), m, n);
	return x;
}

static uint64_t next_rand(struct kv_zset *z)
{
	uint64_t x = z->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	z->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t zset_random(struct kv_zset *z)
{
	return next_rand(z);
}

/* redis's p = 1/4: each pair of random bits that is 0 is a level more */
static int rand_level(struct kv_zset *z)
{
	uint64_t r = next_rand(z);
	int lvl = 1;

	while ((r & 3) == 0 && lvl < MAXLVL) {
		lvl++;
		r >>= 2;
	}
	return lvl;
}

/* ---- the member table -------------------------------------------------- */

static size_t bucket(struct znode *x, size_t size)
{
	return (size_t)kv_hash(mem(x), x->len) & (size - 1);
}

static bool ht_rehashing(const struct zht *h)
{
	return h->t[1] != NULL;
}

static void ht_finish(struct zht *h)
{
	free(h->t[0]);
	h->t[0] = h->t[1];
	h->size[0] = h->size[1];
	h->used[0] = h->used[1];
	h->t[1] = NULL;
	h->size[1] = h->used[1] = 0;
	h->rehash = 0;
}

/* Moves one bucket of t[0] (passing over a few empty ones) to t[1]. The
 * nodes keep no hash: it is computed again, once per node per move. */
static void ht_step(struct zht *h)
{
	size_t visits = EMPTY_VISITS, b;
	struct znode *x, *next;

	while (h->rehash < h->size[0] && !h->t[0][h->rehash] && visits--)
		h->rehash++;
	if (h->rehash < h->size[0]) {
		for (x = h->t[0][h->rehash]; x; x = next) {
			next = x->hnext;
			b = bucket(x, h->size[1]);
			x->hnext = h->t[1][b];
			h->t[1][b] = x;
			h->used[0]--;
			h->used[1]++;
		}
		h->t[0][h->rehash++] = NULL;
	}
	if (h->rehash >= h->size[0])
		ht_finish(h);
}

/* A table of n buckets: the first, or the one a rehash fills. */
static bool ht_resize(struct zht *h, size_t n)
{
	struct znode **t = calloc(n, sizeof(*t));

	if (!t)
		return false;
	if (!h->t[0]) {
		h->t[0] = t;
		h->size[0] = n;
		return true;
	}
	h->t[1] = t;
	h->size[1] = n;
	h->rehash = 0;
	return true;
}

/* The chain of t[w] where hash would be; NULL if t[w] has none there
 * (t[0]'s buckets below the rehash point are moved). */
static struct znode **ht_chain(struct zht *h, int w, uint64_t hash)
{
	size_t i;

	if (!h->t[w])
		return NULL;
	i = (size_t)hash & (h->size[w] - 1);
	if (w == 0 && ht_rehashing(h) && i < h->rehash)
		return NULL;
	return &h->t[w][i];
}

static struct znode *ht_find(struct zht *h, const char *m, size_t n)
{
	uint64_t hash = kv_hash(m, n);
	uint16_t tag = (uint16_t)(hash >> 48);
	struct znode **c, *x;
	int w;

	if (ht_rehashing(h))
		ht_step(h);
	for (w = 0; w < 2; w++) {
		c = ht_chain(h, w, hash);
		for (x = c ? *c : NULL; x; x = x->hnext)
			if (x->tag == tag && x->len == n &&
			    !memcmp(mem(x), m, n))
				return x;
	}
	return NULL;
}

/* Adds x, of that hash (not there). It always goes in: a table that
 * cannot grow gets longer chains. */
static void ht_add(struct zht *h, struct znode *x, uint64_t hash)
{
	int w;
	size_t b;

	if (ht_rehashing(h))
		ht_step(h);
	else if (h->used[0] + 1 > h->size[0])
		ht_resize(h, h->size[0] * 2);
	w = ht_rehashing(h) ? 1 : 0; /* new nodes go to the new table */
	b = (size_t)hash & (h->size[w] - 1);
	x->hnext = h->t[w][b];
	h->t[w][b] = x;
	h->used[w]++;
}

static void ht_remove(struct zht *h, struct znode *x)
{
	uint64_t hash = kv_hash(mem(x), x->len);
	struct znode **p;
	int w;

	if (ht_rehashing(h))
		ht_step(h);
	for (w = 0; w < 2; w++) {
		for (p = ht_chain(h, w, hash); p && *p; p = &(*p)->hnext) {
			if (*p == x) {
				*p = x->hnext;
				h->used[w]--;
				return;
			}
		}
	}
}

/* Halves the table (by a rehash) while it is less than an eighth full. */
static void ht_shrink(struct zht *h)
{
	size_t n = HT_MIN;

	if (ht_rehashing(h) || h->size[0] <= HT_MIN ||
	    h->used[0] * 8 >= h->size[0])
		return;
	while (n < h->used[0] * 2)
		n *= 2;
	ht_resize(h, n); /* no memory: it stays as it is */
}

/* ---- the skiplist ------------------------------------------------------ */

/* The last node before (score, m) on each level in update[], and how many
 * nodes precede it in rank[] (may be NULL); returns the node after. */
static struct znode *sl_find(struct kv_zset *z, double score, const char *m,
			     size_t n, struct znode **update, size_t *rank)
{
	struct znode *x = z->head, *f;
	size_t r = 0;
	int i;

	for (i = z->level - 1; i >= 0; i--) {
		while ((f = x->fwd[i]) &&
		       cmp(f->score, mem(f), f->len, score, m, n) < 0) {
			r += span(x, i);
			x = f;
		}
		update[i] = x;
		if (rank)
			rank[i] = r;
	}
	return x->fwd[0];
}

/* Links x at its place by its score and member, on its x->lvl levels. */
static void sl_link(struct kv_zset *z, struct znode *x)
{
	struct znode *update[MAXLVL];
	size_t rank[MAXLVL];
	int i;

	sl_find(z, x->score, mem(x), x->len, update, rank);
	for (i = z->level; i < x->lvl; i++) {
		rank[i] = 0;
		update[i] = z->head;
		set_span(z->head, i, z->len);
	}
	if (x->lvl > z->level)
		z->level = x->lvl;
	for (i = 0; i < x->lvl; i++) {
		x->fwd[i] = update[i]->fwd[i];
		update[i]->fwd[i] = x;
		set_span(x, i, span(update[i], i) - (rank[0] - rank[i]));
		set_span(update[i], i, rank[0] - rank[i] + 1);
	}
	for (; i < z->level; i++) /* links over x skip one more */
		set_span(update[i], i, span(update[i], i) + 1);
	if (!x->fwd[0])
		z->tail = x;
	z->len++;
}

/* Unlinks x, whose predecessors on each level are update[]. */
static void sl_unlink(struct kv_zset *z, struct znode *x, struct znode **update)
{
	int i;

	for (i = 0; i < z->level; i++) {
		if (update[i]->fwd[i] == x) {
			set_span(update[i], i,
				 span(update[i], i) + span(x, i) - 1);
			update[i]->fwd[i] = x->fwd[i];
		} else {
			set_span(update[i], i, span(update[i], i) - 1);
		}
	}
	if (!x->fwd[0])
		z->tail = update[0] == z->head ? NULL : update[0];
	while (z->level > 1 && !z->head->fwd[z->level - 1])
		z->level--;
	z->len--;
}

/* The node at rank (< len): a descent by the spans, O(log n). */
static struct znode *sl_at(struct kv_zset *z, size_t rank)
{
	struct znode *x = z->head;
	size_t r = 0, want = rank + 1; /* the head is rank 0 here */
	int i;

	if (rank + 1 == z->len)
		return z->tail;
	for (i = z->level - 1; i >= 0; i--)
		while (x->fwd[i] && r + span(x, i) <= want) {
			r += span(x, i);
			x = x->fwd[i];
		}
	return x;
}

/* Predecessors of the node at rank, as sl_find gives them. */
static void sl_find_rank(struct kv_zset *z, size_t rank, struct znode **update)
{
	struct znode *x = z->head;
	size_t r = 0;
	int i;

	for (i = z->level - 1; i >= 0; i--) {
		while (x->fwd[i] && r + span(x, i) <= rank) {
			r += span(x, i);
			x = x->fwd[i];
		}
		update[i] = x;
	}
}

static void large_clear(struct kv_zset *z)
{
	struct znode *x, *next;

	for (x = z->head ? z->head->fwd[0] : NULL; x; x = next) {
		next = x->fwd[0];
		free(x);
	}
	free(z->head);
	free(z->ht.t[0]);
	free(z->ht.t[1]);
	memset(&z->ht, 0, sizeof(z->ht));
	z->head = z->tail = NULL;
	z->len = 0;
	z->level = 1;
}

/* A new member of the large encoding (not there). */
static bool large_insert(struct kv_zset *z, double score, const char *m,
			 size_t n)
{
	struct znode *x;
	uint64_t hash;

	if (z->len >= MAX_MEMBERS || n > UINT32_MAX)
		return false;
	hash = kv_hash(m, n);
	x = node_new(rand_level(z), score, m, n, hash);
	if (!x)
		return false;
	sl_link(z, x);
	ht_add(&z->ht, x, hash);
	return true;
}

static void large_remove(struct kv_zset *z, struct znode *x)
{
	struct znode *update[MAXLVL];

	sl_find(z, x->score, mem(x), x->len, update, NULL);
	sl_unlink(z, x, update);
	ht_remove(&z->ht, x);
	free(x);
	ht_shrink(&z->ht);
}

/* ---- the small encoding ------------------------------------------------ */

static bool small_find(const struct kv_zset *z, const char *m, size_t n,
		       size_t *at)
{
	size_t i;

	for (i = 0; i < z->n; i++) {
		if (z->a[i]->len == n && !memcmp(z->a[i]->p, m, n)) {
			*at = i;
			return true;
		}
	}
	return false;
}

/* Where (score, m) goes: the first item after it. */
static size_t small_pos(const struct kv_zset *z, double score, const char *m,
			size_t n)
{
	size_t lo = 0, hi = z->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp(z->a[mid]->score, z->a[mid]->p, z->a[mid]->len, score,
			m, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* it at its place by its score (the array has room) */
static void small_place(struct kv_zset *z, struct zitem *it)
{
	size_t i = small_pos(z, it->score, it->p, it->len);

	memmove(&z->a[i + 1], &z->a[i], (z->n - i) * sizeof(*z->a));
	z->a[i] = it;
	z->n++;
}

static struct zitem *small_take(struct kv_zset *z, size_t i)
{
	struct zitem *it = z->a[i];

	memmove(&z->a[i], &z->a[i + 1], (z->n - i - 1) * sizeof(*z->a));
	z->n--;
	return it;
}

/* The listpack writes an integral score as an integer: -0 comes back 0. */
static double listpack_score(double score)
{
	return score == 0 ? 0.0 : score;
}

static bool small_insert(struct kv_zset *z, double score, const char *m,
			 size_t n)
{
	struct zitem *it, **a;
	size_t cap;

	if (z->n == z->cap) {
		cap = z->cap ? z->cap * 2 : 4;
		a = realloc(z->a, cap * sizeof(*a));
		if (!a)
			return false;
		z->a = a;
		z->cap = cap;
	}
	it = malloc(sizeof(*it) + n);
	if (!it)
		return false;
	it->score = listpack_score(score);
	it->len = (uint32_t)n;
	memcpy(it->p, m, n);
	small_place(z, it);
	return true;
}

/* Small to large, every item a node; false (and still small) on no
 * memory. */
static bool to_large(struct kv_zset *z)
{
	size_t i, buckets = HT_MIN;

	while (buckets < z->n)
		buckets *= 2;
	z->head = node_new(MAXLVL, 0, NULL, 0, 0);
	if (!z->head || !ht_resize(&z->ht, buckets)) {
		large_clear(z);
		return false;
	}
	for (i = 0; i < z->n; i++) {
		if (!large_insert(z, z->a[i]->score, z->a[i]->p,
				  z->a[i]->len)) {
			large_clear(z);
			return false;
		}
	}
	for (i = 0; i < z->n; i++)
		free(z->a[i]);
	free(z->a);
	z->a = NULL;
	z->n = z->cap = 0;
	z->large = true;
	return true;
}

/* ---- the set ----------------------------------------------------------- */

struct kv_zset *zset_new(void)
{
	struct kv_zset *z = calloc(1, sizeof(*z));

	if (z) {
		z->rng = kv_hash(&z, sizeof(z)) | 1;
		z->level = 1;
	}
	return z;
}

void zset_free(struct kv_zset *z)
{
	size_t i;

	if (!z)
		return;
	for (i = 0; i < z->n; i++)
		free(z->a[i]);
	free(z->a);
	large_clear(z);
	free(z);
}

size_t zset_len(const struct kv_zset *z)
{
	return z->large ? z->len : z->n;
}

bool zset_is_small(const struct kv_zset *z)
{
	return !z->large;
}

bool zset_score(struct kv_zset *z, const char *m, size_t n, double *score)
{
	struct znode *x;
	size_t i;

	if (z->large) {
		x = ht_find(&z->ht, m, n);
		if (x)
			*score = x->score;
		return x != NULL;
	}
	if (!small_find(z, m, n, &i))
		return false;
	*score = z->a[i]->score;
	return true;
}

/* A member's new score: moved in place, nothing allocated. */
static void move(struct kv_zset *z, const char *m, size_t n, double score)
{
	struct znode *update[MAXLVL], *x;
	struct zitem *it;
	size_t i = 0;

	if (!z->large) {
		small_find(z, m, n, &i); /* it is there */
		it = small_take(z, i);
		it->score = listpack_score(score);
		small_place(z, it);
		return;
	}
	x = ht_find(&z->ht, m, n);
	sl_find(z, x->score, mem(x), x->len, update, NULL);
	sl_unlink(z, x, update);
	x->score = score;
	sl_link(z, x);
}

static bool insert(struct kv_zset *z, double score, const char *m, size_t n)
{
	if (!z->large &&
	    (z->n + 1 > KV_ZSET_SMALL_MEMBERS || n > KV_ZSET_SMALL_BYTES) &&
	    !to_large(z))
		return false;
	if (z->large)
		return large_insert(z, score, m, n);
	return small_insert(z, score, m, n);
}

/* zsetAdd's rules for a member that is there, at score cur. */
static int update(struct kv_zset *z, double score, const char *m, size_t n,
		  double cur, int flags, double *newscore)
{
	if (flags & ZSET_NX)
		return ZSET_NOP;
	if (flags & ZSET_INCR) {
		score += cur;
		if (isnan(score))
			return ZSET_NAN;
	}
	if (((flags & ZSET_LT) && score >= cur) ||
	    ((flags & ZSET_GT) && score <= cur))
		return ZSET_NOP;
	*newscore = score;
	if (score == cur)
		return 0;
	move(z, m, n, score);
	return ZSET_UPDATED;
}

int zset_add(struct kv_zset *z, double score, const char *m, size_t n,
	     int flags, double *newscore)
{
	double cur;

	if (zset_score(z, m, n, &cur))
		return update(z, score, m, n, cur, flags, newscore);
	if (flags & ZSET_XX)
		return ZSET_NOP;
	if (!insert(z, score, m, n))
		return ZSET_NOMEM;
	*newscore = score;
	return ZSET_ADDED;
}

bool zset_del(struct kv_zset *z, const char *m, size_t n)
{
	struct znode *x;
	size_t i;

	if (z->large) {
		x = ht_find(&z->ht, m, n);
		if (x)
			large_remove(z, x);
		return x != NULL;
	}
	if (!small_find(z, m, n, &i))
		return false;
	free(small_take(z, i));
	return true;
}

bool zset_rank(struct kv_zset *z, const char *m, size_t n, size_t *rank)
{
	struct znode *update[MAXLVL], *x;
	size_t r[MAXLVL];

	if (!z->large)
		return small_find(z, m, n, rank);
	x = ht_find(&z->ht, m, n);
	if (!x)
		return false;
	sl_find(z, x->score, mem(x), x->len, update, r);
	*rank = r[0];
	return true;
}

void zset_at(struct kv_zset *z, size_t rank, const char **m, size_t *n,
	     double *score)
{
	struct znode *x;

	if (!z->large) {
		*m = z->a[rank]->p;
		*n = z->a[rank]->len;
		*score = z->a[rank]->score;
		return;
	}
	x = sl_at(z, rank);
	*m = mem(x);
	*n = x->len;
	*score = x->score;
}

/* Backwards by blocks: each block's first node found by rank, the block
 * read forwards, then handed out from its end. */
static void walk_back(struct kv_zset *z, size_t rank, size_t count, zset_fn *fn,
		      void *ctx)
{
	struct znode *blk[BLOCK], *x;
	size_t k, j;

	while (count) {
		k = count < BLOCK ? count : BLOCK;
		x = sl_at(z, rank + 1 - k);
		for (j = 0; j < k; j++, x = x->fwd[0])
			blk[j] = x;
		for (j = k; j-- > 0;)
			fn(mem(blk[j]), blk[j]->len, blk[j]->score, ctx);
		count -= k;
		rank -= k;
	}
}

void zset_walk(struct kv_zset *z, size_t rank, size_t count, bool rev,
	       zset_fn *fn, void *ctx)
{
	struct znode *x;
	size_t i;

	if (!z->large) {
		for (i = 0; i < count; i++) {
			struct zitem *it = z->a[rev ? rank - i : rank + i];

			fn(it->p, it->len, it->score, ctx);
		}
	} else if (rev) {
		walk_back(z, rank, count, fn, ctx);
	} else if (count) {
		for (x = sl_at(z, rank); count--; x = x->fwd[0])
			fn(mem(x), x->len, x->score, ctx);
	}
}

void zset_del_ranks(struct kv_zset *z, size_t lo, size_t hi)
{
	struct znode *update[MAXLVL], *x, *next;
	size_t i;

	if (!z->large) {
		for (i = lo; i <= hi; i++)
			free(z->a[i]);
		memmove(&z->a[lo], &z->a[hi + 1],
			(z->n - hi - 1) * sizeof(*z->a));
		z->n -= hi - lo + 1;
		return;
	}
	/* one descent: the predecessors stay those of the next node */
	sl_find_rank(z, lo, update);
	for (x = update[0]->fwd[0], i = lo; i <= hi; i++, x = next) {
		next = x->fwd[0];
		sl_unlink(z, x, update);
		ht_remove(&z->ht, x);
		free(x);
	}
	ht_shrink(&z->ht);
}

/* ---- ranges ------------------------------------------------------------ */

/* m against a lex end: "-" is below every member, "+" above. */
static int lex_cmp(const char *m, size_t n, const struct zset_lexb *b)
{
	if (b->inf)
		return -b->inf;
	return cmp_member(m, n, b->p, b->n);
}

/* redis's sdscmplex(min, max): "-" and "-" are equal, as are "+", "+" */
static int lex_ends_cmp(const struct zset_lexb *a, const struct zset_lexb *b)
{
	if (a->inf && a->inf == b->inf)
		return 0;
	if (a->inf < 0 || b->inf > 0)
		return -1;
	if (a->inf > 0 || b->inf < 0)
		return 1;
	return cmp_member(a->p, a->n, b->p, b->n);
}

static bool gte_min(const struct zset_spec *r, double s, const char *m,
		    size_t n)
{
	int c;

	if (!r->lex)
		return r->minex ? s > r->min : s >= r->min;
	c = lex_cmp(m, n, &r->lmin);
	return r->lmin.ex ? c > 0 : c >= 0;
}

static bool lte_max(const struct zset_spec *r, double s, const char *m,
		    size_t n)
{
	int c;

	if (!r->lex)
		return r->maxex ? s < r->max : s <= r->max;
	c = lex_cmp(m, n, &r->lmax);
	return r->lmax.ex ? c < 0 : c <= 0;
}

static bool empty_spec(const struct zset_spec *r)
{
	int c;

	if (!r->lex)
		return r->min > r->max ||
		       (r->min == r->max && (r->minex || r->maxex));
	c = lex_ends_cmp(&r->lmin, &r->lmax);
	return c > 0 || (c == 0 && (r->lmin.ex || r->lmax.ex));
}

/* Whether the rank's member is in r on its min side (or, max, the max's). */
static bool in_side(struct kv_zset *z, const struct zset_spec *r, size_t rank,
		    bool max)
{
	const char *m;
	size_t n;
	double s;

	zset_at(z, rank, &m, &n, &s);
	return max ? lte_max(r, s, m, n) : gte_min(r, s, m, n);
}

/* redis's zslIsInRange: not empty, the last over min, the first under max */
static bool in_range(struct kv_zset *z, const struct zset_spec *r)
{
	size_t len = zset_len(z);

	return !empty_spec(r) && len && in_side(z, r, len - 1, false) &&
	       in_side(z, r, 0, true);
}

/* Nodes passed by a descent that moves on while the next is below min
 * (or, max, while the next is within max). */
static size_t descend(struct kv_zset *z, const struct zset_spec *r, bool max)
{
	struct znode *x = z->head, *f;
	size_t passed = 0;
	int i;

	for (i = z->level - 1; i >= 0; i--) {
		while ((f = x->fwd[i]) &&
		       (max ? lte_max(r, f->score, mem(f), f->len) :
			      !gte_min(r, f->score, mem(f), f->len))) {
			passed += span(x, i);
			x = f;
		}
	}
	return passed;
}

bool zset_first(struct kv_zset *z, const struct zset_spec *r, size_t *rank)
{
	size_t i;

	if (!in_range(z, r))
		return false;
	if (z->large) {
		i = descend(z, r, false);
	} else { /* the listpack's scan, exact on any order */
		for (i = 0; i < z->n && !in_side(z, r, i, false); i++)
			;
	}
	*rank = i;
	return i < zset_len(z) && in_side(z, r, i, true);
}

bool zset_last(struct kv_zset *z, const struct zset_spec *r, size_t *rank)
{
	size_t i;

	if (!in_range(z, r))
		return false;
	if (z->large) {
		i = descend(z, r, true); /* at least the first is passed */
	} else {
		for (i = z->n; i > 0 && !in_side(z, r, i - 1, true); i--)
			;
	}
	if (!i)
		return false;
	*rank = i - 1;
	return in_side(z, r, i - 1, false);
}

size_t zset_run(struct kv_zset *z, const struct zset_spec *r, size_t rank,
		bool rev)
{
	size_t k = 0, end, avail;

	if (z->large) { /* sorted for r: the other end by a descent */
		if (rev)
			return zset_first(z, r, &end) && end <= rank ?
				       rank - end + 1 :
				       0;
		return zset_last(z, r, &end) && end >= rank ? end - rank + 1 :
							      0;
	}
	avail = rev ? rank + 1 : z->n - rank;
	while (k < avail && in_side(z, r, rev ? rank - k : rank + k, !rev))
		k++;
	return k;
}
