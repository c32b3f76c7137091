/* SPDX-License-Identifier: MIT */
/*
 * cmd.c - the kv example's commands (cmd.h), with redis-server 7.0's
 * replies: the same checks in the same order, so that the same bad
 * command gets the same error. t_string.c, t_list.c, t_hash.c, expire.c
 * and db.c of redis 7.0 are the reference.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* FNM_CASEFOLD */
#endif
#include "cmd.h"

#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct kv_settings kv_settings = {
	.proto_max_bulk_len = RESP_MAX_BULK_DEFAULT,
	.maxclients = 10000,
	.shards = 1,
};

#define ERR_EXPIRE_SET "ERR invalid expire time in 'set' command"
#define ERR_POSITIVE "ERR value is out of range, must be positive"

/* ---- helpers ----------------------------------------------------------- */

static bool is(const struct resp_arg *a, const char *word)
{
	size_t n = strlen(word);

	return a->len == n && !strncasecmp(a->p, word, n);
}

static bool getll(const struct resp_arg *a, long long *v)
{
	return resp_string2ll(a->p, a->len, v);
}

static uint32_t hash_of(const struct resp_arg *k)
{
	return (uint32_t)kv_hash(k->p, k->len);
}

static struct kv_entry *lookup(struct kv_db *db, const struct resp_arg *k)
{
	return db_find(db, k->p, k->len, hash_of(k));
}

static void nomem(struct out *o)
{
	out_error(o, "OOM command not allowed when used memory > 'maxmemory'.");
}

/* NULL and a reply if e is not of type t (a missing key passes). */
static bool wrong(const struct kv_entry *e, enum kv_type t, struct out *o)
{
	if (e && e->type != t) {
		out_error(o, KV_ERR_WRONGTYPE);
		return true;
	}
	return false;
}

static void arity_error(struct out *o, const char *name)
{
	out_errorf(o, "ERR wrong number of arguments for '%s' command", name);
}

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

/* ---- connection commands ------------------------------------------------ */

static void c_ping(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)db;
	if (argc > 2)
		arity_error(o, "ping");
	else if (argc == 2)
		out_bulk(o, v[1].p, v[1].len);
	else
		out_status(o, "PONG");
}

static void c_echo(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)db;
	(void)argc;
	out_bulk(o, v[1].p, v[1].len);
}

static void c_quit(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)db;
	(void)argc;
	(void)v;
	out_status(o, KV_OK);
}

static void c_select(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long id;

	(void)db;
	(void)argc;
	if (!getll(&v[1], &id) || id < INT_MIN || id > INT_MAX)
		out_error(o, KV_ERR_NOTINT);
	else if (id != 0)
		out_error(o, "ERR DB index is out of range"); /* one database */
	else
		out_status(o, KV_OK);
}

static void unknown_sub(struct out *o, const struct resp_arg *sub,
			const char *cmd)
{
	out_errorf(o, "ERR unknown subcommand '%.*s'. Try %s HELP.",
		   (int)(sub->len > 128 ? 128 : sub->len), sub->p, cmd);
}

static void c_command(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	const struct kv_cmd *t;
	size_t n, i;

	(void)db;
	t = kv_cmd_table(&n);
	if (argc >= 2 && is(&v[1], "count")) {
		if (argc != 2)
			arity_error(o, "command|count");
		else
			out_int(o, (long long)n);
		return;
	}
	if (argc >= 2 && is(&v[1], "docs")) {
		out_array(o, 0); /* no documents: clients fall back */
		return;
	}
	if (argc >= 2) {
		unknown_sub(o, &v[1], "COMMAND");
		return;
	}
	/* minimal: name, arity, flags, first key, last key, step */
	out_array(o, (long long)n);
	for (i = 0; i < n; i++) {
		bool keys = t[i].first_key > 0;

		out_array(o, 6);
		out_bulk(o, t[i].name, strlen(t[i].name));
		out_int(o, t[i].arity);
		out_array(o, 0);
		out_int(o, t[i].first_key);
		out_int(o, !keys ? 0 : t[i].key_step ? -1 : t[i].first_key);
		out_int(o, keys ? (t[i].key_step ? t[i].key_step : 1) : 0);
	}
}

static void c_config(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	char pat[256], val[32];
	struct {
		const char *name;
		long long v; /* < 0: the string s */
		const char *s;
	} params[] = {
		{ "appendonly", -1, "no" },
		{ "databases", 1, NULL },
		{ "maxclients", kv_settings.maxclients, NULL },
		{ "proto-max-bulk-len", kv_settings.proto_max_bulk_len, NULL },
		{ "save", -1, "" },
	};
	size_t np = sizeof(params) / sizeof(params[0]), i;
	bool seen[sizeof(params) / sizeof(params[0])] = { false };
	const struct resp_arg *asked[sizeof(params) / sizeof(params[0])];
	int order[sizeof(params) / sizeof(params[0])];
	int n = 0, j;

	(void)db;
	if (!is(&v[1], "get")) {
		if (is(&v[1], "set") && argc >= 3)
			out_errorf(o,
				   "ERR Unknown option or number of arguments "
				   "for CONFIG SET - '%.*s'",
				   (int)(v[2].len > 128 ? 128 : v[2].len),
				   v[2].p);
		else
			unknown_sub(o, &v[1], "CONFIG");
		return;
	}
	if (argc < 3) {
		arity_error(o, "config|get");
		return;
	}
	/* each parameter once, in the order asked; a name asked for without
	 * a pattern is answered as it was written (as redis does) */
	for (j = 2; j < argc; j++) {
		snprintf(pat, sizeof(pat), "%.*s",
			 (int)(v[j].len < 255 ? v[j].len : 255), v[j].p);
		for (i = 0; i < np; i++)
			if (!seen[i] &&
			    !fnmatch(pat, params[i].name, FNM_CASEFOLD)) {
				seen[i] = true;
				order[n++] = (int)i;
				asked[i] = strpbrk(pat, "*?[") ? NULL : &v[j];
			}
	}
	out_array(o, 2 * n);
	for (j = 0; j < n; j++) {
		i = (size_t)order[j];
		if (asked[i])
			out_bulk(o, asked[i]->p, asked[i]->len);
		else
			out_bulk(o, params[i].name, strlen(params[i].name));
		if (params[i].v < 0) {
			out_bulk(o, params[i].s, strlen(params[i].s));
		} else {
			snprintf(val, sizeof(val), "%lld", params[i].v);
			out_bulk(o, val, strlen(val));
		}
	}
}

/* ---- every shard ---------------------------------------------------------- */

static void c_dbsize(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	(void)argc;
	(void)v;
	out_int(o, (long long)db_count(db));
}

static void c_flushall(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	if (argc > 2 ||
	    (argc == 2 && !is(&v[1], "sync") && !is(&v[1], "async"))) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	db_flush(db);
	out_status(o, KV_OK);
}

/* ---- keys ------------------------------------------------------------------ */

static void c_del(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	long long n = 0;
	int i;

	for (i = 1; i < argc; i++) {
		struct kv_entry *e = lookup(db, &v[i]);

		if (e) {
			db_delete(db, e);
			n++;
		}
	}
	out_int(o, n);
}

static void c_exists(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long n = 0;
	int i;

	for (i = 1; i < argc; i++)
		n += lookup(db, &v[i]) != NULL;
	out_int(o, n);
}

/* EXPIRE and PEXPIRE; unit 1000 or 1 ms. */
static void expire_generic(struct kv_db *db, int argc, const struct resp_arg *v,
			   struct out *o, long long unit)
{
	bool nx = false, xx = false, gt = false, lt = false;
	long long when, now = kv_now_ms(), cur;
	struct kv_entry *e;
	int j;

	for (j = 3; j < argc; j++) {
		if (is(&v[j], "nx"))
			nx = true;
		else if (is(&v[j], "xx"))
			xx = true;
		else if (is(&v[j], "gt"))
			gt = true;
		else if (is(&v[j], "lt"))
			lt = true;
		else {
			out_errorf(o, "ERR Unsupported option %.*s",
				   (int)(v[j].len > 128 ? 128 : v[j].len),
				   v[j].p);
			return;
		}
	}
	if (nx && (xx || gt || lt)) {
		out_error(o, "ERR NX and XX, GT or LT options at the same "
			     "time are not compatible");
		return;
	}
	if (gt && lt) {
		out_error(o, "ERR GT and LT options at the same time are not "
			     "compatible");
		return;
	}
	if (!getll(&v[2], &when)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	if (unit == 1000 &&
	    (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000)) {
		out_errorf(o, "ERR invalid expire time in '%s' command",
			   unit == 1000 ? "expire" : "pexpire");
		return;
	}
	when *= unit;
	if (when > LLONG_MAX - now) {
		out_errorf(o, "ERR invalid expire time in '%s' command",
			   unit == 1000 ? "expire" : "pexpire");
		return;
	}
	when += now;
	e = lookup(db, &v[1]);
	if (!e) {
		out_int(o, 0);
		return;
	}
	cur = e->expire_ms ? e->expire_ms : -1;
	if ((nx && cur != -1) || (xx && cur == -1) ||
	    (gt && (when <= cur || cur == -1)) ||
	    (lt && cur != -1 && when >= cur)) {
		out_int(o, 0);
		return;
	}
	if (when <= now)
		db_delete(db, e); /* already past: deleted, as redis does */
	else
		db_set_expire(db, e, when);
	out_int(o, 1);
}

static void c_expire(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	expire_generic(db, argc, v, o, 1000);
}

static void c_pexpire(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	expire_generic(db, argc, v, o, 1);
}

static void ttl_generic(struct kv_db *db, const struct resp_arg *v,
			struct out *o, bool ms)
{
	struct kv_entry *e = lookup(db, &v[1]);
	long long ttl;

	if (!e) {
		out_int(o, -2);
		return;
	}
	if (!e->expire_ms) {
		out_int(o, -1);
		return;
	}
	ttl = e->expire_ms - kv_now_ms();
	if (ttl < 0)
		ttl = 0;
	out_int(o, ms ? ttl : (ttl + 500) / 1000);
}

static void c_ttl(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	(void)argc;
	ttl_generic(db, v, o, false);
}

static void c_pttl(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)argc;
	ttl_generic(db, v, o, true);
}

static void c_persist(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!e || !e->expire_ms) {
		out_int(o, 0);
		return;
	}
	db_set_expire(db, e, 0);
	out_int(o, 1);
}

/* ---- strings ---------------------------------------------------------------- */

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

/* ---- lists -------------------------------------------------------------------- */

static void push(struct kv_db *db, int argc, const struct resp_arg *v,
		 struct out *o, bool left)
{
	uint32_t h = hash_of(&v[1]);
	struct kv_entry *e = db_find(db, v[1].p, v[1].len, h);
	struct kv_list *l;
	int i;

	if (wrong(e, KV_LIST, o))
		return;
	if (!e && !(e = db_add(db, v[1].p, v[1].len, h, KV_LIST, 0))) {
		nomem(o);
		return;
	}
	l = db_list(e);
	for (i = 2; i < argc; i++) {
		struct kv_str *s = kv_str_new(v[i].p, v[i].len);

		if (!s || !list_push(l, left, s)) {
			free(s);
			break; /* what was pushed stays, as a partial write */
		}
	}
	if (!l->n)
		db_delete(db, e);
	if (i < argc)
		nomem(o);
	else
		out_int(o, (long long)l->n);
}

static void c_lpush(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	push(db, argc, v, o, true);
}

static void c_rpush(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	push(db, argc, v, o, false);
}

static void pop(struct kv_db *db, int argc, const struct resp_arg *v,
		struct out *o, bool left, const char *name)
{
	struct kv_entry *e;
	struct kv_list *l;
	long long count = 0, n, i;

	if (argc > 3) {
		arity_error(o, name);
		return;
	}
	if (argc == 3 && (!getll(&v[2], &count) || count < 0)) {
		out_error(o, ERR_POSITIVE);
		return;
	}
	e = lookup(db, &v[1]);
	if (!e) {
		if (argc == 3)
			out_null_array(o);
		else
			out_null(o);
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	l = db_list(e);
	if (argc == 3) {
		n = count < (long long)l->n ? count : (long long)l->n;
		out_array(o, n);
		for (i = 0; i < n; i++) {
			struct kv_str *s = list_pop(l, left);

			out_bulk(o, s->p, s->len);
			free(s);
		}
	} else {
		struct kv_str *s = list_pop(l, left);

		out_bulk(o, s->p, s->len);
		free(s);
	}
	if (!l->n)
		db_delete(db, e);
}

static void c_lpop(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	pop(db, argc, v, o, true, "lpop");
}

static void c_rpop(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	pop(db, argc, v, o, false, "rpop");
}

static void c_llen(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_LIST, o))
		out_int(o, e ? (long long)db_list(e)->n : 0);
}

static void c_lrange(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long start, end, len, i;
	struct kv_entry *e;
	struct kv_list *l;

	(void)argc;
	if (!getll(&v[2], &start) || !getll(&v[3], &end)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	e = lookup(db, &v[1]);
	if (!e) {
		out_array(o, 0);
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	l = db_list(e);
	len = (long long)l->n;
	if (start < 0)
		start = len + start;
	if (end < 0)
		end = len + end;
	if (start < 0)
		start = 0;
	if (start > end || start >= len) {
		out_array(o, 0);
		return;
	}
	if (end >= len)
		end = len - 1;
	out_array(o, end - start + 1);
	for (i = start; i <= end; i++) {
		struct kv_str *s = list_at(l, (size_t)i);

		out_bulk(o, s->p, s->len);
	}
}

/* ---- hashes ------------------------------------------------------------------- */

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
		out_array(o, 0);
		return;
	}
	h = db_hash(e);
	out_array(o, 2 * (long long)hash_len(h));
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

/* ---- the table ------------------------------------------------------------------ */

static const struct kv_cmd table[] = {
	{ "append", 3, 1, 0, 0, 0, c_append },
	{ "command", -1, 0, 0, KV_CONN, 0, c_command },
	{ "config", -2, 0, 0, KV_CONN, 0, c_config },
	{ "dbsize", 1, 0, 0, KV_EVERY, KV_MERGE_SUM, c_dbsize },
	{ "decr", 2, 1, 0, 0, 0, c_decr },
	{ "decrby", 3, 1, 0, 0, 0, c_decrby },
	{ "del", -2, 1, 1, KV_MULTI, KV_MERGE_SUM, c_del },
	{ "echo", 2, 0, 0, KV_CONN, 0, c_echo },
	{ "exists", -2, 1, 1, KV_MULTI, KV_MERGE_SUM, c_exists },
	{ "expire", -3, 1, 0, 0, 0, c_expire },
	{ "flushall", -1, 0, 0, KV_EVERY, KV_MERGE_OK, c_flushall },
	{ "get", 2, 1, 0, 0, 0, c_get },
	{ "hdel", -3, 1, 0, 0, 0, c_hdel },
	{ "hget", 3, 1, 0, 0, 0, c_hget },
	{ "hgetall", 2, 1, 0, 0, 0, c_hgetall },
	{ "hincrby", 4, 1, 0, 0, 0, c_hincrby },
	{ "hlen", 2, 1, 0, 0, 0, c_hlen },
	{ "hset", -4, 1, 0, 0, 0, c_hset },
	{ "incr", 2, 1, 0, 0, 0, c_incr },
	{ "incrby", 3, 1, 0, 0, 0, c_incrby },
	{ "llen", 2, 1, 0, 0, 0, c_llen },
	{ "lpop", -2, 1, 0, 0, 0, c_lpop },
	{ "lpush", -3, 1, 0, 0, 0, c_lpush },
	{ "lrange", 4, 1, 0, 0, 0, c_lrange },
	{ "mget", -2, 1, 1, KV_MULTI, KV_MERGE_ARRAY, c_mget },
	{ "mset", -3, 1, 2, KV_MULTI, KV_MERGE_OK, c_mset },
	{ "persist", 2, 1, 0, 0, 0, c_persist },
	{ "pexpire", -3, 1, 0, 0, 0, c_pexpire },
	{ "ping", -1, 0, 0, KV_CONN, 0, c_ping },
	{ "pttl", 2, 1, 0, 0, 0, c_pttl },
	{ "quit", -1, 0, 0, KV_CONN | KV_CLOSE, 0, c_quit },
	{ "rpop", -2, 1, 0, 0, 0, c_rpop },
	{ "rpush", -3, 1, 0, 0, 0, c_rpush },
	{ "select", 2, 0, 0, KV_CONN, 0, c_select },
	{ "set", -3, 1, 0, 0, 0, c_set },
	{ "strlen", 2, 1, 0, 0, 0, c_strlen },
	{ "ttl", 2, 1, 0, 0, 0, c_ttl },
};

const struct kv_cmd *kv_cmd_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

/*
 * The lookup, once per command of every request: a name of at most 8
 * bytes, lowercased, is one 64-bit key (no name in the table is longer),
 * found in an open-addressed table of 64 slots made once, with its
 * length: "get" and "get\0" have one key. No command's name has a NUL.
 */
#define NSLOTS 64

static uint8_t slots[NSLOTS];	  /* table index + 1; 0: empty */
static uint64_t slot_key[NSLOTS]; /* its name's key */
static uint8_t slot_len[NSLOTS];  /* and length */
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static uint64_t name_key(const char *name, size_t n)
{
	uint64_t key = 0;
	size_t k;
	char ch;

	for (k = 0; k < n; k++) {
		ch = name[k];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch + ('a' - 'A'));
		key |= (uint64_t)(unsigned char)ch << (8 * k);
	}
	return key;
}

static unsigned slot_of(uint64_t key, size_t n)
{
	return (unsigned)(((key + n) * 0x9e3779b97f4a7c15ull) >> 58);
}

static void make_slots(void)
{
	size_t i, len, n = sizeof(table) / sizeof(table[0]);
	unsigned s;

	for (i = 0; i < n; i++) {
		len = strlen(table[i].name);
		s = slot_of(name_key(table[i].name, len), len);
		while (slots[s])
			s = (s + 1) % NSLOTS;
		slots[s] = (uint8_t)(i + 1);
		slot_key[s] = name_key(table[i].name, len);
		slot_len[s] = (uint8_t)len;
	}
}

const struct kv_cmd *kv_cmd_find(const char *name, size_t n)
{
	uint64_t key;
	unsigned s;

	if (n == 0 || n > 8)
		return NULL;
	pthread_once(&slots_once, make_slots);
	key = name_key(name, n);
	for (s = slot_of(key, n); slots[s]; s = (s + 1) % NSLOTS)
		if (slot_len[s] == n && slot_key[s] == key)
			return &table[slots[s] - 1];
	return NULL;
}

void kv_reply_unknown(struct out *o, int argc, const struct resp_arg *argv)
{
	char args[512];
	size_t n = 0;
	int i;

	/* redis: up to 128 bytes of arguments, each quoted */
	args[0] = '\0';
	for (i = 1; i < argc && n < 128; i++) {
		int room = 128 - (int)n;
		int w = argv[i].len < (size_t)room ? (int)argv[i].len : room;

		n += (size_t)snprintf(args + n, sizeof(args) - n, "'%.*s' ", w,
				      argv[i].p);
	}
	out_errorf(o,
		   "ERR unknown command '%.*s', with args beginning with: %s",
		   (int)(argv[0].len > 128 ? 128 : argv[0].len), argv[0].p,
		   args);
}

bool kv_cmd_check(const struct kv_cmd *c, int argc, const struct resp_arg *argv,
		  struct out *o)
{
	(void)argv;
	/* MSET's pairs: redis checks them before it splits anything */
	if ((c->arity > 0 && argc != c->arity) ||
	    (c->arity < 0 && argc < -c->arity) ||
	    (c->key_step == 2 && argc % 2 == 0)) {
		arity_error(o, c->name);
		return false;
	}
	return true;
}

void kv_cmd_run(const struct kv_cmd *c, struct kv_db *db, int argc,
		const struct resp_arg *argv, struct out *o)
{
	c->run(db, argc, argv, o);
}
