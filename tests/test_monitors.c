/* SPDX-License-Identifier: MIT */
/*
 * test_monitors.c - monitors (doc/design/lifecycle.md "Monitors",
 * lib/actor/links.c): act_monitor's DOWN and its reference, a dead pid's
 * NOPROC, act_demonitor before and after the exit and of another's
 * reference, a watcher gone first, a monitor of oneself, and monitors
 * racing the exit across workers. (A monitor taken while its target
 * exits is the reproducer tests/regress/db1f9f5-monitor-of-exiting-process.c.)
 *
 * The harness (puppets, tu_take_down, TU_ASSERT_DOWN, races) is
 * tests/lifecycle.h, whose head says how the cases work.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testrt.h"
#include "lifecycle.h"

/* ======================================================================
 * 1. Monitors
 * ====================================================================== */

static struct mon_res {
	bool main_trapped;
	act_pid c1, c2, c3, c4, c5, c6, c7, w6, w7;
	uint64_t r1, r2a, r2b, r3, r4a, r4b, r5a, r5b, r6, r7, rw7, r3none;
	struct tu_seen d1, d2a, d2b, d3, d4b, d4a_late, d5b, d5a_late, d6, d7;
	int d2_extra, d3_extra, d1_extra, d7_extra;
	uint64_t rself, rself2;
	int dm_self;
	struct tu_seen self_down;
	int dm4, dm4_again, dm4b_after;
	bool peek5_before, peek5_after;
	int dm5, dm5_again;
	int dm_unknown, dm_zero;
	int64_t dm6_other;
	bool w7_gone;
} mr;

struct peek {
	uint64_t ref;
	bool seen;
};

/* A match that takes nothing: notes whether DOWN ref is in the mailbox. */
static bool peek_down(const struct act_msg *m, void *ctx)
{
	struct peek *pk = ctx;
	const struct act_exit_info *i = m->data;

	if (m->tag == ACT_TAG_DOWN && m->len == sizeof(*i) && i->ref == pk->ref)
		pk->seen = true;
	return false;
}

static bool down_in_mailbox(uint64_t ref)
{
	struct peek pk = { ref, false };

	ck_assert_ptr_null(act_receive_match(peek_down, &pk, 0));
	return pk.seen;
}

static void monitor_main(void *arg)
{
	(void)arg;
	mr.main_trapped = act_trap_exit(false);
	/* DOWN on a normal exit, with the right ref */
	mr.c1 = tu_new_puppet();
	mr.r1 = act_monitor(mr.c1);
	tu_cast(mr.c1, TU_OP_RETURN, ACT_PID_NONE, 0);
	mr.d1 = tu_take_down(mr.c1, mr.r1, TU_WAIT);
	ck_assert(tu_wait_gone(mr.c1));
	mr.d1_extra = tu_drain_sigs();
	/* two monitors, two DOWNs, two refs */
	mr.c2 = tu_new_puppet();
	mr.r2a = act_monitor(mr.c2);
	mr.r2b = act_monitor(mr.c2);
	tu_cast(mr.c2, TU_OP_EXIT, ACT_PID_NONE, 9);
	mr.d2a = tu_take_down(mr.c2, mr.r2a, TU_WAIT);
	mr.d2b = tu_take_down(mr.c2, mr.r2b, TU_WAIT);
	ck_assert(tu_wait_gone(mr.c2));
	mr.d2_extra = tu_drain_sigs();
	/* a dead pid: DOWN with NOPROC at once (in the mailbox when
	 * act_monitor returns) */
	mr.c3 = mr.c1;
	mr.r3 = act_monitor(mr.c3);
	mr.d3 = tu_take_down(mr.c3, mr.r3, 0);
	mr.d3_extra = tu_drain_sigs();
	/* demonitor before the exit: no DOWN ever */
	mr.c4 = tu_new_puppet();
	mr.r4a = act_monitor(mr.c4);
	mr.r4b = act_monitor(mr.c4);
	mr.dm4 = act_demonitor(mr.r4a);
	mr.dm4_again = act_demonitor(mr.r4a);
	tu_cast(mr.c4, TU_OP_EXIT, ACT_PID_NONE, 10);
	mr.d4b = tu_take_down(mr.c4, mr.r4b, TU_WAIT);
	ck_assert(tu_wait_gone(mr.c4));
	mr.d4a_late = tu_take_down(mr.c4, mr.r4a, TU_QUIET);
	mr.dm4b_after = act_demonitor(mr.r4b); /* its DOWN was received */
	/* demonitor after the death, the DOWN still in the mailbox */
	mr.c5 = tu_new_puppet();
	mr.r5a = act_monitor(mr.c5);
	mr.r5b = act_monitor(mr.c5);
	tu_cast(mr.c5, TU_OP_EXIT, ACT_PID_NONE, 11);
	mr.d5b = tu_take_down(mr.c5, mr.r5b, TU_WAIT);
	ck_assert(tu_wait_gone(mr.c5));
	mr.peek5_before = down_in_mailbox(mr.r5a);
	mr.dm5 = act_demonitor(mr.r5a);
	mr.peek5_after = down_in_mailbox(mr.r5a);
	mr.d5a_late = tu_take_down(mr.c5, mr.r5a, TU_QUIET);
	mr.dm5_again = act_demonitor(mr.r5a);
	/* refs nobody has */
	mr.dm_unknown = act_demonitor(0x5eed5eed5eedull);
	mr.dm_zero = act_demonitor(0);
	/* another process's ref is not the caller's */
	mr.c6 = tu_new_puppet();
	mr.w6 = tu_new_puppet();
	mr.r6 = act_monitor(mr.c6);
	{
		struct tu_cmd c = { .op = TU_OP_DEMONITOR, .ref = mr.r6 };
		struct tu_reply r = tu_call_c(mr.w6, c);

		mr.dm6_other = r.ok ? r.v : INT64_MIN;
	}
	tu_cast(mr.c6, TU_OP_EXIT, ACT_PID_NONE, 12);
	mr.d6 = tu_take_down(mr.c6, mr.r6, TU_WAIT);
	tu_cast(mr.w6, TU_OP_RETURN, ACT_PID_NONE, 0);
	/* a watcher that exits first: its monitor goes with it */
	mr.c7 = tu_new_puppet();
	mr.w7 = tu_new_puppet();
	mr.rw7 = tu_call(mr.w7, TU_OP_MONITOR, mr.c7, 0).ref;
	tu_cast(mr.w7, TU_OP_RETURN, ACT_PID_NONE, 0);
	mr.w7_gone = tu_wait_gone(mr.w7);
	mr.r7 = act_monitor(mr.c7);
	tu_cast(mr.c7, TU_OP_EXIT, ACT_PID_NONE, 13);
	mr.d7 = tu_take_down(mr.c7, mr.r7, TU_WAIT);
	ck_assert(tu_wait_gone(mr.c7));
	mr.d7_extra = tu_drain_now(ACT_TAG_DOWN, mr.c7, false);
	/* a monitor of oneself: allowed, never fires; demonitor takes it */
	mr.rself = act_monitor(act_self());
	mr.rself2 = act_monitor(act_self());
	mr.dm_self = act_demonitor(mr.rself);
	mr.self_down = tu_take(ACT_TAG_DOWN, act_self(), false, 0, TU_QUIET);
	/* the second stays: it goes when main exits (no leak, I9) */
}

START_TEST(monitors)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(tu_run_main(&cfg, monitor_main, NULL), 0);
	ck_assert(!mr.main_trapped);
	ck_assert_uint_ne(mr.r1, 0);
	TU_ASSERT_DOWN(mr.d1, mr.c1, ACT_EXIT_NORMAL, mr.r1, "normal exit");
	ck_assert_int_eq(mr.d1_extra, 0);
	ck_assert_uint_ne(mr.r2a, 0);
	ck_assert_uint_ne(mr.r2b, 0);
	ck_assert_uint_ne(mr.r2a, mr.r2b);
	TU_ASSERT_DOWN(mr.d2a, mr.c2, 9, mr.r2a, "first of two monitors");
	TU_ASSERT_DOWN(mr.d2b, mr.c2, 9, mr.r2b, "second of two monitors");
	ck_assert_int_eq(mr.d2_extra, 0);
	ck_assert_uint_ne(mr.r3, 0);
	ck_assert_uint_ne(mr.r3, mr.r1);
	TU_ASSERT_DOWN(mr.d3, mr.c3, ACT_EXIT_NOPROC, mr.r3,
		       "monitor of a dead pid (at once)");
	ck_assert_int_eq(mr.d3_extra, 0);
	ck_assert_int_eq(mr.dm4, 0);
	ck_assert_int_eq(mr.dm4_again, -ENOENT);
	TU_ASSERT_DOWN(mr.d4b, mr.c4, 10, mr.r4b, "the monitor left");
	TU_ASSERT_NONE(mr.d4a_late,
		       "DOWN of a monitor removed before it fired");
	ck_assert_int_eq(mr.dm4b_after, -ENOENT);
	TU_ASSERT_DOWN(mr.d5b, mr.c5, 11, mr.r5b, "c5");
	ck_assert_msg(mr.peek5_before, "the DOWN was not in the mailbox yet: "
				       "the case tests nothing");
	ck_assert_int_eq(mr.dm5, 0);
	ck_assert_msg(!mr.peek5_after,
		      "act_demonitor left its DOWN in the mailbox");
	TU_ASSERT_NONE(mr.d5a_late, "DOWN after act_demonitor");
	ck_assert_int_eq(mr.dm5_again, -ENOENT);
	ck_assert_int_eq(mr.dm_unknown, -ENOENT);
	ck_assert_int_eq(mr.dm_zero, -ENOENT);
	ck_assert_int_eq(mr.dm6_other, -ENOENT);
	TU_ASSERT_DOWN(mr.d6, mr.c6, 12, mr.r6, "another's demonitor");
	ck_assert_uint_ne(mr.rw7, 0);
	ck_assert(mr.w7_gone);
	TU_ASSERT_DOWN(mr.d7, mr.c7, 13, mr.r7, "watcher gone first");
	ck_assert_int_eq(mr.d7_extra, 0);
	ck_assert_uint_ne(mr.rself, 0);
	ck_assert_uint_ne(mr.rself2, 0);
	ck_assert_uint_ne(mr.rself, mr.rself2);
	ck_assert_int_eq(mr.dm_self, 0);
	TU_ASSERT_NONE(mr.self_down, "a monitor of oneself fired");
}
END_TEST

/* ======================================================================
 * 2. Races across workers
 * ====================================================================== */

static struct tu_race rr;
static act_pid boss; /* the race's main process: the watchers report */

/* ---- monitor vs exit: exactly one DOWN per monitor --------------------- */

struct mon_report {
	uint64_t r1, r2;
	struct tu_seen d1, d2;
	int extra;
	bool gone;
};

static void race_watcher(void *arg)
{
	act_pid t = *(act_pid *)arg;
	struct act_msg *m = act_receive_match(tu_is_go, NULL, TU_WAIT);
	struct mon_report rep;

	if (m)
		act_msg_free(m);
	memset(&rep, 0, sizeof(rep));
	rep.r1 = act_monitor(t);
	rep.r2 = act_monitor(t);
	rep.d1 = tu_take_down(t, rep.r1, TU_WAIT);
	rep.d2 = tu_take_down(t, rep.r2, TU_WAIT);
	rep.gone = tu_wait_gone(t);
	rep.extra = tu_drain_now(ACT_TAG_DOWN, t, false);
	act_send(boss, TU_TAG_REPORT, &rep, sizeof(rep));
}

static bool down_ok(struct tu_seen s, act_pid t, uint64_t ref)
{
	return s.n == 1 && act_pid_eq(s.from, t) && act_pid_eq(s.info.who, t) &&
	       s.info.ref == ref &&
	       (s.info.reason == 70 || s.info.reason == ACT_EXIT_NOPROC);
}

static void race_monitor_main(void *arg)
{
	struct mon_report rep;
	act_pid t, l;
	bool n1, n2;
	int i;

	(void)arg;
	boss = act_self();
	for (i = 0; i < TU_RACE_N && !rr.bad; i++) {
		t = tu_spawn(tu_go_then_exit, NULL);
		l = tu_spawn(race_watcher, &t);
		tu_go_both(i, t, l);
		if (!tu_take_report(&rr, i, l, &rep, sizeof(rep)))
			break;
		rr.iters++;
		if (!rep.r1 || !rep.r2 || rep.r1 == rep.r2 || !rep.gone ||
		    rep.extra || !down_ok(rep.d1, t, rep.r1) ||
		    !down_ok(rep.d2, t, rep.r2)) {
			tu_race_bad(&rr, i,
				    "DOWNs %d + %d extra, refs distinct %d",
				    rep.d1.n + rep.d2.n, rep.extra,
				    rep.r1 && rep.r2 && rep.r1 != rep.r2);
			continue;
		}
		n1 = rep.d1.info.reason == ACT_EXIT_NOPROC;
		n2 = rep.d2.info.reason == ACT_EXIT_NOPROC;
		if (n1 && !n2) /* gone for the first, back for the second? */
			tu_race_bad(&rr, i, "NOPROC then a real DOWN");
		else if (n1)
			rr.noproc_noproc++;
		else if (n2)
			rr.real_noproc++;
		else
			rr.real_real++;
		tu_wait_gone(l);
	}
}

START_TEST(race_monitor_vs_exit)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(tu_run_main(&cfg, race_monitor_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, TU_RACE_N);
	ck_assert_int_eq(rr.real_real + rr.real_noproc + rr.noproc_noproc,
			 TU_RACE_N);
	printf("race_monitor_vs_exit/%d: real %d, real+noproc %d, noproc %d\n",
	       _i, rr.real_real, rr.real_noproc, rr.noproc_noproc);
}
END_TEST

static Suite *monitors_suite(void)
{
	Suite *s = suite_create("monitors");
	TCase *mon = tcase_create("monitors"), *race = tcase_create("races");

	tcase_set_timeout(mon, 120);
	tcase_add_loop_test(mon, monitors, 0, 2);
	suite_add_tcase(s, mon);

	tcase_set_timeout(race, 300);
	tcase_add_loop_test(race, race_monitor_vs_exit, 0, 2);
	suite_add_tcase(s, race);

	return s;
}

int main(void)
{
	/* tu_run_suite does not know these yet */
	unsetenv("ACTORS_TIMER_US");
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(monitors_suite());
}
