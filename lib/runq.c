/* SPDX-License-Identifier: MIT */
/* runq.c - a worker's runnable queue; see runq.h. */
#include "runq.h"

#define FAIR_EVERY 61

void act__runq_init(struct act__runq *q)
{
	q->lifo = NULL;
	q->fifo_head = q->fifo_tail = NULL;
	q->tick = FAIR_EVERY;
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

static struct act__proc *pop_lifo(struct act__runq *q)
{
	struct act__proc *p = q->lifo;

	if (p) {
		q->lifo = p->rq_next;
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

struct act__proc *act__runq_pop(struct act__runq *q)
{
	struct act__proc *p = NULL;

	if (act__unlikely(--q->tick == 0)) {
		q->tick = FAIR_EVERY;
		p = pop_fifo(q);
		if (!p)
			p = pop_inbox(q);
	}
	if (!p)
		p = pop_lifo(q);
	if (!p)
		p = pop_inbox(q);
	if (!p)
		p = pop_fifo(q);
	if (p) /* release: pairs with the acquire in act__runq_mark_queued */
		atomic_store_explicit(&p->queued, 0, memory_order_release);
	return p;
}

bool act__runq_maybe_nonempty(struct act__runq *q)
{
	return q->lifo || q->fifo_head || act__mpsc_maybe_nonempty(&q->inbox);
}
