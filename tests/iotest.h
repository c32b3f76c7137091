/* SPDX-License-Identifier: MIT */
/*
 * iotest.h - what test_io.c and test_io_kill.c, the two Check programs of
 * act_io_* and act_kill, share: waits on the I/O counters of act_stats,
 * pipes and TCP sockets on the loopback, the pipe case (test_io runs it
 * as pipe_io, test_io_kill to see a runtime start again after a stop
 * with reads in flight), a receiver to kill, and loop tests that leave
 * the suite with a SKIP line when there is no io_uring.
 * Include it after testrt.h.
 */
#ifndef ACT_IOTEST_H
#define ACT_IOTEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testrt.h"

/* The timeout of the _timeout calls that are meant to run out. */
#define TU_TMO (30 * TU_MS)

/* ---- helpers ------------------------------------------------------------ */

/* 1, 2 or 4 workers for loop tests over 0..3. */
static inline struct act_config tu_cfg_for(int i)
{
	return tu_with_workers(1 << i);
}

static inline struct act_stats tu_stats_now(void)
{
	struct act_stats st;

	ck_assert_int_ge(act_stats(&st, NULL, 0), 1);
	return st;
}

/* Sleep in 1 ms steps until at least n operations are in the kernel
 * (at most about 20 s); false if they never are. */
static inline bool tu_wait_inflight(uint64_t n)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (tu_stats_now().io_inflight >= n)
			return true;
		act_sleep(TU_MS);
	}
	return false;
}

/* The same until none is. */
static inline bool tu_wait_no_inflight(void)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (tu_stats_now().io_inflight == 0)
			return true;
		act_sleep(TU_MS);
	}
	return false;
}

/* Sleep until every pid in ps is gone (at most about 20 s). */
static inline unsigned tu_wait_all_gone(const act_pid *ps, unsigned n)
{
	unsigned i = 0, alive = n;
	int round;

	for (round = 0; round < 20000 && alive; round++) {
		for (alive = 0; i < n && !tu_lookup(ps[i]); i++)
			;
		alive = n - i;
		if (alive)
			act_sleep(TU_MS);
	}
	return alive;
}

/* The next message with this tag (others stay in the mailbox). */
static inline struct act_msg *tu_receive_tag(uint32_t tag)
{
	struct act_msg *m = act_receive_match(tu_tag_is, (void *)(uintptr_t)tag,
					      ACT_FOREVER);

	ck_assert_ptr_nonnull(m);
	return m;
}

static inline void tu_mkpipe(int p[2])
{
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
}

static inline void tu_close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

static inline int tu_unread(int fd)
{
	int n = -1;

	ck_assert_int_eq(ioctl(fd, FIONREAD, &n), 0);
	return n;
}

/* A TCP socket bound to 127.0.0.1 on a free port (in *a), listening with
 * `backlog` unless it is negative. */
static inline int tu_tcp_bound(struct sockaddr_in *a, int backlog)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(*a);

	ck_assert_int_ge(l, 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(l, (struct sockaddr *)a, sizeof(*a)), 0);
	if (backlog >= 0)
		ck_assert_int_eq(listen(l, backlog), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)a, &len), 0);
	return l;
}

static inline int tu_tcp_socket(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	return s;
}

#define TU_SA(a) ((struct sockaddr *)(a))

/* ---- pipes ----------------------------------------------------------- */

struct tu_pipe_case {
	int p[2];
	act_pid main;
};

struct tu_read_reply {
	ssize_t n;
	char buf[64];
};

static inline void tu_pipe_reader(void *arg)
{
	struct tu_pipe_case *pc = arg;
	struct tu_read_reply r;

	memset(&r, 0, sizeof(r));
	r.n = act_io_read(pc->p[0], r.buf, sizeof(r.buf), -1);
	ck_assert_int_eq(act_send(pc->main, 1, &r, sizeof(r)), 0);
}

static inline void tu_pipe_main(void *arg)
{
	struct tu_pipe_case pc = { .main = act_self() };
	struct tu_read_reply *r;
	struct act_msg *m;
	char buf[64];
	act_pid rd;

	(void)arg;
	tu_mkpipe(pc.p);
	/* ready data: written and read back at once, position -1 */
	ck_assert_int_eq(act_io_write(pc.p[1], "hello", 5, -1), 5);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, sizeof(buf), -1), 5);
	ck_assert(!memcmp(buf, "hello", 5));
	/* a reader that waits for data: it blocks, then gets it */
	rd = tu_spawn(tu_pipe_reader, &pc);
	ck_assert(tu_wait_iowait(rd));
	act_sleep(5 * TU_MS);
	ck_assert_int_eq(act_io_write(pc.p[1], "world!", 6, -1), 6);
	m = tu_receive_tag(1);
	r = m->data;
	ck_assert_int_eq(r->n, 6);
	ck_assert(!memcmp(r->buf, "world!", 6));
	act_msg_free(m);
	ck_assert(tu_wait_gone(rd));
	/* a short read takes what is there */
	ck_assert_int_eq(act_io_write(pc.p[1], "abcdef", 6, -1), 6);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, 4, -1), 4);
	ck_assert_int_eq(act_io_read(pc.p[0], buf + 4, 60, -1), 2);
	ck_assert(!memcmp(buf, "abcdef", 6));
	/* a pipe has no offsets: one is ignored */
	ck_assert_int_eq(act_io_write(pc.p[1], "o", 1, 12345), 1);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, 8, 12345), 1);
	/* closing the descriptor does not end another process's read */
	rd = tu_spawn(tu_pipe_reader, &pc);
	ck_assert(tu_wait_iowait(rd));
	ck_assert_int_eq(act_io_close(pc.p[0]), 0);
	act_sleep(5 * TU_MS);
	ck_assert(tu_wait_iowait(rd));
	ck_assert_int_eq(act_io_write(pc.p[1], "after", 5, -1), 5);
	m = tu_receive_tag(1);
	r = m->data;
	ck_assert_int_eq(r->n, 5);
	act_msg_free(m);
	ck_assert(tu_wait_gone(rd));
	ck_assert_int_eq(act_io_close(pc.p[1]), 0);
	tu_mkpipe(pc.p);
	/* end of file once the write end is closed */
	ck_assert_int_eq(act_io_close(pc.p[1]), 0);
	pc.p[1] = -1;
	ck_assert_int_eq(act_io_read(pc.p[0], buf, sizeof(buf), -1), 0);
	ck_assert_int_eq(act_io_close(pc.p[0]), 0);
	ck_assert_int_eq(fcntl(pc.p[0], F_GETFD), -1); /* really closed */
	ck_assert_uint_eq(tu_stats_now().io_inflight, 0);
}

/* ---- a process to kill: it waits in a receive --------------------------- */

struct tu_kill_basic {
	int p[2];
	int l;
	int sv[2];
	_Atomic int after; /* a victim ran past its blocking call */
	_Atomic int self_stage;
};

static inline void tu_kb_receiver(void *arg)
{
	struct tu_kill_basic *kb = arg;

	act_receive(ACT_FOREVER);
	atomic_fetch_add(&kb->after, 1);
}

/* Can this program make an io_uring at all (else its I/O cases leave)? */
static inline bool tu_have_ring(void)
{
	const char *force = getenv("ACT_TEST_RING");
	struct io_uring_params p;
	long fd;

	if (force && !strcmp(force, "none"))
		return false;
	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 2, &p);
	if (fd < 0)
		return false;
	close((int)fd);
	/* what lib/reactor/ring.c needs, else the runtime runs without a ring */
	return (p.features & (IORING_FEAT_EXT_ARG | IORING_FEAT_NODROP)) ==
	       (IORING_FEAT_EXT_ARG | IORING_FEAT_NODROP);
}

/* A loop test over workers (or variants) 0..n-1, unless there is no
 * ring: then a SKIP line instead. */
static inline void tu_add_io_loop(TCase *tc, bool no_ring, const TTest *t,
				  const char *name, int n)
{
	if (no_ring) {
		printf("SKIP: %s (no io_uring)\n", name);
		fflush(stdout); /* before Check forks */
		return;
	}
	tcase_add_loop_test(tc, t, 0, n);
}

#define TU_IO_LOOP(tc, fn, n) tu_add_io_loop(tc, no_ring, fn, #fn, n)

#endif /* ACT_IOTEST_H */
