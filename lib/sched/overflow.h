/* SPDX-License-Identifier: MIT */
/*
 * overflow.h - stack overflow reporting.
 *
 * A SIGSEGV handler, run on a per-thread alternate signal stack, checks
 * whether the faulting address lies in the guard below the stack of the
 * process that the faulting thread is running. If so it writes one line
 * naming the pid and the stack size and exits with status 134. Otherwise
 * it hands the signal on, and stays installed: to the handler that was
 * there before (the program's own, called as the kernel would), else to
 * the default action (a fault repeats and kills as it would have without
 * us; a SIGSEGV sent with kill or raise is sent again).
 */
#ifndef ACT_OVERFLOW_H
#define ACT_OVERFLOW_H

#include <stdint.h>

#include "actors.h"

#define ACT_OVERFLOW_STATUS 134

int act__overflow_init(void);
void act__overflow_fini(void);
int act__overflow_thread_init(void);
void act__overflow_thread_fini(void);
/* Report an overflow found by the canary check and exit 134. */
__attribute__((noreturn)) void act__overflow_report(act_pid pid, uint64_t size);

#endif /* ACT_OVERFLOW_H */
