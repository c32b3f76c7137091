/* SPDX-License-Identifier: MIT */
/*
 * message.h - sending from inside the library: the reactor's timers
 * (timer.c), exit signals and DOWN messages (links.c, spawn.c). The
 * public act_send, act_receive and act_msg_free are message.c's too.
 */
#ifndef ACT_MESSAGE_H
#define ACT_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors.h"

struct act__rt;

/* message.c: send from any thread; `from` names the sender when the
 * caller is not a process (the reactor sends timers' messages). */
int act__message_send(struct act__rt *rt, act_pid to, uint32_t tag,
		      const void *data, size_t len, act_pid from);
/* message.c: as act__message_send from a process, but from `from` (a
 * remote process: lib/dist's connection delivering its message), with
 * the caller muted by the receiver's backlog as any sender. */
int act__message_send_as(struct act__rt *rt, act_pid to, uint32_t tag,
			 const void *data, size_t len, act_pid from);
/* message.c: an EXIT or DOWN (links.c), from `from`: past any mailbox
 * limit and backpressure, no reduction charged; any thread or worker. */
int act__message_send_sys(struct act__rt *rt, act_pid to, uint32_t tag,
			  const void *data, size_t len, act_pid from);

/* message.c: act_call's request (ref, reply false) and act_reply's
 * reply (ref, reply true: to the caller's reply name, proc/mailbox.h);
 * any thread. */
int act__message_send_ref(struct act__rt *rt, act_pid to, uint32_t tag,
			  const void *data, size_t len, uint64_t ref,
			  bool reply);
/* message.c: a distribution forward (lib/dist): hdr (1 to
 * ACT_SLAB_HDR_ROOM bytes) then data, in one envelope to `to` (a node's
 * connection process); data's len is within ACT_MSG_MAX, hdr goes on
 * top. From any thread; msg.from is the process sending, else from. */
int act__message_send_hdr(struct act__rt *rt, act_pid to, uint32_t tag,
			  const void *hdr, size_t hdr_len, const void *data,
			  size_t len, act_pid from);

/*
 * A send to a remote pid (bit 63, lib/dist/peers.h), which no slot
 * holds, from act_send and act__message_send once the local send found
 * no slot (so that a local send pays nothing for it): handed to its
 * node's connection process, `from` the sender outside a process.
 * Defined in lib/dist/route.c, a layer above (the list `hooks` of
 * scripts/check-layers.sh). 0; -ESRCH when distribution is not started
 * or the pid names no process met; -ENOTCONN when its node is not
 * connected; as act_send otherwise.
 */
int act__route_send(struct act__rt *rt, act_pid to, uint32_t tag,
		    const void *data, size_t len, act_pid from);

/* message.c: inside a process, in act_call: the reply to ref or the DOWN
 * of ref's monitor, received (act_msg_free frees it); NULL when
 * timeout_ns passed first (0: only a look). A killed caller dies here. */
struct act_msg *act__message_wait_reply(uint64_t ref, int64_t timeout_ns);

#endif /* ACT_MESSAGE_H */
