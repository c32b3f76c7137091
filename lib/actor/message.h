/* SPDX-License-Identifier: MIT */
/*
 * message.h - sending from inside the library: the reactor's timers
 * (timer.c), exit signals and DOWN messages (links.c, spawn.c). The
 * public act_send, act_receive and act_msg_free are message.c's too.
 */
#ifndef ACT_MESSAGE_H
#define ACT_MESSAGE_H

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

#endif /* ACT_MESSAGE_H */
