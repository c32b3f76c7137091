/* SPDX-License-Identifier: MIT */
/* stats.h - the ACTORS_STATS table (act_stats is public). */
#ifndef ACT_STATS_H
#define ACT_STATS_H

#include <stdio.h>

struct act__rt;

/* Print the runtime's figures and one line per worker. */
void act__stats_print(const struct act__rt *rt, FILE *f);

#endif /* ACT_STATS_H */
