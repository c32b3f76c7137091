/* SPDX-License-Identifier: MIT */
/*
 * test_exit_handlers.c - exit handlers (doc/design/lifecycle.md "Exit
 * handlers", lib/actor/links.c): act_on_exit's handlers on every exit
 * path (return, act_exit, kills in each kind of wait, a link's signal,
 * the mailbox limit, a killed read), newest first and once each, none
 * when the runtime stops, handlers that exit, add handlers or link, the
 * main process's, and the order at exit: handlers, the name, EXIT, DOWN.
 *
 * The harness (puppets, tu_take_down, TU_ASSERT_DOWN) is
 * tests/lifecycle.h, whose head says how the cases work.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testrt.h"
#include "iotest.h"
#include "lifecycle.h"

/* This program's own tags. */
enum {
	T_HMSG = TU_TAG_LOCAL,
	T_SPAWNED,
};

/* ======================================================================
 * 1. Exit handlers
 * ====================================================================== */

#define H_MAX 8

static struct hlog {
	_Atomic int n;
	_Atomic int seq[H_MAX];
	_Atomic int calls[H_MAX];
	_Atomic int reg_bad;	   /* act_on_exit calls that did not return 0 */
	_Atomic int after;	   /* the victim ran past its blocking call */
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
	atomic_store(&hl.spawn_ok, act_spawn(spawned_by_handler, NULL).id != 0);
}

/* Waits: in a killed process too, a handler is ordinary code, and its
 * receive runs to its timeout (the kill was taken, signals no longer
 * reach the process). */
static void h_block(void *arg)
{
	h_note((int)(intptr_t)arg);
	if (act_receive_match(tu_match_never, NULL, 20 * TU_MS) == NULL)
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
	"return",
	"act_exit",
	"kill in act_receive",
	"kill in act_sleep",
	"kill in act_yield",
	"KILL in act_receive",
	"a linked process's exit",
	"mailbox limit",
	"kill, blocking handler",
	"kill in act_io_read",
};

static const intptr_t path_reason[EP_N] = {
	ACT_EXIT_NORMAL,  61, 63, 63, 63, ACT_EXIT_KILLED, 62,
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
	ck_assert_int_eq(act_send(hl.boss, TU_TAG_READY, NULL, 0), 0);
	switch (va->path) {
	case EP_RETURN:
		tu_take(TU_TAG_GO, hl.boss, false, 0, TU_WAIT);
		return;
	case EP_EXIT:
		act_exit(61);
	case EP_KILL_RECV:
	case EP_KILL_KILL:
	case EP_LINKED:
	case EP_BLOCKING_HANDLER:
		act_receive_match(tu_match_never, NULL, TU_WAIT);
		break;
	case EP_KILL_SLEEP:
	case EP_MAILBOX:
		act_sleep(TU_WAIT);
		break;
	case EP_KILL_YIELD:
		end = act__clock_now() + TU_WAIT;
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
	struct tu_seen first, down; /* the victim's messages, in order */
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
	struct tu_sig_want w = { .tag = T_SPAWNED, .any_from = true };

	return tu_take_w(&w, TU_WAIT).n == 1;
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
		va.partner = partner = tu_new_puppet();
	if (path == EP_IO) {
		tu_mkpipe(p);
		va.fd = p[0];
	}
	if (path == EP_MAILBOX)
		o.mailbox_limit = 5;
	/* monitored before it runs: the act_exit path ends at once */
	o.flags = ACT_SPAWN_MONITOR;
	o.monitor_ref = &er.ref;
	er.v = act_spawn_opt(victim, &va, &o);
	ck_assert(er.v.id);
	er.ready = tu_take(TU_TAG_READY, er.v, false, 0, TU_WAIT).n == 1;
	switch (path) {
	case EP_RETURN:
		act_send(er.v, TU_TAG_GO, NULL, 0);
		break;
	case EP_KILL_RECV:
	case EP_KILL_SLEEP:
	case EP_BLOCKING_HANDLER:
		ck_assert(tu_wait_waiting(er.v));
		er.kill_rc = act_kill(er.v, path_reason[path]);
		break;
	case EP_KILL_KILL:
		ck_assert(tu_wait_waiting(er.v));
		er.kill_rc = act_kill(er.v, ACT_EXIT_KILL);
		break;
	case EP_KILL_YIELD:
		er.kill_rc = act_kill(er.v, 63);
		break;
	case EP_IO:
		ck_assert(tu_wait_iowait(er.v));
		er.kill_rc = act_kill(er.v, 63);
		break;
	case EP_LINKED:
		ck_assert(tu_wait_waiting(er.v));
		tu_cast(partner, TU_OP_EXIT, ACT_PID_NONE, 62);
		break;
	case EP_MAILBOX:
		ck_assert(tu_wait_waiting(er.v));
		for (i = 0; i < 6; i++)
			er.send_rc[i] =
				act_send(er.v, TU_TAG_DATA, &i, sizeof(i));
		break;
	default:
		break;
	}
	if (path != EP_BLOCKING_HANDLER)
		er.first = tu_take_from(er.v, TU_WAIT);
	er.down = tu_take_from(er.v, TU_WAIT);
	er.n_at_down = atomic_load(&hl.n);
	for (i = 0; i < H_MAX; i++) {
		er.seq_at_down[i] = atomic_load(&hl.seq[i]);
		er.calls_at_down[i] = atomic_load(&hl.calls[i]);
	}
	if (path != EP_BLOCKING_HANDLER)
		er.spawned_msg = spawned_from_any();
	ck_assert(tu_wait_gone(er.v));
	act_sleep(TU_QUIET);
	er.n_final = atomic_load(&hl.n);
	for (i = 0; i < H_MAX; i++)
		er.calls_final[i] = atomic_load(&hl.calls[i]);
	er.reg_bad = atomic_load(&hl.reg_bad);
	er.after = atomic_load(&hl.after);
	er.blocked_after = atomic_load(&hl.blocked_after);
	er.spawn_ok = atomic_load(&hl.spawn_ok);
	if (path == EP_IO) {
		er.no_inflight = tu_wait_no_inflight();
		ck_assert_int_eq(write(p[1], "x", 1), 1);
		er.unread_after = tu_unread(p[0]);
		tu_close_pair(p);
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
	TU_ASSERT_DOWN(er.down, er.v, path_reason[path], er.ref, n);
	if (path == EP_BLOCKING_HANDLER) {
		/* 3 runs, 2 waits its 20 ms out, 1 runs */
		ck_assert_msg(er.n_at_down == 3, "%s: %d handler runs", n,
			      er.n_at_down);
		ck_assert_int_eq(er.seq_at_down[0], 3);
		ck_assert_int_eq(er.seq_at_down[1], 2);
		ck_assert_int_eq(er.seq_at_down[2], 1);
		ck_assert_msg(er.blocked_after,
			      "%s: a wait in a killed process's handler did "
			      "not run to its timeout",
			      n);
	} else {
		/* the handler's message came before the DOWN */
		ck_assert_msg(er.first.n == 1 && er.first.tag == T_HMSG,
			      "%s: first message from the victim: n %d tag "
			      "%#x, want the handler's",
			      n, er.first.n, er.first.tag);
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
		ck_assert_msg(er.calls_at_down[i] == 1,
			      "%s: handler %d ran %d "
			      "times",
			      n, i, er.calls_at_down[i]);
		ck_assert_int_eq(er.calls_final[i], 1);
	}
	ck_assert_int_eq(er.n_final, er.n_at_down);
	if (path != EP_RETURN && path != EP_EXIT)
		ck_assert_msg(!er.after, "%s: the victim ran past its wait", n);
}

START_TEST(exit_handlers)
{
	enum path path = (enum path)(_i / 2);
	struct act_config cfg = tu_with_workers(TU_W12(_i % 2));

	memset(&er, 0, sizeof(er));
	ck_assert_int_eq(
		tu_run_main(&cfg, exit_path_main, (void *)(intptr_t)path), 0);
	check_exit_path(path);
}
END_TEST

START_TEST(exit_handlers_io)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&er, 0, sizeof(er));
	ck_assert_int_eq(
		tu_run_main(&cfg, exit_path_main, (void *)(intptr_t)EP_IO), 0);
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
	act_send(hl.boss, TU_TAG_READY, NULL, 0);
	act_receive_match(tu_match_never, NULL, ACT_FOREVER);
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
	v = tu_spawn(stop_victim, NULL);
	stop_res.ready = tu_take(TU_TAG_READY, v, false, 0, TU_WAIT).n == 1;
	ck_assert(tu_wait_waiting(v));
	stop_res.reg_bad = atomic_load(&hl.reg_bad);
}

START_TEST(no_handlers_at_stop)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&stop_res, 0, sizeof(stop_res));
	ck_assert_int_eq(tu_run_main(&cfg, stop_main, NULL), 0);
	ck_assert(stop_res.ready);
	ck_assert_int_eq(stop_res.reg_bad, 0);
	ck_assert_int_eq(atomic_load(&hl.calls[1]), 0);
	ck_assert_int_eq(atomic_load(&hl.n), 0);
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
	act_send(hl.boss, TU_TAG_READY, NULL, 0);
	tu_take(TU_TAG_GO, hl.boss, false, 0, TU_WAIT);
	act_exit(61);
}

static struct special_res {
	act_pid v, peer;
	uint64_t ref;
	bool ready;
	int reg_bad, n, seq[H_MAX], calls[H_MAX];
	struct tu_seen down, peer_exit;
	int64_t peer_extra;
} spr;

static void special_main(void *arg)
{
	struct act_spawn_opts o;
	int i;

	(void)arg;
	hl_reset();
	spr.peer = hs_peer = tu_new_trapper(true);
	memset(&o, 0, sizeof(o));
	o.flags = ACT_SPAWN_MONITOR;
	o.monitor_ref = &spr.ref;
	spr.v = act_spawn_opt(special_victim, NULL, &o);
	ck_assert(spr.v.id);
	spr.ready = tu_take(TU_TAG_READY, spr.v, false, 0, TU_WAIT).n == 1;
	act_send(spr.v, TU_TAG_GO, NULL, 0);
	spr.down = tu_take_down(spr.v, spr.ref, TU_WAIT);
	spr.peer_exit = tu_p_take_exit(spr.peer, spr.v, TU_WAIT);
	ck_assert(tu_wait_gone(spr.v));
	spr.peer_extra = tu_callv(spr.peer, TU_OP_COUNT, ACT_PID_NONE, 0);
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
	struct act_config cfg = tu_with_workers(TU_W12(_i));
	int i;

	memset(&spr, 0, sizeof(spr));
	ck_assert_int_eq(tu_run_main(&cfg, special_main, NULL), 0);
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
	TU_ASSERT_DOWN(spr.down, spr.v, 61, spr.ref, "handler exits again");
	/* the link a handler made fired at this exit */
	TU_ASSERT_EXIT(spr.peer_exit, spr.v, 61, "linked by a handler");
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
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	ck_assert_int_eq(tu_run_main(&cfg, main_with_handler, NULL), 0);
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
	act_send(hl.boss, TU_TAG_READY, NULL, 0);
	m = act_receive_match(tu_is_go, NULL, TU_WAIT);
	if (m)
		act_msg_free(m);
	act_exit(65);
}

static struct exit_order_res {
	act_pid v, m;
	uint64_t ref;
	int reg, link_rc;
	bool ready;
	struct tu_reply r1, r2, r3;
} eor;

static void exit_order_main(void *arg)
{
	struct tu_cmd take_any = { .op = TU_OP_TAKE_ANY, .tmo = TU_WAIT };
	struct tu_cmd mon = { .op = TU_OP_MONITOR };

	(void)arg;
	eor.m = eo_m = tu_new_trapper(true);
	hl_reset();
	eor.v = tu_spawn(ordered_victim, NULL);
	eor.ready = tu_take(TU_TAG_READY, eor.v, false, 0, TU_WAIT).n == 1;
	eor.reg = act_register("ordered", eor.v);
	eor.link_rc = (int)tu_callv(eor.m, TU_OP_LINK, eor.v, 0);
	mon.pid = eor.v;
	eor.ref = tu_call_c(eor.m, mon).ref;
	act_send(eor.v, TU_TAG_GO, NULL, 0);
	take_any.pid = eor.v;
	eor.r1 = tu_call_c(eor.m, take_any);
	eor.r2 = tu_call_c(eor.m, take_any);
	eor.r3 = tu_call_c(eor.m, take_any);
}

START_TEST(exit_order)
{
	struct act_config cfg = tu_with_workers(TU_W12(_i));

	memset(&eor, 0, sizeof(eor));
	ck_assert_int_eq(tu_run_main(&cfg, exit_order_main, NULL), 0);
	ck_assert(eor.ready);
	ck_assert_int_eq(eor.reg, 0);
	ck_assert_int_eq(eor.link_rc, 0);
	ck_assert_uint_ne(eor.ref, 0);
	ck_assert(eor.r1.ok && eor.r2.ok && eor.r3.ok);
	ck_assert_msg(eor.r1.s.n == 1 && eor.r1.s.tag == T_HMSG,
		      "first: tag %#x, want the handler's message",
		      eor.r1.s.tag);
	TU_ASSERT_EXIT(eor.r2.s, eor.v, 65, "second: the link's EXIT");
	ck_assert_msg(act_pid_eq(eor.r2.pid, ACT_PID_NONE),
		      "the name was still registered when the EXIT came");
	TU_ASSERT_DOWN(eor.r3.s, eor.v, 65, eor.ref, "third: the DOWN");
}
END_TEST

static Suite *exit_handlers_suite(void)
{
	Suite *s = suite_create("exit_handlers");
	TCase *hnd = tcase_create("handlers");
	bool no_ring = !tu_have_ring();

	tcase_set_timeout(hnd, 120);
	tcase_add_loop_test(hnd, exit_handlers, 0, 2 * EP_IO);
	TU_IO_LOOP(hnd, exit_handlers_io, 2);
	tcase_add_loop_test(hnd, no_handlers_at_stop, 0, 2);
	tcase_add_loop_test(hnd, handler_exit_add_link, 0, 2);
	tcase_add_loop_test(hnd, main_handlers_run, 0, 2);
	tcase_add_loop_test(hnd, exit_order, 0, 2);
	suite_add_tcase(s, hnd);

	return s;
}

int main(void)
{
	/* tu_run_suite does not know these yet */
	unsetenv("ACTORS_TIMER_US");
	unsetenv("ACTORS_MAILBOX_LIMIT");
	return tu_run_suite(exit_handlers_suite());
}
