/* SPDX-License-Identifier: MIT */
/*
 * reactor.h - the runtime's own thread for things that complete later:
 * for now receive timeouts (a deadline heap); the io_uring ring and the
 * timer wheel join it in later work. The reactor never runs a process: it
 * wakes one through act__wake with the wait's ticket (I4), which enqueues
 * it on its last worker.
 */
#ifndef ACT_REACTOR_H
#define ACT_REACTOR_H

#include <pthread.h>
#include <stdint.h>

#include "park.h"

struct act__rt;
struct act__proc;

struct act__timeout {
	int64_t deadline;                /* CLOCK_MONOTONIC ns */
	uint32_t index;                  /* slot */
	uint32_t gen;
	uint64_t ticket;
};

struct act__reactor {
	struct act__rt *rt;
	pthread_t thread;
	pthread_mutex_t lock;            /* guards heap, n, cap */
	struct act__timeout *heap;
	uint32_t n, cap, compact_at;
	int64_t next_deadline;           /* heap top as the thread sleeps */
	struct act__doorbell bell;
	_Atomic uint32_t stop;
	_Atomic uint64_t n_fired;        /* reactor writes, act_stats reads */
};

int act__reactor_start(struct act__reactor *r, struct act__rt *rt);
void act__reactor_stop(struct act__reactor *r);
/* Any worker: wake p's wait `ticket` at `deadline` unless it ends first. */
int act__reactor_arm_timeout(struct act__reactor *r, struct act__proc *p,
			     uint64_t ticket, int64_t deadline);
int64_t act__now_ns(void);

#endif /* ACT_REACTOR_H */
