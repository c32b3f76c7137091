/* SPDX-License-Identifier: MIT */
/*
 * echoload.c - the echo load generator (see echoload.h): connections,
 * the loop of each client thread (io_uring or epoll), and the latency
 * histogram.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "echoload.h"
#include "../examples/util.h"

#define NSEC 1000000000ull
#define MAX_EVENTS 128
#define POLL_MS 100 /* longest wait for events, so the deadline is seen */

/* ---- latency histogram -------------------------------------------------- */

/*
 * Log-linear, in nanoseconds: values below 2 * SUB have a bucket each;
 * above, each power of two [2^m, 2^(m+1)) is cut into SUB equal buckets.
 * A value's bucket is its top SUB_BITS + 1 bits, so the width of a bucket
 * is at most 1/SUB of its values: 3.1%.
 */
#define SUB_BITS 5
#define SUB (1u << SUB_BITS)
#define HIST_BUCKETS ((64 - SUB_BITS + 1) * SUB)

struct hist {
	uint64_t count;
	uint64_t max;
	uint64_t n[HIST_BUCKETS];
};

static unsigned hist_index(uint64_t v)
{
	unsigned shift;

	if (v < SUB)
		return (unsigned)v;
	shift = (unsigned)(63 - __builtin_clzll(v)) - SUB_BITS;
	return (shift + 1) * SUB + (unsigned)((v >> shift) - SUB);
}

/* The lowest and highest values of bucket i. */
static void hist_bounds(unsigned i, uint64_t *lo, uint64_t *hi)
{
	unsigned shift;
	uint64_t mant;

	if (i < 2 * SUB) {
		*lo = *hi = i;
		return;
	}
	shift = i / SUB - 1;
	mant = i % SUB + SUB;
	*lo = mant << shift;
	*hi = ((mant + 1) << shift) - 1;
}

static void hist_add(struct hist *h, uint64_t v)
{
	h->n[hist_index(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

static void hist_merge(struct hist *to, const struct hist *from)
{
	unsigned i;

	for (i = 0; i < HIST_BUCKETS; i++)
		to->n[i] += from->n[i];
	to->count += from->count;
	if (from->max > to->max)
		to->max = from->max;
}

/* The value at quantile q (0 < q <= 1): its bucket's middle, <= max. */
static uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi;
	unsigned i;

	if (h->count == 0)
		return 0;
	rank = (uint64_t)(q * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->n[i];
		if (seen >= rank)
			break;
	}
	hist_bounds(i, &lo, &hi);
	lo += (hi - lo) / 2;
	return lo < h->max ? lo : h->max;
}

/* ---- connections ------------------------------------------------------- */

struct conn {
	int fd;
	int index; /* among all connections, for messages */
	bool dead;
	bool want_out;	  /* EPOLLOUT is in its interest set */
	size_t sent, got; /* bytes of the request in flight */
	uint64_t seq;	  /* requests started */
	uint64_t t0;	  /* ns: its request's send */
	unsigned char *req, *resp;
};

/* One thread's share of the connections. */
struct client {
	const struct echoload_opts *o;
	const char *name; /* host:port, for messages */
	struct conn *conns;
	int n, alive;
	bool uring;	 /* the io_uring engine, else epoll */
	bool ring_live;	 /* ring is set up (uring) */
	bool poll_first; /* uring: the kernel takes POLL_FIRST receives */
	char probe_byte; /* uring: the probe's receive lands here */
	int ep;		 /* the epoll set (epoll), or -1 */
	struct io_uring ring;
	uint64_t t_measure, t_end; /* ns: window start and end */
	uint64_t requests, mismatches, lost;
	double cpu_s, wall_s; /* this thread's CPU and wall time, its run */
	int err;	      /* the -errno that stopped it, or 0 */
	bool said_lost, said_mismatch;
	pthread_t tid;
	struct hist *hist;
};

/* The request bytes: xorshift64 of the connection and sequence number. */
static void fill(unsigned char *p, size_t len, int index, uint64_t seq)
{
	uint64_t x = ((uint64_t)index << 40) ^ seq ^ 0x9e3779b97f4a7c15ull;
	size_t i, k;

	for (i = 0; i < len; i += k) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = len - i < 8 ? len - i : 8;
		memcpy(p + i, &x, k);
	}
}

static void conn_lose(struct client *c, struct conn *k, const char *what,
		      int err)
{
	if (!c->said_lost) {
		c->said_lost = true;
		fprintf(stderr, "echoload: %s, connection %d: %s%s\n", what,
			k->index, err ? strerror(err) : "closed by the server",
			" (further losses only counted)");
	}
	if (!c->uring)
		epoll_ctl(c->ep, EPOLL_CTL_DEL, k->fd, NULL);
	/* uring: an operation still in flight holds the socket until the
	 * ring goes; its completion is ignored (k->dead). */
	close(k->fd);
	k->dead = true;
	c->lost++;
	c->alive--;
}

static int set_out(struct client *c, struct conn *k, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0),
				  .data.ptr = k };

	if (k->want_out == on)
		return 0;
	if (epoll_ctl(c->ep, EPOLL_CTL_MOD, k->fd, &ev)) {
		c->err = -errno;
		fprintf(stderr, "echoload: epoll_ctl: %s\n", strerror(errno));
		return -1;
	}
	k->want_out = on;
	return 0;
}

/* Sends what it can of the request; -1 on a failure of the client. */
static int conn_send(struct client *c, struct conn *k)
{
	size_t size = c->o->size;
	ssize_t n;

	while (k->sent < size) {
		n = send(k->fd, k->req + k->sent, size - k->sent, MSG_NOSIGNAL);
		if (n > 0) {
			k->sent += (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			return set_out(c, k, true);
		} else {
			conn_lose(c, k, "send", n < 0 ? errno : EIO);
			return 0;
		}
	}
	return set_out(c, k, false);
}

static int uring_start(struct client *c, struct conn *k);

/* The next request: its bytes, then its send (and, uring, its receive). */
static int conn_start(struct client *c, struct conn *k, uint64_t now)
{
	fill(k->req, c->o->size, k->index, ++k->seq);
	k->sent = 0;
	k->got = 0;
	k->t0 = now;
	return c->uring ? uring_start(c, k) : conn_send(c, k);
}

/* A whole response: check and count it, then send the next request. */
static int conn_done(struct client *c, struct conn *k)
{
	uint64_t now = util_now_ns();

	if (memcmp(k->req, k->resp, c->o->size)) {
		c->mismatches++;
		if (!c->said_mismatch) {
			c->said_mismatch = true;
			fprintf(stderr,
				"echoload: connection %d: response "
				"%" PRIu64 " differs from its request "
				"(further ones only counted)\n",
				k->index, k->seq);
		}
	} else if (now >= c->t_measure && now < c->t_end) {
		c->requests++;
		hist_add(c->hist, now - k->t0);
	}
	return conn_start(c, k, now);
}

static int conn_recv(struct client *c, struct conn *k)
{
	size_t size = c->o->size;
	ssize_t n;

	for (;;) {
		n = recv(k->fd, k->resp + k->got, size - k->got, 0);
		if (n > 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		conn_lose(c, k, "recv", n < 0 ? errno : 0);
		return 0;
	}
	k->got += (size_t)n;
	if (k->got < size)
		return 0;
	if (k->sent < size) { /* an echo of bytes never sent */
		conn_lose(c, k, "recv", EPROTO);
		return 0;
	}
	return conn_done(c, k);
}

/* ---- the epoll engine ---------------------------------------------------- */

static int epoll_setup(struct client *c)
{
	struct epoll_event ev;
	int i;

	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep < 0) {
		c->err = -errno;
		fprintf(stderr, "echoload: epoll_create1: %s\n",
			strerror(errno));
		return -1;
	}
	for (i = 0; i < c->n; i++) {
		ev.events = EPOLLIN;
		ev.data.ptr = &c->conns[i];
		if (epoll_ctl(c->ep, EPOLL_CTL_ADD, c->conns[i].fd, &ev)) {
			c->err = -errno;
			fprintf(stderr, "echoload: epoll_ctl: %s\n",
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int client_events(struct client *c, struct epoll_event *ev, int n)
{
	struct conn *k;
	int i;

	for (i = 0; i < n; i++) {
		k = ev[i].data.ptr;
		if (!k->dead && (ev[i].events & EPOLLOUT) && conn_send(c, k))
			return -1;
		if (!k->dead && (ev[i].events & ~EPOLLOUT) && conn_recv(c, k))
			return -1;
	}
	return 0;
}

static void epoll_loop(struct client *c)
{
	struct epoll_event ev[MAX_EVENTS];
	uint64_t now = util_now_ns();
	int i, n, ms;

	for (i = 0; i < c->n; i++)
		if (conn_start(c, &c->conns[i], now))
			return;
	while (c->alive > 0) {
		now = util_now_ns();
		if (now >= c->t_end)
			break;
		ms = (int)((c->t_end - now + 999999) / 1000000);
		n = epoll_wait(c->ep, ev, MAX_EVENTS,
			       ms < POLL_MS ? ms : POLL_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			c->err = -errno;
			fprintf(stderr, "echoload: epoll_wait: %s\n",
				strerror(errno));
			return;
		}
		if (client_events(c, ev, n))
			return;
	}
}

/* ---- the io_uring engine -------------------------------------------------- */

/*
 * Each connection has at most one send and one receive in flight, so a
 * ring of 2n SQ entries never fills and a CQ of 2n + a few never
 * overflows (over 16,384 connections a thread, the SQ is capped: sqe()
 * submits to make room, and the kernel keeps overflowing CQEs). The
 * user_data is the connection's address with bit 0 saying which: struct
 * conn is aligned to 8.
 */
#define OP_SEND 0u
#define OP_RECV 1u
#define URING_MAX_SQ 32768u

static struct io_uring_sqe *sqe(struct client *c)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&c->ring);

	if (s == NULL) {
		io_uring_submit(&c->ring);
		s = io_uring_get_sqe(&c->ring);
	}
	if (s == NULL && c->err == 0) {
		c->err = -EBUSY;
		fprintf(stderr, "echoload: io_uring: no free SQ entry\n");
	}
	return s;
}

/* Queues the send of what is left of k's request. */
static int uring_send(struct client *c, struct conn *k)
{
	struct io_uring_sqe *s = sqe(c);

	if (s == NULL)
		return -1;
	io_uring_prep_send(s, k->fd, k->req + k->sent, c->o->size - k->sent,
			   MSG_NOSIGNAL);
	io_uring_sqe_set_data64(s, (uint64_t)(uintptr_t)k | OP_SEND);
	return 0;
}

/*
 * Queues the receive of what is left of k's response. A response's first
 * receive goes out with its request, before the echo can be there: it
 * waits for the socket to be readable instead of trying first, where the
 * kernel takes that (c->poll_first, probed when the ring is made).
 */
static int uring_recv(struct client *c, struct conn *k)
{
	struct io_uring_sqe *s = sqe(c);

	if (s == NULL)
		return -1;
	io_uring_prep_recv(s, k->fd, k->resp + k->got, c->o->size - k->got, 0);
	if (k->got == 0 && c->poll_first)
		s->ioprio |= IORING_RECVSEND_POLL_FIRST;
	io_uring_sqe_set_data64(s, (uint64_t)(uintptr_t)k | OP_RECV);
	return 0;
}

static int uring_start(struct client *c, struct conn *k)
{
	return uring_send(c, k) || uring_recv(c, k) ? -1 : 0;
}

/* One completion: res of k's send (op OP_SEND) or receive. */
static int uring_done(struct client *c, struct conn *k, unsigned op, int res)
{
	size_t size = c->o->size;

	if (k->dead)
		return 0;
	if (res == -EINTR || res == -EAGAIN) /* try it again */
		return op == OP_SEND ? uring_send(c, k) : uring_recv(c, k);
	if (op == OP_SEND) {
		if (res <= 0) {
			conn_lose(c, k, "send", res < 0 ? -res : EIO);
			return 0;
		}
		k->sent += (size_t)res;
		return k->sent < size ? uring_send(c, k) : 0;
	}
	if (res <= 0) {
		conn_lose(c, k, "recv", -res);
		return 0;
	}
	k->got += (size_t)res;
	/* A send's CQE comes before the CQE of its echo. */
	if (k->got > k->sent) { /* an echo of bytes never sent */
		conn_lose(c, k, "recv", EPROTO);
		return 0;
	}
	if (k->got < size)
		return uring_recv(c, k);
	return conn_done(c, k);
}

/*
 * Does the kernel take IORING_RECVSEND_POLL_FIRST (5.19+)? Asked once,
 * with a receive of a byte that is already there: it comes back with the
 * byte, or -EINVAL where the kernel refuses the flag (5.10 rejects any
 * ioprio on a receive). The answer cannot come from the receives of the
 * load itself: by the first -EINVAL every connection's first receive is
 * in the ring with the flag, and each would be one more -EINVAL.
 */
static bool uring_probe_poll_first(struct client *c)
{
	struct io_uring_sqe *s;
	struct io_uring_cqe *cqe;
	bool yes = false;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	c->probe_byte = 1;
	if (write(sv[0], &c->probe_byte, 1) != 1)
		goto out;
	s = io_uring_get_sqe(&c->ring);
	if (s == NULL)
		goto out;
	io_uring_prep_recv(s, sv[1], &c->probe_byte, 1, 0);
	s->ioprio |= IORING_RECVSEND_POLL_FIRST;
	io_uring_sqe_set_data64(s, 0);
	do
		rc = io_uring_submit_and_wait(&c->ring, 1);
	while (rc == -EINTR);
	/* an entry the kernel did not take goes with the load's first
	 * submit: its target is c's and uring_reap skips its answer */
	if (rc < 1)
		goto out;
	do
		rc = io_uring_wait_cqe(&c->ring, &cqe);
	while (rc == -EINTR);
	if (rc == 0) {
		yes = cqe->res == 1;
		io_uring_cqe_seen(&c->ring, cqe);
	}
out:
	close(sv[0]);
	close(sv[1]);
	return yes;
}

/* The ring, in the thread that submits to it (SINGLE_ISSUER). */
static int uring_setup(struct client *c)
{
	struct io_uring_params p;
	unsigned sq = 2u * (unsigned)c->n, cq;
	int rc;

	if (sq < 8)
		sq = 8;
	if (sq > URING_MAX_SQ)
		sq = URING_MAX_SQ;
	cq = 2u * (unsigned)c->n + 8;
	if (cq < 2 * sq)
		cq = 2 * sq;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP |
		  IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	p.cq_entries = cq;
	rc = io_uring_queue_init_params(sq, &c->ring, &p);
	if (rc == -EINVAL) { /* before 6.1: no DEFER_TASKRUN */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
		p.cq_entries = cq;
		rc = io_uring_queue_init_params(sq, &c->ring, &p);
	}
	if (rc) {
		c->err = rc;
		fprintf(stderr, "echoload: io_uring_queue_init: %s\n",
			strerror(-rc));
		return -1;
	}
	c->ring_live = true;
	c->poll_first = uring_probe_poll_first(c);
	return 0;
}

/* Takes every completion there is; -1 when the client must stop. */
static int uring_reap(struct client *c)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	uint64_t ud;
	int rc = 0;

	io_uring_for_each_cqe(&c->ring, head, cqe) {
		seen++;
		ud = cqe->user_data;
		/* liburing's own wait, or a late answer to the probe */
		if (ud == LIBURING_UDATA_TIMEOUT || ud == 0)
			continue;
		rc = uring_done(c, (struct conn *)(uintptr_t)(ud & ~1ull),
				(unsigned)(ud & 1), cqe->res);
		if (rc)
			break;
	}
	io_uring_cq_advance(&c->ring, seen);
	return rc;
}

/*
 * Submits everything queued and waits for a completion in one system
 * call, then takes the completions: per loop, one io_uring_enter for
 * every request that completed in the last.
 */
static void uring_loop(struct client *c)
{
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	uint64_t now = util_now_ns(), left;
	int i, rc;

	for (i = 0; i < c->n; i++)
		if (conn_start(c, &c->conns[i], now))
			return;
	while (c->alive > 0) {
		now = util_now_ns();
		if (now >= c->t_end)
			break;
		left = c->t_end - now;
		if (left > POLL_MS * 1000000ull)
			left = POLL_MS * 1000000ull;
		ts.tv_sec = (long long)(left / NSEC);
		ts.tv_nsec = (long long)(left % NSEC);
		rc = io_uring_submit_and_wait_timeout(&c->ring, &cqe, 1, &ts,
						      NULL);
		if (rc < 0 && rc != -ETIME && rc != -EINTR) {
			c->err = rc;
			fprintf(stderr, "echoload: io_uring_enter: %s\n",
				strerror(-rc));
			return;
		}
		if (uring_reap(c))
			return;
	}
}

/* ---- one client thread -------------------------------------------------- */

/* This thread's CPU seconds (utime + stime: RUSAGE_THREAD, so that a
 * server in the same process, as `actors bench echo` runs it, is not
 * counted) and, in *wall, the monotonic clock's seconds. */
static double thread_cpu(double *wall)
{
	struct rusage ru;

	*wall = (double)util_now_ns() / 1e9;
	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	double cpu0, wall0, wall1;

	cpu0 = thread_cpu(&wall0);
	if (c->uring) {
		if (uring_setup(c) == 0)
			uring_loop(c);
		if (c->ring_live) /* cancels what is in flight */
			io_uring_queue_exit(&c->ring);
		c->ring_live = false;
	} else if (epoll_setup(c) == 0) {
		epoll_loop(c);
	}
	c->cpu_s = thread_cpu(&wall1) - cpu0;
	c->wall_s = wall1 - wall0;
	return NULL;
}

/* ---- the run ------------------------------------------------------------ */

static int check_opts(const struct echoload_opts *o)
{
	if (o->port < 1 || o->port > 65535 || o->conns < 1 ||
	    o->conns > ECHOLOAD_MAX_CONNS || o->threads < 1 ||
	    o->threads > ECHOLOAD_MAX_THREADS || o->size < 1 ||
	    o->size > ECHOLOAD_MAX_SIZE || !(o->seconds > 0) ||
	    o->seconds > 1e6 || !(o->warmup >= 0) || o->warmup > 1e6 ||
	    o->engine < ECHOLOAD_AUTO || o->engine > ECHOLOAD_EPOLL) {
		fprintf(stderr, "echoload: option out of range\n");
		return -EINVAL;
	}
	return 0;
}

/* Makes room for conns descriptors and a few more, if the limit allows. */
static void raise_nofile(int conns)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)conns + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &rl); /* connect says EMFILE if short */
}

static int resolve(const struct echoload_opts *o, const char *name,
		   struct addrinfo **res)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV,
				  .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	char serv[16];
	int rc;

	snprintf(serv, sizeof(serv), "%d", o->port);
	rc = getaddrinfo(o->host, serv, &hints, res);
	if (rc == 0)
		return 0;
	fprintf(stderr, "echoload: %s: %s\n", name,
		rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	return rc == EAI_MEMORY ? -ENOMEM : -EADDRNOTAVAIL;
}

/* Opens one connection to ai: blocking connect, then non-blocking. */
static int dial(const struct addrinfo *ai, const char **call)
{
	int fd, one = 1, err;

	*call = "socket";
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		return -errno;
	*call = "connect";
	while (connect(fd, ai->ai_addr, ai->ai_addrlen))
		if (errno != EINTR)
			goto err;
	*call = "setsockopt TCP_NODELAY";
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		goto err;
	*call = "fcntl O_NONBLOCK";
	if (fcntl(fd, F_SETFL, O_NONBLOCK))
		goto err;
	return fd;
err:
	err = -errno;
	close(fd);
	return err;
}

/* Opens every connection, each with its two buffers in bufs. */
static int connect_all(const struct echoload_opts *o, const char *name,
		       struct conn *conns, unsigned char *bufs)
{
	const struct addrinfo *ai = NULL;
	struct addrinfo *res;
	const char *call = "connect";
	int i, fd = -EADDRNOTAVAIL, rc;

	rc = resolve(o, name, &res);
	if (rc)
		return rc;
	for (i = 0; i < o->conns; i++) {
		if (ai) {
			fd = dial(ai, &call);
		} else { /* the first: the first address that answers */
			for (ai = res; ai; ai = ai->ai_next) {
				fd = dial(ai, &call);
				if (fd >= 0)
					break;
			}
		}
		if (fd < 0) {
			fprintf(stderr,
				"echoload: %s %s (connection %d of "
				"%d): %s\n",
				call, name, i + 1, o->conns, strerror(-fd));
			break;
		}
		conns[i] = (struct conn){ .fd = fd,
					  .index = i,
					  .req = bufs + 2 * o->size * i };
		conns[i].resp = conns[i].req + o->size;
	}
	freeaddrinfo(res);
	if (fd >= 0)
		return 0;
	while (i-- > 0)
		close(conns[i].fd);
	return fd;
}

/*
 * The engine to run: o's, or for ECHOLOAD_AUTO io_uring when a ring can
 * be set up here, else epoll, said once on stderr.
 */
static enum echoload_engine pick_engine(const struct echoload_opts *o)
{
	struct io_uring ring;
	int rc;

	if (o->engine != ECHOLOAD_AUTO)
		return o->engine;
	rc = io_uring_queue_init(2, &ring, 0);
	if (rc == 0) {
		io_uring_queue_exit(&ring);
		return ECHOLOAD_URING;
	}
	fprintf(stderr,
		"echoload: io_uring is not available (%s); using "
		"epoll\n",
		strerror(-rc));
	return ECHOLOAD_EPOLL;
}

const char *echoload_engine_name(enum echoload_engine e)
{
	switch (e) {
	case ECHOLOAD_AUTO:
		return "auto";
	case ECHOLOAD_URING:
		return "uring";
	case ECHOLOAD_EPOLL:
		return "epoll";
	}
	return "?";
}

/* Deals the connections out to clients and sets their deadlines. */
static void deal(const struct echoload_opts *o, const char *name,
		 struct client *cl, struct conn *conns, struct hist *hists)
{
	uint64_t start = util_now_ns();
	uint64_t warm = (uint64_t)(o->warmup * 1e9);
	uint64_t span = (uint64_t)(o->seconds * 1e9);
	int t, first = 0, last;

	for (t = 0; t < o->threads; t++) {
		last = (int)((long)o->conns * (t + 1) / o->threads);
		cl[t] = (struct client){ .o = o,
					 .name = name,
					 .ep = -1,
					 .uring = o->engine == ECHOLOAD_URING,
					 .conns = conns + first,
					 .n = last - first,
					 .alive = last - first,
					 .t_measure = start + warm,
					 .t_end = start + warm + span,
					 .hist = &hists[t] };
		first = last;
	}
}

/* Runs the clients: threads 1..T-1 on new threads, client 0 here. */
static int run_clients(struct client *cl, int n)
{
	int t, rc, err = 0;

	for (t = 1; t < n; t++) {
		rc = pthread_create(&cl[t].tid, NULL, client_main, &cl[t]);
		if (rc) {
			fprintf(stderr, "echoload: pthread_create: %s\n",
				strerror(rc));
			err = -rc;
			n = t;
			break;
		}
	}
	if (!err)
		client_main(&cl[0]);
	for (t = 1; t < n; t++)
		pthread_join(cl[t].tid, NULL);
	return err;
}

/* Adds up the clients into r and closes everything they hold. */
static int gather(const struct echoload_opts *o, struct client *cl,
		  struct echoload_result *r)
{
	struct hist *h = cl[0].hist;
	double wall = 0;
	int t, i, err = 0;

	memset(r, 0, sizeof(*r));
	for (t = 0; t < o->threads; t++) {
		if (t)
			hist_merge(h, cl[t].hist);
		r->cpus += cl[t].cpu_s;
		if (cl[t].wall_s > wall)
			wall = cl[t].wall_s;
		r->requests += cl[t].requests;
		r->mismatches += cl[t].mismatches;
		r->lost += cl[t].lost;
		if (!err)
			err = cl[t].err;
		for (i = 0; i < cl[t].n; i++)
			if (!cl[t].conns[i].dead)
				close(cl[t].conns[i].fd);
		if (cl[t].ep >= 0)
			close(cl[t].ep);
	}
	r->errors = r->mismatches + r->lost;
	r->engine = o->engine;
	r->seconds = o->seconds;
	r->rps = (double)r->requests / o->seconds;
	r->cpus = wall > 0 ? r->cpus / wall : 0;
	r->p50_us = (double)hist_quantile(h, 0.50) / 1e3;
	r->p99_us = (double)hist_quantile(h, 0.99) / 1e3;
	r->p999_us = (double)hist_quantile(h, 0.999) / 1e3;
	r->max_us = (double)h->max / 1e3;
	return err;
}

int echoload_run(const struct echoload_opts *o, struct echoload_result *r)
{
	struct echoload_opts oo = *o;
	struct client *cl = NULL;
	struct conn *conns = NULL;
	unsigned char *bufs = NULL;
	struct hist *hists = NULL;
	char name[300];
	int rc, err;

	memset(r, 0, sizeof(*r));
	oo.host = o->host ? o->host : ECHOLOAD_HOST;
	rc = check_opts(&oo);
	if (rc)
		return rc;
	if (oo.threads > oo.conns)
		oo.threads = oo.conns;
	snprintf(name, sizeof(name), strchr(oo.host, ':') ? "[%s]:%d" : "%s:%d",
		 oo.host, oo.port);
	conns = calloc((size_t)oo.conns, sizeof(*conns));
	bufs = malloc(2 * oo.size * (size_t)oo.conns);
	cl = calloc((size_t)oo.threads, sizeof(*cl));
	hists = calloc((size_t)oo.threads, sizeof(*hists));
	rc = -ENOMEM;
	if (!conns || !bufs || !cl || !hists) {
		fprintf(stderr, "echoload: %s\n", strerror(ENOMEM));
		goto out;
	}
	oo.engine = pick_engine(&oo);
	raise_nofile(oo.conns);
	rc = connect_all(&oo, name, conns, bufs);
	if (rc)
		goto out;
	deal(&oo, name, cl, conns, hists);
	rc = run_clients(cl, oo.threads);
	err = gather(&oo, cl, r);
	if (!rc)
		rc = err;
out:
	free(hists);
	free(cl);
	free(bufs);
	free(conns);
	return rc;
}

void echoload_opts_init(struct echoload_opts *o, const char *host, int port)
{
	*o = (struct echoload_opts){ .host = host,
				     .port = port,
				     .conns = ECHOLOAD_CONNS,
				     .threads = 1,
				     .size = ECHOLOAD_SIZE,
				     .seconds = ECHOLOAD_SECONDS,
				     .warmup = ECHOLOAD_WARMUP,
				     .engine = ECHOLOAD_AUTO };
}

void echoload_print(FILE *f, const struct echoload_opts *o,
		    const struct echoload_result *r, bool json)
{
	const char *host = o->host ? o->host : ECHOLOAD_HOST;

	if (json) {
		fprintf(f,
			"{\"host\": \"%s\", \"port\": %d, \"conns\": %d, "
			"\"threads\": %d, \"engine\": \"%s\", \"size\": %zu, "
			"\"seconds\": %.3f, "
			"\"requests\": %" PRIu64 ", \"rps\": %.1f, "
			"\"p50_us\": %.1f, \"p99_us\": %.1f, "
			"\"p999_us\": %.1f, \"max_us\": %.1f, "
			"\"mismatches\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"errors\": %" PRIu64 ", \"load_cpus\": %.3f}\n",
			host, o->port, o->conns, o->threads,
			echoload_engine_name(r->engine), o->size, r->seconds,
			r->requests, r->rps, r->p50_us, r->p99_us, r->p999_us,
			r->max_us, r->mismatches, r->lost, r->errors, r->cpus);
		return;
	}
	fprintf(f,
		"echo %s:%d conns %d threads %d %s size %zu: %" PRIu64
		" requests in %.2f s, %.0f req/s, latency p50 %.1f us, "
		"p99 %.1f us, p999 %.1f us, max %.1f us, errors %" PRIu64
		", load CPUs %.2f\n",
		host, o->port, o->conns, o->threads,
		echoload_engine_name(r->engine), o->size, r->requests,
		r->seconds, r->rps, r->p50_us, r->p99_us, r->p999_us, r->max_us,
		r->errors, r->cpus);
}
