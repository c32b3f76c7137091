/* SPDX-License-Identifier: MIT */
/*
 * test_runq.c - a worker's runnable queue (lib/runq.h).
 *
 * First the queue alone, on zeroed process slots and no runtime: order of
 * the lifo, fifo and inbox parts, pushes from other threads, the
 * every-61st-pop fairness rule, and the duplicate-enqueue check (I1).
 * Then through a runtime on one worker: yield round-robin, forced yields
 * after the reduction budget, and that no runnable process starves behind
 * a pair of processes that keep waking each other.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "testutil.h"

#include "runq.h"
#include "runtime.h"
#include "worker.h"

#define FAIR_EVERY 61
#define NPROCS 2048

static struct act__proc procs[NPROCS];
static struct act__runq q;

static void setup(void)
{
	memset(procs, 0, sizeof(procs));
	for (int i = 0; i < NPROCS; i++)
		procs[i].index = (uint32_t)i;
	act__runq_init(&q, false);
}

static int idx(struct act__proc *p)
{
	ck_assert_ptr_nonnull(p);
	return (int)(p - procs);
}

/* --- order of each part ------------------------------------------------- */

START_TEST(test_empty_pop)
{
	setup();
	ck_assert(!act__runq_maybe_nonempty(&q));
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
	for (i = 2; i < 6; i++)             /* spawned after */
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

/* --- the inbox: pushes from other threads -------------------------------- */

static void *push_100_remote(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 100; i++)
		act__runq_push_remote(&q, &procs[i]);
	return NULL;
}

/* Pushed by another thread, popped here afterwards, in push order. */
START_TEST(test_remote_push_then_pop)
{
	pthread_t t;
	int i;

	setup();
	ck_assert(!act__runq_maybe_nonempty(&q));
	ck_assert_int_eq(pthread_create(&t, NULL, push_100_remote, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert(act__runq_maybe_nonempty(&q));
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(atomic_load(&procs[i].queued), 1);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(idx(act__runq_pop(&q)), i);
	ck_assert_ptr_null(act__runq_pop(&q));
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

/* Two threads push while the owner pops: each process comes out once,
 * each producer's in its push order. */
START_TEST(test_remote_push_concurrent)
{
	struct producer pr[PRODUCERS];
	pthread_t t[PRODUCERS];
	int next[PRODUCERS], seen = 0, i, k;
	long spins = 0;
	atomic_int go = 0;

	setup();
	for (k = 0; k < PRODUCERS; k++) {
		pr[k] = (struct producer){ k * PER_PRODUCER, &go };
		next[k] = k * PER_PRODUCER;
		ck_assert_int_eq(
			pthread_create(&t[k], NULL, producer_fn, &pr[k]), 0);
	}
	atomic_store(&go, 1);
	while (seen < PRODUCERS * PER_PRODUCER) {
		struct act__proc *p = act__runq_pop(&q);

		if (!p) {
			/* a producer may sit between exchange and link:
			 * "empty for now"; it finishes in bounded time */
			ck_assert_int_lt(++spins, 2000000000L);
			continue;
		}
		i = idx(p);
		k = i / PER_PRODUCER;
		ck_assert_int_eq(i, next[k]);
		next[k]++;
		seen++;
	}
	for (k = 0; k < PRODUCERS; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	ck_assert_ptr_null(act__runq_pop(&q));
	ck_assert_uint_eq(atomic_load(&q.dup_enqueues), 0);
}
END_TEST

/* --- fairness: every 61st pop ------------------------------------------- */

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

START_TEST(test_fair_fifo_within_61_pops)
{
	int at;

	setup();
	act__runq_push_fifo(&q, &procs[20]);
	act__runq_push_lifo(&q, &procs[0]);
	act__runq_push_lifo(&q, &procs[1]);
	at = pops_until(&procs[20], 10 * FAIR_EVERY, false);
	ck_assert_int_gt(at, 0);
	ck_assert_int_le(at, FAIR_EVERY);
}
END_TEST

START_TEST(test_fair_inbox_within_61_pops)
{
	int at;

	setup();
	act__runq_push_remote(&q, &procs[30]);
	act__runq_push_lifo(&q, &procs[0]);
	act__runq_push_lifo(&q, &procs[1]);
	at = pops_until(&procs[30], 10 * FAIR_EVERY, false);
	ck_assert_int_gt(at, 0);
	ck_assert_int_le(at, FAIR_EVERY);
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
 * The inbox is not starved when both the lifo (a ping-pong pair) and the
 * fifo (a yielding process) are never empty: runq.h promises that neither
 * fifo nor inbox starves behind such a pair. Any fair rule serves it in a
 * few rounds of 61 pops; we allow 10,000 pops.
 */
START_TEST(test_fair_inbox_with_busy_fifo)
{
	setup();
	act__runq_push_fifo(&q, &procs[20]);
	act__runq_push_remote(&q, &procs[30]);
	act__runq_push_lifo(&q, &procs[0]);
	act__runq_push_lifo(&q, &procs[1]);
	ck_assert_msg(pops_until(&procs[30], 10000, true) > 0,
		      "a process in the inbox was never popped while the "
		      "lifo and fifo stayed busy");
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

static const push_fn pushes[3] = { push_lifo_fn, push_fifo_fn,
				   push_remote_fn };

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
			ck_assert_uint_eq(atomic_load(&q.dup_enqueues),
					  ++dups);
			ck_assert_ptr_eq(act__runq_pop(&q), p);
			ck_assert_ptr_null(act__runq_pop(&q));
			ck_assert_uint_eq((q.nlifo + q.nfifo), 0);
		}
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
#endif

/* --- through the runtime ----------------------------------------------- */

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
	ck_assert_int_eq(act_main(NULL, yield_main, NULL), 0);
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
	int yields;          /* forced yields seen */
	int misplaced;       /* yields not at k * R - 1 */
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
	act_config_init(&cfg);
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
	ck_assert_int_eq(check_reductions(RED_SEND, 0),
			 RED_N / 2000);
}
END_TEST

START_TEST(test_reductions_send)
{
	ck_assert_int_eq(check_reductions(RED_SEND, 100),
			 RED_N / 100);
}
END_TEST

START_TEST(test_reductions_spawn)
{
	ck_assert_int_eq(check_reductions(RED_SPAWN, 100),
			 RED_N / 100);
}
END_TEST

START_TEST(test_reductions_receive)
{
	ck_assert_int_eq(check_reductions(RED_RECEIVE, 100),
			 RED_N / 100);
}
END_TEST

START_TEST(test_reductions_empty_poll_free)
{
	ck_assert_int_eq(check_reductions(RED_POLL_EMPTY, 100), 0);
}
END_TEST

/* --- nobody starves behind a ping-pong pair ------------------------------ */

#define PP_LIMIT 100000  /* round trips allowed once the victim is runnable */

struct starve {
	act_pid parent, partner;
	atomic_int victim_ran;
	atomic_int armed;     /* the victim is runnable from now on */
	atomic_int started;
	atomic_int stop;
	long rounds_after;    /* ping-pong rounds while the victim waited */
	int yields;           /* the yielder's turns */
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
	struct starve s = { 0 };

	ck_assert_int_eq(act_main(NULL, fifo_fair_main, &s), 0);
	/* PP_LIMIT round trips are 2 * PP_LIMIT pops; one in 61 is the
	 * yielder's (half of that, to leave the rule room) */
	ck_assert_int_eq(s.rounds_after, PP_LIMIT + 1);
	ck_assert_int_ge(s.yields, 2 * PP_LIMIT / FAIR_EVERY / 2);
}
END_TEST

/* The victim waits for a message from a foreign thread (the wake goes
 * through the inbox) while a yielder and a ping-pong pair keep busy. */
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
	struct starve s = { 0 };

	ck_assert_int_eq(act_main(NULL, inbox_fair_main, &s), 0);
	ck_assert_int_eq(atomic_load(&s.armed), 1);
	ck_assert_msg(s.rounds_after <= PP_LIMIT,
		      "a process woken through the inbox did not run during "
		      "%ld ping-pong round trips", s.rounds_after);
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
	struct starve s = { 0 };

	ck_assert_int_eq(act_main(NULL, lifo_fair_main, &s), 0);
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
	tcase_add_test(tc, test_remote_push_concurrent);
	tcase_add_test(tc, test_fair_fifo_within_61_pops);
	tcase_add_test(tc, test_fair_inbox_within_61_pops);
	tcase_add_test(tc, test_fair_every_fifo_served);
	tcase_add_test(tc, test_fair_inbox_with_busy_fifo);
#ifndef ACT_DEBUG
	tcase_add_test(tc, test_I1_duplicate_counted_and_refused);
#else
	tcase_add_test(tc, test_I1_duplicate_aborts);
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
