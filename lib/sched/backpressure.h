/* SPDX-License-Identifier: MIT */
/*
 * backpressure.h - senders wait while their receiver has a backlog.
 *
 * A process that has read for a long turn (ACT_BACKLOG_REDUCTIONS of its
 * budget) and still finds mail waiting has a backlog: it is fed faster
 * than it reads. A process that sends to it then is muted, as Pony mutes
 * the senders of an overloaded actor: it stops, runnable by nothing but
 * the receiver, until the receiver finds its mailbox empty (or exits) and
 * releases every sender muted on it. A mailbox fed by many senders then
 * stays about one turn deep instead of growing to whatever the senders'
 * windows allow, so its envelopes are still in cache when read
 * (doc/design/backpressure.md has the fan-in figures).
 *
 * The receiver's word `mutes` holds the state: 0 (no backlog), or a
 * Treiber stack of the muted senders by slot index + 1 through their
 * mute_next, ending in ACT_MUTE_END. Only the receiver moves it between
 * zero and not zero: act__backpressure_mark sets ACT_MUTE_END, the exchange in
 * act__backpressure_release takes the whole stack; senders push only onto a
 * word that is not zero, so a sender never joins a stack nobody will
 * release.
 *
 * A muted process (ACT_PS_MUTED) has released its own senders first, so
 * nobody is ever muted on a muted process, and muting never forms a
 * cycle: two processes that flood each other cannot both stop. Messages
 * do not end the wait (act__wake wants WAITING); only the release does.
 */
#ifndef ACT_BACKPRESSURE_H
#define ACT_BACKPRESSURE_H

#include <stdint.h>

#include "proc/mailbox.h"
#include "proc/proc.h"
#include "worker.h"

/* Reductions of one turn after which mail still waiting is a backlog. */
#define ACT_BACKLOG_REDUCTIONS 256

#define ACT_MUTE_END UINT32_MAX

/* p (running) read for a long turn and mail still waits. Owner of p. */
static inline void act__backpressure_mark(struct act__proc *p)
{
	/* relaxed: nobody else moves the word away from 0, and senders
	 * read it as a hint before their CAS */
	if (!atomic_load_explicit(&p->mutes, memory_order_relaxed) &&
	    act__mailbox_maybe_nonempty(p))
		atomic_store_explicit(&p->mutes, ACT_MUTE_END,
				      memory_order_relaxed);
}

/* Wake every sender muted on p and drop p's backlog. On a worker. */
void act__backpressure_release(struct act__worker *w, struct act__proc *p);

/* p (running on w, or being reaped) found no mail: its backlog is gone. */
static inline void act__backpressure_clear(struct act__worker *w,
					   struct act__proc *p)
{
	if (act__unlikely(
		    atomic_load_explicit(&p->mutes, memory_order_relaxed)))
		act__backpressure_release(w, p);
}

/*
 * self (running on w) just sent to r, which has a backlog: wait until r
 * releases it. Returns at once if r released it meanwhile. w must not be
 * used by the caller after this returns (I8).
 */
void act__backpressure_mute(struct act__worker *w, struct act__proc *self,
			    struct act__proc *r);

#endif /* ACT_BACKPRESSURE_H */
