/* SPDX-License-Identifier: MIT */
/*
 * park_race.c - the park/wake protocols with random short delays between
 * their steps: a hunt for lost wakeups (I2) where the windows are wide.
 *
 * With the park race's test switch on (act__park_test_hooks,
 * lib/base/park.h), every protocol step pair gets a random delay between
 * its steps: a process's publish of WAITING (MUTED, IOWAIT) and its look
 * at the mailbox, a waker's publish and its claim, a claim and the
 * enqueue, an idle worker's announcement and its re-check, a waker's
 * publish and its ring, the reactor's prepare, re-check and sleep. The
 * workload crosses them all: pairs ping-pong across workers, and each
 * side, by its PRNG, waits for the next message with a plain receive, a
 * receive with a deadline that may pass first (a timer racing the
 * message: the reactor's wheel and doorbell), or sleeps before it sends
 * (act_sleep: its worker idles, parks, is rung); every so often the whole
 * pair sleeps a millisecond at once, so that workers park on the futex
 * and the reactor rings them. Run on each path (--all-paths: futex_waitv
 * and FUTEX_WAIT; the doorbell in the ring, an eventfd, no ring), it
 * crosses each parking and doorbell path.
 *
 * What counts as a violation: lost, a pair that stands still for
 * --stall seconds (a lost wakeup never heals in a ping-pong);
 * double-run, a counter out of sequence or a process that resumes while
 * it runs; errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "base/park.h"
#include "common.h"

enum {
	PR_PING = 1,
	PR_PONG,
	PR_STOP,
	PR_DONE,
};

struct side {
	_Atomic int on; /* 1 between a receive's return and the next */
};

struct pair {
	_Atomic uint64_t rounds; /* written by ping */
	_Atomic uint64_t done;	 /* sides that finished */
	act_pid pong;
	uint32_t index;
	struct side side[2];
	struct st_stall watch; /* watchdog only: rounds + done */
} __attribute__((aligned(64)));

static long n_pairs = 32, hooks = 1;

static const struct st_flag flags[] = {
	{ "pairs", &n_pairs, 1, 1000000, "ping-pong pairs" },
	{ "hooks", &hooks, 0, 1,
	  "the delays between the protocols' steps (0: the plain runtime)" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "park_race",
	.iters_name = "rounds",
	.iters_help = "round trips per pair",
	.workers = 4,
	.iters = 2000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	struct pair *pair;
	act_pid main;
	uint64_t expect_done;
	_Atomic uint64_t finished;
	_Atomic uint64_t lost, double_runs, errors, timeouts;
} pr;

static void resumed(struct pair *p, int which)
{
	if (atomic_exchange_explicit(&p->side[which].on, 1,
				     memory_order_relaxed))
		st_report(&pr.double_runs,
			  "pair %u side %d: resumed while "
			  "running",
			  p->index, which);
}

static void pausing(struct pair *p, int which)
{
	atomic_store_explicit(&p->side[which].on, 0, memory_order_relaxed);
}

/* Before a send: nothing, a spin, a yield or a short sleep; every 64th
 * time a millisecond, so that the workers go idle and park. */
static void before_send(struct st_rng *r, uint64_t round)
{
	uint32_t x = st_rng_below(r, 16);

	if (round % 64 == 63) {
		act_sleep(1000000);
		return;
	}
	if (x < 6)
		return;
	if (x < 9)
		st_spin(st_rng_below(r, 1024));
	else if (x < 12)
		act_yield();
	else
		act_sleep((int64_t)st_rng_below(r, 300000));
}

/* The next message, by a plain receive or one with a deadline that may
 * pass first (then a plain one). */
static struct act_msg *next_msg(struct pair *p, int which, struct st_rng *r)
{
	struct act_msg *m = NULL;

	pausing(p, which);
	if (st_rng_below(r, 4) == 0) {
		m = act_receive((int64_t)st_rng_below(r, 500000) + 1);
		if (!m) /* the deadline came first */
			st_add(&pr.timeouts, 1);
	}
	if (!m)
		m = act_receive(ACT_FOREVER);
	resumed(p, which);
	return m;
}

static uint64_t counter_of(const struct act_msg *m, uint32_t tag)
{
	uint64_t c;

	if (!m || m->tag != tag || m->len != sizeof(c))
		return UINT64_MAX;
	memcpy(&c, m->data, sizeof(c));
	return c;
}

static void send_counter(struct pair *p, act_pid to, uint32_t tag, uint64_t c)
{
	int rc = act_send(to, tag, &c, sizeof(c));

	if (rc < 0)
		st_report(&pr.errors, "pair %u: act_send: %s", p->index,
			  strerror(-rc));
}

static void finish(struct pair *p)
{
	st_add(&p->done, 1);
	act_send(pr.main, PR_DONE, NULL, 0);
}

static void ping(void *arg)
{
	struct pair *p = arg;
	struct st_rng rng;
	struct act_msg *m;
	uint64_t r, c;

	st_rng_init(&rng, args.seed, 2 * (uint64_t)p->index);
	resumed(p, 0);
	for (r = 0; r < (uint64_t)args.iters; r++) {
		before_send(&rng, r);
		send_counter(p, p->pong, PR_PING, 2 * r);
		m = next_msg(p, 0, &rng);
		c = counter_of(m, PR_PONG);
		if (c != 2 * r + 1)
			st_report(&pr.double_runs,
				  "pair %u: ping wanted %" PRIu64
				  ", got %" PRIu64,
				  p->index, 2 * r + 1, c);
		act_msg_free(m);
		atomic_store_explicit(&p->rounds, r + 1, memory_order_relaxed);
	}
	send_counter(p, p->pong, PR_STOP, 0);
	finish(p);
}

static void pong(void *arg)
{
	struct pair *p = arg;
	struct st_rng rng;
	struct act_msg *m;
	uint64_t want = 0, c, r = 0;
	bool stop = false;

	st_rng_init(&rng, args.seed, 2 * (uint64_t)p->index + 1);
	while (!stop) {
		m = next_msg(p, 1, &rng);
		stop = !m || m->tag == PR_STOP;
		if (!stop) {
			c = counter_of(m, PR_PING);
			if (c != want)
				st_report(&pr.double_runs,
					  "pair %u: pong wanted %" PRIu64
					  ", got %" PRIu64,
					  p->index, want, c);
			want = c + 2;
			before_send(&rng, r++);
			send_counter(p, m->from, PR_PONG, c + 1);
		}
		act_msg_free(m);
	}
	finish(p);
}

static void pr_main(void *arg)
{
	struct act_msg *m;
	long i;

	(void)arg;
	pr.main = act_self();
	pr.expect_done = 2 * (uint64_t)n_pairs;
	for (i = 0; i < n_pairs; i++) {
		struct pair *p = &pr.pair[i];

		p->pong = act_spawn(pong, p);
		if (!p->pong.id || !act_spawn(ping, p).id) {
			st_report(&pr.errors, "pair %ld: act_spawn failed", i);
			if (p->pong.id)
				act_send(p->pong, PR_STOP, NULL, 0);
			pr.expect_done -= p->pong.id ? 1 : 2;
			atomic_store(&p->done, 2);
		}
	}
	while (st_get(&pr.finished) < pr.expect_done) {
		m = act_receive(ACT_FOREVER);
		if (m && m->tag == PR_DONE)
			st_add(&pr.finished, 1);
		act_msg_free(m);
	}
}

/* ---- watchdog and result --------------------------------------------------- */

static bool stalled(struct pair *p, double now, int *told)
{
	uint64_t done = st_get(&p->done);
	uint64_t v = st_get(&p->rounds) + done;

	if (done == 2 || !st_stalled(&p->watch, v, now, args.stall))
		return false;
	if ((*told)++ < 10)
		fprintf(stderr,
			"park_race: pair %u: no progress for %ld s after "
			"%" PRIu64 " rounds (%" PRIu64 " sides done): a lost "
			"wakeup\n",
			p->index, args.stall, st_get(&p->rounds), done);
	return true;
}

static int pr_check(double now)
{
	uint64_t lost = 0;
	int told = 0;
	long i;

	for (i = 0; i < n_pairs; i++)
		lost += stalled(&pr.pair[i], now, &told);
	atomic_store_explicit(&pr.lost, lost, memory_order_relaxed);
	return lost != 0;
}

static uint64_t pr_progress(void)
{
	uint64_t sum = st_get(&pr.finished);
	long i;

	for (i = 0; i < n_pairs; i++)
		sum += st_get(&pr.pair[i].rounds);
	return sum;
}

static uint64_t pr_violations(void)
{
	return st_get(&pr.lost) + st_get(&pr.double_runs) + st_get(&pr.errors);
}

static void pr_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "lost %" PRIu64 ", double-run %" PRIu64 ", errors %" PRIu64
		 ", %" PRIu64 " round trips, %" PRIu64
		 " receive deadlines passed, delays %s",
		 st_get(&pr.lost), st_get(&pr.double_runs), st_get(&pr.errors),
		 pr_progress() - st_get(&pr.finished), st_get(&pr.timeouts),
		 !hooks		? "off" :
		 ACT_TEST_HOOKS ? "on" :
				  "off (not built: ACT_TEST_HOOKS=0)");
}

int st_main_park_race(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = pr_figures,
		.progress = pr_progress,
		.check = pr_check,
		.violations = pr_violations,
	};
	int rc = st_parse(&args, argc, argv);
	long i;

	if (rc != ST_RUN)
		return rc;
	pr.pair = aligned_alloc(64, (size_t)n_pairs * sizeof(*pr.pair));
	if (!pr.pair) {
		fputs("park_race: out of memory\n", stderr);
		return ST_EXIT_FAIL;
	}
	memset(pr.pair, 0, (size_t)n_pairs * sizeof(*pr.pair));
	for (i = 0; i < n_pairs; i++)
		pr.pair[i].index = (uint32_t)i;
	act__park_test_hooks = hooks != 0;
	rc = st_run(&w, pr_main, NULL);
	act__park_test_hooks = false;
	rc = st_finish(&w, rc, pr_violations());
	free(pr.pair);
	return rc;
}
