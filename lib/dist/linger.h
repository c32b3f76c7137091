/* SPDX-License-Identifier: MIT */
/*
 * linger.h - when a connection's reader waits for a batch (lib/dist/
 * conn.c).
 *
 * A reader that reads as soon as its last frames are handed on gets, from
 * a peer with many requests in flight, one or two frames per read, and
 * answers them in a write of their own: a read, a write and a wake of the
 * peer per one or two round trips, most of a round trip's CPU on both
 * nodes (doc/distribution.md, "Batching"). Waiting `ns` (100 us unless
 * act_dist_opts.linger_us says otherwise) before such a read lets the
 * frames of that time come in one read and their answers go in one
 * write. It is interrupt moderation, as a network card does it.
 *
 * A wait only pays where the peer is busy meanwhile; where it is waiting
 * for this node's answers (two requests in flight, not sixty-four), it
 * only slows the round trips. So the reader measures: the frames it
 * reads per second over windows of ACT__LINGER_WINDOW_NS (and
 * ACT__LINGER_WINDOW_READS reads at least), eager, then with the waits
 * on trial; it keeps them while their rate stays at ACT__LINGER_KEEP_PCT
 * percent of the eager one or more (a trial's one window, or two in a
 * row once kept), and measures eager again now and then. A trial that fails is tried again after twice as many windows as
 * the last (up to ACT__LINGER_BACKOFF_MAX), so a latency-bound peer pays
 * one slow window in hundreds. Only a read that found two frames or more
 * is followed by a wait: a lone request is answered at once.
 *
 * Pure: the caller passes the clock. One per reader, on its stack.
 */
#ifndef ACT_DIST_LINGER_H
#define ACT_DIST_LINGER_H

#include <stdbool.h>
#include <stdint.h>

#define ACT__LINGER_NS_DEFAULT 100000 /* 100 us */
#define ACT__LINGER_US_MAX 1000	      /* act_dist_opts.linger_us's bound */
#define ACT__LINGER_WINDOW_NS 2000000 /* a window: 2 ms and ... */
#define ACT__LINGER_WINDOW_READS 8    /* ... 8 reads at least */
/* a window this long had gaps: its rate says nothing of the waits, and
 * it is dropped without a verdict */
#define ACT__LINGER_GAP_NS 50000000
#define ACT__LINGER_KEEP_PCT 90
/* windows with waits before an eager one, after the first trial kept;
 * doubled per trial kept in a row, up to ACT__LINGER_HOLD_MAX */
#define ACT__LINGER_HOLD 16
#define ACT__LINGER_HOLD_MAX 256
#define ACT__LINGER_BACKOFF_MAX 512

enum act__linger_state {
	ACT__LINGER_EAGER, /* each read at once */
	ACT__LINGER_TRIAL, /* waits, on trial for this window */
	ACT__LINGER_ON,	   /* waits, kept */
};

struct act__linger {
	int64_t ns;	   /* the wait; 0: never */
	int64_t win_start; /* the current window's first read; 0: none */
	uint64_t win_frames;
	uint32_t win_reads;
	uint8_t state; /* enum act__linger_state */
	/* the last eager window's rate: frames over ns */
	uint64_t eager_frames;
	int64_t eager_ns;
	uint32_t wait;	    /* eager windows left before the next trial */
	uint32_t backoff;   /* `wait` after the next failed trial */
	uint32_t hold;	    /* windows with waits left before an eager one */
	uint32_t hold_next; /* `hold` after the next trial kept */
	uint32_t strikes;   /* windows in a row with waits that fell short */
	/* for the tests and ACTORS_STATS: trials, and those kept */
	uint32_t trials, kept;
};

/* ns: the wait (0: never). */
void act__linger_init(struct act__linger *l, int64_t ns);

/* A read at now (the clock, > 0) found `frames` whole frames: how long
 * to wait before the next read, 0 for at once. */
int64_t act__linger_after_read(struct act__linger *l, int64_t now,
			       uint32_t frames);

#endif /* ACT_DIST_LINGER_H */
