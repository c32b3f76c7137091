/* SPDX-License-Identifier: MIT */
/* slab.c - envelope allocation; see slab.h for the design. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "affinity/homes.h"
#include "base/fail.h"
#include "slab.h"

#define CHUNK_LEN ((size_t)256 << 10)

static _Atomic int64_t foreign_out;

static size_t class_size(int c)
{
	return (size_t)128 << c;
}

static uint32_t slab_sid(uint16_t worker, int home)
{
	return worker | (uint32_t)home << 16;
}

void act__slab_init(struct act__slab *s, uint16_t worker)
{
	memset(s, 0, sizeof(*s));
	s->worker = worker;
	s->sid = slab_sid(worker, 0);
}

static void slab_bind(struct act__slab *s, struct act__numa *numa, int home)
{
	s->numa = numa;
	s->home = home;
	s->sid = slab_sid(s->worker, home);
}

int act__slab_set_home(struct act__slab *s, struct act__numa *numa, int home)
{
	uint32_t h, n = numa ? (uint32_t)numa->nnodes : 1;

	slab_bind(s, numa, home);
	if (n < 2)
		return 0;
	s->guests = aligned_alloc(ACT_CACHELINE, n * sizeof(struct act__slab));
	if (!s->guests)
		return -ENOMEM;
	s->nguests = n;
	for (h = 0; h < n; h++) {
		act__slab_init(&s->guests[h], s->worker);
		slab_bind(&s->guests[h], numa, (int)h);
	}
	return 0;
}

static void slab_unmap(struct act__slab *s)
{
	struct act__slab_chunk *c = s->chunks, *next;

	while (c) {
		size_t len = c->len;

		next = c->next;
		/* ASan's shadow outlives the mapping: a later mmap at this
		 * address must not find free envelopes' poison */
		act__asan_unpoison(c, len);
		munmap(c, len);
		c = next;
	}
	s->chunks = NULL;
	atomic_store_explicit(&s->mapped, 0, memory_order_relaxed);
	s->bump = s->bump_end = NULL;
	memset(s->free, 0, sizeof(s->free));
}

void act__slab_destroy(struct act__slab *s)
{
	uint32_t h;

	slab_unmap(s);
	for (h = 0; h < s->nguests; h++)
		slab_unmap(&s->guests[h]);
	free(s->guests);
	s->guests = NULL;
	s->nguests = 0;
}

static int slab_grow(struct act__slab *s)
{
	struct act__slab_chunk *c;

	c = ACT_FAIL(ACT_FAIL_SLAB) ?
		    MAP_FAILED :
		    mmap(NULL, CHUNK_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return -ENOMEM;
	/* before the first write below: the header's page is the first
	 * one faulted in */
	act__homes_place(s->numa, s->home, c, CHUNK_LEN);
	c->len = CHUNK_LEN;
	c->next = s->chunks;
	s->chunks = c;
	act__count_n(&s->mapped, CHUNK_LEN);
	s->bump = (char *)c + 128; /* first 128 bytes: the chunk header */
	s->bump_end = (char *)c + CHUNK_LEN;
	return 0;
}

static struct act__envelope *slab_carve(struct act__slab *s, int c)
{
	size_t sz = class_size(c);
	char *e;

	if ((size_t)(s->bump_end - s->bump) < sz && slab_grow(s))
		return NULL;
	e = s->bump;
	s->bump += sz;
	/* for life: its class and the slab it goes back to; its link is
	 * NULL, as the chunk's fresh pages are zero */
	((struct act__envelope *)e)->cls = (uint8_t)c;
	((struct act__envelope *)e)->sid = s->sid;
	return (struct act__envelope *)e;
}

static struct act__envelope *foreign_alloc(size_t payload)
{
	struct act__envelope *e;

	if (payload > ACT_SLAB_PAYLOAD_MAX)
		return NULL;
	if (posix_memalign((void **)&e, 64, ACT_ENV_HDR + payload))
		return NULL;
	e->cls = ACT_SLAB_FOREIGN;
	e->sid = slab_sid(UINT16_MAX, 0);
	atomic_fetch_add_explicit(&foreign_out, 1, memory_order_relaxed);
	return e;
}

/*
 * The running runtime's slabs, for frees from any thread: worker i's is
 * `stride` bytes after worker 0's, the foreign one has index n. Set
 * before any thread of the runtime runs, cleared after they all ended
 * (act__slab_index_set; thread creation and join order it).
 */
static struct {
	char *first;
	size_t stride;
	uint32_t n;
	struct act__slab *foreign;
} slabs;

void act__slab_index_set(struct act__slab *first, size_t stride, uint32_t n,
			 struct act__slab *foreign)
{
	slabs.first = (char *)first;
	slabs.stride = stride;
	slabs.n = n;
	slabs.foreign = foreign;
}

/* A worker's own slab from its index; past the workers, the foreign. */
static struct act__slab *slab_of_worker(uint16_t worker)
{
	return worker < slabs.n ? (struct act__slab *)(slabs.first +
						       worker * slabs.stride) :
				  slabs.foreign;
}

/* The slab that owns envelopes of sid (a worker's own, or a guest). */
static struct act__slab *slab_of_sid(uint32_t sid)
{
	struct act__slab *s = slab_of_worker((uint16_t)sid);
	uint32_t home = sid >> 16;

	return home == (uint32_t)s->home ? s : &s->guests[home];
}

/*
 * An empty class takes back what other threads freed to this slab, and
 * only then carves. It never takes another slab's free envelopes: it did
 * once, before carving, to spare fresh pages when senders moved to
 * another worker, and re-tagged them its own. Then a worker could carve
 * while the envelopes it had handed on sat idle on the taker's own list,
 * which nobody else may take: mailbox_flood at 2 workers, on a busy
 * machine, made one worker carve 66 chunks where a limit's worth is 40,
 * past the bound of a limit each. The fan-in that once needed it
 * touches as many pages without it now (bench fanin: 602 page faults
 * either way).
 */
struct act__envelope *act__slab_alloc_slow(struct act__slab *s, size_t payload)
{
	struct act__envelope *e;
	int c;

	/* the envelope site: every allocation the free list's pop did not
	 * serve (a refill, a carve, malloc), the ones that can fail */
	if (ACT_FAIL(ACT_FAIL_ENVELOPE))
		return NULL;
	if (!s || payload > ACT_SLAB_MAX_PAYLOAD)
		return foreign_alloc(payload);
	c = act__slab_class(payload);
	e = s->free[c];
	if (!e) {
		/* acquire: pairs with the release CAS in remote_push */
		e = atomic_exchange_explicit(&s->remote[c], NULL,
					     memory_order_acquire);
		if (!e)
			e = slab_carve(s, c);
		if (!e)
			return NULL;
	}
	return act__slab_take(s, c, e);
}

/* Push the chain head..tail (n envelopes of class cls) on owner's list. */
static void remote_push(struct act__slab *owner, int cls,
			struct act__envelope *head, struct act__envelope *tail,
			unsigned n)
{
	struct act__envelope *_Atomic *top = &owner->remote[cls];
	struct act__envelope *old =
		atomic_load_explicit(top, memory_order_relaxed);

	/* release: pairs with the acquire exchange in act__slab_alloc_slow.
	 * Only pushes and take-all, so no ABA. */
	do {
		atomic_store_explicit(&tail->node.next,
				      (struct act__mpsc_node *)old,
				      memory_order_relaxed);
	} while (!atomic_compare_exchange_weak_explicit(
		top, &old, head, memory_order_release, memory_order_relaxed));
	atomic_fetch_add_explicit(&owner->n_remote_free, n,
				  memory_order_relaxed);
}

static void rfree_flush(struct act__rfree *r)
{
	if (!r->n)
		return;
	remote_push(slab_of_sid(r->sid), r->cls, r->head, r->tail, r->n);
	r->n = 0;
}

void act__slab_flush_remote(struct act__slab *self)
{
	unsigned i;

	for (i = 0; i < ACT_RFREE_SLOTS; i++)
		rfree_flush(&self->rfree[i]);
}

/* Owner of self: hold e back for its owner; a full batch goes at once. */
static void rfree_add(struct act__slab *self, struct act__envelope *e)
{
	struct act__rfree *r =
		&self->rfree[((e->worker * 8u + e->home) * 8u + e->cls) %
			     ACT_RFREE_SLOTS];

	if (r->n && (r->sid != e->sid || r->cls != e->cls))
		rfree_flush(r);
	atomic_store_explicit(&e->node.next, (struct act__mpsc_node *)r->head,
			      memory_order_relaxed);
	if (!r->n) {
		r->tail = e;
		r->sid = e->sid;
		r->cls = e->cls;
	}
	r->head = e;
	if (++r->n == ACT_RFREE_BATCH)
		rfree_flush(r);
}

/*
 * Mailbox walks (act__slab_walk_begin) read envelopes that their owner
 * may free meanwhile. A slab envelope stays one (its chunk stays mapped,
 * its link points at an envelope or NULL); a malloc'd one goes back to
 * malloc, which may unmap it or hand it out as anything, so while a walk
 * runs none is: it waits on `deferred` (linked through held_prev, which
 * a freed envelope no longer uses, so that its node link stays as a
 * walker may be reading it), and the walk frees the list when it ends.
 */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int walking;
static struct act__envelope *_Atomic deferred;

static void foreign_release(struct act__envelope *e)
{
	atomic_fetch_sub_explicit(&foreign_out, 1, memory_order_relaxed);
	free(e);
}

static void deferred_free(void)
{
	/* acquire: pairs with the release CAS in foreign_free, so each
	 * envelope's held_prev link is seen */
	struct act__envelope *e =
		atomic_exchange_explicit(&deferred, NULL, memory_order_acquire);
	struct act__envelope *n;

	for (; e; e = n) {
		n = e->held_prev;
		foreign_release(e);
	}
}

static void foreign_free(struct act__envelope *e)
{
	struct act__envelope *h;

	/* seq_cst: the Dekker with act__slab_walk_begin's store and fence.
	 * The envelope left its queue (the owner's pop or unlink) before
	 * this fence; either the load below sees the walk, or the walk,
	 * after its fence, sees the queue without it */
	atomic_thread_fence(memory_order_seq_cst);
	if (act__likely(
		    !atomic_load_explicit(&walking, memory_order_seq_cst))) {
		/* the load read act__slab_walk_end's seq_cst store of 0 (or
		 * the start's): after every read of that walk */
		foreign_release(e);
		return;
	}
	h = atomic_load_explicit(&deferred, memory_order_relaxed);
	do
		e->held_prev = h;
	/* release: pairs with the acquire exchange in deferred_free */
	while (!atomic_compare_exchange_weak_explicit(
		&deferred, &h, e, memory_order_release, memory_order_relaxed));
}

void act__slab_walk_begin(void)
{
	/* one walk at a time: a freer that saw it running may still push
	 * after it ended, and only the next walk (or the runtime's end)
	 * frees what came late; pairs with the unlock in
	 * act__slab_walk_end */
	pthread_mutex_lock(&walk_lock);
	/* seq_cst: the store half of the Dekker pair with foreign_free's
	 * fence and load of walking, the fence before the walk's loads */
	atomic_store_explicit(&walking, 1, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
}

void act__slab_walk_end(void)
{
	/* seq_cst: a freer that reads it frees at once (foreign_free) */
	atomic_store_explicit(&walking, 0, memory_order_seq_cst);
	deferred_free();
	pthread_mutex_unlock(&walk_lock); /* pairs with the lock above */
}

void act__slab_walk_reclaim(void)
{
	deferred_free();
}

void act__slab_free_slow(struct act__slab *self, struct act__envelope *e)
{
	if (e->cls == ACT_SLAB_FOREIGN) {
		foreign_free(e);
		return;
	}
	if (self && e->worker == self->worker && self->guests) {
		/* one of self's guests: its owner frees it */
		struct act__slab *g = &self->guests[e->home];

		atomic_store_explicit(&e->node.next,
				      (struct act__mpsc_node *)g->free[e->cls],
				      memory_order_relaxed);
		g->free[e->cls] = e;
		g->n_free++;
	} else if (self) {
		rfree_add(self, e);
	} else {
		remote_push(slab_of_sid(e->sid), e->cls, e, e, 1);
	}
}

static int64_t slab_out(struct act__slab *s)
{
	return (int64_t)(s->n_alloc - s->n_free -
			 atomic_load_explicit(&s->n_remote_free,
					      memory_order_relaxed));
}

int64_t act__slab_outstanding(struct act__slab *s)
{
	int64_t n = slab_out(s);
	uint32_t h;

	for (h = 0; h < s->nguests; h++)
		n += slab_out(&s->guests[h]);
	return n;
}

uint64_t act__slab_mapped(const struct act__slab *s)
{
	uint64_t n = atomic_load_explicit(&s->mapped, memory_order_relaxed);
	uint32_t h;

	/* the guests are made before any thread runs (act__slab_set_home) */
	for (h = 0; h < s->nguests; h++)
		n += atomic_load_explicit(&s->guests[h].mapped,
					  memory_order_relaxed);
	return n;
}

int64_t act__slab_foreign_outstanding(void)
{
	return atomic_load_explicit(&foreign_out, memory_order_relaxed);
}
