/* SPDX-License-Identifier: MIT */
/*
 * bench.c - helpers shared by the benchmark workloads and their drivers:
 * the clock, the command line, error strings and the RESULT line.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define USAGE_COLS 80 /* a line of the usage ends before */

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

int bench_usage_error(const char *name, const char *what, const char *value,
		      const char *expected)
{
	fprintf(stderr, "%s: %s: bad value '%s': expected %s\n", name, what,
		value, expected);
	return 2;
}

/* " [A [B [C]]]": the arguments, each optional. */
static void synopsis(const struct bench_cmd *cmd, FILE *f)
{
	const struct bench_arg *a;
	int n = 0;

	for (a = cmd->args; a->name; a++, n++)
		fprintf(f, " [%s", a->name);
	while (n-- > 0)
		fputc(']', f);
}

/* As opt_usage (examples/opt.c) lays it out: the usage line, the about
 * text, an argument a line (or more) with its range and default, the
 * after text. */
static void usage(const struct bench_cmd *cmd, FILE *f)
{
	const struct bench_arg *a;
	size_t w = 10; /* "-h, --help" */
	char range[96];
	const char *h;
	int col, at;

	for (a = cmd->args; a->name; a++)
		if (strlen(a->name) > w)
			w = strlen(a->name);
	col = 2 + (int)w + 2;
	fprintf(f, "usage: %s", cmd->name);
	synopsis(cmd, f);
	fputc('\n', f);
	if (cmd->about)
		fputs(cmd->about, f);
	for (a = cmd->args; a->name; a++) {
		at = fprintf(f, "  %-*s", col - 2, a->name);
		for (h = a->help; *h; h++, at++)
			if (*h == '\n')
				at = fprintf(f, "\n%*s", col, "") - 2;
			else
				fputc(*h, f);
		at += snprintf(range, sizeof(range),
			       ": %ld to %ld (default %ld)", a->min, a->max,
			       *a->value);
		if (at > USAGE_COLS)
			fprintf(f, "\n%*s%s\n", col, "", range + 2);
		else
			fprintf(f, "%s\n", range);
	}
	fprintf(f, "  %-*sthis text\n", col - 2, "-h, --help");
	if (cmd->after)
		fputs(cmd->after, f);
}

/* An option, not an operand: "-x", "--x", but not "-", "-5". */
static bool is_option(const char *s)
{
	return s[0] == '-' && s[1] != '\0' && !isdigit((unsigned char)s[1]);
}

/* -h or --help before any "--". */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/* An unknown option, or an operand past the last argument: one line,
 * naming it and what the command takes. Returns 2. */
static int refuse(const struct bench_cmd *cmd, const char *word, bool opt)
{
	if (opt)
		fprintf(stderr, "%s: unknown option %s: expected", cmd->name,
			word);
	else
		fprintf(stderr, "%s: unexpected operand '%s': expected",
			cmd->name, word);
	synopsis(cmd, stderr);
	fputs(opt ? " or --help\n" : "\n", stderr);
	return 2;
}

int bench_args(const struct bench_cmd *cmd, int argc, char **argv)
{
	const struct bench_arg *a = cmd->args;
	char expect[64];
	bool opts = true;
	int i;

	if (wants_help(argc, argv)) {
		usage(cmd, stdout);
		return fflush(stdout) == EOF ? 1 : 0;
	}
	for (i = 1; i < argc; i++) {
		if (opts && !strcmp(argv[i], "--")) {
			opts = false;
			continue;
		}
		if (opts && is_option(argv[i]))
			return refuse(cmd, argv[i], true);
		if (!a->name)
			return refuse(cmd, argv[i], false);
		snprintf(expect, sizeof(expect), "%ld to %ld", a->min, a->max);
		if (bench_parse_long(argv[i], a->min, a->max, a->value))
			return bench_usage_error(cmd->name, a->name, argv[i],
						 expect);
		a++;
	}
	return BENCH_RUN;
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
