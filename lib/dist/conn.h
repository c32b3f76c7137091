/* SPDX-License-Identifier: MIT */
/*
 * conn.h - a node's connection: the processes that own its socket
 * (doc/design/distribution.md "The connection process"). libei builds
 * only.
 *
 *   proxy     one per node, its pid in the node's `proxy` from the first
 *             try on: every send to the node is a message to it (route.c),
 *             queued there while the connection is set up; once up it
 *             writes them as frames and sends a tick when it has sent
 *             nothing for a quarter of net_ticktime. Its exit is the
 *             node going down: its socket closed, queued sends dropped.
 *   dialer    the proxy's child when we connect: epmd's PORT_PLEASE2,
 *             then the handshake as initiator; hands the socket over.
 *   acceptor  one per accepted socket, the listener's child: the
 *             handshake as acceptor; hands the socket to the node's
 *             proxy (made then when there is none).
 *   reader    the proxy's linked child once up: reads frames, delivers
 *             sends to local processes; a peer silent for net_ticktime,
 *             a closed socket or a refused frame end it, and the proxy
 *             with it.
 */
#ifndef ACT_DIST_CONN_H
#define ACT_DIST_CONN_H

#include <stdint.h>

#include "actors.h"
#include "route.h"

/* A send to a registered name: struct act__route_name, then the name's
 * bytes, then the message's. */
#define ACT__TAG_DIST_NAME 0xffffffe1u
/* A socket handed to the proxy: struct act__conn_up, then bytes read
 * past the handshake. */
#define ACT__TAG_DIST_UP 0xffffffe2u
/* The proxy's start: its pid is the node's (act__conn_proxy). */
#define ACT__TAG_DIST_GO 0xffffffe3u

struct act__route_name {
	uint32_t tag;	   /* the sender's */
	uint32_t name_len; /* 1..ACT_NAME_MAX */
	uint64_t rsvd;
};

/* A frame's body, at most: the largest message and room for its
 * control message and term headers. A longer length is refused. */
#define ACT__CONN_FRAME_MAX (ACT_MSG_MAX + 65536)

/*
 * Node nd's proxy: the one it has, or a new one that dials it. Inside a
 * process only: 0 with *out set; -ENOTCONN outside a process (no proxy
 * can be made there), -ENOMEM, -EAGAIN when no process could be spawned.
 */
int act__conn_proxy(struct act__dist *d, struct act__peer *nd, act_pid *out);

/* At the runtime's stop (route.c): the memory of nd's connection
 * processes, discarded without their exit handlers. */
void act__conn_free(struct act__peer *nd);

/* The listener's and the epmd registration's processes (node.c spawns
 * them); arg unused. */
void act__conn_listen_main(void *arg);
void act__conn_epmd_main(void *arg);

#endif /* ACT_DIST_CONN_H */
