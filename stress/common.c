/* SPDX-License-Identifier: MIT */
/*
 * common.c - argument parsing, the result line and the watchdog of the
 * stress programs; see common.h.
 *
 * The watchdog is one thread that wakes every TICK seconds under a mutex.
 * It reports and calls _exit() while holding that mutex, so once
 * st_watch_stop() has taken it and set `stopped`, no watchdog output can
 * follow: the main thread's own result line is the only one.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <actors.h>

#include "base/systematic.h"
#include "common.h"

#define TICK 0.2
#define MAX_REPORTS 10 /* violations told in detail */

static const char *prog_name = "stress";
static _Atomic unsigned n_reports;

int st_progress_fd = -1;
int st_stack_guard = ACT_GUARD_AUTO;

/* ---- arguments ----------------------------------------------------------- */

static void usage(const struct st_args *a, FILE *f)
{
	const struct st_flag *fl;
	char opt[40];

	fprintf(f, "usage: actors stress %s [options]\n", a->prog);
	fprintf(f, "  %-16s workers (alias --threads; default %ld)\n",
		"--workers N", a->workers);
	fprintf(f, "  %-16s %s (default %ld)\n", "--iters N", a->iters_help,
		a->iters);
	for (fl = a->flags; fl && fl->name; fl++) {
		snprintf(opt, sizeof(opt), "--%s N", fl->name);
		fprintf(f, "  %-16s %s (default %ld)\n", opt, fl->help,
			*fl->val);
	}
	fputs("  --seed N         seed of the workload's random choices "
	      "(default: from the clock)\n"
	      "  --timeout S      watchdog: the run times out after S "
	      "seconds (default 60)\n"
	      "  --stall S        fail when nothing progresses for S seconds "
	      "(default 5)\n"
	      "  -h, --help       this text\n",
	      f);
	/* the exit status is the tool's, which it prints after this */
}

/* A usage error, one line (the tool's words, examples/opt.h): with v, a
 * bad value and what was expected (min < 0: a seed); without, an option
 * with no value (min != 0) or an unknown one. */
static int bad_arg(const struct st_args *a, const char *name, const char *v,
		   long min, long max)
{
	if (v && min < 0)
		fprintf(stderr,
			"actors stress %s: --%s: bad value '%s': expected a "
			"whole number, 0 or more\n",
			a->prog, name, v);
	else if (v)
		fprintf(stderr,
			"actors stress %s: --%s: bad value '%s': expected %ld "
			"to %ld\n",
			a->prog, name, v, min, max);
	else if (min)
		fprintf(stderr, "actors stress %s: %s needs a value\n", a->prog,
			name);
	else
		fprintf(stderr,
			"actors stress %s: unknown option %s (actors stress %s "
			"--help lists them)\n",
			a->prog, name, a->prog);
	return ST_EXIT_USAGE;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_seed(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* The common flags; NULL if name is none of them. */
static long *common_flag(struct st_args *a, const char *name, long *max)
{
	*max = 1000000000L;
	if (!strcmp(name, "workers") || !strcmp(name, "threads")) {
		*max = 1024;
		return &a->workers;
	}
	if (!strcmp(name, "iters")) {
		*max = 1L << 40;
		return &a->iters;
	}
	if (!strcmp(name, "timeout"))
		return &a->timeout;
	if (!strcmp(name, "stall"))
		return &a->stall;
	return NULL;
}

static const struct st_flag *own_flag(const struct st_args *a, const char *name)
{
	const struct st_flag *fl;

	for (fl = a->flags; fl && fl->name; fl++)
		if (!strcmp(fl->name, name))
			return fl;
	return NULL;
}

/* One "--name value" or "--name=value"; how many argv slots it used. */
static int parse_one(struct st_args *a, const char *arg, const char *next,
		     int *used)
{
	char name[32];
	const char *eq = strchr(arg, '='), *val = eq ? eq + 1 : next;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct st_flag *fl;
	long *p, max;

	if (strncmp(arg, "--", 2) || len - 2 >= sizeof(name))
		return bad_arg(a, arg, NULL, 0, 0);
	memcpy(name, arg + 2, len - 2);
	name[len - 2] = '\0';
	*used = eq ? 1 : 2;
	p = common_flag(a, name, &max);
	fl = p ? NULL : own_flag(a, name);
	if (strcmp(name, "seed") && !p && !fl)
		return bad_arg(a, arg, NULL, 0, 0);
	if (!val)
		return bad_arg(a, arg, NULL, 1, 0);
	if (!strcmp(name, "seed"))
		return parse_seed(val, &a->seed) ?
			       bad_arg(a, name, val, -1, 0) :
			       0;
	if (p)
		return parse_long(val, 1, max, p) ?
			       bad_arg(a, name, val, 1, max) :
			       0;
	return parse_long(val, fl->min, fl->max, fl->val) ?
		       bad_arg(a, name, val, fl->min, fl->max) :
		       0;
}

static uint64_t clock_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* A short number is easier to paste: 9 decimal digits. */
	return st_mix((uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec,
		      (uint64_t)getpid()) %
	       1000000000u;
}

static void describe(struct st_args *a, const char *iters_name)
{
	const struct st_flag *fl;
	size_t n = sizeof(a->sizes);
	int k;

	k = snprintf(a->sizes, n, "workers %ld", a->workers);
	for (fl = a->flags; fl && fl->name && (size_t)k < n; fl++)
		k += snprintf(a->sizes + k, n - k, " %s %ld", fl->name,
			      *fl->val);
	if ((size_t)k < n)
		snprintf(a->sizes + k, n - k, " %s %ld", iters_name, a->iters);
}

int st_parse(struct st_args *a, int argc, char **argv)
{
	bool seeded = false;
	int i, used, rc;

	prog_name = a->prog;
	for (i = 1; i < argc; i += used) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(a, stdout);
			return ST_EXIT_OK;
		}
		seeded |= !strncmp(argv[i], "--seed", 6);
		rc = parse_one(a, argv[i], i + 1 < argc ? argv[i + 1] : NULL,
			       &used);
		if (rc)
			return rc; /* ST_EXIT_USAGE */
	}
	if (!seeded)
		a->seed = clock_seed();
	describe(a, a->iters_name);
	return ST_RUN;
}

/* ---- small helpers ------------------------------------------------------- */

void st_spin(uint32_t n)
{
	/* a systematic run: the turn to another thread, the one this
	 * waits for perhaps (base/systematic.h) */
	act__systematic_yield();
	while (n--) {
#if defined(__x86_64__)
		__asm__ volatile("pause");
#elif defined(__aarch64__)
		__asm__ volatile("yield");
#else
		__asm__ volatile("" ::: "memory");
#endif
	}
}

void st_report(_Atomic uint64_t *counter, const char *fmt, ...)
{
	va_list ap;

	st_add(counter, 1);
	if (atomic_fetch_add_explicit(&n_reports, 1, memory_order_relaxed) >=
	    MAX_REPORTS)
		return;
	flockfile(stderr);
	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

double st_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool st_stalled(struct st_stall *s, uint64_t v, double now, long stall)
{
	if (v != s->seen || !s->since) {
		s->seen = v;
		s->since = now;
		return false;
	}
	return now - s->since >= (double)stall;
}

uint64_t st_stats_sum(const struct act_worker_stats *ws, int n,
		      size_t field_offset)
{
	uint64_t sum = 0, v;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(&v, (const char *)&ws[i] + field_offset, sizeof(v));
		sum += v;
	}
	return sum;
}

/* ---- result line and watchdog -------------------------------------------- */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started, stopped;
	const struct st_watch *w;
	double t0, t_end; /* t_end: act_main returned; 0 before */
	uint64_t last_progress;
	double last_change;
} wd = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* One progress record on st_progress_fd (common.h); a full pipe or a
 * gone reader loses the record, never the run. */
static void report_progress(double now)
{
	char line[96];
	int n;

	if (st_progress_fd < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "progress %.2f %" PRIu64 " %" PRIu64 "\n", now - wd.t0,
		     wd.w->progress ? wd.w->progress() : 0,
		     wd.w->violations ? wd.w->violations() : 0);
	if (write(st_progress_fd, line, (size_t)n) < 0)
		st_progress_fd = -1;
}

void st_result(const struct st_watch *w, const char *verdict)
{
	char figs[512];

	w->figures(figs, sizeof(figs));
	report_progress(st_now()); /* the last record: the final figures */
	printf("%s: %s: %s, %.2f s%s%s; rerun with --seed %" PRIu64 "\n",
	       w->args->prog, w->args->sizes, figs,
	       (wd.t_end ? wd.t_end : st_now()) - wd.t0, verdict ? ": " : "",
	       verdict ? verdict : "", w->args->seed);
	fflush(stdout);
}

/* Called with wd.mu held: reports and ends the process. */
static void give_up(const char *verdict, int status)
{
	st_result(wd.w, verdict);
	fflush(stderr);
	_exit(status);
}

static bool stalled(double now)
{
	uint64_t p;

	if (!wd.w->progress)
		return false;
	p = wd.w->progress();
	if (p != wd.last_progress) {
		wd.last_progress = p;
		wd.last_change = now;
	}
	return now - wd.last_change >= (double)wd.w->args->stall;
}

static void tick(double now)
{
	char why[96];

	report_progress(now);
	if (now - wd.t0 >= (double)wd.w->args->timeout) {
		snprintf(why, sizeof(why), "TIMEOUT after %ld s",
			 wd.w->args->timeout);
		give_up(why, ST_EXIT_TIMEOUT);
	}
	if (wd.w->check && wd.w->check(now))
		give_up("FAIL", ST_EXIT_FAIL);
	if (stalled(now)) {
		fprintf(stderr,
			"%s: no progress for %ld s: a lost wakeup, "
			"message or process\n",
			wd.w->args->prog, wd.w->args->stall);
		snprintf(why, sizeof(why), "FAIL (stalled %ld s)",
			 wd.w->args->stall);
		give_up(why, ST_EXIT_FAIL);
	}
}

static void *watch_main(void *arg)
{
	struct timespec ts;
	double next;

	(void)arg;
	pthread_mutex_lock(&wd.mu);
	for (next = st_now() + TICK; !wd.stopped; next += TICK) {
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&wd.cv, &wd.mu, &ts);
		if (!wd.stopped)
			tick(st_now());
	}
	pthread_mutex_unlock(&wd.mu);
	return NULL;
}

int st_watch_start(const struct st_watch *w)
{
	pthread_condattr_t ca;
	int rc;

	wd.w = w;
	wd.t0 = wd.last_change = st_now();
	wd.last_progress = 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cv, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&wd.thread, NULL, watch_main, NULL);
	wd.started = !rc;
	return -rc;
}

void st_watch_stop(void)
{
	if (!wd.started)
		return;
	pthread_mutex_lock(&wd.mu);
	wd.stopped = true;
	pthread_cond_signal(&wd.cv);
	pthread_mutex_unlock(&wd.mu);
	pthread_join(wd.thread, NULL);
	wd.started = false;
}

/* ---- one run ------------------------------------------------------------- */

int st_run(const struct st_watch *w, void (*fn)(void *), void *arg)
{
	struct act_config cfg;
	int rc;

	act_config_init(&cfg);
	cfg.schedulers = (int)w->args->workers;
	cfg.stack_guard = st_stack_guard;
	rc = st_watch_start(w);
	if (rc) {
		fprintf(stderr, "%s: no watchdog thread: %s\n", w->args->prog,
			strerror(-rc));
		return rc;
	}
	rc = act_main(&cfg, fn, arg);
	st_watch_stop();
	wd.t_end = st_now();
	if (rc < 0)
		fprintf(stderr, "%s: act_main: %s\n", w->args->prog,
			strerror(-rc));
	else if (rc > 0)
		fprintf(stderr, "%s: the main process exited with reason %d\n",
			w->args->prog, rc);
	return rc;
}

int st_finish(const struct st_watch *w, int rc, uint64_t violations)
{
	char why[64];

	if (!rc && !violations) {
		st_result(w, NULL);
		return ST_EXIT_OK;
	}
	if (rc)
		snprintf(why, sizeof(why), "FAIL (act_main %d)", rc);
	else
		snprintf(why, sizeof(why), "FAIL (%" PRIu64 " violation%s)",
			 violations, violations == 1 ? "" : "s");
	st_result(w, why);
	return ST_EXIT_FAIL;
}

long st_status_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}
