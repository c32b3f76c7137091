/* SPDX-License-Identifier: MIT */
/*
 * worker.c - the scheduler loop: pop a runnable process, switch to it, and
 * on its return to the worker's own stack finish what it asked for
 * (yield, park, exit). Parking happens here, after the process's registers
 * are saved, never on the process's stack (I2).
 */
#include <errno.h>
#include <string.h>

#include "backpressure.h"
#include "proc/ioword.h"
#include "proc/mailbox.h"
#include "overflow.h"
#include "rt.h"
#include "wake.h"
#include "worker.h"
#include "worker_obs.h"

int act__worker_init(struct act__worker *w, struct act__rt *rt, uint32_t i)
{
	memset(w, 0, sizeof(*w));
	w->rt = rt;
	w->index = i;
	w->slots.head = UINT32_MAX;
	w->reductions = rt->cfg.reductions;
	/* a turn that used ACT_BACKLOG_REDUCTIONS with mail left has a
	 * backlog; so has one that ends with mail left (budget 1) */
	w->backlog_at = !rt->backpressure ?
				INT32_MIN :
			w->reductions > ACT_BACKLOG_REDUCTIONS ?
				w->reductions - ACT_BACKLOG_REDUCTIONS :
				1;
	w->rng = 0x9e3779b97f4a7c15ull * (i + 1);
	act__slab_init(&w->slab, (uint16_t)i);
	act__runq_init(&w->rq, rt->nworkers > 1);
	w->rq.index = i;
	return 0;
}

int act__worker_set_home(struct act__worker *w, int home)
{
	int rc;

	w->home = home;
	rc = act__slab_set_home(&w->slab, &w->rt->numa, home);
	if (rc)
		return rc;
	act__stack_cache_set_home(&w->stacks, &w->rt->numa, home);
	return act__proc_cache_init(&w->slots, &w->rt->procs, (uint32_t)home);
}

void act__worker_destroy(struct act__worker *w)
{
	act__proc_cache_destroy(&w->slots);
	act__stack_cache_destroy(&w->stacks);
	act__slab_destroy(&w->slab);
}

void act__worker_switch_out(struct act__proc *p, int reason)
{
	act__worker_switch_out_w(act__tls_worker_self(), p, reason);
}

/* I2, on the worker's stack: publish WAITING, then look again. hooked:
 * the park race's delay between the two (ACT_PF_HOOKED). */
static act__always_inline void park_proc(struct act__worker *w,
					 struct act__proc *p, bool hooked)
{
	uint64_t t = p->wait_ticket;
	uint64_t waiting = act__ps_make(t, ACT_PS_WAITING);

	act__count(&w->n_parks);
	/* seq_cst: the store half of the Dekker pair with the sender's
	 * act__mpsc_push / the timer's timeout_fired store, each followed by
	 * the seq_cst state load in act__wake */
	atomic_store_explicit(&p->state, waiting, memory_order_seq_cst);
	ACT_TEST_HOOK(hooked, &w->hook_rng);
	if (ACT_TEST_HOOKS && act__unlikely(hooked) && act__park_test_mutant)
		return;
	if (!act__mailbox_maybe_nonempty(p) && !act__proc_killed(p) &&
	    atomic_load_explicit(&p->timeout_fired, memory_order_seq_cst) < t)
		return;
	/* Something arrived meanwhile: take it back unless a waker did.
	 * acq_rel: the same CAS as the wakers' (act__wake), which it races;
	 * acquire pairs with their push's release of the message */
	if (atomic_compare_exchange_strong_explicit(
		    &p->state, &waiting, act__ps_make(t, ACT_PS_RUNNABLE),
		    memory_order_acq_rel, memory_order_relaxed))
		act__runq_push_lifo(&w->rq, p);
}

/*
 * Backpressure (backpressure.h), on the worker's stack: publish MUTED,
 * then look again, as park_proc does; only the release ends this wait.
 */
static act__always_inline void mute_park(struct act__worker *w,
					 struct act__proc *p, bool hooked)
{
	/* each mute is a wait of its own ticket (act__backpressure_release
	 * finds it), so a CAS left over from an earlier mute, ours or the
	 * releaser's, cannot end this one */
	uint64_t t = act__ps_ticket(atomic_load_explicit(
			     &p->state, memory_order_relaxed)) +
		     1;
	uint64_t muted = act__ps_make(t, ACT_PS_MUTED);

	act__count(&w->n_parks);
	/* seq_cst: the store half of the Dekker pair with
	 * act__backpressure_release's seq_cst store of mute_next, followed by
	 * the seq_cst state load in act__wake_state */
	atomic_store_explicit(&p->state, muted, memory_order_seq_cst);
	ACT_TEST_HOOK(hooked, &w->hook_rng);
	if (atomic_load_explicit(&p->mute_next, memory_order_seq_cst))
		return;
	/* Released meanwhile: take it back unless the releaser did.
	 * acq_rel: the CAS the releaser's wake races (act__wake_state) */
	if (atomic_compare_exchange_strong_explicit(
		    &p->state, &muted, act__ps_make(t, ACT_PS_RUNNABLE),
		    memory_order_acq_rel, memory_order_relaxed))
		act__runq_push_lifo(&w->rq, p);
}

/*
 * I2 for I/O, on the worker's stack: publish IOWAIT, then look at the
 * operation (io.h) and the kill flag again. Messages do not end this
 * wait; a kill does, once, to have the operation cancelled.
 */
static act__always_inline void park_io(struct act__worker *w,
				       struct act__proc *p, bool hooked)
{
	uint64_t t = p->wait_ticket;
	uint64_t waiting = act__ps_make(t, ACT_PS_IOWAIT);

	act__count(&w->n_parks);
	/* seq_cst: the store half of the Dekker pairs with the reactor's
	 * seq_cst update of p->io_word and signal_locked's (links.c) store
	 * of killed, each followed by the seq_cst state load in
	 * act__wake_claim */
	atomic_store_explicit(&p->state, waiting, memory_order_seq_cst);
	ACT_TEST_HOOK(hooked, &w->hook_rng);
	if (!act__ioword_wants_run(p))
		return;
	/* acq_rel: the CAS the reactor's wake races (act__wake_claim);
	 * acquire pairs with its RMW of io_word */
	if (atomic_compare_exchange_strong_explicit(
		    &p->state, &waiting, act__ps_make(t, ACT_PS_RUNNABLE),
		    memory_order_acq_rel, memory_order_relaxed))
		act__runq_push_lifo(&w->rq, p);
}

void act__worker_stop_all(struct act__rt *rt)
{
	uint32_t i;

	/* release: pairs with the acquire load in act__worker_loop, which
	 * then sees main_reason; seq_cst as well, for the Dekker pair with
	 * idle()'s seq_cst load of stop after it announced sleeping */
	atomic_store_explicit(&rt->stop, 1, memory_order_seq_cst);
	for (i = 0; i < rt->nworkers; i++) {
		atomic_fetch_add_explicit(&rt->workers[i].bell.seq, 1,
					  memory_order_seq_cst);
		act__park_bell_wake(&rt->workers[i].bell);
	}
}

/* The process has left its stack for good: give everything back. */
static void reap(struct act__worker *w, struct act__proc *p)
{
	struct act__rt *rt = w->rt;

	act__count(&w->n_exits);
	act__worker_obs_exit(w, p);
	act__links_exit(w, p); /* its name, links and monitors */
	act__ctx_destroy(&p->ctx);
	act__stack_put(&w->stacks, p->stack_lo, p->stack_size);
	p->stack_lo = NULL;
	act__mailbox_drain(p, &w->slab);
	act__backpressure_clear(w, p); /* its muted senders go on */
	if (p->is_main) {
		rt->main_reason = p->exit_reason;
		act__worker_stop_all(rt);
	}
	act__proc_slot_free(&w->rt->procs, &w->slots, p);
}

/* p, popped from w's queue, is w's running process from now on. */
static void begin_run(struct act__worker *w, struct act__proc *p)
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
}

/* wake.h: the wake of a worker that traces or is hooked */
bool act__worker_wake_slow(struct act__worker *me, struct act__proc *p,
			   uint64_t ticket, unsigned from)
{
	return act__wake_state_as(me, p, ticket, from, true);
}

bool act__worker_woke(struct act__worker *me, struct act__proc *p)
{
	if (me->trace && !(me->trace->sampled++ % ACT_TRACE_FLOW_EVERY))
		act__worker_trace_wake(me, p);
	ACT_TEST_HOOK(me->hooks, &me->hook_rng);
	/* the planted lost wakeup (base/park.h): claimed, never queued */
	return ACT_TEST_HOOKS && me->drop_every &&
	       !(++me->drop_count % me->drop_every);
}

/* worker.h: a wake's flow arrow */
void act__worker_trace_wake(struct act__worker *me, struct act__proc *p)
{
	uint32_t id = act__trace_flow_id(me->trace);

	act__trace_put(me->trace, ACT_TR_FLOW, me->turn_t - me->trace->t0, id,
		       p->pid.id, 0);
	/* relaxed: the enqueue that follows publishes it
	 * (act__worker_obs_turn_begin) */
	atomic_store_explicit(&p->trace_flow, id, memory_order_relaxed);
}

/* What the switch that p left by asks of w; hooked: with the park
 * race's delays. */
static act__always_inline void settle_as(struct act__worker *w,
					 struct act__proc *p, bool hooked)
{
	uint64_t s;

	switch (w->switch_reason) {
	case ACT_SW_YIELD:
		s = atomic_load_explicit(&p->state, memory_order_relaxed);
		atomic_store_explicit(&p->state,
				      (s & ~(uint64_t)ACT_PS_MASK) |
					      ACT_PS_RUNNABLE,
				      memory_order_relaxed);
		act__runq_push_fifo(&w->rq, p);
		break;
	case ACT_SW_PARK:
		park_proc(w, p, hooked);
		break;
	case ACT_SW_MUTE:
		mute_park(w, p, hooked);
		break;
	case ACT_SW_IOWAIT:
		park_io(w, p, hooked);
		break;
	case ACT_SW_EXIT:
		reap(w, p);
		break;
	default:
		act__fatal("bad switch reason %d", w->switch_reason);
	}
}

/* A settle that checks a canary or is hooked: out of line, so that the
 * common one tests the flags byte once. */
static act__noinline void settle_slow(struct act__worker *w,
				      struct act__proc *p, unsigned flags)
{
	if ((flags & ACT_PF_CANARY) && !act__stack_canary_ok(p->stack_lo))
		act__overflow_report(p->pid, p->stack_size);
	if (flags & ACT_PF_HOOKED)
		settle_as(w, p, true);
	else
		settle_as(w, p, false);
}

/* act__worker_settle, inlined into the switch it follows. */
static act__always_inline void settle(struct act__worker *w)
{
	struct act__proc *p = w->leaving;
	unsigned flags;

	if (!p)
		return;
	w->leaving = NULL;
	act__count(&w->n_switches);
	flags = atomic_load_explicit(&p->flags, memory_order_relaxed);
	if (act__unlikely(flags & (ACT_PF_CANARY | ACT_PF_HOOKED)))
		settle_slow(w, p, flags);
	else
		settle_as(w, p, false);
}

void act__worker_settle(struct act__worker *w)
{
	settle(w);
}

static void run_one(struct act__worker *w, struct act__proc *p)
{
	begin_run(w, p);
	if (act__unlikely(w->timed))
		act__worker_obs_turn_begin(w, p, act__clock_ticks());
	act__ctx_switch(&w->sched_ctx, &p->ctx);
	/* back from whichever process switched to the loop: p, or one
	 * that p or a successor handed the worker to (act__worker_switch) */
	w->current = NULL;
	settle(w);
}

/*
 * The process to hand the worker to directly, without the loop: the
 * next of w's queue, when the loop would only pop it (no stop, no
 * thief waiting for a share); NULL: go through the loop.
 */
static act__always_inline struct act__proc *next_direct(struct act__worker *w)
{
	if (atomic_load_explicit(&w->rt->stop, memory_order_relaxed) ||
	    act__runq_should_publish(&w->rq))
		return NULL;
	/* an inline reactor's turn is due: the loop runs it */
	if (act__unlikely(w->inline_r) &&
	    ++w->inline_runs >= ACT_INLINE_TURN_RUNS)
		return NULL;
	return act__runq_pop(&w->rq);
}

/*
 * p, w's running process, stops for reason. Symmetric transfer: when
 * the next runnable process is known, switch to it directly, one switch
 * instead of two through the loop; that process (in this function, or
 * in proc_entry for a new one) then settles p on its own stack, once
 * p's registers are saved, exactly as the loop would (I2). An exit goes
 * through the loop: its reap sends signals, and must not run as
 * another process. This is act__worker_switch's body; fpenv: p has its
 * own floating-point control state (ACT_PF_FPENV), timed: its turns are
 * timed (ACT_PF_TIMED).
 */
/* The model's assertion failed (debug builds): act__fatal, cold. */
static void __attribute__((noinline, cold))
unsettled(struct act__proc *p, struct act__proc *leaving)
{
	char a[ACT_PID_STRLEN], b[ACT_PID_STRLEN];

	act_pid_format(p->pid, a, sizeof(a));
	act_pid_format(leaving->pid, b, sizeof(b));
	act__fatal("process %s switches out while the switch of %s is not "
		   "settled",
		   a, b);
}

static act__always_inline void switch_out(struct act__worker *w,
					  struct act__proc *p, int reason,
					  bool fpenv, bool timed)
{
	uint32_t used = (uint32_t)(w->reductions - w->budget);
	struct act__fpctl own;
	struct act__proc *next;
	uint64_t now = 0;

	/* the model's assertion (model/parkwake.pml): every switch out is
	 * settled before the next one */
	if (ACT_DEBUG_ON && w->leaving)
		unsettled(p, w->leaving);
	/* ACT_SPAWN_FPENV: p's floating-point control state waits here, on
	 * its stack, while it is switched out */
	if (fpenv) {
		act__fp_save(&own);
		act__fp_load(&w->fp_shared);
	}
	/* the turn's reductions, before next's turn resets the budget */
	act__count_n(&p->reductions, used);
	if (timed) {
		now = act__clock_ticks();
		act__worker_obs_turn_end(w, p, reason, used, now);
	}
	next = reason != ACT_SW_EXIT ? next_direct(w) : NULL;
	w->leaving = p;
	w->switch_reason = reason;
	if (next) {
		act__count(&w->n_direct);
		begin_run(w, next);
		if (timed)
			act__worker_obs_turn_begin(w, next, now);
		act__ctx_switch(&p->ctx, &next->ctx);
#ifdef ACT_ASAN
	} else if (reason == ACT_SW_EXIT) {
		/* ASan frees the exiting process's fake stack */
		act__ctx_switch_last(&p->ctx, &w->sched_ctx);
#endif
	} else {
		act__ctx_switch(&p->ctx, &w->sched_ctx);
	}
	/* p again, perhaps on another worker (I8) */
	w = act__tls_worker_self();
	settle(w);
	if (fpenv)
		act__worker_fp_enter(w, &own);
}

/* The switch of a process with its own floating-point state or timed
 * turns: a copy of its own, so that the common one tests the flags byte
 * once and carries neither. */
static act__noinline void switch_slow(struct act__worker *w,
				      struct act__proc *p, int reason,
				      unsigned flags)
{
	/* timed turns without their own floating-point state, the trace's
	 * every switch, as a copy of their own too */
	if (!(flags & ACT_PF_FPENV))
		switch_out(w, p, reason, false, true);
	else
		switch_out(w, p, reason, true, flags & ACT_PF_TIMED);
}

void act__worker_switch(struct act__worker *w, struct act__proc *p, int reason)
{
	unsigned flags = atomic_load_explicit(&p->flags, memory_order_relaxed);

	if (act__unlikely(flags & (ACT_PF_FPENV | ACT_PF_TIMED)))
		switch_slow(w, p, reason, flags);
	else
		switch_out(w, p, reason, false, false);
}

/* ---- idle: search, then sleep ------------------------------------------ */

/*
 * One pass over the other workers, nearest first (the plan's steal
 * levels: SMT sibling, shared cache, NUMA node, the rest), from a random
 * one within each level: steal a batch from the first that has work.
 */
static bool try_steal(struct act__worker *w)
{
	struct act__rt *rt = w->rt;
	uint32_t from = 0, l, i, k;

	if (rt->nworkers == 1)
		return false;
	for (l = 0; l < ACT_STEAL_LEVELS; l++) {
		uint32_t end = w->level_end[l], n = end - from, start;

		if (!n)
			continue;
		start = (uint32_t)(act__worker_rng(w) % n);
		for (i = 0; i < n; i++) {
			struct act__worker *v =
				&rt->workers[w->victims[from + (start + i) % n]];

			k = act__runq_steal(&v->rq, &w->rq, w);
			if (k) {
				act__count(&w->n_steals);
				act__count_n(&w->n_stolen, k);
				act__worker_obs_steal(
					w, act__rt_worker_index(w, v), k);
				if (l == ACT_STEAL_REMOTE && !rt->plan.unbound)
					act__count(&w->n_far_steals);
				return true;
			}
			act__count(&w->n_steal_fails);
		}
		from = end;
	}
	return false;
}

static bool has_work(struct act__worker *w)
{
	return act__runq_maybe_nonempty(&w->rq) ||
	       atomic_load_explicit(&w->rt->stop, memory_order_relaxed);
}

/*
 * Go's limit: at most half of the busy workers search at once, so an
 * over-provisioned runtime does not burn every idle CPU spinning.
 */
static bool may_spin(struct act__rt *rt)
{
	uint32_t busy = rt->nworkers -
			atomic_load_explicit(&rt->nidle, memory_order_relaxed);

	return rt->nworkers > 1 &&
	       2 * atomic_load_explicit(&rt->nspinning, memory_order_relaxed) <
		       busy;
}

/* Searching: watch the own queue and try to steal for spin_ns (at least
 * one pass) from *now, the clock, which it moves to its last reading. A
 * wake from another worker then costs no FUTEX_WAKE. */
static bool spin_search(struct act__worker *w, int64_t *now)
{
	int64_t until = *now + w->rt->spin_ns;
	int i;

	do {
		for (i = 0; i < 16; i++) {
			if (has_work(w) || try_steal(w))
				return true;
			act__spin_relax();
		}
	} while ((*now = act__clock_now()) < until);
	return false;
}

/* Go's rule: the last searcher to find work wakes the next one. */
static void stop_spinning(struct act__worker *w, bool found)
{
	w->spinning = false;
	/* seq_cst: the searchers' count of Go's rule, in the Dekker pairs
	 * of sleep_idle and act__wake_idle_maybe (wake.h) */
	if (atomic_fetch_sub_explicit(&w->rt->nspinning, 1,
				      memory_order_seq_cst) == 1 &&
	    found)
		act__worker_wake_idle(w->rt, w);
}

static bool search(struct act__worker *w, int64_t *now)
{
	bool found;

	if (!w->spinning && may_spin(w->rt)) {
		/* seq_cst: the searchers' count, as in stop_spinning */
		atomic_fetch_add_explicit(&w->rt->nspinning, 1,
					  memory_order_seq_cst);
		w->spinning = true;
	}
	if (!w->spinning)
		return has_work(w) || try_steal(w);
	found = spin_search(w, now);
	if (found)
		*now = act__clock_now();
	stop_spinning(w, found);
	return found;
}

/* Work in some other worker's shared queue? (the re-check, seq_cst) */
static bool others_have_work(struct act__worker *w)
{
	uint32_t i;

	for (i = 0; i < w->rt->nworkers; i++)
		if (&w->rt->workers[i] != w &&
		    act__runq_shared_nonempty(&w->rt->workers[i].rq))
			return true;
	return false;
}

/*
 * Leave the idle set. Whoever clears the bit owns the nidle decrement; a
 * bit already clear was claimed by act__worker_wake_idle, which took a unit of
 * nspinning for this worker: it searches next.
 */
static void unidle(struct act__worker *w, _Atomic uint64_t *word, uint64_t bit)
{
	/* seq_cst: the idle set's bit and count are the announcement of
	 * sleep_idle's Dekker pairs (its head comment) */
	if (atomic_fetch_and_explicit(word, ~bit, memory_order_seq_cst) & bit)
		atomic_fetch_sub_explicit(&w->rt->nidle, 1,
					  memory_order_seq_cst);
	else
		w->spinning = true;
}

/*
 * Announce idle, re-check, sleep. seq_cst throughout: the announcement
 * (nidle, the bit, `sleeping`) and the re-check (every queue, the bit,
 * stop) form Dekker pairs with the wakers, who publish work, then read
 * nidle (act__wake_idle_maybe), `sleeping` (act__park_ring) or stop.
 */
static int64_t sleep_idle(struct act__worker *w, int64_t now)
{
	struct act__rt *rt = w->rt;
	_Atomic uint64_t *word = &rt->idle_mask[w->index / 64];
	uint64_t bit = 1ull << (w->index % 64);
	uint32_t seen;

	/* seq_cst: the announcement, store half of the Dekker pairs with
	 * the wakers' publish-then-read (head comment) */
	atomic_fetch_add_explicit(&rt->nidle, 1, memory_order_seq_cst);
	atomic_fetch_or_explicit(word, bit, memory_order_seq_cst);
	seen = act__park_prepare(&w->bell);
	ACT_TEST_HOOK(w->hooks, &w->hook_rng);
	/* seq_cst: the re-check, load half of those pairs */
	if ((atomic_load_explicit(word, memory_order_seq_cst) & bit) &&
	    !act__runq_maybe_nonempty(&w->rq) &&
	    !atomic_load_explicit(&rt->stop, memory_order_seq_cst) &&
	    !others_have_work(w)) {
		uint64_t from = act__worker_obs_sleep(w, now);

		act__count(&w->n_sleeps);
		/* stop is 0 here (just checked): sleep until it or the bell
		 * moves; inline, in the reactor's ring (stop_all moves the
		 * bell too) */
		if (w->inline_r)
			act__reactor_inline_sleep(w->inline_r, seen, now);
		else
			act__park_futex_wait2(&w->bell.seq, seen, &rt->stop, 0);
		now = act__clock_now();
		act__worker_obs_woke(w, from, now);
	}
	act__park_cancel(&w->bell);
	unidle(w, word, bit);
	return now;
}

/* The idle search and sleeps, from now (the clock); the clock at the end
 * (each of its steps passes on its last reading: no step reads it again
 * for its own accounts) */
static int64_t idle_loop(struct act__worker *w, int64_t now)
{
	for (;;) {
		uint64_t from;
		bool found;

		/* inline: what the reactor has (completions, timers) first */
		if (w->inline_r) {
			w->inline_runs = 0;
			now = act__reactor_inline_turn(w->inline_r, true, now);
		}
		from = act__worker_obs_mark(w);
		found = search(w, &now);
		act__worker_obs_searched(w, from);
		if (found ||
		    atomic_load_explicit(&w->rt->stop, memory_order_relaxed))
			return now;
		/* nothing to run: the free stacks past the caches give their
		 * memory back, a batch between two looks for work (stack.h) */
		if (act__stack_trim(&w->stacks, ACT_STACK_TRIM_MAX)) {
			now = act__clock_now();
			continue;
		}
		now = sleep_idle(w, now);
		if (!w->spinning) /* not claimed: back to the queue */
			return now;
	}
}

static void idle(struct act__worker *w)
{
	int64_t now;

	/* envelopes freed for other workers, stacks and slots for other
	 * homes go back before any wait */
	act__slab_flush_remote(&w->slab);
	act__stack_flush_away(&w->stacks);
	act__proc_flush_away(&w->rt->procs, &w->slots);
	/* relaxed: a placement hint for spawners (spawn.c place()) */
	atomic_store_explicit(&w->wants_work, 1, memory_order_relaxed);
	now = act__clock_now();
	act__worker_obs_idle_begin(w, now);
	now = idle_loop(w, now);
	act__worker_obs_idle_end(w, now);
	atomic_store_explicit(&w->wants_work, 0, memory_order_relaxed);
}

void act__worker_wake_idle(struct act__rt *rt, struct act__worker *me)
{
	uint32_t zero = 0, i;
	uint64_t m, bit;

	ACT_TEST_HOOK(me && me->hooks, &me->hook_rng);
	/* one searcher at a time is woken: claim the unit for it;
	 * seq_cst: the waker's read of the searchers (Go's rule), after
	 * it published work: the load half of sleep_idle's Dekker pair */
	if (!atomic_compare_exchange_strong_explicit(&rt->nspinning, &zero, 1,
						     memory_order_seq_cst,
						     memory_order_relaxed))
		return;
	for (i = 0; i < (rt->nworkers + 63) / 64; i++) {
		/* seq_cst: as the claim above, the idle set read after
		 * the work was published */
		m = atomic_load_explicit(&rt->idle_mask[i],
					 memory_order_seq_cst);
		while (m) {
			bit = m & -m;
			/* seq_cst: the claim, then the seq_cst load of
			 * `sleeping` in act__park_ring (sleep_idle
			 * re-reads the bit after announcing sleeping) */
			if (atomic_fetch_and_explicit(&rt->idle_mask[i], ~bit,
						      memory_order_seq_cst) &
			    bit) {
				/* seq_cst: as unidle's, whose decrement
				 * this claim took over */
				atomic_fetch_sub_explicit(&rt->nidle, 1,
							  memory_order_seq_cst);
				uint32_t k = i * 64 + __builtin_ctzll(bit);

				if (act__park_ring(&rt->workers[k].bell) && me)
					act__count(&me->n_futex_wakes);
				act__worker_obs_rang(me, k);
				return;
			}
			m &= ~bit;
		}
	}
	/* seq_cst: nobody to wake: the claimed unit back, as in
	 * stop_spinning */
	atomic_fetch_sub_explicit(&rt->nspinning, 1, memory_order_seq_cst);
}

void act__worker_loop(struct act__worker *w)
{
	struct act__proc *p;

	act__worker_obs_loop_begin(w);
	/* acquire: pairs with the release store of stop in reap/act_main */
	while (!atomic_load_explicit(&w->rt->stop, memory_order_acquire)) {
		/* a thief asked: offer half the surplus, and wake a searcher
		 * if none is left to take it (Go's rule) */
		if (act__runq_should_publish(&w->rq) &&
		    act__runq_publish(&w->rq))
			act__wake_idle_maybe(w->rt, w);
		/* busy with an inline reactor: its turn, now and then */
		if (act__unlikely(w->inline_r) &&
		    ++w->inline_runs >= ACT_INLINE_TURN_RUNS) {
			w->inline_runs = 0;
			(void)act__reactor_inline_turn(w->inline_r, false,
						       act__clock_now());
		}
		p = act__runq_pop(&w->rq);
		if (p)
			run_one(w, p);
		else
			idle(w);
	}
	act__worker_obs_loop_end(w);
	act__slab_flush_remote(&w->slab);
	act__stack_flush_away(&w->stacks);
	act__proc_flush_away(&w->rt->procs, &w->slots);
}
