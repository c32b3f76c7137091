/* SPDX-License-Identifier: MIT */
/*
 * c_set.c - the kv example's set commands (cmd.h), with redis-server
 * 7.0's replies: the same checks in the same order, so that the same bad
 * command gets the same error. Redis 7.0's t_set.c is the reference.
 *
 * SUNION, SDIFF and the *STORE commands build their result as a set of
 * its own, as redis does, so that an all-integer result comes back in
 * ascending order like redis's intset; SINTER and SMEMBERS walk the
 * smallest set twice (count, then reply) rather than hold the result.
 * An empty set is never left in the keyspace.
 */
#include "cmd_impl.h"

#include <limits.h>
#include <stdlib.h>

/* A reply past this ends its connection (redis's output buffer limits do
 * the same): SRANDMEMBER with a huge negative count would fill memory. */
#define REPLY_MAX ((size_t)512 << 20)

#define ERR_SRAND_RANGE                                                       \
	"ERR value is out of range, value must between -9223372036854775807 " \
	"and 9223372036854775807"

static void reply_member(struct out *o, const struct kv_member *m)
{
	out_bulk(o, m->p, m->n);
}

/* The whole set in its own order: a set reply (RESP3's ~, as SMEMBERS
 * and SPOP's), or an array (SRANDMEMBER's). */
static void reply_all(struct out *o, const struct kv_set *s, bool as_set)
{
	struct kv_set_iter it;
	struct kv_member m;

	if (as_set)
		out_set(o, (long long)set_card(s));
	else
		out_array(o, (long long)set_card(s));
	set_iter_init(&it, s);
	while (set_next(&it, &m))
		reply_member(o, &m);
}

static struct kv_set *set_for_write(struct kv_db *db, const struct resp_arg *k,
				    struct kv_entry **ep, struct out *o)
{
	uint32_t h = hash_of(k);
	struct kv_entry *e = db_find(db, k->p, k->len, h);

	if (wrong(e, KV_SET, o))
		return NULL;
	if (!e && !(e = db_add(db, k->p, k->len, h, KV_SET, 0))) {
		nomem(o);
		return NULL;
	}
	*ep = e;
	return db_set(e);
}

static void drop_if_empty(struct kv_db *db, struct kv_entry *e)
{
	if (!set_card(db_set(e)))
		db_delete(db, e);
}

static void c_sadd(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e;
	struct kv_set *s = set_for_write(db, &v[1], &e, o);
	long long added = 0;
	int i, r;

	if (!s)
		return;
	for (i = 2; i < argc; i++) {
		r = set_add(s, v[i].p, v[i].len);
		if (r < 0)
			break; /* what was added stays, as a partial write */
		added += r;
	}
	drop_if_empty(db, e);
	if (i < argc)
		nomem(o);
	else
		out_int(o, added);
}

static void c_srem(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	long long n = 0;
	int i;

	if (wrong(e, KV_SET, o))
		return;
	if (!e) {
		out_int(o, 0);
		return;
	}
	for (i = 2; i < argc; i++)
		n += set_remove(db_set(e), v[i].p, v[i].len);
	drop_if_empty(db, e);
	out_int(o, n);
}

/* The destination is made and given the member before the source loses
 * it, so that no memory leaves the member in neither. */
static void c_smove(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct kv_entry *src = lookup(db, &v[1]), *dst = lookup(db, &v[2]);
	const struct resp_arg *m = &v[3];

	(void)argc;
	if (!src) {
		out_int(o, 0);
		return;
	}
	if (wrong(src, KV_SET, o) || wrong(dst, KV_SET, o))
		return;
	if (src == dst) {
		out_int(o, set_has(db_set(src), m->p, m->len));
		return;
	}
	if (!set_has(db_set(src), m->p, m->len)) {
		out_int(o, 0);
		return;
	}
	if (!dst &&
	    !(dst = db_add(db, v[2].p, v[2].len, hash_of(&v[2]), KV_SET, 0))) {
		nomem(o);
		return;
	}
	if (set_add(db_set(dst), m->p, m->len) < 0) {
		drop_if_empty(db, dst);
		nomem(o);
		return;
	}
	set_remove(db_set(src), m->p, m->len);
	drop_if_empty(db, src);
	out_int(o, 1);
}

static void c_sismember(struct kv_db *db, int argc, const struct resp_arg *v,
			struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_SET, o))
		out_int(o, e && set_has(db_set(e), v[2].p, v[2].len));
}

static void c_smismember(struct kv_db *db, int argc, const struct resp_arg *v,
			 struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	int i;

	if (wrong(e, KV_SET, o))
		return;
	out_array(o, argc - 2);
	for (i = 2; i < argc; i++)
		out_int(o, e && set_has(db_set(e), v[i].p, v[i].len));
}

static void c_scard(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_SET, o))
		out_int(o, e ? (long long)set_card(db_set(e)) : 0);
}

/* ---- SPOP, SRANDMEMBER --------------------------------------------------- */

/* One random member into the reply, and out of the set; logged as the
 * SREM of that member, so that the file does not depend on the pick. */
static void pop_one(struct kv_db *db, struct kv_entry *e, struct out *o)
{
	const char *w[3] = { "SREM", kv_key(e), NULL };
	size_t l[3] = { 4, e->klen, 0 };
	struct kv_member m;

	set_random(db_set(e), &m);
	reply_member(o, &m);
	w[2] = m.p;
	l[2] = m.n;
	db_log_strs(db, 3, w, l);
	set_remove(db_set(e), m.p, m.n); /* m.p may be the member's own */
}

/* The whole set popped: logged as its DEL. */
static void pop_all(struct kv_db *db, struct kv_entry *e)
{
	const char *w[2] = { "DEL", kv_key(e) };
	size_t l[2] = { 3, e->klen };

	db_log_strs(db, 2, w, l);
	db_delete(db, e);
}

/* Picking and removing, one at a time, stays O(1) each as the table
 * shrinks with the set: redis's other strategy (building the set of the
 * ones that stay) is not needed for speed here. */
static void spop_count(struct kv_db *db, const struct resp_arg *v,
		       struct out *o)
{
	struct kv_entry *e;
	long long count;
	size_t size;

	if (!getll(&v[2], &count) || count < 0) {
		out_error(o, ERR_POSITIVE);
		return;
	}
	e = lookup(db, &v[1]);
	if (wrong(e, KV_SET, o))
		return;
	if (!e || count == 0) {
		out_set(o, 0);
		return;
	}
	size = set_card(db_set(e));
	if ((unsigned long long)count >= size) {
		reply_all(o, db_set(e), true);
		pop_all(db, e);
		return;
	}
	out_set(o, count);
	while (count--)
		pop_one(db, e, o);
}

static void c_spop(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e;

	if (argc == 3) {
		spop_count(db, v, o);
		return;
	}
	if (argc > 3) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	e = lookup(db, &v[1]);
	if (wrong(e, KV_SET, o))
		return;
	if (!e) {
		out_null(o);
		return;
	}
	pop_one(db, e, o);
	drop_if_empty(db, e);
}

/* count picks, any member any number of times. */
static void srand_repeat(struct out *o, const struct kv_set *s,
			 unsigned long long count)
{
	size_t base = o->len; /* the buffer may hold earlier replies */
	struct kv_member m;

	out_array(o, (long long)count);
	while (count-- && !o->failed) {
		set_random(s, &m);
		reply_member(o, &m);
		if (o->len - base > REPLY_MAX)
			o->failed = true; /* as if out of memory */
	}
}

/* A copy of s: NULL on no memory. */
static struct kv_set *set_copy(const struct kv_set *s)
{
	struct kv_set *c = set_new();
	struct kv_set_iter it;
	struct kv_member m;

	set_iter_init(&it, s);
	while (c && set_next(&it, &m)) {
		if (set_add(c, m.p, m.n) < 0) {
			set_free(c);
			c = NULL;
		}
	}
	return c;
}

/*
 * count distinct members of a set of more: near its size, a copy less
 * random members; far below it, random members gathered until there are
 * count (redis's cases 3 and 4, and its threshold: 3 times).
 */
static struct kv_set *srand_distinct(const struct kv_set *s, size_t count)
{
	struct kv_set *r;
	struct kv_member m;

	if (count * 3 > set_card(s)) {
		r = set_copy(s);
		while (r && set_card(r) > count) {
			set_random(r, &m);
			set_remove(r, m.p, m.n);
		}
		return r;
	}
	r = set_new();
	while (r && set_card(r) < count) {
		set_random(s, &m);
		if (set_add(r, m.p, m.n) < 0) {
			set_free(r);
			r = NULL;
		}
	}
	return r;
}

static void srand_count(struct kv_db *db, const struct resp_arg *v,
			struct out *o)
{
	struct kv_entry *e;
	struct kv_set *r;
	long long l;
	unsigned long long count;

	if (!getll(&v[2], &l)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	if (l == LLONG_MIN) {
		out_error(o, ERR_SRAND_RANGE);
		return;
	}
	count = l < 0 ? (unsigned long long)-l : (unsigned long long)l;
	e = lookup(db, &v[1]);
	if (wrong(e, KV_SET, o))
		return;
	if (!e || count == 0) {
		out_array(o, 0);
		return;
	}
	if (l < 0 || count == 1) {
		srand_repeat(o, db_set(e), count);
	} else if (count >= set_card(db_set(e))) {
		reply_all(o, db_set(e), false);
	} else {
		r = srand_distinct(db_set(e), (size_t)count);
		if (!r) {
			nomem(o);
			return;
		}
		reply_all(o, r, false);
		set_free(r);
	}
}

static void c_srandmember(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	struct kv_entry *e;
	struct kv_member m;

	if (argc == 3) {
		srand_count(db, v, o);
		return;
	}
	if (argc > 3) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	e = lookup(db, &v[1]);
	if (wrong(e, KV_SET, o))
		return;
	if (!e) {
		out_null(o);
		return;
	}
	set_random(db_set(e), &m);
	reply_member(o, &m);
}

/* ---- the algebra: SINTER, SUNION, SDIFF and their kin -------------------- */

struct slot {
	const struct kv_set *s; /* NULL: a missing key, an empty set */
	int key;		/* its place among the keys */
};

struct sets {
	struct slot *s;
	int n;
	bool missing;
};

/* The sets of keys[0..n): false (and the reply) on a wrong type or no
 * memory. Every key is looked at, as redis does, so that a wrong type
 * after a missing key is still an error. */
static bool load_sets(struct kv_db *db, const struct resp_arg *keys, int n,
		      struct sets *ss, struct out *o)
{
	struct kv_entry *e;
	int j;

	ss->n = n;
	ss->missing = false;
	ss->s = calloc((size_t)n, sizeof(*ss->s));
	if (!ss->s) {
		nomem(o);
		return false;
	}
	for (j = 0; j < n; j++) {
		e = lookup(db, &keys[j]);
		if (wrong(e, KV_SET, o)) {
			free(ss->s);
			return false;
		}
		ss->s[j].s = e ? db_set(e) : NULL;
		ss->s[j].key = j;
		ss->missing |= !e;
	}
	return true;
}

/* dst (a key) given the set r, or removed if r is empty; r is consumed.
 * The reply: r's size. */
static void store(struct kv_db *db, const struct resp_arg *dst,
		  struct kv_set *r, struct out *o)
{
	struct kv_entry *e = lookup(db, dst);
	size_t n = r ? set_card(r) : 0; /* NULL: an empty set not made */

	if (e)
		db_delete(db, e); /* whatever its type, as redis's setKey */
	e = n ? db_add(db, dst->p, dst->len, hash_of(dst), KV_SET, 0) : NULL;
	if (e)
		set_swap(db_set(e), r);
	set_free(r);
	if (n && !e)
		nomem(o);
	else
		out_int(o, (long long)n);
}

/* By size, then by key: a stable sort, as redis's (glibc's) is. */
static int by_card(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	size_t cx = set_card(x->s), cy = set_card(y->s);

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* True if m is in every set after the first. */
static bool in_rest(const struct sets *ss, const struct kv_member *m)
{
	int j;

	for (j = 1; j < ss->n; j++)
		if (ss->s[j].s != ss->s[0].s &&
		    !set_has(ss->s[j].s, m->p, m->n))
			return false;
	return true;
}

/* Walks the intersection (the smallest set first): each member to r if
 * r, to the reply if reply; the count, stopping at limit (0: none). */
static size_t inter_walk(const struct sets *ss, struct kv_set *r, bool reply,
			 size_t limit, struct out *o, bool *failed)
{
	struct kv_set_iter it;
	struct kv_member m;
	size_t n = 0;

	set_iter_init(&it, ss->s[0].s);
	while (set_next(&it, &m) && !(limit && n >= limit)) {
		if (!in_rest(ss, &m))
			continue;
		n++;
		if (reply)
			reply_member(o, &m);
		if (r && set_add(r, m.p, m.n) < 0) {
			*failed = true;
			break;
		}
	}
	return n;
}

enum inter_mode { INTER_REPLY, INTER_CARD, INTER_STORE };

static void inter(struct kv_db *db, const struct resp_arg *keys, int n,
		  enum inter_mode mode, size_t limit,
		  const struct resp_arg *dst, struct out *o)
{
	struct kv_set *r = NULL;
	struct sets ss;
	bool failed = false;

	if (!load_sets(db, keys, n, &ss, o))
		return;
	if (ss.missing) {
		if (mode == INTER_STORE)
			store(db, dst, set_new(), o);
		else if (mode == INTER_CARD)
			out_int(o, 0);
		else
			out_set(o, 0);
		free(ss.s);
		return;
	}
	qsort(ss.s, (size_t)n, sizeof(*ss.s), by_card);
	if (mode == INTER_CARD) {
		out_int(o, (long long)inter_walk(&ss, NULL, false, limit, o,
						 &failed));
	} else if (mode == INTER_REPLY) {
		out_set(o,
			(long long)inter_walk(&ss, NULL, false, 0, o, &failed));
		inter_walk(&ss, NULL, true, 0, o, &failed);
	} else if ((r = set_new())) {
		inter_walk(&ss, r, false, 0, o, &failed);
	}
	if (mode == INTER_STORE && (!r || failed)) {
		set_free(r);
		nomem(o);
	} else if (mode == INTER_STORE) {
		store(db, dst, r, o);
	}
	free(ss.s);
}

static void c_smembers(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	(void)argc;
	inter(db, &v[1], 1, INTER_REPLY, 0, NULL, o);
}

static void c_sinter(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	inter(db, &v[1], argc - 1, INTER_REPLY, 0, NULL, o);
}

static void c_sinterstore(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	inter(db, &v[2], argc - 2, INTER_STORE, 0, &v[1], o);
}

static void c_sintercard(struct kv_db *db, int argc, const struct resp_arg *v,
			 struct out *o)
{
	long long numkeys, limit = 0;
	int j;

	if (!getll(&v[1], &numkeys) || numkeys < 1) {
		out_error(o, "ERR numkeys should be greater than 0");
		return;
	}
	if (numkeys > argc - 2) {
		out_error(o, "ERR Number of keys can't be greater than number "
			     "of args");
		return;
	}
	for (j = 2 + (int)numkeys; j < argc; j++) {
		if (!is(&v[j], "limit") || j == argc - 1) {
			out_error(o, KV_ERR_SYNTAX);
			return;
		}
		if (!getll(&v[++j], &limit) || limit < 0) {
			out_error(o, "ERR LIMIT can't be negative");
			return;
		}
	}
	inter(db, &v[2], (int)numkeys, INTER_CARD, (size_t)limit, NULL, o);
}

/* Adds every member of s to r: false on no memory. */
static bool add_all(struct kv_set *r, const struct kv_set *s)
{
	struct kv_set_iter it;
	struct kv_member m;

	set_iter_init(&it, s);
	while (set_next(&it, &m))
		if (set_add(r, m.p, m.n) < 0)
			return false;
	return true;
}

/* The first set's members that no other set has. A key given twice
 * as the first and another leaves nothing, as in redis. */
static bool diff_into(struct kv_set *r, const struct sets *ss)
{
	struct kv_set_iter it;
	struct kv_member m;
	int j;

	if (!ss->s[0].s)
		return true;
	for (j = 1; j < ss->n; j++)
		if (ss->s[j].s == ss->s[0].s)
			return true;
	set_iter_init(&it, ss->s[0].s);
	while (set_next(&it, &m)) {
		for (j = 1; j < ss->n; j++)
			if (ss->s[j].s && set_has(ss->s[j].s, m.p, m.n))
				break;
		if (j == ss->n && set_add(r, m.p, m.n) < 0)
			return false;
	}
	return true;
}

static void union_diff(struct kv_db *db, const struct resp_arg *keys, int n,
		       bool diff, const struct resp_arg *dst, struct out *o)
{
	struct kv_set *r;
	struct sets ss;
	bool ok = true;
	int j;

	if (!load_sets(db, keys, n, &ss, o))
		return;
	r = set_new();
	if (r && diff)
		ok = diff_into(r, &ss);
	for (j = 0; r && !diff && ok && j < n; j++)
		ok = !ss.s[j].s || add_all(r, ss.s[j].s);
	free(ss.s);
	if (!r || !ok) {
		set_free(r);
		nomem(o);
	} else if (dst) {
		store(db, dst, r, o);
	} else {
		reply_all(o, r, true);
		set_free(r);
	}
}

static void c_sunion(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	union_diff(db, &v[1], argc - 1, false, NULL, o);
}

static void c_sunionstore(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	union_diff(db, &v[2], argc - 2, false, &v[1], o);
}

static void c_sdiff(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	union_diff(db, &v[1], argc - 1, true, NULL, o);
}

static void c_sdiffstore(struct kv_db *db, int argc, const struct resp_arg *v,
			 struct out *o)
{
	union_diff(db, &v[2], argc - 2, true, &v[1], o);
}

const struct kv_cmd kv_cmds_set[] = {
	KV_CMD("sadd", -3, 1, 0, KV_WRITE, 0, c_sadd),
	KV_CMD("scard", 2, 1, 0, 0, 0, c_scard),
	KV_CMD("sdiff", -2, 1, 1, KV_MULTI, KV_MERGE_SDIFF, c_sdiff),
	KV_CMD("sdiffstore", -3, 1, 1, KV_WRITE | KV_CROSS, 0, c_sdiffstore),
	KV_CMD("sinter", -2, 1, 1, KV_MULTI, KV_MERGE_SINTER, c_sinter),
	KV_CMD("sintercard", -3, 2, 1, KV_CROSS | KV_NUMKEYS, 0, c_sintercard),
	KV_CMD("sinterstore", -3, 1, 1, KV_WRITE | KV_CROSS, 0, c_sinterstore),
	KV_CMD("sismember", 3, 1, 0, 0, 0, c_sismember),
	KV_CMD("smembers", 2, 1, 0, 0, 0, c_smembers),
	KV_CMD("smismember", -3, 1, 0, 0, 0, c_smismember),
	KV_CMD_KEYS("smove", 4, 1, 2, 1, KV_WRITE | KV_CROSS, c_smove),
	KV_CMD("spop", -2, 1, 0, KV_WRITE, 0, c_spop),
	KV_CMD("srandmember", -2, 1, 0, 0, 0, c_srandmember),
	KV_CMD("srem", -3, 1, 0, KV_WRITE, 0, c_srem),
	KV_CMD("sunion", -2, 1, 1, KV_MULTI, KV_MERGE_SUNION, c_sunion),
	KV_CMD("sunionstore", -3, 1, 1, KV_WRITE | KV_CROSS, 0, c_sunionstore),
	{ .name = NULL },
};
