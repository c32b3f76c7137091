/* SPDX-License-Identifier: MIT */
/*
 * test_proc.c - process slots and pids (lib/proc.h): the pid format,
 * reuse of a slot with generation + 1, stale pids (I5) and the pids that
 * never named a process.
 *
 * One worker: a spawned process runs only once its parent blocks or
 * yields, so the order of events below is fixed, not timed.
 */
#include <pthread.h>
#include <stdint.h>

#include "testrt.h"

#include "mailbox.h"
#include "runtime.h"
#include "slab.h"
#include "wake.h"
#include "worker.h"

#define TAG_REAL 2
#define TAG_STALE 99

static uint32_t pid_index(act_pid p)
{
	return (uint32_t)p.id;
}

static uint32_t pid_gen(act_pid p)
{
	return (uint32_t)(p.id >> 32);
}

static void noop(void *arg)
{
	(void)arg;
}

/* --- pid format --------------------------------------------------------- */

struct fmt_child {
	act_pid seen_self;
	int ran;
};

static void fmt_child_fn(void *arg)
{
	struct fmt_child *c = arg;

	c->seen_self = act_self();
	c->ran = 1;
}

static void pid_format_main(void *arg)
{
	act_pid self = act_self(), kid;
	struct fmt_child c = { { 0 }, 0 };
	struct act__proc *p;

	(void)arg;
	ck_assert_uint_ne(self.id, 0);
	ck_assert_uint_ge(pid_gen(self), 1);
	p = lookup(self);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(p, &act__rt_current->procs.slots[pid_index(self)]);
	ck_assert_uint_eq(p->index, pid_index(self));
	ck_assert_uint_eq(p->pid.id, self.id);
	ck_assert_uint_eq(atomic_load(&p->gen), pid_gen(self));

	kid = act_spawn(fmt_child_fn, &c);
	ck_assert_uint_ne(kid.id, 0);
	ck_assert_uint_ne(kid.id, self.id);
	ck_assert_uint_ne(pid_index(kid), pid_index(self));
	ck_assert_uint_ge(pid_gen(kid), 1);
	ck_assert_uint_eq(lookup(kid)->index, pid_index(kid));
	ck_assert(wait_gone(kid));
	ck_assert_int_eq(c.ran, 1);
	/* the child sees the pid its parent was given */
	ck_assert_uint_eq(c.seen_self.id, kid.id);
}

START_TEST(test_pid_format)
{
	/* outside a runtime there is no process */
	ck_assert_uint_eq(act_self().id, 0);
	ck_assert_int_eq(run_main(NULL, pid_format_main, NULL), 0);
	ck_assert_uint_eq(act_self().id, 0);
}
END_TEST

/* --- slot reuse ----------------------------------------------------------- */

struct receiver {
	uint32_t first_tag;   /* tag of the first message it received */
	int first_len;
	int poll_after;       /* 1: a poll after it returned a message */
	int got;              /* messages received */
};

/* Waits for one message, records it, then polls once and exits. */
static void receiver_fn(void *arg)
{
	struct receiver *r = arg;
	struct act_msg *m = act_receive(ACT_FOREVER);

	r->got += m != NULL;
	r->first_tag = m ? m->tag : 0;
	r->first_len = m ? (int)m->len : -1;
	act_msg_free(m);
	m = act_receive(0);
	r->poll_after = m != NULL;
	r->got += m != NULL;
	act_msg_free(m);
}

static void slot_reuse_main(void *arg)
{
	struct receiver r = { 0 };
	act_pid a, b;
	int v = 7;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert_uint_ne(a.id, 0);
	ck_assert(wait_gone(a));
	/* gone but not yet reused: still stale */
	ck_assert_ptr_null(lookup(a));
	ck_assert_int_eq(act_send(a, 1, &v, sizeof(v)), -ESRCH);

	b = act_spawn(receiver_fn, &r);
	ck_assert_uint_ne(b.id, 0);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert_uint_eq(pid_gen(b), pid_gen(a) + 1);
	ck_assert_ptr_null(lookup(a));
	ck_assert_ptr_eq(lookup(b),
			 &act__rt_current->procs.slots[pid_index(a)]);
	ck_assert_int_eq(act_send(a, TAG_STALE, &v, sizeof(v)), -ESRCH);
	ck_assert_int_eq(act_send(b, TAG_REAL, &v, sizeof(v)), 0);
	ck_assert(wait_gone(b));
	ck_assert_int_eq(r.got, 1);
	ck_assert_uint_eq(r.first_tag, TAG_REAL);
	ck_assert_int_eq(r.poll_after, 0);
}

START_TEST(test_slot_reuse_bumps_generation)
{
	ck_assert_int_eq(run_main(NULL, slot_reuse_main, NULL), 0);
}
END_TEST

/* Generation 0 is skipped on wrap: slot 0 with generation 0 would be pid 0. */
static void gen_wrap_main(void *arg)
{
	struct act__proc *slot;
	act_pid a, b, c;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(wait_gone(a));
	slot = &act__rt_current->procs.slots[pid_index(a)];
	atomic_store(&slot->gen, UINT32_MAX);
	b = act_spawn(noop, NULL);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert_uint_eq(pid_gen(b), UINT32_MAX);
	ck_assert(wait_gone(b));
	c = act_spawn(noop, NULL);
	ck_assert_uint_eq(pid_index(c), pid_index(a));
	ck_assert_uint_ne(pid_gen(c), 0);
	ck_assert_uint_ne(c.id, b.id);
	ck_assert_ptr_null(lookup(b));
	ck_assert(wait_gone(c));
}

START_TEST(test_generation_wrap_skips_zero)
{
	ck_assert_int_eq(run_main(NULL, gen_wrap_main, NULL), 0);
}
END_TEST

/* --- I5: a sender that looked the old pid up before the slot was reused -- */

/* Build the envelope that such a sender would have pushed. */
static struct act__env *stale_envelope(act_pid old_to)
{
	struct act__worker *w = act__worker_self();
	struct act__env *e = act__slab_alloc(&w->slab, 8);
	uint64_t payload = 0xdeadbeef;

	ck_assert_ptr_nonnull(e);
	e->to = old_to;
	e->msg.tag = TAG_STALE;
	e->msg.rsvd = 0;
	e->msg.from = act_self();
	e->msg.len = sizeof(payload);
	e->msg.data = (char *)e + ACT_ENV_HDR;
	memcpy(e->msg.data, &payload, sizeof(payload));
	return e;
}

static int64_t envelopes_out(void)
{
	return act__slab_outstanding(&act__worker_self()->slab) +
	       act__foreign_outstanding();
}

/* The stale envelope is already queued when the new occupant first runs. */
static void stale_queued_main(void *arg)
{
	struct receiver r = { 0 };
	act_pid a, b;
	int64_t before;
	int v = 1;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(wait_gone(a));
	b = act_spawn(receiver_fn, &r);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	before = envelopes_out();
	act__mailbox_push(lookup(b), stale_envelope(a));
	ck_assert_int_eq(envelopes_out(), before + 1);
	ck_assert_int_eq(act_send(b, TAG_REAL, &v, sizeof(v)), 0);
	ck_assert(wait_gone(b));
	ck_assert_int_eq(r.got, 1);
	ck_assert_uint_eq(r.first_tag, TAG_REAL);
	ck_assert_int_eq(r.first_len, (int)sizeof(v));
	ck_assert_int_eq(r.poll_after, 0);
	/* the stale envelope was freed, not leaked */
	ck_assert_int_eq(envelopes_out(), before);
}

START_TEST(test_I5_stale_envelope_dropped)
{
	ck_assert_int_eq(run_main(NULL, stale_queued_main, NULL), 0);
}
END_TEST

/*
 * The racing sender pushes and wakes while the new occupant already waits:
 * a spurious wakeup (allowed), the envelope is dropped, the process waits
 * again and gets the real message later.
 */
static void stale_while_waiting_main(void *arg)
{
	struct receiver r = { 0 };
	struct act__proc *pb;
	act_pid a, b;
	int64_t before;
	int v = 1, i;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(wait_gone(a));
	b = act_spawn(receiver_fn, &r);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert(wait_waiting(b));
	pb = lookup(b);
	before = envelopes_out();
	act__mailbox_push(pb, stale_envelope(a));
	ck_assert(act__wake(act__worker_self(), pb, 0));
	/* let b run: it must drop the envelope and wait again */
	for (i = 0; i < 100 && envelopes_out() != before; i++)
		act_yield();
	ck_assert_int_eq(envelopes_out(), before);
	ck_assert(wait_waiting(b));
	ck_assert_int_eq(r.got, 0);
	ck_assert_int_eq(act_send(b, TAG_REAL, &v, sizeof(v)), 0);
	ck_assert(wait_gone(b));
	ck_assert_int_eq(r.got, 1);
	ck_assert_uint_eq(r.first_tag, TAG_REAL);
}

START_TEST(test_I5_stale_envelope_while_waiting)
{
	ck_assert_int_eq(run_main(NULL, stale_while_waiting_main, NULL), 0);
}
END_TEST

/* The stale envelope is the last thing in the mailbox when the runtime
 * stops: reclaimed all the same. */
static void blocked_forever(void *arg)
{
	(void)arg;
	act_receive(ACT_FOREVER);
}

static void stale_at_stop_main(void *arg)
{
	act_pid a, b;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(wait_gone(a));
	b = act_spawn(blocked_forever, NULL);
	ck_assert(wait_waiting(b));
	act__mailbox_push(lookup(b), stale_envelope(a));
}

START_TEST(test_I5_stale_envelope_reclaimed_at_stop)
{
	ck_assert_int_eq(run_main(NULL, stale_at_stop_main, NULL), 0);
}
END_TEST

/* --- pids that never named a process ------------------------------------ */

static void bad_pids_main(void *arg)
{
	act_pid self = act_self();
	uint32_t cap = act__rt_current->procs.cap;
	uint32_t hwm = atomic_load(&act__rt_current->procs.hwm);
	int v = 3;

	(void)arg;
	ck_assert_uint_eq(cap, 64);
	ck_assert_int_eq(act_send(ACT_PID_NONE, 1, &v, sizeof(v)), -ESRCH);
	/* index beyond the table */
	ck_assert_int_eq(act_send(act__make_pid(1, cap), 1, &v, sizeof(v)),
			 -ESRCH);
	ck_assert_int_eq(act_send(act__make_pid(1, cap + 5), 1, &v, 4),
			 -ESRCH);
	ck_assert_int_eq(act_send(act__make_pid(1, UINT32_MAX), 1, &v, 4),
			 -ESRCH);
	/* inside the table, never handed out */
	ck_assert_uint_lt(hwm + 10, cap);
	ck_assert_int_eq(act_send(act__make_pid(1, hwm + 10), 1, &v, 4),
			 -ESRCH);
	ck_assert_ptr_null(lookup(act__make_pid(1, hwm + 10)));
	/* a live slot, the wrong generation */
	ck_assert_int_eq(act_send(act__make_pid(pid_gen(self) + 1,
						pid_index(self)),
				  1, &v, 4),
			 -ESRCH);
	ck_assert_int_eq(act_send(act__make_pid(0, pid_index(self)), 1, &v, 4),
			 -ESRCH);
	/* none of them reached us */
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_send_to_bad_pids)
{
	struct act_config cfg;
	int v = 0;

	/* no runtime at all */
	ck_assert_int_eq(act_send(act__make_pid(1, 0), 1, &v, sizeof(v)),
			 -ESRCH);
	act_config_init(&cfg);
	cfg.max_procs = 64;
	ck_assert_int_eq(run_main(&cfg, bad_pids_main, NULL), 0);
}
END_TEST

static void send_self_main(void *arg)
{
	const char text[] = "to myself";
	struct act_msg *m;

	(void)arg;
	ck_assert_int_eq(act_send(act_self(), 12, text, sizeof(text)), 0);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 12);
	ck_assert_uint_eq(m->from.id, act_self().id);
	ck_assert_uint_eq(m->len, sizeof(text));
	ck_assert_str_eq(m->data, text);
	act_msg_free(m);
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_send_to_self)
{
	ck_assert_int_eq(run_main(NULL, send_self_main, NULL), 0);
}
END_TEST

/* A foreign thread sees the same answers for stale and bad pids. */
struct foreign_send {
	act_pid to;
	int rc;
};

static void *foreign_send_fn(void *arg)
{
	struct foreign_send *f = arg;
	int v = 5;

	f->rc = act_send(f->to, 1, &v, sizeof(v));
	return NULL;
}

static int send_from_thread(act_pid to)
{
	struct foreign_send f = { to, 1 };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, foreign_send_fn, &f), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	return f.rc;
}

static void foreign_stale_main(void *arg)
{
	act_pid a;
	struct act_msg *m;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(wait_gone(a));
	ck_assert_int_eq(send_from_thread(a), -ESRCH);
	ck_assert_int_eq(send_from_thread(ACT_PID_NONE), -ESRCH);
	ck_assert_int_eq(send_from_thread(act_self()), 0);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->from.id, 0);
	act_msg_free(m);
}

START_TEST(test_send_stale_from_foreign_thread)
{
	ck_assert_int_eq(run_main(NULL, foreign_stale_main, NULL), 0);
}
END_TEST

static Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("pids");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_pid_format);
	tcase_add_test(tc, test_slot_reuse_bumps_generation);
	tcase_add_test(tc, test_generation_wrap_skips_zero);
	tcase_add_test(tc, test_send_to_bad_pids);
	tcase_add_test(tc, test_send_to_self);
	tcase_add_test(tc, test_send_stale_from_foreign_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("I5");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_I5_stale_envelope_dropped);
	tcase_add_test(tc, test_I5_stale_envelope_while_waiting);
	tcase_add_test(tc, test_I5_stale_envelope_reclaimed_at_stop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(proc_suite());
}
