/* SPDX-License-Identifier: MIT */
/*
 * sup_churn.c - random crashes in a supervision tree under load: no
 * child is lost, none runs twice.
 *
 * A top supervisor (one-for-one, an intensity it never reaches) has
 * --sups middle supervisors, of each strategy in turn (intensity 10
 * within 50 ms: the crashes make some give up, and the top starts them
 * again), each with --children workers, permanent or transient by the
 * seed. A worker's init counts it alive (its exit handler uncounts it)
 * and registers its name, "sc.<i>": two alive at once, or a name still
 * taken, is a child doubled. --clients processes call random workers by
 * name all along (act_call; a worker that dies in the call, or is not
 * there, is counted, not an error; a wrong answer is). --crashers
 * processes share --iters crashes: a worker found by its name ends by
 * one of an exit of its own (a reason of 42), act_kill with a user
 * reason or with ACT_EXIT_KILL; one crash in 64 has the top terminate
 * a middle supervisor and restart it instead (a supervisor killed
 * outright leaves its workers to die of the link while the top starts
 * new ones, a double that OTP's supervisors have too). Every reason is
 * abnormal, so every worker must be running again in the end.
 *
 * Then the clients stop; the tree settles (no failed restart still to
 * try, every middle supervisor up, the same pids asked twice); every
 * worker must be running exactly once, under its name, as its
 * supervisor lists it (no child lost). The top is stopped: nothing may
 * be left alive, and the main process is alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	SC_CALL = 1, /* client -> worker: a u64, answered + 1 */
	SC_DIE,	     /* crasher -> worker: exit with 42 */
	SC_DONE,     /* client, crasher -> main */
};

#define SC_MAX_KIDS 4096
#define SC_NAME 24

static long n_sups = 4, n_children = 8, n_clients = 4, n_crashers = 2;

static const struct st_flag flags[] = {
	{ "sups", &n_sups, 1, 64, "middle supervisors" },
	{ "children", &n_children, 1, 64, "workers of each" },
	{ "clients", &n_clients, 0, 1000, "processes that call workers" },
	{ "crashers", &n_crashers, 1, 1000, "processes that crash them" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "sup_churn",
	.iters_name = "crashes",
	.iters_help = "crashes, over all crashers",
	.workers = 4,
	.iters = 20000,
	.timeout = 120,
	.stall = 10,
	.flags = flags,
};

static struct {
	act_pid main, top;
	_Atomic int stop; /* the clients stop */
	_Atomic int alive[SC_MAX_KIDS];
	_Atomic uint64_t starts, mid_starts, crashes, sup_kills, calls;
	_Atomic uint64_t call_gone;
	_Atomic uint64_t missing; /* crasher found no worker of the name */
	_Atomic uint64_t doubled, lost, wrong, leftover, errors;
	struct act_sup_child kids[64][64];
	struct act_sup_spec mids[64];
	struct act_sup_child top_kids[64];
	char names[SC_MAX_KIDS][SC_NAME];
	char sup_names[64][SC_NAME];
} sc;

static int nkids(void)
{
	return (int)(n_sups * n_children);
}

/* ---- workers -------------------------------------------------------- */

static void worker_ended(void *arg)
{
	atomic_fetch_sub(&sc.alive[(intptr_t)arg], 1);
}

static int worker_init(void *arg)
{
	intptr_t i = (intptr_t)arg;
	int rc;

	st_add(&sc.starts, 1);
	if (atomic_fetch_add(&sc.alive[i], 1) != 0)
		st_report(&sc.doubled, "worker %s started while one runs",
			  sc.names[i]);
	rc = act_on_exit(worker_ended, arg);
	if (rc) {
		atomic_fetch_sub(&sc.alive[i], 1);
		st_report(&sc.errors, "act_on_exit: %s", strerror(-rc));
		return rc;
	}
	rc = act_register(sc.names[i], act_self());
	if (rc)
		st_report(&sc.doubled, "%s: act_register: %s", sc.names[i],
			  strerror(-rc));
	return 0;
}

static void worker(void *arg)
{
	struct act_msg *m;
	uint64_t v;

	(void)arg;
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m->tag == SC_DIE) {
			act_msg_free(m);
			act_exit(42);
		}
		if (m->tag == SC_CALL && m->len == sizeof(v)) {
			memcpy(&v, m->data, sizeof(v));
			v++;
			if (act_reply(m, SC_CALL, &v, sizeof(v)) && m->from.id)
				st_report(&sc.errors, "a reply not sent");
		}
		act_msg_free(m);
	}
}

/* ---- load and crashes ------------------------------------------------ */

static void client(void *arg)
{
	struct st_rng rng;
	struct act_msg *r;
	uint64_t v, got;
	act_pid p;
	int rc;

	st_rng_init(&rng, args.seed, 1000 + (uintptr_t)arg);
	while (!atomic_load_explicit(&sc.stop, memory_order_relaxed)) {
		p = act_whereis(
			sc.names[st_rng_below(&rng, (uint32_t)nkids())]);
		v = st_rng_next(&rng);
		rc = act_call(p, SC_CALL, &v, sizeof(v), ACT_FOREVER, &r);
		if (rc == -ESRCH || rc == -ECONNRESET) {
			st_add(&sc.call_gone, 1);
			act_msg_free(r);
			act_yield();
			continue;
		}
		if (rc) {
			st_report(&sc.errors, "act_call: %s", strerror(-rc));
			break;
		}
		memcpy(&got, r->data, sizeof(got));
		if (r->len != sizeof(got) || got != v + 1)
			st_report(&sc.wrong, "a call answered wrong");
		act_msg_free(r);
		st_add(&sc.calls, 1);
	}
	act_send(sc.main, SC_DONE, NULL, 0);
}

/* One crash; false when the worker drawn was not there (being
 * restarted): the crasher draws again. */
static bool crash_one(struct st_rng *rng)
{
	intptr_t reason;
	act_pid p;

	if (st_rng_below(rng, 64) == 0) {
		const char *id =
			sc.sup_names[st_rng_below(rng, (uint32_t)n_sups)];
		int rc = act_sup_terminate_child(sc.top, id);

		if (!rc)
			rc = act_sup_restart_child(sc.top, id, &p);
		/* -EBUSY: another crasher restarted it first */
		if (rc && rc != -EBUSY)
			st_report(&sc.errors, "%s: terminate, restart: %s", id,
				  strerror(-rc));
		st_add(&sc.sup_kills, 1);
		return true;
	}
	p = act_whereis(sc.names[st_rng_below(rng, (uint32_t)nkids())]);
	if (!p.id) {
		st_add(&sc.missing, 1); /* being restarted */
		act_yield();
		return false;
	}
	switch (st_rng_below(rng, 3)) {
	case 0:
		act_send(p, SC_DIE, NULL, 0);
		break;
	case 1:
		reason = 7 + st_rng_below(rng, 100);
		act_kill(p, reason);
		break;
	default:
		act_kill(p, ACT_EXIT_KILL);
	}
	st_add(&sc.crashes, 1);
	return true;
}

static void crasher(void *arg)
{
	uint64_t d = (uintptr_t)arg, n, i;
	struct st_rng rng;

	n = (uint64_t)args.iters / (uint64_t)n_crashers +
	    (d < (uint64_t)args.iters % (uint64_t)n_crashers);
	st_rng_init(&rng, args.seed, d);
	for (i = 0; i < n;) {
		i += crash_one(&rng);
		if (st_rng_below(&rng, 4) == 0)
			act_yield();
	}
	act_send(sc.main, SC_DONE, NULL, 0);
}

/* ---- the tree -------------------------------------------------------- */

/* A middle supervisor's start, counted. */
static int start_mid(void *arg, act_pid *pid)
{
	int rc = act_sup_start(arg, pid);

	if (!rc)
		st_add(&sc.mid_starts, 1);
	return rc;
}

static void build_tree(void)
{
	struct st_rng rng;
	struct act_sup_spec top;
	long m, c;
	int i;

	st_rng_init(&rng, args.seed, 999999);
	for (m = 0; m < n_sups; m++) {
		for (c = 0; c < n_children; c++) {
			struct act_sup_child *k = &sc.kids[m][c];

			i = (int)(m * n_children + c);
			snprintf(sc.names[i], SC_NAME, "sc.%d", i);
			memset(k, 0, sizeof(*k));
			k->id = sc.names[i];
			k->fn = worker;
			k->init = worker_init;
			k->arg = (void *)(intptr_t)i;
			k->restart = st_rng_below(&rng, 2) ? ACT_SUP_PERMANENT :
							     ACT_SUP_TRANSIENT;
			k->shutdown_ns = st_rng_below(&rng, 2) ?
						 ACT_SUP_BRUTAL_KILL :
						 1000000000;
		}
		act_sup_spec_init(&sc.mids[m]);
		sc.mids[m].strategy = (int)(m % 3);
		sc.mids[m].intensity = 10;
		sc.mids[m].period_ns = 50000000;
		sc.mids[m].children = sc.kids[m];
		sc.mids[m].nchildren = (size_t)n_children;
		snprintf(sc.sup_names[m], SC_NAME, "sc.sup.%ld", m);
		memset(&sc.top_kids[m], 0, sizeof(sc.top_kids[m]));
		sc.top_kids[m].id = sc.sup_names[m];
		sc.top_kids[m].start = start_mid;
		sc.top_kids[m].arg = &sc.mids[m];
		sc.top_kids[m].type = ACT_SUP_SUPERVISOR;
	}
	act_sup_spec_init(&top);
	top.intensity = 1 << 30;
	top.period_ns = 1000000000;
	top.children = sc.top_kids;
	top.nchildren = (size_t)n_sups;
	top.name = "sc.top";
	if (act_sup_start(&top, &sc.top))
		st_report(&sc.errors, "the tree did not start");
}

/* The children of sup once all run (a few seconds at most), in out;
 * their count, or -1 if sup is gone. */
static int settled(act_pid sup, struct act_sup_child_info *out, int n)
{
	int k, i, tries;

	for (tries = 0;; tries++) {
		k = act_sup_which_children(sup, out, (size_t)n);
		if (k < 0)
			return -1;
		for (i = 0; i < k && i < n; i++)
			if (out[i].state != ACT_SUP_CHILD_RUNNING)
				break;
		if (i == k || i == n || tries == 5000)
			return k;
		act_sleep(1000000);
	}
}

/* One look at the whole tree: every worker running once, under its
 * name; false if something moved (a restart not done yet). */
static bool tree_whole(bool report)
{
	struct act_sup_child_info mids[64], kids[64];
	int m, c, n, i;

	n = settled(sc.top, mids, 64);
	if (n != n_sups) {
		if (report)
			st_report(&sc.errors, "the top lists %d of %ld", n,
				  n_sups);
		return false;
	}
	for (m = 0; m < n; m++) {
		if (settled(mids[m].pid, kids, 64) != n_children)
			return false;
		for (c = 0; c < n_children; c++) {
			i = (int)(m * n_children + c);
			if (kids[c].state == ACT_SUP_CHILD_RUNNING &&
			    act_whereis(sc.names[i]).id == kids[c].pid.id &&
			    atomic_load(&sc.alive[i]) == 1)
				continue;
			if (report)
				st_report(
					&sc.lost,
					"%s: %s, %d alive, its name %s",
					sc.names[i],
					kids[c].state == ACT_SUP_CHILD_RUNNING ?
						"running" :
						"not running",
					atomic_load(&sc.alive[i]),
					act_whereis(sc.names[i]).id ==
							kids[c].pid.id ?
						"its own" :
						"not its own");
			return false;
		}
	}
	return true;
}

static void sc_main(void *arg)
{
	struct act_msg *m;
	struct act_stats st;
	long i, tries;
	int k;

	(void)arg;
	sc.main = act_self();
	act_trap_exit(true); /* the tree's parent: its EXITs are messages */
	build_tree();
	if (st_get(&sc.errors))
		return;
	for (i = 0; i < n_clients; i++)
		if (!act_spawn(client, (void *)(uintptr_t)i).id)
			st_report(&sc.errors, "a client not spawned");
	for (i = 0; i < n_crashers; i++)
		if (!act_spawn(crasher, (void *)(uintptr_t)i).id)
			st_report(&sc.errors, "a crasher not spawned");
	for (i = 0; i < n_crashers; i++) /* SC_DONE, or stray EXITs */
		for (m = act_receive(ACT_FOREVER); m->tag != SC_DONE;
		     m = act_receive(ACT_FOREVER))
			act_msg_free(m);
	atomic_store(&sc.stop, 1);
	for (i = 0; i < n_clients; i++)
		for (m = act_receive(ACT_FOREVER); m->tag != SC_DONE;
		     m = act_receive(ACT_FOREVER))
			act_msg_free(m);
	/* settled: the same whole tree twice in a row */
	for (tries = 0; !(tree_whole(false) && tree_whole(false)); tries++)
		if (tries == 1000) {
			tree_whole(true);
			break;
		} else {
			act_sleep(1000000);
		}
	if (act_sup_stop(sc.top))
		st_report(&sc.errors, "act_sup_stop of the top failed");
	for (k = 0; k < nkids(); k++)
		if (atomic_load(&sc.alive[k]))
			st_report(&sc.leftover, "%s alive after the stop",
				  sc.names[k]);
	/* the clients' and crashers' exits */
	do {
		act_sleep(1000000);
		act_stats(&st, NULL, 0);
	} while (st.procs_alive > 1 && ++tries < 100000);
	if (st.procs_alive != 1)
		st_report(&sc.leftover,
			  "%" PRIu64 " processes alive at the end",
			  st.procs_alive);
}

/* ---- result ----------------------------------------------------------- */

static uint64_t sc_progress(void)
{
	return st_get(&sc.starts) + st_get(&sc.crashes) + st_get(&sc.calls) +
	       st_get(&sc.missing);
}

static void sc_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "crashes %" PRIu64 " (%" PRIu64
		 " supervisors restarted, %" PRIu64
		 " times none found), starts %" PRIu64 " (%" PRIu64
		 " of supervisors), calls %" PRIu64 " (%" PRIu64
		 " to a worker gone), doubled %" PRIu64 ", lost %" PRIu64
		 ", wrong %" PRIu64 ", left over %" PRIu64 ", errors %" PRIu64,
		 st_get(&sc.crashes), st_get(&sc.sup_kills),
		 st_get(&sc.missing), st_get(&sc.starts),
		 st_get(&sc.mid_starts), st_get(&sc.calls),
		 st_get(&sc.call_gone), st_get(&sc.doubled), st_get(&sc.lost),
		 st_get(&sc.wrong), st_get(&sc.leftover), st_get(&sc.errors));
}

static uint64_t sc_violations(void)
{
	return st_get(&sc.doubled) + st_get(&sc.lost) + st_get(&sc.wrong) +
	       st_get(&sc.leftover) + st_get(&sc.errors);
}

int st_main_sup_churn(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = sc_figures,
		.progress = sc_progress,
		.violations = sc_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	rc = st_run(&w, sc_main, NULL);
	return st_finish(&w, rc, sc_violations());
}
