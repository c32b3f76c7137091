/* SPDX-License-Identifier: MIT */
/*
 * c_hash.c - the kv example's hash commands (cmd.h), with redis-server
 * 7.0's replies: the same checks in the same order, so that the same bad
 * command gets the same error. Redis 7.0's t_hash.c is the reference.
 */
#include "cmd_impl.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

static struct kv_hash *hash_for_write(struct kv_db *db,
				      const struct resp_arg *k,
				      struct kv_entry **ep, struct out *o)
{
	uint32_t h = hash_of(k);
	struct kv_entry *e = db_find(db, k->p, k->len, h);

	if (wrong(e, KV_HASH, o))
		return NULL;
	if (!e && !(e = db_add(db, k->p, k->len, h, KV_HASH, 0))) {
		nomem(o);
		return NULL;
	}
	*ep = e;
	return db_hash(e);
}

static void c_hset(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e;
	struct kv_hash *h;
	long long created = 0;
	int i, r;

	if (argc % 2 == 1) {
		arity_error(o, "hset");
		return;
	}
	h = hash_for_write(db, &v[1], &e, o);
	if (!h)
		return;
	for (i = 2; i < argc; i += 2) {
		r = hash_set(h, v[i].p, v[i].len, v[i + 1].p, v[i + 1].len);
		if (r < 0)
			break;
		created += r;
	}
	if (!hash_len(h))
		db_delete(db, e);
	if (i < argc)
		nomem(o);
	else
		out_int(o, created);
}

static void c_hget(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	const char *val;
	size_t n;

	(void)argc;
	if (wrong(e, KV_HASH, o))
		return;
	if (e && hash_get(db_hash(e), v[2].p, v[2].len, &val, &n))
		out_bulk(o, val, n);
	else
		out_null(o);
}

static void c_hdel(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	struct kv_hash *h;
	long long n = 0;
	int i;

	if (wrong(e, KV_HASH, o))
		return;
	if (!e) {
		out_int(o, 0);
		return;
	}
	h = db_hash(e);
	for (i = 2; i < argc; i++)
		n += hash_del(h, v[i].p, v[i].len);
	if (!hash_len(h))
		db_delete(db, e);
	out_int(o, n);
}

static void c_hlen(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_HASH, o))
		out_int(o, e ? (long long)hash_len(db_hash(e)) : 0);
}

static void pair(const char *f, size_t fn, const char *v, size_t vn, void *ctx)
{
	out_bulk(ctx, f, fn);
	out_bulk(ctx, v, vn);
}

static void c_hgetall(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	struct kv_hash *h;

	(void)argc;
	if (wrong(e, KV_HASH, o))
		return;
	if (!e) {
		out_map(o, 0);
		return;
	}
	h = db_hash(e);
	out_map(o, (long long)hash_len(h));
	hash_each(h, pair, o);
}

static void c_hincrby(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	long long incr, val = 0;
	struct kv_entry *e;
	struct kv_hash *h;
	const char *cur;
	char buf[24];
	size_t n;
	size_t len;

	(void)argc;
	if (!getll(&v[3], &incr)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	h = hash_for_write(db, &v[1], &e, o);
	if (!h)
		return;
	if (hash_get(h, v[2].p, v[2].len, &cur, &n) &&
	    !resp_string2ll(cur, n, &val)) {
		out_error(o, "ERR hash value is not an integer");
		goto out;
	}
	if ((incr < 0 && val < 0 && incr < LLONG_MIN - val) ||
	    (incr > 0 && val > 0 && incr > LLONG_MAX - val)) {
		out_error(o, KV_ERR_OVERFLOW);
		goto out;
	}
	val += incr;
	len = out_lltoa(buf, val);
	if (hash_set(h, v[2].p, v[2].len, buf, len) < 0)
		nomem(o);
	else
		out_int(o, val);
out:
	if (!hash_len(h))
		db_delete(db, e); /* created for nothing */
}

static void c_hmset(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct out scratch;

	if (argc % 2 == 1) {
		arity_error(o, "hmset");
		return;
	}
	out_init(&scratch); /* HSET's count, not wanted: +OK instead */
	c_hset(db, argc, v, &scratch);
	if (scratch.len && scratch.p[0] == ':')
		out_status(o, KV_OK);
	else
		out_raw(o, scratch.p, scratch.len);
	out_free(&scratch);
}

static void c_hsetnx(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_entry *e;
	struct kv_hash *h;
	const char *cur;
	size_t n;

	(void)argc;
	h = hash_for_write(db, &v[1], &e, o);
	if (!h)
		return;
	if (hash_get(h, v[2].p, v[2].len, &cur, &n))
		out_int(o, 0);
	else if (hash_set(h, v[2].p, v[2].len, v[3].p, v[3].len) < 0)
		nomem(o);
	else
		out_int(o, 1);
	if (!hash_len(h))
		db_delete(db, e); /* created for a failed set */
}

static void c_hmget(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	const char *val;
	size_t n;
	int i;

	if (wrong(e, KV_HASH, o))
		return;
	out_array(o, argc - 2);
	for (i = 2; i < argc; i++) {
		if (e && hash_get(db_hash(e), v[i].p, v[i].len, &val, &n))
			out_bulk(o, val, n);
		else
			out_null(o);
	}
}

static void c_hexists(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	const char *val;
	size_t n;

	(void)argc;
	if (!wrong(e, KV_HASH, o))
		out_int(o,
			e && hash_get(db_hash(e), v[2].p, v[2].len, &val, &n));
}

static void c_hstrlen(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	const char *val;
	size_t n = 0;

	(void)argc;
	if (wrong(e, KV_HASH, o))
		return;
	if (!e || !hash_get(db_hash(e), v[2].p, v[2].len, &val, &n))
		n = 0;
	out_int(o, (long long)n);
}

static void field(const char *f, size_t fn, const char *v, size_t vn, void *ctx)
{
	(void)v;
	(void)vn;
	out_bulk(ctx, f, fn);
}

static void value(const char *f, size_t fn, const char *v, size_t vn, void *ctx)
{
	(void)f;
	(void)fn;
	out_bulk(ctx, v, vn);
}

/* HKEYS, HVALS: one of each pair, in HGETALL's order. */
static void each_one(struct kv_db *db, const struct resp_arg *v,
		     void (*fn)(const char *, size_t, const char *, size_t,
				void *),
		     struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	if (wrong(e, KV_HASH, o))
		return;
	if (!e) {
		out_array(o, 0);
		return;
	}
	out_array(o, (long long)hash_len(db_hash(e)));
	hash_each(db_hash(e), fn, o);
}

static void c_hkeys(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	(void)argc;
	each_one(db, v, field, o);
}

static void c_hvals(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	(void)argc;
	each_one(db, v, value, o);
}

static void c_hincrbyfloat(struct kv_db *db, int argc, const struct resp_arg *v,
			   struct out *o)
{
	long double incr, val = 0;
	struct kv_entry *e;
	struct kv_hash *h;
	const char *cur;
	size_t n, len;
	char *buf;

	(void)argc;
	if (!resp_string2ld(v[3].p, v[3].len, &incr)) {
		out_error(o, "ERR value is not a valid float");
		return;
	}
	if (isnan(incr) || isinf(incr)) {
		out_error(o, "ERR value is NaN or Infinity");
		return;
	}
	h = hash_for_write(db, &v[1], &e, o);
	if (!h)
		return;
	if (hash_get(h, v[2].p, v[2].len, &cur, &n) &&
	    !resp_string2ld(cur, n, &val)) {
		out_error(o, "ERR hash value is not a float");
		return;
	}
	val += incr;
	buf = isnan(val) || isinf(val) ? NULL : malloc(RESP_LDOUBLE_MAX);
	if (!buf) {
		if (isnan(val) || isinf(val))
			out_error(o, "ERR increment would produce NaN or "
				     "Infinity");
		else
			nomem(o);
	} else {
		len = kv_ld2string(buf, RESP_LDOUBLE_MAX, val);
		if (hash_set(h, v[2].p, v[2].len, buf, len) < 0) {
			nomem(o);
		} else {
			const char *w[4] = { "HSET", v[1].p, v[2].p, buf };
			size_t l[4] = { 4, v[1].len, v[2].len, len };

			out_bulk(o, buf, len);
			db_log_strs(db, 4, w, l); /* as redis: the result */
		}
		free(buf);
	}
	if (!hash_len(h))
		db_delete(db, e); /* created for nothing */
}

const struct kv_cmd kv_cmds_hash[] = {
	KV_CMD("hdel", -3, 1, 0, KV_WRITE, 0, c_hdel),
	KV_CMD("hexists", 3, 1, 0, 0, 0, c_hexists),
	KV_CMD("hget", 3, 1, 0, 0, 0, c_hget),
	KV_CMD("hgetall", 2, 1, 0, 0, 0, c_hgetall),
	KV_CMD("hincrby", 4, 1, 0, KV_WRITE, 0, c_hincrby),
	KV_CMD("hincrbyfloat", 4, 1, 0, KV_WRITE, 0, c_hincrbyfloat),
	KV_CMD("hkeys", 2, 1, 0, 0, 0, c_hkeys),
	KV_CMD("hlen", 2, 1, 0, 0, 0, c_hlen),
	KV_CMD("hmget", -3, 1, 0, 0, 0, c_hmget),
	KV_CMD("hmset", -4, 1, 0, KV_WRITE, 0, c_hmset),
	KV_CMD("hset", -4, 1, 0, KV_WRITE, 0, c_hset),
	KV_CMD("hsetnx", 4, 1, 0, KV_WRITE, 0, c_hsetnx),
	KV_CMD("hstrlen", 3, 1, 0, 0, 0, c_hstrlen),
	KV_CMD("hvals", 2, 1, 0, 0, 0, c_hvals),
	{ .name = NULL },
};
