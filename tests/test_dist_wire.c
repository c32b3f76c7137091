/* SPDX-License-Identifier: MIT */
/*
 * test_dist_wire.c - Erlang distribution's wire layer (lib/dist/): MD5
 * against RFC 1321's test suite (appendix A.5); epmd's requests against
 * the byte layouts of the ERTS guide's "EPMD Protocol", its replies
 * decoded whole, cut short at every byte and beyond their bounds; the
 * distribution flags' values and names; the handshake, both roles in
 * memory with the same cookie and with different ones, its frames'
 * bytes, and every malformed or hostile frame refused with its reason.
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
#include "dist/handshake.h"
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
	ck_assert(ACT__DFLAGS_OURS == 0x4070f0fbcull);
	act__flags_format(ACT__DFLAGS_OURS, buf, sizeof(buf));
	ck_assert_str_eq(
		buf,
		"EXTENDED_REFERENCES DIST_MONITOR FUN_TAGS DIST_MONITOR_NAME "
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

/* ---- the handshake ---------------------------------------------------- */

#define A_NAME "a@host"
#define B_NAME "b@host"
#define COOKIE "secret"

static struct act__handshake ha, hb; /* A initiates, B accepts */

static void start(const char *cookie_a, const char *cookie_b)
{
	ck_assert_int_eq(act__handshake_init(&ha, ACT__HANDSHAKE_INITIATOR,
					     A_NAME, cookie_a, ACT__DFLAGS_OURS,
					     0x0a0a0a0a, 3735928559u),
			 0);
	ck_assert_int_eq(act__handshake_init(&hb, ACT__HANDSHAKE_ACCEPTOR,
					     B_NAME, cookie_b, ACT__DFLAGS_OURS,
					     0x0b0b0b0b, 42),
			 0);
}

/* from's output into to, chunk bytes a feed at most, as long as to takes
 * them. Returns the bytes moved. */
static size_t pump(struct act__handshake *from, struct act__handshake *to,
		   size_t chunk)
{
	const uint8_t *p;
	size_t len, used, k, moved = 0;

	for (;;) {
		act__handshake_output(from, &p, &len);
		if (!len || to->state != ACT__HANDSHAKE_RUNNING)
			return moved;
		k = len < chunk ? len : chunk;
		act__handshake_feed(to, p, k, &used);
		ck_assert_uint_le(used, k);
		act__handshake_sent(from, used);
		moved += used;
		if (used < k)
			return moved;
	}
}

/* A and B until neither moves; B answers ok to A's name. */
static void converse(size_t chunk)
{
	size_t moved;

	do {
		moved = pump(&ha, &hb, chunk);
		if (hb.state == ACT__HANDSHAKE_NAME) {
			ck_assert_str_eq(hb.peer_name, A_NAME);
			ck_assert_int_eq(
				act__handshake_accept(&hb, ACT__HANDSHAKE_OK),
				ACT__HANDSHAKE_RUNNING);
			moved++;
		}
		moved += pump(&hb, &ha, chunk);
	} while (moved);
}

static void expect_done(void)
{
	const uint8_t *p;
	size_t len;

	ck_assert_int_eq(ha.state, ACT__HANDSHAKE_DONE);
	ck_assert_int_eq(hb.state, ACT__HANDSHAKE_DONE);
	ck_assert_str_eq(ha.peer_name, B_NAME);
	ck_assert_str_eq(hb.peer_name, A_NAME);
	ck_assert(ha.peer_flags == ACT__DFLAGS_OURS);
	ck_assert(hb.peer_flags == ACT__DFLAGS_OURS);
	ck_assert_uint_eq(ha.peer_creation, 0x0b0b0b0b);
	ck_assert_uint_eq(hb.peer_creation, 0x0a0a0a0a);
	act__handshake_output(&ha, &p, &len);
	ck_assert_uint_eq(len, 0);
	act__handshake_output(&hb, &p, &len);
	ck_assert_uint_eq(len, 0);
}

/* Both roles complete, with the frames whole and a byte at a time. */
START_TEST(hs_completes)
{
	static const size_t chunks[] = { 4096, 1, 2, 3, 7 };

	start(COOKIE, COOKIE);
	converse(chunks[_i]);
	expect_done();
}
END_TEST

/* The bytes of each frame as dist_util.erl builds them, and the digest
 * as MD5("secret" ++ "3735928559"), computed by Python's hashlib. */
START_TEST(hs_frame_bytes)
{
	static const uint8_t name[] = {
		0,    21,   'N',  0x00, 0x00, 0x00, 0x04, 0x07,
		0x0f, 0x0f, 0xbc, 0x0a, 0x0a, 0x0a, 0x0a, 0,
		6,    'a',  '@',  'h',	'o',  's',  't',
	};
	static const char digest[] = "c3939b31d7a913d82e2ace09247c7b41";
	char got[64];
	const uint8_t *p;
	size_t len, used;

	ck_assert(ACT__DFLAGS_OURS == 0x4070f0fbcull);
	start(COOKIE, COOKIE);
	act__handshake_output(&ha, &p, &len);
	ck_assert_uint_eq(len, sizeof(name));
	ck_assert(!memcmp(p, name, len));
	/* a peer's challenge 0xdeadbeef (3735928559) to A */
	act__handshake_sent(&ha, len);
	act__handshake_feed(&ha, BYTES(0, 3, 's', 'o', 'k'), 5, &used);
	act__handshake_feed(&ha,
			    BYTES(0, 25, 'N', 0, 0, 0, 4, 7, 0xf, 0xf, 0x9c,
				  0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 9, 0, 6, 'b',
				  '@', 'h', 'o', 's', 't'),
			    27, &used);
	ck_assert_uint_eq(used, 27);
	ck_assert_int_eq(ha.state, ACT__HANDSHAKE_RUNNING);
	act__handshake_output(&ha, &p, &len);
	ck_assert_uint_eq(len, 2 + 1 + 4 + 16);
	ck_assert(!memcmp(p, BYTES(0, 21, 'r', 0xde, 0xad, 0xbe, 0xef), 7));
	hex(p + 7, 16, got);
	ck_assert_str_eq(got, digest);
}
END_TEST

/* After DONE, feed leaves the bytes that follow the last frame. */
START_TEST(hs_stops_at_its_last_frame)
{
	uint8_t buf[64];
	const uint8_t *p;
	size_t len, used;

	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_OK);
	pump(&hb, &ha, 4096);
	pump(&ha, &hb, 4096);
	act__handshake_output(&hb, &p, &len); /* B's ack */
	ck_assert_uint_eq(len, 19);
	memcpy(buf, p, len);
	memcpy(buf + len, BYTES(0, 0, 0, 0, 0x70), 5); /* a tick, more */
	ck_assert_int_eq(act__handshake_feed(&ha, buf, len + 5, &used),
			 ACT__HANDSHAKE_DONE);
	ck_assert_uint_eq(used, len);
	act__handshake_sent(&hb, len);
	expect_done();
	/* and a DONE handshake takes nothing more */
	ck_assert_int_eq(act__handshake_feed(&ha, buf + len, 5, &used),
			 ACT__HANDSHAKE_DONE);
	ck_assert_uint_eq(used, 0);
}
END_TEST

/* Different cookies: B refuses A's digest; A, when B closes, says why;
 * and an ack whose digest is wrong is A's own refusal. */
START_TEST(hs_wrong_cookie)
{
	uint8_t ack[19];
	const uint8_t *p;
	size_t len, used;

	start("one", "two");
	converse(4096);
	ck_assert_int_eq(hb.state, ACT__HANDSHAKE_FAILED);
	ck_assert_int_eq(hb.err, -EACCES);
	ck_assert_str_eq(hb.why, "handshake: challenge reply's digest does not "
				 "match: wrong cookie (ours or the peer's)");
	ck_assert_int_eq(ha.state, ACT__HANDSHAKE_RUNNING);
	ck_assert_int_eq(act__handshake_eof(&ha), -EACCES);
	ck_assert_ptr_nonnull(strstr(ha.why, "instead of its challenge ack"));
	ck_assert_ptr_nonnull(strstr(ha.why, "wrong cookie"));

	/* the same cookie, an ack with a bit flipped */
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_OK);
	pump(&hb, &ha, 4096);
	pump(&ha, &hb, 4096);
	ck_assert_int_eq(hb.state, ACT__HANDSHAKE_DONE);
	act__handshake_output(&hb, &p, &len);
	ck_assert_uint_eq(len, sizeof(ack));
	memcpy(ack, p, len);
	ack[10] ^= 1;
	ck_assert_int_eq(act__handshake_feed(&ha, ack, sizeof(ack), &used),
			 -EACCES);
	ck_assert_str_eq(ha.why, "handshake: challenge ack's digest does not "
				 "match: wrong cookie (ours or the peer's)");
}
END_TEST

/* A frame (2-byte length first) fed whole to h. */
static int feed_frame(struct act__handshake *h, const uint8_t *body, size_t len)
{
	uint8_t buf[2048];
	size_t used;

	ck_assert_uint_le(len + 2, sizeof(buf));
	buf[0] = (uint8_t)(len >> 8);
	buf[1] = (uint8_t)len;
	memcpy(buf + 2, body, len);
	return act__handshake_feed(h, buf, len + 2, &used);
}

/* A send_name body: flags, creation 7, the name. */
static size_t name_body(uint8_t *b, uint64_t flags, const void *name,
			size_t nlen)
{
	int i;

	b[0] = 'N';
	for (i = 0; i < 8; i++)
		b[1 + i] = (uint8_t)(flags >> (56 - 8 * i));
	memcpy(b + 9, BYTES(0, 0, 0, 7), 4);
	b[13] = (uint8_t)(nlen >> 8);
	b[14] = (uint8_t)nlen;
	memcpy(b + 15, name, nlen);
	return 15 + nlen;
}

/* Hostile names, each to an acceptor in a send_name. */
static const struct {
	const char *name;
	size_t len;
	const char *why;
} bad_names[] = {
	{ "nohost", 6, "is not of the form alive@host" },
	{ "@host", 5, "is not of the form alive@host" },
	{ "alive@", 6, "is not of the form alive@host" },
	{ "a@b@c", 5, "is not of the form alive@host" },
	{ "", 0, "is not of the form alive@host" },
	{ "a\0b@host", 8, "holds a NUL byte" },
	{ "a\nb@host", 8, "holds a space or a control character" },
	{ "a b@host", 8, "holds a space or a control character" },
	{ "a\x7f@host", 7, "holds a space or a control character" },
	{ "a\xff@host", 7, "is not printable ASCII" },
	{ "\xc3\xa9t\xc3\xa9@host", 9, "is not printable ASCII" }, /* UTF-8 */
};

START_TEST(hs_bad_name)
{
	uint8_t b[64];
	size_t n = name_body(b, ACT__DFLAGS_OURS, bad_names[_i].name,
			     bad_names[_i].len);

	start(COOKIE, COOKIE);
	ck_assert_int_eq(feed_frame(&hb, b, n), -EPROTO);
	ck_assert_int_eq(hb.state, ACT__HANDSHAKE_FAILED);
	ck_assert_ptr_nonnull(strstr(hb.why, bad_names[_i].why));
	ck_assert_ptr_nonnull(strstr(hb.why, "the name in the peer's name"));
}
END_TEST

START_TEST(hs_good_names)
{
	static const char *const good[] = { "a@b", "x-1_y.z@h.example",
					    "!~@host" };
	uint8_t b[64];
	size_t n, i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		start(COOKIE, COOKIE);
		n = name_body(b, ACT__DFLAGS_OURS, good[i], strlen(good[i]));
		ck_assert_int_eq(feed_frame(&hb, b, n), ACT__HANDSHAKE_NAME);
		ck_assert_str_eq(hb.peer_name, good[i]);
		ck_assert_uint_eq(hb.peer_creation, 7);
	}
}
END_TEST

/* Frames a hostile initiator sends an acceptor. */
START_TEST(hs_bad_frames_to_acceptor)
{
	static uint8_t b[1100], nm[1024];
	size_t used, n;

	/* over the bound: refused on its length, before its body */
	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_feed(&hb, BYTES(0x04, 0x01), 2, &used),
			 -EMSGSIZE);
	ck_assert_str_eq(hb.why, "handshake: the peer's frame of 1025 bytes "
				 "is over the bound of 1024");
	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_feed(&hb, BYTES(0xff, 0xff), 2, &used),
			 -EMSGSIZE);
	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_feed(&hb, BYTES(0, 0), 2, &used),
			 -EMSGSIZE);
	ck_assert_ptr_nonnull(strstr(hb.why, "empty frame"));
	/* the bound itself is a frame: here a name over 255 bytes */
	start(COOKIE, COOKIE);
	memset(nm, 'x', sizeof(nm));
	nm[400] = '@';
	n = name_body(b, ACT__DFLAGS_OURS, nm, 1024 - 15);
	ck_assert_int_eq(feed_frame(&hb, b, n), -EPROTO);
	ck_assert_ptr_nonnull(strstr(hb.why, "is over 255 bytes"));
	/* tags */
	start(COOKIE, COOKIE);
	ck_assert_int_eq(feed_frame(&hb, BYTES('X', 1, 2), 3), -EPROTO);
	ck_assert_str_eq(hb.why, "handshake: expected the peer's name ('N'), "
				 "got a frame tagged 0x58");
	start(COOKIE, COOKIE);
	ck_assert_int_eq(feed_frame(&hb, BYTES('n', 0, 5, 0, 0, 0, 4, 'a'), 8),
			 -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(hb.why, "version 5 handshake"));
	/* short */
	start(COOKIE, COOKIE);
	n = name_body(b, ACT__DFLAGS_OURS, "a@b", 3);
	ck_assert_int_eq(feed_frame(&hb, b, 14), -EPROTO);
	ck_assert_str_eq(hb.why, "handshake: the peer's name frame is 14 "
				 "bytes, fewer than its 15 fixed ones");
	start(COOKIE, COOKIE);
	ck_assert_int_eq(feed_frame(&hb, b, n - 1), -EPROTO);
	ck_assert_str_eq(hb.why, "handshake: the peer's name frame says its "
				 "name is 3 bytes, but 2 follow");
}
END_TEST

/* A peer without the flags we require: not_allowed, and the flags named;
 * the one bit MANDATORY_25_DIGEST stands for OTP 25's set. */
START_TEST(hs_flags)
{
	static const char na[] = "\0\014snot_allowed";
	uint64_t otp27 = ACT__DFLAG_MANDATORY_25_DIGEST | ACT__DFLAG_UNLINK_ID |
			 ACT__DFLAG_V4_NC;
	const uint8_t *p;
	uint8_t b[64];
	size_t n, len;

	start(COOKIE, COOKIE);
	/* MAP_TAG missing: without MANDATORY_25_DIGEST, which implies it */
	n = name_body(b,
		      ACT__DFLAGS_OURS &
			      ~(ACT__DFLAG_UNLINK_ID | ACT__DFLAG_V4_NC |
				ACT__DFLAG_MAP_TAG |
				ACT__DFLAG_MANDATORY_25_DIGEST),
		      "a@b", 3);
	ck_assert_int_eq(feed_frame(&hb, b, n), -EPROTONOSUPPORT);
	ck_assert_str_eq(hb.why, "handshake: the peer a@b lacks distribution "
				 "flags we require: MAP_TAG UNLINK_ID V4_NC "
				 "(is it older than OTP 25?)");
	act__handshake_output(&hb, &p, &len);
	ck_assert_uint_eq(len, sizeof(na) - 1);
	ck_assert(!memcmp(p, na, len));

	start(COOKIE, COOKIE);
	n = name_body(b, otp27, "a@b", 3);
	ck_assert_int_eq(feed_frame(&hb, b, n), ACT__HANDSHAKE_NAME);
	ck_assert(hb.peer_flags == (otp27 | ACT__DFLAGS_MANDATORY_25));

	start(COOKIE, COOKIE);
	n = name_body(b, ACT__DFLAGS_OURS | ACT__DFLAG_NAME_ME, "host", 4);
	ck_assert_int_eq(feed_frame(&hb, b, n), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(hb.why, "DFLAG_NAME_ME"));
	act__handshake_output(&hb, &p, &len);
	ck_assert(len == sizeof(na) - 1 && !memcmp(p, na, len));
}
END_TEST

/* The acceptor's answers: not_allowed and nok end it, alive asks. */
START_TEST(hs_acceptor_status)
{
	const uint8_t *p;
	size_t len;

	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_accept(&hb, ACT__HANDSHAKE_OK),
			 -EINVAL); /* no name yet */
	pump(&ha, &hb, 4096);
	ck_assert_int_eq(act__handshake_accept(&hb, ACT__HANDSHAKE_NOT_ALLOWED),
			 -ECONNREFUSED);
	act__handshake_output(&hb, &p, &len);
	ck_assert(len == 14 && !memcmp(p, "\0\014snot_allowed", 14));
	pump(&hb, &ha, 4096);
	ck_assert_int_eq(ha.err, -ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(ha.why, "answered not_allowed"));

	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	ck_assert_int_eq(act__handshake_accept(&hb, ACT__HANDSHAKE_NOK),
			 -ECONNREFUSED);
	pump(&hb, &ha, 4096);
	ck_assert_int_eq(ha.err, -EALREADY);
	ck_assert_ptr_nonnull(strstr(ha.why, "answered nok"));

	/* alive: A answers true (it holds no connection to B) */
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	ck_assert_int_eq(act__handshake_accept(&hb, ACT__HANDSHAKE_ALIVE),
			 ACT__HANDSHAKE_RUNNING);
	converse(4096);
	expect_done();

	/* alive, and the peer answers false */
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_ALIVE);
	ck_assert_int_eq(feed_frame(&hb, (const uint8_t *)"sfalse", 6),
			 -ECONNREFUSED);
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_ALIVE);
	ck_assert_int_eq(feed_frame(&hb, (const uint8_t *)"smaybe", 6),
			 -EPROTO);
}
END_TEST

/* The statuses an initiator is refused with, or cannot read. */
static const struct {
	const char *status;
	int err;
	const char *why;
} statuses[] = {
	{ "snok", -EALREADY, "answered nok" },
	{ "snot_allowed", -ECONNREFUSED, "answered not_allowed" },
	{ "snamed:\0\3a@b\0\0\0\1", -EPROTONOSUPPORT, "status named:" },
	{ "sbogus", -EPROTO, "status is none of" },
	{ "s", -EPROTO, "status is none of" },
	{ "sok ", -EPROTO, "status is none of" },
	{ "xok", -EPROTO, "expected the peer's status ('s')" },
};

START_TEST(hs_initiator_status)
{
	const char *s = statuses[_i].status;
	size_t n = strlen(s);

	if (!strncmp(s, "snamed:", 7))
		n = 7 + 2 + 3 + 4;
	start(COOKIE, COOKIE);
	ck_assert_int_eq(feed_frame(&ha, (const uint8_t *)s, n),
			 statuses[_i].err);
	ck_assert_ptr_nonnull(strstr(ha.why, statuses[_i].why));
}
END_TEST

/* A challenge body from B to A: flags, challenge, creation, name. */
static size_t challenge_body(uint8_t *b, const char *name, size_t nlen)
{
	size_t n = name_body(b, ACT__DFLAGS_OURS, name, 0);

	memmove(b + 13, b + 9, n - 9);
	memcpy(b + 9, BYTES(0, 0, 0, 99), 4);
	b[17] = (uint8_t)(nlen >> 8);
	b[18] = (uint8_t)nlen;
	memcpy(b + 19, name, nlen);
	return 19 + nlen;
}

START_TEST(hs_bad_frames_to_initiator)
{
	uint8_t b[64];
	size_t n;

	/* the challenge: short, its name, the node we called */
	start(COOKIE, COOKIE);
	feed_frame(&ha, (const uint8_t *)"sok", 3);
	n = challenge_body(b, B_NAME, strlen(B_NAME));
	ck_assert_int_eq(feed_frame(&ha, b, 18), -EPROTO);
	ck_assert_ptr_nonnull(strstr(ha.why, "fewer than its 19 fixed"));
	start(COOKIE, COOKIE);
	feed_frame(&ha, (const uint8_t *)"sok", 3);
	n = challenge_body(b, "bhost", 5);
	ck_assert_int_eq(feed_frame(&ha, b, n), -EPROTO);
	ck_assert_ptr_nonnull(strstr(ha.why, "the name in the peer's "
					     "challenge is not of the form"));
	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_expect(&ha, "c@host"), 0);
	ck_assert_int_eq(act__handshake_expect(&ha, "c"), -EINVAL);
	feed_frame(&ha, (const uint8_t *)"sok", 3);
	n = challenge_body(b, B_NAME, strlen(B_NAME));
	ck_assert_int_eq(feed_frame(&ha, b, n), -EPROTO);
	ck_assert_str_eq(ha.why, "handshake: we called c@host, but the peer "
				 "is b@host");
	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_expect(&ha, B_NAME), 0);
	feed_frame(&ha, (const uint8_t *)"sok", 3);
	ck_assert_int_eq(feed_frame(&ha, b, n), ACT__HANDSHAKE_RUNNING);
	ck_assert_uint_eq(ha.peer_creation, 7);
	/* the ack: its tag and length */
	ck_assert_int_eq(feed_frame(&ha, BYTES('a', 1, 2), 3), -EPROTO);
	ck_assert_str_eq(ha.why, "handshake: the peer's challenge ack is 3 "
				 "bytes, not 17");
}
END_TEST

START_TEST(hs_bad_reply)
{
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_OK);
	ck_assert_int_eq(feed_frame(&hb, BYTES('r', 0, 0, 0, 1, 2), 6),
			 -EPROTO);
	ck_assert_str_eq(hb.why, "handshake: the peer's challenge reply is 6 "
				 "bytes, not 21");
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_OK);
	ck_assert_int_eq(feed_frame(&hb, BYTES('a', 0), 2), -EPROTO);
	ck_assert_ptr_nonnull(strstr(hb.why, "challenge reply ('r')"));
}
END_TEST

/* The peer closes at each step: the reason says where. */
START_TEST(hs_eof)
{
	start(COOKIE, COOKIE);
	ck_assert_int_eq(act__handshake_eof(&hb), -ECONNRESET);
	ck_assert_str_eq(hb.why, "handshake: the peer closed the connection "
				 "before its name");
	ck_assert_int_eq(act__handshake_eof(&ha), -ECONNRESET);
	ck_assert_ptr_nonnull(strstr(ha.why, "before its status"));
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	ck_assert_int_eq(act__handshake_eof(&hb), -ECONNRESET);
	ck_assert_ptr_nonnull(strstr(hb.why, "after its name"));
	start(COOKIE, COOKIE);
	pump(&ha, &hb, 4096);
	act__handshake_accept(&hb, ACT__HANDSHAKE_OK);
	ck_assert_int_eq(act__handshake_eof(&hb), -ECONNRESET);
	ck_assert_ptr_nonnull(strstr(hb.why, "before its challenge reply"));
	feed_frame(&ha, (const uint8_t *)"sok", 3);
	ck_assert_int_eq(act__handshake_eof(&ha), -ECONNRESET);
	ck_assert_ptr_nonnull(strstr(ha.why, "before its challenge"));
	/* ended already: eof changes nothing */
	ck_assert_int_eq(act__handshake_eof(&ha), -ECONNRESET);
	start(COOKIE, COOKIE);
	converse(4096);
	ck_assert_int_eq(act__handshake_eof(&ha), ACT__HANDSHAKE_DONE);
}
END_TEST

START_TEST(hs_bad_init)
{
	struct act__handshake h;
	char cookie[ACT__HANDSHAKE_COOKIE_MAX + 2];

	ck_assert_int_eq(act__handshake_init(&h, ACT__HANDSHAKE_INITIATOR,
					     "nohost", COOKIE, ACT__DFLAGS_OURS,
					     1, 1),
			 -EINVAL);
	ck_assert_int_eq(h.state, ACT__HANDSHAKE_FAILED);
	ck_assert_ptr_nonnull(strstr(h.why, "our name"));
	ck_assert_int_eq(act__handshake_init(&h, ACT__HANDSHAKE_INITIATOR,
					     A_NAME, "", ACT__DFLAGS_OURS, 1,
					     1),
			 -EINVAL);
	memset(cookie, 'c', sizeof(cookie) - 1);
	cookie[sizeof(cookie) - 1] = '\0';
	ck_assert_int_eq(act__handshake_init(&h, ACT__HANDSHAKE_INITIATOR,
					     A_NAME, cookie, ACT__DFLAGS_OURS,
					     1, 1),
			 -EINVAL);
	ck_assert_int_eq(act__handshake_init(
				 &h, ACT__HANDSHAKE_INITIATOR, A_NAME, COOKIE,
				 ACT__DFLAGS_OURS & ~ACT__DFLAG_V4_NC, 1, 1),
			 -EINVAL);
	ck_assert_int_eq(act__handshake_init(
				 &h, ACT__HANDSHAKE_INITIATOR, A_NAME, COOKIE,
				 ACT__DFLAGS_OURS | ACT__DFLAG_NAME_ME, 1, 1),
			 -EINVAL);
}
END_TEST

/* xorshift64*, seeded: the same bytes on every machine. */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Random bytes, and valid conversations with random bytes flipped, to
 * both roles in random pieces: each ends RUNNING, NAME, DONE or FAILED
 * with a reason, never takes more than it is given, and the output it
 * makes stays within its buffer. ASan's build checks the reads. */
START_TEST(hs_random_input)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint8_t buf[1500];
	const uint8_t *p;
	size_t n, off, k, used, len;
	int round, i, r;

	for (round = 0; round < 4000; round++) {
		struct act__handshake *h = round & 1 ? &ha : &hb;

		start(COOKIE, COOKIE);
		n = rng(&seed) % sizeof(buf);
		for (k = 0; k < n; k++)
			buf[k] = (uint8_t)rng(&seed);
		if (round % 4 < 2) {
			/* plausible lengths, so that frames are read */
			buf[0] = 0;
			buf[1] = (uint8_t)(rng(&seed) % 40);
			buf[2] = round & 1 ? 's' : 'N';
		}
		for (off = 0; off < n; off += used) {
			k = 1 + rng(&seed) % 64;
			k = k < n - off ? k : n - off;
			r = act__handshake_feed(h, buf + off, k, &used);
			ck_assert_uint_le(used, k);
			if (r == ACT__HANDSHAKE_NAME)
				r = act__handshake_accept(
					h, (enum act__handshake_status)(
						   rng(&seed) % 5));
			if (r < 0) {
				ck_assert_int_eq(h->state,
						 ACT__HANDSHAKE_FAILED);
				ck_assert_ptr_nonnull(h->why);
				ck_assert_ptr_null(strchr(h->why, '\n'));
				break;
			}
			if (!used && r != ACT__HANDSHAKE_RUNNING)
				break;
			act__handshake_output(h, &p, &len);
			ck_assert_uint_le(len, sizeof(h->out));
			act__handshake_sent(h, len);
		}
	}
	/* whole conversations, one byte flipped */
	for (round = 0; round < 2000; round++) {
		start(COOKIE, COOKIE);
		for (i = 0; i < 6; i++) {
			struct act__handshake *from = i & 1 ? &hb : &ha;
			struct act__handshake *to = i & 1 ? &ha : &hb;

			if (hb.state == ACT__HANDSHAKE_NAME)
				act__handshake_accept(&hb, ACT__HANDSHAKE_OK);
			act__handshake_output(from, &p, &len);
			if (!len)
				continue;
			memcpy(buf, p, len);
			if (rng(&seed) % 3 == 0)
				buf[rng(&seed) % len] ^=
					(uint8_t)(1 + rng(&seed) % 255);
			r = act__handshake_feed(to, buf, len, &used);
			act__handshake_sent(from, used);
			if (r < 0)
				ck_assert_ptr_null(strchr(to->why, '\n'));
		}
	}
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

	tc = tcase_create("handshake");
	tcase_add_loop_test(tc, hs_completes, 0, 5);
	tcase_add_test(tc, hs_frame_bytes);
	tcase_add_test(tc, hs_stops_at_its_last_frame);
	tcase_add_test(tc, hs_wrong_cookie);
	tcase_add_loop_test(tc, hs_bad_name, 0,
			    (int)(sizeof(bad_names) / sizeof(bad_names[0])));
	tcase_add_test(tc, hs_good_names);
	tcase_add_test(tc, hs_bad_frames_to_acceptor);
	tcase_add_test(tc, hs_flags);
	tcase_add_test(tc, hs_acceptor_status);
	tcase_add_loop_test(tc, hs_initiator_status, 0,
			    (int)(sizeof(statuses) / sizeof(statuses[0])));
	tcase_add_test(tc, hs_bad_frames_to_initiator);
	tcase_add_test(tc, hs_bad_reply);
	tcase_add_test(tc, hs_eof);
	tcase_add_test(tc, hs_bad_init);
	tcase_add_test(tc, hs_random_input);
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
