/* SPDX-License-Identifier: MIT */
/*
 * kill_churn.c - spawn, kill, spawn again into the freed slot: a killed
 * process dies exactly once, with the kill's reason, after its exit
 * handler ran once; a send to its pid is refused (or lands in its own
 * mailbox) and never reaches the slot's next occupant (I5).
 *
 * --drivers drivers share --iters cycles. A cycle of a driver:
 *   1. spawn a victim, monitored (ACT_SPAWN_MONITOR, or act_monitor right
 *      after the spawn); it adds an exit handler, then waits for messages
 *      (act_receive forever, or with a timeout, or polling between
 *      yields; by its record's mode);
 *   2. send the previous victim (killed in the last cycle) a message
 *      naming it: 0 or -ESRCH while its DOWN is not in, -ESRCH after;
 *   3. send the new victim 0-3 messages naming it;
 *   4. kill it with act_kill and a user reason of the cycle's own, at a
 *      moment drawn from the seed: at once (often before its first turn),
 *      after 1-4 yields, or once it has answered a PING (so surely in the
 *      middle of a receive); act_kill must return 0;
 *   5. wait for the previous victim's exit handler's BYE and then its
 *      DOWN, or, one cycle in four, for this victim's own at once, so that
 *      the next spawn takes a slot freed just now.
 * A victim checks that every message it receives names its own pid; its
 * exit handler counts its runs and sends BYE to the driver. On the DOWN
 * the driver checks: who/from = the victim, the reference, the reason;
 * the handler ran once if act_on_exit had returned (at most once in any
 * case), and its BYE came before the DOWN; act_demonitor of the fired
 * reference says -ENOENT. At the end no driver has anything left in its
 * mailbox (no second DOWN), the main process is alone, act_stats counts
 * every spawn, and its procs_peak (slots ever handed out) is far below
 * the cycles: at most the live processes plus what the workers' slot
 * caches may hold (ACT_SLOT_CACHE_MAX + ACT_SLOT_BATCH, 1,536, per
 * worker, lib/proc/proc.h), unless --max-slots sets the bound.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	KC_MSG = 1, /* driver -> victim; payload: the pid it is meant for */
	KC_PING,    /* driver -> victim; payload: the same; answer ACK */
	KC_ACK,	    /* victim -> driver; payload: its pid */
	KC_BYE,	    /* victim's exit handler -> driver; payload: its pid */
	KC_DONE,    /* driver -> main */
};

enum mode { /* how a victim waits */
	    M_FOREVER,
	    M_TIMEOUT,
	    M_POLL,
	    M_MODES,
};

enum moment { /* when its driver kills it */
	      AT_ONCE,
	      AFTER_YIELDS,
	      AFTER_PING,
	      MOMENTS,
};

#define SLOT_CACHE 1536 /* ACT_SLOT_CACHE_MAX + ACT_SLOT_BATCH */

static long n_drivers = 2, max_slots;

static const struct st_flag flags[] = {
	{ "drivers", &n_drivers, 1, 10000,
	  "processes that spawn and "
	  "kill" },
	{ "max-slots", &max_slots, 0, 1L << 32,
	  "fail if act_stats' "
	  "procs_peak exceeds it (0: live + 1,536 per worker)" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "kill_churn",
	.iters_name = "cycles",
	.iters_help = "spawn/kill cycles, over all drivers",
	.workers = 2,
	.iters = 100000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

/* One victim, as its driver and itself see it. */
struct victim {
	act_pid pid;				  /* driver */
	act_pid driver;				  /* set before the spawn */
	uint64_t ref;				  /* driver */
	intptr_t reason;			  /* driver */
	unsigned mode;				  /* set before the spawn */
	bool downed;				  /* driver: its DOWN is in */
	bool bye;				  /* driver: its BYE is in */
	_Atomic int started, armed, handler_runs; /* the victim */
	_Atomic uint64_t handler_pid;
};

static struct {
	act_pid main;
	_Atomic uint64_t spawned, killed, downs, byes, handlers;
	_Atomic uint64_t sent, esrch, stale_sent, stale_esrch, received;
	_Atomic uint64_t before_first_turn, mid_receive;
	_Atomic uint64_t misdelivered, bad_down, bad_handler, send_errors;
	_Atomic uint64_t leftover, errors;
	uint64_t stats_spawns, alive, peak, workers;
} kc;

/* ---- victims ------------------------------------------------------------- */

static void handler(void *arg)
{
	struct victim *r = arg;
	act_pid self = act_self();

	atomic_fetch_add_explicit(&r->handler_runs, 1, memory_order_relaxed);
	atomic_store_explicit(&r->handler_pid, self.id, memory_order_relaxed);
	st_add(&kc.handlers, 1);
	/* a handler may send; its BYE arrives before the DOWN */
	if (act_send(r->driver, KC_BYE, &self, sizeof(self)))
		st_report(&kc.errors, "BYE not sent");
}

static void take(struct victim *r, struct act_msg *m)
{
	act_pid meant;

	st_add(&kc.received, 1);
	if ((m->tag != KC_MSG && m->tag != KC_PING) ||
	    m->len != sizeof(meant)) {
		st_report(&kc.errors, "victim: tag %#x, %zu bytes", m->tag,
			  m->len);
		return;
	}
	memcpy(&meant, m->data, sizeof(meant));
	if (!act_pid_eq(meant, act_self())) {
		st_report(&kc.misdelivered,
			  "a message for %" PRIx64 " reached %" PRIx64,
			  meant.id, act_self().id);
		return;
	}
	if (m->tag == KC_PING &&
	    act_send(r->driver, KC_ACK, &meant, sizeof(meant)))
		st_report(&kc.errors, "ACK not sent");
}

static void victim(void *arg)
{
	struct victim *r = arg;
	struct act_msg *m;
	int rc;

	atomic_store_explicit(&r->started, 1, memory_order_relaxed);
	rc = act_on_exit(handler, r);
	if (rc)
		st_report(&kc.errors, "act_on_exit: %s", strerror(-rc));
	else
		atomic_store_explicit(&r->armed, 1, memory_order_relaxed);
	for (;;) { /* until killed: it never returns */
		switch (r->mode) {
		case M_FOREVER:
			m = act_receive(ACT_FOREVER);
			if (!m)
				st_report(&kc.errors, "act_receive(FOREVER) "
						      "gave NULL");
			break;
		case M_TIMEOUT:
			m = act_receive(50000);
			break;
		default:
			act_yield();
			m = act_receive(0);
			break;
		}
		if (m) {
			take(r, m);
			act_msg_free(m);
		}
	}
}

/* ---- drivers ------------------------------------------------------------- */

static void send_counted(act_pid to, uint32_t tag, bool stale, bool gone)
{
	int rc = act_send(to, tag, &to, sizeof(to));

	if (rc == 0 && !gone) {
		st_add(stale ? &kc.stale_sent : &kc.sent, 1);
	} else if (rc == -ESRCH && stale) {
		st_add(&kc.stale_esrch, 1);
	} else {
		st_report(&kc.send_errors, "send to %s %" PRIx64 ": %s",
			  stale ? (gone ? "a DOWNed victim" :
					  "a killed victim") :
				  "a live victim",
			  to.id, rc ? strerror(-rc) : "0 (accepted)");
	}
}

static bool match_ack(const struct act_msg *m, void *ctx)
{
	const act_pid *pid = ctx;

	return m->tag == KC_ACK && m->len == sizeof(*pid) &&
	       !memcmp(m->data, pid, sizeof(*pid));
}

/* The BYE or the DOWN of r, in mailbox order. */
static bool match_end(const struct act_msg *m, void *ctx)
{
	const struct victim *r = ctx;
	struct act_exit_info info;

	if (m->tag == KC_BYE)
		return act_pid_eq(m->from, r->pid);
	if (m->tag != ACT_TAG_DOWN || m->len != sizeof(info))
		return false;
	memcpy(&info, m->data, sizeof(info));
	return info.ref == r->ref;
}

/* Takes r's BYE (if its handler ran) and DOWN, and checks them. */
static void await_end(struct victim *r)
{
	struct act_exit_info info;
	struct act_msg *m;
	int runs, rc;

	while (!r->downed) {
		m = act_receive_match(match_end, r, ACT_FOREVER);
		if (!m) {
			st_report(&kc.errors, "driver: receive gave NULL");
			return;
		}
		if (m->tag == KC_BYE) {
			if (r->bye)
				st_report(&kc.bad_handler,
					  "two BYEs from %" PRIx64, r->pid.id);
			r->bye = true;
			st_add(&kc.byes, 1);
			act_msg_free(m);
			continue;
		}
		memcpy(&info, m->data, sizeof(info));
		r->downed = true;
		st_add(&kc.downs, 1);
		if (!act_pid_eq(info.who, r->pid) ||
		    !act_pid_eq(m->from, r->pid) || info.reason != r->reason)
			st_report(&kc.bad_down,
				  "DOWN of %" PRIx64 ": who %" PRIx64
				  ", from %" PRIx64 ", reason %" PRIdPTR
				  " (want %" PRIdPTR ")",
				  r->pid.id, info.who.id, m->from.id,
				  info.reason, r->reason);
		act_msg_free(m);
	}
	runs = atomic_load_explicit(&r->handler_runs, memory_order_relaxed);
	if (runs > 1 ||
	    (atomic_load_explicit(&r->armed, memory_order_relaxed) &&
	     runs != 1) ||
	    r->bye != (runs == 1) ||
	    (runs && atomic_load_explicit(&r->handler_pid,
					  memory_order_relaxed) != r->pid.id))
		st_report(&kc.bad_handler,
			  "victim %" PRIx64 ": at its DOWN, "
			  "handler ran %d times (armed %d), BYE %s",
			  r->pid.id, runs, atomic_load(&r->armed),
			  r->bye ? "in" : "not in");
	if (atomic_load_explicit(&r->started, memory_order_relaxed))
		st_add(&kc.mid_receive, 1);
	else
		st_add(&kc.before_first_turn, 1);
	rc = act_demonitor(r->ref);
	if (rc != -ENOENT)
		st_report(&kc.bad_down, "act_demonitor of a fired monitor: %d",
			  rc);
}

static void driver(void *arg)
{
	uint64_t d = (uintptr_t)arg, i, n;
	struct victim *ring, *cur, *prev = NULL;
	struct act_spawn_opts o = { .flags = ACT_SPAWN_MONITOR };
	struct st_rng rng;
	unsigned k, moment;
	act_pid pid;
	int rc;

	n = (uint64_t)args.iters / (uint64_t)n_drivers +
	    (d < (uint64_t)args.iters % (uint64_t)n_drivers);
	ring = calloc(2, sizeof(*ring));
	if (!ring) {
		st_report(&kc.errors, "out of memory");
		goto out;
	}
	st_rng_init(&rng, args.seed, d);
	for (i = 0; i < n; i++) {
		cur = &ring[i % 2];
		memset(cur, 0, sizeof(*cur));
		cur->driver = act_self();
		cur->mode = st_rng_below(&rng, M_MODES);
		cur->reason = (intptr_t)(1 + st_rng_below(&rng, 1u << 30));
		if (st_rng_below(&rng, 4)) {
			o.monitor_ref = &cur->ref;
			pid = act_spawn_opt(victim, cur, &o);
		} else {
			pid = act_spawn(victim, cur);
			cur->ref = pid.id ? act_monitor(pid) : 0;
			if (pid.id && !cur->ref)
				st_report(&kc.errors, "act_monitor failed");
		}
		if (!pid.id || !cur->ref) {
			st_report(&kc.errors, "spawn failed");
			break;
		}
		cur->pid = pid;
		st_add(&kc.spawned, 1);
		if (prev) /* killed last cycle; the slot may be pid's now */
			send_counted(prev->pid, KC_MSG, true, prev->downed);
		for (k = st_rng_below(&rng, 4); k; k--)
			send_counted(pid, KC_MSG, false, false);
		moment = st_rng_below(&rng, MOMENTS);
		if (moment == AFTER_YIELDS) {
			for (k = 1 + st_rng_below(&rng, 4); k; k--)
				act_yield();
		} else if (moment == AFTER_PING) {
			send_counted(pid, KC_PING, false, false);
			act_msg_free(act_receive_match(match_ack, &pid,
						       ACT_FOREVER));
		}
		rc = act_kill(pid, cur->reason);
		if (rc)
			st_report(&kc.errors, "act_kill of a live victim: %s",
				  strerror(-rc));
		st_add(&kc.killed, 1);
		if (prev) {
			await_end(prev);
			send_counted(prev->pid, KC_MSG, true, true);
			prev = NULL;
		}
		if (st_rng_below(&rng, 4) == 0) {
			await_end(cur);
			send_counted(cur->pid, KC_MSG, true, true);
		} else {
			prev = cur;
		}
	}
	if (prev)
		await_end(prev);
	/* nothing may be left: no second DOWN, no stray BYE or ACK */
	act_sleep(2000000);
	{
		struct act_msg *m;

		while ((m = act_receive(0)) != NULL) {
			st_report(&kc.leftover,
				  "driver: tag %#x left over "
				  "from %" PRIx64,
				  m->tag, m->from.id);
			act_msg_free(m);
		}
	}
	free(ring);
out:
	if (act_send(kc.main, KC_DONE, NULL, 0))
		st_report(&kc.errors, "DONE not sent");
}

/* ---- the main process ---------------------------------------------------- */

static void read_stats(void)
{
	int n = act_workers();
	struct act_worker_stats *w = calloc((size_t)n, sizeof(*w));
	struct act_stats s;

	if (!w || act_stats(&s, w, n) != n) {
		st_report(&kc.errors, "act_stats failed");
	} else {
		kc.stats_spawns = ST_STATS_SUM(w, n, spawns);
		kc.alive = s.procs_alive;
		kc.peak = s.procs_peak;
		kc.workers = (uint64_t)n;
	}
	free(w);
}

static void kc_main(void *arg)
{
	struct act_msg *m;
	long i;

	(void)arg;
	kc.main = act_self();
	for (i = 0; i < n_drivers; i++)
		if (!act_spawn(driver, (void *)(uintptr_t)i).id) {
			st_report(&kc.errors, "spawn of a driver failed");
			return;
		}
	for (i = 0; i < n_drivers; i++) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != KC_DONE)
			st_report(&kc.errors, "main: tag %#x, not DONE",
				  m ? m->tag : 0);
		act_msg_free(m);
	}
	do { /* the drivers' exits */
		act_sleep(1000000);
		read_stats();
	} while (kc.alive > 1 && !st_get(&kc.errors));
}

/* ---- checks and result --------------------------------------------------- */

static void check_counts(void)
{
	uint64_t spawned = st_get(&kc.spawned);
	uint64_t bound = max_slots ? (uint64_t)max_slots :
				     1 + (uint64_t)n_drivers * 3 +
					     kc.workers * SLOT_CACHE;

	if (spawned != (uint64_t)args.iters || st_get(&kc.killed) != spawned ||
	    st_get(&kc.downs) != spawned)
		st_report(&kc.errors,
			  "%" PRIu64 " spawned, %" PRIu64 " killed, %" PRIu64
			  " DOWNs, want %ld each",
			  spawned, st_get(&kc.killed), st_get(&kc.downs),
			  args.iters);
	if (st_get(&kc.byes) != st_get(&kc.handlers))
		st_report(&kc.errors,
			  "%" PRIu64 " handler runs, %" PRIu64 " BYEs",
			  st_get(&kc.handlers), st_get(&kc.byes));
	if (kc.stats_spawns != spawned + (uint64_t)n_drivers + 1)
		st_report(&kc.errors,
			  "act_stats counts %" PRIu64 " spawns, "
			  "want %" PRIu64,
			  kc.stats_spawns, spawned + (uint64_t)n_drivers + 1);
	if (kc.alive != 1)
		st_report(&kc.errors, "%" PRIu64 " processes alive at the end",
			  kc.alive);
	if (kc.peak > bound)
		st_report(&kc.errors,
			  "act_stats' procs_peak %" PRIu64 " over "
			  "%" PRIu64 ": slots not reused",
			  kc.peak, bound);
	if (st_get(&kc.received) > st_get(&kc.sent))
		st_report(&kc.errors,
			  "received %" PRIu64 " > sent %" PRIu64
			  " to live victims",
			  st_get(&kc.received), st_get(&kc.sent));
}

static uint64_t kc_progress(void)
{
	return st_get(&kc.spawned) + st_get(&kc.downs) + st_get(&kc.received);
}

static void kc_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "spawned %" PRIu64 ", killed %" PRIu64 " (%" PRIu64
		 " before their first turn), DOWNs %" PRIu64
		 ", handlers %" PRIu64 ", BYEs %" PRIu64 ", sent %" PRIu64
		 ", received %" PRIu64 ", to killed pids %" PRIu64
		 " accepted %" PRIu64 " ESRCH, misdelivered %" PRIu64
		 ", bad DOWN %" PRIu64 ", bad handler %" PRIu64
		 ", send errors %" PRIu64 ", left over %" PRIu64
		 ", errors %" PRIu64 ", slots peak %" PRIu64,
		 st_get(&kc.spawned), st_get(&kc.killed),
		 st_get(&kc.before_first_turn), st_get(&kc.downs),
		 st_get(&kc.handlers), st_get(&kc.byes), st_get(&kc.sent),
		 st_get(&kc.received), st_get(&kc.stale_sent),
		 st_get(&kc.stale_esrch), st_get(&kc.misdelivered),
		 st_get(&kc.bad_down), st_get(&kc.bad_handler),
		 st_get(&kc.send_errors), st_get(&kc.leftover),
		 st_get(&kc.errors), kc.peak);
}

static uint64_t kc_violations(void)
{
	return st_get(&kc.misdelivered) + st_get(&kc.bad_down) +
	       st_get(&kc.bad_handler) + st_get(&kc.send_errors) +
	       st_get(&kc.leftover) + st_get(&kc.errors);
}

int st_main_kill_churn(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = kc_figures,
		.progress = kc_progress,
		.violations = kc_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	rc = st_run(&w, kc_main, NULL);
	if (!rc)
		check_counts();
	return st_finish(&w, rc, kc_violations());
}
