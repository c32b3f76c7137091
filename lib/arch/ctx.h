/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - the one interface to the architecture's context switch.
 *
 * A context is the saved stack pointer of a suspended execution; the
 * callee-saved registers (aarch64: with d8-d15) are pushed on that stack
 * by act__ctx_switch_asm. The floating-point control state stays the
 * thread's (arch/fp.h has why and who keeps one of their own). The implementations live in
 * lib/arch/<arch>/ctx.S; no other file contains assembly.
 *
 * Under ThreadSanitizer (ACT_TSAN) every context is also a
 * TSan fiber, and act__ctx_switch tells TSan about the switch just before
 * it happens, so TSan keeps one shadow stack and one clock per process
 * instead of seeing a thread's stack pointer jump. Under AddressSanitizer
 * (ACT_ASAN) a context knows its stack, and each switch is announced as
 * ASan's fiber switch (__sanitizer_start_switch_fiber before, _finish
 * after, on the stack switched to), so that ASan checks every access
 * against the stack that runs, and unpoisons the right one when a
 * process ends (act_exit is noreturn). Without either the wrapper is the
 * bare call and the struct the bare stack pointer.
 */
#ifndef ACT_ARCH_CTX_H
#define ACT_ARCH_CTX_H

#include <stddef.h>

#ifdef HAVE_CONFIG_H
#include "config.h" /* ACT_TSAN from ./configure --enable-sanitizer=thread */
#endif

/* A file compiled with -fsanitize=thread but without config.h (a test,
 * the AArch64 smoke build) must agree with the library on the struct. */
#ifndef ACT_TSAN
#if defined(__SANITIZE_THREAD__)
#define ACT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ACT_TSAN 1
#endif
#endif
#endif

/* The same for ASan (-fsanitize=address): ACT_ASAN. */
#include "asan.h"

#ifdef ACT_ASAN
/* ASan's fiber interface, as <sanitizer/common_interface_defs.h>
 * declares it. */
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom,
				    size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save,
				     const void **bottom_old, size_t *size_old);
#endif

#ifdef ACT_TSAN
/* TSan's fiber interface, as <sanitizer/tsan_interface.h> declares it. */
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

struct act__ctx {
	void *sp; /* offset 0: the only field ctx.S knows */
#ifdef ACT_TSAN
	/* The TSan fiber of this context: made by act__ctx_make for a
	 * process; for a thread's own context (a worker's sched_ctx) the
	 * thread's fiber, taken at its first switch away. */
	void *fiber;
#endif
#ifdef ACT_ASAN
	/* The stack it runs on (act__ctx_stack for a process; a thread's
	 * own, read at its first switch away: act__ctx_native_stack), and
	 * ASan's fake stack of its frames while it is switched out. */
	const void *stack_lo;
	size_t stack_size;
	void *fake_stack;
#endif
};

#ifdef ACT_ASAN
/* ctx is the running thread's own stack: record its bounds (pthread's
 * attributes; out of line, once a thread). */
void act__ctx_native_stack(struct act__ctx *ctx);
#endif

/* ctx (just made) runs on [lo, lo + size): what ASan's switch names. */
static inline void act__ctx_stack(struct act__ctx *ctx, void *lo, size_t size)
{
#ifdef ACT_ASAN
	ctx->stack_lo = lo;
	ctx->stack_size = size;
	ctx->fake_stack = NULL;
#else
	(void)ctx;
	(void)lo;
	(void)size;
#endif
}

/* First thing on a new context's stack (its entry): the switch that
 * started it is over. */
static inline void act__ctx_entered(void)
{
#ifdef ACT_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
}

/*
 * The switch itself, in ctx.S: save the caller's registers on its stack,
 * store the stack pointer in *from, load to->sp and resume whatever was
 * saved there. Call it through act__ctx_switch only.
 */
void act__ctx_switch_asm(struct act__ctx *from, struct act__ctx *to);

/*
 * What a switch from `from` to `to` must tell TSan, immediately before
 * act__ctx_switch_asm; nothing without ACT_TSAN. Separate from the
 * wrapper for callers that reach the asm some other way (tests).
 */
static inline void act__ctx_announce(struct act__ctx *from, struct act__ctx *to,
				     int last)
{
#ifdef ACT_TSAN
	if (!from->fiber)
		from->fiber = __tsan_get_current_fiber();
	/* flags 0: the switch synchronises, as the hand-over of one
	 * thread of control does */
	__tsan_switch_to_fiber(to->fiber, 0);
#endif
#ifdef ACT_ASAN
	if (!from->stack_size)
		act__ctx_native_stack(from);
	/* last: from never runs again (an exit): no fake stack to keep */
	__sanitizer_start_switch_fiber(last ? NULL : &from->fake_stack,
				       to->stack_lo, to->stack_size);
#endif
	(void)from;
	(void)to;
	(void)last;
}

/* Back on from's stack after a switch away: what ASan is told. */
static inline void act__ctx_arrived(struct act__ctx *from)
{
#ifdef ACT_ASAN
	__sanitizer_finish_switch_fiber(from->fake_stack, NULL, NULL);
#else
	(void)from;
#endif
}

/*
 * Switch from the running context, saved into *from, to *to. Returns when
 * some later act__ctx_switch() names `from` as its target. `to` was made
 * by act__ctx_make or saved by an earlier switch.
 */
static inline void act__ctx_switch(struct act__ctx *from, struct act__ctx *to)
{
	act__ctx_announce(from, to, 0);
	act__ctx_switch_asm(from, to);
	act__ctx_arrived(from);
}

/* The last switch away from `from` (its process exits): never returns,
 * and under ASan its fake stack goes. */
static inline void act__ctx_switch_last(struct act__ctx *from,
					struct act__ctx *to)
{
	act__ctx_announce(from, to, 1);
	act__ctx_switch_asm(from, to);
}

/*
 * Prepare ctx so that the first switch to it calls entry(arg, arg2) on the
 * stack [stack_lo, stack_hi). entry must never return. Under TSan this
 * also makes ctx's fiber; pair it with act__ctx_destroy. (Two arguments:
 * a process's entry gets its slot and its argument, so that the slot
 * need not keep the argument, the frame does.)
 */
void act__ctx_make(struct act__ctx *ctx, void *stack_hi,
		   void (*entry)(void *, void *), void *arg, void *arg2);

/*
 * ctx will not be switched to again (its process was reaped): free what
 * act__ctx_make allocated. Never the running context. Nothing without
 * ACT_TSAN.
 */
static inline void act__ctx_destroy(struct act__ctx *ctx)
{
#ifdef ACT_TSAN
	if (ctx->fiber)
		__tsan_destroy_fiber(ctx->fiber);
	ctx->fiber = NULL;
#else
	(void)ctx;
#endif
}

#endif /* ACT_ARCH_CTX_H */
