/* SPDX-License-Identifier: MIT */
/*
 * db1f9f5-monitor-of-exiting-process.c - act_monitor of a process that
 * was exiting said ACT_EXIT_NOPROC at once, before the process's name was
 * freed and its links' EXITs were sent.
 *
 * Found by actors stress sup_churn: a supervisor that stops a child
 * (monitor, kill, DOWN) and starts its successor found the old child's
 * name still registered ("act_register: File exists", 5 runs in 20).
 * Fixed in db1f9f5: such a monitor joins the target's watchers while they
 * are still to be drained (watch_open, lib/proc/proc.h) and fires with the
 * exit's reason once the exit is done (lib/actor/links.c).
 *
 * x, linked to l, exits with 55 while a thread holds l's slot lock, so
 * the exit's drain stands at x's link (x's EXIT to l not sent yet, its
 * watchers not drained: l's index is below x's, so the drain waits
 * holding no lock of x's). A monitor of x taken then must give no DOWN
 * yet, and then one with 55: a DOWN says the exit is done, its name gone
 * and its links told (a supervisor restarts on it). Without the fix the
 * DOWN comes at once with NOPROC, in every build. If x's exit ran on
 * main's worker, main cannot run until the thread lets go by itself: the
 * setup is tried again. Two workers, whatever the machine.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../testrt.h"

static struct {
	act_pid l, x;
	_Atomic int go, held, release, timed_out;
} wx;

static void wx_linked(void *arg)
{
	(void)arg;
	act_trap_exit(true);
	for (;;)
		act_msg_free(act_receive(ACT_FOREVER));
}

/* Woken by its own timer, so on its own worker, not main's. */
static void wx_victim(void *arg)
{
	(void)arg;
	ck_assert_int_eq(act_link(wx.l), 0);
	while (!atomic_load(&wx.go))
		act_sleep(TU_MS);
	act_exit(55);
}

static void *wx_holder(void *arg)
{
	struct act__proc *p = arg;
	int i;

	act__proc_lock(p);
	atomic_store(&wx.held, 1);
	/* a bound only so that a setup that cannot work ends (retried);
	 * no outcome depends on it */
	for (i = 0; i < 2000 && !atomic_load(&wx.release); i++)
		usleep(100);
	if (!atomic_load(&wx.release))
		atomic_store(&wx.timed_out, 1);
	act__proc_unlock(p);
	return NULL;
}

static bool is_down_of(const struct act_msg *m, void *ref)
{
	return m->tag == ACT_TAG_DOWN &&
	       ((const struct act_exit_info *)m->data)->ref == *(uint64_t *)ref;
}

static void wx_cleanup(void)
{
	atomic_store(&wx.go, 1);
	act_kill(wx.l, ACT_EXIT_KILL);
	tu_wait_gone(wx.l);
	tu_wait_gone(wx.x);
}

/* One try: 1 done, 0 the premise not arranged (try again). */
static int wx_try(void)
{
	struct act_msg *m, *early;
	pthread_t t;
	uint64_t ref;
	intptr_t why;

	memset(&wx, 0, sizeof(wx));
	wx.l = tu_spawn(wx_linked, NULL);
	wx.x = tu_spawn(wx_victim, NULL);
	ck_assert(tu_wait_waiting(wx.l) && tu_wait_waiting(wx.x));
	if (tu_pid_index(wx.l) > tu_pid_index(wx.x)) {
		wx_cleanup();
		return 0;
	}
	ck_assert_int_eq(pthread_create(&t, NULL, wx_holder, tu_lookup(wx.l)),
			 0);
	while (!atomic_load(&wx.held))
		act_yield();
	atomic_store(&wx.go, 1);
	if (!tu_wait_state(wx.x, ACT_PS_EXITING)) {
		pthread_join(t, NULL);
		wx_cleanup();
		return 0;
	}
	ref = act_monitor(wx.x);
	ck_assert_uint_ne(ref, 0);
	early = act_receive_match(is_down_of, &ref, 0);
	atomic_store(&wx.release, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	if (atomic_load(&wx.timed_out)) {
		act_msg_free(early);
		wx_cleanup();
		return 0;
	}
	ck_assert_msg(
		!early, "a DOWN (reason %ld) before the exit was done",
		early ? (long)((struct act_exit_info *)early->data)->reason :
			0L);
	m = act_receive_match(is_down_of, &ref, ACT_FOREVER);
	why = ((struct act_exit_info *)m->data)->reason;
	act_msg_free(m);
	ck_assert_int_eq(why, 55);
	wx_cleanup();
	return 1;
}

static void wx_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 200; i++)
		if (wx_try())
			return;
	ck_abort_msg("the premise was never arranged in 200 tries");
}

START_TEST(monitor_while_exiting)
{
	struct act_config cfg = tu_with_workers(2);

	ck_assert_int_eq(tu_run_main(&cfg, wx_main, NULL), 0);
}
END_TEST

int main(void)
{
	const char *inl = getenv("ACT_TEST_INLINE");
	Suite *s = suite_create("db1f9f5");
	TCase *tc = tcase_create("monitor-of-exiting-process");

	/* its premise needs a second worker to run the exit's reap */
	if (inl && !strcmp(inl, "1")) {
		puts("SKIP: two workers needed: ACT_TEST_INLINE runs one");
		return 77;
	}
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, monitor_while_exiting);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
