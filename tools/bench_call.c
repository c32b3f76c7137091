/* SPDX-License-Identifier: MIT */
/*
 * bench_call.c - `actors bench call [--calls N] [--rounds R] [--queued Q]`:
 * what one act_call costs against a bare act_send/act_receive pair to
 * the same server, with an empty mailbox and with Q unrelated messages
 * queued in the caller's (doc/design/call.md), in alternating rounds on
 * one worker, in a forked child (bench_fork.h). Ratios, not absolute
 * figures, are the result: this runs on noisy machines.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "../examples/opt.h"
#include "actors.h"
#include "bench_fork.h"
#include "commands.h"

#define CALL_N 100000L
#define CALL_ROUNDS 5L
#define CALL_QUEUED 100000L
#define CALL_MAX_ROUNDS 100

enum { TG_BARE = 1, TG_CALL, TG_STOP, TG_JUNK };
enum { K_BARE, K_CALL, K_DEEP, K_COUNT };

struct call_plan {
	long calls, rounds, queued;
};

struct call_outcome {
	int rc;
	double ns[CALL_MAX_ROUNDS][K_COUNT]; /* per operation */
};

static const struct call_plan *plan;
static struct call_outcome *outcome;

static void server(void *arg)
{
	struct act_msg *m;
	uint64_t v;

	(void)arg;
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (m->tag == TG_STOP) {
			act_msg_free(m);
			return;
		}
		memcpy(&v, m->data, sizeof(v));
		v++;
		if (m->tag == TG_CALL)
			act_reply(m, TG_CALL, &v, sizeof(v));
		else
			act_send(m->from, TG_BARE, &v, sizeof(v));
		act_msg_free(m);
	}
}

/* n round trips of kind k; 0 or -errno. */
static int trips(act_pid s, int k, long n)
{
	struct act_msg *m;
	uint64_t v = 0;
	long i;
	int rc;

	for (i = 0; i < n; i++) {
		if (k == K_BARE) {
			rc = act_send(s, TG_BARE, &v, sizeof(v));
			m = rc ? NULL : act_receive(ACT_FOREVER);
		} else {
			rc = act_call(s, TG_CALL, &v, sizeof(v), ACT_FOREVER,
				      &m);
		}
		if (rc)
			return rc;
		memcpy(&v, m->data, sizeof(v));
		act_msg_free(m);
	}
	return v == (uint64_t)n ? 0 : -EPROTO;
}

static bool is_junk(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == TG_JUNK;
}

static int one_round(act_pid s, int k, double *ns)
{
	struct act_msg *m;
	double t;
	long i;
	int rc;

	if (k == K_DEEP)
		for (i = 0; i < plan->queued; i++)
			if ((rc = act_send(act_self(), TG_JUNK, &i, sizeof(i))))
				return rc;
	t = bench_now();
	rc = trips(s, k, plan->calls);
	*ns = (bench_now() - t) * 1e9 / (double)plan->calls;
	if (k == K_DEEP) /* the queued ones are all still there */
		for (i = 0; i < plan->queued; i++) {
			m = act_receive_match(is_junk, NULL, 0);
			if (!m)
				return -EPROTO;
			act_msg_free(m);
		}
	return rc;
}

static void bench_main(void *arg)
{
	act_pid s = act_spawn(server, NULL);
	long r;
	int k, rc = 0;

	(void)arg;
	for (r = 0; r < plan->rounds && !rc; r++)
		for (k = 0; k < K_COUNT && !rc; k++)
			rc = one_round(s, (int)((k + r) % K_COUNT),
				       &outcome->ns[r][(k + r) % K_COUNT]);
	act_send(s, TG_STOP, NULL, 0);
	outcome->rc = rc;
}

static void call_fill(const void *arg, void *out)
{
	struct act_config cfg;
	int rc;

	plan = arg;
	outcome = out;
	act_config_init(&cfg);
	cfg.schedulers = 1; /* caller and server on one worker: pingpong's */
	rc = act_main(&cfg, bench_main, NULL);
	if (rc < 0)
		outcome->rc = rc;
}

static const char call_about[] =
	"One act_call round trip against a bare act_send + act_receive pair "
	"to the\nsame server, one worker, with the caller's mailbox empty and "
	"with Q unrelated\nmessages queued; R rounds of N each, the three "
	"kinds in turn. It runs only\nwhen named.\n";

/* The median of round values of kind k. */
static double median(const struct call_outcome *o, long rounds, int k)
{
	double v[CALL_MAX_ROUNDS], x;
	long i, j;

	for (i = 0; i < rounds; i++) {
		x = o->ns[i][k];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return rounds % 2 ? v[rounds / 2] :
			    (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
}

int actors_bench_call_main(int argc, char **argv)
{
	struct call_plan p = { CALL_N, CALL_ROUNDS, CALL_QUEUED };
	static struct call_outcome o;
	bool reported = false;
	double rss_mib = 0, bare, call, deep;
	const struct opt opts[] = {
		OPT_LONG("calls", &p.calls, 1, 100000000, "N",
			 "round trips per round"),
		OPT_LONG("rounds", &p.rounds, 1, CALL_MAX_ROUNDS, "R",
			 "rounds"),
		OPT_LONG("queued", &p.queued, 0, 10000000, "Q",
			 "unrelated messages"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors bench call",
				     .opts = opts,
				     .about = call_about };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	rc = bench_fork("call", call_fill, &p, &o, sizeof(o), &reported,
			&rss_mib);
	if (rc || !reported || o.rc) {
		fprintf(stderr, "actors bench call: %s\n",
			rc	  ? strerror(-rc) :
			!reported ? "no result" :
				    bench_strerror(o.rc));
		return 1;
	}
	bare = median(&o, p.rounds, K_BARE);
	call = median(&o, p.rounds, K_CALL);
	deep = median(&o, p.rounds, K_DEEP);
	printf("%-22s %10s %8s\n", "round trip (median)", "ns", "x bare");
	printf("%-22s %10.1f %8.2f\n", "send + receive", bare, 1.0);
	printf("%-22s %10.1f %8.2f\n", "act_call, empty", call, call / bare);
	printf("act_call, %-12ld %10.1f %8.2f\n", p.queued, deep, deep / bare);
	printf("queued / empty: %.2f   (%ld rounds of %ld, RSS %.1f MiB)\n",
	       deep / call, p.rounds, p.calls, rss_mib);
	return 0;
}
