/* SPDX-License-Identifier: MIT */
/*
 * wake_storm.c - many pairs ping-pong at once across workers: a hunt for
 * lost wakeups (I2), double runs and duplicate enqueues (I1).
 *
 * Each pair is a ping and a pong process, each placed on a random worker
 * by act_spawn. Ping sends PING 2r, pong answers PONG 2r + 1, for r in
 * 0..rounds-1, then ping sends STOP. Before each send either side may,
 * by its PRNG, yield or spin a little, so a message lands while its
 * receiver is anywhere in the park protocol.
 *
 * What counts as a violation:
 *  - lost: a pair whose counters have not moved for --stall seconds (the
 *    watchdog checks each pair; a lost wake never heals in a ping-pong);
 *  - double-run: a counter out of sequence, a reply from the wrong pid, or
 *    a process found already running when it returns from a receive;
 *  - dup-enqueue: act_stats' refused duplicate enqueues, summed;
 *  - moved: a process that resumed on another worker than the one it
 *    first ran on, while no steal happened under ACTORS_WAKE=last
 *    (nothing else may move it then; under the default, waker, a wake
 *    moves it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	WS_PING = 1,
	WS_PONG,
	WS_STOP,
	WS_DONE,
};

/* One process of a pair. */
struct side {
	_Atomic int on;	  /* 1 between a receive's return and the next */
	_Atomic int home; /* worker it first ran on; -1 before */
};

struct pair {
	_Atomic uint64_t rounds; /* round trips done; written by ping */
	_Atomic uint64_t done;	 /* sides that finished */
	act_pid pong;
	uint32_t index;
	struct side side[2];   /* 0 ping, 1 pong */
	struct st_stall watch; /* watchdog only: rounds + done */
} __attribute__((aligned(64)));

static long n_pairs = 64;

static const struct st_flag flags[] = {
	{ "pairs", &n_pairs, 1, 1000000, "ping-pong pairs" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "wake_storm",
	.iters_name = "rounds",
	.iters_help = "round trips per pair",
	.workers = 4,
	.iters = 50000, /* 100,000 took 9-30 s on a busy 2-core VM */
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	struct pair *pair;
	act_pid main;
	uint64_t expect_done;	   /* DONE messages main waits for */
	_Atomic uint64_t finished; /* DONE messages main received */
	_Atomic uint64_t lost, double_runs, moved, errors;
	_Atomic uint64_t dup_enqueues, steals; /* main process, at the end */
} ws;

/* ---- violations ---------------------------------------------------------- */

/* After every receive: is this process already running elsewhere, or on
 * another worker than before? */
static void resumed(struct pair *pr, int which)
{
	struct side *s = &pr->side[which];
	int home = -1, here = act_worker();

	if (atomic_exchange_explicit(&s->on, 1, memory_order_relaxed))
		st_report(&ws.double_runs,
			  "pair %u side %d: resumed while "
			  "running",
			  pr->index, which);
	if (!atomic_compare_exchange_strong_explicit(&s->home, &home, here,
						     memory_order_relaxed,
						     memory_order_relaxed) &&
	    home != here)
		atomic_fetch_add_explicit(&ws.moved, 1, memory_order_relaxed);
}

static void pausing(struct pair *pr, int which)
{
	atomic_store_explicit(&pr->side[which].on, 0, memory_order_relaxed);
}

/* ---- the pair ------------------------------------------------------------ */

static void jitter(struct st_rng *r)
{
	uint32_t x = st_rng_below(r, 64);

	if (x < 8)
		act_yield();
	else if (x < 12)
		st_spin(st_rng_below(r, 512));
}

static void send_counter(struct pair *pr, act_pid to, uint32_t tag, uint64_t c)
{
	int rc = act_send(to, tag, &c, sizeof(c));

	if (rc < 0)
		st_report(&ws.errors, "pair %u: act_send tag %u: %s", pr->index,
			  tag, strerror(-rc));
}

/* Reads a counter message; UINT64_MAX if it is not one from `from`. */
static uint64_t counter_of(const struct act_msg *m, uint32_t tag, act_pid from)
{
	uint64_t c;

	if (m->tag != tag || m->len != sizeof(c) ||
	    (from.id && !act_pid_eq(m->from, from)))
		return UINT64_MAX;
	memcpy(&c, m->data, sizeof(c));
	return c;
}

static void expect_pong(struct pair *pr, uint64_t want)
{
	struct act_msg *m;
	uint64_t c;

	pausing(pr, 0);
	m = act_receive(ACT_FOREVER);
	resumed(pr, 0);
	c = m ? counter_of(m, WS_PONG, pr->pong) : UINT64_MAX;
	if (c != want)
		st_report(&ws.double_runs,
			  "pair %u: ping wanted %" PRIu64 ", got %" PRIu64,
			  pr->index, want, c);
	act_msg_free(m);
}

static void finish(struct pair *pr)
{
	st_add(&pr->done, 1);
	act_send(ws.main, WS_DONE, NULL, 0);
}

static void ping(void *arg)
{
	struct pair *pr = arg;
	struct st_rng rng;
	uint64_t r;

	st_rng_init(&rng, args.seed, 2 * (uint64_t)pr->index);
	resumed(pr, 0);
	for (r = 0; r < (uint64_t)args.iters; r++) {
		jitter(&rng);
		send_counter(pr, pr->pong, WS_PING, 2 * r);
		expect_pong(pr, 2 * r + 1);
		atomic_store_explicit(&pr->rounds, r + 1, memory_order_relaxed);
	}
	send_counter(pr, pr->pong, WS_STOP, 0);
	finish(pr);
}

/* One PING: checks it, answers it. */
static void answer(struct pair *pr, struct st_rng *rng, const struct act_msg *m,
		   uint64_t *want)
{
	uint64_t c = counter_of(m, WS_PING, ACT_PID_NONE);

	if (c != *want)
		st_report(&ws.double_runs,
			  "pair %u: pong wanted %" PRIu64 ", got %" PRIu64,
			  pr->index, *want, c);
	*want = c + 2;
	jitter(rng);
	send_counter(pr, m->from, WS_PONG, c + 1);
}

static void pong(void *arg)
{
	struct pair *pr = arg;
	struct st_rng rng;
	struct act_msg *m;
	uint64_t want = 0;
	bool stop = false;

	st_rng_init(&rng, args.seed, 2 * (uint64_t)pr->index + 1);
	while (!stop) {
		pausing(pr, 1);
		m = act_receive(ACT_FOREVER);
		resumed(pr, 1);
		stop = !m || m->tag == WS_STOP;
		if (!stop)
			answer(pr, &rng, m, &want);
		act_msg_free(m);
	}
	finish(pr);
}

/* ---- the main process ---------------------------------------------------- */

static void start_pair(struct pair *pr)
{
	pr->pong = act_spawn(pong, pr);
	if (!pr->pong.id) {
		st_report(&ws.errors, "pair %u: act_spawn failed", pr->index);
		atomic_store(&pr->done, 2);
		ws.expect_done -= 2;
		return;
	}
	if (!act_spawn(ping, pr).id) {
		st_report(&ws.errors, "pair %u: act_spawn failed", pr->index);
		act_send(pr->pong, WS_STOP, NULL, 0);
		atomic_store(&pr->done, 1);
		ws.expect_done--;
	}
}

static void take_stats(void)
{
	int n = act_workers();
	struct act_worker_stats *w = calloc((size_t)n, sizeof(*w));

	if (!w || act_stats(NULL, w, n) != n) {
		st_report(&ws.errors, "act_stats failed");
	} else {
		st_add(&ws.dup_enqueues, ST_STATS_SUM(w, n, dup_enqueues));
		st_add(&ws.steals, ST_STATS_SUM(w, n, steals));
	}
	free(w);
}

static void ws_main(void *arg)
{
	struct act_msg *m;
	long i;

	(void)arg;
	ws.main = act_self();
	ws.expect_done = 2 * (uint64_t)n_pairs;
	for (i = 0; i < n_pairs; i++)
		start_pair(&ws.pair[i]);
	while (st_get(&ws.finished) < ws.expect_done) {
		m = act_receive(ACT_FOREVER);
		if (m && m->tag == WS_DONE)
			st_add(&ws.finished, 1);
		act_msg_free(m);
	}
	take_stats();
}

/* ---- watchdog and result ------------------------------------------------- */

/* Watchdog: has this pair stood still for --stall seconds? Tells the
 * first ten (told counts them). */
static bool pair_stalled(struct pair *pr, double now, int *told)
{
	uint64_t done = st_get(&pr->done);
	uint64_t v = st_get(&pr->rounds) + done;

	if (done == 2 || !st_stalled(&pr->watch, v, now, args.stall))
		return false;
	if ((*told)++ >= 10)
		return true;
	fprintf(stderr,
		"wake_storm: pair %u: no progress for %ld s after %" PRIu64
		" rounds (ping on worker %d, pong on worker %d, %" PRIu64
		" sides done)\n",
		pr->index, args.stall, st_get(&pr->rounds),
		atomic_load(&pr->side[0].home), atomic_load(&pr->side[1].home),
		done);
	return true;
}

static int ws_check(double now)
{
	uint64_t lost = 0;
	int told = 0;
	long i;

	for (i = 0; i < n_pairs; i++)
		lost += pair_stalled(&ws.pair[i], now, &told);
	atomic_store_explicit(&ws.lost, lost, memory_order_relaxed);
	return lost != 0;
}

/* The main process's DONEs: they stall only when it lost a wake. */
static uint64_t ws_progress(void)
{
	uint64_t sum = st_get(&ws.finished);
	long i;

	for (i = 0; i < n_pairs; i++)
		sum += st_get(&ws.pair[i].rounds);
	return sum;
}

static void ws_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "lost %" PRIu64 ", double-run %" PRIu64
		 ", dup-enqueue %" PRIu64 ", moved %" PRIu64 ", steals %" PRIu64
		 ", errors %" PRIu64 ", %" PRIu64 " round trips",
		 st_get(&ws.lost), st_get(&ws.double_runs),
		 st_get(&ws.dup_enqueues), st_get(&ws.moved),
		 st_get(&ws.steals), st_get(&ws.errors),
		 ws_progress() - st_get(&ws.finished));
}

static uint64_t violations(void)
{
	uint64_t v = st_get(&ws.lost) + st_get(&ws.double_runs) +
		     st_get(&ws.dup_enqueues) + st_get(&ws.errors);

	const char *wake = getenv("ACTORS_WAKE");

	/* under ACTORS_WAKE=last, only a steal may move a process */
	if (!st_get(&ws.steals) && wake && !strcmp(wake, "last"))
		v += st_get(&ws.moved);
	return v;
}

static void init_pairs(void)
{
	long i;

	ws.pair = aligned_alloc(64, (size_t)n_pairs * sizeof(*ws.pair));
	if (!ws.pair) {
		fputs("wake_storm: out of memory\n", stderr);
		exit(ST_EXIT_FAIL);
	}
	memset(ws.pair, 0, (size_t)n_pairs * sizeof(*ws.pair));
	for (i = 0; i < n_pairs; i++) {
		ws.pair[i].index = (uint32_t)i;
		atomic_store(&ws.pair[i].side[0].home, -1);
		atomic_store(&ws.pair[i].side[1].home, -1);
	}
}

int st_main_wake_storm(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = ws_figures,
		.progress = ws_progress,
		.violations = violations,
		.check = ws_check,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	init_pairs();
	rc = st_run(&w, ws_main, NULL);
	rc = st_finish(&w, rc, violations());
	free(ws.pair);
	return rc;
}
