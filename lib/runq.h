/* SPDX-License-Identifier: MIT */
/*
 * runq.h - a worker's runnable queue.
 *
 * Three parts, one queue:
 * - `lifo`: processes spawned or woken by this worker, newest first. A
 *   spawn tree is walked depth-first, so few stacks are live at once.
 * - `fifo`: processes that yielded: the tail of the queue.
 * - `inbox`: an MPSC queue through which any other thread enqueues
 *   directly (spawn placement, wakes from other workers and the reactor).
 * A process pushed on any of them is runnable at once; the owner pops all
 * three: lifo top, then inbox, then fifo.
 *
 * Fairness, so nothing starves behind processes that keep waking each
 * other on the lifo: every 61st pop serves the fifo and the inbox in turn
 * first, and every 1024th pop serves the lifo's bottom (its oldest entry)
 * first. The second period is long because the lifo bottom of a spawn tree
 * is the root of the largest pending subtree: starting those early turns
 * depth-first into breadth-first (doc/design/scheduling.md).
 *
 * I1: `queued` is set by every push (exchange) and cleared by the pop; a
 * push that finds it set is a duplicate enqueue: counted, and fatal in
 * debug builds.
 */
#ifndef ACT_RUNQ_H
#define ACT_RUNQ_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "mpsc.h"
#include "proc.h"

struct act__runq {
	/* owner only */
	struct act__proc *top, *bottom;  /* lifo, linked via rq_next/prev */
	struct act__proc *fifo_head, *fifo_tail; /* linked via rq_next */
	uint32_t tick;                   /* pops until the next fairness pop */
	uint32_t ticks;                  /* fairness pops so far */
	uint32_t len;                    /* lifo + fifo */
	/* any thread */
	struct act__mpsc inbox act__aligned;
	_Atomic uint64_t dup_enqueues;
};

void act__runq_init(struct act__runq *q);
/* Count (debug builds: abort on) a duplicate enqueue of p (I1). */
void act__runq_duplicate(struct act__runq *q, struct act__proc *p);

/* I1: true when p may be queued; a duplicate is counted and refused. */
static inline bool act__runq_mark_queued(struct act__runq *q, struct act__proc *p)
{
	/* Only a wake-CAS winner or the running owner enqueues, so the flag
	 * is a check, not a lock: debug builds use an exchange, which also
	 * catches two racing enqueuers; release builds a load and a store.
	 * acquire: pairs with the release clear in act__runq_pop. */
	if (ACT_DEBUG_ON) {
		if (!atomic_exchange_explicit(&p->queued, 1,
					      memory_order_acq_rel))
			return true;
	} else if (act__likely(!atomic_load_explicit(&p->queued,
						     memory_order_acquire))) {
		atomic_store_explicit(&p->queued, 1, memory_order_relaxed);
		return true;
	}
	act__runq_duplicate(q, p);
	return false;
}

/* Owner: on top of the lifo (newest first). */
static inline void act__runq_push_lifo(struct act__runq *q,
				       struct act__proc *p)
{
	if (!act__runq_mark_queued(q, p))
		return;
	p->rq_prev = NULL;
	p->rq_next = q->top;
	if (q->top)
		q->top->rq_prev = p;
	else
		q->bottom = p;
	q->top = p;
	q->len++;
}

/* Owner: to the tail (yield). */
void act__runq_push_fifo(struct act__runq *q, struct act__proc *p);
/* Any thread. */
void act__runq_push_remote(struct act__runq *q, struct act__proc *p);
/* Owner. */
struct act__proc *act__runq_pop(struct act__runq *q);
/* Owner, before parking: may anything be queued? */
bool act__runq_maybe_nonempty(struct act__runq *q);

#endif /* ACT_RUNQ_H */
