/* SPDX-License-Identifier: MIT */
/*
 * exit_churn.c - processes come and go while others send to them: a send
 * to a dying or dead pid returns 0 or -ESRCH and nothing else, a message
 * never reaches another process than the one it names (I5), and every
 * process spawned is accounted for at the end.
 *
 * Spawners each spawn --iters children. A child, by its parent's PRNG:
 * returns at once; calls act_exit; yields 1-16 times, polling its mailbox
 * after each; waits for 1-8 messages, which its parent sends right after
 * the spawn; or (two levels deep at most) spawns 1-3 children of its own
 * and returns. For every other child it spawns, a spawner asks a random
 * sniper to shoot it: the sniper, woken by that request, yields 0-3 times,
 * sends to the child, then to pids drawn from a ring of recent children,
 * some altered to a later generation or to a slot never used. Every
 * message carries the pid its sender meant, and its receiver checks that
 * it is its own.
 *
 * No receive has a timeout: every wait ends because a message comes (a
 * child waiting for k messages gets its parent's k, unless snipers' ones
 * came first). The end: all spawned exited, act_stats agrees on the
 * number of spawns and shows the main process alone alive. Spawners keep
 * at most LIVE_MAX children alive, so act_stats' procs_peak (slots ever
 * handed out) should stay near that: it is printed, and --max-slots makes
 * a bound on it a check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <actors.h>

#include "common.h"

enum {
	EC_MSG = 1, /* payload: the pid its sender meant */
	EC_SHOOT,   /* to a sniper; payload: a pid to send to */
	EC_STOP,    /* to a sniper: no more SHOOTs */
	EC_DONE,
};

enum kind {
	K_RETURN,
	K_EXIT,
	K_YIELDS,
	K_MSGS,
	K_SPAWN,
	K_KINDS,
};

#define RECENT 1024   /* pids the snipers draw from */
#define EXTRA_SHOTS 2 /* sends at recent pids per SHOOT */
#define LIVE_MAX 4096 /* spawners wait while more children live */
#define DEPTH_MAX 2   /* spawner's children are depth 1 */

static long n_spawners = 4, n_snipers = 4, max_slots;

static const struct st_flag flags[] = {
	{ "spawners", &n_spawners, 1, 100000, "spawners" },
	{ "snipers", &n_snipers, 0, 100000,
	  "processes that send to dying pids" },
	{ "max-slots", &max_slots, 0, 1L << 32,
	  "fail if act_stats' procs_peak exceeds it (0: no limit)" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "exit_churn",
	.iters_name = "children",
	.iters_help = "children per spawner",
	.workers = 4,
	.iters = 100000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

static struct {
	act_pid main;
	act_pid *snipers; /* written before any spawner */
	_Atomic uint64_t spawned, exited, sent, esrch, received;
	_Atomic uint64_t send_errors, misdelivered, errors;
	_Atomic uint64_t next_index;	 /* PRNG index of each child */
	_Atomic uint64_t recent[RECENT]; /* pid ids; 0 empty */
	_Atomic uint64_t n_recent;
	_Atomic uint64_t stats_spawns, alive, peak; /* main, at the end */
} ec;

/* What a child does: packed into its spawn argument. */
struct plan {
	unsigned kind, count, depth;
	uint64_t index; /* seeds its PRNG (K_SPAWN) */
};

static void *pack(const struct plan *p)
{
	return (void *)(uintptr_t)(p->index << 16 | p->depth << 12 |
				   p->count << 4 | p->kind);
}

static struct plan unpack(void *arg)
{
	uintptr_t v = (uintptr_t)arg;

	return (struct plan){ .kind = v & 15,
			      .count = (v >> 4) & 255,
			      .depth = (v >> 12) & 15,
			      .index = v >> 16 };
}

/* ---- messages ------------------------------------------------------------ */

/* A send whose only allowed outcomes are 0 and -ESRCH. */
static void send_to(act_pid to)
{
	int rc = act_send(to, EC_MSG, &to, sizeof(to));

	if (rc == 0)
		st_add(&ec.sent, 1);
	else if (rc == -ESRCH)
		st_add(&ec.esrch, 1);
	else
		st_report(&ec.send_errors, "act_send to %" PRIx64 ": %s", to.id,
			  strerror(-rc));
}

/* Checks a received message names this process; frees it. */
static void take(struct act_msg *m)
{
	act_pid meant;

	if (!m) {
		st_report(&ec.errors, "act_receive(ACT_FOREVER) gave NULL");
		return;
	}
	st_add(&ec.received, 1);
	if (m->tag != EC_MSG || m->len != sizeof(meant)) {
		st_report(&ec.errors, "a message with tag %u", m->tag);
	} else {
		memcpy(&meant, m->data, sizeof(meant));
		if (!act_pid_eq(meant, act_self()))
			st_report(&ec.misdelivered,
				  "a message for %" PRIx64 " reached %" PRIx64,
				  meant.id, act_self().id);
	}
	act_msg_free(m);
}

/* ---- children ------------------------------------------------------------ */

static void publish(act_pid pid)
{
	uint64_t i = atomic_fetch_add_explicit(&ec.n_recent, 1,
					       memory_order_relaxed);

	atomic_store_explicit(&ec.recent[i % RECENT], pid.id,
			      memory_order_relaxed);
}

static void child(void *arg);

/* Spawns one child with a random plan at depth; sends what it waits for.
 * Returns its pid, or 0. */
static act_pid spawn_one(struct st_rng *rng, unsigned depth)
{
	struct plan p = {
		.kind = st_rng_below(rng, K_KINDS),
		.count = 1 + st_rng_below(rng, 16),
		.depth = depth,
		.index = atomic_fetch_add_explicit(&ec.next_index, 1,
						   memory_order_relaxed),
	};
	act_pid pid;
	unsigned i;

	if (p.kind == K_SPAWN && depth >= DEPTH_MAX)
		p.kind = K_RETURN;
	if (p.kind == K_MSGS || p.kind == K_SPAWN)
		p.count = 1 + p.count % (p.kind == K_MSGS ? 8 : 3);
	st_add(&ec.spawned, 1); /* before it can exit */
	pid = act_spawn(child, pack(&p));
	if (!pid.id) {
		atomic_fetch_sub_explicit(&ec.spawned, 1, memory_order_relaxed);
		st_report(&ec.errors, "act_spawn failed");
		return pid;
	}
	publish(pid);
	for (i = 0; p.kind == K_MSGS && i < p.count; i++)
		send_to(pid);
	return pid;
}

static void yields_then_exit(unsigned n)
{
	struct act_msg *m;

	while (n--) {
		act_yield();
		while ((m = act_receive(0)) != NULL) /* poll, no timer */
			take(m);
	}
}

static void child(void *arg)
{
	struct plan p = unpack(arg);
	struct st_rng rng;
	unsigned i;

	switch (p.kind) {
	case K_EXIT:
		st_add(&ec.exited, 1);
		act_exit(7); /* a user reason: no links, so no one hears */
	case K_YIELDS:
		yields_then_exit(p.count);
		break;
	case K_MSGS:
		for (i = 0; i < p.count; i++)
			take(act_receive(ACT_FOREVER));
		break;
	case K_SPAWN:
		st_rng_init(&rng, args.seed, p.index);
		for (i = 0; i < p.count; i++)
			spawn_one(&rng, p.depth + 1);
		break;
	}
	st_add(&ec.exited, 1);
}

/* ---- spawners and snipers ------------------------------------------------ */

static void done(void)
{
	if (act_send(ec.main, EC_DONE, NULL, 0) < 0)
		st_report(&ec.errors, "DONE: the main process is gone");
}

/* Asks a random sniper to send to pid. */
static void shoot(struct st_rng *rng, act_pid pid)
{
	act_pid to = ec.snipers[st_rng_below(rng, (uint32_t)n_snipers)];
	int rc = act_send(to, EC_SHOOT, &pid, sizeof(pid));

	if (rc < 0)
		st_report(&ec.errors, "SHOOT: %s", strerror(-rc));
}

static void spawner(void *arg)
{
	struct st_rng rng;
	act_pid pid;
	long i;

	st_rng_init(&rng, args.seed, (uintptr_t)arg);
	for (i = 0; i < args.iters; i++) {
		pid = spawn_one(&rng, 1);
		if (pid.id && n_snipers && st_rng_below(&rng, 2))
			shoot(&rng, pid);
		while (st_get(&ec.spawned) - st_get(&ec.exited) > LIVE_MAX)
			act_yield();
	}
	done();
}

/* A recent pid, or a stale or never-issued variant of one; 0 if the
 * ring has none there yet. */
static act_pid target(struct st_rng *rng)
{
	uint64_t id = atomic_load_explicit(
		&ec.recent[st_rng_below(rng, RECENT)], memory_order_relaxed);

	if (!id)
		return ACT_PID_NONE;
	switch (st_rng_below(rng, 16)) {
	case 0: /* the slot's next occupant, if any */
		return (act_pid){ id + (1ull << 32) };
	case 1: /* a slot never handed out */
		return (act_pid){ (1ull << 32) | 0x7fffffffu };
	default:
		return (act_pid){ id };
	}
}

/* One SHOOT: the named pid, after a few yields, then recent ones. */
static void fire(struct st_rng *rng, const struct act_msg *m)
{
	unsigned i, n = st_rng_below(rng, 4);
	act_pid to;

	if (m->len != sizeof(to)) {
		st_report(&ec.errors, "sniper: SHOOT of %zu bytes", m->len);
		return;
	}
	memcpy(&to, m->data, sizeof(to));
	while (n--)
		act_yield();
	send_to(to);
	for (i = 0; i < EXTRA_SHOTS; i++) {
		to = target(rng);
		if (to.id)
			send_to(to);
	}
}

static void sniper(void *arg)
{
	struct st_rng rng;
	struct act_msg *m;
	bool stop = false;

	st_rng_init(&rng, args.seed, (uintptr_t)arg);
	while (!stop) {
		m = act_receive(ACT_FOREVER);
		stop = !m || m->tag == EC_STOP;
		if (m && m->tag == EC_SHOOT)
			fire(&rng, m);
		else if (!stop)
			st_report(&ec.errors, "sniper: tag %u", m->tag);
		act_msg_free(m);
	}
	done();
}

/* ---- the main process ---------------------------------------------------- */

static void read_stats(void)
{
	int n = act_workers();
	struct act_worker_stats *w = calloc((size_t)n, sizeof(*w));
	struct act_stats s;

	if (!w || act_stats(&s, w, n) != n) {
		st_report(&ec.errors, "act_stats failed");
	} else {
		atomic_store(&ec.stats_spawns, ST_STATS_SUM(w, n, spawns));
		atomic_store(&ec.alive, s.procs_alive);
		atomic_store(&ec.peak, s.procs_peak);
	}
	free(w);
}

/* Yields until every child and helper is gone, as act_stats sees it. */
static void wait_all_gone(void)
{
	while (st_get(&ec.exited) < st_get(&ec.spawned))
		act_yield();
	do {
		act_yield();
		read_stats();
	} while (st_get(&ec.alive) > 1 && !st_get(&ec.errors));
}

/* Waits for n DONE messages. */
static void wait_done(long n)
{
	struct act_msg *m;

	while (n--) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != EC_DONE)
			st_report(&ec.errors, "main: tag %u, not DONE",
				  m ? m->tag : 0);
		act_msg_free(m);
	}
}

static void ec_main(void *arg)
{
	long i;

	(void)arg;
	ec.main = act_self();
	for (i = 0; i < n_snipers; i++) {
		ec.snipers[i] = act_spawn(sniper, (void *)(~0ul / 2 - i));
		if (!ec.snipers[i].id)
			return; /* checked: stats_spawns */
	}
	for (i = 0; i < n_spawners; i++)
		if (!act_spawn(spawner, (void *)(~0ul - i)).id)
			return;
	wait_done(n_spawners);
	for (i = 0; i < n_snipers; i++)
		if (act_send(ec.snipers[i], EC_STOP, NULL, 0) < 0)
			st_report(&ec.errors, "STOP: sniper %ld is gone", i);
	wait_done(n_snipers);
	wait_all_gone();
}

/* ---- checks and result --------------------------------------------------- */

static void check_counts(void)
{
	uint64_t spawned = st_get(&ec.spawned);
	uint64_t want = spawned + (uint64_t)(n_spawners + n_snipers) + 1;

	if (st_get(&ec.exited) != spawned)
		st_report(&ec.errors, "%" PRIu64 " spawned, %" PRIu64 " exited",
			  spawned, st_get(&ec.exited));
	if (st_get(&ec.stats_spawns) != want)
		st_report(&ec.errors,
			  "act_stats counts %" PRIu64 " spawns, "
			  "want %" PRIu64,
			  st_get(&ec.stats_spawns), want);
	if (st_get(&ec.alive) != 1)
		st_report(&ec.errors, "%" PRIu64 " processes alive at the end",
			  st_get(&ec.alive));
	if (max_slots && st_get(&ec.peak) > (uint64_t)max_slots)
		st_report(&ec.errors,
			  "%" PRIu64 " slots used, over --max-"
			  "slots %ld",
			  st_get(&ec.peak), max_slots);
	if (st_get(&ec.received) > st_get(&ec.sent))
		st_report(&ec.errors, "received %" PRIu64 " > sent %" PRIu64,
			  st_get(&ec.received), st_get(&ec.sent));
}

static uint64_t ec_progress(void)
{
	return st_get(&ec.spawned) + st_get(&ec.exited) + st_get(&ec.sent) +
	       st_get(&ec.esrch);
}

static void ec_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "spawned %" PRIu64 ", exited %" PRIu64 ", sent %" PRIu64
		 ", ESRCH %" PRIu64 ", received %" PRIu64
		 ", misdelivered %" PRIu64 ", send errors %" PRIu64
		 ", errors %" PRIu64 ", slots peak %" PRIu64,
		 st_get(&ec.spawned), st_get(&ec.exited), st_get(&ec.sent),
		 st_get(&ec.esrch), st_get(&ec.received),
		 st_get(&ec.misdelivered), st_get(&ec.send_errors),
		 st_get(&ec.errors), st_get(&ec.peak));
}

static uint64_t ec_violations(void)
{
	return st_get(&ec.misdelivered) + st_get(&ec.send_errors) +
	       st_get(&ec.errors);
}

int st_main_exit_churn(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = ec_figures,
		.progress = ec_progress,
		.violations = ec_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	ec.snipers = calloc((size_t)n_snipers + 1, sizeof(*ec.snipers));
	if (!ec.snipers) {
		fputs("exit_churn: out of memory\n", stderr);
		return ST_EXIT_FAIL;
	}
	rc = st_run(&w, ec_main, NULL);
	if (!rc)
		check_counts();
	rc = st_finish(&w, rc, ec_violations());
	free(ec.snipers);
	return rc;
}
