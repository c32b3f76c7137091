/* SPDX-License-Identifier: MIT */
/*
 * kv_conn.c - a connection of the kv server (kv_conn.h has the whole
 * picture): the process, its buffers, the batch's requests to the shards
 * and their replies, and the writing of the replies to the client; the
 * replay of the append-only file runs the same code on the file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "kv_conn.h"

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
const char *kv_conn_next_reply(struct conn *c, uint32_t s, size_t *len)
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
	kv_plan_pack(o, cmd, false, argc, argv); /* a step's: read here */
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
bool kv_conn_step(struct conn *c, uint32_t s, const char *name, int argc,
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
			p = kv_conn_next_reply(c, pl->shard, &len);
			if (p)
				out_raw(&c->out, p, len);
		} else if (pl->kind == P_SPLIT) {
			kv_merge_replies(c, pl);
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
	if (c->cross && !c->out.failed && !kv_cross_run(c))
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
		if (n == -EAGAIN || n == -EWOULDBLOCK) {
			n = act_io_send_timeout(c->fd, c->out.p + at,
						c->out.len - at, MSG_NOSIGNAL,
						SEND_STALL_NS);
			/* a client that reads a big reply slowly is not idle
			 * (CONFIG SET timeout: redis's lastinteraction) */
			atomic_store_explicit(&c->client.last_ms, kv_now_ms(),
					      memory_order_relaxed);
		}
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
		st = kv_plan_batch(c);
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
