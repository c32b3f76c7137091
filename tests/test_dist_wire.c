/* SPDX-License-Identifier: MIT */
/*
 * test_dist_wire.c - Erlang distribution's wire layer (lib/dist/): MD5
 * against RFC 1321's test suite (appendix A.5); epmd's requests against
 * the byte layouts of the ERTS guide's "EPMD Protocol", its replies
 * decoded whole, cut short at every byte and beyond their bounds; the
 * distribution flags' values and names.
 *
 * Everything here is a pure function on memory: no runtime is started.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/epmd.h"
#include "dist/flags.h"
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

/* ---- epmd ------------------------------------------------------------ */

#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ })

static void expect_bytes(const uint8_t *got, int n, const uint8_t *want,
			 size_t wn)
{
	char g[1024], w[1024];

	ck_assert_int_eq(n, (int)wn);
	hex(got, wn, g);
	hex(want, wn, w);
	ck_assert_str_eq(g, w);
}

/* ALIVE2_REQ as the guide draws it: 120, PortNo:2, NodeType, Protocol,
 * HighestVersion:2, LowestVersion:2, Nlen:2, NodeName, Elen:2, Extra;
 * behind the 2-byte length. */
START_TEST(epmd_alive2_req_bytes)
{
	struct act__epmd_node node = {
		.port = 0x1234,
		.type = ACT__EPMD_NODE_HIDDEN,
		.protocol = ACT__EPMD_PROTO_TCP4,
		.high = 6,
		.low = 5,
		.name = "b",
	};
	uint8_t buf[512];
	int n;

	n = act__epmd_alive2_req(buf, sizeof(buf), &node);
	expect_bytes(buf, n,
		     BYTES(0, 14, 120, 0x12, 0x34, 72, 0, 0, 6, 0, 5, 0, 1, 'b',
			   0, 0),
		     16);
	node.extra = (const uint8_t *)"xy";
	node.extra_len = 2;
	strcpy(node.name, "node1");
	n = act__epmd_alive2_req(buf, sizeof(buf), &node);
	expect_bytes(buf, n,
		     BYTES(0, 20, 120, 0x12, 0x34, 72, 0, 0, 6, 0, 5, 0, 5, 'n',
			   'o', 'd', 'e', '1', 0, 2, 'x', 'y'),
		     22);
	/* one byte short of room, and the bounds */
	ck_assert_int_eq(act__epmd_alive2_req(buf, 21, &node), -ENOSPC);
	node.extra_len = ACT__EPMD_EXTRA_MAX + 1;
	ck_assert_int_eq(act__epmd_alive2_req(buf, sizeof(buf), &node),
			 -EINVAL);
	node.extra_len = 0;
	strcpy(node.name, "b@host");
	ck_assert_int_eq(act__epmd_alive2_req(buf, sizeof(buf), &node),
			 -EINVAL);
	node.name[0] = '\0';
	ck_assert_int_eq(act__epmd_alive2_req(buf, sizeof(buf), &node),
			 -EINVAL);
	memset(node.name, 'x', ACT__EPMD_NAME_MAX);
	node.name[ACT__EPMD_NAME_MAX] = '\0';
	n = act__epmd_alive2_req(buf, sizeof(buf), &node);
	ck_assert_int_eq(n, 2 + 13 + ACT__EPMD_NAME_MAX);
}
END_TEST

START_TEST(epmd_port_please2_and_names_req_bytes)
{
	char longname[ACT__EPMD_NAME_MAX + 2];
	uint8_t buf[512];
	int n;

	n = act__epmd_port_please2_req(buf, sizeof(buf), "a");
	expect_bytes(buf, n, BYTES(0, 2, 122, 'a'), 4);
	n = act__epmd_port_please2_req(buf, sizeof(buf), "node");
	expect_bytes(buf, n, BYTES(0, 5, 122, 'n', 'o', 'd', 'e'), 7);
	ck_assert_int_eq(act__epmd_port_please2_req(buf, 6, "node"), -ENOSPC);
	ck_assert_int_eq(act__epmd_port_please2_req(buf, sizeof(buf), ""),
			 -EINVAL);
	ck_assert_int_eq(act__epmd_port_please2_req(buf, sizeof(buf), "a@b"),
			 -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(act__epmd_port_please2_req(buf, sizeof(buf), longname),
			 -EINVAL);
	n = act__epmd_names_req(buf, sizeof(buf));
	expect_bytes(buf, n, BYTES(0, 1, 110), 3);
	ck_assert_int_eq(act__epmd_names_req(buf, 2), -ENOSPC);
}
END_TEST

START_TEST(epmd_alive2_resp_decode)
{
	static const uint8_t x[] = { 118, 0, 0, 0, 0x12, 0x34, 0xee };
	static const uint8_t old[] = { 121, 0, 0x12, 0x35 };
	const char *why = NULL;
	uint32_t creation = 0;
	size_t k;

	ck_assert_int_eq(act__epmd_alive2_resp(x, sizeof(x), &creation, &why),
			 6);
	ck_assert_uint_eq(creation, 0x1234);
	for (k = 0; k < 6; k++) /* every prefix needs more */
		ck_assert_int_eq(act__epmd_alive2_resp(x, k, &creation, &why),
				 0);
	ck_assert_int_eq(
		act__epmd_alive2_resp(old, sizeof(old), &creation, &why), 4);
	ck_assert_uint_eq(creation, 0x1235);
	for (k = 0; k < 4; k++)
		ck_assert_int_eq(act__epmd_alive2_resp(old, k, &creation, &why),
				 0);
	/* refused with 2 bytes, before the creation */
	ck_assert_int_eq(act__epmd_alive2_resp(BYTES(118, 1), 2, &creation,
					       &why),
			 -EADDRINUSE);
	ck_assert_ptr_nonnull(strstr(why, "refused to register"));
	ck_assert_int_eq(act__epmd_alive2_resp(BYTES(121, 3), 2, &creation,
					       &why),
			 -EADDRINUSE);
	ck_assert_int_eq(act__epmd_alive2_resp(BYTES(119), 1, &creation, &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "neither ALIVE2_X_RESP"));
	ck_assert_int_eq(act__epmd_alive2_resp(BYTES(118, 0, 0, 0, 0, 0), 6,
					       &creation, &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "creation 0"));
}
END_TEST

/* PORT2_RESP: 119, Result, PortNo:2, NodeType, Protocol, Highest:2,
 * Lowest:2, Nlen:2, NodeName, Elen:2, Extra. */
static const uint8_t port2_good
	[] = { 119, 0, 0x1f, 0x90, 77, 0, 0,   6,   0,	 5,
	       0,   2, 'a',  '1',  0,  3, 'e', 'x', 't', 0x99 /* not its */ };

START_TEST(epmd_port2_resp_decode)
{
	struct act__epmd_node node;
	const char *why = NULL;
	size_t k;

	memset(&node, 0, sizeof(node));
	ck_assert_int_eq(act__epmd_port2_resp(port2_good, sizeof(port2_good),
					      &node, &why),
			 19);
	ck_assert_uint_eq(node.port, 8080);
	ck_assert_uint_eq(node.type, ACT__EPMD_NODE_NORMAL);
	ck_assert_uint_eq(node.protocol, 0);
	ck_assert_uint_eq(node.high, 6);
	ck_assert_uint_eq(node.low, 5);
	ck_assert_str_eq(node.name, "a1");
	ck_assert_uint_eq(node.extra_len, 3);
	ck_assert_ptr_eq(node.extra, port2_good + 16);
	for (k = 0; k < 19; k++) /* every prefix needs more */
		ck_assert_int_eq(
			act__epmd_port2_resp(port2_good, k, &node, &why), 0);
	ck_assert_int_eq(act__epmd_port2_resp(BYTES(119, 1), 2, &node, &why),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "no node of that name"));
}
END_TEST

/* A PORT2_RESP with one field changed: b[at] = v (two bytes if wide). */
static int port2_with(size_t at, unsigned v, int wide, size_t n,
		      const char **why)
{
	struct act__epmd_node node;
	uint8_t b[sizeof(port2_good)];

	memcpy(b, port2_good, sizeof(b));
	if (wide) {
		b[at] = (uint8_t)(v >> 8);
		b[at + 1] = (uint8_t)v;
	} else {
		b[at] = (uint8_t)v;
	}
	return act__epmd_port2_resp(b, n, &node, why);
}

START_TEST(epmd_port2_resp_refused)
{
	struct act__epmd_node node;
	const char *why = NULL;

	/* a name length over 255 is refused at the length, before the
	 * bytes it announces; so is an extra over 1024 */
	ck_assert_int_eq(port2_with(10, 256, 1, 12, &why), -EMSGSIZE);
	ck_assert_ptr_nonnull(strstr(why, "name is over 255"));
	ck_assert_int_eq(port2_with(14, 1025, 1, 16, &why), -EMSGSIZE);
	ck_assert_ptr_nonnull(strstr(why, "extra field is over 1024"));
	/* a name length past the buffer waits for more */
	ck_assert_int_eq(port2_with(10, 255, 1, sizeof(port2_good), &why), 0);
	ck_assert_int_eq(act__epmd_port2_resp(BYTES(119, 0, 0x1f, 0x90, 77, 0,
						    0, 6, 0, 5, 0, 0, 0, 0),
					      14, &node, &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "empty"));
	ck_assert_int_eq(port2_with(13, 0, 0, sizeof(port2_good), &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "NUL"));
	/* versions and protocol */
	ck_assert_int_eq(port2_with(6, 5, 1, sizeof(port2_good), &why),
			 -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(why, "version 6"));
	ck_assert_int_eq(port2_with(8, 7, 1, sizeof(port2_good), &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "below its lowest"));
	ck_assert_int_eq(port2_with(5, 1, 0, sizeof(port2_good), &why),
			 -EPROTONOSUPPORT);
	ck_assert_int_eq(port2_with(0, 118, 0, sizeof(port2_good), &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "not PORT2_RESP"));
}
END_TEST

START_TEST(epmd_names_resp_decode)
{
	static const char text[] = "name a at port 4000\n"
				   "name b c at port 5\n";
	uint8_t buf[4 + sizeof(text)];
	char name[ACT__EPMD_NAME_MAX + 1];
	const char *why = NULL;
	uint32_t port = 0;
	uint16_t nport = 0;
	size_t off = 0, n = 4 + sizeof(text) - 1;
	uint8_t *big;

	memcpy(buf, BYTES(0, 0, 0x11, 0x11), 4);
	memcpy(buf + 4, text, sizeof(text) - 1);
	ck_assert_int_eq(act__epmd_names_resp(buf, n, 0, &port, &why), 0);
	ck_assert_int_eq(act__epmd_names_resp(buf, n, 1, &port, &why), (int)n);
	ck_assert_uint_eq(port, 0x1111);
	ck_assert_int_eq(act__epmd_names_next(buf + 4, n - 4, &off, name,
					      &nport, &why),
			 1);
	ck_assert_str_eq(name, "a");
	ck_assert_uint_eq(nport, 4000);
	ck_assert_int_eq(act__epmd_names_next(buf + 4, n - 4, &off, name,
					      &nport, &why),
			 1);
	ck_assert_str_eq(name, "b c");
	ck_assert_uint_eq(nport, 5);
	ck_assert_int_eq(act__epmd_names_next(buf + 4, n - 4, &off, name,
					      &nport, &why),
			 0);
	/* closed within the port; a text over the bound, before the end */
	ck_assert_int_eq(act__epmd_names_resp(buf, 3, 1, &port, &why), -EPROTO);
	big = calloc(1, 5 + ACT__EPMD_NAMES_MAX);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(act__epmd_names_resp(big, 4 + ACT__EPMD_NAMES_MAX, 0,
					      &port, &why),
			 0);
	ck_assert_int_eq(act__epmd_names_resp(big, 5 + ACT__EPMD_NAMES_MAX, 0,
					      &port, &why),
			 -EMSGSIZE);
	free(big);
}
END_TEST

static const char *const bad_names_lines[] = {
	"nam a at port 1\n",
	"name a at port \n",
	"name a at port 70000\n",
	"name a at port 12",
	"name  at port 1\n",
	"name a at port 1x\n",
	"name a\n",
	"\n",
};

START_TEST(epmd_names_bad_lines)
{
	const char *l = bad_names_lines[_i];
	char name[ACT__EPMD_NAME_MAX + 1];
	const char *why = NULL;
	uint16_t port;
	size_t off = 0;

	ck_assert_int_eq(act__epmd_names_next((const uint8_t *)l, strlen(l),
					      &off, name, &port, &why),
			 -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "name N at port P"));
	ck_assert_uint_eq(off, 0);
}
END_TEST

/* ---- flags ------------------------------------------------------------ */

/* The values of OTP 25's dist.hrl and OTP 26's dist.h. */
START_TEST(flags_values)
{
	char buf[512];

	ck_assert(ACT__DFLAGS_MANDATORY_25 == 0x1070f94ull);
	ck_assert(ACT__DFLAGS_REQUIRED == 0x403070f94ull);
	ck_assert(ACT__DFLAGS_OURS == 0x4070f0f9cull);
	act__flags_format(ACT__DFLAGS_OURS, buf, sizeof(buf));
	ck_assert_str_eq(buf, "EXTENDED_REFERENCES DIST_MONITOR FUN_TAGS "
			      "NEW_FUN_TAGS EXTENDED_PIDS_PORTS "
			      "EXPORT_PTR_TAG BIT_BINARIES NEW_FLOATS "
			      "UTF8_ATOMS MAP_TAG BIG_CREATION SEND_SENDER "
			      "HANDSHAKE_23 UNLINK_ID MANDATORY_25_DIGEST "
			      "V4_NC");
	/* nothing we must not advertise */
	ck_assert(!(ACT__DFLAGS_OURS &
		    (ACT__DFLAG_PUBLISHED | ACT__DFLAG_DIST_HDR_ATOM_CACHE |
		     ACT__DFLAG_FRAGMENTS | ACT__DFLAG_NAME_ME)));
	ck_assert(act__flags_expand(ACT__DFLAG_MANDATORY_25_DIGEST) ==
		  (ACT__DFLAG_MANDATORY_25_DIGEST | ACT__DFLAGS_MANDATORY_25));
	ck_assert(act__flags_expand(ACT__DFLAG_V4_NC) == ACT__DFLAG_V4_NC);
}
END_TEST

START_TEST(flags_format)
{
	char buf[64];

	ck_assert_uint_eq(act__flags_format(0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	act__flags_format(1ull << 37 | 1ull << 15 | ACT__DFLAG_ALIAS, buf,
			  sizeof(buf));
	ck_assert_str_eq(buf, "bit15 ALIAS bit37");
	/* cut at the end with "...", within cap */
	ck_assert_uint_eq(act__flags_format(ACT__DFLAGS_OURS, buf, 24), 22);
	ck_assert_str_eq(buf, "EXTENDED_REFERENCES...");
	ck_assert_uint_eq(act__flags_format(ACT__DFLAGS_OURS, buf, 3), 0);
	ck_assert_str_eq(buf, "");
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

	tc = tcase_create("epmd");
	tcase_add_test(tc, epmd_alive2_req_bytes);
	tcase_add_test(tc, epmd_port_please2_and_names_req_bytes);
	tcase_add_test(tc, epmd_alive2_resp_decode);
	tcase_add_test(tc, epmd_port2_resp_decode);
	tcase_add_test(tc, epmd_port2_resp_refused);
	tcase_add_test(tc, epmd_names_resp_decode);
	tcase_add_loop_test(
		tc, epmd_names_bad_lines, 0,
		(int)(sizeof(bad_names_lines) / sizeof(bad_names_lines[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("flags");
	tcase_add_test(tc, flags_values);
	tcase_add_test(tc, flags_format);
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
