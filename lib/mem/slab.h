/* SPDX-License-Identifier: MIT */
/*
 * slab.h - message envelopes and the per-worker slab they come from.
 *
 * An envelope is an 80-byte header followed by the copied payload. Small
 * envelopes come from the allocating worker's slab (size classes of 128 B
 * to 16 KiB, carved from 256 KiB chunks that stay mapped until the runtime
 * stops: type-stable memory). The owner allocates and frees without
 * atomics; any other thread frees onto a per-class lock-free list that the
 * owner takes whole with one exchange when its own list runs dry. A
 * worker's chunks come from its memory home's NUMA node (homes.h), and an
 * envelope freed anywhere goes back to the slab it came from: it names
 * that slab for life, and no other slab takes it, so a slab carves only
 * when all it carved before is in use or held back by other workers
 * (the bound mailbox_flood checks; slab.c, act__slab_alloc_slow).
 *
 * Carved where the receiver reads it: with more than one home, a worker
 * has a guest slab for each other home, bound to that home's node, owned
 * by the worker like its own; a send takes the envelope from the slab of
 * the receiver's home (its slot's region, where its stack lives too:
 * act__proc_pid_home), so the payload the receiver reads, and the header its
 * pop reads and the kept envelope's link, are on its own node. An
 * envelope names its slab by (worker, home); it goes back there.
 * Envelopes too big for a class, or sent from a thread that is not a
 * worker, come from malloc.
 */
#ifndef ACT_SLAB_H
#define ACT_SLAB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "actors.h"
#include "base/fatal.h"
#include "base/internal.h"
#include "base/mpsc.h"

struct act__numa;

#define ACT_ENV_HDR \
	80		      /* the header, a multiple of 16: the payload's
			* alignment */
#define ACT_SLAB_CLASSES 8    /* 128 << 0 .. 128 << 7 = 16 KiB */
#define ACT_SLAB_FOREIGN 0xff /* class of malloc'd envelopes */
/* An envelope's largest payload: a message's, and a distribution
 * forward's header on top of it (actor/message.h) */
#define ACT_SLAB_HDR_ROOM 64
#define ACT_SLAB_PAYLOAD_MAX (ACT_MSG_MAX + ACT_SLAB_HDR_ROOM)

struct act__envelope {
	struct act__mpsc_node node; /* mailbox, save-queue, held or free link */
	/* the process it was sent to (I5): written atomic (to_id,
	 * relaxed) before the envelope is published, read by its receiver
	 * plain, and by an observer's walk of a mailbox from another
	 * thread atomic (relaxed: act__mailbox_count), the same word. The
	 * receive's test of it folds into a compare only as a plain read
	 * (an atomic load costs it an instruction, scripts/count-msg.sh),
	 * and no store can race with that read: a free and a reuse come
	 * after the receiver is done. A walk can still be at a freed
	 * envelope when a send reuses it (tests/test_info.c
	 * walk_survives_reuse): hence the atomic store. */
	union {
		act_pid to;
		_Atomic uint64_t to_id;
	};
	uint8_t cls;	       /* size class or ACT_SLAB_FOREIGN */
	_Atomic uint8_t state; /* enum act__env_state */
	uint8_t counted;       /* in its receiver's limit (mailbox.h) */
	uint8_t pad1;
	/* the slab that owns it: its worker's own (home: the worker's) or
	 * one of its guests; as one word, the fast free's one compare */
	union {
		struct {
			uint16_t worker; /* index of that slab's worker */
			uint8_t home;	 /* home of that slab's chunks */
			uint8_t zero;	 /* always 0 */
		};
		uint32_t sid;
	};
	struct act__envelope *held_prev; /* held list (mailbox.h) */
	struct act_msg msg;		 /* public part */
	uint64_t pad2;			 /* to ACT_ENV_HDR */
};

_Static_assert(sizeof(struct act__envelope) == ACT_ENV_HDR, "envelope header");

/*
 * Where an envelope is, so that act_msg_free can refuse a message it does
 * not hold: SENT (in a mailbox or save queue; set by the send), HELD
 * (received, on its receiver's held list), RELEASED (freed by another
 * thread than the receiver, which frees it at its next sweep), FREE (on
 * a free list). A second act_msg_free of a message finds RELEASED or FREE
 * (or SENT, once the envelope carries a new message) and aborts; one
 * that comes after the envelope was received again cannot be told apart.
 */
enum act__env_state {
	ACT_ENV_SENT = 0,
	ACT_ENV_HELD,
	ACT_ENV_RELEASED,
	ACT_ENV_FREE,
};
_Static_assert(offsetof(struct act__envelope, node) == 0, "node first");

struct act__slab_chunk {
	struct act__slab_chunk *next;
	size_t len;
};

/*
 * Envelopes this worker freed for another slab, held back so that one CAS
 * hands a batch to their owner instead of one per envelope (a cross-core
 * cache-line transfer each). Direct-mapped by (owner, class).
 */
#define ACT_RFREE_SLOTS 16
#define ACT_RFREE_BATCH 32

struct act__rfree {
	struct act__envelope *head, *tail;
	uint32_t sid; /* their slab (act__envelope's sid) */
	uint8_t cls;
	uint8_t n; /* 0: the slot is unused */
};

struct act__slab {
	/* owner-only */
	struct act__envelope *free[ACT_SLAB_CLASSES];
	char *bump; /* carving point in the current chunk */
	char *bump_end;
	struct act__slab_chunk *chunks;
	_Atomic uint64_t mapped; /* bytes of chunks; act_stats reads it */
	uint64_t n_alloc;	 /* envelopes handed out */
	uint64_t n_free;	 /* freed by the owner */
	uint32_t sid;		 /* worker | home << 16 (act__envelope) */
	uint16_t worker;
	struct act__rfree rfree[ACT_RFREE_SLOTS];
	struct act__numa *numa; /* binds new chunks; NULL: unbound */
	/* a worker's own slab with more than one home: one slab per home,
	 * the own home's entry unused (act__slab_for); NULL otherwise and
	 * in a guest */
	struct act__slab *guests;
	uint32_t nguests;
	/* other threads: remote frees, own cache line */
	struct act__envelope *_Atomic remote[ACT_SLAB_CLASSES] act__aligned;
	_Atomic uint64_t n_remote_free;
	/* memory home of the chunks (homes.h): set before any thread runs */
	int home;
};

#define ACT_SLAB_MAX_PAYLOAD \
	(((size_t)128 << (ACT_SLAB_CLASSES - 1)) - ACT_ENV_HDR)

void act__slab_init(struct act__slab *s, uint16_t worker);
/* The running runtime's slabs: worker i's at first + i * stride bytes (a
 * member of each struct act__worker), and the foreign slab (index n).
 * Before the runtime's threads start; (NULL, 0, 0, NULL) after they
 * ended. Remote frees find an envelope's slab through it. */
void act__slab_index_set(struct act__slab *first, size_t stride, uint32_t n,
			 struct act__slab *foreign);
/* Carve new chunks from home's node (homes.h), and with more than one
 * home make the guest slabs of the others; before any thread runs. A
 * slab never set stays unbound in home 0 (the foreign slab). 0 or
 * -ENOMEM. */
int act__slab_set_home(struct act__slab *s, struct act__numa *numa, int home);
/* Unmaps every chunk, its guests' too; call once no envelope of this
 * slab is in use. */
void act__slab_destroy(struct act__slab *s);

/* Owner: the slab that carves envelopes for a receiver of home h. */
static inline struct act__slab *act__slab_for(struct act__slab *s, uint32_t h)
{
	return !s->guests || h == (uint32_t)s->home ? s : &s->guests[h];
}
/* Size class of a payload of at most ACT_SLAB_MAX_PAYLOAD bytes. */
static inline int act__slab_class(size_t payload)
{
	size_t total = ACT_ENV_HDR + payload;

	return total <= 128 ? 0 : 64 - __builtin_clzll(total - 1) - 7;
}

/* Owner: hand out e, the head of class c's free list (or one carved or
 * taken back from the remote list: they are s's and of class c). */
static inline struct act__envelope *act__slab_take(struct act__slab *s, int c,
						   struct act__envelope *e)
{
	if (ACT_DEBUG_ON && (e->sid != s->sid || e->cls != c))
		act__fatal("envelope of slab %#x class %u on slab %#x class %d",
			   e->sid, e->cls, s->sid, c);
	s->free[c] = (struct act__envelope *)atomic_load_explicit(
		&e->node.next, memory_order_relaxed);
	s->n_alloc++;
	return e;
}

struct act__envelope *act__slab_alloc_slow(struct act__slab *s, size_t payload);
void act__slab_free_slow(struct act__slab *self, struct act__envelope *e);

/*
 * ASan (ACT_ASAN): a slab envelope's payload room (its class's bytes
 * after the header) is poisoned while it is free, and past the payload
 * while it is in use, so that a use of a message after act_msg_free or
 * a write past its length is reported as malloc's would be. The header
 * stays readable: the free lists, the remote list and the double-free
 * check (state) are read there by design. Malloc'd envelopes are
 * malloc's, which ASan checks itself. Without ASan, e as it is.
 */
#ifdef ACT_ASAN
static inline struct act__envelope *act__slab_asan_out(struct act__envelope *e,
						       size_t payload)
{
	size_t room;

	if (e && e->cls != ACT_SLAB_FOREIGN) {
		room = ((size_t)128 << e->cls) - ACT_ENV_HDR;
		act__asan_unpoison((char *)e + ACT_ENV_HDR, payload);
		act__asan_poison((char *)e + ACT_ENV_HDR + payload,
				 room - payload);
	}
	return e;
}

static inline void act__slab_asan_in(struct act__envelope *e)
{
	if (e->cls != ACT_SLAB_FOREIGN)
		act__asan_poison((char *)e + ACT_ENV_HDR,
				 ((size_t)128 << e->cls) - ACT_ENV_HDR);
}
#else
#define act__slab_asan_out(e, payload) (e)
#define act__slab_asan_in(e) ((void)(e))
#endif

/* Owner only (s NULL: malloc). NULL on ENOMEM or a payload too big. */
static inline struct act__envelope *act__slab_alloc(struct act__slab *s,
						    size_t payload)
{
	int c;

	if (act__likely(s && payload <= ACT_SLAB_MAX_PAYLOAD)) {
		c = act__slab_class(payload);
		if (act__likely(s->free[c] != NULL))
			return act__slab_asan_out(
				act__slab_take(s, c, s->free[c]), payload);
	}
	return act__slab_asan_out(act__slab_alloc_slow(s, payload), payload);
}

/* Any thread; `self` is the caller's slab, or NULL off a worker. */
static inline void act__slab_free(struct act__slab *self,
				  struct act__envelope *e)
{
	atomic_store_explicit(&e->state, ACT_ENV_FREE, memory_order_relaxed);
	act__slab_asan_in(e);
	if (act__likely(self && e->cls != ACT_SLAB_FOREIGN &&
			self->sid == e->sid)) {
		atomic_store_explicit(
			&e->node.next,
			(struct act__mpsc_node *)self->free[e->cls],
			memory_order_relaxed);
		self->free[e->cls] = e;
		self->n_free++;
		return;
	}
	act__slab_free_slow(self, e);
}
/* Owner of self: hand every held-back remote free to its owner. Call
 * before the worker sleeps and before it stops. */
void act__slab_flush_remote(struct act__slab *self);
/* Envelopes still out (alloc - frees), its guests' included; exact once
 * all threads stopped and flushed their remote frees. */
int64_t act__slab_outstanding(struct act__slab *s);
/* Any thread: bytes of chunks s and its guests mapped (act_stats). */
uint64_t act__slab_mapped(const struct act__slab *s);
/* malloc'd envelopes still out, runtime-wide. */
int64_t act__slab_foreign_outstanding(void);

/*
 * Any thread: between begin and end, no envelope's memory goes back to
 * malloc (a malloc'd one freed meanwhile waits until end), so a walk of
 * a mailbox that its owner changes meanwhile (act__mailbox_count) never
 * reads memory that is unmapped or something else. One walk at a time:
 * begin waits for a running one to end. Walks are the observers'
 * (act_process_info), never a message's.
 */
void act__slab_walk_begin(void);
void act__slab_walk_end(void);
/* After every thread of the runtime ended: free what a freer put back
 * after the last walk had ended. */
void act__slab_walk_reclaim(void);

#endif /* ACT_SLAB_H */
