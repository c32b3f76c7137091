/* SPDX-License-Identifier: MIT */
/*
 * Build the first frame of a new x86-64 context; it matches the layout
 * that ctx.S pops (see the comment there).
 */
#include <stdint.h>
#include <string.h>

#include "arch/ctx.h"

void act__ctx_trampoline(void);

void act__ctx_make(struct act__ctx *ctx, void *stack_hi,
		   void (*entry)(void *, void *), void *arg, void *arg2)
{
	uintptr_t top = (uintptr_t)stack_hi & ~(uintptr_t)15;
	/* 7 words: popped, the trampoline starts with rsp at top */
	uint64_t *f = (uint64_t *)(top - 56);

	f[0] = 0;			   /* r15 */
	f[1] = (uint64_t)(uintptr_t)arg2;  /* r14 */
	f[2] = (uint64_t)(uintptr_t)arg;   /* r13 */
	f[3] = (uint64_t)(uintptr_t)entry; /* r12 */
	f[4] = 0;			   /* rbx */
	f[5] = 0;			   /* rbp */
	f[6] = (uint64_t)(uintptr_t)act__ctx_trampoline;
	ctx->sp = f;
#ifdef ACT_TSAN
	/* A context made again without act__ctx_destroy (a test's reused
	 * context) must not keep its old fiber's shadow stack. */
	if (ctx->fiber)
		__tsan_destroy_fiber(ctx->fiber);
	ctx->fiber = __tsan_create_fiber(0); /* dies rather than fail */
#endif
}
