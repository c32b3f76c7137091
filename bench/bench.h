/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the benchmark workloads of libactors, shared by the bench/
 * programs and by `actors bench`.
 *
 * Each workload starts its own runtime with act_main(NULL, ...), so it must
 * be called from a thread that is not already inside one (the `actors` tool
 * calls each in a forked child). It returns 0 when the run completed, and
 * fills *seconds and *checksum; the caller compares *checksum with the
 * matching bench_*_expect() value. A nonzero return means the run did not
 * complete: a negative errno (act_main could not start the runtime, or a
 * runtime call failed with it) or a positive BENCH_E* code. Read it with
 * bench_strerror().
 *
 * Timing: each workload reads CLOCK_MONOTONIC inside its main process, just
 * before its first act_spawn() and just after the final result arrives. So
 * runtime start and stop are left out, spawning the workload's processes is
 * counted, and the clean-up after the result (stop messages) is not.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>

/* Default sizes, as in the usual published versions of each benchmark. */
#define BENCH_PINGPONG_ROUNDS 1000000L
#define BENCH_RING_PROCS 503
#define BENCH_RING_HOPS 2000000L
#define BENCH_SKYNET_LEAVES 1000000L
#define BENCH_SKYNET_FANOUT 10

/*
 * Skynet window: how many children a node keeps alive at once (1..10). The
 * tree, the spawns and the checksum do not depend on it; the peak number of
 * live processes does. The default, 10, is the classic benchmark: cheap
 * when a spawned child runs first (a LIFO slot, depth first), but a FIFO
 * run queue holds all 1,111,111 processes at once (measured: 4.6 GiB peak
 * RSS). With 4, at most 4^6 + ... + 1 = 5,461 are alive in any order.
 */
#define BENCH_SKYNET_WINDOW 10

/* Positive failure codes: the run went wrong without an errno. */
enum {
	BENCH_ESPAWN = 1,  /* act_spawn() returned ACT_PID_NONE */
	BENCH_EPROTO,      /* a message with a wrong tag, size or value */
	BENCH_EEXIT,       /* the main process exited with a non-normal reason */
	BENCH_EINVAL,      /* an argument out of range */
};

/*
 * Ping-pong: the main process and one partner exchange a counter, rounds
 * round trips (2 * rounds messages). Each side sends back the counter it got
 * plus one, starting from 1, so the last reply holds 2 * rounds: *checksum
 * is that value, the number of messages delivered in order.
 */
int bench_pingpong(long rounds, double *seconds, uint64_t *checksum);

static inline uint64_t bench_pingpong_expect(long rounds)
{
	return 2 * (uint64_t)rounds;
}

/*
 * Ring: procs processes in a ring pass a token hops times in all. The token
 * holds the number of hops done; the member that receives it with the value
 * hops (member hops % procs) reports it: *checksum is that value.
 */
int bench_ring(int procs, long hops, double *seconds, uint64_t *checksum);

static inline uint64_t bench_ring_expect(long hops)
{
	return (uint64_t)hops;
}

/*
 * Skynet: a tree of processes, each inner node with up to 10 children (at
 * most window alive at once), down to leaves leaves numbered 0..leaves-1.
 * A leaf sends its number to its parent; a node sends the sum of its
 * children's. *checksum is the root's sum, leaves * (leaves - 1) / 2:
 * 499999500000 for the default million.
 */
int bench_skynet(long leaves, int window, double *seconds,
		 uint64_t *checksum);

static inline uint64_t bench_skynet_expect(long leaves)
{
	return (uint64_t)leaves * ((uint64_t)leaves - 1) / 2;
}

/* Processes the skynet tree spawns: 1,111,111 for a million leaves. */
uint64_t bench_skynet_nodes(long leaves);

/* Helpers shared by the workloads and their drivers (bench.c). */
double bench_now(void);
int bench_status(int main_rc, int err);
int bench_parse_long(const char *s, long min, long max, long *out);
const char *bench_strerror(int rc);
int bench_finish(const char *name, int rc, uint64_t checksum,
		 uint64_t expect, double seconds);

#endif /* BENCH_H */
