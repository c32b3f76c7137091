/* SPDX-License-Identifier: MIT */
/*
 * tls.h - reading the calling thread's worker pointer (I8).
 *
 * A process may resume on another thread after any switch, so the address
 * of a __thread variable must never be kept across one. On x86-64 the read
 * is one `asm volatile` that the compiler can neither cache nor move
 * across memory operations (the "memory" clobber): every call site reads
 * %fs afresh. Elsewhere act__tls_worker_self() is an opaque function.
 */
#ifndef ACT_ARCH_TLS_H
#define ACT_ARCH_TLS_H

struct act__worker;

#if defined(__x86_64__)
#define ACT_TLS_INLINE 1
extern __thread struct act__worker *act__tls_worker
	__attribute__((tls_model("initial-exec")));

static inline struct act__worker *act__tls_worker_self(void)
{
	struct act__worker *w;

	__asm__ volatile("movq act__tls_worker@gottpoff(%%rip), %0\n\t"
			 "movq %%fs:(%0), %0"
			 : "=r"(w)
			 :
			 : "memory");
	return w;
}
#else
#define ACT_TLS_INLINE 0
struct act__worker *act__tls_worker_self(void);
#endif

/* Set the calling thread's worker (NULL: none); the thread's own. */
void act__tls_set_worker(struct act__worker *w);

#endif /* ACT_ARCH_TLS_H */
