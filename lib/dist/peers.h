/* SPDX-License-Identifier: MIT */
/*
 * peers.h - the other nodes this runtime knows, and their processes' pids
 * as act_pids (doc/design/distribution.md "Pids").
 *
 * A local pid has bit 63 clear (proc.h: index | generation, the
 * generation at most 63 - idx_bits bits). A remote pid has it set:
 *
 *   63      62 .. 52        51 .. 0
 *   1       node (1..2047)  entry in that node's pid table
 *
 * A node is a name ("alive@host", printable ASCII, as host names are),
 * given its number the first time this
 * runtime meets it (a connection, a send to it, a pid of it in a term)
 * and keeping it for the runtime's life: pids name it, and a pid must
 * never come to name another node's process. Past ACT__DIST_NODES_MAX
 * names a new one is refused (-ENOSPC), with every known node still
 * served.
 *
 * A node's pid table holds each remote process met, as the wire names it
 * (ID, Serial, Creation of NEW_PID_EXT), at an entry that never moves
 * and is never reused: an act_pid of it stays valid (and stays that
 * process's, or a dead one's) for ever. ACT__DIST_PIDS_MAX entries a
 * node at most; past them a term naming a new pid of that node is
 * refused (its frame dropped, with a log line), as a bound on what a
 * peer can make this runtime hold.
 *
 * Concurrency: a node's name, number and table pages are set before the
 * node is published (a release store of nodes[i], read with acquire);
 * entries are appended under the node's lock and published by a release
 * store of `n`, so that a reader by act_pid (act_pid_format, the
 * connection process encoding a pid) needs no lock.
 */
#ifndef ACT_DIST_PEERS_H
#define ACT_DIST_PEERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "actors.h"

#define ACT__PID_REMOTE (1ull << 63)
#define ACT__PID_NODE_SHIFT 52
#define ACT__DIST_NODES_MAX 2047u
#define ACT__PID_ENTRY_MASK ((1ull << ACT__PID_NODE_SHIFT) - 1)

/* Remote pids of one node at most: 1,048,576 (24 MiB of table). */
#define ACT__DIST_PIDS_MAX (1u << 20)
/* The table's pages: entries of a page never move. */
#define ACT__DIST_PAGE_BITS 12
#define ACT__DIST_PAGE (1u << ACT__DIST_PAGE_BITS)
#define ACT__DIST_PAGES (ACT__DIST_PIDS_MAX / ACT__DIST_PAGE)

/* A node name's longest form, as Erlang's: 255 bytes. */
#define ACT__DIST_NAME_MAX 255

static inline bool act__peers_is_remote(act_pid p)
{
	return (p.id & ACT__PID_REMOTE) != 0;
}

static inline uint32_t act__peers_pid_node(act_pid p)
{
	return (uint32_t)((p.id >> ACT__PID_NODE_SHIFT) & 0x7ff);
}

static inline uint64_t act__peers_pid_entry(act_pid p)
{
	return p.id & ACT__PID_ENTRY_MASK;
}

static inline act_pid act__peers_pid_make(uint32_t node, uint64_t entry)
{
	return (act_pid){ ACT__PID_REMOTE |
			  ((uint64_t)node << ACT__PID_NODE_SHIFT) | entry };
}

/* A remote process as the wire names it (NEW_PID_EXT). */
struct act__rpid {
	uint32_t id, serial, creation;
};

struct act__peer {
	/* its connection process's pid (lib/dist/route.c), 0: none; set
	 * when a connection is tried, cleared when that process exits */
	_Atomic uint64_t proxy;
	_Atomic uint32_t up; /* 1: the handshake is done (lib/dist/conn.c) */
	_Atomic int32_t fd1; /* its socket + 1, 0: none; what the runtime's
			      * stop closes (route.c) */
	/* its connection processes' memory (lib/dist/conn.c), set while
	 * they live: what the runtime's stop frees of processes it
	 * discards without their exit handlers */
	_Atomic(void *) proxy_mem;
	_Atomic(void *) reader_mem;
	/* traffic (ACTORS_STATS, act_dump): frames, their bytes, the
	 * socket's reads and writes that moved them, ticks missed (a
	 * silent peer declared down) */
	_Atomic uint64_t msgs_in, msgs_out, bytes_in, bytes_out;
	_Atomic uint64_t reads, writes;
	/* its reader's waits for a batch (lib/dist/linger.h): the reads
	 * after one, the trials of waiting and those kept */
	_Atomic uint64_t lingers;
	_Atomic uint32_t linger_trials, linger_kept;
	_Atomic uint32_t tick_misses;
	/* the clock at its reader's last read (or at the connection's
	 * start): the proxy's watch for a silent peer (lib/dist/conn.c) */
	_Atomic int64_t last_in;
	uint32_t num; /* 1..ACT__DIST_NODES_MAX */
	uint8_t name_len;
	char name[ACT__DIST_NAME_MAX + 1];
	_Atomic uint32_t lock; /* act__spin_lock: appends and the index */
	_Atomic uint32_t n;    /* entries published */
	struct act__rpid *pages[ACT__DIST_PAGES];
	/* (id, serial, creation) -> entry + 1, open addressing; under lock */
	uint32_t *index;
	uint32_t index_cap; /* a power of two, or 0 */
};

/* Name -> number: open addressing over twice the most nodes, so that a
 * probe ends at an empty bucket; under the table's lock. */
#define ACT__DIST_NAME_BUCKETS 4096u

struct act__peers {
	_Atomic uint32_t lock; /* act__spin_lock: new nodes, the name index */
	uint32_t n;	       /* nodes numbered, 1..n; under lock */
	_Atomic(struct act__peer *) node[ACT__DIST_NODES_MAX + 1];
	uint16_t by_name[ACT__DIST_NAME_BUCKETS]; /* number, 0: empty */
};

void act__peers_init(struct act__peers *t);
void act__peers_fini(struct act__peers *t);

/* The node named name (len bytes, not NUL-terminated), numbered now if
 * it is new: 0 with *out set; -EINVAL for a name that is not
 * "alive@host" within ACT__DIST_NAME_MAX bytes, -ENOSPC past
 * ACT__DIST_NODES_MAX nodes, -ENOMEM. */
int act__peers_get(struct act__peers *t, const char *name, size_t len,
		   struct act__peer **out);
/* The node named name if it has a number already (nothing is added: a
 * peer not yet authenticated names nodes with this), else NULL */
struct act__peer *act__peers_find(struct act__peers *t, const char *name,
				  size_t len);
/* This node's own name is the first node (act__route_start): its pids
 * of another creation, an earlier run's, are of no process alive */
#define ACT__PEERS_SELF 1u
/* The node numbered num, or NULL. Lock-free. */
struct act__peer *act__peers_at(struct act__peers *t, uint32_t num);

/* The act_pid of r on node nd, given an entry now if it is new: 0, or
 * -ENOSPC past ACT__DIST_PIDS_MAX, -ENOMEM. */
int act__peers_pid_get(struct act__peer *nd, const struct act__rpid *r,
		       act_pid *out);
/* What remote pid p names: true with *r set, false for a pid of no
 * known node or entry. Lock-free. */
bool act__peers_pid_find(struct act__peers *t, act_pid p, struct act__rpid *r,
			 struct act__peer **nd);

#endif /* ACT_DIST_PEERS_H */
