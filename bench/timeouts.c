/* SPDX-License-Identifier: MIT */
/*
 * timeouts.c - receive-timeout lateness and idle cost, against the
 * targets doc/benchmarks.md "Timeouts" gives: a p99 lateness under 2 ms,
 * an idle runtime with timers pending under 1% CPU.
 *
 * Lateness: procs processes each wait `rounds` times in act_receive()
 * with a timeout drawn from [min_ns, max_ns) and nothing to receive; each
 * wait's lateness is the time it returned minus its deadline. All procs
 * wait at once, so the reactor's wheel holds procs timers throughout.
 *
 * Idle: then procs processes wait with a 60 s timeout while the main
 * process sleeps idle_ns; the CPU time the whole OS process used
 * meanwhile (getrusage), over idle_ns, is the idle cost: no process is
 * runnable, only timers are pending.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <actors.h>

#include "bench.h"
#include "../examples/util.h"

enum { TO_DONE = 1 };

struct to_run {
	long procs, rounds;
	int64_t min_ns, max_ns, idle_ns;
	int64_t *late; /* procs * rounds samples */
	struct bench_timeouts_result *res;
	int err;
};

struct to_child {
	struct to_run *run;
	act_pid parent;
	long index;
};

static void waiter(void *arg)
{
	struct to_child c = *(struct to_child *)arg;
	uint64_t x = (uint64_t)c.index * 0x9e3779b97f4a7c15ull + 1;
	int64_t span = c.run->max_ns - c.run->min_ns, t, deadline;
	struct act_msg *m;
	long r;

	for (r = 0; r < c.run->rounds; r++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t = c.run->min_ns +
		    (span > 0 ? (int64_t)(x % (uint64_t)span) : 0);
		deadline = util_now_ns() + t;
		m = act_receive(t);
		if (m) { /* nobody sends to it */
			act_msg_free(m);
			c.run->err = BENCH_EPROTO;
		}
		c.run->late[c.index * c.run->rounds + r] =
			util_now_ns() - deadline;
	}
	act_send(c.parent, TO_DONE, NULL, 0);
}

static void idler(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(60000000000LL));
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static void to_main(void *arg)
{
	struct to_run *run = arg;
	struct to_child *kids = calloc((size_t)run->procs, sizeof(*kids));
	long i, n = run->procs * run->rounds;
	double t0, c0;

	if (!kids) {
		run->err = BENCH_ESPAWN;
		return;
	}
	for (i = 0; i < run->procs; i++) {
		kids[i] = (struct to_child){ run, act_self(), i };
		if (!act_spawn(waiter, &kids[i]).id) {
			run->err = BENCH_ESPAWN;
			free(kids);
			return;
		}
	}
	for (i = 0; i < run->procs; i++)
		act_msg_free(act_receive(ACT_FOREVER));
	free(kids);
	qsort(run->late, (size_t)n, sizeof(int64_t), cmp64);
	run->res->samples = n;
	run->res->early = run->late[0] < 0;
	run->res->p50_us = (double)run->late[n / 2] / 1e3;
	run->res->p99_us = (double)run->late[n - 1 - n / 100] / 1e3;
	run->res->max_us = (double)run->late[n - 1] / 1e3;

	for (i = 0; i < run->procs; i++)
		if (!act_spawn(idler, NULL).id) {
			run->err = BENCH_ESPAWN;
			return;
		}
	act_sleep(100000000); /* the idlers are parked, the runtime idle */
	t0 = bench_now();
	c0 = cpu_seconds();
	act_sleep(run->idle_ns);
	run->res->idle_cpu_pct =
		100.0 * (cpu_seconds() - c0) / (bench_now() - t0);
	/* returning stops the runtime: the idlers' timers are dropped */
}

int bench_timeouts(long procs, long rounds, int64_t min_ns, int64_t max_ns,
		   int64_t idle_ns, struct bench_timeouts_result *res)
{
	struct to_run run = { procs,   rounds, min_ns, max_ns,
			      idle_ns, NULL,   res,    0 };
	int rc;

	if (procs < 1 || rounds < 1 || min_ns < 0 || max_ns < min_ns ||
	    idle_ns < 1)
		return BENCH_EINVAL;
	memset(res, 0, sizeof(*res));
	run.late = calloc((size_t)(procs * rounds), sizeof(int64_t));
	if (!run.late)
		return -12; /* -ENOMEM */
	rc = act_main(NULL, to_main, &run);
	free(run.late);
	return bench_status(rc, run.err);
}
