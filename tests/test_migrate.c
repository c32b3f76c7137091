/* SPDX-License-Identifier: MIT */
/*
 * test_migrate.c - a process that resumes on another worker thread is
 * still itself (I8).
 *
 * Any switch may end on another thread: under ACTORS_WAKE=waker a woken
 * process moves to the waker's worker, and work stealing moves queued
 * ones. Runtime code must therefore never keep the address of a __thread
 * variable, or a worker pointer read from one, across a switch. This program
 * forces thousands of migrations and, after every call that can switch
 * (receive, yield, send, spawn), checks in the process that moved:
 *
 *  - act_self() is still the pid the process had;
 *  - act_worker(), and the library's own accessor act__tls_worker_self(),
 *    name the worker whose thread really runs it, found without the
 *    runtime's TLS: pthread_self() compared with the threads act_main
 *    started (thread_worker);
 *  - that worker's current process is this one;
 *  - values pinned in callee-saved registers, values the compiler keeps
 *    where it likes, a volatile local, the process's own rounding mode
 *    (every process here is spawned with ACT_SPAWN_FPENV) and a
 *    floating-point sum carried over many switches are unchanged.
 *
 * Each run counts the migrations it saw (the thread changed between two
 * checks) and fails if there were none, so it cannot pass vacuously.
 *
 * tests.am builds it twice: tests/test_migrate at -O2 against
 * libactors_core, and tests/test_migrate_lto at -O2 -flto against
 * tests/libactors_lto, the same library sources compiled with -flto. In
 * the second, link-time optimisation inlines act_self(), act_worker(),
 * act_yield() (down to the call of the context switch) and most of
 * act_send() into the loops below, so a worker the compiler were allowed
 * to reuse across the switch would be reused here, and the checks would
 * see the old one.
 */
#include <fenv.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testrt.h"

#if defined(__clang__)
#define OPAQUE __attribute__((noinline))
#else
#define OPAQUE __attribute__((noinline, noipa))
#endif
#define ALWAYS_INLINE inline __attribute__((always_inline))

#define MAX_WORKERS 4
#define BOUNCERS_PER_WORKER 2
#define BOUNCE_ROUNDS 2000
#define POKERS_PER_WORKER 2

enum {
	T_WHERE = 1, /* poker to main: I run */
	T_POKE,	     /* bouncer to poker */
	T_BACK,	     /* poker to bouncer, from the poker's worker */
	T_QUIT,	     /* main to poker */
	T_BYE,	     /* poker to main, as it exits */
	T_DONE,	     /* bouncer to main */
};

/* What a check can find wrong. */
enum {
	C_PID,	    /* act_self() */
	C_WORKER,   /* act_worker() against the thread */
	C_ACCESSOR, /* act__tls_worker_self()->index against the thread */
	C_CURRENT,  /* act__tls_worker_self()->current */
	C_REGS,	    /* values pinned in callee-saved registers */
	C_LIVE,	    /* values live across the call, anywhere */
	C_VOLATILE, /* a volatile local */
	C_FLOAT,    /* rounding mode, divisions, a sum over many switches */
	C_MSG,	    /* a message from the wrong process or with a wrong tag */
	C_NCHECK
};

static const char *const check_name[C_NCHECK] = {
	"act_self",
	"act_worker",
	"act__tls_worker_self",
	"current",
	"callee-saved registers",
	"live values",
	"volatile local",
	"floating point",
	"message",
};

enum { R_MAIN, R_POKER, R_BOUNCER, R_NROLE };

struct mig_run {
	pthread_t thread0; /* the thread that called act_main: worker 0 */
	int nworkers, seen_workers;
	act_pid main;
	act_pid poker[POKERS_PER_WORKER * MAX_WORKERS];
	_Atomic int poker_at[POKERS_PER_WORKER * MAX_WORKERS];
	_Atomic unsigned poker_workers; /* workers pokers were seen on */
	int npokers, nbouncers;
	_Atomic long checks;
	_Atomic long bad[C_NCHECK];
	_Atomic long moves[R_NROLE];
	_Atomic int failed;
	char why[256]; /* the first failure, written by whoever failed */
};

static struct mig_run run;

/* ---- ground truth --------------------------------------------------------
 * The worker whose thread runs the caller, found without the runtime's
 * TLS: worker 0 is the thread that called act_main, worker i >= 1 the
 * thread act_main created for it. glibc declares pthread_self() const, so
 * the compiler may reuse its result within a function even across a
 * switch; kept out of line and opaque, every call asks again. */
static OPAQUE int thread_worker(void)
{
	struct act__rt *rt = act__rt_current;
	pthread_t me;
	uint32_t i;

	__asm__ volatile("" ::: "memory");
	me = pthread_self();
	if (pthread_equal(me, run.thread0))
		return 0;
	for (i = 1; i < rt->nworkers; i++)
		if (pthread_equal(me, rt->workers[i].thread))
			return (int)i;
	return -1;
}

static OPAQUE uint64_t mix(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ull + 1;
}

/* Three divisions whose results tell the four rounding modes apart
 * (rounding_modes_differ checks that they do). */
struct fp_print {
	double a, b, c;
};

static void fp_print(struct fp_print *f)
{
	volatile double one = 1.0, three = 3.0, ten = 10.0;

	f->a = one / three;  /* up apart; nearest rounds it down */
	f->b = -one / three; /* down apart */
	f->c = one / ten;    /* nearest rounds it up, zero down */
}

static bool fp_same(const struct fp_print *x, const struct fp_print *y)
{
	return !memcmp(x, y, sizeof(*x));
}

static const int modes[4] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD,
			      FE_TOWARDZERO };

/* 1/1 + 1/2 + ... + 1/n under the current rounding mode, no switch. */
static OPAQUE double harmonic(int n)
{
	volatile double one = 1.0;
	double s = 0;
	int i;

	for (i = 1; i <= n; i++)
		s += one / (double)i;
	return s;
}

/* ---- what each process carries and checks --------------------------------
 */
struct probe {
	act_pid pid;
	int where; /* thread_worker() at the last check */
	int role;
	int mode;	    /* this process's rounding mode */
	struct fp_print fp; /* taken under it, before any switch */
	uint64_t seed;
	long at;    /* switch points passed */
	long moves; /* thread changes seen */
	/* what the last probe_check read, for the failure message */
	int seen_thread, seen_worker, seen_accessor;
	uint64_t seen_pid;
};

static void probe_init(struct probe *p, int role, int mode)
{
	memset(p, 0, sizeof(*p));
	fesetround(mode);
	p->pid = act_self();
	p->where = thread_worker();
	p->role = role;
	p->mode = mode;
	fp_print(&p->fp);
	p->seed = p->pid.id * 0x2545f4914f6cdd1dull + (uint64_t)mode;
}

static OPAQUE void probe_fail(struct probe *p, int what, const char *where)
{
	atomic_fetch_add(&run.bad[what], 1);
	if (atomic_exchange(&run.failed, 1))
		return;
	snprintf(run.why, sizeof(run.why),
		 "%s wrong after %s (pid %llu, role %d, switch point %ld; "
		 "last check: thread of worker %d, act_worker %d, "
		 "act__tls_worker_self %d, act_self %llu)",
		 check_name[what], where, (unsigned long long)p->pid.id,
		 p->role, p->at, p->seen_thread, p->seen_worker,
		 p->seen_accessor, (unsigned long long)p->seen_pid);
}

static ALWAYS_INLINE void probe_note(struct probe *p, int what, bool bad,
				     const char *where)
{
	if (act__unlikely(bad))
		probe_fail(p, what, where);
}

/* Who and where am I, now; inlined into the loops so that the library
 * calls it makes sit next to the switch they must not be cached across. */
static ALWAYS_INLINE void probe_check(struct probe *p, const char *at)
{
	struct act__worker *w = act__tls_worker_self();
	struct fp_print fp;
	int truth = thread_worker();

	p->seen_thread = truth;
	p->seen_worker = act_worker();
	p->seen_accessor = w ? (int)w->index : -1;
	p->seen_pid = act_self().id;
	probe_note(p, C_PID, p->seen_pid != p->pid.id, at);
	probe_note(p, C_WORKER, p->seen_worker != truth, at);
	probe_note(p, C_ACCESSOR, p->seen_accessor != truth, at);
	probe_note(p, C_CURRENT, !w || w->current != tu_lookup(p->pid), at);
	fp_print(&fp);
	probe_note(p, C_FLOAT, fegetround() != p->mode || !fp_same(&fp, &p->fp),
		   at);
	p->moves += truth != p->where;
	p->where = truth;
}

/* The process's counts into the run's, as it ends. */
static void probe_done(struct probe *p)
{
	atomic_fetch_add(&run.checks, p->at);
	atomic_fetch_add(&run.moves[p->role], p->moves);
}

/*
 * Values pinned in callee-saved registers around a call that can switch:
 * each is in its register when the first empty asm hands it over and must
 * be there, unchanged, when the second takes it back. Only the context
 * switch (ctx.S) and whatever it resumes run in between.
 */
#define PIN_K(i) (0x0101010101010101ull * (0x11u * (i) + 0x3u))
#if defined(__x86_64__)
#define PIN_DECL(s)                                             \
	register uint64_t pin0 __asm__("rbx") = (s) ^ PIN_K(0); \
	register uint64_t pin1 __asm__("r12") = (s) ^ PIN_K(1); \
	register uint64_t pin2 __asm__("r13") = (s) ^ PIN_K(2); \
	register uint64_t pin3 __asm__("r14") = (s) ^ PIN_K(3); \
	register uint64_t pin4 __asm__("r15") = (s) ^ PIN_K(4)
#define PIN_HOLD()                                                         \
	__asm__ volatile(""                                                \
			 : "+r"(pin0), "+r"(pin1), "+r"(pin2), "+r"(pin3), \
			   "+r"(pin4))
#define PIN_BAD(s)                                               \
	(pin0 != ((s) ^ PIN_K(0)) || pin1 != ((s) ^ PIN_K(1)) || \
	 pin2 != ((s) ^ PIN_K(2)) || pin3 != ((s) ^ PIN_K(3)) || \
	 pin4 != ((s) ^ PIN_K(4)))
#elif defined(__aarch64__)
#define PIN_DECL(s)                                                 \
	register uint64_t pin0 __asm__("x19") = (s) ^ PIN_K(0);     \
	register uint64_t pin1 __asm__("x20") = (s) ^ PIN_K(1);     \
	register uint64_t pin2 __asm__("x21") = (s) ^ PIN_K(2);     \
	register uint64_t pin3 __asm__("x22") = (s) ^ PIN_K(3);     \
	register uint64_t pin4 __asm__("x23") = (s) ^ PIN_K(4);     \
	register uint64_t pin5 __asm__("x24") = (s) ^ PIN_K(5);     \
	register double pinf0 __asm__("d8") = (double)((s) >> 12);  \
	register double pinf1 __asm__("d9") = (double)((s) >> 13);  \
	register double pinf2 __asm__("d14") = (double)((s) >> 14); \
	register double pinf3 __asm__("d15") = (double)((s) >> 15)
#define PIN_HOLD()                                                           \
	__asm__ volatile(""                                                  \
			 : "+r"(pin0), "+r"(pin1), "+r"(pin2), "+r"(pin3),   \
			   "+r"(pin4), "+r"(pin5), "+w"(pinf0), "+w"(pinf1), \
			   "+w"(pinf2), "+w"(pinf3))
#define PIN_BAD(s)                                                       \
	(pin0 != ((s) ^ PIN_K(0)) || pin1 != ((s) ^ PIN_K(1)) ||         \
	 pin2 != ((s) ^ PIN_K(2)) || pin3 != ((s) ^ PIN_K(3)) ||         \
	 pin4 != ((s) ^ PIN_K(4)) || pin5 != ((s) ^ PIN_K(5)) ||         \
	 pinf0 != (double)((s) >> 12) || pinf1 != (double)((s) >> 13) || \
	 pinf2 != (double)((s) >> 14) || pinf3 != (double)((s) >> 15))
#else
#define PIN_DECL(s) uint64_t pin_unused = (s)
#define PIN_HOLD() ((void)pin_unused)
#define PIN_BAD(s) false
#endif

/*
 * Run stmt, a runtime call that may switch and resume on another thread,
 * with register-pinned values, eight compiler-placed ones (more than the
 * callee-saved registers, so some live on the stack) and a volatile local
 * held across it; then check them all and the probe.
 */
#define SWITCH_POINT(p, stmt)                                            \
	do {                                                             \
		uint64_t s_ = (p)->seed = mix((p)->seed);                \
		volatile uint64_t vol_ = s_ ^ 0x5bd1e9955bd1e995ull;     \
		uint64_t l0_ = mix(s_), l1_ = mix(l0_), l2_ = mix(l1_),  \
			 l3_ = mix(l2_), l4_ = mix(l3_), l5_ = mix(l4_), \
			 l6_ = mix(l5_), l7_ = mix(l6_);                 \
		PIN_DECL(s_);                                            \
                                                                         \
		PIN_HOLD();                                              \
		stmt;                                                    \
		PIN_HOLD();                                              \
		probe_note((p), C_REGS, PIN_BAD(s_), #stmt);             \
		probe_note((p), C_LIVE,                                  \
			   l0_ != mix(s_) || l1_ != mix(l0_) ||          \
				   l2_ != mix(l1_) || l3_ != mix(l2_) || \
				   l4_ != mix(l3_) || l5_ != mix(l4_) || \
				   l6_ != mix(l5_) || l7_ != mix(l6_),   \
			   #stmt);                                       \
		probe_note((p), C_VOLATILE,                              \
			   vol_ != (s_ ^ 0x5bd1e9955bd1e995ull), #stmt); \
		(p)->at++;                                               \
		probe_check((p), #stmt);                                 \
	} while (0)

/* ---- the processes -------------------------------------------------------
 * Pokers poll and yield, never wait, so only stealing moves them, and
 * each publishes the worker it is on. A bouncer pokes, in turn, a poker
 * that is on another worker than its own; the reply wakes the bouncer
 * from there, and under ACTORS_WAKE=waker that moves the bouncer to the
 * poker's worker: about one migration per round, wherever placement and
 * stealing put the pokers, as long as they are not all on one worker. */

static bool tag_is(const struct act_msg *m, void *ctx)
{
	return m->tag == *(uint32_t *)ctx;
}

static void poker(void *arg)
{
	int k = (int)(intptr_t)arg, rc = 0;
	struct probe p;
	struct act_msg *m;
	uint32_t tag;
	act_pid from;

	probe_init(&p, R_POKER, FE_TOWARDZERO);
	atomic_store(&run.poker_at[k], p.where);
	SWITCH_POINT(&p, rc = act_send(run.main, T_WHERE, NULL, 0));
	probe_note(&p, C_MSG, rc != 0, "report");
	for (;;) {
		atomic_store_explicit(&run.poker_at[k], p.where,
				      memory_order_relaxed);
		if (p.where >= 0)
			atomic_fetch_or_explicit(&run.poker_workers,
						 1u << p.where,
						 memory_order_relaxed);
		SWITCH_POINT(&p, m = act_receive(0));
		if (!m) {
			/* and let the other workers' threads have the CPU:
			 * a round needs two of them on a small machine */
			sched_yield();
			SWITCH_POINT(&p, act_yield());
			continue;
		}
		tag = m->tag;
		from = m->from;
		act_msg_free(m);
		if (tag == T_QUIT)
			break;
		probe_note(&p, C_MSG, tag != T_POKE, "poke");
		SWITCH_POINT(&p, rc = act_send(from, T_BACK, NULL, 0));
		probe_note(&p, C_MSG, rc != 0, "reply");
	}
	probe_done(&p);
	SWITCH_POINT(&p, act_send(run.main, T_BYE, NULL, 0));
}

/* The next poker after *next that is on another worker than the caller,
 * or just the next one if none is. */
static int pick_poker(int *next)
{
	int here = thread_worker(), k, c = *next % run.npokers;

	for (k = 0; k < run.npokers; k++) {
		c = (*next + k) % run.npokers;
		if (atomic_load_explicit(&run.poker_at[c],
					 memory_order_relaxed) != here)
			break;
	}
	if (k == run.npokers)
		c = *next % run.npokers;
	*next = c + 1;
	return c;
}

static void bouncer(void *arg)
{
	int j = (int)(intptr_t)arg, next = j, i, rc = 0;
	volatile double one = 1.0;
	double sum = 0;
	struct probe p;
	struct act_msg *m;
	act_pid to;

	probe_init(&p, R_BOUNCER, modes[j % 4]);
	for (i = 0; i < BOUNCE_ROUNDS; i++) {
		to = run.poker[pick_poker(&next)];
		SWITCH_POINT(&p, rc = act_send(to, T_POKE, NULL, 0));
		probe_note(&p, C_MSG, rc != 0, "poke");
		SWITCH_POINT(&p, m = act_receive(ACT_FOREVER));
		probe_note(&p, C_MSG,
			   !m || m->tag != T_BACK || m->from.id != to.id,
			   "back");
		act_msg_free(m);
		sum += one / (double)(i + 1); /* carried across switches */
		SWITCH_POINT(&p, act_yield());
	}
	probe_note(&p, C_FLOAT, sum != harmonic(BOUNCE_ROUNDS), "the sum");
	probe_done(&p);
	SWITCH_POINT(&p, act_send(run.main, T_DONE, NULL, 0));
}

/* Main's receive of one tag, checked like any other. */
static void main_receive(struct probe *p, uint32_t tag)
{
	struct act_msg *m;

	SWITCH_POINT(p, m = act_receive_match(tag_is, &tag, ACT_FOREVER));
	probe_note(p, C_MSG, !m || m->tag != tag, "main's receive");
	act_msg_free(m);
}

static const struct act_spawn_opts fpenv = { .flags = ACT_SPAWN_FPENV };

/* The main role, in a process with a rounding mode of its own. */
static void mig_coord(void *arg)
{
	int k, nbouncers = BOUNCERS_PER_WORKER * run.nworkers;
	struct probe p;
	act_pid kid;

	probe_init(&p, R_MAIN, FE_UPWARD);
	run.main = p.pid;
	run.seen_workers = act_workers();
	for (k = 0; k < POKERS_PER_WORKER * run.nworkers; k++) {
		SWITCH_POINT(&p, kid = act_spawn_opt(poker, (void *)(intptr_t)k,
						     &fpenv));
		probe_note(&p, C_MSG, !kid.id, "poker spawn");
		if (!kid.id)
			break;
		run.poker[run.npokers++] = kid;
	}
	for (k = 0; k < run.npokers; k++)
		main_receive(&p, T_WHERE); /* every poker runs */
	for (k = 0; k < nbouncers && run.npokers; k++) {
		SWITCH_POINT(&p, kid = act_spawn_opt(
					 bouncer, (void *)(intptr_t)k, &fpenv));
		probe_note(&p, C_MSG, !kid.id, "bouncer spawn");
		run.nbouncers += kid.id != 0;
	}
	for (k = 0; k < run.nbouncers; k++)
		main_receive(&p, T_DONE);
	for (k = 0; k < run.npokers; k++)
		SWITCH_POINT(&p, act_send(run.poker[k], T_QUIT, NULL, 0));
	for (k = 0; k < run.npokers; k++)
		main_receive(&p, T_BYE);
	probe_done(&p);
}

/* act_main's process has its worker's floating-point state: the main
 * role runs in a child spawned with ACT_SPAWN_FPENV. */
static void mig_main(void *arg)
{
	struct act_spawn_opts o = { .flags = ACT_SPAWN_FPENV |
					     ACT_SPAWN_MONITOR };
	struct act_msg *m;

	ck_assert_uint_ne(act_spawn_opt(mig_coord, arg, &o).id, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	act_msg_free(m);
}

/* ---- the tests ---------------------------------------------------------- */

START_TEST(rounding_modes_differ)
{
	struct fp_print f[4];
	int i, k;

	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(fesetround(modes[i]), 0);
		fp_print(&f[i]);
	}
	fesetround(FE_TONEAREST);
	for (i = 0; i < 4; i++)
		for (k = i + 1; k < 4; k++)
			ck_assert_msg(!fp_same(&f[i], &f[k]),
				      "rounding modes %d and %d look alike", i,
				      k);
}
END_TEST

/* One run of _i's configuration: every check holds; the migrations. */
static long migrate_once(int i)
{
	struct act_config cfg;
	long moves, bad = 0;
	int k;

	memset(&run, 0, sizeof(run));
	run.nworkers = 2 + i % 3;
	run.thread0 = pthread_self();
	act_config_init(&cfg);
	cfg.schedulers = run.nworkers;
	cfg.reductions = i < 3 ? 0 : 3;
	ck_assert_int_eq(setenv("ACTORS_WAKE", "waker", 1), 0);
	ck_assert_int_eq(tu_run_main(&cfg, mig_main, NULL), 0);
	unsetenv("ACTORS_WAKE");

	for (k = 0; k < C_NCHECK; k++)
		bad += run.bad[k];
	moves = run.moves[R_MAIN] + run.moves[R_POKER] + run.moves[R_BOUNCER];
	printf("test_migrate: %d workers, reductions %d: %ld migrations "
	       "(bouncers %ld, pokers %ld, main %ld), pokers seen on workers "
	       "%#x, %ld checks, %ld failed\n",
	       run.nworkers, cfg.reductions, moves, (long)run.moves[R_BOUNCER],
	       (long)run.moves[R_POKER], (long)run.moves[R_MAIN],
	       run.poker_workers, (long)run.checks, bad);
	fflush(stdout);
	ck_assert_int_eq(run.seen_workers, run.nworkers);
	for (k = 0; k < C_NCHECK; k++)
		ck_assert_msg(run.bad[k] == 0,
			      "%ld %s checks failed; first: %s",
			      (long)run.bad[k], check_name[k], run.why);
	ck_assert_int_eq(run.npokers, POKERS_PER_WORKER * run.nworkers);
	ck_assert_int_eq(run.nbouncers, BOUNCERS_PER_WORKER * run.nworkers);
	ck_assert_int_gt(run.checks, 2L * BOUNCE_ROUNDS);
	return moves;
}

/*
 * _i: 0-2 with the default reductions, 3-5 with a forced yield every few
 * runtime calls, which adds switch points inside sends and spawns. The
 * checks mean something only if processes did move between workers,
 * which scheduling decides (on a loaded machine a run may see none): a
 * run without a move is run again, up to 10 times.
 */
START_TEST(migration_keeps_process_state)
{
	long moves = 0;
	int attempt;

	for (attempt = 1; attempt <= 10 && !moves; attempt++)
		moves = migrate_once(_i);
	ck_assert_msg(moves > 0, "no process moved in %d runs", attempt - 1);
}
END_TEST

static Suite *migrate_suite(void)
{
	Suite *s = suite_create("migrate");
	TCase *tc = tcase_create("migrate");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rounding_modes_differ);
	tcase_add_loop_test(tc, migration_keeps_process_state, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(migrate_suite());
}
