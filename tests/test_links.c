/* SPDX-License-Identifier: MIT */
/*
 * test_links.c - links and exit signals (doc/design/lifecycle.md,
 * lib/actor/links.c): the exit-signal table, act_trap_exit, act_kill's
 * signal, the order of an EXIT or DOWN behind the messages before it,
 * act_link and act_unlink, ACT_SPAWN_LINK / ACT_SPAWN_MONITOR and the
 * checks of act_spawn_opts, chains, the relation calls outside a
 * process, and races of links and kills across workers. Monitors, names,
 * exit handlers and the mailbox limit have programs of their own
 * (test_monitors, test_registry, test_exit_handlers,
 * test_mailbox_limit).
 *
 * The harness (puppets, tu_take_down, TU_ASSERT_DOWN, races) is
 * tests/lifecycle.h, whose head says how the cases work.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testrt.h"
#include "lifecycle.h"

/* ======================================================================
 * 1. The exit-signal table
 * ====================================================================== */

enum how { BY_RETURN, BY_EXIT, BY_KILL_P, BY_KILL_L };

struct row {
	const char *name;
	bool trap;	 /* L traps exits */
	enum how how;	 /* what ends P (or L) */
	intptr_t reason; /* act_exit's or act_kill's */
	intptr_t p_down; /* P's DOWN reason */
	bool l_lives;	 /* L is alive after the signal */
	bool l_exit;	 /* L has an EXIT from P: reason p_down */
	intptr_t l_down; /* L's DOWN reason */
};

static const struct row rows[] = {
	{ "trap, P returns", true, BY_RETURN, 0, ACT_EXIT_NORMAL, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, P act_exit(NORMAL)", true, BY_EXIT, ACT_EXIT_NORMAL,
	  ACT_EXIT_NORMAL, true, true, ACT_EXIT_NORMAL },
	{ "trap, P act_exit(42)", true, BY_EXIT, 42, 42, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, P act_exit(SHUTDOWN)", true, BY_EXIT, ACT_EXIT_SHUTDOWN,
	  ACT_EXIT_SHUTDOWN, true, true, ACT_EXIT_NORMAL },
	{ "trap, P killed with 43", true, BY_KILL_P, 43, 43, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, P act_exit(KILL): exits KILLED, trappable", true, BY_EXIT,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, true, true, ACT_EXIT_NORMAL },
	{ "trap, P killed with KILL: KILLED spreads trappable", true, BY_KILL_P,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, true, true, ACT_EXIT_NORMAL },
	{ "trap, L killed with KILL: untrappable", true, BY_KILL_L,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
	{ "no trap, P returns", false, BY_RETURN, 0, ACT_EXIT_NORMAL, true,
	  false, ACT_EXIT_NORMAL },
	{ "no trap, P act_exit(NORMAL)", false, BY_EXIT, ACT_EXIT_NORMAL,
	  ACT_EXIT_NORMAL, true, false, ACT_EXIT_NORMAL },
	{ "no trap, P act_exit(42)", false, BY_EXIT, 42, 42, false, false, 42 },
	{ "no trap, P act_exit(SHUTDOWN)", false, BY_EXIT, ACT_EXIT_SHUTDOWN,
	  ACT_EXIT_SHUTDOWN, false, false, ACT_EXIT_SHUTDOWN },
	{ "no trap, P killed with 43", false, BY_KILL_P, 43, 43, false, false,
	  43 },
	{ "no trap, P act_exit(KILL): exits KILLED, spreads", false, BY_EXIT,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
	{ "no trap, P killed with KILL: KILLED spreads", false, BY_KILL_P,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
	{ "no trap, L killed with KILL", false, BY_KILL_L, ACT_EXIT_KILL,
	  ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
};
#define N_ROWS ((int)(sizeof(rows) / sizeof(rows[0])))

static struct table_res {
	act_pid p, l;
	uint64_t mp, ml;
	int64_t link_rc, kill_rc;
	struct tu_seen p_down, l_exit, l_down;
	bool p_gone, l_answered;
	int64_t l_extra; /* EXITs/DOWNs left in L after the one expected */
} tr;

static void table_main(void *arg)
{
	const struct row *rw = arg;

	tr.p = tu_new_puppet();
	tr.l = tu_new_trapper(rw->trap);
	tr.link_rc = tu_callv(tr.l, TU_OP_LINK, tr.p, 0);
	tr.mp = act_monitor(tr.p);
	tr.ml = act_monitor(tr.l);
	switch (rw->how) {
	case BY_RETURN:
		ck_assert_int_eq(tu_cast(tr.p, TU_OP_RETURN, ACT_PID_NONE, 0),
				 0);
		break;
	case BY_EXIT:
		ck_assert_int_eq(
			tu_cast(tr.p, TU_OP_EXIT, ACT_PID_NONE, rw->reason), 0);
		break;
	case BY_KILL_P:
		tr.kill_rc = act_kill(tr.p, rw->reason);
		break;
	case BY_KILL_L:
		tr.kill_rc = act_kill(tr.l, rw->reason);
		break;
	}
	tr.p_down = tu_take_down(tr.p, tr.mp, TU_WAIT);
	tr.p_gone = tu_wait_gone(tr.p); /* all its signals are out */
	if (!rw->l_lives) {
		tr.l_down = tu_take_down(tr.l, tr.ml, TU_WAIT);
		return;
	}
	if (rw->trap)
		tr.l_exit = tu_p_take_exit(tr.l, tr.p, TU_WAIT);
	else
		tr.l_exit = tu_p_take_exit(tr.l, tr.p, 0); /* none is there */
	{
		struct tu_reply r = tu_call(tr.l, TU_OP_COUNT, ACT_PID_NONE, 0);

		tr.l_answered = r.ok;
		tr.l_extra = r.v;
	}
	tu_cast(tr.l, TU_OP_RETURN, ACT_PID_NONE, 0);
	tr.l_down = tu_take_down(tr.l, tr.ml, TU_WAIT);
}

START_TEST(exit_signal_table)
{
	const struct row *rw = &rows[_i / 2];
	struct act_config cfg = tu_with_workers(TU_W12(_i % 2));
	const char *n = rw->name;

	memset(&tr, 0, sizeof(tr));
	ck_assert_int_eq(tu_run_main(&cfg, table_main, (void *)rw), 0);
	ck_assert_msg(tr.link_rc == 0, "%s: act_link %lld", n,
		      (long long)tr.link_rc);
	ck_assert_uint_ne(tr.mp, 0);
	ck_assert_uint_ne(tr.ml, 0);
	ck_assert_uint_ne(tr.mp, tr.ml);
	if (rw->how == BY_KILL_P || rw->how == BY_KILL_L)
		ck_assert_msg(tr.kill_rc == 0, "%s: act_kill %lld", n,
			      (long long)tr.kill_rc);
	TU_ASSERT_DOWN(tr.p_down, tr.p, rw->p_down, tr.mp, n);
	ck_assert_msg(tr.p_gone, "%s: P never reaped", n);
	if (rw->l_lives) {
		ck_assert_msg(tr.l_answered, "%s: L did not survive", n);
		if (rw->l_exit)
			TU_ASSERT_EXIT(tr.l_exit, tr.p, rw->p_down, n);
		else
			TU_ASSERT_NONE(tr.l_exit, n);
		ck_assert_msg(tr.l_extra == 0, "%s: %lld more EXIT/DOWN in L",
			      n, (long long)tr.l_extra);
	}
	TU_ASSERT_DOWN(tr.l_down, tr.l, rw->l_down, tr.ml, n);
}
END_TEST

/* act_trap_exit returns the previous setting; off at spawn. */
static struct {
	bool b0, b1, b2, b3, child0;
} trap_res;

static void trap_child(void *arg)
{
	(void)arg;
	trap_res.child0 = act_trap_exit(false);
}

static void trap_main(void *arg)
{
	(void)arg;
	trap_res.b0 = act_trap_exit(true);
	trap_res.b1 = act_trap_exit(true);
	trap_res.b2 = act_trap_exit(false);
	trap_res.b3 = act_trap_exit(false);
	act_trap_exit(true); /* a child of a trapping parent: off anyway */
	trap_res.child0 = true;
	ck_assert(tu_wait_gone(tu_spawn(trap_child, NULL)));
}

START_TEST(trap_exit_returns_previous)
{
	struct act_config cfg = tu_with_workers(1);

	memset(&trap_res, 0, sizeof(trap_res));
	ck_assert_int_eq(tu_run_main(&cfg, trap_main, NULL), 0);
	ck_assert(!trap_res.b0);
	ck_assert(trap_res.b1);
	ck_assert(trap_res.b2);
	ck_assert(!trap_res.b3);
	ck_assert(!trap_res.child0);
}
END_TEST

/* ======================================================================
 * 2. act_kill's signal
 * ====================================================================== */

static struct kill_res {
	act_pid main, t, k, t2, t3, s1, s2, s3, dead;
	int64_t rc_k77, rc_main78, rc_knormal, rc_t2normal;
	struct tu_seen e77, e78, enormal;
	bool t2_answered;
	int64_t t2_sigs;
	struct tu_seen t2_down;
	uint64_t m_t2, m_t3, m_s1, m_s2, m_s3, m_t;
	int fk_rc1, fk_rc2;
	struct tu_seen e_foreign, t3_down;
	struct tu_seen s1_down;
	int s1_replies, s3_replies;
	int64_t s2_rc;
	struct tu_seen s2_exit, s2_down;
	bool s2_answered;
	struct tu_seen s3_down;
	int dead_rc, none_rc;
	bool t_answered;
	struct tu_seen t_down;
} kr;

struct foreign_kills {
	act_pid a, b;
	int rc_a, rc_b;
};

static void *foreign_killer(void *arg)
{
	struct foreign_kills *fk = arg;

	fk->rc_a = act_kill(fk->a, 55);
	fk->rc_b = act_kill(fk->b, 56);
	return NULL;
}

static void kill_main(void *arg)
{
	struct foreign_kills fk;
	struct tu_reply r;
	pthread_t th;

	(void)arg;
	kr.main = act_self();
	/* a trapping target gets EXIT with who = the killer */
	kr.t = tu_new_trapper(true);
	kr.k = tu_new_puppet();
	kr.m_t = act_monitor(kr.t);
	kr.rc_k77 = tu_callv(kr.k, TU_OP_KILL, kr.t, 77);
	kr.e77 = tu_p_take_exit(kr.t, kr.k, TU_WAIT);
	kr.rc_main78 = act_kill(kr.t, 78);
	kr.e78 = tu_p_take_exit(kr.t, kr.main, TU_WAIT);
	kr.rc_knormal = tu_callv(kr.k, TU_OP_KILL, kr.t, ACT_EXIT_NORMAL);
	kr.enormal = tu_p_take_exit(kr.t, kr.k, TU_WAIT);
	/* a non-trapping target ignores ACT_EXIT_NORMAL */
	kr.t2 = tu_new_puppet();
	kr.m_t2 = act_monitor(kr.t2);
	kr.rc_t2normal = act_kill(kr.t2, ACT_EXIT_NORMAL);
	act_sleep(TU_QUIET);
	r = tu_call(kr.t2, TU_OP_COUNT, ACT_PID_NONE, 0);
	kr.t2_answered = r.ok;
	kr.t2_sigs = r.v;
	tu_cast(kr.t2, TU_OP_RETURN, ACT_PID_NONE, 0);
	kr.t2_down = tu_take_down(kr.t2, kr.m_t2, TU_WAIT);
	/* from a thread that is not a process: who = ACT_PID_NONE */
	kr.t3 = tu_new_puppet();
	kr.m_t3 = act_monitor(kr.t3);
	fk.a = kr.t;
	fk.b = kr.t3;
	ck_assert_int_eq(pthread_create(&th, NULL, foreign_killer, &fk), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	kr.fk_rc1 = fk.rc_a;
	kr.fk_rc2 = fk.rc_b;
	kr.e_foreign = tu_p_take_exit(kr.t, ACT_PID_NONE, TU_WAIT);
	kr.t3_down = tu_take_down(kr.t3, kr.m_t3, TU_WAIT);
	/* itself with NORMAL, not trapping: it ends (no TU_OP_RETURN sent) */
	kr.s1 = tu_new_puppet();
	kr.m_s1 = act_monitor(kr.s1);
	tu_cast(kr.s1, TU_OP_KILL_SELF, ACT_PID_NONE, ACT_EXIT_NORMAL);
	kr.s1_down = tu_take_down(kr.s1, kr.m_s1, TU_WAIT);
	kr.s1_replies = tu_drain_now(TU_TAG_REPLY, kr.s1, false);
	/* itself with 7, trapping: an EXIT from itself, and it goes on */
	kr.s2 = tu_new_trapper(true);
	kr.m_s2 = act_monitor(kr.s2);
	kr.s2_rc = tu_callv(kr.s2, TU_OP_KILL_SELF, ACT_PID_NONE, 7);
	kr.s2_exit = tu_p_take_exit(kr.s2, kr.s2, TU_WAIT);
	kr.s2_answered = tu_call(kr.s2, TU_OP_PING, ACT_PID_NONE, 0).ok;
	tu_cast(kr.s2, TU_OP_RETURN, ACT_PID_NONE, 0);
	kr.s2_down = tu_take_down(kr.s2, kr.m_s2, TU_WAIT);
	/* itself with 9, not trapping: dies with 9 */
	kr.s3 = tu_new_puppet();
	kr.m_s3 = act_monitor(kr.s3);
	tu_cast(kr.s3, TU_OP_KILL_SELF, ACT_PID_NONE, 9);
	kr.s3_down = tu_take_down(kr.s3, kr.m_s3, TU_WAIT);
	kr.s3_replies = tu_drain_now(TU_TAG_REPLY, kr.s3, false);
	/* the dead and nobody */
	kr.dead = kr.s3;
	ck_assert(tu_wait_gone(kr.dead));
	kr.dead_rc = act_kill(kr.dead, 1);
	kr.none_rc = act_kill(ACT_PID_NONE, 1);
	/* the trapping target survived it all */
	kr.t_answered = tu_call(kr.t, TU_OP_PING, ACT_PID_NONE, 0).ok;
	tu_cast(kr.t, TU_OP_RETURN, ACT_PID_NONE, 0);
	kr.t_down = tu_take_down(kr.t, kr.m_t, TU_WAIT);
	tu_cast(kr.k, TU_OP_RETURN, ACT_PID_NONE, 0);
}

START_TEST(kill_signal)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&kr, 0, sizeof(kr));
	ck_assert_int_eq(tu_run_main(&cfg, kill_main, NULL), 0);
	ck_assert_int_eq(kr.rc_k77, 0);
	TU_ASSERT_EXIT(kr.e77, kr.k, 77, "trapping target, killer K");
	ck_assert_int_eq(kr.rc_main78, 0);
	TU_ASSERT_EXIT(kr.e78, kr.main, 78, "trapping target, killer main");
	ck_assert_int_eq(kr.rc_knormal, 0);
	TU_ASSERT_EXIT(kr.enormal, kr.k, ACT_EXIT_NORMAL,
		       "trapping target, NORMAL");
	ck_assert_int_eq(kr.rc_t2normal, 0);
	ck_assert_msg(kr.t2_answered,
		      "act_kill(NORMAL) ended a process that does not trap");
	ck_assert_int_eq(kr.t2_sigs, 0);
	TU_ASSERT_DOWN(kr.t2_down, kr.t2, ACT_EXIT_NORMAL, kr.m_t2, "t2");
	ck_assert_int_eq(kr.fk_rc1, 0);
	ck_assert_int_eq(kr.fk_rc2, 0);
	TU_ASSERT_EXIT(kr.e_foreign, ACT_PID_NONE, 55, "kill from a thread");
	TU_ASSERT_DOWN(kr.t3_down, kr.t3, 56, kr.m_t3, "killed from a thread");
	TU_ASSERT_DOWN(kr.s1_down, kr.s1, ACT_EXIT_NORMAL, kr.m_s1,
		       "self-kill NORMAL, not trapping");
	ck_assert_int_eq(kr.s2_rc, 0);
	TU_ASSERT_EXIT(kr.s2_exit, kr.s2, 7, "self-kill 7, trapping");
	ck_assert(kr.s2_answered);
	TU_ASSERT_DOWN(kr.s2_down, kr.s2, ACT_EXIT_NORMAL, kr.m_s2, "s2");
	TU_ASSERT_DOWN(kr.s3_down, kr.s3, 9, kr.m_s3, "self-kill 9");
	ck_assert_msg(kr.s1_replies == 0 && kr.s3_replies == 0,
		      "act_kill of the caller returned after ending it");
	ck_assert_int_eq(kr.dead_rc, -ESRCH);
	ck_assert_int_eq(kr.none_rc, -ESRCH);
	ck_assert(kr.t_answered);
	TU_ASSERT_DOWN(kr.t_down, kr.t, ACT_EXIT_NORMAL, kr.m_t, "t");
}
END_TEST

/* ======================================================================
 * 3. An EXIT or DOWN comes after every message the process sent before
 * ====================================================================== */

#define ORDER_K 1000
#define ORDER_ROUNDS 10

static struct order_res {
	int rounds;
	act_pid s[ORDER_ROUNDS];
	intptr_t why[ORDER_ROUNDS];
	uint64_t ms[ORDER_ROUNDS];
	int64_t link_rc[ORDER_ROUNDS];
	bool r_ok[ORDER_ROUNDS];
	struct tu_drain at_r[ORDER_ROUNDS], at_main[ORDER_ROUNDS];
} orr;

static void order_main(void *arg)
{
	struct tu_sig_want w = { .tag = TU_TAG_REPLY };
	struct act_msg *m;
	struct tu_reply r;
	act_pid rv;
	int i;

	(void)arg;
	for (i = 0; i < ORDER_ROUNDS; i++) {
		struct tu_cmd drain = { .op = TU_OP_DRAIN };
		struct tu_cmd flood = { .op = TU_OP_FLOOD, .arg = ORDER_K };

		orr.why[i] = i % 2 ? ACT_EXIT_NORMAL : 50;
		rv = tu_new_trapper(true);
		orr.s[i] = tu_new_puppet();
		orr.link_rc[i] = tu_callv(rv, TU_OP_LINK, orr.s[i], 0);
		orr.ms[i] = act_monitor(orr.s[i]);
		drain.pid = orr.s[i];
		ck_assert_int_eq(tu_cast_c(rv, drain), 0);
		flood.pid = rv;
		flood.ref = (uint64_t)orr.why[i];
		ck_assert_int_eq(tu_cast_c(orr.s[i], flood), 0);
		orr.at_main[i] = tu_drain_from(orr.s[i], ACT_TAG_DOWN);
		w.from = rv;
		m = act_receive_match(tu_sig_is, &w, TU_WAIT);
		if (m) {
			memcpy(&r, m->data, sizeof(r));
			act_msg_free(m);
			orr.r_ok[i] = true;
			orr.at_r[i] = r.d;
		}
		tu_cast(rv, TU_OP_RETURN, ACT_PID_NONE, 0);
		orr.rounds++;
	}
}

START_TEST(signal_after_messages)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));
	char what[64];
	int i;

	memset(&orr, 0, sizeof(orr));
	ck_assert_int_eq(tu_run_main(&cfg, order_main, NULL), 0);
	ck_assert_int_eq(orr.rounds, ORDER_ROUNDS);
	for (i = 0; i < ORDER_ROUNDS; i++) {
		snprintf(what, sizeof(what), "round %d, linked receiver", i);
		ck_assert_int_eq(orr.link_rc[i], 0);
		ck_assert_msg(orr.r_ok[i], "%s: no answer", what);
		ck_assert_msg(orr.at_r[i].data == ORDER_K,
			      "%s: %d of %d messages before the EXIT", what,
			      orr.at_r[i].data, ORDER_K);
		ck_assert_int_eq(orr.at_r[i].bad, 0);
		TU_ASSERT_EXIT(orr.at_r[i].end, orr.s[i], orr.why[i], what);
		ck_assert_int_eq(orr.at_r[i].after, 0);
		snprintf(what, sizeof(what), "round %d, monitor", i);
		ck_assert_msg(orr.at_main[i].data == ORDER_K,
			      "%s: %d of %d messages before the DOWN", what,
			      orr.at_main[i].data, ORDER_K);
		ck_assert_int_eq(orr.at_main[i].bad, 0);
		TU_ASSERT_DOWN(orr.at_main[i].end, orr.s[i], orr.why[i],
			       orr.ms[i], what);
		ck_assert_int_eq(orr.at_main[i].after, 0);
	}
}
END_TEST

/* ======================================================================
 * 4. Links
 * ====================================================================== */

static struct link_res {
	act_pid d, a, b;
	int64_t a_dead_rc, a_none_rc, a_count, b_dead_rc, b_extra;
	struct tu_seen b_noproc;
	/* self */
	int64_t b_self_rc, b_self_unlink, b_self_count, a_self_rc;
	bool a_self_alive;
	uint64_t m_bs;
	struct tu_seen bs_down;
	/* unlink, not trapping (a2) and trapping (b2) */
	act_pid x, a2, b2;
	uint64_t mx, ma2, mb2;
	int64_t a2_link, a2_unlink, b2_link, b2_unlink, a2_count, b2_count;
	bool a2_alive, b2_alive;
	struct tu_seen x_down;
	struct tu_seen b2_exit;
	/* the other end unlinks */
	act_pid y, a3;
	uint64_t my;
	int64_t a3_link, y_unlink, a3_count;
	bool a3_alive;
	struct tu_seen y_down;
	/* twice, then once unlinked */
	act_pid z, a4;
	uint64_t mz;
	int64_t a4_link1, a4_link2, a4_unlink, a4_count;
	bool a4_alive;
	struct tu_seen z_down;
	/* both ends link, trapping: one EXIT */
	act_pid z2, b5;
	int64_t b5_link1, b5_link2, z2_link;
	struct tu_seen b5_exit;
	int64_t b5_extra;
	/* unlink of a live pid not linked, a dead one, nobody */
	int64_t a_unlink_none, a_unlink_dead, a_unlink_nobody;
	/* an EXIT delivered before the unlink stays */
	act_pid x3, b6;
	int64_t b6_link, b6_unlink;
	struct tu_seen b6_exit;
} lr;

static void link_main(void *arg)
{
	struct tu_reply r;

	(void)arg;
	/* a dead pid: -ESRCH; EXIT NOPROC only when trapping */
	lr.d = tu_new_puppet();
	tu_cast(lr.d, TU_OP_RETURN, ACT_PID_NONE, 0);
	ck_assert(tu_wait_gone(lr.d));
	lr.a = tu_new_trapper(false);
	lr.b = tu_new_trapper(true);
	lr.a_dead_rc = tu_callv(lr.a, TU_OP_LINK, lr.d, 0);
	lr.a_none_rc = tu_callv(lr.a, TU_OP_LINK, ACT_PID_NONE, 0);
	act_sleep(TU_QUIET);
	lr.a_count = tu_callv(lr.a, TU_OP_COUNT, ACT_PID_NONE, 0);
	lr.b_dead_rc = tu_callv(lr.b, TU_OP_LINK, lr.d, 0);
	lr.b_noproc = tu_p_take_exit(lr.b, lr.d, TU_WAIT);
	lr.b_extra = tu_callv(lr.b, TU_OP_COUNT, ACT_PID_NONE, 0);
	/* to itself: 0, and nothing */
	lr.b_self_rc = tu_callv(lr.b, TU_OP_LINK, lr.b, 0);
	lr.b_self_unlink = tu_callv(lr.b, TU_OP_UNLINK, lr.b, 0);
	lr.a_self_rc = tu_callv(lr.a, TU_OP_LINK, lr.a, 0);
	act_sleep(TU_QUIET);
	lr.b_self_count = tu_callv(lr.b, TU_OP_COUNT, ACT_PID_NONE, 0);
	lr.a_self_alive = tu_call(lr.a, TU_OP_PING, ACT_PID_NONE, 0).ok;
	lr.m_bs = act_monitor(lr.b);
	tu_cast(lr.b, TU_OP_EXIT, ACT_PID_NONE, 33);
	lr.bs_down = tu_take_down(lr.b, lr.m_bs, TU_WAIT);
	/* unlink, then the other dies abnormally */
	lr.x = tu_new_puppet();
	lr.a2 = tu_new_trapper(false);
	lr.b2 = tu_new_trapper(true);
	lr.mx = act_monitor(lr.x);
	lr.ma2 = act_monitor(lr.a2);
	lr.mb2 = act_monitor(lr.b2);
	lr.a2_link = tu_callv(lr.a2, TU_OP_LINK, lr.x, 0);
	lr.b2_link = tu_callv(lr.b2, TU_OP_LINK, lr.x, 0);
	lr.a2_unlink = tu_callv(lr.a2, TU_OP_UNLINK, lr.x, 0);
	lr.b2_unlink = tu_callv(lr.b2, TU_OP_UNLINK, lr.x, 0);
	tu_cast(lr.x, TU_OP_EXIT, ACT_PID_NONE, 44);
	lr.x_down = tu_take_down(lr.x, lr.mx, TU_WAIT);
	ck_assert(tu_wait_gone(lr.x));
	lr.b2_exit = tu_p_take_exit(lr.b2, lr.x, TU_QUIET);
	r = tu_call(lr.a2, TU_OP_COUNT, ACT_PID_NONE, 0);
	lr.a2_alive = r.ok;
	lr.a2_count = r.v;
	r = tu_call(lr.b2, TU_OP_COUNT, ACT_PID_NONE, 0);
	lr.b2_alive = r.ok;
	lr.b2_count = r.v;
	/* the other end unlinks */
	lr.y = tu_new_puppet();
	lr.a3 = tu_new_trapper(false);
	lr.my = act_monitor(lr.y);
	lr.a3_link = tu_callv(lr.a3, TU_OP_LINK, lr.y, 0);
	lr.y_unlink = tu_callv(lr.y, TU_OP_UNLINK, lr.a3, 0);
	tu_cast(lr.y, TU_OP_EXIT, ACT_PID_NONE, 44);
	lr.y_down = tu_take_down(lr.y, lr.my, TU_WAIT);
	ck_assert(tu_wait_gone(lr.y));
	r = tu_call(lr.a3, TU_OP_COUNT, ACT_PID_NONE, 0);
	lr.a3_alive = r.ok;
	lr.a3_count = r.v;
	/* linked twice is linked once: one unlink removes it */
	lr.z = tu_new_puppet();
	lr.a4 = tu_new_trapper(false);
	lr.mz = act_monitor(lr.z);
	lr.a4_link1 = tu_callv(lr.a4, TU_OP_LINK, lr.z, 0);
	lr.a4_link2 = tu_callv(lr.a4, TU_OP_LINK, lr.z, 0);
	lr.a4_unlink = tu_callv(lr.a4, TU_OP_UNLINK, lr.z, 0);
	tu_cast(lr.z, TU_OP_EXIT, ACT_PID_NONE, 44);
	lr.z_down = tu_take_down(lr.z, lr.mz, TU_WAIT);
	ck_assert(tu_wait_gone(lr.z));
	r = tu_call(lr.a4, TU_OP_COUNT, ACT_PID_NONE, 0);
	lr.a4_alive = r.ok;
	lr.a4_count = r.v;
	/* linked from both ends and twice: one EXIT */
	lr.z2 = tu_new_puppet();
	lr.b5 = tu_new_trapper(true);
	lr.b5_link1 = tu_callv(lr.b5, TU_OP_LINK, lr.z2, 0);
	lr.b5_link2 = tu_callv(lr.b5, TU_OP_LINK, lr.z2, 0);
	lr.z2_link = tu_callv(lr.z2, TU_OP_LINK, lr.b5, 0);
	tu_cast(lr.z2, TU_OP_EXIT, ACT_PID_NONE, 44);
	lr.b5_exit = tu_p_take_exit(lr.b5, lr.z2, TU_WAIT);
	ck_assert(tu_wait_gone(lr.z2));
	lr.b5_extra = tu_callv(lr.b5, TU_OP_COUNT, ACT_PID_NONE, 0);
	/* unlink of a live process that is not linked, of a dead one, of
	 * nobody: 0 */
	lr.a_unlink_none = tu_callv(lr.a, TU_OP_UNLINK, lr.b5, 0);
	lr.a_unlink_dead = tu_callv(lr.a, TU_OP_UNLINK, lr.d, 0);
	lr.a_unlink_nobody = tu_callv(lr.a, TU_OP_UNLINK, ACT_PID_NONE, 0);
	/* an EXIT already delivered stays after the unlink */
	lr.x3 = tu_new_puppet();
	lr.b6 = tu_new_trapper(true);
	lr.b6_link = tu_callv(lr.b6, TU_OP_LINK, lr.x3, 0);
	tu_cast(lr.x3, TU_OP_EXIT, ACT_PID_NONE, 45);
	ck_assert(tu_wait_gone(lr.x3));
	lr.b6_unlink = tu_callv(lr.b6, TU_OP_UNLINK, lr.x3, 0);
	lr.b6_exit = tu_p_take_exit(lr.b6, lr.x3, 0);
}

START_TEST(links)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&lr, 0, sizeof(lr));
	ck_assert_int_eq(tu_run_main(&cfg, link_main, NULL), 0);
	/* dead pid */
	ck_assert_int_eq(lr.a_dead_rc, -ESRCH);
	ck_assert_int_eq(lr.a_none_rc, -ESRCH);
	ck_assert_msg(lr.a_count == 0,
		      "a non-trapping caller got %lld EXIT(s) from a link to "
		      "a dead pid",
		      (long long)lr.a_count);
	ck_assert_int_eq(lr.b_dead_rc, -ESRCH);
	TU_ASSERT_EXIT(lr.b_noproc, lr.d, ACT_EXIT_NOPROC,
		       "trapping link to a dead pid");
	ck_assert_int_eq(lr.b_extra, 0);
	/* self */
	ck_assert_int_eq(lr.b_self_rc, 0);
	ck_assert_int_eq(lr.b_self_unlink, 0);
	ck_assert_int_eq(lr.a_self_rc, 0);
	ck_assert_int_eq(lr.b_self_count, 0);
	ck_assert(lr.a_self_alive);
	TU_ASSERT_DOWN(lr.bs_down, lr.b, 33, lr.m_bs, "self-linked b exits");
	/* unlink */
	ck_assert_int_eq(lr.a2_link, 0);
	ck_assert_int_eq(lr.b2_link, 0);
	ck_assert_int_eq(lr.a2_unlink, 0);
	ck_assert_int_eq(lr.b2_unlink, 0);
	TU_ASSERT_DOWN(lr.x_down, lr.x, 44, lr.mx, "x");
	ck_assert_msg(lr.a2_alive, "unlinked, not trapping: died anyway");
	ck_assert_int_eq(lr.a2_count, 0);
	ck_assert_msg(lr.b2_alive, "unlinked, trapping: died");
	TU_ASSERT_NONE(lr.b2_exit, "EXIT after act_unlink");
	ck_assert_int_eq(lr.b2_count, 0);
	ck_assert_int_eq(lr.a3_link, 0);
	ck_assert_int_eq(lr.y_unlink, 0);
	TU_ASSERT_DOWN(lr.y_down, lr.y, 44, lr.my, "y");
	ck_assert_msg(lr.a3_alive, "unlinked by the other end: died anyway");
	ck_assert_int_eq(lr.a3_count, 0);
	/* at most one link */
	ck_assert_int_eq(lr.a4_link1, 0);
	ck_assert_int_eq(lr.a4_link2, 0);
	ck_assert_int_eq(lr.a4_unlink, 0);
	TU_ASSERT_DOWN(lr.z_down, lr.z, 44, lr.mz, "z");
	ck_assert_msg(lr.a4_alive, "linked twice, unlinked once: died");
	ck_assert_int_eq(lr.a4_count, 0);
	ck_assert_int_eq(lr.b5_link1, 0);
	ck_assert_int_eq(lr.b5_link2, 0);
	ck_assert_int_eq(lr.z2_link, 0);
	TU_ASSERT_EXIT(lr.b5_exit, lr.z2, 44, "linked three times");
	ck_assert_msg(lr.b5_extra == 0, "%lld more EXITs: more than one link",
		      (long long)lr.b5_extra);
	ck_assert_int_eq(lr.a_unlink_none, 0);
	ck_assert_int_eq(lr.a_unlink_dead, 0);
	ck_assert_int_eq(lr.a_unlink_nobody, 0);
	ck_assert_int_eq(lr.b6_link, 0);
	ck_assert_int_eq(lr.b6_unlink, 0);
	TU_ASSERT_EXIT(lr.b6_exit, lr.x3, 45, "EXIT delivered before unlink");
}
END_TEST

/* ---- ACT_SPAWN_LINK / ACT_SPAWN_MONITOR: the child exits at once ------- */

#define SPAWN_N 300

static struct spawn_res {
	bool trapped_before;
	int link_ok, link_bad;
	int nolink_parent_ok, nolink_bad;
	int mon_ok, mon_bad, mon_null_ok, both_ok, both_bad;
	int dup_refs;
	int none_ref; /* ACT_SPAWN_MONITOR left monitor_ref 0 */
	char why[256];
} sr;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool exit_is(struct tu_seen s, act_pid p, intptr_t why, uint64_t ref)
{
	return s.n == 1 && act_pid_eq(s.from, p) && act_pid_eq(s.info.who, p) &&
	       s.info.reason == why && s.info.ref == ref &&
	       s.len == sizeof(struct act_exit_info);
}

static void note_bad(const char *what, int i, struct tu_seen s)
{
	if (!sr.why[0])
		snprintf(sr.why, sizeof(sr.why),
			 "%s, round %d: n %d tag %#x reason %ld ref %llu", what,
			 i, s.n, s.tag, (long)s.info.reason,
			 (unsigned long long)s.info.ref);
}

static void spawn_flags_main(void *arg)
{
	static uint64_t refs[2 * SPAWN_N];
	struct act_spawn_opts o;
	struct tu_seen s, s2;
	unsigned nrefs = 0;
	uint64_t ref, mp;
	act_pid c, p;
	int i;

	(void)arg;
	/* LINK, trapping parent: EXIT with the child's reason, never
	 * NOPROC (the link was there before the child ran) */
	sr.trapped_before = act_trap_exit(true);
	for (i = 0; i < SPAWN_N; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_LINK;
		c = act_spawn_opt(tu_exit_at_once, (void *)(intptr_t)46, &o);
		ck_assert(c.id);
		s = tu_take_exit(c, TU_WAIT);
		if (exit_is(s, c, 46, 0)) {
			sr.link_ok++;
		} else {
			sr.link_bad++;
			note_bad("LINK, trapping", i, s);
		}
	}
	act_trap_exit(false);
	/* LINK, parent does not trap: it dies with the child's reason */
	for (i = 0; i < SPAWN_N / 4; i++) {
		struct tu_cmd cm = { .op = TU_OP_SPAWN,
				     .flags = ACT_SPAWN_LINK,
				     .arg = 46 };

		p = tu_new_puppet();
		mp = act_monitor(p);
		tu_cast_c(p, cm);
		s = tu_take_down(p, mp, TU_WAIT);
		if (exit_is(s, p, 46, mp)) {
			sr.nolink_parent_ok++;
		} else {
			sr.nolink_bad++;
			note_bad("LINK, not trapping", i, s);
		}
	}
	/* MONITOR: the ref is filled, its DOWN has the child's reason */
	for (i = 0; i < SPAWN_N; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_MONITOR;
		ref = 0;
		o.monitor_ref = &ref;
		c = act_spawn_opt(tu_exit_at_once, (void *)(intptr_t)47, &o);
		ck_assert(c.id);
		sr.none_ref += ref == 0;
		if (!ref) { /* no ref to wait for: fail at once */
			memset(&s, 0, sizeof(s));
			sr.mon_bad++;
			note_bad("MONITOR: monitor_ref not written", i, s);
			continue;
		}
		refs[nrefs++] = ref;
		s = tu_take_down(c, ref, TU_WAIT);
		if (ref && exit_is(s, c, 47, ref)) {
			sr.mon_ok++;
		} else {
			sr.mon_bad++;
			note_bad("MONITOR", i, s);
		}
	}
	/* monitor_ref NULL: the DOWN comes all the same */
	for (i = 0; i < SPAWN_N / 4; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_MONITOR;
		c = act_spawn_opt(tu_exit_at_once, (void *)(intptr_t)47, &o);
		ck_assert(c.id);
		s = tu_take(ACT_TAG_DOWN, c, false, 0, TU_WAIT);
		if (s.info.ref && exit_is(s, c, 47, s.info.ref)) {
			sr.mon_null_ok++;
			refs[nrefs++] = s.info.ref;
		} else {
			sr.mon_bad++;
			note_bad("MONITOR, NULL monitor_ref", i, s);
		}
	}
	/* both, trapping: an EXIT and a DOWN */
	act_trap_exit(true);
	for (i = 0; i < SPAWN_N / 4; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_LINK | ACT_SPAWN_MONITOR;
		ref = 0;
		o.monitor_ref = &ref;
		c = act_spawn_opt(tu_exit_at_once, (void *)(intptr_t)48, &o);
		ck_assert(c.id);
		s = tu_take_exit(c, TU_WAIT);
		memset(&s2, 0, sizeof(s2));
		if (ref)
			s2 = tu_take_down(c, ref, TU_WAIT);
		if (ref && exit_is(s, c, 48, 0) && exit_is(s2, c, 48, ref)) {
			sr.both_ok++;
			refs[nrefs++] = ref;
		} else {
			sr.both_bad++;
			note_bad("LINK|MONITOR", i, s.n ? s2 : s);
		}
	}
	act_trap_exit(false);
	qsort(refs, nrefs, sizeof(refs[0]), cmp_u64);
	for (i = 1; i < (int)nrefs; i++)
		sr.dup_refs += refs[i] == refs[i - 1];
}

START_TEST(spawn_link_monitor_atomic)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));

	memset(&sr, 0, sizeof(sr));
	ck_assert_int_eq(tu_run_main(&cfg, spawn_flags_main, NULL), 0);
	ck_assert(!sr.trapped_before);
	ck_assert_msg(sr.link_bad == 0 && sr.nolink_bad == 0 &&
			      sr.mon_bad == 0 && sr.both_bad == 0,
		      "%s", sr.why);
	ck_assert_int_eq(sr.link_ok, SPAWN_N);
	ck_assert_int_eq(sr.nolink_parent_ok, SPAWN_N / 4);
	ck_assert_int_eq(sr.mon_ok, SPAWN_N);
	ck_assert_int_eq(sr.mon_null_ok, SPAWN_N / 4);
	ck_assert_int_eq(sr.both_ok, SPAWN_N / 4);
	ck_assert_int_eq(sr.none_ref, 0);
	ck_assert_int_eq(sr.dup_refs, 0);
}
END_TEST

/* ---- a chain A-B-C: C's end spreads to all ----------------------------- */

static struct chain_res {
	act_pid a, b, c;
	uint64_t ma, mb, mc;
	int64_t ab, bc, kill_rc;
	struct tu_seen da, db, dc;
} cr;

struct chain_case {
	const char *name;
	bool by_kill;
	intptr_t reason, expect;
};

static const struct chain_case chains[] = {
	{ "kill C with 47", true, 47, 47 },
	{ "kill C with KILL", true, ACT_EXIT_KILL, ACT_EXIT_KILLED },
	{ "C act_exit(49)", false, 49, 49 },
};

static void chain_main(void *arg)
{
	const struct chain_case *cc = arg;

	act_trap_exit(true); /* the observer traps: it is not linked */
	cr.c = tu_new_puppet();
	cr.b = tu_new_puppet();
	cr.a = tu_new_puppet();
	cr.bc = tu_callv(cr.b, TU_OP_LINK, cr.c, 0);
	cr.ab = tu_callv(cr.a, TU_OP_LINK, cr.b, 0);
	cr.ma = act_monitor(cr.a);
	cr.mb = act_monitor(cr.b);
	cr.mc = act_monitor(cr.c);
	if (cc->by_kill)
		cr.kill_rc = act_kill(cr.c, cc->reason);
	else
		tu_cast(cr.c, TU_OP_EXIT, ACT_PID_NONE, cc->reason);
	cr.dc = tu_take_down(cr.c, cr.mc, TU_WAIT);
	cr.db = tu_take_down(cr.b, cr.mb, TU_WAIT);
	cr.da = tu_take_down(cr.a, cr.ma, TU_WAIT);
}

START_TEST(link_chain)
{
	const struct chain_case *cc = &chains[_i / 2];
	struct act_config cfg = tu_with_workers(TU_W24(_i % 2));

	memset(&cr, 0, sizeof(cr));
	ck_assert_int_eq(tu_run_main(&cfg, chain_main, (void *)cc), 0);
	ck_assert_int_eq(cr.bc, 0);
	ck_assert_int_eq(cr.ab, 0);
	ck_assert_int_eq(cr.kill_rc, 0);
	TU_ASSERT_DOWN(cr.dc, cr.c, cc->expect, cr.mc, cc->name);
	TU_ASSERT_DOWN(cr.db, cr.b, cc->expect, cr.mb, cc->name);
	TU_ASSERT_DOWN(cr.da, cr.a, cc->expect, cr.ma, cc->name);
}
END_TEST

/* ---- I5: unlinking a stale pid leaves the slot's next occupant linked --- */

static void wait_go_exit(void *arg)
{
	act_receive(TU_WAIT); /* any message: go */
	act_exit((intptr_t)arg);
}

static struct stale_unlink {
	int same_slot, unlink_rc, exit_tag;
	intptr_t exit_reason;
} su;

static void stale_unlink_main(void *arg)
{
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK };
	struct act_msg *m;
	act_pid a, b;

	(void)arg;
	act_trap_exit(true);
	/* a second link, so that act_unlink looks on the child's shorter
	 * list, where the stale pid's slot shows its new occupant */
	ck_assert(act_spawn_opt(wait_go_exit, (void *)(intptr_t)43, &o).id);
	a = act_spawn_opt(tu_exit_at_once, (void *)(intptr_t)41, &o);
	m = act_receive(TU_WAIT); /* a's EXIT: its slot is free again */
	if (m)
		act_msg_free(m);
	ck_assert(tu_wait_gone(a));
	b = act_spawn_opt(wait_go_exit, (void *)(intptr_t)42, &o);
	su.same_slot = tu_pid_index(a) == tu_pid_index(b);
	su.unlink_rc = act_unlink(a); /* a stale pid: names no link */
	act_send(b, 1, NULL, 0);
	m = act_receive(TU_WAIT);
	if (m) {
		su.exit_tag = m->tag == ACT_TAG_EXIT;
		su.exit_reason =
			((const struct act_exit_info *)m->data)->reason;
		act_msg_free(m);
	}
}

START_TEST(unlink_stale_pid)
{
	struct act_config cfg = tu_with_workers(1); /* LIFO slot reuse */

	memset(&su, 0, sizeof(su));
	ck_assert_int_eq(tu_run_main(&cfg, stale_unlink_main, NULL), 0);
	ck_assert_msg(su.same_slot, "the second child took another slot");
	ck_assert_int_eq(su.unlink_rc, 0);
	ck_assert_msg(su.exit_tag, "no EXIT from the slot's new occupant");
	ck_assert_int_eq(su.exit_reason, 42);
}
END_TEST

/* ---- act_spawn_opts checked ---------------------------------------------- */

static struct {
	bool bad_flag_none, reserved_none, big_limit_none;
	uint64_t ref_after_fail, ref_without_flag;
	bool ok_spawned;
} sor;

static void spawn_opts_main(void *arg)
{
	struct act_spawn_opts o;
	uint64_t ref;
	act_pid c;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.flags = 1u << 7;
	sor.bad_flag_none = !act_spawn_opt(tu_exit_at_once, NULL, &o).id;
	memset(&o, 0, sizeof(o));
	o.reserved[0] = 1;
	o.flags = ACT_SPAWN_MONITOR;
	ref = 0xabcdef;
	o.monitor_ref = &ref;
	sor.reserved_none = !act_spawn_opt(tu_exit_at_once, NULL, &o).id;
	sor.ref_after_fail = ref;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 0x80000000u;
	sor.big_limit_none = !act_spawn_opt(tu_exit_at_once, NULL, &o).id;
	/* monitor_ref ignored without ACT_SPAWN_MONITOR */
	memset(&o, 0, sizeof(o));
	o.flags = ACT_SPAWN_LINK;
	ref = 0x123456;
	o.monitor_ref = &ref;
	c = act_spawn_opt(tu_exit_at_once, NULL, &o); /* exits NORMAL */
	sor.ok_spawned = c.id != 0;
	sor.ref_without_flag = ref;
	if (c.id)
		ck_assert(tu_wait_gone(c));
}

START_TEST(spawn_opts_checked)
{
	struct act_config cfg = tu_with_workers(1);

	memset(&sor, 0, sizeof(sor));
	ck_assert_int_eq(tu_run_main(&cfg, spawn_opts_main, NULL), 0);
	ck_assert(sor.bad_flag_none);
	ck_assert(sor.reserved_none);
	ck_assert_uint_eq(sor.ref_after_fail, 0xabcdef);
	ck_assert(sor.big_limit_none);
	ck_assert(sor.ok_spawned);
	ck_assert_uint_eq(sor.ref_without_flag, 0x123456);
}
END_TEST

/* ---- outside a process, and without a runtime --------------------------- */

struct outside {
	int link, unlink, demon, on_exit;
	uint64_t mon;
	bool trap1, trap2;
	int reg, unreg;
	bool where_none;
};

/* A handler for act_on_exit to refuse. */
static void no_handler(void *arg)
{
	(void)arg;
}

static void outside_calls(struct outside *o, act_pid some)
{
	o->link = act_link(some);
	o->unlink = act_unlink(some);
	o->demon = act_demonitor(1);
	o->on_exit = act_on_exit(no_handler, NULL);
	o->mon = act_monitor(some);
	o->trap1 = act_trap_exit(true);
	o->trap2 = act_trap_exit(true);
}

static struct {
	act_pid some;
	struct outside thr;
	uint64_t some_ref;
	struct tu_seen some_down;
	bool some_alive;
} outr;

static void *outside_thread(void *arg)
{
	outside_calls(arg, outr.some);
	return NULL;
}

static void outside_main(void *arg)
{
	pthread_t th;

	(void)arg;
	outr.some = tu_new_puppet();
	outr.some_ref = act_monitor(outr.some);
	ck_assert_int_eq(pthread_create(&th, NULL, outside_thread, &outr.thr),
			 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* nothing of that touched the process */
	outr.some_alive = tu_call(outr.some, TU_OP_PING, ACT_PID_NONE, 0).ok;
	tu_cast(outr.some, TU_OP_EXIT, ACT_PID_NONE, 3);
	outr.some_down = tu_take_down(outr.some, outr.some_ref, TU_WAIT);
}

START_TEST(outside_a_process)
{
	struct act_config cfg = tu_with_workers(2);
	struct outside none;
	act_pid fake = { 0x100000001ull };

	/* no runtime at all */
	memset(&none, 0, sizeof(none));
	outside_calls(&none, fake);
	none.reg = act_register("x", fake);
	none.unreg = act_unregister("x");
	none.where_none = act_pid_eq(act_whereis("x"), ACT_PID_NONE);
	ck_assert_int_eq(none.link, -EPERM);
	ck_assert_int_eq(none.unlink, -EPERM);
	ck_assert_int_eq(none.demon, -EPERM);
	ck_assert_int_eq(none.on_exit, -EPERM);
	ck_assert_uint_eq(none.mon, 0);
	ck_assert(!none.trap1);
	ck_assert(!none.trap2);
	ck_assert_int_eq(none.reg, -ESRCH);
	ck_assert_int_eq(none.unreg, -ENOENT);
	ck_assert(none.where_none);
	/* a thread that is not a process, while a runtime runs */
	memset(&outr, 0, sizeof(outr));
	ck_assert_int_eq(tu_run_main(&cfg, outside_main, NULL), 0);
	ck_assert_int_eq(outr.thr.link, -EPERM);
	ck_assert_int_eq(outr.thr.unlink, -EPERM);
	ck_assert_int_eq(outr.thr.demon, -EPERM);
	ck_assert_int_eq(outr.thr.on_exit, -EPERM);
	ck_assert_uint_eq(outr.thr.mon, 0);
	ck_assert(!outr.thr.trap1);
	ck_assert(!outr.thr.trap2);
	ck_assert(outr.some_alive);
	TU_ASSERT_DOWN(outr.some_down, outr.some, 3, outr.some_ref, "some");
}
END_TEST

/* ======================================================================
 * 5. Races across workers
 * ====================================================================== */

static struct tu_race rr;
static act_pid boss; /* the races' main process: the other sides report */

/* ---- link vs exit, trapping linker ------------------------------------- */

struct link_report {
	int rc;
	struct tu_seen first;
	int extra;
	bool gone;
};

static void race_linker_trap(void *arg)
{
	act_pid t = *(act_pid *)arg;
	struct act_msg *m;
	struct link_report lr_;

	act_trap_exit(true);
	m = act_receive_match(tu_is_go, NULL, TU_WAIT);
	if (m)
		act_msg_free(m);
	memset(&lr_, 0, sizeof(lr_));
	lr_.rc = act_link(t);
	lr_.first = tu_take_exit(t, TU_WAIT);
	lr_.gone = tu_wait_gone(t);
	lr_.extra = tu_drain_now(ACT_TAG_EXIT, t, false);
	act_send(boss, TU_TAG_REPORT, &lr_, sizeof(lr_));
}

static void race_link_trap_main(void *arg)
{
	struct link_report rep;
	act_pid t, l;
	int i;

	(void)arg;
	boss = act_self();
	for (i = 0; i < TU_RACE_N && !rr.bad; i++) {
		t = tu_spawn(tu_go_then_exit, NULL);
		l = tu_spawn(race_linker_trap, &t);
		tu_go_both(i, t, l);
		if (!tu_take_report(&rr, i, l, &rep, sizeof(rep)))
			break;
		rr.iters++;
		if (!rep.gone || rep.extra || rep.first.n != 1 ||
		    !act_pid_eq(rep.first.info.who, t) ||
		    !act_pid_eq(rep.first.from, t) || rep.first.info.ref) {
			tu_race_bad(&rr, i, "gone %d, EXITs %d, who ok %d",
				    rep.gone, rep.first.n + rep.extra,
				    act_pid_eq(rep.first.info.who, t));
		} else if (rep.rc == 0 && rep.first.info.reason == 70) {
			rr.linked++;
		} else if (rep.rc == -ESRCH &&
			   rep.first.info.reason == ACT_EXIT_NOPROC) {
			rr.noproc++;
		} else {
			tu_race_bad(&rr, i, "act_link %d but EXIT reason %ld",
				    rep.rc, (long)rep.first.info.reason);
		}
		tu_wait_gone(l);
	}
}

START_TEST(race_link_vs_exit_trapping)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(tu_run_main(&cfg, race_link_trap_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, TU_RACE_N);
	ck_assert_int_eq(rr.linked + rr.noproc, TU_RACE_N);
	printf("race_link_vs_exit_trapping/%d: linked %d, noproc %d\n", _i,
	       rr.linked, rr.noproc);
}
END_TEST

/* ---- link vs exit, linker does not trap -------------------------------- */

struct nt_link {
	act_pid t;
	_Atomic int rc; /* INT32_MIN: not yet */
};

static void race_linker_notrap(void *arg)
{
	struct nt_link *nl = arg;
	struct act_msg *m = act_receive_match(tu_is_go, NULL, TU_WAIT);

	if (m)
		act_msg_free(m);
	atomic_store(&nl->rc, act_link(nl->t));
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TU_TAG_STOP,
			      TU_WAIT);
	if (m)
		act_msg_free(m);
}

static void race_link_notrap_main(void *arg)
{
	static struct nt_link nl;
	struct tu_seen d;
	act_pid l;
	uint64_t ml;
	int64_t end;
	int i, k, rc;

	(void)arg;
	for (i = 0; i < TU_RACE_N && !rr.bad; i++) {
		atomic_store(&nl.rc, INT32_MIN);
		nl.t = tu_spawn(tu_go_then_exit, NULL);
		l = tu_spawn(race_linker_notrap, &nl);
		ml = act_monitor(l);
		tu_go_both(i, nl.t, l);
		end = act__clock_now() + TU_WAIT;
		for (k = 0;
		     atomic_load(&nl.rc) == INT32_MIN && act__clock_now() < end;
		     k++)
			if (k < 1000)
				act_yield();
			else
				act_sleep(100000);
		rc = atomic_load(&nl.rc);
		if (rc == INT32_MIN) {
			tu_race_bad(&rr, i, "the linker never linked");
			break;
		}
		if (!tu_wait_gone(nl.t)) {
			tu_race_bad(&rr, i, "target never reaped");
			break;
		}
		if (rc == -ESRCH)
			act_send(l, TU_TAG_STOP, NULL, 0);
		d = tu_take_down(l, ml, TU_WAIT);
		rr.iters++;
		if (rc == 0 && d.n && d.info.reason == 70)
			rr.linked++;
		else if (rc == -ESRCH && d.n &&
			 d.info.reason == ACT_EXIT_NORMAL)
			rr.noproc++;
		else
			tu_race_bad(&rr, i,
				    "act_link %d, linker's DOWN %d reason %ld",
				    rc, d.n, (long)d.info.reason);
	}
}

START_TEST(race_link_vs_exit)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(tu_run_main(&cfg, race_link_notrap_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, TU_RACE_N);
	ck_assert_int_eq(rr.linked + rr.noproc, TU_RACE_N);
	printf("race_link_vs_exit/%d: linked %d, noproc %d\n", _i, rr.linked,
	       rr.noproc);
}
END_TEST

/* ---- concurrent kills of one target ------------------------------------ */

#define KILLERS 3
#define KILL_RACE_N (TU_UNDER_TSAN ? 100 : 500)

static _Atomic int kr_calls_a, kr_calls_b, kr_order_bad;

static void kr_h_a(void *arg) /* registered first: runs last */
{
	(void)arg;
	atomic_fetch_add(&kr_calls_a, 1);
}

static void kr_h_b(void *arg)
{
	(void)arg;
	if (atomic_load(&kr_calls_a))
		atomic_fetch_add(&kr_order_bad, 1);
	atomic_fetch_add(&kr_calls_b, 1);
}

static void kr_target(void *arg)
{
	(void)arg;
	act_on_exit(kr_h_a, NULL);
	act_on_exit(kr_h_b, NULL);
	act_send(boss, TU_TAG_READY, NULL, 0);
	act_receive_match(tu_match_never, NULL, TU_WAIT);
}

struct killer {
	act_pid t;
	intptr_t reason;
	_Atomic int rc; /* INT32_MIN: not yet */
};

static void kr_killer(void *arg)
{
	struct killer *k = arg;
	struct act_msg *m = act_receive_match(tu_is_go, NULL, TU_WAIT);

	if (m)
		act_msg_free(m);
	atomic_store(&k->rc, act_kill(k->t, k->reason));
}

static bool reason_ok(intptr_t r)
{
	return r == ACT_EXIT_KILLED || r == 81 || r == 82;
}

static void race_kill_main(void *arg)
{
	static struct killer ks[KILLERS];
	static const intptr_t reasons[KILLERS] = { ACT_EXIT_KILL, 81, 82 };
	struct tu_seen d1, d2, e;
	act_pid t, kp[KILLERS], peer;
	uint64_t r1, r2;
	int i, j, zero, rc;
	int64_t extra;

	(void)arg;
	boss = act_self();
	peer = tu_new_trapper(true);
	for (i = 0; i < KILL_RACE_N && !rr.bad; i++) {
		atomic_store(&kr_calls_a, 0);
		atomic_store(&kr_calls_b, 0);
		atomic_store(&kr_order_bad, 0);
		t = tu_spawn(kr_target, NULL);
		if (!tu_take(TU_TAG_READY, t, false, 0, TU_WAIT).n) {
			tu_race_bad(&rr, i, "target not ready");
			break;
		}
		r1 = act_monitor(t);
		r2 = act_monitor(t);
		if (tu_callv(peer, TU_OP_LINK, t, 0) != 0) {
			tu_race_bad(&rr, i, "peer's link failed");
			break;
		}
		for (j = 0; j < KILLERS; j++) {
			ks[j].t = t;
			ks[j].reason = reasons[(i + j) % KILLERS];
			atomic_store(&ks[j].rc, INT32_MIN);
			kp[j] = tu_spawn(kr_killer, &ks[j]);
		}
		for (j = 0; j < KILLERS; j++)
			act_send(kp[j], TU_TAG_GO, NULL, 0);
		d1 = tu_take_down(t, r1, TU_WAIT);
		d2 = tu_take_down(t, r2, TU_WAIT);
		e = tu_p_take_exit(peer, t, TU_WAIT);
		if (!tu_wait_gone(t)) {
			tu_race_bad(&rr, i, "target never reaped");
			break;
		}
		for (j = 0; j < KILLERS; j++)
			tu_wait_gone(kp[j]);
		extra = tu_drain_now(ACT_TAG_DOWN, t, false);
		extra += tu_callv(peer, TU_OP_COUNT, ACT_PID_NONE, 0);
		zero = 0;
		for (j = 0; j < KILLERS; j++) {
			rc = atomic_load(&ks[j].rc);
			zero += rc == 0;
			if (rc != 0 && rc != -ESRCH)
				tu_race_bad(&rr, i, "act_kill %d", rc);
		}
		rr.iters++;
		if (!d1.n || !d2.n || !e.n || extra)
			tu_race_bad(&rr, i, "DOWNs %d, EXITs %d, extra %lld",
				    d1.n + d2.n, e.n, (long long)extra);
		else if (!reason_ok(d1.info.reason) ||
			 d1.info.reason != d2.info.reason ||
			 d1.info.reason != e.info.reason)
			tu_race_bad(&rr, i, "reasons %ld %ld %ld",
				    (long)d1.info.reason, (long)d2.info.reason,
				    (long)e.info.reason);
		else if (atomic_load(&kr_calls_a) != 1 ||
			 atomic_load(&kr_calls_b) != 1 ||
			 atomic_load(&kr_order_bad))
			tu_race_bad(&rr, i,
				    "handlers ran %d and %d times, order %d",
				    atomic_load(&kr_calls_a),
				    atomic_load(&kr_calls_b),
				    atomic_load(&kr_order_bad));
		else if (zero < 1)
			tu_race_bad(&rr, i, "no act_kill returned 0");
		else
			rr.linked++;
	}
	tu_cast(peer, TU_OP_RETURN, ACT_PID_NONE, 0);
}

START_TEST(race_concurrent_kills)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(tu_run_main(&cfg, race_kill_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, KILL_RACE_N);
	ck_assert_int_eq(rr.linked, KILL_RACE_N);
}
END_TEST

static Suite *links_suite(void)
{
	Suite *s = suite_create("links");
	TCase *sig = tcase_create("signals"), *lnk = tcase_create("links"),
	      *race = tcase_create("races");

	tcase_set_timeout(sig, 120);
	tcase_add_loop_test(sig, exit_signal_table, 0, 2 * N_ROWS);
	tcase_add_test(sig, trap_exit_returns_previous);
	tcase_add_loop_test(sig, kill_signal, 0, 2);
	tcase_add_loop_test(sig, signal_after_messages, 0, 2);
	suite_add_tcase(s, sig);

	tcase_set_timeout(lnk, 120);
	tcase_add_loop_test(lnk, links, 0, 2);
	tcase_add_loop_test(lnk, spawn_link_monitor_atomic, 0, 2);
	tcase_add_test(lnk, spawn_opts_checked);
	tcase_add_test(lnk, unlink_stale_pid);
	tcase_add_loop_test(lnk, link_chain, 0,
			    2 * (int)(sizeof(chains) / sizeof(chains[0])));
	tcase_add_test(lnk, outside_a_process);
	suite_add_tcase(s, lnk);

	tcase_set_timeout(race, 300);
	tcase_add_loop_test(race, race_link_vs_exit_trapping, 0, 2);
	tcase_add_loop_test(race, race_link_vs_exit, 0, 2);
	tcase_add_loop_test(race, race_concurrent_kills, 0, 2);
	suite_add_tcase(s, race);

	return s;
}

int main(void)
{
	/* tu_run_suite does not know these yet */
	unsetenv("ACTORS_TIMER_US");
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(links_suite());
}
