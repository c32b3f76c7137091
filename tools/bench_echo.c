/* SPDX-License-Identifier: MIT */
/*
 * bench_echo.c - `actors bench echo [--conns K] [--seconds S]`: the echo
 * server against the load generator (echo_inproc.h), in a forked child
 * like the workloads (bench_fork.h); one row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "../examples/opt.h"
#include "bench_fork.h"
#include "commands.h"
#include "echo_inproc.h"

#define ECHO_BENCH_SECONDS 5.0

/* In the forked child: serve (echo_inproc fills in *out). */
static void echo_fill(const void *arg, void *out)
{
	echo_inproc(arg, out);
}

/* Runs the echo benchmark in a forked child, like the workloads. */
static int echo_forked(const struct echo_plan *p, struct echo_outcome *out,
		       bool *reported, double *rss_mib)
{
	return bench_fork("echo", echo_fill, p, out, sizeof(*out), reported,
			  rss_mib);
}

static void echo_about(FILE *f)
{
	fprintf(f,
		"The echo server (examples/echo_server.c) on this process's "
		"runtime against\nthe load generator (bench/echoload.c) on "
		"127.0.0.1: K connections, each\nsending %d bytes and "
		"waiting for their echo, %.1f s of warm-up, then S s.\n",
		ECHOLOAD_SIZE, ECHOLOAD_WARMUP);
}

static void echo_print(const struct echo_plan *p,
		       const struct echo_outcome *out, bool reported,
		       double rss_mib)
{
	const struct echoload_result *r = &out->load;
	bool ran = reported && out->rc == 0;

	printf("%-8s %6s %8s %10s %11s %8s %8s %8s %8s  %s\n", "workload",
	       "conns", "seconds", "requests", "req/s", "p50 us", "p99 us",
	       "p999 us", "RSS MiB", "check");
	printf("%-8s %6d %8.2f ", "echo", p->conns, p->seconds);
	if (ran)
		printf("%10" PRIu64 " %11.1f %8.1f %8.1f %8.1f ", r->requests,
		       r->rps, r->p50_us, r->p99_us, r->p999_us);
	else
		printf("%10s %11s %8s %8s %8s ", "-", "-", "-", "-", "-");
	printf("%8.1f  %s\n", rss_mib,
	       reported && echo_ok(out) ? "OK" : "FAIL");
	fflush(stdout);
}

int actors_bench_echo_main(int argc, char **argv)
{
	struct echo_plan p = { ECHOLOAD_CONNS, ECHO_BENCH_SECONDS,
			       ECHOLOAD_WARMUP };
	struct echo_outcome out = { .rc = 0 };
	bool reported = false;
	double rss_mib = 0;
	const struct opt opts[] = {
		OPT_INT("conns", &p.conns, 1, ECHOLOAD_MAX_CONNS, "K",
			"connections"),
		OPT_DOUBLE("seconds", &p.seconds, 0.001, 1e6, "S",
			   "measured time"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "actors bench echo",
				     .opts = opts,
				     .about_fn = echo_about };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	rc = echo_forked(&p, &out, &reported, &rss_mib);
	if (rc)
		fprintf(stderr, "actors bench echo: %s\n", strerror(-rc));
	else if (reported && out.rc)
		fprintf(stderr, "actors bench echo: %s\n",
			echo_server_strerror(out.rc));
	echo_print(&p, &out, reported, rss_mib);
	return !rc && reported && echo_ok(&out) ? 0 : 1;
}
