/* SPDX-License-Identifier: MIT */
/*
 * test_links.c - process lifecycle (doc/design/lifecycle.md): exit
 * signals, act_kill's signal, monitors and act_demonitor, links and
 * act_unlink, ACT_SPAWN_LINK / ACT_SPAWN_MONITOR, the order of an EXIT or
 * DOWN behind the messages before it, exit handlers on every exit path,
 * names, the mailbox limit, and races of all of these across workers.
 *
 * Each case runs a runtime whose processes write what they saw into a
 * static result struct; the test body asserts on it after act_main
 * returned (assertions inside processes only guard the set-up). Most
 * cases drive "puppets": processes that carry out orders (link, trap,
 * take an EXIT, exit with R...) and answer, so that the main process can
 * observe a process's state from outside. Deaths are observed through
 * DOWN messages. reaped(pid) (the slot freed) stands for "all of its exit
 * signals went out": the runtime sends them before it frees the slot.
 *
 * Nothing asserts a duration: receive timeouts only bound a wait that
 * would otherwise hang, and QUIET is how long "nothing more comes" is
 * watched where the spec says nothing comes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testrt.h"
#include "iotest.h"

#define WAIT (20 * SEC) /* against hangs only */
#define QUIET (50 * MS) /* "no such message comes" is watched this long */
#define IDLE (60 * SEC) /* a puppet without orders that long returns */

/* 1 or 2 workers (functional cases), 2 or 4 (races). */
#define W12(i) ((i) ? 2 : 1)
#define W24(i) ((i) ? 4 : 2)

enum {
	T_CMD = 100,
	T_REPLY,
	T_READY,
	T_GO,
	T_STOP,
	T_DATA,
	T_ACK,
	T_HMSG,
	T_SPAWNED,
	T_REPORT,
};

#define PID(p) ((unsigned long long)(p).id)

/* ---- what a process saw of one EXIT or DOWN (or other) message ------- */

struct seen {
	int n; /* 1: a message was taken, 0: none came */
	uint32_t tag;
	act_pid from;
	size_t len;
	struct act_exit_info info;
};

struct sig_want {
	uint32_t tag;   /* 0: any tag */
	act_pid from;
	bool any_from;
	bool by_ref;
	uint64_t ref;
};

static bool sig_is(const struct act_msg *m, void *ctx)
{
	const struct sig_want *w = ctx;
	const struct act_exit_info *i = m->data;

	if (w->tag && m->tag != w->tag)
		return false;
	if (!w->any_from && !act_pid_eq(m->from, w->from))
		return false;
	return !w->by_ref || (m->len == sizeof(*i) && i && i->ref == w->ref);
}

static struct seen take_w(struct sig_want *w, int64_t tmo)
{
	struct seen s;
	struct act_msg *m;

	memset(&s, 0, sizeof(s));
	m = act_receive_match(sig_is, w, tmo);
	if (m) {
		s.n = 1;
		s.tag = m->tag;
		s.from = m->from;
		s.len = m->len;
		if (m->data && m->len >= sizeof(s.info))
			memcpy(&s.info, m->data, sizeof(s.info));
		act_msg_free(m);
	}
	return s;
}

static struct seen take(uint32_t tag, act_pid from, bool by_ref, uint64_t ref,
			int64_t tmo)
{
	struct sig_want w = { .tag = tag, .from = from, .by_ref = by_ref,
			      .ref = ref };

	return take_w(&w, tmo);
}

/* The next EXIT from `from` (any ref: the caller checks it is 0). */
static struct seen take_exit(act_pid from, int64_t tmo)
{
	return take(ACT_TAG_EXIT, from, false, 0, tmo);
}

/* The DOWN of monitor `ref` on `from`. */
static struct seen take_down(act_pid from, uint64_t ref, int64_t tmo)
{
	return take(ACT_TAG_DOWN, from, true, ref, tmo);
}

/* The next message from `from`, whatever its tag (FIFO). */
static struct seen take_from(act_pid from, int64_t tmo)
{
	return take(0, from, false, 0, tmo);
}

/* Take every message of that kind in the mailbox now; how many. */
static int drain_now(uint32_t tag, act_pid from, bool any_from)
{
	struct sig_want w = { .tag = tag, .from = from, .any_from = any_from };
	int n = 0;

	while (take_w(&w, 0).n)
		n++;
	return n;
}

/* Every EXIT and DOWN in the mailbox now, from anyone. */
static int drain_sigs(void)
{
	return drain_now(ACT_TAG_EXIT, ACT_PID_NONE, true) +
	       drain_now(ACT_TAG_DOWN, ACT_PID_NONE, true);
}

/* Until pid's slot is reaped (its exit signals are all out): yields
 * first, then 0.1 ms sleeps, up to WAIT. False if it never is. A bound
 * in yields alone is a bound in time: with more workers than cores, the
 * exiting process's worker may be off its core that long. */
static bool reaped(act_pid pid)
{
	int64_t end = 0;
	int i;

	for (i = 0; lookup(pid); i++) {
		if (i < 1000) {
			act_yield();
			continue;
		}
		if (!end)
			end = act__clock_now() + WAIT;
		else if (act__clock_now() > end)
			return false;
		act_sleep(100000);
	}
	return true;
}

static bool is_go_msg(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_GO;
}

static bool match_never(const struct act_msg *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return false;
}

/* Assertions on a struct seen, for test bodies. */
#define ASSERT_SIG(s, tg, pid, why, rf, what)                                 \
	do {                                                                  \
		const struct seen s_ = (s);                                   \
		ck_assert_msg(s_.n == 1, "%s: no message came", (what));      \
		ck_assert_msg(s_.tag == (tg), "%s: tag %#x, want %#x",        \
			      (what), s_.tag, (unsigned)(tg));                \
		ck_assert_msg(act_pid_eq(s_.from, (pid)),                     \
			      "%s: msg->from %#llx, want %#llx", (what),      \
			      PID(s_.from), PID(pid));                        \
		ck_assert_msg(s_.len == sizeof(struct act_exit_info),         \
			      "%s: len %zu", (what), s_.len);                 \
		ck_assert_msg(act_pid_eq(s_.info.who, (pid)),                 \
			      "%s: who %#llx, want %#llx", (what),            \
			      PID(s_.info.who), PID(pid));                    \
		ck_assert_msg(s_.info.reason == (intptr_t)(why),              \
			      "%s: reason %ld, want %ld", (what),             \
			      (long)s_.info.reason, (long)(why));             \
		ck_assert_msg(s_.info.ref == (uint64_t)(rf),                  \
			      "%s: ref %llu, want %llu", (what),              \
			      (unsigned long long)s_.info.ref,                \
			      (unsigned long long)(rf));                      \
	} while (0)
#define ASSERT_EXIT(s, pid, why, what)                                        \
	ASSERT_SIG(s, ACT_TAG_EXIT, pid, why, 0, what)
#define ASSERT_DOWN(s, pid, why, rf, what)                                    \
	ASSERT_SIG(s, ACT_TAG_DOWN, pid, why, rf, what)
#define ASSERT_NONE(s, what)                                                  \
	ck_assert_msg((s).n == 0, "%s: a message came (tag %#x, reason %ld)", \
		      (what), (s).tag, (long)(s).info.reason)

/* ---- puppets: processes that carry out orders and answer --------------- */

enum {
	OP_RETURN = 1, /* return (ACT_EXIT_NORMAL); no answer */
	OP_EXIT,       /* act_exit(arg); no answer */
	OP_TRAP,       /* v = act_trap_exit(arg) */
	OP_LINK,       /* v = act_link(pid) */
	OP_UNLINK,     /* v = act_unlink(pid) */
	OP_MONITOR,    /* ref = act_monitor(pid) */
	OP_DEMONITOR,  /* v = act_demonitor(ref) */
	OP_KILL,       /* v = act_kill(pid, arg) */
	OP_KILL_SELF,  /* v = act_kill(act_self(), arg) */
	OP_TAKE_EXIT,  /* s = the next EXIT from pid, waiting up to tmo */
	OP_TAKE_DOWN,  /* s = the DOWN of (pid, ref), waiting up to tmo */
	OP_COUNT,      /* v = EXITs and DOWNs in the mailbox (taken) */
	OP_PING,       /* answers: alive */
	OP_SPAWN,      /* pid = act_spawn_opt(exit_at_once, arg, flags) */
	OP_FLOOD,      /* arg messages to pid and to the boss, then exit
			* with ref as the reason */
	OP_DRAIN,      /* d = the messages from pid up to its EXIT */
	OP_TAKE_ANY,   /* s = the next message from pid (any tag), waiting
			* up to tmo; pid = act_whereis("ordered") then */
};

struct cmd {
	int op;
	uint32_t flags;
	act_pid pid;
	intptr_t arg;
	uint64_t ref;
	int64_t tmo;
};

/* FIFO of one sender's T_DATA (numbered 0, 1, ...) up to its EXIT/DOWN. */
struct drain {
	int data;         /* T_DATA before the end */
	int bad;          /* out of order, or another tag */
	struct seen end;  /* the EXIT or DOWN */
	int after;        /* messages from it after the end */
};

struct reply {
	bool ok; /* set by call(): an answer came */
	int64_t v;
	uint64_t ref;
	act_pid pid;
	struct seen s;
	struct drain d;
};

static void exit_at_once(void *arg)
{
	act_exit((intptr_t)arg);
}

static bool from_is(const struct act_msg *m, void *ctx)
{
	return act_pid_eq(m->from, *(act_pid *)ctx);
}

/* Numbered T_DATA from `from` in order, then `end_tag` from it. */
static struct drain drain_from(act_pid from, uint32_t end_tag)
{
	struct drain d;
	struct act_msg *m;
	int v;

	memset(&d, 0, sizeof(d));
	for (;;) {
		m = act_receive_match(from_is, &from, WAIT);
		if (!m)
			break;
		if (m->tag == T_DATA && m->len == sizeof(v)) {
			memcpy(&v, m->data, sizeof(v));
			d.bad += v != d.data;
			d.data++;
			act_msg_free(m);
			continue;
		}
		if (m->tag == end_tag) {
			d.end.n = 1;
			d.end.tag = m->tag;
			d.end.from = m->from;
			d.end.len = m->len;
			if (m->len >= sizeof(d.end.info))
				memcpy(&d.end.info, m->data,
				       sizeof(d.end.info));
			act_msg_free(m);
			break;
		}
		d.bad++;
		act_msg_free(m);
	}
	if (reaped(from))
		while ((m = act_receive_match(from_is, &from, 0))) {
			d.after++;
			act_msg_free(m);
		}
	return d;
}

static bool is_cmd(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_CMD && m->len == sizeof(struct cmd);
}

static void puppet(void *arg)
{
	struct act_spawn_opts o;
	struct act_msg *m;
	struct reply r;
	struct cmd c;
	act_pid boss;
	int i;

	(void)arg;
	for (;;) {
		m = act_receive_match(is_cmd, NULL, IDLE);
		if (!m)
			return;
		memcpy(&c, m->data, sizeof(c));
		boss = m->from;
		act_msg_free(m);
		memset(&r, 0, sizeof(r));
		switch (c.op) {
		case OP_RETURN:
			return;
		case OP_EXIT:
			act_exit(c.arg);
		case OP_TRAP:
			r.v = act_trap_exit(c.arg != 0);
			break;
		case OP_LINK:
			r.v = act_link(c.pid);
			break;
		case OP_UNLINK:
			r.v = act_unlink(c.pid);
			break;
		case OP_MONITOR:
			r.ref = act_monitor(c.pid);
			break;
		case OP_DEMONITOR:
			r.v = act_demonitor(c.ref);
			break;
		case OP_KILL:
			r.v = act_kill(c.pid, c.arg);
			break;
		case OP_KILL_SELF:
			r.v = act_kill(act_self(), c.arg);
			break;
		case OP_TAKE_EXIT:
			r.s = take_exit(c.pid, c.tmo);
			break;
		case OP_TAKE_DOWN:
			r.s = take_down(c.pid, c.ref, c.tmo);
			break;
		case OP_COUNT:
			r.v = drain_sigs();
			break;
		case OP_PING:
			break;
		case OP_SPAWN:
			memset(&o, 0, sizeof(o));
			o.flags = c.flags;
			if (c.flags & ACT_SPAWN_MONITOR)
				o.monitor_ref = &r.ref;
			r.pid = act_spawn_opt(exit_at_once, (void *)c.arg, &o);
			break;
		case OP_FLOOD:
			for (i = 0; i < (int)c.arg; i++) {
				ck_assert_int_eq(act_send(c.pid, T_DATA, &i,
							  sizeof(i)), 0);
				ck_assert_int_eq(act_send(boss, T_DATA, &i,
							  sizeof(i)), 0);
			}
			act_exit((intptr_t)c.ref);
		case OP_DRAIN:
			r.d = drain_from(c.pid, ACT_TAG_EXIT);
			break;
		case OP_TAKE_ANY:
			r.s = take_from(c.pid, c.tmo);
			r.pid = act_whereis("ordered");
			break;
		default:
			ck_abort_msg("puppet: op %d", c.op);
		}
		r.ok = true;
		act_send(boss, T_REPLY, &r, sizeof(r));
	}
}

static act_pid new_puppet(void)
{
	return spawn_ok(puppet, NULL);
}

/* Give an order; no answer awaited. The send's result. */
static int cast_c(act_pid p, struct cmd c)
{
	return act_send(p, T_CMD, &c, sizeof(c));
}

static int cast(act_pid p, int op, act_pid pid, intptr_t arg)
{
	struct cmd c = { .op = op, .pid = pid, .arg = arg };

	return cast_c(p, c);
}

/* Give an order and wait for the answer (r.ok false: none came). */
static struct reply call_c(act_pid p, struct cmd c)
{
	struct sig_want w = { .tag = T_REPLY, .from = p };
	struct reply r;
	struct act_msg *m;

	memset(&r, 0, sizeof(r));
	if (cast_c(p, c))
		return r;
	m = act_receive_match(sig_is, &w, WAIT);
	if (m) {
		memcpy(&r, m->data, sizeof(r));
		act_msg_free(m);
		r.ok = true;
	}
	return r;
}

static struct reply call(act_pid p, int op, act_pid pid, intptr_t arg)
{
	struct cmd c = { .op = op, .pid = pid, .arg = arg };

	return call_c(p, c);
}

/* v of an answer, or INT64_MIN when none came. */
static int64_t callv(act_pid p, int op, act_pid pid, intptr_t arg)
{
	struct reply r = call(p, op, pid, arg);

	return r.ok ? r.v : INT64_MIN;
}

static struct seen p_take_exit(act_pid p, act_pid from, int64_t tmo)
{
	struct cmd c = { .op = OP_TAKE_EXIT, .pid = from, .tmo = tmo };

	return call_c(p, c).s;
}

/* A puppet that traps exits (or not). */
static act_pid new_trapper(bool trap)
{
	act_pid p = new_puppet();

	ck_assert_int_eq(callv(p, OP_TRAP, ACT_PID_NONE, trap), 0);
	return p;
}

/* Kill what is left of a case's processes so that nothing waits for IDLE
 * (they are discarded when the main process returns anyway). */
static void sleeper(void *arg)
{
	(void)arg;
	act_sleep(WAIT);
}

/* ======================================================================
 * 1. The exit-signal table
 * ====================================================================== */

enum how { BY_RETURN, BY_EXIT, BY_KILL_P, BY_KILL_L };

struct row {
	const char *name;
	bool trap;        /* L traps exits */
	enum how how;     /* what ends P (or L) */
	intptr_t reason;  /* act_exit's or act_kill's */
	intptr_t p_down;  /* P's DOWN reason */
	bool l_lives;     /* L is alive after the signal */
	bool l_exit;      /* L has an EXIT from P: reason p_down */
	intptr_t l_down;  /* L's DOWN reason */
};

static const struct row rows[] = {
	{ "trap, P returns", true, BY_RETURN, 0, ACT_EXIT_NORMAL, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, P act_exit(NORMAL)", true, BY_EXIT, ACT_EXIT_NORMAL,
	  ACT_EXIT_NORMAL, true, true, ACT_EXIT_NORMAL },
	{ "trap, P act_exit(42)", true, BY_EXIT, 42, 42, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, P act_exit(SHUTDOWN)", true, BY_EXIT, ACT_EXIT_SHUTDOWN,
	  ACT_EXIT_SHUTDOWN, true, true, ACT_EXIT_NORMAL },
	{ "trap, P killed with 43", true, BY_KILL_P, 43, 43, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, P act_exit(KILL): exits KILLED, trappable", true, BY_EXIT,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, true, true, ACT_EXIT_NORMAL },
	{ "trap, P killed with KILL: KILLED spreads trappable", true,
	  BY_KILL_P, ACT_EXIT_KILL, ACT_EXIT_KILLED, true, true,
	  ACT_EXIT_NORMAL },
	{ "trap, L killed with KILL: untrappable", true, BY_KILL_L,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
	{ "no trap, P returns", false, BY_RETURN, 0, ACT_EXIT_NORMAL, true,
	  false, ACT_EXIT_NORMAL },
	{ "no trap, P act_exit(NORMAL)", false, BY_EXIT, ACT_EXIT_NORMAL,
	  ACT_EXIT_NORMAL, true, false, ACT_EXIT_NORMAL },
	{ "no trap, P act_exit(42)", false, BY_EXIT, 42, 42, false, false,
	  42 },
	{ "no trap, P act_exit(SHUTDOWN)", false, BY_EXIT, ACT_EXIT_SHUTDOWN,
	  ACT_EXIT_SHUTDOWN, false, false, ACT_EXIT_SHUTDOWN },
	{ "no trap, P killed with 43", false, BY_KILL_P, 43, 43, false, false,
	  43 },
	{ "no trap, P act_exit(KILL): exits KILLED, spreads", false, BY_EXIT,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
	{ "no trap, P killed with KILL: KILLED spreads", false, BY_KILL_P,
	  ACT_EXIT_KILL, ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
	{ "no trap, L killed with KILL", false, BY_KILL_L, ACT_EXIT_KILL,
	  ACT_EXIT_KILLED, false, false, ACT_EXIT_KILLED },
};
#define N_ROWS ((int)(sizeof(rows) / sizeof(rows[0])))

static struct table_res {
	act_pid p, l;
	uint64_t mp, ml;
	int64_t link_rc, kill_rc;
	struct seen p_down, l_exit, l_down;
	bool p_gone, l_answered;
	int64_t l_extra; /* EXITs/DOWNs left in L after the one expected */
} tr;

static void table_main(void *arg)
{
	const struct row *rw = arg;

	tr.p = new_puppet();
	tr.l = new_trapper(rw->trap);
	tr.link_rc = callv(tr.l, OP_LINK, tr.p, 0);
	tr.mp = act_monitor(tr.p);
	tr.ml = act_monitor(tr.l);
	switch (rw->how) {
	case BY_RETURN:
		ck_assert_int_eq(cast(tr.p, OP_RETURN, ACT_PID_NONE, 0), 0);
		break;
	case BY_EXIT:
		ck_assert_int_eq(cast(tr.p, OP_EXIT, ACT_PID_NONE, rw->reason),
				 0);
		break;
	case BY_KILL_P:
		tr.kill_rc = act_kill(tr.p, rw->reason);
		break;
	case BY_KILL_L:
		tr.kill_rc = act_kill(tr.l, rw->reason);
		break;
	}
	tr.p_down = take_down(tr.p, tr.mp, WAIT);
	tr.p_gone = reaped(tr.p); /* all its signals are out */
	if (!rw->l_lives) {
		tr.l_down = take_down(tr.l, tr.ml, WAIT);
		return;
	}
	if (rw->trap)
		tr.l_exit = p_take_exit(tr.l, tr.p, WAIT);
	else
		tr.l_exit = p_take_exit(tr.l, tr.p, 0); /* none is there */
	{
		struct reply r = call(tr.l, OP_COUNT, ACT_PID_NONE, 0);

		tr.l_answered = r.ok;
		tr.l_extra = r.v;
	}
	cast(tr.l, OP_RETURN, ACT_PID_NONE, 0);
	tr.l_down = take_down(tr.l, tr.ml, WAIT);
}

START_TEST(exit_signal_table)
{
	const struct row *rw = &rows[_i / 2];
	struct act_config cfg = with_workers(W12(_i % 2));
	const char *n = rw->name;

	memset(&tr, 0, sizeof(tr));
	ck_assert_int_eq(run_main(&cfg, table_main, (void *)rw), 0);
	ck_assert_msg(tr.link_rc == 0, "%s: act_link %lld", n,
		      (long long)tr.link_rc);
	ck_assert_uint_ne(tr.mp, 0);
	ck_assert_uint_ne(tr.ml, 0);
	ck_assert_uint_ne(tr.mp, tr.ml);
	if (rw->how == BY_KILL_P || rw->how == BY_KILL_L)
		ck_assert_msg(tr.kill_rc == 0, "%s: act_kill %lld", n,
			      (long long)tr.kill_rc);
	ASSERT_DOWN(tr.p_down, tr.p, rw->p_down, tr.mp, n);
	ck_assert_msg(tr.p_gone, "%s: P never reaped", n);
	if (rw->l_lives) {
		ck_assert_msg(tr.l_answered, "%s: L did not survive", n);
		if (rw->l_exit)
			ASSERT_EXIT(tr.l_exit, tr.p, rw->p_down, n);
		else
			ASSERT_NONE(tr.l_exit, n);
		ck_assert_msg(tr.l_extra == 0, "%s: %lld more EXIT/DOWN in L",
			      n, (long long)tr.l_extra);
	}
	ASSERT_DOWN(tr.l_down, tr.l, rw->l_down, tr.ml, n);
}
END_TEST

/* act_trap_exit returns the previous setting; off at spawn. */
static struct {
	bool b0, b1, b2, b3, child0;
} trap_res;

static void trap_child(void *arg)
{
	(void)arg;
	trap_res.child0 = act_trap_exit(false);
}

static void trap_main(void *arg)
{
	(void)arg;
	trap_res.b0 = act_trap_exit(true);
	trap_res.b1 = act_trap_exit(true);
	trap_res.b2 = act_trap_exit(false);
	trap_res.b3 = act_trap_exit(false);
	act_trap_exit(true); /* a child of a trapping parent: off anyway */
	trap_res.child0 = true;
	ck_assert(reaped(spawn_ok(trap_child, NULL)));
}

START_TEST(trap_exit_returns_previous)
{
	struct act_config cfg = with_workers(1);

	memset(&trap_res, 0, sizeof(trap_res));
	ck_assert_int_eq(run_main(&cfg, trap_main, NULL), 0);
	ck_assert(!trap_res.b0);
	ck_assert(trap_res.b1);
	ck_assert(trap_res.b2);
	ck_assert(!trap_res.b3);
	ck_assert(!trap_res.child0);
}
END_TEST

/* ======================================================================
 * 2. act_kill's signal
 * ====================================================================== */

static struct kill_res {
	act_pid main, t, k, t2, t3, s1, s2, s3, dead;
	int64_t rc_k77, rc_main78, rc_knormal, rc_t2normal;
	struct seen e77, e78, enormal;
	bool t2_answered;
	int64_t t2_sigs;
	struct seen t2_down;
	uint64_t m_t2, m_t3, m_s1, m_s2, m_s3, m_t;
	int fk_rc1, fk_rc2;
	struct seen e_foreign, t3_down;
	struct seen s1_down;
	int s1_replies, s3_replies;
	int64_t s2_rc;
	struct seen s2_exit, s2_down;
	bool s2_answered;
	struct seen s3_down;
	int dead_rc, none_rc;
	bool t_answered;
	struct seen t_down;
} kr;

struct foreign_kills {
	act_pid a, b;
	int rc_a, rc_b;
};

static void *foreign_killer(void *arg)
{
	struct foreign_kills *fk = arg;

	fk->rc_a = act_kill(fk->a, 55);
	fk->rc_b = act_kill(fk->b, 56);
	return NULL;
}

static void kill_main(void *arg)
{
	struct foreign_kills fk;
	struct reply r;
	pthread_t th;

	(void)arg;
	kr.main = act_self();
	/* a trapping target gets EXIT with who = the killer */
	kr.t = new_trapper(true);
	kr.k = new_puppet();
	kr.m_t = act_monitor(kr.t);
	kr.rc_k77 = callv(kr.k, OP_KILL, kr.t, 77);
	kr.e77 = p_take_exit(kr.t, kr.k, WAIT);
	kr.rc_main78 = act_kill(kr.t, 78);
	kr.e78 = p_take_exit(kr.t, kr.main, WAIT);
	kr.rc_knormal = callv(kr.k, OP_KILL, kr.t, ACT_EXIT_NORMAL);
	kr.enormal = p_take_exit(kr.t, kr.k, WAIT);
	/* a non-trapping target ignores ACT_EXIT_NORMAL */
	kr.t2 = new_puppet();
	kr.m_t2 = act_monitor(kr.t2);
	kr.rc_t2normal = act_kill(kr.t2, ACT_EXIT_NORMAL);
	act_sleep(QUIET);
	r = call(kr.t2, OP_COUNT, ACT_PID_NONE, 0);
	kr.t2_answered = r.ok;
	kr.t2_sigs = r.v;
	cast(kr.t2, OP_RETURN, ACT_PID_NONE, 0);
	kr.t2_down = take_down(kr.t2, kr.m_t2, WAIT);
	/* from a thread that is not a process: who = ACT_PID_NONE */
	kr.t3 = new_puppet();
	kr.m_t3 = act_monitor(kr.t3);
	fk.a = kr.t;
	fk.b = kr.t3;
	ck_assert_int_eq(pthread_create(&th, NULL, foreign_killer, &fk), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	kr.fk_rc1 = fk.rc_a;
	kr.fk_rc2 = fk.rc_b;
	kr.e_foreign = p_take_exit(kr.t, ACT_PID_NONE, WAIT);
	kr.t3_down = take_down(kr.t3, kr.m_t3, WAIT);
	/* itself with NORMAL, not trapping: it ends (no OP_RETURN sent) */
	kr.s1 = new_puppet();
	kr.m_s1 = act_monitor(kr.s1);
	cast(kr.s1, OP_KILL_SELF, ACT_PID_NONE, ACT_EXIT_NORMAL);
	kr.s1_down = take_down(kr.s1, kr.m_s1, WAIT);
	kr.s1_replies = drain_now(T_REPLY, kr.s1, false);
	/* itself with 7, trapping: an EXIT from itself, and it goes on */
	kr.s2 = new_trapper(true);
	kr.m_s2 = act_monitor(kr.s2);
	kr.s2_rc = callv(kr.s2, OP_KILL_SELF, ACT_PID_NONE, 7);
	kr.s2_exit = p_take_exit(kr.s2, kr.s2, WAIT);
	kr.s2_answered = call(kr.s2, OP_PING, ACT_PID_NONE, 0).ok;
	cast(kr.s2, OP_RETURN, ACT_PID_NONE, 0);
	kr.s2_down = take_down(kr.s2, kr.m_s2, WAIT);
	/* itself with 9, not trapping: dies with 9 */
	kr.s3 = new_puppet();
	kr.m_s3 = act_monitor(kr.s3);
	cast(kr.s3, OP_KILL_SELF, ACT_PID_NONE, 9);
	kr.s3_down = take_down(kr.s3, kr.m_s3, WAIT);
	kr.s3_replies = drain_now(T_REPLY, kr.s3, false);
	/* the dead and nobody */
	kr.dead = kr.s3;
	ck_assert(reaped(kr.dead));
	kr.dead_rc = act_kill(kr.dead, 1);
	kr.none_rc = act_kill(ACT_PID_NONE, 1);
	/* the trapping target survived it all */
	kr.t_answered = call(kr.t, OP_PING, ACT_PID_NONE, 0).ok;
	cast(kr.t, OP_RETURN, ACT_PID_NONE, 0);
	kr.t_down = take_down(kr.t, kr.m_t, WAIT);
	cast(kr.k, OP_RETURN, ACT_PID_NONE, 0);
}

START_TEST(kill_signal)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&kr, 0, sizeof(kr));
	ck_assert_int_eq(run_main(&cfg, kill_main, NULL), 0);
	ck_assert_int_eq(kr.rc_k77, 0);
	ASSERT_EXIT(kr.e77, kr.k, 77, "trapping target, killer K");
	ck_assert_int_eq(kr.rc_main78, 0);
	ASSERT_EXIT(kr.e78, kr.main, 78, "trapping target, killer main");
	ck_assert_int_eq(kr.rc_knormal, 0);
	ASSERT_EXIT(kr.enormal, kr.k, ACT_EXIT_NORMAL,
		    "trapping target, NORMAL");
	ck_assert_int_eq(kr.rc_t2normal, 0);
	ck_assert_msg(kr.t2_answered,
		      "act_kill(NORMAL) ended a process that does not trap");
	ck_assert_int_eq(kr.t2_sigs, 0);
	ASSERT_DOWN(kr.t2_down, kr.t2, ACT_EXIT_NORMAL, kr.m_t2, "t2");
	ck_assert_int_eq(kr.fk_rc1, 0);
	ck_assert_int_eq(kr.fk_rc2, 0);
	ASSERT_EXIT(kr.e_foreign, ACT_PID_NONE, 55, "kill from a thread");
	ASSERT_DOWN(kr.t3_down, kr.t3, 56, kr.m_t3, "killed from a thread");
	ASSERT_DOWN(kr.s1_down, kr.s1, ACT_EXIT_NORMAL, kr.m_s1,
		    "self-kill NORMAL, not trapping");
	ck_assert_int_eq(kr.s2_rc, 0);
	ASSERT_EXIT(kr.s2_exit, kr.s2, 7, "self-kill 7, trapping");
	ck_assert(kr.s2_answered);
	ASSERT_DOWN(kr.s2_down, kr.s2, ACT_EXIT_NORMAL, kr.m_s2, "s2");
	ASSERT_DOWN(kr.s3_down, kr.s3, 9, kr.m_s3, "self-kill 9");
	ck_assert_msg(kr.s1_replies == 0 && kr.s3_replies == 0,
		      "act_kill of the caller returned after ending it");
	ck_assert_int_eq(kr.dead_rc, -ESRCH);
	ck_assert_int_eq(kr.none_rc, -ESRCH);
	ck_assert(kr.t_answered);
	ASSERT_DOWN(kr.t_down, kr.t, ACT_EXIT_NORMAL, kr.m_t, "t");
}
END_TEST

/* ======================================================================
 * 3. Monitors
 * ====================================================================== */

static struct mon_res {
	bool main_trapped;
	act_pid c1, c2, c3, c4, c5, c6, c7, w6, w7;
	uint64_t r1, r2a, r2b, r3, r4a, r4b, r5a, r5b, r6, r7, rw7, r3none;
	struct seen d1, d2a, d2b, d3, d4b, d4a_late, d5b, d5a_late, d6, d7;
	int d2_extra, d3_extra, d1_extra, d7_extra;
	uint64_t rself, rself2;
	int dm_self;
	struct seen self_down;
	int dm4, dm4_again, dm4b_after;
	bool peek5_before, peek5_after;
	int dm5, dm5_again;
	int dm_unknown, dm_zero;
	int64_t dm6_other;
	bool w7_gone;
} mr;

struct peek {
	uint64_t ref;
	bool seen;
};

/* A match that takes nothing: notes whether DOWN ref is in the mailbox. */
static bool peek_down(const struct act_msg *m, void *ctx)
{
	struct peek *pk = ctx;
	const struct act_exit_info *i = m->data;

	if (m->tag == ACT_TAG_DOWN && m->len == sizeof(*i) &&
	    i->ref == pk->ref)
		pk->seen = true;
	return false;
}

static bool down_in_mailbox(uint64_t ref)
{
	struct peek pk = { ref, false };

	ck_assert_ptr_null(act_receive_match(peek_down, &pk, 0));
	return pk.seen;
}

static void monitor_main(void *arg)
{
	(void)arg;
	mr.main_trapped = act_trap_exit(false);
	/* DOWN on a normal exit, with the right ref */
	mr.c1 = new_puppet();
	mr.r1 = act_monitor(mr.c1);
	cast(mr.c1, OP_RETURN, ACT_PID_NONE, 0);
	mr.d1 = take_down(mr.c1, mr.r1, WAIT);
	ck_assert(reaped(mr.c1));
	mr.d1_extra = drain_sigs();
	/* two monitors, two DOWNs, two refs */
	mr.c2 = new_puppet();
	mr.r2a = act_monitor(mr.c2);
	mr.r2b = act_monitor(mr.c2);
	cast(mr.c2, OP_EXIT, ACT_PID_NONE, 9);
	mr.d2a = take_down(mr.c2, mr.r2a, WAIT);
	mr.d2b = take_down(mr.c2, mr.r2b, WAIT);
	ck_assert(reaped(mr.c2));
	mr.d2_extra = drain_sigs();
	/* a dead pid: DOWN with NOPROC at once (in the mailbox when
	 * act_monitor returns) */
	mr.c3 = mr.c1;
	mr.r3 = act_monitor(mr.c3);
	mr.d3 = take_down(mr.c3, mr.r3, 0);
	mr.d3_extra = drain_sigs();
	/* demonitor before the exit: no DOWN ever */
	mr.c4 = new_puppet();
	mr.r4a = act_monitor(mr.c4);
	mr.r4b = act_monitor(mr.c4);
	mr.dm4 = act_demonitor(mr.r4a);
	mr.dm4_again = act_demonitor(mr.r4a);
	cast(mr.c4, OP_EXIT, ACT_PID_NONE, 10);
	mr.d4b = take_down(mr.c4, mr.r4b, WAIT);
	ck_assert(reaped(mr.c4));
	mr.d4a_late = take_down(mr.c4, mr.r4a, QUIET);
	mr.dm4b_after = act_demonitor(mr.r4b); /* its DOWN was received */
	/* demonitor after the death, the DOWN still in the mailbox */
	mr.c5 = new_puppet();
	mr.r5a = act_monitor(mr.c5);
	mr.r5b = act_monitor(mr.c5);
	cast(mr.c5, OP_EXIT, ACT_PID_NONE, 11);
	mr.d5b = take_down(mr.c5, mr.r5b, WAIT);
	ck_assert(reaped(mr.c5));
	mr.peek5_before = down_in_mailbox(mr.r5a);
	mr.dm5 = act_demonitor(mr.r5a);
	mr.peek5_after = down_in_mailbox(mr.r5a);
	mr.d5a_late = take_down(mr.c5, mr.r5a, QUIET);
	mr.dm5_again = act_demonitor(mr.r5a);
	/* refs nobody has */
	mr.dm_unknown = act_demonitor(0x5eed5eed5eedull);
	mr.dm_zero = act_demonitor(0);
	/* another process's ref is not the caller's */
	mr.c6 = new_puppet();
	mr.w6 = new_puppet();
	mr.r6 = act_monitor(mr.c6);
	{
		struct cmd c = { .op = OP_DEMONITOR, .ref = mr.r6 };
		struct reply r = call_c(mr.w6, c);

		mr.dm6_other = r.ok ? r.v : INT64_MIN;
	}
	cast(mr.c6, OP_EXIT, ACT_PID_NONE, 12);
	mr.d6 = take_down(mr.c6, mr.r6, WAIT);
	cast(mr.w6, OP_RETURN, ACT_PID_NONE, 0);
	/* a watcher that exits first: its monitor goes with it */
	mr.c7 = new_puppet();
	mr.w7 = new_puppet();
	mr.rw7 = call(mr.w7, OP_MONITOR, mr.c7, 0).ref;
	cast(mr.w7, OP_RETURN, ACT_PID_NONE, 0);
	mr.w7_gone = reaped(mr.w7);
	mr.r7 = act_monitor(mr.c7);
	cast(mr.c7, OP_EXIT, ACT_PID_NONE, 13);
	mr.d7 = take_down(mr.c7, mr.r7, WAIT);
	ck_assert(reaped(mr.c7));
	mr.d7_extra = drain_now(ACT_TAG_DOWN, mr.c7, false);
	/* a monitor of oneself: allowed, never fires; demonitor takes it */
	mr.rself = act_monitor(act_self());
	mr.rself2 = act_monitor(act_self());
	mr.dm_self = act_demonitor(mr.rself);
	mr.self_down = take(ACT_TAG_DOWN, act_self(), false, 0, QUIET);
	/* the second stays: it goes when main exits (no leak, I9) */
}

START_TEST(monitors)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(run_main(&cfg, monitor_main, NULL), 0);
	ck_assert(!mr.main_trapped);
	ck_assert_uint_ne(mr.r1, 0);
	ASSERT_DOWN(mr.d1, mr.c1, ACT_EXIT_NORMAL, mr.r1, "normal exit");
	ck_assert_int_eq(mr.d1_extra, 0);
	ck_assert_uint_ne(mr.r2a, 0);
	ck_assert_uint_ne(mr.r2b, 0);
	ck_assert_uint_ne(mr.r2a, mr.r2b);
	ASSERT_DOWN(mr.d2a, mr.c2, 9, mr.r2a, "first of two monitors");
	ASSERT_DOWN(mr.d2b, mr.c2, 9, mr.r2b, "second of two monitors");
	ck_assert_int_eq(mr.d2_extra, 0);
	ck_assert_uint_ne(mr.r3, 0);
	ck_assert_uint_ne(mr.r3, mr.r1);
	ASSERT_DOWN(mr.d3, mr.c3, ACT_EXIT_NOPROC, mr.r3,
		    "monitor of a dead pid (at once)");
	ck_assert_int_eq(mr.d3_extra, 0);
	ck_assert_int_eq(mr.dm4, 0);
	ck_assert_int_eq(mr.dm4_again, -ENOENT);
	ASSERT_DOWN(mr.d4b, mr.c4, 10, mr.r4b, "the monitor left");
	ASSERT_NONE(mr.d4a_late, "DOWN of a monitor removed before it fired");
	ck_assert_int_eq(mr.dm4b_after, -ENOENT);
	ASSERT_DOWN(mr.d5b, mr.c5, 11, mr.r5b, "c5");
	ck_assert_msg(mr.peek5_before, "the DOWN was not in the mailbox yet: "
				       "the case tests nothing");
	ck_assert_int_eq(mr.dm5, 0);
	ck_assert_msg(!mr.peek5_after,
		      "act_demonitor left its DOWN in the mailbox");
	ASSERT_NONE(mr.d5a_late, "DOWN after act_demonitor");
	ck_assert_int_eq(mr.dm5_again, -ENOENT);
	ck_assert_int_eq(mr.dm_unknown, -ENOENT);
	ck_assert_int_eq(mr.dm_zero, -ENOENT);
	ck_assert_int_eq(mr.dm6_other, -ENOENT);
	ASSERT_DOWN(mr.d6, mr.c6, 12, mr.r6, "another's demonitor");
	ck_assert_uint_ne(mr.rw7, 0);
	ck_assert(mr.w7_gone);
	ASSERT_DOWN(mr.d7, mr.c7, 13, mr.r7, "watcher gone first");
	ck_assert_int_eq(mr.d7_extra, 0);
	ck_assert_uint_ne(mr.rself, 0);
	ck_assert_uint_ne(mr.rself2, 0);
	ck_assert_uint_ne(mr.rself, mr.rself2);
	ck_assert_int_eq(mr.dm_self, 0);
	ASSERT_NONE(mr.self_down, "a monitor of oneself fired");
}
END_TEST

/* ======================================================================
 * 4. Links
 * ====================================================================== */

static struct link_res {
	act_pid d, a, b;
	int64_t a_dead_rc, a_none_rc, a_count, b_dead_rc, b_extra;
	struct seen b_noproc;
	/* self */
	int64_t b_self_rc, b_self_unlink, b_self_count, a_self_rc;
	bool a_self_alive;
	uint64_t m_bs;
	struct seen bs_down;
	/* unlink, not trapping (a2) and trapping (b2) */
	act_pid x, a2, b2;
	uint64_t mx, ma2, mb2;
	int64_t a2_link, a2_unlink, b2_link, b2_unlink, a2_count, b2_count;
	bool a2_alive, b2_alive;
	struct seen x_down;
	struct seen b2_exit;
	/* the other end unlinks */
	act_pid y, a3;
	uint64_t my;
	int64_t a3_link, y_unlink, a3_count;
	bool a3_alive;
	struct seen y_down;
	/* twice, then once unlinked */
	act_pid z, a4;
	uint64_t mz;
	int64_t a4_link1, a4_link2, a4_unlink, a4_count;
	bool a4_alive;
	struct seen z_down;
	/* both ends link, trapping: one EXIT */
	act_pid z2, b5;
	int64_t b5_link1, b5_link2, z2_link;
	struct seen b5_exit;
	int64_t b5_extra;
	/* unlink of a live pid not linked, a dead one, nobody */
	int64_t a_unlink_none, a_unlink_dead, a_unlink_nobody;
	/* an EXIT delivered before the unlink stays */
	act_pid x3, b6;
	int64_t b6_link, b6_unlink;
	struct seen b6_exit;
} lr;

static void link_main(void *arg)
{
	struct reply r;

	(void)arg;
	/* a dead pid: -ESRCH; EXIT NOPROC only when trapping */
	lr.d = new_puppet();
	cast(lr.d, OP_RETURN, ACT_PID_NONE, 0);
	ck_assert(reaped(lr.d));
	lr.a = new_trapper(false);
	lr.b = new_trapper(true);
	lr.a_dead_rc = callv(lr.a, OP_LINK, lr.d, 0);
	lr.a_none_rc = callv(lr.a, OP_LINK, ACT_PID_NONE, 0);
	act_sleep(QUIET);
	lr.a_count = callv(lr.a, OP_COUNT, ACT_PID_NONE, 0);
	lr.b_dead_rc = callv(lr.b, OP_LINK, lr.d, 0);
	lr.b_noproc = p_take_exit(lr.b, lr.d, WAIT);
	lr.b_extra = callv(lr.b, OP_COUNT, ACT_PID_NONE, 0);
	/* to itself: 0, and nothing */
	lr.b_self_rc = callv(lr.b, OP_LINK, lr.b, 0);
	lr.b_self_unlink = callv(lr.b, OP_UNLINK, lr.b, 0);
	lr.a_self_rc = callv(lr.a, OP_LINK, lr.a, 0);
	act_sleep(QUIET);
	lr.b_self_count = callv(lr.b, OP_COUNT, ACT_PID_NONE, 0);
	lr.a_self_alive = call(lr.a, OP_PING, ACT_PID_NONE, 0).ok;
	lr.m_bs = act_monitor(lr.b);
	cast(lr.b, OP_EXIT, ACT_PID_NONE, 33);
	lr.bs_down = take_down(lr.b, lr.m_bs, WAIT);
	/* unlink, then the other dies abnormally */
	lr.x = new_puppet();
	lr.a2 = new_trapper(false);
	lr.b2 = new_trapper(true);
	lr.mx = act_monitor(lr.x);
	lr.ma2 = act_monitor(lr.a2);
	lr.mb2 = act_monitor(lr.b2);
	lr.a2_link = callv(lr.a2, OP_LINK, lr.x, 0);
	lr.b2_link = callv(lr.b2, OP_LINK, lr.x, 0);
	lr.a2_unlink = callv(lr.a2, OP_UNLINK, lr.x, 0);
	lr.b2_unlink = callv(lr.b2, OP_UNLINK, lr.x, 0);
	cast(lr.x, OP_EXIT, ACT_PID_NONE, 44);
	lr.x_down = take_down(lr.x, lr.mx, WAIT);
	ck_assert(reaped(lr.x));
	lr.b2_exit = p_take_exit(lr.b2, lr.x, QUIET);
	r = call(lr.a2, OP_COUNT, ACT_PID_NONE, 0);
	lr.a2_alive = r.ok;
	lr.a2_count = r.v;
	r = call(lr.b2, OP_COUNT, ACT_PID_NONE, 0);
	lr.b2_alive = r.ok;
	lr.b2_count = r.v;
	/* the other end unlinks */
	lr.y = new_puppet();
	lr.a3 = new_trapper(false);
	lr.my = act_monitor(lr.y);
	lr.a3_link = callv(lr.a3, OP_LINK, lr.y, 0);
	lr.y_unlink = callv(lr.y, OP_UNLINK, lr.a3, 0);
	cast(lr.y, OP_EXIT, ACT_PID_NONE, 44);
	lr.y_down = take_down(lr.y, lr.my, WAIT);
	ck_assert(reaped(lr.y));
	r = call(lr.a3, OP_COUNT, ACT_PID_NONE, 0);
	lr.a3_alive = r.ok;
	lr.a3_count = r.v;
	/* linked twice is linked once: one unlink removes it */
	lr.z = new_puppet();
	lr.a4 = new_trapper(false);
	lr.mz = act_monitor(lr.z);
	lr.a4_link1 = callv(lr.a4, OP_LINK, lr.z, 0);
	lr.a4_link2 = callv(lr.a4, OP_LINK, lr.z, 0);
	lr.a4_unlink = callv(lr.a4, OP_UNLINK, lr.z, 0);
	cast(lr.z, OP_EXIT, ACT_PID_NONE, 44);
	lr.z_down = take_down(lr.z, lr.mz, WAIT);
	ck_assert(reaped(lr.z));
	r = call(lr.a4, OP_COUNT, ACT_PID_NONE, 0);
	lr.a4_alive = r.ok;
	lr.a4_count = r.v;
	/* linked from both ends and twice: one EXIT */
	lr.z2 = new_puppet();
	lr.b5 = new_trapper(true);
	lr.b5_link1 = callv(lr.b5, OP_LINK, lr.z2, 0);
	lr.b5_link2 = callv(lr.b5, OP_LINK, lr.z2, 0);
	lr.z2_link = callv(lr.z2, OP_LINK, lr.b5, 0);
	cast(lr.z2, OP_EXIT, ACT_PID_NONE, 44);
	lr.b5_exit = p_take_exit(lr.b5, lr.z2, WAIT);
	ck_assert(reaped(lr.z2));
	lr.b5_extra = callv(lr.b5, OP_COUNT, ACT_PID_NONE, 0);
	/* unlink of a live process that is not linked, of a dead one, of
	 * nobody: 0 */
	lr.a_unlink_none = callv(lr.a, OP_UNLINK, lr.b5, 0);
	lr.a_unlink_dead = callv(lr.a, OP_UNLINK, lr.d, 0);
	lr.a_unlink_nobody = callv(lr.a, OP_UNLINK, ACT_PID_NONE, 0);
	/* an EXIT already delivered stays after the unlink */
	lr.x3 = new_puppet();
	lr.b6 = new_trapper(true);
	lr.b6_link = callv(lr.b6, OP_LINK, lr.x3, 0);
	cast(lr.x3, OP_EXIT, ACT_PID_NONE, 45);
	ck_assert(reaped(lr.x3));
	lr.b6_unlink = callv(lr.b6, OP_UNLINK, lr.x3, 0);
	lr.b6_exit = p_take_exit(lr.b6, lr.x3, 0);
}

START_TEST(links)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&lr, 0, sizeof(lr));
	ck_assert_int_eq(run_main(&cfg, link_main, NULL), 0);
	/* dead pid */
	ck_assert_int_eq(lr.a_dead_rc, -ESRCH);
	ck_assert_int_eq(lr.a_none_rc, -ESRCH);
	ck_assert_msg(lr.a_count == 0,
		      "a non-trapping caller got %lld EXIT(s) from a link to "
		      "a dead pid", (long long)lr.a_count);
	ck_assert_int_eq(lr.b_dead_rc, -ESRCH);
	ASSERT_EXIT(lr.b_noproc, lr.d, ACT_EXIT_NOPROC,
		    "trapping link to a dead pid");
	ck_assert_int_eq(lr.b_extra, 0);
	/* self */
	ck_assert_int_eq(lr.b_self_rc, 0);
	ck_assert_int_eq(lr.b_self_unlink, 0);
	ck_assert_int_eq(lr.a_self_rc, 0);
	ck_assert_int_eq(lr.b_self_count, 0);
	ck_assert(lr.a_self_alive);
	ASSERT_DOWN(lr.bs_down, lr.b, 33, lr.m_bs, "self-linked b exits");
	/* unlink */
	ck_assert_int_eq(lr.a2_link, 0);
	ck_assert_int_eq(lr.b2_link, 0);
	ck_assert_int_eq(lr.a2_unlink, 0);
	ck_assert_int_eq(lr.b2_unlink, 0);
	ASSERT_DOWN(lr.x_down, lr.x, 44, lr.mx, "x");
	ck_assert_msg(lr.a2_alive, "unlinked, not trapping: died anyway");
	ck_assert_int_eq(lr.a2_count, 0);
	ck_assert_msg(lr.b2_alive, "unlinked, trapping: died");
	ASSERT_NONE(lr.b2_exit, "EXIT after act_unlink");
	ck_assert_int_eq(lr.b2_count, 0);
	ck_assert_int_eq(lr.a3_link, 0);
	ck_assert_int_eq(lr.y_unlink, 0);
	ASSERT_DOWN(lr.y_down, lr.y, 44, lr.my, "y");
	ck_assert_msg(lr.a3_alive, "unlinked by the other end: died anyway");
	ck_assert_int_eq(lr.a3_count, 0);
	/* at most one link */
	ck_assert_int_eq(lr.a4_link1, 0);
	ck_assert_int_eq(lr.a4_link2, 0);
	ck_assert_int_eq(lr.a4_unlink, 0);
	ASSERT_DOWN(lr.z_down, lr.z, 44, lr.mz, "z");
	ck_assert_msg(lr.a4_alive, "linked twice, unlinked once: died");
	ck_assert_int_eq(lr.a4_count, 0);
	ck_assert_int_eq(lr.b5_link1, 0);
	ck_assert_int_eq(lr.b5_link2, 0);
	ck_assert_int_eq(lr.z2_link, 0);
	ASSERT_EXIT(lr.b5_exit, lr.z2, 44, "linked three times");
	ck_assert_msg(lr.b5_extra == 0, "%lld more EXITs: more than one link",
		      (long long)lr.b5_extra);
	ck_assert_int_eq(lr.a_unlink_none, 0);
	ck_assert_int_eq(lr.a_unlink_dead, 0);
	ck_assert_int_eq(lr.a_unlink_nobody, 0);
	ck_assert_int_eq(lr.b6_link, 0);
	ck_assert_int_eq(lr.b6_unlink, 0);
	ASSERT_EXIT(lr.b6_exit, lr.x3, 45, "EXIT delivered before unlink");
}
END_TEST

/* ---- ACT_SPAWN_LINK / ACT_SPAWN_MONITOR: the child exits at once ------- */

#define SPAWN_N 300

static struct spawn_res {
	bool trapped_before;
	int link_ok, link_bad;
	int nolink_parent_ok, nolink_bad;
	int mon_ok, mon_bad, mon_null_ok, both_ok, both_bad;
	int dup_refs;
	int none_ref; /* ACT_SPAWN_MONITOR left monitor_ref 0 */
	char why[256];
} sr;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool exit_is(struct seen s, act_pid p, intptr_t why, uint64_t ref)
{
	return s.n == 1 && act_pid_eq(s.from, p) &&
	       act_pid_eq(s.info.who, p) && s.info.reason == why &&
	       s.info.ref == ref && s.len == sizeof(struct act_exit_info);
}

static void note_bad(const char *what, int i, struct seen s)
{
	if (!sr.why[0])
		snprintf(sr.why, sizeof(sr.why),
			 "%s, round %d: n %d tag %#x reason %ld ref %llu", what,
			 i, s.n, s.tag, (long)s.info.reason,
			 (unsigned long long)s.info.ref);
}

static void spawn_flags_main(void *arg)
{
	static uint64_t refs[2 * SPAWN_N];
	struct act_spawn_opts o;
	struct seen s, s2;
	unsigned nrefs = 0;
	uint64_t ref, mp;
	act_pid c, p;
	int i;

	(void)arg;
	/* LINK, trapping parent: EXIT with the child's reason, never
	 * NOPROC (the link was there before the child ran) */
	sr.trapped_before = act_trap_exit(true);
	for (i = 0; i < SPAWN_N; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_LINK;
		c = act_spawn_opt(exit_at_once, (void *)(intptr_t)46, &o);
		ck_assert(c.id);
		s = take_exit(c, WAIT);
		if (exit_is(s, c, 46, 0)) {
			sr.link_ok++;
		} else {
			sr.link_bad++;
			note_bad("LINK, trapping", i, s);
		}
	}
	act_trap_exit(false);
	/* LINK, parent does not trap: it dies with the child's reason */
	for (i = 0; i < SPAWN_N / 4; i++) {
		struct cmd cm = { .op = OP_SPAWN, .flags = ACT_SPAWN_LINK,
				  .arg = 46 };

		p = new_puppet();
		mp = act_monitor(p);
		cast_c(p, cm);
		s = take_down(p, mp, WAIT);
		if (exit_is(s, p, 46, mp)) {
			sr.nolink_parent_ok++;
		} else {
			sr.nolink_bad++;
			note_bad("LINK, not trapping", i, s);
		}
	}
	/* MONITOR: the ref is filled, its DOWN has the child's reason */
	for (i = 0; i < SPAWN_N; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_MONITOR;
		ref = 0;
		o.monitor_ref = &ref;
		c = act_spawn_opt(exit_at_once, (void *)(intptr_t)47, &o);
		ck_assert(c.id);
		sr.none_ref += ref == 0;
		if (!ref) { /* no ref to wait for: fail at once */
			memset(&s, 0, sizeof(s));
			sr.mon_bad++;
			note_bad("MONITOR: monitor_ref not written", i, s);
			continue;
		}
		refs[nrefs++] = ref;
		s = take_down(c, ref, WAIT);
		if (ref && exit_is(s, c, 47, ref)) {
			sr.mon_ok++;
		} else {
			sr.mon_bad++;
			note_bad("MONITOR", i, s);
		}
	}
	/* monitor_ref NULL: the DOWN comes all the same */
	for (i = 0; i < SPAWN_N / 4; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_MONITOR;
		c = act_spawn_opt(exit_at_once, (void *)(intptr_t)47, &o);
		ck_assert(c.id);
		s = take(ACT_TAG_DOWN, c, false, 0, WAIT);
		if (s.info.ref && exit_is(s, c, 47, s.info.ref)) {
			sr.mon_null_ok++;
			refs[nrefs++] = s.info.ref;
		} else {
			sr.mon_bad++;
			note_bad("MONITOR, NULL monitor_ref", i, s);
		}
	}
	/* both, trapping: an EXIT and a DOWN */
	act_trap_exit(true);
	for (i = 0; i < SPAWN_N / 4; i++) {
		memset(&o, 0, sizeof(o));
		o.flags = ACT_SPAWN_LINK | ACT_SPAWN_MONITOR;
		ref = 0;
		o.monitor_ref = &ref;
		c = act_spawn_opt(exit_at_once, (void *)(intptr_t)48, &o);
		ck_assert(c.id);
		s = take_exit(c, WAIT);
		memset(&s2, 0, sizeof(s2));
		if (ref)
			s2 = take_down(c, ref, WAIT);
		if (ref && exit_is(s, c, 48, 0) && exit_is(s2, c, 48, ref)) {
			sr.both_ok++;
			refs[nrefs++] = ref;
		} else {
			sr.both_bad++;
			note_bad("LINK|MONITOR", i, s.n ? s2 : s);
		}
	}
	act_trap_exit(false);
	qsort(refs, nrefs, sizeof(refs[0]), cmp_u64);
	for (i = 1; i < (int)nrefs; i++)
		sr.dup_refs += refs[i] == refs[i - 1];
}

START_TEST(spawn_link_monitor_atomic)
{
	struct act_config cfg = with_workers(W24(_i));

	memset(&sr, 0, sizeof(sr));
	ck_assert_int_eq(run_main(&cfg, spawn_flags_main, NULL), 0);
	ck_assert(!sr.trapped_before);
	ck_assert_msg(sr.link_bad == 0 && sr.nolink_bad == 0 &&
			      sr.mon_bad == 0 && sr.both_bad == 0,
		      "%s", sr.why);
	ck_assert_int_eq(sr.link_ok, SPAWN_N);
	ck_assert_int_eq(sr.nolink_parent_ok, SPAWN_N / 4);
	ck_assert_int_eq(sr.mon_ok, SPAWN_N);
	ck_assert_int_eq(sr.mon_null_ok, SPAWN_N / 4);
	ck_assert_int_eq(sr.both_ok, SPAWN_N / 4);
	ck_assert_int_eq(sr.none_ref, 0);
	ck_assert_int_eq(sr.dup_refs, 0);
}
END_TEST

/* ---- a chain A-B-C: C's end spreads to all ----------------------------- */

static struct chain_res {
	act_pid a, b, c;
	uint64_t ma, mb, mc;
	int64_t ab, bc, kill_rc;
	struct seen da, db, dc;
} cr;

struct chain_case {
	const char *name;
	bool by_kill;
	intptr_t reason, expect;
};

static const struct chain_case chains[] = {
	{ "kill C with 47", true, 47, 47 },
	{ "kill C with KILL", true, ACT_EXIT_KILL, ACT_EXIT_KILLED },
	{ "C act_exit(49)", false, 49, 49 },
};

static void chain_main(void *arg)
{
	const struct chain_case *cc = arg;

	act_trap_exit(true); /* the observer traps: it is not linked */
	cr.c = new_puppet();
	cr.b = new_puppet();
	cr.a = new_puppet();
	cr.bc = callv(cr.b, OP_LINK, cr.c, 0);
	cr.ab = callv(cr.a, OP_LINK, cr.b, 0);
	cr.ma = act_monitor(cr.a);
	cr.mb = act_monitor(cr.b);
	cr.mc = act_monitor(cr.c);
	if (cc->by_kill)
		cr.kill_rc = act_kill(cr.c, cc->reason);
	else
		cast(cr.c, OP_EXIT, ACT_PID_NONE, cc->reason);
	cr.dc = take_down(cr.c, cr.mc, WAIT);
	cr.db = take_down(cr.b, cr.mb, WAIT);
	cr.da = take_down(cr.a, cr.ma, WAIT);
}

START_TEST(link_chain)
{
	const struct chain_case *cc = &chains[_i / 2];
	struct act_config cfg = with_workers(W24(_i % 2));

	memset(&cr, 0, sizeof(cr));
	ck_assert_int_eq(run_main(&cfg, chain_main, (void *)cc), 0);
	ck_assert_int_eq(cr.bc, 0);
	ck_assert_int_eq(cr.ab, 0);
	ck_assert_int_eq(cr.kill_rc, 0);
	ASSERT_DOWN(cr.dc, cr.c, cc->expect, cr.mc, cc->name);
	ASSERT_DOWN(cr.db, cr.b, cc->expect, cr.mb, cc->name);
	ASSERT_DOWN(cr.da, cr.a, cc->expect, cr.ma, cc->name);
}
END_TEST

/* ======================================================================
 * 5. An EXIT or DOWN comes after every message the process sent before
 * ====================================================================== */

#define ORDER_K 1000
#define ORDER_ROUNDS 10

static struct order_res {
	int rounds;
	act_pid s[ORDER_ROUNDS];
	intptr_t why[ORDER_ROUNDS];
	uint64_t ms[ORDER_ROUNDS];
	int64_t link_rc[ORDER_ROUNDS];
	bool r_ok[ORDER_ROUNDS];
	struct drain at_r[ORDER_ROUNDS], at_main[ORDER_ROUNDS];
} orr;

static void order_main(void *arg)
{
	struct sig_want w = { .tag = T_REPLY };
	struct act_msg *m;
	struct reply r;
	act_pid rv;
	int i;

	(void)arg;
	for (i = 0; i < ORDER_ROUNDS; i++) {
		struct cmd drain = { .op = OP_DRAIN };
		struct cmd flood = { .op = OP_FLOOD, .arg = ORDER_K };

		orr.why[i] = i % 2 ? ACT_EXIT_NORMAL : 50;
		rv = new_trapper(true);
		orr.s[i] = new_puppet();
		orr.link_rc[i] = callv(rv, OP_LINK, orr.s[i], 0);
		orr.ms[i] = act_monitor(orr.s[i]);
		drain.pid = orr.s[i];
		ck_assert_int_eq(cast_c(rv, drain), 0);
		flood.pid = rv;
		flood.ref = (uint64_t)orr.why[i];
		ck_assert_int_eq(cast_c(orr.s[i], flood), 0);
		orr.at_main[i] = drain_from(orr.s[i], ACT_TAG_DOWN);
		w.from = rv;
		m = act_receive_match(sig_is, &w, WAIT);
		if (m) {
			memcpy(&r, m->data, sizeof(r));
			act_msg_free(m);
			orr.r_ok[i] = true;
			orr.at_r[i] = r.d;
		}
		cast(rv, OP_RETURN, ACT_PID_NONE, 0);
		orr.rounds++;
	}
}

START_TEST(signal_after_messages)
{
	struct act_config cfg = with_workers(W24(_i));
	char what[64];
	int i;

	memset(&orr, 0, sizeof(orr));
	ck_assert_int_eq(run_main(&cfg, order_main, NULL), 0);
	ck_assert_int_eq(orr.rounds, ORDER_ROUNDS);
	for (i = 0; i < ORDER_ROUNDS; i++) {
		snprintf(what, sizeof(what), "round %d, linked receiver", i);
		ck_assert_int_eq(orr.link_rc[i], 0);
		ck_assert_msg(orr.r_ok[i], "%s: no answer", what);
		ck_assert_msg(orr.at_r[i].data == ORDER_K,
			      "%s: %d of %d messages before the EXIT", what,
			      orr.at_r[i].data, ORDER_K);
		ck_assert_int_eq(orr.at_r[i].bad, 0);
		ASSERT_EXIT(orr.at_r[i].end, orr.s[i], orr.why[i], what);
		ck_assert_int_eq(orr.at_r[i].after, 0);
		snprintf(what, sizeof(what), "round %d, monitor", i);
		ck_assert_msg(orr.at_main[i].data == ORDER_K,
			      "%s: %d of %d messages before the DOWN", what,
			      orr.at_main[i].data, ORDER_K);
		ck_assert_int_eq(orr.at_main[i].bad, 0);
		ASSERT_DOWN(orr.at_main[i].end, orr.s[i], orr.why[i],
			    orr.ms[i], what);
		ck_assert_int_eq(orr.at_main[i].after, 0);
	}
}
END_TEST

/* ======================================================================
 * 6. Exit handlers
 * ====================================================================== */

#define H_MAX 8

static struct hlog {
	_Atomic int n;
	_Atomic int seq[H_MAX];
	_Atomic int calls[H_MAX];
	_Atomic int reg_bad;  /* act_on_exit calls that did not return 0 */
	_Atomic int after;    /* the victim ran past its blocking call */
	_Atomic int blocked_after; /* a blocking call in a handler returned */
	_Atomic int spawn_ok;
	act_pid boss;
} hl;

static void hl_reset(void)
{
	int i;

	atomic_store(&hl.n, 0);
	for (i = 0; i < H_MAX; i++) {
		atomic_store(&hl.seq[i], 0);
		atomic_store(&hl.calls[i], 0);
	}
	atomic_store(&hl.reg_bad, 0);
	atomic_store(&hl.after, 0);
	atomic_store(&hl.blocked_after, 0);
	atomic_store(&hl.spawn_ok, 0);
	hl.boss = act_self();
}

static void h_note(int id)
{
	int i = atomic_fetch_add(&hl.n, 1);

	if (i < H_MAX)
		atomic_store(&hl.seq[i], id);
	atomic_fetch_add(&hl.calls[id], 1);
}

static void h_rec(void *arg)
{
	h_note((int)(intptr_t)arg);
}

static void h_send(void *arg)
{
	int id = (int)(intptr_t)arg;

	h_note(id);
	act_send(hl.boss, T_HMSG, &id, sizeof(id));
}

static void spawned_by_handler(void *arg)
{
	(void)arg;
	act_send(hl.boss, T_SPAWNED, NULL, 0);
}

static void h_spawn(void *arg)
{
	h_note((int)(intptr_t)arg);
	atomic_store(&hl.spawn_ok,
		     act_spawn(spawned_by_handler, NULL).id != 0);
}

/* Waits: in a killed process too, a handler is ordinary code, and its
 * receive runs to its timeout (the kill was taken, signals no longer
 * reach the process). */
static void h_block(void *arg)
{
	h_note((int)(intptr_t)arg);
	if (act_receive_match(match_never, NULL, 20 * MS) == NULL)
		atomic_store(&hl.blocked_after, 1);
}

static void on_exit_ok(void (*fn)(void *), int id)
{
	if (act_on_exit(fn, (void *)(intptr_t)id) != 0)
		atomic_fetch_add(&hl.reg_bad, 1);
}

enum path {
	EP_RETURN,
	EP_EXIT,
	EP_KILL_RECV,
	EP_KILL_SLEEP,
	EP_KILL_YIELD,
	EP_KILL_KILL,
	EP_LINKED,
	EP_MAILBOX,
	EP_BLOCKING_HANDLER,
	EP_IO, /* only with a ring: its own case */
	EP_N
};

static const char *const path_names[EP_N] = {
	"return", "act_exit", "kill in act_receive", "kill in act_sleep",
	"kill in act_yield", "KILL in act_receive", "a linked process's exit",
	"mailbox limit", "kill, blocking handler", "kill in act_io_read",
};

static const intptr_t path_reason[EP_N] = {
	ACT_EXIT_NORMAL, 61, 63, 63, 63, ACT_EXIT_KILLED, 62,
	ACT_EXIT_MAILBOX, 64, 63,
};

struct victim_arg {
	enum path path;
	act_pid partner;
	int fd;
};

static void victim(void *arg)
{
	const struct victim_arg *va = arg;
	int64_t end;
	char buf[8];

	if (va->path == EP_BLOCKING_HANDLER) {
		on_exit_ok(h_rec, 1);
		on_exit_ok(h_block, 2);
		on_exit_ok(h_rec, 3);
	} else {
		on_exit_ok(h_rec, 1);
		on_exit_ok(h_send, 2);
		on_exit_ok(h_spawn, 3);
		on_exit_ok(h_rec, 4);
	}
	if (va->path == EP_LINKED && act_link(va->partner) != 0)
		atomic_fetch_add(&hl.reg_bad, 100);
	ck_assert_int_eq(act_send(hl.boss, T_READY, NULL, 0), 0);
	switch (va->path) {
	case EP_RETURN:
		take(T_GO, hl.boss, false, 0, WAIT);
		return;
	case EP_EXIT:
		act_exit(61);
	case EP_KILL_RECV:
	case EP_KILL_KILL:
	case EP_LINKED:
	case EP_BLOCKING_HANDLER:
		act_receive_match(match_never, NULL, WAIT);
		break;
	case EP_KILL_SLEEP:
	case EP_MAILBOX:
		act_sleep(WAIT);
		break;
	case EP_KILL_YIELD:
		end = act__clock_now() + WAIT;
		while (act__clock_now() < end)
			act_yield();
		break;
	case EP_IO:
		act_io_read(va->fd, buf, sizeof(buf), -1);
		break;
	default:
		break;
	}
	atomic_store(&hl.after, 1);
}

static struct exit_res {
	act_pid v;
	uint64_t ref;
	bool ready;
	int send_rc[6];
	int kill_rc;
	struct seen first, down; /* the victim's messages, in order */
	bool spawned_msg;
	int n_at_down, seq_at_down[H_MAX], calls_at_down[H_MAX];
	int n_final, calls_final[H_MAX];
	int reg_bad, after, blocked_after, spawn_ok;
	int unread_after; /* the pipe: bytes there after the kill + write */
	bool no_inflight;
} er;

/* T_SPAWNED is sent by the handler's child, from that child's pid: take
 * it from anyone. */
static bool spawned_from_any(void)
{
	struct sig_want w = { .tag = T_SPAWNED, .any_from = true };

	return take_w(&w, WAIT).n == 1;
}

static void exit_path_main(void *arg)
{
	enum path path = (enum path)(intptr_t)arg;
	struct act_spawn_opts o;
	struct victim_arg va;
	act_pid partner = ACT_PID_NONE;
	int p[2] = { -1, -1 }, i;

	hl_reset();
	memset(&va, 0, sizeof(va));
	memset(&o, 0, sizeof(o));
	va.path = path;
	if (path == EP_LINKED)
		va.partner = partner = new_puppet();
	if (path == EP_IO) {
		mkpipe(p);
		va.fd = p[0];
	}
	if (path == EP_MAILBOX)
		o.mailbox_limit = 5;
	/* monitored before it runs: the act_exit path ends at once */
	o.flags = ACT_SPAWN_MONITOR;
	o.monitor_ref = &er.ref;
	er.v = act_spawn_opt(victim, &va, &o);
	ck_assert(er.v.id);
	er.ready = take(T_READY, er.v, false, 0, WAIT).n == 1;
	switch (path) {
	case EP_RETURN:
		act_send(er.v, T_GO, NULL, 0);
		break;
	case EP_KILL_RECV:
	case EP_KILL_SLEEP:
	case EP_BLOCKING_HANDLER:
		ck_assert(wait_receiving(er.v));
		er.kill_rc = act_kill(er.v, path_reason[path]);
		break;
	case EP_KILL_KILL:
		ck_assert(wait_receiving(er.v));
		er.kill_rc = act_kill(er.v, ACT_EXIT_KILL);
		break;
	case EP_KILL_YIELD:
		er.kill_rc = act_kill(er.v, 63);
		break;
	case EP_IO:
		ck_assert(wait_iowait(er.v));
		er.kill_rc = act_kill(er.v, 63);
		break;
	case EP_LINKED:
		ck_assert(wait_receiving(er.v));
		cast(partner, OP_EXIT, ACT_PID_NONE, 62);
		break;
	case EP_MAILBOX:
		ck_assert(wait_receiving(er.v));
		for (i = 0; i < 6; i++)
			er.send_rc[i] = act_send(er.v, T_DATA, &i, sizeof(i));
		break;
	default:
		break;
	}
	if (path != EP_BLOCKING_HANDLER)
		er.first = take_from(er.v, WAIT);
	er.down = take_from(er.v, WAIT);
	er.n_at_down = atomic_load(&hl.n);
	for (i = 0; i < H_MAX; i++) {
		er.seq_at_down[i] = atomic_load(&hl.seq[i]);
		er.calls_at_down[i] = atomic_load(&hl.calls[i]);
	}
	if (path != EP_BLOCKING_HANDLER)
		er.spawned_msg = spawned_from_any();
	ck_assert(reaped(er.v));
	act_sleep(QUIET);
	er.n_final = atomic_load(&hl.n);
	for (i = 0; i < H_MAX; i++)
		er.calls_final[i] = atomic_load(&hl.calls[i]);
	er.reg_bad = atomic_load(&hl.reg_bad);
	er.after = atomic_load(&hl.after);
	er.blocked_after = atomic_load(&hl.blocked_after);
	er.spawn_ok = atomic_load(&hl.spawn_ok);
	if (path == EP_IO) {
		er.no_inflight = wait_no_inflight();
		ck_assert_int_eq(write(p[1], "x", 1), 1);
		er.unread_after = unread(p[0]);
		close_pair(p);
	}
}

static void check_exit_path(enum path path)
{
	const char *n = path_names[path];
	int i;

	ck_assert_msg(er.ready, "%s: the victim never got ready", n);
	ck_assert_msg(er.reg_bad == 0, "%s: act_on_exit/act_link failed (%d)",
		      n, er.reg_bad);
	if (path != EP_RETURN && path != EP_EXIT && path != EP_LINKED &&
	    path != EP_MAILBOX)
		ck_assert_msg(er.kill_rc == 0, "%s: act_kill %d", n,
			      er.kill_rc);
	if (path == EP_MAILBOX) {
		for (i = 0; i < 5; i++)
			ck_assert_int_eq(er.send_rc[i], 0);
		ck_assert_int_eq(er.send_rc[5], -ENOBUFS);
	}
	ASSERT_DOWN(er.down, er.v, path_reason[path], er.ref, n);
	if (path == EP_BLOCKING_HANDLER) {
		/* 3 runs, 2 waits its 20 ms out, 1 runs */
		ck_assert_msg(er.n_at_down == 3, "%s: %d handler runs", n,
			      er.n_at_down);
		ck_assert_int_eq(er.seq_at_down[0], 3);
		ck_assert_int_eq(er.seq_at_down[1], 2);
		ck_assert_int_eq(er.seq_at_down[2], 1);
		ck_assert_msg(er.blocked_after,
			      "%s: a wait in a killed process's handler did "
			      "not run to its timeout", n);
	} else {
		/* the handler's message came before the DOWN */
		ck_assert_msg(er.first.n == 1 && er.first.tag == T_HMSG,
			      "%s: first message from the victim: n %d tag "
			      "%#x, want the handler's", n, er.first.n,
			      er.first.tag);
		ck_assert_msg(er.n_at_down == 4,
			      "%s: %d handler runs when the DOWN came", n,
			      er.n_at_down);
		/* newest first */
		ck_assert_int_eq(er.seq_at_down[0], 4);
		ck_assert_int_eq(er.seq_at_down[1], 3);
		ck_assert_int_eq(er.seq_at_down[2], 2);
		ck_assert_int_eq(er.seq_at_down[3], 1);
		ck_assert_msg(er.spawn_ok, "%s: act_spawn in a handler", n);
		ck_assert_msg(er.spawned_msg,
			      "%s: the handler's child never sent", n);
	}
	/* once each, and no more later */
	for (i = 1; i <= (path == EP_BLOCKING_HANDLER ? 3 : 4); i++) {
		ck_assert_msg(er.calls_at_down[i] == 1, "%s: handler %d ran %d "
			      "times", n, i, er.calls_at_down[i]);
		ck_assert_int_eq(er.calls_final[i], 1);
	}
	ck_assert_int_eq(er.n_final, er.n_at_down);
	if (path != EP_RETURN && path != EP_EXIT)
		ck_assert_msg(!er.after, "%s: the victim ran past its wait",
			      n);
}

START_TEST(exit_handlers)
{
	enum path path = (enum path)(_i / 2);
	struct act_config cfg = with_workers(W12(_i % 2));

	memset(&er, 0, sizeof(er));
	ck_assert_int_eq(run_main(&cfg, exit_path_main,
				  (void *)(intptr_t)path), 0);
	check_exit_path(path);
}
END_TEST

START_TEST(exit_handlers_io)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&er, 0, sizeof(er));
	ck_assert_int_eq(run_main(&cfg, exit_path_main,
				  (void *)(intptr_t)EP_IO), 0);
	check_exit_path(EP_IO);
	ck_assert(er.no_inflight);
	ck_assert_msg(er.unread_after == 1,
		      "the killed read took data (%d bytes left of 1)",
		      er.unread_after);
}
END_TEST

/* Processes alive when the runtime stops run no handlers. */
static void stop_victim(void *arg)
{
	(void)arg;
	on_exit_ok(h_rec, 1);
	act_send(hl.boss, T_READY, NULL, 0);
	act_receive_match(match_never, NULL, ACT_FOREVER);
}

static struct {
	bool ready;
	int reg_bad;
} stop_res;

static void stop_main(void *arg)
{
	act_pid v;

	(void)arg;
	hl_reset();
	v = spawn_ok(stop_victim, NULL);
	stop_res.ready = take(T_READY, v, false, 0, WAIT).n == 1;
	ck_assert(wait_receiving(v));
	stop_res.reg_bad = atomic_load(&hl.reg_bad);
}

START_TEST(no_handlers_at_stop)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&stop_res, 0, sizeof(stop_res));
	ck_assert_int_eq(run_main(&cfg, stop_main, NULL), 0);
	ck_assert(stop_res.ready);
	ck_assert_int_eq(stop_res.reg_bad, 0);
	ck_assert_int_eq(atomic_load(&hl.calls[1]), 0);
	ck_assert_int_eq(atomic_load(&hl.n), 0);
}
END_TEST

/* ======================================================================
 * 7. Names
 * ====================================================================== */

static char long_name[ACT_NAME_MAX + 2], max_name[ACT_NAME_MAX + 1];

static struct names_res {
	act_pid p, q, dead, p2, q2;
	int r_ok, w_ok_is_p, r_taken, r_busy, r_dead, r_null, r_empty, r_long,
		r_max;
	int r_same_again, r_taken_and_busy, un_null, un_empty, un_long;
	bool w_empty_none, w_null_none, w_long_none;
	bool w_max_is_q, w_unknown_none;
	int un_max, un_unknown, un_ok, un_again;
	bool w_after_un_none;
	int r_p_again, r_a_by_q;
	bool w_a_is_q;
	int r_copy;
	bool w_copy_is_p2, w_zzz_none;
	/* freed at death */
	act_pid s, s2, s3;
	uint64_t ms, ms2, ms3;
	int r_s, r_s2, r_s3;
	struct seen ds, ds2, ds3;
	bool w_s_none, w_s2_is_s2, w_s2_none, w_s3_none, w_before_is_s;
	act_pid s4;
	int r_s4;
	bool w_s4_is_s4;
	/* a foreign thread */
	act_pid f;
	int t_r, t_un, t_un2;
	bool t_w_is_p2, t_w_after_none;
	bool w_fb_is_f;
} nr;

struct name_thread {
	act_pid p2, f;
	int r, un, un2;
	bool w_is_p2, w_after_none;
};

static void *name_thread(void *arg)
{
	struct name_thread *t = arg;

	t->w_is_p2 = act_pid_eq(act_whereis("copied"), t->p2);
	t->r = act_register("fb", t->f);
	t->un = act_unregister("copied");
	t->w_after_none = act_pid_eq(act_whereis("copied"), ACT_PID_NONE);
	t->un2 = act_unregister("copied");
	return NULL;
}

static void names_main(void *arg)
{
	struct name_thread nt;
	char buf[16];
	pthread_t th;

	(void)arg;
	nr.p = new_puppet();
	nr.q = new_puppet();
	nr.dead = new_puppet();
	cast(nr.dead, OP_RETURN, ACT_PID_NONE, 0);
	ck_assert(reaped(nr.dead));
	nr.r_ok = act_register("alpha", nr.p);
	nr.w_ok_is_p = act_pid_eq(act_whereis("alpha"), nr.p);
	nr.r_taken = act_register("alpha", nr.q);
	nr.r_busy = act_register("beta", nr.p);
	nr.r_same_again = act_register("alpha", nr.p);
	nr.un_null = act_unregister(NULL);
	nr.un_empty = act_unregister("");
	nr.un_long = act_unregister(long_name);
	nr.w_empty_none = act_pid_eq(act_whereis(""), ACT_PID_NONE);
	nr.w_null_none = act_pid_eq(act_whereis(NULL), ACT_PID_NONE);
	nr.w_long_none = act_pid_eq(act_whereis(long_name), ACT_PID_NONE);
	nr.r_dead = act_register("gamma", nr.dead);
	nr.r_null = act_register(NULL, nr.q);
	nr.r_empty = act_register("", nr.q);
	nr.r_long = act_register(long_name, nr.q);
	nr.r_max = act_register(max_name, nr.q);
	nr.w_max_is_q = act_pid_eq(act_whereis(max_name), nr.q);
	/* q holds a name and "alpha" is p's: -EEXIST first */
	nr.r_taken_and_busy = act_register("alpha", nr.q);
	nr.un_max = act_unregister(max_name);
	nr.w_unknown_none = act_pid_eq(act_whereis("nobody"), ACT_PID_NONE);
	nr.un_unknown = act_unregister("nobody");
	nr.un_ok = act_unregister("alpha");
	nr.w_after_un_none = act_pid_eq(act_whereis("alpha"), ACT_PID_NONE);
	nr.un_again = act_unregister("alpha");
	nr.r_p_again = act_register("beta", nr.p); /* p has no name now */
	nr.r_a_by_q = act_register("alpha", nr.q);
	nr.w_a_is_q = act_pid_eq(act_whereis("alpha"), nr.q);
	/* the name is copied */
	nr.p2 = new_puppet();
	strcpy(buf, "copied");
	nr.r_copy = act_register(buf, nr.p2);
	strcpy(buf, "zzzzzz");
	nr.w_copy_is_p2 = act_pid_eq(act_whereis("copied"), nr.p2);
	nr.w_zzz_none = act_pid_eq(act_whereis("zzzzzz"), ACT_PID_NONE);
	/* freed when its process exits; taken again at once */
	nr.s = new_puppet();
	nr.ms = act_monitor(nr.s);
	nr.r_s = act_register("svc", nr.s);
	nr.w_before_is_s = act_pid_eq(act_whereis("svc"), nr.s);
	cast(nr.s, OP_EXIT, ACT_PID_NONE, 71);
	nr.ds = take_down(nr.s, nr.ms, WAIT);
	nr.w_s_none = act_pid_eq(act_whereis("svc"), ACT_PID_NONE);
	nr.s2 = new_puppet();
	nr.ms2 = act_monitor(nr.s2);
	nr.r_s2 = act_register("svc", nr.s2);
	nr.w_s2_is_s2 = act_pid_eq(act_whereis("svc"), nr.s2);
	ck_assert_int_eq(act_kill(nr.s2, ACT_EXIT_KILL), 0);
	nr.ds2 = take_down(nr.s2, nr.ms2, WAIT);
	nr.w_s2_none = act_pid_eq(act_whereis("svc"), ACT_PID_NONE);
	nr.s3 = new_puppet();
	nr.ms3 = act_monitor(nr.s3);
	nr.r_s3 = act_register("svc", nr.s3);
	cast(nr.s3, OP_RETURN, ACT_PID_NONE, 0);
	nr.ds3 = take_down(nr.s3, nr.ms3, WAIT);
	nr.w_s3_none = act_pid_eq(act_whereis("svc"), ACT_PID_NONE);
	nr.s4 = new_puppet();
	nr.r_s4 = act_register("svc", nr.s4);
	nr.w_s4_is_s4 = act_pid_eq(act_whereis("svc"), nr.s4);
	/* from a thread that is not a process */
	nr.f = new_puppet();
	memset(&nt, 0, sizeof(nt));
	nt.p2 = nr.p2;
	nt.f = nr.f;
	ck_assert_int_eq(pthread_create(&th, NULL, name_thread, &nt), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	nr.t_r = nt.r;
	nr.t_un = nt.un;
	nr.t_un2 = nt.un2;
	nr.t_w_is_p2 = nt.w_is_p2;
	nr.t_w_after_none = nt.w_after_none;
	nr.w_fb_is_f = act_pid_eq(act_whereis("fb"), nr.f);
}

START_TEST(names)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&nr, 0, sizeof(nr));
	memset(long_name, 'n', ACT_NAME_MAX + 1);
	long_name[ACT_NAME_MAX + 1] = '\0';
	memset(max_name, 'm', ACT_NAME_MAX);
	max_name[ACT_NAME_MAX] = '\0';
	ck_assert_uint_eq(strlen(long_name), ACT_NAME_MAX + 1);
	ck_assert_int_eq(run_main(&cfg, names_main, NULL), 0);
	ck_assert_int_eq(nr.r_ok, 0);
	ck_assert(nr.w_ok_is_p);
	ck_assert_int_eq(nr.r_taken, -EEXIST);
	ck_assert_int_eq(nr.r_busy, -EBUSY);
	/* -EEXIST is checked before -EBUSY */
	ck_assert_int_eq(nr.r_same_again, -EEXIST);
	ck_assert_int_eq(nr.r_taken_and_busy, -EEXIST);
	ck_assert_int_eq(nr.un_null, -EINVAL);
	ck_assert_int_eq(nr.un_empty, -EINVAL);
	ck_assert_int_eq(nr.un_long, -EINVAL);
	ck_assert(nr.w_empty_none);
	ck_assert(nr.w_null_none);
	ck_assert(nr.w_long_none);
	ck_assert_int_eq(nr.r_dead, -ESRCH);
	ck_assert_int_eq(nr.r_null, -EINVAL);
	ck_assert_int_eq(nr.r_empty, -EINVAL);
	ck_assert_int_eq(nr.r_long, -EINVAL);
	ck_assert_int_eq(nr.r_max, 0);
	ck_assert(nr.w_max_is_q);
	ck_assert_int_eq(nr.un_max, 0);
	ck_assert(nr.w_unknown_none);
	ck_assert_int_eq(nr.un_unknown, -ENOENT);
	ck_assert_int_eq(nr.un_ok, 0);
	ck_assert(nr.w_after_un_none);
	ck_assert_int_eq(nr.un_again, -ENOENT);
	ck_assert_int_eq(nr.r_p_again, 0);
	ck_assert_int_eq(nr.r_a_by_q, 0);
	ck_assert(nr.w_a_is_q);
	ck_assert_int_eq(nr.r_copy, 0);
	ck_assert_msg(nr.w_copy_is_p2, "the name was not copied");
	ck_assert(nr.w_zzz_none);
	/* freed at death */
	ck_assert_int_eq(nr.r_s, 0);
	ck_assert(nr.w_before_is_s);
	ASSERT_DOWN(nr.ds, nr.s, 71, nr.ms, "named process exits");
	ck_assert_msg(nr.w_s_none, "name still there after the DOWN");
	ck_assert_msg(nr.r_s2 == 0, "the name of a dead process could not be "
				    "taken again: %d", nr.r_s2);
	ck_assert(nr.w_s2_is_s2);
	ASSERT_DOWN(nr.ds2, nr.s2, ACT_EXIT_KILLED, nr.ms2, "named, killed");
	ck_assert(nr.w_s2_none);
	ck_assert_int_eq(nr.r_s3, 0);
	ASSERT_DOWN(nr.ds3, nr.s3, ACT_EXIT_NORMAL, nr.ms3, "named, returns");
	ck_assert(nr.w_s3_none);
	ck_assert_int_eq(nr.r_s4, 0);
	ck_assert(nr.w_s4_is_s4);
	/* any thread */
	ck_assert(nr.t_w_is_p2);
	ck_assert_int_eq(nr.t_r, 0);
	ck_assert_int_eq(nr.t_un, 0);
	ck_assert(nr.t_w_after_none);
	ck_assert_int_eq(nr.t_un2, -ENOENT);
	ck_assert(nr.w_fb_is_f);
}
END_TEST

/* ======================================================================
 * 8. The mailbox limit
 * ====================================================================== */

static bool tag_99(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == 99;
}

/* Never receives: waits in a selective receive that matches nothing it
 * is sent (the messages pile up in the save queue). */
static void selective_sleeper(void *arg)
{
	(void)arg;
	act_receive_match(tag_99, NULL, WAIT);
}

static struct mbox_res {
	act_pid v, t, v2;
	uint64_t mv, mv2;
	int64_t link_rc;
	int ok, rc101, ok2, rc11, after_rc;
	struct seen down, exit, down2;
} mbr;

static void mbox_kill_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 100;
	mbr.v = act_spawn_opt(sleeper, NULL, &o);
	ck_assert(mbr.v.id);
	mbr.t = new_trapper(true);
	mbr.link_rc = callv(mbr.t, OP_LINK, mbr.v, 0);
	mbr.mv = act_monitor(mbr.v);
	ck_assert(wait_receiving(mbr.v));
	for (i = 0; i < 100; i++)
		mbr.ok += act_send(mbr.v, T_DATA, &i, sizeof(i)) == 0;
	mbr.rc101 = act_send(mbr.v, T_DATA, &i, sizeof(i));
	mbr.down = take_down(mbr.v, mbr.mv, WAIT);
	mbr.exit = p_take_exit(mbr.t, mbr.v, WAIT);
	ck_assert(reaped(mbr.v));
	mbr.after_rc = act_send(mbr.v, T_DATA, &i, sizeof(i));
	/* the save queue counts too */
	o.mailbox_limit = 10;
	mbr.v2 = act_spawn_opt(selective_sleeper, NULL, &o);
	ck_assert(mbr.v2.id);
	mbr.mv2 = act_monitor(mbr.v2);
	ck_assert(wait_receiving(mbr.v2));
	for (i = 0; i < 10; i++) {
		mbr.ok2 += act_send(mbr.v2, T_DATA, &i, sizeof(i)) == 0;
		if (i == 4) /* it scans what came so far into its save queue */
			act_sleep(QUIET);
	}
	mbr.rc11 = act_send(mbr.v2, T_DATA, &i, sizeof(i));
	mbr.down2 = take_down(mbr.v2, mbr.mv2, WAIT);
}

START_TEST(mailbox_limit_kills)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&mbr, 0, sizeof(mbr));
	ck_assert_int_eq(run_main(&cfg, mbox_kill_main, NULL), 0);
	ck_assert_int_eq(mbr.link_rc, 0);
	ck_assert_int_eq(mbr.ok, 100);
	ck_assert_int_eq(mbr.rc101, -ENOBUFS);
	ASSERT_DOWN(mbr.down, mbr.v, ACT_EXIT_MAILBOX, mbr.mv, "limit 100");
	ASSERT_EXIT(mbr.exit, mbr.v, ACT_EXIT_MAILBOX, "linked, trapping");
	ck_assert_int_eq(mbr.after_rc, -ESRCH);
	ck_assert_int_eq(mbr.ok2, 10);
	ck_assert_int_eq(mbr.rc11, -ENOBUFS);
	ASSERT_DOWN(mbr.down2, mbr.v2, ACT_EXIT_MAILBOX, mbr.mv2,
		    "limit 10, messages in the save queue");
}
END_TEST

/* EXIT and DOWN messages do not count, and are never refused. */
#define SIG_KIDS 5

static struct sigcount_res {
	act_pid v;
	uint64_t mv;
	int v_saw, ok, rc3;
	struct seen down;
} scr;

static bool count_sigs(const struct act_msg *m, void *ctx)
{
	*(int *)ctx += m->tag == ACT_TAG_EXIT || m->tag == ACT_TAG_DOWN;
	return false;
}

static void sig_victim(void *arg)
{
	struct act_spawn_opts o;
	act_pid boss = *(act_pid *)arg;
	int i, n = 0, round;

	act_trap_exit(true);
	memset(&o, 0, sizeof(o));
	o.flags = ACT_SPAWN_LINK | ACT_SPAWN_MONITOR;
	for (i = 0; i < SIG_KIDS; i++)
		ck_assert(act_spawn_opt(exit_at_once, (void *)(intptr_t)5, &o)
				  .id);
	/* 2 * SIG_KIDS signals against a limit of 2: none taken out */
	for (round = 0; round < 20000; round++) {
		n = 0;
		ck_assert_ptr_null(act_receive_match(count_sigs, &n, 0));
		if (n >= 2 * SIG_KIDS)
			break;
		act_sleep(MS);
	}
	act_send(boss, T_READY, &n, sizeof(n));
	act_sleep(WAIT);
}

static void sigcount_main(void *arg)
{
	struct act_spawn_opts o;
	act_pid self = act_self();
	struct act_msg *m;
	struct sig_want w = { .tag = T_READY };
	int i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 2;
	scr.v = act_spawn_opt(sig_victim, &self, &o);
	ck_assert(scr.v.id);
	scr.mv = act_monitor(scr.v);
	w.from = scr.v;
	m = act_receive_match(sig_is, &w, WAIT);
	if (m) {
		memcpy(&scr.v_saw, m->data, sizeof(scr.v_saw));
		act_msg_free(m);
	}
	ck_assert(wait_receiving(scr.v));
	for (i = 0; i < 2; i++)
		scr.ok += act_send(scr.v, T_DATA, &i, sizeof(i)) == 0;
	scr.rc3 = act_send(scr.v, T_DATA, &i, sizeof(i));
	scr.down = take_down(scr.v, scr.mv, WAIT);
}

START_TEST(mailbox_signals_not_counted)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&scr, 0, sizeof(scr));
	ck_assert_int_eq(run_main(&cfg, sigcount_main, NULL), 0);
	ck_assert_msg(scr.v_saw == 2 * SIG_KIDS,
		      "the victim (limit 2) saw %d of %d EXIT/DOWN", scr.v_saw,
		      2 * SIG_KIDS);
	ck_assert_int_eq(scr.ok, 2);
	ck_assert_int_eq(scr.rc3, -ENOBUFS);
	ASSERT_DOWN(scr.down, scr.v, ACT_EXIT_MAILBOX, scr.mv, "limit 2");
}
END_TEST

/* A receiver that keeps up never hits its limit. */
#define LOCKSTEP_N 10000

static struct lockstep_res {
	act_pid v;
	uint64_t mv;
	int ok1, acks1, ok2, acks2;
	struct seen down;
} lsr;

static void echo(void *arg)
{
	struct act_msg *m;
	uint32_t tag;
	act_pid from;

	(void)arg;
	for (;;) {
		m = act_receive(WAIT);
		if (!m)
			return;
		tag = m->tag;
		from = m->from;
		act_msg_free(m);
		if (tag == T_STOP)
			return;
		act_send(from, T_ACK, NULL, 0);
	}
}

static void lockstep_main(void *arg)
{
	struct act_spawn_opts o;
	int i, sent = 0, acked = 0;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 100;
	lsr.v = act_spawn_opt(echo, NULL, &o);
	ck_assert(lsr.v.id);
	lsr.mv = act_monitor(lsr.v);
	for (i = 0; i < LOCKSTEP_N; i++) {
		if (act_send(lsr.v, T_DATA, &i, sizeof(i)) != 0)
			break;
		lsr.ok1++;
		if (!take(T_ACK, lsr.v, false, 0, WAIT).n)
			break;
		lsr.acks1++;
	}
	/* a window of 100 unacknowledged: never more than 100 unread */
	while (acked < LOCKSTEP_N) {
		while (sent < LOCKSTEP_N && sent - acked < 100) {
			if (act_send(lsr.v, T_DATA, &sent, sizeof(sent)) != 0)
				goto out;
			sent++;
			lsr.ok2++;
		}
		if (!take(T_ACK, lsr.v, false, 0, WAIT).n)
			break;
		acked++;
		lsr.acks2++;
	}
out:
	act_send(lsr.v, T_STOP, NULL, 0);
	lsr.down = take_down(lsr.v, lsr.mv, WAIT);
}

START_TEST(mailbox_keeping_up)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&lsr, 0, sizeof(lsr));
	ck_assert_int_eq(run_main(&cfg, lockstep_main, NULL), 0);
	ck_assert_int_eq(lsr.ok1, LOCKSTEP_N);
	ck_assert_int_eq(lsr.acks1, LOCKSTEP_N);
	ck_assert_int_eq(lsr.ok2, LOCKSTEP_N);
	ck_assert_int_eq(lsr.acks2, LOCKSTEP_N);
	ASSERT_DOWN(lsr.down, lsr.v, ACT_EXIT_NORMAL, lsr.mv, "echo");
}
END_TEST

/* The runtime's default (act_config.mailbox_limit, ACTORS_MAILBOX_LIMIT)
 * and spawn options over it. probe(): sends to a sleeper until a send
 * fails (up to max): how many went through, the failure, the DOWN. */
struct probe {
	int ok, rc;
	struct seen down;
	act_pid v;
	uint64_t ref;
};

static struct probe probe(uint32_t spawn_limit, int max)
{
	struct act_spawn_opts o;
	struct probe pr;
	int i;

	memset(&pr, 0, sizeof(pr));
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = spawn_limit;
	pr.v = act_spawn_opt(sleeper, NULL, &o);
	ck_assert(pr.v.id);
	pr.ref = act_monitor(pr.v);
	ck_assert(wait_receiving(pr.v));
	for (i = 0; i < max; i++) {
		pr.rc = act_send(pr.v, T_DATA, &i, sizeof(i));
		if (pr.rc)
			break;
		pr.ok++;
	}
	if (!pr.rc)
		act_kill(pr.v, ACT_EXIT_KILL);
	pr.down = take_down(pr.v, pr.ref, WAIT);
	return pr;
}

static struct default_res {
	struct probe dflt, unlimited, own;
	bool u_alive;
	act_pid u;
	uint64_t mu;
	int u_ok;
	struct seen u_down;
} dr;

static void default_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	dr.dflt = probe(0, 1000);
	dr.unlimited = probe(ACT_MAILBOX_UNLIMITED, 1000);
	dr.own = probe(10, 1000);
	/* unlimited, and alive after 1000 unread: it answers, then ends */
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = ACT_MAILBOX_UNLIMITED;
	dr.u = act_spawn_opt(puppet, NULL, &o);
	ck_assert(dr.u.id);
	dr.mu = act_monitor(dr.u);
	for (i = 0; i < 1000; i++)
		dr.u_ok += act_send(dr.u, T_DATA, &i, sizeof(i)) == 0;
	dr.u_alive = call(dr.u, OP_PING, ACT_PID_NONE, 0).ok;
	cast(dr.u, OP_RETURN, ACT_PID_NONE, 0);
	dr.u_down = take_down(dr.u, dr.mu, WAIT);
}

START_TEST(mailbox_default_and_override)
{
	struct act_config cfg = with_workers(W12(_i));

	cfg.mailbox_limit = 50;
	memset(&dr, 0, sizeof(dr));
	ck_assert_int_eq(run_main(&cfg, default_main, NULL), 0);
	ck_assert_int_eq(dr.dflt.ok, 50);
	ck_assert_int_eq(dr.dflt.rc, -ENOBUFS);
	ASSERT_DOWN(dr.dflt.down, dr.dflt.v, ACT_EXIT_MAILBOX, dr.dflt.ref,
		    "the runtime's limit");
	ck_assert_int_eq(dr.unlimited.ok, 1000);
	ck_assert_int_eq(dr.unlimited.rc, 0);
	ASSERT_DOWN(dr.unlimited.down, dr.unlimited.v, ACT_EXIT_KILLED,
		    dr.unlimited.ref, "ACT_MAILBOX_UNLIMITED");
	ck_assert_int_eq(dr.own.ok, 10);
	ck_assert_int_eq(dr.own.rc, -ENOBUFS);
	ASSERT_DOWN(dr.own.down, dr.own.v, ACT_EXIT_MAILBOX, dr.own.ref,
		    "its own limit");
	ck_assert_int_eq(dr.u_ok, 1000);
	ck_assert(dr.u_alive);
	ASSERT_DOWN(dr.u_down, dr.u, ACT_EXIT_NORMAL, dr.mu, "unlimited");
}
END_TEST

static struct probe env_pr;

static void env_probe_main(void *arg)
{
	(void)arg;
	env_pr = probe(0, 600);
}

START_TEST(mailbox_env)
{
	static const char *const bad[] = { "",    "0",   "-1", "2147483648",
					   "abc", "10k", " 5" };
	struct act_config cfg = with_workers(2);

	/* ACTORS_MAILBOX_LIMIT sets the default */
	setenv("ACTORS_MAILBOX_LIMIT", "20", 1);
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 20);
	ck_assert_int_eq(env_pr.rc, -ENOBUFS);
	ck_assert_int_eq(env_pr.down.info.reason, ACT_EXIT_MAILBOX);
	/* a set field wins */
	cfg.mailbox_limit = 30;
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 30);
	ck_assert_int_eq(env_pr.rc, -ENOBUFS);
	/* ACT_MAILBOX_UNLIMITED in the field wins too */
	cfg.mailbox_limit = ACT_MAILBOX_UNLIMITED;
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 600);
	ck_assert_int_eq(env_pr.rc, 0);
	/* off */
	cfg.mailbox_limit = 0;
	setenv("ACTORS_MAILBOX_LIMIT", "off", 1);
	memset(&env_pr, 0, sizeof(env_pr));
	ck_assert_int_eq(run_main(&cfg, env_probe_main, NULL), 0);
	ck_assert_int_eq(env_pr.ok, 600);
	ck_assert_int_eq(env_pr.rc, 0);
	unsetenv("ACTORS_MAILBOX_LIMIT");
	/* bad values, in the environment and in the field */
	ck_assert_uint_eq(assert_env_refused("ACTORS_MAILBOX_LIMIT", bad,
					     N_BAD), N_BAD);
	cfg.mailbox_limit = 0x80000000u;
	ck_assert_int_eq(act_main(&cfg, tu_env_nop, NULL), -EINVAL);
	cfg.mailbox_limit = 0x7fffffffu;
	ck_assert_int_eq(run_main(&cfg, tu_env_nop, NULL), 0);
}
END_TEST

/* ---- handlers that exit, add handlers, link; the main process's ------ */

static act_pid hs_peer;

static void hs_exit(void *arg)
{
	h_note((int)(intptr_t)arg);
	act_exit(99); /* the first reason stands; the others still run */
}

static void hs_late(void *arg)
{
	h_note((int)(intptr_t)arg);
}

static void hs_add(void *arg)
{
	h_note((int)(intptr_t)arg);
	if (act_on_exit(hs_late, (void *)(intptr_t)4) != 0)
		atomic_fetch_add(&hl.reg_bad, 1);
}

static void hs_link(void *arg)
{
	h_note((int)(intptr_t)arg);
	if (act_link(hs_peer) != 0) /* fires at this very exit */
		atomic_fetch_add(&hl.reg_bad, 10);
}

static void special_victim(void *arg)
{
	(void)arg;
	on_exit_ok(h_rec, 1);
	on_exit_ok(hs_exit, 2);
	on_exit_ok(hs_add, 3);
	on_exit_ok(hs_link, 5);
	act_send(hl.boss, T_READY, NULL, 0);
	take(T_GO, hl.boss, false, 0, WAIT);
	act_exit(61);
}

static struct special_res {
	act_pid v, peer;
	uint64_t ref;
	bool ready;
	int reg_bad, n, seq[H_MAX], calls[H_MAX];
	struct seen down, peer_exit;
	int64_t peer_extra;
} spr;

static void special_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	hl_reset();
	spr.peer = hs_peer = new_trapper(true);
	memset(&o, 0, sizeof(o));
	o.flags = ACT_SPAWN_MONITOR;
	o.monitor_ref = &spr.ref;
	spr.v = act_spawn_opt(special_victim, NULL, &o);
	ck_assert(spr.v.id);
	spr.ready = take(T_READY, spr.v, false, 0, WAIT).n == 1;
	act_send(spr.v, T_GO, NULL, 0);
	spr.down = take_down(spr.v, spr.ref, WAIT);
	spr.peer_exit = p_take_exit(spr.peer, spr.v, WAIT);
	ck_assert(reaped(spr.v));
	spr.peer_extra = callv(spr.peer, OP_COUNT, ACT_PID_NONE, 0);
	spr.reg_bad = atomic_load(&hl.reg_bad);
	spr.n = atomic_load(&hl.n);
	for (i = 0; i < H_MAX; i++) {
		spr.seq[i] = atomic_load(&hl.seq[i]);
		spr.calls[i] = atomic_load(&hl.calls[i]);
	}
}

START_TEST(handler_exit_add_link)
{
	static const int want[] = { 5, 3, 4, 2, 1 };
	struct act_config cfg = with_workers(W12(_i));
	int i;

	memset(&spr, 0, sizeof(spr));
	ck_assert_int_eq(run_main(&cfg, special_main, NULL), 0);
	ck_assert(spr.ready);
	ck_assert_int_eq(spr.reg_bad, 0);
	ck_assert_msg(spr.n == 5, "%d handler runs, want 5", spr.n);
	for (i = 0; i < 5; i++) {
		ck_assert_msg(spr.seq[i] == want[i],
			      "handler run %d was %d, want %d", i, spr.seq[i],
			      want[i]);
		ck_assert_int_eq(spr.calls[want[i]], 1);
	}
	/* act_exit(99) in a handler: the first reason (61) stands */
	ASSERT_DOWN(spr.down, spr.v, 61, spr.ref, "handler exits again");
	/* the link a handler made fired at this exit */
	ASSERT_EXIT(spr.peer_exit, spr.v, 61, "linked by a handler");
	ck_assert_int_eq(spr.peer_extra, 0);
}
END_TEST

/* The main process's handlers run too. */
static void main_with_handler(void *arg)
{
	(void)arg;
	hl_reset();
	on_exit_ok(h_rec, 1);
	on_exit_ok(h_rec, 2);
}

START_TEST(main_handlers_run)
{
	struct act_config cfg = with_workers(W12(_i));

	ck_assert_int_eq(run_main(&cfg, main_with_handler, NULL), 0);
	ck_assert_int_eq(atomic_load(&hl.reg_bad), 0);
	ck_assert_int_eq(atomic_load(&hl.n), 2);
	ck_assert_int_eq(atomic_load(&hl.seq[0]), 2);
	ck_assert_int_eq(atomic_load(&hl.seq[1]), 1);
}
END_TEST

/* The order at exit: handlers (their messages), the name freed, links
 * (EXIT), then monitors (DOWN): one receiver that is both linked and
 * monitoring sees the handler's message, then the EXIT (and the name is
 * gone by then), then the DOWN. */
static act_pid eo_m;

static void eo_send(void *arg)
{
	int id = (int)(intptr_t)arg;

	h_note(id);
	act_send(eo_m, T_HMSG, &id, sizeof(id));
}

static void ordered_victim(void *arg)
{
	struct act_msg *m;

	(void)arg;
	on_exit_ok(eo_send, 1);
	act_send(hl.boss, T_READY, NULL, 0);
	m = act_receive_match(is_go_msg, NULL, WAIT);
	if (m)
		act_msg_free(m);
	act_exit(65);
}

static struct exit_order_res {
	act_pid v, m;
	uint64_t ref;
	int reg, link_rc;
	bool ready;
	struct reply r1, r2, r3;
} eor;

static void exit_order_main(void *arg)
{
	struct cmd take_any = { .op = OP_TAKE_ANY, .tmo = WAIT };
	struct cmd mon = { .op = OP_MONITOR };

	(void)arg;
	eor.m = eo_m = new_trapper(true);
	hl_reset();
	eor.v = spawn_ok(ordered_victim, NULL);
	eor.ready = take(T_READY, eor.v, false, 0, WAIT).n == 1;
	eor.reg = act_register("ordered", eor.v);
	eor.link_rc = (int)callv(eor.m, OP_LINK, eor.v, 0);
	mon.pid = eor.v;
	eor.ref = call_c(eor.m, mon).ref;
	act_send(eor.v, T_GO, NULL, 0);
	take_any.pid = eor.v;
	eor.r1 = call_c(eor.m, take_any);
	eor.r2 = call_c(eor.m, take_any);
	eor.r3 = call_c(eor.m, take_any);
}

START_TEST(exit_order)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&eor, 0, sizeof(eor));
	ck_assert_int_eq(run_main(&cfg, exit_order_main, NULL), 0);
	ck_assert(eor.ready);
	ck_assert_int_eq(eor.reg, 0);
	ck_assert_int_eq(eor.link_rc, 0);
	ck_assert_uint_ne(eor.ref, 0);
	ck_assert(eor.r1.ok && eor.r2.ok && eor.r3.ok);
	ck_assert_msg(eor.r1.s.n == 1 && eor.r1.s.tag == T_HMSG,
		      "first: tag %#x, want the handler's message",
		      eor.r1.s.tag);
	ASSERT_EXIT(eor.r2.s, eor.v, 65, "second: the link's EXIT");
	ck_assert_msg(act_pid_eq(eor.r2.pid, ACT_PID_NONE),
		      "the name was still registered when the EXIT came");
	ASSERT_DOWN(eor.r3.s, eor.v, 65, eor.ref, "third: the DOWN");
}
END_TEST

/* ---- outside a process, and without a runtime --------------------------- */

struct outside {
	int link, unlink, demon, on_exit;
	uint64_t mon;
	bool trap1, trap2;
	int reg, unreg;
	bool where_none;
};

static void outside_calls(struct outside *o, act_pid some)
{
	o->link = act_link(some);
	o->unlink = act_unlink(some);
	o->demon = act_demonitor(1);
	o->on_exit = act_on_exit(h_rec, NULL);
	o->mon = act_monitor(some);
	o->trap1 = act_trap_exit(true);
	o->trap2 = act_trap_exit(true);
}

static struct {
	act_pid some;
	struct outside thr;
	uint64_t some_ref;
	struct seen some_down;
	bool some_alive;
} outr;

static void *outside_thread(void *arg)
{
	outside_calls(arg, outr.some);
	return NULL;
}

static void outside_main(void *arg)
{
	pthread_t th;

	(void)arg;
	outr.some = new_puppet();
	outr.some_ref = act_monitor(outr.some);
	ck_assert_int_eq(pthread_create(&th, NULL, outside_thread, &outr.thr),
			 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* nothing of that touched the process */
	outr.some_alive = call(outr.some, OP_PING, ACT_PID_NONE, 0).ok;
	cast(outr.some, OP_EXIT, ACT_PID_NONE, 3);
	outr.some_down = take_down(outr.some, outr.some_ref, WAIT);
}

START_TEST(outside_a_process)
{
	struct act_config cfg = with_workers(2);
	struct outside none;
	act_pid fake = { 0x100000001ull };

	/* no runtime at all */
	memset(&none, 0, sizeof(none));
	outside_calls(&none, fake);
	none.reg = act_register("x", fake);
	none.unreg = act_unregister("x");
	none.where_none = act_pid_eq(act_whereis("x"), ACT_PID_NONE);
	ck_assert_int_eq(none.link, -EPERM);
	ck_assert_int_eq(none.unlink, -EPERM);
	ck_assert_int_eq(none.demon, -EPERM);
	ck_assert_int_eq(none.on_exit, -EPERM);
	ck_assert_uint_eq(none.mon, 0);
	ck_assert(!none.trap1);
	ck_assert(!none.trap2);
	ck_assert_int_eq(none.reg, -ESRCH);
	ck_assert_int_eq(none.unreg, -ENOENT);
	ck_assert(none.where_none);
	/* a thread that is not a process, while a runtime runs */
	memset(&outr, 0, sizeof(outr));
	ck_assert_int_eq(run_main(&cfg, outside_main, NULL), 0);
	ck_assert_int_eq(outr.thr.link, -EPERM);
	ck_assert_int_eq(outr.thr.unlink, -EPERM);
	ck_assert_int_eq(outr.thr.demon, -EPERM);
	ck_assert_int_eq(outr.thr.on_exit, -EPERM);
	ck_assert_uint_eq(outr.thr.mon, 0);
	ck_assert(!outr.thr.trap1);
	ck_assert(!outr.thr.trap2);
	ck_assert(outr.some_alive);
	ASSERT_DOWN(outr.some_down, outr.some, 3, outr.some_ref, "some");
}
END_TEST

/* ---- act_spawn_opts checked ---------------------------------------------- */

static struct {
	bool bad_flag_none, reserved_none, big_limit_none;
	uint64_t ref_after_fail, ref_without_flag;
	bool ok_spawned;
} sor;

static void spawn_opts_main(void *arg)
{
	struct act_spawn_opts o;
	uint64_t ref;
	act_pid c;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.flags = 1u << 7;
	sor.bad_flag_none = !act_spawn_opt(exit_at_once, NULL, &o).id;
	memset(&o, 0, sizeof(o));
	o.reserved[0] = 1;
	o.flags = ACT_SPAWN_MONITOR;
	ref = 0xabcdef;
	o.monitor_ref = &ref;
	sor.reserved_none = !act_spawn_opt(exit_at_once, NULL, &o).id;
	sor.ref_after_fail = ref;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 0x80000000u;
	sor.big_limit_none = !act_spawn_opt(exit_at_once, NULL, &o).id;
	/* monitor_ref ignored without ACT_SPAWN_MONITOR */
	memset(&o, 0, sizeof(o));
	o.flags = ACT_SPAWN_LINK;
	ref = 0x123456;
	o.monitor_ref = &ref;
	c = act_spawn_opt(exit_at_once, NULL, &o); /* exits NORMAL */
	sor.ok_spawned = c.id != 0;
	sor.ref_without_flag = ref;
	if (c.id)
		ck_assert(reaped(c));
}

START_TEST(spawn_opts_checked)
{
	struct act_config cfg = with_workers(1);

	memset(&sor, 0, sizeof(sor));
	ck_assert_int_eq(run_main(&cfg, spawn_opts_main, NULL), 0);
	ck_assert(sor.bad_flag_none);
	ck_assert(sor.reserved_none);
	ck_assert_uint_eq(sor.ref_after_fail, 0xabcdef);
	ck_assert(sor.big_limit_none);
	ck_assert(sor.ok_spawned);
	ck_assert_uint_eq(sor.ref_without_flag, 0x123456);
}
END_TEST

/* ---- timer messages count against the limit ----------------------------- */

static struct {
	act_pid v;
	uint64_t ref;
	int ok, timer_rc;
	struct seen down;
} tmr;

static void timer_limit_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 3;
	o.flags = ACT_SPAWN_MONITOR;
	o.monitor_ref = &tmr.ref;
	tmr.v = act_spawn_opt(sleeper, NULL, &o);
	ck_assert(tmr.v.id);
	for (i = 0; i < 3; i++)
		tmr.ok += act_send(tmr.v, T_DATA, &i, sizeof(i)) == 0;
	tmr.timer_rc = act_send_after(MS, tmr.v, T_DATA, NULL, 0, NULL);
	tmr.down = take_down(tmr.v, tmr.ref, WAIT);
}

START_TEST(mailbox_timer_counts)
{
	struct act_config cfg = with_workers(W12(_i));

	memset(&tmr, 0, sizeof(tmr));
	ck_assert_int_eq(run_main(&cfg, timer_limit_main, NULL), 0);
	ck_assert_int_eq(tmr.ok, 3);
	ck_assert_int_eq(tmr.timer_rc, 0);
	ASSERT_DOWN(tmr.down, tmr.v, ACT_EXIT_MAILBOX, tmr.ref,
		    "a timer's message past the limit");
}
END_TEST

/* ======================================================================
 * 9. Races across workers
 * ====================================================================== */

#define RACE_N (UNDER_TSAN ? 300 : 2000)

/* Waits for GO (from anyone), then exits with 70. */
static bool is_go(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_GO;
}

static void go_then_exit(void *arg)
{
	struct act_msg *m = act_receive_match(is_go, NULL, WAIT);

	(void)arg;
	if (m)
		act_msg_free(m);
	act_exit(70);
}

static struct race_res {
	int iters, linked, noproc, bad;
	int real_real, real_noproc, noproc_noproc;
	char why[256];
} rr;

static void race_bad(int i, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void race_bad(int i, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	rr.bad++;
	if (rr.why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(rr.why, sizeof(rr.why), "iteration %d: %s", i, what);
}

/* ---- link vs exit, trapping linker ------------------------------------- */

struct link_report {
	int rc;
	struct seen first;
	int extra;
	bool gone;
};

static void race_linker_trap(void *arg)
{
	act_pid t = *(act_pid *)arg;
	struct act_msg *m;
	struct link_report lr_;

	act_trap_exit(true);
	m = act_receive_match(is_go, NULL, WAIT);
	if (m)
		act_msg_free(m);
	memset(&lr_, 0, sizeof(lr_));
	lr_.rc = act_link(t);
	lr_.first = take_exit(t, WAIT);
	lr_.gone = reaped(t);
	lr_.extra = drain_now(ACT_TAG_EXIT, t, false);
	act_send(hl.boss, T_REPORT, &lr_, sizeof(lr_));
}

/* Starts a race's two sides, t first in odd rounds, l first in even. */
static void go_both(int i, act_pid t, act_pid l)
{
	act_send(i % 2 ? t : l, T_GO, NULL, 0);
	act_send(i % 2 ? l : t, T_GO, NULL, 0);
}

/* Takes l's T_REPORT of round i into rep; false (and the round marked
 * bad) when none comes. */
static bool take_report(int i, act_pid l, void *rep, size_t len)
{
	struct sig_want w = { .tag = T_REPORT, .from = l };
	struct act_msg *m = act_receive_match(sig_is, &w, WAIT);

	if (!m) {
		race_bad(i, "no report");
		return false;
	}
	memcpy(rep, m->data, len);
	act_msg_free(m);
	return true;
}

static void race_link_trap_main(void *arg)
{
	struct link_report rep;
	act_pid t, l;
	int i;

	(void)arg;
	hl.boss = act_self();
	for (i = 0; i < RACE_N && !rr.bad; i++) {
		t = spawn_ok(go_then_exit, NULL);
		l = spawn_ok(race_linker_trap, &t);
		go_both(i, t, l);
		if (!take_report(i, l, &rep, sizeof(rep)))
			break;
		rr.iters++;
		if (!rep.gone || rep.extra || rep.first.n != 1 ||
		    !act_pid_eq(rep.first.info.who, t) ||
		    !act_pid_eq(rep.first.from, t) || rep.first.info.ref) {
			race_bad(i, "gone %d, EXITs %d, who ok %d",
				 rep.gone, rep.first.n + rep.extra,
				 act_pid_eq(rep.first.info.who, t));
		} else if (rep.rc == 0 && rep.first.info.reason == 70) {
			rr.linked++;
		} else if (rep.rc == -ESRCH &&
			   rep.first.info.reason == ACT_EXIT_NOPROC) {
			rr.noproc++;
		} else {
			race_bad(i, "act_link %d but EXIT reason %ld",
				 rep.rc, (long)rep.first.info.reason);
		}
		reaped(l);
	}
}

START_TEST(race_link_vs_exit_trapping)
{
	struct act_config cfg = with_workers(W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(run_main(&cfg, race_link_trap_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, RACE_N);
	ck_assert_int_eq(rr.linked + rr.noproc, RACE_N);
	printf("race_link_vs_exit_trapping/%d: linked %d, noproc %d\n", _i,
	       rr.linked, rr.noproc);
}
END_TEST

/* ---- link vs exit, linker does not trap -------------------------------- */

struct nt_link {
	act_pid t;
	_Atomic int rc; /* INT32_MIN: not yet */
};

static void race_linker_notrap(void *arg)
{
	struct nt_link *nl = arg;
	struct act_msg *m = act_receive_match(is_go, NULL, WAIT);

	if (m)
		act_msg_free(m);
	atomic_store(&nl->rc, act_link(nl->t));
	m = act_receive_match(tag_is, (void *)(uintptr_t)T_STOP, WAIT);
	if (m)
		act_msg_free(m);
}

static void race_link_notrap_main(void *arg)
{
	static struct nt_link nl;
	struct seen d;
	act_pid l;
	uint64_t ml;
	int64_t end;
	int i, k, rc;

	(void)arg;
	for (i = 0; i < RACE_N && !rr.bad; i++) {
		atomic_store(&nl.rc, INT32_MIN);
		nl.t = spawn_ok(go_then_exit, NULL);
		l = spawn_ok(race_linker_notrap, &nl);
		ml = act_monitor(l);
		go_both(i, nl.t, l);
		end = act__clock_now() + WAIT;
		for (k = 0;
		     atomic_load(&nl.rc) == INT32_MIN && act__clock_now() < end;
		     k++)
			if (k < 1000)
				act_yield();
			else
				act_sleep(100000);
		rc = atomic_load(&nl.rc);
		if (rc == INT32_MIN) {
			race_bad(i, "the linker never linked");
			break;
		}
		if (!reaped(nl.t)) {
			race_bad(i, "target never reaped");
			break;
		}
		if (rc == -ESRCH)
			act_send(l, T_STOP, NULL, 0);
		d = take_down(l, ml, WAIT);
		rr.iters++;
		if (rc == 0 && d.n && d.info.reason == 70)
			rr.linked++;
		else if (rc == -ESRCH && d.n &&
			 d.info.reason == ACT_EXIT_NORMAL)
			rr.noproc++;
		else
			race_bad(i, "act_link %d, linker's DOWN %d reason %ld",
				 rc, d.n, (long)d.info.reason);
	}
}

START_TEST(race_link_vs_exit)
{
	struct act_config cfg = with_workers(W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(run_main(&cfg, race_link_notrap_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, RACE_N);
	ck_assert_int_eq(rr.linked + rr.noproc, RACE_N);
	printf("race_link_vs_exit/%d: linked %d, noproc %d\n", _i, rr.linked,
	       rr.noproc);
}
END_TEST

/* ---- monitor vs exit: exactly one DOWN per monitor --------------------- */

struct mon_report {
	uint64_t r1, r2;
	struct seen d1, d2;
	int extra;
	bool gone;
};

static void race_watcher(void *arg)
{
	act_pid t = *(act_pid *)arg;
	struct act_msg *m = act_receive_match(is_go, NULL, WAIT);
	struct mon_report rep;

	if (m)
		act_msg_free(m);
	memset(&rep, 0, sizeof(rep));
	rep.r1 = act_monitor(t);
	rep.r2 = act_monitor(t);
	rep.d1 = take_down(t, rep.r1, WAIT);
	rep.d2 = take_down(t, rep.r2, WAIT);
	rep.gone = reaped(t);
	rep.extra = drain_now(ACT_TAG_DOWN, t, false);
	act_send(hl.boss, T_REPORT, &rep, sizeof(rep));
}

static bool down_ok(struct seen s, act_pid t, uint64_t ref)
{
	return s.n == 1 && act_pid_eq(s.from, t) && act_pid_eq(s.info.who, t) &&
	       s.info.ref == ref &&
	       (s.info.reason == 70 || s.info.reason == ACT_EXIT_NOPROC);
}

static void race_monitor_main(void *arg)
{
	struct mon_report rep;
	act_pid t, l;
	bool n1, n2;
	int i;

	(void)arg;
	hl.boss = act_self();
	for (i = 0; i < RACE_N && !rr.bad; i++) {
		t = spawn_ok(go_then_exit, NULL);
		l = spawn_ok(race_watcher, &t);
		go_both(i, t, l);
		if (!take_report(i, l, &rep, sizeof(rep)))
			break;
		rr.iters++;
		if (!rep.r1 || !rep.r2 || rep.r1 == rep.r2 || !rep.gone ||
		    rep.extra || !down_ok(rep.d1, t, rep.r1) ||
		    !down_ok(rep.d2, t, rep.r2)) {
			race_bad(i, "DOWNs %d + %d extra, refs distinct %d",
				 rep.d1.n + rep.d2.n, rep.extra,
				 rep.r1 && rep.r2 && rep.r1 != rep.r2);
			continue;
		}
		n1 = rep.d1.info.reason == ACT_EXIT_NOPROC;
		n2 = rep.d2.info.reason == ACT_EXIT_NOPROC;
		if (n1 && !n2) /* gone for the first, back for the second? */
			race_bad(i, "NOPROC then a real DOWN");
		else if (n1)
			rr.noproc_noproc++;
		else if (n2)
			rr.real_noproc++;
		else
			rr.real_real++;
		reaped(l);
	}
}

START_TEST(race_monitor_vs_exit)
{
	struct act_config cfg = with_workers(W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(run_main(&cfg, race_monitor_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, RACE_N);
	ck_assert_int_eq(rr.real_real + rr.real_noproc + rr.noproc_noproc,
			 RACE_N);
	printf("race_monitor_vs_exit/%d: real %d, real+noproc %d, noproc %d\n",
	       _i, rr.real_real, rr.real_noproc, rr.noproc_noproc);
}
END_TEST

/* ---- concurrent kills of one target ------------------------------------ */

#define KILLERS 3
#define KILL_RACE_N (UNDER_TSAN ? 100 : 500)

static _Atomic int kr_calls_a, kr_calls_b, kr_order_bad;

static void kr_h_a(void *arg) /* registered first: runs last */
{
	(void)arg;
	atomic_fetch_add(&kr_calls_a, 1);
}

static void kr_h_b(void *arg)
{
	(void)arg;
	if (atomic_load(&kr_calls_a))
		atomic_fetch_add(&kr_order_bad, 1);
	atomic_fetch_add(&kr_calls_b, 1);
}

static void kr_target(void *arg)
{
	(void)arg;
	act_on_exit(kr_h_a, NULL);
	act_on_exit(kr_h_b, NULL);
	act_send(hl.boss, T_READY, NULL, 0);
	act_receive_match(match_never, NULL, WAIT);
}

struct killer {
	act_pid t;
	intptr_t reason;
	_Atomic int rc; /* INT32_MIN: not yet */
};

static void kr_killer(void *arg)
{
	struct killer *k = arg;
	struct act_msg *m = act_receive_match(is_go, NULL, WAIT);

	if (m)
		act_msg_free(m);
	atomic_store(&k->rc, act_kill(k->t, k->reason));
}

static bool reason_ok(intptr_t r)
{
	return r == ACT_EXIT_KILLED || r == 81 || r == 82;
}

static void race_kill_main(void *arg)
{
	static struct killer ks[KILLERS];
	static const intptr_t reasons[KILLERS] = { ACT_EXIT_KILL, 81, 82 };
	struct seen d1, d2, e;
	act_pid t, kp[KILLERS], peer;
	uint64_t r1, r2;
	int i, j, zero, rc;
	int64_t extra;

	(void)arg;
	hl.boss = act_self();
	peer = new_trapper(true);
	for (i = 0; i < KILL_RACE_N && !rr.bad; i++) {
		atomic_store(&kr_calls_a, 0);
		atomic_store(&kr_calls_b, 0);
		atomic_store(&kr_order_bad, 0);
		t = spawn_ok(kr_target, NULL);
		if (!take(T_READY, t, false, 0, WAIT).n) {
			race_bad(i, "target not ready");
			break;
		}
		r1 = act_monitor(t);
		r2 = act_monitor(t);
		if (callv(peer, OP_LINK, t, 0) != 0) {
			race_bad(i, "peer's link failed");
			break;
		}
		for (j = 0; j < KILLERS; j++) {
			ks[j].t = t;
			ks[j].reason = reasons[(i + j) % KILLERS];
			atomic_store(&ks[j].rc, INT32_MIN);
			kp[j] = spawn_ok(kr_killer, &ks[j]);
		}
		for (j = 0; j < KILLERS; j++)
			act_send(kp[j], T_GO, NULL, 0);
		d1 = take_down(t, r1, WAIT);
		d2 = take_down(t, r2, WAIT);
		e = p_take_exit(peer, t, WAIT);
		if (!reaped(t)) {
			race_bad(i, "target never reaped");
			break;
		}
		for (j = 0; j < KILLERS; j++)
			reaped(kp[j]);
		extra = drain_now(ACT_TAG_DOWN, t, false);
		extra += callv(peer, OP_COUNT, ACT_PID_NONE, 0);
		zero = 0;
		for (j = 0; j < KILLERS; j++) {
			rc = atomic_load(&ks[j].rc);
			zero += rc == 0;
			if (rc != 0 && rc != -ESRCH)
				race_bad(i, "act_kill %d", rc);
		}
		rr.iters++;
		if (!d1.n || !d2.n || !e.n || extra)
			race_bad(i, "DOWNs %d, EXITs %d, extra %lld",
				 d1.n + d2.n, e.n, (long long)extra);
		else if (!reason_ok(d1.info.reason) ||
			 d1.info.reason != d2.info.reason ||
			 d1.info.reason != e.info.reason)
			race_bad(i, "reasons %ld %ld %ld",
				 (long)d1.info.reason, (long)d2.info.reason,
				 (long)e.info.reason);
		else if (atomic_load(&kr_calls_a) != 1 ||
			 atomic_load(&kr_calls_b) != 1 ||
			 atomic_load(&kr_order_bad))
			race_bad(i, "handlers ran %d and %d times, order %d",
				 atomic_load(&kr_calls_a),
				 atomic_load(&kr_calls_b),
				 atomic_load(&kr_order_bad));
		else if (zero < 1)
			race_bad(i, "no act_kill returned 0");
		else
			rr.linked++;
	}
	cast(peer, OP_RETURN, ACT_PID_NONE, 0);
}

START_TEST(race_concurrent_kills)
{
	struct act_config cfg = with_workers(W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(run_main(&cfg, race_kill_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, KILL_RACE_N);
	ck_assert_int_eq(rr.linked, KILL_RACE_N);
}
END_TEST

/* ---- names under concurrency ------------------------------------------- */

#define REGISTRARS 4
#define NAME_RACE_N (UNDER_TSAN ? 100 : 500)

struct registrar {
	act_pid who; /* register this pid (ACT_PID_NONE: itself) */
	_Atomic int rc; /* INT32_MIN: not yet */
};

static void registrar(void *arg)
{
	struct registrar *rg = arg;
	struct act_msg *m = act_receive_match(is_go, NULL, WAIT);
	act_pid who = rg->who.id ? rg->who : act_self();

	if (m)
		act_msg_free(m);
	atomic_store(&rg->rc, act_register("race", who));
	m = act_receive_match(tag_is, (void *)(uintptr_t)T_STOP, WAIT);
	if (m)
		act_msg_free(m);
}

static bool all_set(struct registrar *rg, int n)
{
	int64_t end = act__clock_now() + WAIT;
	int i, k;

	for (k = 0;; k++) {
		for (i = 0; i < n && atomic_load(&rg[i].rc) != INT32_MIN; i++)
			;
		if (i == n)
			return true;
		if (act__clock_now() > end)
			return false;
		if (k < 1000)
			act_yield();
		else
			act_sleep(100000);
	}
}

static void race_names_main(void *arg)
{
	static struct registrar rg[REGISTRARS];
	act_pid p[REGISTRARS], winner, t;
	uint64_t mw, mt;
	struct seen d;
	int i, j, wins, rc;

	(void)arg;
	/* several at once: exactly one gets the name */
	for (i = 0; i < NAME_RACE_N && !rr.bad; i++) {
		for (j = 0; j < REGISTRARS; j++) {
			rg[j].who = ACT_PID_NONE;
			atomic_store(&rg[j].rc, INT32_MIN);
			p[j] = spawn_ok(registrar, &rg[j]);
		}
		for (j = 0; j < REGISTRARS; j++)
			act_send(p[j], T_GO, NULL, 0);
		if (!all_set(rg, REGISTRARS)) {
			race_bad(i, "registrars stuck");
			break;
		}
		wins = 0;
		winner = ACT_PID_NONE;
		for (j = 0; j < REGISTRARS; j++) {
			rc = atomic_load(&rg[j].rc);
			if (rc == 0) {
				wins++;
				winner = p[j];
			} else if (rc != -EEXIST) {
				race_bad(i, "act_register %d", rc);
			}
		}
		rr.iters++;
		if (wins != 1) {
			race_bad(i, "%d winners", wins);
			break;
		}
		if (!act_pid_eq(act_whereis("race"), winner))
			race_bad(i, "whereis is not the winner");
		if (i % 2) {
			if (act_unregister("race") != 0)
				race_bad(i, "unregister failed");
		} else {
			mw = act_monitor(winner);
			act_send(winner, T_STOP, NULL, 0);
			d = take_down(winner, mw, WAIT);
			if (!d.n || !act_pid_eq(act_whereis("race"),
						ACT_PID_NONE))
				race_bad(i, "name not freed at exit");
		}
		for (j = 0; j < REGISTRARS; j++)
			act_send(p[j], T_STOP, NULL, 0);
		for (j = 0; j < REGISTRARS; j++)
			reaped(p[j]);
	}
	/* registering a process as it exits: 0 or -ESRCH, and the name is
	 * free once its DOWN came either way */
	for (i = 0; i < NAME_RACE_N && !rr.bad; i++) {
		t = spawn_ok(go_then_exit, NULL);
		mt = act_monitor(t);
		rg[0].who = t;
		atomic_store(&rg[0].rc, INT32_MIN);
		p[0] = spawn_ok(registrar, &rg[0]);
		go_both(i, t, p[0]);
		d = take_down(t, mt, WAIT);
		if (!all_set(rg, 1)) {
			race_bad(i, "registrar stuck");
			break;
		}
		rc = atomic_load(&rg[0].rc);
		act_send(p[0], T_STOP, NULL, 0);
		rr.iters++;
		if (rc != 0 && rc != -ESRCH)
			race_bad(i, "act_register of an exiting pid: %d", rc);
		/* the registrar may still be before its act_register when
		 * the DOWN came: then it is -ESRCH; after both, no name */
		if (!d.n || d.info.reason != 70)
			race_bad(i, "DOWN %d reason %ld", d.n,
				 (long)d.info.reason);
		if (!act_pid_eq(act_whereis("race"), ACT_PID_NONE))
			race_bad(i, "act_register %d: the dead pid's name "
				 "stayed", rc);
		else if (rc == 0)
			rr.linked++;
		else
			rr.noproc++;
		reaped(p[0]);
	}
}

START_TEST(race_names)
{
	struct act_config cfg = with_workers(W24(_i));

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(run_main(&cfg, race_names_main, NULL), 0);
	ck_assert_msg(rr.bad == 0, "%s", rr.why);
	ck_assert_int_eq(rr.iters, 2 * NAME_RACE_N);
	ck_assert_int_eq(rr.linked + rr.noproc, NAME_RACE_N);
	printf("race_names/%d: registered before the exit %d, -ESRCH %d\n",
	       _i, rr.linked, rr.noproc);
}
END_TEST

/* ---- senders from several workers against one limit -------------------- */

#define SENDERS 4
#define MB_RACE_ROUNDS (UNDER_TSAN ? 20 : 200)

struct mb_sender {
	act_pid v;
	_Atomic int ok, err; /* err: INT32_MIN: not yet */
};

/* Sends that returned 0 although, before they began, the target had been
 * killed (only its limit kills it here) or was exiting: past the limit,
 * lifecycle.md wants -ENOBUFS until EXITING, then -ESRCH. */
static _Atomic int after_kill_ok;

static void mb_sender(void *arg)
{
	struct mb_sender *s = arg;
	struct act_msg *m = act_receive_match(is_go, NULL, WAIT);
	int i, rc, n = 0;

	if (m)
		act_msg_free(m);
	for (i = 0;; i++) {
		struct act__proc *q = lookup(s->v);
		bool gone_before = !q ||
				   (atomic_load(&q->flags) & ACT_PF_KILLED) ||
				   act__ps(atomic_load(&q->state)) ==
					   ACT_PS_EXITING;

		rc = act_send(s->v, T_DATA, &i, sizeof(i));
		if (rc)
			break;
		n++;
		if (gone_before)
			atomic_fetch_add(&after_kill_ok, 1);
	}
	atomic_store(&s->ok, n);
	atomic_store(&s->err, rc);
}

static struct mb_race_res {
	int rounds;
	int accepted[MB_RACE_ROUNDS];
	int enobufs[MB_RACE_ROUNDS];
	int other_err[MB_RACE_ROUNDS];
	struct seen down[MB_RACE_ROUNDS];
	act_pid v[MB_RACE_ROUNDS];
	uint64_t ref[MB_RACE_ROUNDS];
	int after_kill[MB_RACE_ROUNDS];
} mbrr;

static void mb_race_main(void *arg)
{
	static struct mb_sender ss[SENDERS];
	struct act_spawn_opts o;
	act_pid sp[SENDERS];
	int r, j, err;

	(void)arg;
	memset(&o, 0, sizeof(o));
	o.mailbox_limit = 100;
	for (r = 0; r < MB_RACE_ROUNDS; r++) {
		mbrr.v[r] = act_spawn_opt(sleeper, NULL, &o);
		ck_assert(mbrr.v[r].id);
		mbrr.ref[r] = act_monitor(mbrr.v[r]);
		ck_assert(wait_receiving(mbrr.v[r]));
		for (j = 0; j < SENDERS; j++) {
			ss[j].v = mbrr.v[r];
			atomic_store(&ss[j].ok, 0);
			atomic_store(&ss[j].err, INT32_MIN);
			sp[j] = spawn_ok(mb_sender, &ss[j]);
		}
		atomic_store(&after_kill_ok, 0);
		for (j = 0; j < SENDERS; j++)
			act_send(sp[j], T_GO, NULL, 0);
		mbrr.down[r] = take_down(mbrr.v[r], mbrr.ref[r], WAIT);
		for (j = 0; j < SENDERS; j++) {
			ck_assert(reaped(sp[j]));
			err = atomic_load(&ss[j].err);
			mbrr.accepted[r] += atomic_load(&ss[j].ok);
			mbrr.enobufs[r] += err == -ENOBUFS;
			mbrr.other_err[r] += err != -ENOBUFS && err != -ESRCH;
		}
		mbrr.after_kill[r] = atomic_load(&after_kill_ok);
		mbrr.rounds++;
	}
}

START_TEST(race_mailbox_senders)
{
	struct act_config cfg = with_workers(W24(_i));
	int r;

	memset(&mbrr, 0, sizeof(mbrr));
	ck_assert_int_eq(run_main(&cfg, mb_race_main, NULL), 0);
	ck_assert_int_eq(mbrr.rounds, MB_RACE_ROUNDS);
	for (r = 0; r < MB_RACE_ROUNDS; r++) {
		ck_assert_msg(mbrr.accepted[r] == 100,
			      "round %d: %d sends accepted against a limit of "
			      "100 (%d of them begun after the target was "
			      "killed)", r, mbrr.accepted[r],
			      mbrr.after_kill[r]);
		ck_assert_msg(mbrr.after_kill[r] == 0,
			      "round %d: %d send(s) returned 0 to a process "
			      "already killed for its limit", r,
			      mbrr.after_kill[r]);
		ck_assert_int_ge(mbrr.enobufs[r], 1);
		ck_assert_int_eq(mbrr.other_err[r], 0);
		ASSERT_DOWN(mbrr.down[r], mbrr.v[r], ACT_EXIT_MAILBOX,
			    mbrr.ref[r], "limit 100, four senders");
	}
}
END_TEST

/* ====================================================================== */

/* ---- I5: unlinking a stale pid leaves the slot's next occupant linked --- */

static void wait_go_exit(void *arg)
{
	act_receive(WAIT); /* any message: go */
	act_exit((intptr_t)arg);
}

static struct stale_unlink {
	int same_slot, unlink_rc, exit_tag;
	intptr_t exit_reason;
} su;

static void stale_unlink_main(void *arg)
{
	struct act_spawn_opts o = { .flags = ACT_SPAWN_LINK };
	struct act_msg *m;
	act_pid a, b;

	(void)arg;
	act_trap_exit(true);
	/* a second link, so that act_unlink looks on the child's shorter
	 * list, where the stale pid's slot shows its new occupant */
	ck_assert(act_spawn_opt(wait_go_exit, (void *)(intptr_t)43, &o).id);
	a = act_spawn_opt(exit_at_once, (void *)(intptr_t)41, &o);
	m = act_receive(WAIT); /* a's EXIT: its slot is free again */
	if (m)
		act_msg_free(m);
	ck_assert(wait_gone(a));
	b = act_spawn_opt(wait_go_exit, (void *)(intptr_t)42, &o);
	su.same_slot = pid_index_of(a) == pid_index_of(b);
	su.unlink_rc = act_unlink(a); /* a stale pid: names no link */
	act_send(b, 1, NULL, 0);
	m = act_receive(WAIT);
	if (m) {
		su.exit_tag = m->tag == ACT_TAG_EXIT;
		su.exit_reason = ((const struct act_exit_info *)m->data)->reason;
		act_msg_free(m);
	}
}

START_TEST(unlink_stale_pid)
{
	struct act_config cfg = with_workers(1); /* LIFO slot reuse */

	memset(&su, 0, sizeof(su));
	ck_assert_int_eq(run_main(&cfg, stale_unlink_main, NULL), 0);
	ck_assert_msg(su.same_slot, "the second child took another slot");
	ck_assert_int_eq(su.unlink_rc, 0);
	ck_assert_msg(su.exit_tag, "no EXIT from the slot's new occupant");
	ck_assert_int_eq(su.exit_reason, 42);
}
END_TEST

static Suite *links_suite(void)
{
	Suite *s = suite_create("links");
	TCase *sig = tcase_create("signals"), *mon = tcase_create("monitors"),
	      *lnk = tcase_create("links"), *hnd = tcase_create("handlers"),
	      *nam = tcase_create("names"), *mbx = tcase_create("mailbox"),
	      *race = tcase_create("races");
	bool no_ring = !have_ring();

	tcase_set_timeout(sig, 120);
	tcase_add_loop_test(sig, exit_signal_table, 0, 2 * N_ROWS);
	tcase_add_test(sig, trap_exit_returns_previous);
	tcase_add_loop_test(sig, kill_signal, 0, 2);
	tcase_add_loop_test(sig, signal_after_messages, 0, 2);
	suite_add_tcase(s, sig);

	tcase_set_timeout(mon, 120);
	tcase_add_loop_test(mon, monitors, 0, 2);
	suite_add_tcase(s, mon);

	tcase_set_timeout(lnk, 120);
	tcase_add_loop_test(lnk, links, 0, 2);
	tcase_add_loop_test(lnk, spawn_link_monitor_atomic, 0, 2);
	tcase_add_test(lnk, spawn_opts_checked);
	tcase_add_test(lnk, unlink_stale_pid);
	tcase_add_loop_test(lnk, link_chain, 0,
			    2 * (int)(sizeof(chains) / sizeof(chains[0])));
	suite_add_tcase(s, lnk);

	tcase_set_timeout(hnd, 120);
	tcase_add_loop_test(hnd, exit_handlers, 0, 2 * EP_IO);
	IO_LOOP(hnd, exit_handlers_io, 2);
	tcase_add_loop_test(hnd, no_handlers_at_stop, 0, 2);
	tcase_add_loop_test(hnd, handler_exit_add_link, 0, 2);
	tcase_add_loop_test(hnd, main_handlers_run, 0, 2);
	tcase_add_loop_test(hnd, exit_order, 0, 2);
	suite_add_tcase(s, hnd);

	tcase_set_timeout(nam, 120);
	tcase_add_loop_test(nam, names, 0, 2);
	tcase_add_test(nam, outside_a_process);
	suite_add_tcase(s, nam);

	tcase_set_timeout(mbx, 120);
	tcase_add_loop_test(mbx, mailbox_limit_kills, 0, 2);
	tcase_add_loop_test(mbx, mailbox_signals_not_counted, 0, 2);
	tcase_add_loop_test(mbx, mailbox_keeping_up, 0, 2);
	tcase_add_loop_test(mbx, mailbox_default_and_override, 0, 2);
	tcase_add_test(mbx, mailbox_env);
	tcase_add_loop_test(mbx, mailbox_timer_counts, 0, 2);
	suite_add_tcase(s, mbx);

	tcase_set_timeout(race, 300);
	tcase_add_loop_test(race, race_link_vs_exit_trapping, 0, 2);
	tcase_add_loop_test(race, race_link_vs_exit, 0, 2);
	tcase_add_loop_test(race, race_monitor_vs_exit, 0, 2);
	tcase_add_loop_test(race, race_concurrent_kills, 0, 2);
	tcase_add_loop_test(race, race_names, 0, 2);
	tcase_add_loop_test(race, race_mailbox_senders, 0, 2);
	suite_add_tcase(s, race);

	return s;
}

int main(void)
{
	/* tu_run_suite does not know these yet */
	unsetenv("ACTORS_TIMER_US");
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(links_suite());
}
