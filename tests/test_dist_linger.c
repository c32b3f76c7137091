/* SPDX-License-Identifier: MIT */
/*
 * test_dist_linger.c - when a connection's reader waits for a batch
 * (lib/dist/linger.h): the controller fed reads on a clock of its own,
 * so each rate it measures is the one the test chose. Waiting is kept
 * where it costs no more than a tenth of the frames per second, given up
 * where it costs more, tried again after twice as many windows each time
 * it fails, and never applied after a read of one frame.
 *
 * A pure function of its inputs: no runtime, no clock, no timing.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "dist/linger.h"

#define NS 100000 /* the wait under test: 100 us */

struct feed {
	struct act__linger l;
	int64_t now;
	uint64_t waits; /* reads followed by a wait */
};

static void feed_init(struct feed *f, int64_t ns)
{
	act__linger_init(&f->l, ns);
	f->now = 1000000000; /* any clock > 0 */
	f->waits = 0;
	/* the first read opens the first window */
	ck_assert_int_eq(act__linger_after_read(&f->l, f->now, 1), 0);
}

/* n reads gap ns apart, each of `frames` frames: whatever the controller
 * asks, the test's clock moves by gap alone, so the rate of a window is
 * frames per gap exactly. The waits asked for are counted (each must be
 * the configured one). */
static void reads(struct feed *f, int n, int64_t gap, uint32_t frames)
{
	int i, odd = 0;

	/* one assertion at the end: Check's each costs a system call */
	for (i = 0; i < n; i++) {
		int64_t w;

		f->now += gap;
		w = act__linger_after_read(&f->l, f->now, frames);
		odd += w != 0 && w != f->l.ns;
		f->waits += w != 0;
	}
	ck_assert_int_eq(odd, 0);
}

/* One whole window (2 ms, at least 8 reads) at rate frames per gap:
 * reads of gap each until the window closes, i.e. until the controller
 * starts a new one. */
static void window(struct feed *f, int64_t gap, uint32_t frames)
{
	int64_t start = f->l.win_start;

	ck_assert_int_gt(start, 0);
	while (f->l.win_start == start)
		reads(f, 1, gap, frames);
}

/* The number of whole windows, at that rate, until the state is s (at
 * most max). */
static int windows_until(struct feed *f, int s, int64_t gap, uint32_t frames,
			 int max)
{
	int n = 0;

	while (f->l.state != s && n < max) {
		window(f, gap, frames);
		n++;
	}
	return n;
}

/* 0: never waits, whatever the traffic. */
START_TEST(off_never_waits)
{
	struct feed f;

	feed_init(&f, 0);
	reads(&f, 10000, 10000, 8);
	ck_assert_uint_eq(f.waits, 0);
	ck_assert_uint_eq(f.l.trials, 0);
}
END_TEST

/* The first window eager, the second on trial: waits after reads of two
 * frames or more, never after a lone one. */
START_TEST(trial_after_first_window)
{
	struct feed f;

	feed_init(&f, NS);
	ck_assert_int_eq(f.l.state, ACT__LINGER_EAGER);
	reads(&f, 100, 10000, 2);
	ck_assert_uint_eq(f.waits, 0);
	/* the read that closes the window is the trial's first */
	window(&f, 10000, 2);
	ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
	ck_assert_uint_eq(f.waits, 1);
	ck_assert_uint_eq(f.l.trials, 1);
	reads(&f, 3, 10000, 1);
	ck_assert_uint_eq(f.waits, 1);
	reads(&f, 3, 10000, 2);
	ck_assert_uint_eq(f.waits, 4);
}
END_TEST

/* A peer busy meanwhile (rt64): with the waits the frames come in bigger
 * reads at the same rate or better; the trial is kept, and the reads of
 * several frames keep waiting. */
START_TEST(kept_when_rate_holds)
{
	struct feed f;

	feed_init(&f, NS);
	window(&f, 10000, 2); /* eager: 2 frames per 10 us */
	ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
	window(&f, 120000, 24); /* waiting: 24 per 120 us, the same */
	ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
	ck_assert_uint_eq(f.l.kept, 1);
	f.waits = 0;
	reads(&f, 5, 120000, 24);
	ck_assert_uint_eq(f.waits, 5);
	/* 9% fewer frames a second is within the tenth it may cost */
	window(&f, 120000, 22);
	window(&f, 120000, 22);
	ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
}
END_TEST

/* A peer that waits for the answers (two requests in flight): the waits
 * halve the rate; the trial fails, each read is at once again. */
START_TEST(given_up_when_rate_falls)
{
	struct feed f;

	feed_init(&f, NS);
	window(&f, 40000, 2);  /* eager: 2 frames per 40 us */
	window(&f, 140000, 2); /* waiting: 2 per 140 us */
	ck_assert_int_eq(f.l.state, ACT__LINGER_EAGER);
	ck_assert_uint_eq(f.l.kept, 0);
	f.waits = 0;
	reads(&f, 20, 40000, 2);
	ck_assert_uint_eq(f.waits, 0);
	/* just under the tenth: 89% of the eager rate fails too */
	feed_init(&f, NS);
	window(&f, 10000, 100);
	window(&f, 10000, 89);
	ck_assert_int_eq(f.l.state, ACT__LINGER_EAGER);
	ck_assert_uint_eq(f.l.kept, 0);
}
END_TEST

/* Each failed trial puts the next twice as many eager windows away as
 * the one before: 1, 2, 4, ... 512, and no further. */
START_TEST(backoff_doubles_to_its_bound)
{
	struct feed f;
	int expect = 1, i, n;

	feed_init(&f, NS);
	for (i = 0; i < 12; i++) {
		/* the first trial after one window, as after a trial kept;
		 * then 1, 2, 4, ... */
		n = windows_until(&f, ACT__LINGER_TRIAL, 250000, 1, 10000);
		ck_assert_int_eq(n, expect);
		/* the trial's window at a third of the rate: fails */
		window(&f, 750000, 1);
		ck_assert_int_eq(f.l.state, ACT__LINGER_EAGER);
		if (i)
			expect = expect * 2 > ACT__LINGER_BACKOFF_MAX ?
					 ACT__LINGER_BACKOFF_MAX :
					 expect * 2;
	}
	ck_assert_int_eq(expect, ACT__LINGER_BACKOFF_MAX);
	ck_assert_uint_eq(f.l.trials, 12);
	/* a kept trial starts the count again at one window */
	windows_until(&f, ACT__LINGER_TRIAL, 250000, 1, 10000);
	window(&f, 250000, 1);
	ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
	ck_assert_uint_eq(f.l.backoff, 1);
}
END_TEST

/* Kept: one slow window is forgiven (a busy machine), two in a row end
 * the waits. */
START_TEST(two_slow_windows_end_it)
{
	struct feed f;

	feed_init(&f, NS);
	window(&f, 10000, 4);
	window(&f, 10000, 4);
	ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
	window(&f, 10000, 1); /* a quarter of the rate */
	ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
	window(&f, 10000, 4);
	window(&f, 10000, 1);
	ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
	window(&f, 10000, 1);
	ck_assert_int_eq(f.l.state, ACT__LINGER_EAGER);
}
END_TEST

/* Kept, the eager rate is measured again after ACT__LINGER_HOLD windows,
 * then the waits are tried against it; each trial kept in a row holds
 * twice as long, up to ACT__LINGER_HOLD_MAX. */
START_TEST(eager_again_after_hold)
{
	struct feed f;
	int hold = ACT__LINGER_HOLD, i, n;

	feed_init(&f, NS);
	window(&f, 10000, 4);
	window(&f, 10000, 4);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(f.l.state, ACT__LINGER_ON);
		n = windows_until(&f, ACT__LINGER_EAGER, 10000, 4, 10000);
		ck_assert_int_eq(n, hold);
		window(&f, 10000, 4); /* the eager window */
		ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
		window(&f, 10000, 4); /* the trial, kept */
		hold = hold * 2 > ACT__LINGER_HOLD_MAX ? ACT__LINGER_HOLD_MAX :
							 hold * 2;
	}
	ck_assert_uint_eq(f.l.kept, 7);
}
END_TEST

/* A window with a gap of 50 ms or more (traffic that stopped) gives no
 * verdict: the trial goes on, neither kept nor failed. */
START_TEST(gap_gives_no_verdict)
{
	struct feed f;

	feed_init(&f, NS);
	window(&f, 10000, 4);
	ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
	reads(&f, 3, 10000, 4);
	reads(&f, 1, ACT__LINGER_GAP_NS, 1); /* slow as can be */
	ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
	ck_assert_uint_eq(f.l.win_reads, 0);
	/* a clock that went back is a gap too */
	reads(&f, 1, -5000, 4);
	ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
	ck_assert_uint_eq(f.l.win_reads, 0);
}
END_TEST

/* A window closes at 2 ms only with 8 reads: 7 slow reads leave it
 * open. */
START_TEST(window_needs_its_reads)
{
	struct feed f;

	feed_init(&f, NS);
	reads(&f, ACT__LINGER_WINDOW_READS - 1, ACT__LINGER_WINDOW_NS, 1);
	ck_assert_int_eq(f.l.state, ACT__LINGER_EAGER);
	ck_assert_uint_eq(f.l.win_reads, ACT__LINGER_WINDOW_READS - 1);
	reads(&f, 1, 1000, 1);
	ck_assert_int_eq(f.l.state, ACT__LINGER_TRIAL);
}
END_TEST

static Suite *dist_linger_suite(void)
{
	Suite *s = suite_create("dist_linger");
	TCase *tc = tcase_create("linger");

	tcase_add_test(tc, off_never_waits);
	tcase_add_test(tc, trial_after_first_window);
	tcase_add_test(tc, kept_when_rate_holds);
	tcase_add_test(tc, given_up_when_rate_falls);
	tcase_add_test(tc, backoff_doubles_to_its_bound);
	tcase_add_test(tc, two_slow_windows_end_it);
	tcase_add_test(tc, eager_again_after_hold);
	tcase_add_test(tc, gap_gives_no_verdict);
	tcase_add_test(tc, window_needs_its_reads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dist_linger_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
