/*
 * parkwake.pml - a spin model of libactors' park/wake protocol and of run
 * queue membership: invariants I1 (one queue) and I2 (no lost wakeup) of
 * DESIGN.md section 3, in the step order of doc/design/wakeup.md and of
 * the code (model/README.md maps each step to its function).
 *
 * One receiving process P, NSEND senders that send it one message each,
 * one timer (the reactor firing P's first, timed receive), and NWORK
 * workers that take P from the run queue and run it. P receives until it
 * has got all NSEND messages, then exits. Its first receive has a timeout
 * and takes any message or, chosen at the start, none (a reply that never
 * comes: then only the timer can end it, so a lost timer wakeup shows);
 * later receives take any message and wait for ever.
 *
 * Memory model: sequential consistency. The code makes each Dekker pair of
 * the protocol seq_cst on both sides (the WAITING store in park_proc vs.
 * the queue-head exchange in act__mpsc_push and the timeout_fired CAS in
 * the reactor's fire(), each followed by a seq_cst load of the other
 * side's word), so interleaving those accesses is what the hardware may
 * do. Each shared access below is one step; d_step groups only what the
 * code does as one atomic instruction (an exchange, a CAS, a CAS-max) or
 * what only one thread can touch at that point.
 *
 * Symmetric transfer (lib/sched/worker.c act__worker_switch): a process that
 * parks while another is runnable switches straight to it, and that one,
 * on its own stack, settles the first (park_proc) before anything else,
 * as the loop would have. The model has a second process Q, spawned
 * runnable, that runs once and exits: P's park may take Q from the queue
 * and switch to it directly, and Q's first step settles P (proc_entry's
 * act__worker_settle), or the park goes through the loop; pan tries both.
 * That is the model with -DDIRECT=1, which has one sender (the timer is
 * the second waker) to keep the search within 1 million states; with
 * two senders it holds too, in 41 million states and 2.6 GB (-DNSEND=2).
 *
 * Run queues: the model has one run queue that any worker pops. That is
 * the owner popping its own queue, or another worker stealing it (a steal
 * moves a queued process to the thief's queue without touching its
 * queued flag or state, lib/sched/runq.c, so popping it there is the same step);
 * allowing both checks the protocol for both.
 * Doorbells and worker sleep (idle()) are not modelled: a worker waits for
 * the queue as if its doorbell never lost a ring. Kills (killed, set by
 * act_kill) are not modelled here: they take the same path as the
 * timeout flag (io.pml models a kill during an I/O wait).
 *
 * Checked (spin -a, pan in safety mode, exhaustive):
 *   I1  enqueue asserts P is not already queued (the p->queued flag that
 *       act__runq_mark_queued keeps; a duplicate is fatal in debug builds)
 *       and is RUNNABLE, not RUNNING; run_one asserts that what it popped
 *       is RUNNABLE and no longer queued.
 *   I2  resuming P asserts its registers were saved and that no worker is
 *       running it (no double run). A lost wakeup leaves P WAITING for
 *       ever with a message in its mailbox or its timeout fired, while
 *       everything else has finished: an invalid end state (the workers
 *       idle at `end`, the timer at `end` if never armed; every other
 *       process terminates, so such a state is always reached). P asserts
 *       at exit that it took every message.
 *
 * Mutants (spin -DMUTANT=n), each of which pan must reject:
 *   1  no re-check: park_proc stores WAITING and returns without looking
 *      at the mailbox or the timeout flag again (lost wakeup).
 *   2  WAITING published on P's own stack: the park step runs before the
 *      switch to the worker has saved P's registers, so a waker can
 *      enqueue P and a worker resume it while it still runs on its stack.
 *   3  waker without CAS: act__wake loads WAITING, then stores RUNNABLE
 *      and enqueues; two wakers can both enqueue P (I1).
 *   4  direct switch without settling: Q's first step does not settle
 *      the process that switched to it (proc_entry without
 *      act__worker_settle), so P is never parked; the worker's next
 *      switch out finds the last one unsettled.
 */

#ifndef MUTANT
#define MUTANT 0
#endif
#ifndef DIRECT
#define DIRECT 0	/* 1: with Q and the direct switch to it */
#endif
#ifndef NSEND
#if DIRECT
#define NSEND 1		/* the timer is the second waker */
#else
#define NSEND 2		/* senders, one message each */
#endif
#endif
#ifndef NWORK
#define NWORK 2		/* workers; ids 1..NWORK, 0 is "none" */
#endif

/* states of the state word (lib/proc/proc.h ACT_PS_*) */
#define RUNNABLE 1
#define RUNNING  2
#define WAITING  3
#define EXITING  4

/* why a process switched out (w->switch_reason) */
#define SW_PARK   1	/* park: whoever resumes runs park_proc */
#define SW_EXIT   2	/* exit: the worker reaps */
#define SW_PARKED 3	/* mutant 2: P already published WAITING itself */

/* w->leaving: the process whose switch out is not settled yet */
#define NONE 0
#define LP   1		/* P */
#define LQ   2		/* Q */

/* p->state: (ticket << 8) | state; both halves change together */
byte ps = RUNNABLE;
byte tk = 0;

/* p->mbox, Vyukov's MPSC queue (lib/base/mpsc.h), as counts: message i is the
 * i-th producer exchange on the head. lnk[i]: the producer of message i
 * has done its link store (prev->next = node). */
byte nexch = 0;		/* exchanges on head (what maybe_nonempty reads) */
bool lnk[NSEND];
byte taken = 0;		/* messages popped by P (the consumer's tail) */
byte saved = 0;		/* of those, in P's save queue (did not match) */

byte wait_ticket = 0;	/* p->wait_ticket */
byte timeout_fired = 0;	/* p->timeout_fired */
byte armed = 0;		/* p->armed_ticket */
byte timer_tk = 0;	/* the reactor's heap entry for P: its ticket */

/* scheduling */
bool queued = 1;	/* p->queued (I1): spawned P starts in a run queue */
bool regs_saved = 1;	/* P's registers are in p->ctx, not on a CPU */
byte oncpu = 0;		/* the worker running P on P's stack, 0: none */
/* per worker (index 1..NWORK): a process switched back to its
 * sched_ctx; which one left last and why (w->leaving, w->switch_reason),
 * until it is settled */
bool back[NWORK + 1];
byte reason[NWORK + 1];
byte leaving[NWORK + 1];

/* Q (DIRECT): spawned runnable, run once by P's direct switch, exits */
byte qs = RUNNABLE;
bool qqueued = DIRECT;
byte q_oncpu = 0;	/* the worker running Q, 0: none */

byte got = 0;		/* messages P received */

/* act__wake_enqueue -> act__runq_push_lifo/push_remote ->
 * act__runq_mark_queued. I1: never in a queue twice, and only RUNNABLE
 * (set by the wake CAS winner or the park step's CAS) is queued, never
 * RUNNING. */
inline enqueue()
{
	d_step {
		assert(!queued);	   /* I1: duplicate enqueue */
		assert(ps == RUNNABLE);	   /* I1: queued while running */
		queued = 1
	}
}

/* act__wake(me, p, ticket) (lib/sched/wake.h): the one path from WAITING to
 * RUNNABLE; ticket 0 (a message) wakes any wait. Only the CAS winner
 * enqueues. */
inline wake(ticket, s_ps, s_tk, won)
{
	/* seq_cst load: load half of the Dekker pair with park_proc */
	d_step { s_ps = ps; s_tk = tk; won = 0 }
#if MUTANT == 3
	/* mutant 3: no CAS; a plain store of RUNNABLE after the load */
	if
	:: s_ps == WAITING && (ticket == 0 || s_tk == ticket) ->
		d_step { ps = RUNNABLE; tk = s_tk; won = 1 }
	:: else -> skip
	fi;
#else
	do
	:: s_ps != WAITING || (ticket != 0 && s_tk != ticket) -> break
	:: else ->
		/* CAS WAITING(t) -> RUNNABLE(t); a failure reloads s */
		d_step {
			if
			:: ps == s_ps && tk == s_tk -> ps = RUNNABLE; won = 1
			:: else -> s_ps = ps; s_tk = tk
			fi
		}
		if
		:: won -> break
		:: else -> skip
		fi
	od;
#endif
	if
	:: won -> enqueue()
	:: else -> skip
	fi
}

/* act__mailbox_take_new: pop (mbox_pop, lib/proc/mailbox.c) until a message
 * matches (acc: the receive takes any message; !acc: none) or the
 * mailbox looks empty; what does not match goes to the save queue.
 * Message i can be received once the link into it is stored: the newest
 * stays linked, kept, as the queue's tail. One that goes to the save
 * queue needs its own link, so it must leave the queue (mbox_detach):
 * the link out of it is stored too, or it is the newest (the consumer
 * then pushes the stub behind it); else it stays, not received. A
 * producer between its exchange and its link makes the queue look empty
 * for now. */
inline take_new(e, acc, stop)
{
	e = 0;
	stop = 0;
	do
	:: d_step {
		if
		:: taken < nexch && lnk[taken] &&
		   (acc || taken + 1 == nexch || lnk[taken + 1]) ->
			taken++;
			if
			:: acc -> e = 1
			:: else -> saved++	/* save_append */
			fi
		:: else -> stop = 1
		fi
	   };
	   if
	   :: e || stop -> break
	   :: else -> skip
	   fi
	od
}

/* The park step (I2): worker.c park_proc, run on the worker's stack after
 * the switch saved P's registers; in mutant 2 run by P on its own stack
 * before that switch. */
inline park(t, found, ok)
{
	t = wait_ticket;
	/* seq_cst store of WAITING(t): store half of the Dekker pairs */
	d_step { ps = WAITING; tk = t }
#if MUTANT != 1
	/* look again: act__mpsc_maybe_nonempty (seq_cst load of the head),
	 * then timeout_fired >= t (seq_cst) */
	found = 0;
	if
	:: nexch != taken -> found = 1
	:: else ->
		if
		:: timeout_fired >= t -> found = 1
		:: else -> skip
		fi
	fi;
	if
	:: found ->
		/* something arrived: take P back unless a waker won */
		d_step {
			if
			:: ps == WAITING && tk == t -> ps = RUNNABLE; ok = 1
			:: else -> ok = 0
			fi
		}
		if
		:: ok -> enqueue()
		:: else -> skip
		fi
	:: else -> skip		/* nothing: P sleeps */
	fi
#endif
}

/* act__worker_switch from P's context to the worker's sched_ctx: saves
 * P's registers, the worker continues in run_one. The worker's last
 * switch out was settled (act__worker_settle runs first after every
 * switch). */
inline switch_out(r)
{
	d_step {
		assert(leaving[oncpu] == NONE);
		reason[oncpu] = r; leaving[oncpu] = LP; back[oncpu] = 1;
		oncpu = 0; regs_saved = 1
	}
}

#if DIRECT
/* act__worker_switch's direct path: Q, next in the queue, is popped
 * (next_direct, begin_run) and P switches straight to it: P's
 * registers saved, Q's loaded, in one switch. Q then settles P. */
inline switch_direct(r)
{
	/* executable only while Q is queued: the pop and the switch are
	 * one step for the other threads (the pop is the owner's) */
	d_step {
		qqueued -> qqueued = 0;
		assert(leaving[oncpu] == NONE);
		/* I1: what is popped is RUNNABLE */
		assert(qs == RUNNABLE);
		qs = RUNNING;
		reason[oncpu] = r; leaving[oncpu] = LP;
		q_oncpu = oncpu;
		oncpu = 0; regs_saved = 1
	}
}

#endif

/* act__worker_settle(w) in the loop, after P's run: finish the switch
 * out of w->leaving, P (parked or exiting) or Q, which P handed the
 * worker to and which then exited. */
inline settle_loop(w, t, found, ok)
{
	if
	:: leaving[w] == LP && reason[w] == SW_PARK ->
		leaving[w] = NONE; park(t, found, ok)
#if MUTANT == 2
	:: leaving[w] == LP && reason[w] == SW_PARKED -> leaving[w] = NONE
#endif
	:: leaving[w] == LP && reason[w] == SW_EXIT ->
		leaving[w] = NONE; ps = EXITING	/* reap */
#if DIRECT
	:: leaving[w] == LQ -> leaving[w] = NONE; qs = EXITING	/* reap */
#endif
	fi
}

proctype Sender(byte i)
{
	byte slot, s_ps, s_tk;
	bool won;

	/* act__message_send -> act__mailbox_push -> act__mpsc_push: the seq_cst
	 * exchange on head, then the release link store */
	d_step { slot = nexch; nexch++ }
	lnk[slot] = 1;
	/* then act__wake(w, p, 0) */
	wake(0, s_ps, s_tk, won)
}

/* The reactor for P's one timed receive: arm_timeout's entry comes due;
 * fire() if the receive still waits for it (entry_live). */
proctype Timer()
{
	byte tt, s_ps, s_tk;
	bool won;

end:	timer_tk != 0;
	tt = timer_tk;
	if
	:: armed == tt ->
		/* fire(): CAS-max of timeout_fired (seq_cst), then a
		 * ticketed wake (I4) */
		d_step {
			if
			:: timeout_fired < tt -> timeout_fired = tt
			:: else -> skip
			fi
		}
		wake(tt, s_ps, s_tk, won)
	:: else -> skip		/* receive ended: entry dropped */
	fi
}

/* The receiving process: act_receive_match and wait_for (lib/actor/message.c).
 * Its steps run while a worker has resumed it (oncpu != 0). Its first
 * receive is timed and takes any message (acc) or none (it waits for a
 * reply that never comes, so only its timeout can end it: a lost timer
 * wakeup then shows); later ones take any message and have no timeout. */
proctype P()
{
	byte t, pt;
	bool e, timed = 1, acc, stop, found, ok;

	oncpu != 0;		/* first run */
	if
	:: acc = 1
	:: acc = 0
	fi;
	do
	:: !timed && got == NSEND -> break
	:: else ->
		/* act_receive_match: the save queue, then the mailbox */
		if
		:: acc && saved > 0 -> saved--; e = 1	/* take_saved */
		:: else -> take_new(e, acc, stop)
		fi;
		if
		:: !e ->
			/* wait_for: take ticket t = ticket + 1, arm the
			 * timeout if the receive has one */
			t = tk + 1;
			wait_ticket = t;
			if
			:: timed -> armed = t; timer_tk = t
			:: else -> skip
			fi;
			do
			:: true ->
#if MUTANT == 2
				/* mutant 2: park on P's own stack, then
				 * switch */
				park(pt, found, ok);
#if DIRECT
				if
				:: switch_direct(SW_PARKED)
				:: true -> switch_out(SW_PARKED)
				fi;
#else
				switch_out(SW_PARKED);
#endif
#elif DIRECT
				/* to Q directly if it is queued, or through
				 * the loop */
				if
				:: switch_direct(SW_PARK)
				:: true -> switch_out(SW_PARK)
				fi;
#else
				switch_out(SW_PARK);
#endif
				oncpu != 0;	/* resumed, maybe elsewhere */
				take_new(e, acc, stop);
				if
				:: e || timeout_fired >= t -> break
				:: else -> skip	/* spurious: park again */
				fi
			od;
			if
			:: timed -> armed = 0
			:: else -> skip
			fi
		:: else -> skip
		fi;
		timed = 0;
		acc = 1;
		if
		:: e -> got++
		:: else -> skip	/* timed out */
		fi
	od;
	/* I2: every message sent was received */
	assert(taken == NSEND && nexch == NSEND && saved == 0);
	switch_out(SW_EXIT)
}

#if DIRECT
/* Q: a new process; its first step (proc_entry) settles whatever
 * switched to it, then it exits through the loop (an exit never goes
 * direct). */
proctype Q()
{
	byte w, t;
	bool found, ok;

end:	q_oncpu != 0;	/* never run: P did not hand the worker to it */
	w = q_oncpu;
	/* act__worker_settle(w): P, if P switched here directly */
#if MUTANT == 2
	leaving[w] = NONE;	/* P parked itself */
#elif MUTANT != 4
	assert(leaving[w] == LP);
	leaving[w] = NONE;
	park(t, found, ok);
#endif
	d_step {
		assert(leaving[w] == NONE);
		reason[w] = SW_EXIT; leaving[w] = LQ; back[w] = 1;
		q_oncpu = 0
	}
}
#endif

/* act__worker_loop / run_one (lib/sched/worker.c). */
proctype Worker(byte me)
{
	byte t;
	bool found, ok;

end:	do
	:: d_step { queued -> queued = 0 }	/* act__runq_pop */
		/* run_one */
		/* I1: what is popped is RUNNABLE (run_one's debug check)
		 * and no longer queued */
		assert(ps == RUNNABLE && !queued);
		ps = RUNNING;
		/* act__ctx_switch to P: restores its registers */
		d_step {
			/* I2: P's registers were saved, so no CPU runs it
			 * (no double run: a running P has them unsaved) */
			assert(regs_saved && oncpu == 0);
			regs_saved = 0;
			oncpu = me
		}
		/* P (or Q, if P handed the worker to it) runs until one
		 * switches back to this worker */
		d_step { back[me] -> back[me] = 0 }
		settle_loop(me, t, found, ok)
	od
}

init
{
	byte i;

	atomic {
		for (i : 1 .. NWORK) {
			run Worker(i)
		}
		run P();
#if DIRECT
		run Q();
#endif
		for (i : 0 .. NSEND - 1) {
			run Sender(i)
		}
		run Timer()
	}
}
