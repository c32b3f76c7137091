/* SPDX-License-Identifier: MIT */
/*
 * json.c - the strict pull reader of json.h: one byte at a time, no
 * allocation, the first error kept with its offset.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define REPLACEMENT 0xfffd /* U+FFFD, for what a C string cannot hold */

void json_init(struct json *j, const void *text, size_t len)
{
	memset(j, 0, sizeof(*j));
	j->start = text;
	j->p = j->start;
	j->end = j->start + len;
}

int json_fail(struct json *j, const char *expected)
{
	if (!j->failed) {
		j->failed = true;
		j->pos = (size_t)(j->p - j->start);
		j->expected = expected;
	}
	return -1;
}

static void blanks(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' ||
				 *j->p == '\r' || *j->p == '\t'))
		j->p++;
}

/* The next non-blank byte, or -1 at the end. */
static int next(struct json *j)
{
	blanks(j);
	return j->p < j->end ? *j->p : -1;
}

/* Reads the byte c, after blanks. */
static int expect(struct json *j, int c, const char *what)
{
	if (j->failed)
		return -1;
	if (next(j) != c)
		return json_fail(j, what);
	j->p++;
	return 0;
}

enum json_type json_peek(struct json *j)
{
	int c = j->failed ? -1 : next(j);

	switch (c) {
	case '{':
		return JSON_OBJECT;
	case '[':
		return JSON_ARRAY;
	case '"':
		return JSON_STRING;
	case 't':
	case 'f':
	case 'n':
		return JSON_LITERAL;
	default:
		return c == '-' || (c >= '0' && c <= '9') ? JSON_NUMBER :
							    JSON_NONE;
	}
}

/* ---- strings ----------------------------------------------------------- */

/* Appends the code point cp to buf as UTF-8, as far as it fits. */
static void put_utf8(char *buf, size_t cap, size_t *len, size_t *used,
		     uint32_t cp)
{
	unsigned char u[4];
	size_t n, i;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	/* whole characters only: a cut string stays valid UTF-8 */
	if (*used == *len && *used + n < cap) {
		for (i = 0; i < n; i++)
			buf[*used + i] = (char)u[i];
		*used += n;
	}
	*len += n;
}

/* Four hex digits after \u; -1 on a bad one. */
static int hex4(struct json *j, uint32_t *v)
{
	int i, c;

	*v = 0;
	for (i = 0; i < 4; i++) {
		c = j->p < j->end ? *j->p : -1;
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return json_fail(j, "four hex digits after \\u");
		*v = *v << 4 | (uint32_t)c;
		j->p++;
	}
	return 0;
}

/* After "\u": one code point, a surrogate pair joined. */
static int unicode_escape(struct json *j, uint32_t *cp)
{
	uint32_t lo;

	if (hex4(j, cp))
		return -1;
	if (*cp >= 0xd800 && *cp < 0xdc00 && j->end - j->p >= 6 &&
	    j->p[0] == '\\' && j->p[1] == 'u') {
		const unsigned char *save = j->p;

		j->p += 2;
		if (hex4(j, &lo))
			return -1;
		if (lo >= 0xdc00 && lo < 0xe000) {
			*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
			return 0;
		}
		j->p = save; /* a lone high surrogate; lo is read next */
	}
	if ((*cp >= 0xd800 && *cp < 0xe000) || *cp == 0)
		*cp = REPLACEMENT;
	return 0;
}

/* After a backslash: one escape's code point. */
static int escape(struct json *j, uint32_t *cp)
{
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	const char *e;

	if (j->p >= j->end)
		return json_fail(j, "an escape after \\");
	if (*j->p == 'u') {
		j->p++;
		return unicode_escape(j, cp);
	}
	e = memchr(from, *j->p, sizeof(from) - 1);
	if (e == NULL)
		return json_fail(j, "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
				    "\\u after \\");
	*cp = (unsigned char)to[e - from];
	j->p++;
	return 0;
}

/* A raw UTF-8 sequence that starts with the byte c >= 0x80. */
static int raw_utf8(struct json *j, uint32_t *cp)
{
	const unsigned char *s = j->p;
	uint32_t c = *s, min;
	int n, i;

	if (c >= 0xc2 && c < 0xe0) {
		n = 1, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c < 0xf0) {
		n = 2, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c < 0xf5) {
		n = 3, min = 0x10000, c &= 0x07;
	} else {
		return json_fail(j, "UTF-8 text");
	}
	if (j->end - s <= n)
		return json_fail(j, "UTF-8 text");
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return json_fail(j, "UTF-8 text");
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return json_fail(j, "UTF-8 text");
	j->p += n + 1;
	*cp = c;
	return 0;
}

int json_string(struct json *j, char *buf, size_t cap, size_t *len)
{
	size_t used = 0;
	uint32_t cp;

	*len = 0;
	buf[0] = '\0';
	if (expect(j, '"', "a string"))
		return -1;
	for (;;) {
		if (j->p >= j->end)
			return json_fail(j, "the end of the string ('\"')");
		cp = *j->p;
		if (cp == '"') {
			j->p++;
			break;
		}
		if (cp < 0x20)
			return json_fail(j, "no control character in a string "
					    "(escape it)");
		if (cp == '\\') {
			j->p++;
			if (escape(j, &cp))
				return -1;
		} else if (cp >= 0x80) {
			if (raw_utf8(j, &cp))
				return -1;
		} else {
			j->p++;
		}
		put_utf8(buf, cap, len, &used, cp);
	}
	buf[used] = '\0';
	return 0;
}

/* ---- numbers ----------------------------------------------------------- */

/* Digits; how many were read. */
static size_t digits(struct json *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return (size_t)(j->p - s);
}

/* Checks the number's grammar; whether it has a fraction or exponent. */
static int number_text(struct json *j, bool *plain)
{
	*plain = true;
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (digits(j) == 0)
		return json_fail(j, "a digit");
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (digits(j) == 0)
			return json_fail(j, "a digit after '.'");
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		*plain = false;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (digits(j) == 0)
			return json_fail(j, "a digit in the exponent");
	}
	return 0;
}

static const double pow10_exact[] = {
	1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * The value of a checked number of n bytes at s. Up to 15 digits and no
 * exponent (what the runtime writes): the digits as an integer, exact in
 * a double, divided by an exact power of ten, which IEEE division rounds
 * correctly. Else strtod on a copy (the text is not NUL-terminated).
 */
static double number_value(const unsigned char *s, size_t n, bool plain)
{
	char copy[128];
	uint64_t m = 0;
	size_t i, nd = 0, frac = 0;
	bool neg = false, dot = false;

	for (i = 0; plain && i < n; i++) {
		if (s[i] == '-') {
			neg = true;
		} else if (s[i] == '.') {
			dot = true;
		} else {
			m = m * 10 + (uint64_t)(s[i] - '0');
			nd++;
			frac += dot;
		}
	}
	if (plain && nd <= 15)
		return (neg ? -(double)m : (double)m) / pow10_exact[frac];
	if (n >= sizeof(copy))
		n = sizeof(copy) - 1; /* 127 significant bytes decide it */
	memcpy(copy, s, n);
	copy[n] = '\0';
	return strtod(copy, NULL);
}

int json_number(struct json *j, double *v, char *raw, size_t cap)
{
	const unsigned char *s;
	bool plain;
	size_t n;

	if (json_peek(j) != JSON_NUMBER)
		return json_fail(j, "a number");
	s = j->p;
	if (number_text(j, &plain))
		return -1;
	n = (size_t)(j->p - s);
	*v = number_value(s, n, plain);
	if (raw != NULL) {
		if (n >= cap)
			n = cap - 1;
		memcpy(raw, s, n);
		raw[n] = '\0';
	}
	return 0;
}

/* ---- objects, arrays, any value ---------------------------------------- */

static int open_bracket(struct json *j, int c, const char *what)
{
	if (expect(j, c, what))
		return -1;
	if (++j->depth > JSON_MAX_DEPTH) {
		j->p--;
		return json_fail(j, "at most 64 levels of nesting");
	}
	return 0;
}

int json_obj_begin(struct json *j)
{
	return open_bracket(j, '{', "an object ('{')");
}

int json_arr_begin(struct json *j)
{
	return open_bracket(j, '[', "an array ('[')");
}

int json_obj_next(struct json *j, size_t *n, char *key, size_t cap, size_t *len)
{
	int c = j->failed ? -1 : next(j);

	if (c == '}') {
		j->p++;
		j->depth--;
		return 0;
	}
	if (*n > 0 && expect(j, ',', "',' or '}'"))
		return -1;
	if (json_peek(j) != JSON_STRING)
		return json_fail(j, *n ? "a key (a string)" :
					 "a key (a string) or '}'");
	if (json_string(j, key, cap, len) ||
	    expect(j, ':', "':' after the key"))
		return -1;
	(*n)++;
	return 1;
}

int json_arr_next(struct json *j, size_t *n)
{
	int c = j->failed ? -1 : next(j);

	if (c == ']') {
		j->p++;
		j->depth--;
		return 0;
	}
	if (*n > 0 && expect(j, ',', "',' or ']'"))
		return -1;
	if (*n == 0 && json_peek(j) == JSON_NONE)
		return json_fail(j, "a value or ']'");
	(*n)++;
	return 1;
}

static int literal(struct json *j)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(words[i]);
		if ((size_t)(j->end - j->p) >= n &&
		    !memcmp(j->p, words[i], n)) {
			j->p += n;
			return 0;
		}
	}
	return json_fail(j, "true, false or null");
}

int json_skip(struct json *j)
{
	char buf[4];
	size_t n = 0, len;
	double v;
	int r;

	switch (json_peek(j)) {
	case JSON_OBJECT:
		if (json_obj_begin(j))
			return -1;
		while ((r = json_obj_next(j, &n, buf, sizeof(buf), &len)) > 0)
			if (json_skip(j))
				return -1;
		return r;
	case JSON_ARRAY:
		if (json_arr_begin(j))
			return -1;
		while ((r = json_arr_next(j, &n)) > 0)
			if (json_skip(j))
				return -1;
		return r;
	case JSON_STRING:
		return json_string(j, buf, sizeof(buf), &len);
	case JSON_NUMBER:
		return json_number(j, &v, NULL, 0);
	case JSON_LITERAL:
		return literal(j);
	default:
		return json_fail(j, "a value");
	}
}

int json_end(struct json *j)
{
	if (j->failed)
		return -1;
	if (next(j) != -1)
		return json_fail(j, "the end of the text");
	return 0;
}
