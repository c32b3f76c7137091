/* SPDX-License-Identifier: MIT */
/*
 * runtime.h - building and tearing down the runtime (act_main), and what
 * its teardown found (I9). The shared state itself is sched/rt.h's.
 */
#ifndef ACT_RUNTIME_H
#define ACT_RUNTIME_H

#include <stdint.h>

#include "sched/rt.h"

/* Leak figures of the last runtime, filled by its teardown (I9). */
struct act__leaks {
	int64_t procs, stacks, envelopes;
};
extern struct act__leaks act__last_leaks;

#endif /* ACT_RUNTIME_H */
