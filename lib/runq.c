/* SPDX-License-Identifier: MIT */
/* runq.c - a worker's runnable queue; see runq.h. */
#include "runq.h"

#define FAIR_EVERY 61     /* pops between fairness pops */
#define LIFO_BOTTOM_EVERY 16 /* fairness pops between lifo-bottom pops */

void act__runq_init(struct act__runq *q)
{
	q->top = q->bottom = NULL;
	q->fifo_head = q->fifo_tail = NULL;
	q->tick = FAIR_EVERY;
	q->ticks = 0;
	q->len = 0;
	act__mpsc_init(&q->inbox);
	atomic_store_explicit(&q->dup_enqueues, 0, memory_order_relaxed);
}

void act__runq_duplicate(struct act__runq *q, struct act__proc *p)
{
	atomic_fetch_add_explicit(&q->dup_enqueues, 1, memory_order_relaxed);
	if (ACT_DEBUG_ON)
		act__fatal("duplicate enqueue of pid %llu (I1)",
			   (unsigned long long)p->pid.id);
}

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
	q->len++;
}

void act__runq_push_remote(struct act__runq *q, struct act__proc *p)
{
	if (!act__runq_mark_queued(q, p))
		return;
	act__mpsc_push(&q->inbox, &p->rq_node);
}

static struct act__proc *pop_top(struct act__runq *q)
{
	struct act__proc *p = q->top;

	if (p) {
		q->top = p->rq_next;
		if (q->top)
			q->top->rq_prev = NULL;
		else
			q->bottom = NULL;
		q->len--;
	}
	return p;
}

static struct act__proc *pop_bottom(struct act__runq *q)
{
	struct act__proc *p = q->bottom;

	if (p) {
		q->bottom = p->rq_prev;
		if (q->bottom)
			q->bottom->rq_next = NULL;
		else
			q->top = NULL;
		q->len--;
	}
	return p;
}

static struct act__proc *pop_fifo(struct act__runq *q)
{
	struct act__proc *p = q->fifo_head;

	if (p) {
		q->fifo_head = p->rq_next;
		if (!q->fifo_head)
			q->fifo_tail = NULL;
		q->len--;
	}
	return p;
}

static struct act__proc *pop_inbox(struct act__runq *q)
{
	struct act__mpsc_node *n = act__mpsc_pop(&q->inbox);

	return n ? act__container_of(n, struct act__proc, rq_node) : NULL;
}

/* Every FAIR_EVERY pops: fifo and inbox in turn, now and then the
 * lifo's bottom; whatever that finds empty falls back to the usual order. */
static struct act__proc *pop_fair(struct act__runq *q)
{
	struct act__proc *p = NULL;

	q->tick = FAIR_EVERY;
	q->ticks++;
	if (q->ticks % LIFO_BOTTOM_EVERY == 0)
		p = pop_bottom(q);
	if (!p && (q->ticks & 1) && !(p = pop_fifo(q)))
		p = pop_inbox(q);
	if (!p && !(q->ticks & 1) && !(p = pop_inbox(q)))
		p = pop_fifo(q);
	return p;
}

struct act__proc *act__runq_pop(struct act__runq *q)
{
	struct act__proc *p = NULL;

	if (act__unlikely(--q->tick == 0))
		p = pop_fair(q);
	if (!p && !(p = pop_top(q)) && !(p = pop_inbox(q)))
		p = pop_fifo(q);
	if (p) /* release: pairs with the acquire in act__runq_mark_queued */
		atomic_store_explicit(&p->queued, 0, memory_order_release);
	return p;
}

bool act__runq_maybe_nonempty(struct act__runq *q)
{
	return q->top || q->fifo_head || act__mpsc_maybe_nonempty(&q->inbox);
}
