/* SPDX-License-Identifier: MIT */
/*
 * node.c - the distribution's API (act_dist_start(3)): this runtime made
 * a node, connections asked for, sends by name and of terms.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h" /* ACT_HAVE_EI */
#include "route.h"
#include "linger.h"
#include "term.h"
#include "actor/message.h"
#include "mem/slab.h"
#include "sched/rt.h"
#if ACT_HAVE_EI
#include "codec.h"
#include "conn.h"
#include "epmd.h"
#endif

#define DEFAULT_TICK_MS 60000u
#define DEFAULT_SETUP_MS 7000u

int act_dist_node(char *buf, size_t len)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	struct act__dist *d = rt ? act__route_dist(rt) : NULL;
	int rc = -ENOENT;

	if (d) {
		size_t n = strlen(d->name);

		rc = n < len ? (int)n : -ERANGE;
		if (rc >= 0)
			memcpy(buf, d->name, n + 1);
	}
	if (rt)
		act__rt_leave(rt);
	return rc;
}

/* A term in the external format, version byte first, whole: bool. */
static bool term_ok(const void *term, size_t len)
{
	const uint8_t *p = term;
	struct act__term_err err;

	return term && len >= 2 && p[0] == ACT__ET_VERSION &&
	       act__term_check(p + 1, len - 1, &err) == (long)(len - 1);
}

int act_send_term(act_pid to, const void *term, size_t len)
{
	struct act__rt *rt;
	int rc;

	if (!term_ok(term, len))
		return -EINVAL;
	rt = act__rt_enter(); /* pairs with the leave below */
	if (!rt)
		return -ESRCH;
	rc = act__message_send(rt, to, ACT_TAG_TERM, term, len, ACT_PID_NONE);
	act__rt_leave(rt);
	return rc;
}

#if !ACT_HAVE_EI

int act_dist_start(const char *name, const char *cookie,
		   const struct act_dist_opts *opts)
{
	(void)name;
	(void)cookie;
	(void)opts;
	fprintf(stderr, "actors: dist: this libactors was built without "
			"libei (configure --without-ei): no distribution\n");
	return -ENOTSUP;
}

int act_dist_connect(const char *node)
{
	(void)node;
	return -ENOTSUP;
}

int act_send_name(const char *node, const char *name, uint32_t tag,
		  const void *data, size_t len)
{
	(void)node;
	(void)name;
	(void)tag;
	(void)data;
	(void)len;
	return -ENOTSUP;
}

ssize_t act_pid_term(act_pid pid, void *buf, size_t len)
{
	(void)pid;
	(void)buf;
	(void)len;
	return -ENOTSUP;
}

#else /* ACT_HAVE_EI */

ssize_t act_pid_term(act_pid pid, void *buf, size_t len)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	struct act__dist *d = rt ? act__route_dist(rt) : NULL;
	struct act__codec_self me;
	ei_x_buff b;
	ssize_t rc;

	if (!d) {
		if (rt)
			act__rt_leave(rt);
		return -ENOTCONN;
	}
	me.name = d->name;
	me.creation = d->creation;
	if (ei_x_new_with_version(&b)) {
		act__rt_leave(rt);
		return -ENOMEM;
	}
	rc = act__codec_pid_encode(&b, &d->peers, &me, pid);
	if (rc == 0)
		rc = (size_t)b.index <= len ? b.index : -ERANGE;
	if (rc > 0)
		memcpy(buf, b.buff, (size_t)b.index);
	ei_x_free(&b);
	act__rt_leave(rt);
	return rc;
}

/* "alive" or "alive@host" into out, the host this machine's short name
 * when none is given (as erl -sname): 0 or -EINVAL. */
static int full_name(const char *name, char out[ACT__DIST_NAME_MAX + 1])
{
	char host[256];
	size_t n = strlen(name);

	if (!n || n > ACT__DIST_NAME_MAX)
		return -EINVAL;
	if (strchr(name, '@')) {
		memcpy(out, name, n + 1);
		return 0;
	}
	if (gethostname(host, sizeof(host)) < 0)
		return -EINVAL;
	host[sizeof(host) - 1] = 0;
	host[strcspn(host, ".")] = 0;
	if (snprintf(out, ACT__DIST_NAME_MAX + 1, "%s@%s", name, host) >
	    ACT__DIST_NAME_MAX)
		return -EINVAL;
	return 0;
}

/* The cookie: given, else ACTORS_COOKIE, else ~/.erlang.cookie (owner
 * only, as Erlang requires). 0 or a negative errno, said on stderr. */
static int find_cookie(const char *given, char out[256])
{
	const char *home = getenv("HOME");
	char path[4096], line[258];
	struct stat st;
	FILE *f;
	size_t n;

	if (!given)
		given = getenv("ACTORS_COOKIE");
	if (given) {
		n = strlen(given);
		if (!n || n > 255) {
			fprintf(stderr, "actors: dist: a cookie is 1 to 255 "
					"bytes\n");
			return -EINVAL;
		}
		memcpy(out, given, n + 1);
		return 0;
	}
	if (!home || snprintf(path, sizeof(path), "%s/.erlang.cookie", home) >=
			     (int)sizeof(path)) {
		fprintf(stderr,
			"actors: dist: no cookie: give one, set "
			"ACTORS_COOKIE or write $HOME/.erlang.cookie\n");
		return -ENOENT;
	}
	f = fopen(path, "re");
	if (!f) {
		int e = errno;

		fprintf(stderr,
			"actors: dist: no cookie: give one, set "
			"ACTORS_COOKIE or write %s (%s)\n",
			path, strerror(e));
		return -e;
	}
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077)) {
		fprintf(stderr,
			"actors: dist: %s must be readable by its owner "
			"only (chmod 400), as Erlang requires\n",
			path);
		fclose(f);
		return -EACCES;
	}
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = 0;
	n = strcspn(line, "\r\n");
	line[n] = 0;
	if (!n || n > 255) {
		fprintf(stderr,
			"actors: dist: %s: its first line is the cookie, 1 "
			"to 255 bytes\n",
			path);
		return -EINVAL;
	}
	memcpy(out, line, n + 1);
	return 0;
}

static uint16_t epmd_port(const struct act_dist_opts *o)
{
	const char *e = getenv("ERL_EPMD_PORT");
	long v;
	char *end;

	if (o && o->epmd_port)
		return o->epmd_port;
	if (e && *e) {
		v = strtol(e, &end, 10);
		if (!*end && v > 0 && v < 65536)
			return (uint16_t)v;
		fprintf(stderr,
			"actors: dist: ERL_EPMD_PORT=%s: expected a port, "
			"1 to 65535; using %d\n",
			e, ACT__EPMD_PORT);
	}
	return ACT__EPMD_PORT;
}

/* A listening socket on port (0: any): its fd with *bound, or -errno. */
static int listen_on(uint16_t port, uint16_t *bound)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	*bound = ntohs(sa.sin_port);
	return fd;
}

/* Registers alive at epmd (epmd's port eport) for our port: the socket
 * (kept open: closing it unregisters) with *creation, or -errno. */
static int epmd_register(const char *alive, uint16_t port, uint16_t eport,
			 int64_t timeout_ns, uint32_t *creation)
{
	struct act__epmd_node node;
	struct sockaddr_in sa;
	uint8_t buf[512];
	const char *why = NULL;
	size_t have = 0;
	int n, rc, fd;

	memset(&node, 0, sizeof(node));
	node.port = port;
	node.type = ACT__EPMD_NODE_HIDDEN;
	node.protocol = ACT__EPMD_PROTO_TCP4;
	node.high = ACT__EPMD_VERSION;
	node.low = ACT__EPMD_VERSION;
	snprintf(node.name, sizeof(node.name), "%s", alive);
	n = act__epmd_alive2_req(buf, sizeof(buf), &node);
	if (n < 0)
		return n;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(eport);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = act_io_connect_timeout(fd, (struct sockaddr *)&sa, sizeof(sa),
				    timeout_ns);
	if (rc < 0) {
		fprintf(stderr,
			"actors: dist: no epmd on port %u (%s): start one "
			"(epmd -daemon), as for an Erlang node\n",
			eport, strerror(-rc));
		close(fd);
		return rc;
	}
	rc = act_io_send_timeout(fd, buf, (size_t)n, MSG_NOSIGNAL,
				 timeout_ns) == n ?
		     0 :
		     -EIO;
	while (rc == 0) {
		ssize_t k;

		rc = act__epmd_alive2_resp(buf, have, creation, &why);
		if (rc != 0)
			break;
		k = act_io_recv_timeout(fd, buf + have, sizeof(buf) - have, 0,
					timeout_ns);
		if (k <= 0) {
			rc = k == 0 ? -ECONNRESET : (int)k;
			why = "epmd closed without an answer";
			break;
		}
		have += (size_t)k;
	}
	if (rc < 0) {
		if (rc == -EADDRINUSE)
			fprintf(stderr,
				"actors: dist: the name %s is registered "
				"in epmd already: another node has it\n",
				alive);
		else
			fprintf(stderr, "actors: dist: epmd: %s\n",
				why ? why : strerror(-rc));
		close(fd);
		return rc;
	}
	return fd;
}

int act_dist_start(const char *name, const char *cookie,
		   const struct act_dist_opts *opts)
{
	struct act__rt *rt = act__rt_current;
	char full[ACT__DIST_NAME_MAX + 1], alive[ACT__DIST_NAME_MAX + 1];
	char ck[256];
	uint32_t tick_ms, setup_ms, creation = 0;
	uint16_t port = 0, eport = epmd_port(opts);
	struct act__dist *d;
	int rc, lfd, efd;

	if (act_self().id == ACT_PID_NONE.id || !rt)
		return -EPERM;
	if (act__route_dist(rt))
		return -EALREADY;
	if (!name)
		name = getenv("ACTORS_NODE");
	if (!name || full_name(name, full) < 0) {
		fprintf(stderr,
			"actors: dist: %s: a node name is alive or "
			"alive@host, at most 255 bytes\n",
			name ? name : "no name given nor in ACTORS_NODE");
		return -EINVAL;
	}
	rc = find_cookie(cookie, ck);
	if (rc < 0)
		return rc;
	if (opts && opts->linger_us > ACT__LINGER_US_MAX) {
		fprintf(stderr,
			"actors: dist: linger_us %d: expected at most %d (us), "
			"0 for the default or negative for none\n",
			opts->linger_us, ACT__LINGER_US_MAX);
		return -EINVAL;
	}
	tick_ms = opts && opts->ticktime_ms ? opts->ticktime_ms :
					      DEFAULT_TICK_MS;
	setup_ms = opts && opts->setup_ms ? opts->setup_ms : DEFAULT_SETUP_MS;
	memcpy(alive, full, strlen(full) + 1);
	alive[strcspn(alive, "@")] = 0;
	lfd = listen_on(opts ? opts->port : 0, &port);
	if (lfd < 0) {
		fprintf(stderr, "actors: dist: cannot listen on port %u: %s\n",
			opts ? opts->port : 0, strerror(-lfd));
		return lfd;
	}
	efd = epmd_register(alive, port, eport, (int64_t)setup_ms * 1000000,
			    &creation);
	if (efd < 0) {
		close(lfd);
		return efd;
	}
	rc = act__route_start(rt, full, creation);
	if (rc < 0) {
		if (rc == -EINVAL)
			fprintf(stderr,
				"actors: dist: %s: not a node name the "
				"table takes (printable ASCII alive@host)\n",
				full);
		close(lfd);
		close(efd);
		return rc;
	}
	d = act__route_dist(rt);
	memcpy(d->cookie, ck, sizeof(ck));
	d->tick_ns = (int64_t)tick_ms * 1000000;
	d->setup_ns = (int64_t)setup_ms * 1000000;
	d->linger_ns = !opts || !opts->linger_us ? ACT__LINGER_NS_DEFAULT :
		       opts->linger_us < 0	 ? 0 :
					     (int64_t)opts->linger_us * 1000;
	d->port = port;
	d->epmd_port = eport;
	d->listen_fd = lfd;
	d->epmd_fd = efd;
	/* the spawns publish what was set above to the processes */
	if (act_spawn(act__conn_listen_main, NULL).id == ACT_PID_NONE.id ||
	    act_spawn(act__conn_epmd_main, NULL).id == ACT_PID_NONE.id)
		return -EAGAIN;
	return 0;
}

static bool match_down(const struct act_msg *m, void *ctx)
{
	struct act_exit_info x;

	if (m->tag != ACT_TAG_DOWN)
		return false;
	memcpy(&x, m->data, sizeof(x));
	return x.ref == *(const uint64_t *)ctx;
}

/* node's entry: 0 with *out, -ENOTCONN before act_dist_start, -EINVAL
 * for a bad name */
static int node_of(const char *node, struct act__dist **d,
		   struct act__peer **out)
{
	*d = act__rt_current ? act__route_dist(act__rt_current) : NULL;
	if (!*d)
		return -ENOTCONN;
	if (!node)
		return -EINVAL;
	return act__peers_get(&(*d)->peers, node, strlen(node), out) < 0 ?
		       -EINVAL :
		       0;
}

int act_dist_connect(const char *node)
{
	struct act__dist *d;
	struct act__peer *nd;
	act_pid proxy;
	uint64_t ref;
	int rc;

	if (act_self().id == ACT_PID_NONE.id)
		return -EPERM;
	rc = node_of(node, &d, &nd);
	if (rc < 0)
		return rc;
	if (!strcmp(node, d->name))
		return 0;
	rc = act__conn_proxy(d, nd, &proxy);
	if (rc < 0)
		return rc;
	if (act_monitor_ref(proxy, &ref) < 0)
		return -ECONNREFUSED;
	for (;;) {
		struct act_msg *m;

		/* acquire: pairs with the release store in proxy_main */
		if (atomic_load_explicit(&nd->up, memory_order_acquire)) {
			act_demonitor(ref);
			m = act_receive_match(match_down, &ref, 0);
			if (m)
				act_msg_free(m);
			return 0;
		}
		m = act_receive_match(match_down, &ref, 5000000);
		if (m) {
			struct act_exit_info x;

			memcpy(&x, m->data, sizeof(x));
			act_msg_free(m);
			/* the dialer's errno, as the proxy's reason */
			if (x.reason > 0 && x.reason < 4096)
				return -(int)x.reason;
			return x.reason == ACT_EXIT_NOPROC ? -ECONNREFUSED :
							     -ECONNRESET;
		}
	}
}

int act_send_name(const char *node, const char *name, uint32_t tag,
		  const void *data, size_t len)
{
	struct act__route_name rn;
	struct act__dist *d;
	struct act__peer *nd;
	char hdr[ACT_SLAB_HDR_ROOM];
	size_t nlen = name ? strlen(name) : 0;
	act_pid proxy;
	int rc;

	if (act_self().id == ACT_PID_NONE.id)
		return -EPERM;
	if (!nlen || nlen > ACT_NAME_MAX || (len && !data) ||
	    (tag >= ACT_TAG_RESERVED && tag != ACT_TAG_TERM) ||
	    (tag == ACT_TAG_TERM && !term_ok(data, len)))
		return -EINVAL;
	if (len > ACT_MSG_MAX)
		return -EMSGSIZE;
	rc = node_of(node, &d, &nd);
	if (rc < 0)
		return rc;
	if (!strcmp(node, d->name)) {
		act_pid to = act_whereis(name);

		/* as Erlang: a send to no name (or a dead one) is lost */
		rc = to.id == ACT_PID_NONE.id ?
			     0 :
			     act__message_send(act__rt_current, to, tag, data,
					       len, ACT_PID_NONE);
		return rc == -ESRCH ? 0 : rc;
	}
	rc = act__conn_proxy(d, nd, &proxy);
	if (rc < 0)
		return rc;
	memset(&rn, 0, sizeof(rn));
	rn.tag = tag;
	rn.name_len = (uint32_t)nlen;
	memcpy(hdr, &rn, sizeof(rn));
	/* the envelope is the header, the name, the message: a short name
	 * rides in the header, a long one is copied before the message */
	if (sizeof(rn) + nlen <= sizeof(hdr)) {
		memcpy(hdr + sizeof(rn), name, nlen);
		rc = act__message_send_hdr(act__rt_current, proxy,
					   ACT__TAG_DIST_NAME, hdr,
					   sizeof(rn) + nlen, data, len,
					   ACT_PID_NONE);
	} else {
		char *b = len + nlen > ACT_MSG_MAX ? NULL : malloc(nlen + len);

		if (!b)
			return len + nlen > ACT_MSG_MAX ? -EMSGSIZE : -ENOMEM;
		memcpy(b, name, nlen);
		if (len)
			memcpy(b + nlen, data, len);
		rc = act__message_send_hdr(act__rt_current, proxy,
					   ACT__TAG_DIST_NAME, hdr, sizeof(rn),
					   b, nlen + len, ACT_PID_NONE);
		free(b);
	}
	/* a send to a node that goes down is lost, as in Erlang */
	return rc == -ESRCH ? 0 : rc;
}

#endif /* ACT_HAVE_EI */
