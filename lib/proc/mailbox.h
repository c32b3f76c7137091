/* SPDX-License-Identifier: MIT */
/*
 * mailbox.h - a process's incoming messages, all of them: the queue that
 * senders append to (proc->mbox), the owner's save queue of messages a
 * selective receive skipped, the held list of messages received and not
 * yet freed, the mailbox limit's count, and the observer's count. Their
 * fields are in struct act__proc (proc.h) and are this module's, but for
 * three reads kept inline where they are used: the send's test of
 * `limited` and the receive's of the held list's sweep mark
 * (actor/message.c), and act_process_info's of the limit
 * (node/info.c); the slot's first act__mpsc_init is proc.c's.
 * message.c's send and receive call the rest.
 *
 * Order (I7): every message in the save queue is older than every one
 * still in the queue, so scanning save queue then queue sees arrival
 * order, and a skipped message keeps its place. Envelopes whose `to` is
 * not the owner's pid were sent to an earlier occupant of the slot (I5):
 * they are freed, never delivered.
 *
 * The queue is base/mpsc.h's (Vyukov's, with a stub) on the producers'
 * side: act__mpsc_init and act__mpsc_push, unchanged. Its consumer side
 * is its own, a variant mpsc.h names, because it keeps the last node:
 *
 * - Algorithm. Taking the last message does not put the stub back behind
 *   it (Vyukov's pop does: an exchange on the head, 4.8 ns, the dearest
 *   step of a receive, doc/design/scheduling.md "The kept envelope").
 *   The envelope stays linked as the tail, received, and the tail word
 *   says so in its low bit (ACT_MBOX_KEPT); senders append behind it as
 *   behind the stub. The pop moves past the stub and a kept tail
 *   (act__mailbox_pop); a selective receive that skips a kept one, which
 *   needs its link for the save queue, and the exit's drain put the stub
 *   back first (mbox_detach); the last message from another worker
 *   leaves with the stub put back at once (act__mailbox_unkeep), so that
 *   the next sender from there links into the slot's line, not into the
 *   envelope's.
 * - Producers: any thread (act__mailbox_push, wait-free). Consumer: the
 *   owner (I3). The tail word is the owner's, atomic and relaxed because
 *   others read it as a hint: park_proc's re-check on the worker that
 *   parks the process (act__mailbox_maybe_nonempty; the state CAS
 *   decides) and the observer's walk (act__mailbox_count, its stamp).
 * - Progress: as mpsc.h; a pop may report "none" while a sender is
 *   between its exchange and its link, and then a kept envelope stays
 *   kept and a detach fails (its receive stops; the next one goes on).
 * - ABA: none, as mpsc.h; the tail's bit is set only on a node the owner
 *   holds.
 * - Reclamation: a kept envelope is on no list, as senders may still
 *   write its link. act_msg_free of it only marks it RELEASED; the pop
 *   that moves past it frees it then, or puts it on the held list if it
 *   is still held (act__mailbox_kept_done).
 * - Memory order: as mpsc.h (the push's seq_cst exchange, its release
 *   link); every acquire below names its pair there.
 *
 * Held list: a message a receive returned stays on its receiver's held
 * list (owner-only, doubly linked) until act_msg_free. The receiver frees
 * it there directly; any other thread only marks it RELEASED, and the
 * receiver frees released entries when its list has doubled since the
 * last sweep, and all entries when it exits: a process's messages die
 * with it, also when the runtime discards it at stop.
 *
 * Limit: act__mailbox_limit_* below; a limited process's senders count
 * their messages in its slot, and the kill at the limit is the send's
 * (actor/message.c), a layer up.
 */
#ifndef ACT_MAILBOX_H
#define ACT_MAILBOX_H

#include <stdbool.h>

#include "actors.h"
#include "proc.h"
#include "mem/slab.h"

typedef bool (*act__match_fn)(const struct act_msg *, void *);

/* The tail's low bit: the node there was received already (kept). */
#define ACT_MBOX_KEPT ((uintptr_t)1)

/* Owner: is e the kept envelope (received, still linked)? */
static inline bool act__mailbox_kept(struct act__proc *p,
				     const struct act__envelope *e)
{
	return (uintptr_t)atomic_load_explicit(&p->mbox.tail,
					       memory_order_relaxed) ==
	       ((uintptr_t)&e->node | ACT_MBOX_KEPT);
}

/*
 * Consumer: may the mailbox hold a message not yet received? Exact when
 * no sender is mid-push; errs towards "yes". The tail is received when it
 * is the stub or kept; then only a head that moved past it means more.
 * seq_cst load of the head: the load half of the Dekker pair of
 * act__mpsc_push (the park's re-check). The tail is relaxed: park_proc
 * may read it while the process, already woken, pops on another worker:
 * a hint there, the state CAS decides.
 */
static inline bool act__mailbox_maybe_nonempty(struct act__proc *p)
{
	uintptr_t t = (uintptr_t)atomic_load_explicit(&p->mbox.tail,
						      memory_order_relaxed);
	struct act__mpsc_node *n =
		(struct act__mpsc_node *)(t & ~ACT_MBOX_KEPT);

	if (n != &p->mbox.stub && !(t & ACT_MBOX_KEPT))
		return true;
	/* seq_cst: the load half of the push's Dekker pair (above) */
	return atomic_load_explicit(&p->mbox.head, memory_order_seq_cst) != n;
}

/* Sender side, any thread. */
static inline void act__mailbox_push(struct act__proc *p,
				     struct act__envelope *e)
{
	act__mpsc_push(&p->mbox, &e->node);
}

/* The largest mailbox limit (a count in 32 bits, with room). */
#define ACT__MAILBOX_MAX 2147483647u

/*
 * The limit (doc/design/lifecycle.md "Mailbox limit"): with `limited`
 * set (the slot's first line, which a sender reads anyway), senders
 * count their messages in mbox_count, in one word with the low 32 bits
 * of the generation of the occupant it counts for (a CAS moves both): a
 * sender that raced the slot's reuse never moves a later occupant's
 * count, so each starts at exactly 0. Only a receive takes a message
 * off; one freed unread (at the exit, or dropped by a later occupant)
 * stays counted, so a sender that passed the state check just before
 * EXITING still meets the limit. The kill at the limit is the sender's
 * (actor/message.c), as an exit signal: above this layer.
 *
 * act__mailbox_limit_init: spawn, before anyone knows the pid; 0: none.
 * act__mailbox_limit_in: a sender to pid (p its slot, limited): 0 when
 * counted, 1 when the word is another occupant's (the send goes on
 * uncounted: it is for a process that is gone), -ENOBUFS when at the
 * limit. act__mailbox_limit_out: a counted message to `to` was
 * received (or, unsent, given back).
 */
void act__mailbox_limit_init(struct act__proc *p, uint32_t limit);
int act__mailbox_limit_in(const struct act__ptable *t, struct act__proc *p,
			  act_pid pid);
void act__mailbox_limit_out(const struct act__ptable *t, struct act__proc *p,
			    act_pid to);

/*
 * Spawn: an empty save queue and held list, before anyone knows the
 * pid. The MPSC queue is as the last occupant's exit left it (drained)
 * or new (act__proc_slot_get).
 */
static inline void act__mailbox_reset(struct act__proc *p)
{
	/* relaxed: act_process_info's walk reads them (mailbox.c) */
	atomic_store_explicit(&p->save_head, NULL, memory_order_relaxed);
	atomic_store_explicit(&p->save_tail, NULL, memory_order_relaxed);
	p->held = NULL;
	p->n_held = 0;
	p->sweep_at = 64;
}

/* Owner: the save queue's oldest message, or NULL. (Its own word, read
 * plain: proc.h.) */
static inline struct act__envelope *act__mailbox_saved(struct act__proc *p)
{
	return p->save_head_own;
}

/* Owner: first matching message in the save queue, unlinked; or NULL. */
struct act__envelope *act__mailbox_take_saved(struct act__proc *p,
					      act__match_fn match, void *ctx);
/* Owner, at exit: free the save queue and everything in the MPSC queue. */
void act__mailbox_drain(struct act__proc *p, struct act__slab *slab);

/* Owner: put e, HELD, on the held list. */
static inline void act__mailbox_held_link(struct act__proc *p,
					  struct act__envelope *e)
{
	/* node is the envelope's first member: the casts are exact */
	atomic_store_explicit(&e->node.next, (struct act__mpsc_node *)p->held,
			      memory_order_relaxed);
	e->held_prev = NULL;
	if (p->held)
		p->held->held_prev = e;
	p->held = e;
	p->n_held++;
}

/* Owner: e was just received; keep it on the held list, or, kept in
 * the queue, only mark it (kept_done links it when it leaves). */
static inline void act__mailbox_held_add(struct act__proc *p,
					 struct act__envelope *e)
{
	atomic_store_explicit(&e->state, ACT_ENV_HELD, memory_order_relaxed);
	if (!act__mailbox_kept(p, e))
		act__mailbox_held_link(p, e);
}

/* Owner: take e off the held list. */
static inline void act__mailbox_held_del(struct act__proc *p,
					 struct act__envelope *e)
{
	struct act__envelope *next =
		(struct act__envelope *)atomic_load_explicit(
			&e->node.next, memory_order_relaxed);

	if (e->held_prev)
		atomic_store_explicit(&e->held_prev->node.next,
				      (struct act__mpsc_node *)next,
				      memory_order_relaxed);
	else
		p->held = next;
	if (next)
		next->held_prev = e->held_prev;
	p->n_held--;
}

/*
 * Owner: the kept envelope e has left the queue: the pop moved past it.
 * Freed meanwhile (by its receiver, another thread, or as a stale one):
 * free it now; still held: onto the held list.
 */
static inline void act__mailbox_kept_done(struct act__proc *p,
					  struct act__slab *slab,
					  struct act__envelope *e)
{
	/* acquire: pairs with the release exchange in act_msg_free (a
	 * thread other than the receiver) */
	if (act__unlikely(
		    atomic_load_explicit(&e->state, memory_order_acquire) ==
		    ACT_ENV_HELD))
		act__mailbox_held_link(p, e);
	else
		act__slab_free(slab, e);
}

/*
 * Owner: n, the queue's last node, is being received: put the stub
 * behind it (Vyukov's pop) and return what follows n now, or NULL when
 * that cannot be done yet (a sender between its exchange and its link):
 * n is kept then.
 */
struct act__mpsc_node *act__mailbox_unkeep(struct act__mpsc *q,
					   struct act__mpsc_node *n);

/*
 * Owner: the oldest message not yet received, or NULL when there is none
 * (or a sender is between its exchange and its link). The stub and a
 * kept envelope are received already: the pop moves past them. A last
 * node stays linked, kept: no exchange.
 */
static inline struct act__envelope *act__mailbox_pop(struct act__proc *p,
						     struct act__slab *slab)
{
	struct act__mpsc *q = &p->mbox;
	struct act__mpsc_node *n, *next;
	uintptr_t t;

	for (;;) {
		t = (uintptr_t)atomic_load_explicit(&q->tail,
						    memory_order_relaxed);
		n = (struct act__mpsc_node *)(t & ~ACT_MBOX_KEPT);
		/* acquire: pairs with the release link store in
		 * act__mpsc_push */
		next = atomic_load_explicit(&n->next, memory_order_acquire);
		if (n != &q->stub && !(t & ACT_MBOX_KEPT))
			break;
		if (!next)
			return NULL;
		atomic_store_explicit(&q->tail, next, memory_order_relaxed);
		if (t & ACT_MBOX_KEPT)
			act__mailbox_kept_done(
				p, slab,
				act__container_of(n, struct act__envelope,
						  node));
	}
	/* n: the oldest not received; what follows it, if anything, is
	 * the next tail, else n stays as the received tail; but one from
	 * another worker leaves the queue with the stub put back, if it
	 * can, so that the next sender, likely that one again, links into
	 * the slot's line, not into n's (mailbox.h head) */
	if (!next &&
	    act__unlikely(
		    act__container_of(n, struct act__envelope, node)->worker !=
		    slab->worker))
		next = act__mailbox_unkeep(q, n);
	atomic_store_explicit(
		&q->tail,
		next ? next : (struct act__mpsc_node *)(t | ACT_MBOX_KEPT),
		memory_order_relaxed);
	return act__container_of(n, struct act__envelope, node);
}

/*
 * Owner: e, popped, is not for this receive: sent to an earlier occupant
 * (freed, or, kept, once the queue is past it), or skipped by a
 * selective receive (to the save queue; kept, it leaves the queue
 * first). False: it could not leave the queue yet (a sender between its
 * exchange and its link behind it), so it is not received: stop.
 */
bool act__mailbox_set_aside(struct act__proc *p, struct act__slab *slab,
			    struct act__envelope *e);

/* Owner: pop until a match; the rest go to the save queue. */
static inline struct act__envelope *
act__mailbox_take_new(struct act__proc *p, struct act__slab *slab,
		      act__match_fn match, void *ctx)
{
	struct act__envelope *e;

	while ((e = act__mailbox_pop(p, slab))) {
		if (act__likely(e->to.id == p->pid.id) &&
		    (!match || match(&e->msg, ctx)))
			return e;
		if (!act__mailbox_set_aside(p, slab, e))
			return NULL;
	}
	return NULL;
}

/*
 * Replies (act_call, lib/actor/call.c; doc/design/call.md). A reply is
 * sent to its caller's slot with `to` the complement of the caller's
 * pid: never a pid of that slot (the index bits differ), so every
 * receive treats it as a stale envelope (I5) and frees it without a
 * look, and the common receive pays nothing for replies. Only the call
 * that waits for it takes it, by its reference.
 */
static inline uint64_t act__mailbox_reply_to(act_pid caller)
{
	return ~caller.id;
}

/*
 * Owner, in a call with reference ref: pop until the reply to ref (its
 * `to` made the owner's again, so that it frees as any message) or the
 * DOWN of the call's monitor (reference ref too); skipped messages go
 * to the save queue, replies to other calls are freed. The save queue
 * is not looked at: it holds messages older than the call.
 */
struct act__envelope *act__mailbox_take_reply(struct act__proc *p,
					      struct act__slab *slab,
					      uint64_t ref);

/*
 * Any thread, for an observer (act_process_info): the messages for pid
 * in p's mailbox and save queue, at most `max` nodes walked; -1 when the
 * walk met what a mailbox of pid's does not hold (an envelope for pid
 * not SENT) or ran past max. The owner may pop and save as it runs, so
 * the count is exact only if it did not run meanwhile: the caller
 * checks that (act__mailbox_count_stamp before and after). Call it
 * between act__slab_walk_begin and act__slab_walk_end: then what it
 * reads stays readable. Slots and slab chunks stay mapped while the
 * runtime runs (I5, slab.h), so a slab envelope freed meanwhile still
 * reads as an envelope, and a malloc'd one freed meanwhile is not given
 * back to malloc until the walk ends; a foreign one's `to` is checked
 * before it counts. See doc/design/overview.md "Observers".
 */
long act__mailbox_count(struct act__proc *p, act_pid pid, unsigned long max);

/* Tests only (test_info): called with each envelope the walk reaches,
 * before it reads the envelope's link; NULL otherwise. */
extern void (*act__mailbox_walk_hook)(struct act__envelope *e);

/*
 * Any thread: what changes whenever the owner takes something off the
 * mailbox into a receive or the save queue within one wait: the queue's
 * tail and the save queue's tail, folded.
 */
static inline uintptr_t act__mailbox_count_stamp(struct act__proc *p)
{
	return (uintptr_t)atomic_load_explicit(&p->mbox.tail,
					       memory_order_relaxed) ^
	       ((uintptr_t)atomic_load_explicit(&p->save_tail,
						memory_order_relaxed)
		<< 1);
}

/* Owner: free the released entries (all of them when `all`). */
void act__mailbox_held_sweep(struct act__proc *p, struct act__slab *slab,
			     bool all);

#endif /* ACT_MAILBOX_H */
