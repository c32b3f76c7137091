/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - golden placement plans (lib/affinity/plan.h) on topologies
 * that are not this machine's: a 2-socket, 4-node, 64-core SMT2 server
 * (with and without L3 caches shared by groups of cores), an 8-core
 * laptop without SMT, a cpuset-restricted container, a CPU quota, and
 * the same machines loaded from hwloc XML. Each worker's CPU, core and
 * node, the reactor's CPU and every worker's steal order are checked
 * against rules the test computes on its own from the CPU numbers
 * (synthetic topologies number PUs in topology order: on the server PU c
 * is on core c/2, L3 c/16, node c/32, package c/64). Last, the runtime
 * on this machine: its workers' victim lists are the plan's.
 */
#include <ftw.h>
#include <sys/mman.h>
#include <stdint.h>

#include <hwloc.h>

#include "testrt.h"

#include "affinity/instances.h"
#include "affinity/plan.h"
#include "node/runtime.h"
#include "affinity/topology.h"

#define SERVER "pack:2 numa:2 core:16 pu:2"
#define SERVER_L3 "pack:2 numa:2 l3:2 core:8 pu:2"
#define LAPTOP "pack:1 l3:1 core:8 pu:1"
#define CONTAINER_SET "4-7,68-71"

/* ---- the shape of a synthetic machine, from CPU numbers -------------- */

struct geom {
	int npus;      /* of the whole machine */
	int per_core;  /* PUs per core */
	int per_cache; /* PUs per shared cache; 0: no shared cache */
	int per_node;  /* PUs per NUMA node */
};

static const struct geom g_server = { 128, 2, 0, 32 };
static const struct geom g_server_l3 = { 128, 2, 16, 32 };
static const struct geom g_laptop = { 8, 1, 8, 8 };

/* The steal level between workers on CPUs a and b, by the rules of
 * plan.h: same core, a shared cache, the same node, else remote; numa:
 * same node or remote; none: one level. */
static int rule_level(const struct geom *g, int bind, int a, int b)
{
	if (bind == ACT_BIND_NONE)
		return ACT_STEAL_REMOTE;
	if (bind == ACT_BIND_NUMA)
		return a / g->per_node == b / g->per_node ? ACT_STEAL_NODE :
							    ACT_STEAL_REMOTE;
	if (a / g->per_core == b / g->per_core)
		return ACT_STEAL_SMT;
	if (g->per_cache && a / g->per_cache == b / g->per_cache)
		return ACT_STEAL_CACHE;
	if (a / g->per_node == b / g->per_node)
		return ACT_STEAL_NODE;
	return ACT_STEAL_REMOTE;
}

/* Worker i's CPU on the server, policy by policy (i below 128). */
static int core_cpu(int i) /* core and numa: cores in order, then SMT */
{
	return i < 64 ? 2 * i : 2 * (i - 64) + 1;
}

static int spread_cpu(int i) /* packages, then their nodes, then cores */
{
	int r = i / 64, j = i % 64;
	int pk = j % 2, k = j / 2, nd = k % 2, c = k / 2;

	return 2 * (pk * 32 + nd * 16 + c) + r;
}

static int compact_cpu(int i) /* package 0's 64 PUs, then package 1's */
{
	int pk = i / 64, r = (i % 64) / 32, c = i % 32;

	return 2 * (pk * 32 + c) + r;
}

static int pu_cpu(int i)
{
	return i;
}

/* ---- loading and planning ----------------------------------------------- */

static void topo_ok(struct act__topo *t, const char *synth, const char *xml,
		    const char *cgroup, const char *cpus)
{
	struct act__topo_src src = { synth, xml, cgroup };
	char why[512] = "";
	int rc = act__topology_load(t, &src, cpus, NULL, why, sizeof(why));

	ck_assert_msg(rc == 0, "load %s%s cgroup %s cpus %s: %d (%s)",
		      synth ? synth : "", xml ? xml : "", cgroup ? cgroup : "-",
		      cpus ? cpus : "-", rc, why);
	ck_assert(!t->thissystem);
}

static void plan_ok(struct act__plan *pl, const struct act__topo *t, int bind,
		    int schedulers, int reactor)
{
	struct act__plan_in in = { schedulers, bind, reactor };
	char why[512] = "";
	int rc = act__plan_make(pl, t, &in, why, sizeof(why));

	ck_assert_msg(rc == 0, "plan bind %d n %d reactor %d: %d (%s)", bind,
		      schedulers, reactor, rc, why);
}

/* "3,5,9" of victims [from, to) of worker w, for messages. */
static const char *slice_str(const struct act__plan *pl, int w, int from,
			     int to)
{
	static char buf[4096];
	size_t at = 0;
	int k;

	buf[0] = '\0';
	for (k = from; k < to && at < sizeof(buf) - 16; k++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%u",
				       k > from ? "," : "",
				       pl->w[w].victims[k]);
	return buf;
}

static int level_from(const struct act__plan *pl, int w, int l)
{
	return l ? pl->w[w].level_end[l - 1] : 0;
}

/* Worker w's steal level l is exactly the workers of list (a cpulist
 * such as "1-15,33"; "" for none), in increasing order. */
static void assert_level(const struct act__plan *pl, int w, int l,
			 const char *list)
{
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	int from = level_from(pl, w, l), to = pl->w[w].level_end[l], k, id;

	ck_assert_ptr_nonnull(b);
	if (*list)
		ck_assert_int_eq(hwloc_bitmap_list_sscanf(b, list), 0);
	ck_assert_msg(to - from == hwloc_bitmap_weight(b),
		      "worker %d level %s: expected {%s}, got {%s}", w,
		      act__plan_steal_level_name(l, true), list,
		      slice_str(pl, w, from, to));
	k = from;
	hwloc_bitmap_foreach_begin(id, b) {
		ck_assert_msg(pl->w[w].victims[k] == id,
			      "worker %d level %s: expected {%s}, got {%s}", w,
			      act__plan_steal_level_name(l, true), list,
			      slice_str(pl, w, from, to));
		k++;
	}
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(b);
}

/* Every worker's steal order: each other worker once, at the level
 * rule_level gives for their CPUs (cpu[]), by index within a level. */
static void assert_victims(const struct act__plan *pl, const struct geom *g,
			   int bind, const int *cpu)
{
	int n = pl->nworkers, a, b, l, k;

	for (a = 0; a < n; a++) {
		const struct act__plan_worker *w = &pl->w[a];

		ck_assert_ptr_nonnull(w->victims);
		ck_assert_int_eq(w->level_end[ACT_STEAL_LEVELS - 1], n - 1);
		for (l = 0; l < ACT_STEAL_LEVELS; l++) {
			k = level_from(pl, a, l);
			ck_assert_int_le(k, w->level_end[l]);
			for (b = 0; b < n; b++) {
				if (b == a ||
				    rule_level(g, bind, cpu[a], cpu[b]) != l)
					continue;
				ck_assert_msg(
					k < w->level_end[l] &&
						w->victims[k] == b,
					"worker %d (CPU %d) level %s: "
					"expected worker %d (CPU %d) at "
					"%d, got {%s}",
					a, cpu[a],
					act__plan_steal_level_name(l, true), b,
					cpu[b], k,
					slice_str(pl, a, level_from(pl, a, l),
						  w->level_end[l]));
				k++;
			}
			ck_assert_msg(k == w->level_end[l],
				      "worker %d level %s: extra victims {%s}",
				      a, act__plan_steal_level_name(l, true),
				      slice_str(pl, a, k, w->level_end[l]));
		}
	}
}

/*
 * The whole plan: n workers, worker i on cpu[i] (numa: standing for the
 * core of cpu[i], bound to the usable CPUs of its node), the reactor on
 * reactor (-1: not bound), the steal orders by rule_level, and a note
 * exactly when there are more workers than usable CPUs.
 */
static void assert_plan(const struct act__plan *pl, const struct act__topo *t,
			const struct geom *g, int bind, int n,
			int (*cpu_of)(int), int reactor)
{
	int *cpu = calloc((size_t)n, sizeof(int));
	hwloc_bitmap_t want = hwloc_bitmap_alloc();
	int i, c;

	ck_assert_ptr_nonnull(cpu);
	ck_assert_ptr_nonnull(want);
	ck_assert_int_eq(pl->bind, bind);
	ck_assert_int_eq(pl->nworkers, n);
	for (i = 0; i < n; i++) {
		const struct act__plan_worker *w = &pl->w[i];

		cpu[i] = cpu_of ? cpu_of(i) : -1;
		/* none, and more workers than CPUs: nobody bound */
		if (bind == ACT_BIND_NONE || n > t->nusable_pus) {
			ck_assert_ptr_null(w->set);
			ck_assert_int_eq(w->cpu, -1);
			ck_assert_int_eq(w->pu, -1);
			ck_assert_int_eq(w->node, -1);
			continue;
		}
		ck_assert_msg(w->pu >= 0 && w->pu < t->npus &&
				      t->pus[w->pu].os == cpu[i],
			      "worker %d: expected CPU %d, got PU %d (CPU %d)",
			      i, cpu[i], w->pu,
			      w->pu >= 0 ? t->pus[w->pu].os : -1);
		ck_assert(t->pus[w->pu].usable);
		/* the whole machine: cores numbered in topology order */
		if (t->npus == g->npus)
			ck_assert_msg(t->pus[w->pu].core ==
					      cpu[i] / g->per_core,
				      "worker %d: core %d, expected %d", i,
				      t->pus[w->pu].core, cpu[i] / g->per_core);
		ck_assert_msg(w->node == cpu[i] / g->per_node,
			      "worker %d (CPU %d): node %d, expected %d", i,
			      cpu[i], w->node, cpu[i] / g->per_node);
		ck_assert_ptr_nonnull(w->set);
		hwloc_bitmap_zero(want);
		if (bind == ACT_BIND_NUMA) {
			ck_assert_int_eq(w->cpu, -1);
			for (c = 0; c < g->npus; c++)
				if (c / g->per_node == w->node &&
				    hwloc_bitmap_isset(t->usable, (unsigned)c))
					hwloc_bitmap_set(want, (unsigned)c);
		} else {
			ck_assert_int_eq(w->cpu, cpu[i]);
			hwloc_bitmap_only(want, (unsigned)cpu[i]);
		}
		ck_assert_msg(hwloc_bitmap_isequal(w->set, want),
			      "worker %d: bound to the wrong set", i);
	}
	ck_assert_msg(pl->reactor_cpu == reactor,
		      "reactor: expected CPU %d, got %d", reactor,
		      pl->reactor_cpu);
	if (n > t->nusable_pus)
		ck_assert_msg(pl->note[0], "%d workers, %d CPUs: no note", n,
			      t->nusable_pus);
	else
		ck_assert_msg(!pl->note[0], "unexpected note \"%s\"", pl->note);
	if (bind == ACT_BIND_NUMA) /* the node of the core it stands for */
		for (i = 0; i < n; i++)
			cpu[i] = t->pus[pl->w[i].pu].os;
	assert_victims(pl, g, n > t->nusable_pus ? ACT_BIND_NONE : bind, cpu);
	hwloc_bitmap_free(want);
	free(cpu);
}

/* One plan of a synthetic machine: load, plan, check, free. */
static void golden(const char *synth, const struct geom *g, int bind,
		   int schedulers, int n, int (*cpu_of)(int), int reactor)
{
	struct act__topo t;
	struct act__plan pl;

	topo_ok(&t, synth, NULL, NULL, NULL);
	plan_ok(&pl, &t, bind, schedulers, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.default_workers,
			 bind == ACT_BIND_PU ? t.npus - 1 : t.ncores - 1);
	/* bind 0 is core */
	assert_plan(&pl, &t, g, bind ? bind : ACT_BIND_CORE, n, cpu_of,
		    reactor);
	act__plan_free(&pl);
	act__topology_free(&t);
}

/* ---- temporary cgroup directories and files --------------------------- */

/* Everything the tests make goes under this directory, which main()
 * makes and removes: also what a test left when an assertion ended it. */
static char base[64];

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* A directory standing for a cgroup: cpuset.cpus.effective and cpu.max
 * when given. */
static char *cgroup_dir(const char *cpuset, const char *cpu_max)
{
	static char dir[128];

	snprintf(dir, sizeof(dir), "%s/cgroup.XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (cpuset)
		write_file(dir, "cpuset.cpus.effective", cpuset);
	if (cpu_max)
		write_file(dir, "cpu.max", cpu_max);
	return dir;
}

static void rm_tree(const char *dir)
{
	ck_assert_int_eq(nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/* The synthetic machine synth written as hwloc XML into a temporary
 * file; allowed (a cpulist, NULL: all) marks the rest disallowed, as a
 * cgroup cpuset does; restrict_to removes all other PUs instead. */
static char *xml_of(const char *synth, const char *allowed,
		    const char *restrict_to)
{
	static char path[128];
	hwloc_topology_t hw;
	hwloc_bitmap_t b = hwloc_bitmap_alloc();
	int fd;

	snprintf(path, sizeof(path), "%s/topology.XXXXXX.xml", base);
	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(hwloc_topology_init(&hw), 0);
	ck_assert_int_eq(hwloc_topology_set_flags(
				 hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED),
			 0);
	ck_assert_int_eq(hwloc_topology_set_synthetic(hw, synth), 0);
	ck_assert_int_eq(hwloc_topology_load(hw), 0);
	if (allowed) {
		ck_assert_int_eq(hwloc_bitmap_list_sscanf(b, allowed), 0);
		ck_assert_int_eq(hwloc_topology_allow(hw, b, NULL,
						      HWLOC_ALLOW_FLAG_CUSTOM),
				 0);
	}
	if (restrict_to) {
		ck_assert_int_eq(hwloc_bitmap_list_sscanf(b, restrict_to), 0);
		ck_assert_int_eq(hwloc_topology_restrict(hw, b, 0), 0);
	}
	ck_assert_int_eq(hwloc_topology_export_xml(hw, path, 0), 0);
	hwloc_topology_destroy(hw);
	hwloc_bitmap_free(b);
	return path;
}

/* ---- the server --------------------------------------------------------- */

START_TEST(server_topology)
{
	static const char *const synth[] = { SERVER, SERVER_L3 };
	struct act__topo t;
	int s, i;

	for (s = 0; s < 2; s++) {
		topo_ok(&t, synth[s], NULL, NULL, NULL);
		ck_assert_int_eq(t.npus, 128);
		ck_assert_int_eq(t.ncores, 64);
		ck_assert_int_eq(t.nnodes, 4);
		ck_assert_int_eq(t.npackages, 2);
		ck_assert_int_eq(t.ncaches, s ? 8 : 0);
		ck_assert_int_eq(t.nusable_pus, 128);
		ck_assert_int_eq(t.nusable_cores, 64);
		ck_assert(t.quota == 0);
		ck_assert_ptr_nonnull(strstr(t.source, "synthetic"));
		for (i = 0; i < 128; i++) {
			ck_assert_int_eq(t.pus[i].os, i);
			ck_assert_int_eq(t.pus[i].core, i / 2);
			ck_assert_int_eq(t.pus[i].node, i / 32);
			ck_assert_int_eq(t.pus[i].package, i / 64);
			ck_assert_int_eq(t.pus[i].cache, s ? i / 16 : -1);
			ck_assert(t.pus[i].usable);
		}
		act__topology_free(&t);
	}
}
END_TEST

/* core: worker i on the first PU of core i; 63 workers, the reactor on
 * the 64th core. */
START_TEST(server_core)
{
	struct act__topo t;
	struct act__plan pl;

	golden(SERVER, &g_server, ACT_BIND_CORE, 0, 63, core_cpu, 126);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_CORE, 0, 63, core_cpu, 126);
	/* bind 0 is core */
	golden(SERVER, &g_server, ACT_BIND_DEFAULT, 0, 63, core_cpu, 126);

	topo_ok(&t, SERVER, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_ptr_nonnull(strstr(pl.count_why, "64 usable cores"));
	assert_level(&pl, 0, ACT_STEAL_SMT, "");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "");
	assert_level(&pl, 0, ACT_STEAL_NODE, "1-15");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "16-62");
	assert_level(&pl, 40, ACT_STEAL_NODE, "32-39,41-47");
	assert_level(&pl, 40, ACT_STEAL_REMOTE, "0-31,48-62");
	assert_level(&pl, 62, ACT_STEAL_NODE, "48-61");
	act__plan_free(&pl);
	act__topology_free(&t);

	/* with L3s: the cache level is the other cores under the same L3 */
	topo_ok(&t, SERVER_L3, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	assert_level(&pl, 0, ACT_STEAL_SMT, "");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "1-7");
	assert_level(&pl, 0, ACT_STEAL_NODE, "8-15");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "16-62");
	assert_level(&pl, 9, ACT_STEAL_CACHE, "8,10-15");
	assert_level(&pl, 9, ACT_STEAL_NODE, "0-7");
	assert_level(&pl, 9, ACT_STEAL_REMOTE, "16-62");
	assert_level(&pl, 60, ACT_STEAL_CACHE, "56-59,61-62");
	assert_level(&pl, 60, ACT_STEAL_NODE, "48-55");
	assert_level(&pl, 60, ACT_STEAL_REMOTE, "0-47");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* core beyond the cores: second hardware threads, in the same order;
 * the reactor takes a free SMT sibling, then nothing is left. */
START_TEST(server_core_smt)
{
	struct act__topo t;
	struct act__plan pl;

	golden(SERVER, &g_server, ACT_BIND_CORE, 64, 64, core_cpu, 1);
	golden(SERVER, &g_server, ACT_BIND_CORE, 65, 65, core_cpu, 3);
	golden(SERVER, &g_server, ACT_BIND_CORE, 127, 127, core_cpu, 127);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_CORE, 128, 128, core_cpu, -1);

	topo_ok(&t, SERVER_L3, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 128, ACT_REACTOR_AUTO);
	assert_level(&pl, 0, ACT_STEAL_SMT, "64");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "1-7,65-71");
	assert_level(&pl, 0, ACT_STEAL_NODE, "8-15,72-79");
	assert_level(&pl, 64, ACT_STEAL_SMT, "0");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* pu: one worker per hardware thread, 127 of them. */
START_TEST(server_pu)
{
	struct act__topo t;
	struct act__plan pl;

	golden(SERVER, &g_server, ACT_BIND_PU, 0, 127, pu_cpu, 127);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_PU, 0, 127, pu_cpu, 127);
	golden(SERVER, &g_server, ACT_BIND_PU, 128, 128, pu_cpu, -1);
	golden(SERVER, &g_server, ACT_BIND_PU, 10, 10, pu_cpu, 10);

	topo_ok(&t, SERVER, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_PU, 0, ACT_REACTOR_AUTO);
	ck_assert_ptr_nonnull(strstr(pl.count_why, "128 usable hardware"));
	assert_level(&pl, 0, ACT_STEAL_SMT, "1");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "");
	assert_level(&pl, 0, ACT_STEAL_NODE, "2-31");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "32-126");
	assert_level(&pl, 126, ACT_STEAL_SMT, "");
	assert_level(&pl, 126, ACT_STEAL_NODE, "96-125");
	act__plan_free(&pl);
	act__topology_free(&t);

	topo_ok(&t, SERVER_L3, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_PU, 0, ACT_REACTOR_AUTO);
	assert_level(&pl, 0, ACT_STEAL_SMT, "1");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "2-15");
	assert_level(&pl, 0, ACT_STEAL_NODE, "16-31");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "32-126");
	assert_level(&pl, 17, ACT_STEAL_SMT, "16");
	assert_level(&pl, 17, ACT_STEAL_CACHE, "18-31");
	assert_level(&pl, 17, ACT_STEAL_NODE, "0-15");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* spread: worker 0 on package 0 node 0, 1 on package 1 (node 2), 2 on
 * package 0's second node, 3 on package 1's, then the next cores. */
START_TEST(server_spread)
{
	struct act__topo t;
	struct act__plan pl;

	ck_assert_int_eq(spread_cpu(0), 0);
	ck_assert_int_eq(spread_cpu(1), 64);
	ck_assert_int_eq(spread_cpu(2), 32);
	ck_assert_int_eq(spread_cpu(3), 96);
	ck_assert_int_eq(spread_cpu(4), 2);
	ck_assert_int_eq(spread_cpu(64), 1);
	golden(SERVER, &g_server, ACT_BIND_SPREAD, 0, 63, spread_cpu, 126);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_SPREAD, 0, 63, spread_cpu,
	       126);
	golden(SERVER, &g_server, ACT_BIND_SPREAD, 4, 4, spread_cpu, 2);
	/* beyond the cores: second threads, in the same order */
	golden(SERVER, &g_server, ACT_BIND_SPREAD, 100, 100, spread_cpu, 19);
	golden(SERVER, &g_server, ACT_BIND_SPREAD, 128, 128, spread_cpu, -1);

	topo_ok(&t, SERVER, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_SPREAD, 0, ACT_REACTOR_AUTO);
	assert_level(&pl, 0, ACT_STEAL_SMT, "");
	assert_level(&pl, 0, ACT_STEAL_NODE,
		     "4,8,12,16,20,24,28,32,36,40,44,48,52,56,60");
	assert_level(&pl, 1, ACT_STEAL_NODE,
		     "5,9,13,17,21,25,29,33,37,41,45,49,53,57,61");
	assert_level(&pl, 3, ACT_STEAL_NODE,
		     "7,11,15,19,23,27,31,35,39,43,47,51,55,59");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* compact: package 0 (first threads, then second ones), then package 1;
 * the reactor on the first core no worker stands on, package 1's. */
START_TEST(server_compact)
{
	struct act__topo t;
	struct act__plan pl;

	golden(SERVER, &g_server, ACT_BIND_COMPACT, 0, 63, compact_cpu, 64);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_COMPACT, 0, 63, compact_cpu,
	       64);
	golden(SERVER, &g_server, ACT_BIND_COMPACT, 100, 100, compact_cpu,
	       65 + 2 * 4);
	golden(SERVER, &g_server, ACT_BIND_COMPACT, 128, 128, compact_cpu, -1);

	topo_ok(&t, SERVER, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_COMPACT, 0, ACT_REACTOR_AUTO);
	for (int i = 0; i < 63; i++) /* one package */
		ck_assert_int_lt(pl.w[i].cpu, 64);
	assert_level(&pl, 0, ACT_STEAL_SMT, "32");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "");
	assert_level(&pl, 0, ACT_STEAL_NODE, "1-15,33-47");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "16-31,48-62");
	assert_level(&pl, 47, ACT_STEAL_SMT, "15");
	assert_level(&pl, 47, ACT_STEAL_NODE, "0-14,32-46");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* numa: worker i stands for core i and is bound to its node's CPUs. */
START_TEST(server_numa)
{
	struct act__topo t;
	struct act__plan pl;

	golden(SERVER, &g_server, ACT_BIND_NUMA, 0, 63, core_cpu, 126);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_NUMA, 0, 63, core_cpu, 126);

	topo_ok(&t, SERVER_L3, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_NUMA, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(hwloc_bitmap_weight(pl.w[0].set), 32);
	ck_assert_int_eq(hwloc_bitmap_first(pl.w[0].set), 0);
	ck_assert_int_eq(hwloc_bitmap_last(pl.w[0].set), 31);
	ck_assert_int_eq(hwloc_bitmap_first(pl.w[20].set), 32);
	assert_level(&pl, 0, ACT_STEAL_SMT, "");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "");
	assert_level(&pl, 0, ACT_STEAL_NODE, "1-15");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "16-62");
	assert_level(&pl, 50, ACT_STEAL_NODE, "48-49,51-62");
	assert_level(&pl, 50, ACT_STEAL_REMOTE, "0-47");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* none: not bound, one level, no reactor CPU unless one is named. */
START_TEST(server_none)
{
	struct act__topo t;
	struct act__plan pl;

	golden(SERVER, &g_server, ACT_BIND_NONE, 0, 63, NULL, -1);
	golden(SERVER_L3, &g_server_l3, ACT_BIND_NONE, 5, 5, NULL, -1);

	topo_ok(&t, SERVER_L3, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_NONE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.default_workers, 63);
	assert_level(&pl, 0, ACT_STEAL_SMT, "");
	assert_level(&pl, 0, ACT_STEAL_CACHE, "");
	assert_level(&pl, 0, ACT_STEAL_NODE, "");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "1-62");
	assert_level(&pl, 30, ACT_STEAL_REMOTE, "0-29,31-62");
	ck_assert_str_eq(act__plan_steal_level_name(ACT_STEAL_REMOTE, false),
			 "any");
	act__plan_free(&pl);
	/* a named reactor CPU still counts */
	plan_ok(&pl, &t, ACT_BIND_NONE, 0, 5);
	ck_assert_int_eq(pl.reactor_cpu, 5);
	act__plan_free(&pl);
	/* more workers than CPUs: said, not bound */
	plan_ok(&pl, &t, ACT_BIND_NONE, 129, ACT_REACTOR_AUTO);
	ck_assert(pl.note[0]);
	ck_assert_ptr_null(pl.w[128].set);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_NONE, 128, ACT_REACTOR_AUTO);
	ck_assert_str_eq(pl.note, "");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* ---- the laptop --------------------------------------------------------- */

START_TEST(laptop)
{
	static const int binds[] = { ACT_BIND_CORE, ACT_BIND_PU,
				     ACT_BIND_SPREAD, ACT_BIND_COMPACT,
				     ACT_BIND_NUMA };
	struct act__topo t;
	struct act__plan pl;
	unsigned b;
	int i;

	for (b = 0; b < sizeof(binds) / sizeof(binds[0]); b++) {
		golden(LAPTOP, &g_laptop, binds[b], 0, 7, pu_cpu, 7);
		topo_ok(&t, LAPTOP, NULL, NULL, NULL);
		plan_ok(&pl, &t, binds[b], 0, ACT_REACTOR_AUTO);
		for (i = 0; i < 7; i++) {
			int l = binds[b] == ACT_BIND_NUMA ? ACT_STEAL_NODE :
							    ACT_STEAL_CACHE;

			/* all victims in one level: the L3 (numa: the node) */
			ck_assert_int_eq(level_from(&pl, i, l), 0);
			ck_assert_int_eq(pl.w[i].level_end[l], 6);
		}
		act__plan_free(&pl);
		act__topology_free(&t);
	}
	golden(LAPTOP, &g_laptop, ACT_BIND_NONE, 0, 7, NULL, -1);
	golden(LAPTOP, &g_laptop, ACT_BIND_CORE, 8, 8, pu_cpu, -1);
	golden(LAPTOP, &g_laptop, ACT_BIND_CORE, 3, 3, pu_cpu, 3);

	/* more workers than CPUs: a note, and nobody is bound */
	topo_ok(&t, LAPTOP, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 10, ACT_REACTOR_AUTO);
	ck_assert_ptr_nonnull(strstr(pl.note, "10 workers on 8 usable CPUs"));
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(pl.w[i].cpu, -1);
		ck_assert_ptr_null(pl.w[i].set);
	}
	ck_assert_int_eq(pl.reactor_cpu, -1);
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "1-9");
	assert_level(&pl, 9, ACT_STEAL_REMOTE, "0-8");
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 8, ACT_REACTOR_AUTO);
	ck_assert_str_eq(pl.note, "");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

START_TEST(server_oversubscribed)
{
	struct act__topo t;
	struct act__plan pl;

	/* more workers than CPUs: nobody bound (pinned workers sharing a
	 * CPU could not be balanced), one steal level, the reactor free */
	golden(SERVER, &g_server, ACT_BIND_CORE, 200, 200, NULL, -1);
	topo_ok(&t, SERVER, NULL, NULL, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 200, ACT_REACTOR_AUTO);
	ck_assert(pl.unbound);
	ck_assert_ptr_nonnull(strstr(pl.note, "200 workers on 128"));
	assert_level(&pl, 0, ACT_STEAL_SMT, "");
	assert_level(&pl, 0, ACT_STEAL_REMOTE, "1-199");
	act__plan_free(&pl);
	/* as many as CPUs: still bound */
	plan_ok(&pl, &t, ACT_BIND_CORE, 128, ACT_REACTOR_AUTO);
	ck_assert(!pl.unbound);
	ck_assert_str_eq(pl.note, "");
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

/* ---- a cpuset-restricted container ------------------------------------ */

static int container_core_cpu(int i)
{
	static const int cpus[] = { 4, 6, 68, 70 };

	return cpus[i];
}

static int container_pu_cpu(int i)
{
	static const int cpus[] = { 4, 5, 6, 7, 68, 69, 70, 71 };

	return cpus[i];
}

START_TEST(container_cpuset)
{
	char *dir = cgroup_dir(CONTAINER_SET, NULL);
	struct act__topo t;
	struct act__plan pl;
	char why[512];
	int i;

	topo_ok(&t, SERVER, NULL, dir, NULL);
	ck_assert_int_eq(t.nusable_cores, 4);
	ck_assert_int_eq(t.nusable_pus, 8);
	for (i = 0; i < 128; i++)
		ck_assert(t.pus[i].usable ==
			  ((i >= 4 && i <= 7) || (i >= 68 && i <= 71)));
	/* usable cores less one */
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.default_workers, 3);
	assert_plan(&pl, &t, &g_server, ACT_BIND_CORE, 3, container_core_cpu,
		    70);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_PU, 0, ACT_REACTOR_AUTO);
	assert_plan(&pl, &t, &g_server, ACT_BIND_PU, 7, container_pu_cpu, 71);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_SPREAD, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.w[0].cpu, 4);
	ck_assert_int_eq(pl.w[1].cpu, 68);
	ck_assert_int_eq(pl.w[2].cpu, 6);
	ck_assert_int_eq(pl.reactor_cpu, 70);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_NUMA, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(hwloc_bitmap_weight(pl.w[0].set), 4); /* 4-7 */
	ck_assert_int_eq(hwloc_bitmap_first(pl.w[2].set), 68);
	act__plan_free(&pl);
	/* a named reactor CPU must be in the cgroup's set */
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, 5);
	ck_assert_int_eq(pl.reactor_cpu, 5);
	act__plan_free(&pl);
	why[0] = '\0';
	ck_assert_int_eq(
		act__plan_make(&pl, &t,
			       &(struct act__plan_in){ 0, ACT_BIND_CORE, 0 },
			       why, sizeof(why)),
		-EINVAL);
	ck_assert_msg(strstr(why, "CPU 0"), "why: %s", why);
	act__topology_free(&t);

	/* ACTORS_CPUS (here the cpus argument) restricts further */
	topo_ok(&t, SERVER, NULL, dir, "5-7");
	ck_assert_int_eq(t.nusable_cores, 2);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 1);
	ck_assert_int_eq(pl.w[0].cpu, 5);
	ck_assert_int_eq(pl.reactor_cpu, 6);
	act__plan_free(&pl);
	/* the reactor may be named anywhere in the cgroup's set */
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, 71);
	ck_assert_int_eq(pl.reactor_cpu, 71);
	act__plan_free(&pl);
	act__topology_free(&t);

	/* but not outside the cgroup's set */
	why[0] = '\0';
	ck_assert_int_eq(
		act__topology_load(&t,
				   &(struct act__topo_src){ SERVER, NULL, dir },
				   "0-7", NULL, why, sizeof(why)),
		-EINVAL);
	ck_assert_msg(strstr(why, "ACTORS_CPUS=\"0-7\"") &&
			      strstr(why, "CPU 0"),
		      "why: %s", why);
	rm_tree(dir);
}
END_TEST

/* act__plan_resolve: ACTORS_CPUS, and act_config.cpus over it. */
struct resolve_out {
	int rc, nworkers, cpu0, reactor, bind;
};

struct resolve_case {
	const char *dir, *env_cpus, *cfg_cpus;
	struct resolve_out *out;
};

static void resolve_child(void *arg)
{
	struct resolve_case *rc = arg;
	struct act__topo_src src = { SERVER, NULL, rc->dir };
	struct act_config cfg;
	struct act__topo t;
	struct act__plan pl;

	act_config_init(&cfg);
	cfg.cpus = rc->cfg_cpus;
	if (rc->env_cpus)
		setenv("ACTORS_CPUS", rc->env_cpus, 1);
	rc->out->rc = act__plan_resolve(&cfg, &src, &t, &pl);
	if (!rc->out->rc) {
		rc->out->nworkers = pl.nworkers;
		rc->out->cpu0 = pl.w[0].cpu;
		rc->out->reactor = pl.reactor_cpu;
		rc->out->bind = pl.bind;
		act__plan_free(&pl);
		act__topology_free(&t);
	}
}

static struct resolve_out resolve_in_child(const char *dir,
					   const char *env_cpus,
					   const char *cfg_cpus,
					   struct tu_child *c)
{
	struct resolve_out *out = mmap(NULL, sizeof(*out),
				       PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0),
			   r;
	struct resolve_case rc = { dir, env_cpus, cfg_cpus, out };

	ck_assert_ptr_ne(out, MAP_FAILED);
	out->rc = 12345;
	tu_run_child(resolve_child, &rc, c);
	ck_assert(WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0);
	r = *out;
	munmap(out, sizeof(*out));
	return r;
}

START_TEST(container_cpus_setting)
{
	char *dir = cgroup_dir(CONTAINER_SET, NULL);
	struct resolve_out r;
	struct tu_child c;

	r = resolve_in_child(dir, NULL, NULL, &c);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.nworkers, 3);
	ck_assert_int_eq(r.bind, ACT_BIND_CORE);
	ck_assert_str_eq(c.err, "");
	r = resolve_in_child(dir, "68-71", NULL, &c);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.nworkers, 1);
	ck_assert_int_eq(r.cpu0, 68);
	ck_assert_int_eq(r.reactor, 70);
	/* the field wins over the variable, which is not even read */
	r = resolve_in_child(dir, "bogus", "4-5", &c);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.nworkers, 1);
	ck_assert_int_eq(r.cpu0, 4);
	ck_assert_int_eq(r.reactor, 5); /* a free SMT sibling */
	ck_assert_str_eq(c.err, "");
	/* outside the cgroup: one line naming the setting */
	r = resolve_in_child(dir, "2-5", NULL, &c);
	ck_assert_int_eq(r.rc, -EINVAL);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
	ck_assert_msg(strstr(c.err, "actors: ACTORS_CPUS=\"2-5\"") &&
			      strstr(c.err, "CPU 2"),
		      "stderr: %s", c.err);
	r = resolve_in_child(dir, "68-71", "3-1", &c);
	ck_assert_int_eq(r.rc, -EINVAL);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
	ck_assert_msg(strstr(c.err, "act_config.cpus=\"3-1\"") &&
			      strstr(c.err, "reversed"),
		      "stderr: %s", c.err);
	rm_tree(dir);
}
END_TEST

/* ---- a CPU quota of 2.5 CPUs ------------------------------------------- */

START_TEST(quota)
{
	char *dir = cgroup_dir(NULL, "250000 100000\n");
	struct act__topo t;
	struct act__plan pl;

	topo_ok(&t, LAPTOP, NULL, dir, NULL);
	ck_assert_double_eq_tol(t.quota, 2.5, 1e-9);
	ck_assert_int_eq(t.nusable_cores, 8); /* time, not CPUs */
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.default_workers, 2);
	ck_assert_msg(strstr(pl.count_why, "quota"), "%s", pl.count_why);
	assert_plan(&pl, &t, &g_laptop, ACT_BIND_CORE, 2, pu_cpu, 2);
	act__plan_free(&pl);
	/* a set count still wins */
	plan_ok(&pl, &t, ACT_BIND_CORE, 5, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.default_workers, 2);
	assert_plan(&pl, &t, &g_laptop, ACT_BIND_CORE, 5, pu_cpu, 5);
	act__plan_free(&pl);
	act__topology_free(&t);

	topo_ok(&t, SERVER, NULL, dir, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	assert_plan(&pl, &t, &g_server, ACT_BIND_CORE, 2, core_cpu, 4);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_PU, 0, ACT_REACTOR_AUTO);
	assert_plan(&pl, &t, &g_server, ACT_BIND_PU, 2, pu_cpu, 2);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_NONE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 2);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 40, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 40);
	act__plan_free(&pl);
	act__topology_free(&t);
	rm_tree(dir);

	/* a quota above the cores: the cores count */
	dir = cgroup_dir(NULL, "2000000 100000\n");
	topo_ok(&t, LAPTOP, NULL, dir, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 7);
	act__plan_free(&pl);
	act__topology_free(&t);
	rm_tree(dir);

	/* one CPU: still one worker */
	dir = cgroup_dir(NULL, "50000 100000\n");
	topo_ok(&t, SERVER, NULL, dir, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 1);
	ck_assert_msg(strstr(pl.count_why, "at least 1"), "%s", pl.count_why);
	/* and no CPU beside it for a reactor thread: inline, when auto */
	ck_assert(pl.reactor_inline && pl.reactor_lone);
	ck_assert_int_eq(pl.reactor_cpu, -1);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_NONE);
	ck_assert(!pl.reactor_inline);
	act__plan_free(&pl);
	act__topology_free(&t);
	rm_tree(dir);

	/* no limit */
	dir = cgroup_dir(NULL, "max 100000\n");
	topo_ok(&t, SERVER, NULL, dir, NULL);
	ck_assert(t.quota == 0);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 63);
	act__plan_free(&pl);
	act__topology_free(&t);
	rm_tree(dir);

	/* quota and cpuset together: the smaller wins */
	dir = cgroup_dir(CONTAINER_SET, "250000 100000\n");
	topo_ok(&t, SERVER, NULL, dir, NULL);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	assert_plan(&pl, &t, &g_server, ACT_BIND_CORE, 2, container_core_cpu,
		    68);
	act__plan_free(&pl);
	act__topology_free(&t);
	rm_tree(dir);
}
END_TEST

/* ---- XML ---------------------------------------------------------------- */

/* Two plans are the same, worker by worker. */
static void assert_same_plan(const struct act__plan *a,
			     const struct act__topo *ta,
			     const struct act__plan *b,
			     const struct act__topo *tb)
{
	int i;

	ck_assert_int_eq(a->nworkers, b->nworkers);
	ck_assert_int_eq(a->default_workers, b->default_workers);
	ck_assert_int_eq(a->reactor_cpu, b->reactor_cpu);
	ck_assert_str_eq(a->note, b->note);
	for (i = 0; i < a->nworkers; i++) {
		ck_assert_int_eq(a->w[i].cpu, b->w[i].cpu);
		ck_assert_int_eq(a->w[i].node, b->w[i].node);
		ck_assert_int_eq(a->w[i].pu < 0, b->w[i].pu < 0);
		if (a->w[i].pu >= 0)
			ck_assert_int_eq(ta->pus[a->w[i].pu].os,
					 tb->pus[b->w[i].pu].os);
		ck_assert_int_eq(!a->w[i].set, !b->w[i].set);
		if (a->w[i].set)
			ck_assert(
				hwloc_bitmap_isequal(a->w[i].set, b->w[i].set));
		ck_assert_mem_eq(a->w[i].level_end, b->w[i].level_end,
				 sizeof(a->w[i].level_end));
		ck_assert_mem_eq(a->w[i].victims, b->w[i].victims,
				 (size_t)(a->nworkers - 1) *
					 sizeof(a->w[i].victims[0]));
	}
}

START_TEST(xml_same_as_synthetic)
{
	static const char *const synth[] = { SERVER, SERVER_L3, LAPTOP };
	struct act__topo ts, tx;
	struct act__plan ps, px;
	unsigned s;
	int bind;

	for (s = 0; s < 3; s++) {
		char *xml = xml_of(synth[s], NULL, NULL);

		topo_ok(&ts, synth[s], NULL, NULL, NULL);
		topo_ok(&tx, NULL, xml, NULL, NULL);
		ck_assert_ptr_nonnull(strstr(tx.source, "xml"));
		ck_assert_int_eq(tx.npus, ts.npus);
		ck_assert_int_eq(tx.ncores, ts.ncores);
		ck_assert_int_eq(tx.nnodes, ts.nnodes);
		ck_assert_int_eq(tx.ncaches, ts.ncaches);
		for (bind = ACT_BIND_NONE; bind <= ACT_BIND_NUMA; bind++) {
			plan_ok(&ps, &ts, bind, 0, ACT_REACTOR_AUTO);
			plan_ok(&px, &tx, bind, 0, ACT_REACTOR_AUTO);
			assert_same_plan(&ps, &ts, &px, &tx);
			act__plan_free(&ps);
			act__plan_free(&px);
		}
		act__topology_free(&ts);
		act__topology_free(&tx);
		unlink(xml);
	}
	/* the golden server plans, from XML */
	{
		char *xml = xml_of(SERVER_L3, NULL, NULL);

		topo_ok(&tx, NULL, xml, NULL, NULL);
		plan_ok(&px, &tx, ACT_BIND_SPREAD, 0, ACT_REACTOR_AUTO);
		assert_plan(&px, &tx, &g_server_l3, ACT_BIND_SPREAD, 63,
			    spread_cpu, 126);
		act__plan_free(&px);
		act__topology_free(&tx);
		unlink(xml);
	}
}
END_TEST

/* XML of a machine of which only some CPUs are allowed (as a cpuset
 * leaves them), or restricted to them. */
START_TEST(xml_restricted)
{
	struct act__topo t;
	struct act__plan pl;
	char *xml;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		xml = pass ? xml_of(SERVER, NULL, CONTAINER_SET) :
			     xml_of(SERVER, CONTAINER_SET, NULL);
		topo_ok(&t, NULL, xml, NULL, NULL);
		ck_assert_int_eq(t.nusable_pus, 8);
		ck_assert_int_eq(t.nusable_cores, 4);
		plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
		assert_plan(&pl, &t, &g_server, ACT_BIND_CORE, 3,
			    container_core_cpu, 70);
		act__plan_free(&pl);
		plan_ok(&pl, &t, ACT_BIND_PU, 0, ACT_REACTOR_AUTO);
		assert_plan(&pl, &t, &g_server, ACT_BIND_PU, 7,
			    container_pu_cpu, 71);
		act__plan_free(&pl);
		plan_ok(&pl, &t, ACT_BIND_CORE, 4, ACT_REACTOR_AUTO);
		assert_plan(&pl, &t, &g_server, ACT_BIND_CORE, 4,
			    container_core_cpu, 5);
		act__plan_free(&pl);
		act__topology_free(&t);
		unlink(xml);
	}
}
END_TEST

START_TEST(bad_sources)
{
	struct act__topo t;
	char why[512] = "";

	ck_assert_int_eq(
		act__topology_load(&t,
				   &(struct act__topo_src){ "pack:2 bogus:3",
							    NULL, NULL },
				   NULL, NULL, why, sizeof(why)),
		-EINVAL);
	ck_assert_msg(strstr(why, "bogus"), "why: %s", why);
	why[0] = '\0';
	ck_assert_int_eq(
		act__topology_load(&t,
				   &(struct act__topo_src){
					   NULL, "/nonexistent/act.xml", NULL },
				   NULL, NULL, why, sizeof(why)),
		-EINVAL);
	ck_assert_msg(strstr(why, "/nonexistent/act.xml"), "why: %s", why);
	why[0] = '\0';
	ck_assert_int_eq(act__topology_load(
				 &t,
				 &(struct act__topo_src){ LAPTOP, NULL, NULL },
				 "3-1", "ACTORS_CPUS", why, sizeof(why)),
			 -EINVAL);
	ck_assert_msg(strstr(why, "ACTORS_CPUS=\"3-1\""), "why: %s", why);
}
END_TEST

/* ---- the reactor -------------------------------------------------------- */

START_TEST(reactor)
{
	struct act__topo t;
	struct act__plan pl;
	char why[512] = "";

	topo_ok(&t, SERVER, NULL, NULL, NULL);
	/* named: taken as it is, even where a worker stands */
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, 17);
	ck_assert_int_eq(pl.reactor_cpu, 17);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, 0);
	ck_assert_int_eq(pl.reactor_cpu, 0);
	act__plan_free(&pl);
	/* not pinned */
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, -2);
	ck_assert_int_eq(pl.reactor_cpu, -1);
	act__plan_free(&pl);
	/* auto: the first free core, then a free SMT sibling, then none */
	plan_ok(&pl, &t, ACT_BIND_CORE, 10, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.reactor_cpu, 20);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 64, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.reactor_cpu, 1);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_PU, 127, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.reactor_cpu, 127);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_PU, 128, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.reactor_cpu, -1);
	act__plan_free(&pl);
	/* auto under none: not pinned */
	plan_ok(&pl, &t, ACT_BIND_NONE, 4, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.reactor_cpu, -1);
	act__plan_free(&pl);
	/* a CPU the machine does not have */
	ck_assert_int_eq(
		act__plan_make(&pl, &t,
			       &(struct act__plan_in){ 0, ACT_BIND_CORE, 128 },
			       why, sizeof(why)),
		-EINVAL);
	ck_assert_msg(strstr(why, "CPU 128"), "why: %s", why);
	act__topology_free(&t);

	/* ACTORS_CPUS leaves the reactor's choice within the allowed set */
	topo_ok(&t, SERVER, NULL, NULL, "0-3");
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.nworkers, 1);
	ck_assert_int_eq(pl.w[0].cpu, 0);
	ck_assert_int_eq(pl.reactor_cpu, 2);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 2, ACT_REACTOR_AUTO);
	ck_assert_int_eq(pl.reactor_cpu, 1);
	act__plan_free(&pl);
	plan_ok(&pl, &t, ACT_BIND_CORE, 0, 100);
	ck_assert_int_eq(pl.reactor_cpu, 100);
	act__plan_free(&pl);
	act__topology_free(&t);
}
END_TEST

START_TEST(names)
{
	static const char *const n[] = { "none",   "core",    "pu",
					 "spread", "compact", "numa" };
	int b;

	for (b = ACT_BIND_NONE; b <= ACT_BIND_NUMA; b++) {
		ck_assert_str_eq(act__plan_bind_name(b), n[b - ACT_BIND_NONE]);
		ck_assert_int_eq(act__plan_bind_parse(n[b - ACT_BIND_NONE]), b);
	}
	ck_assert_ptr_null(act__plan_bind_name(ACT_BIND_NUMA + 1));
	ck_assert_ptr_null(act__plan_bind_name(-1));
	ck_assert_int_eq(act__plan_bind_parse("cores"), -1);
	ck_assert_int_eq(act__plan_bind_parse(""), -1);
	ck_assert_int_eq(act__plan_bind_parse(NULL), -1);
	ck_assert_str_eq(act__plan_steal_level_name(ACT_STEAL_SMT, true),
			 "smt");
	ck_assert_str_eq(act__plan_steal_level_name(ACT_STEAL_CACHE, true),
			 "cache");
	ck_assert_str_eq(act__plan_steal_level_name(ACT_STEAL_NODE, true),
			 "node");
	ck_assert_str_eq(act__plan_steal_level_name(ACT_STEAL_REMOTE, true),
			 "remote");
}
END_TEST

/* ---- the runtime on this machine --------------------------------------- */

static int victims_ok;

/* The level of workers a and b of the running runtime, from its
 * topology: same core, a shared cache, the same node, else remote. */
static int machine_level(const struct act__rt *rt, int a, int b)
{
	const struct act__plan *pl = &rt->plan;
	const struct act__pu *pa, *pb;

	if (pl->bind == ACT_BIND_NONE || pl->nworkers > rt->topo.nusable_pus)
		return ACT_STEAL_REMOTE;
	pa = &rt->topo.pus[pl->w[a].pu];
	pb = &rt->topo.pus[pl->w[b].pu];
	if (pl->bind == ACT_BIND_NUMA)
		return pa->node >= 0 && pa->node == pb->node ? ACT_STEAL_NODE :
							       ACT_STEAL_REMOTE;
	if (pa->core == pb->core)
		return ACT_STEAL_SMT;
	if (pa->cache >= 0 && pa->cache == pb->cache)
		return ACT_STEAL_CACHE;
	if (pa->node >= 0 && pa->node == pb->node)
		return ACT_STEAL_NODE;
	return ACT_STEAL_REMOTE;
}

static void victims_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	int n = (int)rt->nworkers, a, b, l, k;

	(void)arg;
	ck_assert_int_eq(n, rt->plan.nworkers);
	for (a = 0; a < n; a++) {
		const struct act__worker *w = &rt->workers[a];
		const struct act__plan_worker *pw = &rt->plan.w[a];

		ck_assert_mem_eq(w->level_end, pw->level_end,
				 sizeof(w->level_end));
		ck_assert_int_eq(w->level_end[ACT_STEAL_LEVELS - 1], n - 1);
		for (k = 0; k < n - 1; k++)
			ck_assert_uint_eq(w->victims[k], pw->victims[k]);
		/* and the plan's by the rule, from this machine's shape */
		k = 0;
		for (l = 0; l < ACT_STEAL_LEVELS; l++) {
			for (b = 0; b < n; b++)
				if (b != a && machine_level(rt, a, b) == l)
					ck_assert_msg(w->victims[k++] == b,
						      "worker %d level %d", a,
						      l);
			ck_assert_int_eq(k, w->level_end[l]);
		}
	}
	victims_ok = 1;
}

START_TEST(runtime_victims)
{
	int n, bind;

	for (bind = ACT_BIND_NONE; bind <= ACT_BIND_NUMA; bind++)
		for (n = 1; n <= 4; n++) {
			struct act_config cfg = tu_with_workers(n);

			cfg.bind = bind;
			victims_ok = 0;
			ck_assert_int_eq(tu_run_main(&cfg, victims_main, NULL),
					 0);
			ck_assert_int_eq(victims_ok, 1);
		}
}
END_TEST

/* ---- several instances on one host (lib/affinity/instances.h) -------- */

/* The split of synth (cpus: ACTORS_CPUS, NULL: all) into n: each
 * instance's "cpus nodes cores" joined by " | ". */
static void split_is(const char *synth, const char *cpus, int n,
		     const char *want)
{
	struct act__instance in[64];
	struct act__topo t;
	char got[2048] = "", why[256] = "";
	int k, rc;

	topo_ok(&t, synth, NULL, NULL, cpus);
	rc = act__instances_split(&t, n, in, why, sizeof(why));
	ck_assert_msg(rc == 0, "%s into %d: %d (%s)", synth, n, rc, why);
	for (k = 0; k < n; k++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%s %s %d", k ? " | " : "", in[k].cpus, in[k].nodes,
			 in[k].ncores);
	ck_assert_msg(!strcmp(got, want),
		      "%s (cpus %s) into %d:\n got %s\nwant %s", synth,
		      cpus ? cpus : "all", n, got, want);
	act__instances_free(in, n);
	act__topology_free(&t);
}

START_TEST(instances)
{
	struct act__instance in[8];
	struct act__topo t;
	char why[256];

	/* whole packages, then whole nodes */
	split_is(SERVER, NULL, 1, "0-127 0-3 64");
	split_is(SERVER, NULL, 2, "0-63 0-1 32 | 64-127 2-3 32");
	split_is(SERVER, NULL, 4,
		 "0-31 0 16 | 32-63 1 16 | 64-95 2 16 | 96-127 3 16");
	/* three of four nodes: runs of whole nodes, each nearest its
	 * share of the cores */
	split_is(SERVER, NULL, 3, "0-31 0 16 | 32-95 1-2 32 | 96-127 3 16");
	/* more instances than nodes: two a node, each node's cores cut in
	 * two (no cache is shared on SERVER) */
	split_is(SERVER, NULL, 8,
		 "0-15 0 8 | 16-31 0 8 | 32-47 1 8 | 48-63 1 8 | "
		 "64-79 2 8 | 80-95 2 8 | 96-111 3 8 | 112-127 3 8");
	/* with L3 caches: six on four nodes, the extra two to the first
	 * nodes (D'Hondt's tie), an L3 each there */
	split_is(SERVER_L3, NULL, 6,
		 "0-15 0 8 | 16-31 0 8 | 32-47 1 8 | 48-63 1 8 | "
		 "64-95 2 16 | 96-127 3 16");
	/* five: the fifth to node 0, whose L3s take one each */
	split_is(SERVER_L3, NULL, 5,
		 "0-15 0 8 | 16-31 0 8 | 32-63 1 16 | 64-95 2 16 | "
		 "96-127 3 16");
	/* every core its own */
	split_is(
		LAPTOP, NULL, 8,
		"0 0 1 | 1 0 1 | 2 0 1 | 3 0 1 | 4 0 1 | 5 0 1 | 6 0 1 | 7 0 1");
	/* one cache of eight cores in three: 3, 2, 3 */
	split_is(LAPTOP, NULL, 3, "0-2 0 3 | 3-4 0 2 | 5-7 0 3");
	/* only the usable cores: a container of two cores on two nodes */
	split_is(SERVER, CONTAINER_SET, 2, "4-7 0 2 | 68-71 2 2");
	split_is(SERVER, CONTAINER_SET, 4,
		 "4-5 0 1 | 6-7 0 1 | 68-69 2 1 | "
		 "70-71 2 1");
	/* more instances than cores, or none */
	topo_ok(&t, SERVER, NULL, NULL, CONTAINER_SET);
	ck_assert_int_eq(act__instances_split(&t, 5, in, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "4 usable cores give at most 4"));
	ck_assert_int_eq(act__instances_split(&t, 0, in, why, sizeof(why)),
			 -EINVAL);
	act__topology_free(&t);
}
END_TEST

static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("golden");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, server_topology);
	tcase_add_test(tc, server_core);
	tcase_add_test(tc, server_core_smt);
	tcase_add_test(tc, server_pu);
	tcase_add_test(tc, server_spread);
	tcase_add_test(tc, server_compact);
	tcase_add_test(tc, server_numa);
	tcase_add_test(tc, server_none);
	tcase_add_test(tc, server_oversubscribed);
	tcase_add_test(tc, laptop);
	tcase_add_test(tc, container_cpuset);
	tcase_add_test(tc, container_cpus_setting);
	tcase_add_test(tc, quota);
	tcase_add_test(tc, xml_same_as_synthetic);
	tcase_add_test(tc, xml_restricted);
	tcase_add_test(tc, bad_sources);
	tcase_add_test(tc, reactor);
	tcase_add_test(tc, names);
	tcase_add_test(tc, instances);
	suite_add_tcase(s, tc);

	tc = tcase_create("runtime");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, runtime_victims);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int rc;

	unsetenv("ACTORS_BIND");
	unsetenv("ACTORS_CPUS");
	unsetenv("ACTORS_REACTOR_CPU");
	snprintf(base, sizeof(base), "/tmp/act_plan.XXXXXX");
	if (!mkdtemp(base))
		return EXIT_FAILURE;
	rc = tu_run_suite(plan_suite());
	nftw(base, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return rc;
}
