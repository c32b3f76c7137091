/* SPDX-License-Identifier: MIT */
/*
 * test_kvstream.c - the kv example's streams (examples/kv/stream.h) and
 * their commands (c_stream.c), run on one shard with redis-server 7.0's
 * replies: every expected reply below is the one redis-server 7.0.15
 * gave to the same commands in the same order. IDs and their errors,
 * ranges, deletion, and trimming, "~" included: it removes whole nodes,
 * so the nodes must close where redis's listpacks do, by entries and by
 * bytes.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvtest.h"

static void run_table(struct kv_db *db, const char *const (*t)[2], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		run(db, t[i][0], t[i][1]);
}

#define RUN_TABLE(db, t) run_table(db, t, sizeof(t) / sizeof(t[0]))

/* A command made with printf's format, its reply not looked at. */
static void runf(struct kv_db *db, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void runf(struct kv_db *db, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	run_any(db, line);
}

/* The integer a command answers. */
static long long int_of(struct kv_db *db, const char *line)
{
	struct resp_arg a[8];
	char copy[256], *save, *t;
	struct kv_client cl = { .id = 1 };
	const struct kv_cmd *c;
	struct out o;
	long long v;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (t = strtok_r(copy, " ", &save); t && n < 8;
	     t = strtok_r(NULL, " ", &save)) {
		a[n].p = t;
		a[n++].len = strlen(t);
	}
	out_init(&o);
	c = kv_cmd_find(a[0].p, a[0].len);
	ck_assert(c && kv_cmd_check(c, n, a, &o));
	kv_cmd_run(c, db, &cl, n, a, &o);
	ck_assert_msg(o.len && o.p[0] == ':', "%s: %.*s", line, (int)o.len,
		      o.p);
	v = strtoll(o.p + 1, NULL, 10);
	out_free(&o);
	return v;
}

/* IDs given, made ("ms-*") and refused; ranges; deletion to an empty
 * stream that stays; the wrong type. */
static const char *const stream_basics[][2] = {
	{ "XADD s 1-1 f v", "$3\r\n1-1\r\n" },
	{ "XADD s 1-1 f v",
	  "-ERR The ID specified in XADD is equal or smaller than the "
	  "target stream top item\r\n" },
	{ "XADD s 1-0 f v",
	  "-ERR The ID specified in XADD is equal or smaller than the "
	  "target stream top item\r\n" },
	{ "XADD s 1 f v",
	  "-ERR The ID specified in XADD is equal or smaller than the "
	  "target stream top item\r\n" },
	{ "XADD s 1-* f v", "$3\r\n1-2\r\n" },
	{ "XADD s 1-* a b c d", "$3\r\n1-3\r\n" },
	{ "XADD s 2-* f v", "$3\r\n2-0\r\n" },
	{ "XADD s 5 f v g w", "$3\r\n5-0\r\n" },
	{ "XRANGE s - +",
	  "*5\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n1-3\r\n"
	  "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n*2\r\n$3\r\n"
	  "2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n5-0\r\n*4\r\n"
	  "$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n" },
	{ "XREVRANGE s + -",
	  "*5\r\n*2\r\n$3\r\n5-0\r\n*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n"
	  "$1\r\nw\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-3\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"
	  "*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n"
	  "1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" },
	{ "XRANGE s - + COUNT 2",
	  "*2\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" },
	{ "XREVRANGE s + - COUNT 2",
	  "*2\r\n*2\r\n$3\r\n5-0\r\n*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n"
	  "$1\r\nw\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" },
	{ "XRANGE s - + COUNT 0", "*-1\r\n" },
	{ "XRANGE s - + COUNT -1", "*-1\r\n" },
	{ "XRANGE s 1 1",
	  "*3\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n1-3\r\n"
	  "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n" },
	{ "XRANGE s 1-2 2",
	  "*3\r\n*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-3\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"
	  "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" },
	{ "XRANGE s (1-1 (5",
	  "*4\r\n*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-3\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"
	  "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n"
	  "5-0\r\n*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n" },
	{ "XRANGE s (1-1 (5-0",
	  "*3\r\n*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-3\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"
	  "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" },
	{ "XREVRANGE s (5-0 (1-1",
	  "*3\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-3\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"
	  "*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n" },
	{ "XRANGE s (- +",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XRANGE s - (+",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XRANGE s (0-0 +",
	  "*5\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n1-3\r\n"
	  "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n*2\r\n$3\r\n"
	  "2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n5-0\r\n*4\r\n"
	  "$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n" },
	{ "XRANGE s ( +",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XRANGE s (18446744073709551615-18446744073709551615 +",
	  "-ERR invalid start ID for the interval\r\n" },
	{ "XRANGE s - (0-0", "-ERR invalid end ID for the interval\r\n" },
	{ "XRANGE s - (0", "*0\r\n" },
	{ "XRANGE s 3 2", "*0\r\n" },
	{ "XRANGE s abc +",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XRANGE s - + COUNT", "-ERR syntax error\r\n" },
	{ "XRANGE s - + COUNT x",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XRANGE s - + FOO 1", "-ERR syntax error\r\n" },
	{ "XRANGE s - + count 1 COUNT 3",
	  "*3\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n1-3\r\n"
	  "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n" },
	{ "XRANGE nokey - +", "*0\r\n" },
	{ "XRANGE nokey abc +",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XRANGE nokey - + COUNT 0", "*0\r\n" },
	{ "XLEN s", ":5\r\n" },
	{ "XLEN nokey", ":0\r\n" },
	{ "XDEL s 1-1 1-2 9-9", ":2\r\n" },
	{ "XLEN s", ":3\r\n" },
	{ "XRANGE s - +",
	  "*3\r\n*2\r\n$3\r\n1-3\r\n*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"
	  "$1\r\nd\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	  "$3\r\n5-0\r\n*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n" },
	{ "XDEL s -",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XDEL s 1-3 +",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XDEL s abc",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XDEL nokey abc", ":0\r\n" },
	{ "XDEL s 1-3", ":1\r\n" },
	{ "XDEL s 1", ":0\r\n" },
	{ "XDEL s 2", ":1\r\n" },
	{ "XLEN s", ":1\r\n" },
	{ "XDEL s 1-3 5-0", ":1\r\n" },
	{ "XLEN s", ":0\r\n" },
	{ "XRANGE s - +", "*0\r\n" },
	{ "EXISTS s", ":1\r\n" },
	{ "TYPE s", "+stream\r\n" },
	{ "XADD s 5 f v",
	  "-ERR The ID specified in XADD is equal or smaller than the "
	  "target stream top item\r\n" },
	{ "XADD s 5-1 f v", "$3\r\n5-1\r\n" },
	{ "XLEN s", ":1\r\n" },
	{ "XADD s 0-0 f v",
	  "-ERR The ID specified in XADD must be greater than 0-0\r\n" },
	{ "XADD new 0-0 f v",
	  "-ERR The ID specified in XADD must be greater than 0-0\r\n" },
	{ "EXISTS new", ":0\r\n" },
	{ "XADD new 0-* f v", "$3\r\n0-1\r\n" },
	{ "XADD new 0 f v",
	  "-ERR The ID specified in XADD must be greater than 0-0\r\n" },
	{ "XADD s f v",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s * f",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s * f v g",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s", "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s 1-x f v",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XADD s -1 f v",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XADD s 18446744073709551616 f v",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XADD s 18446744073709551615-18446744073709551615 f v",
	  "$41\r\n18446744073709551615-18446744073709551615\r\n" },
	{ "XADD s * f v",
	  "-ERR The stream has exhausted the last possible ID, unable "
	  "to add more items\r\n" },
	{ "XADD s 18446744073709551615-* f v",
	  "-ERR The stream has exhausted the last possible ID, unable "
	  "to add more items\r\n" },
	{ "XADD nomk NOMKSTREAM * f v", "$-1\r\n" },
	{ "EXISTS nomk", ":0\r\n" },
	{ "XADD nomk nomkstream 1-1 f v", "$-1\r\n" },
	{ "XADD s NOMKSTREAM 1-1 f v",
	  "-ERR The stream has exhausted the last possible ID, unable "
	  "to add more items\r\n" },
	{ "SET str x", "+OK\r\n" },
	{ "XADD str * f v",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
	{ "XLEN str",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
	{ "XRANGE str - +",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
	{ "XREVRANGE str + -",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
	{ "XDEL str 1-1",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
	{ "XTRIM str MAXLEN 1",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
	{ "XADD str NOMKSTREAM * f v",
	  "-WRONGTYPE Operation against a key holding the wrong kind "
	  "of value\r\n" },
};

START_TEST(ids_ranges_deletion)
{
	struct kv_db db;

	db_init(&db);
	RUN_TABLE(&db, stream_basics);
	db_flush(&db);
}
END_TEST

/* XADD's and XTRIM's options and their errors, in redis's order; a
 * trimmed-away entry keeps its ID the last. */
static const char *const stream_options[][2] = {
	{ "XADD s 350-1 f v", "$5\r\n350-1\r\n" },
	{ "XTRIM s MAXLEN 0", ":1\r\n" },
	{ "XTRIM s", "-ERR wrong number of arguments for 'xtrim' command\r\n" },
	{ "XTRIM s MAXLEN",
	  "-ERR wrong number of arguments for 'xtrim' command\r\n" },
	{ "XTRIM s FOO 1", "-ERR syntax error\r\n" },
	{ "XTRIM s MAXLEN -1", "-ERR The MAXLEN argument must be >= 0.\r\n" },
	{ "XTRIM s MAXLEN x",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XTRIM s MAXLEN 1 MINID 1",
	  "-ERR syntax error, MAXLEN and MINID options at the same "
	  "time are not compatible\r\n" },
	{ "XTRIM s MINID 1 MAXLEN 1",
	  "-ERR syntax error, MAXLEN and MINID options at the same "
	  "time are not compatible\r\n" },
	{ "XTRIM s MAXLEN 1 LIMIT 5",
	  "-ERR syntax error, LIMIT cannot be used without the special "
	  "~ option\r\n" },
	{ "XTRIM s MAXLEN = 1 LIMIT 5",
	  "-ERR syntax error, LIMIT cannot be used without the special "
	  "~ option\r\n" },
	{ "XTRIM s LIMIT 5 MAXLEN ~ 1", ":0\r\n" },
	{ "XTRIM s LIMIT 5",
	  "-ERR syntax error, LIMIT cannot be used without specifying "
	  "a trimming strategy\r\n" },
	{ "XTRIM s LIMIT 0",
	  "-ERR syntax error, XTRIM must be called with a trimming "
	  "strategy\r\n" },
	{ "XTRIM s LIMIT -1 MAXLEN 1",
	  "-ERR The LIMIT argument must be >= 0.\r\n" },
	{ "XTRIM s LIMIT x MAXLEN 1",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XTRIM s MINID -",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XTRIM s MINID +",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XTRIM s MINID 1-*",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XTRIM s MINID abc",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XTRIM s MINID ~ 5", ":0\r\n" },
	{ "XTRIM s MINID = 5", ":0\r\n" },
	{ "XTRIM s MAXLEN ~",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XTRIM s MAXLEN ~ ~",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XTRIM s MAXLEN =",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XTRIM nokey MAXLEN 1", ":0\r\n" },
	{ "XTRIM nokey FOO",
	  "-ERR wrong number of arguments for 'xtrim' command\r\n" },
	{ "XTRIM s maxlen 1 limit", "-ERR syntax error\r\n" },
	{ "XADD s MAXLEN",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s MAXLEN 1",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s MAXLEN 1 * f",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s MAXLEN x * f v",
	  "-ERR value is not an integer or out of range\r\n" },
	{ "XADD s LIMIT 5 * f v",
	  "-ERR syntax error, LIMIT cannot be used without specifying "
	  "a trimming strategy\r\n" },
	{ "XADD s MAXLEN 5 LIMIT 5 * f v",
	  "-ERR syntax error, LIMIT cannot be used without the special "
	  "~ option\r\n" },
	{ "XADD s MAXLEN 5 MINID 5 * f v",
	  "-ERR syntax error, MAXLEN and MINID options at the same "
	  "time are not compatible\r\n" },
	{ "XADD s LIMIT 0 * f v",
	  "-ERR syntax error, LIMIT cannot be used without the special "
	  "~ option\r\n" },
	{ "XADD s NOMKSTREAM",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s MINID 1-* * f v",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XADD s FOO f v",
	  "-ERR Invalid stream ID specified as stream command argument\r\n" },
	{ "XADD s MAXLEN ~ 1 LIMIT -1 * f v",
	  "-ERR The LIMIT argument must be >= 0.\r\n" },
	{ "XADD s MAXLEN -1 * f v",
	  "-ERR The MAXLEN argument must be >= 0.\r\n" },
	{ "XADD s LIMIT 3 MAXLEN 5 * f v",
	  "-ERR syntax error, LIMIT cannot be used without the special "
	  "~ option\r\n" },
	{ "XADD s 1-1 1-2 f v",
	  "-ERR wrong number of arguments for 'xadd' command\r\n" },
	{ "XADD s MAXLEN = 0 9999999999999-1 f v",
	  "$15\r\n9999999999999-1\r\n" },
	{ "XLEN s", ":0\r\n" },
	{ "EXISTS s", ":1\r\n" },
	{ "XRANGE s - +", "*0\r\n" },
	{ "XADD e MINID 100 5-1 f v", "$3\r\n5-1\r\n" },
	{ "XLEN e", ":0\r\n" },
	{ "EXISTS e", ":1\r\n" },
	{ "XRANGE e - +", "*0\r\n" },
	{ "XADD e 5-2 f v", "$3\r\n5-2\r\n" },
	{ "XADD e NOMKSTREAM 6-1 f v", "$3\r\n6-1\r\n" },
	{ "XLEN e", ":2\r\n" },
	{ "XLEN", "-ERR wrong number of arguments for 'xlen' command\r\n" },
	{ "XRANGE s -",
	  "-ERR wrong number of arguments for 'xrange' command\r\n" },
	{ "XREVRANGE s +",
	  "-ERR wrong number of arguments for 'xrevrange' command\r\n" },
	{ "XDEL s", "-ERR wrong number of arguments for 'xdel' command\r\n" },
	{ "XTRIM s MAXLEN",
	  "-ERR wrong number of arguments for 'xtrim' command\r\n" },
};

START_TEST(options_and_errors)
{
	struct kv_db db;

	db_init(&db);
	RUN_TABLE(&db, stream_options);
	db_flush(&db);
}
END_TEST

/* Trimming 350 entries of 100-entry nodes: "~" only whole nodes, "="
 * into a node too, MINID by the last ID of a node, LIMIT. */
static const char *const stream_trims[][2] = {
	{ "XLEN s", ":350\r\n" },
	{ "XTRIM s MAXLEN ~ 300", ":0\r\n" },
	{ "XLEN s", ":350\r\n" },
	{ "XTRIM s MAXLEN ~ 150", ":200\r\n" },
	{ "XLEN s", ":150\r\n" },
	{ "XRANGE s - + COUNT 1",
	  "*1\r\n*2\r\n$5\r\n201-1\r\n*2\r\n$1\r\nf\r\n$4\r\nv201\r\n" },
	{ "XTRIM s MAXLEN = 149", ":1\r\n" },
	{ "XLEN s", ":149\r\n" },
	{ "XRANGE s - + COUNT 2",
	  "*2\r\n*2\r\n$5\r\n202-1\r\n*2\r\n$1\r\nf\r\n$4\r\nv202\r\n*2\r\n"
	  "$5\r\n203-1\r\n*2\r\n$1\r\nf\r\n$4\r\nv203\r\n" },
	{ "XTRIM s MAXLEN 120", ":29\r\n" },
	{ "XRANGE s - + COUNT 1",
	  "*1\r\n*2\r\n$5\r\n231-1\r\n*2\r\n$1\r\nf\r\n$4\r\nv231\r\n" },
	{ "XTRIM s MINID ~ 260", ":0\r\n" },
	{ "XLEN s", ":120\r\n" },
	{ "XTRIM s MINID 260-1", ":29\r\n" },
	{ "XLEN s", ":91\r\n" },
	{ "XRANGE s - + COUNT 1",
	  "*1\r\n*2\r\n$5\r\n260-1\r\n*2\r\n$1\r\nf\r\n$4\r\nv260\r\n" },
	{ "XTRIM s MINID ~ 301", ":41\r\n" },
	{ "XLEN s", ":50\r\n" },
	{ "XTRIM s MAXLEN ~ 0 LIMIT 10", ":0\r\n" },
	{ "XLEN s", ":50\r\n" },
	{ "XTRIM s MAXLEN ~ 0 LIMIT 100", ":50\r\n" },
	{ "XLEN s", ":0\r\n" },
	{ "XTRIM s MAXLEN ~ 0 LIMIT 0", ":0\r\n" },
	{ "XLEN s", ":0\r\n" },
	{ "XTRIM s MAXLEN 0", ":0\r\n" },
	{ "XLEN s", ":0\r\n" },
};

START_TEST(trim_whole_nodes)
{
	struct kv_db db;
	int i;

	db_init(&db);
	for (i = 1; i <= 350; i++)
		runf(&db, "XADD s %d-1 f v%d", i, i);
	RUN_TABLE(&db, stream_trims);
	run(&db, "EXISTS s", ":1\r\n"); /* empty, and kept */
	/* each XADD trims: the nodes of 100 go while 120 are left */
	for (i = 1; i <= 250; i++)
		runf(&db, "XADD t MAXLEN ~ 120 %d f v", i);
	run(&db, "XLEN t", ":150\r\n");
	run(&db, "XRANGE t - + COUNT 1",
	    "*1\r\n*2\r\n$5\r\n101-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
	for (i = 401; i <= 450; i++)
		runf(&db, "XADD t MINID 330 %d f v", i);
	run(&db, "XLEN t", ":50\r\n");
	run(&db, "XRANGE t - + COUNT 1",
	    "*1\r\n*2\r\n$5\r\n401-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
	db_flush(&db);
}
END_TEST

/* Nodes that close by bytes (4096 in redis's listpack), with values of
 * every size, and integers that listpack stores in fewer bytes. */
START_TEST(nodes_close_by_bytes)
{
	char v[300];
	struct kv_db db;
	int i;

	db_init(&db);
	for (i = 1; i <= 120; i++) {
		memset(v, 'x', sizeof(v));
		v[i * 7 % 300] = '\0';
		runf(&db, "XADD b %d-0 field%d %s", i, i % 3, v);
	}
	run(&db, "XLEN b", ":120\r\n");
	run(&db, "XTRIM b MAXLEN ~ 100", ":0\r\n");
	run(&db, "XTRIM b MAXLEN ~ 50", ":57\r\n");
	run(&db, "XLEN b", ":63\r\n");
	run(&db, "XTRIM b MAXLEN ~ 10", ":49\r\n");
	run(&db, "XLEN b", ":14\r\n");
	for (i = 1; i <= 300; i++) {
		if (i % 5)
			runf(&db, "XADD c %d-%d a b d %d", i * 100000, i,
			     i * 77777);
		else
			runf(&db, "XADD c %d-%d c %d d %d", i * 100000, i,
			     i * 1000, i * 77777);
	}
	run(&db, "XTRIM c MAXLEN ~ 280", ":0\r\n");
	run(&db, "XTRIM c MAXLEN ~ 250", ":0\r\n");
	run(&db, "XTRIM c MAXLEN ~ 200", ":100\r\n");
	run(&db, "XTRIM c MAXLEN ~ 120", ":0\r\n");
	run(&db, "XTRIM c MAXLEN ~ 50", ":100\r\n");
	run(&db, "XLEN c", ":100\r\n");
	db_flush(&db);
}
END_TEST

/* Deleted entries stay in their node (counted for its fullness, not in
 * the length); a node whose every entry is deleted goes. */
START_TEST(deleted_entries)
{
	struct kv_db db;
	int i;

	db_init(&db);
	for (i = 1; i <= 300; i++)
		runf(&db, "XADD d %d f v", i);
	for (i = 1; i < 100; i += 2)
		runf(&db, "XDEL d %d", i);
	run(&db, "XTRIM d MAXLEN ~ 240", ":0\r\n");
	run(&db, "XLEN d", ":250\r\n");
	run(&db, "XTRIM d MAXLEN ~ 150", ":50\r\n");
	run(&db, "XLEN d", ":200\r\n");
	for (i = 101; i <= 200; i++)
		runf(&db, "XDEL d %d", i);
	run(&db, "XLEN d", ":100\r\n");
	run(&db, "XADD d 301 f v", "$5\r\n301-0\r\n");
	run(&db, "XTRIM d MINID 250", ":49\r\n");
	run(&db, "XLEN d", ":52\r\n");
	run(&db, "XRANGE d - + COUNT 2",
	    "*2\r\n*2\r\n$5\r\n250-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	    "$5\r\n251-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
	run(&db, "XREVRANGE d + - COUNT 2",
	    "*2\r\n*2\r\n$5\r\n301-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	    "$5\r\n300-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
	run(&db, "XRANGE d (249 251",
	    "*2\r\n*2\r\n$5\r\n250-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n"
	    "$5\r\n251-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
	run(&db, "XRANGE d 201 249", "*0\r\n");
	db_flush(&db);
}
END_TEST

/* "*" IDs from the clock: after the last, never before it, whatever the
 * clock says. */
START_TEST(clock_ids)
{
	struct kv_stream *s;
	struct kv_sid last;
	struct kv_db db;
	uint64_t now = (uint64_t)kv_now_ms();
	int i;

	db_init(&db);
	for (i = 0; i < 1000; i++)
		run_any(&db, "XADD s * f v");
	run(&db, "XLEN s", ":1000\r\n");
	s = db_stream(find_key(&db, "s"));
	last = stream_last_id(s);
	ck_assert_uint_ge(last.ms, now);
	/* an explicit ID far in the future: "*" goes on from it */
	run(&db, "XADD s 99999999999999-5 f v", "$16\r\n99999999999999-5\r\n");
	run(&db, "XADD s * f v", "$16\r\n99999999999999-6\r\n");
	run(&db, "XADD s 99999999999999-* f v", "$16\r\n99999999999999-7\r\n");
	db_flush(&db);
}
END_TEST

/* Each entry's ID follows the one before, forward and backward. */
static void check_order(struct kv_stream *s, size_t want)
{
	struct kv_sid lo = { 0, 0 }, hi = { UINT64_MAX, UINT64_MAX }, prev;
	struct kv_stream_iter it;
	const struct kv_sentry *e;
	size_t n = 0;

	stream_iter_init(&it, s, lo, hi, false);
	for (; (e = stream_next(&it)); n++, prev = e->id)
		ck_assert(!n || sid_cmp(prev, e->id) < 0);
	ck_assert_uint_eq(n, want);
	stream_iter_init(&it, s, lo, hi, true);
	for (n = 0; (e = stream_next(&it)); n++, prev = e->id)
		ck_assert(!n || sid_cmp(prev, e->id) > 0);
	ck_assert_uint_eq(n, want);
}

/* 200,000 entries: appended in O(1) each, found by two binary searches,
 * deleted and trimmed; the order kept throughout. */
START_TEST(large_stream)
{
	enum { N = 200000 };
	struct resp_arg fv[2] = { { "f", 1 }, { "value", 5 } };
	struct kv_stream_iter it;
	struct kv_stream *s = stream_new();
	const struct kv_sentry *e;
	struct kv_sid id;
	const unsigned char *at;
	size_t n;
	int i;

	for (i = 1; i <= N; i++) {
		id = (struct kv_sid){ (uint64_t)i / 3, (uint64_t)i % 3 };
		ck_assert(stream_append(s, id, fv, 1));
	}
	ck_assert_uint_eq(stream_len(s), N);
	check_order(s, N);
	for (i = 3; i <= N; i += 3) /* every entry of ms % 3 == 1... */
		ck_assert(stream_delete(s,
					(struct kv_sid){ (uint64_t)i / 3, 0 }));
	ck_assert(!stream_delete(s, (struct kv_sid){ 3, 0 }));
	ck_assert_uint_eq(stream_len(s), N - N / 3);
	check_order(s, N - N / 3);
	id = (struct kv_sid){ 30000, 0 }; /* deleted: the range starts after */
	stream_iter_init(&it, s, id, (struct kv_sid){ 30001, 0 }, false);
	e = stream_next(&it);
	ck_assert(e && e->id.ms == 30000 && e->id.seq == 1);
	at = e->data;
	ck_assert(!memcmp(sentry_item(&at, &n), "f", 1) && n == 1);
	ck_assert(!memcmp(sentry_item(&at, &n), "value", 5) && n == 5);
	e = stream_next(&it);
	ck_assert(e && e->id.ms == 30000 && e->id.seq == 2);
	ck_assert_ptr_null(stream_next(&it));
	ck_assert_uint_eq(stream_trim(s,
				      &(struct kv_trim){ .by = KV_TRIM_MAXLEN,
							 .maxlen = 10 }),
			  N - N / 3 - 10);
	check_order(s, 10);
	stream_free(s);
}
END_TEST

/* The same through the commands, in time a quadratic store would not
 * keep: 100,000 XADDs, then ranges of the far end. */
/*
 * XSETID may put the last ID below a deleted entry; what is added then
 * follows that entry in its node, as in redis's listpack. The
 * differential test found XDEL missing it (seed 403, 389,200 commands in):
 * lookups must pass deleted entries over before they compare IDs.
 */
START_TEST(entry_after_a_deleted_higher_one)
{
	struct kv_db db;

	db_init(&db);
	run(&db, "XADD x 1-0 a 1", "$3\r\n1-0\r\n");
	run(&db, "XADD x 3-0 a 2", "$3\r\n3-0\r\n");
	run(&db, "XDEL x 3-0", ":1\r\n");
	run(&db, "XSETID x 2-0", "+OK\r\n");
	run(&db, "XADD x 2-1 a 3", "$3\r\n2-1\r\n");
	run(&db, "XRANGE x 2-1 2-1",
	    "*1\r\n*2\r\n$3\r\n2-1\r\n*2\r\n$1\r\na\r\n$1\r\n3\r\n");
	run(&db, "XREVRANGE x + 2",
	    "*1\r\n*2\r\n$3\r\n2-1\r\n*2\r\n$1\r\na\r\n$1\r\n3\r\n");
	run(&db, "XDEL x 2-1", ":1\r\n");
	run(&db, "XLEN x", ":1\r\n");
	db_flush(&db);
}
END_TEST

START_TEST(many_xadds)
{
	struct kv_db db;
	int i;

	db_init(&db);
	for (i = 1; i <= 100000; i++)
		runf(&db, "XADD big %d-0 field %d", i, i);
	ck_assert_int_eq(int_of(&db, "XLEN big"), 100000);
	run(&db, "XREVRANGE big + - COUNT 1",
	    "*1\r\n*2\r\n$8\r\n100000-0\r\n*2\r\n$5\r\nfield\r\n"
	    "$6\r\n100000\r\n");
	run(&db, "XRANGE big 99999 99999",
	    "*1\r\n*2\r\n$7\r\n99999-0\r\n*2\r\n$5\r\nfield\r\n"
	    "$5\r\n99999\r\n");
	ck_assert_int_eq(int_of(&db, "XDEL big 50000 50001 50000"), 2);
	ck_assert_int_eq(int_of(&db, "XTRIM big MINID 99000"), 98997);
	ck_assert_int_eq(int_of(&db, "XLEN big"), 1001);
	db_flush(&db);
}
END_TEST

static Suite *kvstream_suite(void)
{
	Suite *s = suite_create("kvstream");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ids_ranges_deletion);
	tcase_add_test(tc, options_and_errors);
	tcase_add_test(tc, trim_whole_nodes);
	tcase_add_test(tc, nodes_close_by_bytes);
	tcase_add_test(tc, deleted_entries);
	tcase_add_test(tc, clock_ids);
	tcase_add_test(tc, large_stream);
	tcase_add_test(tc, many_xadds);
	tcase_add_test(tc, entry_after_a_deleted_higher_one);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kvstream_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
