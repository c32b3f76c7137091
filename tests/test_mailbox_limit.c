/* SPDX-License-Identifier: MIT */
/*
 * test_mailbox_limit.c - the mailbox limit (doc/design/lifecycle.md,
 * lib/proc/mailbox.c's act__mailbox_limit_in, the kill in
 * lib/actor/message.c): a receiver past its limit is killed
 * with ACT_EXIT_MAILBOX and the send that passed it gets -ENOBUFS, the
 * save queue and timer messages count and EXIT and DOWN do not, a
 * receiver that keeps up never hits it, the runtime's default
 * (act_config.mailbox_limit, ACTORS_MAILBOX_LIMIT) and spawn options over
 * it, and senders on several workers against one limit.
 *
 * The harness (puppets, tu_take_down, TU_ASSERT_DOWN) is
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

/* This program's own tags. */
enum {
	T_ACK = TU_TAG_LOCAL,
};

/* Never takes a message: it sleeps (act_sleep leaves them in the
 * mailbox) until the runtime stops or a kill ends it. */
static void sleeper(void *arg)
{
	(void)arg;
	act_sleep(TU_WAIT);
}

/* ======================================================================
 * 1. The mailbox limit
 * ====================================================================== */

static bool tag_99(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == 99;
}

/* Never receives: waits in a selective receive that matches nothing it
 * is sent (the messages pile up in the save queue). */
static void selective_sleeper(void *arg)
{
	(void)arg;
	act_receive_match(tag_99, NULL, TU_WAIT);
}

static struct mbox_res {
	act_pid v, t, v2;
	uint64_t mv, mv2;
	int64_t link_rc;
	int ok, rc101, ok2, rc11, after_rc;
	struct tu_seen down, exit, down2;
} mbr;

static void mbox_kill_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 100;
	mbr.v = act_spawn_opt(sleeper, NULL, &o);
	ck_assert(mbr.v.id);
	mbr.t = tu_new_trapper(true);
	mbr.link_rc = tu_callv(mbr.t, TU_OP_LINK, mbr.v, 0);
	mbr.mv = act_monitor(mbr.v);
	ck_assert(tu_wait_waiting(mbr.v));
	for (i = 0; i < 100; i++)
		mbr.ok += act_send(mbr.v, TU_TAG_DATA, &i, sizeof(i)) == 0;
	mbr.rc101 = act_send(mbr.v, TU_TAG_DATA, &i, sizeof(i));
	mbr.down = tu_take_down(mbr.v, mbr.mv, TU_WAIT);
	mbr.exit = tu_p_take_exit(mbr.t, mbr.v, TU_WAIT);
	ck_assert(tu_wait_gone(mbr.v));
	mbr.after_rc = act_send(mbr.v, TU_TAG_DATA, &i, sizeof(i));
	/* the save queue counts too */
	o.mailbox_limit = 10;
	mbr.v2 = act_spawn_opt(selective_sleeper, NULL, &o);
	ck_assert(mbr.v2.id);
	mbr.mv2 = act_monitor(mbr.v2);
	ck_assert(tu_wait_waiting(mbr.v2));
	for (i = 0; i < 10; i++) {
		mbr.ok2 += act_send(mbr.v2, TU_TAG_DATA, &i, sizeof(i)) == 0;
		if (i == 4) /* it scans what came so far into its save queue */
			act_sleep(TU_QUIET);
	}
	mbr.rc11 = act_send(mbr.v2, TU_TAG_DATA, &i, sizeof(i));
	mbr.down2 = tu_take_down(mbr.v2, mbr.mv2, TU_WAIT);
}

START_TEST(mailbox_limit_kills)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&mbr, 0, sizeof(mbr));
	ck_assert_int_eq(tu_run_main(&cfg, mbox_kill_main, NULL), 0);
	ck_assert_int_eq(mbr.link_rc, 0);
	ck_assert_int_eq(mbr.ok, 100);
	ck_assert_int_eq(mbr.rc101, -ENOBUFS);
	TU_ASSERT_DOWN(mbr.down, mbr.v, ACT_EXIT_MAILBOX, mbr.mv, "limit 100");
	TU_ASSERT_EXIT(mbr.exit, mbr.v, ACT_EXIT_MAILBOX, "linked, trapping");
	ck_assert_int_eq(mbr.after_rc, -ESRCH);
	ck_assert_int_eq(mbr.ok2, 10);
	ck_assert_int_eq(mbr.rc11, -ENOBUFS);
	TU_ASSERT_DOWN(mbr.down2, mbr.v2, ACT_EXIT_MAILBOX, mbr.mv2,
		       "limit 10, messages in the save queue");
}
END_TEST

/* EXIT and DOWN messages do not count, and are never refused. */
#define SIG_KIDS 5

static struct sigcount_res {
	act_pid v;
	uint64_t mv;
	int v_saw, ok, rc3;
	struct tu_seen down;
} scr;

static bool count_sigs(const struct act_msg *m, void *ctx)
{
	*(int *)ctx += m->tag == ACT_TAG_EXIT || m->tag == ACT_TAG_DOWN;
	return false;
}

static void sig_victim(void *arg)
{
	struct act_spawn_opts o;
	act_pid boss = *(act_pid *)arg;
	int i, n = 0, round;

	act_trap_exit(true);
	memset(&o, 0, sizeof(o));
	o.flags = ACT_SPAWN_LINK | ACT_SPAWN_MONITOR;
	for (i = 0; i < SIG_KIDS; i++)
		ck_assert(
			act_spawn_opt(tu_exit_at_once, (void *)(intptr_t)5, &o)
				.id);
	/* 2 * SIG_KIDS signals against a limit of 2: none taken out */
	for (round = 0; round < 20000; round++) {
		n = 0;
		ck_assert_ptr_null(act_receive_match(count_sigs, &n, 0));
		if (n >= 2 * SIG_KIDS)
			break;
		act_sleep(TU_MS);
	}
	act_send(boss, TU_TAG_READY, &n, sizeof(n));
	act_sleep(TU_WAIT);
}

static void sigcount_main(void *arg)
{
	struct act_spawn_opts o;
	act_pid self = act_self();
	struct act_msg *m;
	struct tu_sig_want w = { .tag = TU_TAG_READY };
	int i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 2;
	scr.v = act_spawn_opt(sig_victim, &self, &o);
	ck_assert(scr.v.id);
	scr.mv = act_monitor(scr.v);
	w.from = scr.v;
	m = act_receive_match(tu_sig_is, &w, TU_WAIT);
	if (m) {
		memcpy(&scr.v_saw, m->data, sizeof(scr.v_saw));
		act_msg_free(m);
	}
	ck_assert(tu_wait_waiting(scr.v));
	for (i = 0; i < 2; i++)
		scr.ok += act_send(scr.v, TU_TAG_DATA, &i, sizeof(i)) == 0;
	scr.rc3 = act_send(scr.v, TU_TAG_DATA, &i, sizeof(i));
	scr.down = tu_take_down(scr.v, scr.mv, TU_WAIT);
}

START_TEST(mailbox_signals_not_counted)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&scr, 0, sizeof(scr));
	ck_assert_int_eq(tu_run_main(&cfg, sigcount_main, NULL), 0);
	ck_assert_msg(scr.v_saw == 2 * SIG_KIDS,
		      "the victim (limit 2) saw %d of %d EXIT/DOWN", scr.v_saw,
		      2 * SIG_KIDS);
	ck_assert_int_eq(scr.ok, 2);
	ck_assert_int_eq(scr.rc3, -ENOBUFS);
	TU_ASSERT_DOWN(scr.down, scr.v, ACT_EXIT_MAILBOX, scr.mv, "limit 2");
}
END_TEST

/* A receiver that keeps up never hits its limit. */
#define LOCKSTEP_N 10000

static struct lockstep_res {
	act_pid v;
	uint64_t mv;
	int ok1, acks1, ok2, acks2;
	struct tu_seen down;
} lsr;

static void echo(void *arg)
{
	struct act_msg *m;
	uint32_t tag;
	act_pid from;

	(void)arg;
	for (;;) {
		m = act_receive(TU_WAIT);
		if (!m)
			return;
		tag = m->tag;
		from = m->from;
		act_msg_free(m);
		if (tag == TU_TAG_STOP)
			return;
		act_send(from, T_ACK, NULL, 0);
	}
}

static void lockstep_main(void *arg)
{
	struct act_spawn_opts o;
	int i, sent = 0, acked = 0;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 100;
	lsr.v = act_spawn_opt(echo, NULL, &o);
	ck_assert(lsr.v.id);
	lsr.mv = act_monitor(lsr.v);
	for (i = 0; i < LOCKSTEP_N; i++) {
		if (act_send(lsr.v, TU_TAG_DATA, &i, sizeof(i)) != 0)
			break;
		lsr.ok1++;
		if (!tu_take(T_ACK, lsr.v, false, 0, TU_WAIT).n)
			break;
		lsr.acks1++;
	}
	/* a window of 100 unacknowledged: never more than 100 unread */
	while (acked < LOCKSTEP_N) {
		while (sent < LOCKSTEP_N && sent - acked < 100) {
			if (act_send(lsr.v, TU_TAG_DATA, &sent, sizeof(sent)))
				goto out;
			sent++;
			lsr.ok2++;
		}
		if (!tu_take(T_ACK, lsr.v, false, 0, TU_WAIT).n)
			break;
		acked++;
		lsr.acks2++;
	}
out:
	act_send(lsr.v, TU_TAG_STOP, NULL, 0);
	lsr.down = tu_take_down(lsr.v, lsr.mv, TU_WAIT);
}

START_TEST(mailbox_keeping_up)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&lsr, 0, sizeof(lsr));
	ck_assert_int_eq(tu_run_main(&cfg, lockstep_main, NULL), 0);
	ck_assert_int_eq(lsr.ok1, LOCKSTEP_N);
	ck_assert_int_eq(lsr.acks1, LOCKSTEP_N);
	ck_assert_int_eq(lsr.ok2, LOCKSTEP_N);
	ck_assert_int_eq(lsr.acks2, LOCKSTEP_N);
	TU_ASSERT_DOWN(lsr.down, lsr.v, ACT_EXIT_NORMAL, lsr.mv, "echo");
}
END_TEST

/* The runtime's default (act_config.mailbox_limit, ACTORS_MAILBOX_LIMIT)
 * and spawn options over it. probe(): sends to a sleeper until a send
 * fails (up to max): how many went through, the failure, the DOWN. */
struct probe {
	int ok, rc;
	struct tu_seen down;
	act_pid v;
	uint64_t ref;
};

static struct probe probe(uint32_t spawn_limit, int max)
{
	struct act_spawn_opts o;
	struct probe pr;
	int i;

	memset(&pr, 0, sizeof(pr));
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = spawn_limit;
	pr.v = act_spawn_opt(sleeper, NULL, &o);
	ck_assert(pr.v.id);
	pr.ref = act_monitor(pr.v);
	ck_assert(tu_wait_waiting(pr.v));
	for (i = 0; i < max; i++) {
		pr.rc = act_send(pr.v, TU_TAG_DATA, &i, sizeof(i));
		if (pr.rc)
			break;
		pr.ok++;
	}
	if (!pr.rc)
		act_kill(pr.v, ACT_EXIT_KILL);
	pr.down = tu_take_down(pr.v, pr.ref, TU_WAIT);
	return pr;
}

static struct default_res {
	struct probe dflt, unlimited, own;
	bool u_alive;
	act_pid u;
	uint64_t mu;
	int u_ok;
	struct tu_seen u_down;
} dr;

static void default_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	dr.dflt = probe(0, 1000);
	dr.unlimited = probe(ACT_MAILBOX_UNLIMITED, 1000);
	dr.own = probe(10, 1000);
	/* unlimited, and alive after 1000 unread: it answers, then ends */
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = ACT_MAILBOX_UNLIMITED;
	dr.u = act_spawn_opt(tu_puppet, NULL, &o);
	ck_assert(dr.u.id);
	dr.mu = act_monitor(dr.u);
	for (i = 0; i < 1000; i++)
		dr.u_ok += act_send(dr.u, TU_TAG_DATA, &i, sizeof(i)) == 0;
	dr.u_alive = tu_call(dr.u, TU_OP_PING, ACT_PID_NONE, 0).ok;
	tu_cast(dr.u, TU_OP_RETURN, ACT_PID_NONE, 0);
	dr.u_down = tu_take_down(dr.u, dr.mu, TU_WAIT);
}

START_TEST(mailbox_default_and_override)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	cfg.mailbox_limit = 50;
	memset(&dr, 0, sizeof(dr));
	ck_assert_int_eq(tu_run_main(&cfg, default_main, NULL), 0);
	ck_assert_int_eq(dr.dflt.ok, 50);
	ck_assert_int_eq(dr.dflt.rc, -ENOBUFS);
	TU_ASSERT_DOWN(dr.dflt.down, dr.dflt.v, ACT_EXIT_MAILBOX, dr.dflt.ref,
		       "the runtime's limit");
	ck_assert_int_eq(dr.unlimited.ok, 1000);
	ck_assert_int_eq(dr.unlimited.rc, 0);
	TU_ASSERT_DOWN(dr.unlimited.down, dr.unlimited.v, ACT_EXIT_KILLED,
		       dr.unlimited.ref, "ACT_MAILBOX_UNLIMITED");
	ck_assert_int_eq(dr.own.ok, 10);
	ck_assert_int_eq(dr.own.rc, -ENOBUFS);
	TU_ASSERT_DOWN(dr.own.down, dr.own.v, ACT_EXIT_MAILBOX, dr.own.ref,
		       "its own limit");
	ck_assert_int_eq(dr.u_ok, 1000);
	ck_assert(dr.u_alive);
	TU_ASSERT_DOWN(dr.u_down, dr.u, ACT_EXIT_NORMAL, dr.mu, "unlimited");
}
END_TEST

static struct probe env_pr;

static void env_probe_main(void *arg)
{
	(void)arg;
	env_pr = probe(0, 600);
}

START_TEST(mailbox_env)
{
	static const char *const bad[] = { "",	  "0",	 "-1", "2147483648",
					   "abc", "10k", " 5" };
	struct act_config cfg = tu_with_workers(2);

	/* ACTORS_MAILBOX_LIMIT sets the default */
	setenv("ACTORS_MAILBOX_LIMIT", "20", 1);
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(tu_run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 20);
	ck_assert_int_eq(env_pr.rc, -ENOBUFS);
	ck_assert_int_eq(env_pr.down.info.reason, ACT_EXIT_MAILBOX);
	/* a set field wins */
	cfg.mailbox_limit = 30;
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(tu_run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 30);
	ck_assert_int_eq(env_pr.rc, -ENOBUFS);
	/* ACT_MAILBOX_UNLIMITED in the field wins too */
	cfg.mailbox_limit = ACT_MAILBOX_UNLIMITED;
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(tu_run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 600);
	ck_assert_int_eq(env_pr.rc, 0);
	/* off */
	cfg.mailbox_limit = 0;
	setenv("ACTORS_MAILBOX_LIMIT", "off", 1);
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(tu_run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 600);
	ck_assert_int_eq(env_pr.rc, 0);
	unsetenv("ACTORS_MAILBOX_LIMIT");
	/* bad values, in the environment and in the field */
	ck_assert_uint_eq(tu_assert_env_refused("ACTORS_MAILBOX_LIMIT", bad,
						TU_N_BAD),
			  TU_N_BAD);
	cfg.mailbox_limit = 0x80000000u;
	ck_assert_int_eq(act_main(&cfg, tu_env_nop, NULL), -EINVAL);
	cfg.mailbox_limit = 0x7fffffffu;
	ck_assert_int_eq(tu_run_main(&cfg, tu_env_nop, NULL), 0);
}
END_TEST

/* ---- timer messages count against the limit ----------------------------- */

static struct {
	act_pid v;
	uint64_t ref;
	int ok, timer_rc;
	struct tu_seen down;
} tmr;

static void timer_limit_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 3;
	o.flags = ACT_SPAWN_MONITOR;
	o.monitor_ref = &tmr.ref;
	tmr.v = act_spawn_opt(sleeper, NULL, &o);
	ck_assert(tmr.v.id);
	for (i = 0; i < 3; i++)
		tmr.ok += act_send(tmr.v, TU_TAG_DATA, &i, sizeof(i)) == 0;
	tmr.timer_rc = act_send_after(TU_MS, tmr.v, TU_TAG_DATA, NULL, 0, NULL);
	tmr.down = tu_take_down(tmr.v, tmr.ref, TU_WAIT);
}

START_TEST(mailbox_timer_counts)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&tmr, 0, sizeof(tmr));
	ck_assert_int_eq(tu_run_main(&cfg, timer_limit_main, NULL), 0);
	ck_assert_int_eq(tmr.ok, 3);
	ck_assert_int_eq(tmr.timer_rc, 0);
	TU_ASSERT_DOWN(tmr.down, tmr.v, ACT_EXIT_MAILBOX, tmr.ref,
		       "a timer's message past the limit");
}
END_TEST

/* ======================================================================
 * 2. Races across workers
 * ====================================================================== */

/* ---- senders from several workers against one limit -------------------- */

#define SENDERS 4
#define MB_RACE_ROUNDS (TU_UNDER_TSAN ? 20 : 200)

struct mb_sender {
	act_pid v;
	_Atomic int ok, err; /* err: INT32_MIN: not yet */
};

/* Sends that returned 0 although, before they began, the target had been
 * killed (only its limit kills it here) or was exiting: past the limit,
 * lifecycle.md wants -ENOBUFS until EXITING, then -ESRCH. */
static _Atomic int after_kill_ok;

static void mb_sender(void *arg)
{
	struct mb_sender *s = arg;
	struct act_msg *m = act_receive_match(tu_is_go, NULL, TU_WAIT);
	int i, rc, n = 0;

	if (m)
		act_msg_free(m);
	for (i = 0;; i++) {
		struct act__proc *q = tu_lookup(s->v);
		bool gone_before =
			!q || (atomic_load(&q->flags) & ACT_PF_KILLED) ||
			act__ps(atomic_load(&q->state)) == ACT_PS_EXITING;

		rc = act_send(s->v, TU_TAG_DATA, &i, sizeof(i));
		if (rc)
			break;
		n++;
		if (gone_before)
			atomic_fetch_add(&after_kill_ok, 1);
	}
	atomic_store(&s->ok, n);
	atomic_store(&s->err, rc);
}

static struct mb_race_res {
	int rounds;
	int accepted[MB_RACE_ROUNDS];
	int enobufs[MB_RACE_ROUNDS];
	int other_err[MB_RACE_ROUNDS];
	struct tu_seen down[MB_RACE_ROUNDS];
	act_pid v[MB_RACE_ROUNDS];
	uint64_t ref[MB_RACE_ROUNDS];
	int after_kill[MB_RACE_ROUNDS];
} mbrr;

static void mb_race_main(void *arg)
{
	static struct mb_sender ss[SENDERS];
	struct act_spawn_opts o;
	act_pid sp[SENDERS];
	int r, j, err;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 100;
	for (r = 0; r < MB_RACE_ROUNDS; r++) {
		mbrr.v[r] = act_spawn_opt(sleeper, NULL, &o);
		ck_assert(mbrr.v[r].id);
		mbrr.ref[r] = act_monitor(mbrr.v[r]);
		ck_assert(tu_wait_waiting(mbrr.v[r]));
		for (j = 0; j < SENDERS; j++) {
			ss[j].v = mbrr.v[r];
			atomic_store(&ss[j].ok, 0);
			atomic_store(&ss[j].err, INT32_MIN);
			sp[j] = tu_spawn(mb_sender, &ss[j]);
		}
		atomic_store(&after_kill_ok, 0);
		for (j = 0; j < SENDERS; j++)
			act_send(sp[j], TU_TAG_GO, NULL, 0);
		mbrr.down[r] = tu_take_down(mbrr.v[r], mbrr.ref[r], TU_WAIT);
		for (j = 0; j < SENDERS; j++) {
			ck_assert(tu_wait_gone(sp[j]));
			err = atomic_load(&ss[j].err);
			mbrr.accepted[r] += atomic_load(&ss[j].ok);
			mbrr.enobufs[r] += err == -ENOBUFS;
			mbrr.other_err[r] += err != -ENOBUFS && err != -ESRCH;
		}
		mbrr.after_kill[r] = atomic_load(&after_kill_ok);
		mbrr.rounds++;
	}
}

START_TEST(race_mailbox_senders)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));
	int r;

	memset(&mbrr, 0, sizeof(mbrr));
	ck_assert_int_eq(tu_run_main(&cfg, mb_race_main, NULL), 0);
	ck_assert_int_eq(mbrr.rounds, MB_RACE_ROUNDS);
	for (r = 0; r < MB_RACE_ROUNDS; r++) {
		ck_assert_msg(mbrr.accepted[r] == 100,
			      "round %d: %d sends accepted against a limit of "
			      "100 (%d of them begun after the target was "
			      "killed)",
			      r, mbrr.accepted[r], mbrr.after_kill[r]);
		ck_assert_msg(mbrr.after_kill[r] == 0,
			      "round %d: %d send(s) returned 0 to a process "
			      "already killed for its limit",
			      r, mbrr.after_kill[r]);
		ck_assert_int_ge(mbrr.enobufs[r], 1);
		ck_assert_int_eq(mbrr.other_err[r], 0);
		TU_ASSERT_DOWN(mbrr.down[r], mbrr.v[r], ACT_EXIT_MAILBOX,
			       mbrr.ref[r], "limit 100, four senders");
	}
}
END_TEST

static Suite *mailbox_limit_suite(void)
{
	Suite *s = suite_create("mailbox_limit");
	TCase *mbx = tcase_create("mailbox"), *race = tcase_create("races");

	tcase_set_timeout(mbx, 120);
	tcase_add_loop_test(mbx, mailbox_limit_kills, 0, 2);
	tcase_add_loop_test(mbx, mailbox_signals_not_counted, 0, 2);
	tcase_add_loop_test(mbx, mailbox_keeping_up, 0, 2);
	tcase_add_loop_test(mbx, mailbox_default_and_override, 0, 2);
	tcase_add_test(mbx, mailbox_env);
	tcase_add_loop_test(mbx, mailbox_timer_counts, 0, 2);
	suite_add_tcase(s, mbx);

	tcase_set_timeout(race, 300);
	tcase_add_loop_test(race, race_mailbox_senders, 0, 2);
	suite_add_tcase(s, race);

	return s;
}

int main(void)
{
	/* tu_run_suite does not know these yet */
	unsetenv("ACTORS_TIMER_US");
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(mailbox_limit_suite());
}
