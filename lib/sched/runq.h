/* SPDX-License-Identifier: MIT */
/*
 * runq.h - a worker's runnable queue: owner push/pop, remote direct
 * enqueue, batch stealing.
 *
 * Two halves, one queue. Every list is intrusive (linked through the
 * process slot's rq_next/rq_prev; a process is in at most one list, I1),
 * so the queue allocates nothing: its memory is bounded by the process
 * table, an enqueue cannot fail, and there is nothing to overflow.
 *
 * Private half, owner only, no atomics:
 * - `lifo`: processes spawned or woken by this worker, newest on top. A
 *   spawn tree is walked depth-first, so few stacks are live at once.
 * - `fifo`: processes that yielded: the tail of the queue.
 *
 * Shared half, under `lock` (a spinlock held for a few pointer moves):
 * - `in`: direct enqueues from other threads (spawn placement, wakes from
 *   other workers, the reactor, foreign senders), newest on top. Runnable
 *   at once: the owner splices the whole list onto its lifo top at its
 *   next pop (so remote children of a spawn tree also run newest first),
 *   and a thief may take from it before that.
 * - `out`: work the owner published for thieves: when a thief has marked
 *   the queue `hungry`, the owner moves half of its surplus (all its
 *   private processes but one), rounded up, at most ACT_STEAL_MAX, oldest
 *   first, here before its next pop (the worker loop calls
 *   act__runq_publish). Keeping one for itself means a lone pair of
 *   processes waking each other is never split across cores.
 *
 * Steal: a thief locks the victim, takes half of `out` + `in`, rounded
 * up (so a lone process too), at most ACT_STEAL_MAX, oldest first, and
 * makes them its own before it runs any (act__runq_steal). Only queued
 * processes are in the lists, and a queued process is RUNNABLE: nothing
 * running or waiting is taken.
 *
 * Owner pop order: lifo top, then `out` top, then fifo. Fairness, so
 * nothing starves behind processes that keep waking each other on the
 * lifo: every 61st pop serves fifo and `out` in turn first, and every
 * 976th serves the lifo's bottom (its oldest entry). The long period keeps
 * depth-first order (doc/design/scheduling.md).
 *
 * I1: `queued` is set by every push and cleared by the pop; a push that
 * finds it set is a duplicate enqueue: counted, and fatal in debug builds.
 * A steal moves processes between queues without touching it.
 */
#ifndef ACT_RUNQ_H
#define ACT_RUNQ_H

#include <stdbool.h>
#include <stdint.h>

#include "base/internal.h"
#include "proc/proc.h"

#define ACT_STEAL_MAX 32u /* processes one steal or publish moves */

/* A doubly-linked list: top .. bottom through rq_next, back via rq_prev. */
struct act__plist {
	struct act__proc *top, *bottom;
};

struct act__runq {
	/* owner only */
	struct act__plist lifo;
	struct act__proc *fifo_head, *fifo_tail; /* linked via rq_next */
	uint32_t tick;	/* pops until the next fairness pop */
	uint32_t ticks; /* fairness pops so far */
	/* the private half's lengths: the owner writes them (a relaxed
	 * load and store, no locked instruction: act__count's way), other
	 * threads read them relaxed as a hint (the watch's runq) */
	_Atomic uint32_t nlifo, nfifo;
	uint32_t index; /* the owner worker's */
	bool stealable; /* other workers exist */

	/* any thread: the shared half, its lists under lock */
	_Atomic uint32_t lock act__aligned;
	/* written under lock (seq_cst increments: the publish half of the
	 * doorbell and idle Dekker pairs), read without it as hints */
	_Atomic uint32_t n_in, n_out;
	struct act__plist in, out;
	/* set by a thief that found nothing to take; cleared by the owner
	 * when it publishes */
	_Atomic uint8_t hungry;
	_Atomic uint64_t dup_enqueues;
};

void act__runq_init(struct act__runq *q, bool stealable);
/* Count (debug builds: abort on) a duplicate enqueue of p (I1). */
void act__runq_duplicate(struct act__runq *q, struct act__proc *p);

/* I1: true when p may be queued; a duplicate is counted and refused. */
static inline bool act__runq_mark_queued(struct act__runq *q,
					 struct act__proc *p)
{
	/* Only a wake-CAS winner or the running owner enqueues, so the flag
	 * is a check, not a lock: debug builds use an exchange, which also
	 * catches two racing enqueuers; release builds a load and a store.
	 * acquire: pairs with the release clear in act__runq_pop (acq_rel
	 * for the debug exchange: the same pair, and two enqueuers' RMWs
	 * ordered). */
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

/* The private half's length: exact for the owner, a hint for others */
static inline uint32_t act__runq_private(const struct act__runq *q)
{
	return atomic_load_explicit(&q->nlifo, memory_order_relaxed) +
	       atomic_load_explicit(&q->nfifo, memory_order_relaxed);
}

/* Owner: one fewer in a private list's count c */
static inline void act__runq_uncount(_Atomic uint32_t *c)
{
	act__count_n(c, (uint32_t)-1);
}

static inline void act__runq_plist_push_top(struct act__plist *l,
					    struct act__proc *p)
{
	p->rq_prev = NULL;
	p->rq_next = l->top;
	if (l->top)
		l->top->rq_prev = p;
	else
		l->bottom = p;
	l->top = p;
}

/* Owner: on top of the lifo (newest first). */
static inline void act__runq_push_lifo(struct act__runq *q, struct act__proc *p)
{
	if (!act__runq_mark_queued(q, p))
		return;
	act__runq_plist_push_top(&q->lifo, p);
	act__count(&q->nlifo);
}

/* Owner: processes it could hand to a thief (all but one). */
static inline uint32_t act__runq_surplus(const struct act__runq *q)
{
	uint32_t n = act__runq_private(q);

	return n ? n - 1 : 0;
}

/* Owner: to the tail (yield). */
void act__runq_push_fifo(struct act__runq *q, struct act__proc *p);
/* Any thread but the owner: on top of `in`. */
void act__runq_push_remote(struct act__runq *q, struct act__proc *p);
/* Owner. */
struct act__proc *act__runq_pop(struct act__runq *q);
/* Owner: move up to half its surplus to `out`; returns how many. */
uint32_t act__runq_publish(struct act__runq *q);
/* Owner, before a pop: has a thief asked for work, and is there some? */
static inline bool act__runq_should_publish(const struct act__runq *q)
{
	return q->stealable && act__runq_private(q) >= 2 &&
	       act__unlikely(
		       atomic_load_explicit(&q->hungry, memory_order_relaxed));
}
/* Any thread: anything queued? The shared half is read seq_cst (the
 * re-check half of the doorbell Dekker pair); the private half only
 * means something to the owner. */
bool act__runq_maybe_nonempty(struct act__runq *q);
/* Any thread: does the shared half hold anything? (seq_cst) */
static inline bool act__runq_shared_nonempty(struct act__runq *q)
{
	/* seq_cst: an idle worker's re-check, the load half of the Dekker
	 * pair with an enqueuer's seq_cst count, then its read of nidle
	 * (worker.c sleep_idle) */
	return atomic_load_explicit(&q->n_in, memory_order_seq_cst) ||
	       atomic_load_explicit(&q->n_out, memory_order_seq_cst);
}

/*
 * Thief: take up to half of v's shared half (at most ACT_STEAL_MAX),
 * oldest first, onto the top of its own queue q's lifo, each with owner
 * set to `thief` before it can run. Returns how many it took; 0 marks v
 * hungry (so v publishes its private surplus at its next pop).
 */
uint32_t act__runq_steal(struct act__runq *v, struct act__runq *q,
			 struct act__worker *thief);

/* Any thread: processes queued here now, private and shared (a hint:
 * the counts move under the owner's and other workers' hands; the owner
 * alone reads its own exactly). */
static inline uint32_t act__runq_length(const struct act__runq *q)
{
	/* relaxed: a figure for the trace and the watch, not a decision */
	return act__runq_private(q) +
	       atomic_load_explicit(&q->n_in, memory_order_relaxed) +
	       atomic_load_explicit(&q->n_out, memory_order_relaxed);
}

#endif /* ACT_RUNQ_H */
