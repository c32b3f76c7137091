/* SPDX-License-Identifier: MIT */
/*
 * proc.h - process slots, pids and the process state word.
 *
 * The slot table is one MAP_NORESERVE mapping of max_procs slots that stays
 * mapped until the runtime stops, so a slot is type-stable memory: a lookup
 * needs no lock and a stale pointer still points at a slot (I5). Its index
 * space is cut into one region per memory home (lib/affinity/homes.h), each
 * bound to its home's node once at start-up; a slot's home is the region
 * its index falls in. A pid is (generation << idx_bits) | index, where
 * idx_bits is the fewest bits that hold every index of the table (at most
 * 32; 23 for the default table), so a generation has the other 31 to 40
 * bits of the 63 below bit 63, which marks a remote pid (a process of
 * another node, lib/dist/peers.h): no local pid has it. A
 * slot's generation is bumped when its process is reaped, before the slot
 * can be reused, so a stale pid fails the lookup; a send that raced past
 * the lookup leaves an envelope whose `to` names the old pid, and the
 * next occupant drops it. A generation never wraps: a slot whose
 * generation reaches gen_max is retired, never reused (I5 for the life of
 * the runtime: at 116 ns a spawn and exit on one slot, 2^31 generations
 * take 4 minutes, the default table's 2^40 take 4 years, and the table
 * keeps spare slots to stand in for retired ones, below).
 *
 * Limit: at most max_alive processes are alive at once (act_config's
 * max_procs). Free slots wait in the workers' caches (act__slot_cache),
 * where no other worker can take them, so the table holds more slots than
 * max_alive: enough that a worker whose own cache and the shared lists
 * are empty still finds a fresh one whenever fewer than max_alive are
 * alive (act__proc_table_size). The limit itself is counted: each cache
 * counts the slots it handed out (born) and took back (gone). While no
 * more than max_alive fresh slots were ever handed out, no more can be
 * alive and nothing is summed; past that, a spawn sums every cache's
 * counts under the table's lock (act__proc_slot_get).
 *
 * State word: (ticket << 8) | state. The ticket names one wait (one
 * blocking receive, later one I/O); it only grows, also across reuse of a
 * slot, so a late timer can never match a later wait (I4).
 *
 * Writers: RUNNABLE -> RUNNING and RUNNING -> WAITING/EXITING/RUNNABLE only
 * by the owner worker (I3); WAITING -> RUNNABLE only by the winner of a
 * CAS (act__wake), who then enqueues (I1, I2).
 */
#ifndef ACT_PROC_H
#define ACT_PROC_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "actors.h"
#include "arch/ctx.h"
#include "base/internal.h"
#include "base/mpsc.h"

enum act__pstate {
	ACT_PS_FREE = 0,
	ACT_PS_RUNNABLE,
	ACT_PS_RUNNING,
	ACT_PS_WAITING,
	ACT_PS_EXITING,
	ACT_PS_MUTED,  /* waits for a receiver's backlog (backpressure.h) */
	ACT_PS_IOWAIT, /* waits for an I/O completion (io.h): messages do
			* not end this wait, only the completion or a kill */
};

#define ACT_PS_MASK 0xffu
#define act__ps(word) ((unsigned)(ACT_PS_MASK & (word)))
#define act__ps_ticket(word) ((word) >> 8)
#define act__ps_make(ticket, st) (((uint64_t)(ticket) << 8) | (st))

struct act__worker;
struct act__envelope;
struct act__timeout;
struct act__rel;
struct act__exit_fn;
struct act__name;

struct act__proc {
	/* Written by other threads (senders, wakers): first cache line. */
	_Atomic uint64_t state;
	_Atomic uint64_t gen;		   /* generation of the occupant;
					    * > gen_max: retired */
	struct act__mpsc mbox;		   /* MPSC mailbox of act__envelope */
	struct act__worker *_Atomic owner; /* last worker that ran it */
	_Atomic uint64_t timeout_fired; /* highest ticket whose timer fired */
	/* backpressure.h: 0, or it has a backlog and this is the slot
	 * index + 1 of the last sender muted on it (ACT_MUTE_END: none) */
	_Atomic uint32_t mutes;
	_Atomic uint8_t queued; /* I1: in a run queue */
	/* ACT_PF_KILLED: act_kill, exit at the next wait (set under the
	 * lock); ACT_PF_CANARY: the owner's, set at spawn, its stack is
	 * unguarded: check its canary at every switch; ACT_PF_FPENV: set
	 * at spawn, ACT_SPAWN_FPENV; ACT_PF_TIMED: set at spawn, its turns
	 * are timed (the worker's `timed`, the same for every worker for
	 * the runtime's life), so that a switch tests one byte for both
	 * (act__worker_switch). One byte for all,
	 * so that the line holds a 64-bit generation. */
	_Atomic uint8_t flags;
	/* its I/O operation's ACT_IO_* bits (io.h): here, not in the
	 * record on its stack, which a late park_io must not read */
	_Atomic uint8_t io_word;
	/* it has a mailbox limit: senders count in mbox_count (mailbox.h);
	 * set at spawn, before its pid is known, so senders read it here,
	 * on the line they touch anyway */
	_Atomic uint8_t limited;

	/* Owner only (I3). Second line: what every message touches. */
	struct act__proc *rq_next act__aligned; /* links in the local queue */
	struct act__proc *rq_prev;
	struct act__ctx ctx;
	/* The save queue's ends (mailbox.h), skipped by selective receive:
	 * written by the owner only, with relaxed atomic stores, because
	 * the observer's walk reads them from other threads, atomic
	 * (act__mailbox_count). The owner reads its own words through the
	 * plain `_own` alias, the same word: no store but its own can race
	 * with that, and an atomic load cannot fold into a compare, which
	 * costs every receive an instruction (scripts/count-msg.sh). */
	union {
		struct act__envelope *_Atomic save_head;
		struct act__envelope *save_head_own;
	};
	struct act__envelope *held; /* received, not yet freed */
	act_pid pid;
	uint64_t wait_ticket; /* ticket of the current wait */
	uint32_t n_held;      /* entries on the held list */
	uint32_t sweep_at;    /* n_held that triggers a sweep */

	/* Third line: spawn, exit, and what every turn writes. */
	union { /* as save_head */
		struct act__envelope *_Atomic save_tail;
		struct act__envelope *save_tail_own;
	};
	void *stack_lo;
	/* its entry function (its argument is kept by its first frame, not
	 * here: act__ctx_make); set at spawn, read by observers, relaxed */
	void (*_Atomic fn)(void *);
	/* for observers (act_process_info, act_dump), relaxed: here, on a
	 * line every turn writes anyway (the stealing hints below), not on
	 * the fifth: reductions charged at each switch (act__worker_switch),
	 * and what a WAITING process waits for (enum act__wait_kind), set
	 * before each wait's park publishes the state */
	_Atomic uint64_t reductions;
	intptr_t exit_reason; /* under lock until EXITING */
	_Atomic uint8_t wait_kind;
	uint32_t stack_size; /* at most 1 GiB */
	uint32_t index;
	/* One word, two lives. Free: the next slot on the free list
	 * (free_next, act__proc_free_next). Alive: 0, or muted on a backlog
	 * (backpressure.h) and the next sender muted there, or
	 * ACT_MUTE_END. Atomic for both: a worker's mute_park may still
	 * read it as mute_next after the process was released, ran, exited
	 * and its slot went back on a free list. */
	union {
		_Atomic uint32_t free_next;
		_Atomic uint32_t mute_next;
	};
	/* stealing hints (act__proc_sticky): messages sent and received in
	 * its last turn (saturating), and the worker most of them had at
	 * the other end, by a majority vote (act__proc_note_peer) */
	uint8_t turn_msgs;
	uint8_t peer_votes;
	uint16_t peer_worker;

	/* Fourth line: links, monitors, names, exit handlers (links.h,
	 * doc/design/lifecycle.md), and the mailbox limit's count and
	 * limit (mailbox.h), which only a limited process's senders and
	 * receives touch. The lists and flags change under the slot's lock
	 * (both ends' locks for a relation, in slot-index order); on_exit
	 * is the owner's; the limit's words are atomic, under no lock. */
	struct act__rel *links act__aligned; /* links, both directions */
	struct act__rel *monitors;	     /* monitors it holds */
	struct act__rel *watchers;	     /* monitors on it */
	struct act__exit_fn *on_exit;	     /* owner only: newest first */
	struct act__name *name;		     /* registered name, or NULL */
	_Atomic uint64_t mbox_count;	     /* with `limited`: generation <<
					      * 32 | its messages not yet
					      * received (act__mailbox_limit_*) */
	_Atomic uint32_t mbox_limit;	     /* with `limited`: the limit */
	uint32_t n_links;		     /* entries on `links` */
	bool trap_exit;			     /* exit signals become messages */
	/* exiting: running its exit handlers, signals no longer reach
	 * it. watch_open: EXITING, and its watchers not yet drained
	 * (act__links_exit): a monitor taken now still joins them and
	 * fires with the exit's reason, after its name is gone and its
	 * links' EXITs are sent, not at once with ACT_EXIT_NOPROC; set
	 * with EXITING (exit_proc), cleared once the watchers are
	 * drained. Both under the lock, sharing a byte: the line is
	 * full. */
	bool exiting : 1;
	bool watch_open : 1;
	/* guards the flags' KILLED, exit_reason and this line against
	 * act_kill, links and names (act__proc_lock) */
	atomic_flag lock;
	bool is_main; /* owner: act_main's process */
	/* with io_word's ACT_IO_ACCEPTED (io.h): the descriptor its accept
	 * got, which the process has not taken yet; written by the reactor
	 * before the RMW that sets the bit */
	int32_t accepted_fd;

	/* Fifth line: what neither a message nor (untimed) a spawn or an
	 * exit touches: a timed receive's timeout, and what observers read
	 * (act_process_info, act_dump, the trace), relaxed: a snapshot, not
	 * a synchronised view. */
	struct act__timeout *armed act__aligned; /* its timed receive's
						  * timeout, or NULL */
	_Atomic uint64_t run_ticks; /* its turns' time, when turns are
				     * timed (base/clock.h ticks) */
	/* What it waits for beyond wait_kind, written before the wait
	 * switches out and never cleared: it means something only while
	 * the state word says the process waits (WAITING with
	 * ACT_WK_TIMED: wait_deadline; IOWAIT: wait_op and wait_on, the
	 * fd; MUTED: wait_on, the receiver's pid): message.c wait_for,
	 * reactor/io.c io_run, sched/backpressure.c. */
	_Atomic int64_t wait_deadline; /* CLOCK_MONOTONIC ns */
	_Atomic uint64_t wait_on;      /* the fd, or the receiver's pid */
	/* trace: the arrow of the wake that made it runnable, set by the
	 * waker before the enqueue that publishes it; 0: none */
	_Atomic uint32_t trace_flow;
	_Atomic uint8_t wait_op; /* its I/O's IORING_OP_* */
};

/* wait_kind: what a WAITING process waits for. */
enum act__wait_kind {
	ACT_WK_ANY = 0,	     /* act_receive: any message */
	ACT_WK_MATCH,	     /* act_receive_match: a message it matches */
	ACT_WK_SLEEP,	     /* act_sleep: its deadline */
	ACT_WK_TIMED = 0x80, /* or'ed in: it has a deadline, wait_deadline */
};

/* What a send reads and writes of its receiver (act__proc_lookup, the
 * state checks, the mailbox push, the wake, the limit and mute hints) is
 * on the slot's first line: one line from the receiver's core a message
 * (doc/design/scheduling.md). */
_Static_assert(offsetof(struct act__proc, limited) < ACT_CACHELINE &&
		       offsetof(struct act__proc, mutes) < ACT_CACHELINE &&
		       offsetof(struct act__proc, owner) < ACT_CACHELINE &&
		       offsetof(struct act__proc, gen) < ACT_CACHELINE,
	       "a sender's fields on the slot's first line");

#define ACT_PF_KILLED 1u
#define ACT_PF_CANARY 2u
#define ACT_PF_FPENV 4u	  /* its own floating-point control state (arch/fp.h) */
#define ACT_PF_TIMED 8u	  /* its turns are timed (worker.h `timed`) */
#define ACT_PF_HOOKED 16u /* the park race's delays (base/park.h) */

/* The slot's lock: a spinlock held for a few stores (act_kill, act_exit).
 * After a while it yields, as act__spin_lock: a holder preempted on a
 * foreign thread is not spun against for a time slice. */
static inline void act__proc_lock(struct act__proc *p)
{
	unsigned spins = 0;

	/* own spin loop: a byte of the slot's fourth line, which has no
	 * room for act__spin_lock's 32-bit word; it backs off as that one
	 * does */
	/* acquire: pairs with the release clear in act__proc_unlock */
	while (atomic_flag_test_and_set_explicit(&p->lock,
						 memory_order_acquire)) {
		if (++spins < 128) {
			act__spin_relax();
		} else {
			spins = 0;
			sched_yield();
		}
	}
}

static inline void act__proc_unlock(struct act__proc *p)
{
	/* release: pairs with the acquire in act__proc_lock */
	atomic_flag_clear_explicit(&p->lock, memory_order_release);
}

/* p, running or waking, was killed: it must exit with exit_reason. */
static inline bool act__proc_killed(struct act__proc *p)
{
	/* seq_cst: the load half of the Dekker pairs with signal_locked's
	 * (links.c) store of killed (followed by its state load in the
	 * wake), as the mailbox check in park_proc; acquire for
	 * exit_reason */
	return (atomic_load_explicit(&p->flags, memory_order_seq_cst) &
		ACT_PF_KILLED) != 0;
}

/* The free list's link, relaxed: the list's own lock or owner orders it. */
static inline uint32_t act__proc_free_next(const struct act__proc *p)
{
	return atomic_load_explicit(&p->free_next, memory_order_relaxed);
}

static inline void act__proc_set_free_next(struct act__proc *p, uint32_t next)
{
	atomic_store_explicit(&p->free_next, next, memory_order_relaxed);
}

/*
 * A process that sent or received at least ACT_CHATTY_MSGS messages in
 * its last turn, most of them with processes on worker `index`, stays
 * there: stolen, each of its messages would cross cores, and the other
 * end, busy with them, gains nothing from a second core (a fan-in:
 * doc/design/stealing.md). One that computes, or sends a few results, is
 * taken. Owner of p only.
 */
#define ACT_CHATTY_MSGS 16

static inline bool act__proc_sticky(const struct act__proc *p, uint32_t index)
{
	return p->turn_msgs >= ACT_CHATTY_MSGS && p->peer_worker == index;
}

/*
 * p (running) sent or received a message whose other end was on worker
 * `worker`. Boyer-Moore's majority vote keeps in peer_worker the worker
 * that more than half of the turn's messages went to or came from, if
 * one did: a hub fed from two workers stays with the larger side instead
 * of following whichever sender came last. Owner of p only.
 */
static inline void act__proc_note_peer(struct act__proc *p, uint16_t worker)
{
	p->turn_msgs += p->turn_msgs != UINT8_MAX;
	if (p->peer_worker == worker) {
		p->peer_votes += p->peer_votes != UINT8_MAX;
	} else if (p->peer_votes) {
		p->peer_votes--;
	} else {
		p->peer_worker = worker;
		p->peer_votes = 1;
	}
}

/*
 * p starts a new turn for the stealing hints: called where it resumes
 * after a park or a yield (a backpressure yield excepted: act__message_send),
 * on its own stack. Owner of p only.
 */
static inline void act__proc_turn_begin(struct act__proc *p)
{
	p->turn_msgs = 0;
	p->peer_votes = 0;
}

/*
 * One home's region of the table, [base, end), on lines of its own: the
 * slots handed out from it (used, from base on), and its shared list:
 * free slots of this home spilled by workers whose caches overflowed or
 * sent back by workers of other homes, taken by this home's workers
 * whose caches ran dry; guarded by lock (a spinlock held to link or walk
 * one batch).
 */
struct act__ptable_home {
	_Atomic uint32_t used act__aligned;
	uint32_t base, end;
	_Atomic uint32_t lock; /* act__spin_lock */
	uint32_t shared_head, shared_n;
};

struct act__slot_cache;

/* The runtime's table; lives in struct act__rt. */
struct act__ptable {
	struct act__proc *slots;
	uint32_t cap;
	uint32_t idx_bits;  /* a pid's index bits */
	uint64_t idx_mask;  /* (1 << idx_bits) - 1 */
	uint64_t gen_max;   /* the largest generation a pid
			     * holds: 2^(63 - idx_bits) - 1 */
	uint64_t max_alive; /* the limit (proc.h head) */
	/* fresh slots handed out, in all regions: while at most max_alive,
	 * so are the processes alive */
	_Atomic uint64_t fresh;
	_Atomic uint64_t retired;    /* slots whose generations ran out */
	_Atomic uint32_t count_lock; /* one exact count at a time */
	uint32_t ncaches;
	struct act__slot_cache **caches; /* every worker's, for the count */
	/* 1 + the highest index ever handed out, in any region: a lookup's
	 * bound. With one home, the slots ever handed out. A slot below it
	 * that no region handed out yet has generation 0, which no pid
	 * names. */
	_Atomic uint32_t hwm;
	uint32_t nhomes;
	uint32_t per_home; /* region r starts at r * per_home */
	size_t map_len;
	struct act__ptable_home *homes; /* nhomes regions */
};

/* The home (region) of slot index idx. */
static inline uint32_t act__proc_slot_home(const struct act__ptable *t,
					   uint32_t idx)
{
	return t->nhomes == 1 ? 0 : idx / t->per_home;
}

/* Slots ever handed out (act_stats' procs_peak, the leak count). */
static inline uint64_t act__proc_table_used(const struct act__ptable *t)
{
	uint64_t n = 0;
	uint32_t r;

	for (r = 0; r < t->nhomes; r++)
		n += atomic_load_explicit(&t->homes[r].used,
					  memory_order_relaxed);
	return n;
}

/* A chain of free slots: head .. tail, n of them. */
struct act__slot_chain {
	uint32_t head, tail, n;
};

/*
 * A worker's free slots, linked through free_next. A process is reaped
 * where it last ran, not where it was spawned, so a worker that only
 * reaps would hoard slots and one that only spawns would take fresh ones
 * for ever: past ACT_SLOT_CACHE_MAX a cache spills a batch to its home's
 * shared list, and an empty one refills from it before the table grows.
 * A slot of another home (its process was stolen across nodes) is held
 * on away[its home] and goes back to that home's shared list
 * ACT_SLOT_AWAY_BATCH at a time, or when the worker goes idle.
 */
struct act__slot_cache {
	uint32_t head; /* UINT32_MAX: empty */
	uint32_t n;
	uint32_t home;		      /* memory home (homes.h) */
	uint32_t n_away;	      /* slots on the away chains */
	struct act__slot_chain *away; /* per home; NULL with one home */
	/* the limit's counts (proc.h head): written by the owner only,
	 * read by any spawn that sums them */
	_Atomic uint64_t born, gone;
};

#define ACT_SLOT_CACHE_MAX 1024u
#define ACT_SLOT_BATCH 512u
#define ACT_SLOT_AWAY_BATCH 64u

struct act__numa;

/* cap slots in numa's homes (numa NULL: one home, unbound); max_alive
 * is cap until set. */
int act__proc_table_init(struct act__ptable *t, uint32_t cap,
			 struct act__numa *numa);
/* The table size for max_procs alive with nworkers caches over nhomes
 * homes: max_procs, the most the caches can hold out of reach, and the
 * spare for retired slots, rounded up to a power of two (at most
 * UINT32_MAX, the free lists' end). */
uint32_t act__proc_table_size(uint64_t max_procs, uint32_t nworkers,
			      uint32_t nhomes);
void act__proc_table_destroy(struct act__ptable *t);
/* An empty cache of home's workers, counted in t's limit (before any
 * thread uses t); act__proc_cache_destroy frees it. */
int act__proc_cache_init(struct act__slot_cache *c, struct act__ptable *t,
			 uint32_t home);
void act__proc_cache_destroy(struct act__slot_cache *c);
/* Owner of c: a free slot (its mailbox initialised), or NULL: max_alive
 * processes are alive (or, past max_alive, no memory). */
struct act__proc *act__proc_slot_get(struct act__ptable *t,
				     struct act__slot_cache *c);
/* Owner of c: p's occupant is gone (or never ran): its generation goes
 * up and the slot goes on c, or is retired past gen_max. Release: a
 * lookup that sees the new generation sees the slot free. */
void act__proc_slot_free(struct act__ptable *t, struct act__slot_cache *c,
			 struct act__proc *p);
/* Owner of c: the slots held for other homes go back to them. Call
 * before the worker sleeps and before it stops. */
void act__proc_flush_away(struct act__ptable *t, struct act__slot_cache *c);
/* Free slots on c's lists (own and away) and on the shared lists, by
 * walking them; once every worker has stopped (the leak count). */
uint64_t act__proc_cache_free(const struct act__ptable *t,
			      const struct act__slot_cache *c);
uint64_t act__proc_table_shared_free(const struct act__ptable *t);

/* A pid's index and generation, in t's split. */
static inline uint32_t act__proc_pid_index(const struct act__ptable *t,
					   act_pid pid)
{
	return (uint32_t)(pid.id & t->idx_mask);
}

/* The home of pid's slot: where its process's slot and stack live, and
 * where envelopes for it are carved (slab.h). From the pid and the
 * table, not the slot: no line of the slot for it. */
static inline uint32_t act__proc_pid_home(const struct act__ptable *t,
					  act_pid pid)
{
	return act__proc_slot_home(t, act__proc_pid_index(t, pid));
}

static inline uint64_t act__proc_pid_gen(const struct act__ptable *t,
					 act_pid pid)
{
	return pid.id >> t->idx_bits;
}

/* Lock-free; NULL for pid 0, a bad index or a stale generation. */
static inline struct act__proc *act__proc_lookup(struct act__ptable *t,
						 act_pid pid)
{
	uint32_t idx = act__proc_pid_index(t, pid);
	uint64_t gen = act__proc_pid_gen(t, pid);
	struct act__proc *p;

	/* relaxed would do: the gen acquire below pairs with grow's release
	 * (proc.c), which comes after the slot's set-up. An index below hwm
	 * in a region that has not reached it yet fails on generation 0. */
	if (idx >= atomic_load_explicit(&t->hwm, memory_order_acquire))
		return NULL;
	p = &t->slots[idx];
	/* acquire: pairs with the release store of gen in act__proc_slot_free
	 */
	if (gen == 0 ||
	    atomic_load_explicit(&p->gen, memory_order_acquire) != gen)
		return NULL;
	return p;
}

static inline act_pid act__proc_make_pid(const struct act__ptable *t,
					 uint64_t gen, uint32_t idx)
{
	return (act_pid){ (gen << t->idx_bits) | idx };
}

#endif /* ACT_PROC_H */
