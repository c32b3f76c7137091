/* SPDX-License-Identifier: MIT */
/*
 * timeouts_main.c - bench/timeouts [PROCS [ROUNDS]]: receive-timeout
 * lateness with PROCS timers pending at once (timeouts of 50 to 150 ms),
 * then the CPU an idle runtime with PROCS pending timers uses over 2 s.
 * Prints "RESULT timeouts p50 P99 max idle%" and a readable line.
 */
#include <stdio.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long procs = BENCH_TIMEOUTS_PROCS, rounds = BENCH_TIMEOUTS_ROUNDS;
	struct bench_timeouts_result r;
	int rc;

	if (argc > 3 ||
	    (argc > 1 && bench_parse_long(argv[1], 1, 1000000, &procs)) ||
	    (argc > 2 && bench_parse_long(argv[2], 1, 1000, &rounds))) {
		fprintf(stderr,
			"usage: %s [PROCS [ROUNDS]]   (default %d %d)\n",
			argv[0], BENCH_TIMEOUTS_PROCS, BENCH_TIMEOUTS_ROUNDS);
		return 2;
	}
	rc = bench_timeouts(procs, rounds, 50000000, 150000000, 2000000000, &r);
	if (rc) {
		fprintf(stderr, "timeouts: %s\n", bench_strerror(rc));
		return 1;
	}
	printf("timeouts: %ld waits, %ld timers at once: lateness p50 %.0f us, "
	       "p99 %.0f us, max %.0f us%s; idle with %ld timers: %.2f%% CPU\n",
	       r.samples, procs, r.p50_us, r.p99_us, r.max_us,
	       r.early ? " (SOME EARLY)" : "", procs, r.idle_cpu_pct);
	printf("RESULT timeouts %.0f %.0f %.0f %.3f\n", r.p50_us, r.p99_us,
	       r.max_us, r.idle_cpu_pct);
	return r.early ? 1 : 0;
}
