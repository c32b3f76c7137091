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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "echoload.h"
#include "../examples/opt.h"

static const char *take_engine(const char *arg, void *dst)
{
	enum echoload_engine e;

	for (e = ECHOLOAD_AUTO; e <= ECHOLOAD_EPOLL; e++)
		if (!strcmp(arg, echoload_engine_name(e))) {
			*(enum echoload_engine *)dst = e;
			return NULL;
		}
	return "uring, epoll or auto";
}

static const char *take_size(const char *arg, void *dst)
{
	static char expect[32];
	long v;

	if (bench_parse_long(arg, 1, (long)ECHOLOAD_MAX_SIZE, &v)) {
		snprintf(expect, sizeof(expect), "1 to %zu", ECHOLOAD_MAX_SIZE);
		return expect;
	}
	*(size_t *)dst = (size_t)v;
	return NULL;
}

int main(int argc, char **argv)
{
	struct echoload_opts o;
	struct echoload_result r;
	bool json = false;
	const struct opt opts[] = {
		OPT_STR("host", &o.host, "H", "server address"),
		OPT_INT("port", &o.port, 1, 65535, "P",
			"server port (required, no default)"),
		OPT_INT("conns", &o.conns, 1, ECHOLOAD_MAX_CONNS, "K",
			"connections, 1 request in flight each"),
		OPT_DOUBLE("seconds", &o.seconds, 0.001, 1e6, "S",
			   "measured time"),
		OPT_DOUBLE("warmup", &o.warmup, 0, 1e6, "S",
			   "unmeasured time before"),
		OPT_INT("threads", &o.threads, 1, ECHOLOAD_MAX_THREADS, "T",
			"client threads"),
		OPT_FN("size", take_size, &o.size, "N",
		       "request bytes, 1 to 1 MiB (default " OPT_TEXT(
			       ECHOLOAD_SIZE) ")"),
		OPT_FN("engine", take_engine, &o.engine, "E",
		       "the client's I/O: uring (io_uring), epoll, or auto:\n"
		       "uring where it can set up a ring, else epoll\n"
		       "(default auto)"),
		OPT_FLAG("json", &json,
			 "print a JSON object instead of a line"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "bench/echo", .opts = opts };
	int ops, rc;

	echoload_opts_init(&o, ECHOLOAD_HOST, 0);
	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	if (o.port == 0)
		return opt_error(&cmd, "--port is required");
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
