/* SPDX-License-Identifier: MIT */
/*
 * demo.c - `actors demo`: spawns 100 children that each count primes,
 * shows which worker ran how many and checks their sum; then serves
 * echoes to a loopback client (echo_inproc.h) and checks every answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "../bench/bench.h"
#include "../examples/opt.h"
#include "commands.h"
#include "echo_inproc.h"

#define DEMO_CHILDREN 100
#define DEMO_STEP 200 /* child i counts the primes below 200 * (i + 1) */
#define DEMO_REPLY 1  /* child -> parent: struct demo_reply */
#define DEMO_ECHO_CONNS 50
#define DEMO_ECHO_SECONDS 2.0
#define DEMO_ECHO_WARMUP 0.25

/*
 * The answer: the sum over i of pi(200 * (i + 1)), which is 121,460.
 * demo_expect() computes it again with a sieve, so the run checks itself.
 */

/* A child's arg: on the parent's stack, written before the spawn. */
struct demo_job {
	act_pid parent;
	int index;
};

struct demo_reply {
	uint64_t result;
	int32_t index;
	int32_t worker;
};

/* act_main()'s arg; act_main() returning orders the main's writes. */
struct demo_run {
	int err;	  /* 0, or the first failure */
	int workers;	  /* act_workers() */
	long *per_worker; /* children per worker; the caller frees it */
	int replies;	  /* good replies */
	uint64_t sum;	  /* sum of their results */
	double seconds;	  /* first spawn to last reply */
};

static bool is_prime(uint64_t n)
{
	uint64_t d;

	if (n < 4)
		return n >= 2;
	if (n % 2 == 0)
		return false;
	for (d = 3; d * d <= n; d += 2)
		if (n % d == 0)
			return false;
	return true;
}

/* The children's work: trial division, about 1 us to 1 ms of it. */
static uint64_t count_primes(uint64_t below)
{
	uint64_t n, count = 0;

	for (n = 2; n < below; n++)
		count += is_prime(n);
	return count;
}

static void demo_child(void *arg)
{
	struct demo_job job = *(const struct demo_job *)arg;
	struct demo_reply r;

	r.result = count_primes((uint64_t)DEMO_STEP * (job.index + 1));
	r.index = job.index;
	r.worker = act_worker();
	act_send(job.parent, DEMO_REPLY, &r, sizeof(r));
}

/* Spawns the children; returns how many were spawned. */
static int demo_spawn(struct demo_job *jobs)
{
	int i;

	for (i = 0; i < DEMO_CHILDREN; i++) {
		jobs[i] = (struct demo_job){ act_self(), i };
		if (act_pid_eq(act_spawn(demo_child, &jobs[i]), ACT_PID_NONE))
			break;
	}
	return i;
}

/* Counts one reply; a malformed or repeated one is an error. */
static void demo_take(struct demo_run *run, const struct act_msg *m, bool *seen)
{
	struct demo_reply r;

	if (m->tag != DEMO_REPLY || m->len != sizeof(r))
		goto bad;
	memcpy(&r, m->data, sizeof(r));
	if (r.index < 0 || r.index >= DEMO_CHILDREN || seen[r.index] ||
	    r.worker < 0 || r.worker >= run->workers)
		goto bad;
	seen[r.index] = true;
	run->per_worker[r.worker]++;
	run->sum += r.result;
	run->replies++;
	return;
bad:
	run->err = BENCH_EPROTO;
}

/* Waits for n messages, the replies of the n children spawned. */
static void demo_collect(struct demo_run *run, int n)
{
	bool seen[DEMO_CHILDREN] = { false };
	int i;

	for (i = 0; i < n; i++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m == NULL) {
			run->err = BENCH_EPROTO;
			return;
		}
		demo_take(run, m, seen);
		act_msg_free(m);
	}
}

static void demo_main(void *arg)
{
	struct demo_run *run = arg;
	struct demo_job jobs[DEMO_CHILDREN];
	double t0;
	int n;

	run->workers = act_workers();
	run->per_worker = calloc(run->workers, sizeof(*run->per_worker));
	if (run->per_worker == NULL) {
		run->err = -ENOMEM;
		return;
	}
	t0 = bench_now();
	n = demo_spawn(jobs);
	if (n < DEMO_CHILDREN)
		run->err = BENCH_ESPAWN;
	demo_collect(run, n);
	run->seconds = bench_now() - t0;
}

/* The same sum by another road: a sieve, sampled every DEMO_STEP. */
static int demo_expect(uint64_t *sum)
{
	size_t max = (size_t)DEMO_STEP * DEMO_CHILDREN, n, m;
	char *composite = calloc(max, 1);
	uint64_t count = 0;

	if (composite == NULL)
		return -ENOMEM;
	*sum = 0;
	for (n = 2; n < max; n++) {
		if (!composite[n]) {
			count++;
			for (m = n * n; m < max; m += n)
				composite[m] = 1;
		}
		if ((n + 1) % DEMO_STEP == 0)
			*sum += count; /* primes below n + 1 */
	}
	free(composite);
	return 0;
}

static void demo_print(const struct demo_run *run, uint64_t expect)
{
	int w;

	printf("%d children on %d worker%s\n", DEMO_CHILDREN, run->workers,
	       run->workers == 1 ? "" : "s");
	for (w = 0; w < run->workers; w++)
		printf("  worker %d: %ld children\n", w, run->per_worker[w]);
	printf("children %d, sum of results %" PRIu64 " (expected %" PRIu64
	       ": %s), elapsed %.3f ms\n",
	       run->replies, run->sum, expect,
	       run->sum == expect ? "OK" : "FAIL", run->seconds * 1e3);
}

/* The echo part of the demo; true when it went right. */
static bool demo_echo(void)
{
	const struct echo_plan plan = { DEMO_ECHO_CONNS, DEMO_ECHO_SECONDS,
					DEMO_ECHO_WARMUP };
	struct echo_outcome out;
	const struct echoload_result *r = &out.load;

	printf("\necho server: one process per connection, %d connections "
	       "from a loopback client\n",
	       plan.conns);
	fflush(stdout);
	if (echo_inproc(&plan, &out)) {
		fprintf(stderr, "actors demo: echo: %s\n",
			echo_server_strerror(out.rc));
		return false;
	}
	printf("  %" PRIu64 " requests of %d bytes in %.2f s: %.0f "
	       "requests/s\n",
	       r->requests, ECHOLOAD_SIZE, r->seconds, r->rps);
	printf("  latency p50 %.1f us, p99 %.1f us, p999 %.1f us, "
	       "max %.1f us\n",
	       r->p50_us, r->p99_us, r->p999_us, r->max_us);
	printf("  %" PRIu64 " connections accepted, wrong responses %" PRIu64
	       ", connections lost %" PRIu64 ": %s\n",
	       out.server.accepted, r->mismatches, r->lost,
	       echo_ok(&out) ? "OK" : "FAIL");
	return echo_ok(&out);
}

static const char demo_about[] =
	"100 processes count primes and reply, then an echo server answers "
	"50 loopback\nconnections for 2 s; each part ends with OK or FAIL.\n";

int actors_demo_main(int argc, char **argv)
{
	struct demo_run run = { .err = 0 };
	const struct opt opts[] = { OPT_END };
	const struct opt_cmd cmd = { .name = "actors demo",
				     .opts = opts,
				     .about = demo_about,
				     .after = "exit status: 0 both parts OK, 1 "
					      "one failed, 2 a usage error\n" };
	uint64_t expect;
	bool ok;
	int rc, ops;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	rc = demo_expect(&expect);
	if (rc == 0)
		rc = bench_status(act_main(NULL, demo_main, &run), run.err);
	if (rc == 0)
		demo_print(&run, expect);
	else
		fprintf(stderr, "actors demo: %s\n", bench_strerror(rc));
	free(run.per_worker);
	ok = rc == 0 && run.sum == expect;
	fflush(NULL);
	ok = demo_echo() && ok;
	return ok ? 0 : 1;
}
