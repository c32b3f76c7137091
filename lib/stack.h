/* SPDX-License-Identifier: MIT */
/*
 * stack.h - process stacks: mmap'd in chunks of many stacks, one guard page
 * below each, reused through a per-worker cache.
 *
 * Guards: MADV_GUARD_INSTALL for a whole chunk in one process_madvise()
 * call (guards do not split the mapping, so a million stacks stay a few
 * thousand VMAs); else mprotect(PROT_NONE) per guard while under half of
 * vm.max_map_count; else canary words at the stack's low end, checked at
 * every switch back to the worker. Only unguarded stacks get a canary, so
 * a guarded stack touches no page at its low end until it grows there.
 */
#ifndef ACT_STACK_H
#define ACT_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACT_GUARD_SIZE 4096u

struct act__stack_chunk {
	void *base;
	size_t len;
};

/* Free stacks of one size, owned by one worker. */
struct act__stack_pool {
	size_t size;          /* usable bytes */
	void *free_top;       /* free list, linked through each stack's top word */
	uint32_t n_free;
	char *bump, *bump_end; /* next unused unit in the newest chunk */
	uint32_t guarded_left; /* units from bump on that have a guard */
	bool no_spill;        /* no shared list for this size (stack.c) */
	struct act__stack_chunk *chunks;
	uint32_t n_chunks, cap_chunks;
};

struct act__stack_cache {
	struct act__stack_pool *pools;
	uint32_t n_pools;
	uint64_t n_out;       /* stacks handed out, not yet returned */
};

/* vm.max_map_count, or its default 65530 when it cannot be read. */
long act__read_max_map_count(void);

/* Guard mode decided once at start-up (enum act_guard, never AUTO). */
int act__stack_global_init(int requested_guard);
void act__stack_global_fini(void);
int act__stack_guard_mode(void);

/* lo: lowest usable byte; the guard page sits just below it. */
int act__stack_get(struct act__stack_cache *c, size_t size, void **lo,
		   bool *canary);
/* Where the process's frames start (the cache keeps 16 bytes on top). */
void *act__stack_hi(void *lo, size_t size);
void act__stack_put(struct act__stack_cache *c, void *lo, size_t size);
void act__stack_cache_destroy(struct act__stack_cache *c);

/* Canary at the low end of an unguarded stack, checked by the worker. */
bool act__stack_canary_ok(const void *lo);

#endif /* ACT_STACK_H */
