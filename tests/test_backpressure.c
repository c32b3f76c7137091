/* SPDX-License-Identifier: MIT */
/*
 * test_backpressure.c - senders wait while their receiver has a backlog
 * (lib/sched/backpressure.h): a sender to a backlogged process is muted until
 * the receiver finds its mailbox empty, then goes on; a receiver that
 * exits releases its muted senders; the runtime stops cleanly with a
 * sender muted for good; two processes that flood each other
 * never both stop; order per sender holds under muting across workers;
 * ACTORS_BACKPRESSURE=off turns it off, and a bad value is refused.
 *
 * The exact cases run on one worker, where the order of turns is fixed;
 * the races run on 2-4 workers and assert outcomes, never durations.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "testrt.h"

#include "sched/backpressure.h"

enum { T_FLOOD = 1, T_LATE, T_THROUGH };

#define FLOOD 1000 /* messages queued before the receiver reads */
#define FIRST 300  /* read in one turn: past ACT_BACKLOG_REDUCTIONS */
#define LATE 10	   /* messages of the late sender */

_Static_assert(FIRST > ACT_BACKLOG_REDUCTIONS && FIRST < FLOOD,
	       "the first read must leave a backlog");

static uint64_t mutes_now(void)
{
	struct act_worker_stats w[4];
	uint64_t n = 0;
	int i, k = act_stats(NULL, w, 4);

	for (i = 0; i < k; i++)
		n += w[i].mutes;
	return n;
}

static unsigned state_of(act_pid p)
{
	struct act__proc *q = tu_lookup(p);

	return q ? act__ps(atomic_load(&q->state)) : ACT_PS_FREE;
}

/* Yield until p is muted; false if it never is. */
static bool wait_muted(act_pid p)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (state_of(p) == ACT_PS_MUTED)
			return true;
		act_yield();
	}
	return false;
}

static void flooder(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint32_t i;
	int rc = 0;

	for (i = 0; i < FLOOD && !rc; i++)
		rc = act_send(to, T_FLOOD, &i, sizeof(i));
	ck_assert_int_eq(rc, 0);
}

static void late_sender(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint32_t i;

	for (i = 0; i < LATE; i++)
		ck_assert_int_eq(act_send(to, T_LATE, &i, sizeof(i)), 0);
}

/* Queue FLOOD messages in the caller's mailbox, then read FIRST of them
 * in one turn: the caller has a backlog, if `on`. late(arg) is spawned
 * before the read, to run once the caller yields; returns its pid. */
static act_pid backlog_then(void (*late)(void *), void *arg, bool on)
{
	act_pid self = act_self(), l;
	struct act_msg *m;
	uint32_t i;

	ck_assert(tu_wait_gone(act_spawn(flooder, &self)));
	l = act_spawn(late, arg);
	ck_assert(!act_pid_eq(l, ACT_PID_NONE));
	/* one turn: the yields above ended, nothing yields in here */
	for (i = 0; i < FIRST; i++) {
		m = act_receive(0);
		ck_assert_ptr_nonnull(m);
		ck_assert_int_eq(m->tag, T_FLOOD);
		act_msg_free(m);
	}
	ck_assert_uint_eq(atomic_load(&tu_self_proc()->mutes) != 0, on);
	return l;
}

/* Reads until the mailbox is empty; counts each tag. */
static void drain(uint32_t counts[4])
{
	struct act_msg *m;

	while ((m = act_receive(0)) != NULL) {
		ck_assert_int_lt(m->tag, 4);
		counts[m->tag]++;
		act_msg_free(m);
	}
}

/* ---- a sender to a backlogged receiver waits for the drain ------------- */

static void mute_main(void *arg)
{
	bool *on = arg;
	uint32_t counts[4] = { 0 };
	act_pid self = act_self(), late = backlog_then(late_sender, &self, *on);

	if (*on) {
		/* the late sender runs, sends once and is muted */
		ck_assert(wait_muted(late));
		drain(counts);
		ck_assert_uint_eq(counts[T_FLOOD], FLOOD - FIRST);
		ck_assert_uint_eq(counts[T_LATE], 1);
		ck_assert_uint_eq(mutes_now(), 1);
		/* the empty mailbox released it: it sends the rest */
		ck_assert_uint_eq(atomic_load(&tu_self_proc()->mutes), 0);
		ck_assert(tu_wait_gone(late));
		drain(counts);
		ck_assert_uint_eq(counts[T_LATE], LATE);
	} else {
		ck_assert(tu_wait_gone(late)); /* never stopped */
		drain(counts);
		ck_assert_uint_eq(counts[T_FLOOD], FLOOD - FIRST);
		ck_assert_uint_eq(counts[T_LATE], LATE);
		ck_assert_uint_eq(mutes_now(), 0);
	}
}

START_TEST(mutes_until_drained)
{
	struct act_config cfg = tu_with_workers(1);
	bool on = true;

	ck_assert_int_eq(tu_run_main(&cfg, mute_main, &on), 0);
}
END_TEST

/* A muted sender that is killed dies when released: it sends no more. */
static void killed_muted_main(void *arg)
{
	uint32_t counts[4] = { 0 };
	act_pid self = act_self(),
		late = backlog_then(late_sender, &self, true);

	(void)arg;
	ck_assert(wait_muted(late));
	ck_assert_int_eq(act_kill(late, 5), 0); /* still muted */
	drain(counts); /* the empty mailbox releases it */
	ck_assert_uint_eq(counts[T_LATE], 1);
	ck_assert(tu_wait_gone(late));
	drain(counts);
	ck_assert_uint_eq(counts[T_LATE], 1); /* nothing after the kill */
}

START_TEST(killed_muted_dies_on_release)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, killed_muted_main, NULL), 0);
}
END_TEST

START_TEST(off_never_mutes)
{
	struct act_config cfg = tu_with_workers(1);
	bool on = false;

	setenv("ACTORS_BACKPRESSURE", "off", 1);
	ck_assert_int_eq(tu_run_main(&cfg, mute_main, &on), 0);
	/* and "mute" is the default, spelled out */
	setenv("ACTORS_BACKPRESSURE", "mute", 1);
	on = true;
	ck_assert_int_eq(tu_run_main(&cfg, mute_main, &on), 0);
	unsetenv("ACTORS_BACKPRESSURE");
}
END_TEST

/* ---- a receiver that exits releases its muted senders ----------------- */

/* [0]: the receiver, [1]: main; main outlives both users */
static act_pid exit_pids[2];

static void through_sender(void *arg)
{
	(void)arg;
	ck_assert_int_eq(act_send(exit_pids[0], T_LATE, NULL, 0), 0);
	ck_assert_int_eq(act_send(exit_pids[1], T_THROUGH, NULL, 0), 0);
}

static void exiting_receiver(void *arg)
{
	act_pid s;

	(void)arg;
	exit_pids[0] = act_self();
	s = backlog_then(through_sender, NULL, true);
	ck_assert(wait_muted(s));
	/* exit with the backlog, 700 messages and a sender muted on it */
}

static void exit_main(void *arg)
{
	struct act_msg *m;
	act_pid r;

	(void)arg;
	exit_pids[1] = act_self();
	r = act_spawn(exiting_receiver, NULL);
	m = act_receive(10 * 1000000000LL);
	ck_assert_ptr_nonnull(m); /* the sender went on after the exit */
	ck_assert_int_eq(m->tag, T_THROUGH);
	act_msg_free(m);
	ck_assert(tu_wait_gone(r));
	ck_assert_uint_eq(mutes_now(), 1);
}

START_TEST(exit_releases_senders)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, exit_main, NULL), 0);
}
END_TEST

/* ---- the runtime stops with a sender muted ------------------------------ */

static void backlog_sender(void *arg)
{
	act_pid to = *(act_pid *)arg;

	act_send(to, T_LATE, NULL, 0); /* mutes, for ever */
	ck_abort_msg("a muted sender ran on");
}

static void stop_receiver(void *arg)
{
	act_pid self = act_self(), late;

	late = backlog_then(backlog_sender, &self, true);
	ck_assert_int_eq(
		act_send(*(act_pid *)arg, T_THROUGH, &late, sizeof(late)), 0);
	for (;;)
		act_yield(); /* keeps its backlog: never reads again */
}

static void stop_main(void *arg)
{
	act_pid self = act_self(), late;
	struct act_msg *m;

	(void)arg;
	ck_assert(!act_pid_eq(act_spawn(stop_receiver, &self), ACT_PID_NONE));
	m = act_receive(ACT_FOREVER);
	ck_assert_int_eq(m->tag, T_THROUGH);
	memcpy(&late, m->data, sizeof(late));
	act_msg_free(m);
	ck_assert(wait_muted(late));
	/* main exits: the runtime stops with the receiver runnable and the
	 * sender muted on it */
}

START_TEST(stop_with_muted_sender)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, stop_main, NULL), 0);
}
END_TEST

/* ---- two processes that flood each other both finish ------------------ */

#define CROSS_PAIRS 4
#define CROSS_N 100000
#define CROSS_BURST 1000 /* sent between reads */

struct cross {
	act_pid peer;
	act_pid main;
};

static bool is_go(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_LATE;
}

static void cross_proc(void *arg)
{
	struct cross *c = arg;
	struct act_msg *m;
	uint32_t sent = 0, got = 0, next = 0, v, k;
	int rc = 0;

	/* main's go: the peer's pid, in c, is set. Only that message: the
	 * peer may have started first, and its floods wait their turn */
	m = act_receive_match(is_go, NULL, ACT_FOREVER);
	act_msg_free(m);
	while (!rc && (sent < CROSS_N || got < CROSS_N)) {
		for (k = 0; k < CROSS_BURST && sent < CROSS_N && !rc;
		     k++, sent++)
			rc = act_send(c->peer, T_FLOOD, &sent, sizeof(sent));
		/* read part of what came: a backlog on both sides */
		for (k = 0; k < FIRST && got < CROSS_N && !rc; k++) {
			m = act_receive(sent < CROSS_N ? 0 : ACT_FOREVER);
			if (!m)
				break;
			memcpy(&v, m->data, sizeof(v));
			rc = v == next ? 0 : -EPROTO; /* order per sender */
			next++;
			got++;
			act_msg_free(m);
		}
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(act_send(c->main, T_THROUGH, NULL, 0), 0);
}

static void cross_main(void *arg)
{
	struct cross c[2 * CROSS_PAIRS];
	act_pid p[2 * CROSS_PAIRS];
	int i;

	(void)arg;
	for (i = 0; i < 2 * CROSS_PAIRS; i++) {
		c[i].main = act_self();
		p[i] = act_spawn(cross_proc, &c[i]);
	}
	for (i = 0; i < 2 * CROSS_PAIRS; i++) {
		c[i].peer = p[i ^ 1];
		ck_assert_int_eq(act_send(p[i], T_LATE, NULL, 0), 0);
	}
	for (i = 0; i < 2 * CROSS_PAIRS; i++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		ck_assert_int_eq(m->tag, T_THROUGH);
		act_msg_free(m);
	}
}

START_TEST(cross_flood_finishes)
{
	struct act_config cfg = tu_with_workers(2 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, cross_main, NULL), 0);
}
END_TEST

/* ---- many senders without flow control: all arrive, in order ---------- */

#define FLOOD_SENDERS 8
#define FLOOD_N (TU_UNDER_TSAN ? 20000 : 100000)

struct flood_job {
	act_pid to;
	uint32_t id;
};

/* Check's assertions write to a pipe each time they pass: the loops
 * below keep the first failure and assert once. */
static void flood_sender(void *arg)
{
	struct flood_job *j = arg;
	uint32_t v[2] = { j->id, 0 };
	int rc = 0;

	for (v[1] = 0; v[1] < FLOOD_N && !rc; v[1]++)
		rc = act_send(j->to, T_FLOOD, v, sizeof(v));
	ck_assert_int_eq(rc, 0);
}

static void flood_main(void *arg)
{
	struct flood_job jobs[FLOOD_SENDERS];
	uint32_t next[FLOOD_SENDERS] = { 0 }, v[2];
	uint64_t n;
	volatile uint64_t x = 1;
	int i, k;

	(void)arg;
	for (i = 0; i < FLOOD_SENDERS; i++) {
		jobs[i] = (struct flood_job){ act_self(), (uint32_t)i };
		act_spawn(flood_sender, &jobs[i]);
	}
	for (n = 0; n < (uint64_t)FLOOD_SENDERS * FLOOD_N; n++) {
		struct act_msg *m = act_receive(ACT_FOREVER);

		if (m->len != sizeof(v))
			break;
		memcpy(v, m->data, sizeof(v));
		if (v[0] >= FLOOD_SENDERS || v[1] != next[v[0]])
			break; /* I7 */
		next[v[0]]++;
		act_msg_free(m);
		for (k = 0; k < 20; k++) /* a slower reader */
			x = x * 6364136223846793005ull + 1;
	}
	ck_assert_msg(n == (uint64_t)FLOOD_SENDERS * FLOOD_N,
		      "message %llu: sender %u seq %u, expected %u",
		      (unsigned long long)n, v[0], v[1],
		      v[0] < FLOOD_SENDERS ? next[v[0]] : 0);
}

START_TEST(flood_keeps_order)
{
	struct act_config cfg = tu_with_workers(2 + _i);

	ck_assert_int_eq(tu_run_main(&cfg, flood_main, NULL), 0);
}
END_TEST

/* ---- a bad ACTORS_BACKPRESSURE: one line, -EINVAL --------------------- */

START_TEST(bad_env)
{
	static const char *const bad[] = { "", "on", "MUTE", "1" };

	ck_assert_uint_eq(tu_assert_env_refused("ACTORS_BACKPRESSURE", bad,
						TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

static Suite *backpressure_suite(void)
{
	Suite *s = suite_create("backpressure");
	TCase *tc = tcase_create("mute");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, mutes_until_drained);
	tcase_add_test(tc, killed_muted_dies_on_release);
	tcase_add_test(tc, off_never_mutes);
	tcase_add_test(tc, exit_releases_senders);
	tcase_add_test(tc, stop_with_muted_sender);
	tcase_add_loop_test(tc, cross_flood_finishes, 0, 3);
	tcase_add_loop_test(tc, flood_keeps_order, 0, 3);
	tcase_add_test(tc, bad_env);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(backpressure_suite());
}
