/* SPDX-License-Identifier: MIT */
/*
 * kv_server.c - an in-memory key-value server that speaks RESP2 with
 * redis-server 7.0's replies, for redis-cli and redis-benchmark, built
 * the actor way (doc/design/servers.md has the whole design).
 *
 *   kv_server [--host H] [--port P] [--workers N] [--shards N]
 *             [--maxclients N] [--proto-max-bulk-len BYTES]
 *             [--appendonly yes|no] [--appendfsync always|everysec|no]
 *             [--dir DIR] [--enable-debug-command yes|local|no]
 *             [--malloc-trim-period S]
 *
 * Processes:
 *   main      starts the shards, replays the append-only file (if any),
 *             starts the acceptor and the signal watcher, then waits for
 *             SIGINT or SIGTERM; at the stop it has the file flushed.
 *   shard i   owns the keys whose hash falls to it (kv_shard.c): the
 *             only process that touches them, so no lock anywhere.
 *   acceptor  one act_io_accept after another; past --maxclients a new
 *             client gets "-ERR max number of clients reached", and so
 *             do those that wait while descriptors run out (a line
 *             when that starts and one when it ends). maxclients is
 *             lowered at start to what RLIMIT_NOFILE leaves, as redis
 *             does, with a line.
 *   conn      one per client (kv_conn.c): reads, parses, sends each
 *             shard one message with that shard's commands of what was
 *             read, writes the replies in the order of the commands.
 *   aof       the append-only file's writer (kv_aof.c); the replay at
 *             start is a conn whose input is the file.
 *
 *   trimmer   gives the memory malloc holds free back to the system,
 *             every --malloc-trim-period that saw work, and once the
 *             work stops (below).
 *   reaper    closes the clients idle past CONFIG SET timeout (below).
 *
 * This file: main, the acceptor, the watcher, the trimmer, the reaper,
 * the options,
 * and the append-only file's opening and check before the runtime
 * starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../opt.h"
#include "../util.h"
#include "aof.h"
#include "kv_server.h"

struct kv_srv srv;

int kv_send_out(act_pid to, uint32_t tag, struct out *o)
{
	struct handoff h;
	int rc;

	if (o->len <= INLINE_MAX)
		return act_send(to, tag, o->p, o->len);
	h.p = o->p;
	h.len = o->len;
	rc = act_send(to, tag + 1, &h, sizeof(h)); /* the _PTR tag */
	if (rc == 0)
		out_init(o); /* the receiver owns the bytes now */
	return rc;
}

int kv_send_copy(act_pid to, uint32_t tag, const void *p, size_t len)
{
	struct handoff h;
	int rc;

	if (len <= INLINE_MAX)
		return act_send(to, tag, p, len);
	h.p = malloc(len);
	if (!h.p)
		return -ENOMEM;
	memcpy(h.p, p, len);
	h.len = len;
	rc = act_send(to, tag + 1, &h, sizeof(h));
	if (rc)
		free(h.p);
	return rc;
}

const char *kv_payload(const struct act_msg *m, size_t *len, void **owned)
{
	struct handoff h;

	*owned = NULL;
	if (m->tag == T_REQ_PTR || m->tag == T_REP_PTR) {
		memcpy(&h, m->data, sizeof(h));
		*owned = h.p;
		*len = h.len;
		return h.p;
	}
	*len = m->len;
	return m->data;
}

/* ---- the acceptor, the signal watcher, main ------------------------------ */

static void failed(int err)
{
	act_send(srv.main, T_FAILED, &err, sizeof(err));
}

static const char refusal[] = "-ERR max number of clients reached\r\n";

static void reject(int fd)
{
	/* a fresh socket's buffer takes it at once; best effort, as redis */
	if (send(fd, refusal, sizeof(refusal) - 1,
		 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* nothing to do: the client is closed either way */
	}
	close(fd);
	atomic_fetch_add_explicit(&srv.rejected, 1, memory_order_relaxed);
}

static void accept_one(int fd)
{
	static const struct act_spawn_opts unlimited = {
		.mailbox_limit = ACT_MAILBOX_UNLIMITED,
	};
	int one = 1;

	/* read at each client: CONFIG SET maxclients applies to the next */
	if (atomic_fetch_add_explicit(&srv.clients, 1, memory_order_relaxed) >=
	    atomic_load_explicit(&kv_settings.maxclients,
				 memory_order_relaxed)) {
		atomic_fetch_sub_explicit(&srv.clients, 1,
					  memory_order_relaxed);
		reject(fd);
		return;
	}
	/* replies are small and each is due now */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* its mailbox holds at most one reply per shard (main_proc) */
	if (act_pid_eq(act_spawn_opt(kv_conn_proc, (void *)(intptr_t)fd,
				     &unlimited),
		       ACT_PID_NONE)) {
		/* no process for it (no memory for a stack): refused, not
		 * dropped, and counted so, never as accepted */
		atomic_fetch_sub_explicit(&srv.clients, 1,
					  memory_order_relaxed);
		reject(fd);
		act_sleep(10 * MS); /* let some end */
		return;
	}
	atomic_fetch_add_explicit(&srv.accepted, 1, memory_order_relaxed);
}

/*
 * Out of descriptors (or memory) at accept: the kernel keeps the clients
 * in the listener's queue, and accept says so at once, as often as it is
 * asked. One line when it starts and one when it ends, however long it
 * lasts; meanwhile, every 10 ms, the clients waiting are answered as
 * those past maxclients are, with the descriptor set aside for it
 * (act_io_accept_shed), instead of waiting for a reply that never comes.
 */
struct famine {
	int64_t since; /* 0: not out */
	uint64_t shed;
};

static void famine_begin(struct famine *f, int err)
{
	struct rlimit rl;

	if (f->since)
		return;
	f->since = util_now_ns();
	f->shed = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		rl.rlim_cur = 0;
	fprintf(stderr,
		"kv_server: accept: %s (%d clients, RLIMIT_NOFILE %llu): new "
		"clients are refused until descriptors are freed\n",
		strerror(-err),
		atomic_load_explicit(&srv.clients, memory_order_relaxed),
		(unsigned long long)rl.rlim_cur);
}

static void famine_end(struct famine *f)
{
	if (!f->since)
		return;
	fprintf(stderr,
		"kv_server: accepting again after %lld ms; %llu clients "
		"refused meanwhile\n",
		(long long)((util_now_ns() - f->since) / MS),
		(unsigned long long)f->shed);
	f->since = 0;
}

static void famine_shed(struct famine *f)
{
	int n = act_io_accept_shed(srv.listen_fd, &srv.spare, refusal,
				   sizeof(refusal) - 1);

	if (n > 0) {
		f->shed += (uint64_t)n;
		atomic_fetch_add_explicit(&srv.rejected, (uint64_t)n,
					  memory_order_relaxed);
	}
	act_sleep(10 * MS);
}

static void acceptor_proc(void *arg)
{
	struct famine f = { 0, 0 };
	int fd;

	(void)arg;
	for (;;) {
		fd = act_io_accept(srv.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			famine_end(&f);
			accept_one(fd);
			continue;
		}
		switch (-fd) {
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			famine_begin(&f, fd);
			famine_shed(&f);
			break;
		case EBADF:
		case EINVAL:
		case ENOTSOCK:
		case EOPNOTSUPP:
		case ENOSYS:
			failed(fd); /* not a listening socket, or no io_uring */
			return;
		default:
			break; /* the peer's trouble (ECONNABORTED...): next */
		}
	}
}

static void watcher_proc(void *arg)
{
	struct signalfd_siginfo si;
	ssize_t n;
	int sig;

	(void)arg;
	do
		n = act_io_read(srv.sigfd, &si, sizeof(si), -1);
	while (n == -EINTR || n == -EAGAIN);
	if (n != (ssize_t)sizeof(si)) {
		failed(n < 0 ? (int)n : -EIO);
		return;
	}
	sig = (int)si.ssi_signo;
	act_send(srv.main, T_SIGNAL, &sig, sizeof(sig));
}

/*
 * The trimmer. glibc's malloc keeps what is freed in its arenas: after a
 * flood's large replies or a burst of connections, pages that no
 * allocation uses stay resident, and RSS stays at the high water and
 * creeps up as the arenas fragment (scripts/soak.sh: 10 of 26 MiB given
 * back by one malloc_trim after 11 minutes). jemalloc, redis-server's
 * allocator, gives unused pages back some 10 s after they were freed
 * (its dirty_decay_ms); the trimmer does that for glibc: every
 * --malloc-trim-period (10 s) in which the server took a connection or
 * ran a command, one malloc_trim(0), which also returns the free pages inside
 * the arenas, not only their tops; and one as soon as a second passes
 * without work after some: a burst of 4,000 connections left 98 MiB of
 * freed buffers in the heap, held until the period's end (up to 20 s),
 * now a second or two (scripts/kv-bursts.sh, doc/benchmarks.md). It
 * runs on act_blocking's pool: a
 * trim takes each arena's lock in turn and walks its bins, milliseconds
 * on a large heap, which no worker should spend. A server at rest does
 * no trim, and one timer a second.
 */
static void trim_fn(void *arg)
{
	(void)arg;
	malloc_trim(0);
}

static uint64_t activity(void)
{
	return atomic_load_explicit(&srv.commands, memory_order_relaxed) +
	       atomic_load_explicit(&srv.accepted, memory_order_relaxed) +
	       atomic_load_explicit(&srv.rejected, memory_order_relaxed);
}

#define TRIM_QUIET_NS (1000 * MS) /* a tick without work: it stopped */

static void trimmer_proc(void *arg)
{
	int64_t tick = srv.trim_ns < TRIM_QUIET_NS ? srv.trim_ns :
						     TRIM_QUIET_NS;
	int64_t busy = 0; /* ticks with work since the last trim, in ns */
	uint64_t seen = activity(), now;
	bool dirty = false; /* work since the last trim */

	(void)arg;
	for (;;) {
		if (act_sleep(tick) != 0)
			continue;
		now = activity();
		if (now != seen) { /* working: a trim a period */
			seen = now;
			dirty = true;
			busy += tick;
			if (busy < srv.trim_ns)
				continue;
		} else if (!dirty) { /* at rest, trimmed since */
			continue;
		}
		busy = 0;
		dirty = false;
		if (act_blocking(trim_fn, NULL) == 0)
			atomic_fetch_add_explicit(&srv.trims, 1,
						  memory_order_relaxed);
	}
}

/*
 * The reaper: redis's timeout. While CONFIG SET has made it more than 0,
 * once a second every client idle for longer is closed
 * (kv_clients_reap shuts its socket down, and its process ends as if
 * the client had gone); at 0 it waits for CONFIG SET's word
 * (kv_settings.timeout_changed), with no timer.
 */
static act_pid reaper; /* set before the acceptor starts */

static void timeout_changed(void)
{
	act_send(reaper, T_TIMEOUT, NULL, 0);
}

static void reaper_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	for (;;) {
		while ((m = act_receive(0))) /* the words had so far */
			act_msg_free(m);
		if (!atomic_load_explicit(&kv_settings.timeout,
					  memory_order_relaxed))
			act_msg_free(act_receive(ACT_FOREVER));
		else if (act_sleep(1000 * MS) == 0)
			kv_clients_reap(kv_now_ms());
	}
}

/* INFO's figures of the server (kv_settings.info): called by any
 * connection, so only atomics and what main set before act_main. */
static void server_info(struct kv_info *in)
{
	struct act_stats st;

	in->port = srv.port;
	in->workers = act_workers();
	in->executable = srv.executable;
	in->uptime_s = (util_now_ns() - srv.started_ns) / 1000000000LL;
	in->clients = atomic_load_explicit(&srv.clients, memory_order_relaxed);
	in->connections = (long long)atomic_load_explicit(&srv.accepted,
							  memory_order_relaxed);
	in->rejected = (long long)atomic_load_explicit(&srv.rejected,
						       memory_order_relaxed);
	in->commands = (long long)atomic_load_explicit(&srv.commands,
						       memory_order_relaxed);
	in->trims = (long long)atomic_load_explicit(&srv.trims,
						    memory_order_relaxed);
	in->aof_enabled = srv.aof_fd >= 0;
	in->aof_loading =
		atomic_load_explicit(&srv.aof_loading, memory_order_relaxed);
	in->aof_rewriting =
		atomic_load_explicit(&srv.aof_rewriting, memory_order_relaxed);
	in->aof_write_ok =
		srv.aof_fd < 0 ||
		atomic_load_explicit(&srv.aof_write_ok, memory_order_relaxed);
	in->aof_rewrites = (long long)atomic_load_explicit(
		&srv.aof_rewrites, memory_order_relaxed);
	in->aof_size = (long long)atomic_load_explicit(&srv.aof_size,
						       memory_order_relaxed);
	if (act_stats(&st, NULL, 0) >= 0) {
		in->processes = (long long)st.procs_alive;
		in->processes_peak = (long long)st.procs_peak;
	}
}

struct opts {
	const char *host;
	int port;
	int workers;
	int shards;
	long long maxclients;
	long long max_bulk;
	bool appendonly;
	int appendfsync;
	const char *dir;
	int debug;
	int trim_s;
};

/* BGREWRITEAOF, from a connection: the aof process says whether it
 * started one (kv_settings.bgrewriteaof). */
static bool is_rewrite_reply(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_BGREWRITE && act_pid_eq(m->from, srv.aof) &&
	       m->len == sizeof(int);
}

static int bgrewriteaof(void)
{
	struct act_msg *m;
	int rc;

	if (srv.aof_fd < 0)
		return -ENOTSUP;
	rc = act_send(srv.aof, T_BGREWRITE, NULL, 0);
	if (rc)
		return rc;
	m = act_receive_match(is_rewrite_reply, NULL, 30 * 1000 * MS);
	if (!m)
		return -ETIMEDOUT;
	memcpy(&rc, m->data, sizeof(rc));
	act_msg_free(m);
	return rc;
}

/* Waits for a message of tag from main's children; false on a signal or
 * a failure first (srv says which). */
static bool await_tag(uint32_t tag, void *data, size_t len)
{
	struct act_msg *m;
	int v;

	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (!m)
			continue;
		if (m->tag == tag) {
			if (data && m->len == len)
				memcpy(data, m->data, len);
			act_msg_free(m);
			return true;
		}
		v = 0;
		if (m->len == sizeof(v))
			memcpy(&v, m->data, sizeof(v));
		if (m->tag == T_SIGNAL)
			srv.signal = v;
		else if (m->tag == T_FAILED)
			srv.err = v;
		act_msg_free(m);
		if (srv.signal || srv.err)
			return false;
	}
}

static void tell_shards(uint32_t tag, int v)
{
	int i;

	for (i = 0; i < srv.nshards; i++)
		act_send(srv.shards[i], tag, &v, sizeof(v));
}

/*
 * The append-only file replayed into the shards (nothing expires
 * meanwhile and nothing is logged), then its writer started and the
 * shards told to log from now on. The file was cut to whole commands
 * before act_main.
 */
static bool load_aof(void)
{
	int64_t t0 = util_now_ns();
	uint64_t n = 0;
	act_pid aof;

	atomic_store_explicit(&srv.aof_loading, 1, memory_order_relaxed);
	tell_shards(T_LOADING, 1);
	if (srv.aof_start > strlen(AOF_HEADER)) {
		if (act_pid_eq(act_spawn(kv_loader_proc, NULL), ACT_PID_NONE)) {
			srv.err = -ENOMEM;
			return false;
		}
		if (!await_tag(T_LOADED, &n, sizeof(n)))
			return false;
		fprintf(stderr,
			"kv_server: %s: %llu commands loaded in %lld ms\n",
			srv.aof_path, (unsigned long long)n,
			(long long)((util_now_ns() - t0) / MS));
	}
	atomic_store_explicit(&srv.commands, 0, memory_order_relaxed);
	aof = act_spawn(kv_aof_proc, NULL);
	if (act_pid_eq(aof, ACT_PID_NONE)) {
		srv.err = -ENOMEM;
		return false;
	}
	srv.aof = aof; /* before the shards hear of it, by that message */
	tell_shards(T_LOADING, 0);
	atomic_store_explicit(&srv.aof_loading, 0, memory_order_relaxed);
	return true;
}

static bool is_down_of(const struct act_msg *m, void *ref)
{
	return m->tag == ACT_TAG_DOWN &&
	       ((const struct act_exit_info *)m->data)->ref == *(uint64_t *)ref;
}

/* Each shard frees its keys and exits; main waits for it (a leak
 * checker sees nothing left). */
static void stop_shards(void)
{
	uint64_t ref;
	int i;

	for (i = 0; i < srv.nshards; i++) {
		ref = act_monitor(srv.shards[i]);
		if (!ref || act_send(srv.shards[i], T_STOP, NULL, 0))
			continue;
		act_msg_free(act_receive_match(is_down_of, &ref, ACT_FOREVER));
	}
}

/*
 * At the stop, every client's socket is shut down: its connection's
 * process sees the end of its client, closes the socket and counts it
 * closed. Without this a process that had not yet seen its client leave
 * (a SIGTERM right after the client's last reply) was discarded with the
 * runtime, and the stop line counted a connection accepted and never
 * closed with nobody connected. Again every 10 ms for a connection that
 * registered since; 3 s at most (the line says what was left open).
 */
static void shut_client(const struct kv_client *cl, void *ctx)
{
	(void)ctx;
	shutdown(cl->fd, SHUT_RDWR);
}

static void close_clients(void)
{
	int i;

	for (i = 0; i < 300; i++) {
		if (atomic_load_explicit(&srv.clients, memory_order_relaxed) <=
		    0)
			return;
		kv_clients_each(NULL, shut_client, NULL);
		act_sleep(10 * MS);
	}
}

static void main_proc(void *arg)
{
	const struct opts *o = arg;
	struct act_spawn_opts so;
	act_pid acceptor, watcher, trimmer;
	char name[300];
	int i;

	srv.main = act_self();
	srv.nshards = o->shards ? o->shards : act_workers();
	kv_settings.shards = srv.nshards;
	srv.shards = calloc((size_t)srv.nshards, sizeof(*srv.shards));
	if (!srv.shards) {
		srv.err = -ENOMEM;
		return;
	}
	/* a shard's mailbox holds at most a batch per connection (each has
	 * one in flight), a connection's a reply per shard, and a shard
	 * killed for ACTORS_MAILBOX_LIMIT would lose its keys: the limit is
	 * for mailboxes nothing bounds, so neither takes it */
	memset(&so, 0, sizeof(so));
	so.mailbox_limit = ACT_MAILBOX_UNLIMITED;
	for (i = 0; i < srv.nshards; i++) {
		srv.shards[i] =
			act_spawn_opt(kv_shard_proc, (void *)(uintptr_t)i, &so);
		if (act_pid_eq(srv.shards[i], ACT_PID_NONE)) {
			srv.err = -ENOMEM;
			return;
		}
	}
	if (srv.aof_fd >= 0 && !load_aof())
		return;
	/* ready: the tests (and people) connect once this is said */
	util_addr_name(name, sizeof(name), o->host, srv.port);
	printf("kv_server: listening on %s\n", name);
	fflush(stdout);
	reaper = act_spawn(reaper_proc, NULL);
	kv_settings.timeout_changed = timeout_changed; /* before any client */
	acceptor = act_spawn(acceptor_proc, NULL);
	watcher = act_spawn(watcher_proc, NULL);
	trimmer = srv.trim_ns ? act_spawn(trimmer_proc, NULL) : ACT_PID_NONE;
	if (act_pid_eq(acceptor, ACT_PID_NONE) ||
	    act_pid_eq(reaper, ACT_PID_NONE) ||
	    act_pid_eq(watcher, ACT_PID_NONE) ||
	    (srv.trim_ns && act_pid_eq(trimmer, ACT_PID_NONE))) {
		srv.err = -ENOMEM;
		return;
	}
	/* until a signal or a failure: no message has tag 0 */
	await_tag(0, NULL, 0);
	/* no new client (an accept in flight is cancelled), and those
	 * connected closed by their processes */
	act_kill(acceptor, ACT_EXIT_KILL);
	close_clients();
	/* what the file was sent so far made to last; then the shards free
	 * their keys, and returning stops the runtime: the other processes
	 * (the watcher, the trimmer, the reaper) are discarded */
	if (srv.aof_fd >= 0 && !srv.err &&
	    act_send(srv.aof, T_AOF_SYNC, NULL, 0) == 0)
		await_tag(T_AOF_SYNC, NULL, 0);
	stop_shards();
}

static const char usage_after[] =
	"Prints \"kv_server: listening on HOST:PORT\" on stdout; stops on\n"
	"SIGINT or SIGTERM.\n"
	"exit status: 0 stopped, 1 it could not start or serve, 2 a usage "
	"error\n";

/* A count with an optional k, m, g (or kb, mb, gb) suffix, as redis. */
static int parse_size(const char *s, long long min, long long max,
		      long long *out)
{
	char *end;
	long long v, mul = 1;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	if (*end) {
		if (!strcasecmp(end, "k") || !strcasecmp(end, "kb"))
			mul = 1024;
		else if (!strcasecmp(end, "m") || !strcasecmp(end, "mb"))
			mul = 1024 * 1024;
		else if (!strcasecmp(end, "g") || !strcasecmp(end, "gb"))
			mul = 1024LL * 1024 * 1024;
		else
			return -1;
	}
	if (v > max / mul || v * mul < min || v * mul > max)
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_fsync(const char *s, int *policy)
{
	static const char *const names[] = {
		[KV_FSYNC_NO] = "no",
		[KV_FSYNC_EVERYSEC] = "everysec",
		[KV_FSYNC_ALWAYS] = "always",
	};
	int i;

	for (i = 0; i < 3; i++) {
		if (!strcasecmp(s, names[i])) {
			*policy = i;
			return 0;
		}
	}
	return -1;
}

/*
 * The append-only file opened and checked before the runtime starts: a
 * last record cut short by a crash is cut off, with a line that says so
 * (redis's aof-load-truncated); a file that is not whole commands
 * anywhere else stops the start, naming the byte (redis-check-aof --fix
 * mends one). An empty or new file gets redis's first record.
 */
static int open_aof(const struct opts *o)
{
	char err[96];
	uint64_t good, n;
	enum aof_state st;

	srv.aof_fd = -1;
	kv_settings.appendonly = o->appendonly;
	kv_settings.appendfsync = o->appendfsync;
	kv_settings.dir = o->dir;
	if (!o->appendonly)
		return 0;
	srv.aof_dir = o->dir;
	srv.aof_fsync = o->appendfsync;
	snprintf(srv.aof_path, sizeof(srv.aof_path), "%s/appendonly.aof",
		 o->dir);
	srv.aof_fd = open(srv.aof_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (srv.aof_fd < 0) {
		fprintf(stderr, "kv_server: %s: %s\n", srv.aof_path,
			strerror(errno));
		return -1;
	}
	st = aof_scan(srv.aof_fd, &good, &n, err, sizeof(err));
	if (st == AOF_CORRUPT) {
		fprintf(stderr,
			"kv_server: %s: not an append-only file from byte %llu "
			"(%s): mend it with redis-check-aof --fix, or move it "
			"away\n",
			srv.aof_path, (unsigned long long)good, err);
		return -1;
	}
	if (st == AOF_TRUNCATED) {
		fprintf(stderr,
			"kv_server: %s: its last record was cut short (a crash "
			"while it was written): cut to %llu bytes, %llu "
			"commands\n",
			srv.aof_path, (unsigned long long)good,
			(unsigned long long)n);
		if (ftruncate(srv.aof_fd, (off_t)good)) {
			fprintf(stderr, "kv_server: %s: %s\n", srv.aof_path,
				strerror(errno));
			return -1;
		}
	}
	if (good == 0) {
		if (pwrite(srv.aof_fd, AOF_HEADER, strlen(AOF_HEADER), 0) !=
		    (ssize_t)strlen(AOF_HEADER)) {
			fprintf(stderr, "kv_server: %s: %s\n", srv.aof_path,
				strerror(errno));
			return -1;
		}
		good = strlen(AOF_HEADER);
	}
	srv.aof_start = good;
	atomic_store(&srv.aof_size, good);
	atomic_store(&srv.aof_write_ok, 1);
	return 0;
}

/* The options' fn (../opt.h): NULL, or what they expected. */
static const char *opt_maxclients(const char *arg, void *dst)
{
	return parse_size(arg, 1, 1000000, dst) ? "1 to 1000000" : NULL;
}

static const char *opt_bulk(const char *arg, void *dst)
{
	/* redis: at least 1 MB; here a bulk fits in 32 bits */
	if (parse_size(arg, 1024 * 1024, UINT32_MAX, dst))
		return "1m to 4294967295 bytes, a number with or without "
		       "k, m or g";
	return NULL;
}

static const char *opt_yesno(const char *arg, void *dst)
{
	if (strcasecmp(arg, "yes") && strcasecmp(arg, "no"))
		return "yes or no";
	*(bool *)dst = !strcasecmp(arg, "yes");
	return NULL;
}

static const char *opt_debug(const char *arg, void *dst)
{
	if (!strcasecmp(arg, "yes"))
		*(int *)dst = KV_DEBUG_YES;
	else if (!strcasecmp(arg, "local"))
		*(int *)dst = KV_DEBUG_LOCAL;
	else if (!strcasecmp(arg, "no"))
		*(int *)dst = KV_DEBUG_NO;
	else
		return "yes, local or no";
	return NULL;
}

static const char *opt_fsync(const char *arg, void *dst)
{
	return parse_fsync(arg, dst) ? "always, everysec or no" : NULL;
}

/* 0, or the exit status: 2 for a usage error; --help exits here. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	const struct opt opts[] = {
		OPT_STR("host", &o->host, "H", "address to listen on"),
		OPT_INT("port", &o->port, 0, 65535, "P",
			"TCP port, 0: an ephemeral one"),
		OPT_INT("workers", &o->workers, 1, 1024, "N",
			"worker threads (default: ACTORS_SCHEDULERS or the\n"
			"runtime's); 1: the worker runs the reactor too,\n"
			"unless ACTORS_REACTOR_CPU says otherwise"),
		OPT_INT("shards", &o->shards, 1, 4096, "N",
			"keyspace shards (default: one per worker)"),
		OPT_FN("maxclients", opt_maxclients, &o->maxclients, "N",
		       "clients at once, 1 to 1000000 (default 10000)"),
		OPT_FN("proto-max-bulk-len", opt_bulk, &o->max_bulk, "B",
		       "largest argument, 1m to 4294967295 bytes; k, m or g\n"
		       "after the number count KiB, MiB or GiB (default "
		       "512m)"),
		OPT_FN("appendonly", opt_yesno, &o->appendonly, "yes|no",
		       "log every write to DIR/appendonly.aof and replay\n"
		       "it at start (default no)"),
		OPT_FN("appendfsync", opt_fsync, &o->appendfsync, "P",
		       "always, everysec or no: when the log is flushed\n"
		       "(default everysec)"),
		OPT_STR("dir", &o->dir, "DIR", "where the log is"),
		OPT_FN("enable-debug-command", opt_debug, &o->debug,
		       "yes|local|no",
		       "DEBUG SLEEP, for all clients or those on the\n"
		       "loopback (default no)"),
		OPT_INT("malloc-trim-period", &o->trim_s, 0, 86400, "S",
			"seconds between two returns of malloc's free\n"
			"memory to the system, if the server worked in\n"
			"between (default 10; 0: never)"),
		OPT_END,
	};
	const struct opt_cmd cmd = { .name = "kv_server",
				     .opts = opts,
				     .after = usage_after };
	int ops, rc;

	rc = opt_parse(&cmd, argc, argv, &ops);
	if (rc == OPT_HELP)
		exit(0);
	if (rc != OPT_OK)
		return opt_status(rc);
	if (ops < argc)
		return opt_error(&cmd, "unexpected operand %s", argv[ops]);
	return 0;
}

static int signals_block(sigset_t *old)
{
	sigset_t set;
	int rc;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	rc = pthread_sigmask(SIG_BLOCK, &set, old);
	if (rc)
		return -rc;
	srv.sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (srv.sigfd < 0)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { "127.0.0.1", 6379,
			  0,	       0,
			  10000,       RESP_MAX_BULK_DEFAULT,
			  false,       KV_FSYNC_EVERYSEC,
			  ".",	       KV_DEBUG_NO,
			  10 };
	struct act_config cfg;
	uint64_t seed;
	sigset_t old;
	int rc, port;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	kv_settings.proto_max_bulk_len = o.max_bulk;
	/* room for maxclients under the descriptor limit, as redis makes
	 * it at start: the limit raised, or maxclients lowered, in a line */
	if (util_fit_nofile("kv_server", "maxclients", &o.maxclients,
			    KV_FD_RESERVE))
		return 1; /* it said why */
	kv_settings.maxclients = o.maxclients;
	kv_settings.info = server_info;
	kv_settings.bgrewriteaof = bgrewriteaof;
	kv_settings.debug = o.debug;
	kv_settings.sleep = act_sleep;
	srv.trim_ns = (int64_t)o.trim_s * 1000000000;
	srv.started_ns = util_now_ns();
	srv.executable = realpath("/proc/self/exe", NULL);
	/* a seed of its own each run, so that clients cannot aim keys at
	 * one bucket (getrandom would do; the clock is enough for that) */
	seed = (uint64_t)util_now_ns() ^ ((uint64_t)getpid() << 32);
	kv_hash_seed(seed);
	srv.listen_fd = util_listen("kv_server", o.host, o.port, &port);
	if (srv.listen_fd < 0)
		return 1; /* it said why */
	rc = signals_block(&old);
	if (rc) {
		fprintf(stderr, "kv_server: signals: %s\n", strerror(-rc));
		return 1;
	}
	srv.port = port;
	/* the descriptor the acceptor gives up to answer the clients that
	 * wait while the others are all taken (act_io_accept_shed) */
	srv.spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (open_aof(&o))
		return 1; /* it said why */
	act_config_init(&cfg);
	cfg.schedulers = o.workers;
	/* one worker: it runs the reactor too, as redis-server's one thread
	 * does its event loop, and no completion costs a wake of another
	 * thread (doc/design/servers.md); ACTORS_REACTOR_CPU still decides */
	if (o.workers == 1 && !getenv("ACTORS_REACTOR_CPU"))
		cfg.reactor_cpu = ACT_REACTOR_INLINE;
	rc = act_main(&cfg, main_proc, &o);
	if (rc == 0)
		rc = srv.err;
	if (rc) {
		fprintf(stderr, "kv_server: %s\n", util_strerror(rc));
		return 1;
	}
	fprintf(stderr,
		"kv_server: stopped by %s: %llu clients accepted, %llu "
		"refused (maxclients, descriptors), %llu closed, %d open at "
		"the stop\n",
		srv.signal ? strsignal(srv.signal) : "request",
		(unsigned long long)atomic_load(&srv.accepted),
		(unsigned long long)atomic_load(&srv.rejected),
		(unsigned long long)atomic_load(&srv.closed),
		atomic_load(&srv.clients));
	close(srv.listen_fd);
	close(srv.sigfd);
	if (srv.spare >= 0)
		close(srv.spare);
	return 0;
}
