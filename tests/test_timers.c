/* SPDX-License-Identifier: MIT */
/*
 * test_timers.c - the reactor's timer wheel as processes see it: act_sleep
 * (never short, messages kept in order, 0 yields, bad calls refused),
 * many sleepers on 2-4 workers each woken by its own timeout, and timed
 * receives that end early: their cancels reach the reactor without a
 * ring and leave no timer behind.
 *
 * Nothing here asserts how late a timer is (that is bench/ work on a
 * shared machine); only that none is early and none is lost.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testrt.h"

#include "actor/timer.h"
#include "iotest.h"

#include "reactor/reactor.h"

#define SEC_LONG (3600 * 1000 * TU_MS)

static uint64_t ref_gen(act_timer ref)
{
	return ref >> 23;
}

/* ---- act_sleep ---------------------------------------------------------- */

static void sleep_main(void *arg)
{
	int64_t t0 = act__clock_now();

	(void)arg;
	ck_assert_int_eq(act_sleep(20 * TU_MS), 0);
	ck_assert_int_ge(act__clock_now() - t0, 20 * TU_MS); /* never short */
	ck_assert_int_eq(act_sleep(1), 0);
}

START_TEST(sleep_lasts)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, sleep_main, NULL), 0);
}
END_TEST

static void chatter(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint32_t i;

	for (i = 2; i < 7; i++)
		ck_assert_int_eq(act_send(to, i, NULL, 0), 0);
}

/* Messages queued before and during a sleep wait for the next receive,
 * in order; a match taken later still sees them. */
static void keep_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;
	uint32_t i;

	(void)arg;
	ck_assert_int_eq(act_send(self, 0, NULL, 0), 0);
	ck_assert_int_eq(act_send(self, 1, NULL, 0), 0);
	ck_assert(!act_pid_eq(act_spawn(chatter, &self), ACT_PID_NONE));
	ck_assert_int_eq(act_sleep(30 * TU_MS), 0);
	for (i = 0; i < 7; i++) {
		m = act_receive(0);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, i);
		act_msg_free(m);
	}
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(sleep_keeps_messages)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, keep_main, NULL), 0);
}
END_TEST

static bool zero_ran;

static void zero_child(void *arg)
{
	(void)arg;
	zero_ran = true;
}

/* act_sleep(0) yields: on one worker, a runnable child runs first. */
static void zero_main(void *arg)
{
	(void)arg;
	zero_ran = false;
	act_spawn(zero_child, NULL);
	ck_assert_int_eq(act_sleep(0), 0);
	ck_assert(zero_ran);
	ck_assert_int_eq(act_sleep(-1), -EINVAL);
	ck_assert_int_eq(act_sleep(INT64_MIN), -EINVAL);
}

START_TEST(sleep_zero_and_bad)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, zero_main, NULL), 0);
	/* not a process: this thread, with and without a runtime */
	ck_assert_int_eq(act_sleep(TU_MS), -EPERM);
}
END_TEST

/* ---- many sleepers: each wakes by its own timeout, none early ---------- */

#define SLEEPERS (TU_UNDER_TSAN ? 300 : 2000)

struct sleeper {
	act_pid main;
	int64_t ns;
};

static void sleeper(void *arg)
{
	struct sleeper *s = arg;
	int64_t t0 = act__clock_now();
	int rc = act_sleep(s->ns);
	int early = act__clock_now() - t0 < s->ns;

	ck_assert_int_eq(act_send(s->main, rc ? 2 : early ? 1 : 0, NULL, 0), 0);
}

static void sleepers_main(void *arg)
{
	static struct sleeper s[SLEEPERS];
	struct act_stats st;
	uint64_t fired0, x = 88172645463325252ull;
	uint32_t i, bad = 0;

	(void)arg;
	ck_assert_int_ge(act_stats(&st, NULL, 0), 1);
	fired0 = st.timeouts_fired;
	for (i = 0; i < SLEEPERS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s[i] = (struct sleeper){ act_self(),
					 1 + (int64_t)(x % (20 * TU_MS)) };
		ck_assert(!act_pid_eq(act_spawn(sleeper, &s[i]), ACT_PID_NONE));
	}
	for (i = 0; i < SLEEPERS; i++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		bad += m->tag != 0;
		act_msg_free(m);
	}
	ck_assert_uint_eq(bad, 0);
	/* each sleep ended by its own timeout, none by anything else */
	ck_assert_int_ge(act_stats(&st, NULL, 0), 1);
	ck_assert_uint_eq(st.timeouts_fired - fired0, SLEEPERS);
}

START_TEST(many_sleepers)
{
	struct act_config cfg = tu_with_workers(2 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, sleepers_main, NULL), 0);
}
END_TEST

/* ---- timed receives that end early leave nothing on the wheel --------- */

#define EARLY_N (TU_UNDER_TSAN ? 5000 : 100000)

static void echo(void *arg)
{
	struct act_msg *m;

	(void)arg;
	while ((m = act_receive(ACT_FOREVER)) != NULL) {
		int stop = m->tag == 2;

		act_send(m->from, 1, NULL, 0);
		act_msg_free(m);
		if (stop)
			return;
	}
}

static void early_main(void *arg)
{
	struct act__reactor *r = act__rt_current->reactor;
	act_pid e = act_spawn(echo, NULL);
	uint32_t i, missing = 0, held;
	int n;

	(void)arg;
	for (i = 0; i < EARLY_N; i++) {
		struct act_msg *m;

		ck_assert_int_eq(act_send(e, i + 1 == EARLY_N ? 2 : 1, NULL, 0),
				 0);
		/* the reply comes long before 10 s: the timeout is
		 * cancelled, through the queue, without a ring */
		m = act_receive(10000 * TU_MS);
		missing += m == NULL;
		act_msg_free(m);
	}
	ck_assert_uint_eq(missing, 0);
	/* the reactor takes the cancels when it next wakes, which our
	 * 1 ms sleeps make it do: then its wheel holds nothing, long before
	 * the first 10 s deadline */
	for (n = 0; n < 1000 && (atomic_load(&r->n_held) ||
				 atomic_load(&r->cmds.head) != &r->cmds.stub);
	     n++)
		act_sleep(TU_MS); /* its own timer is off the wheel once back */
	held = atomic_load(&r->n_held);
	ck_assert_uint_eq(held, 0);
}

START_TEST(early_receives_leave_no_timer)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, early_main, NULL), 0);
}
END_TEST

/* ---- act_send_after, act_send_interval, act_timer_cancel -------------- */

static void after_main(void *arg)
{
	act_pid self = act_self();
	uint64_t v = 0x1122334455667788ull;
	int64_t t0 = act__clock_now();
	struct act_msg *m;
	act_timer ref = 0, ref2;

	(void)arg;
	ck_assert_int_eq(
		act_send_after(20 * TU_MS, self, 7, &v, sizeof(v), &ref), 0);
	ck_assert_uint_ne(ref, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_int_ge(act__clock_now() - t0, 20 * TU_MS); /* never early */
	ck_assert_uint_eq(m->tag, 7);
	ck_assert(act_pid_eq(m->from, self)); /* from: who set it */
	ck_assert_uint_eq(m->len, sizeof(v));
	ck_assert(!memcmp(m->data, &v, sizeof(v)));
	act_msg_free(m);
	ck_assert_int_eq(act_timer_cancel(ref), -ENOENT); /* fired, done */

	/* cancelled first: no message; twice: -ENOENT */
	ck_assert_int_eq(act_send_after(200 * TU_MS, self, 8, NULL, 0, &ref),
			 0);
	ck_assert_int_eq(act_timer_cancel(ref), 0);
	ck_assert_int_eq(act_timer_cancel(ref), -ENOENT);
	ck_assert_ptr_null(act_receive(300 * TU_MS));

	/* a late cancel: the message already came, and stays */
	ck_assert_int_eq(act_send_after(1 * TU_MS, self, 9, NULL, 0, &ref2), 0);
	ck_assert_int_eq(act_sleep(20 * TU_MS), 0);
	ck_assert_int_eq(act_timer_cancel(ref2), -ENOENT);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 9);
	act_msg_free(m);
	/* a stale ref of a reused slot still names nothing */
	ck_assert_int_eq(act_send_after(100 * TU_MS, self, 10, NULL, 0, &ref2),
			 0);
	ck_assert_int_eq(act_timer_cancel(ref), -ENOENT);
	ck_assert_int_eq(act_timer_cancel(ref2), 0);
	/* no ref wanted */
	ck_assert_int_eq(act_send_after(0, self, 11, NULL, 0, NULL), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 11);
	act_msg_free(m);
}

START_TEST(send_after_and_cancel)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, after_main, NULL), 0);
}
END_TEST

static void interval_main(void *arg)
{
	act_pid self = act_self();
	int64_t t0 = act__clock_now(), prev = t0, t;
	struct act_msg *m;
	act_timer ref;
	int i;

	(void)arg;
	ck_assert_int_eq(act_send_interval(5 * TU_MS, self, 3, NULL, 0, &ref),
			 0);
	for (i = 1; i <= 5; i++) {
		m = act_receive(ACT_FOREVER);
		t = act__clock_now();
		ck_assert_uint_eq(m->tag, 3);
		act_msg_free(m);
		ck_assert_int_ge(t - t0, i * 5 * TU_MS); /* never early */
		ck_assert_int_ge(t, prev);
		prev = t;
	}
	ck_assert_int_eq(act_timer_cancel(ref), 0);
	while ((m = act_receive(0)) != NULL) /* sent before the cancel */
		act_msg_free(m);
	ck_assert_ptr_null(act_receive(40 * TU_MS)); /* none after it */
	ck_assert_int_eq(act_timer_cancel(ref), -ENOENT);
}

START_TEST(interval_until_cancelled)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, interval_main, NULL), 0);
}
END_TEST

static void short_lived(void *arg)
{
	(void)arg;
}

/* An interval to a process that exits is freed at its next firing. */
static void dead_main(void *arg)
{
	act_pid c = act_spawn(short_lived, NULL);
	act_timer ref;
	int n;

	(void)arg;
	ck_assert(tu_wait_gone(c));
	ck_assert_int_eq(act_send_interval(2 * TU_MS, c, 1, NULL, 0, &ref), 0);
	for (n = 0; n < 1000 && act_timer_cancel(ref) == 0; n++) {
		/* cancelled while still pending: set it up again */
		ck_assert_int_eq(
			act_send_interval(2 * TU_MS, c, 1, NULL, 0, &ref), 0);
		act_sleep(10 * TU_MS);
	}
	ck_assert_int_lt(n, 1000); /* reclaimed before a cancel found it */
}

START_TEST(dead_target_reclaims)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, dead_main, NULL), 0);
}
END_TEST

static void bad_timer_main(void *arg)
{
	act_pid self = act_self();
	act_timer ref;
	int x = 0;

	(void)arg;
	ck_assert_int_eq(act_send_after(-1, self, 1, NULL, 0, &ref), -EINVAL);
	ck_assert_int_eq(act_send_interval(0, self, 1, NULL, 0, &ref), -EINVAL);
	ck_assert_int_eq(act_send_interval(-5, self, 1, NULL, 0, &ref),
			 -EINVAL);
	ck_assert_int_eq(act_send_after(TU_MS, self, ACT_TAG_RESERVED, NULL, 0,
					&ref),
			 -EINVAL);
	ck_assert_int_eq(act_send_after(TU_MS, self, 1, NULL, 4, &ref),
			 -EINVAL);
	ck_assert_int_eq(act_send_after(TU_MS, self, 1, &x,
					(size_t)ACT_MSG_MAX + 1, &ref),
			 -EMSGSIZE);
	ck_assert_int_eq(act_timer_cancel(0), -ENOENT);
	ck_assert_int_eq(act_timer_cancel(UINT64_MAX), -ENOENT);
	ck_assert_int_eq(act_timer_cancel((UINT64_C(7) << 32) | 1), -ENOENT);
}

START_TEST(timer_bad_calls)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, bad_timer_main, NULL), 0);
	/* no runtime */
	ck_assert_int_eq(act_send_after(TU_MS, ACT_PID_NONE, 1, NULL, 0, NULL),
			 -ESRCH);
	ck_assert_int_eq(act_timer_cancel(1), -ESRCH);
}
END_TEST

/* ---- cancel vs fire: exactly one outcome each -------------------------- */

#define RACE_N (TU_UNDER_TSAN ? 2000 : 20000)

struct race {
	act_pid target;
	act_pid main;
};

/* Sets timers to the target at 0-1 ms and cancels each at once, or after
 * a spin: a cancel that returns 0 means no message, -ENOENT one. */
static void race_setter(void *arg)
{
	struct race *rc = arg;
	uint64_t x = 0x2545F4914F6CDD1Dull, cancelled = 0, fired = 0;
	volatile uint64_t spin;
	act_timer ref;
	uint32_t i;
	int r = 0, c;

	for (i = 0; i < RACE_N && !r; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r = act_send_after((int64_t)(x % (1 * TU_MS)), rc->target, 1,
				   &i, sizeof(i), &ref);
		for (spin = 0; spin < (x >> 40) % 3000; spin++)
			;
		c = act_timer_cancel(ref);
		cancelled += c == 0;
		fired += c == -ENOENT;
		if (c != 0 && c != -ENOENT)
			r = c;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(cancelled + fired, RACE_N);
	ck_assert_int_eq(act_send(rc->main, 2, &fired, sizeof(fired)), 0);
	ck_assert_int_eq(act_send(rc->target, 4, NULL, 0), 0);
}

static void race_target(void *arg)
{
	struct race *rc = arg;
	struct act_msg *m = NULL;
	uint64_t got = 0;
	bool done = false;

	/* every timer's deadline is within 1 ms of its setting, so once
	 * the setter is done (tag 4), 200 ms of silence means all came */
	while (!done || (m = act_receive(200 * TU_MS)) != NULL) {
		if (!done)
			m = act_receive(ACT_FOREVER);
		got += m->tag == 1;
		done |= m->tag == 4;
		act_msg_free(m);
	}
	ck_assert_int_eq(act_send(rc->main, 3, &got, sizeof(got)), 0);
}

static void race_main(void *arg)
{
	static struct race rc;
	uint64_t fired = 0, got = 0, v;
	struct act_msg *m;
	int i;

	(void)arg;
	rc.main = act_self();
	rc.target = act_spawn(race_target, &rc);
	act_spawn(race_setter, &rc);
	for (i = 0; i < 2; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(&v, m->data, sizeof(v));
		if (m->tag == 2)
			fired = v;
		else
			got = v;
		act_msg_free(m);
	}
	/* a cancel that lost (-ENOENT) left exactly one message */
	ck_assert_uint_eq(got, fired);
}

START_TEST(cancel_races_fire)
{
	struct act_config cfg = tu_with_workers(2 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, race_main, NULL), 0);
}
END_TEST

/* ---- 10,000 timers at once: each on time or after, in deadline order --- */

#define MANY_T (TU_UNDER_TSAN ? 2000 : 10000)

/*
 * One round, with `head` ns of head start: every timer is on time or
 * after, and those due after the last was set fire in deadline order.
 * Returns how many were due after the last was set: the premise of the
 * order check, which a loaded machine can starve (setting 10,000 took
 * over 800 ms in a loaded distcheck).
 */
static uint32_t many_timers_round(int64_t head)
{
	static int64_t lo[MANY_T], hi[MANY_T];
	act_pid self = act_self();
	uint64_t x = 88172645463325252ull;
	int64_t base = act__clock_now() + head, max_lo = 0, ns, set_all;
	struct act_msg *m;
	uint32_t i, k, early = 0, order = 0, after = 0;

	for (i = 0; i < MANY_T; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ns = base + (int64_t)(x % (200 * TU_MS)) - act__clock_now();
		if (ns < 0) /* setting them took long: due at once */
			ns = 0;
		/* its deadline is now + ns as act_send_after reads the
		 * clock: between these two */
		lo[i] = act__clock_now() + ns;
		ck_assert_int_eq(
			act_send_after(ns, self, 1, &i, sizeof(i), NULL), 0);
		hi[i] = act__clock_now() + ns;
	}
	set_all = act__clock_now();
	for (i = 0; i < MANY_T; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(&k, m->data, sizeof(k));
		act_msg_free(m);
		early += act__clock_now() < lo[k];
		/* in deadline order, among those due after the last was set
		 * (one due before that could only fire once set) */
		if (lo[k] > set_all) {
			order += hi[k] < max_lo;
			after++;
		}
		if (lo[k] > max_lo)
			max_lo = lo[k];
	}
	ck_assert_uint_eq(early, 0);
	ck_assert_uint_eq(order, 0); /* one reactor, one receiver: in order */
	return after;
}

static void many_timers_main(void *arg)
{
	/* 600 ms of head start, doubled while setting them all did not end
	 * before most were due (a loaded machine's debug build took over
	 * 100 ms to set 10,000) */
	int64_t head = 600 * TU_MS;
	int tries;

	(void)arg;
	for (tries = 0; many_timers_round(head) <= MANY_T / 2; tries++) {
		ck_assert_int_lt(tries, 5); /* 600 ms doubled to 19.2 s */
		head *= 2;
	}
}

START_TEST(many_timers_in_order)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, many_timers_main, NULL), 0);
}
END_TEST

/* ---- no io_uring: one line at start-up, and timers still work --------- */

static void ringless_main(void *arg)
{
	struct act_msg *m;

	(void)arg;
	ck_assert_int_eq(act_send_after(TU_MS, act_self(), 5, NULL, 0, NULL),
			 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 5);
	act_msg_free(m);
	ck_assert_int_eq(act_sleep(TU_MS), 0);
}

START_TEST(no_ring_says_so_once)
{
	struct tu_child c;

	tu_run_ringless(ringless_main, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
	ck_assert_ptr_nonnull(strstr(c.err, "actors: io_uring is off"));
}
END_TEST

/* ---- the ring's size: act_config.ring_entries, ACTORS_RING_ENTRIES ---- */

static uint32_t ring_seen;

static void ring_size_main(void *arg)
{
	(void)arg;
	ring_seen = act__rt_current->cfg.ring_entries;
	ringless_main(NULL); /* timers work whatever the size */
}

START_TEST(ring_entries_resolved)
{
	struct act_config cfg = tu_with_workers(2);

	ck_assert_int_eq(tu_run_main(&cfg, ring_size_main, NULL), 0);
	ck_assert_uint_eq(ring_seen, ACT_RING_ENTRIES); /* the default */
	setenv("ACTORS_RING_ENTRIES", "1", 1); /* one SQE: the doorbell */
	ck_assert_int_eq(tu_run_main(&cfg, ring_size_main, NULL), 0);
	ck_assert_uint_eq(ring_seen, 1);
	cfg.ring_entries = 8; /* the field beats the environment */
	ck_assert_int_eq(tu_run_main(&cfg, ring_size_main, NULL), 0);
	ck_assert_uint_eq(ring_seen, 8);
	unsetenv("ACTORS_RING_ENTRIES");
	cfg.ring_entries = ACT_RING_MAX_ENTRIES + 1;
	ck_assert_int_eq(act_main(&cfg, ring_size_main, NULL), -EINVAL);
}
END_TEST

/*
 * Every valid size makes a ring: the CQ (4 entries per SQ entry) is held
 * to the kernel's limit of 65,536, where SQs of 16,385 to 32,768 entries
 * used to fail the setup and leave the runtime without io_uring.
 */
static int ring_mode_seen;

/* An act_io_read of 4 bytes already in a pipe: the ring works. */
static void pipe_read_works(void)
{
	char buf[4];
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "ring", 4), 4);
	ck_assert_int_eq(act_io_read(p[0], buf, sizeof(buf), -1), 4);
	close(p[0]);
	close(p[1]);
}

static void ring_mode_main(void *arg)
{
	(void)arg;
	ring_mode_seen = act__rt_current->reactor->ring.mode;
	pipe_read_works();
}

START_TEST(ring_entries_every_valid_size)
{
	static const uint32_t sizes[] = { 16384, 16385, 20000, 32768 };
	struct act_config cfg = tu_with_workers(1);

	cfg.ring_entries = sizes[_i];
	ck_assert_int_eq(tu_run_main(&cfg, ring_mode_main, NULL), 0);
	ck_assert_int_ne(ring_mode_seen, ACT_RING_NONE);
}
END_TEST

/*
 * The reactor without its doorbell's wait in the ring (the SQ full when
 * it arms it; ACT_TEST_RING=nobell makes that happen every time): with no
 * timer due it used to wait for ever, deaf to the workers' rings, and a
 * sleep, a send_after or an I/O operation waited with it.
 */
static void nobell_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;

	(void)arg;
	ck_assert(act__rt_current->reactor->ring.test_nobell);
	ck_assert_int_eq(act_sleep(TU_MS), 0);
	ck_assert_int_eq(act_send_after(TU_MS, self, 7, NULL, 0, NULL), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 7);
	act_msg_free(m);
	pipe_read_works();
}

START_TEST(reactor_without_doorbell_wakes)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	setenv("ACT_TEST_RING", "nobell", 1);
	ck_assert_int_eq(tu_run_main(&cfg, nobell_main, NULL), 0);
	unsetenv("ACT_TEST_RING");
}
END_TEST

START_TEST(ring_entries_bad_env)
{
	static const char *const bad[] = { "",	  "0",	 "-1", "32769",
					   "abc", "64k", " 64" };

	ck_assert_uint_eq(tu_assert_env_refused("ACTORS_RING_ENTRIES", bad,
						TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

/* ---- an interval ends with the process that set it ------------------- */

static void interval_setter(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	act_timer ref;

	ck_assert_int_eq(act_send_interval(2 * TU_MS, parent, 1, NULL, 0, &ref),
			 0);
	ck_assert_int_eq(act_send(parent, 2, &ref, sizeof(ref)), 0);
	/* and exits: the interval dies with it */
}

static bool is_tag2(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == 2;
}

static bool is_down(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == ACT_TAG_DOWN;
}

static bool is_tick(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == 1;
}

static void dead_creator_main(void *arg)
{
	struct act__reactor *r = act__rt_current->reactor;
	act_pid self = act_self();
	struct act_msg *m;
	act_timer ref;
	int n, quiet, late = 0, ticks = 0;

	(void)arg;
	ck_assert(act_spawn_opt(interval_setter, &self,
				&(struct act_spawn_opts){
					.flags = ACT_SPAWN_MONITOR })
			  .id);
	m = act_receive_match(is_tag2, NULL, ACT_FOREVER);
	memcpy(&ref, m->data, sizeof(ref));
	act_msg_free(m);
	m = act_receive_match(is_down, NULL, ACT_FOREVER); /* it is gone */
	act_msg_free(m);
	/* wait until its timer is off the wheel (our own sleep's timer is,
	 * once we are back): seen twice a tick apart, since the reactor
	 * publishes n_held at the end of a turn, after it took the arm */
	for (n = 0, quiet = 0; n < 1000 && quiet < 2; n++) {
		while ((m = act_receive_match(is_tick, NULL, 0)) != NULL) {
			ticks++;
			act_msg_free(m);
		}
		if (!atomic_load(&r->n_held) &&
		    atomic_load(&r->cmds.head) == &r->cmds.stub)
			quiet++;
		else
			quiet = 0;
		act_sleep(TU_MS);
	}
	ck_assert_int_eq(quiet, 2);
	ck_assert_int_eq(act_timer_cancel(ref), -ENOENT); /* freed */
	/* freed, not merely quiet: nothing more comes */
	act_sleep(20 * TU_MS);
	while ((m = act_receive(0)) != NULL) {
		late++;
		act_msg_free(m);
	}
	ck_assert_int_eq(late, 0);
	ck_assert_int_le(ticks, 1000);
}

START_TEST(dead_creator_reclaims)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, dead_creator_main, NULL), 0);
}
END_TEST

/* ---- each worker woken at most once per reactor loop ------------------ */

#define SAME_TICK_N 2000

struct same_tick {
	act_pid parent;
	int64_t deadline;
};

static void same_tick_sleeper(void *arg)
{
	struct same_tick *st = arg;
	int64_t left = st->deadline - act__clock_now();

	/* on a loaded machine a late spawn may start past the deadline:
	 * it still arms a timer, due at once */
	act_sleep(left > 0 ? left : 1);
	act_send(st->parent, 1, NULL, 0);
}

static void same_tick_main(void *arg)
{
	struct act__reactor *r = act__rt_current->reactor;
	struct same_tick st = { act_self(), act__clock_now() + 500 * TU_MS };
	struct act_stats a, b;
	uint64_t loops;
	int i;

	(void)arg;
	act_stats(&a, NULL, 0);
	loops = atomic_load(&r->n_wake_loops);
	for (i = 0; i < SAME_TICK_N; i++)
		ck_assert(act_spawn(same_tick_sleeper, &st).id);
	for (i = 0; i < SAME_TICK_N; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	act_stats(&b, NULL, 0);
	loops = atomic_load(&r->n_wake_loops) - loops;
	ck_assert_uint_eq(b.timeouts_fired - a.timeouts_fired, SAME_TICK_N);
	/* they fire in a few loops of the reactor (a few ticks); each
	 * loop queues its share, then rings each sleeping worker once.
	 * Ringing per wake, a worker that runs its first sleeper and
	 * sleeps again (no spin) would be rung again and again */
	ck_assert_uint_ge(loops, 1);
	ck_assert_uint_le(b.reactor_wakes - a.reactor_wakes,
			  loops * (uint64_t)act_workers());
}

START_TEST(one_wake_per_worker_per_loop)
{
	struct act_config cfg = tu_with_workers(2 + _i % 2);

	cfg.spin_us = -1;     /* an idle worker sleeps at once */
	cfg.timer_us = 10000; /* 10 ms ticks: they fire in few loops */
	ck_assert_int_eq(tu_run_main(&cfg, same_tick_main, NULL), 0);
}
END_TEST

/* ---- the wheel's tick: act_config.timer_us, ACTORS_TIMER_US ---------- */

static int64_t tick_seen;

static void tick_main(void *arg)
{
	(void)arg;
	tick_seen = act__rt_current->reactor->wheel.tick_ns;
	ck_assert_int_eq(act_sleep(TU_MS), 0); /* timers work at any tick */
}

START_TEST(timer_us_resolved)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, tick_main, NULL), 0);
	ck_assert_int_eq(tick_seen, ACT_TIMER_US_DEFAULT * 1000);
	setenv("ACTORS_TIMER_US", "1000", 1);
	ck_assert_int_eq(tu_run_main(&cfg, tick_main, NULL), 0);
	ck_assert_int_eq(tick_seen, 1000 * 1000);
	cfg.timer_us = 50; /* the field beats the environment */
	ck_assert_int_eq(tu_run_main(&cfg, tick_main, NULL), 0);
	ck_assert_int_eq(tick_seen, 50 * 1000);
	unsetenv("ACTORS_TIMER_US");
	cfg.timer_us = 9;
	ck_assert_int_eq(act_main(&cfg, tick_main, NULL), -EINVAL);
	cfg.timer_us = ACT_TIMER_US_MAX + 1;
	ck_assert_int_eq(act_main(&cfg, tick_main, NULL), -EINVAL);
}
END_TEST

START_TEST(timer_us_bad_env)
{
	static const char *const bad[] = { "",	     "0",   "9",  "-250",
					   "100001", "1ms", "abc" };

	ck_assert_uint_eq(tu_assert_env_refused("ACTORS_TIMER_US", bad,
						TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

/* ---- references that stay unique, published only once armed ------------ */

/* The slot behind a reference, and the reference of generation g there
 * (timer.c: 23 index bits). */
static struct act__utimer *ref_slot(act_timer ref)
{
	struct act__utimers *t = &act__rt_current->reactor->timers;
	uint32_t i = (uint32_t)(ref & ((1u << 23) - 1)) - 1;

	return &atomic_load(&t->chunks[i / ACT_UT_CHUNK])[i % ACT_UT_CHUNK];
}

static act_timer ref_with_gen(act_timer ref, uint64_t g)
{
	return (g << 23) | (ref & ((1u << 23) - 1));
}

/*
 * Generations do not wrap at 32 bits: the timer of generation 2^32 + 5 is
 * not cancelled by the reference of generation 5 of its slot (with 32-bit
 * generations they were one reference: the free list is LIFO, so a
 * single busy slot takes every timer), and a slot whose generations are
 * used up is retired: its next timer takes another slot.
 */
static void ref_gens_main(void *arg)
{
	const uint64_t g = ((uint64_t)1 << 32) + 5,
		       gmax = ((uint64_t)1 << 41) - 1;
	act_pid self = act_self();
	struct act__utimer *u;
	act_timer a, b, c;

	(void)arg;
	ck_assert_int_eq(act_send_after(SEC_LONG, self, 1, NULL, 0, &a), 0);
	ck_assert_int_eq(act_timer_cancel(a), 0);
	u = ref_slot(a);
	/* the cancel's release has run once a later timer takes the slot:
	 * wait for it, then give the slot its new generation */
	while (atomic_load(&u->word) != ((ref_gen(a) + 1) << 8))
		act_sleep(TU_MS);
	atomic_store(&u->word, g << 8);
	ck_assert_int_eq(act_send_after(SEC_LONG, self, 1, NULL, 0, &b), 0);
	ck_assert_ptr_eq(ref_slot(b), u);
	ck_assert_uint_eq(ref_gen(b), g);
	ck_assert_int_eq(act_timer_cancel(ref_with_gen(b, 5)), -ENOENT);
	ck_assert_int_eq(act_timer_cancel(b), 0);
	while (atomic_load(&u->word) != ((g + 1) << 8))
		act_sleep(TU_MS);
	/* the last generation: once it is done the slot is out of use */
	atomic_store(&u->word, gmax << 8);
	ck_assert_int_eq(act_send_after(1, self, 2, NULL, 0, &c), 0);
	ck_assert_ptr_eq(ref_slot(c), u);
	ck_assert_uint_eq(ref_gen(c), gmax);
	act_msg_free(act_receive(ACT_FOREVER)); /* fired: released */
	while (atomic_load(&u->word) == (gmax << 8 | ACT_UT_ARMED) ||
	       atomic_load(&u->word) == (gmax << 8 | ACT_UT_FIRING))
		act_sleep(TU_MS);
	ck_assert_int_eq(act_send_after(SEC_LONG, self, 1, NULL, 0, &a), 0);
	ck_assert_ptr_ne(ref_slot(a), u);
	ck_assert_int_eq(act_timer_cancel(a), 0);
	ck_assert_int_eq(act_timer_cancel(c), -ENOENT);
}

START_TEST(timer_refs_never_wrap)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, ref_gens_main, NULL), 0);
}
END_TEST

/*
 * A canceller that acts the moment the reference is published: its
 * CANCEL must reach the reactor after the timer's ARM, or the reactor
 * frees the slot and then puts it on the wheel (a debug build stops at
 * that ARM; a release one loses the wheel's order). The hook cancels from
 * inside act_send_after, right after *ref is written.
 */
static _Atomic int hook_cancels;

static void cancel_at_once(act_timer ref)
{
	if (act_timer_cancel(ref) == 0)
		atomic_fetch_add(&hook_cancels, 1);
}

static void publish_main(void *arg)
{
	act_pid self = act_self();
	struct act_msg *m;
	act_timer ref;
	int i;

	(void)arg;
	/* an hour: none can fire before its cancel, so every cancel must
	 * succeed; the race is between the two commands, whatever the
	 * delay */
	act__test_timer_published = cancel_at_once;
	for (i = 0; i < 2000; i++)
		ck_assert_int_eq(
			act_send_after(SEC_LONG, self, 5, NULL, 0, &ref), 0);
	act__test_timer_published = NULL;
	ck_assert_int_eq(atomic_load(&hook_cancels), 2000);
	/* none fires; the slots work on: one more, delivered once */
	ck_assert_int_eq(act_send_after(TU_MS, self, 6, NULL, 0, &ref), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 6);
	act_msg_free(m);
	ck_assert_ptr_null(act_receive(20 * TU_MS));
}

START_TEST(cancel_as_soon_as_published)
{
	struct act_config cfg = tu_with_workers(1 + _i);

	atomic_store(&hook_cancels, 0);
	ck_assert_int_eq(tu_run_main(&cfg, publish_main, NULL), 0);
}
END_TEST

static Suite *timers_suite(void)
{
	Suite *s = suite_create("timers");
	TCase *tc = tcase_create("timers");
	bool no_ring = !tu_have_ring();

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sleep_lasts, 0, 2);
	tcase_add_loop_test(tc, sleep_keeps_messages, 0, 2);
	tcase_add_test(tc, sleep_zero_and_bad);
	tcase_add_loop_test(tc, many_sleepers, 0, 3);
	tcase_add_loop_test(tc, early_receives_leave_no_timer, 0, 2);
	tcase_add_loop_test(tc, send_after_and_cancel, 0, 2);
	tcase_add_loop_test(tc, interval_until_cancelled, 0, 2);
	tcase_add_test(tc, dead_target_reclaims);
	tcase_add_test(tc, timer_bad_calls);
	tcase_add_loop_test(tc, cancel_races_fire, 0, 3);
	tcase_add_loop_test(tc, many_timers_in_order, 0, 2);
	tcase_add_test(tc, no_ring_says_so_once);
	tcase_add_test(tc, ring_entries_resolved);
	tcase_add_test(tc, ring_entries_bad_env);
	/* these need a ring (TU_IO_LOOP's SKIP line where there is none) */
	TU_IO_LOOP(tc, ring_entries_every_valid_size, 4);
	TU_IO_LOOP(tc, reactor_without_doorbell_wakes, 2);
	tcase_add_loop_test(tc, dead_creator_reclaims, 0, 2);
	tcase_add_test(tc, timer_us_resolved);
	tcase_add_test(tc, timer_us_bad_env);
	tcase_add_loop_test(tc, one_wake_per_worker_per_loop, 0, 4);
	tcase_add_test(tc, timer_refs_never_wrap);
	tcase_add_loop_test(tc, cancel_as_soon_as_published, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(timers_suite());
}
