/* SPDX-License-Identifier: MIT */
/*
 * internal.h - helpers shared by every file of the library: branch hints,
 * cache-line alignment, container_of, and the fatal-error path.
 * Nothing here knows about processes or workers.
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

#define act__container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define act__align_up(x, a) (((x) + (a) - 1) & ~((a) - 1))

/* Owner-only counter that other threads may read: no locked add. */
#define act__count(c)                                                     \
	atomic_store_explicit((c),                                        \
			      atomic_load_explicit((c), memory_order_relaxed) + 1, \
			      memory_order_relaxed)

/* The same, adding n. */
#define act__count_n(c, n)                                                \
	atomic_store_explicit((c),                                        \
			      atomic_load_explicit((c), memory_order_relaxed) + (n), \
			      memory_order_relaxed)

/* AddressSanitizer: give a region back clean (stacks reused after a
 * process left frames behind). Nothing without ASan. */
#if defined(__SANITIZE_ADDRESS__)
#define ACT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACT_ASAN 1
#endif
#endif
#ifdef ACT_ASAN
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define act__asan_unpoison(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define act__asan_unpoison(p, n) ((void)(p), (void)(n))
#endif

/* Spin-wait hint. */
static inline void act__cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/*
 * A spinlock for critical sections of a few loads and stores. After a
 * while it yields the CPU, so a holder preempted by the kernel (more
 * threads than cores) is not spun against for a whole time slice.
 */
void act__spin_lock_slow(_Atomic uint32_t *l);

/* CLOCK_MONOTONIC in nanoseconds (the timers' and the idle search's). */
int64_t act__now_ns(void);

static inline void act__spin_lock(_Atomic uint32_t *l)
{
	/* acquire: pairs with the release store in act__spin_unlock */
	if (act__likely(!atomic_exchange_explicit(l, 1, memory_order_acquire)))
		return;
	act__spin_lock_slow(l);
}

static inline void act__spin_unlock(_Atomic uint32_t *l)
{
	/* release: pairs with the acquire exchange in act__spin_lock */
	atomic_store_explicit(l, 0, memory_order_release);
}

#ifdef ACT_DEBUG
#define ACT_DEBUG_ON 1
#else
#define ACT_DEBUG_ON 0
#endif

/* Print "actors: <msg>" on stderr and abort. Never returns. */
act__noreturn void act__fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Async-signal-safe: format and write one line with write(2). */
void act__write_line(int fd, const char *a, uint64_t n1, const char *b,
		     uint64_t n2, const char *c);

#endif /* ACT_INTERNAL_H */
