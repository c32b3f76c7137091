/* SPDX-License-Identifier: MIT */
/*
 * mpsc.h - intrusive multi-producer single-consumer queue: producers push
 * onto a lock-free stack, the consumer takes the whole stack with one
 * exchange and reverses it into a private FIFO list.
 *
 * Producers: any thread. Consumer: one thread at a time (the owner).
 * Push is lock-free (a CAS on head, retried while other producers win),
 * and touches only the head word and the producer's own node. A queue
 * that takes a link store into the previous node (Vyukov's) costs a
 * second cross-core cache-line transfer per push when the previous node
 * came from another core: measured as 84% of act__send in a fan-in at
 * two workers (doc/design/stealing.md).
 *
 * Order: a take gets everything pushed before its exchange, newest
 * first; reversed, that is push order, and later pushes land in later
 * takes: FIFO overall (I7 for one sender).
 *
 * No ABA: producers only push (the CAS compares head with what they
 * linked their node to, which is correct whatever happened in between),
 * and the consumer takes the whole stack. Reclamation is the caller's: a
 * popped node belongs to the consumer.
 *
 * Memory order: the push CAS is seq_cst: release publishes the node's
 * contents (pairs with the consumer's acquire exchange), and it is the
 * store half of the Dekker pair "push, then read the receiver's state"
 * vs "write state, then act__mpsc_maybe_nonempty()".
 */
#ifndef ACT_MPSC_H
#define ACT_MPSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct act__mpsc_node {
	struct act__mpsc_node *_Atomic next;
};

struct act__mpsc {
	struct act__mpsc_node *_Atomic head; /* producers: newest first */
	/* consumer only, oldest first; atomic (relaxed) because
	 * park_proc's re-check may read it while the process, already
	 * woken, pops on another worker: a hint there, the CAS decides */
	struct act__mpsc_node *_Atomic local;
};

static inline void act__mpsc_init(struct act__mpsc *q)
{
	atomic_store_explicit(&q->head, NULL, memory_order_relaxed);
	atomic_store_explicit(&q->local, NULL, memory_order_relaxed);
}

/* Consumer: the node the next pop returns, if already taken; a hint. */
static inline struct act__mpsc_node *act__mpsc_peek(struct act__mpsc *q)
{
	return atomic_load_explicit(&q->local, memory_order_relaxed);
}

static inline void act__mpsc_push(struct act__mpsc *q,
				  struct act__mpsc_node *n)
{
	struct act__mpsc_node *old =
		atomic_load_explicit(&q->head, memory_order_relaxed);

	do {
		atomic_store_explicit(&n->next, old, memory_order_relaxed);
		/* seq_cst: see the head comment (publish + Dekker) */
	} while (!atomic_compare_exchange_weak_explicit(
		&q->head, &old, n, memory_order_seq_cst,
		memory_order_relaxed));
}

/* Consumer: take everything pushed so far, oldest first. */
static inline struct act__mpsc_node *act__mpsc_take(struct act__mpsc *q)
{
	struct act__mpsc_node *n, *next, *fifo = NULL;

	/* acquire: pairs with the seq_cst (release) push CAS */
	n = atomic_exchange_explicit(&q->head, NULL, memory_order_acquire);
	for (; n; n = next) {
		next = atomic_load_explicit(&n->next, memory_order_relaxed);
		atomic_store_explicit(&n->next, fifo, memory_order_relaxed);
		fifo = n;
	}
	return fifo;
}

/* Remove the oldest node, or NULL when empty (or empty for now). */
static inline struct act__mpsc_node *act__mpsc_pop(struct act__mpsc *q)
{
	struct act__mpsc_node *n = act__mpsc_peek(q);

	if (!n) {
		/* relaxed: a stale NULL is "empty for now"; whoever parks
		 * re-checks with act__mpsc_maybe_nonempty */
		if (!atomic_load_explicit(&q->head, memory_order_relaxed))
			return NULL;
		n = act__mpsc_take(q);
	}
	atomic_store_explicit(&q->local,
			      atomic_load_explicit(&n->next,
						   memory_order_relaxed),
			      memory_order_relaxed);
	return n;
}

/*
 * May the queue hold a node? Errs towards "yes". seq_cst load: the load
 * half of the Dekker pair described in the head comment.
 */
static inline bool act__mpsc_maybe_nonempty(struct act__mpsc *q)
{
	return act__mpsc_peek(q) ||
	       atomic_load_explicit(&q->head, memory_order_seq_cst);
}

#endif /* ACT_MPSC_H */
