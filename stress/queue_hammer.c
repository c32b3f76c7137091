/* SPDX-License-Identifier: MIT */
/*
 * queue_hammer.c - the run queue alone (lib/sched/runq.h), hammered: an owner
 * against thieves and remote wakers, on fake processes, no runtime. Every
 * push comes out exactly once, no process runs twice at a time, no
 * duplicate enqueue (I1), a thief only runs what it owns, nothing is lost.
 *
 * --workers N threads each own a queue, as workers do: thread 0, the
 * owner, has the one stealable queue; threads 1..N-1 are thieves, which
 * steal from it (act__runq_steal) into their own and pop that. --remote R
 * more threads play the reactor and foreign senders: they wake parked
 * processes onto the queue of the thread that last ran them
 * (act__runq_push_remote, so into `in`, where thieves may take them).
 *
 * --procs P zeroed process slots, RUNNABLE, each run --iters / P times
 * (at least once).
 * A run, by the thread's PRNG, then: pushes the process on its own lifo
 * (a local wake), on its own fifo (a yield), parks it for a remote waker,
 * or, on a thief, wakes it onto the owner's queue. The owner publishes
 * when a thief asked (act__runq_should_publish), before each pop, as the
 * worker loop does; before anything else it publishes once a thief has
 * asked and waits until a thief took some, so a steal happens however
 * short the run. Per process: pushes and pops counted (a pop must
 * match the pushes so far), and a `running` flag taken at each pop and
 * given back at the next push; at the end every count is --iters / P,
 * every queue empty, and some steals happened.
 *
 * The seed drives each thread's choices, not the interleaving.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/systematic.h"
#include "sched/runq.h"
#include "sched/worker.h"

#include "common.h"

#define MAX_WORKERS 64
#define MAX_REMOTE 8

static long n_procs = 1000, n_remote = 1;

static const struct st_flag flags[] = {
	{ "procs", &n_procs, 1, 1L << 20, "fake processes" },
	{ "remote", &n_remote, 0, MAX_REMOTE, "remote waker threads" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "queue_hammer",
	.iters_name = "runs",
	.iters_help = "process runs in all (each process --iters / --procs)",
	.workers = 3,
	.iters = 1000000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

/* Per process, beside its slot. */
struct book {
	_Atomic uint64_t pushes, pops;
	_Atomic uint32_t runs;
	_Atomic uint8_t running;
} __attribute__((aligned(64)));

/* Per worker thread. */
struct hw {
	struct act__runq rq;
	struct act__worker *w; /* only its address: the owner field */
	struct st_rng rng;
	int id;
	_Atomic uint64_t runs, steals, stolen, published, remote;
	pthread_t thread;
	int sys_n; /* its systematic participant, or -1 */
} __attribute__((aligned(64)));

static struct {
	struct act__proc *procs;
	struct book *book;
	struct hw *hw;
	struct act__worker *fake; /* nworkers fake workers */
	int nworkers;
	uint32_t per_proc;	   /* runs of each process */
	_Atomic uint64_t finished; /* processes that ran per_proc times */
	_Atomic uint64_t double_run, bad_pop, bad_owner, still_queued,
		bad_state;
	/* parked processes, for the remote wakers */
	pthread_mutex_t park_mu;
	uint32_t *parked, nparked;
	_Atomic uint64_t remote_wakes;
	pthread_t remote[MAX_REMOTE];
	int remote_sys[MAX_REMOTE];
} h = { .park_mu = PTHREAD_MUTEX_INITIALIZER };

/* A per-thread counter summed over the worker threads. */
static uint64_t sum(size_t off)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < h.nworkers; i++)
		s += st_get((_Atomic uint64_t *)((char *)&h.hw[i] + off));
	return s;
}

#define SUM(field) sum(offsetof(struct hw, field))

static bool done(void)
{
	return st_get(&h.finished) == (uint64_t)n_procs;
}

static uint32_t pidx(const struct act__proc *p)
{
	return (uint32_t)(p - h.procs);
}

static void mark_runnable(struct act__proc *p)
{
	atomic_store_explicit(&p->state, act__ps_make(0, ACT_PS_RUNNABLE),
			      memory_order_relaxed);
}

/* Before a push: give the process back; the pop that takes it must see
 * this push counted. */
static void before_push(struct act__proc *p)
{
	struct book *b = &h.book[pidx(p)];

	mark_runnable(p);
	st_add(&b->pushes, 1);
	atomic_store_explicit(&b->running, 0, memory_order_release);
}

static void park(struct act__proc *p)
{
	before_push(p); /* counts as the push a remote waker will make */
	pthread_mutex_lock(&h.park_mu);
	h.parked[h.nparked++] = pidx(p);
	pthread_mutex_unlock(&h.park_mu);
}

/* What a run of p on hw found wrong, counted; true to go on with it. */
static bool take(struct hw *t, struct act__proc *p)
{
	struct book *b = &h.book[pidx(p)];
	uint64_t pops;

	if (atomic_exchange_explicit(&b->running, 1, memory_order_acquire)) {
		st_report(&h.double_run, "proc %u: popped while running",
			  pidx(p));
		return false;
	}
	pops = atomic_fetch_add_explicit(&b->pops, 1, memory_order_relaxed) + 1;
	if (pops != st_get(&b->pushes))
		st_report(&h.bad_pop,
			  "proc %u: pop %" PRIu64 " after %" PRIu64 " pushes",
			  pidx(p), pops, st_get(&b->pushes));
	if (atomic_load_explicit(&p->queued, memory_order_relaxed))
		st_report(&h.still_queued, "proc %u: queued after its pop",
			  pidx(p));
	if (act__ps(atomic_load_explicit(&p->state, memory_order_relaxed)) !=
	    ACT_PS_RUNNABLE)
		st_report(&h.bad_state, "proc %u: popped in state %u", pidx(p),
			  act__ps(atomic_load(&p->state)));
	/* a thief runs only what it owns: steals move ownership first */
	if (t->id &&
	    atomic_load_explicit(&p->owner, memory_order_relaxed) != t->w)
		st_report(&h.bad_owner, "proc %u: thief %d runs another's",
			  pidx(p), t->id);
	return true;
}

/* Run p on t, then queue it again, park it, or retire it. */
static void run(struct hw *t, struct act__proc *p)
{
	struct book *b = &h.book[pidx(p)];
	uint32_t r;

	if (!take(t, p))
		return;
	atomic_store_explicit(&p->state, act__ps_make(0, ACT_PS_RUNNING),
			      memory_order_relaxed);
	atomic_store_explicit(&p->owner, t->w, memory_order_relaxed);
	st_add(&t->runs, 1);
	if (atomic_fetch_add_explicit(&b->runs, 1, memory_order_relaxed) + 1 ==
	    h.per_proc) {
		st_add(&h.finished, 1);
		return;
	}
	r = st_rng_below(&t->rng, 8);
	if (r < 3) { /* woken by a process here */
		before_push(p);
		act__runq_push_lifo(&t->rq, p);
	} else if (r < 5) { /* yielded */
		before_push(p);
		act__runq_push_fifo(&t->rq, p);
	} else if (r < 6 && t->id) { /* woken onto the owner's worker */
		before_push(p);
		act__runq_push_remote(&h.hw[0].rq, p);
		st_add(&t->remote, 1);
	} else if (n_remote) { /* waits for a remote wake */
		park(p);
	} else {
		before_push(p);
		act__runq_push_fifo(&t->rq, p);
	}
}

/* A steal, sure to happen: publish once a thief asked, and wait until one
 * took some before popping anything (a stall here is a lost steal). */
static void first_steal(struct hw *t)
{
	while (!atomic_load(&t->rq.hungry))
		st_spin(64);
	st_add(&t->published, act__runq_publish(&t->rq));
	while (!SUM(steals))
		st_spin(64);
}

static void *owner_main(void *arg)
{
	struct hw *t = arg;
	struct act__proc *p;

	act__systematic_enter(t->sys_n);
	if (h.nworkers > 1 && n_procs > 1)
		first_steal(t);
	while (!done()) {
		if (act__runq_should_publish(&t->rq))
			st_add(&t->published, act__runq_publish(&t->rq));
		p = act__runq_pop(&t->rq);
		if (p)
			run(t, p);
		else
			st_spin(16);
	}
	act__systematic_exit();
	return NULL;
}

static void *thief_main(void *arg)
{
	struct hw *t = arg;
	struct act__proc *p;
	uint32_t k;

	act__systematic_enter(t->sys_n);
	while (!done()) {
		p = act__runq_pop(&t->rq);
		if (p) {
			run(t, p);
			continue;
		}
		k = act__runq_steal(&h.hw[0].rq, &t->rq, t->w);
		if (k) {
			st_add(&t->steals, 1);
			st_add(&t->stolen, k);
		} else {
			st_spin(32);
		}
	}
	act__systematic_exit();
	return NULL;
}

/* Wake parked processes onto the queue of the thread that ran them. */
static void *remote_main(void *arg)
{
	struct st_rng rng;
	struct act__proc *p;
	uint32_t i;

	act__systematic_enter(h.remote_sys[(uintptr_t)arg]);
	st_rng_init(&rng, args.seed, 1000 + (uint64_t)(uintptr_t)arg);
	while (!done()) {
		p = NULL;
		pthread_mutex_lock(&h.park_mu);
		if (h.nparked) {
			/* any of them, not only the latest */
			i = st_rng_below(&rng, h.nparked);
			p = &h.procs[h.parked[i]];
			h.parked[i] = h.parked[--h.nparked];
		}
		pthread_mutex_unlock(&h.park_mu);
		if (!p) {
			st_spin(64);
			continue;
		}
		for (i = 0; i < (uint32_t)h.nworkers; i++)
			if (atomic_load(&p->owner) == h.hw[i].w)
				break;
		if (i == (uint32_t)h.nworkers)
			i = 0;
		act__runq_push_remote(&h.hw[i].rq, p);
		st_add(&h.remote_wakes, 1);
	}
	act__systematic_exit();
	return NULL;
}

/* ---- setup, checks, result ----------------------------------------------- */

static uint64_t qh_progress(void)
{
	return SUM(runs);
}

static uint64_t violations(void)
{
	return st_get(&h.double_run) + st_get(&h.bad_pop) +
	       st_get(&h.bad_owner) + st_get(&h.still_queued) +
	       st_get(&h.bad_state);
}

static void qh_figures(char *buf, size_t n)
{
	uint64_t dup = 0;
	int i;

	for (i = 0; h.hw && i < h.nworkers; i++)
		dup += st_get(&h.hw[i].rq.dup_enqueues);
	snprintf(buf, n,
		 "runs %" PRIu64 " of %" PRIu64 ", double-run %" PRIu64
		 ", bad pop %" PRIu64 ", bad owner %" PRIu64
		 ", dup-enqueue %" PRIu64 ", steals %" PRIu64 " (%" PRIu64
		 " procs), published %" PRIu64 ", remote pushes %" PRIu64
		 ", remote wakes %" PRIu64,
		 h.hw ? qh_progress() : 0,
		 (uint64_t)h.per_proc * (uint64_t)n_procs,
		 st_get(&h.double_run), st_get(&h.bad_pop),
		 st_get(&h.bad_owner), dup, h.hw ? SUM(steals) : 0,
		 h.hw ? SUM(stolen) : 0, h.hw ? SUM(published) : 0,
		 h.hw ? SUM(remote) : 0, st_get(&h.remote_wakes));
}

static int setup(void)
{
	/* no process table here: a pid only names its process in reports */
	const struct act__ptable pids = { .idx_bits = 32 };
	size_t np = (size_t)n_procs, nw;
	uint32_t i;

	h.nworkers = (int)args.workers;
	if (h.nworkers > MAX_WORKERS) {
		fprintf(stderr, "queue_hammer: at most %d workers\n",
			MAX_WORKERS);
		return ST_EXIT_USAGE;
	}
	h.per_proc = (uint32_t)(args.iters / n_procs);
	if (!h.per_proc)
		h.per_proc = 1; /* --iters below --procs: one run each */
	nw = (size_t)h.nworkers;
	h.procs = aligned_alloc(64, np * sizeof(*h.procs));
	h.book = aligned_alloc(64, np * sizeof(*h.book));
	h.hw = aligned_alloc(64, nw * sizeof(*h.hw));
	h.fake = calloc(nw, sizeof(*h.fake));
	h.parked = calloc(np, sizeof(*h.parked));
	if (!h.procs || !h.book || !h.hw || !h.fake || !h.parked) {
		fputs("queue_hammer: out of memory\n", stderr);
		return ST_EXIT_FAIL;
	}
	memset(h.procs, 0, np * sizeof(*h.procs));
	memset(h.book, 0, np * sizeof(*h.book));
	memset(h.hw, 0, nw * sizeof(*h.hw));
	for (i = 0; i < np; i++) {
		h.procs[i].index = i;
		h.procs[i].pid = act__proc_make_pid(&pids, 1, i);
	}
	for (i = 0; i < nw; i++) {
		h.hw[i].id = (int)i;
		h.hw[i].w = &h.fake[i];
		act__runq_init(&h.hw[i].rq, i == 0 && nw > 1);
		st_rng_init(&h.hw[i].rng, args.seed, i);
	}
	/* every process starts on the owner's queue, half lifo, half fifo */
	for (i = 0; i < np; i++) {
		atomic_store(&h.procs[i].owner, h.hw[0].w);
		before_push(&h.procs[i]);
		if (i & 1)
			act__runq_push_fifo(&h.hw[0].rq, &h.procs[i]);
		else
			act__runq_push_lifo(&h.hw[0].rq, &h.procs[i]);
	}
	return ST_RUN;
}

static void free_all(void)
{
	free(h.procs);
	free(h.book);
	free(h.hw);
	free(h.fake);
	free(h.parked);
}

/* The threads are joined: every count exact, every queue empty. */
static void check_end(void)
{
	uint32_t i;
	int k;

	for (i = 0; i < (uint32_t)n_procs; i++) {
		struct book *b = &h.book[i];

		if (st_get(&b->pushes) != st_get(&b->pops) ||
		    atomic_load(&b->runs) != h.per_proc)
			st_report(&h.bad_pop,
				  "proc %u: %" PRIu64 " pushes, %" PRIu64
				  " pops, %u runs of %u",
				  i, st_get(&b->pushes), st_get(&b->pops),
				  atomic_load(&b->runs), h.per_proc);
		if (atomic_load(&h.procs[i].queued))
			st_report(&h.still_queued, "proc %u: queued at the end",
				  i);
	}
	for (k = 0; k < h.nworkers; k++) {
		struct act__runq *q = &h.hw[k].rq;

		if (act__runq_pop(q) || atomic_load(&q->n_in) ||
		    atomic_load(&q->n_out))
			st_report(&h.bad_pop, "worker %d: queue not empty", k);
		if (st_get(&q->dup_enqueues))
			st_report(&h.bad_pop,
				  "worker %d: %" PRIu64 " duplicate enqueues",
				  k, st_get(&q->dup_enqueues));
	}
	if (h.nparked)
		st_report(&h.bad_pop, "%u processes still parked", h.nparked);
	if (h.nworkers > 1 && n_procs > 1 && !SUM(steals))
		st_report(&h.bad_pop, "no steal took anything: nothing was "
				      "hammered");
}

int st_main_queue_hammer(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = qh_figures,
		.progress = qh_progress,
		.violations = violations,
	};
	int rc = st_parse(&args, argc, argv), k, started = 0, nrem = 0;
	const char *seed_s = getenv("ACTORS_SEED");
	uint64_t sys_seed = 0;

	if (rc != ST_RUN)
		return rc;
	if (seed_s && ACT_SYSTEMATIC)
		sys_seed = strtoull(seed_s, NULL, 10);
	rc = setup();
	if (rc != ST_RUN) {
		free_all();
		return rc;
	}
	rc = st_watch_start(&w);
	/* ACTORS_SEED in a systematic build: this program's threads are
	 * its participants, as a runtime's would be (base/systematic.h) */
	if (!rc && sys_seed)
		rc = act__systematic_begin(sys_seed);
	for (k = 0; !rc && k < h.nworkers; k++, started++) {
		h.hw[k].sys_n = act__systematic_thread_new("hammer");
		rc = -pthread_create(&h.hw[k].thread, NULL,
				     k ? thief_main : owner_main, &h.hw[k]);
		if (rc)
			act__systematic_thread_gone(h.hw[k].sys_n);
	}
	for (k = 0; !rc && k < n_remote; k++, nrem++) {
		h.remote_sys[k] = act__systematic_thread_new("remote");
		rc = -pthread_create(&h.remote[k], NULL, remote_main,
				     (void *)(uintptr_t)k);
		if (rc)
			act__systematic_thread_gone(h.remote_sys[k]);
	}
	if (rc) {
		fprintf(stderr, "queue_hammer: no thread: %s\n", strerror(-rc));
		atomic_store(&h.finished, (uint64_t)n_procs); /* stop all */
	}
	for (k = 0; k < started; k++) {
		act__systematic_join(h.hw[k].sys_n);
		pthread_join(h.hw[k].thread, NULL);
	}
	for (k = 0; k < nrem; k++) {
		act__systematic_join(h.remote_sys[k]);
		pthread_join(h.remote[k], NULL);
	}
	if (sys_seed)
		act__systematic_end();
	st_watch_stop();
	if (!rc)
		check_end();
	rc = st_finish(&w, rc, violations());
	free_all();
	return rc;
}
