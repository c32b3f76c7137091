/* SPDX-License-Identifier: MIT */
/* backpressure.c - muting senders of a backlogged receiver (see .h). */
#include "backpressure.h"
#include "rt.h"
#include "wake.h"

void act__backpressure_release(struct act__worker *w, struct act__proc *p)
{
	struct act__proc *slots = w->rt->procs.slots;
	/* acquire: pairs with each muted sender's release CAS in
	 * act__backpressure_mute, so the mute_next it wrote before is seen */
	uint32_t i =
		atomic_exchange_explicit(&p->mutes, 0, memory_order_acquire);

	while (i && i != ACT_MUTE_END) {
		struct act__proc *s = &slots[i - 1];
		uint64_t st, t;

		/* read before the store: once unlisted, s may mute again
		 * elsewhere and rewrite it */
		i = atomic_load_explicit(&s->mute_next, memory_order_relaxed);
		/* this mute's ticket: s is MUTED with it, or still RUNNING
		 * and mute_park will use the next one. Read before the
		 * store: after it, s may be released, run and mute again,
		 * and a ticket read then could end that later mute (the
		 * ABA model/mute.pml found). relaxed: s cannot move on
		 * from this mute before the store below */
		st = atomic_load_explicit(&s->state, memory_order_relaxed);
		t = act__ps_ticket(st) + (act__ps(st) != ACT_PS_MUTED);
		/* seq_cst: the store half of the Dekker pair with
		 * mute_park's seq_cst store of MUTED and load of mute_next;
		 * act__wake_state's seq_cst state load is the load half */
		atomic_store_explicit(&s->mute_next, 0, memory_order_seq_cst);
		if (act__unlikely(w->trace))
			act__trace_event(w->trace, ACT_TR_RELEASE, s->pid.id, 0,
					 0);
		act__wake_state(w, s, t, ACT_PS_MUTED);
	}
}

/* Debug builds: a mute ended without its release. */
static void __attribute__((noinline, cold)) muted_ran(struct act__proc *self)
{
	char s[ACT_PID_STRLEN];

	act_pid_format(self->pid, s, sizeof(s));
	act__fatal("muted process %s ran before its release", s);
}

void act__backpressure_mute(struct act__worker *w, struct act__proc *self,
			    struct act__proc *r)
{
	uint32_t h = atomic_load_explicit(&r->mutes, memory_order_relaxed);
	struct act__worker *o =
		atomic_load_explicit(&r->owner, memory_order_relaxed);

	/* a muted process has no backlog: nobody waits on it (no cycle) */
	act__backpressure_clear(w, self);
	/* a killed one does not wait for anybody: it dies now */
	act__spawn_die_if_killed(self);
	do {
		if (!h) { /* r read its mail meanwhile */
			atomic_store_explicit(&self->mute_next, 0,
					      memory_order_relaxed);
			return;
		}
		atomic_store_explicit(&self->mute_next, h,
				      memory_order_relaxed);
		/* release: pairs with the acquire exchange in
		 * act__backpressure_release, which then reads our mute_next */
	} while (!atomic_compare_exchange_weak_explicit(
		&r->mutes, &h, self->index + 1, memory_order_release,
		memory_order_relaxed));
	act__count(&w->n_mutes);
	/* for observers (proc.h's fifth line): whom it waits for, read
	 * only while the state says MUTED, which the park publishes after
	 * this; r's generation is its occupant's (or a later one's, if r
	 * exited meanwhile: then the release comes anyway) */
	atomic_store_explicit(
		&self->wait_on,
		act__proc_make_pid(&w->rt->procs,
				   atomic_load_explicit(&r->gen,
							memory_order_relaxed),
				   r->index)
			.id,
		memory_order_relaxed);
	if (act__unlikely(w->trace))
		act__trace_event(w->trace, ACT_TR_MUTE, self->pid.id,
				 atomic_load_explicit(&self->wait_on,
						      memory_order_relaxed),
				 0);
	/* it feeds r faster than r reads: a chatty process whatever its
	 * turn held, to stay with r once released (act__proc_sticky) */
	if (o) {
		self->peer_worker = (uint16_t)act__rt_worker_index(w, o);
		self->peer_votes = UINT8_MAX;
		if (self->turn_msgs < ACT_CHATTY_MSGS)
			self->turn_msgs = ACT_CHATTY_MSGS;
	}
	/* the worker publishes MUTED, then looks at mute_next again
	 * (mute_park); we run again only once it is 0 */
	act__worker_switch_out_w(w, self, ACT_SW_MUTE);
	if (ACT_DEBUG_ON &&
	    atomic_load_explicit(&self->mute_next, memory_order_relaxed))
		muted_ran(self);
	/* killed while muted: a kill does not end a mute (the process is
	 * linked in r's stack until r lets it go), so it dies now */
	act__spawn_die_if_killed(self);
}
