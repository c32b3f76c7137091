/* SPDX-License-Identifier: MIT */
/*
 * testrt.h - helpers for tests that look inside a running runtime:
 * slot lookup, spawning, waiting for a process to exit or to reach a
 * state, the leak check that follows act_main (I9), and the thread count
 * of this OS process.
 */
#ifndef ACT_TESTRT_H
#define ACT_TESTRT_H

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "reactor/reactor.h"
#include "node/runtime.h"
#include "sched/worker.h"

/* ASan's runtime makes system calls of its own (sigaltstack at every
 * noreturn call, for one): syscall counts mean nothing under it. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_UNDER_ASAN 1
#endif
#endif
#ifndef TU_UNDER_ASAN
#define TU_UNDER_ASAN 0
#endif

/* TSan makes every process a fiber (a few KiB of its own, and a slot in
 * a table of about 8000 threads and fibers) and runs 5-15 times slower:
 * the volume tests scale down under it, and the overflow tests, whose
 * SIGSEGV on the alternate stack TSan's own handler intercepts, leave
 * the suite. */
#if defined(__SANITIZE_THREAD__)
#define TU_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TU_UNDER_TSAN 1
#endif
#endif
#ifndef TU_UNDER_TSAN
#define TU_UNDER_TSAN 0
#endif

/* The default configuration with n workers. */
static inline struct act_config tu_with_workers(int n)
{
	struct act_config cfg;

	act_config_init(&cfg);
	cfg.schedulers = n;
	return cfg;
}

/*
 * The machine a test runs on, as the runtime sees it: this one, or the
 * larger one that ACT_TEST_TOPOLOGY simulates (lib/affinity/topology.c,
 * tests/anycount.sh). Its usable hardware threads and cores (with
 * ACTORS_CPUS applied) and its cgroup CPU quota in CPUs (0: none). The
 * first call loads the machine for this OS process, as a runtime does.
 */
struct tu_machine {
	int pus, cores;
	double quota;
	bool simulated;
};

static inline struct tu_machine tu_machine(void)
{
	struct tu_machine m;
	struct act__topo t;
	char why[512];

	ck_assert_msg(act__topology_load(&t, NULL, getenv("ACTORS_CPUS"), NULL,
					 why, sizeof(why)) == 0,
		      "topology: %s", why);
	m.pus = t.nusable_pus;
	m.cores = t.nusable_cores;
	m.quota = t.quota;
	m.simulated = t.simulated;
	act__topology_free(&t);
	return m;
}

/*
 * The worker count of the default plan on that machine (DESIGN.md
 * section 5), for a test that starts a runtime with no count and checks
 * what it got: the usable cores (hardware threads under ACTORS_BIND=pu),
 * or the cgroup quota rounded up where that is fewer, less one for the
 * reactor, at least 1.
 */
static inline int tu_default_workers(void)
{
	struct tu_machine m = tu_machine();
	const char *bind = getenv("ACTORS_BIND");
	int n = bind && !strcmp(bind, "pu") ? m.pus : m.cores;

	if (m.quota > 0 && m.quota < n)
		n = (int)m.quota + (m.quota > (int)m.quota);
	n -= 1;
	if (n < 1)
		n = 1;
	return n > ACT_PLAN_MAX_WORKERS ? ACT_PLAN_MAX_WORKERS : n;
}

/*
 * For a test about this real machine's CPUs or NUMA nodes (threads
 * pinned, memory bound with mbind), which a simulated machine does not
 * have: nothing is bound on one. The machine is loaded once per OS
 * process, by its first runtime (or tu_machine): call this before, at
 * the start of main() or of a test (Check runs each test in a fork of
 * its own).
 */
static inline void tu_real_machine(void)
{
	unsetenv("ACT_TEST_TOPOLOGY");
}

static inline struct act__proc *tu_lookup(act_pid p)
{
	return act__proc_lookup(&act__rt_current->procs, p);
}

/* I1's count of refused duplicate enqueues, over every worker. */
static inline uint64_t tu_dup_enqueues(void)
{
	struct act__rt *rt = act__rt_current;
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++)
		n += atomic_load(&rt->workers[i].rq.dup_enqueues);
	return n;
}

/* A pid's slot index, in the running runtime's split (proc.h). */
static inline uint32_t tu_pid_index(act_pid p)
{
	return act__proc_pid_index(&act__rt_current->procs, p);
}

static inline struct act__proc *tu_self_proc(void)
{
	return tu_lookup(act_self());
}

/* act_spawn, which must not fail. */
static inline act_pid tu_spawn(void (*fn)(void *), void *arg)
{
	act_pid p = act_spawn(fn, arg);

	ck_assert(!act_pid_eq(p, ACT_PID_NONE));
	return p;
}

/*
 * One step of waiting for another process, for at most TU_WAIT in
 * all (deadline: 0 the first time): yield, and after the first
 * thousand steps sleep 100 us, so that a worker whose thread the kernel
 * has not run (more workers than cores) gets a CPU. A bound of time, not
 * of steps: yields on an idle worker return at once. False once the
 * deadline has passed.
 */
#define TU_WAIT (20 * TU_SEC)

static inline bool tu_wait_step(int64_t *deadline, int i)
{
	if (!*deadline)
		*deadline = act__clock_now() + TU_WAIT;
	if (act__clock_now() > *deadline)
		return false;
	if (i < 1000)
		act_yield();
	else
		act_sleep(100000);
	return true;
}

/* Until p's slot is freed (the process reaped, its exit signals all
 * out: they go before the slot); false if it never is. */
static inline bool tu_wait_gone(act_pid p)
{
	int64_t deadline = 0;
	int i;

	for (i = 0; tu_lookup(p) && tu_wait_step(&deadline, i); i++)
		;
	return !tu_lookup(p);
}

/* Until p's state is st (tu_wait_step's steps); false if p is gone or
 * never gets there. */
static inline bool tu_wait_state(act_pid p, unsigned st)
{
	int64_t deadline = 0;
	struct act__proc *q;
	int i;

	for (i = 0;; i++) {
		q = tu_lookup(p);
		if (!q)
			return false;
		if (act__ps(atomic_load(&q->state)) == st)
			return true;
		if (!tu_wait_step(&deadline, i))
			return false;
	}
}

/* p waits in a receive (act_sleep too), or in act_io_*. */
#define tu_wait_waiting(p) tu_wait_state((p), ACT_PS_WAITING)
#define tu_wait_iowait(p) tu_wait_state((p), ACT_PS_IOWAIT)

/* A match for act_receive_match: the tag that ctx holds, cast to a
 * pointer. */
static inline bool tu_tag_is(const struct act_msg *m, void *ctx)
{
	return m->tag == (uint32_t)(uintptr_t)ctx;
}

/* I9: after act_main returned, nothing was left out. */
/* A DOWN of monitor *ref (act_receive_match's test). */
static inline bool tu_is_down_of(const struct act_msg *m, void *ref)
{
	return m->tag == ACT_TAG_DOWN &&
	       ((const struct act_exit_info *)m->data)->ref == *(uint64_t *)ref;
}

/* Inside a process: the reason in the DOWN of monitor ref, other
 * messages left queued. */
static inline intptr_t tu_wait_down(uint64_t ref)
{
	struct act_msg *m = act_receive_match(tu_is_down_of, &ref, ACT_FOREVER);
	intptr_t r = ((struct act_exit_info *)m->data)->reason;

	act_msg_free(m);
	return r;
}

static inline void tu_assert_no_leaks(void)
{
	ck_assert_int_eq(act__last_leaks.procs, 0);
	ck_assert_int_eq(act__last_leaks.stacks, 0);
	ck_assert_int_eq(act__last_leaks.envelopes, 0);
}

/*
 * act_main, then the leak check; returns act_main's result. Under
 * ACT_TEST_INLINE=1 (tests/inline.sh) the runtime has one worker that
 * runs the reactor itself (ACT_REACTOR_INLINE), whatever cfg asks.
 */
static inline int tu_run_main(const struct act_config *cfg, void (*fn)(void *),
			      void *arg)
{
	struct act_config one;
	const char *inl = getenv("ACT_TEST_INLINE");
	int rc;

	if (inl && !strcmp(inl, "1")) {
		if (cfg)
			one = *cfg;
		else
			act_config_init(&one);
		one.schedulers = 1;
		one.reactor_cpu = ACT_REACTOR_INLINE;
		cfg = &one;
	}
	rc = act_main(cfg, fn, arg);

	tu_assert_no_leaks();
	return rc;
}

/*
 * May the reactor still hold a timer due at or before t? It publishes the
 * next tick it will act at; a timer due by t is at a tick that starts
 * before t + one tick. Errs towards yes (a cascade, a command not taken
 * yet), which only makes a caller that waits for "no" wait longer.
 */
static inline bool tu_timer_due_by(int64_t t)
{
	struct act__reactor *r = act__rt_current->reactor;

	return atomic_load(&r->next_deadline) <= t + r->wheel.tick_ns ||
	       atomic_load(&r->cmds.head) != &r->cmds.stub;
}

/* Runs fn as the main process of a 2-worker runtime without io_uring
 * (ACT_TEST_RING=none), in a child (tu_run_child): c gets its exit
 * status, 0 when act_main returned 0, and its stderr. */
struct tu_ringless_run {
	void (*fn)(void *);
};

static inline void tu_ringless_child(void *arg)
{
	struct act_config cfg = tu_with_workers(2);

	setenv("ACT_TEST_RING", "none", 1);
	_exit(act_main(&cfg, ((struct tu_ringless_run *)arg)->fn, NULL) == 0 ?
		      0 :
		      1);
}

static inline void tu_run_ringless(void (*fn)(void *), struct tu_child *c)
{
	struct tu_ringless_run r = { fn };

	tu_run_child(tu_ringless_child, &r, c);
	/* 2 workers: on a 1-CPU machine the plan says so */
	tu_drop_lines_with(c->err, TU_FEW_CPUS_NOTE);
}

/* The number of values in a test's local array `bad`. */
#define TU_N_BAD (sizeof(bad) / sizeof(bad[0]))

/* tu_assert_env_refused's child: var=value, then act_main on 2 workers. */
struct tu_env_case {
	const char *var, *value;
};

static inline void tu_env_nop(void *arg)
{
	(void)arg;
}

static inline void tu_env_child(void *arg)
{
	const struct tu_env_case *ec = arg;
	struct act_config cfg = tu_with_workers(2);

	setenv(ec->var, ec->value, 1);
	_exit(act_main(&cfg, tu_env_nop, NULL) == -EINVAL ? 0 : 1);
}

/*
 * Each of the n bad values of environment variable var makes act_main
 * return -EINVAL, with one line on stderr that names var="value".
 */
static inline unsigned tu_assert_env_refused(const char *var,
					     const char *const *bad, unsigned n)
{
	struct tu_env_case ec = { var, NULL };
	struct tu_child c;
	char want[128];
	unsigned i;

	for (i = 0; i < n; i++) {
		ec.value = bad[i];
		tu_run_child(tu_env_child, &ec, &c);
		tu_drop_lines_with(c.err, TU_FEW_CPUS_NOTE); /* 1-CPU machine */
		ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
			      "%s=\"%s\": status %#x", var, bad[i], c.status);
		snprintf(want, sizeof(want), "%s=\"%s\"", var, bad[i]);
		ck_assert_msg(strstr(c.err, want), "%s: stderr: %s", want,
			      c.err);
		ck_assert_int_eq(tu_str_lines(c.err), 1);
	}
	return i; /* values checked */
}

/* Entries of a /proc directory, less . and .., or -1 if it won't open */
static inline int tu_dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static inline int tu_count_entries(const char *dir)
{
	int n = tu_dir_entries(dir);

	ck_assert_int_ge(n, 0);
	return n;
}

/* The fewest entries of /proc/self/task over up to 100 ms, done early
 * at `enough`: a joined thread leaves /proc only after its last steps in
 * the kernel, slower under TSan, and under qemu-user later still (its
 * host thread ends after the guest's join has returned); a thread left
 * behind is in every sample. */
static inline int tu_tasks_settled(int enough)
{
	int i, n, least = -1;

	for (i = 0; i < 20; i++) {
		n = tu_count_entries("/proc/self/task");
		if (least < 0 || n < least)
			least = n;
		if (least <= enough)
			break;
		usleep(5000);
	}
	return least;
}

#if TU_UNDER_TSAN
static inline void *tu_tsan_nop(void *arg)
{
	return arg;
}
#else
/* The threads this OS process had before any test ran: the main thread,
 * and under qemu-user (scripts/check-aarch64.sh) one of qemu's own, which
 * it also starts in the child of a fork. Counted before main. */
static int tu_start_tasks = 1;

__attribute__((constructor)) static void tu_count_start_tasks(void)
{
	int n = tu_dir_entries("/proc/self/task");

	if (n > 0)
		tu_start_tasks = n;
}
#endif

/*
 * Threads of this OS process, less those it had before any test ran
 * (tu_start_tasks): 1 when the runtime has left none behind. Under TSan,
 * less TSan's own: a background thread started at the first
 * pthread_create, and (clang's runtime) another one started in the child
 * of a fork. They are counted at the first call, which must come while no
 * other thread runs: after a dummy thread has made sure the first kind
 * exists.
 */
static inline int tu_count_tasks(void)
{
#if TU_UNDER_TSAN
	static int tsan_own = -1;
	pthread_t t;

	if (tsan_own < 0) {
		ck_assert_int_eq(pthread_create(&t, NULL, tu_tsan_nop, NULL),
				 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		tsan_own = tu_tasks_settled(0) - 1;
	}
	return tu_tasks_settled(tsan_own + 1) - tsan_own;
#else
	return tu_tasks_settled(tu_start_tasks) - (tu_start_tasks - 1);
#endif
}

/*
 * Check has no skip: a case that cannot run in this build is left out of
 * the suite, and a line "SKIP: <case> (<why>)" in the test's log says so
 * (scripts/summary.sh lists them). Use in place of tcase_add_test.
 */
#define tu_add_test_unless(cond, why, tc, fn)                    \
	do {                                                     \
		if (cond) {                                      \
			printf("SKIP: %s (%s)\n", #fn, why);     \
			fflush(stdout); /* before Check forks */ \
		} else {                                         \
			tcase_add_test(tc, fn);                  \
		}                                                \
	} while (0)

#endif /* ACT_TESTRT_H */
