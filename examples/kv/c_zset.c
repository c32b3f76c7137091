/* SPDX-License-Identifier: MIT */
/*
 * c_zset.c - the kv example's sorted set commands (cmd.h), with
 * redis-server 7.0's replies: the same checks in the same order, so that
 * the same bad command gets the same error. Redis 7.0's t_zset.c is the
 * reference.
 *
 * Every range (by rank, score or lex, either way, with LIMIT) comes down
 * to a first rank and a count, found before any reply is written (redis
 * defers the array's length; the bytes are the same), and then one walk
 * of the set (zset.h). A set left empty is deleted with its key.
 */
#include "cmd_impl.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#define ERR_FLOAT "ERR value is not a valid float"
#define ERR_NAN "ERR resulting score is not a number (NaN)"
#define ERR_RANGE_FLOAT "ERR min or max is not a float"
#define ERR_RANGE_LEX "ERR min or max not valid string range item"
#define RANDOM_REPLY_MAX ((size_t)512 << 20) /* then the client is closed */

/* e's key deleted if its set is left empty. */
static void drop_empty(struct kv_db *db, struct kv_entry *e)
{
	if (!zset_len(db_zset(e)))
		db_delete(db, e);
}

static bool getd(const struct resp_arg *a, double *d)
{
	return resp_string2d(a->p, a->len, d);
}

struct emit {
	struct out *o;
	bool scores, flat;
};

static void emit(const char *m, size_t n, double score, void *ctx)
{
	struct emit *x = ctx;

	if (x->flat) { /* member, score, in either protocol */
		out_bulk(x->o, m, n);
		out_double(x->o, score);
	} else {
		out_scored(x->o, m, n, score, x->scores);
	}
}

/* count members from rank, up or (rev) down, as one array (of RESP3's
 * pairs, with scores); flat: one member and its score, as ZPOPMIN's
 * without a count. */
static void walk(struct kv_zset *z, size_t rank, size_t count, bool rev,
		 bool scores, bool flat, struct out *o)
{
	struct emit x = { o, scores, flat };

	if (flat)
		out_array(o, 2 * (long long)count);
	else
		out_scored_array(o, (long long)count, scores);
	zset_walk(z, rank, count, rev, emit, &x);
}

static void reply_walk(struct kv_zset *z, size_t rank, size_t count, bool rev,
		       bool scores, struct out *o)
{
	walk(z, rank, count, rev, scores, false, o);
}

/* ---- ZADD, ZINCRBY ----------------------------------------------------- */

/* The options before the first score: its index. */
static int zadd_options(int argc, const struct resp_arg *v, int *flags,
			bool *ch)
{
	static const struct {
		const char *name;
		int flag;
	} opts[] = {
		{ "nx", ZSET_NX },     { "xx", ZSET_XX }, { "ch", 0 },
		{ "incr", ZSET_INCR }, { "gt", ZSET_GT }, { "lt", ZSET_LT },
	};
	size_t k, nopts = sizeof(opts) / sizeof(opts[0]);
	int i;

	for (i = 2; i < argc; i++) {
		for (k = 0; k < nopts && !is(&v[i], opts[k].name); k++)
			;
		if (k == nopts)
			break;
		*flags |= opts[k].flag;
		if (!opts[k].flag)
			*ch = true;
	}
	return i;
}

/* redis's checks of the options, then of every score, before any write */
static bool zadd_valid(int flags, const struct resp_arg *v, int argc, int first,
		       struct out *o)
{
	bool nx = flags & ZSET_NX, gt = flags & ZSET_GT, lt = flags & ZSET_LT;
	int i, nargs = argc - first;
	double d;

	if (nargs % 2 || !nargs) {
		out_error(o, KV_ERR_SYNTAX);
	} else if (nx && (flags & ZSET_XX)) {
		out_error(o, "ERR XX and NX options at the same time are not "
			     "compatible");
	} else if ((gt && nx) || (lt && nx) || (gt && lt)) {
		out_error(o, "ERR GT, LT, and/or NX options at the same time "
			     "are not compatible");
	} else if ((flags & ZSET_INCR) && nargs > 2) {
		out_error(o, "ERR INCR option supports a single "
			     "increment-element pair");
	} else {
		for (i = first; i < argc; i += 2) {
			if (!getd(&v[i], &d)) {
				out_error(o, ERR_FLOAT);
				return false;
			}
		}
		return true;
	}
	return false;
}

struct zadd_count {
	long long added, updated, processed;
	double score; /* INCR's reply */
};

/* The pairs from v[first] on; false with the reply on a failure. */
static bool zadd_apply(struct kv_zset *z, int flags, const struct resp_arg *v,
		       int argc, int first, struct zadd_count *c, struct out *o)
{
	double score;
	int i, r;

	for (i = first; i < argc; i += 2) {
		getd(&v[i], &score); /* checked, as redis checks them first */
		r = zset_add(z, score, v[i + 1].p, v[i + 1].len, flags,
			     &c->score);
		if (r & ZSET_NAN) {
			out_error(o, ERR_NAN);
			return false;
		}
		if (r & ZSET_NOMEM) {
			nomem(o);
			return false;
		}
		c->added += !!(r & ZSET_ADDED);
		c->updated += !!(r & ZSET_UPDATED);
		c->processed += !(r & ZSET_NOP);
	}
	return true;
}

static void zadd(struct kv_db *db, int argc, const struct resp_arg *v,
		 struct out *o, int flags)
{
	struct zadd_count c = { 0, 0, 0, 0 };
	uint32_t h = hash_of(&v[1]);
	struct kv_entry *e;
	bool ch = false, ok;
	int first = zadd_options(argc, v, &flags, &ch);

	if (!zadd_valid(flags, v, argc, first, o))
		return;
	e = db_find(db, v[1].p, v[1].len, h);
	if (wrong(e, KV_ZSET, o))
		return;
	if (!e && !(flags & ZSET_XX) &&
	    !(e = db_add(db, v[1].p, v[1].len, h, KV_ZSET, 0))) {
		nomem(o);
		return;
	}
	ok = !e || zadd_apply(db_zset(e), flags, v, argc, first, &c, o);
	if (e)
		drop_empty(db, e); /* made here, and nothing went in */
	if (!ok)
		return;
	if (!(flags & ZSET_INCR))
		out_int(o, ch ? c.added + c.updated : c.added);
	else if (c.processed)
		out_double(o, c.score);
	else
		out_null(o);
}

static void c_zadd(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	zadd(db, argc, v, o, 0);
}

static void c_zincrby(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	zadd(db, argc, v, o, ZSET_INCR);
}

/* ---- members ----------------------------------------------------------- */

static void c_zrem(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	struct kv_zset *z;
	long long n = 0;
	int i;

	if (wrong(e, KV_ZSET, o))
		return;
	if (!e) {
		out_int(o, 0);
		return;
	}
	z = db_zset(e);
	for (i = 2; i < argc && zset_len(z); i++)
		n += zset_del(z, v[i].p, v[i].len);
	drop_empty(db, e);
	out_int(o, n);
}

static void c_zcard(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_ZSET, o))
		out_int(o, e ? (long long)zset_len(db_zset(e)) : 0);
}

static void c_zscore(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	double score;

	(void)argc;
	if (wrong(e, KV_ZSET, o))
		return;
	if (e && zset_score(db_zset(e), v[2].p, v[2].len, &score))
		out_double(o, score);
	else
		out_null(o);
}

static void c_zmscore(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	double score;
	int i;

	if (wrong(e, KV_ZSET, o))
		return;
	out_array(o, argc - 2);
	for (i = 2; i < argc; i++) {
		if (e && zset_score(db_zset(e), v[i].p, v[i].len, &score))
			out_double(o, score);
		else
			out_null(o);
	}
}

static void rank(struct kv_db *db, const struct resp_arg *v, struct out *o,
		 bool rev)
{
	struct kv_entry *e = lookup(db, &v[1]);
	struct kv_zset *z;
	size_t r;

	if (wrong(e, KV_ZSET, o))
		return;
	z = e ? db_zset(e) : NULL;
	if (!z || !zset_rank(z, v[2].p, v[2].len, &r))
		out_null(o);
	else
		out_int(o, (long long)(rev ? zset_len(z) - 1 - r : r));
}

static void c_zrank(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	(void)argc;
	rank(db, v, o, false);
}

static void c_zrevrank(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	(void)argc;
	rank(db, v, o, true);
}

/* ---- ranges' arguments ------------------------------------------------- */

/*
 * zslParseRange's one end: "(" for an open one, the rest read by strtod
 * as a C string, as redis reads it (so "" is 0, a NUL ends the number,
 * and an overflow is an infinity); a NaN is refused.
 */
static bool parse_score(const struct resp_arg *a, double *d, bool *ex)
{
	char buf[128], *p = buf, *end;
	const char *s = a->p;
	size_t n = a->len;
	bool ok;

	*ex = n && s[0] == '(';
	if (*ex) {
		s++;
		n--;
	}
	if (n >= sizeof(buf) && !(p = malloc(n + 1)))
		return false;
	memcpy(p, s, n);
	p[n] = '\0';
	*d = strtod(p, &end);
	ok = *end == '\0' && !isnan(*d);
	if (p != buf)
		free(p);
	return ok;
}

/* zslParseLexRangeItem: "-", "+", "[m" or "(m" (a C string's first
 * bytes: "+" then a NUL is "+") */
static bool parse_lex(const struct resp_arg *a, struct zset_lexb *b)
{
	if (!a->len)
		return false;
	b->p = a->p + 1;
	b->n = a->len - 1;
	b->inf = 0;
	b->ex = true;
	switch (a->p[0]) {
	case '-':
	case '+':
		b->inf = a->p[0] == '+' ? 1 : -1;
		return a->len == 1 || a->p[1] == '\0';
	case '[':
		b->ex = false;
		return true;
	case '(':
		return true;
	}
	return false;
}

static bool parse_spec(const struct resp_arg *min, const struct resp_arg *max,
		       bool lex, struct zset_spec *r, struct out *o)
{
	memset(r, 0, sizeof(*r));
	r->lex = lex;
	if (lex && !(parse_lex(min, &r->lmin) && parse_lex(max, &r->lmax))) {
		out_error(o, ERR_RANGE_LEX);
		return false;
	}
	if (!lex && !(parse_score(min, &r->min, &r->minex) &&
		      parse_score(max, &r->max, &r->maxex))) {
		out_error(o, ERR_RANGE_FLOAT);
		return false;
	}
	return true;
}

/* ---- ZCOUNT, ZLEXCOUNT ------------------------------------------------- */

static void count(struct kv_db *db, const struct resp_arg *v, struct out *o,
		  bool lex)
{
	struct zset_spec r;
	struct kv_entry *e;
	struct kv_zset *z;
	size_t first;

	if (!parse_spec(&v[2], &v[3], lex, &r, o))
		return;
	e = lookup(db, &v[1]);
	if (wrong(e, KV_ZSET, o))
		return;
	z = e ? db_zset(e) : NULL;
	if (!z || !zset_first(z, &r, &first))
		out_int(o, 0);
	else
		out_int(o, (long long)zset_run(z, &r, first, false));
}

static void c_zcount(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	(void)argc;
	count(db, v, o, false);
}

static void c_zlexcount(struct kv_db *db, int argc, const struct resp_arg *v,
			struct out *o)
{
	(void)argc;
	count(db, v, o, true);
}

/* ---- ZRANGE and its older forms ---------------------------------------- */

enum { BY_AUTO, BY_RANK, BY_SCORE, BY_LEX };
enum { DIR_AUTO, DIR_FWD, DIR_REV };

struct zrange {
	int by, dir;
	bool scores;
	long long offset, limit; /* limit < 0: no limit */
	long long start, end;	 /* by rank */
	struct zset_spec r;	 /* by score or lex */
};

/* The options after <key> <min> <max>, in redis's order of checks. */
static bool zrange_options(int argc, const struct resp_arg *v, struct zrange *q,
			   struct out *o)
{
	int j;

	for (j = 4; j < argc; j++) {
		if (is(&v[j], "withscores")) {
			q->scores = true;
		} else if (is(&v[j], "limit") && argc - j - 1 >= 2) {
			if (!getll(&v[j + 1], &q->offset) ||
			    !getll(&v[j + 2], &q->limit)) {
				out_error(o, KV_ERR_NOTINT);
				return false;
			}
			j += 2;
		} else if (q->dir == DIR_AUTO && is(&v[j], "rev")) {
			q->dir = DIR_REV;
		} else if (q->by == BY_AUTO && is(&v[j], "bylex")) {
			q->by = BY_LEX;
		} else if (q->by == BY_AUTO && is(&v[j], "byscore")) {
			q->by = BY_SCORE;
		} else {
			out_error(o, KV_ERR_SYNTAX);
			return false;
		}
	}
	return true;
}

static bool zrange_parse(int argc, const struct resp_arg *v, struct zrange *q,
			 struct out *o)
{
	const struct resp_arg *min = &v[2], *max = &v[3];

	if (!zrange_options(argc, v, q, o))
		return false;
	if (q->dir == DIR_AUTO)
		q->dir = DIR_FWD;
	if (q->by == BY_AUTO)
		q->by = BY_RANK;
	if (q->limit != -1 && q->by == BY_RANK) {
		out_error(o, "ERR syntax error, LIMIT is only supported in "
			     "combination with either BYSCORE or BYLEX");
		return false;
	}
	if (q->scores && q->by == BY_LEX) {
		out_error(o, "ERR syntax error, WITHSCORES not supported in "
			     "combination with BYLEX");
		return false;
	}
	if (q->by == BY_RANK) {
		if (getll(min, &q->start) && getll(max, &q->end))
			return true;
		out_error(o, KV_ERR_NOTINT);
		return false;
	}
	if (q->dir == DIR_REV) { /* given as max, min */
		min = &v[3];
		max = &v[2];
	}
	return parse_spec(min, max, q->by == BY_LEX, &q->r, o);
}

static void by_rank(struct kv_zset *z, struct zrange *q, struct out *o)
{
	long long len = (long long)zset_len(z), start = q->start, end = q->end;
	bool rev = q->dir == DIR_REV;

	if (start < 0)
		start += len;
	if (end < 0)
		end += len;
	if (start < 0)
		start = 0;
	if (start > end || start >= len) {
		out_array(o, 0);
		return;
	}
	if (end >= len)
		end = len - 1;
	reply_walk(z, (size_t)(rev ? len - 1 - start : start),
		   (size_t)(end - start + 1), rev, q->scores, o);
}

/* By score or lex: from the first member in range (the last, rev), past
 * offset members, as many as stay in range, up to limit. */
static void by_range(struct kv_zset *z, struct zrange *q, struct out *o)
{
	bool rev = q->dir == DIR_REV;
	size_t len = zset_len(z), s, from, k;

	/* redis skips a negative offset's members to the end of the set */
	if (q->offset < 0 || (unsigned long long)q->offset >= len ||
	    !(rev ? zset_last(z, &q->r, &s) : zset_first(z, &q->r, &s)) ||
	    (rev ? s < (size_t)q->offset : len - s <= (size_t)q->offset)) {
		out_array(o, 0);
		return;
	}
	from = rev ? s - (size_t)q->offset : s + (size_t)q->offset;
	k = zset_run(z, &q->r, from, rev);
	if (q->limit >= 0 && (unsigned long long)q->limit < k)
		k = (size_t)q->limit;
	reply_walk(z, from, k, rev, q->scores, o);
}

static void zrange(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o, int by, int dir)
{
	struct zrange q = { .by = by, .dir = dir, .limit = -1 };
	struct kv_entry *e;
	struct kv_zset *z;

	if (!zrange_parse(argc, v, &q, o))
		return;
	e = lookup(db, &v[1]);
	if (wrong(e, KV_ZSET, o))
		return;
	z = e ? db_zset(e) : NULL;
	if (!z)
		out_array(o, 0);
	else if (q.by == BY_RANK)
		by_rank(z, &q, o);
	else
		by_range(z, &q, o);
}

static void c_zrange(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	zrange(db, argc, v, o, BY_AUTO, DIR_AUTO);
}

static void c_zrevrange(struct kv_db *db, int argc, const struct resp_arg *v,
			struct out *o)
{
	zrange(db, argc, v, o, BY_RANK, DIR_REV);
}

static void c_zrangebyscore(struct kv_db *db, int argc,
			    const struct resp_arg *v, struct out *o)
{
	zrange(db, argc, v, o, BY_SCORE, DIR_FWD);
}

static void c_zrevrangebyscore(struct kv_db *db, int argc,
			       const struct resp_arg *v, struct out *o)
{
	zrange(db, argc, v, o, BY_SCORE, DIR_REV);
}

static void c_zrangebylex(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	zrange(db, argc, v, o, BY_LEX, DIR_FWD);
}

static void c_zrevrangebylex(struct kv_db *db, int argc,
			     const struct resp_arg *v, struct out *o)
{
	zrange(db, argc, v, o, BY_LEX, DIR_REV);
}

/* ---- removals by range ------------------------------------------------- */

/* The ranks [*lo, *hi] to remove: those of start..end (by rank), or from
 * the first in r on while in it, as redis deletes them. False: none. */
static bool rem_ranks(struct kv_zset *z, int by, long long start, long long end,
		      const struct zset_spec *r, size_t *lo, size_t *hi)
{
	long long len = (long long)zset_len(z);

	if (by != BY_RANK) {
		if (!zset_first(z, r, lo))
			return false;
		*hi = *lo + zset_run(z, r, *lo, false) - 1;
		return true;
	}
	if (start < 0)
		start += len;
	if (end < 0)
		end += len;
	if (start < 0)
		start = 0;
	if (start > end || start >= len)
		return false;
	*lo = (size_t)start;
	*hi = (size_t)(end >= len ? len - 1 : end);
	return true;
}

static void remrange(struct kv_db *db, const struct resp_arg *v, struct out *o,
		     int by)
{
	long long start = 0, end = 0;
	struct zset_spec r = { .lex = false };
	struct kv_entry *e;
	struct kv_zset *z;
	size_t lo, hi;

	if (by == BY_RANK && !(getll(&v[2], &start) && getll(&v[3], &end))) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	if (by != BY_RANK && !parse_spec(&v[2], &v[3], by == BY_LEX, &r, o))
		return;
	e = lookup(db, &v[1]);
	if (wrong(e, KV_ZSET, o))
		return;
	z = e ? db_zset(e) : NULL;
	if (!z || !rem_ranks(z, by, start, end, &r, &lo, &hi)) {
		out_int(o, 0);
		return;
	}
	zset_del_ranks(z, lo, hi);
	drop_empty(db, e);
	out_int(o, (long long)(hi - lo + 1));
}

static void c_zremrangebyrank(struct kv_db *db, int argc,
			      const struct resp_arg *v, struct out *o)
{
	(void)argc;
	remrange(db, v, o, BY_RANK);
}

static void c_zremrangebyscore(struct kv_db *db, int argc,
			       const struct resp_arg *v, struct out *o)
{
	(void)argc;
	remrange(db, v, o, BY_SCORE);
}

static void c_zremrangebylex(struct kv_db *db, int argc,
			     const struct resp_arg *v, struct out *o)
{
	(void)argc;
	remrange(db, v, o, BY_LEX);
}

/* ---- ZPOPMIN, ZPOPMAX -------------------------------------------------- */

static void pop(struct kv_db *db, int argc, const struct resp_arg *v,
		struct out *o, bool max)
{
	long long n = 1;
	struct kv_entry *e;
	struct kv_zset *z;
	size_t len, k;

	if (argc > 3) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	if (argc == 3 && (!getll(&v[2], &n) || n < 0)) {
		out_error(o, ERR_POSITIVE);
		return;
	}
	e = lookup(db, &v[1]);
	if (wrong(e, KV_ZSET, o))
		return;
	if (!e || !n) {
		out_array(o, 0);
		return;
	}
	z = db_zset(e);
	len = zset_len(z);
	k = (unsigned long long)n < len ? (size_t)n : len;
	/* redis 7.0: RESP3's pairs with a count, one flat pair without */
	walk(z, max ? len - 1 : 0, k, max, true, argc == 2, o);
	zset_del_ranks(z, max ? len - k : 0, max ? len - 1 : k - 1);
	drop_empty(db, e);
}

static void c_zpopmin(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	pop(db, argc, v, o, false);
}

static void c_zpopmax(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	pop(db, argc, v, o, true);
}

/* ---- ZRANDMEMBER ------------------------------------------------------- */

static void emit_rank(struct kv_zset *z, size_t rank, bool scores,
		      struct out *o)
{
	const char *m;
	size_t n;
	double s;

	zset_at(z, rank, &m, &n, &s);
	out_scored(o, m, n, s, scores);
}

/* A negative count: that many picks, the same member maybe again. A
 * reply past RANDOM_REPLY_MAX fails the connection's output, as
 * redis's output buffer limit closes a client. */
static void rand_picks(struct kv_zset *z, unsigned long long count, bool scores,
		       struct out *o)
{
	size_t len = zset_len(z);

	out_scored_array(o, (long long)count, scores);
	while (count-- && !o->failed) {
		emit_rank(z, (size_t)(zset_random(z) % len), scores, o);
		if (o->len > RANDOM_REPLY_MAX)
			o->failed = true;
	}
}

struct sample {
	struct kv_zset *z;
	struct out *o;
	bool scores;
	size_t need, left;
};

/* Knuth's selection sampling: each member taken with need/left odds. */
static void sample_one(const char *m, size_t n, double score, void *ctx)
{
	struct sample *s = ctx;

	if (zset_random(s->z) % s->left-- < s->need) {
		s->need--;
		out_scored(s->o, m, n, score, s->scores);
	}
}

/* Floyd's: count distinct ranks, each set of them as likely, kept in an
 * open-addressed table of rank + 1 (0: free). */
static bool rand_distinct(struct kv_zset *z, size_t count, bool scores,
			  struct out *o)
{
	size_t len = zset_len(z), cap = 4, j, t, i;
	size_t *seen;

	while (cap < 2 * count)
		cap *= 2;
	seen = calloc(cap, sizeof(*seen));
	if (!seen)
		return false;
	out_scored_array(o, (long long)count, scores);
	for (j = len - count; j < len; j++) {
		t = (size_t)(zset_random(z) % (j + 1));
		for (i = t & (cap - 1); seen[i] && seen[i] != t + 1;)
			i = (i + 1) & (cap - 1);
		if (seen[i]) /* t was taken before: j never was */
			for (t = j, i = t & (cap - 1); seen[i];)
				i = (i + 1) & (cap - 1);
		seen[i] = t + 1;
		emit_rank(z, t, scores, o);
	}
	free(seen);
	return true;
}

static void rand_count(struct kv_db *db, const struct resp_arg *v, long long l,
		       bool scores, struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	struct sample s;
	struct kv_zset *z;
	unsigned long long count;
	size_t len;

	if (wrong(e, KV_ZSET, o))
		return;
	if (!e || !l) {
		out_array(o, 0);
		return;
	}
	z = db_zset(e);
	len = zset_len(z);
	count = l < 0 ? 0ull - (unsigned long long)l : (unsigned long long)l;
	if (l < 0 || count == 1) {
		rand_picks(z, count, scores, o);
	} else if (count >= len) { /* all, highest first, as redis's */
		reply_walk(z, len - 1, len, true, scores, o);
	} else if (count * 3 > len) {
		s = (struct sample){ z, o, scores, (size_t)count, len };
		out_scored_array(o, (long long)count, scores);
		zset_walk(z, 0, len, false, sample_one, &s);
	} else if (!rand_distinct(z, (size_t)count, scores, o)) {
		nomem(o);
	}
}

static void c_zrandmember(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	struct kv_entry *e;
	long long l;

	if (argc >= 3) {
		if (!getll(&v[2], &l)) {
			out_error(o, KV_ERR_NOTINT);
		} else if (l < -LLONG_MAX) {
			out_errorf(o,
				   "ERR value is out of range, value must "
				   "between %lld and %lld",
				   -LLONG_MAX, LLONG_MAX);
		} else if (argc > 4 ||
			   (argc == 4 && !is(&v[3], "withscores"))) {
			out_error(o, KV_ERR_SYNTAX);
		} else if (argc == 4 &&
			   (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2)) {
			out_error(o, "ERR value is out of range");
		} else {
			rand_count(db, v, l, argc == 4, o);
		}
		return;
	}
	e = lookup(db, &v[1]);
	if (wrong(e, KV_ZSET, o))
		return;
	if (!e)
		out_null(o);
	else
		emit_rank(db_zset(e),
			  (size_t)(zset_random(db_zset(e)) %
				   zset_len(db_zset(e))),
			  false, o);
}

const struct kv_cmd kv_cmds_zset[] = {
	KV_CMD("zadd", -4, 1, 0, KV_WRITE, 0, c_zadd),
	KV_CMD("zcard", 2, 1, 0, 0, 0, c_zcard),
	KV_CMD("zcount", 4, 1, 0, 0, 0, c_zcount),
	KV_CMD("zincrby", 4, 1, 0, KV_WRITE, 0, c_zincrby),
	KV_CMD("zlexcount", 4, 1, 0, 0, 0, c_zlexcount),
	KV_CMD("zmscore", -3, 1, 0, 0, 0, c_zmscore),
	KV_CMD("zpopmax", -2, 1, 0, KV_WRITE, 0, c_zpopmax),
	KV_CMD("zpopmin", -2, 1, 0, KV_WRITE, 0, c_zpopmin),
	KV_CMD("zrandmember", -2, 1, 0, 0, 0, c_zrandmember),
	KV_CMD("zrange", -4, 1, 0, 0, 0, c_zrange),
	KV_CMD("zrangebylex", -4, 1, 0, 0, 0, c_zrangebylex),
	KV_CMD("zrangebyscore", -4, 1, 0, 0, 0, c_zrangebyscore),
	KV_CMD("zrank", 3, 1, 0, 0, 0, c_zrank),
	KV_CMD("zrem", -3, 1, 0, KV_WRITE, 0, c_zrem),
	KV_CMD("zremrangebylex", 4, 1, 0, KV_WRITE, 0, c_zremrangebylex),
	KV_CMD("zremrangebyrank", 4, 1, 0, KV_WRITE, 0, c_zremrangebyrank),
	KV_CMD("zremrangebyscore", 4, 1, 0, KV_WRITE, 0, c_zremrangebyscore),
	KV_CMD("zrevrange", -4, 1, 0, 0, 0, c_zrevrange),
	KV_CMD("zrevrangebylex", -4, 1, 0, 0, 0, c_zrevrangebylex),
	KV_CMD("zrevrangebyscore", -4, 1, 0, 0, 0, c_zrevrangebyscore),
	KV_CMD("zrevrank", 3, 1, 0, 0, 0, c_zrevrank),
	KV_CMD("zscore", 3, 1, 0, 0, 0, c_zscore),
	{ .name = NULL },
};
