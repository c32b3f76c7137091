/* SPDX-License-Identifier: MIT */
/*
 * test_claim.c - ACTORS_CPU_CLAIM (lib/node/claim.c): a runtime that
 * claims its CPUs, and a second one on the same CPUs (this program run
 * again, a process of its own) that refuses to start (-EADDRINUSE),
 * starts with a warning, or with the claim off neither looks nor says
 * anything; the line names the CPUs and the first runtime's pid. Once
 * the first runtime has stopped its claims are gone: a runtime that
 * refuses starts. A bad value stops act_main with -EINVAL. Both
 * runtimes make the same default plan here (the same machine, simulated
 * or not, and the same settings), so they claim the same CPUs.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testrt.h"

extern char **environ;

#define SECOND "--second-runtime"

/* The second runtime's body, run as this program with SECOND: its
 * act_main's result, as the exit status (0, or 100 + -errno). */
static void nop(void *arg)
{
	(void)arg;
}

static int second_main(void)
{
	int rc = act_main(NULL, nop, NULL);

	return rc < 0 ? 100 - rc : rc;
}

/* The second runtime's run, from the first's main process: its exit
 * status and its stderr (through act_blocking: waitpid and read block). */
struct run {
	const char *claim; /* its ACTORS_CPU_CLAIM, NULL: unset */
	int status;
	char err[1024];
};

static void run_second(void *arg)
{
	struct run *r = arg;
	char *argv[] = { "/proc/self/exe", SECOND, NULL };
	posix_spawn_file_actions_t fa;
	char self[512], *env[3] = { NULL };
	int p[2], n = 0, ws;
	ssize_t got;
	size_t at = 0;
	pid_t pid;

	memset(self, 0, sizeof(self));
	ck_assert_int_gt(readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
	argv[0] = self;
	if (r->claim) {
		static char v[64];

		snprintf(v, sizeof(v), "ACTORS_CPU_CLAIM=%s", r->claim);
		env[n++] = v;
	}
	if (getenv("ACT_TEST_TOPOLOGY")) {
		static char t[256];

		snprintf(t, sizeof(t), "ACT_TEST_TOPOLOGY=%s",
			 getenv("ACT_TEST_TOPOLOGY"));
		env[n++] = t;
	}
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_adddup2(&fa, p[1], 2), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addclose(&fa, p[0]), 0);
	ck_assert_int_eq(posix_spawn(&pid, self, &fa, NULL, argv, env), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while ((got = read(p[0], r->err + at, sizeof(r->err) - 1 - at)) > 0)
		at += (size_t)got;
	r->err[at] = 0;
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	r->status = WEXITSTATUS(ws);
}

static void second(struct run *r, const char *claim)
{
	memset(r, 0, sizeof(*r));
	r->claim = claim;
	ck_assert_int_eq(act_blocking(run_second, r), 0);
}

static void first_main(void *arg)
{
	char mine[32];
	struct run r;

	(void)arg;
	snprintf(mine, sizeof(mine), "(pid %d)", (int)getpid());
	second(&r, "refuse");
	ck_assert_msg(r.status == 100 + EADDRINUSE, "status %d: %s", r.status,
		      r.err);
	ck_assert_ptr_nonnull(strstr(r.err, "claimed by another actors "
					    "runtime"));
	ck_assert_ptr_nonnull(strstr(r.err, "not started"));
	ck_assert_msg(strstr(r.err, mine), "%s not in: %s", mine, r.err);
	ck_assert_int_eq(tu_str_lines(r.err), 1);
	second(&r, "warn");
	ck_assert_msg(r.status == 0, "status %d: %s", r.status, r.err);
	ck_assert_ptr_nonnull(strstr(r.err, "the two will share them"));
	ck_assert_msg(strstr(r.err, mine), "%s not in: %s", mine, r.err);
	/* off: no look, no line */
	second(&r, NULL);
	ck_assert_msg(r.status == 0 && !strstr(r.err, "claimed"),
		      "status %d: %s", r.status, r.err);
	second(&r, "off");
	ck_assert_msg(r.status == 0 && !strstr(r.err, "claimed"),
		      "status %d: %s", r.status, r.err);
}

START_TEST(second_runtime)
{
	struct act_config cfg;

	act_config_init(&cfg);
	ck_assert_int_eq(setenv("ACTORS_CPU_CLAIM", "refuse", 1), 0);
	ck_assert_int_eq(tu_run_main(&cfg, first_main, NULL), 0);
	/* the claims went with that runtime: this one may take them */
	ck_assert_int_eq(tu_run_main(&cfg, nop, NULL), 0);
	ck_assert_int_eq(tu_run_main(&cfg, nop, NULL), 0);
	unsetenv("ACTORS_CPU_CLAIM");
}
END_TEST

START_TEST(bad_value)
{
	ck_assert_int_eq(setenv("ACTORS_CPU_CLAIM", "sometimes", 1), 0);
	ck_assert_int_eq(act_main(NULL, nop, NULL), -EINVAL);
	unsetenv("ACTORS_CPU_CLAIM");
}
END_TEST

static Suite *claim_suite(void)
{
	Suite *s = suite_create("claim");
	TCase *tc = tcase_create("claim");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, second_runtime);
	tcase_add_test(tc, bad_value);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], SECOND))
		return second_main();
	return tu_run_suite(claim_suite());
}
