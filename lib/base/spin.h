/* SPDX-License-Identifier: MIT */
/*
 * spin.h - the library's one spin lock: a 32-bit word, one exchange to
 * take it when free; taken, spin on loads with a pause, and after a
 * while yield the CPU (spin.c), so that a holder preempted on a foreign
 * thread is not spun against for a time slice.
 * scripts/check-atomics.py keeps every other lock from spinning on its
 * own.
 */
#ifndef ACT_SPIN_H
#define ACT_SPIN_H

#include <stdatomic.h>
#include <stdint.h>

#include "internal.h"
#include "systematic.h"

/* The CPU's spin-wait hint; in a systematic run, a turn given to another
 * thread (the one being waited for, perhaps: systematic.h). */
static inline void act__spin_relax(void)
{
	act__systematic_yield();
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/*
 * One step of a wait for another thread's next few instructions: a
 * pause, and every 256th step a sched_yield instead, so that a
 * thread preempted on this CPU gets to run them. *spins starts at 0.
 */
void act__spin_backoff(unsigned *spins);

/*
 * A spinlock for critical sections of a few loads and stores. After a
 * while it yields the CPU, so a holder preempted by the kernel (more
 * threads than cores) is not spun against for a whole time slice.
 */
void act__spin_lock_slow(_Atomic uint32_t *l);

static inline void act__spin_lock(_Atomic uint32_t *l)
{
	/* acquire: pairs with the release store in act__spin_unlock */
	if (act__likely(!atomic_exchange_explicit(l, 1, memory_order_acquire)))
		return;
	act__spin_lock_slow(l);
}

static inline void act__spin_unlock(_Atomic uint32_t *l)
{
	/* release: pairs with the acquire exchange in act__spin_lock */
	atomic_store_explicit(l, 0, memory_order_release);
}

#endif /* ACT_SPIN_H */
