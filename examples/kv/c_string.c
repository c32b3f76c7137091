/* SPDX-License-Identifier: MIT */
/*
 * c_string.c - the kv example's string commands (cmd.h), with
 * redis-server 7.0's replies: the same checks in the same order, so that the
 * same bad command gets the same error. Redis 7.0's t_string.c is the
 * reference.
 */
#include "cmd_impl.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

enum {
	SET_NX = 1 << 0,
	SET_XX = 1 << 1,
	SET_GET = 1 << 2,
	SET_KEEPTTL = 1 << 3,
	SET_EX = 1 << 4,
	SET_PX = 1 << 5,
	SET_EXAT = 1 << 6,
	SET_PXAT = 1 << 7,
	SET_PERSIST = 1 << 8,
};
#define SET_ANY_TTL (SET_EX | SET_PX | SET_EXAT | SET_PXAT)
#define SET_NO_TTL (SET_KEEPTTL | SET_PERSIST)

/*
 * redis's parseExtendedStringArgumentsOrReply: SET's options from argv[3]
 * on, or GETEX's from argv[2] (get: PERSIST, no NX, XX, GET or KEEPTTL).
 * A TTL option with nothing after it is a syntax error, as is a repeated
 * one of another kind; the same kind twice takes the last value.
 */
static bool set_options(int argc, const struct resp_arg *v, bool get,
			unsigned *flags, const struct resp_arg **expire,
			struct out *o)
{
	static const struct {
		const char *word;
		unsigned flag, excludes;
		bool set, get;
	} opts[] = {
		{ "nx", SET_NX, SET_XX, true, false },
		{ "xx", SET_XX, SET_NX, true, false },
		{ "get", SET_GET, 0, true, false },
		{ "keepttl", SET_KEEPTTL, SET_ANY_TTL | SET_PERSIST, true,
		  false },
		{ "persist", SET_PERSIST, SET_ANY_TTL | SET_KEEPTTL, false,
		  true },
		{ "ex", SET_EX, SET_NO_TTL | SET_EXAT | SET_PX | SET_PXAT, true,
		  true },
		{ "px", SET_PX, SET_NO_TTL | SET_EX | SET_EXAT | SET_PXAT, true,
		  true },
		{ "exat", SET_EXAT, SET_NO_TTL | SET_EX | SET_PX | SET_PXAT,
		  true, true },
		{ "pxat", SET_PXAT, SET_NO_TTL | SET_EX | SET_EXAT | SET_PX,
		  true, true },
	};
	size_t i, n = sizeof(opts) / sizeof(opts[0]);
	int j;

	for (j = get ? 2 : 3; j < argc; j++) {
		for (i = 0; i < n; i++) {
			if (!(get ? opts[i].get : opts[i].set) ||
			    !is(&v[j], opts[i].word) ||
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
		if (i == n) {
			out_error(o, KV_ERR_SYNTAX);
			return false;
		}
	}
	return true;
}

/* The absolute expiry in ms of a TTL option, or false and a reply that
 * names the command, as redis's addReplyErrorExpireTime. */
static bool set_expiry(unsigned flags, const struct resp_arg *expire,
		       const char *cmd, long long *at, struct out *o)
{
	bool seconds = flags & (SET_EX | SET_EXAT);

	if (!getll(expire, at)) {
		out_error(o, KV_ERR_NOTINT);
		return false;
	}
	if (*at <= 0 || (seconds && *at > LLONG_MAX / 1000))
		goto bad;
	if (seconds)
		*at *= 1000;
	if (flags & (SET_EX | SET_PX)) {
		long long now = kv_now_ms();

		if (*at > LLONG_MAX - now)
			goto bad;
		*at += now;
	}
	return true;
bad:
	out_errorf(o, "ERR invalid expire time in '%s' command", cmd);
	return false;
}

/* The string at e as a bulk reply: GET's, or a wrong type's error. False
 * after the error. */
static bool get_reply(struct kv_entry *e, struct out *o)
{
	if (!e) {
		out_null(o);
		return true;
	}
	if (wrong(e, KV_STRING, o))
		return false;
	out_bulk(o, kv_val(e), e->vlen);
	return true;
}

/* The SET that a SET, SETNX, SETEX, PSETEX or INCRBYFLOAT did, for the
 * append-only file: its TTL as an absolute PXAT, or KEEPTTL. */
static void log_set(struct kv_db *db, const struct resp_arg *v,
		    const long long *at, bool keep)
{
	char ms[24];
	const char *w[5] = { "SET", v[1].p, v[2].p, at ? "PXAT" : "KEEPTTL",
			     ms };
	size_t l[5] = { 3, v[1].len, v[2].len, at ? 4 : 7,
			at ? out_lltoa(ms, *at) : 0 };

	db_log_strs(db, at ? 5 : keep ? 4 : 3, w, l);
}

/*
 * redis's setGenericCommand, for SET, SETNX, SETEX and PSETEX: the expiry
 * checked first, then GET's reply, then NX or XX; ok and abort are the
 * replies when it sets and when NX or XX stop it (NULL: +OK and nil).
 */
static void set_generic(struct kv_db *db, const struct resp_arg *v,
			unsigned flags, const struct resp_arg *expire,
			const char *cmd, void (*ok)(struct out *),
			void (*abort)(struct out *), struct out *o)
{
	long long at = 0;
	struct kv_entry *e;

	db_log(db, 0, NULL); /* logged below, as the SET it did, if it did */
	if (expire && !set_expiry(flags, expire, cmd, &at, o))
		return;
	e = lookup(db, &v[1]);
	if ((flags & SET_GET) && !get_reply(e, o))
		return;
	if (((flags & SET_NX) && e) || ((flags & SET_XX) && !e)) {
		if (!(flags & SET_GET))
			abort ? abort(o) : out_null(o);
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
	log_set(db, v, expire ? &at : NULL, flags & SET_KEEPTTL);
	if (!(flags & SET_GET))
		ok ? ok(o) : out_status(o, KV_OK);
}

static void c_get(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	(void)argc;
	get_reply(lookup(db, &v[1]), o);
}

static void c_set(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	const struct resp_arg *expire = NULL;
	unsigned flags = 0;

	if (set_options(argc, v, false, &flags, &expire, o))
		set_generic(db, v, flags, expire, "set", NULL, NULL, o);
}

static void reply_one(struct out *o)
{
	out_int(o, 1);
}

static void reply_zero(struct out *o)
{
	out_int(o, 0);
}

static void c_setnx(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	(void)argc;
	set_generic(db, v, SET_NX, NULL, "setnx", reply_one, reply_zero, o);
}

/* SETEX and PSETEX: key, TTL, value. */
static void setex(struct kv_db *db, const struct resp_arg *v, unsigned flags,
		  const char *cmd, struct out *o)
{
	struct resp_arg kv[3] = { v[0], v[1], v[3] };

	set_generic(db, kv, flags, &v[2], cmd, NULL, NULL, o);
}

static void c_setex(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	(void)argc;
	setex(db, v, SET_EX, "setex", o);
}

static void c_psetex(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	(void)argc;
	setex(db, v, SET_PX, "psetex", o);
}

static void c_getset(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	(void)argc;
	if (get_reply(lookup(db, &v[1]), o) &&
	    !set_string(db, &v[1], &v[2], false))
		nomem(o);
}

static void c_getdel(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (get_reply(e, o) && e)
		db_delete(db, e);
}

/* "CMD key" or "CMD key ms" for the append-only file. */
static void log_words(struct kv_db *db, const char *cmd,
		      const struct resp_arg *k, const long long *ms)
{
	char buf[24];
	const char *w[3] = { cmd, k->p, buf };
	size_t l[3] = { strlen(cmd), k->len, ms ? out_lltoa(buf, *ms) : 0 };

	db_log_strs(db, ms ? 3 : 2, w, l);
}

static void c_getex(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	const struct resp_arg *expire = NULL;
	unsigned flags = 0;
	struct kv_entry *e;
	long long at = 0;

	if (!set_options(argc, v, true, &flags, &expire, o))
		return;
	db_log(db, 0, NULL); /* logged below as what it did, if anything */
	e = lookup(db, &v[1]);
	if (!e) {
		out_null(o);
		return;
	}
	if (wrong(e, KV_STRING, o) ||
	    (expire && !set_expiry(flags, expire, "getex", &at, o)))
		return;
	out_bulk(o, kv_val(e), e->vlen);
	/* an absolute time already past deletes the key, as redis */
	if ((flags & (SET_EXAT | SET_PXAT)) && at <= kv_now_ms() &&
	    !db->loading) {
		log_words(db, "DEL", &v[1], NULL);
		db_delete(db, e);
	} else if (expire) {
		db_set_expire(db, e, at);
		log_words(db, "PEXPIREAT", &v[1], &at);
	} else if ((flags & SET_PERSIST) && e->expire_ms) {
		db_set_expire(db, e, 0);
		log_words(db, "PERSIST", &v[1], NULL);
	}
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

/* MSETNX: nothing set if any key is there (across shards the connection
 * asks every part with EXISTS first: kv_cross.c). */
static void c_msetnx(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	int i;

	for (i = 1; i < argc; i += 2) {
		if (lookup(db, &v[i])) {
			out_int(o, 0);
			return;
		}
	}
	for (i = 1; i < argc; i += 2) {
		if (!set_string(db, &v[i], &v[i + 1], false)) {
			nomem(o);
			return;
		}
	}
	out_int(o, 1);
}

/* redis's checkStringLength: size + append within proto-max-bulk-len. */
static bool length_ok(unsigned long long size, unsigned long long add,
		      struct out *o)
{
	unsigned long long total = size + add;

	if (total > (unsigned long long)kv_settings.proto_max_bulk_len ||
	    total > UINT32_MAX || total < size) {
		out_error(o, "ERR string exceeds maximum allowed size "
			     "(proto-max-bulk-len)");
		return false;
	}
	return true;
}

static void c_getrange(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	long long start, end, len;
	struct kv_entry *e;

	(void)argc;
	if (!getll(&v[2], &start) || !getll(&v[3], &end)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	e = lookup(db, &v[1]);
	if (!e) {
		out_bulk(o, "", 0);
		return;
	}
	if (wrong(e, KV_STRING, o))
		return;
	len = e->vlen;
	if (start < 0 && end < 0 && start > end) {
		out_bulk(o, "", 0);
		return;
	}
	start = start < 0 ? (start + len < 0 ? 0 : start + len) : start;
	end = end < 0 ? (end + len < 0 ? 0 : end + len) : end;
	if (end >= len)
		end = len - 1;
	if (start > end || len == 0)
		out_bulk(o, "", 0);
	else
		out_bulk(o, kv_val(e) + start, (size_t)(end - start + 1));
}

static void c_setrange(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	struct kv_entry *e;
	long long off;
	size_t n = v[3].len, old;

	(void)argc;
	if (!getll(&v[2], &off)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	if (off < 0) {
		out_error(o, "ERR offset is out of range");
		return;
	}
	e = lookup(db, &v[1]);
	if (wrong(e, KV_STRING, o))
		return;
	old = e ? e->vlen : 0;
	if (n == 0) { /* nothing set, not even a new key */
		out_int(o, (long long)old);
		return;
	}
	if (!length_ok((unsigned long long)off, n, o))
		return;
	if (!e &&
	    !(e = db_add(db, v[1].p, v[1].len, hash_of(&v[1]), KV_STRING, 0))) {
		nomem(o);
		return;
	}
	if ((size_t)off + n > old) { /* grown with zero bytes, as sdsgrowzero */
		e = db_append(db, e, NULL, (size_t)off + n - old);
		if (!e) {
			nomem(o);
			return;
		}
	}
	memcpy(kv_val(e) + off, v[3].p, n);
	out_int(o, e->vlen);
}

/*
 * redis's ld2string in LD_STR_HUMAN mode, for INCRBYFLOAT and
 * HINCRBYFLOAT: "%.17Lf" with the trailing zeros (and a bare point)
 * dropped, "-0" as "0", "inf" spelled out; nothing when it does not fit
 * redis's buffer (as redis, which then stores an empty string).
 */
size_t kv_ld2string(char *buf, size_t room, long double v)
{
	int n;
	char *p;

	if (isinf(v))
		return (size_t)snprintf(buf, room, "%s",
					v > 0 ? "inf" : "-inf");
	n = snprintf(buf, room, "%.17Lf", v);
	if (n < 0 || (size_t)n + 1 > room)
		return 0;
	if (strchr(buf, '.')) {
		p = buf + n - 1;
		while (*p == '0') {
			p--;
			n--;
		}
		if (*p == '.')
			n--;
	}
	if (n == 2 && buf[0] == '-' && buf[1] == '0') {
		buf[0] = '0';
		n = 1;
	}
	buf[n] = '\0';
	return (size_t)n;
}

static void c_incrbyfloat(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	long double val = 0, incr;
	struct resp_arg nv;
	char *buf;

	(void)argc;
	if (wrong(e, KV_STRING, o))
		return;
	if ((e && !resp_string2ld(kv_val(e), e->vlen, &val)) ||
	    !resp_string2ld(v[2].p, v[2].len, &incr)) {
		out_error(o, "ERR value is not a valid float");
		return;
	}
	val += incr;
	if (isnan(val) || isinf(val)) {
		out_error(o, "ERR increment would produce NaN or Infinity");
		return;
	}
	buf = malloc(RESP_LDOUBLE_MAX);
	if (!buf) {
		nomem(o);
		return;
	}
	nv.p = buf;
	nv.len = kv_ld2string(buf, RESP_LDOUBLE_MAX, val);
	if (!set_string(db, &v[1], &nv, true)) { /* the TTL kept, as INCR */
		nomem(o);
	} else {
		out_bulk(o, nv.p, nv.len);
		/* as redis: the result, so no float is redone by a replay */
		log_set(db, (const struct resp_arg[]){ v[0], v[1], nv }, NULL,
			true);
	}
	free(buf);
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
		if (!length_ok(e->vlen, v[2].len, o))
			return;
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
	KV_CMD("getdel", 2, 1, 0, KV_WRITE, 0, c_getdel),
	KV_CMD("getex", -2, 1, 0, KV_WRITE, 0, c_getex),
	KV_CMD("getrange", 4, 1, 0, 0, 0, c_getrange),
	KV_CMD("getset", 3, 1, 0, KV_WRITE, 0, c_getset),
	KV_CMD("incr", 2, 1, 0, KV_WRITE, 0, c_incr),
	KV_CMD("incrby", 3, 1, 0, KV_WRITE, 0, c_incrby),
	KV_CMD("incrbyfloat", 3, 1, 0, KV_WRITE, 0, c_incrbyfloat),
	KV_CMD("mget", -2, 1, 1, KV_MULTI, KV_MERGE_ARRAY, c_mget),
	KV_CMD("mset", -3, 1, 2, KV_MULTI | KV_WRITE, KV_MERGE_OK, c_mset),
	KV_CMD("msetnx", -3, 1, 2, KV_MULTI | KV_WRITE | KV_CROSS, 0, c_msetnx),
	KV_CMD("psetex", 4, 1, 0, KV_WRITE, 0, c_psetex),
	KV_CMD("set", -3, 1, 0, KV_WRITE, 0, c_set),
	KV_CMD("setex", 4, 1, 0, KV_WRITE, 0, c_setex),
	KV_CMD("setnx", 3, 1, 0, KV_WRITE, 0, c_setnx),
	KV_CMD("setrange", 4, 1, 0, KV_WRITE, 0, c_setrange),
	KV_CMD("strlen", 2, 1, 0, 0, 0, c_strlen),
	KV_CMD("substr", 4, 1, 0, 0, 0, c_getrange),
	{ .name = NULL },
};
