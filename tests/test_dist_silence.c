/* SPDX-License-Identifier: MIT */
/*
 * test_dist_silence.c - the silent-peer verdict (lib/dist/silence.h) on
 * real loopback TCP sockets: a peer heard within the tick time is up
 * whatever its socket holds; past it, bytes waiting in the socket mean
 * the reader is behind (d7bff04: before it, a reader whose worker was
 * held a tick time had its peer declared down with the peer's ticks
 * unread in the socket), and an empty socket, or one that cannot say,
 * means the peer is down.
 *
 * No runtime and no timing: the clock is the test's numbers, and each
 * wait for bytes to arrive is poll's, with a failure limit only.
 */
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dist/silence.h"

#define TICK 5000000000LL /* 5 s, any value */
#define T0 1000000000LL	  /* the last read's clock */

/* a connected loopback pair: fd[0] the node's end, fd[1] the peer's */
static void pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &al), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	fd[1] = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd[1], 0);
	ck_assert_int_eq(connect(fd[1], (struct sockaddr *)&a, sizeof(a)), 0);
	fd[0] = accept(l, NULL, NULL);
	ck_assert_int_ge(fd[0], 0);
	close(l);
}

static void unpair(int fd[2])
{
	close(fd[0]);
	close(fd[1]);
}

/* the peer's n bytes, in the node's socket once this returns */
static void peer_sends(int fd[2], size_t n)
{
	static const char tick[64];
	struct pollfd p = { .fd = fd[0], .events = POLLIN };

	ck_assert_uint_le(n, sizeof(tick));
	ck_assert_int_eq(send(fd[1], tick, n, 0), (ssize_t)n);
	ck_assert_int_eq(poll(&p, 1, 60000), 1); /* a failure limit */
}

START_TEST(heard_within_the_tick)
{
	int fd[2];

	pair(fd);
	ck_assert_int_eq(act__silence_check(T0, T0, TICK, fd[0]),
			 ACT__SILENCE_HEARD);
	ck_assert_int_eq(act__silence_check(T0 + TICK - 1, T0, TICK, fd[0]),
			 ACT__SILENCE_HEARD);
	/* within the tick, the socket is not looked in: a bad one too */
	ck_assert_int_eq(act__silence_check(T0 + TICK - 1, T0, TICK, -1),
			 ACT__SILENCE_HEARD);
	unpair(fd);
}
END_TEST

START_TEST(down_past_the_tick_with_nothing_waiting)
{
	int fd[2];

	pair(fd);
	ck_assert_int_eq(act__silence_check(T0 + TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_DOWN);
	ck_assert_int_eq(act__silence_check(T0 + 3 * TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_DOWN);
	unpair(fd);
}
END_TEST

START_TEST(behind_while_bytes_wait)
{
	int fd[2];
	char b[64];

	pair(fd);
	peer_sends(fd, 4); /* a tick: an empty frame, its length prefix */
	ck_assert_int_eq(act__silence_check(T0 + TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_BEHIND);
	ck_assert_int_eq(act__silence_check(T0 + 3 * TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_BEHIND);
	/* the reader catches up: the socket is empty again */
	ck_assert_int_eq(recv(fd[0], b, sizeof(b), 0), 4);
	ck_assert_int_eq(act__silence_check(T0 + TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_DOWN);
	unpair(fd);
}
END_TEST

START_TEST(closed_peer_with_nothing_waiting_is_down)
{
	int fd[2];
	struct pollfd p;

	pair(fd);
	close(fd[1]);
	p = (struct pollfd){ .fd = fd[0], .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 60000), 1); /* the end, arrived */
	ck_assert_int_eq(act__silence_check(T0 + TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_DOWN);
	close(fd[0]);
}
END_TEST

START_TEST(a_socket_that_cannot_say_is_down)
{
	int fd[2];

	ck_assert_int_eq(act__silence_check(T0 + TICK, T0, TICK, -1),
			 ACT__SILENCE_DOWN);
	pair(fd);
	close(fd[0]);
	ck_assert_int_eq(act__silence_check(T0 + TICK, T0, TICK, fd[0]),
			 ACT__SILENCE_DOWN);
	close(fd[1]);
}
END_TEST

static Suite *dist_silence_suite(void)
{
	Suite *s = suite_create("dist_silence");
	TCase *tc = tcase_create("silence");

	tcase_add_test(tc, heard_within_the_tick);
	tcase_add_test(tc, down_past_the_tick_with_nothing_waiting);
	tcase_add_test(tc, behind_while_bytes_wait);
	tcase_add_test(tc, closed_peer_with_nothing_waiting_is_down);
	tcase_add_test(tc, a_socket_that_cannot_say_is_down);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dist_silence_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
