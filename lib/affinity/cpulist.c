/* SPDX-License-Identifier: MIT */
/* cpulist.c - the parser of Linux CPU lists; see cpulist.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <hwloc.h>

#include "cpulist.h"

/* ---- CPU lists ---------------------------------------------------------- */

/* Longest piece of the input quoted back in a reason. */
#define CPULIST_SHOW 24

static int __attribute__((format(printf, 3, 4)))
cpulist_bad(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/*
 * Read the decimal number at *p (before end) and step past it. The value
 * saturates just above ACT_CPU_MAX, so an overlong number cannot wrap
 * around into a valid one. Returns -1 when *p is not a digit.
 */
static int cpulist_num(const char **p, const char *end, unsigned long *v)
{
	const char *q = *p;

	if (q == end || !isdigit((unsigned char)*q))
		return -1;
	*v = 0;
	for (; q < end && isdigit((unsigned char)*q); q++) {
		*v = *v * 10 + (unsigned long)(*q - '0');
		if (*v > ACT_CPU_MAX)
			*v = ACT_CPU_MAX + 1;
	}
	*p = q;
	return 0;
}

/* One element, [e, end), blanks already trimmed, into out. */
static int cpulist_elem(const char *e, const char *end, hwloc_bitmap_t out,
			char *why, size_t why_len)
{
	int len = (int)(end - e) < CPULIST_SHOW ? (int)(end - e) : CPULIST_SHOW;
	unsigned long a, b, stride = 1, cpu;
	const char *q = e;

	if (*q == '-' && q + 1 < end && isdigit((unsigned char)q[1]))
		return cpulist_bad(why, why_len, "\"%.*s\" is negative", len,
				   e);
	if (cpulist_num(&q, end, &a))
		return cpulist_bad(why, why_len, "\"%.*s\" is not a number",
				   len, e);
	b = a;
	if (q < end && *q == '-') {
		if (++q == end)
			return cpulist_bad(why, why_len,
					   "range \"%.*s\" has no end", len, e);
		if (cpulist_num(&q, end, &b))
			return cpulist_bad(why, why_len,
					   "end of range \"%.*s\" is not a "
					   "number",
					   len, e);
		if (q < end && *q == ':') {
			if (++q == end || cpulist_num(&q, end, &stride))
				return cpulist_bad(
					why, why_len,
					"stride in \"%.*s\" is not a "
					"number",
					len, e);
			if (!stride)
				return cpulist_bad(why, why_len,
						   "stride in \"%.*s\" is 0",
						   len, e);
		}
	}
	if (q < end) {
		int ok = (int)(q - e) < CPULIST_SHOW ? (int)(q - e) :
						       CPULIST_SHOW;
		int junk = (int)(end - q) < CPULIST_SHOW ? (int)(end - q) :
							   CPULIST_SHOW;

		return cpulist_bad(why, why_len, "junk \"%.*s\" after \"%.*s\"",
				   junk, q, ok, e);
	}
	if (a > ACT_CPU_MAX || b > ACT_CPU_MAX)
		return cpulist_bad(why, why_len,
				   "\"%.*s\" is above the largest CPU, %d", len,
				   e, ACT_CPU_MAX);
	if (a > b)
		return cpulist_bad(why, why_len, "range %lu-%lu is reversed", a,
				   b);
	for (cpu = a; cpu <= b; cpu += stride) {
		/* Each CPU is set once, so a list costs at most 64k steps. */
		if (hwloc_bitmap_isset(out, (unsigned)cpu))
			return cpulist_bad(why, why_len,
					   "CPU %lu is named twice", cpu);
		if (hwloc_bitmap_set(out, (unsigned)cpu)) {
			if (why && why_len)
				snprintf(why, why_len, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

int act__cpulist_parse(const char *s, hwloc_bitmap_t out, char *why,
		       size_t why_len)
{
	const char *e, *end, *stop;
	unsigned n = 0;
	int rc;

	hwloc_bitmap_zero(out);
	if (why && why_len)
		why[0] = '\0';
	if (!s)
		return cpulist_bad(why, why_len, "the list is empty");
	while (is_blank(*s))
		s++;
	if (!*s)
		return cpulist_bad(why, why_len, "the list is empty");
	for (;;) {
		n++;
		stop = strchr(s, ',');
		if (!stop)
			stop = s + strlen(s);
		for (e = s; e < stop && is_blank(*e); e++)
			;
		for (end = stop; end > e && is_blank(end[-1]); end--)
			;
		if (e == end) {
			rc = cpulist_bad(why, why_len, "element %u is empty",
					 n);
			break;
		}
		rc = cpulist_elem(e, end, out, why, why_len);
		if (rc || !*stop)
			break;
		s = stop + 1;
	}
	if (rc)
		hwloc_bitmap_zero(out);
	return rc;
}
