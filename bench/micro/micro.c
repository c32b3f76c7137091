/* SPDX-License-Identifier: MIT */
/*
 * micro.c - bench/micro/micro: the steps of one message, each alone, in
 * nanoseconds an operation, for the breakdown in
 * doc/design/scheduling.md ("One message, step by step").
 *
 *   bench/micro/micro [-n N] [STEP...]   (default: every step;
 *                                         --help says more)
 *
 * Each step runs N operations (default 10,000,000) on one thread, warm,
 * five times; it prints the fastest run ("STEP ns/op"), the figure least
 * disturbed by this machine's drift. The steps, from the library's own
 * code (linked from libactors_core), with what each one costs a message:
 *
 *   switch      one act__ctx_switch between two contexts (a message
 *               between two processes on one worker: one)
 *   xchg        a seq_cst exchange on a private word (a locked RMW; the
 *               mailbox push, the park's seq_cst store of WAITING)
 *   cas         a successful compare-exchange on a private word (the
 *               wake's WAITING -> RUNNABLE)
 *   mpsc        act__mpsc_push then act__mpsc_pop of one node on an
 *               empty queue: the mailbox of one message (two exchanges:
 *               the push, and the pop's stub push behind the last node)
 *   slab        act__slab_alloc then act__slab_free of an 8-byte envelope
 *   runq        act__runq_push_lifo then act__runq_pop of one process
 *   send_self   act_send to itself, act_receive(0), act_msg_free, in a
 *               process: the whole message path but the switch and the
 *               park (the receiver is running, so nobody is woken)
 *   pingpong    one message of bench/pingpong (send, wake, park, switch,
 *               receive), for the sum to be compared with
 *
 * Exit status 0, or 2 on a usage error (one line on stderr).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <actors.h>

#include "arch/ctx.h"
#include "base/mpsc.h"
#include "proc/proc.h"
#include "sched/runq.h"
#include "mem/slab.h"

#define STACK_LEN ((size_t)64 << 10)

static long n_ops = 10000000;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- switch ------------------------------------------------------------ */

static struct act__ctx main_ctx, co_ctx;

static void co_entry(void *arg, void *arg2)
{
	(void)arg;
	(void)arg2;
	for (;;)
		act__ctx_switch(&co_ctx, &main_ctx);
}

static double run_switch(void)
{
	void *stk = mmap(NULL, STACK_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0, t1;
	long i;

	if (stk == MAP_FAILED)
		return -1;
	act__ctx_make(&co_ctx, (char *)stk + STACK_LEN, co_entry, NULL, NULL);
	act__ctx_switch(&main_ctx, &co_ctx); /* first touch of its stack */
	t0 = now_s();
	for (i = 0; i < n_ops / 2; i++)
		act__ctx_switch(&main_ctx, &co_ctx); /* there and back */
	t1 = now_s();
	act__ctx_destroy(&co_ctx);
	munmap(stk, STACK_LEN);
	return (t1 - t0) / (double)(n_ops / 2 * 2);
}

/* ---- atomics ------------------------------------------------------------ */

static _Atomic uint64_t word;

static double run_xchg(void)
{
	double t0 = now_s();
	long i;

	for (i = 0; i < n_ops; i++)
		atomic_exchange_explicit(&word, (uint64_t)i,
					 memory_order_seq_cst);
	return (now_s() - t0) / (double)n_ops;
}

static double run_cas(void)
{
	double t0 = now_s();
	uint64_t v;
	long i;

	atomic_store(&word, 0);
	for (i = 0; i < n_ops; i++) {
		v = (uint64_t)i;
		atomic_compare_exchange_strong_explicit(&word, &v,
							(uint64_t)i + 1,
							memory_order_acq_rel,
							memory_order_relaxed);
	}
	return (now_s() - t0) / (double)n_ops;
}

/* ---- mailbox queue ------------------------------------------------------ */

static double run_mpsc(void)
{
	static struct act__mpsc q;
	static struct act__mpsc_node node;
	double t0;
	long i;

	act__mpsc_init(&q);
	t0 = now_s();
	for (i = 0; i < n_ops; i++) {
		act__mpsc_push(&q, &node);
		if (act__mpsc_pop(&q) != &node)
			abort();
	}
	return (now_s() - t0) / (double)n_ops;
}

/* ---- envelope slab ------------------------------------------------------ */

static double run_slab(void)
{
	static struct act__slab s;
	struct act__envelope *e;
	double t0;
	long i;

	act__slab_init(&s, 0);
	t0 = now_s();
	for (i = 0; i < n_ops; i++) {
		e = act__slab_alloc(&s, 8);
		if (!e)
			abort();
		act__slab_free(&s, e);
	}
	t0 = now_s() - t0;
	act__slab_destroy(&s);
	return t0 / (double)n_ops;
}

/* ---- run queue ---------------------------------------------------------- */

static double run_runq(void)
{
	static struct act__runq q;
	static struct act__proc p;
	double t0;
	long i;

	act__runq_init(&q, false);
	t0 = now_s();
	for (i = 0; i < n_ops; i++) {
		act__runq_push_lifo(&q, &p);
		if (act__runq_pop(&q) != &p)
			abort();
	}
	return (now_s() - t0) / (double)n_ops;
}

/* ---- through the runtime ------------------------------------------------ */

static double rt_result;

static void send_self_main(void *arg)
{
	act_pid self = act_self();
	uint64_t v = 1;
	struct act_msg *m;
	double t0;
	long i;

	(void)arg;
	t0 = now_s();
	for (i = 0; i < n_ops; i++) {
		if (act_send(self, 1, &v, sizeof(v)))
			abort();
		m = act_receive(0);
		if (!m)
			abort();
		act_msg_free(m);
	}
	rt_result = (now_s() - t0) / (double)n_ops;
}

static void pp_partner(void *arg)
{
	act_pid main = *(act_pid *)arg;
	struct act_msg *m;

	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m->tag == 2) {
			act_msg_free(m);
			return;
		}
		act_msg_free(m);
		act_send(main, 1, NULL, 0);
	}
}

static void pingpong_main(void *arg)
{
	act_pid self = act_self(), peer;
	struct act_msg *m;
	double t0;
	long i;

	(void)arg;
	peer = act_spawn(pp_partner, &self);
	t0 = now_s();
	for (i = 0; i < n_ops / 2; i++) {
		act_send(peer, 1, NULL, 0);
		m = act_receive(ACT_FOREVER);
		act_msg_free(m);
	}
	rt_result = (now_s() - t0) / (double)(n_ops / 2 * 2);
	act_send(peer, 2, NULL, 0);
}

static double in_runtime(void (*fn)(void *))
{
	struct act_config cfg;

	act_config_init(&cfg);
	cfg.schedulers = 1;
	rt_result = -1;
	if (act_main(&cfg, fn, NULL))
		return -1;
	return rt_result;
}

static double run_send_self(void)
{
	return in_runtime(send_self_main);
}

static double run_pingpong(void)
{
	return in_runtime(pingpong_main);
}

/* ---- main --------------------------------------------------------------- */

static const struct step {
	const char *name;
	double (*run)(void);
} steps[] = {
	{ "switch", run_switch },
	{ "xchg", run_xchg },
	{ "cas", run_cas },
	{ "mpsc", run_mpsc },
	{ "slab", run_slab },
	{ "runq", run_runq },
	{ "send_self", run_send_self },
	{ "pingpong", run_pingpong },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

#define PROG "bench/micro/micro" /* its name in the usage and errors */
#define N_MIN 2L
#define N_MAX 1000000000L
#define RUN (-1)

static void step_names(FILE *f, const char *last)
{
	size_t i;

	for (i = 0; i < NSTEPS; i++)
		fprintf(f, "%s%s", i ? (i + 1 < NSTEPS ? ", " : last) : "",
			steps[i].name);
}

static int usage(void)
{
	printf("usage: " PROG " [-n N] [STEP...]\n"
	       "Times each STEP of one message alone, on one thread, warm: N "
	       "operations, five\ntimes; prints the fastest run "
	       "(bench/micro/micro.c says what each step is).\n"
	       "  -n N        operations a run, %ld to %ld (default %ld)\n"
	       "  STEP        the steps to run, in order (default: all):\n"
	       "              ",
	       N_MIN, N_MAX, n_ops);
	step_names(stdout, " or ");
	printf("\n  -h, --help  this text\n"
	       "Prints \"STEP NS ns/op\" a step on stdout (\"STEP failed\" "
	       "when it could not run).\n"
	       "exit status: 0, or 2 a usage error\n");
	return fflush(stdout) == EOF ? 1 : 0;
}

static const struct step *find_step(const char *name)
{
	size_t i;

	for (i = 0; i < NSTEPS; i++)
		if (!strcmp(name, steps[i].name))
			return &steps[i];
	return NULL;
}

/* -n N and the steps, all checked before any runs: RUN, or the exit
 * status. */
static int parse_args(int argc, char **argv)
{
	bool options = true;
	char *end;
	int a;

	for (a = 1; a < argc && strcmp(argv[a], "--"); a++)
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
			return usage();
	for (a = 1; a < argc; a++) {
		if (options && !strcmp(argv[a], "--")) {
			options = false;
		} else if (options && !strcmp(argv[a], "-n")) {
			if (++a == argc) {
				fprintf(stderr,
					PROG ": -n needs a value: "
					     "expected %ld to %ld\n",
					N_MIN, N_MAX);
				return 2;
			}
			errno = 0;
			n_ops = strtol(argv[a], &end, 10);
			if (errno || end == argv[a] || *end || n_ops < N_MIN ||
			    n_ops > N_MAX) {
				fprintf(stderr,
					PROG ": -n: bad value '%s': expected "
					     "%ld to %ld\n",
					argv[a], N_MIN, N_MAX);
				return 2;
			}
		} else if (options && argv[a][0] == '-' && argv[a][1]) {
			fprintf(stderr,
				PROG ": unknown option %s: expected "
				     "[-n N] [STEP...] or --help\n",
				argv[a]);
			return 2;
		} else if (!find_step(argv[a])) {
			fprintf(stderr,
				PROG ": STEP: bad value '%s': expected ",
				argv[a]);
			step_names(stderr, " or ");
			fputc('\n', stderr);
			return 2;
		}
	}
	return RUN;
}

static void one(const struct step *s)
{
	double best = -1, t;
	int r;

	for (r = 0; r < 5; r++) {
		t = s->run();
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	if (best < 0)
		printf("%-10s failed\n", s->name);
	else
		printf("%-10s %7.2f ns/op\n", s->name, best * 1e9);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const struct step *s;
	int a, ran = 0;
	size_t i;

	a = parse_args(argc, argv);
	if (a != RUN)
		return a;
	/* every word that names a step is one: -n's value is a number */
	for (a = 1; a < argc; a++) {
		s = find_step(argv[a]);
		if (s) {
			one(s);
			ran = 1;
		}
	}
	if (!ran)
		for (i = 0; i < NSTEPS; i++)
			one(&steps[i]);
	return 0;
}
