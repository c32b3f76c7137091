/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the vocabulary of every file of the library: branch
 * hints, cache-line alignment, container_of, counters, the debug switch;
 * and, from the headers of their modules, the clock, the fatal-error
 * path and the spin lock. Nothing here knows about processes or workers.
 */
#ifndef ACT_INTERNAL_H
#define ACT_INTERNAL_H

#ifdef HAVE_CONFIG_H
#include "config.h" /* ACT_DEBUG from ./configure --enable-debug */
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>

#define ACT_CACHELINE 64
#define act__aligned __attribute__((aligned(ACT_CACHELINE)))
#define act__likely(x) __builtin_expect(!!(x), 1)
#define act__unlikely(x) __builtin_expect(!!(x), 0)
#define act__noinline __attribute__((noinline))
/* For the message path's few big functions with one hot caller each:
 * the call and its saved registers cost more than the copy. */
#define act__always_inline inline __attribute__((always_inline))
#define act__noreturn __attribute__((noreturn))

/* clang-format 14 reads "(ptr) -" and "(a) -" as casts: */
/* clang-format off */
#define act__container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define act__align_up(x, a) (((x) + (a) - 1) & ~((a) - 1))
/* clang-format on */

/* Owner-only counter that other threads may read: no locked add. */
#define act__count(c)                                                     \
	atomic_store_explicit(                                            \
		(c), atomic_load_explicit((c), memory_order_relaxed) + 1, \
		memory_order_relaxed)

/* The same, adding n. */
#define act__count_n(c, n)                                                  \
	atomic_store_explicit(                                              \
		(c), atomic_load_explicit((c), memory_order_relaxed) + (n), \
		memory_order_relaxed)

/* splitmix64's finaliser: xorshifts and multiplies, every bit mixed (a
 * hash of a word) */
static inline uint64_t act__internal_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* AddressSanitizer: give a region back clean (stacks reused after a
 * process left frames behind), or mark one that nothing may touch (a
 * stack in a cache, a free envelope's payload): ASan then reports a use
 * after free or an overflow inside the runtime's own allocators as it
 * does for malloc's. Nothing without ASan. */
#include "arch/asan.h"
#ifdef ACT_ASAN
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
void __asan_poison_memory_region(void const volatile *addr, size_t size);
#define act__asan_unpoison(p, n) __asan_unpoison_memory_region((p), (n))
#define act__asan_poison(p, n) __asan_poison_memory_region((p), (n))
#else
#define act__asan_unpoison(p, n) ((void)(p), (void)(n))
#define act__asan_poison(p, n) ((void)(p), (void)(n))
#endif

#ifdef ACT_DEBUG
#define ACT_DEBUG_ON 1
#else
#define ACT_DEBUG_ON 0
#endif

/* The functions every file uses, each in the header of its module. */
#include "clock.h"
#include "fatal.h"
#include "spin.h"

#endif /* ACT_INTERNAL_H */
