/* SPDX-License-Identifier: MIT */
/*
 * fanin.c - many senders, one receiver, across workers: every message
 * arrives once, in its sender's order (I7), intact.
 *
 * S senders each send M DATA messages to one receiver, then END. A DATA
 * payload is { sender, seq } plus 0-48 fill bytes (by the sender's PRNG)
 * whose pattern depends on both, so a torn or misrouted copy shows.
 * Flow control keeps memory bounded: the receiver ACKs every --window
 * messages of a sender, and a sender waits for an ACK once it is two
 * windows ahead (so senders park and wake too). With --window 0 there is
 * none, and the runtime's backpressure (senders muted while the receiver
 * has a backlog) is what bounds the mailbox. The receiver checks, per
 * sender, that seq runs 0, 1, 2, ... and, at END, that all M came.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	FI_DATA = 1,
	FI_END,
	FI_ACK,
	FI_DONE,
};

#define FILL_MAX 48

struct payload {
	uint32_t sender;
	uint32_t rsvd;
	uint64_t seq; /* DATA: its number; END: how many were sent */
	uint8_t fill[FILL_MAX];
};

#define HDR_LEN offsetof(struct payload, fill)

/* The receiver's view of one sender. */
struct from {
	act_pid pid;   /* who sent seq 0 */
	uint64_t next; /* seq expected next */
	bool ended;
};

static long n_senders = 8, window = 1024;

static const struct st_flag flags[] = {
	{ "senders", &n_senders, 1, 100000, "senders" },
	{ "window", &window, 0, 1L << 30,
	  "messages a sender may run ahead per ACK (0: no limit)" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "fanin",
	.iters_name = "messages",
	.iters_help = "messages per sender",
	.workers = 4,
	.iters = 250000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	act_pid main, receiver;
	struct from *from; /* receiver only */
	_Atomic uint64_t sent, received;
	_Atomic uint64_t lost, dups, order, corrupt, errors;
} fi;

static uint8_t fill_byte(uint32_t sender, uint64_t seq, unsigned i)
{
	return (uint8_t)(seq * 131 + sender * 7 + i);
}

/* ---- senders ------------------------------------------------------------- */

static void send_or_count(act_pid to, uint32_t tag, const void *p, size_t len)
{
	int rc = act_send(to, tag, p, len);

	if (rc < 0)
		st_report(&fi.errors, "act_send tag %u: %s", tag,
			  strerror(-rc));
}

/* Waits for one ACK from the receiver (other tags are errors). */
static void wait_ack(void)
{
	struct act_msg *m = act_receive(ACT_FOREVER);

	if (!m || m->tag != FI_ACK)
		st_report(&fi.errors, "a sender got tag %u, not ACK",
			  m ? m->tag : 0);
	act_msg_free(m);
}

static void send_one(struct st_rng *rng, uint32_t sender, uint64_t seq)
{
	struct payload p = { .sender = sender, .seq = seq };
	unsigned n = st_rng_below(rng, FILL_MAX + 1), i;

	for (i = 0; i < n; i++)
		p.fill[i] = fill_byte(sender, seq, i);
	send_or_count(fi.receiver, FI_DATA, &p, HDR_LEN + n);
	st_add(&fi.sent, 1);
	if (st_rng_below(rng, 128) == 0)
		act_yield();
}

static void sender(void *arg)
{
	uint32_t me = (uint32_t)(uintptr_t)arg;
	struct payload end = { .sender = me, .seq = (uint64_t)args.iters };
	uint64_t seq, acks = 0, acks_due = window ? end.seq / window : 0;
	struct st_rng rng;

	st_rng_init(&rng, args.seed, me);
	for (seq = 0; seq < end.seq; seq++) {
		send_one(&rng, me, seq);
		if (window && (seq + 1) % window == 0 &&
		    seq + 1 >= 2 * (uint64_t)window) {
			wait_ack();
			acks++;
		}
	}
	for (; acks < acks_due; acks++) /* so no ACK finds us gone */
		wait_ack();
	send_or_count(fi.receiver, FI_END, &end, HDR_LEN);
}

/* ---- the receiver -------------------------------------------------------- */

static bool fill_ok(const struct payload *p, size_t len)
{
	size_t i;

	for (i = 0; i < len - HDR_LEN; i++)
		if (p->fill[i] != fill_byte(p->sender, p->seq, (unsigned)i))
			return false;
	return true;
}

/* The sender a message claims, checked against its pid; NULL if bad. */
static struct from *from_of(const struct act_msg *m, struct payload *p)
{
	struct from *f;

	if (m->len < HDR_LEN || m->len > sizeof(*p))
		return NULL;
	memcpy(p, m->data, m->len);
	if (p->sender >= (uint64_t)n_senders)
		return NULL;
	f = &fi.from[p->sender];
	if (!f->pid.id)
		f->pid = m->from;
	return act_pid_eq(f->pid, m->from) ? f : NULL;
}

static void take_data(const struct act_msg *m, struct from *f,
		      const struct payload *p)
{
	st_add(&fi.received, 1);
	if (!fill_ok(p, m->len))
		st_report(&fi.corrupt, "sender %u seq %" PRIu64 ": bad fill",
			  p->sender, p->seq);
	if (p->seq < f->next) {
		st_report(&fi.dups,
			  "sender %u: seq %" PRIu64 " again (next %" PRIu64 ")",
			  p->sender, p->seq, f->next);
		return;
	}
	if (p->seq > f->next)
		st_report(&fi.order,
			  "sender %u: seq %" PRIu64 " while %" PRIu64
			  " was due",
			  p->sender, p->seq, f->next);
	f->next = p->seq + 1;
	if (window && f->next % window == 0)
		send_or_count(m->from, FI_ACK, NULL, 0);
}

static void take_end(struct from *f, const struct payload *p)
{
	if (f->ended)
		st_report(&fi.dups, "sender %u: END again", p->sender);
	f->ended = true;
	if (f->next != p->seq)
		st_report(&fi.lost,
			  "sender %u: END after %" PRIu64 " of %" PRIu64
			  " messages",
			  p->sender, f->next, p->seq);
	if (p->seq > f->next) /* the first counted one, plus the rest */
		st_add(&fi.lost, p->seq - f->next - 1);
}

/* One message; true when it was a sender's END. */
static bool take(const struct act_msg *m)
{
	struct payload p;
	struct from *f = from_of(m, &p);

	if (!f || (m->tag != FI_DATA && m->tag != FI_END)) {
		st_report(&fi.corrupt,
			  "a message with tag %u, %zu bytes, "
			  "from a stranger or of a bad shape",
			  m->tag, m->len);
		return false;
	}
	if (m->tag == FI_END) {
		take_end(f, &p);
		return true;
	}
	take_data(m, f, &p);
	return false;
}

static void receiver(void *arg)
{
	struct act_msg *m;
	long ends = 0;

	(void)arg;
	while (ends < n_senders) {
		m = act_receive(ACT_FOREVER);
		if (m)
			ends += take(m);
		act_msg_free(m);
	}
	act_send(fi.main, FI_DONE, NULL, 0);
}

/* ---- the main process ---------------------------------------------------- */

static void fi_main(void *arg)
{
	struct act_msg *m;
	long i;

	(void)arg;
	fi.main = act_self();
	fi.receiver = act_spawn(receiver, NULL);
	if (!fi.receiver.id) {
		st_report(&fi.errors, "act_spawn failed (receiver)");
		return;
	}
	for (i = 0; i < n_senders; i++)
		if (!act_spawn(sender, (void *)(uintptr_t)i).id)
			st_report(&fi.errors, "act_spawn failed (sender %ld)",
				  i);
	if (st_get(&fi.errors))
		return; /* the receiver waits for the ENDs of all */
	m = act_receive(ACT_FOREVER);
	if (!m || m->tag != FI_DONE)
		st_report(&fi.errors, "main: tag %u, not DONE", m ? m->tag : 0);
	act_msg_free(m);
}

/* ---- watchdog and result ------------------------------------------------- */

static uint64_t fi_progress(void)
{
	return st_get(&fi.sent) + st_get(&fi.received);
}

static void fi_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "sent %" PRIu64 ", received %" PRIu64 ", lost %" PRIu64
		 ", duplicated %" PRIu64 ", out-of-order %" PRIu64
		 ", corrupt %" PRIu64 ", errors %" PRIu64,
		 st_get(&fi.sent), st_get(&fi.received), st_get(&fi.lost),
		 st_get(&fi.dups), st_get(&fi.order), st_get(&fi.corrupt),
		 st_get(&fi.errors));
}

/* What is wrong so far; the watchdog's progress reports read it too. */
static uint64_t fi_violations(void)
{
	return st_get(&fi.lost) + st_get(&fi.dups) + st_get(&fi.order) +
	       st_get(&fi.corrupt) + st_get(&fi.errors);
}

static uint64_t violations(void)
{
	uint64_t want = (uint64_t)n_senders * (uint64_t)args.iters;

	if (st_get(&fi.sent) != want || st_get(&fi.received) != want)
		st_report(&fi.errors,
			  "sent %" PRIu64 ", received %" PRIu64
			  ", want %" PRIu64 " each",
			  st_get(&fi.sent), st_get(&fi.received), want);
	return fi_violations();
}

int st_main_fanin(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = fi_figures,
		.progress = fi_progress,
		.violations = fi_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	fi.from = calloc((size_t)n_senders, sizeof(*fi.from));
	if (!fi.from) {
		fputs("fanin: out of memory\n", stderr);
		return ST_EXIT_FAIL;
	}
	rc = st_run(&w, fi_main, NULL);
	rc = st_finish(&w, rc, violations());
	free(fi.from);
	return rc;
}
