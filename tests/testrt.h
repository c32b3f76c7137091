/* SPDX-License-Identifier: MIT */
/*
 * testrt.h - helpers for tests that look inside a running runtime:
 * slot lookup, waiting for a process to exit or to park, the leak check
 * that follows act_main (I9), and the thread count of this OS process.
 */
#ifndef ACT_TESTRT_H
#define ACT_TESTRT_H

#include <dirent.h>
#include <stdbool.h>

#include "testutil.h"

#include "runtime.h"
#include "worker.h"

/* ASan's runtime makes system calls of its own (sigaltstack at every
 * noreturn call, for one): syscall counts mean nothing under it. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static inline struct act__proc *lookup(act_pid p)
{
	return act__proc_lookup(&act__rt_current->procs, p);
}

static inline struct act__proc *self_proc(void)
{
	return lookup(act_self());
}

/* Yield until pid's process has been reaped; false if it never is. */
static inline bool wait_gone(act_pid p)
{
	int i;

	for (i = 0; i < 100000 && lookup(p); i++)
		act_yield();
	return !lookup(p);
}

/* Yield until p waits in a receive; false if it never does. */
static inline bool wait_waiting(act_pid p)
{
	struct act__proc *q;
	int i;

	for (i = 0; i < 100000; i++) {
		q = lookup(p);
		if (q && act__ps(atomic_load(&q->state)) == ACT_PS_WAITING)
			return true;
		act_yield();
	}
	return false;
}

/* I9: after act_main returned, nothing was left out. */
static inline void assert_no_leaks(void)
{
	ck_assert_int_eq(act__last_leaks.procs, 0);
	ck_assert_int_eq(act__last_leaks.stacks, 0);
	ck_assert_int_eq(act__last_leaks.envelopes, 0);
}

/* act_main, then the leak check; returns act_main's result. */
static inline int run_main(const struct act_config *cfg,
			   void (*fn)(void *), void *arg)
{
	int rc = act_main(cfg, fn, arg);

	assert_no_leaks();
	return rc;
}

/* Does the reactor still hold a timer due at or before t? */
static inline bool timer_due_by(int64_t t)
{
	struct act__reactor *r = &act__rt_current->reactor;
	bool found = false;
	uint32_t i;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->n; i++)
		found |= r->heap[i].deadline <= t;
	pthread_mutex_unlock(&r->lock);
	return found;
}

/* Entries of a /proc directory, less . and .. */
static inline int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Threads of this OS process. */
static inline int count_tasks(void)
{
	return count_entries("/proc/self/task");
}

#endif /* ACT_TESTRT_H */
