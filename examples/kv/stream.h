/* SPDX-License-Identifier: MIT */
/*
 * stream.h - the kv example's stream: entries of field-value pairs in
 * the order of their IDs (ms-seq), kept in nodes as redis 7.0 keeps them
 * in listpacks, so that trimming with "~" (whole nodes only) removes what
 * redis's would.
 *
 * A node is an array of up to 100 entries (stream-node-max-entries); it
 * closes early, as redis's does, once its listpack would pass 4096 bytes
 * (stream-node-max-bytes): the bytes are counted as redis's listpack
 * encoding would take them, though entries are plain allocations here.
 * Deleting marks an entry, as redis does, and a node goes when its last
 * live entry does. The nodes are an array ordered by ID: a lookup is two
 * binary searches, an append O(1), the head's removal O(1) and another
 * node's O(nodes). A stream may be empty, and keeps its last ID: the
 * commands never delete the key.
 *
 * One owner (a shard process): nothing here is shared.
 */
#ifndef KV_STREAM_H
#define KV_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dict.h"
#include "resp.h"

struct kv_sid {
	uint64_t ms, seq;
};

/* An entry: its ID and 2 * nf items (field, value, ...), each a 4-byte
 * length and the bytes (read them with sentry_item). */
struct kv_sentry {
	struct kv_sid id;
	uint32_t nf;
	bool deleted;
	unsigned char data[];
};

struct kv_stream;

enum kv_trim_by { KV_TRIM_NONE, KV_TRIM_MAXLEN, KV_TRIM_MINID };

/* What XADD and XTRIM trim by, as redis's streamAddTrimArgs. */
struct kv_trim {
	enum kv_trim_by by;
	bool approx;	     /* "~": whole nodes only */
	long long limit;     /* entries removed at most; 0: no limit */
	long long maxlen;    /* KV_TRIM_MAXLEN */
	struct kv_sid minid; /* KV_TRIM_MINID */
};

struct kv_stream_iter {
	const struct kv_stream *s;
	size_t node, at; /* the next entry to look at */
	struct kv_sid start, end;
	bool rev, done;
};

int sid_cmp(struct kv_sid a, struct kv_sid b);

struct kv_stream *stream_new(void);
/* Frees x and every entry. */
void stream_free(struct kv_stream *x);

uint64_t stream_len(const struct kv_stream *s);
/* The last ID ever added (0-0 for none), deleted or not. */
struct kv_sid stream_last_id(const struct kv_stream *s);
/* XSETID's: the last ID made, from which the next "*" goes on; the
 * caller checked that no entry's ID is greater. */
void stream_set_last_id(struct kv_stream *s, struct kv_sid id);

/* Appends an entry of fv[0..2 * nf): id must be greater than the last
 * ID. False on no memory (the stream as it was). */
bool stream_append(struct kv_stream *s, struct kv_sid id,
		   const struct resp_arg *fv, size_t nf);
/* Deletes the live entry id: false if there is none. */
bool stream_delete(struct kv_stream *s, struct kv_sid id);
/* Trims as redis's streamTrim: the entries removed. */
uint64_t stream_trim(struct kv_stream *s, const struct kv_trim *t);

/* The live entries of IDs in [start, end], forward or (rev) backward. */
void stream_iter_init(struct kv_stream_iter *it, const struct kv_stream *s,
		      struct kv_sid start, struct kv_sid end, bool rev);
/* The next entry, or NULL at the end. */
const struct kv_sentry *stream_next(struct kv_stream_iter *it);

/* The item at *at, of n bytes; *at moves past it. */
static inline const char *sentry_item(const unsigned char **at, size_t *n)
{
	const unsigned char *p = *at;
	uint32_t len;

	len = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	      (uint32_t)p[3] << 24;
	*n = len;
	*at = p + 4 + len;
	return (const char *)p + 4;
}

#endif /* KV_STREAM_H */
