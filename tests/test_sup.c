/* SPDX-License-Identifier: MIT */
/*
 * test_sup.c - supervisors (lib/actor/sup.c, act_sup_start(3)) against
 * OTP's documented behaviour, case by case as OTP's own supervisor_SUITE
 * groups them: starts (normal, ignored, failed, a child that exits in
 * its init), child administration, specs and flags refused, restart
 * types against every kind of exit, each strategy with its escalation
 * and a restart that fails for another child, a temporary bystander,
 * shutdown by timeout, brutal kill and without limit in reverse start
 * order, the restart intensity and its sliding period, the parent's
 * exit, count_children, custom start functions, and a tree of three
 * levels; at 1, 2 and 4 workers where scheduling could matter.
 * tests/sup-diff.sh compares random streams with OTP itself.
 *
 * After a child's exit the test waits for the child's DOWN and then
 * asks the supervisor: an exiting process sends its links' EXITs before
 * its monitors' DOWNs (links.c), so the EXIT is in the supervisor's
 * mailbox ahead of the question, and the answer comes after the
 * supervisor has acted on it. No test waits on time.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "testrt.h"

enum { T_EXIT = 1, T_STUBBORN, T_PING };

#define NKIDS 8
#define FOREVER_FAIL 1000000

/* What the children did, by index (their arg). */
static struct {
	_Atomic int starts[NKIDS]; /* inits run */
	_Atomic int alive[NKIDS];  /* started and not ended */
	_Atomic int fail[NKIDS];   /* inits still to fail with -EIO */
	_Atomic int ignore[NKIDS]; /* inits still to return IGNORE */
	_Atomic int order[64];	   /* index + 1 of each start, then exit */
	_Atomic int norder;
} ctl;

static const char *const names[NKIDS] = {
	"a", "b", "c", "d", "e", "f", "g", "h"
};

static void ctl_reset(void)
{
	memset(&ctl, 0, sizeof(ctl));
}

static void log_event(int v)
{
	int i = atomic_fetch_add(&ctl.norder, 1);

	if (i < 64)
		ctl.order[i] = v;
}

static void kid_ended(void *arg)
{
	int i = (int)(intptr_t)arg;

	atomic_fetch_sub(&ctl.alive[i], 1);
	log_event(-(i + 1));
}

static int kid_init(void *arg)
{
	int i = (int)(intptr_t)arg;

	atomic_fetch_add(&ctl.starts[i], 1);
	if (atomic_load(&ctl.fail[i]) > 0) {
		atomic_fetch_sub(&ctl.fail[i], 1);
		return -EIO;
	}
	if (atomic_load(&ctl.ignore[i]) > 0) {
		atomic_fetch_sub(&ctl.ignore[i], 1);
		return ACT_SUP_IGNORE;
	}
	atomic_fetch_add(&ctl.alive[i], 1);
	log_event(i + 1);
	ck_assert_int_eq(act_on_exit(kid_ended, arg), 0);
	return 0;
}

/* A worker: exits when told to, with the reason it is given; a
 * stubborn one traps exits and so outlives ACT_EXIT_SHUTDOWN. */
static void kid(void *arg)
{
	struct act_msg *m;
	intptr_t r;

	(void)arg;
	for (;;) {
		m = act_receive(ACT_FOREVER);
		switch (m->tag) {
		case T_EXIT:
			memcpy(&r, m->data, sizeof(r));
			act_msg_free(m);
			act_exit(r);
		case T_STUBBORN:
			act_trap_exit(true);
			break;
		case T_PING:
			ck_assert_int_eq(act_reply(m, T_PING, NULL, 0), 0);
			break;
		}
		act_msg_free(m);
	}
}

static struct act_sup_child spec_of(int i, int restart)
{
	struct act_sup_child c = { 0 };

	c.id = names[i];
	c.fn = kid;
	c.init = kid_init;
	c.arg = (void *)(intptr_t)i;
	c.restart = restart;
	c.shutdown_ns = 5 * TU_SEC;
	return c;
}

static act_pid start_sup(int strategy, int intensity, int64_t period,
			 const struct act_sup_child *kids, size_t n)
{
	struct act_sup_spec s;
	act_pid sup;

	act_sup_spec_init(&s);
	s.strategy = strategy;
	s.intensity = intensity;
	s.period_ns = period;
	s.children = kids;
	s.nchildren = n;
	ck_assert_int_eq(act_sup_start(&s, &sup), 0);
	return sup;
}

/* The child id's entry, or NULL; the answer's count in *n. */
static struct act_sup_child_info infos[NKIDS + 4];

static void settle(act_pid sup);

static const struct act_sup_child_info *which(act_pid sup, const char *id,
					      int *n)
{
	int i, k;

	settle(sup);
	k = act_sup_which_children(sup, infos, NKIDS + 4);
	ck_assert_int_ge(k, 0);
	if (n)
		*n = k;
	for (i = 0; i < k; i++)
		if (!strcmp(infos[i].id, id))
			return &infos[i];
	return NULL;
}

static act_pid pid_of(act_pid sup, const char *id)
{
	const struct act_sup_child_info *c = which(sup, id, NULL);

	ck_assert_ptr_nonnull(c);
	return c->pid;
}

/* Until sup has acted on what it was sent before this (a question
 * answered after it), and has no failed restart still to try again;
 * or it is gone. */
static void settle(act_pid sup)
{
	int i, k;

	do {
		k = act_sup_which_children(sup, infos, NKIDS + 4);
		ck_assert(k >= 0 || k == -ESRCH || k == -ECONNRESET);
		for (i = 0; i < k; i++)
			if (infos[i].state == ACT_SUP_CHILD_RESTARTING)
				break;
	} while (i < k && (act_yield(), 1));
}

/* Make p exit with reason (ACT_EXIT_KILL: killed), and return once its
 * supervisor has it. */
static void end_kid(act_pid p, intptr_t reason)
{
	uint64_t ref = act_monitor(p);

	ck_assert_uint_ne(ref, 0);
	if (reason == ACT_EXIT_KILL)
		ck_assert_int_eq(act_kill(p, ACT_EXIT_KILL), 0);
	else
		ck_assert_int_eq(act_send(p, T_EXIT, &reason, sizeof(reason)),
				 0);
	tu_wait_down(ref);
}

/* Make sup's child id exit with reason, and wait until sup has acted. */
static void crash(act_pid sup, const char *id, intptr_t reason)
{
	end_kid(pid_of(sup, id), reason);
	settle(sup);
}

/* Is sup still alive? A question to it: answered, or -ESRCH (gone), or
 * -ECONNRESET (it went while the question waited behind what ends it). */
static bool sup_alive(act_pid sup)
{
	struct act_sup_counts c;
	int rc = act_sup_count_children(sup, &c);

	ck_assert(rc == 0 || rc == -ESRCH || rc == -ECONNRESET);
	return rc == 0;
}

static int workers_of(int i)
{
	static const int w[] = { 1, 2, 4 };

	return w[i];
}

static void run(int nworkers, void (*fn)(void *))
{
	struct act_config cfg = tu_with_workers(nworkers);

	ctl_reset();
	ck_assert_int_eq(tu_run_main(&cfg, fn, NULL), 0);
}

/* ---- start and stop ------------------------------------------------- */

static void start_normal_main(void *arg)
{
	struct act_sup_child k[3] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT),
				      spec_of(2, ACT_SUP_PERMANENT) };
	struct act_sup_counts c;
	act_pid sup;
	uint64_t ref;
	int n, i;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, k, 3);
	/* started in order, each before the next (init waited for) */
	ck_assert_int_eq(ctl.norder, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(ctl.order[i], i + 1);
		ck_assert_int_eq(ctl.alive[i], 1);
	}
	which(sup, "a", &n);
	ck_assert_int_eq(n, 3);
	for (i = 0; i < 3; i++) {
		struct act_process_info pi;

		ck_assert_str_eq(infos[i].id, names[i]);
		ck_assert_int_eq(infos[i].state, ACT_SUP_CHILD_RUNNING);
		/* observers name the child's fn, not the library's boot */
		ck_assert_int_eq(act_process_info(infos[i].pid, &pi), 0);
		ck_assert_ptr_eq((void *)pi.fn, (void *)kid);
		ck_assert_int_eq(infos[i].type, ACT_SUP_WORKER);
		ck_assert_uint_ne(infos[i].pid.id, 0);
	}
	ck_assert_int_eq(act_sup_count_children(sup, &c), 0);
	ck_assert_uint_eq(c.specs, 3);
	ck_assert_uint_eq(c.active, 3);
	ck_assert_uint_eq(c.workers, 3);
	ck_assert_uint_eq(c.supervisors, 0);
	/* stopped newest first; the supervisor exits normally */
	ref = act_monitor(sup);
	ck_assert_int_eq(act_sup_stop(sup), 0);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_NORMAL);
	ck_assert_int_eq(ctl.norder, 6);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(ctl.order[3 + i], -(3 - i));
		ck_assert_int_eq(ctl.alive[i], 0);
	}
	ck_assert_int_eq(act_sup_stop(sup), -ESRCH);
	ck_assert_int_eq(act_sup_which_children(sup, infos, 1), -ESRCH);
}

START_TEST(start_normal)
{
	run(workers_of(_i), start_normal_main);
}
END_TEST

static void start_empty_main(void *arg)
{
	struct act_sup_counts c;
	act_pid sup;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, NULL, 0);
	ck_assert_int_eq(act_sup_which_children(sup, NULL, 0), 0);
	ck_assert_int_eq(act_sup_count_children(sup, &c), 0);
	ck_assert_uint_eq(c.specs + c.active + c.workers + c.supervisors, 0);
	ck_assert_int_eq(act_sup_stop(sup), 0);
}

START_TEST(start_empty)
{
	run(1, start_empty_main);
}
END_TEST

/* OTP's sup_start_ignore_child and _temporary_child. */
static void start_ignore_main(void *arg)
{
	struct act_sup_child k[2] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_TEMPORARY) };
	struct act_sup_child t = spec_of(2, ACT_SUP_TEMPORARY);
	struct act_sup_counts c;
	act_pid sup, p = ACT_PID_NONE;
	int n;

	(void)arg;
	ctl.ignore[0] = 1;
	ctl.ignore[1] = 1;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, k, 2);
	/* the permanent one is kept, stopped; the temporary one is not */
	ck_assert_ptr_nonnull(which(sup, "a", &n));
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(infos[0].state, ACT_SUP_CHILD_STOPPED);
	ck_assert_uint_eq(infos[0].pid.id, 0);
	ctl.ignore[2] = 1;
	ck_assert_int_eq(act_sup_start_child(sup, &t, &p), ACT_SUP_IGNORE);
	ck_assert_uint_eq(p.id, 0);
	ck_assert_ptr_null(which(sup, "c", &n));
	ck_assert_int_eq(n, 1);
	/* a permanent child ignored by start_child is kept */
	k[1] = spec_of(1, ACT_SUP_PERMANENT);
	ctl.ignore[1] = 1;
	ck_assert_int_eq(act_sup_start_child(sup, &k[1], &p), ACT_SUP_IGNORE);
	ck_assert_int_eq(act_sup_count_children(sup, &c), 0);
	ck_assert_uint_eq(c.specs, 2);
	ck_assert_uint_eq(c.active, 0);
	/* and starts when restarted */
	ck_assert_int_eq(act_sup_restart_child(sup, "b", &p), 0);
	ck_assert_uint_eq(pid_of(sup, "b").id, p.id);
	ck_assert_int_eq(act_sup_stop(sup), 0);
}

START_TEST(start_ignore)
{
	run(2, start_ignore_main);
}
END_TEST

/* A child that fails to start fails the supervisor's start: those
 * started are stopped, those after are never started, and the caller,
 * linked, lives on. */
static void start_fail_main(void *arg)
{
	struct act_sup_child k[3] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT),
				      spec_of(2, ACT_SUP_PERMANENT) };
	struct act_sup_spec s;
	act_pid sup = ACT_PID_NONE;

	(void)arg;
	ctl.fail[1] = 1;
	act_sup_spec_init(&s);
	s.children = k;
	s.nchildren = 3;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EIO);
	ck_assert_uint_eq(sup.id, 0);
	ck_assert_int_eq(ctl.starts[0], 1);
	ck_assert_int_eq(ctl.starts[1], 1);
	ck_assert_int_eq(ctl.starts[2], 0);
	ck_assert_int_eq(ctl.alive[0], 0);
	ck_assert_int_eq(ctl.norder, 2);
	ck_assert_int_eq(ctl.order[1], -1);
	/* a name taken makes the start fail too */
	ck_assert_int_eq(act_register("taken", act_self()), 0);
	s.name = "taken";
	s.nchildren = 0;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EEXIST);
	/* and a name free is the supervisor's while it runs */
	s.name = "sup";
	ck_assert_int_eq(act_sup_start(&s, &sup), 0);
	ck_assert_uint_eq(act_whereis("sup").id, sup.id);
	ck_assert_int_eq(act_sup_stop(sup), 0);
	ck_assert_uint_eq(act_whereis("sup").id, 0);
}

START_TEST(start_fail)
{
	run(workers_of(_i), start_fail_main);
}
END_TEST

/* A child that exits in its init fails its start with -ECHILD. */
static int exit_in_init(void *arg)
{
	(void)arg;
	act_exit(7);
}

static void init_exits_main(void *arg)
{
	struct act_sup_child c = spec_of(0, ACT_SUP_PERMANENT);
	act_pid sup, p = ACT_PID_NONE;
	int n;

	(void)arg;
	c.init = exit_in_init;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, NULL, 0);
	ck_assert_int_eq(act_sup_start_child(sup, &c, &p), -ECHILD);
	ck_assert_uint_eq(p.id, 0);
	which(sup, "a", &n);
	ck_assert_int_eq(n, 0);
	ck_assert(sup_alive(sup));
	ck_assert_int_eq(act_sup_stop(sup), 0);
}

START_TEST(init_exits)
{
	run(2, init_exits_main);
}
END_TEST

/* ---- child administration (OTP's child_adm) ------------------------ */

static void child_adm_main(void *arg)
{
	struct act_sup_child k = spec_of(0, ACT_SUP_PERMANENT);
	act_pid sup, p, q = ACT_PID_NONE, self = act_self();
	uint64_t ref;
	int n;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, &k, 1);
	p = pid_of(sup, "a");
	ck_assert_int_eq(act_sup_start_child(sup, &k, &q), -EEXIST);
	ck_assert_uint_eq(q.id, p.id);
	ck_assert_int_eq(act_sup_terminate_child(sup, "nope"), -ENOENT);
	ref = act_monitor(p);
	ck_assert_int_eq(act_sup_terminate_child(sup, "a"), 0);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
	ck_assert_int_eq(which(sup, "a", &n)->state, ACT_SUP_CHILD_STOPPED);
	ck_assert_int_eq(n, 1);
	/* terminating a stopped child is fine */
	ck_assert_int_eq(act_sup_terminate_child(sup, "a"), 0);
	ck_assert_int_eq(act_sup_start_child(sup, &k, &q), -EALREADY);
	ck_assert_int_eq(act_sup_restart_child(sup, "a", &q), 0);
	ck_assert_uint_ne(q.id, p.id);
	ck_assert_uint_eq(pid_of(sup, "a").id, q.id);
	ck_assert_int_eq(act_sup_restart_child(sup, "a", &q), -EBUSY);
	ck_assert_int_eq(act_sup_restart_child(sup, "b", &q), -ENOENT);
	ck_assert_int_eq(act_sup_delete_child(sup, "a"), -EBUSY);
	ck_assert_int_eq(act_sup_delete_child(sup, "nope"), -ENOENT);
	ck_assert_int_eq(act_sup_terminate_child(sup, "a"), 0);
	ck_assert_int_eq(act_sup_delete_child(sup, "a"), 0);
	ck_assert_int_eq(act_sup_restart_child(sup, "a", &q), -ENOENT);
	which(sup, "a", &n);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(act_sup_start_child(sup, &k, &q), 0);
	ck_assert_uint_eq(pid_of(sup, "a").id, q.id);
	/* which_children with room for fewer than there are */
	k = spec_of(1, ACT_SUP_PERMANENT);
	ck_assert_int_eq(act_sup_start_child(sup, &k, NULL), 0);
	memset(infos, 0, sizeof(infos));
	ck_assert_int_eq(act_sup_which_children(sup, infos, 1), 2);
	ck_assert_str_eq(infos[0].id, "a");
	ck_assert_str_eq(infos[1].id, "");
	/* not a supervisor, or no process at all */
	ck_assert_int_eq(act_sup_terminate_child(self, "a"), -EINVAL);
	ck_assert_int_eq(act_sup_stop(self), -EINVAL);
	ck_assert_int_eq(act_sup_stop(sup), 0);
	ck_assert_int_eq(act_sup_start_child(sup, &k, &q), -ESRCH);
	ck_assert_int_eq(act_sup_delete_child(sup, "a"), -ESRCH);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1], 0);
}

START_TEST(child_adm)
{
	run(workers_of(_i), child_adm_main);
}
END_TEST

/* ---- specs and flags refused (OTP's child_specs, sup_flags) -------- */

static int start_nothing(void *arg, act_pid *pid)
{
	(void)arg;
	(void)pid;
	return 0; /* no pid: a start that gave none */
}

static void specs_main(void *arg)
{
	char longid[ACT_NAME_MAX + 2];
	struct act_sup_child ok = spec_of(0, ACT_SUP_PERMANENT), k[2];
	struct act_sup_spec s;
	act_pid sup, p;
	int started;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, NULL, 0);
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = 0;
#define REFUSED(field, value)                                                \
	do {                                                                 \
		struct act_sup_child b = ok;                                 \
		b.field = value;                                             \
		ck_assert_int_eq(act_sup_start_child(sup, &b, &p), -EINVAL); \
	} while (0)
	REFUSED(id, NULL);
	REFUSED(id, "");
	REFUSED(id, longid);
	REFUSED(restart, 3);
	REFUSED(restart, -1);
	REFUSED(type, 2);
	REFUSED(shutdown_ns, -10);
	REFUSED(fn, NULL);
	REFUSED(reserved[3], 1);
#undef REFUSED
	ck_assert_int_eq(act_sup_start_child(sup, NULL, &p), -EINVAL);
	/* a supervisor child with neither fn nor start needs its spec */
	k[0] = ok;
	k[0].fn = NULL;
	k[0].type = ACT_SUP_SUPERVISOR;
	k[0].arg = NULL;
	ck_assert_int_eq(act_sup_start_child(sup, &k[0], &p), -EINVAL);
	/* a start that returns 0 with no pid */
	k[0] = ok;
	k[0].start = start_nothing;
	ck_assert_int_eq(act_sup_start_child(sup, &k[0], &p), -EINVAL);
	/* the longest id is fine */
	k[0] = ok;
	longid[ACT_NAME_MAX] = 0;
	k[0].id = longid;
	ck_assert_int_eq(act_sup_start_child(sup, &k[0], &p), 0);
	ck_assert_ptr_nonnull(which(sup, longid, NULL));
	ck_assert_int_eq(act_sup_stop(sup), 0);
	started = ctl.starts[0] + ctl.starts[1];
	/* flags */
	act_sup_spec_init(&s);
	ck_assert_int_eq(s.strategy, ACT_SUP_ONE_FOR_ONE);
	ck_assert_int_eq(s.intensity, 1);
	ck_assert(s.period_ns == 5 * TU_SEC);
	s.strategy = 3;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EINVAL);
	act_sup_spec_init(&s);
	s.intensity = -1;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EINVAL);
	act_sup_spec_init(&s);
	s.period_ns = 0;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EINVAL);
	act_sup_spec_init(&s);
	s.nchildren = 1;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EINVAL);
	act_sup_spec_init(&s);
	s.reserved[0] = 1;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EINVAL);
	ck_assert_int_eq(act_sup_start(NULL, &sup), -EINVAL);
	/* two children of one name (OTP's duplicate_child_name) */
	k[0] = ok;
	k[1] = spec_of(1, ACT_SUP_PERMANENT);
	k[1].id = "a";
	s.children = k;
	s.nchildren = 2;
	ck_assert_int_eq(act_sup_start(&s, &sup), -EINVAL);
	ck_assert_int_eq(ctl.starts[0] + ctl.starts[1], started);
}

START_TEST(specs)
{
	run(1, specs_main);
}
END_TEST

static void *outside_thread(void *arg)
{
	struct act_sup_spec s;
	act_pid sup;

	act_sup_spec_init(&s);
	*(int *)arg = act_sup_start(&s, &sup);
	return NULL;
}

static void outside_main(void *arg)
{
	pthread_t t;
	int rc = 0;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, outside_thread, &rc), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(rc, -EPERM);
}

START_TEST(outside)
{
	run(1, outside_main);
}
END_TEST

/* ---- restart types (OTP's normal, shutdown and abnormal groups) ---- */

/* restart type x exit reason: is it restarted, kept stopped, or gone */
enum { RESTARTED, KEPT, GONE };

static void restart_types_main(void *arg)
{
	static const intptr_t reasons[] = { ACT_EXIT_NORMAL, ACT_EXIT_SHUTDOWN,
					    42, ACT_EXIT_KILL };
	static const int want[3][4] = {
		/* permanent */ { RESTARTED, RESTARTED, RESTARTED, RESTARTED },
		/* transient */ { KEPT, KEPT, RESTARTED, RESTARTED },
		/* temporary */ { GONE, GONE, GONE, GONE },
	};
	struct act_sup_child k;
	const struct act_sup_child_info *c;
	act_pid sup, p;
	int t, r;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 100, TU_HOUR, NULL, 0);
	for (t = 0; t < 3; t++) {
		for (r = 0; r < 4; r++) {
			k = spec_of(0, t);
			ck_assert_int_eq(act_sup_start_child(sup, &k, &p), 0);
			end_kid(p, reasons[r]);
			c = which(sup, "a", NULL);
			switch (want[t][r]) {
			case RESTARTED:
				ck_assert_ptr_nonnull(c);
				ck_assert_int_eq(c->state,
						 ACT_SUP_CHILD_RUNNING);
				ck_assert_uint_ne(c->pid.id, p.id);
				break;
			case KEPT:
				ck_assert_ptr_nonnull(c);
				ck_assert_int_eq(c->state,
						 ACT_SUP_CHILD_STOPPED);
				break;
			case GONE:
				ck_assert_ptr_null(c);
				break;
			}
			if (c) {
				ck_assert_int_eq(
					act_sup_terminate_child(sup, "a"), 0);
				ck_assert_int_eq(act_sup_delete_child(sup, "a"),
						 0);
			}
		}
	}
	ck_assert(sup_alive(sup));
	ck_assert_int_eq(act_sup_stop(sup), 0);
	ck_assert_int_eq(ctl.alive[0], 0);
}

START_TEST(restart_types)
{
	run(workers_of(_i), restart_types_main);
}
END_TEST

/* ---- strategies ------------------------------------------------------ */

/* OTP's one_for_one: the others keep running; the third restart within
 * the period (intensity 2) ends the supervisor and every child. */
static void one_for_one_main(void *arg)
{
	struct act_sup_child k[2] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT) };
	act_pid sup, b;
	uint64_t ref;

	(void)arg;
	act_trap_exit(true); /* its supervisors end; it does not */
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, k, 2);
	b = pid_of(sup, "b");
	crash(sup, "a", 9);
	ck_assert_uint_eq(pid_of(sup, "b").id, b.id);
	ck_assert_int_eq(ctl.starts[0], 2);
	ck_assert_int_eq(ctl.starts[1], 1);
	crash(sup, "b", 9);
	ck_assert(sup_alive(sup));
	ref = act_monitor(sup);
	crash(sup, "a", 9);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1], 0);
}

/* OTP's one_for_one_escalation: a restart that keeps failing uses the
 * intensity up, and the supervisor ends, the other child with it. */
static void one_for_one_escalation_main(void *arg)
{
	struct act_sup_child k[2] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT) };
	act_pid sup;
	uint64_t ref;

	(void)arg;
	act_trap_exit(true); /* its supervisors end; it does not */
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 4, TU_HOUR, k, 2);
	ref = act_monitor(sup);
	ctl.fail[0] = FOREVER_FAIL;
	end_kid(pid_of(sup, "a"), 9);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
	/* the first start and four restarts; the fifth is one too many */
	ck_assert_int_eq(ctl.starts[0], 5);
	ck_assert_int_eq(ctl.alive[1], 0);
}

/* OTP's one_for_all: the others are stopped (ACT_EXIT_SHUTDOWN) and
 * all are started again. */
static void one_for_all_main(void *arg)
{
	struct act_sup_child k[3] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT),
				      spec_of(2, ACT_SUP_PERMANENT) };
	act_pid sup, a, b, c;
	uint64_t rb, rc;

	(void)arg;
	act_trap_exit(true); /* its supervisors end; it does not */
	sup = start_sup(ACT_SUP_ONE_FOR_ALL, 2, TU_HOUR, k, 3);
	a = pid_of(sup, "a");
	b = pid_of(sup, "b");
	c = pid_of(sup, "c");
	rb = act_monitor(b);
	rc = act_monitor(c);
	ctl.norder = 0;
	end_kid(a, 9);
	ck_assert_int_eq(tu_wait_down(rb), ACT_EXIT_SHUTDOWN);
	ck_assert_int_eq(tu_wait_down(rc), ACT_EXIT_SHUTDOWN);
	ck_assert_uint_ne(pid_of(sup, "a").id, a.id);
	ck_assert_uint_ne(pid_of(sup, "b").id, b.id);
	ck_assert_uint_ne(pid_of(sup, "c").id, c.id);
	/* a's end, then c and b stopped newest first, then all started */
	ck_assert_int_eq(ctl.norder, 6);
	ck_assert_int_eq(ctl.order[0], -1);
	ck_assert_int_eq(ctl.order[1], -3);
	ck_assert_int_eq(ctl.order[2], -2);
	ck_assert_int_eq(ctl.order[3], 1);
	ck_assert_int_eq(ctl.order[4], 2);
	ck_assert_int_eq(ctl.order[5], 3);
	crash(sup, "c", 9);
	ck_assert(sup_alive(sup));
	rb = act_monitor(sup);
	crash(sup, "b", 9);
	ck_assert_int_eq(tu_wait_down(rb), ACT_EXIT_SHUTDOWN);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1] + ctl.alive[2], 0);
}

/* OTP's one_for_all_other_child_fails_restart: a restarts, b fails
 * once; the retry stops a again and starts both. */
static void one_for_all_retry_main(void *arg)
{
	struct act_sup_child k[2] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT) };
	act_pid sup;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ALL, 3, TU_HOUR, k, 2);
	ctl.fail[1] = 1;
	crash(sup, "a", 9);
	ck_assert_int_eq(which(sup, "a", NULL)->state, ACT_SUP_CHILD_RUNNING);
	ck_assert_int_eq(which(sup, "b", NULL)->state, ACT_SUP_CHILD_RUNNING);
	ck_assert_int_eq(ctl.starts[0], 3);
	ck_assert_int_eq(ctl.starts[1], 3);
	ck_assert_int_eq(ctl.alive[0], 1);
	ck_assert_int_eq(ctl.alive[1], 1);
	ck_assert_int_eq(act_sup_stop(sup), 0);
}

/* OTP's temporary_bystander: a temporary child stopped by its
 * sibling's restart is not started again, and costs no restart. */
static void bystander_main(void *arg)
{
	struct act_sup_child k[2] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_TEMPORARY) };
	int strategy, n;
	act_pid sup;

	(void)arg;
	act_trap_exit(true); /* its supervisors end; it does not */
	for (strategy = ACT_SUP_ONE_FOR_ALL; strategy <= ACT_SUP_REST_FOR_ONE;
	     strategy++) {
		ctl_reset();
		sup = start_sup(strategy, 1, TU_HOUR, k, 2);
		crash(sup, "a", ACT_EXIT_NORMAL);
		ck_assert_ptr_nonnull(which(sup, "a", &n));
		ck_assert_int_eq(n, 1);
		ck_assert_int_eq(ctl.starts[1], 1);
		ck_assert_int_eq(ctl.alive[1], 0);
		crash(sup, "a", 9);
		ck_assert(!sup_alive(sup));
	}
}

/* OTP's rest_for_one: those started before keep running; it and those
 * after are stopped newest first and started in order. */
static void rest_for_one_main(void *arg)
{
	struct act_sup_child k[3] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT),
				      spec_of(2, ACT_SUP_PERMANENT) };
	act_pid sup, a, b, c;

	(void)arg;
	sup = start_sup(ACT_SUP_REST_FOR_ONE, 2, TU_HOUR, k, 3);
	a = pid_of(sup, "a");
	b = pid_of(sup, "b");
	c = pid_of(sup, "c");
	ctl.norder = 0;
	crash(sup, "b", 9);
	ck_assert_uint_eq(pid_of(sup, "a").id, a.id);
	ck_assert_uint_ne(pid_of(sup, "b").id, b.id);
	ck_assert_uint_ne(pid_of(sup, "c").id, c.id);
	ck_assert_int_eq(ctl.norder, 4);
	ck_assert_int_eq(ctl.order[0], -2);
	ck_assert_int_eq(ctl.order[1], -3);
	ck_assert_int_eq(ctl.order[2], 2);
	ck_assert_int_eq(ctl.order[3], 3);
	ck_assert_int_eq(ctl.starts[0], 1);
	/* the last one alone */
	b = pid_of(sup, "b");
	crash(sup, "c", 9);
	ck_assert_uint_eq(pid_of(sup, "b").id, b.id);
	ck_assert(sup_alive(sup));
	ck_assert_int_eq(act_sup_stop(sup), 0);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1] + ctl.alive[2], 0);
}

/* OTP's rest_for_one_other_child_fails_restart and _escalation. */
static void rest_for_one_retry_main(void *arg)
{
	struct act_sup_child k[3] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT),
				      spec_of(2, ACT_SUP_PERMANENT) };
	act_pid sup, a;
	uint64_t ref;

	(void)arg;
	act_trap_exit(true); /* its supervisors end; it does not */
	sup = start_sup(ACT_SUP_REST_FOR_ONE, 3, TU_HOUR, k, 3);
	a = pid_of(sup, "a");
	ctl.fail[2] = 1;
	crash(sup, "b", 9);
	/* b started, c failed; the retry is rest-for-one from c */
	ck_assert_int_eq(ctl.starts[0], 1);
	ck_assert_int_eq(ctl.starts[1], 2);
	ck_assert_int_eq(ctl.starts[2], 3);
	ck_assert_uint_eq(pid_of(sup, "a").id, a.id);
	ck_assert_int_eq(ctl.alive[1] + ctl.alive[2], 2);
	/* escalation: c never starts again */
	ref = act_monitor(sup);
	ctl.fail[2] = FOREVER_FAIL;
	crash(sup, "c", 9);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1] + ctl.alive[2], 0);
}

START_TEST(one_for_one)
{
	run(workers_of(_i), one_for_one_main);
}
END_TEST

START_TEST(one_for_one_escalation)
{
	run(workers_of(_i), one_for_one_escalation_main);
}
END_TEST

START_TEST(one_for_all)
{
	run(workers_of(_i), one_for_all_main);
}
END_TEST

START_TEST(one_for_all_retry)
{
	run(workers_of(_i), one_for_all_retry_main);
}
END_TEST

START_TEST(bystander)
{
	run(workers_of(_i), bystander_main);
}
END_TEST

START_TEST(rest_for_one)
{
	run(workers_of(_i), rest_for_one_main);
}
END_TEST

START_TEST(rest_for_one_retry)
{
	run(workers_of(_i), rest_for_one_retry_main);
}
END_TEST

/* ---- shutdown (OTP's sup_stop group) -------------------------------- */

static void shutdown_main(void *arg)
{
	struct act_sup_child k[4] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT),
				      spec_of(2, ACT_SUP_PERMANENT),
				      spec_of(3, ACT_SUP_PERMANENT) };
	struct act_msg *m;
	uint64_t ref[4];
	act_pid sup, p;
	int i;

	(void)arg;
	k[0].shutdown_ns = ACT_FOREVER; /* stops at once anyway */
	k[1].shutdown_ns = 20 * TU_MS;	/* stubborn: killed after */
	k[2].shutdown_ns = ACT_SUP_BRUTAL_KILL;
	k[3].shutdown_ns = ACT_SUP_SHUTDOWN_DEFAULT;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, k, 4);
	for (i = 0; i < 4; i++) {
		p = pid_of(sup, names[i]);
		ref[i] = act_monitor(p);
		if (i == 1) {
			ck_assert_int_eq(act_send(p, T_STUBBORN, NULL, 0), 0);
			/* its trap is set once it answers */
			ck_assert_int_eq(act_call(p, T_PING, NULL, 0,
						  ACT_FOREVER, &m),
					 0);
			act_msg_free(m);
		}
	}
	ctl.norder = 0;
	ck_assert_int_eq(act_sup_stop(sup), 0);
	ck_assert_int_eq(tu_wait_down(ref[0]), ACT_EXIT_SHUTDOWN);
	ck_assert_int_eq(tu_wait_down(ref[1]), ACT_EXIT_KILLED);
	ck_assert_int_eq(tu_wait_down(ref[2]), ACT_EXIT_KILLED);
	ck_assert_int_eq(tu_wait_down(ref[3]), ACT_EXIT_SHUTDOWN);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(ctl.order[i], -(4 - i));
}

START_TEST(stop_order)
{
	run(workers_of(_i), shutdown_main);
}
END_TEST

/* The parent's exit ends the supervisor with the parent's reason, its
 * children first. */
static act_pid parent_sup;

static void parent(void *arg)
{
	struct act_sup_child k[2] = { spec_of(0, ACT_SUP_PERMANENT),
				      spec_of(1, ACT_SUP_PERMANENT) };

	parent_sup = start_sup(ACT_SUP_ONE_FOR_ONE, 2, TU_HOUR, k, 2);
	ck_assert_int_eq(act_send(*(act_pid *)arg, T_PING, NULL, 0), 0);
	act_receive(ACT_FOREVER);
	act_exit(77);
}

static void parent_exit_main(void *arg)
{
	act_pid self = act_self(), p;
	struct act_msg *m;
	uint64_t ref;

	(void)arg;
	p = tu_spawn(parent, &self);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, T_PING);
	act_msg_free(m);
	ref = act_monitor(parent_sup);
	ck_assert_int_eq(act_send(p, T_PING, NULL, 0), 0);
	ck_assert_int_eq(tu_wait_down(ref), 77);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1], 0);
	ck_assert_int_eq(ctl.order[2], -2);
	ck_assert_int_eq(ctl.order[3], -1);
}

START_TEST(parent_exit)
{
	run(workers_of(_i), parent_exit_main);
}
END_TEST

/* ---- intensity and period ------------------------------------------ */

/* OTP's multiple_restarts: restarts spaced by more than the period never
 * add up; within it, one more than the intensity ends it. Only "at
 * least the period has passed" is waited for, which a busy machine
 * cannot make false. */
static void intensity_main(void *arg)
{
	struct act_sup_child k = spec_of(0, ACT_SUP_PERMANENT);
	act_pid sup;
	uint64_t ref;
	int i;

	(void)arg;
	act_trap_exit(true); /* its supervisors end; it does not */
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 1, 20 * TU_MS, &k, 1);
	for (i = 0; i < 4; i++) {
		crash(sup, "a", 9);
		ck_assert(sup_alive(sup));
		ck_assert_int_eq(act_sleep(25 * TU_MS), 0);
	}
	ck_assert_int_eq(ctl.starts[0], 5);
	ck_assert_int_eq(act_sup_stop(sup), 0);
	/* intensity 0: the first restart is one too many */
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 0, TU_HOUR, &k, 1);
	ref = act_monitor(sup);
	crash(sup, "a", 9);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
	/* intensity 5 within an hour: the sixth restart ends it */
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 5, TU_HOUR, &k, 1);
	for (i = 0; i < 5; i++)
		crash(sup, "a", 9);
	ck_assert(sup_alive(sup));
	ref = act_monitor(sup);
	crash(sup, "a", 9);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
}

START_TEST(intensity)
{
	run(2, intensity_main);
}
END_TEST

/* ---- custom starts and count_children -------------------------------- */

static int start_spawn(void *arg, act_pid *pid)
{
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK };

	atomic_fetch_add(&ctl.starts[(intptr_t)arg], 1);
	return act_spawn_pid(kid, arg, &o, pid);
}

/* A start that asks its own supervisor to stop: the supervisor is the
 * caller, and is told so rather than left waiting on itself. */
static int start_stops_self(void *arg, act_pid *pid)
{
	(void)arg;
	(void)pid;
	return act_sup_stop(act_self());
}

static int start_fails(void *arg, act_pid *pid)
{
	(void)arg;
	(void)pid;
	return -ENOSPC;
}

static void custom_start_main(void *arg)
{
	struct act_sup_child k = spec_of(5, ACT_SUP_PERMANENT);
	act_pid sup, p;

	(void)arg;
	sup = start_sup(ACT_SUP_ONE_FOR_ONE, 3, TU_HOUR, NULL, 0);
	k.init = NULL;
	k.start = start_spawn;
	ck_assert_int_eq(act_sup_start_child(sup, &k, &p), 0);
	ck_assert_int_eq(ctl.starts[5], 1);
	end_kid(p, 3);
	ck_assert_uint_ne(pid_of(sup, "f").id, p.id);
	ck_assert_int_eq(ctl.starts[5], 2);
	k.id = "g";
	k.start = start_fails;
	ck_assert_int_eq(act_sup_start_child(sup, &k, &p), -ENOSPC);
	k.start = start_stops_self;
	ck_assert_int_eq(act_sup_start_child(sup, &k, &p), -EDEADLK);
	ck_assert_int_eq(act_sup_stop(act_self()), -EINVAL);
	ck_assert_int_eq(act_sup_stop(ACT_PID_NONE), -ESRCH);
	/* fn without init: started as soon as spawned */
	k = spec_of(6, ACT_SUP_TRANSIENT);
	k.init = NULL;
	ck_assert_int_eq(act_sup_start_child(sup, &k, &p), 0);
	ck_assert_uint_eq(pid_of(sup, "g").id, p.id);
	end_kid(p, ACT_EXIT_NORMAL);
	ck_assert_int_eq(which(sup, "g", NULL)->state, ACT_SUP_CHILD_STOPPED);
	ck_assert_int_eq(act_sup_stop(sup), 0);
}

START_TEST(custom_start)
{
	run(workers_of(_i), custom_start_main);
}
END_TEST

/* ---- a tree of three levels ----------------------------------------- */

static struct act_sup_child leaves[2];
static struct act_sup_spec mid_spec;

static void tree_main(void *arg)
{
	struct act_sup_child mid = { 0 }, w = spec_of(2, ACT_SUP_PERMANENT);
	struct act_sup_child top_kids[2];
	struct act_sup_counts c;
	act_pid top, m1, m2, a;
	uint64_t ref, ra, rb;
	int i;

	(void)arg;
	leaves[0] = spec_of(0, ACT_SUP_PERMANENT);
	leaves[1] = spec_of(1, ACT_SUP_PERMANENT);
	act_sup_spec_init(&mid_spec);
	mid_spec.strategy = ACT_SUP_ONE_FOR_ALL;
	mid_spec.intensity = 3;
	mid_spec.period_ns = TU_HOUR;
	mid_spec.children = leaves;
	mid_spec.nchildren = 2;
	mid.id = "mid";
	mid.type = ACT_SUP_SUPERVISOR;
	mid.arg = &mid_spec;
	top_kids[0] = mid;
	top_kids[1] = w;
	top = start_sup(ACT_SUP_ONE_FOR_ONE, 3, TU_HOUR, top_kids, 2);
	ck_assert_int_eq(act_sup_count_children(top, &c), 0);
	ck_assert_uint_eq(c.specs, 2);
	ck_assert_uint_eq(c.active, 2);
	ck_assert_uint_eq(c.supervisors, 1);
	ck_assert_uint_eq(c.workers, 1);
	ck_assert_int_eq(which(top, "mid", NULL)->type, ACT_SUP_SUPERVISOR);
	m1 = pid_of(top, "mid");
	/* a leaf's crash is the middle's business: both leaves restart */
	a = pid_of(m1, "a");
	crash(m1, "a", 9);
	ck_assert_uint_ne(pid_of(m1, "a").id, a.id);
	ck_assert_int_eq(ctl.starts[1], 2);
	ck_assert_uint_eq(pid_of(top, "mid").id, m1.id);
	/* the middle's death is the top's: a new middle, new leaves; the
	 * old ones die of the link */
	ra = act_monitor(pid_of(m1, "a"));
	rb = act_monitor(pid_of(m1, "b"));
	end_kid(m1, ACT_EXIT_KILL);
	ck_assert_int_eq(tu_wait_down(ra), ACT_EXIT_KILLED);
	ck_assert_int_eq(tu_wait_down(rb), ACT_EXIT_KILLED);
	m2 = pid_of(top, "mid");
	ck_assert_uint_ne(m2.id, m1.id);
	ck_assert_int_eq(ctl.starts[0], 3);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1], 2);
	/* the middle gives up (leaf b keeps failing): the top restarts it */
	ctl.fail[1] = 4;
	ref = act_monitor(m2);
	crash(m2, "b", 9);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_SHUTDOWN);
	ck_assert_uint_ne(pid_of(top, "mid").id, m2.id);
	ck_assert_int_eq(ctl.alive[0] + ctl.alive[1], 2);
	/* the stop goes down the tree, the worker first */
	ref = act_monitor(top);
	ctl.norder = 0;
	ck_assert_int_eq(act_sup_stop(top), 0);
	ck_assert_int_eq(tu_wait_down(ref), ACT_EXIT_NORMAL);
	ck_assert_int_eq(ctl.norder, 3);
	ck_assert_int_eq(ctl.order[0], -3);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(ctl.alive[i], 0);
}

START_TEST(tree)
{
	run(workers_of(_i), tree_main);
}
END_TEST

static Suite *sup_suite(void)
{
	Suite *s = suite_create("sup");
	TCase *tc = tcase_create("sup");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, start_normal, 0, 3);
	tcase_add_test(tc, start_empty);
	tcase_add_test(tc, start_ignore);
	tcase_add_loop_test(tc, start_fail, 0, 3);
	tcase_add_test(tc, init_exits);
	tcase_add_loop_test(tc, child_adm, 0, 3);
	tcase_add_test(tc, specs);
	tcase_add_test(tc, outside);
	tcase_add_loop_test(tc, restart_types, 0, 3);
	tcase_add_loop_test(tc, one_for_one, 0, 3);
	tcase_add_loop_test(tc, one_for_one_escalation, 0, 3);
	tcase_add_loop_test(tc, one_for_all, 0, 3);
	tcase_add_loop_test(tc, one_for_all_retry, 0, 3);
	tcase_add_loop_test(tc, bystander, 0, 3);
	tcase_add_loop_test(tc, rest_for_one, 0, 3);
	tcase_add_loop_test(tc, rest_for_one_retry, 0, 3);
	tcase_add_loop_test(tc, stop_order, 0, 3);
	tcase_add_loop_test(tc, parent_exit, 0, 3);
	tcase_add_test(tc, intensity);
	tcase_add_loop_test(tc, custom_start, 0, 3);
	tcase_add_loop_test(tc, tree, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(sup_suite());
}
