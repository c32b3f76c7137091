/* SPDX-License-Identifier: MIT */
/* rt.c - the way into the runtime from any thread; see rt.h. */
#include <sched.h>

#include "rt.h"

struct act__rt *act__rt_current;

/*
 * What other threads than the runtime's may use: the runtime once it is
 * up, NULL before and from the moment it stops; and how many of them are
 * inside an API call. Dekker: a caller counts itself in (seq_cst), then
 * loads live; the teardown clears live (seq_cst), then waits for the
 * count to fall to 0. A caller the teardown does not see counted loads
 * live after it was cleared, and leaves at once.
 */
static struct act__rt *_Atomic live;
static _Atomic uint64_t foreign_inside;

struct act__rt *act__rt_enter(void)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__rt *rt;

	if (act__likely(w != NULL))
		return w->rt; /* a worker runs only while its runtime does */
	/* seq_cst: pairs with act__rt_close's store of live, then load */
	atomic_fetch_add_explicit(&foreign_inside, 1, memory_order_seq_cst);
	rt = atomic_load_explicit(&live, memory_order_seq_cst);
	if (!rt) /* release: as act__rt_leave's, whose undo this is */
		atomic_fetch_sub_explicit(&foreign_inside, 1,
					  memory_order_release);
	return rt;
}

void act__rt_leave(struct act__rt *rt)
{
	/* release: what the call did comes before act__rt_close sees it out
	 * (its acquire load of the count) */
	if (rt && !act__tls_worker_self())
		atomic_fetch_sub_explicit(&foreign_inside, 1,
					  memory_order_release);
}

void act__rt_open(struct act__rt *rt)
{
	/* seq_cst: a release that pairs with act__rt_enter's seq_cst load
	 * of live, which then sees a runtime wholly built; seq_cst for the
	 * Dekker pair of act__rt_close (below) */
	atomic_store_explicit(&live, rt, memory_order_seq_cst);
}

void act__rt_close(void)
{
	/* seq_cst: the store half of the Dekker pair with act__rt_enter's
	 * count-in (seq_cst add, then load of live) */
	atomic_store_explicit(&live, NULL, memory_order_seq_cst);
	/* seq_cst: the load half of that pair; an acquire that pairs with
	 * act__rt_leave's release, so what a caller did comes before */
	while (atomic_load_explicit(&foreign_inside, memory_order_seq_cst))
		sched_yield();
}
