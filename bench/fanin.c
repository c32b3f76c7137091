/* SPDX-License-Identifier: MIT */
/*
 * fanin.c - many senders, one receiver: the cost of a message when the
 * receiver's mailbox is shared by many producers, and a check of I7
 * (messages from one sender arrive in send order).
 *
 * The main process spawns senders senders; each sends msgs DATA messages
 * to it and exits. A DATA payload is 8 bytes: the sender's index in bits
 * 40 to 63 (BENCH_FANIN_SEQ_BITS and up), its sequence number 0, 1, 2, ...
 * below. The main process keeps, per sender, the number it expects next,
 * and fails the run on any other.
 *
 * Flow control (bench.h): with a window w > 0, a sender that has sent a
 * multiple of w messages, and has more to send, waits for an ACK; the
 * main process sends it one when it has received that many. So at most
 * senders * w messages are queued. With w = 0 the senders never wait.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "bench.h"

enum {
	FI_DATA = 1, /* sender -> main: uint64_t index << SEQ_BITS | seq */
	FI_FAIL,     /* sender -> main: int reason */
	FI_ACK,	     /* main -> sender: send the next window */
};

#define FI_SEQ_MASK ((UINT64_C(1) << BENCH_FANIN_SEQ_BITS) - 1)

/* A sender's arg: in run->jobs, written before its spawn, then read-only. */
struct fi_job {
	act_pid main;
	uint64_t first; /* index << SEQ_BITS: the payload of seq 0 */
	uint64_t msgs;
	uint64_t window; /* 0: no flow control */
};

/*
 * act_main()'s arg. jobs lives here, freed by bench_fanin() after
 * act_main() returns, so a sender still running as the runtime stops
 * never reads freed memory.
 */
struct fi_run {
	int senders; /* in */
	long msgs;   /* in */
	long window; /* in */
	struct fi_job *jobs;
	uint64_t *next; /* per sender: the sequence number expected next */
	int err;	/* out: 0, or why the run stopped */
	uint64_t count; /* out: DATA messages received in order */
	double seconds; /* out */
};

/* True when a sender or the main process stops at n messages for ACK. */
static bool fi_at_window(uint64_t n, uint64_t msgs, uint64_t window)
{
	return window && n % window == 0 && n < msgs;
}

/* Waits for the main process's ACK; 0, or BENCH_EPROTO. */
static int fi_wait_ack(void)
{
	struct act_msg *m = act_receive(ACT_FOREVER);
	int rc = m && m->tag == FI_ACK ? 0 : BENCH_EPROTO;

	act_msg_free(m);
	return rc;
}

/* Sends a sender's messages; 0, or why it stopped. */
static int fi_send_all(const struct fi_job *job)
{
	uint64_t i;
	int rc;

	for (i = 0; i < job->msgs; i++) {
		uint64_t v = job->first + i;

		rc = act_send(job->main, FI_DATA, &v, sizeof(v));
		if (rc < 0)
			return rc;
		if (fi_at_window(i + 1, job->msgs, job->window) &&
		    fi_wait_ack())
			return BENCH_EPROTO;
	}
	return 0;
}

static void fi_sender(void *arg)
{
	struct fi_job job = *(const struct fi_job *)arg;
	int rc = fi_send_all(&job);

	if (rc)
		act_send(job.main, FI_FAIL, &rc, sizeof(rc));
}

/* Spawns the senders; 0, or BENCH_ESPAWN. */
static int fi_spawn(struct fi_run *run)
{
	int i;

	for (i = 0; i < run->senders; i++) {
		run->jobs[i] = (struct fi_job){
			act_self(), (uint64_t)i << BENCH_FANIN_SEQ_BITS,
			(uint64_t)run->msgs, (uint64_t)run->window
		};
		if (act_pid_eq(act_spawn(fi_sender, &run->jobs[i]),
			       ACT_PID_NONE))
			return BENCH_ESPAWN;
	}
	return 0;
}

/* Checks one message: the next DATA of its sender, or a FAIL's reason. */
static int fi_take(struct fi_run *run, const struct act_msg *m)
{
	uint64_t v, s;
	int rc = BENCH_EPROTO;

	if (m->tag == FI_FAIL && m->len == sizeof(rc)) {
		memcpy(&rc, m->data, sizeof(rc));
		return rc;
	}
	if (m->tag != FI_DATA || m->len != sizeof(v))
		return rc;
	memcpy(&v, m->data, sizeof(v));
	s = v >> BENCH_FANIN_SEQ_BITS;
	if (s >= (uint64_t)run->senders || (v & FI_SEQ_MASK) != run->next[s] ||
	    run->next[s] >= (uint64_t)run->msgs)
		return rc;
	run->next[s]++;
	if (!fi_at_window(run->next[s], run->msgs, run->window))
		return 0;
	rc = act_send(m->from, FI_ACK, NULL, 0);
	return rc < 0 ? rc : 0;
}

/* Receives every sender's msgs messages; 0, or why it stopped. */
static int fi_receive(struct fi_run *run)
{
	uint64_t total = (uint64_t)run->senders * (uint64_t)run->msgs;
	struct act_msg *m;
	int rc = 0;

	while (!rc && run->count < total) {
		m = act_receive(ACT_FOREVER);
		if (m == NULL)
			return BENCH_EPROTO;
		rc = fi_take(run, m);
		run->count += rc == 0;
		act_msg_free(m);
	}
	return rc;
}

static void fi_main(void *arg)
{
	struct fi_run *run = arg;
	double t0 = bench_now();

	run->err = fi_spawn(run);
	if (run->err == 0)
		run->err = fi_receive(run);
	run->seconds = bench_now() - t0;
}

int bench_fanin(int senders, long msgs, long window, double *seconds,
		uint64_t *checksum)
{
	struct fi_run run = { .senders = senders,
			      .msgs = msgs,
			      .window = window };
	int rc = -ENOMEM;

	if (senders < 1 || senders > BENCH_FANIN_MAX_SENDERS || msgs < 1 ||
	    (uint64_t)msgs > FI_SEQ_MASK || window < 0)
		return BENCH_EINVAL;
	run.jobs = calloc(senders, sizeof(*run.jobs));
	run.next = calloc(senders, sizeof(*run.next));
	if (run.jobs && run.next)
		rc = bench_status(act_main(NULL, fi_main, &run), run.err);
	free(run.jobs);
	free(run.next);
	*seconds = run.seconds;
	*checksum = run.count;
	return rc;
}
