/* SPDX-License-Identifier: MIT */
/*
 * links.c - act_link, act_unlink, act_monitor, act_demonitor,
 * act_trap_exit, act_on_exit, and what a process's exit does to its
 * relations (links.h, doc/design/lifecycle.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links.h"
#include "message.h"
#include "registry.h"
#include "proc/mailbox.h"
#include "sched/rt.h"
#include "sched/wake.h"
#include "sched/worker.h"

/* ---- locks and lists ---------------------------------------------------- */

void act__links_lock2(struct act__proc *a, struct act__proc *b)
{
	/* each acquire pairs with the release in act__links_unlock2 (through
	 * act__proc_unlock); index order, so two lockers never wait on
	 * each other in a circle */
	if (a == b) {
		act__proc_lock(a);
	} else if (a->index < b->index) {
		act__proc_lock(a);
		act__proc_lock(b);
	} else {
		act__proc_lock(b);
		act__proc_lock(a);
	}
}

void act__links_unlock2(struct act__proc *a, struct act__proc *b)
{
	/* releases: pair with the acquires in act__links_lock2 */
	act__proc_unlock(a);
	if (a != b)
		act__proc_unlock(b);
}

bool act__links_proc_live(const struct act__ptable *t, struct act__proc *p,
			  act_pid pid)
{
	/* acquire: pairs with the release stores of gen (slot_free) and of
	 * RUNNABLE (act__spawn) */
	unsigned st =
		act__ps(atomic_load_explicit(&p->state, memory_order_acquire));

	/* acquire: the same pairs, for the generation */
	return st != ACT_PS_FREE && st != ACT_PS_EXITING &&
	       atomic_load_explicit(&p->gen, memory_order_acquire) ==
		       act__proc_pid_gen(t, pid);
}

/* Under q's lock: pid is exiting and its watchers are still to be
 * drained (watch_open, proc.h): a monitor joins them, and its DOWN
 * comes with the exit's reason once the name is gone and the links'
 * EXITs are sent. */
static bool links_watch_open(const struct act__ptable *t, struct act__proc *q,
			     act_pid pid)
{
	/* acquire: pairs with the release store of EXITING (exit_proc) */
	return q->watch_open &&
	       act__ps(atomic_load_explicit(&q->state, memory_order_acquire)) ==
		       ACT_PS_EXITING &&
	       /* acquire: pairs with the release store of gen (slot_free) */
	       atomic_load_explicit(&q->gen, memory_order_acquire) ==
		       act__proc_pid_gen(t, pid);
}

/* The slot pid's index names, whatever its generation, or NULL. */
static struct act__proc *slot_at(struct act__rt *rt, act_pid pid)
{
	uint32_t idx = act__proc_pid_index(&rt->procs, pid);

	/* relaxed: every caller got pid from a relation node or a registry
	 * entry, made under the slot's lock after its set-up (grow's gen
	 * release, the lookup's acquire) */
	if (idx >= atomic_load_explicit(&rt->procs.hwm, memory_order_relaxed))
		return NULL;
	return &rt->procs.slots[idx];
}

/* The list of x that relation r is on at `side` (0 or 1). */
static struct act__rel **list_of(struct act__proc *x, const struct act__rel *r,
				 int side)
{
	if (!r->ref)
		return &x->links;
	return side == 0 ? &x->monitors : &x->watchers;
}

/*
 * The side by which n, a neighbour of a node on the same list of x,
 * hangs on that list. A monitors or watchers list has one side for all
 * (`side`); on a links list it is each node's own: x may be the first
 * end of one link and the second of the next (no link joins x to x).
 */
static int side_in(const struct act__rel *n, const struct act__proc *x,
		   int side)
{
	if (n->ref)
		return side;
	return n->end[0].id == x->pid.id ? 0 : 1;
}

static void rel_add(struct act__proc *x, struct act__rel *r, int side)
{
	struct act__rel **h = list_of(x, r, side);

	r->prev[side] = NULL;
	r->next[side] = *h;
	if (*h)
		(*h)->prev[side_in(*h, x, side)] = r;
	*h = r;
	if (!r->ref)
		x->n_links++;
}

static void rel_del(struct act__proc *x, struct act__rel *r, int side)
{
	struct act__rel *p = r->prev[side], *n = r->next[side];

	if (p)
		p->next[side_in(p, x, side)] = n;
	else
		*list_of(x, r, side) = n;
	if (n)
		n->prev[side_in(n, x, side)] = p;
	if (!r->ref)
		x->n_links--;
}

/* Under x's lock: x's link with pid, or NULL. */
static struct act__rel *link_find(struct act__proc *x, act_pid pid)
{
	struct act__rel *r;
	int s;

	for (r = x->links; r; r = r->next[s]) {
		s = r->end[0].id == x->pid.id ? 0 : 1;
		if (r->end[s ^ 1].id == pid.id)
			return r;
	}
	return NULL;
}

/* Under x's lock: x's monitor with reference ref, or NULL. */
static struct act__rel *monitor_find(struct act__proc *x, uint64_t ref)
{
	struct act__rel *r;

	for (r = x->monitors; r; r = r->next[0])
		if (r->ref == ref)
			return r;
	return NULL;
}

/* The next reference: one count for the OS process, not per runtime,
 * so a reference stays unique across act_main's runs (act_make_ref(3)).
 * 2^64 of them do not run out. */
static _Atomic uint64_t next_ref = 1;

static uint64_t new_ref(void)
{
	/* relaxed: only uniqueness matters */
	return atomic_fetch_add_explicit(&next_ref, 1, memory_order_relaxed);
}

uint64_t act_make_ref(void)
{
	return new_ref();
}

/* ---- signals ------------------------------------------------------------ */

/* A killed process ends whatever it waits in; a muted one dies when it
 * is released (backpressure.h). */
static void kill_wake(struct act__worker *w, struct act__proc *p)
{
	if (!act__wake(w, p, 0))
		act__wake_state(w, p, 0, ACT_PS_IOWAIT);
}

/* An EXIT or DOWN to pid; one that memory cannot hold is said, not
 * dropped in silence. 0 or -ENOMEM. */
static int send_signal_msg_t(struct act__rt *rt, act_pid to, uint32_t tag,
			     act_pid who, intptr_t reason, uint64_t ref,
			     const void *term, size_t term_len)
{
	struct act_exit_info info = { who, reason, ref };
	char a[ACT_PID_STRLEN], b[ACT_PID_STRLEN];
	char *m = term_len ? malloc(sizeof(info) + term_len) : NULL;
	int rc = -ENOMEM;

	if (!term_len) {
		rc = act__message_send_sys(rt, to, tag, &info, sizeof(info),
					   who);
	} else if (m) {
		/* a remote reason's term after the info (ACT_EXIT_TERM) */
		memcpy(m, &info, sizeof(info));
		memcpy(m + sizeof(info), term, term_len);
		rc = act__message_send_sys(rt, to, tag, m,
					   sizeof(info) + term_len, who);
		free(m);
	}

	if (rc == -ENOMEM) {
		act_pid_format(who, a, sizeof(a));
		act_pid_format(to, b, sizeof(b));
		fprintf(stderr,
			"actors: out of memory: the %s message of process "
			"%s to %s (reason %lld) is lost\n",
			tag == ACT_TAG_EXIT ? "EXIT" : "DOWN", a, b,
			(long long)reason);
	}
	return rc == -ENOMEM ? rc : 0;
}

static int send_signal_msg(struct act__rt *rt, act_pid to, uint32_t tag,
			   act_pid who, intptr_t reason, uint64_t ref)
{
	return send_signal_msg_t(rt, to, tag, who, reason, ref, NULL, 0);
}

/*
 * Under p's lock: the exit signal of lifecycle.md's table. Returns 1
 * when p was told to die (the caller wakes it, after unlocking), 0 when
 * it was not (or got an EXIT message), -ENOMEM when that message could
 * not be made.
 */
static int signal_locked_t(struct act__rt *rt, struct act__proc *p, act_pid pid,
			   act_pid who, intptr_t reason, bool untrappable,
			   const void *term, size_t term_len)
{
	if (!act__links_proc_live(&rt->procs, p, pid) || p->exiting ||
	    (atomic_load_explicit(&p->flags, memory_order_relaxed) &
	     ACT_PF_KILLED))
		return 0;
	if (p->trap_exit && !untrappable)
		return send_signal_msg_t(rt, pid, ACT_TAG_EXIT, who, reason, 0,
					 term, term_len);
	if (reason == ACT_EXIT_NORMAL && !untrappable)
		return 0;
	p->exit_reason = reason == ACT_EXIT_KILL ? ACT_EXIT_KILLED : reason;
	/* seq_cst: the store half of the Dekker pair with the killed loads
	 * in park_proc and park_io (act__proc_killed) */
	atomic_fetch_or_explicit(&p->flags, ACT_PF_KILLED,
				 memory_order_seq_cst);
	return 1;
}

static int signal_locked(struct act__rt *rt, struct act__proc *p, act_pid pid,
			 act_pid who, intptr_t reason, bool untrappable)
{
	return signal_locked_t(rt, p, pid, who, reason, untrappable, NULL, 0);
}

/* ---- relations with remote processes (lib/dist) ------------------------- */

static bool is_remote(act_pid pid)
{
	return (pid.id >> 63) != 0;
}

/* The slot of a relation's end `end`: a remote end's is its node's
 * connection process's (r->via). */
static struct act__proc *end_slot(struct act__rt *rt, act_pid end, act_pid via)
{
	return slot_at(rt, is_remote(end) ? via : end);
}

/* A word to the connection process via (act__links_sig); lost only when
 * it has exited, and then its drain signals what it stood for. */
static void tell_via(struct act__rt *rt, act_pid via, uint32_t op, act_pid from,
		     act_pid to, intptr_t reason, uint64_t ref)
{
	struct act__links_sig sig = {
		.op = op, .from = from, .to = to, .reason = reason, .ref = ref
	};

	(void)act__message_send_sys(rt, via, ACT__TAG_LINK_SIG, &sig,
				    sizeof(sig), from);
}

int act__links_exit_signal(struct act__rt *rt, struct act__worker *w,
			   struct act__proc *p, act_pid pid, act_pid who,
			   intptr_t reason, bool untrappable)
{
	bool live;
	int rc;

	act__proc_lock(p);
	live = act__links_proc_live(&rt->procs, p, pid);
	rc = signal_locked(rt, p, pid, who, reason, untrappable);
	act__proc_unlock(p);
	if (rc == 1)
		kill_wake(w, p);
	return !live ? -ESRCH : rc < 0 ? rc : 0;
}

/* ---- exit --------------------------------------------------------------- */

void act__links_init(struct act__proc *p)
{
	/* The fourth line is as the last occupant's exit left it (or new):
	 * no relations, name or handlers, trap_exit and exiting false
	 * (act__links_exit). Not written here, so a spawn does not touch
	 * it: a million processes that never exit never fault it in, and
	 * a stale pid's act_unlink may look at it under the lock. */
	if (ACT_DEBUG_ON &&
	    (p->links || p->monitors || p->watchers || p->on_exit || p->name ||
	     p->n_links || p->trap_exit || p->exiting || p->watch_open))
		act__fatal("slot %u reused with its relations", p->index);
}

void act__links_run_exit_fns(struct act__proc *p)
{
	struct act__exit_fn *f;
	void (*fn)(void *);
	void *arg;

	/* one at a time, off the list and freed before it runs: a handler
	 * that exits (act_exit) never returns here, the next one still
	 * runs, and none runs twice */
	while ((f = p->on_exit) != NULL) {
		p->on_exit = f->next;
		fn = f->fn;
		arg = f->arg;
		free(f);
		fn(arg);
	}
}

/*
 * Under p's and q's locks, relation r (with a remote process) taken off
 * both: p exits, q stands for the other end. p local: the connection
 * (q) is told, so that the remote end hears of it (an EXIT through the
 * link, the monitor taken away). p the connection (its node gone): the
 * local end (q, pid other) gets noconnection from the remote process.
 * Returns whether q was told to die.
 */
static bool drain_remote(struct act__rt *rt, struct act__worker *w,
			 struct act__proc *p, struct act__proc *q,
			 struct act__rel *r, int which, act_pid other)
{
	act_pid remote = r->end[1];

	if (r->via.id != p->pid.id) {
		if (which == 0)
			tell_via(rt, r->via, ACT__SIG_EXIT, p->pid, remote,
				 p->exit_reason, 0);
		else if (which == 1)
			tell_via(rt, r->via, ACT__SIG_DEMONITOR, p->pid, remote,
				 0, r->ref);
		return false;
	}
	if (which == 0) {
		if (act__unlikely(w->trace))
			act__trace_event(w->trace, ACT_TR_SIG_EXIT, remote.id,
					 other.id,
					 (uint64_t)ACT_EXIT_NOCONNECTION);
		return signal_locked(rt, q, other, remote,
				     ACT_EXIT_NOCONNECTION, false) == 1;
	}
	if (which == 2 && act__links_proc_live(&rt->procs, q, other)) {
		if (act__unlikely(w->trace))
			act__trace_event(w->trace, ACT_TR_SIG_DOWN, remote.id,
					 other.id,
					 (uint64_t)ACT_EXIT_NOCONNECTION);
		send_signal_msg(rt, other, ACT_TAG_DOWN, remote,
				ACT_EXIT_NOCONNECTION, r->ref);
	}
	return false;
}

/*
 * Takes p's relations on list `which` (0: links, 1: monitors it holds,
 * 2: monitors on it) one at a time: each under both ends' locks, then
 * the signal to the other end (none for monitors p held).
 */
static void drain(struct act__worker *w, struct act__proc *p, int which)
{
	struct act__rt *rt = w->rt;
	struct act__rel *r, **head;
	struct act__proc *q;
	act_pid other, via = ACT_PID_NONE;
	bool die;
	int s;

	head = which == 0 ? &p->links :
	       which == 1 ? &p->monitors :
			    &p->watchers;
	for (;;) {
		act__proc_lock(p);
		r = *head;
		if (r) {
			s = which == 2 ||
			    (which == 0 && r->end[0].id != p->pid.id);
			other = r->end[s ^ 1];
			via = r->via;
		} else if (which == 2) {
			p->watch_open = false; /* a monitor now: NOPROC */
		}
		act__proc_unlock(p);
		if (!r)
			return;
		/* other has r on its list, so its exit has not finished and
		 * its slot is still its own (a remote end's: its node's
		 * connection process's) */
		q = end_slot(rt, other, via);
		die = false;
		act__links_lock2(p, q);
		r = *head;
		if (r) {
			s = which == 2 ||
			    (which == 0 && r->end[0].id != p->pid.id);
			if (r->end[s ^ 1].id != other.id) {
				r = NULL; /* changed meanwhile: look again */
			} else {
				rel_del(p, r, s);
				rel_del(q, r, s ^ 1);
				if (via.id) {
					die = drain_remote(rt, w, p, q, r,
							   which, other);
				} else if (which == 0) {
					if (act__unlikely(w->trace))
						act__trace_event(
							w->trace,
							ACT_TR_SIG_EXIT,
							p->pid.id, other.id,
							(uint64_t)
								p->exit_reason);
					die = signal_locked(rt, q, other,
							    p->pid,
							    p->exit_reason,
							    false) == 1;
				} else if (which == 2 &&
					   act__links_proc_live(&rt->procs, q,
								other)) {
					/* under q's lock: act_demonitor
					 * that finds no node finds this */
					if (act__unlikely(w->trace))
						act__trace_event(
							w->trace,
							ACT_TR_SIG_DOWN,
							p->pid.id, other.id,
							(uint64_t)
								p->exit_reason);
					send_signal_msg(rt, other, ACT_TAG_DOWN,
							p->pid, p->exit_reason,
							r->ref);
				}
			}
		}
		act__links_unlock2(p, q);
		if (die)
			kill_wake(w, q);
		free(r);
	}
}

void act__links_exit(struct act__worker *w, struct act__proc *p)
{
	bool any;

	/* EXITING: nothing is added to it any more, only taken away */
	act__proc_lock(p);
	any = p->links || p->monitors || p->watchers || p->name;
	if (!any)
		p->watch_open = false; /* no watcher to drain */
	act__proc_unlock(p);
	if (any) {
		act__registry_exit(w->rt, p);
		drain(w, p, 0);
		drain(w, p, 2);
		drain(w, p, 1);
	}
	/* ready for the slot's next occupant (act__links_init) */
	act__proc_lock(p);
	p->trap_exit = false;
	p->exiting = false;
	act__proc_unlock(p);
}

static void reclaim_list(struct act__rel *r, int which, act_pid self)
{
	struct act__rel *next;
	int s;

	for (; r; r = next) {
		s = which == 2 || (which == 0 && r->end[0].id != self.id);
		next = r->next[s];
		if (++r->visits == 2)
			free(r);
	}
}

void act__links_reclaim(struct act__proc *p)
{
	struct act__exit_fn *f;

	/* each node is on two lists of discarded processes (or two of one
	 * process, for a monitor of itself): the second visit frees it */
	reclaim_list(p->links, 0, p->pid);
	reclaim_list(p->monitors, 1, p->pid);
	reclaim_list(p->watchers, 2, p->pid);
	p->links = p->monitors = p->watchers = NULL;
	while ((f = p->on_exit) != NULL) {
		p->on_exit = f->next;
		free(f);
	}
	/* its name: act__registry_destroy frees every entry */
	p->name = NULL;
}

/* ---- spawn with a link or a monitor -------------------------------------- */

int act__links_rels_alloc(struct act__rt *rt, uint32_t flags,
			  struct act__spawn_rels *r)
{
	r->link = r->monitor = NULL;
	if (flags & ACT_SPAWN_LINK) {
		r->link = calloc(1, sizeof(*r->link));
		if (!r->link)
			return -ENOMEM;
	}
	if (flags & ACT_SPAWN_MONITOR) {
		r->monitor = calloc(1, sizeof(*r->monitor));
		if (!r->monitor) {
			free(r->link);
			r->link = NULL;
			return -ENOMEM;
		}
		r->monitor->ref = new_ref();
	}
	return 0;
}

void act__links_rels_free(struct act__spawn_rels *r)
{
	free(r->link);
	free(r->monitor);
	r->link = r->monitor = NULL;
}

void act__links_rels_attach(struct act__proc *p, struct act__proc *c,
			    struct act__spawn_rels *r)
{
	if (!r->link && !r->monitor)
		return;
	act__links_lock2(p, c);
	if (r->link) {
		r->link->end[0] = p->pid;
		r->link->end[1] = c->pid;
		rel_add(p, r->link, 0);
		rel_add(c, r->link, 1);
	}
	if (r->monitor) {
		r->monitor->end[0] = p->pid;
		r->monitor->end[1] = c->pid;
		rel_add(p, r->monitor, 0);
		rel_add(c, r->monitor, 1);
	}
	act__links_unlock2(p, c);
	r->link = r->monitor = NULL; /* theirs now */
}

/* ---- the API -------------------------------------------------------------- */

static struct act__proc *current(struct act__worker **wp)
{
	struct act__worker *w = act__tls_worker_self();

	*wp = w;
	return w ? w->current : NULL;
}

/* Linking to pid, not alive: an EXIT with ACT_EXIT_NOPROC if p traps. */
static int link_noproc(struct act__rt *rt, struct act__proc *p, act_pid pid)
{
	bool trap;

	act__proc_lock(p);
	trap = p->trap_exit;
	act__proc_unlock(p);
	if (trap &&
	    send_signal_msg(rt, p->pid, ACT_TAG_EXIT, pid, ACT_EXIT_NOPROC, 0))
		return -ENOMEM;
	return -ESRCH;
}

/* Linking to a remote pid whose node cannot be reached: an EXIT with
 * ACT_EXIT_NOCONNECTION if p traps (Erlang's noconnection). */
static int link_noconnection(struct act__rt *rt, struct act__proc *p,
			     act_pid pid)
{
	bool trap;

	act__proc_lock(p);
	trap = p->trap_exit;
	act__proc_unlock(p);
	if (trap && send_signal_msg(rt, p->pid, ACT_TAG_EXIT, pid,
				    ACT_EXIT_NOCONNECTION, 0))
		return -ENOMEM;
	return -ENOTCONN;
}

/*
 * A relation r (link, or monitor with r->ref) between p and remote pid,
 * its second side on the node's connection process: 0; -ESRCH for a pid
 * of no process met, -ENOTCONN when no connection can be had; -EEXIST
 * for a link that is there already.
 */
static int remote_rel(struct act__rt *rt, struct act__proc *p, act_pid pid,
		      struct act__rel *r)
{
	struct act__proc *q;
	act_pid via;
	int rc = act__route_proxy(rt, pid, &via);

	if (rc < 0)
		return rc;
	q = act__proc_lookup(&rt->procs, via);
	if (!q)
		return -ENOTCONN;
	act__links_lock2(p, q);
	if (!act__links_proc_live(&rt->procs, q, via)) {
		rc = -ENOTCONN;
	} else if (!r->ref && link_find(p, pid)) {
		rc = -EEXIST;
	} else {
		r->end[0] = p->pid;
		r->end[1] = pid;
		r->via = via;
		rel_add(p, r, 0);
		rel_add(q, r, 1);
	}
	act__links_unlock2(p, q);
	if (rc == 0)
		tell_via(rt, via, r->ref ? ACT__SIG_MONITOR : ACT__SIG_LINK,
			 p->pid, pid, 0, r->ref);
	return rc;
}

static int remote_link(struct act__rt *rt, struct act__proc *p, act_pid pid)
{
	struct act__rel *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	rc = remote_rel(rt, p, pid, r);
	if (rc == 0)
		return 0;
	free(r);
	if (rc == -EEXIST)
		return 0;
	return rc == -ESRCH  ? link_noproc(rt, p, pid) :
	       rc == -ENOMEM ? rc :
			       link_noconnection(rt, p, pid);
}

/* act_unlink of a remote pid: the link taken here, and the remote end
 * told (UNLINK_ID) */
static int remote_unlink(struct act__rt *rt, struct act__proc *p, act_pid pid)
{
	struct act__proc *q;
	struct act__rel *r;
	act_pid via;
	int s;

	act__proc_lock(p);
	r = link_find(p, pid);
	via = r ? r->via : ACT_PID_NONE;
	act__proc_unlock(p);
	if (!r)
		return 0;
	q = slot_at(rt, via);
	act__links_lock2(p, q);
	r = link_find(p, pid);
	if (r && r->via.id == via.id) {
		s = r->end[0].id == p->pid.id ? 0 : 1;
		rel_del(p, r, s);
		rel_del(q, r, s ^ 1);
	} else {
		r = NULL;
	}
	act__links_unlock2(p, q);
	if (r)
		tell_via(rt, via, ACT__SIG_UNLINK, p->pid, pid, 0, new_ref());
	free(r);
	return 0;
}

int act_link(act_pid pid)
{
	struct act__worker *w;
	struct act__proc *p = current(&w), *q;
	struct act__rel *r;
	bool live;

	if (!p)
		return -EPERM;
	if (pid.id == p->pid.id)
		return 0;
	if (act__unlikely(is_remote(pid)))
		return remote_link(w->rt, p, pid);
	q = act__proc_lookup(&w->rt->procs, pid);
	if (!q)
		return link_noproc(w->rt, p, pid);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	act__links_lock2(p, q);
	live = act__links_proc_live(&w->rt->procs, q, pid);
	/* one link at most between two processes: look on the shorter
	 * list (a supervisor has many, its new child none) */
	if (live && !(p->n_links <= q->n_links ? link_find(p, pid) :
						 link_find(q, p->pid))) {
		r->end[0] = p->pid;
		r->end[1] = pid;
		rel_add(p, r, 0);
		rel_add(q, r, 1);
		r = NULL;
	}
	act__links_unlock2(p, q);
	free(r);
	return live ? 0 : link_noproc(w->rt, p, pid);
}

int act_unlink(act_pid pid)
{
	struct act__worker *w;
	struct act__proc *p = current(&w), *q;
	struct act__rel *r = NULL;
	int s;

	if (!p)
		return -EPERM;
	if (act__unlikely(is_remote(pid)))
		return remote_unlink(w->rt, p, pid);
	/* a stale pid names no link: while one exists its other end's
	 * generation stays (I5); the lookup's acquire also orders the
	 * slot's set-up before the lock below */
	q = act__proc_lookup(&w->rt->procs, pid);
	if (!q || q == p)
		return 0;
	act__links_lock2(p, q);
	r = p->n_links <= q->n_links ? link_find(p, pid) : link_find(q, p->pid);
	if (r && r->end[0].id != pid.id && r->end[1].id != pid.id)
		r = NULL; /* q's slot has another occupant since the lookup */
	if (r) {
		s = r->end[0].id == p->pid.id ? 0 : 1;
		rel_del(p, r, s);
		rel_del(q, r, s ^ 1);
	}
	act__links_unlock2(p, q);
	free(r);
	return 0;
}

int act__links_monitor_ref(struct act__rt *rt, struct act__proc *p, act_pid pid,
			   uint64_t ref)
{
	struct act__rel *r = calloc(1, sizeof(*r));
	struct act__proc *q;

	if (!r)
		return -ENOMEM;
	r->ref = ref;
	if (act__unlikely(is_remote(pid))) {
		int rc = remote_rel(rt, p, pid, r);

		if (rc < 0)
			free(r);
		return rc;
	}
	q = act__proc_lookup(&rt->procs, pid);
	if (q) {
		act__links_lock2(p, q);
		if (act__links_proc_live(&rt->procs, q, pid) ||
		    links_watch_open(&rt->procs, q, pid)) {
			r->end[0] = p->pid;
			r->end[1] = pid;
			rel_add(p, r, 0);
			rel_add(q, r, 1);
			r = NULL;
		}
		act__links_unlock2(p, q);
	}
	if (!r)
		return 0;
	free(r);
	return -ESRCH;
}

int act_monitor_ref(act_pid pid, uint64_t *ref)
{
	struct act__worker *w;
	struct act__proc *p = current(&w);
	uint64_t r;
	int rc;

	if (!p)
		return -EPERM;
	if (!ref)
		return -EINVAL;
	r = new_ref();
	rc = act__links_monitor_ref(w->rt, p, pid, r);
	if (!rc)
		*ref = r;
	return rc;
}

/* Erlang's monitor/2: a pid not alive gets its DOWN (NOPROC) at once. */
uint64_t act_monitor(act_pid pid)
{
	struct act__worker *w;
	struct act__proc *p = current(&w);
	uint64_t ref;
	int rc;

	if (!p)
		return 0;
	ref = new_ref();
	rc = act__links_monitor_ref(w->rt, p, pid, ref);
	if (rc == -ESRCH || rc == -ENOTCONN)
		rc = send_signal_msg(w->rt, p->pid, ACT_TAG_DOWN, pid,
				     rc == -ESRCH ? ACT_EXIT_NOPROC :
						    ACT_EXIT_NOCONNECTION,
				     ref);
	return rc ? 0 : ref;
}

static bool match_down(const struct act_msg *m, void *ctx)
{
	const struct act_exit_info *d = m->data;

	/* a DOWN from another node with a term for its reason has the
	 * term's bytes after the struct */
	return m->tag == ACT_TAG_DOWN && m->len >= sizeof(*d) &&
	       d->ref == *(const uint64_t *)ctx;
}

bool act__links_unmonitor(struct act__rt *rt, struct act__proc *p, uint64_t ref)
{
	struct act__proc *q;
	struct act__rel *r;
	act_pid target, via = ACT_PID_NONE;

	act__proc_lock(p);
	r = monitor_find(p, ref);
	if (r) {
		target = r->end[1];
		via = r->via;
	}
	act__proc_unlock(p);
	if (!r)
		return false;
	q = end_slot(rt, target, via);
	act__links_lock2(p, q);
	r = monitor_find(p, ref);
	if (r) {
		rel_del(p, r, 0);
		rel_del(q, r, 1);
	}
	act__links_unlock2(p, q);
	if (!r)
		return false;
	if (via.id) /* the remote end's monitor goes too */
		tell_via(rt, via, ACT__SIG_DEMONITOR, p->pid, target, 0, ref);
	free(r);
	return true;
}

int act_demonitor(uint64_t ref)
{
	struct act__worker *w;
	struct act__proc *p = current(&w);
	struct act_msg *m;

	if (!p)
		return -EPERM;
	if (!ref)
		return -ENOENT;
	if (act__links_unmonitor(w->rt, p, ref))
		return 0;
	/* fired: its DOWN was pushed under p's lock, before the node went;
	 * a sender still between its exchange and its link in the mailbox
	 * can hide it from a pop for a moment, so look until the queue is
	 * seen empty (the rest of the mail goes to the save queue) */
	for (;;) {
		m = act_receive_match(match_down, &ref, 0);
		if (m) {
			act_msg_free(m);
			return 0;
		}
		if (!act__mailbox_maybe_nonempty(p))
			return -ENOENT;
		act__spin_relax();
	}
}

bool act_trap_exit(bool on)
{
	struct act__worker *w;
	struct act__proc *p = current(&w);
	bool old;

	if (!p)
		return false;
	act__proc_lock(p);
	old = p->trap_exit;
	p->trap_exit = on;
	act__proc_unlock(p);
	return old;
}

int act_on_exit(void (*fn)(void *arg), void *arg)
{
	struct act__worker *w;
	struct act__proc *p = current(&w);
	struct act__exit_fn *f;

	if (!p)
		return -EPERM;
	if (!fn)
		return -EINVAL;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fn = fn;
	f->arg = arg;
	f->next = p->on_exit;
	p->on_exit = f;
	return 0;
}

/* ---- from a node's connection process (lib/dist) ------------------------- */

/* Under both locks: local `to`'s link with remote `from` through via */
static struct act__rel *remote_link_find(struct act__proc *p, act_pid from,
					 act_pid via)
{
	struct act__rel *r = link_find(p, from);

	return r && r->via.id == via.id ? r : NULL;
}

int act__links_remote_link(struct act__rt *rt, act_pid via, act_pid from,
			   act_pid to)
{
	struct act__proc *p = act__proc_lookup(&rt->procs, to),
			 *q = act__proc_lookup(&rt->procs, via);
	struct act__rel *r;
	int rc = 0;

	if (!p)
		return -ESRCH;
	if (!q)
		return 0; /* the connection is going: noconnection there */
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	act__links_lock2(p, q);
	if (!act__links_proc_live(&rt->procs, p, to))
		rc = -ESRCH;
	else if (act__links_proc_live(&rt->procs, q, via) &&
		 !link_find(p, from)) {
		r->end[0] = to;
		r->end[1] = from;
		r->via = via;
		rel_add(p, r, 0);
		rel_add(q, r, 1);
		r = NULL;
	}
	act__links_unlock2(p, q);
	free(r);
	return rc;
}

void act__links_remote_unlink(struct act__rt *rt, act_pid via, act_pid from,
			      act_pid to)
{
	struct act__proc *p = act__proc_lookup(&rt->procs, to),
			 *q = act__proc_lookup(&rt->procs, via);
	struct act__rel *r = NULL;

	if (!p || !q)
		return;
	act__links_lock2(p, q);
	if (act__links_proc_live(&rt->procs, p, to))
		r = remote_link_find(p, from, via);
	if (r) {
		rel_del(p, r, 0);
		rel_del(q, r, 1);
	}
	act__links_unlock2(p, q);
	free(r);
}

void act__links_remote_exit(struct act__rt *rt, act_pid via, act_pid from,
			    act_pid to, intptr_t reason, bool link,
			    bool untrappable, const void *term, size_t term_len)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = act__proc_lookup(&rt->procs, to),
			 *q = act__proc_lookup(&rt->procs, via);
	struct act__rel *r = NULL;
	int die = 0;

	if (!p || !q)
		return;
	act__links_lock2(p, q);
	if (act__links_proc_live(&rt->procs, p, to)) {
		r = link ? remote_link_find(p, from, via) : NULL;
		if (r) {
			rel_del(p, r, 0);
			rel_del(q, r, 1);
		}
		if (r || !link)
			die = signal_locked_t(rt, p, to, from, reason,
					      untrappable, term, term_len);
	}
	act__links_unlock2(p, q);
	if (die == 1)
		kill_wake(w, p);
	free(r);
}

void act__links_remote_down(struct act__rt *rt, act_pid via, act_pid from,
			    act_pid to, uint64_t ref, intptr_t reason,
			    const void *term, size_t term_len)
{
	struct act__proc *p = act__proc_lookup(&rt->procs, to),
			 *q = act__proc_lookup(&rt->procs, via);
	struct act__rel *r = NULL;

	if (!p || !q)
		return;
	act__links_lock2(p, q);
	if (act__links_proc_live(&rt->procs, p, to)) {
		r = monitor_find(p, ref);
		if (r && (r->via.id != via.id || r->end[1].id != from.id))
			r = NULL;
		if (r) {
			rel_del(p, r, 0);
			rel_del(q, r, 1);
			send_signal_msg_t(rt, to, ACT_TAG_DOWN, from, reason,
					  ref, term, term_len);
		}
	}
	act__links_unlock2(p, q);
	free(r);
}
