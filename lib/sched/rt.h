/* SPDX-License-Identifier: MIT */
/*
 * rt.h - the runtime's shared state: the resolved configuration, the
 * process table, the workers and what they share (the stop word, the
 * idle and searching counts), the reactor (by pointer: it is a layer
 * above, doc/design/overview.md "Layers"), the foreign slab, the names,
 * the memory homes and the placement. One per OS process, built and torn
 * down by lib/node/runtime.c; the way in from any thread
 * (act__rt_enter) is rt.c's.
 */
#ifndef ACT_RT_H
#define ACT_RT_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "actors.h"
#include "affinity/homes.h"
#include "affinity/plan.h"
#include "proc/proc.h"
#include "settings/vars.h"
#include "worker.h"

struct act__reactor;
struct act__observe;
struct act__dist;
struct act__trace_buf;

#define ACT_MAX_WORKERS 1024

/* Registered names (registry.c): a hash table under a spinlock. */
struct act__registry {
	_Atomic uint32_t lock;
	uint32_t cap, n; /* buckets (a power of two), names */
	struct act__name **tab;
};

struct act__rt {
	struct act_config cfg; /* resolved: no field unset */
	struct act__ptable procs;
	struct act__worker *workers;
	uint32_t nworkers;
	/* the reactor (lib/reactor/, a layer above): in the same
	 * allocation, after this struct (runtime.c) */
	struct act__reactor *reactor;
	/* Envelopes for senders that are not workers: a slab like a worker's,
	 * its owner side guarded by a spinlock (held for a few loads and
	 * stores, so a foreign sender makes no system call); its index is
	 * nworkers. */
	struct act__slab foreign;
	_Atomic uint32_t foreign_lock; /* act__spin_lock */
	_Atomic uint32_t stop;
	/* Idle workers and searchers (Go's rule; worker.c). A worker sets
	 * its bit in idle_mask before it sleeps; whoever clears the bit
	 * (the worker itself, or act__worker_wake_idle claiming it) decrements
	 * nidle. nspinning counts workers searching for work to steal. */
	_Atomic uint32_t nspinning act__aligned;
	_Atomic uint32_t nidle;
	_Atomic uint64_t idle_mask[ACT_MAX_WORKERS / 64];
	int64_t spin_ns; /* idle search before sleeping */
	intptr_t main_reason;
	bool print_stats;   /* ACTORS_STATS=1: table at exit */
	bool wake_to_waker; /* ACTORS_WAKE=waker */
	bool backpressure;  /* ACTORS_BACKPRESSURE=mute */
	bool place_random;  /* ACTORS_PLACE=random (experiment) */
	struct act__registry names;
	/* placement (lib/affinity/plan.h): each worker's OS NUMA node, -1 when
	 * it is not bound to one; NULL before the plan is made */
	int *worker_os_node;
	struct act__numa numa;	/* memory homes (lib/affinity/homes.h) */
	struct act__topo topo;	/* the usable machine */
	struct act__plan plan;	/* where workers and reactor run */
	_Atomic int pin_failed; /* a bind failed: said once */
	/* the test switches act_main resolved (settings/vars.h), read at
	 * start-up: after the hot fields, which they leave where they were */
	struct act__tests test;
	/* ticks to nanoseconds (base/clock.h), from act_main's start */
	struct act__clock_cal cal;
	/* the observers (lib/node/observe.c); NULL: none asked for */
	struct act__observe *obs;
	/* Erlang distribution (lib/dist, a layer above); NULL until it is
	 * started: set with release, read with acquire (dist/route.c) */
	_Atomic(struct act__dist *) dist;
};

/*
 * Index of worker o, seen from worker me of the same runtime: pointer
 * arithmetic, because o->index sits on o's first line, which o rewrites
 * at every reduction; reading it from another core is a cache miss.
 */
static inline uint32_t act__rt_worker_index(const struct act__worker *me,
					    const struct act__worker *o)
{
	return (uint32_t)(o - me->rt->workers);
}

/* The runtime being built, run or torn down, or NULL: for the runtime's
 * own threads and its tests. Set before any worker starts. */
extern struct act__rt *act__rt_current;

/*
 * The API's way in (act_send, act_kill, the timers, act_stats, the
 * registry): the running runtime, or NULL when none is up, in which case
 * the call returns -ESRCH (or its own "none"). Each non-NULL return is
 * paired with act__rt_leave. On a worker thread it is the worker's
 * runtime and costs nothing. On any other thread it counts the caller in:
 * a runtime is offered only once built, and its teardown waits for every
 * caller counted in before it frees anything (act_main).
 */
struct act__rt *act__rt_enter(void);
void act__rt_leave(struct act__rt *rt);

/* The distribution's state freed, at the stop once no process runs and
 * no other thread is counted in (lib/dist/route.c, a layer above: the
 * list `hooks` of scripts/check-layers.sh). */
void act__route_stop(struct act__rt *rt);
/* ACTORS_STATS at the stop: a line per node connected, its traffic
 * (lib/dist/route.c, the same hook list). */
void act__route_stats(struct act__rt *rt, FILE *f);
/* ACTORS_TRACE: each node connected so far, its traffic since the start
 * into b (events ACT_TR_NODE_BYTES and ACT_TR_NODE_FRAMES); b's owner
 * while the runtime runs (a worker beside its run queue's count,
 * sched/worker_obs.h), the observers' stop once every thread has
 * stopped (lib/dist/route.c, the same hook list). */
void act__route_trace(struct act__rt *rt, struct act__trace_buf *b);

/* The runtime is up: other threads may use it from now on (act_main). */
void act__rt_open(struct act__rt *rt);
/* No new caller from other threads; wait for those inside to leave. */
void act__rt_close(void);

#endif /* ACT_RT_H */
