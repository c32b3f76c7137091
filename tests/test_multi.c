/* SPDX-License-Identifier: MIT */
/*
 * test_multi.c - the runtime with 2-4 workers (worker.c, runtime.c,
 * park.c): a spawn burst spread over every worker, work stolen from a
 * worker kept busy, wakes across workers and from foreign threads (I1,
 * I2), pair order under many senders across workers (I7), timeouts
 * served to every worker, clean stop with parked processes and with
 * workers asleep (I9), the FUTEX_WAIT fallback of parking, the counters
 * of act_stats, the idle spin (act_config.spin_us, ACTORS_SPIN_US) and
 * the default worker count.
 *
 * 4 workers time-share this machine's cores, so nothing here asserts a
 * duration: where a check needs a worker to have done something (slept,
 * run a child) it waits for it, bounded, or builds it in.
 */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "testrt.h"

#include "base/park.h"
#include "reactor/reactor.h"

static int count_fds(void)
{
	return tu_count_entries("/proc/self/fd");
}

/* ---- the RFD's case: one parent, 100 children, 4 workers --------------
 * Each child works about 0.5 ms (50 ms in all), so that while the parent's
 * worker runs its share, the others, time-sharing the cores, get to run
 * some too: by placement on an idle worker or by stealing. On a loaded
 * machine a worker's thread may get no CPU in those 50 ms: the parent
 * then spawns another 100, until each worker has run some (at most 50
 * rounds): that the work spreads is the check, not how fast. */

#define SPREAD_KIDS 100
#define SPREAD_WORK 250000 /* xorshift steps: ~2 ns each */

static void spread_child(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	volatile uint64_t x = 88172645463325252ull;
	int32_t where;
	int i;

	for (i = 0; i < SPREAD_WORK; i++) { /* some work */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	where = act_worker();
	act_send(parent, 1, &where, sizeof(where));
}

static int spread_count[4], spread_rounds;

static bool spread_everywhere(void)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!spread_count[i])
			return false;
	return true;
}

static void spread_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;
	int32_t where;
	int i;

	(void)arg;
	ck_assert_int_eq(act_workers(), 4);
	for (spread_rounds = 0; spread_rounds < 50 && !spread_everywhere();
	     spread_rounds++) {
		for (i = 0; i < SPREAD_KIDS; i++)
			ck_assert_uint_ne(act_spawn(spread_child, &self).id, 0);
		for (i = 0; i < SPREAD_KIDS; i++) {
			m = act_receive(ACT_FOREVER);
			ck_assert_ptr_nonnull(m);
			memcpy(&where, m->data, sizeof(where));
			ck_assert_int_ge(where, 0);
			ck_assert_int_lt(where, 4);
			spread_count[where]++;
			act_msg_free(m);
		}
	}
	ck_assert_uint_eq(tu_dup_enqueues(), 0);
}

START_TEST(spread_over_workers)
{
	struct act_config cfg = tu_with_workers(4);
	int i, total = 0;

	memset(spread_count, 0, sizeof(spread_count));
	ck_assert_int_eq(tu_run_main(&cfg, spread_main, NULL), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_msg(spread_count[i] > 0,
			      "worker %d ran none of %d children", i,
			      spread_rounds * SPREAD_KIDS);
		total += spread_count[i];
	}
	ck_assert_int_eq(total, spread_rounds * SPREAD_KIDS);
}
END_TEST

/* ---- steals: the children of a busy worker run elsewhere ---------------
 * Sleepers park on every worker (each reports where: a fresh turn cannot
 * run out of budget at its one send, so it parks where it reported). A
 * thread then wakes one of them, S, to spin without runtime calls on
 * whatever worker Z it lands on, and, once S spins, wakes every sleeper
 * parked on Z. A wake goes to the process's last worker, Z, from a
 * foreign thread into Z's `in`; Z is busy, so only a steal can run them.
 * S spins until all of them ran (bounded: a lost wakeup or a steal that
 * never comes fails the test, it does not hang it), so every one ran on
 * another worker, and the steals account for each. */

#define BUSY_WORKERS 4
#define BUSY_MIN 8 /* sleepers parked on each worker, at least */
#define BUSY_BATCH 16
/* sleepers spawned until each worker has BUSY_MIN: a worker whose thread
 * gets no CPU for a while (a loaded machine) takes more rounds */
#define BUSY_MAX_SLEEPERS 16384
#define BUSY_CAP_NS (20 * 1000000000LL) /* the spin's bound */

enum { BT_PARKED = 1, BT_SPIN, BT_GO, BT_RAN, BT_SPUN, BT_QUIT };

struct busy_run {
	act_pid main;
	act_pid pid[BUSY_MAX_SLEEPERS];
	int32_t parked_on[BUSY_MAX_SLEEPERS];
	int n;			/* sleepers */
	int spinner;		/* S: its index */
	atomic_int spin_worker; /* Z, once S spins; -1 before */
	atomic_int target;	/* sleepers woken on Z; INT_MAX before */
	atomic_int done;	/* of those, how many ran */
	atomic_int driver_failed;
	int32_t spun[3];   /* S: same worker, all done, spun at all */
	int ran, ran_on_z; /* BT_RAN reports */
	uint64_t stolen_before, stolen_after, steals_after;
};

static void busy_spin(struct busy_run *r)
{
	int32_t z = act_worker();
	int64_t end = act__clock_now() + BUSY_CAP_NS;

	atomic_store(&r->spin_worker, z);
	/* no runtime call from here on: worker z runs nothing else */
	while (atomic_load(&r->done) < atomic_load(&r->target) &&
	       act__clock_now() < end)
		act__spin_relax();
	r->spun[0] = act_worker() == z;
	r->spun[1] = atomic_load(&r->done) >= atomic_load(&r->target);
	r->spun[2] = 1;
	act_send(r->main, BT_SPUN, NULL, 0);
}

static void busy_sleeper(void *arg)
{
	struct busy_run *r = arg;
	struct act_msg *m;
	int32_t where = act_worker();

	act_send(r->main, BT_PARKED, &where, sizeof(where));
	m = act_receive(ACT_FOREVER);
	if (m->tag == BT_SPIN) {
		busy_spin(r);
	} else if (m->tag == BT_GO) {
		where = act_worker();
		atomic_fetch_add(&r->done, 1);
		act_send(r->main, BT_RAN, &where, sizeof(where));
	}
	act_msg_free(m);
}

/* A foreign thread: wake S, wait until it spins, wake Z's sleepers. */
static void *busy_driver(void *arg)
{
	struct busy_run *r = arg;
	int i, z, n = 0;
	long spins;

	if (act_send(r->pid[r->spinner], BT_SPIN, NULL, 0))
		goto fail;
	for (spins = 0; (z = atomic_load(&r->spin_worker)) < 0; spins++) {
		if (spins > 100000000L)
			goto fail;
		sched_yield();
	}
	for (i = 0; i < r->n; i++)
		n += i != r->spinner && r->parked_on[i] == z;
	atomic_store(&r->target, n);
	for (i = 0; i < r->n; i++)
		if (i != r->spinner && r->parked_on[i] == z &&
		    act_send(r->pid[i], BT_GO, NULL, 0))
			goto fail;
	return NULL;
fail:
	atomic_store(&r->driver_failed, 1);
	atomic_store(&r->target, 0); /* let S stop */
	return NULL;
}

static void busy_stats(uint64_t *stolen, uint64_t *steals)
{
	struct act_worker_stats w[BUSY_WORKERS];
	int i, n = act_stats(NULL, w, BUSY_WORKERS);

	ck_assert_int_eq(n, BUSY_WORKERS);
	*stolen = *steals = 0;
	for (i = 0; i < n; i++) {
		*stolen += w[i].stolen;
		*steals += w[i].steals;
	}
}

/* Spawn sleepers until each worker has BUSY_MIN of them parked. */
static void busy_park_sleepers(struct busy_run *r)
{
	int count[BUSY_WORKERS] = { 0 }, i, k, enough = 0;
	struct act_msg *m;
	int32_t where;

	while (!enough) {
		ck_assert_int_le(r->n + BUSY_BATCH, BUSY_MAX_SLEEPERS);
		for (i = 0; i < BUSY_BATCH; i++) {
			r->pid[r->n + i] = act_spawn(busy_sleeper, r);
			ck_assert_uint_ne(r->pid[r->n + i].id, 0);
		}
		for (i = 0; i < BUSY_BATCH; i++) {
			m = act_receive(ACT_FOREVER);
			ck_assert_uint_eq(m->tag, BT_PARKED);
			memcpy(&where, m->data, sizeof(where));
			ck_assert_int_ge(where, 0);
			ck_assert_int_lt(where, BUSY_WORKERS);
			for (k = 0; k < BUSY_BATCH; k++)
				if (r->pid[r->n + k].id == m->from.id)
					r->parked_on[r->n + k] = where;
			count[where]++;
			act_msg_free(m);
		}
		r->n += BUSY_BATCH;
		for (enough = 1, k = 0; k < BUSY_WORKERS; k++)
			enough &= count[k] >= BUSY_MIN;
	}
}

static void busy_main(void *arg)
{
	struct busy_run *r = arg;
	struct act_msg *m;
	uint64_t steals_before;
	pthread_t t;
	int32_t where;
	int i, got_spun = 0;

	r->main = act_self();
	busy_park_sleepers(r);
	busy_stats(&r->stolen_before, &steals_before);
	r->spinner = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, busy_driver, r), 0);
	/* the reports of Z's sleepers, and S's when it stops */
	while (!got_spun || r->ran < atomic_load(&r->target)) {
		m = act_receive(ACT_FOREVER);
		if (m->tag == BT_SPUN) {
			got_spun = 1;
		} else {
			ck_assert_uint_eq(m->tag, BT_RAN);
			memcpy(&where, m->data, sizeof(where));
			r->ran++;
			r->ran_on_z += where == atomic_load(&r->spin_worker);
		}
		act_msg_free(m);
	}
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	busy_stats(&r->stolen_after, &r->steals_after);
	for (i = 0; i < r->n; i++)
		if (i != r->spinner &&
		    r->parked_on[i] != atomic_load(&r->spin_worker))
			act_send(r->pid[i], BT_QUIT, NULL, 0);
	ck_assert_uint_eq(tu_dup_enqueues(), 0);
}

START_TEST(steals_from_busy_worker)
{
	struct act_config cfg = tu_with_workers(BUSY_WORKERS);
	static struct busy_run r;

	/* hundreds of sleepers report to main at once: with backpressure,
	 * one muted in its report is released onto main's worker, and so
	 * parks elsewhere than the worker it reported (lib/sched/backpressure.h) */
	setenv("ACTORS_BACKPRESSURE", "off", 1);
	memset(&r, 0, sizeof(r));
	atomic_store(&r.spin_worker, -1);
	atomic_store(&r.target, INT_MAX);
	ck_assert_int_eq(tu_run_main(&cfg, busy_main, &r), 0);
	ck_assert_int_eq(atomic_load(&r.driver_failed), 0);
	ck_assert_int_eq(r.spun[2], 1);
	ck_assert_int_eq(r.spun[0], 1); /* S never left Z */
	ck_assert_msg(r.spun[1],
		      "%d of %d sleepers woken on busy worker %d "
		      "ran in %lld s: no steal took the rest",
		      atomic_load(&r.done), atomic_load(&r.target),
		      atomic_load(&r.spin_worker),
		      (long long)(BUSY_CAP_NS / 1000000000LL));
	ck_assert_int_ge(atomic_load(&r.target), BUSY_MIN - 1);
	ck_assert_int_eq(r.ran, atomic_load(&r.target));
	ck_assert_int_eq(r.ran_on_z, 0); /* all ran elsewhere */
	ck_assert_uint_gt(r.steals_after, 0);
	/* each left Z's queue in a steal */
	ck_assert_uint_ge(r.stolen_after - r.stolen_before, (uint64_t)r.ran);
}
END_TEST

/* Two children, one message each: a short run for the stats table. */
static void spread_main_2(void *arg)
{
	act_pid self = act_self();
	int i;

	(void)arg;
	for (i = 0; i < 2; i++)
		act_spawn(spread_child, &self);
	for (i = 0; i < 2; i++)
		act_msg_free(act_receive(ACT_FOREVER));
}

/* ---- ping-pong pairs across workers ------------------------------------ */

#define PAIRS 8
#define ROUNDS 20000

static int pair_rounds = ROUNDS; /* a test may ask for fewer */

static void echo_partner(void *arg)
{
	struct act_msg *m;
	uint64_t v;

	(void)arg;
	while ((m = act_receive(ACT_FOREVER)) && m->tag == 1) {
		memcpy(&v, m->data, sizeof(v));
		v++;
		ck_assert_int_eq(act_send(m->from, 2, &v, sizeof(v)), 0);
		act_msg_free(m);
	}
	act_msg_free(m);
}

static void pinger(void *arg)
{
	act_pid parent = *(act_pid *)arg, peer = act_spawn(echo_partner, NULL);
	struct act_msg *m;
	uint64_t v = 0;
	int i, ok = 1;

	for (i = 0; i < pair_rounds; i++) {
		ck_assert_int_eq(act_send(peer, 1, &v, sizeof(v)), 0);
		m = act_receive(ACT_FOREVER);
		ok &= m->tag == 2 && *(uint64_t *)m->data == v + 1;
		v += 2;
		act_msg_free(m);
	}
	act_send(peer, 3, NULL, 0);
	act_send(parent, 9, &ok, sizeof(ok));
}

static void pairs_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;
	int i, ok;

	(void)arg;
	for (i = 0; i < PAIRS; i++)
		act_spawn(pinger, &self);
	for (i = 0; i < PAIRS; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(&ok, m->data, sizeof(ok));
		ck_assert_int_eq(ok, 1);
		act_msg_free(m);
	}
	ck_assert_uint_eq(tu_dup_enqueues(), 0);
}

START_TEST(pairs_across_workers)
{
	struct act_config cfg = tu_with_workers(2 + _i); /* 2, 3, 4 workers */

	ck_assert_int_eq(tu_run_main(&cfg, pairs_main, NULL), 0);
}
END_TEST

/* FUTEX_WAIT instead of futex_waitv: the suite's fallback switch. */
START_TEST(pairs_futex_wait_fallback)
{
	struct act_config cfg = tu_with_workers(3);

	act__park_force_futex_wait = true;
	ck_assert_int_eq(tu_run_main(&cfg, pairs_main, NULL), 0);
	act__park_force_futex_wait = false;
}
END_TEST

/* ---- fan-in: pair order across workers and foreign threads (I7, I2) ----
 * Many senders, processes and threads, into one receiver, at 2, 3 and 4
 * workers: a sender that runs out of budget yields and may be stolen, and
 * the receiver moves to its wakers' workers, so the pairs cross workers
 * mid-stream; each pair's messages still arrive in order, none lost. */

#define FAN_PROCS 8
#define FAN_THREADS 2
#define FAN_N 10000

struct fan_run {
	act_pid receiver;
	atomic_int ready;
};

static void fan_sender(void *arg)
{
	struct fan_run *r = arg;
	uint32_t v[2];
	int i;

	v[0] = (uint32_t)(act_self().id & 0xffff); /* threads: 0x10000 up */
	for (i = 0; i < FAN_N; i++) {
		v[1] = (uint32_t)i;
		ck_assert_int_eq(act_send(r->receiver, 1, v, sizeof(v)), 0);
	}
}

static void *fan_thread(void *arg)
{
	struct fan_run *r = arg;
	static atomic_uint next_id = 0x10000;
	uint32_t v[2] = { atomic_fetch_add(&next_id, 1), 0 };
	int i;

	for (i = 0; i < FAN_N; i++) {
		v[1] = (uint32_t)i;
		if (act_send(r->receiver, 1, v, sizeof(v)))
			return (void *)1;
	}
	return NULL;
}

/* last[] holds sender id and the last sequence number seen from it. */
static void fan_check(uint32_t id, uint32_t seq, uint32_t ids[], int64_t last[],
		      int *n)
{
	int k;

	for (k = 0; k < *n && ids[k] != id; k++)
		;
	if (k == *n) {
		ck_assert_int_lt(*n, FAN_PROCS + FAN_THREADS);
		ids[k] = id;
		last[k] = -1;
		(*n)++;
	}
	ck_assert_int_eq((int64_t)seq, last[k] + 1); /* in order, none lost */
	last[k] = seq;
}

static void fan_main(void *arg)
{
	struct fan_run *r = arg;
	pthread_t t[FAN_THREADS];
	uint32_t ids[FAN_PROCS + FAN_THREADS], v[2];
	int64_t last[FAN_PROCS + FAN_THREADS];
	struct act_msg *m;
	long got = 0, total = (long)FAN_N * (FAN_PROCS + FAN_THREADS);
	int i, n = 0;

	r->receiver = act_self();
	for (i = 0; i < FAN_PROCS; i++)
		act_spawn(fan_sender, r);
	for (i = 0; i < FAN_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fan_thread, r), 0);
	for (; got < total; got++) {
		m = act_receive(ACT_FOREVER); /* a lost wakeup hangs here */
		memcpy(v, m->data, sizeof(v));
		fan_check(v[0], v[1], ids, last, &n);
		act_msg_free(m);
	}
	for (i = 0; i < FAN_THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(n, FAN_PROCS + FAN_THREADS);
	ck_assert_ptr_null(act_receive(0));
	ck_assert_uint_eq(tu_dup_enqueues(), 0);
}

START_TEST(fanin_order_across_workers)
{
	struct act_config cfg = tu_with_workers(2 + _i); /* 2, 3, 4 workers */
	struct fan_run r;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(tu_run_main(&cfg, fan_main, &r), 0);
}
END_TEST

/* ---- timeouts are served to every worker -------------------------------- */

#define TMO_PROCS 16

static void tmo_proc(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	int64_t t0 = act__clock_now();
	struct act_msg *m = act_receive(5 * 1000000);
	int32_t res[2] = { m == NULL, act__clock_now() - t0 >= 5 * 1000000 };

	act_send(parent, 1, res, sizeof(res));
}

static void tmo_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;
	int32_t res[2];
	int i;

	(void)arg;
	for (i = 0; i < TMO_PROCS; i++)
		act_spawn(tmo_proc, &self);
	for (i = 0; i < TMO_PROCS; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(res, m->data, sizeof(res));
		ck_assert_int_eq(res[0], 1); /* timed out */
		ck_assert_int_eq(res[1], 1); /* not early */
		act_msg_free(m);
	}
}

START_TEST(timeouts_on_every_worker)
{
	struct act_config cfg = tu_with_workers(3);

	ck_assert_int_eq(tu_run_main(&cfg, tmo_main, NULL), 0);
}
END_TEST

/* ---- clean stop with parked workers (I9) ------------------------------- */

static void blocked(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

static void stop_main(void *arg)
{
	int i, n = *(int *)arg;

	for (i = 0; i < n; i++)
		act_spawn(blocked, NULL); /* never get a message */
}

START_TEST(stop_with_parked_workers)
{
	struct act_config cfg = tu_with_workers(4);
	int tasks = tu_count_tasks(), fds = count_fds(), n = 100, cycle;

	/* the 1,000 start/stop cycles, 2 to 4 workers each */
	for (cycle = 0; cycle < 1000; cycle++) {
		cfg.schedulers = 2 + cycle % 3;
		ck_assert_int_eq(tu_run_main(&cfg, stop_main, &n), 0);
	}
	ck_assert_int_eq(tu_count_tasks(), tasks); /* no thread left */
	ck_assert_int_eq(count_fds(), fds);	   /* no fd left */
}
END_TEST

/*
 * The main process exits while every other worker sleeps in the futex:
 * it naps in a timed receive (its worker idles too) until act_stats shows
 * that each worker slept, naps once more, and returns. act_main must wake
 * and join them all: no thread is left, nothing leaks. 2 to 4 workers.
 */
#define NAP_NS (2 * 1000000)
#define NAP_MAX 5000 /* naps before giving up: 10 s */

static void nap_main(void *arg)
{
	struct act_worker_stats w[4];
	int *slept = arg, i, k, n;

	for (i = 0; i < 4; i++)
		ck_assert_uint_ne(act_spawn(blocked, NULL).id, 0);
	for (i = 0; i < NAP_MAX; i++) {
		ck_assert_ptr_null(act_receive(NAP_NS));
		n = act_stats(NULL, w, 4);
		for (*slept = 0, k = 0; k < n; k++)
			*slept += w[k].sleeps > 0;
		if (*slept == n)
			break;
	}
	ck_assert_ptr_null(act_receive(NAP_NS));
}

START_TEST(stop_with_sleeping_workers)
{
	struct act_config cfg;
	int tasks = tu_count_tasks(), fds = count_fds(), cycle, slept;

	for (cycle = 0; cycle < 30; cycle++) {
		cfg = tu_with_workers(2 + cycle % 3);
		slept = 0;
		ck_assert_int_eq(tu_run_main(&cfg, nap_main, &slept), 0);
		ck_assert_int_eq(slept, cfg.schedulers);
		ck_assert_int_eq(tu_count_tasks(), tasks); /* no thread left */
	}
	ck_assert_int_eq(count_fds(), fds);
}
END_TEST

/* Migration between workers (I8) is tests/test_migrate.c, built at -O2
 * and with -flto: pokers there report where they run now, so stealing
 * cannot fool it the way it could a poker assumed to stay put. */

START_TEST(bad_wake_policy)
{
	setenv("ACTORS_WAKE", "nearest", 1);
	ck_assert_int_eq(act_main(NULL, blocked, NULL), -EINVAL);
	unsetenv("ACTORS_WAKE");
}
END_TEST

/* ---- slots and stacks come back to the spawning worker ------------------
 * Regression: a process is reaped where it ran, so slots and stacks piled
 * up on the reaping worker while the spawning one took fresh ones: 100,000
 * spawns in turn on 2 workers left 50,000 slots in use. The caches now
 * spill to a shared list and refill from it. */

#define DRIFT_SPAWNS 20000

static void drift_child(void *arg)
{
	act_send(*(act_pid *)arg, 1, NULL, 0);
}

static void drift_main(void *arg)
{
	act_pid self = act_self();
	struct act_stats s;
	int i;

	(void)arg;
	for (i = 0; i < DRIFT_SPAWNS; i++) {
		ck_assert_uint_ne(act_spawn(drift_child, &self).id, 0);
		act_msg_free(act_receive(ACT_FOREVER)); /* at most 2 alive */
	}
	ck_assert_int_eq(act_stats(&s, NULL, 0), 2);
	/* two caches' worth at most, not one slot per spawn */
	ck_assert_uint_le(s.procs_peak, 2 * ACT_SLOT_CACHE_MAX + 16);
}

START_TEST(slots_return_to_spawner)
{
	struct act_config cfg = tu_with_workers(2);

	ck_assert_int_eq(tu_run_main(&cfg, drift_main, NULL), 0);
}
END_TEST

/* ---- act_stats and ACTORS_STATS ----------------------------------------- */

/* Every counter of b is at least a's: they only grow. */
static void stats_grew(const struct act_worker_stats *a,
		       const struct act_worker_stats *b)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	size_t i;

	for (i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		ck_assert_uint_le(x[i], y[i]);
}

/* the hardware threads of the machine the plan is made for (this one,
 * or the simulated one), read before act_main */
static int stats_ncpus;

static void stats_main(void *arg)
{
	struct act_worker_stats w[4], w2[4];
	struct act_stats s;
	int ncpus = stats_ncpus;
	uint64_t runs = 0, spawns = 0, placed = 0, dup = 0, steals = 0,
		 stolen = 0;
	int i, n;

	(void)arg;
	pairs_main(NULL); /* 8 pingers and 8 partners over 3 workers */
	/* Until they all exited. From then on nothing is queued (this
	 * process runs), no steal can take anything, and no figure is read
	 * between the two counters of one steal. */
	for (i = 0; i < 1000000; i++) {
		ck_assert_int_eq(act_stats(&s, NULL, 0), 3);
		if (s.procs_alive == 1)
			break;
		act_yield();
	}
	ck_assert_uint_eq(s.procs_alive, 1); /* this one */
	n = act_stats(&s, w, 4);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(s.workers, 3);
	for (i = 0; i < n; i++) {
		runs += w[i].runs;
		spawns += w[i].spawns;
		placed += w[i].placed;
		dup += w[i].dup_enqueues;
		steals += w[i].steals;
		stolen += w[i].stolen;
		/* a steal takes 1 to ACT_STEAL_MAX processes */
		ck_assert_uint_ge(w[i].stolen, w[i].steals);
		ck_assert_uint_le(w[i].stolen, w[i].steals * ACT_STEAL_MAX);
		ck_assert_uint_le(w[i].placed, w[i].spawns);
		/* bound by core: each worker has a CPU and a node, unless
		 * there are more workers than CPUs (then nobody is bound);
		 * far steals are a part of its steals */
		if (n > ncpus) {
			ck_assert_int_eq(w[i].cpu, -1);
			ck_assert_int_eq(w[i].node, -1);
		} else {
			ck_assert_int_ge(w[i].cpu, 0);
			ck_assert_int_ge(w[i].node, 0);
		}
		ck_assert_uint_le(w[i].far_steals, w[i].steals);
	}
	ck_assert_uint_eq(spawns, 1 + 2 * PAIRS); /* main included */
	ck_assert_uint_le(placed, spawns);
	ck_assert_uint_ge(runs, 1 + 2 * PAIRS); /* each ran at least once */
	ck_assert_uint_ge(stolen, steals);
	ck_assert_uint_eq(dup, 0);
	/* a second look: no counter went back */
	ck_assert_int_eq(act_stats(NULL, w2, 4), 3);
	for (i = 0; i < n; i++)
		stats_grew(&w[i], &w2[i]);
	ck_assert_uint_ge(s.procs_peak, 1 + PAIRS);
	ck_assert_uint_eq(s.procs_alive, 1);
	ck_assert_int_eq(act_stats(NULL, NULL, 0), 3);
	ck_assert_int_eq(act_stats(NULL, NULL, 2), -EINVAL);
	ck_assert_int_eq(act_stats(NULL, w, -1), -EINVAL);
}

START_TEST(stats_counts)
{
	struct act_config cfg = tu_with_workers(3);

	cfg.bind = ACT_BIND_CORE; /* stats_main checks each worker's CPU */
	stats_ncpus = tu_machine().pus;
	ck_assert_int_eq(act_stats(NULL, NULL, 0), -ESRCH);
	ck_assert_int_eq(tu_run_main(&cfg, stats_main, NULL), 0);
}
END_TEST

/*
 * msg_bytes: the 256 KiB chunks a worker carved envelopes from. 1,000
 * messages of 960 bytes (1 KiB envelopes) sent and not received take at
 * least 1,000 KiB of them; received and freed, the next 1,000 reuse
 * those, so the figure stays. One worker: no other slab carves them.
 */
enum { MB_N = 1000, MB_PAYLOAD = 960, MB_CHUNK = 256 << 10 };

static uint64_t mb_bytes(void)
{
	struct act_worker_stats w;

	ck_assert_int_eq(act_stats(NULL, &w, 1), 1);
	ck_assert_uint_eq(w.msg_bytes % MB_CHUNK, 0);
	return w.msg_bytes;
}

static void mb_flood_self(void)
{
	static char buf[MB_PAYLOAD];
	int i;

	for (i = 0; i < MB_N; i++)
		ck_assert_int_eq(act_send(act_self(), 1, buf, sizeof(buf)), 0);
}

static void mb_main(void *arg)
{
	uint64_t full;
	int i;

	(void)arg;
	mb_flood_self();
	full = mb_bytes();
	ck_assert_uint_ge(full, (uint64_t)MB_N * 1024);
	for (i = 0; i < MB_N; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	ck_assert_uint_eq(mb_bytes(), full);
	mb_flood_self();
	ck_assert_uint_eq(mb_bytes(), full);
	for (i = 0; i < MB_N; i++)
		act_msg_free(act_receive(ACT_FOREVER));
}

START_TEST(stats_msg_bytes)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, mb_main, NULL), 0);
}
END_TEST

static void stats_print_child(void *arg)
{
	struct act_config cfg = tu_with_workers(2);

	setenv("ACTORS_STATS", (const char *)arg, 1);
	_exit(-act_main(&cfg, spread_main_2, NULL));
}

static void nothing_main(void *arg)
{
	(void)arg;
}

static void stats_print_child1(void *arg)
{
	struct act_config cfg = tu_with_workers(1);

	(void)arg;
	setenv("ACTORS_STATS", "1", 1);
	_exit(-act_main(&cfg, nothing_main, NULL));
}

START_TEST(stats_table_at_exit)
{
	struct tu_child c;

	/* one worker, in the singular */
	tu_run_child(stats_print_child1, NULL, &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	ck_assert_msg(strstr(c.err, "actors: 1 worker, "), "%s", c.err);

	tu_run_child(stats_print_child, "1", &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	ck_assert_ptr_nonnull(strstr(c.err, "actors: 2 workers"));
	ck_assert_ptr_nonnull(strstr(c.err, "futex-wake"));
	ck_assert_ptr_nonnull(strstr(c.err, "actors: reactor: "));
	ck_assert_ptr_nonnull(strstr(c.err, "actors: bind core, reactor "));
	ck_assert_ptr_nonnull(strstr(c.err, "far-steals"));
	ck_assert_ptr_nonnull(strstr(c.err, "actors: paths: "));
	/* summary, reactor, placement, paths, header, 2 workers (and on a
	 * 1-CPU machine the plan's note, not counted) */
	tu_drop_lines_with(c.err, TU_FEW_CPUS_NOTE);
	ck_assert_int_eq(tu_str_lines(c.err), 7);

	tu_run_child(stats_print_child, "0", &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	tu_drop_lines_with(c.err, TU_FEW_CPUS_NOTE);
	ck_assert_str_eq(c.err, "");

	tu_run_child(stats_print_child, "yes", &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == EINVAL);
	ck_assert_ptr_nonnull(strstr(c.err, "ACTORS_STATS=\"yes\""));
}
END_TEST

/* ---- the idle spin: act_config.spin_us and ACTORS_SPIN_US --------------- */

static int64_t spin_seen_ns;

/* What the runtime resolved, then a workload across 2 workers that wakes
 * across them all the time: with no spin every wake of an idle worker
 * goes through the futex, and nothing may be lost. */
static void spin_main(void *arg)
{
	(void)arg;
	spin_seen_ns = act__rt_current->spin_ns;
	pair_rounds = 2000;
	pairs_main(NULL);
	fan_main(&(struct fan_run){ 0 });
}

/* Run spin_main on 2 workers with spin_us and ACTORS_SPIN_US=env (NULL:
 * unset); returns act_main's result, spin_seen_ns what was resolved. */
static int spin_run(int spin_us, const char *env)
{
	struct act_config cfg = tu_with_workers(2);

	cfg.spin_us = spin_us;
	if (env)
		setenv("ACTORS_SPIN_US", env, 1);
	else
		unsetenv("ACTORS_SPIN_US");
	spin_seen_ns = -1;
	return tu_run_main(&cfg, spin_main, NULL);
}

START_TEST(spin_none)
{
	ck_assert_int_eq(spin_run(-1, NULL), 0); /* no spinning */
	ck_assert_int_eq(spin_seen_ns, 0);
	ck_assert_int_eq(spin_run(0, "0"), 0); /* the same, by env */
	ck_assert_int_eq(spin_seen_ns, 0);
	ck_assert_int_eq(spin_run(-1, "50"), 0); /* the field wins */
	ck_assert_int_eq(spin_seen_ns, 0);
	unsetenv("ACTORS_SPIN_US");
}
END_TEST

START_TEST(spin_values)
{
	ck_assert_int_eq(spin_run(0, NULL), 0); /* the default: 20 us */
	ck_assert_int_eq(spin_seen_ns, 20000);
	ck_assert_int_eq(spin_run(0, "50"), 0);
	ck_assert_int_eq(spin_seen_ns, 50000);
	ck_assert_int_eq(spin_run(30, "0"), 0); /* the field wins */
	ck_assert_int_eq(spin_seen_ns, 30000);
	ck_assert_int_eq(spin_run(0, "1000000"), 0); /* the most */
	ck_assert_int_eq(spin_seen_ns, 1000000000);
	unsetenv("ACTORS_SPIN_US");
}
END_TEST

/* A bad ACTORS_SPIN_US: act_main refuses, in one line that names it. */
START_TEST(spin_bad_env)
{
	static const char *const bad[] = { "abc", "2000000", "1000001", "-1",
					   "",	  "20us",    " 20" };
	struct act_config cfg = tu_with_workers(2);

	ck_assert_uint_eq(tu_assert_env_refused("ACTORS_SPIN_US", bad,
						TU_N_BAD),
			  TU_N_BAD);
	/* and the field: at most 1,000,000 us */
	unsetenv("ACTORS_SPIN_US");
	cfg.spin_us = 2000000;
	ck_assert_int_eq(act_main(&cfg, blocked, NULL), -EINVAL);
}
END_TEST

/* ---- the default worker count --------------------------------------------
 * No act_config.schedulers, no ACTORS_SCHEDULERS: the usable cores less
 * one (for the reactor), at least one; usable means in the affinity mask
 * (and within the cgroup's quota). */

static void workers_main(void *arg)
{
	*(int *)arg = act_workers();
}

/*
 * In a child: restrict the affinity mask to `*arg` CPUs, each on a core
 * of its own, then check the default worker count. This machine's real
 * topology: a simulated one (ACT_TEST_TOPOLOGY) reads no affinity mask,
 * so the simulation is cleared, which works only if this process had
 * not loaded the machine before the fork (default_schedulers forks
 * first). Exits 0; 2 when the machine has fewer usable cores than
 * asked; 1 with the reason on stderr.
 */
static void restricted_child(void *arg)
{
	int want = *(int *)arg, n = 0, i, got = 0, rc, expect;
	struct act__topo t;
	cpu_set_t less;
	char why[512];
	bool *taken;

	tu_real_machine();
	unsetenv("ACTORS_SCHEDULERS");
	unsetenv("ACTORS_CPUS");
	unsetenv("ACTORS_BIND");
	if (act__topology_load(&t, NULL, NULL, NULL, why, sizeof(why))) {
		fprintf(stderr, "topology: %s\n", why);
		_exit(1);
	}
	if (t.simulated) {
		fprintf(stderr, "the simulated machine was loaded already\n");
		_exit(1);
	}
	taken = calloc((size_t)t.ncores + 1, sizeof(*taken));
	ck_assert_ptr_nonnull(taken);
	CPU_ZERO(&less);
	for (i = 0; i < t.npus && n < want; i++) {
		if (!t.pus[i].usable || taken[t.pus[i].core])
			continue;
		taken[t.pus[i].core] = true;
		CPU_SET(t.pus[i].os, &less);
		n++;
	}
	/* a cgroup quota of fewer CPUs caps the count */
	expect = n;
	if (t.quota > 0 && t.quota < expect)
		expect = (int)t.quota + (t.quota > (int)t.quota);
	expect = expect > 1 ? expect - 1 : 1;
	free(taken);
	act__topology_free(&t);
	if (n < want)
		_exit(2);
	if (sched_setaffinity(0, sizeof(less), &less)) {
		fprintf(stderr, "sched_setaffinity: %s\n", strerror(errno));
		_exit(1);
	}
	rc = act_main(NULL, workers_main, &got);
	if (rc || got != expect) {
		fprintf(stderr,
			"%d CPUs on as many cores: act_main %d, %d "
			"workers, expected %d\n",
			want, rc, got, expect);
		_exit(1);
	}
	_exit(0);
}

START_TEST(default_schedulers)
{
	struct tu_child c;
	int got = 0, k;

	/* one CPU: one worker; two: one, the other is the reactor's; three:
	 * two. In children forked before this process loads the machine. */
	for (k = 1; k <= 3; k++) {
		tu_run_child(restricted_child, &k, &c);
		ck_assert_msg(WIFEXITED(c.status), "status %#x", c.status);
		if (k > 1 && WEXITSTATUS(c.status) == 2)
			break; /* fewer cores than that */
		ck_assert_msg(WEXITSTATUS(c.status) == 0, "status %#x: %s",
			      c.status, c.err);
	}
	/* here, on the machine this runs on (simulated or not), what its
	 * topology gives */
	unsetenv("ACTORS_SCHEDULERS");
	ck_assert_int_eq(tu_run_main(NULL, workers_main, &got), 0);
	ck_assert_int_eq(got, tu_default_workers());
	/* the environment still wins over the default */
	setenv("ACTORS_SCHEDULERS", "3", 1);
	ck_assert_int_eq(tu_run_main(NULL, workers_main, &got), 0);
	ck_assert_int_eq(got, 3);
	unsetenv("ACTORS_SCHEDULERS");
}
END_TEST

static Suite *multi_suite(void)
{
	Suite *s = suite_create("multi");
	TCase *tc = tcase_create("workers");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, spread_over_workers);
	tcase_add_test(tc, steals_from_busy_worker);
	tcase_add_loop_test(tc, pairs_across_workers, 0, 3);
	tcase_add_test(tc, pairs_futex_wait_fallback);
	tcase_add_loop_test(tc, fanin_order_across_workers, 0, 3);
	tcase_add_test(tc, timeouts_on_every_worker);
	tcase_add_test(tc, stop_with_parked_workers);
	tcase_add_test(tc, stop_with_sleeping_workers);
	tcase_add_test(tc, stats_counts);
	tcase_add_test(tc, stats_msg_bytes);
	tcase_add_test(tc, stats_table_at_exit);
	tcase_add_test(tc, bad_wake_policy);
	tcase_add_test(tc, slots_return_to_spawner);
	tcase_add_test(tc, spin_none);
	tcase_add_test(tc, spin_values);
	tcase_add_test(tc, spin_bad_env);
	tcase_add_test(tc, default_schedulers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(multi_suite());
}
