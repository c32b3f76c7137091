/* SPDX-License-Identifier: MIT */
/*
 * ring_main.c - bench/ring [PROCS [HOPS]]: runs the thread-ring workload
 * and prints "RESULT ring <checksum> <seconds>".
 */
#include <limits.h>
#include <stdio.h>
#include "bench.h"

int main(int argc, char **argv)
{
	long procs = BENCH_RING_PROCS, hops = BENCH_RING_HOPS;
	const struct bench_arg args[] = {
		{ "PROCS", &procs, 1, 1L << 24, "processes in the ring" },
		{ "HOPS", &hops, 1, LONG_MAX / 2, "hops in all" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/ring",
		.about = "PROCS processes in a ring pass a token around, HOPS "
			 "hops in all.\n",
		.args = args,
		.after = "Prints \"RESULT ring CHECKSUM SECONDS\": the hops "
			 "the token made (HOPS) and\nthe run's time.\n"
			 "exit status: 0 the run completed with that checksum, "
			 "1 it failed or the\nchecksum is wrong (said on "
			 "stderr), 2 a usage error\n",
	};
	uint64_t checksum = 0;
	double seconds = 0;
	int rc;

	rc = bench_args(&cmd, argc, argv);
	if (rc != BENCH_RUN)
		return rc;
	rc = bench_ring((int)procs, hops, &seconds, &checksum);
	return bench_finish("ring", rc, checksum, bench_ring_expect(hops),
			    seconds);
}
