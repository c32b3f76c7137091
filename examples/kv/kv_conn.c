/* SPDX-License-Identifier: MIT */
/*
 * kv_conn.c - a connection of the kv server: it reads, parses (resp.h),
 * sends each shard one message with that shard's commands of what was
 * read (up to 256 commands), waits for their replies, and writes the
 * replies in the order of the commands. A command of several keys is
 * split by shard and its parts' replies merged; one whose keys must meet
 * (RENAME, MSETNX, SMOVE, the *STORE commands) runs in steps once the
 * batch before it is done.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kv_server.h"

enum { P_LOCAL, P_SHARD, P_SPLIT, P_CROSS };

/* Where each command of a batch gets its reply. */
struct plan {
	uint8_t kind;
	uint8_t merge;	 /* P_SPLIT: enum kv_merge */
	uint32_t shard;	 /* P_SHARD: the next reply of this shard */
	size_t off, len; /* P_LOCAL: the reply in c->local */
	uint32_t part0;	 /* P_SPLIT: c->parts[part0 .. part0 + nparts) */
	uint32_t nparts;
	uint32_t key0; /* P_SPLIT by key: c->keypart[key0 .. + nkeys) */
	uint32_t nkeys;
	unsigned info; /* KV_MERGE_INFO: the sections asked for */
};

struct offs {
	size_t *v;
	size_t n, cap;
};

struct conn {
	int fd;
	char *in;
	size_t have, cap;
	struct resp_parser ps;
	struct out out;	   /* replies to write */
	struct out local;  /* replies made here, this batch */
	struct out *req;   /* by shard: the batch's request */
	uint32_t *nreq;	   /* by shard: its commands */
	struct offs *offs; /* by shard: where each command starts */
	uint32_t *got;	   /* by shard: replies had of this batch */
	uint32_t *touched; /* the shards this batch asks, in order */
	uint32_t ntouched;
	uint32_t seq;
	struct plan plan[BATCH_MAX];
	int nplan;
	uint32_t *parts;   /* P_SPLIT: the shard of each part */
	uint32_t *keypart; /* the part of each key of a split MGET */
	size_t nparts, capparts, nkeys, capkeys;
	struct resp_arg *sub; /* a part's arguments */
	size_t capsub;
	/* the replies of the shards, by shard */
	struct act_msg **rep;
	void **owned;
	const char **rp;
	size_t *rlen, *rat;
	bool close_after;
	struct kv_client client; /* for its own commands (cmd.h) */
	bool loader;		 /* the replay of the append-only file */
	uint64_t file_off;	 /* loader: the next byte of the file to read */
	/* P_CROSS: the batch's last command, run in steps after the rest */
	const struct kv_cmd *cross;
	struct out cross_args; /* its arguments' bytes, then their lengths */
	int cross_argc;
};

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

/* One command of a request: [cmd][argc][len x argc][bytes]. */
static void pack_cmd(struct out *o, const struct kv_cmd *cmd, int argc,
		     const struct resp_arg *argv)
{
	size_t ntable;
	int i;

	put32(o, (uint32_t)(cmd - kv_cmd_table(&ntable)));
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
	pack_cmd(o, cmd, argc, argv);
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
 * the shard; the shard's SCAN runs with its own, and merge() turns the
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

/*
 * Parses and plans up to BATCH_MAX commands of what was read; consumes
 * their bytes. RESP_MORE: all of it is planned (read more); RESP_CMD:
 * the batch is full; RESP_ERROR, RESP_NOMEM: the end of this client.
 */
static enum resp_status plan_batch(struct conn *c)
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

static const char *next_reply(struct conn *c, uint32_t s, size_t *len);

/* The length of the one RESP reply at p (the shards' own output). */
static size_t reply_len(const char *p)
{
	const char *e = strchr(p, '\r');
	long long n = strtoll(p + 1, NULL, 10);
	size_t at = (size_t)(e - p) + 2;

	if (p[0] == '$')
		return n < 0 ? at : at + (size_t)n + 2;
	if (p[0] == '*')
		while (n-- > 0)
			at += reply_len(p + at);
	return at;
}

/* One part's reply in a merge, and where its elements start. */
struct part {
	const char *r;
	size_t len, at;
};

/* The next bulk of an array of bulks at *p: its bytes, *p past it. */
static struct resp_arg next_bulk(const char **p)
{
	struct resp_arg a;
	char *end;

	a.len = (size_t)strtoull(*p + 1, &end, 10);
	a.p = end + 2;
	*p = a.p + a.len + 2;
	return a;
}

/* An open-addressed set of the elements of set replies, for SINTER,
 * SUNION and SDIFF across shards: each element's mark says in how many
 * parts (or whether in the first) it is. */
struct eset {
	struct eslot {
		const char *p;
		size_t len;
		uint32_t mark;
	} * s;
	size_t mask;
};

static struct eslot *eset_find(struct eset *es, struct resp_arg a, bool *added)
{
	size_t i = (size_t)kv_hash(a.p, a.len) & es->mask;

	for (; es->s[i].p; i = (i + 1) & es->mask)
		if (es->s[i].len == a.len && !memcmp(es->s[i].p, a.p, a.len))
			return &es->s[i];
	es->s[i].p = a.p;
	es->s[i].len = a.len;
	es->s[i].mark = 0;
	*added = true;
	return &es->s[i];
}

/* SINTER, SUNION, SDIFF (kind) of the parts' sets as an array reply into
 * o, in an order redis would have no reason to keep either: the first
 * part's, then the others'. False on no memory. */
static bool set_combine(unsigned kind, const struct part *pt, uint32_t nparts,
			struct out *o)
{
	struct eset es = { NULL, 0 };
	size_t total = 0, n, i, mark = o->len, emitted = 0;
	struct eslot *sl;
	const char *q;
	bool added;
	uint32_t p;

	for (p = 0; p < nparts; p++)
		total += (size_t)strtoull(pt[p].r + 1, NULL, 10);
	for (n = 16; n < 2 * total; n *= 2)
		;
	es.s = calloc(n, sizeof(*es.s));
	es.mask = n - 1;
	if (!es.s)
		return false;
	for (p = 0; p < nparts; p++) {
		q = pt[p].r + pt[p].at;
		n = (size_t)strtoull(pt[p].r + 1, NULL, 10);
		for (i = 0; i < n; i++) {
			struct resp_arg a = next_bulk(&q);

			added = false;
			sl = eset_find(&es, a, &added);
			if (kind == KV_MERGE_SUNION) {
				if (added) {
					out_bulk(o, a.p, a.len);
					emitted++;
				}
			} else if (kind == KV_MERGE_SINTER) {
				if (sl->mark == p) /* in every part so far */
					sl->mark = p + 1;
			} else { /* SDIFF: in the first, in no other */
				sl->mark = p == 0 && added;
			}
		}
	}
	if (kind != KV_MERGE_SUNION) {
		q = pt[0].r + pt[0].at;
		n = (size_t)strtoull(pt[0].r + 1, NULL, 10);
		for (i = 0; i < n; i++) {
			struct resp_arg a = next_bulk(&q);

			added = false;
			sl = eset_find(&es, a, &added);
			if (sl->mark ==
			    (kind == KV_MERGE_SINTER ? nparts : 1)) {
				out_bulk(o, a.p, a.len);
				emitted++;
			}
		}
	}
	out_array_at(o, mark, (long long)emitted);
	free(es.s);
	return true;
}

static void merge_sets(struct conn *c, const struct plan *pl, struct part *pt)
{
	if (!set_combine(pl->merge, pt, pl->nparts, &c->out))
		c->out.failed = true;
}

/* SCAN's reply from one shard, its next cursor made the client's. */
static void merge_scan(struct conn *c, const struct plan *pl, struct part *pt)
{
	uint32_t s = c->parts[pl->part0], n = (uint32_t)srv.nshards;
	const char *q = pt->r + pt->at;
	struct resp_arg cur = next_bulk(&q);
	size_t next = (size_t)strtoull(cur.p, NULL, 10);
	char buf[24];

	/* the shard's walk over: the next shard's from its start */
	next = next ? next * n + s : s + 1 < n ? s + 1 : 0;
	out_array(&c->out, 2);
	out_bulk(&c->out, buf, (size_t)snprintf(buf, sizeof(buf), "%zu", next));
	out_raw(&c->out, q, pt->len - (size_t)(q - pt->r));
}

/* INFO: the shards' keys, keys with a TTL and expired keys added. */
static void merge_info(struct conn *c, const struct plan *pl, struct part *pt)
{
	struct kv_info in;
	const char *q;
	uint32_t p;

	memset(&in, 0, sizeof(in));
	for (p = 0; p < pl->nparts; p++) {
		q = pt[p].r + pt[p].at;
		in.keys += strtoll(q + 1, (char **)&q, 10);
		in.expires += strtoll(q + 3, (char **)&q, 10);
		in.expired += strtoll(q + 3, NULL, 10);
	}
	kv_info_reply(&c->out, pl->info, &in);
}

static void merge(struct conn *c, const struct plan *pl)
{
	struct part stack[64], *pt = stack;
	const char *err = NULL;
	size_t errlen = 0, len, j, total = 0;
	long long sum = 0;
	uint32_t p;

	if (pl->nparts > 64) { /* more shards than the stack array */
		pt = malloc(pl->nparts * sizeof(*pt));
		if (!pt) {
			c->out.failed = true;
			return;
		}
	}
	for (p = 0; p < pl->nparts; p++) {
		pt[p].r = next_reply(c, c->parts[pl->part0 + p], &pt[p].len);
		if (!pt[p].r)
			goto out;
		pt[p].at = 0;
		if (!err && pt[p].r[0] == '-') {
			err = pt[p].r;
			errlen = pt[p].len;
		} else if (pt[p].r[0] == ':') {
			sum += strtoll(pt[p].r + 1, NULL, 10);
		} else if (pt[p].r[0] == '*') {
			pt[p].at =
				(size_t)(strchr(pt[p].r, '\r') - pt[p].r) + 2;
			total += (size_t)strtoull(pt[p].r + 1, NULL, 10);
		}
	}
	if (err) {
		out_raw(&c->out, err, errlen);
	} else if (pl->merge == KV_MERGE_SUM) {
		out_int(&c->out, sum);
	} else if (pl->merge == KV_MERGE_OK) {
		out_status(&c->out, KV_OK);
	} else if (pl->merge == KV_MERGE_CONCAT) {
		out_array(&c->out, (long long)total);
		for (p = 0; p < pl->nparts; p++)
			out_raw(&c->out, pt[p].r + pt[p].at,
				pt[p].len - pt[p].at);
	} else if (pl->merge == KV_MERGE_SCAN) {
		merge_scan(c, pl, pt);
	} else if (pl->merge == KV_MERGE_INFO) {
		merge_info(c, pl, pt);
	} else if (pl->merge != KV_MERGE_ARRAY) {
		merge_sets(c, pl, pt);
	} else { /* each key's element from its part, in key order */
		out_array(&c->out, pl->nkeys);
		for (j = 0; j < pl->nkeys; j++) {
			p = c->keypart[pl->key0 + j];
			len = reply_len(pt[p].r + pt[p].at);
			out_raw(&c->out, pt[p].r + pt[p].at, len);
			pt[p].at += len;
		}
	}
out:
	if (pt != stack)
		free(pt);
}

static bool flush_out(struct conn *c);

/* m, this batch's reply from shard s, as the replies in hand for s. */
static void take(struct conn *c, uint32_t s, struct act_msg *m, const char *p,
		 size_t len, void *owned)
{
	uint32_t k = get32(p + 8);

	if (c->rep[s]) {
		act_msg_free(c->rep[s]);
		free(c->owned[s]);
	}
	c->rep[s] = m;
	c->owned[s] = owned;
	c->rp[s] = p;
	c->rlen[s] = len;
	c->rat[s] = 12;
	if (k == KV_BATCH_FAILED)
		c->out.failed = true; /* the shard had no memory */
	else
		c->got[s] += k;
}

/* Waits for a reply of this batch: from shard `want`, or from any shard
 * (want UINT32_MAX) that has not replied yet. Its shard. */
/* The next reply message from a shard (anything else is dropped: no
 * one else sends a connection messages), and its bytes. */
static struct act_msg *next_rep(const char **p, size_t *len, void **owned)
{
	struct act_msg *m;

	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m && (m->tag == T_REP || m->tag == T_REP_PTR))
			break;
		if (m)
			act_msg_free(m);
	}
	*p = kv_payload(m, len, owned);
	return m;
}

static uint32_t await_reply(struct conn *c, uint32_t want)
{
	struct act_msg *m;
	const char *p;
	void *owned;
	size_t len;
	uint32_t s;

	for (;;) {
		m = next_rep(&p, &len, &owned);
		s = get32(p + 4);
		if (get32(p) == c->seq && s < (uint32_t)srv.nshards &&
		    (want == UINT32_MAX ? !c->rep[s] : s == want)) {
			take(c, s, m, p, len, owned);
			return s;
		}
		act_msg_free(m); /* not of this batch: cannot happen */
		free(owned);
	}
}

/* Asks shard s for its commands of this batch from the from-th on. */
static bool ask(struct conn *c, uint32_t s, uint32_t from)
{
	struct out *o = &c->req[s], tail;
	uint32_t n = c->nreq[s] - from;
	size_t at;
	bool ok;

	if (o->failed)
		return false;
	if (from == 0) {
		memcpy(o->p + 8, &n, 4);
		return !kv_send_copy(srv.shards[s], T_REQ, o->p, o->len);
	}
	at = c->offs[s].v[from];
	out_init(&tail);
	out_raw(&tail, o->p, 8);
	put32(&tail, n);
	out_raw(&tail, o->p + at, o->len - at);
	ok = !tail.failed &&
	     !kv_send_copy(srv.shards[s], T_REQ, tail.p, tail.len);
	out_free(&tail);
	return ok;
}

/*
 * The next reply of shard s in this batch. When those in hand are used
 * up and the shard stopped short (REPLY_SOFT), what is made so far is
 * written to the client first, then the shard asked for the rest: memory
 * stays at a megabyte or so of replies however much was asked for.
 * NULL (and c->out failed) when that cannot be done.
 */
static const char *next_reply(struct conn *c, uint32_t s, size_t *len)
{
	const char *r;

	if (c->rat[s] >= c->rlen[s] &&
	    (c->got[s] >= c->nreq[s] || !flush_out(c) ||
	     !ask(c, s, c->got[s]) || await_reply(c, s) != s ||
	     c->out.failed)) {
		c->out.failed = true;
		*len = 0;
		return NULL;
	}
	r = c->rp[s] + c->rat[s] + 4;
	*len = get32(c->rp[s] + c->rat[s]);
	c->rat[s] += 4 + *len;
	return r;
}

/*
 * One command on shard s, now, its reply into rep (a step of a command
 * across shards, after the batch before it is done): a request of its
 * own, with a sequence number of its own.
 */
static bool call_shard(struct conn *c, uint32_t s, const struct kv_cmd *cmd,
		       int argc, const struct resp_arg *argv, struct out *rep)
{
	struct out *o = &c->req[s];
	struct act_msg *m;
	const char *p;
	void *owned;
	size_t len;
	bool ok;

	c->seq++;
	o->len = 0;
	o->failed = false;
	put32(o, c->seq);
	put32(o, s);
	put32(o, 1);
	pack_cmd(o, cmd, argc, argv);
	if (o->failed || kv_send_copy(srv.shards[s], T_REQ, o->p, o->len))
		return false;
	for (;;) {
		m = next_rep(&p, &len, &owned);
		if (get32(p) == c->seq && get32(p + 4) == s)
			break;
		act_msg_free(m); /* not this call's: cannot happen */
		free(owned);
	}
	ok = get32(p + 8) == 1;
	if (ok)
		out_raw(rep, p + 16, get32(p + 12));
	act_msg_free(m);
	free(owned);
	return ok && !rep->failed;
}

/* call_shard of the command named `name` (a client's or an internal
 * one), with that name as its argv[0]. */
static bool step(struct conn *c, uint32_t s, const char *name, int argc,
		 struct resp_arg *argv, struct out *rep)
{
	const struct kv_cmd *cmd = kv_cmd_find(name, strlen(name));

	if (!cmd)
		cmd = kv_cmd_internal(name);
	argv[0].p = name;
	argv[0].len = strlen(name);
	rep->len = 0;
	return cmd && call_shard(c, s, cmd, argc, argv, rep);
}

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
		if (!step(c, from, "exists", 2, a, rep))
			return false;
		if (rep_int(rep) != 1) {
			out_error(&c->out, "ERR no such key");
			return true;
		}
		a[1] = v[2];
		if (!step(c, to, "exists", 2, a, rep))
			return false;
		if (rep_int(rep) != 0) {
			out_int(&c->out, 0);
			return true;
		}
		a[1] = v[1];
	}
	if (!step(c, from, "take", 2, a, rep))
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
	ok = step(c, to, "put", 3, a, &put);
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
			ok = step(c, s, "exists", n, a, rep) &&
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
			ok = step(c, s, "mset", n, a, rep) && rep->p[0] == '+';
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

	if (!step(c, from, "type", 2, a, rep))
		return false;
	if (rep->len == 7 && !memcmp(rep->p, "+none\r\n", 7)) {
		out_int(&c->out, 0);
		return true;
	}
	if (rep->len != 6 || memcmp(rep->p, "+set\r\n", 6))
		goto wrongtype;
	a[1] = v[2];
	if (!step(c, to, "type", 2, a, rep))
		return false;
	if (!(rep->len == 7 && !memcmp(rep->p, "+none\r\n", 7)) &&
	    !(rep->len == 6 && !memcmp(rep->p, "+set\r\n", 6)))
		goto wrongtype;
	a[1] = v[1];
	if (!step(c, from, "srem", 3, a, rep))
		return false;
	if (rep_int(rep) != 1) {
		out_raw(&c->out, rep->p, rep->len); /* :0, or its error */
		return true;
	}
	a[1] = v[2];
	if (!step(c, to, "sadd", 3, a, rep))
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
		ok = step(c, sh, op, m, a, &reps[np]);
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
		ok = set_combine(kind, pt, np, res);
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
			a[2 + i] = next_bulk(&q);
	}
	ok = ok && step(c, shard_of(&v[1]), "del", 2, d, rep);
	if (ok && n) {
		a[1] = v[1];
		ok = step(c, shard_of(&v[1]), "sadd", (int)n + 2, a, rep);
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
	ok = ok && step(c, shard_of(&v[2]), "sintercard", argc, a, rep);
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

/* The batch's last command, across shards, in its steps; its reply goes
 * after the rest of the batch's. */
static bool run_cross(struct conn *c)
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

/* Sends each shard its part of the batch, waits for their replies, and
 * writes the replies to the client in the order of the commands. */
static bool run_batch(struct conn *c)
{
	uint32_t s, t;
	const char *p;
	size_t len;
	int i;

	/* only the shards asked: a batch costs nothing per idle shard */
	for (t = 0; t < c->ntouched; t++) {
		s = c->touched[t];
		c->got[s] = 0;
		if (!ask(c, s, 0))
			return false;
	}
	for (t = 0; t < c->ntouched; t++)
		await_reply(c, UINT32_MAX);
	for (i = 0; i < c->nplan && !c->out.failed; i++) {
		const struct plan *pl = &c->plan[i];

		if (pl->kind == P_LOCAL) {
			out_raw(&c->out, c->local.p + pl->off, pl->len);
		} else if (pl->kind == P_SHARD) {
			p = next_reply(c, pl->shard, &len);
			if (p)
				out_raw(&c->out, p, len);
		} else if (pl->kind == P_SPLIT) {
			merge(c, pl);
		} /* P_CROSS: the last, run once the rest is done */
		if (c->out.len > OUT_FLUSH && !flush_out(c))
			c->out.failed = true;
	}
	for (t = 0; t < c->ntouched; t++) {
		s = c->touched[t];
		c->nreq[s] = 0;
		c->offs[s].n = 0;
		if (!c->rep[s])
			continue;
		act_msg_free(c->rep[s]);
		free(c->owned[s]);
		c->rep[s] = NULL;
		c->owned[s] = NULL;
	}
	c->ntouched = 0;
	if (c->cross && !c->out.failed && !run_cross(c))
		c->out.failed = true;
	return !c->out.failed;
}

/* Writes c->out; false when the client is gone or took nothing for
 * SEND_STALL_NS. */
static bool flush_out(struct conn *c)
{
	size_t at = 0;
	ssize_t n;

	while (at < c->out.len && !c->loader) { /* a replay's: dropped */
		/* what the socket takes now, with no limit to arm (a linked
		 * timeout costs the kernel a timer per send); the limit only
		 * for a client whose buffer is full */
		n = act_io_send(c->fd, c->out.p + at, c->out.len - at,
				MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EWOULDBLOCK)
			n = act_io_send_timeout(c->fd, c->out.p + at,
						c->out.len - at, MSG_NOSIGNAL,
						SEND_STALL_NS);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return false;
		at += (size_t)n;
	}
	c->out.len = 0;
	if (c->out.cap > ((size_t)1 << 20))
		out_free(&c->out); /* a big reply's room back */
	return true;
}

/* Reads more; false at the end of the client. */
static bool fill(struct conn *c)
{
	size_t want = c->have + 1, cap;
	ssize_t n;
	char *p;

	if (c->ps.need > want)
		want = c->ps.need; /* a whole bulk argument at once */
	if (want > c->cap) {
		/* redis's client-query-buffer-limit: 1 GB */
		if (want > ((size_t)1 << 30) + RESP_INLINE_MAX)
			return false;
		cap = c->cap * 2 > want ? c->cap * 2 : want;
		p = realloc(c->in, cap);
		if (!p)
			return false;
		c->in = p;
		c->cap = cap;
	}
	do
		n = c->loader ? act_io_read(c->fd, c->in + c->have,
					    c->cap - c->have,
					    (int64_t)c->file_off) :
				act_io_recv(c->fd, c->in + c->have,
					    c->cap - c->have, 0);
	while (n == -EINTR);
	if (n <= 0)
		return false;
	c->have += (size_t)n;
	c->file_off += (uint64_t)n;
	return true;
}

/* An address as redis writes it in CLIENT LIST: ip:port, [ip6]:port. */
static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t room)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	int port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		port = ntohs(s4->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		port = ntohs(s6->sin6_port);
	}
	snprintf(buf, room, ss->ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", ip,
		 port);
}

/* The connection's CLIENT fields, once; registered by conn_proc. */
static void client_init(struct kv_client *cl, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	cl->fd = fd;
	cl->created_ms = kv_now_ms();
	atomic_init(&cl->last_ms, cl->created_ms);
	atomic_init(&cl->last_cmd, NULL);
	memset(&ss, 0, sizeof(ss));
	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0)
		addr_text(&ss, cl->addr, sizeof(cl->addr));
	len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		addr_text(&ss, cl->laddr, sizeof(cl->laddr));
}

static struct conn *conn_new(int fd)
{
	size_t ns = (size_t)srv.nshards;
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	c->cap = IN_START;
	c->in = malloc(c->cap);
	c->req = calloc(ns, sizeof(*c->req));
	c->nreq = calloc(ns, sizeof(*c->nreq));
	c->offs = calloc(ns, sizeof(*c->offs));
	c->got = calloc(ns, sizeof(*c->got));
	c->touched = calloc(ns, sizeof(*c->touched));
	c->rep = calloc(ns, sizeof(*c->rep));
	c->owned = calloc(ns, sizeof(*c->owned));
	c->rp = calloc(ns, sizeof(*c->rp));
	c->rlen = calloc(ns, sizeof(*c->rlen));
	c->rat = calloc(ns, sizeof(*c->rat));
	resp_init(&c->ps, kv_settings.proto_max_bulk_len);
	client_init(&c->client, fd);
	return c; /* conn_ok says whether it is whole */
}

static bool conn_ok(const struct conn *c)
{
	return c->in && c->req && c->nreq && c->offs && c->got && c->touched &&
	       c->rep && c->owned && c->rp && c->rlen && c->rat;
}

static void conn_free(struct conn *c)
{
	int s;

	kv_client_remove(&c->client);
	for (s = 0; c->req && s < srv.nshards; s++)
		out_free(&c->req[s]);
	for (s = 0; c->offs && s < srv.nshards; s++)
		free(c->offs[s].v);
	free(c->offs);
	free(c->got);
	free(c->touched);
	out_free(&c->out);
	out_free(&c->local);
	out_free(&c->cross_args);
	resp_free(&c->ps);
	free(c->in);
	free(c->req);
	free(c->nreq);
	free(c->rep);
	free(c->owned);
	free(c->rp);
	free(c->rlen);
	free(c->rat);
	free(c->parts);
	free(c->keypart);
	free(c->sub);
	free(c);
}

/* Serves c until its client goes (or, a loader, its file ends). */
static void serve(struct conn *c)
{
	enum resp_status st;

	while (conn_ok(c)) {
		st = plan_batch(c);
		if (c->nplan && !run_batch(c))
			break;
		if (st == RESP_ERROR) {
			out_errorf(&c->out, "ERR %s", c->ps.error);
			c->close_after = true;
		} else if (st == RESP_NOMEM) {
			c->close_after = true;
		}
		if (c->out.len && !flush_out(c))
			break;
		if (c->close_after)
			break;
		if (st == RESP_MORE && !fill(c))
			break;
	}
}

void kv_conn_proc(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct conn *c = conn_new(fd);

	/* in the ring's table until the act_io_close below: no descriptor
	 * lookup per receive and send (a refusal only costs that lookup) */
	(void)act_io_register(fd);
	if (c && conn_ok(c)) {
		kv_client_add(&c->client);
		serve(c);
	}
	if (c)
		conn_free(c);
	act_io_close(fd);
	atomic_fetch_sub_explicit(&srv.clients, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&srv.closed, 1, memory_order_relaxed);
}

/*
 * The replay of the append-only file: a connection whose input is the
 * file (kv_server.c cut it to whole commands first) and whose replies go
 * nowhere, so that every record is routed, split and stepped across the
 * shards exactly as a client's command would be, whatever the shards
 * were when it was written. Tells main the commands it ran.
 */
void kv_loader_proc(void *arg)
{
	struct conn *c = conn_new(srv.aof_fd);
	uint64_t n = 0;

	(void)arg;
	if (c && conn_ok(c)) {
		c->loader = true;
		serve(c);
		n = atomic_load_explicit(&srv.commands, memory_order_relaxed);
	}
	if (c) {
		if (c->have) /* the scan said whole: a bug if not */
			fprintf(stderr,
				"kv_server: %s: %zu bytes left unread\n",
				srv.aof_path, c->have);
		conn_free(c);
	}
	act_send(srv.main, T_LOADED, &n, sizeof(n));
}
