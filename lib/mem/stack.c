/* SPDX-License-Identifier: MIT */
/* stack.c - process stacks and their guards; see stack.h for the design. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "actors.h"
#include "base/fail.h"
#include "base/internal.h"
#include "affinity/homes.h"
#include "stack.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

#define CHUNK_BYTES ((size_t)16 << 20)
#define CHUNK_MAX_UNITS 1024u /* IOV_MAX: one process_madvise per chunk */
#define CANARY 0x5ac7095ac7095ac7ull

static int guard_mode; /* enum act_guard, decided at init */
/*
 * Set when a chunk could not be mapped (the address space or memory is
 * exhausted), cleared when one could again. Meanwhile a freed stack goes
 * to its home's shared list at once instead of the freeing worker's
 * cache, and an idle worker spills its cache there, so that a spawn on
 * any worker finds the stacks that processes gave back anywhere. Relaxed:
 * a hint; a stack cached just before the flag was seen goes to the shared
 * list when its worker next idles.
 */
static _Atomic bool famine;
static int self_pidfd = -1; /* for process_madvise on ourselves */
/* guards mprotect may still split off; any worker that grows a pool
 * takes from it (relaxed RMWs: a count, ordering nothing else) */
static _Atomic long mprotect_budget;

static bool madvise_guard_works(void)
{
	void *p = mmap(NULL, 2 * ACT_GUARD_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov = { p, ACT_GUARD_SIZE };
	bool ok;

	if (p == MAP_FAILED)
		return false;
	self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	ok = self_pidfd >= 0 &&
	     syscall(SYS_process_madvise, self_pidfd, &iov, 1,
		     MADV_GUARD_INSTALL, 0) == (long)ACT_GUARD_SIZE;
	munmap(p, 2 * ACT_GUARD_SIZE);
	if (!ok && self_pidfd >= 0) {
		close(self_pidfd);
		self_pidfd = -1;
	}
	return ok;
}

long act__stack_read_max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
	long v = 65530;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 65530;
		fclose(f);
	}
	return v;
}

int act__stack_global_init(int requested, uint32_t test_budget)
{
	if (requested == ACT_GUARD_AUTO || requested == ACT_GUARD_MADVISE) {
		if (madvise_guard_works()) {
			guard_mode = ACT_GUARD_MADVISE;
			return 0;
		}
		if (requested == ACT_GUARD_MADVISE)
			return -EOPNOTSUPP;
	}
	if (requested == ACT_GUARD_CANARY) {
		guard_mode = ACT_GUARD_CANARY;
		return 0;
	}
	guard_mode = ACT_GUARD_MPROTECT;
	/* each guard splits one mapping into two more; keep half the map
	 * count for the rest of the program (test_budget: the tests'
	 * smaller one) */
	atomic_store_explicit(&mprotect_budget,
			      test_budget ? (long)test_budget :
					    act__stack_read_max_map_count() / 4,
			      memory_order_relaxed);
	return 0;
}

static void shared_reset(void);

void act__stack_global_fini(void)
{
	shared_reset(); /* the chunks it points into are gone */
	if (self_pidfd >= 0)
		close(self_pidfd);
	self_pidfd = -1;
}

int act__stack_guard_mode(void)
{
	return guard_mode;
}

long act__stack_mprotect_budget(void)
{
	return atomic_load_explicit(&mprotect_budget, memory_order_relaxed);
}

/*
 * A unit of a chunk: [pad][guard][stack]. The pad, a page or none, makes
 * the unit an odd number of pages, so that the tops of consecutive stacks
 * fall on 16 different page offsets in every 64 KiB: with units of 128
 * KiB (64 KiB stacks, 64 KiB guards) every top sat at the same offset, all
 * in the same few sets of the L2 cache, and a ring of 503 processes,
 * which touches each top in turn, ran 1.2-1.3x slower than with the one
 * page guard. The pad is mapped and nobody's, below the guard.
 */
static size_t unit_of(size_t size)
{
	size_t unit = size + ACT_GUARD_SIZE;

	return (unit / 4096) % 2 ? unit : unit + 4096;
}

/* A guard batch the kernel refused: its stacks get canaries; said once
 * per process (relaxed: a flag, nothing hangs on it). */
static void madvise_failed(int e)
{
	static _Atomic bool said;

	if (!atomic_exchange_explicit(&said, true, memory_order_relaxed))
		fprintf(stderr,
			"actors: MADV_GUARD_INSTALL failed (%s): the stacks it "
			"was for are checked by a canary instead\n",
			strerror(e));
}

/*
 * Returns how many of the chunk's n units (from the start) got a guard.
 * Runs on the spawning process's stack, which may be as small as 16 KiB:
 * the iovec array lives in the heap, never in this frame.
 */
static uint32_t guard_chunk(char *base, size_t unit, size_t pad, uint32_t n)
{
	struct iovec *iov;
	long done;
	uint32_t i;

	if (guard_mode == ACT_GUARD_MADVISE) {
		iov = malloc(n * sizeof(*iov));
		if (!iov)
			return 0; /* no guards: canaries for this chunk */
		for (i = 0; i < n; i++) {
			iov[i].iov_base = base + (size_t)i * unit + pad;
			iov[i].iov_len = ACT_GUARD_SIZE;
		}
		/* in order; a short count (e.g. ENOMEM for page tables part
		 * way) leaves the rest of the chunk to canaries */
		if (ACT_FAIL(ACT_FAIL_MADVISE)) {
			done = -1;
			errno = ENOMEM;
		} else {
			done = syscall(SYS_process_madvise, self_pidfd, iov, n,
				       MADV_GUARD_INSTALL, 0);
		}
		if (done < 0)
			madvise_failed(errno);
		free(iov);
		return done < 0 ? 0 : (uint32_t)(done / ACT_GUARD_SIZE);
	}
	for (i = 0; guard_mode == ACT_GUARD_MPROTECT && i < n; i++) {
		/* a take, not a look then a store: two workers growing
		 * their pools at once each take their own */
		if (atomic_fetch_sub_explicit(&mprotect_budget, 1,
					      memory_order_relaxed) <= 0 ||
		    mprotect(base + (size_t)i * unit + pad, ACT_GUARD_SIZE,
			     PROT_NONE)) {
			atomic_fetch_add_explicit(&mprotect_budget, 1,
						  memory_order_relaxed);
			break; /* out of budget: canary only from here on */
		}
	}
	return i;
}

static int pool_grow(struct act__stack_cache *c, struct act__stack_pool *pl)
{
	size_t unit = unit_of(pl->size);
	size_t pad = unit - pl->size - ACT_GUARD_SIZE;
	uint32_t n = (uint32_t)(CHUNK_BYTES / unit);
	struct act__stack_chunk *cs;
	char *base;

	if (n < 4)
		n = 4;
	if (n > CHUNK_MAX_UNITS)
		n = CHUNK_MAX_UNITS;
	if (pl->n_chunks == pl->cap_chunks) {
		uint32_t cap = pl->cap_chunks ? 2 * pl->cap_chunks : 16;

		cs = realloc(pl->chunks, cap * sizeof(*cs));
		if (!cs)
			return -ENOMEM;
		pl->chunks = cs;
		pl->cap_chunks = cap;
	}
	base = ACT_FAIL(ACT_FAIL_MMAP) ?
		       MAP_FAILED :
		       mmap(NULL, unit * n, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		if (!atomic_load_explicit(&famine, memory_order_relaxed))
			atomic_store_explicit(&famine, true,
					      memory_order_relaxed);
		return -ENOMEM;
	}
	if (act__unlikely(atomic_load_explicit(&famine, memory_order_relaxed)))
		atomic_store_explicit(&famine, false, memory_order_relaxed);
	/* before the guards: mprotect splits inherit the policy */
	act__homes_place(c->numa, pl->home, base, unit * n);
	pl->guarded_left = guard_chunk(base, unit, pad, n);
	pl->chunks[pl->n_chunks++] =
		(struct act__stack_chunk){ base, unit * n };
	pl->bump = base;
	pl->bump_end = base + unit * n;
	return 0;
}

/* c's pool of stacks of `size` from `home`, made if need be. It may move
 * the pools: a pointer to another pool does not survive the call. */
static struct act__stack_pool *pool_for(struct act__stack_cache *c, int home,
					size_t size)
{
	struct act__stack_pool *pl;
	uint32_t i;

	for (i = 0; i < c->n_pools; i++)
		if (c->pools[i].size == size && c->pools[i].home == home)
			return &c->pools[i];
	pl = realloc(c->pools, (c->n_pools + 1) * sizeof(*pl));
	if (!pl)
		return NULL;
	c->pools = pl;
	pl = &c->pools[c->n_pools++];
	memset(pl, 0, sizeof(*pl));
	pl->size = size;
	pl->home = home;
	return pl;
}

static void canary_write(void *lo)
{
	uint64_t *w = lo;

	w[0] = CANARY ^ (uintptr_t)lo;
	w[1] = CANARY;
}

bool act__stack_canary_ok(const void *lo)
{
	const uint64_t *w = lo;

	return w[0] == (CANARY ^ (uintptr_t)lo) && w[1] == CANARY;
}

/*
 * The top 16 bytes of every stack belong to the cache: the free-list link
 * at top - 8 and the flags at top - 16: FLAG_UNGUARDED, and the stack's
 * home from bit FLAG_HOME_SHIFT on. Both are written once, when the stack
 * is carved. The process's frames start below them (act__stack_hi).
 */
#define FLAG_UNGUARDED 1ull
#define FLAG_HOME_SHIFT 8

/* The cache's words at a free stack's top: its flags, then its link. */
#define STACK_TOP_WORDS 16

static void **top_link(void *lo, size_t size)
{
	return (void **)((char *)lo + size - 8);
}

static uint64_t *top_flags(void *lo, size_t size)
{
	return (uint64_t *)((char *)lo + size - 16);
}

static bool unit_guarded(struct act__stack_pool *pl)
{
	return guard_mode != ACT_GUARD_CANARY && pl->guarded_left > 0;
}

/*
 * Free stacks shared between workers, one set of lists per home. A
 * process's stack is freed where it exits, which need not be where it was
 * spawned: past STACK_CACHE_MAX a worker's pool spills a batch to its
 * home's list, and an empty pool refills from there before it carves new
 * stacks. A stack of another home is held in an away pool and goes to
 * its home's list STACK_AWAY_BATCH at a time, or when the worker goes
 * idle (act__stack_flush_away). Each home's lists are guarded by its
 * lock (a spinlock held to link or walk one batch), on a line of its
 * own; one list per stack size, for up to SHARED_SIZES sizes (stacks of
 * rarer sizes stay with the worker that frees them).
 */
#define STACK_CACHE_MAX 256u
#define STACK_BATCH 128u
#define STACK_AWAY_BATCH 32u
#define SHARED_SIZES 8

/*
 * Cold stacks. A free stack whose pages were given back (act__stack_trim:
 * MADV_DONTNEED on the whole stack, its top page with the rest, which is
 * all most processes touch) has lost the cache's words at its top, the
 * link and the flags, and must not get them back before a spawn takes
 * it: that would fault the top page in again. So cold stacks are kept by
 * address, in blocks of COLD_PER_BLOCK (1 KiB), each stack's lo with
 * COLD_UNGUARDED set for one without a guard (lo is page-aligned), the
 * block naming their home; a spawn that takes one writes its flags (and
 * its canary) anew. A home's shared list holds cold blocks beside its
 * warm chain; a pool holds at most one, taken whole when it has no warm
 * stack left, and freed when used up.
 */
#define COLD_PER_BLOCK 126u
#define COLD_UNGUARDED ((uintptr_t)1)

struct act__stack_cold {
	struct act__stack_cold *next;
	uint32_t n;
	int home;
	uintptr_t lo[COLD_PER_BLOCK];
};

struct shared_list {
	size_t size;
	void *top; /* chain linked like a pool's free list */
	uint32_t n;
	struct act__stack_cold *cold; /* blocks of cold stacks */
	uint32_t n_cold;
};

static struct shared_home {
	_Atomic uint32_t lock act__aligned; /* each home on lines of its own */
	struct shared_list l[SHARED_SIZES];
	uint32_t n_warm; /* warm stacks on the lists, under the lock */
	/* n_warm for a look without the lock (an idle worker's, in
	 * act__stack_trim): relaxed, a hint written under the lock */
	_Atomic uint32_t warm_hint;
} shared[ACT_NUMA_MAX];

/*
 * Stacks a trim has cut off a list and not yet put back (cold, or warm
 * again) are on no list: a spawn in a famine would find nothing and
 * fail with them a few microseconds from coming back. trims_busy counts
 * the trims in that window, trims_done those that left it; both move
 * under the home's lock, seq_cst, and famine_wait reads them.
 */
static _Atomic uint32_t trims_busy;
static _Atomic uint32_t trims_done;

void (*act__stack_trim_hook)(void);

static void cold_free_all(struct act__stack_cold *b)
{
	struct act__stack_cold *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
}

static void shared_reset(void)
{
	int h, i;

	for (h = 0; h < ACT_NUMA_MAX; h++)
		for (i = 0; i < SHARED_SIZES; i++)
			cold_free_all(shared[h].l[i].cold);
	memset(shared, 0, sizeof(shared));
}

/* Caller holds home's lock: its warm count moved by n. */
static void shared_warm_add(int home, int32_t n)
{
	shared[home].n_warm += (uint32_t)n;
	atomic_store_explicit(&shared[home].warm_hint, shared[home].n_warm,
			      memory_order_relaxed);
}

static void shared_lock_take(int home)
{
	act__spin_lock(&shared[home].lock); /* pairs with shared_lock_drop */
}

static void shared_lock_drop(int home)
{
	act__spin_unlock(&shared[home].lock); /* pairs with shared_lock_take */
}

/* Caller holds home's lock. Its list for size, made if need be and
 * `make`; NULL when there is none. */
static struct shared_list *shared_find(int home, size_t size, bool make)
{
	struct shared_list *l = shared[home].l;
	int i;

	for (i = 0; i < SHARED_SIZES && l[i].size; i++)
		if (l[i].size == size)
			return &l[i];
	if (i == SHARED_SIZES || !make)
		return NULL;
	l[i].size = size;
	return &l[i];
}

static struct shared_list *shared_for(int home, size_t size)
{
	return shared_find(home, size, true);
}

/* The stack n-1 links after top (n >= 1), as a top address. */
static void *chain_nth(void *top, size_t size, uint32_t n)
{
	while (--n)
		top = *top_link((char *)top - size, size);
	return top;
}

/* Refill an empty pool from home's list (its own home's, but for a
 * famine: act__stack_get): a batch of warm stacks, else a block of cold
 * ones. Its stacks keep their home: each goes back there when freed. */
static void pool_refill_from(struct act__stack_pool *pl, int home)
{
	struct shared_list *l;
	void *last;
	uint32_t n;

	shared_lock_take(home);
	l = shared_for(home, pl->size);
	n = !l ? 0 : l->n < STACK_BATCH ? l->n : STACK_BATCH;
	if (n) {
		last = chain_nth(l->top, pl->size, n);
		pl->free_top = l->top;
		pl->n_free = n;
		l->top = *top_link((char *)last - pl->size, pl->size);
		l->n -= n;
		*top_link((char *)last - pl->size, pl->size) = NULL;
		shared_warm_add(home, -(int32_t)n);
	} else if (l && l->cold && !pl->cold) {
		pl->cold = l->cold;
		l->cold = pl->cold->next;
		l->n_cold -= pl->cold->n;
		pl->cold->next = NULL;
	}
	shared_lock_drop(home);
}

static void pool_refill(struct act__stack_pool *pl)
{
	pool_refill_from(pl, pl->home);
}

/* The newest n (1 <= n <= n_free) stacks of pl to its home's list. */
static void pool_spill(struct act__stack_pool *pl, uint32_t n)
{
	void *batch = pl->free_top, *last;
	struct shared_list *l;

	/* the walk is outside the lock */
	last = chain_nth(batch, pl->size, n);
	shared_lock_take(pl->home);
	l = shared_for(pl->home, pl->size);
	if (!l) { /* a ninth size: its stacks stay with this worker */
		shared_lock_drop(pl->home);
		pl->no_spill = true;
		return;
	}
	pl->free_top = *top_link((char *)last - pl->size, pl->size);
	pl->n_free -= n;
	*top_link((char *)last - pl->size, pl->size) = l->top;
	l->top = batch;
	l->n += n;
	shared_warm_add(pl->home, (int32_t)n);
	shared_lock_drop(pl->home);
}

/* A cold stack of pl's block, its flags (and canary) written anew. */
static void *cold_take(struct act__stack_pool *pl)
{
	struct act__stack_cold *b = pl->cold;
	uintptr_t e = b->lo[--b->n];
	void *s = (void *)(e & ~COLD_UNGUARDED);

	*top_flags(s, pl->size) = ((uint64_t)b->home << FLAG_HOME_SHIFT) |
				  (e & COLD_UNGUARDED ? FLAG_UNGUARDED : 0);
	if (e & COLD_UNGUARDED) {
		act__asan_unpoison(s, 16); /* put poisoned the canary's */
		canary_write(s);
	}
	if (!b->n) {
		free(b);
		pl->cold = NULL;
	}
	return s;
}

/* A famine: pl's cold block back to its home's list, for any worker. */
static void cold_give_back(struct act__stack_pool *pl)
{
	struct act__stack_cold *b = pl->cold;
	struct shared_list *l;

	shared_lock_take(b->home);
	l = shared_for(b->home, pl->size);
	if (l) {
		b->next = l->cold;
		l->cold = b;
		l->n_cold += b->n;
		pl->cold = NULL;
	}
	shared_lock_drop(b->home);
}

/*
 * No memory: what other workers gave back meanwhile (famine sends it to
 * the shared lists), of this home or another; again after a trim that
 * held stacks off the lists meanwhile has put them back.
 */
static void famine_refill(struct act__stack_cache *c,
			  struct act__stack_pool *pl)
{
	unsigned spins = 0;
	uint32_t done, busy;
	int h;

	for (;;) {
		/* seq_cst: pairs with act__stack_trim's fetch_add of
		 * trims_done, made before its trims_busy goes down */
		done = atomic_load(&trims_done);
		for (h = 0; !pl->free_top && !pl->cold && h < ACT_NUMA_MAX; h++)
			pool_refill_from(pl, (c->home + h) % ACT_NUMA_MAX);
		if (pl->free_top || pl->cold)
			return;
		/* seq_cst: pairs with act__stack_trim's fetch_add and
		 * fetch_sub of trims_busy around its window */
		busy = atomic_load(&trims_busy);
		/* seq_cst: pairs with act__stack_trim's fetch_add of
		 * trims_done: a trim that ended during the pass above */
		if (!busy && atomic_load(&trims_done) == done)
			return;
		/* seq_cst: pairs with the fetch_sub of trims_busy in
		 * act__stack_trim */
		while (atomic_load(&trims_busy))
			act__spin_backoff(&spins);
	}
}

int act__stack_get(struct act__stack_cache *c, size_t size, void **lo,
		   bool *canary)
{
	struct act__stack_pool *pl;
	void *s;
	int rc;

	if (ACT_FAIL(ACT_FAIL_STACK))
		return -ENOMEM;
	pl = pool_for(c, c->home, size);
	if (!pl)
		return -ENOMEM;
	/* warm first, then cold, then carved, then the home's list */
	if (!pl->free_top && !pl->cold && pl->bump == pl->bump_end)
		pool_refill(pl);
	if (!pl->free_top && !pl->cold && pl->bump == pl->bump_end) {
		rc = pool_grow(c, pl);
		if (rc)
			famine_refill(c, pl);
		if (!pl->free_top && !pl->cold && pl->bump == pl->bump_end)
			return rc;
	}
	if (pl->free_top) {
		s = (char *)pl->free_top - size;
		pl->free_top = *top_link(s, size);
		pl->n_free--;
	} else if (pl->cold) {
		s = cold_take(pl);
	} else {
		s = pl->bump + unit_of(size) - size;
		pl->bump += unit_of(size);
		*top_flags(s, size) = ((uint64_t)pl->home << FLAG_HOME_SHIFT) |
				      (unit_guarded(pl) ? 0 : FLAG_UNGUARDED);
		if (pl->guarded_left)
			pl->guarded_left--;
		if (*top_flags(s, size) & FLAG_UNGUARDED)
			canary_write(s);
	}
	/* ASan: a cached stack was poisoned below its top words (put) */
	act__asan_unpoison(s, size - STACK_TOP_WORDS);
	*lo = s;
	*canary = (*top_flags(s, size) & FLAG_UNGUARDED) != 0;
	c->n_out++;
	return 0;
}

void *act__stack_hi(void *lo, size_t size)
{
	return (char *)lo + size - 16;
}

int act__stack_home(const void *lo, size_t size)
{
	return (int)(*top_flags((void *)lo, size) >> FLAG_HOME_SHIFT);
}

/*
 * Stacks of a rare size (no shared list for it on their home: pool_spill
 * set no_spill) in away pool i go to c's own pool of that size, to be
 * reused here, off their node, rather than held for ever.
 */
static void away_keep(struct act__stack_cache *c, uint32_t i)
{
	struct act__stack_pool *own = pool_for(c, c->home, c->pools[i].size);
	struct act__stack_pool *pl = &c->pools[i]; /* after pool_for */
	void *s;

	if (!own)
		return; /* out of memory: held until the next try */
	while (pl->free_top) {
		s = (char *)pl->free_top - pl->size;
		pl->free_top = *top_link(s, pl->size);
		pl->n_free--;
		c->n_away--;
		*top_link(s, pl->size) = own->free_top;
		own->free_top = (char *)s + pl->size;
		own->n_free++;
	}
}

/* Away pool i's stacks to their home's shared list. */
static void away_flush(struct act__stack_cache *c, uint32_t i)
{
	struct act__stack_pool *pl = &c->pools[i];
	uint32_t n = pl->n_free;

	if (!pl->no_spill)
		pool_spill(pl, n);
	if (!pl->no_spill)
		c->n_away -= n;
	else
		away_keep(c, i);
}

void act__stack_put(struct act__stack_cache *c, void *lo, size_t size)
{
	struct act__stack_pool *pl;
	int home;

	/* a process that exits or is killed deep in its calls leaves
	 * ASan's redzones of the frames it never returned from: the next
	 * process on this stack must not find them */
	act__asan_unpoison(lo, size);
	/* and then, under ASan, nothing may touch it until a spawn takes it
	 * again but the cache's own words at its top: a use of a dead
	 * process's stack (a pointer to its locals kept) is reported */
	act__asan_poison(lo, size - STACK_TOP_WORDS);
	home = act__stack_home(lo, size);
	pl = pool_for(c, home, size);
	if (!pl)
		act__fatal("no pool for a stack of %zu bytes", size);
	*top_link(lo, size) = pl->free_top;
	pl->free_top = (char *)lo + size;
	c->n_out--;
	++pl->n_free;
	if (home == c->home) {
		if (act__unlikely(atomic_load_explicit(&famine,
						       memory_order_relaxed)) &&
		    !pl->no_spill)
			pool_spill(pl, pl->n_free); /* for any worker */
		else if (pl->n_free > STACK_CACHE_MAX && !pl->no_spill)
			pool_spill(pl, STACK_BATCH);
		return;
	}
	/* a stack of another home: back to it, a batch at a time (at once
	 * in a famine: a spawn there may be waiting for it) */
	c->n_away++;
	if (pl->n_free >= STACK_AWAY_BATCH || pl->no_spill ||
	    act__unlikely(atomic_load_explicit(&famine, memory_order_relaxed)))
		away_flush(c, (uint32_t)(pl - c->pools));
}

void act__stack_flush_away(struct act__stack_cache *c)
{
	bool all = atomic_load_explicit(&famine, memory_order_relaxed);
	struct act__stack_pool *pl;
	uint32_t i;

	for (i = 0; (c->n_away || all) && i < c->n_pools; i++) {
		pl = &c->pools[i];
		if (pl->home != c->home && pl->n_free)
			away_flush(c, i);
		else if (all && pl->n_free && !pl->no_spill)
			pool_spill(pl, pl->n_free); /* famine: for any worker */
		if (all && pl->cold)
			cold_give_back(pl);
	}
}

/*
 * The pages of n stacks of `size` (iov) back to the system. One
 * process_madvise for the lot where the kernel takes MADV_DONTNEED from
 * it (6.13 and later, for the caller itself; self_pidfd exists where
 * guards are MADV_GUARD_INSTALL's) and flushes the TLB once for them all
 * (6.16): 4 us a stack against 30 us for one madvise each, measured in
 * this VM, where each flush is dear. Else, or on any shortfall, one
 * madvise each (again for those done: nothing left to zap, 1 us).
 */
static void release(struct iovec *iov, uint32_t n, size_t size)
{
	uint32_t i;

	if (self_pidfd >= 0 &&
	    syscall(SYS_process_madvise, self_pidfd, iov, n, MADV_DONTNEED,
		    0) == (long)((size_t)n * size))
		return;
	for (i = 0; i < n; i++)
		(void)madvise(iov[i].iov_base, size, MADV_DONTNEED);
}

/*
 * The stacks of chain top (linked like a free list, the last one's link
 * NULL, at most ACT_STACK_TRIM_MAX) given back to the system, into
 * blocks on *out; returns the first stack not given back (no memory for
 * a block), or NULL. Every link and flags word is read before any page
 * goes. Under ASan the stacks are poisoned (put): the kernel's zeroing
 * is no access of them.
 */
static void *chain_release(void *top, size_t size, int home,
			   struct act__stack_cold **out)
{
	struct act__stack_cold *b = NULL;
	struct iovec *iov = malloc(ACT_STACK_TRIM_MAX * sizeof(*iov));
	uint32_t n = 0;
	void *lo;
	bool unguarded;

	if (!iov)
		return top;
	while (top && n < ACT_STACK_TRIM_MAX) {
		if (!b || b->n == COLD_PER_BLOCK) {
			b = malloc(sizeof(*b));
			if (!b)
				break;
			b->next = *out;
			b->n = 0;
			b->home = home;
			*out = b;
		}
		lo = (char *)top - size;
		top = *top_link(lo, size);
		unguarded = *top_flags(lo, size) & FLAG_UNGUARDED;
		iov[n].iov_base = lo;
		iov[n++].iov_len = size;
		b->lo[b->n++] = (uintptr_t)lo |
				(unguarded ? COLD_UNGUARDED : 0);
	}
	release(iov, n, size);
	free(iov);
	return top;
}

bool act__stack_trim(struct act__stack_cache *c, uint32_t max)
{
	struct shared_home *sh = &shared[c->home];
	struct act__stack_cold *blocks = NULL, *b;
	struct shared_list *l = NULL;
	void *top = NULL, *last, *rest;
	size_t size = 0;
	uint32_t n = 0, i;

	if (!atomic_load_explicit(&sh->warm_hint, memory_order_relaxed))
		return false;
	if (max > ACT_STACK_TRIM_MAX)
		max = ACT_STACK_TRIM_MAX;
	shared_lock_take(c->home);
	for (i = 0; !n && i < SHARED_SIZES && sh->l[i].size; i++) {
		l = &sh->l[i];
		n = l->n < max ? l->n : max;
	}
	if (n) { /* the newest n of list l, cut off */
		size = l->size;
		top = l->top;
		last = (char *)chain_nth(top, size, n) - size;
		l->top = *top_link(last, size);
		l->n -= n;
		*top_link(last, size) = NULL;
		shared_warm_add(c->home, -(int32_t)n);
		/* seq_cst: the famine loop of act__stack_get reads it;
		 * taken back below, once the stacks are on a list again */
		atomic_fetch_add(&trims_busy, 1);
	}
	shared_lock_drop(c->home);
	if (!n)
		return false;
	if (act__stack_trim_hook)
		act__stack_trim_hook();
	rest = chain_release(top, size, c->home, &blocks);
	for (n = 0, last = rest; last;
	     last = *top_link((char *)last - size, size))
		n++; /* not given back: warm again (no memory for a block) */
	shared_lock_take(c->home);
	l = shared_for(c->home, size); /* there: lists are never taken away */
	while (blocks) {
		b = blocks;
		blocks = b->next;
		b->next = l->cold;
		l->cold = b;
		l->n_cold += b->n;
	}
	if (rest) {
		last = chain_nth(rest, size, n);
		*top_link((char *)last - size, size) = l->top;
		l->top = rest;
		l->n += n;
		shared_warm_add(c->home, (int32_t)n);
	}
	/* seq_cst, done before busy: a famine loop that saw busy at 0
	 * and done unchanged found every stack of this trim on a list */
	atomic_fetch_add(&trims_done, 1);
	atomic_fetch_sub(&trims_busy, 1);
	shared_lock_drop(c->home);
	return !rest;
}

void act__stack_cache_set_home(struct act__stack_cache *c,
			       struct act__numa *numa, int home)
{
	c->numa = numa;
	c->home = home;
}

/* How many stacks of chain top (linked like a free list) name a home
 * other than `home`. */
static uint32_t chain_strangers(void *top, size_t size, int home)
{
	uint32_t n = 0;
	void *s;

	for (; top; top = *top_link(s, size)) {
		s = (char *)top - size;
		n += act__stack_home(s, size) != home;
	}
	return n;
}

uint32_t act__stack_shared_n(int home, size_t size, uint32_t *strangers)
{
	struct shared_list *l;
	uint32_t n;

	shared_lock_take(home);
	l = shared_find(home, size, false);
	n = l ? l->n + l->n_cold : 0;
	/* a cold stack is its block's home's: never a stranger */
	if (strangers)
		*strangers = l ? chain_strangers(l->top, size, home) : 0;
	shared_lock_drop(home);
	return n;
}

uint32_t act__stack_shared_cold_n(int home, size_t size)
{
	struct shared_list *l;
	uint32_t n;

	shared_lock_take(home);
	l = shared_find(home, size, false);
	n = l ? l->n_cold : 0;
	shared_lock_drop(home);
	return n;
}

/* Caller holds the lock of l's home: is lo among l's cold stacks? */
static bool cold_has(const struct shared_list *l, const void *lo)
{
	const struct act__stack_cold *b;
	uint32_t i;

	for (b = l->cold; b; b = b->next)
		for (i = 0; i < b->n; i++)
			if ((void *)(b->lo[i] & ~COLD_UNGUARDED) == lo)
				return true;
	return false;
}

bool act__stack_shared_has(int home, size_t size, const void *lo)
{
	struct shared_list *l;
	bool found = false;
	void *top, *s;

	shared_lock_take(home);
	l = shared_find(home, size, false);
	for (top = l ? l->top : NULL; top && !found; top = *top_link(s, size)) {
		s = (char *)top - size;
		found = s == lo;
	}
	found = found || (l && cold_has(l, lo));
	shared_lock_drop(home);
	return found;
}

uint32_t act__stack_cache_strangers(const struct act__stack_cache *c)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->n_pools; i++)
		if (c->pools[i].home == c->home)
			n += chain_strangers(c->pools[i].free_top,
					     c->pools[i].size, c->home);
	return n;
}

void act__stack_cache_destroy(struct act__stack_cache *c)
{
	uint32_t i, j;

	for (i = 0; i < c->n_pools; i++) {
		struct act__stack_pool *pl = &c->pools[i];

		for (j = 0; j < pl->n_chunks; j++) {
			/* ASan's shadow outlives the mapping: a later mmap
			 * at this address must not find the cache's poison */
			act__asan_unpoison(pl->chunks[j].base,
					   pl->chunks[j].len);
			munmap(pl->chunks[j].base, pl->chunks[j].len);
		}
		free(pl->chunks);
		cold_free_all(pl->cold);
	}
	free(c->pools);
	memset(c, 0, sizeof(*c));
}
