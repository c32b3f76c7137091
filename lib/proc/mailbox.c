/* SPDX-License-Identifier: MIT */
/* mailbox.c - a process's mailbox: its queue's rare ends, the save queue,
 * the held list, the limit and the observer's count; see mailbox.h. */
#include <errno.h>

#include "mailbox.h"
#include "base/spin.h"

/* The save queue's ends: the owner's, but act_process_info's walk reads
 * them from other threads (act__mailbox_count), so the owner stores
 * them atomic, relaxed (on every target a plain store), and reads them
 * plain, through their `_own` alias (proc.h). */
static void save_set(struct act__envelope *_Atomic *end,
		     struct act__envelope *e)
{
	atomic_store_explicit(end, e, memory_order_relaxed);
}

static struct act__envelope *env_next(struct act__envelope *e)
{
	return (struct act__envelope *)atomic_load_explicit(
		&e->node.next, memory_order_relaxed);
}

static void env_set_next(struct act__envelope *e, struct act__envelope *n)
{
	/* node is the envelope's first member, so the casts are exact */
	atomic_store_explicit(&e->node.next, (struct act__mpsc_node *)n,
			      memory_order_relaxed);
}

struct act__envelope *act__mailbox_take_saved(struct act__proc *p,
					      act__match_fn match, void *ctx)
{
	struct act__envelope *prev = NULL, *e = p->save_head_own;

	for (; e; prev = e, e = env_next(e)) {
		if (match && !match(&e->msg, ctx))
			continue;
		if (prev)
			env_set_next(prev, env_next(e));
		else
			save_set(&p->save_head, env_next(e));
		if (p->save_tail_own == e)
			save_set(&p->save_tail, prev);
		return e;
	}
	return NULL;
}

static void save_append(struct act__proc *p, struct act__envelope *e)
{
	env_set_next(e, NULL);
	if (p->save_tail_own)
		env_set_next(p->save_tail_own, e);
	else
		save_set(&p->save_head, e);
	save_set(&p->save_tail, e);
}

/* Owner: the tail's node, kept or not. */
static struct act__mpsc_node *mbox_tail_node(struct act__mpsc *q)
{
	/* relaxed: the owner's own word, atomic only for the hints other
	 * threads read (mpsc.h: park_proc's re-check; act__mailbox_count) */
	return (struct act__mpsc_node *)((uintptr_t)atomic_load_explicit(
						 &q->tail,
						 memory_order_relaxed) &
					 ~ACT_MBOX_KEPT);
}

/*
 * Owner: the kept envelope is needed off the queue (its link, for the
 * save queue): put the stub behind it, as Vyukov's pop does. False when
 * a sender is between its exchange and its link: it is then not
 * received (the next pop returns it again).
 */
static bool mbox_detach(struct act__proc *p)
{
	struct act__mpsc *q = &p->mbox;
	struct act__mpsc_node *n = mbox_tail_node(q);
	struct act__mpsc_node *next;

	/* acquire: pairs with the release link store in act__mpsc_push */
	next = atomic_load_explicit(&n->next, memory_order_acquire);
	if (!next) {
		/* acquire: pairs with the seq_cst exchange on head in
		 * act__mpsc_push, as in act__mpsc_pop */
		if (atomic_load_explicit(&q->head, memory_order_acquire) != n) {
			atomic_store_explicit(&q->tail, n,
					      memory_order_relaxed);
			return false;
		}
		act__mpsc_push(q, &q->stub);
		/* acquire: as above, the link store's pair */
		next = atomic_load_explicit(&n->next, memory_order_acquire);
		if (!next) {
			atomic_store_explicit(&q->tail, n,
					      memory_order_relaxed);
			return false;
		}
	}
	atomic_store_explicit(&q->tail, next, memory_order_relaxed);
	return true;
}

struct act__mpsc_node *act__mailbox_unkeep(struct act__mpsc *q,
					   struct act__mpsc_node *n)
{
	/* acquire: pairs with the seq_cst exchange on head in
	 * act__mpsc_push, as in act__mpsc_pop */
	if (atomic_load_explicit(&q->head, memory_order_acquire) != n)
		return NULL; /* a sender mid-push: n stays, kept */
	act__mpsc_push(q, &q->stub);
	/* acquire: pairs with the release link store in act__mpsc_push;
	 * NULL: a sender pushed in between and links into n later, so n
	 * stays kept and the stub comes behind that sender's node */
	return atomic_load_explicit(&n->next, memory_order_acquire);
}

bool act__mailbox_set_aside(struct act__proc *p, struct act__slab *slab,
			    struct act__envelope *e)
{
	if (e->to.id != p->pid.id) {
		/* for an earlier occupant: free it, or, kept, once the
		 * queue is past it (relaxed: the owner's, read by its own
		 * act__mailbox_kept_done) */
		if (act__mailbox_kept(p, e))
			atomic_store_explicit(&e->state, ACT_ENV_RELEASED,
					      memory_order_relaxed);
		else
			act__slab_free(slab, e);
		return true;
	}
	if (act__mailbox_kept(p, e) && !mbox_detach(p))
		return false; /* not received after all: for now */
	save_append(p, e);
	return true;
}

/* A DOWN for ref's monitor: sent by the runtime to the owner's pid. */
static bool is_down(const struct act__envelope *e, act_pid pid, uint64_t ref)
{
	const struct act_exit_info *d = e->msg.data;

	return e->to.id == pid.id && e->msg.tag == ACT_TAG_DOWN &&
	       e->msg.len == sizeof(*d) && d->ref == ref;
}

struct act__envelope *act__mailbox_take_reply(struct act__proc *p,
					      struct act__slab *slab,
					      uint64_t ref)
{
	struct act__envelope *e;

	while ((e = act__mailbox_pop(p, slab))) {
		if (e->msg.ref == ref &&
		    e->to.id == act__mailbox_reply_to(p->pid)) {
			/* relaxed: an observer's walk reads it (to_id) */
			atomic_store_explicit(&e->to_id, p->pid.id,
					      memory_order_relaxed);
			return e;
		}
		if (is_down(e, p->pid, ref))
			return e;
		if (!act__mailbox_set_aside(p, slab, e))
			return NULL;
	}
	return NULL;
}

void act__mailbox_held_sweep(struct act__proc *p, struct act__slab *slab,
			     bool all)
{
	struct act__envelope *e = p->held, *next;

	for (; e; e = next) {
		next = env_next(e);
		/* acquire: pairs with the release store in act_msg_free */
		if (all ||
		    atomic_load_explicit(&e->state, memory_order_acquire) ==
			    ACT_ENV_RELEASED) {
			act__mailbox_held_del(p, e);
			act__slab_free(slab, e);
		}
	}
	p->sweep_at = 2 * p->n_held + 64;
}

/*
 * Owner, once pops return NULL: is a sender between its exchange and its
 * link? Then what it pushes, and everything pushed after it, is not
 * reachable from the tail yet.
 */
static bool mbox_mid_push(struct act__proc *p)
{
	struct act__mpsc *q = &p->mbox;
	struct act__mpsc_node *n = mbox_tail_node(q);

	/* acquire: pairs with the release link store in act__mpsc_push
	 * (linked: the next pop goes on); then with the seq_cst exchange
	 * on head, as in act__mpsc_pop */
	return atomic_load_explicit(&n->next, memory_order_acquire) ||
	       atomic_load_explicit(&q->head, memory_order_acquire) != n;
}

void act__mailbox_drain(struct act__proc *p, struct act__slab *slab)
{
	struct act__envelope *e;
	unsigned spins = 0;
	uintptr_t t;

	/* the limit's count is left as it is: a sender that passed the
	 * state check before EXITING still meets the limit it reached
	 * (mailbox.h), and the next limited occupant starts its own */
	while ((e = p->save_head_own)) {
		save_set(&p->save_head, env_next(e));
		act__slab_free(slab, e);
	}
	save_set(&p->save_tail, NULL);
	/*
	 * Every message queued, to the end: a sender stopped (preempted)
	 * between its exchange and its link hides its message and every
	 * one pushed after it, up to the mailbox's limit, which would
	 * otherwise stay until the slot's next occupant pops past them. Its
	 * next two instructions link them, so wait for that, yielding the
	 * CPU after a while in case it waits for this one. It ends: only
	 * the senders that passed the state check before EXITING still
	 * push, each once.
	 */
	for (;;) {
		while ((e = act__mailbox_pop(p, slab))) {
			if (!act__mailbox_kept(p, e))
				act__slab_free(slab, e);
		}
		if (mbox_mid_push(p)) {
			act__spin_backoff(&spins);
			continue;
		}
		/* the last one, kept: off the queue and freed; a sender
		 * that came in between makes it unreceived again, and the
		 * pops go on */
		t = (uintptr_t)atomic_load_explicit(&p->mbox.tail,
						    memory_order_relaxed);
		if (!(t & ACT_MBOX_KEPT))
			break;
		e = act__container_of((struct act__mpsc_node *)(t &
								~ACT_MBOX_KEPT),
				      struct act__envelope, node);
		if (mbox_detach(p))
			act__slab_free(slab, e);
	}
	/* last: the pops above may have put a kept one on the list */
	act__mailbox_held_sweep(p, slab, true);
}

void act__mailbox_limit_init(struct act__proc *p, uint32_t limit)
{
	if (limit) {
		atomic_store_explicit(&p->mbox_count,
				      (uint64_t)(uint32_t)atomic_load_explicit(
					      &p->gen, memory_order_relaxed)
					      << 32,
				      memory_order_relaxed);
		atomic_store_explicit(&p->mbox_limit, limit,
				      memory_order_relaxed);
	}
	atomic_store_explicit(&p->limited, limit != 0, memory_order_relaxed);
}

/* The generation's low 32 bits name the occupant in mbox_count: a stale
 * count would have to wait out 2^32 reuses of the slot, and even then
 * the receiver drops its message and takes the count back. */
static uint32_t limit_gen(const struct act__ptable *t, act_pid pid)
{
	return (uint32_t)act__proc_pid_gen(t, pid);
}

int act__mailbox_limit_in(const struct act__ptable *t, struct act__proc *p,
			  act_pid pid)
{
	/* relaxed: a count, ordered by nothing else; the CAS keeps the
	 * generation and the count one */
	uint64_t w = atomic_load_explicit(&p->mbox_count, memory_order_relaxed);
	uint32_t limit =
		atomic_load_explicit(&p->mbox_limit, memory_order_relaxed);

	do {
		if ((uint32_t)(w >> 32) != limit_gen(t, pid))
			return 1;
		if ((uint32_t)w >= limit)
			return -ENOBUFS;
	} while (!atomic_compare_exchange_weak_explicit(
		&p->mbox_count, &w, w + 1, memory_order_relaxed,
		memory_order_relaxed));
	return 0;
}

void act__mailbox_limit_out(const struct act__ptable *t, struct act__proc *p,
			    act_pid to)
{
	uint64_t w = atomic_load_explicit(&p->mbox_count, memory_order_relaxed);

	do {
		if ((uint32_t)(w >> 32) != limit_gen(t, to) || (uint32_t)w == 0)
			return; /* counted for another occupant */
	} while (!atomic_compare_exchange_weak_explicit(
		&p->mbox_count, &w, w - 1, memory_order_relaxed,
		memory_order_relaxed));
}

void (*act__mailbox_walk_hook)(struct act__envelope *e);

/* An envelope an observer walks to: one for pid still queued counts;
 * one for pid in another state means the walk left pid's queues. */
static int count_one(struct act__envelope *e, act_pid pid)
{
	if (act__unlikely(act__mailbox_walk_hook))
		act__mailbox_walk_hook(e);
	if (atomic_load_explicit(&e->to_id, memory_order_relaxed) != pid.id)
		return 0;
	return atomic_load_explicit(&e->state, memory_order_relaxed) ==
			       ACT_ENV_SENT ?
		       1 :
		       -1;
}

long act__mailbox_count(struct act__proc *p, act_pid pid, unsigned long max)
{
	struct act__mpsc_node *stub = &p->mbox.stub, *n;
	uintptr_t t = (uintptr_t)atomic_load_explicit(&p->mbox.tail,
						      memory_order_relaxed);
	struct act__envelope *e;
	unsigned long steps = 0;
	long count = 0;
	int c;

	/* the MPSC queue from its tail; the tail is received already when
	 * it is the stub or kept (mailbox.h head), the stub may also sit
	 * further on (put back by a pop) */
	n = (struct act__mpsc_node *)(t & ~ACT_MBOX_KEPT);
	if (n == stub || (t & ACT_MBOX_KEPT))
		/* acquire: pairs with the release link store in
		 * act__mpsc_push, as the pop's */
		n = atomic_load_explicit(&n->next, memory_order_acquire);
	for (; n && steps < max; steps++) {
		if (n != stub) {
			c = count_one(act__container_of(n, struct act__envelope,
							node),
				      pid);
			if (c < 0)
				return -1;
			count += c;
		}
		/* acquire: pairs with the release link store in
		 * act__mpsc_push */
		n = atomic_load_explicit(&n->next, memory_order_acquire);
	}
	/* then the save queue, oldest first, ended by a NULL link */
	e = atomic_load_explicit(&p->save_head, memory_order_relaxed);
	for (; e && steps < max; steps++, e = env_next(e)) {
		c = count_one(e, pid);
		if (c <= 0)
			return -1; /* the save queue holds only pid's */
		count += c;
	}
	return n || e ? -1 : count;
}
