/* SPDX-License-Identifier: MIT */
/*
 * test_call.c - act_make_ref, act_call and act_reply (lib/actor/call.c,
 * doc/design/call.md): the round trip, the timeout, a dead and a stale
 * pid, a server that dies in the call, a late reply that never shows,
 * older messages kept in order, nested calls, many callers at 1, 2 and
 * 4 workers, and no monitor or DOWN left behind.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "testrt.h"

enum { T_ADD = 1, T_HOLD, T_GO, T_DONE, T_DIE, T_STOP, T_NEST, T_MINE };

static uint64_t u64_of(const struct act_msg *m)
{
	uint64_t v;

	ck_assert_uint_eq(m->len, sizeof(v));
	memcpy(&v, m->data, sizeof(v));
	return v;
}

static void reply_u64(const struct act_msg *req, uint64_t v)
{
	ck_assert_int_eq(act_reply(req, T_ADD, &v, sizeof(v)), 0);
}

/*
 * The server: T_ADD v replies v + 1; T_HOLD keeps its request until
 * T_GO, then replies to it and sends its caller T_DONE; T_DIE exits
 * with the reason it carries; T_NEST v calls the pid arg names with v
 * and replies its answer + 1; T_STOP ends it.
 */
static void server(void *arg)
{
	struct act_msg *m, *held = NULL, *r;
	uint64_t v;
	int rc;

	for (;;) {
		m = act_receive(ACT_FOREVER);
		switch (m->tag) {
		case T_ADD:
			ck_assert_uint_ne(m->ref, 0);
			reply_u64(m, u64_of(m) + 1);
			break;
		case T_HOLD:
			held = m;
			continue;
		case T_GO:
			ck_assert_ptr_nonnull(held);
			v = 1000; /* a caller gone: -ESRCH */
			rc = act_reply(held, T_ADD, &v, sizeof(v));
			ck_assert(rc == 0 || rc == -ESRCH);
			rc = act_send(held->from, T_DONE, NULL, 0);
			ck_assert(rc == 0 || rc == -ESRCH);
			act_msg_free(held);
			held = NULL;
			break;
		case T_DIE:
			act_exit((intptr_t)u64_of(m));
		case T_NEST:
			v = u64_of(m);
			ck_assert_int_eq(act_call(*(act_pid *)arg, T_ADD, &v,
						  sizeof(v), ACT_FOREVER, &r),
					 0);
			reply_u64(m, u64_of(r) + 1);
			act_msg_free(r);
			break;
		case T_STOP:
			act_msg_free(m);
			return;
		}
		act_msg_free(m);
	}
}

static int call_u64(act_pid to, uint32_t tag, uint64_t v, int64_t t,
		    uint64_t *out)
{
	struct act_msg *r;
	int rc = act_call(to, tag, &v, sizeof(v), t, &r);

	if (rc == 0) {
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->tag, T_ADD);
		ck_assert_uint_eq(r->from.id, to.id);
		ck_assert_uint_ne(r->ref, 0);
		*out = u64_of(r);
		act_msg_free(r);
	} else if (rc != -ECONNRESET) {
		ck_assert_ptr_null(r);
	}
	return rc;
}

static void stop(act_pid s)
{
	ck_assert_int_eq(act_send(s, T_STOP, NULL, 0), 0);
	ck_assert(tu_wait_gone(s));
}

/* Nothing in the mailbox: no DOWN, no reply, nothing. */
static void assert_empty(void)
{
	struct act_msg *m = act_receive(0);

	ck_assert_msg(!m, "left in the mailbox: tag %#x", m ? m->tag : 0);
}

/* ---- the basics ---------------------------------------------------- */

static bool match_none(const struct act_msg *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return false;
}

static void basics_main(void *arg)
{
	act_pid s = tu_spawn(server, NULL), dead;
	struct act_msg *m;
	uint64_t v = 0, a, b;
	int i;

	(void)arg;
	ck_assert_int_eq(call_u64(s, T_ADD, 41, ACT_FOREVER, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(call_u64(s, T_ADD, 1, TU_WAIT, &v), 0);
	ck_assert_uint_eq(v, 2);
	/* act_send's messages carry ref 0 */
	ck_assert_int_eq(act_send(act_self(), T_MINE, NULL, 0), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->ref, 0);
	ck_assert_int_eq(act_reply(m, T_ADD, NULL, 0), -EINVAL);
	act_msg_free(m);
	/* bad calls */
	ck_assert_int_eq(act_call(s, T_ADD, NULL, 0, 0, NULL), -EINVAL);
	ck_assert_int_eq(act_call(s, ACT_TAG_DOWN, NULL, 0, 0, &m), -EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(act_call(act_self(), T_ADD, NULL, 0, 0, &m), -EDEADLK);
	ck_assert_int_eq(act_reply(NULL, T_ADD, NULL, 0), -EINVAL);
	/* references: unique, never 0 */
	a = act_make_ref();
	b = act_make_ref();
	ck_assert_uint_ne(a, 0);
	ck_assert_uint_ne(a, b);

	/* older messages, saved and queued, stay, in order */
	for (i = 1; i <= 2; i++)
		ck_assert_int_eq(act_send(act_self(), T_MINE, &i, sizeof(i)),
				 0);
	ck_assert_ptr_null(act_receive_match(match_none, NULL, 0));
	for (i = 3; i <= 4; i++)
		ck_assert_int_eq(act_send(act_self(), T_MINE, &i, sizeof(i)),
				 0);
	ck_assert_int_eq(call_u64(s, T_ADD, 7, ACT_FOREVER, &v), 0);
	ck_assert_uint_eq(v, 8);
	for (i = 1; i <= 4; i++) {
		m = act_receive(0);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, T_MINE);
		ck_assert_int_eq(*(int *)m->data, i);
		act_msg_free(m);
	}

	/* the timeout; then the late reply never shows, before or in the
	 * next call (the server replies to the first request before it
	 * sends T_DONE, I7) */
	ck_assert_int_eq(call_u64(s, T_HOLD, 0, 10 * TU_MS, &v), -ETIMEDOUT);
	ck_assert_int_eq(act_send(s, T_GO, NULL, 0), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, T_DONE);
	act_msg_free(m);
	ck_assert_int_eq(call_u64(s, T_HOLD, 0, 0, &v), -ETIMEDOUT);
	ck_assert_int_eq(act_send(s, T_GO, NULL, 0), 0);
	ck_assert_int_eq(call_u64(s, T_ADD, 5, ACT_FOREVER, &v), 0);
	ck_assert_uint_eq(v, 6); /* not the late 1000 */
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, T_DONE);
	act_msg_free(m);
	assert_empty();

	/* no monitor left: the server's exit sends no DOWN */
	stop(s);
	assert_empty();

	/* a dead pid, a stale one, none */
	dead = s;
	ck_assert_int_eq(call_u64(dead, T_ADD, 1, TU_WAIT, &v), -ESRCH);
	s = tu_spawn(server, NULL);
	ck_assert_int_eq(call_u64((act_pid){ s.id ^ ((uint64_t)1 << 62) },
				  T_ADD, 1, TU_WAIT, &v),
			 -ESRCH);
	ck_assert_int_eq(call_u64(ACT_PID_NONE, T_ADD, 1, TU_WAIT, &v), -ESRCH);
	assert_empty();

	/* the server dies in the call: its reason, and no DOWN after */
	ck_assert_int_eq(act_call(s, T_DIE, &(uint64_t){ 77 }, 8, ACT_FOREVER,
				  &m),
			 -ECONNRESET);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	ck_assert_uint_eq(((struct act_exit_info *)m->data)->who.id, s.id);
	ck_assert_int_eq(((struct act_exit_info *)m->data)->reason, 77);
	act_msg_free(m);
	ck_assert(tu_wait_gone(s));
	assert_empty();
}

START_TEST(basics)
{
	struct act_config cfg = tu_with_workers(_i ? 2 : 1);

	ck_assert_int_eq(tu_run_main(&cfg, basics_main, NULL), 0);
}
END_TEST

/* Outside a process: no mailbox for the reply. */
START_TEST(outside)
{
	struct act_msg *m = (struct act_msg *)1;

	ck_assert_int_eq(act_call((act_pid){ 1 }, T_ADD, NULL, 0, 0, &m),
			 -EPERM);
	ck_assert_ptr_null(m);
	ck_assert_uint_ne(act_make_ref(), 0);
}
END_TEST

/* ---- nested calls and many callers --------------------------------- */

static act_pid leaf;

static void nested_main(void *arg)
{
	act_pid mid;
	uint64_t v = 0;

	(void)arg;
	leaf = tu_spawn(server, NULL);
	mid = tu_spawn(server, &leaf);
	ck_assert_int_eq(call_u64(mid, T_NEST, 10, ACT_FOREVER, &v), 0);
	ck_assert_uint_eq(v, 12);
	stop(mid);
	stop(leaf);
	assert_empty();
}

START_TEST(nested)
{
	struct act_config cfg = tu_with_workers(_i ? 2 : 1);

	ck_assert_int_eq(tu_run_main(&cfg, nested_main, NULL), 0);
}
END_TEST

#define CALLERS 8
#define CALLS (TU_UNDER_TSAN ? 200 : 2000)

static act_pid many_server;
static act_pid many_boss;

static void caller(void *arg)
{
	uint64_t i, v = 0, base = (uintptr_t)arg * 1000000;

	for (i = 0; i < CALLS; i++) {
		ck_assert_int_eq(call_u64(many_server, T_ADD, base + i,
					  ACT_FOREVER, &v),
				 0);
		ck_assert_uint_eq(v, base + i + 1);
	}
	assert_empty();
	ck_assert_int_eq(act_send(many_boss, T_DONE, NULL, 0), 0);
}

static void many_main(void *arg)
{
	struct act_msg *m;
	uintptr_t i;

	(void)arg;
	many_boss = act_self();
	many_server = tu_spawn(server, NULL);
	for (i = 0; i < CALLERS; i++)
		tu_spawn(caller, (void *)i);
	for (i = 0; i < CALLERS; i++) {
		m = act_receive(ACT_FOREVER);
		ck_assert_uint_eq(m->tag, T_DONE);
		act_msg_free(m);
	}
	stop(many_server);
}

static const int many_workers[] = { 1, 2, 4 };

START_TEST(many)
{
	struct act_config cfg = tu_with_workers(many_workers[_i]);

	ck_assert_int_eq(tu_run_main(&cfg, many_main, NULL), 0);
}
END_TEST

/* ---- a caller killed in its call ----------------------------------- */

static act_pid hold_server;

static void stuck_caller(void *arg)
{
	uint64_t v;

	(void)arg;
	call_u64(hold_server, T_HOLD, 0, ACT_FOREVER, &v);
	ck_abort_msg("the call returned");
}

static void killed_main(void *arg)
{
	act_pid c;

	(void)arg;
	hold_server = tu_spawn(server, NULL);
	c = tu_spawn(stuck_caller, NULL);
	ck_assert(tu_wait_waiting(c));
	ck_assert_int_eq(act_kill(c, ACT_EXIT_KILL), 0);
	ck_assert(tu_wait_gone(c));
	/* the late reply goes to a dead caller: dropped */
	ck_assert_int_eq(act_send(hold_server, T_GO, NULL, 0), 0);
	stop(hold_server);
}

START_TEST(killed)
{
	struct act_config cfg = tu_with_workers(_i ? 2 : 1);

	ck_assert_int_eq(tu_run_main(&cfg, killed_main, NULL), 0);
}
END_TEST

static Suite *call_suite(void)
{
	Suite *s = suite_create("call");
	TCase *tc = tcase_create("call");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, basics, 0, 2);
	tcase_add_test(tc, outside);
	tcase_add_loop_test(tc, nested, 0, 2);
	tcase_add_loop_test(tc, many, 0, 3);
	tcase_add_loop_test(tc, killed, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(call_suite());
}
