/* SPDX-License-Identifier: MIT */
/*
 * links.h - links, monitors, exit signals, exit handlers and names: the
 * process lifecycle of doc/design/lifecycle.md. The mailbox limit's
 * count is the mailbox's (proc/mailbox.h); the kill at the limit is a
 * send's (message.c), as an exit signal from here.
 *
 * A relation (a link, or a monitor) is one node on two processes' lists:
 * a link on both ends' `links`, a monitor on its watcher's `monitors`
 * (side 0) and its target's `watchers` (side 1). A node changes only
 * under both processes' slot locks, taken in slot-index order (lock2),
 * so it is on both lists or on neither, and a process that has a node
 * on its list has not finished its exit: the other end's slot still
 * holds the process the node names.
 *
 * Exit: the process is EXITING (set under its lock, after its exit
 * handlers ran on its own stack); then, on its worker's stack, its name
 * goes and its relations are taken one at a time, each under both locks,
 * and the signal is delivered under the other end's lock: an EXIT or
 * DOWN message pushed, or `killed` set with the reason. The wake that
 * follows goes through the same CAS as a message's (wake.h).
 */
#ifndef ACT_LINKS_H
#define ACT_LINKS_H

#include <stdbool.h>
#include <stdint.h>

#include "actors.h"
#include "proc/proc.h"

struct act__rt;
struct act__worker;

struct act__rel {
	struct act__rel *next[2], *prev[2]; /* on end[0]'s and end[1]'s list */
	act_pid end[2]; /* a link: its two ends; a monitor: the watcher,
			 * then the target */
	uint64_t ref;	/* a monitor's reference; 0 for a link */
	int visits;	/* at stop: ends that let go of it (reclaim) */
	/* A relation with a remote process (lib/dist; end[1] the remote
	 * pid, bit 63): the node's connection process, whose slot holds
	 * the relation's second side; 0 for a local relation */
	act_pid via;
};

/*
 * What a relation with a remote process tells the node's connection
 * process (lib/dist/conn.c), tag ACT__TAG_LINK_SIG, as a system message:
 * op is the distribution's control message to send (ACT__SIG_*), from
 * the local process, to the remote one.
 */
#define ACT__TAG_LINK_SIG 0xffffffe4u
enum {
	ACT__SIG_LINK = 1,	 /* a link made */
	ACT__SIG_EXIT = 3,	 /* from, linked to `to`, exited (reason) */
	ACT__SIG_EXIT2 = 8,	 /* act_kill(to, reason) */
	ACT__SIG_MONITOR = 19,	 /* from monitors `to` (ref) */
	ACT__SIG_DEMONITOR = 20, /* that monitor taken away (ref) */
	ACT__SIG_UNLINK = 35,	 /* the link taken away (ref: its id) */
	ACT__SIG_UNLINK_ACK = 36 /* the peer's unlink done (ref: its id) */
};
struct act__links_sig {
	uint32_t op;
	uint32_t rsvd;
	act_pid from, to;
	intptr_t reason;
	uint64_t ref;
};

/*
 * A send's, a link's, a monitor's or a kill's way to remote pid `to`:
 * its node's connection process in *via, connecting the node if need
 * be (a process's call). Defined in lib/dist/route.c, a layer above (the
 * list `hooks` of scripts/check-layers.sh). 0; -ESRCH when distribution
 * is not started or pid names no process met; -ENOTCONN when no
 * connection can be had.
 */
int act__route_proxy(struct act__rt *rt, act_pid to, act_pid *via);

/*
 * The connection process `via` (lib/dist) delivering what a remote
 * process `from` did to local process `to`:
 *   remote_link    a link made from there: 0, -ESRCH when `to` is not
 *                  alive (the caller answers with an exit, noproc)
 *   remote_unlink  that link taken away (0 whether it was there or not)
 *   remote_exit    its exit signal: with `link`, through their link,
 *                  which goes first (none: dropped, as in Erlang);
 *                  without, act_kill's from there (`untrappable` for
 *                  the reason kill)
 *   remote_down    the DOWN of local `to`'s monitor `ref` of it
 * term/term_len (or NULL, 0): a reason that is no ACT_EXIT_* and no
 * integer, as its term's bytes: reason is then ACT_EXIT_TERM and an
 * EXIT or DOWN message carries the bytes after its act_exit_info.
 */
int act__links_remote_link(struct act__rt *rt, act_pid via, act_pid from,
			   act_pid to);
void act__links_remote_unlink(struct act__rt *rt, act_pid via, act_pid from,
			      act_pid to);
void act__links_remote_exit(struct act__rt *rt, act_pid via, act_pid from,
			    act_pid to, intptr_t reason, bool link,
			    bool untrappable, const void *term,
			    size_t term_len);
void act__links_remote_down(struct act__rt *rt, act_pid via, act_pid from,
			    act_pid to, uint64_t ref, intptr_t reason,
			    const void *term, size_t term_len);

struct act__exit_fn {
	struct act__exit_fn *next;
	void (*fn)(void *);
	void *arg;
};

/* Spawn: a reused slot's lifecycle line is as the last exit left it
 * (checked in debug builds), before anyone knows its pid. */
void act__links_init(struct act__proc *p);

/* act_spawn_opt's ACT_SPAWN_LINK / ACT_SPAWN_MONITOR: the nodes, made
 * before the slot is taken, so that a spawn fails whole. */
struct act__spawn_rels {
	struct act__rel *link, *monitor;
};
int act__links_rels_alloc(struct act__rt *rt, uint32_t flags,
			  struct act__spawn_rels *r);
void act__links_rels_free(struct act__spawn_rels *r);
/* Parent p (running) and child c (not yet runnable): put them on. */
void act__links_rels_attach(struct act__proc *p, struct act__proc *c,
			    struct act__spawn_rels *r);

/* p, on its own stack, leaves: run its exit handlers, newest first. */
void act__links_run_exit_fns(struct act__proc *p);

/* act__links_exit (p EXITING, off its stack: its name, signals and
 * relations) is declared in sched/worker.h: the reap calls it. */

/* At stop, for a process the runtime discards: free what it holds,
 * without signals or handlers. Call for every such slot. */
void act__links_reclaim(struct act__proc *p);

/*
 * An exit signal from `who` with `reason` to pid (p its slot): the table
 * of doc/design/lifecycle.md; `untrappable` for ACT_EXIT_KILL and the
 * mailbox limit. w: the caller's worker or NULL. 0, or -ESRCH when pid
 * is not alive.
 */
int act__links_exit_signal(struct act__rt *rt, struct act__worker *w,
			   struct act__proc *p, act_pid pid, act_pid who,
			   intptr_t reason, bool untrappable);

/*
 * p, running: monitor pid under the reference ref (act_call's, from
 * act_make_ref). 0, -ESRCH when pid is not alive (no DOWN then), or
 * -ENOMEM. act__links_unmonitor: take p's monitor ref away; false when
 * it was not there (it fired: its DOWN is in p's mailbox, or was lost
 * to memory, which was said).
 */
int act__links_monitor_ref(struct act__rt *rt, struct act__proc *p, act_pid pid,
			   uint64_t ref);
bool act__links_unmonitor(struct act__rt *rt, struct act__proc *p,
			  uint64_t ref);

/* Slot-index order double locking; a == b takes one lock. */
void act__links_lock2(struct act__proc *a, struct act__proc *b);
void act__links_unlock2(struct act__proc *a, struct act__proc *b);

/* Under p's lock: p is the process pid names and is not EXITING. */
bool act__links_proc_live(const struct act__ptable *t, struct act__proc *p,
			  act_pid pid);

#endif /* ACT_LINKS_H */
