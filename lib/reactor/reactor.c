/* SPDX-License-Identifier: MIT */
/*
 * reactor.c - the reactor thread: timers on a timer wheel and I/O on the
 * ring, fed by an MPSC command queue (see reactor.h for the protocol).
 *
 * The loop (turn): reap the CQ, take every command, put pending I/O in
 * the SQ, fire what is due, ring the workers that got work; then
 * announce sleep (doorbell prepare), publish the next deadline, look at
 * the queue once more, and sleep in the ring (submitting the SQ) until a
 * completion, the next deadline or a ring. Publishing the deadline and
 * looking at the queue again, against a worker's push and its look at
 * the deadline, is a Dekker pair (both seq_cst): either the reactor sees
 * the command before it sleeps, or the worker sees the deadline the
 * reactor will sleep towards and rings if its own is earlier.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/fail.h"
#include "io.h"
#include "reactor.h"
#include "reactor_obs.h"
#include "sched/rt.h"
#include "sched/wake.h"
#include "sched/worker.h"

void act__reactor_push(struct act__reactor *r, struct act__rcmd *c, uint8_t op)
{
	c->op = op;
	act__mpsc_push(&r->cmds, &c->q);
}

struct act__timeout *act__reactor_arm_timeout(struct act__reactor *r,
					      struct act__proc *p,
					      uint64_t ticket, int64_t deadline)
{
	struct act__timeout *t = malloc(sizeof(*t));

	if (!t)
		return NULL;
	atomic_store_explicit(&t->state, ACT_TO_ARMED, memory_order_relaxed);
	t->index = p->index;
	t->gen = act__proc_pid_gen(&r->rt->procs, p->pid);
	t->ticket = ticket;
	t->deadline = deadline;
	act__wheel_node_init(&t->node);
	t->node.kind = ACT_TK_TIMEOUT;
	/* seq_cst push, then seq_cst load of the deadline the reactor
	 * sleeps towards: the worker's half of the Dekker pair with
	 * reactor_main's store of next_deadline and its look at the queue */
	act__reactor_push(r, &t->arm, ACT_RC_ARM);
	if (deadline <
	    atomic_load_explicit(&r->next_deadline, memory_order_seq_cst))
		act__reactor_wake(r);
	return t;
}

void act__reactor_disarm(struct act__reactor *r, struct act__timeout *t)
{
	uint32_t armed = ACT_TO_ARMED;

	/* acq_rel: the winner of ARMED owns the record's fate; on failure
	 * (FIRED) acquire pairs with the reactor's release CAS, after which
	 * it no longer touches the record, and we free it */
	if (!atomic_compare_exchange_strong_explicit(
		    &t->state, &armed, ACT_TO_CANCELLED, memory_order_acq_rel,
		    memory_order_acquire)) {
		free(t);
		return;
	}
	/* the reactor unlinks it from the wheel and frees it when it takes
	 * this; no ring: it makes nothing due sooner */
	act__reactor_push(r, &t->cancel, ACT_RC_CANCEL);
	act__reactor_ring_lazy(r);
}

void act__reactor_ring_lazy(struct act__reactor *r)
{
	struct act__worker *w = act__tls_worker_self();

	if (w && ++w->unrung_cancels < ACT_REACTOR_CANCEL_BATCH)
		return;
	if (w)
		w->unrung_cancels = 0;
	act__reactor_wake(r);
}

static void fire_timeout(struct act__reactor *r, struct act__timeout *t);

/* The wheel's callback: t's deadline has come. */
static void fire(struct act__tnode *n, void *ctx)
{
	struct act__reactor *r = ctx;
	struct act__timeout *t;

	if (n->kind == ACT_TK_USER) {
		act__timer_fire(r,
				act__container_of(n, struct act__utimer, node));
		return;
	}
	t = act__container_of(n, struct act__timeout, node);
	fire_timeout(r, t);
}

/* A receive timeout's deadline has come. */
static void fire_timeout(struct act__reactor *r, struct act__timeout *t)
{
	uint32_t index = t->index, armed = ACT_TO_ARMED;
	uint64_t gen = t->gen, ticket = t->ticket, old;
	struct act__proc *p = &r->rt->procs.slots[index];

	/* acq_rel: pairs with act__reactor_disarm's CAS. Once FIRED, the
	 * process may free t at any time: nothing of t is read after this */
	if (!atomic_compare_exchange_strong_explicit(
		    &t->state, &armed, ACT_TO_FIRED, memory_order_acq_rel,
		    memory_order_relaxed))
		return; /* cancelled: its cancel command frees it */
	/* acquire: pairs with the release store of gen in slot_free */
	if (atomic_load_explicit(&p->gen, memory_order_acquire) != gen)
		return;
	old = atomic_load_explicit(&p->timeout_fired, memory_order_relaxed);
	/* seq_cst: the store half of the Dekker pair with park_proc's
	 * WAITING store + timeout_fired load; also releases to wait_for */
	while (old < ticket &&
	       !atomic_compare_exchange_weak_explicit(
		       &p->timeout_fired, &old, ticket, memory_order_seq_cst,
		       memory_order_relaxed))
		;
	act__count(&r->n_fired);
	act__reactor_obs_timer(r, p);
	act__reactor_wake_proc(r, p, ticket, ACT_PS_WAITING);
}

bool act__reactor_wake_proc(struct act__reactor *r, struct act__proc *p,
			    uint64_t ticket, unsigned from)
{
	struct act__worker *owner;
	uint32_t i;

	if (!act__wake_claim(p, ticket, from))
		return false;
	act__reactor_obs_wake(r, p);
	owner = atomic_load_explicit(&p->owner, memory_order_relaxed);
	act__runq_push_remote(&owner->rq, p);
	i = (uint32_t)(owner - r->rt->workers);
	if (!r->is_marked[i]) {
		r->is_marked[i] = 1;
		r->marked[r->n_marked++] = i;
	}
	return true;
}

/* The end of a loop: ring each worker that got work, once however many
 * processes act__reactor_wake_proc queued on it (the marks it left):
 * the wakes of one loop are batched, one doorbell per worker. */
static void flush_wakes(struct act__reactor *r)
{
	struct act__worker *w;
	uint32_t i;

	if (r->n_marked)
		act__count(&r->n_wake_loops);
	for (i = 0; i < r->n_marked; i++) {
		w = &r->rt->workers[r->marked[i]];
		r->is_marked[r->marked[i]] = 0;
		if (act__park_ring(&w->bell))
			act__count(&r->n_wakes);
		else if (w->rq.stealable)
			act__wake_idle_maybe(r->rt, NULL);
	}
	r->n_marked = 0;
}

/* A CQE that is not the doorbell's. */
static void on_cqe(void *ctx, uint64_t user_data, int32_t res)
{
	struct act__reactor *r = ctx;

	r->turn_cqes++;
	act__io_cqe(r, user_data, res);
}

/* Take every command on the queue. */
static void take_commands(struct act__reactor *r)
{
	struct act__mpsc_node *q;
	struct act__timeout *t;
	struct act__rcmd *c;

	while ((q = act__mpsc_pop(&r->cmds)) != NULL) {
		c = act__container_of(q, struct act__rcmd, q);
		switch (c->op) {
		case ACT_RC_ARM:
			t = act__container_of(c, struct act__timeout, arm);
			act__wheel_add(&r->wheel, &t->node, t->deadline);
			break;
		case ACT_RC_CANCEL:
			/* its arm came first (one process's pushes, in
			 * order); if it fired since, it is off the wheel */
			t = act__container_of(c, struct act__timeout, cancel);
			act__wheel_del(&r->wheel, &t->node);
			free(t);
			break;
		case ACT_RC_UARM:
			act__timer_arm(r, act__container_of(
						  c, struct act__utimer, arm));
			break;
		case ACT_RC_IO:
			act__io_take(r, act__container_of(c, struct act__io,
							  submit));
			break;
		case ACT_RC_IOCANCEL:
			act__io_take_cancel(r,
					    act__container_of(c, struct act__io,
							      cancel));
			break;
		case ACT_RC_UCANCEL: {
			/* its arm came first: the canceller learned the
			 * timer from its creator, after the creator's push */
			struct act__utimer *u = act__container_of(
				c, struct act__utimer, cancel);

			act__wheel_del(&r->wheel, &u->node);
			act__timer_release(r, u);
			break;
		}
		default:
			act__fatal("reactor: bad command %u", c->op);
		}
	}
}

/* At stop, for each timeout still on the wheel: its process never came
 * back from its wait; hand the record to it, for reclaim to free. */
static void abandon(struct act__tnode *n, void *ctx)
{
	struct act__timeout *t =
		act__container_of(n, struct act__timeout, node);
	uint32_t armed = ACT_TO_ARMED;

	if (n->kind == ACT_TK_USER) { /* nobody is left to send it to */
		act__timer_release(ctx, act__container_of(n, struct act__utimer,
							  node));
		return;
	}
	/* acq_rel: the CAS a cancel races (act__reactor_disarm's), as when
	 * a timeout fires */
	if (!atomic_compare_exchange_strong_explicit(
		    &t->state, &armed, ACT_TO_FIRED, memory_order_acq_rel,
		    memory_order_relaxed))
		free(t); /* cancelled: was its command not taken? */
}

/* The workers have stopped: take the last commands, end the I/O still in
 * the kernel, empty the wheel. */
static void drop_all(struct act__reactor *r)
{
	r->stopping = true;
	take_commands(r);
	act__io_drain(r);
	act__wheel_advance(&r->wheel, INT64_MAX, abandon, r);
}

/*
 * Does the reactor run on the one CPU of a worker it wakes? Then a worker
 * it rings before it has submitted preempts it, runs the processes it was
 * given and sleeps again, and the reactor's SQEs wait meanwhile; so it
 * submits first, and the wakes of a turn carry the completions that
 * submit gave at once (a send, a receive whose data was there). One
 * worker on the reactor's CPU, echo benchmark, epoll client: 50 requests
 * per loop instead of 24, and 0.041 context switches per request instead
 * of 0.067 (doc/design/io.md). On a CPU of its own, the workers run
 * beside its submit, and the order does not matter.
 */
static bool shares_cpu(const struct act__reactor *r)
{
	const struct act__rt *rt = r->rt;
	cpu_set_t set;
	uint32_t i;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return false;
	for (cpu = 0; !CPU_ISSET(cpu, &set); cpu++)
		;
	/* not bound by the plan: everyone has the one CPU it inherited */
	if (rt->plan.reactor_cpu < 0)
		return true;
	for (i = 0; i < rt->nworkers; i++)
		if (rt->plan.w && rt->plan.w[i].cpu == cpu)
			return true;
	return false;
}

/* turn's poll: when it submits the SQEs and reaps what that gave, before
 * the wakes */
enum { POLL_NO, POLL_YES, POLL_IF_WOKE /* if the reap woke a process */ };

/* One turn: completions, commands, SQEs, timers, then the wakes. now:
 * the clock read just before (inline), or 0: read it here (the thread),
 * as after a poll, whose system call may have taken microseconds. */
static int64_t turn(struct act__reactor *r, int poll, int64_t now)
{
	if (r->ring.mode != ACT_RING_NONE)
		act__ring_reap(&r->ring, on_cqe, r);
	take_commands(r);
	if (r->ring.mode != ACT_RING_NONE)
		act__io_fill(r);
	/* a sleep's enter just ran the kernel's deferred completions:
	 * another enter only pays when there are SQEs for it to submit */
	if (poll == POLL_IF_WOKE)
		poll = r->n_marked && act__ring_sq_pending(&r->ring) ?
			       POLL_YES :
			       POLL_NO;
	if (poll == POLL_YES && r->ring.mode != ACT_RING_NONE) {
		act__ring_poll(&r->ring, r->inflight != NULL);
		act__ring_reap(&r->ring, on_cqe, r);
		now = 0;
	}
	if (!now)
		now = act__clock_now();
	act__wheel_advance(&r->wheel, now, fire, r);
	flush_wakes(r);
	act__count(&r->n_loops);
	atomic_store_explicit(&r->n_held, r->wheel.count, memory_order_relaxed);
	return now;
}

/*
 * How long to sleep from now, the wheel's next deadline being next
 * (INT64_MAX: none); -1: until something rings.
 */
static int64_t sleep_ns(const struct act__reactor *r, int64_t next, int64_t now)
{
	int64_t w = act__reactor_obs_next(r, now);

	next = next == INT64_MAX ? -1 : next > now ? next - now : 0;
	/* operations the SQ had no room for (the kernel said -EBUSY or
	 * -EAGAIN): try again a tick later, even if nothing completes or
	 * rings meanwhile */
	if ((r->pend_head || r->cancel_head) &&
	    (next < 0 || next > r->wheel.tick_ns))
		next = r->wheel.tick_ns;
	/* and the watch */
	if (w >= 0 && (next < 0 || next > w))
		next = w;
	return next;
}

static void *reactor_main(void *arg)
{
	struct act__reactor *r = arg;
	int64_t next, now;
	uint32_t seen;
	char why[160];

	/* a systematic run: its turn first (base/systematic.h) */
	act__systematic_enter(r->sys_n);
	pthread_setname_np(pthread_self(), "act-reactor");
	if (r->rt->plan.reactor_cpu >= 0)
		act__plan_pin_thread_cpu(&r->rt->topo, &r->rt->pin_failed,
					 r->rt->plan.reactor_cpu,
					 "the reactor");
	r->submit_first = shares_cpu(r);
	/* the ring is the reactor thread's (SINGLE_ISSUER) */
	act__ring_init(&r->ring, r->rt->cfg.ring_entries, r->rt->test.ring, why,
		       sizeof(why));
	/* release: pairs with the acquire load in act__reactor_start, after
	 * which workers may read r->ring */
	atomic_store_explicit(&r->ready, 1, memory_order_release);
	act__park_futex_wake(&r->ready, 1);

	act__reactor_obs_start(r, ACT_PHASE_BUSY, act__clock_now());
	/* acquire: pairs with the release store in act__reactor_stop */
	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		now = turn(r, r->submit_first ? POLL_YES : POLL_NO, 0);
		act__reactor_obs_turn_end(r, now);
		next = act__wheel_next_ns(&r->wheel);
		seen = act__park_prepare(r->bell);
		ACT_TEST_HOOK(r->hooks, &r->hook_rng);
		/* seq_cst: the reactor's half of the Dekker pair with
		 * act__reactor_arm_timeout's push and deadline load */
		atomic_store_explicit(&r->next_deadline, next,
				      memory_order_seq_cst);
		/* seq_cst loads: each the load half of a Dekker pair with
		 * the store that comes before a wake (the push, stop, the
		 * dump handler's dump_req: node/info.c) */
		if (act__mpsc_maybe_nonempty(&r->cmds) ||
		    atomic_load_explicit(&r->stop, memory_order_seq_cst) ||
		    atomic_load_explicit(&r->dump_req, memory_order_seq_cst)) {
			act__park_cancel(r->bell);
			/* submit_first: the turn submitted already */
			if (!r->submit_first && r->ring.mode != ACT_RING_NONE)
				act__ring_poll(&r->ring, r->inflight != NULL);
			continue;
		}
		next = sleep_ns(r, next, now);
		ACT_TEST_HOOK(r->hooks, &r->hook_rng);
		act__reactor_obs_sleep(r, act__clock_now());
		if (r->ring.mode != ACT_RING_NONE)
			act__ring_wait(&r->ring, r->bell, seen, next,
				       r->inflight != NULL);
		else
			act__park_sleep(r->bell, seen, next);
		act__reactor_obs_woke(r);
	}
	act__reactor_obs_stop(r);
	drop_all(r);
	act__systematic_exit();
	return NULL;
}

/*
 * Inline (ACT_REACTOR_INLINE): no reactor thread. Worker 0 runs the turn
 * itself, on its scheduler's stack, never a process's (I8): each time it
 * finds nothing to run, and once in ACT_INLINE_TURN_RUNS runs while it is
 * busy (worker.c). It sleeps in the ring, on its own doorbell, which is
 * the reactor's too (r->bell): a command, a completion, a timer's
 * deadline and a wake from another thread all end the one sleep. So a
 * completion costs no FUTEX_WAKE and no switch between threads, which on
 * one CPU was most of a request's cost above redis-server's
 * (doc/design/servers.md).
 */
int64_t act__reactor_inline_turn(struct act__reactor *r, bool idle, int64_t now)
{
	int poll = POLL_NO;

	/* busy, enter the ring (submit, and let the kernel post what has
	 * completed: DEFER_TASKRUN) at most once per ACT_INLINE_POLL_NS, so
	 * that processes switching fast make no system call for it (I10).
	 * Idle, the sleep that follows enters it, unless the completions
	 * woke processes: then the SQEs (a server's replies) go in before
	 * those run, not after */
	if (r->ring.mode != ACT_RING_NONE) {
		if (idle)
			poll = POLL_IF_WOKE;
		else if (now - r->last_enter >= ACT_INLINE_POLL_NS)
			poll = POLL_YES;
		if (poll != POLL_NO)
			r->last_enter = now;
	}
	act__reactor_obs_turn_begin(r, now);
	now = turn(r, poll, now);
	act__reactor_obs_turn_end(r, now);
	/* relaxed: what it will act at, for act_stats and the tests; the
	 * sleep publishes it again (seq_cst) before it looks at the queue */
	atomic_store_explicit(&r->next_deadline, act__wheel_next_ns(&r->wheel),
			      memory_order_relaxed);
	act__reactor_obs_sleep(r, now);
	return now;
}

void act__reactor_inline_sleep(struct act__reactor *r, uint32_t seen,
			       int64_t now)
{
	int64_t next;

	next = act__wheel_next_ns(&r->wheel);
	/* seq_cst: the reactor's half of the Dekker pair with
	 * act__reactor_arm_timeout's push and deadline load, as in
	 * reactor_main; the worker announced its sleep before (seen) */
	atomic_store_explicit(&r->next_deadline, next, memory_order_seq_cst);
	/* seq_cst loads: the load halves of the pairs with the pushes and
	 * the dump handler, as in reactor_main */
	if (act__mpsc_maybe_nonempty(&r->cmds) ||
	    atomic_load_explicit(&r->dump_req, memory_order_seq_cst))
		return;
	next = sleep_ns(r, next, now);
	ACT_TEST_HOOK(r->hooks, &r->hook_rng);
	r->last_enter = now;
	if (r->ring.mode != ACT_RING_NONE)
		act__ring_wait(&r->ring, r->bell, seen, next,
			       r->inflight != NULL);
	else
		act__park_sleep(r->bell, seen, next);
}

/* Inline: the ring is made on the caller's thread, worker 0's, which
 * alone submits to it (SINGLE_ISSUER) and runs every turn. */
static void start_inline(struct act__reactor *r)
{
	struct act__worker *w = &r->rt->workers[0];
	char why[160];

	r->on_worker = true;
	r->bell = &w->bell;
	r->submit_first = false;
	act__ring_init(&r->ring, r->rt->cfg.ring_entries, r->rt->test.ring, why,
		       sizeof(why));
	/* before Linux 6.7 the ring cannot wait on the futex: it reads its
	 * eventfd, which every ring of worker 0's doorbell writes then */
	if (r->ring.mode == ACT_RING_EVENTFD)
		w->bell.efd1 = r->ring.efd + 1;
	w->inline_r = r;
	act__reactor_obs_start(r, ACT_PHASE_SLEEP, act__clock_now());
	r->last_enter = act__clock_now();
	atomic_store_explicit(&r->ready, 1, memory_order_relaxed);
}

/*
 * The reactor thread takes no asynchronous signal: they are blocked in
 * it from its first instruction (a new thread inherits its creator's
 * mask), so that the kernel hands the process's signals to another
 * thread. Its io_uring needs that: the kernel starts the ring's io-wq
 * threads (for the operations it cannot do without blocking, such as a
 * pipe's read or write on 6.1) from the reactor thread, and that fails
 * while a signal is pending there; after 3 tries (a limit that stable
 * kernels got in 2024: Debian's 6.1.192 has it) every operation queued
 * for io-wq completes with -ECANCELED. On that kernel, a reactor sent
 * SIGUSR1 every 20 us had all its pipe writes cancelled so, and
 * test_io_kill's signals_at_reactor hung (doc/kernels.md). Faults of the
 * reactor's own code stay deliverable, to the handlers of overflow.c.
 */
static void block_signals(sigset_t *old)
{
	static const int faults[] = { SIGSEGV, SIGBUS,	SIGFPE,
				      SIGILL,  SIGTRAP, SIGSYS };
	sigset_t set;
	unsigned i;

	sigfillset(&set);
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&set, faults[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int act__reactor_start(struct act__reactor *r, struct act__rt *rt)
{
	sigset_t old;
	bool fail;
	int rc;

	r->rt = rt;
	act__mpsc_init(&r->cmds);
	r->fixed = NULL;
	r->nfixed = 0;
	r->fixed_err = 0;
	atomic_store_explicit(&r->timers.lock, 0, memory_order_relaxed);
	r->timers.free_head = UINT32_MAX;
	atomic_store_explicit(&r->timers.n, 0, memory_order_relaxed);
	act__wheel_init(&r->wheel, (int64_t)rt->cfg.timer_us * 1000,
			act__clock_now());
	r->marked = calloc(rt->nworkers, sizeof(*r->marked));
	r->is_marked = calloc(rt->nworkers, 1);
	if (!r->marked || !r->is_marked) {
		free(r->marked);
		free(r->is_marked);
		return -ENOMEM;
	}
	atomic_store_explicit(&r->next_deadline, INT64_MAX,
			      memory_order_relaxed);
	atomic_store_explicit(&r->stop, 0, memory_order_relaxed);
	atomic_store_explicit(&r->ready, 0, memory_order_relaxed);
	r->bell = &r->own_bell;
	r->on_worker = false;
	if (rt->plan.reactor_inline) {
		start_inline(r);
		goto started;
	}
	/* no switch point between thread_new and pthread_create
	 * (base/systematic.h): the fault site's is before */
	fail = ACT_FAIL(ACT_FAIL_THREAD);
	block_signals(&old);
	r->sys_n = act__systematic_thread_new("reactor");
	rc = fail ? EAGAIN : pthread_create(&r->thread, NULL, reactor_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		act__systematic_thread_gone(r->sys_n);
		free(r->marked);
		free(r->is_marked);
		return -rc;
	}
	/* acquire: pairs with reactor_main's release store of ready */
	while (!atomic_load_explicit(&r->ready, memory_order_acquire))
		act__park_futex_wait(&r->ready, 0, -1);
started:
	if (r->ring.why[0]) /* written before ready's release */
		fprintf(stderr, "actors: %s: timers work, I/O will not\n",
			r->ring.why);
	return 0;
}

void act__reactor_stop(struct act__reactor *r)
{
	/* seq_cst: a release that pairs with the acquire load in
	 * reactor_main, and the store half of the Dekker pair with its
	 * seq_cst load of stop after it announced sleep (the kick below) */
	atomic_store_explicit(&r->stop, 1, memory_order_seq_cst);
	if (r->on_worker) {
		/* worker 0's thread, the ring's, its loop over */
		act__reactor_obs_stop(r);
		drop_all(r);
		r->rt->workers[0].inline_r = NULL;
		r->rt->workers[0].bell.efd1 = 0;
	} else {
		act__ring_kick(&r->ring, r->bell);
		act__systematic_join(r->sys_n);
		pthread_join(r->thread, NULL);
	}
	/* here, not in the reactor: the kick above read the ring's mode,
	 * and the workers, joined before, their last kicks */
	act__ring_exit(&r->ring);
	free(r->fixed); /* the ring's table went with it */
	r->fixed = NULL;
	r->nfixed = 0;
	r->fixed_err = 0;
	act__timer_destroy_all(&r->timers);
	free(r->marked);
	free(r->is_marked);
}
