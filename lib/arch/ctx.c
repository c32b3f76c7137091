/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - what the context switch needs out of line, on any
 * architecture: under ASan, a thread's own stack bounds (ctx.h).
 */
#include <pthread.h>

#include "ctx.h"

#ifdef ACT_ASAN
void act__ctx_native_stack(struct act__ctx *ctx)
{
	pthread_attr_t a;
	void *lo = NULL;
	size_t size = 0;

	/* the main thread's comes from its rlimit and /proc/self/maps:
	 * read once per thread, at its first switch away */
	if (!pthread_getattr_np(pthread_self(), &a)) {
		pthread_attr_getstack(&a, &lo, &size);
		pthread_attr_destroy(&a);
	}
	ctx->stack_lo = lo;
	ctx->stack_size = size;
}
#else
/* nothing: the switch needs nothing out of line (ISO C wants a
 * declaration in a translation unit) */
typedef int act__ctx_nothing;
#endif
