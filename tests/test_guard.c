/* SPDX-License-Identifier: MIT */
/*
 * test_guard.c - what the guard below each process stack catches, and how
 * the overflow handler lives with the program's own SIGSEGV handling.
 *
 * Guard: 64 KiB (lib/mem/stack.h). A frame that jumps past the end of a stack
 * by less than that lands in the guard and is reported; with a one-page
 * guard a 24 KiB local array wrote into the next stack down without a
 * word. A larger frame is caught by the compiler's stack-clash probes.
 * This program is built with -fno-stack-clash-protection so that its
 * frames jump as a program built without the probes would; one case asks
 * for the probes on its own function (GCC's optimize attribute).
 *
 * Chaining (lib/sched/overflow.c): a SIGSEGV that is not an overflow goes to
 * the handler that was there before, or to the default action, and the
 * runtime's handler stays: a program that handles its own faults still
 * gets the overflow report afterwards, and a SIGSEGV sent by raise() is
 * not swallowed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "testrt.h"

#include "sched/overflow.h"
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

static void no_core(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

/* What a child did, on a shared page. */
struct shared {
	int stage;   /* how far the process got */
	int handled; /* faults the program's own handler took */
	int rc;	     /* act_main's */
};

/* volatile: its stores must happen where they are written, before a
 * crash the compiler cannot see coming */
static volatile struct shared *sh;

static void map_shared(void)
{
	void *m = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(m, MAP_FAILED);
	memset(m, 0, sizeof(*sh));
	sh = m;
}

/* ---- frames that jump past the end of the stack ------------------------ */

enum jump {
	JUMP_24K,	  /* a 24 KiB array, its lowest byte written first */
	JUMP_60K,	  /* just inside the guard */
	JUMP_200K_PROBED, /* beyond the guard, with stack-clash probes */
};

static uintptr_t stack_lo;

static act__noinline void frame_24k(void)
{
	volatile char a[24 << 10];

	a[0] = 1; /* the lowest address: past the stack's end */
	a[sizeof(a) - 1] = a[0];
}

static act__noinline void frame_60k(void)
{
	volatile char a[60 << 10];

	a[0] = 1;
	a[sizeof(a) - 1] = a[0];
}

#if defined(__GNUC__) && !defined(__clang__)
#define HAVE_PROBED 1
__attribute__((optimize("stack-clash-protection"))) static act__noinline void
frame_200k_probed(void)
{
	volatile char a[200 << 10];

	a[0] = 1;
	a[sizeof(a) - 1] = a[0];
}
#else
#define HAVE_PROBED 0
#endif

/* Recurse in small frames until this frame is within 1 KiB of the stack's
 * end, then take the big frame there. */
static act__noinline int near_end(int n, enum jump how)
{
	volatile char pad[128];

	pad[0] = (char)n;
	if ((uintptr_t)__builtin_frame_address(0) - stack_lo > 1024)
		return near_end(n + 1, how) + pad[0];
	sh->stage = 1;
	if (how == JUMP_24K)
		frame_24k();
	else if (how == JUMP_60K)
		frame_60k();
#if HAVE_PROBED
	else
		frame_200k_probed();
#endif
	sh->stage = 2; /* came back: the frame landed in someone's memory */
	return pad[0];
}

static void jumper(void *arg)
{
	stack_lo = (uintptr_t)tu_self_proc()->stack_lo;
	near_end(0, (enum jump)(intptr_t)arg);
}

static void jump_main(void *arg)
{
	/* the jumper's stack is the second of its chunk: the one below it
	 * is this process's, live, the memory a jump past the guard hit */
	ck_assert_uint_ne(act_spawn(jumper, arg).id, 0);
	act_receive(ACT_FOREVER); /* nobody sends: waits for the report */
}

static void jump_child(void *arg)
{
	struct act_config cfg = tu_with_workers(1);

	no_core();
	sh->rc = act_main(&cfg, jump_main, arg);
}

START_TEST(frame_past_the_end_is_reported)
{
	struct tu_child c;

	map_shared();
	tu_run_child(jump_child, (void *)(intptr_t)_i, &c);
	ck_assert_msg(WIFEXITED(c.status) &&
			      WEXITSTATUS(c.status) == ACT_OVERFLOW_STATUS,
		      "case %d: status %#x, stage %d, stderr: %s", _i, c.status,
		      sh->stage, c.err);
	ck_assert_int_eq(sh->stage, 1);
	ck_assert_ptr_nonnull(
		strstr(c.err, "actors: stack overflow in process"));
	tu_drop_lines(c.err, TU_URING_OFF_LINE); /* a fallback run's */
	ck_assert_int_eq(tu_str_lines(c.err), 1);
}
END_TEST

/* ---- an I/O buffer past the stack's end ---------------------------------- */

/*
 * A process near the end of its stack takes an 80 KB buffer (no probes)
 * and reads into it: the buffer starts below the guard, in the next stack
 * down, and reaches through the guard into this one. The kernel would
 * write the lower stack first; the runtime reports the overflow before
 * the read is submitted.
 */
static int read_fd = -1;

static act__noinline void read_into_big_frame(void)
{
	volatile char a[80 << 10];

	sh->stage = 1;
	act_io_read(read_fd, (char *)a, sizeof(a), 0);
	sh->stage = 2; /* the read went through */
	a[0] = a[1];
}

static act__noinline int near_end_read(int n)
{
	volatile char pad[128];

	pad[0] = (char)n;
	if ((uintptr_t)__builtin_frame_address(0) - stack_lo > 1024)
		return near_end_read(n + 1) + pad[0];
	read_into_big_frame();
	return pad[0];
}

static void big_reader(void *arg)
{
	(void)arg;
	stack_lo = (uintptr_t)tu_self_proc()->stack_lo;
	near_end_read(0);
}

static void big_read_main(void *arg)
{
	(void)arg;
	ck_assert_uint_ne(act_spawn(big_reader, NULL).id, 0);
	act_receive(ACT_FOREVER);
}

static void big_read_child(void *arg)
{
	struct act_config cfg = tu_with_workers(1);

	(void)arg;
	no_core();
	read_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (read_fd < 0)
		_exit(9);
	sh->rc = act_main(&cfg, big_read_main, NULL);
}

START_TEST(io_buffer_past_the_end_is_reported)
{
	struct tu_child c;

	map_shared();
	tu_run_child(big_read_child, NULL, &c);
	ck_assert_msg(WIFEXITED(c.status) &&
			      WEXITSTATUS(c.status) == ACT_OVERFLOW_STATUS,
		      "status %#x, stage %d, stderr: %s", c.status, sh->stage,
		      c.err);
	ck_assert_int_eq(sh->stage, 1);
	ck_assert_ptr_nonnull(
		strstr(c.err, "actors: stack overflow in process"));
}
END_TEST

/* ---- the program's own SIGSEGV handling --------------------------------- */

static char *own_page; /* PROT_NONE until the program's handler opens it */

/* A program that catches faults on its own page (a GC's barrier, say) and
 * gives up on any other. */
static void own_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if ((char *)si->si_addr >= own_page &&
	    (char *)si->si_addr < own_page + 4096 && si->si_code > 0) {
		mprotect(own_page, 4096, PROT_READ | PROT_WRITE);
		sh->handled++;
		return;
	}
	if (si->si_code <= 0) { /* sent: counted, nothing to repair */
		sh->handled++;
		return;
	}
	_exit(7); /* a fault it does not know: not ours to report */
}

static void install_own(void)
{
	struct sigaction sa;

	own_page =
		mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(own_page, MAP_FAILED);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = own_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
}

static act__noinline int recurse(int n)
{
	volatile char buf[256];

	buf[0] = (char)n;
	return n < 0 ? 0 : recurse(n + 1) + buf[0];
}

enum chain_case {
	CHAIN_OWN_FAULTS, /* own faults, twice, then an overflow */
	CHAIN_OWN_RAISE,  /* raise() with the program's handler */
	CHAIN_RAISE_DFL,  /* raise() with the default action: it kills */
	CHAIN_RAISE_IGN,  /* raise() with SIGSEGV ignored: nothing */
};

static void chain_proc(void *arg)
{
	int how = (int)(intptr_t)arg;

	if (how == CHAIN_OWN_FAULTS) {
		own_page[0] = 1; /* fault 1: the program's handler opens it */
		mprotect(own_page, 4096, PROT_NONE);
		own_page[1] = 2; /* fault 2: still chained, not uninstalled */
		sh->stage = 1;
		recurse(0); /* the overflow: still reported */
	} else {
		raise(SIGSEGV);
		sh->stage = 1;
		if (how == CHAIN_OWN_RAISE)
			recurse(0);
	}
	sh->stage = 2;
}

static void chain_main(void *arg)
{
	ck_assert_uint_ne(act_spawn(chain_proc, arg).id, 0);
	while (sh->stage < 2)
		act_sleep(TU_MS);
}

static void chain_child(void *arg)
{
	struct act_config cfg = tu_with_workers(1);
	int how = (int)(intptr_t)arg;

	no_core();
	if (how == CHAIN_OWN_FAULTS || how == CHAIN_OWN_RAISE)
		install_own();
	if (how == CHAIN_RAISE_IGN)
		signal(SIGSEGV, SIG_IGN);
	sh->rc = act_main(&cfg, chain_main, arg);
	/* the program's disposition is back once the runtime is gone */
	if (how == CHAIN_OWN_FAULTS || how == CHAIN_OWN_RAISE) {
		struct sigaction now;

		sigaction(SIGSEGV, NULL, &now);
		if (now.sa_sigaction != own_handler)
			_exit(8);
	}
}

START_TEST(segv_chained_to_what_was_there)
{
	struct tu_child c;

	map_shared();
	tu_run_child(chain_child, (void *)(intptr_t)_i, &c);
	switch (_i) {
	case CHAIN_OWN_FAULTS:
	case CHAIN_OWN_RAISE:
		/* the program's handler took its own signals, and the
		 * overflow after them was still the runtime's */
		ck_assert_msg(WIFEXITED(c.status) &&
				      WEXITSTATUS(c.status) ==
					      ACT_OVERFLOW_STATUS,
			      "case %d: status %#x, stage %d, handled %d: %s",
			      _i, c.status, sh->stage, sh->handled, c.err);
		ck_assert_int_eq(sh->handled, _i == CHAIN_OWN_FAULTS ? 2 : 1);
		ck_assert_int_eq(sh->stage, 1);
		ck_assert_ptr_nonnull(strstr(c.err, "stack overflow"));
		break;
	case CHAIN_RAISE_DFL:
		/* a sent SIGSEGV kills, as it would without the runtime */
		ck_assert_msg(
			WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGSEGV,
			"status %#x, stage %d: %s", c.status, sh->stage, c.err);
		ck_assert_int_eq(sh->stage, 0);
		tu_drop_lines(c.err, TU_URING_OFF_LINE);
		ck_assert_str_eq(c.err, "");
		break;
	case CHAIN_RAISE_IGN:
		ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
			      "status %#x: %s", c.status, c.err);
		ck_assert_int_eq(sh->stage, 2);
		ck_assert_int_eq(sh->rc, 0);
		break;
	}
}
END_TEST

/* ---- the mprotect budget, shared by every worker ------------------------ */

/*
 * Workers that grow their stack pools at once take guards from one
 * budget: each take must count (a plain decrement raced, TSan says so,
 * and a lost one let the guards pass the map-count budget). Four
 * workers each spawn 200 processes on guard pages of a budget of 300:
 * the guards made, counted in /proc/self/maps, and the budget left add up
 * to 300.
 */
#define BUDGET 300

/* Guards in the chunks of n caches: their PROT_NONE bytes over the
 * guard's size. Bytes, not map lines: a guard next to another PROT_NONE
 * region merges with it into one line (299 of 300 lines of the guard's
 * size once on 6.1); and only within the chunks, not malloc's arenas. */
static long guards_in(const struct act__stack_cache *cs, int n)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long a, b, lo, hi, bytes = 0;
	char perms[8], line[512];
	uint32_t i, j;
	int k;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3 ||
		    strcmp(perms, "---p"))
			continue;
		for (k = 0; k < n; k++)
			for (i = 0; i < cs[k].n_pools; i++)
				for (j = 0; j < cs[k].pools[i].n_chunks; j++) {
					const struct act__stack_chunk *ch =
						&cs[k].pools[i].chunks[j];

					lo = (uintptr_t)ch->base;
					hi = lo + ch->len;
					lo = a > lo ? a : lo;
					hi = b < hi ? b : hi;
					bytes += hi > lo ? hi - lo : 0;
				}
	}
	fclose(f);
	return (long)(bytes / ACT_GUARD_SIZE);
}

/* ... of every worker of the running runtime. */
static long runtime_guards(void)
{
	struct act__rt *rt = act__rt_current;
	long n = 0;
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++)
		n += guards_in(&rt->workers[i].stacks, 1);
	return n;
}

static _Atomic int budget_ready;

static void idle_kid(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

static void budget_spawner(void *arg)
{
	act_pid *kids = arg;
	int i;

	for (i = 0; i < 200; i++) {
		kids[i] = act_spawn(idle_kid, NULL);
		ck_assert_uint_ne(kids[i].id, 0);
	}
	atomic_fetch_add(&budget_ready, 1);
}

static long budget_seen[2];

static void budget_main(void *arg)
{
	static act_pid kids[4][200];
	int i, k;

	(void)arg;
	ck_assert_int_eq(act__stack_guard_mode(), ACT_GUARD_MPROTECT);
	for (k = 0; k < 4; k++)
		ck_assert_uint_ne(act_spawn(budget_spawner, kids[k]).id, 0);
	while (atomic_load(&budget_ready) < 4)
		act_sleep(TU_MS);
	budget_seen[0] = runtime_guards();
	budget_seen[1] = act__stack_mprotect_budget();
	for (k = 0; k < 4; k++)
		for (i = 0; i < 200; i++)
			act_send(kids[k][i], 1, NULL, 0);
}

START_TEST(mprotect_budget_shared_by_workers)
{
	struct act_config cfg = tu_with_workers(4);

	atomic_store(&budget_ready, 0);
	cfg.stack_guard = ACT_GUARD_MPROTECT;
	setenv("ACT_TEST_GUARD_BUDGET", "300", 1);
	ck_assert_int_eq(tu_run_main(&cfg, budget_main, NULL), 0);
	unsetenv("ACT_TEST_GUARD_BUDGET");
	ck_assert_int_ge(budget_seen[1], 0);
	ck_assert_int_eq(budget_seen[0] + budget_seen[1], BUDGET);
	/* 800 stacks and more in the pools: the budget was spent */
	ck_assert_int_eq(budget_seen[1], 0);
}
END_TEST

/* The same at the stack caches' level, no runtime: two threads, each
 * with its own cache, take stacks at once after a start barrier. */
static pthread_barrier_t two_start;

static void *take_stacks(void *arg)
{
	struct act__stack_cache *c = arg;
	void *lo;
	bool canary;
	int i;

	pthread_barrier_wait(&two_start);
	for (i = 0; i < 300; i++)
		ck_assert_int_eq(act__stack_get(c, 65536, &lo, &canary), 0);
	return NULL;
}

START_TEST(mprotect_budget_shared_by_threads)
{
	struct act__stack_cache c[2];
	pthread_t t[2];
	int i;

	memset(c, 0, sizeof(c));
	ck_assert_int_eq(act__stack_global_init(ACT_GUARD_MPROTECT, 300), 0);
	ck_assert_int_eq(pthread_barrier_init(&two_start, NULL, 2), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, take_stacks, &c[i]), 0);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	ck_assert_int_eq(guards_in(c, 2) + act__stack_mprotect_budget(),
			 BUDGET);
	ck_assert_int_eq(act__stack_mprotect_budget(), 0);
	for (i = 0; i < 2; i++)
		act__stack_cache_destroy(&c[i]);
	act__stack_global_fini();
	pthread_barrier_destroy(&two_start);
}
END_TEST

static Suite *guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("guard");

	tcase_set_timeout(tc, 60);
	if (!TU_UNDER_TSAN) { /* TSan's own SIGSEGV handler comes first */
		/* the probed case needs GCC's per-function probes */
		tcase_add_loop_test(
			tc, frame_past_the_end_is_reported, JUMP_24K,
			HAVE_PROBED ? JUMP_200K_PROBED + 1 : JUMP_200K_PROBED);
		if (!HAVE_PROBED)
			printf("SKIP: frame_past_the_end_is_reported:2 needs "
			       "GCC's optimize(\"stack-clash-protection\")\n");
		tcase_add_test(tc, io_buffer_past_the_end_is_reported);
		tcase_add_loop_test(tc, segv_chained_to_what_was_there,
				    CHAIN_OWN_FAULTS, CHAIN_RAISE_IGN + 1);
	} else {
		printf("SKIP: guard and SIGSEGV chaining under TSan\n");
	}
	suite_add_tcase(s, tc);
	/* under TSan too: a racy budget is what it finds */
	tc = tcase_create("budget");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mprotect_budget_shared_by_workers);
	tcase_add_test(tc, mprotect_budget_shared_by_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(guard_suite());
}
