/* SPDX-License-Identifier: MIT */
/*
 * mailbox_flood.c - senders flood a process that never reads: its mailbox
 * limit kills it (ACT_EXIT_MAILBOX) and that bounds the memory the flood
 * takes (doc/design/lifecycle.md, "Mailbox limit").
 *
 * Each of --rounds rounds, the main process spawns a receiver with
 * act_spawn_opts.mailbox_limit = --iters (default 10,000) and a monitor.
 * The receiver adds an exit handler, says READY, and then sleeps
 * (act_sleep, an hour at a time): it never receives. The main process
 * then sends its pid to --senders senders (processes, on whatever
 * workers the runtime puts them), which yield 0-3 times (by the seed) and
 * send it --payload bytes at a time as fast as they can: 0 until the
 * limit is reached, then -ENOBUFS (a sender yields after each, so that
 * the receiver gets a worker to die on; with --yield 0 it retries at
 * once, and only the runtime's reduction count can make it yield), then
 * -ESRCH; each reports to the main process. The checks, each round:
 *   - the senders' accepted sends add up to the limit exactly (the send
 *     that would pass it is refused, and nothing takes a message out),
 *     at least one send saw -ENOBUFS, and every sender saw 0s, then
 *     -ENOBUFS, then -ESRCH, in that order and nothing else; once the
 *     senders together were accepted more than the limit, they stop (a
 *     violation: without the limit they would flood for ever), the main
 *     process kills the receiver and the rounds end;
 *   - the receiver's DOWN comes once, with ACT_EXIT_MAILBOX, and its exit
 *     handler ran once.
 * Before the next round the main process waits until the receiver is
 * reaped (its mailbox freed), so that rounds do not overlap in memory.
 *
 * Memory. An envelope is the message's 64-byte header and its payload,
 * rounded up to a slab size class (powers of two, 128 B to 16 KiB,
 * lib/mem/slab.h): the default payload, 960 B, makes exactly 1 KiB. Slab
 * memory stays mapped and with the worker that carved it; an envelope
 * goes back to its slab and no other slab takes it, so a worker carves
 * new envelopes only when those it carved before are all in use (or held
 * back by another worker, in batches of remote frees). So:
 *   - after the first round, the peak RSS (VmHWM) must be under
 *     the peak before the flood + limit x envelope x 1.1 + 1 MiB
 *     (the receiver's stack, the round's small messages, the /proc read);
 *   - at the end, after all rounds, under
 *     the peak before + workers x homes x limit x envelope x 1.1
 *     + 1 MiB + workers x 16 x 32 envelopes
 *     since each of each worker's slabs (one per memory home, homes())
 *     may have carved up to a limit's worth (its
 *     senders may send a whole round) and may have up to ACT_RFREE_SLOTS x
 *     ACT_RFREE_BATCH (16 x 32) envelopes held back by the others. That
 *     bound does not grow with the rounds: memory is reused.
 * Both are printed with the peaks; under a sanitizer (shadow memory) they
 * are not checked, nor with --rss-check 0. Exactly, and always checked:
 * at the end, each worker's act_worker_stats.msg_bytes (the chunks its
 * slab mapped) is within the chunks for a limit's worth of envelopes,
 * one refused per sender, and the (workers - 1) x 16 x 32 the others
 * may hold back for it, plus one chunk for the small messages
 * (msg_bound).
 *
 * Why the limit, not backpressure, is what bounds memory here: a sender
 * is muted only when its receiver has a backlog, and a process marks
 * itself backlogged only in act_receive_match, after it has read for a
 * long turn (ACT_BACKLOG_REDUCTIONS) and a message is still waiting
 * (lib/sched/backpressure.h). A receiver asleep never takes a message, so it
 * never marks itself (act_sleep even clears a backlog), its senders are
 * never muted (checked: act_stats' mutes stays 0), and without a limit
 * its mailbox would grow until memory runs out. That run is not made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <actors.h>

#include "common.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define MF_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define MF_SANITIZER 1
#endif
#endif
#ifndef MF_SANITIZER
#define MF_SANITIZER 0
#endif

enum {
	MF_GO = 1, /* main -> sender; payload: the receiver's pid */
	MF_FLOOD,  /* sender -> receiver */
	MF_REPORT, /* sender -> main; payload: struct report */
	MF_STOP,   /* main -> sender */
	MF_READY,  /* receiver -> main: its exit handler is in */
};

#define ENV_HDR 80	     /* lib/mem/slab.h: ACT_ENV_HDR */
#define RFREE_HELD (16 * 32) /* ACT_RFREE_SLOTS x ACT_RFREE_BATCH */
#define FIXED_SLACK_KB 1024
#define CHUNK_BYTES ((uint64_t)256 << 10) /* lib/mem/slab.c */

static long n_senders = 4, n_rounds = 20, payload = 960, rss_check = 1,
	    yield_refused = 1;

static const struct st_flag flags[] = {
	{ "senders", &n_senders, 1, 10000, "senders" },
	{ "rounds", &n_rounds, 1, 1000000,
	  "receivers flooded, one "
	  "after the other" },
	{ "payload", &payload, 8, 16384 - ENV_HDR, "bytes per message" },
	{ "rss-check", &rss_check, 0, 1,
	  "check the peak RSS (1) or "
	  "only print it (0); off under a sanitizer" },
	{ "yield", &yield_refused, 0, 1,
	  "a sender yields after each "
	  "-ENOBUFS (1), or retries at once (0)" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "mailbox_flood",
	.iters_name = "limit",
	.iters_help = "the receiver's mailbox limit, in messages",
	.workers = 2,
	.iters = 10000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

struct report {
	uint64_t accepted, nobufs;
	uint32_t order_ok, esrch;
};

static struct {
	act_pid main;
	_Atomic uint64_t accepted, nobufs, esrch, rounds, downs, handlers;
	_Atomic uint64_t round_accepted; /* this round's, all senders */
	_Atomic uint64_t over_limit, bad_count, bad_order, bad_down;
	_Atomic uint64_t errors;
	long hwm_base_kb, hwm_peak_kb, rss_end_kb, round1_hwm_kb;
	uint64_t msg_max; /* act_worker_stats.msg_bytes, the most of one */
	long homes;	  /* homes(), at most */
	uint64_t mutes;
	size_t env;
} mf;

/* Bytes an envelope of len payload bytes takes (lib/mem/slab.h). */
static size_t env_size(size_t len)
{
	size_t c = 128;

	while (c < ENV_HDR + len)
		c *= 2;
	return c;
}

/* A limit's worth of envelopes, x 1.1, in KiB. */
static long limit_kb(void)
{
	return (long)((double)args.iters * (double)mf.env * 1.1 / 1024);
}

/* After the first round: fresh slabs carve the limit's envelopes once. */
static long bound1_kb(void)
{
	return mf.hwm_base_kb + limit_kb() + FIXED_SLACK_KB;
}

/*
 * The memory homes the runtime may have made, at most (lib/affinity/
 * homes.c): the machine's NUMA nodes, or ACT_TEST_NUMA=fake:K's K. With
 * more than one, a worker carves for a receiver of another home from a
 * guest slab of that home's (lib/mem/slab.h), so each of its slabs may
 * carve a limit's worth over the rounds.
 */
static long homes(void)
{
	const char *t = getenv("ACT_TEST_NUMA");
	long n = 0, k;
	char path[64];

	for (k = 0; k < 1024; k++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld",
			 k);
		if (access(path, F_OK) == 0)
			n++;
	}
	if (t && !strncmp(t, "fake:", 5) && (k = atol(t + 5)) > n)
		n = k;
	return n > 0 ? n : 1;
}

/* Over all rounds: each of each worker's slabs may have carved a limit's
 * worth (its senders may send a whole round), plus the envelopes other
 * workers held back in their batches of remote frees. */
static long bound_kb(void)
{
	return mf.hwm_base_kb + args.workers * mf.homes * limit_kb() +
	       FIXED_SLACK_KB +
	       (long)(args.workers * RFREE_HELD * (long)mf.env / 1024);
}

/* One worker's message memory, exactly (act_worker_stats.msg_bytes, in
 * 256 KiB chunks with a 128-byte header each): its senders' envelopes
 * of one round (the limit, and a refused one per sender), those the
 * other workers held back for it, and a chunk for the small messages
 * that share the chunks; with more than one home, that for each home's
 * slab. */
static uint64_t msg_bound(void)
{
	uint64_t per_chunk = (CHUNK_BYTES - 128) / mf.env;
	uint64_t envs = (uint64_t)args.iters + (uint64_t)n_senders +
			(uint64_t)(args.workers - 1) * RFREE_HELD;

	/* a limit's worth on each home's slab; the rest on any */
	envs += (uint64_t)(mf.homes - 1) * (uint64_t)args.iters;
	return ((envs + per_chunk - 1) / per_chunk + (uint64_t)mf.homes) *
	       CHUNK_BYTES;
}

/* ---- the receiver -------------------------------------------------------- */

static void receiver_handler(void *arg)
{
	(void)arg;
	st_add(&mf.handlers, 1);
}

static void receiver(void *arg)
{
	int rc;

	(void)arg;
	rc = act_on_exit(receiver_handler, NULL);
	if (rc)
		st_report(&mf.errors, "act_on_exit: %s", strerror(-rc));
	/* the flood starts once its handler is in */
	if (act_send(mf.main, MF_READY, NULL, 0))
		st_report(&mf.errors, "READY not sent");
	for (;;) { /* never receives: the limit ends it */
		rc = act_sleep(3600 * 1000000000LL);
		if (rc && rc != -ENOMEM)
			st_report(&mf.errors, "act_sleep: %s", strerror(-rc));
	}
}

/* ---- senders ------------------------------------------------------------- */

/* Floods r until it is gone; what happened goes into *rep. */
static void flood(act_pid r, unsigned char *buf, struct report *rep)
{
	bool refused = false;
	int rc;

	memset(rep, 0, sizeof(*rep));
	rep->order_ok = 1;
	for (;;) {
		rc = act_send(r, MF_FLOOD, buf, (size_t)payload);
		if (rc == 0) {
			if (refused)
				rep->order_ok = 0;
			rep->accepted++;
			st_add(&mf.accepted, 1);
			if (atomic_fetch_add_explicit(&mf.round_accepted, 1,
						      memory_order_relaxed) >=
			    (uint64_t)args.iters) {
				st_report(&mf.over_limit,
					  "more than %ld sends "
					  "accepted: the limit does not hold",
					  args.iters);
				return;
			}
		} else if (rc == -ENOBUFS) {
			refused = true;
			rep->nobufs++;
			st_add(&mf.nobufs, 1);
			if (yield_refused) /* the receiver must run to die */
				act_yield();
		} else if (rc == -ESRCH) {
			rep->esrch = 1;
			st_add(&mf.esrch, 1);
			return;
		} else {
			st_report(&mf.errors, "act_send: %s", strerror(-rc));
			rep->order_ok = 0;
			return;
		}
	}
}

static void sender(void *arg)
{
	unsigned char *buf = malloc((size_t)payload);
	struct report rep;
	struct st_rng rng;
	struct act_msg *m;
	act_pid r;
	long i;

	if (!buf) {
		st_report(&mf.errors, "out of memory");
		return;
	}
	st_rng_init(&rng, args.seed, (uintptr_t)arg);
	for (i = 0; i < payload; i++)
		buf[i] = (unsigned char)st_rng_next(&rng);
	for (;;) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != MF_GO || m->len != sizeof(r)) {
			if (!m || m->tag != MF_STOP)
				st_report(&mf.errors, "sender: tag %#x",
					  m ? m->tag : 0);
			act_msg_free(m);
			break;
		}
		memcpy(&r, m->data, sizeof(r));
		act_msg_free(m);
		/* a start staggered by the seed: 0-3 yields */
		for (i = st_rng_below(&rng, 4); i > 0; i--)
			act_yield();
		flood(r, buf, &rep);
		if (act_send(mf.main, MF_REPORT, &rep, sizeof(rep)))
			st_report(&mf.errors, "REPORT not sent");
	}
	free(buf);
}

/* ---- the main process ---------------------------------------------------- */

/* One round; returns its receiver (0: none was spawned). */
static act_pid one_round(const act_pid *senders, long round)
{
	struct act_spawn_opts o = {
		.flags = ACT_SPAWN_MONITOR,
		.mailbox_limit = (uint32_t)args.iters,
	};
	uint64_t ref = 0, accepted = 0, nobufs = 0;
	struct act_exit_info info;
	struct report rep;
	struct act_msg *m;
	long reports = 0, downs = 0;
	uint64_t over;
	bool killed = false;
	act_pid r;

	o.monitor_ref = &ref;
	atomic_store(&mf.round_accepted, 0);
	r = act_spawn_opt(receiver, NULL, &o);
	if (!r.id || !ref) {
		st_report(&mf.errors, "round %ld: spawn failed", round);
		return r;
	}
	m = act_receive(ACT_FOREVER);
	if (!m || m->tag != MF_READY)
		st_report(&mf.errors, "round %ld: tag %#x, not READY", round,
			  m ? m->tag : 0);
	act_msg_free(m);
	over = st_get(&mf.over_limit);
	for (long i = 0; i < n_senders; i++)
		if (act_send(senders[i], MF_GO, &r, sizeof(r)))
			st_report(&mf.errors, "GO: sender %ld is gone", i);
	while (reports < n_senders || downs < 1) {
		/* the senders stopped past the limit, and it lives: end it */
		if (reports == n_senders && !killed &&
		    st_get(&mf.over_limit) != over) {
			killed = true;
			act_kill(r, ACT_EXIT_KILL);
		}
		m = act_receive(ACT_FOREVER);
		if (m && m->tag == MF_REPORT && m->len == sizeof(rep)) {
			memcpy(&rep, m->data, sizeof(rep));
			reports++;
			accepted += rep.accepted;
			nobufs += rep.nobufs;
			if (!rep.order_ok || !rep.esrch)
				st_report(&mf.bad_order,
					  "round %ld: a sender "
					  "saw 0 after -ENOBUFS, or no -ESRCH, "
					  "or an error",
					  round);
		} else if (m && m->tag == ACT_TAG_DOWN &&
			   m->len == sizeof(info)) {
			memcpy(&info, m->data, sizeof(info));
			downs++;
			st_add(&mf.downs, 1);
			if (info.ref != ref || !act_pid_eq(info.who, r) ||
			    (info.reason != ACT_EXIT_MAILBOX &&
			     !(killed && info.reason == ACT_EXIT_KILLED)))
				st_report(&mf.bad_down,
					  "round %ld: DOWN ref %" PRIu64
					  " (want %" PRIu64 "), who %" PRIx64
					  " (want %" PRIx64 "), reason "
					  "%" PRIdPTR
					  " (want ACT_EXIT_MAILBOX)",
					  round, info.ref, ref, info.who.id,
					  r.id, info.reason);
		} else {
			st_report(&mf.errors, "main: tag %#x", m ? m->tag : 0);
		}
		act_msg_free(m);
	}
	if (accepted != (uint64_t)args.iters || !nobufs)
		st_report(&mf.bad_count,
			  "round %ld: %" PRIu64 " sends "
			  "accepted (want the limit, %ld), %" PRIu64
			  " -ENOBUFS (want 1 or more); receiver %" PRIx64
			  " (slot %u, generation %u)",
			  round, accepted, args.iters, nobufs, r.id,
			  (uint32_t)r.id, (uint32_t)(r.id >> 32));
	st_add(&mf.rounds, 1);
	return r;
}

/*
 * Waits until the round's receiver r is reaped: act_process_info says
 * ACT_PROC_EXITING until its worker has freed its mailbox and its slot,
 * and -ESRCH from then on (lib/sched/worker.c, reap). Otherwise the next
 * round's senders could carve new envelopes while the last round's still
 * wait to be freed, and the peak RSS would measure that overlap, not the
 * limit. Exact: no time is assumed.
 */
static void wait_reaped(act_pid r)
{
	struct act_process_info info;

	while (r.id && act_process_info(r, &info) == 0 && !st_get(&mf.errors))
		act_sleep(100000);
}

static void mf_main(void *arg)
{
	struct act_worker_stats *ws;
	struct act_stats st;
	act_pid *senders;
	long i;
	int n;

	(void)arg;
	mf.main = act_self();
	senders = calloc((size_t)n_senders, sizeof(*senders));
	if (!senders) {
		st_report(&mf.errors, "out of memory");
		return;
	}
	for (i = 0; i < n_senders; i++) {
		senders[i] = act_spawn(sender, (void *)(uintptr_t)i);
		if (!senders[i].id) {
			st_report(&mf.errors, "spawn of a sender failed");
			return;
		}
	}
	act_sleep(10000000); /* the senders are waiting for GO */
	mf.hwm_base_kb = st_status_kb("VmHWM");
	mf.homes = homes();
	for (i = 0; i < n_rounds && !st_get(&mf.over_limit); i++) {
		act_pid r = one_round(senders, i);

		if (i == 0)
			mf.round1_hwm_kb = st_status_kb("VmHWM");
		wait_reaped(r);
	}
	for (i = 0; i < n_senders; i++)
		if (act_send(senders[i], MF_STOP, NULL, 0))
			st_report(&mf.errors, "STOP: sender %ld is gone", i);
	mf.hwm_peak_kb = st_status_kb("VmHWM");
	mf.rss_end_kb = st_status_kb("VmRSS");
	n = act_workers();
	ws = calloc((size_t)n, sizeof(*ws));
	if (ws && act_stats(&st, ws, n) == n) {
		mf.mutes = ST_STATS_SUM(ws, n, mutes);
		for (i = 0; i < n; i++)
			if (ws[i].msg_bytes > mf.msg_max)
				mf.msg_max = ws[i].msg_bytes;
	} else
		st_report(&mf.errors, "act_stats failed");
	free(ws);
	free(senders);
}

/* ---- checks and result --------------------------------------------------- */

static bool checking_rss(void)
{
	return rss_check && !MF_SANITIZER;
}

static void check_counts(void)
{
	/* past the limit, the rounds stopped: that was said already */
	if (!st_get(&mf.over_limit) &&
	    (st_get(&mf.rounds) != (uint64_t)n_rounds ||
	     st_get(&mf.downs) != (uint64_t)n_rounds ||
	     st_get(&mf.handlers) != (uint64_t)n_rounds))
		st_report(&mf.errors,
			  "%" PRIu64 " rounds, %" PRIu64 " DOWNs, "
			  "%" PRIu64 " exit handler runs, want %ld each",
			  st_get(&mf.rounds), st_get(&mf.downs),
			  st_get(&mf.handlers), n_rounds);
	if (mf.mutes)
		st_report(&mf.errors,
			  "%" PRIu64 " senders muted: backpressure "
			  "took part",
			  mf.mutes);
	if (mf.msg_max > msg_bound())
		st_report(&mf.errors,
			  "a worker mapped %" PRIu64 " KiB for messages, "
			  "over the bound %" PRIu64 " KiB",
			  mf.msg_max >> 10, msg_bound() >> 10);
	if (checking_rss() && (mf.hwm_base_kb < 0 || mf.hwm_peak_kb < 0))
		st_report(&mf.errors, "no VmHWM in /proc/self/status");
	if (checking_rss() && mf.round1_hwm_kb > bound1_kb())
		st_report(&mf.errors,
			  "peak RSS after the first round %ld KiB, "
			  "over its bound %ld KiB",
			  mf.round1_hwm_kb, bound1_kb());
	if (checking_rss() && mf.hwm_peak_kb > bound_kb())
		st_report(&mf.errors, "peak RSS %ld KiB over the bound %ld KiB",
			  mf.hwm_peak_kb, bound_kb());
}

static uint64_t mf_progress(void)
{
	/* not the -ENOBUFS: a receiver that never dies must stall it */
	return st_get(&mf.accepted) + st_get(&mf.esrch) + st_get(&mf.downs);
}

static void mf_figures(char *buf, size_t n)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	snprintf(buf, n,
		 "rounds %" PRIu64 ", accepted %" PRIu64 ", ENOBUFS %" PRIu64
		 ", ESRCH %" PRIu64 ", DOWNs %" PRIu64 ", handlers %" PRIu64
		 ", over limit %" PRIu64 ", bad count %" PRIu64
		 ", bad order %" PRIu64 ", bad DOWN %" PRIu64
		 ", errors %" PRIu64 ", mutes %" PRIu64
		 "; envelope %zu B, limit x envelope "
		 "x 1.1 = %.1f MiB; peak RSS before the flood %.1f MiB, after "
		 "round 1 %.1f (bound %.1f = before + limit + %d KiB), at the "
		 "end %.1f (bound %.1f = before + %ld x limit + %.1f)%s, "
		 "end RSS %.1f, ru_maxrss %.1f MiB; message memory, the most "
		 "of one worker %.1f MiB (bound %.1f)",
		 st_get(&mf.rounds), st_get(&mf.accepted), st_get(&mf.nobufs),
		 st_get(&mf.esrch), st_get(&mf.downs), st_get(&mf.handlers),
		 st_get(&mf.over_limit), st_get(&mf.bad_count),
		 st_get(&mf.bad_order), st_get(&mf.bad_down),
		 st_get(&mf.errors), mf.mutes, mf.env, limit_kb() / 1024.0,
		 mf.hwm_base_kb / 1024.0, mf.round1_hwm_kb / 1024.0,
		 bound1_kb() / 1024.0, FIXED_SLACK_KB, mf.hwm_peak_kb / 1024.0,
		 bound_kb() / 1024.0, args.workers * mf.homes,
		 (bound_kb() - mf.hwm_base_kb -
		  args.workers * mf.homes * limit_kb()) /
			 1024.0,
		 checking_rss() ? "" :
		 MF_SANITIZER	? " (not checked: "
				  "sanitizer)" :
				  " (not checked)",
		 mf.rss_end_kb / 1024.0, ru.ru_maxrss / 1024.0,
		 (double)mf.msg_max / (1 << 20),
		 (double)msg_bound() / (1 << 20));
}

static uint64_t mf_violations(void)
{
	return st_get(&mf.over_limit) + st_get(&mf.bad_count) +
	       st_get(&mf.bad_order) + st_get(&mf.bad_down) +
	       st_get(&mf.errors);
}

int st_main_mailbox_flood(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = mf_figures,
		.progress = mf_progress,
		.violations = mf_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	if (args.iters > INT32_MAX) {
		fputs("mailbox_flood: --iters (the limit) is at most "
		      "2147483647\n",
		      stderr);
		return ST_EXIT_USAGE;
	}
	mf.env = env_size((size_t)payload);
	rc = st_run(&w, mf_main, NULL);
	if (!rc)
		check_counts();
	return st_finish(&w, rc, mf_violations());
}
