/* SPDX-License-Identifier: MIT */
/*
 * kv_conn.h - a connection of the kv server, the process kv_conn_proc
 * (kv_server.h): it reads, parses (resp.h), sends each shard one message
 * with that shard's commands of what was read (up to BATCH_MAX commands),
 * waits for their replies, and writes the replies in the order of the
 * commands. A command of several keys is split by shard and its parts'
 * replies merged; one whose keys must meet (RENAME, MSETNX, SMOVE, the
 * *STORE commands) runs in steps once the batch before it is done.
 *
 * One process, one struct conn, in four files by what they do with it:
 *   kv_plan.c   a batch's plan: where each command's reply comes from,
 *               and the shards' requests packed;
 *   kv_merge.c  the replies of a split command's parts made one;
 *   kv_cross.c  the commands across shards, in steps;
 *   kv_conn.c   the process: reading, the batch's requests and replies,
 *               writing, and the replay of the append-only file.
 */
#ifndef KV_CONN_H
#define KV_CONN_H

#include "kv_server.h"

/* Where a command's reply comes from: made here, one shard's, its
 * parts' merged, or its steps' across shards after the rest. */
enum { P_LOCAL, P_SHARD, P_SPLIT, P_CROSS };

/* Where each command of a batch gets its reply. */
struct plan {
	uint8_t kind;
	uint8_t merge;	 /* P_SPLIT: enum kv_merge */
	uint32_t shard;	 /* P_SHARD: the next reply of this shard */
	size_t off, len; /* P_LOCAL: the reply in c->local */
	uint32_t part0;	 /* P_SPLIT: c->parts[part0 .. part0 + nparts) */
	uint32_t nparts;
	uint32_t key0; /* P_SPLIT by key: c->keypart[key0 .. + nkeys) */
	uint32_t nkeys;
	unsigned info; /* KV_MERGE_INFO: the sections asked for */
	bool resp3;    /* P_SPLIT: the merged reply in RESP3 */
};

struct offs {
	size_t *v;
	size_t n, cap;
};

struct conn {
	int fd;
	char *in;
	size_t have, cap;
	struct resp_parser ps;
	struct out out;	   /* replies to write */
	struct out local;  /* replies made here, this batch */
	struct out *req;   /* by shard: the batch's request */
	uint32_t *nreq;	   /* by shard: its commands */
	struct offs *offs; /* by shard: where each command starts */
	uint32_t *got;	   /* by shard: replies had of this batch */
	uint32_t *touched; /* the shards this batch asks, in order */
	uint32_t ntouched;
	uint32_t seq;
	struct plan plan[BATCH_MAX];
	int nplan;
	uint32_t *parts;   /* P_SPLIT: the shard of each part */
	uint32_t *keypart; /* the part of each key of a split MGET */
	size_t nparts, capparts, nkeys, capkeys;
	struct resp_arg *sub; /* a part's arguments */
	size_t capsub;
	/* the replies of the shards, by shard */
	struct act_msg **rep;
	void **owned;
	const char **rp;
	size_t *rlen, *rat;
	bool close_after;
	struct kv_client client; /* for its own commands (cmd.h) */
	bool loader;		 /* the replay of the append-only file */
	uint64_t file_off;	 /* loader: the next byte of the file to read */
	/* P_CROSS: the batch's last command, run in steps after the rest */
	const struct kv_cmd *cross;
	struct out cross_args; /* its arguments' bytes, then their lengths */
	int cross_argc;
};

/* One part's reply in a merge, and where its elements start. */
struct part {
	const char *r;
	size_t len, at;
};

/* kv_plan.c */
/* One command of a request: [cmd][argc][len x argc][bytes], its reply
 * in RESP3 if resp3. */
void kv_plan_pack(struct out *o, const struct kv_cmd *cmd, bool resp3, int argc,
		  const struct resp_arg *argv);
/*
 * Parses and plans up to BATCH_MAX commands of what was read; consumes
 * their bytes. RESP_MORE: all of it is planned (read more); RESP_CMD:
 * the batch is full; RESP_ERROR, RESP_NOMEM: the end of this client.
 */
enum resp_status kv_plan_batch(struct conn *c);

/* kv_merge.c */
/* A P_SPLIT command's reply, from its parts', into c->out. */
void kv_merge_replies(struct conn *c, const struct plan *pl);
/* SINTER, SUNION, SDIFF (kind) of the parts' sets as a set reply into o
 * (an array in RESP2; its order: kv_merge.c). False on no memory. */
bool kv_merge_set_combine(unsigned kind, const struct part *pt, uint32_t nparts,
			  struct out *o);
/* The next bulk of an array of bulks at *p: its bytes, *p past it. */
struct resp_arg kv_merge_next_bulk(const char **p);

/* kv_cross.c */
/* The batch's last command, across shards, in its steps; its reply goes
 * after the rest of the batch's. False when the client must go. */
bool kv_cross_run(struct conn *c);

/* kv_conn.c */
/* The next reply of shard s in this batch; NULL (and c->out failed) when
 * it cannot be had. */
const char *kv_conn_next_reply(struct conn *c, uint32_t s, size_t *len);
/* The command named `name` (a client's or an internal one) on shard s,
 * now, with that name as its argv[0]; its reply into rep. */
bool kv_conn_step(struct conn *c, uint32_t s, const char *name, int argc,
		  struct resp_arg *argv, struct out *rep);

#endif /* KV_CONN_H */
