/* SPDX-License-Identifier: MIT */
/*
 * info.c - act_process_info, act_process_next, act_dump and the
 * ACTORS_DUMP_SIGNAL handler.
 *
 * Any thread reads any process's slot (doc/design/overview.md
 * "Observers"). Slots are type-stable (I5): a reader loads the
 * generation before and after and gives -ESRCH if the occupant changed
 * in between. The fields the owner writes as it runs (state, worker,
 * reductions, the wait: proc.h) are read relaxed, a snapshot; the
 * relations, the flags of the fourth line and the name under the slot's
 * lock, as links.c and registry.c change them; the mailbox by a bounded
 * walk (act__mailbox_count), exact when the owner did not run during
 * it.
 *
 * A process's relations with processes of other nodes (lib/dist) are
 * on its lists as any other's, their other side on the node's
 * connection process: act_dump names them with their node under the
 * process's line, through act__route_figures (a hook into lib/dist/
 * route.c), which also tells which processes are the connections.
 *
 * The signal: the handler only sets the reactor's dump_req and rings
 * its doorbell (atomics and one write or FUTEX_WAKE: async-signal-safe);
 * the reactor thread, which takes no signal itself, prints the dump
 * through act__info_dump_requested.
 */
#include <dlfcn.h>
#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "actor/blocking.h"
#include "actor/links.h"
#include "actor/registry.h"
#include "info.h"
#include "observe.h"
#include "proc/mailbox.h"
#include "proc/pidfmt.h"
#include "reactor/reactor.h"
#include "reactor/reactor_obs.h"
#include "sched/rt.h"

/* Nodes a mailbox walk follows at most, and its tries at an exact one. */
#define WALK_MAX (1ul << 22)
#define WALK_TRIES 4
/* Relations a list walk counts at most (under the lock: a bound only
 * against a list gone wrong). */
#define REL_MAX (1u << 30)

static int public_state(unsigned st)
{
	switch (st) {
	case ACT_PS_RUNNABLE:
		return ACT_PROC_RUNNABLE;
	case ACT_PS_RUNNING:
		return ACT_PROC_RUNNING;
	case ACT_PS_WAITING:
		return ACT_PROC_WAITING;
	case ACT_PS_MUTED:
		return ACT_PROC_MUTED;
	case ACT_PS_IOWAIT:
		return ACT_PROC_IOWAIT;
	default:
		return ACT_PROC_EXITING;
	}
}

static int public_op(unsigned op)
{
	switch (op) {
	case IORING_OP_READ:
		return ACT_IO_OP_READ;
	case IORING_OP_WRITE:
		return ACT_IO_OP_WRITE;
	case IORING_OP_RECV:
		return ACT_IO_OP_RECV;
	case IORING_OP_SEND:
		return ACT_IO_OP_SEND;
	case IORING_OP_ACCEPT:
		return ACT_IO_OP_ACCEPT;
	case IORING_OP_CONNECT:
		return ACT_IO_OP_CONNECT;
	case IORING_OP_CLOSE:
		return ACT_IO_OP_CLOSE;
	case IORING_OP_POLL_ADD:
		return ACT_IO_OP_POLL;
	case IORING_OP_FSYNC:
		return ACT_IO_OP_FSYNC;
	default:
		return ACT_IO_OP_OTHER;
	}
}

/* What p, in state st, waits for: wait_kind and the fifth line's
 * fields (proc.h), which the owner wrote before the park published st. */
static void wait_info(struct act__proc *p, unsigned st,
		      struct act_process_info *info)
{
	static const int kinds[] = { [ACT_WK_ANY] = ACT_WAIT_MESSAGE,
				     [ACT_WK_MATCH] = ACT_WAIT_MATCH,
				     [ACT_WK_SLEEP] = ACT_WAIT_SLEEP };
	unsigned k;

	info->wait_fd = -1;
	switch (st) {
	case ACT_PS_WAITING:
		k = atomic_load_explicit(&p->wait_kind, memory_order_relaxed);
		info->wait = (k & ~ACT_WK_TIMED) < 3 ?
				     kinds[k & ~ACT_WK_TIMED] :
				     ACT_WAIT_MESSAGE;
		/* an untimed wait leaves the deadline as it was */
		if (k & ACT_WK_TIMED)
			info->wait_deadline = atomic_load_explicit(
				&p->wait_deadline, memory_order_relaxed);
		break;
	case ACT_PS_IOWAIT:
		k = atomic_load_explicit(&p->wait_op, memory_order_relaxed);
		if (k == ACT_IO_WAIT_BLOCKING) {
			info->wait = ACT_WAIT_BLOCKING;
			break;
		}
		info->wait = ACT_WAIT_IO;
		info->wait_io_op = public_op(k);
		info->wait_fd = (int)(uint32_t)atomic_load_explicit(
			&p->wait_on, memory_order_relaxed);
		break;
	case ACT_PS_MUTED:
		info->wait = ACT_WAIT_MUTED;
		info->wait_pid.id =
			atomic_load_explicit(&p->wait_on, memory_order_relaxed);
		break;
	default:
		info->wait = ACT_WAIT_NONE;
	}
}

static uint32_t rel_count(const struct act__rel *r, int side)
{
	uint32_t n = 0;

	for (; r && n < REL_MAX; r = r->next[side])
		n++;
	return n;
}

/* Under p's lock, p being pid's: relations, flags, limit and name. */
static void locked_info(struct act__proc *p, struct act_process_info *info)
{
	info->links = p->n_links;
	info->monitors = rel_count(p->monitors, 0);
	info->monitored_by = rel_count(p->watchers, 1);
	info->trap_exit = p->trap_exit;
	if (atomic_load_explicit(&p->limited, memory_order_relaxed))
		info->mailbox_limit = atomic_load_explicit(
			&p->mbox_limit, memory_order_relaxed);
	act__registry_name_copy(p, info->name, sizeof(info->name));
}

/* A waiting state: the owner leaves the mailbox alone until it changes. */
static bool waits(uint64_t st)
{
	return act__ps(st) == ACT_PS_WAITING || act__ps(st) == ACT_PS_IOWAIT ||
	       act__ps(st) == ACT_PS_MUTED;
}

/*
 * pid's mailbox, walked until one walk saw the owner wait throughout:
 * the same state word (the ticket names the wait) and the same tails
 * before and after (a wake that only moved messages to the save queue
 * and parked again keeps the ticket, not the tails). Else the last walk's
 * count, flagged inexact.
 */
static void mailbox_info(struct act__proc *p, act_pid pid,
			 struct act_process_info *info)
{
	uint64_t s1, s2;
	uintptr_t m1, m2;
	long n = 0, c;
	int i;

	for (i = 0; i < WALK_TRIES; i++) {
		/* acquire: pairs with the park's CAS that published the
		 * wait (worker.c), so the owner's last pops come before */
		s1 = atomic_load_explicit(&p->state, memory_order_acquire);
		m1 = act__mailbox_count_stamp(p);
		/* no envelope goes back to malloc during the walk: it
		 * reads those the owner frees meanwhile (slab.h) */
		act__slab_walk_begin();
		c = act__mailbox_count(p, pid, WALK_MAX);
		act__slab_walk_end();
		if (c >= 0)
			n = c;
		/* acquire: orders the walk's loads before these */
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&p->state, memory_order_relaxed);
		m2 = act__mailbox_count_stamp(p);
		if (c >= 0 && s1 == s2 && m1 == m2 && waits(s1)) {
			info->mailbox_len = (uint64_t)n;
			return;
		}
	}
	info->mailbox_len = (uint64_t)n;
	info->flags |= ACT_INFO_MAILBOX_INEXACT;
}

static int proc_info(struct act__rt *rt, act_pid pid,
		     struct act_process_info *info)
{
	struct act__ptable *t = &rt->procs;
	struct act__proc *p = act__proc_lookup(t, pid);
	uint64_t gen = act__proc_pid_gen(t, pid), st;
	struct act__worker *o;

	if (!p)
		return -ESRCH;
	memset(info, 0, sizeof(*info));
#ifdef ACT__ABI_TEST_GROW
	memset(info->abi_test, 0x5a, sizeof(info->abi_test)); /* written */
#endif
	info->pid = pid;
	/* acquire: pairs with the release that made it RUNNABLE at spawn
	 * (its fn, its owner) and with the park's CAS (the wait fields) */
	st = atomic_load_explicit(&p->state, memory_order_acquire);
	if (act__ps(st) == ACT_PS_FREE)
		return -ESRCH;
	info->state = public_state(act__ps(st));
	o = atomic_load_explicit(&p->owner, memory_order_relaxed);
	info->worker = o ? (int)(o - rt->workers) : -1;
	info->reductions =
		atomic_load_explicit(&p->reductions, memory_order_relaxed);
	/* ticks of timed turns (ACTORS_TRACE, ACTORS_LONG_SCHEDULE) */
	info->run_ns = (uint64_t)act__clock_ticks_ns(
		atomic_load_explicit(&p->run_ticks, memory_order_relaxed),
		act__clock_cal_ratio(&rt->cal));
	/* set at spawn, before the RUNNABLE release read above */
	info->fn = atomic_load_explicit(&p->fn, memory_order_relaxed);
	wait_info(p, act__ps(st), info);
	act__proc_lock(p);
	if (atomic_load_explicit(&p->gen, memory_order_relaxed) == gen)
		locked_info(p, info);
	act__proc_unlock(p);
	mailbox_info(p, pid, info);
	/* acquire: pairs with the release store of gen in
	 * act__proc_slot_free: unchanged, every read above was of pid's */
	if (atomic_load_explicit(&p->gen, memory_order_acquire) != gen)
		return -ESRCH;
	return 0;
}

int act_process_info(act_pid pid, struct act_process_info *info)
{
	struct act__rt *rt;
	int rc;

	if (!info)
		return -EINVAL;
	rt = act__rt_enter(); /* pairs with the leave below */
	if (!rt)
		return -ESRCH;
	rc = proc_info(rt, pid, info);
	act__rt_leave(rt);
	return rc;
}

static act_pid next_live(struct act__rt *rt, act_pid prev)
{
	struct act__ptable *t = &rt->procs;
	uint64_t idx = prev.id ? (uint64_t)act__proc_pid_index(t, prev) + 1 : 0;
	/* acquire: pairs with grow's release (proc.c), after the slots'
	 * set-up, as act__proc_lookup's */
	uint32_t hwm = atomic_load_explicit(&t->hwm, memory_order_acquire);
	struct act__proc *p;
	uint64_t gen, st;

	for (; idx < hwm; idx++) {
		p = &t->slots[idx];
		/* acquire: pairs with the release store of gen in
		 * act__proc_slot_free, as act__proc_lookup's */
		gen = atomic_load_explicit(&p->gen, memory_order_acquire);
		st = atomic_load_explicit(&p->state, memory_order_relaxed);
		if (gen && gen <= t->gen_max && act__ps(st) != ACT_PS_FREE)
			return act__proc_make_pid(t, gen, (uint32_t)idx);
	}
	return ACT_PID_NONE;
}

act_pid act_process_next(act_pid prev)
{
	struct act__rt *rt = act__rt_enter(); /* pairs with the leave below */
	act_pid pid;

	if (!rt)
		return ACT_PID_NONE;
	pid = next_live(rt, prev);
	act__rt_leave(rt);
	return pid;
}

/* ---- act_dump ----------------------------------------------------------- */

static const char *state_name(int st)
{
	static const char *const names[] = {
		[ACT_PROC_RUNNABLE] = "runnable",
		[ACT_PROC_RUNNING] = "running",
		[ACT_PROC_WAITING] = "waiting",
		[ACT_PROC_MUTED] = "muted",
		[ACT_PROC_IOWAIT] = "iowait",
		[ACT_PROC_EXITING] = "exiting",
	};

	return st >= ACT_PROC_RUNNABLE && st <= ACT_PROC_EXITING ? names[st] :
								   "?";
}

static const char *op_name(int op)
{
	static const char *const names[] = {
		[ACT_IO_OP_NONE] = "none",	 [ACT_IO_OP_READ] = "read",
		[ACT_IO_OP_WRITE] = "write",	 [ACT_IO_OP_RECV] = "recv",
		[ACT_IO_OP_SEND] = "send",	 [ACT_IO_OP_ACCEPT] = "accept",
		[ACT_IO_OP_CONNECT] = "connect", [ACT_IO_OP_CLOSE] = "close",
		[ACT_IO_OP_POLL] = "poll",	 [ACT_IO_OP_OTHER] = "other",
		[ACT_IO_OP_FSYNC] = "fsync",
	};

	return op >= 0 && op <= ACT_IO_OP_FSYNC ? names[op] : "?";
}

/* The waits-for field: one word, no blank ("-", "message+12.5ms",
 * "io:read:7", "muted:<0.1.1>"). */
static void waits_for(const struct act_process_info *i, int64_t now, char *buf,
		      size_t len)
{
	static const char *const kinds[] = { [ACT_WAIT_MESSAGE] = "message",
					     [ACT_WAIT_MATCH] = "match",
					     [ACT_WAIT_SLEEP] = "sleep" };
	char pid[ACT_PID_STRLEN];
	int64_t left;

	switch (i->wait) {
	case ACT_WAIT_MESSAGE:
	case ACT_WAIT_MATCH:
	case ACT_WAIT_SLEEP:
		if (!i->wait_deadline) {
			snprintf(buf, len, "%s", kinds[i->wait]);
			break;
		}
		left = i->wait_deadline > now ? i->wait_deadline - now : 0;
		snprintf(buf, len, "%s+%.3fms", kinds[i->wait], left / 1e6);
		break;
	case ACT_WAIT_IO:
		snprintf(buf, len, "io:%s:%d", op_name(i->wait_io_op),
			 i->wait_fd);
		break;
	case ACT_WAIT_MUTED:
		act_pid_format(i->wait_pid, pid, sizeof(pid));
		snprintf(buf, len, "muted:%s", pid);
		break;
	case ACT_WAIT_BLOCKING:
		snprintf(buf, len, "blocking");
		break;
	default:
		snprintf(buf, len, "-");
	}
}

/* The name field: its registered name, else fn= and the entry
 * function's symbol (act__observe_symbol, as the trace names it), else
 * its object and offset, else its address. */
static void who(const struct act_process_info *i, char *buf, size_t len)
{
	/* a function pointer as the object address dladdr takes: POSIX
	 * allows the conversion (dlsym returns one the other way) */
	void *fn = *(void *const *)(const void *)&i->fn;
	const char *base, *sym;
	Dl_info dl;

	if (i->name[0]) {
		snprintf(buf, len, "%s", i->name);
		return;
	}
	sym = act__observe_symbol((uintptr_t)fn);
	memset(&dl, 0, sizeof(dl));
	if (sym) {
		snprintf(buf, len, "fn=%s", sym);
	} else if (!dladdr(fn, &dl)) {
		snprintf(buf, len, "fn=%p", fn);
	} else {
		base = dl.dli_fname ? strrchr(dl.dli_fname, '/') : NULL;
		snprintf(buf, len, "fn=%s+%#lx",
			 base	      ? base + 1 :
			 dl.dli_fname ? dl.dli_fname :
					"?",
			 (unsigned long)((char *)fn - (char *)dl.dli_fbase));
	}
}

static void dump_line(FILE *out, const struct act_process_info *i, int64_t now,
		      const char *conn)
{
	char wait[64], name[ACT_NAME_MAX + 64], pid[ACT_PID_STRLEN];

	waits_for(i, now, wait, sizeof(wait));
	if (conn)
		snprintf(name, sizeof(name), "conn=%s", conn);
	else
		who(i, name, sizeof(name));
	act_pid_format(i->pid, pid, sizeof(pid));
	fprintf(out,
		"%-14s %-8s %6d %s%-7llu %12llu %10.3f %-22s %5u %4u %4u "
		"%-4s %s\n",
		pid, state_name(i->state), i->worker,
		i->flags & ACT_INFO_MAILBOX_INEXACT ? "~" : "",
		(unsigned long long)i->mailbox_len,
		(unsigned long long)i->reductions, i->run_ns / 1e6, wait,
		i->links, i->monitors, i->monitored_by,
		i->trap_exit ? "trap" : "-", name);
}

/* ---- act_dump: relations with remote processes (lib/dist) --------------- */

/* Nodes whose connection processes a dump knows, at most: a remote
 * process's monitor is the connection process's own here (lib/dist/
 * conn.c), and a dump names the node of those it knows. */
#define DUMP_CONNS 64
/* Remote relations named on a process's line, at most (the rest are
 * counted: "+N more"). */
#define DUMP_REMOTE 8

/* The nodes' connection processes as the dump began. */
struct conns {
	bool dist; /* distribution started */
	uint32_t n;
	act_pid pid[DUMP_CONNS];
	uint32_t num[DUMP_CONNS];
};

enum { REM_LINK, REM_MONITOR, REM_MONITORED_BY };

/* A process's relations with remote processes: the first DUMP_REMOTE */
struct remote {
	uint32_t n; /* all of them */
	struct {
		int kind;     /* REM_* */
		act_pid pid;  /* the remote process (none: MONITORED_BY) */
		uint32_t num; /* its node */
	} r[DUMP_REMOTE];
};

static void conns_of(struct act__rt *rt, struct conns *c)
{
	struct act__route_figures f;
	uint32_t num;

	c->n = 0;
	c->dist = false;
	for (num = 1; act__route_figures(rt, num, &f); num++) {
		c->dist = true;
		if (f.proxy.id && c->n < DUMP_CONNS) {
			c->pid[c->n] = f.proxy;
			c->num[c->n++] = num;
		}
	}
}

/* The node whose connection process pid is, or 0 */
static uint32_t conn_node(const struct conns *c, act_pid pid)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (c->pid[i].id == pid.id)
			return c->num[i];
	return 0;
}

static void remote_add(struct remote *rm, int kind, act_pid pid, uint32_t num)
{
	if (rm->n < DUMP_REMOTE) {
		rm->r[rm->n].kind = kind;
		rm->r[rm->n].pid = pid;
		rm->r[rm->n].num = num;
	}
	rm->n++;
}

/*
 * Under p's lock: p's relations with remote processes. A link or a
 * monitor of one has p as its first end and the remote pid as its
 * second, and its node's connection process (via) holds the second side
 * (actor/links.h), whose own lists are left out here; a remote
 * process's monitor of p is a monitor by that connection process.
 */
static void remote_locked(const struct act__proc *p, const struct conns *c,
			  struct remote *rm)
{
	const struct act__rel *r;
	uint32_t k = 0, num;
	int s;

	for (r = p->links; r && k < REL_MAX; r = r->next[s], k++) {
		s = r->end[0].id == p->pid.id ? 0 : 1;
		if (r->via.id && s == 0)
			remote_add(rm, REM_LINK, r->end[1],
				   act__pidfmt_node(r->end[1]));
	}
	for (r = p->monitors; r && k < REL_MAX; r = r->next[0], k++)
		if (r->via.id)
			remote_add(rm, REM_MONITOR, r->end[1],
				   act__pidfmt_node(r->end[1]));
	for (r = p->watchers; r && k < REL_MAX; r = r->next[1], k++)
		if (!r->via.id && (num = conn_node(c, r->end[0])) != 0)
			remote_add(rm, REM_MONITORED_BY, ACT_PID_NONE, num);
}

static void node_name(struct act__rt *rt, uint32_t num, char *buf, size_t len)
{
	struct act__route_figures f;

	if (act__route_figures(rt, num, &f))
		snprintf(buf, len, "%s", f.name);
	else
		snprintf(buf, len, "node%u", num);
}

/* The line under a process's that names its remote relations: each
 * remote pid with its node ("<3.12.0>@other@host") */
static void remote_line(struct act__rt *rt, FILE *out, const struct remote *rm)
{
	static const char *const kinds[] = { [REM_LINK] = "link",
					     [REM_MONITOR] = "monitor",
					     [REM_MONITORED_BY] =
						     "monitored-by" };
	char pid[ACT_PID_STRLEN], node[ACT__ROUTE_NAME_SIZE];
	uint32_t i;

	fprintf(out, "  remote:");
	for (i = 0; i < rm->n && i < DUMP_REMOTE; i++) {
		node_name(rt, rm->r[i].num, node, sizeof(node));
		if (rm->r[i].kind == REM_MONITORED_BY) {
			fprintf(out, "%s %s %s", i ? "," : "",
				kinds[rm->r[i].kind], node);
			continue;
		}
		act_pid_format(rm->r[i].pid, pid, sizeof(pid));
		fprintf(out, "%s %s %s@%s", i ? "," : "", kinds[rm->r[i].kind],
			pid, node);
	}
	if (rm->n > DUMP_REMOTE)
		fprintf(out, ", +%u more", rm->n - DUMP_REMOTE);
	fprintf(out, "\n");
}

/* pid's relations with remote processes, read as proc_info reads the
 * others (under its lock, its generation checked); a line if it has
 * any */
static void dump_remote(struct act__rt *rt, FILE *out, act_pid pid,
			const struct conns *c)
{
	struct act__ptable *t = &rt->procs;
	struct act__proc *p = act__proc_lookup(t, pid);
	uint64_t gen = act__proc_pid_gen(t, pid);
	struct remote rm;

	if (!p)
		return;
	rm.n = 0;
	act__proc_lock(p); /* pairs with the unlock below */
	if (atomic_load_explicit(&p->gen, memory_order_relaxed) == gen)
		remote_locked(p, c, &rm);
	act__proc_unlock(p);
	if (rm.n)
		remote_line(rt, out, &rm);
}

static int dump(struct act__rt *rt, FILE *out)
{
	struct act_process_info info;
	act_pid pid = ACT_PID_NONE;
	int64_t now = act__clock_now();
	char conn[ACT__ROUTE_NAME_SIZE];
	struct conns cs;
	uint32_t num;
	unsigned n = 0;

	conns_of(rt, &cs);
	fprintf(out,
		"%-14s %-8s %6s %-7s %12s %10s %-22s %5s %4s %4s %-4s %s\n",
		"PID", "STATE", "WORKER", "MAILBOX", "REDUCTIONS", "RUN_MS",
		"WAITS", "LINKS", "MONS", "MONBY", "TRAP", "NAME");
	while ((pid = next_live(rt, pid)).id) {
		if (proc_info(rt, pid, &info))
			continue; /* gone meanwhile */
		num = conn_node(&cs, pid);
		if (num)
			node_name(rt, num, conn, sizeof(conn));
		dump_line(out, &info, now, num ? conn : NULL);
		if (cs.dist && !num)
			dump_remote(rt, out, pid, &cs);
		n++;
	}
	fprintf(out, "actors: %u processes, %u workers\n", n, rt->nworkers);
	fflush(out);
	return 0;
}

int act_dump(FILE *out)
{
	struct act__rt *rt;
	int rc;

	if (!out)
		return -EINVAL;
	rt = act__rt_enter(); /* pairs with the leave below */
	if (!rt)
		return -ESRCH;
	rc = dump(rt, out);
	act__rt_leave(rt);
	return rc;
}

/* ---- ACTORS_DUMP_SIGNAL --------------------------------------------------- */

static struct act__reactor *_Atomic dump_reactor; /* NULL: no dump */
static _Atomic uint32_t in_handler;		  /* handlers inside */
static struct sigaction old_action;
static int dump_sig; /* installed for; 0: none */

static void on_dump_signal(int sig)
{
	int saved = errno;
	struct act__reactor *r;

	(void)sig;
	/* seq_cst: the Dekker pair with act__info_signal_stop's store of
	 * dump_reactor, then load of in_handler: it sees us inside, or we
	 * see NULL */
	atomic_fetch_add_explicit(&in_handler, 1, memory_order_seq_cst);
	/* seq_cst: the load half of the pair above */
	r = atomic_load_explicit(&dump_reactor, memory_order_seq_cst);
	if (r) {
		/* seq_cst: the store half of the Dekker pair with the
		 * reactor's prepare, then load of dump_req (reactor.c) */
		atomic_store_explicit(&r->dump_req, 1, memory_order_seq_cst);
		act__reactor_wake(r);
	}
	/* release: pairs with the seq_cst loads in act__info_signal_stop,
	 * so our use of r comes before the reactor is freed */
	atomic_fetch_sub_explicit(&in_handler, 1, memory_order_release);
	errno = saved;
}

int act__info_signal_start(struct act__rt *rt, int sig)
{
	struct sigaction sa;

	if (!sig)
		return 0;
	/* seq_cst (a release would do): the handler's load sees the
	 * reactor running */
	atomic_store_explicit(&dump_reactor, rt->reactor, memory_order_seq_cst);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_dump_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old_action)) {
		int rc = -errno;

		atomic_store_explicit(&dump_reactor, NULL,
				      memory_order_relaxed);
		return rc;
	}
	dump_sig = sig;
	return 0;
}

void act__info_signal_stop(void)
{
	if (!dump_sig)
		return;
	sigaction(dump_sig, &old_action, NULL);
	dump_sig = 0;
	/* seq_cst: the store half of the Dekker pair with on_dump_signal
	 * (its count-in, then load of dump_reactor) */
	atomic_store_explicit(&dump_reactor, NULL, memory_order_seq_cst);
	/* seq_cst: the load half; an acquire that pairs with the
	 * handler's release on the way out */
	while (atomic_load_explicit(&in_handler, memory_order_seq_cst))
		sched_yield();
}

void act__info_dump_requested(struct act__rt *rt)
{
	act_dump(stderr);
	(void)rt;
}
