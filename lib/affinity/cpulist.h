/* SPDX-License-Identifier: MIT */
/*
 * cpulist.h - the parser of Linux CPU lists (ACTORS_CPUS, the cgroup
 * cpuset files) into hwloc bitmaps. It prints nothing: the topology
 * (act__topology_load) and the cgroup reader say what is wrong.
 */
#ifndef ACT_CPULIST_H
#define ACT_CPULIST_H

#include <stddef.h>

#include "settings/env.h" /* ACT_CPU_MAX */

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
int act__cpulist_parse(const char *s, struct hwloc_bitmap_s *out, char *why,
		       size_t why_len);

#endif /* ACT_CPULIST_H */
