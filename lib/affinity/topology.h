/* SPDX-License-Identifier: MIT */
/*
 * topology.h - the machine as the runtime sees it: every processing unit
 * (PU, a hardware thread) with its core, shared cache, NUMA node and
 * package, and the set of PUs the runtime may use.
 *
 * hwloc discovers it: from this machine (loaded once per OS process and
 * kept: a load reads /sys for 10-25 ms), or from an hwloc synthetic
 * description or XML file, so that a plan for another machine can be made
 * and tested here. The usable set is the topology's allowed CPUs (hwloc
 * drops those of other cgroup cpusets), intersected, for this machine,
 * with the calling thread's affinity mask, for a simulated cgroup with its
 * cpuset.cpus.effective, and with ACTORS_CPUS / act_config.cpus.
 */
#ifndef ACT_TOPOLOGY_H
#define ACT_TOPOLOGY_H

/* hwloc's types, declared so that includers need not see <hwloc.h>:
 * only lib/affinity/ does (scripts/check-layers.sh). */
struct hwloc_topology;
struct hwloc_bitmap_s;

#include <stdbool.h>
#include <stddef.h>

struct act__pu {
	int os;	     /* OS CPU number */
	int core;    /* index of its core, in topology order */
	int cache;   /* index of the smallest cache it shares with another
		      * core; -1 when it shares none */
	int node;    /* OS index of its NUMA node; -1 when unknown */
	int package; /* index of its package */
	bool usable; /* in the usable set */
};

struct act__topo {
	struct hwloc_topology *hw; /* hwloc_topology_t: owned unless it is
				    * the shared one */
	bool shared;		   /* this machine's cached topology */
	bool thissystem;	   /* plans can be applied (pinning) */
	bool flat;	    /* hwloc failed on this machine: a stand-in of
			   * one core per CPU, nothing bound */
	bool simulated;	    /* ACT_TEST_TOPOLOGY stands for this machine:
			   * nothing bound, no quota, NUMA homes kept
			   * without mbind */
	bool test_pin_fail; /* ACT_TEST_PIN=fail: act__plan_pin_self fails
			     * (set by act__plan_resolve) */
	char source[256];   /* "this machine", "synthetic ...", "xml ..." */
	int npus, ncores, ncaches, nnodes, npackages;
	struct act__pu *pus; /* npus, in topology (hwloc logical) order */
	struct hwloc_bitmap_s *usable;	/* OS CPUs the runtime may use */
	struct hwloc_bitmap_s *allowed; /* before ACTORS_CPUS */
	double quota;			/* cgroup CPU quota in CPUs; 0: none */
	int nusable_pus, nusable_cores;
};

/* Where a topology comes from. All NULL: this machine. */
struct act__topo_src {
	const char *synthetic; /* hwloc synthetic description */
	const char *xml;       /* hwloc XML file */
	const char *cgroup;    /* a directory standing for the process's
				* cgroup (cpu.max, cpuset.cpus.effective);
				* NULL: the real one for this machine, none
				* for the others */
};

/*
 * Load the topology and apply the restrictions, with cpus (a CPU list,
 * NULL: none) as ACTORS_CPUS. On error returns -EINVAL (or -ENOMEM) and
 * writes a one-line reason (without "actors: ") to why.
 */
int act__topology_load(struct act__topo *t, const struct act__topo_src *src,
		       const char *cpus, const char *cpus_name, char *why,
		       size_t why_len);
void act__topology_free(struct act__topo *t);

/*
 * hwloc 2.9 trusts an XML file's structure: a damaged or hand-made one
 * can crash its importer (the 21 bytes `<topologyversion="2.0` do;
 * tests/fuzz/fuzz_topo found it). `actors topo --xml` loads the file in
 * a child process first, with this: 0 when it loads there (or no child
 * could be made), 1 when hwloc refuses it there (its load will say so),
 * -EINVAL with a one-line reason in why when the child crashed. Forks:
 * for the tool and the fuzz target, never on act_main's path.
 */
int act__topology_xml_probe(const char *path, char *why, size_t why_len);

/* The PU of OS CPU cpu, or NULL. */
const struct act__pu *act__topology_pu(const struct act__topo *t, int cpu);

#endif /* ACT_TOPOLOGY_H */
