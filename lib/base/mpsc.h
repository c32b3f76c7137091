/* SPDX-License-Identifier: MIT */
/*
 * mpsc.h - intrusive multi-producer single-consumer queue (Vyukov's
 * node-based queue with a stub node).
 *
 * Producers: any thread. Consumer: one thread at a time (the owner).
 * Push is wait-free (one exchange plus one store). Pop is lock-free for the
 * consumer but may report "empty" while a producer sits between its
 * exchange and its link store (the queue is then momentarily
 * inconsistent); callers treat that as empty-for-now, and anything that
 * parks re-checks with act__mpsc_maybe_nonempty(), which reads the word
 * the producer's exchange wrote.
 *
 * No ABA: nodes are never popped by producers, and a node is pushed again
 * only after the consumer popped it. Reclamation is the caller's: a popped
 * node belongs to the consumer; the stub lives in the queue.
 *
 * Memory order: the producer's exchange on head is seq_cst: it publishes
 * the node's contents (acquire and release: the consumer's acquire load
 * of head pairs with it, and it orders against the previous producer),
 * and it is the store half of the Dekker pair "push, then read the
 * receiver's state" against "write the state, then look at head"
 * (act__mpsc_push). The link store is release and pairs with the
 * consumer's acquire load of next.
 *
 * Two consumers. act__mpsc_pop, act__mpsc_tail and
 * act__mpsc_maybe_nonempty are this file's: the tail is a plain node
 * pointer, and the last pop puts the stub back (the reactor's command
 * queue, whose nodes live on process stacks and must leave the queue
 * when popped: I6). A process's mailbox (proc/mailbox.h) is the other:
 * the same node, init and push, but its consumer keeps the last node
 * linked, received, and tags the tail's low bit to say so
 * (ACT_MBOX_KEPT), and threads other than the consumer read that tail
 * as a hint. On such a queue none of the three above may be called; the
 * mailbox has its own, beside what it does with a kept node (free it,
 * or put it on its held list, as the envelope's state says), which a
 * queue of bare nodes cannot know.
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
	struct act__mpsc_node *_Atomic head; /* producers */
	/* written by the consumer only; atomic (relaxed) because on a
	 * mailbox other threads read it as a hint (tagged there:
	 * proc/mailbox.h); on the plain queue only the consumer does */
	struct act__mpsc_node *_Atomic tail;
	struct act__mpsc_node stub;
};

static inline void act__mpsc_init(struct act__mpsc *q)
{
	atomic_store_explicit(&q->stub.next, NULL, memory_order_relaxed);
	atomic_store_explicit(&q->head, &q->stub, memory_order_relaxed);
	atomic_store_explicit(&q->tail, &q->stub, memory_order_relaxed);
}

static inline struct act__mpsc_node *act__mpsc_tail(struct act__mpsc *q)
{
	return atomic_load_explicit(&q->tail, memory_order_relaxed);
}

/*
 * Append n. seq_cst exchange: besides publishing n (pairs with the
 * consumer's acquire of next), it is the store half of the Dekker pair
 * "push, then read the receiver's state" vs "write state, then
 * act__mpsc_maybe_nonempty()".
 */
static inline void act__mpsc_push(struct act__mpsc *q, struct act__mpsc_node *n)
{
	struct act__mpsc_node *prev;

	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	/* seq_cst: publishes n (the pop's acquire of head pairs with it)
	 * and is the store half of the Dekker pair above */
	prev = atomic_exchange_explicit(&q->head, n, memory_order_seq_cst);
	/* release: pairs with the acquire load of next in act__mpsc_pop */
	atomic_store_explicit(&prev->next, n, memory_order_release);
}

/* Remove the oldest node, or NULL when empty (or momentarily so). */
static inline struct act__mpsc_node *act__mpsc_pop(struct act__mpsc *q)
{
	struct act__mpsc_node *tail = act__mpsc_tail(q), *next, *head;

	/* acquire: pairs with the release link store in act__mpsc_push */
	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (tail == &q->stub) {
		if (!next)
			return NULL;
		atomic_store_explicit(&q->tail, next, memory_order_relaxed);
		tail = next;
		next = atomic_load_explicit(&next->next, memory_order_acquire);
	}
	if (next) {
		atomic_store_explicit(&q->tail, next, memory_order_relaxed);
		return tail;
	}
	/* acquire: pairs with the seq_cst exchange on head in
	 * act__mpsc_push */
	head = atomic_load_explicit(&q->head, memory_order_acquire);
	if (tail != head)
		return NULL; /* a producer is between exchange and link */
	act__mpsc_push(q, &q->stub);
	/* acquire: pairs with the release link store in act__mpsc_push */
	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (next) {
		atomic_store_explicit(&q->tail, next, memory_order_relaxed);
		return tail;
	}
	return NULL;
}

/*
 * Consumer only: may the queue hold a node? Exact when no producer is
 * mid-push; errs towards "yes". seq_cst load: the load half of the Dekker
 * pair described at act__mpsc_push.
 */
static inline bool act__mpsc_maybe_nonempty(struct act__mpsc *q)
{
	if (act__mpsc_tail(q) != &q->stub)
		return true;
	return atomic_load_explicit(&q->head, memory_order_seq_cst) != &q->stub;
}

#endif /* ACT_MPSC_H */
