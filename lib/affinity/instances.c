/* SPDX-License-Identifier: MIT */
/*
 * instances.c - the usable cores split among several runtimes
 * (instances.h has the rule). The cores are listed once in topology
 * order with their keys (node, cache, core), and a recursive cut gives
 * each core its instance.
 */
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instances.h"

enum { LVL_NODE, LVL_CACHE, LVL_CORE, LVLS };

struct core {
	int key[LVLS];
	int first, npus; /* its usable PUs: t->pus[first..], in order */
	int node;	 /* OS node, -1 unknown */
};

struct split {
	struct core *c;
	int *owner; /* the instance of each core */
	int ncores;
};

/* The usable cores of t in topology order; their count, or -ENOMEM. */
static int list_cores(const struct act__topo *t, struct core **out)
{
	struct core *c = calloc((size_t)t->npus + 1, sizeof(*c));
	int i, n = 0;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < t->npus; i++) {
		const struct act__pu *p = &t->pus[i];

		if (!p->usable)
			continue;
		if (n && c[n - 1].key[LVL_CORE] == p->core) {
			c[n - 1].npus++;
			continue;
		}
		/* a node unknown: the package stands for it; a core that
		 * shares no cache: a group of its own */
		c[n].key[LVL_NODE] = p->node >= 0 ? p->node : -1 - p->package;
		c[n].key[LVL_CACHE] = p->cache >= 0 ? p->cache : -1 - p->core;
		c[n].key[LVL_CORE] = p->core;
		c[n].node = p->node;
		c[n].first = i;
		c[n].npus = 1;
		n++;
	}
	*out = c;
	return n;
}

/* The ends of the runs of equal key at level lv in [lo, hi): b[0] = lo,
 * ..., b[g] = hi; returns g. b has room for hi - lo + 1. */
static int groups(const struct split *sp, int lo, int hi, int lv, int *b)
{
	int g = 0, i;

	b[0] = lo;
	for (i = lo + 1; i <= hi; i++)
		if (i == hi || sp->c[i].key[lv] != sp->c[i - 1].key[lv])
			b[++g] = i;
	return g;
}

/* Groups [0, g) into n runs of whole groups, each as near its share of
 * the cores as whole groups allow; the cores go to inst, inst + 1, ... */
static void cut_runs(struct split *sp, const int *b, int g, int n, int inst)
{
	int total = b[g] - b[0], k, j = 0, taken, i;

	for (k = 0; k < n; k++) {
		/* cores up to the end of run k: near (k + 1) / n of all */
		double want = (double)total * (k + 1) / n;
		int from = j;

		j++;
		while (g - j > n - k - 1) {
			taken = b[j] - b[0];
			if ((double)(b[j + 1] - b[0]) - want >= want - taken)
				break;
			j++;
		}
		if (k == n - 1)
			j = g;
		for (i = b[from]; i < b[j]; i++)
			sp->owner[i] = inst + k;
	}
}

static int split_level(struct split *sp, int lo, int hi, int n, int lv,
		       int inst);

/* More instances than groups: one each, the rest by D'Hondt's rule
 * (the next to the group with the most cores per instance it would
 * have), never more than a group has cores; each group split a level
 * down. */
static int share_groups(struct split *sp, const int *b, int g, int n, int lv,
			int inst)
{
	int *cnt = calloc((size_t)g, sizeof(*cnt)), r, i, best, rc = 0;

	if (!cnt)
		return -ENOMEM;
	for (i = 0; i < g; i++)
		cnt[i] = 1;
	for (r = g; r < n; r++) {
		best = -1;
		for (i = 0; i < g; i++) {
			int size = b[i + 1] - b[i];

			if (cnt[i] >= size)
				continue;
			/* size / (cnt + 1) > best's, without division */
			if (best < 0 || (long)size * (cnt[best] + 1) >
						(long)(b[best + 1] - b[best]) *
							(cnt[i] + 1))
				best = i;
		}
		cnt[best]++; /* n <= cores: some group has room */
	}
	for (i = 0; i < g && !rc; i++) {
		rc = split_level(sp, b[i], b[i + 1], cnt[i], lv + 1, inst);
		inst += cnt[i];
	}
	free(cnt);
	return rc;
}

/* Cores [lo, hi) among n instances from inst on, from level lv down. */
static int split_level(struct split *sp, int lo, int hi, int n, int lv,
		       int inst)
{
	int *b, g, rc = 0, i;

	if (n == 1) {
		for (i = lo; i < hi; i++)
			sp->owner[i] = inst;
		return 0;
	}
	b = malloc(((size_t)(hi - lo) + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	g = groups(sp, lo, hi, lv, b);
	if (n <= g)
		cut_runs(sp, b, g, n, inst);
	else
		rc = share_groups(sp, b, g, n, lv, inst);
	free(b);
	return rc;
}

/* out's strings from the owners: the CPU and node lists of each. */
static int describe(const struct act__topo *t, const struct split *sp, int n,
		    struct act__instance *out)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	int k, i, j, rc = 0;

	for (k = 0; k < n && !rc && cpus && nodes; k++) {
		hwloc_bitmap_zero(cpus);
		hwloc_bitmap_zero(nodes);
		for (i = 0; i < sp->ncores; i++) {
			const struct core *c = &sp->c[i];

			if (sp->owner[i] != k)
				continue;
			out[k].ncores++;
			for (j = c->first; j < c->first + c->npus; j++) {
				hwloc_bitmap_set(cpus, (unsigned)t->pus[j].os);
				out[k].npus++;
			}
			if (c->node >= 0)
				hwloc_bitmap_set(nodes, (unsigned)c->node);
		}
		if (hwloc_bitmap_list_asprintf(&out[k].cpus, cpus) < 0 ||
		    hwloc_bitmap_list_asprintf(&out[k].nodes, nodes) < 0)
			rc = -ENOMEM;
	}
	if (!cpus || !nodes)
		rc = -ENOMEM;
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(nodes);
	return rc;
}

int act__instances_split(const struct act__topo *t, int n,
			 struct act__instance *out, char *why, size_t why_len)
{
	struct split sp = { 0 };
	int rc;

	memset(out, 0, (n > 0 ? (size_t)n : 0) * sizeof(*out));
	rc = list_cores(t, &sp.c);
	if (rc < 0)
		return rc;
	sp.ncores = rc;
	if (n < 1 || n > sp.ncores) {
		snprintf(why, why_len,
			 "%d instances: each needs a core of its own, and "
			 "%d usable cores give at most %d",
			 n, sp.ncores, sp.ncores);
		free(sp.c);
		return -EINVAL;
	}
	sp.owner = calloc((size_t)sp.ncores, sizeof(*sp.owner));
	rc = sp.owner ? split_level(&sp, 0, sp.ncores, n, LVL_NODE, 0) :
			-ENOMEM;
	if (!rc)
		rc = describe(t, &sp, n, out);
	if (rc)
		act__instances_free(out, n);
	free(sp.owner);
	free(sp.c);
	return rc;
}

void act__instances_free(struct act__instance *in, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		free(in[k].cpus);
		free(in[k].nodes);
		in[k].cpus = in[k].nodes = NULL;
	}
}
