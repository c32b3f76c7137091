/* SPDX-License-Identifier: MIT */
/* clock.c - the tick source and its calibration (clock.h). */
#include "clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool act__clock_cpu_ticks;
static bool chosen;

void act__clock_ticks_init(void)
{
	if (chosen)
		return;
#if defined(__x86_64__)
	{
		unsigned a, b, c, d;

		/* CPUID 0x80000007 EDX bit 8: the TSC is invariant (runs at
		 * one rate in every P-, C- and T-state; Linux's nonstop_tsc) */
		if (__get_cpuid(0x80000000, &a, &b, &c, &d) &&
		    a >= 0x80000007 &&
		    __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
			act__clock_cpu_ticks = true;
	}
#elif defined(__aarch64__)
	act__clock_cpu_ticks = true; /* the architecture's constant counter */
#endif
	chosen = true;
}

const char *act__clock_ticks_name(void)
{
	if (!act__clock_cpu_ticks)
		return "clock";
#if defined(__x86_64__)
	return "tsc";
#else
	return "cntvct";
#endif
}

double act__clock_cal_ratio(const struct act__clock_cal *c)
{
	uint64_t t = act__clock_ticks();
	int64_t ns = act__clock_now();

	if (!act__clock_cpu_ticks || t <= c->t0 || ns <= c->ns0)
		return 1.0;
	return (double)(ns - c->ns0) / (double)(t - c->t0);
}
