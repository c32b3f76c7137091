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

#endif /* ACT_MAILBOX_H */
