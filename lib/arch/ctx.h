/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - the one interface to the architecture's context switch.
 *
 * A context is the saved stack pointer of a suspended execution; the
 * callee-saved registers and the floating-point control state (x86-64:
 * MXCSR and the x87 control word; aarch64: FPCR and d8-d15) are pushed on
 * that stack by act__ctx_switch. The implementations live in
 * lib/arch/<arch>/ctx.S; no other file contains assembly.
 */
#ifndef ACT_ARCH_CTX_H
#define ACT_ARCH_CTX_H

#include <stddef.h>

struct act__ctx {
	void *sp;
};

/*
 * Save the caller's registers on its stack, store the stack pointer in
 * *from, load to->sp and resume whatever was saved there. Returns when
 * some later act__ctx_switch() names `from` as its target.
 */
void act__ctx_switch(struct act__ctx *from, struct act__ctx *to);

/*
 * Prepare ctx so that the first switch to it calls entry(arg) on the stack
 * [stack_lo, stack_hi). entry must never return.
 */
void act__ctx_make(struct act__ctx *ctx, void *stack_hi,
		   void (*entry)(void *), void *arg);

#endif /* ACT_ARCH_CTX_H */
