/* SPDX-License-Identifier: MIT */
/*
 * echo_inproc.h - the echo server and its load, in this process, for
 * `actors demo` and `actors bench echo`: the echo server of examples/
 * runs a runtime on the calling thread (act_main in echo_server_serve)
 * while the load generator of bench/ runs on a thread of its own against
 * 127.0.0.1; when the load is done, that thread stops the server with
 * echo_server_stop(), an act_send from outside the runtime.
 */
#ifndef ACTORS_TOOLS_ECHO_INPROC_H
#define ACTORS_TOOLS_ECHO_INPROC_H

#include <stdbool.h>

#include "../bench/echoload.h"
#include "../examples/echo_server.h"

struct echo_plan {
	int conns;
	double seconds; /* measured */
	double warmup;	/* before them */
};

struct echo_outcome {
	int rc; /* 0, or a negative errno: echo_server_strerror() */
	struct echoload_result load;
	struct echo_server_stats server;
};

/* Serves p's load; fills *out and returns out->rc. */
int echo_inproc(const struct echo_plan *p, struct echo_outcome *out);

/* The run served every request right, and some. */
bool echo_ok(const struct echo_outcome *out);

#endif
