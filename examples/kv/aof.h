/* SPDX-License-Identifier: MIT */
/*
 * aof.h - the append-only file's records, as redis 7.0 writes its
 * old-style AOF (one file of RESP commands, which redis-check-aof and
 * redis-server itself can read):
 *
 *   aof_cmd    one command as a multibulk record;
 *   aof_emit   the commands that rebuild one key (a rewrite's snapshot,
 *              or a key handed to another shard): SET, RPUSH, HSET,
 *              SADD, ZADD or XADD and XSETID, in batches of 64 items,
 *              then PEXPIREAT for its TTL;
 *   aof_scan   how much of a file is whole commands, for the load: a
 *              record cut short at the end (a crash mid-write) is found
 *              and its length given, as redis's aof-load-truncated.
 *
 * What a shard logs, and when it logs its own rewrite of a command
 * instead (relative times made absolute, random picks made explicit,
 * lazy expiry as DEL), is db.h's db_log; the file itself belongs to
 * kv_aof.c's process.
 */
#ifndef KV_AOF_H
#define KV_AOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"
#include "out.h"
#include "resp.h"

/* The first record of every file: redis's own (it logs the database). */
#define AOF_HEADER "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"

void aof_cmd(struct out *o, int argc, const struct resp_arg *argv);
/* aof_cmd of words[0..argc), each lens[i] long (lens NULL: C strings). */
void aof_strs(struct out *o, int argc, const char *const *words,
	      const size_t *lens);

/* Commands that rebuild key e under the name k (its own or a new one). */
void aof_emit(struct out *o, struct kv_entry *e, const char *k, size_t klen);

enum aof_state {
	AOF_WHOLE,     /* every byte is a whole command */
	AOF_TRUNCATED, /* whole up to *good; the rest a command cut short */
	AOF_CORRUPT,   /* not RESP at *good: *error says what */
};

/* Scans fd from its start: the commands, and where the whole ones end. */
enum aof_state aof_scan(int fd, uint64_t *good, uint64_t *commands, char *error,
			size_t errlen);

#endif /* KV_AOF_H */
