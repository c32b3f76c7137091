/* SPDX-License-Identifier: MIT */
/*
 * c_list.c - the kv example's list commands (cmd.h), with redis-server
 * 7.0's replies: the same checks in the same order, so that the same bad
 * command gets the same error. Redis 7.0's t_list.c is the reference.
 */
#include "cmd_impl.h"

#include <limits.h>
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

/* LPUSHX, RPUSHX: only onto a list that is there. */
static void pushx(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o, bool left)
{
	struct kv_entry *e = lookup(db, &v[1]);

	if (!e)
		out_int(o, 0);
	else if (!wrong(e, KV_LIST, o))
		push(db, argc, v, o, left);
}

static void c_lpushx(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	pushx(db, argc, v, o, true);
}

static void c_rpushx(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	pushx(db, argc, v, o, false);
}

/* An index from the head (or from the tail when negative) as a place in
 * a list of n, or -1 when it is outside. */
static long long place(long long index, size_t n)
{
	if (index < 0)
		index += (long long)n;
	return index >= 0 && index < (long long)n ? index : -1;
}

static void c_lindex(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	long long index;
	struct kv_str *s;

	(void)argc;
	if (!e) {
		out_null(o);
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	if (!getll(&v[2], &index)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	index = place(index, db_list(e)->n);
	if (index < 0) {
		out_null(o);
		return;
	}
	s = list_at(db_list(e), (size_t)index);
	out_bulk(o, s->p, s->len);
}

static void c_lset(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	long long index;
	struct kv_str *s;

	(void)argc;
	if (!e) {
		out_error(o, "ERR no such key");
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	if (!getll(&v[2], &index)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	index = place(index, db_list(e)->n);
	if (index < 0) {
		out_error(o, "ERR index out of range");
		return;
	}
	s = kv_str_new(v[3].p, v[3].len);
	if (!s) {
		nomem(o);
		return;
	}
	list_set(db_list(e), (size_t)index, s);
	out_status(o, KV_OK);
}

static void c_ltrim(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	long long start, end, len, left, right;
	struct kv_entry *e;
	struct kv_list *l;

	(void)argc;
	if (!getll(&v[2], &start) || !getll(&v[3], &end)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	e = lookup(db, &v[1]);
	if (!e) {
		out_status(o, KV_OK);
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	l = db_list(e);
	len = (long long)l->n;
	start = start < 0 ? (start + len < 0 ? 0 : start + len) : start;
	if (end < 0)
		end += len;
	if (start > end || start >= len) {
		left = len; /* nothing in range: all of it goes */
		right = 0;
	} else {
		left = start;
		right = len - (end >= len ? len - 1 : end) - 1;
	}
	while (left--)
		free(list_pop(l, true));
	while (right--)
		free(list_pop(l, false));
	if (!l->n)
		db_delete(db, e);
	out_status(o, KV_OK);
}

static void c_linsert(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e;
	struct kv_list *l;
	struct kv_str *s;
	bool after;
	size_t i;

	(void)argc;
	if (!is(&v[2], "after") && !is(&v[2], "before")) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	after = is(&v[2], "after");
	e = lookup(db, &v[1]);
	if (!e) {
		out_int(o, 0);
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	l = db_list(e);
	for (i = 0; i < l->n; i++) {
		s = list_at(l, i);
		if (s->len == v[3].len && !memcmp(s->p, v[3].p, s->len))
			break;
	}
	if (i == l->n) {
		out_int(o, -1);
		return;
	}
	s = kv_str_new(v[4].p, v[4].len);
	if (!s || !list_insert(l, i + after, s)) {
		free(s);
		nomem(o);
		return;
	}
	out_int(o, (long long)l->n);
}

static void c_lrem(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e;
	long long count;
	size_t n;

	(void)argc;
	if (!getll(&v[2], &count)) {
		out_error(o, KV_ERR_NOTINT);
		return;
	}
	e = lookup(db, &v[1]);
	if (!e) {
		out_int(o, 0);
		return;
	}
	if (wrong(e, KV_LIST, o))
		return;
	/* a negative count from the tail; LLONG_MIN's is past any list */
	n = list_remove_equal(db_list(e), v[3].p, v[3].len, count < 0,
			      count == LLONG_MIN ? 0 :
			      count < 0		 ? (size_t)-count :
						   (size_t)count);
	if (!db_list(e)->n)
		db_delete(db, e);
	out_int(o, (long long)n);
}

/* LPOS's options: false and the reply when one is wrong. */
static bool lpos_options(int argc, const struct resp_arg *v, long long *rank,
			 long long *count, long long *maxlen, struct out *o)
{
	int j;

	for (j = 3; j < argc; j++) {
		bool more = j + 1 < argc;

		if (is(&v[j], "rank") && more) {
			if (!getll(&v[++j], rank)) {
				out_error(o, KV_ERR_NOTINT);
				return false;
			}
			if (*rank == 0) {
				out_error(o, "ERR RANK can't be zero: use 1 to "
					     "start from the first match, 2 "
					     "from the second ... or use "
					     "negative to start from the end "
					     "of the list");
				return false;
			}
		} else if (is(&v[j], "count") && more) {
			if (!getll(&v[++j], count) || *count < 0) {
				out_error(o, "ERR COUNT can't be negative");
				return false;
			}
		} else if (is(&v[j], "maxlen") && more) {
			if (!getll(&v[++j], maxlen) || *maxlen < 0) {
				out_error(o, "ERR MAXLEN can't be negative");
				return false;
			}
		} else {
			out_error(o, KV_ERR_SYNTAX);
			return false;
		}
	}
	return true;
}

static void c_lpos(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	long long rank = 1, count = -1, maxlen = 0, matches = 0, found = 0;
	size_t i, k, mark;
	struct kv_entry *e;
	struct kv_list *l;
	bool tail, unbounded;
	struct kv_str *s;

	if (!lpos_options(argc, v, &rank, &count, &maxlen, o))
		return;
	e = lookup(db, &v[1]);
	if (!e || wrong(e, KV_LIST, o)) {
		if (!e)
			count != -1 ? out_array(o, 0) : out_null(o);
		return;
	}
	l = db_list(e);
	tail = rank < 0;
	/* redis negates LLONG_MIN to itself: every match is past it, and the
	 * count, from it, never reached */
	unbounded = rank == LLONG_MIN;
	rank = unbounded ? 1 : tail ? -rank : rank;
	mark = o->len; /* where COUNT's array header goes */
	for (k = 0; k < l->n && (!maxlen || (long long)k < maxlen); k++) {
		i = tail ? l->n - 1 - k : k;
		s = list_at(l, i);
		if (s->len != v[2].len || memcmp(s->p, v[2].p, s->len) ||
		    ++matches < rank)
			continue;
		found++;
		if (count == -1) {
			out_int(o, (long long)i);
			return;
		}
		out_int(o, (long long)i);
		if (count && found >= count && !unbounded)
			break;
	}
	if (count == -1)
		out_null(o);
	else
		out_array_at(o, mark, found);
}

const struct kv_cmd kv_cmds_list[] = {
	KV_CMD("lindex", 3, 1, 0, 0, 0, c_lindex),
	KV_CMD("linsert", 5, 1, 0, KV_WRITE, 0, c_linsert),
	KV_CMD("llen", 2, 1, 0, 0, 0, c_llen),
	KV_CMD("lpop", -2, 1, 0, KV_WRITE, 0, c_lpop),
	KV_CMD("lpos", -3, 1, 0, 0, 0, c_lpos),
	KV_CMD("lpush", -3, 1, 0, KV_WRITE, 0, c_lpush),
	KV_CMD("lpushx", -3, 1, 0, KV_WRITE, 0, c_lpushx),
	KV_CMD("lrange", 4, 1, 0, 0, 0, c_lrange),
	KV_CMD("lrem", 4, 1, 0, KV_WRITE, 0, c_lrem),
	KV_CMD("lset", 4, 1, 0, KV_WRITE, 0, c_lset),
	KV_CMD("ltrim", 4, 1, 0, KV_WRITE, 0, c_ltrim),
	KV_CMD("rpop", -2, 1, 0, KV_WRITE, 0, c_rpop),
	KV_CMD("rpush", -3, 1, 0, KV_WRITE, 0, c_rpush),
	KV_CMD("rpushx", -3, 1, 0, KV_WRITE, 0, c_rpushx),
	{ .name = NULL },
};
