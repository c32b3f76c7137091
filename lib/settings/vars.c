/* SPDX-License-Identifier: MIT */
/* vars.c - the table of ACTORS_* variables and its resolver; see vars.h. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fail.h"
#include "env.h"
#include "vars.h"

/* Where an entry's value goes: a field of act_config, or a policy. */
#define CTYPE_OF(m) \
	_Generic(((struct act__settings *)0)->m,                             \
		int: ACT_VAR_C_INT,                                          \
		uint32_t: ACT_VAR_C_U32,                                     \
		size_t: ACT_VAR_C_SIZE,                                      \
		unsigned long long: ACT_VAR_C_U64,                           \
		const char *: ACT_VAR_C_STR)
#define FIELD(f)                                                   \
	.field = #f, .off = offsetof(struct act__settings, cfg.f), \
	.ctype = CTYPE_OF(cfg.f)
#define POLICY(m)                                                \
	.field = NULL, .off = offsetof(struct act__settings, m), \
	.ctype = CTYPE_OF(m)

static const struct act__var_word mailbox_words[] = {
	{ "off", ACT_MAILBOX_UNLIMITED }, { NULL, 0 }
};
static const struct act__var_word stats_words[] = { { "0", 0 },
						    { "1", 1 },
						    { NULL, 0 } };
static const struct act__var_word off_words[] = { { "off", 0 }, { NULL, 0 } };
static const struct act__var_word wake_words[] = { { "waker", 0 },
						   { "last", 1 },
						   { NULL, 0 } };
static const struct act__var_word place_words[] = { { "idle", 0 },
						    { "random", 1 },
						    { NULL, 0 } };
static const struct act__var_word backpressure_words[] = { { "mute", 0 },
							   { "off", 1 },
							   { NULL, 0 } };
/* ACTORS_DUMP_SIGNAL: the signals a program leaves to its operator
 * (SIGUSR1 and SIGUSR2 are 10 and 12 on every Linux port this runtime
 * has); a real-time signal by number. Never one that the kernel sends
 * for a fault or that cannot be caught. */
static const struct act__var_word dump_words[] = {
	{ "off", 0 },	       { "USR1", SIGUSR1 },	 { "SIGUSR1", SIGUSR1 },
	{ "10", SIGUSR1 },     { "USR2", SIGUSR2 },	 { "SIGUSR2", SIGUSR2 },
	{ "12", SIGUSR2 },     { "HUP", SIGHUP },	 { "SIGHUP", SIGHUP },
	{ "WINCH", SIGWINCH }, { "SIGWINCH", SIGWINCH }, { NULL, 0 }
};
static const struct act__var_word claim_words[] = {
	{ "off", ACT_CPU_CLAIM_OFF },
	{ "warn", ACT_CPU_CLAIM_WARN },
	{ "refuse", ACT_CPU_CLAIM_REFUSE },
	{ NULL, 0 }
};
/* act__plan_bind_name and act__plan_bind_parse (plan.c) read these too */
static const struct act__var_word bind_words[] = {
	{ "none", ACT_BIND_NONE },
	{ "core", ACT_BIND_CORE },
	{ "pu", ACT_BIND_PU },
	{ "spread", ACT_BIND_SPREAD },
	{ "compact", ACT_BIND_COMPACT },
	{ "numa", ACT_BIND_NUMA },
	{ NULL, 0 }
};
static const struct act__var_word reactor_words[] = {
	{ "auto", ACT_REACTOR_AUTO },
	{ "none", ACT_REACTOR_NONE },
	{ "inline", ACT_REACTOR_INLINE },
	{ NULL, 0 }
};

/* the test class's (vars.h: struct act__tests) */
static const struct act__var_word test_ring_words[] = {
	{ "none", ACT_TEST_RING_NONE },
	{ "plain", ACT_TEST_RING_PLAIN },
	{ "eventfd", ACT_TEST_RING_EVENTFD },
	{ "nobell", ACT_TEST_RING_NOBELL },
	{ NULL, 0 }
};
static const struct act__var_word test_numa_words[] = {
	{ "off", ACT_TEST_NUMA_OFF },
	{ "force", ACT_TEST_NUMA_FORCE },
	{ NULL, 0 }
};
static const struct act__var_word fail_words[] = { { "fail", 1 }, { NULL, 0 } };

const struct act__var act__vars[ACT_VARS] = {
	[ACT_VAR_STACK_SIZE] = {
		.name = "ACTORS_STACK_SIZE", .type = ACT_VAR_SIZE,
		FIELD(stack_size),
		.min = ACT_STACK_MIN, .max = ACT_STACK_MAX,
		.what = "a size in bytes with an optional k, m or g suffix,",
		.example = "(e.g. 64k or 1m)",
		.def = ACT_VARS_STACK_DEFAULT,
		.doc = "The stack size of each process",
	},
	[ACT_VAR_RING_ENTRIES] = {
		.name = "ACTORS_RING_ENTRIES", .type = ACT_VAR_UINT,
		FIELD(ring_entries),
		.min = 1, .max = ACT_VARS_RING_MAX,
		.def = ACT_VARS_RING_DEFAULT,
		.doc = "The submission queue size of the reactor's io_uring "
		       "ring",
	},
	[ACT_VAR_TIMER_US] = {
		.name = "ACTORS_TIMER_US", .type = ACT_VAR_UINT,
		FIELD(timer_us),
		.min = ACT_VARS_TIMER_MIN, .max = ACT_VARS_TIMER_MAX,
		.def = ACT_VARS_TIMER_DEFAULT,
		.doc = "The timers' resolution (the timer wheel's tick), in "
		       "microseconds",
	},
	[ACT_VAR_SCHEDULERS] = {
		.name = "ACTORS_SCHEDULERS", .type = ACT_VAR_UINT,
		.flags = ACT_VAR_COMPUTED, FIELD(schedulers),
		.min = 1, .max = ACT_VARS_SCHEDULERS_MAX,
		.doc = "The number of workers",
	},
	[ACT_VAR_SPIN_US] = {
		.name = "ACTORS_SPIN_US", .type = ACT_VAR_UINT,
		.flags = ACT_VAR_ZERO_OFF, FIELD(spin_us),
		.min = 0, .max = ACT_VARS_SPIN_MAX,
		.what = "a whole number of microseconds",
		.min_note = "(no spinning)",
		.def = ACT_VARS_SPIN_DEFAULT,
		.doc = "How long an idle worker searches for work before it "
		       "sleeps",
	},
	[ACT_VAR_MAILBOX_LIMIT] = {
		.name = "ACTORS_MAILBOX_LIMIT", .type = ACT_VAR_UINT,
		FIELD(mailbox_limit),
		.min = 1, .max = ACT_VARS_MAILBOX_MAX, .words = mailbox_words,
		.what = "a whole number of messages",
		.def = ACT_MAILBOX_UNLIMITED,
		.doc = "How many messages a process may have been sent and "
		       "not yet received before it is killed",
	},
	[ACT_VAR_BLOCKING_THREADS] = {
		.name = "ACTORS_BLOCKING_THREADS", .type = ACT_VAR_UINT,
		FIELD(blocking_threads),
		.min = 1, .max = ACT_VARS_BLOCKING_MAX,
		.what = "a whole number of threads",
		.def = ACT_VARS_BLOCKING_DEFAULT,
		.doc = "The most threads act_blocking's pool runs at once; "
		       "it starts with none, grows on demand and an idle "
		       "thread exits after 10 s",
	},
	[ACT_VAR_STATS] = {
		.name = "ACTORS_STATS", .type = ACT_VAR_DURATION,
		POLICY(stats),
		.min = ACT_VARS_STATS_MIN, .max = ACT_VARS_DURATION_MAX,
		.words = stats_words,
		.what = "an interval",
		.example = "(e.g. 100ms or 1s)",
		.def = 0,
		.doc = "Whether each worker's counters and the kernel paths "
		       "taken are printed on standard error when the main "
		       "process exits (1) or not (0); an interval also "
		       "prints a line per worker and one for the reactor "
		       "every interval",
	},
	[ACT_VAR_TRACE] = {
		.name = "ACTORS_TRACE", .type = ACT_VAR_PATH,
		.flags = ACT_VAR_COMPUTED, FIELD(trace),
		.what = "a file name",
		.doc = "The file an execution trace is written to when the "
		       "runtime stops (Chrome trace-event JSON, for Perfetto); "
		       "unset: no trace",
	},
	[ACT_VAR_TRACE_BUFFER] = {
		.name = "ACTORS_TRACE_BUFFER", .type = ACT_VAR_SIZE,
		FIELD(trace_buffer),
		.min = ACT_VARS_TRACE_BUFFER_MIN,
		.max = ACT_VARS_TRACE_BUFFER_MAX,
		.what = "a size in bytes",
		.example = "(e.g. 64m)",
		.def = ACT_VARS_TRACE_BUFFER_DEFAULT,
		.doc = "The trace buffer of each worker and of the reactor; "
		       "when it is full the oldest events are dropped, and "
		       "the trace says how many",
	},
	[ACT_VAR_LONG_SCHEDULE] = {
		.name = "ACTORS_LONG_SCHEDULE", .type = ACT_VAR_DURATION,
		POLICY(long_schedule),
		.min = ACT_VARS_LONG_MIN, .max = ACT_VARS_DURATION_MAX,
		.words = off_words,
		.what = "a duration",
		.example = "(e.g. 10ms)",
		.def = 0,
		.doc = "A process that holds its worker this long in one turn "
		       "is reported on standard error, once a turn",
	},
	[ACT_VAR_WAKE] = {
		.name = "ACTORS_WAKE", .type = ACT_VAR_WORD,
		POLICY(wake_last),
		.words = wake_words,
		.def = 0,
		.doc = "For measurement: where a woken process runs, on the "
		       "waking worker (waker) or on the one it last ran on "
		       "(last)",
	},
	[ACT_VAR_PLACE] = {
		.name = "ACTORS_PLACE", .type = ACT_VAR_WORD,
		POLICY(place_random),
		.words = place_words,
		.def = 0,
		.doc = "For measurement: where a spawn goes, to a random "
		       "worker if that one is idle, else the spawner's (idle), "
		       "or to any random worker (random)",
	},
	[ACT_VAR_BACKPRESSURE] = {
		.name = "ACTORS_BACKPRESSURE", .type = ACT_VAR_WORD,
		POLICY(backpressure_off),
		.words = backpressure_words,
		.def = 0,
		.doc = "Whether a process that sends to one with a backlog "
		       "waits until that one has read it (mute) or never "
		       "(off)",
	},
	[ACT_VAR_DUMP_SIGNAL] = {
		.name = "ACTORS_DUMP_SIGNAL", .type = ACT_VAR_UINT,
		POLICY(dump_signal),
		.min = ACT_VARS_DUMP_RT_MIN, .max = ACT_VARS_DUMP_RT_MAX,
		.words = dump_words,
		.what = "a real-time signal number",
		.def = 0,
		.doc = "A signal that makes the runtime print every process "
		       "(act_dump) on standard error, or none (off): no "
		       "handler is installed unless one is named",
	},
	[ACT_VAR_CPU_CLAIM] = {
		.name = "ACTORS_CPU_CLAIM", .type = ACT_VAR_WORD,
		POLICY(cpu_claim),
		.words = claim_words,
		.def = ACT_CPU_CLAIM_OFF,
		.doc = "Whether the runtime claims the CPUs it runs on, so that "
		       "another runtime that claims one of them says so at "
		       "start (warn) or does not start (refuse), or neither "
		       "(off): an abstract socket a CPU, no file",
	},
	[ACT_VAR_SEED] = {
		.name = "ACTORS_SEED", .type = ACT_VAR_UINT,
		POLICY(seed),
		.min = 1, .max = ACT_VARS_SEED_MAX, .words = off_words,
		.what = "a seed",
		.def = 0,
		.doc = "A seed: a library built with --enable-systematic runs "
		       "its threads one at a time in the order it draws, on a "
		       "logical clock, and prints the run's path at the end "
		       "(doc/systematic.md); any other library refuses it; "
		       "off: the threads run as they do",
	},
	[ACT_VAR_BIND] = {
		.name = "ACTORS_BIND", .type = ACT_VAR_WORD,
		FIELD(bind),
		.words = bind_words,
		.def = ACT_BIND_CORE,
		.doc = "How workers are bound to CPUs",
	},
	[ACT_VAR_REACTOR_CPU] = {
		.name = "ACTORS_REACTOR_CPU", .type = ACT_VAR_CPU,
		FIELD(reactor_cpu),
		.min = 0, .max = ACT_CPU_MAX, .words = reactor_words,
		.what = "a CPU number",
		.def = ACT_REACTOR_AUTO,
		.doc = "The reactor thread's CPU; inline: no thread, worker "
		       "0 runs the reactor between processes (one worker "
		       "only)",
	},
	[ACT_VAR_CPUS] = {
		.name = "ACTORS_CPUS", .type = ACT_VAR_CPULIST,
		.flags = ACT_VAR_COMPUTED, FIELD(cpus),
		.what = "a list of CPUs such as 0-7,16-23",
		.doc = "The CPUs the runtime may use, within the affinity "
		       "mask and cgroup cpuset",
	},
	[ACT_VAR_NODE] = {
		.name = "ACTORS_NODE", .type = ACT_VAR_PATH,
		.flags = ACT_VAR_COMPUTED, POLICY(node),
		.what = "a node name",
		.doc = "The node name act_dist_start takes when it is given "
		       "none: alive or alive@host (act_dist_start(3)); unset: "
		       "it must be given",
	},
	[ACT_VAR_COOKIE] = {
		.name = "ACTORS_COOKIE", .type = ACT_VAR_PATH,
		.flags = ACT_VAR_COMPUTED, POLICY(cookie),
		.what = "a cookie",
		.doc = "The cookie act_dist_start takes when it is given none; "
		       "unset: the first line of $HOME/.erlang.cookie, as "
		       "Erlang's",
	},
	[ACT_VAR_TEST_RING] = {
		.name = "ACT_TEST_RING", .type = ACT_VAR_WORD,
		.flags = ACT_VAR_TEST, POLICY(test.ring),
		.words = test_ring_words,
		.doc = "The reactor's ring as on an older kernel: none (no "
		       "io_uring), plain (no SINGLE_ISSUER or DEFER_TASKRUN), "
		       "eventfd (the eventfd doorbell), nobell (no SQE ever "
		       "free for the doorbell's wait)",
	},
	[ACT_VAR_TEST_NUMA] = {
		.name = "ACT_TEST_NUMA", .type = ACT_VAR_UINT,
		.flags = ACT_VAR_TEST, POLICY(test.numa),
		.min = 1, .max = ACT_TEST_NUMA_FAKE_MAX,
		.words = test_numa_words, .prefix = "fake:",
		.what = "fake:K with K",
		.doc = "The memory homes: off (as if numa_available() < 0), "
		       "force (mbind even on one node), fake:K (K homes, "
		       "worker i in home i % K, nothing bound)",
	},
	[ACT_VAR_TEST_GUARD_BUDGET] = {
		.name = "ACT_TEST_GUARD_BUDGET", .type = ACT_VAR_UINT,
		.flags = ACT_VAR_TEST, POLICY(test.guard_budget),
		.min = 1, .max = ACT_TEST_GUARD_BUDGET_MAX,
		.what = "a number of guards",
		.doc = "The stack guards mprotect may make before stacks fall "
		       "back to a canary (else a quarter of vm.max_map_count)",
	},
	[ACT_VAR_TEST_PIN] = {
		.name = "ACT_TEST_PIN", .type = ACT_VAR_WORD,
		.flags = ACT_VAR_TEST, POLICY(test.pin_fail),
		.words = fail_words,
		.doc = "fail: every binding of a thread to its CPUs fails "
		       "(reported once, the runtime goes on unbound)",
	},
	[ACT_VAR_TEST_TOPOLOGY] = {
		.name = "ACT_TEST_TOPOLOGY", .type = ACT_VAR_PATH,
		.flags = ACT_VAR_TEST, POLICY(test.topology),
		.what = "an hwloc synthetic description such as \"pack:2 "
			"numa:1 core:4 pu:2\"",
		.doc = "The machine this one stands for, an hwloc synthetic "
		       "description: nothing bound, no cgroup quota, NUMA "
		       "homes without mbind; read at the first load of the "
		       "topology",
	},
	[ACT_VAR_TEST_HWLOC] = {
		.name = "ACT_TEST_HWLOC", .type = ACT_VAR_WORD,
		.flags = ACT_VAR_TEST, POLICY(test.hwloc_fail),
		.words = fail_words,
		.doc = "fail: hwloc cannot read this machine, and the plan is "
		       "made for the affinity mask alone; read at the first "
		       "load of the topology",
	},
	[ACT_VAR_TEST_FAIL] = {
		.name = "ACT_TEST_FAIL", .type = ACT_VAR_PATH,
		.flags = ACT_VAR_TEST, POLICY(test.fail),
		.what = ACT_FAIL_EXPECT, .check = act__fail_check,
		.doc = "Fault injection: site:N fails the Nth call at a site, "
		       "site:N+ every call from the Nth, site:1/P each call "
		       "with probability 1/P (doc/testing.md lists the sites)",
	},
	[ACT_VAR_TEST_FAIL_SEED] = {
		.name = "ACT_TEST_FAIL_SEED", .type = ACT_VAR_UINT,
		.flags = ACT_VAR_TEST, POLICY(test.fail_seed),
		.min = 1, .max = UINT32_MAX,
		.what = "a seed",
		.doc = "The seed of ACT_TEST_FAIL's random draws (else 1)",
	},
};

void act__vars_settings_init(struct act__settings *s,
			     const struct act_config *cfg)
{
	/* all zero: every field unset, as act_config_init leaves them */
	memset(s, 0, sizeof(*s));
	if (cfg)
		s->cfg = *cfg;
}

/* ---- the setting an entry fills ---------------------------------------- */

static void *slot(const struct act__var *v, struct act__settings *s)
{
	return (char *)s + v->off;
}

/* Nonzero: the caller set it (a string: non-NULL). */
static int is_set(const struct act__var *v, struct act__settings *s)
{
	void *p = slot(v, s);

	switch (v->ctype) {
	case ACT_VAR_C_INT:
		return *(int *)p != 0;
	case ACT_VAR_C_U32:
		return *(uint32_t *)p != 0;
	case ACT_VAR_C_SIZE:
		return *(size_t *)p != 0;
	case ACT_VAR_C_U64:
		return *(unsigned long long *)p != 0;
	default:
		return *(const char **)p != NULL;
	}
}

static void store(const struct act__var *v, struct act__settings *s, int64_t x,
		  const char *str)
{
	void *p = slot(v, s);

	switch (v->ctype) {
	case ACT_VAR_C_INT:
		*(int *)p = (int)x;
		break;
	case ACT_VAR_C_U32:
		*(uint32_t *)p = (uint32_t)x;
		break;
	case ACT_VAR_C_SIZE:
		*(size_t *)p = (size_t)x;
		break;
	case ACT_VAR_C_U64:
		*(unsigned long long *)p = (unsigned long long)x;
		break;
	default:
		*(const char **)p = str;
		break;
	}
}

/* ---- parsing and the error line --------------------------------------- */

static const struct act__var_word *word_of(const struct act__var *v,
					   const char *s)
{
	const struct act__var_word *w;

	for (w = v->words; w && w->word; w++)
		if (!strcmp(s, w->word))
			return w;
	return NULL;
}

/* The value string e of v as what it stores. 0 or -EINVAL. */
static int parse(const struct act__var *v, const char *e, int64_t *x)
{
	const struct act__var_word *w = word_of(v, e);
	uint64_t n;
	size_t sz;

	if (w) {
		*x = w->value;
		return 0;
	}
	switch (v->type) {
	case ACT_VAR_SIZE:
		if (act__env_parse_size(e, &sz) || sz < v->min || sz > v->max)
			return -EINVAL;
		*x = (int64_t)((sz + 4095) & ~(size_t)4095);
		return 0;
	case ACT_VAR_UINT:
	case ACT_VAR_CPU:
		if (v->prefix && strncmp(e, v->prefix, strlen(v->prefix)))
			return -EINVAL;
		if (v->prefix)
			e += strlen(v->prefix);
		if (act__env_parse_uint(e, v->min, v->max, &n))
			return -EINVAL;
		if (v->type == ACT_VAR_CPU)
			*x = ACT_REACTOR_CPU((int64_t)n);
		else
			*x = !n && (v->flags & ACT_VAR_ZERO_OFF) ? -1 :
								   (int64_t)n;
		return 0;
	case ACT_VAR_CPULIST:
		*x = 0;
		return 0;
	case ACT_VAR_PATH:
		*x = 0;
		return !*e || (v->check && v->check(e)) ? -EINVAL : 0;
	case ACT_VAR_DURATION:
		if (act__env_parse_duration(e, &n) || n < v->min || n > v->max)
			return -EINVAL;
		*x = (int64_t)n;
		return 0;
	default:
		return -EINVAL;
	}
}

/* A number as the docs write it: sizes in k, m or g where they divide. */
static void number(const struct act__var *v, uint64_t n, char *buf, size_t len)
{
	static const char suffix[] = "gmk";
	int i;

	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" } };

	for (i = 0; v->type == ACT_VAR_DURATION && i < 3; i++)
		if (n && !(n % units[i].ns)) {
			snprintf(buf, len, "%llu%s",
				 (unsigned long long)(n / units[i].ns),
				 units[i].unit);
			return;
		}
	if (v->type == ACT_VAR_DURATION) {
		snprintf(buf, len, "%lluns", (unsigned long long)n);
		return;
	}
	for (i = 0; v->type == ACT_VAR_SIZE && n && i < 3; i++)
		if (!(n & ((1ull << (30 - 10 * i)) - 1))) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(n >> (30 - 10 * i)),
				 suffix[i]);
			return;
		}
	snprintf(buf, len, "%llu", (unsigned long long)n);
}

/* Append to buf (len bytes, kept 0-terminated); what does not fit is cut. */
static void __attribute__((format(printf, 3, 4)))
add(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

void act__vars_expect(const struct act__var *v, char *buf, size_t len)
{
	const struct act__var_word *w;
	bool more = v->type != ACT_VAR_WORD; /* a number or a list */
	char lo[32], hi[32];

	if (!len)
		return;
	buf[0] = '\0';
	/* "a, b or c": the words, then the number or list as the last */
	for (w = v->words; w && w->word; w++) {
		const char *sep = w == v->words	      ? "" :
				  !w[1].word && !more ? " or " :
							", ";

		add(buf, len, "%s%s", sep, w->word);
	}
	if (!more)
		return;
	if (v->words)
		add(buf, len, " or ");
	if (v->type == ACT_VAR_CPULIST || v->type == ACT_VAR_PATH) {
		add(buf, len, "%s", v->what);
		return;
	}
	number(v, v->min, lo, sizeof(lo));
	number(v, v->max, hi, sizeof(hi));
	add(buf, len, "%s from %s", v->what ? v->what : "a whole number", lo);
	if (v->min_note)
		add(buf, len, " %s", v->min_note);
	add(buf, len, " to %s", hi);
	if (v->example)
		add(buf, len, " %s", v->example);
}

const char *act__vars_default(const struct act__var *v, char *buf, size_t len)
{
	const struct act__var_word *w;

	if (v->flags & (ACT_VAR_COMPUTED | ACT_VAR_TEST))
		return NULL;
	for (w = v->words; w && w->word; w++)
		if (w->value == v->def)
			return w->word;
	number(v, (uint64_t)v->def, buf, len);
	return buf;
}

static int bad_value(const struct act__var *v, const char *e)
{
	char what[400];

	act__vars_expect(v, what, sizeof(what));
	fprintf(stderr, "actors: %s=\"%s\": expected %s\n", v->name, e, what);
	return -EINVAL;
}

/* ---- the resolver ------------------------------------------------------- */

static int resolve_one(enum act__var_id id, struct act__settings *s)
{
	const struct act__var *v = &act__vars[id];
	const char *e;
	int64_t x;

	if (is_set(v, s))
		return 0; /* the caller's: the variable is not read */
	e = getenv(v->name);
	if (!e) {
		if (!(v->flags & ACT_VAR_COMPUTED))
			store(v, s, v->def, NULL);
		return 0;
	}
	if (parse(v, e, &x))
		return bad_value(v, e);
	store(v, s, x, e);
	s->env[id] = e;
	return 0;
}

int act__vars_resolve(struct act__settings *s, uint32_t which)
{
	int id, rc;

	for (id = 0; id < ACT_VARS; id++) {
		if (!(which & ACT_VAR_BIT(id)))
			continue;
		rc = resolve_one((enum act__var_id)id, s);
		if (rc)
			return rc;
	}
	return 0;
}

const struct act__var *act__vars_find(const char *name, size_t len)
{
	int id;

	for (id = 0; id < ACT_VARS; id++)
		if (strlen(act__vars[id].name) == len &&
		    !strncmp(name, act__vars[id].name, len))
			return &act__vars[id];
	return NULL;
}

void act__vars_warn_unknown(void)
{
	extern char **environ;
	char **e;
	size_t len;

	for (e = environ; e && *e; e++) {
		if (strncmp(*e, "ACTORS_", 7))
			continue;
		len = strcspn(*e, "=");
		if (!act__vars_find(*e, len))
			fprintf(stderr,
				"actors: %.*s is not a variable this runtime "
				"reads, ignored (README.md lists them)\n",
				(int)len, *e);
	}
}
