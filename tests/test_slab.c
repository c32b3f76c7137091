/* SPDX-License-Identifier: MIT */
/*
 * test_slab.c - message envelopes (lib/mem/slab.c): size classes, owner-local
 * LIFO reuse, remote frees from other threads and their return to the
 * owner, malloc'd ("foreign") envelopes, payload alignment, and the same
 * through a running runtime (act_send / act_msg_free).
 *
 * Unit tests without a runtime build a fake struct act__rt with a workers
 * array and give its slabs to act__slab_index_set, through which a
 * remote free finds the owning slab.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"

#include "proc/mailbox.h"
#include "node/runtime.h"
#include "mem/slab.h"
#include "sched/worker.h"

/* ---- helpers ------------------------------------------------------------ */

static struct act__rt *fake_rt(unsigned nworkers)
{
	struct act__rt *rt = calloc(1, sizeof(*rt));
	unsigned i;

	ck_assert_ptr_nonnull(rt);
	rt->workers =
		aligned_alloc(ACT_CACHELINE, nworkers * sizeof(*rt->workers));
	ck_assert_ptr_nonnull(rt->workers);
	memset(rt->workers, 0, nworkers * sizeof(*rt->workers));
	rt->nworkers = nworkers;
	for (i = 0; i < nworkers; i++)
		act__slab_init(&rt->workers[i].slab, (uint16_t)i);
	act__slab_init(&rt->foreign, (uint16_t)nworkers);
	act__slab_index_set(&rt->workers[0].slab, sizeof(*rt->workers),
			    nworkers, &rt->foreign);
	act__rt_current = rt;
	return rt;
}

static void fake_rt_free(struct act__rt *rt)
{
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++)
		act__slab_destroy(&rt->workers[i].slab);
	free(rt->workers);
	act__slab_destroy(&rt->foreign);
	act__slab_index_set(NULL, 0, 0, NULL);
	free(rt);
	act__rt_current = NULL;
}

static unsigned chunk_count(const struct act__slab *s)
{
	const struct act__slab_chunk *c;
	unsigned n = 0;

	for (c = s->chunks; c; c = c->next)
		n++;
	return n;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort v and assert no pointer appears twice. */
static void assert_distinct(void **v, size_t n)
{
	size_t i;

	qsort(v, n, sizeof(*v), cmp_ptr);
	for (i = 1; i < n; i++)
		ck_assert_msg(v[i] != v[i - 1], "envelope %p handed out twice",
			      v[i]);
}

static bool in_sorted(void **v, size_t n, void *p)
{
	return bsearch(&p, v, n, sizeof(*v), cmp_ptr) != NULL;
}

/* ---- size classes ------------------------------------------------------- */

START_TEST(class_selection)
{
	static const struct {
		size_t payload;
		unsigned cls;
	} cases[] = {
		{ 0, 0 },
		{ 1, 0 },
		{ 128 - ACT_ENV_HDR, 0 },
		{ 129 - ACT_ENV_HDR, 1 },
		{ 256 - ACT_ENV_HDR, 1 },
		{ 257 - ACT_ENV_HDR, 2 },
		{ 1024 - ACT_ENV_HDR, 3 },
		{ 1025 - ACT_ENV_HDR, 4 },
		{ 8192 - ACT_ENV_HDR, 6 },
		{ 8193 - ACT_ENV_HDR, 7 },
		{ 16384 - ACT_ENV_HDR, 7 },
		{ 16385 - ACT_ENV_HDR, ACT_SLAB_FOREIGN },
		{ 100000, ACT_SLAB_FOREIGN },
	};
	struct act__envelope *foreign[2];
	struct act__slab s;
	int64_t f0 = act__slab_foreign_outstanding();
	unsigned i, nf = 0;

	act__slab_init(&s, 3);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct act__envelope *e = act__slab_alloc(&s, cases[i].payload);

		ck_assert_ptr_nonnull(e);
		ck_assert_msg(e->cls == cases[i].cls,
			      "payload %zu: class %u, expected %u",
			      cases[i].payload, e->cls, cases[i].cls);
		if (e->cls == ACT_SLAB_FOREIGN) {
			ck_assert_uint_eq(e->worker, UINT16_MAX);
			ck_assert_uint_lt(nf, 2);
			foreign[nf++] = e;
		} else {
			ck_assert_uint_eq(e->worker, 3);
			/* the class holds header + payload */
			ck_assert_uint_ge((size_t)128 << e->cls,
					  ACT_ENV_HDR + cases[i].payload);
		}
		/* fill the whole payload: must not fault or overlap */
		memset((char *)e + ACT_ENV_HDR, 0x5a, cases[i].payload);
	}
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0 + 2);
	ck_assert_int_eq(act__slab_outstanding(&s),
			 (int64_t)(sizeof(cases) / sizeof(cases[0])) - 2);
	/* the foreign ones are malloc's, theirs to free (LeakSanitizer) */
	for (i = 0; i < nf; i++)
		act__slab_free(&s, foreign[i]);
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0);
	act__slab_destroy(&s);
}
END_TEST

START_TEST(no_slab_means_foreign)
{
	int64_t f0 = act__slab_foreign_outstanding();
	struct act__envelope *e = act__slab_alloc(NULL, 8);

	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->cls, ACT_SLAB_FOREIGN);
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0 + 1);
	act__slab_free(NULL, e);
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0);
}
END_TEST

START_TEST(too_big_fails)
{
	struct act__slab s;
	int64_t f0 = act__slab_foreign_outstanding();

	act__slab_init(&s, 0);
	ck_assert_ptr_null(act__slab_alloc(&s, ACT_SLAB_PAYLOAD_MAX + 1));
	ck_assert_ptr_null(act__slab_alloc(NULL, ACT_SLAB_PAYLOAD_MAX + 1));
	/* the largest: a message of ACT_MSG_MAX and a distribution
	 * forward's header (actor/message.h) */
	{
		struct act__envelope *e =
			act__slab_alloc(&s, ACT_SLAB_PAYLOAD_MAX);

		ck_assert_ptr_nonnull(e);
		act__slab_free(&s, e);
	}
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0);
	ck_assert_int_eq(act__slab_outstanding(&s), 0);
	act__slab_destroy(&s);
}
END_TEST

START_TEST(payload_aligned)
{
	static const size_t sizes[] = { 0,    1,    15,	   16,	  17,
					63,   64,   65,	   200,	  1000,
					4000, 8128, 16320, 16321, 70000 };
	struct act__slab s;
	struct act__envelope *e[sizeof(sizes) / sizeof(sizes[0])][3];
	unsigned i, j;

	act__slab_init(&s, 0);
	/* interleave classes so carving mixes sizes in one chunk */
	for (j = 0; j < 3; j++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			e[i][j] = act__slab_alloc(&s, sizes[i]);
			ck_assert_ptr_nonnull(e[i][j]);
			ck_assert_msg(((uintptr_t)e[i][j] + ACT_ENV_HDR) % 16 ==
					      0,
				      "payload of %zu bytes at %p", sizes[i],
				      (void *)((char *)e[i][j] + ACT_ENV_HDR));
		}
	for (j = 0; j < 3; j++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			act__slab_free(&s, e[i][j]);
	ck_assert_int_eq(act__slab_outstanding(&s), 0);
	act__slab_destroy(&s);
}
END_TEST

/* Many live envelopes of mixed sizes: no two overlap. */
START_TEST(no_overlap)
{
	enum { N = 3000 };
	static struct act__envelope *e[N];
	static size_t len[N];
	struct act__slab s;
	uint64_t x = 88172645463325252ull;
	size_t i, k;

	act__slab_init(&s, 0);
	for (i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 0 .. ACT_SLAB_MAX_PAYLOAD: always a slab class */
		len[i] = x % (ACT_SLAB_MAX_PAYLOAD + 1);
		e[i] = act__slab_alloc(&s, len[i]);
		ck_assert_ptr_nonnull(e[i]);
		ck_assert_uint_ne(e[i]->cls, ACT_SLAB_FOREIGN);
		memset((char *)e[i] + ACT_ENV_HDR, (int)(i & 0xff), len[i]);
		e[i]->msg.len = i; /* header words too */
	}
	for (i = 0; i < N; i++) {
		const unsigned char *p =
			(const unsigned char *)e[i] + ACT_ENV_HDR;

		ck_assert_uint_eq(e[i]->msg.len, i);
		for (k = 0; k < len[i]; k++)
			if (p[k] != (i & 0xff))
				ck_abort_msg("envelope %zu byte %zu written", i,
					     k);
	}
	ck_assert_int_eq(act__slab_outstanding(&s), N);
	for (i = 0; i < N; i++)
		act__slab_free(&s, e[i]);
	ck_assert_int_eq(act__slab_outstanding(&s), 0);
	act__slab_destroy(&s);
}
END_TEST

/* ---- owner-local reuse -------------------------------------------------- */

START_TEST(owner_lifo_reuse)
{
	struct act__slab s;
	struct act__envelope *a, *b, *c, *d;

	act__slab_init(&s, 0);
	a = act__slab_alloc(&s, 100);
	b = act__slab_alloc(&s, 100);
	ck_assert_ptr_ne(a, b);
	act__slab_free(&s, a);
	act__slab_free(&s, b);
	ck_assert_int_eq(act__slab_outstanding(&s), 0);
	c = act__slab_alloc(&s, 120); /* same class (256) */
	d = act__slab_alloc(&s, 65);
	ck_assert_ptr_eq(c, b); /* last freed, first reused */
	ck_assert_ptr_eq(d, a);
	ck_assert_int_eq(act__slab_outstanding(&s), 2);

	/* a freed envelope is not handed out for another class */
	act__slab_free(&s, c);
	d = act__slab_alloc(&s, 1000);
	ck_assert_ptr_ne(d, c);
	ck_assert_ptr_eq(act__slab_alloc(&s, 100), c);
	act__slab_destroy(&s);
}
END_TEST

START_TEST(owner_reuse_no_growth)
{
	enum { N = 5000 };
	static struct act__envelope *e[N];
	struct act__slab s;
	unsigned chunks, round, i;

	act__slab_init(&s, 0);
	for (i = 0; i < N; i++)
		e[i] = act__slab_alloc(&s, 64);
	chunks = chunk_count(&s);
	ck_assert_uint_gt(chunks, 1);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < N; i++)
			act__slab_free(&s, e[i]);
		for (i = 0; i < N; i++)
			e[i] = act__slab_alloc(&s, 64);
	}
	ck_assert_uint_eq(chunk_count(&s), chunks);
	ck_assert_int_eq(act__slab_outstanding(&s), N);
	act__slab_destroy(&s);
}
END_TEST

/*
 * With two homes each worker has a guest slab for the other: envelopes
 * carved there name (worker, home), go back there when their owner
 * frees them, and when another worker does, and are handed out again
 * only for that home.
 */
START_TEST(guest_slab_per_home)
{
	struct act__numa numa = { .nnodes = 2, .os = { -1, -1 } };
	struct act__rt *rt = fake_rt(2);
	struct act__slab *s0 = &rt->workers[0].slab, *s1 = &rt->workers[1].slab;
	struct act__slab *g;
	struct act__envelope *e, *f, *o;

	ck_assert_int_eq(act__slab_set_home(s0, &numa, 0), 0);
	ck_assert_int_eq(act__slab_set_home(s1, &numa, 1), 0);
	ck_assert_ptr_eq(act__slab_for(s0, 0), s0);
	ck_assert_ptr_eq(act__slab_for(s1, 1), s1);
	g = act__slab_for(s0, 1);
	ck_assert_ptr_ne(g, s0);
	ck_assert_int_eq(g->home, 1);
	ck_assert_ptr_null(g->guests);
	e = act__slab_alloc(g, 40);
	ck_assert_uint_eq(e->worker, 0);
	ck_assert_uint_eq(e->home, 1);
	o = act__slab_alloc(s0, 40);
	ck_assert_uint_eq(o->home, 0);
	ck_assert_uint_eq(chunk_count(g), 1);
	ck_assert_uint_eq(chunk_count(s0), 1);
	ck_assert_ptr_ne(g->chunks, s0->chunks);
	ck_assert_int_eq(act__slab_outstanding(s0), 2);
	/* its owner frees it: to the guest, not to the own slab */
	act__slab_free(s0, e);
	ck_assert_int_eq(act__slab_outstanding(s0), 1);
	f = act__slab_alloc(s0, 40);
	ck_assert_ptr_ne(f, e);
	act__slab_free(s0, f);
	ck_assert_ptr_eq(act__slab_alloc(g, 40), e);
	/* another worker frees it: back to the guest's remote list */
	act__slab_free(s1, e);
	act__slab_flush_remote(s1);
	ck_assert_int_eq(act__slab_outstanding(s0), 1);
	ck_assert_int_eq(act__slab_outstanding(s1), 0);
	ck_assert_ptr_eq(act__slab_alloc(g, 40), e);
	ck_assert_uint_eq(e->home, 1);
	act__slab_free(s1, e);
	act__slab_free(s1, o);
	act__slab_flush_remote(s1);
	ck_assert_int_eq(act__slab_outstanding(s0), 0);
	ck_assert_int_eq(act__slab_outstanding(s1), 0);
	fake_rt_free(rt);
}
END_TEST

/*
 * A slab carves only when what it carved before is in use: envelopes go
 * back to the slab they came from, and no other slab takes them. Slabs
 * used to take another worker's remote-freed envelopes before carving,
 * and made them theirs; then worker 0 took worker 1's, kept them on its
 * own free list, and worker 1 carved a second set: 2 x N envelopes on
 * one slab where N are ever in use (mailbox_flood's RSS bound failed on
 * it). Here: N carved on 1 and freed by 0, allocated on 0, freed by 0,
 * then allocated on 1 again.
 */
START_TEST(carves_only_what_is_in_use)
{
	enum { N = 5000 }; /* class 0: 2,047 to a chunk, so 3 chunks */
	struct act__rt *rt = fake_rt(2);
	struct act__slab *s0 = &rt->workers[0].slab, *s1 = &rt->workers[1].slab;
	struct act__envelope **e = calloc(N, sizeof(*e));
	unsigned i, c1;

	ck_assert_ptr_nonnull(e);
	for (i = 0; i < N; i++)
		e[i] = act__slab_alloc(s1, 40);
	c1 = chunk_count(s1);
	ck_assert_uint_eq(c1, 3);
	for (i = 0; i < N; i++) /* freed by worker 0: back to worker 1 */
		act__slab_free(s0, e[i]);
	act__slab_flush_remote(s0);
	ck_assert_int_eq(act__slab_outstanding(s1), 0);
	for (i = 0; i < N; i++) { /* worker 0 carves its own */
		e[i] = act__slab_alloc(s0, 40);
		ck_assert_uint_eq(e[i]->worker, 0);
	}
	ck_assert_uint_eq(chunk_count(s0), 3);
	for (i = 0; i < N; i++)
		act__slab_free(s0, e[i]);
	for (i = 0; i < N; i++) { /* worker 1 has its N back */
		e[i] = act__slab_alloc(s1, 40);
		ck_assert_uint_eq(e[i]->worker, 1);
	}
	ck_assert_uint_eq(chunk_count(s1), c1);
	for (i = 0; i < N; i++)
		act__slab_free(s1, e[i]);
	ck_assert_int_eq(act__slab_outstanding(s0), 0);
	ck_assert_int_eq(act__slab_outstanding(s1), 0);
	free(e);
	fake_rt_free(rt);
}
END_TEST

/* ---- remote frees ------------------------------------------------------- */

struct free_job {
	struct act__envelope **e;
	size_t n;
	struct act__slab *self;	 /* the freeing thread's slab, or NULL */
	struct act__slab *owner; /* the envelopes' slab */
	size_t held;		 /* outstanding before the flush */
};

static void *free_all(void *arg)
{
	struct free_job *j = arg;
	size_t i;

	for (i = 0; i < j->n; i++)
		act__slab_free(j->self, j->e[i]);
	/* a worker holds back at most a batch per owner and class */
	if (j->self)
		j->held = (size_t)act__slab_outstanding(j->owner);
	/* ... and hands it over before it waits */
	if (j->self)
		act__slab_flush_remote(j->self);
	return NULL;
}

/* Returns the remote frees the owner's slab counted (all N of them). */
static uint64_t remote_free_case(bool from_other_worker)
{
	enum { N = 1000 };
	struct act__rt *rt = fake_rt(2);
	struct act__slab *s = &rt->workers[0].slab;
	struct act__envelope *e[N];
	void *sorted[N];
	struct free_job job = { e, N,
				from_other_worker ? &rt->workers[1].slab : NULL,
				s, 0 };
	pthread_t t;
	unsigned chunks, i;
	uint64_t remote;

	for (i = 0; i < N; i++) {
		e[i] = act__slab_alloc(s, 300); /* class 2 (512 B) */
		ck_assert_uint_eq(e[i]->cls, 2);
		sorted[i] = e[i];
	}
	chunks = chunk_count(s);
	ck_assert_int_eq(act__slab_outstanding(s), N);
	ck_assert_int_eq(pthread_create(&t, NULL, free_all, &job), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	/* from a worker: batches of ACT_RFREE_BATCH, the rest held back */
	ck_assert_uint_eq(job.held,
			  from_other_worker ? N % ACT_RFREE_BATCH : 0);
	ck_assert_int_eq(act__slab_outstanding(s), 0);
	ck_assert_uint_eq(atomic_load(&s->n_remote_free), N);
	/* the other worker's slab did not adopt them */
	ck_assert_int_eq(act__slab_outstanding(&rt->workers[1].slab), 0);
	ck_assert_ptr_null(rt->workers[1].slab.free[2]);

	/* another class does not see them */
	{
		struct act__envelope *o = act__slab_alloc(s, 10);

		ck_assert_ptr_nonnull(o);
		qsort(sorted, N, sizeof(sorted[0]), cmp_ptr);
		ck_assert(!in_sorted(sorted, N, o));
		act__slab_free(s, o);
	}
	/* the owner's next allocs of the class get every one back */
	for (i = 0; i < N; i++) {
		e[i] = act__slab_alloc(s, 400);
		ck_assert_uint_eq(e[i]->cls, 2);
		ck_assert_msg(in_sorted(sorted, N, e[i]),
			      "alloc %u: %p is not a returned envelope", i,
			      (void *)e[i]);
	}
	ck_assert_uint_eq(chunk_count(s), chunks);
	assert_distinct((void **)e, N);
	ck_assert_int_eq(act__slab_outstanding(s), N);
	for (i = 0; i < N; i++)
		act__slab_free(s, e[i]);
	ck_assert_int_eq(act__slab_outstanding(s), 0);
	remote = atomic_load(&s->n_remote_free);
	fake_rt_free(rt);
	return remote;
}

START_TEST(remote_free_off_worker)
{
	ck_assert_uint_eq(remote_free_case(false), 1000);
}
END_TEST

START_TEST(remote_free_from_other_worker)
{
	ck_assert_uint_eq(remote_free_case(true), 1000);
}
END_TEST

struct churn {
	struct act__slab *s;
	_Atomic int *done;
	uint64_t allocs;
};

/* Owner side while others free: allocate (taking the remote lists as
 * they fill) and free locally. */
static void owner_churn(struct churn *c, int nthreads)
{
	struct act__envelope *held[64];
	int i;

	while (atomic_load(c->done) < nthreads) {
		for (i = 0; i < 64; i++) {
			held[i] = act__slab_alloc(c->s, 32);
			ck_assert_ptr_nonnull(held[i]);
			c->allocs++;
		}
		for (i = 0; i < 64; i++)
			act__slab_free(c->s, held[i]);
	}
}

struct conc_job {
	struct free_job fj;
	_Atomic int *start, *done;
};

static void *conc_free(void *arg)
{
	struct conc_job *j = arg;

	while (!atomic_load(j->start))
		;
	free_all(&j->fj);
	atomic_fetch_add(j->done, 1);
	return NULL;
}

START_TEST(remote_free_concurrent)
{
	enum { T = 4, PER = 100000, N = T * PER };
	struct act__rt *rt = fake_rt(1);
	struct act__slab *s = &rt->workers[0].slab;
	struct act__envelope **e = malloc(N * sizeof(*e));
	struct conc_job jobs[T];
	pthread_t th[T];
	_Atomic int start = 0, done = 0;
	struct churn ch = { s, &done, 0 };
	unsigned chunks;
	size_t i;

	ck_assert_ptr_nonnull(e);
	for (i = 0; i < N; i++) {
		e[i] = act__slab_alloc(s, 0);
		ck_assert_ptr_nonnull(e[i]);
	}
	for (i = 0; i < T; i++) {
		jobs[i] = (struct conc_job){
			{ e + i * PER, PER, NULL, NULL, 0 }, &start, &done
		};
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, conc_free, &jobs[i]), 0);
	}
	atomic_store(&start, 1);
	owner_churn(&ch, T);
	for (i = 0; i < T; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_uint_eq(atomic_load(&s->n_remote_free), N);
	ck_assert_int_eq(act__slab_outstanding(s), 0);

	/* every envelope is back, exactly once: N allocs need no new
	 * memory and hand out N distinct envelopes */
	chunks = chunk_count(s);
	for (i = 0; i < N; i++) {
		e[i] = act__slab_alloc(s, 128 - ACT_ENV_HDR);
		ck_assert_ptr_nonnull(e[i]);
	}
	ck_assert_uint_eq(chunk_count(s), chunks);
	ck_assert_int_eq(act__slab_outstanding(s), N);
	assert_distinct((void **)e, N);
	free(e);
	fake_rt_free(rt);
}
END_TEST

START_TEST(foreign_counted)
{
	enum { N = 10 };
	struct act__rt *rt = fake_rt(1);
	struct act__slab *s = &rt->workers[0].slab;
	int64_t f0 = act__slab_foreign_outstanding();
	struct act__envelope *e[N];
	struct free_job job = { e, N, NULL, NULL, 0 };
	pthread_t t;
	int i;

	for (i = 0; i < N; i++) {
		e[i] = i % 2 ? act__slab_alloc(s, 20000) :
			       act__slab_alloc(NULL, 16);
		ck_assert_uint_eq(e[i]->cls, ACT_SLAB_FOREIGN);
		ck_assert_int_eq(act__slab_foreign_outstanding(), f0 + i + 1);
	}
	ck_assert_int_eq(act__slab_outstanding(s), 0);
	act__slab_free(s, e[0]); /* by a worker */
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0 + N - 1);
	job.e = e + 1;
	job.n = N - 1;
	ck_assert_int_eq(pthread_create(&t, NULL, free_all, &job), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(act__slab_foreign_outstanding(), f0);
	ck_assert_uint_eq(atomic_load(&s->n_remote_free), 0);
	fake_rt_free(rt);
}
END_TEST

/* ---- through a runtime -------------------------------------------------- */

static const size_t rt_sizes[] = { 0,	 1,    7,     8,     9,	    15,
				   16,	 17,   63,    64,    65,    100,
				   1000, 8192, 16320, 16321, 100000 };

static void align_main(void *arg)
{
	act_pid me = act_self();
	char *buf = malloc(100000);
	unsigned i;
	size_t k;

	(void)arg;
	for (k = 0; k < 100000; k++)
		buf[k] = (char)(k * 7);
	for (i = 0; i < sizeof(rt_sizes) / sizeof(rt_sizes[0]); i++)
		ck_assert_int_eq(act_send(me, i, buf, rt_sizes[i]), 0);
	for (i = 0; i < sizeof(rt_sizes) / sizeof(rt_sizes[0]); i++) {
		struct act_msg *m = act_receive(0);

		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, i);
		ck_assert_uint_eq(m->len, rt_sizes[i]);
		if (!m->len) {
			ck_assert_ptr_null(m->data);
		} else {
			ck_assert_msg((uintptr_t)m->data % 16 == 0,
				      "len %zu: data at %p", m->len, m->data);
			ck_assert_int_eq(memcmp(m->data, buf, m->len), 0);
		}
		act_msg_free(m);
	}
	free(buf);
}

START_TEST(rt_payload_aligned)
{
	ck_assert_int_eq(act_main(NULL, align_main, NULL), 0);
	ck_assert_int_eq(act__last_leaks.envelopes, 0);
}
END_TEST

enum { RT_N = 500 };

struct msg_job {
	struct act_msg **m;
	size_t n;
};

static void *free_msgs(void *arg)
{
	struct msg_job *j = arg;
	size_t i;

	for (i = 0; i < j->n; i++)
		act_msg_free(j->m[i]);
	return NULL;
}

static int rt_remote_reused;

static void remote_main(void *arg)
{
	struct act_msg *m[RT_N];
	void *env[RT_N];
	struct msg_job job = { m, RT_N };
	struct act__slab *slab = &act__tls_worker_self()->slab;
	act_pid me = act_self();
	pthread_t t;
	int i, v;

	(void)arg;
	for (i = 0; i < RT_N; i++)
		ck_assert_int_eq(act_send(me, 1, &i, sizeof(i)), 0);
	for (i = 0; i < RT_N; i++) {
		m[i] = act_receive(0);
		ck_assert_ptr_nonnull(m[i]);
		env[i] = act__container_of(m[i], struct act__envelope, msg);
		ck_assert_uint_eq(((struct act__envelope *)env[i])->cls, 0);
	}
	ck_assert_int_eq(act__slab_outstanding(slab), RT_N);
	/* a thread that is no worker frees them: it only marks them
	 * released; the receiver, which holds them, frees them at its next
	 * sweep (or its exit) */
	ck_assert_int_eq(pthread_create(&t, NULL, free_msgs, &job), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(act__slab_outstanding(slab), RT_N);
	for (i = 0; i < RT_N; i++)
		ck_assert_uint_eq(
			atomic_load(&((struct act__envelope *)env[i])->state),
			ACT_ENV_RELEASED);
	act__mailbox_held_sweep(act__tls_worker_self()->current, slab, false);
	/* all but the last received: that one is the mailbox's kept
	 * envelope (mailbox.h), released, until the next message */
	ck_assert_int_eq(act__slab_outstanding(slab), 1);
	ck_assert(act__mailbox_kept(act__tls_worker_self()->current,
				    (struct act__envelope *)env[RT_N - 1]));
	ck_assert_uint_eq(act__tls_worker_self()->current->n_held, 0);

	/* the next sends of that class reuse them (the kept one is freed
	 * by the first receive of the next batch, after its sends) */
	qsort(env, RT_N, sizeof(env[0]), cmp_ptr);
	for (i = 0; i < RT_N; i++)
		ck_assert_int_eq(act_send(me, 2, &i, sizeof(i)), 0);
	for (i = 0; i < RT_N; i++) {
		struct act_msg *r = act_receive(0);

		ck_assert_ptr_nonnull(r);
		memcpy(&v, r->data, sizeof(v));
		ck_assert_int_eq(v, i);
		rt_remote_reused += in_sorted(
			env, RT_N,
			act__container_of(r, struct act__envelope, msg));
		act_msg_free(r);
	}
}

START_TEST(rt_remote_free)
{
	rt_remote_reused = 0;
	ck_assert_int_eq(act_main(NULL, remote_main, NULL), 0);
	ck_assert_int_eq(rt_remote_reused, RT_N - 1);
	ck_assert_int_eq(act__last_leaks.envelopes, 0);
	ck_assert_int_eq(act__slab_foreign_outstanding(), 0);
}
END_TEST

static void *send_from_thread(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint64_t v = 0xfeedface;

	if (act_send(to, 5, &v, sizeof(v)))
		return (void *)1;
	return NULL;
}

static void foreign_main(void *arg)
{
	act_pid me = act_self();
	struct act_msg *m;
	struct act__envelope *e;
	pthread_t t;
	void *ret;
	uint64_t v;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, send_from_thread, &me), 0);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_ptr_null(ret);
	/* small envelopes from non-workers come from the runtime's foreign
	 * slab (index nworkers), not from malloc */
	ck_assert_int_eq(act__slab_outstanding(&act__rt_current->foreign), 1);
	ck_assert_int_eq(act__slab_foreign_outstanding(), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	e = act__container_of(m, struct act__envelope, msg);
	ck_assert_uint_eq(e->cls, 0);
	ck_assert_uint_eq(e->worker, (unsigned)act_workers());
	ck_assert_uint_eq(m->from.id, 0);
	ck_assert_uint_eq((uintptr_t)m->data % 16, 0);
	memcpy(&v, m->data, sizeof(v));
	ck_assert_uint_eq(v, 0xfeedface);
	act_msg_free(m);
	/* kept by the mailbox (mailbox.h) until a next message moves the
	 * queue past it: one from this worker */
	ck_assert_int_eq(act__slab_outstanding(&act__rt_current->foreign), 1);
	ck_assert_int_eq(act_send(me, 6, &v, sizeof(v)), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 6);
	act_msg_free(m);
	/* the worker holds the remote free back until it flushes */
	act__slab_flush_remote(&act__tls_worker_self()->slab);
	ck_assert_int_eq(act__slab_outstanding(&act__rt_current->foreign), 0);
	ck_assert_int_eq(act__slab_foreign_outstanding(), 0);
}

START_TEST(rt_foreign_sender)
{
	ck_assert_int_eq(act_main(NULL, foreign_main, NULL), 0);
	ck_assert_int_eq(act__last_leaks.envelopes, 0);
}
END_TEST

/* Messages left in a mailbox at exit go back too (I9). */
static void unread_child(void *arg)
{
	(void)arg;
	act_yield();
}

static void unread_main(void *arg)
{
	act_pid me = act_self();
	char big[20000] = { 0 };
	int i;

	(void)arg;
	act_spawn(unread_child, NULL);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(act_send(me, 1, big, (size_t)i * 100), 0);
	ck_assert_int_eq(act_send(me, 1, big, sizeof(big)), 0);
	ck_assert_int_eq(act__slab_foreign_outstanding(), 1);
}

START_TEST(rt_unread_reclaimed)
{
	ck_assert_int_eq(act_main(NULL, unread_main, NULL), 0);
	ck_assert_int_eq(act__last_leaks.envelopes, 0);
	ck_assert_int_eq(act__slab_foreign_outstanding(), 0);
}
END_TEST

static Suite *slab_suite(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("classes");

	tcase_add_test(tc, class_selection);
	tcase_add_test(tc, no_slab_means_foreign);
	tcase_add_test(tc, too_big_fails);
	tcase_add_test(tc, payload_aligned);
	tcase_add_test(tc, no_overlap);
	suite_add_tcase(s, tc);

	tc = tcase_create("reuse");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, owner_lifo_reuse);
	tcase_add_test(tc, owner_reuse_no_growth);
	tcase_add_test(tc, remote_free_off_worker);
	tcase_add_test(tc, remote_free_from_other_worker);
	tcase_add_test(tc, carves_only_what_is_in_use);
	tcase_add_test(tc, guest_slab_per_home);
	tcase_add_test(tc, remote_free_concurrent);
	tcase_add_test(tc, foreign_counted);
	suite_add_tcase(s, tc);

	tc = tcase_create("runtime");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, rt_payload_aligned);
	tcase_add_test(tc, rt_remote_free);
	tcase_add_test(tc, rt_foreign_sender);
	tcase_add_test(tc, rt_unread_reclaimed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(slab_suite());
}
