/* SPDX-License-Identifier: MIT */
/*
 * skynet.c - the skynet benchmark: a tree of short-lived processes, so the
 * cost of spawn, exit and one message each.
 *
 * A node covers the leaves [start, start + size). A leaf (size 1) sends its
 * number to its parent and exits. An inner node splits its range into up to
 * 10 slices, spawns a child for each, at most window of them alive at once,
 * sums their SKY_SUM replies and sends the sum up. The main process spawns
 * the root and waits for its sum.
 *
 * A child's arg points at its slice in the parent's kid[] array, on the
 * parent's stack: the parent writes it before the spawn, never again, and
 * stays alive until that child has replied. The child copies it first.
 */
#include <stdbool.h>
#include <string.h>

#include <actors.h>

#include "bench.h"

enum {
	SKY_SUM = 1, /* child -> parent: uint64_t sum */
	SKY_FAIL,    /* child -> parent: int reason */
};

/* A node's arg. */
struct sky_node {
	uint64_t start; /* number of the first leaf below */
	uint64_t size;	/* leaves below; 1 for a leaf */
	act_pid parent;
	int window; /* children alive at once, 1..10 */
};

/* An inner node's view of its children. */
struct sky_wait {
	struct sky_node kid[BENCH_SKYNET_FANOUT];
	int n; /* children in all */
	int spawned;
	int done; /* replies received */
	int err;  /* 0, or the first failure seen */
	uint64_t sum;
};

/* Shared with the main process only; act_main() returning orders it. */
struct sky_run {
	long leaves;	/* in */
	int window;	/* in */
	int err;	/* out: 0, or why the run failed */
	uint64_t sum;	/* out: the root's sum */
	double seconds; /* out */
};

static void sky_node(void *arg);

/* Fills w->kid with self's n slices, which differ by at most one leaf. */
static void sky_split(const struct sky_node *self, struct sky_wait *w)
{
	uint64_t size = self->size;
	int i, n = size < BENCH_SKYNET_FANOUT ? (int)size : BENCH_SKYNET_FANOUT;

	for (i = 0; i < n; i++) {
		uint64_t lo = size * i / n, hi = size * (i + 1) / n;

		w->kid[i] = (struct sky_node){ self->start + lo, hi - lo,
					       act_self(), self->window };
	}
	w->n = n;
}

/* Spawns children while the window allows and no spawn has failed. */
static void sky_fill(struct sky_wait *w, int window)
{
	while (!w->err && w->spawned < w->n && w->spawned - w->done < window) {
		act_pid pid = act_spawn(sky_node, &w->kid[w->spawned]);

		if (act_pid_eq(pid, ACT_PID_NONE))
			w->err = BENCH_ESPAWN;
		else
			w->spawned++;
	}
}

/* Receives one child's reply into w. */
static void sky_collect(struct sky_wait *w)
{
	struct act_msg *m = act_receive(ACT_FOREVER);
	uint64_t v;
	int rc = BENCH_EPROTO;

	if (m == NULL) {
		/* Only when the runtime is stopping: give up on them all. */
		w->err = w->err ? w->err : rc;
		w->done = w->spawned;
		return;
	}
	if (m->tag == SKY_SUM && m->len == sizeof(v)) {
		memcpy(&v, m->data, sizeof(v));
		w->sum += v;
		rc = 0;
	} else if (m->tag == SKY_FAIL && m->len == sizeof(rc)) {
		memcpy(&rc, m->data, sizeof(rc));
	}
	if (rc && !w->err)
		w->err = rc;
	w->done++;
	act_msg_free(m);
}

/* Sends a node's result up: its sum, or else why it failed. */
static void sky_report(act_pid parent, uint64_t sum, int err)
{
	int rc = err;

	if (rc == 0) {
		rc = act_send(parent, SKY_SUM, &sum, sizeof(sum));
		if (rc >= 0)
			return;
	}
	act_send(parent, SKY_FAIL, &rc, sizeof(rc));
}

/* Spawns and collects every child, window at a time. */
static void sky_wait_all(struct sky_wait *w, int window)
{
	sky_fill(w, window);
	while (w->done < w->spawned) {
		sky_collect(w);
		sky_fill(w, window);
	}
}

static void sky_inner(const struct sky_node *self)
{
	struct sky_wait w = { .n = 0 };

	sky_split(self, &w);
	sky_wait_all(&w, self->window);
	sky_report(self->parent, w.sum, w.err);
}

static void sky_node(void *arg)
{
	struct sky_node self = *(const struct sky_node *)arg;

	if (self.size == 1)
		sky_report(self.parent, self.start, 0);
	else
		sky_inner(&self);
}

static void sky_main(void *arg)
{
	struct sky_run *run = arg;
	struct sky_wait w = { .n = 1 };
	double t0 = bench_now();

	w.kid[0] = (struct sky_node){ 0, (uint64_t)run->leaves, act_self(),
				      run->window };
	sky_wait_all(&w, 1);
	run->seconds = bench_now() - t0;
	run->sum = w.sum;
	run->err = w.err;
}

int bench_skynet(long leaves, int window, double *seconds, uint64_t *checksum)
{
	struct sky_run run = { .leaves = leaves, .window = window };
	int rc;

	if (leaves < 1 || window < 1 || window > BENCH_SKYNET_FANOUT)
		return BENCH_EINVAL;
	rc = bench_status(act_main(NULL, sky_main, &run), run.err);
	*seconds = run.seconds;
	*checksum = run.sum;
	return rc;
}

/*
 * Counts the tree's nodes as sky_split() shapes it. The slices of one range
 * have at most two sizes, so this recurses twice per level, not per node.
 */
uint64_t bench_skynet_nodes(long leaves)
{
	long n, small, big;

	if (leaves <= 1)
		return 1;
	n = leaves < BENCH_SKYNET_FANOUT ? leaves : BENCH_SKYNET_FANOUT;
	small = leaves / n;
	big = leaves % n;
	return 1 + (uint64_t)(n - big) * bench_skynet_nodes(small) +
	       (big ? (uint64_t)big * bench_skynet_nodes(small + 1) : 0);
}
