/* SPDX-License-Identifier: MIT */
/*
 * out.h - a growing byte buffer and the RESP2 or RESP3 replies written
 * into it.
 *
 * Each writer appends one reply (or an aggregate's header) to the
 * buffer; on allocation failure the buffer is marked failed, later
 * writes do nothing, and the owner sees `failed` and closes the
 * connection.
 *
 * The protocol is the buffer's `resp3`, set by its owner before each
 * command from the connection's (HELLO's): a command writes the types
 * redis-server 7.0 writes (a map, a set, a double, a null), and each
 * writer gives that type's RESP3 form, or the RESP2 form redis gives a
 * RESP2 client (a map's 2n elements, a set's array, a double's bulk,
 * $-1 or *-1). out_init and out_free reset it to RESP2.
 */
#ifndef KV_OUT_H
#define KV_OUT_H

#include <stdbool.h>
#include <stddef.h>

struct out {
	char *p;
	size_t len;
	size_t cap;
	bool failed;
	bool resp3; /* the replies' protocol: RESP3, or RESP2 */
};

void out_init(struct out *o);
void out_free(struct out *o);
/* Room for n more bytes: a pointer to them, or NULL (failed set). */
char *out_room(struct out *o, size_t n);
void out_raw(struct out *o, const void *p, size_t n);
void out_drop_front(struct out *o, size_t n);

void out_status(struct out *o, const char *s); /* +s */
void out_error(struct out *o, const char *s);  /* -s (s has its class) */
void out_errorf(struct out *o, const char *fmt,
		...) /* -..., line ends blanked */
	__attribute__((format(printf, 2, 3)));
/* printf's text appended, as it is (no RESP framing) */
void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_int(struct out *o, long long v);	       /* :v */
void out_bulk(struct out *o, const void *p, size_t n); /* $n p */
void out_null(struct out *o);			       /* $-1; RESP3 _ */
void out_null_array(struct out *o);		       /* *-1; RESP3 _ */
void out_array(struct out *o, long long n);	       /* *n */
void out_map(struct out *o, long long n); /* n pairs: *2n; RESP3 %n */
void out_set(struct out *o, long long n); /* *n; RESP3 ~n */
/* An array's (a set's) header of n put in at byte `at`, before the n
 * elements written there (redis's deferred length) */
void out_array_at(struct out *o, size_t at, long long n);
void out_set_at(struct out *o, size_t at, long long n);
void out_bulk_ll(struct out *o, long long v); /* v as a bulk */
/* d as redis 7.0's addReplyDouble writes it: a bulk of "%.17g", "inf",
 * "-inf"; RESP3 ,%.17g */
void out_double(struct out *o, double d);
/* text, as redis's addReplyVerbatim of "txt": a bulk; RESP3 =n txt:... */
void out_verbatim(struct out *o, const void *p, size_t n);
/*
 * A sorted set's members with their scores: the header of n members, then
 * each (m, score): RESP2's flat member, score, ...; RESP3's pairs
 * [member, double], as redis 7.0 (zrange, zrandmember, zpopmin with a
 * count). Without scores, n members.
 */
void out_scored_array(struct out *o, long long n, bool scores);
void out_scored(struct out *o, const void *m, size_t n, double score,
		bool scores);

/* The decimal v in d (room for 20 characters, no NUL); its length.
 * snprintf's "%lld" without the format machinery: every reply's lengths
 * and integers go through it. */
size_t out_lltoa(char *d, long long v);

/* The replies every command shares. */
#define KV_OK "OK"
#define KV_ERR_SYNTAX "ERR syntax error"
#define KV_ERR_NOTINT "ERR value is not an integer or out of range"
#define KV_ERR_OVERFLOW "ERR increment or decrement would overflow"
#define KV_ERR_WRONGTYPE \
	"WRONGTYPE Operation against a key holding the wrong kind of value"

#endif /* KV_OUT_H */
