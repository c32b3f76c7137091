/* SPDX-License-Identifier: MIT */
/*
 * dist_floor.c - bench/peers/dist_floor: the floor under
 * scripts/bench-dist.sh's servers. The same round trips on one loopback
 * TCP connection, with nothing but the kernel on either side: a server
 * that reads what came and writes back as many frames as it read whole,
 * with blocking recv() and send() on one thread, and a client that keeps
 * CLIENTS frames in flight. No runtime, no protocol, no encoding: what a
 * server must spend per round trip on this machine, however it is
 * written, so that a target can be set against what is possible.
 *
 *   bench/peers/dist_floor serve
 *       listens on 127.0.0.1 (a port of the kernel's choice), prints
 *       "ready PORT", and serves one connection after another until
 *       killed. Each connection begins with its workload (CLIENTS,
 *       FRAME, TRIPS: three 32-bit numbers, host order) and ends, after
 *       its CLIENTS x TRIPS frames, with the server's utime+stime over
 *       them (64-bit nanoseconds, from getrusage).
 *   bench/peers/dist_floor load PORT CLIENTS FRAME TRIPS
 *       one run: prints "floor NS TRIPS SERVER_NS", NS the wall time
 *       of the CLIENTS x TRIPS round trips of FRAME bytes each.
 *
 * A frame is FRAME bytes of zeros; the server counts bytes, not frames'
 * contents. With one client, each round trip is one send and one recv on
 * each side, as a dist round trip is; with more, the server answers all
 * the whole frames a recv brought in one send, as a batching node does.
 * Exit status: 0 done, 1 a system call failed (said on stderr), 2 a
 * usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "bench/peers/dist_floor"
#define BUF_SIZE (1 << 20)
#define FRAME_MAX (64u << 20)

struct workload {
	uint32_t clients, frame, trips;
};

static char *buf; /* BUF_SIZE bytes: what is read, and zeros to send */

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", PROG, what, strerror(errno));
	return 1;
}

static int64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* all of n bytes of zeros: 0, or -1 with errno */
static int send_zeros(int fd, uint64_t n)
{
	while (n) {
		size_t k = n < BUF_SIZE ? (size_t)n : BUF_SIZE;
		ssize_t r = send(fd, buf + BUF_SIZE, k, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		n -= (uint64_t)r;
	}
	return 0;
}

/* exactly n bytes into p: 0, or -1 (errno; 0 at an early end) */
static int recv_all(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, (char *)p + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* One connection: its workload, its frames echoed, the CPU they took. */
static int serve_one(int fd)
{
	struct workload w;
	uint64_t left, carry = 0;
	int64_t c0;

	nodelay(fd);
	if (recv_all(fd, &w, sizeof(w)) < 0)
		return fail("serve: the workload");
	if (!w.frame || w.frame > FRAME_MAX) {
		fprintf(stderr,
			"%s: serve: a frame of %u bytes: expected 1 to %u\n",
			PROG, w.frame, FRAME_MAX);
		return 1;
	}
	left = (uint64_t)w.clients * w.trips;
	c0 = cpu_ns();
	while (left) {
		ssize_t r = recv(fd, buf, BUF_SIZE, 0);
		uint64_t whole;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? fail("serve: recv") : 0;
		carry += (uint64_t)r;
		whole = carry / w.frame;
		carry %= w.frame;
		if (whole > left)
			whole = left;
		if (whole && send_zeros(fd, whole * w.frame) < 0)
			return fail("serve: send");
		left -= whole;
	}
	c0 = cpu_ns() - c0;
	if (send(fd, &c0, sizeof(c0), MSG_NOSIGNAL) != sizeof(c0))
		return fail("serve: the CPU figure");
	return 0;
}

static int serve(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) < 0 ||
	    listen(lfd, 4) < 0)
		return fail("listen on 127.0.0.1");
	printf("ready %u\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0)
			return fail("accept");
		(void)serve_one(fd);
		close(fd);
	}
}

static int load(uint16_t port, struct workload w)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint64_t total = (uint64_t)w.clients * w.trips, sent, done = 0;
	uint64_t carry = 0, owed;
	int64_t t0, server_ns;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail("connect to the server");
	nodelay(fd);
	if (send(fd, &w, sizeof(w), MSG_NOSIGNAL) != sizeof(w))
		return fail("send the workload");
	t0 = now_ns();
	sent = w.clients < total ? w.clients : total;
	owed = sent * w.frame;
	/* Sends never block: a server held up in its send waits for us to
	 * read, so while bytes are owed, recv does not wait either, and
	 * poll waits for whichever way can move. */
	while (done < total) {
		ssize_t r;
		uint64_t whole, more, want;

		while (owed) {
			r = send(fd, buf + BUF_SIZE,
				 owed < BUF_SIZE ? (size_t)owed : BUF_SIZE,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (r < 0)
				return fail("send");
			owed -= (uint64_t)r;
		}
		/* no further than the last frame: the CPU figure follows */
		want = (total - done) * w.frame - carry;
		r = recv(fd, buf, want < BUF_SIZE ? (size_t)want : BUF_SIZE,
			 owed ? MSG_DONTWAIT : 0);
		if (r < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd,
					      .events = POLLIN | POLLOUT };

			(void)poll(&pfd, 1, -1);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail("recv");
		if (!r) {
			fprintf(stderr, "%s: the server closed early\n", PROG);
			return 1;
		}
		carry += (uint64_t)r;
		whole = carry / w.frame;
		carry %= w.frame;
		done += whole;
		more = total - sent < whole ? total - sent : whole;
		owed += more * w.frame;
		sent += more;
	}
	t0 = now_ns() - t0;
	if (recv_all(fd, &server_ns, sizeof(server_ns)) < 0)
		return fail("recv the server's CPU figure");
	close(fd);
	printf("floor %lld %llu %lld\n", (long long)t0,
	       (unsigned long long)total, (long long)server_ns);
	return fflush(stdout) == EOF ? 1 : 0;
}

static int number(const char *what, const char *s, unsigned long max,
		  uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > max) {
		fprintf(stderr, "%s: %s: bad value '%s': expected 1 to %lu\n",
			PROG, what, s, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static const char usage_text[] =
	"usage: " PROG " serve\n"
	"       " PROG " load PORT CLIENTS FRAME TRIPS\n"
	"The floor under scripts/bench-dist.sh: round trips of FRAME-byte "
	"frames on one\nloopback connection, CLIENTS in flight, TRIPS each, "
	"with blocking recv and send.\n"
	"  serve   listen on 127.0.0.1, print \"ready PORT\", serve until "
	"killed\n"
	"  load    one run: print \"floor NS TRIPS SERVER_NS\"\n"
	"exit status: 0 done, 1 a system call failed, 2 a usage error\n";

/* Each word a usage error could be about, in order: 0 when the words
 * make a command (*load set for load), else 2, said in one line that
 * names the word. Options are words of '-' and a non-digit; --help and
 * -h are main's. */
static int parse(int argc, char **argv, bool *load)
{
	static const char *const what[] = { "PORT", "CLIENTS", "FRAME",
					    "TRIPS" };
	int i, want;

	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] &&
		    !isdigit((unsigned char)argv[i][1])) {
			fprintf(stderr,
				"%s: unknown option %s: expected serve, or "
				"load PORT CLIENTS FRAME TRIPS\n",
				PROG, argv[i]);
			return 2;
		}
	if (argc < 2) {
		fprintf(stderr,
			"%s: a command is missing: expected serve, or load "
			"PORT CLIENTS FRAME TRIPS (--help says more)\n",
			PROG);
		return 2;
	}
	*load = !strcmp(argv[1], "load");
	if (!*load && strcmp(argv[1], "serve")) {
		fprintf(stderr,
			"%s: unknown command '%s': expected serve, or load "
			"PORT CLIENTS FRAME TRIPS\n",
			PROG, argv[1]);
		return 2;
	}
	want = *load ? 6 : 2;
	if (argc > want) {
		fprintf(stderr, "%s: unexpected operand '%s' after %s\n", PROG,
			argv[want], *load ? "TRIPS" : "serve");
		return 2;
	}
	if (argc < want) {
		fprintf(stderr,
			"%s: %s is missing: expected load PORT CLIENTS "
			"FRAME TRIPS\n",
			PROG, what[argc - 2]);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct workload w;
	uint32_t port;
	bool load_cmd = false;
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return fflush(stdout) == EOF ? 1 : 0;
		}
	if (parse(argc, argv, &load_cmd))
		return 2;
	if (load_cmd && (number("PORT", argv[2], 65535, &port) < 0 ||
			 number("CLIENTS", argv[3], 99999, &w.clients) < 0 ||
			 number("FRAME", argv[4], FRAME_MAX, &w.frame) < 0 ||
			 number("TRIPS", argv[5], 999999999, &w.trips) < 0))
		return 2;
	/* read into the first half, zeros to send in the second */
	buf = calloc(2, BUF_SIZE);
	if (!buf)
		return fail("calloc");
	return load_cmd ? load((uint16_t)port, w) : serve();
}
