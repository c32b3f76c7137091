/* SPDX-License-Identifier: MIT */
/*
 * fp.h - the floating-point control state a process spawned with
 * ACT_SPAWN_FPENV keeps for itself (x86-64: MXCSR and the x87 control
 * word; aarch64: FPCR). The context switch (ctx.S) does not save it:
 * reading MXCSR alone cost 1.6 ns a switch on the development VMs, 5% of
 * a message (doc/design/scheduling.md), for a state almost no process
 * changes. Every other process runs with its worker thread's, which the
 * worker sets to these defaults when it starts.
 */
#ifndef ACT_ARCH_FP_H
#define ACT_ARCH_FP_H

#include <stdint.h>

struct act__fpctl {
#if defined(__x86_64__)
	uint32_t mxcsr;
	uint16_t x87cw;
#elif defined(__aarch64__)
	uint64_t fpcr;
#endif
};

/* The state a new thread gets from the ABI: round to nearest, every
 * exception masked, no flush to zero; x87: 64-bit precision. */
static inline void act__fp_default(struct act__fpctl *f)
{
#if defined(__x86_64__)
	f->mxcsr = 0x1f80;
	f->x87cw = 0x037f;
#elif defined(__aarch64__)
	f->fpcr = 0;
#else
	(void)f;
#endif
}

static inline void act__fp_load(const struct act__fpctl *f);

/* Load the defaults: a worker's start, act_main's. */
static inline void act__fp_load_default(void)
{
	struct act__fpctl f;

	act__fp_default(&f);
	act__fp_load(&f);
}

static inline void act__fp_save(struct act__fpctl *f)
{
#if defined(__x86_64__)
	__asm__ volatile("stmxcsr %0\n\tfnstcw %1"
			 : "=m"(f->mxcsr), "=m"(f->x87cw));
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("mrs %0, fpcr" : "=r"(v));
	f->fpcr = v;
#else
	(void)f;
#endif
}

/* A "memory" clobber: floating-point code must not move across it. */
static inline void act__fp_load(const struct act__fpctl *f)
{
#if defined(__x86_64__)
	__asm__ volatile("ldmxcsr %0\n\tfldcw %1"
			 :
			 : "m"(f->mxcsr), "m"(f->x87cw)
			 : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("msr fpcr, %0" : : "r"(f->fpcr) : "memory");
#else
	(void)f;
#endif
}

#endif /* ACT_ARCH_FP_H */
