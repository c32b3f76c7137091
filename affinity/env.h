/* SPDX-License-Identifier: MIT */
/*
 * env.h - parsing of ACTORS_* environment variables and config values.
 * A bad value is reported in one line on stderr that names the variable,
 * the value, and what is accepted; the caller then returns -EINVAL.
 */
#ifndef ACT_ENV_H
#define ACT_ENV_H

#include <stddef.h>
#include <stdint.h>

#define ACT_STACK_MIN ((size_t)16 << 10)
#define ACT_STACK_MAX ((size_t)1 << 30)

/* "64k", "1m", "65536": bytes with an optional k/m/g suffix. 0 or -EINVAL. */
int act__parse_size(const char *s, size_t *out);
/* A decimal integer in [min, max]. 0 or -EINVAL. */
int act__parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Read variable `name` as a stack size into *out when it is set and *out
 * is still 0. Returns 0, or -EINVAL after printing the one-line error.
 */
int act__env_stack_size(const char *name, size_t *out);
int act__env_uint(const char *name, uint64_t min, uint64_t max,
		  uint64_t *out);

/* Round a stack size up to the page size; 0 when out of range. */
size_t act__stack_size_ok(size_t size);

#endif /* ACT_ENV_H */
