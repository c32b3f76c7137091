/* SPDX-License-Identifier: MIT */
/*
 * lifecycle.h - the harness of the lifecycle programs
 * (doc/design/lifecycle.md): test_links, test_monitors, test_registry,
 * test_exit_handlers and test_mailbox_limit. Include it after testrt.h.
 *
 * Each case runs a runtime whose processes write what they saw into a
 * static result struct; the test body asserts on it after act_main
 * returned (assertions inside processes only guard the set-up). Most
 * cases drive puppets (tu_puppet): processes that carry out orders
 * (link, trap, take an EXIT, exit with R...) and answer, so that the
 * main process can observe a process's state from outside. Deaths are
 * observed through DOWN messages (tu_take_down), which a struct tu_seen
 * records and TU_ASSERT_DOWN checks. tu_wait_gone(pid) (the slot freed)
 * stands for "all of its exit signals went out": the runtime sends them
 * before it frees the slot.
 *
 * Nothing asserts a duration: receive timeouts (TU_WAIT) only bound a
 * wait that would otherwise hang, and TU_QUIET is how long "nothing more
 * comes" is watched where the spec says nothing comes.
 */
#ifndef ACT_LIFECYCLE_H
#define ACT_LIFECYCLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testrt.h"

#define TU_QUIET (50 * TU_MS) /* "no such message comes" is watched this long */
#define TU_IDLE (60 * TU_SEC) /* a puppet without orders that long returns */

/* 1 or 2 workers (functional cases), 2 or 4 (races). */
#define TU_W12(i) ((i) ? 2 : 1)
#define TU_W24(i) ((i) ? 4 : 2)

/* The harness's tags; a program's own start at TU_TAG_LOCAL. */
enum {
	TU_TAG_CMD = 100,
	TU_TAG_REPLY,
	TU_TAG_READY,
	TU_TAG_GO,
	TU_TAG_STOP,
	TU_TAG_DATA,
	TU_TAG_REPORT,
	TU_TAG_LOCAL,
};

#define TU_PID(p) ((unsigned long long)(p).id)

/* ---- what a process saw of one EXIT or DOWN (or other) message ------- */

struct tu_seen {
	int n; /* 1: a message was taken, 0: none came */
	uint32_t tag;
	act_pid from;
	size_t len;
	struct act_exit_info info;
};

struct tu_sig_want {
	uint32_t tag; /* 0: any tag */
	act_pid from;
	bool any_from;
	bool by_ref;
	uint64_t ref;
};

static inline bool tu_sig_is(const struct act_msg *m, void *ctx)
{
	const struct tu_sig_want *w = ctx;
	const struct act_exit_info *i = m->data;

	if (w->tag && m->tag != w->tag)
		return false;
	if (!w->any_from && !act_pid_eq(m->from, w->from))
		return false;
	return !w->by_ref || (m->len == sizeof(*i) && i && i->ref == w->ref);
}

static inline struct tu_seen tu_take_w(struct tu_sig_want *w, int64_t tmo)
{
	struct tu_seen s;
	struct act_msg *m;

	memset(&s, 0, sizeof(s));
	m = act_receive_match(tu_sig_is, w, tmo);
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

static inline struct tu_seen tu_take(uint32_t tag, act_pid from, bool by_ref,
				     uint64_t ref, int64_t tmo)
{
	struct tu_sig_want w = {
		.tag = tag, .from = from, .by_ref = by_ref, .ref = ref
	};

	return tu_take_w(&w, tmo);
}

/* The next EXIT from `from` (any ref: the caller checks it is 0). */
static inline struct tu_seen tu_take_exit(act_pid from, int64_t tmo)
{
	return tu_take(ACT_TAG_EXIT, from, false, 0, tmo);
}

/* The DOWN of monitor `ref` on `from`. */
static inline struct tu_seen tu_take_down(act_pid from, uint64_t ref,
					  int64_t tmo)
{
	return tu_take(ACT_TAG_DOWN, from, true, ref, tmo);
}

/* The next message from `from`, whatever its tag (FIFO). */
static inline struct tu_seen tu_take_from(act_pid from, int64_t tmo)
{
	return tu_take(0, from, false, 0, tmo);
}

/* Take every message of that kind in the mailbox now; how many. */
static inline int tu_drain_now(uint32_t tag, act_pid from, bool any_from)
{
	struct tu_sig_want w = { .tag = tag,
				 .from = from,
				 .any_from = any_from };
	int n = 0;

	while (tu_take_w(&w, 0).n)
		n++;
	return n;
}

/* Every EXIT and DOWN in the mailbox now, from anyone. */
static inline int tu_drain_sigs(void)
{
	return tu_drain_now(ACT_TAG_EXIT, ACT_PID_NONE, true) +
	       tu_drain_now(ACT_TAG_DOWN, ACT_PID_NONE, true);
}

/* A match: TU_TAG_GO, from anyone. */
static inline bool tu_is_go(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == TU_TAG_GO;
}

/* A match that takes nothing: a receive that only waits. */
static inline bool tu_match_never(const struct act_msg *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return false;
}

/* Assertions on a struct tu_seen, for test bodies. */
#define TU_ASSERT_SIG(s, tg, pid, why, rf, what)                               \
	do {                                                                   \
		const struct tu_seen s_ = (s);                                 \
		ck_assert_msg(s_.n == 1, "%s: no message came", (what));       \
		ck_assert_msg(s_.tag == (tg), "%s: tag %#x, want %#x", (what), \
			      s_.tag, (unsigned)(tg));                         \
		ck_assert_msg(act_pid_eq(s_.from, (pid)),                      \
			      "%s: msg->from %#llx, want %#llx", (what),       \
			      TU_PID(s_.from), TU_PID(pid));                   \
		ck_assert_msg(s_.len == sizeof(struct act_exit_info),          \
			      "%s: len %zu", (what), s_.len);                  \
		ck_assert_msg(act_pid_eq(s_.info.who, (pid)),                  \
			      "%s: who %#llx, want %#llx", (what),             \
			      TU_PID(s_.info.who), TU_PID(pid));               \
		ck_assert_msg(s_.info.reason == (intptr_t)(why),               \
			      "%s: reason %ld, want %ld", (what),              \
			      (long)s_.info.reason, (long)(why));              \
		ck_assert_msg(s_.info.ref == (uint64_t)(rf),                   \
			      "%s: ref %llu, want %llu", (what),               \
			      (unsigned long long)s_.info.ref,                 \
			      (unsigned long long)(rf));                       \
	} while (0)
#define TU_ASSERT_EXIT(s, pid, why, what) \
	TU_ASSERT_SIG(s, ACT_TAG_EXIT, pid, why, 0, what)
#define TU_ASSERT_DOWN(s, pid, why, rf, what) \
	TU_ASSERT_SIG(s, ACT_TAG_DOWN, pid, why, rf, what)
#define TU_ASSERT_NONE(s, what)                                               \
	ck_assert_msg((s).n == 0, "%s: a message came (tag %#x, reason %ld)", \
		      (what), (s).tag, (long)(s).info.reason)

/* ---- puppets: processes that carry out orders and answer --------------- */

enum {
	TU_OP_RETURN = 1, /* return (ACT_EXIT_NORMAL); no answer */
	TU_OP_EXIT,	  /* act_exit(arg); no answer */
	TU_OP_TRAP,	  /* v = act_trap_exit(arg) */
	TU_OP_LINK,	  /* v = act_link(pid) */
	TU_OP_UNLINK,	  /* v = act_unlink(pid) */
	TU_OP_MONITOR,	  /* ref = act_monitor(pid) */
	TU_OP_DEMONITOR,  /* v = act_demonitor(ref) */
	TU_OP_KILL,	  /* v = act_kill(pid, arg) */
	TU_OP_KILL_SELF,  /* v = act_kill(act_self(), arg) */
	TU_OP_TAKE_EXIT,  /* s = the next EXIT from pid, waiting up to tmo */
	TU_OP_TAKE_DOWN,  /* s = the DOWN of (pid, ref), waiting up to tmo */
	TU_OP_COUNT,	  /* v = EXITs and DOWNs in the mailbox (taken) */
	TU_OP_PING,	  /* answers: alive */
	TU_OP_SPAWN,	  /* pid = act_spawn_opt(tu_exit_at_once, arg, flags) */
	TU_OP_FLOOD,	  /* arg messages to pid and to the boss, then exit
			   * with ref as the reason */
	TU_OP_DRAIN,	  /* d = the messages from pid up to its EXIT */
	TU_OP_TAKE_ANY,	  /* s = the next message from pid (any tag), waiting
			   * up to tmo; pid = act_whereis("ordered") then */
};

struct tu_cmd {
	int op;
	uint32_t flags;
	act_pid pid;
	intptr_t arg;
	uint64_t ref;
	int64_t tmo;
};

/* FIFO of one sender's TU_TAG_DATA (numbered 0, 1, ...) up to its EXIT
 * or DOWN. */
struct tu_drain {
	int data;	    /* TU_TAG_DATA before the end */
	int bad;	    /* out of order, or another tag */
	struct tu_seen end; /* the EXIT or DOWN */
	int after;	    /* messages from it after the end */
};

struct tu_reply {
	bool ok; /* set by tu_call(): an answer came */
	int64_t v;
	uint64_t ref;
	act_pid pid;
	struct tu_seen s;
	struct tu_drain d;
};

/* A process that exits at once, with arg as the reason. */
static inline void tu_exit_at_once(void *arg)
{
	act_exit((intptr_t)arg);
}

static inline bool tu_from_is(const struct act_msg *m, void *ctx)
{
	return act_pid_eq(m->from, *(act_pid *)ctx);
}

/* Numbered TU_TAG_DATA from `from` in order, then `end_tag` from it. */
static inline struct tu_drain tu_drain_from(act_pid from, uint32_t end_tag)
{
	struct tu_drain d;
	struct act_msg *m;
	int v;

	memset(&d, 0, sizeof(d));
	for (;;) {
		m = act_receive_match(tu_from_is, &from, TU_WAIT);
		if (!m)
			break;
		if (m->tag == TU_TAG_DATA && m->len == sizeof(v)) {
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
	if (tu_wait_gone(from))
		while ((m = act_receive_match(tu_from_is, &from, 0))) {
			d.after++;
			act_msg_free(m);
		}
	return d;
}

static inline bool tu_is_cmd(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == TU_TAG_CMD && m->len == sizeof(struct tu_cmd);
}

/* Carries out orders (TU_TAG_CMD) from anyone and answers each that
 * says so with a TU_TAG_REPLY; returns after TU_IDLE without one. */
static inline void tu_puppet(void *arg)
{
	struct act_spawn_opts o;
	struct act_msg *m;
	struct tu_reply r;
	struct tu_cmd c;
	act_pid boss;
	int i;

	(void)arg;
	for (;;) {
		m = act_receive_match(tu_is_cmd, NULL, TU_IDLE);
		if (!m)
			return;
		memcpy(&c, m->data, sizeof(c));
		boss = m->from;
		act_msg_free(m);
		memset(&r, 0, sizeof(r));
		switch (c.op) {
		case TU_OP_RETURN:
			return;
		case TU_OP_EXIT:
			act_exit(c.arg);
		case TU_OP_TRAP:
			r.v = act_trap_exit(c.arg != 0);
			break;
		case TU_OP_LINK:
			r.v = act_link(c.pid);
			break;
		case TU_OP_UNLINK:
			r.v = act_unlink(c.pid);
			break;
		case TU_OP_MONITOR:
			r.ref = act_monitor(c.pid);
			break;
		case TU_OP_DEMONITOR:
			r.v = act_demonitor(c.ref);
			break;
		case TU_OP_KILL:
			r.v = act_kill(c.pid, c.arg);
			break;
		case TU_OP_KILL_SELF:
			r.v = act_kill(act_self(), c.arg);
			break;
		case TU_OP_TAKE_EXIT:
			r.s = tu_take_exit(c.pid, c.tmo);
			break;
		case TU_OP_TAKE_DOWN:
			r.s = tu_take_down(c.pid, c.ref, c.tmo);
			break;
		case TU_OP_COUNT:
			r.v = tu_drain_sigs();
			break;
		case TU_OP_PING:
			break;
		case TU_OP_SPAWN:
			memset(&o, 0, sizeof(o));
			o.flags = c.flags;
			if (c.flags & ACT_SPAWN_MONITOR)
				o.monitor_ref = &r.ref;
			r.pid = act_spawn_opt(tu_exit_at_once, (void *)c.arg,
					      &o);
			break;
		case TU_OP_FLOOD:
			for (i = 0; i < (int)c.arg; i++) {
				ck_assert_int_eq(act_send(c.pid, TU_TAG_DATA,
							  &i, sizeof(i)),
						 0);
				ck_assert_int_eq(act_send(boss, TU_TAG_DATA, &i,
							  sizeof(i)),
						 0);
			}
			act_exit((intptr_t)c.ref);
		case TU_OP_DRAIN:
			r.d = tu_drain_from(c.pid, ACT_TAG_EXIT);
			break;
		case TU_OP_TAKE_ANY:
			r.s = tu_take_from(c.pid, c.tmo);
			r.pid = act_whereis("ordered");
			break;
		default:
			ck_abort_msg("puppet: op %d", c.op);
		}
		r.ok = true;
		act_send(boss, TU_TAG_REPLY, &r, sizeof(r));
	}
}

/* A puppet (not trapping exits), waiting for orders. */
static inline act_pid tu_new_puppet(void)
{
	return tu_spawn(tu_puppet, NULL);
}

/* Give an order; no answer awaited. The send's result. */
static inline int tu_cast_c(act_pid p, struct tu_cmd c)
{
	return act_send(p, TU_TAG_CMD, &c, sizeof(c));
}

static inline int tu_cast(act_pid p, int op, act_pid pid, intptr_t arg)
{
	struct tu_cmd c = { .op = op, .pid = pid, .arg = arg };

	return tu_cast_c(p, c);
}

/* Give an order and wait for the answer (r.ok false: none came). */
static inline struct tu_reply tu_call_c(act_pid p, struct tu_cmd c)
{
	struct tu_sig_want w = { .tag = TU_TAG_REPLY, .from = p };
	struct tu_reply r;
	struct act_msg *m;

	memset(&r, 0, sizeof(r));
	if (tu_cast_c(p, c))
		return r;
	m = act_receive_match(tu_sig_is, &w, TU_WAIT);
	if (m) {
		memcpy(&r, m->data, sizeof(r));
		act_msg_free(m);
		r.ok = true;
	}
	return r;
}

static inline struct tu_reply tu_call(act_pid p, int op, act_pid pid,
				      intptr_t arg)
{
	struct tu_cmd c = { .op = op, .pid = pid, .arg = arg };

	return tu_call_c(p, c);
}

/* v of an answer, or INT64_MIN when none came. */
static inline int64_t tu_callv(act_pid p, int op, act_pid pid, intptr_t arg)
{
	struct tu_reply r = tu_call(p, op, pid, arg);

	return r.ok ? r.v : INT64_MIN;
}

/* Puppet p's next EXIT from `from`, waiting up to tmo. */
static inline struct tu_seen tu_p_take_exit(act_pid p, act_pid from,
					    int64_t tmo)
{
	struct tu_cmd c = { .op = TU_OP_TAKE_EXIT, .pid = from, .tmo = tmo };

	return tu_call_c(p, c).s;
}

/* A puppet that traps exits (or not). */
static inline act_pid tu_new_trapper(bool trap)
{
	act_pid p = tu_new_puppet();

	ck_assert_int_eq(tu_callv(p, TU_OP_TRAP, ACT_PID_NONE, trap), 0);
	return p;
}

/* ---- races: two sides started together, many rounds ------------------- */

#define TU_RACE_N (TU_UNDER_TSAN ? 300 : 2000)

/* Waits for GO (from anyone), then exits with 70. */
static inline void tu_go_then_exit(void *arg)
{
	struct act_msg *m = act_receive_match(tu_is_go, NULL, TU_WAIT);

	(void)arg;
	if (m)
		act_msg_free(m);
	act_exit(70);
}

/* A race's tally: rounds, outcomes, and the first bad round's story. */
struct tu_race {
	int iters, linked, noproc, bad;
	int real_real, real_noproc, noproc_noproc;
	char why[256];
};

static inline void tu_race_bad(struct tu_race *r, int i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Round i went wrong: counted, and the first one's story kept. */
static inline void tu_race_bad(struct tu_race *r, int i, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	r->bad++;
	if (r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->why, sizeof(r->why), "iteration %d: %s", i, what);
}

/* Starts a race's two sides, t first in odd rounds, l first in even. */
static inline void tu_go_both(int i, act_pid t, act_pid l)
{
	act_send(i % 2 ? t : l, TU_TAG_GO, NULL, 0);
	act_send(i % 2 ? l : t, TU_TAG_GO, NULL, 0);
}

/* Takes l's TU_TAG_REPORT of round i into rep; false (and the round
 * marked bad) when none comes. */
static inline bool tu_take_report(struct tu_race *r, int i, act_pid l,
				  void *rep, size_t len)
{
	struct tu_sig_want w = { .tag = TU_TAG_REPORT, .from = l };
	struct act_msg *m = act_receive_match(tu_sig_is, &w, TU_WAIT);

	if (!m) {
		tu_race_bad(r, i, "no report");
		return false;
	}
	memcpy(rep, m->data, len);
	act_msg_free(m);
	return true;
}

#endif /* ACT_LIFECYCLE_H */
