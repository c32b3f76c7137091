/* SPDX-License-Identifier: MIT */
/*
 * test_mailbox.c - act_send / act_receive / act_receive_match and the
 * mailbox behind them (lib/proc/mailbox.h, lib/actor/message.c): order, selective
 * receive, polls, blocking and timed receives (I4), payload copies, sizes,
 * reserved tags, and freeing of messages nobody received.
 *
 * Timing: a timed receive is checked for a lower bound only (the clock
 * cannot run fast); nothing here fails because the machine is slow.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "testrt.h"

#include "../examples/util.h" /* util_now_ns */

#include "proc/mailbox.h"
#include "node/runtime.h"
#include "mem/slab.h"
#include "sched/worker.h"

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts))
		;
}

static int64_t envelopes_out(void)
{
	return act__slab_outstanding(&act__tls_worker_self()->slab) +
	       act__slab_foreign_outstanding();
}

static uint32_t msg_u32(const struct act_msg *m)
{
	uint32_t v;

	ck_assert_uint_eq(m->len, sizeof(v));
	memcpy(&v, m->data, sizeof(v));
	return v;
}

/* --- order -------------------------------------------------------------- */

#define FIFO_N 10000

static void fifo_sender(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint32_t i;

	for (i = 0; i < FIFO_N; i++)
		ck_assert_int_eq(act_send(to, 1, &i, sizeof(i)), 0);
}

static void fifo_main(void *arg)
{
	act_pid self = act_self(), s;
	struct act_msg *m;
	uint32_t i;

	(void)arg;
	s = act_spawn(fifo_sender, &self);
	ck_assert_uint_ne(s.id, 0);
	for (i = 0; i < FIFO_N; i++) {
		m = act_receive(ACT_FOREVER);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->from.id, s.id);
		ck_assert_uint_eq(msg_u32(m), i);
		act_msg_free(m);
	}
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_fifo_order_one_sender)
{
	ck_assert_int_eq(tu_run_main(NULL, fifo_main, NULL), 0);
}
END_TEST

/* --- selective receive -------------------------------------------------- */

struct want_tag {
	uint32_t tag;
	int calls;
	int wrong_ctx;
};

static bool match_tag(const struct act_msg *m, void *ctx)
{
	struct want_tag *w = ctx;

	w->calls++;
	return m->tag == w->tag;
}

static void selective_main(void *arg)
{
	struct want_tag w = { 7, 0, 0 };
	static const uint32_t rest[] = { 1, 2, 4, 5, 6, 8, 9, 10 };
	struct act_msg *m;
	uint32_t t;
	unsigned i;

	(void)arg;
	for (t = 1; t <= 10; t++)
		ck_assert_int_eq(act_send(act_self(), t, &t, sizeof(t)), 0);
	m = act_receive_match(match_tag, &w, 0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 7);
	ck_assert_uint_eq(msg_u32(m), 7);
	act_msg_free(m);
	/* the matcher saw the messages through our ctx */
	ck_assert_int_ge(w.calls, 7);

	w.tag = 3;
	w.calls = 0;
	m = act_receive_match(match_tag, &w, ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 3);
	act_msg_free(m);
	ck_assert_int_ge(w.calls, 1);

	/* no match: poll and timed wait both return NULL, order kept */
	w.tag = 77;
	ck_assert_ptr_null(act_receive_match(match_tag, &w, 0));
	ck_assert_ptr_null(act_receive_match(match_tag, &w, 1 * TU_MS));

	for (i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
		m = act_receive(0);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, rest[i]);
		ck_assert_uint_eq(msg_u32(m), rest[i]);
		act_msg_free(m);
	}
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_selective_receive_keeps_order)
{
	ck_assert_int_eq(tu_run_main(NULL, selective_main, NULL), 0);
}
END_TEST

/* A selective receive that has to wait: skipped messages stay in order. */
static void slow_sender(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint32_t t;

	for (t = 1; t <= 6; t++) {
		ck_assert_int_eq(act_send(to, t, &t, sizeof(t)), 0);
		act_yield();
	}
}

static bool match_ctx_ptr(const struct act_msg *m, void *ctx)
{
	struct want_tag *w = ctx;

	if (!w || w->tag != 5)
		return false;
	w->calls++;
	return m->tag == w->tag;
}

static void selective_wait_main(void *arg)
{
	act_pid self = act_self();
	struct want_tag w = { 5, 0, 0 };
	struct act_msg *m;
	uint32_t t;

	(void)arg;
	ck_assert_uint_ne(act_spawn(slow_sender, &self).id, 0);
	m = act_receive_match(match_ctx_ptr, &w, ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 5);
	act_msg_free(m);
	ck_assert_int_ge(w.calls, 5);
	for (t = 1; t <= 6; t++) {
		if (t == 5)
			continue;
		m = act_receive(ACT_FOREVER);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->tag, t);
		act_msg_free(m);
	}
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_selective_receive_waits)
{
	ck_assert_int_eq(tu_run_main(NULL, selective_wait_main, NULL), 0);
}
END_TEST

/* --- polls and blocking ------------------------------------------------- */

static void poll_main(void *arg)
{
	struct act__worker *w = act__tls_worker_self();
	uint64_t parks = atomic_load(&w->n_parks),
		 switches = atomic_load(&w->n_switches);
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++)
		ck_assert_ptr_null(act_receive(0));
	ck_assert_ptr_null(act_receive_match(NULL, NULL, 0));
	/* never left the CPU: still on this worker (with more than one, a
	 * switch could have moved us), no park, no switch to the worker */
	ck_assert_ptr_eq(act__tls_worker_self(), w);
	ck_assert_uint_eq(atomic_load(&w->n_parks), parks);
	ck_assert_uint_eq(atomic_load(&w->n_switches), switches);
}

START_TEST(test_poll_empty_returns_null)
{
	ck_assert_int_eq(tu_run_main(NULL, poll_main, NULL), 0);
	/* outside a process a receive returns NULL */
	ck_assert_ptr_null(act_receive(0));
	ck_assert_ptr_null(act_receive(ACT_FOREVER));
}
END_TEST

struct blocker_probe {
	act_pid parent;
	bool parked; /* the child saw the parent wait before it sent */
};

/* On one worker it runs once the parent blocks; on more it may run at
 * once, elsewhere: it waits (bounded) until the parent waits. */
static void probe_child(void *arg)
{
	struct blocker_probe *b = arg;
	uint32_t v = 42;

	b->parked = tu_wait_waiting(b->parent);
	act_send(b->parent, 9, &v, sizeof(v));
}

static void forever_main(void *arg)
{
	struct blocker_probe b = { act_self(), false };
	struct act_msg *m;
	act_pid kid;

	(void)arg;
	kid = act_spawn(probe_child, &b);
	ck_assert_uint_ne(kid.id, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 9);
	ck_assert_uint_eq(m->from.id, kid.id);
	ck_assert_uint_eq(msg_u32(m), 42);
	act_msg_free(m);
	/* we really were parked, not spinning, until the message came */
	ck_assert(b.parked);
}

START_TEST(test_forever_blocks_until_message)
{
	ck_assert_int_eq(tu_run_main(NULL, forever_main, NULL), 0);
}
END_TEST

/*
 * The last message of a queue: from this worker it stays linked as the
 * queue's tail, kept (no exchange); from anywhere else (another worker,
 * a foreign thread) it leaves with the stub put back behind it, so that
 * the next such sender links into the slot's line (mailbox.h).
 */
static void *foreign_send_fn(void *arg)
{
	act_pid *to = arg;
	uint32_t v = 7;

	return (void *)(intptr_t)act_send(*to, 2, &v, sizeof(v));
}

static uintptr_t mbox_tail(void)
{
	return (uintptr_t)atomic_load(&tu_self_proc()->mbox.tail);
}

static void kept_main(void *arg)
{
	struct act__proc *p = tu_self_proc();
	act_pid self = act_self();
	int64_t out = envelopes_out();
	struct act_msg *m;
	uint32_t v = 1;
	pthread_t t;
	void *rc;

	(void)arg;
	ck_assert_int_eq(act_send(self, 1, &v, sizeof(v)), 0);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(mbox_tail(), (uintptr_t)&act__container_of(
					       m, struct act__envelope, msg)
						       ->node |
					       ACT_MBOX_KEPT);
	act_msg_free(m);
	/* the sender is done before the receive: nobody is mid-push */
	ck_assert_int_eq(pthread_create(&t, NULL, foreign_send_fn, &self), 0);
	ck_assert_int_eq(pthread_join(t, &rc), 0);
	ck_assert_int_eq((int)(intptr_t)rc, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 2);
	ck_assert_uint_eq(msg_u32(m), 7);
	ck_assert_uint_eq(mbox_tail(), (uintptr_t)&p->mbox.stub);
	act_msg_free(m);
	ck_assert_ptr_null(act_receive(0));
	/* the kept one of the first receive was freed when the queue
	 * moved past it */
	ck_assert_int_eq(envelopes_out(), out);
}

START_TEST(test_last_message_kept_only_from_this_worker)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, kept_main, NULL), 0);
}
END_TEST
/*
 * Symmetric transfer (act__worker_switch): on one worker, a receive that
 * blocks while a new child is queued switches straight to the child, and
 * the child's first instruction (proc_entry) settles the parent: parked,
 * WAITING, before any code of the child runs. Without that settle the
 * parent would stay RUNNING, and the child's message never wake it.
 */
struct direct_probe {
	act_pid parent;
	bool waiting;	 /* the parent was WAITING at the child's start */
	uint64_t direct; /* the worker's n_direct then */
};

static void direct_child(void *arg)
{
	struct direct_probe *b = arg;
	struct act__proc *q = tu_lookup(b->parent);
	uint32_t v = 7;

	b->waiting = q && act__ps(atomic_load(&q->state)) == ACT_PS_WAITING;
	b->direct = atomic_load(&act__tls_worker_self()->n_direct);
	/* here, not in the parent: unsettled, the parent never wakes */
	ck_assert_msg(b->waiting, "the child ran before the parent was "
				  "parked (the switch to it was not settled)");
	ck_assert_int_eq(act_send(b->parent, 3, &v, sizeof(v)), 0);
}

static void direct_main(void *arg)
{
	struct direct_probe b = { act_self(), false, 0 };
	uint64_t before = atomic_load(&act__tls_worker_self()->n_direct);
	struct act_msg *m;

	(void)arg;
	ck_assert_uint_ne(act_spawn(direct_child, &b).id, 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(msg_u32(m), 7);
	act_msg_free(m);
	ck_assert_uint_gt(b.direct, before);
}

START_TEST(test_direct_switch_settles)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, direct_main, NULL), 0);
}
END_TEST

/* --- timed receives ----------------------------------------------------- */

static void timeout_main(void *arg)
{
	int64_t t0, t1;

	(void)arg;
	t0 = util_now_ns();
	ck_assert_ptr_null(act_receive(20 * TU_MS));
	t1 = util_now_ns();
	ck_assert_int_ge(t1 - t0, 20 * TU_MS);
	/* and once more: the first timer left nothing behind */
	t0 = util_now_ns();
	ck_assert_ptr_null(act_receive_match(NULL, NULL, 5 * TU_MS));
	ck_assert_int_ge(util_now_ns() - t0, 5 * TU_MS);
}

START_TEST(test_timeout_without_message)
{
	ck_assert_int_eq(tu_run_main(NULL, timeout_main, NULL), 0);
}
END_TEST

struct delayed_send {
	act_pid to;
	int64_t delay;
	uint32_t tag;
	int rc;
	/* nonzero: then wait until the reactor holds no timer due by then */
	int64_t drop_due_by;
};

static void *delayed_send_fn(void *arg)
{
	struct delayed_send *d = arg;
	uint32_t v = d->tag;

	sleep_ns(d->delay);
	/* no bound: a timer that never goes is the library's hang, and the
	 * test's timeout reports it */
	while (d->drop_due_by && tu_timer_due_by(d->drop_due_by))
		sleep_ns(1 * TU_MS);
	d->rc = act_send(d->to, d->tag, &v, sizeof(v));
	return NULL;
}

static void timed_msg_main(void *arg)
{
	struct delayed_send d = { act_self(), 10 * TU_MS, 31, 1, 0 };
	struct act_msg *m;
	pthread_t t;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, delayed_send_fn, &d), 0);
	/* generous: only a broken wake makes this time out */
	m = act_receive(10000 * TU_MS);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(d.rc, 0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 31);
	ck_assert_uint_eq(m->from.id, 0); /* not from a process */
	act_msg_free(m);
}

START_TEST(test_timeout_with_message)
{
	ck_assert_int_eq(tu_run_main(NULL, timed_msg_main, NULL), 0);
}
END_TEST

/*
 * I4: a receive with a 30 ms timeout gets its message early; the next
 * receive waits forever. The first receive's timer comes due while the
 * second waits and must not end it: the foreign sender waits 100 ms and
 * until the reactor has dropped that timer, then sends.
 */
static void early_sender(void *arg)
{
	act_pid to = *(act_pid *)arg;
	uint32_t v = 1;

	act_send(to, 1, &v, sizeof(v));
}

static void late_timer_main(void *arg)
{
	act_pid self = act_self();
	struct delayed_send d = { self, 100 * TU_MS, 2, 1, 0 };
	struct act_msg *m;
	pthread_t t;

	(void)arg;
	ck_assert_uint_ne(act_spawn(early_sender, &self).id, 0);
	m = act_receive(30 * TU_MS);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 1);
	act_msg_free(m);
	d.drop_due_by = util_now_ns() + 30 * TU_MS;
	ck_assert_int_eq(pthread_create(&t, NULL, delayed_send_fn, &d), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(d.rc, 0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 2);
	act_msg_free(m);
}

START_TEST(test_I4_late_timer_does_not_end_next_receive)
{
	ck_assert_int_eq(tu_run_main(NULL, late_timer_main, NULL), 0);
}
END_TEST

/* The same with a finite second receive: it still gets the message. */
static void late_timer_timed_main(void *arg)
{
	act_pid self = act_self();
	struct delayed_send d = { self, 50 * TU_MS, 2, 1, 0 };
	struct act_msg *m;
	pthread_t t;

	(void)arg;
	ck_assert_uint_ne(act_spawn(early_sender, &self).id, 0);
	m = act_receive(30 * TU_MS);
	ck_assert_ptr_nonnull(m);
	act_msg_free(m);
	d.drop_due_by = util_now_ns() + 30 * TU_MS;
	ck_assert_int_eq(pthread_create(&t, NULL, delayed_send_fn, &d), 0);
	m = act_receive(20000 * TU_MS);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 2);
	act_msg_free(m);
}

START_TEST(test_I4_late_timer_does_not_end_next_timed_receive)
{
	ck_assert_int_eq(tu_run_main(NULL, late_timer_timed_main, NULL), 0);
}
END_TEST

/* --- payloads ----------------------------------------------------------- */

static void payload_copy_main(void *arg)
{
	static const size_t sizes[] = { 1,  7,	 8,    9,    16,    63,	  64,
					65, 100, 1000, 4096, 16384, 20000 };
	unsigned char buf[20000], want[20000];
	struct act_msg *m;
	unsigned i;
	size_t n;

	(void)arg;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = sizes[i];
		for (size_t j = 0; j < n; j++)
			want[j] = buf[j] = (unsigned char)(j * 31 + i + 1);
		ck_assert_int_eq(act_send(act_self(), 1, buf, n), 0);
		memset(buf, 0xee, n); /* the sender reuses its buffer */
		m = act_receive(0);
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->len, n);
		ck_assert_ptr_nonnull(m->data);
		ck_assert_ptr_ne(m->data, buf);
		ck_assert_uint_eq((uintptr_t)m->data % 16, 0);
		ck_assert_int_eq(memcmp(m->data, want, n), 0);
		act_msg_free(m);
	}
}

START_TEST(test_payload_is_copied)
{
	ck_assert_int_eq(tu_run_main(NULL, payload_copy_main, NULL), 0);
}
END_TEST

static void empty_msg_main(void *arg)
{
	struct act_msg *m;
	int v = 1;

	(void)arg;
	ck_assert_int_eq(act_send(act_self(), 4, NULL, 0), 0);
	ck_assert_int_eq(act_send(act_self(), 5, &v, 0), 0);
	ck_assert_int_eq(act_send(act_self(), 6, NULL, 1), -EINVAL);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 4);
	ck_assert_uint_eq(m->len, 0);
	ck_assert_ptr_null(m->data);
	act_msg_free(m);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, 5);
	ck_assert_uint_eq(m->len, 0);
	ck_assert_ptr_null(m->data);
	act_msg_free(m);
	ck_assert_ptr_null(act_receive(0));
	act_msg_free(NULL); /* harmless */
}

START_TEST(test_empty_message)
{
	ck_assert_int_eq(tu_run_main(NULL, empty_msg_main, NULL), 0);
}
END_TEST

static void check_big(size_t len)
{
	unsigned char *buf = malloc(len);
	struct act_msg *m;
	size_t i;

	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < len; i += 4093)
		buf[i] = (unsigned char)(i >> 12);
	buf[len - 1] = 0x5a;
	ck_assert_int_eq(act_send(act_self(), 3, buf, len), 0);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->len, len);
	ck_assert_uint_eq((uintptr_t)m->data % 16, 0);
	ck_assert_int_eq(memcmp(m->data, buf, len), 0);
	act_msg_free(m);
	free(buf);
}

static void big_msg_main(void *arg)
{
	char small[16] = "x";

	(void)arg;
	check_big((size_t)1 << 20);
	check_big(ACT_MSG_MAX);
	/* too big: refused before the payload is read */
	ck_assert_int_eq(act_send(act_self(), 3, small, ACT_MSG_MAX + 1),
			 -EMSGSIZE);
	ck_assert_int_eq(act_send(act_self(), 3, small, SIZE_MAX), -EMSGSIZE);
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_large_messages)
{
	ck_assert_int_eq(tu_run_main(NULL, big_msg_main, NULL), 0);
}
END_TEST

static void reserved_tag_main(void *arg)
{
	int v = 1;

	(void)arg;
	ck_assert_int_eq(act_send(act_self(), ACT_TAG_RESERVED, &v, 4),
			 -EINVAL);
	ck_assert_int_eq(act_send(act_self(), ACT_TAG_EXIT, &v, 4), -EINVAL);
	ck_assert_int_eq(act_send(act_self(), ACT_TAG_DOWN, &v, 4), -EINVAL);
	ck_assert_int_eq(act_send(act_self(), UINT32_MAX, NULL, 0), -EINVAL);
	ck_assert_ptr_null(act_receive(0));
	/* the last user tag works */
	ck_assert_int_eq(act_send(act_self(), ACT_TAG_RESERVED - 1, &v, 4), 0);
	act_msg_free(act_receive(0));
}

START_TEST(test_reserved_tags_refused)
{
	ck_assert_int_eq(tu_run_main(NULL, reserved_tag_main, NULL), 0);
}
END_TEST

/* --- messages nobody received ------------------------------------------- */

static void skip_some_and_exit(void *arg)
{
	struct want_tag w = { 1000, 0, 0 };

	(void)arg;
	/* wait for the parent's messages, moving them to the save queue */
	while (!act_receive_match(match_tag, &w, 0) && w.calls < 10)
		act_yield();
}

static void never_receives(void *arg)
{
	(void)arg;
	act_yield();
}

static void unreceived_main(void *arg)
{
	char *big = calloc(1, 100000);
	act_pid a, b;
	int64_t before;
	uint32_t i;

	(void)arg;
	ck_assert_ptr_nonnull(big);
	before = envelopes_out();
	a = act_spawn(never_receives, NULL);
	b = act_spawn(skip_some_and_exit, NULL);
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(act_send(a, i, big, i * 50), 0);
		ck_assert_int_eq(act_send(b, i, big, i * 50), 0);
	}
	ck_assert_int_eq(act_send(a, 1, big, 100000), 0); /* malloc'd */
	ck_assert_int_eq(act_send(b, 1, big, 100000), 0);
	ck_assert_int_gt(envelopes_out(), before);
	ck_assert(tu_wait_gone(a));
	ck_assert(tu_wait_gone(b));
	ck_assert_int_eq(envelopes_out(), before);
	free(big);
	/* and some left in our own mailbox when we return */
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(act_send(act_self(), i, &i, sizeof(i)), 0);
}

/*
 * One worker: a and b must be alive while we send, and they are, for
 * they run only once we wait; and envelopes_out() counts this worker's
 * slab, which is exact only while no other worker holds back frees for
 * it (slab.h: they go back in batches, when that worker goes idle).
 * At any count, tu_run_main's leak check at the stop still holds.
 */
START_TEST(test_unreceived_messages_freed)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, unreceived_main, NULL), 0);
}
END_TEST

/* ---- a message is freed once -------------------------------------------- */

/*
 * A second act_msg_free of one message used to put its envelope on the
 * free list twice: a later message lost, another delivered twice, then a
 * hang at stop. Now it stops the program with one line, whichever thread
 * frees (the receiver, or another thread and then the receiver).
 */
enum { DF_RECEIVER, DF_THREAD_THEN_RECEIVER, DF_THREAD_TWICE };

static void *df_free_from_thread(void *m)
{
	act_msg_free(m);
	return NULL;
}

static void df_main(void *arg)
{
	int how = (int)(intptr_t)arg;
	struct act_msg *m;
	pthread_t t;

	ck_assert_int_eq(act_send(act_self(), 1, "x", 1), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	if (how == DF_RECEIVER) {
		act_msg_free(m);
	} else {
		ck_assert_int_eq(
			pthread_create(&t, NULL, df_free_from_thread, m), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
	if (how == DF_THREAD_TWICE) { /* the second free, another thread's */
		ck_assert_int_eq(
			pthread_create(&t, NULL, df_free_from_thread, m), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
	act_msg_free(m); /* the second (or third) free */
	_exit(0);	 /* not reached */
}

static void df_child(void *arg)
{
	struct act_config cfg = tu_with_workers(1);

	act_main(&cfg, df_main, arg);
	_exit(0);
}

START_TEST(double_free_detected)
{
	struct tu_child c;

	tu_run_child(df_child, (void *)(intptr_t)_i, &c);
	ck_assert_msg(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT,
		      "case %d: status %#x, stderr: %s", _i, c.status, c.err);
	ck_assert_ptr_nonnull(strstr(c.err, "was freed already"));
	tu_drop_lines(c.err, TU_URING_OFF_LINE); /* a fallback run's */
	ck_assert_int_eq(tu_str_lines(c.err), 1);
}
END_TEST

/* ---- a dead process's mailbox is freed whole ----------------------------- */

enum { MP_N = 100, MP_STOPPED = 40 }; /* messages; the one mid-push */

struct mp_drain {
	struct act__proc *p;
	struct act__slab *slab;
};

static _Atomic bool mp_drained;

static void *mp_drain_thread(void *arg)
{
	struct mp_drain *d = arg;

	act__mailbox_drain(d->p, d->slab);
	atomic_store(&mp_drained, true);
	return NULL;
}

static unsigned mp_freed(struct act__envelope **e)
{
	unsigned i, n = 0;

	for (i = 0; i < MP_N; i++)
		n += atomic_load(&e[i]->state) == ACT_ENV_FREE;
	return n;
}

/*
 * A sender stopped between its push's exchange and its link (preempted,
 * on a busy machine) hides its message and every one pushed after it.
 * The reap's drain used to end there and leave them all until the
 * slot's next occupant popped past them: a mailbox flood of 10,000 kept
 * a dead receiver's messages and made the next round carve as many
 * again. Now the drain waits for the link. Arranged: message MP_STOPPED
 * is pushed by hand without its link, the rest behind it; the link is
 * made once the drain has freed every message before the one the break
 * follows.
 */
START_TEST(drain_waits_for_a_sender_mid_push)
{
	struct act__proc *p = aligned_alloc(ACT_CACHELINE, sizeof(*p));
	struct act__envelope *e[MP_N];
	struct act__mpsc_node *prev = NULL;
	struct act__slab slab;
	struct mp_drain d = { p, &slab };
	pthread_t t;
	unsigned i;

	ck_assert_ptr_nonnull(p);
	memset(p, 0, sizeof(*p));
	act__mpsc_init(&p->mbox);
	act__slab_init(&slab, 0);
	for (i = 0; i < MP_N; i++) {
		e[i] = act__slab_alloc(&slab, 8);
		ck_assert_ptr_nonnull(e[i]);
		atomic_store(&e[i]->state, ACT_ENV_SENT);
		if (i != MP_STOPPED) {
			act__mpsc_push(&p->mbox, &e[i]->node);
			continue;
		}
		/* act__mpsc_push's first two steps, not its link */
		atomic_store(&e[i]->node.next, NULL);
		prev = atomic_exchange(&p->mbox.head, &e[i]->node);
	}
	ck_assert_int_eq(act__slab_outstanding(&slab), MP_N);
	atomic_store(&mp_drained, false);
	ck_assert_int_eq(pthread_create(&t, NULL, mp_drain_thread, &d), 0);
	/* at the break: all before it freed but the last, which stays
	 * kept in the queue (mailbox.h) while nothing follows it */
	for (i = 0;
	     !atomic_load(&mp_drained) &&
	     (mp_freed(e) < MP_STOPPED - 1 ||
	      (uintptr_t)atomic_load(&p->mbox.tail) !=
		      ((uintptr_t)&e[MP_STOPPED - 1]->node | ACT_MBOX_KEPT));
	     i++) {
		ck_assert_msg(i < 600000, "the drain never reached the break");
		sleep_ns(100000);
	}
	/* the old drain returned in microseconds from here */
	sleep_ns(20000000);
	ck_assert_msg(!atomic_load(&mp_drained),
		      "the drain returned with messages behind the break");
	/* release: pairs with the drain's acquire load of next (the
	 * link act__mpsc_push would have made) */
	atomic_store_explicit(&prev->next, &e[MP_STOPPED]->node,
			      memory_order_release);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(mp_freed(e), MP_N);
	ck_assert_int_eq(act__slab_outstanding(&slab), 0);
	act__slab_destroy(&slab);
	free(p);
}
END_TEST

static Suite *mailbox_suite(void)
{
	Suite *s = suite_create("mailbox");
	TCase *tc = tcase_create("order");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_fifo_order_one_sender);
	tcase_add_test(tc, test_selective_receive_keeps_order);
	tcase_add_test(tc, test_selective_receive_waits);
	suite_add_tcase(s, tc);

	tc = tcase_create("waiting");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_poll_empty_returns_null);
	tcase_add_test(tc, test_forever_blocks_until_message);
	tcase_add_test(tc, test_direct_switch_settles);
	tcase_add_test(tc, test_last_message_kept_only_from_this_worker);
	tcase_add_test(tc, test_timeout_without_message);
	tcase_add_test(tc, test_timeout_with_message);
	tcase_add_test(tc, test_I4_late_timer_does_not_end_next_receive);
	tcase_add_test(tc, test_I4_late_timer_does_not_end_next_timed_receive);
	suite_add_tcase(s, tc);

	tc = tcase_create("payload");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_payload_is_copied);
	tcase_add_test(tc, test_empty_message);
	tcase_add_test(tc, test_large_messages);
	tcase_add_test(tc, test_reserved_tags_refused);
	tcase_add_test(tc, test_unreceived_messages_freed);
	tcase_add_test(tc, drain_waits_for_a_sender_mid_push);
	tcase_add_loop_test(tc, double_free_detected, DF_RECEIVER,
			    DF_THREAD_TWICE + 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(mailbox_suite());
}
