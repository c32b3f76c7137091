/* SPDX-License-Identifier: MIT */
/* glob.c - redis's stringmatchlen, on bytes that are not NUL-ended. */
#include "glob.h"

#include <ctype.h>

struct pat {
	const char *p;
	size_t n; /* bytes left from p */
};

/* The k-th byte from the pattern's position, '\0' past its end. */
static int at(const struct pat *pt, size_t k)
{
	return k < pt->n ? pt->p[k] : '\0';
}

static void next(struct pat *pt, size_t k)
{
	pt->p += k;
	pt->n -= k;
}

static int fold(int c, bool nocase)
{
	return nocase ? tolower(c) : c;
}

/* A class "[...]" (the '[' passed), against the byte c: true if it
 * matches, with pt left on its closing ']' (or its last byte). */
static bool klass(struct pat *pt, int c, bool nocase)
{
	bool negate = at(pt, 0) == '^', match = false;
	int lo, hi, t;

	if (negate)
		next(pt, 1);
	for (;; next(pt, 1)) {
		if (at(pt, 0) == '\\' && pt->n >= 2) {
			next(pt, 1);
			match |= at(pt, 0) == c;
		} else if (at(pt, 0) == ']') {
			break;
		} else if (pt->n == 0) { /* unclosed: back onto its last */
			pt->p--;
			pt->n++;
			break;
		} else if (pt->n >= 3 && at(pt, 1) == '-') {
			lo = fold(at(pt, 0), nocase);
			hi = fold(at(pt, 2), nocase);
			if (lo > hi) {
				t = lo;
				lo = hi;
				hi = t;
			}
			next(pt, 2);
			t = fold(c, nocase);
			match |= t >= lo && t <= hi;
		} else {
			match |= fold(at(pt, 0), nocase) == fold(c, nocase);
		}
	}
	return negate ? !match : match;
}

static bool glob(struct pat pt, const char *s, size_t sn, bool nocase,
		 bool *give_up)
{
	while (pt.n && sn) {
		switch (at(&pt, 0)) {
		case '*':
			while (pt.n && at(&pt, 1) == '*')
				next(&pt, 1);
			if (pt.n == 1)
				return true;
			for (; sn; s++, sn--) {
				struct pat rest = { pt.p + 1, pt.n - 1 };

				if (glob(rest, s, sn, nocase, give_up))
					return true;
				if (*give_up)
					return false;
			}
			*give_up = true; /* the rest matches nowhere */
			return false;
		case '?':
			break;
		case '[':
			next(&pt, 1);
			if (!klass(&pt, s[0], nocase))
				return false;
			break;
		case '\\':
			if (pt.n >= 2)
				next(&pt, 1);
			/* fall through */
		default:
			if (fold(at(&pt, 0), nocase) != fold(s[0], nocase))
				return false;
			break;
		}
		s++;
		sn--;
		next(&pt, 1);
		if (sn == 0) {
			while (at(&pt, 0) == '*')
				next(&pt, 1);
			break;
		}
	}
	return pt.n == 0 && sn == 0;
}

bool kv_glob(const char *p, size_t pn, const char *s, size_t sn, bool nocase)
{
	struct pat pt = { p, pn };
	bool give_up = false;

	return glob(pt, s, sn, nocase, &give_up);
}
