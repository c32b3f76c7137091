/* SPDX-License-Identifier: MIT */
/* opt.c - the options from a table (opt.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

#define USAGE_COLS 80 /* the usage line wraps before it */
#define LEFT_MAX 24   /* "  --name ARG" wider: its help on the next line */

/* The width of "--name ARG" (or "--name"). */
static size_t left_width(const struct opt *o)
{
	return 2 + strlen(o->name) + (o->arg ? 1 + strlen(o->arg) : 0);
}

/* "usage: NAME [--name ARG]... OPERANDS", wrapped under the first. */
static void synopsis(const struct opt_cmd *cmd, FILE *f)
{
	const struct opt *o;
	size_t col = 7 + strlen(cmd->name), indent = col, n;
	char w[96];

	fprintf(f, "usage: %s", cmd->name);
	for (o = cmd->opts;; o++) {
		if (o->name)
			snprintf(w, sizeof(w), "[--%s%s%s]", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else if (cmd->operands)
			snprintf(w, sizeof(w), "%s", cmd->operands);
		else
			break;
		n = strlen(w);
		if (col + 1 + n > USAGE_COLS && col > indent) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		}
		fprintf(f, " %s", w);
		col += 1 + n;
		if (!o->name)
			break;
	}
	fputc('\n', f);
}

/* o's value before the parse, when the usage shows it: true with buf. */
static bool default_of(const struct opt *o, char *buf, size_t len)
{
	const char *s;

	if (o->help && strstr(o->help, "default"))
		return false; /* the help says it */
	switch (o->kind) {
	case OPT_K_INT:
		snprintf(buf, len, "%d", *(const int *)o->dst);
		return true;
	case OPT_K_LONG:
		snprintf(buf, len, "%ld", *(const long *)o->dst);
		return true;
	case OPT_K_DOUBLE:
		snprintf(buf, len, "%g", *(const double *)o->dst);
		return true;
	case OPT_K_STR:
		s = *(const char *const *)o->dst;
		if (!s || !*s)
			return false;
		snprintf(buf, len, "%s", s);
		return true;
	case OPT_K_FLAG:
	case OPT_K_FN:
		break;
	}
	return false;
}

/* "{range}" of a number's help: "LO to HI". */
static void range_of(const struct opt *o, FILE *f)
{
	if (o->kind == OPT_K_DOUBLE)
		fprintf(f, "%g to %g", o->dmin, o->dmax);
	else
		fprintf(f, "%ld to %ld", o->min, o->max);
}

/* One option's lines: "  --name ARG", its help from column col. */
static void option_usage(const struct opt *o, int col, FILE *f)
{
	const char *h = o->help ? o->help : "";
	char def[64];
	int n;

	n = fprintf(f, "  --%s%s%s", o->name, o->arg ? " " : "",
		    o->arg ? o->arg : "");
	if (n + 2 > col) { /* too wide: the help starts a line below */
		fputc('\n', f);
		n = 0;
	}
	fprintf(f, "%*s", col - n, "");
	for (; *h; h++) {
		if (*h == '\n') {
			fprintf(f, "\n%*s", col, "");
		} else if (!strncmp(h, "{range}", 7)) {
			range_of(o, f);
			h += 6;
		} else {
			fputc(*h, f);
		}
	}
	if (default_of(o, def, sizeof(def)))
		fprintf(f, " (default %s)", def);
	fputc('\n', f);
}

void opt_usage(const struct opt_cmd *cmd, FILE *f)
{
	const struct opt *o;
	size_t w = 10; /* "-h, --help" */
	int col;

	for (o = cmd->opts; o->name; o++)
		if (left_width(o) > w && left_width(o) <= LEFT_MAX)
			w = left_width(o);
	col = 2 + (int)w + 2;
	synopsis(cmd, f);
	if (cmd->about)
		fputs(cmd->about, f);
	if (cmd->about_fn)
		cmd->about_fn(f);
	for (o = cmd->opts; o->name; o++)
		option_usage(o, col, f);
	fprintf(f, "  -h, --help%*sthis text\n", col - 12, "");
	if (cmd->after)
		fputs(cmd->after, f);
}

int opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int opt_bad_value(const char *name, const char *option, const char *value,
		  const char *expected)
{
	fprintf(stderr, "%s: %s: bad value '%s': expected %s\n", name, option,
		value, expected);
	return 2;
}

/* The option named by the n bytes at s: exact, else a unique prefix. */
static const struct opt *lookup(const struct opt *t, const char *s, size_t n,
				bool *ambiguous)
{
	const struct opt *found = NULL;

	*ambiguous = false;
	for (; t->name; t++) {
		if (strncmp(t->name, s, n))
			continue;
		if (t->name[n] == '\0')
			return t;
		*ambiguous = found != NULL;
		found = t;
	}
	return *ambiguous ? NULL : found;
}

static int take_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int take_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= min) || v > max)
		return -1;
	*out = v;
	return 0;
}

/* o's value into its dst; NULL, or what was expected. */
static const char *take(const struct opt *o, const char *v, char *buf,
			size_t len)
{
	long l;

	switch (o->kind) {
	case OPT_K_INT:
	case OPT_K_LONG:
		if (take_long(v, o->min, o->max, &l))
			break;
		if (o->kind == OPT_K_INT)
			*(int *)o->dst = (int)l;
		else
			*(long *)o->dst = l;
		return NULL;
	case OPT_K_DOUBLE:
		if (take_double(v, o->dmin, o->dmax, o->dst))
			break;
		return NULL;
	case OPT_K_STR:
		*(const char **)o->dst = v;
		return NULL;
	case OPT_K_FN:
		return o->fn(v, o->dst);
	case OPT_K_FLAG:
		break;
	}
	if (o->kind == OPT_K_DOUBLE)
		snprintf(buf, len, "%g to %g", o->dmin, o->dmax);
	else
		snprintf(buf, len, "%ld to %ld", o->min, o->max);
	return buf;
}

/* The option at argv[*i] (and its value); OPT_OK, OPT_HELP or OPT_BAD. */
static int option(const struct opt_cmd *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq = strchr(a, '='), *v, *why;
	size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	const struct opt *o;
	bool ambiguous;
	char buf[64], flag[64];

	o = a[1] == '-' && n > 0 ? lookup(cmd->opts, a + 2, n, &ambiguous) :
				   NULL;
	if (o == NULL) {
		opt_error(cmd, "%s option %.*s (%s --help lists the options)",
			  a[1] == '-' && n > 0 && ambiguous ? "ambiguous" :
							      "unknown",
			  eq ? (int)(eq - a) : (int)strlen(a), a, cmd->name);
		return OPT_BAD;
	}
	if (o->kind == OPT_K_FLAG) {
		if (eq) {
			opt_error(cmd, "--%s takes no value", o->name);
			return OPT_BAD;
		}
		*(bool *)o->dst = true;
		return OPT_OK;
	}
	if (eq) {
		v = eq + 1;
	} else if (*i + 1 < argc) {
		v = argv[++*i];
	} else {
		opt_error(cmd, "--%s needs a value", o->name);
		return OPT_BAD;
	}
	why = take(o, v, buf, sizeof(buf));
	if (why) {
		snprintf(flag, sizeof(flag), "--%s", o->name);
		opt_bad_value(cmd->name, flag, v, why);
		return OPT_BAD;
	}
	return OPT_OK;
}

/* Moves argv[i] to argv[to] (to <= i), the words between one on. */
static void rotate(char **argv, int to, int i)
{
	char *w = argv[i];

	memmove(argv + to + 1, argv + to, (size_t)(i - to) * sizeof(*argv));
	argv[to] = w;
}

/*
 * -h or --help among the options of argv (not an option's value, not
 * after "--"): looked for before any option is taken, so that the usage
 * shows the defaults.
 */
static bool wants_help(const struct opt_cmd *cmd, int argc, char **argv)
{
	const struct opt *o;
	bool ambiguous;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return true;
		if (a[0] != '-' || a[1] != '-' || strchr(a, '='))
			continue;
		o = lookup(cmd->opts, a + 2, strlen(a + 2), &ambiguous);
		if (o && o->kind != OPT_K_FLAG)
			i++; /* its value, whatever it looks like */
	}
	return false;
}

int opt_parse(const struct opt_cmd *cmd, int argc, char **argv, int *first)
{
	int i, from, rc, end = 1; /* argv[1..end): the options read */

	if (wants_help(cmd, argc, argv)) {
		opt_usage(cmd, stdout);
		return OPT_HELP;
	}

	/* argv[end..i) are the operands seen so far: each option's words
	 * are moved in front of them, so that they stay in order */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			rotate(argv, end++, i);
			break; /* the rest are operands, in place */
		}
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			continue; /* an operand, "-" too */
		from = i;
		rc = option(cmd, argc, argv, &i);
		if (rc != OPT_OK)
			return rc;
		for (; from <= i; from++)
			rotate(argv, end++, from);
	}
	*first = end;
	return OPT_OK;
}
