/* SPDX-License-Identifier: MIT */
/*
 * echo_server.h - a TCP echo server on libactors, as a program
 * (examples/echo_server) and as functions that the `actors` tool runs in
 * its own process (echo_server.c built with -DECHO_SERVER_NO_MAIN).
 *
 * One acceptor process takes connections with act_io_accept() and spawns
 * one process per connection, which echoes what it receives with
 * act_io_recv() and act_io_send() until end of file or an error, then
 * closes the socket with act_io_close(). At most ECHO_SERVER_MAXCONNS
 * connections at once, fewer when RLIMIT_NOFILE leaves less room (the
 * soft limit is raised first, as far as the hard one allows; a line says
 * so): one past that is closed at once, as is one that waits while the
 * descriptors run out (a line when that starts and one when it ends),
 * never left waiting with no answer. The main process waits for a stop
 * request (echo_server_stop() from any thread, or SIGINT or SIGTERM read
 * from a signalfd by a watcher process), then kills the acceptor and
 * returns: the runtime cancels the I/O still in flight and reclaims every
 * process, and echo_server_serve() closes the connections left open.
 *
 * Errors come back as negative errno values, as in libactors.
 */
#ifndef ECHO_SERVER_H
#define ECHO_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#define ECHO_SERVER_HOST "127.0.0.1"
#define ECHO_SERVER_BACKOFF_NS 10000000LL /* accept back-off on EMFILE */
#define ECHO_SERVER_MAXCONNS 10000	  /* connections at once, at most */
#define ECHO_SERVER_FD_RESERVE 32	  /* descriptors not for connections */

/* Flags of echo_server_new(). */
#define ECHO_SERVER_SIGNALS 0x1u /* stop on SIGINT or SIGTERM */
#define ECHO_SERVER_QUIET 0x2u	 /* no warnings on stderr */

/* What the program's main() takes from its command line. */
struct echo_server_opts {
	const char *host; /* address to bind; NULL: ECHO_SERVER_HOST */
	int port;	  /* 0: an ephemeral port */
	int workers;	  /* act_config.schedulers; 0: the runtime's choice */
};

/* Figures of a run, complete once echo_server_serve() has returned. */
struct echo_server_stats {
	uint64_t accepted;    /* connections accepted */
	uint64_t closed;      /* connections their process closed */
	uint64_t left_open;   /* connections closed after the runtime stopped */
	uint64_t io_errors;   /* recv/send failures other than resets */
	uint64_t backoffs;    /* accept back-offs on EMFILE, ENFILE, ENOMEM */
	uint64_t spawn_fails; /* connections dropped: no process for them */
	uint64_t refused;     /* closed at once: past the cap, or no room */
	int signal;	      /* the signal that stopped the server, or 0 */
};

struct echo_server;

/*
 * echo_server_new - a server for the listening socket listen_fd (from
 * util_listen(), examples/util.h; the caller keeps it and closes it after
 * the server has stopped), run with workers worker threads (0: the
 * runtime's choice) and the ECHO_SERVER_* flags. It takes at most
 * ECHO_SERVER_MAXCONNS connections at once, and raises RLIMIT_NOFILE to
 * make room for them, or takes fewer (said on stderr without
 * ECHO_SERVER_QUIET), one at least. NULL when out of memory. Any thread.
 */
struct echo_server *echo_server_new(int listen_fd, int workers, unsigned flags);

/*
 * echo_server_serve - run s until it is stopped: starts a runtime with
 * act_main() on the calling thread, which must not be in one already
 * (one runtime per OS process). With ECHO_SERVER_SIGNALS, SIGINT and
 * SIGTERM are blocked in the calling thread while it runs (the runtime's
 * threads inherit that mask) and read from a signalfd; the previous mask
 * is restored before it returns. Returns 0 after a stop request or a
 * signal, or -errno: the runtime did not start (act_main's errors), the
 * acceptor failed (-ENOSYS: the runtime has no io_uring), or a signalfd
 * could not be made. Call it once per server.
 */
int echo_server_serve(struct echo_server *s);

/*
 * echo_server_stop - ask s to stop. Any thread, at any time between
 * echo_server_new() and echo_server_free(): before echo_server_serve()
 * starts, it makes it return at once; after it returned, it does
 * nothing. Returns 0, or -errno from act_send().
 */
int echo_server_stop(struct echo_server *s);

/* echo_server_stats - s's figures; complete after serve returned. */
void echo_server_stats(struct echo_server *s, struct echo_server_stats *st);

/* echo_server_free - free s; not while echo_server_serve() runs. */
void echo_server_free(struct echo_server *s);

/* echo_server_strerror - what a negative return of the above means
 * (util_strerror()). */
const char *echo_server_strerror(int rc);

/*
 * echo_server_run - the program: listen on o->host:o->port, print
 * "echo_server: listening on HOST:PORT" on stdout, serve until SIGINT or
 * SIGTERM, print what was served on stderr. Returns 0 or -errno (already
 * reported on stderr).
 */
int echo_server_run(const struct echo_server_opts *o);

#endif /* ECHO_SERVER_H */
