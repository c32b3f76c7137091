/* SPDX-License-Identifier: MIT */
/*
 * kvtest.h - what the kv example's Check programs share: commands run by
 * name on one shard's keyspace, their replies compared byte for byte.
 * A line is split on blanks (no quoting); LONG64 is a 64-byte word.
 */
#ifndef KV_TEST_H
#define KV_TEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/kv/cmd.h"

/* 64 bytes: a byte more is past a small hash's limit */
#define LONG64 \
	"0123456789012345678901234567890123456789012345678901234567890123"

static inline struct kv_entry *add_key(struct kv_db *db, const char *k,
				       const char *v)
{
	uint32_t h = (uint32_t)kv_hash(k, strlen(k));
	struct kv_entry *e = db_add(db, k, strlen(k), h, KV_STRING, 0);

	ck_assert_ptr_nonnull(e);
	e = db_set_value(db, e, v, strlen(v));
	ck_assert_ptr_nonnull(e);
	return e;
}

static inline struct kv_entry *find_key(struct kv_db *db, const char *k)
{
	return db_find(db, k, strlen(k), (uint32_t)kv_hash(k, strlen(k)));
}

/* One shard, commands by name, replies compared. */
static inline void run(struct kv_db *db, const char *line, const char *want)
{
	struct resp_arg a[128];
	char copy[2048], *save, *t;
	struct kv_client cl = { .id = 1 };
	const struct kv_cmd *c;
	struct out o;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (t = strtok_r(copy, " ", &save); t && n < 128;
	     t = strtok_r(NULL, " ", &save)) {
		a[n].p = t;
		a[n++].len = strlen(t);
	}
	out_init(&o);
	c = kv_cmd_find(a[0].p, a[0].len);
	if (!c)
		kv_reply_unknown(&o, n, a);
	else if (kv_cmd_check(c, n, a, &o))
		kv_cmd_run(c, db, &cl, n, a, &o);
	ck_assert_msg(!want || (o.len == strlen(want) &&
				!memcmp(o.p, want, o.len)),
		      "%s: %.*s, not %s", line, (int)o.len, o.p, want);
	out_free(&o);
}

/* A command whose reply does not matter here, only what it leaves. */
static inline void run_any(struct kv_db *db, const char *line)
{
	run(db, line, NULL);
}

#endif /* KV_TEST_H */
