/* SPDX-License-Identifier: MIT */
/*
 * watch.h - a connection's table of the remote processes' monitors of
 * local ones (MONITOR_P from the peer), found by the proxy's own monitor
 * (its ref: the local DOWN) and by the watcher and Erlang reference (a
 * DEMONITOR_P): an array, and an index by each key, open addressing
 * with linear probing. Each call is O(1) on average, so that thousands
 * of monitors from one node cost no more each than one.
 *
 * Used by the connection process alone (lib/dist/conn.c): no locks.
 */
#ifndef ACT_DIST_WATCH_H
#define ACT_DIST_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ei.h>

#include <actors.h>

struct act__watch {
	uint64_t lref;		     /* the proxy's monitor of target */
	act_pid watcher;	     /* the remote process */
	act_pid target;		     /* the local one */
	erlang_ref eref;	     /* the watcher's reference */
	char name[ACT_NAME_MAX + 1]; /* a monitor by name: the name */
};

struct act__watches {
	struct act__watch *w;
	size_t n, cap;
	/* slots: an entry's index + 1, 0 empty; mask + 1 of them, at
	 * least twice the entries */
	uint32_t *by_lref, *by_eref;
	size_t mask;
};

/* w added: 0, or -ENOMEM (the table as it was) */
int act__watch_add(struct act__watches *t, const struct act__watch *w);
/* The entry of lref, or of watcher and eref: its index, or -1 */
long act__watch_find_lref(const struct act__watches *t, uint64_t lref);
long act__watch_find_eref(const struct act__watches *t, act_pid watcher,
			  const erlang_ref *eref);
/* Entry i out of the table, copied to *out; the last entry takes its
 * index */
void act__watch_take(struct act__watches *t, size_t i, struct act__watch *out);
void act__watch_fini(struct act__watches *t);

#endif
