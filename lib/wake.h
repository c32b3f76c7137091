/* SPDX-License-Identifier: MIT */
/*
 * wake.h - the one path by which a waiting process becomes runnable.
 *
 * Every wake source (a message, a timer, later I/O and exit signals) calls
 * act__wake. It CASes WAITING -> RUNNABLE; only the winner enqueues, on the
 * process's last worker (I1, I2). A ticketed wake (timer, I/O) succeeds
 * only for the wait it was armed for (I4); ticket 0 wakes any wait (a
 * message is relevant to whatever the process waits for).
 */
#ifndef ACT_WAKE_H
#define ACT_WAKE_H

#include <stdbool.h>
#include <stdint.h>

struct act__proc;

struct act__worker;

/* me: the caller's worker, or NULL (reactor, foreign thread). */
bool act__wake(struct act__worker *me, struct act__proc *p, uint64_t ticket);

#endif /* ACT_WAKE_H */
