/* SPDX-License-Identifier: MIT */
/*
 * wake.h - the one path by which a waiting process becomes runnable.
 *
 * Every wake source goes through act__wake_claim's CAS: a message or a
 * timer WAITING -> RUNNABLE (act__wake), a backlog's release MUTED ->
 * RUNNABLE, an I/O completion or a kill IOWAIT -> RUNNABLE (the reactor
 * claims and batches its own, act__reactor_wake_proc). Only the winner
 * enqueues, on the process's last worker (I1, I2), or, under
 * ACTORS_WAKE=waker, on the waking worker's own queue. A ticketed wake
 * (timer, I/O, a release) succeeds only for the wait it was armed for
 * (I4); ticket 0 wakes any wait (a message is relevant to whatever the
 * process waits for).
 */
#ifndef ACT_WAKE_H
#define ACT_WAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "proc/proc.h"
#include "rt.h"
#include "worker.h"

/*
 * After queueing work others could take: Go's rule, wake an idle worker
 * only when one sleeps and none is searching.
 */
static inline void act__wake_idle_maybe(struct act__rt *rt,
					struct act__worker *me)
{
	/* seq_cst: the load half of the idle Dekker pair; the work was
	 * published by a seq_cst RMW before, and a parking worker raises
	 * nidle (seq_cst) before it re-checks every queue */
	if (atomic_load_explicit(&rt->nidle, memory_order_seq_cst) &&
	    !atomic_load_explicit(&rt->nspinning, memory_order_seq_cst))
		act__worker_wake_idle(rt, me);
}

/*
 * Put a runnable process on w's queue, from any thread; `me` is the
 * caller's own worker (NULL off a worker). Runnable at once: no staging.
 * Wakes w if it sleeps; if w is awake and a surplus builds up, wakes an
 * idle worker to steal it (Go's rule).
 */
static inline void act__wake_enqueue(struct act__worker *me,
				     struct act__worker *w, struct act__proc *p)
{
	if (me == w) {
		act__runq_push_lifo(&w->rq, p);
		/* a surplus of private work: a woken searcher marks this
		 * queue hungry, and the next pop publishes half of it */
		if (w->rq.stealable && act__runq_private(&w->rq) >= 2 &&
		    !act__proc_sticky(p, w->index))
			act__wake_idle_maybe(w->rt, me);
		return;
	}
	act__runq_push_remote(&w->rq, p);
	if (act__park_ring(&w->bell)) {
		if (me)
			act__count(&me->n_futex_wakes);
	} else if (w->rq.stealable) {
		act__wake_idle_maybe(w->rt, me);
	}
}

/*
 * Take p, waiting in state `from` for ticket (0: any wait), over:
 * WAITING (or MUTED, IOWAIT) -> RUNNABLE. Only the winner may enqueue it.
 */
static inline bool act__wake_claim(struct act__proc *p, uint64_t ticket,
				   unsigned from)
{
	/* seq_cst: the load half of the Dekker pairs with the seq_cst
	 * stores of WAITING in park_proc, MUTED in mute_park and IOWAIT in
	 * park_io (the waker published its message, timeout flag, release,
	 * io_word or kill flag before this load) */
	uint64_t s = atomic_load_explicit(&p->state, memory_order_seq_cst);

	for (;;) {
		if (act__ps(s) != from)
			return false;
		if (ticket && act__ps_ticket(s) != ticket)
			return false;
		/* acq_rel on success: the winner takes the process over and
		 * publishes RUNNABLE before the enqueue makes it visible */
		if (atomic_compare_exchange_weak_explicit(
			    &p->state, &s,
			    (s & ~(uint64_t)ACT_PS_MASK) | ACT_PS_RUNNABLE,
			    memory_order_acq_rel, memory_order_relaxed))
			return true;
	}
}

/*
 * act__wake_state's body; slow (me non-NULL, me->slow): the trace's
 * arrow and the park race's delays around the claim, and its planted
 * lost wakeup (act__worker_woke, base/park.h). The common wake is a copy
 * without.
 */
static act__always_inline bool act__wake_state_as(struct act__worker *me,
						  struct act__proc *p,
						  uint64_t ticket,
						  unsigned from, bool slow)
{
	struct act__worker *owner;

	ACT_TEST_HOOK(slow && me->hooks, &me->hook_rng);
	if (!act__wake_claim(p, ticket, from))
		return false;
	if (slow && act__worker_woke(me, p))
		return true; /* dropped: planted, a test's only */
	owner = atomic_load_explicit(&p->owner, memory_order_relaxed);
	if (me && me != owner) {
		/* a chatty process stays with its peer (act__proc_sticky):
		 * the waker just won the CAS, so it may read the hints */
		if (me->rt->wake_to_waker &&
		    !act__proc_sticky(p, act__rt_worker_index(me, owner))) {
			/* the process moves to the waker's worker: it is
			 * WAITING, so nothing of it runs anywhere (I3) */
			act__wake_enqueue(me, me, p);
			return true;
		}
		act__count(&me->n_remote_wakes);
	}
	act__wake_enqueue(me, owner, p);
	return true;
}

/*
 * Make p, waiting in state `from` (WAITING, or MUTED for a backlog's
 * release, IOWAIT for a kill), runnable and queue it. me: the caller's
 * worker, or NULL (foreign thread; the reactor batches its own wakes).
 */
static inline bool act__wake_state(struct act__worker *me, struct act__proc *p,
				   uint64_t ticket, unsigned from)
{
	if (me && act__unlikely(me->slow))
		return act__worker_wake_slow(me, p, ticket, from);
	return act__wake_state_as(me, p, ticket, from, false);
}

/* The wake of every wait source: a message (ticket 0), a timer, I/O. */
static inline bool act__wake(struct act__worker *me, struct act__proc *p,
			     uint64_t ticket)
{
	return act__wake_state(me, p, ticket, ACT_PS_WAITING);
}

#endif /* ACT_WAKE_H */
