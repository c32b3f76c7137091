/* SPDX-License-Identifier: MIT */
/*
 * kv_shard.c - a shard of the kv server: the only process that touches
 * its keys (cmd.h, db.h), so no lock anywhere. Each request message is a
 * batch of one connection's commands; the reply message holds their
 * replies. A 100 ms tick sweeps expired keys.
 */
#include <stdlib.h>
#include <string.h>

#include "aof.h"
#include "kv_server.h"

#define RW_CHUNK ((size_t)256 << 10) /* a rewrite's chunk of the snapshot */

struct shard {
	struct kv_db db;
	struct out rep;
	struct out log;	 /* this batch's records: db.log, when the file is on */
	struct out snap; /* a rewrite's next chunk: db.snap while it walks */
	size_t rw_cursor;
	uint32_t index;
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
 * The keys of a write command put into a rewrite's snapshot first, if
 * they are not there yet (db.h): the snapshot then holds them as they
 * were before this command, which the tail logs.
 */
static void touch_keys(struct shard *s, const struct kv_cmd *c, int argc)
{
	int last = c->last_key ? c->last_key : argc - 1, i;
	struct kv_entry *e;
	long long n;

	if (!c->first_key)
		return;
	if ((c->flags & KV_NUMKEYS) &&
	    resp_string2ll(s->argv[1].p, s->argv[1].len, &n) && n > 0 &&
	    n < argc - 1)
		last = 1 + (int)n;
	for (i = c->first_key; i <= last && i < argc;
	     i += c->key_step ? c->key_step : argc) {
		e = dict_find(&s->db.keys, s->argv[i].p, s->argv[i].len,
			      (uint32_t)kv_hash(s->argv[i].p, s->argv[i].len));
		if (e)
			db_touch(&s->db, e);
	}
}

/* One command of a batch, and its record when the file is on and it
 * logged none of its own (db.h). */
static void run(struct shard *s, const struct kv_cmd *c, int argc)
{
	bool write = c->flags & KV_WRITE;

	if (write && s->db.snap)
		touch_keys(s, c, argc);
	s->db.logged = false;
	kv_cmd_run(c, &s->db, NULL, argc, s->argv, &s->rep);
	if (write && s->db.log && !s->db.logged)
		aof_cmd(&s->log, argc, s->argv);
}

/* The batch's records to the append-only file's process, handed over,
 * with the batch's reply (to: its connection) for it to send once the
 * records are written (flushed too, with always): true then, the reply
 * is the aof process's. */
static bool send_log(struct shard *s, const act_pid *to)
{
	struct kv_aof_msg m = { .shard = s->index };
	bool with_reply = to != NULL;

	if (!s->log.len)
		return false;
	m.log = s->log.p;
	m.loglen = s->log.len;
	if (with_reply) {
		m.rep = s->rep.p;
		m.replen = s->rep.len;
		m.to = *to;
	}
	if (act_send(srv.aof, T_AOF, &m, sizeof(m))) {
		s->log.len = 0; /* no aof process: the records are lost */
		return false;
	}
	out_init(&s->log);
	if (with_reply)
		out_init(&s->rep);
	return with_reply;
}

/* A rewrite's walk: one chunk of this shard's keys not yet in the
 * snapshot (db.h), then the next when the aof process acks it. */
static void rw_one(struct kv_entry *e, void *ctx)
{
	struct shard *s = ctx;

	if (e->mark == s->db.epoch)
		return;
	e->mark = s->db.epoch;
	if (!e->expire_ms || e->expire_ms > kv_now_ms()) /* gone: no need */
		aof_emit(&s->snap, e, kv_key(e), e->klen);
}

static void rw_step(struct shard *s)
{
	struct kv_aof_msg m = { .shard = s->index };

	do
		s->rw_cursor =
			dict_scan_rb(&s->db.keys, s->rw_cursor, rw_one, s);
	while (s->rw_cursor && s->snap.len < RW_CHUNK && !s->snap.failed);
	m.log = s->snap.p;
	m.loglen = s->snap.failed ? 0 : s->snap.len;
	if (act_send(srv.aof, T_RW_CHUNK, &m, sizeof(m)) == 0)
		out_init(&s->snap);
	else
		s->snap.len = 0;
	if (!s->rw_cursor) { /* every key is in it: the walk is over */
		s->db.snap = NULL;
		act_send(srv.aof, T_RW_END, &s->index, sizeof(s->index));
	}
}

static void rw_start(struct shard *s, uint8_t epoch)
{
	s->db.epoch = epoch;
	s->db.snap = &s->snap;
	s->rw_cursor = 0;
	send_log(s, NULL); /* what came before is not the tail's */
	act_send(srv.aof, T_RW_BEGIN, &s->index, sizeof(s->index));
	rw_step(s);
}

/*
 * Runs a batch: [seq][shard][n] then n times [cmd][argc][len x argc]
 * [bytes], cmd the command's index in the table with KV_REQ_RESP3 for a
 * reply in RESP3. Replies: [seq][shard][k] then k times [len][reply]: k is n,
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
		s->rep.resp3 = cmd & KV_REQ_RESP3;
		cmd &= ~KV_REQ_RESP3;
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
		run(s, &table[cmd], (int)argc);
		rlen = (uint32_t)(s->rep.len - mark - 4);
		if (!s->rep.failed)
			memcpy(s->rep.p + mark, &rlen, 4);
	}
	if (s->rep.failed) {
		char head[12];

		memcpy(head, p, 8);
		memcpy(head + 8, &fail, 4);
		out_free(&s->rep);
		send_log(s, NULL);
		act_send(from, T_REP, head, sizeof(head));
		return;
	}
	memcpy(s->rep.p + 8, &i, 4); /* the replies: all, or up to the limit */
	if (!send_log(s, &from))
		kv_send_out(from, T_REP, &s->rep);
}

static void shard_sweep(struct shard *s)
{
	int64_t t0 = util_now_ns();
	size_t gone;

	/* again while a quarter or more of what it saw was expired, 1 ms
	 * at most (redis's active expiry does the same at 10 Hz) */
	do
		gone = db_sweep(&s->db, SWEEP_BUCKETS);
	while (gone >= SWEEP_BUCKETS / 4 && util_now_ns() - t0 < MS);
	send_log(s, NULL); /* the DELs of what expired */
}

/* The server stops: the keys and buffers go, and the shard with them
 * (main waits for its DOWN, so nothing is left to the runtime's end). */
static __attribute__((noreturn)) void shard_stop(struct shard *s)
{
	db_flush(&s->db);
	out_free(&s->rep);
	out_free(&s->log);
	out_free(&s->snap);
	free(s->argv);
	act_exit(ACT_EXIT_NORMAL);
}

void kv_shard_proc(void *arg)
{
	struct shard s;
	struct act_msg *m;
	const char *p;
	void *owned;
	size_t len;

	memset(&s, 0, sizeof(s));
	s.index = (uint32_t)(uintptr_t)arg;
	db_init(&s.db);
	out_init(&s.rep);
	out_init(&s.log);
	out_init(&s.snap);
	act_send_interval(TICK_NS, act_self(), T_TICK, NULL, 0, NULL);
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (!m)
			continue;
		if (m->tag == T_STOP) {
			act_msg_free(m);
			shard_stop(&s);
		} else if (m->tag == T_TICK) {
			shard_sweep(&s);
		} else if (m->tag == T_REQ || m->tag == T_REQ_PTR) {
			p = kv_payload(m, &len, &owned);
			shard_batch(&s, p, len, m->from);
			free(owned);
		} else if (m->tag == T_LOADING && m->len == sizeof(int)) {
			int on;

			memcpy(&on, m->data, sizeof(on));
			s.db.loading = on;
			/* logged from the end of the replay on */
			s.db.log = !on && srv.aof_fd >= 0 ? &s.log : NULL;
		} else if (m->tag == T_RW_START && m->len == 1) {
			rw_start(&s, *(const uint8_t *)m->data);
		} else if (m->tag == T_RW_ACK && s.db.snap) {
			rw_step(&s);
		}
		act_msg_free(m);
	}
}
