/* SPDX-License-Identifier: MIT */
/*
 * timer.c - act_send_after, act_send_interval, act_timer_cancel.
 *
 * A timer is a slot of a table that grows by chunks and never moves
 * (struct act__utimers, in the reactor), named by act_timer =
 * generation << UT_IDX_BITS | (index + 1). Its word holds the generation
 * and the state, and every hand-over is a CAS on it:
 *
 *   creator     FREE(g) -> ARMED(g), then the ARM command (reactor.h)
 *   reactor     ARMED(g) -> FIRING(g), send, then ARMED(g) again (an
 *               interval: back on the wheel) or FREE(g + 1) (done)
 *   canceller   ARMED(g) -> CANCELLED(g), then the CANCEL command; the
 *               reactor takes it off the wheel and frees it: FREE(g + 1)
 *
 * A canceller that finds FIRING waits for the send to end, so once
 * act_timer_cancel has returned 0 no message of that timer is sent; one
 * that finds another generation, FREE or CANCELLED gets -ENOENT (fired
 * and done, or cancelled before). A timer whose destination has exited
 * is freed at its next firing: its message would go nowhere.
 *
 * Generations never wrap: a reference keeps 41 bits of one (the index
 * takes 23), and a slot whose generation reaches UT_GEN_MAX is retired
 * instead of freed, so a stale reference never names a later timer (the
 * free list is LIFO: one busy slot takes every timer, and 2^32 of them
 * came around in minutes).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "reactor/reactor.h"
#include "message.h"
#include "timer.h"
#include "sched/rt.h"
#include "sched/worker.h"

/* Tests: a canceller that acts the moment a reference is published. */
void (*act__test_timer_published)(act_timer ref);

/* index + 1 <= ACT_UT_CHUNK * ACT_UT_CHUNKS = 2^22 */
#define UT_IDX_BITS 23
#define UT_IDX_MASK (((uint64_t)1 << UT_IDX_BITS) - 1)
#define UT_GEN_MAX (((uint64_t)1 << (64 - UT_IDX_BITS)) - 1)
_Static_assert(1ull * ACT_UT_CHUNK * ACT_UT_CHUNKS <= UT_IDX_MASK,
	       "timer index bits");
#define UT_WORD(gen, st) (((uint64_t)(gen) << 8) | (st))
#define UT_GEN(word) ((word) >> 8)
#define UT_STATE(word) (0xffu & (uint32_t)(word))

static struct act__utimer *ut_slot(struct act__utimers *t, uint32_t i)
{
	/* acquire: pairs with the release store of the chunk in ut_alloc */
	struct act__utimer *c = atomic_load_explicit(
		&t->chunks[i / ACT_UT_CHUNK], memory_order_acquire);

	return c ? &c[i % ACT_UT_CHUNK] : NULL;
}

/* A free slot, its word FREE(g); NULL when the table is full or no
 * memory. Any thread. */
static struct act__utimer *ut_alloc(struct act__utimers *t, uint32_t *index)
{
	struct act__utimer *u = NULL, *c;
	uint32_t i, k;

	act__spin_lock(&t->lock); /* pairs with the unlock below */
	if (t->free_head != UINT32_MAX) {
		i = t->free_head;
		u = ut_slot(t, i);
		t->free_head = u->free_next;
	} else {
		i = atomic_load_explicit(&t->n, memory_order_relaxed);
		if (i < ACT_UT_CHUNK * ACT_UT_CHUNKS) {
			if (i % ACT_UT_CHUNK == 0) {
				c = calloc(ACT_UT_CHUNK, sizeof(*c));
				if (c) {
					for (k = 0; k < ACT_UT_CHUNK; k++) {
						c[k].index = i + k;
						atomic_store_explicit(
							&c[k].word,
							UT_WORD(1, ACT_UT_FREE),
							memory_order_relaxed);
					}
					/* release: pairs with the
					 * acquire load in ut_slot */
					atomic_store_explicit(
						&t->chunks[i / ACT_UT_CHUNK], c,
						memory_order_release);
				}
			}
			u = ut_slot(t, i);
			if (u) /* release: pairs with act_timer_cancel */
				atomic_store_explicit(&t->n, i + 1,
						      memory_order_release);
		}
	}
	act__spin_unlock(&t->lock);
	*index = i;
	return u;
}

/* Reactor: the timer is done; free its slot for the next generation. */
void act__timer_release(struct act__reactor *r, struct act__utimer *u)
{
	struct act__utimers *t = &r->timers;
	uint64_t w = atomic_load_explicit(&u->word, memory_order_relaxed);

	free(u->data);
	u->data = NULL;
	/* release: a canceller that sees the new generation sees the slot
	 * as done (pairs with its acquire load) */
	atomic_store_explicit(&u->word, UT_WORD(UT_GEN(w) + 1, ACT_UT_FREE),
			      memory_order_release);
	if (act__unlikely(UT_GEN(w) + 1 > UT_GEN_MAX))
		return; /* retired: no reference names what comes next */
	act__spin_lock(&t->lock); /* pairs with the unlock below */
	u->free_next = t->free_head;
	t->free_head = u->index;
	act__spin_unlock(&t->lock);
}

void act__timer_destroy_all(struct act__utimers *t)
{
	uint32_t i;

	for (i = 0; i < ACT_UT_CHUNKS; i++) {
		free(atomic_load_explicit(&t->chunks[i], memory_order_relaxed));
		atomic_store_explicit(&t->chunks[i], NULL,
				      memory_order_relaxed);
	}
	t->free_head = UINT32_MAX;
	atomic_store_explicit(&t->n, 0, memory_order_relaxed);
}

void act__timer_arm(struct act__reactor *r, struct act__utimer *u)
{
	/* its ARM comes before any CANCEL of it (start publishes the
	 * reference only after the push): never freed before this */
	if (ACT_DEBUG_ON &&
	    UT_STATE(atomic_load_explicit(&u->word, memory_order_relaxed)) ==
		    ACT_UT_FREE)
		act__fatal("timer %u armed after it was freed", u->index);
	act__wheel_add(&r->wheel, &u->node, u->deadline);
}

static bool creator_alive(struct act__reactor *r, act_pid pid)
{
	struct act__proc *p = act__proc_lookup(&r->rt->procs, pid);
	unsigned st;

	if (!p)
		return false;
	st = act__ps(atomic_load_explicit(&p->state, memory_order_relaxed));
	return st != ACT_PS_FREE && st != ACT_PS_EXITING;
}

void act__timer_fire(struct act__reactor *r, struct act__utimer *u)
{
	uint64_t w = atomic_load_explicit(&u->word, memory_order_relaxed);
	uint64_t armed = UT_WORD(UT_GEN(w), ACT_UT_ARMED);
	int64_t now;
	int rc;

	/* acq_rel: pairs with act_timer_cancel's CAS; while FIRING, a
	 * canceller waits */
	if (!atomic_compare_exchange_strong_explicit(
		    &u->word, &armed, UT_WORD(UT_GEN(w), ACT_UT_FIRING),
		    memory_order_acq_rel, memory_order_relaxed))
		return; /* cancelled: its cancel command frees it */
	/* an interval lives as long as the process that made it (as
	 * Erlang's timer:send_interval/2); a timer set from outside a
	 * process has none, and a one-shot timer goes out regardless */
	if (u->interval && u->from.id && !creator_alive(r, u->from)) {
		act__timer_release(r, u);
		return;
	}
	if (act__unlikely(r->trace))
		act__trace_event(r->trace, ACT_TR_TIMER, u->to.id, 1, 0);
	rc = act__message_send(r->rt, u->to, u->tag, u->data, u->len, u->from);
	if (rc == -ENOMEM || (u->interval && rc != -ESRCH)) {
		now = act__clock_now();
		if (rc == -ENOMEM) /* no envelope: try again a tick later */
			u->deadline = now + r->wheel.tick_ns;
		else if (u->deadline > INT64_MAX - u->interval)
			u->deadline = INT64_MAX;
		else
			u->deadline += u->interval;
		if (u->deadline < now) /* fell behind: no burst to catch up */
			u->deadline = now;
		/* release: pairs with act_timer_cancel's acquire load */
		atomic_store_explicit(&u->word,
				      UT_WORD(UT_GEN(w), ACT_UT_ARMED),
				      memory_order_release);
		act__wheel_add(&r->wheel, &u->node, u->deadline);
		return;
	}
	act__timer_release(r, u); /* once, or nobody left to send to */
}

/* act_send_after and act_send_interval, the runtime entered. */
static int start(struct act__rt *rt, int64_t ns, int64_t interval, act_pid to,
		 uint32_t tag, const void *data, size_t len, act_timer *ref)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__reactor *r;
	struct act__utimer *u;
	uint32_t index;
	uint64_t word;
	int64_t now, deadline;

	if (ns < 0 || interval < 0 || tag >= ACT_TAG_RESERVED || (len && !data))
		return -EINVAL;
	if (len > ACT_MSG_MAX)
		return -EMSGSIZE;
	r = rt->reactor;
	u = ut_alloc(&r->timers, &index);
	if (!u)
		return -ENOMEM;
	u->data = NULL;
	if (len && !(u->data = malloc(len))) {
		act__timer_release(r, u);
		return -ENOMEM;
	}
	if (len)
		memcpy(u->data, data, len);
	now = act__clock_now();
	u->to = to;
	u->from = w && w->current ? w->current->pid : ACT_PID_NONE;
	u->tag = tag;
	u->len = len;
	u->interval = interval;
	u->deadline = ns < INT64_MAX - now ? now + ns : INT64_MAX;
	act__wheel_node_init(&u->node);
	u->node.kind = ACT_TK_USER;
	word = atomic_load_explicit(&u->word, memory_order_relaxed);
	atomic_store_explicit(&u->word, UT_WORD(UT_GEN(word), ACT_UT_ARMED),
			      memory_order_relaxed);
	/* seq_cst push, then seq_cst load: as act__reactor_arm_timeout;
	 * after the push u is the reactor's (it may fire and re-arm an
	 * interval at once): its deadline is read before */
	deadline = u->deadline;
	act__reactor_push(r, &u->arm, ACT_RC_UARM);
	/* only now may anyone cancel it: a reference published before the
	 * ARM was queued let a canceller's CANCEL reach the reactor first,
	 * which freed the slot that the ARM then put on the wheel (and a
	 * new timer in the same slot pushed the queued ARM node again) */
	if (ref) {
		*ref = (UT_GEN(word) << UT_IDX_BITS) | (index + 1);
		if (act__test_timer_published)
			act__test_timer_published(*ref);
	}
	/* seq_cst: the load half of the Dekker pair with the reactor's
	 * store of next_deadline, then its look at the command queue
	 * (reactor.c head): the ARM pushed above is seen, or the reactor
	 * is woken */
	if (deadline <
	    atomic_load_explicit(&r->next_deadline, memory_order_seq_cst))
		act__reactor_wake(r);
	return 0;
}

int act_send_after(int64_t ns, act_pid to, uint32_t tag, const void *data,
		   size_t len, act_timer *ref)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int rc = rt ? start(rt, ns, 0, to, tag, data, len, ref) : -ESRCH;

	act__rt_leave(rt);
	return rc;
}

int act_send_interval(int64_t ns, act_pid to, uint32_t tag, const void *data,
		      size_t len, act_timer *ref)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int rc = !rt	 ? -ESRCH :
		 ns <= 0 ? -EINVAL :
			   start(rt, ns, ns, to, tag, data, len, ref);

	act__rt_leave(rt);
	return rc;
}

/* act_timer_cancel, the runtime entered. */
static int cancel_in(struct act__rt *rt, act_timer ref)
{
	uint32_t index = (uint32_t)(ref & UT_IDX_MASK) - 1;
	uint64_t gen = ref >> UT_IDX_BITS;
	struct act__reactor *r;
	struct act__utimer *u;
	uint64_t w;

	r = rt->reactor;
	/* acquire: pairs with the release store of n in ut_alloc: the
	 * slots below it are there */
	if ((ref & UT_IDX_MASK) == 0 || gen == 0 ||
	    index >= atomic_load_explicit(&r->timers.n, memory_order_acquire))
		return -ENOENT;
	u = ut_slot(&r->timers, index);
	for (;;) {
		/* acquire: pairs with the reactor's release stores */
		w = atomic_load_explicit(&u->word, memory_order_acquire);
		if (UT_GEN(w) != gen || UT_STATE(w) == ACT_UT_FREE ||
		    UT_STATE(w) == ACT_UT_CANCELLED)
			return -ENOENT;
		if (UT_STATE(w) == ACT_UT_FIRING) {
			act__systematic_yield(); /* a systematic run's turn */
			sched_yield();		 /* a send: it ends soon */
			continue;
		}
		/* acq_rel: pairs with the reactor's CAS in act__timer_fire */
		if (atomic_compare_exchange_weak_explicit(
			    &u->word, &w, UT_WORD(gen, ACT_UT_CANCELLED),
			    memory_order_acq_rel, memory_order_acquire))
			break;
	}
	act__reactor_push(r, &u->cancel, ACT_RC_UCANCEL);
	act__reactor_ring_lazy(r);
	return 0;
}

int act_timer_cancel(act_timer ref)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int rc = rt ? cancel_in(rt, ref) : -ESRCH;

	act__rt_leave(rt);
	return rc;
}
