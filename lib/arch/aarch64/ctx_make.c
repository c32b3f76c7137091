/* SPDX-License-Identifier: MIT */
/*
 * Build the first frame of a new AArch64 context; it matches the layout
 * that ctx.S restores (see the comment there).
 */
#include <stdint.h>
#include <string.h>

#include "arch/ctx.h"

void act__ctx_trampoline(void);

void act__ctx_make(struct act__ctx *ctx, void *stack_hi,
		   void (*entry)(void *, void *), void *arg, void *arg2)
{
	uintptr_t top = (uintptr_t)stack_hi & ~(uintptr_t)15;
	uint64_t *f = (uint64_t *)(top - 176);

	memset(f, 0, 176);
	f[0] = (uint64_t)(uintptr_t)entry;		  /* x19 */
	f[1] = (uint64_t)(uintptr_t)arg;		  /* x20 */
	f[2] = (uint64_t)(uintptr_t)arg2;		  /* x21 */
	f[11] = (uint64_t)(uintptr_t)act__ctx_trampoline; /* x30 (lr) */
	ctx->sp = f;
#ifdef ACT_TSAN
	/* A context made again without act__ctx_destroy (a test's reused
	 * context) must not keep its old fiber's shadow stack. */
	if (ctx->fiber)
		__tsan_destroy_fiber(ctx->fiber);
	ctx->fiber = __tsan_create_fiber(0); /* dies rather than fail */
#endif
}
