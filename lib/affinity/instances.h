/* SPDX-License-Identifier: MIT */
/*
 * instances.h - several runtimes on one host (`actors topo --instances
 * N`, doc/topology.md "Several instances"): the usable cores of a
 * topology split into N sets, one per runtime, along NUMA nodes first,
 * then shared caches, then cores; no core in two sets.
 *
 * The split (instances.c) is a pure function of the topology, so a split
 * for another machine is printed and tested here. Each level (node,
 * cache, core: the cores' keys in topology order) is cut the same way:
 * with no more instances than groups at that level, the groups are cut
 * into N runs of whole groups, as even in cores as runs allow; with more,
 * every group gets one instance and the rest go to the groups with the
 * most cores per instance (D'Hondt's rule), and each group is split one
 * level down. So four instances on two nodes of two L3 caches each get a
 * cache each, and three get a node, half a node and half a node.
 */
#ifndef ACT_INSTANCES_H
#define ACT_INSTANCES_H

#include <stddef.h>

#include "topology.h"

/* One instance's share: its CPUs as a list for ACTORS_CPUS, and what
 * they are. */
struct act__instance {
	char *cpus;  /* "0-7,64-71": the usable CPUs of its cores */
	char *nodes; /* the NUMA nodes they are on, "0" or "0-1"; "" when
		      * unknown */
	int ncores, npus;
};

/*
 * Split t's usable cores among n instances into out[0..n-1], in topology
 * order. 0; -EINVAL with a one-line reason in why when n is below 1 or
 * above the usable cores; -ENOMEM.
 */
int act__instances_split(const struct act__topo *t, int n,
			 struct act__instance *out, char *why, size_t why_len);
void act__instances_free(struct act__instance *in, int n);

#endif /* ACT_INSTANCES_H */
