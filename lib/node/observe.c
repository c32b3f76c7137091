/* SPDX-License-Identifier: MIT */
/*
 * observe.c - the observers' set-up and stop, the watch (the interval
 * lines and the long-schedule reports) and the time accounting
 * (observe.h, doc/observability.md).
 *
 * The recording side is lib/base/trace.h: each worker and the reactor
 * fill a ring of their own, through the hooks of their loops
 * (sched/worker_obs.h, reactor/reactor_obs.h). The reactor calls the
 * watch here every period (reactor.h watch_ns): it prints ACTORS_STATS' lines
 * (each worker, the reactor, each node of the distribution through
 * act__route_figures) and looks at each worker's running turn for
 * ACTORS_LONG_SCHEDULE, from outside, never by a signal into the
 * process. At stop, with every thread joined, the nodes' final traffic
 * goes on the reactor's track and the writer (tracefile.c) makes the
 * rings one JSON file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actor/registry.h"
#include "settings/vars.h"
#include "reactor/reactor.h"
#include "reactor/reactor_obs.h"
#include "observe.h"
#include "runtime.h"
#include "tracefile.h"

struct act__observe {
	const char *trace_path;	     /* NULL: no trace */
	struct act__trace_buf *bufs; /* nworkers + 1 (the reactor last) */
	uint64_t stats_ns;	     /* interval lines; 0: none */
	uint64_t long_ns;	     /* long schedules; 0: none */
	int64_t start_ns, stats_next, last_ns;
	/* the watch's own (reactor only) */
	uint64_t *reported; /* per worker: the turn reported */
	struct snap {
		uint64_t runs, spawns, steals, parks, busy, spin, sleep;
	} * last; /* per worker, then the reactor */
	/* per node of the distribution, by number: its counters at the
	 * last line (grown as nodes are met) */
	struct act__route_figures *nodes;
	uint32_t nodes_cap;
};

/* ---- time accounting ---------------------------------------------------- */

static void worker_times(struct act__rt *rt, uint32_t i,
			 struct act_worker_stats *ws, uint64_t now)
{
	struct act__worker *w = &rt->workers[i];

	ws->busy_ns = act__clock_phase_total(&w->phases, ACT_PHASE_BUSY, now);
	ws->spin_ns = act__clock_phase_total(&w->phases, ACT_PHASE_SPIN, now);
	ws->sleep_ns = act__clock_phase_total(&w->phases, ACT_PHASE_SLEEP, now);
}

static void rt_times(struct act__rt *rt, struct act_stats *s, uint64_t now)
{
	struct act__reactor *re = rt->reactor;

	s->uptime_ns = (uint64_t)(act__clock_now() - rt->cal.ns0);
	s->reactor_busy_ns =
		act__clock_phase_total(&re->phases, ACT_PHASE_BUSY, now);
	s->reactor_sleep_ns =
		act__clock_phase_total(&re->phases, ACT_PHASE_SLEEP, now);
}

void act__observe_worker_times(struct act__rt *rt, uint32_t i,
			       struct act_worker_stats *ws)
{
	worker_times(rt, i, ws, 0);
}

void act__observe_rt_times(struct act__rt *rt, struct act_stats *s)
{
	rt_times(rt, s, 0);
}

/* ---- the watch (reactor thread) ------------------------------------------ */

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

/* Room for node num's last figures (zeroed when new); false without
 * memory, when its line is left out. */
static bool node_room(struct act__observe *o, uint32_t num)
{
	struct act__route_figures *n;
	uint32_t cap = o->nodes_cap ? o->nodes_cap : 8;

	if (num < o->nodes_cap)
		return true;
	while (cap <= num)
		cap *= 2;
	n = realloc(o->nodes, cap * sizeof(*n));
	if (!n)
		return false;
	memset(n + o->nodes_cap, 0, (cap - o->nodes_cap) * sizeof(*n));
	o->nodes = n;
	o->nodes_cap = cap;
	return true;
}

/* One line per node of the distribution connected now, or whose
 * connection moved anything in the interval: its traffic since the last
 * line (lib/dist/route.c's counters, through act__route_figures). */
static void node_lines(struct act__rt *rt, struct act__observe *o, double at)
{
	struct act__route_figures f, *l;
	uint32_t num;

	for (num = 1; act__route_figures(rt, num, &f); num++) {
		if (!node_room(o, num))
			break;
		l = &o->nodes[num];
		if (!f.up && f.msgs_in == l->msgs_in &&
		    f.msgs_out == l->msgs_out && f.bytes_in == l->bytes_in &&
		    f.bytes_out == l->bytes_out &&
		    f.tick_misses == l->tick_misses)
			continue;
		fprintf(stderr,
			"actors: %.3fs node %s (%s): %" PRIu64
			" frames in (%" PRIu64 " bytes, %" PRIu64
			" reads), %" PRIu64 " out (%" PRIu64 " bytes, %" PRIu64
			" writes), %u tick misses\n",
			at, f.name, f.up ? "up" : "down",
			f.msgs_in - l->msgs_in, f.bytes_in - l->bytes_in,
			f.reads - l->reads, f.msgs_out - l->msgs_out,
			f.bytes_out - l->bytes_out, f.writes - l->writes,
			f.tick_misses - l->tick_misses);
		*l = f;
	}
}

/* One line per worker and one for the reactor: what changed since the
 * last line (ACTORS_STATS=INTERVAL, as Go's schedtrace). */
static void stats_lines(struct act__rt *rt, struct act__observe *o, int64_t now)
{
	struct act_worker_stats ws;
	struct act_stats s;
	struct snap *l, n;
	double at = (double)(now - o->start_ns) / 1e9;
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++) {
		struct act__worker *w = &rt->workers[i];
		char cpu[16];

		l = &o->last[i];
		worker_times(rt, i, &ws, (uint64_t)now);
		n = (struct snap){ LOAD(w->n_switches), LOAD(w->n_spawns),
				   LOAD(w->n_steals),	LOAD(w->n_parks),
				   ws.busy_ns,		ws.spin_ns,
				   ws.sleep_ns };
		if (rt->plan.w[i].cpu >= 0)
			snprintf(cpu, sizeof(cpu), "%d", rt->plan.w[i].cpu);
		else
			snprintf(cpu, sizeof(cpu), "-");
		fprintf(stderr,
			"actors: %.3fs worker %u (cpu %s): runs %" PRIu64
			" spawns %" PRIu64 " steals %" PRIu64 " parks %" PRIu64
			" runq %u busy %.1fms spin %.1fms sleep %.1fms\n",
			at, i, cpu, n.runs - l->runs, n.spawns - l->spawns,
			n.steals - l->steals, n.parks - l->parks,
			act__runq_length(&w->rq),
			ms(n.busy > l->busy ? n.busy - l->busy : 0),
			ms(n.spin > l->spin ? n.spin - l->spin : 0),
			ms(n.sleep > l->sleep ? n.sleep - l->sleep : 0));
		*l = n;
	}
	l = &o->last[rt->nworkers];
	rt_times(rt, &s, (uint64_t)now);
	n = (struct snap){
		LOAD(rt->reactor->n_loops), LOAD(rt->reactor->n_io_ops),
		LOAD(rt->reactor->n_fired), LOAD(rt->reactor->n_wakes),
		s.reactor_busy_ns,	    0,
		s.reactor_sleep_ns
	};
	fprintf(stderr,
		"actors: %.3fs reactor: loops %" PRIu64 " io %" PRIu64
		" timeouts %" PRIu64 " wakes %" PRIu64 " inflight %" PRIu64
		" busy %.1fms sleep %.1fms\n",
		at, n.runs - l->runs, n.spawns - l->spawns,
		n.steals - l->steals, n.parks - l->parks,
		LOAD(rt->reactor->n_inflight),
		ms(n.busy > l->busy ? n.busy - l->busy : 0),
		ms(n.sleep > l->sleep ? n.sleep - l->sleep : 0));
	*l = n;
	node_lines(rt, o, at);
	fflush(stderr);
}

const char *act__observe_symbol(uintptr_t fn)
{
	Dl_info info;

	if (fn && dladdr((void *)fn, &info) && info.dli_sname &&
	    (uintptr_t)info.dli_saddr == fn)
		return info.dli_sname;
	return NULL;
}

/* A turn that has held worker i longer than the limit: said once. */
static void long_schedules(struct act__rt *rt, struct act__observe *o)
{
	uint64_t now = act__clock_ticks();
	double r = act__clock_cal_ratio(&rt->cal);
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++) {
		struct act__worker *w = &rt->workers[i];
		/* relaxed: act__worker_obs_turn_begin's stores; the turn
		 * is read again after the pid, so the pair belongs to one
		 * turn */
		uint64_t t = LOAD(w->watch_turn), pid = LOAD(w->watch_pid);
		uintptr_t fn = LOAD(w->watch_fn);
		char name[ACT_NAME_MAX + 1], s[ACT_PID_STRLEN];
		const char *sym;
		int64_t held;

		if (!t || LOAD(w->watch_turn) != t || o->reported[i] == t ||
		    now <= t)
			continue;
		held = act__clock_ticks_ns(now - t, r);
		if ((uint64_t)held < o->long_ns)
			continue;
		o->reported[i] = t;
		act__registry_name_of(rt, (act_pid){ pid }, name, sizeof(name));
		sym = act__observe_symbol(fn);
		act_pid_format((act_pid){ pid }, s, sizeof(s));
		fprintf(stderr,
			"actors: long schedule: process %s"
			" (name %s, entry %s) has held worker %u for %.1f ms "
			"without a runtime call (ACTORS_LONG_SCHEDULE %.1f "
			"ms)\n",
			s, name[0] ? name : "-", sym ? sym : "?", i,
			ms((uint64_t)held), ms(o->long_ns));
	}
}

void act__observe_watch(struct act__rt *rt, int64_t now)
{
	struct act__observe *o = rt->obs;

	if (o->long_ns)
		long_schedules(rt, o);
	if (o->stats_ns && now >= o->stats_next) {
		stats_lines(rt, o, now);
		o->stats_next += (int64_t)o->stats_ns;
		if (o->stats_next <= now)
			o->stats_next = now + (int64_t)o->stats_ns;
	}
}

/* ---- set-up ---------------------------------------------------------------- */

int act__observe_start(struct act__rt *rt, const struct act__settings *s)
{
	struct act__observe *o;
	uint64_t period = 0;
	uint32_t i, n = rt->nworkers + 1;

	act__clock_ticks_init();
	act__clock_cal_start(&rt->cal);
	if (!s->cfg.trace && s->stats <= 1 && !s->long_schedule)
		return 0;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	rt->obs = o;
	o->trace_path = s->cfg.trace;
	o->stats_ns = s->stats > 1 ? s->stats : 0;
	o->long_ns = s->long_schedule;
	o->start_ns = rt->cal.ns0;
	o->reported = calloc(rt->nworkers, sizeof(*o->reported));
	o->last = calloc(n, sizeof(*o->last));
	if (!o->reported || !o->last)
		return -ENOMEM;
	if (o->trace_path) {
		o->bufs = calloc(n, sizeof(*o->bufs));
		if (!o->bufs)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			if (act__trace_buf_init(&o->bufs[i],
						rt->cfg.trace_buffer, i,
						rt->cal.t0))
				return -ENOMEM;
		for (i = 0; i < rt->nworkers; i++)
			rt->workers[i].trace = &o->bufs[i];
		rt->reactor->trace = &o->bufs[rt->nworkers];
	}
	/* turns are timed for the trace's slices and the watch's turns */
	for (i = 0; i < rt->nworkers; i++)
		rt->workers[i].timed = o->trace_path || o->long_ns;
	if (o->stats_ns) {
		period = o->stats_ns;
		o->stats_next = o->start_ns + (int64_t)o->stats_ns;
	}
	/* a long schedule is seen within a quarter of the limit */
	if (o->long_ns && (!period || o->long_ns / 4 < period))
		period = o->long_ns / 4;
	if (period)
		rt->reactor->watch_ns = (int64_t)period;
	return 0;
}

void act__observe_stop(struct act__rt *rt)
{
	struct act__observe *o = rt->obs;
	bool ran = false;
	uint32_t i;
	int rc;

	if (!o)
		return;
	/* a runtime that never ran (act_main failed on its way up) has
	 * recorded nothing, and leaves no file behind */
	for (i = 0; o->bufs && !ran && i <= rt->nworkers; i++)
		ran = o->bufs[i].n != 0;
	if (ran && o->trace_path) {
		/* the nodes' traffic at the end, on the reactor's track:
		 * the final figures, as ACTORS_STATS' lines at the stop */
		act__route_trace(rt, &o->bufs[rt->nworkers]);
		rc = act__tracefile_write(rt, o->bufs, o->trace_path);
		if (rc)
			fprintf(stderr, "actors: ACTORS_TRACE: %s: %s\n",
				o->trace_path, strerror(-rc));
	}
	for (i = 0; o->bufs && i <= rt->nworkers; i++)
		act__trace_buf_destroy(&o->bufs[i]);
	for (i = 0; i < rt->nworkers; i++) {
		rt->workers[i].trace = NULL;
		rt->workers[i].timed = false;
	}
	rt->reactor->trace = NULL;
	free(o->bufs);
	free(o->reported);
	free(o->last);
	free(o->nodes);
	free(o);
	rt->obs = NULL;
}
