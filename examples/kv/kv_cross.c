/* SPDX-License-Identifier: MIT */
/*
 * kv_cross.c - the commands whose keys must meet, with the keys on
 * several shards (kv_conn.h): RENAME, RENAMENX, MSETNX, SMOVE,
 * SINTERCARD and the *STORE commands, each in steps, one command on one
 * shard at a time (kv_conn_step), after the batch before it is done.
 * Not atomic: another client may see a step's result before the next.
 */
#include <stdlib.h>
#include <string.h>

#include "kv_conn.h"

/* An integer reply's value, or -1. */
static long long rep_int(const struct out *rep)
{
	return rep->len && rep->p[0] == ':' ? strtoll(rep->p + 1, NULL, 10) :
					      -1;
}

/*
 * RENAME, RENAMENX with the two keys on two shards: TAKE the key's entry
 * from one, PUT it in the other under its new name (RENAMENX asks both
 * whether the keys are there first, as redis checks them). Not atomic:
 * another client may see neither key between the steps, as with any
 * command across shards.
 */
static bool cross_rename(struct conn *c, const struct resp_arg *v, bool nx,
			 struct out *rep)
{
	uint32_t from = shard_of(&v[1]), to = shard_of(&v[2]);
	struct resp_arg a[3] = { { NULL, 0 }, v[1], { NULL, 0 } };
	struct kv_entry *e;
	struct out put;
	bool ok;

	if (nx) {
		if (!kv_conn_step(c, from, "exists", 2, a, rep))
			return false;
		if (rep_int(rep) != 1) {
			out_error(&c->out, "ERR no such key");
			return true;
		}
		a[1] = v[2];
		if (!kv_conn_step(c, to, "exists", 2, a, rep))
			return false;
		if (rep_int(rep) != 0) {
			out_int(&c->out, 0);
			return true;
		}
		a[1] = v[1];
	}
	if (!kv_conn_step(c, from, "take", 2, a, rep))
		return false;
	if (rep->len != 6 + sizeof(e)) { /* "$-1": gone meanwhile */
		out_error(&c->out, "ERR no such key");
		return true;
	}
	memcpy(&e, rep->p + 4, sizeof(e)); /* after "$8\r\n" */
	a[1] = v[2];
	a[2].p = rep->p + 4;
	a[2].len = sizeof(e);
	out_init(&put);
	ok = kv_conn_step(c, to, "put", 3, a, &put);
	if (!ok && !put.len)
		db_entry_free(e); /* the shard never had it: it is ours */
	else if (nx && put.len && put.p[0] == '+')
		out_int(&c->out, 1);
	else
		out_raw(&c->out, put.p, put.len);
	out_free(&put);
	return ok;
}

/* MSETNX across shards: EXISTS on each shard's keys, then MSET of each
 * shard's pairs if none was there. */
static bool cross_msetnx(struct conn *c, int argc, const struct resp_arg *v,
			 struct out *rep)
{
	struct resp_arg *a = malloc((size_t)argc * sizeof(*a));
	long long there = 0;
	uint32_t s;
	int i, n;
	bool ok = a != NULL;

	for (s = 0; ok && s < (uint32_t)srv.nshards && !there; s++) {
		for (i = 1, n = 1; i < argc; i += 2)
			if (shard_of(&v[i]) == s)
				a[n++] = v[i];
		if (n > 1)
			ok = kv_conn_step(c, s, "exists", n, a, rep) &&
			     (there = rep_int(rep)) >= 0;
	}
	for (s = 0; ok && !there && s < (uint32_t)srv.nshards; s++) {
		for (i = 1, n = 1; i < argc; i += 2) {
			if (shard_of(&v[i]) == s) {
				a[n++] = v[i];
				a[n++] = v[i + 1];
			}
		}
		if (n > 1)
			ok = kv_conn_step(c, s, "mset", n, a, rep) &&
			     rep->p[0] == '+';
	}
	if (ok)
		out_int(&c->out, !there);
	free(a);
	return ok;
}

/*
 * SMOVE src dst member with the keys on two shards, in redis's order: a
 * missing source is 0, a wrong type of either is WRONGTYPE, then the
 * member taken out of the source (0 if it was not there) and added to
 * the destination.
 */
static bool cross_smove(struct conn *c, const struct resp_arg *v,
			struct out *rep)
{
	uint32_t from = shard_of(&v[1]), to = shard_of(&v[2]);
	struct resp_arg a[3] = { { NULL, 0 }, v[1], v[3] };

	if (!kv_conn_step(c, from, "type", 2, a, rep))
		return false;
	if (rep->len == 7 && !memcmp(rep->p, "+none\r\n", 7)) {
		out_int(&c->out, 0);
		return true;
	}
	if (rep->len != 6 || memcmp(rep->p, "+set\r\n", 6))
		goto wrongtype;
	a[1] = v[2];
	if (!kv_conn_step(c, to, "type", 2, a, rep))
		return false;
	if (!(rep->len == 7 && !memcmp(rep->p, "+none\r\n", 7)) &&
	    !(rep->len == 6 && !memcmp(rep->p, "+set\r\n", 6)))
		goto wrongtype;
	a[1] = v[1];
	if (!kv_conn_step(c, from, "srem", 3, a, rep))
		return false;
	if (rep_int(rep) != 1) {
		out_raw(&c->out, rep->p, rep->len); /* :0, or its error */
		return true;
	}
	a[1] = v[2];
	if (!kv_conn_step(c, to, "sadd", 3, a, rep))
		return false;
	out_int(&c->out, 1);
	return true;
wrongtype:
	out_error(&c->out, KV_ERR_WRONGTYPE);
	return true;
}

/*
 * The sets of keys v[0..n) across shards, combined as kind (SINTER,
 * SUNION, SDIFF) into the array reply *res: each shard's keys by its
 * own SINTER, SUNION or (the first key's part of SDIFF) SDIFF, then the
 * parts combined as a merge does. False on a failed step; an error of a
 * part (WRONGTYPE) is *res instead.
 */
static bool cross_sets(struct conn *c, const struct resp_arg *v, int n,
		       unsigned kind, struct out *res)
{
	static const char *const name[] = { [KV_MERGE_SINTER] = "sinter",
					    [KV_MERGE_SUNION] = "sunion",
					    [KV_MERGE_SDIFF] = "sdiff" };
	uint32_t ns = (uint32_t)srv.nshards, s, np = 0, first = shard_of(&v[0]);
	struct resp_arg *a = malloc(((size_t)n + 1) * sizeof(*a));
	struct out *reps = calloc(ns, sizeof(*reps));
	struct part *pt = calloc(ns, sizeof(*pt));
	bool ok = a && reps && pt;
	int i, m;

	for (s = 0; ok && s < ns; s++) { /* the first key's shard first */
		uint32_t sh = (first + s) % ns;
		const char *op = kind == KV_MERGE_SDIFF && s ? "sunion" :
							       name[kind];

		for (i = 0, m = 1; i < n; i++)
			if (shard_of(&v[i]) == sh)
				a[m++] = v[i];
		if (m == 1)
			continue;
		ok = kv_conn_step(c, sh, op, m, a, &reps[np]);
		if (ok && reps[np].p[0] == '-') {
			out_raw(res, reps[np].p, reps[np].len);
			goto out;
		}
		pt[np].r = reps[np].p;
		pt[np].len = reps[np].len;
		pt[np].at = (size_t)(strchr(pt[np].r, '\r') - pt[np].r) + 2;
		np++;
	}
	if (ok)
		ok = kv_merge_set_combine(kind, pt, np, res);
out:
	for (s = 0; reps && s < ns; s++)
		out_free(&reps[s]);
	free(reps);
	free(pt);
	free(a);
	return ok;
}

/* SINTERSTORE, SUNIONSTORE, SDIFFSTORE across shards: the sets combined
 * here, then the destination replaced on its shard (deleted when the
 * result is empty, as redis). */
static bool cross_store(struct conn *c, int argc, const struct resp_arg *v,
			unsigned kind, struct out *rep)
{
	struct out res;
	struct resp_arg *a = NULL, d[2] = { { NULL, 0 }, v[1] };
	const char *q;
	long long n = 0, i;
	bool ok;

	out_init(&res);
	ok = cross_sets(c, &v[2], argc - 2, kind, &res) && !res.failed;
	if (ok && res.p[0] == '-') {
		out_raw(&c->out, res.p, res.len);
		goto out;
	}
	if (ok)
		n = strtoll(res.p + 1, (char **)&q, 10);
	if (ok && n) {
		a = malloc(((size_t)n + 2) * sizeof(*a));
		ok = a != NULL;
		for (i = 0, q += 2; ok && i < n; i++)
			a[2 + i] = kv_merge_next_bulk(&q);
	}
	ok = ok && kv_conn_step(c, shard_of(&v[1]), "del", 2, d, rep);
	if (ok && n) {
		a[1] = v[1];
		ok = kv_conn_step(c, shard_of(&v[1]), "sadd", (int)n + 2, a,
				  rep);
	}
	if (ok)
		out_int(&c->out, n);
out:
	free(a);
	out_free(&res);
	return ok;
}

/* SINTERCARD across shards: the whole command on the first key's shard
 * first, for redis's errors (its other keys are simply not there), then
 * the intersection counted here, up to LIMIT. */
static bool cross_sintercard(struct conn *c, int argc, const struct resp_arg *v,
			     struct out *rep)
{
	long long n = 0, limit = 0, got;
	struct resp_arg *a = malloc((size_t)argc * sizeof(*a));
	struct out res;
	bool ok = a != NULL;

	memcpy(a, v, (size_t)argc * sizeof(*a));
	ok = ok && kv_conn_step(c, shard_of(&v[2]), "sintercard", argc, a, rep);
	free(a);
	if (!ok || rep->p[0] != ':') {
		out_raw(&c->out, rep->p, rep->len);
		return ok;
	}
	resp_string2ll(v[1].p, v[1].len, &n);
	if (argc > 3 + n)
		resp_string2ll(v[argc - 1].p, v[argc - 1].len, &limit);
	out_init(&res);
	ok = cross_sets(c, &v[2], (int)n, KV_MERGE_SINTER, &res) && !res.failed;
	if (ok && res.p[0] == '-') {
		out_raw(&c->out, res.p, res.len);
	} else if (ok) {
		got = strtoll(res.p + 1, NULL, 10);
		out_int(&c->out, limit && got > limit ? limit : got);
	}
	out_free(&res);
	return ok;
}

bool kv_cross_run(struct conn *c)
{
	const struct kv_cmd *cmd = c->cross;
	int argc = c->cross_argc, i;
	struct resp_arg *v = malloc((size_t)argc * sizeof(*v));
	const char *p = c->cross_args.p;
	struct out rep;
	bool ok;

	c->cross = NULL;
	if (!v)
		return false;
	for (i = 0; i < argc; i++) { /* the bytes, then the lengths */
		memcpy(&v[i].len,
		       c->cross_args.p + c->cross_args.len -
			       (size_t)(argc - i) * sizeof(size_t),
		       sizeof(size_t));
		v[i].p = p;
		p += v[i].len;
	}
	out_init(&rep);
	if (!strcmp(cmd->name, "msetnx"))
		ok = cross_msetnx(c, argc, v, &rep);
	else if (!strcmp(cmd->name, "smove"))
		ok = cross_smove(c, v, &rep);
	else if (!strcmp(cmd->name, "sintercard"))
		ok = cross_sintercard(c, argc, v, &rep);
	else if (!strcmp(cmd->name, "sinterstore"))
		ok = cross_store(c, argc, v, KV_MERGE_SINTER, &rep);
	else if (!strcmp(cmd->name, "sunionstore"))
		ok = cross_store(c, argc, v, KV_MERGE_SUNION, &rep);
	else if (!strcmp(cmd->name, "sdiffstore"))
		ok = cross_store(c, argc, v, KV_MERGE_SDIFF, &rep);
	else
		ok = cross_rename(c, v, !strcmp(cmd->name, "renamenx"), &rep);
	out_free(&rep);
	free(v);
	return ok && !c->out.failed;
}
