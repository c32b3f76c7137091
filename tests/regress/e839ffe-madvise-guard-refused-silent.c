/* SPDX-License-Identifier: MIT */
/*
 * e839ffe-madvise-guard-refused-silent.c - a chunk's stack guards that
 * MADV_GUARD_INSTALL refused left its stacks to canaries without a word.
 *
 * Found by fault injection (ACT_TEST_FAIL=madvise, test_fail's case per
 * site): when the kernel refuses a chunk's guards (ENOMEM for page
 * tables part way, say), its stacks are checked by a canary instead, a
 * weaker check that the user was not told of. Fixed in e839ffe, with the
 * fault sites themselves: the refusal is said once on stderr
 * (lib/mem/stack.c madvise_failed).
 *
 * Here every guard batch is refused (ACT_TEST_FAIL=madvise:1+) in a
 * runtime of one worker that spawns two processes: the processes run and
 * send back, and stderr has the one line. Without the fix stderr is
 * empty, in every build. Where the stacks' guards are not
 * MADV_GUARD_INSTALL's (a kernel before 6.13, or its seccomp policy
 * refusing process_madvise) the site is never reached: skipped (77).
 */
#include <stdint.h>
#include <sys/mman.h>

#include "../testrt.h"

#include "base/fail.h"
#include "mem/stack.h"

/* What the child saw (Check's asserts are the parent's). */
static struct madv_out {
	int rc;		/* act_main's */
	int spawned;	/* processes spawned, of two */
	int got;	/* messages back from them */
	int bad;	/* a send refused: its line */
	uint64_t fired; /* refusals made at the site */
} * out;		/* shared with the child */

static void send_back(void *arg)
{
	act_pid to = { (uint64_t)(uintptr_t)arg };

	if (act_send(to, 1, NULL, 0))
		out->bad = __LINE__;
}

static void spawn_twice(void *arg)
{
	void *self = (void *)(uintptr_t)act_self().id;
	struct act_msg *m;
	int i;

	(void)arg;
	for (i = 0; i < 2; i++)
		if (!act_pid_eq(act_spawn(send_back, self), ACT_PID_NONE))
			out->spawned++;
	/* 10 s without the message: a bound for a run that went wrong,
	 * which no outcome depends on */
	while (out->got < out->spawned && (m = act_receive(10 * TU_SEC))) {
		out->got++;
		act_msg_free(m);
	}
}

static void refused_child(void *arg)
{
	struct act_config cfg = tu_with_workers(1);

	(void)arg;
	setenv("ACT_TEST_FAIL", "madvise:1+", 1);
	out->rc = act_main(&cfg, spawn_twice, NULL);
	out->fired = act__fail_fired(ACT_FAIL_MADVISE);
	_exit(0);
}

/* MADV_GUARD_INSTALL refused: said once, those stacks get canaries, the
 * processes run. */
START_TEST(guard_refusal_said)
{
	struct tu_child c;

	memset(out, 0, sizeof(*out));
	tu_run_child(refused_child, NULL, &c);
	tu_drop_lines_with(c.err, TU_FEW_CPUS_NOTE);
	ck_assert_msg(WIFEXITED(c.status) && !WEXITSTATUS(c.status),
		      "status %#x, stderr: %s", c.status, c.err);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->bad, 0);
	ck_assert_int_eq(out->spawned, 2);
	ck_assert_int_eq(out->got, 2);
	ck_assert_uint_ge(out->fired, 1);
	ck_assert_msg(strstr(c.err, "MADV_GUARD_INSTALL failed"),
		      "nothing said of the refused guards; stderr: %s", c.err);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
}
END_TEST

static bool guards_by_madvise(void)
{
	bool yes;

	if (act__stack_global_init(ACT_GUARD_AUTO, 0))
		return false;
	yes = act__stack_guard_mode() == ACT_GUARD_MADVISE;
	act__stack_global_fini();
	return yes;
}

int main(void)
{
	Suite *s = suite_create("e839ffe");
	TCase *tc = tcase_create("madvise-guard-refused-silent");

	if (!guards_by_madvise()) {
		puts("SKIP: stack guards are not MADV_GUARD_INSTALL's here");
		return 77;
	}
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED)
		return 99;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, guard_refusal_said);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
