/* SPDX-License-Identifier: MIT */
/*
 * spawnburst.c - a burst of CPU-bound children: how the work of many
 * processes that never call the runtime spreads over the workers.
 *
 * The main process spawns children children; child i runs iters =
 * total / children steps of xorshift64 from its own seed, with no runtime
 * call in the loop (so nothing makes it yield), sends the result to the
 * main process and exits. The main process sums the results. The total
 * work is the same for 100 children as for 10,000: only its grain and the
 * number of spawns differ.
 *
 * bench_spawnburst_expect() finds the same sum without the loop: a step
 * of xorshift64 is linear over GF(2), so iters steps are one 64x64 bit
 * matrix, the step's matrix to the power iters, found by squaring.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "bench.h"

enum {
	SB_RESULT = 1, /* child -> main: uint64_t its final xorshift state */
	SB_FAIL,       /* child -> main: int reason */
};

/* A child's arg: in run->jobs, written before its spawn, then read-only. */
struct sb_job {
	act_pid main;
	uint64_t seed;
	uint64_t iters;
};

/*
 * act_main()'s arg. jobs lives here, freed by bench_spawnburst() after
 * act_main() returns, so a child still running as the runtime stops never
 * reads freed memory.
 */
struct sb_run {
	long children; /* in */
	long total;    /* in */
	struct sb_job *jobs;
	int err;	/* out: 0, or the first failure seen */
	uint64_t sum;	/* out: the sum of the results */
	double seconds; /* out */
};

/* A 64x64 matrix over GF(2): col[j] is the image of bit j. */
struct sb_matrix {
	uint64_t col[64];
};

/* Marsaglia's xorshift64, shifts 13, 7, 17. */
static inline uint64_t sb_step(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* Child i's seed: odd multiple of i + 1, never 0. */
static uint64_t sb_seed(long i)
{
	return ((uint64_t)i + 1) * UINT64_C(0x9e3779b97f4a7c15);
}

/* The children's work: iters steps, no runtime call. */
static uint64_t sb_work(uint64_t x, uint64_t iters)
{
	while (iters--)
		x = sb_step(x);
	return x;
}

static void sb_child(void *arg)
{
	struct sb_job job = *(const struct sb_job *)arg;
	uint64_t r = sb_work(job.seed, job.iters);
	int rc = act_send(job.main, SB_RESULT, &r, sizeof(r));

	if (rc < 0)
		act_send(job.main, SB_FAIL, &rc, sizeof(rc));
}

/* Spawns the children; returns how many were spawned. */
static long sb_spawn(struct sb_run *run)
{
	uint64_t iters = (uint64_t)(run->total / run->children);
	long i;

	for (i = 0; i < run->children; i++) {
		run->jobs[i] = (struct sb_job){ act_self(), sb_seed(i), iters };
		if (act_pid_eq(act_spawn(sb_child, &run->jobs[i]),
			       ACT_PID_NONE))
			break;
	}
	return i;
}

/* Receives one child's result into run; 0, or why it failed. */
static int sb_collect(struct sb_run *run)
{
	struct act_msg *m = act_receive(ACT_FOREVER);
	uint64_t v;
	int rc = BENCH_EPROTO;

	if (m == NULL)
		return rc;
	if (m->tag == SB_RESULT && m->len == sizeof(v)) {
		memcpy(&v, m->data, sizeof(v));
		run->sum += v;
		rc = 0;
	} else if (m->tag == SB_FAIL && m->len == sizeof(rc)) {
		memcpy(&rc, m->data, sizeof(rc));
	}
	act_msg_free(m);
	return rc;
}

static void sb_main(void *arg)
{
	struct sb_run *run = arg;
	double t0 = bench_now();
	long i, n = sb_spawn(run);

	run->err = n < run->children ? BENCH_ESPAWN : 0;
	for (i = 0; i < n && !run->err; i++)
		run->err = sb_collect(run);
	run->seconds = bench_now() - t0;
}

int bench_spawnburst(long children, long total, double *seconds,
		     uint64_t *checksum)
{
	struct sb_run run = { .children = children, .total = total };
	int rc = -ENOMEM;

	if (children < 1 || children > BENCH_SPAWNBURST_MAX_CHILDREN ||
	    total < children)
		return BENCH_EINVAL;
	run.jobs = calloc(children, sizeof(*run.jobs));
	if (run.jobs)
		rc = bench_status(act_main(NULL, sb_main, &run), run.err);
	free(run.jobs);
	*seconds = run.seconds;
	*checksum = run.sum;
	return rc;
}

/* a's map applied to x: the xor of the columns of x's set bits. */
static uint64_t sb_apply(const struct sb_matrix *a, uint64_t x)
{
	uint64_t y = 0;
	int j;

	for (j = 0; j < 64; j++)
		if (x >> j & 1)
			y ^= a->col[j];
	return y;
}

/* *a = a after b: b's map first, then a's. */
static void sb_compose(struct sb_matrix *a, const struct sb_matrix *b)
{
	struct sb_matrix r;
	int j;

	for (j = 0; j < 64; j++)
		r.col[j] = sb_apply(a, b->col[j]);
	*a = r;
}

/* *p = the matrix of n steps of xorshift64. */
static void sb_power(struct sb_matrix *p, uint64_t n)
{
	struct sb_matrix step;
	int j;

	for (j = 0; j < 64; j++) {
		p->col[j] = UINT64_C(1) << j;
		step.col[j] = sb_step(UINT64_C(1) << j);
	}
	for (; n; n >>= 1) {
		if (n & 1)
			sb_compose(p, &step);
		sb_compose(&step, &step);
	}
}

uint64_t bench_spawnburst_expect(long children, long total)
{
	struct sb_matrix p;
	uint64_t sum = 0;
	long i;

	if (children < 1)
		return 0;
	sb_power(&p, (uint64_t)(total / children));
	for (i = 0; i < children; i++)
		sum += sb_apply(&p, sb_seed(i));
	return sum;
}
