/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kv.c - libFuzzer target: the kv example's command layer
 * (examples/kv/cmd.c and c_*.c, over db.c and the types) on a whole
 * command stream against one keyspace, so that a key changing type
 * between commands (SET over a hash, LPUSH over a string, a RENAME onto
 * a stream) is covered, as redis-server would run it on one shard. The
 * stream is RESP (examples/kv/resp.c, multibulk or inline, as a client
 * sends it); an odd first byte also turns on the append-only file's
 * records (db->log), so that each write's record is made too.
 *
 * Refused here, not in the server: a count above 65,536 for
 * SRANDMEMBER and ZRANDMEMBER, which redis answers with that many
 * elements (a gigabyte for a count of -10^8 is a reply, not a bug), and
 * a bulk over 1 MiB (proto-max-bulk-len, which bounds SETRANGE and
 * APPEND too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../examples/kv/aof.h"
#include "../../examples/kv/cmd.h"

static struct kv_db db;
static struct kv_client client = { .id = 1,
				   .addr = "127.0.0.1:1",
				   .laddr = "127.0.0.1:6379" };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	kv_settings.proto_max_bulk_len = 1 << 20;
	kv_settings.maxclients = 10000;
	kv_settings.shards = 1;
	kv_settings.dir = "/nonexistent";
	db_init(&db);
	return 0;
}

static bool huge_count(int argc, const struct resp_arg *argv)
{
	long long v;
	int i;

	if (!(argv[0].len == 11 &&
	      (!strncasecmp(argv[0].p, "srandmember", 11) ||
	       !strncasecmp(argv[0].p, "zrandmember", 11))))
		return false;
	for (i = 2; i < argc; i++)
		if (resp_string2ll(argv[i].p, argv[i].len, &v) &&
		    (v > 65536 || v < -65536))
			return true;
	return false;
}

static void run_one(int argc, const struct resp_arg *argv, struct out *o,
		    struct out *log)
{
	const struct kv_cmd *c = kv_cmd_find(argv[0].p, argv[0].len);

	if (!c) {
		kv_reply_unknown(o, argc, argv);
		return;
	}
	if (huge_count(argc, argv) || !kv_cmd_check(c, argc, argv, o))
		return;
	db.logged = false;
	o->resp3 = client.resp3; /* after HELLO 3, RESP3's replies */
	kv_cmd_run(c, &db, &client, argc, argv, o);
	if (db.log && (c->flags & KV_WRITE) && !db.logged)
		aof_cmd(log, argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct resp_parser ps;
	struct out o, log;
	size_t start = 0;
	char *buf;

	if (n < 1)
		return 0;
	buf = malloc(n);
	if (!buf)
		abort();
	memcpy(buf, d + 1, n - 1);
	out_init(&o);
	out_init(&log);
	db.log = d[0] & 1 ? &log : NULL;
	resp_init(&ps, kv_settings.proto_max_bulk_len);
	while (resp_parse(&ps, buf + start, n - 1 - start) == RESP_CMD) {
		run_one(ps.argc, ps.argv, &o, &log);
		if (o.failed)
			abort(); /* out of memory on a 1 MiB reply: a bug */
		o.len = 0;
		log.len = 0;
		start += ps.used;
	}
	resp_free(&ps);
	out_free(&o);
	out_free(&log);
	db.log = NULL;
	db_flush(&db);
	free(buf);
	return 0;
}
