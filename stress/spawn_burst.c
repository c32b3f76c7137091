/* SPDX-License-Identifier: MIT */
/*
 * spawn_burst.c - a burst of CPU-bound children over the workers: none
 * lost, none run twice, every result right; and how evenly the work fell.
 *
 * The main process spawns C children at once. Child i runs K xorshift
 * steps from a start value drawn from (seed, i), in --yields + 1 slices
 * with a yield between them (so its registers cross many switches), then
 * sends { i, value } to the main process. After the run, the main
 * thread recomputes every value. act_stats gives each worker's runs during
 * the burst (the main process's worker counts its turns too, about one
 * per result); the children count their own turns per worker. The
 * busiest / least-busy ratio of each is printed.
 *
 * Balance is checked (with more than one worker): at least --min-steals
 * steals (default 1), summed from act_stats inside the runtime before the
 * main process exits, and, for a burst of BALANCE_MIN children or more,
 * a child run on every worker. Spawns stay on the spawner's worker unless
 * another is idle, so without stealing the burst would pile up there.
 *
 * The children's turns per worker, busiest / least busy, is a figure,
 * checked only with --max-ratio (percent; 200 is a factor 2): with more
 * workers than cores, or other load on the machine, a worker's share is
 * what the kernel gives its thread, so the ratio says how the kernel
 * shared the CPUs as much as how the runtime shared the work (on a 2-core
 * VM under stress-ng it reached 3.7 with stealing working). Pass it on an
 * idle machine with a core per worker.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	SB_RESULT = 1,
};

struct result {
	uint32_t index;
	uint32_t rsvd;
	uint64_t value;
};

#define LIST_MAX 8	  /* workers listed one by one in the result line */
#define BALANCE_MIN 10000 /* children: smaller bursts skip --max-ratio */

static long work = 50000, yields = 4, max_ratio = 0, min_steals = 1;

static const struct st_flag flags[] = {
	{ "work", &work, 1, 1L << 40, "xorshift steps per child" },
	{ "yields", &yields, 0, 1000000, "yields per child" },
	{ "max-ratio", &max_ratio, 0, 1000000,
	  "child turns per worker, busiest / least, at most this "
	  "percent (0, the default: not checked; bursts of 10000 "
	  "or more)" },
	{ "min-steals", &min_steals, 0, 1L << 40,
	  "steals at least (0: no check)" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "spawn_burst",
	.iters_name = "children",
	.iters_help = "children spawned in the burst",
	.workers = 4,
	.iters = 10000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	act_pid main;
	uint64_t *value; /* by child; main process writes */
	uint8_t *seen;	 /* by child; main process writes */
	uint64_t expect; /* results due: children spawned */
	_Atomic uint64_t results, dups, wrong, errors;
	int nworkers;		 /* main process, at the end: */
	_Atomic uint64_t *runs;	 /* runs per worker during the burst */
	_Atomic uint64_t *turns; /* children's turns per worker (any) */
	_Atomic uint64_t steals;
	_Atomic uint64_t imbalance; /* checks failed at the end */
} sb;

static uint64_t start_value(uint64_t i)
{
	return st_mix(args.seed, i) | 1; /* xorshift never leaves 0 */
}

static uint64_t burn(uint64_t x, uint64_t n)
{
	while (n--)
		x = st_xorshift(x);
	return x;
}

/* ---- children ------------------------------------------------------------ */

static void count_turn(void)
{
	int w = act_worker();

	if (w >= 0 && w < sb.nworkers)
		st_add(&sb.turns[w], 1);
}

static void child(void *arg)
{
	struct result r = { .index = (uint32_t)(uintptr_t)arg };
	uint64_t x = start_value(r.index), slice, left = (uint64_t)work;
	long s;

	slice = left / (uint64_t)(yields + 1);
	for (s = 0; s < yields; s++) {
		count_turn();
		x = burn(x, slice);
		left -= slice;
		act_yield();
	}
	count_turn();
	r.value = burn(x, left);
	if (act_send(sb.main, SB_RESULT, &r, sizeof(r)) < 0)
		st_report(&sb.errors, "child %u: act_send failed", r.index);
}

/* ---- the main process ---------------------------------------------------- */

static void take(const struct act_msg *m)
{
	struct result r;

	if (m->tag != SB_RESULT || m->len != sizeof(r)) {
		st_report(&sb.errors, "main: a message with tag %u", m->tag);
		return;
	}
	memcpy(&r, m->data, sizeof(r));
	if (r.index >= (uint64_t)args.iters || sb.seen[r.index]) {
		st_report(&sb.dups, "child %u: a second result", r.index);
		return;
	}
	sb.seen[r.index] = 1;
	sb.value[r.index] = r.value;
	st_add(&sb.results, 1);
}

/* Worker runs now; into runs[] (subtracting what was there if sub). */
static int read_runs(_Atomic uint64_t *runs, bool sub)
{
	struct act_worker_stats *w = calloc((size_t)sb.nworkers, sizeof(*w));
	int i, n = w ? act_stats(NULL, w, sb.nworkers) : -1;

	for (i = 0; i < n && i < sb.nworkers; i++)
		atomic_store_explicit(&runs[i],
				      w[i].runs - (sub ? st_get(&runs[i]) : 0),
				      memory_order_relaxed);
	if (n == sb.nworkers && sub)
		atomic_store_explicit(&sb.steals, ST_STATS_SUM(w, n, steals),
				      memory_order_relaxed);
	free(w);
	if (n != sb.nworkers)
		st_report(&sb.errors, "act_stats returned %d", n);
	return n;
}

static void spawn_all(void)
{
	long i;

	for (i = 0; i < args.iters; i++) {
		if (act_spawn(child, (void *)(uintptr_t)i).id)
			sb.expect++;
		else
			st_report(&sb.errors, "child %ld: act_spawn failed", i);
	}
}

static void sb_main(void *arg)
{
	struct act_msg *m;

	(void)arg;
	sb.main = act_self();
	read_runs(sb.runs, false);
	spawn_all();
	while (st_get(&sb.results) + st_get(&sb.dups) < sb.expect) {
		m = act_receive(ACT_FOREVER);
		if (m)
			take(m);
		act_msg_free(m);
	}
	read_runs(sb.runs, true);
}

/* ---- checks and result --------------------------------------------------- */

/* busiest / least of v[], in percent; UINT64_MAX when one is 0. */
static uint64_t ratio_pct(_Atomic uint64_t *v)
{
	uint64_t lo = UINT64_MAX, hi = 0, x;
	int i;

	for (i = 0; i < sb.nworkers; i++) {
		x = st_get(&v[i]);
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	return lo ? hi * 100 / lo : UINT64_MAX;
}

/* The main thread, after the run: did the work spread, by stealing? */
static void check_balance(void)
{
	uint64_t r = ratio_pct(sb.turns);

	if (sb.nworkers < 2)
		return;
	if (args.iters >= BALANCE_MIN && r == UINT64_MAX)
		st_report(&sb.imbalance, "a worker ran no child");
	else if (max_ratio && args.iters >= BALANCE_MIN &&
		 r > (uint64_t)max_ratio)
		st_report(&sb.imbalance,
			  "child turns busiest/least %.2f, above %.2f",
			  (double)r / 100, (double)max_ratio / 100);
	if (st_get(&sb.steals) < (uint64_t)min_steals)
		st_report(&sb.imbalance, "%" PRIu64 " steals, fewer than %ld",
			  st_get(&sb.steals), min_steals);
}

/* The main thread, after the run: recompute every child's value. */
static void check_values(void)
{
	uint64_t i;

	for (i = 0; i < (uint64_t)args.iters; i++) {
		if (!sb.seen[i])
			st_report(&sb.errors, "child %" PRIu64 ": no result",
				  i);
		else if (sb.value[i] != burn(start_value(i), (uint64_t)work))
			st_report(&sb.wrong, "child %" PRIu64 ": wrong value",
				  i);
	}
}

static uint64_t sb_progress(void)
{
	return st_get(&sb.results);
}

/* "runs 2510 2490 2501 2499 (busiest/least 1.01)" */
static int spread(char *buf, size_t n, const char *what, _Atomic uint64_t *v)
{
	uint64_t lo = UINT64_MAX, hi = 0, x;
	int i, k = snprintf(buf, n, "%s", what);

	for (i = 0; i < sb.nworkers; i++) {
		x = st_get(&v[i]);
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		if (sb.nworkers <= LIST_MAX && (size_t)k < n)
			k += snprintf(buf + k, n - k, " %" PRIu64, x);
	}
	if (sb.nworkers > LIST_MAX && (size_t)k < n)
		k += snprintf(buf + k, n - k, " %" PRIu64 "-%" PRIu64, lo, hi);
	if ((size_t)k < n)
		k += snprintf(buf + k, n - k, " (busiest/least %.2f)",
			      lo ? (double)hi / (double)lo : 0.0);
	return k;
}

static void sb_figures(char *buf, size_t n)
{
	char runs[160], kids[160];

	spread(runs, sizeof(runs), "runs", sb.runs);
	spread(kids, sizeof(kids), "child turns", sb.turns);
	snprintf(buf, n,
		 "results %" PRIu64 " of %ld, wrong %" PRIu64
		 ", duplicate %" PRIu64 ", errors %" PRIu64
		 ", %s, %s, steals %" PRIu64,
		 st_get(&sb.results), args.iters, st_get(&sb.wrong),
		 st_get(&sb.dups), st_get(&sb.errors), runs, kids,
		 st_get(&sb.steals));
}

static int alloc_all(void)
{
	size_t c = (size_t)args.iters, w = (size_t)args.workers;

	sb.nworkers = (int)args.workers;
	sb.value = calloc(c, sizeof(*sb.value));
	sb.seen = calloc(c, sizeof(*sb.seen));
	sb.runs = calloc(w, sizeof(*sb.runs));
	sb.turns = calloc(w, sizeof(*sb.turns));
	if (sb.value && sb.seen && sb.runs && sb.turns)
		return 0;
	fputs("spawn_burst: out of memory\n", stderr);
	return -1;
}

static void free_all(void)
{
	free(sb.value);
	free(sb.seen);
	free(sb.runs);
	free(sb.turns);
}

static uint64_t sb_violations(void)
{
	return st_get(&sb.wrong) + st_get(&sb.dups) + st_get(&sb.errors) +
	       st_get(&sb.imbalance);
}

int st_main_spawn_burst(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = sb_figures,
		.progress = sb_progress,
		.violations = sb_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	if (alloc_all()) {
		free_all();
		return ST_EXIT_FAIL;
	}
	rc = st_run(&w, sb_main, NULL);
	if (!rc) {
		check_values();
		check_balance();
	}
	rc = st_finish(&w, rc, sb_violations());
	free_all();
	return rc;
}
