/* SPDX-License-Identifier: MIT */
/*
 * blocking.c - act_blocking: run a function that blocks on a pool of
 * threads outside the workers while its process waits (Erlang's dirty
 * schedulers, Tokio's spawn_blocking). doc/design/blocking.md.
 *
 * The process's side. The job (function, argument, process, ticket) is a
 * record on the caller's stack, queued for the pool under its mutex;
 * then the process parks as an I/O wait does (ACT_SW_IOWAIT, the I/O
 * word of proc/ioword.h): its worker runs other processes, messages do
 * not end the wait. The pool thread that ran the function sets the
 * word's COMPLETE (one seq_cst RMW) and wakes the process through the
 * ordinary wake from a foreign thread (sched/wake.h, its ticket), as the
 * reactor does after a CQE. A kill wakes the process once: it marks the
 * word (CANCEL_REQ | CANCEL_TAKEN, "seen, nothing to cancel"), so that
 * it waits on for the function only, and dies when the function has
 * returned. The function is never interrupted, and until it returns the
 * process keeps its stack, where the job lies (as I6 keeps it for I/O).
 *
 * The pool. No thread until the first call; a call that finds no idle
 * thread starts one while fewer than the cap run, else its job waits in
 * the queue (FIFO) for the next thread to finish. A thread idle for
 * act__blocking_idle_ns exits. An exiting thread joins the one that
 * exited before it and leaves itself to be joined by the next, so at
 * most one has exited unjoined; the stop joins it, and so every thread.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "base/fail.h"
#include "affinity/plan.h"
#include "blocking.h"
#include "proc/ioword.h"
#include "sched/backpressure.h"
#include "sched/rt.h"
#include "sched/wake.h"
#include "sched/worker.h"

int64_t act__blocking_idle_ns = ACT_BLOCKING_IDLE_NS;

struct job {
	void (*fn)(void *);
	void *arg;
	struct act__proc *p;
	uint64_t ticket;
	struct job *next;
};

/* One runtime per OS process: one pool, set up by act__blocking_start. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t more; /* a job queued, or the stop (idle threads) */
	pthread_cond_t gone; /* the last thread left (the stop) */
	struct job *head, **tail;
	uint32_t nqueued;
	uint32_t cap, nthreads, nidle, peak;
	uint64_t calls;
	bool stopping;
	bool dead_unjoined; /* `dead` exited and nobody joined it yet */
	pthread_t dead;
	struct act__rt *rt; /* its usable CPUs, for the threads' binding */
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

int act__blocking_start(struct act__rt *rt, uint32_t cap)
{
	pthread_condattr_t a;
	int rc;

	rc = pthread_condattr_init(&a);
	if (rc)
		return -rc;
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&pool.more, &a);
	if (!rc) {
		rc = pthread_cond_init(&pool.gone, NULL);
		if (rc)
			pthread_cond_destroy(&pool.more);
	}
	pthread_condattr_destroy(&a);
	if (rc)
		return -rc;
	pool.head = NULL;
	pool.tail = &pool.head;
	pool.nqueued = 0;
	pool.cap = cap;
	pool.nthreads = pool.nidle = pool.peak = 0;
	pool.calls = 0;
	pool.stopping = false;
	pool.dead_unjoined = false;
	pool.rt = rt;
	return 0;
}

static struct job *take(void)
{
	struct job *j = pool.head;

	pool.head = j->next;
	if (!pool.head)
		pool.tail = &pool.head;
	pool.nqueued--;
	return j;
}

/* The function has returned: hand the process its wake. */
static void finish(struct job *j)
{
	struct act__proc *p = j->p;
	uint64_t t = j->ticket;

	/* seq_cst: the store half of the Dekker pair with park_io's
	 * seq_cst store of IOWAIT and load of io_word
	 * (act__ioword_wants_run), followed by the seq_cst state load of
	 * act__wake_claim; a release for what fn wrote, which wait_done's
	 * acquire load of io_word sees. From this RMW on the job is the
	 * process's again (its stack may be gone): p and t were read
	 * before */
	atomic_fetch_or_explicit(&p->io_word, ACT_IO_COMPLETE,
				 memory_order_seq_cst);
	/* the slot stays (type-stable, I5); a wake that comes after the
	 * process ran on is spurious, and the ticket keeps it so */
	act__wake_state(NULL, p, t, ACT_PS_IOWAIT);
}

/* Under the lock, the calling thread leaves the pool: it will be joined
 * by the next thread to leave, or by the stop. The one it replaces is
 * returned, to be joined once the lock is let go. */
static bool leave(pthread_t *prev)
{
	bool had = pool.dead_unjoined;

	*prev = pool.dead;
	pool.dead = pthread_self();
	pool.dead_unjoined = true;
	if (!--pool.nthreads)
		pthread_cond_signal(&pool.gone);
	return had;
}

static void deadline_in(struct timespec *ts, int64_t ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ns += ts->tv_nsec;
	ts->tv_sec += ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static void *pool_thread(void *arg)
{
	struct timespec until;
	pthread_t prev;
	struct job *j;
	bool had;
	int rc;

	(void)arg;
	/* on every CPU the runtime may use, not on its creator's */
	act__plan_pin_thread(&pool.rt->topo, &pool.rt->pin_failed,
			     pool.rt->topo.usable, "a blocking thread", -1);
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		deadline_in(&until, act__blocking_idle_ns);
		rc = 0;
		while (!pool.head && !pool.stopping && rc != ETIMEDOUT) {
			pool.nidle++;
			rc = pthread_cond_timedwait(&pool.more, &pool.lock,
						    &until);
			pool.nidle--;
		}
		if (pool.stopping || !pool.head)
			break; /* the stop, or idle for the idle time */
		j = take();
		pool.calls++;
		pthread_mutex_unlock(&pool.lock);
		j->fn(j->arg);
		finish(j);
		pthread_mutex_lock(&pool.lock);
	}
	had = leave(&prev);
	pthread_mutex_unlock(&pool.lock);
	if (had)
		pthread_join(prev, NULL);
	return NULL;
}

/* Under the lock: one thread more, with every signal blocked (they are
 * the program's threads' to take, as the reactor leaves them). */
static int grow(void)
{
	sigset_t all, old;
	pthread_t t;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = ACT_FAIL(ACT_FAIL_THREAD) ?
		     EAGAIN :
		     pthread_create(&t, NULL, pool_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	if (++pool.nthreads > pool.peak)
		pool.peak = pool.nthreads;
	return 0;
}

/* Queue j for a thread; -EAGAIN when no thread runs and none can start. */
static int submit(struct job *j)
{
	int rc = 0;

	j->next = NULL;
	pthread_mutex_lock(&pool.lock);
	*pool.tail = j;
	pool.tail = &j->next;
	pool.nqueued++;
	if (pool.nidle >= pool.nqueued) {
		pthread_cond_signal(&pool.more);
	} else if (pool.nthreads < pool.cap && grow() && !pool.nthreads) {
		/* no thread can take it: it is the only job queued (the
		 * lock is held, and a failed start before took its own) */
		pool.head = NULL;
		pool.tail = &pool.head;
		pool.nqueued = 0;
		rc = -EAGAIN;
	}
	/* else a running thread takes it when its function returns */
	pthread_mutex_unlock(&pool.lock);
	return rc;
}

/* The process waits, parked on its I/O word, until the job is done. */
static void wait_done(struct act__worker *w, struct act__proc *p)
{
	uint8_t word;

	for (;;) {
		act__worker_switch_out_w(w, p, ACT_SW_IOWAIT);
		act__proc_turn_begin(p);
		w = act__tls_worker_self(); /* I8: we may have moved */
		/* acquire: pairs with finish's RMW, after the function */
		word = atomic_load_explicit(&p->io_word, memory_order_acquire);
		if (word & ACT_IO_COMPLETE)
			return;
		/* killed (or a spurious wake): the kill is seen, nothing
		 * is to be cancelled, so park_io waits for COMPLETE only
		 * from now on. relaxed: finish's RMW and this one are on
		 * one word, and the park's seq_cst load reads it again */
		if (!(word & ACT_IO_CANCEL_REQ) && act__proc_killed(p))
			atomic_fetch_or_explicit(&p->io_word,
						 ACT_IO_CANCEL_REQ |
							 ACT_IO_CANCEL_TAKEN,
						 memory_order_relaxed);
	}
}

int act_blocking(void (*fn)(void *), void *arg)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	struct job j;
	uint64_t t;
	int rc;

	if (!p)
		return -EPERM;
	if (!fn)
		return -EINVAL;
	act__spawn_die_if_killed(p);
	/* not reading its mail while it waits: its muted senders go on */
	act__backpressure_clear(w, p);
	t = act__ps_ticket(
		    atomic_load_explicit(&p->state, memory_order_relaxed)) +
	    1;
	p->wait_ticket = t;
	/* for observers (proc.h's fifth line), as io.c writes them:
	 * relaxed, read only while the state says IOWAIT */
	atomic_store_explicit(&p->wait_op, ACT_IO_WAIT_BLOCKING,
			      memory_order_relaxed);
	atomic_store_explicit(&p->wait_on, (uint64_t)(uint32_t)-1,
			      memory_order_relaxed);
	/* the last wait on the word is over (io.h): nobody else writes it */
	atomic_store_explicit(&p->io_word, 0, memory_order_relaxed);
	j.fn = fn;
	j.arg = arg;
	j.p = p;
	j.ticket = t;
	rc = submit(&j);
	if (rc)
		return rc;
	wait_done(w, p);
	act__spawn_die_if_killed(p);
	return 0;
}

void act__blocking_stop(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.stopping = true;
	/* what no thread began is not run: its process is gone */
	pool.head = NULL;
	pool.tail = &pool.head;
	pool.nqueued = 0;
	pthread_cond_broadcast(&pool.more);
	while (pool.nthreads)
		pthread_cond_wait(&pool.gone, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	/* the last to leave, who joined the one before it, and so on */
	if (pool.dead_unjoined)
		pthread_join(pool.dead, NULL);
	pool.dead_unjoined = false;
	pthread_cond_destroy(&pool.more);
	pthread_cond_destroy(&pool.gone);
	pool.rt = NULL;
}

void act__blocking_counts(struct act__blocking_counts *c)
{
	pthread_mutex_lock(&pool.lock);
	c->threads = pool.nthreads;
	c->peak = pool.peak;
	c->calls = pool.calls;
	pthread_mutex_unlock(&pool.lock);
}
