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
 * The usage text is made from the table too (opt_usage): the line
 * "usage: NAME [--name ARG]... OPERANDS", the command's about text, one
 * line per option, its ARG and its help aligned in two columns, with
 * "(default V)" where the option's variable holds a value before the
 * parse and the help does not name its default itself, then "-h, --help"
 * and the command's closing text. "{range}" in a number's help stands
 * for its range, "LO to HI". -h or --help anywhere among the
 * options prints it (on stdout) before any option is taken, so the
 * defaults shown are the command's own.
 *
 * A usage error is one line on stderr, "NAME: WHY", and exit status 2:
 * "unknown option --bogus (NAME --help lists the options)", "--port
 * needs a value", "--port: bad value 'x': expected 0 to 65535", "--json
 * takes no value". Nothing goes to stdout. NAME is the program's own,
 * fixed in its table ("kv_server", "actors topo"), never argv[0], which
 * under libtool is a wrapper's path.
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
	const char *arg;   /* the value in the usage ("N"); NULL for a flag */
	const char *help;  /* its line in the usage; '\n' starts another */
	long min, max;	   /* OPT_K_INT, OPT_K_LONG */
	double dmin, dmax; /* OPT_K_DOUBLE */
	/* OPT_K_FN: takes the value; NULL, or what it expected ("yes or
	 * no"), for the error message */
	const char *(*fn)(const char *value, void *dst);
};

/*
 * The entries: name, variable, range (for numbers), the value's name in
 * the usage (a is "N", "FILE"...; none for a flag) and the help text.
 */
/* clang-format off */
#define OPT_FLAG(n, p, h) \
	{ .name = (n), .kind = OPT_K_FLAG, .dst = (p), .help = (h) }
#define OPT_INT(n, p, lo, hi, a, h) \
	{ .name = (n), .kind = OPT_K_INT, .dst = (p), .min = (lo), \
	  .max = (hi), .arg = (a), .help = (h) }
#define OPT_LONG(n, p, lo, hi, a, h) \
	{ .name = (n), .kind = OPT_K_LONG, .dst = (p), .min = (lo), \
	  .max = (hi), .arg = (a), .help = (h) }
#define OPT_DOUBLE(n, p, lo, hi, a, h) \
	{ .name = (n), .kind = OPT_K_DOUBLE, .dst = (p), .dmin = (lo), \
	  .dmax = (hi), .arg = (a), .help = (h) }
#define OPT_STR(n, p, a, h) \
	{ .name = (n), .kind = OPT_K_STR, .dst = (p), .arg = (a), .help = (h) }
#define OPT_FN(n, f, p, a, h) \
	{ .name = (n), .kind = OPT_K_FN, .dst = (p), .fn = (f), .arg = (a), \
	  .help = (h) }
#define OPT_END { .name = NULL }
/* A macro's value as a string, for a help text: OPT_TEXT(ECHOLOAD_SIZE) */
#define OPT_TEXT(x) OPT_TEXT_(x)
#define OPT_TEXT_(x) #x
/* clang-format on */

struct opt_cmd {
	const char *name;	   /* "actors topo": how errors start */
	const struct opt *opts;	   /* the table */
	const char *operands;	   /* after the options in the usage line */
	const char *about;	   /* what it does, after the usage line */
	void (*about_fn)(FILE *f); /* or, with figures, printed there */
	const char *after;	   /* after the options: exit status... */
};

/* The usage text (above), to f. */
void opt_usage(const struct opt_cmd *cmd, FILE *f);

enum {
	OPT_OK,	  /* parsed: argv[*first..argc) are the operands */
	OPT_HELP, /* -h or --help: the usage is on stdout; exit 0 */
	OPT_BAD,  /* a usage error, said on stderr; exit 2 */
};

/* Parses argv[1..argc) by cmd's table; OPT_OK, OPT_HELP or OPT_BAD. */
int opt_parse(const struct opt_cmd *cmd, int argc, char **argv, int *first);

/*
 * A usage error the table cannot see (an operand, two options that
 * exclude each other): the line "NAME: " and fmt's text on stderr.
 * Returns 2, the exit status.
 */
int opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A bad value, for a parser of its own (actors stress): the line "NAME:
 * OPTION: bad value 'VALUE': expected EXPECTED" on stderr, as opt_parse
 * words it. Returns 2, the exit status.
 */
int opt_bad_value(const char *name, const char *option, const char *value,
		  const char *expected);

/* The exit status for opt_parse's result: 0 for OPT_HELP, 2 OPT_BAD. */
static inline int opt_status(int rc)
{
	return rc == OPT_HELP ? 0 : 2;
}

#endif
