/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the monotonic clock of the timers and the idle search, and
 * the tick counter of the observers (the trace, timed turns).
 *
 * Ticks: the CPU's own counter where it is constant and shared by every
 * core (x86-64's TSC when CPUID says invariant, aarch64's virtual
 * counter), read in a few nanoseconds with no system call; else the
 * monotonic clock's nanoseconds. act__clock_ticks_init picks once, before
 * any worker runs; a calibration (struct act__clock_cal) turns ticks into
 * nanoseconds.
 */
#ifndef ACT_CLOCK_H
#define ACT_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal.h"
#include "systematic.h"

/* CLOCK_MONOTONIC in nanoseconds (a vDSO call: no system call); in a
 * systematic run, its logical clock (systematic.h). */
static inline int64_t act__clock_now(void)
{
	struct timespec ts;

#if ACT_SYSTEMATIC
	if (__atomic_load_n(&act__systematic_on, __ATOMIC_RELAXED))
		return act__systematic_now();
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The counter act__clock_ticks reads: true, the CPU's; false, the clock. */
extern bool act__clock_cpu_ticks;

/* Choose the tick source (any thread, once; later calls keep it). */
void act__clock_ticks_init(void);
/* "tsc", "cntvct" or "clock": what ticks are, for the trace's header. */
const char *act__clock_ticks_name(void);

static inline uint64_t act__clock_ticks(void)
{
#if ACT_SYSTEMATIC
	if (__atomic_load_n(&act__systematic_on, __ATOMIC_RELAXED))
		return (uint64_t)act__systematic_now();
#endif
#if defined(__x86_64__)
	if (act__clock_cpu_ticks)
		return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	if (act__clock_cpu_ticks) {
		uint64_t v;

		__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	return (uint64_t)act__clock_now();
}

/*
 * Ticks to nanoseconds: both clocks read at a start; the ratio is taken
 * from there to the moment of the conversion, so it needs no shared
 * state and gets more exact as the run goes on (30 ns of clock jitter
 * over 1 ms is 0.003%).
 */
struct act__clock_cal {
	uint64_t t0;
	int64_t ns0;
};

static inline void act__clock_cal_start(struct act__clock_cal *c)
{
	c->t0 = act__clock_ticks();
	c->ns0 = act__clock_now();
}

/* Nanoseconds a tick is worth, measured from the start to now. */
double act__clock_cal_ratio(const struct act__clock_cal *c);

/* A span of ticks in nanoseconds, at ratio r. */
static inline int64_t act__clock_ticks_ns(uint64_t ticks, double r)
{
	return (int64_t)((double)ticks * r);
}

/*
 * Time accounting of a thread that is in one phase at a time (a worker:
 * busy, spinning, sleeping; the reactor: busy, sleeping), in clock
 * nanoseconds so that no tick ratio moves the totals. The owner moves it
 * at the edges of its phases (never per message); anyone reads it.
 */
enum { ACT_PHASE_BUSY = 0, ACT_PHASE_SPIN, ACT_PHASE_SLEEP, ACT_PHASES };

struct act__clock_phases {
	_Atomic uint64_t total[ACT_PHASES]; /* the phases that ended */
	/* the current one, start << 2 | phase, for readers; and the
	 * owner's copy */
	_Atomic uint64_t now;
	uint64_t own;
};

/* Owner: start in phase p at ns. */
static inline void act__clock_phase_start(struct act__clock_phases *ph,
					  unsigned p, int64_t ns)
{
	ph->own = (uint64_t)ns << 2 | p;
	/* relaxed: a snapshot for act__clock_phase_total */
	atomic_store_explicit(&ph->now, ph->own, memory_order_relaxed);
}

/* Owner: enter phase `next` at ns; the one left goes to its total. */
static inline void act__clock_phase_to(struct act__clock_phases *ph,
				       unsigned next, int64_t ns)
{
	uint64_t at = ph->own >> 2, t = (uint64_t)ns;

	act__count_n(&ph->total[ph->own & 3], t > at ? t - at : 0);
	act__clock_phase_start(ph, next, ns);
}

/*
 * Any thread: phase `which`'s total in ns, the phases that ended (it
 * only grows); with now (clock ns, not 0) the current one too if it is
 * `which` (read without a lock: a phase that ends between the two loads
 * is counted twice or not at all, for that one reading).
 */
static inline uint64_t act__clock_phase_total(struct act__clock_phases *ph,
					      unsigned which, uint64_t now)
{
	/* relaxed: figures, not decisions (act__clock_phase_to's stores) */
	uint64_t t =
		atomic_load_explicit(&ph->total[which], memory_order_relaxed);
	uint64_t cur = atomic_load_explicit(&ph->now, memory_order_relaxed);

	if (now && (cur & 3) == which && now > cur >> 2)
		t += now - (cur >> 2);
	return t;
}

#endif /* ACT_CLOCK_H */
