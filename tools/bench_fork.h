/* SPDX-License-Identifier: MIT */
/*
 * bench_fork.h - each of `actors bench`'s workloads in an OS process of
 * its own: its own runtime, started and stopped there, and its own peak
 * RSS, which the parent reads when it reaps it.
 */
#ifndef ACTORS_TOOLS_BENCH_FORK_H
#define ACTORS_TOOLS_BENCH_FORK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Runs fill(arg, out) in a forked child, which sends the len bytes of
 * *out back through a pipe. *reported: the child sent them; *rss_mib:
 * its peak RSS. A child killed, or one that exits with no result, is
 * said on stderr as "actors bench NAME: ...". 0, or -errno if the pipe
 * or the fork failed.
 */
int bench_fork(const char *name, void (*fill)(const void *arg, void *out),
	       const void *arg, void *out, size_t len, bool *reported,
	       double *rss_mib);

#endif
