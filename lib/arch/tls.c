/* SPDX-License-Identifier: MIT */
/* tls.c - the calling thread's worker pointer (tls.h). */
#include "tls.h"

/* Per thread; read only through act__tls_worker_self (I8). `used`: on x86-64
 * only the asm in arch/tls.h names it, so LTO would drop it otherwise. */
__thread struct act__worker *act__tls_worker
	__attribute__((used, tls_model("initial-exec")));

#if !ACT_TLS_INLINE
#if defined(__clang__)
#define OPAQUE __attribute__((noinline))
#else
#define OPAQUE __attribute__((noipa))
#endif
OPAQUE struct act__worker *act__tls_worker_self(void)
{
	/* Opaque to the optimiser, so no caller reuses the result across a
	 * switch; the clobber keeps the body from being judged pure. */
	__asm__ volatile("" ::: "memory");
	return act__tls_worker;
}
#endif

void act__tls_set_worker(struct act__worker *w)
{
	act__tls_worker = w;
}
