/* SPDX-License-Identifier: MIT */
/*
 * vars.h - the ACTORS_* environment variables: one table (vars.c), an
 * entry per variable with its type, what it accepts, its default, the
 * setting it fills and its line in the manual, and one resolver that
 * walks it. act_main resolves its settings with it, act__plan_resolve
 * the three placement variables, `actors topo` the ones it reads; the
 * warning about an ACTORS_* name that is not a variable checks the
 * table's names; `actors vars` prints the table, and tests/vars.sh
 * checks README.md's table and act_config_init(3)'s ENVIRONMENT section
 * against that.
 *
 * The test class (ACT_VAR_TEST, the ACT_TEST_* switches that force a
 * fallback in tests: doc/testing.md) is in the same table, parsed and
 * refused in the same way; `actors vars --test` prints it, plain `actors
 * vars` and the manual's ENVIRONMENT section leave it out. act_main
 * resolves ACT_TEST_RING, _NUMA, _GUARD_BUDGET, _FAIL and _FAIL_SEED
 * with its settings (and hands them to the layers that read them, or
 * arms them: base/fail.h); act__plan_resolve
 * ACT_TEST_PIN with the placement three; ACT_TEST_TOPOLOGY and
 * ACT_TEST_HWLOC the topology's one load of this machine (topology.c),
 * which may come before any act_main (`actors topo`, the tests).
 *
 * Each variable on its own: a setting the caller made (a nonzero
 * act_config field) wins, and the variable is then not even read; else
 * the variable when it is set; else the default. A bad value prints one
 * line on stderr, `actors: NAME="value": expected WHAT`, WHAT made from
 * the entry (act__vars_expect), and the resolver returns -EINVAL.
 */
#ifndef ACT_VARS_H
#define ACT_VARS_H

#include <stddef.h>
#include <stdint.h>

#include "actors.h"

/* The variables, in the order they are resolved (and so reported). */
enum act__var_id {
	ACT_VAR_STACK_SIZE,
	ACT_VAR_RING_ENTRIES,
	ACT_VAR_TIMER_US,
	ACT_VAR_SCHEDULERS,
	ACT_VAR_SPIN_US,
	ACT_VAR_MAILBOX_LIMIT,
	ACT_VAR_BLOCKING_THREADS,
	ACT_VAR_STATS,
	ACT_VAR_TRACE,
	ACT_VAR_TRACE_BUFFER,
	ACT_VAR_LONG_SCHEDULE,
	ACT_VAR_WAKE,
	ACT_VAR_PLACE,
	ACT_VAR_BACKPRESSURE,
	ACT_VAR_DUMP_SIGNAL,
	ACT_VAR_CPU_CLAIM,
	ACT_VAR_SEED,
	ACT_VAR_BIND, /* the placement three: act__plan_resolve */
	ACT_VAR_REACTOR_CPU,
	ACT_VAR_CPUS,
	ACT_VAR_NODE,	/* act_dist_start: the node's name (lib/dist) */
	ACT_VAR_COOKIE, /* ... its cookie */
	/* the test class (ACT_VAR_TEST) */
	ACT_VAR_TEST_RING,	   /* act_main: the reactor's ring (ring.c) */
	ACT_VAR_TEST_NUMA,	   /* act_main: the memory homes (homes.c) */
	ACT_VAR_TEST_GUARD_BUDGET, /* act_main: the stack guards (stack.c) */
	ACT_VAR_TEST_PIN,	   /* act__plan_resolve: pinning (plan.c) */
	ACT_VAR_TEST_TOPOLOGY,	   /* the machine's load (topology.c) */
	ACT_VAR_TEST_HWLOC,
	ACT_VAR_TEST_FAIL,	/* act_main: fault injection (base/fail.h) */
	ACT_VAR_TEST_FAIL_SEED, /* ... its random draw's seed */
	ACT_VARS
};

#define ACT_VAR_BIT(id) (1u << (id))
#define ACT_VARS_ALL ((1u << ACT_VARS) - 1)
#define ACT_VARS_PLACEMENT                                              \
	(ACT_VAR_BIT(ACT_VAR_BIND) | ACT_VAR_BIT(ACT_VAR_REACTOR_CPU) | \
	 ACT_VAR_BIT(ACT_VAR_CPUS))
#define ACT_VARS_MACHINE \
	(ACT_VAR_BIT(ACT_VAR_TEST_TOPOLOGY) | ACT_VAR_BIT(ACT_VAR_TEST_HWLOC))
#define ACT_VARS_TEST                                                      \
	(ACT_VAR_BIT(ACT_VAR_TEST_RING) | ACT_VAR_BIT(ACT_VAR_TEST_NUMA) | \
	 ACT_VAR_BIT(ACT_VAR_TEST_GUARD_BUDGET) |                          \
	 ACT_VAR_BIT(ACT_VAR_TEST_PIN) | ACT_VARS_MACHINE |                \
	 ACT_VAR_BIT(ACT_VAR_TEST_FAIL) | ACT_VAR_BIT(ACT_VAR_TEST_FAIL_SEED))
/* what act__plan_resolve resolves, itself or through the topology's
 * load; act_main the rest */
#define ACT_VARS_PLAN \
	(ACT_VARS_PLACEMENT | ACT_VAR_BIT(ACT_VAR_TEST_PIN) | ACT_VARS_MACHINE)

/* ACT_TEST_RING's values (struct act__tests.ring) */
enum act__test_ring {
	ACT_TEST_RING_UNSET,   /* the best ring the kernel has */
	ACT_TEST_RING_NONE,    /* no io_uring at all */
	ACT_TEST_RING_PLAIN,   /* no SINGLE_ISSUER, no DEFER_TASKRUN */
	ACT_TEST_RING_EVENTFD, /* the eventfd doorbell */
	ACT_TEST_RING_NOBELL,  /* never an SQE for the doorbell's wait */
};
/* ACT_TEST_NUMA's (struct act__tests.numa): these, or K > 0 for fake:K */
#define ACT_TEST_NUMA_UNSET 0
#define ACT_TEST_NUMA_OFF (-1)
#define ACT_TEST_NUMA_FORCE (-2)
#define ACT_TEST_NUMA_FAKE_MAX 8
#define ACT_TEST_GUARD_BUDGET_MAX 1000000000u

/*
 * The limits and defaults the table gives that layers above this one
 * name too (the reactor's ring and wheel, the worker count, the mailbox
 * limit): lib/node/runtime.c checks at compile time that theirs are
 * these.
 */
#define ACT_VARS_SCHEDULERS_MAX 1024
#define ACT_VARS_RING_MAX 32768
#define ACT_VARS_RING_DEFAULT 256
#define ACT_VARS_TIMER_MIN 10
#define ACT_VARS_TIMER_MAX 100000
#define ACT_VARS_TIMER_DEFAULT 250
#define ACT_VARS_SPIN_MAX 1000000
#define ACT_VARS_SPIN_DEFAULT 20
#define ACT_VARS_MAILBOX_MAX 2147483647u
#define ACT_VARS_BLOCKING_MAX 4096
#define ACT_VARS_BLOCKING_DEFAULT 64
#define ACT_VARS_STATS_MIN 1000000ull	       /* 1ms */
#define ACT_VARS_LONG_MIN 100000ull	       /* 100us */
#define ACT_VARS_DURATION_MAX 3600000000000ull /* 3600s */
#define ACT_VARS_TRACE_BUFFER_MIN ((size_t)64 << 10)
#define ACT_VARS_TRACE_BUFFER_MAX ((size_t)16 << 30)
#define ACT_VARS_TRACE_BUFFER_DEFAULT ((size_t)32 << 20)
#define ACT_VARS_STACK_DEFAULT ((size_t)64 << 10)
/* ACTORS_DUMP_SIGNAL's numbers: Linux's real-time signals past the two
 * glibc keeps (SIGRTMIN is 34 there) */
#define ACT_VARS_DUMP_RT_MIN 34
#define ACT_VARS_DUMP_RT_MAX 64
#define ACT_VARS_SEED_MAX 9223372036854775807ull

/* ACTORS_CPU_CLAIM's values (struct act__settings.cpu_claim) */
enum act__cpu_claim {
	ACT_CPU_CLAIM_OFF,    /* no claim, no look */
	ACT_CPU_CLAIM_WARN,   /* claim; a CPU claimed already is said */
	ACT_CPU_CLAIM_REFUSE, /* ... and stops act_main (-EADDRINUSE) */
};

enum act__var_type {
	ACT_VAR_UINT,	  /* a whole number in [min, max] (after prefix,
			   * when there is one), or one of words */
	ACT_VAR_SIZE,	  /* bytes, optional k/m/g suffix, in [min, max];
			   * rounded up to a multiple of 4096 */
	ACT_VAR_WORD,	  /* one of words */
	ACT_VAR_CPU,	  /* one of words, or an OS CPU in [min, max],
			   * stored as ACT_REACTOR_CPU(n) */
	ACT_VAR_CPULIST,  /* a CPU list, kept as the string: the topology
			   * checks it (act__topology_load), naming the
			   * variable */
	ACT_VAR_PATH,	  /* a file name (or other text), kept as the
			   * string; not empty, and what check takes
			   * when there is a check */
	ACT_VAR_DURATION, /* a whole number with a unit, ns, us, ms or s,
			   * in [min, max] nanoseconds, or one of words */
};

/* The C type of the setting an entry fills. */
enum act__var_ctype {
	ACT_VAR_C_INT,
	ACT_VAR_C_U32,
	ACT_VAR_C_SIZE,
	ACT_VAR_C_STR,
	ACT_VAR_C_U64,
};

/*
 * Entry flags. ACT_VAR_COMPUTED: no fixed default, the plan computes it
 * (nothing is stored when the variable is unset). ACT_VAR_ZERO_OFF: 0
 * from the variable stores -1, the field's "none" (ACTORS_SPIN_US=0).
 * ACT_VAR_TEST: a test switch, ACT_TEST_*, not a setting (no default:
 * unset is the path the machine has).
 */
#define ACT_VAR_COMPUTED 0x1
#define ACT_VAR_ZERO_OFF 0x2
#define ACT_VAR_TEST 0x4

struct act__var_word {
	const char *word;
	int64_t value; /* what it stores */
};

struct act__var {
	const char *name;  /* "ACTORS_SPIN_US" */
	uint8_t type;	   /* enum act__var_type */
	uint8_t ctype;	   /* enum act__var_ctype, of the setting */
	uint8_t flags;	   /* ACT_VAR_COMPUTED, ACT_VAR_ZERO_OFF */
	uint16_t off;	   /* offsetof(struct act__settings, setting) */
	const char *field; /* the act_config field, "spin_us"; NULL:
			    * none (a runtime policy) */
	uint64_t min, max; /* UINT, SIZE and CPU */
	const struct act__var_word *words; /* ended by a NULL word */
	const char *what;     /* the number, in the error line: "a whole
			       * number of microseconds" */
	const char *min_note; /* after the minimum: "(no spinning)" */
	const char *example;  /* at the end: "(e.g. 64k or 1m)" */
	const char *prefix;   /* UINT: what comes before the number,
			       * "fake:"; NULL: nothing */
	int64_t def;	      /* stored when nothing else is */
	const char *doc;      /* what it sets, one line: act_config_init(3)'s
			       * ENVIRONMENT entry begins with it */
	/* PATH: what the text must be, 0 or -EINVAL; NULL: any */
	int (*check)(const char *value);
};

extern const struct act__var act__vars[ACT_VARS];

/* The test switches, resolved (zero: unset). */
struct act__tests {
	uint32_t ring;	       /* ACT_TEST_RING: enum act__test_ring */
	int numa;	       /* ACT_TEST_NUMA: ACT_TEST_NUMA_*, or K */
	uint32_t guard_budget; /* ACT_TEST_GUARD_BUDGET: mprotect
				      * guards; 0: a quarter of the map
				      * count */
	uint32_t pin_fail;     /* ACT_TEST_PIN=fail */
	uint32_t hwloc_fail;   /* ACT_TEST_HWLOC=fail */
	const char *topology;  /* ACT_TEST_TOPOLOGY: the synthetic
				      * machine that stands for this one */
	const char *fail;      /* ACT_TEST_FAIL: the rules (base/fail.h) */
	uint32_t fail_seed;    /* ACT_TEST_FAIL_SEED; 0: unset (1) */
};

/*
 * What a resolve fills: a program's act_config, whose nonzero fields it
 * leaves as they are, the policies that have no field, and the test
 * switches.
 */
struct act__settings {
	struct act_config cfg;
	unsigned long long stats; /* ACTORS_STATS: 0 off, 1 the counters at
				   * exit, else lines every stats ns */
	unsigned long long long_schedule; /* ACTORS_LONG_SCHEDULE: ns, 0 off */
	uint32_t wake_last;		  /* ACTORS_WAKE: 0 waker, 1 last */
	uint32_t place_random;		  /* ACTORS_PLACE: 0 idle, 1 random */
	uint32_t backpressure_off; /* ACTORS_BACKPRESSURE: 0 mute, 1 off */
	uint32_t dump_signal;	   /* ACTORS_DUMP_SIGNAL: 0 off, or the
				    * signal that prints act_dump */
	uint32_t cpu_claim;	   /* ACTORS_CPU_CLAIM: enum act__cpu_claim */
	unsigned long long seed;   /* ACTORS_SEED: 0, or a systematic
				    * run's seed (base/systematic.h) */
	const char *node;	   /* ACTORS_NODE, ACTORS_COOKIE: read by */
	const char *cookie;	   /* act_dist_start itself (getenv) */
	struct act__tests test;
	/* each variable's value where it was read and taken; NULL where
	 * it was unset, not read (a field won) or not resolved */
	const char *env[ACT_VARS];
};

/* s from cfg's fields (NULL: all unset), nothing resolved yet. */
void act__vars_settings_init(struct act__settings *s,
			     const struct act_config *cfg);

/*
 * Resolve the variables of mask `which` (ACT_VAR_BIT of each id) into s,
 * in table order, by the rule at the head of this file. Returns 0, or
 * -EINVAL after the one-line error of the first bad value.
 */
int act__vars_resolve(struct act__settings *s, uint32_t which);

/* The entry of a name (len bytes, not 0-terminated), or NULL. */
const struct act__var *act__vars_find(const char *name, size_t len);

/*
 * What v accepts, as its error line says it after "expected ": "waker or
 * last", "off or a whole number of messages from 1 to 2147483647".
 */
void act__vars_expect(const struct act__var *v, char *buf, size_t len);

/* v's default as README.md and act_config_init(3) show it ("64k",
 * "core", "off"); NULL when it is computed (ACT_VAR_COMPUTED) or v is a
 * test switch (ACT_VAR_TEST: unset, the machine's own path). */
const char *act__vars_default(const struct act__var *v, char *buf, size_t len);

/*
 * One line on stderr for each ACTORS_* name in the environment that is
 * not in the table: most likely a typo (ACTORS_SCHEDULER=8) that would
 * otherwise pass unnoticed. Not an error.
 */
void act__vars_warn_unknown(void);

#endif /* ACT_VARS_H */
