/* SPDX-License-Identifier: MIT */
/*
 * report.c - `actors topo`: a topology, its usable set and the plan made
 * for it, as text for an operator or as one JSON object for tools; see
 * act__report_print in plan.h. The JSON keys are documented in
 * doc/topology.md and tests/topo.sh compares both forms with golden
 * files, so a change here is a change of an interface.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "actors.h"
#include "base/json.h"
#include "report.h"

/* What the text and the JSON both need, worked out once. */
struct report {
	const struct act__topo *t;
	const struct act__plan *pl;
	bool bound;
	int ngroups; /* (package, node) pairs */
	int *group_pk, *group_node;
	hwloc_bitmap_t *group_cpus;
	hwloc_bitmap_t *cache_cpus; /* t->ncaches */
	int allowed_cores, allowed_pus;
	const struct act__report_kv *extra; /* after the plan; may be NULL */
	int nextra;
};

/* hwloc's list form of b ("0-3,8"), to be freed; NULL when out of
 * memory (list_or() prints that as "?"). */
static char *list_of(hwloc_const_bitmap_t b)
{
	char *s = NULL;

	if (!b || hwloc_bitmap_list_asprintf(&s, b) < 0 || !s)
		return NULL;
	return s;
}

static const char *list_or(const char *s)
{
	return s ? s : "?";
}

static int report_init(struct report *r, const struct act__topo *t,
		       const struct act__plan *pl)
{
	char *core_seen;
	int i, g;

	memset(r, 0, sizeof(*r));
	r->t = t;
	r->pl = pl;
	r->bound = !pl->unbound;
	/* t->npus bounds both: each group and each cache has a PU */
	r->group_pk = calloc((size_t)t->npus + 1, sizeof(int));
	r->group_node = calloc((size_t)t->npus + 1, sizeof(int));
	r->group_cpus = calloc((size_t)t->npus + 1, sizeof(hwloc_bitmap_t));
	r->cache_cpus = calloc((size_t)t->ncaches + 1, sizeof(hwloc_bitmap_t));
	/* core indices are below ncores, or below npus when the topology
	 * has no core objects */
	core_seen = calloc((size_t)t->npus + (size_t)t->ncores + 1, 1);
	if (!r->group_pk || !r->group_node || !r->group_cpus ||
	    !r->cache_cpus || !core_seen) {
		free(core_seen);
		return -1;
	}
	for (i = 0; i < t->ncaches; i++)
		if (!(r->cache_cpus[i] = hwloc_bitmap_alloc()))
			goto fail;
	for (i = 0; i < t->npus; i++) {
		const struct act__pu *p = &t->pus[i];

		/* groups in order of first appearance, which is topology
		 * order: few of them, so a linear search */
		for (g = 0; g < r->ngroups; g++)
			if (r->group_pk[g] == p->package &&
			    r->group_node[g] == p->node)
				break;
		if (g == r->ngroups) {
			r->group_cpus[g] = hwloc_bitmap_alloc();
			if (!r->group_cpus[g])
				goto fail;
			r->group_pk[g] = p->package;
			r->group_node[g] = p->node;
			r->ngroups++;
		}
		hwloc_bitmap_set(r->group_cpus[g], (unsigned)p->os);
		if (p->cache >= 0 && p->cache < t->ncaches)
			hwloc_bitmap_set(r->cache_cpus[p->cache],
					 (unsigned)p->os);
		if (hwloc_bitmap_isset(t->allowed, (unsigned)p->os)) {
			r->allowed_pus++;
			if (!core_seen[p->core]) {
				core_seen[p->core] = 1;
				r->allowed_cores++;
			}
		}
	}
	free(core_seen);
	return 0;
fail:
	free(core_seen);
	return -1;
}

static void report_free(struct report *r)
{
	int i;

	for (i = 0; r->group_cpus && i < r->ngroups; i++)
		hwloc_bitmap_free(r->group_cpus[i]);
	for (i = 0; r->cache_cpus && i < r->t->ncaches; i++)
		hwloc_bitmap_free(r->cache_cpus[i]);
	free(r->group_pk);
	free(r->group_node);
	free(r->group_cpus);
	free(r->cache_cpus);
}

/* The PU a bound worker stands on (numa: the first PU of the core it
 * stands for), or NULL. */
static const struct act__pu *worker_pu(const struct report *r, int i)
{
	const struct act__plan_worker *w = &r->pl->w[i];

	if (!r->bound || w->pu < 0 || w->pu >= r->t->npus)
		return NULL;
	return &r->t->pus[w->pu];
}

/* The workers bound to CPU cpu, as a bitmap of worker indices. */
static hwloc_bitmap_t workers_on(const struct report *r, int cpu)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	int i;

	for (i = 0; b && r->bound && i < r->pl->nworkers; i++)
		if (r->pl->w[i].set &&
		    hwloc_bitmap_isset(r->pl->w[i].set, (unsigned)cpu))
			hwloc_bitmap_set(b, (unsigned)i);
	return b;
}

/* Victims [from, end) of worker w's list: sorted by index within a level
 * (plan.c), so they read well as runs ("1-15,17"). */
static void text_runs(FILE *f, const uint16_t *v, int from, int end)
{
	int i = from;

	if (from == end) {
		fprintf(f, "none");
		return;
	}
	while (i < end) {
		int j = i;

		while (j + 1 < end && v[j + 1] == v[j] + 1)
			j++;
		fprintf(f, "%s%d", i == from ? "" : ",", v[i]);
		if (j > i)
			fprintf(f, "-%d", v[j]);
		i = j + 1;
	}
}

/* Level l of worker w is victims[level_end[l - 1], level_end[l]). */
static int level_from(const struct act__plan_worker *w, int l)
{
	return l ? w->level_end[l - 1] : 0;
}

/* ---- text ------------------------------------------------------------- */

static void text_topology(FILE *f, const struct report *r)
{
	const struct act__topo *t = r->t;
	char *s;
	int i;

	fprintf(f, "topology: %s\n", t->source);
	fprintf(f,
		"  %d package%s, %d NUMA node%s, %d core%s, %d hardware "
		"thread%s",
		t->npackages, t->npackages == 1 ? "" : "s", t->nnodes,
		t->nnodes == 1 ? "" : "s", t->ncores, t->ncores == 1 ? "" : "s",
		t->npus, t->npus == 1 ? "" : "s");
	/* SMT is what pu and compact are about: say it when uniform */
	if (t->ncores > 0 && t->npus > t->ncores && t->npus % t->ncores == 0)
		fprintf(f, " (%d per core)", t->npus / t->ncores);
	fprintf(f, ", ");
	if (t->ncaches)
		fprintf(f, "%d shared cache%s\n", t->ncaches,
			t->ncaches == 1 ? "" : "s");
	else
		fprintf(f, "no cache shared between cores\n");
	for (i = 0; i < r->ngroups; i++) {
		s = list_of(r->group_cpus[i]);
		if (r->group_node[i] >= 0)
			fprintf(f, "  package %d, node %d: CPUs %s\n",
				r->group_pk[i], r->group_node[i], list_or(s));
		else
			fprintf(f, "  package %d: CPUs %s\n", r->group_pk[i],
				list_or(s));
		free(s);
	}
	for (i = 0; i < t->ncaches; i++) {
		s = list_of(r->cache_cpus[i]);
		fprintf(f, "  shared cache %d: CPUs %s\n", i, list_or(s));
		free(s);
	}
}

static void text_sets(FILE *f, const struct report *r)
{
	const struct act__topo *t = r->t;
	char *a = list_of(t->allowed), *u = list_of(t->usable);

	fprintf(f, "allowed CPUs: %s (%d core%s, %d hardware thread%s)\n",
		list_or(a), r->allowed_cores, r->allowed_cores == 1 ? "" : "s",
		r->allowed_pus, r->allowed_pus == 1 ? "" : "s");
	fprintf(f, "usable CPUs: %s (%d core%s, %d hardware thread%s)\n",
		list_or(u), t->nusable_cores, t->nusable_cores == 1 ? "" : "s",
		t->nusable_pus, t->nusable_pus == 1 ? "" : "s");
	if (t->quota > 0)
		fprintf(f, "cgroup CPU quota: %.2f CPUs\n", t->quota);
	else
		fprintf(f, "cgroup CPU quota: none\n");
	free(a);
	free(u);
}

static void text_workers(FILE *f, const struct report *r)
{
	const struct act__plan *pl = r->pl;
	int i;

	fprintf(f, "plan: bind %s, %d worker%s ", act__plan_bind_name(pl->bind),
		pl->nworkers, pl->nworkers == 1 ? "" : "s");
	/* the plan does not say whether the count was set; one equal to
	 * the default reads the same either way */
	if (pl->nworkers == pl->default_workers)
		fprintf(f, "(the default: %s)\n", pl->count_why);
	else
		fprintf(f, "(set; the default is %d: %s)\n",
			pl->default_workers, pl->count_why);
	if (!r->bound) {
		char *l = NULL;

		if (pl->w[0].set)
			hwloc_bitmap_list_asprintf(&l, pl->w[0].set);
		if (pl->nworkers > 1)
			fprintf(f, "  workers 0-%d: not bound",
				pl->nworkers - 1);
		else
			fprintf(f, "  worker 0: not bound");
		if (pl->w[0].set)
			fprintf(f, ", kept within CPUs %s", l ? l : "?");
		fprintf(f, "\n");
		free(l);
		return;
	}
	if (pl->bind == ACT_BIND_NUMA)
		fprintf(f, "  worker  node  package  CPUs\n");
	else
		fprintf(f, "  worker    CPU  core  node  package\n");
	for (i = 0; i < pl->nworkers; i++) {
		const struct act__plan_worker *w = &pl->w[i];
		const struct act__pu *p = worker_pu(r, i);
		char *s;

		if (!p)
			continue;
		if (pl->bind == ACT_BIND_NUMA) {
			s = list_of(w->set);
			fprintf(f, "  %6d  %4d  %7d  %s\n", i, w->node,
				p->package, list_or(s));
			free(s);
		} else {
			fprintf(f, "  %6d  %5d  %4d  %4d  %7d\n", i, w->cpu,
				p->core, w->node, p->package);
		}
	}
}

static void text_reactor(FILE *f, const struct report *r)
{
	int cpu = r->pl->reactor_cpu;
	const struct act__pu *p;
	hwloc_bitmap_t on;

	if (r->pl->reactor_inline) {
		fprintf(f, "reactor: inline (run by worker 0, no thread%s)\n",
			r->pl->reactor_lone ? ": one worker, no CPU beside it" :
					      "");
		return;
	}
	if (cpu < 0) {
		fprintf(f, "reactor: not bound\n");
		return;
	}
	fprintf(f, "reactor: CPU %d", cpu);
	p = act__topology_pu(r->t, cpu);
	if (p)
		fprintf(f, " (core %d, node %d, package %d)", p->core, p->node,
			p->package);
	/* the reactor's latency suffers when it shares: say so */
	on = workers_on(r, cpu);
	if (on && !hwloc_bitmap_iszero(on)) {
		char *s = list_of(on);

		fprintf(f, ", shared with worker%s %s",
			hwloc_bitmap_weight(on) == 1 ? "" : "s", list_or(s));
		free(s);
	}
	hwloc_bitmap_free(on);
	fprintf(f, "\n");
}

static void text_steal(FILE *f, const struct report *r, int n)
{
	const struct act__plan *pl = r->pl;
	int i, l;

	fprintf(f, "steal order, nearest first:\n");
	for (i = 0; i < n; i++) {
		const struct act__plan_worker *w = &pl->w[i];

		fprintf(f, "  worker %d: ", i);
		if (!r->bound) {
			/* one level: every other worker */
			fprintf(f, "any ");
			text_runs(f, w->victims, 0,
				  w->level_end[ACT_STEAL_LEVELS - 1]);
			fprintf(f, "\n");
			continue;
		}
		for (l = 0; l < ACT_STEAL_LEVELS; l++) {
			fprintf(f, "%s%s ", l ? "; " : "",
				act__plan_steal_level_name(l, true));
			text_runs(f, w->victims, level_from(w, l),
				  w->level_end[l]);
		}
		fprintf(f, "\n");
	}
}

static void print_text(FILE *f, const struct report *r, unsigned flags)
{
	int i;

	text_topology(f, r);
	text_sets(f, r);
	text_workers(f, r);
	text_reactor(f, r);
	text_steal(f, r, flags & ACT_REPORT_STEAL_ALL ? r->pl->nworkers : 1);
	if (r->pl->note[0])
		fprintf(f, "note: %s\n", r->pl->note);
	if (r->nextra)
		fprintf(f, "kernel paths (this machine, probed now):\n");
	for (i = 0; i < r->nextra; i++)
		fprintf(f, "  %-9s %s\n", r->extra[i].key, r->extra[i].value);
}

/* ---- JSON ------------------------------------------------------------- */

/* A number, or null when it is one of the "unknown" negatives. */
static void json_int(FILE *f, int v)
{
	if (v < 0)
		fprintf(f, "null");
	else
		fprintf(f, "%d", v);
}

static void json_list(FILE *f, hwloc_const_bitmap_t b)
{
	char *s = list_of(b);

	act__json_fstr(f, s ? s : "");
	free(s);
}

static void json_topology(FILE *f, const struct report *r)
{
	const struct act__topo *t = r->t;
	int i;

	fprintf(f, "  \"source\": ");
	act__json_fstr(f, t->source);
	fprintf(f, ",\n  \"this_machine\": %s,\n",
		t->thissystem ? "true" : "false");
	fprintf(f,
		"  \"topology\": {\"packages\": %d, \"numa_nodes\": %d, "
		"\"cores\": %d, \"pus\": %d, \"shared_caches\": %d,\n",
		t->npackages, t->nnodes, t->ncores, t->npus, t->ncaches);
	fprintf(f, "    \"groups\": [");
	for (i = 0; i < r->ngroups; i++) {
		fprintf(f,
			"%s\n      {\"package\": %d, \"node\": ", i ? "," : "",
			r->group_pk[i]);
		json_int(f, r->group_node[i]);
		fprintf(f, ", \"cpus\": ");
		json_list(f, r->group_cpus[i]);
		fprintf(f, "}");
	}
	fprintf(f, "],\n    \"caches\": [");
	for (i = 0; i < t->ncaches; i++) {
		fprintf(f, "%s\n      {\"cache\": %d, \"cpus\": ", i ? "," : "",
			i);
		json_list(f, r->cache_cpus[i]);
		fprintf(f, "}");
	}
	fprintf(f, "]},\n");
}

static void json_sets(FILE *f, const struct report *r)
{
	const struct act__topo *t = r->t;

	fprintf(f, "  \"allowed\": {\"cpus\": ");
	json_list(f, t->allowed);
	fprintf(f, ", \"cores\": %d, \"pus\": %d},\n", r->allowed_cores,
		r->allowed_pus);
	fprintf(f, "  \"usable\": {\"cpus\": ");
	json_list(f, t->usable);
	fprintf(f, ", \"cores\": %d, \"pus\": %d},\n", t->nusable_cores,
		t->nusable_pus);
	if (t->quota > 0)
		fprintf(f, "  \"quota\": %.2f,\n", t->quota);
	else
		fprintf(f, "  \"quota\": null,\n");
}

static void json_workers(FILE *f, const struct report *r)
{
	const struct act__plan *pl = r->pl;
	int i;

	fprintf(f,
		"    \"bind\": \"%s\", \"workers\": %d, "
		"\"default_workers\": %d, \"count_why\": ",
		act__plan_bind_name(pl->bind), pl->nworkers,
		pl->default_workers);
	act__json_fstr(f, pl->count_why);
	fprintf(f, ",\n    \"placement\": [");
	for (i = 0; i < pl->nworkers; i++) {
		const struct act__plan_worker *w = &pl->w[i];
		const struct act__pu *p = worker_pu(r, i);

		fprintf(f,
			"%s\n      {\"worker\": %d, \"cpus\": ", i ? "," : "",
			i);
		if (p || w->set) /* none: the usable set when narrowed */
			json_list(f, w->set);
		else
			fprintf(f, "null");
		/* numa: bound to a node, not to a CPU or core */
		fprintf(f, ", \"cpu\": ");
		json_int(f, p ? w->cpu : -1);
		fprintf(f, ", \"core\": ");
		json_int(f, p && pl->bind != ACT_BIND_NUMA ? p->core : -1);
		fprintf(f, ", \"node\": ");
		json_int(f, p ? w->node : -1);
		fprintf(f, ", \"package\": ");
		json_int(f, p ? p->package : -1);
		fprintf(f, "}");
	}
	fprintf(f, "],\n");
}

static void json_reactor(FILE *f, const struct report *r)
{
	int cpu = r->pl->reactor_cpu;
	const struct act__pu *p = cpu >= 0 ? act__topology_pu(r->t, cpu) : NULL;
	hwloc_bitmap_t on;
	int i;

	if (r->pl->reactor_inline) {
		fprintf(f, "    \"reactor\": \"inline\",\n");
		return;
	}
	if (cpu < 0) {
		fprintf(f, "    \"reactor\": null,\n");
		return;
	}
	fprintf(f, "    \"reactor\": {\"cpu\": %d, \"core\": ", cpu);
	json_int(f, p ? p->core : -1);
	fprintf(f, ", \"node\": ");
	json_int(f, p ? p->node : -1);
	fprintf(f, ", \"package\": ");
	json_int(f, p ? p->package : -1);
	fprintf(f, ", \"shared_with\": [");
	on = workers_on(r, cpu);
	i = on ? hwloc_bitmap_first(on) : -1;
	for (; i >= 0; i = hwloc_bitmap_next(on, i))
		fprintf(f, "%s%d", i == hwloc_bitmap_first(on) ? "" : ", ", i);
	hwloc_bitmap_free(on);
	fprintf(f, "]},\n");
}

static void json_steal(FILE *f, const struct report *r, int n)
{
	const struct act__plan *pl = r->pl;
	int i, l, v;

	fprintf(f, "    \"steal\": [");
	for (i = 0; i < n; i++) {
		const struct act__plan_worker *w = &pl->w[i];

		fprintf(f, "%s\n      {\"worker\": %d", i ? "," : "", i);
		/* the same four keys bound or not: unbound, every victim
		 * is on the last level ("any" in the text) */
		for (l = 0; l < ACT_STEAL_LEVELS; l++) {
			static const char *const key[] = { "smt", "cache",
							   "node", "remote" };

			fprintf(f, ", \"%s\": [", key[l]);
			for (v = level_from(w, l); v < w->level_end[l]; v++)
				fprintf(f, "%s%d",
					v == level_from(w, l) ? "" : ", ",
					w->victims[v]);
			fprintf(f, "]");
		}
		fprintf(f, "}");
	}
	fprintf(f, "],\n");
}

static void print_json(FILE *f, const struct report *r, unsigned flags)
{
	fprintf(f, "{\n");
	json_topology(f, r);
	json_sets(f, r);
	fprintf(f, "  \"plan\": {\n");
	json_workers(f, r);
	json_reactor(f, r);
	json_steal(f, r, flags & ACT_REPORT_STEAL_ALL ? r->pl->nworkers : 1);
	fprintf(f, "    \"note\": ");
	act__json_fstr(f, r->pl->note[0] ? r->pl->note : NULL);
	fprintf(f, "\n  }");
	if (r->nextra) {
		int i;

		fprintf(f, ",\n  \"paths\": {");
		for (i = 0; i < r->nextra; i++) {
			fprintf(f, "%s", i ? ", " : "");
			act__json_fstr(f, r->extra[i].key);
			fprintf(f, ": ");
			act__json_fstr(f, r->extra[i].value);
		}
		fprintf(f, "}");
	}
	fprintf(f, "\n}\n");
}

int act__report_print(FILE *f, const struct act__topo *t,
		      const struct act__plan *pl, unsigned flags)
{
	return act__report_print_kv(f, t, pl, flags, NULL, 0);
}

int act__report_print_kv(FILE *f, const struct act__topo *t,
			 const struct act__plan *pl, unsigned flags,
			 const struct act__report_kv *extra, int nextra)
{
	struct report r;

	if (report_init(&r, t, pl)) {
		report_free(&r);
		return -ENOMEM;
	}
	r.extra = extra;
	r.nextra = nextra;
	if (flags & ACT_REPORT_JSON)
		print_json(f, &r, flags);
	else
		print_text(f, &r, flags);
	report_free(&r);
	return 0;
}
