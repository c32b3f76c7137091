/* SPDX-License-Identifier: MIT */
/*
 * tests.h - the stress tests, as `actors stress` runs them (tools/stress.c).
 *
 * Each test is a main of its own, st_main_NAME(argc, argv), with the
 * flags of common.h and its own; it prints one result line and returns
 * the exit status of common.h. The tool runs each in a child process of
 * its own (its globals start fresh, its watchdog may _exit), after
 * setting common.h's st_progress_fd and st_stack_guard there.
 */
#ifndef STRESS_TESTS_H
#define STRESS_TESTS_H

/* A run of the quick profile (`make stress`, `actors stress --quick`):
 * the test's flags, as one string of space-separated words. */
#define ST_QUICK_MAX 3

struct st_test {
	const char *name; /* "wake_storm": the name on the command line */
	int (*main)(int argc, char **argv);
	const char *what; /* one line, for --list */
	/* the quick profile's runs: flags ("" for the defaults); NULL ends */
	const char *quick[ST_QUICK_MAX + 1];
	/* the systematic profile (--systematic N): the flags of one run,
	 * small enough for hundreds of seeded schedules, each thread one
	 * at a time (doc/systematic.md) */
	const char *sys;
};

/* Every test, in the order the tool runs them; a NULL name ends it. */
extern const struct st_test st_tests[];

int st_main_wake_storm(int argc, char **argv);
int st_main_fanin(int argc, char **argv);
int st_main_spawn_burst(int argc, char **argv);
int st_main_exit_churn(int argc, char **argv);
int st_main_queue_hammer(int argc, char **argv);
int st_main_exit_storm(int argc, char **argv);
int st_main_kill_churn(int argc, char **argv);
int st_main_mailbox_flood(int argc, char **argv);
int st_main_timer_race(int argc, char **argv);
int st_main_io_cancel_race(int argc, char **argv);
int st_main_park_race(int argc, char **argv);
int st_main_sup_churn(int argc, char **argv);
int st_main_fail_random(int argc, char **argv);

#endif /* STRESS_TESTS_H */
