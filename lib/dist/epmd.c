/* SPDX-License-Identifier: MIT */
/*
 * epmd.c - epmd's requests and replies (epmd.h). Each decoder checks the
 * length fields against the bytes it has before it reads what they
 * cover, and against the bounds of epmd.h before it waits for them: a
 * peer that announces 60 KB of name is refused at its length field.
 */
#include <errno.h>
#include <string.h>

#include "epmd.h"

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A name epmd keeps: 1 to 255 bytes, no '@' (the host is not in it). */
static size_t name_len(const char *name)
{
	size_t n = strnlen(name, ACT__EPMD_NAME_MAX + 1);

	if (!n || n > ACT__EPMD_NAME_MAX || memchr(name, '@', n))
		return 0;
	return n;
}

int act__epmd_alive2_req(uint8_t *buf, size_t cap,
			 const struct act__epmd_node *node)
{
	size_t nlen = name_len(node->name), body;
	uint8_t *p = buf;

	if (!nlen || node->extra_len > ACT__EPMD_EXTRA_MAX)
		return -EINVAL;
	body = 13 + nlen + node->extra_len;
	if (cap < 2 + body)
		return -ENOSPC;
	put16(p, (unsigned)body);
	p[2] = ACT__EPMD_ALIVE2_REQ;
	put16(p + 3, node->port);
	p[5] = node->type;
	p[6] = node->protocol;
	put16(p + 7, node->high);
	put16(p + 9, node->low);
	put16(p + 11, (unsigned)nlen);
	memcpy(p + 13, node->name, nlen);
	p += 13 + nlen;
	put16(p, (unsigned)node->extra_len);
	if (node->extra_len)
		memcpy(p + 2, node->extra, node->extra_len);
	return (int)(2 + body);
}

int act__epmd_port_please2_req(uint8_t *buf, size_t cap, const char *name)
{
	size_t nlen = name_len(name);

	if (!nlen)
		return -EINVAL;
	if (cap < 3 + nlen)
		return -ENOSPC;
	put16(buf, (unsigned)(1 + nlen));
	buf[2] = ACT__EPMD_PORT_PLEASE2_REQ;
	memcpy(buf + 3, name, nlen);
	return (int)(3 + nlen);
}

int act__epmd_names_req(uint8_t *buf, size_t cap)
{
	if (cap < 3)
		return -ENOSPC;
	put16(buf, 1);
	buf[2] = ACT__EPMD_NAMES_REQ;
	return 3;
}

static int fail(const char **why, const char *reason, int err)
{
	*why = reason;
	return err;
}

int act__epmd_alive2_resp(const uint8_t *p, size_t n, uint32_t *creation,
			  const char **why)
{
	size_t len;

	if (n < 1)
		return 0;
	if (p[0] == ACT__EPMD_ALIVE2_X_RESP)
		len = 6;
	else if (p[0] == ACT__EPMD_ALIVE2_RESP)
		len = 4;
	else
		return fail(why,
			    "epmd: the reply to ALIVE2_REQ is neither "
			    "ALIVE2_X_RESP (118) nor ALIVE2_RESP (121)",
			    -EPROTO);
	if (n < 2)
		return 0;
	if (p[1])
		return fail(why,
			    "epmd: refused to register the name (ALIVE2 "
			    "result not 0): is a node of that name running?",
			    -EADDRINUSE);
	if (n < len)
		return 0;
	*creation = len == 6 ? get32(p + 2) : get16(p + 2);
	if (!*creation)
		return fail(why, "epmd: ALIVE2's reply gives creation 0",
			    -EPROTO);
	return (int)len;
}

/* A length-prefixed field at p[*at..n): 0 while incomplete, -1 over max,
 * else 1 with *at past it and the field at p[*field], *flen bytes. */
static int field(const uint8_t *p, size_t n, size_t *at, size_t max,
		 size_t *field, size_t *flen)
{
	if (n < *at + 2)
		return 0;
	*flen = get16(p + *at);
	if (*flen > max)
		return -1;
	if (n < *at + 2 + *flen)
		return 0;
	*field = *at + 2;
	*at += 2 + *flen;
	return 1;
}

/* The checks of a whole PORT2_RESP's node. */
static int port2_check(const struct act__epmd_node *node, const char **why)
{
	if (node->high < node->low)
		return fail(why,
			    "epmd: PORT2_RESP's highest version is below its "
			    "lowest",
			    -EPROTO);
	if (node->low > ACT__EPMD_VERSION || node->high < ACT__EPMD_VERSION)
		return fail(why,
			    "epmd: the node does not speak distribution "
			    "version 6 (OTP 23 and later), the only one we do",
			    -EPROTONOSUPPORT);
	if (node->protocol != ACT__EPMD_PROTO_TCP4)
		return fail(why, "epmd: the node's protocol is not TCP (0)",
			    -EPROTONOSUPPORT);
	return 0;
}

int act__epmd_port2_resp(const uint8_t *p, size_t n,
			 struct act__epmd_node *node, const char **why)
{
	size_t at = 10, name, nlen, extra, elen;
	int r;

	if (n < 1)
		return 0;
	if (p[0] != ACT__EPMD_PORT2_RESP)
		return fail(why,
			    "epmd: the reply to PORT_PLEASE2_REQ is not "
			    "PORT2_RESP (119)",
			    -EPROTO);
	if (n < 2)
		return 0;
	if (p[1])
		return fail(why, "epmd: no node of that name is registered",
			    -ENOENT);
	r = field(p, n, &at, ACT__EPMD_NAME_MAX, &name, &nlen);
	if (r < 0)
		return fail(why, "epmd: PORT2_RESP's name is over 255 bytes",
			    -EMSGSIZE);
	if (r == 0)
		return 0;
	r = field(p, n, &at, ACT__EPMD_EXTRA_MAX, &extra, &elen);
	if (r < 0)
		return fail(why,
			    "epmd: PORT2_RESP's extra field is over 1024 bytes",
			    -EMSGSIZE);
	if (r == 0)
		return 0;
	if (!nlen || memchr(p + name, '\0', nlen))
		return fail(why,
			    "epmd: PORT2_RESP's name is empty or has a NUL",
			    -EPROTO);
	node->port = (uint16_t)get16(p + 2);
	node->type = p[4];
	node->protocol = p[5];
	node->high = (uint16_t)get16(p + 6);
	node->low = (uint16_t)get16(p + 8);
	memcpy(node->name, p + name, nlen);
	node->name[nlen] = '\0';
	node->extra = p + extra;
	node->extra_len = elen;
	r = port2_check(node, why);
	return r ? r : (int)at;
}

int act__epmd_names_resp(const uint8_t *p, size_t n, int eof,
			 uint32_t *epmd_port, const char **why)
{
	if (n > 4 + ACT__EPMD_NAMES_MAX)
		return fail(why, "epmd: the NAMES_RESP text is over 64 KiB",
			    -EMSGSIZE);
	if (!eof)
		return 0;
	if (n < 4)
		return fail(why,
			    "epmd: closed the connection within NAMES_RESP's "
			    "port",
			    -EPROTO);
	*epmd_port = get32(p);
	return (int)n;
}

int act__epmd_names_next(const uint8_t *t, size_t len, size_t *off,
			 char name[ACT__EPMD_NAME_MAX + 1], uint16_t *port,
			 const char **why)
{
	static const char bad[] =
		"epmd: a NAMES_RESP line is not \"name N at port P\"";
	const uint8_t *line = t + *off, *end, *at = NULL, *q;
	size_t n = len - *off;
	unsigned long v = 0;

	if (!n)
		return 0;
	end = memchr(line, '\n', n);
	if (!end)
		return fail(why, bad, -EPROTO);
	/* the name runs from "name " to the last " at port " */
	for (q = line; q + 9 <= end; q++)
		if (!memcmp(q, " at port ", 9))
			at = q;
	if (end - line < 5 || memcmp(line, "name ", 5) || !at ||
	    at - line <= 5 || at - line - 5 > ACT__EPMD_NAME_MAX ||
	    memchr(line + 5, '\0', (size_t)(at - line - 5)) || at + 9 == end)
		return fail(why, bad, -EPROTO);
	for (q = at + 9; q < end; q++) {
		if (*q < '0' || *q > '9' || (v = v * 10 + (*q - '0')) > 65535)
			return fail(why, bad, -EPROTO);
	}
	memcpy(name, line + 5, (size_t)(at - line - 5));
	name[at - line - 5] = '\0';
	*port = (uint16_t)v;
	*off += (size_t)(end - line) + 1;
	return 1;
}
