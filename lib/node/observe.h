/* SPDX-License-Identifier: MIT */
/*
 * observe.h - what the runtime shows of itself while it runs
 * (doc/observability.md): the execution trace (ACTORS_TRACE), the
 * interval lines (ACTORS_STATS=INTERVAL), the long-schedule reports
 * (ACTORS_LONG_SCHEDULE), and the time accounting behind act_stats. All
 * of it is off, and costs a predictable branch, unless asked for.
 */
#ifndef ACT_OBSERVE_H
#define ACT_OBSERVE_H

#include <stdint.h>

struct act__rt;
struct act__settings;
struct act_stats;
struct act_worker_stats;

/* After the workers are built, before the reactor starts: set up what
 * s asks for. 0, -ENOMEM. */
int act__observe_start(struct act__rt *rt, const struct act__settings *s);
/* After the reactor has stopped: write the trace, free everything. */
void act__observe_stop(struct act__rt *rt);

/* The symbol that starts exactly at fn, or NULL: a function the
 * executable does not export (link it with -rdynamic to have its name);
 * never the nearest symbol before it, which names another function. */
const char *act__observe_symbol(uintptr_t fn);

/* Time accounting, in nanoseconds, for act_stats (any thread). */
void act__observe_worker_times(struct act__rt *rt, uint32_t i,
			       struct act_worker_stats *ws);
void act__observe_rt_times(struct act__rt *rt, struct act_stats *s);

#endif /* ACT_OBSERVE_H */
