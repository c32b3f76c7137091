/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers shared by the Check programs in tests/.
 *
 * Every test that starts a runtime runs in Check's forked child (the
 * default CK_FORK mode), so one runtime per test and a crash fails only
 * that test. Tests reach internals through lib/ headers: they link
 * libactors_core.la, which keeps internal symbols.
 *
 * What the shared headers (testutil.h, testrt.h, iotest.h, lifecycle.h)
 * give is named tu_ (macros TU_), so that a reader of a test tells the
 * harness from the library (act_, act__) and from the test's own static
 * helpers, which keep plain names.
 */
#ifndef ACT_TESTUTIL_H
#define ACT_TESTUTIL_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors.h"
#include "base/park.h"

/* Durations in nanoseconds, as act_sleep and every timeout take them. */
#define TU_MS 1000000LL
#define TU_SEC (1000 * TU_MS)
#define TU_HOUR (3600 * TU_SEC)

/* Result of running fn(arg) in a child process with stderr captured. */
struct tu_child {
	int status;	 /* as from waitpid */
	char err[65536]; /* what the child wrote on stderr, NUL-terminated
			  * (a TSan report runs to kilobytes) */
};

/*
 * On a machine without io_uring every act_main says so on stderr
 * (lib/reactor/ring.c); the tests that read a child's stderr look past it. The
 * line of ACT_TEST_RING=none (tests/fallback.sh) is kept, for the tests
 * that check it: one that counts its own lines drops it first.
 */
#define TU_NO_URING_LINE "actors: io_uring is unavailable"
#define TU_URING_OFF_LINE "actors: io_uring is off"
/* qemu-user's own line on stderr when the program it runs dies of a
 * signal (scripts/check-aarch64.sh): not the child's, so dropped too. */
#define TU_QEMU_SIGNAL_LINE "qemu: uncaught target signal"

static inline void tu_drop_lines(char *s, const char *prefix)
{
	char *line = s, *end, *out = s;
	size_t n = strlen(prefix), len;

	while (*line) {
		end = strchr(line, '\n');
		len = end ? (size_t)(end - line) + 1 : strlen(line);
		if (strncmp(line, prefix, n)) {
			memmove(out, line, len);
			out += len;
		}
		line += len;
	}
	*out = '\0';
}

/* Drop the lines of s that contain part, anywhere in them. */
static inline void tu_drop_lines_with(char *s, const char *part)
{
	char *line = s, *end, *out = s, *hit;
	size_t len;

	while (*line) {
		end = strchr(line, '\n');
		len = end ? (size_t)(end - line) + 1 : strlen(line);
		hit = strstr(line, part);
		if (!hit || hit >= line + len) {
			memmove(out, line, len);
			out += len;
		}
		line += len;
	}
	*out = '\0';
}

/* The plan's note on a machine with fewer usable CPUs than the test's
 * workers (lib/affinity/plan.c): not the test's business. */
#define TU_FEW_CPUS_NOTE " usable CPUs: none is bound to one CPU"

/*
 * Fork; in the child redirect stderr into a pipe, call fn(arg), then
 * exit(0). The parent collects stderr (less TU_NO_URING_LINE and
 * TU_QEMU_SIGNAL_LINE) and the wait status.
 */
static inline void tu_run_child(void (*fn)(void *), void *arg,
				struct tu_child *out)
{
	int fds[2];
	pid_t pid;
	size_t at = 0;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		close(fds[1]);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	while (at < sizeof(out->err) - 1 &&
	       (n = read(fds[0], out->err + at, sizeof(out->err) - 1 - at)) > 0)
		at += (size_t)n;
	out->err[at] = '\0';
	tu_drop_lines(out->err, TU_NO_URING_LINE);
	tu_drop_lines(out->err, TU_QEMU_SIGNAL_LINE);
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &out->status, 0), pid);
}

/* Lines in a string (a child's stderr, say). */
static inline int tu_str_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* This OS process's address space in KiB (VmSize), or -1: for a test
 * that sets RLIMIT_AS a little above it. */
static inline long tu_vm_size_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Count the lines of a text file (e.g. /proc/self/maps); -1 on error. */
static inline long tu_count_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * Run a suite with Check's normal output; the exit status for make. The
 * tests assume the runtime's defaults (one worker, 64 KiB stacks) unless
 * they ask for more, so the caller's ACTORS_* variables are cleared first.
 */
static inline int tu_run_suite(Suite *s)
{
	static const char *const vars[] = {
		"ACTORS_SCHEDULERS",   "ACTORS_STACK_SIZE",
		"ACTORS_STATS",	       "ACTORS_WAKE",
		"ACTORS_PLACE",	       "ACTORS_SPIN_US",
		"ACTORS_BACKPRESSURE", "ACTORS_RING_ENTRIES",
		"ACTORS_DUMP_SIGNAL"
	};
	SRunner *sr = srunner_create(s);
	unsigned i;
	int nf;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	/* the fallback switch of DESIGN.md section 6: the whole program
	 * runs with workers parking in FUTEX_WAIT (tests/fallback.sh) */
	if (getenv("ACT_TEST_FUTEX_WAIT"))
		act__park_force_futex_wait = true;
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* ACT_TESTUTIL_H */
