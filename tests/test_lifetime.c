/* SPDX-License-Identifier: MIT */
/*
 * test_lifetime.c - the runtime's life as threads outside it see it.
 *
 * The API that any thread may call (act_send, act_kill, act_send_after,
 * act_send_interval, act_timer_cancel, act_stats, act_workers, the
 * registry) answers -ESRCH (or its own "none") until a runtime is up and
 * after it stops, and a runtime that stops waits for the callers that are
 * inside. The runtime was published before it was built and freed before
 * it was cleared, so act_send_after or act_stats from another thread
 * crashed in 3 to 6 of 10 starts and stops.
 *
 * A start that fails once the observers and the reactor are up undoes
 * them, each once, and leaves the next act_main a clean slate.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "testrt.h"

#include "actor/timer.h"

#include "reactor/reactor.h"

/* ---- calls from another thread while runtimes come and go -------------- */

static _Atomic int hammer_stop;
static _Atomic uint64_t target_pid; /* some pid of the current runtime */
static _Atomic long calls_up, calls_down, bad;
static char bad_what[128];

static void note_bad(const char *what, long rc)
{
	if (atomic_fetch_add(&bad, 1) == 0)
		snprintf(bad_what, sizeof(bad_what), "%s returned %ld", what,
			 rc);
}

/* rc must be -ESRCH (no runtime), or >= 0 when ok_nonneg, or 0, or
 * also_ok. */
static void check(const char *what, long rc, bool ok_nonneg, long also_ok)
{
	if (rc == -ESRCH) {
		atomic_fetch_add(&calls_down, 1);
		return;
	}
	if ((ok_nonneg && rc >= 0) || rc == 0 || rc == also_ok) {
		atomic_fetch_add(&calls_up, 1);
		return;
	}
	note_bad(what, rc);
}

static void *hammer(void *arg)
{
	struct act_worker_stats w[4];
	struct act_stats s;
	act_timer ref;
	act_pid p;
	long rc;

	(void)arg;
	while (!atomic_load(&hammer_stop)) {
		p.id = atomic_load(&target_pid);
		/* a timer may fire or its runtime stop before the cancel */
		rc = act_send_after(TU_MS, p, 1, "t", 1, &ref);
		check("act_send_after", rc, false, 0);
		if (rc == 0)
			check("act_timer_cancel", act_timer_cancel(ref), false,
			      -ENOENT);
		rc = act_send_interval(TU_MS, p, 2, NULL, 0, &ref);
		check("act_send_interval", rc, false, 0);
		if (rc == 0)
			check("act_timer_cancel", act_timer_cancel(ref), false,
			      -ENOENT);
		check("act_stats", act_stats(&s, w, 4), true, 0);
		/* the main process may be gone already: -ESRCH too */
		rc = act_send(p, 3, "m", 1);
		check("act_send", rc, false, 0);
		rc = act_kill((act_pid){ p.id + 1 }, ACT_EXIT_NORMAL);
		if (rc != 0 && rc != -ESRCH)
			note_bad("act_kill", rc);
		rc = act_workers();
		if (rc < 0 || rc > 4)
			note_bad("act_workers", rc);
		act_whereis("lifetime");
		rc = act_register("lifetime", p);
		if (rc != 0 && rc != -ESRCH && rc != -EEXIST && rc != -EBUSY)
			note_bad("act_register", rc);
		act_unregister("lifetime");
	}
	return NULL;
}

static void short_main(void *arg)
{
	struct act_msg *m;

	(void)arg;
	atomic_store(&target_pid, act_self().id);
	/* take a little of what the hammer sends, then go */
	while ((m = act_receive(0)) != NULL)
		act_msg_free(m);
	act_yield();
}

START_TEST(foreign_calls_across_start_and_stop)
{
	struct act_config cfg = tu_with_workers(1 + _i);
	pthread_t t;
	int i;

	atomic_store(&hammer_stop, 0);
	atomic_store(&bad, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, hammer, NULL), 0);
	for (i = 0; i < 200; i++) {
		ck_assert_int_eq(tu_run_main(&cfg, short_main, NULL), 0);
		/* no runtime between two: -ESRCH, never a crash */
		ck_assert_int_eq(act_stats(NULL, NULL, 0), -ESRCH);
	}
	atomic_store(&hammer_stop, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(atomic_load(&bad) == 0, "%ld bad returns; first: %s",
		      atomic_load(&bad), bad_what);
	printf("foreign_calls_across_start_and_stop: %ld calls while up, "
	       "%ld while down\n",
	       atomic_load(&calls_up), atomic_load(&calls_down));
}
END_TEST

/* ---- a stop waits for a caller inside ----------------------------------- */

static _Atomic int inside, hook_done;

/* Runs inside act_send_after on the foreign thread, the runtime entered:
 * holds the call open well past the main process's exit. */
static void slow_caller(act_timer ref)
{
	(void)ref;
	atomic_store(&inside, 1);
	usleep(100 * 1000);
	atomic_store(&hook_done, 1);
}

static void *call_once(void *arg)
{
	act_timer ref;
	act_pid to;

	(void)arg;
	/* until the runtime is up (-ESRCH before) */
	do {
		to.id = atomic_load(&target_pid);
		if (!to.id)
			usleep(1000);
	} while (!to.id || act_send_after(TU_MS, to, 1, NULL, 0, &ref) != 0);
	return NULL;
}

static void exit_when_inside(void *arg)
{
	(void)arg;
	atomic_store(&target_pid, act_self().id);
	while (!atomic_load(&inside))
		act_sleep(TU_MS);
}

START_TEST(stop_waits_for_callers_inside)
{
	struct act_config cfg = tu_with_workers(2);
	pthread_t t;
	int done;

	atomic_store(&inside, 0);
	atomic_store(&hook_done, 0);
	atomic_store(&target_pid, 0);
	act__test_timer_published = slow_caller;
	ck_assert_int_eq(pthread_create(&t, NULL, call_once, NULL), 0);
	ck_assert_int_eq(tu_run_main(&cfg, exit_when_inside, NULL), 0);
	/* act_main returned only once the caller inside had left */
	done = atomic_load(&hook_done);
	ck_assert_int_eq(done, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	act__test_timer_published = NULL;
}
END_TEST

/* ---- a start that fails late unwinds ------------------------------------ */

static void nop_main(void *arg)
{
	(void)arg;
}

/* Threads made from now on with the default attributes get a stack of
 * `size` (0: glibc's default again); a stack larger than the address
 * space makes pthread_create fail with EAGAIN. */
static void default_stack(size_t size, pthread_attr_t *saved)
{
	pthread_attr_t a;

	if (size == 0) {
		ck_assert_int_eq(pthread_setattr_default_np(saved), 0);
		return;
	}
	ck_assert_int_eq(pthread_getattr_default_np(saved), 0);
	ck_assert_int_eq(pthread_attr_init(&a), 0);
	ck_assert_int_eq(pthread_attr_setstacksize(&a, size), 0);
	ck_assert_int_eq(pthread_setattr_default_np(&a), 0);
	pthread_attr_destroy(&a);
}

/*
 * With a trace asked for, the observers start; then the reactor's thread
 * cannot be made. act_main returns that error with no trace file left
 * and everything undone (leak-checked under ASan), and the next act_main
 * starts, traces and stops. act_main itself, not tu_run_main: the one
 * worker and inline reactor that it gives under ACT_TEST_INLINE make no
 * thread, so nothing would fail.
 */
START_TEST(failed_start_unwinds)
{
	struct act_config cfg = tu_with_workers(2);
	char dir[] = "/tmp/act-lifetime-XXXXXX", path[64];
	pthread_attr_t saved;
	struct stat st;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	cfg.trace = path;
	cfg.reactor_cpu = ACT_REACTOR_NONE; /* a thread of its own */
	default_stack((size_t)1 << 50, &saved);
	rc = act_main(&cfg, nop_main, NULL);
	default_stack(0, &saved);
	ck_assert_msg(rc == -EAGAIN, "act_main: %d, not -EAGAIN", rc);
	ck_assert_int_ne(stat(path, &st), 0);
	ck_assert_int_eq(act_stats(NULL, NULL, 0), -ESRCH);
	ck_assert_int_eq(act_main(&cfg, nop_main, NULL), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *lifetime_suite(void)
{
	Suite *s = suite_create("lifetime");
	TCase *tc = tcase_create("foreign");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, foreign_calls_across_start_and_stop, 0, 2);
	tcase_add_test(tc, stop_waits_for_callers_inside);
	suite_add_tcase(s, tc);
	tc = tcase_create("unwind");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, failed_start_unwinds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(lifetime_suite());
}
