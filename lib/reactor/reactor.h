/* SPDX-License-Identifier: MIT */
/*
 * reactor.h - the runtime's own thread for things that complete later:
 * receive timeouts, sleeps and user timers on a hierarchical timer wheel
 * (wheel.h), and I/O on its io_uring ring (ring.h, io.h), both touched by
 * this thread only. The reactor never runs a process: it wakes one with
 * the wait's ticket (I4) through act__wake_claim, queues it on its last
 * worker, and rings each worker that got work once at the end of its
 * loop (act__reactor_wake_proc).
 *
 * Workers hand it commands through an MPSC queue (act__mpsc) and ring its
 * doorbell only when it sleeps past what they ask for: arming a timeout
 * rings only if the deadline is earlier than the one the reactor sleeps
 * towards; a cancel does not ring at all (the reactor takes it when it
 * next wakes), except once in ACT_REACTOR_CANCEL_BATCH cancels from one
 * worker, which bounds the memory they hold.
 *
 * A receive timeout is a record (struct act__timeout) that the waiting
 * process and the reactor share, and its state word says who frees it:
 * the reactor fires it (ARMED -> FIRED) and the process frees it, or the
 * process's receive ends first (ARMED -> CANCELLED) and the reactor frees
 * it when it takes the cancel.
 */
#ifndef ACT_REACTOR_H
#define ACT_REACTOR_H

#include <pthread.h>
#include <stdint.h>

#include "actors.h"
#include "base/mpsc.h"
#include "base/park.h"
#include "base/trace.h"
#include "ring.h"
#include "wheel.h"

struct act__rt;
struct act__proc;
struct act__worker;

/* The wheel's tick, the timers' resolution: act_config.timer_us. */
#define ACT_TIMER_US_DEFAULT 250
#define ACT_TIMER_US_MIN 10
#define ACT_TIMER_US_MAX 100000
/* Cancels one worker sends without ringing before it rings once. */
#define ACT_REACTOR_CANCEL_BATCH 256

enum act__rcmd_op {
	ACT_RC_ARM = 1,	 /* add a receive timeout to the wheel */
	ACT_RC_CANCEL,	 /* the receive ended first: drop it and free */
	ACT_RC_UARM,	 /* add a user timer (act_send_after, interval) */
	ACT_RC_UCANCEL,	 /* a user timer was cancelled: drop and free */
	ACT_RC_IO,	 /* start an I/O operation (io.h) */
	ACT_RC_IOCANCEL, /* a killed process's operation: cancel it */
};

/* A command on the reactor's queue. */
struct act__rcmd {
	struct act__mpsc_node q;
	uint8_t op;
};

enum act__timeout_state {
	ACT_TO_ARMED = 1,
	ACT_TO_FIRED,	  /* the reactor is done with it: process frees */
	ACT_TO_CANCELLED, /* the process is done with it: reactor frees */
};

struct act__timeout {
	struct act__rcmd arm, cancel; /* its two commands, in order */
	struct act__tnode node;	      /* the reactor's: in the wheel */
	_Atomic uint32_t state;	      /* enum act__timeout_state */
	uint32_t index;		      /* the waiting process's slot */
	uint64_t gen;		      /* ... and its generation */
	uint64_t ticket;	      /* the wait it ends (I4) */
	int64_t deadline;	      /* CLOCK_MONOTONIC ns */
};

/* What a wheel node belongs to (act__tnode.kind). */
enum { ACT_TK_TIMEOUT = 1, ACT_TK_USER };

/* act_send_after / act_send_interval timers (timer.c). */
enum act__ut_state {
	ACT_UT_FREE = 0,
	ACT_UT_ARMED,
	ACT_UT_FIRING,	  /* the reactor is sending its message */
	ACT_UT_CANCELLED, /* cancelled: its cancel command frees it */
};

#define ACT_UT_CHUNK 4096u
#define ACT_UT_CHUNKS 1024u /* at most 4,194,304 timers at once */

struct act__utimer {
	struct act__rcmd arm, cancel; /* its two commands */
	struct act__tnode node;	      /* the reactor's: in the wheel */
	/* generation << 8 | enum act__ut_state; the generation goes up
	 * each time the slot is freed, so a stale act_timer never matches
	 * (timer.c: it never wraps) */
	_Atomic uint64_t word;
	act_pid to, from;
	uint32_t tag;
	uint32_t free_next; /* on the free list (lock) */
	uint32_t index;	    /* its own, in the table */
	int64_t interval;   /* 0: once */
	int64_t deadline;
	size_t len;
	void *data; /* the payload's copy, or NULL */
};

struct act__utimers {
	_Atomic uint32_t lock; /* guards free_head and growth */
	uint32_t free_head;    /* UINT32_MAX: none */
	_Atomic uint32_t n;    /* slots ever handed out */
	struct act__utimer *_Atomic chunks[ACT_UT_CHUNKS];
};

struct act__io;

struct act__reactor {
	struct act__rt *rt;
	pthread_t thread;
	int sys_n; /* its systematic participant (base/systematic.h) */
	struct act__mpsc cmds;	 /* workers -> reactor */
	struct act__wheel wheel; /* reactor only */
	/* the deadline the reactor sleeps towards (INT64_MAX: none);
	 * written by the reactor, read by workers deciding to ring */
	_Atomic int64_t next_deadline;
	/* what it sleeps on: own_bell, or, inline, worker 0's own (one
	 * sleep for both: a command and a process's wake ring the same) */
	struct act__doorbell *bell;
	struct act__doorbell own_bell;
	/* ACT_REACTOR_INLINE: no thread; worker 0 runs its turns between
	 * processes and sleeps in its ring (act__reactor_inline_turn) */
	bool on_worker;
	int64_t last_enter;	    /* inline: its last poll of the ring */
	struct act__ring ring;	    /* set up before act__reactor_start
				     * returns, then read-only to others */
	_Atomic uint32_t ready;	    /* 1 once ring is set up */
	struct act__utimers timers; /* act_send_after and interval */
	_Atomic uint32_t stop;
	/* ACTORS_DUMP_SIGNAL's handler asks for act_dump (node/info.c):
	 * set by the handler, taken by the reactor's loop */
	_Atomic uint32_t dump_req;
	_Atomic uint64_t n_fired; /* reactor writes, act_stats reads */
	_Atomic uint32_t n_held;  /* timers on the wheel, as of its
				   * last loop (reactor writes) */
	/* I/O (io.c), reactor only: operations taken but not yet in the
	 * SQ (FIFO), those in the kernel (a list, for the cancels at stop),
	 * and cancels waiting for SQ room */
	struct act__io *pend_head, *pend_tail;
	struct act__io *inflight;
	struct act__io *cancel_head, *cancel_tail;
	bool stopping;	   /* draining: wake nobody */
	bool submit_first; /* on a worker's CPU: submit, reap,
			    * then wake (reactor.c shares_cpu) */
	/* registered files (act_io_register): the ring's table, made at
	 * the first registration, slot n for descriptor n; fixed[n] says
	 * whether n is in it (io.c) */
	uint8_t *fixed;
	uint32_t nfixed;
	int fixed_err; /* making the table failed: why */
	/* wakes of one loop, rung once per worker at its end */
	uint32_t *marked;   /* worker indexes */
	uint8_t *is_marked; /* per worker */
	uint32_t n_marked;
	/* counters: the reactor writes, act_stats reads (relaxed) */
	_Atomic uint64_t n_io_ops, n_io_cancels, n_inflight, n_loops, n_wakes;
	_Atomic uint64_t n_wake_loops; /* loops that queued a process */
	/* observers (doc/observability.md, their hooks reactor_obs.h):
	 * the trace's buffer (NULL: off) and this loop's counts for it;
	 * the watch, a call into the
	 * runtime (act__observe_watch) every watch_ns (0: none) for the
	 * interval lines and ACTORS_LONG_SCHEDULE; time accounting in
	 * nanoseconds, as a worker's (busy: the turns, sleep: the waits),
	 * phase read by the watch */
	struct act__trace_buf *trace;
	/* the park race's delays (base/park.h): before each sleep */
	bool hooks;
	uint64_t hook_rng;
	uint32_t turn_sqes, turn_cqes;
	uint64_t trace_wait; /* the tick its wait began */
	uint64_t trace_turn; /* the tick this loop began */
	int64_t watch_ns, watch_next;
	struct act__clock_phases phases; /* busy, sleeping */
};

int act__reactor_start(struct act__reactor *r, struct act__rt *rt);
void act__reactor_stop(struct act__reactor *r);

/*
 * Any worker, for the process p running on it: arm a timeout that ends
 * p's wait `ticket` at `deadline` unless the wait ends first. Returns the
 * record, to give to act__reactor_disarm when the wait is over, or NULL
 * without memory.
 */
struct act__timeout *act__reactor_arm_timeout(struct act__reactor *r,
					      struct act__proc *p,
					      uint64_t ticket,
					      int64_t deadline);

/* The wait of t is over (for whatever reason): give t up. */
void act__reactor_disarm(struct act__reactor *r, struct act__timeout *t);

/*
 * Reactor: make p, waiting in state `from` for ticket, runnable on its
 * last worker, which is rung once at the end of this loop (flush_wakes
 * in reactor.c). False if the wait was over already. User timers'
 * messages go through act__message_send and ring at once.
 */
bool act__reactor_wake_proc(struct act__reactor *r, struct act__proc *p,
			    uint64_t ticket, unsigned from);

/* Wake the reactor if it sleeps (the doorbell protocol of park.h, in
 * whatever it sleeps in: ring.h). True if it had to. Any thread. */
static inline bool act__reactor_wake(struct act__reactor *r)
{
	/* seq_cst: the load half of the Dekker pair with
	 * act__park_prepare's store of sleeping, as act__park_ring */
	if (!atomic_load_explicit(&r->bell->sleeping, memory_order_seq_cst) ||
	    !atomic_exchange_explicit(&r->bell->sleeping, 0,
				      memory_order_seq_cst))
		return false;
	act__ring_kick(&r->ring, r->bell);
	return true;
}

/* Put c on the reactor's command queue (no ring). Any thread. */
void act__reactor_push(struct act__reactor *r, struct act__rcmd *c, uint8_t op);

/* The reactor's side of user timers, implemented a layer above, in
 * lib/actor/timer.c (a fired timer is a send: doc/design/overview.md
 * "Layers"); reactor thread only. */
void act__timer_arm(struct act__reactor *r, struct act__utimer *u);
void act__timer_fire(struct act__reactor *r, struct act__utimer *u);
void act__timer_release(struct act__reactor *r, struct act__utimer *u);
void act__timer_destroy_all(struct act__utimers *t);
/* Ring for a command that makes nothing due sooner: once a batch from
 * a worker, always from elsewhere. */
void act__reactor_ring_lazy(struct act__reactor *r);

#endif /* ACT_REACTOR_H */
