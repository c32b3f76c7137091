/* SPDX-License-Identifier: MIT */
/*
 * test_dist_term.c - act__term_check (lib/dist/term.c), the walk of a
 * peer's term before anything decodes it: every type the external
 * format has passes whole (encoded by libei, as a peer's would be), with
 * its exact length; every prefix of one is refused as cut short; the
 * bounds (depth, counts against the bytes left, atom length) and the
 * refused forms (atom cache references, compression, LOCAL_EXT, old
 * funs, unknown tags) say why; random bytes never read past their end.
 */
#include <ei.h>
#include <stdint.h>

#include "testutil.h"
#include "dist/term.h"

/* b's term (after ei's version byte) checked: its length, or -1 */
static long check_x(const ei_x_buff *b, struct act__term_err *err)
{
	return act__term_check((const uint8_t *)b->buff + 1,
			       (size_t)b->index - 1, err);
}

/* A term of every type, in a list: [1, -1, 300, 2^40, -(2^70), 1.5,
 * latin1 and UTF-8 atoms, <<>>, <<1,2,3>>, a bitstring, "str", [],
 * an improper list, {}, a tuple of 300, #{}, #{a => 1}, a pid, a
 * port, a ref, a fun, an export]. */
static void every_type(ei_x_buff *b)
{
	static const char utf8_atom[] = "\xc3\xa9t\xc3\xa9";
	erlang_pid pid = { .num = 5, .serial = 6, .creation = 7 };
	erlang_port port = { .id = 9, .creation = 7 };
	erlang_ref ref = { .len = 3, .n = { 1, 2, 3 }, .creation = 7 };
	erlang_fun fun;
	int i;

	strcpy(pid.node, "a@host");
	strcpy(port.node, "a@host");
	strcpy(ref.node, "a@host");
	ck_assert_int_eq(ei_x_new_with_version(b), 0);
	ei_x_encode_list_header(b, 23);
	ei_x_encode_long(b, 1);
	ei_x_encode_long(b, -1);
	ei_x_encode_long(b, 300);
	ei_x_encode_longlong(b, 1ll << 40);
	{
		/* a big integer: -(2^70) */
		static const unsigned char mag[9] = {
			0, 0, 0, 0, 0, 0, 0, 0, 64
		};
		char big[16];

		big[0] = ACT__ET_SMALL_BIG;
		big[1] = 9;
		big[2] = 1;
		memcpy(big + 3, mag, 9);
		ei_x_append_buf(b, big, 12);
	}
	ei_x_encode_double(b, 1.5);
	ei_x_encode_atom_len_as(b, "latin", 5, ERLANG_LATIN1, ERLANG_LATIN1);
	ei_x_encode_atom_len_as(b, utf8_atom, 6, ERLANG_UTF8, ERLANG_UTF8);
	ei_x_encode_binary(b, "", 0);
	ei_x_encode_binary(b, "\1\2\3", 3);
	ei_x_encode_bitstring(b, "\xff\x80", 0, 9);
	ei_x_encode_string(b, "str");
	ei_x_encode_empty_list(b);
	ei_x_encode_list_header(b, 1); /* [x | y] */
	ei_x_encode_atom(b, "x");
	ei_x_encode_atom(b, "y");
	ei_x_encode_tuple_header(b, 0);
	ei_x_encode_tuple_header(b, 300);
	for (i = 0; i < 300; i++)
		ei_x_encode_long(b, i);
	ei_x_encode_map_header(b, 0);
	ei_x_encode_map_header(b, 1);
	ei_x_encode_atom(b, "a");
	ei_x_encode_long(b, 1);
	ei_x_encode_pid(b, &pid);
	ei_x_encode_port(b, &port);
	ei_x_encode_ref(b, &ref);
	memset(&fun, 0, sizeof(fun));
	fun.type = EI_FUN_CLOSURE;
	strcpy(fun.module, "m");
	fun.arity = 1;
	fun.u.closure.n_free_vars = 0;
	fun.u.closure.free_var_len = 0;
	fun.u.closure.index = 0;
	fun.u.closure.old_index = 0;
	fun.u.closure.uniq = 0;
	fun.u.closure.pid = pid;
	ei_x_encode_fun(b, &fun);
	memset(&fun, 0, sizeof(fun));
	fun.type = EI_FUN_EXPORT;
	strcpy(fun.module, "lists");
	fun.u.exprt.func = "map";
	fun.arity = 2;
	ei_x_encode_fun(b, &fun);
	ei_x_encode_empty_list(b);
}

START_TEST(every_type_passes)
{
	struct act__term_err err = { 0 };
	ei_x_buff b;
	long n;

	every_type(&b);
	n = check_x(&b, &err);
	ck_assert_msg(n == b.index - 1, "%ld of %d bytes: %s at %zu", n,
		      b.index - 1, err.why ? err.why : "", err.at);
	/* with garbage after it, the term's own length still */
	ei_x_append_buf(&b, "\x61\x01", 2);
	ck_assert_int_eq(check_x(&b, &err), b.index - 3);
	ei_x_free(&b);
}
END_TEST

/* every prefix of the term is refused, as cut short */
START_TEST(prefixes_refused)
{
	struct act__term_err err;
	ei_x_buff b;
	int k;

	every_type(&b);
	for (k = 0; k < b.index - 1; k++) {
		err.why = NULL;
		if (act__term_check((const uint8_t *)b.buff + 1, (size_t)k,
				    &err) != -1)
			ck_abort_msg("a prefix of %d bytes passed", k);
		ck_assert_ptr_nonnull(err.why);
		ck_assert_uint_le(err.at, (size_t)k);
	}
	ei_x_free(&b);
}
END_TEST

static long check_bytes(const void *p, size_t n, struct act__term_err *err)
{
	err->why = NULL;
	return act__term_check(p, n, err);
}

/* [[[...]]] d deep, each list of one element and a nil tail */
static uint8_t *nested(uint32_t d, size_t *n)
{
	uint8_t *p = malloc((size_t)d * 6 + 1), *q = p;
	uint32_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < d; i++) {
		memcpy(q, "\x6c\0\0\0\1", 5); /* LIST_EXT of 1 */
		q += 5;
	}
	*q++ = ACT__ET_NIL; /* the innermost element */
	for (i = 0; i < d; i++)
		*q++ = ACT__ET_NIL; /* each list's tail */
	*n = (size_t)(q - p);
	return p;
}

START_TEST(depth)
{
	struct act__term_err err;
	uint8_t *p;
	size_t n;

	p = nested(ACT__TERM_DEPTH_MAX, &n);
	ck_assert_int_eq(check_bytes(p, n, &err), (long)n);
	free(p);
	p = nested(ACT__TERM_DEPTH_MAX + 1, &n);
	ck_assert_int_eq(check_bytes(p, n, &err), -1);
	ck_assert_str_eq(err.why, "a term nested too deep");
	free(p);
	p = nested(100000, &n);
	ck_assert_int_eq(check_bytes(p, n, &err), -1);
	ck_assert_str_eq(err.why, "a term nested too deep");
	ck_assert_uint_eq(err.at, (size_t)ACT__TERM_DEPTH_MAX * 5);
	free(p);
}
END_TEST

START_TEST(refusals)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *why;
	} cases[] = {
		{ "\x6c\xff\xff\xff\xff\x6a", 6,
		  "more elements than bytes left" },
		{ "\x74\x7f\xff\xff\xff\x6a", 6,
		  "more elements than bytes left" },
		{ "\x69\x00\x01\x00\x00", 5, "more elements than bytes left" },
		{ "\x6d\x04\x00\x00\x00ab", 7, "term cut short" },
		{ "\x52\x05", 2,
		  "an atom cache reference, and no atom cache "
		  "was negotiated" },
		{ "\x58\x52\x01", 3,
		  "an atom cache reference, and no atom "
		  "cache was negotiated" },
		{ "\x50\0\0\0\x10x", 6, "a compressed term" },
		{ "\x79\0", 2,
		  "a LOCAL_EXT term, which is another node's own" },
		{ "\x75\0\0\0\0", 5, "an old FUN_EXT fun (before OTP 23)" },
		{ "\x01", 1, "an unknown term tag" },
		{ "\x64\x01\x00", 3, "an atom of more than 255 characters" },
		{ "\x58\x61\x01", 3, "a node that is not an atom" },
		{ "\x5a\x00\x06\x73\x01\x61", 6,
		  "a reference of other than 1 to 5 words" },
		{ "\x4d\0\0\0\1\x09\xff", 7,
		  "a bitstring's last byte of other than 1 to 8 bits" },
		{ "\x70\0\0\0\x02", 5, "a fun shorter than its own size" },
		{ "", 0, "term cut short" },
	};
	struct act__term_err err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(check_bytes(cases[i].bytes, cases[i].n, &err),
				 -1);
		ck_assert_msg(err.why && !strcmp(err.why, cases[i].why),
			      "case %zu: '%s', not '%s'", i,
			      err.why ? err.why : "(none)", cases[i].why);
	}
}
END_TEST

/* random bytes, each run of them in a buffer of its exact size (so that
 * ASan sees a read past it): refused or passed, with a length within */
START_TEST(random_bytes)
{
	struct act__term_err err;
	uint64_t x = 88172645463325252ull;
	uint8_t *p;
	size_t n, j;
	long r;
	int i;

	for (i = 0; i < 200000; i++) {
		n = (size_t)(i % 64);
		p = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(p);
		for (j = 0; j < n; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly the tags the walk knows */
			p[j] = (uint8_t)(j % 3 ? x : 97 + x % 24);
		}
		r = check_bytes(p, n, &err);
		/* a plain test: a ck_assert a round writes its place down,
		 * a system call each */
		if (r == -1 ? err.why == NULL : (size_t)r > n)
			ck_abort_msg("input %d: %ld of %zu bytes", i, r, n);
		free(p);
	}
}
END_TEST

static Suite *dist_term_suite(void)
{
	Suite *s = suite_create("dist_term");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_type_passes);
	tcase_add_test(tc, prefixes_refused);
	tcase_add_test(tc, depth);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, random_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_term_suite());
}
