/* SPDX-License-Identifier: MIT */
/*
 * worker.c - the scheduler loop: pop a runnable process, switch to it, and
 * on its return to the worker's own stack finish what it asked for
 * (yield, park, exit). Parking happens here, after the process's registers
 * are saved, never on the process's stack (I2).
 */
#include <errno.h>
#include <string.h>

#include "mailbox.h"
#include "overflow.h"
#include "runtime.h"
#include "worker.h"

/* Per thread; read only through act__worker_self (I8). */
__thread struct act__worker *act__tls_worker
	__attribute__((tls_model("initial-exec")));

#if !ACT_TLS_INLINE
#if defined(__clang__)
__attribute__((noinline))
#else
__attribute__((noipa))
#endif
struct act__worker *act__worker_self(void)
{
	/* Opaque to the optimiser, so no caller reuses the result across a
	 * switch; the clobber keeps the body from being judged pure. */
	__asm__ volatile("" ::: "memory");
	return act__tls_worker;
}
#endif

void act__worker_set_self(struct act__worker *w)
{
	act__tls_worker = w;
}

int act__worker_init(struct act__worker *w, struct act__rt *rt, uint32_t i)
{
	memset(w, 0, sizeof(*w));
	w->rt = rt;
	w->index = i;
	w->slots.head = UINT32_MAX;
	w->reductions = rt->cfg.reductions;
	w->rng = 0x9e3779b97f4a7c15ull * (i + 1);
	act__slab_init(&w->slab, (uint16_t)i);
	act__runq_init(&w->rq);
	return 0;
}

void act__worker_destroy(struct act__worker *w)
{
	act__stack_cache_destroy(&w->stacks);
	act__slab_destroy(&w->slab);
}

void act__switch_out(struct act__proc *p, int reason)
{
	act__switch_out_w(act__worker_self(), p, reason);
}


/* I2, on the worker's stack: publish WAITING, then look again. */
static void park_proc(struct act__worker *w, struct act__proc *p)
{
	uint64_t t = p->wait_ticket;
	uint64_t waiting = act__ps_make(t, ACT_PS_WAITING);

	act__count(&w->n_parks);
	/* seq_cst: the store half of the Dekker pair with the sender's
	 * act__mpsc_push / the timer's timeout_fired store, each followed by
	 * the seq_cst state load in act__wake */
	atomic_store_explicit(&p->state, waiting, memory_order_seq_cst);
	if (!act__mpsc_maybe_nonempty(&p->mbox) &&
	    !atomic_load_explicit(&p->kill_pending, memory_order_seq_cst) &&
	    atomic_load_explicit(&p->timeout_fired, memory_order_seq_cst) < t)
		return;
	/* Something arrived meanwhile: take it back unless a waker did. */
	if (atomic_compare_exchange_strong_explicit(
		    &p->state, &waiting, act__ps_make(t, ACT_PS_RUNNABLE),
		    memory_order_acq_rel, memory_order_relaxed))
		act__runq_push_lifo(&w->rq, p);
}

static void slot_free(struct act__worker *w, struct act__proc *p)
{
	uint32_t gen = atomic_load_explicit(&p->gen, memory_order_relaxed);

	if (++gen == 0)
		gen = 1;
	/* release: pairs with the acquire gen load in act__proc_lookup, so a
	 * lookup that sees the new generation sees the slot as free */
	atomic_store_explicit(&p->gen, gen, memory_order_release);
	atomic_store_explicit(
		&p->state,
		act__ps_make(act__ps_ticket(atomic_load_explicit(
				     &p->state, memory_order_relaxed)),
			     ACT_PS_FREE),
		memory_order_release);
	act__slot_put(&w->rt->procs, &w->slots, p);
}

void act__rt_stop(struct act__rt *rt)
{
	uint32_t i;

	/* release: pairs with the acquire load in act__worker_loop, which
	 * then sees main_reason; seq_cst as well, for the Dekker pair with
	 * idle()'s seq_cst load of stop after it announced sleeping */
	atomic_store_explicit(&rt->stop, 1, memory_order_seq_cst);
	for (i = 0; i < rt->nworkers; i++) {
		atomic_fetch_add_explicit(&rt->workers[i].bell.seq, 1,
					  memory_order_seq_cst);
		act__futex_wake(&rt->workers[i].bell.seq, 1);
	}
}

/* The process has left its stack for good: give everything back. */
static void reap(struct act__worker *w, struct act__proc *p)
{
	struct act__rt *rt = w->rt;

	act__count(&w->n_exits);
	act__stack_put(&w->stacks, p->stack_lo, p->stack_size);
	p->stack_lo = NULL;
	act__mailbox_drain(p, &w->slab);
	if (p->is_main) {
		rt->main_reason = p->exit_reason;
		act__rt_stop(rt);
	}
	slot_free(w, p);
}

static void run_one(struct act__worker *w, struct act__proc *p)
{
	uint64_t s = atomic_load_explicit(&p->state, memory_order_relaxed);

	if (ACT_DEBUG_ON && act__ps(s) != ACT_PS_RUNNABLE)
		act__fatal("running a process in state %u (I1)", act__ps(s));
	atomic_store_explicit(&p->state,
			      (s & ~(uint64_t)ACT_PS_MASK) | ACT_PS_RUNNING,
			      memory_order_relaxed);
	atomic_store_explicit(&p->owner, w, memory_order_relaxed);
	w->current = p;
	w->budget = w->reductions;
	act__ctx_switch(&w->sched_ctx, &p->ctx);
	w->current = NULL;
	act__count(&w->n_switches);
	if (act__unlikely(p->canary) && !act__stack_canary_ok(p->stack_lo))
		act__overflow_report(p->pid.id, p->stack_size);
	switch (w->switch_reason) {
	case ACT_SW_YIELD:
		atomic_store_explicit(
			&p->state,
			(s & ~(uint64_t)ACT_PS_MASK) | ACT_PS_RUNNABLE,
			memory_order_relaxed);
		act__runq_push_fifo(&w->rq, p);
		break;
	case ACT_SW_PARK:
		park_proc(w, p);
		break;
	case ACT_SW_EXIT:
		reap(w, p);
		break;
	default:
		act__fatal("bad switch reason %d", w->switch_reason);
	}
}

/*
 * Before sleeping, a worker of a multi-worker runtime watches its queue
 * for a while: a wake from another worker then costs no FUTEX_WAKE on
 * either side. Bounded, so an idle runtime goes quiet.
 */
#define SPIN_NS 20000

static bool spin_for_work(struct act__worker *w)
{
	int64_t until;
	int i;

	if (w->rt->nworkers == 1)
		return false; /* only the reactor or a foreign thread could wake */
	until = act__now_ns() + SPIN_NS;
	do {
		for (i = 0; i < 64; i++) {
			if (act__runq_maybe_nonempty(&w->rq) ||
			    atomic_load_explicit(&w->rt->stop,
						 memory_order_relaxed))
				return true;
			act__cpu_relax();
		}
	} while (act__now_ns() < until);
	return false;
}

static void idle(struct act__worker *w)
{
	uint32_t seen;

	if (spin_for_work(w))
		return;
	seen = act__doorbell_prepare(&w->bell);

	/* seq_cst: after the seq_cst store of sleeping in prepare; pairs
	 * with act__rt_stop's store of stop followed by its doorbell rings */
	if (act__runq_maybe_nonempty(&w->rq) ||
	    atomic_load_explicit(&w->rt->stop, memory_order_seq_cst)) {
		act__doorbell_cancel(&w->bell);
		return;
	}
	act__count(&w->n_sleeps);
	/* stop is 0 here (just checked): sleep until it or the bell moves */
	act__futex_wait2(&w->bell.seq, seen, &w->rt->stop, 0);
	act__doorbell_cancel(&w->bell);
}

void act__worker_loop(struct act__worker *w)
{
	struct act__proc *p;

	/* acquire: pairs with the release store of stop in reap/act_main */
	while (!atomic_load_explicit(&w->rt->stop, memory_order_acquire)) {
		p = act__runq_pop(&w->rq);
		if (p)
			run_one(w, p);
		else
			idle(w);
	}
}
