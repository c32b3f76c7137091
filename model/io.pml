/*
 * io.pml - a spin model of libactors' I/O wait (lib/reactor/io.h, lib/reactor/io.c): how a
 * process hands an operation to the reactor and waits, IOWAIT, for its
 * completion; how a kill makes it ask for a cancel and wait on; and when
 * the record on its stack is free (I6). The steps are in the order of the
 * code (model/README.md maps each step to its function).
 *
 * Processes in the model:
 *   P        the process: NOPS calls of io_run, one after the other, then
 *            act_exit. Each call, unless P is killed already (io_run's
 *            first act__spawn_die_if_killed), fills a record (a new ticket t),
 *            pushes its submit node on the reactor's command queue and
 *            switches to its worker (ACT_SW_IOWAIT). Each time it is
 *            resumed it loads the word: over (act__ioword_over) ends the loop;
 *            killed with no CANCEL_REQ yet, it CASes CANCEL_REQ in and
 *            pushes the record's cancel node; else it waits again. After
 *            the loop the record is dead (the ghost `live` drops it; the
 *            next call's record takes the same stack), and a killed P
 *            exits (act__spawn_die_if_killed).
 *   Worker   x NWORK: pops P, runs it, and on its own stack runs park_io:
 *            stores IOWAIT(t) (seq_cst), loads the word (seq_cst) and, if
 *            it has no CANCEL_REQ, killed (seq_cst); if P wants to run
 *            (act__ioword_wants_run), CASes IOWAIT(t) -> RUNNABLE and requeues
 *            it. On P's exit it reaps (the slot goes FREE).
 *   Reactor  takes a submit command (act__io_take: PENDING), puts the
 *            operation in the ring (act__io_fill: INFLIGHT), reaps its CQE
 *            (act__io_cqe -> io_complete -> io_settle(COMPLETE)), takes a
 *            cancel command (act__io_take_cancel: PENDING, INFLIGHT or
 *            DONE) and puts a queued cancel in the ring. io_settle reads
 *            io->p and io->ticket, then fetch_or's its bit into the word
 *            (seq_cst); if that RMW made the operation over, it wakes P
 *            with the ticketed CAS IOWAIT(t) -> RUNNABLE.
 *   Killer   act_kill: under P's slot lock, if P is alive and not killed,
 *            stores killed (seq_cst); then act__wake (WAITING: P never
 *            waits in a receive here, so that load finds nothing and is
 *            left out) and act__wake_state(IOWAIT, ticket 0).
 *
 * The kernel: an operation in flight either completes by itself at any
 * time, or (chosen per operation, `blocks`: a recv on a quiet socket)
 * only once a cancel has reached the ring. The reactor's steps may come in
 * any order its guards allow: its turn reaps, takes commands, then fills,
 * but a full SQ keeps an operation or a cancel pending across turns, and
 * a CQE comes when the kernel posts it, so any order is one the code can
 * take; the reactor is one thread, so its steps never overlap.
 *
 * Memory model: sequential consistency. The Dekker pairs are seq_cst on
 * both sides: park_io's store of IOWAIT, then its loads of the word and of
 * killed, against io_settle's seq_cst fetch_or of the word and act_kill's
 * seq_cst store of killed, each followed by act__wake_claim's seq_cst
 * state load. The record's other fields are message passing: P's stores
 * before its push (the MPSC's seq_cst exchange; the reactor's acquire
 * pop), the reactor's store of res before its fetch_or (release; P's
 * acquire load of the word). Each shared access is one step; d_step
 * groups only what the code does as one atomic instruction (an exchange,
 * a CAS, a fetch_or), what only one thread touches at that point (the
 * reactor's own fields of the record, a worker's store of RUNNING with
 * its pop), or what a lock makes atomic (act_kill's look at the state and
 * its store of killed, against exit_proc's store of EXITING; the stores
 * of the state by others in between never change whether P is alive).
 * The command queue (Vyukov's MPSC) is one variable per node, the number
 * of the operation whose node is queued: one producer's pushes come out
 * in order, a push half done (exchanged, not yet linked) only delays the
 * pop, which interleaving covers, and once a node is popped no producer
 * writes into it again.
 *
 * The word. As lib/ first had it (mutant 5), the word was in the record,
 * on P's stack, and park_io loaded it after its IOWAIT store: by then the
 * reactor may have ended the operation and woken P, and P, run by another
 * worker, may have left io_run, so park_io read a dead stack frame (I6).
 * The model (MUTANT=0) verifies what lib/ now does: the word is the
 * process's (p->io_word, one operation at a time), so park_io reads
 * nothing of the record, and a late park_io that reads the next call's
 * word can only fail its ticketed CAS.
 *
 * Checked (spin -a, pan in safety mode, exhaustive):
 *   I6     an operation's record dies only when neither of its command
 *          nodes is queued, the reactor holds it on no list (pending, in
 *          flight, cancels to put) and the kernel is done with it; every
 *          reactor access to a record (a pop, its own fields, io->p,
 *          io->ticket, res, its RMWs of the word) asserts that the record
 *          is alive (rop == live), and so does park_io's load of the word
 *          where the word is in the record (mutant 5: wop == live).
 *   result io_complete runs once per operation (where != DONE), and P
 *          finds res set when it leaves the loop: one result, delivered.
 *   I1     enqueue asserts P is not queued already and is RUNNABLE; a
 *          worker asserts what it pops is RUNNABLE and that no worker
 *          runs P (its registers are saved).
 *   lost   P left IOWAIT for ever (its operation over, or killed with
 *          nobody to take it back to ask for the cancel, or the cancel
 *          never taken) while the workers, the reactor and the killer have
 *          nothing left to do: an invalid end state. The check is sound:
 *          apart from P, every process ends or waits at an `end` label
 *          with all of its moves disabled.
 *
 * Mutants (spin -DMUTANT=n), each of which pan must reject:
 *   1  act__io_take_cancel's INFLIGHT case does not set CANCEL_TAKEN (the
 *      first version of the code): the CQE sets COMPLETE, the word is not
 *      over, nobody wakes P (lost).
 *   2  io_settle reads io->p and io->ticket after its fetch_or: the RMW
 *      that ends the operation lets P, taken back by park_io's re-check,
 *      leave io_run first (I6: rop == live).
 *   3  park_io without the re-check: a completion, or a kill, whose wake
 *      came before the IOWAIT store is lost (lost).
 *   4  P leaves the loop on COMPLETE alone, not act__ioword_over: a spurious
 *      wake after COMPLETE but before the reactor is done with the cancel
 *      frees the record while the reactor still settles it, or with its
 *      cancel node still queued (I6).
 *   5  lib/ as of this writing: the word in the record; park_io's load of
 *      it, after the IOWAIT store, can come after P left io_run (I6: wop
 *      == live).
 */

#ifndef MUTANT
#define MUTANT 0
#endif
#ifndef NWORK
#define NWORK 2		/* workers; ids 1..NWORK, 0 is "none" */
#endif
#ifndef NOPS
#define NOPS 2		/* io_run calls; operations 1..NOPS, 0 is "none" */
#endif

/* states of the state word (lib/proc/proc.h ACT_PS_*) */
#define FREE     0
#define RUNNABLE 1
#define RUNNING  2
#define EXITING  4
#define IOWAIT   6

/* the word (lib/reactor/io.h ACT_IO_*) */
#define COMPLETE     1
#define CANCEL_REQ   2
#define CANCEL_TAKEN 4
/* act__ioword_over: COMPLETE, and CANCEL_TAKEN if CANCEL_REQ */
#define over(w) (((w) & COMPLETE) != 0 && \
		 (((w) & CANCEL_REQ) == 0 || ((w) & CANCEL_TAKEN) != 0))

/* where the reactor keeps the record (act__io.where) */
#define UNTAKEN  0	/* not taken yet */
#define PENDING  1	/* on the pending FIFO, not in the ring */
#define INFLIGHT 2	/* in the ring, on the in-flight list */
#define DONE     3	/* completed */

/* res: 0 none yet, else the one result */
#define RES_OP       1	/* the operation's CQE (its own result, or
			 * -ECANCELED from the kernel's cancel) */
#define RES_CANCELED 2	/* dropped before the ring: -ECANCELED */

/* why P switched to its worker (w->switch_reason), 0: it runs */
#define SW_IOWAIT 1	/* io_run: the worker runs park_io */
#define SW_EXIT   2	/* exit_proc: the worker reaps */

/* p->state: (ticket << 8) | state; both halves change together */
byte ps = RUNNABLE;
byte tk = 0;
bool killed = 0;	/* p->killed */
byte wait_ticket = 0;	/* p->wait_ticket */
byte word = 0;		/* the word: io->word in lib/, p->io_word here */

/* The record (struct act__io) of the current call, on P's stack; the next
 * call's record takes the same place. Who holds which record: by the
 * number of its operation, 0 none. */
byte live = 0;		/* ghost: the operation whose record is alive */
byte res = 0;		/* io->res */
byte io_tk = 0;		/* io->ticket (io->p: there is one process) */
byte where = UNTAKEN;	/* io->where (reactor only) */
byte ncompl = 0;	/* ghost: io_complete calls for this record */
byte subq = 0;		/* io->submit is on the command queue */
byte canq = 0;		/* io->cancel is on the command queue */
byte pend = 0;		/* on the reactor's pending FIFO */
byte cfifo = 0;		/* io->cancel_queued: on the reactor's cancel FIFO */

/* the kernel */
byte kop = 0;		/* the operation in the ring, its CQE not reaped */
byte kcancel = 0;	/* an IORING_OP_ASYNC_CANCEL for it reached the ring */
bool blocks = 0;	/* it completes only once cancelled */

/* scheduling */
bool queued = 1;	/* p->queued (I1): spawned P starts in a run queue */
bool regs_saved = 1;	/* P's registers are in p->ctx, not on a CPU */
byte oncpu = 0;		/* the worker running P on P's stack, 0: none */
byte reason[NWORK + 1];	/* per worker: P switched back to it, why */

/* act__wake_enqueue / act__reactor_wake_proc -> act__runq_push_* ->
 * act__runq_mark_queued. I1: never in a queue twice, only RUNNABLE. */
inline enqueue()
{
	d_step {
		assert(!queued);	/* I1: duplicate enqueue */
		assert(ps == RUNNABLE);	/* I1: queued while not runnable */
		queued = 1
	}
}

/* act__wake_state(me, p, wt, ACT_PS_IOWAIT) / act__reactor_wake_proc
 * (lib/sched/wake.h act__wake_claim): IOWAIT -> RUNNABLE; ticket 0 takes any
 * wait, another only that one; only the CAS winner enqueues. */
inline wake(wt, ws, wst, ww)
{
	/* seq_cst load: the load half of the Dekker pairs with park_io */
	d_step { ws = ps; wst = tk; ww = 0 }
	do
	:: ws != IOWAIT || (wt != 0 && wst != wt) -> break
	:: else ->
		/* CAS -> RUNNABLE, same ticket; a failure reloads */
		d_step {
			if
			:: ps == ws && tk == wst -> ps = RUNNABLE; ww = 1
			:: else -> ws = ps; wst = tk
			fi
		}
		if
		:: ww -> break
		:: else -> skip
		fi
	od;
	if
	:: ww -> enqueue()
	:: else -> skip
	fi;
	ws = 0; wst = 0; ww = 0
}

/* io_settle(r, io, bits) for the record of operation rop: the result or
 * the cancel is in; if the RMW ends the operation, wake P. Nothing of the
 * record after that RMW. */
inline settle(bits, rop, st, old, ws, wst, ww)
{
#if MUTANT != 2
	/* read io->p and io->ticket */
	d_step { assert(rop == live); st = io_tk }
#endif
	/* seq_cst fetch_or: the store half of the Dekker pair with park_io
	 * (an RMW of the record in lib/, of p->io_word here; either way it
	 * comes while the operation is not over, so the record is alive) */
	d_step { assert(rop == live); old = word; word = word | bits }
#if MUTANT == 2
	/* mutant 2: io->p and io->ticket read after the RMW */
	d_step { assert(rop == live); st = io_tk }
#endif
	if
	:: over(old) || !over(old | bits) -> skip
	:: else ->
		/* !r->stopping: act__reactor_wake_proc(r, p, ticket,
		 * ACT_PS_IOWAIT) */
		wake(st, ws, wst, ww)
	fi;
	st = 0; old = 0
}

/* io_complete(r, io, res) up to its io_settle(COMPLETE): off the cancel
 * FIFO, off the in-flight list (or, from act__io_take_cancel, the pending
 * FIFO), where = DONE, res (before the RMW that publishes it). The
 * reactor's own fields: one step. */
inline complete(rop, r)
{
	d_step {
		assert(rop == live);
		assert(where != DONE);	/* one result */
		cfifo = 0; pend = 0;
		where = DONE;
		res = r;
		ncompl++
	}
}

/* act__worker_switch_out_w -> act__ctx_switch to the worker's sched_ctx: saves
 * P's registers; the worker goes on in run_one */
inline switch_out(r)
{
	d_step {
		reason[oncpu] = r;
		oncpu = 0; regs_saved = 1
	}
}

/* The process: NOPS calls of io_run (lib/reactor/io.c), then its exit. Its steps
 * run while a worker has resumed it (oncpu != 0). */
proctype P()
{
	byte op, wd;
	bool ok;

	oncpu != 0;		/* first run */
	do
	:: op == NOPS -> break
	:: else ->
		op++;
		/* act__spawn_die_if_killed */
		if
		:: killed -> break
		:: else -> skip
		fi;
		/* fill the record (its own, relaxed): the operation (one that
		 * completes by itself or only once cancelled), ticket t =
		 * ticket + 1 in p->wait_ticket and io->ticket, res = 0,
		 * word = 0 */
		if
		:: blocks = 0
		:: blocks = 1
		fi;
		d_step {
			live = op;
			wait_ticket = tk + 1; io_tk = tk + 1;
			res = 0; word = 0;
			where = UNTAKEN; ncompl = 0; kcancel = 0
		}
		/* act__reactor_push(r, &io->submit): the seq_cst exchange */
		subq = op;
		do
		:: switch_out(SW_IOWAIT);	/* w->wait_io = io */
			oncpu != 0;		/* resumed, maybe elsewhere */
			/* acquire load of the word */
			wd = word;
#if MUTANT != 4
			if
			:: over(wd) -> break
			:: else -> skip
			fi;
#else
			/* mutant 4: the result alone ends the wait */
			if
			:: (wd & COMPLETE) != 0 -> break
			:: else -> skip
			fi;
#endif
			if
			:: (wd & CANCEL_REQ) != 0 || !killed ->
				skip		/* spurious: wait on */
			:: else ->
				/* killed: CAS word -> word | CANCEL_REQ
				 * (acq_rel), unless the reactor changed it */
				d_step {
					if
					:: word == wd ->
						word = wd | CANCEL_REQ; ok = 1
					:: else -> ok = 0
					fi
				}
				if
				:: ok ->
					/* act__reactor_push(r, &io->cancel);
					 * its ring (act__reactor_wake) is
					 * not modelled */
					canq = op
				:: else -> skip	/* it completed */
				fi;
				ok = 0
			fi;
			wd = 0
		od;
		/* I6: the record dies here (io_run returns, or P dies and its
		 * stack goes): nothing may hold it any more; one result was
		 * delivered. (atomic, not d_step: the loop's break jumps
		 * here) */
		atomic {
			assert(res != 0 && ncompl == 1);
			assert(subq == 0 && canq == 0 && pend == 0 &&
			       cfifo == 0 && kop == 0 && where == DONE);
			live = 0;
			wd = 0
		}
		/* act__spawn_die_if_killed; or io_run returns the result */
		if
		:: killed -> break
		:: else -> skip
		fi
	od;
	/* exit_proc: EXITING under the slot lock, then switch out */
	ps = EXITING;
	switch_out(SW_EXIT)
}

/* act__worker_loop / run_one, park_io, reap (lib/sched/worker.c). */
proctype Worker(byte me)
{
	byte t, wd, wop;
	bool ok, won;

end:	do
	:: d_step {
		/* act__runq_pop (clears queued); run_one: RUNNABLE ->
		 * RUNNING, then act__ctx_switch to P. I1: what is popped is
		 * RUNNABLE; no worker runs it */
		queued -> queued = 0;
		assert(ps == RUNNABLE);
		ps = RUNNING;
		assert(regs_saved && oncpu == 0);
		regs_saved = 0;
		oncpu = me
	   };
		/* P runs until it switches back to this worker */
		if
		:: d_step {
			reason[me] == SW_IOWAIT -> reason[me] = 0;
			/* park_io: io = w->wait_io (its operation: wop),
			 * t = p->wait_ticket; seq_cst store of IOWAIT(t),
			 * the store half of the Dekker pairs */
			wop = live;
			t = wait_ticket;
			ps = IOWAIT; tk = t
		   };
#if MUTANT != 3
			/* act__ioword_wants_run: seq_cst load of the word */
			d_step {
#if MUTANT == 5
				/* lib/: io->word, in the record */
				assert(wop == live);
#endif
				wd = word
			}
			if
			:: over(wd) -> ok = 1
			:: (wd & CANCEL_REQ) != 0 && !over(wd) -> ok = 0
			:: (wd & CANCEL_REQ) == 0 && !over(wd) ->
				ok = killed	/* act__proc_killed: seq_cst */
			fi;
			if
			:: ok ->
				/* CAS IOWAIT(t) -> RUNNABLE unless a waker
				 * won, then act__runq_push_lifo */
				d_step {
					if
					:: ps == IOWAIT && tk == t ->
						ps = RUNNABLE; won = 1
					:: else -> won = 0
					fi
				}
				if
				:: won -> enqueue()
				:: else -> skip
				fi
			:: else -> skip		/* P sleeps */
			fi
#else
			skip	/* mutant 3: no re-check */
#endif
		:: d_step {
			reason[me] == SW_EXIT -> reason[me] = 0;
			/* reap -> slot_free: FREE */
			ps = FREE
		   }
		fi;
		t = 0; wd = 0; wop = 0; ok = 0; won = 0
	od
}

/* The reactor thread: take_commands, act__io_fill, act__ring_reap (lib/
 * reactor.c turn), their I/O side in lib/reactor/io.c. rop: the operation whose
 * record the step has in hand. A step that ends in io_settle calls leaves
 * their bits in b1 (then b2), and in cp whether cancel_push follows; the
 * calls are then made in that order from one place in the model, so that
 * each statement of io_settle is reached by some path. */
proctype Reactor()
{
	byte rop, sw, b1, b2, st, old, ws, wst;
	bool cp, ww;

end:	do
	:: if
		:: d_step {
			/* act__mpsc_pop of io->submit; act__io_take:
			 * PENDING, on the pending FIFO */
			subq != 0 -> rop = subq; subq = 0;
			assert(rop == live);
			where = PENDING; pend = rop
		   }
		:: d_step {
			/* act__mpsc_pop of io->cancel (after io->submit:
			 * one producer's pushes come out in order);
			 * act__io_take_cancel: switch (io->where) */
			canq != 0 && subq == 0 -> rop = canq; canq = 0;
			assert(rop == live);
			sw = where
		   };
			if
			:: sw == DONE ->
				/* completed meanwhile: the command ends
				 * it */
				b1 = CANCEL_TAKEN
			:: sw == PENDING ->
				/* not in the ring: off the pending FIFO,
				 * io_complete(-ECANCELED), then the
				 * command's bit */
				complete(rop, RES_CANCELED);
				b1 = COMPLETE; b2 = CANCEL_TAKEN
			:: sw == INFLIGHT ->
				/* in the ring: the command's bit, then ask
				 * the kernel (cancel_push); the CQE ends
				 * it */
#if MUTANT != 1
				b1 = CANCEL_TAKEN;
#endif
				cp = 1
			fi;
			sw = 0
		:: d_step {
			/* act__io_fill: a queued cancel into the SQ
			 * (put_cancel: its key is the record's address) */
			cfifo != 0 -> rop = cfifo; cfifo = 0;
			assert(rop == live);
			kcancel = rop
		   }
		:: d_step {
			/* act__io_fill: the pending operation into the SQ
			 * (prep); INFLIGHT, on the in-flight list */
			pend != 0 -> rop = pend; pend = 0;
			assert(rop == live);
			where = INFLIGHT;
			kop = rop
		   }
		:: d_step {
			/* the operation's CQE, reaped: on_cqe ->
			 * act__io_cqe -> io_complete */
			kop != 0 && (!blocks || kcancel == kop) ->
			rop = kop; kop = 0
		   };
			complete(rop, RES_OP);
			b1 = COMPLETE
		fi;
		/* the io_settle calls of that step, in order */
		do
		:: b1 == 0 -> break
		:: else ->
			settle(b1, rop, st, old, ws, wst, ww);
			b1 = b2; b2 = 0
		od;
		if
		:: cp ->
			/* cancel_push: on the cancel FIFO */
			d_step { assert(rop == live); cfifo = rop; cp = 0 }
		:: else -> skip
		fi;
		rop = 0
	od
}

/* act_kill (lib/actor/spawn.c), from another process or thread. */
proctype Killer()
{
	byte ws, wst;
	bool ww, set;

	/* act__proc_lock; alive (not FREE, not EXITING) and not killed
	 * yet: seq_cst store of killed, the store half of the Dekker pair
	 * with park_io's load of killed; act__proc_unlock */
	d_step {
		if
		:: ps != FREE && ps != EXITING && !killed ->
			killed = 1; set = 1
		:: else -> set = 0
		fi
	}
	if
	:: set ->
		/* act__wake(w, p, 0): P is never WAITING here (a load that
		 * finds it so changes nothing); then act__wake_state(w, p,
		 * 0, ACT_PS_IOWAIT) */
		wake(0, ws, wst, ww)
	:: else -> skip		/* exited: -ESRCH */
	fi
}

init
{
	byte i;

	atomic {
		for (i : 1 .. NWORK) {
			run Worker(i)
		}
		run P();
		run Reactor();
		run Killer()
	}
}
