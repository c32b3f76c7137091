/* SPDX-License-Identifier: MIT */
/*
 * message.c - act_send, act_receive, act_receive_match, act_msg_free.
 *
 * Send: look the pid up, copy the payload into an envelope from the
 * caller's slab for the receiver's home, push it on the receiver's mailbox, then wake (I2: push
 * before the state load; only the CAS winner enqueues). Receive: scan the
 * save queue and the mailbox; with nothing, (arm the timeout and) switch
 * to the worker, which parks the process on its own stack.
 */
#include <errno.h>
#include <string.h>

#include "sched/backpressure.h"
#include "links.h"
#include "message.h"
#include "proc/mailbox.h"
#include "reactor/reactor.h"
#include "sched/rt.h"
#include "sched/wake.h"
#include "sched/worker.h"

/* The common tiny payload without a call into libc. */
static inline void small_copy(void *dst, const void *src, size_t len)
{
	uint64_t v;

	if (len == 8) {
		memcpy(&v, src, 8);
		memcpy(dst, &v, 8);
	} else {
		memcpy(dst, src, len);
	}
}

/* Any thread that is not a worker: the runtime's shared foreign slab. */
static struct act__envelope *foreign_alloc(struct act__rt *rt, size_t len)
{
	struct act__envelope *e;

	act__spin_lock(&rt->foreign_lock); /* pairs with the unlock below */
	e = act__slab_alloc(&rt->foreign, len);
	act__spin_unlock(&rt->foreign_lock);
	return e;
}

/*
 * p has a mailbox limit: count one more unreceived message (0), or go
 * on uncounted to a process that is gone (1), or, at the limit, kill p
 * (it cannot trap that) and refuse the message.
 */
static int count_in(struct act__rt *rt, struct act__worker *w,
		    struct act__proc *p, act_pid to)
{
	int rc = act__mailbox_limit_in(&rt->procs, p, to);

	if (act__likely(rc >= 0))
		return rc;
	act__links_exit_signal(rt, w, p, to, ACT_PID_NONE, ACT_EXIT_MAILBOX,
			       true);
	return rc;
}

/* The worker's slab that carves envelopes for `to`: for its home
 * (slab.h); with one home, no guests, the worker's own. */
static act__always_inline struct act__slab *
send_slab(struct act__rt *rt, struct act__worker *w, act_pid to)
{
	struct act__slab *s = &w->slab;

	if (act__unlikely(s->guests != NULL))
		s = act__slab_for(s, act__proc_pid_home(&rt->procs, to));
	return s;
}

/* from: the sender named when the caller is not a process, or always
 * (as: a distribution connection delivering a remote process's message,
 * lib/dist; sys: an EXIT or DOWN, past any limit, charging nothing). ref: the
 * message's (act_call's request, or with `reply` its reply: addressed
 * to the caller's reply name, mailbox.h, past any limit and any
 * backpressure, as the caller waits for nothing else); 0 for the rest,
 * which fold the two away. hdr: hdr_len bytes before data's, a
 * distribution forward's header (act__message_send_hdr); 0 for every
 * other send, which the compiler then leaves out. */
static act__always_inline int
send_env(struct act__rt *rt, struct act__worker *w, act_pid to, uint32_t tag,
	 const void *data, size_t len, act_pid from, bool as, bool sys,
	 uint64_t ref, bool reply, const void *hdr, size_t hdr_len)
{
	struct act__proc *p, *self;
	struct act__envelope *e;
	unsigned st;
	bool counted = false;

	if (len > ACT_MSG_MAX)
		return -EMSGSIZE;
	p = act__proc_lookup(&rt->procs, to);
	if (!p)
		return -ESRCH; /* or a remote pid: act_send's, below */
	len += hdr_len;
	st = act__ps(atomic_load_explicit(&p->state, memory_order_relaxed));
	if (st == ACT_PS_FREE || st == ACT_PS_EXITING)
		return -ESRCH;
	self = w && !sys ? w->current : NULL;
	if (act__unlikely(
		    atomic_load_explicit(&p->limited, memory_order_relaxed)) &&
	    !sys && !reply) {
		int rc = count_in(rt, w, p, to);

		if (rc < 0)
			return rc;
		counted = rc == 0;
	}
	e = w ? act__slab_alloc(send_slab(rt, w, to), len) :
		foreign_alloc(rt, len);
	if (!e) {
		if (counted)
			act__mailbox_limit_out(&rt->procs, p, to);
		return -ENOMEM;
	}
	/* relaxed, atomic: an observer's walk (act__mailbox_count) may
	 * still be at this envelope from its last use, and reads the word
	 * atomic; published with the envelope by the mailbox push */
	atomic_store_explicit(&e->to_id,
			      reply ? act__mailbox_reply_to(to) : to.id,
			      memory_order_relaxed);
	e->counted = counted;
	/* relaxed: published with the envelope by the mailbox push */
	atomic_store_explicit(&e->state, ACT_ENV_SENT, memory_order_relaxed);
	e->msg.tag = tag;
	e->msg.rsvd = 0;
	e->msg.from = self && !as ? self->pid : from;
	e->msg.len = len;
	e->msg.data = len ? (char *)e + ACT_ENV_HDR : NULL;
	e->msg.ref = ref;
	if (hdr_len) {
		memcpy(e->msg.data, hdr, hdr_len);
		if (len > hdr_len)
			memcpy((char *)e->msg.data + hdr_len, data,
			       len - hdr_len);
	} else if (len <= 8 && len) {
		small_copy(e->msg.data, data, len);
	} else if (len) {
		memcpy(e->msg.data, data, len);
	}
	act__mailbox_push(p, e);
	act__wake(w, p, 0);
	if (self) {
		/* stealing hints (act__proc_sticky); p may be gone already,
		 * but its slot, and the worker it names, stay readable */
		struct act__worker *o =
			atomic_load_explicit(&p->owner, memory_order_relaxed);

		act__proc_note_peer(self,
				    o ? (uint16_t)act__rt_worker_index(w, o) :
					UINT16_MAX);
		/* backpressure: the receiver has a backlog, so the sender
		 * waits until it has read it (backpressure.h) */
		if (act__unlikely(atomic_load_explicit(&p->mutes,
						       memory_order_relaxed)) &&
		    p != self && !reply) {
			act__backpressure_mute(w, self, p);
			return 0;
		}
		act__worker_reduce(w, self);
	}
	return 0;
}

int act__message_send(struct act__rt *rt, act_pid to, uint32_t tag,
		      const void *data, size_t len, act_pid from)
{
	int rc = send_env(rt, act__tls_worker_self(), to, tag, data, len, from,
			  false, false, 0, false, NULL, 0);

	/* a timer's message to a remote pid (act_send's rule) */
	if (act__unlikely(rc == -ESRCH) && (to.id >> 63))
		rc = act__route_send(rt, to, tag, data, len, from);
	return rc;
}

int act__message_send_as(struct act__rt *rt, act_pid to, uint32_t tag,
			 const void *data, size_t len, act_pid from)
{
	return send_env(rt, act__tls_worker_self(), to, tag, data, len, from,
			true, false, 0, false, NULL, 0);
}

int act__message_send_sys(struct act__rt *rt, act_pid to, uint32_t tag,
			  const void *data, size_t len, act_pid from)
{
	return send_env(rt, act__tls_worker_self(), to, tag, data, len, from,
			false, true, 0, false, NULL, 0);
}

int act__message_send_ref(struct act__rt *rt, act_pid to, uint32_t tag,
			  const void *data, size_t len, uint64_t ref,
			  bool reply)
{
	return send_env(rt, act__tls_worker_self(), to, tag, data, len,
			ACT_PID_NONE, false, false, ref, reply, NULL, 0);
}

int act__message_send_hdr(struct act__rt *rt, act_pid to, uint32_t tag,
			  const void *hdr, size_t hdr_len, const void *data,
			  size_t len, act_pid from)
{
	if (hdr_len > ACT_SLAB_HDR_ROOM || !hdr_len)
		return -EINVAL;
	return send_env(rt, act__tls_worker_self(), to, tag, data, len, from,
			false, false, 0, false, hdr, hdr_len);
}

int act_send(act_pid to, uint32_t tag, const void *data, size_t len)
{
	/* act__rt_enter, with the worker looked up once: from a process
	 * the runtime is its worker's, and there is nothing to leave (the
	 * send may move the process to another worker: only whether it is
	 * one is used after it, never the old worker) */
	struct act__worker *w = act__tls_worker_self();
	struct act__rt *rt = w ? w->rt : act__rt_enter(); /* pairs with the
							   * leave below */
	int rc;

	if (!rt)
		return -ESRCH;
	if (tag >= ACT_TAG_RESERVED || (len && !data))
		rc = -EINVAL;
	else
		rc = send_env(rt, w, to, tag, data, len, ACT_PID_NONE, false,
			      false, 0, false, NULL, 0);
	if (act__unlikely(rc < 0) && rc == -ESRCH && (to.id >> 63))
		/* a remote pid (lib/dist/peers.h): to its node's connection;
		 * off the local send's path, which it costs nothing */
		rc = act__route_send(rt, to, tag, data, len, ACT_PID_NONE);
	if (!w)
		act__rt_leave(rt);
	if (act__unlikely(rc < 0)) {
		/* a refused send costs a reduction too: a process that
		 * retries one in a loop still yields (say, for the
		 * flooded receiver it sends to to die) */
		w = act__tls_worker_self(); /* I8: it may have moved */
		if (w && w->current)
			act__worker_reduce(w, w->current);
	}
	return rc;
}

/* Blocked part of a receive: park until a match, or the deadline; with
 * ref (a call's), until its reply or its monitor's DOWN. */
static act__always_inline struct act__envelope *
wait_for(struct act__worker **wp, struct act__proc *p, act__match_fn match,
	 void *ctx, int64_t timeout_ns, unsigned kind, uint64_t ref)
{
	struct act__worker *w = *wp;
	struct act__rt *rt = w->rt;
	uint64_t t = act__ps_ticket(atomic_load_explicit(
			     &p->state, memory_order_relaxed)) +
		     1;
	struct act__timeout *armed = NULL;
	struct act__envelope *e;

	p->wait_ticket = t;
	if (timeout_ns > 0) {
		int64_t now = act__clock_now();
		int64_t end = timeout_ns < INT64_MAX - now ? now + timeout_ns :
							     INT64_MAX;

		/* for observers (proc.h), relaxed: read only while the
		 * state says WAITING, which the park publishes after it */
		atomic_store_explicit(&p->wait_deadline, end,
				      memory_order_relaxed);
		kind |= ACT_WK_TIMED;
		armed = act__reactor_arm_timeout(rt->reactor, p, t, end);
		if (!armed)
			return NULL; /* no memory for the timer: time out */
		p->armed = armed;
	}
	/* for observers, as the deadline; on the line the turn writes */
	atomic_store_explicit(&p->wait_kind, (uint8_t)kind,
			      memory_order_relaxed);
	for (;;) {
		act__worker_switch_out_w(w, p, ACT_SW_PARK);
		act__proc_turn_begin(p);
		w = act__tls_worker_self(); /* I8: we may have moved */
		e = NULL;
		if (act__proc_killed(p))
			break;
		e = ref ? act__mailbox_take_reply(p, &w->slab, ref) :
			  act__mailbox_take_new(p, &w->slab, match, ctx);
		/* acquire: pairs with the reactor's release of timeout_fired */
		if (e || atomic_load_explicit(&p->timeout_fired,
					      memory_order_acquire) >= t)
			break;
	}
	if (armed) { /* fired or not, the wait is over */
		p->armed = NULL;
		act__reactor_disarm(rt->reactor, armed);
	}
	if (!e)
		act__spawn_die_if_killed(p);
	*wp = w;
	return e;
}

static act__always_inline struct act_msg *receive(act__match_fn match,
						  void *ctx, int64_t timeout_ns)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	struct act__envelope *e;

	if (!p)
		return NULL;
	e = act__mailbox_saved(p) ? act__mailbox_take_saved(p, match, ctx) :
				    NULL;
	if (!e)
		e = act__mailbox_take_new(p, &w->slab, match, ctx);
	if (!e)
		act__backpressure_clear(w, p);
	if (!e && timeout_ns != 0)
		e = wait_for(&w, p, match, ctx, timeout_ns,
			     match ? ACT_WK_MATCH : ACT_WK_ANY, 0);
	if (!e)
		return NULL;
	if (act__unlikely(e->counted)) /* out of the limit's count */
		act__mailbox_limit_out(&w->rt->procs, p, e->to);
	/* stealing hints (act__proc_sticky): a receive counts like a send,
	 * its peer the worker whose slab the envelope came from */
	act__proc_note_peer(p, e->worker);
	act__mailbox_held_add(p, e);
	if (act__unlikely(p->n_held >= p->sweep_at))
		act__mailbox_held_sweep(p, &w->slab, false);
	/* a long turn of reading with more to read: senders hold back */
	if (act__unlikely(w->budget <= w->backlog_at))
		act__backpressure_mark(p);
	act__worker_reduce(w, p);
	return &e->msg;
}

struct act_msg *act_receive_match(bool (*match)(const struct act_msg *, void *),
				  void *ctx, int64_t timeout_ns)
{
	return receive(match, ctx, timeout_ns);
}

struct act_msg *act_receive(int64_t timeout_ns)
{
	return receive(NULL, NULL, timeout_ns);
}

struct act_msg *act__message_wait_reply(uint64_t ref, int64_t timeout_ns)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w->current;
	struct act__envelope *e;

	e = act__mailbox_take_reply(p, &w->slab, ref);
	if (!e) {
		act__backpressure_clear(w, p); /* it reads nothing meanwhile */
		if (timeout_ns != 0)
			e = wait_for(&w, p, NULL, NULL, timeout_ns,
				     ACT_WK_MATCH, ref);
	}
	if (!e)
		return NULL;
	/* a reply and a DOWN are never counted in a limit */
	act__proc_note_peer(p, e->worker);
	act__mailbox_held_add(p, e);
	if (act__unlikely(p->n_held >= p->sweep_at))
		act__mailbox_held_sweep(p, &w->slab, false);
	act__worker_reduce(w, p);
	return &e->msg;
}

/* act_sleep's match: no message ends a sleep. */
static bool match_none(const struct act_msg *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return false;
}

int act_sleep(int64_t ns)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	int64_t end;

	if (!p)
		return -EPERM;
	if (ns < 0)
		return -EINVAL;
	if (ns == 0) {
		act_yield();
		return 0;
	}
	end = act__clock_now();
	end = ns < INT64_MAX - end ? end + ns : INT64_MAX;
	act__backpressure_clear(w, p); /* asleep, it reads no mail */
	/* a receive that takes nothing: messages that come meanwhile wake
	 * it, go to the save queue in order, and it waits again */
	if (wait_for(&w, p, match_none, NULL, ns, ACT_WK_SLEEP, 0))
		act__fatal("act_sleep took a message");
	/* the timeout fires at its deadline or later: back early means
	 * there was no memory to arm it */
	return act__clock_now() < end ? -ENOMEM : 0;
}

/* A double act_msg_free (or of a message never received) would put the
 * envelope on a free list twice: a later message lost, another delivered
 * twice. Say so and stop. */
static act__noreturn act__noinline void not_held(const struct act__envelope *e)
{
	act__fatal("act_msg_free(%p): the message was freed already (or "
		   "was not one act_receive returned); a message is freed "
		   "once",
		   (const void *)&e->msg);
}

/* ASan: the payload is the program's no more, whenever the envelope
 * itself goes back (a kept tail, a free from another thread: later),
 * so that a use after act_msg_free is reported now (slab.h). */
static inline void asan_msg_done(struct act__envelope *e)
{
#ifdef ACT_ASAN
	act__asan_poison((char *)e + ACT_ENV_HDR,
			 e->cls == ACT_SLAB_FOREIGN ?
				 e->msg.len :
				 ((size_t)128 << e->cls) - ACT_ENV_HDR);
#else
	(void)e;
#endif
}

void act_msg_free(struct act_msg *msg)
{
	struct act__envelope *e;
	struct act__worker *w;
	struct act__proc *p;

	if (!msg)
		return;
	e = act__container_of(msg, struct act__envelope, msg);
	w = act__tls_worker_self();
	p = w ? w->current : NULL;
	if (act__likely(p && p->pid.id == e->to.id)) {
		/* the receiver itself: free it now. relaxed: only the holder
		 * writes HELD's successor on this path */
		if (act__unlikely(atomic_load_explicit(&e->state,
						       memory_order_relaxed) !=
				  ACT_ENV_HELD))
			not_held(e);
		if (act__mailbox_kept(p, e)) {
			/* still the queue's tail: the pop that moves past
			 * it frees it (mailbox.h); relaxed: that pop is
			 * this process's, on its own thread */
			asan_msg_done(e);
			atomic_store_explicit(&e->state, ACT_ENV_RELEASED,
					      memory_order_relaxed);
			return;
		}
		act__mailbox_held_del(p, e);
		act__slab_free(&w->slab, e);
		return;
	}
	asan_msg_done(e);
	/* release: pairs with the acquire load in act__mailbox_held_sweep; the
	 * receiver frees it at its next sweep or its exit. An exchange, so
	 * that of two frees from other threads one sees the other's mark */
	if (atomic_exchange_explicit(&e->state, ACT_ENV_RELEASED,
				     memory_order_release) != ACT_ENV_HELD)
		not_held(e);
}
