/* SPDX-License-Identifier: MIT */
/*
 * pingpong_main.c - bench/pingpong [ROUNDS]: runs the ping-pong workload
 * and prints "RESULT pingpong <checksum> <seconds>".
 */
#include <limits.h>
#include <stdio.h>

#include "bench.h"

int main(int argc, char **argv)
{
	long rounds = BENCH_PINGPONG_ROUNDS;
	uint64_t checksum = 0;
	double seconds = 0;
	int rc;

	if (argc > 2 || (argc == 2 &&
			 bench_parse_long(argv[1], 1, LONG_MAX / 4, &rounds))) {
		fprintf(stderr, "usage: %s [ROUNDS]   (default %ld)\n", argv[0],
			BENCH_PINGPONG_ROUNDS);
		return 2;
	}
	rc = bench_pingpong(rounds, &seconds, &checksum);
	return bench_finish("pingpong", rc, checksum,
			    bench_pingpong_expect(rounds), seconds);
}
