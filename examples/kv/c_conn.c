/* SPDX-License-Identifier: MIT */
/*
 * c_conn.c - the kv example's connection commands (cmd.h), with
 * redis-server 7.0's replies: the same checks in the same order, so that the
 * same bad command gets the same error. Redis 7.0's server.c and
 * config.c are the reference.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* FNM_CASEFOLD */
#endif
#include "cmd_impl.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>

static void c_ping(struct kv_client *cl, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)cl;
	if (argc > 2)
		arity_error(o, "ping");
	else if (argc == 2)
		out_bulk(o, v[1].p, v[1].len);
	else
		out_status(o, "PONG");
}

static void c_echo(struct kv_client *cl, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)cl;
	(void)argc;
	out_bulk(o, v[1].p, v[1].len);
}

static void c_quit(struct kv_client *cl, int argc, const struct resp_arg *v,
		   struct out *o)
{
	(void)cl;
	(void)argc;
	(void)v;
	out_status(o, KV_OK);
}

static void c_select(struct kv_client *cl, int argc, const struct resp_arg *v,
		     struct out *o)
{
	long long id;

	(void)cl;
	(void)argc;
	if (!getll(&v[1], &id))
		out_error(o, KV_ERR_NOTINT);
	else if (id < INT_MIN || id > INT_MAX) /* redis's getIntFromObject */
		out_errorf(o,
			   "ERR value is out of range, value must between %d "
			   "and %d",
			   INT_MIN, INT_MAX);
	else if (id != 0)
		out_error(o, "ERR DB index is out of range"); /* one database */
	else
		out_status(o, KV_OK);
}

static void unknown_sub(struct out *o, const struct resp_arg *sub,
			const char *cmd)
{
	out_errorf(o, "ERR unknown subcommand '%.*s'. Try %s HELP.",
		   (int)(sub->len > 128 ? 128 : sub->len), sub->p, cmd);
}

static void c_command(struct kv_client *cl, int argc, const struct resp_arg *v,
		      struct out *o)
{
	const struct kv_cmd *t;
	size_t n, i, shown;

	(void)cl;
	t = kv_cmd_table(&n);
	for (i = 0, shown = 0; i < n; i++)
		shown += !(t[i].flags & KV_INTERNAL);
	if (argc >= 2 && is(&v[1], "count")) {
		if (argc != 2)
			arity_error(o, "command|count");
		else
			out_int(o, (long long)shown);
		return;
	}
	if (argc >= 2 && is(&v[1], "docs")) {
		out_array(o, 0); /* no documents: clients fall back */
		return;
	}
	if (argc >= 2) {
		unknown_sub(o, &v[1], "COMMAND");
		return;
	}
	/* minimal: name, arity, flags, first key, last key, step */
	out_array(o, (long long)shown);
	for (i = 0; i < n; i++) {
		bool keys = t[i].first_key > 0;

		if (t[i].flags & KV_INTERNAL)
			continue;
		out_array(o, 6);
		out_bulk(o, t[i].name, strlen(t[i].name));
		out_int(o, t[i].arity);
		out_array(o, 0);
		out_int(o, t[i].first_key);
		out_int(o, !keys	 ? 0 :
			   t[i].last_key ? t[i].last_key :
			   t[i].key_step ? -1 :
					   t[i].first_key);
		out_int(o, keys ? (t[i].key_step ? t[i].key_step : 1) : 0);
	}
}

static void c_config(struct kv_client *cl, int argc, const struct resp_arg *v,
		     struct out *o)
{
	char pat[256], val[32];
	struct {
		const char *name;
		long long v; /* < 0: the string s */
		const char *s;
	} params[] = {
		{ "appendfsync", -1,
		  kv_settings.appendfsync == 2 ? "always" :
		  kv_settings.appendfsync == 1 ? "everysec" :
						 "no" },
		{ "appendonly", -1, kv_settings.appendonly ? "yes" : "no" },
		{ "databases", 1, NULL },
		{ "dir", -1, kv_settings.dir },
		{ "maxclients", kv_settings.maxclients, NULL },
		{ "proto-max-bulk-len", kv_settings.proto_max_bulk_len, NULL },
		{ "save", -1, "" },
	};
	size_t np = sizeof(params) / sizeof(params[0]), i;
	bool seen[sizeof(params) / sizeof(params[0])] = { false };
	const struct resp_arg *asked[sizeof(params) / sizeof(params[0])];
	int order[sizeof(params) / sizeof(params[0])];
	int n = 0, j;

	(void)cl;
	if (!is(&v[1], "get")) {
		if (is(&v[1], "set") && argc >= 3)
			out_errorf(o,
				   "ERR Unknown option or number of arguments "
				   "for CONFIG SET - '%.*s'",
				   (int)(v[2].len > 128 ? 128 : v[2].len),
				   v[2].p);
		else
			unknown_sub(o, &v[1], "CONFIG");
		return;
	}
	if (argc < 3) {
		arity_error(o, "config|get");
		return;
	}
	/* each parameter once, in the order asked; a name asked for without
	 * a pattern is answered as it was written (as redis does) */
	for (j = 2; j < argc; j++) {
		snprintf(pat, sizeof(pat), "%.*s",
			 (int)(v[j].len < 255 ? v[j].len : 255), v[j].p);
		for (i = 0; i < np; i++)
			if (!seen[i] &&
			    !fnmatch(pat, params[i].name, FNM_CASEFOLD)) {
				seen[i] = true;
				order[n++] = (int)i;
				asked[i] = strpbrk(pat, "*?[") ? NULL : &v[j];
			}
	}
	out_array(o, 2 * n);
	for (j = 0; j < n; j++) {
		i = (size_t)order[j];
		if (asked[i])
			out_bulk(o, asked[i]->p, asked[i]->len);
		else
			out_bulk(o, params[i].name, strlen(params[i].name));
		if (params[i].v < 0) {
			out_bulk(o, params[i].s, strlen(params[i].s));
		} else {
			snprintf(val, sizeof(val), "%lld", params[i].v);
			out_bulk(o, val, strlen(val));
		}
	}
}

const struct kv_cmd kv_cmds_conn[] = {
	KV_CONN_CMD("command", -1, 0, c_command),
	KV_CONN_CMD("config", -2, 0, c_config),
	KV_CONN_CMD("echo", 2, 0, c_echo),
	KV_CONN_CMD("ping", -1, 0, c_ping),
	KV_CONN_CMD("quit", -1, KV_CLOSE, c_quit),
	KV_CONN_CMD("select", 2, 0, c_select),
	{ .name = NULL },
};
