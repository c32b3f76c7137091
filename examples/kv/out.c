/* SPDX-License-Identifier: MIT */
/* out.c - RESP2 and RESP3 replies into a growing buffer (out.h). */
#include "out.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void out_init(struct out *o)
{
	memset(o, 0, sizeof(*o));
}

void out_free(struct out *o)
{
	free(o->p);
	out_init(o);
}

char *out_room(struct out *o, size_t n)
{
	size_t cap;
	char *p;

	if (o->failed)
		return NULL;
	if (o->cap - o->len >= n)
		return o->p + o->len;
	cap = o->cap ? o->cap : 256;
	while (cap - o->len < n) {
		if (cap > SIZE_MAX / 2) {
			o->failed = true;
			return NULL;
		}
		cap *= 2;
	}
	p = realloc(o->p, cap);
	if (!p) {
		o->failed = true;
		return NULL;
	}
	o->p = p;
	o->cap = cap;
	return o->p + o->len;
}

void out_raw(struct out *o, const void *p, size_t n)
{
	char *d = out_room(o, n);

	if (!d)
		return;
	if (n)
		memcpy(d, p, n);
	o->len += n;
}

void out_drop_front(struct out *o, size_t n)
{
	if (n >= o->len) {
		o->len = 0;
		return;
	}
	memmove(o->p, o->p + n, o->len - n);
	o->len -= n;
}

size_t out_lltoa(char *d, long long v)
{
	/* unsigned: -LLONG_MIN does not fit a long long */
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v :
				       (unsigned long long)v;
	char tmp[20];
	size_t n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[i++] = '-';
	while (n)
		d[i++] = tmp[--n];
	return i;
}

/* prefix, the decimal v, "\r\n" */
static void line_ll(struct out *o, char prefix, long long v)
{
	char *d = out_room(o, 24);
	size_t n;

	if (!d)
		return;
	d[0] = prefix;
	n = 1 + out_lltoa(d + 1, v);
	d[n] = '\r';
	d[n + 1] = '\n';
	o->len += n + 2;
}

static void line(struct out *o, char prefix, const char *s, size_t n)
{
	char *d = out_room(o, n + 3);

	if (!d)
		return;
	d[0] = prefix;
	memcpy(d + 1, s, n);
	d[n + 1] = '\r';
	d[n + 2] = '\n';
	o->len += n + 3;
}

void out_status(struct out *o, const char *s)
{
	line(o, '+', s, strlen(s));
}

void out_error(struct out *o, const char *s)
{
	line(o, '-', s, strlen(s));
}

void out_errorf(struct out *o, const char *fmt, ...)
{
	char buf[512], *p = buf;
	va_list ap;
	int n, i;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf)) { /* an argument quoted whole */
		p = malloc((size_t)n + 1);
		if (!p) {
			o->failed = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	for (i = 0; i < n; i++) /* as redis: no line end inside an error */
		if (p[i] == '\r' || p[i] == '\n')
			p[i] = ' ';
	line(o, '-', p, (size_t)n);
	if (p != buf)
		free(p);
}

void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char *d;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(d = out_room(o, (size_t)n + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
}

void out_int(struct out *o, long long v)
{
	line_ll(o, ':', v);
}

void out_bulk(struct out *o, const void *p, size_t n)
{
	char *d;

	line_ll(o, '$', (long long)n);
	d = out_room(o, n + 2);
	if (!d)
		return;
	if (n)
		memcpy(d, p, n);
	d[n] = '\r';
	d[n + 1] = '\n';
	o->len += n + 2;
}

void out_null(struct out *o)
{
	out_raw(o, o->resp3 ? "_\r\n" : "$-1\r\n", o->resp3 ? 3 : 5);
}

void out_null_array(struct out *o)
{
	out_raw(o, o->resp3 ? "_\r\n" : "*-1\r\n", o->resp3 ? 3 : 5);
}

void out_array(struct out *o, long long n)
{
	line_ll(o, '*', n);
}

void out_map(struct out *o, long long n)
{
	if (o->resp3)
		line_ll(o, '%', n);
	else
		line_ll(o, '*', 2 * n);
}

void out_set(struct out *o, long long n)
{
	line_ll(o, o->resp3 ? '~' : '*', n);
}

/* An aggregate's header, prefix and n, put in at byte `at`. */
static void head_at(struct out *o, size_t at, char prefix, long long n)
{
	char head[24];
	size_t k;

	head[0] = prefix;
	k = 1 + out_lltoa(head + 1, n);
	head[k++] = '\r';
	head[k++] = '\n';
	if (!out_room(o, k))
		return;
	memmove(o->p + at + k, o->p + at, o->len - at);
	memcpy(o->p + at, head, k);
	o->len += k;
}

void out_array_at(struct out *o, size_t at, long long n)
{
	head_at(o, at, '*', n);
}

void out_set_at(struct out *o, size_t at, long long n)
{
	head_at(o, at, o->resp3 ? '~' : '*', n);
}

void out_bulk_ll(struct out *o, long long v)
{
	char buf[24];

	out_bulk(o, buf, out_lltoa(buf, v));
}

void out_double(struct out *o, double d)
{
	char buf[40];
	int n;

	if (isinf(d)) { /* libc's spelling varies: redis writes its own */
		if (o->resp3)
			out_raw(o, d > 0 ? ",inf\r\n" : ",-inf\r\n",
				d > 0 ? 6 : 7);
		else
			out_bulk(o, d > 0 ? "inf" : "-inf", d > 0 ? 3 : 4);
		return;
	}
	if (!o->resp3) {
		n = snprintf(buf, sizeof(buf), "%.17g", d);
		out_bulk(o, buf, (size_t)n);
		return;
	}
	n = snprintf(buf, sizeof(buf), ",%.17g\r\n", d);
	out_raw(o, buf, (size_t)n);
}

void out_verbatim(struct out *o, const void *p, size_t n)
{
	char *d;

	if (!o->resp3) {
		out_bulk(o, p, n);
		return;
	}
	line_ll(o, '=', (long long)n + 4);
	d = out_room(o, n + 6);
	if (!d)
		return;
	memcpy(d, "txt:", 4);
	if (n)
		memcpy(d + 4, p, n);
	d[n + 4] = '\r';
	d[n + 5] = '\n';
	o->len += n + 6;
}

void out_scored_array(struct out *o, long long n, bool scores)
{
	out_array(o, scores && !o->resp3 ? 2 * n : n);
}

void out_scored(struct out *o, const void *m, size_t n, double score,
		bool scores)
{
	if (scores && o->resp3)
		out_array(o, 2);
	out_bulk(o, m, n);
	if (scores)
		out_double(o, score);
}
