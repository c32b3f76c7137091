/* SPDX-License-Identifier: MIT */
/*
 * test_stack.c - process stacks (lib/mem/stack.c) and overflow reporting
 * (lib/sched/overflow.c): an overflow in each guard mode ends the OS process
 * with status 134 and one line naming the pid and the stack size; other
 * faults crash as they would without the runtime, or reach the program's
 * own handler; stacks are reused per worker; a million blocked processes
 * fit in vm.max_map_count; the mprotect budget falls back to canaries.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "testrt.h"

#include "node/runtime.h"
#include "mem/stack.h"
#include "sched/worker.h"

#if TU_UNDER_ASAN
/* ASan's own SIGSEGV handler would take the fault first; the runtime's
 * report and its chaining to the handler that was there are what these
 * cases test, so ASan leaves SIGSEGV alone here. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0";
}
#endif

/* What a forked child hands back (MAP_SHARED, made before the fork). */
struct shared {
	int rc;			       /* act_main's return */
	int mode;		       /* act__stack_guard_mode() inside */
	uint64_t pid;		       /* the process that overflows */
	char pid_text[ACT_PID_STRLEN]; /* and as act_pid_format has it */
	uint64_t stack_size; /* its stack_size, as the runtime has it */
	int returned;	     /* the overflowing code came back */
};

static struct shared *shared_map(void)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(sh, MAP_FAILED);
	sh->rc = 12345;
	return sh;
}

static void no_core(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

/* ---- overflow ----------------------------------------------------------- */

static volatile int stop_depth = -1;

/* Unbounded (stop_depth is never reached), not a tail call, ~270 B/frame. */
static act__noinline int recurse(int n)
{
	volatile char buf[256];

	buf[0] = (char)n;
	buf[sizeof(buf) - 1] = (char)n;
	if (n == stop_depth)
		return 0;
	return recurse(n + 1) + buf[n & 0xff];
}

enum ovf_how {
	OVF_RECURSE,	   /* unbounded recursion: hits the guard page */
	OVF_SMASH_CANARY,  /* overwrite the lowest stack words, then yield */
	OVF_RECURSE_BELOW, /* recurse to just below lo, return, then yield */
};

struct ovf_case {
	int guard;	      /* act_config.stack_guard */
	const char *env_size; /* ACTORS_STACK_SIZE, or NULL */
	size_t spawn_size;    /* act_spawn_opt stack size; 0: default */
	bool in_main;	      /* the main process overflows itself */
	enum ovf_how how;
	struct shared *sh;
};

static uintptr_t below_target;

/* Fill each frame completely until the frames reach below_target. Not
 * instrumented by ASan, which may keep a frame's array on a stack of its
 * own (its fake stack): the frames must be on the process's. */
static act__noinline __attribute__((no_sanitize_address)) int
recurse_below(int n)
{
	volatile unsigned char buf[256];
	unsigned i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(0xa5 ^ n);
	if ((uintptr_t)buf < below_target)
		return buf[7];
	return recurse_below(n + 1) + buf[n & 0xff];
}

static void overflow_now(struct ovf_case *oc)
{
	struct act__proc *p = tu_self_proc();

	oc->sh->pid = act_self().id;
	act_pid_format(act_self(), oc->sh->pid_text, sizeof(oc->sh->pid_text));
	oc->sh->stack_size = p->stack_size;
	oc->sh->mode = act__stack_guard_mode();
	switch (oc->how) {
	case OVF_RECURSE:
		recurse(0);
		break;
	case OVF_SMASH_CANARY:
		((volatile uint64_t *)p->stack_lo)[0] = 0;
		((volatile uint64_t *)p->stack_lo)[1] = 0;
		act_yield();
		break;
	case OVF_RECURSE_BELOW:
		/* the 4 KiB below lo is this stack's unit (its would-be
		 * guard), so going 512 B past lo hurts no one else */
		below_target = (uintptr_t)p->stack_lo - 512;
		recurse_below(0);
		act_yield();
		break;
	}
	oc->sh->returned = 1;
}

static void ovf_proc(void *arg)
{
	overflow_now(arg);
}

static void ovf_main(void *arg)
{
	struct ovf_case *oc = arg;
	struct act_spawn_opts o = { .stack_size = oc->spawn_size };

	if (oc->in_main) {
		overflow_now(oc);
		return;
	}
	ck_assert_uint_ne(act_spawn_opt(ovf_proc, oc, &o).id, 0);
	act_receive(ACT_FOREVER); /* nobody sends: waits for the crash */
}

static void ovf_child(void *arg)
{
	struct ovf_case *oc = arg;
	struct act_config cfg;

	no_core();
	unsetenv("ACTORS_STACK_SIZE");
	if (oc->env_size)
		setenv("ACTORS_STACK_SIZE", oc->env_size, 1);
	act_config_init(&cfg);
	cfg.stack_guard = oc->guard;
	oc->sh->rc = act_main(&cfg, ovf_main, oc);
}

/* Run the case; false when the guard mode is not supported (skipped). */
static bool check_overflow(struct ovf_case oc, uint64_t want_size)
{
	struct tu_child c;
	char want[160];

	oc.sh = shared_map();
	tu_run_child(ovf_child, &oc, &c);
	if (oc.sh->rc == -EOPNOTSUPP) {
		printf("SKIP: guard mode %d not supported by this kernel\n",
		       oc.guard);
		munmap(oc.sh, sizeof(*oc.sh));
		return false;
	}
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 134,
		      "guard %d: status %#x (rc %d), stderr: %s", oc.guard,
		      c.status, oc.sh->rc, c.err);
	ck_assert_int_eq(oc.sh->returned, 0);
	ck_assert_uint_ne(oc.sh->pid, 0);
	if (oc.guard != ACT_GUARD_AUTO)
		ck_assert_int_eq(oc.sh->mode, oc.guard);
	ck_assert_uint_eq(oc.sh->stack_size, want_size);
	snprintf(want, sizeof(want),
		 "actors: stack overflow in process %s "
		 "(stack size %llu bytes)\n",
		 oc.sh->pid_text, (unsigned long long)want_size);
	ck_assert_msg(strcmp(c.err, want) == 0,
		      "stderr \"%s\", expected \"%s\"", c.err, want);
	munmap(oc.sh, sizeof(*oc.sh));
	return true;
}

START_TEST(overflow_madvise)
{
	struct ovf_case oc = { .guard = ACT_GUARD_MADVISE };

	if (check_overflow(oc, 65536)) { /* false: kernel without guards */
		oc.in_main = true;
		ck_assert(check_overflow(oc, 65536));
	}
}
END_TEST

START_TEST(overflow_mprotect)
{
	struct ovf_case oc = { .guard = ACT_GUARD_MPROTECT };

	ck_assert(check_overflow(oc, 65536));
	oc.in_main = true;
	ck_assert(check_overflow(oc, 65536));
}
END_TEST

START_TEST(overflow_auto)
{
	struct ovf_case oc = { .guard = ACT_GUARD_AUTO };

	ck_assert(check_overflow(oc, 65536));
}
END_TEST

START_TEST(overflow_canary_smashed)
{
	struct ovf_case oc = { .guard = ACT_GUARD_CANARY,
			       .how = OVF_SMASH_CANARY };

	ck_assert(check_overflow(oc, 65536));
	oc.in_main = true;
	ck_assert(check_overflow(oc, 65536));
}
END_TEST

START_TEST(overflow_canary_recursion)
{
	struct ovf_case oc = { .guard = ACT_GUARD_CANARY,
			       .how = OVF_RECURSE_BELOW };

	ck_assert(check_overflow(oc, 65536));
}
END_TEST

START_TEST(overflow_env_16k)
{
	struct ovf_case oc = { .guard = ACT_GUARD_AUTO, .env_size = "16k" };

	ck_assert(check_overflow(oc, 16384));
	oc.guard = ACT_GUARD_MPROTECT;
	ck_assert(check_overflow(oc, 16384));
	oc.guard = ACT_GUARD_CANARY;
	oc.how = OVF_SMASH_CANARY;
	ck_assert(check_overflow(oc, 16384));
}
END_TEST

START_TEST(overflow_spawn_opt_size)
{
	struct ovf_case oc = { .guard = ACT_GUARD_AUTO, .spawn_size = 20000 };

	ck_assert(check_overflow(oc, 20480)); /* rounded to pages */
	oc.spawn_size = 1 << 20;
	ck_assert(check_overflow(oc, 1 << 20));
}
END_TEST

/* ---- other faults are not ours ------------------------------------------ */

static volatile int *volatile null_ptr;

static void null_write_proc(void *arg)
{
	struct shared *sh = arg;

	sh->pid = act_self().id;
	*null_ptr = 1;
	sh->returned = 1;
}

static void null_write_main(void *arg)
{
	ck_assert_uint_ne(act_spawn(null_write_proc, arg).id, 0);
	act_receive(ACT_FOREVER);
}

struct null_case {
	int guard;
	struct shared *sh;
};

static void null_child(void *arg)
{
	struct null_case *nc = arg;
	struct act_config cfg;

	no_core();
	act_config_init(&cfg);
	cfg.stack_guard = nc->guard;
	nc->sh->rc = act_main(&cfg, null_write_main, nc->sh);
}

START_TEST(null_write_crashes)
{
	static const int modes[] = { ACT_GUARD_AUTO, ACT_GUARD_MPROTECT,
				     ACT_GUARD_CANARY };
	unsigned i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct null_case nc = { modes[i], shared_map() };
		struct tu_child c;

		tu_run_child(null_child, &nc, &c);
		ck_assert_msg(WIFSIGNALED(c.status) &&
				      WTERMSIG(c.status) == SIGSEGV,
			      "guard %d: status %#x, stderr: %s", modes[i],
			      c.status, c.err);
		ck_assert_uint_ne(nc.sh->pid, 0); /* it did run */
		ck_assert_int_eq(nc.sh->returned, 0);
		ck_assert_msg(!strstr(c.err, "stack overflow"),
			      "guard %d: stderr: %s", modes[i], c.err);
		munmap(nc.sh, sizeof(*nc.sh));
	}
}
END_TEST

static void on_segv_plain(int sig)
{
	(void)sig;
	_exit(42);
}

static void on_segv_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	_exit(si->si_addr == NULL ? 43 : 44);
}

static void noop_main(void *arg)
{
	(void)arg;
}

struct chain_case {
	bool siginfo;
	bool after_main; /* fault after act_main has returned */
	struct shared *sh;
};

static void chain_child(void *arg)
{
	struct chain_case *cc = arg;
	struct sigaction sa;

	no_core();
	memset(&sa, 0, sizeof(sa));
	if (cc->siginfo) {
		sa.sa_sigaction = on_segv_info;
		sa.sa_flags = SA_SIGINFO;
	} else {
		sa.sa_handler = on_segv_plain;
	}
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
	if (cc->after_main) {
		cc->sh->rc = act_main(NULL, noop_main, NULL);
		*null_ptr = 1;
		return;
	}
	cc->sh->rc = act_main(NULL, null_write_main, cc->sh);
}

START_TEST(own_handler_chained)
{
	static const struct {
		bool siginfo, after;
		int want;
	} cases[] = {
		{ false, false, 42 },
		{ true, false, 43 },
		{ false, true, 42 },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct chain_case cc = { cases[i].siginfo, cases[i].after,
					 shared_map() };
		struct tu_child c;

		tu_run_child(chain_child, &cc, &c);
		ck_assert_msg(WIFEXITED(c.status) &&
				      WEXITSTATUS(c.status) == cases[i].want,
			      "case %u: status %#x, stderr: %s", i, c.status,
			      c.err);
		if (cases[i].after)
			ck_assert_int_eq(cc.sh->rc, 0);
		else
			ck_assert_uint_ne(cc.sh->pid, 0);
		ck_assert(!strstr(c.err, "stack overflow"));
		munmap(cc.sh, sizeof(*cc.sh));
	}
}
END_TEST

/* ---- spawning from the smallest stack ----------------------------------- */

/*
 * A process may have the smallest stack the runtime accepts (16 KiB) and
 * still spawn: growing a stack pool (mmap + guards) runs on the spawning
 * process's stack, so it must fit in a small part of 16 KiB.
 */
struct small_case {
	int guard;
	size_t child_size; /* 0: the runtime's (16 KiB here) */
	int n;		   /* children to spawn */
	struct shared *sh;
};

static void small_child(void *arg)
{
	ck_assert_int_eq(act_send(*(act_pid *)arg, 1, NULL, 0), 0);
}

static void small_main(void *arg)
{
	struct small_case *sc = arg;
	struct act_spawn_opts o = { .stack_size = sc->child_size };
	act_pid me = act_self();
	int i;

	sc->sh->pid = me.id;
	for (i = 0; i < sc->n; i++)
		if (!act_spawn_opt(small_child, &me, &o).id)
			ck_abort_msg("spawn %d failed", i);
	for (i = 0; i < sc->n; i++) {
		act_msg_free(act_receive(ACT_FOREVER));
		sc->sh->returned++;
	}
}

static void small_child_main(void *arg)
{
	struct small_case *sc = arg;
	struct act_config cfg;

	no_core();
	act_config_init(&cfg);
	cfg.stack_size = 16384;
	cfg.stack_guard = sc->guard;
	sc->sh->rc = act_main(&cfg, small_main, sc);
}

START_TEST(spawn_from_16k_stack)
{
	static const struct {
		int guard;
		size_t child_size;
		int n;
	} cases[] = {
		{ ACT_GUARD_AUTO, 32768, 1 }, /* a new pool at once */
		{ ACT_GUARD_MPROTECT, 32768, 1 },
		{ ACT_GUARD_CANARY, 32768, 1 },
		{ ACT_GUARD_AUTO, 0, 1000 }, /* the 16 KiB pool grows */
	};
	char why[4096] = "";
	size_t at = 0;
	unsigned i;

	/* run every case, then report all that failed */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct small_case sc = { cases[i].guard, cases[i].child_size,
					 cases[i].n, shared_map() };
		struct tu_child c;

		sc.sh->returned = 0;
		tu_run_child(small_child_main, &sc, &c);
		if ((!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0 ||
		     sc.sh->rc != 0 || sc.sh->returned != cases[i].n ||
		     c.err[0]) &&
		    at < sizeof(why))
			at += (size_t)snprintf(
				why + at, sizeof(why) - at,
				"[guard %d, child stack %zu, %d children: "
				"status %#x, rc %d, %d acks, stderr: %s] ",
				cases[i].guard, cases[i].child_size, cases[i].n,
				c.status, sc.sh->rc, sc.sh->returned, c.err);
		munmap(sc.sh, sizeof(*sc.sh));
	}
	ck_assert_msg(at == 0, "%s", why);
}
END_TEST

/* ---- per-worker stack cache --------------------------------------------- */

struct lo_report {
	void *lo;
	size_t size;
};

static void report_lo(void *arg)
{
	struct lo_report r = { tu_self_proc()->stack_lo,
			       tu_self_proc()->stack_size };

	ck_assert_int_eq(act_send(*(act_pid *)arg, 1, &r, sizeof(r)), 0);
}

static struct lo_report spawn_and_report(act_pid *me, size_t size)
{
	struct act_spawn_opts o = { .stack_size = size };
	struct lo_report r;
	struct act_msg *m;

	ck_assert_uint_ne(act_spawn_opt(report_lo, me, &o).id, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->len, sizeof(r));
	memcpy(&r, m->data, sizeof(r));
	act_msg_free(m);
	act_yield(); /* let the reporter finish exiting */
	return r;
}

static int reuse_checked;

static void reuse_main(void *arg)
{
	act_pid me = act_self();
	struct lo_report a, b, c, d;
	void *main_lo = tu_self_proc()->stack_lo;

	(void)arg;
	a = spawn_and_report(&me, 0);
	ck_assert_ptr_nonnull(a.lo);
	ck_assert_ptr_ne(a.lo, main_lo);
	b = spawn_and_report(&me, 0);
	ck_assert_ptr_eq(b.lo, a.lo); /* the cache gave the same one back */
	ck_assert_uint_eq(b.size, 65536);
	/* another size comes from its own pool */
	c = spawn_and_report(&me, 32768);
	ck_assert_ptr_ne(c.lo, a.lo);
	ck_assert_uint_eq(c.size, 32768);
	d = spawn_and_report(&me, 32768);
	ck_assert_ptr_eq(d.lo, c.lo);
	ck_assert_uint_eq(act__tls_worker_self()->stacks.n_out, 1); /* main's */
	reuse_checked = 1;
}

/*
 * One worker: the property is that of one worker's stack cache (a
 * reporter's stack goes back to it and the next spawn there gets it).
 * On more, a reporter may run and exit on another worker, whose cache
 * then takes its stack, and that worker's n_out goes below zero.
 */
START_TEST(stack_reused)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(act_main(&cfg, reuse_main, NULL), 0);
	ck_assert_int_eq(reuse_checked, 1);
	ck_assert_int_eq(act__last_leaks.stacks, 0);
}
END_TEST

/* Live processes never share a stack, and the stacks do not overlap. */
enum { LIVE = 3000 };
static void *live_lo[LIVE];
static _Atomic int live_started;

static void live_proc(void *arg)
{
	live_lo[(intptr_t)arg] = tu_self_proc()->stack_lo;
	atomic_fetch_add(&live_started, 1);
	act_msg_free(act_receive(ACT_FOREVER));
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void live_main(void *arg)
{
	act_pid *pids = malloc(LIVE * sizeof(*pids));
	size_t size = (size_t)(uintptr_t)arg;
	struct act_spawn_opts o = { .stack_size = size };
	intptr_t i;

	for (i = 0; i < LIVE; i++) {
		pids[i] = act_spawn_opt(live_proc, (void *)i, &o);
		ck_assert_uint_ne(pids[i].id, 0);
	}
	while (atomic_load(&live_started) < LIVE)
		act_yield();
	qsort(live_lo, LIVE, sizeof(live_lo[0]), cmp_ptr);
	for (i = 1; i < LIVE; i++)
		ck_assert_msg((uintptr_t)live_lo[i] -
					      (uintptr_t)live_lo[i - 1] >=
				      size + ACT_GUARD_SIZE,
			      "stacks %p and %p overlap or share a guard",
			      live_lo[i - 1], live_lo[i]);
	for (i = 0; i < LIVE; i++)
		ck_assert_int_eq(act_send(pids[i], 1, NULL, 0), 0);
	free(pids);
}

START_TEST(live_stacks_disjoint)
{
	ck_assert_int_eq(act_main(NULL, live_main, (void *)(uintptr_t)16384),
			 0);
	ck_assert_int_eq(act__last_leaks.stacks, 0);
	ck_assert_int_eq(act__last_leaks.procs, 0);
}
END_TEST

/* ---- idle: the stacks past the caches give their memory back ------------ */

/*
 * A burst of TRIM_N processes, each with TRIM_PAGES of its stack written,
 * all alive at once, then all gone: one worker's cache keeps at most 256
 * free stacks of a size warm, the rest go to its home's shared list, and
 * the worker, with nothing to run, gives their pages back (the top page
 * too: most processes touch nothing else). Checked: none of the list's
 * stacks is left warm, at least TRIM_N - 256 are cold, and that many of
 * the burst's stacks have no page resident (mincore). A second burst takes
 * the cold stacks again: each child's writes read back, and in the
 * canary mode each stack's canary, written anew, holds at every switch
 * (a stale one is reported as an overflow). No stack leaks.
 */
enum { TRIM_N = 1000, TRIM_PAGES = 3, TRIM_STACK = 65536 };
static void *trim_lo[TRIM_N];
static _Atomic int trim_started, trim_bad;
static int trim_checked;

static void trim_child(void *arg)
{
	volatile char deep[TRIM_PAGES * 4096];
	size_t k;

	for (k = 0; k < sizeof(deep); k += 256)
		deep[k] = (char)(k >> 8);
	trim_lo[(intptr_t)arg] = tu_self_proc()->stack_lo;
	atomic_fetch_add(&trim_started, 1);
	act_msg_free(act_receive(ACT_FOREVER));
	for (k = 0; k < sizeof(deep); k += 256)
		if (deep[k] != (char)(k >> 8))
			atomic_fetch_add(&trim_bad, 1);
}

/* A burst: TRIM_N children alive at once, then released and gone. */
static void trim_burst(act_pid *pids)
{
	struct act_msg *m;
	intptr_t i;

	atomic_store(&trim_started, 0);
	for (i = 0; i < TRIM_N; i++) {
		pids[i] = act_spawn(trim_child, (void *)i);
		ck_assert_uint_ne(pids[i].id, 0);
		ck_assert_uint_ne(act_monitor(pids[i]), 0);
	}
	while (atomic_load(&trim_started) < TRIM_N)
		act_yield();
	for (i = 0; i < TRIM_N; i++)
		ck_assert_int_eq(act_send(pids[i], 1, NULL, 0), 0);
	for (i = 0; i < TRIM_N; i++) {
		m = act_receive(10 * TU_SEC);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
		act_msg_free(m);
	}
}

/* Stacks of the burst with no page resident. */
static int trim_gone(void)
{
	unsigned char vec[TRIM_STACK / 4096];
	int i, n = 0;
	size_t k, in;

	for (i = 0; i < TRIM_N; i++) {
		ck_assert_int_eq(mincore(trim_lo[i], TRIM_STACK, vec), 0);
		for (k = 0, in = 0; k < sizeof(vec); k++)
			in += vec[k] & 1;
		n += in == 0;
	}
	return n;
}

static void trim_main(void *arg)
{
	act_pid *pids = malloc(TRIM_N * sizeof(*pids));
	int home = act__tls_worker_self()->stacks.home, i, gone;
	uint32_t all = 0, cold = 0;

	(void)arg;
	ck_assert_ptr_nonnull(pids);
	trim_burst(pids);
	/* the exits end after their DOWNs, and the trim runs while this
	 * process sleeps: until the list holds no warm stack (10 s) */
	for (i = 0; i < 10000; i++) {
		all = act__stack_shared_n(home, TRIM_STACK, NULL);
		cold = act__stack_shared_cold_n(home, TRIM_STACK);
		if (all == cold && cold >= TRIM_N - 256)
			break;
		act_sleep(TU_MS);
	}
	ck_assert_msg(all == cold && cold >= TRIM_N - 256,
		      "the shared list holds %u stacks, %u of them cold (of "
		      "%d freed)",
		      all, cold, TRIM_N);
	gone = trim_gone();
	ck_assert_msg(gone >= TRIM_N - 256,
		      "%d of %d stacks have no page resident", gone, TRIM_N);
	trim_burst(pids); /* the cold stacks, taken again */
	ck_assert_int_eq(atomic_load(&trim_bad), 0);
	free(pids);
	trim_checked = 1;
}

START_TEST(idle_gives_back_stacks)
{
	static const int modes[] = { ACT_GUARD_AUTO, ACT_GUARD_MPROTECT,
				     ACT_GUARD_CANARY };
	struct act_config cfg = tu_with_workers(1);

	cfg.stack_size = TRIM_STACK;
	cfg.stack_guard = modes[_i];
	trim_checked = 0;
	ck_assert_int_eq(act_main(&cfg, trim_main, NULL), 0);
	ck_assert_int_eq(trim_checked, 1);
	ck_assert_int_eq(act__last_leaks.stacks, 0);
	ck_assert_int_eq(act__last_leaks.procs, 0);
}
END_TEST

/* ---- a million processes, and the mprotect budget ----------------------- */

struct many {
	uint32_t n;
	size_t stack_size;
	act_pid main;
	_Atomic uint32_t blocked, guarded, canaried, acked_wrong;
	long maps; /* /proc/self/maps lines with all alive */
	int mode;
	uint32_t acks;
};

static struct many mn;

static void many_proc(void *arg)
{
	struct act__proc *p = tu_self_proc();
	struct act_msg *m;

	(void)arg;
	if (atomic_load(&p->flags) & ACT_PF_CANARY)
		atomic_fetch_add_explicit(&mn.canaried, 1,
					  memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&mn.guarded, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&mn.blocked, 1, memory_order_relaxed);
	m = act_receive(ACT_FOREVER);
	if (!m || m->tag != 2)
		atomic_fetch_add_explicit(&mn.acked_wrong, 1,
					  memory_order_relaxed);
	act_msg_free(m);
	act_send(mn.main, 3, NULL, 0);
}

static void many_main(void *arg)
{
	struct act_spawn_opts o = { .stack_size = mn.stack_size };
	act_pid *pids = malloc((size_t)mn.n * sizeof(*pids));
	struct act_msg *m;
	uint32_t i, bad = 0;

	/* No ck_assert per iteration: in fork mode each one writes to
	 * Check's pipe, which costs more than the spawn itself. */
	(void)arg;
	ck_assert_ptr_nonnull(pids);
	mn.main = act_self();
	mn.mode = act__stack_guard_mode();
	for (i = 0; i < mn.n; i++) {
		pids[i] = act_spawn_opt(many_proc, NULL, &o);
		if (!pids[i].id)
			ck_abort_msg("spawn %u failed", i);
	}
	/* until every one of them waits in act_receive */
	while (atomic_load(&mn.blocked) < mn.n)
		act_yield();
	mn.maps = tu_count_lines("/proc/self/maps");
	for (i = 0; i < mn.n; i++)
		bad += act_send(pids[i], 2, NULL, 0) != 0;
	ck_assert_uint_eq(bad, 0);
	free(pids);
	for (i = 0; i < mn.n; i++) {
		m = act_receive(ACT_FOREVER);
		if (!m)
			ck_abort_msg("receive %u returned NULL", i);
		bad += m->tag != 3;
		act_msg_free(m);
		mn.acks++;
	}
	ck_assert_uint_eq(bad, 0);
}

static int run_many(uint32_t n, size_t stack_size, int guard)
{
	struct act_config cfg;
	int rc;

	memset(&mn, 0, sizeof(mn));
	mn.n = n;
	mn.stack_size = stack_size;
	act_config_init(&cfg);
	cfg.stack_guard = guard;
	rc = act_main(&cfg, many_main, NULL);
	if (rc == -EOPNOTSUPP)
		return rc;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(mn.blocked, n);
	ck_assert_uint_eq(mn.acks, n);
	ck_assert_uint_eq(mn.acked_wrong, 0);
	ck_assert_int_eq(mn.mode, guard);
	ck_assert_int_gt(mn.maps, 0);
	tu_assert_no_leaks();
	return 0;
}

/*
 * Under TSan each live process holds a fiber (some KiB): fewer. Under
 * ASan every access is checked and every cached stack poisoned and
 * unpoisoned (148 s for the million in CI): a tenth, still far more
 * processes than the map-count limit allows mappings; release runs the
 * million, and twice more on simulated machines.
 */
#define MANY_MILLION \
	(TU_UNDER_TSAN ? 10000u : TU_UNDER_ASAN ? 100000u : 1000000u)

START_TEST(million_madvise_16k)
{
	if (run_many(MANY_MILLION, 16384, ACT_GUARD_MADVISE) == -EOPNOTSUPP) {
		printf("SKIP: MADV_GUARD_INSTALL not supported\n");
		return;
	}
	ck_assert_msg(mn.maps < 10000, "%ld map lines", mn.maps);
	ck_assert_uint_eq(mn.guarded, MANY_MILLION);
}
END_TEST

/*
 * The default 64 KiB stack: 68 GiB of address space for a million. Each
 * first touch of a page costs ~22 us on the 2-core test VM, so a million
 * here takes ~50 s on top of the 16 KiB run: the default run uses 50,000
 * and TEST_STACK_FULL=1 in the environment asks for the full million.
 */
START_TEST(many_madvise_64k)
{
	uint32_t n = getenv("TEST_STACK_FULL") ? 1000000 : 50000;

	if (TU_UNDER_TSAN)
		n = 5000;

	if (run_many(n, 0, ACT_GUARD_MADVISE) == -EOPNOTSUPP) {
		printf("SKIP: MADV_GUARD_INSTALL not supported\n");
		return;
	}
	ck_assert_msg(mn.maps < 10000, "%ld map lines", mn.maps);
	ck_assert_uint_eq(mn.guarded, n);
}
END_TEST

START_TEST(mprotect_budget_falls_back)
{
	long limit = act__stack_read_max_map_count();
	uint32_t n = TU_UNDER_TSAN ? 20000 : 100000;

	ck_assert_int_eq(run_many(n, 16384, ACT_GUARD_MPROTECT), 0);
	ck_assert_msg(mn.maps < limit, "%ld map lines, limit %ld", mn.maps,
		      limit);
	ck_assert_uint_eq(mn.guarded + mn.canaried, n);
	ck_assert_uint_gt(mn.guarded, 0);
	if (limit / 4 < n) /* the budget ran out: canaries after it */
		ck_assert_uint_gt(mn.canaried, 0);
}
END_TEST

START_TEST(canary_mode_all_canaries)
{
	uint32_t n = TU_UNDER_TSAN ? 5000 : 20000;

	ck_assert_int_eq(run_many(n, 16384, ACT_GUARD_CANARY), 0);
	ck_assert_uint_eq(mn.canaried, n);
	ck_assert_uint_eq(mn.guarded, 0);
}
END_TEST

/*
 * A famine (no chunk can be mapped) reaches every cache's free stacks:
 * stacks that another cache, of another home, frees go to their home's
 * shared list at once instead of waiting there for a batch, and a cache
 * whose chunk fails takes from any home's shared list. Two caches of two
 * homes, no runtime, in a child held to its address space by RLIMIT_AS.
 */
#define FAM_SIZE 65536
#define FAM_UNITS 128 /* 16 MiB chunks of 64 KiB + 64 KiB guard units */

struct famine_report {
	int stage, ok_after_away, ok_after_other_home;
};

static void famine_child(void *arg)
{
	struct famine_report *rep = arg;
	struct act__stack_cache a, b;
	static void *from_a[FAM_UNITS], *from_b[FAM_UNITS];
	struct rlimit rl;
	bool canary;
	void *lo;
	int na = 0, nb = 0, i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	act__stack_cache_set_home(&a, NULL, 0);
	act__stack_cache_set_home(&b, NULL, 1);
	if (act__stack_global_init(ACT_GUARD_CANARY, 0))
		_exit(3);
	/* one chunk each, then no more address space */
	if (act__stack_get(&a, FAM_SIZE, &from_a[na++], &canary) ||
	    act__stack_get(&b, FAM_SIZE, &from_b[nb++], &canary))
		_exit(4);
	rl.rlim_cur = rl.rlim_max = (rlim_t)tu_vm_size_kib() * 1024 + (4 << 20);
	if (setrlimit(RLIMIT_AS, &rl))
		_exit(5);
	rep->stage = 1;
	while (na < FAM_UNITS && !act__stack_get(&a, FAM_SIZE, &lo, &canary))
		from_a[na++] = lo; /* a's chunk used up, then famine */
	while (nb < FAM_UNITS && !act__stack_get(&b, FAM_SIZE, &lo, &canary))
		from_b[nb++] = lo;
	if (na == FAM_UNITS || nb == FAM_UNITS)
		_exit(6); /* no famine: RLIMIT_AS did not hold (qemu-user) */
	rep->stage = 2;
	/* b frees 10 of a's stacks (home 0, away for b: fewer than a
	 * batch): in a famine they go home at once */
	for (i = 0; i < 10; i++)
		act__stack_put(&b, from_a[--na], FAM_SIZE);
	for (i = 0; i < 10; i++)
		rep->ok_after_away +=
			!act__stack_get(&a, FAM_SIZE, &lo, &canary);
	/* b frees its own (home 1): a, of home 0, may take them */
	for (i = 0; i < 5; i++)
		act__stack_put(&b, from_b[--nb], FAM_SIZE);
	for (i = 0; i < 5; i++)
		rep->ok_after_other_home +=
			!act__stack_get(&a, FAM_SIZE, &lo, &canary);
	rep->stage = 3;
}

START_TEST(famine_reaches_every_cache)
{
	struct famine_report *rep;
	struct tu_child c;

	rep = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(rep, MAP_FAILED);
	memset(rep, 0, sizeof(*rep));
	tu_run_child(famine_child, rep, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x, stage %d: %s", c.status, rep->stage, c.err);
	ck_assert_int_eq(rep->stage, 3);
	ck_assert_int_eq(rep->ok_after_away, 10);
	ck_assert_int_eq(rep->ok_after_other_home, 5);
	munmap(rep, 4096);
}
END_TEST

static Suite *stack_suite(void)
{
	Suite *s = suite_create("stack");
	TCase *tc = tcase_create("overflow");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, overflow_madvise);
	tcase_add_test(tc, overflow_mprotect);
	tcase_add_test(tc, overflow_auto);
	tcase_add_test(tc, overflow_canary_smashed);
	tcase_add_test(tc, overflow_canary_recursion);
	tcase_add_test(tc, overflow_env_16k);
	tcase_add_test(tc, overflow_spawn_opt_size);
	/* TSan's own SIGSEGV handler reports the fault and exits 66, where
	 * the test wants the default action's death by SIGSEGV */
	tu_add_test_unless(TU_UNDER_TSAN, "TSan", tc, null_write_crashes);
	tcase_add_test(tc, own_handler_chained);
	tcase_add_test(tc, spawn_from_16k_stack);
	suite_add_tcase(s, tc);

	tc = tcase_create("cache");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, stack_reused);
	tcase_add_test(tc, live_stacks_disjoint);
	tcase_add_loop_test(tc, idle_gives_back_stacks, 0, 3);
	/* ASan reserves terabytes of shadow: no RLIMIT_AS */
	tu_add_test_unless(TU_UNDER_ASAN || TU_UNDER_TSAN, "ASan or TSan", tc,
			   famine_reaches_every_cache);
	suite_add_tcase(s, tc);

	tc = tcase_create("many");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, million_madvise_16k);
	tcase_add_test(tc, many_madvise_64k);
	tcase_add_test(tc, mprotect_budget_falls_back);
	tcase_add_test(tc, canary_mode_all_canaries);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(stack_suite());
}
