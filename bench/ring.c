/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the thread-ring benchmark: procs processes in a ring pass one
 * token around, hops times in all. Each hop is one send and one wake of a
 * process that has been parked for a whole lap, so unlike ping-pong the
 * receiver's state is cold.
 *
 * The main process spawns the members and sends each a LINK naming its
 * successor; each member answers READY. Then the clock starts and the main
 * process injects TOKEN 0 into member 0. A member that receives TOKEN t
 * sends TOKEN t + 1 on, until t == hops: that member (hops % procs)
 * reports DONE to the main process, which then sends every member STOP.
 *
 * The time covers the hops only: spawning the members costs one first
 * touch of a stack page each, which on the development VMs is 17-20 us
 * (10 ms for 503 members, 5 ns per hop over 2,000,000 hops) and says
 * nothing about message passing. bench/skynet measures spawning.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "bench.h"

enum {
	RING_LINK = 1, /* main -> member: struct ring_link */
	RING_TOKEN,    /* member -> member: uint64_t hops done */
	RING_DONE,     /* member -> main: struct ring_done */
	RING_STOP,     /* main -> member: exit */
	RING_FAIL,     /* member -> main: int reason */
	RING_READY,    /* member -> main: linked, waiting for the token */
};

struct ring_link {
	act_pid next;
	int64_t index;
};

struct ring_done {
	uint64_t token;
	int64_t index;
};

/* Members' arg: read-only once the first member is spawned. */
struct ring_conf {
	act_pid main;
	uint64_t hops;
};

/*
 * act_main()'s arg. The main process fills conf before it spawns, and the
 * out fields before it exits; act_main() returning orders those writes
 * before the caller's reads. conf lives here, not on the main process's
 * stack, so a member still running as the runtime stops never reads freed
 * memory.
 */
struct ring_run {
	int procs; /* in */
	long hops; /* in */
	struct ring_conf conf;
	int err;	/* out: 0, or why the run stopped */
	uint64_t token; /* out: the token value DONE reported */
	double seconds; /* out */
};

static void ring_fail(const struct ring_conf *conf, int rc)
{
	act_send(conf->main, RING_FAIL, &rc, sizeof(rc));
}

/* Passes the token on, or reports DONE at the last hop. */
static void ring_token(const struct ring_conf *conf,
		       const struct ring_link *link, uint64_t t)
{
	struct ring_done done = { t, link->index };
	int rc;

	if (t == conf->hops) {
		rc = act_send(conf->main, RING_DONE, &done, sizeof(done));
	} else {
		t++;
		rc = act_send(link->next, RING_TOKEN, &t, sizeof(t));
	}
	if (rc < 0)
		ring_fail(conf, rc);
}

/* Handles one message; true when the member is to exit. */
static bool ring_step(const struct ring_conf *conf,
		      const struct ring_link *link, const struct act_msg *m)
{
	uint64_t t;

	if (m->tag == RING_STOP)
		return true;
	if (m->tag != RING_TOKEN || m->len != sizeof(t)) {
		ring_fail(conf, BENCH_EPROTO);
		return false;
	}
	memcpy(&t, m->data, sizeof(t));
	ring_token(conf, link, t);
	return false;
}

/* LINK, or STOP if the main process gave up before linking the ring. */
static bool ring_is_setup(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == RING_LINK || m->tag == RING_STOP;
}

/* Waits for this member's LINK; false on STOP or a bad message. */
static bool ring_get_link(const struct ring_conf *conf, struct ring_link *link)
{
	struct act_msg *m = act_receive_match(ring_is_setup, NULL, ACT_FOREVER);
	bool ok;

	if (m == NULL)
		return false;
	ok = m->tag == RING_LINK && m->len == sizeof(*link);
	if (ok) {
		memcpy(link, m->data, sizeof(*link));
		if (act_send(conf->main, RING_READY, NULL, 0) < 0)
			ok = false;
	} else if (m->tag != RING_STOP)
		ring_fail(conf, BENCH_EPROTO);
	act_msg_free(m);
	return ok;
}

static void ring_member(void *arg)
{
	const struct ring_conf *conf = arg;
	struct ring_link link;
	struct act_msg *m;
	bool stop = false;

	if (!ring_get_link(conf, &link))
		return;
	while (!stop && (m = act_receive(ACT_FOREVER)) != NULL) {
		stop = ring_step(conf, &link, m);
		act_msg_free(m);
	}
}

/* Spawns up to n members into pids; returns how many were spawned. */
static int ring_spawn(struct ring_conf *conf, act_pid *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = act_spawn(ring_member, conf);
		if (act_pid_eq(pids[i], ACT_PID_NONE))
			break;
	}
	return i;
}

/* Links member i to member i + 1 (the last to the first); waits until
 * every member has answered READY. */
static int ring_link_all(const act_pid *pids, int n)
{
	struct act_msg *m;
	int i, rc, ready = 0;

	for (i = 0; i < n; i++) {
		struct ring_link link = { pids[(i + 1) % n], i };

		rc = act_send(pids[i], RING_LINK, &link, sizeof(link));
		if (rc < 0)
			return rc;
	}
	while (ready < n && (m = act_receive(ACT_FOREVER)) != NULL) {
		rc = m->tag == RING_READY ? 0 : BENCH_EPROTO;
		if (rc == 0)
			ready++;
		else if (m->tag == RING_FAIL && m->len == sizeof(rc))
			memcpy(&rc, m->data, sizeof(rc));
		act_msg_free(m);
		if (rc)
			return rc;
	}
	return ready == n ? 0 : BENCH_EPROTO;
}

/* Injects TOKEN 0 into member 0. */
static int ring_start(const act_pid *pids)
{
	uint64_t t = 0;
	int rc = act_send(pids[0], RING_TOKEN, &t, sizeof(t));

	return rc < 0 ? rc : 0;
}

/* Waits for DONE from the expected member; 0, or why the run failed. */
static int ring_wait(struct ring_run *run)
{
	struct act_msg *m = act_receive(ACT_FOREVER);
	struct ring_done done;
	int rc = BENCH_EPROTO;

	if (m == NULL)
		return rc;
	if (m->tag == RING_FAIL && m->len == sizeof(rc)) {
		memcpy(&rc, m->data, sizeof(rc));
	} else if (m->tag == RING_DONE && m->len == sizeof(done)) {
		memcpy(&done, m->data, sizeof(done));
		run->token = done.token;
		if (done.index == run->hops % run->procs)
			rc = 0;
	}
	act_msg_free(m);
	return rc;
}

static void ring_stop(const act_pid *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		act_send(pids[i], RING_STOP, NULL, 0);
}

static void ring_main(void *arg)
{
	struct ring_run *run = arg;
	act_pid *pids = calloc(run->procs, sizeof(*pids));
	double t0;
	int n;

	if (pids == NULL) {
		run->err = -ENOMEM;
		return;
	}
	run->conf.main = act_self();
	run->conf.hops = (uint64_t)run->hops;
	n = ring_spawn(&run->conf, pids, run->procs);
	run->err = n < run->procs ? BENCH_ESPAWN : ring_link_all(pids, n);
	t0 = bench_now();
	if (run->err == 0)
		run->err = ring_start(pids);
	if (run->err == 0)
		run->err = ring_wait(run);
	run->seconds = bench_now() - t0;
	ring_stop(pids, n);
	free(pids);
}

int bench_ring(int procs, long hops, double *seconds, uint64_t *checksum)
{
	struct ring_run run = { .procs = procs, .hops = hops };
	int rc;

	if (procs < 1 || hops < 1)
		return BENCH_EINVAL;
	rc = bench_status(act_main(NULL, ring_main, &run), run.err);
	*seconds = run.seconds;
	*checksum = run.token;
	return rc;
}
