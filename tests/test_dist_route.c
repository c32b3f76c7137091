/* SPDX-License-Identifier: MIT */
/*
 * test_dist_route.c - a send to a remote pid (lib/dist/route.c): before
 * distribution starts, to a pid no one met, to a node with no
 * connection, each refused with its own error; once a node has a
 * connection process, each send reaches it as one forward: the remote
 * pid, the sender's tag, the sender as msg.from (none from a thread of
 * no process; a timer's setter), the bytes whole, up to ACT_MSG_MAX of
 * them. A connection
 * process stands in for the real one here: a process of the test.
 */
#include <pthread.h>

#include "config.h" /* ACT_HAVE_EI */
#include "testrt.h"
#include "dist/peers.h"
#include "dist/route.h"
#include "sched/rt.h"

static act_pid remote;

/* A foreign thread's send: from no process. */
static void *foreign_send(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)act_send(remote, 9, "x", 1);
}

/* one forward received: its header and bytes checked */
static void expect_fwd(act_pid from, uint32_t tag, const void *p, size_t n)
{
	struct act_msg *m = act_receive(TU_WAIT);
	struct act__route_fwd h;

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, ACT__TAG_DIST_SEND);
	ck_assert_uint_eq(m->len, sizeof(h) + n);
	memcpy(&h, m->data, sizeof(h));
	ck_assert(act_pid_eq(h.to, remote));
	ck_assert_uint_eq(h.tag, tag);
	ck_assert(act_pid_eq(m->from, from));
	ck_assert(!memcmp((char *)m->data + sizeof(h), p, n));
	act_msg_free(m);
}

/*
 * A send to a pid of node erl, which has no connection: with libei the
 * send starts one (a connection process that dials, the send queued in
 * its mailbox) and succeeds; here the node cannot be reached (a setup
 * time of 0: distribution was started without act_dist_start), so the
 * connection process gives up and takes its pid off the node. Without
 * libei there is no connection to make: -ENOTCONN.
 */
static void no_connection(struct act__peer *erl)
{
#if ACT_HAVE_EI
	int i;

	ck_assert_int_eq(act_send(remote, 1, "a", 1), 0);
	/* acquire: pairs with the release stores of proxy (conn.c) */
	ck_assert_uint_ne(
		atomic_load_explicit(&erl->proxy, memory_order_acquire), 0);
	for (i = 0; i < 100000 &&
		    atomic_load_explicit(&erl->proxy, memory_order_acquire);
	     i++)
		act_sleep(TU_MS);
	ck_assert_uint_eq(
		atomic_load_explicit(&erl->proxy, memory_order_acquire), 0);
#else
	ck_assert_int_eq(act_send(remote, 1, "a", 1), -ENOTCONN);
#endif
}

static void route_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	struct act__rpid r = { 7, 3, 99 };
	struct act__peer *erl;
	struct act__dist *d;
	pthread_t t;
	void *rc;
	char *big;

	(void)arg;
	/* not started: as any pid no slot holds */
	ck_assert_int_eq(act_send(act__peers_pid_make(1, 0), 1, "a", 1),
			 -ESRCH);
	ck_assert_int_eq(act__route_start(rt, "me@host", 5), 0);
	ck_assert_int_eq(act__route_start(rt, "me@host", 5), -EALREADY);
	d = act__route_dist(rt);
	ck_assert_int_eq(act__peers_get(&d->peers, "erl@host", 8, &erl), 0);
	/* a pid of the node that no term named yet */
	ck_assert_int_eq(act_send(act__peers_pid_make(erl->num, 0), 1, "a", 1),
			 -ESRCH);
	ck_assert_int_eq(act__peers_pid_get(erl, &r, &remote), 0);
	/* met, but its node has no connection */
	no_connection(erl);
	/* this process stands for the node's connection */
	act__route_set_proxy(erl, act_self());
	ck_assert_int_eq(act_send(remote, 7, "hello", 5), 0);
	expect_fwd(act_self(), 7, "hello", 5);
	ck_assert_int_eq(act_send(remote, 0, NULL, 0), 0);
	expect_fwd(act_self(), 0, "", 0);
	ck_assert_int_eq(pthread_create(&t, NULL, foreign_send, NULL), 0);
	pthread_join(t, &rc);
	ck_assert_int_eq((intptr_t)rc, 0);
	expect_fwd(ACT_PID_NONE, 9, "x", 1);
	/* a timer's message: from the process that set it */
	ck_assert_int_eq(act_send_after(TU_MS, remote, 4, "later", 5, NULL), 0);
	expect_fwd(act_self(), 4, "later", 5);
	/* the largest message, and one past it */
	big = malloc(ACT_MSG_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'b', ACT_MSG_MAX + 1);
	ck_assert_int_eq(act_send(remote, 3, big, ACT_MSG_MAX), 0);
	expect_fwd(act_self(), 3, big, ACT_MSG_MAX);
	ck_assert_int_eq(act_send(remote, 3, big, ACT_MSG_MAX + 1), -EMSGSIZE);
	free(big);
	/* the connection gone */
	act__route_set_proxy(erl, ACT_PID_NONE);
	no_connection(erl);
	/* a reserved tag stays refused, remote or not */
	ck_assert_int_eq(act_send(remote, ACT_TAG_RESERVED, "a", 1), -EINVAL);
}

START_TEST(route)
{
	struct act_config cfg = tu_with_workers(2);

	ck_assert_int_eq(tu_run_main(&cfg, route_main, NULL), 0);
}
END_TEST

static Suite *dist_route_suite(void)
{
	Suite *s = suite_create("dist_route");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, route);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(dist_route_suite());
}
