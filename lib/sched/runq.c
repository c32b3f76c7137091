/* SPDX-License-Identifier: MIT */
/* runq.c - a worker's runnable queue; see runq.h. */
#include "runq.h"
#include "worker.h"

#define FAIR_EVERY 61	     /* pops between fairness pops */
#define LIFO_BOTTOM_EVERY 16 /* fairness pops between lifo-bottom pops */

void act__runq_init(struct act__runq *q, bool stealable)
{
	q->lifo.top = q->lifo.bottom = NULL;
	q->fifo_head = q->fifo_tail = NULL;
	q->tick = FAIR_EVERY;
	q->ticks = 0;
	atomic_store_explicit(&q->nlifo, 0, memory_order_relaxed);
	atomic_store_explicit(&q->nfifo, 0, memory_order_relaxed);
	q->stealable = stealable;
	atomic_store_explicit(&q->lock, 0, memory_order_relaxed);
	atomic_store_explicit(&q->n_in, 0, memory_order_relaxed);
	atomic_store_explicit(&q->n_out, 0, memory_order_relaxed);
	q->in.top = q->in.bottom = NULL;
	q->out.top = q->out.bottom = NULL;
	atomic_store_explicit(&q->hungry, 0, memory_order_relaxed);
	atomic_store_explicit(&q->dup_enqueues, 0, memory_order_relaxed);
}

void act__runq_duplicate(struct act__runq *q, struct act__proc *p)
{
	char s[ACT_PID_STRLEN];

	atomic_fetch_add_explicit(&q->dup_enqueues, 1, memory_order_relaxed);
	if (ACT_DEBUG_ON) {
		act_pid_format(p->pid, s, sizeof(s));
		act__fatal("duplicate enqueue of process %s (I1)", s);
	}
}

static void stole_bad(struct act__proc *p)
{
	char s[ACT_PID_STRLEN];

	act_pid_format(p->pid, s, sizeof(s));
	act__fatal(
		"stole process %s in state %u", s,
		act__ps(atomic_load_explicit(&p->state, memory_order_relaxed)));
}

/* ---- list helpers ------------------------------------------------------ */

static struct act__proc *plist_pop_top(struct act__plist *l)
{
	struct act__proc *p = l->top;

	if (p) {
		l->top = p->rq_next;
		if (l->top)
			l->top->rq_prev = NULL;
		else
			l->bottom = NULL;
	}
	return p;
}

static struct act__proc *plist_pop_bottom(struct act__plist *l)
{
	struct act__proc *p = l->bottom;

	if (p) {
		l->bottom = p->rq_prev;
		if (l->bottom)
			l->bottom->rq_next = NULL;
		else
			l->top = NULL;
	}
	return p;
}

/* Put all of `from` (top .. bottom) on top of `to`, keeping its order. */
static void plist_splice_top(struct act__plist *to, struct act__plist *from)
{
	if (!from->top)
		return;
	from->bottom->rq_next = to->top;
	if (to->top)
		to->top->rq_prev = from->bottom;
	else
		to->bottom = from->bottom;
	to->top = from->top;
	from->top = from->bottom = NULL;
}

/* ---- owner ------------------------------------------------------------- */

void act__runq_push_fifo(struct act__runq *q, struct act__proc *p)
{
	if (!act__runq_mark_queued(q, p))
		return;
	p->rq_next = NULL;
	if (q->fifo_tail)
		q->fifo_tail->rq_next = p;
	else
		q->fifo_head = p;
	q->fifo_tail = p;
	act__count(&q->nfifo);
}

static struct act__proc *pop_fifo(struct act__runq *q)
{
	struct act__proc *p = q->fifo_head;

	if (p) {
		q->fifo_head = p->rq_next;
		if (!q->fifo_head)
			q->fifo_tail = NULL;
		act__runq_uncount(&q->nfifo);
	}
	return p;
}

static struct act__proc *pop_lifo(struct act__runq *q, bool bottom)
{
	struct act__proc *p = bottom ? plist_pop_bottom(&q->lifo) :
				       plist_pop_top(&q->lifo);

	if (p)
		act__runq_uncount(&q->nlifo);
	return p;
}

/* Owner: take back one published process (newest, or oldest for
 * fairness); NULL when a thief took them all. */
static struct act__proc *pop_out(struct act__runq *q, bool oldest)
{
	struct act__proc *p;

	if (!atomic_load_explicit(&q->n_out, memory_order_relaxed))
		return NULL;
	act__spin_lock(&q->lock); /* pairs with the unlock below */
	p = oldest ? plist_pop_bottom(&q->out) : plist_pop_top(&q->out);
	if (p)
		atomic_store_explicit(
			&q->n_out,
			atomic_load_explicit(&q->n_out, memory_order_relaxed) -
				1,
			memory_order_relaxed);
	act__spin_unlock(&q->lock);
	return p;
}

/* Owner: the remote arrivals go on top of the lifo, newest first. */
static void splice_in(struct act__runq *q)
{
	uint32_t n;

	act__spin_lock(&q->lock); /* pairs with the unlock below */
	n = atomic_load_explicit(&q->n_in, memory_order_relaxed);
	plist_splice_top(&q->lifo, &q->in);
	atomic_store_explicit(&q->n_in, 0, memory_order_relaxed);
	act__spin_unlock(&q->lock);
	act__count_n(&q->nlifo, n);
}

/* Every FAIR_EVERY pops: fifo and `out` in turn, now and then the lifo's
 * bottom; whatever that finds empty falls back to the usual order. */
static struct act__proc *pop_fair(struct act__runq *q)
{
	struct act__proc *p = NULL;

	q->tick = FAIR_EVERY;
	q->ticks++;
	if (q->ticks % LIFO_BOTTOM_EVERY == 0)
		p = pop_lifo(q, true);
	if (!p && (q->ticks & 1))
		p = pop_fifo(q);
	if (!p && !(q->ticks & 1))
		p = pop_out(q, true);
	return p;
}

struct act__proc *act__runq_pop(struct act__runq *q)
{
	struct act__proc *p = NULL;

	if (atomic_load_explicit(&q->n_in, memory_order_relaxed))
		splice_in(q);
	if (act__unlikely(--q->tick == 0))
		p = pop_fair(q);
	if (!p && !(p = pop_lifo(q, false)) && !(p = pop_out(q, false)))
		p = pop_fifo(q);
	if (p) /* release: pairs with the acquire in act__runq_mark_queued */
		atomic_store_explicit(&p->queued, 0, memory_order_release);
	return p;
}

static void plist_unlink(struct act__plist *l, struct act__proc *p)
{
	if (p->rq_prev)
		p->rq_prev->rq_next = p->rq_next;
	else
		l->top = p->rq_next;
	if (p->rq_next)
		p->rq_next->rq_prev = p->rq_prev;
	else
		l->bottom = p->rq_prev;
}

#define PUBLISH_SCAN 64 /* sticky processes a publish looks past, at most */

/* The fifo's part of take_oldest: its head first. */
static void take_fifo(struct act__runq *q, uint32_t n, uint32_t *scan,
		      struct act__plist *to, uint32_t *k)
{
	struct act__proc *p, *prev = NULL, *next;

	for (p = q->fifo_head; p && *k < n && *scan; p = next, (*scan)--) {
		next = p->rq_next;
		if (act__proc_sticky(p, q->index)) {
			prev = p;
			continue;
		}
		if (prev)
			prev->rq_next = next;
		else
			q->fifo_head = next;
		if (q->fifo_tail == p)
			q->fifo_tail = prev;
		act__runq_uncount(&q->nfifo);
		act__runq_plist_push_top(to, p);
		(*k)++;
	}
}

/* Detach up to n of the oldest private processes that are not sticky
 * (fifo head first, then the lifo bottom up) as a list, oldest at the
 * bottom; returns how many. */
static uint32_t take_oldest(struct act__runq *q, uint32_t n,
			    struct act__plist *to)
{
	uint32_t k = 0, scan = n + PUBLISH_SCAN;
	struct act__proc *p, *next;

	to->top = to->bottom = NULL;
	take_fifo(q, n, &scan, to, &k);
	for (p = q->lifo.bottom; p && k < n && scan; p = next, scan--) {
		next = p->rq_prev;
		if (act__proc_sticky(p, q->index))
			continue;
		plist_unlink(&q->lifo, p);
		act__runq_uncount(&q->nlifo);
		act__runq_plist_push_top(to, p);
		k++;
	}
	return k;
}

uint32_t act__runq_publish(struct act__runq *q)
{
	uint32_t n = (act__runq_surplus(q) + 1) / 2;
	struct act__plist batch;

	/* relaxed: the flag is a hint; the thief re-reads the counts */
	atomic_store_explicit(&q->hungry, 0, memory_order_relaxed);
	if (n > ACT_STEAL_MAX)
		n = ACT_STEAL_MAX;
	if (!n || !(n = take_oldest(q, n, &batch)))
		return 0;
	act__spin_lock(&q->lock); /* pairs with the unlock below */
	plist_splice_top(&q->out, &batch);
	/* seq_cst: the publish half of the idle Dekker pair; a parking
	 * worker announces itself, then re-reads n_out (seq_cst) */
	atomic_fetch_add_explicit(&q->n_out, n, memory_order_seq_cst);
	act__spin_unlock(&q->lock);
	return n;
}

/* ---- other threads ------------------------------------------------------ */

void act__runq_push_remote(struct act__runq *q, struct act__proc *p)
{
	if (!act__runq_mark_queued(q, p))
		return;
	act__spin_lock(&q->lock); /* pairs with the unlock below */
	act__runq_plist_push_top(&q->in, p);
	/* seq_cst: the publish half of the doorbell Dekker pair, before the
	 * seq_cst load of `sleeping` in act__park_ring */
	atomic_fetch_add_explicit(&q->n_in, 1, memory_order_seq_cst);
	act__spin_unlock(&q->lock);
}

bool act__runq_maybe_nonempty(struct act__runq *q)
{
	return q->lifo.top || q->fifo_head || act__runq_shared_nonempty(q);
}

/* Under v's lock: detach up to n from the bottom of `l`, counted in *cnt. */
static uint32_t take_bottom(struct act__plist *l, _Atomic uint32_t *cnt,
			    uint32_t n, struct act__plist *to)
{
	uint32_t k = 0;
	struct act__proc *p;

	while (k < n && (p = plist_pop_bottom(l))) {
		act__runq_plist_push_top(to, p);
		k++;
	}
	atomic_store_explicit(
		cnt, atomic_load_explicit(cnt, memory_order_relaxed) - k,
		memory_order_relaxed);
	return k;
}

static uint32_t grab(struct act__runq *v, struct act__plist *batch)
{
	uint32_t avail, n, k;

	act__spin_lock(&v->lock); /* pairs with the unlock below */
	avail = atomic_load_explicit(&v->n_out, memory_order_relaxed) +
		atomic_load_explicit(&v->n_in, memory_order_relaxed);
	n = (avail + 1) / 2;
	if (n > ACT_STEAL_MAX)
		n = ACT_STEAL_MAX;
	k = take_bottom(&v->out, &v->n_out, n, batch);
	k += take_bottom(&v->in, &v->n_in, n - k, batch);
	act__spin_unlock(&v->lock);
	return k;
}

uint32_t act__runq_steal(struct act__runq *v, struct act__runq *q,
			 struct act__worker *thief)
{
	struct act__plist batch = { NULL, NULL };
	struct act__proc *p;
	uint32_t k;

	if (!atomic_load_explicit(&v->n_out, memory_order_relaxed) &&
	    !atomic_load_explicit(&v->n_in, memory_order_relaxed)) {
		/* read first: an idle thief must not keep dirtying the line
		 * the victim reads at every pop */
		if (!atomic_load_explicit(&v->hungry, memory_order_relaxed))
			atomic_store_explicit(&v->hungry, 1,
					      memory_order_relaxed);
		return 0;
	}
	k = grab(v, &batch);
	/* oldest first, so the youngest ends on top of the thief's lifo
	 * and runs first (depth-first, as on the victim) */
	while ((p = plist_pop_bottom(&batch))) {
		if (ACT_DEBUG_ON && act__ps(atomic_load_explicit(
					    &p->state, memory_order_relaxed)) !=
					    ACT_PS_RUNNABLE)
			stole_bad(p);
		/* ownership moves before the thief can run it (I3) */
		atomic_store_explicit(&p->owner, thief, memory_order_relaxed);
		act__runq_plist_push_top(&q->lifo, p);
		act__count(&q->nlifo);
	}
	return k;
}
