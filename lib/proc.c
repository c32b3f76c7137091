/* SPDX-License-Identifier: MIT */
/* proc.c - the slot table; see proc.h for pids and the state word. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "proc.h"

/* Four cache lines: remote-written, owner-only, owner-only, and the
 * lifecycle's. (Five under TSan: struct act__ctx carries the process's
 * fiber there.) */
#ifndef ACT_TSAN
_Static_assert(sizeof(struct act__proc) == 4 * ACT_CACHELINE, "slot size");
#endif

int act__ptable_init(struct act__ptable *t, uint32_t cap)
{
	size_t len = (size_t)cap * sizeof(struct act__proc);
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	t->slots = m;
	t->cap = cap;
	t->map_len = len;
	atomic_store_explicit(&t->hwm, 0, memory_order_relaxed);
	atomic_flag_clear(&t->lock);
	t->shared_head = UINT32_MAX;
	t->shared_n = 0;
	return 0;
}

static void pool_lock(struct act__ptable *t)
{
	/* acquire: pairs with the release clear in pool_unlock */
	while (atomic_flag_test_and_set_explicit(&t->lock,
						 memory_order_acquire))
		act__cpu_relax();
}

static void pool_unlock(struct act__ptable *t)
{
	atomic_flag_clear_explicit(&t->lock, memory_order_release);
}

/* The n-th slot of a chain starting at head (n >= 1). */
static struct act__proc *chain_nth(struct act__ptable *t, uint32_t head,
				   uint32_t n)
{
	struct act__proc *p = &t->slots[head];

	while (--n)
		p = &t->slots[act__free_next(p)];
	return p;
}

/* Refill an empty cache with up to a batch from the shared list. */
static void refill(struct act__ptable *t, struct act__slot_cache *c)
{
	struct act__proc *last;
	uint32_t n;

	pool_lock(t);
	n = t->shared_n < ACT_SLOT_BATCH ? t->shared_n : ACT_SLOT_BATCH;
	if (n) {
		last = chain_nth(t, t->shared_head, n);
		c->head = t->shared_head;
		c->n = n;
		t->shared_head = act__free_next(last);
		t->shared_n -= n;
		act__set_free_next(last, UINT32_MAX);
	}
	pool_unlock(t);
}

/* A fresh slot from the end of the table. */
static struct act__proc *grow(struct act__ptable *t)
{
	uint32_t i = atomic_fetch_add_explicit(&t->hwm, 1,
					       memory_order_relaxed);
	struct act__proc *p;

	if (i >= t->cap) {
		atomic_fetch_sub_explicit(&t->hwm, 1, memory_order_relaxed);
		return NULL;
	}
	p = &t->slots[i];
	p->index = i;
	act__mpsc_init(&p->mbox);
	/* release: pairs with the acquire gen load in act__proc_lookup, which
	 * then sees an initialised mailbox */
	atomic_store_explicit(&p->gen, 1, memory_order_release);
	return p;
}

struct act__proc *act__slot_get(struct act__ptable *t,
				struct act__slot_cache *c)
{
	struct act__proc *p;

	if (c->head == UINT32_MAX)
		refill(t, c);
	if (c->head == UINT32_MAX)
		return grow(t);
	p = &t->slots[c->head];
	c->head = act__free_next(p);
	c->n--;
	return p;
}

void act__slot_put(struct act__ptable *t, struct act__slot_cache *c,
		   struct act__proc *p)
{
	struct act__proc *last;
	uint32_t batch;

	act__set_free_next(p, c->head);
	c->head = p->index;
	if (++c->n <= ACT_SLOT_CACHE_MAX)
		return;
	/* spill the newest ACT_SLOT_BATCH; the walk is outside the lock */
	batch = c->head;
	last = chain_nth(t, batch, ACT_SLOT_BATCH);
	c->head = act__free_next(last);
	c->n -= ACT_SLOT_BATCH;
	pool_lock(t);
	act__set_free_next(last, t->shared_head);
	t->shared_head = batch;
	t->shared_n += ACT_SLOT_BATCH;
	pool_unlock(t);
}

void act__ptable_destroy(struct act__ptable *t)
{
	if (t->slots)
		munmap(t->slots, t->map_len);
	t->slots = NULL;
}
