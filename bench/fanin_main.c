/* SPDX-License-Identifier: MIT */
/*
 * fanin_main.c - bench/fanin [SENDERS [MESSAGES [WINDOW]]]: runs the
 * fan-in workload and prints "RESULT fanin <checksum> <seconds>". WINDOW
 * 0 turns flow control off.
 */
#include <stdio.h>

#include "bench.h"

struct fanin_args {
	long senders, msgs, window;
};

static int parse_args(int argc, char **argv, struct fanin_args *a)
{
	if (argc > 4)
		return -1;
	if (argc > 1 &&
	    bench_parse_long(argv[1], 1, BENCH_FANIN_MAX_SENDERS, &a->senders))
		return -1;
	if (argc > 2 &&
	    bench_parse_long(argv[2], 1, (1L << BENCH_FANIN_SEQ_BITS) - 1,
			     &a->msgs))
		return -1;
	if (argc > 3 && bench_parse_long(argv[3], 0, 1L << 30, &a->window))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct fanin_args a = { BENCH_FANIN_SENDERS, BENCH_FANIN_MSGS,
				BENCH_FANIN_WINDOW };
	uint64_t checksum = 0;
	double seconds = 0;
	int rc;

	if (parse_args(argc, argv, &a)) {
		fprintf(stderr,
			"usage: %s [SENDERS [MESSAGES [WINDOW]]]   "
			"(default %d %ld %ld)\n",
			argv[0], BENCH_FANIN_SENDERS, BENCH_FANIN_MSGS,
			BENCH_FANIN_WINDOW);
		return 2;
	}
	rc = bench_fanin((int)a.senders, a.msgs, a.window, &seconds, &checksum);
	return bench_finish("fanin", rc, checksum,
			    bench_fanin_expect((int)a.senders, a.msgs),
			    seconds);
}
