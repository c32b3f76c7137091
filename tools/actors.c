/* SPDX-License-Identifier: MIT */
/*
 * actors.c - the actors command-line tool.
 *
 *   actors demo                 spawn 100 working children, show where ran
 *   actors bench [WORKLOAD...]  run the bench/ workloads, print a table
 *   actors help | --version
 *
 * Each subcommand is one entry of commands[]; runtime errors (negative
 * errno) are printed with strerror and give exit status 1, usage errors 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actors.h>

#include "../bench/bench.h"

static void usage(FILE *f);

/* ---- actors demo ---------------------------------------------------- */

#define DEMO_CHILDREN 100
#define DEMO_STEP 200   /* child i counts the primes below 200 * (i + 1) */
#define DEMO_REPLY 1    /* child -> parent: struct demo_reply */

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
	int err;           /* 0, or the first failure */
	int workers;       /* act_workers() */
	long *per_worker;  /* children per worker; the caller frees it */
	int replies;       /* good replies */
	uint64_t sum;      /* sum of their results */
	double seconds;    /* first spawn to last reply */
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
static void demo_take(struct demo_run *run, const struct act_msg *m,
		      bool *seen)
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
			*sum += count;  /* primes below n + 1 */
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
	       ": %s), elapsed %.3f ms\n", run->replies, run->sum, expect,
	       run->sum == expect ? "OK" : "FAIL", run->seconds * 1e3);
}

static int cmd_demo(int argc, char **argv)
{
	struct demo_run run = { .err = 0 };
	uint64_t expect;
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
	return rc == 0 && run.sum == expect ? 0 : 1;
}

/* ---- actors bench --------------------------------------------------- */

enum {
	WL_PINGPONG,
	WL_RING,
	WL_SKYNET,
	WL_FANIN,
	WL_SPAWN_FEW,   /* spawnburst, BENCH_SPAWNBURST_FEW children */
	WL_SPAWN_MANY,  /* spawnburst, BENCH_SPAWNBURST_MANY children */
	WL_COUNT
};

static const char *const wl_name[WL_COUNT] = {
	"pingpong", "ring", "skynet", "fanin", "spawnburst100",
	"spawnburst10000",
};
static const char *const wl_unit[WL_COUNT] = {
	"msg", "hop", "proc", "msg", "step", "step",
};

struct bench_opts {
	long rounds, procs, hops, leaves, window;
	long senders, msgs, credit;  /* fanin */
	long total;                  /* spawnburst */
};

/* The number of children of a spawnburst workload. */
static long wl_children(int w)
{
	return w == WL_SPAWN_FEW ? BENCH_SPAWNBURST_FEW
				 : BENCH_SPAWNBURST_MANY;
}

/* What the forked child sends back through the pipe. */
struct outcome {
	int rc;
	double seconds;
	uint64_t checksum;
};

/* One line of the table. */
struct row {
	long count;        /* rounds, hops, leaves, messages or children */
	uint64_t expect;   /* the right checksum */
	double ops;        /* what ns/op divides by: wl_unit[] */
	bool reported;     /* the child wrote an outcome */
	struct outcome out;
	double rss_mib;    /* the child's peak RSS */
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
		return bench_fanin((int)o->senders, o->msgs, o->credit,
				   seconds, checksum);
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
	r->ops = (double)(o->total / n) * (double)n;  /* steps run */
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

/* In the forked child: run the workload, report, exit. */
static void __attribute__((noreturn))
child_run(int w, const struct bench_opts *o, int fd)
{
	struct outcome out = { .rc = 0 };

	out.rc = wl_run(w, o, &out.seconds, &out.checksum);
	_exit(io_all(fd, &out, sizeof(out), true) ? 1 : 0);
}

/* Reaps the child; takes its peak RSS and says how it ended if badly. */
static int reap(const char *name, pid_t pid, struct row *r)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	r->rss_mib = (double)ru.ru_maxrss / 1024.0;  /* ru_maxrss: KiB */
	if (WIFSIGNALED(status))
		fprintf(stderr, "actors bench %s: killed by signal %d (%s)\n",
			name, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!r->reported)
		fprintf(stderr, "actors bench %s: exited %d with no result\n",
			name, WEXITSTATUS(status));
	return 0;
}

/* Runs workload w in a forked child and fills in r's results. */
static int run_forked(int w, const struct bench_opts *o, struct row *r)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(NULL);  /* or the child would flush our buffers again */
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		child_run(w, o, fd[1]);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		return -errno;
	}
	r->reported = io_all(fd[0], &r->out, sizeof(r->out), false) == 0;
	close(fd[0]);
	return reap(wl_name[w], pid, r);
}

static void print_header(void)
{
	printf("%-15s %10s %20s %10s %8s %-4s %8s  %s\n", "workload",
	       "count", "checksum", "seconds", "ns/op", "per", "RSS MiB",
	       "check");
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
		return bench_parse_long(arg, 1,
					(1L << BENCH_FANIN_SEQ_BITS) - 1,
					&o->msgs);
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
		"workloads: pingpong ring skynet fanin spawnburst100 "
		"spawnburst10000\n"
		"  (spawnburst with 100 or 10,000 children); none: all\n"
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
				BENCH_RING_HOPS, BENCH_SKYNET_LEAVES,
				BENCH_SKYNET_WINDOW, BENCH_FANIN_SENDERS,
				BENCH_FANIN_MSGS, BENCH_FANIN_WINDOW,
				BENCH_SPAWNBURST_TOTAL };
	unsigned mask = 0;
	int c, w, failed = 0;

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
	printf("actors %d.%d\n", ACT_VERSION_MAJOR, ACT_VERSION_MINOR);
	return 0;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);  /* argv[0] is the name */
	const char *args;
	const char *summary;
};

static const struct command commands[] = {
	{ "demo", cmd_demo, "", "spawn 100 working children, show workers" },
	{ "bench", cmd_bench, "[WORKLOAD...] [--rounds N ...]",
	  "run the benchmarks; print a table" },
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
