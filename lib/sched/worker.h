/* SPDX-License-Identifier: MIT */
/*
 * worker.h - one scheduler: a thread, its run queue, its slabs, and the
 * loop that runs processes.
 *
 * Worker-local state is reached only through act__tls_worker_self(), a function
 * the compiler cannot inline or see through, because a process may resume
 * on another thread after any switch and a cached address of a __thread
 * variable would then name the old worker's state (I8).
 */
#ifndef ACT_WORKER_H
#define ACT_WORKER_H

#include <pthread.h>
#include <stdint.h>

#include "arch/ctx.h"
#include "arch/fp.h"
#include "arch/tls.h"
#include "base/internal.h"
#include "base/park.h"
#include "base/trace.h"
#include "proc/proc.h"
#include "runq.h"
#include "affinity/plan.h"
#include "mem/slab.h"
#include "mem/stack.h"

struct act__rt;

enum act__switch_reason {
	ACT_SW_YIELD = 1,
	ACT_SW_PARK,
	ACT_SW_EXIT,
	ACT_SW_MUTE,
	ACT_SW_IOWAIT, /* wait for an I/O completion (io.h) */
};

struct act__worker {
	/* owner only */
	struct act__ctx sched_ctx;
	struct act__proc *current;
	/* the process that switched out and what for (switch_reason),
	 * until the code the switch resumed settles it on its own stack
	 * (act__worker_settle): the loop, or the next process itself */
	struct act__proc *leaving;
	int switch_reason;
	int32_t budget;	    /* reductions left to current */
	int32_t reductions; /* budget of each turn (config) */
	int32_t backlog_at; /* budget left: a reader's backlog */
	struct act__rt *rt;
	uint32_t index;
	int home;		 /* memory home (lib/affinity/homes.h) */
	const uint16_t *victims; /* steal order (lib/affinity/plan.h) */
	uint16_t level_end[ACT_STEAL_LEVELS];
	struct act__slot_cache slots; /* free process slots */
	uint64_t rng;
	struct act__slab slab;
	struct act__stack_cache stacks;
	pthread_t thread;
	int sys_n;     /* its systematic participant (base/systematic.h) */
	bool spinning; /* holds one unit of rt->nspinning */
	/* the thread's floating-point control state, kept here while a
	 * process with its own (ACT_SPAWN_FPENV) runs (act__worker_fp_*) */
	struct act__fpctl fp_shared;
	uint32_t unrung_cancels; /* reactor cancels since a ring */
	/* ACT_REACTOR_INLINE (worker 0 only): the reactor this worker runs
	 * between processes and sleeps in, and the runs since its last
	 * turn (NULL: the reactor has a thread of its own) */
	struct act__reactor *inline_r;
	uint32_t inline_runs;
	/* counters: the owner writes them with plain loads and stores
	 * (act__count), anyone may read them (act_stats, relaxed) */
	_Atomic uint64_t n_switches, n_spawns, n_placed, n_steals,
		n_steal_fails, n_stolen, n_remote_wakes, n_parks, n_sleeps,
		n_futex_wakes, n_mutes, n_exits, n_far_steals,
		n_direct; /* switches from a process straight to the next */
	/* time accounting (base/clock.h): busy (running processes or
	 * between them), spinning (searching for work), sleeping */
	struct act__clock_phases phases;
	/* observers (doc/observability.md); off: NULL, false */
	struct act__trace_buf *trace; /* ACTORS_TRACE: this worker's events */
	/* turns are timed (run_ticks, watch); its spawns carry it in their
	 * flags (ACT_PF_TIMED), which the switch tests */
	bool timed;
	/* the park race's test switches (base/park.h): delays at the
	 * protocols' ACT_TEST_HOOK lines (its spawns carry ACT_PF_HOOKED,
	 * which the settle tests), and one wake in drop_every dropped */
	bool hooks;
	/* the wake's cold path (wake.h): tracing, or the test switches */
	bool slow;
	uint32_t drop_every, drop_count;
	uint64_t hook_rng;   /* the delays' PRNG state */
	uint64_t turn_t;     /* timed: the tick the turn began */
	uint32_t flow_in;    /* trace: the arrow into this turn */
	uint32_t runq_every; /* trace: turns to the next runq count */
	int64_t nodes_next;  /* trace: the clock's next nodes' sample */

	/* other threads */
	struct act__runq rq act__aligned;
	struct act__doorbell bell act__aligned;
	/* set while idle (searching or asleep), read by spawners (place) */
	_Atomic uint8_t wants_work;

	/* read by the reactor's watch (lib/node/observe.c), relaxed:
	 * with timed turns, the running turn's first tick (0: between
	 * turns), its process's pid and entry function */
	_Atomic uint64_t watch_turn act__aligned;
	_Atomic uint64_t watch_pid;
	_Atomic uintptr_t watch_fn; /* its entry function */
};

/*
 * Trace: an arrow from the waker's turn to p's next one, for one wake in
 * ACT_TRACE_FLOW_EVERY (a wake is a message's cost; the reactor's, an I/O
 * completion's or a timer's, are all drawn). Its start is put at the
 * waker's turn's start (no clock read per message); p, claimed and not
 * yet queued, takes the id with it, published by the enqueue.
 */
#define ACT_TRACE_FLOW_EVERY 8

/* wake.h's slow wake (tracing or the park race's switches), out of line;
 * and what it does after its claim: true when the wake is dropped (the
 * planted lost wakeup of base/park.h). */
bool act__worker_wake_slow(struct act__worker *me, struct act__proc *p,
			   uint64_t ticket, unsigned from);
bool act__worker_woke(struct act__worker *me, struct act__proc *p);
/* The sampled wakes' arrow (the wake, wake.h, counts them); out of line
 * and cold: the wake, inlined into every send, stays small. */
__attribute__((cold)) void act__worker_trace_wake(struct act__worker *me,
						  struct act__proc *p);

static inline uint64_t act__worker_rng(struct act__worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

/* I8: act__tls_worker_self() (arch/tls.h) is the only way to the calling
 * thread's worker; NULL off a worker. act__tls_set_worker sets it. */

int act__worker_init(struct act__worker *w, struct act__rt *rt, uint32_t i);
/* w's memory home (lib/affinity/homes.h) for its slab, stacks and slots; after
 * rt->numa and rt->procs are set up, before w runs. */
int act__worker_set_home(struct act__worker *w, int home);
void act__worker_destroy(struct act__worker *w);
/* Run processes until the runtime stops. */
void act__worker_loop(struct act__worker *w);

/*
 * ACT_REACTOR_INLINE: a turn of the reactor on w->inline_r's worker, at
 * its scheduler (idle: it found nothing to run); and its sleep in the
 * ring, once the worker announced it (seen: its doorbell's prepare) and
 * found nothing. now: the clock, read by the worker just before (a read
 * costs 20-35 ns in a VM, and an idle worker used to make 11 of them a
 * cycle); the turn returns the clock it ended at. Defined in
 * lib/reactor/reactor.c (a hook from this layer up:
 * scripts/check-layers.sh lists them).
 */
struct act__reactor;
int64_t act__reactor_inline_turn(struct act__reactor *r, bool idle,
				 int64_t now);
void act__reactor_inline_sleep(struct act__reactor *r, uint32_t seen,
			       int64_t now);
/* Busy, a turn once in this many runs (Go checks its global queue once
 * in 61 schedules); ring polls at most once in ACT_INLINE_POLL_NS. */
#define ACT_INLINE_TURN_RUNS 61
#define ACT_INLINE_POLL_NS 50000

/* Set the stop word and wake every worker (any thread). */
void act__worker_stop_all(struct act__rt *rt);
/*
 * Go's rule: if a worker sleeps idle and none is searching, wake one to
 * search (it takes a unit of rt->nspinning for it). `me`: the caller's
 * worker or NULL. Any thread.
 */
void act__worker_wake_idle(struct act__rt *rt, struct act__worker *me);

/* From a process: give the CPU back to the worker for `reason`. */
void act__worker_switch_out(struct act__proc *p, int reason);

/*
 * The same, with w the caller's worker fetched since the last switch.
 * After it returns the process may run on another worker: the caller
 * must fetch act__tls_worker_self() again before touching worker state (I8).
 */
void act__worker_switch(struct act__worker *w, struct act__proc *p, int reason);
static inline void act__worker_switch_out_w(struct act__worker *w,
					    struct act__proc *p, int reason)
{
	act__worker_switch(w, p, reason);
}

/*
 * Whatever a switch resumed (the loop, a process in its switch, a new
 * process's first instruction) calls this first, on its own stack, with
 * the thread's worker: it finishes the switch of w->leaving (parks it,
 * queues it, reaps it), now that nothing runs on that process's stack
 * (I2). Nothing when the switch came from the loop.
 */
void act__worker_settle(struct act__worker *w);

/*
 * A process spawned with ACT_SPAWN_FPENV (ACT_PF_FPENV) starts or
 * resumes on w: keep w's floating-point control state and load own.
 * Then, as it switches out, act__worker_fp_leave puts w's back.
 */
static inline void act__worker_fp_enter(struct act__worker *w,
					const struct act__fpctl *own)
{
	act__fp_save(&w->fp_shared);
	act__fp_load(own);
}

/*
 * Implemented a layer above, in lib/actor/spawn.c (a process's exit runs
 * its exit handlers: doc/design/overview.md "Layers"). From p itself:
 * exit now with p->exit_reason (set by act_exit or a kill); never
 * returns. And, back from a switch: exit if it was killed.
 */
void act__spawn_exit_now(struct act__proc *p) __attribute__((noreturn));
void act__spawn_die_if_killed(struct act__proc *p);

/*
 * Charge one reduction to p, running on w; yields when the budget is
 * spent. w must not be used by the caller after this returns (I8).
 */
static inline void act__worker_reduce(struct act__worker *w,
				      struct act__proc *p)
{
	if (act__unlikely(--w->budget <= 0)) {
		act__worker_switch_out_w(w, p, ACT_SW_YIELD);
		act__proc_turn_begin(p);
		act__spawn_die_if_killed(p);
	}
}

/*
 * Implemented a layer above, in lib/actor/links.c: the reap's call
 * upward (doc/design/overview.md "Layers"). p is EXITING, off its stack,
 * on worker w: drop its name, send its exit signals and DOWN messages,
 * free its relations.
 */
void act__links_exit(struct act__worker *w, struct act__proc *p);

#endif /* ACT_WORKER_H */
