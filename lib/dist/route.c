/* SPDX-License-Identifier: MIT */
/*
 * route.c - a send to a remote pid, to its node's connection process
 * (route.h), and the distribution state's life.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h" /* ACT_HAVE_EI */
#include "route.h"
#if ACT_HAVE_EI
#include "conn.h"
#endif
#include "actor/links.h"
#include "actor/message.h"
#include "sched/rt.h"

int act__route_start(struct act__rt *rt, const char *name, uint32_t creation)
{
	struct act__dist *d, *none = NULL;
	struct act__peer *self;
	size_t len = strlen(name);

	if (act__route_dist(rt))
		return -EALREADY;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	act__peers_init(&d->peers);
	/* this node's own name is a peer too: its pids of another
	 * creation (an earlier run) are entries there, none alive */
	if (act__peers_get(&d->peers, name, len, &self) < 0) {
		free(d);
		return -EINVAL;
	}
	memcpy(d->name, name, len + 1);
	d->creation = creation;
	d->listen_fd = -1;
	d->epmd_fd = -1;
	/* release: d's fields before rt->dist can be read; pairs with the
	 * acquire load in act__route_dist. A CAS: of two starts at once,
	 * one wins */
	if (!atomic_compare_exchange_strong_explicit(&rt->dist, &none, d,
						     memory_order_release,
						     memory_order_relaxed)) {
		act__peers_fini(&d->peers);
		free(d);
		return -EALREADY;
	}
	return 0;
}

void act__route_stop(struct act__rt *rt)
{
	struct act__dist *d = act__route_dist(rt);
	uint32_t i;

	if (!d)
		return;
	atomic_store_explicit(&rt->dist, NULL, memory_order_relaxed);
	/* every thread has stopped and every process is discarded: the
	 * sockets they held are closed here, which a peer sees as this
	 * node going down (noconnection there) */
	for (i = 1; i <= d->peers.n; i++) {
		struct act__peer *nd = act__peers_at(&d->peers, i);
		int32_t fd1 = nd ? atomic_load_explicit(&nd->fd1,
							memory_order_relaxed) :
				   0;

		if (fd1 > 0)
			close(fd1 - 1);
#if ACT_HAVE_EI
		if (nd)
			act__conn_free(nd);
#endif
	}
	for (i = 0; i < ACT__DIST_PENDING_MAX; i++) {
		int32_t fd1 = atomic_load_explicit(&d->pending[i],
						   memory_order_relaxed);

		if (fd1 > 0)
			close(fd1 - 1);
	}
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	if (d->epmd_fd >= 0)
		close(d->epmd_fd);
	act__peers_fini(&d->peers);
	free(d);
}

struct act__dist *act__route_dist(struct act__rt *rt)
{
	/* acquire: pairs with the release store in act__route_start */
	return atomic_load_explicit(&rt->dist, memory_order_acquire);
}

void act__route_set_proxy(struct act__peer *nd, act_pid proxy)
{
	/* release: what the connection set up before it serves; pairs with
	 * the acquire loads in act__conn_proxy and act__route_proxy */
	atomic_store_explicit(&nd->proxy, proxy.id, memory_order_release);
}

int act__route_send(struct act__rt *rt, act_pid to, uint32_t tag,
		    const void *data, size_t len, act_pid from)
{
	struct act__route_fwd h;
	act_pid proxy;
	/* its node's connection; the first send to the node connects it,
	 * the send waiting in the new connection's mailbox */
	int rc = act__route_proxy(rt, to, &proxy);

	if (rc < 0)
		return rc;
	memset(&h, 0, sizeof(h));
	h.to = to;
	h.tag = tag;
	return act__message_send_hdr(rt, proxy, ACT__TAG_DIST_SEND, &h,
				     sizeof(h), data, len, from);
}

int act__route_proxy(struct act__rt *rt, act_pid to, act_pid *via)
{
	struct act__dist *d = act__route_dist(rt);
	struct act__peer *nd;

	if (!d)
		return -ESRCH;
	nd = act__peers_at(&d->peers, act__peers_pid_node(to));
	/* acquire: pairs with the release store in act__peers_pid_get */
	if (!nd || act__peers_pid_entry(to) >=
			   atomic_load_explicit(&nd->n, memory_order_acquire))
		return -ESRCH;
	/* a pid of this node's earlier run: no process, and no
	 * connection to be made to ourselves */
	if (nd->num == ACT__PEERS_SELF)
		return -ESRCH;
#if ACT_HAVE_EI
	return act__conn_proxy(d, nd, via);
#else
	/* no connection can be made without libei: a proxy set by hand
	 * (act__route_set_proxy, the tests) or none; acquire: pairs with
	 * the release store there */
	via->id = atomic_load_explicit(&nd->proxy, memory_order_acquire);
	return via->id ? 0 : -ENOTCONN;
#endif
}

void act__route_stats(struct act__rt *rt, FILE *f)
{
	struct act__dist *d = act__route_dist(rt);
	uint32_t i;

	if (!d)
		return;
	for (i = 1; i <= d->peers.n; i++) {
		struct act__peer *nd = act__peers_at(&d->peers, i);
		/* relaxed: counters, read once every thread has stopped */
		uint64_t mi, mo, bi, bo, rd, wr;

		if (!nd)
			continue;
		mi = atomic_load_explicit(&nd->msgs_in, memory_order_relaxed);
		mo = atomic_load_explicit(&nd->msgs_out, memory_order_relaxed);
		bi = atomic_load_explicit(&nd->bytes_in, memory_order_relaxed);
		bo = atomic_load_explicit(&nd->bytes_out, memory_order_relaxed);
		rd = atomic_load_explicit(&nd->reads, memory_order_relaxed);
		wr = atomic_load_explicit(&nd->writes, memory_order_relaxed);
		/* a node only named, never connected: no line */
		if (!mi && !mo && !bi && !bo &&
		    !atomic_load_explicit(&nd->up, memory_order_relaxed))
			continue;
		fprintf(f,
			"actors: dist: node %s: %llu frames in (%llu bytes, "
			"%llu reads), %llu out (%llu bytes, %llu writes), "
			"%u tick misses\n",
			nd->name, (unsigned long long)mi,
			(unsigned long long)bi, (unsigned long long)rd,
			(unsigned long long)mo, (unsigned long long)bo,
			(unsigned long long)wr,
			atomic_load_explicit(&nd->tick_misses,
					     memory_order_relaxed));
	}
}
