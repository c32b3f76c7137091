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

#include <stdbool.h>
#include <stdint.h>

#include "actors.h"

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

/* A node's name's room: "alive@host", 255 bytes at most, and its NUL */
#define ACT__ROUTE_NAME_SIZE 256

/*
 * One node of the distribution as the observers show it (act_dump, the
 * interval lines, the trace's names): its connection's counters
 * (lib/dist/peers.h), since the runtime began and across reconnections,
 * each read relaxed: a snapshot, not one instant.
 */
struct act__route_figures {
	uint64_t msgs_in, msgs_out;   /* frames, not the ticks */
	uint64_t bytes_in, bytes_out; /* theirs; ticks in, not out */
	uint64_t reads, writes;	      /* the socket's, that moved them */
	uint32_t tick_misses;	      /* silent past net_ticktime: down */
	bool up;		      /* the handshake done, not gone since */
	act_pid proxy;		      /* its connection process; or none */
	char name[ACT__ROUTE_NAME_SIZE]; /* alive@host */
	/* its reader's waits for a batch (dist/linger.h): the reads after
	 * one, the trials of waiting and those kept */
	uint64_t lingers;
	uint32_t linger_trials, linger_kept;
};

/*
 * Node num (1 is this node, the others numbered as met): true with *f
 * filled, false past the last one or before distribution started.
 * Defined in lib/dist/route.c, a layer above (the list `hooks` of
 * scripts/check-layers.sh). Any thread while rt runs (counted in by
 * act__rt_enter, or one of its own), and its stop until
 * act__route_stop: nodes are never freed before.
 */
bool act__route_figures(struct act__rt *rt, uint32_t num,
			struct act__route_figures *f);

#endif /* ACT_OBSERVE_H */
