/* SPDX-License-Identifier: MIT */
/*
 * park.c - futex system calls behind the doorbell protocol of park.h.
 * FUTEX_WAIT on the doorbell word; the stop word is folded in by ringing
 * every doorbell at stop. (futex_waitv over {doorbell, stop} comes with
 * the multicore parking work.)
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "park.h"

void act__futex_wait(_Atomic uint32_t *word, uint32_t seen,
		     int64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;

	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tp = &ts;
	}
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, tp,
		NULL, 0);
}

void act__futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL,
		NULL, 0);
}
