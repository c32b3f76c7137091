/* SPDX-License-Identifier: MIT */
/*
 * stats.c - act_stats and the ACTORS_STATS table.
 *
 * Every counter has one writer (its worker, or the reactor) that bumps it
 * with a plain load and store (act__count); readers load it relaxed, so a
 * figure read while the runtime runs may lag by a few events but is never
 * torn.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "reactor/reactor.h"
#include "runtime.h"
#include "observe.h"
#include "paths.h"
#include "stats.h"

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

static void worker_stats(const struct act__worker *w,
			 struct act_worker_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->runs = LOAD(w->n_switches);
	s->spawns = LOAD(w->n_spawns);
	s->placed = LOAD(w->n_placed);
	s->steals = LOAD(w->n_steals);
	s->steal_fails = LOAD(w->n_steal_fails);
	s->stolen = LOAD(w->n_stolen);
	s->remote_wakes = LOAD(w->n_remote_wakes);
	s->dup_enqueues = LOAD(w->rq.dup_enqueues);
	s->parks = LOAD(w->n_parks);
	s->sleeps = LOAD(w->n_sleeps);
	s->futex_wakes = LOAD(w->n_futex_wakes);
	s->mutes = LOAD(w->n_mutes);
	s->far_steals = LOAD(w->n_far_steals);
	s->msg_bytes = act__slab_mapped(&w->slab);
	s->cpu = w->rt->plan.w[w->index].cpu;
	s->node = w->rt->plan.w[w->index].node;
	act__observe_worker_times(w->rt, w->index, s);
}

static void rt_stats(const struct act__rt *rt, struct act_stats *s)
{
	uint64_t spawned = 0, exited = 0;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->workers = rt->nworkers;
	for (i = 0; i < rt->nworkers; i++) {
		spawned += LOAD(rt->workers[i].n_spawns);
		exited += LOAD(rt->workers[i].n_exits);
	}
	s->procs_alive = spawned > exited ? spawned - exited : 0;
	s->procs_peak = act__proc_table_used(&rt->procs);
	s->timeouts_fired = LOAD(rt->reactor->n_fired);
	s->io_ops = LOAD(rt->reactor->n_io_ops);
	s->io_cancels = LOAD(rt->reactor->n_io_cancels);
	s->io_inflight = LOAD(rt->reactor->n_inflight);
	s->reactor_loops = LOAD(rt->reactor->n_loops);
	s->reactor_wakes = LOAD(rt->reactor->n_wakes);
	act__observe_rt_times((struct act__rt *)rt, s);
}

int act_stats(struct act_stats *stats, struct act_worker_stats *workers,
	      int nworkers)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leaves below */
	uint32_t i;
	int n;

	if (!rt)
		return -ESRCH;
	if (nworkers < 0 || (nworkers && !workers)) {
		act__rt_leave(rt);
		return -EINVAL;
	}
	if (stats)
		rt_stats(rt, stats);
	for (i = 0; i < rt->nworkers && i < (uint32_t)nworkers; i++)
		worker_stats(&rt->workers[i], &workers[i]);
	n = (int)rt->nworkers;
	act__rt_leave(rt);
	return n;
}

void act__stats_print(const struct act__rt *rt, FILE *f)
{
	struct act_worker_stats w;
	struct act__paths paths;
	struct act_stats s;
	char reactor[32];
	uint32_t i;

	rt_stats(rt, &s);
	if (rt->plan.reactor_inline)
		snprintf(reactor, sizeof(reactor), "inline");
	else if (rt->plan.reactor_cpu < 0)
		snprintf(reactor, sizeof(reactor), "not bound");
	else
		snprintf(reactor, sizeof(reactor), "on CPU %d",
			 rt->plan.reactor_cpu);
	fprintf(f,
		"actors: %u worker%s, %llu processes alive, at most %llu "
		"slots in use, %llu timeouts fired\n"
		"actors: reactor: %llu loops, %llu worker wakes, %llu I/O "
		"operations (%llu cancelled)\n"
		"actors: bind %s, reactor %s, %d memory home%s (%s)\n",
		s.workers, s.workers == 1 ? "" : "s",
		(unsigned long long)s.procs_alive,
		(unsigned long long)s.procs_peak,
		(unsigned long long)s.timeouts_fired,
		(unsigned long long)s.reactor_loops,
		(unsigned long long)s.reactor_wakes,
		(unsigned long long)s.io_ops, (unsigned long long)s.io_cancels,
		act__plan_bind_name(rt->plan.bind), reactor, rt->numa.nnodes,
		rt->numa.nnodes == 1 ? "" : "s",
		rt->numa.bind	   ? "bound" :
		rt->numa.why_plain ? rt->numa.why_plain :
				     "not bound");
	act__paths_of(rt, &paths);
	act__paths_line(f, &paths);
	fprintf(f,
		"%6s %5s %4s %12s %10s %10s %8s %10s %8s %10s %11s %7s %10s "
		"%8s %10s %10s\n",
		"worker", "cpu", "node", "runs", "spawns", "placed", "steals",
		"steal-fail", "stolen", "far-steals", "remote-wake", "dup-enq",
		"parks", "sleeps", "futex-wake", "mutes");
	for (i = 0; i < rt->nworkers; i++) {
		worker_stats(&rt->workers[i], &w);
		fprintf(f,
			"%6u %5d %4d %12llu %10llu %10llu %8llu %10llu %8llu "
			"%10llu %11llu %7llu %10llu %8llu %10llu %10llu\n",
			i, w.cpu, w.node, (unsigned long long)w.runs,
			(unsigned long long)w.spawns,
			(unsigned long long)w.placed,
			(unsigned long long)w.steals,
			(unsigned long long)w.steal_fails,
			(unsigned long long)w.stolen,
			(unsigned long long)w.far_steals,
			(unsigned long long)w.remote_wakes,
			(unsigned long long)w.dup_enqueues,
			(unsigned long long)w.parks,
			(unsigned long long)w.sleeps,
			(unsigned long long)w.futex_wakes,
			(unsigned long long)w.mutes);
	}
}
