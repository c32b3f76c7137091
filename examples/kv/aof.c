/* SPDX-License-Identifier: MIT */
/* aof.c - the append-only file's records, rebuilds and load scan (aof.h). */
#include "aof.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

#define BATCH 64 /* items a rebuilding command carries */

static void head(struct out *o, char c, size_t n)
{
	char buf[24];

	buf[0] = c;
	out_raw(o, buf, 1 + out_lltoa(buf + 1, (long long)n));
	out_raw(o, "\r\n", 2);
}

static void arg(struct out *o, const void *p, size_t n)
{
	head(o, '$', n);
	out_raw(o, p, n);
	out_raw(o, "\r\n", 2);
}

void aof_cmd(struct out *o, int argc, const struct resp_arg *argv)
{
	int i;

	head(o, '*', (size_t)argc);
	for (i = 0; i < argc; i++)
		arg(o, argv[i].p, argv[i].len);
}

void aof_strs(struct out *o, int argc, const char *const *words,
	      const size_t *lens)
{
	int i;

	head(o, '*', (size_t)argc);
	for (i = 0; i < argc; i++)
		arg(o, words[i], lens ? lens[i] : strlen(words[i]));
}

/*
 * A rebuilding command in progress: its name and key written, its items
 * counted, its header (which needs the count) put in front when it is
 * closed. Items go straight into o, so a list of a million items is
 * written once.
 */
struct rebuild {
	struct out *o;
	const char *name, *k;
	size_t klen, mark, items, per; /* per: arguments an item takes */
};

static void rb_open(struct rebuild *rb)
{
	rb->mark = rb->o->len;
	arg(rb->o, rb->name, strlen(rb->name));
	arg(rb->o, rb->k, rb->klen);
	rb->items = 0;
}

static void rb_close(struct rebuild *rb)
{
	char buf[24];
	size_t n;

	if (!rb->items) {
		rb->o->len = rb->mark; /* nothing in it: no command */
		return;
	}
	buf[0] = '*';
	n = 1 + out_lltoa(buf + 1, (long long)(2 + rb->items * rb->per));
	buf[n++] = '\r';
	buf[n++] = '\n';
	if (!out_room(rb->o, n))
		return;
	memmove(rb->o->p + rb->mark + n, rb->o->p + rb->mark,
		rb->o->len - rb->mark);
	memcpy(rb->o->p + rb->mark, buf, n);
	rb->o->len += n;
}

/* One more item done: a new command after BATCH of them. */
static void rb_item(struct rebuild *rb)
{
	if (++rb->items < BATCH)
		return;
	rb_close(rb);
	rb_open(rb);
}

static void emit_list(struct rebuild *rb, struct kv_list *l)
{
	size_t i;

	rb->name = "RPUSH";
	rb->per = 1;
	rb_open(rb);
	for (i = 0; i < l->n; i++) {
		arg(rb->o, list_at(l, i)->p, list_at(l, i)->len);
		rb_item(rb);
	}
	rb_close(rb);
}

static void hash_pair(const char *f, size_t fn, const char *v, size_t vn,
		      void *ctx)
{
	struct rebuild *rb = ctx;

	arg(rb->o, f, fn);
	arg(rb->o, v, vn);
	rb_item(rb);
}

static void zset_member(const char *m, size_t n, double score, void *ctx)
{
	struct rebuild *rb = ctx;
	char buf[32];
	int len;

	/* %.17g gives the double back exactly; inf as redis spells it */
	if (isinf(score))
		len = snprintf(buf, sizeof(buf), "%s",
			       score > 0 ? "inf" : "-inf");
	else
		len = snprintf(buf, sizeof(buf), "%.17g", score);
	arg(rb->o, buf, (size_t)len);
	arg(rb->o, m, n);
	rb_item(rb);
}

static void emit_set(struct rebuild *rb, struct kv_set *s)
{
	struct kv_set_iter it;
	struct kv_member m;

	rb->name = "SADD";
	rb->per = 1;
	rb_open(rb);
	set_iter_init(&it, s);
	while (set_next(&it, &m)) {
		arg(rb->o, m.p, m.n);
		rb_item(rb);
	}
	rb_close(rb);
}

static size_t sid_text(char *buf, size_t room, struct kv_sid id)
{
	return (size_t)snprintf(buf, room, "%llu-%llu",
				(unsigned long long)id.ms,
				(unsigned long long)id.seq);
}

/* A stream: each entry an XADD with its own ID, then XSETID for the last
 * ID (above the last entry once it was deleted); an empty stream is made
 * by an XADD trimmed to nothing, as redis's rewrite does. */
static void emit_stream(struct out *o, struct kv_stream *s, const char *k,
			size_t klen)
{
	const struct kv_sid lo = { 0, 0 }, hi = { UINT64_MAX, UINT64_MAX };
	const char *w[4] = { "XADD", k, NULL, NULL };
	size_t l[4] = { 4, klen, 0, 0 }, n, fn;
	struct kv_stream_iter it;
	const struct kv_sentry *e;
	const unsigned char *at;
	const char *f;
	char id[48];
	uint32_t i;

	if (!stream_len(s)) {
		const char *z[7] = { "XADD", k, "MAXLEN", "0", id, "x", "y" };
		size_t zl[7] = { 4, klen, 6, 1, 0, 1, 1 };

		zl[4] = sid_text(id, sizeof(id), stream_last_id(s));
		aof_strs(o, 7, z, zl);
	}
	stream_iter_init(&it, s, lo, hi, false);
	while ((e = stream_next(&it))) {
		head(o, '*', 3 + 2 * (size_t)e->nf);
		arg(o, "XADD", 4);
		arg(o, k, klen);
		n = sid_text(id, sizeof(id), e->id);
		arg(o, id, n);
		at = e->data;
		for (i = 0; i < 2 * e->nf; i++) {
			f = sentry_item(&at, &fn);
			arg(o, f, fn);
		}
	}
	w[0] = "XSETID";
	l[0] = 6;
	w[2] = id;
	l[2] = sid_text(id, sizeof(id), stream_last_id(s));
	aof_strs(o, 3, w, l);
}

void aof_emit(struct out *o, struct kv_entry *e, const char *k, size_t klen)
{
	struct rebuild rb = { o, NULL, k, klen, 0, 0, 1 };
	const char *w[3] = { "SET", k, kv_val(e) };
	size_t l[3] = { 3, klen, e->vlen };
	char ms[24];

	switch ((enum kv_type)e->type) {
	case KV_STRING:
		aof_strs(o, 3, w, l);
		break;
	case KV_LIST:
		emit_list(&rb, db_list(e));
		break;
	case KV_HASH:
		rb.name = "HSET";
		rb.per = 2;
		rb_open(&rb);
		hash_each(db_hash(e), hash_pair, &rb);
		rb_close(&rb);
		break;
	case KV_SET:
		emit_set(&rb, db_set(e));
		break;
	case KV_ZSET:
		rb.name = "ZADD";
		rb.per = 2;
		rb_open(&rb);
		if (zset_len(db_zset(e)))
			zset_walk(db_zset(e), 0, zset_len(db_zset(e)), false,
				  zset_member, &rb);
		rb_close(&rb);
		break;
	case KV_STREAM:
		emit_stream(o, db_stream(e), k, klen);
		break;
	}
	if (e->expire_ms) {
		w[0] = "PEXPIREAT";
		l[0] = 9;
		w[2] = ms;
		l[2] = out_lltoa(ms, e->expire_ms);
		aof_strs(o, 3, w, l);
	}
}

enum aof_state aof_scan(int fd, uint64_t *good, uint64_t *commands, char *error,
			size_t errlen)
{
	struct resp_parser ps;
	size_t cap = 1 << 20, have = 0, pos;
	uint64_t base = 0;
	enum resp_status st = RESP_MORE;
	enum aof_state res = AOF_WHOLE;
	char *buf = malloc(cap), *p;
	ssize_t n;

	*good = *commands = 0;
	if (!buf) {
		snprintf(error, errlen, "no memory to read it");
		return AOF_CORRUPT;
	}
	resp_init(&ps, RESP_MAX_BULK_DEFAULT * 2);
	for (;;) {
		if (have == cap || ps.need > cap) { /* a command this long */
			cap = ps.need > 2 * cap ? ps.need : 2 * cap;
			p = realloc(buf, cap);
			if (!p) {
				snprintf(error, errlen, "no memory to read it");
				res = AOF_CORRUPT;
				break;
			}
			buf = p;
		}
		n = pread(fd, buf + have, cap - have, (off_t)(base + have));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(error, errlen, "read: %s", strerror(errno));
			res = AOF_CORRUPT;
			break;
		}
		have += (size_t)n;
		pos = 0;
		/* records are multibulk: anything else is not redis's AOF */
		while ((have == pos || buf[pos] == '*') &&
		       (st = resp_parse(&ps, buf + pos, have - pos)) ==
			       RESP_CMD) {
			pos += ps.used;
			(*commands)++;
		}
		if (have > pos && buf[pos] != '*' && ps.form == 0) {
			snprintf(error, errlen,
				 "a record that is not a "
				 "multibulk command");
			*good = base + pos;
			res = AOF_CORRUPT;
			break;
		}
		/* the whole commands consumed; the rest kept for more */
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		base += pos;
		*good = base;
		if (st == RESP_ERROR || st == RESP_NOMEM) {
			snprintf(error, errlen, "%s",
				 st == RESP_NOMEM ? "no memory" : ps.error);
			res = AOF_CORRUPT;
			break;
		}
		if (n == 0) { /* the end: a command begun is a cut one */
			res = have ? AOF_TRUNCATED : AOF_WHOLE;
			break;
		}
	}
	resp_free(&ps);
	free(buf);
	return res;
}
