/* SPDX-License-Identifier: MIT */
/* plan.c - worker placement and steal order; see plan.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "actors.h"
#include "plan.h"
#include "settings/env.h"
#include "settings/vars.h"

/* The names are ACTORS_BIND's words (vars.c). */
const char *act__plan_bind_name(int bind)
{
	const struct act__var_word *w;

	for (w = act__vars[ACT_VAR_BIND].words; w->word; w++)
		if (w->value == bind)
			return w->word;
	return NULL;
}

int act__plan_bind_parse(const char *s)
{
	const struct act__var_word *w;

	for (w = act__vars[ACT_VAR_BIND].words; s && w->word; w++)
		if (!strcmp(s, w->word))
			return (int)w->value;
	return -1;
}

const char *act__plan_steal_level_name(int level, bool bound)
{
	static const char *const names[] = { "smt", "cache", "node", "remote" };

	if (!bound)
		return "any";
	return level >= 0 && level < ACT_STEAL_LEVELS ? names[level] : "?";
}

/* ---- the order in which places are handed out ------------------------- */

/* Usable PUs of each usable core, in topology order. */
struct cores {
	int n;	    /* usable cores */
	int *first; /* index in t->pus of each core's first usable PU */
	int *count; /* its usable PUs (contiguous in topology order,
		     * skipping unusable ones) */
	int maxsmt;
};

static int cores_of(const struct act__topo *t, struct cores *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->first = calloc((size_t)t->npus, sizeof(int));
	c->count = calloc((size_t)t->npus, sizeof(int));
	if (!c->first || !c->count)
		return -ENOMEM;
	for (i = 0; i < t->npus; i++) {
		if (!t->pus[i].usable)
			continue;
		if (c->n && t->pus[c->first[c->n - 1]].core == t->pus[i].core) {
			c->count[c->n - 1]++;
		} else {
			c->first[c->n] = i;
			c->count[c->n++] = 1;
		}
		if (c->count[c->n - 1] > c->maxsmt)
			c->maxsmt = c->count[c->n - 1];
	}
	return 0;
}

static void cores_free(struct cores *c)
{
	free(c->first);
	free(c->count);
}

/* The r-th usable PU of core k, or -1. */
static int nth_pu(const struct act__topo *t, const struct cores *c, int k,
		  int r)
{
	int i, seen = 0;

	if (r >= c->count[k])
		return -1;
	for (i = c->first[k]; i < t->npus; i++) {
		if (!t->pus[i].usable)
			continue;
		if (seen++ == r)
			return i;
	}
	return -1;
}

/* Core order for spread: round-robin over packages, within a package
 * round-robin over its nodes, within a node in topology order. */
static int spread_order(const struct act__topo *t, const struct cores *c,
			int *order)
{
	int *taken = calloc((size_t)c->n, sizeof(int));
	int *next_node = calloc((size_t)t->npackages, sizeof(int));
	int *nodes = calloc((size_t)c->n, sizeof(int)); /* one package's */
	int out = 0, pk, guard;

	if (!taken || !next_node || !nodes) {
		free(taken);
		free(next_node);
		free(nodes);
		return -ENOMEM;
	}
	for (guard = 0; out < c->n && guard <= c->n * (t->npackages + 1);
	     guard++) {
		for (pk = 0; pk < t->npackages && out < c->n; pk++) {
			/* the nodes of package pk, in order of first
			 * appearance; take from the next one that has a
			 * core left */
			int nn = 0, k, j, tries;

			for (k = 0; k < c->n; k++) {
				const struct act__pu *p = &t->pus[c->first[k]];

				if (p->package != pk)
					continue;
				for (j = 0; j < nn && nodes[j] != p->node; j++)
					;
				if (j == nn)
					nodes[nn++] = p->node;
			}
			for (tries = 0; tries < nn; tries++) {
				int node = nodes[next_node[pk]++ % nn];

				for (k = 0; k < c->n; k++) {
					const struct act__pu *p =
						&t->pus[c->first[k]];

					if (!taken[k] && p->package == pk &&
					    p->node == node)
						break;
				}
				if (k < c->n) {
					taken[k] = 1;
					order[out++] = k;
					break;
				}
			}
		}
	}
	free(taken);
	free(next_node);
	free(nodes);
	return out == c->n ? 0 : -EINVAL;
}

/*
 * The places of one round of the policy, as indices in t->pus, into seq;
 * returns how many. Every usable PU appears once in the whole sequence.
 */
static int sequence(const struct act__topo *t, const struct cores *c, int bind,
		    int *seq)
{
	int n = 0, r, k, pk, i;
	int *order;

	switch (bind) {
	case ACT_BIND_PU:
		for (i = 0; i < t->npus; i++)
			if (t->pus[i].usable)
				seq[n++] = i;
		return n;
	case ACT_BIND_COMPACT:
		for (pk = 0; pk < t->npackages; pk++)
			for (r = 0; r < c->maxsmt; r++)
				for (k = 0; k < c->n; k++)
					if (t->pus[c->first[k]].package == pk &&
					    (i = nth_pu(t, c, k, r)) >= 0)
						seq[n++] = i;
		return n;
	case ACT_BIND_SPREAD:
		order = calloc((size_t)c->n, sizeof(int));
		if (!order || spread_order(t, c, order)) {
			free(order);
			return -ENOMEM;
		}
		for (r = 0; r < c->maxsmt; r++)
			for (k = 0; k < c->n; k++)
				if ((i = nth_pu(t, c, order[k], r)) >= 0)
					seq[n++] = i;
		free(order);
		return n;
	default: /* core, numa */
		for (r = 0; r < c->maxsmt; r++)
			for (k = 0; k < c->n; k++)
				if ((i = nth_pu(t, c, k, r)) >= 0)
					seq[n++] = i;
		return n;
	}
}

/* ---- the plan --------------------------------------------------------- */

static int default_count(const struct act__topo *t, int bind, char *why,
			 size_t why_len)
{
	int units = bind == ACT_BIND_PU ? t->nusable_pus : t->nusable_cores;
	const char *what = bind == ACT_BIND_PU ? "hardware threads" : "cores";
	int n;

	if (t->quota > 0 && ceil(t->quota) < units) {
		n = (int)ceil(t->quota);
		snprintf(why, why_len,
			 "cgroup CPU quota %.2f CPUs, rounded up to %d, less "
			 "one for the reactor",
			 t->quota, n);
	} else {
		n = units;
		snprintf(why, why_len, "%d usable %s, less one for the reactor",
			 units,
			 units == 1 ? (bind == ACT_BIND_PU ? "hardware thread" :
							     "core") :
				      what);
	}
	n -= 1;
	if (n < 1) {
		n = 1;
		strncat(why, " (at least 1)", why_len - strlen(why) - 1);
	}
	if (n > ACT_PLAN_MAX_WORKERS) {
		n = ACT_PLAN_MAX_WORKERS;
		strncat(why, " (at most 1024)", why_len - strlen(why) - 1);
	}
	return n;
}

static int distance(const struct act__topo *t, const struct act__plan *pl,
		    int a, int b)
{
	const struct act__plan_worker *wa = &pl->w[a], *wb = &pl->w[b];
	const struct act__pu *pa, *pb;

	if (pl->unbound)
		return ACT_STEAL_REMOTE;
	if (pl->bind == ACT_BIND_NUMA)
		return wa->node >= 0 && wa->node == wb->node ? ACT_STEAL_NODE :
							       ACT_STEAL_REMOTE;
	pa = &t->pus[wa->pu];
	pb = &t->pus[wb->pu];
	if (pa->core == pb->core)
		return ACT_STEAL_SMT;
	if (pa->cache >= 0 && pa->cache == pb->cache)
		return ACT_STEAL_CACHE;
	if (pa->node >= 0 && pa->node == pb->node)
		return ACT_STEAL_NODE;
	return ACT_STEAL_REMOTE;
}

static int victims(const struct act__topo *t, struct act__plan *pl)
{
	int a, b, l, n = pl->nworkers;

	for (a = 0; a < n; a++) {
		struct act__plan_worker *w = &pl->w[a];
		int k = 0;

		w->victims =
			calloc(n > 1 ? (size_t)n - 1 : 1, sizeof(*w->victims));
		if (!w->victims)
			return -ENOMEM;
		for (l = 0; l < ACT_STEAL_LEVELS; l++) {
			for (b = 0; b < n; b++)
				if (b != a && distance(t, pl, a, b) == l)
					w->victims[k++] = (uint16_t)b;
			w->level_end[l] = (uint16_t)k;
		}
	}
	return 0;
}

/* The reactor's CPU under auto: the first usable core no worker stands
 * on, else the first usable PU no worker stands on, else none. */
static int reactor_auto(const struct act__topo *t, const struct act__plan *pl)
{
	char *core_used = calloc((size_t)t->npus, 1);
	char *pu_used = calloc((size_t)t->npus, 1);
	int i, cpu = -1;

	if (!core_used || !pu_used)
		goto out;
	for (i = 0; i < pl->nworkers; i++) {
		if (pl->w[i].pu < 0)
			continue;
		pu_used[pl->w[i].pu] = 1;
		core_used[t->pus[pl->w[i].pu].core] = 1;
	}
	for (i = 0; i < t->npus && cpu < 0; i++)
		if (t->pus[i].usable && !core_used[t->pus[i].core])
			cpu = t->pus[i].os;
	for (i = 0; i < t->npus && cpu < 0; i++)
		if (t->pus[i].usable && !pu_used[i])
			cpu = t->pus[i].os;
out:
	free(core_used);
	free(pu_used);
	return cpu;
}

/*
 * Auto with one worker and no CPU beside it (one usable CPU, or a cgroup
 * quota of one CPU at most): a reactor thread could only take turns with
 * the worker on the same CPU, and every completion would cost a sleep and
 * a wake each way between them. The worker runs the reactor itself
 * (doc/design/io.md "The reactor inline"; kv_server and bench-dist
 * measured it).
 */
static bool lone_cpu(const struct act__topo *t, const struct act__plan *pl)
{
	return pl->nworkers == 1 &&
	       (t->nusable_pus == 1 || (t->quota > 0 && t->quota <= 1.0));
}

static int place(const struct act__topo *t, struct act__plan *pl)
{
	struct cores c;
	int *seq = NULL, len, i, rc;

	rc = cores_of(t, &c);
	if (!rc) {
		seq = calloc((size_t)t->npus, sizeof(int));
		rc = seq ? 0 : -ENOMEM;
	}
	if (rc)
		goto out;
	len = sequence(t, &c, pl->bind, seq);
	if (len <= 0) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pl->nworkers; i++) {
		struct act__plan_worker *w = &pl->w[i];
		const struct act__pu *p = &t->pus[seq[i % len]];

		w->pu = seq[i % len];
		w->node = p->node;
		w->set = hwloc_bitmap_alloc();
		if (!w->set) {
			rc = -ENOMEM;
			goto out;
		}
		if (pl->bind == ACT_BIND_NUMA && p->node >= 0) {
			int j;

			w->cpu = -1;
			for (j = 0; j < t->npus; j++)
				if (t->pus[j].usable &&
				    t->pus[j].node == p->node)
					hwloc_bitmap_set(
						w->set, (unsigned)t->pus[j].os);
		} else {
			w->cpu = p->os;
			hwloc_bitmap_set(w->set, (unsigned)p->os);
		}
	}
out:
	free(seq);
	cores_free(&c);
	return rc;
}

/*
 * Not bound, but ACTORS_CPUS narrows the usable set: every worker is kept
 * within it (the kernel places it there as it likes), so the variable
 * means the same under every policy.
 */
static int keep_within(const struct act__topo *t, struct act__plan *pl)
{
	int i;

	if (pl->nworkers > t->nusable_pus && pl->bind == ACT_BIND_NONE)
		snprintf(pl->note, sizeof(pl->note),
			 "%d workers on %d usable CPUs, not bound",
			 pl->nworkers, t->nusable_pus);
	else if (pl->nworkers > t->nusable_pus)
		snprintf(pl->note, sizeof(pl->note),
			 "%d workers on %d usable CPUs: none is bound to one "
			 "CPU (bind %s), so that the kernel can share the "
			 "CPUs among them",
			 pl->nworkers, t->nusable_pus,
			 act__plan_bind_name(pl->bind));
	if (hwloc_bitmap_isequal(t->usable, t->allowed))
		return 0;
	for (i = 0; i < pl->nworkers; i++) {
		pl->w[i].set = hwloc_bitmap_dup(t->usable);
		if (!pl->w[i].set)
			return -ENOMEM;
	}
	return 0;
}

int act__plan_make(struct act__plan *pl, const struct act__topo *t,
		   const struct act__plan_in *in, char *why, size_t why_len)
{
	int i, rc;

	memset(pl, 0, sizeof(*pl));
	pl->bind = in->bind ? in->bind : ACT_BIND_CORE;
	pl->default_workers = default_count(t, pl->bind, pl->count_why,
					    sizeof(pl->count_why));
	pl->nworkers = in->schedulers > 0 ? in->schedulers :
					    pl->default_workers;
	pl->w = calloc((size_t)pl->nworkers, sizeof(*pl->w));
	if (!pl->w) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < pl->nworkers; i++) {
		pl->w[i].cpu = -1;
		pl->w[i].pu = -1;
		pl->w[i].node = -1;
	}
	/*
	 * More workers than CPUs: two workers bound to one CPU get half of
	 * it each while a CPU with one worker gets all of it (3 workers on
	 * 2 CPUs ran 1:2:1), and no thread can move to even it out. Unbound
	 * threads are shared evenly by the kernel, so none is bound.
	 */
	pl->unbound = pl->bind == ACT_BIND_NONE ||
		      pl->nworkers > t->nusable_pus;
	rc = pl->unbound ? keep_within(t, pl) : place(t, pl);
	if (!rc)
		rc = victims(t, pl);
	if (rc) {
		snprintf(why, why_len, "out of memory");
		act__plan_free(pl);
		return rc;
	}
	if (in->reactor == -3 && pl->nworkers != 1) {
		snprintf(why, why_len,
			 "the reactor runs inline only with one worker, and "
			 "there are %d",
			 pl->nworkers);
		act__plan_free(pl);
		return -EINVAL;
	}
	if (in->reactor >= 0) {
		if (!hwloc_bitmap_isset(t->allowed, (unsigned)in->reactor)) {
			snprintf(why, why_len,
				 "CPU %d is not one this process may use",
				 in->reactor);
			act__plan_free(pl);
			return -EINVAL;
		}
		pl->reactor_cpu = in->reactor;
	} else if (in->reactor == -3 ||
		   (in->reactor == -1 && lone_cpu(t, pl))) {
		pl->reactor_cpu = -1;
		pl->reactor_inline = true;
		pl->reactor_lone = in->reactor == -1;
	} else if (in->reactor == -2 || pl->unbound) {
		pl->reactor_cpu = -1;
	} else {
		pl->reactor_cpu = reactor_auto(t, pl);
	}
	return 0;
}

void act__plan_free(struct act__plan *pl)
{
	int i;

	for (i = 0; pl->w && i < pl->nworkers; i++) {
		hwloc_bitmap_free(pl->w[i].set);
		free(pl->w[i].victims);
	}
	free(pl->w);
	memset(pl, 0, sizeof(*pl));
}

int act__plan_cpus(const struct act__plan *pl, const struct act__topo *t,
		   int *cpus, int max)
{
	hwloc_bitmap_t all = hwloc_bitmap_alloc();
	int i, n = 0, c;

	if (!all)
		return -ENOMEM;
	for (i = 0; i < pl->nworkers; i++)
		if (pl->w[i].set)
			hwloc_bitmap_or(all, all, pl->w[i].set);
		else
			hwloc_bitmap_or(all, all, t->usable);
	if (pl->reactor_cpu >= 0)
		hwloc_bitmap_set(all, (unsigned)pl->reactor_cpu);
	else if (!pl->reactor_inline)
		hwloc_bitmap_or(all, all, t->usable);
	hwloc_bitmap_foreach_begin(c, all) {
		if (n < max)
			cpus[n] = c;
		n++;
	}
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(all);
	return n;
}

/* ---- settings: field > environment > default (vars.h) ---------------- */

/*
 * The reactor's resolved setting s as the plan takes it: -1 auto, -2
 * none, -3 inline, else a CPU. *name says where it came from, for the error line of
 * a CPU the process may not use: the field, the variable, or NULL (the
 * default, or ACTORS_REACTOR_CPU=auto).
 */
static int reactor_setting(const struct act_config *cfg,
			   const struct act__settings *s, const char **name,
			   char *val, size_t val_len)
{
	const char *env = s->env[ACT_VAR_REACTOR_CPU];
	int r = s->cfg.reactor_cpu;

	*name = NULL;
	if (cfg->reactor_cpu) {
		*name = "act_config.reactor_cpu";
		if (r > 0)
			snprintf(val, val_len, "ACT_REACTOR_CPU(%d)", r - 1);
		else if (r == ACT_REACTOR_INLINE)
			snprintf(val, val_len, "ACT_REACTOR_INLINE");
		else
			snprintf(val, val_len, "%d", r);
	} else if (env && r != ACT_REACTOR_AUTO) {
		*name = "ACTORS_REACTOR_CPU";
		snprintf(val, val_len, "%s", env);
	}
	return r > 0 ? r - 1 : r;
}

int act__plan_resolve(const struct act_config *cfg,
		      const struct act__topo_src *src, struct act__topo *t,
		      struct act__plan *pl)
{
	struct act__plan_in in = { .schedulers = cfg->schedulers };
	struct act__settings s;
	const char *cpus, *cpus_name, *rname;
	char why[512], rval[32], *allowed = NULL;
	int rc;

	act__vars_settings_init(&s, cfg);
	/* and the test switches of pinning and of the topology's load
	 * (topology.c resolves those two again, at the load) */
	rc = act__vars_resolve(&s, ACT_VARS_PLAN);
	if (rc)
		return rc;
	in.bind = s.cfg.bind;
	in.reactor = reactor_setting(cfg, &s, &rname, rval, sizeof(rval));
	cpus = s.cfg.cpus;
	cpus_name = cfg->cpus ? "act_config.cpus" : "ACTORS_CPUS";
	rc = act__topology_load(t, src, cpus, cpus_name, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "actors: %s\n", why);
		return rc;
	}
	t->test_pin_fail = s.test.pin_fail != 0;
	rc = act__plan_make(pl, t, &in, why, sizeof(why));
	if (rc == -EINVAL) {
		hwloc_bitmap_list_asprintf(&allowed, t->allowed);
		if (cfg->reactor_cpu)
			fprintf(stderr,
				"actors: %s=%s: %s; expected ACT_REACTOR_AUTO, "
				"ACT_REACTOR_NONE, ACT_REACTOR_INLINE (one "
				"worker) or ACT_REACTOR_CPU(n) for a CPU n of "
				"%s\n",
				rname, rval, why, allowed ? allowed : "?");
		else
			fprintf(stderr,
				"actors: %s=\"%s\": %s; expected auto, none, "
				"inline (one worker) or a CPU of %s\n",
				rname, rval, why, allowed ? allowed : "?");
		free(allowed);
	} else if (rc) {
		fprintf(stderr, "actors: %s\n", why);
	}
	if (rc)
		act__topology_free(t);
	return rc;
}

int act__plan_pin_self(const struct act__topo *t,
		       const struct hwloc_bitmap_s *set)
{
	if (t->test_pin_fail)
		return -EINVAL;
	if (hwloc_set_cpubind(t->hw, set, HWLOC_CPUBIND_THREAD))
		return errno ? -errno : -EINVAL;
	return 0;
}

void act__plan_pin_thread(const struct act__topo *t, _Atomic int *failed,
			  const struct hwloc_bitmap_s *set, const char *who,
			  int index)
{
	char *l = NULL;
	int rc;

	if (!set || !t->thissystem)
		return;
	rc = act__plan_pin_self(t, set);
	if (!rc || atomic_exchange_explicit(failed, 1, memory_order_relaxed))
		return;
	hwloc_bitmap_list_asprintf(&l, set);
	if (index >= 0)
		fprintf(stderr,
			"actors: cannot bind %s %d to CPUs %s (%s): it and "
			"any other that fails run unbound\n",
			who, index, l ? l : "?", strerror(-rc));
	else
		fprintf(stderr,
			"actors: cannot bind %s to CPUs %s (%s): it and any "
			"other that fails run unbound\n",
			who, l ? l : "?", strerror(-rc));
	free(l);
}

void act__plan_pin_thread_cpu(const struct act__topo *t, _Atomic int *failed,
			      int cpu, const char *who)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	if (!set)
		return;
	hwloc_bitmap_only(set, (unsigned)cpu);
	act__plan_pin_thread(t, failed, set, who, -1);
	hwloc_bitmap_free(set);
}

struct hwloc_bitmap_s *act__plan_binding_get(const struct act__topo *t)
{
	hwloc_bitmap_t b;

	if (!t->thissystem)
		return NULL;
	b = hwloc_bitmap_alloc();
	if (b && hwloc_get_cpubind(t->hw, b, HWLOC_CPUBIND_THREAD)) {
		hwloc_bitmap_free(b);
		b = NULL;
	}
	return b;
}

void act__plan_binding_put(const struct act__topo *t, struct hwloc_bitmap_s *b,
			   bool rebind)
{
	if (b && rebind && t->thissystem)
		hwloc_set_cpubind(t->hw, b, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(b);
}
