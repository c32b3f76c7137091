/* SPDX-License-Identifier: MIT */
/*
 * trace.h - the execution trace's recording side (ACTORS_TRACE).
 *
 * Every worker and the reactor own one buffer: a ring of 32-byte events
 * that only its thread writes, with plain stores, no lock, no atomic and
 * no system call; when the ring is full the newest event overwrites the
 * oldest, and the writer (lib/node/tracefile.c) says how many were lost.
 * It reads the rings once the threads have stopped, turns ticks into
 * microseconds and writes the Chrome trace-event JSON that Perfetto opens
 * (doc/observability.md).
 *
 * An event: its kind in the top byte of the first word, its tick (since
 * the trace began) in the other 56 bits, and three words whose meaning
 * the kind gives (below). A recording site costs a test of the owner's
 * buffer pointer when tracing is off.
 */
#ifndef ACT_TRACE_H
#define ACT_TRACE_H

#include <stdint.h>
#include <string.h>

#include "clock.h"
#include "internal.h"

enum act__trace_kind {
	ACT_TR_NONE = 0,
	ACT_TR_RUN,	    /* slice end: a pid, b start tick, c why | red << 8
			     * | flow in << 32 */
	ACT_TR_SEARCH,	    /* slice end: b start tick */
	ACT_TR_PARKED,	    /* slice end: b start tick */
	ACT_TR_SPAWN,	    /* a child, b entry function, c parent */
	ACT_TR_EXIT,	    /* a pid, b reason */
	ACT_TR_KILL,	    /* a target, b reason, c killer (0: outside) */
	ACT_TR_SIG_EXIT,    /* exit signal: a from, b to, c reason */
	ACT_TR_SIG_DOWN,    /* DOWN message: a from, b to, c reason */
	ACT_TR_STEAL,	    /* a victim worker, b processes taken */
	ACT_TR_MUTE,	    /* a muted pid, b receiver */
	ACT_TR_RELEASE,	    /* a released pid */
	ACT_TR_WAKE_WORKER, /* a worker index rung */
	ACT_TR_FLOW,	    /* a flow id, b woken pid: the arrow's start */
	ACT_TR_RUNQ,	    /* a run queue length */
	ACT_TR_NAME,	    /* a pid, b length; the name follows in the next
			     * events' bytes (ACT_TR_BYTES) */
	ACT_TR_BYTES,	    /* 24 bytes of a name */
	ACT_TR_LOOP,	    /* reactor turn end: b start tick, a SQEs, c CQEs */
	ACT_TR_IO_BEGIN,    /* a op id, b pid, c op << 32 | fd */
	ACT_TR_IO_END,	    /* a op id, b result, c op << 32 */
	ACT_TR_TIMER,	    /* a pid, b 0 timeout, 1 timer message */
	ACT_TR_NODE_BYTES,  /* a node's number (lib/dist), b bytes in, c
			     * bytes out, since the runtime began */
	ACT_TR_NODE_FRAMES, /* a node's number | its tick misses << 32, b
			     * frames in, c frames out */
	ACT_TR_KINDS
};

/* Why a run slice ended (ACT_TR_RUN's c, low byte). */
enum act__trace_why {
	ACT_TR_WHY_RECEIVE = 1,
	ACT_TR_WHY_YIELD,
	ACT_TR_WHY_IO,
	ACT_TR_WHY_EXIT,
	ACT_TR_WHY_MUTED,
};

struct act__trace_ev {
	uint64_t tk; /* kind << 56 | ticks since the trace began */
	uint64_t a, b, c;
};

#define ACT_TRACE_TICK_MASK ((UINT64_C(1) << 56) - 1)

struct act__trace_buf {
	struct act__trace_ev *ev; /* 2^k events */
	uint64_t mask;		  /* 2^k - 1 */
	uint64_t n;		  /* events written, ever */
	uint64_t t0;		  /* the trace's first tick */
	uint32_t flows;		  /* flow ids made here */
	uint32_t sampled;	  /* wakes seen, for the flows' sampling */
	uint32_t id;		  /* this buffer's index: workers, reactor */
};

/* The tick of now, relative to the trace's start. */
static inline uint64_t act__trace_now(const struct act__trace_buf *b)
{
	return act__clock_ticks() - b->t0;
}

/* Record one event at relative tick t (owner only). */
static inline void act__trace_put(struct act__trace_buf *b, unsigned kind,
				  uint64_t t, uint64_t a, uint64_t x,
				  uint64_t c)
{
	struct act__trace_ev *e = &b->ev[b->n++ & b->mask];

	e->tk = (uint64_t)kind << 56 | (t & ACT_TRACE_TICK_MASK);
	e->a = a;
	e->b = x;
	e->c = c;
}

/* The same, now: out of line and cold, so that the hooks in hot code
 * (`if (act__unlikely(w->trace)) act__trace_event(...)`) cost their
 * test and nothing more when tracing is off (trace.c). */
__attribute__((cold)) void act__trace_event(struct act__trace_buf *b,
					    unsigned kind, uint64_t a,
					    uint64_t x, uint64_t c);

/* A flow id for an arrow from here: unique per buffer, and between
 * buffers by the buffer's index in the low byte. */
static inline uint32_t act__trace_flow_id(struct act__trace_buf *b)
{
	return ++b->flows << 8 | (b->id & 0xffu);
}

/* A name for pid, in as many events as it takes (owner only). */
void act__trace_name(struct act__trace_buf *b, uint64_t pid, const char *name,
		     size_t len);

/* Map a buffer of about `bytes` (a power of two of events, at least 1,024)
 * for buffer id, ticks counted from t0. 0 or -ENOMEM. */
int act__trace_buf_init(struct act__trace_buf *b, size_t bytes, uint32_t id,
			uint64_t t0);
void act__trace_buf_destroy(struct act__trace_buf *b);

#endif /* ACT_TRACE_H */
