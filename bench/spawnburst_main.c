/* SPDX-License-Identifier: MIT */
/*
 * spawnburst_main.c - bench/spawnburst [CHILDREN [TOTAL]]: runs the spawn
 * burst workload and prints "RESULT spawnburst <checksum> <seconds>".
 */
#include <limits.h>
#include <stdio.h>

#include "bench.h"

static int parse_args(int argc, char **argv, long *children, long *total)
{
	if (argc > 3)
		return -1;
	if (argc > 1 &&
	    bench_parse_long(argv[1], 1, BENCH_SPAWNBURST_MAX_CHILDREN,
			     children))
		return -1;
	if (argc > 2 && bench_parse_long(argv[2], 1, LONG_MAX, total))
		return -1;
	return *total < *children ? -1 : 0;
}

int main(int argc, char **argv)
{
	long children = BENCH_SPAWNBURST_FEW, total = BENCH_SPAWNBURST_TOTAL;
	uint64_t checksum = 0;
	double seconds = 0;
	int rc;

	if (parse_args(argc, argv, &children, &total)) {
		fprintf(stderr,
			"usage: %s [CHILDREN [TOTAL]]   (default %d %ld; "
			"TOTAL >= CHILDREN)\n",
			argv[0], BENCH_SPAWNBURST_FEW, BENCH_SPAWNBURST_TOTAL);
		return 2;
	}
	rc = bench_spawnburst(children, total, &seconds, &checksum);
	return bench_finish("spawnburst", rc, checksum,
			    bench_spawnburst_expect(children, total), seconds);
}
