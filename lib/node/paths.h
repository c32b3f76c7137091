/* SPDX-License-Identifier: MIT */
/*
 * paths.h - the kernel paths the runtime took, in words: how idle workers
 * sleep, how the reactor is woken, what io_uring ring it has, how stacks
 * are guarded, where memory is placed. Each has a preferred path and
 * fallbacks (DESIGN.md section 6); an operator reading the ACTORS_STATS
 * header or `actors topo` sees which one this kernel, this container and
 * these settings gave, and why a fallback was taken.
 */
#ifndef ACT_PATHS_H
#define ACT_PATHS_H

#include <stdbool.h>
#include <stdio.h>

#include "settings/vars.h"

enum {
	ACT_PATH_PARK,	   /* futex_waitv, or FUTEX_WAIT and why */
	ACT_PATH_DOORBELL, /* the reactor's: in the ring, or FUTEX_WAIT */
	ACT_PATH_RING,	   /* setup flags and sizes, or none and why */
	ACT_PATH_GUARD,	   /* madvise, mprotect (budget), canary */
	ACT_PATH_NUMA,	   /* homes, bound or why not */
	ACT_PATHS
};

struct act__paths {
	char v[ACT_PATHS][192];
};

/* The key of path i ("park", "doorbell", ...). */
const char *act__paths_name(int i);

struct act__rt;
struct act__plan;

/* The paths a running runtime took. */
void act__paths_of(const struct act__rt *rt, struct act__paths *out);

/*
 * The paths a runtime would take here now, probed without one (`actors
 * topo`): a ring of ring_entries made and closed, the guard probe, the
 * futex_waitv probe, and the memory homes of plan's workers (simulated:
 * the plan is for a simulated machine), with the test switches a
 * runtime would take (test: ACT_TEST_RING and ACT_TEST_NUMA, resolved).
 * 0, or a negative errno when a probe could not run.
 */
int act__paths_probe(const struct act__plan *plan, bool simulated,
		     unsigned ring_entries, const struct act__tests *test,
		     struct act__paths *out);

/* "actors: park ...; doorbell ...; ..." for the ACTORS_STATS header. */
void act__paths_line(FILE *f, const struct act__paths *p);

#endif /* ACT_PATHS_H */
