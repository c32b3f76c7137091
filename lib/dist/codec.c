/* SPDX-License-Identifier: MIT */
/*
 * codec.c - pids and the user form of a message, on libei's buffers
 * (codec.h).
 */
#include <errno.h>
#include <string.h>

#include "codec.h"
#include "term.h"

int act__codec_pid_encode(ei_x_buff *b, struct act__peers *t,
			  const struct act__codec_self *me, act_pid pid)
{
	erlang_pid e;
	struct act__rpid r;
	struct act__peer *nd;
	size_t len;

	memset(&e, 0, sizeof(e));
	if (act__peers_is_remote(pid)) {
		if (!act__peers_pid_find(t, pid, &r, &nd))
			return -ESRCH;
		memcpy(e.node, nd->name, nd->name_len);
		e.num = r.id;
		e.serial = r.serial;
		e.creation = r.creation;
	} else {
		len = strlen(me->name);
		if (len >= sizeof(e.node))
			return -EINVAL;
		memcpy(e.node, me->name, len);
		e.num = (uint32_t)pid.id;
		e.serial = (uint32_t)(pid.id >> 32);
		e.creation = me->creation;
	}
	return ei_x_encode_pid(b, &e) ? -ENOMEM : 0;
}

int act__codec_pid_decode(const char *buf, int *index, struct act__peers *t,
			  const struct act__codec_self *me, act_pid *out)
{
	struct act__peer *nd;
	struct act__rpid r;
	erlang_pid e;
	size_t len;
	int rc;

	if (ei_decode_pid(buf, index, &e))
		return -EINVAL;
	len = strlen(e.node);
	if (!strcmp(e.node, me->name) && e.creation == me->creation) {
		/* ours: bit 63 is no local pid's (peers.h) */
		if (e.serial & 0x80000000u)
			return -EINVAL;
		*out = (act_pid){ (uint64_t)e.serial << 32 | e.num };
		return 0;
	}
	rc = act__peers_get(t, e.node, len, &nd);
	if (rc < 0)
		return rc;
	r = (struct act__rpid){ e.num, e.serial, e.creation };
	return act__peers_pid_get(nd, &r, out);
}

int act__codec_user_head(ei_x_buff *b, uint32_t tag, size_t n)
{
	char bin[5] = { ACT__ET_BINARY, (char)(n >> 24), (char)(n >> 16),
			(char)(n >> 8), (char)n };

	if (n > INT32_MAX)
		return -EMSGSIZE;
	/* BINARY_EXT and its length by hand: ei_x_encode_binary's, less
	 * the bytes */
	if (ei_x_encode_version(b) || ei_x_encode_tuple_header(b, 2) ||
	    ei_x_encode_ulong(b, tag) || ei_x_append_buf(b, bin, sizeof(bin)))
		return -ENOMEM;
	return 0;
}

int act__codec_user_encode(ei_x_buff *b, uint32_t tag, const void *p, size_t n)
{
	int rc = act__codec_user_head(b, tag, n);

	if (rc < 0)
		return rc;
	return n && ei_x_append_buf(b, p, (int)n) ? -ENOMEM : 0;
}

bool act__codec_user_decode(const char *buf, size_t n, uint32_t *tag,
			    const char **p, size_t *len)
{
	const uint8_t *u = (const uint8_t *)buf;
	size_t i = 3, blen;
	uint32_t v;

	/* 131, SMALL_TUPLE_EXT of 2, an integer, BINARY_EXT: by hand, as
	 * this is every plain message's path */
	if (n < 3 || u[0] != ACT__ET_VERSION || u[1] != ACT__ET_SMALL_TUPLE ||
	    u[2] != 2)
		return false;
	if (n > i + 1 && u[i] == ACT__ET_SMALL_INTEGER) {
		v = u[i + 1];
		i += 2;
	} else if (n > i + 4 && u[i] == ACT__ET_INTEGER) {
		v = act__term_be32(u + i + 1);
		if (v & 0x80000000u) /* a negative integer */
			return false;
		i += 5;
	} else if (n > i + 6 && u[i] == ACT__ET_SMALL_BIG && u[i + 1] <= 4 &&
		   u[i + 2] == 0) {
		/* 2^31 and up: SMALL_BIG_EXT, at most 4 bytes here */
		uint32_t k, nb = u[i + 1];

		if (n < i + 3 + nb)
			return false;
		for (v = 0, k = nb; k > 0; k--)
			v = v << 8 | u[i + 2 + k];
		i += 3 + nb;
	} else {
		return false;
	}
	if (v >= ACT_TAG_RESERVED || n < i + 5 || u[i] != ACT__ET_BINARY)
		return false;
	blen = act__term_be32(u + i + 1);
	i += 5;
	if (blen != n - i) /* the binary ends the term, and the bytes */
		return false;
	*tag = v;
	*p = buf + i;
	*len = blen;
	return true;
}
