/* SPDX-License-Identifier: MIT */
/*
 * dist_wire_peer.c - tests/dist-erl.sh's driver: lib/dist's wire layer
 * (epmd.h, handshake.h) against a real Erlang node, over plain blocking
 * sockets (the runtime's own I/O drives the wire layer elsewhere; this
 * test drives it as simply as it can). Everything runs on this host:
 * epmd and the nodes are reached at 127.0.0.1.
 *
 *   dist_wire_peer accept NAME COOKIE EPMD_PORT COUNT
 *	registers NAME's alive part with the epmd at EPMD_PORT (ALIVE2,
 *	the socket kept open), listens, prints "ready port=P creation=C",
 *	then takes COUNT connections one after the other as the acceptor:
 *	"accepted PEER" once the handshake is done, after which it answers
 *	ticks ("tick" for each) until the peer closes ("closed PEER"), or
 *	"refused: REASON"
 *
 *   dist_wire_peer connect NAME COOKIE EPMD_PORT PEER
 *	asks that epmd for PEER's port (PORT_PLEASE2), connects as the
 *	initiator: "connected PEER" and then as above until the peer
 *	closes, exit 0; or "refused: REASON", exit 1
 *
 * Each line is flushed as it is printed. Exit 2 for a setup error, 3 if
 * the peer says nothing for 120 s (a failure limit, never a timing).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dist/epmd.h"
#include "dist/flags.h"
#include "dist/handshake.h"

#define LIMIT_MS (120 * 1000)

static void die(int code, const char *what)
{
	fprintf(stderr, "dist_wire_peer: %s: %s\n", what, strerror(errno));
	exit(code);
}

/* Waits for fd to be readable, within the failure limit. */
static void wait_readable(int fd, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, LIMIT_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		printf("timeout: %s: nothing in %d s\n", what, LIMIT_MS / 1000);
		exit(3);
	}
	if (r < 0)
		die(2, "poll");
}

static ssize_t recv_some(int fd, void *buf, size_t n, const char *what)
{
	ssize_t r;

	wait_readable(fd, what);
	do
		r = recv(fd, buf, n, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t r;

	while (n) {
		r = send(fd, c, n, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int connect_local(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die(2, "socket");
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die(2, "connect");
	return fd;
}

static uint32_t random32(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		die(2, "getrandom");
	return v;
}

/* NAME's part before the '@', for epmd. */
static void alive_part(const char *name, char *out, size_t cap)
{
	size_t n = strcspn(name, "@");

	if (n >= cap) {
		fprintf(stderr, "dist_wire_peer: name too long\n");
		exit(2);
	}
	memcpy(out, name, n);
	out[n] = '\0';
}

/* ALIVE2 with the epmd at epmd_port: the socket to keep, *creation. */
static int epmd_register(unsigned epmd_port, const char *name, unsigned port,
			 uint32_t *creation)
{
	struct act__epmd_node node = {
		.port = (uint16_t)port,
		.type = ACT__EPMD_NODE_HIDDEN,
		.protocol = ACT__EPMD_PROTO_TCP4,
		.high = ACT__EPMD_VERSION,
		.low = ACT__EPMD_VERSION,
	};
	uint8_t buf[512];
	const char *why = NULL;
	size_t have = 0;
	ssize_t r;
	int fd, n;

	alive_part(name, node.name, sizeof(node.name));
	n = act__epmd_alive2_req(buf, sizeof(buf), &node);
	fd = connect_local(epmd_port);
	if (n < 0 || send_all(fd, buf, (size_t)n))
		die(2, "ALIVE2_REQ");
	for (;;) {
		n = act__epmd_alive2_resp(buf, have, creation, &why);
		if (n > 0)
			return fd;
		if (n < 0) {
			printf("epmd-refused: %s\n", why);
			exit(2);
		}
		r = recv_some(fd, buf + have, sizeof(buf) - have, "epmd");
		if (r <= 0)
			die(2, "epmd closed before ALIVE2's reply");
		have += (size_t)r;
	}
}

/* PORT_PLEASE2 for peer at the epmd at epmd_port: its port. */
static unsigned epmd_port_of(unsigned epmd_port, const char *peer)
{
	struct act__epmd_node node;
	uint8_t buf[2048];
	const char *why = NULL;
	char alive[ACT__EPMD_NAME_MAX + 1];
	size_t have = 0;
	ssize_t r;
	int fd, n;

	alive_part(peer, alive, sizeof(alive));
	n = act__epmd_port_please2_req(buf, sizeof(buf), alive);
	fd = connect_local(epmd_port);
	if (n < 0 || send_all(fd, buf, (size_t)n))
		die(2, "PORT_PLEASE2_REQ");
	for (;;) {
		n = act__epmd_port2_resp(buf, have, &node, &why);
		if (n < 0) {
			printf("refused: %s\n", why);
			exit(1);
		}
		if (n > 0)
			break;
		r = recv_some(fd, buf + have, sizeof(buf) - have, "epmd");
		if (r <= 0) {
			printf("refused: epmd closed within PORT2_RESP\n");
			exit(1);
		}
		have += (size_t)r;
	}
	close(fd);
	return node.port;
}

/*
 * The handshake h on fd to its end. The bytes received after its last
 * frame go to rest (*nrest). Returns the final state.
 */
static int handshake(int fd, struct act__handshake *h, uint8_t *rest,
		     size_t *nrest)
{
	uint8_t buf[4096];
	const uint8_t *out;
	size_t len, used, off = 0, n = 0;
	ssize_t r;

	for (;;) {
		act__handshake_output(h, &out, &len);
		if (len && send_all(fd, out, len) == 0)
			act__handshake_sent(h, len);
		else if (len)
			act__handshake_eof(h);
		if (h->state == ACT__HANDSHAKE_DONE ||
		    h->state == ACT__HANDSHAKE_FAILED)
			break;
		if (h->state == ACT__HANDSHAKE_NAME) {
			act__handshake_accept(h, ACT__HANDSHAKE_OK);
			continue;
		}
		if (off == n) {
			r = recv_some(fd, buf, sizeof(buf), "handshake");
			if (r <= 0) {
				act__handshake_eof(h);
				continue;
			}
			off = 0;
			n = (size_t)r;
		}
		act__handshake_feed(h, buf + off, n - off, &used);
		off += used;
	}
	memcpy(rest, buf + off, n - off);
	*nrest = n - off;
	return h->state;
}

/*
 * After the handshake: 4-byte frames; a tick (length 0) is answered with
 * a tick, the rest are read and dropped. Until the peer closes.
 */
static void connected(int fd, const uint8_t *rest, size_t nrest)
{
	static const uint8_t tick[4];
	uint8_t buf[65536];
	size_t have = nrest, len;
	ssize_t r;

	memcpy(buf, rest, nrest);
	for (;;) {
		while (have >= 4) {
			len = (size_t)buf[0] << 24 | (size_t)buf[1] << 16 |
			      (size_t)buf[2] << 8 | buf[3];
			if (len == 0) {
				if (send_all(fd, tick, 4))
					return;
				printf("tick\n");
				memmove(buf, buf + 4, have - 4);
				have -= 4;
				continue;
			}
			/* drop the frame's bytes as they come */
			if (have - 4 >= len) {
				memmove(buf, buf + 4 + len, have - 4 - len);
				have -= 4 + len;
				continue;
			}
			len -= have - 4;
			have = 4;
			buf[0] = (uint8_t)(len >> 24);
			buf[1] = (uint8_t)(len >> 16);
			buf[2] = (uint8_t)(len >> 8);
			buf[3] = (uint8_t)len;
			break;
		}
		r = recv_some(fd, buf + have, sizeof(buf) - have, "connected");
		if (r <= 0)
			return;
		have += (size_t)r;
	}
}

/* One connection on fd in role: 0 if its handshake was done. */
static int serve(int fd, enum act__handshake_role role, const char *name,
		 const char *cookie, uint32_t creation, const char *expect)
{
	struct act__handshake h;
	uint8_t rest[4096];
	size_t nrest;
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (act__handshake_init(&h, role, name, cookie, ACT__DFLAGS_OURS,
				creation, random32()) ||
	    (expect && act__handshake_expect(&h, expect))) {
		printf("refused: %s\n", h.why ? h.why : "bad peer name");
		return -1;
	}
	if (handshake(fd, &h, rest, &nrest) != ACT__HANDSHAKE_DONE) {
		printf("refused: %s\n", h.why);
		fflush(stdout);
		close(fd);
		return -1;
	}
	printf("%s %s\n",
	       role == ACT__HANDSHAKE_ACCEPTOR ? "accepted" : "connected",
	       h.peer_name);
	fflush(stdout);
	connected(fd, rest, nrest);
	printf("closed %s\n", h.peer_name);
	fflush(stdout);
	close(fd);
	return 0;
}

static int do_accept(const char *name, const char *cookie, unsigned epmd,
		     int count)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	uint32_t creation;
	int lfd, efd, fd;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(lfd, 8) || getsockname(lfd, (struct sockaddr *)&a, &alen))
		die(2, "listen");
	efd = epmd_register(epmd, name, ntohs(a.sin_port), &creation);
	printf("ready port=%u creation=%u\n", ntohs(a.sin_port), creation);
	fflush(stdout);
	while (count-- > 0) {
		wait_readable(lfd, "accept");
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			die(2, "accept");
		serve(fd, ACT__HANDSHAKE_ACCEPTOR, name, cookie, creation,
		      NULL);
	}
	close(efd); /* unregisters the name */
	close(lfd);
	return 0;
}

static int do_connect(const char *name, const char *cookie, unsigned epmd,
		      const char *peer)
{
	unsigned port = epmd_port_of(epmd, peer);
	int fd = connect_local(port);

	return serve(fd, ACT__HANDSHAKE_INITIATOR, name, cookie, random32() | 1,
		     peer) ?
		       1 :
		       0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "accept"))
		return do_accept(argv[2], argv[3], (unsigned)atoi(argv[4]),
				 atoi(argv[5]));
	if (argc == 6 && !strcmp(argv[1], "connect"))
		return do_connect(argv[2], argv[3], (unsigned)atoi(argv[4]),
				  argv[5]);
	fprintf(stderr, "usage: dist_wire_peer accept NAME COOKIE EPMD_PORT "
			"COUNT\n"
			"       dist_wire_peer connect NAME COOKIE EPMD_PORT "
			"PEER\n");
	return 2;
}
