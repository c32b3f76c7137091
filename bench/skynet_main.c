/* SPDX-License-Identifier: MIT */
/*
 * skynet_main.c - bench/skynet [LEAVES [WINDOW]]: runs the skynet workload
 * and prints "RESULT skynet <checksum> <seconds>".
 */
#include <stdio.h>
#include "bench.h"

int main(int argc, char **argv)
{
	long leaves = BENCH_SKYNET_LEAVES, window = BENCH_SKYNET_WINDOW;
	const struct bench_arg args[] = {
		{ "LEAVES", &leaves, 1, 1000000000L, "leaves of the tree" },
		{ "WINDOW", &window, 1, BENCH_SKYNET_FANOUT,
		  "children a node keeps alive at once" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/skynet",
		.about = "A tree of processes, up to 10 children a node, down "
			 "to LEAVES leaves\nnumbered from 0; each node sends "
			 "its parent the sum of its children's.\n",
		.args = args,
		.after = "Prints \"RESULT skynet CHECKSUM SECONDS\": the "
			 "root's sum (LEAVES x\n(LEAVES - 1) / 2) and the "
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
	rc = bench_skynet(leaves, (int)window, &seconds, &checksum);
	return bench_finish("skynet", rc, checksum, bench_skynet_expect(leaves),
			    seconds);
}
