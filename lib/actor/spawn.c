/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - process life: act_spawn, act_exit, act_yield, act_self and
 * where a process runs (act_worker, act_workers).
 *
 * Spawn takes a slot and a stack from the calling worker, builds the first
 * context, picks a worker, and puts the process straight on that worker's
 * run queue (no staging). On the spawning worker it goes on the LIFO end:
 * the newest child runs first once the parent blocks, so a spawn tree is
 * walked depth-first and only a path's worth of stacks is live at once
 * (doc/design/scheduling.md has the measurements behind that choice).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fail.h"
#include "links.h"
#include "message.h"
#include "spawn.h"
#include "proc/mailbox.h"
#include "sched/rt.h"
#include "sched/wake.h"
#include "sched/worker.h"
#include "settings/env.h"

/*
 * Where a spawn goes: a random other worker, if that worker wants work
 * (it is idle, searching or asleep); else the spawner's own queue. A
 * burst is so spread over the idle workers at once, without waiting for
 * thieves, while a spawn tree on busy workers stays local and
 * depth-first, and stealing balances it. Placing every spawn at random
 * (ACTORS_PLACE=random) sends half of a tree across cores:
 * doc/design/stealing.md has what that costs skynet.
 */
static struct act__worker *place(struct act__worker *w)
{
	struct act__worker *t;

	if (w->rt->nworkers == 1)
		return w;
	if (w->rt->place_random)
		return &w->rt->workers[act__worker_rng(w) % w->rt->nworkers];
	/* one of the others: the spawner itself is busy by definition */
	t = &w->rt->workers[(w->index + 1 +
			     act__worker_rng(w) % (w->rt->nworkers - 1)) %
			    w->rt->nworkers];
	/* relaxed: a hint; a stale one costs balance, not correctness */
	return atomic_load_explicit(&t->wants_work, memory_order_relaxed) ? t :
									    w;
}

/* A process's first code: its slot and its argument, which only its
 * first frame kept (act__ctx_make), not the slot. */
static void proc_entry(void *slot, void *arg)
{
	struct act__proc *p = slot;
	struct act__worker *w;

	act__ctx_entered(); /* before anything else on this stack */
	w = act__tls_worker_self();
	/* a process may have handed the worker straight to this one */
	act__worker_settle(w);
	if (act__unlikely(
		    atomic_load_explicit(&p->flags, memory_order_relaxed) &
		    ACT_PF_FPENV)) {
		struct act__fpctl own;

		act__fp_default(&own);
		act__worker_fp_enter(w, &own);
	}
	act__spawn_die_if_killed(
		p); /* killed before its first turn: never runs */
	atomic_load_explicit(&p->fn, memory_order_relaxed)(arg);
	act_exit(ACT_EXIT_NORMAL);
}

/* A spawn on a worker whose turns are timed (ACTORS_TRACE or
 * ACTORS_LONG_SCHEDULE): what only timed turns keep, reset (untimed, the
 * slot's zero stays zero: every worker is timed or not for the runtime's
 * life), and the trace's spawn event. Out of line: act__spawn tests one
 * flag. */
static act__noinline __attribute__((cold)) void
spawn_timed(struct act__worker *w, struct act__proc *p, void (*fn)(void *))
{
	/* worker_obs.h act__worker_obs_turn_end, wake.h's flows */
	atomic_store_explicit(&p->run_ticks, 0, memory_order_relaxed);
	atomic_store_explicit(&p->trace_flow, 0, memory_order_relaxed);
	if (w->trace)
		act__trace_event(w->trace, ACT_TR_SPAWN, p->pid.id,
				 (uintptr_t)fn,
				 w->current ? w->current->pid.id : 0);
}

int act__spawn(struct act__worker *w, void (*fn)(void *), void *arg,
	       size_t stack_size, uint32_t mailbox_limit, bool is_main,
	       struct act__spawn_rels *rels, bool fpenv, act_pid *pid)
{
	struct act__proc *p =
		ACT_FAIL(ACT_FAIL_SLOT) ?
			NULL :
			act__proc_slot_get(&w->rt->procs, &w->slots);
	struct act__worker *to;
	uint64_t s;
	bool canary = false;
	int rc;

	/* the table is mapped whole at start: no slot is max_procs alive */
	if (!p)
		return -EAGAIN;
	rc = act__stack_get(&w->stacks, stack_size, &p->stack_lo, &canary);
	if (rc) {
		act__proc_slot_free(&w->rt->procs, &w->slots, p);
		return rc;
	}
	p->stack_size = stack_size;
	atomic_store_explicit(&p->fn, fn, memory_order_relaxed);
	/* its argument goes to its first frame, not the slot */
	act__ctx_make(&p->ctx, act__stack_hi(p->stack_lo, stack_size),
		      proc_entry, p, arg);
	act__ctx_stack(&p->ctx, p->stack_lo, stack_size);
	act__mailbox_reset(p);
	p->exit_reason = ACT_EXIT_NORMAL;
	p->is_main = is_main;
	p->turn_msgs = 0;
	p->peer_worker = UINT16_MAX;
	p->peer_votes = 0;
	atomic_store_explicit(&p->mute_next, 0, memory_order_relaxed);
	p->pid = act__proc_make_pid(
		&w->rt->procs,
		atomic_load_explicit(&p->gen, memory_order_relaxed), p->index);
	/* armed is NULL: every wait that armed a timeout cleared it before
	 * the process could exit (message.c wait_for), and a fresh slot is
	 * zero; not written here, on the fifth line, which a spawn leaves
	 * alone unless turns are timed */
	if (ACT_DEBUG_ON && p->armed)
		act__fatal("slot %u: a timeout armed at spawn", p->index);
	atomic_store_explicit(&p->reductions, 0, memory_order_relaxed);
	if (act__unlikely(w->timed))
		spawn_timed(w, p, fn);
	/* not killed; relaxed: published by the RUNNABLE release below */
	atomic_store_explicit(&p->flags,
			      (canary ? ACT_PF_CANARY : 0) |
				      (fpenv ? ACT_PF_FPENV : 0) |
				      (w->timed ? ACT_PF_TIMED : 0) |
				      (w->hooks ? ACT_PF_HOOKED : 0),
			      memory_order_relaxed);
	act__links_init(p);
	act__mailbox_limit_init(p, mailbox_limit);
	if (rels) /* its state is not RUNNABLE yet: nothing runs it */
		act__links_rels_attach(w->current, p, rels);
	s = atomic_load_explicit(&p->state, memory_order_relaxed);
	/* release: pairs with act__links_proc_live's acquire state load
	 * (links.c), which then sees this occupant's generation, not the
	 * last one's */
	atomic_store_explicit(&p->state,
			      act__ps_make(act__ps_ticket(s), ACT_PS_RUNNABLE),
			      memory_order_release);
	to = is_main ? w : place(w);
	atomic_store_explicit(&p->owner, to, memory_order_relaxed);
	act__count(&w->n_spawns);
	if (to != w)
		act__count(&w->n_placed);
	*pid = p->pid;
	/* from here p may run on another worker, exit, and its slot go to
	 * a new process: read nothing of it after the enqueue */
	act__wake_enqueue(w, to, p);
	return 0;
}

/* What opts asks for, checked: 0 or -EINVAL. */
static int spawn_opts(const struct act__rt *rt,
		      const struct act_spawn_opts *opts, size_t *size,
		      uint32_t *limit, uint32_t *flags)
{
	unsigned i;

	*size = rt->cfg.stack_size;
	*limit = rt->cfg.mailbox_limit;
	*flags = 0;
	if (!opts)
		return 0;
	for (i = 0; i < sizeof(opts->reserved) / 4; i++)
		if (opts->reserved[i])
			return -EINVAL;
#ifdef ACT__ABI_TEST_GROW
	for (i = 0; i < sizeof(opts->abi_test) / 4; i++)
		if (opts->abi_test[i])
			return -EINVAL;
#endif
	if (opts->flags &
	    ~(ACT_SPAWN_LINK | ACT_SPAWN_MONITOR | ACT_SPAWN_FPENV))
		return -EINVAL;
	if (opts->mailbox_limit > ACT__MAILBOX_MAX &&
	    opts->mailbox_limit != ACT_MAILBOX_UNLIMITED)
		return -EINVAL;
	if (opts->stack_size) {
		*size = act__env_stack_size_ok(opts->stack_size);
		if (!*size)
			return -EINVAL;
	}
	if (opts->mailbox_limit)
		*limit = opts->mailbox_limit == ACT_MAILBOX_UNLIMITED ?
				 0 :
				 opts->mailbox_limit;
	*flags = opts->flags;
	return 0;
}

int act_spawn_pid(void (*fn)(void *), void *arg,
		  const struct act_spawn_opts *opts, act_pid *pid)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *self = w ? w->current : NULL;
	struct act__spawn_rels rels = { NULL, NULL };
	uint32_t limit, flags;
	uint64_t ref = 0;
	size_t size;
	act_pid kid;
	int rc;

	if (!self)
		return -EPERM;
	if (!fn || !pid)
		return -EINVAL;
	rc = spawn_opts(w->rt, opts, &size, &limit, &flags);
	if (!rc && (flags & (ACT_SPAWN_LINK | ACT_SPAWN_MONITOR)))
		rc = act__links_rels_alloc(w->rt, flags, &rels);
	if (rc)
		return rc;
	if (rels.monitor)
		ref = rels.monitor->ref;
	rc = act__spawn(w, fn, arg, size, limit, false, &rels,
			(flags & ACT_SPAWN_FPENV) != 0, &kid);
	if (rc) {
		act__links_rels_free(&rels);
	} else {
		*pid = kid;
		if (ref && opts->monitor_ref)
			*opts->monitor_ref = ref;
	}
	act__worker_reduce(w, self);
	return rc;
}

act_pid act_spawn_opt(void (*fn)(void *), void *arg,
		      const struct act_spawn_opts *opts)
{
	act_pid pid = ACT_PID_NONE;

	return act_spawn_pid(fn, arg, opts, &pid) ? ACT_PID_NONE : pid;
}

act_pid act_spawn(void (*fn)(void *), void *arg)
{
	return act_spawn_opt(fn, arg, NULL);
}

act_pid act_self(void)
{
	struct act__worker *w = act__tls_worker_self();

	return w && w->current ? w->current->pid : ACT_PID_NONE;
}

void act_yield(void)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;

	if (p) {
		act__worker_switch_out(p, ACT_SW_YIELD);
		act__proc_turn_begin(p);
		act__spawn_die_if_killed(p);
	}
}

void act__spawn_die_if_killed(struct act__proc *p)
{
	if (act__unlikely(act__proc_killed(p)))
		act__spawn_exit_now(p);
}

/*
 * p leaves for good. First, under the lock, its reason is fixed (a
 * kill's, if one came first; the first exit's, if a handler exits
 * again) and it is `exiting`: exit signals no longer reach it, and the
 * kill flag is cleared, so its exit handlers run as ordinary code that
 * may wait. Then the handlers. Then EXITING under the lock (act_link,
 * act_monitor, act_register and act_kill look at it there), and reap on
 * the worker's stack sends its signals (act__links_exit).
 */
static void __attribute__((noreturn))
exit_proc(struct act__proc *p, bool set, intptr_t reason)
{
	char pid[ACT_PID_STRLEN];
	uint64_t s;

	act__proc_lock(p);
	if (set && !p->exiting &&
	    !(atomic_load_explicit(&p->flags, memory_order_relaxed) &
	      ACT_PF_KILLED))
		p->exit_reason = reason;
	if (p->on_exit) { /* owner-only: no lock needed to look */
		p->exiting = true;
		/* seq_cst: as the store in signal_locked (links.c); a
		 * later park sees it clear */
		atomic_fetch_and_explicit(&p->flags, ~ACT_PF_KILLED,
					  memory_order_seq_cst);
		act__proc_unlock(p);
		act__links_run_exit_fns(p);
		act__proc_lock(p);
	}
	p->watch_open = true; /* monitors still join until drained */
	s = atomic_load_explicit(&p->state, memory_order_relaxed);
	/* release: senders that see EXITING stop sending (-ESRCH) */
	atomic_store_explicit(&p->state,
			      act__ps_make(act__ps_ticket(s), ACT_PS_EXITING),
			      memory_order_release);
	act__proc_unlock(p);
	act__worker_switch_out(p, ACT_SW_EXIT);
	act_pid_format(p->pid, pid, sizeof(pid));
	act__fatal("exited process %s resumed", pid);
}

void act_exit(intptr_t reason)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;

	if (!p) {
		fputs("actors: act_exit called outside a process\n", stderr);
		abort();
	}
	exit_proc(p, true, reason == ACT_EXIT_KILL ? ACT_EXIT_KILLED : reason);
}

void act__spawn_exit_now(struct act__proc *p)
{
	exit_proc(p, false, 0);
}

/* act_kill, the runtime entered (act__rt_enter). */
/* act_kill of a remote pid (lib/dist): its node's connection sends the
 * exit signal (EXIT2); 0, or -ESRCH, -ENOTCONN as act__route_proxy. */
static int kill_remote(struct act__rt *rt, struct act__proc *self, act_pid pid,
		       intptr_t reason)
{
	struct act__links_sig sig = { .op = ACT__SIG_EXIT2,
				      .to = pid,
				      .reason = reason };
	act_pid via;
	int rc = act__route_proxy(rt, pid, &via);

	if (rc < 0)
		return rc;
	sig.from = self ? self->pid : ACT_PID_NONE;
	rc = act__message_send_sys(rt, via, ACT__TAG_LINK_SIG, &sig,
				   sizeof(sig), sig.from);
	return rc == -ESRCH ? -ENOTCONN : rc;
}

static int kill_in(struct act__rt *rt, act_pid pid, intptr_t reason)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p, *self = w ? w->current : NULL;
	struct act_exit_info info;
	bool trap;

	p = act__proc_lookup(&rt->procs, pid);
	if (!p && (pid.id >> 63))
		return kill_remote(rt, self, pid, reason);
	if (!p)
		return -ESRCH;
	if (w && act__unlikely(w->trace))
		act__trace_event(w->trace, ACT_TR_KILL, pid.id,
				 (uint64_t)reason, self ? self->pid.id : 0);
	if (self == p && !p->exiting) {
		act__proc_lock(p);
		trap = p->trap_exit;
		act__proc_unlock(p);
		if (!trap || reason == ACT_EXIT_KILL)
			act_exit(reason);
		info = (struct act_exit_info){ pid, reason, 0 };
		return act__message_send_sys(rt, pid, ACT_TAG_EXIT, &info,
					     sizeof(info), pid) == -ENOMEM ?
			       -ENOMEM :
			       0;
	}
	return act__links_exit_signal(rt, w, p, pid,
				      self ? self->pid : ACT_PID_NONE, reason,
				      reason == ACT_EXIT_KILL);
}

int act_kill(act_pid pid, intptr_t reason)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int rc;

	if (!rt)
		return -ESRCH;
	rc = kill_in(rt, pid, reason);
	act__rt_leave(rt);
	return rc;
}

int act_worker(void)
{
	struct act__worker *w = act__tls_worker_self();

	return w ? (int)w->index : -1;
}

int act_workers(void)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int n = rt ? (int)rt->nworkers : 0;

	act__rt_leave(rt);
	return n;
}
