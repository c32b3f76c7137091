/* SPDX-License-Identifier: MIT */
/*
 * test_io.c - act_io_* on the reactor's io_uring ring, as processes see
 * them: pipes, socket pairs, TCP on the loopback and regular files; poll
 * revents; errors as -errno; the _timeout forms; other processes running
 * while one waits, and messages that do not end the wait; the I/O
 * counters of act_stats; -ENOSYS without a ring and -EPERM outside a
 * process. act_kill and the limits (descriptors, a ring of one entry,
 * signals at the reactor) are test_io_kill.c's; iotest.h holds the
 * helpers both use.
 *
 * Nothing here asserts how long an operation took, only that a timeout
 * never ends a wait early and that nothing is lost. When this program
 * runs without io_uring (ACT_TEST_RING=none, or a kernel without it), the
 * cases that need a ring leave the suite with a SKIP line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testrt.h"
#include "iotest.h"

#include "reactor/reactor.h"

/* ---- helpers ------------------------------------------------------------ */

/* Fill a pipe's or a socket's buffer until a write would block; fd stays
 * blocking. */
static void fill_up(int fd, bool sock)
{
	static const size_t sizes[] = { 65536, 4096, 512, 1 };
	static char junk[65536];
	int fl = fcntl(fd, F_GETFL);
	unsigned i;

	ck_assert_int_eq(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		while ((sock ? send(fd, junk, sizes[i], MSG_DONTWAIT) :
			       write(fd, junk, sizes[i])) > 0)
			;
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(fcntl(fd, F_SETFL, fl), 0);
}

/* ---- pipes (tu_pipe_main and its reader are in iotest.h) --------------- */

START_TEST(pipe_io)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, tu_pipe_main, NULL), 0);
}
END_TEST

/* ---- socket pairs ------------------------------------------------------ */

struct sp_case {
	int sv[2];
	act_pid main;
};

static void sp_waitall(void *arg)
{
	struct sp_case *sc = arg;
	struct tu_read_reply r;

	memset(&r, 0, sizeof(r));
	r.n = act_io_recv(sc->sv[1], r.buf, 8, MSG_WAITALL);
	ck_assert_int_eq(act_send(sc->main, 2, &r, sizeof(r)), 0);
}

static void socketpair_main(void *arg)
{
	struct sp_case sc = { .main = act_self() };
	struct tu_read_reply *r;
	struct act_msg *m;
	char buf[64];
	act_pid rd;

	(void)arg;
	ck_assert_int_eq(
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sc.sv), 0);
	ck_assert_int_eq(act_io_send(sc.sv[0], "ping", 4, 0), 4);
	/* MSG_PEEK leaves it, a plain recv takes it, MSG_DONTWAIT does
	 * not wait */
	ck_assert_int_eq(act_io_recv(sc.sv[1], buf, sizeof(buf), MSG_PEEK), 4);
	ck_assert_int_eq(act_io_recv(sc.sv[1], buf, sizeof(buf), 0), 4);
	ck_assert(!memcmp(buf, "ping", 4));
	ck_assert_int_eq(act_io_recv(sc.sv[1], buf, sizeof(buf), MSG_DONTWAIT),
			 -EAGAIN);
	/* MSG_WAITALL: the recv waits for all 8 bytes, sent in two parts
	 * while it waits */
	rd = tu_spawn(sp_waitall, &sc);
	ck_assert(tu_wait_iowait(rd));
	ck_assert_int_eq(act_io_send(sc.sv[0], "0123", 4, 0), 4);
	act_sleep(5 * TU_MS);
	ck_assert_int_eq(act_io_send(sc.sv[0], "4567", 4, MSG_NOSIGNAL), 4);
	m = tu_receive_tag(2);
	r = m->data;
	ck_assert_int_eq(r->n, 8);
	ck_assert(!memcmp(r->buf, "01234567", 8));
	act_msg_free(m);
	/* the other way round */
	ck_assert_int_eq(act_io_send(sc.sv[1], "pong", 4, 0), 4);
	ck_assert_int_eq(act_io_recv(sc.sv[0], buf, sizeof(buf), 0), 4);
	ck_assert(!memcmp(buf, "pong", 4));
	/* the peer gone: recv sees end of file, send EPIPE */
	ck_assert_int_eq(act_io_close(sc.sv[1]), 0);
	ck_assert_int_eq(act_io_recv(sc.sv[0], buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(act_io_send(sc.sv[0], "x", 1, MSG_NOSIGNAL), -EPIPE);
	ck_assert_int_eq(act_io_close(sc.sv[0]), 0);
}

START_TEST(socketpair_io)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, socketpair_main, NULL), 0);
}
END_TEST

/* ---- TCP on the loopback: accept, connect, send, recv, close ----------- */

#define TCP_CLIENTS 8
#define TCP_ROUNDS 50
#define TCP_MSG 100

struct tcp_case {
	int l;
	struct sockaddr_in a;
	act_pid main;
	_Atomic unsigned bad;
};

struct tcp_conn {
	struct tcp_case *tc;
	int fd;
};

static struct tcp_conn tcp_conns[TCP_CLIENTS];

/* Echo until the client closes (recv returns 0), then close. */
static void tcp_handler(void *arg)
{
	struct tcp_conn *c = arg;
	char buf[512];
	ssize_t n, total = 0;
	unsigned bad = 0;

	while ((n = act_io_recv(c->fd, buf, sizeof(buf), 0)) > 0) {
		total += n;
		bad += act_io_send(c->fd, buf, (size_t)n, MSG_NOSIGNAL) != n;
	}
	bad += n != 0;
	bad += total != TCP_ROUNDS * TCP_MSG;
	bad += act_io_close(c->fd) != 0;
	atomic_fetch_add(&c->tc->bad, bad);
	ck_assert_int_eq(act_send(c->tc->main, 3, NULL, 0), 0);
}

static void tcp_acceptor(void *arg)
{
	struct tcp_case *tc = arg;
	struct sockaddr_in peer;
	socklen_t plen;
	unsigned i, bad = 0;
	int fd, fl;

	for (i = 0; i < TCP_CLIENTS; i++) {
		memset(&peer, 0, sizeof(peer));
		plen = sizeof(peer);
		if (i == 0) /* no address wanted */
			fd = act_io_accept(tc->l, NULL, NULL, SOCK_CLOEXEC);
		else
			fd = act_io_accept(tc->l, TU_SA(&peer), &plen,
					   i % 2 ? SOCK_CLOEXEC |
							   SOCK_NONBLOCK :
						   SOCK_CLOEXEC);
		ck_assert_int_ge(fd, 0);
		bad += !(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		fl = fcntl(fd, F_GETFL);
		bad += !!(fl & O_NONBLOCK) != (i % 2 == 1);
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		if (i) {
			bad += plen != sizeof(peer);
			bad += peer.sin_family != AF_INET;
			bad += peer.sin_addr.s_addr != htonl(INADDR_LOOPBACK);
		}
		tcp_conns[i] = (struct tcp_conn){ tc, fd };
		tu_spawn(tcp_handler, &tcp_conns[i]);
	}
	atomic_fetch_add(&tc->bad, bad);
	ck_assert_int_eq(act_send(tc->main, 4, NULL, 0), 0);
}

static void tcp_client(void *arg)
{
	struct tcp_case *tc = arg;
	unsigned char out[TCP_MSG], in[TCP_MSG];
	unsigned r, bad = 0, k = (unsigned)act_self().id;
	ssize_t n, got;
	int s = tu_tcp_socket();

	ck_assert_int_eq(act_io_connect(s, TU_SA(&tc->a), sizeof(tc->a)), 0);
	for (r = 0; r < TCP_ROUNDS; r++) {
		memset(out, (int)(k * 31 + r) & 0xff, sizeof(out));
		out[0] = (unsigned char)r;
		bad += act_io_send(s, out, sizeof(out), MSG_NOSIGNAL) !=
		       (ssize_t)sizeof(out);
		for (got = 0; got < TCP_MSG; got += n) {
			n = act_io_recv(s, in + got, TCP_MSG - (size_t)got, 0);
			if (n <= 0) {
				bad++;
				break;
			}
		}
		bad += memcmp(in, out, sizeof(in)) != 0;
	}
	bad += act_io_close(s) != 0;
	atomic_fetch_add(&tc->bad, bad);
	ck_assert_int_eq(act_send(tc->main, 5, NULL, 0), 0);
}

static void tcp_main(void *arg)
{
	static struct tcp_case tc;
	unsigned i;

	(void)arg;
	tc.main = act_self();
	atomic_store(&tc.bad, 0);
	tc.l = tu_tcp_bound(&tc.a, 64);
	tu_spawn(tcp_acceptor, &tc);
	for (i = 0; i < TCP_CLIENTS; i++)
		tu_spawn(tcp_client, &tc);
	act_msg_free(tu_receive_tag(4));
	for (i = 0; i < TCP_CLIENTS; i++) {
		act_msg_free(tu_receive_tag(5));
		act_msg_free(tu_receive_tag(3));
	}
	ck_assert_uint_eq(atomic_load(&tc.bad), 0);
	ck_assert_int_eq(act_io_close(tc.l), 0);
	ck_assert(tu_wait_no_inflight());
}

START_TEST(tcp_loopback)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, tcp_main, NULL), 0);
}
END_TEST

/* ---- regular files: offsets and the file position -------------------- */

#define FILE_PROCS 32
#define FILE_BLOCK 4096

struct file_case {
	int fd;
	act_pid main;
};

struct file_writer {
	struct file_case *fc;
	unsigned i;
};

/* Each writes its own block at its own offset, then reads it back. */
static void file_writer(void *arg)
{
	struct file_writer *fw = arg;
	unsigned char out[FILE_BLOCK], in[FILE_BLOCK];
	int64_t off = (int64_t)fw->i * FILE_BLOCK;
	unsigned bad = 0;

	memset(out, 'A' + (int)(fw->i % 26), sizeof(out));
	bad += act_io_write(fw->fc->fd, out, sizeof(out), off) != FILE_BLOCK;
	bad += act_io_read(fw->fc->fd, in, sizeof(in), off) != FILE_BLOCK;
	bad += memcmp(in, out, sizeof(in)) != 0;
	ck_assert_int_eq(act_send(fw->fc->main, 6, &bad, sizeof(bad)), 0);
}

static void file_main(void *arg)
{
	static struct file_writer fw[FILE_PROCS];
	char dir[] = "/tmp/act-io-XXXXXX", path[64], buf[256];
	struct file_case fc = { .main = act_self() };
	unsigned i, bad = 0;
	struct act_msg *m;
	struct stat st;
	int zeros = 0;

	(void)arg;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	fc.fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_int_ge(fc.fd, 0);
	/* at offsets: a hole between reads back as zeros */
	ck_assert_int_eq(act_io_write(fc.fd, "0123456789", 10, 0), 10);
	ck_assert_int_eq(act_io_write(fc.fd, "abc", 3, 100), 3);
	ck_assert_int_eq(fstat(fc.fd, &st), 0);
	ck_assert_int_eq(st.st_size, 103);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(act_io_read(fc.fd, buf, sizeof(buf), 0), 103);
	ck_assert(!memcmp(buf, "0123456789", 10));
	for (i = 10; i < 100; i++)
		zeros += buf[i] == 0;
	ck_assert_int_eq(zeros, 90);
	ck_assert(!memcmp(buf + 100, "abc", 3));
	ck_assert_int_eq(act_io_read(fc.fd, buf, 3, 5), 3);
	ck_assert(!memcmp(buf, "567", 3));
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, 103), 0); /* EOF */
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, 1000), 0);
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, -2), -EINVAL);
	ck_assert_int_eq(act_io_write(fc.fd, "x", 1, -2), -EINVAL);
	/* offset -1: the file position, which it moves; offsets don't */
	ck_assert_int_eq(lseek(fc.fd, 0, SEEK_CUR), 0);
	ck_assert_int_eq(act_io_write(fc.fd, "XY", 2, -1), 2);
	ck_assert_int_eq(lseek(fc.fd, 0, SEEK_CUR), 2);
	ck_assert_int_eq(act_io_read(fc.fd, buf, 3, -1), 3);
	ck_assert(!memcmp(buf, "234", 3));
	ck_assert_int_eq(lseek(fc.fd, 0, SEEK_CUR), 5);
	ck_assert_int_eq(act_io_read(fc.fd, buf, 2, 0), 2);
	ck_assert(!memcmp(buf, "XY", 2));
	ck_assert_int_eq(act_io_write(fc.fd, "z", 1, 50), 1);
	/* fsync and fdatasync through the ring; a flag the kernel has no
	 * word for is refused before it is asked */
	ck_assert_int_eq(act_io_fsync(fc.fd, 0), 0);
	ck_assert_int_eq(act_io_fsync(fc.fd, ACT_IO_FSYNC_DATASYNC), 0);
	ck_assert_int_eq(act_io_fsync_timeout(fc.fd, 0, TU_SEC), 0);
	ck_assert_int_eq(act_io_fsync(fc.fd, 2), -EINVAL);
	ck_assert_int_eq(act_io_fsync(-1, 0), -EBADF);
	ck_assert_int_eq(lseek(fc.fd, 0, SEEK_CUR), 5);
	ck_assert_int_eq(lseek(fc.fd, 101, SEEK_SET), 101);
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, -1), 2);
	ck_assert(!memcmp(buf, "bc", 2));
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, -1), 0);
	/* processes writing blocks at once, at their own offsets */
	ck_assert_int_eq(ftruncate(fc.fd, 0), 0);
	for (i = 0; i < FILE_PROCS; i++) {
		fw[i] = (struct file_writer){ &fc, i };
		tu_spawn(file_writer, &fw[i]);
	}
	for (i = 0; i < FILE_PROCS; i++) {
		unsigned b;

		m = tu_receive_tag(6);
		memcpy(&b, m->data, sizeof(b));
		bad += b;
		act_msg_free(m);
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(fstat(fc.fd, &st), 0);
	ck_assert_int_eq(st.st_size, FILE_PROCS * FILE_BLOCK);
	for (i = 0; i < FILE_PROCS; i++) {
		ck_assert_int_eq(pread(fc.fd, buf, 1, i * FILE_BLOCK), 1);
		bad += buf[0] != 'A' + (int)(i % 26);
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(act_io_close(fc.fd), 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}

START_TEST(file_io)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, file_main, NULL), 0);
}
END_TEST

/* ---- act_io_poll ------------------------------------------------------- */

static void poller(void *arg)
{
	struct tu_pipe_case *pc = arg;
	int rev = act_io_poll(pc->p[0], POLLIN);

	ck_assert_int_eq(act_send(pc->main, 7, &rev, sizeof(rev)), 0);
}

static void poll_main(void *arg)
{
	struct tu_pipe_case pc = { .main = act_self() };
	struct act_msg *m;
	int sv[2], rev;
	char c;
	act_pid pp;

	(void)arg;
	tu_mkpipe(pc.p);
	/* a poll that waits, until data comes */
	pp = tu_spawn(poller, &pc);
	ck_assert(tu_wait_iowait(pp));
	ck_assert_int_eq(write(pc.p[1], "q", 1), 1);
	m = tu_receive_tag(7);
	memcpy(&rev, m->data, sizeof(rev));
	act_msg_free(m);
	ck_assert_int_eq(rev, POLLIN);
	/* ready at once: readable, writable, both asked, one ready */
	ck_assert_int_eq(act_io_poll(pc.p[0], POLLIN), POLLIN);
	ck_assert_int_eq(act_io_poll(pc.p[1], POLLOUT), POLLOUT);
	ck_assert_int_eq(act_io_poll(pc.p[0], POLLIN | POLLPRI), POLLIN);
	ck_assert_int_eq(read(pc.p[0], &c, 1), 1);
	/* the write end closed: POLLHUP, asked for or not */
	close(pc.p[1]);
	pc.p[1] = -1;
	rev = act_io_poll(pc.p[0], POLLIN);
	ck_assert_int_ge(rev, 0);
	ck_assert(rev & POLLHUP);
	tu_close_pair(pc.p);
	/* a socket with data both ways ready; its peer gone: IN and HUP */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	ck_assert_int_eq(act_io_poll(sv[0], POLLIN | POLLOUT), POLLOUT);
	ck_assert_int_eq(send(sv[1], "d", 1, 0), 1);
	ck_assert_int_eq(act_io_poll(sv[0], POLLIN | POLLOUT),
			 POLLIN | POLLOUT);
	close(sv[1]);
	rev = act_io_poll(sv[0], POLLIN);
	ck_assert_int_ge(rev, 0);
	ck_assert_int_eq(rev & (POLLIN | POLLHUP), POLLIN | POLLHUP);
	close(sv[0]);
}

START_TEST(poll_revents)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, poll_main, NULL), 0);
}
END_TEST

/* ---- errors come back as -errno ---------------------------------------- */

static void errors_main(void *arg)
{
	const int bad = 1 << 28; /* beyond any descriptor table */
	struct sockaddr_in a, refused;
	int p[2], sv[2], s, l, closed_port;
	char buf[16];

	(void)arg;
	signal(SIGPIPE, SIG_IGN); /* EPIPE below: the error, not the signal */
	ck_assert_int_eq(act_io_read(bad, buf, 1, -1), -EBADF);
	ck_assert_int_eq(act_io_write(bad, "x", 1, -1), -EBADF);
	ck_assert_int_eq(act_io_recv(bad, buf, 1, 0), -EBADF);
	ck_assert_int_eq(act_io_send(bad, "x", 1, 0), -EBADF);
	ck_assert_int_eq(act_io_accept(bad, NULL, NULL, 0), -EBADF);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	ck_assert_int_eq(act_io_connect(bad, TU_SA(&a), sizeof(a)), -EBADF);
	ck_assert_int_eq(act_io_close(bad), -EBADF);
	ck_assert_int_eq(act_io_poll(bad, POLLIN), -EBADF);
	ck_assert_int_eq(act_io_read_timeout(bad, buf, 1, -1, TU_SEC), -EBADF);
	ck_assert_int_eq(act_io_close_timeout(bad, TU_SEC), -EBADF);
	ck_assert_int_eq(act_io_poll_timeout(bad, POLLIN, 0), -EBADF);
	/* the wrong end, the wrong kind of descriptor */
	tu_mkpipe(p);
	ck_assert_int_eq(act_io_read(p[1], buf, 1, -1), -EBADF);
	ck_assert_int_eq(act_io_write(p[0], "x", 1, -1), -EBADF);
	ck_assert_int_eq(act_io_recv(p[0], buf, 1, 0), -ENOTSOCK);
	ck_assert_int_eq(act_io_send(p[1], "x", 1, 0), -ENOTSOCK);
	close(p[0]);
	ck_assert_int_eq(act_io_write(p[1], "x", 1, -1), -EPIPE);
	close(p[1]);
	/* a socket that does not listen, an address too short */
	s = tu_tcp_socket();
	ck_assert_int_eq(act_io_accept(s, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(act_io_connect(s, TU_SA(&a), 3), -EINVAL);
	close(s);
	/* recv on a closed peer: end of file, on TCP as on a pair */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	close(sv[1]);
	ck_assert_int_eq(act_io_recv(sv[0], buf, sizeof(buf), 0), 0);
	close(sv[0]);
	l = tu_tcp_bound(&a, 4);
	s = tu_tcp_socket();
	ck_assert_int_eq(act_io_connect(s, TU_SA(&a), sizeof(a)), 0);
	ck_assert_int_eq(act_io_close(l), 0); /* the pending one is reset */
	ck_assert_int_eq(act_io_recv(s, buf, sizeof(buf), 0), -ECONNRESET);
	close(s);
	l = tu_tcp_bound(&a, 4);
	s = tu_tcp_socket();
	ck_assert_int_eq(act_io_connect(s, TU_SA(&a), sizeof(a)), 0);
	sv[0] = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(sv[0], 0);
	ck_assert_int_eq(act_io_close(sv[0]), 0);
	ck_assert_int_eq(act_io_recv(s, buf, sizeof(buf), 0), 0);
	close(s);
	close(l);
	/* a closed port: bound (so nobody takes it) but not listening */
	closed_port = tu_tcp_bound(&refused, -1);
	s = tu_tcp_socket();
	ck_assert_int_eq(act_io_connect(s, TU_SA(&refused), sizeof(refused)),
			 -ECONNREFUSED);
	close(s);
	s = tu_tcp_socket();
	ck_assert_int_eq(act_io_connect_timeout(s, TU_SA(&refused),
						sizeof(refused), 10 * TU_SEC),
			 -ECONNREFUSED);
	close(s);
	close(closed_port);
	ck_assert_uint_eq(tu_stats_now().io_inflight, 0);
}

START_TEST(errors_as_errno)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, errors_main, NULL), 0);
}
END_TEST

/* ---- the _timeout forms -------------------------------------------------- */

/* Each call of a _timeout form that never becomes ready returns
 * -ETIMEDOUT, not before its time; the timed-out operation is over (the
 * buffer the caller's again: data written afterwards stays where it is). */
static int64_t t_start;

static void t_begin(void)
{
	t_start = act__clock_now();
}

static void t_check_not_early(int64_t ns)
{
	int64_t took = act__clock_now() - t_start;

	ck_assert_msg(took >= ns, "a timeout of %lld ns ended after %lld ns",
		      (long long)ns, (long long)took);
}

struct drain_case {
	int fd;
	bool sock;
	act_pid main;
};

/* After a while, read all that is in fd (a full pipe or socket: a unix
 * socket's writer wakes only once most of its buffer is read). */
static void drainer(void *arg)
{
	struct drain_case *dc = arg;
	static char junk[65536];

	act_sleep(10 * TU_MS);
	while (tu_unread(dc->fd) > 0)
		ck_assert_int_gt(dc->sock ?
					 recv(dc->fd, junk, sizeof(junk), 0) :
					 read(dc->fd, junk, sizeof(junk)),
				 0);
	ck_assert_int_eq(act_send(dc->main, 19, NULL, 0), 0);
}

static void connector(void *arg)
{
	struct tcp_case *tc = arg;
	int s = tu_tcp_socket();

	act_sleep(10 * TU_MS);
	ck_assert_int_eq(act_io_connect(s, TU_SA(&tc->a), sizeof(tc->a)), 0);
	ck_assert_int_eq(act_send(tc->main, 8, &s, sizeof(s)), 0);
}

static void late_writer(void *arg)
{
	struct tu_pipe_case *pc = arg;

	act_sleep(10 * TU_MS);
	ck_assert_int_eq(write(pc->p[1], "late", 4), 4);
}

static void timeouts_pipe(void)
{
	struct tu_pipe_case pc = { .main = act_self() };
	struct drain_case dc = { .main = act_self() };
	uint64_t cancels0 = tu_stats_now().io_cancels;
	char buf[8];

	tu_mkpipe(pc.p);
	/* read: never ready */
	memset(buf, 'Z', sizeof(buf));
	t_begin();
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1,
					     TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	ck_assert_uint_eq(tu_stats_now().io_inflight, 0);
	ck_assert_int_eq(write(pc.p[1], "abcd", 4), 4);
	act_sleep(5 * TU_MS);
	ck_assert_int_eq(tu_unread(pc.p[0]), 4); /* nobody took it */
	ck_assert(!memcmp(buf, "ZZZZZZZZ", 8));
	/* 0: at once, done if ready, else -ETIMEDOUT */
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1, 0),
			 4);
	ck_assert(!memcmp(buf, "abcd", 4));
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1, 0),
			 -ETIMEDOUT);
	/* ready in time; no limit */
	tu_spawn(late_writer, &pc);
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1,
					     10 * TU_SEC),
			 4);
	ck_assert(!memcmp(buf, "late", 4));
	tu_spawn(late_writer, &pc);
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1, -1),
			 4);
	/* poll */
	t_begin();
	ck_assert_int_eq(act_io_poll_timeout(pc.p[0], POLLIN, TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	ck_assert_int_eq(act_io_poll_timeout(pc.p[0], POLLIN, 0), -ETIMEDOUT);
	ck_assert_int_eq(act_io_poll_timeout(pc.p[1], POLLOUT, 0), POLLOUT);
	tu_spawn(late_writer, &pc);
	ck_assert_int_eq(act_io_poll_timeout(pc.p[0], POLLIN, 10 * TU_SEC),
			 POLLIN);
	ck_assert_int_eq(read(pc.p[0], buf, sizeof(buf)), 4);
	/* write: a full pipe */
	fill_up(pc.p[1], false);
	t_begin();
	ck_assert_int_eq(act_io_write_timeout(pc.p[1], "w", 1, -1, TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	ck_assert_int_eq(act_io_write_timeout(pc.p[1], "w", 1, -1, 0),
			 -ETIMEDOUT);
	dc.fd = pc.p[0];
	tu_spawn(drainer, &dc);
	ck_assert_int_eq(act_io_write_timeout(pc.p[1], "w", 1, -1, 10 * TU_SEC),
			 1);
	act_msg_free(tu_receive_tag(19)); /* the drainer is done with p[0] */
	/* close: it never waits */
	ck_assert_int_eq(act_io_close_timeout(pc.p[1], 0), 0);
	ck_assert_int_eq(act_io_close_timeout(pc.p[0], 10 * TU_SEC), 0);
	ck_assert_int_eq(act_io_close_timeout(pc.p[0], 10 * TU_SEC), -EBADF);
	/* each timeout above was a cancel */
	ck_assert_uint_eq(tu_stats_now().io_cancels - cancels0, 6);
}

static void timeouts_socket(void)
{
	struct drain_case dc = { .main = act_self() };
	char buf[8];
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	t_begin();
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0,
					     TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0, 0),
			 -ETIMEDOUT);
	ck_assert_int_eq(send(sv[0], "data", 4, 0), 4);
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0, 0), 4);
	ck_assert_int_eq(act_io_send_timeout(sv[1], "back", 4, 0, 0), 4);
	ck_assert_int_eq(act_io_recv_timeout(sv[0], buf, sizeof(buf), 0,
					     10 * TU_SEC),
			 4);
	ck_assert(!memcmp(buf, "back", 4));
	/* a limit that comes after some bytes moved: the short count */
	ck_assert_int_eq(send(sv[0], "half", 4, 0), 4);
	t_begin();
	ck_assert_int_eq(
		act_io_recv_timeout(sv[1], buf, 8, MSG_WAITALL, TU_TMO), 4);
	t_check_not_early(TU_TMO);
	ck_assert(!memcmp(buf, "half", 4));
	/* send: a full buffer */
	fill_up(sv[0], true);
	t_begin();
	ck_assert_int_eq(act_io_send_timeout(sv[0], "s", 1, 0, TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	dc.fd = sv[1];
	dc.sock = true;
	tu_spawn(drainer, &dc);
	ck_assert_int_eq(act_io_send_timeout(sv[0], "s", 1, 0, 10 * TU_SEC), 1);
	act_msg_free(tu_receive_tag(19));
	close(sv[0]);
	close(sv[1]);
}

static void timeouts_tcp(void)
{
	struct tcp_case tc = { .main = act_self() };
	struct sockaddr_in full;
	struct act_msg *m;
	int s, s1, s2, lf, fd;

	/* accept: nobody connects, then somebody does */
	tc.l = tu_tcp_bound(&tc.a, 4);
	t_begin();
	ck_assert_int_eq(act_io_accept_timeout(tc.l, NULL, NULL, 0, TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	ck_assert_int_eq(act_io_accept_timeout(tc.l, NULL, NULL, 0, 0),
			 -ETIMEDOUT);
	tu_spawn(connector, &tc);
	fd = act_io_accept_timeout(tc.l, NULL, NULL, SOCK_CLOEXEC, 10 * TU_SEC);
	ck_assert_int_ge(fd, 0);
	m = tu_receive_tag(8);
	memcpy(&s, m->data, sizeof(s));
	act_msg_free(m);
	close(s);
	close(fd);
	/* connect: in time to a listener with room */
	s = tu_tcp_socket();
	ck_assert_int_eq(act_io_connect_timeout(s, TU_SA(&tc.a), sizeof(tc.a),
						10 * TU_SEC),
			 0);
	close(s);
	close(tc.l);
	/* connect: a listener whose accept queue is full drops the SYN,
	 * and the next try is a second away */
	lf = tu_tcp_bound(&full, 0);
	s1 = tu_tcp_socket();
	ck_assert_int_eq(connect(s1, TU_SA(&full), sizeof(full)), 0);
	s2 = tu_tcp_socket();
	t_begin();
	ck_assert_int_eq(act_io_connect_timeout(s2, TU_SA(&full), sizeof(full),
						TU_TMO),
			 -ETIMEDOUT);
	t_check_not_early(TU_TMO);
	close(s2);
	close(s1);
	close(lf);
}

static void timeouts_main(void *arg)
{
	(void)arg;
	timeouts_pipe();
	timeouts_socket();
	timeouts_tcp();
	ck_assert(tu_wait_no_inflight());
}

START_TEST(timeout_forms)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, timeouts_main, NULL), 0);
}
END_TEST

/* ---- other processes run while one waits -------------------------------- */

#define PINGS (TU_UNDER_TSAN ? 2000 : 20000)

struct busy_case {
	int p[2];
	act_pid main, pong;
	_Atomic int read_done;
};

static void busy_reader(void *arg)
{
	struct busy_case *bc = arg;
	char buf[8];
	ssize_t n = act_io_read(bc->p[0], buf, sizeof(buf), -1);

	atomic_store(&bc->read_done, 1);
	ck_assert_int_eq(act_send(bc->main, 9, &n, sizeof(n)), 0);
}

static void busy_pong(void *arg)
{
	struct act_msg *m;
	int stop;

	(void)arg;
	while ((m = act_receive(ACT_FOREVER)) != NULL) {
		stop = m->tag == 2;
		ck_assert_int_eq(act_send(m->from, 1, NULL, 0), 0);
		act_msg_free(m);
		if (stop)
			return;
	}
}

static void busy_ping(void *arg)
{
	struct busy_case *bc = arg;
	int i, early = 0;

	for (i = 0; i < PINGS; i++) {
		ck_assert_int_eq(
			act_send(bc->pong, i + 1 == PINGS ? 2 : 1, NULL, 0), 0);
		act_msg_free(act_receive(ACT_FOREVER));
		early += atomic_load(&bc->read_done);
	}
	ck_assert_int_eq(act_send(bc->main, 10, &early, sizeof(early)), 0);
}

static void busy_main(void *arg)
{
	static struct busy_case bc;
	struct act_msg *m;
	act_pid rd;
	ssize_t n;
	int early;

	(void)arg;
	bc.main = act_self();
	atomic_store(&bc.read_done, 0);
	tu_mkpipe(bc.p);
	rd = tu_spawn(busy_reader, &bc);
	ck_assert(tu_wait_iowait(rd));
	bc.pong = tu_spawn(busy_pong, NULL);
	tu_spawn(busy_ping, &bc);
	m = tu_receive_tag(10);
	memcpy(&early, m->data, sizeof(early));
	act_msg_free(m);
	ck_assert_int_eq(early, 0);
	ck_assert_int_eq(atomic_load(&bc.read_done), 0); /* still waiting */
	ck_assert_int_eq(write(bc.p[1], "done", 4), 4);
	m = tu_receive_tag(9);
	memcpy(&n, m->data, sizeof(n));
	act_msg_free(m);
	ck_assert_int_eq(n, 4);
	tu_close_pair(bc.p);
}

START_TEST(others_run_while_waiting)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, busy_main, NULL), 0);
}
END_TEST

/* ---- messages do not end an I/O wait ------------------------------------ */

struct mw_case {
	int p[2];
	act_pid main;
	bool timed;
	int64_t tmo; /* the timed read's limit */
	_Atomic int done;
};

static void mw_reader(void *arg)
{
	struct mw_case *mw = arg;
	int64_t t0 = act__clock_now();
	struct act_msg *m;
	ssize_t n;
	char buf[8];
	int i, bad = 0;

	if (mw->timed) {
		n = act_io_read_timeout(mw->p[0], buf, sizeof(buf), -1,
					mw->tmo);
		bad += n != -ETIMEDOUT;
		bad += act__clock_now() - t0 < mw->tmo;
	} else {
		n = act_io_read(mw->p[0], buf, sizeof(buf), -1);
		bad += n != 4 || memcmp(buf, "data", 4);
	}
	atomic_store(&mw->done, 1);
	/* the messages are all there, in order */
	for (i = 0; i < 5; i++) {
		m = act_receive(0);
		bad += !m || m->tag != 20 + (uint32_t)i;
		act_msg_free(m);
	}
	bad += act_receive(0) != NULL;
	ck_assert_int_eq(act_send(mw->main, 11, &bad, sizeof(bad)), 0);
}

/*
 * One round: the reader waits in its read, gets 5 messages, and must
 * still be reading. The timed read's premise is that the messages all
 * land before its limit: on a loaded machine this process may not even
 * see the reader waiting by then. False when that premise failed (the
 * caller runs the round again with a longer limit).
 */
static bool mw_round(struct mw_case *mw)
{
	struct act_msg *m;
	bool premise = true;
	act_pid rd;
	int i, bad;

	atomic_store(&mw->done, 0);
	rd = tu_spawn(mw_reader, mw);
	if (!tu_wait_iowait(rd)) {
		ck_assert(mw->timed); /* an untimed read cannot end alone */
		premise = false;
	}
	for (i = 0; premise && i < 5; i++) {
		int r = act_send(rd, 20 + (uint32_t)i, &i, sizeof(i));

		if (mw->timed && r == -ESRCH)
			premise = false;
		else
			ck_assert_int_eq(r, 0);
	}
	if (mw->timed && atomic_load(&mw->done))
		premise = false; /* its limit came before the last message */
	if (!mw->timed) {
		act_sleep(20 * TU_MS);
		ck_assert_int_eq(atomic_load(&mw->done), 0);
		ck_assert(tu_wait_iowait(rd));
		ck_assert_int_eq(write(mw->p[1], "data", 4), 4);
	}
	m = tu_receive_tag(11);
	memcpy(&bad, m->data, sizeof(bad));
	act_msg_free(m);
	ck_assert(tu_wait_gone(rd));
	if (!premise)
		return false;
	ck_assert_int_eq(bad, 0);
	return true;
}

static void mw_main(void *arg)
{
	static struct mw_case mw;
	int tries;

	(void)arg;
	mw.main = act_self();
	tu_mkpipe(mw.p);
	mw.timed = false;
	ck_assert(mw_round(&mw));
	mw.timed = true;
	for (tries = 0, mw.tmo = TU_TMO; !mw_round(&mw); tries++, mw.tmo *= 2)
		ck_assert_int_lt(tries, 8); /* 30 ms doubled to 7.7 s */
	tu_close_pair(mw.p);
}

START_TEST(messages_keep_io_waiting)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, mw_main, NULL), 0);
}
END_TEST

/* ---- no io_uring: -ENOSYS from every call; messages and timers work ---- */

static unsigned enosys_calls(void)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int p[2], sv[2], l;
	unsigned bad = 0;
	char buf[4];

	tu_mkpipe(p);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	l = tu_tcp_bound(&a, 4);
	bad += act_io_read(p[0], buf, 1, -1) != -ENOSYS;
	bad += act_io_write(p[1], "x", 1, -1) != -ENOSYS;
	bad += act_io_recv(sv[0], buf, 1, 0) != -ENOSYS;
	bad += act_io_send(sv[0], "x", 1, 0) != -ENOSYS;
	bad += act_io_accept(l, TU_SA(&a), &al, 0) != -ENOSYS;
	bad += act_io_connect(sv[0], TU_SA(&a), sizeof(a)) != -ENOSYS;
	bad += act_io_close(p[0]) != -ENOSYS;
	bad += act_io_poll(p[1], POLLOUT) != -ENOSYS;
	bad += act_io_read_timeout(p[0], buf, 1, -1, TU_SEC) != -ENOSYS;
	bad += act_io_write_timeout(p[1], "x", 1, -1, 0) != -ENOSYS;
	bad += act_io_recv_timeout(sv[0], buf, 1, 0, -1) != -ENOSYS;
	bad += act_io_send_timeout(sv[0], "x", 1, 0, TU_SEC) != -ENOSYS;
	bad += act_io_accept_timeout(l, NULL, NULL, 0, TU_SEC) != -ENOSYS;
	bad += act_io_connect_timeout(sv[0], TU_SA(&a), sizeof(a), TU_SEC) !=
	       -ENOSYS;
	bad += act_io_close_timeout(p[1], TU_SEC) != -ENOSYS;
	bad += act_io_poll_timeout(p[1], POLLOUT, TU_SEC) != -ENOSYS;
	bad += act_io_fsync(p[1], 0) != -ENOSYS;
	bad += act_io_fsync_timeout(p[1], ACT_IO_FSYNC_DATASYNC, TU_SEC) !=
	       -ENOSYS;
	bad += act_io_register(p[0]) != -ENOSYS;
	bad += act_io_unregister(p[0]) != -ENOSYS;
	/* nothing happened to them */
	bad += fcntl(p[0], F_GETFD) < 0 || fcntl(p[1], F_GETFD) < 0;
	bad += tu_unread(p[0]) != 0;
	tu_close_pair(p);
	tu_close_pair(sv);
	close(l);
	return bad;
}

static void enosys_main(void *arg)
{
	struct tu_kill_basic kb;
	struct act_msg *m;
	act_pid v;

	(void)arg;
	ck_assert_uint_eq(enosys_calls(), 0);
	/* messages, timers and act_kill work */
	ck_assert_int_eq(act_send(act_self(), 3, "m", 1), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 3);
	act_msg_free(m);
	ck_assert_int_eq(act_sleep(TU_MS), 0);
	ck_assert_ptr_null(act_receive(2 * TU_MS));
	atomic_store(&kb.after, 0);
	v = tu_spawn(tu_kb_receiver, &kb);
	ck_assert(tu_wait_waiting(v));
	ck_assert_int_eq(act_kill(v, ACT_EXIT_KILL), 0);
	ck_assert(tu_wait_gone(v));
	ck_assert_int_eq(atomic_load(&kb.after), 0);
}

START_TEST(no_ring_enosys)
{
	struct tu_child c;

	tu_run_ringless(enosys_main, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
	if (TU_UNDER_ASAN) { /* its warnings about our stacks, 3 lines each */
		tu_drop_lines(c.err, "==");
		tu_drop_lines(c.err, "False positive error reports");
		tu_drop_lines(c.err, "For details see");
	}
	ck_assert_msg(!strcmp(c.err, "actors: io_uring is off "
				     "(ACT_TEST_RING=none): timers work, I/O "
				     "will not\n"),
		      "stderr: %s", c.err);
}
END_TEST

/* ---- -EPERM outside a process ------------------------------------------ */

static unsigned eperm_calls(void)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int p[2];
	unsigned bad = 0;
	char buf[4];

	tu_mkpipe(p);
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(write(p[1], "ab", 2), 2);
	bad += act_io_read(p[0], buf, 1, -1) != -EPERM;
	bad += act_io_write(p[1], "x", 1, -1) != -EPERM;
	bad += act_io_recv(p[0], buf, 1, 0) != -EPERM;
	bad += act_io_send(p[1], "x", 1, 0) != -EPERM;
	bad += act_io_accept(p[0], TU_SA(&a), &al, 0) != -EPERM;
	bad += act_io_connect(p[0], TU_SA(&a), sizeof(a)) != -EPERM;
	bad += act_io_close(p[0]) != -EPERM;
	bad += act_io_poll(p[0], POLLIN) != -EPERM;
	bad += act_io_read_timeout(p[0], buf, 1, -1, 0) != -EPERM;
	bad += act_io_write_timeout(p[1], "x", 1, -1, TU_SEC) != -EPERM;
	bad += act_io_recv_timeout(p[0], buf, 1, 0, TU_SEC) != -EPERM;
	bad += act_io_send_timeout(p[1], "x", 1, 0, TU_SEC) != -EPERM;
	bad += act_io_accept_timeout(p[0], NULL, NULL, 0, TU_SEC) != -EPERM;
	bad += act_io_connect_timeout(p[0], TU_SA(&a), sizeof(a), TU_SEC) !=
	       -EPERM;
	bad += act_io_close_timeout(p[0], TU_SEC) != -EPERM;
	bad += act_io_register(p[0]) != -EPERM;
	bad += act_io_unregister(p[0]) != -EPERM;
	bad += act_io_poll_timeout(p[0], POLLIN, TU_SEC) != -EPERM;
	bad += act_io_fsync(p[0], 0) != -EPERM;
	bad += act_io_fsync_timeout(p[0], 0, TU_SEC) != -EPERM;
	/* nothing was done: both ends open, the data still there */
	bad += fcntl(p[0], F_GETFD) < 0 || fcntl(p[1], F_GETFD) < 0;
	bad += tu_unread(p[0]) != 2;
	tu_close_pair(p);
	return bad;
}

static void *eperm_thread(void *arg)
{
	*(unsigned *)arg = eperm_calls();
	return NULL;
}

static void eperm_main(void *arg)
{
	unsigned bad = 99;
	pthread_t t;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, eperm_thread, &bad), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(bad, 0);
}

START_TEST(eperm_outside_process)
{
	struct act_config cfg = tu_with_workers(2);

	ck_assert_uint_eq(eperm_calls(), 0); /* no runtime */
	ck_assert_int_eq(tu_run_main(&cfg, eperm_main, NULL), 0);
}
END_TEST

/* ---- registered files -------------------------------------------------- */

/* The lowest free descriptor is fd (free): every lower hole filled with
 * a duplicate of what, which *held records for close_held. */
static void lowest_free_is(int fd, int what, int *held, int *nheld)
{
	int t;

	for (;;) {
		t = dup(what);
		ck_assert_int_ge(t, 0);
		if (t == fd) {
			close(t);
			return;
		}
		ck_assert_int_lt(t,
				 fd); /* fd is free: nothing above it first */
		held[(*nheld)++] = t;
	}
}

static void fixed_main(void *arg)
{
	int sv[2], l, c1, c2, a, b, hi, held[64], nheld = 0, i;
	struct sockaddr_in sa;
	struct rlimit rl, low;
	struct pollfd pfd;
	char buf[16];

	(void)arg;
	/* the table is made at the runtime's first registration, a slot for
	 * each descriptor the soft limit allows then: 64 here */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 128) { /* room for descriptor 100 below */
		ck_assert_msg(rl.rlim_max >= 128,
			      "RLIMIT_NOFILE's hard "
			      "limit %llu: under 128",
			      (unsigned long long)rl.rlim_max);
		rl.rlim_cur = 128;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	ck_assert_int_lt(sv[1], 64);
	low = rl;
	low.rlim_cur = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	ck_assert_int_eq(act_io_register(sv[1]), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	hi = dup2(sv[0], 100);
	ck_assert_int_eq(hi, 100);
	ck_assert_int_eq(act_io_register(hi), -ENOSPC);
	close(hi);
	/* registered twice: the same file; I/O, a poll and a timed
	 * receive through the slot */
	ck_assert_int_eq(act_io_register(sv[1]), 0);
	ck_assert_int_eq(act_io_send(sv[0], "ping", 4, 0), 4);
	ck_assert_int_eq(act_io_poll(sv[1], POLLIN), POLLIN);
	ck_assert_int_eq(act_io_recv(sv[1], buf, sizeof(buf), 0), 4);
	ck_assert(!memcmp(buf, "ping", 4));
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0,
					     TU_TMO),
			 -ETIMEDOUT);
	ck_assert_int_eq(act_io_send(sv[1], "pong", 4, 0), 4);
	ck_assert_int_eq(act_io_recv(sv[0], buf, sizeof(buf), 0), 4);
	ck_assert(!memcmp(buf, "pong", 4));
	/* out, once; the descriptor works on without the slot */
	ck_assert_int_eq(act_io_unregister(sv[1]), 0);
	ck_assert_int_eq(act_io_unregister(sv[1]), -EINVAL);
	ck_assert_int_eq(act_io_send(sv[1], "x", 1, 0), 1);
	ck_assert_int_eq(act_io_recv(sv[0], buf, sizeof(buf), 0), 1);
	/* act_io_close lets the ring go of the file: the peer sees the end
	 * (were the slot kept, the socket would stay open, and the limit
	 * would end the wait) */
	ck_assert_int_eq(act_io_register(sv[1]), 0);
	ck_assert_int_eq(act_io_close(sv[1]), 0);
	ck_assert_int_eq(act_io_recv_timeout(sv[0], buf, sizeof(buf), 0,
					     10 * TU_SEC),
			 0);
	ck_assert_int_eq(act_io_close(sv[0]), 0);
	/* bad descriptors */
	ck_assert_int_eq(act_io_register(-1), -EBADF);
	ck_assert_int_eq(act_io_unregister(-1), -EBADF);
	a = dup(0);
	ck_assert_int_ge(a, 0);
	close(a);
	ck_assert_int_eq(act_io_register(a), -EBADF);
	/* close(2) of a registered accepted socket, and an accept that
	 * gives its number to a new connection: the new descriptor is the
	 * new file, not the old one the slot held, and the old socket is
	 * closed (its peer sees the end) */
	l = tu_tcp_bound(&sa, 4);
	c1 = tu_tcp_socket();
	ck_assert_int_eq(connect(c1, TU_SA(&sa), sizeof(sa)), 0);
	a = act_io_accept(l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(act_io_register(a), 0);
	c2 = tu_tcp_socket();
	ck_assert_int_eq(connect(c2, TU_SA(&sa), sizeof(sa)), 0);
	close(a); /* behind the runtime's back */
	lowest_free_is(a, l, held, &nheld);
	b = act_io_accept(l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_eq(b, a);
	ck_assert_int_eq(send(c2, "new", 3, 0), 3);
	ck_assert_int_eq(
		act_io_recv_timeout(b, buf, sizeof(buf), 0, 10 * TU_SEC), 3);
	ck_assert(!memcmp(buf, "new", 3));
	ck_assert_int_eq(act_io_send(b, "ok", 2, 0), 2);
	ck_assert_int_eq(recv(c2, buf, sizeof(buf), 0), 2);
	pfd.fd = c1;
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	ck_assert_int_eq(recv(c1, buf, sizeof(buf), 0), 0);
	for (i = 0; i < nheld; i++)
		close(held[i]);
	ck_assert_int_eq(act_io_close(b), 0);
	close(c1);
	close(c2);
	close(l);
}

START_TEST(registered_files)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, fixed_main, NULL), 0);
}
END_TEST

/* ---- act_stats: the I/O and reactor counters ---------------------------- */

struct late_thread {
	int fd;
	_Atomic uint32_t *sleeping; /* the worker's doorbell */
};

/* Writes once the worker sleeps (it has nothing to run: the main process
 * waits on this pipe), so the reactor must wake it; a timed wait alone
 * is not enough on a loaded machine, where the worker may still be up. */
static void *late_thread_write(void *arg)
{
	struct late_thread *lt = arg;
	struct timespec ts = { 0, (long)TU_MS };
	int i;

	for (i = 0; i < 5000 && !atomic_load(lt->sleeping); i++)
		nanosleep(&ts, NULL);
	ck_assert_int_eq(write(lt->fd, "t", 1), 1);
	return NULL;
}

static void dontwait_off_ring(void)
{
	struct act_stats s0, s1;
	char buf[8];
	int sv[2], i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	s0 = tu_stats_now();
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(act_io_send(sv[0], "d", 1, MSG_DONTWAIT), 1);
		ck_assert_int_eq(act_io_recv(sv[1], buf, 8, MSG_DONTWAIT), 1);
		ck_assert_int_eq(buf[0], 'd');
	}
	ck_assert_int_eq(act_io_recv(sv[1], buf, 8, MSG_DONTWAIT), -EAGAIN);
	s1 = tu_stats_now();
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, 0);
	close(sv[0]);
	close(sv[1]);
}

static void stats_main(void *arg)
{
	struct act_stats s0, s1;
	struct late_thread lt;
	struct tu_pipe_case pc = { .main = act_self() };
	pthread_t t;
	act_pid rd;
	char buf[8];
	int i;

	(void)arg;
	tu_mkpipe(pc.p);
	s0 = tu_stats_now();
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(act_io_write(pc.p[1], "s", 1, -1), 1);
		ck_assert_int_eq(act_io_read(pc.p[0], buf, 8, -1), 1);
	}
	s1 = tu_stats_now();
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, 20);
	ck_assert_uint_eq(s1.io_cancels - s0.io_cancels, 0);
	ck_assert_uint_eq(s1.io_inflight, 0);
	ck_assert_uint_gt(s1.reactor_loops, s0.reactor_loops);
	/* MSG_DONTWAIT: sent and received on the worker, none through the
	 * ring (act_io_send(3)) */
	dontwait_off_ring();
	/* one in flight while a reader waits */
	rd = tu_spawn(tu_pipe_reader, &pc);
	ck_assert(tu_wait_inflight(1));
	ck_assert_uint_eq(tu_stats_now().io_inflight, 1);
	ck_assert_int_eq(write(pc.p[1], "r", 1), 1);
	act_msg_free(tu_receive_tag(1));
	ck_assert(tu_wait_gone(rd));
	ck_assert_uint_eq(tu_stats_now().io_inflight, 0);
	/* a wait long enough for the worker to sleep: the reactor wakes it.
	 * On a loaded machine the worker may be up again by the time the
	 * completion comes (full runs saw it), so up to 5 tries: a counter
	 * that never counts fails all of them */
	s0 = tu_stats_now();
	for (i = 0; i < 5; i++) {
		lt = (struct late_thread){
			pc.p[1], &act__rt_current->workers[0].bell.sleeping
		};
		ck_assert_int_eq(
			pthread_create(&t, NULL, late_thread_write, &lt), 0);
		ck_assert_int_eq(act_io_read(pc.p[0], buf, 8, -1), 1);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		s1 = tu_stats_now();
		if (s1.reactor_wakes > s0.reactor_wakes)
			break;
	}
	if (act__rt_current->reactor->on_worker) {
		/* inline: the worker reaps its own completions, and no
		 * wake of a worker is ever counted */
		ck_assert_uint_eq(s1.reactor_wakes, s0.reactor_wakes);
		ck_assert_uint_eq(s1.io_ops - s0.io_ops, 5);
	} else {
		ck_assert_uint_ge(s1.reactor_wakes - s0.reactor_wakes, 1);
		ck_assert_uint_eq(s1.io_ops - s0.io_ops,
				  (uint64_t)(i < 5 ? i + 1 : 5));
	}
	/* a timeout is a cancel */
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, 8, -1, TU_MS),
			 -ETIMEDOUT);
	s0 = tu_stats_now();
	ck_assert_uint_eq(s0.io_ops - s1.io_ops, 1);
	ck_assert_uint_eq(s0.io_cancels - s1.io_cancels, 1);
	tu_close_pair(pc.p);
}

START_TEST(io_stats)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, stats_main, NULL), 0);
}
END_TEST

/*
 * A worker that never runs out of processes still completes I/O and
 * fires timers: a process yields in a loop on the one worker while main
 * sleeps and does I/O. With the reactor inline (_i 1) nothing but the
 * worker's turn once in ACT_INLINE_TURN_RUNS runs can take them; without
 * it, this hangs until the case's timeout.
 */
static atomic_int spin_stop;

static void spin_yielder(void *arg)
{
	(void)arg;
	while (!atomic_load(&spin_stop))
		act_yield();
}

static void spin_main(void *arg)
{
	struct tu_pipe_case pc = { .main = act_self() };
	char buf[4];
	int i;

	(void)arg;
	atomic_store(&spin_stop, 0);
	tu_mkpipe(pc.p);
	tu_spawn(spin_yielder, NULL);
	for (i = 0; i < 20; i++) {
		ck_assert_int_eq(act_sleep(TU_MS), 0);
		ck_assert_int_eq(act_io_write(pc.p[1], "b", 1, -1), 1);
		ck_assert_int_eq(act_io_read(pc.p[0], buf, sizeof(buf), -1), 1);
		ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, 1, -1,
						     TU_MS),
				 -ETIMEDOUT);
	}
	atomic_store(&spin_stop, 1);
	tu_close_pair(pc.p);
}

START_TEST(busy_worker_does_io)
{
	struct act_config cfg = tu_with_workers(1);

	if (_i)
		cfg.reactor_cpu = ACT_REACTOR_INLINE;
	ck_assert_int_eq(tu_run_main(&cfg, spin_main, NULL), 0);
}
END_TEST

/* Cases by area, each its own TCase: CK_RUN_CASE=timeouts runs one area. */
static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *ops = tcase_create("ops"), *tmo = tcase_create("timeouts");
	TCase *cfg = tcase_create("config");
	bool no_ring = !tu_have_ring();

	tcase_set_timeout(ops, 60);
	TU_IO_LOOP(ops, pipe_io, 3);
	TU_IO_LOOP(ops, socketpair_io, 3);
	TU_IO_LOOP(ops, tcp_loopback, 3);
	TU_IO_LOOP(ops, file_io, 3);
	TU_IO_LOOP(ops, poll_revents, 2);
	TU_IO_LOOP(ops, errors_as_errno, 2);
	TU_IO_LOOP(ops, others_run_while_waiting, 3);
	TU_IO_LOOP(ops, messages_keep_io_waiting, 2);
	TU_IO_LOOP(ops, io_stats, 1);
	TU_IO_LOOP(ops, registered_files, 3);
	TU_IO_LOOP(ops, busy_worker_does_io, 2);
	suite_add_tcase(s, ops);

	tcase_set_timeout(tmo, 60);
	TU_IO_LOOP(tmo, timeout_forms, 2);
	suite_add_tcase(s, tmo);

	tcase_set_timeout(cfg, 60);
	tcase_add_test(cfg, no_ring_enosys);
	tcase_add_test(cfg, eperm_outside_process);
	suite_add_tcase(s, cfg);
	return s;
}

int main(void)
{
	unsetenv("ACTORS_TIMER_US"); /* tu_run_suite does not know it yet */
	return tu_run_suite(io_suite());
}
