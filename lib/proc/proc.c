/* SPDX-License-Identifier: MIT */
/* proc.c - the slot table; see proc.h for pids and the state word. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "affinity/homes.h"
#include "base/fail.h"
#include "pidfmt.h"
#include "proc.h"

/* Five cache lines: remote-written, owner-only, owner-only, the
 * lifecycle's, and the observers' (proc.h). (Six under TSan and ASan:
 * struct act__ctx carries the process's fiber, or its stack's bounds
 * and fake stack, there.) */
#if !defined(ACT_TSAN) && !defined(ACT_ASAN)
_Static_assert(sizeof(struct act__proc) == 5 * ACT_CACHELINE, "slot size");
/* What a turn's switch and a wait write for observers is on the line
 * the turn writes anyway (act__proc_turn_begin, act__proc_note_peer),
 * not on the fifth (proc.h). */
_Static_assert(offsetof(struct act__proc, reductions) / ACT_CACHELINE ==
			       offsetof(struct act__proc, turn_msgs) /
				       ACT_CACHELINE &&
		       offsetof(struct act__proc, wait_kind) / ACT_CACHELINE ==
			       offsetof(struct act__proc, turn_msgs) /
				       ACT_CACHELINE,
	       "observers' hot fields on the stealing hints' line");
#endif

/*
 * Regions: ceil(cap / homes) slots each, rounded up so that every region
 * starts on a page (mbind works on pages); the last ones may be shorter,
 * or empty when cap is small. Each region is bound to its home's node
 * once, here: the table is homes mappings (VMAs), whatever the number of
 * slots. No MADV_NOHUGEPAGE: a transparent huge page never crosses a
 * VMA, so none spans two bound regions; unbound (fake homes), it does
 * not matter where one lands.
 */
static uint32_t region_len(uint32_t cap, uint32_t homes)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t a = page, b = sizeof(struct act__proc), unit, per;

	if (homes == 1)
		return cap;
	while (b) { /* unit: the fewest slots that fill whole pages */
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	unit = page / a;
	per = ((uint64_t)cap + homes - 1) / homes;
	per = (per + unit - 1) / unit * unit;
	return per > cap ? cap : (uint32_t)per;
}

uint32_t act__proc_table_size(uint64_t max_procs, uint32_t nworkers,
			      uint32_t nhomes)
{
	/* out of reach of a spawning worker: every other cache full
	 * (ACT_SLOT_CACHE_MAX after a put) and its away chains one short
	 * of a batch each */
	uint64_t held =
		ACT_SLOT_CACHE_MAX +
		(nhomes > 1 ? (uint64_t)nhomes * ACT_SLOT_AWAY_BATCH : 0);
	uint64_t need = max_procs + (uint64_t)nworkers * held, size = 1;

	need += need / 16; /* spare for slots retired at gen_max */
	while (size < need)
		size <<= 1;
	return size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
}

int act__proc_table_init(struct act__ptable *t, uint32_t cap,
			 struct act__numa *numa)
{
	size_t len = (size_t)cap * sizeof(struct act__proc);
	uint32_t homes = numa ? (uint32_t)numa->nnodes : 1, r;
	void *m;

	t->idx_bits = 1;
	while (t->idx_bits < 32 && ((uint64_t)1 << t->idx_bits) < cap)
		t->idx_bits++;
	t->idx_mask = ((uint64_t)1 << t->idx_bits) - 1;
	/* bit 63 is no local pid's: it marks a remote one (dist/peers.h) */
	t->gen_max = ((uint64_t)1 << (63 - t->idx_bits)) - 1;
	act__pidfmt_split(t->idx_bits);
	t->max_alive = cap;
	atomic_store_explicit(&t->fresh, 0, memory_order_relaxed);
	atomic_store_explicit(&t->retired, 0, memory_order_relaxed);
	atomic_store_explicit(&t->count_lock, 0, memory_order_relaxed);
	t->ncaches = 0;
	t->caches = NULL;
	t->homes = aligned_alloc(ACT_CACHELINE, homes * sizeof(*t->homes));
	if (!t->homes)
		return -ENOMEM;
	m = ACT_FAIL(ACT_FAIL_MMAP) ?
		    MAP_FAILED :
		    mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		free(t->homes);
		t->homes = NULL;
		return -ENOMEM;
	}
	t->slots = m;
	t->cap = cap;
	t->map_len = len;
	t->nhomes = homes;
	t->per_home = region_len(cap, homes);
	atomic_store_explicit(&t->hwm, 0, memory_order_relaxed);
	for (r = 0; r < homes; r++) {
		struct act__ptable_home *h = &t->homes[r];
		uint64_t base = (uint64_t)r * t->per_home;

		h->base = base > cap ? cap : (uint32_t)base;
		h->end = base + t->per_home > cap ?
				 cap :
				 (uint32_t)base + t->per_home;
		atomic_store_explicit(&h->used, 0, memory_order_relaxed);
		atomic_store_explicit(&h->lock, 0, memory_order_relaxed);
		h->shared_head = UINT32_MAX;
		h->shared_n = 0;
		if (h->end > h->base)
			act__homes_place(numa, (int)r, &t->slots[h->base],
					 (size_t)(h->end - h->base) *
						 sizeof(struct act__proc));
	}
	return 0;
}

int act__proc_cache_init(struct act__slot_cache *c, struct act__ptable *t,
			 uint32_t home)
{
	struct act__slot_cache **cs;
	uint32_t r;

	memset(c, 0, sizeof(*c));
	c->head = UINT32_MAX;
	c->home = home;
	cs = realloc(t->caches, (t->ncaches + 1) * sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	t->caches = cs;
	t->caches[t->ncaches++] = c;
	if (t->nhomes == 1)
		return 0;
	c->away = calloc(t->nhomes, sizeof(*c->away));
	if (!c->away)
		return -ENOMEM;
	for (r = 0; r < t->nhomes; r++)
		c->away[r].head = c->away[r].tail = UINT32_MAX;
	return 0;
}

void act__proc_cache_destroy(struct act__slot_cache *c)
{
	free(c->away);
	c->away = NULL;
}

static void pool_lock(struct act__ptable_home *h)
{
	act__spin_lock(&h->lock); /* pairs with pool_unlock's unlock */
}

static void pool_unlock(struct act__ptable_home *h)
{
	act__spin_unlock(&h->lock); /* pairs with pool_lock's lock */
}

/* The n-th slot of a chain starting at head (n >= 1). */
static struct act__proc *chain_nth(struct act__ptable *t, uint32_t head,
				   uint32_t n)
{
	struct act__proc *p = &t->slots[head];

	while (--n)
		p = &t->slots[act__proc_free_next(p)];
	return p;
}

/* Refill an empty cache with up to a batch from home's shared list. */
static void refill(struct act__ptable *t, struct act__slot_cache *c,
		   uint32_t home)
{
	struct act__ptable_home *h = &t->homes[home];
	struct act__proc *last;
	uint32_t n;

	pool_lock(h);
	n = h->shared_n < ACT_SLOT_BATCH ? h->shared_n : ACT_SLOT_BATCH;
	if (n) {
		last = chain_nth(t, h->shared_head, n);
		c->head = h->shared_head;
		c->n = n;
		h->shared_head = act__proc_free_next(last);
		h->shared_n -= n;
		act__proc_set_free_next(last, UINT32_MAX);
	}
	pool_unlock(h);
}

/* A fresh slot from home's region, or NULL when it is used up. */
static struct act__proc *grow(struct act__ptable *t, uint32_t home)
{
	struct act__ptable_home *h = &t->homes[home];
	uint32_t n = atomic_load_explicit(&h->used, memory_order_relaxed);
	uint32_t i, top;
	struct act__proc *p;

	/* relaxed: the slot is set up below and published by the gen
	 * release; a CAS, not an add, so that used never passes the
	 * region's end, not even for a moment */
	do {
		if (n >= h->end - h->base)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(&h->used, &n, n + 1,
							memory_order_relaxed,
							memory_order_relaxed));
	/* counted before it is handed out: fresh >= slots ever occupied.
	 * relaxed: act__proc_slot_get's seq_cst load comes after, in this
	 * thread, and a spawn elsewhere reads its own grow's count */
	atomic_fetch_add_explicit(&t->fresh, 1, memory_order_relaxed);
	i = h->base + n;
	/* raise the lookup bound to i + 1. relaxed: whoever learns the pid
	 * learns it after this (its own synchronisation with us), and
	 * coherence then shows it this value or a later, larger one */
	top = atomic_load_explicit(&t->hwm, memory_order_relaxed);
	while (top <= i && !atomic_compare_exchange_weak_explicit(
				   &t->hwm, &top, i + 1, memory_order_relaxed,
				   memory_order_relaxed))
		;
	p = &t->slots[i];
	p->index = i;
	act__mpsc_init(&p->mbox);
	/* release: pairs with the acquire gen load in act__proc_lookup, which
	 * then sees an initialised mailbox */
	atomic_store_explicit(&p->gen, 1, memory_order_release);
	return p;
}

/*
 * Own home first: its shared list, then fresh slots of its region. Only
 * then the other homes' fresh slots (a full region borrows), and last
 * their shared lists, with what this cache holds for them sent there
 * first: a slot on one is free, and the table is not full while any is.
 * A borrowed slot goes back to its own home when freed.
 */
static struct act__proc *get_slow(struct act__ptable *t,
				  struct act__slot_cache *c)
{
	struct act__proc *p;
	uint32_t k;

	refill(t, c, c->home);
	if (c->head != UINT32_MAX)
		return NULL;
	p = grow(t, c->home);
	for (k = 1; !p && k < t->nhomes; k++)
		p = grow(t, (c->home + k) % t->nhomes);
	if (p || t->nhomes == 1)
		return p;
	act__proc_flush_away(t, c);
	for (k = 1; c->head == UINT32_MAX && k < t->nhomes; k++)
		refill(t, c, (c->home + k) % t->nhomes);
	return NULL;
}

static struct act__proc *take(struct act__ptable *t, struct act__slot_cache *c)
{
	struct act__proc *p;

	if (c->head == UINT32_MAX) {
		p = get_slow(t, c);
		if (p || c->head == UINT32_MAX)
			return p;
	}
	p = &t->slots[c->head];
	c->head = act__proc_free_next(p);
	c->n--;
	return p;
}

/* Owner-written counts (act__count, seq_cst: the Dekker below). */
static void count_up(_Atomic uint64_t *v, memory_order mo)
{
	atomic_store_explicit(
		v, atomic_load_explicit(v, memory_order_relaxed) + 1, mo);
}

/*
 * More than max_alive fresh slots were handed out: count the processes
 * alive, this spawn's included (its born is counted), and admit it if
 * they are at most max_alive. Under count_lock, so two spawns at the
 * limit do not both pass; a refused one counts itself gone before the
 * next sums. Every born is read before every gone: the sum is then at
 * most the number alive at the moment the last born was read, so a
 * refusal means max_alive were alive (or being admitted) then.
 *
 * Dekker with the fast path of act__proc_slot_get: a spawn stores its born
 * (seq_cst), then loads fresh (seq_cst); this one loaded fresh > max
 * before its sum. A born this sum misses was stored after it, so that
 * spawn's fresh load comes later still and sees more than max_alive too:
 * it sums after this one, under the lock, and sees this one's born.
 */
static bool admit_counted(struct act__ptable *t, struct act__slot_cache *c)
{
	uint64_t born = 0, gone = 0;
	uint32_t i;
	bool ok;

	act__spin_lock(&t->count_lock); /* pairs with the unlock below */
	/* seq_cst: the load half of the Dekker pair with act__proc_slot_get's
	 * fast path (its seq_cst born, then its seq_cst load of fresh):
	 * the head comment */
	for (i = 0; i < t->ncaches; i++)
		born += atomic_load_explicit(&t->caches[i]->born,
					     memory_order_seq_cst);
	for (i = 0; i < t->ncaches; i++)
		gone += atomic_load_explicit(&t->caches[i]->gone,
					     memory_order_seq_cst);
	ok = born - gone <= t->max_alive;
	if (!ok) /* seq_cst: as every count_up of the Dekker above */
		count_up(&c->gone, memory_order_seq_cst);
	act__spin_unlock(&t->count_lock); /* pairs with the lock above */
	return ok;
}

/* p to the head of c's own list, or its away chain (another home's). */
static void cache_push(struct act__ptable *t, struct act__slot_cache *c,
		       struct act__proc *p);

struct act__proc *act__proc_slot_get(struct act__ptable *t,
				     struct act__slot_cache *c)
{
	struct act__proc *p = take(t, c);

	if (!p)
		return NULL;
	/* seq_cst store, then seq_cst load: this spawn's half of the
	 * Dekker pair with admit_counted */
	count_up(&c->born, memory_order_seq_cst);
	if (act__likely(atomic_load_explicit(&t->fresh, memory_order_seq_cst) <=
			t->max_alive))
		return p; /* alive <= fresh slots ever handed out <= max */
	if (admit_counted(t, c))
		return p;
	cache_push(t, c, p); /* never occupied: its generation stays */
	return NULL;
}

/* The away chain of home r to r's shared list. */
static void away_flush(struct act__ptable *t, struct act__slot_cache *c,
		       uint32_t r)
{
	struct act__slot_chain *ch = &c->away[r];
	struct act__ptable_home *h = &t->homes[r];

	pool_lock(h);
	act__proc_set_free_next(&t->slots[ch->tail], h->shared_head);
	h->shared_head = ch->head;
	h->shared_n += ch->n;
	pool_unlock(h);
	c->n_away -= ch->n;
	ch->head = ch->tail = UINT32_MAX;
	ch->n = 0;
}

void act__proc_slot_free(struct act__ptable *t, struct act__slot_cache *c,
			 struct act__proc *p)
{
	uint64_t gen = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;

	/* release: pairs with the acquire gen load in act__proc_lookup, so a
	 * lookup that sees the new generation sees the slot as free */
	atomic_store_explicit(&p->gen, gen, memory_order_release);
	atomic_store_explicit(
		&p->state,
		act__ps_make(act__ps_ticket(atomic_load_explicit(
				     &p->state, memory_order_relaxed)),
			     ACT_PS_FREE),
		memory_order_release);
	/* seq_cst: read by admit_counted after every born */
	count_up(&c->gone, memory_order_seq_cst);
	if (act__unlikely(gen > t->gen_max)) {
		/* no pid can name a generation past gen_max: the slot is
		 * out of use for good, and no stale pid of it can ever
		 * reach a new occupant (I5) */
		atomic_fetch_add_explicit(&t->retired, 1, memory_order_relaxed);
		return;
	}
	cache_push(t, c, p);
}

static void cache_push(struct act__ptable *t, struct act__slot_cache *c,
		       struct act__proc *p)
{
	struct act__ptable_home *h;
	struct act__slot_chain *ch;
	struct act__proc *last;
	uint32_t batch, r = act__proc_slot_home(t, p->index);

	if (r != c->home) {
		/* another home's: held back, then sent home in a batch */
		ch = &c->away[r];
		act__proc_set_free_next(p, ch->head);
		if (!ch->n)
			ch->tail = p->index;
		ch->head = p->index;
		c->n_away++;
		if (++ch->n >= ACT_SLOT_AWAY_BATCH)
			away_flush(t, c, r);
		return;
	}
	act__proc_set_free_next(p, c->head);
	c->head = p->index;
	if (++c->n <= ACT_SLOT_CACHE_MAX)
		return;
	/* spill the newest ACT_SLOT_BATCH; the walk is outside the lock */
	h = &t->homes[c->home];
	batch = c->head;
	last = chain_nth(t, batch, ACT_SLOT_BATCH);
	c->head = act__proc_free_next(last);
	c->n -= ACT_SLOT_BATCH;
	pool_lock(h);
	act__proc_set_free_next(last, h->shared_head);
	h->shared_head = batch;
	h->shared_n += ACT_SLOT_BATCH;
	pool_unlock(h);
}

void act__proc_flush_away(struct act__ptable *t, struct act__slot_cache *c)
{
	uint32_t r;

	for (r = 0; c->n_away && r < t->nhomes; r++)
		if (c->away[r].n)
			away_flush(t, c, r);
}

static uint64_t chain_len(const struct act__ptable *t, uint32_t head)
{
	uint64_t n = 0;

	for (; head != UINT32_MAX; head = act__proc_free_next(&t->slots[head]))
		n++;
	return n;
}

uint64_t act__proc_cache_free(const struct act__ptable *t,
			      const struct act__slot_cache *c)
{
	uint64_t n = chain_len(t, c->head);
	uint32_t r;

	for (r = 0; c->away && r < t->nhomes; r++)
		n += chain_len(t, c->away[r].head);
	return n;
}

uint64_t act__proc_table_shared_free(const struct act__ptable *t)
{
	uint64_t n = 0;
	uint32_t r;

	for (r = 0; r < t->nhomes; r++)
		n += chain_len(t, t->homes[r].shared_head);
	return n;
}

void act__proc_table_destroy(struct act__ptable *t)
{
	if (t->slots)
		munmap(t->slots, t->map_len);
	t->slots = NULL;
	free(t->homes);
	t->homes = NULL;
	free(t->caches);
	t->caches = NULL;
	t->ncaches = 0;
}
