/* SPDX-License-Identifier: MIT */
/*
 * common.h - what the stress programs share: argument parsing, the seed and
 * a per-process PRNG, the result line, and the watchdog.
 *
 * Every program takes --workers (or --threads), --iters, --seed, --timeout
 * and --stall, plus flags of its own, and prints exactly one line on
 * stdout:
 *
 *   <prog>: <sizes>: <figures>, <seconds> s[: <verdict>]; rerun with --seed N
 *
 * Details of a violation go to stderr. The status a test returns, which
 * the tool reads from its child (and --json reports as "status"; actors
 * stress itself exits 0, 1 or 2, tools/stress.c): 0 passed, 1 a
 * violation (a wrong count, a stall: no progress for --stall seconds), 2
 * the watchdog's --timeout, 3 skipped (what it races is not on this path,
 * said in the result line), 64 a bad argument.
 *
 * The seed drives the workload's own choices (each process seeds its PRNG
 * from the seed and its index). It does not drive the runtime's placement
 * of spawns or the threads' interleaving, so a rerun replays the workload,
 * not the schedule.
 *
 * Threads: st_parse, st_watch_start, st_watch_stop and st_result on the
 * thread that calls act_main (before or after it); the PRNG in any
 * process. The watchdog's callbacks run on its own thread while the
 * runtime runs: they may read only the program's own atomic counters
 * (never act_stats, whose runtime may be torn down under them).
 */
#ifndef STRESS_COMMON_H
#define STRESS_COMMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ST_EXIT_OK 0
#define ST_EXIT_FAIL 1
#define ST_EXIT_TIMEOUT 2
#define ST_EXIT_SKIP 3 /* nothing to test here (no io_uring): said so */
#define ST_EXIT_USAGE 64

/* A program-specific flag: --name N, stored in *val. */
struct st_flag {
	const char *name;
	long *val;
	long min, max;
	const char *help;
};

struct st_args {
	const char *prog;
	const char *iters_name; /* what --iters counts, in the result line */
	const char *iters_help; /* the same, for --help */
	long workers;		/* --workers/--threads: default 4 */
	long iters;		/* --iters: the program's default */
	long timeout;		/* --timeout seconds: default 60 */
	long stall;		/* --stall seconds: default 5 */
	uint64_t seed;		/* --seed: default from the clock */
	const struct st_flag *flags; /* the program's own, NULL-named end */
	char sizes[160];	     /* "workers 4 pairs 64 rounds 100000" */
};

/* ST_RUN: go on; else the exit status (ST_EXIT_OK after --help,
 * ST_EXIT_USAGE after an error, said on stderr). */
#define ST_RUN (-1)
int st_parse(struct st_args *a, int argc, char **argv);

/* ---- PRNG: xorshift64, one per process ----------------------------------- */

struct st_rng {
	uint64_t s;
};

/* splitmix64: spreads (seed, index) so neighbouring indexes differ. */
static inline uint64_t st_mix(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t st_xorshift(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static inline void st_rng_init(struct st_rng *r, uint64_t seed, uint64_t index)
{
	r->s = st_mix(seed, index);
	if (!r->s)
		r->s = 1; /* xorshift's one fixed point */
}

static inline uint64_t st_rng_next(struct st_rng *r)
{
	r->s = st_xorshift(r->s);
	return r->s;
}

/* Uniform enough in [0, n) for n far below 2^32. */
static inline uint32_t st_rng_below(struct st_rng *r, uint32_t n)
{
	return (uint32_t)((st_rng_next(r) >> 32) * n >> 32);
}

/* A busy wait of about n pause instructions: widens race windows. */
void st_spin(uint32_t n);

/* ---- counters ------------------------------------------------------------ */

/* Relaxed: the figures are read after act_main returns (which orders
 * them), or by the watchdog, which only reports them. */
static inline void st_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static inline uint64_t st_get(_Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* Counts a violation in *counter and, for the first ten of the run, says
 * what on stderr ("<prog>: " + fmt + newline). Any thread. */
void st_report(_Atomic uint64_t *counter, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- result line and watchdog -------------------------------------------- */

/* Writes the figures so far ("lost 0, double-run 0") into buf. */
typedef void st_figures_fn(char *buf, size_t n);

struct st_watch {
	const struct st_args *args;
	st_figures_fn *figures;
	/* Optional: a sum that grows while the workload makes progress. */
	uint64_t (*progress)(void);
	/* Optional, each tick: nonzero stops the run as a violation; it
	 * says what on stderr. */
	int (*check)(double now);
	/* The violations so far (the sum st_finish is given at the end);
	 * read by the progress reports, so only the program's atomics. */
	uint64_t (*violations)(void);
};

/*
 * Set by `actors stress` in the child that runs one test, before the
 * test's main: where the watchdog writes a progress record each tick
 * (-1: nowhere), and the act_config.stack_guard of st_run's runtime
 * (ACT_GUARD_AUTO unless --guard). A record is one line,
 *
 *   progress <seconds> <progress> <violations>\n
 *
 * progress the watch's sum (operations; 0 without one), violations the
 * watch's count so far (0 without one).
 */
extern int st_progress_fd;
extern int st_stack_guard;

double st_now(void); /* CLOCK_MONOTONIC seconds */

/* A watchdog's view of one counter that must keep moving (a ping-pong
 * pair's rounds): the value it saw last and since when. */
struct st_stall {
	uint64_t seen;
	double since;
};

/* Watchdog: has v stood still for stall seconds? (A finished one never
 * stalls: the caller does not ask.) */
bool st_stalled(struct st_stall *s, uint64_t v, double now, long stall);
/* A "VmRSS:"-style line of /proc/self/status (key without the colon),
 * in KiB; -1 if absent. */
long st_status_kb(const char *key);

/* Starts the clock and the watchdog thread; 0 or a negative errno. */
int st_watch_start(const struct st_watch *w);

/* Stops the watchdog; after it returns, the watchdog prints nothing. */
void st_watch_stop(void);

/* Prints the result line; verdict NULL when the run passed. The time is
 * from st_watch_start to act_main's return (or to now, before it). */
void st_result(const struct st_watch *w, const char *verdict);

/*
 * Runs fn(arg) as the main process of a runtime with --workers workers,
 * under the watchdog. Returns act_main's value (the main process's exit
 * reason), or a negative errno (said on stderr).
 */
int st_run(const struct st_watch *w, void (*fn)(void *), void *arg);

/* Prints the result line for a finished run, returns the exit status:
 * ST_EXIT_FAIL when rc (st_run's) is nonzero or violations were found. */
int st_finish(const struct st_watch *w, int rc, uint64_t violations);

/* Sums one counter over the n entries act_stats() filled. */
struct act_worker_stats;
uint64_t st_stats_sum(const struct act_worker_stats *ws, int n,
		      size_t field_offset);

#define ST_STATS_SUM(ws, n, field) \
	st_stats_sum(ws, n, offsetof(struct act_worker_stats, field))

#endif /* STRESS_COMMON_H */
