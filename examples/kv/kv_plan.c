/* SPDX-License-Identifier: MIT */
/*
 * kv_plan.c - a connection's batch planned (kv_conn.h): each command
 * parsed is run here (the connection's own commands, and the errors), or
 * packed into the request of its key's shard, or split into a part per
 * shard that holds some of its keys (merged by kv_merge.c), or kept to
 * run across shards in steps after the rest (kv_cross.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_conn.h"

static bool grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (want <= *cap)
		return true;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

void kv_plan_pack(struct out *o, const struct kv_cmd *cmd, bool resp3, int argc,
		  const struct resp_arg *argv)
{
	size_t ntable;
	int i;

	put32(o, (uint32_t)(cmd - kv_cmd_table(&ntable)) |
			 (resp3 ? KV_REQ_RESP3 : 0));
	put32(o, (uint32_t)argc);
	for (i = 0; i < argc; i++)
		put32(o, (uint32_t)argv[i].len);
	for (i = 0; i < argc; i++)
		out_raw(o, argv[i].p, argv[i].len);
}

/* One command into shard s's request of this batch. */
static void pack(struct conn *c, uint32_t s, const struct kv_cmd *cmd, int argc,
		 const struct resp_arg *argv)
{
	struct out *o = &c->req[s];

	if (!c->nreq[s]) {
		c->touched[c->ntouched++] = s; /* once a batch: nreq was 0 */
		o->len = 0;
		o->failed = false;
		put32(o, c->seq);
		put32(o, s);
		put32(o, 0); /* the count, when it is sent */
	}
	if (!grow((void **)&c->offs[s].v, &c->offs[s].cap, c->offs[s].n + 1,
		  sizeof(size_t)))
		o->failed = true;
	else
		c->offs[s].v[c->offs[s].n++] = o->len;
	kv_plan_pack(o, cmd, c->client.resp3, argc, argv);
	c->nreq[s]++;
}

static bool add_part(struct conn *c, uint32_t s)
{
	if (!grow((void **)&c->parts, &c->capparts, c->nparts + 1,
		  sizeof(*c->parts)))
		return false;
	c->parts[c->nparts++] = s;
	return true;
}

/* A command of several keys, or of every shard, split into parts. */
static bool split(struct conn *c, struct plan *pl, const struct kv_cmd *cmd,
		  int argc, const struct resp_arg *argv)
{
	const struct kv_cmd *sunion = kv_cmd_find("sunion", 6);
	uint32_t s, first, j, nk;
	int i, step = cmd->key_step, n;
	bool one = true;

	pl->kind = P_SPLIT;
	pl->merge = (uint8_t)cmd->merge;
	pl->part0 = (uint32_t)c->nparts;
	if (cmd->flags & KV_EVERY) {
		for (s = 0; s < (uint32_t)srv.nshards; s++) {
			if (!add_part(c, s))
				return false;
			pack(c, s, cmd, argc, argv);
		}
		pl->nparts = (uint32_t)srv.nshards;
		pl->nkeys = 0;
		return true;
	}
	nk = (uint32_t)((argc - 1) / step);
	first = shard_of(&argv[1]);
	for (i = 1 + step; i < argc && one; i += step)
		one = shard_of(&argv[i]) == first;
	if (one) { /* all on one shard: the command whole */
		pl->kind = P_SHARD;
		pl->shard = first;
		pack(c, first, cmd, argc, argv);
		return true;
	}
	if (!grow((void **)&c->keypart, &c->capkeys, c->nkeys + nk,
		  sizeof(*c->keypart)) ||
	    !grow((void **)&c->sub, &c->capsub, (size_t)argc, sizeof(*c->sub)))
		return false;
	pl->key0 = (uint32_t)c->nkeys;
	pl->nkeys = nk;
	pl->nparts = 0;
	/* one part per shard, its keys (and values) in the command's order */
	for (j = 0; j < nk; j++) {
		uint32_t sj = shard_of(&argv[1 + j * step]), p;

		for (p = 0; p < pl->nparts; p++)
			if (c->parts[pl->part0 + p] == sj)
				break;
		c->keypart[c->nkeys + j] = p;
		if (p < pl->nparts)
			continue; /* that shard's part is made */
		if (!add_part(c, sj))
			return false;
		pl->nparts++;
		c->sub[0] = argv[0];
		n = 1;
		for (i = 1 + (int)j * step; i < argc; i += step) {
			if (shard_of(&argv[i]) != sj)
				continue;
			c->sub[n++] = argv[i];
			if (step == 2)
				c->sub[n++] = argv[i + 1];
		}
		/* SDIFF: the first key's part less the others' union */
		pack(c, sj, cmd->merge == KV_MERGE_SDIFF && j ? sunion : cmd, n,
		     c->sub);
	}
	c->nkeys += nk;
	return true;
}

/* SCAN: the client's cursor is the shard's cursor times the shards plus
 * the shard; the shard's SCAN runs with its own, and kv_merge_replies() turns the
 * shard's next cursor back into the client's. */
static bool scan_plan(struct conn *c, struct plan *pl, const struct kv_cmd *cmd,
		      int argc, const struct resp_arg *argv)
{
	size_t cursor, n = (size_t)srv.nshards;
	struct resp_arg sub[64];
	char buf[24];
	uint32_t s;

	if (!kv_scan_cursor(&argv[1], &cursor, &c->local))
		return true; /* its error, here */
	if (argc > 64) {     /* no such SCAN is valid: its syntax error */
		out_error(&c->local, KV_ERR_SYNTAX);
		return true;
	}
	s = (uint32_t)(cursor % n);
	memcpy(sub, argv, (size_t)argc * sizeof(*sub));
	sub[1].p = buf;
	sub[1].len = (size_t)snprintf(buf, sizeof(buf), "%zu", cursor / n);
	if (!add_part(c, s))
		return false;
	pl->kind = P_SPLIT;
	pl->merge = KV_MERGE_SCAN;
	pl->part0 = (uint32_t)c->nparts - 1;
	pl->nparts = 1;
	pl->nkeys = 0;
	pack(c, s, cmd, argc, sub);
	return true;
}

/* INFO: the shards asked for their counts only when a section needs
 * them, else the reply made here. */
static bool info_plan(struct conn *c, struct plan *pl, const struct kv_cmd *cmd,
		      int argc, const struct resp_arg *argv)
{
	unsigned mask = kv_info_sections(argc, argv);
	struct kv_info none;

	if (!(mask & KV_INFO_FROM_SHARDS)) {
		memset(&none, 0, sizeof(none));
		kv_info_reply(&c->local, mask, &none);
		return true;
	}
	if (!split(c, pl, cmd, argc, argv))
		return false;
	pl->info = mask;
	return true;
}

/* The shard of each key of a KV_CROSS command: true if they are all on
 * one (*s), else false. */
static bool one_shard(const struct kv_cmd *cmd, int argc,
		      const struct resp_arg *argv, uint32_t *s)
{
	int last = cmd->last_key ? cmd->last_key : argc - 1, i;
	long long n;

	if (cmd->flags & KV_NUMKEYS) { /* numkeys, then its keys */
		if (!resp_string2ll(argv[1].p, argv[1].len, &n) || n < 1 ||
		    n > argc - 2)
			n = 1; /* the shard of the first says what is wrong */
		last = 1 + (int)n;
	}

	*s = shard_of(&argv[cmd->first_key]);
	for (i = cmd->first_key; i <= last; i += cmd->key_step)
		if (shard_of(&argv[i]) != *s)
			return false;
	return true;
}

/* A command in steps across shards: its arguments kept (the input they
 * point into moves), the batch ended with it (run_cross). */
static bool cross_plan(struct conn *c, struct plan *pl,
		       const struct kv_cmd *cmd, int argc,
		       const struct resp_arg *argv)
{
	int i;

	c->cross_args.len = 0;
	c->cross_args.failed = false;
	for (i = 0; i < argc; i++)
		out_raw(&c->cross_args, argv[i].p, argv[i].len);
	for (i = 0; i < argc; i++)
		out_raw(&c->cross_args, &argv[i].len, sizeof(argv[i].len));
	if (c->cross_args.failed)
		return false;
	c->cross = cmd;
	c->cross_argc = argc;
	pl->kind = P_CROSS;
	return true;
}

/* The plan of one command: run here, or packed for its shard(s). */
static bool dispatch(struct conn *c, int argc, const struct resp_arg *argv)
{
	struct plan *pl = &c->plan[c->nplan++];
	const struct kv_cmd *cmd = kv_cmd_find(argv[0].p, argv[0].len);
	uint32_t s;

	pl->kind = P_LOCAL;
	pl->off = c->local.len;
	pl->resp3 = c->local.resp3 = c->client.resp3;
	if (cmd) /* for CLIENT LIST: a table name, never freed */
		atomic_store_explicit(&c->client.last_cmd, cmd->name,
				      memory_order_relaxed);
	if (!cmd)
		kv_reply_unknown(&c->local, argc, argv);
	else if (!kv_cmd_check(cmd, argc, argv, &c->local))
		; /* its arity error */
	else if (cmd->flags & KV_CONN) {
		kv_cmd_run(cmd, NULL, &c->client, argc, argv, &c->local);
		if (cmd->flags & KV_CLOSE)
			c->close_after = true;
	} else if (cmd->merge == KV_MERGE_SCAN) {
		if (!scan_plan(c, pl, cmd, argc, argv))
			return false;
	} else if (cmd->merge == KV_MERGE_INFO) {
		if (!info_plan(c, pl, cmd, argc, argv))
			return false;
	} else if ((cmd->flags & KV_CROSS) && !one_shard(cmd, argc, argv, &s)) {
		return cross_plan(c, pl, cmd, argc, argv);
	} else if (cmd->flags & (KV_MULTI | KV_EVERY)) {
		return split(c, pl, cmd, argc, argv);
	} else {
		pl->kind = P_SHARD;
		pl->shard = shard_of(&argv[cmd->first_key]);
		pack(c, pl->shard, cmd, argc, argv);
	}
	if (pl->kind == P_LOCAL)
		pl->len = c->local.len - pl->off;
	return true;
}

static void shrink_in(struct conn *c)
{
	size_t cap = IN_START;
	char *p;

	while (cap < c->have * 2)
		cap *= 2;
	if (cap < c->ps.need)
		return; /* the argument being read needs the room */
	p = realloc(c->in, cap);
	if (p) {
		c->in = p;
		c->cap = cap;
	}
}

enum resp_status kv_plan_batch(struct conn *c)
{
	enum resp_status st = RESP_CMD;
	size_t pos = 0;

	c->seq++; /* the batch's requests carry it, its replies too */
	c->nplan = 0;
	atomic_store_explicit(&c->client.last_ms, kv_now_ms(),
			      memory_order_relaxed);
	c->nparts = c->nkeys = 0;
	c->local.len = 0;
	while (c->nplan < BATCH_MAX && !c->close_after && !c->cross) {
		st = resp_parse(&c->ps, c->in + pos, c->have - pos);
		pos += c->ps.used;
		if (st != RESP_CMD)
			break;
		if (!dispatch(c, c->ps.argc, c->ps.argv)) {
			st = RESP_NOMEM;
			break;
		}
	}
	atomic_fetch_add_explicit(&srv.commands, (uint64_t)c->nplan,
				  memory_order_relaxed);
	memmove(c->in, c->in + pos, c->have - pos);
	c->have -= pos;
	if (c->cap > IN_KEEP && c->have < c->cap / 4 && st != RESP_CMD)
		shrink_in(c); /* a big argument's room back */
	return st;
}
