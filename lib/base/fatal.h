/* SPDX-License-Identifier: MIT */
/* fatal.h - the fatal-error path (fatal.c). */
#ifndef ACT_FATAL_H
#define ACT_FATAL_H

#include <stdint.h>

#include "internal.h"

/* Print "actors: <msg>" on stderr and abort. Never returns. */
act__noreturn void act__fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Async-signal-safe: write one line with write(2): a, s and b, n in
 * decimal, then c. */
void act__fatal_write_line(int fd, const char *a, const char *s, const char *b,
			   uint64_t n, const char *c);

#endif /* ACT_FATAL_H */
