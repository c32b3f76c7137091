/* SPDX-License-Identifier: MIT */
/*
 * c_keys.c - the kv example's commands on keys of any type (cmd.h), with
 * redis-server 7.0's replies: the same checks in the same order, so that
 * the same bad command gets the same error. Redis 7.0's db.c and
 * expire.c are the reference.
 */
#include "cmd_impl.h"

#include <limits.h>

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

static void c_type(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	out_status(o, e ? db_type_name((enum kv_type)e->type) : "none");
}

const struct kv_cmd kv_cmds_keys[] = {
	KV_CMD("dbsize", 1, 0, 0, KV_EVERY, KV_MERGE_SUM, c_dbsize),
	KV_CMD("del", -2, 1, 1, KV_MULTI | KV_WRITE, KV_MERGE_SUM, c_del),
	KV_CMD("exists", -2, 1, 1, KV_MULTI, KV_MERGE_SUM, c_exists),
	KV_CMD("expire", -3, 1, 0, KV_WRITE, 0, c_expire),
	KV_CMD("flushall", -1, 0, 0, KV_EVERY | KV_WRITE, KV_MERGE_OK,
	       c_flushall),
	KV_CMD("persist", 2, 1, 0, KV_WRITE, 0, c_persist),
	KV_CMD("type", 2, 1, 0, 0, 0, c_type),
	KV_CMD("pexpire", -3, 1, 0, KV_WRITE, 0, c_pexpire),
	KV_CMD("pttl", 2, 1, 0, 0, 0, c_pttl),
	KV_CMD("ttl", 2, 1, 0, 0, 0, c_ttl),
	{ .name = NULL },
};
