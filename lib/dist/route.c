/* SPDX-License-Identifier: MIT */
/*
 * route.c - a send to a remote pid, to its node's connection process
 * (route.h), the distribution state's life, and what the observers show
 * of each node (act_dump, ACTORS_STATS, the trace: doc/observability.md),
 * read from its counters (peers.h) through the hooks the runtime's
 * lower layers call (scripts/check-layers.sh).
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
#include "base/trace.h"
#include "node/observe.h"
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

bool act__route_figures(struct act__rt *rt, uint32_t num,
			struct act__route_figures *f)
{
	struct act__dist *d = act__route_dist(rt);
	struct act__peer *nd = d ? act__peers_at(&d->peers, num) : NULL;

	_Static_assert(sizeof(f->name) > ACT__DIST_NAME_MAX, "a node's name");
	if (!nd)
		return false;
	/* relaxed: counters, each read whole; the observers show a
	 * snapshot, not one instant (their writers: lib/dist/conn.c) */
	f->msgs_in = atomic_load_explicit(&nd->msgs_in, memory_order_relaxed);
	f->msgs_out = atomic_load_explicit(&nd->msgs_out, memory_order_relaxed);
	f->bytes_in = atomic_load_explicit(&nd->bytes_in, memory_order_relaxed);
	f->bytes_out =
		atomic_load_explicit(&nd->bytes_out, memory_order_relaxed);
	f->reads = atomic_load_explicit(&nd->reads, memory_order_relaxed);
	f->writes = atomic_load_explicit(&nd->writes, memory_order_relaxed);
	f->lingers = atomic_load_explicit(&nd->lingers, memory_order_relaxed);
	f->linger_trials =
		atomic_load_explicit(&nd->linger_trials, memory_order_relaxed);
	f->linger_kept =
		atomic_load_explicit(&nd->linger_kept, memory_order_relaxed);
	f->tick_misses =
		atomic_load_explicit(&nd->tick_misses, memory_order_relaxed);
	f->up = atomic_load_explicit(&nd->up, memory_order_relaxed) != 0;
	f->proxy.id = atomic_load_explicit(&nd->proxy, memory_order_relaxed);
	/* set before the node was published (act__peers_at's acquire) */
	memcpy(f->name, nd->name, nd->name_len);
	f->name[nd->name_len] = '\0';
	return true;
}

/* A node that was connected, or is being: one only named (a pid of it
 * in a term; this node itself) has nothing to show. */
static bool connected_once(const struct act__route_figures *f)
{
	return f->up || f->proxy.id || f->msgs_in || f->msgs_out ||
	       f->bytes_in || f->bytes_out;
}

void act__route_trace(struct act__rt *rt, struct act__trace_buf *b)
{
	struct act__route_figures f;
	uint32_t num;

	for (num = 1; act__route_figures(rt, num, &f); num++) {
		if (!connected_once(&f))
			continue;
		act__trace_event(b, ACT_TR_NODE_BYTES, num, f.bytes_in,
				 f.bytes_out);
		act__trace_event(b, ACT_TR_NODE_FRAMES,
				 num | (uint64_t)f.tick_misses << 32, f.msgs_in,
				 f.msgs_out);
	}
}

void act__route_stats(struct act__rt *rt, FILE *f)
{
	struct act__route_figures n;
	uint32_t num;

	/* every thread has stopped: the counters are final */
	for (num = 1; act__route_figures(rt, num, &n); num++) {
		/* a node only named, never connected: no line */
		if (!n.msgs_in && !n.msgs_out && !n.bytes_in && !n.bytes_out &&
		    !n.up)
			continue;
		fprintf(f,
			"actors: dist: node %s: %llu frames in (%llu bytes, "
			"%llu reads), %llu out (%llu bytes, %llu writes), "
			"%u tick misses\n",
			n.name, (unsigned long long)n.msgs_in,
			(unsigned long long)n.bytes_in,
			(unsigned long long)n.reads,
			(unsigned long long)n.msgs_out,
			(unsigned long long)n.bytes_out,
			(unsigned long long)n.writes, n.tick_misses);
		/* its reader waited for batches (lib/dist/linger.h) */
		if (n.linger_trials)
			fprintf(f,
				"actors: dist: node %s: %llu reads after a "
				"wait for a batch; waiting tried %u times, "
				"kept %u\n",
				n.name, (unsigned long long)n.lingers,
				n.linger_trials, n.linger_kept);
	}
}
