/* SPDX-License-Identifier: MIT */
/* mailbox.c - MPSC mailbox plus save queue; see mailbox.h. */
#include "mailbox.h"

static struct act__env *env_next(struct act__env *e)
{
	return (struct act__env *)atomic_load_explicit(&e->node.next,
							memory_order_relaxed);
}

static void env_set_next(struct act__env *e, struct act__env *n)
{
	/* node is the envelope's first member, so the casts are exact */
	atomic_store_explicit(&e->node.next, (struct act__mpsc_node *)n,
			      memory_order_relaxed);
}

struct act__env *act__mailbox_take_saved(struct act__proc *p,
					 act__match_fn match, void *ctx)
{
	struct act__env *prev = NULL, *e = p->save_head;

	for (; e; prev = e, e = env_next(e)) {
		if (match && !match(&e->msg, ctx))
			continue;
		if (prev)
			env_set_next(prev, env_next(e));
		else
			p->save_head = env_next(e);
		if (p->save_tail == e)
			p->save_tail = prev;
		return e;
	}
	return NULL;
}

static void save_append(struct act__proc *p, struct act__env *e)
{
	env_set_next(e, NULL);
	if (p->save_tail)
		env_set_next(p->save_tail, e);
	else
		p->save_head = e;
	p->save_tail = e;
}

struct act__env *act__mailbox_take_new(struct act__proc *p,
				       struct act__slab *slab,
				       act__match_fn match, void *ctx)
{
	struct act__mpsc_node *n;
	struct act__env *e;

	while ((n = act__mpsc_pop(&p->mbox))) {
		/* start fetching the next envelope's header and payload,
		 * likely written on another core, while this one is used */
		__builtin_prefetch(act__mpsc_tail(&p->mbox));
		__builtin_prefetch((char *)act__mpsc_tail(&p->mbox) +
				   ACT_ENV_HDR);
		e = act__container_of(n, struct act__env, node);
		if (act__unlikely(e->to.id != p->pid.id)) {
			act__env_free(slab, e); /* for an earlier occupant */
			continue;
		}
		if (!match || match(&e->msg, ctx))
			return e;
		save_append(p, e);
	}
	return NULL;
}

void act__held_sweep(struct act__proc *p, struct act__slab *slab, bool all)
{
	struct act__env *e = p->held, *next;

	for (; e; e = next) {
		next = env_next(e);
		/* acquire: pairs with the release store in act_msg_free */
		if (all || atomic_load_explicit(&e->state,
						memory_order_acquire) ==
				   ACT_ENV_RELEASED) {
			act__held_del(p, e);
			act__env_free(slab, e);
		}
	}
	p->sweep_at = 2 * p->n_held + 64;
}

void act__mailbox_drain(struct act__proc *p, struct act__slab *slab)
{
	act__held_sweep(p, slab, true);
	struct act__mpsc_node *n;
	struct act__env *e;

	/* the limit's count is left as it is: a sender that passed the
	 * state check before EXITING still meets the limit it reached
	 * (links.h), and the next limited occupant starts its own */
	while ((e = p->save_head)) {
		p->save_head = env_next(e);
		act__env_free(slab, e);
	}
	p->save_tail = NULL;
	while ((n = act__mpsc_pop(&p->mbox)))
		act__env_free(slab, act__container_of(n, struct act__env,
						      node));
}
