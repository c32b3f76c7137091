/* SPDX-License-Identifier: MIT */
/*
 * conn.c - a node's connection processes (conn.h): the proxy, the
 * dialer, the acceptor, the reader, and the listener and epmd ones.
 *
 * Every socket is driven with act_io_* on the reactor: a process waiting
 * on one holds no thread. Every failure is a line on standard error
 * ("actors: dist: ...") naming the node and the reason, and the socket
 * closed; the other nodes' connections go on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "codec.h"
#include "ctrl.h"
#include "epmd.h"
#include "flags.h"
#include "handshake.h"
#include "linger.h"
#include "silence.h"
#include "term.h"
#include "watch.h"
#include "actor/links.h"
#include "actor/message.h"
#include "sched/rt.h"

/* ---- small things ------------------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct act__dist *dist(void)
{
	return act__route_dist(act__rt_current);
}

/* A pending-handshake slot for fd (the stop closes what is there):
 * its index, or -1 when ACT__DIST_PENDING_MAX are under way. */
static int pending_claim(struct act__dist *d, int fd)
{
	int i;

	for (i = 0; i < ACT__DIST_PENDING_MAX; i++) {
		int32_t z = 0;

		/* relaxed: the slot is only read by the stop, after every
		 * thread has been joined */
		if (atomic_compare_exchange_strong_explicit(
			    &d->pending[i], &z, fd + 1, memory_order_relaxed,
			    memory_order_relaxed))
			return i;
	}
	return -1;
}

static void pending_release(struct act__dist *d, int slot)
{
	if (slot >= 0)
		atomic_store_explicit(&d->pending[slot], 0,
				      memory_order_relaxed);
}

/* Send all of p[0..n) within timeout_ns: 0 or a negative errno. What
 * the socket takes at once goes on this worker (MSG_DONTWAIT: one
 * system call); only a full socket waits on the reactor. */
static int send_all(int fd, const void *p, size_t n, int64_t timeout_ns)
{
	const char *c = p;

	while (n) {
		ssize_t k = act_io_send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k == -EAGAIN || k == -EWOULDBLOCK)
			k = act_io_send_timeout(fd, c, n, MSG_NOSIGNAL,
						timeout_ns);

		if (k < 0)
			return (int)k;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* a[0..an) then b[0..bn) within timeout_ns, in one sendmsg when the
 * socket takes them (MSG_DONTWAIT, on this worker, as send_all's first
 * try): 0 or a negative errno */
static int send_two(int fd, const void *a, size_t an, const void *b, size_t bn,
		    int64_t timeout_ns)
{
	struct iovec v[2] = { { (void *)a, an }, { (void *)b, bn } };
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = 2 };
	ssize_t k;
	int rc;

	/* errno read at once, on the thread that made the call (I8) */
	do
		k = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return -errno;
	if (k < 0)
		k = 0;
	if ((size_t)k < an) {
		rc = send_all(fd, (const char *)a + k, an - (size_t)k,
			      timeout_ns);
		if (rc < 0)
			return rc;
		k = 0;
	} else {
		k -= (ssize_t)an;
	}
	return send_all(fd, (const char *)b + k, bn - (size_t)k, timeout_ns);
}

static void tcp_nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- exit reasons and references on the wire ---------------------------- */

/* reason as Erlang's: the common atoms, an integer otherwise */
static int reason_encode(ei_x_buff *b, intptr_t r)
{
	const char *a = r == ACT_EXIT_NORMAL	   ? "normal" :
			r == ACT_EXIT_KILL	   ? "kill" :
			r == ACT_EXIT_KILLED	   ? "killed" :
			r == ACT_EXIT_NOPROC	   ? "noproc" :
			r == ACT_EXIT_SHUTDOWN	   ? "shutdown" :
			r == ACT_EXIT_MAILBOX	   ? "mailbox_limit" :
			r == ACT_EXIT_NOCONNECTION ? "noconnection" :
			r == ACT_EXIT_TERM	   ? "exit_term" :
						     NULL;

	if (a)
		return ei_x_encode_atom(b, a) ? -ENOMEM : 0;
	return ei_x_encode_longlong(b, (long long)r) ? -ENOMEM : 0;
}

/* A reason from the wire (t[0..n), no version byte): an ACT_EXIT_* for
 * the common atoms, the integer, or ACT_EXIT_TERM with the term in
 * *term (malloc'd, version byte first, *term_len long; the caller frees
 * it). *kill: the atom kill. */
static intptr_t reason_decode(const char *t, size_t n, bool *kill, char **term,
			      size_t *term_len)
{
	static const struct {
		const char *a;
		intptr_t r;
	} atoms[] = {
		{ "normal", ACT_EXIT_NORMAL },
		{ "kill", ACT_EXIT_KILL },
		{ "killed", ACT_EXIT_KILLED },
		{ "noproc", ACT_EXIT_NOPROC },
		{ "shutdown", ACT_EXIT_SHUTDOWN },
		{ "noconnection", ACT_EXIT_NOCONNECTION },
	};
	char a[MAXATOMLEN_UTF8];
	long long v;
	size_t i;
	int idx = 0;

	*kill = false;
	*term = NULL;
	*term_len = 0;
	if (ei_decode_atom_as(t, &idx, a, sizeof(a), ERLANG_UTF8, NULL, NULL) ==
	    0) {
		for (i = 0; i < sizeof(atoms) / sizeof(atoms[0]); i++)
			if (!strcmp(a, atoms[i].a)) {
				*kill = atoms[i].r == ACT_EXIT_KILL;
				return atoms[i].r;
			}
	}
	idx = 0;
	if (ei_decode_longlong(t, &idx, &v) == 0 && (size_t)idx == n &&
	    v >= INTPTR_MIN && v <= INTPTR_MAX && (v >= 0 || v < -64))
		return (intptr_t)v;
	*term = malloc(n + 1);
	if (*term) {
		(*term)[0] = (char)ACT__ET_VERSION;
		memcpy(*term + 1, t, n);
		*term_len = n + 1;
	}
	return ACT_EXIT_TERM;
}

/* Our monitor reference as an Erlang one of this node (3 words) */
static void ref_make(erlang_ref *e, const struct act__dist *d, uint64_t ref)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->node, sizeof(e->node), "%s", d->name);
	e->len = 3;
	e->n[0] = (unsigned)(ref & 0x3ffff);
	e->n[1] = (unsigned)(uint32_t)(ref >> 18);
	e->n[2] = (unsigned)(ref >> 50);
	e->creation = d->creation;
}

/* One of ours back (ref_make's): true with *ref */
static bool ref_ours(const erlang_ref *e, const struct act__dist *d,
		     uint64_t *ref)
{
	if (strcmp(e->node, d->name) || e->len != 3 ||
	    e->creation != d->creation || e->n[0] > 0x3ffff || e->n[2] > 0x3fff)
		return false;
	*ref = (uint64_t)e->n[0] | (uint64_t)e->n[1] << 18 |
	       (uint64_t)e->n[2] << 50;
	return true;
}

/* A node's connection takes every send to it: no mailbox limit (an
 * ACTORS_MAILBOX_LIMIT would kill it, and so the connection, on a
 * burst); its senders are slowed by backpressure instead. */
static const struct act_spawn_opts unlimited = {
	.mailbox_limit = ACT_MAILBOX_UNLIMITED
};

/* ---- the handshake over a socket ---------------------------------------- */

/* The acceptor's answer to the peer's name (the caller's choice). */
typedef enum act__handshake_status (*hs_answer)(struct act__handshake *h,
						void *ctx);

/*
 * Runs h over fd until DONE or FAILED, or until deadline: 0 when DONE,
 * with the bytes read past the handshake in left[0..*left_len); else a
 * negative errno, h->why the reason when the handshake failed.
 */
static int hs_run(struct act__handshake *h, int fd, int64_t deadline,
		  hs_answer answer, void *ctx, uint8_t *left, size_t *left_len,
		  size_t left_cap)
{
	uint8_t in[2048];
	size_t have = 0, off = 0;
	int st = h->state;

	*left_len = 0;
	for (;;) {
		const uint8_t *out;
		size_t olen, used;
		int64_t wait = deadline - now_ns();
		int rc;

		act__handshake_output(h, &out, &olen);
		if (olen) {
			rc = send_all(fd, out, olen, wait > 0 ? wait : 1);
			if (rc < 0)
				return rc;
			act__handshake_sent(h, olen);
			continue;
		}
		if (st == ACT__HANDSHAKE_DONE) {
			size_t n = have - off;

			if (n > left_cap)
				return -EMSGSIZE;
			memcpy(left, in + off, n);
			*left_len = n;
			return 0;
		}
		if (st == ACT__HANDSHAKE_FAILED || st < 0)
			return h->err ? h->err : -EPROTO;
		if (st == ACT__HANDSHAKE_NAME) {
			st = act__handshake_accept(h, answer(h, ctx));
			continue;
		}
		if (off < have) {
			st = act__handshake_feed(h, in + off, have - off,
						 &used);
			off += used;
			continue;
		}
		if (wait <= 0) {
			h->why = "the handshake took longer than its limit";
			return -ETIMEDOUT;
		}
		have = off = 0;
		{
			ssize_t k = act_io_recv_timeout(fd, in, sizeof(in), 0,
							wait);

			if (k == 0) {
				st = act__handshake_eof(h);
				continue;
			}
			if (k < 0) {
				h->why = k == -ETIMEDOUT ?
						 "the handshake took longer "
						 "than its limit" :
						 "the socket failed";
				return (int)k;
			}
			have = (size_t)k;
		}
	}
}

/* ---- the hand-over of a socket to the proxy ----------------------------- */

struct act__conn_up {
	int fd;
	uint32_t left_len;
};

/* fd (with left[0..n) read past the handshake) to proxy: 0, or the
 * send's error (then fd is still the caller's). */
static int hand_over(act_pid proxy, int fd, const uint8_t *left, size_t n)
{
	struct act__conn_up up = { .fd = fd, .left_len = (uint32_t)n };
	char buf[sizeof(up) + 2048];

	memcpy(buf, &up, sizeof(up));
	memcpy(buf + sizeof(up), left, n);
	return act__message_send(act__rt_current, proxy, ACT__TAG_DIST_UP, buf,
				 sizeof(up) + n, ACT_PID_NONE);
}

/* ---- the dialer ---------------------------------------------------------- */

/* The dialer's state, on its own stack: every way out of dial_main is
 * an act_exit inside it, so the exit handler finds it there. Nothing of
 * it is the spawner's to free: a dialer killed before it ran holds
 * nothing. */
struct dial_arg {
	uint32_t node;
	int fd; /* the socket in use, -1: none; closed at exit */
	int slot;
	struct act__handshake h;
};

static void dial_gone(void *arg)
{
	struct dial_arg *a = arg;

	if (a->fd >= 0)
		close(a->fd);
	pending_release(dist(), a->slot);
}

struct resolve {
	const char *host;
	struct in_addr addr;
	int rc;
};

static void resolve_fn(void *arg)
{
	struct resolve *r = arg;
	struct addrinfo hints, *res = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	r->rc = getaddrinfo(r->host, NULL, &hints, &res);
	if (r->rc == 0 && res) {
		r->addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
		freeaddrinfo(res);
	} else if (r->rc == 0) {
		r->rc = EAI_NONAME;
	}
}

/* host's IPv4 address: a literal at once, a name through act_blocking
 * (getaddrinfo blocks). 0 or -EHOSTUNREACH. */
static int resolve_host(const char *host, struct in_addr *out)
{
	struct resolve r = { .host = host };

	if (inet_pton(AF_INET, host, out) == 1)
		return 0;
	if (act_blocking(resolve_fn, &r) < 0 || r.rc != 0)
		return -EHOSTUNREACH;
	*out = r.addr;
	return 0;
}

/* a connected socket to addr:port within deadline, in a->fd */
static int dial_tcp(struct dial_arg *a, struct in_addr addr, uint16_t port,
		    int64_t deadline)
{
	struct sockaddr_in sa;
	int64_t wait = deadline - now_ns();

	a->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (a->fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr = addr;
	return act_io_connect_timeout(a->fd, (struct sockaddr *)&sa, sizeof(sa),
				      wait > 0 ? wait : 1);
}

/* node's port from epmd on addr: 0 with *port, or a negative errno and
 * *why */
static int epmd_port_of(struct dial_arg *a, struct act__dist *d,
			const char *alive, struct in_addr addr,
			int64_t deadline, uint16_t *port, const char **why)
{
	uint8_t req[300], rep[600];
	struct act__epmd_node node;
	size_t have = 0;
	int rc, n = act__epmd_port_please2_req(req, sizeof(req), alive);

	*why = "epmd";
	if (n < 0)
		return n;
	rc = dial_tcp(a, addr, d->epmd_port, deadline);
	if (rc < 0) {
		*why = "no epmd answers on that host (is it running?)";
		return rc;
	}
	rc = send_all(a->fd, req, (size_t)n, deadline - now_ns());
	while (rc == 0) {
		ssize_t k;

		rc = act__epmd_port2_resp(rep, have, &node, why);
		if (rc != 0)
			break;
		if (have == sizeof(rep)) {
			rc = -EMSGSIZE;
			break;
		}
		k = act_io_recv_timeout(a->fd, rep + have, sizeof(rep) - have,
					0, deadline - now_ns());
		if (k <= 0) {
			rc = k == 0 ? -ECONNRESET : (int)k;
			*why = "epmd closed before its answer";
			if (have == 2 && rep[0] == ACT__EPMD_PORT2_RESP)
				rc = act__epmd_port2_resp(rep, have, &node,
							  why);
			break;
		}
		have += (size_t)k;
	}
	close(a->fd);
	a->fd = -1;
	if (rc < 0)
		return rc;
	*port = node.port;
	return 0;
}

static void dial_main(void *arg)
{
	struct dial_arg st = { .node = (uint32_t)(uintptr_t)arg,
			       .fd = -1,
			       .slot = -1 },
			*a = &st;
	struct act__dist *d = dist();
	struct act__peer *nd = act__peers_at(&d->peers, a->node);
	int64_t deadline = now_ns() + d->setup_ns;
	char alive[ACT__DIST_NAME_MAX + 1];
	const char *host, *why = NULL;
	struct act__handshake *h = NULL;
	act_pid proxy;
	struct in_addr addr;
	uint8_t left[2048];
	size_t left_len = 0;
	uint32_t challenge;
	uint16_t port = 0;
	char *at;
	int rc;

	act_on_exit(dial_gone, a);
	memcpy(alive, nd->name, nd->name_len);
	alive[nd->name_len] = 0;
	at = strchr(alive, '@');
	*at = 0;
	host = at + 1;
	rc = resolve_host(host, &addr);
	if (rc < 0) {
		why = "its host name does not resolve";
		goto fail;
	}
	rc = epmd_port_of(a, d, alive, addr, deadline, &port, &why);
	if (rc < 0)
		goto fail;
	rc = dial_tcp(a, addr, port, deadline);
	if (rc < 0) {
		why = "no answer on the port epmd gave";
		goto fail;
	}
	tcp_nodelay(a->fd);
	a->slot = pending_claim(d, a->fd);
	h = &a->h;
	if (getrandom(&challenge, sizeof(challenge), 0) < 0) {
		rc = -EAGAIN;
		why = "no random challenge (getrandom)";
		goto fail;
	}
	act__handshake_init(h, ACT__HANDSHAKE_INITIATOR, d->name, d->cookie,
			    ACT__DFLAGS_OURS, d->creation, challenge);
	act__handshake_expect(h, nd->name);
	rc = hs_run(h, a->fd, deadline, NULL, NULL, left, &left_len,
		    sizeof(left));
	if (rc < 0) {
		why = h->why ? h->why : "the handshake failed";
		goto fail;
	}
	/* acquire: pairs with the release stores of proxy: the node's
	 * proxy, ours (or its successor, which takes the socket too) */
	proxy.id = atomic_load_explicit(&nd->proxy, memory_order_acquire);
	if (proxy.id && hand_over(proxy, a->fd, left, left_len) == 0)
		a->fd = -1;	   /* the proxy's now */
	act_exit(ACT_EXIT_NORMAL); /* st is on this frame: no return */
fail:
	fprintf(stderr, "actors: dist: cannot connect to %s: %s (%s)\n",
		nd->name, why ? why : "failed", strerror(-rc));
	act_exit(-rc);
}

/* ---- the proxy ----------------------------------------------------------- */

/* A remote process's monitor of a local one: the proxy's own monitor of
 * it (lref) stands for it, and its DOWN goes out as MONITOR_P_EXIT. */
struct proxy {
	struct act__dist *d;
	struct act__peer *nd;
	act_pid self, reader, dialer;
	struct act__codec_self me;
	int fd;
	ei_x_buff b;
	int64_t last_send;
	struct act__watches watches; /* the peer's monitors of ours */
};

/* The reader's word to the proxy: a remote process's MONITOR_P or
 * DEMONITOR_P of a local one (tag ACT__TAG_DIST_MON) */
#define ACT__TAG_DIST_MON 0xffffffe5u
struct dist_mon {
	uint32_t op;   /* ACT__CTRL_MONITOR_P or ACT__CTRL_DEMONITOR_P */
	uint64_t lref; /* MONITOR_P: the proxy's monitor, made by the
			* reader after this word was sent */
	act_pid from, to;
	erlang_ref eref;
	char name[ACT_NAME_MAX + 1]; /* by name: the name ("": by pid) */
};

static void proxy_free(struct proxy *p)
{
	if (p->b.buff)
		ei_x_free(&p->b);
	act__watch_fini(&p->watches);
	free(p);
}

static void proxy_gone(void *arg)
{
	struct proxy *p = arg;
	uint64_t me = p->self.id;
	void *mine = p;

	/* relaxed: the proxy's exit orders it before a successor's store
	 * (the release CAS of proxy below) */
	atomic_compare_exchange_strong_explicit(&p->nd->proxy_mem, &mine, NULL,
						memory_order_relaxed,
						memory_order_relaxed);

	atomic_store_explicit(&p->nd->up, 0, memory_order_relaxed);
	atomic_store_explicit(&p->nd->fd1, 0, memory_order_relaxed);
	/* release: pairs with the acquire loads in act__conn_proxy and
	 * act__route_send: a new try sees this one gone */
	atomic_compare_exchange_strong_explicit(&p->nd->proxy, &me, 0,
						memory_order_release,
						memory_order_relaxed);
	if (p->fd >= 0)
		close(p->fd);
	proxy_free(p);
}

static bool match_setup(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == ACT__TAG_DIST_UP || m->tag == ACT_TAG_EXIT ||
	       m->tag == ACT__TAG_DIST_GO;
}

static void reader_main(void *arg);

/* A frame started at the end of the batch in p->b: its offset, or -1
 * for no memory */
static int frame_begin(struct proxy *p)
{
	int at = p->b.index;

	return act__ctrl_begin_at(&p->b) ? -1 : at;
}

/* The frame at offset at is complete (rc 0: 0 back), or dropped (rc < 0,
 * at < 0: taken out of the batch, 1 back) */
static int frame_end(struct proxy *p, int at, int rc)
{
	if (rc < 0 || at < 0) {
		if (at >= 0)
			p->b.index = at;
		return 1;
	}
	act__ctrl_end_at(&p->b, at);
	atomic_fetch_add_explicit(&p->nd->msgs_out, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->nd->bytes_out,
				  (uint64_t)(p->b.index - at),
				  memory_order_relaxed);
	return 0;
}

/* The batch's frames out in one write, then more[0..n) (the body of its
 * last frame, where it lies: PROXY_BODY_INLINE): 0, or the socket's
 * error */
static int proxy_flush_more(struct proxy *p, const void *more, size_t n)
{
	int rc = n ? send_two(p->fd, p->b.buff, (size_t)p->b.index, more, n,
			      p->d->tick_ns) :
		     send_all(p->fd, p->b.buff, (size_t)p->b.index,
			      p->d->tick_ns);

	atomic_fetch_add_explicit(&p->nd->writes, 1, memory_order_relaxed);
	p->b.index = 0;
	p->last_send = now_ns();
	/* a 64 MiB message leaves no 64 MiB buffer behind */
	if (p->b.buffsz > (1 << 20)) {
		ei_x_free(&p->b);
		ei_x_new(&p->b);
	}
	return rc;
}

static int proxy_flush(struct proxy *p)
{
	return proxy_flush_more(p, NULL, 0);
}

/* A body this long or longer is not copied into the batch: its frame's
 * head is, and the batch goes out at once with the body after it,
 * from the message (a 64 KiB message cost a copy of 64 KiB more). */
#define PROXY_BODY_INLINE 16384

/* A forward or a name send, as a frame in the batch: 0, or 1 when it is
 * dropped (a pid of no entry, a term refused: the sender was told at its
 * send; no memory), or the socket's error (< 0) when a large body was
 * written with the batch. */
static int proxy_send(struct proxy *p, const struct act_msg *m)
{
	act_pid from = m->from.id ? m->from : p->self;
	const char *body;
	size_t blen;
	uint32_t tag;
	int rc, at = frame_begin(p);

	if (at < 0)
		return 1;
	if (m->tag == ACT__TAG_DIST_SEND) {
		struct act__route_fwd f;

		memcpy(&f, m->data, sizeof(f));
		rc = act__ctrl_encode(&p->b, &p->d->peers, &p->me,
				      ACT__CTRL_SEND_SENDER, from, f.to, 0);
		tag = f.tag;
		body = (const char *)m->data + sizeof(f);
		blen = m->len - sizeof(f);
	} else {
		struct act__route_name rn;
		char name[ACT_NAME_MAX + 1];

		memcpy(&rn, m->data, sizeof(rn));
		memcpy(name, (const char *)m->data + sizeof(rn), rn.name_len);
		name[rn.name_len] = 0;
		rc = act__ctrl_encode_reg_send(&p->b, &p->d->peers, &p->me,
					       from, name);
		tag = rn.tag;
		body = (const char *)m->data + sizeof(rn) + rn.name_len;
		blen = m->len - sizeof(rn) - rn.name_len;
	}
	if (rc < 0)
		return frame_end(p, at, rc);
	if (blen >= PROXY_BODY_INLINE) {
		/* the head in the batch, the body from the message */
		if (tag != ACT_TAG_TERM &&
		    act__codec_user_head(&p->b, tag, blen) < 0)
			return frame_end(p, at, -ENOMEM);
		act__ctrl_end_at_more(&p->b, at, blen);
		atomic_fetch_add_explicit(&p->nd->msgs_out, 1,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&p->nd->bytes_out,
					  (uint64_t)(p->b.index - at) + blen,
					  memory_order_relaxed);
		return proxy_flush_more(p, body, blen);
	}
	if (tag == ACT_TAG_TERM)
		rc = ei_x_append_buf(&p->b, body, (int)blen) ? -ENOMEM : 0;
	else
		rc = act__codec_user_encode(&p->b, tag, body, blen);
	return frame_end(p, at, rc);
}

/* A relation's word (act__links_sig) as a frame in the batch: 0, or 1
 * when dropped (a pid of no entry, no memory). */
static int proxy_sig(struct proxy *p, const struct act_msg *m)
{
	struct act__links_sig g;
	erlang_ref e;
	act_pid from;
	int rc, at = frame_begin(p);

	if (at < 0)
		return 1;
	memcpy(&g, m->data, sizeof(g));
	from = g.from.id ? g.from : p->self;
	switch (g.op) {
	case ACT__SIG_LINK:
		rc = act__ctrl_encode(&p->b, &p->d->peers, &p->me,
				      ACT__CTRL_LINK, from, g.to, 0);
		break;
	case ACT__SIG_EXIT:
	case ACT__SIG_EXIT2:
		rc = act__ctrl_encode(&p->b, &p->d->peers, &p->me,
				      g.op == ACT__SIG_EXIT ? ACT__CTRL_EXIT :
							      ACT__CTRL_EXIT2,
				      from, g.to, 0);
		if (!rc)
			rc = reason_encode(&p->b, g.reason);
		break;
	case ACT__SIG_UNLINK:
	case ACT__SIG_UNLINK_ACK:
		rc = act__ctrl_encode(&p->b, &p->d->peers, &p->me,
				      g.op == ACT__SIG_UNLINK ?
					      ACT__CTRL_UNLINK_ID :
					      ACT__CTRL_UNLINK_ID_ACK,
				      from, g.to, g.ref);
		break;
	case ACT__SIG_MONITOR:
	case ACT__SIG_DEMONITOR:
		ref_make(&e, p->d, g.ref);
		rc = act__ctrl_encode_monitor(&p->b, &p->d->peers, &p->me,
					      g.op == ACT__SIG_MONITOR ?
						      ACT__CTRL_MONITOR_P :
						      ACT__CTRL_DEMONITOR_P,
					      from, g.to, &e);
		break;
	default:
		rc = -EINVAL;
		break;
	}
	return frame_end(p, at, rc);
}

/* MONITOR_P_EXIT of remote watch i (its target's DOWN, reason) as a
 * frame in the batch; the watch is taken away. 0. */
static int proxy_watch_fired(struct proxy *p, size_t i, intptr_t reason,
			     const void *term, size_t term_len)
{
	struct act__watch w;
	int rc, at = frame_begin(p);

	act__watch_take(&p->watches, i, &w);
	if (at < 0)
		return 0;
	if (w.name[0]) /* {21, Name, Watcher, Ref, Reason} */
		rc = ei_x_encode_version(&p->b) ||
				     ei_x_encode_tuple_header(&p->b, 5) ||
				     ei_x_encode_long(
					     &p->b, ACT__CTRL_MONITOR_P_EXIT) ||
				     ei_x_encode_atom(&p->b, w.name) ?
			     -ENOMEM :
			     act__codec_pid_encode(&p->b, &p->d->peers, &p->me,
						   w.watcher);
	else
		rc = act__ctrl_encode_monitor(&p->b, &p->d->peers, &p->me,
					      ACT__CTRL_MONITOR_P_EXIT,
					      w.target, w.watcher, &w.eref);
	if (!rc && w.name[0] && ei_x_encode_ref(&p->b, &w.eref))
		rc = -ENOMEM;
	if (!rc && term_len > 1) /* the term, less its version byte */
		rc = ei_x_append_buf(&p->b, (const char *)term + 1,
				     (int)term_len - 1) ?
			     -ENOMEM :
			     0;
	else if (!rc)
		rc = reason_encode(&p->b, reason);
	(void)frame_end(p, at, rc);
	return 0;
}

/* A remote process's MONITOR_P or DEMONITOR_P, from the reader */
static int proxy_mon(struct proxy *p, const struct act_msg *m)
{
	struct act__watch w;
	struct dist_mon dm;
	long i;

	memcpy(&dm, m->data, sizeof(dm));
	if (dm.op == ACT__CTRL_DEMONITOR_P) {
		i = act__watch_find_eref(&p->watches, dm.from, &dm.eref);
		if (i >= 0) {
			act__watch_take(&p->watches, (size_t)i, &w);
			act_demonitor(w.lref);
		}
		return 0;
	}
	w.watcher = dm.from;
	w.target = dm.to;
	w.eref = dm.eref;
	memcpy(w.name, dm.name, sizeof(dm.name));
	w.lref = dm.lref;
	if (act__watch_add(&p->watches, &w) < 0) {
		/* the proxy's monitor stays; its DOWN finds no watch */
		fprintf(stderr,
			"actors: dist: node %s: no memory for a monitor from "
			"there: it will not fire\n",
			p->nd->name);
		act_demonitor(dm.lref);
	}
	return 0;
}

/* The DOWN of one of the proxy's monitors: a remote watch's */
static int proxy_down(struct proxy *p, const struct act_msg *m)
{
	struct act_exit_info x;
	long i;

	memcpy(&x, m->data, sizeof(x));
	i = act__watch_find_lref(&p->watches, x.ref);
	if (i >= 0)
		return proxy_watch_fired(p, (size_t)i, x.reason,
					 (const char *)m->data + sizeof(x),
					 m->len - sizeof(x));
	return 0;
}

static const char tick[4];

/* The socket refused a write (rc, a negative errno): said once, the
 * node then down */
static void proxy_send_failed(struct proxy *p, int rc)
{
	fprintf(stderr, "actors: dist: node %s down: sending failed (%s)\n",
		p->nd->name, strerror(-rc));
}

/* One message of the proxy's: what it asks for goes into the batch.
 * 0, or the exit reason (the reader gone). */
static intptr_t proxy_take(struct proxy *p, const struct act_msg *m)
{
	struct act_exit_info x;
	struct act__conn_up up;
	int rc;

	switch (m->tag) {
	case ACT__TAG_DIST_SEND:
	case ACT__TAG_DIST_NAME:
		rc = proxy_send(p, m);
		if (rc < 0) { /* a large body's write failed */
			proxy_send_failed(p, rc);
			return ACT_EXIT_NOCONNECTION;
		}
		break;
	case ACT__TAG_LINK_SIG:
		(void)proxy_sig(p, m);
		break;
	case ACT__TAG_DIST_MON:
		(void)proxy_mon(p, m);
		break;
	case ACT_TAG_DOWN:
		(void)proxy_down(p, m);
		break;
	case ACT__TAG_DIST_UP:
		/* a second socket (both tries finished): ours serves, this
		 * one closes */
		memcpy(&up, m->data, sizeof(up));
		close(up.fd);
		break;
	case ACT_TAG_EXIT:
		memcpy(&x, m->data, sizeof(x));
		if (x.who.id == p->reader.id)
			return ACT_EXIT_NOCONNECTION;
		break;
	}
	return 0;
}

/* Nothing read from the peer for net_ticktime (the reader's clock of its
 * last read, last_in), and nothing waiting in the socket: it is down
 * (silence.h). The reader's receives carry no limit of their own (a
 * linked timeout per receive cost the kernel a timer armed and cancelled
 * each time, about 8% of a lone round trip's CPU): this check runs at
 * each turn of the proxy's loop, which waits a quarter of the tick time
 * at most, so a silent peer is down after between one and one and a
 * quarter tick times, within Erlang's own margin (it checks four times
 * per net_ticktime). */
static bool peer_silent(struct proxy *p, int64_t now)
{
	/* relaxed: a clock reading, stored by the reader (any worker) */
	int64_t last =
		atomic_load_explicit(&p->nd->last_in, memory_order_relaxed);

	switch (act__silence_check(now, last, p->d->tick_ns, p->fd)) {
	case ACT__SILENCE_HEARD:
		return false;
	case ACT__SILENCE_BEHIND:
		/* the reader is behind (its worker was held), the peer is
		 * not silent; the watch starts again. relaxed: as the
		 * reader's store */
		atomic_store_explicit(&p->nd->last_in, now,
				      memory_order_relaxed);
		return false;
	case ACT__SILENCE_DOWN:
		break;
	}
	atomic_fetch_add_explicit(&p->nd->tick_misses, 1, memory_order_relaxed);
	fprintf(stderr,
		"actors: dist: node %s down: nothing received for "
		"net_ticktime (%lld ms)\n",
		p->nd->name, (long long)(p->d->tick_ns / 1000000));
	return true;
}

/* Up: forwards out as frames, a tick when idle, until the reader or the
 * socket ends it, or the peer is silent for net_ticktime. Returns the
 * exit reason. The frames of every message waiting are gathered into
 * one write (up to PROXY_BATCH bytes), which goes when the mailbox is
 * empty: a burst of sends costs one system call, and a lone one goes at
 * once. */
#define PROXY_BATCH 65536
static intptr_t proxy_serve(struct proxy *p)
{
	int64_t quarter = p->d->tick_ns / 4;
	bool yielded = false; /* this batch has waited for its neighbours */

	p->last_send = now_ns();
	for (;;) {
		int64_t now = now_ns(),
			wait = p->b.index ? 0 : p->last_send + quarter - now;
		struct act_msg *m;
		intptr_t why = 0;
		int rc = 0;

		if (peer_silent(p, now))
			return ACT_EXIT_NOCONNECTION;
		m = wait > 0 || p->b.index ? act_receive(wait) : NULL;
		if (m) {
			why = proxy_take(p, m);
			act_msg_free(m);
			if (why)
				return why;
			if (p->b.index >= PROXY_BATCH) {
				rc = proxy_flush(p);
				yielded = false;
			}
		} else if (p->b.index && !yielded) {
			/* the processes runnable here first: their sends
			 * join this batch */
			act_yield();
			yielded = true;
			continue;
		} else if (p->b.index) {
			rc = proxy_flush(p);
			yielded = false;
		} else if (now_ns() - p->last_send >= quarter) {
			rc = send_all(p->fd, tick, sizeof(tick), p->d->tick_ns);
			p->last_send = now_ns();
		}
		if (rc < 0) {
			proxy_send_failed(p, rc);
			return ACT_EXIT_NOCONNECTION;
		}
	}
}

/* Waits for the socket (the dialer's or an acceptor's): 0, or the exit
 * reason. */
static intptr_t proxy_setup(struct proxy *p, struct act_msg **upm)
{
	int64_t deadline = now_ns() + p->d->setup_ns + p->d->setup_ns / 2;

	for (;;) {
		int64_t wait = deadline - now_ns();
		struct act_msg *m =
			wait > 0 ? act_receive_match(match_setup, NULL, wait) :
				   NULL;
		struct act__conn_up up;

		if (!m) {
			fprintf(stderr,
				"actors: dist: cannot connect to %s: no "
				"connection within the setup time\n",
				p->nd->name);
			return ETIMEDOUT;
		}
		if (m->tag == ACT_TAG_EXIT) {
			struct act_exit_info x;

			memcpy(&x, m->data, sizeof(x));
			act_msg_free(m);
			if (x.who.id == p->dialer.id &&
			    x.reason != ACT_EXIT_NORMAL) {
				p->dialer = ACT_PID_NONE;
				return x.reason;
			}
			continue;
		}
		if (m->tag != ACT__TAG_DIST_UP) {
			act_msg_free(m);
			continue;
		}
		memcpy(&up, m->data, sizeof(up));
		*upm = m; /* the reader's, with the bytes read past the
			   * handshake */
		p->fd = up.fd;
		/* relaxed: read by the stop only, after every join */
		atomic_store_explicit(&p->nd->fd1, up.fd + 1,
				      memory_order_relaxed);
		if (p->dialer.id) /* an acceptor's socket won the race */
			act_kill(p->dialer, ACT_EXIT_KILL);
		return 0;
	}
}

static void proxy_main(void *arg)
{
	uintptr_t v = (uintptr_t)arg;
	struct proxy *p = calloc(1, sizeof(*p));
	struct act_msg *up = NULL;
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK,
				    .mailbox_limit = ACT_MAILBOX_UNLIMITED };
	struct act_msg *go;
	intptr_t why;

	if (!p)
		act_exit(ENOMEM);
	p->d = dist();
	p->nd = act__peers_at(&p->d->peers, (uint32_t)(v >> 1));
	p->self = act_self();
	p->fd = -1;
	p->me.name = p->d->name;
	p->me.creation = p->d->creation;
	act_on_exit(proxy_gone, p);
	act_trap_exit(true);
	/* the spawner's word that this process is the node's (or an exit
	 * if another process won) */
	go = act_receive_match(match_setup, NULL, ACT_FOREVER);
	if (go->tag != ACT__TAG_DIST_GO) {
		act_msg_free(go);
		act_exit(ACT_EXIT_NORMAL);
	}
	act_msg_free(go);
	/* relaxed: read by the stop, after every join */
	atomic_store_explicit(&p->nd->proxy_mem, p, memory_order_relaxed);
	if (ei_x_new(&p->b))
		act_exit(ENOMEM);
	if (v & 1) {
		if (act_spawn_pid(dial_main, (void *)(uintptr_t)p->nd->num, &o,
				  &p->dialer) < 0)
			act_exit(EAGAIN);
	}
	why = proxy_setup(p, &up);
	if (why)
		act_exit(why);
	/* the reader takes its socket and bytes by message: a reader
	 * killed before it ran holds nothing */
	if (act_spawn_pid(reader_main, (void *)(uintptr_t)p->nd->num, &o,
			  &p->reader) < 0 ||
	    act__message_send(act__rt_current, p->reader, ACT__TAG_DIST_UP,
			      up->data, up->len, ACT_PID_NONE) < 0) {
		act_msg_free(up);
		act_exit(EAGAIN);
	}
	act_msg_free(up);
	/* relaxed: the silence watch's start (peer_silent) */
	atomic_store_explicit(&p->nd->last_in, now_ns(), memory_order_relaxed);
	/* release: what the proxy set up before `up` is read */
	atomic_store_explicit(&p->nd->up, 1, memory_order_release);
	act_exit(proxy_serve(p));
}

int act__conn_proxy(struct act__dist *d, struct act__peer *nd, act_pid *out)
{
	(void)d;
	for (;;) {
		uint64_t cur;
		act_pid pid;
		int rc;

		/* acquire: pairs with the release stores of proxy */
		cur = atomic_load_explicit(&nd->proxy, memory_order_acquire);
		if (cur) {
			out->id = cur;
			return 0;
		}
		if (act_self().id == ACT_PID_NONE.id)
			return -ENOTCONN;
		rc = act_spawn_pid(proxy_main,
				   (void *)(((uintptr_t)nd->num << 1) | 1),
				   &unlimited, &pid);
		if (rc < 0)
			return rc == -ENOMEM ? rc : -EAGAIN;
		/* release: the proxy's pid published; pairs with the
		 * acquire loads of proxy */
		if (atomic_compare_exchange_strong_explicit(
			    &nd->proxy, &cur, pid.id, memory_order_release,
			    memory_order_relaxed)) {
			act__message_send(act__rt_current, pid,
					  ACT__TAG_DIST_GO, NULL, 0,
					  ACT_PID_NONE);
			*out = pid;
			return 0;
		}
		act_kill(pid, ACT_EXIT_KILL); /* another process won */
	}
}

/* ---- the reader ---------------------------------------------------------- */

struct reader {
	struct act__dist *d;
	struct act__peer *nd;
	act_pid proxy;
	struct act__codec_self me;
	uint8_t *buf;
	size_t cap, have;
	size_t start; /* buf[start..have): read, not yet taken as frames */
	int fd;
	struct act__linger linger; /* when to wait for a batch */
};

static void reader_gone(void *arg)
{
	struct reader *r = arg;

	void *mine = r;

	/* relaxed: read by the stop only, after every join */
	if (r->nd)
		atomic_compare_exchange_strong_explicit(&r->nd->reader_mem,
							&mine, NULL,
							memory_order_relaxed,
							memory_order_relaxed);
	free(r->buf);
	free(r);
}

static void deliver(struct reader *r, act_pid to, act_pid from, const char *msg,
		    size_t len)
{
	const char *bin;
	size_t blen;
	uint32_t tag;

	char pid[ACT_PID_STRLEN];
	int rc;

	if (act__codec_user_decode(msg, len, &tag, &bin, &blen))
		rc = act__message_send_as(act__rt_current, to, tag, bin, blen,
					  from);
	else
		rc = act__message_send_as(act__rt_current, to, ACT_TAG_TERM,
					  msg, len, from);
	/* a dead receiver's is lost, as in Erlang; any other loss is said
	 * (a term past ACT_MSG_MAX, no memory) */
	if (rc < 0 && rc != -ESRCH) {
		act_pid_format(to, pid, sizeof(pid));
		fprintf(stderr,
			"actors: dist: node %s: a message of %zu bytes to %s "
			"dropped: %s\n",
			r->nd->name, len, pid, strerror(-rc));
	}
}

/* A word to the proxy (act__links_sig): what only it sends */
static void reader_tell(struct reader *r, uint32_t op, act_pid from, act_pid to,
			intptr_t reason, uint64_t ref)
{
	struct act__links_sig g = {
		.op = op, .from = from, .to = to, .reason = reason, .ref = ref
	};

	(void)act__message_send_sys(act__rt_current, r->proxy,
				    ACT__TAG_LINK_SIG, &g, sizeof(g), from);
}

/* The proxy's monitor of local pid `to` under lref, for a remote
 * watcher; a pid not alive: its DOWN (noproc) to the proxy at once */
static void reader_monitor(struct reader *r, act_pid to, uint64_t lref)
{
	struct act__rt *rt = act__rt_current;
	struct act__proc *px = act__proc_lookup(&rt->procs, r->proxy);
	struct act_exit_info x = { to, ACT_EXIT_NOPROC, lref };

	if (!px)
		return; /* the connection is going */
	if (to.id == ACT_PID_NONE.id ||
	    act__links_monitor_ref(rt, px, to, lref) < 0)
		(void)act__message_send_sys(rt, r->proxy, ACT_TAG_DOWN, &x,
					    sizeof(x), to);
}

/* The links and monitors of the remote processes: to the local ends */
static void reader_rel(struct reader *r, const struct act__ctrl *c)
{
	struct act__rt *rt = act__rt_current;
	struct dist_mon dm;
	char *term = NULL;
	size_t term_len = 0;
	intptr_t reason = 0;
	uint64_t ref;
	bool kill = false;

	if (c->reason)
		reason = reason_decode(c->reason, c->reason_len, &kill, &term,
				       &term_len);
	switch (c->op) {
	case ACT__CTRL_LINK:
		if (act__links_remote_link(rt, r->proxy, c->from, c->to) ==
		    -ESRCH)
			reader_tell(r, ACT__SIG_EXIT, c->to, c->from,
				    ACT_EXIT_NOPROC, 0);
		break;
	case ACT__CTRL_UNLINK_ID:
		act__links_remote_unlink(rt, r->proxy, c->from, c->to);
		reader_tell(r, ACT__SIG_UNLINK_ACK, c->to, c->from, 0, c->id);
		break;
	case ACT__CTRL_EXIT:
	case ACT__CTRL_EXIT2:
		act__links_remote_exit(rt, r->proxy, c->from, c->to, reason,
				       c->op == ACT__CTRL_EXIT,
				       c->op == ACT__CTRL_EXIT2 && kill, term,
				       term_len);
		break;
	case ACT__CTRL_MONITOR_P_EXIT:
		if (ref_ours(&c->ref, r->d, &ref))
			act__links_remote_down(rt, r->proxy, c->from, c->to,
					       ref, reason, term, term_len);
		break;
	case ACT__CTRL_MONITOR_P:
	case ACT__CTRL_DEMONITOR_P:
		memset(&dm, 0, sizeof(dm));
		dm.op = c->op;
		dm.from = c->from;
		dm.to = c->name[0] ? act_whereis(c->name) : c->to;
		dm.eref = c->ref;
		snprintf(dm.name, sizeof(dm.name), "%s", c->name);
		if (c->op == ACT__CTRL_MONITOR_P)
			dm.lref = act_make_ref();
		(void)act__message_send_sys(rt, r->proxy, ACT__TAG_DIST_MON,
					    &dm, sizeof(dm), c->from);
		/* the proxy's monitor, made here, before the frames after
		 * this one are delivered (an exit the peer asked for next
		 * must find it), and after the word above, so that its DOWN
		 * comes to the proxy after it */
		if (c->op == ACT__CTRL_MONITOR_P)
			reader_monitor(r, dm.to, dm.lref);
		break;
	default: /* UNLINK_ID_ACK: nothing to do */
		break;
	}
	free(term);
}

/* One frame's body: 0, or -EINVAL with *why (the connection ends). */
static int reader_frame(struct reader *r, const char *p, size_t n,
			const char **why)
{
	struct act__ctrl c;
	act_pid to;
	int rc = act__ctrl_decode(p, n, &r->d->peers, &r->me, &c, why);

	if (rc == -ENOSPC) {
		*why = "a pid past the bound of the node's pid table";
		return -EINVAL;
	}
	if (rc < 0)
		return rc;
	switch (c.op) {
	case ACT__CTRL_SEND:
	case ACT__CTRL_SEND_SENDER:
		/* a send to a pid not ours, or of another run: dropped, as
		 * a send to a dead process is */
		if (!act__peers_is_remote(c.to))
			deliver(r, c.to,
				c.op == ACT__CTRL_SEND ? ACT_PID_NONE : c.from,
				c.msg, c.msg_len);
		break;
	case ACT__CTRL_REG_SEND:
		to = act_whereis(c.name);
		if (to.id != ACT_PID_NONE.id)
			deliver(r, to, c.from, c.msg, c.msg_len);
		break;
	default:
		reader_rel(r, &c);
		break;
	}
	return 0;
}

/* The bytes not yet taken (from r->start) moved to the front */
static void reader_compact(struct reader *r)
{
	memmove(r->buf, r->buf + r->start, r->have - r->start);
	r->have -= r->start;
	r->start = 0;
}

/* Room for a frame of need bytes (its length prefix read) that starts
 * at r->start and is not all in: where it lies when it fits there (no
 * copy), else moved to the front, and the buffer, once full, doubled up
 * to need. A length the peer claims is not allocated before its bytes
 * come. 0, or -1 for no memory. */
static int reader_room(struct reader *r, size_t need)
{
	uint8_t *nb;
	size_t cap;

	if (r->start + need <= r->cap)
		return 0;
	reader_compact(r);
	if (need <= r->cap || r->have < r->cap)
		return 0;
	cap = r->cap * 2 < need ? r->cap * 2 : need;
	nb = realloc(r->buf, cap);
	if (!nb)
		return -1;
	r->buf = nb;
	r->cap = cap;
	return 0;
}

static intptr_t reader_loop(struct reader *r)
{
	const char *why = NULL;

	for (;;) {
		size_t off = r->start, frames = 0;
		int64_t wait;
		ssize_t k;

		while (r->have - off >= 4) {
			uint32_t len = act__term_be32(r->buf + off);

			if (len > ACT__CONN_FRAME_MAX) {
				fprintf(stderr,
					"actors: dist: node %s: a frame of "
					"%u bytes, over the bound of %zu: "
					"connection closed\n",
					r->nd->name, len,
					(size_t)ACT__CONN_FRAME_MAX);
				return ACT_EXIT_NOCONNECTION;
			}
			if (r->have - off < 4 + (size_t)len) {
				r->start = off;
				if (reader_room(r, 4 + (size_t)len))
					return ENOMEM;
				off = r->start;
				break;
			}
			atomic_fetch_add_explicit(&r->nd->bytes_in, 4 + len,
						  memory_order_relaxed);
			if (len) {
				frames++;
				atomic_fetch_add_explicit(&r->nd->msgs_in, 1,
							  memory_order_relaxed);
				if (reader_frame(r,
						 (const char *)r->buf + off + 4,
						 len, &why) < 0) {
					fprintf(stderr,
						"actors: dist: node %s: a "
						"frame refused: %s: "
						"connection closed\n",
						r->nd->name, why);
					return ACT_EXIT_NOCONNECTION;
				}
			}
			off += 4 + (size_t)len;
		}
		/* what is left stays where it is while the buffer has room
		 * after it (a large frame comes in several reads: moving
		 * its part to the front after each was a copy of up to a
		 * frame per read) */
		r->start = off;
		if (r->start == r->have)
			r->start = r->have = 0;
		else if (r->have == r->cap)
			reader_compact(r);
		if (r->cap > (1u << 20) && r->have - r->start < 65536) {
			uint8_t *nb;

			reader_compact(r);
			nb = realloc(r->buf, 65536);
			if (nb) {
				r->buf = nb;
				r->cap = 65536;
			}
		}
		/* The processes given frames run first (their answers go
		 * out before this reader's next wait is set up). Under
		 * traffic (a read of several frames, or a frame not all
		 * in) what came in meanwhile is then taken at once: only
		 * an empty socket waits on the reactor. After a lone frame
		 * (a request, then silence) the reader waits there at
		 * once: a read now would find nothing. Where waiting for
		 * a batch has paid (linger.h), a read of several frames is
		 * followed by that wait first: a poll for no event, which
		 * ends at its limit (or at once if the socket breaks). */
		act_yield();
		wait = act__linger_after_read(&r->linger, now_ns(),
					      (uint32_t)frames);
		/* relaxed: counters, for ACTORS_STATS (route.c) */
		atomic_store_explicit(&r->nd->linger_trials, r->linger.trials,
				      memory_order_relaxed);
		atomic_store_explicit(&r->nd->linger_kept, r->linger.kept,
				      memory_order_relaxed);
		if (wait) {
			(void)act_io_poll_timeout(r->fd, 0, wait);
			atomic_fetch_add_explicit(&r->nd->lingers, 1,
						  memory_order_relaxed);
		}
		k = -EAGAIN;
		if (frames > 1 || r->have > r->start)
			k = act_io_recv(r->fd, r->buf + r->have,
					r->cap - r->have, MSG_DONTWAIT);
		/* no limit: the proxy watches for a silent peer
		 * (peer_silent), and kills this reader with itself */
		if (k == -EAGAIN || k == -EWOULDBLOCK)
			k = act_io_recv(r->fd, r->buf + r->have,
					r->cap - r->have, 0);
		if (k <= 0) {
			fprintf(stderr, "actors: dist: node %s down: %s\n",
				r->nd->name,
				k ? strerror((int)-k) :
				    "it closed the connection");
			return ACT_EXIT_NOCONNECTION;
		}
		r->have += (size_t)k;
		atomic_fetch_add_explicit(&r->nd->reads, 1,
					  memory_order_relaxed);
		/* relaxed: a clock reading, for the proxy's peer_silent */
		atomic_store_explicit(&r->nd->last_in, now_ns(),
				      memory_order_relaxed);
	}
}

static bool match_up(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == ACT__TAG_DIST_UP;
}

static void reader_main(void *arg)
{
	struct reader *r = calloc(1, sizeof(*r));
	struct act__conn_up up;
	struct act_msg *m;

	if (!r)
		act_exit(ENOMEM);
	act_on_exit(reader_gone, r);
	r->d = dist();
	r->nd = act__peers_at(&r->d->peers, (uint32_t)(uintptr_t)arg);
	/* relaxed: read by the stop only, after every join */
	atomic_store_explicit(&r->nd->reader_mem, r, memory_order_relaxed);
	r->me.name = r->d->name;
	r->me.creation = r->d->creation;
	act__linger_init(&r->linger, r->d->linger_ns);
	/* the proxy's word: the socket, the bytes read past the
	 * handshake; from the proxy */
	m = act_receive_match(match_up, NULL, ACT_FOREVER);
	memcpy(&up, m->data, sizeof(up));
	r->proxy = m->from;
	r->fd = up.fd;
	r->cap = 65536;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		act_msg_free(m);
		act_exit(ENOMEM);
	}
	memcpy(r->buf, (char *)m->data + sizeof(up), up.left_len);
	r->have = up.left_len;
	act_msg_free(m);
	act_exit(reader_loop(r));
}

void act__conn_free(struct act__peer *nd)
{
	/* relaxed: every thread has been joined */
	struct reader *r = atomic_exchange_explicit(&nd->reader_mem, NULL,
						    memory_order_relaxed);
	struct proxy *p = atomic_exchange_explicit(&nd->proxy_mem, NULL,
						   memory_order_relaxed);

	if (p)
		proxy_free(p);
	if (r) {
		free(r->buf);
		free(r);
	}
}

/* ---- the acceptor and the listener --------------------------------------- */

/* The acceptor's state, on its own stack (as the dialer's): the
 * listener passes the socket and its pending slot in the argument. */
struct accept_arg {
	int fd;
	int slot;
	act_pid target; /* the proxy the socket goes to */
	struct act__peer *nd;
	act_pid stale; /* ALIVE answered: the proxy to replace */
	bool made;     /* target is a proxy this acceptor made */
	bool later;    /* a node not known yet: numbered, and its proxy
			* made, once the peer has proved the cookie */
	struct act__handshake h;
};

static void accept_gone(void *arg)
{
	struct accept_arg *a = arg;

	if (a->fd >= 0)
		close(a->fd);
	pending_release(dist(), a->slot);
}

/* A new proxy for nd that waits for our socket (no dialer): 0 with
 * a->target, or -EEXIST when nd has one already. */
static int accept_new_proxy(struct accept_arg *a)
{
	uint64_t cur = 0;
	act_pid pid;

	if (act_spawn_pid(proxy_main, (void *)((uintptr_t)a->nd->num << 1),
			  &unlimited, &pid) < 0)
		return -EAGAIN;
	/* release: pairs with the acquire loads of proxy */
	if (!atomic_compare_exchange_strong_explicit(
		    &a->nd->proxy, &cur, pid.id, memory_order_release,
		    memory_order_relaxed)) {
		act_kill(pid, ACT_EXIT_KILL);
		return -EEXIST;
	}
	act__message_send(act__rt_current, pid, ACT__TAG_DIST_GO, NULL, 0,
			  ACT_PID_NONE);
	a->target = pid;
	a->made = true;
	return 0;
}

static enum act__handshake_status accept_answer(struct act__handshake *h,
						void *ctx)
{
	struct accept_arg *a = ctx;
	struct act__dist *d = dist();
	uint64_t cur;

	if (!strcmp(h->peer_name, d->name))
		return ACT__HANDSHAKE_NOT_ALLOWED;
	/* a node we know nothing of: nothing is kept of it (a number in
	 * the node table, a proxy) before its digest proves the cookie,
	 * or a stream of made-up names would fill the table */
	a->nd = act__peers_find(&d->peers, h->peer_name, strlen(h->peer_name));
	if (!a->nd) {
		a->later = true;
		return ACT__HANDSHAKE_OK;
	}
	for (;;) {
		/* acquire: pairs with the release stores of proxy */
		cur = atomic_load_explicit(&a->nd->proxy, memory_order_acquire);
		if (!cur) {
			int rc = accept_new_proxy(a);

			if (rc == 0)
				return ACT__HANDSHAKE_OK;
			if (rc == -EEXIST)
				continue;
			return ACT__HANDSHAKE_NOT_ALLOWED;
		}
		/* acquire: pairs with the release store in proxy_main */
		if (atomic_load_explicit(&a->nd->up, memory_order_acquire)) {
			/* we hold a connection to it: the peer says
			 * whether it is stale (it restarted) */
			a->stale.id = cur;
			return ACT__HANDSHAKE_ALIVE;
		}
		/* both sides connecting: the greater name's try wins,
		 * as OTP decides */
		if (strcmp(h->peer_name, d->name) > 0) {
			a->target.id = cur;
			return ACT__HANDSHAKE_OK_SIMULTANEOUS;
		}
		return ACT__HANDSHAKE_NOK;
	}
}

/* A node first known by this handshake, its cookie proved: numbered
 * now, and its proxy made (or, if a try of ours to it began meanwhile,
 * that try's proxy takes this socket too, and keeps the first). 0, or
 * a negative errno with h->why. */
static int accept_later(struct accept_arg *a)
{
	struct act__dist *d = dist();
	struct act__handshake *h = &a->h;
	uint64_t cur;
	int rc = act__peers_get(&d->peers, h->peer_name, strlen(h->peer_name),
				&a->nd);

	if (rc < 0) {
		h->why = rc == -ENOSPC ? "the node table is full" :
			 rc == -EINVAL ? "its name is not alive@host" :
					 "no memory for it";
		return rc;
	}
	rc = accept_new_proxy(a);
	if (rc != -EEXIST)
		return rc;
	/* acquire: pairs with the release stores of proxy */
	cur = atomic_load_explicit(&a->nd->proxy, memory_order_acquire);
	if (!cur) {
		h->why = "a connection to it came and went meanwhile";
		return -EAGAIN;
	}
	a->target.id = cur;
	return 0;
}

static void accept_main(void *arg)
{
	struct accept_arg st = { .fd = (int)(uint32_t)(uintptr_t)arg,
				 .slot = (int)((uintptr_t)arg >> 32) },
			  *a = &st;
	struct act__dist *d = dist();
	struct act__handshake *h = &a->h;
	int64_t deadline = now_ns() + d->setup_ns;
	uint8_t left[2048];
	size_t left_len;
	uint32_t challenge;
	int rc;

	act_on_exit(accept_gone, a);
	if (getrandom(&challenge, sizeof(challenge), 0) < 0) {
		fprintf(stderr, "actors: dist: a connection refused: no "
				"random challenge (getrandom)\n");
		act_exit(ACT_EXIT_NORMAL); /* st is on this frame */
	}
	act__handshake_init(h, ACT__HANDSHAKE_ACCEPTOR, d->name, d->cookie,
			    ACT__DFLAGS_OURS, d->creation, challenge);
	rc = hs_run(h, a->fd, deadline, accept_answer, a, left, &left_len,
		    sizeof(left));
	if (rc == 0 && a->later)
		rc = accept_later(a);
	if (rc == 0 && a->stale.id) {
		/* the peer restarted: its old connection goes down
		 * (noconnection to what went through it), a new one up */
		int64_t until = deadline;

		act_kill(a->stale, ACT_EXIT_KILL);
		/* acquire: pairs with the release in proxy_gone */
		while (atomic_load_explicit(&a->nd->proxy,
					    memory_order_acquire) ==
			       a->stale.id &&
		       now_ns() < until)
			act_sleep(1000000);
		if (accept_new_proxy(a) < 0)
			rc = -EALREADY;
	}
	if (rc < 0) {
		fprintf(stderr,
			"actors: dist: connection from %s refused: %s\n",
			h->peer_name[0] ? h->peer_name : "a peer",
			h->why ? h->why : strerror(-rc));
		/* a proxy made for this try, which will get no socket: it
		 * goes now, not at its setup time with a line about a
		 * connection never tried */
		if (a->made)
			act_kill(a->target, ACT_EXIT_KILL);
		act_exit(ACT_EXIT_NORMAL); /* st is on this frame */
	}
	if (hand_over(a->target, a->fd, left, left_len) == 0)
		a->fd = -1;
	act_exit(ACT_EXIT_NORMAL);
}

void act__conn_listen_main(void *arg)
{
	struct act__dist *d = dist();

	(void)arg;
	for (;;) {
		int slot, fd = act_io_accept(d->listen_fd, NULL, NULL,
					     SOCK_CLOEXEC);

		if (fd < 0) {
			/* out of descriptors, or the socket failed: say so
			 * and go on after a pause, not in a loop */
			fprintf(stderr, "actors: dist: accept: %s\n",
				strerror(-fd));
			act_sleep(100000000);
			continue;
		}
		tcp_nodelay(fd);
		slot = pending_claim(d, fd);
		if (slot < 0) {
			fprintf(stderr,
				"actors: dist: a connection refused: %d "
				"handshakes under way already\n",
				ACT__DIST_PENDING_MAX);
			close(fd);
			continue;
		}
		/* the acceptor's state is on its stack; a socket and its
		 * slot are the argument */
		if (act_spawn(accept_main, (void *)((uintptr_t)(uint32_t)fd |
						    (uintptr_t)slot << 32))
			    .id == ACT_PID_NONE.id) {
			fprintf(stderr,
				"actors: dist: a connection refused: no "
				"process for its handshake\n");
			pending_release(d, slot);
			close(fd);
		}
	}
}

void act__conn_epmd_main(void *arg)
{
	struct act__dist *d = dist();
	char b[64];
	ssize_t k;

	(void)arg;
	/* epmd sends nothing more: this returns when it closes */
	do
		k = act_io_recv(d->epmd_fd, b, sizeof(b), 0);
	while (k > 0);
	fprintf(stderr,
		"actors: dist: epmd closed our registration: node %s is no "
		"longer listed (connections made go on)\n",
		d->name);
}
