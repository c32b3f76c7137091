/* SPDX-License-Identifier: MIT */
/*
 * x86-64 System V context switch.
 *
 * Saved frame, from the new sp upwards:
 *   [sp+0]  r15 r14 r13 r12 rbx rbp
 *   [sp+48] return address
 * Everything else is caller-saved under the ABI, so the C caller already
 * assumes it is clobbered by the call. The floating-point control state
 * (MXCSR, the x87 control word) is the thread's, not the context's: a
 * process that changes it is spawned with ACT_SPAWN_FPENV, and the
 * runtime swaps it around that process's switches (arch/fp.h).
 */
	.text

	.globl	act__ctx_switch_asm
	.hidden	act__ctx_switch_asm
	.type	act__ctx_switch_asm, @function
	.p2align 4
/* void act__ctx_switch_asm(struct act__ctx *from (rdi),
 *                          struct act__ctx *to (rsi)) */
act__ctx_switch_asm:
	.cfi_startproc
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	(%rsi), %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	act__ctx_switch_asm, .-act__ctx_switch_asm

/*
 * First code run on a new stack: r12 = entry, r13 = arg, r14 = arg2
 * (popped by the switch). The frame built by act__ctx_make leaves rsp
 * 16-byte aligned here, so the call below enters entry with the ABI's
 * alignment.
 */
	.globl	act__ctx_trampoline
	.hidden	act__ctx_trampoline
	.type	act__ctx_trampoline, @function
	.p2align 4
act__ctx_trampoline:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	movq	%r13, %rdi
	movq	%r14, %rsi
	callq	*%r12
	ud2
	.cfi_endproc
	.size	act__ctx_trampoline, .-act__ctx_trampoline

	.section .note.GNU-stack,"",@progbits
