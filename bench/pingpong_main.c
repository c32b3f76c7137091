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
	const struct bench_arg args[] = {
		{ "ROUNDS", &rounds, 1, LONG_MAX / 4, "round trips" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/pingpong",
		.about = "The main process and a partner exchange a counter, "
			 "ROUNDS round trips\n(2 x ROUNDS messages).\n",
		.args = args,
		.after = "Prints \"RESULT pingpong CHECKSUM SECONDS\": the "
			 "messages delivered in order\n(2 x ROUNDS) and the "
			 "run's time.\n"
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
	rc = bench_pingpong(rounds, &seconds, &checksum);
	return bench_finish("pingpong", rc, checksum,
			    bench_pingpong_expect(rounds), seconds);
}
