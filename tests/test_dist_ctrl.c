/* SPDX-License-Identifier: MIT */
/*
 * test_dist_ctrl.c - lib/dist/ctrl.c: every control message written and
 * read back (pids, names, ids, references, reasons and messages where
 * they lie in the frame), and each malformed frame refused with its
 * reason: a distribution header, a frame that is not pass-through, a
 * control message that is no tuple, of an unknown operation, of the
 * wrong size, with a field of the wrong type, terms cut short or bytes
 * past them, a send with no message.
 */
#include "testutil.h"
#include "dist/ctrl.h"
#include "dist/term.h"

static struct act__peers peers;
static const struct act__codec_self me = { "me@host", 77 };
static act_pid erl_pid;

static void setup(void)
{
	struct act__peer *nd;
	struct act__rpid r = { 12, 0, 5 };

	act__peers_init(&peers);
	ck_assert_int_eq(act__peers_get(&peers, "erl@host", 8, &nd), 0);
	ck_assert_int_eq(act__peers_pid_get(nd, &r, &erl_pid), 0);
}

static void teardown(void)
{
	act__peers_fini(&peers);
}

/* b's frame decoded, its length word checked */
static int decode(ei_x_buff *b, struct act__ctrl *c, const char **why)
{
	uint32_t n = (uint32_t)(uint8_t)b->buff[0] << 24 |
		     (uint32_t)(uint8_t)b->buff[1] << 16 |
		     (uint32_t)(uint8_t)b->buff[2] << 8 | (uint8_t)b->buff[3];

	ck_assert_uint_eq(n, (uint32_t)b->index - 4);
	*why = NULL;
	return act__ctrl_decode(b->buff + 4, n, &peers, &me, c, why);
}

START_TEST(round_trips)
{
	static const enum act__ctrl_op plain[] = { ACT__CTRL_LINK,
						   ACT__CTRL_UNLINK_ID,
						   ACT__CTRL_UNLINK_ID_ACK };
	act_pid local = { 42 };
	struct act__ctrl c;
	const char *why, *p;
	erlang_ref ref = { .len = 3, .n = { 1, 2, 3 }, .creation = 77 };
	uint32_t tag;
	size_t i, len;
	ei_x_buff b;

	strcpy(ref.node, "me@host");
	ck_assert_int_eq(ei_x_new(&b), 0);
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		ck_assert_int_eq(act__ctrl_begin(&b), 0);
		ck_assert_int_eq(act__ctrl_encode(&b, &peers, &me, plain[i],
						  local, erl_pid, 1ull << 40),
				 0);
		act__ctrl_end(&b);
		ck_assert_int_eq(decode(&b, &c, &why), 0);
		ck_assert_int_eq(c.op, plain[i]);
		ck_assert(act_pid_eq(c.from, local));
		ck_assert(act_pid_eq(c.to, erl_pid));
		if (plain[i] != ACT__CTRL_LINK)
			ck_assert_uint_eq(c.id, 1ull << 40);
		ck_assert_ptr_null(c.msg);
	}
	/* EXIT with a reason; EXIT2 */
	ck_assert_int_eq(act__ctrl_begin(&b), 0);
	ck_assert_int_eq(act__ctrl_encode(&b, &peers, &me, ACT__CTRL_EXIT,
					  erl_pid, local, 0),
			 0);
	ei_x_encode_atom(&b, "killed");
	act__ctrl_end(&b);
	ck_assert_int_eq(decode(&b, &c, &why), 0);
	ck_assert_int_eq(c.op, ACT__CTRL_EXIT);
	ck_assert(act_pid_eq(c.from, erl_pid));
	ck_assert_uint_eq(c.reason_len, 8);
	ck_assert(!memcmp(c.reason + 2, "killed", 6));
	/* SEND_SENDER and its message */
	ck_assert_int_eq(act__ctrl_begin(&b), 0);
	ck_assert_int_eq(act__ctrl_encode(&b, &peers, &me,
					  ACT__CTRL_SEND_SENDER, local, erl_pid,
					  0),
			 0);
	ck_assert_int_eq(act__codec_user_encode(&b, 5, "hello", 5), 0);
	act__ctrl_end(&b);
	ck_assert_int_eq(decode(&b, &c, &why), 0);
	ck_assert_int_eq(c.op, ACT__CTRL_SEND_SENDER);
	ck_assert(act__codec_user_decode(c.msg, c.msg_len, &tag, &p, &len));
	ck_assert_uint_eq(tag, 5);
	ck_assert_uint_eq(len, 5);
	ck_assert(!memcmp(p, "hello", 5));
	/* REG_SEND to a name */
	ck_assert_int_eq(act__ctrl_begin(&b), 0);
	ck_assert_int_eq(act__ctrl_encode_reg_send(&b, &peers, &me, local,
						   "kv_shard"),
			 0);
	ck_assert_int_eq(act__codec_user_encode(&b, 1, "", 0), 0);
	act__ctrl_end(&b);
	ck_assert_int_eq(decode(&b, &c, &why), 0);
	ck_assert_int_eq(c.op, ACT__CTRL_REG_SEND);
	ck_assert_str_eq(c.name, "kv_shard");
	ck_assert(act_pid_eq(c.to, ACT_PID_NONE));
	/* the monitors */
	ck_assert_int_eq(act__ctrl_begin(&b), 0);
	ck_assert_int_eq(act__ctrl_encode_monitor(&b, &peers, &me,
						  ACT__CTRL_MONITOR_P, local,
						  erl_pid, &ref),
			 0);
	act__ctrl_end(&b);
	ck_assert_int_eq(decode(&b, &c, &why), 0);
	ck_assert_int_eq(c.op, ACT__CTRL_MONITOR_P);
	ck_assert_int_eq(c.ref.len, 3);
	ck_assert_uint_eq(c.ref.n[2], 3);
	ck_assert_str_eq(c.ref.node, "me@host");
	ck_assert_int_eq(act__ctrl_begin(&b), 0);
	ck_assert_int_eq(act__ctrl_encode_monitor(&b, &peers, &me,
						  ACT__CTRL_MONITOR_P_EXIT,
						  erl_pid, local, &ref),
			 0);
	ei_x_encode_atom(&b, "noproc");
	act__ctrl_end(&b);
	ck_assert_int_eq(decode(&b, &c, &why), 0);
	ck_assert_int_eq(c.op, ACT__CTRL_MONITOR_P_EXIT);
	ck_assert(act_pid_eq(c.from, erl_pid));
	ck_assert(!memcmp(c.reason + 2, "noproc", 6));
	ei_x_free(&b);
}
END_TEST

/* a MONITOR_P by name, as a peer writes it: {19, From, Name, Ref} */
START_TEST(monitor_by_name)
{
	erlang_pid from = { .num = 12, .serial = 0, .creation = 5 };
	erlang_ref ref = { .len = 1, .n = { 9 }, .creation = 5 };
	struct act__ctrl c;
	const char *why;
	ei_x_buff b;

	strcpy(from.node, "erl@host");
	strcpy(ref.node, "erl@host");
	ck_assert_int_eq(ei_x_new(&b), 0);
	act__ctrl_begin(&b);
	ei_x_encode_version(&b);
	ei_x_encode_tuple_header(&b, 4);
	ei_x_encode_long(&b, ACT__CTRL_MONITOR_P);
	ei_x_encode_pid(&b, &from);
	ei_x_encode_atom(&b, "server");
	ei_x_encode_ref(&b, &ref);
	act__ctrl_end(&b);
	ck_assert_int_eq(decode(&b, &c, &why), 0);
	ck_assert(act_pid_eq(c.from, erl_pid));
	ck_assert(act_pid_eq(c.to, ACT_PID_NONE));
	ck_assert_str_eq(c.name, "server");
	ei_x_free(&b);
}
END_TEST

/* A frame made of a control tuple's parts, for the refusals. */
static void frame(ei_x_buff *b, long op, int arity, int fields, bool with_msg)
{
	erlang_pid from = { .num = 12, .serial = 0, .creation = 5 };
	int k;

	strcpy(from.node, "erl@host");
	act__ctrl_begin(b);
	ei_x_encode_version(b);
	ei_x_encode_tuple_header(b, arity);
	ei_x_encode_long(b, op);
	for (k = 0; k < fields; k++)
		ei_x_encode_pid(b, &from);
	if (with_msg)
		act__codec_user_encode(b, 1, "x", 1);
	act__ctrl_end(b);
}

static void refused(ei_x_buff *b, const char *reason)
{
	struct act__ctrl c;
	const char *why;

	ck_assert_int_eq(decode(b, &c, &why), -EINVAL);
	ck_assert_msg(why && !strcmp(why, reason), "'%s', not '%s'",
		      why ? why : "(none)", reason);
}

START_TEST(refusals)
{
	struct act__ctrl c;
	const char *why;
	ei_x_buff b;

	ck_assert_int_eq(ei_x_new(&b), 0);
	ck_assert_int_eq(act__ctrl_decode("\x83\x44\0", 3, &peers, &me, &c,
					  &why),
			 -EINVAL);
	ck_assert_str_eq(why, "a distribution header, and no atom cache was "
			      "negotiated");
	ck_assert_int_eq(act__ctrl_decode("q", 1, &peers, &me, &c, &why),
			 -EINVAL);
	ck_assert_str_eq(why, "a frame that is not pass-through (112)");
	ck_assert_int_eq(act__ctrl_decode("p", 1, &peers, &me, &c, &why),
			 -EINVAL);
	ck_assert_str_eq(why, "a frame with no control message");
	ck_assert_int_eq(act__ctrl_decode("p\x61\x01", 3, &peers, &me, &c,
					  &why),
			 -EINVAL);
	ck_assert_str_eq(why, "a term without its version byte");
	frame(&b, 99, 3, 2, false);
	refused(&b, "a control message that is not a tuple of a known "
		    "operation");
	frame(&b, ACT__CTRL_LINK, 4, 3, false);
	refused(&b, "a control message of the wrong size for its operation");
	frame(&b, ACT__CTRL_SEND_SENDER, 3, 2, false);
	refused(&b, "a send with no message");
	frame(&b, ACT__CTRL_LINK, 3, 2, true);
	refused(&b, "bytes past the frame's terms");
	/* an unlink id that is a pid */
	frame(&b, ACT__CTRL_UNLINK_ID, 4, 3, false);
	refused(&b, "an unlink id that is not an integer of 64 bits");
	/* a link to an atom */
	act__ctrl_begin(&b);
	ei_x_encode_version(&b);
	ei_x_encode_tuple_header(&b, 3);
	ei_x_encode_long(&b, ACT__CTRL_LINK);
	ei_x_encode_atom(&b, "a");
	ei_x_encode_atom(&b, "b");
	act__ctrl_end(&b);
	refused(&b, "a control message's pid that is not one");
	/* a control term cut short: the frame's length one byte short */
	frame(&b, ACT__CTRL_LINK, 3, 2, false);
	ck_assert_int_eq(act__ctrl_decode(b.buff + 4, (size_t)b.index - 5,
					  &peers, &me, &c, &why),
			 -EINVAL);
	ck_assert_str_eq(why, "term cut short");
	ei_x_free(&b);
}
END_TEST

static Suite *dist_ctrl_suite(void)
{
	Suite *s = suite_create("dist_ctrl");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, round_trips);
	tcase_add_test(tc, monitor_by_name);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_ctrl_suite());
}
