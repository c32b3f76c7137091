/* SPDX-License-Identifier: MIT */
/*
 * park.c - futex system calls behind the doorbell protocol of park.h.
 *
 * A worker sleeps in futex_waitv (Linux 5.16) on two words: its doorbell
 * and the runtime's stop word, so either wakes it. Where futex_waitv is
 * missing or refused (probed once: anything but the EAGAIN of a value
 * that does not match means it cannot be used; ENOSYS before 5.16, EPERM
 * from a container's seccomp profile), when a later call fails for any
 * other reason than a wake, a changed word, a signal or the timeout, or
 * when act__park_force_futex_wait is set (the test switch for the
 * fallback), it sleeps in FUTEX_WAIT on the doorbell alone; stopping
 * rings every doorbell as well, so both paths wake. Should FUTEX_WAIT
 * itself be refused, a sleeper naps 1 ms at a time instead, said once:
 * never a spin.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fail.h"
#include "park.h"
#include "spin.h"
#include "systematic.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
#endif

struct act__futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

bool act__park_force_futex_wait;
bool act__park_test_hooks;
uint32_t act__park_test_drop_wakes;
uint32_t act__park_test_mutant;

void act__park_test_delay(uint64_t *rng)
{
	uint64_t x = *rng;
	uint32_t n;

	/* a systematic run: the seed decides who runs here, once */
	if (ACT_SYSTEMATIC && act__systematic_seed()) {
		act__systematic_yield();
		return;
	}
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x ? x : 1;
	switch (x % 8) {
	case 0:
	case 1:
	case 2:
	case 3:
		return; /* no delay: the window as it is */
	case 7:
		sched_yield(); /* the thread off its CPU for a while */
		return;
	default:
		for (n = (uint32_t)(x >> 40) % 2048; n; n--)
			act__spin_relax();
	}
}
/* 0 unknown, 1 works, -1 missing or refused; workers that sleep for the
 * first time probe at once, each storing the same answer (relaxed:
 * nothing else hangs on it) */
static _Atomic int waitv_state;
static _Atomic int waitv_errno; /* the probe's, when it said no */
static _Atomic bool wait_refused_said;

/* An errno a futex wait may end with in normal use. */
static bool wait_errno_ok(int e)
{
	return e == EAGAIN || e == EINTR || e == ETIMEDOUT;
}

static bool have_waitv(void)
{
	struct act__futex_waitv w;
	uint32_t word = 1;
	long rc;

	if (act__park_force_futex_wait)
		return false;
	if (atomic_load_explicit(&waitv_state, memory_order_relaxed) == 0) {
		/* a value that does not match returns EAGAIN at once where
		 * the call exists, ENOSYS where it does not */
		w = (struct act__futex_waitv){ 0, (uintptr_t)&word,
					       FUTEX_32 | FUTEX_PRIVATE_FLAG,
					       0 };
		rc = syscall(SYS_futex_waitv, &w, 1, 0, NULL, CLOCK_MONOTONIC);
		atomic_store_explicit(&waitv_errno, rc < 0 ? errno : 0,
				      memory_order_relaxed);
		atomic_store_explicit(&waitv_state,
				      rc < 0 && errno == EAGAIN ? 1 : -1,
				      memory_order_relaxed);
	}
	return atomic_load_explicit(&waitv_state, memory_order_relaxed) > 0;
}

/* ACT_TEST_FAIL's futex sites: the wait ends at once, as when a signal
 * came (EINTR) or the word had moved (EAGAIN); the caller looks again */
static bool spurious(void)
{
	return ACT_FAIL(ACT_FAIL_FUTEX_EINTR) ||
	       ACT_FAIL(ACT_FAIL_FUTEX_EAGAIN);
}

bool act__park_waitv_available(void)
{
	return have_waitv();
}

void act__park_describe(char *buf, size_t len)
{
	int e;

	if (have_waitv()) {
		snprintf(buf, len, "futex_waitv");
		return;
	}
	e = atomic_load_explicit(&waitv_errno, memory_order_relaxed);
	if (act__park_force_futex_wait)
		snprintf(buf, len, "FUTEX_WAIT (forced)");
	else
		snprintf(buf, len, "FUTEX_WAIT (futex_waitv: %s)",
			 e ? strerror(e) : "unusable");
	if (atomic_load_explicit(&wait_refused_said, memory_order_relaxed))
		snprintf(buf, len, "1 ms naps (FUTEX_WAIT refused)");
}

void act__park_futex_wait2(_Atomic uint32_t *a, uint32_t seen_a,
			   _Atomic uint32_t *b, uint32_t seen_b)
{
	struct act__futex_waitv w[2];

	/* a systematic run's participant gives up its turn instead */
	if (act__systematic_wait(a, seen_a, b, seen_b, -1, false))
		return;
	if (!have_waitv()) {
		act__park_futex_wait(a, seen_a, -1);
		return;
	}
	if (act__unlikely(spurious()))
		return;
	w[0] = (struct act__futex_waitv){ seen_a, (uintptr_t)a,
					  FUTEX_32 | FUTEX_PRIVATE_FLAG, 0 };
	w[1] = (struct act__futex_waitv){ seen_b, (uintptr_t)b,
					  FUTEX_32 | FUTEX_PRIVATE_FLAG, 0 };
	if (syscall(SYS_futex_waitv, w, 2, 0, NULL, CLOCK_MONOTONIC) >= 0 ||
	    wait_errno_ok(errno))
		return;
	/* refused after the probe (a filter installed since, say): the
	 * plain wait from now on, for every worker */
	atomic_store_explicit(&waitv_errno, errno, memory_order_relaxed);
	atomic_store_explicit(&waitv_state, -1, memory_order_relaxed);
	act__park_futex_wait(a, seen_a, -1);
}

void act__park_futex_wait(_Atomic uint32_t *word, uint32_t seen,
			  int64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;

	if (act__systematic_wait(word, seen, NULL, 0, timeout_ns, false))
		return;
	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tp = &ts;
	}
	if (act__unlikely(spurious()))
		return;
	if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, tp,
		    NULL, 0) >= 0 ||
	    wait_errno_ok(errno))
		return;
	/* no futex at all: nap, a spurious return the caller allows */
	if (!atomic_exchange_explicit(&wait_refused_said, true,
				      memory_order_relaxed))
		fprintf(stderr,
			"actors: FUTEX_WAIT failed (%s): idle threads nap 1 ms "
			"at a time instead of sleeping until woken\n",
			strerror(errno));
	ts.tv_sec = 0;
	ts.tv_nsec = timeout_ns >= 0 && timeout_ns < 1000000 ? timeout_ns :
							       1000000;
	nanosleep(&ts, NULL);
}

void act__park_futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL,
		0);
}

void act__park_bell_wake(struct act__doorbell *d)
{
	uint64_t one = 1;

	/* a full counter (2^64 - 2) only means it is already set; any
	 * other failure: the futex, which a bounded sleep still sees */
	if (!d->efd1 ||
	    (write(d->efd1 - 1, &one, sizeof(one)) < 0 && errno != EAGAIN))
		act__park_futex_wake(&d->seq, 1);
}
