/* SPDX-License-Identifier: MIT */
/* opt.c - the options from a table (opt.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

static void after_error(const struct opt_cmd *cmd)
{
	if (cmd->hint)
		fprintf(stderr, "run '%s --help' for the options\n", cmd->name);
	else
		cmd->usage(stderr);
}

int opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	after_error(cmd);
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
	char buf[64];

	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		cmd->usage(stdout);
		return OPT_HELP;
	}
	o = a[1] == '-' && n > 0 ? lookup(cmd->opts, a + 2, n, &ambiguous) :
				   NULL;
	if (o == NULL) {
		opt_error(cmd, "%s option %.*s",
			  a[1] == '-' && n > 0 && ambiguous ? "ambiguous" :
							      "unknown",
			  eq ? (int)(eq - a) : (int)strlen(a), a);
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
		opt_error(cmd, "--%s %s: expected %s", o->name, v, why);
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

int opt_parse(const struct opt_cmd *cmd, int argc, char **argv, int *first)
{
	int i, from, rc, end = 1; /* argv[1..end): the options read */

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
