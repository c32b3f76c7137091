/* SPDX-License-Identifier: MIT */
/*
 * park.h - sleeping and waking threads on a futex word (a "doorbell").
 *
 * Protocol (no lost wakeup): the sleeper reads the doorbell, announces it
 * sleeps (seq_cst), re-checks its work, then waits while the doorbell still
 * holds the value it read. The waker publishes work (seq_cst), then, if the
 * sleeper announced itself, bumps the doorbell and calls FUTEX_WAKE. A
 * worker that is awake therefore costs its wakers no system call (I10).
 */
#ifndef ACT_PARK_H
#define ACT_PARK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct act__doorbell {
	_Atomic uint32_t seq;
	_Atomic uint32_t sleeping;
	/* 0, or an eventfd + 1 that the sleeper waits on instead of the
	 * futex (an inline reactor's ring before Linux 6.7: ring.h); set
	 * before any waker can run, then read-only */
	int efd1;
};

/* Wait while seq == seen; timeout_ns < 0: no limit. Spurious returns ok. */
void act__park_futex_wait(_Atomic uint32_t *word, uint32_t seen,
			  int64_t timeout_ns);
/* Wait while *a == seen_a and *b == seen_b (futex_waitv; FUTEX_WAIT on a
 * alone where that is missing). Spurious returns ok. */
void act__park_futex_wait2(_Atomic uint32_t *a, uint32_t seen_a,
			   _Atomic uint32_t *b, uint32_t seen_b);
bool act__park_waitv_available(void);
/* How workers sleep, in words (probing if need be): "futex_waitv", or
 * the fallback and why ("FUTEX_WAIT (futex_waitv: Operation not
 * permitted)"). */
void act__park_describe(char *buf, size_t len);
/* Test switch: take the FUTEX_WAIT path even where futex_waitv exists. */
extern bool act__park_force_futex_wait;

/*
 * Test switches of the park race (`actors stress park_race`, tools/
 * stress.c), read when act_main starts: act__park_test_hooks puts a
 * random short delay (act__park_test_delay) between the steps of every
 * park and wake protocol (a process's park and its waker's claim, a
 * worker's sleep and its waker's ring, the reactor's); act__park_test_
 * drop_wakes, when N > 0, drops one process wake in N after its claim
 * (the process stays RUNNABLE and in no queue: a lost wakeup, planted,
 * which the stress tests must report). The hooks are tested where a
 * test is made anyway (the flags byte of a switch's settle, the wake's
 * trace test), so that off they cost nothing. doc/testing.md lists every
 * test switch.
 */
extern bool act__park_test_hooks;
extern uint32_t act__park_test_drop_wakes;
/* A planted bug, to show that the systematic runs find one: 1, a hooked
 * process's park publishes WAITING and does not look again (park_proc in
 * worker.c without its re-check: model/parkwake.pml's mutant 1, a lost
 * wakeup). Turns the hooks on (their delays too). */
extern uint32_t act__park_test_mutant;

/* Nothing, a spin of up to a few thousand pauses, or a sched_yield, by
 * the xorshift state *rng (its owner's). Cold. */
__attribute__((cold)) void act__park_test_delay(uint64_t *rng);

/*
 * ACT_TEST_HOOK(on, rng): the one line of a protocol where a test may
 * intervene. When `on` (a worker's or the reactor's `hooks`, a settle's
 * `hooked`: the park race's switch), the park race's delay by *rng,
 * between the two steps the line sits between; off, one predicted
 * branch on a flag that the code around tests anyway, or nothing where
 * `on` is a constant. ACT_TEST_HOOKS 0 (CPPFLAGS=-DACT_TEST_HOOKS=0: a
 * build to measure with, doc/testing.md) compiles every hook out, and
 * the planted lost wakeup with them; the shipped library has them
 * (measured: they cost nothing there, doc/testing.md).
 */
#ifndef ACT_TEST_HOOKS
#define ACT_TEST_HOOKS 1
#endif
#define ACT_TEST_HOOK(on, rng)                                     \
	do {                                                       \
		if (ACT_TEST_HOOKS && __builtin_expect(!!(on), 0)) \
			act__park_test_delay(rng);                 \
	} while (0)
void act__park_futex_wake(_Atomic uint32_t *word, int n);
/* After seq moved: wake the sleeper, in what it sleeps in (FUTEX_WAKE,
 * or a write to its eventfd: efd1). */
void act__park_bell_wake(struct act__doorbell *d);

/*
 * Waker side: call after publishing work. True if it had to wake. Only
 * the waker that takes `sleeping` from 1 to 0 rings: the others, arriving
 * before the sleeper has run, know it is being woken and will look at its
 * queue, so they make no system call (I10).
 */
static inline bool act__park_ring(struct act__doorbell *d)
{
	/* seq_cst: the load half of the Dekker pair with
	 * act__park_prepare's store of sleeping; the plain load keeps
	 * the common case (an awake sleeper) free of a locked instruction */
	if (!atomic_load_explicit(&d->sleeping, memory_order_seq_cst) ||
	    !atomic_exchange_explicit(&d->sleeping, 0, memory_order_seq_cst))
		return false;
	atomic_fetch_add_explicit(&d->seq, 1, memory_order_seq_cst);
	if (__builtin_expect(d->efd1 != 0, 0))
		act__park_bell_wake(d);
	else
		act__park_futex_wake(&d->seq, 1);
	return true;
}

/* Sleeper side: returns the value to pass to act__park_sleep. */
static inline uint32_t act__park_prepare(struct act__doorbell *d)
{
	/* acquire: pairs with the waker's seq_cst increment of seq */
	uint32_t seen = atomic_load_explicit(&d->seq, memory_order_acquire);

	/* seq_cst: pairs with the waker's seq_cst publish of work */
	atomic_store_explicit(&d->sleeping, 1, memory_order_seq_cst);
	return seen;
}

static inline void act__park_sleep(struct act__doorbell *d, uint32_t seen,
				   int64_t timeout_ns)
{
	act__park_futex_wait(&d->seq, seen, timeout_ns);
	atomic_store_explicit(&d->sleeping, 0, memory_order_relaxed);
}

static inline void act__park_cancel(struct act__doorbell *d)
{
	atomic_store_explicit(&d->sleeping, 0, memory_order_relaxed);
}

#endif /* ACT_PARK_H */
