/* SPDX-License-Identifier: MIT */
/*
 * test_blocking.c - act_blocking (lib/actor/blocking.c): the function
 * runs on a pool thread, never a worker; the caller waits parked while
 * every other process runs (a function that blocks until others have
 * exchanged messages, on one worker too); the pool stays within its cap
 * and grows to it on demand; a process killed during its function dies
 * once the function returns, with the kill's reason to its links and
 * monitors; -EPERM outside a process; the stop waits for a function that
 * still runs and joins every pool thread, idle or not; idle threads exit
 * and the pool grows again. Each case at 1, 2 and 4 workers.
 *
 * Nothing here depends on timing: a function waits on a pipe or a flag
 * that another process sets after it did its part, and a wait for a
 * state is bounded only against a hang (tu_wait_step).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testrt.h"

#include "actor/blocking.h"
#include "proc/ioword.h"

static const int worker_counts[] = { 1, 2, 4 };
#define NCOUNTS 3

static struct act_config config(int i, uint32_t cap)
{
	struct act_config cfg = tu_with_workers(worker_counts[i]);

	cfg.blocking_threads = cap;
	return cfg;
}

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A short sleep inside a pool function, while it polls a flag. */
static void nap(void)
{
	struct timespec ts = { 0, 100000 };

	nanosleep(&ts, NULL);
}

/* ---- off the workers ----------------------------------------------------- */

struct where {
	pid_t caller_tid, fn_tid;
	pthread_t main_thread, fn_thread;
	bool fn_on_worker; /* the thread had a worker */
	act_pid fn_self;
	int fn_worker;
	int ran;
};

static void where_fn(void *arg)
{
	struct where *w = arg;

	w->fn_tid = tid();
	w->fn_thread = pthread_self();
	w->fn_on_worker = act__tls_worker_self() != NULL;
	w->fn_self = act_self();
	w->fn_worker = act_worker();
	w->ran++;
}

static void off_workers_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	struct where *w = arg;
	uint32_t i, k;

	for (k = 0; k < 20; k++) {
		w->caller_tid = tid();
		ck_assert_int_eq(act_blocking(where_fn, w), 0);
		ck_assert_int_eq(w->ran, (int)k + 1); /* fn's write seen */
		ck_assert_int_ne(w->fn_tid, w->caller_tid);
		ck_assert(!w->fn_on_worker);
		ck_assert(act_pid_eq(w->fn_self, ACT_PID_NONE));
		ck_assert_int_eq(w->fn_worker, -1);
		/* worker 0 is act_main's caller; the others' threads */
		ck_assert(!pthread_equal(w->fn_thread, w->main_thread));
		for (i = 1; i < rt->nworkers; i++)
			ck_assert(!pthread_equal(w->fn_thread,
						 rt->workers[i].thread));
	}
}

START_TEST(runs_off_the_workers)
{
	struct act_config cfg = config(_i, 2);
	struct where w = { .main_thread = pthread_self() };

	ck_assert_int_eq(tu_run_main(&cfg, off_workers_main, &w), 0);
	ck_assert_int_eq(w.ran, 20);
}
END_TEST

/* ---- the others run meanwhile ------------------------------------------- */

#define ROUNDS 1000
#define MAILED 50

enum { T_PING = 1, T_PONG, T_MAIL, T_DONE, T_GO };

struct others {
	int pipe[2];
	act_pid blocker, main;
	_Atomic int fn_started, fn_done;
	int got_byte;
};

/* Blocks in read(2) until the pingers are done: on a worker, with one
 * worker, nobody would ever write. */
static void read_gate(void *arg)
{
	struct others *o = arg;
	char c = 0;

	atomic_store(&o->fn_started, 1);
	ck_assert_int_eq(read(o->pipe[0], &c, 1), 1);
	o->got_byte = c;
	atomic_store(&o->fn_done, 1);
}

static void blocker(void *arg)
{
	struct others *o = arg;
	struct act_msg *m;
	int i;

	ck_assert_int_eq(act_blocking(read_gate, o), 0);
	ck_assert_int_eq(o->got_byte, 'x');
	/* mail that came during the wait is all there, in order (I7) */
	for (i = 0; i < MAILED; i++) {
		m = act_receive(0);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, T_MAIL);
		ck_assert_int_eq(*(int *)m->data, i);
		act_msg_free(m);
	}
	ck_assert_ptr_null(act_receive(0));
	act_send(o->main, T_DONE, NULL, 0);
}

static void ponger(void *arg)
{
	struct act_msg *m;

	(void)arg;
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m->tag != T_PING) {
			act_msg_free(m);
			return;
		}
		act_send(m->from, T_PONG, NULL, 0);
		act_msg_free(m);
	}
}

static void pinger(void *arg)
{
	struct others *o = arg;
	act_pid pong = tu_spawn(ponger, NULL);
	struct act_msg *m;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if (i < MAILED)
			act_send(o->blocker, T_MAIL, &i, sizeof(i));
		act_send(pong, T_PING, NULL, 0);
		m = act_receive(ACT_FOREVER);
		ck_assert_uint_eq(m->tag, T_PONG);
		act_msg_free(m);
		/* the blocker's function still waits for the gate */
		ck_assert_int_eq(atomic_load(&o->fn_done), 0);
	}
	act_send(pong, T_DONE, NULL, 0);
	ck_assert_int_eq(write(o->pipe[1], "x", 1), 1);
}

static void others_main(void *arg)
{
	struct others *o = arg;
	struct act_msg *m;
	int64_t deadline = 0;
	int i;

	o->main = act_self();
	o->blocker = tu_spawn(blocker, o);
	/* the function has begun: the ping-pong runs while it blocks */
	for (i = 0; !atomic_load(&o->fn_started); i++)
		ck_assert(tu_wait_step(&deadline, i));
	ck_assert(tu_wait_iowait(o->blocker));
	tu_spawn(pinger, o);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, T_DONE);
	act_msg_free(m);
}

START_TEST(others_run_while_it_blocks)
{
	struct act_config cfg = config(_i, 1);
	struct others o = { .got_byte = 0 };

	ck_assert_int_eq(pipe(o.pipe), 0);
	ck_assert_int_eq(tu_run_main(&cfg, others_main, &o), 0);
	close(o.pipe[0]);
	close(o.pipe[1]);
}
END_TEST

/* ---- the cap ------------------------------------------------------------- */

#define CAP 3
#define CALLERS (TU_UNDER_TSAN ? 24 : 60)

struct capped {
	_Atomic int cur, max, done;
	_Atomic int release;
	act_pid main;
};

/* Holds until released, counting how many run at once. */
static void held_fn(void *arg)
{
	struct capped *c = arg;
	int n = atomic_fetch_add(&c->cur, 1) + 1, m = atomic_load(&c->max);

	while (n > m && !atomic_compare_exchange_weak(&c->max, &m, n))
		;
	while (!atomic_load(&c->release))
		nap();
	atomic_fetch_sub(&c->cur, 1);
}

static void capped_caller(void *arg)
{
	struct capped *c = arg;

	ck_assert_int_eq(act_blocking(held_fn, c), 0);
	atomic_fetch_add(&c->done, 1);
	act_send(c->main, T_DONE, NULL, 0);
}

static void cap_main(void *arg)
{
	struct capped *c = arg;
	struct act__blocking_counts n;
	int64_t deadline = 0;
	int i;

	c->main = act_self();
	for (i = 0; i < CALLERS; i++)
		tu_spawn(capped_caller, c);
	/* the pool grows to its cap on demand, and no further */
	for (i = 0; atomic_load(&c->max) < CAP; i++)
		ck_assert(tu_wait_step(&deadline, i));
	act__blocking_counts(&n);
	ck_assert_uint_eq(n.threads, CAP);
	ck_assert_int_eq(atomic_load(&c->done), 0);
	atomic_store(&c->release, 1);
	for (i = 0; i < CALLERS; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	ck_assert_int_eq(atomic_load(&c->done), CALLERS);
	ck_assert_int_eq(atomic_load(&c->max), CAP);
	act__blocking_counts(&n);
	ck_assert_uint_eq(n.peak, CAP);
	ck_assert_uint_eq(n.calls, CALLERS);
}

START_TEST(pool_never_exceeds_its_cap)
{
	struct act_config cfg = config(_i, CAP);
	struct capped c = { .cur = 0 };

	ck_assert_int_eq(tu_run_main(&cfg, cap_main, &c), 0);
}
END_TEST

/* ---- killed during its function ------------------------------------------- */

struct killed {
	_Atomic int started, release, finished;
	_Atomic int after; /* the victim ran past act_blocking */
};

static void gate_fn(void *arg)
{
	struct killed *k = arg;

	atomic_store(&k->started, 1);
	while (!atomic_load(&k->release))
		nap();
	atomic_store(&k->finished, 1);
}

static void victim(void *arg)
{
	struct killed *k = arg;

	act_blocking(gate_fn, k);
	atomic_store(&k->after, 1);
}

static void killed_main(void *arg)
{
	struct killed *k = arg;
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK |
					     ACT_SPAWN_MONITOR };
	struct act_exit_info *info;
	struct act__proc *p;
	struct act_msg *m;
	uint64_t ref = 0;
	int64_t deadline = 0;
	bool exit_seen = false, down_seen = false;
	act_pid v;
	int i;

	act_trap_exit(true);
	o.monitor_ref = &ref;
	v = act_spawn_opt(victim, k, &o);
	ck_assert(!act_pid_eq(v, ACT_PID_NONE));
	for (i = 0; !atomic_load(&k->started); i++)
		ck_assert(tu_wait_step(&deadline, i));
	ck_assert(tu_wait_iowait(v));
	ck_assert_int_eq(act_kill(v, 77), 0);
	/* the kill woke it, it saw the kill and waits on for the function:
	 * alive, not past the call */
	for (i = 0;; i++) {
		p = tu_lookup(v);
		ck_assert_ptr_nonnull(p);
		if (atomic_load(&p->io_word) & ACT_IO_CANCEL_REQ)
			break;
		ck_assert(tu_wait_step(&deadline, i));
	}
	ck_assert(tu_wait_iowait(v));
	ck_assert_ptr_null(act_receive(0)); /* no EXIT, no DOWN yet */
	ck_assert_int_eq(atomic_load(&k->finished), 0);
	atomic_store(&k->release, 1);
	while (!exit_seen || !down_seen) {
		m = act_receive(ACT_FOREVER);
		ck_assert(m->tag == ACT_TAG_EXIT || m->tag == ACT_TAG_DOWN);
		info = m->data;
		ck_assert(act_pid_eq(info->who, v));
		ck_assert_int_eq(info->reason, 77);
		if (m->tag == ACT_TAG_DOWN) {
			ck_assert_uint_eq(info->ref, ref);
			down_seen = true;
		} else {
			exit_seen = true;
		}
		act_msg_free(m);
	}
	ck_assert_int_eq(atomic_load(&k->finished), 1);
	ck_assert_int_eq(atomic_load(&k->after), 0);
	ck_assert(tu_wait_gone(v));
}

START_TEST(killed_dies_when_the_function_returns)
{
	struct act_config cfg = config(_i, 2);
	struct killed k = { .started = 0 };

	ck_assert_int_eq(tu_run_main(&cfg, killed_main, &k), 0);
}
END_TEST

/* ---- outside a process ----------------------------------------------------- */

static void nothing(void *arg)
{
	(void)arg;
}

static void *foreign_call(void *arg)
{
	*(int *)arg = act_blocking(nothing, NULL);
	return NULL;
}

/* From inside a pool function: a plain thread, no process. */
static void nested(void *arg)
{
	*(int *)arg = act_blocking(nothing, NULL);
}

static void eperm_main(void *arg)
{
	pthread_t t;
	int rc = 0;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, foreign_call, &rc), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(rc, -EPERM);
	rc = 0;
	ck_assert_int_eq(act_blocking(nested, &rc), 0);
	ck_assert_int_eq(rc, -EPERM);
	ck_assert_int_eq(act_blocking(NULL, NULL), -EINVAL);
}

START_TEST(eperm_outside_a_process)
{
	struct act_config cfg = config(_i, 2);

	ck_assert_int_eq(act_blocking(nothing, NULL), -EPERM);
	ck_assert_int_eq(tu_run_main(&cfg, eperm_main, NULL), 0);
	ck_assert_int_eq(act_blocking(nothing, NULL), -EPERM);
}
END_TEST

/* ---- the stop ------------------------------------------------------------- */

#define STOP_CAP 4

struct stopping {
	struct capped held; /* STOP_CAP at once, then released: idle */
	_Atomic int tail_started, tail_done;
};

/* Runs until the runtime stops: act_main must wait for it. */
static void until_stop(void *arg)
{
	struct stopping *s = arg;

	atomic_store(&s->tail_started, 1);
	while (!atomic_load(&act__rt_current->stop))
		nap();
	atomic_store(&s->tail_done, 1);
}

static void tail_caller(void *arg)
{
	act_blocking(until_stop, arg);
	ck_abort_msg("the runtime stopped: the process never runs again");
}

static void stop_main(void *arg)
{
	struct stopping *s = arg;
	struct act__blocking_counts n;
	int64_t deadline = 0;
	int i;

	s->held.main = act_self();
	for (i = 0; i < STOP_CAP; i++)
		tu_spawn(capped_caller, &s->held);
	for (i = 0; atomic_load(&s->held.max) < STOP_CAP; i++)
		ck_assert(tu_wait_step(&deadline, i));
	atomic_store(&s->held.release, 1);
	for (i = 0; i < STOP_CAP; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	act__blocking_counts(&n);
	ck_assert_uint_eq(n.threads, STOP_CAP); /* idle now, not gone */
	/* and one function still runs when the main process exits */
	tu_spawn(tail_caller, s);
	deadline = 0;
	for (i = 0; !atomic_load(&s->tail_started); i++)
		ck_assert(tu_wait_step(&deadline, i));
}

START_TEST(stop_joins_the_pool)
{
	struct act_config cfg = config(_i, STOP_CAP);
	struct stopping s = { .tail_started = 0 };

	/* under TSan: its own threads counted first, none running */
	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_int_eq(tu_run_main(&cfg, stop_main, &s), 0); /* no leaks */
	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_int_eq(atomic_load(&s.tail_done), 1);
}
END_TEST

/* ---- idle threads exit ------------------------------------------------------ */

static void idle_main(void *arg)
{
	struct act__blocking_counts n;
	int64_t deadline = 0;
	int i, round, ran = 0;

	(void)arg;
	for (round = 0; round < 3; round++) {
		ck_assert_int_eq(act_blocking(where_fn, &(struct where){ 0 }),
				 0);
		ran++;
		act__blocking_counts(&n);
		ck_assert_uint_eq(n.calls, (uint64_t)ran);
		/* idle past its time, the thread exits; a call starts one */
		deadline = 0;
		for (i = 0;; i++) {
			act__blocking_counts(&n);
			if (!n.threads)
				break;
			ck_assert(tu_wait_step(&deadline, i));
		}
	}
	ck_assert_uint_eq(n.peak, 1);
}

START_TEST(idle_threads_exit)
{
	struct act_config cfg = config(_i, 2);

	act__blocking_idle_ns = 1000000; /* 1 ms: Check forks each test */
	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_int_eq(tu_run_main(&cfg, idle_main, NULL), 0);
	ck_assert_int_eq(tu_count_tasks(), 1);
}
END_TEST

/* ---- many callers ------------------------------------------------------------ */

#define MANY (TU_UNDER_TSAN ? 100 : 500)

struct many {
	_Atomic int sum;
	act_pid main;
};

static void add_fn(void *arg)
{
	atomic_fetch_add((_Atomic int *)arg, 1);
}

static void many_caller(void *arg)
{
	struct many *m = arg;
	int k;

	for (k = 0; k < 4; k++)
		ck_assert_int_eq(act_blocking(add_fn, &m->sum), 0);
	act_send(m->main, T_DONE, NULL, 0);
}

static void many_main(void *arg)
{
	struct many *m = arg;
	int i;

	m->main = act_self();
	for (i = 0; i < MANY; i++)
		tu_spawn(many_caller, m);
	for (i = 0; i < MANY; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	ck_assert_int_eq(atomic_load(&m->sum), 4 * MANY);
}

START_TEST(many_callers)
{
	struct act_config cfg = config(_i, 4);
	struct many m = { .sum = 0 };

	ck_assert_int_eq(tu_run_main(&cfg, many_main, &m), 0);
}
END_TEST

static Suite *blocking_suite(void)
{
	Suite *s = suite_create("blocking");
	TCase *tc = tcase_create("blocking");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, runs_off_the_workers, 0, NCOUNTS);
	tcase_add_loop_test(tc, others_run_while_it_blocks, 0, NCOUNTS);
	tcase_add_loop_test(tc, pool_never_exceeds_its_cap, 0, NCOUNTS);
	tcase_add_loop_test(tc, killed_dies_when_the_function_returns, 0,
			    NCOUNTS);
	tcase_add_loop_test(tc, eperm_outside_a_process, 0, NCOUNTS);
	tcase_add_loop_test(tc, stop_joins_the_pool, 0, NCOUNTS);
	tcase_add_loop_test(tc, idle_threads_exit, 0, NCOUNTS);
	tcase_add_loop_test(tc, many_callers, 0, NCOUNTS);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(blocking_suite());
}
