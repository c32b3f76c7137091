/* SPDX-License-Identifier: MIT */
/*
 * cmd.c - the kv example's command table (cmd.h): the parts of the
 * c_*.c files made one, the lookup by name, and the checks every command
 * shares before it runs.
 */
#include "cmd_impl.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct kv_settings kv_settings = {
	.proto_max_bulk_len = RESP_MAX_BULK_DEFAULT,
	.maxclients = 10000,
	.shards = 1,
	.appendfsync = 1,
	.dir = ".",
};

#define CMD_MAX 256	/* commands in all */
#define NAME_MAX_LEN 16 /* the longest name: zrevrangebyscore */
#define NSLOTS 512	/* the lookup's, a power of two over 2 * CMD_MAX */

static struct kv_cmd table[CMD_MAX];
static size_t ntable;

/*
 * The lookup, once per command of every request: a name of at most 16
 * bytes, lowercased, is two 64-bit words (no name in the table is
 * longer), found in an open-addressed table of slots made once, with its
 * length: "get" and "get\0" have the same words. No command's name has
 * a NUL.
 */
struct name_key {
	uint64_t w[2];
};

static uint16_t slots[NSLOTS]; /* table index + 1; 0: empty */
static struct name_key slot_key[NSLOTS];
static uint8_t slot_len[NSLOTS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static struct name_key name_key(const char *name, size_t n)
{
	struct name_key key = { { 0, 0 } };
	size_t k;
	char ch;

	for (k = 0; k < n; k++) {
		ch = name[k];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch + ('a' - 'A'));
		key.w[k / 8] |= (uint64_t)(unsigned char)ch << (8 * (k % 8));
	}
	return key;
}

static unsigned slot_of(struct name_key key, size_t n)
{
	uint64_t h = (key.w[0] + n) * 0x9e3779b97f4a7c15ull;

	h = (h ^ key.w[1]) * 0xff51afd7ed558ccdull;
	return (unsigned)(h >> 55) & (NSLOTS - 1);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kv_cmd *)a)->name,
		      ((const struct kv_cmd *)b)->name);
}

static void add_part(const struct kv_cmd *part)
{
	for (; part->name; part++) {
		if (ntable == CMD_MAX || strlen(part->name) > NAME_MAX_LEN) {
			fprintf(stderr,
				"kv: command table: '%s' does not fit\n",
				part->name);
			abort(); /* a build's mistake, found by any test */
		}
		table[ntable++] = *part;
	}
}

static void make_table(void)
{
	static const struct kv_cmd *const parts[] = {
		kv_cmds_conn,	kv_cmds_keys,	 kv_cmds_string, kv_cmds_list,
		kv_cmds_hash,	kv_cmds_set,	 kv_cmds_zset,	 kv_cmds_stream,
		kv_cmds_server, kv_cmds_command,
	};
	struct name_key key;
	size_t i, len;
	unsigned s;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		add_part(parts[i]);
	qsort(table, ntable, sizeof(table[0]), by_name);
	for (i = 0; i < ntable; i++) {
		if (table[i].flags & KV_INTERNAL)
			continue; /* no client finds it */
		len = strlen(table[i].name);
		key = name_key(table[i].name, len);
		s = slot_of(key, len);
		while (slots[s])
			s = (s + 1) & (NSLOTS - 1);
		slots[s] = (uint16_t)(i + 1);
		slot_key[s] = key;
		slot_len[s] = (uint8_t)len;
	}
}

const struct kv_cmd *kv_cmd_table(size_t *n)
{
	pthread_once(&once, make_table);
	*n = ntable;
	return table;
}

const struct kv_cmd *kv_cmd_internal(const char *name)
{
	size_t i;

	pthread_once(&once, make_table);
	for (i = 0; i < ntable; i++)
		if ((table[i].flags & KV_INTERNAL) &&
		    !strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

const struct kv_cmd *kv_cmd_find(const char *name, size_t n)
{
	struct name_key key;
	unsigned s;

	if (n == 0 || n > NAME_MAX_LEN)
		return NULL;
	pthread_once(&once, make_table);
	key = name_key(name, n);
	for (s = slot_of(key, n); slots[s]; s = (s + 1) & (NSLOTS - 1))
		if (slot_len[s] == n && slot_key[s].w[0] == key.w[0] &&
		    slot_key[s].w[1] == key.w[1])
			return &table[slots[s] - 1];
	return NULL;
}

void kv_reply_unknown(struct out *o, int argc, const struct resp_arg *argv)
{
	char args[512];
	size_t n = 0;
	int i;

	/* redis: up to 128 bytes of arguments, each quoted */
	args[0] = '\0';
	for (i = 1; i < argc && n < 128; i++) {
		int room = 128 - (int)n;
		int w = argv[i].len < (size_t)room ? (int)argv[i].len : room;

		n += (size_t)snprintf(args + n, sizeof(args) - n, "'%.*s' ", w,
				      argv[i].p);
	}
	out_errorf(o,
		   "ERR unknown command '%.*s', with args beginning with: %s",
		   (int)(argv[0].len > 128 ? 128 : argv[0].len), argv[0].p,
		   args);
}

bool kv_cmd_check(const struct kv_cmd *c, int argc, const struct resp_arg *argv,
		  struct out *o)
{
	(void)argv;
	/* MSET's pairs: redis checks them before it splits anything */
	if ((c->arity > 0 && argc != c->arity) ||
	    (c->arity < 0 && argc < -c->arity) ||
	    (c->key_step == 2 && argc % 2 == 0)) {
		arity_error(o, c->name);
		return false;
	}
	return true;
}

void kv_cmd_run(const struct kv_cmd *c, struct kv_db *db, struct kv_client *cl,
		int argc, const struct resp_arg *argv, struct out *o)
{
	if (c->flags & KV_CONN)
		c->run_conn(cl, argc, argv, o);
	else
		c->run(db, argc, argv, o);
}
