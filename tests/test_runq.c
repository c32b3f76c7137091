/* SPDX-License-Identifier: MIT */
/*
 * test_runq.c - a worker's runnable queue (lib/sched/runq.h).
 *
 * First the queue alone, on zeroed RUNNABLE process slots and no runtime:
 * - the private half: lifo newest first, fifo oldest first;
 * - remote pushes land in `in` and are spliced newest first onto the lifo
 *   top at the next pop, also while other threads keep pushing;
 * - publish: half the surplus (at most ACT_STEAL_MAX), oldest first, at
 *   least one process kept; due (act__runq_should_publish) once a thief
 *   marked the queue hungry, and then done by the owner before its next
 *   pop, as the worker loop does;
 * - steal: half of out + in (at most ACT_STEAL_MAX), oldest first, owner
 *   moved to the thief, `queued` left set (I1); a failed steal marks the
 *   victim hungry, and the private half is never taken;
 * - the pop order lifo > out > fifo, and the fairness pops: every 61st pop
 *   serves fifo and `out` (oldest) in turn, every 976th the lifo bottom;
 * - duplicate enqueues (I1), and an owner that pushes and pops while two
 *   threads steal: every process comes out exactly once.
 * Then through a runtime on one worker: yield round-robin, forced yields
 * after the reduction budget, and that no runnable process starves behind
 * a pair of processes that keep waking each other. These are properties
 * of one worker's queue, so those tests say tu_with_workers(1) whatever the
 * machine: on more workers the processes run side by side, and what they
 * check (every yielder in every window of one log, a turn of `other`
 * between two calls of busy, a victim behind a ping-pong) means nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "testrt.h"

#include "sched/runq.h"
#include "node/runtime.h"
#include "sched/worker.h"

#define FAIR_EVERY 61
#define LIFO_BOTTOM_EVERY 16 /* fairness pops between lifo-bottom pops */
#define NPROCS 2048

static struct act__proc procs[NPROCS];
static struct act__runq q;
/* Thieves: their queues, and workers of which only the address is used
 * (act__runq_steal stores it as the owner). */
static struct act__runq tq[2];
static struct act__worker thief[2];

static void setup_q(bool stealable)
{
	memset(procs, 0, sizeof(procs));
	for (int i = 0; i < NPROCS; i++) {
		procs[i].index = (uint32_t)i;
		/* a queued process is RUNNABLE; debug builds check it at
		 * every steal */
		atomic_store(&procs[i].state, act__ps_make(0, ACT_PS_RUNNABLE));
	}
	act__runq_init(&q, stealable);
	act__runq_init(&tq[0], false);
	act__runq_init(&tq[1], false);
}

static void setup(void)
{
	setup_q(false);
}

static int idx(struct act__proc *p)
{
	ck_assert_ptr_nonnull(p);
	return (int)(p - procs);
}

static void push_lifo(struct act__runq *rq, int i)
{
	act__runq_push_lifo(rq, &procs[i]);
}

static void push_fifo(struct act__runq *rq, int i)
{
	act__runq_push_fifo(rq, &procs[i]);
}

static void push_remote(struct act__runq *rq, int i)
{
	act__runq_push_remote(rq, &procs[i]);
}

/* The owner's turn as the worker loop takes it: publish if a thief
 * asked, then pop. */
static struct act__proc *owner_pop(struct act__runq *rq)
{
	if (act__runq_should_publish(rq))
		ck_assert_uint_gt(act__runq_publish(rq), 0);
	return act__runq_pop(rq);
}

/* The next pop of rq returns procs[i]. */
static void pop_is(struct act__runq *rq, int i)
{
	ck_assert_int_eq(idx(act__runq_pop(rq)), i);
}

/* The next pops of rq return from, from +/- 1, ..., to. */
static void pops_are(struct act__runq *rq, int from, int to)
{
	int step = from <= to ? 1 : -1, i;

	for (i = from; i != to + step; i += step)
		pop_is(rq, i);
}

/* l holds exactly want[0..n) from bottom (oldest) to top, linked both
 * ways. */
static void list_is(const struct act__plist *l, const int *want, int n)
{
	struct act__proc *p;
	int k = 0;

	for (p = l->bottom; p; p = p->rq_prev) {
		ck_assert_int_lt(k, n);
		ck_assert_int_eq(idx(p), want[k]);
		k++;
	}
	ck_assert_int_eq(k, n);
	for (p = l->top; p; p = p->rq_next)
		ck_assert_int_eq(idx(p), want[--k]);
	ck_assert_int_eq(k, 0);
	ck_assert(n ? l->top && l->bottom : !l->top && !l->bottom);
}

static uint32_t n_in(struct act__runq *rq)
{
	return atomic_load(&rq->n_in);
}

static uint32_t n_out(struct act__runq *rq)
{
	return atomic_load(&rq->n_out);
}

/* --- the private half ----------------------------------------------------- */

START_TEST(test_empty_pop)
{
	setup();
	ck_assert(!act__runq_maybe_nonempty(&q));
	ck_assert(!act__runq_shared_nonempty(&q));
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq((q.nlifo + q.nfifo), 0);
}
END_TEST

START_TEST(test_lifo_newest_first)
{
	int i;

	setup();
	for (i = 0; i < 10; i++) {
		act__runq_push_lifo(&q, &procs[i]);
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	}
	ck_assert_uint_eq((q.nlifo + q.nfifo), 10);
	ck_assert(act__runq_maybe_nonempty(&q));
	ck_assert(!act__runq_shared_nonempty(&q)); /* private */
	for (i = 9; i >= 0; i--) {
		struct act__proc *p = act__runq_pop(&q);

		ck_assert_int_eq(idx(p), i);
		ck_assert_uint_eq(atomic_load(&p->queued), 0);
	}
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq((q.nlifo + q.nfifo), 0);
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
}
END_TEST

START_TEST(test_fifo_oldest_first)
{
	int i;

	setup();
	/* 200 > 61: the fair pops take from the fifo too, in order */
	for (i = 0; i < 200; i++)
		act__runq_push_fifo(&q, &procs[i]);
	ck_assert_uint_eq((q.nlifo + q.nfifo), 200);
	for (i = 0; i < 200; i++)
		ck_assert_int_eq(idx(act__runq_pop(&q)), i);
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert(!act__runq_maybe_nonempty(&q));
}
END_TEST

START_TEST(test_lifo_before_fifo)
{
	int i;

	setup();
	act__runq_push_fifo(&q, &procs[0]); /* yielded */
	act__runq_push_fifo(&q, &procs[1]);
	for (i = 2; i < 6; i++) /* spawned after */
		act__runq_push_lifo(&q, &procs[i]);
	for (i = 5; i >= 2; i--)
		ck_assert_int_eq(idx(act__runq_pop(&q)), i);
	ck_assert_int_eq(idx(act__runq_pop(&q)), 0);
	ck_assert_int_eq(idx(act__runq_pop(&q)), 1);
	ck_assert_ptr_null(act__runq_pop(&q));
}
END_TEST

/* A popped process may be pushed again at once, on any part. */
START_TEST(test_repush_after_pop)
{
	struct act__proc *p = &procs[3];
	int i;

	setup();
	for (i = 0; i < 300; i++) {
		if (i % 3 == 0)
			act__runq_push_lifo(&q, p);
		else if (i % 3 == 1)
			act__runq_push_fifo(&q, p);
		else
			act__runq_push_remote(&q, p);
		ck_assert_ptr_eq(act__runq_pop(&q), p);
		ck_assert_ptr_null(act__runq_pop(&q));
	}
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
}
END_TEST

/* --- remote pushes: `in`, spliced onto the lifo top ---------------------- */

static void *push_100_remote(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 100; i++)
		act__runq_push_remote(&q, &procs[i]);
	return NULL;
}

/* Pushed by another thread: in `in` until the next pop, which splices all
 * of it onto the lifo; then newest first. */
START_TEST(test_remote_push_then_pop)
{
	pthread_t t;
	int i;

	setup();
	ck_assert(!act__runq_maybe_nonempty(&q));
	ck_assert_int_eq(pthread_create(&t, NULL, push_100_remote, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert(act__runq_maybe_nonempty(&q));
	ck_assert(act__runq_shared_nonempty(&q));
	ck_assert_uint_eq(n_in(&q), 100);
	ck_assert_uint_eq(q.nlifo + q.nfifo, 0);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	pop_is(&q, 99);
	/* the whole of `in` moved at that pop */
	ck_assert_uint_eq(n_in(&q), 0);
	ck_assert_ptr_null(q.in.top);
	ck_assert_uint_eq(q.nlifo, 99);
	ck_assert(!act__runq_shared_nonempty(&q));
	pops_are(&q, 98, 0);
	ck_assert_ptr_null(act__runq_pop(&q));
}
END_TEST

/* Remote arrivals go above the private lifo, and one that arrives between
 * two pops runs at the next. */
START_TEST(test_remote_spliced_on_lifo_top)
{
	int i;

	setup();
	push_fifo(&q, 20);
	for (i = 0; i < 5; i++)
		push_lifo(&q, i);
	for (i = 10; i < 13; i++)
		push_remote(&q, i);
	pop_is(&q, 12);
	push_remote(&q, 13);
	pop_is(&q, 13);
	pops_are(&q, 11, 10);
	pops_are(&q, 4, 0);
	pop_is(&q, 20);
	ck_assert_ptr_null(act__runq_pop(&q));
}
END_TEST

/* While a ping-pong pair keeps the lifo busy, a remote arrival is not
 * queued behind it: it runs at the very next pop. */
START_TEST(test_remote_runs_at_next_pop)
{
	struct act__proc *p;
	int n;

	setup();
	push_lifo(&q, 0);
	push_lifo(&q, 1);
	for (n = 0; n < 100; n++) { /* past a fairness pop */
		p = act__runq_pop(&q);
		ck_assert_int_lt(idx(p), 2);
		act__runq_push_lifo(&q, p);
	}
	push_remote(&q, 30);
	pop_is(&q, 30);
}
END_TEST

#define PRODUCERS 2
#define PER_PRODUCER 1000

struct producer {
	int first;
	atomic_int *go;
};

static void *producer_fn(void *arg)
{
	struct producer *pr = arg;
	int i;

	while (!atomic_load(pr->go))
		;
	for (i = 0; i < PER_PRODUCER; i++)
		act__runq_push_remote(&q, &procs[pr->first + i]);
	return NULL;
}

/*
 * One producer's pushes as the owner's pops can see them. The queue acts
 * as one stack here (remote pushes only, each spliced onto the lifo top
 * in push order), but for the fairness pops of the lifo bottom; the
 * producer's pushes are in order, the interleaving with the other
 * producer and with the pops unknown. So the model pushes lazily, up to
 * the process popped: the process popped from the top must be the top of
 * the model, one popped from the bottom its bottom.
 */
struct stack_model {
	int item[PER_PRODUCER];
	int lo, hi; /* the model holds item[lo..hi) */
	int next;   /* first not pushed yet */
};

static void model_pop(struct stack_model *m, int first, int i, bool bottom)
{
	while (m->next <= i - first)
		m->item[m->hi++] = m->next++;
	ck_assert_int_lt(m->lo, m->hi);
	if (bottom)
		ck_assert_int_eq(m->item[m->lo++] + first, i);
	else
		ck_assert_int_eq(m->item[--m->hi] + first, i);
}

/* Two threads push while the owner pops: each process comes out once, in
 * the order a stack allows (see stack_model). */
START_TEST(test_remote_push_concurrent)
{
	static struct stack_model model[PRODUCERS];
	struct producer pr[PRODUCERS];
	pthread_t t[PRODUCERS];
	int seen = 0, bottoms = 0, i, k;
	uint32_t ticks;
	long spins = 0;
	atomic_int go = 0;

	setup();
	memset(model, 0, sizeof(model));
	for (k = 0; k < PRODUCERS; k++) {
		pr[k] = (struct producer){ k * PER_PRODUCER, &go };
		ck_assert_int_eq(
			pthread_create(&t[k], NULL, producer_fn, &pr[k]), 0);
	}
	atomic_store(&go, 1);
	while (seen < PRODUCERS * PER_PRODUCER) {
		struct act__proc *p;
		bool bottom;

		ticks = q.ticks;
		p = act__runq_pop(&q);
		/* a fairness pop that served the lifo bottom (fifo and out
		 * are empty: the others fall back to the lifo top) */
		bottom = q.ticks != ticks && q.ticks % LIFO_BOTTOM_EVERY == 0;
		if (!p) {
			/* a producer may be about to push: "empty for now";
			 * it finishes in bounded time */
			ck_assert_int_lt(++spins, 2000000000L);
			continue;
		}
		i = idx(p);
		k = i / PER_PRODUCER;
		ck_assert_uint_eq(atomic_load(&p->queued), 0);
		model_pop(&model[k], k * PER_PRODUCER, i, bottom);
		bottoms += bottom;
		seen++;
	}
	for (k = 0; k < PRODUCERS; k++) {
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
		ck_assert_int_eq(model[k].next, PER_PRODUCER);
		ck_assert_int_eq(model[k].lo, model[k].hi); /* none left */
	}
	ck_assert_int_le(bottoms, seen);
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
}
END_TEST

/* --- pop order and fairness ----------------------------------------------- */

/* lifo top, then `out` top (newest published first), then fifo. */
START_TEST(test_pop_order_lifo_out_fifo)
{
	int i;

	setup();
	for (i = 10; i < 20; i++)
		push_lifo(&q, i);
	/* 10 private: 5 published, the oldest */
	ck_assert_uint_eq(act__runq_publish(&q), 5);
	push_fifo(&q, 0);
	push_fifo(&q, 1);
	pops_are(&q, 19, 15); /* lifo */
	pops_are(&q, 14, 10); /* out, newest first */
	pops_are(&q, 0, 1);   /* fifo */
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq(n_out(&q), 0);
}
END_TEST

/*
 * Pop up to max times; every lifo process that comes out is pushed back
 * at once (two processes that keep waking each other), and, with
 * keep_fifo, every fifo process too (a process that keeps yielding).
 * Returns the pop at which `target` came out (1-based), or 0.
 */
static int pops_until(struct act__proc *target, int max, bool keep_fifo)
{
	int n;

	for (n = 1; n <= max; n++) {
		struct act__proc *p = act__runq_pop(&q);

		ck_assert_ptr_nonnull(p);
		if (p == target)
			return n;
		if (idx(p) < 10)
			act__runq_push_lifo(&q, p);
		else if (keep_fifo)
			act__runq_push_fifo(&q, p);
	}
	return 0;
}

/* The first fairness pop, the 61st, serves the fifo. */
START_TEST(test_fair_fifo_at_61st_pop)
{
	setup();
	act__runq_push_fifo(&q, &procs[20]);
	act__runq_push_lifo(&q, &procs[0]);
	act__runq_push_lifo(&q, &procs[1]);
	ck_assert_int_eq(pops_until(&procs[20], 10 * FAIR_EVERY, false),
			 FAIR_EVERY);
}
END_TEST

/*
 * A chatty process (ACT_CHATTY_MSGS messages in its last turn, the last
 * with a process on this worker) is not published: a thief would make
 * each of its messages cross cores. One whose peer is elsewhere, or that
 * sent fewer, is published as usual; so is the fifo's sticky head
 * skipped without losing the fifo's order.
 */
START_TEST(test_publish_skips_sticky)
{
	struct act__proc *p;
	int i;

	setup_q(true);
	q.index = 3;
	for (i = 0; i < 6; i++)
		act__runq_push_lifo(&q, &procs[i]);
	act__runq_push_fifo(&q, &procs[10]);
	act__runq_push_fifo(&q, &procs[11]);
	procs[10].turn_msgs = ACT_CHATTY_MSGS; /* fifo head: sticky */
	procs[10].peer_worker = 3;
	procs[0].turn_msgs = ACT_CHATTY_MSGS; /* lifo bottom: sticky */
	procs[0].peer_worker = 3;
	procs[1].turn_msgs = ACT_CHATTY_MSGS - 1; /* not chatty enough */
	procs[1].peer_worker = 3;
	procs[2].turn_msgs = UINT8_MAX; /* chatty, peer elsewhere */
	procs[2].peer_worker = 1;
	ck_assert(act__proc_sticky(&procs[10], 3));
	ck_assert(!act__proc_sticky(&procs[10], 1));
	ck_assert(!act__proc_sticky(&procs[1], 3));
	/* surplus 7: 4 go, oldest non-sticky first: 11, then 1, 2, 3 */
	ck_assert_uint_eq(act__runq_publish(&q), 4);
	ck_assert_uint_eq(n_out(&q), 4);
	ck_assert_uint_eq(q.nlifo + q.nfifo, 4); /* 0, 4, 5 and 10 stay */
	/* lifo 5, 4, 0; then `out`, newest first; then the fifo */
	static const int order[] = { 5, 4, 0, 3, 2, 1, 11, 10 };

	for (i = 0; i < 8; i++) {
		p = act__runq_pop(&q);
		ck_assert_int_eq(idx(p), order[i]);
	}
	ck_assert_ptr_null(act__runq_pop(&q));
}
END_TEST

/*
 * Published work is not starved when both the lifo (a ping-pong pair)
 * and the fifo (a yielding process) are never empty: the second fairness
 * pop, the 122nd, serves `out`.
 */
START_TEST(test_fair_out_with_busy_lifo_and_fifo)
{
	setup();
	act__runq_push_lifo(&q, &procs[30]);
	act__runq_push_lifo(&q, &procs[0]);
	ck_assert_uint_eq(act__runq_publish(&q), 1); /* the oldest: 30 */
	ck_assert_uint_eq(n_out(&q), 1);
	act__runq_push_lifo(&q, &procs[1]);
	act__runq_push_fifo(&q, &procs[20]);
	ck_assert_int_eq(pops_until(&procs[30], 10000, true), 2 * FAIR_EVERY);
}
END_TEST

/* An old process at the lifo bottom, under a ping-pong pair: the 16th
 * fairness pop, the 976th, takes it. */
START_TEST(test_fair_lifo_bottom_at_976th_pop)
{
	setup();
	act__runq_push_lifo(&q, &procs[50]);
	act__runq_push_lifo(&q, &procs[0]);
	act__runq_push_lifo(&q, &procs[1]);
	ck_assert_int_eq(pops_until(&procs[50], 10000, false),
			 FAIR_EVERY * LIFO_BOTTOM_EVERY);
}
END_TEST

/* Every fifo process gets a turn, however many there are. */
START_TEST(test_fair_every_fifo_served)
{
	int served[10] = { 0 }, n, i;

	setup();
	for (i = 0; i < 10; i++)
		act__runq_push_fifo(&q, &procs[20 + i]);
	act__runq_push_lifo(&q, &procs[0]);
	for (n = 0; n < 20 * FAIR_EVERY; n++) {
		struct act__proc *p = act__runq_pop(&q);

		i = idx(p);
		if (i < 10) {
			act__runq_push_lifo(&q, p);
		} else {
			served[i - 20]++;
			act__runq_push_fifo(&q, p);
		}
	}
	for (i = 0; i < 10; i++)
		ck_assert_int_ge(served[i], 1);
}
END_TEST

/*
 * The whole schedule, pop by pop, with every part busy: a ping-pong pair
 * on the lifo, five yielders on the fifo, 56 published processes in
 * `out`. Pop n (counted from the queue's start) is a fairness pop when n
 * is a multiple of 61; the t-th of those serves the lifo bottom when t is
 * a multiple of 16, else the fifo head when t is odd, else the oldest of
 * `out`. Every other pop serves the lifo top.
 */
START_TEST(test_pop_schedule_exact)
{
	int n, t, i, top = 1, next_fifo = 0, next_out = 40, outs = 0;

	setup();
	for (i = 40; i < 120; i++)
		push_lifo(&q, i);
	ck_assert_uint_eq(act__runq_publish(&q), ACT_STEAL_MAX); /* 40..71 */
	ck_assert_uint_eq(act__runq_publish(&q), 24);		 /* 72..95 */
	ck_assert_uint_eq(n_out(&q), 56);
	pops_are(&q, 119, 96); /* pops 1..24: the private rest */
	ck_assert_uint_eq(q.nlifo + q.nfifo, 0);
	push_lifo(&q, 0);
	push_lifo(&q, 1);
	for (i = 20; i < 25; i++)
		push_fifo(&q, i);
	for (n = 25; n <= 50 * FAIR_EVERY; n++) {
		struct act__proc *p = act__runq_pop(&q);

		i = idx(p);
		t = n / FAIR_EVERY;
		if (n % FAIR_EVERY) {
			ck_assert_int_eq(i, top);
			act__runq_push_lifo(&q, p);
		} else if (t % LIFO_BOTTOM_EVERY == 0) {
			ck_assert_int_eq(i, 1 - top); /* the bottom one */
			top = i;
			act__runq_push_lifo(&q, p);
		} else if (t & 1) {
			ck_assert_int_eq(i, 20 + next_fifo);
			next_fifo = (next_fifo + 1) % 5;
			act__runq_push_fifo(&q, p);
		} else {
			ck_assert_int_eq(i, next_out++);
			outs++;
		}
	}
	/* t = 2, 4, .., 50, less 16, 32 and 48 */
	ck_assert_int_eq(outs, 22);
	ck_assert_uint_eq(n_out(&q), 56 - 22);
	ck_assert_uint_eq(q.nlifo, 2);
	ck_assert_uint_eq(q.nfifo, 5);
}
END_TEST

/* --- publish: the private surplus, for thieves ---------------------------- */

/* Half of the surplus rounded up, at most ACT_STEAL_MAX: n private
 * processes publish min(n / 2, 32), and at least one stays private. */
START_TEST(test_publish_counts)
{
	uint32_t n, k, want, total;
	int i;

	for (n = 0; n <= 100; n++) {
		setup();
		for (i = 0; i < (int)n; i++)
			push_lifo(&q, i);
		atomic_store(&q.hungry, 1);
		want = n / 2 < ACT_STEAL_MAX ? n / 2 : ACT_STEAL_MAX;
		ck_assert_uint_eq(act__runq_publish(&q), want);
		ck_assert_uint_eq(atomic_load(&q.hungry), 0); /* cleared */
		ck_assert_uint_eq(n_out(&q), want);
		ck_assert_uint_eq(q.nlifo, n - want);
		ck_assert(act__runq_shared_nonempty(&q) == (want > 0));
		/* publish again and again: one always stays private */
		total = want;
		while ((k = act__runq_publish(&q)))
			total += k;
		ck_assert_uint_eq(q.nlifo, n ? 1 : 0);
		ck_assert_uint_eq(total, n ? n - 1 : 0);
		ck_assert_uint_eq(n_out(&q), total);
		/* the queued flag stays set in `out` */
		for (i = 0; i < (int)n; i++)
			ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	}
}
END_TEST

/* Oldest first: the fifo from its head, then the lifo from its bottom;
 * each batch goes on top of `out`, its oldest lowest. */
START_TEST(test_publish_oldest_first)
{
	static const int out1[] = { 0, 1, 2, 3, 4, 10, 11 };
	static const int out2[] = { 0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15 };
	int i;

	setup();
	for (i = 0; i < 5; i++)
		push_fifo(&q, i);
	for (i = 10; i < 20; i++)
		push_lifo(&q, i);
	ck_assert_uint_eq(act__runq_publish(&q), 7); /* of 15 */
	list_is(&q.out, out1, 7);
	ck_assert_uint_eq(q.nfifo, 0);
	ck_assert_uint_eq(q.nlifo, 8);
	ck_assert_uint_eq(act__runq_publish(&q), 4); /* of 8 */
	list_is(&q.out, out2, 11);
	ck_assert_uint_eq(q.nlifo, 4);
	pops_are(&q, 19, 16); /* private */
	pops_are(&q, 15, 10); /* out, from the top */
	pops_are(&q, 4, 0);
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq(n_out(&q), 0);
}
END_TEST

/* --- steal ---------------------------------------------------------------- */

/* Check the k processes the last steal put on thief t's queue: owner and
 * queued flag; then pop them, newest taken first. first..first+k-1 were
 * taken in that order (oldest first). */
static void thief_pops(int t, int first, int k)
{
	int i;

	ck_assert_uint_eq(tq[t].nlifo, (uint32_t)k);
	for (i = first; i < first + k; i++) {
		ck_assert_ptr_eq(atomic_load(&procs[i].owner), &thief[t]);
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	}
	for (i = first + k - 1; i >= first; i--) {
		pop_is(&tq[t], i);
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 0);
	}
	ck_assert_ptr_null(act__runq_pop(&tq[t]));
}

/* Half of out + in, rounded up, oldest first: out's bottom, then in's. */
START_TEST(test_steal_half_oldest_first)
{
	static const int in_left[] = { 20, 21, 22, 23 };
	int i;

	setup_q(true);
	for (i = 0; i < 16; i++)
		push_lifo(&q, i);
	ck_assert_uint_eq(act__runq_publish(&q), 8); /* 0..7 */
	for (i = 20; i < 24; i++)
		push_remote(&q, i);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 6); /* 12 */
	ck_assert_uint_eq(n_out(&q), 2);
	ck_assert_uint_eq(n_in(&q), 4);
	list_is(&q.in, in_left, 4);
	thief_pops(0, 0, 6);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[1], &thief[1]), 3); /* 6 */
	ck_assert_uint_eq(tq[1].nlifo, 3);
	pop_is(&tq[1], 20); /* 6, 7, then in's oldest: 20 on top */
	pops_are(&tq[1], 7, 6);
	ck_assert_ptr_eq(atomic_load(&procs[20].owner), &thief[1]);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 2); /* 3 */
	thief_pops(0, 21, 2);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 1); /* 1 */
	thief_pops(0, 23, 1);
	ck_assert_uint_eq(atomic_load(&q.hungry), 0);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 0);
	ck_assert_uint_eq(atomic_load(&q.hungry), 1);
	/* the victim kept its private half; hungry, it publishes half of it
	 * (the oldest, 8..11) before its next pop, then takes them back */
	ck_assert_uint_eq(q.nlifo, 8);
	ck_assert_int_eq(idx(owner_pop(&q)), 15);
	ck_assert_uint_eq(atomic_load(&q.hungry), 0);
	ck_assert_uint_eq(n_out(&q), 4);
	pops_are(&q, 14, 12);
	pops_are(&q, 11, 8); /* out, newest first */
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
	ck_assert_uint_eq(atomic_load(&tq[0].dup_enqueues), 0);
	ck_assert_uint_eq(atomic_load(&tq[1].dup_enqueues), 0);
}
END_TEST

/* Remote arrivals may be stolen before the owner splices them. */
START_TEST(test_steal_from_in)
{
	int i;

	setup_q(true);
	for (i = 0; i < 10; i++)
		push_remote(&q, i);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 5);
	thief_pops(0, 0, 5);
	pops_are(&q, 9, 5);
	ck_assert_ptr_null(act__runq_pop(&q));
}
END_TEST

/* At most ACT_STEAL_MAX a steal, the rest left for the next ones. */
START_TEST(test_steal_cap)
{
	uint32_t avail = 100, want;
	int first = 0, i;

	setup_q(true);
	for (i = 0; i < 100; i++)
		push_remote(&q, i);
	while (avail) {
		want = (avail + 1) / 2;
		want = want < ACT_STEAL_MAX ? want : ACT_STEAL_MAX;
		ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), want);
		thief_pops(0, first, (int)want);
		first += (int)want;
		avail -= want;
		ck_assert_uint_eq(n_in(&q), avail);
	}
	ck_assert_int_eq(first, 100);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 0);
}
END_TEST

/* Nothing private is taken: a thief that finds the shared half empty
 * marks the victim hungry and leaves with nothing. */
START_TEST(test_steal_takes_nothing_private)
{
	int i;

	setup_q(true);
	for (i = 0; i < 10; i++)
		push_lifo(&q, i);
	push_fifo(&q, 20);
	push_fifo(&q, 21);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 0);
	ck_assert_uint_eq(atomic_load(&q.hungry), 1);
	ck_assert_uint_eq(q.nlifo, 10);
	ck_assert_uint_eq(q.nfifo, 2);
	ck_assert_ptr_null(tq[0].lifo.top);
	ck_assert_ptr_null(act__runq_pop(&tq[0]));
	for (i = 0; i < 10; i++)
		ck_assert_ptr_null(atomic_load(&procs[i].owner));
	/* a second failed steal leaves it so */
	ck_assert_uint_eq(act__runq_steal(&q, &tq[1], &thief[1]), 0);
	ck_assert_uint_eq(atomic_load(&q.hungry), 1);
}
END_TEST

/* A steal that finds something does not mark the victim hungry. */
START_TEST(test_steal_success_not_hungry)
{
	setup_q(true);
	push_remote(&q, 0);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 1);
	ck_assert_uint_eq(atomic_load(&q.hungry), 0);
	thief_pops(0, 0, 1);
}
END_TEST

/* Hungry: set by a failed steal; a publish is then due when the owner
 * has two private processes or more (one is always kept), and clears it;
 * a queue without other workers never publishes. */
START_TEST(test_hungry_publish_at_pop)
{
	int i;

	/* not hungry: nothing due */
	setup_q(true);
	for (i = 0; i < 10; i++)
		push_lifo(&q, i);
	ck_assert(!act__runq_should_publish(&q));

	/* one private process: kept, and the flag stays up */
	setup_q(true);
	push_lifo(&q, 0);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 0);
	ck_assert(!act__runq_should_publish(&q));
	ck_assert_int_eq(idx(owner_pop(&q)), 0);
	ck_assert_uint_eq(atomic_load(&q.hungry), 1);
	ck_assert_uint_eq(n_out(&q), 0);

	/* ten: half of them (the oldest) published, for the thief */
	setup_q(true);
	for (i = 0; i < 10; i++)
		push_lifo(&q, i);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 0);
	ck_assert(act__runq_should_publish(&q));
	ck_assert_int_eq(idx(owner_pop(&q)), 9);
	ck_assert_uint_eq(atomic_load(&q.hungry), 0);
	ck_assert(!act__runq_should_publish(&q));
	ck_assert_uint_eq(n_out(&q), 5);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 3);
	thief_pops(0, 0, 3);
	pops_are(&q, 8, 5);
	pops_are(&q, 4, 3);
	ck_assert_ptr_null(act__runq_pop(&q));

	/* not stealable (one worker): no publish, the flag stays */
	setup_q(false);
	for (i = 0; i < 10; i++)
		push_lifo(&q, i);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 0);
	ck_assert(!act__runq_should_publish(&q));
	ck_assert_int_eq(idx(owner_pop(&q)), 9);
	ck_assert_uint_eq(atomic_load(&q.hungry), 1);
	ck_assert_uint_eq(n_out(&q), 0);
	ck_assert_uint_eq(q.nlifo, 9);
}
END_TEST

/* I1 across a steal: the queued flag is never down between the victim's
 * push and the thief's pop, and the process is then pushed again with no
 * duplicate counted anywhere. */
START_TEST(test_steal_keeps_queued)
{
	int i;

	setup_q(true);
	for (i = 0; i < 4; i++)
		push_remote(&q, i);
	ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 2);
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	pops_are(&tq[0], 1, 0);
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 0);
		push_fifo(&tq[0], i); /* it yields on the thief */
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	}
	pops_are(&tq[0], 0, 1);
	push_remote(&q, 0); /* woken back on the victim */
	pop_is(&q, 0);
	pops_are(&q, 3, 2);
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
	ck_assert_uint_eq(atomic_load(&tq[0].dup_enqueues), 0);
}
END_TEST

/* --- an owner against two thieves, concurrently --------------------------- */

#define STEAL_N NPROCS
#define STEAL_FIRST 64 /* pushed before the thieves may take any */

static atomic_int seen[STEAL_N];
static atomic_int seen_total;
static _Atomic uint64_t stolen_by[2], seen_twice, bad_owner, still_queued;

static void see(struct act__proc *p)
{
	if (atomic_load(&p->queued))
		atomic_fetch_add(&still_queued, 1);
	if (atomic_fetch_add(&seen[p - procs], 1))
		atomic_fetch_add(&seen_twice, 1);
	atomic_fetch_add(&seen_total, 1);
}

/* Steal from q into its own queue and pop that, until all were seen.
 * Check fails are counted here and asserted by the test's thread. */
static void *thief_fn(void *arg)
{
	int t = (int)(intptr_t)arg;
	struct act__proc *p;
	uint32_t k;

	while (atomic_load(&seen_total) < STEAL_N) {
		p = act__runq_pop(&tq[t]);
		if (p) {
			/* ownership moved before it could run (I3) */
			if (atomic_load(&p->owner) != &thief[t])
				atomic_fetch_add(&bad_owner, 1);
			see(p);
			continue;
		}
		k = act__runq_steal(&q, &tq[t], &thief[t]);
		atomic_fetch_add(&stolen_by[t], k);
		if (!k)
			sched_yield();
	}
	return NULL;
}

/* Wait (yielding the CPU) until *a + *b or *c is nonzero (the NULL ones
 * not read); false if that never happens. */
static bool wait_set(_Atomic uint64_t *a, _Atomic uint64_t *b,
		     _Atomic uint8_t *c)
{
	long i;

	for (i = 0; i < 100000000L; i++) {
		if ((a && atomic_load(a) + atomic_load(b)) ||
		    (c && atomic_load(c)))
			return true;
		sched_yield();
	}
	return false;
}

/*
 * The owner pushes STEAL_N processes (lifo and fifo), popping now and then
 * (publishing first when a thief asked, as the worker loop does), while
 * two threads steal and pop what they took: each process comes out
 * exactly once, a thief only gets processes it owns, and nothing is left. The first 64 are pushed before
 * any pop, and the owner publishes once the queue is hungry, then waits
 * for a steal: a steal is sure to happen, whatever the threads' timing.
 */
START_TEST(test_steal_concurrent)
{
	struct act__proc *p;
	pthread_t t[2];
	uint64_t rng = 88172645463325252ull;
	int i, k;

	setup_q(true);
	for (i = 0; i < STEAL_N; i++)
		atomic_store(&seen[i], 0);
	atomic_store(&seen_total, 0);
	for (k = 0; k < 2; k++)
		atomic_store(&stolen_by[k], 0);
	atomic_store(&seen_twice, 0);
	atomic_store(&bad_owner, 0);
	atomic_store(&still_queued, 0);
	for (i = 0; i < STEAL_FIRST; i++)
		push_lifo(&q, i);
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, thief_fn,
						(void *)(intptr_t)k),
				 0);
	ck_assert(wait_set(NULL, NULL, &q.hungry));
	p = owner_pop(&q); /* publishes 32 */
	ck_assert_int_eq(idx(p), STEAL_FIRST - 1);
	see(p);
	ck_assert(wait_set(&stolen_by[0], &stolen_by[1], NULL));
	for (i = STEAL_FIRST; i < STEAL_N; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		if (rng & 1)
			push_lifo(&q, i);
		else
			push_fifo(&q, i);
		if ((rng >> 8) % 3 == 0 && (p = owner_pop(&q)))
			see(p);
	}
	while (atomic_load(&seen_total) < STEAL_N) {
		p = owner_pop(&q);
		if (p)
			see(p);
		else
			sched_yield(); /* the rest is the thieves' */
	}
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	for (i = 0; i < STEAL_N; i++)
		ck_assert_int_eq(atomic_load(&seen[i]), 1);
	ck_assert_int_eq(atomic_load(&seen_total), STEAL_N);
	ck_assert_uint_eq(atomic_load(&seen_twice), 0);
	ck_assert_uint_eq(atomic_load(&bad_owner), 0);
	ck_assert_uint_eq(atomic_load(&still_queued), 0);
	ck_assert_uint_gt(
		atomic_load(&stolen_by[0]) + atomic_load(&stolen_by[1]), 0);
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert(!act__runq_maybe_nonempty(&q));
	for (k = 0; k < 2; k++) {
		ck_assert_ptr_null(act__runq_pop(&tq[k]));
		ck_assert_uint_eq(atomic_load(&tq[k].dup_enqueues), 0);
	}
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
}
END_TEST

/* --- I1: duplicate enqueues ----------------------------------------------- */

typedef void (*push_fn)(struct act__runq *, struct act__proc *);

static void push_remote_fn(struct act__runq *rq, struct act__proc *p)
{
	act__runq_push_remote(rq, p);
}

static void push_fifo_fn(struct act__runq *rq, struct act__proc *p)
{
	act__runq_push_fifo(rq, p);
}

static void push_lifo_fn(struct act__runq *rq, struct act__proc *p)
{
	act__runq_push_lifo(rq, p);
}

static const push_fn pushes[3] = { push_lifo_fn, push_fifo_fn, push_remote_fn };

#ifndef ACT_DEBUG
/* Release build: the second push of a queued process is counted and
 * refused; it comes out once. Every pair of parts. */
START_TEST(test_I1_duplicate_counted_and_refused)
{
	int a, b;
	uint64_t dups = 0;

	setup();
	for (a = 0; a < 3; a++) {
		for (b = 0; b < 3; b++) {
			struct act__proc *p = &procs[5 + a * 3 + b];

			pushes[a](&q, p);
			pushes[b](&q, p);
			ck_assert_uint_eq(atomic_load(&q.dup_enqueues), ++dups);
			ck_assert_ptr_eq(act__runq_pop(&q), p);
			ck_assert_ptr_null(act__runq_pop(&q));
			ck_assert_uint_eq((q.nlifo + q.nfifo), 0);
		}
	}
}
END_TEST

/* Release build: a process published, or stolen and not yet popped, is
 * still queued: a second push is a duplicate, counted and refused. */
START_TEST(test_I1_duplicate_while_published_or_stolen)
{
	int b;

	setup_q(true);
	for (b = 0; b < 3; b++) {
		push_lifo(&q, 0);
		push_lifo(&q, 1);
		ck_assert_uint_eq(act__runq_publish(&q), 1); /* 0 */
		pushes[b](&q, &procs[0]);
		ck_assert_uint_eq(atomic_load(&q.dup_enqueues), b + 1);
		ck_assert_uint_eq(act__runq_steal(&q, &tq[0], &thief[0]), 1);
		pushes[b](&tq[0], &procs[0]);
		ck_assert_uint_eq(atomic_load(&tq[0].dup_enqueues), b + 1);
		pop_is(&tq[0], 0);
		ck_assert_ptr_null(act__runq_pop(&tq[0]));
		pop_is(&q, 1);
		ck_assert_ptr_null(act__runq_pop(&q));
	}
}
END_TEST
#else
static void dup_push_child(void *arg)
{
	int *which = arg;

	setup();
	pushes[which[0]](&q, &procs[7]);
	pushes[which[1]](&q, &procs[7]);
	/* must not get here */
}

/* Debug build: a duplicate enqueue aborts with a message naming I1. */
START_TEST(test_I1_duplicate_aborts)
{
	struct tu_child c;
	int which[2];

	for (which[0] = 0; which[0] < 3; which[0]++) {
		for (which[1] = 0; which[1] < 3; which[1]++) {
			tu_run_child(dup_push_child, which, &c);
			ck_assert_msg(WIFSIGNALED(c.status) &&
					      WTERMSIG(c.status) == SIGABRT,
				      "duplicate push %d then %d: status %#x, "
				      "not SIGABRT (is ACT_DEBUG seen by the "
				      "library?)",
				      which[0], which[1], c.status);
			ck_assert_ptr_nonnull(strstr(c.err, "I1"));
		}
	}
}
END_TEST

static void dup_stolen_child(void *arg)
{
	setup_q(true);
	push_remote(&q, 7);
	if (act__runq_steal(&q, &tq[0], &thief[0]) != 1)
		_exit(3);
	pushes[*(int *)arg](&tq[0], &procs[7]);
	/* must not get here */
}

/* Debug build: the same for a push of a stolen process not yet popped. */
START_TEST(test_I1_duplicate_of_stolen_aborts)
{
	struct tu_child c;
	int b;

	for (b = 0; b < 3; b++) {
		tu_run_child(dup_stolen_child, &b, &c);
		ck_assert_msg(
			WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT,
			"push %d of a stolen process: status %#x", b, c.status);
		ck_assert_ptr_nonnull(strstr(c.err, "I1"));
	}
}
END_TEST

static void steal_waiting_child(void *arg)
{
	(void)arg;
	setup_q(true);
	atomic_store(&procs[7].state, act__ps_make(1, ACT_PS_WAITING));
	push_remote(&q, 7);
	act__runq_steal(&q, &tq[0], &thief[0]);
	/* must not get here */
}

/* Debug build: a queue only holds RUNNABLE processes; a thief that finds
 * another state aborts rather than run it. */
START_TEST(test_steal_not_runnable_aborts)
{
	struct tu_child c;

	tu_run_child(steal_waiting_child, NULL, &c);
	ck_assert_msg(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT,
		      "stole a WAITING process: status %#x", c.status);
	ck_assert_ptr_nonnull(strstr(c.err, "stole process "));
}
END_TEST
#endif

/* --- through the runtime, on one worker (see the head comment) --------- */

#define YIELDS 10000
#define NYIELDERS 3
#define WINDOW 6

struct yield_log {
	act_pid parent;
	int n;
	uint8_t who[NYIELDERS * YIELDS + 16];
};

struct yielder {
	struct yield_log *log;
	int id;
};

static void yielder_fn(void *arg)
{
	struct yielder *y = arg;
	int i;

	for (i = 0; i < YIELDS; i++) {
		y->log->who[y->log->n++] = (uint8_t)y->id;
		act_yield();
	}
	act_send(y->log->parent, 1, NULL, 0);
}

static void yield_main(void *arg)
{
	static struct yield_log log;
	struct yielder y[NYIELDERS];
	int last[NYIELDERS] = { 0 }, end, i, k;

	(void)arg;
	log.parent = act_self();
	log.n = 0;
	for (k = 0; k < NYIELDERS; k++) {
		y[k] = (struct yielder){ &log, k };
		ck_assert_uint_ne(act_spawn(yielder_fn, &y[k]).id, 0);
	}
	for (k = 0; k < NYIELDERS; k++)
		act_msg_free(act_receive(ACT_FOREVER));
	ck_assert_int_eq(log.n, NYIELDERS * YIELDS);
	for (i = 0; i < log.n; i++)
		last[log.who[i]] = i;
	end = last[0];
	for (k = 1; k < NYIELDERS; k++)
		end = last[k] < end ? last[k] : end;
	/* while all three still run, each shows up in every window */
	for (i = 0; i + WINDOW <= end; i++) {
		int mask = 0;

		for (k = i; k < i + WINDOW; k++)
			mask |= 1 << log.who[k];
		ck_assert_msg(mask == (1 << NYIELDERS) - 1,
			      "entries %d..%d miss a yielder", i,
			      i + WINDOW - 1);
	}
}

START_TEST(test_yield_round_robin)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(act_main(&cfg, yield_main, NULL), 0);
	ck_assert_int_eq(act__last_leaks.procs, 0);
}
END_TEST

/* --- reductions: a busy process is made to yield ------------------------ */

/*
 * The busy process makes N calls of one kind without ever yielding by
 * itself; a second process counts its own turns. A turn between two of
 * busy's calls means the call made busy yield. Each forced yield must
 * come after exactly `reductions` counted calls: the budget is refilled
 * whenever busy is switched in, so the k-th yield ends call k * R - 1.
 */
enum red_kind { RED_SEND, RED_SPAWN, RED_RECEIVE, RED_POLL_EMPTY };

#define RED_N 10000

struct reduc {
	enum red_kind kind;
	int reductions;
	atomic_int done;
	atomic_int other_runs;
	int yields;    /* forced yields seen */
	int misplaced; /* yields not at k * R - 1 */
	act_pid busy;
};

static void red_noop(void *arg)
{
	(void)arg;
}

static void red_call(struct reduc *r)
{
	int v = 1;

	switch (r->kind) {
	case RED_SEND:
		act_send(act_self(), 1, &v, sizeof(v));
		break;
	case RED_SPAWN:
		act_spawn(red_noop, NULL);
		break;
	case RED_RECEIVE:
		act_msg_free(act_receive(0)); /* the mailbox is full */
		break;
	case RED_POLL_EMPTY:
		act_receive(0); /* returns NULL: not a reduction */
		break;
	}
}

static void red_busy(void *arg)
{
	struct reduc *r = arg;
	int i, before;

	for (i = 0; i < RED_N; i++) {
		before = atomic_load(&r->other_runs);
		red_call(r);
		if (atomic_load(&r->other_runs) == before)
			continue;
		r->yields++;
		r->misplaced += (i + 1) % r->reductions != 0;
	}
	atomic_store(&r->done, 1);
}

static void red_other(void *arg)
{
	struct reduc *r = arg;

	while (!atomic_load(&r->done)) {
		atomic_fetch_add(&r->other_runs, 1);
		act_yield();
	}
}

static void *red_fill(void *arg)
{
	struct reduc *r = arg;
	int i, v = 2;

	/* from a thread: these sends cost busy nothing */
	for (i = 0; i < RED_N; i++)
		ck_assert_int_eq(act_send(r->busy, 1, &v, sizeof(v)), 0);
	return NULL;
}

static void red_main(void *arg)
{
	struct reduc *r = arg;
	pthread_t t;
	act_pid o;

	o = act_spawn(red_other, r);
	ck_assert_uint_ne(o.id, 0);
	act_yield(); /* other runs once and goes to the fifo */
	r->busy = act_spawn(red_busy, r);
	ck_assert_uint_ne(r->busy.id, 0);
	if (r->kind == RED_RECEIVE) {
		ck_assert_int_eq(pthread_create(&t, NULL, red_fill, r), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
	while (!atomic_load(&r->done) ||
	       act__proc_lookup(&act__rt_current->procs, o))
		act_yield();
}

/* Returns the forced yields it saw (the expected count is asserted). */
static int check_reductions(enum red_kind kind, int reductions)
{
	struct act_config cfg;
	struct reduc r;
	int r_eff = reductions ? reductions : 2000;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.reductions = r_eff;
	/* and busy must live until red_fill has sent it everything */
	cfg = tu_with_workers(1);
	cfg.reductions = reductions;
	ck_assert_int_eq(act_main(&cfg, red_main, &r), 0);
	ck_assert_int_eq(atomic_load(&r.done), 1);
	ck_assert_int_eq(r.misplaced, 0);
	if (kind == RED_POLL_EMPTY)
		ck_assert_int_eq(r.yields, 0);
	else
		ck_assert_int_eq(r.yields, RED_N / r_eff);
	return r.yields;
}

START_TEST(test_reductions_default_send)
{
	ck_assert_int_eq(check_reductions(RED_SEND, 0), RED_N / 2000);
}
END_TEST

START_TEST(test_reductions_send)
{
	ck_assert_int_eq(check_reductions(RED_SEND, 100), RED_N / 100);
}
END_TEST

START_TEST(test_reductions_spawn)
{
	ck_assert_int_eq(check_reductions(RED_SPAWN, 100), RED_N / 100);
}
END_TEST

START_TEST(test_reductions_receive)
{
	ck_assert_int_eq(check_reductions(RED_RECEIVE, 100), RED_N / 100);
}
END_TEST

START_TEST(test_reductions_empty_poll_free)
{
	ck_assert_int_eq(check_reductions(RED_POLL_EMPTY, 100), 0);
}
END_TEST

/* --- nobody starves behind a ping-pong pair ------------------------------ */

#define PP_LIMIT 100000 /* round trips allowed once the victim is runnable */

struct starve {
	act_pid parent, partner;
	atomic_int victim_ran;
	atomic_int armed; /* the victim is runnable from now on */
	atomic_int started;
	atomic_int stop;
	long rounds_after; /* ping-pong rounds while the victim waited */
	int yields;	   /* the yielder's turns */
};

static void pp_partner(void *arg)
{
	struct act_msg *m;

	(void)arg;
	while ((m = act_receive(ACT_FOREVER)) && m->tag != 2) {
		act_send(m->from, 1, NULL, 0);
		act_msg_free(m);
	}
	act_msg_free(m);
}

/* Ping-pong until the victim ran, or PP_LIMIT rounds after it was armed. */
static void pp_leader(void *arg)
{
	struct starve *s = arg;
	long after = 0;

	atomic_store(&s->started, 1);
	/* no other bound: a victim never armed is a hang, reported by the
	 * test timeout */
	while (!atomic_load(&s->victim_ran)) {
		if (atomic_load(&s->armed) && ++after > PP_LIMIT)
			break;
		act_send(s->partner, 1, NULL, 0);
		act_msg_free(act_receive(ACT_FOREVER));
	}
	s->rounds_after = after;
	act_send(s->partner, 2, NULL, 0);
	act_send(s->parent, 3, NULL, 0);
}

static void pp_yielder(void *arg)
{
	struct starve *s = arg;

	while (!atomic_load(&s->stop)) {
		s->yields++;
		act_yield();
	}
}

static void start_pingpong(struct starve *s)
{
	s->partner = act_spawn(pp_partner, NULL);
	ck_assert_uint_ne(s->partner.id, 0);
	ck_assert_uint_ne(act_spawn(pp_leader, s).id, 0);
}

/* A yielding process still gets every 61st pop during a ping-pong. */
static void fifo_fair_main(void *arg)
{
	struct starve *s = arg;

	s->parent = act_self();
	ck_assert_uint_ne(act_spawn(pp_yielder, s).id, 0);
	act_yield(); /* the yielder is in the fifo now */
	atomic_store(&s->armed, 1);
	start_pingpong(s);
	act_msg_free(act_receive(ACT_FOREVER));
	atomic_store(&s->stop, 1);
}

START_TEST(test_yielder_runs_during_pingpong)
{
	struct act_config cfg = tu_with_workers(1);
	struct starve s = { 0 };

	ck_assert_int_eq(act_main(&cfg, fifo_fair_main, &s), 0);
	/* PP_LIMIT round trips are 2 * PP_LIMIT pops; one in 61 is the
	 * yielder's (half of that, to leave the rule room) */
	ck_assert_int_eq(s.rounds_after, PP_LIMIT + 1);
	ck_assert_int_ge(s.yields, 2 * PP_LIMIT / FAIR_EVERY / 2);
}
END_TEST

/* The victim waits for a message from a foreign thread (the wake goes
 * through `in`) while a yielder and a ping-pong pair keep busy. */
static void inbox_victim_fn(void *arg)
{
	struct starve *s = arg;

	act_msg_free(act_receive(ACT_FOREVER));
	atomic_store(&s->victim_ran, 1);
}

static struct starve *waker_s;
static act_pid waker_to;

static void *waker_fn(void *arg)
{
	(void)arg;
	while (!atomic_load(&waker_s->started))
		sched_yield();
	if (act_send(waker_to, 1, NULL, 0) == 0)
		atomic_store(&waker_s->armed, 1);
	return NULL;
}

static void inbox_fair_main(void *arg)
{
	struct starve *s = arg;
	pthread_t t;

	s->parent = act_self();
	waker_s = s;
	waker_to = act_spawn(inbox_victim_fn, s);
	ck_assert_uint_ne(waker_to.id, 0);
	ck_assert_uint_ne(act_spawn(pp_yielder, s).id, 0);
	act_yield(); /* victim waits; the yielder is in the fifo */
	ck_assert_int_eq(pthread_create(&t, NULL, waker_fn, NULL), 0);
	start_pingpong(s);
	act_msg_free(act_receive(ACT_FOREVER));
	atomic_store(&s->stop, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	/* let the victim finish if it has not yet */
	while (!atomic_load(&s->victim_ran))
		act_yield();
}

START_TEST(test_inbox_not_starved_by_pingpong_and_yielder)
{
	struct act_config cfg = tu_with_workers(1);
	struct starve s = { 0 };

	ck_assert_int_eq(act_main(&cfg, inbox_fair_main, &s), 0);
	ck_assert_int_eq(atomic_load(&s.armed), 1);
	ck_assert_msg(s.rounds_after <= PP_LIMIT,
		      "a process woken through `in` did not run during "
		      "%ld ping-pong round trips",
		      s.rounds_after);
}
END_TEST

/* An older sibling queued under the ping-pong pair in the lifo. */
static void lifo_victim_fn(void *arg)
{
	struct starve *s = arg;

	atomic_store(&s->victim_ran, 1);
}

static void lifo_fair_main(void *arg)
{
	struct starve *s = arg;

	s->parent = act_self();
	ck_assert_uint_ne(act_spawn(lifo_victim_fn, s).id, 0);
	atomic_store(&s->armed, 1); /* runnable from its spawn on */
	start_pingpong(s);
	act_msg_free(act_receive(ACT_FOREVER));
}

START_TEST(test_lifo_bottom_not_starved_by_pingpong)
{
	struct act_config cfg = tu_with_workers(1);
	struct starve s = { 0 };

	ck_assert_int_eq(act_main(&cfg, lifo_fair_main, &s), 0);
	ck_assert_msg(s.rounds_after <= PP_LIMIT,
		      "a spawned process did not run during %ld ping-pong "
		      "round trips of two processes spawned after it",
		      s.rounds_after);
	ck_assert_int_eq(atomic_load(&s.victim_ran), 1);
}
END_TEST

static Suite *runq_suite(void)
{
	Suite *s = suite_create("runq");
	TCase *tc = tcase_create("queue");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_empty_pop);
	tcase_add_test(tc, test_lifo_newest_first);
	tcase_add_test(tc, test_fifo_oldest_first);
	tcase_add_test(tc, test_lifo_before_fifo);
	tcase_add_test(tc, test_repush_after_pop);
	tcase_add_test(tc, test_remote_push_then_pop);
	tcase_add_test(tc, test_remote_spliced_on_lifo_top);
	tcase_add_test(tc, test_remote_runs_at_next_pop);
	tcase_add_test(tc, test_remote_push_concurrent);
	tcase_add_test(tc, test_pop_order_lifo_out_fifo);
	tcase_add_test(tc, test_fair_fifo_at_61st_pop);
	tcase_add_test(tc, test_fair_out_with_busy_lifo_and_fifo);
	tcase_add_test(tc, test_fair_lifo_bottom_at_976th_pop);
	tcase_add_test(tc, test_fair_every_fifo_served);
	tcase_add_test(tc, test_pop_schedule_exact);
	tcase_add_test(tc, test_publish_counts);
	tcase_add_test(tc, test_publish_oldest_first);
	tcase_add_test(tc, test_publish_skips_sticky);
	tcase_add_test(tc, test_steal_half_oldest_first);
	tcase_add_test(tc, test_steal_from_in);
	tcase_add_test(tc, test_steal_cap);
	tcase_add_test(tc, test_steal_takes_nothing_private);
	tcase_add_test(tc, test_steal_success_not_hungry);
	tcase_add_test(tc, test_hungry_publish_at_pop);
	tcase_add_test(tc, test_steal_keeps_queued);
	tcase_add_test(tc, test_steal_concurrent);
#ifndef ACT_DEBUG
	tcase_add_test(tc, test_I1_duplicate_counted_and_refused);
	tcase_add_test(tc, test_I1_duplicate_while_published_or_stolen);
#else
	tcase_add_test(tc, test_I1_duplicate_aborts);
	tcase_add_test(tc, test_I1_duplicate_of_stolen_aborts);
	tcase_add_test(tc, test_steal_not_runnable_aborts);
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("runtime");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_yield_round_robin);
	tcase_add_test(tc, test_reductions_default_send);
	tcase_add_test(tc, test_reductions_send);
	tcase_add_test(tc, test_reductions_spawn);
	tcase_add_test(tc, test_reductions_receive);
	tcase_add_test(tc, test_reductions_empty_poll_free);
	tcase_add_test(tc, test_yielder_runs_during_pingpong);
	tcase_add_test(tc, test_inbox_not_starved_by_pingpong_and_yielder);
	tcase_add_test(tc, test_lifo_bottom_not_starved_by_pingpong);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(runq_suite());
}
