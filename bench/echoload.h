/* SPDX-License-Identifier: MIT */
/*
 * echoload.h - the echo load generator: a neutral client for every echo
 * server of bench/ (it does not use the actors runtime), run by
 * bench/echo and by `actors demo` and `actors bench echo`.
 *
 * Closed loop: each of conns connections sends a request of size bytes,
 * waits for the whole response, checks that it is the request byte for
 * byte, and sends the next. The connections are opened first (blocking
 * connects, TCP_NODELAY), then run for warmup seconds, not counted, and
 * then for seconds, counted: a request counts when its response's last
 * byte arrives inside that window, and its latency, from the request's
 * send to that byte, goes into a log-linear histogram (32 linear
 * sub-buckets per power of two of nanoseconds: within 3%). One thread by
 * default; with threads > 1 the connections are dealt out to that many
 * threads, each with its own ring or epoll set and histogram, merged at
 * the end.
 *
 * Two engines, so that the client costs the servers little CPU on a small
 * machine where it shares the cores with them (a system call costs 1-2 us
 * on the VMs this project is measured on):
 *   - io_uring (the default where a ring can be set up): each connection
 *     keeps a send and a receive queued; one io_uring_enter per loop
 *     submits every request the last loop's completions started and
 *     waits for the next. A request's latency runs from when it is
 *     queued, so it includes the rest of that loop.
 *   - epoll: level-triggered, non-blocking sockets, a send() and a recv()
 *     per request.
 */
#ifndef ECHOLOAD_H
#define ECHOLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ECHOLOAD_HOST "127.0.0.1"
#define ECHOLOAD_CONNS 100
#define ECHOLOAD_SECONDS 10.0
#define ECHOLOAD_WARMUP 0.5
#define ECHOLOAD_SIZE 64
#define ECHOLOAD_MAX_CONNS 100000
#define ECHOLOAD_MAX_THREADS 256
#define ECHOLOAD_MAX_SIZE ((size_t)1 << 20)

enum echoload_engine {
	ECHOLOAD_AUTO, /* io_uring if a ring can be set up, else epoll */
	ECHOLOAD_URING,
	ECHOLOAD_EPOLL,
};

/* "auto", "uring" or "epoll". */
const char *echoload_engine_name(enum echoload_engine e);

struct echoload_opts {
	const char *host; /* numeric address or name; NULL: ECHOLOAD_HOST */
	int port;
	int conns;	/* 1 to ECHOLOAD_MAX_CONNS */
	int threads;	/* 1 (the calling thread) to ECHOLOAD_MAX_THREADS */
	size_t size;	/* request bytes, 1 to ECHOLOAD_MAX_SIZE */
	double seconds; /* the measured window, > 0 */
	double warmup;	/* before it, >= 0 */
	enum echoload_engine engine;
};

/* Sets o to the defaults above, for host:port. */
void echoload_opts_init(struct echoload_opts *o, const char *host, int port);

struct echoload_result {
	uint64_t requests;			/* answered inside the window */
	double seconds;				/* the window's length */
	double rps;				/* requests / seconds */
	double p50_us, p99_us, p999_us, max_us; /* latency of those */
	uint64_t mismatches;	     /* responses that were not their request */
	uint64_t lost;		     /* connections closed or failed early */
	uint64_t errors;	     /* mismatches + lost */
	enum echoload_engine engine; /* the one that ran: uring or epoll */
	double cpus;		     /* the load's own CPU (utime + stime of
				      * its threads) over its run's wall
				      * time, warm-up included: near its
				      * threads' count, the load itself was
				      * the bottleneck */
};

/*
 * echoload_run - run the load described by o against a server and fill
 * *r. Returns 0 when the run went to its end (r->errors may still be
 * nonzero: check it), -EINVAL for options out of range, or -errno of a
 * system call that failed (a connect, io_uring, epoll, a thread); each
 * failure is said on stderr, prefixed "echoload:", with the call and its
 * address. ECHOLOAD_AUTO without io_uring says so once on stderr and runs
 * epoll. Raises the soft descriptor limit to fit conns if it is lower.
 * Any thread; runs are independent of each other.
 */
int echoload_run(const struct echoload_opts *o, struct echoload_result *r);

/*
 * echoload_print - one line of figures: human-readable, or a JSON object
 * with the keys host, port, conns, threads, engine, size, seconds,
 * requests, rps, p50_us, p99_us, p999_us, max_us, mismatches, lost,
 * errors and load_cpus (echoload_result.cpus).
 */
void echoload_print(FILE *f, const struct echoload_opts *o,
		    const struct echoload_result *r, bool json);

#endif /* ECHOLOAD_H */
