/* SPDX-License-Identifier: MIT */
/*
 * codec.h - the terms this runtime makes and reads itself, on libei's
 * buffers (doc/design/distribution.md "Terms"): pids both ways, and a
 * message's user form {Tag, Binary}.
 *
 * A local pid goes out as NEW_PID_EXT {this node, ID = the pid's low 32
 * bits, Serial = its high 32, this node's creation} and comes back as
 * the same act_pid. Any other pid, this node's name with another
 * creation included (a process of an earlier run of this node: dead),
 * is an entry of the peers table (peers.h).
 *
 * Every decoder here reads a term that act__term_check passed.
 */
#ifndef ACT_DIST_CODEC_H
#define ACT_DIST_CODEC_H

#include <ei.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors.h"
#include "peers.h"

/* This node, as its pids name it. */
struct act__codec_self {
	const char *name; /* alive@host */
	uint32_t creation;
};

/* Append pid to b: 0, or -ESRCH for a remote pid of no known entry. */
int act__codec_pid_encode(ei_x_buff *b, struct act__peers *t,
			  const struct act__codec_self *me, act_pid pid);

/* The pid at buf[*index] (PID_EXT or NEW_PID_EXT), *index moved past
 * it: 0; -EINVAL when it is not a pid or names no process this node
 * could have made; -ENOSPC/-ENOMEM from the peers table. */
int act__codec_pid_decode(const char *buf, int *index, struct act__peers *t,
			  const struct act__codec_self *me, act_pid *out);

/* {Tag, <<p:n>>}, its version byte first: 0 or -ENOMEM. */
int act__codec_user_encode(ei_x_buff *b, uint32_t tag, const void *p, size_t n);
/* The same but the binary's n bytes, which the caller writes after b's
 * (a large message's, from where it lies): 0 or -ENOMEM. */
int act__codec_user_head(ei_x_buff *b, uint32_t tag, size_t n);

/*
 * Is the term at buf (n bytes, its version byte first) the user form
 * {Tag, Binary}, Tag an integer from 0 below ACT_TAG_RESERVED? Then
 * true, with *tag, and the binary's bytes where they lie in buf.
 */
bool act__codec_user_decode(const char *buf, size_t n, uint32_t *tag,
			    const char **p, size_t *len);

#endif /* ACT_DIST_CODEC_H */
