/* SPDX-License-Identifier: MIT */
/*
 * 2b8699c-envelope-receiver-race.c - a send wrote an envelope's receiver
 * plain while act_process_info's walk of a mailbox read it atomic.
 *
 * Found by TSan in CI (tests/sup-diff.sh: the supervisor's liveness check
 * calls act_process_info). The walk (act__mailbox_count) can still be at
 * an envelope that its owner has freed when a send hands the envelope out
 * again; the send's store to the receiver word (struct act__envelope's
 * to_id, lib/mem/slab.h) raced with the walk's load. Fixed in 2b8699c:
 * the send stores it relaxed atomic (lib/actor/message.c send_env).
 *
 * Here a walk at a slab envelope waits, in act__mailbox_walk_hook, while
 * the envelope's owner frees it and sends again: one worker, so the free
 * goes to the list the next send takes from. The target records the
 * envelope it freed, main the one it got back, and the setup is tried
 * again until they are the same one (the premise). Without the fix the
 * TSan build reports the race (the program exits 66); other builds run
 * the same steps, where the race is silent.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "proc/mailbox.h"
#include "../testrt.h"

#define TAG_FREE 6u
#define TAG_SMALL 7u
#define TAG_REUSE 8u
#define TRIES 20

static struct reuse_res {
	act_pid main, target;
	_Atomic(const struct act_msg *) freed_msg; /* the envelope freed */
	_Atomic int hooked, walked, rc;
	/* relaxed on both sides: no happens-before from the reusing send
	 * to the walk, as between any sender and an observer */
	_Atomic int reused;
} rr;

static void reuse_target_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_FREE,
			      ACT_FOREVER);
	act_msg_free(m);
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_SMALL,
			      ACT_FOREVER);
	atomic_store(&rr.freed_msg, m);
	act_msg_free(m);
	/* the same class: the envelope just freed, on this worker's list */
	ck_assert_int_eq(act_send(rr.main, TAG_REUSE, "reused", 6), 0);
	atomic_store_explicit(&rr.reused, 1, memory_order_relaxed);
	m = act_receive(ACT_FOREVER); /* killed at the end */
	if (m)
		act_msg_free(m);
}

/* The walk, at the small envelope: has its owner free it and send
 * again, and waits until it did (20 s at most: a bound for a setup that
 * cannot work, which no outcome depends on). */
static void reuse_under_walk(struct act__envelope *e)
{
	struct timespec step = { 0, 100000 };
	int i;

	if (e->msg.tag != TAG_SMALL || atomic_exchange(&rr.hooked, 1))
		return;
	act_send(rr.target, TAG_FREE, NULL, 0);
	for (i = 0; i < 200000 &&
		    !atomic_load_explicit(&rr.reused, memory_order_relaxed);
	     i++)
		nanosleep(&step, NULL);
}

static void *reuse_walk_thread(void *arg)
{
	struct act_process_info info;

	(void)arg;
	atomic_store(&rr.rc, act_process_info(rr.target, &info));
	atomic_store(&rr.walked, 1);
	return NULL;
}

/* One try: true when the send reused the envelope the walk was at. */
static bool reuse_try(void)
{
	struct act_process_info i;
	struct act_msg *m;
	int64_t deadline = 0;
	pthread_t th;
	bool same;
	int k;

	atomic_store(&rr.freed_msg, NULL);
	atomic_store(&rr.hooked, 0);
	atomic_store(&rr.walked, 0);
	atomic_store(&rr.reused, 0);
	rr.main = act_self();
	rr.target = tu_spawn(reuse_target_proc, NULL);
	ck_assert_int_eq(act_send(rr.target, TAG_SMALL, "small", 5), 0);
	for (k = 0; !(act_process_info(rr.target, &i) == 0 &&
		      i.state == ACT_PROC_WAITING && i.mailbox_len == 1);
	     k++)
		ck_assert(tu_wait_step(&deadline, k));
	act__mailbox_walk_hook = reuse_under_walk;
	ck_assert_int_eq(pthread_create(&th, NULL, reuse_walk_thread, NULL), 0);
	for (k = 0, deadline = 0; !atomic_load(&rr.walked); k++)
		ck_assert(tu_wait_step(&deadline, k));
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	act__mailbox_walk_hook = NULL;
	ck_assert_int_eq(atomic_load(&rr.rc), 0);
	ck_assert_msg(atomic_load(&rr.hooked), "the walk never met it");
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_REUSE,
			      10 * TU_SEC);
	ck_assert_msg(m, "no message from the target");
	same = m == atomic_load(&rr.freed_msg);
	act_msg_free(m);
	act_kill(rr.target, ACT_EXIT_KILL);
	ck_assert(tu_wait_gone(rr.target));
	return same;
}

static void reuse_main(void *arg)
{
	int tries;

	for (tries = 0; tries < TRIES && !reuse_try(); tries++)
		;
	*(int *)arg = tries;
}

START_TEST(walk_survives_reuse)
{
	struct act_config cfg = tu_with_workers(1);
	int tries = -1;

	ck_assert_int_eq(tu_run_main(&cfg, reuse_main, &tries), 0);
	ck_assert_msg(tries >= 0 && tries < TRIES,
		      "the send never reused the walked envelope");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("2b8699c");
	TCase *tc = tcase_create("envelope-receiver-race");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, walk_survives_reuse);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
