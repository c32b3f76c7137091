/* SPDX-License-Identifier: MIT */
/* spin.c - the spin lock's slow path (spin.h). */
#include <sched.h>

#include "spin.h"

#define SPINS_BEFORE_YIELD 256

void act__spin_backoff(unsigned *spins)
{
	if (++*spins < SPINS_BEFORE_YIELD) {
		act__spin_relax();
	} else {
		*spins = 0;
		sched_yield();
	}
}

void act__spin_lock_slow(_Atomic uint32_t *l)
{
	unsigned spins = 0;

	do {
		while (atomic_load_explicit(l, memory_order_relaxed))
			act__spin_backoff(&spins);
		/* acquire: pairs with the release store in act__spin_unlock */
	} while (atomic_exchange_explicit(l, 1, memory_order_acquire));
}
