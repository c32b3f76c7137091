/* SPDX-License-Identifier: MIT */
/*
 * test_dist_wire.c - Erlang distribution's wire layer (lib/dist/): MD5
 * against RFC 1321's test suite (appendix A.5).
 *
 * Everything here is a pure function on memory: no runtime is started.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/md5.h"

static void hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/* RFC 1321 A.5: MD5 ("") = d41d8cd9..., and so on. */
static const struct {
	const char *in, *md5;
} rfc1321[] = {
	{ "", "d41d8cd98f00b204e9800998ecf8427e" },
	{ "a", "0cc175b9c0f1b6a831c399e269772661" },
	{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
	{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
	{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
	{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	  "d174ab98d277d9f5a5611c2c9f419d9f" },
	{ "1234567890123456789012345678901234567890"
	  "1234567890123456789012345678901234567890",
	  "57edf4a22be3c955ac49da2e2107b67a" },
};

START_TEST(md5_rfc1321)
{
	uint8_t d[ACT__MD5_LEN];
	char got[2 * ACT__MD5_LEN + 1];
	const char *in = rfc1321[_i].in;

	act__md5(in, strlen(in), d);
	hex(d, sizeof(d), got);
	ck_assert_str_eq(got, rfc1321[_i].md5);
}
END_TEST

/* The same vectors fed in every split into two updates, and byte by
 * byte: the block boundary is crossed at every offset. */
START_TEST(md5_incremental)
{
	const char *in = rfc1321[_i].in;
	size_t n = strlen(in), cut, k;
	struct act__md5_ctx c;
	uint8_t d[ACT__MD5_LEN];
	char got[2 * ACT__MD5_LEN + 1];

	for (cut = 0; cut <= n; cut++) {
		act__md5_init(&c);
		act__md5_update(&c, in, cut);
		act__md5_update(&c, in + cut, n - cut);
		act__md5_final(&c, d);
		hex(d, sizeof(d), got);
		ck_assert_str_eq(got, rfc1321[_i].md5);
	}
	act__md5_init(&c);
	for (k = 0; k < n; k++)
		act__md5_update(&c, in + k, 1);
	act__md5_final(&c, d);
	hex(d, sizeof(d), got);
	ck_assert_str_eq(got, rfc1321[_i].md5);
}
END_TEST

/* The padding's three cases: 55 bytes (one block), 56 and 63 (a second
 * block for the length), 64 (a block of padding alone); and a million
 * 'a's. The digests are md5sum(1)'s of as many 'a's. */
START_TEST(md5_lengths)
{
	static const struct {
		size_t n;
		const char *md5;
	} t[] = {
		{ 55, "ef1772b6dff9a122358552954ad0df65" },
		{ 56, "3b0c8ac703f828b04c6c197006d17218" },
		{ 63, "b06521f39153d618550606be297466d5" },
		{ 64, "014842d480b571495a4a0363793f7367" },
		{ 1000000, "7707d6ae4e027c70eea2a935c2296f21" },
	};
	uint8_t d[ACT__MD5_LEN];
	char got[2 * ACT__MD5_LEN + 1];
	char *a = malloc(1000000);
	size_t i;

	ck_assert_ptr_nonnull(a);
	memset(a, 'a', 1000000);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		act__md5(a, t[i].n, d);
		hex(d, sizeof(d), got);
		ck_assert_msg(!strcmp(got, t[i].md5), "%zu 'a's: %s, not %s",
			      t[i].n, got, t[i].md5);
	}
	free(a);
}
END_TEST

static Suite *dist_wire_suite(void)
{
	Suite *s = suite_create("dist_wire");
	TCase *tc = tcase_create("md5");
	int nv = (int)(sizeof(rfc1321) / sizeof(rfc1321[0]));

	tcase_add_loop_test(tc, md5_rfc1321, 0, nv);
	tcase_add_loop_test(tc, md5_incremental, 0, nv);
	tcase_add_test(tc, md5_lengths);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dist_wire_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
