/* SPDX-License-Identifier: MIT */
/*
 * test_kvset.c - the kv example's sets (examples/kv/set.h) and their
 * commands (c_set.c), run on one shard with redis-server 7.0's replies:
 * each expected reply below is the one redis-server 7.0.15 gave. The
 * small (intset) encoding to the large with nothing lost, members
 * findable through every rehash, and the random picks checked by their
 * properties (counts, distinctness, membership), the generator seeded.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvtest.h"

#define WRONGTYPE \
	"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"

/* ---- commands of any size, and their replies read back ------------------- */

struct strs {
	int n;
	char **s;
};

/* argv[0..argc) run as one command; its reply in *o (out_free it). */
static void exec(struct kv_db *db, int argc, char **argv, struct out *o)
{
	struct resp_arg *a = calloc((size_t)argc, sizeof(*a));
	struct kv_client cl = { .id = 1 };
	const struct kv_cmd *c;
	int i;

	ck_assert_ptr_nonnull(a);
	for (i = 0; i < argc; i++) {
		a[i].p = argv[i];
		a[i].len = strlen(argv[i]);
	}
	out_init(o);
	c = kv_cmd_find(a[0].p, a[0].len);
	ck_assert_ptr_nonnull(c);
	if (kv_cmd_check(c, argc, a, o))
		kv_cmd_run(c, db, &cl, argc, a, o);
	free(a);
}

/* A line split on blanks, as run() does. */
static int split(char *line, char **argv, int max)
{
	char *save, *t;
	int n = 0;

	for (t = strtok_r(line, " ", &save); t && n < max;
	     t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	return n;
}

/* The bulk strings of an array reply (or of one bulk). */
static struct strs parse_bulks(const struct out *o)
{
	struct strs r = { 0, NULL };
	const char *p = o->p, *end = o->p + o->len;
	long n = 1, len, i;

	if (*p == '*')
		n = strtol(p + 1, NULL, 10), p = strstr(p, "\r\n") + 2;
	ck_assert_int_ge(n, 0);
	r.s = calloc((size_t)n + 1, sizeof(*r.s));
	for (i = 0; i < n; i++) {
		ck_assert_msg(*p == '$', "not a bulk: %.*s", (int)(end - p), p);
		len = strtol(p + 1, NULL, 10);
		p = strstr(p, "\r\n") + 2;
		r.s[i] = strndup(p, (size_t)len);
		p += len + 2;
	}
	ck_assert_ptr_eq(p, end);
	r.n = (int)n;
	return r;
}

static void strs_free(struct strs *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->s[i]);
	free(r->s);
}

static struct strs call(struct kv_db *db, const char *line)
{
	char copy[2048], *argv[64];
	struct strs r;
	struct out o;

	snprintf(copy, sizeof(copy), "%s", line);
	exec(db, split(copy, argv, 64), argv, &o);
	r = parse_bulks(&o);
	out_free(&o);
	return r;
}

static long long call_int(struct kv_db *db, const char *line)
{
	char copy[2048], *argv[64];
	struct out o;
	long long v;

	snprintf(copy, sizeof(copy), "%s", line);
	exec(db, split(copy, argv, 64), argv, &o);
	ck_assert_msg(o.len > 0 && o.p[0] == ':', "%s: %.*s", line, (int)o.len,
		      o.p);
	v = strtoll(o.p + 1, NULL, 10);
	out_free(&o);
	return v;
}

/* SADD key with members fmt % i, i in [from, to) by step, in one command. */
static void sadd_range(struct kv_db *db, const char *key, const char *fmt,
		       int from, int to, int step)
{
	int n = (to - from + step - 1) / step, i, k = 2;
	char **argv = calloc((size_t)n + 2, sizeof(*argv));
	struct out o;

	argv[0] = strdup("SADD");
	argv[1] = strdup(key);
	for (i = from; i < to; i += step) {
		char b[64];

		snprintf(b, sizeof(b), fmt, i);
		argv[k++] = strdup(b);
	}
	exec(db, k, argv, &o);
	ck_assert_int_eq(o.p[0], ':');
	out_free(&o);
	for (i = 0; i < k; i++)
		free(argv[i]);
	free(argv);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True if r's strings are distinct (r is sorted by it). */
static bool distinct(struct strs *r)
{
	int i;

	qsort(r->s, (size_t)r->n, sizeof(*r->s), cmp_str);
	for (i = 1; i < r->n; i++)
		if (!strcmp(r->s[i - 1], r->s[i]))
			return false;
	return true;
}

static struct kv_set *set_of(struct kv_db *db, const char *key)
{
	struct kv_entry *e = find_key(db, key);

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->type, KV_SET);
	return db_set(e);
}

/* ---- replies ------------------------------------------------------------- */

START_TEST(basics_as_redis)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "SADD s 3 1 2", ":3\r\n");
	run(&db, "SADD s 2 5 -7 0", ":3\r\n");
	/* the small encoding answers in ascending order, as redis's intset */
	run(&db, "SMEMBERS s",
	    "*6\r\n$2\r\n-7\r\n$1\r\n0\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n"
	    "$1\r\n5\r\n");
	run(&db, "SCARD s", ":6\r\n");
	run(&db, "SISMEMBER s 5", ":1\r\n");
	run(&db, "SISMEMBER s 05", ":0\r\n");
	run(&db, "SISMEMBER s x", ":0\r\n");
	run(&db, "SMISMEMBER s 1 x 2", "*3\r\n:1\r\n:0\r\n:1\r\n");
	run(&db, "SMISMEMBER nokey 1 2", "*2\r\n:0\r\n:0\r\n");
	run(&db, "SCARD nokey", ":0\r\n");
	run(&db, "SISMEMBER nokey a", ":0\r\n");
	run(&db, "SMEMBERS nokey", "*0\r\n");
	run(&db, "SREM s 1 1 x", ":1\r\n");
	run(&db, "SREM nokey a", ":0\r\n");
	/* the last member gone, the key goes */
	run(&db, "SREM s 0 2 3 5 -7", ":5\r\n");
	run(&db, "EXISTS s", ":0\r\n");
	run(&db, "SADD q a", ":1\r\n");
	run(&db, "SPOP q", "$1\r\na\r\n");
	run(&db, "EXISTS q", ":0\r\n");
	run(&db, "SADD n2 9223372036854775807 -9223372036854775808 0 10 -5",
	    ":5\r\n");
	run(&db, "SMEMBERS n2",
	    "*5\r\n$20\r\n-9223372036854775808\r\n$2\r\n-5\r\n$1\r\n0\r\n"
	    "$2\r\n10\r\n$19\r\n9223372036854775807\r\n");
	run(&db, "SISMEMBER n2 -9223372036854775808", ":1\r\n");
	run(&db, "SISMEMBER n2 9223372036854775808", ":0\r\n");
	run(&db, "SREM n2 -5 10", ":2\r\n");
	run(&db, "SINTER n2 n2",
	    "*3\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n"
	    "$19\r\n9223372036854775807\r\n");
	run(&db, "SMISMEMBER n2 0 1", "*2\r\n:1\r\n:0\r\n");
	/* not canonical integers: strings, and the set large */
	run(&db, "SADD n 9223372036854775807 -9223372036854775808 0 -0 +1 01 1",
	    ":7\r\n");
	ck_assert(!set_is_small(set_of(&db, "n")));
	run(&db, "TYPE n", "+set\r\n");
	db_flush(&db);
}
END_TEST

START_TEST(errors_as_redis)
{
	static const char *const arity[][2] = {
		{ "SADD s", "sadd" },
		{ "SREM s", "srem" },
		{ "SMEMBERS", "smembers" },
		{ "SMEMBERS a b", "smembers" },
		{ "SISMEMBER s", "sismember" },
		{ "SMISMEMBER s", "smismember" },
		{ "SCARD", "scard" },
		{ "SPOP", "spop" },
		{ "SRANDMEMBER", "srandmember" },
		{ "SINTER", "sinter" },
		{ "SUNION", "sunion" },
		{ "SDIFF", "sdiff" },
		{ "SINTERCARD 1", "sintercard" },
		{ "SMOVE a b", "smove" },
		{ "SINTERSTORE d", "sinterstore" },
		{ "SUNIONSTORE d", "sunionstore" },
		{ "SDIFFSTORE d", "sdiffstore" },
	};
	static const char *const wrongtype[] = {
		"SADD str a",
		"SREM str a",
		"SMEMBERS str",
		"SCARD str",
		"SISMEMBER str a",
		"SMISMEMBER str a",
		"SPOP str",
		"SPOP str 1",
		"SPOP str 0",
		"SRANDMEMBER str",
		"SRANDMEMBER str 1",
		"SRANDMEMBER str 0",
		"SINTER str",
		"SUNION str",
		"SDIFF str",
		"SINTER nokey str",
		"SUNION nokey str",
		"SDIFF nokey str",
		"SINTERCARD 2 nokey str",
		"SMOVE big str a",
		"SMOVE str big a",
		"SUNIONSTORE dst str",
	};
	char want[128];
	struct kv_db db;
	size_t i;

	db_init(&db);
	add_key(&db, "str", "x");
	run(&db, "SADD big 1 2 3 a b c", ":6\r\n");
	for (i = 0; i < sizeof(arity) / sizeof(arity[0]); i++) {
		snprintf(want, sizeof(want),
			 "-ERR wrong number of arguments for '%s' command\r\n",
			 arity[i][1]);
		run(&db, arity[i][0], want);
	}
	for (i = 0; i < sizeof(wrongtype) / sizeof(wrongtype[0]); i++)
		run(&db, wrongtype[i], WRONGTYPE);
	/* a count's check comes first, before the key's type */
	run(&db, "SPOP str -1",
	    "-ERR value is out of range, must be positive\r\n");
	run(&db, "SPOP nokey -1",
	    "-ERR value is out of range, must be positive\r\n");
	run(&db, "SPOP big x",
	    "-ERR value is out of range, must be positive\r\n");
	run(&db, "SPOP big 1.5",
	    "-ERR value is out of range, must be positive\r\n");
	run(&db, "SPOP big 9223372036854775808",
	    "-ERR value is out of range, must be positive\r\n");
	run(&db, "SPOP big 1 2", "-ERR syntax error\r\n");
	run(&db, "SRANDMEMBER big 1 2", "-ERR syntax error\r\n");
	run(&db, "SRANDMEMBER big x",
	    "-ERR value is not an integer or out of range\r\n");
	run(&db, "SRANDMEMBER big -9223372036854775808",
	    "-ERR value is out of range, value must between "
	    "-9223372036854775807 and 9223372036854775807\r\n");
	run(&db, "SINTERCARD 2 big big FOO 1", "-ERR syntax error\r\n");
	run(&db, "SINTERCARD 1 big LIMIT", "-ERR syntax error\r\n");
	run(&db, "SINTERCARD 3 big big",
	    "-ERR Number of keys can't be greater than number of args\r\n");
	run(&db, "SINTERCARD 0 big",
	    "-ERR numkeys should be greater than 0\r\n");
	run(&db, "SINTERCARD -1 big",
	    "-ERR numkeys should be greater than 0\r\n");
	run(&db, "SINTERCARD x big",
	    "-ERR numkeys should be greater than 0\r\n");
	run(&db, "SINTERCARD 1 big LIMIT x",
	    "-ERR LIMIT can't be negative\r\n");
	run(&db, "SINTERCARD 1 big LIMIT -5",
	    "-ERR LIMIT can't be negative\r\n");
	db_flush(&db);
}
END_TEST

START_TEST(algebra_as_redis)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "SADD big 1 2 3 a b c", ":6\r\n");
	run(&db, "SADD ints 1 2 3 4", ":4\r\n");
	/* the smallest set is walked: an intset, so ascending */
	run(&db, "SINTER ints big", "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
	run(&db, "SINTER big ints", "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
	run(&db, "SINTER big nokey", "*0\r\n");
	run(&db, "SUNION ints nokey",
	    "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n");
	run(&db, "SDIFF ints big", "*1\r\n$1\r\n4\r\n");
	run(&db, "SDIFF ints nokey",
	    "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n");
	run(&db, "SDIFF ints ints", "*0\r\n");
	run(&db, "SDIFF nokey ints", "*0\r\n");
	run(&db, "SINTERCARD 2 ints big", ":3\r\n");
	run(&db, "SINTERCARD 2 ints big LIMIT 2", ":2\r\n");
	run(&db, "SINTERCARD 2 ints big LIMIT 0", ":3\r\n");
	run(&db, "SINTERCARD 2 ints big limit 1", ":1\r\n");
	run(&db, "SINTERCARD 2 ints big LIMIT 1 LIMIT 5", ":3\r\n");
	run(&db, "SINTERCARD 1 nokey", ":0\r\n");
	run(&db, "SINTERSTORE dst ints big", ":3\r\n");
	run(&db, "SMEMBERS dst", "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
	run(&db, "SINTERSTORE dst ints nokey", ":0\r\n");
	run(&db, "EXISTS dst", ":0\r\n");
	/* a store replaces a key of any type, and drops its expiry */
	add_key(&db, "dst", "x");
	db_set_expire(&db, find_key(&db, "dst"), kv_now_ms() + 100000);
	run(&db, "SUNIONSTORE dst ints big", ":7\r\n");
	run(&db, "TYPE dst", "+set\r\n");
	run(&db, "TTL dst", ":-1\r\n");
	run(&db, "SDIFFSTORE dst ints big", ":1\r\n");
	run(&db, "SMEMBERS dst", "*1\r\n$1\r\n4\r\n");
	run(&db, "SDIFFSTORE dst ints ints", ":0\r\n");
	run(&db, "EXISTS dst", ":0\r\n");
	run(&db, "SUNIONSTORE ints ints big", ":7\r\n");
	run(&db, "SCARD ints", ":7\r\n");
	run(&db, "SDIFFSTORE dst nokey", ":0\r\n");
	db_flush(&db);
}
END_TEST

START_TEST(smove_as_redis)
{
	struct kv_db db;

	db_init(&db);
	add_key(&db, "str", "x");
	run(&db, "SADD big 1 2 3 a b c", ":6\r\n");
	run(&db, "SMOVE nokey big a", ":0\r\n");
	run(&db, "SMOVE nokey str a", ":0\r\n"); /* before the type's check */
	run(&db, "SMOVE big big a", ":1\r\n");
	run(&db, "SMOVE big big zz", ":0\r\n");
	run(&db, "SMOVE big newset a", ":1\r\n");
	run(&db, "SMEMBERS newset", "*1\r\n$1\r\na\r\n");
	run(&db, "SISMEMBER big a", ":0\r\n");
	run(&db, "SMOVE big newset zz", ":0\r\n");
	run(&db, "SMOVE newset big a", ":1\r\n");
	run(&db, "EXISTS newset", ":0\r\n");
	run(&db, "SADD one x", ":1\r\n");
	run(&db, "SMOVE one two x", ":1\r\n");
	run(&db, "EXISTS one", ":0\r\n");
	run(&db, "SMEMBERS two", "*1\r\n$1\r\nx\r\n");
	run(&db, "SADD three x", ":1\r\n");
	run(&db, "SMOVE three two x", ":1\r\n"); /* there already: 1 still */
	run(&db, "EXISTS three", ":0\r\n");
	run(&db, "SCARD two", ":1\r\n");
	db_flush(&db);
}
END_TEST

START_TEST(pop_and_rand_as_redis)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "SPOP nokey", "$-1\r\n");
	run(&db, "SPOP nokey 3", "*0\r\n");
	run(&db, "SPOP nokey 0", "*0\r\n");
	run(&db, "SRANDMEMBER nokey", "$-1\r\n");
	run(&db, "SRANDMEMBER nokey 3", "*0\r\n");
	run(&db, "SRANDMEMBER nokey -3", "*0\r\n");
	run(&db, "SADD two x", ":1\r\n");
	run(&db, "SPOP two 0", "*0\r\n");
	run(&db, "SRANDMEMBER two 0", "*0\r\n");
	run(&db, "SRANDMEMBER two 9223372036854775807", "*1\r\n$1\r\nx\r\n");
	run(&db, "SRANDMEMBER two 5", "*1\r\n$1\r\nx\r\n");
	run(&db, "SRANDMEMBER two -3",
	    "*3\r\n$1\r\nx\r\n$1\r\nx\r\n$1\r\nx\r\n");
	run(&db, "SRANDMEMBER two 1", "*1\r\n$1\r\nx\r\n");
	run(&db, "SRANDMEMBER two -1", "*1\r\n$1\r\nx\r\n");
	run(&db, "SRANDMEMBER two", "$1\r\nx\r\n");
	run(&db, "SPOP two 5", "*1\r\n$1\r\nx\r\n");
	run(&db, "EXISTS two", ":0\r\n");
	/* all of a set: in its order, ascending for integers */
	run(&db, "SADD p 5 3 9 1", ":4\r\n");
	run(&db, "SRANDMEMBER p 4",
	    "*4\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n5\r\n$1\r\n9\r\n");
	run(&db, "SRANDMEMBER p 10",
	    "*4\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n5\r\n$1\r\n9\r\n");
	run(&db, "SPOP p 4",
	    "*4\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n5\r\n$1\r\n9\r\n");
	run(&db, "EXISTS p", ":0\r\n");
	db_flush(&db);
}
END_TEST

/* ---- encodings ----------------------------------------------------------- */

/* 512 integers stay small; the 513th, or a string, makes the set large,
 * every member still there. */
START_TEST(small_to_large)
{
	struct kv_db db;
	char line[64];
	int i;

	db_init(&db);
	sadd_range(&db, "s", "%d", 0, 1024, 2);
	ck_assert(set_is_small(set_of(&db, "s")));
	run(&db, "SCARD s", ":512\r\n");
	run(&db, "SADD s 0 1022", ":0\r\n");
	ck_assert(set_is_small(set_of(&db, "s")));
	run(&db, "SADD s 7", ":1\r\n");
	ck_assert(!set_is_small(set_of(&db, "s")));
	for (i = 0; i < 1024; i++) {
		snprintf(line, sizeof(line), "SISMEMBER s %d", i);
		ck_assert_int_eq(call_int(&db, line), i % 2 == 0 || i == 7);
	}
	run(&db, "SCARD s", ":513\r\n");
	/* a string into a few integers */
	run(&db, "SADD t 3 1 2", ":3\r\n");
	run(&db, "SADD t x 2", ":1\r\n");
	ck_assert(!set_is_small(set_of(&db, "t")));
	run(&db, "SMISMEMBER t 1 2 3 x y",
	    "*5\r\n:1\r\n:1\r\n:1\r\n:1\r\n:0\r\n");
	/* large for good, as in redis: removing the string changes nothing */
	run(&db, "SREM t x", ":1\r\n");
	ck_assert(!set_is_small(set_of(&db, "t")));
	run(&db, "SCARD t", ":3\r\n");
	db_flush(&db);
}
END_TEST

/* Member i of large_through_rehash: every 97th 300 bytes long, past a
 * node's one-byte length. */
static size_t member(char *b, size_t cap, int i)
{
	int n = snprintf(b, cap, "m:%d", i);

	memset(b + n, 'z', cap - (size_t)n);
	return i % 97 ? (size_t)n : 300;
}

/* Through the type directly: each member findable after every add and
 * every removal, while the table grows, shrinks and rehashes a bucket at
 * a time. */
START_TEST(large_through_rehash)
{
	enum { N = 100000 };
	struct kv_set *s = set_new();
	char b[400];
	size_t n;
	int i, k;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < N; i++) {
		n = member(b, sizeof(b), i);
		ck_assert_int_eq(set_add(s, b, n), 1);
		n = member(b, sizeof(b), i / 2); /* likely not yet moved */
		ck_assert(set_has(s, b, n));
	}
	ck_assert_uint_eq(set_card(s), N);
	ck_assert_int_eq(set_add(s, "m:5", 3), 0);
	for (i = 0; i < N; i++) {
		n = member(b, sizeof(b), i);
		if (i % 10)
			ck_assert(set_remove(s, b, n));
		k = N - 1 - i / 2; /* gone if passed, and not a tenth */
		n = member(b, sizeof(b), k);
		ck_assert(set_has(s, b, n) == (k > i || k % 10 == 0));
	}
	ck_assert_uint_eq(set_card(s), N / 10);
	for (i = 0; i < N; i++) {
		n = member(b, sizeof(b), i);
		ck_assert(set_has(s, b, n) == !(i % 10));
	}
	set_free(s);
}
END_TEST

static void count_member(struct kv_set_iter *it, size_t *n)
{
	struct kv_member m;

	while (set_next(it, &m))
		(*n)++;
}

/* An iteration sees each member once, in the middle of a rehash too. */
START_TEST(iteration_sees_each_once)
{
	struct kv_set *s = set_new(), *seen = set_new();
	struct kv_set_iter it;
	struct kv_member m;
	char b[32];
	size_t n = 0;
	int i;

	for (i = 0; i < 3000; i++) /* 3000 > 2048: a rehash under way */
		ck_assert_int_eq(
			set_add(s, b, (size_t)snprintf(b, sizeof(b), "%d", i)),
			1);
	set_iter_init(&it, s);
	while (set_next(&it, &m))
		ck_assert_int_eq(set_add(seen, m.p, m.n), 1);
	ck_assert_uint_eq(set_card(seen), 3000);
	set_iter_init(&it, seen);
	count_member(&it, &n);
	ck_assert_uint_eq(n, 3000);
	set_free(s);
	set_free(seen);
}
END_TEST

/* 100,000 members through the commands, then every one removed: the key
 * goes with the last. */
START_TEST(large_by_commands)
{
	struct kv_db db;
	char line[64];
	int i;

	db_init(&db);
	for (i = 0; i < 100000; i += 1000)
		sadd_range(&db, "big", "element:%d", i, i + 1000, 1);
	run(&db, "SCARD big", ":100000\r\n");
	for (i = 0; i < 100000; i += 7) {
		snprintf(line, sizeof(line), "SISMEMBER big element:%d", i);
		ck_assert_int_eq(call_int(&db, line), 1);
	}
	for (i = 0; i < 100000; i++) {
		snprintf(line, sizeof(line), "SREM big element:%d", i);
		ck_assert_int_eq(call_int(&db, line), 1);
	}
	run(&db, "EXISTS big", ":0\r\n");
	db_flush(&db);
}
END_TEST

/* ---- random picks -------------------------------------------------------- */

static void check_members(struct kv_db *db, const char *key, struct strs *r)
{
	char line[128];
	int i;

	for (i = 0; i < r->n; i++) {
		snprintf(line, sizeof(line), "SISMEMBER %s %s", key, r->s[i]);
		ck_assert_int_eq(call_int(db, line), 1);
	}
}

/* SRANDMEMBER: a positive count gives that many distinct members (all
 * of them past the size), a negative one exactly that many, repeats
 * allowed; the set unchanged. Both encodings, and both of redis's ways
 * to pick distinct ones (count near the size, and far below it). */
START_TEST(srandmember_properties)
{
	static const char *const keys[] = { "small", "large" };
	static const int counts[] = { 1, 2, 10, 50, 150, 199, 200, 500 };
	struct kv_db db;
	struct strs r;
	char line[64];
	size_t k, c;

	set_seed(42);
	db_init(&db);
	sadd_range(&db, "small", "%d", 0, 200, 1);
	sadd_range(&db, "large", "m%d", 0, 200, 1);
	for (k = 0; k < 2; k++) {
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			snprintf(line, sizeof(line), "SRANDMEMBER %s %d",
				 keys[k], counts[c]);
			r = call(&db, line);
			ck_assert_int_eq(r.n,
					 counts[c] < 200 ? counts[c] : 200);
			ck_assert(distinct(&r));
			check_members(&db, keys[k], &r);
			strs_free(&r);
			snprintf(line, sizeof(line), "SRANDMEMBER %s -%d",
				 keys[k], counts[c]);
			r = call(&db, line);
			ck_assert_int_eq(r.n, counts[c]);
			check_members(&db, keys[k], &r);
			strs_free(&r);
		}
		snprintf(line, sizeof(line), "SCARD %s", keys[k]);
		ck_assert_int_eq(call_int(&db, line), 200);
	}
	db_flush(&db);
}
END_TEST

/* SPOP: count distinct members that were there and are no longer, the
 * set smaller by as many; the rest and the popped make the set. */
START_TEST(spop_properties)
{
	static const char *const keys[] = { "small", "large" };
	static const int counts[] = { 1, 3, 40, 100, 55 };
	struct kv_db db;
	struct strs r, all;
	char line[64];
	long long left;
	size_t k, c;
	int i;

	set_seed(7);
	db_init(&db);
	sadd_range(&db, "small", "%d", 0, 200, 1);
	sadd_range(&db, "large", "m%d", 0, 200, 1);
	for (k = 0; k < 2; k++) {
		left = 200;
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			snprintf(line, sizeof(line), "SPOP %s %d", keys[k],
				 counts[c]);
			r = call(&db, line);
			ck_assert_int_eq(r.n, counts[c]);
			ck_assert(distinct(&r));
			for (i = 0; i < r.n; i++) {
				snprintf(line, sizeof(line), "SISMEMBER %s %s",
					 keys[k], r.s[i]);
				ck_assert_int_eq(call_int(&db, line), 0);
			}
			strs_free(&r);
			left -= counts[c];
			snprintf(line, sizeof(line), "SCARD %s", keys[k]);
			ck_assert_int_eq(call_int(&db, line), left);
		}
		snprintf(line, sizeof(line), "SPOP %s", keys[k]);
		r = call(&db, line);
		ck_assert_int_eq(r.n, 1);
		strs_free(&r);
		snprintf(line, sizeof(line), "SMEMBERS %s", keys[k]);
		all = call(&db, line);
		ck_assert_int_eq(all.n, left - 1);
		snprintf(line, sizeof(line), "SPOP %s 1000", keys[k]);
		r = call(&db, line);
		ck_assert_int_eq(r.n, left - 1);
		ck_assert(distinct(&r) && distinct(&all));
		for (i = 0; i < r.n; i++)
			ck_assert_str_eq(r.s[i], all.s[i]);
		strs_free(&r);
		strs_free(&all);
		snprintf(line, sizeof(line), "EXISTS %s", keys[k]);
		ck_assert_int_eq(call_int(&db, line), 0);
	}
	db_flush(&db);
}
END_TEST

/* Random picks of a large set reach every member, while its table
 * shrinks as SPOP empties it. */
START_TEST(random_reaches_all)
{
	struct kv_set *s = set_new(), *seen = set_new();
	struct kv_member m;
	char b[32];
	int i;

	set_seed(1);
	for (i = 0; i < 64; i++)
		set_add(s, b, (size_t)snprintf(b, sizeof(b), "r%d", i));
	for (i = 0; i < 64 * 64; i++) {
		set_random(s, &m);
		ck_assert(set_has(s, m.p, m.n));
		set_add(seen, m.p, m.n);
	}
	ck_assert_uint_eq(set_card(seen), 64);
	set_free(seen);
	for (i = 0; i < 20000; i++)
		set_add(s, b, (size_t)snprintf(b, sizeof(b), "x%d", i));
	while (set_card(s)) {
		set_random(s, &m);
		ck_assert(set_remove(s, m.p, m.n));
	}
	set_free(s);
}
END_TEST

static Suite *kvset_suite(void)
{
	Suite *s = suite_create("kvset");
	TCase *tc = tcase_create("set");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, basics_as_redis);
	tcase_add_test(tc, errors_as_redis);
	tcase_add_test(tc, algebra_as_redis);
	tcase_add_test(tc, smove_as_redis);
	tcase_add_test(tc, pop_and_rand_as_redis);
	tcase_add_test(tc, small_to_large);
	tcase_add_test(tc, large_through_rehash);
	tcase_add_test(tc, iteration_sees_each_once);
	tcase_add_test(tc, large_by_commands);
	tcase_add_test(tc, srandmember_properties);
	tcase_add_test(tc, spop_properties);
	tcase_add_test(tc, random_reaches_all);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvset_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
