/* SPDX-License-Identifier: MIT */
/*
 * c_command.c - the kv example's COMMAND (cmd.h): the whole table, COUNT,
 * INFO, DOCS, LIST and GETKEYS, made from the table itself (arity, key
 * positions, whether a command writes) and its documents (cmd_doc.c:
 * flags, ACL categories, summaries, the arguments' syntax), in
 * redis-server 7.0's shapes in RESP2 and RESP3. Only what this server
 * has: its commands, and the subcommands of CLIENT, CONFIG and COMMAND it
 * implements. Redis 7.0's server.c (commandCommand and its helpers) is
 * the reference; redis-cli builds its hints from COMMAND DOCS.
 *
 * Not given: the command tips (redis's cluster routing hints) and the
 * finer key-spec flags (only RO or RW, from the table's KV_WRITE).
 */
#include "cmd_impl.h"

#include <ctype.h>
#include <stdio.h>

#include "glob.h"

/* ---- the arguments' syntax (cmd_doc.c's head) ----------------------------- */

enum arg_type { A_NAME, A_TOKEN, A_ONEOF, A_BLOCK };

#define ARGS_MAX 64 /* nodes of one syntax: the longest (XADD) has 20 */

struct arg {
	enum arg_type type;
	const char *name, *token; /* not NUL-ended; token NULL: none */
	size_t nlen, tlen;
	bool optional, multiple;
	int child, next; /* oneof's and block's arguments, a list; -1 */
};

struct syntax {
	const char *p;
	struct arg a[ARGS_MAX];
	int n;
};

static int new_arg(struct syntax *s, enum arg_type type)
{
	struct arg *a;

	if (s->n == ARGS_MAX)
		return -1;
	a = &s->a[s->n];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->child = a->next = -1;
	return s->n++;
}

static int parse_body(struct syntax *s);

/* A word, [body] or (body), with "..." after it: its node, or -1. */
static int parse_item(struct syntax *s)
{
	const char *w = s->p;
	char open = *s->p, close = open == '[' ? ']' : ')';
	int i;

	if (open == '[' || open == '(') {
		s->p++;
		i = parse_body(s);
		if (i < 0 || *s->p != close)
			return -1;
		s->p++;
		s->a[i].optional |= open == '[';
	} else {
		while (*s->p && !strchr(" []()|.", *s->p))
			s->p++;
		if (s->p == w)
			return -1;
		i = new_arg(s, islower((unsigned char)*w) ? A_NAME : A_TOKEN);
		if (i < 0)
			return -1;
		s->a[i].name = w;
		s->a[i].nlen = (size_t)(s->p - w);
		if (s->a[i].type == A_TOKEN) {
			s->a[i].token = w;
			s->a[i].tlen = s->a[i].nlen;
		}
	}
	if (!strncmp(s->p, "...", 3)) {
		s->p += 3;
		s->a[i].multiple = true;
	}
	return i;
}

/* Items by single spaces: the first's node (the rest by next), *n of
 * them; -1 on a bad syntax. */
static int parse_seq(struct syntax *s, int *n)
{
	int head = -1, tail = -1, i;

	for (*n = 0;; (*n)++, s->p++) {
		i = parse_item(s);
		if (i < 0)
			return -1;
		if (tail >= 0)
			s->a[tail].next = i;
		else
			head = i;
		tail = i;
		if (*s->p != ' ') {
			(*n)++;
			return head;
		}
	}
}

/* One alternative of a body: an item, a token's argument, or a block. */
static int parse_alt(struct syntax *s)
{
	int n, head = parse_seq(s, &n), rest, b;
	struct arg *h;

	if (head < 0 || n == 1)
		return head;
	h = &s->a[head];
	rest = h->next;
	if (h->type == A_TOKEN && !h->optional && !h->multiple && n == 2) {
		s->a[rest].token = h->name; /* "EX seconds" */
		s->a[rest].tlen = h->nlen;
		return rest;
	}
	b = new_arg(s, A_BLOCK);
	if (b < 0)
		return -1;
	h = &s->a[head];
	if (h->type == A_TOKEN && !h->optional && !h->multiple) {
		s->a[b].token = h->name; /* "LIMIT offset count" */
		s->a[b].tlen = h->nlen;
		head = rest;
	}
	s->a[b].child = head;
	return b;
}

/* What is inside [ ] or ( ): an alternative, or several (a oneof). */
static int parse_body(struct syntax *s)
{
	int first = parse_alt(s), o, tail, i;

	if (first < 0 || *s->p != '|')
		return first;
	o = new_arg(s, A_ONEOF);
	if (o < 0)
		return -1;
	s->a[o].child = tail = first;
	while (*s->p == '|') {
		s->p++;
		i = parse_alt(s);
		if (i < 0)
			return -1;
		s->a[tail].next = i;
		tail = i;
	}
	return o;
}

/* A command's arguments: the first's node (-1: none), *n of them; false
 * on a bad syntax (a mistake of cmd_doc.c's, which the tests catch). */
static bool doc_parse(const char *text, struct syntax *s, int *first, int *n)
{
	s->p = text;
	s->n = 0;
	*first = -1;
	*n = 0;
	if (!*text)
		return true;
	*first = parse_seq(s, n);
	return *first >= 0 && !*s->p;
}

bool kv_doc_valid(const char *args)
{
	struct syntax s;
	int first, n;

	return doc_parse(args, &s, &first, &n);
}

/* ---- COMMAND DOCS ----------------------------------------------------------- */

static void bulk_str(struct out *o, const char *s)
{
	out_bulk(o, s, strlen(s));
}

static int count_list(const struct syntax *s, int i)
{
	int n = 0;

	for (; i >= 0; i = s->a[i].next)
		n++;
	return n;
}

static const char *name_type(const struct arg *a)
{
	static const char *const keys[] = { "key", "destination", "source",
					    "newkey" };
	size_t k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (a->nlen == strlen(keys[k]) &&
		    !memcmp(a->name, keys[k], a->nlen))
			return "key";
	if (a->nlen == 7 && !memcmp(a->name, "pattern", 7))
		return "pattern";
	if (a->nlen > 9 && !memcmp(a->name, "unix-time", 9))
		return "unix-time";
	return "string";
}

/* An argument's name: its own, or its token's in lower case (redis's
 * pure tokens' and named blocks'), or what it is. */
static void put_arg_name(struct out *o, const struct arg *a)
{
	char buf[32];
	size_t i;

	if (a->type == A_NAME) {
		out_bulk(o, a->name, a->nlen);
	} else if (a->token && a->tlen < sizeof(buf)) {
		for (i = 0; i < a->tlen; i++)
			buf[i] = (char)tolower((unsigned char)a->token[i]);
		out_bulk(o, buf, a->tlen);
	} else {
		bulk_str(o, a->type == A_ONEOF ? "oneof" : "block");
	}
}

static void put_arg(struct out *o, const struct syntax *s, int i)
{
	static const char *const types[] = {
		[A_TOKEN] = "pure-token", [A_ONEOF] = "oneof", [A_BLOCK] = "block"
	};
	const struct arg *a = &s->a[i];
	bool nested = a->type == A_ONEOF || a->type == A_BLOCK;
	int flags = a->optional + a->multiple, j;

	out_map(o, 2 + (a->token != NULL) + (flags > 0) + nested);
	bulk_str(o, "name");
	put_arg_name(o, a);
	bulk_str(o, "type");
	bulk_str(o, a->type == A_NAME ? name_type(a) : types[a->type]);
	if (a->token) {
		bulk_str(o, "token");
		out_bulk(o, a->token, a->tlen);
	}
	if (flags) {
		bulk_str(o, "flags");
		out_set(o, flags);
		if (a->optional)
			out_status(o, "optional");
		if (a->multiple)
			out_status(o, "multiple");
	}
	if (nested) {
		bulk_str(o, "arguments");
		out_array(o, count_list(s, a->child));
		for (j = a->child; j >= 0; j = s->a[j].next)
			put_arg(o, s, j);
	}
}

/* The subcommands' documents of a command: "name|..." after it. */
static const struct kv_doc *subs_of(const char *name, size_t *n)
{
	size_t len = strlen(name), total, i;
	const struct kv_doc *d = kv_doc_table(&total), *first = NULL;

	*n = 0;
	for (i = 0; i < total; i++) {
		if (!strncmp(d[i].name, name, len) && d[i].name[len] == '|') {
			if (!first)
				first = &d[i];
			(*n)++;
		}
	}
	return first;
}

static void put_doc(struct out *o, const struct kv_doc *d)
{
	struct syntax s;
	size_t nsub, k;
	const struct kv_doc *sub =
		strchr(d->name, '|') ? NULL : subs_of(d->name, &nsub);
	int first, n, j;
	bool args = doc_parse(d->args, &s, &first, &n) && n > 0;

	out_map(o, 3 + args + (sub != NULL));
	bulk_str(o, "summary");
	bulk_str(o, d->summary);
	bulk_str(o, "since");
	bulk_str(o, d->since);
	bulk_str(o, "group");
	bulk_str(o, d->group);
	if (args) {
		bulk_str(o, "arguments");
		out_array(o, n);
		for (j = first; j >= 0; j = s.a[j].next)
			put_arg(o, &s, j);
	}
	if (sub) {
		bulk_str(o, "subcommands");
		out_map(o, (long long)nsub);
		for (k = 0; k < nsub; k++) {
			bulk_str(o, sub[k].name);
			put_doc(o, &sub[k]);
		}
	}
}

/* ---- finding what is asked for ---------------------------------------------- */

/* A client's command by name, or a subcommand's document by
 * "name|sub", any case: the command (or NULL), *doc its document. */
static const struct kv_cmd *find(const struct resp_arg *a,
				 const struct kv_doc **doc)
{
	char name[64];
	const struct kv_cmd *c;
	size_t i;

	*doc = NULL;
	if (a->len >= sizeof(name))
		return NULL;
	for (i = 0; i < a->len; i++)
		name[i] = (char)tolower((unsigned char)a->p[i]);
	name[a->len] = '\0';
	if (memchr(name, '|', a->len)) {
		*doc = kv_doc_find(name);
		return NULL;
	}
	c = kv_cmd_find(name, a->len);
	if (c)
		*doc = kv_doc_find(c->name);
	return c;
}

static bool shown(const struct kv_cmd *c)
{
	return !(c->flags & KV_INTERNAL);
}

/* ---- COMMAND INFO ------------------------------------------------------------ */

/* The words of s, by spaces, as a set of statuses. */
static void put_words(struct out *o, const char *s)
{
	const char *w, *e;
	long long n = 0;

	for (w = s; *w; w = *e ? e + 1 : e) {
		e = strchr(w, ' ');
		e = e ? e : w + strlen(w);
		n += e > w;
	}
	out_set(o, n);
	for (w = s; *w; w = *e ? e + 1 : e) {
		e = strchr(w, ' ');
		e = e ? e : w + strlen(w);
		if (e > w) {
			out_raw(o, "+", 1);
			out_raw(o, w, (size_t)(e - w));
			out_raw(o, "\r\n", 2);
		}
	}
}

/* The legacy first key, last key and step: redis's 0, 0, 0 for a
 * command whose keys a count gives (movablekeys). */
static void key_range(const struct kv_cmd *c, int *first, int *last, int *step)
{
	bool keys = c->first_key > 0 && !(c->flags & KV_NUMKEYS);

	*first = keys ? c->first_key : 0;
	*last = !keys	    ? 0 :
		c->last_key ? c->last_key :
		c->key_step ? -1 :
			      c->first_key;
	*step = keys ? (c->key_step ? c->key_step : 1) : 0;
}

/* redis's key specification: where the keys begin, and how they go on. */
static void put_key_spec(struct out *o, const struct kv_cmd *c)
{
	bool numkeys = c->flags & KV_NUMKEYS;
	int first, last, step;

	key_range(c, &first, &last, &step);
	out_map(o, 3);
	bulk_str(o, "flags");
	out_set(o, 1);
	out_status(o, c->flags & KV_WRITE ? "RW" : "RO");
	bulk_str(o, "begin_search");
	out_map(o, 2);
	bulk_str(o, "type");
	bulk_str(o, "index");
	bulk_str(o, "spec");
	out_map(o, 1);
	bulk_str(o, "index");
	out_int(o, numkeys ? c->first_key - 1 : first);
	bulk_str(o, "find_keys");
	out_map(o, 2);
	bulk_str(o, "type");
	bulk_str(o, numkeys ? "keynum" : "range");
	bulk_str(o, "spec");
	out_map(o, 3);
	bulk_str(o, numkeys ? "keynumidx" : "lastkey");
	out_int(o, numkeys ? 0 : last < 0 ? -1 : last - first);
	bulk_str(o, numkeys ? "firstkey" : "keystep");
	out_int(o, numkeys ? 1 : step);
	bulk_str(o, numkeys ? "keystep" : "limit");
	out_int(o, numkeys ? 1 : 0);
}

/* A subcommand's entry: its document's name, arity, flags, categories. */
static void put_sub_info(struct out *o, const struct kv_doc *d)
{
	out_array(o, 10);
	bulk_str(o, d->name);
	out_int(o, d->arity);
	put_words(o, d->flags);
	out_int(o, 0);
	out_int(o, 0);
	out_int(o, 0);
	put_words(o, d->acl);
	out_set(o, 0); /* tips */
	out_set(o, 0); /* key specs */
	out_set(o, 0); /* subcommands */
}

/* A command's entry of COMMAND and COMMAND INFO, redis 7.0's ten. */
static void put_info(struct out *o, const struct kv_cmd *c)
{
	const struct kv_doc *d = kv_doc_find(c->name), *sub;
	int first, last, step;
	size_t nsub = 0, k;

	key_range(c, &first, &last, &step);
	sub = subs_of(c->name, &nsub);
	out_array(o, 10);
	bulk_str(o, c->name);
	out_int(o, c->arity);
	put_words(o, d ? d->flags : c->flags & KV_WRITE ? "write" : "readonly");
	out_int(o, first);
	out_int(o, last);
	out_int(o, step);
	put_words(o, d ? d->acl : "");
	out_set(o, 0); /* tips: redis's cluster routing, not given */
	out_set(o, c->first_key > 0);
	if (c->first_key > 0)
		put_key_spec(o, c);
	out_set(o, (long long)nsub);
	for (k = 0; k < nsub; k++)
		put_sub_info(o, &sub[k]);
}

/* ---- the subcommands ----------------------------------------------------------- */

/* COMMAND COUNT: the commands a client can call. */
static size_t count_shown(void)
{
	const struct kv_cmd *t;
	size_t n, i, k = 0;

	t = kv_cmd_table(&n);
	for (i = 0; i < n; i++)
		k += shown(&t[i]);
	return k;
}

static void command_all(struct out *o)
{
	const struct kv_cmd *t;
	size_t n, i;

	t = kv_cmd_table(&n);
	out_array(o, (long long)count_shown());
	for (i = 0; i < n; i++)
		if (shown(&t[i]))
			put_info(o, &t[i]);
}

static void command_info(int argc, const struct resp_arg *v, struct out *o)
{
	const struct kv_doc *d;
	const struct kv_cmd *c;
	int j;

	if (argc == 2) {
		command_all(o);
		return;
	}
	out_array(o, argc - 2);
	for (j = 2; j < argc; j++) {
		c = find(&v[j], &d);
		if (c)
			put_info(o, c);
		else if (d)
			put_sub_info(o, d);
		else
			out_null(o);
	}
}

static void command_docs(int argc, const struct resp_arg *v, struct out *o)
{
	const struct kv_doc *d, *table;
	size_t n, i;
	int j, found = 0;

	table = kv_doc_table(&n);
	if (argc == 2) { /* the commands', their subcommands inside */
		for (i = 0; i < n; i++)
			found += !strchr(table[i].name, '|');
		out_map(o, found);
		for (i = 0; i < n; i++) {
			if (strchr(table[i].name, '|'))
				continue;
			bulk_str(o, table[i].name);
			put_doc(o, &table[i]);
		}
		return;
	}
	for (j = 2; j < argc; j++) {
		find(&v[j], &d);
		found += d != NULL;
	}
	out_map(o, found);
	for (j = 2; j < argc; j++) {
		find(&v[j], &d);
		if (d) {
			bulk_str(o, d->name);
			put_doc(o, d);
		}
	}
}

/* COMMAND LIST's FILTERBY: true if the command (or subcommand) named
 * name, its document d, passes. */
static bool listed(const char *name, const struct kv_doc *d, int by,
		   const struct resp_arg *what)
{
	const char *w, *acl = d ? d->acl : "";
	size_t len;

	if (by == 0)
		return true;
	if (by == 1) /* PATTERN, case folded as redis's */
		return kv_glob(what->p, what->len, name, strlen(name), true);
	if (by == 2) { /* ACLCAT: a category, without its @ */
		for (w = strchr(acl, '@'); w; w = strchr(w + 1, '@')) {
			len = strcspn(w + 1, " ");
			if (len == what->len &&
			    !strncasecmp(w + 1, what->p, what->len))
				return true;
		}
	}
	return false; /* MODULE: none here */
}

static void command_list(int argc, const struct resp_arg *v, struct out *o)
{
	size_t n, nd, i, mark, k = 0;
	const struct kv_cmd *t = kv_cmd_table(&n);
	const struct kv_doc *d = kv_doc_table(&nd);
	int by = 0;

	if (argc == 5 && is(&v[2], "filterby")) {
		by = is(&v[3], "pattern") ? 1 :
		     is(&v[3], "aclcat")  ? 2 :
		     is(&v[3], "module")  ? 3 :
					    -1;
	}
	if (argc != 2 && by <= 0) {
		out_error(o, KV_ERR_SYNTAX);
		return;
	}
	mark = o->len;
	for (i = 0; i < n; i++) {
		if (shown(&t[i]) &&
		    listed(t[i].name, kv_doc_find(t[i].name), by, &v[4])) {
			bulk_str(o, t[i].name);
			k++;
		}
	}
	for (i = 0; i < nd; i++) { /* the subcommands */
		if (strchr(d[i].name, '|') &&
		    listed(d[i].name, &d[i], by, &v[4])) {
			bulk_str(o, d[i].name);
			k++;
		}
	}
	out_array_at(o, mark, (long long)k);
}

/* The keys of v[0..argc) as command c's, into o; false: bad arguments. */
static bool put_keys(const struct kv_cmd *c, int argc, const struct resp_arg *v,
		     struct out *o)
{
	int first, last, step, i;
	long long numkeys;

	key_range(c, &first, &last, &step);
	if (c->flags & KV_NUMKEYS) {
		if (!getll(&v[1], &numkeys) || numkeys < 1 ||
		    numkeys > argc - c->first_key)
			return false;
		first = c->first_key;
		last = first + (int)numkeys - 1;
		step = 1;
	} else if (last < 0) {
		last = argc + last;
	}
	if (last >= argc || last < first)
		return false;
	out_array(o, (last - first) / step + 1);
	for (i = first; i <= last; i += step)
		out_bulk(o, v[i].p, v[i].len);
	return true;
}

static void command_getkeys(int argc, const struct resp_arg *v, struct out *o)
{
	const struct kv_doc *d;
	const struct kv_cmd *c = find(&v[2], &d);
	char sub[80];
	size_t nsub;

	if (c && argc > 3 && subs_of(c->name, &nsub)) {
		snprintf(sub, sizeof(sub), "%s|%.*s", c->name, ARG(&v[3]));
		find(&(struct resp_arg){ sub, strlen(sub) }, &d);
		if (!d)
			c = NULL; /* no such subcommand */
	}
	if (!c || strchr(c->name, '|'))
		out_error(o, "ERR Invalid command specified");
	else if (c->first_key <= 0)
		out_error(o, "ERR The command has no key arguments");
	else if ((c->arity > 0 && c->arity != argc - 2) || argc - 2 < -c->arity)
		out_error(o, "ERR Invalid number of arguments specified for "
			     "command");
	else if (!put_keys(c, argc - 2, v + 2, o))
		out_error(o, "ERR Invalid arguments specified for command");
}

static void command_help(struct out *o)
{
	static const char *const lines[] = {
		"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands "
		"are:",
		"(no subcommand)",
		"    Return details about all the commands of this server.",
		"COUNT",
		"    Return the number of commands of this server.",
		"LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN "
		"<pattern>)]",
		"    Return the names of the commands and subcommands.",
		"INFO [<command-name> ...]",
		"    Return details about the commands (all of them without a "
		"name).",
		"DOCS [<command-name> ...]",
		"    Return documents of the commands (all of them without a "
		"name).",
		"GETKEYS <full-command>",
		"    Return the keys of a full command.",
		"HELP",
		"    Print this help.",
	};
	size_t i, n = sizeof(lines) / sizeof(lines[0]);

	out_array(o, (long long)n);
	for (i = 0; i < n; i++)
		out_status(o, lines[i]);
}

static void c_command(struct kv_client *cl, int argc, const struct resp_arg *v,
		      struct out *o)
{
	static const struct {
		const char *name;
		int arity;
	} subs[] = {
		{ "count", 2 }, { "info", -2 },	   { "docs", -2 },
		{ "list", -2 }, { "getkeys", -4 }, { "help", 2 },
	};
	size_t i, n = sizeof(subs) / sizeof(subs[0]);

	(void)cl;
	if (argc == 1) {
		command_all(o);
		return;
	}
	for (i = 0; i < n && !is(&v[1], subs[i].name); i++)
		;
	if (i == n) {
		out_errorf(o,
			   "ERR unknown subcommand '%.*s'. Try COMMAND HELP.",
			   ARG(&v[1]));
	} else if ((subs[i].arity > 0 && argc != subs[i].arity) ||
		   argc < -subs[i].arity) {
		out_errorf(o,
			   "ERR wrong number of arguments for 'command|%s' "
			   "command",
			   subs[i].name);
	} else if (i == 0) {
		out_int(o, (long long)count_shown());
	} else if (i == 1) {
		command_info(argc, v, o);
	} else if (i == 2) {
		command_docs(argc, v, o);
	} else if (i == 3) {
		command_list(argc, v, o);
	} else if (i == 4) {
		command_getkeys(argc, v, o);
	} else {
		command_help(o);
	}
}

const struct kv_cmd kv_cmds_command[] = {
	KV_CONN_CMD("command", -1, 0, c_command),
	{ .name = NULL },
};
