/* SPDX-License-Identifier: MIT */
/*
 * c_string.c - the kv example's string commands (cmd.h), with
 * redis-server 7.0's replies: the same checks in the same order, so that the
 * same bad command gets the same error. Redis 7.0's t_string.c is the
 * reference.
 */
#include "cmd_impl.h"

#include <limits.h>

#define ERR_EXPIRE_SET "ERR invalid expire time in 'set' command"

/* A string key set to v, its expiry cleared unless keep_ttl. */
static struct kv_entry *set_string(struct kv_db *db, const struct resp_arg *k,
				   const struct resp_arg *v, bool keep_ttl)
{
	uint32_t h = hash_of(k);
	struct kv_entry *e = db_find(db, k->p, k->len, h);
	int64_t ttl = 0;

	if (e && e->type != KV_STRING) {
		ttl = e->expire_ms;
		db_delete(db, e);
		e = NULL;
	}
	if (!e) {
		e = db_add(db, k->p, k->len, h, KV_STRING, v->len);
		if (!e)
			return NULL;
		if (keep_ttl && ttl)
			db_set_expire(db, e, ttl);
	} else if (!keep_ttl) {
		db_set_expire(db, e, 0);
	}
	return db_set_value(db, e, v->p, v->len);
}

static void c_get(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!e)
		out_null(o);
	else if (!wrong(e, KV_STRING, o))
		out_bulk(o, kv_val(e), e->vlen);
}

enum {
	SET_NX = 1 << 0,
	SET_XX = 1 << 1,
	SET_GET = 1 << 2,
	SET_KEEPTTL = 1 << 3,
	SET_EX = 1 << 4,
	SET_PX = 1 << 5,
	SET_EXAT = 1 << 6,
	SET_PXAT = 1 << 7,
};
#define SET_ANY_TTL (SET_EX | SET_PX | SET_EXAT | SET_PXAT)

/* redis's parseExtendedStringArgumentsOrReply, SET's half. */
static bool set_options(int argc, const struct resp_arg *v, unsigned *flags,
			const struct resp_arg **expire, struct out *o)
{
	static const struct {
		const char *word;
		unsigned flag, excludes;
	} opts[] = {
		{ "nx", SET_NX, SET_XX },
		{ "xx", SET_XX, SET_NX },
		{ "get", SET_GET, 0 },
		{ "keepttl", SET_KEEPTTL, SET_ANY_TTL },
		{ "ex", SET_EX, SET_KEEPTTL | SET_EXAT | SET_PX | SET_PXAT },
		{ "px", SET_PX, SET_KEEPTTL | SET_EX | SET_EXAT | SET_PXAT },
		{ "exat", SET_EXAT, SET_KEEPTTL | SET_EX | SET_PX | SET_PXAT },
		{ "pxat", SET_PXAT, SET_KEEPTTL | SET_EX | SET_EXAT | SET_PX },
	};
	size_t i;
	int j;

	for (j = 3; j < argc; j++) {
		for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
			if (!is(&v[j], opts[i].word) ||
			    (*flags & opts[i].excludes))
				continue;
			if (opts[i].flag & SET_ANY_TTL) {
				if (j == argc - 1)
					continue; /* no value after it */
				*expire = &v[++j];
			}
			*flags |= opts[i].flag;
			break;
		}
		if (i == sizeof(opts) / sizeof(opts[0])) {
			out_error(o, KV_ERR_SYNTAX);
			return false;
		}
	}
	return true;
}

/* The absolute expiry in ms of SET's option, or false and a reply. */
static bool set_expiry(unsigned flags, const struct resp_arg *expire,
		       long long *at, struct out *o)
{
	bool seconds = flags & (SET_EX | SET_EXAT);

	if (!getll(expire, at)) {
		out_error(o, KV_ERR_NOTINT);
		return false;
	}
	if (*at <= 0 || (seconds && *at > LLONG_MAX / 1000)) {
		out_error(o, ERR_EXPIRE_SET);
		return false;
	}
	if (seconds)
		*at *= 1000;
	if (flags & (SET_EX | SET_PX)) {
		long long now = kv_now_ms();

		if (*at > LLONG_MAX - now) {
			out_error(o, ERR_EXPIRE_SET);
			return false;
		}
		*at += now;
	}
	return true;
}

static void c_set(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	const struct resp_arg *expire = NULL;
	unsigned flags = 0;
	long long at = 0;
	struct kv_entry *e;

	if (!set_options(argc, v, &flags, &expire, o))
		return;
	if (expire && !set_expiry(flags, expire, &at, o))
		return;
	e = lookup(db, &v[1]);
	if (flags & SET_GET) {
		if (wrong(e, KV_STRING, o))
			return;
		if (e)
			out_bulk(o, kv_val(e), e->vlen);
		else
			out_null(o);
	}
	if (((flags & SET_NX) && e) || ((flags & SET_XX) && !e)) {
		if (!(flags & SET_GET))
			out_null(o);
		return;
	}
	e = set_string(db, &v[1], &v[2], flags & SET_KEEPTTL);
	if (!e) {
		if (!(flags & SET_GET))
			nomem(o);
		return;
	}
	if (expire)
		db_set_expire(db, e, at);
	if (!(flags & SET_GET))
		out_status(o, KV_OK);
}

static void c_mget(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	int i;

	out_array(o, argc - 1);
	for (i = 1; i < argc; i++) {
		struct kv_entry *e = lookup(db, &v[i]);

		if (e && e->type == KV_STRING)
			out_bulk(o, kv_val(e), e->vlen);
		else
			out_null(o);
	}
}

static void c_mset(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	int i;

	if (argc % 2 == 0) {
		arity_error(o, "mset");
		return;
	}
	for (i = 1; i < argc; i += 2) {
		if (!set_string(db, &v[i], &v[i + 1], false)) {
			nomem(o);
			return;
		}
	}
	out_status(o, KV_OK);
}

static void c_append(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (wrong(e, KV_STRING, o))
		return;
	if (!e) {
		e = set_string(db, &v[1], &v[2], false);
	} else {
		unsigned long long total =
			(unsigned long long)e->vlen + v[2].len;

		if (total > (unsigned long long)kv_settings.proto_max_bulk_len ||
		    total > UINT32_MAX) {
			out_error(o, "ERR string exceeds maximum allowed size "
				     "(proto-max-bulk-len)");
			return;
		}
		e = db_append(db, e, v[2].p, v[2].len);
	}
	if (!e)
		nomem(o);
	else
		out_int(o, e->vlen);
}

static void c_strlen(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_STRING, o))
		out_int(o, e ? e->vlen : 0);
}

static void incr_by(struct kv_db *db, const struct resp_arg *k, long long incr,
		    struct out *o)
{
	struct kv_entry *e = lookup(db, k);
	long long val = 0;
	char buf[24];
	struct resp_arg nv;

	if (wrong(e, KV_STRING, o))
		return;
	if (e && !resp_string2ll(kv_val(e), e->vlen, &val)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	if ((incr < 0 && val < 0 && incr < LLONG_MIN - val) ||
	    (incr > 0 && val > 0 && incr > LLONG_MAX - val)) {
		out_error(o, KV_ERR_OVERFLOW);
		return;
	}
	val += incr;
	nv.p = buf;
	nv.len = out_lltoa(buf, val);
	if (!set_string(db, k, &nv, true)) /* INCR keeps the TTL */
		nomem(o);
	else
		out_int(o, val);
}

static void c_incr(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)argc;
	incr_by(db, &v[1], 1, o);
}

static void c_decr(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)argc;
	incr_by(db, &v[1], -1, o);
}

static void c_incrby(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long n;

	(void)argc;
	if (!getll(&v[2], &n))
		out_error(o, KV_ERR_NOTINT);
	else
		incr_by(db, &v[1], n, o);
}

static void c_decrby(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long n;

	(void)argc;
	if (!getll(&v[2], &n))
		out_error(o, KV_ERR_NOTINT);
	else if (n == LLONG_MIN)
		out_error(o, "ERR decrement would overflow");
	else
		incr_by(db, &v[1], -n, o);
}

const struct kv_cmd kv_cmds_string[] = {
	KV_CMD("append", 3, 1, 0, KV_WRITE, 0, c_append),
	KV_CMD("decr", 2, 1, 0, KV_WRITE, 0, c_decr),
	KV_CMD("decrby", 3, 1, 0, KV_WRITE, 0, c_decrby),
	KV_CMD("get", 2, 1, 0, 0, 0, c_get),
	KV_CMD("incr", 2, 1, 0, KV_WRITE, 0, c_incr),
	KV_CMD("incrby", 3, 1, 0, KV_WRITE, 0, c_incrby),
	KV_CMD("mget", -2, 1, 1, KV_MULTI, KV_MERGE_ARRAY, c_mget),
	KV_CMD("mset", -3, 1, 2, KV_MULTI | KV_WRITE, KV_MERGE_OK, c_mset),
	KV_CMD("set", -3, 1, 0, KV_WRITE, 0, c_set),
	KV_CMD("strlen", 2, 1, 0, 0, 0, c_strlen),
	{ .name = NULL },
};
