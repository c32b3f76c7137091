/* SPDX-License-Identifier: MIT */
/*
 * test_spawn.c - process life (lib/actor/spawn.c, lib/node/runtime.c): spawning and
 * exiting at volume, spawn order, per-process stack sizes, the full
 * process table, running out of memory, exit reasons, and the stop of a
 * runtime whose main process leaves others behind (I9).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "testrt.h"

#include "node/runtime.h"
#include "sched/worker.h"

static void block_forever(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

/* --- volume ------------------------------------------------------------- */

#define MILLION 1000000L
#define BATCH 1000L
/* Under TSan every spawn makes a fiber: 20 batches, not 1000. */
#define VOLUME (TU_UNDER_TSAN ? 20 * BATCH : MILLION)

struct volume {
	atomic_long done; /* the children run on any worker */
	uint64_t max_used;
	uint64_t reach; /* the most slots that stay out of main's reach */
};

static void count_and_exit(void *arg)
{
	atomic_fetch_add(&((struct volume *)arg)->done, 1);
}

/*
 * Slots a spawner may not get back when it needs one (proc.h,
 * act__slot_cache): none on one worker, whose cache has them all and
 * which reaps each child before main runs again. On more, main's worker
 * changes as it is stolen, each worker's cache holds up to
 * ACT_SLOT_CACHE_MAX (past that it spills to its home's list), with more
 * than one home up to ACT_SLOT_AWAY_BATCH per home are on their way back
 * there, and each worker may be reaping a child that has counted itself
 * done.
 */
static uint64_t out_of_reach(void)
{
	struct act__rt *rt = act__rt_current;
	uint64_t nw = rt->nworkers, nh = rt->procs.nhomes;

	if (nw == 1)
		return 0;
	return nw * (ACT_SLOT_CACHE_MAX + 1 +
		     (nh > 1 ? nh : 0) * ACT_SLOT_AWAY_BATCH);
}

static void million_main(void *arg)
{
	struct volume *v = arg;
	long spawned = 0, i;
	uint64_t used;

	v->reach = out_of_reach();
	while (spawned < VOLUME) {
		for (i = 0; i < BATCH; i++) {
			ck_assert_uint_ne(act_spawn(count_and_exit, v).id, 0);
			spawned++;
		}
		while (atomic_load(&v->done) < spawned)
			act_yield();
		used = act__proc_table_used(&act__rt_current->procs);
		if (used > v->max_used)
			v->max_used = used;
	}
}

START_TEST(test_spawn_exit_million)
{
	struct volume v = { 0, 0, 0 };

	ck_assert_int_eq(tu_run_main(NULL, million_main, &v), 0);
	ck_assert_int_eq(atomic_load(&v.done), VOLUME);
	/* slots were reused: never more than one batch plus main, and
	 * what other workers' caches hold */
	ck_assert_uint_le(v.max_used, BATCH + 1 + v.reach);
}
END_TEST

/* --- order -------------------------------------------------------------- */

struct tree_log {
	char seq[16];
	int n;
};

struct node {
	struct tree_log *log;
	char name;
	int kids; /* spawn this many children named name+1, name+2 */
};

static void node_fn(void *arg)
{
	struct node *nd = arg;
	static struct node kids[16];
	static int nkids;
	int i;

	nd->log->seq[nd->log->n++] = nd->name;
	for (i = 0; i < nd->kids; i++) {
		struct node *k = &kids[nkids++];

		*k = (struct node){ nd->log, (char)(nd->name + 1 + i), 0 };
		ck_assert_uint_ne(act_spawn(node_fn, k).id, 0);
	}
}

static void tree_main(void *arg)
{
	struct tree_log *log = arg;
	struct node a = { log, 'a', 2 }, b = { log, 'x', 2 };

	ck_assert_uint_ne(act_spawn(node_fn, &a).id, 0);
	ck_assert_uint_ne(act_spawn(node_fn, &b).id, 0);
	/* nobody ran yet: the parent has not blocked */
	ck_assert_int_eq(log->n, 0);
	ck_assert_ptr_null(act_receive(50 * 1000 * 1000));
}

/*
 * One worker: the order is that of one run queue (spawn.c: a child goes
 * on its spawner's LIFO end), and the log is written without atomics.
 * On more, an idle worker gets the spawn and runs it at once.
 */
START_TEST(test_spawn_tree_depth_first)
{
	struct act_config cfg = tu_with_workers(1);
	struct tree_log log = { { 0 }, 0 };

	ck_assert_int_eq(tu_run_main(&cfg, tree_main, &log), 0);
	/* newest first, each subtree before the older sibling's:
	 * x spawns y, z; a spawns b, c */
	ck_assert_int_eq(log.n, 6);
	ck_assert_str_eq(log.seq, "xzyacb");
}
END_TEST

/* --- stack sizes -------------------------------------------------------- */

struct stack_probe {
	size_t size;
	int used;
};

static void probe_stack(void *arg)
{
	struct stack_probe *sp = arg;

	sp->size = act__tls_worker_self()->current->stack_size;
}

/* Uses 768 KiB of its stack: fits only in the 1 MiB one. */
static void probe_big_stack(void *arg)
{
	struct stack_probe *sp = arg;
	volatile char buf[768 << 10];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = (char)i;
	sp->used = buf[4096] == (char)4096;
	sp->size = act__tls_worker_self()->current->stack_size;
}

static size_t child_stack(void (*fn)(void *), size_t size,
			  struct stack_probe *sp)
{
	struct act_spawn_opts o = { .stack_size = size };
	act_pid p;

	memset(sp, 0, sizeof(*sp));
	p = act_spawn_opt(fn, sp, &o);
	ck_assert_uint_ne(p.id, 0);
	ck_assert(tu_wait_gone(p));
	return sp->size;
}

static void stack_sizes_main(void *arg)
{
	struct act_spawn_opts zero = { 0 };
	struct stack_probe sp;
	act_pid p;

	(void)arg;
	ck_assert_uint_eq(child_stack(probe_stack, 16 << 10, &sp), 16 << 10);
	ck_assert_uint_eq(child_stack(probe_big_stack, 1 << 20, &sp), 1 << 20);
	ck_assert_int_eq(sp.used, 1);
	/* rounded up to the page size */
	ck_assert_uint_eq(child_stack(probe_stack, (16 << 10) + 1, &sp),
			  20 << 10);
	ck_assert_uint_eq(child_stack(probe_stack, 1 << 30, &sp), 1 << 30);
	/* zero and NULL: the runtime's size (128 KiB here) */
	ck_assert_uint_eq(child_stack(probe_stack, 0, &sp), 128 << 10);
	memset(&sp, 0, sizeof(sp));
	p = act_spawn_opt(probe_stack, &sp, NULL);
	ck_assert(tu_wait_gone(p));
	ck_assert_uint_eq(sp.size, 128 << 10);
	p = act_spawn_opt(probe_stack, &sp, &zero);
	ck_assert(tu_wait_gone(p));
	ck_assert_uint_eq(sp.size, 128 << 10);
	p = act_spawn(probe_stack, &sp);
	ck_assert(tu_wait_gone(p));
	ck_assert_uint_eq(sp.size, 128 << 10);
}

START_TEST(test_spawn_opt_stack_size)
{
	struct act_config cfg;

	act_config_init(&cfg);
	cfg.stack_size = 128 << 10;
	ck_assert_int_eq(tu_run_main(&cfg, stack_sizes_main, NULL), 0);
}
END_TEST

static void bad_opts_main(void *arg)
{
	static const size_t bad[] = { 1,
				      100,
				      4096,
				      (16 << 10) - 1,
				      ((size_t)1 << 30) + 1,
				      (size_t)2 << 30,
				      SIZE_MAX };
	/* no switch in here: this worker's count throughout */
	uint64_t out = act__tls_worker_self()->stacks.n_out;
	struct act_spawn_opts o;
	uint32_t hwm = atomic_load(&act__rt_current->procs.hwm);
	unsigned i;

	(void)arg;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = (struct act_spawn_opts){ .stack_size = bad[i] };
		ck_assert_msg(act_spawn_opt(block_forever, NULL, &o).id == 0,
			      "stack_size %zu accepted", bad[i]);
	}
	for (i = 0; i < sizeof(o.reserved) / sizeof(o.reserved[0]); i++) {
		o = (struct act_spawn_opts){ .stack_size = 0 };
		o.reserved[i] = 1;
		ck_assert_uint_eq(act_spawn_opt(block_forever, NULL, &o).id, 0);
	}
	/* an unknown flag; a mailbox limit past 2^31 - 1 */
	o = (struct act_spawn_opts){ .flags = 1u << 3 };
	ck_assert_uint_eq(act_spawn_opt(block_forever, NULL, &o).id, 0);
	o = (struct act_spawn_opts){ .mailbox_limit = 1u << 31 };
	ck_assert_uint_eq(act_spawn_opt(block_forever, NULL, &o).id, 0);
	o = (struct act_spawn_opts){ .mailbox_limit =
					     ACT_MAILBOX_UNLIMITED - 1 };
	ck_assert_uint_eq(act_spawn_opt(block_forever, NULL, &o).id, 0);
	ck_assert_uint_eq(act_spawn(NULL, NULL).id, 0);
	/* nothing taken for the failures */
	ck_assert_uint_eq(atomic_load(&act__rt_current->procs.hwm), hwm);
	ck_assert_uint_eq(act__tls_worker_self()->stacks.n_out, out);
}

START_TEST(test_spawn_opt_invalid)
{
	ck_assert_int_eq(tu_run_main(NULL, bad_opts_main, NULL), 0);
}
END_TEST

/* --- spawning from outside a process ------------------------------------ */

static void *spawn_from_thread(void *arg)
{
	act_pid *out = arg;

	*out = act_spawn(block_forever, NULL);
	return NULL;
}

static void foreign_spawn_main(void *arg)
{
	act_pid got = { 12345 };
	pthread_t t;

	(void)arg;
	ck_assert_int_eq(pthread_create(&t, NULL, spawn_from_thread, &got), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(got.id, 0);
	ck_assert_uint_eq(atomic_load(&act__rt_current->procs.hwm), 1);
}

START_TEST(test_spawn_outside_process)
{
	act_pid got = { 12345 };

	/* no runtime at all */
	spawn_from_thread(&got);
	ck_assert_uint_eq(got.id, 0);
	/* a runtime, but a thread that is not one of its workers */
	ck_assert_int_eq(tu_run_main(NULL, foreign_spawn_main, NULL), 0);
}
END_TEST

/* --- the process table is full ------------------------------------------ */

#define TABLE 100

struct table_run {
	act_pid kids[TABLE];
	int first_fill, second_fill;
	atomic_int exited; /* the children run on any worker */
};

static void table_child(void *arg)
{
	struct table_run *tr = arg;

	act_msg_free(act_receive(ACT_FOREVER));
	atomic_fetch_add(&tr->exited, 1);
}

static int fill_table(struct table_run *tr)
{
	int n = 0;

	while (n < TABLE) {
		act_pid p = act_spawn(table_child, tr);

		if (!p.id)
			break;
		tr->kids[n++] = p;
	}
	return n;
}

static void empty_table(struct table_run *tr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_send(tr->kids[i], 1, NULL, 0), 0);
	for (i = 0; i < n; i++)
		ck_assert(tu_wait_gone(tr->kids[i]));
}

static void table_main(void *arg)
{
	struct table_run *tr = arg;
	act_pid p;

	tr->first_fill = fill_table(tr);
	/* full: more attempts keep failing, nothing breaks */
	ck_assert_uint_eq(act_spawn(table_child, tr).id, 0);
	ck_assert_uint_eq(act_spawn(table_child, tr).id, 0);
	act_yield(); /* the children run and wait */
	empty_table(tr, tr->first_fill);
	ck_assert_int_eq(atomic_load(&tr->exited), tr->first_fill);
	/* spawning works again, up to the same limit */
	p = act_spawn(table_child, tr);
	ck_assert_uint_ne(p.id, 0);
	ck_assert_int_eq(act_send(p, 1, NULL, 0), 0);
	ck_assert(tu_wait_gone(p));
	tr->second_fill = fill_table(tr);
	empty_table(tr, tr->second_fill);
}

START_TEST(test_process_table_full)
{
	struct table_run tr;
	struct act_config cfg;

	memset(&tr, 0, sizeof(tr));
	act_config_init(&cfg);
	cfg.max_procs = TABLE;
	ck_assert_int_eq(tu_run_main(&cfg, table_main, &tr), 0);
	/* main takes one slot of the hundred */
	ck_assert_int_eq(tr.first_fill, TABLE - 1);
	ck_assert_int_eq(tr.second_fill, TABLE - 1);
	ck_assert_int_eq(atomic_load(&tr.exited), 2 * (TABLE - 1) + 1);
}
END_TEST

/* --- out of memory -------------------------------------------------------- */

#define OOM_CAP 200000

/* Filled in by the forked child; a MAP_SHARED page. */
struct oom_report {
	int stage; /* how far the child got */
	int rlimit_rc;
	long spawned; /* before the first ACT_PID_NONE */
	int big_send_rc;
	int small_send_rc;
	int respawn_ok;
	long stopped; /* children sent their message and gone */
	int main_rc;
	int64_t leaks[3];
};

struct oom_run {
	struct oom_report *rep;
	act_pid kids[OOM_CAP];
	char *big;
};

static void oom_main(void *arg)
{
	struct oom_run *run = arg;
	struct oom_report *rep = run->rep;
	struct rlimit rl;
	long n = 0, i, kib = tu_vm_size_kib();
	act_pid p;

	rep->stage = 1;
	rl.rlim_cur = rl.rlim_max = (rlim_t)(kib + 8 * 1024) * 1024;
	rep->rlimit_rc = kib > 0 ? setrlimit(RLIMIT_AS, &rl) : -2;
	if (rep->rlimit_rc)
		return;
	rep->stage = 2;
	while (n < OOM_CAP) {
		p = act_spawn(block_forever, NULL);
		if (!p.id)
			break;
		run->kids[n++] = p;
	}
	rep->spawned = n;
	rep->stage = 3;
	rep->big_send_rc = act_send(act_self(), 1, run->big, 32u << 20);
	rep->stage = 4;
	/* still working: small messages, children exit, spawn again */
	rep->small_send_rc = act_send(act_self(), 2, &n, sizeof(n));
	act_msg_free(act_receive(0));
	/* one child at a time, so that its envelope is back in the slab
	 * before the next send: at the limit a send that needed a new chunk
	 * could fail, leave that child waiting, and tu_wait_gone would spend
	 * its 20 s on each such child (a timeout seen once on 6.1 under
	 * QEMU, doc/kernels.md) */
	for (i = 0; i < n; i++) {
		if (act_send(run->kids[i], 1, NULL, 0))
			break;
		if (!tu_wait_gone(run->kids[i]))
			break;
	}
	rep->stopped = i;
	rep->stage = 5;
	p = act_spawn(block_forever, NULL);
	rep->respawn_ok = p.id != 0;
	rep->stage = 6;
}

static void oom_child(void *arg)
{
	struct oom_run *run = malloc(sizeof(*run));

	if (!run)
		_exit(3);
	run->rep = arg;
	run->big = malloc(32u << 20);
	if (!run->big)
		_exit(3);
	memset(run->big, 1, 32u << 20);
	run->rep->main_rc = act_main(NULL, oom_main, run);
	run->rep->leaks[0] = act__last_leaks.procs;
	run->rep->leaks[1] = act__last_leaks.stacks;
	run->rep->leaks[2] = act__last_leaks.envelopes;
	run->rep->stage = 7;
}

START_TEST(test_out_of_memory)
{
	struct oom_report *rep;
	struct tu_child c;

	if (TU_UNDER_ASAN) {
		/* ASan reserves terabytes of shadow: no RLIMIT_AS */
		fprintf(stderr, "test_out_of_memory: skipped under ASan\n");
		return;
	}
	rep = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(rep, MAP_FAILED);
	memset(rep, 0, sizeof(*rep));
	tu_run_child(oom_child, rep, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "child died (status %#x, stage %d): %s", c.status,
		      rep->stage, c.err);
	ck_assert_int_eq(rep->stage, 7);
	ck_assert_int_eq(rep->rlimit_rc, 0);
	/* spawning hit the limit, and said so */
	ck_assert_int_gt(rep->spawned, 0);
	ck_assert_int_lt(rep->spawned, OOM_CAP);
	ck_assert_int_eq(rep->big_send_rc, -ENOMEM);
	ck_assert_int_eq(rep->small_send_rc, 0);
	ck_assert_int_eq(rep->stopped, rep->spawned);
	ck_assert_int_eq(rep->respawn_ok, 1);
	ck_assert_int_eq(rep->main_rc, 0);
	ck_assert_int_eq(rep->leaks[0], 0);
	ck_assert_int_eq(rep->leaks[1], 0);
	ck_assert_int_eq(rep->leaks[2], 0);
	munmap(rep, 4096);
}
END_TEST

/* --- exit reasons --------------------------------------------------------- */

/* Calls act_exit a few frames down, through a pointer the compiler
 * cannot follow (so no tail call or inlining flattens it). */
static void exit_deep(int depth, intptr_t reason);
static void (*volatile exit_deep_ptr)(int, intptr_t) = exit_deep;

static void exit_deep(int depth, intptr_t reason)
{
	if (depth > 0)
		exit_deep_ptr(depth - 1, reason);
	act_exit(reason);
}

static void exit_42(void *arg)
{
	(void)arg;
	exit_deep(5, 42);
}

static void child_exits_99(void *arg)
{
	(void)arg;
	act_exit(99);
}

static void return_normally(void *arg)
{
	act_pid p = act_spawn(child_exits_99, NULL);

	(void)arg;
	ck_assert(tu_wait_gone(p));
}

static void exit_0(void *arg)
{
	(void)arg;
	act_exit(ACT_EXIT_NORMAL);
}

START_TEST(test_exit_reason)
{
	ck_assert_int_eq(act_main(NULL, exit_42, NULL), 42);
	tu_assert_no_leaks();
	ck_assert_int_eq(act_main(NULL, exit_0, NULL), 0);
	tu_assert_no_leaks();
	/* a child's reason is not the runtime's */
	ck_assert_int_eq(act_main(NULL, return_normally, NULL), 0);
	tu_assert_no_leaks();
}
END_TEST

static void call_exit_outside(void *arg)
{
	(void)arg;
	act_exit(1);
}

START_TEST(test_exit_outside_process_aborts)
{
	struct tu_child c;

	tu_run_child(call_exit_outside, NULL, &c);
	ck_assert(WIFSIGNALED(c.status));
	ck_assert_int_eq(WTERMSIG(c.status), SIGABRT);
	ck_assert_ptr_nonnull(strstr(c.err, "outside a process"));
}
END_TEST

static void nested_main(void *arg)
{
	int *rc = arg;

	*rc = act_main(NULL, exit_0, NULL);
}

START_TEST(test_act_main_errors)
{
	int rc = 1;

	ck_assert_int_eq(act_main(NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(act_main(NULL, nested_main, &rc), 0);
	ck_assert_int_eq(rc, -EBUSY);
	tu_assert_no_leaks();
}
END_TEST

/* --- the main process leaves others behind (I9) ------------------------- */

#define LEFT 1000

static void timed_wait(void *arg)
{
	(void)arg;
	act_receive(60LL * 1000 * 1000 * 1000);
}

static void leave_behind_main(void *arg)
{
	act_pid kids[LEFT];
	int *started = arg, i;
	uint64_t payload[8] = { 0 };

	for (i = 0; i < LEFT; i++) {
		kids[i] = act_spawn(i % 4 ? block_forever : timed_wait, NULL);
		ck_assert_uint_ne(kids[i].id, 0);
	}
	/* all of them run and block (on any worker: a bound of time, not
	 * of yields, for one whose thread the kernel has not run yet) */
	for (i = 0; i < LEFT; i++) {
		ck_assert(tu_wait_waiting(kids[i]));
		(*started)++;
	}
	/* messages they will never read: from the slab and from malloc */
	for (i = 0; i < LEFT; i += 10)
		ck_assert_int_eq(act_send(kids[i], 1, payload, sizeof(payload)),
				 0);
	/* some that never run at all */
	for (i = 0; i < 10; i++)
		ck_assert_uint_ne(act_spawn(block_forever, NULL).id, 0);
}

START_TEST(test_main_exit_discards_blocked)
{
	int started = 0;

	ck_assert_int_eq(tu_count_tasks(), 1);
	ck_assert_int_eq(tu_run_main(NULL, leave_behind_main, &started), 0);
	ck_assert_int_eq(started, LEFT);
	ck_assert_int_eq(tu_count_tasks(), 1);
	/* and a runtime starts again in the same OS process */
	started = 0;
	ck_assert_int_eq(tu_run_main(NULL, leave_behind_main, &started), 0);
	ck_assert_int_eq(started, LEFT);
	ck_assert_int_eq(tu_count_tasks(), 1);
}
END_TEST

static Suite *spawn_suite(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("volume");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_spawn_exit_million);
	suite_add_tcase(s, tc);

	tc = tcase_create("spawn");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_spawn_tree_depth_first);
	tcase_add_test(tc, test_spawn_opt_stack_size);
	tcase_add_test(tc, test_spawn_opt_invalid);
	tcase_add_test(tc, test_spawn_outside_process);
	tcase_add_test(tc, test_process_table_full);
	/* TSan needs address space beyond any RLIMIT_AS the test can set */
	tu_add_test_unless(TU_UNDER_TSAN, "TSan", tc, test_out_of_memory);
	suite_add_tcase(s, tc);

	tc = tcase_create("exit");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_exit_reason);
	tcase_add_test(tc, test_exit_outside_process_aborts);
	tcase_add_test(tc, test_act_main_errors);
	tcase_add_test(tc, test_main_exit_discards_blocked);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(spawn_suite());
}
