/* SPDX-License-Identifier: MIT */
/*
 * registry.h - registered names (registry.c): a hash table of the
 * runtime's (struct act__registry, sched/rt.h) under a spinlock;
 * act_register, act_unregister and act_whereis are the public side.
 */
#ifndef ACT_REGISTRY_H
#define ACT_REGISTRY_H

#include <stddef.h>

#include "actors.h"

struct act__proc;
struct act__rt;

void act__registry_init(struct act__rt *rt);
void act__registry_destroy(struct act__rt *rt);
/* p is EXITING: its name, if it has one, is free again. */
void act__registry_exit(struct act__rt *rt, struct act__proc *p);
/* pid's registered name into buf (len > 0), "" when it has none or is
 * gone (any thread; under the slot's lock). */
void act__registry_name_of(struct act__rt *rt, act_pid pid, char *buf,
			   size_t len);

/* Under p's lock (act__proc_lock): its registered name into buf (len
 * bytes, at least 1), cut to fit; "" when it has none. */
void act__registry_name_copy(const struct act__proc *p, char *buf,
			     unsigned long len);

#endif /* ACT_REGISTRY_H */
