/* SPDX-License-Identifier: MIT */
/*
 * 91784d0-famine-spawn-during-trim.c - a spawn in a famine failed while
 * an idle worker's trim held the free stacks off the shared list.
 *
 * Found by CI, on test_spawn's test_out_of_memory under anycount (8
 * workers on 2 CPUs): after every child had exited at RLIMIT_AS, a
 * respawn failed with ENOMEM. An idle worker's act__stack_trim had cut
 * the freed stacks off their home's list and was giving their pages
 * back; for those microseconds they were on no list, and act__stack_get,
 * unable to map a chunk, found none. Fixed in 91784d0: the trims in that
 * window are counted, and a famine that found nothing while one was in
 * it (or saw one finish meanwhile) waits for it and looks again.
 *
 * Here the window is held open (act__stack_trim_hook) instead of raced
 * for: two caches of two homes, no runtime, in a child held to its
 * address space by RLIMIT_AS (as test_stack's famine case); 10 of cache
 * a's stacks freed to home 0's list; a thread trims home 0, and while
 * its hook runs, cache a asks for a stack. Without the fix the ask fails
 * at once; with it, it waits for the trim and gets one. The hook waits
 * up to 1 s for the ask to end, which it can only do without the fix.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../testrt.h"
#include "mem/stack.h"

#define SIZE 65536
#define UNITS 128 /* 16 MiB chunks of 64 KiB + 64 KiB guard units */

struct report {
	int stage, rc;
};

static struct act__stack_cache a, b, t;
static _Atomic int go, in_window, asked;

/* the trim's window: the ask is let in, and given up to 1 s to end */
static void hold_window(void)
{
	int i;

	atomic_store(&in_window, 1);
	for (i = 0; !atomic_load(&asked) && i < 1000; i++)
		usleep(1000);
}

static void *trimmer(void *arg)
{
	unsigned spins = 0;

	(void)arg;
	free(malloc(4096)); /* this thread's arena, before RLIMIT_AS */
	while (!atomic_load(&go))
		act__spin_backoff(&spins);
	(void)act__stack_trim(&t, ACT_STACK_TRIM_MAX);
	return NULL;
}

/* a's chunk used up, then b's: a famine; 10 of a's stacks freed by b
 * go to home 0's list at once */
static int starve(struct report *rep)
{
	static void *from_a[UNITS], *from_b[UNITS];
	struct rlimit rl;
	bool canary;
	void *lo;
	int na = 0, nb = 0, i;

	if (act__stack_get(&a, SIZE, &from_a[na++], &canary) ||
	    act__stack_get(&b, SIZE, &from_b[nb++], &canary))
		return 4;
	rl.rlim_cur = rl.rlim_max = (rlim_t)tu_vm_size_kib() * 1024 + (4 << 20);
	if (setrlimit(RLIMIT_AS, &rl))
		return 5;
	rep->stage = 1;
	while (na < UNITS && !act__stack_get(&a, SIZE, &lo, &canary))
		from_a[na++] = lo;
	while (nb < UNITS && !act__stack_get(&b, SIZE, &lo, &canary))
		from_b[nb++] = lo;
	if (na == UNITS || nb == UNITS)
		return 6; /* no famine: RLIMIT_AS did not hold (qemu-user) */
	for (i = 0; i < 10; i++)
		act__stack_put(&b, from_a[--na], SIZE);
	if (act__stack_shared_n(0, SIZE, NULL) != 10)
		return 7;
	rep->stage = 2;
	return 0;
}

static void child(void *arg)
{
	struct report *rep = arg;
	pthread_t th;
	unsigned spins = 0;
	bool canary;
	void *lo;
	int rc, i;

	act__stack_cache_set_home(&a, NULL, 0);
	act__stack_cache_set_home(&b, NULL, 1);
	act__stack_cache_set_home(&t, NULL, 0);
	if (act__stack_global_init(ACT_GUARD_CANARY, 0))
		_exit(3);
	if (pthread_create(&th, NULL, trimmer, NULL))
		_exit(8);
	rc = starve(rep);
	if (rc)
		_exit(rc);
	act__stack_trim_hook = hold_window;
	atomic_store(&go, 1);
	for (i = 0; !atomic_load(&in_window) && i < 1 << 20; i++)
		act__spin_backoff(&spins);
	if (!atomic_load(&in_window))
		_exit(9);
	rep->stage = 3;
	rep->rc = act__stack_get(&a, SIZE, &lo, &canary);
	atomic_store(&asked, 1);
	pthread_join(th, NULL);
	rep->stage = 4;
}

START_TEST(famine_spawn_during_trim)
{
	struct report *rep;
	struct tu_child c;

	rep = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(rep, MAP_FAILED);
	memset(rep, 0, sizeof(*rep));
	rep->rc = 12345;
	tu_run_child(child, rep, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x, stage %d: %s", c.status, rep->stage, c.err);
	ck_assert_int_eq(rep->stage, 4);
	ck_assert_msg(rep->rc == 0,
		      "a stack asked for in a famine while a trim held the "
		      "free ones off the list: %d (want 0)",
		      rep->rc);
	munmap(rep, 4096);
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc;

	/* the sanitizers reserve terabytes of shadow: no RLIMIT_AS (asked
	 * before Check allocates: LeakSanitizer would report its suite) */
	if (TU_UNDER_ASAN || TU_UNDER_TSAN) {
		fprintf(stderr, "91784d0: skipped: RLIMIT_AS cannot hold "
				"under ASan or TSan\n");
		return 77;
	}
	s = suite_create("91784d0");
	tc = tcase_create("famine-spawn-during-trim");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, famine_spawn_during_trim);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
