/* SPDX-License-Identifier: MIT */
/*
 * AArch64 (AAPCS64) context switch.
 *
 * Saved frame (176 bytes), from the new sp upwards:
 *   [sp+0]   x19 x20   [sp+16] x21 x22   [sp+32] x23 x24
 *   [sp+48]  x25 x26   [sp+64] x27 x28   [sp+80] x29 x30 (fp, lr)
 *   [sp+96]  d8 d9     [sp+112] d10 d11  [sp+128] d12 d13
 *   [sp+144] d14 d15   [sp+160] pad (16-byte alignment)
 * FPCR is the thread's, not the context's: a process that changes it is
 * spawned with ACT_SPAWN_FPENV, and the runtime swaps it around that
 * process's switches (arch/fp.h).
 */
	.text

	.globl	act__ctx_switch_asm
	.hidden	act__ctx_switch_asm
	.type	act__ctx_switch_asm, %function
	.p2align 4
act__ctx_switch_asm:
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mov	x9, sp
	str	x9, [x0]
	ldr	x9, [x1]
	mov	sp, x9
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #176
	ret
	.size	act__ctx_switch_asm, .-act__ctx_switch_asm

/* First code on a new stack: x19 = entry, x20 = arg, x21 = arg2, lr was
 * set here. */
	.globl	act__ctx_trampoline
	.hidden	act__ctx_trampoline
	.type	act__ctx_trampoline, %function
	.p2align 4
act__ctx_trampoline:
	mov	x29, #0
	mov	x0, x20
	mov	x1, x21
	blr	x19
	brk	#0
	.size	act__ctx_trampoline, .-act__ctx_trampoline

	.section .note.GNU-stack,"",%progbits
