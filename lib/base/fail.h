/* SPDX-License-Identifier: MIT */
/*
 * fail.h - fault injection for the tests: ACT_TEST_FAIL (doc/testing.md).
 *
 * Each place where the runtime asks the system for something that can be
 * refused (memory, a thread, a ring, a futex sleep) is a site with a
 * name. ACT_TEST_FAIL is a comma-separated list of rules, one per site:
 *
 *   site:N     the Nth call at that site fails (1-based), once
 *   site:N+    every call from the Nth on fails
 *   site:1/P   each call fails with probability 1/P (P from 1 to
 *              1000000), drawn from ACT_TEST_FAIL_SEED and the call's
 *              number at that site
 *
 * A failed call takes the path the real failure takes (fail.c's table
 * says which error each site stands for): the code after the call sees
 * the error, not a different branch. act_main arms the rules before its
 * first system call and disarms them when it returns; the counts of
 * calls and failures stay readable until the next act_main (the tests
 * ask for them: act__fail_fired).
 *
 * Cost when nothing is armed: ACT_FAIL(site) is a load of one byte and a
 * branch predicted not taken, and no site is on the message path's fast
 * one (an envelope from the owner's free list cannot fail, so the
 * envelope site is the slow path's, where memory is found:
 * scripts/count-msg.sh counts the same with it). Armed, each call at a
 * site with a rule is one atomic add on that site's counter; a site
 * without a rule costs a table look.
 *
 * The random draw is a function of (seed, site, call number), a
 * xorshift-multiply hash, not a shared generator state: threads draw
 * without a lock, and a run whose calls come in the same order fails the
 * same calls.
 */
#ifndef ACT_FAIL_H
#define ACT_FAIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* The sites; act__fail_name gives each its name in ACT_TEST_FAIL. */
enum act__fail_site {
	ACT_FAIL_SLOT,	       /* a process slot for a spawn */
	ACT_FAIL_STACK,	       /* a process stack for a spawn */
	ACT_FAIL_ENVELOPE,     /* an envelope not on its slab's free list */
	ACT_FAIL_SLAB,	       /* a new chunk of envelopes (mmap) */
	ACT_FAIL_MMAP,	       /* the other mmaps: stack chunks, the
				* process table, the trace buffers */
	ACT_FAIL_MBIND,	       /* binding memory to a NUMA node */
	ACT_FAIL_MADVISE,      /* stack guards (MADV_GUARD_INSTALL) */
	ACT_FAIL_RING_SETUP,   /* io_uring_queue_init */
	ACT_FAIL_SUBMIT_BUSY,  /* io_uring_enter: -EBUSY */
	ACT_FAIL_SUBMIT_AGAIN, /* io_uring_enter: -EAGAIN */
	ACT_FAIL_CQ_OVERFLOW,  /* a reap finds the CQ overflowed */
	ACT_FAIL_FUTEX_EINTR,  /* a futex sleep ends at once, EINTR */
	ACT_FAIL_FUTEX_EAGAIN, /* a futex sleep ends at once, EAGAIN */
	ACT_FAIL_THREAD,       /* pthread_create */
	ACT_FAIL_HWLOC,	       /* loading this machine's topology */
	ACT_FAIL_SITES
};

/* ACT_TEST_FAIL's limits */
#define ACT_FAIL_N_MAX 1000000000u
#define ACT_FAIL_P_MAX 1000000u

struct act__fail_rule {
	uint32_t n;	 /* the first call that fails; 0: no rule */
	uint32_t one_in; /* site:1/P: P; 0 otherwise */
	bool every;	 /* site:N+ */
};

struct act__fail_spec {
	struct act__fail_rule rule[ACT_FAIL_SITES];
};

/* Whether any rule is armed (act__fail_arm); relaxed loads only. */
extern _Atomic bool act__fail_armed;

/* Does this call at site fail? Counted only while rules are armed. */
#define ACT_FAIL(site)                                                \
	(act__unlikely(atomic_load_explicit(&act__fail_armed,         \
					    memory_order_relaxed)) && \
	 act__fail_hit(site))

/*
 * Parse an ACT_TEST_FAIL value into spec (NULL: only check it). 0, or
 * -EINVAL for anything but a list of rules as above: an unknown site, a
 * site twice, N or P out of range or with other characters, an empty
 * rule. spec is all zero on error.
 */
int act__fail_parse(const char *s, struct act__fail_spec *spec);
/* The same, checking only (the variables' table's check). */
int act__fail_check(const char *s);

/* What ACT_TEST_FAIL accepts, for the variables' error line. */
#define ACT_FAIL_EXPECT                                                       \
	"a list of SITE:N, SITE:N+ or SITE:1/P (N from 1 to 1000000000, P "   \
	"from 1 to 1000000), SITE one of slot, stack, envelope, slab, mmap, " \
	"mbind, madvise, ring_setup, submit_busy, submit_again, "             \
	"cq_overflow, futex_eintr, futex_eagain, thread or hwloc, each "      \
	"site once"

/* Arm spec's rules with the random draw's seed, counts from zero (spec
 * NULL or without a rule: nothing armed). Before the runtime's threads
 * start; act__fail_disarm after they all ended. */
void act__fail_arm(const struct act__fail_spec *spec, uint64_t seed);
void act__fail_disarm(void);

/* The slow half of ACT_FAIL; any thread. */
bool act__fail_hit(enum act__fail_site site);

/* Calls counted at site since the last arm, and how many failed. */
uint64_t act__fail_calls(enum act__fail_site site);
uint64_t act__fail_fired(enum act__fail_site site);
/* "slot", "submit_busy", ...; NULL past the last site. */
const char *act__fail_name(enum act__fail_site site);

#endif /* ACT_FAIL_H */
