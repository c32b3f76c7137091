/* SPDX-License-Identifier: MIT */
/*
 * test_resp.c - the kv example's RESP2 request parser (examples/kv/resp.h).
 *
 * What redis-server 7.0 accepts and the errors it gives were read off a
 * real redis-server (raw bytes over a socket; the expected strings below
 * are its replies, less "-ERR " and the line end). Every frame is also
 * fed split at every byte and one byte at a time, each call with the
 * unconsumed bytes moved to a new buffer, and must give the same
 * commands as when it comes whole.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/kv/resp.h"

#define BULK_LIMIT 1000 /* a small --proto-max-bulk-len for the tests */

/* A transcript: each command as [arg|arg|...], an error as !msg, and ~
 * when the input ended in the middle of a command. Bytes other than
 * printable ASCII as \xHH. */
struct script {
	char text[8192];
	size_t n;
};

static void put(struct script *s, const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		ck_assert_uint_lt(s->n + 5, sizeof(s->text));
		if (c >= 0x20 && c < 0x7f && c != '\\')
			s->text[s->n++] = (char)c;
		else
			s->n += (size_t)snprintf(s->text + s->n, 5, "\\x%02x",
						 c);
	}
	s->text[s->n] = '\0';
}

/*
 * Feed in[0..n) in pieces: cut[i] is where the i-th piece ends (ncut of
 * them, the last n). Unconsumed bytes always go to a fresh buffer, so any
 * pointer the parser kept into an old one would be caught by ASan and by
 * the arguments' contents.
 */
static void feed(const char *in, const size_t *cut, int ncut, struct script *s)
{
	struct resp_parser ps;
	char *buf = NULL, *nbuf;
	size_t have = 0, avail = 0;
	enum resp_status st = RESP_MORE;
	int k, i;

	memset(s, 0, sizeof(*s));
	resp_init(&ps, BULK_LIMIT);
	for (k = 0; k < ncut && st != RESP_ERROR; k++) {
		/* the next piece arrives, into a moved buffer */
		size_t add = cut[k] - avail;

		nbuf = malloc(have + add + 1);
		ck_assert_ptr_nonnull(nbuf);
		if (have)
			memcpy(nbuf, buf, have);
		memcpy(nbuf + have, in + avail, add);
		free(buf);
		buf = nbuf;
		have += add;
		avail += add;
		for (;;) {
			st = resp_parse(&ps, buf, have);
			ck_assert_uint_le(ps.used, have);
			if (st == RESP_ERROR) {
				put(s, "!", 1);
				put(s, ps.error, strlen(ps.error));
				break;
			}
			ck_assert_int_ne(st, RESP_NOMEM);
			if (st == RESP_CMD) {
				put(s, "[", 1);
				for (i = 0; i < ps.argc; i++) {
					if (i)
						put(s, "|", 1);
					put(s, ps.argv[i].p, ps.argv[i].len);
				}
				put(s, "]", 1);
			}
			memmove(buf, buf + ps.used, have - ps.used);
			have -= ps.used;
			if (st == RESP_MORE)
				break;
		}
	}
	if (st == RESP_MORE && have)
		put(s, "~", 1);
	free(buf);
	resp_free(&ps);
}

static void whole(const char *in, size_t n, struct script *s)
{
	size_t cut = n;

	feed(in, &cut, 1, s);
}

/* Whole, at every split point, and byte by byte: one transcript. */
static void same_every_way(const char *in, size_t n, const char *want)
{
	struct script a, b;
	size_t cut[2], *bytes;
	size_t k;

	whole(in, n, &a);
	ck_assert_str_eq(a.text, want);
	for (k = 1; k < n; k++) {
		cut[0] = k;
		cut[1] = n;
		feed(in, cut, 2, &b);
		ck_assert_msg(!strcmp(a.text, b.text),
			      "split at %zu: %s, not %s", k, b.text, a.text);
	}
	bytes = malloc(n * sizeof(*bytes));
	ck_assert_ptr_nonnull(bytes);
	for (k = 0; k < n; k++)
		bytes[k] = k + 1;
	feed(in, bytes, (int)n, &b);
	ck_assert_str_eq(b.text, a.text);
	free(bytes);
}

#define SAME(lit, want) same_every_way(lit, sizeof(lit) - 1, want)

START_TEST(multibulk_frames)
{
	SAME("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n",
	     "[SET|key|value]");
	/* binary-safe: NUL, CR and LF inside an argument */
	SAME("*2\r\n$4\r\nECHO\r\n$5\r\na\0\r\nb\r\n",
	     "[ECHO|a\\x00\\x0d\\x0ab]");
	/* an empty argument; empty commands (n <= 0) skipped */
	SAME("*0\r\n*-1\r\n*2\r\n$3\r\nGET\r\n$0\r\n\r\n", "[GET|]");
	/* the two bytes after an argument are not looked at */
	SAME("*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n", "[PING][PING]");
	SAME("*1\rX$4\r\nPING\r\n", "[PING]");
	/* pipelined, and cut short */
	SAME("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*2\r\n$3",
	     "[PING][GET|k]~");
}
END_TEST

START_TEST(inline_frames)
{
	SAME("PING\r\n", "[PING]");
	SAME("PING\n", "[PING]");
	SAME("  PING\t \n", "[PING]");
	SAME("\r\n\n \t\r\nPING\r\n", "[PING]");
	SAME("ECHO \"\"\n", "[ECHO|]");
	SAME("SET k \"v \\x41\\x4a\\n\\r\\t\\b\\a\\\\\\\"\\q\" 'it\\'s'\r\n",
	     "[SET|k|v AJ\\x0a\\x0d\\x09\\x08\\x07\\x5c\"q|it's]");
	/* a quote opened inside a word joins it */
	SAME("ECHO a\"b c\"\n", "[ECHO|ab c]");
	/* \x with no two hex digits is an escaped x */
	SAME("ECHO \"\\xg1\"\n", "[ECHO|xg1]");
	/* inline and multibulk in one stream */
	SAME("PING\r\n*1\r\n$4\r\nPING\r\nECHO hi\n", "[PING][PING][ECHO|hi]");
}
END_TEST

/* The errors redis-server 7.0.15 gave for these bytes. */
static const struct {
	const char *in;
	size_t n;
	const char *want;
} bad[] = {
#define BAD(lit, want)                     \
	{                                  \
		lit, sizeof(lit) - 1, want \
	}
	BAD("*x\r\n", "!Protocol error: invalid multibulk length"),
	BAD("*01\r\n", "!Protocol error: invalid multibulk length"),
	BAD("*2147483648\r\n", "!Protocol error: invalid multibulk length"),
	BAD("*+1\r\n", "!Protocol error: invalid multibulk length"),
	BAD("*\r\n", "!Protocol error: invalid multibulk length"),
	BAD("*1\r\n%4\r\nPING\r\n", "!Protocol error: expected '$', got '%'"),
	BAD("*1\r\n\r\n", "!Protocol error: expected '$', got ' '"),
	BAD("*1\r\n\nPING\r\n", "!Protocol error: expected '$', got ' '"),
	BAD("*1\r\n$-1\r\n", "!Protocol error: invalid bulk length"),
	BAD("*1\r\n$1001\r\n", "!Protocol error: invalid bulk length"),
	BAD("*1\r\n$ 4\r\n", "!Protocol error: invalid bulk length"),
	BAD("ECHO \"a\n", "!Protocol error: unbalanced quotes in request"),
	BAD("ECHO 'a\r\n", "!Protocol error: unbalanced quotes in request"),
	BAD("ECHO \"a\"x\n", "!Protocol error: unbalanced quotes in request"),
	BAD("ECHO a\"b c\"d\n",
	    "!Protocol error: unbalanced quotes in request"),
	BAD("ECHO 'a\\'\n", "!Protocol error: unbalanced quotes in request"),
	/* what came before the bad frame was parsed and answered */
	BAD("PING\r\n*1\r\n$x\r\n",
	    "[PING]!Protocol error: invalid bulk length"),
#undef BAD
};

START_TEST(bad_frames)
{
	same_every_way(bad[_i].in, bad[_i].n, bad[_i].want);
}
END_TEST

/* A parser fed in[0..n) whole: its status. */
static enum resp_status once(struct resp_parser *ps, char *in, size_t n)
{
	resp_init(ps, BULK_LIMIT);
	return resp_parse(ps, in, n);
}

START_TEST(bulk_limit_before_the_bytes)
{
	struct resp_parser ps;
	char in[] = "*2\r\n$3\r\nSET\r\n$1000\r\n";

	/* at the limit: more is asked for, all of it at once */
	ck_assert_int_eq(once(&ps, in, strlen(in)), RESP_MORE);
	ck_assert_uint_eq(ps.need, strlen(in) + 1000 + 2);
	ck_assert_uint_eq(ps.used, 0);
	resp_free(&ps);
	/* over it: refused on the header alone */
	memcpy(strstr(in, "1000"), "1001", 4);
	ck_assert_int_eq(once(&ps, in, strlen(in)), RESP_ERROR);
	ck_assert_str_eq(ps.error, "Protocol error: invalid bulk length");
	resp_free(&ps);
}
END_TEST

/* 64 KiB of header or inline line without its end is still waited for;
 * one byte more is an error (redis: PROTO_INLINE_MAX_SIZE). */
static void line_limit(const char *prefix, char fill, const char *error)
{
	struct resp_parser ps;
	size_t p = strlen(prefix), n = RESP_INLINE_MAX + 1;
	char *in = malloc(p + n + 2);

	ck_assert_ptr_nonnull(in);
	memcpy(in, prefix, p);
	memset(in + p, fill, n);
	/* the count from the line's first byte: its prefix may be longer */
	ck_assert_int_eq(once(&ps, in, RESP_INLINE_MAX), RESP_MORE);
	resp_free(&ps);
	ck_assert_int_eq(once(&ps, in, p + n), RESP_ERROR);
	ck_assert_str_eq(ps.error, error);
	resp_free(&ps);
	free(in);
}

START_TEST(line_limits)
{
	line_limit("", 'x', "Protocol error: too big inline request");
	line_limit("*", '1', "Protocol error: too big mbulk count string");
	line_limit("*1\r\n$", '1', "Protocol error: too big bulk count string");
}
END_TEST

/* Like redis, a NUL in a header or inline line hides its end. */
START_TEST(nul_hides_the_line_end)
{
	struct resp_parser ps;
	char a[] = "PING\0\n", b[] = "*1\r\n\0\r\n";

	ck_assert_int_eq(once(&ps, a, sizeof(a) - 1), RESP_MORE);
	resp_free(&ps);
	ck_assert_int_eq(once(&ps, b, sizeof(b) - 1), RESP_MORE);
	resp_free(&ps);
}
END_TEST

/* Empty commands before an incomplete one are handed back in used, and
 * the parse goes on from the bytes after them. */
START_TEST(skipped_empties_are_consumed)
{
	struct resp_parser ps;
	char in[] = "*0\r\n\r\n*1\r\n$4\r\nPING\r\n";
	size_t head = 6, part = head + 9; /* up to "$4\r\nP" */

	ck_assert_int_eq(once(&ps, in, part), RESP_MORE);
	ck_assert_uint_eq(ps.used, head);
	ck_assert_int_eq(resp_parse(&ps, in + head, strlen(in) - head),
			 RESP_CMD);
	ck_assert_int_eq(ps.argc, 1);
	ck_assert_uint_eq(ps.argv[0].len, 4);
	ck_assert_mem_eq(ps.argv[0].p, "PING", 4);
	ck_assert_ptr_eq(ps.argv[0].p, in + head + 8);
	ck_assert_uint_eq(ps.used, strlen(in) - head);
	resp_free(&ps);
}
END_TEST

/* A command of many arguments grows the vector as they arrive, not by
 * its announced count. */
START_TEST(many_arguments)
{
	struct resp_parser ps;
	size_t cap = 3000 * 8 + 32, n;
	char *in = malloc(cap);
	int i;

	ck_assert_ptr_nonnull(in);
	n = (size_t)sprintf(in, "*3000\r\n");
	for (i = 0; i < 3000; i++)
		n += (size_t)sprintf(in + n, "$1\r\n%c\r\n", 'a' + i % 26);
	ck_assert_int_eq(once(&ps, in, n), RESP_CMD);
	ck_assert_int_eq(ps.argc, 3000);
	ck_assert_uint_eq(ps.used, n);
	for (i = 0; i < 3000; i++)
		ck_assert_int_eq(ps.argv[i].p[0], 'a' + i % 26);
	resp_free(&ps);
	/* announced but not sent: no vector for them */
	strcpy(in, "*2147483647\r\n$1\r\na\r\n");
	ck_assert_int_eq(once(&ps, in, strlen(in)), RESP_MORE);
	ck_assert_int_le(ps.cap, 16);
	resp_free(&ps);
	free(in);
}
END_TEST

START_TEST(string2ll_as_redis)
{
	static const struct {
		const char *s;
		int ok;
		long long v;
	} t[] = {
		{ "0", 1, 0 },
		{ "7", 1, 7 },
		{ "-7", 1, -7 },
		{ "9223372036854775807", 1, 9223372036854775807LL },
		{ "-9223372036854775808", 1, -9223372036854775807LL - 1 },
		{ "9223372036854775808", 0, 0 },
		{ "-9223372036854775809", 0, 0 },
		{ "18446744073709551616", 0, 0 },
		{ "", 0, 0 },
		{ "-", 0, 0 },
		{ "-0", 0, 0 },
		{ "007", 0, 0 },
		{ "+1", 0, 0 },
		{ " 1", 0, 0 },
		{ "1 ", 0, 0 },
		{ "1x", 0, 0 },
		{ "000000000000000000001", 0, 0 },
	};
	long long v;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 12345;
		ck_assert_msg(resp_string2ll(t[i].s, strlen(t[i].s), &v) ==
				      t[i].ok,
			      "%s", t[i].s);
		if (t[i].ok)
			ck_assert_int_eq(v, t[i].v);
	}
}
END_TEST

static Suite *resp_suite(void)
{
	Suite *s = suite_create("resp");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, multibulk_frames);
	tcase_add_test(tc, inline_frames);
	tcase_add_loop_test(tc, bad_frames, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, bulk_limit_before_the_bytes);
	tcase_add_test(tc, line_limits);
	tcase_add_test(tc, nul_hides_the_line_end);
	tcase_add_test(tc, skipped_empties_are_consumed);
	tcase_add_test(tc, many_arguments);
	tcase_add_test(tc, string2ll_as_redis);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(resp_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
