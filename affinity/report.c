/* SPDX-License-Identifier: MIT */
/* report.c - `actors topo`: a topology and its plan as text or JSON;
 * see act__plan_print in plan.h. */
#include <stdlib.h>
#include <string.h>

#include "actors.h"
#include "plan.h"

/* ---- `actors topo` ---------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The OS CPUs of node (package pk, OS node) among all PUs, as a list. */
static void node_cpus(const struct act__topo *t, int pk, int node,
		      hwloc_bitmap_t out)
{
	int i;

	hwloc_bitmap_zero(out);
	for (i = 0; i < t->npus; i++)
		if (t->pus[i].package == pk && t->pus[i].node == node)
			hwloc_bitmap_set(out, (unsigned)t->pus[i].os);
}

/* Each (package, node) pair once, in topology order: calls fn. */
static void for_each_group(const struct act__topo *t,
			   void (*fn)(FILE *, const struct act__topo *, int,
				      int, int, hwloc_bitmap_t),
			   FILE *f)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	int i, j, k = 0;

	for (i = 0; b && i < t->npus; i++) {
		for (j = 0; j < i; j++)
			if (t->pus[j].package == t->pus[i].package &&
			    t->pus[j].node == t->pus[i].node)
				break;
		if (j < i)
			continue;
		node_cpus(t, t->pus[i].package, t->pus[i].node, b);
		fn(f, t, k++, t->pus[i].package, t->pus[i].node, b);
	}
	hwloc_bitmap_free(b);
}

static void text_group(FILE *f, const struct act__topo *t, int k, int pk,
		       int node, hwloc_bitmap_t cpus)
{
	char *l = NULL;

	(void)t;
	(void)k;
	hwloc_bitmap_list_asprintf(&l, cpus);
	if (node >= 0)
		fprintf(f, "  package %d, node %d: CPUs %s\n", pk, node,
			l ? l : "?");
	else
		fprintf(f, "  package %d: CPUs %s\n", pk, l ? l : "?");
	free(l);
}

static void json_group(FILE *f, const struct act__topo *t, int k, int pk,
		       int node, hwloc_bitmap_t cpus)
{
	char *l = NULL;

	(void)t;
	hwloc_bitmap_list_asprintf(&l, cpus);
	fprintf(f, "%s{\"package\": %d, \"node\": %d, \"cpus\": \"%s\"}",
		k ? ", " : "", pk, node, l ? l : "");
	free(l);
}

static void print_text(FILE *f, const struct act__topo *t,
		       const struct act__plan *pl)
{
	char *allowed = NULL, *usable = NULL, *set = NULL;
	int i, l, from = 0;
	bool bound = pl->bind != ACT_BIND_NONE;

	hwloc_bitmap_list_asprintf(&allowed, t->allowed);
	hwloc_bitmap_list_asprintf(&usable, t->usable);
	fprintf(f, "topology: %s\n", t->source);
	fprintf(f, "  %d package%s, %d NUMA node%s, %d cores, %d hardware "
		"threads, %d shared cache%s\n",
		t->npackages, t->npackages == 1 ? "" : "s", t->nnodes,
		t->nnodes == 1 ? "" : "s", t->ncores, t->npus, t->ncaches,
		t->ncaches == 1 ? "" : "s");
	for_each_group(t, text_group, f);
	fprintf(f, "allowed CPUs: %s\n", allowed ? allowed : "?");
	fprintf(f, "usable CPUs: %s (%d cores, %d hardware threads)\n",
		usable ? usable : "?", t->nusable_cores, t->nusable_pus);
	if (t->quota > 0)
		fprintf(f, "cgroup CPU quota: %.2f CPUs\n", t->quota);
	else
		fprintf(f, "cgroup CPU quota: none\n");
	fprintf(f, "plan: bind %s, %d worker%s (default %d: %s)\n",
		act__bind_name(pl->bind), pl->nworkers,
		pl->nworkers == 1 ? "" : "s", pl->default_workers,
		pl->count_why);
	for (i = 0; i < pl->nworkers; i++) {
		const struct act__plan_worker *w = &pl->w[i];

		if (!bound) {
			fprintf(f, "  worker %d: not bound\n", i);
			continue;
		}
		free(set);
		set = NULL;
		hwloc_bitmap_list_asprintf(&set, w->set);
		if (w->cpu >= 0)
			fprintf(f, "  worker %d: CPU %d, core %d, node %d, "
				"package %d\n",
				i, w->cpu, t->pus[w->pu].core, w->node,
				t->pus[w->pu].package);
		else
			fprintf(f, "  worker %d: node %d, CPUs %s\n", i,
				w->node, set ? set : "?");
	}
	if (pl->reactor_cpu >= 0)
		fprintf(f, "  reactor: CPU %d\n", pl->reactor_cpu);
	else
		fprintf(f, "  reactor: not bound\n");
	fprintf(f, "steal order of worker 0:");
	for (l = 0; l < ACT_STEAL_LEVELS; l++) {
		int end = pl->w[0].level_end[l];

		if (end == from)
			continue;
		fprintf(f, " %s", act__steal_level_name(l, bound));
		for (i = from; i < end; i++)
			fprintf(f, "%c%d", i == from ? ' ' : ',',
				pl->w[0].victims[i]);
		fprintf(f, ";");
		from = end;
	}
	fprintf(f, from ? "\n" : " none\n");
	if (pl->note[0])
		fprintf(f, "note: %s\n", pl->note);
	free(set);
	free(allowed);
	free(usable);
}

static void print_json(FILE *f, const struct act__topo *t,
		       const struct act__plan *pl)
{
	char *allowed = NULL, *usable = NULL, *set = NULL;
	int i, l, from = 0;
	bool bound = pl->bind != ACT_BIND_NONE;

	hwloc_bitmap_list_asprintf(&allowed, t->allowed);
	hwloc_bitmap_list_asprintf(&usable, t->usable);
	fprintf(f, "{\"source\": ");
	json_str(f, t->source);
	fprintf(f, ", \"packages\": %d, \"numa_nodes\": %d, \"cores\": %d, "
		"\"pus\": %d, \"shared_caches\": %d, \"groups\": [",
		t->npackages, t->nnodes, t->ncores, t->npus, t->ncaches);
	for_each_group(t, json_group, f);
	fprintf(f, "], \"allowed\": \"%s\", \"usable\": \"%s\", "
		"\"usable_cores\": %d, \"usable_pus\": %d, \"quota\": %.2f, "
		"\"bind\": \"%s\", \"workers\": %d, \"default_workers\": %d, "
		"\"count_why\": ",
		allowed ? allowed : "", usable ? usable : "",
		t->nusable_cores, t->nusable_pus, t->quota,
		act__bind_name(pl->bind), pl->nworkers, pl->default_workers);
	json_str(f, pl->count_why);
	fprintf(f, ", \"plan\": [");
	for (i = 0; i < pl->nworkers; i++) {
		const struct act__plan_worker *w = &pl->w[i];

		fprintf(f, "%s{\"worker\": %d", i ? ", " : "", i);
		if (bound) {
			free(set);
			set = NULL;
			hwloc_bitmap_list_asprintf(&set, w->set);
			fprintf(f, ", \"cpus\": \"%s\", \"cpu\": %d, "
				"\"core\": %d, \"node\": %d, \"package\": %d",
				set ? set : "", w->cpu, t->pus[w->pu].core,
				w->node, t->pus[w->pu].package);
		} else {
			fprintf(f, ", \"cpus\": null, \"cpu\": -1, "
				"\"node\": -1");
		}
		fprintf(f, "}");
	}
	fprintf(f, "], \"reactor_cpu\": %d, \"steal_order\": [",
		pl->reactor_cpu);
	for (l = 0; l < ACT_STEAL_LEVELS; l++) {
		int end = pl->w[0].level_end[l];

		if (end == from)
			continue;
		fprintf(f, "%s{\"level\": \"%s\", \"workers\": [",
			from ? ", " : "", act__steal_level_name(l, bound));
		for (i = from; i < end; i++)
			fprintf(f, "%s%d", i == from ? "" : ", ",
				pl->w[0].victims[i]);
		fprintf(f, "]}");
		from = end;
	}
	fprintf(f, "], \"note\": ");
	json_str(f, pl->note);
	fprintf(f, "}\n");
	free(set);
	free(allowed);
	free(usable);
}

void act__plan_print(FILE *f, const struct act__topo *t,
		     const struct act__plan *pl, bool json)
{
	if (json)
		print_json(f, t, pl);
	else
		print_text(f, t, pl);
}
