/* SPDX-License-Identifier: MIT */
/*
 * test_invariants.c - one test (at least) per invariant of DESIGN.md
 * section 3, each named after it.
 *
 * A test runs at the default worker count of the machine (one on this
 * 2-CPU box, seven on the machine tests/anycount.sh simulates) and holds
 * at any count, unless it says tu_with_workers(1) and why: those look at a
 * process between two steps of one worker (queued, not yet run), or need
 * the next spawn to take the slot just freed, which only one worker
 * makes sure of (a slot goes to the cache of the worker that reaped it).
 *
 * Not here, and why:
 *  - I3 (owner only) is about two workers touching one process: that
 *    would be a race that only TSan or a crash can show. We check what a
 *    process can see: the recorded owner is the worker running it, at
 *    every turn, on whatever worker that is.
 *  - I6 (in-flight I/O pins memory): test_io_kill.
 *  - I8 (no TLS caching across a switch): test_migrate.
 *
 * Hangs are how a lost wakeup shows: those tests have a Check timeout.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>

#include "testrt.h"

#include "proc/mailbox.h"
#include "node/runtime.h"
#include "mem/slab.h"
#include "sched/wake.h"
#include "sched/worker.h"

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts))
		;
}

/* I1 check of the caller itself: running, and in no queue. */
static int self_bad(void)
{
	struct act__proc *p = tu_self_proc();

	return !p || act__ps(atomic_load(&p->state)) != ACT_PS_RUNNING ||
	       atomic_load(&p->queued) != 0;
}

/* ======================================================================
 * I1 One queue
 * ==================================================================== */

struct i1_run {
	act_pid parent;
	long bad;	  /* a running process queued or not RUNNING */
	long waiting_bad; /* a waiting process found queued */
	long woken_bad;	  /* a just-woken process not RUNNABLE + queued */
	atomic_int go;
	atomic_int stop;
	uint64_t dups_seen;
};

static void i1_partner(void *arg)
{
	struct i1_run *r = arg;
	struct act_msg *m;

	while ((m = act_receive(ACT_FOREVER)) && m->tag == 1) {
		r->bad += self_bad();
		act_send(m->from, 1, NULL, 0);
		act_msg_free(m);
	}
	act_msg_free(m);
}

static void i1_pingpong(struct i1_run *r, long rounds)
{
	act_pid partner = act_spawn(i1_partner, r);
	struct act__proc *pp;
	long i;

	ck_assert_uint_ne(partner.id, 0);
	ck_assert(tu_wait_waiting(partner));
	pp = tu_lookup(partner);
	for (i = 0; i < rounds; i++) {
		/* the partner waits: in no queue */
		if (atomic_load(&pp->queued))
			r->waiting_bad++;
		act_send(partner, 1, NULL, 0);
		/* just woken by us: runnable and queued exactly once */
		if (act__ps(atomic_load(&pp->state)) != ACT_PS_RUNNABLE ||
		    atomic_load(&pp->queued) != 1)
			r->woken_bad++;
		act_msg_free(act_receive(ACT_FOREVER));
		r->bad += self_bad();
	}
	act_send(partner, 2, NULL, 0);
	ck_assert(tu_wait_gone(partner));
}

struct ring_node {
	struct i1_run *r;
	act_pid next;
};

/* Passes the token on until its hop count runs out; tag 2 stops it. */
static void ring_fn(void *arg)
{
	struct ring_node *n = arg;
	struct act_msg *m;
	long hops;

	while ((m = act_receive(ACT_FOREVER)) && m->tag == 1) {
		memcpy(&hops, m->data, sizeof(hops));
		act_msg_free(m);
		n->r->bad += self_bad();
		if (hops == 0) {
			act_send(n->r->parent, 3, NULL, 0);
			continue;
		}
		hops--;
		act_send(n->next, 1, &hops, sizeof(hops));
	}
	act_msg_free(m);
}

static void i1_ring(struct i1_run *r, int size, long hops)
{
	struct ring_node *nodes = calloc((size_t)size, sizeof(*nodes));
	act_pid *pids = calloc((size_t)size, sizeof(*pids));
	struct act_msg *m;
	int i;

	ck_assert_ptr_nonnull(nodes);
	ck_assert_ptr_nonnull(pids);
	for (i = 0; i < size; i++) {
		nodes[i].r = r;
		pids[i] = act_spawn(ring_fn, &nodes[i]);
		ck_assert_uint_ne(pids[i].id, 0);
	}
	for (i = 0; i < size; i++)
		nodes[i].next = pids[(i + 1) % size];
	ck_assert_int_eq(act_send(pids[0], 1, &hops, sizeof(hops)), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 3);
	act_msg_free(m);
	for (i = 0; i < size; i++)
		ck_assert_int_eq(act_send(pids[i], 2, NULL, 0), 0);
	for (i = 0; i < size; i++)
		ck_assert(tu_wait_gone(pids[i]));
	free(pids);
	free(nodes);
}

static void i1_spawn_child(void *arg)
{
	struct i1_run *r = arg;

	r->bad += self_bad();
}

static void i1_spawn_tree(void *arg)
{
	struct i1_run *r = arg;
	int i;

	r->bad += self_bad();
	for (i = 0; i < 100; i++)
		ck_assert_uint_ne(act_spawn(i1_spawn_child, r).id, 0);
	act_yield();
	r->bad += self_bad();
}

static void i1_main(void *arg)
{
	struct i1_run *r = arg;
	act_pid kids[100];
	int i;

	r->parent = act_self();
	r->bad += self_bad();
	i1_pingpong(r, 100000);
	i1_ring(r, 100, 100000);
	for (i = 0; i < 100; i++)
		kids[i] = act_spawn(i1_spawn_tree, r);
	for (i = 0; i < 100; i++)
		ck_assert(tu_wait_gone(kids[i]));
	r->bad += self_bad();
	r->dups_seen = tu_dup_enqueues();
}

/*
 * One worker: the ping-pong looks at the partner between our send and
 * our receive ("runnable and queued exactly once"), a state that another
 * worker would end at once by running it; and the processes of the ring
 * and the spawn tree add to r's counters without atomics, one at a time.
 */
START_TEST(test_I1_one_queue)
{
	struct act_config cfg = tu_with_workers(1);
	struct i1_run r;

	memset(&r, 0, sizeof(r));
	r.dups_seen = UINT64_MAX;
	ck_assert_int_eq(tu_run_main(&cfg, i1_main, &r), 0);
	ck_assert_uint_eq(r.dups_seen, 0);
	ck_assert_int_eq(r.bad, 0);
	ck_assert_int_eq(r.waiting_bad, 0);
	ck_assert_int_eq(r.woken_bad, 0);
}
END_TEST

/* Foreign threads' wakes race with the worker's own re-check in park:
 * still one enqueue per wake. */
#define I1_THREADS 4
#define I1_PER_THREAD 50000

struct i1_foreign {
	act_pid to;
	atomic_int *go;
	int failed;
};

static void *i1_sender(void *arg)
{
	struct i1_foreign *f = arg;
	int i;

	while (!atomic_load(f->go))
		;
	for (i = 0; i < I1_PER_THREAD; i++)
		f->failed += act_send(f->to, 1, &i, sizeof(i)) != 0;
	return NULL;
}

static void i1_foreign_receiver(void *arg)
{
	struct i1_run *r = arg;
	long n;

	for (n = 0; n < (long)I1_THREADS * I1_PER_THREAD; n++) {
		/* message wakes race with the park re-check and, for the
		 * timed receives, with timer wakes */
		struct act_msg *m =
			act_receive(n % 2 ? 1 * TU_MS : ACT_FOREVER);

		if (!m) {
			n--;
			continue;
		}
		r->bad += self_bad();
		act_msg_free(m);
	}
	act_send(r->parent, 1, NULL, 0);
}

static void i1_foreign_main(void *arg)
{
	struct i1_run *r = arg;
	struct i1_foreign f[I1_THREADS];
	pthread_t t[I1_THREADS];
	atomic_int go = 0;
	act_pid rc;
	int i;

	r->parent = act_self();
	rc = act_spawn(i1_foreign_receiver, r);
	ck_assert(tu_wait_waiting(rc));
	for (i = 0; i < I1_THREADS; i++) {
		f[i] = (struct i1_foreign){ rc, &go, 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, i1_sender, &f[i]),
				 0);
	}
	atomic_store(&go, 1);
	act_msg_free(act_receive(ACT_FOREVER));
	for (i = 0; i < I1_THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(f[i].failed, 0);
	}
	r->dups_seen = tu_dup_enqueues();
}

START_TEST(test_I1_one_queue_foreign_wakes)
{
	struct i1_run r;

	memset(&r, 0, sizeof(r));
	r.dups_seen = UINT64_MAX;
	ck_assert_int_eq(tu_run_main(NULL, i1_foreign_main, &r), 0);
	ck_assert_uint_eq(r.dups_seen, 0);
	ck_assert_int_eq(r.bad, 0);
}
END_TEST

/* ======================================================================
 * I2 No lost wakeup
 * ==================================================================== */

#define I2_THREADS 4
#define I2_PER_THREAD 100000L

enum i2_mode { I2_FOREVER, I2_POLL_THEN_FOREVER, I2_TIMED };

struct i2_run {
	act_pid parent;
	enum i2_mode mode;
	long got, nulls;
	long per_sender[I2_THREADS];
	long out_of_order;
};

struct i2_sender {
	act_pid to;
	int id;
	atomic_int *go;
	long failed;
};

static void *i2_sender_fn(void *arg)
{
	struct i2_sender *s = arg;
	long i, v[2];

	while (!atomic_load(s->go))
		;
	for (i = 0; i < I2_PER_THREAD; i++) {
		v[0] = s->id;
		v[1] = i;
		s->failed += act_send(s->to, 1, v, sizeof(v)) != 0;
	}
	return NULL;
}

static struct act_msg *i2_receive(struct i2_run *r, long n)
{
	struct act_msg *m;

	switch (r->mode) {
	case I2_POLL_THEN_FOREVER:
		if (n % 2 == 0)
			return act_receive(ACT_FOREVER);
		m = act_receive(0);
		if (!m) {
			r->nulls++;
			m = act_receive(ACT_FOREVER);
		}
		return m;
	case I2_TIMED:
		while (!(m = act_receive(1 * TU_MS)))
			r->nulls++;
		return m;
	default:
		return act_receive(ACT_FOREVER);
	}
}

static void i2_receiver(void *arg)
{
	struct i2_run *r = arg;
	long n, v[2];

	for (n = 0; n < I2_THREADS * I2_PER_THREAD; n++) {
		struct act_msg *m = i2_receive(r, n);

		if (!m)
			break;
		memcpy(v, m->data, sizeof(v));
		act_msg_free(m);
		if (v[0] < 0 || v[0] >= I2_THREADS)
			break;
		r->out_of_order += v[1] != r->per_sender[v[0]];
		r->per_sender[v[0]] = v[1] + 1;
		r->got++;
	}
	act_send(r->parent, 1, NULL, 0);
}

static void i2_main(void *arg)
{
	struct i2_run *r = arg;
	struct i2_sender s[I2_THREADS];
	pthread_t t[I2_THREADS];
	atomic_int go = 0;
	act_pid rc;
	int i;

	r->parent = act_self();
	rc = act_spawn(i2_receiver, r);
	ck_assert(tu_wait_waiting(rc));
	for (i = 0; i < I2_THREADS; i++) {
		s[i] = (struct i2_sender){ rc, i, &go, 0 };
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, i2_sender_fn, &s[i]), 0);
	}
	atomic_store(&go, 1);
	act_msg_free(act_receive(ACT_FOREVER));
	for (i = 0; i < I2_THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(s[i].failed, 0);
	}
	ck_assert(tu_wait_gone(rc));
	ck_assert_uint_eq(tu_dup_enqueues(), 0);
}

/* Returns how many messages the receiver got (all of them, or a hang). */
static long i2_check(enum i2_mode mode)
{
	struct i2_run r;
	int i;

	memset(&r, 0, sizeof(r));
	r.mode = mode;
	ck_assert_int_eq(tu_run_main(NULL, i2_main, &r), 0);
	ck_assert_int_eq(r.got, I2_THREADS * I2_PER_THREAD);
	for (i = 0; i < I2_THREADS; i++)
		ck_assert_int_eq(r.per_sender[i], I2_PER_THREAD);
	ck_assert_int_eq(r.out_of_order, 0);
	ck_assert_int_eq(tu_count_tasks(), 1);
	return r.got;
}

/*
 * Lock-step: each thread sends one message and waits until the receiver
 * has taken it before it sends the next, so every message is the last
 * one for a while. A wake lost between the receiver's empty scan and its
 * park leaves it waiting with a message in its mailbox while every
 * sender waits for it: a hang, which the test timeout reports.
 */
#define I2_LS_THREADS 2
#define I2_LS_PER_THREAD 30000L

struct i2_lockstep {
	act_pid to, parent;
	atomic_long acked[I2_LS_THREADS];
	long failed[I2_LS_THREADS];
	long bad;
};

struct i2_ls_arg {
	struct i2_lockstep *ls;
	long id;
};

static void *i2_ls_sender(void *arg)
{
	struct i2_ls_arg *a = arg;
	struct i2_lockstep *ls = a->ls;
	long i;

	for (i = 0; i < I2_LS_PER_THREAD; i++) {
		ls->failed[a->id] +=
			act_send(ls->to, 1, &a->id, sizeof(a->id)) != 0;
		while (atomic_load(&ls->acked[a->id]) <= i)
			sched_yield();
	}
	return NULL;
}

static void i2_ls_receiver(void *arg)
{
	struct i2_lockstep *ls = arg;
	long n, id;

	for (n = 0; n < I2_LS_THREADS * I2_LS_PER_THREAD; n++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (!m || m->len != sizeof(id)) {
			ls->bad++;
			break;
		}
		memcpy(&id, m->data, sizeof(id));
		act_msg_free(m);
		if (id < 0 || id >= I2_LS_THREADS) {
			ls->bad++;
			break;
		}
		atomic_fetch_add(&ls->acked[id], 1);
	}
	act_send(ls->parent, 1, NULL, 0);
}

static void i2_ls_main(void *arg)
{
	struct i2_lockstep *ls = arg;
	struct i2_ls_arg a[I2_LS_THREADS];
	pthread_t t[I2_LS_THREADS];
	int i;

	ls->parent = act_self();
	ls->to = act_spawn(i2_ls_receiver, ls);
	ck_assert(tu_wait_waiting(ls->to));
	for (i = 0; i < I2_LS_THREADS; i++) {
		a[i] = (struct i2_ls_arg){ ls, i };
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, i2_ls_sender, &a[i]), 0);
	}
	act_msg_free(act_receive(ACT_FOREVER));
	for (i = 0; i < I2_LS_THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_uint_eq(tu_dup_enqueues(), 0);
}

START_TEST(test_I2_no_lost_wakeup_lockstep)
{
	struct i2_lockstep ls;
	int i;

	memset(&ls, 0, sizeof(ls));
	ck_assert_int_eq(tu_run_main(NULL, i2_ls_main, &ls), 0);
	ck_assert_int_eq(ls.bad, 0);
	for (i = 0; i < I2_LS_THREADS; i++) {
		ck_assert_int_eq(ls.failed[i], 0);
		ck_assert_int_eq(atomic_load(&ls.acked[i]), I2_LS_PER_THREAD);
	}
}
END_TEST

START_TEST(test_I2_no_lost_wakeup_forever)
{
	ck_assert_int_eq(i2_check(I2_FOREVER), I2_THREADS * I2_PER_THREAD);
}
END_TEST

START_TEST(test_I2_no_lost_wakeup_poll_and_forever)
{
	ck_assert_int_eq(i2_check(I2_POLL_THEN_FOREVER),
			 I2_THREADS * I2_PER_THREAD);
}
END_TEST

START_TEST(test_I2_no_lost_wakeup_timed)
{
	ck_assert_int_eq(i2_check(I2_TIMED), I2_THREADS * I2_PER_THREAD);
}
END_TEST

/* ======================================================================
 * I3 Owner only (what a process can see: see the head comment)
 * ==================================================================== */

/*
 * The caller's recorded owner is the worker running it, and act_worker()
 * names that worker. No runtime call that can switch comes between the
 * reads, so they are of one turn, wherever that turn runs.
 */
static int i3_bad_here(void)
{
	struct act__worker *w = act__tls_worker_self();
	int i = act_worker();

	return (atomic_load(&tu_self_proc()->owner) != w) +
	       (i < 0 || i >= act_workers() ||
		&act__rt_current->workers[i] != w);
}

static void i3_child(void *arg)
{
	atomic_int *bad = arg;
	int i;

	for (i = 0; i < 100; i++) {
		atomic_fetch_add(bad, i3_bad_here());
		act_yield();
	}
}

static void i3_main(void *arg)
{
	atomic_int *bad = arg;
	act_pid kids[10];
	int i;

	atomic_fetch_add(bad, i3_bad_here());
	for (i = 0; i < 10; i++)
		kids[i] = act_spawn(i3_child, bad);
	for (i = 0; i < 10; i++)
		ck_assert(tu_wait_gone(kids[i]));
	atomic_fetch_add(bad, i3_bad_here());
}

START_TEST(test_I3_owner_is_running_worker)
{
	atomic_int bad = 0;

	ck_assert_int_eq(tu_run_main(NULL, i3_main, &bad), 0);
	ck_assert_int_eq(atomic_load(&bad), 0);
}
END_TEST

/* ======================================================================
 * I4 Ticketed wakes
 * ==================================================================== */

struct i4_wait {
	act_pid parent;
	int returned; /* the receive came back */
	uint32_t tag;
	int was_null;
};

/* A timed wait that times out (its ticket is now stale), then a wait
 * without limit; tells the parent how that ended. */
static void i4_waiter(void *arg)
{
	struct i4_wait *w = arg;
	struct act_msg *m = act_receive(1 * TU_MS);

	if (m) { /* nobody sends before the second wait */
		w->returned = -1;
		act_msg_free(m);
		return;
	}
	m = act_receive(ACT_FOREVER);
	w->returned = 1;
	w->was_null = m == NULL;
	w->tag = m ? m->tag : 0;
	act_msg_free(m);
	act_send(w->parent, 7, NULL, 0);
}

struct i4_wake_args {
	struct act__proc *p;
	uint64_t ticket;
	bool woke;
};

static void *i4_wake_thread(void *arg)
{
	struct i4_wake_args *a = arg;

	a->woke = act__wake(NULL, a->p, a->ticket);
	return NULL;
}

/* A wake from outside a worker (as the reactor does it). */
static bool wake_from_thread(struct act__proc *p, uint64_t ticket)
{
	struct i4_wake_args a = { p, ticket, false };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, i4_wake_thread, &a), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	return a.woke;
}

static void i4_ticket_main(void *arg)
{
	struct i4_wait w = { act_self(), 0, 0, 0 };
	struct act__proc *p;
	uint64_t s, t;
	act_pid kid;

	(void)arg;
	kid = act_spawn(i4_waiter, &w);
	ck_assert_uint_ne(kid.id, 0);
	p = tu_lookup(kid);
	/* until it waits in its second receive (the first one times out;
	 * a hang here is the library's, reported by the test timeout) */
	for (;;) {
		s = atomic_load(&p->state);
		if (act__ps(s) == ACT_PS_WAITING && act__ps_ticket(s) >= 2)
			break;
		ck_assert_ptr_null(act_receive(1 * TU_MS));
	}
	ck_assert_int_eq(w.returned, 0);
	t = act__ps_ticket(s);
	ck_assert_uint_gt(t, 1);
	/* the earlier wait's timer fired: its late wake is refused */
	ck_assert_uint_ge(atomic_load(&p->timeout_fired), t - 1);
	ck_assert(!wake_from_thread(p, t - 1));
	ck_assert(!wake_from_thread(p, t + 1));
	ck_assert_uint_eq(atomic_load(&p->state), s);
	ck_assert_uint_eq(atomic_load(&p->queued), 0);
	act_yield();
	ck_assert_int_eq(w.returned, 0);
	/* the right ticket without a fired timeout: a spurious wake, the
	 * receive waits on */
	ck_assert(wake_from_thread(p, t));
	ck_assert(tu_wait_waiting(kid));
	ck_assert_int_eq(w.returned, 0);
	ck_assert_uint_eq(act__ps_ticket(atomic_load(&p->state)), t);
	/* a message ends it, with the message */
	ck_assert_int_eq(act_send(kid, 5, NULL, 0), 0);
	ck_assert(tu_wait_gone(kid));
	ck_assert_int_eq(w.returned, 1);
	ck_assert_int_eq(w.was_null, 0);
	ck_assert_uint_eq(w.tag, 5);
}

START_TEST(test_I4_wake_needs_current_ticket)
{
	ck_assert_int_eq(tu_run_main(NULL, i4_ticket_main, NULL), 0);
}
END_TEST

struct late_send {
	act_pid *to;
	int64_t due_by;
	int rc;
};

/* Waits until every timer due by due_by is gone, then sends. */
static void *late_sender(void *arg)
{
	struct late_send *l = arg;

	sleep_ns(40 * TU_MS);
	while (tu_timer_due_by(l->due_by))
		sleep_ns(1 * TU_MS);
	l->rc = act_send(*l->to, 8, NULL, 0);
	return NULL;
}

static void early_msg(void *arg)
{
	act_send(*(act_pid *)arg, 1, NULL, 0);
}

/* X's timed receive ends early; X exits; Y takes X's slot and waits
 * forever. X's timer comes due while Y waits: it must not end Y's wait. */
static void x_proc(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;

	(void)arg;
	act_spawn(early_msg, &self);
	m = act_receive(30 * TU_MS);
	ck_assert_ptr_nonnull(m);
	act_msg_free(m);
}

static void i4_reuse_main(void *arg)
{
	struct i4_wait w = { act_self(), 0, 0, 0 };
	struct late_send l;
	pthread_t t;
	act_pid x, y;

	(void)arg;
	x = act_spawn(x_proc, NULL);
	ck_assert(tu_wait_gone(x));
	/* y's own first wait (1 ms) is due before this too */
	l.due_by = act__clock_now() + 30 * TU_MS;
	y = act_spawn(i4_waiter, &w);
	ck_assert_uint_eq(tu_pid_index(y), tu_pid_index(x));
	l.to = &y;
	l.rc = 1;
	ck_assert_int_eq(pthread_create(&t, NULL, late_sender, &l), 0);
	act_msg_free(act_receive(ACT_FOREVER)); /* y is done */
	ck_assert(tu_wait_gone(y));
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(w.was_null, 0);
	ck_assert_uint_eq(w.tag, 8);
}

/* One worker: y must take x's slot, and only on one worker does the
 * next spawn surely get the slot just freed (a slot goes to the cache of
 * the worker that reaped it, and the spawner may be on another). */
START_TEST(test_I4_late_timer_never_wakes_reused_slot)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, i4_reuse_main, NULL), 0);
}
END_TEST

/*
 * Many 1 ms receives interleaved with messages from a process on the same
 * worker. The sender counts a message before sending it, and nothing runs
 * between a receive's last look and its return, so a timeout (NULL) may
 * only come when every counted message was taken.
 */
#define I4_RECEIVES 400

struct i4_many {
	long sent, received, nulls, null_with_pending, bad_tag;
	atomic_int stop;
	act_pid receiver, parent;
};

static void i4_many_sender(void *arg)
{
	struct i4_many *s = arg;
	uint64_t x = 88172645463325252ull;

	while (!atomic_load(&s->stop)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x % 4096 == 0) {
			s->sent++;
			act_send(s->receiver, 1, NULL, 0);
		}
		act_yield();
	}
}

static void i4_many_receiver(void *arg)
{
	struct i4_many *s = arg;
	struct act_msg *m;
	int i;

	for (i = 0; i < I4_RECEIVES; i++) {
		m = act_receive(1 * TU_MS);
		if (!m) {
			s->nulls++;
			s->null_with_pending += s->sent != s->received;
			continue;
		}
		s->bad_tag += m->tag != 1;
		s->received++;
		act_msg_free(m);
	}
	atomic_store(&s->stop, 1);
	act_send(s->parent, 1, NULL, 0);
}

static void i4_many_main(void *arg)
{
	struct i4_many *s = arg;
	act_pid snd;

	s->parent = act_self();
	s->receiver = act_spawn(i4_many_receiver, s);
	snd = act_spawn(i4_many_sender, s);
	act_msg_free(act_receive(ACT_FOREVER));
	ck_assert(tu_wait_gone(s->receiver));
	ck_assert(tu_wait_gone(snd));
}

/*
 * One worker: "nothing runs between a receive's last look and its
 * return" holds only there. On more, the sender counts a message on its
 * own worker and pushes it a moment later, and a receive that times out
 * in between sees the count ahead of the mailbox: null_with_pending,
 * with nothing lost (seen at 3 workers).
 */
START_TEST(test_I4_short_timeouts_never_hide_messages)
{
	struct act_config cfg = tu_with_workers(1);
	struct i4_many s;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(tu_run_main(&cfg, i4_many_main, &s), 0);
	ck_assert_int_eq(s.received + s.nulls, I4_RECEIVES);
	ck_assert_int_eq(s.null_with_pending, 0);
	ck_assert_int_eq(s.bad_tag, 0);
	ck_assert_int_le(s.received, s.sent);
}
END_TEST

/* ======================================================================
 * I5 Stale pids are harmless
 * ==================================================================== */

/* Deterministic: the envelope a sender that looked the old pid up before
 * the slot's reuse would push. */
static void i5_receiver(void *arg)
{
	struct i4_wait *w = arg;
	struct act_msg *m = act_receive(ACT_FOREVER);

	w->tag = m ? m->tag : 0;
	act_msg_free(m);
	m = act_receive(0);
	w->was_null = m == NULL;
	act_msg_free(m);
	w->returned = 1;
}

static void noop(void *arg)
{
	(void)arg;
}

static void i5_sim_main(void *arg)
{
	struct act__worker *wk = act__tls_worker_self();
	struct i4_wait w = { act_self(), 0, 0, 0 };
	struct act__envelope *e;
	act_pid a, b;
	int64_t before;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(tu_wait_gone(a));
	b = act_spawn(i5_receiver, &w);
	ck_assert_uint_eq(tu_pid_index(b), tu_pid_index(a));
	ck_assert_uint_ne(b.id, a.id);
	ck_assert_ptr_null(tu_lookup(a));
	ck_assert_int_eq(act_send(a, 1, NULL, 0), -ESRCH);
	before = act__slab_outstanding(&wk->slab);
	e = act__slab_alloc(&wk->slab, 0);
	ck_assert_ptr_nonnull(e);
	e->to = a;
	e->msg = (struct act_msg){ .tag = 99, .from = act_self() };
	act__mailbox_push(tu_lookup(b), e);
	ck_assert_int_eq(act_send(b, 2, NULL, 0), 0);
	ck_assert(tu_wait_gone(b));
	ck_assert_int_eq(w.returned, 1);
	ck_assert_uint_eq(w.tag, 2);
	ck_assert_int_eq(w.was_null, 1);
	ck_assert_int_eq(act__slab_outstanding(&act__tls_worker_self()->slab),
			 before);
}

/* One worker: b must take a's slot (see I4's reuse test), and the
 * envelope is taken from this worker's slab and counted back there, which
 * is exact only while no other worker holds frees back (slab.h). */
START_TEST(test_I5_stale_pid_simulated)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, i5_sim_main, NULL), 0);
}
END_TEST

/* The real race: a foreign thread keeps sending to whatever pid it last
 * saw while the processes behind it exit and their slot is reused. */
#define I5_CYCLES 3000

struct i5_race {
	_Atomic uint64_t target;
	atomic_int stop;
	long sent, srch;
	long got, wrong;
};

static void *i5_race_sender(void *arg)
{
	struct i5_race *r = arg;
	uint64_t t;
	int rc;

	while (!atomic_load(&r->stop)) {
		t = atomic_load(&r->target);
		rc = act_send((act_pid){ t }, 1, &t, sizeof(t));
		r->sent += rc == 0;
		r->srch += rc == -ESRCH;
	}
	return NULL;
}

static void i5_occupant(void *arg)
{
	struct i5_race *r = arg;
	uint64_t me = act_self().id, to;
	struct act_msg *m;
	int i, n;

	/* at most 100 a round: the sender may be faster than we are, and
	 * this process must get to exit for its slot to be reused */
	for (i = 0; i < 5; i++) {
		for (n = 0; n < 100 && (m = act_receive(0)); n++) {
			memcpy(&to, m->data, sizeof(to));
			r->wrong += to != me || m->tag != 1;
			r->got++;
			act_msg_free(m);
		}
		act_yield();
	}
}

static void i5_race_main(void *arg)
{
	struct i5_race *r = arg;
	uint32_t index = 0;
	pthread_t t;
	act_pid p;
	int i;

	ck_assert_int_eq(pthread_create(&t, NULL, i5_race_sender, r), 0);
	for (i = 0; i < I5_CYCLES; i++) {
		p = act_spawn(i5_occupant, r);
		ck_assert_uint_ne(p.id, 0);
		if (i == 0)
			index = tu_pid_index(p);
		ck_assert_uint_eq(tu_pid_index(p), index);
		atomic_store(&r->target, p.id);
		ck_assert(tu_wait_gone(p));
	}
	atomic_store(&r->stop, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}

/* One worker: every occupant must take the slot of the one before (see
 * I4's reuse test). */
START_TEST(test_I5_stale_pid_race)
{
	struct act_config cfg = tu_with_workers(1);
	struct i5_race r;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(tu_run_main(&cfg, i5_race_main, &r), 0);
	ck_assert_int_eq(r.wrong, 0);
	ck_assert_int_le(r.got, r.sent);
}
END_TEST

/* ======================================================================
 * I7 Pair order
 * ==================================================================== */

#define I7_PROCS 3
#define I7_THREADS 3
#define I7_SENDERS (I7_PROCS + I7_THREADS)
#define I7_N 10000L

struct i7_run {
	act_pid receiver, parent;
	atomic_int go;
	long last[I7_SENDERS];
	long got[I7_SENDERS];
	long out_of_order, bad;
	atomic_int failed_sends; /* threads and processes add to it */
};

struct i7_sender {
	struct i7_run *r;
	long id;
};

static void i7_send_all(struct i7_sender *s)
{
	long i, v[2];

	for (i = 0; i < I7_N; i++) {
		v[0] = s->id;
		v[1] = i;
		if (act_send(s->r->receiver, 1, v, sizeof(v)))
			atomic_fetch_add(&s->r->failed_sends, 1);
	}
}

static void i7_proc_sender(void *arg)
{
	i7_send_all(arg);
}

static void *i7_thread_sender(void *arg)
{
	struct i7_sender *s = arg;

	while (!atomic_load(&s->r->go))
		;
	i7_send_all(s);
	return NULL;
}

static bool i7_from(const struct act_msg *m, void *ctx)
{
	long id;

	memcpy(&id, m->data, sizeof(id));
	return id == *(long *)ctx;
}

static void i7_receiver(void *arg)
{
	struct i7_run *r = arg;
	struct act_msg *m;
	long n, v[2], want;

	for (n = 0; n < I7_SENDERS * I7_N; n++) {
		m = NULL;
		if (n % 7 == 0) {
			/* a selective receive now and then: skipped
			 * messages must keep their order too */
			want = (n / 7) % I7_SENDERS;
			m = act_receive_match(i7_from, &want, 0);
		}
		if (!m)
			m = act_receive(ACT_FOREVER);
		if (!m || m->len != sizeof(v)) {
			r->bad++;
			break;
		}
		memcpy(v, m->data, sizeof(v));
		act_msg_free(m);
		if (v[0] < 0 || v[0] >= I7_SENDERS) {
			r->bad++;
			break;
		}
		r->out_of_order += r->got[v[0]] && v[1] <= r->last[v[0]];
		r->last[v[0]] = v[1];
		r->got[v[0]]++;
	}
	act_send(r->parent, 1, NULL, 0);
}

static void i7_main(void *arg)
{
	struct i7_run *r = arg;
	struct i7_sender s[I7_SENDERS];
	pthread_t t[I7_THREADS];
	int i;

	r->parent = act_self();
	r->receiver = act_spawn(i7_receiver, r);
	ck_assert(tu_wait_waiting(r->receiver));
	for (i = 0; i < I7_SENDERS; i++)
		s[i] = (struct i7_sender){ r, i };
	for (i = 0; i < I7_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, i7_thread_sender,
						&s[I7_PROCS + i]),
				 0);
	for (i = 0; i < I7_PROCS; i++)
		ck_assert_uint_ne(act_spawn(i7_proc_sender, &s[i]).id, 0);
	atomic_store(&r->go, 1);
	act_msg_free(act_receive(ACT_FOREVER));
	for (i = 0; i < I7_THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}

START_TEST(test_I7_pair_order)
{
	struct i7_run r;
	int i;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(tu_run_main(NULL, i7_main, &r), 0);
	ck_assert_int_eq(r.bad, 0);
	ck_assert_int_eq(atomic_load(&r.failed_sends), 0);
	ck_assert_int_eq(r.out_of_order, 0);
	for (i = 0; i < I7_SENDERS; i++) {
		ck_assert_int_eq(r.got[i], I7_N);
		ck_assert_int_eq(r.last[i], I7_N - 1);
	}
}
END_TEST

/* ======================================================================
 * I9 Clean stop
 * ==================================================================== */

static bool match_none(const struct act_msg *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return false;
}

/* Never matches: what arrives goes to the save queue. */
static void i9_blocked(void *arg)
{
	(void)arg;
	act_msg_free(act_receive_match(match_none, NULL, ACT_FOREVER));
}

static void i9_timed(void *arg)
{
	(void)arg;
	act_msg_free(act_receive_match(match_none, NULL, TU_HOUR));
}

static void i9_yielder(void *arg)
{
	(void)arg;
	for (;;)
		act_yield();
}

static void i9_main(void *arg)
{
	char big[20000] = { 0 };
	act_pid p;
	int i;

	(void)arg;
	for (i = 0; i < 300; i++) {
		p = act_spawn(i % 3 == 0 ? i9_blocked :
			      i % 3 == 1 ? i9_timed :
					   i9_yielder,
			      NULL);
		ck_assert_uint_ne(p.id, 0);
		/* never received: small (slab) and big (malloc) ones */
		ck_assert_int_eq(act_send(p, 1, big, 16), 0);
		ck_assert_int_eq(act_send(p, 1, big, sizeof(big)), 0);
	}
	act_yield();
	/* never run at all */
	for (i = 0; i < 10; i++)
		ck_assert_uint_ne(act_spawn(i9_blocked, NULL).id, 0);
	/* and some left in our own mailbox */
	ck_assert_int_eq(act_send(act_self(), 1, big, sizeof(big)), 0);
	ck_assert_int_eq(act_send(act_self(), 1, big, 8), 0);
}

START_TEST(test_I9_clean_stop)
{
	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_int_eq(tu_run_main(NULL, i9_main, NULL), 0);
	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_ptr_null(act__rt_current);
}
END_TEST

/*
 * A process discarded at stop while it holds a message it received but
 * has not freed yet: it never gets the chance to free it, so the runtime
 * must (act_main(3): "every ... message is freed, including messages
 * never passed to act_msg_free").
 */
static void i9_holder(void *arg)
{
	struct act_msg *held = act_receive(ACT_FOREVER);

	(void)arg;
	act_receive(ACT_FOREVER); /* discarded here, still holding */
	act_msg_free(held);
}

static void i9_holder_main(void *arg)
{
	static char big[100000];
	act_pid small_holder, big_holder;

	(void)arg;
	small_holder = act_spawn(i9_holder, NULL);
	big_holder = act_spawn(i9_holder, NULL);
	ck_assert_int_eq(act_send(small_holder, 1, big, 32), 0);
	ck_assert_int_eq(act_send(big_holder, 1, big, sizeof(big)), 0);
	ck_assert(tu_wait_waiting(small_holder));
	ck_assert(tu_wait_waiting(big_holder));
}

START_TEST(test_I9_clean_stop_held_messages)
{
	ck_assert_int_eq(act_main(NULL, i9_holder_main, NULL), 0);
	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_int_eq(act__last_leaks.procs, 0);
	ck_assert_int_eq(act__last_leaks.stacks, 0);
	ck_assert_msg(act__last_leaks.envelopes == 0,
		      "%lld received messages of discarded processes leaked",
		      (long long)act__last_leaks.envelopes);
}
END_TEST

/* ======================================================================
 * I10 No syscall on a busy fast path
 * ==================================================================== */

#define I10_WARM_ROUNDS 10000
#define I10_ROUNDS 100000
#define I10_SPAWNS 10000

struct i10_result {
	int ok;
};

static void i10_partner(void *arg)
{
	struct act_msg *m;

	(void)arg;
	while ((m = act_receive(ACT_FOREVER)) && m->tag == 1) {
		act_send(m->from, 1, m->data, m->len);
		act_msg_free(m);
	}
	act_msg_free(m);
}

static void i10_short(void *arg)
{
	act_send(*(act_pid *)arg, 2, NULL, 0);
}

static int i10_work(act_pid partner, long rounds, long spawns)
{
	act_pid self = act_self();
	struct act_msg *m;
	long i, v;

	for (i = 0; i < rounds; i++) {
		if (act_send(partner, 1, &i, sizeof(i)))
			return 0;
		m = act_receive(ACT_FOREVER);
		if (!m)
			return 0;
		memcpy(&v, m->data, sizeof(v));
		act_msg_free(m);
		if (v != i)
			return 0;
		act_yield();
	}
	for (i = 0; i < spawns; i++) {
		if (!act_spawn(i10_short, &self).id)
			return 0;
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != 2)
			return 0;
		act_msg_free(m);
	}
	/* and a batch alive at once, then all gone */
	for (i = 0; i < 100; i++)
		if (!act_spawn(i10_short, &self).id)
			return 0;
	for (i = 0; i < 100; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	return 1;
}

static void i10_main(void *arg)
{
	struct i10_result *res = arg;
	act_pid partner = act_spawn(i10_partner, NULL);
	int ok;

	ok = partner.id && i10_work(partner, I10_WARM_ROUNDS, I10_SPAWNS);
	syscall(SYS_getppid); /* marker: start counting */
	ok = ok && i10_work(partner, I10_ROUNDS, I10_SPAWNS);
	syscall(SYS_getppid); /* marker: stop counting */
	act_send(partner, 2, NULL, 0);
	res->ok = ok;
}

/*
 * The traced child: stops for its parent, then runs the workload. One
 * worker: the property is that of a busy worker (main and its partner
 * keep it awake), and only the thread of worker 0 is traced, where main
 * and its partner then run. On more workers the partner may be placed or
 * stolen onto another, which parks between round trips and costs a
 * FUTEX_WAKE each time (allowed: a parked worker costs one), and main
 * may move off the traced thread.
 */
static void i10_tracee(void)
{
	struct act_config cfg = tu_with_workers(1);
	struct i10_result res = { 0 };
	int rc;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(20);
	raise(SIGSTOP);
	rc = act_main(&cfg, i10_main, &res);
	_exit(rc != 0 ? 21 : res.ok ? 0 : 22);
}

struct trace_result {
	int status;	  /* the tracee's wait status at the end */
	int markers;	  /* marker syscalls seen */
	long between;	  /* other syscalls between the two markers */
	long first_nr[8]; /* the first few of them */
	int no_info;	  /* PTRACE_GET_SYSCALL_INFO missing */
};

/* Trace pid's main thread only (no PTRACE_O_TRACECLONE: the reactor
 * thread is not traced) and count syscall entries between markers. */
static void trace_syscalls(pid_t pid, struct trace_result *tr)
{
	struct __ptrace_syscall_info info;
	int st, sig = 0;

	memset(tr, 0, sizeof(*tr));
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSTOPPED(st));
	ck_assert_int_eq(ptrace(PTRACE_SETOPTIONS, pid, NULL,
				(void *)(long)(PTRACE_O_TRACESYSGOOD |
					       PTRACE_O_EXITKILL)),
			 0);
	for (;;) {
		ck_assert_int_eq(ptrace(PTRACE_SYSCALL, pid, NULL,
					(void *)(long)sig),
				 0);
		sig = 0;
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st); /* pass real signals on */
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info),
			   &info) <= 0) {
			tr->no_info = 1;
			continue;
		}
		if (info.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		if (info.entry.nr == SYS_getppid) {
			tr->markers++;
			continue;
		}
		if (tr->markers == 1) {
			if (tr->between < 8)
				tr->first_nr[tr->between] = (long)info.entry.nr;
			tr->between++;
		}
	}
	tr->status = st;
}

/* Run tracee() in a traced child; assert no syscall between markers. */
/* Returns the system calls counted between the markers (0 if skipped). */
static long check_no_syscalls(void (*tracee)(void), const char *what)
{
	struct trace_result tr;
	pid_t pid;

	if (TU_UNDER_ASAN) {
		fprintf(stderr, "I10: skipped under ASan\n");
		return 0;
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		tracee();
	trace_syscalls(pid, &tr);
	if (tr.no_info) {
		fprintf(stderr, "I10: no PTRACE_GET_SYSCALL_INFO, skipped\n");
		return 0;
	}
	ck_assert_msg(WIFEXITED(tr.status) && WEXITSTATUS(tr.status) == 0,
		      "traced workload failed: status %#x", tr.status);
	ck_assert_int_eq(tr.markers, 2);
	ck_assert_msg(tr.between == 0,
		      "%ld syscalls in %s; first: %ld %ld %ld %ld", tr.between,
		      what, tr.first_nr[0], tr.first_nr[1], tr.first_nr[2],
		      tr.first_nr[3]);
	return tr.between;
}

START_TEST(test_I10_no_syscall_busy_fast_path)
{
	ck_assert_int_eq(
		check_no_syscalls(i10_tracee,
				  "100,000 round trips and 10,100 spawns"),
		0);
}
END_TEST

/*
 * The same for act_send from a thread that is not a worker: act_send(3)
 * says no system call is made while the receiver's worker is awake. The
 * tracee's main thread is the sender; act_main runs on a second thread
 * (not traced); the receiver polls and yields, so its worker never parks.
 * The sender keeps at most I10_FOREIGN_WINDOW messages unreceived, less
 * than the warm-up sent: a backlog that outgrows everything allocated so
 * far needs new memory (an mmap), which is growth, not the fast path.
 */
#define I10_FOREIGN_WARM 10000L
#define I10_FOREIGN_SENDS 100000L
#define I10_FOREIGN_WINDOW 1000L

static _Atomic uint64_t i10_target;
static atomic_long i10_got;
static atomic_int i10_stop;

static void i10_poller(void *arg)
{
	struct act_msg *m;

	(void)arg;
	while (!atomic_load(&i10_stop)) {
		m = act_receive(0);
		if (m) {
			atomic_fetch_add(&i10_got, 1);
			act_msg_free(m);
		} else {
			act_yield();
		}
	}
}

static void i10_foreign_main(void *arg)
{
	act_pid p = act_spawn(i10_poller, NULL);

	(void)arg;
	atomic_store(&i10_target, p.id);
	while (!atomic_load(&i10_stop))
		act_yield();
}

static void *i10_runtime_thread(void *arg)
{
	*(int *)arg = act_main(NULL, i10_foreign_main, NULL);
	return NULL;
}

static void i10_foreign_tracee(void)
{
	act_pid to;
	pthread_t t;
	long i, v = 0;
	int rc = -1, bad = 0;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(20);
	raise(SIGSTOP);
	if (pthread_create(&t, NULL, i10_runtime_thread, &rc))
		_exit(21);
	while (!(to.id = atomic_load(&i10_target)))
		;
	for (i = 0; i < I10_FOREIGN_WARM; i++)
		bad += act_send(to, 1, &v, sizeof(v)) != 0;
	while (atomic_load(&i10_got) < I10_FOREIGN_WARM)
		;
	syscall(SYS_getppid); /* marker: start counting */
	for (i = 0; i < I10_FOREIGN_SENDS; i++) {
		while (I10_FOREIGN_WARM + i - atomic_load(&i10_got) >
		       I10_FOREIGN_WINDOW)
			;
		bad += act_send(to, 1, &v, sizeof(v)) != 0;
	}
	syscall(SYS_getppid); /* marker: stop counting */
	while (atomic_load(&i10_got) < I10_FOREIGN_WARM + I10_FOREIGN_SENDS)
		;
	atomic_store(&i10_stop, 1);
	pthread_join(t, NULL);
	_exit(rc != 0 ? 22 : bad ? 23 : 0);
}

START_TEST(test_I10_no_syscall_foreign_send)
{
	ck_assert_int_eq(
		check_no_syscalls(i10_foreign_tracee,
				  "100,000 foreign sends to an awake worker"),
		0);
}
END_TEST

static Suite *invariants_suite(void)
{
	Suite *s = suite_create("invariants");
	TCase *tc;

	tc = tcase_create("I1");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_I1_one_queue);
	tcase_add_test(tc, test_I1_one_queue_foreign_wakes);
	suite_add_tcase(s, tc);

	tc = tcase_create("I2");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_I2_no_lost_wakeup_forever);
	tcase_add_test(tc, test_I2_no_lost_wakeup_poll_and_forever);
	tcase_add_test(tc, test_I2_no_lost_wakeup_timed);
	tcase_add_test(tc, test_I2_no_lost_wakeup_lockstep);
	suite_add_tcase(s, tc);

	tc = tcase_create("I3");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_I3_owner_is_running_worker);
	suite_add_tcase(s, tc);

	tc = tcase_create("I4");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_I4_wake_needs_current_ticket);
	tcase_add_test(tc, test_I4_late_timer_never_wakes_reused_slot);
	tcase_add_test(tc, test_I4_short_timeouts_never_hide_messages);
	suite_add_tcase(s, tc);

	tc = tcase_create("I5");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_I5_stale_pid_simulated);
	tcase_add_test(tc, test_I5_stale_pid_race);
	suite_add_tcase(s, tc);

	tc = tcase_create("I7");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_I7_pair_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("I9");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_I9_clean_stop);
	tcase_add_test(tc, test_I9_clean_stop_held_messages);
	suite_add_tcase(s, tc);

	tc = tcase_create("I10");
	tcase_set_timeout(tc, 60);
	/* TSan's runtime makes system calls of its own, as ASan's does */
	tu_add_test_unless(TU_UNDER_TSAN, "TSan", tc,
			   test_I10_no_syscall_busy_fast_path);
	tu_add_test_unless(TU_UNDER_TSAN, "TSan", tc,
			   test_I10_no_syscall_foreign_send);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(invariants_suite());
}
