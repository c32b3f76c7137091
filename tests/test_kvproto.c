/* SPDX-License-Identifier: MIT */
/*
 * test_kvproto.c - the kv example's protocols and the connection's own
 * commands: RESP3's reply types beside RESP2's (examples/kv/out.h), the
 * commands whose replies change with HELLO 3, and HELLO, RESET, CONFIG
 * SET and COMMAND (cmd_doc.c's table) run on one connection's state.
 *
 * The expected bytes were read off redis-server 7.0.15 (raw RESP over a
 * socket, after HELLO 3 where RESP3); tests/kv-diff.sh compares the same
 * commands with a live redis-server in both protocols.
 */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../examples/kv/cmd_impl.h"
#include "kvtest.h"

/* One connection's state across commands, as kv_conn.c keeps it. */
static struct kv_client conn;

/* line on db (NULL for the connection's commands) in the connection's
 * protocol; its reply is want, byte for byte (NULL: any). */
static void say(struct kv_db *db, const char *line, const char *want)
{
	struct resp_arg a[64];
	char copy[1024], *save, *t;
	const struct kv_cmd *c;
	struct out o;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (t = strtok_r(copy, " ", &save); t && n < 64;
	     t = strtok_r(NULL, " ", &save)) {
		a[n].p = t;
		a[n++].len = strlen(t);
	}
	out_init(&o);
	o.resp3 = conn.resp3;
	c = kv_cmd_find(a[0].p, a[0].len);
	if (!c)
		kv_reply_unknown(&o, n, a);
	else if (kv_cmd_check(c, n, a, &o))
		kv_cmd_run(c, db, &conn, n, a, &o);
	ck_assert_msg(!want || (o.len == strlen(want) &&
				!memcmp(o.p, want, o.len)),
		      "%s: %.*s, not %s", line, (int)o.len, o.p, want);
	out_free(&o);
}

static void setup(void)
{
	memset(&conn, 0, sizeof(conn));
	conn.id = 7;
	atomic_store_explicit(&kv_settings.maxclients, 10000,
			      memory_order_relaxed);
	atomic_store_explicit(&kv_settings.timeout, 0, memory_order_relaxed);
}

/* ---- out.c ---------------------------------------------------------------- */

static void written(void (*fn)(struct out *o), bool resp3, const char *want)
{
	struct out o;

	out_init(&o);
	o.resp3 = resp3;
	fn(&o);
	ck_assert_uint_eq(o.len, strlen(want));
	ck_assert_msg(!memcmp(o.p, want, o.len), "%.*s, not %s", (int)o.len,
		      o.p, want);
	out_free(&o);
}

static void w_null(struct out *o)
{
	out_null(o);
	out_null_array(o);
}

static void w_aggregates(struct out *o)
{
	out_map(o, 2);
	out_set(o, 3);
}

static void w_doubles(struct out *o)
{
	out_double(o, 1);
	out_double(o, 2.5);
	out_double(o, -0.25);
	out_double(o, 1.0 / 0.0);
	out_double(o, -1.0 / 0.0);
}

static void w_verbatim(struct out *o)
{
	out_verbatim(o, "a\r\nb", 4);
}

static void w_scored(struct out *o)
{
	out_scored_array(o, 2, true);
	out_scored(o, "a", 1, 1.5, true);
	out_scored(o, "b", 1, 2, true);
	out_scored_array(o, 1, false);
	out_scored(o, "c", 1, 3, false);
}

static void w_set_at(struct out *o)
{
	size_t mark = o->len;

	out_bulk(o, "x", 1);
	out_set_at(o, mark, 1);
}

START_TEST(test_out_types)
{
	written(w_null, false, "$-1\r\n*-1\r\n");
	written(w_null, true, "_\r\n_\r\n");
	written(w_aggregates, false, "*4\r\n*3\r\n");
	written(w_aggregates, true, "%2\r\n~3\r\n");
	written(w_doubles, false,
		"$1\r\n1\r\n$3\r\n2.5\r\n$5\r\n-0.25\r\n$3\r\ninf\r\n"
		"$4\r\n-inf\r\n");
	written(w_doubles, true, ",1\r\n,2.5\r\n,-0.25\r\n,inf\r\n,-inf\r\n");
	written(w_verbatim, false, "$4\r\na\r\nb\r\n");
	written(w_verbatim, true, "=8\r\ntxt:a\r\nb\r\n");
	written(w_scored, false,
		"*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n"
		"*1\r\n$1\r\nc\r\n");
	written(w_scored, true,
		"*2\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,2\r\n"
		"*1\r\n$1\r\nc\r\n");
	written(w_set_at, false, "*1\r\n$1\r\nx\r\n");
	written(w_set_at, true, "~1\r\n$1\r\nx\r\n");
}
END_TEST

/* ---- replies that change with the protocol ------------------------------ */

START_TEST(test_resp3_replies)
{
	struct kv_db db;

	db_init(&db);
	conn.resp3 = true;
	say(&db, "HSET h f v", ":1\r\n");
	say(&db, "HGETALL h", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
	say(&db, "HGETALL none", "%0\r\n");
	say(&db, "SADD s a", ":1\r\n");
	say(&db, "SMEMBERS s", "~1\r\n$1\r\na\r\n");
	say(&db, "SMEMBERS none", "~0\r\n");
	say(&db, "SINTER s none", "~0\r\n");
	say(&db, "SUNION s", "~1\r\n$1\r\na\r\n");
	say(&db, "SRANDMEMBER s 5", "*1\r\n$1\r\na\r\n");
	say(&db, "SPOP none 2", "~0\r\n");
	say(&db, "ZADD z 1 a 2.5 b", ":2\r\n");
	say(&db, "ZRANGE z 0 -1 WITHSCORES",
	    "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n");
	say(&db, "ZRANGE z 0 0", "*1\r\n$1\r\na\r\n");
	say(&db, "ZSCORE z b", ",2.5\r\n");
	say(&db, "ZSCORE z c", "_\r\n");
	say(&db, "ZMSCORE z a c", "*2\r\n,1\r\n_\r\n");
	say(&db, "ZADD z XX INCR 1 c", "_\r\n");
	say(&db, "ZINCRBY z 1 a", ",2\r\n");
	say(&db, "ZPOPMIN z", "*2\r\n$1\r\na\r\n,2\r\n");
	say(&db, "ZPOPMIN z 1", "*1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n");
	say(&db, "GET none", "_\r\n");
	say(&db, "LPOP none 2", "_\r\n");
	say(&db, "MGET none", "*1\r\n_\r\n");
	conn.resp3 = false; /* the same in RESP2 */
	say(&db, "HGETALL h", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
	say(&db, "SMEMBERS s", "*1\r\n$1\r\na\r\n");
	say(&db, "ZADD z 1 a 2.5 b", ":2\r\n");
	say(&db, "ZRANGE z 0 -1 WITHSCORES",
	    "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$3\r\n2.5\r\n");
	say(&db, "ZPOPMIN z 1", "*2\r\n$1\r\na\r\n$1\r\n1\r\n");
	say(&db, "LPOP none 2", "*-1\r\n");
	db_flush(&db);
}
END_TEST

/* ---- HELLO, RESET ---------------------------------------------------------- */

#define HELLO_REPLY(head, proto)                                          \
	head "$6\r\nserver\r\n$9\r\nkv_server\r\n$7\r\nversion\r\n$6\r\n" \
	     "7.0.15\r\n$5\r\nproto\r\n:" proto "\r\n$2\r\nid\r\n:7\r\n"  \
	     "$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\n"    \
	     "master\r\n$7\r\nmodules\r\n*0\r\n"

START_TEST(test_hello_reset)
{
	char line[15 + 300 + 1];

	say(NULL, "HELLO", HELLO_REPLY("*14\r\n", "2"));
	ck_assert(!conn.resp3);
	say(NULL, "HELLO 3", HELLO_REPLY("%7\r\n", "3"));
	ck_assert(conn.resp3);
	say(NULL, "HELLO 2", HELLO_REPLY("*14\r\n", "2"));
	say(NULL, "HELLO 4", "-NOPROTO unsupported protocol version\r\n");
	say(NULL, "HELLO 1", "-NOPROTO unsupported protocol version\r\n");
	say(NULL, "HELLO x",
	    "-ERR Protocol version is not an integer or out of range\r\n");
	say(NULL, "HELLO 3 AUTH default anything", HELLO_REPLY("%7\r\n", "3"));
	say(NULL, "HELLO 2 AUTH Default x",
	    "-WRONGPASS invalid username-password pair or user is "
	    "disabled.\r\n");
	ck_assert(conn.resp3); /* an error switches nothing */
	say(NULL, "HELLO 2 AUTH default",
	    "-ERR Syntax error in HELLO option 'AUTH'\r\n");
	/* 7.0.15: the name set where it comes, kept after a later error */
	say(NULL, "HELLO 2 SETNAME first BADOPT",
	    "-ERR Syntax error in HELLO option 'BADOPT'\r\n");
	say(NULL, "CLIENT GETNAME", "$5\r\nfirst\r\n");
	memset(line, 'n', sizeof(line));
	memcpy(line, "CLIENT SETNAME ", 15);
	line[sizeof(line) - 1] = '\0'; /* a name of 300 bytes, as redis */
	say(NULL, line, "+OK\r\n");
	ck_assert_uint_eq(strlen(conn.name), 300);
	say(NULL, "RESET", "+RESET\r\n");
	ck_assert(!conn.resp3);
	say(NULL, "CLIENT GETNAME", "$-1\r\n");
	say(NULL, "RESET x",
	    "-ERR wrong number of arguments for 'reset' command\r\n");
}
END_TEST

/* ---- CONFIG ---------------------------------------------------------------- */

static int woken;

static void wake(void)
{
	woken++;
}

START_TEST(test_config_set)
{
	kv_settings.timeout_changed = wake;
	woken = 0;
	say(NULL, "CONFIG SET maxclients 100 timeout 60", "+OK\r\n");
	ck_assert_int_eq(woken, 1);
	say(NULL, "CONFIG GET maxclients timeout",
	    "*4\r\n$10\r\nmaxclients\r\n$3\r\n100\r\n$7\r\ntimeout\r\n"
	    "$2\r\n60\r\n");
	conn.resp3 = true;
	say(NULL, "CONFIG GET TIMEOUT", "%1\r\n$7\r\nTIMEOUT\r\n$2\r\n60\r\n");
	conn.resp3 = false;
	/* all or none: a bad value anywhere leaves every one as it was */
	say(NULL, "CONFIG SET maxclients 200 timeout x",
	    "-ERR CONFIG SET failed (possibly related to argument "
	    "'timeout') - argument couldn't be parsed into an integer\r\n");
	say(NULL, "CONFIG GET maxclients",
	    "*2\r\n$10\r\nmaxclients\r\n$3\r\n100\r\n");
	say(NULL, "CONFIG SET MAXCLIENTS 0",
	    "-ERR CONFIG SET failed (possibly related to argument "
	    "'maxclients') - argument must be between 1 and 4294967295 "
	    "inclusive\r\n");
	say(NULL, "CONFIG SET timeout -1",
	    "-ERR CONFIG SET failed (possibly related to argument "
	    "'timeout') - argument must be between 0 and 2147483647 "
	    "inclusive\r\n");
	say(NULL, "CONFIG SET TIMEOUT 0 timeout 0",
	    "-ERR CONFIG SET failed (possibly related to argument "
	    "'timeout') - duplicate parameter\r\n");
	say(NULL, "CONFIG SET nosuch 1 databases 2",
	    "-ERR Unknown option or number of arguments for CONFIG SET - "
	    "'nosuch'\r\n");
	say(NULL, "CONFIG SET databases 2 nosuch 1",
	    "-ERR CONFIG SET failed (possibly related to argument "
	    "'databases') - can't set immutable config\r\n");
	say(NULL, "CONFIG SET maxmemory 100",
	    "-ERR CONFIG SET failed (possibly related to argument "
	    "'maxmemory') - can't set immutable config\r\n");
	say(NULL, "CONFIG SET timeout 1 x", "-ERR syntax error\r\n");
	say(NULL, "CONFIG SET timeout",
	    "-ERR wrong number of arguments for 'config|set' command\r\n");
	say(NULL, "CONFIG GET",
	    "-ERR wrong number of arguments for 'config|get' command\r\n");
	say(NULL, "CONFIG nosuch",
	    "-ERR unknown subcommand 'nosuch'. Try CONFIG HELP.\r\n");
	say(NULL, "CONFIG SET maxclients 10000 timeout 0", "+OK\r\n");
	ck_assert_int_eq(woken, 2);
	kv_settings.timeout_changed = NULL;
}
END_TEST

/* ---- the idle clients' reaper ------------------------------------------------ */

START_TEST(test_reap)
{
	struct kv_client idle, busy;
	int a[2], b[2];
	char c;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
	memset(&idle, 0, sizeof(idle));
	memset(&busy, 0, sizeof(busy));
	idle.fd = a[0];
	busy.fd = b[0];
	atomic_init(&idle.last_ms, 1000);
	atomic_init(&busy.last_ms, 60000);
	kv_client_add(&idle);
	kv_client_add(&busy);
	ck_assert_int_eq(kv_clients_reap(70000), 0); /* timeout 0: never */
	atomic_store_explicit(&kv_settings.timeout, 60, memory_order_relaxed);
	ck_assert_int_eq(kv_clients_reap(61000), 0); /* 60 s: not past */
	ck_assert_int_eq(kv_clients_reap(62000), 1); /* 61 s: past */
	ck_assert_int_eq(read(a[0], &c, 1), 0);	     /* as if it had gone */
	kv_client_remove(&idle);
	kv_client_remove(&busy);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

/* ---- COMMAND and its documents ------------------------------------------------ */

START_TEST(test_command_table)
{
	size_t n, nd, i, shown = 0;
	const struct kv_cmd *t = kv_cmd_table(&n);
	const struct kv_doc *d = kv_doc_table(&nd), *doc;
	char parent[32], count[32];

	for (i = 0; i < n; i++) {
		if (t[i].flags & KV_INTERNAL)
			continue;
		shown++;
		doc = kv_doc_find(t[i].name);
		ck_assert_msg(doc != NULL, "%s: no document", t[i].name);
		/* the flags say what the table does */
		ck_assert_msg(!strstr(doc->flags, "write") ==
				      !(t[i].flags & KV_WRITE),
			      "%s: flags %s", t[i].name, doc->flags);
	}
	for (i = 0; i < nd; i++) {
		ck_assert_msg(kv_doc_valid(d[i].args), "%s: syntax %s",
			      d[i].name, d[i].args);
		ck_assert(i == 0 || strcmp(d[i - 1].name, d[i].name) < 0);
		/* every document is of a command here, or of its subcommand */
		snprintf(parent, sizeof(parent), "%.*s",
			 (int)strcspn(d[i].name, "|"), d[i].name);
		ck_assert_msg(kv_cmd_find(parent, strlen(parent)) != NULL,
			      "%s: no such command", d[i].name);
		ck_assert(!strchr(d[i].name, '|') || d[i].arity != 0);
	}
	snprintf(count, sizeof(count), ":%zu\r\n", shown);
	say(NULL, "COMMAND COUNT", count);
	ck_assert(!kv_doc_valid("key [x"));
	ck_assert(!kv_doc_valid("(a|b"));
	ck_assert(!kv_doc_valid("a  b"));
}
END_TEST

START_TEST(test_command_replies)
{
	say(NULL, "COMMAND INFO get nosuch",
	    "*2\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n"
	    ":1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n"
	    "*1\r\n*6\r\n$5\r\nflags\r\n*1\r\n+RO\r\n$12\r\nbegin_search\r\n"
	    "*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\n"
	    "index\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\n"
	    "range\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\n"
	    "keystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n$-1\r\n");
	say(NULL, "COMMAND DOCS get nosuch",
	    "*2\r\n$3\r\nget\r\n*8\r\n$7\r\nsummary\r\n$22\r\nGet the value "
	    "of a key\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\n"
	    "string\r\n$9\r\narguments\r\n*1\r\n*4\r\n$4\r\nname\r\n$3\r\n"
	    "key\r\n$4\r\ntype\r\n$3\r\nkey\r\n");
	conn.resp3 = true; /* SET's: a oneof of tokens with arguments */
	say(NULL, "COMMAND DOCS ping",
	    "%1\r\n$4\r\nping\r\n%4\r\n$7\r\nsummary\r\n$15\r\nPing the "
	    "server\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\n"
	    "connection\r\n$9\r\narguments\r\n*1\r\n%3\r\n$4\r\nname\r\n$7\r\n"
	    "message\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\nflags\r\n~1\r\n"
	    "+optional\r\n");
	conn.resp3 = false;
	say(NULL, "COMMAND GETKEYS mset a 1 b 2",
	    "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
	say(NULL, "COMMAND GETKEYS sintercard 2 a b LIMIT 1",
	    "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
	say(NULL, "COMMAND GETKEYS sintercard 5 a b",
	    "-ERR Invalid arguments specified for command\r\n");
	say(NULL, "COMMAND GETKEYS client list",
	    "-ERR The command has no key arguments\r\n");
	say(NULL, "COMMAND GETKEYS nosuch a",
	    "-ERR Invalid command specified\r\n");
	say(NULL, "COMMAND GETKEYS zadd a",
	    "-ERR Invalid number of arguments specified for command\r\n");
	say(NULL, "COMMAND LIST FILTERBY PATTERN client|*n*",
	    "*3\r\n$14\r\nclient|getname\r\n$11\r\nclient|info\r\n$14\r\n"
	    "client|setname\r\n");
	say(NULL, "COMMAND LIST FILTERBY nosuch x", "-ERR syntax error\r\n");
	say(NULL, "COMMAND COUNT x",
	    "-ERR wrong number of arguments for 'command|count' command\r\n");
	say(NULL, "COMMAND nosuch",
	    "-ERR unknown subcommand 'nosuch'. Try COMMAND HELP.\r\n");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kvproto");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_out_types);
	tcase_add_test(tc, test_resp3_replies);
	tcase_add_test(tc, test_hello_reset);
	tcase_add_test(tc, test_config_set);
	tcase_add_test(tc, test_reap);
	tcase_add_test(tc, test_command_table);
	tcase_add_test(tc, test_command_replies);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
