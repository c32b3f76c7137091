/* SPDX-License-Identifier: MIT */
/*
 * registry.c - act_register, act_unregister, act_whereis: a hash table
 * of names under one spinlock, held for a lookup or an insert (names are
 * registered rarely and looked up by pid senders at most once per
 * conversation). An entry's process points back at it (slot `name`,
 * under the slot's lock), so its exit frees the name. Lock order: the
 * registry, then a slot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links.h"
#include "registry.h"
#include "sched/rt.h"

struct act__name {
	struct act__name *next; /* hash chain */
	act_pid pid;
	uint32_t hash;
	char s[];
};

#define REG_MIN_CAP 64u

static uint32_t hash_name(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* The name's length, or -1 when act_register would refuse it. */
static long name_len(const char *name)
{
	size_t n;

	if (!name)
		return -1;
	n = strnlen(name, ACT_NAME_MAX + 1);
	return n == 0 || n > ACT_NAME_MAX ? -1 : (long)n;
}

void act__registry_init(struct act__rt *rt)
{
	struct act__registry *g = &rt->names;

	atomic_store_explicit(&g->lock, 0, memory_order_relaxed);
	g->tab = NULL;
	g->cap = 0;
	g->n = 0;
}

void act__registry_destroy(struct act__rt *rt)
{
	struct act__registry *g = &rt->names;
	struct act__name *e, *next;
	uint32_t i;

	for (i = 0; i < g->cap; i++)
		for (e = g->tab[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	free(g->tab);
	g->tab = NULL;
	g->cap = g->n = 0;
}

static void reg_lock(struct act__registry *g)
{
	/* acquire: pairs with the release in reg_unlock */
	act__spin_lock(&g->lock);
}

static void reg_unlock(struct act__registry *g)
{
	/* release: pairs with the acquire in reg_lock */
	act__spin_unlock(&g->lock);
}

/* Under the lock: the chain link that points at name's entry, or at the
 * chain's end. */
static struct act__name **find(struct act__registry *g, const char *name,
			       size_t len, uint32_t h)
{
	struct act__name **pe = &g->tab[h & (g->cap - 1)];

	for (; *pe; pe = &(*pe)->next)
		if ((*pe)->hash == h && !strncmp((*pe)->s, name, len) &&
		    (*pe)->s[len] == '\0')
			return pe;
	return pe;
}

/* Under the lock: room for one more entry, at most 3/4 full. */
static int grow(struct act__registry *g)
{
	struct act__name **tab, *e, *next;
	uint32_t cap, i;

	if (g->cap && (g->n + 1) * 4 <= g->cap * 3)
		return 0;
	cap = g->cap ? g->cap * 2 : REG_MIN_CAP;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < g->cap; i++)
		for (e = g->tab[i]; e; e = next) {
			next = e->next;
			e->next = tab[e->hash & (cap - 1)];
			tab[e->hash & (cap - 1)] = e;
		}
	free(g->tab);
	g->tab = tab;
	g->cap = cap;
	return 0;
}

static int register_in(struct act__rt *rt, const char *name, act_pid pid)
{
	struct act__registry *g;
	struct act__name *e, **pe;
	struct act__proc *p;
	long len = name_len(name);
	int rc = 0;

	if (len < 0)
		return -EINVAL;
	if (!rt)
		return -ESRCH;
	p = act__proc_lookup(&rt->procs, pid);
	if (!p)
		return -ESRCH;
	e = malloc(sizeof(*e) + (size_t)len + 1);
	if (!e)
		return -ENOMEM;
	memcpy(e->s, name, (size_t)len + 1);
	e->hash = hash_name(name, (size_t)len);
	e->pid = pid;
	g = &rt->names;
	reg_lock(g);
	/* -EEXIST before any -ENOMEM of the table's growth */
	if (g->cap && *find(g, name, (size_t)len, e->hash)) {
		rc = -EEXIST;
		goto out;
	}
	rc = grow(g);
	if (rc)
		goto out;
	pe = find(g, name, (size_t)len, e->hash);
	act__proc_lock(p);
	if (!act__links_proc_live(&rt->procs, p, pid))
		rc = -ESRCH;
	else if (p->name)
		rc = -EBUSY;
	else
		p->name = e;
	act__proc_unlock(p);
	if (!rc) {
		struct act__worker *w = act__tls_worker_self();

		e->next = NULL;
		*pe = e;
		g->n++;
		e = NULL;
		if (w && act__unlikely(w->trace))
			act__trace_name(w->trace, pid.id, name, (size_t)len);
	}
out:
	reg_unlock(g);
	free(e);
	return rc;
}

void act__registry_name_of(struct act__rt *rt, act_pid pid, char *buf,
			   size_t len)
{
	struct act__proc *p = act__proc_lookup(&rt->procs, pid);

	buf[0] = '\0';
	if (!p)
		return;
	act__proc_lock(p); /* pairs with the unlock below */
	if (act__links_proc_live(&rt->procs, p, pid))
		act__registry_name_copy(p, buf, len);
	act__proc_unlock(p);
}

/* Under the registry lock: unhook *pe and clear its process's link. */
static struct act__name *unhook(struct act__rt *rt, struct act__name **pe)
{
	struct act__name *e = *pe;
	uint32_t idx = act__proc_pid_index(&rt->procs, e->pid);
	struct act__proc *p = &rt->procs.slots[idx];

	act__proc_lock(p);
	if (p->name == e)
		p->name = NULL;
	act__proc_unlock(p);
	*pe = e->next;
	rt->names.n--;
	return e;
}

static int unregister_in(struct act__rt *rt, const char *name)
{
	struct act__name **pe, *e = NULL;
	long len = name_len(name);
	uint32_t h;

	if (len < 0)
		return -EINVAL;
	if (!rt)
		return -ENOENT;
	h = hash_name(name, (size_t)len);
	reg_lock(&rt->names);
	if (rt->names.cap) {
		pe = find(&rt->names, name, (size_t)len, h);
		if (*pe)
			e = unhook(rt, pe);
	}
	reg_unlock(&rt->names);
	free(e);
	return e ? 0 : -ENOENT;
}

static act_pid whereis_in(struct act__rt *rt, const char *name)
{
	struct act__name **pe;
	act_pid pid = ACT_PID_NONE;
	long len = name_len(name);
	uint32_t h;

	if (len < 0 || !rt)
		return ACT_PID_NONE;
	h = hash_name(name, (size_t)len);
	reg_lock(&rt->names);
	if (rt->names.cap) {
		pe = find(&rt->names, name, (size_t)len, h);
		if (*pe)
			pid = (*pe)->pid;
	}
	reg_unlock(&rt->names);
	return pid;
}

void act__registry_exit(struct act__rt *rt, struct act__proc *p)
{
	struct act__name *e, **pe;
	bool named;

	act__proc_lock(p);
	named = p->name != NULL;
	act__proc_unlock(p);
	if (!named) /* EXITING: no act_register gives it one now */
		return;
	reg_lock(&rt->names);
	act__proc_lock(p);
	e = p->name;
	act__proc_unlock(p);
	if (e) {
		/* still registered: act_unregister clears p->name under
		 * this lock before it frees the entry */
		pe = find(&rt->names, e->s, strlen(e->s), e->hash);
		e = *pe ? unhook(rt, pe) : NULL;
	}
	reg_unlock(&rt->names);
	free(e);
}

/* The API: each enters the runtime (act__rt_enter) around its work. */
int act_register(const char *name, act_pid pid)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int rc = register_in(rt, name, pid);

	act__rt_leave(rt);
	return rc;
}

int act_unregister(const char *name)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	int rc = unregister_in(rt, name);

	act__rt_leave(rt);
	return rc;
}

act_pid act_whereis(const char *name)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	act_pid pid = whereis_in(rt, name);

	act__rt_leave(rt);
	return pid;
}

void act__registry_name_copy(const struct act__proc *p, char *buf,
			     unsigned long len)
{
	/* p->name changes and its entry is freed only after its slot's
	 * lock saw it cleared (register_in, unhook): the caller holds it */
	snprintf(buf, len, "%s", p->name ? p->name->s : "");
}
