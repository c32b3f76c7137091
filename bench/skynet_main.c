/* SPDX-License-Identifier: MIT */
/*
 * skynet_main.c - bench/skynet [LEAVES [WINDOW]]: runs the skynet workload
 * and prints "RESULT skynet <checksum> <seconds>".
 */
#include <stdio.h>

#include "bench.h"

static int parse_args(int argc, char **argv, long *leaves, long *window)
{
	if (argc > 3)
		return -1;
	if (argc > 1 && bench_parse_long(argv[1], 1, 1000000000L, leaves))
		return -1;
	if (argc > 2 &&
	    bench_parse_long(argv[2], 1, BENCH_SKYNET_FANOUT, window))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long leaves = BENCH_SKYNET_LEAVES, window = BENCH_SKYNET_WINDOW;
	uint64_t checksum = 0;
	double seconds = 0;
	int rc;

	if (parse_args(argc, argv, &leaves, &window)) {
		fprintf(stderr,
			"usage: %s [LEAVES [WINDOW]]   (default %ld %d)\n",
			argv[0], BENCH_SKYNET_LEAVES, BENCH_SKYNET_WINDOW);
		return 2;
	}
	rc = bench_skynet(leaves, (int)window, &seconds, &checksum);
	return bench_finish("skynet", rc, checksum, bench_skynet_expect(leaves),
			    seconds);
}
