/* SPDX-License-Identifier: MIT */
/*
 * test_io.c - act_io_* on the reactor's io_uring ring, as processes see
 * them: pipes, socket pairs, TCP on the loopback and regular files; poll
 * revents; errors as -errno; the _timeout forms; other processes running
 * while one waits, and messages that do not end the wait; act_kill of
 * processes blocked in I/O (I6: a killed reader's buffer is never written
 * after it died); the runtime's stop with reads in flight; descriptor
 * exhaustion; a one-entry ring; signals at the reactor thread; -ENOSYS
 * without a ring and -EPERM outside a process.
 *
 * Nothing here asserts how long an operation took, only that a timeout
 * never ends a wait early and that nothing is lost. When this program
 * runs without io_uring (ACT_TEST_RING=none, or a kernel without it), the
 * cases that need a ring leave the suite with a SKIP line.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testrt.h"

#include "reactor.h"

#define MS 1000000LL
#define SEC (1000 * MS)
#define HOUR (3600 * SEC)

/* ---- helpers ------------------------------------------------------------ */

/* 1, 2 or 4 workers for loop tests over 0..3. */
static struct act_config cfg_for(int i)
{
	return with_workers(1 << i);
}

static act_pid spawn_ok(void (*fn)(void *), void *arg)
{
	act_pid p = act_spawn(fn, arg);

	ck_assert(!act_pid_eq(p, ACT_PID_NONE));
	return p;
}

static struct act_stats stats_now(void)
{
	struct act_stats st;

	ck_assert_int_ge(act_stats(&st, NULL, 0), 1);
	return st;
}

/* Sleep in 1 ms steps until at least n operations are in the kernel
 * (at most about 20 s); false if they never are. */
static bool wait_inflight(uint64_t n)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (stats_now().io_inflight >= n)
			return true;
		act_sleep(MS);
	}
	return false;
}

/* The same until none is. */
static bool wait_no_inflight(void)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (stats_now().io_inflight == 0)
			return true;
		act_sleep(MS);
	}
	return false;
}

/* Sleep until p's state is st (at most about 20 s); false if it never is
 * (or p is gone). */
static bool wait_state(act_pid p, unsigned st)
{
	struct act__proc *q;
	int i;

	for (i = 0; i < 200000; i++) {
		q = lookup(p);
		if (!q)
			return false;
		if (act__ps(atomic_load(&q->state)) == st)
			return true;
		act_sleep(100000);
	}
	return false;
}

/* p waits in act_io_*, or in a receive. */
#define wait_iowait(p) wait_state((p), ACT_PS_IOWAIT)
#define wait_receiving(p) wait_state((p), ACT_PS_WAITING)

/* Sleep until every pid in ps is gone (at most about 20 s). */
static unsigned wait_all_gone(const act_pid *ps, unsigned n)
{
	unsigned i = 0, alive = n;
	int round;

	for (round = 0; round < 20000 && alive; round++) {
		for (alive = 0; i < n && !lookup(ps[i]); i++)
			;
		alive = n - i;
		if (alive)
			act_sleep(MS);
	}
	return alive;
}

/* Sleep until p is gone (at most about 20 s). */
static bool gone(act_pid p)
{
	return wait_all_gone(&p, 1) == 0;
}

/* The next message with this tag (others stay in the mailbox). */
static bool tag_is(const struct act_msg *m, void *ctx)
{
	return m->tag == (uint32_t)(uintptr_t)ctx;
}

static struct act_msg *receive_tag(uint32_t tag)
{
	struct act_msg *m = act_receive_match(tag_is, (void *)(uintptr_t)tag,
					      ACT_FOREVER);

	ck_assert_ptr_nonnull(m);
	return m;
}

static void mkpipe(int p[2])
{
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

static int unread(int fd)
{
	int n = -1;

	ck_assert_int_eq(ioctl(fd, FIONREAD, &n), 0);
	return n;
}

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
		while ((sock ? send(fd, junk, sizes[i], MSG_DONTWAIT)
			     : write(fd, junk, sizes[i])) > 0)
			;
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(fcntl(fd, F_SETFL, fl), 0);
}

/* A TCP socket bound to 127.0.0.1 on a free port (in *a), listening with
 * `backlog` unless it is negative. */
static int tcp_bound(struct sockaddr_in *a, int backlog)
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

static int tcp_socket(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	return s;
}

#define SA(a) ((struct sockaddr *)(a))

/* Raise the soft RLIMIT_NOFILE to at least n if the hard one allows;
 * returns the soft limit now. */
static rlim_t want_fds(rlim_t n)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < n) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n
				      ? n
				      : rl.rlim_max;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	return rl.rlim_cur;
}

/* Readers on their own pipes for the volume cases: as many as the
 * descriptor limit allows, up to want. */
static unsigned pipe_readers(unsigned want)
{
	rlim_t lim = want_fds(2 * (rlim_t)want + 64);

	return lim >= 2 * (rlim_t)want + 64 ? want : (unsigned)(lim - 64) / 2;
}

/* ---- pipes ----------------------------------------------------------- */

struct pipe_case {
	int p[2];
	act_pid main;
};

struct read_reply {
	ssize_t n;
	char buf[64];
};

static void pipe_reader(void *arg)
{
	struct pipe_case *pc = arg;
	struct read_reply r;

	memset(&r, 0, sizeof(r));
	r.n = act_io_read(pc->p[0], r.buf, sizeof(r.buf), -1);
	ck_assert_int_eq(act_send(pc->main, 1, &r, sizeof(r)), 0);
}

static void pipe_main(void *arg)
{
	struct pipe_case pc = { .main = act_self() };
	struct read_reply *r;
	struct act_msg *m;
	char buf[64];
	act_pid rd;

	(void)arg;
	mkpipe(pc.p);
	/* ready data: written and read back at once, position -1 */
	ck_assert_int_eq(act_io_write(pc.p[1], "hello", 5, -1), 5);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, sizeof(buf), -1), 5);
	ck_assert(!memcmp(buf, "hello", 5));
	/* a reader that waits for data: it blocks, then gets it */
	rd = spawn_ok(pipe_reader, &pc);
	ck_assert(wait_iowait(rd));
	act_sleep(5 * MS);
	ck_assert_int_eq(act_io_write(pc.p[1], "world!", 6, -1), 6);
	m = receive_tag(1);
	r = m->data;
	ck_assert_int_eq(r->n, 6);
	ck_assert(!memcmp(r->buf, "world!", 6));
	act_msg_free(m);
	ck_assert(gone(rd));
	/* a short read takes what is there */
	ck_assert_int_eq(act_io_write(pc.p[1], "abcdef", 6, -1), 6);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, 4, -1), 4);
	ck_assert_int_eq(act_io_read(pc.p[0], buf + 4, 60, -1), 2);
	ck_assert(!memcmp(buf, "abcdef", 6));
	/* a pipe has no offsets: one is ignored */
	ck_assert_int_eq(act_io_write(pc.p[1], "o", 1, 12345), 1);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, 8, 12345), 1);
	/* closing the descriptor does not end another process's read */
	rd = spawn_ok(pipe_reader, &pc);
	ck_assert(wait_iowait(rd));
	ck_assert_int_eq(act_io_close(pc.p[0]), 0);
	act_sleep(5 * MS);
	ck_assert(wait_iowait(rd));
	ck_assert_int_eq(act_io_write(pc.p[1], "after", 5, -1), 5);
	m = receive_tag(1);
	r = m->data;
	ck_assert_int_eq(r->n, 5);
	act_msg_free(m);
	ck_assert(gone(rd));
	ck_assert_int_eq(act_io_close(pc.p[1]), 0);
	mkpipe(pc.p);
	/* end of file once the write end is closed */
	ck_assert_int_eq(act_io_close(pc.p[1]), 0);
	pc.p[1] = -1;
	ck_assert_int_eq(act_io_read(pc.p[0], buf, sizeof(buf), -1), 0);
	ck_assert_int_eq(act_io_close(pc.p[0]), 0);
	ck_assert_int_eq(fcntl(pc.p[0], F_GETFD), -1); /* really closed */
	ck_assert_uint_eq(stats_now().io_inflight, 0);
}

START_TEST(pipe_io)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, pipe_main, NULL), 0);
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
	struct read_reply r;

	memset(&r, 0, sizeof(r));
	r.n = act_io_recv(sc->sv[1], r.buf, 8, MSG_WAITALL);
	ck_assert_int_eq(act_send(sc->main, 2, &r, sizeof(r)), 0);
}

static void socketpair_main(void *arg)
{
	struct sp_case sc = { .main = act_self() };
	struct read_reply *r;
	struct act_msg *m;
	char buf[64];
	act_pid rd;

	(void)arg;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sc.sv), 0);
	ck_assert_int_eq(act_io_send(sc.sv[0], "ping", 4, 0), 4);
	/* MSG_PEEK leaves it, a plain recv takes it, MSG_DONTWAIT does
	 * not wait */
	ck_assert_int_eq(act_io_recv(sc.sv[1], buf, sizeof(buf), MSG_PEEK),
			 4);
	ck_assert_int_eq(act_io_recv(sc.sv[1], buf, sizeof(buf), 0), 4);
	ck_assert(!memcmp(buf, "ping", 4));
	ck_assert_int_eq(act_io_recv(sc.sv[1], buf, sizeof(buf),
				     MSG_DONTWAIT), -EAGAIN);
	/* MSG_WAITALL: the recv waits for all 8 bytes, sent in two parts
	 * while it waits */
	rd = spawn_ok(sp_waitall, &sc);
	ck_assert(wait_iowait(rd));
	ck_assert_int_eq(act_io_send(sc.sv[0], "0123", 4, 0), 4);
	act_sleep(5 * MS);
	ck_assert_int_eq(act_io_send(sc.sv[0], "4567", 4, MSG_NOSIGNAL), 4);
	m = receive_tag(2);
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
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, socketpair_main, NULL), 0);
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
			fd = act_io_accept(tc->l, SA(&peer), &plen,
					   i % 2 ? SOCK_CLOEXEC | SOCK_NONBLOCK
						 : SOCK_CLOEXEC);
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
		spawn_ok(tcp_handler, &tcp_conns[i]);
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
	int s = tcp_socket();

	ck_assert_int_eq(act_io_connect(s, SA(&tc->a), sizeof(tc->a)), 0);
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
	tc.l = tcp_bound(&tc.a, 64);
	spawn_ok(tcp_acceptor, &tc);
	for (i = 0; i < TCP_CLIENTS; i++)
		spawn_ok(tcp_client, &tc);
	act_msg_free(receive_tag(4));
	for (i = 0; i < TCP_CLIENTS; i++) {
		act_msg_free(receive_tag(5));
		act_msg_free(receive_tag(3));
	}
	ck_assert_uint_eq(atomic_load(&tc.bad), 0);
	ck_assert_int_eq(act_io_close(tc.l), 0);
	ck_assert(wait_no_inflight());
}

START_TEST(tcp_loopback)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, tcp_main, NULL), 0);
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
	ck_assert_int_eq(lseek(fc.fd, 0, SEEK_CUR), 5);
	ck_assert_int_eq(lseek(fc.fd, 101, SEEK_SET), 101);
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, -1), 2);
	ck_assert(!memcmp(buf, "bc", 2));
	ck_assert_int_eq(act_io_read(fc.fd, buf, 10, -1), 0);
	/* processes writing blocks at once, at their own offsets */
	ck_assert_int_eq(ftruncate(fc.fd, 0), 0);
	for (i = 0; i < FILE_PROCS; i++) {
		fw[i] = (struct file_writer){ &fc, i };
		spawn_ok(file_writer, &fw[i]);
	}
	for (i = 0; i < FILE_PROCS; i++) {
		unsigned b;

		m = receive_tag(6);
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
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, file_main, NULL), 0);
}
END_TEST

/* ---- act_io_poll ------------------------------------------------------- */

static void poller(void *arg)
{
	struct pipe_case *pc = arg;
	int rev = act_io_poll(pc->p[0], POLLIN);

	ck_assert_int_eq(act_send(pc->main, 7, &rev, sizeof(rev)), 0);
}

static void poll_main(void *arg)
{
	struct pipe_case pc = { .main = act_self() };
	struct act_msg *m;
	int sv[2], rev;
	char c;
	act_pid pp;

	(void)arg;
	mkpipe(pc.p);
	/* a poll that waits, until data comes */
	pp = spawn_ok(poller, &pc);
	ck_assert(wait_iowait(pp));
	ck_assert_int_eq(write(pc.p[1], "q", 1), 1);
	m = receive_tag(7);
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
	close_pair(pc.p);
	/* a socket with data both ways ready; its peer gone: IN and HUP */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
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
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, poll_main, NULL), 0);
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
	ck_assert_int_eq(act_io_connect(bad, SA(&a), sizeof(a)), -EBADF);
	ck_assert_int_eq(act_io_close(bad), -EBADF);
	ck_assert_int_eq(act_io_poll(bad, POLLIN), -EBADF);
	ck_assert_int_eq(act_io_read_timeout(bad, buf, 1, -1, SEC), -EBADF);
	ck_assert_int_eq(act_io_close_timeout(bad, SEC), -EBADF);
	ck_assert_int_eq(act_io_poll_timeout(bad, POLLIN, 0), -EBADF);
	/* the wrong end, the wrong kind of descriptor */
	mkpipe(p);
	ck_assert_int_eq(act_io_read(p[1], buf, 1, -1), -EBADF);
	ck_assert_int_eq(act_io_write(p[0], "x", 1, -1), -EBADF);
	ck_assert_int_eq(act_io_recv(p[0], buf, 1, 0), -ENOTSOCK);
	ck_assert_int_eq(act_io_send(p[1], "x", 1, 0), -ENOTSOCK);
	close(p[0]);
	ck_assert_int_eq(act_io_write(p[1], "x", 1, -1), -EPIPE);
	close(p[1]);
	/* a socket that does not listen, an address too short */
	s = tcp_socket();
	ck_assert_int_eq(act_io_accept(s, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(act_io_connect(s, SA(&a), 3), -EINVAL);
	close(s);
	/* recv on a closed peer: end of file, on TCP as on a pair */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	close(sv[1]);
	ck_assert_int_eq(act_io_recv(sv[0], buf, sizeof(buf), 0), 0);
	close(sv[0]);
	l = tcp_bound(&a, 4);
	s = tcp_socket();
	ck_assert_int_eq(act_io_connect(s, SA(&a), sizeof(a)), 0);
	ck_assert_int_eq(act_io_close(l), 0); /* the pending one is reset */
	ck_assert_int_eq(act_io_recv(s, buf, sizeof(buf), 0), -ECONNRESET);
	close(s);
	l = tcp_bound(&a, 4);
	s = tcp_socket();
	ck_assert_int_eq(act_io_connect(s, SA(&a), sizeof(a)), 0);
	sv[0] = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(sv[0], 0);
	ck_assert_int_eq(act_io_close(sv[0]), 0);
	ck_assert_int_eq(act_io_recv(s, buf, sizeof(buf), 0), 0);
	close(s);
	close(l);
	/* a closed port: bound (so nobody takes it) but not listening */
	closed_port = tcp_bound(&refused, -1);
	s = tcp_socket();
	ck_assert_int_eq(act_io_connect(s, SA(&refused), sizeof(refused)),
			 -ECONNREFUSED);
	close(s);
	s = tcp_socket();
	ck_assert_int_eq(act_io_connect_timeout(s, SA(&refused),
						sizeof(refused), 10 * SEC),
			 -ECONNREFUSED);
	close(s);
	close(closed_port);
	ck_assert_uint_eq(stats_now().io_inflight, 0);
}

START_TEST(errors_as_errno)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, errors_main, NULL), 0);
}
END_TEST

/* ---- the _timeout forms -------------------------------------------------- */

#define TMO (30 * MS)

/* Each call of a _timeout form that never becomes ready returns
 * -ETIMEDOUT, not before its time; the timed-out operation is over (the
 * buffer the caller's again: data written afterwards stays where it is). */
static int64_t t_start;

static void t_begin(void)
{
	t_start = act__now_ns();
}

static void t_check_not_early(int64_t ns)
{
	int64_t took = act__now_ns() - t_start;

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

	act_sleep(10 * MS);
	while (unread(dc->fd) > 0)
		ck_assert_int_gt(dc->sock ? recv(dc->fd, junk, sizeof(junk), 0)
					  : read(dc->fd, junk, sizeof(junk)),
				 0);
	ck_assert_int_eq(act_send(dc->main, 19, NULL, 0), 0);
}

static void connector(void *arg)
{
	struct tcp_case *tc = arg;
	int s = tcp_socket();

	act_sleep(10 * MS);
	ck_assert_int_eq(act_io_connect(s, SA(&tc->a), sizeof(tc->a)), 0);
	ck_assert_int_eq(act_send(tc->main, 8, &s, sizeof(s)), 0);
}

static void late_writer(void *arg)
{
	struct pipe_case *pc = arg;

	act_sleep(10 * MS);
	ck_assert_int_eq(write(pc->p[1], "late", 4), 4);
}

static void timeouts_pipe(void)
{
	struct pipe_case pc = { .main = act_self() };
	struct drain_case dc = { .main = act_self() };
	uint64_t cancels0 = stats_now().io_cancels;
	char buf[8];

	mkpipe(pc.p);
	/* read: never ready */
	memset(buf, 'Z', sizeof(buf));
	t_begin();
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1,
					     TMO), -ETIMEDOUT);
	t_check_not_early(TMO);
	ck_assert_uint_eq(stats_now().io_inflight, 0);
	ck_assert_int_eq(write(pc.p[1], "abcd", 4), 4);
	act_sleep(5 * MS);
	ck_assert_int_eq(unread(pc.p[0]), 4); /* nobody took it */
	ck_assert(!memcmp(buf, "ZZZZZZZZ", 8));
	/* 0: at once, done if ready, else -ETIMEDOUT */
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1, 0),
			 4);
	ck_assert(!memcmp(buf, "abcd", 4));
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1, 0),
			 -ETIMEDOUT);
	/* ready in time; no limit */
	spawn_ok(late_writer, &pc);
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1,
					     10 * SEC), 4);
	ck_assert(!memcmp(buf, "late", 4));
	spawn_ok(late_writer, &pc);
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, sizeof(buf), -1,
					     -1), 4);
	/* poll */
	t_begin();
	ck_assert_int_eq(act_io_poll_timeout(pc.p[0], POLLIN, TMO),
			 -ETIMEDOUT);
	t_check_not_early(TMO);
	ck_assert_int_eq(act_io_poll_timeout(pc.p[0], POLLIN, 0), -ETIMEDOUT);
	ck_assert_int_eq(act_io_poll_timeout(pc.p[1], POLLOUT, 0), POLLOUT);
	spawn_ok(late_writer, &pc);
	ck_assert_int_eq(act_io_poll_timeout(pc.p[0], POLLIN, 10 * SEC),
			 POLLIN);
	ck_assert_int_eq(read(pc.p[0], buf, sizeof(buf)), 4);
	/* write: a full pipe */
	fill_up(pc.p[1], false);
	t_begin();
	ck_assert_int_eq(act_io_write_timeout(pc.p[1], "w", 1, -1, TMO),
			 -ETIMEDOUT);
	t_check_not_early(TMO);
	ck_assert_int_eq(act_io_write_timeout(pc.p[1], "w", 1, -1, 0),
			 -ETIMEDOUT);
	dc.fd = pc.p[0];
	spawn_ok(drainer, &dc);
	ck_assert_int_eq(act_io_write_timeout(pc.p[1], "w", 1, -1, 10 * SEC),
			 1);
	act_msg_free(receive_tag(19)); /* the drainer is done with p[0] */
	/* close: it never waits */
	ck_assert_int_eq(act_io_close_timeout(pc.p[1], 0), 0);
	ck_assert_int_eq(act_io_close_timeout(pc.p[0], 10 * SEC), 0);
	ck_assert_int_eq(act_io_close_timeout(pc.p[0], 10 * SEC), -EBADF);
	/* each timeout above was a cancel */
	ck_assert_uint_eq(stats_now().io_cancels - cancels0, 6);
}

static void timeouts_socket(void)
{
	struct drain_case dc = { .main = act_self() };
	char buf[8];
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	t_begin();
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0, TMO),
			 -ETIMEDOUT);
	t_check_not_early(TMO);
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0, 0),
			 -ETIMEDOUT);
	ck_assert_int_eq(send(sv[0], "data", 4, 0), 4);
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, sizeof(buf), 0, 0),
			 4);
	ck_assert_int_eq(act_io_send_timeout(sv[1], "back", 4, 0, 0), 4);
	ck_assert_int_eq(act_io_recv_timeout(sv[0], buf, sizeof(buf), 0,
					     10 * SEC), 4);
	ck_assert(!memcmp(buf, "back", 4));
	/* a limit that comes after some bytes moved: the short count */
	ck_assert_int_eq(send(sv[0], "half", 4, 0), 4);
	t_begin();
	ck_assert_int_eq(act_io_recv_timeout(sv[1], buf, 8, MSG_WAITALL, TMO),
			 4);
	t_check_not_early(TMO);
	ck_assert(!memcmp(buf, "half", 4));
	/* send: a full buffer */
	fill_up(sv[0], true);
	t_begin();
	ck_assert_int_eq(act_io_send_timeout(sv[0], "s", 1, 0, TMO),
			 -ETIMEDOUT);
	t_check_not_early(TMO);
	dc.fd = sv[1];
	dc.sock = true;
	spawn_ok(drainer, &dc);
	ck_assert_int_eq(act_io_send_timeout(sv[0], "s", 1, 0, 10 * SEC), 1);
	act_msg_free(receive_tag(19));
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
	tc.l = tcp_bound(&tc.a, 4);
	t_begin();
	ck_assert_int_eq(act_io_accept_timeout(tc.l, NULL, NULL, 0, TMO),
			 -ETIMEDOUT);
	t_check_not_early(TMO);
	ck_assert_int_eq(act_io_accept_timeout(tc.l, NULL, NULL, 0, 0),
			 -ETIMEDOUT);
	spawn_ok(connector, &tc);
	fd = act_io_accept_timeout(tc.l, NULL, NULL, SOCK_CLOEXEC, 10 * SEC);
	ck_assert_int_ge(fd, 0);
	m = receive_tag(8);
	memcpy(&s, m->data, sizeof(s));
	act_msg_free(m);
	close(s);
	close(fd);
	/* connect: in time to a listener with room */
	s = tcp_socket();
	ck_assert_int_eq(act_io_connect_timeout(s, SA(&tc.a), sizeof(tc.a),
						10 * SEC), 0);
	close(s);
	close(tc.l);
	/* connect: a listener whose accept queue is full drops the SYN,
	 * and the next try is a second away */
	lf = tcp_bound(&full, 0);
	s1 = tcp_socket();
	ck_assert_int_eq(connect(s1, SA(&full), sizeof(full)), 0);
	s2 = tcp_socket();
	t_begin();
	ck_assert_int_eq(act_io_connect_timeout(s2, SA(&full), sizeof(full),
						TMO), -ETIMEDOUT);
	t_check_not_early(TMO);
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
	ck_assert(wait_no_inflight());
}

START_TEST(timeout_forms)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, timeouts_main, NULL), 0);
}
END_TEST

/* ---- other processes run while one waits -------------------------------- */

#define PINGS (UNDER_TSAN ? 2000 : 20000)

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
		ck_assert_int_eq(act_send(bc->pong, i + 1 == PINGS ? 2 : 1,
					  NULL, 0), 0);
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
	mkpipe(bc.p);
	rd = spawn_ok(busy_reader, &bc);
	ck_assert(wait_iowait(rd));
	bc.pong = spawn_ok(busy_pong, NULL);
	spawn_ok(busy_ping, &bc);
	m = receive_tag(10);
	memcpy(&early, m->data, sizeof(early));
	act_msg_free(m);
	ck_assert_int_eq(early, 0);
	ck_assert_int_eq(atomic_load(&bc.read_done), 0); /* still waiting */
	ck_assert_int_eq(write(bc.p[1], "done", 4), 4);
	m = receive_tag(9);
	memcpy(&n, m->data, sizeof(n));
	act_msg_free(m);
	ck_assert_int_eq(n, 4);
	close_pair(bc.p);
}

START_TEST(others_run_while_waiting)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, busy_main, NULL), 0);
}
END_TEST

/* ---- messages do not end an I/O wait ------------------------------------ */

struct mw_case {
	int p[2];
	act_pid main;
	bool timed;
	_Atomic int done;
};

static void mw_reader(void *arg)
{
	struct mw_case *mw = arg;
	int64_t t0 = act__now_ns();
	struct act_msg *m;
	ssize_t n;
	char buf[8];
	int i, bad = 0;

	if (mw->timed) {
		n = act_io_read_timeout(mw->p[0], buf, sizeof(buf), -1, TMO);
		bad += n != -ETIMEDOUT;
		bad += act__now_ns() - t0 < TMO;
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

static void mw_main(void *arg)
{
	static struct mw_case mw;
	struct act_msg *m;
	act_pid rd;
	int i, bad, timed;

	(void)arg;
	mw.main = act_self();
	mkpipe(mw.p);
	for (timed = 0; timed < 2; timed++) {
		mw.timed = timed;
		atomic_store(&mw.done, 0);
		rd = spawn_ok(mw_reader, &mw);
		ck_assert(wait_iowait(rd));
		for (i = 0; i < 5; i++)
			ck_assert_int_eq(act_send(rd, 20 + (uint32_t)i, &i,
						  sizeof(i)), 0);
		if (!timed) {
			act_sleep(20 * MS);
			ck_assert_int_eq(atomic_load(&mw.done), 0);
			ck_assert(wait_iowait(rd));
			ck_assert_int_eq(write(mw.p[1], "data", 4), 4);
		}
		m = receive_tag(11);
		memcpy(&bad, m->data, sizeof(bad));
		act_msg_free(m);
		ck_assert_int_eq(bad, 0);
		ck_assert(gone(rd));
	}
	close_pair(mw.p);
}

START_TEST(messages_keep_io_waiting)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, mw_main, NULL), 0);
}
END_TEST

/* ---- act_kill ------------------------------------------------------------ */

struct kill_basic {
	int p[2];
	int l;
	int sv[2];
	_Atomic int after; /* a victim ran past its blocking call */
	_Atomic int self_stage;
};

static void kb_receiver(void *arg)
{
	struct kill_basic *kb = arg;

	act_receive(ACT_FOREVER);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_sleeper(void *arg)
{
	struct kill_basic *kb = arg;

	act_sleep(HOUR);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_yielder(void *arg)
{
	(void)arg;
	for (;;)
		act_yield();
}

static void kb_reader(void *arg)
{
	struct kill_basic *kb = arg;
	char buf[8];

	act_io_read(kb->p[0], buf, sizeof(buf), -1);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_timed_recv(void *arg)
{
	struct kill_basic *kb = arg;
	char buf[8];

	act_io_recv_timeout(kb->sv[0], buf, sizeof(buf), 0, HOUR);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_acceptor(void *arg)
{
	struct kill_basic *kb = arg;

	act_io_accept(kb->l, NULL, NULL, 0);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_poller(void *arg)
{
	struct kill_basic *kb = arg;

	act_io_poll(kb->sv[0], POLLIN);
	atomic_fetch_add(&kb->after, 1);
}

/* Kills itself: it runs no further than its next yield (the library
 * ends it at once, inside act_kill). */
static void kb_self(void *arg)
{
	struct kill_basic *kb = arg;

	atomic_store(&kb->self_stage, 1);
	act_kill(act_self(), 5);
	act_yield();
	atomic_store(&kb->self_stage, 2);
}

struct foreign_kill {
	act_pid victim;
	int rc;
};

static void *foreign_killer(void *arg)
{
	struct foreign_kill *fk = arg;

	fk->rc = act_kill(fk->victim, ACT_EXIT_KILL);
	return NULL;
}

static void kill_basics_main(void *arg)
{
	static void (*const victims[])(void *) = {
		kb_receiver, kb_sleeper, kb_yielder, kb_reader,
		kb_timed_recv, kb_acceptor, kb_poller,
	};
	static struct kill_basic kb;
	struct foreign_kill fk;
	struct sockaddr_in a;
	act_pid v[8], s;
	pthread_t t;
	unsigned i, n = sizeof(victims) / sizeof(victims[0]);

	(void)arg;
	atomic_store(&kb.after, 0);
	atomic_store(&kb.self_stage, 0);
	mkpipe(kb.p);
	kb.l = tcp_bound(&a, 4);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    kb.sv), 0);
	for (i = 0; i < n; i++)
		v[i] = spawn_ok(victims[i], &kb);
	ck_assert(wait_inflight(4)); /* read, recv, accept, poll */
	act_sleep(5 * MS);           /* the others in their waits */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_kill(v[i], 1000 + (intptr_t)i), 0);
	ck_assert_uint_eq(wait_all_gone(v, n), 0);
	ck_assert_int_eq(atomic_load(&kb.after), 0);
	ck_assert_uint_eq(stats_now().io_inflight, 0);
	/* dead, stale, none */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_kill(v[i], 1), -ESRCH);
	ck_assert_int_eq(act_kill(ACT_PID_NONE, 1), -ESRCH);
	/* itself, at its next yield */
	s = spawn_ok(kb_self, &kb);
	ck_assert(gone(s));
	ck_assert_int_eq(atomic_load(&kb.self_stage), 1);
	/* from a thread that is not a process */
	fk.victim = spawn_ok(kb_reader, &kb);
	ck_assert(wait_iowait(fk.victim));
	ck_assert_int_eq(pthread_create(&t, NULL, foreign_killer, &fk), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(fk.rc, 0);
	ck_assert(gone(fk.victim));
	ck_assert_int_eq(atomic_load(&kb.after), 0);
	/* nothing read the pipe, the socket or the listener meanwhile */
	ck_assert_int_eq(write(kb.p[1], "x", 1), 1);
	ck_assert_int_eq(unread(kb.p[0]), 1);
	close_pair(kb.p);
	close_pair(kb.sv);
	close(kb.l);
	ck_assert_uint_eq(stats_now().io_inflight, 0);
}

START_TEST(kill_basics)
{
	struct act_config cfg = cfg_for(_i);

	ck_assert_int_eq(run_main(&cfg, kill_basics_main, NULL), 0);
	ck_assert_int_eq(act_kill(ACT_PID_NONE, 1), -ESRCH); /* no runtime */
}
END_TEST

/* The main process killed while it waits: act_main returns the reason,
 * ACT_EXIT_KILL as ACT_EXIT_KILLED. */
struct main_kill {
	act_pid main;
	intptr_t reason;
	int p[2];
	bool in_io;
};

static void main_killer(void *arg)
{
	struct main_kill *mk = arg;
	int rc;

	if (mk->in_io)
		ck_assert(wait_inflight(1));
	else
		ck_assert(wait_receiving(mk->main));
	ck_assert_int_eq(act_kill(mk->main, mk->reason), 0);
	/* a second kill: 0 if it had not exited yet (-ESRCH if it had),
	 * and the first reason stays */
	rc = act_kill(mk->main, 99);
	ck_assert(rc == 0 || rc == -ESRCH);
}

static void killed_main(void *arg)
{
	struct main_kill *mk = arg;
	char buf[8];

	mk->main = act_self();
	spawn_ok(main_killer, mk);
	if (mk->in_io)
		act_io_read(mk->p[0], buf, sizeof(buf), -1);
	else
		act_receive(ACT_FOREVER);
	ck_abort_msg("the killed main process ran on");
}

START_TEST(kill_main)
{
	struct act_config cfg = with_workers(1 + _i);
	struct main_kill mk;

	mkpipe(mk.p);
	mk.in_io = true;
	mk.reason = 42;
	ck_assert_int_eq(run_main(&cfg, killed_main, &mk), 42);
	mk.reason = ACT_EXIT_KILL;
	ck_assert_int_eq(run_main(&cfg, killed_main, &mk), ACT_EXIT_KILLED);
	mk.in_io = false;
	mk.reason = 7;
	ck_assert_int_eq(run_main(&cfg, killed_main, &mk), 7);
	/* the reads were cancelled: what is written now stays */
	ck_assert_int_eq(write(mk.p[1], "x", 1), 1);
	ck_assert_int_eq(unread(mk.p[0]), 1);
	close_pair(mk.p);
}
END_TEST

/* ---- 1,000 processes killed mid-read (I6) ------------------------------ */

#define KILL_N (UNDER_TSAN ? 200 : 1000)
#define KBUF 256
#define KDEPTH 4096   /* the reader's buffer lies this deep in its stack */
#define PAD 16384     /* a painter's painted stack, which covers that */
#define PAINT 0x5a

struct kill_slot {
	int p[2];
	act_pid pid;
	uintptr_t buf;          /* where its buffer was */
	_Atomic int returned;   /* its act_io_read returned: must not */
};

struct painter {
	uintptr_t lo, hi;
	act_pid main;
};

static struct kill_slot ks[KILL_N];
static struct painter pt[KILL_N];
static act_pid kpids[KILL_N];
static unsigned kill_n;

static __attribute__((noinline)) void kill_read_deep(struct kill_slot *s)
{
	unsigned char buf[KBUF];

	memset(buf, 0, sizeof(buf));
	s->buf = (uintptr_t)buf;
	act_io_read(s->p[0], buf, sizeof(buf), -1);
	atomic_store(&s->returned, 1);
	__asm__ volatile("" : : "r"(buf) : "memory");
}

static void kill_reader(void *arg)
{
	volatile unsigned char spacer[KDEPTH];

	spacer[0] = 0;
	spacer[KDEPTH - 1] = 0;
	kill_read_deep(arg);
	/* no tail call: the spacer stays below */
	__asm__ volatile("" : : "r"(spacer) : "memory");
}

/* Paints PAD bytes of its stack, waits for the word, checks them. */
static void painter(void *arg)
{
	struct painter *pp = arg;
	volatile unsigned char pad[PAD];
	unsigned i, bad = 0;

	for (i = 0; i < PAD; i++)
		pad[i] = PAINT;
	pp->lo = (uintptr_t)&pad[0];
	pp->hi = (uintptr_t)&pad[PAD - 1] + 1;
	ck_assert_int_eq(act_send(pp->main, 12, NULL, 0), 0);
	act_msg_free(receive_tag(13));
	for (i = 0; i < PAD; i++)
		bad += pad[i] != PAINT;
	ck_assert_int_eq(act_send(pp->main, 14, &bad, sizeof(bad)), 0);
}

static void readers_start(unsigned n, void (*fn)(void *))
{
	unsigned i;

	for (i = 0; i < n; i++) {
		mkpipe(ks[i].p);
		atomic_store(&ks[i].returned, 0);
		ks[i].buf = 0;
		ks[i].pid = kpids[i] = spawn_ok(fn, &ks[i]);
	}
}

static unsigned readers_returned(unsigned n)
{
	unsigned i, r = 0;

	for (i = 0; i < n; i++)
		r += atomic_load(&ks[i].returned);
	return r;
}

static void readers_close(unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		close_pair(ks[i].p);
}

/* Readers whose buffer lay inside some painter's paint. */
static unsigned painted_over(unsigned n)
{
	unsigned i, j, covered = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (ks[i].buf >= pt[j].lo &&
			    ks[i].buf + KBUF <= pt[j].hi) {
				covered++;
				break;
			}
	return covered;
}

static void kill_mid_read_main(void *arg)
{
	static unsigned char data[KBUF];
	static act_pid ppids[KILL_N];
	struct act_stats s0, s1;
	unsigned i, n = kill_n, kill_fails = 0, left = 0, bad = 0, b;
	act_pid self = act_self();
	struct act_msg *m;

	(void)arg;
	s0 = stats_now();
	readers_start(n, kill_reader);
	ck_assert(wait_inflight(n));
	for (i = 0; i < n; i++)
		kill_fails += act_kill(ks[i].pid, ACT_EXIT_KILL) != 0;
	ck_assert_uint_eq(kill_fails, 0);
	ck_assert_uint_eq(wait_all_gone(kpids, n), 0);
	/* I6: each exited only after its operation's completion came */
	s1 = stats_now();
	ck_assert_uint_eq(s1.io_inflight, 0);
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, n);
	ck_assert_uint_eq(s1.io_cancels - s0.io_cancels, n);
	ck_assert_uint_eq(readers_returned(n), 0);
	/* new processes on the dead ones' stacks, painted */
	for (i = 0; i < n; i++) {
		pt[i].main = self;
		ppids[i] = spawn_ok(painter, &pt[i]);
	}
	for (i = 0; i < n; i++)
		act_msg_free(receive_tag(12));
	/* data into every pipe: no read is left to take it */
	memset(data, 0xab, sizeof(data));
	for (i = 0; i < n; i++)
		bad += write(ks[i].p[1], data, sizeof(data)) != KBUF;
	ck_assert_uint_eq(bad, 0);
	act_sleep(20 * MS);
	for (i = 0; i < n; i++)
		left += unread(ks[i].p[0]) == KBUF;
	ck_assert_uint_eq(left, n);
	/* the painters look at their paint */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_send(ppids[i], 13, NULL, 0), 0);
	for (i = 0; i < n; i++) {
		m = receive_tag(14);
		memcpy(&b, m->data, sizeof(b));
		bad += b;
		act_msg_free(m);
	}
	ck_assert_uint_eq(bad, 0);
	/* the check meant something: dead readers' buffers were painted */
	ck_assert_uint_gt(painted_over(n), 0);
	ck_assert_uint_eq(readers_returned(n), 0);
}

START_TEST(kill_mid_read)
{
	struct act_config cfg = cfg_for(_i);

	kill_n = pipe_readers(KILL_N);
	ck_assert_uint_ge(kill_n, 100);
	ck_assert_int_eq(run_main(&cfg, kill_mid_read_main, NULL), 0);
	readers_close(kill_n);
}
END_TEST

/* Kills and writes interleaved: each read either completed with the data
 * (its completion came before its process exited) or was cancelled, never
 * both. A read killed before its data was written never returned; one
 * whose data came first may have returned before the kill came. */
static void plain_reader(void *arg)
{
	struct kill_slot *s = arg;
	unsigned char buf[KBUF];

	act_io_read(s->p[0], buf, sizeof(buf), -1);
	atomic_store(&s->returned, 1);
}

static void kill_race_main(void *arg)
{
	static unsigned char data[KBUF];
	struct act_stats s0, s1;
	unsigned i, n = kill_n, kill_fails = 0, bad = 0, drained = 0;
	unsigned kept = 0, partial = 0;
	int u, rc;

	(void)arg;
	memset(data, 0xcd, sizeof(data));
	s0 = stats_now();
	readers_start(n, plain_reader);
	ck_assert(wait_inflight(n));
	for (i = 0; i < n; i++) {
		if (i % 2) { /* data first: it may return and exit first */
			bad += write(ks[i].p[1], data, KBUF) != KBUF;
			rc = act_kill(ks[i].pid, ACT_EXIT_KILL);
			kill_fails += rc != 0 && rc != -ESRCH;
		} else {
			kill_fails += act_kill(ks[i].pid, ACT_EXIT_KILL) != 0;
			bad += write(ks[i].p[1], data, KBUF) != KBUF;
		}
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(kill_fails, 0);
	ck_assert_uint_eq(wait_all_gone(kpids, n), 0);
	s1 = stats_now();
	ck_assert_uint_eq(s1.io_inflight, 0);
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, n);
	for (i = 0; i < n; i += 2)
		bad += atomic_load(&ks[i].returned);
	ck_assert_uint_eq(bad, 0);
	act_sleep(10 * MS);
	for (i = 0; i < n; i++) {
		u = unread(ks[i].p[0]);
		drained += u == 0;
		kept += u == KBUF;
		partial += u != 0 && u != KBUF;
	}
	ck_assert_uint_eq(partial, 0);
	ck_assert_uint_eq(drained + kept, n);
	/* a cancelled read took nothing, a completed one all */
	ck_assert_uint_eq(kept, s1.io_cancels - s0.io_cancels);
}

START_TEST(kill_races_completion)
{
	struct act_config cfg = cfg_for(_i);

	kill_n = pipe_readers(KILL_N);
	ck_assert_uint_ge(kill_n, 100);
	ck_assert_int_eq(run_main(&cfg, kill_race_main, NULL), 0);
	readers_close(kill_n);
}
END_TEST

/* ---- the main process returns while others wait in reads -------------- */

#define STOP_N 100

static void stop_main(void *arg)
{
	(void)arg;
	readers_start(STOP_N, plain_reader);
	ck_assert(wait_inflight(STOP_N));
	/* returns: the runtime stops with 100 reads in the kernel */
}

START_TEST(stop_with_reads_in_flight)
{
	struct act_config cfg = cfg_for(_i);
	static unsigned char data[KBUF];
	unsigned i, left = 0;

	ck_assert_int_eq(run_main(&cfg, stop_main, NULL), 0); /* no leaks */
	ck_assert_ptr_null(act__rt_current);
	ck_assert_uint_eq(readers_returned(STOP_N), 0);
	/* no read is left in any kernel queue to take this */
	for (i = 0; i < STOP_N; i++) {
		ck_assert_int_eq(write(ks[i].p[1], data, KBUF), KBUF);
		left += unread(ks[i].p[0]) == KBUF;
	}
	ck_assert_uint_eq(left, STOP_N);
	readers_close(STOP_N);
	/* and a runtime starts again */
	ck_assert_int_eq(run_main(&cfg, pipe_main, NULL), 0);
}
END_TEST

/* ---- descriptor exhaustion: EMFILE from accept, and a backing-off acceptor */

#define BACKOFF (10 * MS)
#define EMFILE_LIMIT 64

struct emfile_case {
	int l;
	act_pid main;
};

static void backoff_acceptor(void *arg)
{
	struct emfile_case *ec = arg;
	int res[2] = { 0, 0 }; /* the descriptor, the EMFILEs seen */

	while ((res[0] = act_io_accept(ec->l, NULL, NULL, SOCK_CLOEXEC)) ==
	       -EMFILE) {
		res[1]++;
		ck_assert_int_eq(act_sleep(BACKOFF), 0);
	}
	ck_assert_int_eq(act_send(ec->main, 15, res, sizeof(res)), 0);
}

/* Open /dev/null until EMFILE; returns how many were opened. */
static int fill_fds(int *fds, int max)
{
	int n = 0, fd;

	while (n < max && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		fds[n++] = fd;
	ck_assert_int_lt(n, max);
	ck_assert_int_eq(errno, EMFILE);
	return n;
}

static void emfile_main(void *arg)
{
	struct emfile_case ec = { .main = act_self() };
	int fillers[EMFILE_LIMIT], n, fd, c1, c2, res[2];
	struct sockaddr_in a;
	struct act_stats s0, s1;
	struct act_msg *m;
	int64_t t0, t1;
	uint64_t calls, bound;
	char b;

	(void)arg;
	ec.l = tcp_bound(&a, 8);
	c1 = tcp_socket();
	ck_assert_int_eq(connect(c1, SA(&a), sizeof(a)), 0); /* queued */
	n = fill_fds(fillers, EMFILE_LIMIT);
	ck_assert_int_eq(act_io_accept(ec.l, NULL, NULL, SOCK_CLOEXEC),
			 -EMFILE);
	ck_assert_int_eq(act_io_accept_timeout(ec.l, NULL, NULL, 0, 10 * SEC),
			 -EMFILE);
	close(fillers[--n]);
	close(fillers[--n]);
	/* the connection waited in the queue: accepted now */
	fd = act_io_accept(ec.l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(send(c1, "x", 1, 0), 1);
	ck_assert_int_eq(act_io_recv(fd, &b, 1, 0), 1);
	ck_assert_int_eq(b, 'x');
	close(fd);
	close(c1);
	c2 = tcp_socket();
	ck_assert_int_eq(connect(c2, SA(&a), sizeof(a)), 0);
	n += fill_fds(fillers + n, EMFILE_LIMIT - n);
	/* an acceptor that sleeps BACKOFF after each EMFILE makes at most
	 * one accept per BACKOFF, whatever else runs (sleeps are never
	 * short): no spin, in the process or in the runtime */
	s0 = stats_now();
	t0 = act__now_ns();
	spawn_ok(backoff_acceptor, &ec);
	act_sleep(200 * MS);
	s1 = stats_now();
	t1 = act__now_ns();
	calls = s1.io_ops - s0.io_ops;
	bound = (uint64_t)((t1 - t0) / BACKOFF) + 2;
	ck_assert_uint_ge(calls, 1);
	ck_assert_msg(calls <= bound, "%llu accepts in %lld ms (at most %llu)",
		      (unsigned long long)calls, (long long)((t1 - t0) / MS),
		      (unsigned long long)bound);
	close(fillers[--n]);
	close(fillers[--n]);
	m = receive_tag(15);
	memcpy(res, m->data, sizeof(res));
	act_msg_free(m);
	ck_assert_int_ge(res[0], 0);
	ck_assert_int_ge(res[1], 1);
	ck_assert_int_eq(send(c2, "y", 1, 0), 1);
	ck_assert_int_eq(act_io_recv(res[0], &b, 1, 0), 1);
	ck_assert_int_eq(b, 'y');
	close(res[0]);
	close(c2);
	close(ec.l);
	while (n > 0)
		close(fillers[--n]);
}

static void emfile_child(void *arg)
{
	struct act_config cfg = with_workers((int)(intptr_t)arg);
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = EMFILE_LIMIT;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	_exit(act_main(&cfg, emfile_main, NULL) == 0 ? 0 : 1);
}

START_TEST(accept_emfile)
{
	struct tu_child c;

	tu_run_child(emfile_child, (void *)(intptr_t)(1 + _i), &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
}
END_TEST

/* ---- a one-entry ring: 1,000 reads outstanding, none lost ------------- */

#define RING1_N (UNDER_TSAN ? 200 : 1000)
#define R1_MAGIC 0x5eed000000000000ull

static act_pid r1_main_pid;
static bool r1_timed;

/* With r1_timed, every other reader uses the _timeout form (two SQ
 * entries: the read and its linked timeout). */
static void r1_reader(void *arg)
{
	struct kill_slot *s = arg;
	uint64_t res[3] = { (uint64_t)(s - ks), 0, 0 };
	ssize_t n;

	if (r1_timed && res[0] % 2)
		n = act_io_read_timeout(s->p[0], &res[2], 8, -1, 600 * SEC);
	else
		n = act_io_read(s->p[0], &res[2], 8, -1);
	res[1] = (uint64_t)n;
	ck_assert_int_eq(act_send(r1_main_pid, 16, res, sizeof(res)), 0);
}

/* n readers, each with a read outstanding, then data for each. */
static void r1_round(unsigned n, bool timed)
{
	unsigned i, bad = 0;
	uint64_t res[3], v;
	struct act_msg *m;

	r1_timed = timed;
	readers_start(n, r1_reader);
	ck_assert(wait_inflight(n));
	for (i = 0; i < n; i++) {
		v = R1_MAGIC | i;
		bad += write(ks[i].p[1], &v, sizeof(v)) != sizeof(v);
	}
	ck_assert_uint_eq(bad, 0);
	for (i = 0; i < n; i++) {
		m = receive_tag(16);
		memcpy(res, m->data, sizeof(res));
		act_msg_free(m);
		bad += res[1] != 8 || res[2] != (R1_MAGIC | res[0]);
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert(wait_no_inflight());
	readers_close(n);
}

/* Timed calls alone; reports how many went wrong. */
static void r1_timed_alone(void *arg)
{
	unsigned bad = 0;
	char buf[8];
	int p[2];

	(void)arg;
	mkpipe(p);
	bad += act_io_read_timeout(p[0], buf, sizeof(buf), -1, TMO) !=
	       -ETIMEDOUT;
	bad += act_io_write_timeout(p[1], "12345678", 8, -1, SEC) != 8;
	bad += act_io_read_timeout(p[0], buf, sizeof(buf), -1, SEC) != 8;
	close_pair(p);
	ck_assert_int_eq(act_send(r1_main_pid, 17, &bad, sizeof(bad)), 0);
}

static void ring1_main(void *arg)
{
	struct act_msg *m;
	unsigned bad;

	(void)arg;
	ck_assert_uint_eq(act__rt_current->cfg.ring_entries, 1);
	r1_main_pid = act_self();
	r1_round(kill_n, false);
	/* a timed operation takes two entries: it must complete anyway
	 * (it once waited for ever: 4cf464f); a bounded wait, so that a
	 * hang fails here and not by the case's timeout */
	spawn_ok(r1_timed_alone, NULL);
	m = act_receive_match(tag_is, (void *)(uintptr_t)17, 10 * SEC);
	ck_assert_msg(m != NULL, "a _timeout call on a ring of one entry "
				 "never completed");
	memcpy(&bad, m->data, sizeof(bad));
	act_msg_free(m);
	ck_assert_uint_eq(bad, 0);
	r1_round(kill_n, true);
}

START_TEST(ring_of_one_loses_nothing)
{
	struct act_config cfg = with_workers(_i ? 4 : 1);

	cfg.ring_entries = 1;
	kill_n = pipe_readers(RING1_N);
	ck_assert_uint_ge(kill_n, 100);
	ck_assert_int_eq(run_main(&cfg, ring1_main, NULL), 0);
}
END_TEST

/* ---- signals at the reactor thread lose nothing ------------------------ */

#define SIG_PAIRS 100
#define SIG_MIN (UNDER_TSAN ? 500 : 3000)
#define SIG_ROUNDS 20

static _Atomic unsigned long sigs_sent, sigs_got;
static _Atomic int sig_stop;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&sigs_got, 1, memory_order_relaxed);
}

/* The reactor thread's id, by its name; 0 if none is found. */
static pid_t reactor_tid(void)
{
	DIR *d = opendir("/proc/self/task");
	char path[300], comm[32];
	struct dirent *e;
	pid_t tid = 0;
	FILE *f;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strcmp(comm, "act-reactor\n"))
			tid = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	return tid;
}

/* Does thread tid block SIGUSR1 (its SigBlk mask)? */
static bool blocks_usr1(pid_t tid)
{
	char path[64], line[128];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ull << (SIGUSR1 - 1));
}

static void *sig_thread(void *arg)
{
	pid_t tid = *(pid_t *)arg;
	struct timespec ts = { 0, 20000 };

	while (!atomic_load(&sig_stop)) {
		if (syscall(SYS_tgkill, getpid(), tid, SIGUSR1) == 0)
			atomic_fetch_add(&sigs_sent, 1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

struct sig_pair {
	int ab[2], ba[2];
	act_pid main;
	uint64_t idx;
};

static struct sig_pair sps[SIG_PAIRS];

static void sig_ping(void *arg)
{
	struct sig_pair *sp = arg;
	uint64_t v, w = 0, r;
	unsigned bad = 0;

	for (r = 0; r < SIG_ROUNDS ||
		    (atomic_load(&sigs_sent) < SIG_MIN && r < 1000000);
	     r++) {
		v = sp->idx << 32 | r;
		bad += act_io_write(sp->ab[1], &v, 8, -1) != 8;
		bad += act_io_read(sp->ba[0], &w, 8, -1) != 8;
		bad += w != v + 1;
		if (r % 8 == 0)
			bad += act_sleep((int64_t)(r % 3) * 100000) != 0;
	}
	v = UINT64_MAX;
	bad += act_io_write(sp->ab[1], &v, 8, -1) != 8;
	ck_assert_int_eq(act_send(sp->main, 17, &bad, sizeof(bad)), 0);
}

static void sig_pong(void *arg)
{
	struct sig_pair *sp = arg;
	unsigned bad = 0;
	uint64_t v;

	for (;;) {
		if (act_io_read_timeout(sp->ab[0], &v, 8, -1, 600 * SEC) != 8) {
			bad++;
			break;
		}
		if (v == UINT64_MAX)
			break;
		if ((v & 7) == 3)
			bad += act_io_poll_timeout(sp->ba[1], POLLOUT,
						   600 * SEC) != POLLOUT;
		if ((v & 15) == 5)
			bad += act_sleep(50000) != 0;
		v++;
		bad += act_io_write(sp->ba[1], &v, 8, -1) != 8;
	}
	ck_assert_int_eq(act_send(sp->main, 18, &bad, sizeof(bad)), 0);
}

static void sig_main(void *arg)
{
	struct sigaction sa;
	unsigned i, bad = 0, b;
	struct act_msg *m;
	pthread_t t;
	pid_t tid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = *(int *)arg ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	atomic_store(&sigs_sent, 0);
	atomic_store(&sigs_got, 0);
	atomic_store(&sig_stop, 0);
	tid = reactor_tid();
	ck_assert_int_gt(tid, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, sig_thread, &tid), 0);
	for (i = 0; i < SIG_PAIRS; i++) {
		sps[i].main = act_self();
		sps[i].idx = i;
		mkpipe(sps[i].ab);
		mkpipe(sps[i].ba);
		spawn_ok(sig_pong, &sps[i]);
		spawn_ok(sig_ping, &sps[i]);
	}
	for (i = 0; i < 2 * SIG_PAIRS; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(&b, m->data, sizeof(b));
		bad += b;
		act_msg_free(m);
	}
	atomic_store(&sig_stop, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_ge(atomic_load(&sigs_sent), SIG_MIN);
	/* the reactor took them (unless the runtime blocks the signal
	 * there, which is as good) */
	if (!blocks_usr1(tid))
		ck_assert_uint_gt(atomic_load(&sigs_got), 0);
	for (i = 0; i < SIG_PAIRS; i++) {
		close_pair(sps[i].ab);
		close_pair(sps[i].ba);
	}
	ck_assert(wait_no_inflight());
}

START_TEST(signals_at_reactor)
{
	struct act_config cfg = with_workers(2);
	int restart = _i;

	ck_assert_int_eq(run_main(&cfg, sig_main, &restart), 0);
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

	mkpipe(p);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	l = tcp_bound(&a, 4);
	bad += act_io_read(p[0], buf, 1, -1) != -ENOSYS;
	bad += act_io_write(p[1], "x", 1, -1) != -ENOSYS;
	bad += act_io_recv(sv[0], buf, 1, 0) != -ENOSYS;
	bad += act_io_send(sv[0], "x", 1, 0) != -ENOSYS;
	bad += act_io_accept(l, SA(&a), &al, 0) != -ENOSYS;
	bad += act_io_connect(sv[0], SA(&a), sizeof(a)) != -ENOSYS;
	bad += act_io_close(p[0]) != -ENOSYS;
	bad += act_io_poll(p[1], POLLOUT) != -ENOSYS;
	bad += act_io_read_timeout(p[0], buf, 1, -1, SEC) != -ENOSYS;
	bad += act_io_write_timeout(p[1], "x", 1, -1, 0) != -ENOSYS;
	bad += act_io_recv_timeout(sv[0], buf, 1, 0, -1) != -ENOSYS;
	bad += act_io_send_timeout(sv[0], "x", 1, 0, SEC) != -ENOSYS;
	bad += act_io_accept_timeout(l, NULL, NULL, 0, SEC) != -ENOSYS;
	bad += act_io_connect_timeout(sv[0], SA(&a), sizeof(a), SEC) !=
	       -ENOSYS;
	bad += act_io_close_timeout(p[1], SEC) != -ENOSYS;
	bad += act_io_poll_timeout(p[1], POLLOUT, SEC) != -ENOSYS;
	/* nothing happened to them */
	bad += fcntl(p[0], F_GETFD) < 0 || fcntl(p[1], F_GETFD) < 0;
	bad += unread(p[0]) != 0;
	close_pair(p);
	close_pair(sv);
	close(l);
	return bad;
}

static void enosys_main(void *arg)
{
	struct kill_basic kb;
	struct act_msg *m;
	act_pid v;

	(void)arg;
	ck_assert_uint_eq(enosys_calls(), 0);
	/* messages, timers and act_kill work */
	ck_assert_int_eq(act_send(act_self(), 3, "m", 1), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 3);
	act_msg_free(m);
	ck_assert_int_eq(act_sleep(MS), 0);
	ck_assert_ptr_null(act_receive(2 * MS));
	atomic_store(&kb.after, 0);
	v = spawn_ok(kb_receiver, &kb);
	ck_assert(wait_receiving(v));
	ck_assert_int_eq(act_kill(v, ACT_EXIT_KILL), 0);
	ck_assert(gone(v));
	ck_assert_int_eq(atomic_load(&kb.after), 0);
}

static void enosys_child(void *arg)
{
	struct act_config cfg = with_workers(2);

	(void)arg;
	setenv("ACT_TEST_RING", "none", 1);
	_exit(act_main(&cfg, enosys_main, NULL) == 0 ? 0 : 1);
}

START_TEST(no_ring_enosys)
{
	struct tu_child c;

	tu_run_child(enosys_child, NULL, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
	if (UNDER_ASAN) { /* its warnings about our stacks, 3 lines each */
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

	mkpipe(p);
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(write(p[1], "ab", 2), 2);
	bad += act_io_read(p[0], buf, 1, -1) != -EPERM;
	bad += act_io_write(p[1], "x", 1, -1) != -EPERM;
	bad += act_io_recv(p[0], buf, 1, 0) != -EPERM;
	bad += act_io_send(p[1], "x", 1, 0) != -EPERM;
	bad += act_io_accept(p[0], SA(&a), &al, 0) != -EPERM;
	bad += act_io_connect(p[0], SA(&a), sizeof(a)) != -EPERM;
	bad += act_io_close(p[0]) != -EPERM;
	bad += act_io_poll(p[0], POLLIN) != -EPERM;
	bad += act_io_read_timeout(p[0], buf, 1, -1, 0) != -EPERM;
	bad += act_io_write_timeout(p[1], "x", 1, -1, SEC) != -EPERM;
	bad += act_io_recv_timeout(p[0], buf, 1, 0, SEC) != -EPERM;
	bad += act_io_send_timeout(p[1], "x", 1, 0, SEC) != -EPERM;
	bad += act_io_accept_timeout(p[0], NULL, NULL, 0, SEC) != -EPERM;
	bad += act_io_connect_timeout(p[0], SA(&a), sizeof(a), SEC) != -EPERM;
	bad += act_io_close_timeout(p[0], SEC) != -EPERM;
	bad += act_io_poll_timeout(p[0], POLLIN, SEC) != -EPERM;
	/* nothing was done: both ends open, the data still there */
	bad += fcntl(p[0], F_GETFD) < 0 || fcntl(p[1], F_GETFD) < 0;
	bad += unread(p[0]) != 2;
	close_pair(p);
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
	struct act_config cfg = with_workers(2);

	ck_assert_uint_eq(eperm_calls(), 0); /* no runtime */
	ck_assert_int_eq(run_main(&cfg, eperm_main, NULL), 0);
}
END_TEST

/* ---- act_stats: the I/O and reactor counters ---------------------------- */

struct late_thread {
	int fd;
	int64_t ns;
};

static void *late_thread_write(void *arg)
{
	struct late_thread *lt = arg;
	struct timespec ts = { 0, (long)lt->ns };

	nanosleep(&ts, NULL);
	ck_assert_int_eq(write(lt->fd, "t", 1), 1);
	return NULL;
}

static void stats_main(void *arg)
{
	struct act_stats s0, s1;
	struct late_thread lt;
	struct pipe_case pc = { .main = act_self() };
	pthread_t t;
	act_pid rd;
	char buf[8];
	int i;

	(void)arg;
	mkpipe(pc.p);
	s0 = stats_now();
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(act_io_write(pc.p[1], "s", 1, -1), 1);
		ck_assert_int_eq(act_io_read(pc.p[0], buf, 8, -1), 1);
	}
	s1 = stats_now();
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, 20);
	ck_assert_uint_eq(s1.io_cancels - s0.io_cancels, 0);
	ck_assert_uint_eq(s1.io_inflight, 0);
	ck_assert_uint_gt(s1.reactor_loops, s0.reactor_loops);
	/* one in flight while a reader waits */
	rd = spawn_ok(pipe_reader, &pc);
	ck_assert(wait_inflight(1));
	ck_assert_uint_eq(stats_now().io_inflight, 1);
	ck_assert_int_eq(write(pc.p[1], "r", 1), 1);
	act_msg_free(receive_tag(1));
	ck_assert(gone(rd));
	ck_assert_uint_eq(stats_now().io_inflight, 0);
	/* a wait long enough for the worker to sleep: the reactor wakes it */
	s0 = stats_now();
	lt = (struct late_thread){ pc.p[1], 20 * MS };
	ck_assert_int_eq(pthread_create(&t, NULL, late_thread_write, &lt), 0);
	ck_assert_int_eq(act_io_read(pc.p[0], buf, 8, -1), 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	s1 = stats_now();
	ck_assert_uint_ge(s1.reactor_wakes - s0.reactor_wakes, 1);
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, 1);
	/* a timeout is a cancel */
	ck_assert_int_eq(act_io_read_timeout(pc.p[0], buf, 8, -1, MS),
			 -ETIMEDOUT);
	s0 = stats_now();
	ck_assert_uint_eq(s0.io_ops - s1.io_ops, 1);
	ck_assert_uint_eq(s0.io_cancels - s1.io_cancels, 1);
	close_pair(pc.p);
}

START_TEST(io_stats)
{
	struct act_config cfg = with_workers(1);

	ck_assert_int_eq(run_main(&cfg, stats_main, NULL), 0);
}
END_TEST

/* Can this program make an io_uring at all (else its I/O cases leave)? */
static bool have_ring(void)
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
	return true;
}

/* A loop test over workers (or variants) 0..n-1, unless there is no
 * ring: then a SKIP line instead. */
static void add_io_loop(TCase *tc, bool no_ring, const TTest *t,
			const char *name, int n)
{
	if (no_ring) {
		printf("SKIP: %s (no io_uring)\n", name);
		fflush(stdout); /* before Check forks */
		return;
	}
	tcase_add_loop_test(tc, t, 0, n);
}

#define IO_LOOP(tc, fn, n) add_io_loop(tc, no_ring, fn, #fn, n)

/* Cases by area, each its own TCase: CK_RUN_CASE=kill runs one area. */
static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *ops = tcase_create("ops"), *tmo = tcase_create("timeouts");
	TCase *kill = tcase_create("kill"), *lim = tcase_create("limits");
	TCase *cfg = tcase_create("config");
	bool no_ring = !have_ring();

	tcase_set_timeout(ops, 60);
	IO_LOOP(ops, pipe_io, 3);
	IO_LOOP(ops, socketpair_io, 3);
	IO_LOOP(ops, tcp_loopback, 3);
	IO_LOOP(ops, file_io, 3);
	IO_LOOP(ops, poll_revents, 2);
	IO_LOOP(ops, errors_as_errno, 2);
	IO_LOOP(ops, others_run_while_waiting, 3);
	IO_LOOP(ops, messages_keep_io_waiting, 2);
	IO_LOOP(ops, io_stats, 1);
	suite_add_tcase(s, ops);

	tcase_set_timeout(tmo, 60);
	IO_LOOP(tmo, timeout_forms, 2);
	suite_add_tcase(s, tmo);

	tcase_set_timeout(kill, 60);
	IO_LOOP(kill, kill_basics, 3);
	IO_LOOP(kill, kill_main, 2);
	IO_LOOP(kill, kill_mid_read, 3);
	IO_LOOP(kill, kill_races_completion, 2);
	IO_LOOP(kill, stop_with_reads_in_flight, 3);
	suite_add_tcase(s, kill);

	tcase_set_timeout(lim, 60);
	IO_LOOP(lim, accept_emfile, 2);
	IO_LOOP(lim, ring_of_one_loses_nothing, 2);
	IO_LOOP(lim, signals_at_reactor, 2);
	suite_add_tcase(s, lim);

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
