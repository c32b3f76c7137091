/* SPDX-License-Identifier: MIT */
/*
 * test_wheel.c - the reactor's hierarchical timer wheel (lib/reactor/wheel.c):
 * timers fire at their tick, never early, in deadline order within a
 * tick; cancel takes one off in O(1); a fire callback may add and delete;
 * timers beyond the six levels wait on the far list; act__wheel_next_ns
 * never sleeps past a timer; and a random mix of adds, cancels and
 * advances at every scale matches a brute-force reference.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "reactor/wheel.h"

#define TICK 1000 /* ns */

struct rec {
	struct act__tnode node; /* first: the node is the record */
	uint32_t id;
	uint64_t seq;	  /* order added */
	uint64_t due;	  /* tick it fires at: its expires, or the
			   * wheel's next tick if that one is past */
	int64_t fired_at; /* the advance's now_ns; -1 if not */
};

struct log {
	struct rec **order;
	uint32_t n, cap;
	int64_t now; /* the advance in progress */
};

static void on_fire(struct act__tnode *t, void *ctx)
{
	struct log *l = ctx;
	struct rec *r = (struct rec *)t;

	ck_assert(!act__wheel_node_queued(t));
	r->fired_at = l->now;
	ck_assert_uint_lt(l->n, l->cap);
	l->order[l->n++] = r;
}

static uint32_t advance(struct act__wheel *w, struct log *l, int64_t now)
{
	l->now = now;
	return act__wheel_advance(w, now, on_fire, l);
}

static void rec_add(struct act__wheel *w, struct rec *r, uint32_t id,
		    int64_t deadline)
{
	static uint64_t seq;

	act__wheel_node_init(&r->node);
	r->id = id;
	r->seq = seq++;
	r->fired_at = -1;
	act__wheel_add(w, &r->node, deadline);
	r->due = r->node.expires > w->now ? r->node.expires : w->now;
}

START_TEST(fires_at_its_tick)
{
	static const int64_t dl[] = { 1,     999,   1000,    1001,     63999,
				      64000, 64001, 5000000, 262144000 };
	enum { N = sizeof(dl) / sizeof(dl[0]) };
	struct act__wheel w;
	struct rec r[N], *order[N];
	struct log l = { order, 0, N, 0 };
	int64_t now;
	uint32_t i;

	act__wheel_init(&w, TICK, 0);
	for (i = 0; i < N; i++)
		rec_add(&w, &r[i], i, dl[i]);
	ck_assert_uint_eq(w.count, N);
	/* step a tick at a time: each fires at the first tick at or after
	 * its deadline, so never early and late by less than a tick */
	for (now = 0; l.n < N; now += TICK) {
		advance(&w, &l, now);
		ck_assert_int_le(now, 262144000);
	}
	for (i = 0; i < N; i++) {
		ck_assert_int_ge(r[i].fired_at, dl[i]);
		ck_assert_int_lt(r[i].fired_at, dl[i] + TICK);
		ck_assert_ptr_eq(order[i], &r[i]); /* deadlines ascend */
	}
	ck_assert_uint_eq(w.count, 0);
	ck_assert_int_eq(act__wheel_next_ns(&w), INT64_MAX);
}
END_TEST

/* One big jump fires everything due, in deadline order. */
START_TEST(jump_fires_in_order)
{
	enum { N = 5000 };
	struct act__wheel w;
	struct rec *r = calloc(N, sizeof(*r));
	struct rec **order = calloc(N, sizeof(*order));
	struct log l = { order, 0, N, 0 };
	uint64_t x = 88172645463325252ull;
	uint32_t i;

	act__wheel_init(&w, TICK, 123456789);
	for (i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		rec_add(&w, &r[i], i, 123456789 + (int64_t)(x % 1000000000));
	}
	ck_assert_uint_eq(advance(&w, &l, 123456789 + 1000000000), N);
	for (i = 1; i < N; i++) {
		ck_assert_int_le(order[i - 1]->node.deadline,
				 order[i]->node.deadline);
		if (order[i - 1]->node.deadline == order[i]->node.deadline)
			ck_assert_uint_lt(order[i - 1]->seq, order[i]->seq);
	}
	free(r);
	free(order);
}
END_TEST

/* Within one tick: deadline order, then the order of adding. */
START_TEST(same_tick_deadline_order)
{
	static const int64_t dl[] = { 5900, 5100, 5500, 5100, 5001, 5999 };
	static const uint32_t want[] = { 4, 1, 3, 2, 0, 5 };
	enum { N = sizeof(dl) / sizeof(dl[0]) };
	struct act__wheel w;
	struct rec r[N], *order[N];
	struct log l = { order, 0, N, 0 };
	uint32_t i;

	act__wheel_init(&w, TICK, 0);
	for (i = 0; i < N; i++)
		rec_add(&w, &r[i], i, dl[i]);
	ck_assert_uint_eq(advance(&w, &l, 5999), 0);
	ck_assert_uint_eq(advance(&w, &l, 6000), N);
	for (i = 0; i < N; i++)
		ck_assert_uint_eq(order[i]->id, want[i]);
}
END_TEST

START_TEST(cancel)
{
	struct act__wheel w;
	struct rec a, b, c, *order[3];
	struct log l = { order, 0, 3, 0 };

	act__wheel_init(&w, TICK, 0);
	rec_add(&w, &a, 0, 10000);
	rec_add(&w, &b, 1, 10000);
	rec_add(&w, &c, 2, 90000000);
	act__wheel_del(&w, &a.node);
	ck_assert(!act__wheel_node_queued(&a.node));
	act__wheel_del(&w, &a.node); /* not queued: nothing */
	ck_assert_uint_eq(w.count, 2);
	act__wheel_del(&w, &c.node); /* the only one on its level-2 slot */
	ck_assert_uint_eq(w.occupied[2], 0);
	ck_assert_int_eq(act__wheel_next_ns(&w), 10000);
	ck_assert_uint_eq(advance(&w, &l, 100000000), 1);
	ck_assert_ptr_eq(order[0], &b);
	ck_assert_int_eq(a.fired_at, -1);
	ck_assert_int_eq(c.fired_at, -1);
	ck_assert_uint_eq(w.count, 0);
}
END_TEST

/* A callback re-adds its own timer (an interval) and cancels another due
 * at the same tick, which then never fires. */
static struct rec cb_a, cb_b;
static uint32_t cb_fired_a, cb_fired_b;

static void cb_fire(struct act__tnode *t, void *ctx)
{
	struct act__wheel *w = ctx;

	if (t == &cb_a.node) {
		cb_fired_a++;
		act__wheel_del(w, &cb_b.node);
		if (cb_fired_a < 5)
			act__wheel_add(w, t, t->deadline + 3 * TICK);
	} else {
		cb_fired_b++;
	}
}

START_TEST(callback_adds_and_cancels)
{
	struct act__wheel w;
	int64_t now;

	act__wheel_init(&w, TICK, 0);
	act__wheel_node_init(&cb_a.node);
	act__wheel_node_init(&cb_b.node);
	act__wheel_add(&w, &cb_a.node, 2000);
	act__wheel_add(&w, &cb_b.node, 2500); /* same tick, after a */
	for (now = 0; now <= 100 * TICK; now += TICK / 2)
		act__wheel_advance(&w, now, cb_fire, &w);
	ck_assert_uint_eq(cb_fired_a, 5);
	ck_assert_uint_eq(cb_fired_b, 0);
	ck_assert_uint_eq(w.count, 0);
}
END_TEST

/* Beyond 2^36 ticks: the far list, looked at again as level 5 turns. */
START_TEST(far_timers)
{
	struct act__wheel w;
	struct rec r[3], *order[3];
	struct log l = { order, 0, 3, 0 };
	const int64_t span = (int64_t)ACT_WHEEL_SPAN; /* ticks of 1 ns */

	act__wheel_init(&w, 1, 7);
	rec_add(&w, &r[0], 0, span + 5);
	rec_add(&w, &r[1], 1, 3 * span + 11);
	rec_add(&w, &r[2], 2, span - 3);
	ck_assert_int_le(act__wheel_next_ns(&w), span - 3);
	ck_assert_uint_eq(advance(&w, &l, span - 4), 0);
	ck_assert_uint_eq(advance(&w, &l, span - 3), 1);
	ck_assert_uint_eq(advance(&w, &l, span + 4), 0);
	ck_assert_uint_eq(advance(&w, &l, span + 5), 1);
	ck_assert_uint_eq(advance(&w, &l, 3 * span + 10), 0);
	ck_assert_uint_eq(advance(&w, &l, 3 * span + 11), 1);
	ck_assert_ptr_eq(order[0], &r[2]);
	ck_assert_ptr_eq(order[1], &r[0]);
	ck_assert_ptr_eq(order[2], &r[1]);
}
END_TEST

/* Sleeping until next_ns, again and again, fires each timer at its
 * tick: next_ns is never past a due timer. */
START_TEST(next_is_never_late)
{
	enum { N = 2000 };
	struct act__wheel w;
	struct rec *r = calloc(N, sizeof(*r));
	struct rec **order = calloc(N, sizeof(*order));
	struct log l = { order, 0, N, 0 };
	uint64_t x = 2463534242ull;
	int64_t next;
	uint32_t i, wakes = 0;

	act__wheel_init(&w, TICK, 0);
	for (i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* every scale: up to 1 ms, 1 s, 1,000 s */
		rec_add(&w, &r[i], i,
			(int64_t)(x % (i % 3 == 0 ? 1000000ull :
				       i % 3 == 1 ? 1000000000ull :
						    1000000000000ull)));
	}
	while ((next = act__wheel_next_ns(&w)) != INT64_MAX) {
		ck_assert_uint_eq(advance(&w, &l, next - 1), 0);
		advance(&w, &l, next);
		wakes++;
	}
	ck_assert_uint_eq(l.n, N);
	for (i = 0; i < N; i++) {
		ck_assert_int_ge(r[i].fired_at, r[i].node.deadline);
		ck_assert_int_lt(r[i].fired_at, r[i].node.deadline + TICK);
	}
	/* a wake per timer's tick, and per cascade (at most 4 a timer) */
	ck_assert_uint_le(wakes, 5 * N);
	free(r);
	free(order);
}
END_TEST

/* ---- random operations against a brute-force reference ---------------- */

#define RND_N 3000
#define RND_OPS 200000

static int by_due(const void *a, const void *b)
{
	const struct rec *x = *(struct rec *const *)a;
	const struct rec *y = *(struct rec *const *)b;

	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	if (x->node.deadline != y->node.deadline)
		return x->node.deadline < y->node.deadline ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

START_TEST(random_against_reference)
{
	struct act__wheel w;
	struct rec *r = calloc(RND_N, sizeof(*r));
	struct rec **order = calloc(RND_N, sizeof(*order));
	struct rec **want = calloc(RND_N, sizeof(*want));
	struct log l = { order, 0, RND_N, 0 };
	uint64_t x = (uint64_t)_i * 0x9e3779b97f4a7c15ull + 1;
	int64_t now = 5 * TICK + 17;
	uint32_t op, i, k, nwant;

	act__wheel_init(&w, TICK, now);
	for (i = 0; i < RND_N; i++)
		act__wheel_node_init(&r[i].node);
	for (op = 0; op < RND_OPS; op++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		i = (uint32_t)(x % RND_N);
		switch ((x >> 20) % 4) {
		case 0: /* add (if free), at some scale */
		case 1:
			if (act__wheel_node_queued(&r[i].node))
				break;
			{
				static const uint64_t scale[] = {
					10 * TICK, 5000 * TICK,
					400000ull * TICK, 30000000ull * TICK,
					(ACT_WHEEL_SPAN + 99) * TICK
				};
				int64_t d = now - 3 * TICK +
					    (int64_t)((x >> 24) %
						      scale[(x >> 8) % 5]);

				rec_add(&w, &r[i], i, d);
			}
			break;
		case 2:
			act__wheel_del(&w, &r[i].node);
			break;
		case 3: { /* advance, mostly a little, sometimes far */
			static const uint64_t step[] = { 0, TICK, 37 * TICK,
							 9000 * TICK,
							 1000000ull * TICK };
			int64_t to = now + (int64_t)((x >> 30) %
						     (step[(x >> 12) % 5] + 1));

			for (nwant = 0, k = 0; k < RND_N; k++)
				if (act__wheel_node_queued(&r[k].node) &&
				    r[k].due <= (uint64_t)to / TICK)
					want[nwant++] = &r[k];
			qsort(want, nwant, sizeof(*want), by_due);
			l.n = 0;
			ck_assert_uint_eq(advance(&w, &l, to), nwant);
			for (k = 0; k < nwant; k++)
				ck_assert_msg(order[k] == want[k],
					      "op %u: fired #%u is %u, want %u",
					      op, k, order[k]->id, want[k]->id);
			now = to;
			break;
		}
		}
	}
	for (k = 0, i = 0; i < RND_N; i++)
		k += act__wheel_node_queued(&r[i].node);
	ck_assert_uint_eq(w.count, k);
	free(r);
	free(order);
	free(want);
}
END_TEST

static Suite *wheel_suite(void)
{
	Suite *s = suite_create("wheel");
	TCase *tc = tcase_create("wheel");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fires_at_its_tick);
	tcase_add_test(tc, jump_fires_in_order);
	tcase_add_test(tc, same_tick_deadline_order);
	tcase_add_test(tc, cancel);
	tcase_add_test(tc, callback_adds_and_cancels);
	tcase_add_test(tc, far_timers);
	tcase_add_test(tc, next_is_never_late);
	tcase_add_loop_test(tc, random_against_reference, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(wheel_suite());
}
