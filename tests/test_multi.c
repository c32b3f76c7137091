/* SPDX-License-Identifier: MIT */
/*
 * test_multi.c - the runtime with 2-4 workers (worker.c, runtime.c,
 * park.c): spawn placement over workers, wakes across workers and from
 * foreign threads (I1, I2), pair order across workers (I7), timeouts
 * served to every worker, clean stop with parked workers (I9), and the
 * FUTEX_WAIT fallback of parking.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "testrt.h"

#include "park.h"
#include "reactor.h"

static struct act_config with_workers(int n)
{
	struct act_config cfg;

	act_config_init(&cfg);
	cfg.schedulers = n;
	return cfg;
}

static uint64_t all_dup_enqueues(void)
{
	struct act__rt *rt = act__rt_current;
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++)
		n += atomic_load(&rt->workers[i].rq.dup_enqueues);
	return n;
}

static int count_fds(void)
{
	return count_entries("/proc/self/fd");
}

/* ---- the RFD's case: one parent, 100 children, 4 workers -------------- */

#define SPREAD_KIDS 100

static void spread_child(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	volatile uint64_t x = 88172645463325252ull;
	int32_t where;
	int i;

	for (i = 0; i < 20000; i++) { /* some work */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	where = act_worker();
	act_send(parent, 1, &where, sizeof(where));
}

static int spread_count[4];

static void spread_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;
	int32_t where;
	int i;

	(void)arg;
	ck_assert_int_eq(act_workers(), 4);
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
	ck_assert_uint_eq(all_dup_enqueues(), 0);
}

START_TEST(spread_over_workers)
{
	struct act_config cfg = with_workers(4);
	int i, total = 0;

	memset(spread_count, 0, sizeof(spread_count));
	ck_assert_int_eq(run_main(&cfg, spread_main, NULL), 0);
	/* random placement: a worker gets none of 100 with odds 4 * 0.75^100 */
	for (i = 0; i < 4; i++) {
		ck_assert_int_gt(spread_count[i], 0);
		total += spread_count[i];
	}
	ck_assert_int_eq(total, SPREAD_KIDS);
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

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- ping-pong pairs across workers ------------------------------------ */

#define PAIRS 8
#define ROUNDS 20000

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

	for (i = 0; i < ROUNDS; i++) {
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
	ck_assert_uint_eq(all_dup_enqueues(), 0);
}

START_TEST(pairs_across_workers)
{
	struct act_config cfg = with_workers(2 + _i); /* 2, 3, 4 workers */

	ck_assert_int_eq(run_main(&cfg, pairs_main, NULL), 0);
}
END_TEST

/* FUTEX_WAIT instead of futex_waitv: the suite's fallback switch. */
START_TEST(pairs_futex_wait_fallback)
{
	struct act_config cfg = with_workers(3);

	act__park_force_futex_wait = true;
	ck_assert_int_eq(run_main(&cfg, pairs_main, NULL), 0);
	act__park_force_futex_wait = false;
}
END_TEST

/* ---- fan-in: pair order across workers and foreign threads (I7, I2) ---- */

#define FAN_PROCS 4
#define FAN_THREADS 2
#define FAN_N 20000

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
static void fan_check(uint32_t id, uint32_t seq, uint32_t ids[],
		      int64_t last[], int *n)
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
	ck_assert_uint_eq(all_dup_enqueues(), 0);
}

START_TEST(fanin_order_across_workers)
{
	struct act_config cfg = with_workers(4);
	struct fan_run r;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(run_main(&cfg, fan_main, &r), 0);
}
END_TEST

/* ---- timeouts are served to every worker -------------------------------- */

#define TMO_PROCS 16

static void tmo_proc(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	int64_t t0 = act__now_ns();
	struct act_msg *m = act_receive(5 * 1000000);
	int32_t res[2] = { m == NULL, act__now_ns() - t0 >= 5 * 1000000 };

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
	struct act_config cfg = with_workers(3);

	ck_assert_int_eq(run_main(&cfg, tmo_main, NULL), 0);
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
	struct act_config cfg = with_workers(4);
	int tasks = count_tasks(), fds = count_fds(), n = 100, cycle;

	for (cycle = 0; cycle < 200; cycle++) {
		cfg.schedulers = 2 + cycle % 3;
		ck_assert_int_eq(run_main(&cfg, stop_main, &n), 0);
	}
	ck_assert_int_eq(count_tasks(), tasks); /* no thread left */
	ck_assert_int_eq(count_fds(), fds);     /* no fd left */
}
END_TEST

/* ---- migration between workers (I8) -------------------------------------
 * Under ACTORS_WAKE=waker a woken process moves to the waker's worker, so
 * a process woken alternately from worker 0 and worker 1 resumes on a
 * different thread after most receives. Its pid, act_worker() and the
 * values the compiler keeps in callee-saved registers across the call
 * must all come out right. */

#define MIG_ROUNDS 2000

struct mig_run {
	act_pid bouncer, pinned[2];
	int moves, bad;
};

/* Polls, never waits, so nothing moves it off its worker; reports its
 * worker, then answers each poke by waking the bouncer from here. */
static struct act_msg *mig_poll(void)
{
	struct act_msg *m;

	while (!(m = act_receive(0)))
		act_yield();
	return m;
}

static void mig_poker(void *arg)
{
	struct mig_run *r = arg;
	struct act_msg *m;
	int32_t where = act_worker();

	act_send(r->bouncer, 2, &where, sizeof(where));
	while ((m = mig_poll()) && m->tag == 1) {
		act_msg_free(m);
		where = act_worker();
		act_send(r->bouncer, 3, &where, sizeof(where));
	}
	act_msg_free(m);
}

static act__noinline uint64_t mix(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ull + 1;
}

static void mig_bounce(struct mig_run *r)
{
	uint64_t a = mix(1), b = mix(a), c = mix(b), d = mix(c), e = mix(d);
	act_pid self = act_self();
	struct act_msg *m;
	int32_t from;
	int i, last = act_worker();

	for (i = 0; i < MIG_ROUNDS; i++) {
		act_send(r->pinned[i & 1], 1, NULL, 0);
		m = act_receive(ACT_FOREVER);
		memcpy(&from, m->data, sizeof(from));
		act_msg_free(m);
		/* values held across the switch, possibly on another thread */
		r->bad += a != mix(1) || b != mix(a) || c != mix(b) ||
			  d != mix(c) || e != mix(d);
		r->bad += act_self().id != self.id;
		r->bad += act_worker() !=
			  (int)act__worker_self()->index; /* the thread's */
		r->bad += act__worker_self()->current != self_proc();
		r->moves += act_worker() != last;
		last = act_worker();
	}
}

static void mig_main(void *arg)
{
	struct mig_run *r = arg;
	struct act_msg *m;
	act_pid kid;
	int32_t where;
	int have = 0;

	r->bouncer = act_self();
	while (have != 3) { /* one poker pinned on each worker */
		kid = act_spawn(mig_poker, r);
		m = act_receive(ACT_FOREVER);
		memcpy(&where, m->data, sizeof(where));
		act_msg_free(m);
		if (!(have & (1 << where))) {
			r->pinned[where] = kid;
			have |= 1 << where;
		} else {
			act_send(kid, 9, NULL, 0); /* not needed: let it go */
		}
	}
	mig_bounce(r);
	act_send(r->pinned[0], 9, NULL, 0);
	act_send(r->pinned[1], 9, NULL, 0);
}

START_TEST(migration_keeps_identity_and_registers)
{
	struct act_config cfg = with_workers(2);
	struct mig_run r;

	memset(&r, 0, sizeof(r));
	setenv("ACTORS_WAKE", "waker", 1);
	ck_assert_int_eq(run_main(&cfg, mig_main, &r), 0);
	unsetenv("ACTORS_WAKE");
	ck_assert_int_eq(r.bad, 0);
	/* the pokers are woken by the bouncer, which moves them to its
	 * worker in turn; the bouncer itself moves on most rounds */
	ck_assert_int_gt(r.moves, MIG_ROUNDS / 4);
}
END_TEST

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
	struct act_config cfg = with_workers(2);

	ck_assert_int_eq(run_main(&cfg, drift_main, NULL), 0);
}
END_TEST

/* ---- act_stats and ACTORS_STATS ----------------------------------------- */

static void stats_main(void *arg)
{
	struct act_worker_stats w[4];
	struct act_stats s;
	uint64_t runs = 0, spawns = 0, placed = 0, dup = 0;
	int i, n;

	(void)arg;
	pairs_main(NULL); /* 8 pingers and 8 partners over 3 workers */
	n = act_stats(&s, w, 4);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(s.workers, 3);
	for (i = 0; i < n; i++) {
		runs += w[i].runs;
		spawns += w[i].spawns;
		placed += w[i].placed;
		dup += w[i].dup_enqueues;
	}
	ck_assert_uint_eq(spawns, 1 + 2 * PAIRS); /* main included */
	ck_assert_uint_le(placed, spawns);
	ck_assert_uint_ge(runs, 1 + 2 * PAIRS); /* each ran at least once */
	ck_assert_uint_eq(dup, 0);
	ck_assert_uint_ge(s.procs_peak, 1 + PAIRS);
	ck_assert_uint_ge(s.procs_alive, 1); /* this one */
	ck_assert_int_eq(act_stats(NULL, NULL, 0), 3);
	ck_assert_int_eq(act_stats(NULL, NULL, 2), -EINVAL);
	ck_assert_int_eq(act_stats(NULL, w, -1), -EINVAL);
}

START_TEST(stats_counts)
{
	struct act_config cfg = with_workers(3);

	ck_assert_int_eq(act_stats(NULL, NULL, 0), -ESRCH);
	ck_assert_int_eq(run_main(&cfg, stats_main, NULL), 0);
}
END_TEST

static void stats_print_child(void *arg)
{
	struct act_config cfg = with_workers(2);

	setenv("ACTORS_STATS", (const char *)arg, 1);
	_exit(-act_main(&cfg, spread_main_2, NULL));
}

START_TEST(stats_table_at_exit)
{
	struct tu_child c;

	tu_run_child(stats_print_child, "1", &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	ck_assert_ptr_nonnull(strstr(c.err, "actors: 2 workers"));
	ck_assert_ptr_nonnull(strstr(c.err, "futex-wake"));
	ck_assert_int_eq(count_lines(c.err), 4); /* summary, header, 2 */

	tu_run_child(stats_print_child, "0", &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
	ck_assert_str_eq(c.err, "");

	tu_run_child(stats_print_child, "yes", &c);
	ck_assert(WIFEXITED(c.status) && WEXITSTATUS(c.status) == EINVAL);
	ck_assert_ptr_nonnull(strstr(c.err, "ACTORS_STATS=\"yes\""));
}
END_TEST

static Suite *multi_suite(void)
{
	Suite *s = suite_create("multi");
	TCase *tc = tcase_create("workers");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, spread_over_workers);
	tcase_add_loop_test(tc, pairs_across_workers, 0, 3);
	tcase_add_test(tc, pairs_futex_wait_fallback);
	tcase_add_test(tc, fanin_order_across_workers);
	tcase_add_test(tc, timeouts_on_every_worker);
	tcase_add_test(tc, stop_with_parked_workers);
	tcase_add_test(tc, stats_counts);
	tcase_add_test(tc, stats_table_at_exit);
	tcase_add_test(tc, migration_keeps_identity_and_registers);
	tcase_add_test(tc, bad_wake_policy);
	tcase_add_test(tc, slots_return_to_spawner);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(multi_suite());
}
