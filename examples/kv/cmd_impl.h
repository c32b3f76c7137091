/* SPDX-License-Identifier: MIT */
/*
 * cmd_impl.h - what the command files (c_*.c) share: their parts of the
 * table, and the checks and replies every command makes the same way.
 * Internal to the commands; the server's processes and the tests use
 * cmd.h.
 */
#ifndef KV_CMD_IMPL_H
#define KV_CMD_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"

/* Each file's commands, ended by one with a NULL name. */
extern const struct kv_cmd kv_cmds_conn[], kv_cmds_keys[], kv_cmds_string[],
	kv_cmds_list[], kv_cmds_hash[], kv_cmds_set[], kv_cmds_zset[],
	kv_cmds_stream[], kv_cmds_server[], kv_cmds_command[];

/* What COMMAND DOCS and COMMAND INFO say of a command beyond its row of
 * the table (cmd_doc.c): redis's, for the command as this server has it. */
struct kv_doc {
	const char *name; /* "get", or a subcommand's "client|id" */
	int arity;	  /* a subcommand's; a command's is its row's */
	const char *group, *since, *summary;
	const char *args;  /* the arguments' syntax (cmd_doc.c's head) */
	const char *flags; /* COMMAND INFO's flags, by spaces */
	const char *acl;   /* its ACL categories, by spaces */
};

/* The document of name (lower case), or NULL; the table, by name. */
const struct kv_doc *kv_doc_find(const char *name);
const struct kv_doc *kv_doc_table(size_t *n);
/* True if args is a syntax c_command.c reads (the tests check them). */
bool kv_doc_valid(const char *args);

/* A row of a table: a shard's command (merge: how a split one's parts
 * come together, 0 for none), or the connection's own. */
#define KV_CMD(nm, ar, first, step, fl, mg, fn)                               \
	{                                                                     \
		.name = (nm), .arity = (ar), .first_key = (first),            \
		.key_step = (step), .flags = (fl), .merge = (mg), .run = (fn) \
	}
/* A command of keys first..last by step (RENAME, SMOVE) */
#define KV_CMD_KEYS(nm, ar, first, last, step, fl, fn)                 \
	{                                                              \
		.name = (nm), .arity = (ar), .first_key = (first),     \
		.last_key = (last), .key_step = (step), .flags = (fl), \
		.run = (fn)                                            \
	}
#define KV_CONN_CMD(nm, ar, fl, fn)                                   \
	{                                                             \
		.name = (nm), .arity = (ar), .flags = KV_CONN | (fl), \
		.run_conn = (fn)                                      \
	}

/* CLIENT SETNAME's (HELLO's SETNAME, RESET's ""): false with redis's
 * error for a name it refuses (c_server.c). */
bool kv_client_setname(struct kv_client *cl, const struct resp_arg *name,
		       struct out *o);

/* A long double as INCRBYFLOAT writes it into buf[0..room): its length
 * (c_string.c; HINCRBYFLOAT's too). */
size_t kv_ld2string(char *buf, size_t room, long double v);

#define ERR_POSITIVE "ERR value is out of range, must be positive"

/* True if a is word, any case. */
static inline bool is(const struct resp_arg *a, const char *word)
{
	size_t n = strlen(word);

	return a->len == n && !strncasecmp(a->p, word, n);
}

/* strcasecmp of an argument and a C string. */
static inline int strcasecmp_arg(const struct resp_arg *a, const char *s)
{
	size_t n = strlen(s);

	return a->len != n || strncasecmp(a->p, s, n);
}

static inline bool getll(const struct resp_arg *a, long long *v)
{
	return resp_string2ll(a->p, a->len, v);
}

static inline uint32_t hash_of(const struct resp_arg *k)
{
	return (uint32_t)kv_hash(k->p, k->len);
}

static inline struct kv_entry *lookup(struct kv_db *db,
				      const struct resp_arg *k)
{
	return db_find(db, k->p, k->len, hash_of(k));
}

static inline void nomem(struct out *o)
{
	out_error(o, "OOM command not allowed when used memory > 'maxmemory'.");
}

/* True and the reply if e is not of type t (a missing key passes). */
static inline bool wrong(const struct kv_entry *e, enum kv_type t,
			 struct out *o)
{
	if (e && e->type != t) {
		out_error(o, KV_ERR_WRONGTYPE);
		return true;
	}
	return false;
}

static inline void arity_error(struct out *o, const char *name)
{
	out_errorf(o, "ERR wrong number of arguments for '%s' command", name);
}

/* An argument in an error, as redis cuts it: 128 bytes at most (unknown
 * commands and subcommands); ARGZ, as redis's "%s" of an argument: up to
 * its first NUL. Both for "%.*s". */
#define ARG(a) (int)((a)->len > 128 ? 128 : (a)->len), (a)->p
#define ARGZ(a) (int)strnlen((a)->p, (a)->len), (a)->p

#endif /* KV_CMD_IMPL_H */
