/* SPDX-License-Identifier: MIT */
/*
 * call.h - act_call and act_reply for the library's own protocols
 * (call.c): the same call and reply, with the tags from
 * ACT_TAG_RESERVED up that the public calls refuse, so that a request
 * of the library's (a supervisor's, sup.c) is never one of the
 * program's.
 */
#ifndef ACT_CALL_H
#define ACT_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "actors.h"

/* act_call(3) with any tag: inside a process. */
int act__call(act_pid to, uint32_t tag, const void *req, size_t len,
	      int64_t timeout_ns, struct act_msg **reply);
/* act_reply(3) with any tag: any thread. */
int act__call_reply(const struct act_msg *req, uint32_t tag, const void *data,
		    size_t len);

#endif /* ACT_CALL_H */
