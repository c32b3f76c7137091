/* SPDX-License-Identifier: MIT */
/*
 * c_conn.c - the kv example's connection commands (cmd.h): PING, ECHO,
 * QUIT, SELECT, HELLO (RESP2 or RESP3), RESET and CONFIG GET, SET,
 * with redis-server 7.0's replies: the same checks in the same order, so
 * that the same bad command gets the same error. Redis 7.0's server.c,
 * networking.c and config.c are the reference.
 */
#include "cmd_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "glob.h"

static void c_ping(struct kv_client *cl, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)cl;
	if (argc > 2)
		arity_error(o, "ping");
	else if (argc == 2)
		out_bulk(o, v[1].p, v[1].len);
	else
		out_status(o, "PONG");
}

static void c_echo(struct kv_client *cl, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)cl;
	(void)argc;
	out_bulk(o, v[1].p, v[1].len);
}

static void c_quit(struct kv_client *cl, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)cl;
	(void)argc;
	(void)v;
	out_status(o, KV_OK);
}

static void c_select(struct kv_client *cl, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long id;

	(void)cl;
	(void)argc;
	if (!getll(&v[1], &id))
		out_error(o, KV_ERR_NOTINT);
	else if (id < INT_MIN || id > INT_MAX) /* redis's getIntFromObject */
		out_errorf(o,
			   "ERR value is out of range, value must between %d "
			   "and %d",
			   INT_MIN, INT_MAX);
	else if (id != 0)
		out_error(o, "ERR DB index is out of range"); /* one database */
	else
		out_status(o, KV_OK);
}

static void unknown_sub(struct out *o, const struct resp_arg *sub,
			const char *cmd)
{
	out_errorf(o, "ERR unknown subcommand '%.*s'. Try %s HELP.",
		   (int)(sub->len > 128 ? 128 : sub->len), sub->p, cmd);
}

/* ---- HELLO, RESET ---------------------------------------------------------- */

/* The connection's protocol, RESP3 or RESP2, and its replies' from
 * this one on. */
static void set_resp3(struct kv_client *cl, bool resp3, struct out *o)
{
	kv_client_lock(); /* CLIENT LIST on another thread reads it */
	cl->resp3 = resp3;
	kv_client_unlock();
	o->resp3 = resp3;
}

/* HELLO's options after the version, each done where it comes, as
 * redis 7.0.15's: AUTH's user checked, SETNAME's name set (and kept if a
 * later option fails), a bad option refused. False with the reply on an
 * error. */
static bool hello_options(struct kv_client *cl, int argc,
			  const struct resp_arg *v, struct out *o)
{
	const struct resp_arg *user;
	int j, more;

	for (j = 2; j < argc; j++) {
		more = argc - 1 - j;
		if (is(&v[j], "auth") && more >= 2) {
			user = &v[j + 1]; /* names are case-sensitive */
			if (user->len != 7 || memcmp(user->p, "default", 7)) {
				out_error(o,
					  "WRONGPASS invalid username-password "
					  "pair or user is disabled.");
				return false;
			}
			j += 2;
		} else if (is(&v[j], "setname") && more >= 1) {
			if (!kv_client_setname(cl, &v[++j], o))
				return false;
		} else {
			out_errorf(o, "ERR Syntax error in HELLO option '%.*s'",
				   ARGZ(&v[j]));
			return false;
		}
	}
	return true;
}

/*
 * HELLO [protover [AUTH user pass] [SETNAME name]], as redis 7.0's: the
 * protocol switched, the reply a map in the new one. This server has no
 * users but redis's "default" without a password, which any password
 * opens (as a redis-server with no requirepass). "server" is this
 * server's name; "version" the redis version whose replies it gives, as
 * INFO's redis_version, which clients read to know what it has.
 */
static void c_hello(struct kv_client *cl, int argc, const struct resp_arg *v,
		    struct out *o)
{
	long long ver = 0;

	if (argc >= 2 && !getll(&v[1], &ver)) {
		out_error(o, "ERR Protocol version is not an integer or out "
			     "of range");
		return;
	}
	if (argc >= 2 && (ver < 2 || ver > 3)) {
		out_error(o, "NOPROTO unsupported protocol version");
		return;
	}
	if (!hello_options(cl, argc, v, o))
		return;
	if (ver)
		set_resp3(cl, ver == 3, o);
	out_map(o, 7);
	out_bulk(o, "server", 6);
	out_bulk(o, "kv_server", 9);
	out_bulk(o, "version", 7);
	out_bulk(o, KV_REDIS_VERSION, strlen(KV_REDIS_VERSION));
	out_bulk(o, "proto", 5);
	out_int(o, cl->resp3 ? 3 : 2);
	out_bulk(o, "id", 2);
	out_int(o, (long long)cl->id);
	out_bulk(o, "mode", 4);
	out_bulk(o, "standalone", 10);
	out_bulk(o, "role", 4);
	out_bulk(o, "master", 6);
	out_bulk(o, "modules", 7);
	out_array(o, 0);
}

/* RESET: the connection as it was when it came (RESP2, no name), as
 * redis's; the rest of redis's connection state (MULTI, WATCH, pub/sub,
 * tracking) this server does not have. */
static void c_reset(struct kv_client *cl, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct resp_arg none = { "", 0 };
	struct out ignored;

	(void)argc;
	(void)v;
	out_init(&ignored);
	kv_client_setname(cl, &none, &ignored);
	out_free(&ignored);
	set_resp3(cl, false, o);
	out_status(o, "RESET");
}

/* ---- CONFIG --------------------------------------------------------------- */

/* redis's CONFIG_MIN_RESERVED_FDS, as kv_server.h's KV_FD_RESERVE */
#define RESERVED_FDS 32

/* RLIMIT_NOFILE set to lim (the hard limit raised with it where it is
 * lower, which only a privileged process may): true if it took. */
static bool try_limit(const struct rlimit *now, rlim_t lim)
{
	struct rlimit want;

	want.rlim_cur = lim;
	want.rlim_max = now->rlim_max == RLIM_INFINITY || now->rlim_max >= lim ?
				now->rlim_max :
				lim;
	return setrlimit(RLIMIT_NOFILE, &want) == 0;
}

/*
 * redis's adjustOpenFilesLimit for a new maxclients: descriptors for n
 * clients and the server's own, the limit raised to that, or to the
 * most it can be in steps of 16 down from that. redis tries each step
 * in turn (a million setrlimit calls for maxclients 4294967295); the
 * same step is found here by halving, in 32 calls at most. The clients
 * it can take: n, or fewer.
 */
static long long fd_room(long long n)
{
	rlim_t need = (rlim_t)n + RESERVED_FDS, lo, hi, mid, best;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return n; /* as redis: nothing known, nothing refused */
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return n;
	if (try_limit(&rl, need))
		return n;
	/* the fewest steps of 16 down from need that take, above the
	 * limit now: lo's step fails, hi's takes (or is the limit now) */
	lo = 0;
	hi = (need - rl.rlim_cur + 15) / 16;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (try_limit(&rl, need - 16 * mid))
			hi = mid;
		else
			lo = mid;
	}
	best = need - 16 * hi > rl.rlim_cur ? need - 16 * hi : rl.rlim_cur;
	if (!try_limit(&rl, best))
		best = rl.rlim_cur;
	return (long long)best - RESERVED_FDS;
}

/* A setting of CONFIG GET, and of CONFIG SET when it changes live. */
struct param {
	const char *name;
	long long min, max;	 /* CONFIG SET's bounds; max < min: immutable */
	_Atomic long long *live; /* the value CONFIG SET writes */
};

static const struct param params[] = {
	{ "appendfsync", 1, 0, NULL },
	{ "appendonly", 1, 0, NULL },
	{ "databases", 1, 0, NULL },
	{ "dir", 1, 0, NULL },
	{ "maxclients", 1, UINT32_MAX, &kv_settings.maxclients },
	{ "maxmemory", 1, 0, NULL }, /* 0: no limit; none can be set */
	{ "maxmemory-policy", 1, 0, NULL },
	{ "proto-max-bulk-len", 1, 0, NULL },
	{ "save", 1, 0, NULL },
	{ "timeout", 0, INT32_MAX, &kv_settings.timeout },
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))

/* A setting's value as CONFIG GET writes it, into buf. */
static const char *param_value(size_t i, char *buf, size_t room)
{
	static const char *const fsync[] = { "no", "everysec", "always" };
	const char *name = params[i].name;

	if (params[i].live) {
		snprintf(buf, room, "%lld",
			 atomic_load_explicit(params[i].live,
					      memory_order_relaxed));
		return buf;
	}
	if (!strcmp(name, "appendfsync"))
		return fsync[kv_settings.appendfsync];
	if (!strcmp(name, "appendonly"))
		return kv_settings.appendonly ? "yes" : "no";
	if (!strcmp(name, "dir"))
		return kv_settings.dir;
	if (!strcmp(name, "maxmemory-policy"))
		return "noeviction";
	if (!strcmp(name, "proto-max-bulk-len")) {
		snprintf(buf, room, "%lld", kv_settings.proto_max_bulk_len);
		return buf;
	}
	if (!strcmp(name, "save"))
		return "";
	return strcmp(name, "databases") ? "0" : "1";
}

/* CONFIG GET: each setting once, in the order asked; a name asked for
 * without a pattern is answered as it was written (as redis does). */
static void config_get(int argc, const struct resp_arg *v, struct out *o)
{
	const struct resp_arg *asked[NPARAMS];
	bool seen[NPARAMS] = { false }, glob;
	int order[NPARAMS], n = 0, j;
	char val[32];
	const char *s;
	size_t i;

	for (j = 2; j < argc; j++) {
		glob = memchr(v[j].p, '*', v[j].len) ||
		       memchr(v[j].p, '?', v[j].len) ||
		       memchr(v[j].p, '[', v[j].len);
		for (i = 0; i < NPARAMS; i++) {
			if (seen[i] ||
			    !kv_glob(v[j].p, v[j].len, params[i].name,
				     strlen(params[i].name), true))
				continue;
			seen[i] = true;
			order[n++] = (int)i;
			asked[i] = glob ? NULL : &v[j];
		}
	}
	out_map(o, n);
	for (j = 0; j < n; j++) {
		i = (size_t)order[j];
		if (asked[i])
			out_bulk(o, asked[i]->p, asked[i]->len);
		else
			out_bulk(o, params[i].name, strlen(params[i].name));
		s = param_value(i, val, sizeof(val));
		out_bulk(o, s, strlen(s));
	}
}

/* The setting named a, any case, or -1. */
static int param_of(const struct resp_arg *a)
{
	size_t i;

	for (i = 0; i < NPARAMS; i++)
		if (is(a, params[i].name))
			return (int)i;
	return -1;
}

/* CONFIG SET's checks of the names, in redis's order (configSetCommand):
 * the first unknown name, unless a setting that cannot change (or a
 * second of one) came before it. False with the reply. */
static bool config_set_names(int argc, const struct resp_arg *v, int *which,
			     struct out *o)
{
	const struct resp_arg *unknown = NULL, *bad = NULL;
	const char *why = NULL;
	int i, j, k;

	for (i = 2, k = 0; i < argc; i += 2, k++) {
		which[k] = param_of(&v[i]);
		if (which[k] < 0) {
			if (!bad && !unknown)
				unknown = &v[i];
			continue;
		}
		if (bad || unknown)
			continue;
		if (params[which[k]].max < params[which[k]].min) {
			why = "can't set immutable config";
			bad = &v[i];
		}
		for (j = 0; j < k && !bad; j++) {
			if (which[j] == which[k]) {
				why = "duplicate parameter";
				bad = &v[i];
			}
		}
	}
	if (unknown)
		out_errorf(o,
			   "ERR Unknown option or number of arguments for "
			   "CONFIG SET - '%.*s'",
			   ARGZ(unknown));
	else if (bad)
		out_errorf(o,
			   "ERR CONFIG SET failed (possibly related to "
			   "argument '%.*s') - %s",
			   ARGZ(bad), why);
	return !unknown && !bad;
}

static void config_failed(struct out *o, const char *name, const char *why)
{
	out_errorf(o,
		   "ERR CONFIG SET failed (possibly related to argument "
		   "'%s') - %s",
		   name, why);
}

/*
 * CONFIG SET name value [name value ...], all or none, as redis 7.0's:
 * of this server's settings only those that take effect at once,
 * maxclients (the acceptor reads it for each new client) and timeout
 * (the reaper, kv_server.c, closes the clients idle for longer); the
 * others it has are answered as redis answers an immutable one.
 */
static void config_set(int argc, const struct resp_arg *v, struct out *o)
{
	int which[64], k, n = (argc - 2) / 2;
	long long val[64], room;
	const struct param *p;

	if (argc % 2 || n > 64) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	if (!config_set_names(argc, v, which, o))
		return;
	for (k = 0; k < n; k++) { /* every value checked before any is set */
		p = &params[which[k]];
		if (!getll(&v[3 + 2 * k], &val[k])) {
			config_failed(o, p->name,
				      "argument couldn't be parsed into an "
				      "integer");
			return;
		}
		if (val[k] < p->min || val[k] > p->max) {
			out_errorf(o,
				   "ERR CONFIG SET failed (possibly related "
				   "to argument '%s') - argument must be "
				   "between %lld and %lld inclusive",
				   p->name, p->min, p->max);
			return;
		}
	}
	for (k = 0; k < n; k++) {
		p = &params[which[k]];
		if (p->live != &kv_settings.maxclients ||
		    val[k] <=
			    atomic_load_explicit(p->live, memory_order_relaxed))
			continue;
		room = fd_room(val[k]);
		if (room < val[k]) {
			out_errorf(o,
				   "ERR CONFIG SET failed (possibly related "
				   "to argument 'maxclients') - The operating "
				   "system is not able to handle the "
				   "specified number of clients, try with "
				   "%lld",
				   room);
			return;
		}
	}
	for (k = 0; k < n; k++)
		atomic_store_explicit(params[which[k]].live, val[k],
				      memory_order_relaxed);
	for (k = 0; k < n; k++)
		if (params[which[k]].live == &kv_settings.timeout &&
		    kv_settings.timeout_changed)
			kv_settings.timeout_changed();
	out_status(o, KV_OK);
}

static void config_help(struct out *o)
{
	static const char *const lines[] = {
		"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands "
		"are:",
		"GET <pattern>",
		"    Return parameters matching the glob-like <pattern> and "
		"their values.",
		"SET <directive> <value>",
		"    Set the configuration <directive> to <value> (maxclients, "
		"timeout).",
		"HELP",
		"    Prints this help.",
	};
	size_t i, n = sizeof(lines) / sizeof(lines[0]);

	out_array(o, (long long)n);
	for (i = 0; i < n; i++)
		out_status(o, lines[i]);
}

static void c_config(struct kv_client *cl, int argc, const struct resp_arg *v,
		     struct out *o)
{
	static const struct {
		const char *name;
		int arity;
	} subs[] = { { "get", -3 }, { "set", -4 }, { "help", 2 } };
	size_t i, n = sizeof(subs) / sizeof(subs[0]);

	(void)cl;
	for (i = 0; i < n && !is(&v[1], subs[i].name); i++)
		;
	if (i == n)
		unknown_sub(o, &v[1], "CONFIG");
	else if ((subs[i].arity > 0 && argc != subs[i].arity) ||
		 argc < -subs[i].arity)
		out_errorf(o,
			   "ERR wrong number of arguments for 'config|%s' "
			   "command",
			   subs[i].name);
	else if (i == 0)
		config_get(argc, v, o);
	else if (i == 1)
		config_set(argc, v, o);
	else
		config_help(o);
}

const struct kv_cmd kv_cmds_conn[] = {
	KV_CONN_CMD("config", -2, 0, c_config),
	KV_CONN_CMD("echo", 2, 0, c_echo),
	KV_CONN_CMD("hello", -1, 0, c_hello),
	KV_CONN_CMD("ping", -1, 0, c_ping),
	KV_CONN_CMD("quit", -1, KV_CLOSE, c_quit),
	KV_CONN_CMD("reset", 1, 0, c_reset),
	KV_CONN_CMD("select", 2, 0, c_select),
	{ .name = NULL },
};
