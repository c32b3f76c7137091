/* SPDX-License-Identifier: MIT */
/*
 * bench_timeouts.c - `actors bench timeouts [--procs N] [--rounds R]`:
 * how late receive timeouts end, and the CPU an idle runtime with timers
 * pending uses (bench/timeouts.c), in a forked child (bench_fork.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "../examples/opt.h"
#include "bench_fork.h"
#include "commands.h"

/* As bench/timeouts: waits of 50 to 150 ms, then 2 s idle. */
#define TIMEOUTS_MIN_NS 50000000LL
#define TIMEOUTS_MAX_NS 150000000LL
#define TIMEOUTS_IDLE_NS 2000000000LL

struct timeouts_plan {
	long procs, rounds;
};

/* What the forked child sends back. */
struct timeouts_outcome {
	int rc;
	struct bench_timeouts_result res;
};

static void timeouts_fill(const void *arg, void *out)
{
	const struct timeouts_plan *p = arg;
	struct timeouts_outcome *t = out;

	t->rc = bench_timeouts(p->procs, p->rounds, TIMEOUTS_MIN_NS,
			       TIMEOUTS_MAX_NS, TIMEOUTS_IDLE_NS, &t->res);
}

static void timeouts_about(FILE *f)
{
	fprintf(f,
		"N processes each wait R times in act_receive() with a "
		"timeout of %lld to\n%lld ms and nothing to receive, all "
		"at once; prints how late the waits\nended (p50, p99, max, "
		"in us), then the CPU the runtime uses over %lld s\nwith N "
		"timers pending and nothing to run. It runs only when "
		"named.\n",
		TIMEOUTS_MIN_NS / 1000000, TIMEOUTS_MAX_NS / 1000000,
		TIMEOUTS_IDLE_NS / 1000000000);
}

/* ok: it ran, and no wait ended before its deadline. */
static void timeouts_print(const struct timeouts_plan *p,
			   const struct timeouts_outcome *t, bool ran, bool ok,
			   double rss_mib)
{
	const struct bench_timeouts_result *r = &t->res;

	printf("%-8s %6s %7s %9s %9s %9s %7s %8s  %s\n", "workload", "procs",
	       "waits", "p50 us", "p99 us", "max us", "idle %", "RSS MiB",
	       "check");
	printf("%-8s %6ld ", "timeouts", p->procs);
	if (ran)
		printf("%7ld %9.0f %9.0f %9.0f %7.2f ", r->samples, r->p50_us,
		       r->p99_us, r->max_us, r->idle_cpu_pct);
	else
		printf("%7s %9s %9s %9s %7s ", "-", "-", "-", "-", "-");
	printf("%8.1f  %s%s\n", rss_mib, ok ? "OK" : "FAIL",
	       ran && r->early ? " (some waits ended early)" : "");
	fflush(stdout);
}

int actors_bench_timeouts_main(int argc, char **argv)
{
	struct timeouts_plan p = { BENCH_TIMEOUTS_PROCS,
				   BENCH_TIMEOUTS_ROUNDS };
	struct timeouts_outcome t = { .rc = 0 };
	bool reported = false, ran;
	double rss_mib = 0;
	const struct opt opts[] = {
		OPT_LONG("procs", &p.procs, 1, 1000000, "N",
			 "processes waiting at once"),
		OPT_LONG("rounds", &p.rounds, 1, 1000, "R", "waits each"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors bench timeouts",
				     .opts = opts,
				     .about_fn = timeouts_about };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	rc = bench_fork("timeouts", timeouts_fill, &p, &t, sizeof(t), &reported,
			&rss_mib);
	if (rc)
		fprintf(stderr, "actors bench timeouts: %s\n", strerror(-rc));
	else if (reported && t.rc)
		fprintf(stderr, "actors bench timeouts: %s\n",
			bench_strerror(t.rc));
	ran = !rc && reported && !t.rc;
	timeouts_print(&p, &t, ran, ran && !t.res.early, rss_mib);
	return ran && !t.res.early ? 0 : 1;
}
