/* SPDX-License-Identifier: MIT */
/*
 * epoll_echo.c - bench/peers/epoll_echo: the baseline echo server for
 * bench/echo, plain C on one thread. One epoll set, level-triggered, with
 * non-blocking sockets: a readable connection is read once and what came
 * is sent back; what the socket does not take waits for EPOLLOUT, and the
 * connection is not read again until it has gone (so a client that does
 * not read cannot make us buffer without bound).
 *
 *   bench/peers/epoll_echo [--host H] [--port P]   (--help says more)
 *
 * Prints "epoll_echo: listening on HOST:PORT" on stdout; stops cleanly on
 * SIGINT or SIGTERM (a signalfd in the same epoll set). When accept()
 * runs out of descriptors, the listening socket leaves the set for 10 ms
 * rather than waking the loop again at once.
 */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../examples/util.h"

#define BUF_SIZE 16384
#define MAX_EVENTS 256
#define BACKOFF_MS 10

struct conn {
	int fd;
	size_t len, off; /* bytes in buf, of them sent */
	char buf[BUF_SIZE];
};

struct server {
	int ep, lfd, sfd;
	bool paused;	  /* lfd out of the set after EMFILE */
	long long resume; /* when to put it back: ms, CLOCK_MONOTONIC */
	bool said_backoff;
	unsigned long accepted;
	int signal;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Tags of the listening socket and the signalfd in epoll data. */
static char tag_listen, tag_signal;

static int fail(const char *what)
{
	int err = errno;

	fprintf(stderr, "epoll_echo: %s: %s\n", what, strerror(err));
	return -err;
}

static int watch(struct server *s, int op, int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	if (epoll_ctl(s->ep, op, fd, &ev))
		return fail("epoll_ctl");
	return 0;
}

static void conn_close(struct server *s, struct conn *c)
{
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c);
}

/* A peer that resets or goes away ends its connection quietly. */
static void conn_error(struct server *s, struct conn *c, const char *what)
{
	if (errno != ECONNRESET && errno != EPIPE)
		fprintf(stderr, "epoll_echo: %s: %s\n", what, strerror(errno));
	conn_close(s, c);
}

/* Sends what is pending; switches between EPOLLIN and EPOLLOUT. */
static void conn_flush(struct server *s, struct conn *c, bool was_out)
{
	ssize_t n;

	while (c->off < c->len) {
		n = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);
		if (n >= 0) {
			c->off += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			conn_error(s, c, "send");
			return;
		}
		if (!was_out && watch(s, EPOLL_CTL_MOD, c->fd, EPOLLOUT, c))
			conn_close(s, c);
		return;
	}
	c->len = c->off = 0;
	if (was_out && watch(s, EPOLL_CTL_MOD, c->fd, EPOLLIN, c))
		conn_close(s, c);
}

static void conn_event(struct server *s, struct conn *c, uint32_t events)
{
	ssize_t n;

	if (c->len > 0) { /* waiting for EPOLLOUT */
		conn_flush(s, c, true);
		return;
	}
	do
		n = recv(c->fd, c->buf, sizeof(c->buf), 0);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		c->len = (size_t)n;
		conn_flush(s, c, false);
	} else if (n == 0) {
		conn_close(s, c);
	} else if (errno != EAGAIN) {
		conn_error(s, c, "recv");
	}
}

static void conn_new(struct server *s, int fd)
{
	struct conn *c = malloc(sizeof(*c));
	int one = 1;

	if (c == NULL) {
		fprintf(stderr, "epoll_echo: %s\n", strerror(ENOMEM));
		close(fd);
		return;
	}
	c->fd = fd;
	c->len = c->off = 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		fail("setsockopt TCP_NODELAY");
	if (watch(s, EPOLL_CTL_ADD, fd, EPOLLIN, c)) {
		close(fd);
		free(c);
		return;
	}
	s->accepted++;
}

/* Takes the listening socket out of the set; epoll_wait times out. */
static void pause_accept(struct server *s)
{
	if (!s->said_backoff) {
		s->said_backoff = true;
		fprintf(stderr,
			"epoll_echo: accept: %s; pausing accepts %d ms "
			"at a time (said once)\n",
			strerror(errno), BACKOFF_MS);
	}
	if (watch(s, EPOLL_CTL_DEL, s->lfd, 0, NULL) == 0) {
		s->paused = true;
		s->resume = now_ms() + BACKOFF_MS;
	}
}

static void resume_accept(struct server *s)
{
	if (watch(s, EPOLL_CTL_ADD, s->lfd, EPOLLIN, &tag_listen) == 0)
		s->paused = false;
	else
		s->resume = now_ms() + BACKOFF_MS; /* try again later */
}

static void on_listen(struct server *s)
{
	int fd;

	for (;;) {
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			conn_new(s, fd);
			continue;
		}
		if (errno == EAGAIN)
			return;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			pause_accept(s);
			return;
		}
		if (errno != EINTR && errno != ECONNABORTED &&
		    errno != EPROTO && errno != EPERM)
			fail("accept4");
		/* otherwise the next one */
	}
}

static bool on_signal(struct server *s)
{
	struct signalfd_siginfo si;
	ssize_t n = read(s->sfd, &si, sizeof(si));

	if (n == (ssize_t)sizeof(si)) {
		s->signal = (int)si.ssi_signo;
		return true;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	fail("read signalfd");
	return true;
}

static int loop(struct server *s)
{
	struct epoll_event ev[MAX_EVENTS];
	long long wait;
	int i, n;

	for (;;) {
		wait = s->paused ? s->resume - now_ms() : -1;
		if (s->paused && wait <= 0) {
			resume_accept(s);
			wait = s->paused ? BACKOFF_MS : -1;
		}
		n = epoll_wait(s->ep, ev, MAX_EVENTS, (int)wait);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail("epoll_wait");
		for (i = 0; i < n; i++) {
			if (ev[i].data.ptr == &tag_signal) {
				if (on_signal(s))
					return 0;
			} else if (ev[i].data.ptr == &tag_listen) {
				if (!s->paused)
					on_listen(s);
			} else {
				conn_event(s, ev[i].data.ptr, ev[i].events);
			}
		}
	}
}

/* The shared listening socket (examples/util.h), non-blocking: the loop
 * accepts until EAGAIN. */
static int listen_on(const char *host, int port, int *bound)
{
	int fd = util_listen("epoll_echo", host, port, bound);

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFL, O_NONBLOCK)) {
		fail("fcntl O_NONBLOCK");
		close(fd);
		return -1;
	}
	return fd;
}

static int signals_open(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return fail("sigprocmask");
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return fail("signalfd");
	return fd;
}

static int serve(const char *host, int port)
{
	struct server s = { .ep = -1, .lfd = -1, .sfd = -1 };
	char name[300];
	int rc = -1;

	s.lfd = listen_on(host, port, &port);
	if (s.lfd < 0)
		return 1;
	s.sfd = signals_open();
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (s.sfd < 0)
		goto out;
	if (s.ep < 0) {
		fail("epoll_create1");
		goto out;
	}
	if (watch(&s, EPOLL_CTL_ADD, s.lfd, EPOLLIN, &tag_listen) ||
	    watch(&s, EPOLL_CTL_ADD, s.sfd, EPOLLIN, &tag_signal))
		goto out;
	util_addr_name(name, sizeof(name), host, port);
	printf("epoll_echo: listening on %s\n", name);
	fflush(stdout);
	rc = loop(&s);
	if (rc == 0)
		fprintf(stderr,
			"epoll_echo: stopped by %s: %lu connections "
			"accepted\n",
			strsignal(s.signal), s.accepted);
out:
	if (s.ep >= 0)
		close(s.ep);
	if (s.sfd >= 0)
		close(s.sfd);
	close(s.lfd);
	return rc ? 1 : 0; /* the connections close with the process */
}

#define PROG "bench/peers/epoll_echo" /* in the usage and its errors */

static int usage(void)
{
	printf("usage: " PROG " [--host H] [--port P]\n"
	       "The baseline echo server for bench/echo: one thread, one "
	       "epoll set.\n"
	       "  --host H    address to listen on (default 127.0.0.1)\n"
	       "  --port P    TCP port, 0 to 65535; 0: an ephemeral one "
	       "(default 0)\n"
	       "  -h, --help  this text\n"
	       "Prints \"epoll_echo: listening on HOST:PORT\" on stdout; "
	       "stops on SIGINT or\nSIGTERM.\n"
	       "exit status: 0 stopped, 1 it could not listen or serve, 2 a "
	       "usage error\n");
	return fflush(stdout) == EOF ? 1 : 0;
}

static const struct option longopts[] = {
	{ "host", required_argument, NULL, 'H' },
	{ "port", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* -h or --help before any "--": the usage, whatever else is there. */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/* getopt's complaint (opterr 0, ":" first in optstring), in one line. */
static int bad_option(int c, char **argv)
{
	const char *word = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, PROG ": %s needs a value\n", word);
	else if (optopt && word[1] != '-')
		fprintf(stderr,
			PROG ": unknown option -%c: expected [--host H] "
			     "[--port P] or --help\n",
			optopt);
	else
		fprintf(stderr,
			PROG ": unknown option %s: expected [--host H] "
			     "[--port P] or --help\n",
			word);
	return 2;
}

int main(int argc, char **argv)
{
	const char *host = "127.0.0.1";
	char *end;
	long port = 0;
	int c;

	if (wants_help(argc, argv))
		return usage();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'H') {
			host = optarg;
		} else if (c == 'p') {
			errno = 0;
			port = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || port < 0 ||
			    port > 65535) {
				fprintf(stderr,
					PROG ": --port: bad value '%s': "
					     "expected 0 to 65535\n",
					optarg);
				return 2;
			}
		} else if (c != 'h') {
			return bad_option(c, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			PROG ": unexpected operand '%s': expected [--host H] "
			     "[--port P]\n",
			argv[optind]);
		return 2;
	}
	return serve(host, (int)port);
}
