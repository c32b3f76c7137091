/* SPDX-License-Identifier: MIT */
/*
 * kv_server.h - what the kv server's processes share (kv_server.c has
 * the whole picture): the messages between them, the server's few
 * globals, and the helpers that move bytes between processes.
 */
#ifndef KV_SERVER_H
#define KV_SERVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <actors.h>

#include "../util.h"

#include "cmd.h"

#define BATCH_MAX 256			  /* commands read before they run */
#define IN_START 16384			  /* a connection's first buffer */
#define IN_KEEP ((size_t)1 << 20)	  /* more is given back when idle */
#define INLINE_MAX ((size_t)256 << 10)	  /* bigger messages go by pointer */
#define SEND_STALL_NS (30 * 1000000000LL) /* no progress: closed */
#define TICK_NS (100 * 1000000LL)	  /* a shard's expiry sweep */
#define SWEEP_BUCKETS 256
#define REPLY_SOFT ((size_t)1 << 20) /* a shard's replies to one batch */
#define OUT_FLUSH ((size_t)1 << 20)  /* replies written as they pass it */
#define MS 1000000LL
/* descriptors kept for the server's own below RLIMIT_NOFILE: maxclients
 * is at most the limit less these (redis's CONFIG_MIN_RESERVED_FDS) */
#define KV_FD_RESERVE 32

enum {
	T_REQ = 1, /* a batch of commands, its bytes in the message */
	T_REQ_PTR, /* the same, a malloc'd buffer handed over */
	T_REP,	   /* the replies */
	T_REP_PTR,
	T_TICK,	  /* a shard's sweep */
	T_SIGNAL, /* to main: the signal's number */
	T_FAILED, /* to main: a -errno */
	/* the append-only file (kv_aof.c) */
	T_AOF,	     /* to aof: a batch's records (and its reply: always) */
	T_AOF_TICK,  /* to aof: everysec's flush */
	T_AOF_SYNC,  /* to aof from main at the stop, and back */
	T_BGREWRITE, /* to aof from a connection: start one; back: 0/-errno */
	T_RW_START,  /* to a shard: walk your keys (the epoch) */
	T_RW_BEGIN,  /* to aof: this shard's records from here are the tail */
	T_RW_CHUNK,  /* to aof: a chunk of a shard's snapshot */
	T_RW_ACK,    /* to a shard: the next chunk */
	T_RW_END,    /* to aof: this shard's walk is over */
	T_LOADING,   /* to a shard: the file is replayed (1) or done (0) */
	T_LOADED,    /* to main: the replay is over */
	T_STOP,	     /* to a shard from main at the stop: free, exit */
	T_TIMEOUT,   /* to the reaper: CONFIG SET timeout changed it */
};

/* The payload of T_AOF (and T_RW_CHUNK: no reply): buffers handed over. */
struct kv_aof_msg {
	uint32_t shard;
	void *log;
	size_t loglen;
	void *rep; /* always: the reply, sent once the records last */
	size_t replen;
	act_pid to;
};

enum { KV_FSYNC_NO, KV_FSYNC_EVERYSEC, KV_FSYNC_ALWAYS };

/* A pointer message's payload: the receiver frees p. */
struct handoff {
	void *p;
	size_t len;
};

/* A shard's reply count when it had no memory for the replies. */
#define KV_BATCH_FAILED UINT32_MAX
/* In a request's command word, with the command's index: its reply in
 * RESP3 (the client's HELLO 3), not RESP2. */
#define KV_REQ_RESP3 (1u << 31)

/* Set before act_main, read-only once processes run, but for the
 * atomics. */
struct kv_srv {
	int listen_fd;
	int sigfd;
	int spare; /* /dev/null, given up to shed clients (acceptor only) */
	int nshards;
	act_pid main;
	act_pid *shards;
	_Atomic int clients;
	_Atomic uint64_t accepted, rejected, closed;
	_Atomic uint64_t commands; /* INFO's total_commands_processed */
	_Atomic uint64_t trims;	   /* INFO's kv_malloc_trims */
	int err, signal;
	int port, workers;
	int64_t started_ns;
	int64_t trim_ns; /* --malloc-trim-period; 0: no trimmer */
	const char *executable;
	/* the append-only file: aof_fd -1 when it is off */
	act_pid aof;
	int aof_fd, aof_fsync;
	uint64_t aof_start; /* its size once loaded */
	const char *aof_dir;
	char aof_path[4096];
	_Atomic uint64_t aof_size, aof_rewrites;
	_Atomic int aof_rewriting, aof_write_ok, aof_loading;
};
extern struct kv_srv srv;

static inline uint32_t get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put32(struct out *o, uint32_t v)
{
	out_raw(o, &v, sizeof(v));
}

/* The shard of a key: the high half of its hash. */
static inline uint32_t shard_of(const struct resp_arg *key)
{
	if (srv.nshards == 1)
		return 0;
	return (uint32_t)((kv_hash(key->p, key->len) >> 32) %
			  (uint64_t)srv.nshards);
}

/* o's bytes to `to`: copied when small, else the buffer itself. */
int kv_send_out(act_pid to, uint32_t tag, struct out *o);
/* p[0..len) to `to`, copied: into the message when small, else into a
 * buffer handed over (the sender keeps its own). */
int kv_send_copy(act_pid to, uint32_t tag, const void *p, size_t len);
/* A request or reply's bytes: in the message, or handed over (*owned,
 * which the receiver frees). */
const char *kv_payload(const struct act_msg *m, size_t *len, void **owned);

/* The processes: a shard (kv_shard.c, arg its index), a connection
 * (kv_conn.h, arg its socket), the replay of the append-only file (a
 * connection reading the file, kv_conn.c) and its writer (kv_aof.c). */
void kv_shard_proc(void *arg);
void kv_conn_proc(void *arg);
void kv_loader_proc(void *arg);
void kv_aof_proc(void *arg);

#endif /* KV_SERVER_H */
