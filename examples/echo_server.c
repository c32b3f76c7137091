/* SPDX-License-Identifier: MIT */
/*
 * echo_server.c - a TCP echo server on libactors (see echo_server.h).
 *
 *   echo_server [--host H] [--port P] [--workers N]
 *
 * Processes: main (waits for a stop request), one acceptor, one watcher
 * of a signalfd for SIGINT and SIGTERM, and one process per connection.
 * Every wait is an act_io_* call or act_receive(), so a worker blocks on
 * none of them; the few plain system calls left (setsockopt, close on the
 * rare error paths) do not block.
 *
 * Built with -DECHO_SERVER_NO_MAIN into bench/libechosrv.la, the same code
 * serves `actors demo` and `actors bench echo`.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <actors.h>

#include "echo_server.h"
#include "opt.h"
#include "util.h"

#define CONN_BUF 8192	   /* a connection's buffer, on its stack */
#define OPEN_MAX (1 << 20) /* most descriptors tracked in open[] */

/* Messages to the main process; the payload is an int where there is one. */
enum {
	TAG_STOP = 1, /* echo_server_stop(): no payload */
	TAG_SIGNAL,   /* the watcher read a signal: its number */
	TAG_FAILED,   /* the acceptor or watcher gave up: a -errno */
};

/* Warnings said once per server (bits of warned). */
enum {
	WARN_SPAWN = 1 << 1,
	WARN_IO = 1 << 2,
	WARN_SOCKOPT = 1 << 3,
};

struct echo_server {
	/* Set by echo_server_new(), read-only after. */
	int listen_fd;
	int workers;
	unsigned flags;
	int nopen;		     /* entries of open[] */
	_Atomic unsigned char *open; /* open[fd]: a connection owns fd */
	int maxconns;		     /* connections at once, at most */

	/* Written by echo_server_serve() before act_main(): read-only then. */
	int sigfd; /* -1 without ECHO_SERVER_SIGNALS */

	/*
	 * Between the main process and echo_server_stop() callers: stop
	 * sends to main only while live, so never to a runtime that has
	 * stopped or not started. main is written under the lock before
	 * the first spawn and read by the children without it.
	 */
	pthread_mutex_t lock;
	act_pid main;
	bool live;
	bool stopping;

	/* Written by the main process; read after act_main() returned. */
	int err;
	int signal;

	/* The acceptor's: the descriptor it gives up to close the
	 * connections that wait while the others are all taken
	 * (act_io_accept_shed), and since when they are (0: they are not). */
	int spare;
	int64_t famine_ns;
	uint64_t famine_shed;

	/* Counters, from any worker (relaxed: read after the run). */
	_Atomic uint64_t accepted, closed, io_errors, backoffs, spawn_fails;
	_Atomic uint64_t refused;
	_Atomic int conns; /* connection processes alive */
	_Atomic unsigned warned;
	uint64_t left_open;
};

/*
 * The server now serving, for the connection processes, whose one
 * argument is their descriptor. One runtime per OS process, so at most
 * one server serves at a time; echo_server_serve() claims this slot.
 */
static struct echo_server *_Atomic serving;

static void warn_once(struct echo_server *s, unsigned bit, const char *what,
		      int err, const char *then)
{
	if (s->flags & ECHO_SERVER_QUIET)
		return;
	if (atomic_fetch_or_explicit(&s->warned, bit, memory_order_relaxed) &
	    bit)
		return;
	fprintf(stderr, "echo_server: %s: %s; %s (said once)\n", what,
		strerror(-err), then);
}

static void count(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* Marks fd as owned by a connection process (on) or not. */
static void track(struct echo_server *s, int fd, bool on)
{
	if (fd < s->nopen)
		atomic_store_explicit(&s->open[fd], on, memory_order_relaxed);
}

/* ---- a connection ---------------------------------------------------- */

/* A peer that resets or goes away is a normal end, not an error. */
static bool peer_gone(ssize_t err)
{
	return err == -ECONNRESET || err == -EPIPE || err == -ETIMEDOUT;
}

static ssize_t send_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = act_io_send(fd, p, len, MSG_NOSIGNAL);

		if (n == -EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? n : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void conn_proc(void *arg)
{
	struct echo_server *s =
		atomic_load_explicit(&serving, memory_order_relaxed);
	int fd = (int)(intptr_t)arg;
	char buf[CONN_BUF];
	const char *what = "recv";
	ssize_t n;

	/* the ring keeps the file: no lookup of fd per receive and send
	 * (closed below with act_io_close, as a registered fd must be); a
	 * refusal (a full table) only costs that lookup */
	(void)act_io_register(fd);
	for (;;) {
		n = act_io_recv(fd, buf, sizeof(buf), 0);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			break;
		what = "send";
		n = send_all(fd, buf, (size_t)n);
		if (n < 0)
			break;
		what = "recv";
	}
	if (n < 0 && !peer_gone(n)) {
		count(&s->io_errors);
		warn_once(s, WARN_IO, what, (int)n, "closing the connection");
	}
	track(s, fd, false);
	act_io_close(fd); /* fd is released even when close reports EIO */
	count(&s->closed);
	atomic_fetch_sub_explicit(&s->conns, 1, memory_order_relaxed);
}

/* ---- the acceptor ----------------------------------------------------- */

static void nodelay(struct echo_server *s, int fd)
{
	int one = 1;

	/* Echoes are small: send each one now. EOPNOTSUPP: not TCP. */
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) &&
	    errno != EOPNOTSUPP)
		warn_once(s, WARN_SOCKOPT, "setsockopt TCP_NODELAY", -errno,
			  "going on without it");
}

static void backoff(struct echo_server *s, unsigned bit, const char *what,
		    int err)
{
	warn_once(s, bit, what, err, "pausing accepts 10 ms at a time");
	count(&s->backoffs);
	act_sleep(ECHO_SERVER_BACKOFF_NS);
}

static void conn_start(struct echo_server *s, int fd)
{
	/* past the cap: closed at once, the client's clear answer (echo
	 * has no error message) rather than a wait for nothing */
	if (atomic_fetch_add_explicit(&s->conns, 1, memory_order_relaxed) >=
	    s->maxconns) {
		atomic_fetch_sub_explicit(&s->conns, 1, memory_order_relaxed);
		close(fd);
		count(&s->refused);
		return;
	}
	nodelay(s, fd);
	count(&s->accepted);
	track(s, fd, true);
	if (act_pid_eq(act_spawn(conn_proc, (void *)(intptr_t)fd),
		       ACT_PID_NONE)) {
		atomic_fetch_sub_explicit(&s->conns, 1, memory_order_relaxed);
		track(s, fd, false);
		close(fd);
		count(&s->spawn_fails);
		backoff(s, WARN_SPAWN, "act_spawn", -ENOMEM);
	}
}

/*
 * Out of descriptors or memory at accept: the kernel keeps the clients
 * in the listener's queue and accept says so at once, each time. A line
 * when that starts and one when it ends (not one per try); meanwhile,
 * every ECHO_SERVER_BACKOFF_NS, the connections waiting are closed with
 * the descriptor set aside for that, instead of left without an answer.
 */
static void famine(struct echo_server *s, int err)
{
	struct rlimit rl;
	int n;

	if (!s->famine_ns) {
		s->famine_ns = util_now_ns();
		s->famine_shed = 0;
		if (getrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = 0;
		if (!(s->flags & ECHO_SERVER_QUIET))
			fprintf(stderr,
				"echo_server: accept: %s (%d connections, "
				"RLIMIT_NOFILE %llu): new connections are "
				"closed at once until descriptors are freed\n",
				strerror(-err),
				atomic_load_explicit(&s->conns,
						     memory_order_relaxed),
				(unsigned long long)rl.rlim_cur);
	}
	n = act_io_accept_shed(s->listen_fd, &s->spare, NULL, 0);
	if (n > 0) {
		s->famine_shed += (uint64_t)n;
		atomic_fetch_add_explicit(&s->refused, (uint64_t)n,
					  memory_order_relaxed);
	}
	count(&s->backoffs);
	act_sleep(ECHO_SERVER_BACKOFF_NS);
}

static void famine_end(struct echo_server *s)
{
	if (!s->famine_ns)
		return;
	if (!(s->flags & ECHO_SERVER_QUIET))
		fprintf(stderr,
			"echo_server: accepting again after %lld ms; %llu "
			"connections closed at once meanwhile\n",
			(long long)((util_now_ns() - s->famine_ns) / 1000000),
			(unsigned long long)s->famine_shed);
	s->famine_ns = 0;
}

/*
 * What accept(2)'s failures mean here: 1 to give up (the socket is not a
 * listening one, or there is no io_uring), 0 to try again at once (the
 * peer went away, or a network error it passed on, as accept(2) says),
 * and for the rest, out of descriptors or memory first, a back-off.
 */
static int accept_failure(int err)
{
	switch (-err) {
	case EBADF:
	case EINVAL:
	case ENOTSOCK:
	case EOPNOTSUPP:
	case EFAULT:
	case ENOSYS:
	case ECANCELED:
		return 1;
	case EINTR:
	case EAGAIN:
	case ECONNABORTED:
	case EPROTO:
	case EPERM:
	case ENETDOWN:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case ENETUNREACH:
		return 0;
	}
	return -1;
}

static void report(struct echo_server *s, int err)
{
	act_send(s->main, TAG_FAILED, &err, sizeof(err));
}

static void acceptor_proc(void *arg)
{
	struct echo_server *s = arg;
	int fd, how;

	for (;;) {
		fd = act_io_accept(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			famine_end(s);
			conn_start(s, fd);
			continue;
		}
		how = accept_failure(fd);
		if (how > 0) {
			report(s, fd);
			return;
		}
		if (how < 0)
			famine(s, fd);
	}
}

/* ---- signals ------------------------------------------------------------ */

static void watcher_proc(void *arg)
{
	struct echo_server *s = arg;
	struct signalfd_siginfo si;
	ssize_t n;
	int sig;

	do
		n = act_io_read(s->sigfd, &si, sizeof(si), -1);
	while (n == -EINTR || n == -EAGAIN);
	if (n != (ssize_t)sizeof(si)) {
		report(s, n < 0 ? (int)n : -EIO);
		return;
	}
	sig = (int)si.ssi_signo;
	act_send(s->main, TAG_SIGNAL, &sig, sizeof(sig));
}

static int signals_block(struct echo_server *s, sigset_t *old)
{
	sigset_t set;
	int rc;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	rc = pthread_sigmask(SIG_BLOCK, &set, old);
	if (rc) {
		fprintf(stderr, "echo_server: pthread_sigmask: %s\n",
			strerror(rc));
		return -rc;
	}
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (s->sigfd < 0) {
		rc = -errno;
		fprintf(stderr, "echo_server: signalfd: %s\n", strerror(errno));
		pthread_sigmask(SIG_SETMASK, old, NULL);
		return rc;
	}
	return 0;
}

/* ---- the main process ------------------------------------------------- */

/* Publishes the main pid; false when a stop came first. */
static bool main_begin(struct echo_server *s)
{
	bool go;

	pthread_mutex_lock(&s->lock);
	go = !s->stopping;
	if (go) {
		s->main = act_self();
		s->live = true;
	}
	pthread_mutex_unlock(&s->lock);
	return go;
}

static void main_end(struct echo_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->live = false;
	pthread_mutex_unlock(&s->lock);
}

static int msg_int(const struct act_msg *m)
{
	int v = -EPROTO;

	if (m->len == sizeof(v))
		memcpy(&v, m->data, sizeof(v));
	return v;
}

/* Waits for a stop request, a signal, or a failure. */
static void main_wait(struct echo_server *s)
{
	struct act_msg *m;
	bool done = false;

	while (!done) {
		m = act_receive(ACT_FOREVER);
		if (m == NULL)
			return;
		done = true;
		if (m->tag == TAG_SIGNAL)
			s->signal = msg_int(m);
		else if (m->tag == TAG_FAILED)
			s->err = msg_int(m);
		else if (m->tag != TAG_STOP)
			done = false; /* not ours: ignore it */
		act_msg_free(m);
	}
}

static void main_proc(void *arg)
{
	struct echo_server *s = arg;
	act_pid acceptor, watcher = ACT_PID_NONE;

	if (!main_begin(s))
		return;
	acceptor = act_spawn(acceptor_proc, s);
	if (s->sigfd >= 0)
		watcher = act_spawn(watcher_proc, s);
	if (act_pid_eq(acceptor, ACT_PID_NONE) ||
	    (s->sigfd >= 0 && act_pid_eq(watcher, ACT_PID_NONE)))
		s->err = -ENOMEM;
	else
		main_wait(s);
	main_end(s);
	/* The runtime would end them too; this cancels the accept now. */
	if (!act_pid_eq(acceptor, ACT_PID_NONE))
		act_kill(acceptor, ACT_EXIT_KILL);
	if (!act_pid_eq(watcher, ACT_PID_NONE))
		act_kill(watcher, ACT_EXIT_KILL);
}

/* ---- the API ---------------------------------------------------------- */

/* Size of open[]: the descriptor limit, which bounds every fd. */
static int open_size(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > OPEN_MAX)
		return OPEN_MAX;
	return (int)rl.rlim_cur;
}

/*
 * The cap: ECHO_SERVER_MAXCONNS, with room made for it under
 * RLIMIT_NOFILE as redis-server makes room for its maxclients (the soft
 * limit raised as far as the hard one allows), or lowered to what the
 * limit leaves, less ECHO_SERVER_FD_RESERVE for the server's own
 * descriptors; one at least. Before open_size, which reads the limit.
 */
static int cap_of(unsigned flags)
{
	long long max = ECHO_SERVER_MAXCONNS;

	if (util_fit_nofile(flags & ECHO_SERVER_QUIET ? NULL : "echo_server",
			    "connections at once", &max,
			    ECHO_SERVER_FD_RESERVE))
		return 1;
	return (int)max;
}

struct echo_server *echo_server_new(int listen_fd, int workers, unsigned flags)
{
	struct echo_server *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->maxconns = cap_of(flags);
	s->nopen = open_size();
	s->open = calloc((size_t)s->nopen, sizeof(*s->open));
	if (s->open == NULL) {
		free(s);
		return NULL;
	}
	s->listen_fd = listen_fd;
	s->workers = workers;
	s->flags = flags;
	s->sigfd = -1;
	s->spare = -1;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

/* After the runtime stopped: close what the discarded processes held. */
static void close_left(struct echo_server *s)
{
	int fd;

	for (fd = 0; fd < s->nopen; fd++) {
		if (atomic_load_explicit(&s->open[fd], memory_order_relaxed)) {
			close(fd);
			s->open[fd] = 0;
			s->left_open++;
		}
	}
}

int echo_server_serve(struct echo_server *s)
{
	struct echo_server *none = NULL;
	struct act_config cfg;
	sigset_t old;
	int rc;

	if (!atomic_compare_exchange_strong(&serving, &none, s))
		return -EBUSY;
	if (s->flags & ECHO_SERVER_SIGNALS) {
		rc = signals_block(s, &old);
		if (rc)
			goto out;
	}
	/* what the acceptor closes to take a waiting connection when the
	 * descriptors are all taken (famine); -1: it goes without */
	s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	act_config_init(&cfg);
	cfg.schedulers = s->workers;
	rc = act_main(&cfg, main_proc, s);
	if (s->spare >= 0)
		close(s->spare);
	s->spare = -1;
	if (rc > 0)
		rc = -EPROTO; /* main_proc never exits abnormally */
	if (rc == 0)
		rc = s->err;
	close_left(s);
	if (s->sigfd >= 0) {
		close(s->sigfd);
		s->sigfd = -1;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
out:
	atomic_store(&serving, NULL);
	return rc;
}

int echo_server_stop(struct echo_server *s)
{
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	if (s->live)
		rc = act_send(s->main, TAG_STOP, NULL, 0);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void echo_server_stats(struct echo_server *s, struct echo_server_stats *st)
{
	st->accepted = atomic_load(&s->accepted);
	st->closed = atomic_load(&s->closed);
	st->left_open = s->left_open;
	st->io_errors = atomic_load(&s->io_errors);
	st->backoffs = atomic_load(&s->backoffs);
	st->spawn_fails = atomic_load(&s->spawn_fails);
	st->refused = atomic_load(&s->refused);
	st->signal = s->signal;
}

void echo_server_free(struct echo_server *s)
{
	if (s == NULL)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s->open);
	free(s);
}

const char *echo_server_strerror(int rc)
{
	return util_strerror(rc);
}

static void print_stats(const struct echo_server_stats *st)
{
	fprintf(stderr,
		"echo_server: stopped by %s: %llu connections accepted, "
		"%llu refused, %llu closed by their process, %llu at the "
		"stop, %llu I/O errors, %llu accept back-offs\n",
		st->signal ? strsignal(st->signal) : "request",
		(unsigned long long)st->accepted,
		(unsigned long long)st->refused, (unsigned long long)st->closed,
		(unsigned long long)st->left_open,
		(unsigned long long)st->io_errors,
		(unsigned long long)st->backoffs);
}

int echo_server_run(const struct echo_server_opts *o)
{
	const char *host = o->host ? o->host : ECHO_SERVER_HOST;
	struct echo_server_stats st;
	struct echo_server *s;
	char name[300];
	int fd, port, rc;

	fd = util_listen("echo_server", host, o->port, &port);
	if (fd < 0)
		return fd;
	s = echo_server_new(fd, o->workers, ECHO_SERVER_SIGNALS);
	if (s == NULL) {
		fprintf(stderr, "echo_server: %s\n", strerror(ENOMEM));
		close(fd);
		return -ENOMEM;
	}
	util_addr_name(name, sizeof(name), host, port);
	printf("echo_server: listening on %s\n", name);
	fflush(stdout);
	rc = echo_server_serve(s);
	echo_server_stats(s, &st);
	if (rc)
		fprintf(stderr, "echo_server: %s\n", echo_server_strerror(rc));
	else
		print_stats(&st);
	echo_server_free(s);
	close(fd);
	return rc;
}

/* ---- the program -------------------------------------------------------- */

#ifndef ECHO_SERVER_NO_MAIN

static const char usage_after[] =
	"Prints \"echo_server: listening on HOST:PORT\" on stdout; stops on\n"
	"SIGINT or SIGTERM.\n"
	"exit status: 0 stopped, 1 it could not listen or serve, 2 a usage "
	"error\n";

int main(int argc, char **argv)
{
	struct echo_server_opts o = { ECHO_SERVER_HOST, 0, 0 };
	const struct opt opts[] = {
		OPT_STR("host", &o.host, "H", "address to listen on"),
		OPT_INT("port", &o.port, 0, 65535, "P",
			"TCP port, 0: an ephemeral one"),
		OPT_INT("workers", &o.workers, 1, 1024, "N",
			"worker threads, {range} (act_config.schedulers;\n"
			"default: ACTORS_SCHEDULERS or the runtime's)"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "echo_server",
				     .opts = opts,
				     .after = usage_after };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	return echo_server_run(&o) ? 1 : 0;
}

#endif /* ECHO_SERVER_NO_MAIN */
