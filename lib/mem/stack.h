/* SPDX-License-Identifier: MIT */
/*
 * stack.h - process stacks: mmap'd in chunks of many stacks, a 64 KiB guard
 * below each, reused through a per-worker cache.
 *
 * Guards: MADV_GUARD_INSTALL for a whole chunk in one process_madvise()
 * call (guards do not split the mapping, so a million stacks stay a few
 * thousand VMAs); else mprotect(PROT_NONE) per guard while under half of
 * vm.max_map_count; else canary words at the stack's low end, checked at
 * every switch back to the worker. Only unguarded stacks get a canary, so
 * a guarded stack touches no page at its low end until it grows there.
 *
 * Homes (lib/affinity/homes.h): a cache carves chunks from its worker's home
 * node, and every stack remembers its home. A stack freed by a worker of
 * another home (its process was stolen across nodes and exited there)
 * goes back to its own home's shared list, a batch at a time, instead of
 * into the freeing worker's cache.
 *
 * Memory: a worker's cache keeps up to STACK_CACHE_MAX free stacks of a
 * size warm (their pages resident, ready); what a burst of exits frees
 * past that waits on the home's shared list, and a worker of that home
 * with nothing to run gives those stacks' pages back to the system
 * (act__stack_trim, MADV_DONTNEED), keeping them, cold, for the next
 * spawns, which fault in what they touch. Without it, 4,000 connections
 * of kv_server left 16 MiB of stack pages resident for good.
 */
#ifndef ACT_STACK_H
#define ACT_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The guard below each stack: 64 KiB, so that a frame of up to 64 KiB
 * that jumps past the stack's end (a large local array, or a kernel write
 * into one) lands in it instead of in the next stack down. Guards cost
 * address space, not memory. Frames larger than that need the compiler's
 * probes (-fstack-clash-protection, with which the library is built) to
 * be caught: act_spawn(3) says so.
 */
#define ACT_GUARD_SIZE 65536u

struct act__numa;
struct act__stack_cold; /* a block of cold stacks (stack.c) */

struct act__stack_chunk {
	void *base;
	size_t len;
};

/* Free stacks of one size and one home, held by one worker. A pool of
 * another home than its cache's only gathers stacks on their way back. */
struct act__stack_pool {
	size_t size;	/* usable bytes */
	int home;	/* of every stack on it (homes.h) */
	void *free_top; /* free list, linked through each stack's top word */
	uint32_t n_free;
	char *bump, *bump_end; /* next unused unit in the newest chunk */
	uint32_t guarded_left; /* units from bump on that have a guard */
	bool no_spill;	       /* no shared list for this size (stack.c) */
	struct act__stack_cold *cold; /* cold stacks taken before carving */
	struct act__stack_chunk *chunks;
	uint32_t n_chunks, cap_chunks;
};

struct act__stack_cache {
	struct act__stack_pool *pools;
	uint32_t n_pools;
	uint32_t n_away;	/* stacks held for other homes */
	int home;		/* memory home: new chunks, refills (homes.h) */
	struct act__numa *numa; /* binds new chunks; NULL: unbound */
	uint64_t n_out;		/* stacks handed out, not yet returned */
};

/* vm.max_map_count, or its default 65530 when it cannot be read. */
long act__stack_read_max_map_count(void);

/* Guard mode decided once at start-up (enum act_guard, never AUTO).
 * test_budget: ACT_TEST_GUARD_BUDGET's mprotect guards (settings/
 * vars.h), the tests' smaller budget; 0: a quarter of the map count. */
int act__stack_global_init(int requested_guard, uint32_t test_budget);
void act__stack_global_fini(void);
int act__stack_guard_mode(void);
/* For tests: guards mprotect may still make (ACT_GUARD_MPROTECT). */
long act__stack_mprotect_budget(void);

/* lo: lowest usable byte; the guard page sits just below it. */
int act__stack_get(struct act__stack_cache *c, size_t size, void **lo,
		   bool *canary);
/* Where the process's frames start (the cache keeps 16 bytes on top). */
void *act__stack_hi(void *lo, size_t size);
/* Any worker's cache: lo goes back to its own home, by way of c's pool
 * for that home, a batch at a time (struct act__stack_pool). */
void act__stack_put(struct act__stack_cache *c, void *lo, size_t size);
void act__stack_cache_destroy(struct act__stack_cache *c);
/* Carve from home's node; before the cache is first used. A cache never
 * set is home 0, unbound. */
void act__stack_cache_set_home(struct act__stack_cache *c,
			       struct act__numa *numa, int home);
/* Owner of c: hand the stacks held for other homes to their homes'
 * shared lists, and, after a chunk could not be mapped (no memory), its
 * own free stacks to its home's. Call before the worker sleeps and before
 * it stops. */
void act__stack_flush_away(struct act__stack_cache *c);
/*
 * Owner of c, with nothing to run: up to max free stacks of c's home's
 * shared list give their pages back (madvise MADV_DONTNEED) and stay
 * there, cold. False when there were none (nothing done); the caller
 * looks for work between two calls.
 */
bool act__stack_trim(struct act__stack_cache *c, uint32_t max);
/* Tests only (NULL otherwise): called by act__stack_trim while the
 * stacks it cut off a list are on none, before their pages go
 * (tests/regress/91784d0-famine-spawn-during-trim.c). */
extern void (*act__stack_trim_hook)(void);
/* a batch: 0.5 ms of madvise in this VM (stack.c release) */
#define ACT_STACK_TRIM_MAX 128u
/* The home a stack came from. */
int act__stack_home(const void *lo, size_t size);
/* For tests: free stacks of `size` on home's shared list, warm and cold,
 * and in *strangers (may be NULL) how many of them came from another
 * home; under the home's lock. */
uint32_t act__stack_shared_n(int home, size_t size, uint32_t *strangers);
/* For tests: the cold ones of those (their pages given back). */
uint32_t act__stack_shared_cold_n(int home, size_t size);
/* Tests: is the stack at lo on home's shared list of its size? */
bool act__stack_shared_has(int home, size_t size, const void *lo);
/* For tests, owner of c: stacks in c's own-home pools from another home. */
uint32_t act__stack_cache_strangers(const struct act__stack_cache *c);

/* Canary at the low end of an unguarded stack, checked by the worker. */
bool act__stack_canary_ok(const void *lo);

#endif /* ACT_STACK_H */
