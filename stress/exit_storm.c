/* SPDX-License-Identifier: MIT */
/*
 * exit_storm.c - one kill per link chain takes down every process of it,
 * and each of them tells every one of its many monitors exactly once
 * (doc/design/lifecycle.md: exit signals, links, monitors, exit handlers).
 *
 * --chains chains of --length victims: victim k of a chain spawns victim
 * k + 1, linked to it (with ACT_SPAWN_LINK in even chains, act_spawn then
 * act_link in odd ones), so each chain is a line of links, and every
 * inner victim is one link's second end and the next one's first. No
 * victim traps exits; each adds an exit handler, then waits in
 * act_receive.
 * --watchers watchers then put --monitors monitors on every victim:
 * monitor m of victim v belongs to watcher (v + m) mod watchers, so with
 * more monitors than watchers a watcher monitors the same victim several
 * times (each monitor its own reference and DOWN). With the defaults,
 * 1,000 chains x 10 victims x 200 monitors: 10,000 victims, 2,000,000
 * monitors (the RSS they add is printed), 100 watchers of 20,000 each.
 *
 * Then the main process kills each chain's head, in an order drawn from
 * the seed, with act_kill and a user reason of that chain's own (also
 * drawn from the seed); the head dies at its receive, its link's
 * signal kills the next, and so on down the chain. The checks:
 *   - every victim's exit handler ran exactly once;
 *   - every victim got exactly --monitors DOWNs, each with its chain's
 *     reason, who = the victim = msg->from, and the reference act_monitor
 *     gave for it; every reference came exactly once, and all are
 *     distinct and not 0;
 *   - no DOWN names a process outside the chains, and no watcher gets
 *     anything else (nor anything more once all DOWNs are in);
 *   - no victim gets a message; act_kill and act_link return 0;
 *   - at the end the main process is alone (watchers return normally:
 *     their DOWNs, with ACT_EXIT_NORMAL, reach the main process).
 *
 * --iters caps the monitors in all by cutting --chains (at least one
 * chain remains): scripts/test.sh's TSan run passes --iters 10000.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <actors.h>

#include "common.h"

enum {
	ES_READY = 1, /* victim -> main; payload: its index */
	ES_ARMED,     /* watcher -> main: all its monitors are set */
	ES_DONE,      /* watcher -> main: all its DOWNs are in */
	ES_STOP,      /* main -> watcher */
};

static long n_chains = 1000, chain_len = 10, n_monitors = 200, n_watchers = 100;

static const struct st_flag flags[] = {
	{ "chains", &n_chains, 1, 1000000, "link chains" },
	{ "length", &chain_len, 1, 100000, "victims per chain" },
	{ "monitors", &n_monitors, 1, 100000, "monitors on each victim" },
	{ "watchers", &n_watchers, 1, 100000,
	  "processes that hold the monitors" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "exit_storm",
	.iters_name = "max-monitors",
	.iters_help = "at most this many monitors in all: cuts --chains",
	.workers = 4,
	.iters = 100000000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	act_pid main;
	uint64_t victims, monitors; /* chains x length, x monitors */
	act_pid *pids;		    /* [victim], by itself */
	intptr_t *reason;	    /* [chain] */
	uint32_t *order;	    /* chains, in the order killed */
	uint64_t *refs;		    /* [victim * monitors + m] */
	uint8_t *seen;		    /* the same, by the watcher */
	_Atomic uint32_t *downs;    /* [victim] DOWNs received */
	_Atomic uint32_t *handlers; /* [victim] exit handler runs */
	uint64_t *hkeys;	    /* pid id -> victim: keys */
	uint32_t *hvals;
	uint64_t hmask;
	_Atomic uint64_t ready, set, received, handler_runs;
	_Atomic uint64_t stray, bad_down, dup, bad_reason, unexpected;
	_Atomic uint64_t errors;
	double t_kill, t_storm; /* main: kill -> last DONE */
	long rss_victims_kb, rss_before_kb, rss_monitors_kb;
	uint64_t alive_end;
} es;

/* ---- the pid -> victim table (filled by main before any watcher) --------- */

static void table_put(act_pid pid, uint32_t v)
{
	uint64_t i = st_mix(0, pid.id) & es.hmask;

	while (es.hkeys[i])
		i = (i + 1) & es.hmask;
	es.hkeys[i] = pid.id;
	es.hvals[i] = v;
}

/* The victim pid names, or -1. */
static int64_t table_get(act_pid pid)
{
	uint64_t i = st_mix(0, pid.id) & es.hmask;

	if (!pid.id)
		return -1;
	for (; es.hkeys[i]; i = (i + 1) & es.hmask)
		if (es.hkeys[i] == pid.id)
			return es.hvals[i];
	return -1;
}

/* ---- victims ------------------------------------------------------------- */

static void on_exit_handler(void *arg)
{
	uint64_t v = (uintptr_t)arg;

	atomic_fetch_add_explicit(&es.handlers[v], 1, memory_order_relaxed);
	st_add(&es.handler_runs, 1);
}

static void victim(void *arg)
{
	uint64_t v = (uintptr_t)arg;
	uint64_t k = v % (uint64_t)chain_len, c = v / (uint64_t)chain_len;
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK };
	struct act_msg *m;
	act_pid next;
	int rc;

	rc = act_on_exit(on_exit_handler, arg);
	if (rc)
		st_report(&es.errors, "victim %" PRIu64 ": act_on_exit: %s", v,
			  strerror(-rc));
	es.pids[v] = act_self();
	if (k + 1 < (uint64_t)chain_len) {
		if (c % 2 == 0) {
			next = act_spawn_opt(victim, (void *)(uintptr_t)(v + 1),
					     &o);
		} else {
			next = act_spawn(victim, (void *)(uintptr_t)(v + 1));
			rc = next.id ? act_link(next) : 0;
			if (rc)
				st_report(&es.errors,
					  "victim %" PRIu64 ": act_link: %s", v,
					  strerror(-rc));
		}
		if (!next.id)
			st_report(&es.errors,
				  "victim %" PRIu64 ": spawn failed", v);
	}
	/* pids[v] is written before this send: main reads it after */
	rc = act_send(es.main, ES_READY, &v, sizeof(v));
	if (rc)
		st_report(&es.errors, "victim READY: %s", strerror(-rc));
	for (;;) { /* until its chain's kill */
		m = act_receive(ACT_FOREVER);
		st_report(&es.unexpected,
			  "victim %" PRIu64 " received %s "
			  "tag %#x",
			  v, m ? "a message," : "NULL,", m ? m->tag : 0);
		act_msg_free(m);
	}
}

/* ---- watchers ------------------------------------------------------------ */

/* The first monitor index of victim v that watcher w holds. */
static uint64_t first_m(uint64_t w, uint64_t v)
{
	uint64_t nw = (uint64_t)n_watchers;

	return (w + nw - v % nw) % nw;
}

static void take_down(uint64_t w, const struct act_msg *m)
{
	struct act_exit_info info;
	uint64_t mi, idx;
	int64_t v;

	if (m->tag != ACT_TAG_DOWN || m->len != sizeof(info)) {
		st_report(&es.unexpected,
			  "watcher %" PRIu64 ": tag %#x, "
			  "%zu bytes",
			  w, m->tag, m->len);
		return;
	}
	memcpy(&info, m->data, sizeof(info));
	v = table_get(info.who);
	if (v < 0) {
		st_report(&es.stray,
			  "watcher %" PRIu64 ": DOWN for %" PRIx64
			  ", not a victim (reason %" PRIdPTR ")",
			  w, info.who.id, info.reason);
		return;
	}
	for (mi = first_m(w, (uint64_t)v); mi < es.monitors;
	     mi += (uint64_t)n_watchers) {
		idx = (uint64_t)v * es.monitors + mi;
		if (es.refs[idx] == info.ref)
			break;
	}
	if (mi >= es.monitors) {
		st_report(&es.bad_down,
			  "watcher %" PRIu64 ": DOWN of victim %" PRId64
			  " with ref %" PRIu64 ", not one of its",
			  w, v, info.ref);
		return;
	}
	if (es.seen[idx]++) {
		st_report(&es.dup,
			  "watcher %" PRIu64 ": a second DOWN of "
			  "victim %" PRId64 " ref %" PRIu64,
			  w, v, info.ref);
		return;
	}
	atomic_fetch_add_explicit(&es.downs[v], 1, memory_order_relaxed);
	st_add(&es.received, 1);
	if (info.reason != es.reason[(uint64_t)v / (uint64_t)chain_len])
		st_report(&es.bad_reason,
			  "victim %" PRId64 " DOWN with reason "
			  "%" PRIdPTR ", want %" PRIdPTR,
			  v, info.reason,
			  es.reason[(uint64_t)v / (uint64_t)chain_len]);
	if (!act_pid_eq(m->from, info.who))
		st_report(&es.bad_down,
			  "DOWN of victim %" PRId64 ": from %" PRIx64
			  ", who %" PRIx64,
			  v, m->from.id, info.who.id);
}

static void watcher(void *arg)
{
	uint64_t w = (uintptr_t)arg, v, mi, idx, want = 0, got = 0;
	struct act_msg *m;
	bool stop = false;

	for (v = 0; v < es.victims; v++)
		for (mi = first_m(w, v); mi < es.monitors;
		     mi += (uint64_t)n_watchers) {
			idx = v * es.monitors + mi;
			es.refs[idx] = act_monitor(es.pids[v]);
			if (!es.refs[idx])
				st_report(&es.errors,
					  "act_monitor of victim %" PRIu64
					  " failed",
					  v);
			want++;
			st_add(&es.set, 1);
		}
	if (act_send(es.main, ES_ARMED, NULL, 0))
		st_report(&es.errors, "watcher: ARMED not sent");
	while (got < want) {
		m = act_receive(ACT_FOREVER);
		if (!m) {
			st_report(&es.errors, "watcher: receive gave NULL");
			continue;
		}
		take_down(w, m);
		got += m->tag == ACT_TAG_DOWN;
		act_msg_free(m);
	}
	if (act_send(es.main, ES_DONE, NULL, 0))
		st_report(&es.errors, "watcher: DONE not sent");
	/* nothing but STOP may come now: no DOWN twice, none late */
	while (!stop) {
		m = act_receive(ACT_FOREVER);
		stop = m && m->tag == ES_STOP;
		if (!stop && m && m->tag == ACT_TAG_DOWN)
			take_down(w, m); /* it says what was wrong */
		else if (!stop)
			st_report(&es.unexpected,
				  "watcher %" PRIu64
				  ": tag %#x after its DOWNs",
				  w, m ? m->tag : 0);
		act_msg_free(m);
	}
	while ((m = act_receive(0)) != NULL) {
		take_down(w, m);
		act_msg_free(m);
	}
}

/* ---- the main process ---------------------------------------------------- */

static uint64_t alive_now(void)
{
	struct act_stats s;

	if (act_stats(&s, NULL, 0) < 0) {
		st_report(&es.errors, "act_stats failed");
		return 0;
	}
	return s.procs_alive;
}

/* Waits for n messages of the tag; anything else is a violation. */
static void wait_for(uint32_t tag, uint64_t n)
{
	struct act_msg *m;

	while (n--) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != tag)
			st_report(&es.errors, "main: tag %#x, want %#x",
				  m ? m->tag : 0, tag);
		act_msg_free(m);
	}
}

static void es_main(void *arg)
{
	struct act_spawn_opts mo = { .flags = ACT_SPAWN_MONITOR };
	struct act_exit_info info;
	struct act_msg *m;
	uint64_t c, i, v;
	act_pid *w;
	int rc;

	(void)arg;
	es.main = act_self();
	w = calloc((size_t)n_watchers, sizeof(*w));
	if (!w) {
		st_report(&es.errors, "out of memory");
		return;
	}
	for (c = 0; c < (uint64_t)n_chains; c++)
		if (!act_spawn(victim, (void *)(uintptr_t)(c * chain_len)).id)
			st_report(&es.errors,
				  "spawn of chain %" PRIu64 " failed", c);
	for (i = 0; i < es.victims; i++) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != ES_READY || m->len != sizeof(v)) {
			st_report(&es.errors, "main: not a READY");
		} else {
			memcpy(&v, m->data, sizeof(v));
			table_put(es.pids[v], (uint32_t)v);
			st_add(&es.ready, 1);
		}
		act_msg_free(m);
	}
	es.rss_victims_kb = st_status_kb("VmRSS");
	for (i = 0; i < (uint64_t)n_watchers; i++) {
		w[i] = act_spawn_opt(watcher, (void *)(uintptr_t)i, &mo);
		if (!w[i].id)
			st_report(&es.errors, "spawn of watcher failed");
	}
	wait_for(ES_ARMED, (uint64_t)n_watchers);
	es.rss_monitors_kb = st_status_kb("VmRSS");

	es.t_kill = st_now();
	for (i = 0; i < (uint64_t)n_chains; i++) {
		c = es.order[i];
		rc = act_kill(es.pids[c * chain_len], es.reason[c]);
		if (rc)
			st_report(&es.errors,
				  "act_kill of chain %" PRIu64 "'s head: %s", c,
				  strerror(-rc));
	}
	wait_for(ES_DONE, (uint64_t)n_watchers);
	es.t_storm = st_now() - es.t_kill;
	/* every handler ran before its DOWNs went out; wait for the
	 * victims' slots to go too, then for a late DOWN, if any */
	while (alive_now() > 1 + (uint64_t)n_watchers && !st_get(&es.errors))
		act_sleep(1000000);
	act_sleep(10000000);
	for (i = 0; i < (uint64_t)n_watchers; i++)
		if (act_send(w[i], ES_STOP, NULL, 0))
			st_report(&es.errors, "STOP: watcher %" PRIu64 " gone",
				  i);
	for (i = 0; i < (uint64_t)n_watchers; i++) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != ACT_TAG_DOWN || m->len != sizeof(info)) {
			st_report(&es.errors,
				  "main: tag %#x, not a watcher's "
				  "DOWN",
				  m ? m->tag : 0);
		} else {
			memcpy(&info, m->data, sizeof(info));
			if (info.reason != ACT_EXIT_NORMAL)
				st_report(&es.errors,
					  "a watcher exited with "
					  "%" PRIdPTR,
					  info.reason);
		}
		act_msg_free(m);
	}
	es.alive_end = alive_now();
	free(w);
}

/* ---- checks and result --------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_counts(void)
{
	uint64_t v, i, n = es.victims * es.monitors, bad = 0;
	uint64_t *sorted;

	for (v = 0; v < es.victims; v++) {
		uint32_t d = atomic_load(&es.downs[v]);
		uint32_t h = atomic_load(&es.handlers[v]);

		if (d != (uint32_t)n_monitors || h != 1)
			st_report(&es.errors,
				  "victim %" PRIu64 ": %u DOWNs "
				  "(want %ld), exit handler ran %u times",
				  v, d, n_monitors, h);
	}
	for (i = 0; i < n; i++)
		bad += !es.seen[i];
	if (bad)
		st_report(&es.errors, "%" PRIu64 " monitors never fired", bad);
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		st_report(&es.errors, "out of memory for the ref check");
		return;
	}
	memcpy(sorted, es.refs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (i = 0, bad = 0; i < n; i++)
		bad += !sorted[i] || (i && sorted[i] == sorted[i - 1]);
	free(sorted);
	if (bad)
		st_report(&es.errors,
			  "%" PRIu64 " monitor refs 0 or equal to "
			  "another",
			  bad);
	if (es.alive_end != 1)
		st_report(&es.errors, "%" PRIu64 " processes alive at the end",
			  es.alive_end);
}

static uint64_t es_progress(void)
{
	return st_get(&es.ready) + st_get(&es.set) + st_get(&es.received) +
	       st_get(&es.handler_runs);
}

static void es_figures(char *buf, size_t n)
{
	struct rusage ru;
	long mon_kb = es.rss_monitors_kb - es.rss_victims_kb;

	getrusage(RUSAGE_SELF, &ru);
	snprintf(buf, n,
		 "victims %" PRIu64 ", monitors %" PRIu64 " (+%ld MiB RSS, "
		 "%.0f B each with the watchers' stacks), DOWNs %" PRIu64
		 ", exit handlers %" PRIu64 ", stray %" PRIu64 ", bad %" PRIu64
		 ", dup %" PRIu64 ", bad reason %" PRIu64
		 ", unexpected %" PRIu64 ", errors %" PRIu64
		 ", storm %.2f s, peak RSS %ld MiB",
		 st_get(&es.ready), st_get(&es.set), mon_kb / 1024,
		 st_get(&es.set) ? mon_kb * 1024.0 / (double)st_get(&es.set) :
				   0.0,
		 st_get(&es.received), st_get(&es.handler_runs),
		 st_get(&es.stray), st_get(&es.bad_down), st_get(&es.dup),
		 st_get(&es.bad_reason), st_get(&es.unexpected),
		 st_get(&es.errors), es.t_storm, ru.ru_maxrss / 1024);
}

static int setup(void)
{
	uint64_t cap_chains, i, j, hcap = 2;
	struct st_rng rng;

	cap_chains = (uint64_t)args.iters /
		     ((uint64_t)chain_len * (uint64_t)n_monitors);
	if ((uint64_t)n_chains > cap_chains)
		n_chains = cap_chains ? (long)cap_chains : 1;
	/* the sizes line shows the chains actually run */
	snprintf(args.sizes, sizeof(args.sizes),
		 "workers %ld chains %ld length %ld monitors %ld watchers %ld",
		 args.workers, n_chains, chain_len, n_monitors, n_watchers);
	es.victims = (uint64_t)n_chains * (uint64_t)chain_len;
	es.monitors = (uint64_t)n_monitors;
	while (hcap < 2 * es.victims)
		hcap *= 2;
	es.hmask = hcap - 1;
	es.pids = calloc(es.victims, sizeof(*es.pids));
	es.reason = calloc((size_t)n_chains, sizeof(*es.reason));
	es.order = calloc((size_t)n_chains, sizeof(*es.order));
	es.refs = calloc(es.victims * es.monitors, sizeof(*es.refs));
	es.seen = calloc(es.victims * es.monitors, 1);
	es.downs = calloc(es.victims, sizeof(*es.downs));
	es.handlers = calloc(es.victims, sizeof(*es.handlers));
	es.hkeys = calloc(hcap, sizeof(*es.hkeys));
	es.hvals = calloc(hcap, sizeof(*es.hvals));
	if (!es.pids || !es.reason || !es.order || !es.refs || !es.seen ||
	    !es.downs || !es.handlers || !es.hkeys || !es.hvals) {
		fputs("exit_storm: out of memory\n", stderr);
		return -1;
	}
	/* touched now, so that the RSS the monitors add is the runtime's */
	memset(es.refs, 0, es.victims * es.monitors * sizeof(*es.refs));
	memset(es.seen, 0, es.victims * es.monitors);
	st_rng_init(&rng, args.seed, 0);
	for (i = 0; i < (uint64_t)n_chains; i++) /* user reasons: > 0 */
		es.reason[i] = (intptr_t)(1 + st_rng_below(&rng, 1u << 30));
	for (i = 0; i < (uint64_t)n_chains; i++) { /* a shuffle */
		j = st_rng_below(&rng, (uint32_t)i + 1);
		es.order[i] = es.order[j];
		es.order[j] = (uint32_t)i;
	}
	return 0;
}

static uint64_t es_violations(void)
{
	return st_get(&es.stray) + st_get(&es.bad_down) + st_get(&es.dup) +
	       st_get(&es.bad_reason) + st_get(&es.unexpected) +
	       st_get(&es.errors);
}

int st_main_exit_storm(int argc, char **argv)
{
	struct st_watch wt = {
		.args = &args,
		.figures = es_figures,
		.progress = es_progress,
		.violations = es_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	if (setup())
		return ST_EXIT_FAIL;
	rc = st_run(&wt, es_main, NULL);
	if (!rc)
		check_counts();
	return st_finish(&wt, rc, es_violations());
}
