/* SPDX-License-Identifier: MIT */
/*
 * systematic.c - the seeded one-at-a-time scheduler (systematic.h).
 *
 * The turn: each participant has a futex word `go`; the holder, at a
 * switch point, draws the next among the eligible participants and, if
 * it is another, stores 1 in that one's `go`, wakes it, and waits on its
 * own. Everything in `S` is read and written by the holder alone (the
 * store of `go` and the load that ends the wait are the release and
 * acquire that pass it on), except `on` and the clock, which any thread
 * may read. This file's own atomics are the compiler's __atomic built-ins
 * on plain words: sysatomic.h's wrappers (which call act__systematic_point)
 * wrap the C11 names only.
 */
#include "config.h"

#if ACT_SYSTEMATIC

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "systematic.h"

enum { T_FREE, T_RUN, T_WAIT, T_DONE };

struct sys_thread {
	uint32_t go;	 /* futex: 1 when the turn is this one's */
	uint32_t asleep; /* 1: in FUTEX_WAIT on go (its waker must wake) */
	uint32_t left; /* 1 once it has left (act__systematic_join waits on it) */
	int state;
	uint32_t *w[2]; /* a wait's words (w[1] NULL: one) and values */
	uint32_t seen[2];
	int64_t deadline; /* logical; INT64_MAX: none */
	bool poll;
	char name[16];
};

static struct {
	uint64_t seed, rng;
	int n;	 /* participants so far (indexes 0..n-1) */
	int cur; /* the one holding the turn */
	uint64_t points, switches, hash, jumps, naps;
	struct sys_thread t[ACT_SYS_MAX];
} S;

bool act__systematic_on;
/* the clock: written by the holder, read by anyone (relaxed) */
static int64_t sys_clock;
/* the caller's participant number + 1; 0: not one. Read and written
 * only here, in functions that do not switch a process's stack; those
 * called from a process's code are noinline, so that no caller (an LTO
 * build's) keeps its address across a switch (I8) */
static __thread int sys_me;

/* spin.h's act__spin_relax passes the turn in this build: the hint alone */
static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

static void futex(uint32_t *w, int op, uint32_t v)
{
	syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

/* The turn is n's: as sleep_idle's doorbell, a Dekker pair (seq_cst
 * both sides) with take_turn's announcement, so that a holder spinning
 * for it costs no FUTEX_WAKE. */
static void give_turn(int n)
{
	/* seq_cst: the store half, then the load of asleep; a release
	 * too, which pairs with take_turn's acquire loads of go */
	__atomic_store_n(&S.t[n].go, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&S.t[n].asleep, __ATOMIC_SEQ_CST))
		futex(&S.t[n].go, FUTEX_WAKE_PRIVATE, 1);
}

/* Wait for the turn: a short spin (the next holder is often on the
 * other CPU at once), then FUTEX_WAIT. */
static void take_turn(int n)
{
	struct sys_thread *t = &S.t[n];
	int i;

	for (i = 0; i < 4000; i++) {
		/* acquire: pairs with give_turn's store */
		if (__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
			goto taken;
		cpu_relax();
	}
	/* seq_cst: the announcement, then the re-check (give_turn) */
	__atomic_store_n(&t->asleep, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&t->go, __ATOMIC_SEQ_CST))
		futex(&t->go, FUTEX_WAIT_PRIVATE, 0);
	__atomic_store_n(&t->asleep, 0, __ATOMIC_RELAXED);
taken:
	__atomic_store_n(&t->go, 0, __ATOMIC_RELAXED);
}

static uint64_t draw(void)
{
	uint64_t x = S.rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	S.rng = x;
	return x;
}

static int64_t now(void)
{
	return __atomic_load_n(&sys_clock, __ATOMIC_RELAXED);
}

static void set_now(int64_t t)
{
	/* relaxed: readers want a value, not an order (act__systematic_now) */
	__atomic_store_n(&sys_clock, t, __ATOMIC_RELAXED);
}

static bool moved(const struct sys_thread *t)
{
	int i;

	for (i = 0; i < 2 && t->w[i]; i++)
		/* relaxed: the holder's view; whoever stored it held the
		 * turn before, and the turn's release/acquire orders it */
		if (__atomic_load_n(t->w[i], __ATOMIC_RELAXED) != t->seen[i])
			return true;
	return false;
}

static void report_stuck(void)
{
	int i;

	fprintf(stderr,
		"actors: systematic run: every thread waits and nothing is "
		"due (a lost wakeup or a deadlock), after %" PRIu64
		" points; rerun with ACTORS_SEED=%" PRIu64 "\n",
		S.points, S.seed);
	for (i = 0; i < S.n; i++) {
		const struct sys_thread *t = &S.t[i];

		if (t->state != T_WAIT)
			continue;
		fprintf(stderr, "actors:   %s waits on %p (%" PRIu32 ")%s\n",
			t->name, (void *)t->w[0], t->seen[0],
			t->w[1] ? " and another word" : "");
	}
	abort();
}

/*
 * The next holder: uniform among the eligible (running; waiting with a
 * word moved or the deadline passed; polling), `me` left out when
 * others_first and another is eligible. None but pollers: the clock
 * jumps to the first deadline. None at all: real time for outsiders
 * (threads that are not participants, the kernel) to move a word, then
 * report_stuck.
 */
static int pick(int me, bool others_first)
{
	static int elig[ACT_SYS_MAX];
	int grace = 0;

	for (;;) {
		int ne = 0, firm = 0, i, self = -1;
		int64_t first = INT64_MAX, t_now = now();

		for (i = 0; i < S.n; i++) {
			struct sys_thread *t = &S.t[i];
			bool ok = t->state == T_RUN;

			if (t->state == T_WAIT) {
				ok = moved(t) || t->deadline <= t_now;
				if (t->deadline < first)
					first = t->deadline;
			}
			if (ok)
				firm++;
			if (ok || (t->state == T_WAIT && t->poll)) {
				if (i == me)
					self = ne;
				elig[ne++] = i;
			}
		}
		if (!firm && first != INT64_MAX) {
			/* everyone waits: the next deadline is now */
			set_now(first > t_now ? first : t_now);
			S.jumps++;
			continue;
		}
		if (!ne) {
			struct timespec ms = { 0, 1000000 };

			/* 2 s of real time for an outsider's wake (a
			 * blocking pool's thread on a loaded machine),
			 * within the stress programs' 5 s stall check */
			if (++grace > 2000)
				report_stuck();
			S.naps++;
			nanosleep(&ms, NULL);
			continue;
		}
		/* the caller goes on, but at one point in
		 * ACT_SYS_SWITCH_ONE_IN (never at a yield) */
		if (self >= 0 && (ne == 1 || (!others_first &&
					      draw() % ACT_SYS_SWITCH_ONE_IN)))
			return me;
		if (self >= 0) {
			elig[self] = elig[ne - 1];
			ne--;
		}
		return elig[draw() % (uint64_t)ne];
	}
}

/* The turn to `next`; the caller (me, or -1: it left) then waits for its
 * own, unless it left. */
static void hand(int me, int next)
{
	S.switches++;
	S.hash =
		(S.hash ^ (S.points << 11 | (uint64_t)next)) * 0x100000001b3ull;
	S.cur = next;
	/* the holder's writes, S's included, go with the turn */
	give_turn(next);
	if (me >= 0)
		take_turn(me);
}

static void step(int me, bool others_first)
{
	int next;

	S.points++;
	set_now(now() + ACT_SYS_QUANTUM_NS);
	next = pick(me, others_first);
	if (next != me)
		hand(me, next);
}

__attribute__((noinline)) void act__systematic_point(void)
{
	int me = sys_me - 1;

	if (me >= 0)
		step(me, false);
}

__attribute__((noinline)) void act__systematic_yield(void)
{
	int me = sys_me - 1;

	if (me >= 0)
		step(me, true);
}

int64_t act__systematic_now(void)
{
	return now();
}

uint64_t act__systematic_seed(void)
{
	return __atomic_load_n(&act__systematic_on, __ATOMIC_RELAXED) ? S.seed :
									0;
}

__attribute__((noinline)) bool
act__systematic_wait(_Atomic uint32_t *a, uint32_t seen_a, _Atomic uint32_t *b,
		     uint32_t seen_b, int64_t timeout_ns, bool poll)
{
	int me = sys_me - 1;
	struct sys_thread *t;

	if (me < 0)
		return false;
	t = &S.t[me];
	t->w[0] = (uint32_t *)a;
	t->seen[0] = seen_a;
	t->w[1] = (uint32_t *)b;
	t->seen[1] = seen_b;
	t->deadline = timeout_ns < 0 ? INT64_MAX : now() + timeout_ns;
	t->poll = poll;
	t->state = T_WAIT;
	step(me, false);
	t->state = T_RUN;
	t->w[0] = t->w[1] = NULL;
	return true;
}

int act__systematic_begin(uint64_t seed)
{
	if (__atomic_load_n(&act__systematic_on, __ATOMIC_RELAXED))
		return -EINVAL;
	memset(&S, 0, sizeof(S));
	S.seed = seed;
	/* xorshift's state is never 0; the seed spread first (splitmix) */
	S.rng = (seed + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	S.rng = (S.rng ^ (S.rng >> 31)) | 1;
	S.hash = 0xcbf29ce484222325ull;
	S.n = 1;
	S.cur = 0;
	S.t[0].state = T_RUN;
	snprintf(S.t[0].name, sizeof(S.t[0].name), "main");
	set_now(ACT_SYS_CLOCK0);
	sys_me = 1;
	/* release: the state above before anyone who sees the run on */
	__atomic_store_n(&act__systematic_on, true, __ATOMIC_RELEASE);
	return 0;
}

void act__systematic_end(void)
{
	if (sys_me != 1)
		return;
	fprintf(stderr,
		"actors: systematic run ACTORS_SEED=%" PRIu64 ": %d threads, "
		"%" PRIu64 " points, %" PRIu64 " switches, %" PRIu64
		" clock jumps, %" PRIu64 " naps for outsiders, %.3f ms of "
		"logical time, path %016" PRIx64 "\n",
		S.seed, S.n, S.points, S.switches, S.jumps, S.naps,
		(double)(now() - ACT_SYS_CLOCK0) / 1e6, S.hash);
	sys_me = 0;
	__atomic_store_n(&act__systematic_on, false, __ATOMIC_RELAXED);
}

int act__systematic_thread_new(const char *name)
{
	int n;

	if (sys_me <= 0)
		return -1;
	if (S.n == ACT_SYS_MAX) {
		fprintf(stderr,
			"actors: systematic run: more than %d threads\n",
			ACT_SYS_MAX);
		abort();
	}
	n = S.n++;
	memset(&S.t[n], 0, sizeof(S.t[n]));
	S.t[n].state = T_RUN;
	snprintf(S.t[n].name, sizeof(S.t[n].name), "%s", name);
	return n;
}

void act__systematic_enter(int n)
{
	if (n < 0)
		return;
	sys_me = n + 1;
	take_turn(n);
}

void act__systematic_thread_gone(int n)
{
	if (n < 0)
		return;
	S.t[n].state = T_DONE;
	S.t[n].left = 1;
}

void act__systematic_exit(void)
{
	int me = sys_me - 1;

	if (me < 0)
		return;
	S.t[me].state = T_DONE;
	__atomic_store_n(&S.t[me].left, 1, __ATOMIC_RELAXED);
	sys_me = 0;
	hand(-1, pick(-1, false));
}

void act__systematic_join(int n)
{
	if (n < 0 || sys_me <= 0)
		return;
	while (!__atomic_load_n(&S.t[n].left, __ATOMIC_RELAXED))
		act__systematic_wait((_Atomic uint32_t *)&S.t[n].left, 0, NULL,
				     0, -1, false);
}

#endif /* ACT_SYSTEMATIC */
