/* SPDX-License-Identifier: MIT */
/*
 * env.h - the parsers of ACTORS_* values (sizes, numbers, durations) and
 * of config values. They print nothing: the table of variables and its
 * resolver (vars.h) say in one line what is wrong. CPU lists, which need
 * hwloc's bitmaps, are parsed by lib/affinity/cpulist.h.
 */
#ifndef ACT_ENV_H
#define ACT_ENV_H

#include <stddef.h>
#include <stdint.h>

#define ACT_STACK_MIN ((size_t)16 << 10)
#define ACT_STACK_MAX ((size_t)1 << 30)

/* "64k", "1m", "65536": bytes with an optional k/m/g suffix. 0 or -EINVAL. */
int act__env_parse_size(const char *s, size_t *out);
/* "100ms", "1s", "250us", "5000ns": a whole number and a unit, in
 * nanoseconds. 0 or -EINVAL (no unit, another unit, overflow). */
int act__env_parse_duration(const char *s, uint64_t *out);
/* A decimal integer in [min, max]. 0 or -EINVAL. */
int act__env_parse_uint(const char *s, uint64_t min, uint64_t max,
			uint64_t *out);

/* Round a stack size up to the page size; 0 when out of range. */
size_t act__env_stack_size_ok(size_t size);

/*
 * The largest CPU number a list may name. Far above any machine (Linux's
 * NR_CPUS tops out at 8192), low enough that a typo like "99999999" is
 * caught instead of building a megabyte bitmap.
 */
#define ACT_CPU_MAX 65535

#endif /* ACT_ENV_H */
