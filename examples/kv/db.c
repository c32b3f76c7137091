/* SPDX-License-Identifier: MIT */
/* db.c - a shard's keyspace, and its objects made and freed (db.h). */
#include "db.h"

#include "aof.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t kv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- objects ----------------------------------------------------------- */

void *db_obj(const struct kv_entry *e)
{
	void *o;

	memcpy(&o, e->data + e->klen, sizeof(o));
	return o;
}

const char *db_type_name(enum kv_type type)
{
	static const char *const names[] = {
		[KV_STRING] = "string", [KV_LIST] = "list",
		[KV_HASH] = "hash",	[KV_SET] = "set",
		[KV_ZSET] = "zset",	[KV_STREAM] = "stream",
	};

	return type >= KV_STRING && type <= KV_STREAM ? names[type] : "none";
}

static void *obj_new(enum kv_type type)
{
	switch (type) {
	case KV_LIST:
		return list_new();
	case KV_HASH:
		return hash_new();
	case KV_SET:
		return set_new();
	case KV_ZSET:
		return zset_new();
	case KV_STREAM:
		return stream_new();
	case KV_STRING:
		break;
	}
	return NULL;
}

static void obj_free(enum kv_type type, void *o)
{
	switch (type) {
	case KV_LIST:
		list_free(o);
		break;
	case KV_HASH:
		hash_free(o);
		break;
	case KV_SET:
		set_free(o);
		break;
	case KV_ZSET:
		zset_free(o);
		break;
	case KV_STREAM:
		stream_free(o);
		break;
	case KV_STRING:
		break;
	}
}

/* ---- the append-only file's log --------------------------------------- */

void db_log(struct kv_db *db, int argc, const struct resp_arg *argv)
{
	db->logged = true;
	if (db->log && argc)
		aof_cmd(db->log, argc, argv);
}

void db_log_strs(struct kv_db *db, int argc, const char *const *words,
		 const size_t *lens)
{
	db->logged = true;
	if (db->log && argc)
		aof_strs(db->log, argc, words, lens);
}

void db_touch(struct kv_db *db, struct kv_entry *e)
{
	if (!db->snap || e->mark == db->epoch)
		return;
	aof_emit(db->snap, e, kv_key(e), e->klen);
	e->mark = db->epoch;
}

/* An expiry that removed e, logged as the DEL it was (redis's too). */
static void log_expired(struct kv_db *db, struct kv_entry *e)
{
	const char *w[2] = { "DEL", kv_key(e) };
	size_t l[2] = { 3, e->klen };

	if (db->log)
		aof_strs(db->log, 2, w, l);
}

void db_expire(struct kv_db *db, struct kv_entry *e)
{
	log_expired(db, e);
	db_delete(db, e);
	db->expired++;
}

/* ---- the keyspace ------------------------------------------------------ */

void db_init(struct kv_db *db)
{
	memset(db, 0, sizeof(*db));
	dict_init(&db->keys);
}

static void drop(struct kv_entry *e)
{
	if (e->type != KV_STRING)
		obj_free((enum kv_type)e->type, db_obj(e));
	free(e);
}

void db_flush(struct kv_db *db)
{
	dict_clear(&db->keys, drop);
	db->expires = 0;
	db->sweep_cursor = 0;
}

size_t db_count(const struct kv_db *db)
{
	return dict_count(&db->keys);
}

void db_delete(struct kv_db *db, struct kv_entry *e)
{
	if (e->expire_ms)
		db->expires--;
	dict_remove(&db->keys, e);
	drop(e);
}

struct kv_entry *db_find(struct kv_db *db, const char *k, size_t klen,
			 uint32_t hash)
{
	struct kv_entry *e = dict_find(&db->keys, k, klen, hash);

	if (e && e->expire_ms && !db->loading && e->expire_ms <= kv_now_ms()) {
		log_expired(db, e);
		db_delete(db, e);
		db->expired++;
		return NULL;
	}
	return e;
}

struct kv_entry *db_add(struct kv_db *db, const char *k, size_t klen,
			uint32_t hash, enum kv_type type, size_t vcap)
{
	struct kv_entry *e;
	void *o = NULL;

	if (type != KV_STRING) {
		o = obj_new(type);
		if (!o)
			return NULL;
		vcap = sizeof(o);
	}
	e = kv_entry_new(k, klen, hash, vcap);
	if (!e) {
		obj_free(type, o);
		return NULL;
	}
	e->type = (uint8_t)type;
	e->mark = db->epoch; /* not for a rewrite begun before it */
	if (o)
		memcpy(kv_val(e), &o, sizeof(o));
	dict_add(&db->keys, e);
	return e;
}

/* e copied into an entry of vcap value bytes, which takes its place. */
static struct kv_entry *move(struct kv_db *db, struct kv_entry *e, size_t vcap)
{
	struct kv_entry *ne = kv_entry_new(kv_key(e), e->klen, e->hash, vcap);

	if (!ne)
		return NULL;
	ne->expire_ms = e->expire_ms;
	ne->type = e->type;
	ne->mark = e->mark;
	ne->vlen = e->vlen < vcap ? e->vlen : (uint32_t)vcap;
	memcpy(kv_val(ne), kv_val(e), ne->vlen);
	dict_remove(&db->keys, e);
	free(e);
	dict_add(&db->keys, ne);
	return ne;
}

struct kv_entry *db_set_value(struct kv_db *db, struct kv_entry *e,
			      const void *v, size_t vlen)
{
	/* exact room, or what there is unless it wastes more than half */
	if (vlen > e->vcap || (e->vcap > 64 && vlen < e->vcap / 2)) {
		e = move(db, e, vlen);
		if (!e)
			return NULL;
	}
	memcpy(kv_val(e), v, vlen);
	e->vlen = (uint32_t)vlen;
	return e;
}

struct kv_entry *db_append(struct kv_db *db, struct kv_entry *e, const void *v,
			   size_t n)
{
	size_t want = (size_t)e->vlen + n, cap;

	if (want > e->vcap) {
		/* doubling, so that n appends cost O(n) copies in all */
		cap = (size_t)e->vcap * 2 > want ? (size_t)e->vcap * 2 : want;
		if (cap > UINT32_MAX)
			cap = want;
		e = move(db, e, cap);
		if (!e)
			return NULL;
	}
	if (v)
		memcpy(kv_val(e) + e->vlen, v, n);
	else
		memset(kv_val(e) + e->vlen, 0, n);
	e->vlen = (uint32_t)want;
	return e;
}

/* A copy of e (its value bytes, or its object's pointer, and its expiry)
 * named k: NULL on no memory. */
static struct kv_entry *renamed(const struct kv_entry *e, const char *k,
				size_t klen, uint32_t hash)
{
	struct kv_entry *ne = kv_entry_new(k, klen, hash, e->vcap);

	if (!ne)
		return NULL;
	ne->expire_ms = e->expire_ms;
	ne->type = e->type;
	ne->vlen = e->vlen;
	ne->mark = e->mark;
	memcpy(kv_val(ne), e->data + e->klen,
	       e->type == KV_STRING ? e->vlen : sizeof(void *));
	return ne;
}

struct kv_entry *db_rename(struct kv_db *db, struct kv_entry *e, const char *k,
			   size_t klen, uint32_t hash)
{
	struct kv_entry *ne = renamed(e, k, klen, hash);

	if (!ne)
		return NULL;
	ne->mark = db->epoch; /* a new name: the log makes it */
	dict_remove(&db->keys, e);
	free(e); /* its object, if any, is ne's now */
	dict_add(&db->keys, ne);
	return ne;
}

struct kv_entry *db_detach(struct kv_db *db, struct kv_entry *e)
{
	if (e->expire_ms)
		db->expires--;
	dict_remove(&db->keys, e);
	return e;
}

struct kv_entry *db_attach(struct kv_db *db, struct kv_entry *e, const char *k,
			   size_t klen, uint32_t hash)
{
	struct kv_entry *ne = renamed(e, k, klen, hash);

	if (!ne)
		return NULL;
	ne->mark = db->epoch; /* a new name: the log makes it */
	free(e);
	if (ne->expire_ms)
		db->expires++;
	dict_add(&db->keys, ne);
	return ne;
}

void db_entry_free(struct kv_entry *e)
{
	drop(e);
}

void db_set_expire(struct kv_db *db, struct kv_entry *e, int64_t at_ms)
{
	if (e->expire_ms && !at_ms)
		db->expires--;
	else if (!e->expire_ms && at_ms)
		db->expires++;
	e->expire_ms = at_ms;
}

struct sweep {
	struct kv_db *db;
	int64_t now;
	size_t removed;
};

static void sweep_one(struct kv_entry *e, void *ctx)
{
	struct sweep *s = ctx;

	if (e->expire_ms && e->expire_ms <= s->now) {
		log_expired(s->db, e);
		db_delete(s->db, e);
		s->db->expired++;
		s->removed++;
	}
}

size_t db_sweep(struct kv_db *db, size_t buckets)
{
	struct sweep s = { db, kv_now_ms(), 0 };

	if (!db->expires || db->loading)
		return 0;
	dict_scan(&db->keys, &db->sweep_cursor, buckets, sweep_one, &s);
	dict_shrink(&db->keys);
	return s.removed;
}
