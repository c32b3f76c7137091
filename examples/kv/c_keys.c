/* SPDX-License-Identifier: MIT */
/*
 * c_keys.c - the kv example's commands on keys of any type (cmd.h), with
 * redis-server 7.0's replies: the same checks in the same order, so that
 * the same bad command gets the same error. Redis 7.0's db.c and
 * expire.c are the reference.
 */
#include "cmd_impl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "aof.h"
#include "glob.h"

enum { EXP_NX = 1 << 0, EXP_XX = 1 << 1, EXP_GT = 1 << 2, EXP_LT = 1 << 3 };

static void c_dbsize(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	(void)argc;
	(void)v;
	out_int(o, (long long)db_count(db));
}

static void c_flushall(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	if (argc > 2 ||
	    (argc == 2 && !is(&v[1], "sync") && !is(&v[1], "async"))) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	db_flush(db);
	out_status(o, KV_OK);
}

static void c_del(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	long long n = 0;
	int i;

	for (i = 1; i < argc; i++) {
		struct kv_entry *e = lookup(db, &v[i]);

		if (e) {
			db_delete(db, e);
			n++;
		}
	}
	out_int(o, n);
}

static void c_exists(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long n = 0;
	int i;

	for (i = 1; i < argc; i++)
		n += lookup(db, &v[i]) != NULL;
	out_int(o, n);
}

/* redis's parseExtendedExpireArgumentsOrReply: EXPIRE's NX, XX, GT, LT. */
static bool expire_options(int argc, const struct resp_arg *v, unsigned *f,
			   struct out *o)
{
	static const char *const words[] = { "nx", "xx", "gt", "lt" };
	size_t i;
	int j;

	for (j = 3; j < argc; j++) {
		for (i = 0; i < 4 && !is(&v[j], words[i]); i++)
			;
		if (i == 4) {
			out_errorf(o, "ERR Unsupported option %.*s",
				   ARGZ(&v[j]));
			return false;
		}
		*f |= 1u << i;
	}
	if ((*f & EXP_NX) && (*f & (EXP_XX | EXP_GT | EXP_LT))) {
		out_error(o, "ERR NX and XX, GT or LT options at the same "
			     "time are not compatible");
		return false;
	}
	if ((*f & EXP_GT) && (*f & EXP_LT)) {
		out_error(o, "ERR GT and LT options at the same time are not "
			     "compatible");
		return false;
	}
	return true;
}

/* v[2] in `unit` ms from `base` (now, or 0 for the *AT commands) as an
 * absolute time in ms, or false and the error naming the command. */
static bool expire_when(const struct resp_arg *v, long long base,
			long long unit, const char *cmd, long long *when,
			struct out *o)
{
	if (!getll(&v[2], when)) {
		out_error(o, KV_ERR_NOTINT);
		return false;
	}
	/* negative times are allowed (the key goes): only overflow is not */
	if ((unit == 1000 &&
	     (*when > LLONG_MAX / 1000 || *when < LLONG_MIN / 1000)) ||
	    *when * unit > LLONG_MAX - base) {
		out_errorf(o, "ERR invalid expire time in '%s' command", cmd);
		return false;
	}
	*when = *when * unit + base;
	return true;
}

/* The append-only file's record "CMD key" or "CMD key ms". */
static void log_key(struct kv_db *db, const char *cmd, struct kv_entry *e,
		    const long long *ms)
{
	char buf[24];
	const char *w[3] = { cmd, kv_key(e), buf };
	size_t l[3] = { strlen(cmd), e->klen, ms ? out_lltoa(buf, *ms) : 0 };

	db_log_strs(db, ms ? 3 : 2, w, l);
}

/* redis's expireGenericCommand: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT,
 * logged as PEXPIREAT at its absolute time, or as DEL. */
static void expire_generic(struct kv_db *db, int argc, const struct resp_arg *v,
			   struct out *o, bool at, long long unit,
			   const char *cmd)
{
	long long when, now = kv_now_ms(), cur;
	struct kv_entry *e;
	unsigned f = 0;

	if (!expire_options(argc, v, &f, o) ||
	    !expire_when(v, at ? 0 : now, unit, cmd, &when, o))
		return;
	db_log(db, 0, NULL); /* what it did, below, or nothing */
	e = lookup(db, &v[1]);
	if (!e) {
		out_int(o, 0);
		return;
	}
	cur = e->expire_ms ? e->expire_ms : -1;
	if (((f & EXP_NX) && cur != -1) || ((f & EXP_XX) && cur == -1) ||
	    ((f & EXP_GT) && (when <= cur || cur == -1)) ||
	    ((f & EXP_LT) && cur != -1 && when >= cur)) {
		out_int(o, 0);
		return;
	}
	/* already past: deleted, as redis does (not while the file is
	 * replayed, where the key may yet be read by what follows) */
	if (when <= now && !db->loading) {
		log_key(db, "DEL", e, NULL);
		db_delete(db, e);
	} else {
		db_set_expire(db, e, when);
		log_key(db, "PEXPIREAT", e, &when);
	}
	out_int(o, 1);
}

static void c_expire(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	expire_generic(db, argc, v, o, false, 1000, "expire");
}

static void c_pexpire(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	expire_generic(db, argc, v, o, false, 1, "pexpire");
}

static void c_expireat(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	expire_generic(db, argc, v, o, true, 1000, "expireat");
}

static void c_pexpireat(struct kv_db *db, int argc, const struct resp_arg *v,
			struct out *o)
{
	expire_generic(db, argc, v, o, true, 1, "pexpireat");
}

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: ms, and absolute or left. */
static void ttl_generic(struct kv_db *db, const struct resp_arg *v,
			struct out *o, bool ms, bool abs)
{
	struct kv_entry *e = lookup(db, &v[1]);
	long long ttl;

	if (!e) {
		out_int(o, -2);
		return;
	}
	if (!e->expire_ms) {
		out_int(o, -1);
		return;
	}
	ttl = abs ? e->expire_ms : e->expire_ms - kv_now_ms();
	if (ttl < 0)
		ttl = 0;
	out_int(o, ms ? ttl : (ttl + 500) / 1000);
}

static void c_ttl(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	(void)argc;
	ttl_generic(db, v, o, false, false);
}

static void c_pttl(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)argc;
	ttl_generic(db, v, o, true, false);
}

static void c_expiretime(struct kv_db *db, int argc, const struct resp_arg *v,
			 struct out *o)
{
	(void)argc;
	ttl_generic(db, v, o, false, true);
}

static void c_pexpiretime(struct kv_db *db, int argc, const struct resp_arg *v,
			  struct out *o)
{
	(void)argc;
	ttl_generic(db, v, o, true, true);
}

static void c_persist(struct kv_db *db, int argc, const struct resp_arg *v,
		      struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!e || !e->expire_ms) {
		out_int(o, 0);
		return;
	}
	db_set_expire(db, e, 0);
	out_int(o, 1);
}

static void c_type(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	out_status(o, e ? db_type_name((enum kv_type)e->type) : "none");
}

static void c_keys(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_dict *d = &db->keys;
	bool all = v[1].len == 1 && v[1].p[0] == '*';
	int64_t now = kv_now_ms();
	struct kv_entry *e;
	size_t mark = o->len, w, i;
	long long n = 0;

	(void)argc;
	for (w = 0; w < 2; w++) {
		for (i = 0; i < d->size[w]; i++) {
			for (e = d->t[w][i]; e; e = e->next) {
				if (e->expire_ms && e->expire_ms <= now)
					continue; /* as redis: not removed */
				if (!all && !kv_glob(v[1].p, v[1].len,
						     kv_key(e), e->klen, false))
					continue;
				out_bulk(o, kv_key(e), e->klen);
				n++;
			}
		}
	}
	out_array_at(o, mark, n);
}

bool kv_scan_cursor(const struct resp_arg *a, size_t *cursor, struct out *o)
{
	char buf[32], *end;
	unsigned long c;

	if (a->len >= sizeof(buf))
		goto bad; /* past any unsigned long, or not a number */
	memcpy(buf, a->p, a->len);
	buf[a->len] = '\0';
	errno = 0;
	c = strtoul(buf, &end, 10);
	/* a NUL in it ends it, as in redis's C string */
	if (isspace((unsigned char)buf[0]) || *end || errno == ERANGE)
		goto bad;
	*cursor = c;
	return true;
bad:
	out_error(o, "ERR invalid cursor");
	return false;
}

struct scan {
	struct kv_entry **e;
	size_t n, cap;
	bool failed;
};

static void scan_one(struct kv_entry *e, void *ctx)
{
	struct scan *s = ctx;
	struct kv_entry **p;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		p = realloc(s->e, s->cap * sizeof(*p));
		if (!p) {
			s->failed = true;
			return;
		}
		s->e = p;
	}
	s->e[s->n++] = e;
}

/* SCAN's options: MATCH, COUNT (1 or more), TYPE. */
static bool scan_options(int argc, const struct resp_arg *v, long long *count,
			 const struct resp_arg **match,
			 const struct resp_arg **type, struct out *o)
{
	int j;

	for (j = 2; j < argc; j++) {
		if (is(&v[j], "count") && j + 1 < argc) {
			if (!getll(&v[++j], count)) {
				out_error(o, KV_ERR_NOTINT);
				return false;
			}
			if (*count < 1) {
				out_error(o, KV_ERR_SYNTAX);
				return false;
			}
		} else if (is(&v[j], "match") && j + 1 < argc) {
			*match = &v[++j];
		} else if (is(&v[j], "type") && j + 1 < argc) {
			*type = &v[++j];
		} else {
			out_error(o, KV_ERR_SYNTAX);
			return false;
		}
	}
	if (*match && (*match)->len == 1 && (*match)->p[0] == '*')
		*match = NULL; /* everything */
	return true;
}

/*
 * SCAN on this shard (kv_plan.c maps a client's cursor to a shard and
 * that shard's cursor): about COUNT keys a call, at most 10 x COUNT
 * buckets visited, as redis; MATCH and TYPE filter what was found, and
 * an expired key found is removed.
 */
static void c_scan(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	const struct resp_arg *match = NULL, *type = NULL;
	struct scan s = { NULL, 0, 0, false };
	long long count = 10, visits;
	size_t cursor, i, mark;
	struct kv_entry *e;
	long long n = 0;
	char cur[24];

	if (!kv_scan_cursor(&v[1], &cursor, o) ||
	    !scan_options(argc, v, &count, &match, &type, o))
		return;
	visits = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
	do
		cursor = dict_scan_rb(&db->keys, cursor, scan_one, &s);
	while (cursor && visits-- && (long long)s.n < count && !s.failed);
	if (s.failed) {
		free(s.e);
		nomem(o);
		return;
	}
	out_array(o, 2);
	out_bulk(o, cur, (size_t)snprintf(cur, sizeof(cur), "%zu", cursor));
	mark = o->len;
	for (i = 0; i < s.n; i++) {
		e = s.e[i];
		if ((match && !kv_glob(match->p, match->len, kv_key(e), e->klen,
				       false)) ||
		    (type && strcasecmp_arg(type, db_type_name(e->type))))
			continue;
		if (e->expire_ms && e->expire_ms <= kv_now_ms() &&
		    !db->loading) {
			db_expire(db, e);
			continue;
		}
		out_bulk(o, kv_key(e), e->klen);
		n++;
	}
	out_array_at(o, mark, n);
	free(s.e);
}

/* RENAME and RENAMENX with both keys on this shard (kv_cross.c takes a
 * key from one shard to another with TAKE and PUT). */
static void rename_generic(struct kv_db *db, const struct resp_arg *v, bool nx,
			   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]), *d;

	if (!e) {
		out_error(o, "ERR no such key");
		return;
	}
	if (v[1].len == v[2].len && !memcmp(v[1].p, v[2].p, v[1].len)) {
		nx ? out_int(o, 0) : out_status(o, KV_OK);
		return;
	}
	d = lookup(db, &v[2]);
	if (d && nx) {
		out_int(o, 0);
		return;
	}
	if (d)
		db_delete(db, d);
	if (!db_rename(db, e, v[2].p, v[2].len, hash_of(&v[2])))
		nomem(o);
	else
		nx ? out_int(o, 1) : out_status(o, KV_OK);
}

static void c_rename(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	(void)argc;
	rename_generic(db, v, false, o);
}

static void c_renamenx(struct kv_db *db, int argc, const struct resp_arg *v,
		       struct out *o)
{
	(void)argc;
	rename_generic(db, v, true, o);
}

/*
 * TAKE key and PUT key entry, the halves of a RENAME across shards (and
 * only that: KV_INTERNAL, no client can name them). TAKE detaches the
 * key's entry and replies its address; PUT attaches that entry under its
 * new name, replacing what was there. The entry is malloc'd memory that
 * was the source shard's and is the destination's after PUT: handed
 * over, not copied, whatever its size.
 */
static void c_take(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	db_log(db, 0, NULL); /* never as it is sent: TAKE and PUT are ours */
	if (!e) {
		out_null(o);
		return;
	}
	log_key(db, "DEL", e, NULL);
	db_detach(db, e);
	out_bulk(o, &e, sizeof(e));
}

static void c_put(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o)
{
	struct kv_entry *e, *d, *ne;

	(void)argc;
	db_log(db, 0, NULL); /* never as it is sent: TAKE and PUT are ours */
	if (v[2].len != sizeof(e)) {
		out_error(o, "ERR PUT: not an entry");
		return;
	}
	memcpy(&e, v[2].p, sizeof(e));
	d = lookup(db, &v[1]);
	if (d) {
		log_key(db, "DEL", d, NULL);
		db_delete(db, d);
	}
	ne = db_attach(db, e, v[1].p, v[1].len, hash_of(&v[1]));
	if (ne) {
		if (db->log) /* the value itself: the other shard has it no more */
			aof_emit(db->log, ne, kv_key(ne), ne->klen);
		out_status(o, KV_OK);
	} else {
		db_entry_free(e);
		nomem(o);
	}
}

const struct kv_cmd kv_cmds_keys[] = {
	KV_CMD("dbsize", 1, 0, 0, KV_EVERY, KV_MERGE_SUM, c_dbsize),
	KV_CMD("del", -2, 1, 1, KV_MULTI | KV_WRITE, KV_MERGE_SUM, c_del),
	KV_CMD("exists", -2, 1, 1, KV_MULTI, KV_MERGE_SUM, c_exists),
	KV_CMD("expire", -3, 1, 0, KV_WRITE, 0, c_expire),
	KV_CMD("expireat", -3, 1, 0, KV_WRITE, 0, c_expireat),
	KV_CMD("expiretime", 2, 1, 0, 0, 0, c_expiretime),
	KV_CMD("flushdb", -1, 0, 0, KV_EVERY | KV_WRITE, KV_MERGE_OK,
	       c_flushall),
	KV_CMD("flushall", -1, 0, 0, KV_EVERY | KV_WRITE, KV_MERGE_OK,
	       c_flushall),
	KV_CMD("keys", 2, 0, 0, KV_EVERY, KV_MERGE_CONCAT, c_keys),
	KV_CMD("persist", 2, 1, 0, KV_WRITE, 0, c_persist),
	KV_CMD("pexpire", -3, 1, 0, KV_WRITE, 0, c_pexpire),
	KV_CMD("pexpireat", -3, 1, 0, KV_WRITE, 0, c_pexpireat),
	KV_CMD("pexpiretime", 2, 1, 0, 0, 0, c_pexpiretime),
	KV_CMD("pttl", 2, 1, 0, 0, 0, c_pttl),
	KV_CMD("put", 3, 1, 0, KV_WRITE | KV_INTERNAL, 0, c_put),
	KV_CMD_KEYS("rename", 3, 1, 2, 1, KV_WRITE | KV_CROSS, c_rename),
	KV_CMD_KEYS("renamenx", 3, 1, 2, 1, KV_WRITE | KV_CROSS, c_renamenx),
	KV_CMD("scan", -2, 0, 0, 0, KV_MERGE_SCAN, c_scan),
	KV_CMD("take", 2, 1, 0, KV_WRITE | KV_INTERNAL, 0, c_take),
	KV_CMD("touch", -2, 1, 1, KV_MULTI, KV_MERGE_SUM, c_exists),
	KV_CMD("ttl", 2, 1, 0, 0, 0, c_ttl),
	KV_CMD("type", 2, 1, 0, 0, 0, c_type),
	KV_CMD("unlink", -2, 1, 1, KV_MULTI | KV_WRITE, KV_MERGE_SUM, c_del),
	{ .name = NULL },
};
