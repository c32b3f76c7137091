/* SPDX-License-Identifier: MIT */
/*
 * stress.c - `actors stress`: the stress tests from the installed tool;
 * see commands.h and actors(1).
 *
 * A run is one test on one set of kernel paths with one seed, in a child
 * process of its own (fork, no exec): its globals start fresh, its
 * watchdog may _exit, a crash is its own. The child's stdout (the result
 * line), stderr (what went wrong) and progress records (stress/common.h)
 * come back on three pipes; the parent redraws the progress line from the
 * records, prints the child's lines as they come, and after the child
 * ends its result and the command that reruns exactly it. --duration
 * repeats a test with the next seeds until the time is spent; --all-paths
 * runs each test on every path this kernel has and prints a table.
 *
 * The paths are forced in the child before the test's main: the park by
 * act__park_force_futex_wait (lib/base/park.h), the reactor's doorbell by
 * ACT_TEST_RING (eventfd, none; lib/reactor/ring.c), the stack guard by
 * act_config.stack_guard (st_stack_guard). A path asked for that this
 * kernel lacks is refused before anything runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <actors.h>

#include "base/json.h"
#include "base/park.h"
#include "base/systematic.h"
#include "mem/stack.h"
#include "reactor/ring.h"
#include "../examples/opt.h"
#include "../stress/common.h"
#include "../stress/tests.h"
#include "commands.h"

#define MAX_TESTS 32
#define MAX_WORDS 64 /* a test's own flags and values */
#define MAX_PATHS 12
#define LINE_MAX_ 1024
#define OFF_TTY_EVERY 10.0 /* seconds between progress lines off a tty */

/* ---- paths ---------------------------------------------------------------- */

enum { PARK_AUTO, PARK_WAITV, PARK_FUTEX };
enum { BELL_AUTO, BELL_URING, BELL_EVENTFD, BELL_NONE };

struct path {
	int park, bell, guard; /* guard: enum act_guard */
};

static const char *const park_words[] = { "auto", "futex_waitv", "futex" };
static const char *const bell_words[] = { "auto", "uring", "eventfd", "none" };
static const char *const guard_words[] = { "auto", "madvise", "mprotect",
					   "canary" };

/* What this kernel has, probed once. */
static struct {
	bool done, waitv, ring, uring_bell, madvise;
} have;

/* MADV_GUARD_INSTALL, probed in a child: the probe sets the library's
 * guard mode, which this process leaves as it is. */
static bool probe_madvise(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return false;
	if (!pid)
		_exit(act__stack_global_init(ACT_GUARD_MADVISE, 0) ? 1 : 0);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

static void probe(void)
{
	struct act__ring g;
	char why[160];

	if (have.done)
		return;
	have.done = true;
	have.waitv = act__park_waitv_available(); /* this process's probe */
	act__ring_init(&g, 8, ACT_TEST_RING_UNSET, why, sizeof(why));
	have.ring = g.mode != ACT_RING_NONE;
	have.uring_bell = g.mode == ACT_RING_FUTEX;
	act__ring_exit(&g);
	have.madvise = probe_madvise();
}

/* "" when this kernel has path p, else what it lacks. */
static const char *path_missing(const struct path *p)
{
	probe();
	if (p->park == PARK_WAITV && !have.waitv)
		return "--park futex_waitv: this kernel has no futex_waitv "
		       "(Linux 5.16), or a seccomp filter refuses it";
	if (p->bell == BELL_URING && !have.uring_bell)
		return "--doorbell uring: this kernel's io_uring has no "
		       "IORING_OP_FUTEX_WAIT (Linux 6.7), or no io_uring";
	if (p->bell == BELL_EVENTFD && !have.ring)
		return "--doorbell eventfd: no io_uring here (it is the "
		       "eventfd read in the ring)";
	if (p->guard == ACT_GUARD_MADVISE && !have.madvise)
		return "--guard madvise: this kernel has no "
		       "MADV_GUARD_INSTALL (Linux 6.13)";
	return "";
}

/* "park=futex,doorbell=none" or "default". */
static void path_label(const struct path *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (p->park)
		n += (size_t)snprintf(buf + n, len - n, "park=%s",
				      park_words[p->park]);
	if (p->bell && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sdoorbell=%s",
				      n ? "," : "", bell_words[p->bell]);
	if (p->guard && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sguard=%s",
				      n ? "," : "", guard_words[p->guard]);
	if (!n)
		snprintf(buf, len, "default");
}

/* The paths --all-paths runs: the default, then each fallback this
 * kernel has, one thing forced at a time. */
static int all_paths(struct path *out)
{
	int n = 0;

	probe();
	out[n++] = (struct path){ 0, 0, 0 };
	if (have.waitv)
		out[n++] = (struct path){ PARK_WAITV, 0, 0 };
	out[n++] = (struct path){ PARK_FUTEX, 0, 0 };
	if (have.uring_bell)
		out[n++] = (struct path){ 0, BELL_URING, 0 };
	if (have.ring)
		out[n++] = (struct path){ 0, BELL_EVENTFD, 0 };
	out[n++] = (struct path){ 0, BELL_NONE, 0 };
	if (have.madvise)
		out[n++] = (struct path){ 0, 0, ACT_GUARD_MADVISE };
	out[n++] = (struct path){ 0, 0, ACT_GUARD_MPROTECT };
	out[n++] = (struct path){ 0, 0, ACT_GUARD_CANARY };
	return n;
}

/* ---- the command line ----------------------------------------------------- */

struct pick {
	const struct st_test *t;
	const char *words[MAX_WORDS]; /* its own flags, as given */
	int nwords;
};

static const struct st_test *help_test; /* TEST --help */

static struct opts {
	struct pick pick[MAX_TESTS];
	int npick;
	long workers, iters, timeout, stall; /* 0: the test's default */
	long drop_wakes; /* --drop-wakeups: the planted lost wakeup */
	long systematic; /* --systematic N: seeded schedules; 0: none */
	long mutant;	 /* --mutant: the planted bug (base/park.h) */
	uint64_t seed;
	bool seeded, json, quick, all_paths;
	double duration; /* seconds; 0: one run */
	const char *bind;
	struct path path;
	bool tty;
} o;

/* A usage error: one line, exit status 2 (examples/opt.h's words). */
static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "actors stress: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

static int bad_value(const char *flag, const char *v, const char *expected)
{
	return opt_bad_value("actors stress", flag, v, expected);
}

/* The exit status of actors stress, which its --help and each test's
 * --help print, as actors(1)'s EXIT STATUS does; a run's own status (the
 * child's: 2 a timeout, 3 skipped, 64 a bad option, common.h) is only
 * --json's "status". */
static const char exit_status[] =
	"exit status: 0 every run passed or was skipped; 1 a run failed (a "
	"violation,\na timeout or a crash); 2 a usage error, or a path this "
	"kernel lacks\n";

static void usage(FILE *f)
{
	const struct st_test *t;

	fprintf(f,
		"usage: actors stress [TEST [TEST-OPTIONS]]... [options]\n"
		"  --workers N        workers (default: each test's)\n"
		"  --iters N          the test's size (default: each test's)\n"
		"  --duration D       repeat each test, the next seed each "
		"time, for D (10s, 500ms, 2m)\n"
		"  --seed N           the first run's seed (default: from the "
		"clock)\n"
		"  --bind POLICY      ACTORS_BIND: none core pu spread compact "
		"numa\n"
		"  --park futex_waitv|futex\n"
		"  --doorbell uring|eventfd|none\n"
		"  --guard madvise|mprotect|canary\n"
		"                     force a kernel path (default: the best "
		"this kernel has)\n"
		"  --all-paths        every test on every path this kernel "
		"has, then a table\n"
		"  --drop-wakeups N   a test switch: drop one process wake in "
		"N, a planted lost\n"
		"                     wakeup the tests must report\n"
		"  --systematic N     each test under N seeded schedules, "
		"ACTORS_SEED the seed,\n"
		"                     the seed + 1, ...: the systematic "
		"profile of stress/tests.c\n"
		"                     (a library built with "
		"--enable-systematic)\n"
		"  --mutant parkwake:1\n"
		"                     a test switch: the park without its "
		"re-check, a planted\n"
		"                     lost wakeup (model/parkwake.pml's "
		"mutant 1)\n"
		"  --quick            the quick profile (make stress): each "
		"test's runs of stress/tests.c\n"
		"  --timeout S        a run's watchdog (default 60)\n"
		"  --stall S          fail a run that makes no progress for S "
		"(default 5)\n"
		"  --json             one JSON object a test and path on "
		"stdout, nothing else\n"
		"  --list             the tests\n"
		"TEST-OPTIONS: the test's own sizes (actors stress TEST "
		"--help)\n"
		"The last line is the verdict: \"N passed, N failed\", and "
		"\", N skipped\"\nwhen runs were skipped.\n"
		"tests:");
	for (t = st_tests; t->name; t++)
		fprintf(f, " %s", t->name);
	fputc('\n', f);
	fputs(exit_status, f);
}

static const struct st_test *find_test(const char *name)
{
	const struct st_test *t;

	for (t = st_tests; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

static int parse_count(const char *flag, const char *v, long min, long max,
		       long *out)
{
	char *end, range[64];
	long x;

	if (!v)
		return usage_error("%s needs a value", flag);
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max) {
		snprintf(range, sizeof(range), "%ld to %ld", min, max);
		return bad_value(flag, v, range);
	}
	*out = x;
	return 0;
}

/* "10s", "500ms", "2m", "1h", "30" (seconds). */
static int parse_duration(const char *v, double *out)
{
	char *end;
	double x;

	if (!v)
		return usage_error("%s needs a value", "--duration");
	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || x <= 0)
		goto bad;
	if (!strcmp(end, "ms"))
		x /= 1000;
	else if (!strcmp(end, "m"))
		x *= 60;
	else if (!strcmp(end, "h"))
		x *= 3600;
	else if (*end && strcmp(end, "s"))
		goto bad;
	if (x < 0.001 || x > 7 * 24 * 3600.0)
		goto bad;
	*out = x;
	return 0;
bad:
	return bad_value("--duration", v,
			 "a duration from 1ms to 7 days (10s, 500ms, 2m, 1h)");
}

static int parse_word(const char *flag, const char *v, const char *const *words,
		      int n, int *out)
{
	char expected[96];
	size_t k = 0;
	int i;

	if (!v)
		return usage_error("%s needs a value", flag);
	for (i = 1; i < n; i++)
		if (!strcmp(v, words[i])) {
			*out = i;
			return 0;
		}
	expected[0] = '\0';
	for (i = 1; i < n && k < sizeof(expected); i++)
		k += (size_t)snprintf(expected + k, sizeof(expected) - k,
				      "%s%s",
				      i == 1	 ? "" :
				      i == n - 1 ? " or " :
						   ", ",
				      words[i]);
	return bad_value(flag, v, expected);
}

static int parse_bind(const char *v)
{
	static const char *const binds[] = { "none",   "core",	  "pu",
					     "spread", "compact", "numa" };
	size_t i;

	if (!v)
		return usage_error("%s needs a value", "--bind");
	for (i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		if (!strcmp(v, binds[i])) {
			o.bind = v;
			return 0;
		}
	return bad_value("--bind", v,
			 "none, core, pu, spread, compact or numa");
}

/* One of the tool's own options at argv[*i]; -1: not one of them. */
static int own_option(char **argv, int argc, int *i)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	const char *v = eq ? eq + 1 : *i + 1 < argc ? argv[*i + 1] : NULL;
	char a[32];
	long x;
	int rc;

	/* --name=value as --name value */
	snprintf(a, sizeof(a), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg),
		 arg);
	if (eq && (!strcmp(a, "--json") || !strcmp(a, "--quick") ||
		   !strcmp(a, "--all-paths")))
		return usage_error("%s takes no value", a);
	if (!strcmp(a, "--json"))
		return (o.json = true), 0;
	if (!strcmp(a, "--quick"))
		return (o.quick = true), 0;
	if (!strcmp(a, "--all-paths"))
		return (o.all_paths = true), 0;
	if (!eq)
		(*i)++; /* the rest take a value */
	if (!strcmp(a, "--workers") || !strcmp(a, "--threads"))
		return parse_count("--workers", v, 1, 1024, &o.workers);
	if (!strcmp(a, "--iters"))
		return parse_count(a, v, 1, 1L << 40, &o.iters);
	if (!strcmp(a, "--timeout"))
		return parse_count(a, v, 1, 1000000000L, &o.timeout);
	if (!strcmp(a, "--stall"))
		return parse_count(a, v, 1, 1000000000L, &o.stall);
	if (!strcmp(a, "--duration"))
		return parse_duration(v, &o.duration);
	if (!strcmp(a, "--drop-wakeups") && !ACT_TEST_HOOKS)
		return usage_error("%s: this build has no test hooks "
				   "(ACT_TEST_HOOKS=0, doc/testing.md)",
				   a);
	if (!strcmp(a, "--drop-wakeups"))
		return parse_count(a, v, 1, 1000000000L, &o.drop_wakes);
	if (!strcmp(a, "--systematic") && !ACT_SYSTEMATIC)
		return usage_error("%s: this library was built without "
				   "--enable-systematic (doc/systematic.md)",
				   a);
	if (!strcmp(a, "--systematic"))
		return parse_count(a, v, 1, 1000000000L, &o.systematic);
	if (!strcmp(a, "--mutant") && !ACT_TEST_HOOKS)
		return usage_error("%s: this build has no test hooks "
				   "(ACT_TEST_HOOKS=0, doc/testing.md)",
				   a);
	if (!strcmp(a, "--mutant")) {
		if (!v)
			return usage_error("%s needs a value", a);
		if (strcmp(v, "parkwake:1"))
			return bad_value(a, v,
					 "parkwake:1, the one planted bug");
		o.mutant = 1;
		return 0;
	}
	if (!strcmp(a, "--bind"))
		return parse_bind(v);
	if (!strcmp(a, "--park"))
		return parse_word(a, v, park_words, 3, &o.path.park);
	if (!strcmp(a, "--doorbell"))
		return parse_word(a, v, bell_words, 4, &o.path.bell);
	if (!strcmp(a, "--guard")) {
		rc = parse_word(a, v, guard_words, 4, &o.path.guard);
		return rc;
	}
	if (!strcmp(a, "--seed")) {
		rc = parse_count(a, v, 0, LONG_MAX, &x);
		o.seed = (uint64_t)x;
		o.seeded = !rc;
		return rc;
	}
	if (!eq)
		(*i)--;
	return -1;
}

/* The common sizes, which a test takes too: after a test's name they
 * are that test's, before any, every test's. */
static bool test_size(const char *a)
{
	static const char *const sizes[] = { "--workers", "--threads",
					     "--iters", "--timeout",
					     "--stall" };
	size_t i, n;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = strlen(sizes[i]);
		if (!strncmp(a, sizes[i], n) && (!a[n] || a[n] == '='))
			return true;
	}
	return false;
}

static int parse(int argc, char **argv)
{
	struct pick *cur = NULL;
	int i, rc;

	o.tty = isatty(STDERR_FILENO);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			if (cur) { /* the flags of the test named last */
				help_test = cur->t;
				return -2;
			}
			usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--list")) {
			const struct st_test *t;

			for (t = st_tests; t->name; t++)
				printf("%-14s %s\n", t->name, t->what);
			return 1;
		}
		/* after a test's name, its sizes are its own */
		rc = cur && test_size(a) ? -1 : own_option(argv, argc, &i);
		if (rc > 0)
			return rc;
		if (!rc)
			continue;
		if (a[0] != '-') {
			const struct st_test *t = find_test(a);

			if (!t)
				return usage_error("unknown test '%s' (actors "
						   "stress --list lists them)",
						   a);
			if (o.npick == MAX_TESTS)
				return usage_error("%s: too many tests", a);
			cur = &o.pick[o.npick++];
			cur->t = t;
			continue;
		}
		/* a flag of the last test named, and its value */
		if (!cur)
			return usage_error(
				"unknown option %s: not one of actors "
				"stress's, and no test named before it "
				"(actors stress --help)",
				a);
		if (cur->nwords + 2 > MAX_WORDS)
			return usage_error("%s: too many test options", a);
		cur->words[cur->nwords++] = a;
		if (!strchr(a, '=') && i + 1 < argc)
			cur->words[cur->nwords++] = argv[++i];
	}
	if (o.all_paths && (o.path.park || o.path.bell || o.path.guard))
		return usage_error("%s: or --park, --doorbell, --guard, not "
				   "both",
				   "--all-paths");
	if (o.quick && o.duration > 0)
		return usage_error("%s: or --duration, not both", "--quick");
	if (o.systematic && (o.quick || o.duration > 0))
		return usage_error("%s: or --quick or --duration, not both",
				   "--systematic");
	if (!o.npick)
		for (const struct st_test *t = st_tests; t->name; t++)
			o.pick[o.npick++].t = t;
	if (!o.seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o.seed = st_mix((uint64_t)ts.tv_sec * 1000000000u +
					(uint64_t)ts.tv_nsec,
				(uint64_t)getpid()) %
			 1000000000u;
	}
	return 0;
}

/* ---- one run ---------------------------------------------------------------- */

struct argvb {
	char *v[2 * MAX_WORDS + 32];
	int n;
	char nums[8][24];
	int nnums;
};

static void add(struct argvb *b, const char *w)
{
	if (b->n < (int)(sizeof(b->v) / sizeof(b->v[0])) - 1)
		b->v[b->n++] = (char *)w;
	b->v[b->n] = NULL;
}

static void add_num(struct argvb *b, const char *flag, uint64_t v)
{
	char *s = b->nums[b->nnums++];

	snprintf(s, sizeof(b->nums[0]), "%" PRIu64, v);
	add(b, flag);
	add(b, s);
}

/* Splits a quick-profile string into b (it keeps pointers into buf). */
static void add_split(struct argvb *b, char *buf)
{
	char *save = NULL, *w;

	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		add(b, w);
}

/* The test's argv: its quick words, the sizes for every test, its own
 * flags, the seed (the last of a repeated flag wins, common.c). */
static void build_argv(struct argvb *b, const struct pick *p, char *quick,
		       uint64_t seed)
{
	int i;

	b->n = b->nnums = 0;
	add(b, p->t->name);
	if (quick)
		add_split(b, quick);
	if (o.workers)
		add_num(b, "--workers", (uint64_t)o.workers);
	if (o.iters)
		add_num(b, "--iters", (uint64_t)o.iters);
	if (o.timeout)
		add_num(b, "--timeout", (uint64_t)o.timeout);
	if (o.stall)
		add_num(b, "--stall", (uint64_t)o.stall);
	for (i = 0; i < p->nwords; i++)
		add(b, p->words[i]);
	add_num(b, "--seed", seed);
}

/* "actors stress wake_storm --pairs 16 --seed 42 --park futex": exactly
 * this run again. */
static void rerun_command(const struct argvb *b, const struct path *p,
			  uint64_t seed, char *buf, size_t len)
{
	size_t n = o.systematic ?
			   (size_t)snprintf(buf, len,
					    "ACTORS_SEED=%" PRIu64 " ", seed) :
			   0;
	int i;

	n += (size_t)snprintf(buf + n, len - n, "actors stress");
	for (i = 0; i < b->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s", b->v[i]);
	if (p->park && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --park %s",
				      park_words[p->park]);
	if (p->bell && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --doorbell %s",
				      bell_words[p->bell]);
	if (p->guard && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --guard %s",
				      guard_words[p->guard]);
	if (o.bind && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --bind %s", o.bind);
	if (o.drop_wakes && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --drop-wakeups %ld",
				      o.drop_wakes);
	if (o.mutant && n < len)
		snprintf(buf + n, len - n, " --mutant parkwake:1");
}

/* In the child: the paths, then the test. Never returns. */
static void child(const struct pick *pk, struct argvb *b, const struct path *p,
		  uint64_t seed, int out, int err, int prog)
{
	char seed_s[24];

	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	if (p->park == PARK_FUTEX)
		act__park_force_futex_wait = true;
	if (p->bell == BELL_EVENTFD)
		setenv("ACT_TEST_RING", "eventfd", 1);
	else if (p->bell == BELL_NONE)
		setenv("ACT_TEST_RING", "none", 1);
	if (p->guard)
		st_stack_guard = p->guard;
	if (o.bind)
		setenv("ACTORS_BIND", o.bind, 1);
	/* the planted lost wakeup (base/park.h), to show the suite finds
	 * one */
	act__park_test_drop_wakes = (uint32_t)o.drop_wakes;
	act__park_test_mutant = (uint32_t)o.mutant;
	/* a seeded schedule: the runtime's own, from the same seed as the
	 * workload's (base/systematic.h) */
	if (o.systematic) {
		snprintf(seed_s, sizeof(seed_s), "%" PRIu64, seed);
		setenv("ACTORS_SEED", seed_s, 1);
	}
	/* a full pipe loses a record, it never stops the watchdog */
	fcntl(prog, F_SETFL, fcntl(prog, F_GETFL) | O_NONBLOCK);
	st_progress_fd = prog;
	fflush(NULL);
	_exit(pk->t->main(b->n, b->v));
}

struct outcome {
	uint64_t seed;
	int status;	   /* the child's exit status; 128 + signal */
	double seconds;	   /* the run, as the parent saw it */
	uint64_t progress; /* the last record's operations */
	uint64_t violations;
	char result[LINE_MAX_]; /* the child's result line, without "\n" */
	char path[LINE_MAX_];	/* --systematic: the runtime's path line */
	char rerun[LINE_MAX_];
};

/* What the progress line shows while a test and path run. */
struct progress_view {
	const char *test;
	const char *path;
	double t0;	   /* this test and path's first run began */
	double ends;	   /* --duration: when it ends; 0: one run */
	uint64_t ops_done; /* earlier runs' operations */
	uint64_t viol_done;
	double last_line; /* off a tty: when the last line went out */
	bool drawn;	  /* on a tty: a line is on screen */
};

static double now_s(void)
{
	return st_now();
}

static void clear_line(struct progress_view *v)
{
	if (v->drawn) {
		fputs("\r\033[K", stderr);
		v->drawn = false;
	}
}

static void draw(struct progress_view *v, double run_s, uint64_t ops,
		 uint64_t viol)
{
	double now = now_s(), el = now - v->t0;
	uint64_t all = v->ops_done + ops;
	char left[32];

	if (o.json)
		return;
	if (!o.tty && now - v->last_line < OFF_TTY_EVERY)
		return;
	if (v->ends > 0)
		snprintf(left, sizeof(left), "%.0f s left",
			 v->ends > now ? v->ends - now : 0);
	else
		snprintf(left, sizeof(left), "run %.1f s", run_s);
	fprintf(stderr,
		"%s%s [%s] %.1f s, %.3g ops/s, %" PRIu64 " violations, %s%s",
		o.tty ? "\r\033[K" : "", v->test, v->path, el,
		el > 0 ? (double)all / el : 0.0, v->viol_done + viol, left,
		o.tty ? "" : "\n");
	fflush(stderr);
	v->drawn = o.tty;
	v->last_line = now;
}

/* Whole lines of buf[*n] handed to fn, the rest kept. */
static void lines(char *buf, size_t *n, void (*fn)(const char *, void *),
		  void *ctx)
{
	char *s = buf, *nl;

	while ((nl = memchr(s, '\n', *n - (size_t)(s - buf)))) {
		*nl = '\0';
		fn(s, ctx);
		s = nl + 1;
	}
	*n -= (size_t)(s - buf);
	memmove(buf, s, *n);
	if (*n == LINE_MAX_ - 1) { /* a line too long: out as it is */
		buf[*n] = '\0';
		fn(buf, ctx);
		*n = 0;
	}
}

struct run_ctx {
	struct outcome *oc;
	struct progress_view *v;
	double t0;
};

static void on_out(const char *line, void *arg)
{
	struct run_ctx *c = arg;
	const char *r = strstr(line, "; rerun with --seed");

	/* the result line, without the standalone program's rerun hint:
	 * the tool prints its own command */
	snprintf(c->oc->result, sizeof(c->oc->result), "%.*s",
		 r ? (int)(r - line) : (int)strlen(line), line);
}

/* The runtime's own notices ("actors: note: 4 workers on 2 usable CPUs")
 * come with every run alike: each is shown once. */
static bool seen_notice(const char *line)
{
	static char *seen[16];
	static int n;
	int i;

	if (strncmp(line, "actors: ", 8))
		return false;
	for (i = 0; i < n; i++)
		if (!strcmp(seen[i], line))
			return true;
	if (n < 16)
		seen[n++] = strdup(line);
	return false;
}

static void on_err(const char *line, void *arg)
{
	struct run_ctx *c = arg;

	/* a seeded schedule's path: shown with a failure only (there are
	 * hundreds of runs) */
	if (o.systematic &&
	    !strncmp(line, "actors: systematic run ACTORS_SEED=", 35)) {
		snprintf(c->oc->path, sizeof(c->oc->path), "%s", line);
		return;
	}
	if (seen_notice(line))
		return;
	clear_line(c->v);
	fprintf(stderr, "%s\n", line);
}

static void on_prog(const char *line, void *arg)
{
	struct run_ctx *c = arg;
	unsigned long long p, v;
	double s;

	if (sscanf(line, "progress %lf %llu %llu", &s, &p, &v) == 3) {
		c->oc->progress = p;
		c->oc->violations = v;
		draw(c->v, now_s() - c->t0, p, v);
	}
}

static int run_one(const struct pick *pk, char *quick, const struct path *p,
		   uint64_t seed, struct progress_view *v, struct outcome *oc)
{
	int po[2], pe[2], pp[2], st, i, open_fds = 3;
	char bufs[3][LINE_MAX_];
	size_t fill[3] = { 0, 0, 0 };
	void (*fns[3])(const char *, void *) = { on_out, on_err, on_prog };
	struct run_ctx c = { oc, v, now_s() };
	struct pollfd fds[3];
	struct argvb b;
	pid_t pid;

	memset(oc, 0, sizeof(*oc));
	oc->seed = seed;
	build_argv(&b, pk, quick, seed);
	rerun_command(&b, p, seed, oc->rerun, sizeof(oc->rerun));
	if (pipe(po) || pipe(pe) || pipe(pp)) {
		fprintf(stderr, "actors stress: pipe: %s\n", strerror(errno));
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "actors stress: fork: %s\n", strerror(errno));
		return -errno;
	}
	if (!pid) {
		close(po[0]);
		close(pe[0]);
		close(pp[0]);
		child(pk, &b, p, seed, po[1], pe[1], pp[1]);
	}
	close(po[1]);
	close(pe[1]);
	close(pp[1]);
	fds[0].fd = po[0];
	fds[1].fd = pe[0];
	fds[2].fd = pp[0];
	for (i = 0; i < 3; i++)
		fds[i].events = POLLIN;
	while (open_fds) {
		if (poll(fds, 3, 200) < 0 && errno != EINTR)
			break;
		for (i = 0; i < 3; i++) {
			ssize_t k;

			if (fds[i].fd < 0 ||
			    !(fds[i].revents & (POLLIN | POLLHUP)))
				continue;
			k = read(fds[i].fd, bufs[i] + fill[i],
				 LINE_MAX_ - 1 - fill[i]);
			if (k <= 0) {
				if (fill[i]) { /* a last line without "\n" */
					bufs[i][fill[i]++] = '\n';
					lines(bufs[i], &fill[i], fns[i], &c);
				}
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			fill[i] += (size_t)k;
			lines(bufs[i], &fill[i], fns[i], &c);
		}
		draw(v, now_s() - c.t0, oc->progress, oc->violations);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	oc->seconds = now_s() - c.t0;
	oc->status = WIFEXITED(st)   ? WEXITSTATUS(st) :
		     WIFSIGNALED(st) ? 128 + WTERMSIG(st) :
				       1;
	if (WIFSIGNALED(st) && !oc->result[0])
		snprintf(oc->result, sizeof(oc->result),
			 "%s: killed by signal %d (%s)", pk->t->name,
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	return 0;
}

/* ---- reports ---------------------------------------------------------------- */

static const char *verdict(int status)
{
	switch (status) {
	case ST_EXIT_OK:
		return "pass";
	case ST_EXIT_TIMEOUT:
		return "timeout";
	case ST_EXIT_SKIP:
		return "skip";
	case ST_EXIT_USAGE:
		return "usage";
	default:
		return status >= 128 ? "crash" : "fail";
	}
}

/* The result line's figures, "lost 0, double-run 0, ...": each
 * "words number" item as a member. */
static void json_figures(const char *result)
{
	const char *s = strchr(result, ':');
	char item[128];
	bool first = true;

	s = s ? strchr(s + 1, ':') : NULL; /* after "<prog>: <sizes>:" */
	printf("{");
	while (s && *s) {
		const char *e = strchr(++s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		char *sp;
		unsigned long long v;
		char tail;

		snprintf(item, sizeof(item), "%.*s", (int)n, s);
		while (item[0] == ' ')
			memmove(item, item + 1, strlen(item));
		sp = strrchr(item, ' ');
		if (sp && sp != item &&
		    sscanf(sp + 1, "%llu%c", &v, &tail) == 1) {
			*sp = '\0';
			printf("%s", first ? "" : ",");
			act__json_fstr(stdout, item);
			printf(":%llu", v);
			first = false;
		}
		s = e;
	}
	printf("}");
}

/* seed: the reported run's (the worst one's, else the last one's) */
static void json_run(const char *test, const char *path, int runs,
		     double seconds, uint64_t ops, uint64_t viol,
		     const struct outcome *last, const struct outcome *bad)
{
	const struct outcome *r = bad ? bad : last;

	printf("{\"test\":");
	act__json_fstr(stdout, test);
	printf(",\"path\":");
	act__json_fstr(stdout, path);
	printf(",\"verdict\":\"%s\",\"status\":%d,\"runs\":%d,\"seed\":%" PRIu64
	       ",\"seconds\":%.3f,\"operations\":%" PRIu64
	       ",\"violations\":%" PRIu64 ",\"figures\":",
	       verdict(r->status), r->status, runs, r->seed, seconds, ops,
	       viol);
	json_figures(r->result);
	printf(",\"result\":");
	act__json_fstr(stdout, r->result);
	printf(",\"rerun\":");
	act__json_fstr(stdout, r->rerun);
	printf("}\n");
	fflush(stdout);
}

/* ---- a test on a path ------------------------------------------------------- */

struct cell {
	int status; /* the worst run's */
	int runs;
};

/* Every run's verdict, for the closing line */
static struct {
	int passed, failed, skipped;
} tally;

static void count_run(int status)
{
	if (status == ST_EXIT_OK)
		tally.passed++;
	else if (status == ST_EXIT_SKIP)
		tally.skipped++;
	else
		tally.failed++;
}

/* "N passed, N failed[, N skipped]": the last line of a run (on stderr
 * with --json, whose stdout is the objects alone); scripts/summary.sh
 * reads that form. */
static void print_verdict(void)
{
	FILE *f = o.json ? stderr : stdout;

	fprintf(f, "%d passed, %d failed", tally.passed, tally.failed);
	if (tally.skipped)
		fprintf(f, ", %d skipped", tally.skipped);
	fputc('\n', f);
	fflush(f);
}

static int run_test(const struct pick *pk, const struct path *p,
		    struct cell *cell)
{
	char label[64], quick[256];
	struct progress_view v = { 0 };
	struct outcome oc, bad;
	uint64_t seed = o.seed;
	int q, rc, worst = 0;
	bool have_bad = false, skipped = false;
	double t0 = now_s();

	path_label(p, label, sizeof(label));
	v.test = pk->t->name;
	v.path = label;
	v.t0 = t0;
	v.ends = o.duration > 0 ? t0 + o.duration : 0;
	v.last_line = t0;
	cell->runs = 0;
	for (q = 0;; q++) {
		const char *qs = o.quick      ? pk->t->quick[q] :
				 o.systematic ? pk->t->sys :
						NULL;

		if (o.quick && !qs)
			break;
		if (qs)
			snprintf(quick, sizeof(quick), "%s", qs);
		rc = run_one(pk, qs ? quick : NULL, p, seed, &v, &oc);
		if (rc) {
			count_run(ST_EXIT_FAIL);
			return 1;
		}
		cell->runs++;
		if (oc.status == ST_EXIT_USAGE) /* the test refused its flags */
			return 2;
		count_run(oc.status);
		v.ops_done += oc.progress;
		v.viol_done += oc.violations;
		clear_line(&v);
		/* with --duration, a run that passed shows only in the
		 * progress line and the summary below */
		if (!o.json &&
		    (oc.status || !(o.duration > 0 || o.systematic))) {
			bool failed = oc.status && oc.status != ST_EXIT_SKIP;

			printf("%s [%s]: %s\n%s%s%s  %s: %s\n", pk->t->name,
			       label,
			       oc.result[0] ? oc.result : "(no result line)",
			       oc.path[0] ? "  " : "", oc.path,
			       oc.path[0] ? "\n" : "",
			       failed ? "rerun with" : "rerun", oc.rerun);
			fflush(stdout);
		}
		if (oc.status && oc.status != ST_EXIT_SKIP &&
		    (!have_bad || oc.status > worst)) {
			bad = oc;
			have_bad = true;
			worst = oc.status;
		}
		seed++;
		/* a skip, said and not a failure, is not repeated */
		skipped |= oc.status == ST_EXIT_SKIP;
		if (o.quick)
			continue;
		/* a failing seed is the news: the next ones would only
		 * repeat it */
		if (o.systematic) {
			if (skipped || have_bad || cell->runs == o.systematic)
				break;
			continue;
		}
		if (skipped || !(o.duration > 0) || now_s() >= v.ends)
			break;
	}
	cell->status = !worst && skipped ? ST_EXIT_SKIP : worst;
	if (!o.json && (o.duration > 0 || o.systematic)) {
		const struct outcome *r = have_bad ? &bad : &oc;

		printf("%s [%s]: %d runs (seeds %" PRIu64 " to %" PRIu64
		       "), %" PRIu64 " operations, %" PRIu64
		       " violations, %.1f s: %s\n  %s: %s\n%s%s%s  %s: %s\n",
		       pk->t->name, label, cell->runs, o.seed, seed - 1,
		       v.ops_done, v.viol_done, now_s() - t0,
		       verdict(cell->status), have_bad ? "worst" : "last",
		       r->result, r->path[0] ? "  " : "", r->path,
		       r->path[0] ? "\n" : "",
		       have_bad ? "rerun with" : "rerun", r->rerun);
		fflush(stdout);
	}
	if (o.json)
		json_run(pk->t->name, label, cell->runs, now_s() - t0,
			 v.ops_done, v.viol_done, &oc, have_bad ? &bad : NULL);
	return worst != 0;
}

static void table(struct path *paths, int npaths,
		  struct cell (*cells)[MAX_PATHS])
{
	char label[64];
	int i, j;

	printf("\n%-14s", "test");
	for (j = 0; j < npaths; j++) {
		path_label(&paths[j], label, sizeof(label));
		printf(" %-16s", label);
	}
	printf("\n");
	for (i = 0; i < o.npick; i++) {
		printf("%-14s", o.pick[i].t->name);
		for (j = 0; j < npaths; j++) {
			char c[32];

			snprintf(c, sizeof(c), "%s (%d)",
				 verdict(cells[i][j].status), cells[i][j].runs);
			printf(" %-16s", c);
		}
		printf("\n");
	}
}

int actors_stress_main(int argc, char **argv)
{
	static struct cell cells[MAX_TESTS][MAX_PATHS];
	struct path paths[MAX_PATHS];
	const char *missing;
	int rc, i, j, npaths = 1, failed = 0;

	rc = parse(argc, argv);
	if (rc == -2) { /* TEST --help: the test's own, the tool's status */
		rc = help_test->main(2, (char *[]){ (char *)help_test->name,
						    "--help", NULL });
		fputs(exit_status, stdout);
		return rc;
	}
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.all_paths) {
		npaths = all_paths(paths);
	} else {
		paths[0] = o.path;
		missing = path_missing(&o.path);
		if (*missing) {
			fprintf(stderr, "actors stress: %s\n", missing);
			return 2;
		}
	}
	for (i = 0; i < o.npick; i++)
		for (j = 0; j < npaths; j++) {
			rc = run_test(&o.pick[i], &paths[j], &cells[i][j]);
			if (rc == 2)
				return 2; /* a test refused its sizes */
			failed |= rc;
		}
	if (o.all_paths && !o.json)
		table(paths, npaths, cells);
	print_verdict();
	return failed ? 1 : 0;
}
