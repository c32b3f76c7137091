/* SPDX-License-Identifier: MIT */
/*
 * pingpong.c - two processes bounce a counter: the cost of one message
 * between a pair of processes, send + wake + receive + switch.
 *
 * The main process sends PING n, the partner answers PONG n + 1, the main
 * process checks it and sends PING n + 2, and so on; STOP ends the partner.
 * Each message is 8 bytes, the smallest payload worth copying.
 */
#include <stdbool.h>
#include <string.h>

#include <actors.h>

#include "bench.h"

enum {
	PP_PING = 1,
	PP_PONG,
	PP_STOP,
	PP_FAIL, /* the partner could not answer; payload: int reason */
};

/* Shared with the main process only; act_main() returning orders it. */
struct pp_run {
	long rounds;	/* in */
	int err;	/* out: 0, or why the run stopped */
	uint64_t last;	/* out: the counter of the last reply */
	double seconds; /* out */
};

/* Reads the counter of a message tagged tag; false if it is not one. */
static bool pp_counter(const struct act_msg *m, uint32_t tag, uint64_t *c)
{
	if (m->tag != tag || m->len != sizeof(*c))
		return false;
	memcpy(c, m->data, sizeof(*c));
	return true;
}

/* Sends the counter plus one back, or else a FAIL with the reason. */
static void pp_answer(const struct act_msg *m)
{
	uint64_t c;
	int rc = BENCH_EPROTO;

	if (pp_counter(m, PP_PING, &c)) {
		c++;
		rc = act_send(m->from, PP_PONG, &c, sizeof(c));
		if (rc >= 0)
			return;
	}
	act_send(m->from, PP_FAIL, &rc, sizeof(rc));
}

/* The partner: answers every message until STOP. */
static void pp_partner(void *arg)
{
	struct act_msg *m;
	bool stop = false;

	(void)arg;
	while (!stop && (m = act_receive(ACT_FOREVER)) != NULL) {
		stop = m->tag == PP_STOP;
		if (!stop)
			pp_answer(m);
		act_msg_free(m);
	}
}

/* Checks a reply: PONG with want, or a FAIL carrying the reason. */
static int pp_reply(struct act_msg *m, uint64_t want, uint64_t *c)
{
	int rc = BENCH_EPROTO;

	if (m == NULL)
		return rc;
	if (m->tag == PP_FAIL && m->len == sizeof(rc))
		memcpy(&rc, m->data, sizeof(rc));
	else if (pp_counter(m, PP_PONG, c) && *c == want)
		rc = 0;
	act_msg_free(m);
	return rc;
}

/* Plays rounds round trips with peer; 0, or why it stopped. */
static int pp_rounds(act_pid peer, long rounds, uint64_t *last)
{
	uint64_t c = 0;
	long i;

	for (i = 0; i < rounds; i++) {
		uint64_t out = c + 1;
		int rc = act_send(peer, PP_PING, &out, sizeof(out));

		if (rc < 0)
			return rc;
		rc = pp_reply(act_receive(ACT_FOREVER), out + 1, &c);
		if (rc)
			return rc;
	}
	*last = c;
	return 0;
}

static void pp_main(void *arg)
{
	struct pp_run *run = arg;
	double t0 = bench_now();
	act_pid peer = act_spawn(pp_partner, NULL);

	if (act_pid_eq(peer, ACT_PID_NONE)) {
		run->err = BENCH_ESPAWN;
		return;
	}
	run->err = pp_rounds(peer, run->rounds, &run->last);
	run->seconds = bench_now() - t0;
	act_send(peer, PP_STOP, NULL, 0);
}

int bench_pingpong(long rounds, double *seconds, uint64_t *checksum)
{
	struct pp_run run = { .rounds = rounds };
	int rc;

	if (rounds < 1)
		return BENCH_EINVAL;
	rc = bench_status(act_main(NULL, pp_main, &run), run.err);
	*seconds = run.seconds;
	*checksum = run.last;
	return rc;
}
