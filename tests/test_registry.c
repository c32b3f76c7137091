/* SPDX-License-Identifier: MIT */
/*
 * test_registry.c - names (doc/design/lifecycle.md "Names",
 * lib/actor/registry.c): act_register, act_unregister and act_whereis,
 * their refusals, a name freed when its process exits, calls from a
 * thread that is not a process, and registrations racing each other and
 * the exit across workers.
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
 * 1. Names
 * ====================================================================== */

static char long_name[ACT_NAME_MAX + 2], max_name[ACT_NAME_MAX + 1];

static struct names_res {
	act_pid p, q, dead, p2, q2;
	int r_ok, w_ok_is_p, r_taken, r_busy, r_dead, r_null, r_empty, r_long,
		r_max;
	int r_same_again, r_taken_and_busy, un_null, un_empty, un_long;
	bool w_empty_none, w_null_none, w_long_none;
	bool w_max_is_q, w_unknown_none;
	int un_max, un_unknown, un_ok, un_again;
	bool w_after_un_none;
	int r_p_again, r_a_by_q;
	bool w_a_is_q;
	int r_copy;
	bool w_copy_is_p2, w_zzz_none;
	/* freed at death */
	act_pid s, s2, s3;
	uint64_t ms, ms2, ms3;
	int r_s, r_s2, r_s3;
	struct tu_seen ds, ds2, ds3;
	bool w_s_none, w_s2_is_s2, w_s2_none, w_s3_none, w_before_is_s;
	act_pid s4;
	int r_s4;
	bool w_s4_is_s4;
	/* a foreign thread */
	act_pid f;
	int t_r, t_un, t_un2;
	bool t_w_is_p2, t_w_after_none;
	bool w_fb_is_f;
} nr;

struct name_thread {
	act_pid p2, f;
	int r, un, un2;
	bool w_is_p2, w_after_none;
};

static void *name_thread(void *arg)
{
	struct name_thread *t = arg;

	t->w_is_p2 = act_pid_eq(act_whereis("copied"), t->p2);
	t->r = act_register("fb", t->f);
	t->un = act_unregister("copied");
	t->w_after_none = act_pid_eq(act_whereis("copied"), ACT_PID_NONE);
	t->un2 = act_unregister("copied");
	return NULL;
}

static void names_main(void *arg)
{
	struct name_thread nt;
	char buf[16];
	pthread_t th;

	(void)arg;
	nr.p = tu_new_puppet();
	nr.q = tu_new_puppet();
	nr.dead = tu_new_puppet();
	tu_cast(nr.dead, TU_OP_RETURN, ACT_PID_NONE, 0);
	ck_assert(tu_wait_gone(nr.dead));
	nr.r_ok = act_register("alpha", nr.p);
	nr.w_ok_is_p = act_pid_eq(act_whereis("alpha"), nr.p);
	nr.r_taken = act_register("alpha", nr.q);
	nr.r_busy = act_register("beta", nr.p);
	nr.r_same_again = act_register("alpha", nr.p);
	nr.un_null = act_unregister(NULL);
	nr.un_empty = act_unregister("");
	nr.un_long = act_unregister(long_name);
	nr.w_empty_none = act_pid_eq(act_whereis(""), ACT_PID_NONE);
	nr.w_null_none = act_pid_eq(act_whereis(NULL), ACT_PID_NONE);
	nr.w_long_none = act_pid_eq(act_whereis(long_name), ACT_PID_NONE);
	nr.r_dead = act_register("gamma", nr.dead);
	nr.r_null = act_register(NULL, nr.q);
	nr.r_empty = act_register("", nr.q);
	nr.r_long = act_register(long_name, nr.q);
	nr.r_max = act_register(max_name, nr.q);
	nr.w_max_is_q = act_pid_eq(act_whereis(max_name), nr.q);
	/* q holds a name and "alpha" is p's: -EEXIST first */
	nr.r_taken_and_busy = act_register("alpha", nr.q);
	nr.un_max = act_unregister(max_name);
	nr.w_unknown_none = act_pid_eq(act_whereis("nobody"), ACT_PID_NONE);
	nr.un_unknown = act_unregister("nobody");
	nr.un_ok = act_unregister("alpha");
	nr.w_after_un_none = act_pid_eq(act_whereis("alpha"), ACT_PID_NONE);
	nr.un_again = act_unregister("alpha");
	nr.r_p_again = act_register("beta", nr.p); /* p has no name now */
	nr.r_a_by_q = act_register("alpha", nr.q);
	nr.w_a_is_q = act_pid_eq(act_whereis("alpha"), nr.q);
	/* the name is copied */
	nr.p2 = tu_new_puppet();
	strcpy(buf, "copied");
	nr.r_copy = act_register(buf, nr.p2);
	strcpy(buf, "zzzzzz");
	nr.w_copy_is_p2 = act_pid_eq(act_whereis("copied"), nr.p2);
	nr.w_zzz_none = act_pid_eq(act_whereis("zzzzzz"), ACT_PID_NONE);
	/* freed when its process exits; taken again at once */
	nr.s = tu_new_puppet();
	nr.ms = act_monitor(nr.s);
	nr.r_s = act_register("svc", nr.s);
	nr.w_before_is_s = act_pid_eq(act_whereis("svc"), nr.s);
	tu_cast(nr.s, TU_OP_EXIT, ACT_PID_NONE, 71);
	nr.ds = tu_take_down(nr.s, nr.ms, TU_WAIT);
	nr.w_s_none = act_pid_eq(act_whereis("svc"), ACT_PID_NONE);
	nr.s2 = tu_new_puppet();
	nr.ms2 = act_monitor(nr.s2);
	nr.r_s2 = act_register("svc", nr.s2);
	nr.w_s2_is_s2 = act_pid_eq(act_whereis("svc"), nr.s2);
	ck_assert_int_eq(act_kill(nr.s2, ACT_EXIT_KILL), 0);
	nr.ds2 = tu_take_down(nr.s2, nr.ms2, TU_WAIT);
	nr.w_s2_none = act_pid_eq(act_whereis("svc"), ACT_PID_NONE);
	nr.s3 = tu_new_puppet();
	nr.ms3 = act_monitor(nr.s3);
	nr.r_s3 = act_register("svc", nr.s3);
	tu_cast(nr.s3, TU_OP_RETURN, ACT_PID_NONE, 0);
	nr.ds3 = tu_take_down(nr.s3, nr.ms3, TU_WAIT);
	nr.w_s3_none = act_pid_eq(act_whereis("svc"), ACT_PID_NONE);
	nr.s4 = tu_new_puppet();
	nr.r_s4 = act_register("svc", nr.s4);
	nr.w_s4_is_s4 = act_pid_eq(act_whereis("svc"), nr.s4);
	/* from a thread that is not a process */
	nr.f = tu_new_puppet();
	memset(&nt, 0, sizeof(nt));
	nt.p2 = nr.p2;
	nt.f = nr.f;
	ck_assert_int_eq(pthread_create(&th, NULL, name_thread, &nt), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	nr.t_r = nt.r;
	nr.t_un = nt.un;
	nr.t_un2 = nt.un2;
	nr.t_w_is_p2 = nt.w_is_p2;
	nr.t_w_after_none = nt.w_after_none;
	nr.w_fb_is_f = act_pid_eq(act_whereis("fb"), nr.f);
}

START_TEST(names)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&nr, 0, sizeof(nr));
	memset(long_name, 'n', ACT_NAME_MAX + 1);
	long_name[ACT_NAME_MAX + 1] = '\0';
	memset(max_name, 'm', ACT_NAME_MAX);
	max_name[ACT_NAME_MAX] = '\0';
	ck_assert_uint_eq(strlen(long_name), ACT_NAME_MAX + 1);
	ck_assert_int_eq(tu_run_main(&cfg, names_main, NULL), 0);
	ck_assert_int_eq(nr.r_ok, 0);
	ck_assert(nr.w_ok_is_p);
	ck_assert_int_eq(nr.r_taken, -EEXIST);
	ck_assert_int_eq(nr.r_busy, -EBUSY);
	/* -EEXIST is checked before -EBUSY */
	ck_assert_int_eq(nr.r_same_again, -EEXIST);
	ck_assert_int_eq(nr.r_taken_and_busy, -EEXIST);
	ck_assert_int_eq(nr.un_null, -EINVAL);
	ck_assert_int_eq(nr.un_empty, -EINVAL);
	ck_assert_int_eq(nr.un_long, -EINVAL);
	ck_assert(nr.w_empty_none);
	ck_assert(nr.w_null_none);
	ck_assert(nr.w_long_none);
	ck_assert_int_eq(nr.r_dead, -ESRCH);
	ck_assert_int_eq(nr.r_null, -EINVAL);
	ck_assert_int_eq(nr.r_empty, -EINVAL);
	ck_assert_int_eq(nr.r_long, -EINVAL);
	ck_assert_int_eq(nr.r_max, 0);
	ck_assert(nr.w_max_is_q);
	ck_assert_int_eq(nr.un_max, 0);
	ck_assert(nr.w_unknown_none);
	ck_assert_int_eq(nr.un_unknown, -ENOENT);
	ck_assert_int_eq(nr.un_ok, 0);
	ck_assert(nr.w_after_un_none);
	ck_assert_int_eq(nr.un_again, -ENOENT);
	ck_assert_int_eq(nr.r_p_again, 0);
	ck_assert_int_eq(nr.r_a_by_q, 0);
	ck_assert(nr.w_a_is_q);
	ck_assert_int_eq(nr.r_copy, 0);
	ck_assert_msg(nr.w_copy_is_p2, "the name was not copied");
	ck_assert(nr.w_zzz_none);
	/* freed at death */
	ck_assert_int_eq(nr.r_s, 0);
	ck_assert(nr.w_before_is_s);
	TU_ASSERT_DOWN(nr.ds, nr.s, 71, nr.ms, "named process exits");
	ck_assert_msg(nr.w_s_none, "name still there after the DOWN");
	ck_assert_msg(nr.r_s2 == 0,
		      "the name of a dead process could not be "
		      "taken again: %d",
		      nr.r_s2);
	ck_assert(nr.w_s2_is_s2);
	TU_ASSERT_DOWN(nr.ds2, nr.s2, ACT_EXIT_KILLED, nr.ms2, "named, killed");
	ck_assert(nr.w_s2_none);
	ck_assert_int_eq(nr.r_s3, 0);
	TU_ASSERT_DOWN(nr.ds3, nr.s3, ACT_EXIT_NORMAL, nr.ms3,
		       "named, returns");
	ck_assert(nr.w_s3_none);
	ck_assert_int_eq(nr.r_s4, 0);
	ck_assert(nr.w_s4_is_s4);
	/* any thread */
	ck_assert(nr.t_w_is_p2);
	ck_assert_int_eq(nr.t_r, 0);
	ck_assert_int_eq(nr.t_un, 0);
	ck_assert(nr.t_w_after_none);
	ck_assert_int_eq(nr.t_un2, -ENOENT);
	ck_assert(nr.w_fb_is_f);
}
END_TEST

/* ======================================================================
 * 2. Races across workers
 * ====================================================================== */

static struct tu_race rr;

/* ---- names under concurrency ------------------------------------------- */

#define REGISTRARS 4
#define NAME_RACE_N (TU_UNDER_TSAN ? 100 : 500)

struct registrar {
	act_pid who;	/* register this pid (ACT_PID_NONE: itself) */
	_Atomic int rc; /* INT32_MIN: not yet */
};

static void registrar(void *arg)
{
	struct registrar *rg = arg;
	struct act_msg *m = act_receive_match(tu_is_go, NULL, TU_WAIT);
	act_pid who = rg->who.id ? rg->who : act_self();

	if (m)
		act_msg_free(m);
	atomic_store(&rg->rc, act_register("race", who));
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TU_TAG_STOP,
			      TU_WAIT);
	if (m)
		act_msg_free(m);
}

static bool all_set(struct registrar *rg, int n)
{
	int64_t end = act__clock_now() + TU_WAIT;
	int i, k;

	for (k = 0;; k++) {
		for (i = 0; i < n && atomic_load(&rg[i].rc) != INT32_MIN; i++)
			;
		if (i == n)
			return true;
		if (act__clock_now() > end)
			return false;
		if (k < 1000)
			act_yield();
		else
			act_sleep(100000);
	}
}

static void race_names_main(void *arg)
{
	static struct registrar rg[REGISTRARS];
	act_pid p[REGISTRARS], winner, t;
	uint64_t mw, mt;
	struct tu_seen d;
	int i, j, wins, rc;

	(void)arg;
	/* several at once: exactly one gets the name */
	for (i = 0; i < NAME_RACE_N && !rr.bad; i++) {
		for (j = 0; j < REGISTRARS; j++) {
			rg[j].who = ACT_PID_NONE;
			atomic_store(&rg[j].rc, INT32_MIN);
			p[j] = tu_spawn(registrar, &rg[j]);
		}
		for (j = 0; j < REGISTRARS; j++)
			act_send(p[j], TU_TAG_GO, NULL, 0);
		if (!all_set(rg, REGISTRARS)) {
			tu_race_bad(&rr, i, "registrars stuck");
			break;
		}
		wins = 0;
		winner = ACT_PID_NONE;
		for (j = 0; j < REGISTRARS; j++) {
			rc = atomic_load(&rg[j].rc);
			if (rc == 0) {
				wins++;
				winner = p[j];
			} else if (rc != -EEXIST) {
				tu_race_bad(&rr, i, "act_register %d", rc);
			}
		}
		rr.iters++;
		if (wins != 1) {
			tu_race_bad(&rr, i, "%d winners", wins);
			break;
		}
		if (!act_pid_eq(act_whereis("race"), winner))
			tu_race_bad(&rr, i, "whereis is not the winner");
		if (i % 2) {
			if (act_unregister("race") != 0)
				tu_race_bad(&rr, i, "unregister failed");
		} else {
			mw = act_monitor(winner);
			act_send(winner, TU_TAG_STOP, NULL, 0);
			d = tu_take_down(winner, mw, TU_WAIT);
			if (!d.n ||
			    !act_pid_eq(act_whereis("race"), ACT_PID_NONE))
				tu_race_bad(&rr, i, "name not freed at exit");
		}
		for (j = 0; j < REGISTRARS; j++)
			act_send(p[j], TU_TAG_STOP, NULL, 0);
		for (j = 0; j < REGISTRARS; j++)
			tu_wait_gone(p[j]);
	}
	/* registering a process as it exits: 0 or -ESRCH, and the name is
	 * free once its DOWN came either way */
	for (i = 0; i < NAME_RACE_N && !rr.bad; i++) {
		t = tu_spawn(tu_go_then_exit, NULL);
		mt = act_monitor(t);
		rg[0].who = t;
		atomic_store(&rg[0].rc, INT32_MIN);
		p[0] = tu_spawn(registrar, &rg[0]);
		tu_go_both(i, t, p[0]);
		d = tu_take_down(t, mt, TU_WAIT);
		if (!all_set(rg, 1)) {
			tu_race_bad(&rr, i, "registrar stuck");
			break;
		}
		rc = atomic_load(&rg[0].rc);
		act_send(p[0], TU_TAG_STOP, NULL, 0);
		rr.iters++;
		if (rc != 0 && rc != -ESRCH)
			tu_race_bad(&rr, i,
				    "act_register of an exiting pid: %d", rc);
		/* the registrar may still be before its act_register when
		 * the DOWN came: then it is -ESRCH; after both, no name */
		if (!d.n || d.info.reason != 70)
			tu_race_bad(&rr, i, "DOWN %d reason %ld", d.n,
				    (long)d.info.reason);
		if (!act_pid_eq(act_whereis("race"), ACT_PID_NONE))
			tu_race_bad(&rr, i,
				    "act_register %d: the dead pid's name "
				    "stayed",
				    rc);
		else if (rc == 0)
			rr.linked++;
		else
			rr.noproc++;
		tu_wait_gone(p[0]);
	}
}

START_TEST(race_names)
{
	struct act_config cfg = tu_with_workers(TU_W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(tu_run_main(&cfg, race_names_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, 2 * NAME_RACE_N);
	ck_assert_int_eq(rr.linked + rr.noproc, NAME_RACE_N);
	printf("race_names/%d: registered before the exit %d, -ESRCH %d\n", _i,
	       rr.linked, rr.noproc);
}
END_TEST

static Suite *registry_suite(void)
{
	Suite *s = suite_create("registry");
	TCase *nam = tcase_create("names"), *race = tcase_create("races");

	tcase_set_timeout(nam, 120);
	tcase_add_loop_test(nam, names, 0, 2);
	suite_add_tcase(s, nam);

	tcase_set_timeout(race, 300);
	tcase_add_loop_test(race, race_names, 0, 2);
	suite_add_tcase(s, race);

	return s;
}

int main(void)
{
	/* tu_run_suite does not know these yet */
	unsetenv("ACTORS_TIMER_US");
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(registry_suite());
}
