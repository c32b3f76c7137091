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
	const struct bench_arg args[] = {
		{ "PROCS", &procs, 1, 1000000, "processes waiting at once" },
		{ "ROUNDS", &rounds, 1, 1000, "waits of each process" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/timeouts",
		.about = "PROCS processes each wait ROUNDS times in "
			 "act_receive with a timeout of\n50 to 150 ms and "
			 "nothing to receive, all at once; then PROCS wait "
			 "60 s\nwhile the main process sleeps 2 s.\n",
		.args = args,
		.after = "Prints a line of figures, then \"RESULT timeouts "
			 "P50 P99 MAX IDLE\": the\nlateness of the waits "
			 "past their deadlines, in microseconds, and the CPU\n"
			 "the idle runtime used, in % of the 2 s.\n"
			 "exit status: 0 the run completed, 1 it failed or "
			 "a wait ended before its\ndeadline, 2 a usage error\n",
	};
	struct bench_timeouts_result r;
	int rc;

	rc = bench_args(&cmd, argc, argv);
	if (rc != BENCH_RUN)
		return rc;
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
