/* SPDX-License-Identifier: MIT */
/*
 * 8bda4df-idle-stacks-kept.c - after a burst of spawns the free process
 * stacks stayed resident for the whole run, however long the runtime
 * then sat idle.
 *
 * Found by measuring kv_server's RSS after bursts of clients (issue 33):
 * 15.9 MiB of stack pages after three bursts of 4,000 connections, each
 * one's process gone. A worker's cache keeps up to 256 free stacks of a
 * size warm, and the rest of a burst's went to its home's shared list
 * with their pages still touched. Fixed in 8bda4df: a worker with
 * nothing to run gives back the pages of the shared list's free stacks,
 * 128 at a time, and keeps them cold for the next spawns
 * (lib/mem/stack.c act__stack_trim, called from lib/sched/worker.c's
 * idle_loop).
 *
 * Here one worker spawns N processes of 64 KiB stacks, each writing 3
 * pages of its stack, all alive at once (N stacks taken), then lets them
 * exit and sleeps: the worker is idle. Until every stack on the shared
 * list is cold and at least N - 256 are (20 s at most: a bound, not a
 * timing), then at least N - 256 of the burst's stacks must have no page
 * resident (mincore). Without the fix none is ever cold, in every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../testrt.h"
#include "mem/stack.h"
#include "sched/worker.h"

enum { N = 1000, PAGES = 3, STACK = 65536, WARM = 256 };
static void *lo[N];
static act_pid pids[N];
static _Atomic int started;

static void child(void *arg)
{
	volatile char deep[PAGES * 4096];
	size_t k;

	for (k = 0; k < sizeof(deep); k += 256)
		deep[k] = (char)k;
	lo[(intptr_t)arg] = tu_self_proc()->stack_lo;
	atomic_fetch_add(&started, 1);
	act_msg_free(act_receive(ACT_FOREVER));
}

/* The burst's stacks with no page resident. */
static int stacks_gone(void)
{
	unsigned char vec[STACK / 4096];
	int i, n = 0;
	size_t k, in;

	for (i = 0; i < N; i++) {
		ck_assert_int_eq(mincore(lo[i], STACK, vec), 0);
		for (k = 0, in = 0; k < sizeof(vec); k++)
			in += vec[k] & 1;
		n += in == 0;
	}
	return n;
}

static void burst_main(void *arg)
{
	int home = act__tls_worker_self()->stacks.home, i, gone;
	int64_t deadline = 0;
	uint32_t all = 0, cold = 0;
	struct act_msg *m;

	(void)arg;
	for (i = 0; i < N; i++) {
		pids[i] = act_spawn(child, (void *)(intptr_t)i);
		ck_assert_uint_ne(pids[i].id, 0);
		ck_assert_uint_ne(act_monitor(pids[i]), 0);
	}
	for (i = 0; atomic_load(&started) < N; i++)
		ck_assert_msg(tu_wait_step(&deadline, i),
			      "%d of %d children started",
			      atomic_load(&started), N);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(act_send(pids[i], 1, NULL, 0), 0);
	for (i = 0; i < N; i++) {
		m = act_receive(TU_WAIT);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
		act_msg_free(m);
	}
	/* the stacks come back just after the DOWNs; the worker trims
	 * while this process sleeps (tu_wait_step, 20 s at most) */
	deadline = 0;
	for (i = 0;; i++) {
		all = act__stack_shared_n(home, STACK, NULL);
		cold = act__stack_shared_cold_n(home, STACK);
		if ((all == cold && cold >= N - WARM) ||
		    !tu_wait_step(&deadline, i))
			break;
	}
	ck_assert_msg(all == cold && cold >= N - WARM,
		      "idle for 20 s after %d processes exited: the shared "
		      "list holds %u free stacks, %u of them cold",
		      N, all, cold);
	gone = stacks_gone();
	ck_assert_msg(gone >= N - WARM,
		      "%d of %d freed stacks have no page resident", gone, N);
}

START_TEST(idle_gives_back_stacks)
{
	struct act_config cfg = tu_with_workers(1);

	cfg.stack_size = STACK;
	ck_assert_int_eq(tu_run_main(&cfg, burst_main, NULL), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("8bda4df");
	TCase *tc = tcase_create("idle-stacks-kept");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, idle_gives_back_stacks);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
