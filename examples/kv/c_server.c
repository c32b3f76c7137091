/* SPDX-License-Identifier: MIT */
/*
 * c_server.c - the kv example's INFO, CLIENT and DEBUG (cmd.h), with
 * redis-server 7.0's field names and errors. Redis 7.0's server.c
 * (genRedisInfoString) and networking.c (clientCommand) are the
 * reference.
 *
 * INFO's keyspace is the shards': each runs "info" on its own keys and
 * the connection adds their counts (kv_merge.c's KV_MERGE_INFO) and
 * writes the text here, with the server's own figures (kv_settings.info).
 * Only what the server knows is written: a field redis has and this
 * server cannot measure is left out, not filled with a zero.
 */
#include "cmd_impl.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---- INFO ----------------------------------------------------------------- */

static const char *const sections[] = {
	[KV_INFO_SERVER] = "server",
	[KV_INFO_CLIENTS] = "clients",
	[KV_INFO_MEMORY] = "memory",
	[KV_INFO_PERSISTENCE] = "persistence",
	[KV_INFO_STATS] = "stats",
	[KV_INFO_REPLICATION] = "replication",
	[KV_INFO_CPU] = "cpu",
	[KV_INFO_MODULES] = "modules",
	[KV_INFO_ERRORSTATS] = "errorstats",
	[KV_INFO_CLUSTER] = "cluster",
	[KV_INFO_KEYSPACE] = "keyspace",
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

/* INFO's mem_allocator: glibc's malloc, or a sanitizer's, which
 * replaces it (and which malloc_trim, the trimmer's, does not reach) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KV_ALLOCATOR "sanitizer"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KV_ALLOCATOR "sanitizer"
#endif
#endif
#ifndef KV_ALLOCATOR
#define KV_ALLOCATOR "libc"
#endif

unsigned kv_info_sections(int argc, const struct resp_arg *v)
{
	unsigned mask = 0, all = (1u << NSECTIONS) - 1;
	size_t i;
	int j;

	if (argc == 1)
		return all; /* redis's default: these are all it has */
	for (j = 1; j < argc; j++) {
		if (!strcasecmp_arg(&v[j], "default") ||
		    !strcasecmp_arg(&v[j], "all") ||
		    !strcasecmp_arg(&v[j], "everything"))
			mask |= all;
		else if (!strcasecmp_arg(&v[j], "module_list"))
			mask |= 1u << KV_INFO_MODULES;
		for (i = 0; i < NSECTIONS; i++)
			if (!strcasecmp_arg(&v[j], sections[i]))
				mask |= 1u << i;
	}
	return mask;
}

/* redis's bytesToHuman. */
static const char *human(char *buf, size_t room, unsigned long long n)
{
	static const char units[] = "KMGTP";
	double d = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, room, "%lluB", n);
		return buf;
	}
	while (d >= 1024 && u < 4) {
		d /= 1024;
		u++;
	}
	snprintf(buf, room, "%.2f%c", d, units[u]);
	return buf;
}

static unsigned long long rss_bytes(void)
{
	unsigned long long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return rss * (unsigned long long)sysconf(_SC_PAGESIZE);
}

static void info_server(struct out *t, const struct kv_info *in)
{
	struct utsname u;
	struct timespec ts;

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &ts);
	out_printf(t,
		   "# Server\r\nredis_version:%s\r\nredis_mode:standalone\r\n"
		   "os:%s %s %s\r\narch_bits:%d\r\n"
		   "multiplexing_api:io_uring\r\n"
		   "atomicvar_api:c11-builtin\r\nprocess_id:%ld\r\n"
		   "tcp_port:%d\r\nserver_time_usec:%lld\r\n"
		   "uptime_in_seconds:%lld\r\nuptime_in_days:%lld\r\n"
		   "executable:%s\r\nconfig_file:\r\nio_threads_active:0\r\n"
		   "kv_workers:%d\r\nkv_shards:%d\r\nkv_processes:%lld\r\n"
		   "kv_processes_peak:%lld\r\n",
		   KV_REDIS_VERSION, u.sysname, u.release, u.machine,
		   (int)sizeof(long) * 8, (long)getpid(), in->port,
		   (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000,
		   in->uptime_s, in->uptime_s / 86400,
		   in->executable ? in->executable : "", in->workers,
		   kv_settings.shards, in->processes, in->processes_peak);
}

static void info_clients(struct out *t, const struct kv_info *in)
{
	out_printf(t,
		   "# Clients\r\nconnected_clients:%lld\r\n"
		   "cluster_connections:0\r\nmaxclients:%lld\r\n"
		   "blocked_clients:0\r\ntracking_clients:0\r\n",
		   in->clients,
		   atomic_load_explicit(&kv_settings.maxclients,
					memory_order_relaxed));
}

static void info_memory(struct out *t, const struct kv_info *in)
{
	struct mallinfo2 mi = mallinfo2();
	unsigned long long used = mi.uordblks + mi.hblkhd, rss = rss_bytes();
	char h[3][32];

	out_printf(t,
		   "# Memory\r\nused_memory:%llu\r\nused_memory_human:%s\r\n"
		   "used_memory_rss:%llu\r\nused_memory_rss_human:%s\r\n"
		   "maxmemory:0\r\nmaxmemory_human:%s\r\n"
		   "maxmemory_policy:noeviction\r\n"
		   "mem_fragmentation_ratio:%.2f\r\nmem_allocator:" KV_ALLOCATOR
		   "\r\n"
		   "kv_malloc_trims:%lld\r\n",
		   used, human(h[0], sizeof(h[0]), used), rss,
		   human(h[1], sizeof(h[1]), rss), human(h[2], sizeof(h[2]), 0),
		   used ? (double)rss / (double)used : 0.0, in->trims);
}

static void info_persistence(struct out *t, const struct kv_info *in)
{
	out_printf(t,
		   "# Persistence\r\nloading:%d\r\naof_enabled:%d\r\n"
		   "aof_rewrite_in_progress:%d\r\n"
		   "aof_rewrites:%lld\r\naof_last_write_status:%s\r\n"
		   "aof_current_size:%lld\r\n",
		   in->aof_loading, in->aof_enabled, in->aof_rewriting,
		   in->aof_rewrites, in->aof_write_ok ? "ok" : "err",
		   in->aof_size);
}

static void info_stats(struct out *t, const struct kv_info *in)
{
	out_printf(t,
		   "# Stats\r\ntotal_connections_received:%lld\r\n"
		   "total_commands_processed:%lld\r\n"
		   "rejected_connections:%lld\r\nexpired_keys:%lld\r\n",
		   in->connections, in->commands, in->rejected, in->expired);
}

static void info_cpu(struct out *t)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	out_printf(t,
		   "# CPU\r\nused_cpu_sys:%ld.%06ld\r\n"
		   "used_cpu_user:%ld.%06ld\r\n",
		   (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec,
		   (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
}

static void info_section(struct out *t, unsigned s, const struct kv_info *in)
{
	switch (s) {
	case KV_INFO_SERVER:
		info_server(t, in);
		break;
	case KV_INFO_CLIENTS:
		info_clients(t, in);
		break;
	case KV_INFO_MEMORY:
		info_memory(t, in);
		break;
	case KV_INFO_PERSISTENCE:
		info_persistence(t, in);
		break;
	case KV_INFO_STATS:
		info_stats(t, in);
		break;
	case KV_INFO_REPLICATION:
		out_printf(t, "# Replication\r\nrole:master\r\n"
			      "connected_slaves:0\r\n");
		break;
	case KV_INFO_CPU:
		info_cpu(t);
		break;
	case KV_INFO_MODULES:
		out_printf(t, "# Modules\r\n");
		break;
	case KV_INFO_ERRORSTATS:
		out_printf(t, "# Errorstats\r\n");
		break;
	case KV_INFO_CLUSTER:
		out_printf(t, "# Cluster\r\ncluster_enabled:0\r\n");
		break;
	case KV_INFO_KEYSPACE:
		out_printf(t, "# Keyspace\r\n");
		if (in->keys) /* as redis: a database with keys only */
			out_printf(t,
				   "db0:keys=%lld,expires=%lld,avg_ttl=0\r\n",
				   in->keys, in->expires);
		break;
	}
}

void kv_info_reply(struct out *o, unsigned mask, struct kv_info *in)
{
	struct out t;
	unsigned s, n = 0;

	if (kv_settings.info)
		kv_settings.info(in);
	out_init(&t);
	for (s = 0; s < NSECTIONS; s++) {
		if (!(mask & (1u << s)))
			continue;
		if (n++)
			out_raw(&t, "\r\n", 2);
		info_section(&t, s, in);
	}
	if (t.failed)
		o->failed = true;
	else
		out_verbatim(o, t.p, t.len); /* RESP3's =, as redis */
	out_free(&t);
}

/* A shard's part of INFO: its keys, keys with a TTL, and keys expired,
 * as an array the connection adds up (and all it is, run alone). */
static void c_info(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)argc;
	(void)v;
	out_array(o, 3);
	out_int(o, (long long)db_count(db));
	out_int(o, (long long)db->expires);
	out_int(o, (long long)db->expired);
}

/* ---- CLIENT --------------------------------------------------------------- */

static pthread_mutex_t clients_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kv_client *clients; /* the registry, newest first */
static _Atomic uint64_t next_id = 1;

void kv_client_lock(void)
{
	pthread_mutex_lock(&clients_lock); /* pairs: kv_client_unlock */
}

void kv_client_unlock(void)
{
	pthread_mutex_unlock(&clients_lock); /* pairs: kv_client_lock */
}

void kv_client_add(struct kv_client *cl)
{
	cl->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
	kv_client_lock();
	cl->prev = NULL;
	cl->next = clients;
	if (clients)
		clients->prev = cl;
	clients = cl;
	kv_client_unlock();
}

void kv_client_remove(struct kv_client *cl)
{
	char *name;

	kv_client_lock();
	if (cl->prev)
		cl->prev->next = cl->next;
	else if (clients == cl)
		clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	cl->prev = cl->next = NULL;
	name = cl->name;
	cl->name = NULL;
	kv_client_unlock();
	free(name);
}

void kv_clients_each(struct kv_client *self,
		     void (*fn)(const struct kv_client *cl, void *ctx),
		     void *ctx)
{
	struct kv_client *cl;
	bool listed = false;

	kv_client_lock();
	for (cl = clients; cl; cl = cl->next)
		listed |= cl == self;
	if (!listed && self)
		fn(self, ctx);
	for (cl = clients; cl; cl = cl->next)
		fn(cl, ctx);
	kv_client_unlock();
}

int kv_clients_reap(int64_t now_ms)
{
	long long t = atomic_load_explicit(&kv_settings.timeout,
					   memory_order_relaxed);
	struct kv_client *cl;
	int64_t last;
	int n = 0;

	if (t <= 0)
		return 0;
	kv_client_lock();
	for (cl = clients; cl; cl = cl->next) {
		last = atomic_load_explicit(&cl->last_ms, memory_order_relaxed);
		/* as redis: idle for more than t whole seconds; the socket
		 * open while it is registered (kv_conn_proc removes it
		 * first) */
		if ((now_ms - last) / 1000 > t &&
		    shutdown(cl->fd, SHUT_RDWR) == 0)
			n++;
	}
	kv_client_unlock();
	return n;
}

/* One client's line of CLIENT LIST and CLIENT INFO. */
static void client_line(const struct kv_client *cl, void *ctx)
{
	struct out *t = ctx;
	int64_t now = kv_now_ms();
	const char *cmd =
		atomic_load_explicit(&cl->last_cmd, memory_order_relaxed);
	int64_t last = atomic_load_explicit(&cl->last_ms, memory_order_relaxed);

	out_printf(t,
		   "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld "
		   "idle=%lld flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 "
		   "events=r cmd=%s user=default redir=-1 resp=%d\n",
		   (unsigned long long)cl->id, cl->addr, cl->laddr, cl->fd,
		   cl->name ? cl->name : "",
		   (long long)(now - cl->created_ms) / 1000,
		   (long long)(now - last) / 1000, cmd ? cmd : "NULL",
		   cl->resp3 ? 3 : 2);
}

struct by_id {
	long long id;
	struct out *t;
};

static void client_if_id(const struct kv_client *cl, void *ctx)
{
	struct by_id *b = ctx;

	if ((long long)cl->id == b->id)
		client_line(cl, b->t);
}

static void client_list(struct kv_client *cl, int argc,
			const struct resp_arg *v, struct out *o)
{
	struct out t;
	struct by_id b;
	long long id;
	int j;

	out_init(&t);
	if (argc == 4 && is(&v[2], "type")) {
		if (strcasecmp_arg(&v[3], "normal") &&
		    strcasecmp_arg(&v[3], "master") &&
		    strcasecmp_arg(&v[3], "replica") &&
		    strcasecmp_arg(&v[3], "slave") &&
		    strcasecmp_arg(&v[3], "pubsub")) {
			out_errorf(o, "ERR Unknown client type '%.*s'",
				   ARGZ(&v[3]));
			return;
		}
		if (!strcasecmp_arg(&v[3], "normal"))
			kv_clients_each(cl, client_line, &t);
	} else if (argc > 3 && is(&v[2], "id")) {
		for (j = 3; j < argc; j++) {
			if (!getll(&v[j], &id)) {
				out_error(o, "ERR Invalid client ID");
				out_free(&t);
				return;
			}
			b.id = id;
			b.t = &t;
			kv_clients_each(cl, client_if_id, &b);
		}
	} else if (argc != 2) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	} else {
		kv_clients_each(cl, client_line, &t);
	}
	out_verbatim(o, t.p ? t.p : "", t.len);
	out_free(&t);
}

bool kv_client_setname(struct kv_client *cl, const struct resp_arg *name,
		       struct out *o)
{
	char *copy = NULL, *old;
	size_t i;

	for (i = 0; i < name->len; i++) {
		if (name->p[i] < '!' || name->p[i] > '~') {
			out_error(o, "ERR Client names cannot contain spaces, "
				     "newlines or special characters.");
			return false;
		}
	}
	if (name->len) { /* "": none, as redis */
		copy = malloc(name->len + 1);
		if (!copy) {
			nomem(o);
			return false;
		}
		memcpy(copy, name->p, name->len);
		copy[name->len] = '\0';
	}
	kv_client_lock(); /* a CLIENT LIST elsewhere reads it */
	old = cl->name;
	cl->name = copy;
	kv_client_unlock();
	free(old);
	return true;
}

static void c_client(struct kv_client *cl, int argc, const struct resp_arg *v,
		     struct out *o)
{
	static const struct {
		const char *name, *full; /* full: as CLIENT LIST's cmd= */
		int arity;
	} subs[] = {
		{ "id", "client|id", 2 },
		{ "info", "client|info", 2 },
		{ "list", "client|list", -2 },
		{ "setname", "client|setname", 3 },
		{ "getname", "client|getname", 2 },
		{ "help", "client|help", 2 },
	};
	struct out t;
	size_t i;

	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (is(&v[1], subs[i].name))
			break;
	if (i == sizeof(subs) / sizeof(subs[0])) {
		out_errorf(o, "ERR unknown subcommand '%.*s'. Try CLIENT HELP.",
			   ARG(&v[1]));
		return;
	}
	if ((subs[i].arity > 0 && argc != subs[i].arity) ||
	    argc < -subs[i].arity) {
		out_errorf(o,
			   "ERR wrong number of arguments for 'client|%s' "
			   "command",
			   subs[i].name);
		return;
	}
	atomic_store_explicit(&cl->last_cmd, subs[i].full,
			      memory_order_relaxed);
	switch (i) {
	case 0:
		out_int(o, (long long)cl->id);
		break;
	case 1:
		out_init(&t);
		kv_client_lock();
		client_line(cl, &t);
		kv_client_unlock();
		out_verbatim(o, t.p, t.len);
		out_free(&t);
		break;
	case 2:
		client_list(cl, argc, v, o);
		break;
	case 3:
		if (kv_client_setname(cl, &v[2], o))
			out_status(o, KV_OK);
		break;
	case 4:
		if (cl->name) /* the owner's: no lock to read it */
			out_bulk(o, cl->name, strlen(cl->name));
		else
			out_null(o);
		break;
	default:
		out_array(o, 6);
		out_status(o, "CLIENT <subcommand> [<arg> [value] [opt] ...]. "
			      "Subcommands are:");
		out_status(o, "ID, INFO, LIST [TYPE normal|master|replica|"
			      "pubsub] [ID id ...]");
		out_status(o, "    The connection's id, its line, or every "
			      "connection's.");
		out_status(o, "SETNAME <name>, GETNAME");
		out_status(o, "    The connection's name.");
		out_status(o, "HELP");
		break;
	}
}

static void c_bgrewriteaof(struct kv_client *cl, int argc,
			   const struct resp_arg *v, struct out *o)
{
	int rc = kv_settings.bgrewriteaof ? kv_settings.bgrewriteaof() :
					    -ENOTSUP;

	(void)cl;
	(void)argc;
	(void)v;
	if (rc == 0)
		out_status(o, "Background append only file rewriting started");
	else if (rc == -EBUSY)
		out_error(o, "ERR Background append only file rewriting "
			     "already in progress");
	else if (rc == -ENOTSUP)
		out_error(o, "ERR the append-only file is off: start "
			     "kv_server with --appendonly yes");
	else
		out_errorf(o, "ERR Can't start the rewrite: %s", strerror(-rc));
}

/* DEBUG's client on the loopback: redis's "local" (a unix socket too,
 * which this server does not have). */
static bool debug_local(const struct kv_client *cl)
{
	return !strncmp(cl->addr, "127.", 4) || !strncmp(cl->addr, "[::1]:", 6);
}

/*
 * DEBUG SLEEP seconds (decimals allowed), redis's, off unless the server
 * was started with --enable-debug-command: a wait in the connection's
 * process (act_sleep), so it holds up its own client, not the server as
 * redis's does. A timer per call: scripts/soak.sh's timer storms. The
 * rest of redis's DEBUG (its internals) is not here.
 */
static void c_debug(struct kv_client *cl, int argc, const struct resp_arg *v,
		    struct out *o)
{
	char num[64];
	double s;

	if (kv_settings.debug == KV_DEBUG_NO ||
	    (kv_settings.debug == KV_DEBUG_LOCAL && !debug_local(cl))) {
		out_error(o,
			  "ERR DEBUG command not allowed. If the "
			  "enable-debug-command option is set to \"local\", "
			  "you can run it from a local connection, "
			  "otherwise you need to set this option in the "
			  "configuration file, and then restart the server.");
		return;
	}
	if (argc == 2 && is(&v[1], "help")) {
		out_array(o, 3);
		out_status(o, "DEBUG <subcommand> [<arg> [value] [opt] ...]. "
			      "Subcommands are:");
		out_status(o, "SLEEP <seconds>");
		out_status(o, "    Stop the connection for <seconds>. "
			      "Decimals allowed.");
		return;
	}
	if (argc != 3 || !is(&v[1], "sleep")) {
		out_errorf(o,
			   "ERR unknown subcommand or wrong number of "
			   "arguments for '%.*s'. Try DEBUG HELP.",
			   (int)(v[1].len > 128 ? 128 : v[1].len), v[1].p);
		return;
	}
	/* as redis: strtod of the argument, nothing checked */
	snprintf(num, sizeof(num), "%.*s", (int)(v[2].len < 63 ? v[2].len : 63),
		 v[2].p);
	s = strtod(num, NULL);
	if (s > 0 && kv_settings.sleep)
		kv_settings.sleep(s < 86400.0 ? (int64_t)(s * 1e9) :
						86400LL * 1000000000LL);
	out_status(o, KV_OK);
}

const struct kv_cmd kv_cmds_server[] = {
	KV_CONN_CMD("bgrewriteaof", 1, 0, c_bgrewriteaof),
	KV_CONN_CMD("client", -2, 0, c_client),
	KV_CONN_CMD("debug", -2, 0, c_debug),
	KV_CMD("info", -1, 0, 0, KV_EVERY, KV_MERGE_INFO, c_info),
	{ .name = NULL },
};
