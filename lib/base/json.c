/* SPDX-License-Identifier: MIT */
/* json.c - the JSON string writer (json.h). */
#include "json.h"

/* Not NUL, not a control character, not '"' or '\'. */
static int plain(unsigned char c)
{
	return c >= 0x20 && c != '"' && c != '\\';
}

void act__json_str(const char *s, act__json_put_fn *put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6];
	size_t n;

	put(ctx, "\"", 1);
	for (;;) {
		for (n = 0; plain((unsigned char)s[n]); n++)
			;
		if (n)
			put(ctx, s, n);
		s += n;
		if (!*s)
			break;
		esc[0] = '\\';
		if (*s == '"' || *s == '\\') {
			esc[1] = *s;
			put(ctx, esc, 2);
		} else {
			esc[1] = 'u';
			esc[2] = esc[3] = '0';
			esc[4] = hex[(unsigned char)*s >> 4];
			esc[5] = hex[(unsigned char)*s & 0xf];
			put(ctx, esc, 6);
		}
		s++;
	}
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

void act__json_fstr(FILE *f, const char *s)
{
	if (s)
		act__json_str(s, put_file, f);
	else
		fputs("null", f);
}
