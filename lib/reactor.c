/* SPDX-License-Identifier: MIT */
/*
 * reactor.c - the reactor thread: for now a min-heap of receive timeouts.
 *
 * Workers arm a timeout under `lock` (one short critical section per
 * blocking receive with a finite timeout) and ring the doorbell only when
 * the new deadline is earlier than the one the reactor sleeps towards.
 * The reactor pops due entries and, for each, records the fired ticket in
 * the process (so a wait that has not parked yet still sees it, I2) and
 * calls act__wake with that ticket (I4). Entries of receives that ended
 * early are dropped when they come due, or all at once when the heap has
 * grown to twice its live entries (a receive clears armed_ticket as it
 * returns), so the heap stays within twice the number of processes.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "reactor.h"
#include "runtime.h"
#include "wake.h"

#define COMPACT_MIN 1024u

int64_t act__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sift_up(struct act__timeout *h, uint32_t i)
{
	struct act__timeout x = h[i];

	while (i && h[(i - 1) / 2].deadline > x.deadline) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static void sift_down(struct act__timeout *h, uint32_t n, uint32_t i)
{
	struct act__timeout x = h[i];
	uint32_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && h[c + 1].deadline < h[c].deadline)
			c++;
		if (h[c].deadline >= x.deadline)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static struct act__proc *entry_proc(struct act__reactor *r,
				    const struct act__timeout *t)
{
	struct act__proc *p = &r->rt->procs.slots[t->index];

	/* acquire: pairs with the release store of gen in slot_free */
	return atomic_load_explicit(&p->gen, memory_order_acquire) == t->gen
		       ? p
		       : NULL;
}

static bool entry_live(struct act__reactor *r, const struct act__timeout *t)
{
	struct act__proc *p = entry_proc(r, t);

	return p && atomic_load_explicit(&p->armed_ticket,
					 memory_order_relaxed) == t->ticket;
}

/* Caller holds lock. Drop entries whose receive already ended. */
static void compact(struct act__reactor *r)
{
	uint32_t i, n = 0;

	for (i = 0; i < r->n; i++)
		if (entry_live(r, &r->heap[i]))
			r->heap[n++] = r->heap[i];
	r->n = n;
	for (i = n / 2; i-- > 0;)
		sift_down(r->heap, n, i);
	r->compact_at = 2 * n > COMPACT_MIN ? 2 * n : COMPACT_MIN;
}

int act__reactor_arm_timeout(struct act__reactor *r, struct act__proc *p,
			     uint64_t ticket, int64_t deadline)
{
	struct act__timeout *h;
	bool earliest;

	atomic_store_explicit(&p->armed_ticket, ticket, memory_order_relaxed);
	pthread_mutex_lock(&r->lock);
	if (r->n >= r->compact_at)
		compact(r);
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : 256;

		h = realloc(r->heap, cap * sizeof(*h));
		if (!h) {
			pthread_mutex_unlock(&r->lock);
			return -ENOMEM;
		}
		r->heap = h;
		r->cap = cap;
	}
	r->heap[r->n] = (struct act__timeout){ deadline, p->index,
					       (uint32_t)(p->pid.id >> 32),
					       ticket };
	sift_up(r->heap, r->n++);
	earliest = deadline < r->next_deadline;
	if (earliest)
		r->next_deadline = deadline;
	pthread_mutex_unlock(&r->lock);
	if (earliest) /* the reactor sleeps past this deadline: tell it */
		act__doorbell_ring(&r->bell);
	return 0;
}

static void fire(struct act__reactor *r, const struct act__timeout *t)
{
	struct act__proc *p = entry_proc(r, t);
	uint64_t old;

	if (!p)
		return;
	old = atomic_load_explicit(&p->timeout_fired, memory_order_relaxed);
	/* seq_cst: the store half of the Dekker pair with park_proc's
	 * WAITING store + timeout_fired load; also releases to wait_for */
	while (old < t->ticket &&
	       !atomic_compare_exchange_weak_explicit(
		       &p->timeout_fired, &old, t->ticket,
		       memory_order_seq_cst, memory_order_relaxed))
		;
	act__count(&r->n_fired);
	act__wake(NULL, p, t->ticket);
}

/* Fire everything due; returns the next deadline (INT64_MAX: none). */
static int64_t run_due(struct act__reactor *r)
{
	struct act__timeout t;
	int64_t now = act__now_ns(), next;

	pthread_mutex_lock(&r->lock);
	while (r->n && r->heap[0].deadline <= now) {
		t = r->heap[0];
		r->heap[0] = r->heap[--r->n];
		sift_down(r->heap, r->n, 0);
		pthread_mutex_unlock(&r->lock);
		if (entry_live(r, &t))
			fire(r, &t);
		pthread_mutex_lock(&r->lock);
	}
	next = r->n ? r->heap[0].deadline : INT64_MAX;
	r->next_deadline = next;
	pthread_mutex_unlock(&r->lock);
	return next;
}

static void *reactor_main(void *arg)
{
	struct act__reactor *r = arg;
	int64_t next;
	uint32_t seen;

	/* acquire: pairs with the release store in act__reactor_stop */
	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		seen = act__doorbell_prepare(&r->bell);
		next = run_due(r);
		if (atomic_load_explicit(&r->stop, memory_order_seq_cst)) {
			act__doorbell_cancel(&r->bell);
			break;
		}
		if (next != INT64_MAX) {
			next -= act__now_ns();
			if (next < 0)
				next = 0;
		} else {
			next = -1;
		}
		act__doorbell_sleep(&r->bell, seen, next);
	}
	return NULL;
}

int act__reactor_start(struct act__reactor *r, struct act__rt *rt)
{
	int rc;

	r->rt = rt;
	r->heap = NULL;
	r->n = r->cap = 0;
	r->compact_at = COMPACT_MIN;
	r->next_deadline = INT64_MAX;
	atomic_store_explicit(&r->stop, 0, memory_order_relaxed);
	pthread_mutex_init(&r->lock, NULL);
	rc = pthread_create(&r->thread, NULL, reactor_main, r);
	if (rc) {
		pthread_mutex_destroy(&r->lock);
		return -rc;
	}
	return 0;
}

void act__reactor_stop(struct act__reactor *r)
{
	/* release: pairs with the acquire load in reactor_main */
	atomic_store_explicit(&r->stop, 1, memory_order_seq_cst);
	atomic_fetch_add_explicit(&r->bell.seq, 1, memory_order_seq_cst);
	act__futex_wake(&r->bell.seq, 1);
	pthread_join(r->thread, NULL);
	pthread_mutex_destroy(&r->lock);
	free(r->heap);
	r->heap = NULL;
}
