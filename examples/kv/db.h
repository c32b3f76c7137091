/* SPDX-License-Identifier: MIT */
/*
 * db.h - one shard's keyspace: keys to strings and to objects (lists,
 * hashes, sets, sorted sets, streams), with expiry lazy on access and a
 * bounded sweep (db_sweep) for the keys no one reads again.
 *
 * A string's bytes live in its key's entry; an object's pointer does,
 * and the object is made and freed with its key (db_add, db_delete).
 */
#ifndef KV_DB_H
#define KV_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"
#include "hash.h"
#include "list.h"
#include "set.h"
#include "stream.h"
#include "zset.h"

struct kv_db {
	struct kv_dict keys;
	size_t expires; /* keys with an expiry */
	size_t sweep_cursor;
	uint64_t expired; /* keys removed by expiry, lazily or swept */
	/*
	 * The append-only file (aof.h), NULL when it is off: the records of
	 * what this batch changed. A write command is logged as it was
	 * sent, unless it logged a form of its own (db_log: relative times
	 * made absolute, random picks made explicit) or nothing, which sets
	 * logged. While the file is replayed (loading) nothing expires, so
	 * that each command meets the keys it met when it ran.
	 */
	struct out *log;
	bool logged, loading;
	/*
	 * A rewrite in progress: its snapshot of this shard is made a few
	 * keys at a time, between batches. A key whose mark is not epoch is
	 * not in it yet, and is put there (db_touch) before a command may
	 * change it, so that the snapshot holds every key as it was before
	 * the first command that the file after the snapshot logs on it.
	 * NULL snap: no rewrite; keys made meanwhile are marked at once.
	 */
	struct out *snap;
	uint8_t epoch;
};

/* Log a command's own form for it (no-op when the file is off); with
 * argc 0 only that it logged nothing. */
void db_log(struct kv_db *db, int argc, const struct resp_arg *argv);
void db_log_strs(struct kv_db *db, int argc, const char *const *words,
		 const size_t *lens);
/* e removed for its past expiry, logged as a DEL and counted. */
void db_expire(struct kv_db *db, struct kv_entry *e);
/* Put key e into the rewrite's snapshot if it is not there yet. */
void db_touch(struct kv_db *db, struct kv_entry *e);

/* unix time in ms */
int64_t kv_now_ms(void);

void db_init(struct kv_db *db);
void db_flush(struct kv_db *db);
size_t db_count(const struct kv_db *db);

/* The live entry of key (an expired one is removed first), or NULL. */
struct kv_entry *db_find(struct kv_db *db, const char *k, size_t klen,
			 uint32_t hash);
/* Removes e from db and frees it with its object. */
void db_delete(struct kv_db *db, struct kv_entry *e);
/* A new entry of type, expiry 0, added to db: a string with vcap value
 * bytes, or a new empty object of the type. NULL on no memory. The key
 * must not be in db. */
struct kv_entry *db_add(struct kv_db *db, const char *k, size_t klen,
			uint32_t hash, enum kv_type type, size_t vcap);
/* e's string value set to v (e may move: the new entry is returned, NULL
 * on no memory with e as it was). */
struct kv_entry *db_set_value(struct kv_db *db, struct kv_entry *e,
			      const void *v, size_t vlen);
/* e's string value with n bytes appended, zeros if v is NULL (e may
 * move, NULL on no memory). */
struct kv_entry *db_append(struct kv_db *db, struct kv_entry *e, const void *v,
			   size_t n);
void db_set_expire(struct kv_db *db, struct kv_entry *e, int64_t at_ms);
/* e under the name k (not in db), with its value, object and expiry: the
 * new entry, or NULL on no memory with e as it was. */
struct kv_entry *db_rename(struct kv_db *db, struct kv_entry *e, const char *k,
			   size_t klen, uint32_t hash);

/*
 * A key handed from one shard to another (RENAME across shards): e taken
 * out of db whole (db_detach), then put into the other db under the name
 * k, not there (db_attach: the new entry, or NULL on no memory with e
 * still detached). Until it is attached the entry belongs to whoever
 * holds it, who frees it with db_entry_free if it cannot be.
 */
struct kv_entry *db_detach(struct kv_db *db, struct kv_entry *e);
struct kv_entry *db_attach(struct kv_db *db, struct kv_entry *e, const char *k,
			   size_t klen, uint32_t hash);
void db_entry_free(struct kv_entry *e);

/* Removes expired keys among up to `buckets` buckets; returns them. */
size_t db_sweep(struct kv_db *db, size_t buckets);

/* The type's name, as TYPE answers it: "string", "list", ... */
const char *db_type_name(enum kv_type type);

/* The object behind an entry of that type. */
void *db_obj(const struct kv_entry *e);
static inline struct kv_list *db_list(const struct kv_entry *e)
{
	return db_obj(e);
}
static inline struct kv_hash *db_hash(const struct kv_entry *e)
{
	return db_obj(e);
}
static inline struct kv_set *db_set(const struct kv_entry *e)
{
	return db_obj(e);
}
static inline struct kv_zset *db_zset(const struct kv_entry *e)
{
	return db_obj(e);
}
static inline struct kv_stream *db_stream(const struct kv_entry *e)
{
	return db_obj(e);
}

#endif /* KV_DB_H */
