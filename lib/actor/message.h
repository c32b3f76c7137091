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
/* message.c: inside a process, in act_call: the reply to ref or the DOWN
 * of ref's monitor, received (act_msg_free frees it); NULL when
 * timeout_ns passed first (0: only a look). A killed caller dies here. */
struct act_msg *act__message_wait_reply(uint64_t ref, int64_t timeout_ns);

#endif /* ACT_MESSAGE_H */
