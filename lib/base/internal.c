/* SPDX-License-Identifier: MIT */
/* internal.c - internal.h's functions: the fatal-error path, the spin
 * lock's slow path, the monotonic clock and an async-signal-safe line
 * writer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void act__fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("actors: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int64_t act__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define SPINS_BEFORE_YIELD 256

void act__spin_lock_slow(_Atomic uint32_t *l)
{
	unsigned spins = 0;

	do {
		while (atomic_load_explicit(l, memory_order_relaxed)) {
			if (++spins < SPINS_BEFORE_YIELD) {
				act__cpu_relax();
			} else {
				spins = 0;
				sched_yield();
			}
		}
		/* acquire: pairs with the release store in act__spin_unlock */
	} while (atomic_exchange_explicit(l, 1, memory_order_acquire));
}

static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
	while (s && *s && at < cap)
		buf[at++] = *s++;
	return at;
}

static size_t put_u64(char *buf, size_t at, size_t cap, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && at < cap)
		buf[at++] = tmp[--n];
	return at;
}

void act__write_line(int fd, const char *a, uint64_t n1, const char *b,
		     uint64_t n2, const char *c)
{
	char buf[256];
	size_t at = 0, cap = sizeof(buf) - 1;
	ssize_t rc;

	at = put_str(buf, at, cap, a);
	at = put_u64(buf, at, cap, n1);
	at = put_str(buf, at, cap, b);
	at = put_u64(buf, at, cap, n2);
	at = put_str(buf, at, cap, c);
	buf[at++] = '\n';
	rc = write(fd, buf, at);
	(void)rc;
}
