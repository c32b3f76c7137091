/* SPDX-License-Identifier: MIT */
/*
 * test_numa.c - memory homes (affinity/numa.c): slab chunks, stacks and
 * process slots come from the worker's NUMA node, and what a process
 * stolen across homes frees goes back to the home it came from.
 *
 * This machine has one node, so the test switch ACT_TEST_NUMA does the
 * work: `force` binds to that node (the mbind path, checked with
 * get_mempolicy on a slot, a stack and an envelope), `fake:K` makes K
 * homes without binding (the bookkeeping: where freed memory goes), and
 * `off` or the default bind nothing.
 */
#include <numa.h>
#include <numaif.h>
#include <stdint.h>

#include "testrt.h"

#include "affinity/homes.h"
#include "proc/proc.h"
#include "node/runtime.h"
#include "mem/stack.h"
#include "sched/worker.h"

#define MASK_BITS 1024

enum {
	T_DATA = 1, /* main to a process: a payload to check */
	T_GO,	    /* the mover to x: wake up (and move) */
	T_DONE,	    /* a process to main */
	T_PING,	    /* bulk: a to b */
	T_PONG,	    /* bulk: b to a */
};

/* Memory policy of the page at addr: the mode, and in *node the lowest
 * node of its mask (-1: empty mask). */
static int policy_at(const void *addr, int *node)
{
	unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))];
	int mode = -1, i;

	memset(mask, 0, sizeof(mask));
	ck_assert_int_eq(get_mempolicy(&mode, mask, MASK_BITS + 1, (void *)addr,
				       MPOL_F_ADDR),
			 0);
	*node = -1;
	for (i = 0; i < MASK_BITS; i++)
		if (mask[i / (8 * sizeof(unsigned long))] &
		    (1ul << (i % (8 * sizeof(unsigned long))))) {
			*node = i;
			break;
		}
	return mode;
}

/* The envelope a received message is in, and the home of the slab it
 * came from (slab.h: the receiver's home). */
static uint32_t env_home(const struct act_msg *m)
{
	return act__container_of(m, struct act__envelope, msg)->home;
}

/* ---- where memory is bound ---------------------------------------------- */

struct bind_run {
	bool bind;	       /* expected: MPOL_PREFERRED, else DEFAULT */
	int node;	       /* the node expected when bound */
	const char *why;       /* expected why_plain, or NULL: any */
	_Atomic unsigned seen; /* bit i: checked on worker i */
	_Atomic int checks, bad;
	char what[160]; /* the first bad check */
};

static struct bind_run br;

static void expect_policy(const void *addr, const char *what)
{
	int node, mode = policy_at(addr, &node);
	bool ok = br.bind ? mode == MPOL_PREFERRED && node == br.node :
			    mode == MPOL_DEFAULT;

	atomic_fetch_add(&br.checks, 1);
	if (!ok && atomic_fetch_add(&br.bad, 1) == 0)
		snprintf(br.what, sizeof(br.what),
			 "%s at %p: mode %d node %d, expected %s node %d", what,
			 addr, mode, node,
			 br.bind ? "MPOL_PREFERRED" : "MPOL_DEFAULT", br.node);
}

/* In a process: its slot, its stack, an envelope from its worker's
 * slab, and a slot of the table nobody touched yet. */
static void check_here(void)
{
	struct act__ptable *t = &act__rt_current->procs;
	struct act__proc *p = tu_self_proc();
	char payload[300] = "a message from this worker's slab";
	volatile char on_stack = 1;
	struct act_msg *m;
	int w;

	expect_policy(p, "slot");
	expect_policy(p->stack_lo, "stack (low end)");
	expect_policy((const void *)&on_stack, "stack (a local)");
	expect_policy(&t->slots[t->cap - 1], "slot never used");
	/* sent and received on one worker: the envelope is from its slab */
	w = act_worker();
	ck_assert_int_eq(act_send(act_self(), T_DATA, payload, sizeof(payload)),
			 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->data, payload);
	expect_policy(m->data, "envelope");
	act_msg_free(m);
	atomic_fetch_or(&br.seen, 1u << w);
}

static void checker(void *arg)
{
	act_pid main_pid = *(act_pid *)arg;

	check_here();
	act_send(main_pid, T_DONE, NULL, 0);
}

static void bind_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	unsigned all = (1u << rt->nworkers) - 1;
	act_pid me = act_self();
	int64_t deadline = 0;
	struct act_msg *m;
	bool bound;
	int i;

	(void)arg;
	bound = atomic_load(&rt->numa.bind);
	ck_assert_int_eq(bound, br.bind);
	ck_assert_int_eq(rt->numa.nnodes, 1);
	if (br.bind) {
		ck_assert_int_eq(rt->numa.os[0], br.node);
		ck_assert_ptr_null(rt->numa.why_plain);
	} else {
		ck_assert_ptr_nonnull(rt->numa.why_plain);
		if (br.why)
			ck_assert_str_eq(rt->numa.why_plain, br.why);
	}
	check_here();
	/* checkers until each worker has run one: spawns go to idle
	 * workers, so the second one gets one once its thread is up and
	 * idle (a thread may take a while to start) */
	for (i = 0; i == 0 || atomic_load(&br.seen) != all; i++) {
		ck_assert_uint_ne(act_spawn(checker, &me).id, 0);
		m = act_receive(ACT_FOREVER);
		ck_assert_uint_eq(m->tag, T_DONE);
		act_msg_free(m);
		if (atomic_load(&br.seen) != all)
			ck_assert(tu_wait_step(&deadline, i + 1000));
	}
}

static void run_bind(int workers, const char *numa_env, bool bind,
		     const char *why)
{
	struct act_config cfg = tu_with_workers(workers);

	memset(&br, 0, sizeof(br));
	br.bind = bind;
	br.why = why;
	/* force with the workers on one node binds to that node; this
	 * machine's workers all sit on node 0 */
	br.node = 0;
	if (numa_env)
		setenv("ACT_TEST_NUMA", numa_env, 1);
	else
		unsetenv("ACT_TEST_NUMA");
	ck_assert_int_eq(tu_run_main(&cfg, bind_main, NULL), 0);
	ck_assert_msg(br.bad == 0, "%d of %d checks: %s", br.bad, br.checks,
		      br.what);
	ck_assert_int_ge(br.checks, 5 * 2);
	ck_assert_uint_eq(br.seen, (1u << workers) - 1);
}

/*
 * The force cases bind to this machine's node with mbind, which nothing
 * does on a simulated machine (ACT_TEST_TOPOLOGY: homes without mbind):
 * they run on the real topology (tu_real_machine, before this test's
 * first runtime).
 */
START_TEST(force_binds_one_worker)
{
	tu_real_machine();
	run_bind(1, "force", true, NULL);
}
END_TEST

START_TEST(force_binds_two_workers)
{
	tu_real_machine();
	run_bind(2, "force", true, NULL);
}
END_TEST

START_TEST(off_binds_nothing)
{
	run_bind(2, "off", false, "ACT_TEST_NUMA=off");
}
END_TEST

/* The default on this one-node machine: nothing bound, no mbind. The
 * real one: a simulated machine binds nothing whatever its nodes. */
START_TEST(default_binds_nothing_on_one_node)
{
	tu_real_machine();
	run_bind(2, NULL, false, NULL);
	run_bind(1, NULL, false, NULL);
}
END_TEST

/* ---- real nodes: envelopes on the receiver's node ----------------------- */

/*
 * On a machine with CPUs on two or more nodes (the QEMU guests of
 * scripts/check-kernels.sh), up to 8 workers spread over the nodes
 * (ACT_BIND_SPREAD): an envelope main sends to a process of any home
 * is bound to that home's node, and its page is
 * there. Children are spawned from wherever spawners run, until both of
 * the first two homes have received.
 */
struct node_run {
	act_pid main;
	_Atomic int got[2], bad;
	char what[200];
};

static struct node_run nr;

static void node_bad(const char *what, int got, int want)
{
	if (atomic_fetch_add(&nr.bad, 1) == 0)
		snprintf(nr.what, sizeof(nr.what), "%s: %d, expected %d", what,
			 got, want);
}

static void node_child(void *arg)
{
	struct act__rt *rt = act__rt_current;
	uint32_t h = act__proc_pid_home(&rt->procs, act_self());
	struct act_msg *m = act_receive(ACT_FOREVER);
	int node, mode, here = -1;

	(void)arg;
	mode = policy_at(m->data, &node);
	if (get_mempolicy(&here, NULL, 0, m->data, MPOL_F_NODE | MPOL_F_ADDR) ||
	    here != rt->numa.os[h])
		node_bad("envelope's page on node", here, rt->numa.os[h]);
	else if (mode != MPOL_PREFERRED)
		node_bad("envelope's policy", mode, MPOL_PREFERRED);
	else if (node != rt->numa.os[h])
		node_bad("envelope's preferred node", node, rt->numa.os[h]);
	else if (env_home(m) != h)
		node_bad("envelope's home", (int)env_home(m), (int)h);
	else if (h < 2)
		atomic_fetch_add(&nr.got[h], 1);
	act_msg_free(m);
	act_send(nr.main, T_DONE, NULL, 0);
}

/* Spawns a child where it runs and asks main to send to it. */
static void node_spawner(void *arg)
{
	act_pid c = act_spawn(node_child, NULL);

	(void)arg;
	act_send(nr.main, T_DATA, &c, sizeof(c));
}

/* Main: a spawner's T_DATA names its child, which gets the payload. */
static void node_take(const char *payload, size_t len)
{
	struct act_msg *m = act_receive(ACT_FOREVER);
	act_pid c;

	if (m->tag == T_DATA) {
		memcpy(&c, m->data, sizeof(c));
		ck_assert_int_eq(act_send(c, T_DATA, payload, len), 0);
	}
	act_msg_free(m);
}

static void node_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	char payload[300];
	int64_t deadline = 0;
	int n, pending = 0;

	(void)arg;
	nr.main = act_self();
	ck_assert_msg(atomic_load(&rt->numa.bind), "nothing bound: %s",
		      rt->numa.why_plain ? rt->numa.why_plain : "?");
	ck_assert_int_ge(rt->numa.nnodes, 2);
	memset(payload, 'n', sizeof(payload));
	for (n = 0;
	     (atomic_load(&nr.got[0]) < 5 || atomic_load(&nr.got[1]) < 5) &&
	     !atomic_load(&nr.bad);
	     n++) {
		ck_assert_uint_ne(act_spawn(node_spawner, NULL).id, 0);
		pending += 2; /* its T_DATA, its child's T_DONE */
		node_take(payload, sizeof(payload));
		pending--;
		if (n > 100)
			ck_assert_msg(tu_wait_step(&deadline, n - 100),
				      "homes 0 and 1 received %d and %d",
				      atomic_load(&nr.got[0]),
				      atomic_load(&nr.got[1]));
	}
	for (; pending > 0; pending--)
		node_take(payload, sizeof(payload));
}

/* CPUs this process may run on, and the nodes among theirs. */
static int usable_cpus(int *nodes)
{
	cpu_set_t set;
	bool seen[MASK_BITS] = { false };
	int c, n = 0, node;

	*nodes = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		n++;
		node = numa_node_of_cpu(c);
		if (node >= 0 && node < MASK_BITS && !seen[node]) {
			seen[node] = true;
			(*nodes)++;
		}
	}
	return n;
}

START_TEST(envelopes_on_receivers_node)
{
	struct act_config cfg;
	int nodes, cpus = usable_cpus(&nodes);

	tu_real_machine();
	ck_assert_int_ge(nodes, 2);
	cfg = tu_with_workers(cpus < 8 ? cpus : 8);
	/* consecutive workers on different nodes: the premise, two homes,
	 * on a machine whose first node alone has 8 CPUs too */
	cfg.bind = ACT_BIND_SPREAD;
	memset(&nr, 0, sizeof(nr));
	unsetenv("ACT_TEST_NUMA");
	ck_assert_int_eq(tu_run_main(&cfg, node_main, NULL), 0);
	ck_assert_msg(nr.bad == 0, "%d bad: %s", nr.bad, nr.what);
}
END_TEST

static bool cpus_on_two_nodes(void)
{
	int nodes;

	return numa_available() >= 0 && usable_cpus(&nodes) >= 2 && nodes >= 2;
}

/* ---- fake homes: the layout --------------------------------------------- */

struct layout_run {
	_Atomic int checked, bad;
	char what[160];
};

static struct layout_run lr;

static void layout_bad(const char *what, long got, long want)
{
	if (atomic_fetch_add(&lr.bad, 1) == 0)
		snprintf(lr.what, sizeof(lr.what), "%s: %ld, expected %ld",
			 what, got, want);
}

/* Spawned by a process on a worker of home `arg`: its slot and stack are
 * that home's. */
static void layout_child(void *arg)
{
	struct act__rt *rt = act__rt_current;
	struct act__proc *p = tu_self_proc();
	long home = (long)(intptr_t)arg;
	long slot_home = (long)act__proc_slot_home(&rt->procs, p->index);
	long stack_home = act__stack_home(p->stack_lo, p->stack_size);

	if (slot_home != home)
		layout_bad("slot home", slot_home, home);
	if (stack_home != home)
		layout_bad("stack home", stack_home, home);
	atomic_fetch_add(&lr.checked, 1);
}

/* Spawns children from wherever it runs, tagged with that home. */
static void layout_spawner(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 50; i++) {
		/* no switch between reading the home and the spawn */
		struct act__worker *w = act__tls_worker_self();

		if (!act_spawn(layout_child, (void *)(intptr_t)w->home).id)
			layout_bad("spawn", 0, 1);
		act_yield();
	}
}

static void layout_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	struct act__ptable *t = &rt->procs;
	uint32_t i, k = (uint32_t)(uintptr_t)arg;
	int64_t deadline = 0;
	bool bound;
	int n;

	bound = atomic_load(&rt->numa.bind);
	ck_assert_int_eq(rt->numa.nnodes, (int)k);
	ck_assert(!bound);
	ck_assert_str_eq(rt->numa.why_plain, "ACT_TEST_NUMA=fake");
	for (i = 0; i < rt->nworkers; i++)
		ck_assert_int_eq(rt->workers[i].home, (int)(i % k));
	/* one region per home, each starting on a page, covering the
	 * table */
	ck_assert_uint_eq(t->nhomes, k);
	for (i = 0; i < k; i++) {
		ck_assert_uint_eq(t->homes[i].base, i * t->per_home < t->cap ?
							    i * t->per_home :
							    t->cap);
		ck_assert_uint_eq((uintptr_t)&t->slots[t->homes[i].base] % 4096,
				  0);
	}
	ck_assert_uint_eq(t->homes[k - 1].end, t->cap);
	ck_assert_uint_ge((uint64_t)t->per_home * k, t->cap);
	ck_assert_uint_eq(act__proc_slot_home(t, tu_self_proc()->index),
			  (uint32_t)act__tls_worker_self()->home);
	for (n = 0; n < 8; n++)
		ck_assert_uint_ne(act_spawn(layout_spawner, NULL).id, 0);
	for (n = 0; atomic_load(&lr.checked) < 8 * 50; n++)
		ck_assert(tu_wait_step(&deadline, n));
}

static void run_layout(int workers, unsigned k)
{
	struct act_config cfg = tu_with_workers(workers);
	char v[16];

	memset(&lr, 0, sizeof(lr));
	snprintf(v, sizeof(v), "fake:%u", k);
	setenv("ACT_TEST_NUMA", v, 1);
	ck_assert_int_eq(tu_run_main(&cfg, layout_main, (void *)(uintptr_t)k),
			 0);
	ck_assert_msg(lr.bad == 0, "%d bad: %s", lr.bad, lr.what);
}

START_TEST(fake_homes_layout)
{
	run_layout(4, 2);
	run_layout(2, 2);
	run_layout(3, 3);
	run_layout(2, 8); /* homes without workers: empty but valid */
}
END_TEST

/* ---- fake homes: a process that moves gives back to its home ----------- */

/* Free slots on home r's shared list, and in *strangers how many of them
 * are of another home. */
static uint32_t slot_shared(uint32_t r, uint32_t *strangers, uint32_t *head)
{
	struct act__ptable *t = &act__rt_current->procs;
	struct act__ptable_home *h = &t->homes[r];
	uint32_t n, i, bad = 0;

	act__spin_lock(&h->lock); /* pairs with the unlock below */
	n = h->shared_n;
	if (head)
		*head = h->shared_head;
	for (i = h->shared_head; i != UINT32_MAX;
	     i = act__proc_free_next(&t->slots[i]))
		bad += act__proc_slot_home(t, i) != r;
	act__spin_unlock(&h->lock); /* pairs with the lock above */
	if (strangers)
		*strangers = bad;
	return n;
}

/* Is slot idx on home r's shared list? (Counting the list would not do:
 * a spawn on a worker whose own cache is empty takes a batch from it, as
 * the spawns of a try that failed before can leave it; the same holds
 * for stacks.) */
static bool slot_on_home_list(uint32_t r, uint32_t idx)
{
	struct act__ptable *t = &act__rt_current->procs;
	struct act__ptable_home *h = &t->homes[r];
	bool found = false;
	uint32_t i;

	act__spin_lock(&h->lock); /* pairs with the unlock below */
	for (i = h->shared_head; i != UINT32_MAX && !found;
	     i = act__proc_free_next(&t->slots[i]))
		found = i == idx;
	act__spin_unlock(&h->lock); /* pairs with the lock above */
	return found;
}

static bool stack_on_home_list(int r, const void *lo)
{
	return act__stack_shared_has(r, act__rt_current->cfg.stack_size, lo);
}

static uint32_t stack_shared(int r)
{
	uint32_t strangers,
		n = act__stack_shared_n(r, act__rt_current->cfg.stack_size,
					&strangers);

	ck_assert_uint_eq(strangers, 0);
	return n;
}

struct move_run {
	_Atomic uint64_t xpid;	     /* x, for the mover */
	_Atomic int quit;	     /* the mover gives up */
	_Atomic int mover_at;	     /* the mover's worker, +1 */
	_Atomic int x_first, x_last; /* x's first and last worker, +1 */
	_Atomic int mover_last;	     /* the mover's last worker, +1 */
	_Atomic int data_ok;
	void *x_lo, *mover_lo;	   /* their stacks */
	uint32_t x_idx, mover_idx; /* their slots */
};

static struct move_run mv;

static char data_payload[600];

/*
 * Spawned by main on worker a, placed on the other, b (idle then), and
 * stays there: it only yields, and a lone process is never published
 * for thieves. Once x waits, it wakes x, which moves x to b
 * (ACTORS_WAKE=waker, the default), then exits on b.
 */
static void mover(void *arg)
{
	act_pid x;

	(void)arg;
	mv.mover_lo = tu_self_proc()->stack_lo;
	mv.mover_idx = tu_self_proc()->index;
	atomic_store(&mv.mover_at, act_worker() + 1);
	while (!atomic_load(&mv.xpid) && !atomic_load(&mv.quit))
		act_yield();
	x = (act_pid){ atomic_load(&mv.xpid) };
	if (x.id && tu_wait_waiting(x))
		act_send(x, T_GO, NULL, 0);
	atomic_store(&mv.mover_last, act_worker() + 1);
}

static bool is_go(const struct act_msg *m, void *ctx)
{
	(void)ctx;
	return m->tag == T_GO;
}

/* Spawned by main on worker a and run there first (b is busy with the
 * mover); woken by the mover, it goes on on b, frees there the envelope
 * main sent it from a, and exits there. */
static void x_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	mv.x_lo = tu_self_proc()->stack_lo;
	mv.x_idx = tu_self_proc()->index;
	atomic_store(&mv.x_first, act_worker() + 1);
	m = act_receive_match(is_go, NULL, ACT_FOREVER);
	act_msg_free(m);
	m = act_receive(ACT_FOREVER); /* T_DATA, saved by the match */
	atomic_store(&mv.data_ok, m->tag == T_DATA &&
					  m->len == sizeof(data_payload) &&
					  !memcmp(m->data, data_payload,
						  sizeof(data_payload)));
	act_msg_free(m);
	atomic_store(&mv.x_last, act_worker() + 1);
}

static void blocked_until_told(void *arg)
{
	(void)arg;
	act_msg_free(act_receive(ACT_FOREVER));
}

struct move_counts {
	uint32_t slots[2], stacks[2];
	uint64_t remote[2]; /* each worker's slab: envelopes freed remotely */
};

static void move_counts(struct move_counts *c)
{
	struct act__rt *rt = act__rt_current;
	uint32_t r, strangers;

	for (r = 0; r < 2; r++) {
		c->slots[r] = slot_shared(r, &strangers, NULL);
		ck_assert_uint_eq(strangers, 0);
		c->stacks[r] = stack_shared((int)r);
		c->remote[r] = atomic_load(&rt->workers[r].slab.n_remote_free);
	}
}

/*
 * One try: x spawned on main's worker a, moved to b and exited there,
 * and the mover too. Returns a, or -1 when the processes did not move
 * that way (placement and stealing decide; the caller tries again).
 */
static int move_once(struct move_counts *before, struct move_counts *after)
{
	int64_t deadline = 0;
	int a, b, i;
	act_pid m, x;

	memset(&mv, 0, sizeof(mv));
	move_counts(before);
	a = act_worker();
	m = act_spawn(mover, NULL); /* no switch since act_worker() */
	ck_assert_uint_ne(m.id, 0);
	for (i = 0; !atomic_load(&mv.mover_at); i++)
		ck_assert(tu_wait_step(&deadline, i));
	b = atomic_load(&mv.mover_at) - 1;
	if (b == a || act_worker() != a) {
		atomic_store(&mv.quit, 1);
		ck_assert(tu_wait_gone(m));
		return -1;
	}
	/* b is busy with the mover: x stays here, on a */
	x = act_spawn(x_proc, NULL);
	ck_assert_uint_ne(x.id, 0);
	ck_assert_int_eq(
		act_send(x, T_DATA, data_payload, sizeof(data_payload)), 0);
	atomic_store(&mv.xpid, x.id);
	ck_assert(tu_wait_gone(x));
	ck_assert(tu_wait_gone(m));
	ck_assert_int_eq(mv.data_ok, 1);
	if (mv.x_first != a + 1 || mv.x_last != b + 1 ||
	    mv.mover_last != b + 1) {
		return -1;
	}
	/* both were spawned on a, home a, and exited on b, home b: their
	 * slots and stacks go back to home a's lists, and the envelope main
	 * sent x to a's slab, once b goes idle and flushes */
	ck_assert_uint_eq(act__proc_slot_home(&act__rt_current->procs,
					      mv.x_idx),
			  (uint32_t)a);
	ck_assert_int_eq(
		act__stack_home(mv.x_lo, act__rt_current->cfg.stack_size), a);
	deadline = 0;
	for (i = 0;; i++) {
		bool xs, ms;

		move_counts(after);
		xs = slot_on_home_list((uint32_t)a, mv.x_idx) &&
		     stack_on_home_list(a, mv.x_lo);
		ms = slot_on_home_list((uint32_t)a, mv.mover_idx) &&
		     stack_on_home_list(a, mv.mover_lo);
		if (xs && ms && after->remote[a] >= before->remote[a] + 1)
			return a;
		ck_assert_msg(tu_wait_step(&deadline, i),
			      "home %d's lists: x's slot and stack %s, the "
			      "mover's %s; worker %d %llu envelopes back",
			      a, xs ? "in" : "not in", ms ? "in" : "not in", a,
			      (unsigned long long)(after->remote[a] -
						   before->remote[a]));
	}
}

static int reuse_checked;

static void move_main(void *arg)
{
	struct move_counts before, after;
	struct act__proc *p;
	int attempt, a = -1, b, i;
	uint32_t head;
	act_pid x;

	(void)arg;
	for (i = 0; i < (int)sizeof(data_payload); i++)
		data_payload[i] = (char)(i * 7 + 1);
	/* each try wants the other worker idle, ready to take the mover:
	 * a thread may take a while to start, and to go idle again */
	for (attempt = 0; attempt < 100 && a < 0; attempt++) {
		if (attempt)
			act_sleep(1000000);
		a = move_once(&before, &after);
	}
	ck_assert_msg(a >= 0, "no process moved across homes in %d tries",
		      attempt);
	b = 1 - a;
	ck_assert(slot_on_home_list((uint32_t)a, mv.x_idx));
	ck_assert(slot_on_home_list((uint32_t)a, mv.mover_idx));
	ck_assert(stack_on_home_list(a, mv.x_lo));
	ck_assert(stack_on_home_list(a, mv.mover_lo));
	ck_assert_uint_eq(after.remote[a], before.remote[a] + 1);
	/* home b got none of it */
	ck_assert_uint_eq(after.slots[b], before.slots[b]);
	ck_assert_uint_eq(after.stacks[b], before.stacks[b]);
	ck_assert_uint_eq(after.remote[b], before.remote[b]);
	/* the next spawn on a, its own cache empty, refills from home a's
	 * list: one of the two comes back (no switch from here to the
	 * spawn) */
	if (act_worker() == a &&
	    act__tls_worker_self()->slots.head == UINT32_MAX) {
		slot_shared((uint32_t)a, NULL, &head);
		x = act_spawn(blocked_until_told, NULL);
		p = tu_lookup(x);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(p->index, head);
		ck_assert(p->index == mv.x_idx || p->index == mv.mover_idx);
		ck_assert_int_eq(act_send(x, T_GO, NULL, 0), 0);
		reuse_checked = 1;
	}
}

START_TEST(moved_process_memory_goes_home)
{
	struct act_config cfg = tu_with_workers(2);

	setenv("ACT_TEST_NUMA", "fake:2", 1);
	ck_assert_int_eq(tu_run_main(&cfg, move_main, NULL), 0);
	if (!reuse_checked)
		printf("note: moved_process_memory_goes_home: reuse not "
		       "checked (main had moved or had slots)\n");
}
END_TEST

/* ---- fake homes: many processes across homes ---------------------------- */

#define BULK_PAIRS (TU_UNDER_TSAN ? 600u : 4000u)
#define BULK_BATCH 200u
#define BULK_MSGS 8u

struct bulk_run {
	act_pid main;
	_Atomic long delivered, bad, crossed, spawned_far;
	char why[160];
};

static struct bulk_run bk;

static void bulk_bad(const char *why)
{
	if (atomic_fetch_add(&bk.bad, 1) == 0)
		snprintf(bk.why, sizeof(bk.why), "%s", why);
}

/* At the start of a process: its slot and stack share a home. Returns
 * that home. */
static uint32_t bulk_home(void)
{
	struct act__proc *p = tu_self_proc();
	uint32_t h = act__proc_slot_home(&act__rt_current->procs, p->index);

	if ((uint32_t)act__stack_home(p->stack_lo, p->stack_size) != h)
		bulk_bad("a slot and its stack of different homes");
	if (h != (uint32_t)act__tls_worker_self()->home)
		atomic_fetch_add(&bk.spawned_far, 1);
	return h;
}

static void bulk_exit_home(uint32_t h)
{
	if ((uint32_t)act__tls_worker_self()->home != h)
		atomic_fetch_add(&bk.crossed, 1);
}

struct ping {
	uint32_t pair, seq;
	uint64_t sum;
	char pad[200];
};

static void bulk_b(void *arg)
{
	uint32_t h = bulk_home(), i;
	struct act_msg *m;
	struct ping pg;

	(void)arg;
	for (i = 0; i < BULK_MSGS; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(&pg, m->data, sizeof(pg));
		if (m->tag != T_PING || pg.seq != i ||
		    pg.sum != pg.pair * 1000003ull + i)
			bulk_bad("a ping arrived wrong");
		else if (env_home(m) != h)
			bulk_bad("a ping's envelope not of b's home");
		else
			atomic_fetch_add(&bk.delivered, 1);
		act_send(m->from, T_PONG, &pg, sizeof(pg));
		act_msg_free(m);
	}
	bulk_exit_home(h);
}

static void bulk_a(void *arg)
{
	uint32_t h = bulk_home(), pair = (uint32_t)(uintptr_t)arg, i;
	struct act_msg *m;
	struct ping pg;
	act_pid b;

	memset(&pg, 0, sizeof(pg));
	b = act_spawn(bulk_b, NULL);
	if (!b.id) {
		bulk_bad("spawn failed");
		act_send(bk.main, T_DONE, NULL, 0);
		return;
	}
	pg.pair = pair;
	for (i = 0; i < BULK_MSGS; i++) {
		pg.seq = i;
		pg.sum = pair * 1000003ull + i;
		act_send(b, T_PING, &pg, sizeof(pg));
		m = act_receive(ACT_FOREVER);
		if (m->tag != T_PONG || m->len != sizeof(pg) ||
		    memcmp(m->data, &pg, sizeof(pg)))
			bulk_bad("a pong arrived wrong");
		else if (env_home(m) != h)
			bulk_bad("a pong's envelope not of a's home");
		else
			atomic_fetch_add(&bk.delivered, 1);
		act_msg_free(m);
		if (i % 3 == 2)
			act_yield();
	}
	act_send(bk.main, T_DONE, NULL, 0);
	bulk_exit_home(h);
}

static void bulk_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	uint32_t pair = 0, i, r, strangers;
	struct act_msg *m;
	int64_t deadline = 0;
	int n;

	(void)arg;
	bk.main = act_self();
	while (pair < BULK_PAIRS) {
		for (i = 0; i < BULK_BATCH; i++)
			if (!act_spawn(bulk_a, (void *)(uintptr_t)pair++).id)
				bulk_bad("spawn failed");
		for (i = 0; i < BULK_BATCH; i++) {
			m = act_receive(ACT_FOREVER);
			if (m->tag != T_DONE)
				bulk_bad("main got a stray message");
			act_msg_free(m);
		}
	}
	/* until every process but main has exited */
	for (n = 0; tu_wait_step(&deadline, n); n++) {
		uint64_t ex = 0, sp = 0;

		for (i = 0; i < rt->nworkers; i++) {
			ex += atomic_load_explicit(&rt->workers[i].n_exits,
						   memory_order_relaxed);
			sp += atomic_load_explicit(&rt->workers[i].n_spawns,
						   memory_order_relaxed);
		}
		if (sp == ex + 1)
			break;
	}
	/* nothing of one home on another's lists, nor in this worker's
	 * own cache */
	for (r = 0; r < rt->procs.nhomes; r++) {
		slot_shared(r, &strangers, NULL);
		ck_assert_uint_eq(strangers, 0);
		stack_shared((int)r);
	}
	ck_assert_uint_eq(
		act__stack_cache_strangers(&act__tls_worker_self()->stacks), 0);
	for (i = act__tls_worker_self()->slots.head, n = 0; i != UINT32_MAX;
	     i = act__proc_free_next(&rt->procs.slots[i]))
		n += act__proc_slot_home(&rt->procs, i) !=
		     (uint32_t)act__tls_worker_self()->home;
	ck_assert_int_eq(n, 0);
}

/* The test means something only if processes did cross homes, which
 * scheduling decides (on a loaded machine one run may see few): a run
 * with fewer than 20 crossings is run again, up to 10 times; every check
 * holds in every run. */
static void run_bulk(int workers)
{
	struct act_config cfg = tu_with_workers(workers);
	int attempt;

	setenv("ACT_TEST_NUMA", "fake:2", 1);
	for (attempt = 1; attempt <= 10; attempt++) {
		memset(&bk, 0, sizeof(bk));
		ck_assert_int_eq(tu_run_main(&cfg, bulk_main, NULL), 0);
		ck_assert_msg(bk.bad == 0, "%ld bad: %s", bk.bad, bk.why);
		ck_assert_int_eq(bk.delivered, 2 * BULK_MSGS * BULK_PAIRS);
		if (bk.crossed >= 20)
			break;
	}
	ck_assert_msg(bk.crossed >= 20,
		      "only %ld processes exited on "
		      "another home, in each of 10 runs",
		      bk.crossed);
}

START_TEST(many_cross_home_two_workers)
{
	run_bulk(2);
}
END_TEST

START_TEST(many_cross_home_four_workers)
{
	run_bulk(4);
}
END_TEST

/* ---- fake homes: a full table borrows and gives back -------------------- */

/* more alive than one home's region holds: the table is 8192 slots
 * (act__proc_table_size of 6000 at one worker, two homes), 4096 a home */
#define TABLE 6000

struct table_run {
	act_pid kids[TABLE];
	int fill[2];
	_Atomic int exited;
	/* children whose message came in an envelope of their home, by
	 * home; and those whose did not */
	_Atomic int env_home[2], env_wrong;
};

static struct table_run tb;

/* The one worker (home 0) sends to every child: a child in home 1's
 * region gets an envelope of the worker's home-1 guest slab. */
static void table_child(void *arg)
{
	uint32_t h = act__proc_pid_home(&act__rt_current->procs, act_self());
	struct act_msg *m = act_receive(ACT_FOREVER);

	(void)arg;
	if (h < 2 && env_home(m) == h && m->len == 100 &&
	    ((const char *)m->data)[99] == (char)h)
		atomic_fetch_add(&tb.env_home[h], 1);
	else
		atomic_fetch_add(&tb.env_wrong, 1);
	act_msg_free(m);
	atomic_fetch_add(&tb.exited, 1);
}

/*
 * One worker, two homes: the table's slots are two regions of 4096.
 * Filling it with 6000 from home 0 takes its own region, then borrows
 * home 1's; the borrowed slots, freed on home 0, go back to
 * home 1, and a second fill finds all of them again (the worker never
 * idles in between, so what it holds for home 1 must be sent there when
 * the table looks full).
 */
static void table_main(void *arg)
{
	struct act__ptable *t = &act__rt_current->procs;
	int round, n, i;
	act_pid p;

	(void)arg;
	ck_assert_uint_eq(t->nhomes, 2);
	ck_assert_uint_eq(t->cap, 8192);
	ck_assert_uint_eq(t->homes[1].base, 4096);
	for (round = 0; round < 2; round++) {
		for (n = 0; n < TABLE; n++) {
			p = act_spawn(table_child, NULL);
			if (!p.id)
				break;
			tb.kids[n] = p;
		}
		tb.fill[round] = n;
		/* home 0's region is used up: home 1 lent the rest */
		ck_assert_uint_eq(atomic_load(&t->homes[0].used), 4096);
		ck_assert_uint_ge(atomic_load(&t->homes[1].used), TABLE - 4096);
		ck_assert_uint_eq(act_spawn(table_child, NULL).id, 0);
		for (i = 0; i < n; i++) {
			char data[100] = { 0 };

			data[99] = (char)act__proc_pid_home(t, tb.kids[i]);
			ck_assert_int_eq(
				act_send(tb.kids[i], 1, data, sizeof(data)), 0);
		}
		for (i = 0; i < n; i++)
			ck_assert(tu_wait_gone(tb.kids[i]));
	}
}

START_TEST(full_table_borrows_across_homes)
{
	struct act_config cfg = tu_with_workers(1);

	memset(&tb, 0, sizeof(tb));
	cfg.max_procs = TABLE;
	setenv("ACT_TEST_NUMA", "fake:2", 1);
	ck_assert_int_eq(tu_run_main(&cfg, table_main, NULL), 0);
	/* main is one of the 6000 alive */
	ck_assert_int_eq(tb.fill[0], TABLE - 1);
	ck_assert_int_eq(tb.fill[1], TABLE - 1);
	ck_assert_int_eq(tb.exited, 2 * (TABLE - 1));
	/* home 0's region holds main and 4095 children, each round */
	ck_assert_int_eq(tb.env_wrong, 0);
	ck_assert_int_eq(tb.env_home[0], 2 * 4095);
	ck_assert_int_eq(tb.env_home[1], 2 * (TABLE - 4096));
}
END_TEST

/* ---- bad values --------------------------------------------------------- */

/*
 * I5 across regions: with two homes, a slot carved in home 1's region
 * raises the lookup bound past home 0's unused slots. A pid naming one of
 * those (generation 1, never handed out) must not be found, and the slots
 * really handed out must be.
 */
START_TEST(region_gap_lookup)
{
	struct act__numa numa = { .nnodes = 2, .os = { -1, -1 } };
	struct act__slot_cache c0, c1;
	struct act__ptable t;
	struct act__proc *a, *b;
	uint32_t gap;

	ck_assert_int_eq(act__proc_table_init(&t, 1024, &numa), 0);
	ck_assert_int_eq(act__proc_cache_init(&c0, &t, 0), 0);
	ck_assert_int_eq(act__proc_cache_init(&c1, &t, 1), 0);
	a = act__proc_slot_get(&t, &c0);
	b = act__proc_slot_get(&t, &c1);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(act__proc_slot_home(&t, a->index), 0);
	ck_assert_uint_eq(act__proc_slot_home(&t, b->index), 1);
	gap = a->index + 1;
	ck_assert_uint_lt(gap, b->index);
	ck_assert_uint_gt(atomic_load(&t.hwm), gap);
	ck_assert_ptr_eq(
		act__proc_lookup(&t, act__proc_make_pid(&t, 1, a->index)), a);
	ck_assert_ptr_eq(
		act__proc_lookup(&t, act__proc_make_pid(&t, 1, b->index)), b);
	ck_assert_ptr_null(
		act__proc_lookup(&t, act__proc_make_pid(&t, 1, gap)));
	act__proc_cache_destroy(&c0);
	act__proc_cache_destroy(&c1);
	act__proc_table_destroy(&t);
}
END_TEST

START_TEST(bad_test_numa_refused)
{
	static const char *const bad[] = {
		"",	  "on",	    "OFF",     "force ",  "fake",     "fake:",
		"fake:0", "fake:9", "fake:-1", "fake:2x", "fake:1:2",
	};

	ck_assert_uint_eq(tu_assert_env_refused("ACT_TEST_NUMA", bad, TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

static Suite *numa_suite(void)
{
	Suite *s = suite_create("numa");
	TCase *tc = tcase_create("bind");
	bool no_numa = numa_available() < 0;

	tcase_set_timeout(tc, 30);
	tu_add_test_unless(no_numa, "numa_available() < 0", tc,
			   force_binds_one_worker);
	tu_add_test_unless(no_numa, "numa_available() < 0", tc,
			   force_binds_two_workers);
	tcase_add_test(tc, off_binds_nothing);
	tu_add_test_unless(no_numa || numa_num_configured_nodes() > 1,
			   "not one NUMA node", tc,
			   default_binds_nothing_on_one_node);
	tcase_add_test(tc, bad_test_numa_refused);
	tu_add_test_unless(!cpus_on_two_nodes(), "no CPUs on two NUMA nodes",
			   tc, envelopes_on_receivers_node);
	suite_add_tcase(s, tc);

	tc = tcase_create("homes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fake_homes_layout);
	tcase_add_test(tc, region_gap_lookup);
	tcase_add_test(tc, moved_process_memory_goes_home);
	tcase_add_test(tc, many_cross_home_two_workers);
	tcase_add_test(tc, many_cross_home_four_workers);
	tcase_add_test(tc, full_table_borrows_across_homes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(numa_suite());
}
