/* SPDX-License-Identifier: MIT */
/*
 * runtime.c - act_config_init and act_main: resolve the configuration,
 * build the runtime (process table, workers, reactor), run worker 0 on the
 * calling thread until the main process exits, then stop and join every
 * thread and give back every slot, stack and envelope (I9).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fail.h"
#include "settings/env.h"
#include "settings/vars.h"
#include "reactor/io.h"
#include "actor/links.h"
#include "actor/registry.h"
#include "actor/spawn.h"
#include "actor/blocking.h"
#include "proc/mailbox.h"
#include "sched/overflow.h"
#include "runtime.h"
#include "observe.h"
#include "stats.h"
#include "info.h"
#include "claim.h"

#define DEFAULT_MAX_PROCS (1u << 22)
#define MAX_PROCS_LIMIT (1u << 31)
#define DEFAULT_REDUCTIONS 2000
#define MAX_SCHEDULERS ACT_MAX_WORKERS
_Static_assert(ACT_PLAN_MAX_WORKERS == ACT_MAX_WORKERS, "plan cap");
/* act_config's layout: fields are appended only, and a binary built
 * against the 0.1 one (80 bytes) calls compat.c's act_main */
/* the ACTORS_* table (settings/vars.h) gives the limits these layers name */
_Static_assert(ACT_VARS_SCHEDULERS_MAX == ACT_MAX_WORKERS, "vars: workers");
_Static_assert(ACT_VARS_RING_MAX == ACT_RING_MAX_ENTRIES, "vars: ring");
_Static_assert(ACT_VARS_RING_DEFAULT == ACT_RING_ENTRIES, "vars: ring");
_Static_assert(ACT_VARS_TIMER_MIN == ACT_TIMER_US_MIN, "vars: timer");
_Static_assert(ACT_VARS_TIMER_MAX == ACT_TIMER_US_MAX, "vars: timer");
_Static_assert(ACT_VARS_TIMER_DEFAULT == ACT_TIMER_US_DEFAULT, "vars: timer");
_Static_assert(ACT_VARS_MAILBOX_MAX == ACT__MAILBOX_MAX, "vars: mailbox");
#define MAX_SPIN_US ACT_VARS_SPIN_MAX

struct act__leaks act__last_leaks;

/* The runtime and its reactor, one allocation (the runtime at its start:
 * free(rt) frees both). sched/rt.h holds the reactor by pointer: it is
 * a layer above the state the workers share. */
struct rt_block {
	struct act__rt rt;
	struct act__reactor reactor;
};

static _Atomic int running;

void act_config_init(struct act_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

static int bad_field(const char *field, long long v, const char *accepted)
{
	fprintf(stderr, "actors: act_config.%s=%lld: expected %s\n", field, v,
		accepted);
	return -EINVAL;
}

static int check_fields(const struct act_config *c)
{
	unsigned i;

	for (i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++)
		if (c->reserved[i])
			return bad_field("reserved", c->reserved[i], "0");
#ifdef ACT__ABI_TEST_GROW
	for (i = 0; i < sizeof(c->abi_test) / sizeof(c->abi_test[0]); i++)
		if (c->abi_test[i])
			return bad_field("abi_test", (long long)c->abi_test[i],
					 "0");
#endif
	if (c->schedulers < 0 || c->schedulers > MAX_SCHEDULERS)
		return bad_field("schedulers", c->schedulers,
				 "0 (default) or 1 to 1024");
	if (c->stack_size && !act__env_stack_size_ok(c->stack_size))
		return bad_field("stack_size", (long long)c->stack_size,
				 "0 or 16384 to 1073741824 bytes");
	if (c->max_procs > MAX_PROCS_LIMIT)
		return bad_field("max_procs", c->max_procs,
				 "0 or at most 2147483648");
	if (c->reductions < 0)
		return bad_field("reductions", c->reductions, "0 or more");
	if (c->spin_us > MAX_SPIN_US)
		return bad_field("spin_us", c->spin_us,
				 "0 (default), negative (no spinning) or at "
				 "most 1000000");
	if (c->ring_entries > ACT_RING_MAX_ENTRIES)
		return bad_field("ring_entries", c->ring_entries,
				 "0 (default) or 1 to 32768");
	if (c->timer_us &&
	    (c->timer_us < ACT_TIMER_US_MIN || c->timer_us > ACT_TIMER_US_MAX))
		return bad_field("timer_us", c->timer_us,
				 "0 (default) or 10 to 100000");
	if (c->mailbox_limit > ACT__MAILBOX_MAX &&
	    c->mailbox_limit != ACT_MAILBOX_UNLIMITED)
		return bad_field("mailbox_limit", c->mailbox_limit,
				 "0 (default), 1 to 2147483647 messages, or "
				 "ACT_MAILBOX_UNLIMITED");
	if (c->blocking_threads > ACT_VARS_BLOCKING_MAX)
		return bad_field("blocking_threads", c->blocking_threads,
				 "0 (default) or 1 to 4096");
	if (c->bind < ACT_BIND_DEFAULT || c->bind > ACT_BIND_NUMA)
		return bad_field("bind", c->bind,
				 "an enum act_bind value (0 to 6)");
	if (c->reactor_cpu < ACT_REACTOR_INLINE ||
	    c->reactor_cpu > ACT_REACTOR_CPU(ACT_CPU_MAX))
		return bad_field("reactor_cpu", c->reactor_cpu,
				 "ACT_REACTOR_DEFAULT, ACT_REACTOR_AUTO, "
				 "ACT_REACTOR_NONE, ACT_REACTOR_INLINE or "
				 "ACT_REACTOR_CPU(0 to 65535)");
	if (c->stack_guard < ACT_GUARD_AUTO ||
	    c->stack_guard > ACT_GUARD_CANARY)
		return bad_field("stack_guard", c->stack_guard,
				 "an enum act_guard value");
	return 0;
}

/*
 * Field set > environment > default (settings/vars.h), for every setting
 * and test switch but the placement three and the switches of pinning
 * and of the topology, which act__plan_resolve resolves in placement().
 * Then what the fields' own forms mean: a negative spin_us is -1 (no
 * spinning), ACT_MAILBOX_UNLIMITED (the field's, or
 * ACTORS_MAILBOX_LIMIT=off) is 0 (no limit).
 */
static int resolve(const struct act_config *in, struct act__settings *s)
{
	struct act_config *c = &s->cfg;
	int rc;

	if (in) {
		rc = check_fields(in);
		if (rc)
			return rc;
	}
	act__vars_settings_init(s, in);
	c->stack_size = act__env_stack_size_ok(c->stack_size);
	rc = act__vars_resolve(s, ACT_VARS_ALL & ~ACT_VARS_PLAN);
	if (rc)
		return rc;
	if (c->spin_us < 0)
		c->spin_us = -1;
	if (c->mailbox_limit == ACT_MAILBOX_UNLIMITED)
		c->mailbox_limit = 0;
	if (!c->max_procs)
		c->max_procs = DEFAULT_MAX_PROCS;
	if (!c->reductions)
		c->reductions = DEFAULT_REDUCTIONS;
	return 0;
}

/* Slot p (index i): if its process was alive when the main process
 * left, give back what it held, onto w0's lists. */
static void reclaim_slot(struct act__worker *w0, struct act__proc *p,
			 uint32_t i)
{
	unsigned st =
		act__ps(atomic_load_explicit(&p->state, memory_order_relaxed));

	if (st != ACT_PS_FREE) {
		/* woken by its accept, discarded before it ran: the
		 * descriptor is nobody's (io.h) */
		if (atomic_load_explicit(&p->io_word, memory_order_relaxed) &
		    ACT_IO_ACCEPTED)
			close(p->accepted_fd);
		act__links_reclaim(p); /* no handlers, no signals */
		/* its timeout: the reactor, stopped, handed it over */
		free(p->armed);
		p->armed = NULL;
		act__ctx_destroy(&p->ctx); /* its TSan fiber */
		act__stack_put(&w0->stacks, p->stack_lo, p->stack_size);
		p->stack_lo = NULL;
		atomic_store_explicit(&p->state, ACT_PS_FREE,
				      memory_order_relaxed);
		act__proc_set_free_next(p, w0->slots.head);
		w0->slots.head = i;
	}
	act__mailbox_drain(p, &w0->slab);
}

/* ACT_TEST_FAIL (base/fail.h): its rules armed until act_main returns,
 * before the first call at any site. */
static int arm_faults(const struct act__settings *s)
{
	struct act__fail_spec spec;

	if (s->test.fail && act__fail_parse(s->test.fail, &spec))
		return -EINVAL; /* the table checked it: never */
	act__fail_arm(s->test.fail ? &spec : NULL,
		      s->test.fail_seed ? s->test.fail_seed : 1);
	return 0;
}

/* All threads but this one have stopped: reclaim what is left. */
static void reclaim(struct act__rt *rt)
{
	struct act__worker *w0 = &rt->workers[0];
	struct act__ptable *t = &rt->procs;
	int64_t stacks = 0, envs = 0, free_slots = 0;
	uint32_t i, r, end;

	/* each home's region, up to the slots it handed out */
	for (r = 0; r < t->nhomes; r++) {
		end = t->homes[r].base +
		      atomic_load_explicit(&t->homes[r].used,
					   memory_order_relaxed);
		for (i = t->homes[r].base; i < end; i++)
			reclaim_slot(w0, &t->slots[i], i);
	}
	act__slab_flush_remote(&w0->slab);
	for (i = 0; i < rt->nworkers; i++) {
		stacks += (int64_t)rt->workers[i].stacks.n_out;
		envs += act__slab_outstanding(&rt->workers[i].slab);
		free_slots +=
			(int64_t)act__proc_cache_free(t, &rt->workers[i].slots);
	}
	free_slots += (int64_t)act__proc_table_shared_free(t);
	/* retired at gen_max: out of use, not lost */
	free_slots += (int64_t)atomic_load_explicit(&t->retired,
						    memory_order_relaxed);
	act__last_leaks.procs = (int64_t)act__proc_table_used(t) - free_slots;
	act__last_leaks.stacks = stacks;
	act__slab_walk_reclaim(); /* malloc'd ones a walk held back */
	act__last_leaks.envelopes = envs + act__slab_outstanding(&rt->foreign) +
				    act__slab_foreign_outstanding();
}

/* The park race's test switches (base/park.h), as they are now: off
 * unless a stress test set them before act_main. After the observers,
 * whose trace makes the wake's slow path too. */
static void test_switches(struct act__rt *rt)
{
	uint32_t i;

	for (i = 0; i < rt->nworkers; i++) {
		struct act__worker *w = &rt->workers[i];

		/* a build without the hooks (ACT_TEST_HOOKS 0) has none to
		 * turn on: nothing hooked, no slow wake for them */
		w->hooks = ACT_TEST_HOOKS &&
			   (act__park_test_hooks || act__park_test_mutant);
		w->drop_every = ACT_TEST_HOOKS ? act__park_test_drop_wakes : 0;
		w->drop_count = 0;
		w->hook_rng = 0x9e3779b97f4a7c15ull * (i + 1);
		w->slow = w->trace || w->hooks || w->drop_every;
	}
	rt->reactor->hooks = ACT_TEST_HOOKS &&
			     (act__park_test_hooks || act__park_test_mutant);
	rt->reactor->hook_rng = 0x2545f4914f6cdd1dull;
}

static void destroy(struct act__rt *rt)
{
	uint32_t i;

	for (i = 0; rt->workers && i < rt->nworkers; i++)
		act__worker_destroy(&rt->workers[i]);
	free(rt->workers);
	act__slab_destroy(&rt->foreign);
	act__slab_index_set(NULL, 0, 0, NULL);
	act__registry_destroy(rt);
	act__proc_table_destroy(&rt->procs);
	act__overflow_thread_fini();
	act__overflow_fini();
	act__stack_global_fini();
	act__claim_release();
	act__plan_free(&rt->plan);
	act__topology_free(&rt->topo);
	free(rt->worker_os_node);
	act__rt_current = NULL;
	free(rt);
}

static int build(struct act__rt *rt)
{
	uint32_t i;
	int *homes, rc;

	rc = act__stack_global_init(rt->cfg.stack_guard, rt->test.guard_budget);
	if (rc)
		return rc;
	rt->nworkers = (uint32_t)rt->cfg.schedulers;
	rt->spin_ns = rt->cfg.spin_us < 0 ? 0 : (int64_t)rt->cfg.spin_us * 1000;
	rt->workers = aligned_alloc(ACT_CACHELINE,
				    rt->nworkers * sizeof(*rt->workers));
	homes = calloc(rt->nworkers, sizeof(*homes));
	if (!rt->workers || !homes) {
		/* destroy() must not see workers that were never set up */
		free(homes);
		free(rt->workers);
		rt->workers = NULL;
		rt->nworkers = 0;
		return -ENOMEM;
	}
	act__slab_index_set(&rt->workers[0].slab, sizeof(*rt->workers),
			    rt->nworkers, &rt->foreign);
	act__homes_init(&rt->numa, rt->worker_os_node, rt->nworkers, homes,
			rt->topo.simulated, rt->test.numa);
	/* the table's regions follow the homes */
	rc = act__proc_table_init(
		&rt->procs,
		act__proc_table_size(rt->cfg.max_procs, rt->nworkers,
				     (uint32_t)rt->numa.nnodes),
		&rt->numa);
	if (!rc)
		rt->procs.max_alive = rt->cfg.max_procs;
	for (i = 0; i < rt->nworkers; i++) {
		struct act__worker *w = &rt->workers[i];

		act__worker_init(w, rt, i);
		if (!rc)
			rc = act__worker_set_home(w, homes[i]);
		w->victims = rt->plan.w[i].victims;
		memcpy(w->level_end, rt->plan.w[i].level_end,
		       sizeof(w->level_end));
	}
	free(homes);
	if (rc)
		return rc;
	act__slab_init(&rt->foreign, (uint16_t)rt->nworkers);
	atomic_store_explicit(&rt->foreign_lock, 0, memory_order_relaxed);
	act__registry_init(rt);
	rc = act__overflow_init();
	if (!rc)
		rc = act__overflow_thread_init();
	return rc;
}

/*
 * Scheduling policies, kept switchable for measurement
 * (doc/design/stealing.md has the figures behind each default):
 * ACTORS_WAKE: where a woken process goes, "waker" (the waking worker,
 * next to the process that woke it) or "last" (the worker it last ran
 * on, the RFD's choice). ACTORS_PLACE: where a spawn goes, "idle" (a
 * random worker if it wants work, else the spawner's) or "random" (any
 * random worker). ACTORS_BACKPRESSURE: "mute" (a sender to a backlogged
 * process waits for it, backpressure.h) or "off" (sends never wait).
 * ACTORS_STATS=1: the counters at exit.
 */
static void policies(struct act__rt *rt, const struct act__settings *s)
{
	rt->print_stats = s->stats != 0;
	rt->wake_to_waker = !s->wake_last;
	rt->place_random = s->place_random;
	rt->backpressure = !s->backpressure_off;
}

/*
 * The placement plan for this machine (lib/affinity/plan.h): the worker
 * count when none was set, each worker's CPUs and node, the reactor's
 * CPU, the steal order. More workers than CPUs is said once.
 */
static int placement(struct act__rt *rt)
{
	uint32_t i;
	int rc;

	rc = act__plan_resolve(&rt->cfg, NULL, &rt->topo, &rt->plan);
	if (rc)
		return rc;
	if (rt->plan.nworkers > MAX_SCHEDULERS) {
		fprintf(stderr, "actors: %d workers: at most %d\n",
			rt->plan.nworkers, MAX_SCHEDULERS);
		return -EINVAL;
	}
	rt->cfg.schedulers = rt->plan.nworkers;
	if (rt->plan.note[0]) /* not a warning: what the plan chose, said */
		fprintf(stderr, "actors: note: %s\n", rt->plan.note);
	rt->worker_os_node =
		calloc((size_t)rt->plan.nworkers, sizeof(*rt->worker_os_node));
	if (!rt->worker_os_node)
		return -ENOMEM;
	for (i = 0; i < (uint32_t)rt->plan.nworkers; i++)
		rt->worker_os_node[i] = rt->plan.w[i].node;
	return 0;
}

/* Workers 1..n-1: threads of their own. */
static void *worker_thread(void *arg)
{
	struct act__worker *w = arg;

	/* a systematic run: its turn first (base/systematic.h) */
	act__systematic_enter(w->sys_n);
	act__tls_set_worker(w);
	/* a new thread has its creator's floating-point control state:
	 * processes start from the defaults (arch/fp.h) */
	act__fp_load_default();
	act__plan_pin_thread(&w->rt->topo, &w->rt->pin_failed,
			     w->rt->plan.w[w->index].set, "worker",
			     (int)w->index);
	if (act__overflow_thread_init())
		fputs("actors: no alternate signal stack for a worker: a stack "
		      "overflow there will not be reported\n",
		      stderr);
	act__worker_loop(w);
	act__overflow_thread_fini();
	act__tls_set_worker(NULL);
	act__systematic_exit();
	return NULL;
}

/* Start workers 1..n-1; on failure stop and join those started. */
static int start_workers(struct act__rt *rt)
{
	uint32_t i;
	int rc = 0;

	for (i = 1; i < rt->nworkers; i++) {
		/* no switch point between thread_new and pthread_create
		 * (base/systematic.h): the fault site's is before */
		bool fail = ACT_FAIL(ACT_FAIL_THREAD);

		rt->workers[i].sys_n = act__systematic_thread_new("worker");
		rc = fail ? EAGAIN :
			    pthread_create(&rt->workers[i].thread, NULL,
					   worker_thread, &rt->workers[i]);
		if (rc) {
			act__systematic_thread_gone(rt->workers[i].sys_n);
			break;
		}
	}
	if (!rc)
		return 0;
	act__worker_stop_all(rt);
	while (--i >= 1) {
		act__systematic_join(rt->workers[i].sys_n);
		pthread_join(rt->workers[i].thread, NULL);
	}
	return -rc;
}

static void join_workers(struct act__rt *rt)
{
	uint32_t i;

	for (i = 1; i < rt->nworkers; i++) {
		/* a systematic run's worker leaves on its turn; the join
		 * that follows then waits for its last instructions only */
		act__systematic_join(rt->workers[i].sys_n);
		pthread_join(rt->workers[i].thread, NULL);
	}
}

/*
 * The runtime is up: open it, run fn(arg) as the main process on worker
 * 0, the caller's thread, until it exits, and close it again. The main
 * process's exit reason, or -ENOMEM.
 */
static int run_main(struct act__rt *rt, const struct act__settings *set,
		    void (*fn)(void *), void *arg)
{
	struct act__fpctl caller_fp;
	struct hwloc_bitmap_s *saved;
	act_pid main_pid;
	int rc;

	act__tls_set_worker(&rt->workers[0]);
	act__rt_open(rt);
	/* ACTORS_DUMP_SIGNAL: a handler only when asked for */
	rc = act__info_signal_start(rt, (int)set->dump_signal);
	if (rc)
		fprintf(stderr, "actors: ACTORS_DUMP_SIGNAL: sigaction: %s\n",
			strerror(-rc));
	/* worker 0 is the caller's thread: its mask is put back at the end */
	saved = act__plan_binding_get(&rt->topo);
	/* a mask that could not be saved could not be put back: the
	 * caller's thread then stays as it is */
	if (saved)
		act__plan_pin_thread(&rt->topo, &rt->pin_failed,
				     rt->plan.w[0].set, "worker", 0);
	/* processes start from the default floating-point control
	 * state, whatever the caller's thread had; it gets its own back */
	act__fp_save(&caller_fp);
	act__fp_load_default();
	rc = act__spawn(&rt->workers[0], fn, arg, rt->cfg.stack_size,
			rt->cfg.mailbox_limit, true, NULL, false, &main_pid);
	if (rc) {
		act__worker_stop_all(rt);
	} else {
		act__worker_loop(&rt->workers[0]);
		rc = (int)rt->main_reason;
	}
	act__fp_load(&caller_fp);
	act__tls_set_worker(NULL);
	/* no dump asked from now on: act_main stops the reactor next */
	act__info_signal_stop();
	/* before anything is stopped or freed: a foreign act_send or
	 * act_send_after inside now still finds the workers and the
	 * reactor running */
	act__rt_close();
	act__plan_binding_put(&rt->topo, saved, rt->plan.w[0].set != NULL);
	return rc;
}

/*
 * ACTORS_SEED: a systematic run from here on, the caller's thread its
 * first participant (base/systematic.h); a library built without it
 * refuses the variable rather than run unseeded under a seed.
 */
static int systematic_begin(const struct act__settings *set)
{
	if (!set->seed)
		return 0;
	if (!ACT_SYSTEMATIC) {
		fprintf(stderr,
			"actors: ACTORS_SEED=%llu: this library was built "
			"without --enable-systematic (doc/systematic.md)\n",
			set->seed);
		return -ENOTSUP;
	}
	return act__systematic_begin(set->seed);
}

/* The test switches of a run, once its settings are resolved: the
 * faults armed (ACT_TEST_FAIL), a systematic run begun (ACTORS_SEED; then
 * *sys_run). */
static int tests_begin(const struct act__settings *set, bool *sys_run)
{
	int rc = arm_faults(set);

	if (!rc)
		rc = systematic_begin(set);
	*sys_run = !rc && ACT_SYSTEMATIC && set->seed;
	return rc;
}

/* Every other thread of the runtime has ended: the faults disarmed, the
 * systematic run's path printed and the run ended. */
static void tests_end(bool sys_run)
{
	act__fail_disarm();
	if (sys_run)
		act__systematic_end();
}

int act_main(const struct act_config *cfg, void (*fn)(void *), void *arg)
{
	struct act__rt *rt;
	struct rt_block *blk;
	struct act__settings set;
	bool sys_run = false; /* a systematic run began (ACTORS_SEED) */
	int rc;

	if (!fn)
		return -EINVAL;
	/* seq_cst (plain exchange): one act_main at a time; the order
	 * does not matter, only that one caller wins */
	if (act__tls_worker_self() || atomic_exchange(&running, 1))
		return -EBUSY;
	blk = aligned_alloc(ACT_CACHELINE,
			    act__align_up(sizeof(*blk), ACT_CACHELINE));
	if (blk) {
		memset(blk, 0, sizeof(*blk));
		rt = &blk->rt;
		rt->reactor = &blk->reactor;
	}
	if (!blk) {
		rc = -ENOMEM;
		goto err_running;
	}
	rc = resolve(cfg, &set);
	if (!rc)
		rc = tests_begin(&set, &sys_run);
	if (rc)
		goto err_rt;
	rt->cfg = set.cfg;
	rt->test = set.test;
	policies(rt, &set);
	rc = placement(rt);
	if (rc)
		goto err_rt;
	/* ACTORS_CPU_CLAIM: only when asked for; released by destroy() */
	rc = act__claim_take(&rt->topo, &rt->plan, (int)set.cpu_claim);
	if (rc)
		goto err_rt;
	act__vars_warn_unknown();
	act__rt_current = rt;
	rc = build(rt);
	if (rc)
		goto err_rt;
	rc = act__observe_start(rt, &set);
	if (rc)
		goto err_observe; /* what it had set up is freed there */
	test_switches(rt);
	rc = act__reactor_start(rt->reactor, rt);
	if (rc)
		goto err_observe;
	rc = act__blocking_start(rt, rt->cfg.blocking_threads);
	if (rc)
		goto err_reactor;
	rc = start_workers(rt);
	if (rc) {
		act__blocking_stop();
		goto err_reactor;
	}
	rc = run_main(rt, &set, fn, arg);
	join_workers(rt);
	/* no process runs: the functions still running are waited for */
	act__blocking_stop();
	if (rt->print_stats) {
		act__stats_print(rt, stderr);
		act__route_stats(rt, stderr);
	}
err_reactor:
	act__reactor_stop(rt->reactor);
err_observe:
	/* once the reactor has stopped: the trace has its events too */
	act__observe_stop(rt);
	/* nothing to reclaim when no worker started, but the tables that
	 * build() made are whole, and the leak counts say so */
	reclaim(rt);
	act__route_stop(rt);
err_rt:
	destroy(rt);
err_running:
	tests_end(sys_run); /* every thread of the runtime has ended */
	/* seq_cst (plain store): the next act_main may start; what this
	 * one freed was freed before, in program order */
	atomic_store(&running, 0);
	return rc;
}
