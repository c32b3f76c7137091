/* SPDX-License-Identifier: MIT */
/*
 * reactor_obs.h - the observers' hooks in the reactor's loop (reactor.c;
 * doc/observability.md): the trace's loop and parked slices and its
 * instants (ACTORS_TRACE, base/trace.h), the time accounting of act_stats
 * (busy and sleep: base/clock.h's phases), the watch (ACTORS_STATS'
 * interval lines, ACTORS_LONG_SCHEDULE) and the dump that
 * ACTORS_DUMP_SIGNAL asks for.
 *
 * Each is one call in the loop, so that reactor.c reads as its sleep
 * protocol. The watch and the dump are printed a layer above, in
 * lib/node/, through the two calls declared at the end: the hooks that
 * scripts/check-layers.sh lets this layer make upwards. Reactor thread
 * only (or worker 0, inline).
 */
#ifndef ACT_REACTOR_OBS_H
#define ACT_REACTOR_OBS_H

#include "base/clock.h"
#include "base/trace.h"
#include "proc/proc.h"
#include "reactor.h"

/* The reactor found dump_req set: print act_dump on stderr (defined in
 * lib/node/info.c, a hook from this layer up: scripts/check-layers.sh
 * lists it). */
void act__info_dump_requested(struct act__rt *rt);
/* The watch's time has come (watch_ns): the interval lines and the long
 * schedules (defined in lib/node/observe.c, a hook as the one above);
 * now in clock nanoseconds. */
void act__observe_watch(struct act__rt *rt, int64_t now);

/* The loop begins at now (the clock) in phase (busy for the thread,
 * asleep inline, whose worker runs first); the first watch is a period
 * away. */
static inline void act__reactor_obs_start(struct act__reactor *r, int phase,
					  int64_t now)
{
	act__clock_phase_start(&r->phases, phase, now);
	r->trace_turn = r->trace ? act__clock_ticks() : 0;
	if (r->watch_ns)
		r->watch_next = now + r->watch_ns;
}

/* The loop is over, busy at its end. */
static inline void act__reactor_obs_stop(struct act__reactor *r)
{
	act__clock_phase_to(&r->phases, ACT_PHASE_BUSY, act__clock_now());
}

/* Inline: a turn begins at now (the clock), busy. */
static inline void act__reactor_obs_turn_begin(struct act__reactor *r,
					       int64_t now)
{
	if (r->trace)
		r->trace_turn = act__clock_ticks();
	act__clock_phase_to(&r->phases, ACT_PHASE_BUSY, now);
}

/* The watch, when its time has come: due at watch_next, then a period
 * later (a late one keeps the period from now). */
static inline void act__reactor_obs_watch(struct act__reactor *r, int64_t now)
{
	if (!r->watch_ns || now < r->watch_next)
		return;
	act__observe_watch(r->rt, now);
	r->watch_next += r->watch_ns;
	if (r->watch_next <= now)
		r->watch_next = now + r->watch_ns;
}

/* A dump asked for (ACTORS_DUMP_SIGNAL's handler): print it. */
static inline void act__reactor_obs_dump(struct act__reactor *r)
{
	/* relaxed, then the exchange: the handler's seq_cst store pairs
	 * with the re-check before the sleep, and a dump needs no order */
	if (act__unlikely(
		    atomic_load_explicit(&r->dump_req, memory_order_relaxed)) &&
	    atomic_exchange_explicit(&r->dump_req, 0, memory_order_relaxed))
		act__info_dump_requested(r->rt);
}

/* A turn is over at now (the clock): the watch and the dump. */
static inline void act__reactor_obs_turn_end(struct act__reactor *r,
					     int64_t now)
{
	act__reactor_obs_watch(r, now);
	act__reactor_obs_dump(r);
}

/* How long the reactor may sleep from now for the next watch: -1, no
 * watch. */
static inline int64_t act__reactor_obs_next(const struct act__reactor *r,
					    int64_t now)
{
	if (!r->watch_ns)
		return -1;
	return r->watch_next > now ? r->watch_next - now : 0;
}

/* The reactor goes to sleep at now (the clock): the trace's loop slice
 * ends (with its SQEs and CQEs) and its parked slice begins. */
static inline void act__reactor_obs_sleep(struct act__reactor *r, int64_t now)
{
	if (r->trace) {
		r->trace_wait = act__clock_ticks();
		act__trace_put(r->trace, ACT_TR_LOOP,
			       r->trace_wait - r->trace->t0, r->turn_sqes,
			       r->trace_turn - r->trace->t0, r->turn_cqes);
		r->turn_sqes = r->turn_cqes = 0;
	}
	act__clock_phase_to(&r->phases, ACT_PHASE_SLEEP, now);
}

/* The reactor woke: the parked slice ends, a loop begins, busy. */
static inline void act__reactor_obs_woke(struct act__reactor *r)
{
	if (act__unlikely(r->trace)) {
		uint64_t waited = act__clock_ticks();

		/* the wait as a parked slice, between two loops */
		act__trace_put(r->trace, ACT_TR_PARKED, waited - r->trace->t0,
			       0, r->trace_wait - r->trace->t0, 0);
		r->trace_turn = waited;
	}
	act__clock_phase_to(&r->phases, ACT_PHASE_BUSY, act__clock_now());
}

/* A receive timeout fired for p. */
static inline void act__reactor_obs_timer(struct act__reactor *r,
					  const struct act__proc *p)
{
	if (act__unlikely(r->trace))
		act__trace_event(r->trace, ACT_TR_TIMER, p->pid.id, 0, 0);
}

/* p, claimed by a wake of the reactor, gets a flow arrow to its next
 * turn (every reactor wake is drawn). */
static inline void act__reactor_obs_wake(struct act__reactor *r,
					 struct act__proc *p)
{
	uint32_t id;

	if (!act__unlikely(r->trace))
		return;
	id = act__trace_flow_id(r->trace);
	act__trace_event(r->trace, ACT_TR_FLOW, id, p->pid.id, 0);
	/* relaxed: published by the run queue push that follows
	 * (act__worker_obs_turn_begin reads it) */
	atomic_store_explicit(&p->trace_flow, id, memory_order_relaxed);
}

#endif /* ACT_REACTOR_OBS_H */
