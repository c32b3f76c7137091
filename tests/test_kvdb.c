/* SPDX-License-Identifier: MIT */
/*
 * test_kvdb.c - the kv example's keyspace (examples/kv/dict.h, db.h) and
 * its commands run on one shard (cmd.h): a table through growth, an
 * incremental rehash and shrinking; lists across their ring's wrap;
 * hashes from the small encoding to the large; expiry lazy and swept;
 * and command replies where redis-server 7.0's are known.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvtest.h"
#include "../examples/kv/glob.h"

/* Every key findable at every moment of growth and of removal, while
 * rehashes run a bucket at a time. */
START_TEST(dict_through_rehash)
{
	enum { N = 100000 };
	struct kv_db db;
	char k[32], v[32];
	struct kv_entry *e;
	int i, j;

	db_init(&db);
	for (i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key:%d", i);
		snprintf(v, sizeof(v), "v%d", i);
		add_key(&db, k, v);
		/* an older key, likely in the half not yet moved */
		j = i / 2;
		snprintf(k, sizeof(k), "key:%d", j);
		ck_assert_ptr_nonnull(find_key(&db, k));
	}
	ck_assert_uint_eq(db_count(&db), N);
	for (i = 0; i < N; i += 2) {
		snprintf(k, sizeof(k), "key:%d", i);
		e = find_key(&db, k);
		ck_assert_ptr_nonnull(e);
		db_delete(&db, e);
	}
	ck_assert_uint_eq(db_count(&db), N / 2);
	/* shrink, then the rest still there with their values */
	for (i = 0; i < 64; i++)
		dict_shrink(&db.keys);
	for (i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key:%d", i);
		e = find_key(&db, k);
		if (i % 2 == 0) {
			ck_assert_ptr_null(e);
			continue;
		}
		ck_assert_ptr_nonnull(e);
		snprintf(v, sizeof(v), "v%d", i);
		ck_assert_uint_eq(e->vlen, strlen(v));
		ck_assert_mem_eq(kv_val(e), v, e->vlen);
	}
	db_flush(&db);
	ck_assert_uint_eq(db_count(&db), 0);
}
END_TEST

static void count_entry(struct kv_entry *e, void *ctx)
{
	(void)e;
	(*(size_t *)ctx)++;
}

/* A scan pass with no change between calls sees each entry once. */
static void mark_seen(struct kv_entry *e, void *ctx)
{
	unsigned char *seen = ctx;
	char k[32];

	if (e->klen > 5 && e->klen < sizeof(k) &&
	    !memcmp(kv_key(e), "keep:", 5)) {
		memcpy(k, kv_key(e), e->klen);
		k[e->klen] = '\0';
		seen[strtoul(k + 5, NULL, 10)] = 1;
	}
}

START_TEST(scan_sees_each_once)
{
	struct kv_db db;
	char k[32];
	size_t seen = 0, cursor = 0;
	int i;

	db_init(&db);
	for (i = 0; i < 5000; i++) {
		snprintf(k, sizeof(k), "s%d", i);
		add_key(&db, k, "x");
	}
	while (dict_scan(&db.keys, &cursor, 7, count_entry, &seen))
		;
	ck_assert_uint_eq(seen, 5000);
	ck_assert_uint_eq(cursor, 0);
	db_flush(&db);
}
END_TEST

/* The ring against a plain array: pushes on both ends, pops between,
 * across the ring's growth and its wrap. */
START_TEST(list_ring_wraps)
{
	enum { N = 1000 };
	static int model[2 * N + 1];
	int lo = N, hi = N; /* model[lo..hi) */
	struct kv_list l = { 0 };
	struct kv_str *s;
	char b[16];
	int i, k;

	for (i = 0; i < N; i++) {
		bool left = i % 2;

		snprintf(b, sizeof(b), "%d", i);
		ck_assert(list_push(&l, left, kv_str_new(b, strlen(b) + 1)));
		if (left)
			model[--lo] = i;
		else
			model[hi++] = i;
		if (i % 3 == 0) {
			left = i % 2 == 0;
			s = list_pop(&l, left);
			ck_assert_int_eq(atoi(s->p),
					 left ? model[lo++] : model[--hi]);
			free(s);
		}
		ck_assert_uint_eq(l.n, (size_t)(hi - lo));
	}
	for (k = 0; k < hi - lo; k++)
		ck_assert_int_eq(atoi(list_at(&l, (size_t)k)->p),
				 model[lo + k]);
	while ((s = list_pop(&l, true)))
		free(s);
	free(l.a);
}
END_TEST

/* Inserts, removals and removals by value at every place, on a ring that
 * wraps, against a plain array. */
START_TEST(list_edits_against_a_model)
{
	enum { N = 300 };
	static int model[4 * N];
	struct kv_list *l = list_new();
	unsigned r = 12345;
	int n = 0, i, k, v, pick;
	struct kv_str *s;
	char b[16];
	size_t gone;

	ck_assert_ptr_nonnull(l);
	for (i = 0; i < 4 * N; i++) {
		r = r * 1103515245u + 12345u;
		pick = (int)((r >> 8) % (unsigned)(n + 1));
		v = (int)((r >> 20) % 8); /* few values: LREM finds many */
		snprintf(b, sizeof(b), "%d", v);
		if (i % 7 == 6 && n) { /* a removal by value, either way */
			bool tail = (r >> 4) & 1;
			int keep = 0, lim = (int)((r >> 5) % 3), seen = 0;

			gone = list_remove_equal(l, b, strlen(b) + 1, tail,
						 (size_t)lim);
			for (k = 0; k < n; k++) {
				int at = tail ? n - 1 - k : k;

				if (model[at] == v && (!lim || seen < lim)) {
					seen++;
					model[at] = -1;
				}
			}
			for (k = 0; k < n; k++)
				if (model[k] != -1)
					model[keep++] = model[k];
			ck_assert_uint_eq(gone, (size_t)(n - keep));
			n = keep;
		} else if (i % 3 == 2 && pick < n) {
			s = list_remove(l, (size_t)pick);
			ck_assert_int_eq(atoi(s->p), model[pick]);
			free(s);
			memmove(&model[pick], &model[pick + 1],
				(size_t)(n - pick - 1) * sizeof(int));
			n--;
		} else {
			ck_assert(list_insert(l, (size_t)pick,
					      kv_str_new(b, strlen(b) + 1)));
			memmove(&model[pick + 1], &model[pick],
				(size_t)(n - pick) * sizeof(int));
			model[pick] = v;
			n++;
		}
		ck_assert_uint_eq(l->n, (size_t)n);
		for (k = 0; k < n; k++)
			ck_assert_int_eq(atoi(list_at(l, (size_t)k)->p),
					 model[k]);
	}
	list_free(l);
}
END_TEST

/* KEYS' patterns as redis-server 7.0.15 matched them (the table was made
 * with KEYS against it), and the bytes after a pattern never read: each
 * pattern is copied to the end of a buffer of its own size. */
START_TEST(glob_as_redis)
{
	static const struct {
		const char *pat, *s;
		bool match;
	} cases[] = {
		{ "*", "a", true },	      { "*", "ab", true },
		{ "*", "abc", true },	      { "*", "b", true },
		{ "*", "ba", true },	      { "*", "a*c", true },
		{ "*", "a\\c", true },	      { "*", "[a", true },
		{ "*", "x]", true },	      { "*", "h1", true },
		{ "*", "-", true },	      { "*", "a-z", true },
		{ "*", "^x", true },	      { "*", "aaa", true },
		{ "a*", "a", true },	      { "a*", "ab", true },
		{ "a*", "abc", true },	      { "a*", "b", false },
		{ "a*", "ba", false },	      { "a*", "a*c", true },
		{ "a*", "a\\c", true },	      { "a*", "[a", false },
		{ "a*", "x]", false },	      { "a*", "h1", false },
		{ "a*", "-", false },	      { "a*", "a-z", true },
		{ "a*", "^x", false },	      { "a*", "aaa", true },
		{ "?", "a", true },	      { "?", "ab", false },
		{ "?", "abc", false },	      { "?", "b", true },
		{ "?", "ba", false },	      { "?", "a*c", false },
		{ "?", "a\\c", false },	      { "?", "[a", false },
		{ "?", "x]", false },	      { "?", "h1", false },
		{ "?", "-", true },	      { "?", "a-z", false },
		{ "?", "^x", false },	      { "?", "aaa", false },
		{ "??", "a", false },	      { "??", "ab", true },
		{ "??", "abc", false },	      { "??", "b", false },
		{ "??", "ba", true },	      { "??", "a*c", false },
		{ "??", "a\\c", false },      { "??", "[a", true },
		{ "??", "x]", true },	      { "??", "h1", true },
		{ "??", "-", false },	      { "??", "a-z", false },
		{ "??", "^x", true },	      { "??", "aaa", false },
		{ "*c", "a", false },	      { "*c", "ab", false },
		{ "*c", "abc", true },	      { "*c", "b", false },
		{ "*c", "ba", false },	      { "*c", "a*c", true },
		{ "*c", "a\\c", true },	      { "*c", "[a", false },
		{ "*c", "x]", false },	      { "*c", "h1", false },
		{ "*c", "-", false },	      { "*c", "a-z", false },
		{ "*c", "^x", false },	      { "*c", "aaa", false },
		{ "a?c", "a", false },	      { "a?c", "ab", false },
		{ "a?c", "abc", true },	      { "a?c", "b", false },
		{ "a?c", "ba", false },	      { "a?c", "a*c", true },
		{ "a?c", "a\\c", true },      { "a?c", "[a", false },
		{ "a?c", "x]", false },	      { "a?c", "h1", false },
		{ "a?c", "-", false },	      { "a?c", "a-z", false },
		{ "a?c", "^x", false },	      { "a?c", "aaa", false },
		{ "[ab]", "a", true },	      { "[ab]", "ab", false },
		{ "[ab]", "abc", false },     { "[ab]", "b", true },
		{ "[ab]", "ba", false },      { "[ab]", "a*c", false },
		{ "[ab]", "a\\c", false },    { "[ab]", "[a", false },
		{ "[ab]", "x]", false },      { "[ab]", "h1", false },
		{ "[ab]", "-", false },	      { "[ab]", "a-z", false },
		{ "[ab]", "^x", false },      { "[ab]", "aaa", false },
		{ "[^a]", "a", false },	      { "[^a]", "ab", false },
		{ "[^a]", "abc", false },     { "[^a]", "b", true },
		{ "[^a]", "ba", false },      { "[^a]", "a*c", false },
		{ "[^a]", "a\\c", false },    { "[^a]", "[a", false },
		{ "[^a]", "x]", false },      { "[^a]", "h1", false },
		{ "[^a]", "-", true },	      { "[^a]", "a-z", false },
		{ "[^a]", "^x", false },      { "[^a]", "aaa", false },
		{ "[a-b]*", "a", true },      { "[a-b]*", "ab", true },
		{ "[a-b]*", "abc", true },    { "[a-b]*", "b", true },
		{ "[a-b]*", "ba", true },     { "[a-b]*", "a*c", true },
		{ "[a-b]*", "a\\c", true },   { "[a-b]*", "[a", false },
		{ "[a-b]*", "x]", false },    { "[a-b]*", "h1", false },
		{ "[a-b]*", "-", false },     { "[a-b]*", "a-z", true },
		{ "[a-b]*", "^x", false },    { "[a-b]*", "aaa", true },
		{ "[b-a]*", "a", true },      { "[b-a]*", "ab", true },
		{ "[b-a]*", "abc", true },    { "[b-a]*", "b", true },
		{ "[b-a]*", "ba", true },     { "[b-a]*", "a*c", true },
		{ "[b-a]*", "a\\c", true },   { "[b-a]*", "[a", false },
		{ "[b-a]*", "x]", false },    { "[b-a]*", "h1", false },
		{ "[b-a]*", "-", false },     { "[b-a]*", "a-z", true },
		{ "[b-a]*", "^x", false },    { "[b-a]*", "aaa", true },
		{ "a\\*c", "a", false },      { "a\\*c", "ab", false },
		{ "a\\*c", "abc", false },    { "a\\*c", "b", false },
		{ "a\\*c", "ba", false },     { "a\\*c", "a*c", true },
		{ "a\\*c", "a\\c", false },   { "a\\*c", "[a", false },
		{ "a\\*c", "x]", false },     { "a\\*c", "h1", false },
		{ "a\\*c", "-", false },      { "a\\*c", "a-z", false },
		{ "a\\*c", "^x", false },     { "a\\*c", "aaa", false },
		{ "a\\\\c", "a", false },     { "a\\\\c", "ab", false },
		{ "a\\\\c", "abc", false },   { "a\\\\c", "b", false },
		{ "a\\\\c", "ba", false },    { "a\\\\c", "a*c", false },
		{ "a\\\\c", "a\\c", true },   { "a\\\\c", "[a", false },
		{ "a\\\\c", "x]", false },    { "a\\\\c", "h1", false },
		{ "a\\\\c", "-", false },     { "a\\\\c", "a-z", false },
		{ "a\\\\c", "^x", false },    { "a\\\\c", "aaa", false },
		{ "[a", "a", true },	      { "[a", "ab", false },
		{ "[a", "abc", false },	      { "[a", "b", false },
		{ "[a", "ba", false },	      { "[a", "a*c", false },
		{ "[a", "a\\c", false },      { "[a", "[a", false },
		{ "[a", "x]", false },	      { "[a", "h1", false },
		{ "[a", "-", false },	      { "[a", "a-z", false },
		{ "[a", "^x", false },	      { "[a", "aaa", false },
		{ "a[", "a", false },	      { "a[", "ab", false },
		{ "a[", "abc", false },	      { "a[", "b", false },
		{ "a[", "ba", false },	      { "a[", "a*c", false },
		{ "a[", "a\\c", false },      { "a[", "[a", false },
		{ "a[", "x]", false },	      { "a[", "h1", false },
		{ "a[", "-", false },	      { "a[", "a-z", false },
		{ "a[", "^x", false },	      { "a[", "aaa", false },
		{ "**a**", "a", true },	      { "**a**", "ab", true },
		{ "**a**", "abc", true },     { "**a**", "b", false },
		{ "**a**", "ba", true },      { "**a**", "a*c", true },
		{ "**a**", "a\\c", true },    { "**a**", "[a", true },
		{ "**a**", "x]", false },     { "**a**", "h1", false },
		{ "**a**", "-", false },      { "**a**", "a-z", true },
		{ "**a**", "^x", false },     { "**a**", "aaa", true },
		{ "*[", "a", false },	      { "*[", "ab", false },
		{ "*[", "abc", false },	      { "*[", "b", false },
		{ "*[", "ba", false },	      { "*[", "a*c", false },
		{ "*[", "a\\c", false },      { "*[", "[a", false },
		{ "*[", "x]", false },	      { "*[", "h1", false },
		{ "*[", "-", false },	      { "*[", "a-z", false },
		{ "*[", "^x", false },	      { "*[", "aaa", false },
		{ "[\\]]", "a", false },      { "[\\]]", "ab", false },
		{ "[\\]]", "abc", false },    { "[\\]]", "b", false },
		{ "[\\]]", "ba", false },     { "[\\]]", "a*c", false },
		{ "[\\]]", "a\\c", false },   { "[\\]]", "[a", false },
		{ "[\\]]", "x]", false },     { "[\\]]", "h1", false },
		{ "[\\]]", "-", false },      { "[\\]]", "a-z", false },
		{ "[\\]]", "^x", false },     { "[\\]]", "aaa", false },
		{ "x]", "a", false },	      { "x]", "ab", false },
		{ "x]", "abc", false },	      { "x]", "b", false },
		{ "x]", "ba", false },	      { "x]", "a*c", false },
		{ "x]", "a\\c", false },      { "x]", "[a", false },
		{ "x]", "x]", true },	      { "x]", "h1", false },
		{ "x]", "-", false },	      { "x]", "a-z", false },
		{ "x]", "^x", false },	      { "x]", "aaa", false },
		{ "[]]", "a", false },	      { "[]]", "ab", false },
		{ "[]]", "abc", false },      { "[]]", "b", false },
		{ "[]]", "ba", false },	      { "[]]", "a*c", false },
		{ "[]]", "a\\c", false },     { "[]]", "[a", false },
		{ "[]]", "x]", false },	      { "[]]", "h1", false },
		{ "[]]", "-", false },	      { "[]]", "a-z", false },
		{ "[]]", "^x", false },	      { "[]]", "aaa", false },
		{ "\\", "a", false },	      { "\\", "ab", false },
		{ "\\", "abc", false },	      { "\\", "b", false },
		{ "\\", "ba", false },	      { "\\", "a*c", false },
		{ "\\", "a\\c", false },      { "\\", "[a", false },
		{ "\\", "x]", false },	      { "\\", "h1", false },
		{ "\\", "-", false },	      { "\\", "a-z", false },
		{ "\\", "^x", false },	      { "\\", "aaa", false },
		{ "a\\", "a", false },	      { "a\\", "ab", false },
		{ "a\\", "abc", false },      { "a\\", "b", false },
		{ "a\\", "ba", false },	      { "a\\", "a*c", false },
		{ "a\\", "a\\c", false },     { "a\\", "[a", false },
		{ "a\\", "x]", false },	      { "a\\", "h1", false },
		{ "a\\", "-", false },	      { "a\\", "a-z", false },
		{ "a\\", "^x", false },	      { "a\\", "aaa", false },
		{ "[a-]", "a", true },	      { "[a-]", "ab", false },
		{ "[a-]", "abc", false },     { "[a-]", "b", false },
		{ "[a-]", "ba", false },      { "[a-]", "a*c", false },
		{ "[a-]", "a\\c", false },    { "[a-]", "[a", false },
		{ "[a-]", "x]", false },      { "[a-]", "h1", false },
		{ "[a-]", "-", false },	      { "[a-]", "a-z", false },
		{ "[a-]", "^x", false },      { "[a-]", "aaa", false },
		{ "[-a]", "a", true },	      { "[-a]", "ab", false },
		{ "[-a]", "abc", false },     { "[-a]", "b", false },
		{ "[-a]", "ba", false },      { "[-a]", "a*c", false },
		{ "[-a]", "a\\c", false },    { "[-a]", "[a", false },
		{ "[-a]", "x]", false },      { "[-a]", "h1", false },
		{ "[-a]", "-", true },	      { "[-a]", "a-z", false },
		{ "[-a]", "^x", false },      { "[-a]", "aaa", false },
		{ "^x", "a", false },	      { "^x", "ab", false },
		{ "^x", "abc", false },	      { "^x", "b", false },
		{ "^x", "ba", false },	      { "^x", "a*c", false },
		{ "^x", "a\\c", false },      { "^x", "[a", false },
		{ "^x", "x]", false },	      { "^x", "h1", false },
		{ "^x", "-", false },	      { "^x", "a-z", false },
		{ "^x", "^x", true },	      { "^x", "aaa", false },
		{ "*a*a*a*", "a", false },    { "*a*a*a*", "ab", false },
		{ "*a*a*a*", "abc", false },  { "*a*a*a*", "b", false },
		{ "*a*a*a*", "ba", false },   { "*a*a*a*", "a*c", false },
		{ "*a*a*a*", "a\\c", false }, { "*a*a*a*", "[a", false },
		{ "*a*a*a*", "x]", false },   { "*a*a*a*", "h1", false },
		{ "*a*a*a*", "-", false },    { "*a*a*a*", "a-z", false },
		{ "*a*a*a*", "^x", false },   { "*a*a*a*", "aaa", true },
		{ "[^]]*", "a", false },      { "[^]]*", "ab", false },
		{ "[^]]*", "abc", false },    { "[^]]*", "b", false },
		{ "[^]]*", "ba", false },     { "[^]]*", "a*c", false },
		{ "[^]]*", "a\\c", false },   { "[^]]*", "[a", false },
		{ "[^]]*", "x]", true },      { "[^]]*", "h1", false },
		{ "[^]]*", "-", false },      { "[^]]*", "a-z", false },
		{ "[^]]*", "^x", false },     { "[^]]*", "aaa", false },
		{ "[\\-]", "a", false },      { "[\\-]", "ab", false },
		{ "[\\-]", "abc", false },    { "[\\-]", "b", false },
		{ "[\\-]", "ba", false },     { "[\\-]", "a*c", false },
		{ "[\\-]", "a\\c", false },   { "[\\-]", "[a", false },
		{ "[\\-]", "x]", false },     { "[\\-]", "h1", false },
		{ "[\\-]", "-", true },	      { "[\\-]", "a-z", false },
		{ "[\\-]", "^x", false },     { "[\\-]", "aaa", false },
	};
	size_t i, pn;
	char *p;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pn = strlen(cases[i].pat);
		p = malloc(pn + 1);
		ck_assert_ptr_nonnull(p);
		memcpy(p, cases[i].pat, pn);
		p[pn] = '*'; /* past the end: must not count */
		ck_assert_msg(kv_glob(p, pn, cases[i].s, strlen(cases[i].s),
				      false) == cases[i].match,
			      "'%s' against '%s'", cases[i].pat, cases[i].s);
		free(p);
	}
	ck_assert(kv_glob("A*", 2, "abc", 3, true));
	ck_assert(!kv_glob("A*", 2, "abc", 3, false));
}
END_TEST

/* SCAN's guarantee: a key there for the whole walk is seen, although the
 * table grows, is rehashed and shrinks between the calls. */
START_TEST(scan_rb_sees_every_lasting_key)
{
	enum { N = 3000 };
	static unsigned char seen[N];
	struct kv_db db;
	size_t cursor = 0, calls = 0, i;
	char k[32];

	db_init(&db);
	for (i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "keep:%zu", i);
		add_key(&db, k, "x");
	}
	do {
		cursor = dict_scan_rb(&db.keys, cursor, mark_seen, seen);
		/* churn between calls: grow by a lot (the table doubles and
		 * is rehashed a bucket at a time meanwhile), then take it all
		 * away and shrink */
		for (i = 0; i < 40 && calls < 60; i++) {
			snprintf(k, sizeof(k), "tmp:%zu:%zu", calls, i);
			add_key(&db, k, "y");
		}
		for (i = 0; i < 60 * 40 && calls == 60; i++) {
			snprintf(k, sizeof(k), "tmp:%zu:%zu", i / 40, i % 40);
			db_delete(&db, find_key(&db, k));
		}
		if (calls == 60)
			dict_shrink(&db.keys);
		calls++;
	} while (cursor);
	for (i = 0; i < N; i++)
		ck_assert_msg(seen[i], "keep:%zu not seen", i);
	db_flush(&db);
}
END_TEST

/* Small to large past 128 fields or 64 bytes: nothing lost, and small
 * hashes keep insertion order (redis's listpack order). */
START_TEST(hash_small_to_large)
{
	struct kv_hash *h = hash_new();
	const char *v;
	char f[16], val[300];
	size_t n;
	int i;

	ck_assert_ptr_nonnull(h);
	for (i = 0; i < KV_HASH_SMALL_FIELDS; i++) {
		snprintf(f, sizeof(f), "f%d", i);
		ck_assert_int_eq(hash_set(h, f, strlen(f), f, strlen(f)), 1);
	}
	ck_assert(!h->large);
	ck_assert_int_eq(hash_set(h, "f0", 2, "again", 5), 0);
	ck_assert(!h->large);
	ck_assert_int_eq(hash_set(h, "one more", 8, "x", 1), 1);
	ck_assert(h->large);
	ck_assert_uint_eq(hash_len(h), KV_HASH_SMALL_FIELDS + 1);
	ck_assert(hash_get(h, "f0", 2, &v, &n));
	ck_assert_uint_eq(n, 5);
	ck_assert_mem_eq(v, "again", 5);
	for (i = 1; i < KV_HASH_SMALL_FIELDS; i++) {
		snprintf(f, sizeof(f), "f%d", i);
		ck_assert(hash_get(h, f, strlen(f), &v, &n));
		ck_assert_mem_eq(v, f, n);
	}
	ck_assert(hash_del(h, "f5", 2));
	ck_assert(!hash_get(h, "f5", 2, &v, &n));
	hash_free(h);

	/* a long value makes a one-field hash large; one of 255 bytes and
	 * more takes the long length */
	h = hash_new();
	memset(val, 'v', sizeof(val));
	ck_assert_int_eq(hash_set(h, "a", 1, "1", 1), 1);
	ck_assert_int_eq(hash_set(h, "b", 1, val, 100), 1);
	ck_assert(h->large);
	ck_assert(hash_get(h, "a", 1, &v, &n));
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(hash_set(h, "a", 1, val, sizeof(val)), 0);
	ck_assert(hash_get(h, "a", 1, &v, &n));
	ck_assert_uint_eq(n, sizeof(val));
	ck_assert_mem_eq(v, val, n);
	hash_free(h);
}
END_TEST

/* A large hash through growth, value replacements and removals, against
 * what each field must hold. */
START_TEST(hash_large_against_a_model)
{
	enum { N = 100000 };
	struct kv_hash *h = hash_new();
	const char *v;
	char f[32], want[32];
	size_t n;
	int i;

	ck_assert_ptr_nonnull(h);
	for (i = 0; i < N; i++) {
		snprintf(f, sizeof(f), "field:%d", i);
		ck_assert_int_eq(
			hash_set(h, f, strlen(f), f + 6, strlen(f + 6)), 1);
	}
	for (i = 0; i < N; i += 3) { /* every third replaced, longer */
		snprintf(f, sizeof(f), "field:%d", i);
		snprintf(want, sizeof(want), "new value %d", i);
		ck_assert_int_eq(hash_set(h, f, strlen(f), want, strlen(want)),
				 0);
	}
	for (i = 1; i < N; i += 3) { /* and every third one after gone */
		snprintf(f, sizeof(f), "field:%d", i);
		ck_assert(hash_del(h, f, strlen(f)));
	}
	ck_assert_uint_eq(hash_len(h), N - N / 3);
	for (i = 0; i < N; i++) {
		snprintf(f, sizeof(f), "field:%d", i);
		if (i % 3 == 1) {
			ck_assert(!hash_get(h, f, strlen(f), &v, &n));
			continue;
		}
		if (i % 3 == 0)
			snprintf(want, sizeof(want), "new value %d", i);
		else
			snprintf(want, sizeof(want), "%d", i);
		ck_assert(hash_get(h, f, strlen(f), &v, &n));
		ck_assert_uint_eq(n, strlen(want));
		ck_assert_mem_eq(v, want, n);
	}
	hash_free(h);
}
END_TEST

/* Every command by its name in any case; nothing else, however close. */
START_TEST(command_lookup)
{
	static const char *const miss[] = {
		"ge", "gett", "sett", "gex", "flushal", "flushalll", "",
	};
	const struct kv_cmd *t;
	char up[32]; /* the longest name (16) and a NUL after it */
	size_t n, i, k, len;

	t = kv_cmd_table(&n);
	for (i = 0; i < n; i++) {
		len = strlen(t[i].name);
		if (t[i].flags & KV_INTERNAL) { /* the connection's own */
			ck_assert_ptr_null(kv_cmd_find(t[i].name, len));
			ck_assert_ptr_eq(kv_cmd_internal(t[i].name), &t[i]);
			continue;
		}
		ck_assert_ptr_eq(kv_cmd_find(t[i].name, len), &t[i]);
		for (k = 0; k < len; k++) /* upper, and mixed */
			up[k] = (char)(k % 2 ? t[i].name[k] :
					       t[i].name[k] - ('a' - 'A'));
		ck_assert_ptr_eq(kv_cmd_find(up, len), &t[i]);
		/* a NUL after it, or in place of its last byte */
		memcpy(up, t[i].name, len);
		up[len] = '\0';
		ck_assert_ptr_null(kv_cmd_find(up, len + 1));
		up[len - 1] = '\0';
		ck_assert_ptr_null(kv_cmd_find(up, len));
	}
	for (i = 0; i < sizeof(miss) / sizeof(miss[0]); i++)
		ck_assert_ptr_null(kv_cmd_find(miss[i], strlen(miss[i])));
	/* a byte with the high bit where a name's last letter is */
	ck_assert_ptr_null(kv_cmd_find("flushal\xec", 8));
	ck_assert_ptr_null(kv_cmd_find("GE\xd4", 3));
}
END_TEST

/* out_lltoa writes what "%lld" does, at both ends of the range. */
START_TEST(decimal_as_printf)
{
	static const long long v[] = {
		0,
		1,
		-1,
		9,
		10,
		-10,
		99,
		100,
		123456789,
		-987654321,
		LLONG_MAX,
		LLONG_MIN,
		LLONG_MIN + 1,
		1000000000000000000ll,
	};
	char got[24], want[24];
	size_t i, n;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		n = out_lltoa(got, v[i]);
		snprintf(want, sizeof(want), "%lld", v[i]);
		ck_assert_uint_eq(n, strlen(want));
		ck_assert(!memcmp(got, want, n));
	}
}
END_TEST

START_TEST(expiry_lazy_and_swept)
{
	struct kv_db db;
	struct kv_entry *e;
	char k[16];
	int i;

	db_init(&db);
	/* deadlines far off (a loaded machine may stall a millisecond
	 * between two lines), then one moved into the past by hand */
	run(&db, "SET a 1 PX 100000000", "+OK\r\n");
	run(&db, "SET b 2 EX 100000", "+OK\r\n");
	ck_assert_uint_eq(db.expires, 2);
	/* a past deadline is gone on the next access */
	e = find_key(&db, "a");
	ck_assert_ptr_nonnull(e);
	e->expire_ms = kv_now_ms() - 1;
	run(&db, "GET a", "$-1\r\n");
	run(&db, "EXISTS a b", ":1\r\n");
	ck_assert_uint_eq(db.expired, 1);
	/* and swept when no one asks */
	for (i = 0; i < 1000; i++) {
		snprintf(k, sizeof(k), "x%d", i);
		e = add_key(&db, k, "v");
		db_set_expire(&db, e, kv_now_ms() - 1);
	}
	while (db_sweep(&db, 16) || db.sweep_cursor)
		;
	ck_assert_uint_eq(db_count(&db), 1);
	ck_assert_uint_eq(db.expires, 1);
	ck_assert_uint_eq(db.expired, 1001);
	db_flush(&db);
}
END_TEST

START_TEST(replies_as_redis)
{
	struct kv_entry *e;
	struct kv_db db;

	db_init(&db);
	run(&db, "get", "-ERR wrong number of arguments for 'get' command\r\n");
	run(&db, "FOO a b",
	    "-ERR unknown command 'FOO', with args beginning with: 'a' 'b' \r\n");
	run(&db, "SET k v EX 0",
	    "-ERR invalid expire time in 'set' command\r\n");
	run(&db, "SET k v NX XX", "-ERR syntax error\r\n");
	run(&db, "SET k v GET", "$-1\r\n");
	run(&db, "SET k v2 XX GET", "$1\r\nv\r\n");
	run(&db, "INCR k", "-ERR value is not an integer or out of range\r\n");
	run(&db, "LPUSH k a",
	    "-WRONGTYPE Operation against a key holding "
	    "the wrong kind of value\r\n");
	run(&db, "SET n 9223372036854775807", "+OK\r\n");
	run(&db, "INCR n", "-ERR increment or decrement would overflow\r\n");
	run(&db, "DECRBY n -9223372036854775808",
	    "-ERR decrement would overflow\r\n");
	run(&db, "HSET h a 1 b 2", ":2\r\n");
	run(&db, "HSET h s abc", ":1\r\n");
	run(&db, "HINCRBY h s 1", "-ERR hash value is not an integer\r\n");
	run(&db, "HGETALL h",
	    "*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n"
	    "2\r\n$1\r\ns\r\n$3\r\nabc\r\n");
	run(&db, "RPUSH l a b c", ":3\r\n");
	run(&db, "LPOP l 0", "*0\r\n");
	run(&db, "LPOP l -1",
	    "-ERR value is out of range, must be "
	    "positive\r\n");
	run(&db, "LRANGE l -2 -1", "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
	run(&db, "EXPIRE k 10 GT LT",
	    "-ERR GT and LT options at the same "
	    "time are not compatible\r\n");
	run(&db, "EXPIRE k 100000 NX", ":1\r\n");
	/* the deadline set, give or take a minute of a stalled machine */
	e = find_key(&db, "k");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_le(e->expire_ms, kv_now_ms() + 100000000);
	ck_assert_int_gt(e->expire_ms, kv_now_ms() + 100000000 - 60000);
	run(&db, "EXPIRE k 5 GT", ":0\r\n");
	run(&db, "EXPIRE k -1", ":1\r\n");
	run(&db, "TTL k", ":-2\r\n");
	run(&db, "MSET a 1 b",
	    "-ERR wrong number of arguments for 'mset' "
	    "command\r\n");
	run(&db, "MGET a l nokey", "*3\r\n$-1\r\n$-1\r\n$-1\r\n");
	run(&db, "SELECT 1", "-ERR DB index is out of range\r\n");
	run(&db, "CONFIG GET save", "*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
	run(&db, "DBSIZE", ":3\r\n");
	run(&db, "FLUSHALL x", "-ERR syntax error\r\n");
	run(&db, "FLUSHALL", "+OK\r\n");
	run(&db, "DBSIZE", ":0\r\n");
	db_flush(&db);
}
END_TEST

/* A key of each new type made through its encodings' changes (a set of
 * integers grown past 512 and then given a string, a sorted set past 128
 * members, a stream with deleted entries, a hash past 128 fields), then
 * ended every way a key can go, RENAME onto it included: the same class
 * of defect as tests/regress/d21e656-kv-hash-free-after-grow.c's
 * (valgrind and ASan find what this does not). */
static void make_grown(struct kv_db *db, int kind)
{
	char cmd[64];
	int i;

	for (i = 0; i < 600; i++) {
		if (kind == 0)
			snprintf(cmd, sizeof(cmd), "SADD k %d", i);
		else if (kind == 1)
			snprintf(cmd, sizeof(cmd), "ZADD k %d m%d", i % 7, i);
		else if (kind == 2)
			snprintf(cmd, sizeof(cmd), "XADD k %d-1 f %d", i + 1,
				 i);
		else
			snprintf(cmd, sizeof(cmd), "HSET k f%d %d", i, i);
		run_any(db, cmd);
	}
	if (kind == 0)
		run(db, "SADD k not-a-number", ":1\r\n");
	if (kind == 2)
		for (i = 1; i <= 600; i += 3) {
			snprintf(cmd, sizeof(cmd), "XDEL k %d-1", i);
			run(db, cmd, ":1\r\n");
		}
}

START_TEST(new_types_replaced_and_freed)
{
	static const char *const end[] = {
		"SET k v", "DEL k", "EXPIRE k -1",    "FLUSHALL",
		"lazy",	   "swept", "RENAME other k",
	};
	struct kv_entry *e;
	struct kv_db db;
	size_t j;
	int kind;

	for (kind = 0; kind < 4; kind++) {
		for (j = 0; j < sizeof(end) / sizeof(end[0]); j++) {
			db_init(&db);
			make_grown(&db, kind);
			run_any(&db, "SET other v");
			e = find_key(&db, "k");
			ck_assert_ptr_nonnull(e);
			if (!strcmp(end[j], "lazy") ||
			    !strcmp(end[j], "swept")) {
				db_set_expire(&db, e, kv_now_ms() - 1);
				if (!strcmp(end[j], "lazy"))
					run_any(&db, "TYPE k");
				else
					while (db_sweep(&db, 16) ||
					       db.sweep_cursor)
						;
			} else {
				run_any(&db, end[j]);
			}
			if (!strcmp(end[j], "SET k v") ||
			    !strcmp(end[j], "RENAME other k"))
				run(&db, "GET k", "$1\r\nv\r\n");
			else
				run(&db, "EXISTS k", ":0\r\n");
			db_flush(&db);
		}
	}
}
END_TEST

static Suite *kvdb_suite(void)
{
	Suite *s = suite_create("kvdb");
	TCase *tc = tcase_create("db");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, dict_through_rehash);
	tcase_add_test(tc, scan_sees_each_once);
	tcase_add_test(tc, scan_rb_sees_every_lasting_key);
	tcase_add_test(tc, glob_as_redis);
	tcase_add_test(tc, list_ring_wraps);
	tcase_add_test(tc, list_edits_against_a_model);
	tcase_add_test(tc, hash_small_to_large);
	tcase_add_test(tc, hash_large_against_a_model);
	tcase_add_test(tc, command_lookup);
	tcase_add_test(tc, decimal_as_printf);
	tcase_add_test(tc, expiry_lazy_and_swept);
	tcase_add_test(tc, replies_as_redis);
	tcase_add_test(tc, new_types_replaced_and_freed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvdb_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
