/* SPDX-License-Identifier: MIT */
/*
 * call.c - act_call and act_reply: a request that carries a fresh
 * reference, and its one reply (doc/design/call.md).
 *
 * The call monitors the server under the call's own reference, so that
 * the reply and the server's DOWN carry the same one; the wait takes
 * only those two (act__mailbox_take_reply), from the messages not yet
 * looked at: the save queue, older than the call, is never walked. A
 * reply is addressed to the caller's reply name (proc/mailbox.h), which
 * every other receive drops as stale: one that comes after its call
 * gave up is freed unseen by the first receive that meets it. So the
 * filtering is exact and costs act_send and act_receive nothing.
 */
#include <errno.h>

#include "call.h"
#include "links.h"
#include "message.h"
#include "proc/mailbox.h"
#include "base/spin.h"
#include "sched/rt.h"
#include "sched/worker.h"

/* The call is over and its monitor still there, or fired: take it
 * away, and a DOWN it sent with it (act_demonitor's flush, but only in
 * the queue: the DOWN came after everything the wait set aside). */
static void call_end(uint64_t ref)
{
	struct act__worker *w = act__tls_worker_self(); /* I8 */
	struct act__proc *p = w->current;
	struct act__envelope *e;

	if (act__links_unmonitor(w->rt, p, ref))
		return;
	/* fired: its DOWN was pushed under p's lock before the node went;
	 * a sender between its exchange and its link can hide it for a
	 * moment, so look until the queue is seen empty (a DOWN lost to
	 * memory was said on stderr) */
	for (;;) {
		e = act__mailbox_take_reply(p, &w->slab, ref);
		if (e) {
			bool down = e->msg.tag == ACT_TAG_DOWN;

			act__mailbox_held_add(p, e);
			act_msg_free(&e->msg);
			if (down)
				return;
			continue; /* a second reply to the same request */
		}
		if (!act__mailbox_maybe_nonempty(p))
			return;
		act__spin_relax();
	}
}

int act__call(act_pid to, uint32_t tag, const void *req, size_t len,
	      int64_t timeout_ns, struct act_msg **reply)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	struct act_msg *m;
	uint64_t ref;
	int rc;

	if (!reply)
		return -EINVAL;
	*reply = NULL;
	if (!p)
		return -EPERM; /* no mailbox for the reply */
	if (len && !req)
		return -EINVAL;
	if (to.id == p->pid.id)
		return -EDEADLK;
	ref = act_make_ref();
	rc = act__links_monitor_ref(w->rt, p, to, ref);
	if (rc)
		return rc;
	rc = act__message_send_ref(w->rt, to, tag, req, len, ref, false);
	if (rc) {
		call_end(ref); /* the server may have died since */
		return rc;
	}
	m = act__message_wait_reply(ref, timeout_ns);
	if (!m) {
		call_end(ref);
		return -ETIMEDOUT;
	}
	*reply = m;
	if (m->tag == ACT_TAG_DOWN)
		return -ECONNRESET; /* the monitor is gone with its DOWN */
	call_end(ref);
	return 0;
}

int act_call(act_pid to, uint32_t tag, const void *req, size_t len,
	     int64_t timeout_ns, struct act_msg **reply)
{
	if (tag >= ACT_TAG_RESERVED) {
		if (reply)
			*reply = NULL;
		return -EINVAL;
	}
	return act__call(to, tag, req, len, timeout_ns, reply);
}

int act__call_reply(const struct act_msg *req, uint32_t tag, const void *data,
		    size_t len)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__rt *rt = w ? w->rt : act__rt_enter(); /* pairs with the
							   * leave below */
	int rc;

	if (!rt)
		return -ESRCH;
	if (!req || !req->ref || !req->from.id || (len && !data))
		rc = -EINVAL;
	else
		rc = act__message_send_ref(rt, req->from, tag, data, len,
					   req->ref, true);
	if (!w)
		act__rt_leave(rt);
	return rc;
}

int act_reply(const struct act_msg *req, uint32_t tag, const void *data,
	      size_t len)
{
	if (tag >= ACT_TAG_RESERVED)
		return -EINVAL;
	return act__call_reply(req, tag, data, len);
}
