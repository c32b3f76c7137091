/* SPDX-License-Identifier: MIT */
/*
 * spawnburst_main.c - bench/spawnburst [CHILDREN [TOTAL]]: runs the spawn
 * burst workload and prints "RESULT spawnburst <checksum> <seconds>".
 */
#include <limits.h>
#include <stdio.h>
#include "bench.h"

int main(int argc, char **argv)
{
	long children = BENCH_SPAWNBURST_FEW, total = BENCH_SPAWNBURST_TOTAL;
	const struct bench_arg args[] = {
		{ "CHILDREN", &children, 1, BENCH_SPAWNBURST_MAX_CHILDREN,
		  "processes spawned" },
		{ "TOTAL", &total, 1, LONG_MAX,
		  "xorshift64 steps in all, split among the\n"
		  "children, no fewer than CHILDREN" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/spawnburst",
		.about = "The main process spawns CHILDREN processes; each "
			 "runs TOTAL / CHILDREN\nsteps of xorshift64 and sends "
			 "its final state back.\n",
		.args = args,
		.after = "Prints \"RESULT spawnburst CHECKSUM SECONDS\": the "
			 "sum of the final states\nand the run's time.\n"
			 "exit status: 0 the run completed with that checksum, "
			 "1 it failed or the\nchecksum is wrong (said on "
			 "stderr), 2 a usage error\n",
	};
	uint64_t checksum = 0;
	double seconds = 0;
	char value[24], expect[64];
	int rc;

	rc = bench_args(&cmd, argc, argv);
	if (rc != BENCH_RUN)
		return rc;
	if (total < children) {
		snprintf(value, sizeof(value), "%ld", total);
		snprintf(expect, sizeof(expect), "CHILDREN (%ld) to %ld",
			 children, LONG_MAX);
		return bench_usage_error(cmd.name, "TOTAL", value, expect);
	}
	rc = bench_spawnburst(children, total, &seconds, &checksum);
	return bench_finish("spawnburst", rc, checksum,
			    bench_spawnburst_expect(children, total), seconds);
}
