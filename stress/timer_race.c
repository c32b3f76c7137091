/* SPDX-License-Identifier: MIT */
/*
 * timer_race.c - timer cancels against timer fires, many times over: each
 * timer has exactly one outcome (act_timer_cancel(3)).
 *
 * Each racer, a process placed by act_spawn, sets a one-shot timer to
 * itself (act_send_after, a deadline of 0 to 2 wheel ticks chosen by its
 * PRNG), waits a random moment (nothing, a spin, a yield or a short
 * act_sleep, so that the cancel lands before, at and after the reactor's
 * fire) and cancels it:
 *
 *  - 0: cancelled. Its message must never come: a later receive of it
 *    counts as fired-after-cancel.
 *  - -ENOENT: it fired, and its message is in the mailbox already (the
 *    man page's promise): the racer takes it with a zero timeout, and a
 *    miss counts as lost.
 *  - anything else counts as an error.
 *
 * Every message carries the racer's sequence number; one received twice
 * counts as duplicated, one that is not the racer's as misdelivered. At
 * the end each racer sets one more timer, later than all of its others,
 * and receives until it comes: whatever arrives on the way is checked
 * the same way, so a cancelled timer that fires late is caught.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	TR_FIRE = 1,
	TR_LAST,
	TR_DONE,
};

#define TICK_NS 250000 /* act_config's default timer_us */

/* A racer's record of its timers, a byte a sequence number. */
enum { TS_SET = 0, TS_CANCELLED, TS_FIRED, TS_RECEIVED };

struct racer {
	uint32_t index;
	uint8_t *state; /* iters entries */
	_Atomic uint64_t done;
} __attribute__((aligned(64)));

struct fire {
	uint32_t racer;
	uint32_t rsvd;
	uint64_t seq;
};

static long n_racers = 16;

static const struct st_flag flags[] = {
	{ "racers", &n_racers, 1, 100000, "racing processes" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "timer_race",
	.iters_name = "timers",
	.iters_help = "timers per racer",
	.workers = 4,
	.iters = 10000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	struct racer *racer;
	act_pid main;
	_Atomic uint64_t finished;
	_Atomic uint64_t cancelled, fired;
	_Atomic uint64_t lost, late, dups, misdelivered, errors;
} tr;

/* One message the racer took: its timer's record says whether it may. */
static void took(struct racer *r, const struct act_msg *m)
{
	struct fire f;

	if (m->tag == TR_LAST)
		return;
	if (m->tag != TR_FIRE || m->len != sizeof(f)) {
		st_report(&tr.misdelivered,
			  "racer %u: a message tag %u len %zu", r->index,
			  m->tag, m->len);
		return;
	}
	memcpy(&f, m->data, sizeof(f));
	if (f.racer != r->index || f.seq >= (uint64_t)args.iters) {
		st_report(&tr.misdelivered, "racer %u: timer %u/%" PRIu64,
			  r->index, f.racer, f.seq);
		return;
	}
	switch (r->state[f.seq]) {
	case TS_CANCELLED:
		st_report(&tr.late,
			  "racer %u: timer %" PRIu64 " fired after its "
			  "cancel returned 0",
			  r->index, f.seq);
		break;
	case TS_RECEIVED:
		st_report(&tr.dups, "racer %u: timer %" PRIu64 " came twice",
			  r->index, f.seq);
		break;
	default: /* TS_SET: ahead of its cancel; TS_FIRED: as promised */
		break;
	}
	r->state[f.seq] = TS_RECEIVED;
}

static bool is_fire_of(const struct act_msg *m, void *ctx)
{
	const uint64_t *seq = ctx;
	struct fire f;

	if (m->tag != TR_FIRE || m->len != sizeof(f))
		return false;
	memcpy(&f, m->data, sizeof(f));
	return f.seq == *seq;
}

/* Between the set and the cancel: a moment of its PRNG's choosing. */
static void wait_a_moment(struct st_rng *rng)
{
	uint32_t x = st_rng_below(rng, 16);

	if (x < 4)
		return;
	if (x < 9)
		st_spin(st_rng_below(rng, 4096));
	else if (x < 12)
		act_yield();
	else
		act_sleep((int64_t)st_rng_below(rng, 3 * TICK_NS));
}

static void one_timer(struct racer *r, struct st_rng *rng, uint64_t seq)
{
	struct fire f = { r->index, 0, seq };
	struct act_msg *m;
	act_timer ref;
	int rc;

	r->state[seq] = TS_SET;
	rc = act_send_after((int64_t)st_rng_below(rng, 2 * TICK_NS + 1),
			    act_self(), TR_FIRE, &f, sizeof(f), &ref);
	if (rc) {
		st_report(&tr.errors, "racer %u: act_send_after: %s", r->index,
			  strerror(-rc));
		return;
	}
	wait_a_moment(rng);
	rc = act_timer_cancel(ref);
	if (rc == 0) {
		if (r->state[seq] == TS_RECEIVED)
			st_report(&tr.late,
				  "racer %u: timer %" PRIu64 " cancelled (0) "
				  "after its message came",
				  r->index, seq);
		else
			r->state[seq] = TS_CANCELLED;
		st_add(&tr.cancelled, 1);
		return;
	}
	if (rc != -ENOENT) {
		st_report(&tr.errors, "racer %u: act_timer_cancel: %s",
			  r->index, strerror(-rc));
		return;
	}
	st_add(&tr.fired, 1);
	if (r->state[seq] == TS_RECEIVED) /* taken during the moment */
		return;
	r->state[seq] = TS_FIRED;
	/* -ENOENT: it has sent its message, which is in the mailbox */
	m = act_receive_match(is_fire_of, &seq, 0);
	if (!m) {
		st_report(&tr.lost,
			  "racer %u: timer %" PRIu64 " fired (-ENOENT) but "
			  "its message is not in the mailbox",
			  r->index, seq);
		return;
	}
	took(r, m);
	act_msg_free(m);
}

static void racer(void *arg)
{
	struct racer *r = arg;
	struct st_rng rng;
	struct act_msg *m;
	uint64_t seq;
	bool last = false;

	st_rng_init(&rng, args.seed, r->index);
	for (seq = 0; seq < (uint64_t)args.iters; seq++) {
		one_timer(r, &rng, seq);
		/* whatever else came meanwhile (a fire that beat the
		 * receive above, none other should) */
		while ((m = act_receive(0))) {
			took(r, m);
			act_msg_free(m);
		}
		atomic_store_explicit(&r->done, seq + 1, memory_order_relaxed);
	}
	/* later than every timer above: a cancelled one that still fires
	 * comes before it */
	if (act_send_after(4 * TICK_NS, act_self(), TR_LAST, NULL, 0, NULL)) {
		st_report(&tr.errors, "racer %u: the last timer", r->index);
		last = true;
	}
	while (!last) {
		m = act_receive(ACT_FOREVER);
		if (!m)
			break;
		last = m->tag == TR_LAST;
		took(r, m);
		act_msg_free(m);
	}
	act_send(tr.main, TR_DONE, NULL, 0);
}

static void tr_main(void *arg)
{
	struct act_msg *m;
	long i;

	(void)arg;
	tr.main = act_self();
	for (i = 0; i < n_racers; i++)
		if (!act_spawn(racer, &tr.racer[i]).id) {
			st_report(&tr.errors, "racer %ld: act_spawn failed", i);
			st_add(&tr.finished, 1);
		}
	while (st_get(&tr.finished) < (uint64_t)n_racers) {
		m = act_receive(ACT_FOREVER);
		if (m && m->tag == TR_DONE)
			st_add(&tr.finished, 1);
		act_msg_free(m);
	}
}

static uint64_t tr_progress(void)
{
	uint64_t sum = st_get(&tr.finished);
	long i;

	for (i = 0; i < n_racers; i++)
		sum += atomic_load_explicit(&tr.racer[i].done,
					    memory_order_relaxed);
	return sum;
}

static uint64_t tr_violations(void)
{
	return st_get(&tr.lost) + st_get(&tr.late) + st_get(&tr.dups) +
	       st_get(&tr.misdelivered) + st_get(&tr.errors);
}

static void tr_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "cancelled %" PRIu64 ", fired %" PRIu64 ", lost %" PRIu64
		 ", fired-after-cancel %" PRIu64 ", duplicated %" PRIu64
		 ", misdelivered %" PRIu64 ", errors %" PRIu64,
		 st_get(&tr.cancelled), st_get(&tr.fired), st_get(&tr.lost),
		 st_get(&tr.late), st_get(&tr.dups), st_get(&tr.misdelivered),
		 st_get(&tr.errors));
}

int st_main_timer_race(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = tr_figures,
		.progress = tr_progress,
		.violations = tr_violations,
	};
	int rc = st_parse(&args, argc, argv);
	long i;

	if (rc != ST_RUN)
		return rc;
	tr.racer = aligned_alloc(64, (size_t)n_racers * sizeof(*tr.racer));
	if (!tr.racer) {
		fputs("timer_race: out of memory\n", stderr);
		return ST_EXIT_FAIL;
	}
	memset(tr.racer, 0, (size_t)n_racers * sizeof(*tr.racer));
	for (i = 0; i < n_racers; i++) {
		tr.racer[i].index = (uint32_t)i;
		tr.racer[i].state = calloc((size_t)args.iters, 1);
		if (!tr.racer[i].state) {
			fputs("timer_race: out of memory\n", stderr);
			return ST_EXIT_FAIL;
		}
	}
	rc = st_run(&w, tr_main, NULL);
	rc = st_finish(&w, rc, tr_violations());
	for (i = 0; i < n_racers; i++)
		free(tr.racer[i].state);
	free(tr.racer);
	return rc;
}
