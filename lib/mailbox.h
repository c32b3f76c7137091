/* SPDX-License-Identifier: MIT */
/*
 * mailbox.h - a process's incoming messages: the MPSC queue that senders
 * append to (proc->mbox), and the owner-local save queue of messages that
 * a selective receive skipped, oldest first. Every message in the save
 * queue is older than every message still in the MPSC queue, so scanning
 * save queue then MPSC queue sees arrival order, and a skipped message
 * keeps its place.
 *
 * Envelopes whose `to` is not the owner's pid were sent to an earlier
 * occupant of the slot (I5): they are freed, never delivered.
 *
 * Held list: a message a receive returned stays on its receiver's held
 * list (owner-only, doubly linked) until act_msg_free. The receiver frees
 * it there directly; any other thread only marks it RELEASED, and the
 * receiver frees released entries when its list has doubled since the
 * last sweep, and all entries when it exits: a process's messages die
 * with it, also when the runtime discards it at stop.
 */
#ifndef ACT_MAILBOX_H
#define ACT_MAILBOX_H

#include <stdbool.h>

#include "actors.h"
#include "proc.h"
#include "slab.h"

typedef bool (*act__match_fn)(const struct act_msg *, void *);

/* Sender side, any thread. */
static inline void act__mailbox_push(struct act__proc *p, struct act__env *e)
{
	act__mpsc_push(&p->mbox, &e->node);
}

/* Owner: first matching message in the save queue, unlinked; or NULL. */
struct act__env *act__mailbox_take_saved(struct act__proc *p,
					 act__match_fn match, void *ctx);
/* Owner: pop the MPSC queue until a match; the rest go to the save queue. */
struct act__env *act__mailbox_take_new(struct act__proc *p,
				       struct act__slab *slab,
				       act__match_fn match, void *ctx);
/* Owner, at exit: free the save queue and everything in the MPSC queue. */
void act__mailbox_drain(struct act__proc *p, struct act__slab *slab);

/* Owner: e was just received; keep it on the held list. */
static inline void act__held_add(struct act__proc *p, struct act__env *e)
{
	atomic_store_explicit(&e->state, ACT_ENV_HELD, memory_order_relaxed);
	/* node is the envelope's first member: the casts are exact */
	atomic_store_explicit(&e->node.next,
			      (struct act__mpsc_node *)p->held,
			      memory_order_relaxed);
	e->held_prev = NULL;
	if (p->held)
		p->held->held_prev = e;
	p->held = e;
	p->n_held++;
}

/* Owner: take e off the held list. */
static inline void act__held_del(struct act__proc *p, struct act__env *e)
{
	struct act__env *next = (struct act__env *)atomic_load_explicit(
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

/* Owner: free the released entries (all of them when `all`). */
void act__held_sweep(struct act__proc *p, struct act__slab *slab, bool all);

#endif /* ACT_MAILBOX_H */
