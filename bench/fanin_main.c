/* SPDX-License-Identifier: MIT */
/*
 * fanin_main.c - bench/fanin [SENDERS [MESSAGES [WINDOW]]]: runs the
 * fan-in workload and prints "RESULT fanin <checksum> <seconds>". WINDOW
 * 0 turns flow control off.
 */
#include <stdio.h>
#include "bench.h"

int main(int argc, char **argv)
{
	long senders = BENCH_FANIN_SENDERS, msgs = BENCH_FANIN_MSGS;
	long window = BENCH_FANIN_WINDOW;
	const struct bench_arg args[] = {
		{ "SENDERS", &senders, 1, BENCH_FANIN_MAX_SENDERS,
		  "sending processes" },
		{ "MESSAGES", &msgs, 1, (1L << BENCH_FANIN_SEQ_BITS) - 1,
		  "messages each sender sends" },
		{ "WINDOW", &window, 0, 1L << 30,
		  "messages a sender sends before it waits for\n"
		  "an ACK (0: no flow control)" },
		{ .name = NULL },
	};
	const struct bench_cmd cmd = {
		.name = "bench/fanin",
		.about = "SENDERS processes each send MESSAGES messages to the "
			 "main process, which\nchecks that each sender's "
			 "arrive in order.\n",
		.args = args,
		.after = "Prints \"RESULT fanin CHECKSUM SECONDS\": the "
			 "messages received in order\n(SENDERS x MESSAGES) "
			 "and the run's time.\n"
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
	rc = bench_fanin((int)senders, msgs, window, &seconds, &checksum);
	return bench_finish("fanin", rc, checksum,
			    bench_fanin_expect((int)senders, msgs), seconds);
}
