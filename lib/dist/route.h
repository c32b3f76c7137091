/* SPDX-License-Identifier: MIT */
/*
 * route.h - the runtime's distribution state and the way a send to a
 * remote pid takes: to its node's connection process, as a forward
 * (doc/design/distribution.md "The connection process").
 *
 * A forward is a message of tag ACT__TAG_DIST_SEND to the connection
 * process: a struct act__route_fwd, then the message's bytes; msg.from
 * is the sender (ACT_PID_NONE from outside a process).
 */
#ifndef ACT_DIST_ROUTE_H
#define ACT_DIST_ROUTE_H

#include <stdint.h>

#include "actors.h"
#include "peers.h"

struct act__rt;

#define ACT__TAG_DIST_SEND 0xffffffe0u

struct act__route_fwd {
	act_pid to;   /* the remote pid */
	uint32_t tag; /* the sender's tag */
	uint32_t rsvd;
};

/* Handshakes under way at once, at most: the listener closes a socket
 * past them (lib/dist/conn.c), a bound on what connecting costs us. */
#define ACT__DIST_PENDING_MAX 64

/* The runtime's distribution: rt->dist once started. */
struct act__dist {
	struct act__peers peers;
	char name[ACT__DIST_NAME_MAX + 1]; /* this node: alive@host */
	uint32_t creation;
	/* set by act_dist_start before the first connection process
	 * (lib/dist/node.c); read only after */
	char cookie[256];
	int64_t tick_ns;   /* net_ticktime: a peer silent this long is down */
	int64_t setup_ns;  /* a connection's handshake, at most */
	int64_t linger_ns; /* a reader's wait for a batch, 0: none
			    * (lib/dist/linger.h) */
	uint16_t port;	   /* ours, listening */
	uint16_t epmd_port;
	int listen_fd; /* -1: none; closed by act__route_stop */
	int epmd_fd;   /* the registration, open while we live; -1: none */
	/* sockets in a handshake (fd + 1, 0: free), for the stop to close */
	_Atomic int32_t pending[ACT__DIST_PENDING_MAX];
};

/* rt's distribution made (this node named name, of creation) and
 * published: 0, -EALREADY, -EINVAL (a bad name), -ENOMEM. */
int act__route_start(struct act__rt *rt, const char *name, uint32_t creation);
/* act__route_stop (at the runtime's stop: freed) is declared in
 * sched/rt.h: runtime.c calls it. */
/* rt's distribution, or NULL before it started (acquire). */
struct act__dist *act__route_dist(struct act__rt *rt);
/* Node nd's connection process is proxy (ACT_PID_NONE: it has none). */
void act__route_set_proxy(struct act__peer *nd, act_pid proxy);

#endif /* ACT_DIST_ROUTE_H */
