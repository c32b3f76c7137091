/* SPDX-License-Identifier: MIT */
/*
 * c_stream.c - the kv example's stream commands (cmd.h): XADD, XLEN,
 * XRANGE, XREVRANGE, XDEL and XTRIM, with redis-server 7.0's replies:
 * the same checks in the same order, so that the same bad command gets
 * the same error. Redis 7.0's t_stream.c is the reference; no consumer
 * groups, no XREAD.
 *
 * redis reads options and IDs as C strings (an embedded NUL ends them);
 * so do these parsers, through cstr().
 */
#include "cmd_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define ID_MAX_LEN 127		       /* redis's ID buffer, less its NUL */
#define ELEMENTS_MAX ((size_t)1 << 30) /* STREAM_LISTPACK_MAX_SIZE */
#define APPROX_LIMIT 10000	       /* 100 * stream-node-max-entries: "~" */

#define ERR_BAD_ID "ERR Invalid stream ID specified as stream command argument"
#define ERR_BOTH                                                               \
	"ERR syntax error, MAXLEN and MINID options at the same time are not " \
	"compatible"

static const struct kv_sid SID_MAX = { UINT64_MAX, UINT64_MAX };

/* ---- arguments as redis reads them --------------------------------------- */

/* a's bytes up to its first NUL, NUL-ended, in buf of cap bytes: false
 * if they do not fit. */
static bool cstr(const struct resp_arg *a, char *buf, size_t cap)
{
	const char *z = memchr(a->p, 0, a->len);
	size_t n = z ? (size_t)(z - a->p) : a->len;

	if (a->len >= cap)
		return false;
	memcpy(buf, a->p, n);
	buf[n] = '\0';
	return true;
}

/* a as a C string is word, any case. */
static bool cis(const struct resp_arg *a, const char *word)
{
	char buf[16];

	return cstr(a, buf, sizeof(buf)) && !strcasecmp(buf, word);
}

/* redis's string2ull: its integers, then what strtoull takes whole. */
static bool str2ull(const char *s, uint64_t *v)
{
	long long ll;
	char *end = NULL;

	if (resp_string2ll(s, strlen(s), &ll)) {
		*v = (uint64_t)ll;
		return ll >= 0;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno != EINVAL && errno != ERANGE && *s && !*end;
}

/*
 * An ID, as redis's streamGenericParseIDOrReply: "-", "+" (not when
 * strict), "ms", "ms-seq", and "ms-*" where seq_given is not NULL (it is
 * set false for that form). A missing seq is missing_seq.
 */
static bool parse_id(const struct resp_arg *a, struct kv_sid *id,
		     uint64_t missing_seq, bool strict, bool *seq_given)
{
	char buf[ID_MAX_LEN + 1], *dash;

	if (!cstr(a, buf, sizeof(buf)))
		return false;
	if (strict && (buf[0] == '-' || buf[0] == '+') && !buf[1])
		return false;
	if (seq_given)
		*seq_given = true;
	if ((buf[0] == '-' || buf[0] == '+') && !buf[1]) {
		*id = buf[0] == '-' ? (struct kv_sid){ 0, 0 } : SID_MAX;
		return true;
	}
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (!str2ull(buf, &id->ms))
		return false;
	id->seq = missing_seq;
	if (dash && seq_given && !strcmp(dash, "*")) {
		id->seq = 0;
		*seq_given = false;
	} else if (dash && !str2ull(dash, &id->seq)) {
		return false;
	}
	return true;
}

static bool id_or_reply(const struct resp_arg *a, struct kv_sid *id,
			uint64_t missing_seq, bool strict, bool *seq_given,
			struct out *o)
{
	if (parse_id(a, id, missing_seq, strict, seq_given))
		return true;
	out_error(o, ERR_BAD_ID);
	return false;
}

/* v in decimal at d (no NUL): its length. Not out_lltoa: an ID's halves
 * may not fit a long long. */
static size_t u64toa(char *d, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		d[i] = tmp[n - 1 - i];
	return n;
}

static void reply_id(struct out *o, struct kv_sid id)
{
	char buf[48];
	size_t n = u64toa(buf, id.ms);

	buf[n++] = '-';
	n += u64toa(buf + n, id.seq);
	out_bulk(o, buf, n);
}

static bool sid_incr(struct kv_sid *id)
{
	if (++id->seq)
		return true;
	if (++id->ms)
		return true;
	return false; /* past the last ID: 0-0 */
}

static bool sid_decr(struct kv_sid *id)
{
	if (id->seq--)
		return true;
	if (id->ms--)
		return true;
	id->ms = id->seq = UINT64_MAX;
	return false;
}

/* ---- XADD and XTRIM's options -------------------------------------------- */

struct add_args {
	struct kv_trim trim;
	struct kv_sid id;
	bool id_given, seq_given, nomkstream;
};

/* MAXLEN or MINID's [~|=] and argument at v[*i]: false and the reply if
 * it is bad. */
static bool parse_strategy(int argc, const struct resp_arg *v, int *i,
			   struct kv_trim *t, struct out *o)
{
	bool maxlen = cis(&v[*i], "maxlen");

	if (t->by != KV_TRIM_NONE) {
		out_error(o, ERR_BOTH);
		return false;
	}
	t->approx = false;
	if (argc - 1 - *i >= 2 &&
	    (cis(&v[*i + 1], "~") || cis(&v[*i + 1], "=")))
		t->approx = cis(&v[++*i], "~");
	++*i;
	if (maxlen && !getll(&v[*i], &t->maxlen)) {
		out_error(o, KV_ERR_NOTINT);
		return false;
	}
	if (maxlen && t->maxlen < 0) {
		out_error(o, "ERR The MAXLEN argument must be >= 0.");
		return false;
	}
	if (!maxlen && !id_or_reply(&v[*i], &t->minid, 0, true, NULL, o))
		return false;
	t->by = maxlen ? KV_TRIM_MAXLEN : KV_TRIM_MINID;
	return true;
}

/* The checks after the options, in redis's order. */
static bool check_trim(struct kv_trim *t, bool xadd, bool limit_given,
		       struct out *o)
{
	if (t->limit && t->by == KV_TRIM_NONE) {
		out_error(o, "ERR syntax error, LIMIT cannot be used without "
			     "specifying a trimming strategy");
		return false;
	}
	if (!xadd && t->by == KV_TRIM_NONE) {
		out_error(o, "ERR syntax error, XTRIM must be called with a "
			     "trimming strategy");
		return false;
	}
	if (limit_given && !t->approx) {
		out_error(o, "ERR syntax error, LIMIT cannot be used without "
			     "the special ~ option");
		return false;
	}
	if (!limit_given)
		t->limit = t->approx ? APPROX_LIMIT : 0;
	return true;
}

/*
 * XADD's options and ID, or XTRIM's options, from v[2]: as redis's
 * streamParseAddOrTrimArgsOrReply. The index of XADD's ID (argc if
 * there is none), or -1 and the reply.
 */
static int parse_add_trim(int argc, const struct resp_arg *v, bool xadd,
			  struct add_args *a, struct out *o)
{
	bool limit_given = false;
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 2; i < argc; i++) {
		bool more = i < argc - 1;

		if (xadd && cis(&v[i], "*"))
			break;
		if (more && (cis(&v[i], "maxlen") || cis(&v[i], "minid"))) {
			if (!parse_strategy(argc, v, &i, &a->trim, o))
				return -1;
		} else if (more && cis(&v[i], "limit")) {
			if (!getll(&v[++i], &a->trim.limit)) {
				out_error(o, KV_ERR_NOTINT);
				return -1;
			}
			if (a->trim.limit < 0) {
				out_error(o, "ERR The LIMIT argument must be "
					     ">= 0.");
				return -1;
			}
			limit_given = true;
		} else if (xadd && cis(&v[i], "nomkstream")) {
			a->nomkstream = true;
		} else if (xadd) {
			if (!id_or_reply(&v[i], &a->id, 0, true, &a->seq_given,
					 o))
				return -1;
			a->id_given = true;
			break;
		} else {
			out_error(o, KV_ERR_SYNTAX);
			return -1;
		}
	}
	return check_trim(&a->trim, xadd, limit_given, o) ? i : -1;
}

/* ---- XADD ---------------------------------------------------------------- */

/* The new entry's ID, as redis's streamAppendItem makes it: 0 and *id,
 * or redis's error. Its "ms-*" past the last sequence sets no errno in
 * redis, which then answers as for elements too large. */
static const char *new_id(const struct kv_stream *s, const struct add_args *a,
			  struct kv_sid *id)
{
	struct kv_sid last = stream_last_id(s);
	uint64_t now;

	if (a->id_given && !a->seq_given && a->id.ms == last.ms) {
		if (last.seq == UINT64_MAX)
			return "ERR Elements are too large to be stored";
		*id = (struct kv_sid){ last.ms, last.seq + 1 };
	} else if (a->id_given) {
		*id = a->id;
	} else {
		now = (uint64_t)kv_now_ms();
		*id = last;
		if (now > last.ms)
			*id = (struct kv_sid){ now, 0 };
		else
			sid_incr(id);
	}
	if (sid_cmp(*id, last) <= 0)
		return "ERR The ID specified in XADD is equal or smaller than "
		       "the target stream top item";
	return NULL;
}

static struct kv_stream *stream_for_write(struct kv_db *db,
					  const struct resp_arg *k,
					  bool nomkstream, struct out *o)
{
	uint32_t h = hash_of(k);
	struct kv_entry *e = db_find(db, k->p, k->len, h);

	if (wrong(e, KV_STREAM, o))
		return NULL;
	if (!e && nomkstream) {
		out_null(o);
		return NULL;
	}
	if (!e && !(e = db_add(db, k->p, k->len, h, KV_STREAM, 0))) {
		nomem(o);
		return NULL;
	}
	return db_stream(e);
}

static bool too_large(int argc, const struct resp_arg *v, int from)
{
	size_t n = 0;
	int i;

	for (i = from; i < argc; i++) {
		n += v[i].len;
		if (n > ELEMENTS_MAX)
			return true;
	}
	return false;
}

/* XADD as it ran, its ID (v[at]: "*" or "ms-*" perhaps) the one it got,
 * so that the file does not depend on the clock. */
static void log_xadd(struct kv_db *db, int argc, const struct resp_arg *v,
		     int at, struct kv_sid id)
{
	struct resp_arg *a = malloc((size_t)argc * sizeof(*a));
	char buf[48];

	if (!a) {
		db_log(db, argc, v); /* no memory: as it was sent */
		return;
	}
	memcpy(a, v, (size_t)argc * sizeof(*a));
	a[at].p = buf;
	a[at].len = (size_t)snprintf(buf, sizeof(buf), "%llu-%llu",
				     (unsigned long long)id.ms,
				     (unsigned long long)id.seq);
	db_log(db, argc, a);
	free(a);
}

static void c_xadd(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct add_args a;
	struct kv_stream *s;
	struct kv_sid id;
	const char *err;
	int at = parse_add_trim(argc, v, true, &a, o), f = at + 1;

	if (at < 0)
		return;
	if (argc - f < 2 || (argc - f) % 2) {
		arity_error(o, "xadd");
		return;
	}
	if (a.id_given && a.seq_given && !a.id.ms && !a.id.seq) {
		out_error(o, "ERR The ID specified in XADD must be greater "
			     "than 0-0");
		return;
	}
	s = stream_for_write(db, &v[1], a.nomkstream, o);
	if (!s)
		return;
	if (!sid_cmp(stream_last_id(s), SID_MAX)) {
		out_error(o, "ERR The stream has exhausted the last possible "
			     "ID, unable to add more items");
		return;
	}
	err = new_id(s, &a, &id);
	if (!err && too_large(argc, v, f))
		err = "ERR Elements are too large to be stored";
	if (err) {
		out_error(o, err);
		return;
	}
	if (!stream_append(s, id, &v[f], (size_t)(argc - f) / 2)) {
		nomem(o);
		return;
	}
	reply_id(o, id);
	stream_trim(s, &a.trim);
	log_xadd(db, argc, v, at, id);
}

static void c_xtrim(struct kv_db *db, int argc, const struct resp_arg *v,
		    struct out *o)
{
	struct kv_entry *e;
	struct add_args a;

	if (parse_add_trim(argc, v, false, &a, o) < 0)
		return;
	e = lookup(db, &v[1]);
	if (wrong(e, KV_STREAM, o))
		return;
	out_int(o, e ? (long long)stream_trim(db_stream(e), &a.trim) : 0);
}

/* ---- reading ------------------------------------------------------------- */

static void c_xlen(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);

	(void)argc;
	if (!wrong(e, KV_STREAM, o))
		out_int(o, e ? (long long)stream_len(db_stream(e)) : 0);
}

static void reply_entry(struct out *o, const struct kv_sentry *e)
{
	const unsigned char *at = e->data;
	const char *p;
	size_t i, n;

	out_array(o, 2);
	reply_id(o, e->id);
	out_array(o, 2 * (long long)e->nf);
	for (i = 0; i < 2 * (size_t)e->nf; i++) {
		p = sentry_item(&at, &n);
		out_bulk(o, p, n);
	}
}

/* An interval's end: "(" before the ID excludes it (and then "-" and
 * "+" are not IDs). */
static bool interval_id(const struct resp_arg *a, struct kv_sid *id,
			uint64_t missing_seq, bool *excl, struct out *o)
{
	struct resp_arg rest;

	*excl = a->len > 1 && a->p[0] == '(';
	if (!*excl)
		return id_or_reply(a, id, missing_seq, false, NULL, o);
	rest.p = a->p + 1;
	rest.len = a->len - 1;
	return id_or_reply(&rest, id, missing_seq, true, NULL, o);
}

/* XRANGE and XREVRANGE's IDs and COUNT: false and the reply if bad.
 * *count: -1 for none. */
static bool parse_range(int argc, const struct resp_arg *v, bool rev,
			struct kv_sid *start, struct kv_sid *end,
			long long *count, struct out *o)
{
	bool ex;
	int j;

	if (!interval_id(&v[rev ? 3 : 2], start, 0, &ex, o))
		return false;
	if (ex && !sid_incr(start)) {
		out_error(o, "ERR invalid start ID for the interval");
		return false;
	}
	if (!interval_id(&v[rev ? 2 : 3], end, UINT64_MAX, &ex, o))
		return false;
	if (ex && !sid_decr(end)) {
		out_error(o, "ERR invalid end ID for the interval");
		return false;
	}
	*count = -1;
	for (j = 4; j < argc; j++) {
		if (!cis(&v[j], "count") || j == argc - 1) {
			out_error(o, KV_ERR_SYNTAX);
			return false;
		}
		if (!getll(&v[++j], count)) {
			out_error(o, KV_ERR_NOTINT);
			return false;
		}
		if (*count < 0)
			*count = 0;
	}
	return true;
}

/* Walked twice: once to count (redis defers the length), once to reply. */
static void range(struct kv_db *db, int argc, const struct resp_arg *v,
		  struct out *o, bool rev)
{
	struct kv_sid start, end;
	struct kv_stream_iter it;
	const struct kv_sentry *e;
	struct kv_entry *k;
	long long count, n = 0, i;

	if (!parse_range(argc, v, rev, &start, &end, &count, o))
		return;
	k = lookup(db, &v[1]);
	if (wrong(k, KV_STREAM, o))
		return;
	if (!k) {
		out_array(o, 0);
		return;
	}
	if (!count) {
		out_null_array(o);
		return;
	}
	stream_iter_init(&it, db_stream(k), start, end, rev);
	while ((count < 0 || n < count) && stream_next(&it))
		n++;
	out_array(o, n);
	stream_iter_init(&it, db_stream(k), start, end, rev);
	for (i = 0; i < n && (e = stream_next(&it)); i++)
		reply_entry(o, e);
}

static void c_xrange(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	range(db, argc, v, o, false);
}

static void c_xrevrange(struct kv_db *db, int argc, const struct resp_arg *v,
			struct out *o)
{
	range(db, argc, v, o, true);
}

/* Every ID is checked before any is deleted, as redis does. */
static void c_xdel(struct kv_db *db, int argc, const struct resp_arg *v,
		   struct out *o)
{
	struct kv_entry *e = lookup(db, &v[1]);
	struct kv_sid *ids, one;
	long long n = 0;
	bool ok = true;
	int j;

	if (wrong(e, KV_STREAM, o))
		return;
	if (!e) {
		out_int(o, 0);
		return;
	}
	ids = argc > 3 ? malloc((size_t)(argc - 2) * sizeof(*ids)) : &one;
	if (!ids) {
		nomem(o);
		return;
	}
	for (j = 2; j < argc && ok; j++)
		ok = id_or_reply(&v[j], &ids[j - 2], 0, true, NULL, o);
	for (j = 2; j < argc && ok; j++)
		n += stream_delete(db_stream(e), ids[j - 2]);
	if (ok)
		out_int(o, n);
	if (ids != &one)
		free(ids);
}

/*
 * XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id], redis 7.0's, in
 * its order: the options checked before the key. The two counters are
 * XINFO's, which this server does not keep: checked, and not kept.
 */
static void c_xsetid(struct kv_db *db, int argc, const struct resp_arg *v,
		     struct out *o)
{
	struct kv_sid id, maxdel = { 0, 0 }, top;
	long long added = -1;
	struct kv_stream_iter it;
	const struct kv_sentry *e;
	struct kv_entry *k;
	int i;

	if (!id_or_reply(&v[2], &id, 0, true, NULL, o))
		return;
	for (i = 3; i < argc; i += 2) {
		bool more = i + 1 < argc;

		if (cis(&v[i], "entriesadded") && more) {
			if (!getll(&v[i + 1], &added)) {
				out_error(o, KV_ERR_NOTINT);
				return;
			}
			if (added < 0) {
				out_error(o,
					  "ERR entries_added must be positive");
				return;
			}
		} else if (cis(&v[i], "maxdeletedid") && more) {
			if (!id_or_reply(&v[i + 1], &maxdel, 0, true, NULL, o))
				return;
			if (sid_cmp(id, maxdel) < 0) {
				out_error(o,
					  "ERR The ID specified in XSETID is "
					  "smaller than the provided "
					  "max_deleted_entry_id");
				return;
			}
		} else {
			out_error(o, KV_ERR_SYNTAX);
			return;
		}
	}
	k = lookup(db, &v[1]);
	if (!k) {
		out_error(o, "ERR no such key");
		return;
	}
	if (wrong(k, KV_STREAM, o))
		return;
	if (stream_len(db_stream(k))) {
		stream_iter_init(&it, db_stream(k), (struct kv_sid){ 0, 0 },
				 SID_MAX, true);
		e = stream_next(&it);
		top = e ? e->id : stream_last_id(db_stream(k));
		if (sid_cmp(id, top) < 0) {
			out_error(o,
				  "ERR The ID specified in XSETID is smaller "
				  "than the target stream top item");
			return;
		}
		if (added != -1 &&
		    stream_len(db_stream(k)) > (unsigned long long)added) {
			out_error(o,
				  "ERR The entries_added specified in XSETID "
				  "is smaller than the target stream length");
			return;
		}
	}
	stream_set_last_id(db_stream(k), id);
	out_status(o, KV_OK);
}

const struct kv_cmd kv_cmds_stream[] = {
	KV_CMD("xadd", -5, 1, 0, KV_WRITE, 0, c_xadd),
	KV_CMD("xdel", -3, 1, 0, KV_WRITE, 0, c_xdel),
	KV_CMD("xlen", 2, 1, 0, 0, 0, c_xlen),
	KV_CMD("xrange", -4, 1, 0, 0, 0, c_xrange),
	KV_CMD("xrevrange", -4, 1, 0, 0, 0, c_xrevrange),
	KV_CMD("xsetid", -3, 1, 0, KV_WRITE, 0, c_xsetid),
	KV_CMD("xtrim", -4, 1, 0, KV_WRITE, 0, c_xtrim),
	{ .name = NULL },
};
