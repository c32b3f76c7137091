/* SPDX-License-Identifier: MIT */
/*
 * resp.c - the RESP2 request parser (resp.h), after redis-server 7.0's
 * processMultibulkBuffer, processInlineBuffer and sdssplitargs: the same
 * acceptance, the same errors, written for a buffer that the parser may
 * not keep pointers into.
 */
#include "resp.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void resp_init(struct resp_parser *ps, long long max_bulk)
{
	memset(ps, 0, sizeof(*ps));
	ps->max_bulk = max_bulk;
	ps->left = -1;
	ps->bulk = -1;
}

void resp_free(struct resp_parser *ps)
{
	free(ps->argv);
	ps->argv = NULL;
	ps->cap = 0;
}

int resp_string2ll(const char *s, size_t len, long long *out)
{
	unsigned long long v;
	size_t i = 0;
	bool neg = false;

	/* redis: empty, or 21 characters and more, is not a number */
	if (len == 0 || len >= 21)
		return 0;
	if (len == 1 && s[0] == '0') {
		*out = 0;
		return 1;
	}
	if (s[0] == '-') {
		neg = true;
		if (++i == len)
			return 0;
	}
	if (s[i] < '1' || s[i] > '9')
		return 0;
	v = (unsigned long long)(s[i++] - '0');
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v > (ULLONG_MAX / 10))
			return 0;
		v *= 10;
		if (v > ULLONG_MAX - (unsigned long long)(s[i] - '0'))
			return 0;
		v += (unsigned long long)(s[i] - '0');
	}
	if (neg) {
		if (v > (unsigned long long)LLONG_MAX + 1)
			return 0;
		*out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN :
								-(long long)v;
	} else {
		if (v > LLONG_MAX)
			return 0;
		*out = (long long)v;
	}
	return 1;
}

static enum resp_status fail(struct resp_parser *ps, const char *what)
{
	snprintf(ps->error, sizeof(ps->error), "Protocol error: %s", what);
	return RESP_ERROR;
}

/*
 * The offset of the first `want` byte at or after ps->pos, searched as
 * strchr would (a NUL ends the search: not found), or -1. What was
 * searched in vain is not searched again.
 */
static long long find(struct resp_parser *ps, const char *buf, size_t len,
		      char want)
{
	size_t i = ps->scanned > ps->pos ? ps->scanned : ps->pos;

	if (ps->scanned == SIZE_MAX)
		return -1; /* a NUL before the line's end: never found */
	for (; i < len; i++) {
		if (buf[i] == want)
			return (long long)i;
		if (buf[i] == '\0') {
			ps->scanned = SIZE_MAX;
			return -1;
		}
	}
	ps->scanned = len;
	return -1;
}

/* The next line starts at pos: forget what was scanned of this one. */
static void line_done(struct resp_parser *ps, size_t pos)
{
	ps->pos = pos;
	ps->scanned = 0;
}

static bool push(struct resp_parser *ps, size_t off, size_t len)
{
	struct resp_arg *v;
	int cap;

	if (ps->argc == ps->cap) {
		if (ps->cap >= INT_MAX / 2)
			return false;
		cap = ps->cap ? ps->cap * 2 : 16;
		v = realloc(ps->argv, (size_t)cap * sizeof(*v));
		if (!v)
			return false;
		ps->argv = v;
		ps->cap = cap;
	}
	/* an offset until the command is whole (resp.h) */
	ps->argv[ps->argc].p = (const char *)(uintptr_t)off;
	ps->argv[ps->argc].len = len;
	ps->argc++;
	return true;
}

/* RESP_CMD when the command is whole (argc 0: an empty one). */
static enum resp_status multibulk(struct resp_parser *ps, const char *buf,
				  size_t len)
{
	long long cr, n;

	if (ps->left < 0) {
		cr = find(ps, buf, len, '\r');
		if (cr < 0) {
			if (len - ps->pos > RESP_INLINE_MAX)
				return fail(ps, "too big mbulk count string");
			return RESP_MORE;
		}
		if ((size_t)cr + 2 > len)
			return RESP_MORE; /* the "\n" after it */
		if (!resp_string2ll(buf + ps->pos + 1, (size_t)cr - ps->pos - 1,
				    &n) ||
		    n > INT_MAX)
			return fail(ps, "invalid multibulk length");
		line_done(ps, (size_t)cr + 2);
		ps->left = n > 0 ? n : 0;
	}
	while (ps->left > 0) {
		if (ps->bulk < 0) {
			cr = find(ps, buf, len, '\r');
			if (cr < 0) {
				if (len - ps->pos > RESP_INLINE_MAX)
					return fail(
						ps,
						"too big bulk count string");
				return RESP_MORE;
			}
			if ((size_t)cr + 2 > len)
				return RESP_MORE;
			if (buf[ps->pos] != '$') {
				char c = buf[ps->pos];

				/* redis turns line ends in errors to blanks */
				if (c == '\r' || c == '\n')
					c = ' ';
				snprintf(
					ps->error, sizeof(ps->error),
					"Protocol error: expected '$', got '%c'",
					c);
				return RESP_ERROR;
			}
			if (!resp_string2ll(buf + ps->pos + 1,
					    (size_t)cr - ps->pos - 1, &n) ||
			    n < 0 || n > ps->max_bulk)
				return fail(ps, "invalid bulk length");
			line_done(ps, (size_t)cr + 2);
			ps->bulk = n;
		}
		if (len - ps->pos < (size_t)ps->bulk + 2) {
			ps->need = ps->pos + (size_t)ps->bulk + 2;
			return RESP_MORE;
		}
		if (!push(ps, ps->pos, (size_t)ps->bulk))
			return RESP_NOMEM;
		/* the two bytes after it are not looked at (as in redis) */
		line_done(ps, ps->pos + (size_t)ps->bulk + 2);
		ps->bulk = -1;
		ps->left--;
	}
	return RESP_CMD;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * sdssplitargs over buf[start..end), decoded in place: each argument is
 * written at or before where it was read. False on unbalanced quotes.
 */
static bool split(struct resp_parser *ps, char *buf, size_t start, size_t end,
		  bool *nomem)
{
	size_t r = start, w = start, tok;
	bool inq, insq, done;
	char c;

#define AT(i) ((i) < end ? buf[i] : '\0')
	for (;;) {
		while (r < end && isspace((unsigned char)buf[r]))
			r++;
		if (r >= end)
			return true;
		tok = w;
		inq = insq = done = false;
		while (!done) {
			c = AT(r);
			if (inq) {
				if (c == '\\' && AT(r + 1) == 'x' &&
				    hexval(AT(r + 2)) >= 0 &&
				    hexval(AT(r + 3)) >= 0) {
					buf[w++] =
						(char)(hexval(AT(r + 2)) * 16 +
						       hexval(AT(r + 3)));
					r += 3;
				} else if (c == '\\' && AT(r + 1)) {
					r++;
					switch (buf[r]) {
					case 'n':
						c = '\n';
						break;
					case 'r':
						c = '\r';
						break;
					case 't':
						c = '\t';
						break;
					case 'b':
						c = '\b';
						break;
					case 'a':
						c = '\a';
						break;
					default:
						c = buf[r];
						break;
					}
					buf[w++] = c;
				} else if (c == '"') {
					/* a closing quote ends the argument */
					if (AT(r + 1) &&
					    !isspace((unsigned char)AT(r + 1)))
						return false;
					done = true;
				} else if (!c) {
					return false; /* unterminated */
				} else {
					buf[w++] = c;
				}
			} else if (insq) {
				if (c == '\\' && AT(r + 1) == '\'') {
					r++;
					buf[w++] = '\'';
				} else if (c == '\'') {
					if (AT(r + 1) &&
					    !isspace((unsigned char)AT(r + 1)))
						return false;
					done = true;
				} else if (!c) {
					return false;
				} else {
					buf[w++] = c;
				}
			} else {
				switch (c) {
				case ' ':
				case '\n':
				case '\r':
				case '\t':
				case '\0':
					done = true;
					break;
				case '"':
					inq = true;
					break;
				case '\'':
					insq = true;
					break;
				default:
					buf[w++] = c;
					break;
				}
			}
			if (AT(r))
				r++;
		}
		if (!push(ps, tok, w - tok)) {
			*nomem = true;
			return false;
		}
	}
#undef AT
}

static enum resp_status inlined(struct resp_parser *ps, char *buf, size_t len)
{
	long long nl = find(ps, buf, len, '\n');
	size_t end;
	bool nomem = false;

	if (nl < 0) {
		if (len - ps->pos > RESP_INLINE_MAX)
			return fail(ps, "too big inline request");
		return RESP_MORE;
	}
	end = (size_t)nl;
	if (end != ps->pos && buf[end - 1] == '\r')
		end--;
	if (!split(ps, buf, ps->pos, end, &nomem))
		return nomem ? RESP_NOMEM :
			       fail(ps, "unbalanced quotes in request");
	line_done(ps, (size_t)nl + 1);
	return RESP_CMD;
}

/* Drop `by` bytes from the front of every offset held (resp.h: RESP_MORE
 * hands the skipped empty commands back). */
static void rebase(struct resp_parser *ps, size_t by)
{
	int i;

	ps->pos -= by;
	if (ps->scanned != SIZE_MAX)
		ps->scanned = ps->scanned > by ? ps->scanned - by : 0;
	for (i = 0; i < ps->argc; i++) /* offsets, held in the pointers */
		ps->argv[i].p = (const char *)((uintptr_t)ps->argv[i].p - by);
	if (ps->need)
		ps->need -= by;
}

enum resp_status resp_parse(struct resp_parser *ps, char *buf, size_t len)
{
	enum resp_status st;
	size_t base = 0; /* where this command starts: empties skipped */
	int i;

	ps->used = 0;
	ps->need = 0;
	for (;;) {
		if (!ps->form) {
			if (ps->pos >= len)
				break;
			ps->form = buf[ps->pos] == '*' ? '*' : 'i';
			ps->argc = 0;
		}
		st = ps->form == '*' ? multibulk(ps, buf, len) :
				       inlined(ps, buf, len);
		if (st != RESP_CMD) {
			if (st != RESP_MORE)
				return st;
			break;
		}
		if (ps->argc == 0) { /* empty: skipped, as redis does */
			base = ps->pos;
			ps->form = 0;
			ps->left = -1;
			continue;
		}
		for (i = 0; i < ps->argc; i++)
			ps->argv[i].p = buf + (uintptr_t)ps->argv[i].p;
		ps->used = ps->pos;
		ps->form = 0;
		ps->pos = 0;
		ps->scanned = 0;
		ps->left = -1;
		ps->bulk = -1;
		return RESP_CMD;
	}
	/* more needed: hand back the empty commands skipped */
	ps->used = base;
	rebase(ps, base);
	return RESP_MORE;
}

/* The bytes as a C string for strtod: on the stack when short. */
static char *cstr(const char *s, size_t len, char *buf, size_t room)
{
	char *p = len < room ? buf : malloc(len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int resp_string2d(const char *s, size_t len, double *out)
{
	char buf[64], *p, *end;
	double v;
	int ok;

	if (len == 0 || !(p = cstr(s, len, buf, sizeof(buf))))
		return 0;
	errno = 0;
	v = strtod(p, &end);
	/* redis's string2d: all of it, no leading blank, not NaN, and an
	 * overflow or an underflow to zero refused */
	ok = !isspace((unsigned char)p[0]) && (size_t)(end - p) == len &&
	     !(errno == ERANGE &&
	       (v == HUGE_VAL || v == -HUGE_VAL || fpclassify(v) == FP_ZERO)) &&
	     !isnan(v);
	if (p != buf)
		free(p);
	if (ok)
		*out = v;
	return ok;
}

int resp_string2ld(const char *s, size_t len, long double *out)
{
	char buf[RESP_LDOUBLE_MAX], *end;
	long double v;

	/* redis's string2ld: at most 5k characters, the rest as string2d,
	 * and EINVAL refused too */
	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtold(buf, &end);
	if (isspace((unsigned char)buf[0]) || (size_t)(end - buf) != len ||
	    (errno == ERANGE &&
	     (v == HUGE_VALL || v == -HUGE_VALL || fpclassify(v) == FP_ZERO)) ||
	    errno == EINVAL || isnan(v))
		return 0;
	*out = v;
	return 1;
}
