/* SPDX-License-Identifier: MIT */
/*
 * test_ctx.c - the architecture's context switch (lib/arch/ctx.h):
 * callee-saved registers are per context and survive a switch, the
 * floating-point control state is the thread's (the switch leaves it
 * alone: arch/fp.h); act__ctx_make starts entry(arg, arg2) on the given
 * stack with the ABI's alignment. Then through the runtime: processes
 * spawned with ACT_SPAWN_FPENV keep their own rounding modes across
 * yields, and nobody else sees them.
 */
#include <fenv.h>
#include <stdint.h>
#include <sys/mman.h>

#include "testrt.h"

#include "arch/ctx.h"
#include "node/runtime.h"
#include "sched/worker.h"

#define STACK_LEN ((size_t)64 << 10)

static void *stack_alloc(void)
{
	void *p = mmap(NULL, STACK_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static struct act__ctx main_ctx, b_ctx;

#ifdef __x86_64__
/*
 * void tc_reg_switch(struct act__ctx *from, struct act__ctx *to,
 *                    const uint64_t in[6], uint64_t out[6]);
 *
 * Loads in[] into rbx, rbp, r12, r13, r14, r15, calls
 * act__ctx_switch_asm(from, to), and once that returns stores the same six
 * registers into out[]. Nothing the compiler generated runs between the
 * loads and the stores, so out[] == in[] exactly when the switch (and
 * whatever ran in the other context meanwhile) preserved them. The
 * caller's own callee-saved registers are pushed and popped around it.
 * Call it through reg_switch, which first tells TSan (if built with it)
 * what act__ctx_switch would have told it.
 */
__asm__(".text\n"
	".globl tc_reg_switch\n"
	".hidden tc_reg_switch\n"
	".type tc_reg_switch, @function\n"
	"tc_reg_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	pushq %rcx\n" /* out; 7 pushes: rsp is 16-byte aligned */
	"	movq 0(%rdx), %rbx\n"
	"	movq 8(%rdx), %rbp\n"
	"	movq 16(%rdx), %r12\n"
	"	movq 24(%rdx), %r13\n"
	"	movq 32(%rdx), %r14\n"
	"	movq 40(%rdx), %r15\n"
	"	call act__ctx_switch_asm@PLT\n"
	"	popq %rcx\n"
	"	movq %rbx, 0(%rcx)\n"
	"	movq %rbp, 8(%rcx)\n"
	"	movq %r12, 16(%rcx)\n"
	"	movq %r13, 24(%rcx)\n"
	"	movq %r14, 32(%rcx)\n"
	"	movq %r15, 40(%rcx)\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size tc_reg_switch, .-tc_reg_switch\n");

void tc_reg_switch(struct act__ctx *from, struct act__ctx *to,
		   const uint64_t in[6], uint64_t out[6]);

static inline void reg_switch(struct act__ctx *from, struct act__ctx *to,
			      const uint64_t in[6], uint64_t out[6])
{
	act__ctx_announce(from, to, 0);
	tc_reg_switch(from, to, in, out);
	act__ctx_arrived(from);
}

static const char *const reg_name[6] = { "rbx", "rbp", "r12",
					 "r13", "r14", "r15" };

enum { REG_ROUNDS = 200 };

static void fill(uint64_t v[6], uint64_t seed)
{
	int i;

	for (i = 0; i < 6; i++)
		v[i] = (seed + 1) * 0x9e3779b97f4a7c15ull ^
		       ((uint64_t)(i + 1) << 56);
}

static uint64_t b_out[REG_ROUNDS][6], b_in[REG_ROUNDS][6];
static int b_rounds;

/* B: each round, come back with its own pattern loaded and see it again
 * when resumed, after main loaded different values in between. */
static void reg_b_entry(void *arg, void *arg2)
{
	int r;

	act__ctx_entered();
	(void)arg;
	(void)arg2;
	for (r = 0; r < REG_ROUNDS; r++) {
		fill(b_in[r], 1000 + r);
		reg_switch(&b_ctx, &main_ctx, b_in[r], b_out[r]);
		b_rounds++;
	}
	for (;;)
		act__ctx_switch(&b_ctx, &main_ctx);
}

START_TEST(callee_saved_survive)
{
	void *stk = stack_alloc();
	uint64_t in[6], out[6];
	int r, i;

	act__ctx_make(&b_ctx, (char *)stk + STACK_LEN, reg_b_entry, NULL, NULL);
	act__ctx_stack(&b_ctx, stk, STACK_LEN);
	for (r = 0; r < REG_ROUNDS; r++) {
		fill(in, r);
		memset(out, 0, sizeof(out));
		reg_switch(&main_ctx, &b_ctx, in, out);
		for (i = 0; i < 6; i++)
			ck_assert_msg(out[i] == in[i],
				      "round %d: %s was %#llx, now %#llx", r,
				      reg_name[i], (unsigned long long)in[i],
				      (unsigned long long)out[i]);
	}
	act__ctx_switch(&main_ctx, &b_ctx); /* B finishes its last round */
	ck_assert_int_eq(b_rounds, REG_ROUNDS);
	for (r = 0; r < REG_ROUNDS; r++)
		for (i = 0; i < 6; i++)
			ck_assert_msg(b_out[r][i] == b_in[r][i],
				      "B round %d: %s was %#llx, now %#llx", r,
				      reg_name[i],
				      (unsigned long long)b_in[r][i],
				      (unsigned long long)b_out[r][i]);
	munmap(stk, STACK_LEN);
}
END_TEST

static uint32_t get_mxcsr(void)
{
	uint32_t v;

	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static void set_mxcsr(uint32_t v)
{
	__asm__ volatile("ldmxcsr %0" : : "m"(v));
}

static uint16_t get_x87cw(void)
{
	uint16_t v;

	__asm__ volatile("fnstcw %0" : "=m"(v));
	return v;
}

static void set_x87cw(uint16_t v)
{
	__asm__ volatile("fldcw %0" : : "m"(v));
}

#define MXCSR_RC_MASK 0x6000u
#define MXCSR_FTZ 0x8000u
#define MXCSR_DAZ 0x0040u
#define MXCSR_FLAGS 0x003fu
#define X87_RC_MASK 0x0c00u
#define X87_PC_MASK 0x0300u
#endif /* __x86_64__ */

/* ---- floating-point control state is per context ------------------------ */

struct fp_state {
	int round;
	double third; /* 1/3 under that rounding */
#ifdef __x86_64__
	uint32_t mxcsr;
	uint16_t x87cw;
#endif
};

static void fp_read(struct fp_state *s)
{
	volatile double one = 1.0, three = 3.0;

	/* control state first: the division sets the sticky inexact flag */
#ifdef __x86_64__
	s->mxcsr = get_mxcsr();
	s->x87cw = get_x87cw();
#endif
	s->round = fegetround();
	s->third = one / three;
}

enum { FP_ROUNDS = 50 };

static struct fp_state fp_b_first, fp_b_seen[FP_ROUNDS];
static int fp_b_rounds;
static int fp_b_mode[FP_ROUNDS];

/* B reads what A left, then sets a mode of its own for A to see. */
static void fp_b_entry(void *arg, void *arg2)
{
	int r;

	act__ctx_entered();
	(void)arg;
	(void)arg2;
	fp_read(&fp_b_first);
	for (r = 0; r < FP_ROUNDS; r++) {
		fp_b_mode[r] = r % 2 ? FE_UPWARD : FE_TOWARDZERO;
		ck_assert_int_eq(fesetround(fp_b_mode[r]), 0);
		act__ctx_switch(&b_ctx, &main_ctx);
		fp_read(&fp_b_seen[r]);
		fp_b_rounds++;
	}
	for (;;)
		act__ctx_switch(&b_ctx, &main_ctx);
}

/*
 * The switch saves no floating-point control state (that is what makes
 * it cheap): each side sees what the other set last. What a process
 * needs of its own, the runtime swaps for it (ACT_SPAWN_FPENV, below).
 */
START_TEST(fp_control_is_the_threads)
{
	void *stk = stack_alloc();
	struct fp_state seen;
	fenv_t saved;
	int r;

	fegetenv(&saved);
	ck_assert_int_eq(fesetround(FE_DOWNWARD), 0);
	act__ctx_make(&b_ctx, (char *)stk + STACK_LEN, fp_b_entry, NULL, NULL);
	act__ctx_stack(&b_ctx, stk, STACK_LEN);
	for (r = 0; r < FP_ROUNDS; r++) {
		act__ctx_switch(&main_ctx, &b_ctx);
		fp_read(&seen);
		ck_assert_int_eq(seen.round, fp_b_mode[r]);
		/* A's turn: a mode B must see next */
		ck_assert_int_eq(fesetround(FE_DOWNWARD), 0);
	}
	act__ctx_switch(&main_ctx, &b_ctx);
	fesetenv(&saved);

	ck_assert_int_eq(fp_b_first.round, FE_DOWNWARD);
	ck_assert_int_eq(fp_b_rounds, FP_ROUNDS);
	for (r = 0; r < FP_ROUNDS; r++)
		ck_assert_int_eq(fp_b_seen[r].round, FE_DOWNWARD);
	munmap(stk, STACK_LEN);
}
END_TEST

/* ---- act__ctx_make: arguments, stack, alignment ------------------------- */

#ifdef __x86_64__
/* First instruction of the entry: record rsp as the call left it, then
 * continue in C with the arguments untouched (rdi, rsi). */
uintptr_t tc_probe_rsp;
void tc_probe_c(void *arg, void *arg2);
__asm__(".text\n"
	".globl tc_probe_entry\n"
	".hidden tc_probe_entry\n"
	".type tc_probe_entry, @function\n"
	"tc_probe_entry:\n"
	"	movq %rsp, tc_probe_rsp(%rip)\n"
	"	jmp tc_probe_c\n"
	".size tc_probe_entry, .-tc_probe_entry\n");
void tc_probe_entry(void *arg, void *arg2);
#define PROBE_ENTRY tc_probe_entry
#else
/* No asm probe here: the entry's stack alignment is checked through a
 * 16-byte-aligned local only. */
#define PROBE_ENTRY tc_probe_c
void tc_probe_c(void *arg, void *arg2);
#endif

static void *probe_arg, *probe_arg2;
static uintptr_t probe_local;
static int probe_runs;

__attribute__((noinline, used)) void tc_probe_c(void *arg, void *arg2)
{
	_Alignas(16) volatile long double ld = 1.0L;

	act__ctx_entered();
	probe_arg = arg;
	probe_arg2 = arg2;
	probe_local = (uintptr_t)&ld;
	probe_runs++;
	for (;;)
		act__ctx_switch(&b_ctx, &main_ctx);
}

START_TEST(ctx_make_entry)
{
	char *stk = stack_alloc();
	uintptr_t lo = (uintptr_t)stk;
	int off;

	for (off = 0; off < 48; off++) {
		char *hi = stk + STACK_LEN - off;
		void *arg = (void *)(uintptr_t)(0xabc000 + off);
		void *arg2 = (void *)(uintptr_t)(0xdef000 + off);

		probe_arg = probe_arg2 = NULL;
		probe_local = 0;
		act__ctx_make(&b_ctx, hi, PROBE_ENTRY, arg, arg2);
		act__ctx_stack(&b_ctx, stk, (size_t)(hi - stk));
		ck_assert_msg((uintptr_t)b_ctx.sp >= lo &&
				      (uintptr_t)b_ctx.sp < (uintptr_t)hi,
			      "off %d: sp %p outside the stack", off, b_ctx.sp);
		act__ctx_switch(&main_ctx, &b_ctx);
		ck_assert_ptr_eq(probe_arg, arg);
		ck_assert_ptr_eq(probe_arg2, arg2);
		ck_assert_msg(probe_local >= lo && probe_local < (uintptr_t)hi,
			      "off %d: local at %#lx, stack [%#lx, %p)", off,
			      (unsigned long)probe_local, (unsigned long)lo,
			      (void *)hi);
		ck_assert_uint_eq(probe_local % 16, 0);
#ifdef __x86_64__
		/* at a function's first instruction rsp + 8 is 16-aligned */
		ck_assert_msg((tc_probe_rsp + 8) % 16 == 0,
			      "off %d: rsp %#lx at entry", off,
			      (unsigned long)tc_probe_rsp);
		ck_assert(tc_probe_rsp >= lo && tc_probe_rsp < (uintptr_t)hi);
#endif
	}
	ck_assert_int_eq(probe_runs, 48);
	munmap(stk, STACK_LEN);
}
END_TEST

/* The made context leaves the memory above stack_hi alone. */
START_TEST(ctx_make_stays_below_hi)
{
	unsigned char *stk = stack_alloc();
	size_t k, top = 261; /* a misaligned stack_hi */

	memset(stk, 0xee, STACK_LEN);
	act__ctx_make(&b_ctx, stk + STACK_LEN - top, PROBE_ENTRY, NULL, NULL);
	act__ctx_stack(&b_ctx, stk, STACK_LEN - top);
	act__ctx_switch(&main_ctx, &b_ctx);
	act__ctx_switch(&main_ctx, &b_ctx); /* resumed once more */
	for (k = STACK_LEN - top; k < STACK_LEN; k++)
		ck_assert_msg(stk[k] == 0xee, "byte hi+%zu written",
			      k - (STACK_LEN - top));
	munmap(stk, STACK_LEN);
}
END_TEST

/* ---- through the runtime: ACT_SPAWN_FPENV ------------------------------- */

enum { YIELDS = 1000 };

struct rounder {
	struct fp_state own; /* what it set up (FPENV), or the defaults */
	int mode;	     /* its rounding mode; FE_TONEAREST: plain */
	bool fpenv;	     /* spawned with ACT_SPAWN_FPENV */
	int bad;	     /* yields after which the state was not own */
	int interleaved;     /* yields during which another one ran */
	int done;
	volatile int *other_progress;
	volatile int progress;
	act_pid parent;
};

static void rounder_main(void *arg)
{
	struct rounder *r = arg;
	struct fp_state now;
	int i, before;

	if (r->fpenv) {
		/* more than the rounding bits: FTZ/DAZ, the x87 precision */
		ck_assert_int_eq(fesetround(r->mode), 0);
#ifdef __x86_64__
		set_mxcsr(get_mxcsr() | MXCSR_FTZ | MXCSR_DAZ);
		set_x87cw((uint16_t)(get_x87cw() & ~X87_PC_MASK)); /* 24-bit */
#endif
	}
	fp_read(&r->own);
	for (i = 0; i < YIELDS; i++) {
		before = *r->other_progress;
		act_yield();
		r->progress++;
		if (*r->other_progress != before)
			r->interleaved++;
		fp_read(&now);
		if (now.round != r->own.round || now.third != r->own.third)
			r->bad++;
#ifdef __x86_64__
		if (((now.mxcsr ^ r->own.mxcsr) & ~MXCSR_FLAGS) ||
		    now.x87cw != r->own.x87cw)
			r->bad++;
#endif
	}
	r->done = 1;
	ck_assert_int_eq(act_send(r->parent, 1, NULL, 0), 0);
}

static struct rounder rd[3];
static int main_round_after;

static void rounding_main(void *arg)
{
	struct act_spawn_opts fp = { .flags = ACT_SPAWN_FPENV };
	struct act_msg *m;
	int i;

	(void)arg;
	rd[0] = (struct rounder){ .mode = FE_DOWNWARD,
				  .fpenv = true,
				  .other_progress = &rd[1].progress,
				  .parent = act_self() };
	rd[1] = (struct rounder){ .mode = FE_UPWARD,
				  .fpenv = true,
				  .other_progress = &rd[2].progress,
				  .parent = act_self() };
	/* a plain process between them: it must see the defaults only */
	rd[2] = (struct rounder){ .mode = FE_TONEAREST,
				  .other_progress = &rd[0].progress,
				  .parent = act_self() };
	ck_assert_uint_ne(act_spawn_opt(rounder_main, &rd[0], &fp).id, 0);
	ck_assert_uint_ne(act_spawn_opt(rounder_main, &rd[1], &fp).id, 0);
	ck_assert_uint_ne(act_spawn(rounder_main, &rd[2]).id, 0);
	for (i = 0; i < 3; i++) {
		m = act_receive(ACT_FOREVER);
		ck_assert_ptr_nonnull(m);
		act_msg_free(m);
	}
	main_round_after = fegetround();
}

/*
 * One worker: the three processes must take turns on one thread, each
 * switch swapping the state of an FPENV process in or out, which is what
 * is checked (interleaved). On more workers they may run side by side on
 * threads of their own and never switch to each other.
 */
START_TEST(rt_fpenv_per_process)
{
	struct act_config cfg = tu_with_workers(1);
	int i;

	ck_assert_int_eq(act_main(&cfg, rounding_main, NULL), 0);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(rd[i].done, 1);
		ck_assert_int_eq(rd[i].progress, YIELDS);
		ck_assert_msg(rd[i].bad == 0,
			      "process %d: its state changed "
			      "%d times across a yield",
			      i, rd[i].bad);
		/* they did take turns: a test of nothing otherwise */
		ck_assert_int_ge(rd[i].interleaved, YIELDS / 2);
	}
	ck_assert_int_eq(rd[0].own.round, FE_DOWNWARD);
	ck_assert_int_eq(rd[1].own.round, FE_UPWARD);
	/* the two modes really differ in effect */
	ck_assert(rd[0].own.third < rd[1].own.third);
	/* the plain one started from, and kept, the defaults */
	ck_assert_int_eq(rd[2].own.round, FE_TONEAREST);
#ifdef __x86_64__
	ck_assert_uint_eq(rd[2].own.mxcsr & ~MXCSR_FLAGS, 0x1f80);
	ck_assert_uint_eq(rd[2].own.x87cw, 0x037f);
	ck_assert_uint_eq(rd[0].own.mxcsr & (MXCSR_FTZ | MXCSR_DAZ),
			  MXCSR_FTZ | MXCSR_DAZ);
#endif
	/* the main process kept the default mode */
	ck_assert_int_eq(main_round_after, FE_TONEAREST);
	/* and the thread that ran act_main has its own back */
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
}
END_TEST

/* An FPENV process that exits, is killed... leaves its worker's state as
 * it found it: a process spawned after it sees the defaults. */
static int after_exit_mode = -1;

static void fpenv_exit_child(void *arg)
{
	(void)arg;
	ck_assert_int_eq(fesetround(FE_UPWARD), 0);
}

static void after_child(void *arg)
{
	(void)arg;
	after_exit_mode = fegetround();
}

static void fpenv_exit_main(void *arg)
{
	struct act_spawn_opts fp = { .flags = ACT_SPAWN_FPENV |
					      ACT_SPAWN_MONITOR };
	struct act_msg *m;

	(void)arg;
	ck_assert_uint_ne(act_spawn_opt(fpenv_exit_child, NULL, &fp).id, 0);
	m = act_receive(ACT_FOREVER); /* its DOWN: it has exited */
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	act_msg_free(m);
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
	fp.flags = ACT_SPAWN_MONITOR;
	ck_assert_uint_ne(act_spawn_opt(after_child, NULL, &fp).id, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	act_msg_free(m);
}

START_TEST(rt_fpenv_exit_restores)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(act_main(&cfg, fpenv_exit_main, NULL), 0);
	ck_assert_int_eq(after_exit_mode, FE_TONEAREST);
}
END_TEST

static int thread_mode_in_proc = -1;

static void read_mode_main(void *arg)
{
	(void)arg;
	thread_mode_in_proc = fegetround();
	ck_assert_int_eq(fesetround(FE_TOWARDZERO), 0);
	act_yield();
	ck_assert_int_eq(fegetround(), FE_TOWARDZERO);
}

/*
 * A process's mode does not leak into the thread that called act_main.
 * One worker: a plain process runs with its worker thread's state, which
 * it keeps across a yield only while it stays on that thread.
 */
START_TEST(rt_rounding_not_leaked)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(fesetround(FE_UPWARD), 0);
	ck_assert_int_eq(act_main(&cfg, read_mode_main, NULL), 0);
	ck_assert_int_eq(fegetround(), FE_UPWARD);
	/* processes start from the default, whatever the thread had */
	ck_assert_int_eq(thread_mode_in_proc, FE_TONEAREST);
	fesetround(FE_TONEAREST);
}
END_TEST

static Suite *ctx_suite(void)
{
	Suite *s = suite_create("ctx");
	TCase *tc = tcase_create("switch");

#ifdef __x86_64__
	tcase_add_test(tc, callee_saved_survive);
#endif
	/* Other architectures: no register test here; aarch64's x19-x28,
	 * fp, lr and d8-d15 need an asm helper of their own. */
	tcase_add_test(tc, fp_control_is_the_threads);
	tcase_add_test(tc, ctx_make_entry);
	tcase_add_test(tc, ctx_make_stays_below_hi);
	suite_add_tcase(s, tc);

	tc = tcase_create("runtime");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, rt_fpenv_per_process);
	tcase_add_test(tc, rt_fpenv_exit_restores);
	tcase_add_test(tc, rt_rounding_not_leaked);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(ctx_suite());
}
