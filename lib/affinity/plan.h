/* SPDX-License-Identifier: MIT */
/*
 * plan.h - the placement plan: how many workers, where each is bound,
 * where the reactor goes, and the order in which each worker looks at the
 * others for work to steal. A pure function of a topology (topology.h)
 * and the settings, so that plans for other machines can be printed by
 * `actors topo` and checked in tests; the runtime applies it (pinning,
 * memory homes, steal order).
 *
 * Policies (enum act_bind, ACTORS_BIND):
 *   none     workers are not bound to a CPU (when ACTORS_CPUS narrows the
 *            usable set, each is kept within it); one steal level
 *   core     one worker per core, cores in topology order (default)
 *   pu       one worker per hardware thread, in topology order
 *   spread   cores taken across packages first, then across the NUMA
 *            nodes of a package, then in order within a node
 *   compact  a package is filled, hardware threads included, before the
 *            next one is used
 *   numa     each worker is bound to the usable CPUs of a node (not to
 *            one CPU); nodes filled like core
 * Under core, spread and compact, workers beyond the cores go to second
 * hardware threads, in the same order. With more workers than usable
 * CPUs no worker is bound (each is kept within the usable set), since
 * pinned workers that share a CPU cannot be balanced; the plan carries a
 * note that says so (printed once at start-up).
 */
#ifndef ACT_PLAN_H
#define ACT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <stdatomic.h>

#include "topology.h"

/* The most workers a default count gives (the runtime's limit). */
#define ACT_PLAN_MAX_WORKERS 1024

/* Steal levels, nearest first. */
enum {
	ACT_STEAL_SMT,	  /* same core (SMT sibling, or the same CPU) */
	ACT_STEAL_CACHE,  /* a cache shared with another core */
	ACT_STEAL_NODE,	  /* the same NUMA node */
	ACT_STEAL_REMOTE, /* another node; all others when not bound */
	ACT_STEAL_LEVELS
};

struct act__plan_in {
	int schedulers; /* 0: the default count */
	int bind;	/* enum act_bind, ACT_BIND_NONE..ACT_BIND_NUMA */
	int reactor;	/* -1: auto, -2: not pinned, -3: inline (worker 0
			 * runs it: one worker only), else a CPU the
			 * process may use (in t->allowed; it need not be
			 * in the workers' usable set) */
};

struct act__plan_worker {
	struct hwloc_bitmap_s *set; /* CPUs it is bound to; NULL: not bound
				     * (none: the usable set when narrowed) */
	int cpu;		    /* the OS CPU when bound to one, else -1 */
	int pu;			    /* its place in topo->pus (numa: the core it
				     * stands for); -1 when not bound */
	int node;	   /* OS NUMA node, -1 when not bound or unknown */
	uint16_t *victims; /* the other workers, nearest level first,
			    * by index within a level */
	uint16_t level_end[ACT_STEAL_LEVELS]; /* level l is victims
					       * [level_end[l-1],
					       *  level_end[l]) */
};

struct act__plan {
	int bind;
	bool unbound; /* no worker bound to a CPU or node: bind
		       * none, or more workers than usable CPUs */
	int nworkers;
	int default_workers; /* what 0 schedulers gives */
	char count_why[160]; /* how default_workers was found */
	struct act__plan_worker *w;
	int reactor_cpu;     /* -1: not pinned */
	bool reactor_inline; /* no thread: worker 0 runs it (reactor_cpu
			      * -1) */
	bool reactor_lone;   /* inline because auto found one worker and
			      * no CPU beside it (lone_cpu) */
	char note[200];	     /* more workers than CPUs; "" when not */
};

/* 0, or -EINVAL (a reactor CPU outside the allowed set) / -ENOMEM with a
 * one-line reason in why. */
int act__plan_make(struct act__plan *pl, const struct act__topo *t,
		   const struct act__plan_in *in, char *why, size_t why_len);
void act__plan_free(struct act__plan *pl);

/* The OS CPUs pl's threads run on (a bound worker's set, the reactor's
 * CPU; the usable set for a thread not bound), ascending: their count,
 * the first max of them in cpus; -ENOMEM. */
int act__plan_cpus(const struct act__plan *pl, const struct act__topo *t,
		   int *cpus, int max);

/* "none", "core", ... for an enum act_bind value; NULL when out of range. */
const char *act__plan_bind_name(int bind);
/* The enum act_bind of a name, or -1. */
int act__plan_bind_parse(const char *s);
const char *act__plan_steal_level_name(int level, bool bound);

struct act_config;

/*
 * What act_main and `actors topo` both do: take bind, reactor_cpu and
 * cpus from cfg's fields, else from ACTORS_BIND, ACTORS_REACTOR_CPU and
 * ACTORS_CPUS; load the topology of src (NULL: this machine) and make the
 * plan for cfg->schedulers workers (resolved already; 0: the default).
 * On a bad value prints one line on stderr naming the variable (or
 * field), the value and the accepted forms, and returns -EINVAL.
 */
int act__plan_resolve(const struct act_config *cfg,
		      const struct act__topo_src *src, struct act__topo *t,
		      struct act__plan *pl);

/*
 * Bind the calling thread to set (a plan's worker or reactor CPUs).
 * 0 or a negative errno. ACT_TEST_PIN=fail (t->test_pin_fail, from
 * act__plan_resolve) makes it fail with -EINVAL (the test of the
 * runtime's "report once, go on unbound").
 */
int act__plan_pin_self(const struct act__topo *t,
		       const struct hwloc_bitmap_s *set);

/*
 * The runtime's threads: bind the calling thread to set for `who`
 * ("worker", index 3; "the reactor", index -1) when the topology is this
 * machine's (t->thissystem). A failure is said once on stderr for all
 * the threads that share *failed (the runtime's), and the thread runs
 * unbound.
 */
void act__plan_pin_thread(const struct act__topo *t, _Atomic int *failed,
			  const struct hwloc_bitmap_s *set, const char *who,
			  int index);
/* The same for the one OS CPU cpu. */
void act__plan_pin_thread_cpu(const struct act__topo *t, _Atomic int *failed,
			      int cpu, const char *who);

/*
 * The calling thread's binding, to be put back: NULL when the topology
 * is not this machine's or the binding cannot be read. act__plan_binding_put
 * binds the thread to it again (unless `rebind` is false) and frees it;
 * NULL does nothing.
 */
struct hwloc_bitmap_s *act__plan_binding_get(const struct act__topo *t);
void act__plan_binding_put(const struct act__topo *t, struct hwloc_bitmap_s *b,
			   bool rebind);

#endif /* ACT_PLAN_H */
