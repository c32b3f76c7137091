/* SPDX-License-Identifier: MIT */
/*
 * 58a4ae8-poison-outlives-munmap.c - a slab chunk or a stack chunk was
 * unmapped while parts of it were still ASan-poisoned, so that a later
 * mapping at its address read as poisoned.
 *
 * Found by ASan, on test_multi's 1,000 start/stop cycles: ASan's shadow
 * outlives a mapping, and a runtime that stopped with cached stacks
 * (poisoned below their top words, lib/mem/stack.c act__stack_put) or
 * free envelopes (their payloads poisoned, lib/mem/slab.h) left that
 * poison at their addresses; the next runtime's mmap there wrote its
 * first stack's flags into it: a use-after-poison in act__stack_get.
 * Fixed in 58a4ae8: chunks are unpoisoned before munmap (slab.c
 * slab_unmap, stack.c act__stack_cache_destroy).
 *
 * Here a runtime stops with one process's stack in its cache and one
 * envelope on its free list; then a page is mapped again at each of the
 * two addresses (MAP_FIXED_NOREPLACE: the premise arranged, not left to
 * where the kernel puts the next runtime's chunks; a page something else
 * took meanwhile has the run tried again) and must read as unpoisoned.
 * Only the ASan build has the shadow: other builds skip (77). Clang 17's
 * ASan and later clear the shadow in their mmap interceptor, where the
 * defect cannot show; Debian 12's clang 14 does not.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "../testrt.h"

#if TU_UNDER_ASAN
#include <sanitizer/asan_interface.h>

#define TRIES 10

static struct {
	uintptr_t stack; /* in the exited process's stack */
	uintptr_t env;	 /* in the freed envelope's payload */
} at;

static void leave_a_stack(void *arg)
{
	(void)arg;
	/* the frame's address, not a local's: under ASan's
	 * detect_stack_use_after_return a local may be on its fake stack */
	at.stack = (uintptr_t)__builtin_frame_address(0);
}

/* A stack cached and an envelope free when the runtime stops. */
static void poison_main(void *arg)
{
	struct act_msg *m;
	act_pid p;
	uint64_t ref;

	(void)arg;
	p = tu_spawn(leave_a_stack, NULL);
	ref = act_monitor(p);
	m = act_receive(ACT_FOREVER); /* its DOWN: the stack is back */
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	ck_assert_uint_eq(((struct act_exit_info *)m->data)->ref, ref);
	act_msg_free(m);
	ck_assert_int_eq(act_send(act_self(), 1, "payload", 7), 0);
	m = act_receive(ACT_FOREVER);
	at.env = (uintptr_t)m->data;
	act_msg_free(m);
}

/* A page mapped at addr's, or NULL when something else has it now. */
static char *map_page_at(uintptr_t addr)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *want = (void *)(addr & ~(uintptr_t)(pg - 1));
	void *got = mmap(want, (size_t)pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
			 0);

	if (got == MAP_FAILED)
		return NULL;
	if (got != want) { /* a kernel before 4.17 took it as a hint */
		munmap(got, (size_t)pg);
		return NULL;
	}
	return got;
}

/* One run: 1 checked, 0 the premise not arranged (try again). */
static int poison_try(void)
{
	struct act_config cfg = tu_with_workers(1);
	long pg = sysconf(_SC_PAGESIZE);
	char *s, *e;
	void *bad;

	at.stack = at.env = 0;
	ck_assert_int_eq(tu_run_main(&cfg, poison_main, NULL), 0);
	ck_assert(at.stack && at.env);
	s = map_page_at(at.stack);
	e = map_page_at(at.env);
	if (s && e) {
		bad = __asan_region_is_poisoned(s, (size_t)pg);
		ck_assert_msg(!bad,
			      "a new mapping at a stopped runtime's stack "
			      "chunk reads as poisoned at %p",
			      bad);
		bad = __asan_region_is_poisoned(e, (size_t)pg);
		ck_assert_msg(!bad,
			      "a new mapping at a stopped runtime's slab "
			      "chunk reads as poisoned at %p",
			      bad);
	}
	if (s)
		munmap(s, (size_t)pg);
	if (e)
		munmap(e, (size_t)pg);
	return s && e;
}

START_TEST(no_poison_after_munmap)
{
	int i;

	for (i = 0; i < TRIES && !poison_try(); i++)
		;
	ck_assert_msg(i < TRIES, "the pages were taken again in %d runs",
		      TRIES);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("58a4ae8");
	TCase *tc = tcase_create("poison-outlives-munmap");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, no_poison_after_munmap);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
#else
int main(void)
{
	puts("SKIP: the poison is ASan's shadow memory: only the ASan build "
	     "(--enable-sanitizer=address) can show it");
	return 77;
}
#endif
