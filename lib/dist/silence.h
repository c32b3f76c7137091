/* SPDX-License-Identifier: MIT */
/*
 * silence.h - whether a connected node has gone silent (lib/dist/conn.c).
 *
 * The reader of a connection stores the clock at each read (the peer's
 * last_in); its receives carry no limit of their own. The proxy, which
 * wakes every quarter of net_ticktime at most, asks here whether the
 * peer is down: nothing read for a tick time (Erlang declares a node
 * down after 0.75 to 1.25 of it; this, after 1 to 1.25). Before that
 * verdict it looks in the socket: bytes waiting there (FIONREAD) mean
 * the reader is behind (its worker was held), not that the peer is
 * silent, and the watch starts again from now.
 */
#ifndef ACT_DIST_SILENCE_H
#define ACT_DIST_SILENCE_H

#include <stdint.h>

enum act__silence {
	ACT__SILENCE_HEARD,  /* something read within the tick time */
	ACT__SILENCE_BEHIND, /* nothing read for it, but bytes wait in
			      * the socket: last_in is to be set to now */
	ACT__SILENCE_DOWN,   /* nothing read for it, nothing waiting */
};

/* The verdict at `now` on the socket fd, last_in the clock of the last
 * read, tick_ns net_ticktime; the socket is looked in only past the
 * tick time. A socket that cannot say (ioctl fails) is taken as empty. */
enum act__silence act__silence_check(int64_t now, int64_t last_in,
				     int64_t tick_ns, int fd);

#endif
