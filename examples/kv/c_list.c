/* SPDX-License-Identifier: MIT */
/*
 * c_list.c - the kv example's list commands (cmd.h), with redis-server
 * 7.0's replies: the same checks in the same order, so that the same bad
 * command gets the same error. Redis 7.0's t_list.c is the reference.
 */
#include "cmd_impl.h"

#include <stdlib.h>

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

const struct kv_cmd kv_cmds_list[] = {
	KV_CMD("llen", 2, 1, 0, 0, 0, c_llen),
	KV_CMD("lpop", -2, 1, 0, KV_WRITE, 0, c_lpop),
	KV_CMD("lpush", -3, 1, 0, KV_WRITE, 0, c_lpush),
	KV_CMD("lrange", 4, 1, 0, 0, 0, c_lrange),
	KV_CMD("rpop", -2, 1, 0, KV_WRITE, 0, c_rpop),
	KV_CMD("rpush", -3, 1, 0, KV_WRITE, 0, c_rpush),
	{ .name = NULL },
};
