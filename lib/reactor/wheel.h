/* SPDX-License-Identifier: MIT */
/*
 * wheel.h - a hierarchical timer wheel (Varghese and Lauck): the
 * reactor's timers, O(1) to add and to cancel, whatever their number.
 *
 * Time is counted in ticks (the reactor's resolution). Level l has 64
 * slots of 64^l ticks each; six levels cover 2^36 ticks, and a timer
 * further out waits on a far list that is looked at again each time level
 * 5 turns over. A timer goes on the level of the highest 6-bit group in
 * which its expiry tick differs from the wheel's current tick, in the
 * slot that group names; when the current tick reaches the start of a
 * slot of level l >= 1, that slot's timers move down (a cascade). Level 0
 * slots therefore hold exactly the timers due at one tick, and a timer
 * fires at the first advance that reaches its tick: never before its
 * deadline, and late by less than one tick plus the caller's latency.
 * Timers due at one tick fire in deadline order (nanoseconds), then in
 * the order they were added.
 *
 * A wheel belongs to one thread (the reactor's): nothing here is atomic
 * or locked.
 */
#ifndef ACT_WHEEL_H
#define ACT_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#define ACT_WHEEL_BITS 6
#define ACT_WHEEL_SLOTS (1u << ACT_WHEEL_BITS)
#define ACT_WHEEL_LEVELS 6
#define ACT_WHEEL_SPAN (UINT64_C(1) << (ACT_WHEEL_BITS * ACT_WHEEL_LEVELS))

/* where a node is: level * 64 + slot, the far list, or nowhere */
#define ACT_WHEEL_FAR (ACT_WHEEL_LEVELS * ACT_WHEEL_SLOTS)
#define ACT_WHEEL_NONE 0xffffu

/* A timer: embedded in its owner's record. */
struct act__tnode {
	struct act__tnode *next, *prev; /* in a slot's circular list */
	int64_t deadline;		/* ns, as the caller's clock */
	uint64_t expires;		/* tick: ceil(deadline / tick) */
	uint16_t where;			/* ACT_WHEEL_NONE: not queued */
	uint8_t kind;			/* the owner's: what embeds it */
};

struct act__wheel {
	uint64_t now; /* current tick */
	int64_t tick_ns;
	uint64_t occupied[ACT_WHEEL_LEVELS]; /* bit s: slot s not empty */
	uint32_t count;			     /* timers queued */
	struct act__tnode slots[ACT_WHEEL_LEVELS][ACT_WHEEL_SLOTS];
	struct act__tnode far; /* beyond ACT_WHEEL_SPAN ticks */
};

typedef void act__wheel_fire_fn(struct act__tnode *t, void *ctx);

/* An empty wheel whose current tick holds now_ns; tick_ns > 0. */
void act__wheel_init(struct act__wheel *w, int64_t tick_ns, int64_t now_ns);

static inline void act__wheel_node_init(struct act__tnode *t)
{
	t->next = t->prev = t;
	t->where = ACT_WHEEL_NONE;
}

static inline bool act__wheel_node_queued(const struct act__tnode *t)
{
	return t->where != ACT_WHEEL_NONE;
}

/*
 * Queue t to fire at deadline_ns (a deadline already past fires at the
 * next advance). t must not be queued.
 */
void act__wheel_add(struct act__wheel *w, struct act__tnode *t,
		    int64_t deadline_ns);

/* Take t off the wheel; nothing if it is not queued. O(1). */
void act__wheel_del(struct act__wheel *w, struct act__tnode *t);

/*
 * Move the current tick up to the one that holds now_ns, calling fire
 * for every timer due by then, in order. A timer is off the wheel when
 * fire sees it, and fire may add timers (again) and delete any timer.
 * Returns the number fired.
 */
uint32_t act__wheel_advance(struct act__wheel *w, int64_t now_ns,
			    act__wheel_fire_fn *fire, void *ctx);

/*
 * The time (ns) of the next tick at which an advance may do anything: a
 * timer's tick, or a cascade that precedes one. INT64_MAX when the wheel
 * is empty. Sleeping until then never misses a timer.
 */
int64_t act__wheel_next_ns(const struct act__wheel *w);

#endif /* ACT_WHEEL_H */
