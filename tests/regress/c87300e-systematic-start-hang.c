/* SPDX-License-Identifier: MIT */
/*
 * c87300e-systematic-start-hang.c - in the systematic mode a switch point
 * between a participant's registration and its pthread_create made runs
 * hang at start.
 *
 * Found by the systematic mode itself (tests/systematic.sh: seed 42 of
 * every stress test hung) once fault injection was merged: the fault
 * site before pthread_create (ACT_FAIL(ACT_FAIL_THREAD), an atomic load,
 * so a switch point in a --enable-systematic build) came after
 * act__systematic_thread_new had made the new worker or the reactor
 * eligible, and the turn could go to a thread not yet created: the
 * creating thread then waited for its turn, and nothing would ever give
 * it back. Fixed in c87300e: the site is tested before thread_new, at
 * both creations (lib/node/runtime.c start_workers, lib/reactor/reactor.c
 * act__reactor_start), and lib/base/systematic.h says that nothing may
 * come between.
 *
 * Here runtimes of four workers (three threads made, and the reactor's)
 * start and stop under SEEDS seeded schedules, with ACT_TEST_FAIL arming
 * the thread site (a rule that never fires: the site's counting is two
 * more switch points where they did harm). Each run is a child with a
 * watchdog, which must end by itself: without the fix the first seeds
 * hang. Only a --enable-systematic build has the switch points: other
 * builds skip (77).
 */
#include "../testrt.h"

#include "base/systematic.h" /* ACT_SYSTEMATIC: 1 in such a build, else 0 */

#if ACT_SYSTEMATIC

#define SEEDS 16
/* a run that has not ended by then hangs (a bound, not a timing: a run
 * here takes milliseconds) */
#define WATCHDOG_S 60
#define HUNG 124 /* the child's status when its watchdog ended it */

static void pong(void *arg)
{
	struct act_msg *m = act_receive(ACT_FOREVER);

	(void)arg;
	act_reply(m, 2, NULL, 0);
	act_msg_free(m);
}

/* Something for the workers to do: a call to a process. */
static void small_main(void *arg)
{
	act_pid p = act_spawn(pong, NULL);
	struct act_msg *m = NULL;

	(void)arg;
	if (act_pid_eq(p, ACT_PID_NONE) ||
	    act_call(p, 1, NULL, 0, ACT_FOREVER, &m))
		_exit(3);
	act_msg_free(m);
}

/* A thread of the child's, outside the runtime (no participant: it
 * runs freely), that ends a run which has not ended by itself. Not a
 * signal: the hung thread was act_main's, in the reactor's start with
 * every signal blocked. */
static void *watchdog(void *arg)
{
	unsigned left = WATCHDOG_S;

	(void)arg;
	while (left)
		left = sleep(left);
	_exit(HUNG);
}

static void seeded_child(void *arg)
{
	struct act_config cfg = tu_with_workers(4);
	char seed[16];
	pthread_t t;

	snprintf(seed, sizeof(seed), "%d", *(int *)arg);
	setenv("ACTORS_SEED", seed, 1);
	setenv("ACT_TEST_FAIL", "thread:1000000000", 1);
	if (pthread_create(&t, NULL, watchdog, NULL))
		_exit(4);
	_exit(act_main(&cfg, small_main, NULL) ? 2 : 0);
}

START_TEST(seeded_runs_start)
{
	struct tu_child c;
	int seed;

	for (seed = 1; seed <= SEEDS; seed++) {
		tu_run_child(seeded_child, &seed, &c);
		tu_drop_lines_with(c.err, TU_FEW_CPUS_NOTE);
		ck_assert_msg(!WIFEXITED(c.status) ||
				      WEXITSTATUS(c.status) != HUNG,
			      "ACTORS_SEED=%d: the run hung (not ended in %d "
			      "s): %s",
			      seed, WATCHDOG_S, c.err);
		ck_assert_msg(WIFEXITED(c.status) && !WEXITSTATUS(c.status),
			      "ACTORS_SEED=%d: status %#x: %s", seed, c.status,
			      c.err);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("c87300e");
	TCase *tc = tcase_create("systematic-start-hang");

	tcase_set_timeout(tc, 2 * WATCHDOG_S);
	tcase_add_test(tc, seeded_runs_start);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
#else
int main(void)
{
	puts("SKIP: ACTORS_SEED's switch points are a --enable-systematic "
	     "build's: this one has none");
	return 77;
}
#endif
