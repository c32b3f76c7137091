/* SPDX-License-Identifier: MIT */
/*
 * arch_smoke.c - a smoke test of the context switch of another
 * architecture, built with the public API only, without Check (so it can
 * be cross-compiled and run under qemu-user by scripts/check-aarch64.sh).
 *
 *   arch_smoke           two processes with different FP rounding modes,
 *                        spawned with ACT_SPAWN_FPENV, yield to each
 *                        other 1,000 times: each keeps its own (FPCR /
 *                        MXCSR swapped by the runtime), and 10,000 spawned
 *                        processes each return their argument in a
 *                        message (callee-saved registers and the
 *                        trampoline); exit 0 when both hold.
 *   arch_smoke overflow  a process recurses without end: the runtime must
 *                        report the overflow and exit with status 134.
 */
#include <actors.h>
#include <fenv.h>
#include <stdio.h>
#include <string.h>

static int bad;
static volatile int forever = 1; /* keeps the compiler from judging it */

static int depth(int n)
{
	volatile char buf[512];

	buf[0] = (char)n;
	return forever ? depth(n + 1) + buf[0] : 0;
}

static void recurse(void *arg)
{
	(void)arg;
	depth(0);
}

static void rounding(void *arg)
{
	int i, want = *(int *)arg;

	fesetround(want);
	for (i = 0; i < 1000; i++) {
		act_yield();
		bad += fegetround() != want;
	}
}

static void echo(void *arg)
{
	act_pid parent = *(act_pid *)arg;
	long v = (long)act_self().id;

	act_send(parent, 1, &v, sizeof(v));
}

static void main_proc(void *arg)
{
	static int up = FE_UPWARD, down = FE_DOWNWARD;
	struct act_spawn_opts fp = { .flags = ACT_SPAWN_FPENV };
	act_pid self = act_self(), kid;
	struct act_msg *m;
	long v;
	int i;

	if (arg) {
		act_spawn(recurse, NULL);
		act_yield();
		return;
	}
	act_spawn_opt(rounding, &up, &fp);
	act_spawn_opt(rounding, &down, &fp);
	for (i = 0; i < 10000; i++) {
		kid = act_spawn(echo, &self);
		m = act_receive(ACT_FOREVER);
		memcpy(&v, m->data, sizeof(v));
		bad += m->from.id != kid.id || (uint64_t)v != kid.id;
		act_msg_free(m);
	}
	for (i = 0; i < 3000; i++)
		act_yield();
}

int main(int argc, char **argv)
{
	int rc = act_main(NULL, main_proc, argc > 1 ? argv : NULL);

	printf("%d passed, %d failed\n", rc == 0 && !bad, rc != 0 || bad);
	return rc != 0 || bad;
}
