/* SPDX-License-Identifier: MIT */
/*
 * ring_main.c - bench/ring [PROCS [HOPS]]: runs the thread-ring workload
 * and prints "RESULT ring <checksum> <seconds>".
 */
#include <limits.h>
#include <stdio.h>

#include "bench.h"

static int parse_args(int argc, char **argv, long *procs, long *hops)
{
	if (argc > 3)
		return -1;
	if (argc > 1 && bench_parse_long(argv[1], 1, 1L << 24, procs))
		return -1;
	if (argc > 2 && bench_parse_long(argv[2], 1, LONG_MAX / 2, hops))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long procs = BENCH_RING_PROCS, hops = BENCH_RING_HOPS;
	uint64_t checksum = 0;
	double seconds = 0;
	int rc;

	if (parse_args(argc, argv, &procs, &hops)) {
		fprintf(stderr, "usage: %s [PROCS [HOPS]]   (default %d %ld)\n",
			argv[0], BENCH_RING_PROCS, BENCH_RING_HOPS);
		return 2;
	}
	rc = bench_ring((int)procs, hops, &seconds, &checksum);
	return bench_finish("ring", rc, checksum, bench_ring_expect(hops),
			    seconds);
}
