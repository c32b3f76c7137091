/* SPDX-License-Identifier: MIT */
/*
 * env.h - the parsers of ACTORS_* values (sizes, numbers, CPU lists) and
 * of config values. They print nothing: the table of variables and its
 * resolver (vars.h) say in one line what is wrong, and the topology
 * (act__topology_load) does for a CPU list.
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

/* hwloc_bitmap_t, declared here so that includers need not see hwloc.h. */
struct hwloc_bitmap_s;

/*
 * Parse a Linux cpulist, the syntax of ACTORS_CPUS and of the cgroup
 * cpuset files, into out (emptied first):
 *
 *   list    := element ("," element)*
 *   element := N | N "-" M | N "-" M ":" S     (0 <= N <= M <= ACT_CPU_MAX)
 *
 * "N-M:S" is every S-th CPU from N to M (0-15:2 is the even CPUs below
 * 16), as the kernel's bitmap_parselist takes it; its "/G" group suffix
 * is not accepted. Blanks (spaces, tabs, newlines) are allowed at both ends
 * and around the commas, so a cgroup file's trailing newline and "0, 2"
 * both pass. A CPU named twice, also by overlapping ranges, is an error: it
 * is almost always a typo.
 *
 * Returns 0; -EINVAL with a short reason in why (e.g. "range 7-3 is
 * reversed") for the caller's error line; -ENOMEM when hwloc cannot grow
 * the bitmap. why may be NULL. On error out is left empty.
 */
int act__env_parse_cpulist(const char *s, struct hwloc_bitmap_s *out, char *why,
			   size_t why_len);

#endif /* ACT_ENV_H */
