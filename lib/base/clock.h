/* SPDX-License-Identifier: MIT */
/* clock.h - the monotonic clock of the timers and the idle search. */
#ifndef ACT_CLOCK_H
#define ACT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds (a vDSO call: no system call). */
static inline int64_t act__clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* ACT_CLOCK_H */
