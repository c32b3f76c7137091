/* SPDX-License-Identifier: MIT */
/*
 * test_errors.c - the calls that say why they failed: act_spawn_pid and
 * act_monitor_ref (lib/actor/spawn.c, lib/actor/links.c), each cause
 * arranged, not hoped for: -EINVAL by bad options, -EAGAIN by a table of
 * ten (act_config.max_procs), -ENOMEM by an address-space limit
 * (RLIMIT_AS) that a 1 GiB stack cannot fit in, -EPERM off a process,
 * -ESRCH by a pid that is gone. Beside each, the old call (act_spawn,
 * act_spawn_opt, act_monitor) still fails or succeeds as it did.
 *
 * One worker: a spawned child runs only once its parent blocks.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "testrt.h"

#include "node/runtime.h"
#include "sched/worker.h"

#define SENTINEL ((act_pid){ 12345 })

static void block_forever(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

static void noop(void *arg)
{
	(void)arg;
}

/* --- act_spawn_pid: -EINVAL ----------------------------------------------- */

static void einval_main(void *arg)
{
	static const size_t bad_sizes[] = { 1, (size_t)16 << 10 >> 1,
					    ((size_t)1 << 30) + 1, SIZE_MAX };
	uint64_t out = act__tls_worker_self()->stacks.n_out;
	uint32_t hwm = atomic_load(&act__rt_current->procs.hwm);
	struct act_spawn_opts o;
	act_pid pid = SENTINEL;
	unsigned i;

	(void)arg;
	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		o = (struct act_spawn_opts){ .stack_size = bad_sizes[i] };
		ck_assert_int_eq(act_spawn_pid(noop, NULL, &o, &pid), -EINVAL);
		ck_assert_uint_eq(act_spawn_opt(noop, NULL, &o).id, 0);
	}
	for (i = 0; i < sizeof(o.reserved) / sizeof(o.reserved[0]); i++) {
		o = (struct act_spawn_opts){ .stack_size = 0 };
		o.reserved[i] = 1;
		ck_assert_int_eq(act_spawn_pid(noop, NULL, &o, &pid), -EINVAL);
	}
	o = (struct act_spawn_opts){ .flags = 1u << 3 };
	ck_assert_int_eq(act_spawn_pid(noop, NULL, &o, &pid), -EINVAL);
	o = (struct act_spawn_opts){ .mailbox_limit = 1u << 31 };
	ck_assert_int_eq(act_spawn_pid(noop, NULL, &o, &pid), -EINVAL);
	ck_assert_int_eq(act_spawn_pid(NULL, NULL, NULL, &pid), -EINVAL);
	ck_assert_int_eq(act_spawn_pid(noop, NULL, NULL, NULL), -EINVAL);
	/* a link and a monitor asked for, refused before they are made */
	o = (struct act_spawn_opts){
		.flags = ACT_SPAWN_LINK | ACT_SPAWN_MONITOR, .stack_size = 1
	};
	ck_assert_int_eq(act_spawn_pid(noop, NULL, &o, &pid), -EINVAL);
	/* *pid untouched, nothing taken */
	ck_assert_uint_eq(pid.id, SENTINEL.id);
	ck_assert_uint_eq(atomic_load(&act__rt_current->procs.hwm), hwm);
	ck_assert_uint_eq(act__tls_worker_self()->stacks.n_out, out);
	/* and good options work, NULL opts too */
	ck_assert_int_eq(act_spawn_pid(noop, NULL, NULL, &pid), 0);
	ck_assert_uint_ne(pid.id, SENTINEL.id);
	ck_assert(tu_wait_gone(pid));
}

START_TEST(test_spawn_einval)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, einval_main, NULL), 0);
}
END_TEST

/* --- act_spawn_pid: -EPERM off a process ------------------------------------ */

static void *spawn_from_thread(void *arg)
{
	int *rc = arg;
	act_pid pid = SENTINEL;

	*rc = act_spawn_pid(noop, NULL, NULL, &pid);
	if (pid.id != SENTINEL.id)
		*rc = 1;
	return NULL;
}

static void eperm_main(void *arg)
{
	int rc = 0;
	pthread_t t;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, spawn_from_thread, &rc), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(rc, -EPERM);
}

START_TEST(test_spawn_eperm)
{
	struct act_config cfg = tu_with_workers(1);
	int rc = 0;
	uint64_t ref = 7;

	spawn_from_thread(&rc); /* no runtime */
	ck_assert_int_eq(rc, -EPERM);
	ck_assert_int_eq(act_monitor_ref(SENTINEL, &ref), -EPERM);
	ck_assert_uint_eq(ref, 7);
	ck_assert_int_eq(tu_run_main(&cfg, eperm_main, NULL), 0);
}
END_TEST

/* --- act_spawn_pid: -EAGAIN at max_procs ------------------------------------ */

#define TABLE 10

static void eagain_main(void *arg)
{
	act_pid kids[TABLE], pid = SENTINEL;
	struct act_spawn_opts o = { .flags = ACT_SPAWN_MONITOR };
	uint64_t ref = 0;
	int n = 0, rc = 0, i;

	(void)arg;
	while (n < TABLE) {
		rc = act_spawn_pid(block_forever, NULL, NULL, &kids[n]);
		if (rc)
			break;
		n++;
	}
	/* main holds one of the ten */
	ck_assert_int_eq(n, TABLE - 1);
	ck_assert_int_eq(rc, -EAGAIN);
	ck_assert_int_eq(act_spawn_pid(block_forever, NULL, NULL, &pid),
			 -EAGAIN);
	ck_assert_uint_eq(pid.id, SENTINEL.id);
	/* the monitor made for the refused child is freed (the leak check
	 * of tu_run_main), and no DOWN comes */
	o.monitor_ref = &ref;
	ck_assert_int_eq(act_spawn_pid(block_forever, NULL, &o, &pid), -EAGAIN);
	ck_assert_uint_eq(ref, 0);
	ck_assert_ptr_null(act_receive(0));
	ck_assert_uint_eq(act_spawn(block_forever, NULL).id, 0);
	/* one gone: room for one again */
	ck_assert_int_eq(act_send(kids[0], 1, NULL, 0), 0);
	ck_assert(tu_wait_gone(kids[0]));
	ck_assert_int_eq(act_spawn_pid(block_forever, NULL, &o, &kids[0]), 0);
	ck_assert_uint_ne(ref, 0);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(act_send(kids[i], 1, NULL, 0), 0);
		ck_assert(tu_wait_gone(kids[i]));
	}
	act_msg_free(act_receive(ACT_FOREVER)); /* kids[0]'s DOWN */
}

START_TEST(test_spawn_eagain)
{
	struct act_config cfg = tu_with_workers(1);

	cfg.max_procs = TABLE;
	ck_assert_int_eq(tu_run_main(&cfg, eagain_main, NULL), 0);
}
END_TEST

/* --- act_spawn_pid: -ENOMEM, no address space for a stack ------------------- */

struct enomem_report {
	int stage;
	int rlimit_rc;
	int big_rc;	  /* act_spawn_pid with a 1 GiB stack */
	uint64_t big_old; /* act_spawn_opt's pid for the same */
	int small_rc;	  /* a default stack, still there */
	int main_rc;
};

static void enomem_main(void *arg)
{
	struct enomem_report *rep = arg;
	struct act_spawn_opts o = { .stack_size = (size_t)1 << 30 };
	long kib = tu_vm_size_kib();
	act_pid pid = SENTINEL;
	struct rlimit rl;

	rep->stage = 1;
	/* 64 MiB more than is mapped now: a 1 GiB stack does not fit */
	rl.rlim_cur = rl.rlim_max = (rlim_t)(kib + 64 * 1024) * 1024;
	rep->rlimit_rc = kib > 0 ? setrlimit(RLIMIT_AS, &rl) : -2;
	if (rep->rlimit_rc)
		return;
	rep->stage = 2;
	rep->big_rc = act_spawn_pid(block_forever, NULL, &o, &pid);
	rep->big_old = act_spawn_opt(block_forever, NULL, &o).id;
	rep->small_rc = act_spawn_pid(noop, NULL, NULL, &pid);
	if (!rep->small_rc && !tu_wait_gone(pid))
		rep->small_rc = 1;
	rep->stage = 3;
}

static void enomem_child(void *arg)
{
	struct enomem_report *rep = arg;

	rep->main_rc = act_main(NULL, enomem_main, rep);
	rep->stage = 4;
}

START_TEST(test_spawn_enomem)
{
	struct enomem_report *rep;
	struct tu_child c;

	if (TU_UNDER_ASAN) {
		/* ASan reserves terabytes of shadow: no RLIMIT_AS */
		fprintf(stderr, "test_spawn_enomem: skipped under ASan\n");
		return;
	}
	rep = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(rep, MAP_FAILED);
	memset(rep, 0, sizeof(*rep));
	rep->big_old = SENTINEL.id;
	tu_run_child(enomem_child, rep, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "child died (status %#x, stage %d): %s", c.status,
		      rep->stage, c.err);
	ck_assert_int_eq(rep->stage, 4);
	ck_assert_int_eq(rep->rlimit_rc, 0);
	ck_assert_int_eq(rep->big_rc, -ENOMEM);
	ck_assert_uint_eq(rep->big_old, 0);
	ck_assert_int_eq(rep->small_rc, 0);
	ck_assert_int_eq(rep->main_rc, 0);
	munmap(rep, 4096);
}
END_TEST

/* --- act_monitor_ref --------------------------------------------------------- */

static void monitor_main(void *arg)
{
	act_pid kid, gone, garbage = { UINT64_MAX };
	uint64_t ref = 7, ref2;
	struct act_exit_info *d;
	struct act_msg *m;

	(void)arg;
	gone = act_spawn(noop, NULL);
	ck_assert(tu_wait_gone(gone));
	/* not alive: -ESRCH, no monitor, no DOWN, *ref untouched */
	ck_assert_int_eq(act_monitor_ref(gone, &ref), -ESRCH);
	ck_assert_int_eq(act_monitor_ref(ACT_PID_NONE, &ref), -ESRCH);
	ck_assert_int_eq(act_monitor_ref(garbage, &ref), -ESRCH);
	ck_assert_uint_eq(ref, 7);
	ck_assert_ptr_null(act_receive(0));
	ck_assert_int_eq(act_monitor_ref(act_self(), NULL), -EINVAL);
	/* act_monitor keeps Erlang's answer: a reference and a NOPROC DOWN */
	ref2 = act_monitor(gone);
	ck_assert_uint_ne(ref2, 0);
	m = act_receive(0);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	d = m->data;
	ck_assert_uint_eq(d->ref, ref2);
	ck_assert_int_eq(d->reason, ACT_EXIT_NOPROC);
	act_msg_free(m);
	/* alive: a monitor like act_monitor's */
	kid = act_spawn(block_forever, NULL);
	ck_assert_int_eq(act_monitor_ref(kid, &ref), 0);
	ck_assert_uint_ne(ref, 7);
	ck_assert_uint_ne(ref, 0);
	ck_assert_uint_ne(ref, ref2);
	ck_assert_int_eq(act_send(kid, 1, NULL, 0), 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, ACT_TAG_DOWN);
	d = m->data;
	ck_assert_uint_eq(d->ref, ref);
	ck_assert(act_pid_eq(d->who, kid));
	ck_assert_int_eq(d->reason, ACT_EXIT_NORMAL);
	act_msg_free(m);
}

START_TEST(test_monitor_ref)
{
	struct act_config cfg = tu_with_workers(1);

	ck_assert_int_eq(tu_run_main(&cfg, monitor_main, NULL), 0);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("spawn");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_spawn_einval);
	tcase_add_test(tc, test_spawn_eperm);
	tcase_add_test(tc, test_spawn_eagain);
	tcase_add_test(tc, test_spawn_enomem);
	suite_add_tcase(s, tc);
	tc = tcase_create("monitor");
	tcase_add_test(tc, test_monitor_ref);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(errors_suite());
}
