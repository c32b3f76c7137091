/* SPDX-License-Identifier: MIT */
/*
 * blocking.h - act_blocking's pool of threads (blocking.c): act_main
 * starts it empty and stops it; act_blocking (actors.h) is the process's
 * side. doc/design/blocking.md has the design.
 */
#ifndef ACT_BLOCKING_H
#define ACT_BLOCKING_H

#include <stdint.h>

struct act__rt;

/* The wait_op (proc.h) of a process in act_blocking: no IORING_OP_*. */
#define ACT_IO_WAIT_BLOCKING 0xffu

/* How long an idle pool thread waits for work before it exits. */
#define ACT_BLOCKING_IDLE_NS (10 * 1000000000LL)

/* The idle time in use: ACT_BLOCKING_IDLE_NS unless a test set another
 * before act_main. */
extern int64_t act__blocking_idle_ns;

/* act_main, before the first process: an empty pool of at most cap
 * threads, whose threads run on rt's usable CPUs. 0 or -errno. */
int act__blocking_start(struct act__rt *rt, uint32_t cap);

/*
 * act_main, once every worker has stopped: functions that run are waited
 * for, those queued and not begun are dropped (their processes are gone
 * with the runtime), and every pool thread is joined.
 */
void act__blocking_stop(void);

/* Counts for tests and statistics: threads alive now, the most alive at
 * once, and the calls that ran since act_main started. */
struct act__blocking_counts {
	uint32_t threads, peak;
	uint64_t calls;
};
void act__blocking_counts(struct act__blocking_counts *c);

#endif /* ACT_BLOCKING_H */
