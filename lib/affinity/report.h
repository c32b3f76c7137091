/* SPDX-License-Identifier: MIT */
/* report.h - `actors topo`'s report of a plan (report.c). */
#ifndef ACT_REPORT_H
#define ACT_REPORT_H

#include <stdio.h>

#include "plan.h"

/* `actors topo`: the topology, the usable set and the plan, as text or
 * JSON (doc/topology.md); flags are ACT_REPORT_*. 0 or -ENOMEM. */
#define ACT_REPORT_JSON 1u /* one JSON object instead of text */
/* every worker's steal order, not only worker 0's */
#define ACT_REPORT_STEAL_ALL 2u
int act__report_print(FILE *f, const struct act__topo *t,
		      const struct act__plan *pl, unsigned flags);
/* The same, with a section of key/value lines after the plan (text), or
 * a "paths" object of them (JSON): `actors topo`'s kernel paths. */
struct act__report_kv {
	const char *key, *value;
};
int act__report_print_kv(FILE *f, const struct act__topo *t,
			 const struct act__plan *pl, unsigned flags,
			 const struct act__report_kv *extra, int nextra);

#endif /* ACT_REPORT_H */
