/* SPDX-License-Identifier: MIT */
/*
 * kv_aof.c - the append-only file's process: the only one that writes
 * the file, so that its records never interleave and one write and one
 * flush serve every shard at once.
 *
 * The shards send it what each batch changed (T_AOF: their records and
 * the batch's reply, handed over). It takes every message that waits in
 * its mailbox, writes all their records with one act_io_write on the
 * reactor, and only then sends the replies to their connections, as
 * redis writes before it answers: a crash of the server loses nothing it
 * acknowledged, whatever the policy. Then:
 *   always    it flushes (act_io_fsync) before it answers: nothing is
 *             acknowledged before it is on the device, and every batch
 *             that arrived during one flush shares the next (group
 *             commit);
 *   everysec  it flushes once a second, on its tick, if it wrote since:
 *             a crash of the machine loses at most the second or so
 *             since the last flush;
 *   no        it never flushes: the kernel writes back when it will.
 *
 * A rewrite (BGREWRITEAOF) makes a new file while the old one goes on
 * taking records: each shard walks its keys a chunk at a time between
 * its batches and sends the commands that rebuild them (T_RW_CHUNK, one
 * in flight each: the next waits for T_RW_ACK, so a slow disk slows the
 * walk, not memory); from the moment a shard says it began (T_RW_BEGIN,
 * in its own order of messages) its records also go to a tail kept here.
 * When every shard has ended, the tail follows the snapshot in the new
 * file, which is flushed and renamed over the old one; from then on
 * records go to it. db.h says why the snapshot and the tail together
 * hold every key exactly once (a key is put in the snapshot before the
 * first command of the tail that changes it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aof.h"
#include "kv_server.h"

struct held { /* always: a reply to send once its records are flushed */
	act_pid to;
	void *rep;
	size_t len;
};

static struct {
	int fd;
	uint64_t off;	 /* the file's size: the next record's offset */
	struct out pend; /* records not yet written */
	struct held *held;
	size_t nheld, capheld;
	bool dirty;	   /* written since the last flush */
	bool write_failed; /* logged once until a write succeeds again */
	/* a rewrite */
	bool rw, rw_failed;
	int rw_fd;
	uint64_t rw_off;
	char rw_path[4096 + 64];
	struct out tail;
	bool *begun; /* by shard */
	int ended;
	uint8_t epoch;
} a;

static void say(const char *fmt, const char *what, int err)
{
	fprintf(stderr, fmt, srv.aof_path, what, strerror(err));
}

/* All of p[0..n) at *off of fd, however many writes it takes. */
static int write_all(int fd, const char *p, size_t n, uint64_t *off)
{
	ssize_t w;

	while (n) {
		w = act_io_write(fd, p, n, (int64_t)*off);
		if (w == -EINTR)
			continue;
		if (w < 0)
			return (int)w;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
		*off += (uint64_t)w;
	}
	return 0;
}

static int flush_fd(int fd)
{
	int rc;

	do
		rc = act_io_fsync(fd, ACT_IO_FSYNC_DATASYNC);
	while (rc == -EINTR);
	return rc;
}

/* A write or flush that failed: with always, nothing more can be
 * promised, so the server stops (as redis exits); otherwise it is said
 * once, INFO says err, and the records wait for the next try. */
static bool failed(const char *what, int rc)
{
	atomic_store_explicit(&srv.aof_write_ok, 0, memory_order_relaxed);
	if (srv.aof_fsync == KV_FSYNC_ALWAYS) {
		say("kv_server: %s: %s: %s: the append-only file can no longer "
		    "keep what is acknowledged (appendfsync always): "
		    "stopping\n",
		    what, -rc);
		act_send(srv.main, T_FAILED, &rc, sizeof(rc));
		return false;
	}
	if (!a.write_failed)
		say("kv_server: %s: %s: %s: will try again\n", what, -rc);
	a.write_failed = true;
	return true;
}

/* Writes what is pending, flushes when the policy says now, and sends
 * the replies that waited for it. */
static void flush(bool tick)
{
	size_t i;
	int rc;

	if (a.pend.len) {
		rc = write_all(a.fd, a.pend.p, a.pend.len, &a.off);
		if (rc) {
			failed("write", rc);
			return;
		}
		a.write_failed = false;
		atomic_store_explicit(&srv.aof_write_ok, 1,
				      memory_order_relaxed);
		atomic_store_explicit(&srv.aof_size, a.off,
				      memory_order_relaxed);
		a.pend.len = 0;
		a.dirty = true;
		if (a.pend.cap > ((size_t)1 << 22))
			out_free(&a.pend); /* a burst's room back */
	}
	if (a.dirty && (srv.aof_fsync == KV_FSYNC_ALWAYS ||
			(tick && srv.aof_fsync == KV_FSYNC_EVERYSEC))) {
		rc = flush_fd(a.fd);
		if (rc && !failed("fsync", rc))
			return;
		a.dirty = rc != 0;
	}
	for (i = 0; i < a.nheld; i++) {
		struct handoff h = { a.held[i].rep, a.held[i].len };

		if (act_send(a.held[i].to, T_REP_PTR, &h, sizeof(h)))
			free(h.p); /* its connection is gone */
	}
	a.nheld = 0;
}

static void hold(act_pid to, void *rep, size_t len)
{
	struct held *h;
	size_t cap;

	if (a.nheld == a.capheld) {
		cap = a.capheld ? 2 * a.capheld : 64;
		h = realloc(a.held, cap * sizeof(*h));
		if (!h) { /* no memory to wait: answer now, durable or not */
			struct handoff ho = { rep, len };

			if (act_send(to, T_REP_PTR, &ho, sizeof(ho)))
				free(rep);
			return;
		}
		a.held = h;
		a.capheld = cap;
	}
	a.held[a.nheld++] = (struct held){ to, rep, len };
}

static void on_records(const struct kv_aof_msg *m)
{
	out_raw(&a.pend, m->log, m->loglen);
	if (a.rw && m->shard < (uint32_t)srv.nshards && a.begun[m->shard])
		out_raw(&a.tail, m->log, m->loglen);
	free(m->log);
	if (m->rep)
		hold(m->to, m->rep, m->replen);
}

/* ---- the rewrite ---------------------------------------------------------- */

static int rw_start(void)
{
	uint8_t epoch;
	int s;

	if (a.rw)
		return -EBUSY;
	snprintf(a.rw_path, sizeof(a.rw_path), "%s/temp-rewriteaof-%ld.aof",
		 srv.aof_dir, (long)getpid());
	a.rw_fd =
		open(a.rw_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (a.rw_fd < 0)
		return -errno;
	a.rw = true;
	a.rw_failed = false;
	a.rw_off = 0;
	a.ended = 0;
	a.tail.len = 0;
	memset(a.begun, 0, (size_t)srv.nshards * sizeof(*a.begun));
	if (write_all(a.rw_fd, AOF_HEADER, strlen(AOF_HEADER), &a.rw_off))
		a.rw_failed = true;
	/* a new mark for every key: none is in this snapshot yet */
	epoch = (uint8_t)(a.epoch + 1 ? a.epoch + 1 : 1);
	a.epoch = epoch;
	atomic_store_explicit(&srv.aof_rewriting, 1, memory_order_relaxed);
	for (s = 0; s < srv.nshards; s++)
		act_send(srv.shards[s], T_RW_START, &epoch, sizeof(epoch));
	return 0;
}

static void rw_chunk(const struct kv_aof_msg *m, act_pid from)
{
	int rc;

	if (a.rw && !a.rw_failed && m->loglen) {
		rc = write_all(a.rw_fd, m->log, m->loglen, &a.rw_off);
		if (rc) {
			say("kv_server: %s: rewrite: %s: %s: the old file "
			    "stays\n",
			    "write", -rc);
			a.rw_failed = true;
		}
	}
	free(m->log);
	act_send(from, T_RW_ACK, NULL, 0); /* the next chunk, please */
}

/* Every shard has ended: the tail after the snapshot, the new file
 * flushed and renamed over the old one, which records go to from now. */
static void rw_finish(void)
{
	uint64_t was = a.off;
	int rc = 0, dir;

	flush(false); /* the old file has what the tail has too */
	if (!a.rw_failed)
		rc = write_all(a.rw_fd, a.tail.p, a.tail.len, &a.rw_off);
	if (!a.rw_failed && !rc)
		rc = flush_fd(a.rw_fd);
	if (!a.rw_failed && !rc && rename(a.rw_path, srv.aof_path))
		rc = -errno;
	if (a.rw_failed || rc) {
		if (rc)
			say("kv_server: %s: rewrite: %s: %s: the old file "
			    "stays\n",
			    "finish", -rc);
		act_io_close(a.rw_fd);
		unlink(a.rw_path);
	} else {
		/* the rename itself made lasting: the directory flushed */
		dir = open(srv.aof_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir >= 0) {
			flush_fd(dir);
			close(dir);
		}
		act_io_close(a.fd);
		a.fd = a.rw_fd;
		a.off = a.rw_off;
		a.dirty = false;
		atomic_store_explicit(&srv.aof_size, a.off,
				      memory_order_relaxed);
		atomic_fetch_add_explicit(&srv.aof_rewrites, 1,
					  memory_order_relaxed);
		fprintf(stderr,
			"kv_server: %s rewritten: %llu bytes (%llu before)\n",
			srv.aof_path, (unsigned long long)a.off,
			(unsigned long long)was);
	}
	out_free(&a.tail);
	a.rw = false;
	atomic_store_explicit(&srv.aof_rewriting, 0, memory_order_relaxed);
}

/* ---- the process ---------------------------------------------------------- */

static void handle(struct act_msg *m, bool *tick)
{
	struct kv_aof_msg r;
	uint32_t s;
	int rc;

	if (m->len >= sizeof(r))
		memcpy(&r, m->data, sizeof(r));
	switch (m->tag) {
	case T_AOF:
		on_records(&r);
		break;
	case T_AOF_TICK:
		*tick = true;
		break;
	case T_BGREWRITE:
		rc = rw_start();
		act_send(m->from, T_BGREWRITE, &rc, sizeof(rc));
		break;
	case T_RW_BEGIN:
	case T_RW_END:
		memcpy(&s, m->data, sizeof(s));
		if (!a.rw || s >= (uint32_t)srv.nshards)
			break;
		if (m->tag == T_RW_BEGIN)
			a.begun[s] = true;
		else if (++a.ended == srv.nshards)
			rw_finish();
		break;
	case T_RW_CHUNK:
		rw_chunk(&r, m->from);
		break;
	case T_AOF_SYNC: /* the stop: everything so far made lasting */
		flush(true);
		if (a.dirty)
			flush_fd(a.fd);
		act_send(m->from, T_AOF_SYNC, NULL, 0);
		break;
	}
}

void kv_aof_proc(void *arg)
{
	struct act_msg *m;
	bool tick;

	(void)arg;
	a.fd = srv.aof_fd;
	a.off = srv.aof_start;
	a.begun = calloc((size_t)srv.nshards, sizeof(*a.begun));
	if (!a.begun) {
		int rc = -ENOMEM;

		act_send(srv.main, T_FAILED, &rc, sizeof(rc));
		return;
	}
	out_init(&a.pend);
	out_init(&a.tail);
	if (srv.aof_fsync == KV_FSYNC_EVERYSEC)
		act_send_interval(1000 * MS, act_self(), T_AOF_TICK, NULL, 0,
				  NULL);
	for (;;) {
		tick = false;
		m = act_receive(ACT_FOREVER);
		if (!m)
			continue;
		handle(m, &tick);
		act_msg_free(m);
		/* all that waits, in one write and one flush */
		while ((m = act_receive(0))) {
			handle(m, &tick);
			act_msg_free(m);
		}
		flush(tick);
	}
}
