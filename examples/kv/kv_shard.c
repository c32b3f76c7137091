/* SPDX-License-Identifier: MIT */
/*
 * kv_shard.c - a shard of the kv server: the only process that touches
 * its keys (cmd.h, db.h), so no lock anywhere. Each request message is a
 * batch of one connection's commands; the reply message holds their
 * replies. A 100 ms tick sweeps expired keys.
 */
#include <stdlib.h>
#include <string.h>

#include "kv_server.h"

struct shard {
	struct kv_db db;
	struct out rep;
	struct resp_arg *argv;
	uint32_t cap;
};

static bool shard_args(struct shard *s, uint32_t argc)
{
	struct resp_arg *v;

	if (argc <= s->cap)
		return true;
	v = realloc(s->argv, argc * sizeof(*v));
	if (!v)
		return false;
	s->argv = v;
	s->cap = argc;
	return true;
}

/*
 * Runs a batch: [seq][shard][n] then n times [cmd][argc][len x argc]
 * [bytes]. Replies: [seq][shard][k] then k times [len][reply]: k is n,
 * or fewer when the replies passed REPLY_SOFT (the connection asks for
 * the rest once it has written these: a stream of GETs of a big value
 * is answered a megabyte or so at a time), or KV_BATCH_FAILED when there
 * was no memory for them (the client is then closed: it cannot have its
 * replies).
 */

static void shard_batch(struct shard *s, const char *p, size_t len,
			act_pid from)
{
	const struct kv_cmd *table;
	size_t ntable, at = 12, mark, data;
	uint32_t n, i, k, cmd, argc, rlen, fail = KV_BATCH_FAILED;

	s->rep.len = 0;
	s->rep.failed = false;
	table = kv_cmd_table(&ntable);
	n = get32(p + 8);
	out_raw(&s->rep, p, 12);
	for (i = 0; i < n && !s->rep.failed; i++) {
		if (s->rep.len > REPLY_SOFT)
			break; /* the rest is asked for again (run_batch) */
		cmd = get32(p + at);
		argc = get32(p + at + 4);
		at += 8;
		if (cmd >= ntable || at + 4 * (size_t)argc > len ||
		    !shard_args(s, argc)) {
			s->rep.failed = true;
			break;
		}
		data = at + 4 * (size_t)argc;
		for (k = 0; k < argc; k++) {
			s->argv[k].len = get32(p + at + 4 * k);
			s->argv[k].p = p + data;
			data += s->argv[k].len;
		}
		at = data;
		mark = s->rep.len;
		put32(&s->rep, 0);
		kv_cmd_run(&table[cmd], &s->db, NULL, (int)argc, s->argv,
			   &s->rep);
		rlen = (uint32_t)(s->rep.len - mark - 4);
		if (!s->rep.failed)
			memcpy(s->rep.p + mark, &rlen, 4);
	}
	if (s->rep.failed) {
		char head[12];

		memcpy(head, p, 8);
		memcpy(head + 8, &fail, 4);
		out_free(&s->rep);
		act_send(from, T_REP, head, sizeof(head));
		return;
	}
	memcpy(s->rep.p + 8, &i, 4); /* the replies: all, or up to the limit */
	kv_send_out(from, T_REP, &s->rep);
}

static void shard_sweep(struct shard *s)
{
	int64_t t0 = now_ns();
	size_t gone;

	/* again while a quarter or more of what it saw was expired, 1 ms
	 * at most (redis's active expiry does the same at 10 Hz) */
	do
		gone = db_sweep(&s->db, SWEEP_BUCKETS);
	while (gone >= SWEEP_BUCKETS / 4 && now_ns() - t0 < MS);
}

void kv_shard_proc(void *arg)
{
	struct shard s;
	struct act_msg *m;
	const char *p;
	void *owned;
	size_t len;

	(void)arg;
	memset(&s, 0, sizeof(s));
	db_init(&s.db);
	out_init(&s.rep);
	act_send_interval(TICK_NS, act_self(), T_TICK, NULL, 0, NULL);
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (!m)
			continue;
		if (m->tag == T_TICK) {
			shard_sweep(&s);
		} else if (m->tag == T_REQ || m->tag == T_REQ_PTR) {
			p = kv_payload(m, &len, &owned);
			shard_batch(&s, p, len, m->from);
			free(owned);
		}
		act_msg_free(m);
	}
}
