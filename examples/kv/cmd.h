/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the kv example's commands: their table, and each one run on a
 * shard's keyspace with redis-server 7.0's replies.
 *
 * The commands live by type, as redis's t_*.c do: c_conn.c (the
 * connection's own: PING, ECHO, QUIT, SELECT, COMMAND, CONFIG, ...),
 * c_keys.c, c_string.c, c_list.c, c_hash.c, c_set.c, c_zset.c and
 * c_stream.c; each exports its part of the table (cmd_impl.h) and cmd.c
 * makes them one, sorted by name, the first time one is looked up.
 *
 * Where a command runs: KV_CONN commands on the connection, with its
 * kv_client and no keyspace; KV_EVERY commands (DBSIZE, FLUSHALL) on
 * every shard, their replies merged; the others on the shard of their
 * keys. A command of several keys (DEL, EXISTS, MGET, MSET) is split by
 * shard, each part run as the same command on its keys, and the parts'
 * replies merged (kv_merge). A single shard runs any command whole (the
 * tests run the table that way).
 */
#ifndef KV_CMD_H
#define KV_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "out.h"
#include "resp.h"

enum {
	KV_CONN = 1 << 0,     /* runs on the connection */
	KV_EVERY = 1 << 1,    /* runs on every shard */
	KV_MULTI = 1 << 2,    /* several keys, split by shard */
	KV_CLOSE = 1 << 3,    /* the connection closes after its reply */
	KV_WRITE = 1 << 4,    /* may change the keyspace */
	KV_CROSS = 1 << 5,    /* its keys on several shards: the connection
			      runs it in steps (MSETNX, RENAME, SMOVE) */
	KV_INTERNAL = 1 << 6, /* the connection's own steps, not a client's:
				 not found by name, not in COMMAND */
	KV_NUMKEYS = 1 << 7,  /* argv[1] counts the keys from argv[2] */
};

/* How the parts of a split command's replies come together. */
enum kv_merge {
	KV_MERGE_NONE = 0,
	KV_MERGE_SUM,	 /* integers added: DEL, EXISTS, DBSIZE */
	KV_MERGE_OK,	 /* +OK once: MSET, FLUSHALL */
	KV_MERGE_ARRAY,	 /* elements back in key order: MGET */
	KV_MERGE_SINTER, /* the parts' arrays intersected: SINTER */
	KV_MERGE_SUNION, /* united: SUNION */
	KV_MERGE_SDIFF,	 /* the first key's part less the others: SDIFF */
	KV_MERGE_CONCAT, /* the parts' arrays one after the other: KEYS */
	KV_MERGE_SCAN,	 /* one shard's SCAN, its cursor the client's */
	KV_MERGE_INFO,	 /* the shards' counts added, INFO's text */
};

#define KV_REDIS_VERSION "7.0.15" /* the server whose replies these are */

/*
 * A connection's own state, for the commands that run on it. Every
 * connection's is in one registry (kv_client_add) for CLIENT LIST: the
 * owner writes its name and protocol under kv_client_lock, the rest once
 * before it is added or (last_*) as relaxed atomics, so a list taken
 * under the lock on another thread reads whole values.
 */
struct kv_client {
	uint64_t id;
	int fd;
	char addr[64], laddr[64]; /* "ip:port", as redis writes them */
	char *name;		  /* NULL: none (kv_client_remove frees it) */
	bool resp3;		  /* HELLO 3's: replies in RESP3 */
	int64_t created_ms;
	_Atomic int64_t last_ms;
	const char *_Atomic last_cmd; /* a table name, or NULL */
	struct kv_client *prev, *next;
};

void kv_client_add(struct kv_client *cl);    /* a new id too */
void kv_client_remove(struct kv_client *cl); /* its name freed too */
void kv_client_lock(void);
void kv_client_unlock(void);
/* fn on every client (self first if it is not registered), under the
 * lock. */
void kv_clients_each(struct kv_client *self,
		     void (*fn)(const struct kv_client *cl, void *ctx),
		     void *ctx);
/* redis's timeout: every client idle (no command read) for longer than
 * kv_settings.timeout seconds at now_ms has its socket shut down, which
 * ends its connection as if the client had closed it. The number shut;
 * any thread (kv_server.c's reaper, once a second while it is set). */
int kv_clients_reap(int64_t now_ms);

/* INFO's sections, by bit. */
enum {
	KV_INFO_SERVER,
	KV_INFO_CLIENTS,
	KV_INFO_MEMORY,
	KV_INFO_PERSISTENCE,
	KV_INFO_STATS,
	KV_INFO_REPLICATION,
	KV_INFO_CPU,
	KV_INFO_MODULES,
	KV_INFO_ERRORSTATS,
	KV_INFO_CLUSTER,
	KV_INFO_KEYSPACE,
};
/* The sections that need the shards' counts. */
#define KV_INFO_FROM_SHARDS ((1u << KV_INFO_STATS) | (1u << KV_INFO_KEYSPACE))

/* INFO's figures: the shards' summed, then the server's. */
struct kv_info {
	long long keys, expires, expired;
	int port, workers;
	const char *executable;
	long long uptime_s, clients, connections, rejected, commands;
	long long processes, processes_peak; /* the runtime's (act_stats) */
	long long trims; /* malloc_trim calls of the trimmer (kv_server.c) */
	int aof_enabled, aof_loading, aof_rewriting, aof_write_ok;
	long long aof_rewrites, aof_size;
};

/* The sections INFO's arguments ask for (argv[0] is INFO). */
unsigned kv_info_sections(int argc, const struct resp_arg *argv);
/* INFO's reply for those sections: in's shard counts set, the server's
 * filled by kv_settings.info. */
void kv_info_reply(struct out *o, unsigned mask, struct kv_info *in);

struct kv_cmd {
	const char *name; /* lower case, as redis names it in errors */
	int arity;	  /* redis's: n exactly, -n at least n */
	int first_key;	  /* 0: none */
	int key_step;	  /* keys at first_key, +step, ... to the end */
	int last_key;	  /* or up to this one, when it is not 0 */
	unsigned flags;
	enum kv_merge merge;
	/* a shard's command, or (KV_CONN) the connection's */
	void (*run)(struct kv_db *db, int argc, const struct resp_arg *argv,
		    struct out *o);
	void (*run_conn)(struct kv_client *cl, int argc,
			 const struct resp_arg *argv, struct out *o);
};

/* Limits and the answers of CONFIG GET, set once before any command;
 * those CONFIG SET changes live (maxclients, timeout) are atomics,
 * written and read relaxed: each is a value of its own, read afresh
 * where it applies (the acceptor, the reaper). */
struct kv_settings {
	long long proto_max_bulk_len;
	_Atomic long long maxclients;
	_Atomic long long timeout; /* seconds idle before a client is
				      closed; 0: never (redis's timeout) */
	/* CONFIG SET timeout's, to wake what applies it (kv_server.c's
	 * reaper); NULL: nothing to wake */
	void (*timeout_changed)(void);
	int shards;
	void (*info)(struct kv_info *in); /* the server's INFO figures */
	/* the append-only file, for CONFIG GET and BGREWRITEAOF */
	bool appendonly;
	int appendfsync; /* 0 no, 1 everysec, 2 always */
	const char *dir;
	int (*bgrewriteaof)(void); /* 0: started; -EBUSY, -ENOTSUP */
	/* DEBUG (redis's enable-debug-command): off, on, or for clients
	 * on the loopback only; sleep is DEBUG SLEEP's wait, the caller's
	 * alone (act_sleep) */
	enum { KV_DEBUG_NO, KV_DEBUG_YES, KV_DEBUG_LOCAL } debug;
	int (*sleep)(int64_t ns);
};
extern struct kv_settings kv_settings;

/* The command named argv[0], any case, or NULL. */
const struct kv_cmd *kv_cmd_find(const char *name, size_t n);
/* The table, for COMMAND, sorted by name; a command's index in it is
 * the same in every thread for the life of the process. */
const struct kv_cmd *kv_cmd_table(size_t *n);

/* An internal command by name (KV_INTERNAL), or NULL. */
const struct kv_cmd *kv_cmd_internal(const char *name);

/* redis's parseScanCursorOrReply: SCAN's cursor, strtoul's base 10 ("-1"
 * included), or false and "invalid cursor". */
bool kv_scan_cursor(const struct resp_arg *a, size_t *cursor, struct out *o);

/* Replies for a command that cannot run: unknown, or a wrong arity (false
 * from kv_cmd_check). */
void kv_reply_unknown(struct out *o, int argc, const struct resp_arg *argv);
bool kv_cmd_check(const struct kv_cmd *c, int argc, const struct resp_arg *argv,
		  struct out *o);

/* Runs c whole: on db, or a KV_CONN command on cl. */
void kv_cmd_run(const struct kv_cmd *c, struct kv_db *db, struct kv_client *cl,
		int argc, const struct resp_arg *argv, struct out *o);

#endif /* KV_CMD_H */
