/* SPDX-License-Identifier: MIT */
/*
 * echo_main.c - bench/echo: the echo load generator (echoload.h) against
 * any echo server; prints one line of figures, or a JSON object.
 *
 *   bench/echo --port P [--host H] [--conns K] [--seconds S]
 *              [--threads T] [--size N] [--warmup S]
 *              [--engine uring|epoll|auto] [--json]
 *
 * Exit status: 0 when the run completed with no error, 1 when it failed
 * or any response was wrong, any connection lost, or nothing answered;
 * 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "echoload.h"

static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: echo --port P [--host H] [--conns K] [--seconds S]\n"
		"            [--threads T] [--size N] [--warmup S]\n"
		"            [--engine uring|epoll|auto] [--json]\n"
		"  --host H     server address         (default %s)\n"
		"  --port P     server port            (required)\n"
		"  --conns K    connections, 1 request in flight each "
		"(default %d)\n"
		"  --seconds S  measured time          (default %.0f)\n"
		"  --warmup S   unmeasured time before (default %.1f)\n"
		"  --threads T  client threads         (default 1)\n"
		"  --size N     request bytes          (default %d)\n"
		"  --engine E   the client's I/O: io_uring, epoll, or uring "
		"where it\n"
		"               can set up a ring, else epoll (default auto)\n"
		"  --json       print a JSON object instead of a line\n",
		ECHOLOAD_HOST, ECHOLOAD_CONNS, ECHOLOAD_SECONDS,
		ECHOLOAD_WARMUP, ECHOLOAD_SIZE);
	return status;
}

static int parse_seconds(const char *s, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= min) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static const struct option longopts[] = {
	{ "host", required_argument, NULL, 'H' },
	{ "port", required_argument, NULL, 'p' },
	{ "conns", required_argument, NULL, 'c' },
	{ "seconds", required_argument, NULL, 's' },
	{ "warmup", required_argument, NULL, 'W' },
	{ "threads", required_argument, NULL, 't' },
	{ "size", required_argument, NULL, 'z' },
	{ "engine", required_argument, NULL, 'e' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Parses option c's value into o; -1 when it is bad. */
static int take(int c, const char *arg, struct echoload_opts *o)
{
	enum echoload_engine e;
	long v = 0;
	int rc = -1;

	switch (c) {
	case 'H':
		o->host = arg;
		return 0;
	case 'p':
		rc = bench_parse_long(arg, 1, 65535, &v);
		o->port = (int)v;
		break;
	case 'c':
		rc = bench_parse_long(arg, 1, ECHOLOAD_MAX_CONNS, &v);
		o->conns = (int)v;
		break;
	case 't':
		rc = bench_parse_long(arg, 1, ECHOLOAD_MAX_THREADS, &v);
		o->threads = (int)v;
		break;
	case 'z':
		rc = bench_parse_long(arg, 1, (long)ECHOLOAD_MAX_SIZE, &v);
		o->size = (size_t)v;
		break;
	case 's':
		rc = parse_seconds(arg, 0.001, &o->seconds);
		break;
	case 'W':
		rc = parse_seconds(arg, 0, &o->warmup);
		break;
	case 'e':
		for (e = ECHOLOAD_AUTO; e <= ECHOLOAD_EPOLL; e++)
			if (!strcmp(arg, echoload_engine_name(e))) {
				o->engine = e;
				return 0;
			}
		return -1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct echoload_opts o;
	struct echoload_result r;
	bool json = false;
	int c, rc;

	echoload_opts_init(&o, ECHOLOAD_HOST, 0);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h')
			return usage(stdout, 0);
		if (c == 'j') {
			json = true;
			continue;
		}
		if (c == '?')
			return usage(stderr, 2); /* getopt said why */
		if (take(c, optarg, &o)) {
			fprintf(stderr, "echo: bad value '%s'\n", optarg);
			return usage(stderr, 2);
		}
	}
	if (optind < argc || o.port == 0) {
		fprintf(stderr, "echo: %s\n",
			optind < argc ? "unexpected operand" :
					"--port is required");
		return usage(stderr, 2);
	}
	rc = echoload_run(&o, &r);
	if (rc)
		return 1; /* echoload said why */
	echoload_print(stdout, &o, &r, json);
	if (fflush(stdout) == EOF) {
		perror("echo: stdout");
		return 1;
	}
	if (r.requests == 0)
		fprintf(stderr, "echo: no request was answered\n");
	return r.errors || r.requests == 0 ? 1 : 0;
}
