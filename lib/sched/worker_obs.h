/* SPDX-License-Identifier: MIT */
/*
 * worker_obs.h - the observers' hooks in the worker's loop and switch
 * (worker.c; doc/observability.md): the trace's slices and instants
 * (ACTORS_TRACE, base/trace.h), timed turns (the run slices, run_ns and
 * the reactor's watch for ACTORS_LONG_SCHEDULE) and the time accounting
 * of act_stats (busy, spin and sleep: base/clock.h's phases).
 *
 * Each is one call in the loop, so that worker.c reads as the protocol.
 * What each costs is what it cost inline before: off, the test of a
 * field the worker owns (trace, timed), predicted not taken; the phases
 * are moved at the edges of idleness only (two clock reads when a worker
 * goes idle and two when it sleeps), never per turn; and the switch
 * calls the turn's hooks only in its timed copy (worker.c switch_slow),
 * never in the common one. Owner only, on the worker's stack, or on a
 * process's with w fetched after the last switch (I8).
 */
#ifndef ACT_WORKER_OBS_H
#define ACT_WORKER_OBS_H

#include "base/clock.h"
#include "base/trace.h"
#include "rt.h"
#include "runq.h"
#include "worker.h"

/* The trace's samples of the distribution's traffic: at most one a
 * worker in this many clock nanoseconds. */
#define ACT__WORKER_OBS_NODES_NS 1000000

/* The loop begins, busy. */
static inline void act__worker_obs_loop_begin(struct act__worker *w)
{
	act__clock_phase_start(&w->phases, ACT_PHASE_BUSY, act__clock_now());
}

/* The loop is over: the last phase ends. */
static inline void act__worker_obs_loop_end(struct act__worker *w)
{
	act__clock_phase_to(&w->phases, ACT_PHASE_BUSY, act__clock_now());
}

/*
 * The trace (w->trace set): each node's traffic so far, sampled beside
 * the run queue's length once distribution has started, at most once
 * in ACT__WORKER_OBS_NODES_NS a worker; lib/dist/route.c records it
 * (act__route_trace, a hook up: scripts/check-layers.sh). now: the
 * clock.
 */
static inline void act__worker_obs_nodes(struct act__worker *w, int64_t now)
{
	/* relaxed: whether it started only; act__route_trace reads
	 * rt->dist again with acquire before it uses it */
	if (now < w->nodes_next ||
	    !atomic_load_explicit(&w->rt->dist, memory_order_relaxed))
		return;
	w->nodes_next = now + ACT__WORKER_OBS_NODES_NS;
	act__route_trace(w->rt, w->trace);
}

/* Timed turns (w->timed): p's turn on w begins at tick now. The turn's
 * hooks stay out of line, as they were in worker.c: inlined, they would
 * grow the loop and the timed switch by what only a timed turn runs. */
static act__noinline __attribute__((unused)) void
act__worker_obs_turn_begin(struct act__worker *w, struct act__proc *p,
			   uint64_t now)
{
	w->turn_t = now;
	/* relaxed: the watch reads the pair and checks the turn again */
	atomic_store_explicit(&w->watch_pid, p->pid.id, memory_order_relaxed);
	atomic_store_explicit(
		&w->watch_fn,
		(uintptr_t)atomic_load_explicit(&p->fn, memory_order_relaxed),
		memory_order_relaxed);
	atomic_store_explicit(&w->watch_turn, now, memory_order_relaxed);
	if (!w->trace)
		return;
	/* relaxed: the waker stored it before the enqueue that handed p
	 * to this worker (the run queue's release and acquire) */
	w->flow_in = atomic_load_explicit(&p->trace_flow, memory_order_relaxed);
	if (w->flow_in)
		atomic_store_explicit(&p->trace_flow, 0, memory_order_relaxed);
	if (!w->runq_every--) {
		w->runq_every = 63;
		act__trace_put(w->trace, ACT_TR_RUNQ, now - w->trace->t0,
			       act__runq_length(&w->rq), 0, 0);
		act__worker_obs_nodes(w, act__clock_now());
	}
}

/* Timed turns: p's turn ends at tick now, for reason (a switch reason),
 * having used `used` reductions. */
static act__noinline __attribute__((unused)) void
act__worker_obs_turn_end(struct act__worker *w, struct act__proc *p, int reason,
			 uint32_t used, uint64_t now)
{
	static const uint8_t why_of[] = {
		[ACT_SW_YIELD] = ACT_TR_WHY_YIELD,
		[ACT_SW_PARK] = ACT_TR_WHY_RECEIVE,
		[ACT_SW_EXIT] = ACT_TR_WHY_EXIT,
		[ACT_SW_MUTE] = ACT_TR_WHY_MUTED,
		[ACT_SW_IOWAIT] = ACT_TR_WHY_IO,
	};

	act__count_n(&p->run_ticks, now - w->turn_t);
	atomic_store_explicit(&w->watch_turn, 0, memory_order_relaxed);
	if (w->trace)
		act__trace_put(
			w->trace, ACT_TR_RUN, now - w->trace->t0, p->pid.id,
			w->turn_t - w->trace->t0,
			why_of[reason] |
				(uint64_t)(used < 0xffffff ? used : 0xffffff)
					<< 8 |
				(uint64_t)w->flow_in << 32);
}

/* p has left its stack for good (the reap). */
static inline void act__worker_obs_exit(struct act__worker *w,
					struct act__proc *p)
{
	if (act__unlikely(w->trace))
		act__trace_event(w->trace, ACT_TR_EXIT, p->pid.id,
				 (uint64_t)p->exit_reason, 0);
}

/* w stole k processes from worker victim. */
static inline void act__worker_obs_steal(struct act__worker *w, uint32_t victim,
					 uint32_t k)
{
	if (act__unlikely(w->trace))
		act__trace_event(w->trace, ACT_TR_STEAL, victim, k, 0);
}

/* me (NULL: not a worker) rang the sleeping worker k. */
static inline void act__worker_obs_rang(struct act__worker *me, uint32_t k)
{
	if (me && act__unlikely(me->trace))
		act__trace_event(me->trace, ACT_TR_WAKE_WORKER, k, 0, 0);
}

/* w goes idle at now (the clock): it searches (spins) from here; the
 * trace's run queue counter drops to 0, and the nodes' traffic is
 * sampled. */
static inline void act__worker_obs_idle_begin(struct act__worker *w,
					      int64_t now)
{
	act__clock_phase_to(&w->phases, ACT_PHASE_SPIN, now);
	if (act__unlikely(w->trace)) {
		act__trace_event(w->trace, ACT_TR_RUNQ, 0, 0, 0);
		act__worker_obs_nodes(w, now);
	}
}

/* w is busy again from now. */
static inline void act__worker_obs_idle_end(struct act__worker *w, int64_t now)
{
	act__clock_phase_to(&w->phases, ACT_PHASE_BUSY, now);
}

/* The tick an idle slice of the trace begins at (0 untraced). */
static inline uint64_t act__worker_obs_mark(const struct act__worker *w)
{
	return w->trace ? act__clock_ticks() : 0;
}

/* A slice of kind (search, parked) on w's track, from tick `from` to
 * now. */
static inline void act__worker_obs_slice(struct act__worker *w, unsigned kind,
					 uint64_t from)
{
	uint64_t to;

	if (!act__unlikely(w->trace))
		return;
	to = act__clock_ticks();
	act__trace_put(w->trace, kind, to - w->trace->t0, 0,
		       from - w->trace->t0, 0);
}

/* w has searched since tick from (act__worker_obs_mark). */
static inline void act__worker_obs_searched(struct act__worker *w,
					    uint64_t from)
{
	act__worker_obs_slice(w, ACT_TR_SEARCH, from);
}

/* w goes to sleep at now (the clock); returns the tick the trace's
 * parked slice begins at, for act__worker_obs_woke. */
static inline uint64_t act__worker_obs_sleep(struct act__worker *w, int64_t now)
{
	uint64_t from = act__worker_obs_mark(w);

	act__clock_phase_to(&w->phases, ACT_PHASE_SLEEP, now);
	return from;
}

/* w woke at now (the clock), asleep since tick from: it searches
 * again. */
static inline void act__worker_obs_woke(struct act__worker *w, uint64_t from,
					int64_t now)
{
	act__clock_phase_to(&w->phases, ACT_PHASE_SPIN, now);
	act__worker_obs_slice(w, ACT_TR_PARKED, from);
}

#endif /* ACT_WORKER_OBS_H */
