/* SPDX-License-Identifier: MIT */
/*
 * actors.c - the actors command-line tool.
 *
 *   actors demo                 spawn 100 working children, show where ran;
 *                               then serve echoes to a loopback client
 *   actors bench [WORKLOAD...]  run the bench/ workloads, print a table
 *   actors bench echo [...]     the echo server against the load generator
 *   actors bench timeouts [...] receive-timeout lateness, idle CPU
 *   actors topo [...]           the topology and the placement plan that
 *                               the environment gives (doc/topology.md)
 *   actors trace [...] FILE     a summary of a trace that ACTORS_TRACE
 *                               wrote (tools/trace.c,
 *                               doc/observability.md)
 *   actors stress [TEST...]     the stress tests of stress/ (tools/stress.c)
 *   actors vars [--man|--test]  the ACTORS_* variables, or the tests'
 *   actors help | --version
 *
 * Each subcommand is one entry of commands[]; runtime errors (negative
 * errno) are printed with strerror and give exit status 1, usage errors 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/stat.h>

#include <actors.h>

#include "settings/env.h"
#include "node/paths.h"
#include "affinity/plan.h"
#include "affinity/report.h"
#include "settings/vars.h"
#include "reactor/ring.h"
#include "node/runtime.h"
#include "../bench/bench.h"
#include "../bench/echoload.h"
#include "../examples/echo_server.h"
#include "../examples/util.h"
#include "stress.h"
#include "trace.h"

static void usage(FILE *f);

/* ---- the echo server, in this process --------------------------------- */

/*
 * `actors demo` and `actors bench echo`: the echo server of examples/ runs
 * a runtime on this thread (act_main in echo_server_serve) while the load
 * generator of bench/ runs on a thread of its own against 127.0.0.1; when
 * the load is done, that thread stops the server with echo_server_stop(),
 * an act_send from outside the runtime.
 */

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

struct echo_client {
	struct echo_server *server;
	struct echoload_opts opts;
	struct echoload_result res;
	int rc;
};

static void *echo_client_main(void *arg)
{
	struct echo_client *c = arg;

	c->rc = echoload_run(&c->opts, &c->res);
	echo_server_stop(c->server);
	return NULL;
}

/* Serves p's load; fills *out and returns out->rc. */
static int echo_inproc(const struct echo_plan *p, struct echo_outcome *out)
{
	struct echo_client c;
	pthread_t tid;
	int fd, port, rc;

	memset(out, 0, sizeof(*out));
	fd = util_listen("actors", ECHO_SERVER_HOST, 0, &port);
	if (fd < 0)
		return out->rc = fd;
	c.server = echo_server_new(fd, 0, 0);
	if (c.server == NULL) {
		close(fd);
		return out->rc = -ENOMEM;
	}
	echoload_opts_init(&c.opts, ECHO_SERVER_HOST, port);
	c.opts.conns = p->conns;
	c.opts.seconds = p->seconds;
	c.opts.warmup = p->warmup;
	rc = -pthread_create(&tid, NULL, echo_client_main, &c);
	if (rc == 0) {
		rc = echo_server_serve(c.server);
		/* If the server failed, this resets the client's
		 * connections, which ends its run at once. */
		close(fd);
		fd = -1;
		pthread_join(tid, NULL);
		if (rc == 0)
			rc = c.rc;
		out->load = c.res;
		echo_server_stats(c.server, &out->server);
	}
	if (fd >= 0)
		close(fd);
	echo_server_free(c.server);
	return out->rc = rc;
}

/* The run served every request right, and some. */
static bool echo_ok(const struct echo_outcome *out)
{
	return out->rc == 0 && out->load.errors == 0 && out->load.requests > 0;
}

/* ---- actors demo ---------------------------------------------------- */

#define DEMO_CHILDREN 100
#define DEMO_STEP 200 /* child i counts the primes below 200 * (i + 1) */
#define DEMO_REPLY 1  /* child -> parent: struct demo_reply */
#define DEMO_ECHO_CONNS 50
#define DEMO_ECHO_SECONDS 2.0
#define DEMO_ECHO_WARMUP 0.25

/*
 * The answer: the sum over i of pi(200 * (i + 1)), which is 121,460.
 * demo_expect() computes it again with a sieve, so the run checks itself.
 */

/* A child's arg: on the parent's stack, written before the spawn. */
struct demo_job {
	act_pid parent;
	int index;
};

struct demo_reply {
	uint64_t result;
	int32_t index;
	int32_t worker;
};

/* act_main()'s arg; act_main() returning orders the main's writes. */
struct demo_run {
	int err;	  /* 0, or the first failure */
	int workers;	  /* act_workers() */
	long *per_worker; /* children per worker; the caller frees it */
	int replies;	  /* good replies */
	uint64_t sum;	  /* sum of their results */
	double seconds;	  /* first spawn to last reply */
};

static bool is_prime(uint64_t n)
{
	uint64_t d;

	if (n < 4)
		return n >= 2;
	if (n % 2 == 0)
		return false;
	for (d = 3; d * d <= n; d += 2)
		if (n % d == 0)
			return false;
	return true;
}

/* The children's work: trial division, about 1 us to 1 ms of it. */
static uint64_t count_primes(uint64_t below)
{
	uint64_t n, count = 0;

	for (n = 2; n < below; n++)
		count += is_prime(n);
	return count;
}

static void demo_child(void *arg)
{
	struct demo_job job = *(const struct demo_job *)arg;
	struct demo_reply r;

	r.result = count_primes((uint64_t)DEMO_STEP * (job.index + 1));
	r.index = job.index;
	r.worker = act_worker();
	act_send(job.parent, DEMO_REPLY, &r, sizeof(r));
}

/* Spawns the children; returns how many were spawned. */
static int demo_spawn(struct demo_job *jobs)
{
	int i;

	for (i = 0; i < DEMO_CHILDREN; i++) {
		jobs[i] = (struct demo_job){ act_self(), i };
		if (act_pid_eq(act_spawn(demo_child, &jobs[i]), ACT_PID_NONE))
			break;
	}
	return i;
}

/* Counts one reply; a malformed or repeated one is an error. */
static void demo_take(struct demo_run *run, const struct act_msg *m, bool *seen)
{
	struct demo_reply r;

	if (m->tag != DEMO_REPLY || m->len != sizeof(r))
		goto bad;
	memcpy(&r, m->data, sizeof(r));
	if (r.index < 0 || r.index >= DEMO_CHILDREN || seen[r.index] ||
	    r.worker < 0 || r.worker >= run->workers)
		goto bad;
	seen[r.index] = true;
	run->per_worker[r.worker]++;
	run->sum += r.result;
	run->replies++;
	return;
bad:
	run->err = BENCH_EPROTO;
}

/* Waits for n messages, the replies of the n children spawned. */
static void demo_collect(struct demo_run *run, int n)
{
	bool seen[DEMO_CHILDREN] = { false };
	int i;

	for (i = 0; i < n; i++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m == NULL) {
			run->err = BENCH_EPROTO;
			return;
		}
		demo_take(run, m, seen);
		act_msg_free(m);
	}
}

static void demo_main(void *arg)
{
	struct demo_run *run = arg;
	struct demo_job jobs[DEMO_CHILDREN];
	double t0;
	int n;

	run->workers = act_workers();
	run->per_worker = calloc(run->workers, sizeof(*run->per_worker));
	if (run->per_worker == NULL) {
		run->err = -ENOMEM;
		return;
	}
	t0 = bench_now();
	n = demo_spawn(jobs);
	if (n < DEMO_CHILDREN)
		run->err = BENCH_ESPAWN;
	demo_collect(run, n);
	run->seconds = bench_now() - t0;
}

/* The same sum by another road: a sieve, sampled every DEMO_STEP. */
static int demo_expect(uint64_t *sum)
{
	size_t max = (size_t)DEMO_STEP * DEMO_CHILDREN, n, m;
	char *composite = calloc(max, 1);
	uint64_t count = 0;

	if (composite == NULL)
		return -ENOMEM;
	*sum = 0;
	for (n = 2; n < max; n++) {
		if (!composite[n]) {
			count++;
			for (m = n * n; m < max; m += n)
				composite[m] = 1;
		}
		if ((n + 1) % DEMO_STEP == 0)
			*sum += count; /* primes below n + 1 */
	}
	free(composite);
	return 0;
}

static void demo_print(const struct demo_run *run, uint64_t expect)
{
	int w;

	printf("%d children on %d worker%s\n", DEMO_CHILDREN, run->workers,
	       run->workers == 1 ? "" : "s");
	for (w = 0; w < run->workers; w++)
		printf("  worker %d: %ld children\n", w, run->per_worker[w]);
	printf("children %d, sum of results %" PRIu64 " (expected %" PRIu64
	       ": %s), elapsed %.3f ms\n",
	       run->replies, run->sum, expect,
	       run->sum == expect ? "OK" : "FAIL", run->seconds * 1e3);
}

/* The echo part of the demo; true when it went right. */
static bool demo_echo(void)
{
	const struct echo_plan plan = { DEMO_ECHO_CONNS, DEMO_ECHO_SECONDS,
					DEMO_ECHO_WARMUP };
	struct echo_outcome out;
	const struct echoload_result *r = &out.load;

	printf("\necho server: one process per connection, %d connections "
	       "from a loopback client\n",
	       plan.conns);
	fflush(stdout);
	if (echo_inproc(&plan, &out)) {
		fprintf(stderr, "actors demo: echo: %s\n",
			echo_server_strerror(out.rc));
		return false;
	}
	printf("  %" PRIu64 " requests of %d bytes in %.2f s: %.0f "
	       "requests/s\n",
	       r->requests, ECHOLOAD_SIZE, r->seconds, r->rps);
	printf("  latency p50 %.1f us, p99 %.1f us, p999 %.1f us, "
	       "max %.1f us\n",
	       r->p50_us, r->p99_us, r->p999_us, r->max_us);
	printf("  %" PRIu64 " connections accepted, wrong responses %" PRIu64
	       ", connections lost %" PRIu64 ": %s\n",
	       out.server.accepted, r->mismatches, r->lost,
	       echo_ok(&out) ? "OK" : "FAIL");
	return echo_ok(&out);
}

static int cmd_demo(int argc, char **argv)
{
	struct demo_run run = { .err = 0 };
	uint64_t expect;
	bool ok;
	int rc;

	if (argc > 1) {
		fprintf(stderr, "actors demo: takes no arguments\n");
		return 2;
	}
	(void)argv;
	rc = demo_expect(&expect);
	if (rc == 0)
		rc = bench_status(act_main(NULL, demo_main, &run), run.err);
	if (rc == 0)
		demo_print(&run, expect);
	else
		fprintf(stderr, "actors demo: %s\n", bench_strerror(rc));
	free(run.per_worker);
	ok = rc == 0 && run.sum == expect;
	fflush(NULL);
	ok = demo_echo() && ok;
	return ok ? 0 : 1;
}

/* ---- actors bench --------------------------------------------------- */

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

static int io_all(int fd, void *buf, size_t len, bool wr)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* In the forked child: fill in *out, send its len bytes back, exit. */
static void __attribute__((noreturn))
child_report(void (*fill)(const void *arg, void *out), const void *arg,
	     void *out, size_t len, int fd)
{
	fill(arg, out);
	_exit(io_all(fd, out, len, true) ? 1 : 0);
}

/*
 * Reaps the child; takes its peak RSS and says how it ended if badly
 * (reported: it wrote its outcome).
 */
static int reap(const char *name, pid_t pid, bool reported, double *rss_mib)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	*rss_mib = (double)ru.ru_maxrss / 1024.0; /* ru_maxrss: KiB */
	if (WIFSIGNALED(status))
		fprintf(stderr, "actors bench %s: killed by signal %d (%s)\n",
			name, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!reported)
		fprintf(stderr, "actors bench %s: exited %d with no result\n",
			name, WEXITSTATUS(status));
	return 0;
}

/*
 * Runs fill(arg, out) in a forked child, which sends the len bytes of
 * *out back through a pipe: each workload starts and stops a runtime of
 * its own, in an OS process of its own (its own peak RSS). *reported:
 * the child sent them. 0, or -errno if the pipe or the fork failed.
 */
static int run_child(const char *name, void (*fill)(const void *, void *),
		     const void *arg, void *out, size_t len, bool *reported,
		     double *rss_mib)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(NULL); /* or the child would flush our buffers again */
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		child_report(fill, arg, out, len, fd[1]);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		return -errno;
	}
	*reported = io_all(fd[0], out, len, false) == 0;
	close(fd[0]);
	return reap(name, pid, *reported, rss_mib);
}

/* A workload and its options, for wl_fill() in the child. */
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

	return run_child(wl_name[w], wl_fill, &j, &r->out, sizeof(r->out),
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

/* ---- actors bench echo ------------------------------------------------ */

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
	return run_child("echo", echo_fill, p, out, sizeof(*out), reported,
			 rss_mib);
}

static int echo_usage(const char *why)
{
	if (why)
		fprintf(stderr, "actors bench echo: %s\n", why);
	fprintf(why ? stderr : stdout,
		"usage: actors bench echo [--conns K] [--seconds S]\n"
		"The echo server (examples/echo_server.c) on this process's "
		"runtime against\nthe load generator (bench/echoload.c) on "
		"127.0.0.1: K connections, each\nsending %d bytes and "
		"waiting for their echo, %.1f s of warm-up, then S s.\n"
		"  --conns K    connections   (default %d)\n"
		"  --seconds S  measured time (default %.0f)\n",
		ECHOLOAD_SIZE, ECHOLOAD_WARMUP, ECHOLOAD_CONNS,
		ECHO_BENCH_SECONDS);
	return why ? 2 : 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= 0.001) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static const struct option echo_longopts[] = {
	{ "conns", required_argument, NULL, 'c' },
	{ "seconds", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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

static int cmd_bench_echo(int argc, char **argv)
{
	struct echo_plan p = { ECHOLOAD_CONNS, ECHO_BENCH_SECONDS,
			       ECHOLOAD_WARMUP };
	struct echo_outcome out = { .rc = 0 };
	bool reported = false;
	double rss_mib = 0;
	long conns;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", echo_longopts, NULL)) != -1) {
		if (c == 'h')
			return echo_usage(NULL);
		if (c == 'c' && bench_parse_long(optarg, 1, ECHOLOAD_MAX_CONNS,
						 &conns) == 0)
			p.conns = (int)conns;
		else if (c != 's' || parse_seconds(optarg, &p.seconds))
			return echo_usage("bad option or value");
	}
	if (optind < argc)
		return echo_usage("unexpected operand");
	rc = echo_forked(&p, &out, &reported, &rss_mib);
	if (rc)
		fprintf(stderr, "actors bench echo: %s\n", strerror(-rc));
	else if (reported && out.rc)
		fprintf(stderr, "actors bench echo: %s\n",
			echo_server_strerror(out.rc));
	echo_print(&p, &out, reported, rss_mib);
	return !rc && reported && echo_ok(&out) ? 0 : 1;
}

/* ---- actors bench timeouts -------------------------------------------- */

/* As bench/timeouts: waits of 50 to 150 ms, then 2 s idle. */
#define TIMEOUTS_MIN_NS 50000000LL
#define TIMEOUTS_MAX_NS 150000000LL
#define TIMEOUTS_IDLE_NS 2000000000LL

struct timeouts_plan {
	long procs, rounds;
};

/* What the forked child sends back. */
struct timeouts_outcome {
	int rc;
	struct bench_timeouts_result res;
};

static void timeouts_fill(const void *arg, void *out)
{
	const struct timeouts_plan *p = arg;
	struct timeouts_outcome *t = out;

	t->rc = bench_timeouts(p->procs, p->rounds, TIMEOUTS_MIN_NS,
			       TIMEOUTS_MAX_NS, TIMEOUTS_IDLE_NS, &t->res);
}

static int timeouts_usage(const char *why)
{
	if (why)
		fprintf(stderr, "actors bench timeouts: %s\n", why);
	fprintf(why ? stderr : stdout,
		"usage: actors bench timeouts [--procs N] [--rounds R]\n"
		"N processes each wait R times in act_receive() with a "
		"timeout of %lld to\n%lld ms and nothing to receive, all "
		"at once; prints how late the waits\nended (p50, p99, max, "
		"in us), then the CPU the runtime uses over %lld s\nwith N "
		"timers pending and nothing to run. It runs only when "
		"named.\n"
		"  --procs N   processes waiting at once (default %d)\n"
		"  --rounds R  waits each                (default %d)\n",
		TIMEOUTS_MIN_NS / 1000000, TIMEOUTS_MAX_NS / 1000000,
		TIMEOUTS_IDLE_NS / 1000000000, BENCH_TIMEOUTS_PROCS,
		BENCH_TIMEOUTS_ROUNDS);
	return why ? 2 : 0;
}

static const struct option timeouts_longopts[] = {
	{ "procs", required_argument, NULL, 'p' },
	{ "rounds", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* ok: it ran, and no wait ended before its deadline. */
static void timeouts_print(const struct timeouts_plan *p,
			   const struct timeouts_outcome *t, bool ran, bool ok,
			   double rss_mib)
{
	const struct bench_timeouts_result *r = &t->res;

	printf("%-8s %6s %7s %9s %9s %9s %7s %8s  %s\n", "workload", "procs",
	       "waits", "p50 us", "p99 us", "max us", "idle %", "RSS MiB",
	       "check");
	printf("%-8s %6ld ", "timeouts", p->procs);
	if (ran)
		printf("%7ld %9.0f %9.0f %9.0f %7.2f ", r->samples, r->p50_us,
		       r->p99_us, r->max_us, r->idle_cpu_pct);
	else
		printf("%7s %9s %9s %9s %7s ", "-", "-", "-", "-", "-");
	printf("%8.1f  %s%s\n", rss_mib, ok ? "OK" : "FAIL",
	       ran && r->early ? " (some waits ended early)" : "");
	fflush(stdout);
}

static int cmd_bench_timeouts(int argc, char **argv)
{
	struct timeouts_plan p = { BENCH_TIMEOUTS_PROCS,
				   BENCH_TIMEOUTS_ROUNDS };
	struct timeouts_outcome t = { .rc = 0 };
	bool reported = false, ran;
	double rss_mib = 0;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", timeouts_longopts, NULL)) !=
	       -1) {
		if (c == 'h')
			return timeouts_usage(NULL);
		if (c == 'p' && !bench_parse_long(optarg, 1, 1000000, &p.procs))
			continue;
		if (c != 'r' || bench_parse_long(optarg, 1, 1000, &p.rounds))
			return timeouts_usage("bad option or value");
	}
	if (optind < argc)
		return timeouts_usage("unexpected operand");
	rc = run_child("timeouts", timeouts_fill, &p, &t, sizeof(t), &reported,
		       &rss_mib);
	if (rc)
		fprintf(stderr, "actors bench timeouts: %s\n", strerror(-rc));
	else if (reported && t.rc)
		fprintf(stderr, "actors bench timeouts: %s\n",
			bench_strerror(t.rc));
	ran = !rc && reported && !t.rc;
	timeouts_print(&p, &t, ran, ran && !t.res.early, rss_mib);
	return ran && !t.res.early ? 0 : 1;
}

/* ---- actors bench, the options ---------------------------------------- */

static const struct option bench_longopts[] = {
	{ "rounds", required_argument, NULL, 'r' },
	{ "procs", required_argument, NULL, 'p' },
	{ "hops", required_argument, NULL, 'n' },
	{ "leaves", required_argument, NULL, 'l' },
	{ "window", required_argument, NULL, 'w' },
	{ "senders", required_argument, NULL, 's' },
	{ "messages", required_argument, NULL, 'm' },
	{ "credit", required_argument, NULL, 'c' },
	{ "total", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Parses one option's value into o; -1 on a bad one. */
static int bench_opt(int c, const char *arg, struct bench_opts *o)
{
	switch (c) {
	case 'r':
		return bench_parse_long(arg, 1, LONG_MAX / 4, &o->rounds);
	case 'p':
		return bench_parse_long(arg, 1, 1L << 24, &o->procs);
	case 'n':
		return bench_parse_long(arg, 1, LONG_MAX / 2, &o->hops);
	case 'l':
		return bench_parse_long(arg, 1, 1000000000L, &o->leaves);
	case 'w':
		return bench_parse_long(arg, 1, BENCH_SKYNET_FANOUT,
					&o->window);
	case 's':
		return bench_parse_long(arg, 1, BENCH_FANIN_MAX_SENDERS,
					&o->senders);
	case 'm':
		return bench_parse_long(
			arg, 1, (1L << BENCH_FANIN_SEQ_BITS) - 1, &o->msgs);
	case 'c':
		return bench_parse_long(arg, 0, 1L << 30, &o->credit);
	case 't':
		return bench_parse_long(arg, BENCH_SPAWNBURST_MANY, LONG_MAX,
					&o->total);
	}
	return -1;
}

/* Adds the workloads named by the operands to *mask; -1 on a bad name. */
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
			return -1;
	}
	return 0;
}

static int bench_usage(const char *why)
{
	if (why)
		fprintf(stderr, "actors bench: %s\n", why);
	fprintf(stderr,
		"usage: actors bench [WORKLOAD|all]... [options]\n"
		"   or: actors bench echo [--conns K] [--seconds S]\n"
		"   or: actors bench timeouts [--procs N] [--rounds R]\n"
		"workloads: pingpong ring skynet fanin spawnburst100 "
		"spawnburst10000\n"
		"  (spawnburst with 100 or 10,000 children); none: all\n"
		"  (echo and timeouts run alone, only when named: "
		"--help after either)\n"
		"  --rounds N    ping-pong round trips        (default %ld)\n"
		"  --procs N     ring size                    (default %d)\n"
		"  --hops N      ring hops in all             (default %ld)\n"
		"  --leaves N    skynet leaves                (default %ld)\n"
		"  --window N    skynet children alive, 1-10  (default %d)\n"
		"  --senders N   fanin senders                (default %d)\n"
		"  --messages N  fanin messages per sender    (default %ld)\n"
		"  --credit N    fanin ACK window, 0: none    (default %ld)\n"
		"  --total N     spawnburst steps in all      (default %ld)\n",
		BENCH_PINGPONG_ROUNDS, BENCH_RING_PROCS, BENCH_RING_HOPS,
		BENCH_SKYNET_LEAVES, BENCH_SKYNET_WINDOW, BENCH_FANIN_SENDERS,
		BENCH_FANIN_MSGS, BENCH_FANIN_WINDOW, BENCH_SPAWNBURST_TOTAL);
	return why ? 2 : 0;
}

static int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = { BENCH_PINGPONG_ROUNDS, BENCH_RING_PROCS,
				BENCH_RING_HOPS,       BENCH_SKYNET_LEAVES,
				BENCH_SKYNET_WINDOW,   BENCH_FANIN_SENDERS,
				BENCH_FANIN_MSGS,      BENCH_FANIN_WINDOW,
				BENCH_SPAWNBURST_TOTAL };
	unsigned mask = 0;
	int c, w, failed = 0;

	if (argc > 1 && !strcmp(argv[1], "echo"))
		return cmd_bench_echo(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "timeouts"))
		return cmd_bench_timeouts(argc - 1, argv + 1);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", bench_longopts, NULL)) != -1) {
		if (c == 'h')
			return bench_usage(NULL);
		if (c == '?' || bench_opt(c, optarg, &o))
			return bench_usage("bad option or value");
	}
	if (bench_names(argc - optind, argv + optind, &mask))
		return bench_usage("unknown workload");
	if (mask == 0)
		mask = (1u << WL_COUNT) - 1;
	print_header();
	for (w = 0; w < WL_COUNT; w++)
		if (mask & (1u << w))
			failed += !bench_one(w, &o);
	return failed ? 1 : 0;
}

/* ---- actors topo ----------------------------------------------------- */

/*
 * The plan act_main would make, printed instead of applied: the same
 * act__plan_resolve with the same precedence (a config field beats the
 * environment), so the options below stand for a program's act_config
 * and ACTORS_BIND, ACTORS_CPUS, ACTORS_REACTOR_CPU and ACTORS_SCHEDULERS
 * are read as act_main reads them. --synthetic and --xml make it a plan
 * for another machine, --cgroup for a container.
 */

static int topo_usage(const char *why)
{
	if (why) {
		fprintf(stderr, "actors topo: %s\n", why);
		fprintf(stderr, "run 'actors topo --help' for the options\n");
		return 2;
	}
	printf("usage: actors topo [--synthetic DESC | --xml FILE] "
	       "[--cgroup DIR] [--json]\n"
	       "                   [--workers N] [--bind POLICY] "
	       "[--cpus LIST]\n"
	       "                   [--reactor-cpu CPU|auto|none|inline] "
	       "[--steal all]\n"
	       "Prints the topology, the allowed and usable CPUs and the "
	       "plan that act_main\nwould make here with this environment: "
	       "each worker's CPU, core and node,\nthe reactor's CPU and "
	       "worker 0's steal order (doc/topology.md).\n"
	       "  --synthetic DESC  plan for an hwloc synthetic machine, "
	       "e.g.\n"
	       "                    'pack:2 numa:2 core:16 pu:2'\n"
	       "  --xml FILE        plan for the machine an hwloc XML file "
	       "describes\n"
	       "  --cgroup DIR      DIR stands for the process's cgroup: its "
	       "cpu.max and\n"
	       "                    cpuset.cpus.effective limit the plan\n"
	       "  --json            one JSON object instead of text\n"
	       "  --workers N       workers, 1 to %d (act_config.schedulers; "
	       "else\n"
	       "                    ACTORS_SCHEDULERS, else the default)\n"
	       "  --bind POLICY     none, core, pu, spread, compact or numa "
	       "(act_config.bind;\n"
	       "                    else ACTORS_BIND, else core)\n"
	       "  --cpus LIST       CPUs to use, e.g. 0-7,16-23 "
	       "(act_config.cpus; else\n"
	       "                    ACTORS_CPUS, else all allowed)\n"
	       "  --reactor-cpu C   the reactor's CPU, auto, none or "
	       "inline (act_config.reactor_cpu;\n"
	       "                    else ACTORS_REACTOR_CPU, else auto)\n"
	       "  --steal all       every worker's steal order, not only "
	       "worker 0's\n",
	       ACT_MAX_WORKERS);
	return 0;
}

static const struct option topo_longopts[] = {
	{ "synthetic", required_argument, NULL, 's' },
	{ "xml", required_argument, NULL, 'x' },
	{ "cgroup", required_argument, NULL, 'g' },
	{ "json", no_argument, NULL, 'j' },
	{ "workers", required_argument, NULL, 'w' },
	{ "bind", required_argument, NULL, 'b' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "reactor-cpu", required_argument, NULL, 'r' },
	{ "steal", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct topo_opts {
	struct act_config cfg;
	struct act__topo_src src;
	bool other;	/* --synthetic, --xml or --cgroup: src applies */
	unsigned flags; /* ACT_REPORT_* */
};

/* One option into o; NULL, or why it is wrong (in buf). */
static const char *topo_opt(int c, const char *arg, struct topo_opts *o,
			    char *buf, size_t len)
{
	struct stat st;
	uint64_t n;
	int b;

	switch (c) {
	case 's':
		o->src.synthetic = arg;
		break;
	case 'x':
		o->src.xml = arg;
		break;
	case 'g':
		/* a missing file in it reads as "no limit" (cgroup.h), but
		 * a missing directory is surely a typo */
		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(buf, len, "--cgroup %s: not a directory", arg);
			return buf;
		}
		o->src.cgroup = arg;
		break;
	case 'j':
		o->flags |= ACT_REPORT_JSON;
		return NULL;
	case 'w':
		if (act__env_parse_uint(arg, 1, ACT_MAX_WORKERS, &n)) {
			snprintf(buf, len, "--workers %s: expected 1 to %d",
				 arg, ACT_MAX_WORKERS);
			return buf;
		}
		o->cfg.schedulers = (int)n;
		return NULL;
	case 'b':
		b = act__plan_bind_parse(arg);
		if (b < 0) {
			snprintf(buf, len,
				 "--bind %s: expected none, core, "
				 "pu, spread, compact or numa",
				 arg);
			return buf;
		}
		o->cfg.bind = b;
		return NULL;
	case 'c':
		/* checked against the topology by act__plan_resolve */
		o->cfg.cpus = arg;
		return NULL;
	case 'r':
		if (!strcmp(arg, "auto")) {
			o->cfg.reactor_cpu = ACT_REACTOR_AUTO;
		} else if (!strcmp(arg, "none")) {
			o->cfg.reactor_cpu = ACT_REACTOR_NONE;
		} else if (!strcmp(arg, "inline")) {
			o->cfg.reactor_cpu = ACT_REACTOR_INLINE;
		} else if (!act__env_parse_uint(arg, 0, ACT_CPU_MAX, &n)) {
			o->cfg.reactor_cpu = ACT_REACTOR_CPU((int)n);
		} else {
			snprintf(buf, len,
				 "--reactor-cpu %s: expected auto, "
				 "none, inline or a CPU number from 0 to %d",
				 arg, ACT_CPU_MAX);
			return buf;
		}
		return NULL;
	case 'S':
		if (strcmp(arg, "all")) {
			snprintf(buf, len, "--steal %s: expected all", arg);
			return buf;
		}
		o->flags |= ACT_REPORT_STEAL_ALL;
		return NULL;
	case ':':
		snprintf(buf, len, "%s needs a value", arg);
		return buf;
	default:
		snprintf(buf, len, "unknown option %s", arg);
		return buf;
	}
	o->other = true;
	return NULL;
}

static int cmd_topo(int argc, char **argv)
{
	struct topo_opts o = { .flags = 0 };
	struct act__report_kv kv[ACT_PATHS];
	struct act__paths paths;
	struct act__topo t;
	struct act__plan pl;
	struct act__settings set;
	int nkv;
	char buf[256];
	const char *why;
	int c, rc;

	act_config_init(&o.cfg);
	optind = 1;
	opterr = 0; /* topo_opt says what is wrong, in one line */
	while ((c = getopt_long(argc, argv, ":h", topo_longopts, NULL)) != -1) {
		if (c == 'h')
			return topo_usage(NULL);
		why = topo_opt(c,
			       c == ':' || c == '?' ? argv[optind - 1] : optarg,
			       &o, buf, sizeof(buf));
		if (why)
			return topo_usage(why);
	}
	if (optind < argc) {
		snprintf(buf, sizeof(buf), "unexpected operand %s",
			 argv[optind]);
		return topo_usage(buf);
	}
	if (o.src.synthetic && o.src.xml)
		return topo_usage("--synthetic and --xml: give one");
	/* act_main's count and ring size, by act_main's table: the field,
	 * else the variable, else the default (the count's: the plan's);
	 * the test switches of the paths probed; act__plan_resolve does
	 * the placement three and the topology's */
	act__vars_settings_init(&set, &o.cfg);
	if (act__vars_resolve(&set, ACT_VAR_BIT(ACT_VAR_SCHEDULERS) |
					    ACT_VAR_BIT(ACT_VAR_RING_ENTRIES) |
					    ACT_VAR_BIT(ACT_VAR_TEST_RING) |
					    ACT_VAR_BIT(ACT_VAR_TEST_NUMA)))
		return 2;
	o.cfg = set.cfg;
	rc = act__plan_resolve(&o.cfg, o.other ? &o.src : NULL, &t, &pl);
	if (rc)
		return rc == -EINVAL ? 2 : 1; /* the library said why */
	/* this machine: the kernel paths a runtime would take here */
	nkv = 0;
	if (!o.other && !act__paths_probe(&pl, t.simulated, o.cfg.ring_entries,
					  &set.test, &paths)) {
		for (nkv = 0; nkv < ACT_PATHS; nkv++) {
			kv[nkv].key = act__paths_name(nkv);
			kv[nkv].value = paths.v[nkv];
		}
	}
	rc = act__report_print_kv(stdout, &t, &pl, o.flags, kv, nkv);
	if (rc) {
		fprintf(stderr, "actors topo: %s\n", strerror(-rc));
	} else if (pl.nworkers > ACT_MAX_WORKERS) {
		/* a default count on a machine this big: act_main refuses
		 * it in the same words */
		fprintf(stderr, "actors: %d workers: at most %d\n", pl.nworkers,
			ACT_MAX_WORKERS);
		rc = -EINVAL;
	}
	act__plan_free(&pl);
	act__topology_free(&t);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "actors topo: writing the report failed\n");
		return 1;
	}
	return rc == -EINVAL ? 2 : rc ? 1 : 0;
}

/* ---- actors vars ----------------------------------------------------- */

/*
 * The table of ACTORS_* variables that act_main reads (lib/settings/
 * vars.c), printed: one line each, tab-separated, for people and for
 * tests/vars.sh, which checks README.md's table against it; --man
 * prints act_config_init(3)'s ENVIRONMENT entries, which tests/vars.sh
 * compares with the page line for line; --test the table's test class
 * (the ACT_TEST_* switches) in the same columns, which tests/vars.sh
 * checks doc/testing.md's table against.
 */

static int vars_usage(const char *why)
{
	if (why) {
		fprintf(stderr, "actors vars: %s\n", why);
		fprintf(stderr, "usage: actors vars [--man|--test]\n");
		return 2;
	}
	printf("usage: actors vars [--man|--test]\n"
	       "Prints every ACTORS_* variable act_main reads, one a line, "
	       "tab-separated:\nname, default (- when computed), act_config "
	       "field (- for none), what it\naccepts and what it sets.\n"
	       "  --man   the entries of act_config_init(3)'s ENVIRONMENT "
	       "section\n"
	       "  --test  the test switches (ACT_TEST_*) instead, default "
	       "- (unset)\n");
	return 0;
}

static void vars_man(const struct act__var *v, const char *def,
		     const char *expect)
{
	printf(".TP\n.B %s\n%s.\n", v->name, v->doc);
	if (v->field)
		printf("Field \\fI%s\\fP; takes %s;\n", v->field, expect);
	else
		printf("No field; takes %s;\n", expect);
	if (def)
		printf("default \\fB%s\\fP.\n", def);
	else
		printf("default: computed, see \\fI%s\\fP.\n", v->field);
}

static int cmd_vars(int argc, char **argv)
{
	char expect[200], buf[32];
	const char *def;
	bool man = false, test = false;
	int id;

	if (argc > 2)
		return vars_usage("one option at most");
	if (argc == 2 && !strcmp(argv[1], "--man"))
		man = true;
	else if (argc == 2 && !strcmp(argv[1], "--test"))
		test = true;
	else if (argc == 2 &&
		 (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return vars_usage(NULL);
	else if (argc == 2)
		return vars_usage("unknown option");
	for (id = 0; id < ACT_VARS; id++) {
		const struct act__var *v = &act__vars[id];

		if (!(v->flags & ACT_VAR_TEST) != !test)
			continue;
		act__vars_expect(v, expect, sizeof(expect));
		def = act__vars_default(v, buf, sizeof(buf));
		if (man)
			vars_man(v, def, expect);
		else
			printf("%s\t%s\t%s\t%s\t%s\n", v->name, def ? def : "-",
			       v->field ? v->field : "-", expect, v->doc);
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "actors vars: writing failed\n");
		return 1;
	}
	return 0;
}

/* ---- actors trace ---------------------------------------------------- */

/* tools/trace.c: the reader, its aggregates and the report. */
static int cmd_trace(int argc, char **argv)
{
	return actors_trace_main(argc, argv);
}

/* ---- actors stress --------------------------------------------------- */

/* tools/stress.c: each test in a child, on the paths asked for. */
static int cmd_stress(int argc, char **argv)
{
	return actors_stress_main(argc, argv);
}

/* ---- dispatch --------------------------------------------------------- */

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stderr);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("actors %d.%d.%d\n", ACT_VERSION_MAJOR, ACT_VERSION_MINOR,
	       ACT_VERSION_PATCH);
	return 0;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the name */
	const char *args;
	const char *summary;
};

static const struct command commands[] = {
	{ "demo", cmd_demo, "", "100 working children, then an echo server" },
	{ "bench", cmd_bench, "[WORKLOAD...|echo|timeouts] ...",
	  "run the benchmarks; print a table" },
	{ "topo", cmd_topo, "[--synthetic DESC|--xml FILE] ...",
	  "the topology and the placement plan" },
	{ "trace", cmd_trace, "[--top N] [--json] FILE",
	  "a summary of a trace (ACTORS_TRACE=FILE)" },
	{ "stress", cmd_stress, "[TEST...] [--all-paths] ...",
	  "the race stress tests, on this machine's kernel paths" },
	{ "vars", cmd_vars, "[--man|--test]",
	  "the ACTORS_* variables, their defaults and forms" },
	{ "help", cmd_help, "", "this text" },
	{ "--version", cmd_version, "", "print the version" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: actors COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %-31s %s\n", commands[i].name,
			commands[i].args, commands[i].summary);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(argc - 1, argv + 1);
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "actors: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
