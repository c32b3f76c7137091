/* SPDX-License-Identifier: MIT */
/*
 * bench.c - `actors bench [WORKLOAD|all]... [options]`: the workloads of
 * bench/ (bench/bench.h), each in a forked child (bench_fork.h), one row
 * of the table each, its checksum checked. `actors bench echo` and
 * `actors bench timeouts` are bench_echo.c and bench_timeouts.c.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../bench/bench.h"
#include "../examples/opt.h"
#include "bench_fork.h"
#include "commands.h"

enum {
	WL_PINGPONG,
	WL_RING,
	WL_SKYNET,
	WL_FANIN,
	WL_SPAWN_FEW,  /* spawnburst, BENCH_SPAWNBURST_FEW children */
	WL_SPAWN_MANY, /* spawnburst, BENCH_SPAWNBURST_MANY children */
	WL_COUNT
};

static const char *const wl_name[WL_COUNT] = {
	"pingpong", "ring",	     "skynet",
	"fanin",    "spawnburst100", "spawnburst10000",
};
static const char *const wl_unit[WL_COUNT] = {
	"msg", "hop", "proc", "msg", "step", "step",
};

struct bench_opts {
	long rounds, procs, hops, leaves, window;
	long senders, msgs, credit; /* fanin */
	long total;		    /* spawnburst */
};

/* The number of children of a spawnburst workload. */
static long wl_children(int w)
{
	return w == WL_SPAWN_FEW ? BENCH_SPAWNBURST_FEW : BENCH_SPAWNBURST_MANY;
}

/* What the forked child sends back through the pipe. */
struct outcome {
	int rc;
	double seconds;
	uint64_t checksum;
};

/* One line of the table. */
struct row {
	long count;	 /* rounds, hops, leaves, messages or children */
	uint64_t expect; /* the right checksum */
	double ops;	 /* what ns/op divides by: wl_unit[] */
	bool reported;	 /* the child wrote an outcome */
	struct outcome out;
	double rss_mib; /* the child's peak RSS */
};

static int wl_run(int w, const struct bench_opts *o, double *seconds,
		  uint64_t *checksum)
{
	switch (w) {
	case WL_PINGPONG:
		return bench_pingpong(o->rounds, seconds, checksum);
	case WL_RING:
		return bench_ring((int)o->procs, o->hops, seconds, checksum);
	case WL_SKYNET:
		return bench_skynet(o->leaves, (int)o->window, seconds,
				    checksum);
	case WL_FANIN:
		return bench_fanin((int)o->senders, o->msgs, o->credit, seconds,
				   checksum);
	default:
		return bench_spawnburst(wl_children(w), o->total, seconds,
					checksum);
	}
}

/* wl_plan() for fanin and the two spawnbursts. */
static void wl_plan_more(int w, const struct bench_opts *o, struct row *r)
{
	long n;

	if (w == WL_FANIN) {
		r->count = o->senders * o->msgs;
		r->expect = bench_fanin_expect((int)o->senders, o->msgs);
		r->ops = (double)r->count;
		return;
	}
	n = wl_children(w);
	r->count = n;
	r->expect = bench_spawnburst_expect(n, o->total);
	r->ops = (double)(o->total / n) * (double)n; /* steps run */
}

/* Fills the parts of a row known before the run. */
static void wl_plan(int w, const struct bench_opts *o, struct row *r)
{
	switch (w) {
	case WL_PINGPONG:
		r->count = o->rounds;
		r->expect = bench_pingpong_expect(o->rounds);
		r->ops = 2.0 * (double)o->rounds;
		break;
	case WL_RING:
		r->count = o->hops;
		r->expect = bench_ring_expect(o->hops);
		r->ops = (double)o->hops;
		break;
	case WL_SKYNET:
		r->count = o->leaves;
		r->expect = bench_skynet_expect(o->leaves);
		r->ops = (double)bench_skynet_nodes(o->leaves);
		break;
	default:
		wl_plan_more(w, o, r);
		break;
	}
}

struct wl_job {
	int w;
	const struct bench_opts *o;
};

static void wl_fill(const void *arg, void *out)
{
	const struct wl_job *j = arg;
	struct outcome *r = out;

	r->rc = wl_run(j->w, j->o, &r->seconds, &r->checksum);
}

/* Runs workload w in a forked child and fills in r's results. */
static int run_forked(int w, const struct bench_opts *o, struct row *r)
{
	struct wl_job j = { w, o };

	return bench_fork(wl_name[w], wl_fill, &j, &r->out, sizeof(r->out),
			  &r->reported, &r->rss_mib);
}

static void print_header(void)
{
	printf("%-15s %10s %20s %10s %8s %-4s %8s  %s\n", "workload", "count",
	       "checksum", "seconds", "ns/op", "per", "RSS MiB", "check");
}

static void print_row(int w, const struct row *r, bool ok)
{
	bool ran = r->reported && r->out.rc == 0;

	printf("%-15s %10ld ", wl_name[w], r->count);
	if (ran)
		printf("%20" PRIu64 " %10.6f %8.1f ", r->out.checksum,
		       r->out.seconds, r->out.seconds * 1e9 / r->ops);
	else
		printf("%20s %10s %8s ", "-", "-", "-");
	printf("%-4s %8.1f  %s\n", wl_unit[w], r->rss_mib, ok ? "OK" : "FAIL");
	fflush(stdout);
}

/* Runs one workload and prints its row; true when its checksum is right. */
static bool bench_one(int w, const struct bench_opts *o)
{
	struct row r = { .count = 0 };
	int rc;
	bool ok;

	wl_plan(w, o, &r);
	rc = run_forked(w, o, &r);
	if (rc)
		fprintf(stderr, "actors bench %s: %s\n", wl_name[w],
			strerror(-rc));
	else if (r.reported && r.out.rc)
		fprintf(stderr, "actors bench %s: %s\n", wl_name[w],
			bench_strerror(r.out.rc));
	ok = !rc && r.reported && !r.out.rc && r.out.checksum == r.expect;
	print_row(w, &r, ok);
	return ok;
}

/* ---- actors bench, the options ---------------------------------------- */

/* Adds the workloads named by the operands to *mask; the index of a bad
 * name, or -1. */
static int bench_names(int argc, char **argv, unsigned *mask)
{
	int i, w;

	for (i = 0; i < argc; i++) {
		for (w = 0; w < WL_COUNT; w++)
			if (!strcmp(argv[i], wl_name[w]))
				break;
		if (w < WL_COUNT)
			*mask |= 1u << w;
		else if (!strcmp(argv[i], "all"))
			*mask |= (1u << WL_COUNT) - 1;
		else
			return i;
	}
	return -1;
}

/* "pingpong, ring, ..., spawnburst10000 ": the workloads, for an error */
static const char *wl_list(char *buf, size_t len)
{
	size_t n = 0;
	int w;

	buf[0] = '\0';
	for (w = 0; w < WL_COUNT && n < len; w++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s ", wl_name[w],
				      w + 1 < WL_COUNT ? "," : "");
	return buf;
}

static const char bench_about[] =
	"   or: actors bench echo [--conns K] [--seconds S]\n"
	"   or: actors bench timeouts [--procs N] [--rounds R]\n"
	"   or: actors bench call [--calls N] [--rounds R] [--queued Q]\n"
	"workloads: pingpong ring skynet fanin spawnburst100 "
	"spawnburst10000\n"
	"  (spawnburst with 100 or 10,000 children); none: all\n"
	"  (echo, timeouts and call run alone, only when named: "
	"--help after each)\n";

static const char bench_after[] =
	"A row per workload, its checksum OK or FAIL, then \"N passed, N "
	"failed\".\nexit status: 0 every row OK, 1 one failed, 2 a usage "
	"error\n";

int actors_bench_main(int argc, char **argv)
{
	struct bench_opts o = { BENCH_PINGPONG_ROUNDS, BENCH_RING_PROCS,
				BENCH_RING_HOPS,       BENCH_SKYNET_LEAVES,
				BENCH_SKYNET_WINDOW,   BENCH_FANIN_SENDERS,
				BENCH_FANIN_MSGS,      BENCH_FANIN_WINDOW,
				BENCH_SPAWNBURST_TOTAL };
	const struct opt opts[] = {
		OPT_LONG("rounds", &o.rounds, 1, LONG_MAX / 4, "N",
			 "ping-pong round trips"),
		OPT_LONG("procs", &o.procs, 1, 1L << 24, "N", "ring size"),
		OPT_LONG("hops", &o.hops, 1, LONG_MAX / 2, "N",
			 "ring hops in all"),
		OPT_LONG("leaves", &o.leaves, 1, 1000000000L, "N",
			 "skynet leaves"),
		OPT_LONG("window", &o.window, 1, BENCH_SKYNET_FANOUT, "N",
			 "skynet children alive, 1-10"),
		OPT_LONG("senders", &o.senders, 1, BENCH_FANIN_MAX_SENDERS, "N",
			 "fanin senders"),
		OPT_LONG("messages", &o.msgs, 1,
			 (1L << BENCH_FANIN_SEQ_BITS) - 1, "N",
			 "fanin messages per sender"),
		OPT_LONG("credit", &o.credit, 0, 1L << 30, "N",
			 "fanin ACK window, 0: none"),
		OPT_LONG("total", &o.total, BENCH_SPAWNBURST_MANY, LONG_MAX,
			 "N", "spawnburst steps in all"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors bench",
				     .opts = opts,
				     .operands = "[WORKLOAD|all]...",
				     .about = bench_about,
				     .after = bench_after };
	unsigned mask = 0;
	int rc, ops, w, bad, passed = 0, failed = 0;
	char list[160];

	if (argc > 1 && !strcmp(argv[1], "echo"))
		return actors_bench_echo_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "timeouts"))
		return actors_bench_timeouts_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "call"))
		return actors_bench_call_main(argc - 1, argv + 1);
	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	bad = bench_names(argc - ops, argv + ops, &mask);
	if (bad >= 0)
		return opt_error(&cmd,
				 "unknown workload '%s': expected %sor all",
				 argv[ops + bad], wl_list(list, sizeof(list)));
	if (mask == 0)
		mask = (1u << WL_COUNT) - 1;
	print_header();
	for (w = 0; w < WL_COUNT; w++)
		if (mask & (1u << w)) {
			if (bench_one(w, &o))
				passed++;
			else
				failed++;
		}
	/* the verdict, as every run of several checks ends */
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
