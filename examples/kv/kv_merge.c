/* SPDX-License-Identifier: MIT */
/*
 * kv_merge.c - the replies of a command split across shards made one
 * (kv_conn.h): the first error, a sum, OK, the arrays concatenated or
 * each key's element in key order, SCAN's cursor, INFO's counts, and
 * the set operations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_conn.h"

/* The length of the one RESP2 or RESP3 reply at p (the shards' own
 * output): a line, a bulk (a verbatim string), or an aggregate of n
 * replies (a map's 2n). */
static size_t reply_len(const char *p)
{
	const char *e = strchr(p, '\r');
	size_t at = (size_t)(e - p) + 2;
	long long n;

	if (!memchr("$=*~%>", p[0], 6))
		return at; /* a line (strtoll of "_\r\n" would read on) */
	n = strtoll(p + 1, NULL, 10);
	if (p[0] == '$' || p[0] == '=')
		return n < 0 ? at : at + (size_t)n + 2;
	if (p[0] == '%')
		n *= 2;
	if (p[0] == '*' || p[0] == '~' || p[0] == '%' || p[0] == '>')
		while (n-- > 0)
			at += reply_len(p + at);
	return at;
}

struct resp_arg kv_merge_next_bulk(const char **p)
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

/* SINTER, SUNION, SDIFF (kind) of the parts' sets as a set reply into
 * o (an array in RESP2), in an order redis would have no reason to keep
 * either: the first part's, then the others'. The parts' replies are
 * arrays or sets. False on no memory. */
bool kv_merge_set_combine(unsigned kind, const struct part *pt, uint32_t nparts,
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
			struct resp_arg a = kv_merge_next_bulk(&q);

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
			struct resp_arg a = kv_merge_next_bulk(&q);

			added = false;
			sl = eset_find(&es, a, &added);
			if (sl->mark ==
			    (kind == KV_MERGE_SINTER ? nparts : 1)) {
				out_bulk(o, a.p, a.len);
				emitted++;
			}
		}
	}
	out_set_at(o, mark, (long long)emitted);
	free(es.s);
	return true;
}

static void merge_sets(struct conn *c, const struct plan *pl, struct part *pt)
{
	if (!kv_merge_set_combine(pl->merge, pt, pl->nparts, &c->out))
		c->out.failed = true;
}

/* SCAN's reply from one shard, its next cursor made the client's. */
static void merge_scan(struct conn *c, const struct plan *pl, struct part *pt)
{
	uint32_t s = c->parts[pl->part0], n = (uint32_t)srv.nshards;
	const char *q = pt->r + pt->at;
	struct resp_arg cur = kv_merge_next_bulk(&q);
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

void kv_merge_replies(struct conn *c, const struct plan *pl)
{
	struct part stack[64], *pt = stack;
	const char *err = NULL;
	size_t errlen = 0, len, j, total = 0;
	long long sum = 0;
	uint32_t p;

	/* the reply in the command's protocol, as its parts' are */
	c->out.resp3 = pl->resp3;
	if (pl->nparts > 64) { /* more shards than the stack array */
		pt = malloc(pl->nparts * sizeof(*pt));
		if (!pt) {
			c->out.failed = true;
			return;
		}
	}
	for (p = 0; p < pl->nparts; p++) {
		pt[p].r = kv_conn_next_reply(c, c->parts[pl->part0 + p],
					     &pt[p].len);
		if (!pt[p].r)
			goto out;
		pt[p].at = 0;
		if (!err && pt[p].r[0] == '-') {
			err = pt[p].r;
			errlen = pt[p].len;
		} else if (pt[p].r[0] == ':') {
			sum += strtoll(pt[p].r + 1, NULL, 10);
		} else if (pt[p].r[0] == '*' || pt[p].r[0] == '~') {
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
