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
#include <string.h>
#include <time.h>

#include "testrt.h"

#include "reactor.h"

#define MS 1000000LL

/* ---- act_sleep ---------------------------------------------------------- */

static void sleep_main(void *arg)
{
	int64_t t0 = act__now_ns();

	(void)arg;
	ck_assert_int_eq(act_sleep(20 * MS), 0);
	ck_assert_int_ge(act__now_ns() - t0, 20 * MS); /* never short */
	ck_assert_int_eq(act_sleep(1), 0);
}

START_TEST(sleep_lasts)
{
	struct act_config cfg = with_workers(1 + _i);

	ck_assert_int_eq(run_main(&cfg, sleep_main, NULL), 0);
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
	ck_assert_int_eq(act_sleep(30 * MS), 0);
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
	struct act_config cfg = with_workers(1 + _i);

	ck_assert_int_eq(run_main(&cfg, keep_main, NULL), 0);
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
	struct act_config cfg = with_workers(1);

	ck_assert_int_eq(run_main(&cfg, zero_main, NULL), 0);
	/* not a process: this thread, with and without a runtime */
	ck_assert_int_eq(act_sleep(MS), -EPERM);
}
END_TEST

/* ---- many sleepers: each wakes by its own timeout, none early ---------- */

#define SLEEPERS (UNDER_TSAN ? 300 : 2000)

struct sleeper {
	act_pid main;
	int64_t ns;
};

static void sleeper(void *arg)
{
	struct sleeper *s = arg;
	int64_t t0 = act__now_ns();
	int rc = act_sleep(s->ns);
	int early = act__now_ns() - t0 < s->ns;

	ck_assert_int_eq(act_send(s->main, rc ? 2 : early ? 1 : 0, NULL, 0),
			 0);
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
					 1 + (int64_t)(x % (20 * MS)) };
		ck_assert(!act_pid_eq(act_spawn(sleeper, &s[i]),
				      ACT_PID_NONE));
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
	struct act_config cfg = with_workers(2 + _i);

	ck_assert_int_eq(run_main(&cfg, sleepers_main, NULL), 0);
}
END_TEST

/* ---- timed receives that end early leave nothing on the wheel --------- */

#define EARLY_N (UNDER_TSAN ? 5000 : 100000)

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
	struct act__reactor *r = &act__rt_current->reactor;
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
		m = act_receive(10000 * MS);
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
		act_sleep(MS); /* its own timer is off the wheel once back */
	held = atomic_load(&r->n_held);
	ck_assert_uint_eq(held, 0);
}

START_TEST(early_receives_leave_no_timer)
{
	struct act_config cfg = with_workers(1 + _i);

	ck_assert_int_eq(run_main(&cfg, early_main, NULL), 0);
}
END_TEST

static Suite *timers_suite(void)
{
	Suite *s = suite_create("timers");
	TCase *tc = tcase_create("timers");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sleep_lasts, 0, 2);
	tcase_add_loop_test(tc, sleep_keeps_messages, 0, 2);
	tcase_add_test(tc, sleep_zero_and_bad);
	tcase_add_loop_test(tc, many_sleepers, 0, 3);
	tcase_add_loop_test(tc, early_receives_leave_no_timer, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(timers_suite());
}
