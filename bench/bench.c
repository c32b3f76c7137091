/* SPDX-License-Identifier: MIT */
/*
 * bench.c - helpers shared by the benchmark workloads and their drivers:
 * the clock, argument parsing, error strings and the RESULT line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* Seconds on CLOCK_MONOTONIC: a vDSO read, no system call. */
double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A workload's return value from act_main()'s and its main process's own
 * error: the runtime's errno first, then an abnormal exit, then err.
 */
int bench_status(int main_rc, int err)
{
	if (main_rc < 0)
		return main_rc;
	if (main_rc > 0)
		return BENCH_EEXIT;
	return err;
}

/* Parses a whole decimal number in [min, max]; 0 or -EINVAL. */
int bench_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *bench_strerror(int rc)
{
	switch (rc) {
	case 0:
		return "success";
	case BENCH_ESPAWN:
		return "act_spawn failed";
	case BENCH_EPROTO:
		return "unexpected message";
	case BENCH_EEXIT:
		return "main process exited abnormally";
	case BENCH_EINVAL:
		return "argument out of range";
	}
	return rc < 0 ? strerror(-rc) : "unknown failure";
}

/*
 * Ends a bench/ program: prints "RESULT <name> <checksum> <seconds>" when
 * the run completed, and says on stderr what went wrong if it did not or
 * if the checksum is not the expected one. Returns the exit status.
 */
int bench_finish(const char *name, int rc, uint64_t checksum, uint64_t expect,
		 double seconds)
{
	if (rc) {
		fprintf(stderr, "%s: %s\n", name, bench_strerror(rc));
		return 1;
	}
	printf("RESULT %s %" PRIu64 " %.6f\n", name, checksum, seconds);
	if (fflush(stdout) == EOF) {
		perror(name);
		return 1;
	}
	if (checksum != expect) {
		fprintf(stderr,
			"%s: checksum %" PRIu64 ", expected %" PRIu64 "\n",
			name, checksum, expect);
		return 1;
	}
	return 0;
}
