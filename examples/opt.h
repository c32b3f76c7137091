/* SPDX-License-Identifier: MIT */
/*
 * opt.h - the command-line options of the tool's commands, the examples
 * and bench/echo, from a table: one parser, one set of error messages.
 *
 *   --name VALUE, --name=VALUE  an option with a value (which may start
 *                               with '-': --reactor-cpu -1)
 *   --name                      a flag
 *   --nam                       an unambiguous prefix stands for the name,
 *                               as with getopt_long
 *   -h, --help                  the usage on stdout
 *   --                          the end of the options
 *
 * Other words are operands: the parser moves them, in order, to the end
 * of argv, whatever options came between them.
 *
 * A usage error is one line on stderr, "NAME: WHY": "unknown option
 * --bogus", "--port needs a value", "--port x: expected 0 to 65535",
 * "--json takes no value". Then the command's usage follows on stderr,
 * or, with hint set, "run 'NAME --help' for the options", and the exit
 * status is 2.
 */
#ifndef ACTORS_OPT_H
#define ACTORS_OPT_H

#include <stdbool.h>
#include <stdio.h>

enum opt_kind {
	OPT_K_FLAG,   /* no value: *(bool *)dst = true */
	OPT_K_INT,    /* *(int *)dst, min to max */
	OPT_K_LONG,   /* *(long *)dst, min to max */
	OPT_K_DOUBLE, /* *(double *)dst, dmin to dmax */
	OPT_K_STR,    /* *(const char **)dst = the value, in argv */
	OPT_K_FN,     /* fn(value, dst) */
};

/* An entry of the table; the macros below make them. */
struct opt {
	const char *name; /* without the dashes; NULL ends the table */
	enum opt_kind kind;
	void *dst;
	long min, max;	   /* OPT_K_INT, OPT_K_LONG */
	double dmin, dmax; /* OPT_K_DOUBLE */
	/* OPT_K_FN: takes the value; NULL, or what it expected ("yes or
	 * no"), for the error message */
	const char *(*fn)(const char *value, void *dst);
};

/* clang-format off */
#define OPT_FLAG(n, p) { .name = (n), .kind = OPT_K_FLAG, .dst = (p) }
#define OPT_INT(n, p, lo, hi) \
	{ .name = (n), .kind = OPT_K_INT, .dst = (p), .min = (lo), .max = (hi) }
#define OPT_LONG(n, p, lo, hi) \
	{ .name = (n), .kind = OPT_K_LONG, .dst = (p), .min = (lo), .max = (hi) }
#define OPT_DOUBLE(n, p, lo, hi) \
	{ .name = (n), .kind = OPT_K_DOUBLE, .dst = (p), .dmin = (lo), \
	  .dmax = (hi) }
#define OPT_STR(n, p) { .name = (n), .kind = OPT_K_STR, .dst = (p) }
#define OPT_FN(n, f, p) \
	{ .name = (n), .kind = OPT_K_FN, .dst = (p), .fn = (f) }
#define OPT_END { .name = NULL }
/* clang-format on */

struct opt_cmd {
	const char *name;	/* "actors topo": how errors start */
	const struct opt *opts; /* the table */
	void (*usage)(FILE *f); /* the usage text */
	bool hint; /* after an error, the hint line, not the usage */
};

enum {
	OPT_OK,	  /* parsed: argv[*first..argc) are the operands */
	OPT_HELP, /* -h or --help: the usage is on stdout; exit 0 */
	OPT_BAD,  /* a usage error, said on stderr; exit 2 */
};

/* Parses argv[1..argc) by cmd's table; OPT_OK, OPT_HELP or OPT_BAD. */
int opt_parse(const struct opt_cmd *cmd, int argc, char **argv, int *first);

/*
 * A usage error the table cannot see (an operand, two options that
 * exclude each other): the line "NAME: " and fmt's text, then what
 * follows every error (above). Returns 2, the exit status.
 */
int opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The exit status for opt_parse's result: 0 for OPT_HELP, 2 OPT_BAD. */
static inline int opt_status(int rc)
{
	return rc == OPT_HELP ? 0 : 2;
}

#endif
