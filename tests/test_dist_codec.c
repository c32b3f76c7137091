/* SPDX-License-Identifier: MIT */
/*
 * test_dist_codec.c - lib/dist/codec.c: pids out and back (a local pid
 * as the same act_pid, a remote one as the same entry, one of an earlier
 * run of this node as a remote, dead one, a forged one refused) and the
 * user form {Tag, Binary} of a message, encoded here and by hand as
 * Erlang's term_to_binary writes it, and the forms that are not it.
 */
#include "testutil.h"
#include "dist/codec.h"
#include "dist/ctrl.h"
#include "dist/term.h"

static struct act__peers peers;
static const struct act__codec_self me = { "me@host", 0x1234 };

static act_pid round_trip(act_pid in)
{
	ei_x_buff b;
	act_pid out;
	int i = 0;

	ck_assert_int_eq(ei_x_new(&b), 0);
	ck_assert_int_eq(act__codec_pid_encode(&b, &peers, &me, in), 0);
	ck_assert_int_eq(act__codec_pid_decode(b.buff, &i, &peers, &me, &out),
			 0);
	ck_assert_int_eq(i, b.index);
	ei_x_free(&b);
	return out;
}

START_TEST(pids)
{
	erlang_pid e = { .num = 7, .serial = 3, .creation = 99 };
	act_pid local = { (uint64_t)0x7fffffffu << 32 | 0xfffffffeu }, p, q;
	ei_x_buff b;
	int i;

	act__peers_init(&peers);
	p = round_trip(local);
	ck_assert(act_pid_eq(p, local));
	ck_assert(act_pid_eq(round_trip((act_pid){ 5 }), (act_pid){ 5 }));
	/* a remote pid: an entry, the same each time, and out as it came */
	strcpy(e.node, "erl@host");
	ck_assert_int_eq(ei_x_new(&b), 0);
	ei_x_encode_pid(&b, &e);
	i = 0;
	ck_assert_int_eq(act__codec_pid_decode(b.buff, &i, &peers, &me, &p), 0);
	ck_assert(act__peers_is_remote(p));
	i = 0;
	ck_assert_int_eq(act__codec_pid_decode(b.buff, &i, &peers, &me, &q), 0);
	ck_assert(act_pid_eq(p, q));
	ck_assert(act_pid_eq(round_trip(p), p));
	{
		ei_x_buff c;
		erlang_pid back;

		ck_assert_int_eq(ei_x_new(&c), 0);
		ck_assert_int_eq(act__codec_pid_encode(&c, &peers, &me, p), 0);
		i = 0;
		ck_assert_int_eq(ei_decode_pid(c.buff, &i, &back), 0);
		ck_assert_str_eq(back.node, "erl@host");
		ck_assert_uint_eq(back.num, 7);
		ck_assert_uint_eq(back.serial, 3);
		ck_assert_uint_eq(back.creation, 99);
		ei_x_free(&c);
	}
	ei_x_free(&b);
	/* this node's name, another creation: a remote (dead) pid */
	strcpy(e.node, me.name);
	e.creation = me.creation + 1;
	ck_assert_int_eq(ei_x_new(&b), 0);
	ei_x_encode_pid(&b, &e);
	i = 0;
	ck_assert_int_eq(act__codec_pid_decode(b.buff, &i, &peers, &me, &p), 0);
	ck_assert(act__peers_is_remote(p));
	ei_x_free(&b);
	/* this node's, with bit 31 of Serial: no pid this node made */
	e.creation = me.creation;
	e.serial = 0x80000000u;
	ck_assert_int_eq(ei_x_new(&b), 0);
	ei_x_encode_pid(&b, &e);
	i = 0;
	ck_assert_int_eq(act__codec_pid_decode(b.buff, &i, &peers, &me, &p),
			 -EINVAL);
	ei_x_free(&b);
	/* not a pid; an entry no one made */
	ck_assert_int_eq(ei_x_new(&b), 0);
	ei_x_encode_atom(&b, "x");
	i = 0;
	ck_assert_int_eq(act__codec_pid_decode(b.buff, &i, &peers, &me, &p),
			 -EINVAL);
	ck_assert_int_eq(act__codec_pid_encode(&b, &peers, &me,
					       act__peers_pid_make(40, 1)),
			 -ESRCH);
	ei_x_free(&b);
	act__peers_fini(&peers);
}
END_TEST

START_TEST(user_form)
{
	static const uint32_t tags[] = { 0,	      1,	  255,
					 256,	      65536,	  0x7fffffffu,
					 0x80000000u, 0xfffffeffu };
	static const size_t lens[] = { 0, 1, 8, 1000, 70000 };
	static char data[70000];
	struct act__term_err err;
	const char *p;
	uint32_t tag;
	size_t i, j, len;
	ei_x_buff b;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			ck_assert_int_eq(ei_x_new(&b), 0);
			ck_assert_int_eq(act__codec_user_encode(&b, tags[i],
								data, lens[j]),
					 0);
			ck_assert_int_eq(act__term_check((uint8_t *)b.buff + 1,
							 (size_t)b.index - 1,
							 &err),
					 b.index - 1);
			ck_assert(act__codec_user_decode(
				b.buff, (size_t)b.index, &tag, &p, &len));
			ck_assert_uint_eq(tag, tags[i]);
			ck_assert_uint_eq(len, lens[j]);
			ck_assert(!memcmp(p, data, len));
			ei_x_free(&b);
		}
}
END_TEST

/* A large message's frame goes out as its head in the batch and its body
 * from where it lies (lib/dist/conn.c): the head then the bytes must be
 * the bytes ei writes for {Tag, Binary}, and the frame's length must
 * count the bytes not in the buffer. */
START_TEST(user_head_then_body)
{
	static const size_t lens[] = { 0, 1, 16384, 70000 };
	static char data[70000];
	ei_x_buff a, b;
	size_t i;
	int at;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 13);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ck_assert_int_eq(ei_x_new(&a), 0);
		ck_assert_int_eq(ei_x_new(&b), 0);
		ck_assert_int_eq(ei_x_encode_version(&a), 0);
		ck_assert_int_eq(ei_x_encode_tuple_header(&a, 2), 0);
		ck_assert_int_eq(ei_x_encode_ulong(&a, 300), 0);
		ck_assert_int_eq(ei_x_encode_binary(&a, data, (long)lens[i]),
				 0);
		at = b.index;
		ck_assert_int_eq(act__ctrl_begin_at(&b), 0);
		ck_assert_int_eq(act__codec_user_head(&b, 300, lens[i]), 0);
		ck_assert_int_eq(act__ctrl_end_at_more(&b, at, lens[i]), 0);
		/* 4 bytes of length, the pass-through byte, the term */
		ck_assert_int_eq(b.index + (int)lens[i], 5 + a.index);
		ck_assert(!memcmp(b.buff + 5, a.buff, (size_t)b.index - 5));
		ck_assert(!memcmp(a.buff + b.index - 5, data, lens[i]));
		ck_assert_uint_eq(act__term_be32((uint8_t *)b.buff),
				  (uint32_t)(1 + a.index));
		ei_x_free(&a);
		ei_x_free(&b);
	}
}
END_TEST

/* As term_to_binary({3, <<"hi">>}) and term_to_binary({2147483648,
 * <<>>}) write them; and terms that are not the user form. */
/* a literal's bytes and their count, without the NUL */
#define B(s) s, sizeof(s) - 1

START_TEST(user_form_bytes)
{
	static const struct {
		const char *bytes;
		size_t n;
		bool user;
		uint32_t tag;
	} cases[] = {
		{ B("\x83\x68\x02\x61\x03\x6d\0\0\0\x02hi"), true, 3 },
		{ B("\x83\x68\x02\x62\0\0\x01\0\x6d\0\0\0\0"), true, 256 },
		{ B("\x83\x68\x02\x6e\x04\x00\0\0\0\x80\x6d\0\0\0\0"), true,
		  0x80000000u },
		/* a negative tag */
		{ B("\x83\x68\x02\x6e\x01\x01\x05\x6d\0\0\0\0"), false, 0 },
		{ B("\x83\x68\x02\x62\xff\xff\xff\xff\x6d\0\0\0\0"), false, 0 },
		/* a tag of the runtime's */
		{ B("\x83\x68\x02\x6e\x04\x00\0\xff\xff\xff\x6d\0\0\0\0"),
		  false, 0 },
		/* a 5-byte tag */
		{ B("\x83\x68\x02\x6e\x05\x00\0\0\0\0\x01\x6d\0\0\0\0"), false,
		  0 },
		/* {3, <<"hi">>, x}, {x, <<>>}, {3, "hi"}, [3] */
		{ B("\x83\x68\x03\x61\x03\x6d\0\0\0\x02hi\x77\x01x"), false,
		  0 },
		{ B("\x83\x68\x02\x77\x01x\x6d\0\0\0\0"), false, 0 },
		{ B("\x83\x68\x02\x61\x03\x6b\0\x02hi"), false, 0 },
		{ B("\x83\x6c\0\0\0\x01\x61\x03\x6a"), false, 0 },
		/* the binary's length other than the bytes left */
		{ B("\x83\x68\x02\x61\x03\x6d\0\0\0\x03hi"), false, 0 },
		{ B("\x83\x68\x02\x61\x03\x6d\0\0\0\x01hi"), false, 0 },
		/* no version byte */
		{ B("\x68\x02\x61\x03\x6d\0\0\0\0"), false, 0 },
	};
	const char *p;
	uint32_t tag;
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = act__codec_user_decode(cases[i].bytes, cases[i].n,
						  &tag, &p, &len);

		ck_assert_msg(got == cases[i].user, "case %zu", i);
		if (got)
			ck_assert_uint_eq(tag, cases[i].tag);
	}
}
END_TEST

static Suite *dist_codec_suite(void)
{
	Suite *s = suite_create("dist_codec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pids);
	tcase_add_test(tc, user_form);
	tcase_add_test(tc, user_head_then_body);
	tcase_add_test(tc, user_form_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_codec_suite());
}
