/* SPDX-License-Identifier: MIT */
/* wheel.c - the hierarchical timer wheel; see wheel.h. */
#include <string.h>

#include "wheel.h"

/* A node taken off its slot for firing: del only unlinks it. */
#define ACT_WHEEL_FIRING (ACT_WHEEL_FAR + 1)

static void list_init(struct act__tnode *h)
{
	h->next = h->prev = h;
}

static bool list_empty(const struct act__tnode *h)
{
	return h->next == h;
}

static void list_append(struct act__tnode *h, struct act__tnode *t)
{
	t->prev = h->prev;
	t->next = h;
	h->prev->next = t;
	h->prev = t;
}

static void list_unlink(struct act__tnode *t)
{
	t->prev->next = t->next;
	t->next->prev = t->prev;
	t->next = t->prev = t;
}

/* Move everything on h to the empty head to. */
static void list_move(struct act__tnode *h, struct act__tnode *to)
{
	if (list_empty(h)) {
		list_init(to);
		return;
	}
	to->next = h->next;
	to->prev = h->prev;
	to->next->prev = to;
	to->prev->next = to;
	list_init(h);
}

void act__wheel_init(struct act__wheel *w, int64_t tick_ns, int64_t now_ns)
{
	unsigned l, s;

	memset(w->occupied, 0, sizeof(w->occupied));
	w->count = 0;
	w->tick_ns = tick_ns;
	w->now = now_ns > 0 ? (uint64_t)now_ns / (uint64_t)tick_ns : 0;
	for (l = 0; l < ACT_WHEEL_LEVELS; l++)
		for (s = 0; s < ACT_WHEEL_SLOTS; s++)
			list_init(&w->slots[l][s]);
	list_init(&w->far);
}

/* The first tick whose start is at or after deadline_ns. */
static uint64_t to_tick(const struct act__wheel *w, int64_t deadline_ns)
{
	uint64_t d = deadline_ns > 0 ? (uint64_t)deadline_ns : 0;
	uint64_t t = (uint64_t)w->tick_ns;

	return d / t + (d % t != 0);
}

/* Queue t by its expires tick against the current tick (w->now). */
static void place(struct act__wheel *w, struct act__tnode *t)
{
	uint64_t e = t->expires > w->now ? t->expires : w->now;
	uint64_t x = e ^ w->now;
	unsigned level =
		x ? (unsigned)(63 - __builtin_clzll(x)) / ACT_WHEEL_BITS : 0;
	unsigned slot;

	if (level >= ACT_WHEEL_LEVELS) {
		t->where = ACT_WHEEL_FAR;
		list_append(&w->far, t);
		return;
	}
	slot = (unsigned)(e >> (ACT_WHEEL_BITS * level)) &
	       (ACT_WHEEL_SLOTS - 1);
	t->where = (uint16_t)(level * ACT_WHEEL_SLOTS + slot);
	w->occupied[level] |= UINT64_C(1) << slot;
	list_append(&w->slots[level][slot], t);
}

void act__wheel_add(struct act__wheel *w, struct act__tnode *t,
		    int64_t deadline_ns)
{
	t->deadline = deadline_ns;
	t->expires = to_tick(w, deadline_ns);
	w->count++;
	place(w, t);
}

void act__wheel_del(struct act__wheel *w, struct act__tnode *t)
{
	unsigned where = t->where;

	if (where == ACT_WHEEL_NONE)
		return;
	list_unlink(t);
	t->where = ACT_WHEEL_NONE;
	w->count--;
	if (where < ACT_WHEEL_FAR) {
		unsigned l = where / ACT_WHEEL_SLOTS,
			 s = where % ACT_WHEEL_SLOTS;

		if (list_empty(&w->slots[l][s]))
			w->occupied[l] &= ~(UINT64_C(1) << s);
	}
}

/* Re-place every timer of h against the current tick (a cascade). */
static void replace_all(struct act__wheel *w, struct act__tnode *h)
{
	struct act__tnode list, *t;

	list_move(h, &list);
	while (!list_empty(&list)) {
		t = list.next;
		list_unlink(t);
		place(w, t);
	}
}

/* Tick t (the current one) starts a slot of level 1 or more: move the
 * timers of every such slot down, the highest level first. */
static void cascade(struct act__wheel *w, uint64_t t)
{
	unsigned l, s;

	if ((t & (ACT_WHEEL_SPAN - 1)) == 0 && !list_empty(&w->far))
		replace_all(w, &w->far);
	for (l = ACT_WHEEL_LEVELS - 1; l >= 1; l--) {
		if (t & ((UINT64_C(1) << (ACT_WHEEL_BITS * l)) - 1))
			continue;
		s = (unsigned)(t >> (ACT_WHEEL_BITS * l)) &
		    (ACT_WHEEL_SLOTS - 1);
		if (!(w->occupied[l] & (UINT64_C(1) << s)))
			continue;
		w->occupied[l] &= ~(UINT64_C(1) << s);
		replace_all(w, &w->slots[l][s]);
	}
}

/* Stable merge sort by deadline of a NULL-terminated list through next. */
static struct act__tnode *sort_by_deadline(struct act__tnode *a, size_t n)
{
	struct act__tnode *b, *head = NULL, **tail = &head;
	size_t i, half = n / 2;

	if (n < 2)
		return a;
	for (b = a, i = 1; i < half; i++)
		b = b->next;
	head = b->next;
	b->next = NULL;
	b = sort_by_deadline(head, n - half);
	a = sort_by_deadline(a, half);
	head = NULL;
	while (a && b) {
		if (b->deadline < a->deadline) {
			*tail = b;
			b = b->next;
		} else {
			*tail = a;
			a = a->next;
		}
		tail = &(*tail)->next;
	}
	*tail = a ? a : b;
	return head;
}

/* Fire the timers of level-0 slot s, due now, in deadline order. */
static uint32_t fire_slot(struct act__wheel *w, unsigned s,
			  act__wheel_fire_fn *fire, void *ctx)
{
	struct act__tnode due, *t, *first;
	size_t n = 0;
	uint32_t fired = 0;

	w->occupied[0] &= ~(UINT64_C(1) << s);
	list_move(&w->slots[0][s], &due);
	for (t = due.next; t != &due; t = t->next) {
		t->where = ACT_WHEEL_FIRING;
		n++;
	}
	if (n > 1) { /* sort, then rebuild the circular list */
		due.prev->next = NULL;
		first = sort_by_deadline(due.next, n);
		list_init(&due);
		while (first) {
			t = first;
			first = first->next;
			list_append(&due, t);
		}
	}
	/* fire may delete timers still on `due` (ACT_WHEEL_FIRING) */
	while (!list_empty(&due)) {
		t = due.next;
		list_unlink(t);
		t->where = ACT_WHEEL_NONE;
		w->count--;
		fire(t, ctx);
		fired++;
	}
	return fired;
}

/* The next tick at which anything is due or cascades; UINT64_MAX if none. */
static uint64_t next_tick(const struct act__wheel *w)
{
	uint64_t n = w->now, best = UINT64_MAX;
	unsigned l;

	for (l = 0; l < ACT_WHEEL_LEVELS; l++) {
		unsigned shift = ACT_WHEEL_BITS * l;
		unsigned cur = (unsigned)(n >> shift) & (ACT_WHEEL_SLOTS - 1);
		uint64_t occ = w->occupied[l] & (~UINT64_C(0) << cur);
		uint64_t base, t;

		if (!occ)
			continue;
		/* the slot's first tick: n with group l replaced, lower
		 * groups zero (slot == cur only while its cascade is due) */
		base = n & ~((UINT64_C(1) << (shift + ACT_WHEEL_BITS)) - 1);
		t = base | ((uint64_t)__builtin_ctzll(occ) << shift);
		if (t < n)
			t = n;
		if (t < best)
			best = t;
	}
	if (!list_empty(&w->far)) {
		uint64_t t = (n + ACT_WHEEL_SPAN - 1) & ~(ACT_WHEEL_SPAN - 1);

		if (t < best)
			best = t;
	}
	return best;
}

uint32_t act__wheel_advance(struct act__wheel *w, int64_t now_ns,
			    act__wheel_fire_fn *fire, void *ctx)
{
	uint64_t target, t;
	uint32_t fired = 0;

	if (now_ns < 0)
		return 0;
	target = (uint64_t)now_ns / (uint64_t)w->tick_ns;
	while (w->now <= target) {
		t = w->count ? next_tick(w) : UINT64_MAX;
		if (t > target) {
			w->now = target + 1;
			break;
		}
		w->now = t;
		cascade(w, t);
		w->now = t + 1; /* timers fire adds are due after t */
		if (w->occupied[0] &
		    (UINT64_C(1) << (t & (ACT_WHEEL_SLOTS - 1))))
			fired += fire_slot(w,
					   (unsigned)t & (ACT_WHEEL_SLOTS - 1),
					   fire, ctx);
	}
	return fired;
}

int64_t act__wheel_next_ns(const struct act__wheel *w)
{
	uint64_t t = w->count ? next_tick(w) : UINT64_MAX;

	if (t == UINT64_MAX || t > (uint64_t)INT64_MAX / (uint64_t)w->tick_ns)
		return INT64_MAX;
	return (int64_t)(t * (uint64_t)w->tick_ns);
}
