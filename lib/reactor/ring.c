/* SPDX-License-Identifier: MIT */
/* ring.c - the reactor's io_uring ring and its doorbell; see ring.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/systematic.h"
#include "ring.h"

/* Linux 6.7's futex ops in io_uring, missing from older headers. */
#ifndef IORING_OP_FUTEX_WAIT
#define IORING_OP_FUTEX_WAIT 51
#endif
#define ACT_FUTEX2_SIZE_U32 0x02u
#define ACT_FUTEX2_PRIVATE 128u
#define ACT_FUTEX_BITSET_MATCH_ANY 0xffffffffu

#define BELL_TAG 1u /* user_data of the doorbell's wait */

static bool has_op(struct io_uring *ring, int op)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	bool yes = p && io_uring_opcode_supported(p, op);

	io_uring_free_probe(p);
	return yes;
}

/*
 * The CQ: at least ACT_RING_MIN_CQ entries, 4 per SQ entry, at most the
 * kernel's ACT_RING_MAX_CQ (past it the setup fails with EINVAL: SQs of
 * 16,385 to 32,768 entries ran without io_uring). Operations in flight
 * are not bounded by the SQ (the reactor refills it every loop), and
 * completions past the CQ go to the kernel's overflow list, allocated as
 * they come.
 */
static unsigned cq_entries(unsigned entries)
{
	unsigned cq = entries * 4;

	if (cq < ACT_RING_MIN_CQ)
		return ACT_RING_MIN_CQ;
	return cq > ACT_RING_MAX_CQ ? ACT_RING_MAX_CQ : cq;
}

static int ring_setup(struct act__ring *g, unsigned entries, unsigned flags,
		      struct io_uring_params *p)
{
	unsigned cq = cq_entries(entries);

	memset(p, 0, sizeof(*p));
	p->flags = flags | IORING_SETUP_CQSIZE;
	p->cq_entries = cq;
	if (ACT_FAIL(ACT_FAIL_RING_SETUP))
		return -ENOMEM; /* as io_uring_setup without locked memory */
	return io_uring_queue_init_params(entries, &g->ring, p);
}

static void ring_init(struct act__ring *g, unsigned entries, unsigned test,
		      char *why, size_t why_len);

void act__ring_init(struct act__ring *g, unsigned entries, unsigned test,
		    char *why, size_t why_len)
{
	ring_init(g, entries, test, why, why_len);
	snprintf(g->why, sizeof(g->why), "%s", why);
}

static void ring_init(struct act__ring *g, unsigned entries, unsigned test,
		      char *why, size_t why_len)
{
	struct io_uring_params p;
	bool plain;
	int rc;

	g->mode = ACT_RING_NONE;
	g->efd = -1;
	g->bell_armed = false;
	g->bell_broken = false;
	g->test_nobell = test == ACT_TEST_RING_NOBELL;
	why[0] = '\0';
	g->why[0] = '\0';
	if (test == ACT_TEST_RING_NONE) {
		snprintf(why, why_len, "io_uring is off (ACT_TEST_RING=none)");
		return;
	}
	/* a timed operation takes two entries at once (it and its linked
	 * timeout): a ring of one could never take it */
	if (entries < 2)
		entries = 2;
	/* ACT_TEST_RING=plain: the ring of kernels before 6.1 */
	plain = test == ACT_TEST_RING_PLAIN;
	rc = -EINVAL;
	if (!plain)
		rc = ring_setup(g, entries,
				IORING_SETUP_SINGLE_ISSUER |
					IORING_SETUP_DEFER_TASKRUN,
				&p);
	if (rc == -EINVAL) /* before 6.1: neither flag */
		rc = ring_setup(g, entries, 0, &p);
	if (rc < 0) {
		snprintf(why, why_len, "io_uring is unavailable (%s)",
			 strerror(-rc));
		return;
	}
	/* the reactor's wait needs a timeout of its own (5.11: else
	 * liburing queues a timeout whose CQE it cannot always hide), and
	 * no completion may be dropped (5.5) */
	if ((p.features & (IORING_FEAT_EXT_ARG | IORING_FEAT_NODROP)) !=
	    (IORING_FEAT_EXT_ARG | IORING_FEAT_NODROP)) {
		io_uring_queue_exit(&g->ring);
		snprintf(why, why_len,
			 "io_uring is too old (Linux 5.11 or "
			 "later is needed)");
		return;
	}
	g->setup_flags = p.flags;
	if (test != ACT_TEST_RING_EVENTFD &&
	    has_op(&g->ring, IORING_OP_FUTEX_WAIT)) {
		g->mode = ACT_RING_FUTEX;
		return;
	}
	g->efd = eventfd(0, EFD_CLOEXEC);
	if (g->efd < 0) {
		snprintf(why, why_len,
			 "no eventfd for io_uring's doorbell "
			 "(%s)",
			 strerror(errno));
		io_uring_queue_exit(&g->ring);
		return;
	}
	g->mode = ACT_RING_EVENTFD;
}

void act__ring_exit(struct act__ring *g)
{
	if (g->mode == ACT_RING_NONE)
		return;
	io_uring_queue_exit(&g->ring);
	if (g->efd >= 0)
		close(g->efd);
	g->efd = -1;
	g->mode = ACT_RING_NONE;
}

/* Put the doorbell's wait in the ring, if it is not there. */
static void arm_bell(struct act__ring *g, struct act__doorbell *bell,
		     uint32_t seen)
{
	struct io_uring_sqe *sqe;

	if (g->bell_armed || g->bell_broken)
		return;
	sqe = g->test_nobell ? NULL : io_uring_get_sqe(&g->ring);
	if (!sqe) { /* full of other work: submit it, then there is room */
		if (!act__ring_refused())
			io_uring_submit(&g->ring);
		sqe = g->test_nobell ? NULL : io_uring_get_sqe(&g->ring);
		if (!sqe) /* act__ring_wait bounds the sleep */
			return;
	}
	if (g->mode == ACT_RING_FUTEX) {
		/* as liburing 2.5's io_uring_prep_futex_wait: fd holds the
		 * futex2 flags, addr the word, off the value, addr3 the
		 * mask; it ends at once if seq is no longer `seen` */
		io_uring_prep_rw(IORING_OP_FUTEX_WAIT, sqe,
				 (int)(ACT_FUTEX2_SIZE_U32 |
				       ACT_FUTEX2_PRIVATE),
				 (const void *)&bell->seq, 0, seen);
		sqe->addr3 = ACT_FUTEX_BITSET_MATCH_ANY;
	} else {
		io_uring_prep_read(sqe, g->efd, &g->efd_buf, sizeof(g->efd_buf),
				   0);
	}
	io_uring_sqe_set_data64(sqe, BELL_TAG);
	g->bell_armed = true;
}

void act__ring_wait(struct act__ring *g, struct act__doorbell *bell,
		    uint32_t seen, int64_t timeout_ns, bool inflight)
{
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;

	/* a systematic run: what the kernel has done posted, and the turn
	 * given up on the doorbell, polling while operations are in the
	 * kernel (base/systematic.h) */
	if (ACT_SYSTEMATIC && act__systematic_seed()) {
		act__ring_poll(g, true);
		if (!io_uring_cq_ready(&g->ring))
			act__systematic_wait(&bell->seq, seen, NULL, 0,
					     timeout_ns, inflight);
		atomic_store_explicit(&bell->sleeping, 0, memory_order_relaxed);
		return;
	}
	arm_bell(g, bell, seen);
	/* no doorbell in the ring: a worker's ring would not end the wait,
	 * so it must end by itself soon (ring.h) */
	if (!g->bell_armed &&
	    (timeout_ns < 0 || timeout_ns > ACT_RING_NOBELL_NS))
		timeout_ns = ACT_RING_NOBELL_NS;
	ts.tv_sec = timeout_ns / 1000000000;
	ts.tv_nsec = timeout_ns % 1000000000;
	/* one io_uring_enter: submit what the loop queued (and the
	 * doorbell's wait), wait for one completion. -ETIME, -EINTR (a
	 * signal), -EBUSY (completions to reap first), -EAGAIN: the loop
	 * reaps, looks at the timers and the queue, and comes back */
	if (!act__ring_refused())
		(void)io_uring_submit_and_wait_timeout(
			&g->ring, &cqe, 1, timeout_ns >= 0 ? &ts : NULL, NULL);
	atomic_store_explicit(&bell->sleeping, 0, memory_order_relaxed);
}

void act__ring_poll(struct act__ring *g, bool inflight)
{
	/* submit what is queued; with DEFER_TASKRUN completions are only
	 * posted when the reactor enters with GETEVENTS: do that while
	 * operations are in the kernel */
	if ((io_uring_sq_ready(&g->ring) || inflight) && !act__ring_refused())
		(void)io_uring_submit_and_get_events(&g->ring);
}

/*
 * The doorbell's wait ended: rung (FUTEX_WAIT: 0, or -EAGAIN when seq had
 * moved; eventfd: 8 bytes), or interrupted. Any other error means the
 * kernel refuses the wait itself (an LSM, a seccomp-like policy on the
 * op): re-arming it would spin, so the reactor goes on with bounded
 * sleeps, and says so once.
 */
static void bell_done(struct act__ring *g, int32_t res)
{
	g->bell_armed = false;
	if (res >= 0 || res == -EAGAIN || res == -EINTR || res == -ECANCELED)
		return;
	g->bell_broken = true;
	fprintf(stderr,
		"actors: the reactor's doorbell wait failed (%s): it looks "
		"for work every %d ms instead\n",
		strerror(-res), ACT_RING_NOBELL_NS / 1000000);
}

void act__ring_reap(struct act__ring *g,
		    void (*fn)(void *ctx, uint64_t user_data, int32_t res),
		    void *ctx)
{
	struct io_uring_cqe *cqe;
	unsigned head, n;

	/* ACT_TEST_FAIL's cq_overflow: the completions are not in the CQ
	 * yet, as when the kernel holds them on its overflow list: this
	 * reap finds none, and they come with the next io_uring_enter */
	if (ACT_FAIL(ACT_FAIL_CQ_OVERFLOW))
		return;
	do {
		n = 0;
		io_uring_for_each_cqe(&g->ring, head, cqe) {
			if (cqe->user_data == BELL_TAG)
				bell_done(g, cqe->res);
			else if (cqe->user_data != LIBURING_UDATA_TIMEOUT)
				fn(ctx, cqe->user_data, cqe->res);
			n++;
		}
		io_uring_cq_advance(&g->ring, n);
		/* completions the CQ had no room for wait in the kernel
		 * (IORING_FEAT_NODROP) until it is emptied: flush them */
		if (io_uring_cq_has_overflow(&g->ring))
			(void)io_uring_get_events(&g->ring);
	} while (n || io_uring_cq_ready(&g->ring));
}

void act__ring_kick(struct act__ring *g, struct act__doorbell *bell)
{
	uint64_t one = 1;

	/* seq_cst: the doorbell's ring (base/park.h): after the waker's
	 * publish, against the reactor's prepare then re-check */
	atomic_fetch_add_explicit(&bell->seq, 1, memory_order_seq_cst);
	if (g->mode == ACT_RING_EVENTFD) {
		/* a full counter (2^64 - 2) only means it is already set */
		if (write(g->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			act__park_futex_wake(&bell->seq, 1);
		return;
	}
	act__park_futex_wake(&bell->seq,
			     1); /* FUTEX_WAIT, in the ring or not */
}
