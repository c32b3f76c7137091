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
#define BENCH_FANIN_SENDERS 100
#define BENCH_FANIN_MSGS 100000L
#define BENCH_FANIN_WINDOW 1000L
#define BENCH_SPAWNBURST_TOTAL 400000000L

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
	BENCH_ESPAWN = 1, /* act_spawn() returned ACT_PID_NONE */
	BENCH_EPROTO,	  /* a message with a wrong tag, size or value */
	BENCH_EEXIT,	  /* the main process exited with a non-normal reason */
	BENCH_EINVAL,	  /* an argument out of range */
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
int bench_skynet(long leaves, int window, double *seconds, uint64_t *checksum);

static inline uint64_t bench_skynet_expect(long leaves)
{
	return (uint64_t)leaves * ((uint64_t)leaves - 1) / 2;
}

/* Processes the skynet tree spawns: 1,111,111 for a million leaves. */
uint64_t bench_skynet_nodes(long leaves);

/*
 * Fan-in: senders processes each send msgs 8-byte messages to the main
 * process, which checks that each sender's arrive in send order (I7).
 * *checksum is the number received in order: senders * msgs, 10,000,000
 * by default. A payload is the sender's index shifted left by
 * BENCH_FANIN_SEQ_BITS, plus its sequence number, so msgs < 2^40.
 *
 * Flow control: with window > 0, a sender waits for an ACK from the main
 * process after every window messages (a credit of one window, stop and
 * wait), so at most senders * window messages are queued: 100,000 by
 * default. It is needed: with window 0 the senders run ahead (in one
 * round of turns the 100 senders queue up to 2,000 messages each, a
 * reduction budget, and the main process takes at most 2,000), and the
 * main process's mailbox grows to most of the 10,000,000 messages
 * (measured at one worker: 1.2 GiB peak RSS and 11 to 16 s, against
 * 2 MiB and 0.2 to 0.5 s with a window of 1,000). The ACKs are 1 in
 * window messages, 0.1% by default, and are not counted in *checksum.
 */
#define BENCH_FANIN_SEQ_BITS 40
#define BENCH_FANIN_MAX_SENDERS (1 << 20)

int bench_fanin(int senders, long msgs, long window, double *seconds,
		uint64_t *checksum);

static inline uint64_t bench_fanin_expect(int senders, long msgs)
{
	return (uint64_t)senders * (uint64_t)msgs;
}

/*
 * Spawn burst: the main process spawns children processes; each runs
 * total / children steps of xorshift64 from its own seed, a pure CPU loop
 * with no runtime call, and sends its final state back. *checksum is the
 * sum of those states (mod 2^64); bench_spawnburst_expect() computes it
 * from a matrix power, without running the steps. The two sizes `actors
 * bench` runs, 100 and 10,000 children, share the default total, so both
 * do the same steps; at one worker they differ by the cost of 9,900 more
 * spawns, exits and replies.
 */
#define BENCH_SPAWNBURST_FEW 100
#define BENCH_SPAWNBURST_MANY 10000
#define BENCH_SPAWNBURST_MAX_CHILDREN 1000000L

int bench_spawnburst(long children, long total, double *seconds,
		     uint64_t *checksum);
uint64_t bench_spawnburst_expect(long children, long total);

/*
 * Timeouts: procs processes each wait rounds times in act_receive() with
 * a timeout from [min_ns, max_ns) and nothing to receive, all at once;
 * then procs processes wait 60 s while the main process sleeps idle_ns,
 * and the OS process's CPU time over that span is the idle cost.
 * Lateness is return time minus deadline (never negative: early is a
 * bug, flagged in early).
 */
#define BENCH_TIMEOUTS_PROCS 10000
#define BENCH_TIMEOUTS_ROUNDS 5

struct bench_timeouts_result {
	long samples;
	int early; /* some wait returned before its deadline */
	double p50_us, p99_us, max_us;
	double idle_cpu_pct; /* CPU time / wall time while idle, in % */
};

int bench_timeouts(long procs, long rounds, int64_t min_ns, int64_t max_ns,
		   int64_t idle_ns, struct bench_timeouts_result *res);

/*
 * The command line of a bench/ driver (bench/pingpong [ROUNDS]): numbers
 * by position, each optional, a later one only after those before it,
 * as scripts/bench-*.sh pass them. The convention of examples/opt.h and
 * tests/cli.sh: -h or --help anywhere prints the usage on stdout (exit
 * 0); a usage error is one line "NAME: ..." on stderr (exit 2), for a
 * bad value "NAME: ROUNDS: bad value 'x': expected 1 to N". NAME is the
 * program's path in the build ("bench/pingpong"), never argv[0], which
 * under libtool is a wrapper's. "--" ends the options; a word that starts
 * with '-' and a digit is a (bad) number, not an option.
 */
struct bench_arg {
	const char *name; /* "ROUNDS": in the usage and its errors */
	long *value;	  /* holds the default; gets the value */
	long min, max;
	const char *help; /* its line in the usage; '\n' starts another */
};

struct bench_cmd {
	const char *name;	      /* "bench/pingpong" */
	const char *about;	      /* what it does, after the usage line */
	const struct bench_arg *args; /* ends with a NULL name */
	const char *after;	      /* what it prints, its exit status */
};

/* bench_args() when the program is to run; else the exit status. */
#define BENCH_RUN (-1)

/* Parses argv[1..argc) by cmd: BENCH_RUN, 0 after --help, 2 after a
 * usage error (said on stderr). */
int bench_args(const struct bench_cmd *cmd, int argc, char **argv);

/* "NAME: WHAT: bad value 'VALUE': expected EXPECTED" on stderr; 2. */
int bench_usage_error(const char *name, const char *what, const char *value,
		      const char *expected);

/* Helpers shared by the workloads and their drivers (bench.c). */
double bench_now(void);
int bench_status(int main_rc, int err);
int bench_parse_long(const char *s, long min, long max, long *out);
const char *bench_strerror(int rc);
int bench_finish(const char *name, int rc, uint64_t checksum, uint64_t expect,
		 double seconds);

#endif /* BENCH_H */
