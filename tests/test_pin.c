/* SPDX-License-Identifier: MIT */
/*
 * test_pin.c - the placement plan applied on this machine (lib/node/runtime.c):
 * each worker thread and the reactor thread ("act-reactor") bound to the
 * CPUs the plan gives them, nothing bound under ACTORS_BIND=none, the
 * calling thread's mask put back when act_main returns, and a failed bind
 * said once on stderr while the runtime goes on unbound.
 *
 * Each case runs act_main in a child (tu_run_child: its own environment,
 * stderr captured). Processes read their thread's affinity with
 * sched_getaffinity right after act_worker(), with no runtime call in
 * between, so no switch can move them to another worker's thread; the
 * main process finds the reactor thread by name in /proc/self/task. What
 * the child saw comes back through shared memory; the parent asserts.
 */
#include <dirent.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <hwloc.h>

#include "testrt.h"

#include "affinity/plan.h"
#include "node/runtime.h"

#define MAXW 4
#define MAXT 32

struct pin_out {
	int rc;	 /* act_main's */
	int ran; /* the main process got to its end */
	int nworkers, bind, reactor_cpu, reactor_inline;
	int plan_bound[MAXW];
	cpu_set_t plan_set[MAXW];
	_Atomic int seen[MAXW];
	pid_t tid[MAXW];
	cpu_set_t worker_mask[MAXW];
	int reactor_found;
	cpu_set_t reactor_mask;
	int ntasks; /* every thread of the process, while it ran */
	pid_t task_tid[MAXT];
	char task_comm[MAXT][20];
	cpu_set_t task_mask[MAXT];
	cpu_set_t before, after; /* the calling thread's, around act_main */
	pid_t caller;		 /* its thread id: worker 0's */
};

static struct pin_out *out;   /* shared with the child */
static cpu_set_t allowed;     /* this process's mask at start */
static int cpus[CPU_SETSIZE]; /* its CPUs, in order */
static int ncpus;

/* ---- inside the runtime ---------------------------------------------- */

static bool all_seen(void)
{
	int i;

	for (i = 0; i < out->nworkers && i < MAXW; i++)
		if (!atomic_load(&out->seen[i]))
			return false;
	return true;
}

/* The mask of the thread of the worker running the caller. */
static void record(void)
{
	int i = act_worker();
	cpu_set_t m;

	if (i < 0 || i >= MAXW || atomic_load(&out->seen[i]))
		return;
	CPU_ZERO(&m);
	if (sched_getaffinity(0, sizeof(m), &m))
		return;
	out->worker_mask[i] = m;
	out->tid[i] = (pid_t)syscall(SYS_gettid);
	atomic_store(&out->seen[i], 1);
}

static void probe(void *arg)
{
	int64_t deadline = act__clock_now() + 10 * 1000000000LL;

	(void)arg;
	while (!all_seen() && act__clock_now() < deadline) {
		record();
		act_yield();
	}
}

/* Every thread of this process, with its name and mask. */
static void scan_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && out->ntasks < MAXT) {
		char path[300];
		FILE *f;
		int k = out->ntasks;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		out->task_tid[k] = atoi(e->d_name);
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(out->task_comm[k], 1, sizeof(out->task_comm[k]) - 1,
			  f);
		fclose(f);
		out->task_comm[k][n] = '\0';
		out->task_comm[k][strcspn(out->task_comm[k], "\n")] = '\0';
		if (sched_getaffinity(out->task_tid[k], sizeof(cpu_set_t),
				      &out->task_mask[k]))
			continue;
		if (!strcmp(out->task_comm[k], "act-reactor")) {
			out->reactor_found++;
			out->reactor_mask = out->task_mask[k];
		}
		out->ntasks++;
	}
	closedir(d);
}

static void pin_main(void *arg)
{
	struct act__rt *rt = act__rt_current;
	int64_t deadline = 0;
	int i, cpu;

	(void)arg;
	out->nworkers = rt->plan.nworkers;
	out->bind = rt->plan.bind;
	out->reactor_cpu = rt->plan.reactor_cpu;
	out->reactor_inline = rt->plan.reactor_inline;
	for (i = 0; i < rt->plan.nworkers && i < MAXW; i++) {
		CPU_ZERO(&out->plan_set[i]);
		out->plan_bound[i] = rt->plan.w[i].set != NULL;
		if (rt->plan.w[i].set)
			hwloc_bitmap_foreach_begin(cpu, rt->plan.w[i].set)
				CPU_SET(cpu, &out->plan_set[i]);
		hwloc_bitmap_foreach_end();
	}
	for (i = 0; i < 4 * out->nworkers; i++)
		ck_assert_uint_ne(act_spawn(probe, NULL).id, 0);
	for (i = 0; !all_seen() && tu_wait_step(&deadline, i); i++)
		record();
	scan_tasks();
	out->ran = 1;
}

/* ---- the child ---------------------------------------------------------- */

struct pin_case {
	int bind;	       /* act_config.bind */
	int workers;	       /* act_config.schedulers */
	const char *env[3][2]; /* variables to set */
	int mask_cpus;	       /* >0: bind the caller to this many first CPUs */
	bool unbound;	       /* binding fails (ACT_TEST_PIN=fail) */
};

static void pin_child(void *arg)
{
	const struct pin_case *pc = arg;
	struct act_config cfg = tu_with_workers(pc->workers);
	cpu_set_t m;
	int i;

	for (i = 0; i < 3 && pc->env[i][0]; i++)
		setenv(pc->env[i][0], pc->env[i][1], 1);
	if (pc->mask_cpus) {
		CPU_ZERO(&m);
		for (i = 0; i < pc->mask_cpus; i++)
			CPU_SET(cpus[i], &m);
		if (sched_setaffinity(0, sizeof(m), &m))
			_exit(3);
	}
	sched_getaffinity(0, sizeof(cpu_set_t), &out->before);
	out->caller = (pid_t)syscall(SYS_gettid);
	cfg.bind = pc->bind;
	out->rc = act_main(&cfg, pin_main, NULL);
	sched_getaffinity(0, sizeof(cpu_set_t), &out->after);
}

static void mask_str(const cpu_set_t *m, char *buf, size_t len)
{
	size_t at = 0;
	int c;

	buf[0] = '\0';
	for (c = 0; c < CPU_SETSIZE && at + 8 < len; c++)
		if (CPU_ISSET(c, m))
			at += (size_t)snprintf(buf + at, len - at, "%s%d",
					       at ? "," : "", c);
}

#define assert_mask(what, got, want)                     \
	do {                                             \
		char g_[256], w_[256];                   \
		mask_str(got, g_, sizeof(g_));           \
		mask_str(want, w_, sizeof(w_));          \
		ck_assert_msg(CPU_EQUAL(got, want),      \
			      "%s: mask {%s}, expected " \
			      "{%s}",                    \
			      what, g_, w_);             \
	} while (0)

/* Run one case; stderr (less the io_uring line) into c. */
static void run_case(const struct pin_case *pc, struct tu_child *c)
{
	char what[64];
	int i;

	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(out, MAP_FAILED);
	memset(out, 0, sizeof(*out));
	out->rc = 12345;
	tu_run_child(pin_child, (void *)pc, c);
	ck_assert_msg(WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0,
		      "child status %#x, stderr: %s", c->status, c->err);
	ck_assert_msg(out->rc == 0, "act_main returned %d; stderr: %s", out->rc,
		      c->err);
	ck_assert_int_eq(out->ran, 1);
	ck_assert_int_eq(out->nworkers, pc->workers);
	ck_assert_msg(all_seen(), "not every worker ran a probe");
	/* a reactor thread, unless the plan runs it inline */
	ck_assert_int_eq(out->reactor_found, !out->reactor_inline);
	/* the caller's mask is put back */
	assert_mask("the caller after act_main", &out->after, &out->before);
	for (i = 0; i < out->nworkers; i++) {
		snprintf(what, sizeof(what), "worker %d", i);
		if (out->plan_bound[i] && !pc->unbound)
			assert_mask(what, &out->worker_mask[i],
				    &out->plan_set[i]);
		else
			assert_mask(what, &out->worker_mask[i], &out->before);
	}
	/* worker 0 runs on the caller's thread */
	ck_assert_int_eq(out->tid[0], out->caller);
}

static void assert_reactor_on(int cpu)
{
	cpu_set_t want;

	CPU_ZERO(&want);
	if (cpu >= 0)
		CPU_SET(cpu, &want);
	else
		want = out->before;
	assert_mask("the reactor", &out->reactor_mask, &want);
}

static void done(void)
{
	munmap(out, sizeof(*out));
	out = NULL;
}

static const char *cpu_name(int i)
{
	static char buf[4][16];

	snprintf(buf[i], sizeof(buf[i]), "%d", cpus[i]);
	return buf[i];
}

/* ---- the cases ---------------------------------------------------------- */

/* core, 2 workers: each on a CPU of its own, as planned; the reactor as
 * planned (here no core is left: not bound). */
START_TEST(pin_core)
{
	struct pin_case pc = { .bind = ACT_BIND_CORE, .workers = 2 };
	struct tu_child c;
	int i;

	run_case(&pc, &c);
	ck_assert_str_eq(c.err, "");
	ck_assert_int_eq(out->bind, ACT_BIND_CORE);
	for (i = 0; i < 2; i++) {
		ck_assert(out->plan_bound[i]);
		ck_assert_int_eq(CPU_COUNT(&out->worker_mask[i]), 1);
	}
	ck_assert(!CPU_EQUAL(&out->worker_mask[0], &out->worker_mask[1]));
	ck_assert_int_ne(out->tid[0], out->tid[1]);
	assert_reactor_on(out->reactor_cpu);
	done();
}
END_TEST

/* core, 1 worker: the reactor on the CPU left over; or on the one named. */
START_TEST(pin_reactor)
{
	struct pin_case pc = { .bind = ACT_BIND_CORE, .workers = 1 };
	struct pin_case named = {
		.bind = ACT_BIND_CORE,
		.workers = 2,
		.env = { { "ACTORS_REACTOR_CPU", cpu_name(0) } },
	};
	struct tu_child c;

	run_case(&pc, &c);
	ck_assert_str_eq(c.err, "");
	ck_assert_int_ge(out->reactor_cpu, 0);
	ck_assert(!CPU_ISSET(out->reactor_cpu, &out->worker_mask[0]));
	assert_reactor_on(out->reactor_cpu);
	done();

	run_case(&named, &c);
	ck_assert_str_eq(c.err, "");
	ck_assert_int_eq(out->reactor_cpu, cpus[0]);
	assert_reactor_on(cpus[0]);
	done();
}
END_TEST

/* none, by the field or by ACTORS_BIND: every thread keeps the mask the
 * process had. */
START_TEST(pin_none)
{
	struct pin_case field = { .bind = ACT_BIND_NONE, .workers = 2 };
	struct pin_case env = { .workers = 3,
				.env = { { "ACTORS_BIND", "none" } } };
	const struct pin_case *cases[] = { &field, &env };
	struct tu_child c;
	unsigned k;
	int i;

	for (k = 0; k < 2; k++) {
		run_case(cases[k], &c);
		ck_assert_int_eq(out->bind, ACT_BIND_NONE);
		ck_assert_int_eq(out->reactor_cpu, -1);
		for (i = 0; i < out->nworkers; i++) {
			ck_assert(!out->plan_bound[i]);
			assert_mask("worker", &out->worker_mask[i],
				    &out->before);
		}
		assert_reactor_on(-1);
		ck_assert_int_ge(out->ntasks, out->nworkers + 1);
		for (i = 0; i < out->ntasks; i++)
			if (strncmp(out->task_comm[i], "iou-", 4))
				assert_mask(out->task_comm[i],
					    &out->task_mask[i], &out->before);
		done();
	}
}
END_TEST

/* ACTORS_CPUS names the second CPU: worker 0 there, and, with no CPU
 * beside it, the reactor inline in it (no reactor thread); with two
 * workers both, and a note on stderr, and a reactor thread that has no
 * CPU of its own left. */
START_TEST(pin_cpus)
{
	struct pin_case one = { .workers = 1,
				.env = { { "ACTORS_CPUS", cpu_name(1) } } };
	struct pin_case two = { .bind = ACT_BIND_CORE,
				.workers = 2,
				.env = { { "ACTORS_CPUS", cpu_name(1) } } };
	cpu_set_t want;
	struct tu_child c;

	CPU_ZERO(&want);
	CPU_SET(cpus[1], &want);
	run_case(&one, &c);
	ck_assert_str_eq(c.err, "");
	assert_mask("worker 0", &out->worker_mask[0], &want);
	ck_assert_int_eq(out->reactor_cpu, -1);
	ck_assert(out->reactor_inline);
	ck_assert_int_eq(out->reactor_found, 0);
	done();

	run_case(&two, &c);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
	ck_assert_msg(strstr(c.err, "2 workers on 1 usable CPUs"), "stderr: %s",
		      c.err);
	assert_mask("worker 0", &out->worker_mask[0], &want);
	assert_mask("worker 1", &out->worker_mask[1], &want);
	assert_reactor_on(-1);
	done();
}
END_TEST

/* The caller's own mask, set to something specific first, is put back
 * after act_main bound it as worker 0. */
START_TEST(pin_restore)
{
	struct pin_case pc = { .bind = ACT_BIND_CORE,
			       .workers = 1,
			       .env = { { "ACTORS_CPUS", cpu_name(1) } },
			       .mask_cpus = 2 };
	struct pin_case pu = { .bind = ACT_BIND_PU,
			       .workers = 2,
			       .mask_cpus = 2 };
	cpu_set_t want;
	struct tu_child c;

	CPU_ZERO(&want);
	CPU_SET(cpus[0], &want);
	CPU_SET(cpus[1], &want);
	run_case(&pc, &c);
	assert_mask("the caller before", &out->before, &want);
	assert_mask("the caller after", &out->after, &want);
	CPU_CLR(cpus[0], &want);
	assert_mask("the caller as worker 0", &out->worker_mask[0], &want);
	done();

	run_case(&pu, &c);
	ck_assert_int_eq(CPU_COUNT(&out->before), 2);
	ck_assert_int_eq(CPU_COUNT(&out->worker_mask[0]), 1);
	ck_assert_int_eq(CPU_COUNT(&out->after), 2);
	done();
}
END_TEST

/* numa: each worker on its node's usable CPUs. */
START_TEST(pin_numa)
{
	struct pin_case pc = { .bind = ACT_BIND_NUMA, .workers = 2 };
	struct tu_child c;

	run_case(&pc, &c);
	ck_assert_str_eq(c.err, "");
	ck_assert(out->plan_bound[0] && out->plan_bound[1]);
	assert_reactor_on(out->reactor_cpu);
	done();
}
END_TEST

/* A bind that fails: one line, and everything runs unbound. */
START_TEST(pin_fail)
{
	struct pin_case pc = { .bind = ACT_BIND_CORE,
			       .workers = 2,
			       .env = { { "ACT_TEST_PIN", "fail" },
					{ "ACTORS_REACTOR_CPU", cpu_name(0) } },
			       .unbound = true };
	struct tu_child c;
	int i;

	run_case(&pc, &c);
	ck_assert_msg(tu_str_lines(c.err) == 1 &&
			      strstr(c.err, "actors: cannot bind"),
		      "stderr: %s", c.err);
	ck_assert_int_eq(out->reactor_cpu, cpus[0]);
	for (i = 0; i < 2; i++) {
		ck_assert(out->plan_bound[i]); /* planned, not applied */
		assert_mask("worker", &out->worker_mask[i], &out->before);
	}
	assert_reactor_on(-1);
	done();
}
END_TEST

/* none with ACTORS_CPUS: not bound to a CPU, but kept within the set. */
START_TEST(pin_none_cpus)
{
	struct pin_case pc = { .bind = ACT_BIND_NONE,
			       .workers = 2,
			       .env = { { "ACTORS_CPUS", cpu_name(1) } } };
	struct tu_child c;
	cpu_set_t want;
	int i;

	run_case(&pc, &c);
	/* 2 workers on 1 usable CPU: the one note */
	ck_assert_msg(tu_str_lines(c.err) == 1 && strstr(c.err, "not bound"),
		      "stderr: %s", c.err);
	CPU_ZERO(&want);
	CPU_SET(cpus[1], &want);
	for (i = 0; i < 2; i++) {
		ck_assert(out->plan_bound[i]);
		assert_mask("worker", &out->worker_mask[i], &want);
	}
	assert_reactor_on(-1);
	done();
}
END_TEST

/* hwloc cannot read the machine: a stand-in of the affinity mask's CPU
 * count plans the workers, one line says so, and nothing is bound. */
START_TEST(pin_hwloc_fails)
{
	struct pin_case pc = { .bind = ACT_BIND_CORE,
			       .workers = 2,
			       .env = { { "ACT_TEST_HWLOC", "fail" } },
			       .unbound = true };
	struct tu_child c;
	int i;

	run_case(&pc, &c);
	ck_assert_msg(tu_str_lines(c.err) == 1 &&
			      strstr(c.err, "hwloc could not read") &&
			      strstr(c.err, "nothing bound"),
		      "stderr: %s", c.err);
	for (i = 0; i < 2; i++)
		assert_mask("worker", &out->worker_mask[i], &out->before);
	assert_reactor_on(-1);
	done();
}
END_TEST

static Suite *pin_suite(void)
{
	Suite *s = suite_create("pin");
	TCase *tc = tcase_create("pin");
	const char *why = "needs 2 CPUs in the affinity mask";
	bool few = ncpus < 2;

	tcase_set_timeout(tc, 60);
	tu_add_test_unless(few, why, tc, pin_core);
	tu_add_test_unless(few, why, tc, pin_reactor);
	tu_add_test_unless(few, why, tc, pin_none);
	tu_add_test_unless(few, why, tc, pin_cpus);
	tu_add_test_unless(few, why, tc, pin_restore);
	tu_add_test_unless(few, why, tc, pin_numa);
	tu_add_test_unless(few, why, tc, pin_fail);
	tu_add_test_unless(few, why, tc, pin_hwloc_fails);
	tu_add_test_unless(few, why, tc, pin_none_cpus);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int c;

	/* Every case is about this machine's CPUs: a simulated machine
	 * (ACT_TEST_TOPOLOGY) binds no thread, so the whole program runs on
	 * the real one, from before its first runtime. */
	tu_real_machine();
	unsetenv("ACTORS_BIND");
	unsetenv("ACTORS_CPUS");
	unsetenv("ACTORS_REACTOR_CPU");
	unsetenv("ACT_TEST_PIN");
	unsetenv("ACT_TEST_HWLOC");
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return EXIT_FAILURE;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[ncpus++] = c;
	return tu_run_suite(pin_suite());
}
