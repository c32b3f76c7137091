/* SPDX-License-Identifier: MIT */
/*
 * ring.h - the reactor's io_uring ring, and how the reactor sleeps in it.
 *
 * The ring is made by the reactor thread (IORING_SETUP_SINGLE_ISSUER and
 * DEFER_TASKRUN where the kernel has them: only that thread submits and
 * reaps), and the reactor sleeps in it: in io_uring_wait_cqe with the
 * next timer's deadline as timeout. Its doorbell (park.h: seq and
 * sleeping) stays what workers use; the reactor arms a wait on it in the
 * ring:
 *
 *   - IORING_OP_FUTEX_WAIT on the doorbell's seq (Linux 6.7+, probed at
 *     start; liburing 2.3 has no helper, so the SQE is filled here): a
 *     worker's plain FUTEX_WAKE ends it, as it ends a FUTEX_WAIT;
 *   - else a read of an eventfd that a worker writes when it rings.
 *
 * With no ring at all (a kernel without io_uring, io_uring_disabled, a
 * seccomp filter), start-up says so in one line, and the reactor sleeps
 * on its doorbell in FUTEX_WAIT as before: timers work, I/O does not.
 *
 * When the doorbell's wait cannot be put in the ring (the SQ is full and
 * the kernel takes nothing now) or its completion is an error (the op
 * refused), the reactor sleeps ACT_RING_NOBELL_NS at most at a time
 * until it can: a ring of the doorbell is then seen within that time
 * instead of never. A failed wait is said once.
 *
 * Test switch (act__ring_init's test, ACT_TEST_RING resolved by the
 * variables' table, settings/vars.h; doc/testing.md): eventfd forces
 * the eventfd doorbell, plain a ring without SINGLE_ISSUER and
 * DEFER_TASKRUN (as before Linux 6.1), none no ring at all
 * (tests/fallback.sh runs the suites so), nobell never an SQE for the
 * doorbell's wait.
 * A kernel without IORING_FEAT_EXT_ARG (before 5.11) counts as none.
 */
#ifndef ACT_RING_H
#define ACT_RING_H

#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/fail.h"
#include "base/park.h"
#include "settings/vars.h"

#define ACT_RING_ENTRIES 256	   /* default SQ size */
#define ACT_RING_MAX_ENTRIES 32768 /* the kernel's limit */
#define ACT_RING_MIN_CQ 4096	   /* CQ entries at least */
#define ACT_RING_MAX_CQ 65536	   /* the kernel's CQ limit (2x the SQ's) */
/* without its doorbell's wait in the ring the reactor sleeps at most
 * this long at a time, so that a worker's ring is never missed for long */
#define ACT_RING_NOBELL_NS 1000000

enum act__ring_mode {
	ACT_RING_NONE = 0, /* no io_uring: futex doorbell */
	ACT_RING_FUTEX,	   /* doorbell: IORING_OP_FUTEX_WAIT */
	ACT_RING_EVENTFD,  /* doorbell: a read of an eventfd */
};

/*
 * ACT_TEST_FAIL's submit sites (base/fail.h): -EBUSY (completions to reap
 * first) or -EAGAIN (no memory for a request now) from io_uring_enter,
 * which then takes no SQE: the caller leaves the enter out, the SQEs stay
 * queued for the next one, as the kernel leaves them. 0: enter.
 */
static inline int act__ring_refused(void)
{
	if (ACT_FAIL(ACT_FAIL_SUBMIT_BUSY))
		return -EBUSY;
	return ACT_FAIL(ACT_FAIL_SUBMIT_AGAIN) ? -EAGAIN : 0;
}

struct act__ring {
	struct io_uring ring;
	int mode;	      /* enum act__ring_mode; set before workers */
	int efd;	      /* eventfd doorbell, or -1 */
	bool bell_armed;      /* the doorbell's wait is in the ring */
	bool bell_broken;     /* its wait failed: bounded sleeps instead */
	bool test_nobell;     /* ACT_TEST_RING=nobell: as if the SQ were
			       * always full when the doorbell is armed */
	uint64_t efd_buf;     /* the eventfd read's target */
	unsigned setup_flags; /* what the kernel took */
	char why[160];	      /* ACT_RING_NONE: why there is none */
};

/*
 * In the reactor thread: make the ring. On failure the mode is
 * ACT_RING_NONE and `why` holds one line that says why (empty when a
 * ring was made). Never fails the runtime. test: ACT_TEST_RING's value
 * (enum act__test_ring, settings/vars.h; ACT_TEST_RING_UNSET: the best
 * ring this kernel has).
 */
void act__ring_init(struct act__ring *g, unsigned entries, unsigned test,
		    char *why, size_t why_len);
void act__ring_exit(struct act__ring *g);

/*
 * Reactor: sleep in the ring until a completion, a ring of the doorbell
 * (whose seq the caller read as `seen` in act__park_prepare), or
 * timeout_ns (< 0: none). inflight: operations are in the kernel (a
 * systematic run's reactor then polls: base/systematic.h).
 */
void act__ring_wait(struct act__ring *g, struct act__doorbell *bell,
		    uint32_t seen, int64_t timeout_ns, bool inflight);

/* Reactor: submit what is in the SQ, and collect completions without
 * waiting (inflight: operations are in the kernel). */
void act__ring_poll(struct act__ring *g, bool inflight);

/* Reactor: SQEs queued and not yet submitted? */
static inline bool act__ring_sq_pending(struct act__ring *g)
{
	return g->mode != ACT_RING_NONE && io_uring_sq_ready(&g->ring) != 0;
}

/* Reactor: hand every CQE but the doorbell's to fn, emptying the CQ and
 * the kernel's overflow list. */
void act__ring_reap(struct act__ring *g,
		    void (*fn)(void *ctx, uint64_t user_data, int32_t res),
		    void *ctx);

/* A waker that took the doorbell's `sleeping` (act__park_ring's
 * protocol): wake the reactor in whatever it sleeps in. Any thread. */
void act__ring_kick(struct act__ring *g, struct act__doorbell *bell);

#endif /* ACT_RING_H */
