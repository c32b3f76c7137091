/* SPDX-License-Identifier: MIT */
/*
 * test_proc.c - process slots and pids (lib/proc/proc.h): the pid format,
 * reuse of a slot with generation + 1, stale pids (I5) and the pids that
 * never named a process.
 *
 * One worker: a spawned process runs only once its parent blocks or
 * yields, so the order of events below is fixed, not timed.
 */
#include <pthread.h>
#include <stdint.h>

#include "testrt.h"

#include "proc/mailbox.h"
#include "node/runtime.h"
#include "mem/slab.h"
#include "sched/wake.h"
#include "sched/worker.h"

#define TAG_REAL 2
#define TAG_STALE 99

static uint32_t pid_index(act_pid p)
{
	return act__proc_pid_index(&act__rt_current->procs, p);
}

static uint64_t pid_gen(act_pid p)
{
	return act__proc_pid_gen(&act__rt_current->procs, p);
}

static act_pid make_pid(uint64_t gen, uint32_t index)
{
	return act__proc_make_pid(&act__rt_current->procs, gen, index);
}

static void noop(void *arg)
{
	(void)arg;
}

static void block_forever(void *arg)
{
	(void)arg;
	act_receive(ACT_FOREVER);
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
	p = tu_lookup(self);
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
	/* the slot of that index, whether kid has exited yet or not (on
	 * another worker it may have) */
	ck_assert_uint_eq(act__rt_current->procs.slots[pid_index(kid)].index,
			  pid_index(kid));
	ck_assert(tu_wait_gone(kid));
	ck_assert_int_eq(c.ran, 1);
	/* the child sees the pid its parent was given */
	ck_assert_uint_eq(c.seen_self.id, kid.id);
}

START_TEST(test_pid_format)
{
	/* outside a runtime there is no process */
	ck_assert_uint_eq(act_self().id, 0);
	ck_assert_int_eq(tu_run_main(NULL, pid_format_main, NULL), 0);
	ck_assert_uint_eq(act_self().id, 0);
}
END_TEST

/* --- act_pid_format ------------------------------------------------------- */

static char pid_text_self[ACT_PID_STRLEN];
static act_pid pid_text_pid;

/* pid as "<0.INDEX.GEN>" from the table's own split */
static void expect_text(act_pid pid)
{
	char want[64], got[ACT_PID_STRLEN];
	int n = snprintf(want, sizeof(want), "<0.%u.%llu>", pid_index(pid),
			 (unsigned long long)pid_gen(pid));

	ck_assert_int_eq(act_pid_format(pid, got, sizeof(got)), n);
	ck_assert_str_eq(got, want);
}

static void pid_text_main(void *arg)
{
	struct act__ptable *t = &act__rt_current->procs;
	act_pid self = act_self(), wide, top = { UINT64_MAX };
	char s[ACT_PID_STRLEN];
	int n;

	(void)arg;
	/* a small table: a split other than the default's 23 bits */
	ck_assert_uint_lt(t->idx_bits, 23);
	expect_text(self);
	wide = make_pid(((uint64_t)1 << 40) + 3, pid_index(self));
	expect_text(wide);
	expect_text(make_pid(1, (uint32_t)t->idx_mask));
	ck_assert_int_lt(act_pid_format(top, s, sizeof(s)), ACT_PID_STRLEN);
	/* snprintf's rules: the whole length, whatever fits, a NUL */
	n = act_pid_format(self, s, sizeof(s));
	ck_assert_int_eq(n, (int)strlen(s));
	ck_assert_int_eq(act_pid_format(self, NULL, 0), n);
	memset(s, 'x', sizeof(s));
	ck_assert_int_eq(act_pid_format(self, s, 4), n);
	ck_assert_str_eq(s, "<0.");
	memset(s, 'x', sizeof(s));
	act_pid_format(self, s, 1);
	ck_assert_str_eq(s, "");
	ck_assert_int_eq(s[1], 'x'); /* nothing past len */
	ck_assert_int_eq(act_pid_format(ACT_PID_NONE, s, sizeof(s)), 6);
	ck_assert_str_eq(s, "<none>");
	act_pid_format(self, pid_text_self, sizeof(pid_text_self));
	pid_text_pid = self;
}

START_TEST(test_pid_text)
{
	struct act_config cfg = tu_with_workers(1);
	const char *fork = getenv("CK_FORK");
	char s[ACT_PID_STRLEN];

	/* no runtime ran yet in this test's process: 32 index bits */
	if (!fork || strcmp(fork, "no")) {
		act_pid_format((act_pid){ ((uint64_t)7 << 32) | 5 }, s,
			       sizeof(s));
		ck_assert_str_eq(s, "<0.5.7>");
	}
	cfg.max_procs = 1000;
	ck_assert_int_eq(tu_run_main(&cfg, pid_text_main, NULL), 0);
	/* after the stop: the split of the runtime that ran last */
	act_pid_format(pid_text_pid, s, sizeof(s));
	ck_assert_str_eq(s, pid_text_self);
}
END_TEST

/* --- slot reuse ----------------------------------------------------------- */

struct receiver {
	uint32_t first_tag; /* tag of the first message it received */
	int first_len;
	int poll_after; /* 1: a poll after it returned a message */
	int got;	/* messages received */
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
	ck_assert(tu_wait_gone(a));
	/* gone but not yet reused: still stale */
	ck_assert_ptr_null(tu_lookup(a));
	ck_assert_int_eq(act_send(a, 1, &v, sizeof(v)), -ESRCH);

	b = act_spawn(receiver_fn, &r);
	ck_assert_uint_ne(b.id, 0);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert_uint_eq(pid_gen(b), pid_gen(a) + 1);
	ck_assert_ptr_null(tu_lookup(a));
	ck_assert_ptr_eq(tu_lookup(b),
			 &act__rt_current->procs.slots[pid_index(a)]);
	ck_assert_int_eq(act_send(a, TAG_STALE, &v, sizeof(v)), -ESRCH);
	ck_assert_int_eq(act_send(b, TAG_REAL, &v, sizeof(v)), 0);
	ck_assert(tu_wait_gone(b));
	ck_assert_int_eq(r.got, 1);
	ck_assert_uint_eq(r.first_tag, TAG_REAL);
	ck_assert_int_eq(r.poll_after, 0);
}

/* One worker: a freed slot goes to the cache of the worker that reaped
 * it, so only there is the next spawn sure to get it back. */
START_TEST(test_slot_reuse_bumps_generation)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, slot_reuse_main, NULL), 0);
}
END_TEST

/*
 * A slot whose generation reaches the largest a pid holds is retired:
 * no later occupant, so no stale pid of it, whatever its generation, can
 * reach one (I5 for the life of the runtime). One worker: the slot must
 * come back to the spawner's own cache.
 */
static void gen_retire_main(void *arg)
{
	struct act__ptable *t = &act__rt_current->procs;
	struct act__proc *slot;
	act_pid a, b, c;

	(void)arg;
	a = act_spawn(noop, NULL);
	ck_assert(tu_wait_gone(a));
	slot = &t->slots[pid_index(a)];
	atomic_store(&slot->gen, t->gen_max);
	b = act_spawn(noop, NULL);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert_uint_eq(pid_gen(b), t->gen_max);
	ck_assert(tu_wait_gone(b));
	ck_assert_uint_eq(atomic_load(&t->retired), 1);
	ck_assert_uint_gt(atomic_load(&slot->gen), t->gen_max);
	c = act_spawn(noop, NULL);
	ck_assert_uint_ne(c.id, 0);
	ck_assert_uint_ne(pid_index(c), pid_index(a));
	ck_assert_ptr_null(tu_lookup(a));
	ck_assert_ptr_null(tu_lookup(b));
	/* no pid at all names the retired slot */
	ck_assert_ptr_null(tu_lookup(make_pid(1, pid_index(a))));
	ck_assert_ptr_null(tu_lookup(make_pid(t->gen_max, pid_index(a))));
	ck_assert(tu_wait_gone(c));
}

START_TEST(test_generation_exhausted_retires_slot)
{
	struct act_config cfg = tu_with_workers(1);

	/* the retired slot is out of use, not leaked (tu_run_main's check) */
	ck_assert_int_eq(tu_run_main(&cfg, gen_retire_main, NULL), 0);
}
END_TEST

/*
 * Generations do not wrap at 32 bits: the default table's pid keeps 40 of
 * them (bit 63 marks a remote pid), so the occupant of generation
 * 2^32 + 5 is not reached by the pid of generation 5 of its slot (with
 * 32-bit generations the two were the same pid, 8 minutes apart on a
 * busy slot).
 */
static void gen_wide_main(void *arg)
{
	struct act__ptable *t = &act__rt_current->procs;
	const uint64_t g = ((uint64_t)1 << 32) + 5;
	struct act__proc *slot;
	struct act_msg *m;
	act_pid a, b, alias;
	int v = 7;

	(void)arg;
	ck_assert_uint_eq(t->idx_bits, 23);
	ck_assert_uint_eq(t->gen_max, ((uint64_t)1 << 40) - 1);
	a = act_spawn(noop, NULL);
	ck_assert(tu_wait_gone(a));
	slot = &t->slots[pid_index(a)];
	atomic_store(&slot->gen, g);
	b = act_spawn(block_forever, NULL);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert_uint_eq(pid_gen(b), g);
	ck_assert_ptr_eq(tu_lookup(b), slot);
	alias = make_pid(5, pid_index(a));
	ck_assert_ptr_null(tu_lookup(alias));
	ck_assert_int_eq(act_send(alias, 1, &v, sizeof(v)), -ESRCH);
	ck_assert_int_eq(act_kill(alias, ACT_EXIT_KILL), -ESRCH);
	ck_assert_int_eq(act_monitor(alias) != 0, 1); /* DOWN, noproc */
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	ck_assert_int_eq(((struct act_exit_info *)m->data)->reason,
			 ACT_EXIT_NOPROC);
	act_msg_free(m);
	ck_assert_ptr_eq(tu_lookup(b), slot); /* b untouched */
	ck_assert_int_eq(act_kill(b, ACT_EXIT_KILL), 0);
	ck_assert(tu_wait_gone(b));
}

START_TEST(test_generation_past_32_bits)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, gen_wide_main, NULL), 0);
}
END_TEST

/* --- I5: a sender that looked the old pid up before the slot was reused -- */

/* Build the envelope that such a sender would have pushed. */
static struct act__envelope *stale_envelope(act_pid old_to)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__envelope *e = act__slab_alloc(&w->slab, 8);
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
	return act__slab_outstanding(&act__tls_worker_self()->slab) +
	       act__slab_foreign_outstanding();
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
	ck_assert(tu_wait_gone(a));
	b = act_spawn(receiver_fn, &r);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	before = envelopes_out();
	act__mailbox_push(tu_lookup(b), stale_envelope(a));
	ck_assert_int_eq(envelopes_out(), before + 1);
	ck_assert_int_eq(act_send(b, TAG_REAL, &v, sizeof(v)), 0);
	ck_assert(tu_wait_gone(b));
	ck_assert_int_eq(r.got, 1);
	ck_assert_uint_eq(r.first_tag, TAG_REAL);
	ck_assert_int_eq(r.first_len, (int)sizeof(v));
	ck_assert_int_eq(r.poll_after, 0);
	/* the stale envelope was freed, not leaked */
	ck_assert_int_eq(envelopes_out(), before);
}

/* One worker: the slot must be reused (as above). */
START_TEST(test_I5_stale_envelope_dropped)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, stale_queued_main, NULL), 0);
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
	ck_assert(tu_wait_gone(a));
	b = act_spawn(receiver_fn, &r);
	ck_assert_uint_eq(pid_index(b), pid_index(a));
	ck_assert(tu_wait_waiting(b));
	pb = tu_lookup(b);
	before = envelopes_out();
	act__mailbox_push(pb, stale_envelope(a));
	ck_assert(act__wake(act__tls_worker_self(), pb, 0));
	/* let b run: it must drop the envelope and wait again; dropped, it
	 * stays as its mailbox's kept envelope, released, until the next
	 * message moves the queue past it (mailbox.h) */
	for (i = 0;
	     i < 100 && act__ps(atomic_load(&pb->state)) != ACT_PS_WAITING; i++)
		act_yield();
	ck_assert(tu_wait_waiting(b));
	ck_assert_int_eq(r.got, 0);
	ck_assert_int_eq(envelopes_out(), before + 1);
	ck_assert(act__mailbox_kept(
		pb, act__container_of(
			    (struct act__mpsc_node *)((uintptr_t)atomic_load(
							      &pb->mbox.tail) &
						      ~ACT_MBOX_KEPT),
			    struct act__envelope, node)));
	ck_assert_int_eq(act_send(b, TAG_REAL, &v, sizeof(v)), 0);
	ck_assert(tu_wait_gone(b));
	ck_assert_int_eq(r.got, 1);
	ck_assert_uint_eq(r.first_tag, TAG_REAL);
	/* the stale envelope was freed, not leaked, and the real one too */
	ck_assert_int_eq(envelopes_out(), before);
}

START_TEST(test_I5_stale_envelope_while_waiting)
{
	struct act_config cfg = tu_with_workers(1); /* the slot reused */

	ck_assert_int_eq(tu_run_main(&cfg, stale_while_waiting_main, NULL), 0);
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
	ck_assert(tu_wait_gone(a));
	b = act_spawn(blocked_forever, NULL);
	ck_assert(tu_wait_waiting(b));
	act__mailbox_push(tu_lookup(b), stale_envelope(a));
}

START_TEST(test_I5_stale_envelope_reclaimed_at_stop)
{
	ck_assert_int_eq(tu_run_main(NULL, stale_at_stop_main, NULL), 0);
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
	/* 64 alive, and the spare of proc.h's act__proc_table_size */
	ck_assert_uint_eq(
		cap,
		act__proc_table_size(64, (uint32_t)act_workers(),
				     (uint32_t)act__rt_current->procs.nhomes));
	ck_assert_uint_eq(act__rt_current->procs.max_alive, 64);
	ck_assert_int_eq(act_send(ACT_PID_NONE, 1, &v, sizeof(v)), -ESRCH);
	/* the largest index a pid can name, beyond every slot used */
	ck_assert_int_eq(
		act_send(make_pid(1, (uint32_t)act__rt_current->procs.idx_mask),
			 1, &v, sizeof(v)),
		-ESRCH);
	ck_assert_int_eq(act_send(make_pid(1, cap - 1), 1, &v, 4), -ESRCH);
	/* all ones */
	ck_assert_int_eq(act_send((act_pid){ UINT64_MAX }, 1, &v, 4), -ESRCH);
	/* inside the table, never handed out */
	ck_assert_uint_lt(hwm + 10, cap);
	ck_assert_int_eq(act_send(make_pid(1, hwm + 10), 1, &v, 4), -ESRCH);
	ck_assert_ptr_null(tu_lookup(make_pid(1, hwm + 10)));
	/* a live slot, the wrong generation */
	ck_assert_int_eq(act_send(make_pid(pid_gen(self) + 1, pid_index(self)),
				  1, &v, 4),
			 -ESRCH);
	ck_assert_int_eq(act_send(make_pid(0, pid_index(self)), 1, &v, 4),
			 -ESRCH);
	/* none of them reached us */
	ck_assert_ptr_null(act_receive(0));
}

START_TEST(test_send_to_bad_pids)
{
	struct act_config cfg;
	int v = 0;

	/* no runtime at all */
	ck_assert_int_eq(act_send((act_pid){ (uint64_t)1 << 32 }, 1, &v,
				  sizeof(v)),
			 -ESRCH);
	act_config_init(&cfg);
	cfg.max_procs = 64;
	ck_assert_int_eq(tu_run_main(&cfg, bad_pids_main, NULL), 0);
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
	ck_assert_int_eq(tu_run_main(NULL, send_self_main, NULL), 0);
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
	ck_assert(tu_wait_gone(a));
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
	ck_assert_int_eq(tu_run_main(NULL, foreign_stale_main, NULL), 0);
}
END_TEST

/* --- the limit counts the living, not the slots in reach ---------------- */

/*
 * max_procs processes may be alive whichever worker holds the free slots:
 * with 2 workers and max_procs 100, the slots of 99 children that exited
 * on worker B sit in B's cache, out of reach of worker A; A's spawns must
 * still succeed, up to exactly 100 alive (53 of 99 failed when the table
 * held max_procs slots and no more).
 *
 * The premise, arranged: the children are spawned on A (the spawner's
 * cache), wait there, and are woken to exit by an anchor process on B (a
 * wake moves a process to the waker's worker). B steals nothing while the
 * anchor keeps it busy, and once it is released the spawner neither
 * blocks nor yields, so B cannot take it. If the anchor lands on A, or the
 * spawner moves all the same, the round is run again.
 */
#define LIMIT 100

struct reach {
	_Atomic int anchor_worker; /* -1 until the anchor runs */
	_Atomic int release;	   /* the anchor wakes the children */
	_Atomic int released;
	act_pid kids[LIMIT];
	int nkids;
	int spawned_after; /* spawns that succeeded afterwards */
	int over_limit;	   /* the spawn past the limit: its pid */
	int rounds;
};

static void reach_kid(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

static void reach_anchor(void *arg)
{
	struct reach *r = arg;
	int i;

	atomic_store(&r->anchor_worker, act_worker());
	/* busy on B until told: nothing is placed on B meanwhile */
	while (!atomic_load(&r->release))
		act_yield();
	for (i = 0; i < r->nkids; i++)
		act_send(r->kids[i], 1, NULL, 0);
	atomic_store(&r->released, 1);
}

/* Busy-wait (no yield: the spawner must not move) until the children
 * and the anchor are gone, for 20 s at most. */
static bool spin_until_gone(struct reach *r, act_pid anchor)
{
	int64_t deadline = act__clock_now() + 20 * 1000000000LL;
	int i;

	for (i = 0; i < r->nkids; i++)
		while (tu_lookup(r->kids[i]))
			if (act__clock_now() > deadline)
				return false;
	while (tu_lookup(anchor))
		if (act__clock_now() > deadline)
			return false;
	return true;
}

static bool reach_round(struct reach *r)
{
	int64_t deadline;
	int me, b, i;
	act_pid anchor, extra;

	atomic_store(&r->anchor_worker, -1);
	atomic_store(&r->release, 0);
	atomic_store(&r->released, 0);
	anchor = act_spawn(reach_anchor, r);
	ck_assert_uint_ne(anchor.id, 0);
	/* B steals it and runs it, and A keeps the spawner: spin, since a
	 * yield would let A run it first (on a loaded machine it always
	 * did, B's thread being slower to wake). If B never takes it, the
	 * yields let A run it and the round is run again. */
	deadline = act__clock_now() + 2 * 1000000000LL;
	while ((b = atomic_load(&r->anchor_worker)) < 0) {
		if (act__clock_now() < deadline)
			act__spin_relax();
		else
			act_yield();
	}
	me = act_worker();
	if (b == me) { /* the anchor stayed on A: again */
		atomic_store(&r->release, 1);
		ck_assert(tu_wait_gone(anchor));
		return false;
	}
	for (r->nkids = 0; r->nkids < LIMIT - 2; r->nkids++) {
		r->kids[r->nkids] = act_spawn(reach_kid, NULL);
		ck_assert_uint_ne(r->kids[r->nkids].id, 0);
	}
	/* they run on A and wait; B, busy with the anchor, steals nothing */
	for (i = 0; i < r->nkids; i++)
		ck_assert(tu_wait_waiting(r->kids[i]));
	atomic_store(&r->release, 1);
	while (!atomic_load(&r->released))
		act__spin_relax();
	ck_assert(spin_until_gone(r, anchor));
	if (act_worker() != me)
		return false; /* the spawner moved: its cache is B's */
	/* 1 (this one) alive: the rest up to the limit, then one more,
	 * before any yield (B, idle now, could take the spawner at one);
	 * a few hundred spawns are far from the budget of reductions */
	for (i = 0; i < LIMIT - 1; i++) {
		r->kids[i] = act_spawn(reach_kid, NULL);
		if (!r->kids[i].id)
			break;
	}
	r->spawned_after = i;
	extra = act_spawn(reach_kid, NULL);
	r->over_limit = extra.id != 0;
	for (i = 0; i < r->spawned_after; i++)
		act_send(r->kids[i], 1, NULL, 0);
	for (i = 0; i < r->spawned_after; i++)
		ck_assert(tu_wait_gone(r->kids[i]));
	return true;
}

static void reach_main(void *arg)
{
	struct reach *r = arg;

	for (r->rounds = 1; !reach_round(r); r->rounds++)
		ck_assert_int_lt(r->rounds, 1000);
}

START_TEST(test_limit_counts_alive_not_reachable_slots)
{
	struct act_config cfg = tu_with_workers(2);
	struct reach r;

	memset(&r, 0, sizeof(r));
	cfg.max_procs = LIMIT;
	ck_assert_int_eq(tu_run_main(&cfg, reach_main, &r), 0);
	ck_assert_int_eq(r.spawned_after, LIMIT - 1);
	ck_assert_int_eq(r.over_limit, 0);
}
END_TEST

static Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("pids");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_pid_format);
	tcase_add_test(tc, test_pid_text);
	tcase_add_test(tc, test_slot_reuse_bumps_generation);
	tcase_add_test(tc, test_generation_exhausted_retires_slot);
	tcase_add_test(tc, test_generation_past_32_bits);
	tcase_add_test(tc, test_send_to_bad_pids);
	tcase_add_test(tc, test_send_to_self);
	tcase_add_test(tc, test_send_stale_from_foreign_thread);
	tcase_add_test(tc, test_limit_counts_alive_not_reachable_slots);
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
