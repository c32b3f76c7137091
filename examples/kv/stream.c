/* SPDX-License-Identifier: MIT */
/*
 * stream.c - the kv example's stream, nodes of entries as redis's
 * listpacks (stream.h).
 *
 * A node's bytes follow redis's layout: a master entry (count, deleted,
 * the first entry's fields, a terminator) and each entry as flags, the ID
 * less the master's, the fields unless they are the master's, the values
 * and a count of its items; every item an integer or a string as
 * listpack.c would encode it. The counts and flags never pass 127 (100
 * entries a node), so marking an entry deleted leaves the size as it is.
 */
#include "stream.h"

#include <stdlib.h>
#include <string.h>

#define NODE_MAX_ENTRIES 100 /* stream-node-max-entries */
#define NODE_MAX_BYTES 4096  /* stream-node-max-bytes */
#define LP_EMPTY 7	     /* an empty listpack: header and end byte */

struct snode {
	struct kv_sid master; /* its first entry's ID: redis's rax key */
	uint32_t live, dead;  /* redis's count and deleted */
	uint32_t n, cap;      /* entries, live or marked deleted */
	size_t bytes;	      /* its listpack's, in redis */
	struct kv_sentry **e;
};

struct kv_stream {
	struct snode **nodes; /* nodes[head .. head + n), by ID */
	size_t head, n, cap;
	uint64_t length;
	struct kv_sid last;
};

int sid_cmp(struct kv_sid a, struct kv_sid b)
{
	if (a.ms != b.ms)
		return a.ms < b.ms ? -1 : 1;
	if (a.seq != b.seq)
		return a.seq < b.seq ? -1 : 1;
	return 0;
}

/* ---- listpack sizes ------------------------------------------------------ */

/* An integer item: its encoding and its one back-length byte. */
static size_t lp_int(int64_t v)
{
	if (v >= 0 && v <= 127)
		return 2;
	if (v >= -4096 && v <= 4095)
		return 3;
	if (v >= -32768 && v <= 32767)
		return 4;
	if (v >= -8388608 && v <= 8388607)
		return 5;
	if (v >= INT32_MIN && v <= INT32_MAX)
		return 6;
	return 10;
}

static size_t lp_backlen(size_t l)
{
	if (l <= 127)
		return 1;
	if (l < 16383)
		return 2;
	if (l < 2097151)
		return 3;
	return l < 268435455 ? 4 : 5;
}

/* A string item: an integer if it reads as one, as listpack.c does. */
static size_t lp_str(const char *p, size_t n)
{
	long long v;
	size_t enc;

	if (resp_string2ll(p, n, &v))
		return lp_int(v);
	enc = n < 64 ? 1 + n : n < 4096 ? 2 + n : 5 + n;
	return enc + lp_backlen(enc);
}

/* fv's fields (every other item from the first) as items. */
static size_t lp_fields(const struct resp_arg *fv, size_t nf)
{
	size_t i, b = 0;

	for (i = 0; i < nf; i++)
		b += lp_str(fv[2 * i].p, fv[2 * i].len);
	return b;
}

/* A new node's listpack: its master entry. */
static size_t lp_master(const struct resp_arg *fv, size_t nf)
{
	return LP_EMPTY + lp_int(1) + lp_int(0) + lp_int((int64_t)nf) +
	       lp_fields(fv, nf) + lp_int(0);
}

static size_t lp_entry(const struct snode *nd, struct kv_sid id,
		       const struct resp_arg *fv, size_t nf, bool same)
{
	size_t b = lp_int(same ? 2 : 0), i, count = nf + 3;

	b += lp_int((int64_t)(id.ms - nd->master.ms));
	b += lp_int((int64_t)(id.seq - nd->master.seq));
	if (!same) {
		b += lp_int((int64_t)nf) + lp_fields(fv, nf);
		count += nf + 1;
	}
	for (i = 0; i < nf; i++)
		b += lp_str(fv[2 * i + 1].p, fv[2 * i + 1].len);
	return b + lp_int((int64_t)count);
}

/* ---- entries and nodes --------------------------------------------------- */

static struct kv_sentry *entry_new(struct kv_sid id, const struct resp_arg *fv,
				   size_t nf)
{
	size_t i, bytes = 0;
	struct kv_sentry *e;
	unsigned char *p;

	for (i = 0; i < 2 * nf; i++)
		bytes += 4 + fv[i].len;
	e = malloc(sizeof(*e) + bytes);
	if (!e)
		return NULL;
	e->id = id;
	e->nf = (uint32_t)nf;
	e->deleted = false;
	for (i = 0, p = e->data; i < 2 * nf; i++) {
		uint32_t len = (uint32_t)fv[i].len;

		p[0] = (unsigned char)len;
		p[1] = (unsigned char)(len >> 8);
		p[2] = (unsigned char)(len >> 16);
		p[3] = (unsigned char)(len >> 24);
		memcpy(p + 4, fv[i].p, len);
		p += 4 + len;
	}
	return e;
}

/* True if fv's fields are those of e, the node's first entry (redis's
 * master entry), in order. */
static bool same_fields(const struct kv_sentry *e, const struct resp_arg *fv,
			size_t nf)
{
	const unsigned char *at = e->data;
	const char *f;
	size_t i, n;

	if (e->nf != nf)
		return false;
	for (i = 0; i < nf; i++) {
		f = sentry_item(&at, &n);
		if (n != fv[2 * i].len || memcmp(f, fv[2 * i].p, n))
			return false;
		sentry_item(&at, &n); /* its value */
	}
	return true;
}

static void node_free(struct snode *nd)
{
	uint32_t i;

	for (i = 0; i < nd->n; i++)
		free(nd->e[i]);
	free(nd->e);
	free(nd);
}

static bool node_push(struct snode *nd, struct kv_sentry *e)
{
	struct kv_sentry **a;
	uint32_t cap;

	if (nd->n == nd->cap) {
		cap = nd->cap ? nd->cap * 2 : 4;
		a = realloc(nd->e, cap * sizeof(*a));
		if (!a)
			return false;
		nd->e = a;
		nd->cap = cap;
	}
	nd->e[nd->n++] = e;
	nd->live++;
	return true;
}

static struct snode *node_at(const struct kv_stream *s, size_t i)
{
	return s->nodes[s->head + i];
}

static struct snode *tail(const struct kv_stream *s)
{
	return s->n ? node_at(s, s->n - 1) : NULL;
}

/* Room for one more node at the end: the array compacted or doubled. */
static bool nodes_room(struct kv_stream *s)
{
	struct snode **a;
	size_t cap;

	if (s->head + s->n < s->cap)
		return true;
	if (s->head > s->n) {
		memmove(s->nodes, s->nodes + s->head, s->n * sizeof(*a));
		s->head = 0;
		return true;
	}
	cap = s->cap ? s->cap * 2 : 4;
	a = realloc(s->nodes, cap * sizeof(*a));
	if (!a)
		return false;
	s->nodes = a;
	s->cap = cap;
	return true;
}

static struct snode *node_open(struct kv_stream *s, struct kv_sid id,
			       const struct resp_arg *fv, size_t nf)
{
	struct snode *nd;

	if (!nodes_room(s))
		return NULL;
	nd = calloc(1, sizeof(*nd));
	if (!nd)
		return NULL;
	nd->master = id;
	nd->bytes = lp_master(fv, nf);
	s->nodes[s->head + s->n++] = nd;
	return nd;
}

/* The i-th node out of the array, and freed. */
static void node_drop(struct kv_stream *s, size_t i)
{
	node_free(node_at(s, i));
	if (i == 0) {
		s->head++;
	} else {
		memmove(&s->nodes[s->head + i], &s->nodes[s->head + i + 1],
			(s->n - i - 1) * sizeof(*s->nodes));
	}
	if (!--s->n)
		s->head = 0;
}

/* redis's test for a new node: the tail's listpack full, in entries
 * (live and deleted) or in bytes with the new entry's. */
static bool tail_full(const struct snode *nd, const struct resp_arg *fv,
		      size_t nf)
{
	size_t i, raw = 0;

	for (i = 0; i < 2 * nf; i++)
		raw += fv[i].len;
	return nd->bytes + raw >= NODE_MAX_BYTES ||
	       nd->live + nd->dead >= NODE_MAX_ENTRIES;
}

/* ---- the stream ---------------------------------------------------------- */

struct kv_stream *stream_new(void)
{
	return calloc(1, sizeof(struct kv_stream));
}

void stream_free(struct kv_stream *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->n; i++)
		node_free(node_at(x, i));
	free(x->nodes);
	free(x);
}

uint64_t stream_len(const struct kv_stream *s)
{
	return s->length;
}

void stream_set_last_id(struct kv_stream *s, struct kv_sid id)
{
	s->last = id;
}

struct kv_sid stream_last_id(const struct kv_stream *s)
{
	return s->last;
}

bool stream_append(struct kv_stream *s, struct kv_sid id,
		   const struct resp_arg *fv, size_t nf)
{
	struct snode *nd = tail(s);
	struct kv_sentry *e = entry_new(id, fv, nf);
	bool opened = false, same;

	if (!e)
		return false;
	if (!nd || tail_full(nd, fv, nf)) {
		nd = node_open(s, id, fv, nf);
		opened = true;
	}
	if (!nd || !node_push(nd, e)) {
		if (nd && opened)
			node_drop(s, s->n - 1);
		free(e);
		return false;
	}
	same = opened || same_fields(nd->e[0], fv, nf);
	nd->bytes += lp_entry(nd, id, fv, nf, same);
	s->length++;
	s->last = id;
	return true;
}

/* The index of the last node whose master ID is at most id; n if none. */
static size_t node_find(const struct kv_stream *s, struct kv_sid id)
{
	size_t lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sid_cmp(node_at(s, mid)->master, id) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : s->n;
}

/* The index of the first entry of nd with an ID at least id. */
static void mark_deleted(struct kv_stream *s, struct snode *nd,
			 struct kv_sentry *e)
{
	e->deleted = true;
	nd->live--;
	nd->dead++;
	s->length--;
}

/*
 * Lookups go as redis's stream iterator goes: from the start of the node
 * whose first ID is the last at or before the one sought, entry by entry,
 * a deleted entry passed over before its ID is looked at. Entries are in
 * ID order but for deleted ones: XSETID may put the last ID below a
 * deleted entry, and what is added then follows it in its node (redis's
 * listpack keeps the same order), so a search within a node by halves
 * would step over such a live entry.
 */
bool stream_delete(struct kv_stream *s, struct kv_sid id)
{
	size_t k = node_find(s, id);
	struct snode *nd;
	uint32_t i;
	int c;

	if (k == s->n)
		return false;
	nd = node_at(s, k);
	for (i = 0; i < nd->n; i++) {
		if (nd->e[i]->deleted)
			continue;
		c = sid_cmp(nd->e[i]->id, id);
		if (c > 0)
			return false;
		if (c == 0)
			break;
	}
	if (i == nd->n)
		return false;
	if (nd->live == 1) { /* its last live entry: the node goes */
		s->length--;
		node_drop(s, k);
		return true;
	}
	mark_deleted(s, nd, nd->e[i]);
	return true;
}

/* Marks nd's entries deleted from its first until the trim is met, as
 * redis does within a node it cannot remove whole: those marked. */
static uint64_t trim_within(struct kv_stream *s, struct snode *nd,
			    const struct kv_trim *t)
{
	uint64_t marked = 0;
	uint32_t i;

	for (i = 0; i < nd->n; i++) {
		struct kv_sentry *e = nd->e[i];

		if (t->by == KV_TRIM_MAXLEN ? s->length <= (uint64_t)t->maxlen :
					      sid_cmp(e->id, t->minid) >= 0)
			break;
		if (!e->deleted) {
			mark_deleted(s, nd, e);
			marked++;
		}
	}
	return marked;
}

/* True if the head node nd can go whole. */
static bool node_goes(const struct kv_stream *s, const struct snode *nd,
		      const struct kv_trim *t)
{
	if (t->by == KV_TRIM_MAXLEN)
		return s->length - nd->live >= (uint64_t)t->maxlen;
	/* its last entry, even one marked deleted, as redis reads it */
	return sid_cmp(nd->e[nd->n - 1]->id, t->minid) < 0;
}

uint64_t stream_trim(struct kv_stream *s, const struct kv_trim *t)
{
	uint64_t deleted = 0, live;
	struct snode *nd;

	if (t->by == KV_TRIM_NONE)
		return 0;
	while (s->n) {
		nd = node_at(s, 0);
		if (t->by == KV_TRIM_MAXLEN && s->length <= (uint64_t)t->maxlen)
			break;
		live = nd->live;
		if (t->limit && deleted + live > (uint64_t)t->limit)
			break;
		if (node_goes(s, nd, t)) {
			s->length -= live;
			deleted += live;
			node_drop(s, 0);
			continue;
		}
		if (!t->approx)
			deleted += trim_within(s, nd, t);
		break;
	}
	return deleted;
}

/* ---- ranges -------------------------------------------------------------- */

/* Forward: the first entry at or after start. */
static void seek_forward(struct kv_stream_iter *it)
{
	const struct kv_stream *s = it->s;
	size_t k = node_find(s, it->start);

	it->node = k == s->n ? 0 : k; /* every node after start: the first */
	it->at = 0;
}

static void seek_backward(struct kv_stream_iter *it)
{
	const struct kv_stream *s = it->s;
	size_t k = node_find(s, it->end);

	if (k == s->n) {
		it->done = true; /* every node is after end */
		return;
	}
	it->node = k;
	it->at = node_at(s, k)->n;
}

void stream_iter_init(struct kv_stream_iter *it, const struct kv_stream *s,
		      struct kv_sid start, struct kv_sid end, bool rev)
{
	memset(it, 0, sizeof(*it));
	it->s = s;
	it->start = start;
	it->end = end;
	it->rev = rev;
	if (rev)
		seek_backward(it);
	else
		seek_forward(it);
}

static const struct kv_sentry *next_forward(struct kv_stream_iter *it)
{
	const struct kv_sentry *e;
	const struct snode *nd;

	while (it->node < it->s->n) {
		nd = node_at(it->s, it->node);
		if (it->at >= nd->n) {
			it->node++;
			it->at = 0;
			continue;
		}
		e = nd->e[it->at++];
		if (e->deleted || sid_cmp(e->id, it->start) < 0)
			continue;
		if (sid_cmp(e->id, it->end) > 0)
			break;
		return e;
	}
	it->done = true;
	return NULL;
}

static const struct kv_sentry *next_backward(struct kv_stream_iter *it)
{
	const struct kv_sentry *e;

	for (;;) {
		if (!it->at) {
			if (!it->node)
				break;
			it->at = node_at(it->s, --it->node)->n;
			continue;
		}
		e = node_at(it->s, it->node)->e[--it->at];
		if (e->deleted || sid_cmp(e->id, it->end) > 0)
			continue;
		if (sid_cmp(e->id, it->start) < 0)
			break;
		return e;
	}
	it->done = true;
	return NULL;
}

const struct kv_sentry *stream_next(struct kv_stream_iter *it)
{
	if (it->done)
		return NULL;
	return it->rev ? next_backward(it) : next_forward(it);
}
