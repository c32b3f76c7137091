/* SPDX-License-Identifier: MIT */
/*
 * blocking_main.c - bench/blocking [CALLERS [ROUNDS]]: act_blocking's
 * pool against its ideal, and what it costs the processes that do not
 * block (doc/benchmarks.md "Blocking work").
 *
 * With 2 workers and a pool of P threads (8, 16, 64), CALLERS processes
 * (1,000) each call act_blocking with a function that sleeps 10 ms
 * (nanosleep). Ideal elapsed: 10 ms x CALLERS / P. Meanwhile a ping-pong
 * pair on the same workers bounces a counter; its time per message is
 * compared with the same pair's alone on the same runtime for the same
 * span, in alternating rounds (alone, with, alone, with, ...). Prints a
 * line per round and "RESULT blocking P elapsed_ms ideal_ms ratio
 * pingpong_ratio" per pool size, the medians of the rounds.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <actors.h>

#include "bench.h"

#define SLEEP_NS 10000000L
#define WORKERS 2
#define MAX_ROUNDS 21

enum { T_PING = 1, T_PONG, T_STOP, T_DONE, T_COUNT };

struct run {
	long callers;
	bool with;	 /* the blocking callers too, else the pair alone */
	int64_t span_ns; /* alone: how long the pair runs */
	int64_t elapsed_ns;
	uint64_t messages;
	_Atomic int stop;
	act_pid main;
	int err;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_fn(void *arg)
{
	struct timespec ts = { 0, SLEEP_NS };

	(void)arg;
	nanosleep(&ts, NULL);
}

static void caller(void *arg)
{
	struct run *r = arg;

	if (act_blocking(sleep_fn, NULL))
		r->err = BENCH_EPROTO;
	act_send(r->main, T_DONE, NULL, 0);
}

static void ponger(void *arg)
{
	struct act_msg *m;
	bool stop = false;

	(void)arg;
	while (!stop && (m = act_receive(ACT_FOREVER)) != NULL) {
		stop = m->tag == T_STOP;
		if (!stop)
			act_send(m->from, T_PONG, NULL, 0);
		act_msg_free(m);
	}
}

/* Round trips until stop; the count of messages goes to main. */
static void pinger(void *arg)
{
	struct run *r = arg;
	act_pid pong = act_spawn(ponger, NULL);
	uint64_t n = 0;
	struct act_msg *m;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		act_send(pong, T_PING, NULL, 0);
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != T_PONG)
			r->err = BENCH_EPROTO;
		act_msg_free(m);
		n += 2;
	}
	act_send(pong, T_STOP, NULL, 0);
	act_send(r->main, T_COUNT, &n, sizeof(n));
}

static void bench_main(void *arg)
{
	struct run *r = arg;
	struct act_msg *m;
	int64_t t0;
	long i;

	r->main = act_self();
	act_spawn(pinger, r);
	t0 = now_ns();
	if (r->with) {
		for (i = 0; i < r->callers; i++)
			if (act_pid_eq(act_spawn(caller, r), ACT_PID_NONE))
				r->err = BENCH_ESPAWN;
		for (i = 0; i < r->callers; i++)
			act_msg_free(act_receive(ACT_FOREVER));
	} else {
		act_sleep(r->span_ns);
	}
	r->elapsed_ns = now_ns() - t0;
	atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
	m = act_receive(ACT_FOREVER);
	if (m && m->tag == T_COUNT && m->len == sizeof(r->messages))
		r->messages = *(uint64_t *)m->data;
	act_msg_free(m);
}

static int run_once(struct run *r, uint32_t pool)
{
	struct act_config cfg;
	int rc;

	act_config_init(&cfg);
	cfg.schedulers = WORKERS;
	cfg.blocking_threads = pool;
	atomic_store(&r->stop, 0);
	r->messages = 0;
	rc = act_main(&cfg, bench_main, r);
	if (rc)
		return rc < 0 ? rc : BENCH_EEXIT;
	return r->err ? r->err : (r->messages ? 0 : BENCH_EPROTO);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const uint32_t pools[] = { 8, 16, 64 };
	double ratio[MAX_ROUNDS], ppr[MAX_ROUNDS], el[MAX_ROUNDS];
	long callers = 1000, rounds = 5;
	const struct bench_arg args[] = {
		{ "CALLERS", &callers, 1, 1000000,
		  "processes calling act_blocking" },
		{ "ROUNDS", &rounds, 1, MAX_ROUNDS,
		  "rounds (alone, then with) per pool size" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/blocking",
		.about = "With 2 workers and a blocking pool of 8, 16 and 64 "
			 "threads, CALLERS\nprocesses each call act_blocking "
			 "with a 10 ms sleep, while a ping-pong\npair runs; "
			 "its time per message is compared with the pair's "
			 "alone.\n",
		.args = args,
		.after = "Prints a line per round, then per pool size "
			 "\"RESULT blocking POOL\nELAPSED_MS IDEAL_MS RATIO "
			 "PINGPONG_RATIO\", the medians of the rounds.\n"
			 "exit status: 0 the runs completed, 1 one failed, "
			 "2 a usage error\n",
	};
	struct run with = { .callers = 0 }, alone;
	double ideal, ns_with, ns_alone;
	unsigned p;
	int k, rc;

	rc = bench_args(&cmd, argc, argv);
	if (rc != BENCH_RUN)
		return rc;
	for (p = 0; p < sizeof(pools) / sizeof(pools[0]); p++) {
		ideal = (double)SLEEP_NS * (double)callers / pools[p];
		for (k = 0; k < rounds; k++) {
			/* alone first, for the span the last run with took
			 * (the ideal, the first time) */
			alone = (struct run){ .callers = callers,
					      .with = false };
			alone.span_ns = k ? with.elapsed_ns : (int64_t)ideal;
			rc = run_once(&alone, pools[p]);
			with = (struct run){ .callers = callers, .with = true };
			if (!rc)
				rc = run_once(&with, pools[p]);
			if (rc) {
				fprintf(stderr, "blocking: %s\n",
					bench_strerror(rc));
				return 1;
			}
			ns_with = (double)with.elapsed_ns / with.messages;
			ns_alone = (double)alone.elapsed_ns / alone.messages;
			el[k] = with.elapsed_ns / 1e6;
			ratio[k] = with.elapsed_ns / ideal;
			ppr[k] = ns_with / ns_alone;
			printf("pool %3u round %d: %ld calls of 10 ms in %.1f ms "
			       "(ideal %.1f, x%.2f); ping-pong %.0f ns/msg "
			       "with, %.0f alone (x%.2f)\n",
			       pools[p], k, callers, el[k], ideal / 1e6,
			       ratio[k], ns_with, ns_alone, ppr[k]);
		}
		printf("RESULT blocking %u %.1f %.1f %.3f %.3f\n", pools[p],
		       median(el, (int)rounds), ideal / 1e6,
		       median(ratio, (int)rounds), median(ppr, (int)rounds));
	}
	return 0;
}
