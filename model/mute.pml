/*
 * mute.pml - a spin model of libactors' backpressure (lib/sched/backpressure.h):
 * a process that sends to a receiver with a backlog is muted, MUTED until
 * the receiver releases it, in the step order of the code (model/README.md
 * maps each step to its function).
 *
 * Three processes, and NWORK workers that take them from one run queue
 * and run them. R receives: it waits for each of its three messages (R's
 * wait, park_proc and the message wakes are those of parkwake.pml), then
 * receives once more with timeout 0 and exits; or it exits at once after
 * its first message. S1 and S2 are one program with the roles swapped:
 * each sends twice to the other, once to R, receives once with timeout 0
 * (a poll), sends once more to the other, and exits; S2 then sends to R a
 * second time. Any send can find the receiver's backlog and mute the
 * sender; one to a process that has exited fails (-ESRCH). A receive that
 * got a message, with more mail behind it, may find its turn was long and
 * mark a backlog; one that finds nothing releases it, and so does the
 * exit. After a send that did not mute and after a receive that got a
 * message, a process may find its budget spent and yield.
 *
 * That gives: a sender muted on R, released by R's empty receive or by
 * its exit, racing its own worker's mute_park; R waiting for S2's second
 * message while S2 is muted on it (R must release before it waits); a
 * sender with a backlog and the other sender muted on it, muting itself
 * (it must release its own backlog first); both senders with a backlog,
 * sending to each other (without that rule, each muted on the other); and
 * a sender muted on R, released, and muted again on the other sender
 * while R's release of it, or its first mute_park, is still under way.
 *
 * The episode ticket: mute_park publishes MUTED with a new ticket, t + 1,
 * as wait_for does for WAITING, and only ends that episode (its CAS wants
 * MUTED(t + 1)); the release reads the ticket of the episode it ends
 * before it stores mute_next = 0, and wakes with it. So neither a late
 * mute_park nor a late release can end the next episode of the same
 * process. The first version of lib/ had neither (mute_park kept the
 * ticket, the release woke with ticket 0): that is mutant 4, which pan
 * rejects; lib/ now has both (model/README.md).
 *
 * Memory model: sequential consistency. The Dekker pair of the protocol is
 * seq_cst on both sides: mute_park's store of MUTED then its load of
 * mute_next, against the release's store of mute_next = 0 then
 * act__wake_state's load of the state word. The Treiber stack of muted
 * senders is message passing (the sender's store of mute_next, then its
 * release CAS on the receiver's mutes; the receiver's acquire exchange,
 * then its loads of mute_next), which interleaving models exactly. The
 * relaxed loads of mutes are a hint or the owner's own word: a stale 0 in
 * act__message_send only skips a mute (a stale value in act__backpressure_mute only fails the
 * CAS, which reloads), and only the owner moves mutes between 0 and not
 * 0, so its own look is exact. Each shared access below is one step;
 * d_step groups only what the code does as one atomic instruction (an
 * exchange, a CAS) or what only the owning thread touches at that point
 * (a worker's store of RUNNING or RUNNABLE goes with its pop or push:
 * no other thread tells the two states apart).
 *
 * The mailbox is a count of messages pushed and not yet taken: the queue's
 * states between a producer's exchange and its link store, selective
 * receive and the save queue are parkwake.pml's. R's waits have no
 * timeout, so their tickets (wait_ticket) matter to nothing here, as a
 * message wakes any wait: they are left at 0.
 *
 * Checked (spin -a, pan in safety mode, exhaustive):
 *   I1     enqueue asserts the process is not already queued and is
 *          RUNNABLE; the worker asserts that what it popped is RUNNABLE
 *          and not queued, and that no worker runs it (its registers were
 *          saved).
 *   mute   a process that resumes from a mute asserts mute_next == 0:
 *          it was released, and is on no stack (act__backpressure_mute's debug check).
 *   cycle  a sender that pushes itself on a receiver's stack asserts that
 *          the receiver is not muted itself (ghost waits_on): nobody is
 *          muted on a muted process, so muting forms no cycle.
 *   lost   a muted process that nobody releases stays MUTED while the rest
 *          ends (the workers idle at `end`): an invalid end state. So does
 *          R waiting for a message from a sender muted for ever.
 *
 * Mutants (spin -DMUTANT=n), each of which pan must reject:
 *   1  mute_park without the re-check: it stores MUTED and returns, and a
 *      release whose store of mute_next = 0 and state load came before
 *      that store is lost (lost release).
 *   2  the release wakes before it clears mute_next: the woken sender can
 *      resume while mute_next still links it (assertion mute_next == 0).
 *   3  act__backpressure_mute without releasing its own backlog first: two senders
 *      with backlogs mute each other (cycle assertion).
 *   4  no episode ticket (lib/ as of this writing): a late release, or a
 *      late mute_park, ends the sender's next mute, on another receiver,
 *      and it runs while still on that one's stack (assertion mute_next
 *      == 0).
 */

#ifndef MUTANT
#define MUTANT 0
#endif
#ifndef NWORK
#define NWORK 2		/* workers; ids 1..NWORK, 0 is "none" */
#endif

#define NPROC 3		/* processes, by slot index */
#define R  0		/* the receiver */
#define S1 1		/* the senders */
#define S2 2

/* states of the state word (lib/proc/proc.h ACT_PS_*) */
#define RUNNABLE 1
#define RUNNING  2
#define WAITING  3
#define EXITING  4
#define MUTED    5

#define MUTE_END 255	/* ACT_MUTE_END: the bottom of a stack */

/* why a process switched to its worker (w->switch_reason), 0: it runs */
#define SW_YIELD 1	/* act__worker_reduce: budget spent, runnable again */
#define SW_PARK  2	/* wait_for: the worker runs park_proc */
#define SW_EXIT  3	/* act_exit: the worker reaps */
#define SW_MUTE  4	/* act__backpressure_mute: the worker runs mute_park */

/* p->state: (ticket << 8) | state; both halves change together */
byte ps[NPROC];
byte tk[NPROC];

byte mail[NPROC];	/* p->mbox: messages pushed and not yet taken */
/* p->mutes: 0 (no backlog), MUTE_END (a backlog, nobody muted on it), or
 * the slot + 1 of the last sender muted on p */
byte mutes[NPROC];
byte mute_next[NPROC];	/* p->mute_next: 0, or the next one down */
byte waits_on[NPROC];	/* ghost: slot + 1 of the one p is muted on */

/* scheduling */
bool queued[NPROC];	/* p->queued (I1) */
bool regs_saved[NPROC];	/* p's registers are in p->ctx, not on a CPU */
byte oncpu[NPROC];	/* the worker running p on p's stack, 0: none */
byte reason[NWORK + 1];	/* per worker: its process switched back, why */

/* act__wake_enqueue -> act__runq_push_* -> act__runq_mark_queued. I1:
 * never in a queue twice, and only RUNNABLE is queued. */
inline enqueue(p)
{
	d_step {
		assert(!queued[p]);	   /* I1: duplicate enqueue */
		assert(ps[p] == RUNNABLE); /* I1: queued while not runnable */
		queued[p] = 1
	}
}

/* act__wake_state(me, p, ticket, from) (lib/sched/wake.h): from (WAITING for a
 * message's act__wake, MUTED for a release) -> RUNNABLE; ticket 0 takes
 * any wait, another only that one. Only the CAS winner enqueues. */
inline wake_state(wp, wt, from, ws, wst, ww)
{
	/* seq_cst load: the load half of the Dekker pairs with park_proc
	 * and mute_park */
	d_step { ws = ps[wp]; wst = tk[wp]; ww = 0 }
	do
	:: ws != from || (wt != 0 && wst != wt) -> break
	:: else ->
		/* CAS -> RUNNABLE, same ticket; a failure reloads */
		d_step {
			if
			:: ps[wp] == ws && tk[wp] == wst ->
				ps[wp] = RUNNABLE; ww = 1
			:: else -> ws = ps[wp]; wst = tk[wp]
			fi
		}
		if
		:: ww -> break
		:: else -> skip
		fi
	od;
	if
	:: ww -> enqueue(wp)
	:: else -> skip
	fi;
	ws = 0; wst = 0; ww = 0
}

/* act__backpressure_release(w, p) (lib/sched/backpressure.c), by p itself or by its
 * reaper: take the whole stack, then release each sender on it. */
inline release(rp, ri, rs, rt, ws, wst, ww)
{
	/* acquire exchange of p->mutes with 0: the backlog is gone */
	d_step { ri = mutes[rp]; mutes[rp] = 0 }
	do
	:: ri == 0 || ri == MUTE_END -> break
	:: else ->
		/* the link, read before the store below: once unlisted,
		 * s may mute again and rewrite it */
		d_step { rs = ri - 1; ri = mute_next[rs] }
#if MUTANT != 4
		/* the ticket of s's episode, read while s cannot leave it
		 * (mute_next is not 0 yet): RUNNING(t) before mute_park
		 * published MUTED(t + 1), MUTED(t + 1) after */
		d_step {
			if
			:: ps[rs] == MUTED -> rt = tk[rs]
			:: else -> rt = tk[rs] + 1
			fi
		}
#endif
#if MUTANT == 2
		/* mutant 2: wake first, then clear the link */
		wake_state(rs, rt, MUTED, ws, wst, ww);
		d_step { mute_next[rs] = 0; waits_on[rs] = 0 }
#else
		/* seq_cst store: the store half of the Dekker pair with
		 * mute_park. s is released */
		d_step { mute_next[rs] = 0; waits_on[rs] = 0 }
		/* act__wake_state(w, s, t, ACT_PS_MUTED); mutant 4: t = 0,
		 * any MUTED wait */
		wake_state(rs, rt, MUTED, ws, wst, ww)
#endif
	od;
	ri = 0; rs = 0; rt = 0
}

/* act__backpressure_clear: the owner's look at its own word (exact: nobody
 * else moves it from not 0 to 0), then the release */
inline clear(cp, ri, rs, rt, ws, wst, ww)
{
	if
	:: mutes[cp] != 0 -> release(cp, ri, rs, rt, ws, wst, ww)
	:: else -> skip
	fi
}

/* act__worker_switch_out_w -> act__ctx_switch from the process's context to its
 * worker's sched_ctx: saves its registers; the worker goes on in run_one */
inline switch_out(me, r)
{
	d_step {
		reason[oncpu[me]] = r;
		oncpu[me] = 0; regs_saved[me] = 1
	}
}

/* act__worker_reduce: the budget may be spent (a yield), or not */
inline reduce(me)
{
	if
	:: switch_out(me, SW_YIELD);
		oncpu[me] != 0		/* resumed, maybe elsewhere */
	:: skip
	fi
}

/* act__mailbox_take_saved / act__mailbox_take_new: a message, if any */
inline take(me, e)
{
	d_step {
		if
		:: mail[me] > 0 -> mail[me]--; e = 1
		:: else -> e = 0
		fi
	}
}

/* R, S1 and S2: act_receive_match and act__message_send (lib/actor/message.c), act__backpressure_mute
 * (lib/sched/backpressure.c). One proctype for the three, so that each step of
 * the code is one place in the model. Its steps run while a worker has
 * resumed it (oncpu != 0). The scripts, by step: R receives with a wait
 * at 0, 1 and 2 and with timeout 0 at 3, then exits (or exits after 0);
 * a sender sends to the other one at 0 and 1, to R at 2, receives with
 * timeout 0 at 3, sends to the other one at 4, then exits, S2 after a
 * send to R at 5. Locals are reset once dead, so that states do not
 * differ in them. */
proctype Proc(byte me)
{
	byte step = 0, to, h, ri, rs, rt, ws, wst;
	bool e, ww, muted;

	oncpu[me] != 0;		/* first run */
	do
	:: me == R && step == 4 -> break
	:: me == R && step == 1 -> break	/* exits early */
	:: me == S1 && step == 5 -> break
	:: me == S2 && step == 6 -> break
	:: me == R && step < 4 || me != R && step == 3 ->
		/* act_receive_match: R waits for its first three, then
		 * polls; S1 and S2 poll */
		take(me, e);
		if
		:: !e ->
			/* nothing: the backlog, if any, is gone */
			clear(me, ri, rs, rt, ws, wst, ww);
			if
			:: me == R && step < 3 ->
				/* wait_for (its ticket: see the top) */
				do
				:: switch_out(me, SW_PARK);
					oncpu[me] != 0;	/* resumed */
					take(me, e);
					if
					:: e -> break
					:: else -> skip	/* park again */
					fi
				od
			:: else -> skip		/* timeout 0: NULL */
			fi
		:: else -> skip
		fi;
		if
		:: e ->
			/* a long turn with mail left: act__backpressure_mark (the
			 * owner's word, and its own mailbox, which only grows
			 * until the owner takes from it) */
			if
			:: d_step {
				mutes[me] == 0 && mail[me] != 0 ->
				mutes[me] = MUTE_END
			   }
			:: skip		/* a short turn, or no mail */
			fi;
			reduce(me)
		:: else -> skip
		fi;
		e = 0;
		step++
	:: me != R && step != 3 && step < 5 || me == S2 && step == 5 ->
		/* act__message_send to R (steps 2 and 5) or to the other sender */
		if
		:: step == 2 || step == 5 -> to = R
		:: else -> to = S1 + S2 - me
		fi;
		if
		:: ps[to] == EXITING -> skip	/* -ESRCH */
		:: else ->
			/* act__mailbox_push: the seq_cst exchange */
			mail[to]++;
			/* act__wake(w, p, 0): a WAITING process only, never
			 * a MUTED one */
			wake_state(to, 0, WAITING, ws, wst, ww);
			/* the receiver's backlog (a relaxed hint) */
			if
			:: mutes[to] != 0 ->
				/* act__backpressure_mute */
				h = mutes[to];
#if MUTANT != 3
				/* its own backlog first: nobody waits on a
				 * muted process */
				clear(me, ri, rs, rt, ws, wst, ww);
#endif
				do
				:: h == 0 -> break	/* released meanwhile */
				:: else ->
					mute_next[me] = h;	/* relaxed */
					/* CAS(to->mutes, h -> me + 1),
					 * release; a failure reloads h */
					d_step {
						if
						:: mutes[to] == h ->
							mutes[to] = me + 1;
							/* no cycle */
							assert(waits_on[to] == 0);
							waits_on[me] = to + 1;
							muted = 1
						:: else -> h = mutes[to]
						fi
					}
					if
					:: muted -> break
					:: else -> skip
					fi
				od;
				if
				:: muted ->
					/* the worker runs mute_park */
					switch_out(me, SW_MUTE);
					oncpu[me] != 0;	/* resumed */
					/* it runs only once released */
					assert(mute_next[me] == 0)
				:: else -> skip
				fi;
				h = 0; muted = 0
			:: else -> reduce(me)
			fi
		fi;
		to = 0;
		step++
	od;
	/* act_exit: EXITING (senders then fail, -ESRCH), then switch out */
	ps[me] = EXITING;
	switch_out(me, SW_EXIT)
}

/* act__worker_loop / run_one (lib/sched/worker.c). */
proctype Worker(byte me)
{
	byte p, t, ri, rs, rt, ws, wst;
	bool ww;

end:	do
	:: atomic {
		/* act__runq_pop: any queued process (the owner's pop, or a
		 * steal); it clears the queued flag */
		queued[R] || queued[S1] || queued[S2] ->
		if
		:: queued[R] -> p = R
		:: queued[S1] -> p = S1
		:: queued[S2] -> p = S2
		fi;
		queued[p] = 0;
		/* run_one: RUNNABLE -> RUNNING (the worker owns p now, and
		 * nobody treats the two apart), then act__ctx_switch to p.
		 * I1: what is popped is RUNNABLE; no worker runs it */
		assert(ps[p] == RUNNABLE);
		ps[p] = RUNNING;
		assert(regs_saved[p] && oncpu[p] == 0);
		regs_saved[p] = 0;
		oncpu[p] = me
	   };
		/* p runs until it switches back to this worker, which goes
		 * on with that reason (one thread: one step) */
		if
		:: d_step {
			reason[me] == SW_YIELD -> reason[me] = 0;
			/* RUNNABLE (relaxed), then act__runq_push_fifo */
			ps[p] = RUNNABLE
		   };
			enqueue(p)
		:: d_step {
			reason[me] == SW_PARK -> reason[me] = 0;
			/* park_proc: seq_cst store of WAITING */
			ps[p] = WAITING
		   };
			/* look again: act__mpsc_maybe_nonempty */
			if
			:: mail[p] != 0 ->
				/* CAS WAITING -> RUNNABLE unless a sender's
				 * wake won */
				d_step {
					if
					:: ps[p] == WAITING ->
						ps[p] = RUNNABLE; ww = 1
					:: else -> ww = 0
					fi
				}
				if
				:: ww -> enqueue(p)
				:: else -> skip
				fi
			:: else -> skip		/* sleeps */
			fi
		:: d_step {
			reason[me] == SW_MUTE -> reason[me] = 0;
			/* mute_park: seq_cst store of MUTED(t), the store
			 * half of the Dekker pair with the release */
#if MUTANT != 4
			t = tk[p] + 1;
#else
			t = tk[p];	/* mutant 4: the same ticket */
#endif
			ps[p] = MUTED; tk[p] = t
		   };
#if MUTANT != 1
			/* seq_cst load of mute_next: released already? */
			if
			:: mute_next[p] == 0 ->
				/* CAS MUTED(t) -> RUNNABLE unless the
				 * release won */
				d_step {
					if
					:: ps[p] == MUTED && tk[p] == t ->
						ps[p] = RUNNABLE; ww = 1
					:: else -> ww = 0
					fi
				}
				if
				:: ww -> enqueue(p)
				:: else -> skip
				fi
			:: else -> skip		/* stays muted */
			fi
#else
			skip	/* mutant 1: no re-check */
#endif
		:: d_step {
			reason[me] == SW_EXIT -> reason[me] = 0;
			/* reap: act__mailbox_drain */
			mail[p] = 0
		   };
			/* then act__backpressure_clear: its muted senders go on */
			clear(p, ri, rs, rt, ws, wst, ww)
		fi;
		p = 0; t = 0; ww = 0
	od
}

init
{
	byte i;

	atomic {
		/* spawned: RUNNABLE, in the run queue */
		for (i : 0 .. NPROC - 1) {
			ps[i] = RUNNABLE;
			queued[i] = 1;
			regs_saved[i] = 1
		}
		for (i : 1 .. NWORK) {
			run Worker(i)
		}
		run Proc(R);
		run Proc(S1);
		run Proc(S2)
	}
}
