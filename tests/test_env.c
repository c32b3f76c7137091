/* SPDX-License-Identifier: MIT */
/*
 * test_env.c - ACTORS_* parsing (lib/settings/env.c) and how act_main resolves
 * its configuration: field set > environment > default, and a bad value
 * stops start-up with -EINVAL and one line on stderr.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>

#include <hwloc.h>

#include "testrt.h"

#include "settings/env.h"
#include "node/runtime.h"
#include "sched/worker.h"

/* Results that a forked child (tu_run_child) hands back to the test. */
struct shared {
	int rc;
	size_t stack_size;
};

static struct shared *shared_map(void)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(sh, MAP_FAILED);
	sh->rc = 12345;
	return sh;
}

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* stderr holds exactly one line, and it names each of the words. */
static void assert_one_line(const struct tu_child *c, const char *w1,
			    const char *w2, const char *w3)
{
	size_t len = strlen(c->err);

	ck_assert_msg(count_char(c->err, '\n') == 1 && c->err[len - 1] == '\n',
		      "expected one line on stderr, got \"%s\"", c->err);
	ck_assert_msg(strncmp(c->err, "actors: ", 8) == 0,
		      "line does not start with \"actors: \": %s", c->err);
	ck_assert_msg(strstr(c->err, w1), "\"%s\" not in: %s", w1, c->err);
	if (w2)
		ck_assert_msg(strstr(c->err, w2), "\"%s\" not in: %s", w2,
			      c->err);
	if (w3)
		ck_assert_msg(strstr(c->err, w3), "\"%s\" not in: %s", w3,
			      c->err);
}

static void clear_env(void)
{
	static const char *const vars[] = {
		"ACTORS_STACK_SIZE",	"ACTORS_SCHEDULERS",
		"ACTORS_BIND",		"ACTORS_CPUS",
		"ACTORS_REACTOR_CPU",	"ACTORS_SPIN_US",
		"ACTORS_MAILBOX_LIMIT", "ACTORS_TIMER_US",
		"ACTORS_RING_ENTRIES",	"ACTORS_STATS",
		"ACTORS_WAKE",		"ACTORS_PLACE",
		"ACTORS_BACKPRESSURE",	"ACT_TEST_PIN",
	};
	unsigned i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* ---- act__env_parse_size / act__env_parse_uint / act__env_stack_size_ok
 * ---------- */

START_TEST(parse_size_accepts)
{
	static const struct {
		const char *s;
		size_t v;
	} ok[] = {
		{ "65536", 65536 },	   { "64k", 64 << 10 },
		{ "64K", 64 << 10 },	   { "1m", 1 << 20 },
		{ "1M", 1 << 20 },	   { "1g", (size_t)1 << 30 },
		{ "1G", (size_t)1 << 30 }, { "0", 0 },
		{ "16384", 16384 },	   { "3k", 3072 },
	};
	unsigned i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		size_t v = 777;

		ck_assert_msg(act__env_parse_size(ok[i].s, &v) == 0,
			      "\"%s\" rejected", ok[i].s);
		ck_assert_msg(v == ok[i].v, "\"%s\" -> %zu, expected %zu",
			      ok[i].s, v, ok[i].v);
	}
}
END_TEST

START_TEST(parse_size_rejects)
{
	static const char *const bad[] = {
		"",
		"k",
		"12q",
		"-1",
		"64kb",
		" 64k",
		"64k ",
		"+64k",
		"0x10",
		"1.5m",
		"m1",
		"1t",
		"64 k",
		"99999999999999999999",
		"18446744073709551615k",
		"17179869184g",
	};
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t v = 777;

		ck_assert_msg(act__env_parse_size(bad[i], &v) == -EINVAL,
			      "\"%s\" accepted (-> %zu)", bad[i], v);
		ck_assert_msg(v == 777, "\"%s\" rejected but wrote %zu", bad[i],
			      v);
	}
	ck_assert_int_eq(act__env_parse_size(NULL, &(size_t){ 0 }), -EINVAL);
}
END_TEST

START_TEST(parse_uint_bounds)
{
	uint64_t v = 99;

	ck_assert_int_eq(act__env_parse_uint("1", 1, 1, &v), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(act__env_parse_uint("42", 0, 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	v = 99;
	ck_assert_int_eq(act__env_parse_uint("0", 1, 1, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint("2", 1, 1, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint("abc", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint("", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint("-1", 0, UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint("1x", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint(" 1", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(act__env_parse_uint("18446744073709551616", 0,
					     UINT64_MAX, &v),
			 -EINVAL);
	ck_assert_int_eq(act__env_parse_uint(NULL, 0, 100, &v), -EINVAL);
	ck_assert_uint_eq(v, 99);
}
END_TEST

START_TEST(stack_size_bounds)
{
	ck_assert_uint_eq(act__env_stack_size_ok(0), 0);
	ck_assert_uint_eq(act__env_stack_size_ok(100), 0);
	ck_assert_uint_eq(act__env_stack_size_ok(16383), 0);
	ck_assert_uint_eq(act__env_stack_size_ok(16384), 16384);
	ck_assert_uint_eq(act__env_stack_size_ok(16385), 20480);
	ck_assert_uint_eq(act__env_stack_size_ok(20000), 20480);
	ck_assert_uint_eq(act__env_stack_size_ok(65536), 65536);
	ck_assert_uint_eq(act__env_stack_size_ok(((size_t)1 << 30) - 1),
			  (size_t)1 << 30);
	ck_assert_uint_eq(act__env_stack_size_ok((size_t)1 << 30),
			  (size_t)1 << 30);
	ck_assert_uint_eq(act__env_stack_size_ok(((size_t)1 << 30) + 1), 0);
	ck_assert_uint_eq(act__env_stack_size_ok(SIZE_MAX), 0);
}
END_TEST

/* ---- act_main with a bad environment ------------------------------------ */

static void noop_main(void *arg)
{
	(void)arg;
}

struct env_case {
	const char *name, *value;
	struct shared *sh;
};

static void child_env_main(void *arg)
{
	struct env_case *ec = arg;

	clear_env();
	setenv(ec->name, ec->value, 1);
	ec->sh->rc = act_main(NULL, noop_main, NULL);
}

/* Returns what act_main returned (the caller asserts -EINVAL). */
static int check_bad_env(const char *name, const char *value, const char *w3)
{
	struct env_case ec = { name, value, shared_map() };
	struct tu_child c;
	char quoted[64];
	int rc;

	tu_run_child(child_env_main, &ec, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "%s=%s: child status %#x", name, value, c.status);
	ck_assert_msg(ec.sh->rc == -EINVAL, "%s=%s: act_main returned %d", name,
		      value, ec.sh->rc);
	snprintf(quoted, sizeof(quoted), "%s", value);
	assert_one_line(&c, name, quoted, w3);
	rc = ec.sh->rc;
	munmap(ec.sh, sizeof(*ec.sh));
	return rc;
}

START_TEST(env_stack_size_bad)
{
	/* the accepted forms: the range, in the same units as the input */
	ck_assert_int_eq(check_bad_env("ACTORS_STACK_SIZE", "12q", "16k"),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_STACK_SIZE", "12q", "1g"),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_STACK_SIZE", "8k", "16k"),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_STACK_SIZE", "2g", "1g"),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_STACK_SIZE", "", "16k"),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_STACK_SIZE", "0", "16k"),
			 -EINVAL);
}
END_TEST

START_TEST(env_schedulers_bad)
{
	ck_assert_int_eq(check_bad_env("ACTORS_SCHEDULERS", "abc", NULL),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_SCHEDULERS", "0", NULL),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_SCHEDULERS", "1025", NULL),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_SCHEDULERS", "-1", NULL),
			 -EINVAL);
	ck_assert_int_eq(check_bad_env("ACTORS_SCHEDULERS", "2x", NULL),
			 -EINVAL);
}
END_TEST

/* CPUs of this process, in order (main() fills them). */
static int my_cpus[CPU_SETSIZE];
static int my_ncpus;

/*
 * A table of bad values, one variable set at a time: act_main returns
 * -EINVAL and writes exactly one line, "actors: VAR=\"value\": ...", with
 * a hint of what is accepted (why, when given).
 */
struct bad_value {
	const char *var, *value, *why;
};

static const struct bad_value bad_values[] = {
	{ "ACTORS_SCHEDULERS", "", "1 to 1024" },
	{ "ACTORS_SCHEDULERS", "0", "1 to 1024" },
	{ "ACTORS_SCHEDULERS", "-2", "1 to 1024" },
	{ "ACTORS_SCHEDULERS", "four", "1 to 1024" },
	{ "ACTORS_SCHEDULERS", "2000", "1 to 1024" },
	{ "ACTORS_SCHEDULERS", "3 ", "1 to 1024" },
	{ "ACTORS_STACK_SIZE", "1t", "16k" },
	{ "ACTORS_STACK_SIZE", "4k", "16k" },
	{ "ACTORS_BIND", "", "spread" },
	{ "ACTORS_BIND", "cores", "spread" },
	{ "ACTORS_BIND", "CORE", "spread" },
	{ "ACTORS_BIND", "core ", "spread" },
	{ "ACTORS_CPUS", "", "empty" },
	{ "ACTORS_CPUS", "a", "not a number" },
	{ "ACTORS_CPUS", "-1", "negative" },
	{ "ACTORS_CPUS", "3-1", "reversed" },
	{ "ACTORS_CPUS", "0,0", "twice" },
	{ "ACTORS_CPUS", "0-1,1", "twice" },
	{ "ACTORS_CPUS", "0-", "no end" },
	{ "ACTORS_CPUS", "0,,1", "empty" },
	{ "ACTORS_CPUS", "65535", "not in the allowed set" },
	{ "ACTORS_CPUS", "65536", "above the largest CPU" },
	{ "ACTORS_REACTOR_CPU", "x", "auto" },
	{ "ACTORS_REACTOR_CPU", "-1", "auto" },
	{ "ACTORS_REACTOR_CPU", "", "auto" },
	{ "ACTORS_REACTOR_CPU", "AUTO", "auto" },
	{ "ACTORS_REACTOR_CPU", "65536", "auto" },
	{ "ACTORS_REACTOR_CPU", "65535", "not one this process may use" },
	{ "ACTORS_SPIN_US", "fast", "microseconds" },
	{ "ACTORS_SPIN_US", "2000000", "microseconds" },
	{ "ACTORS_SPIN_US", "-1", "microseconds" },
	{ "ACTORS_MAILBOX_LIMIT", "0", "off" },
	{ "ACTORS_MAILBOX_LIMIT", "lots", "off" },
	{ "ACTORS_MAILBOX_LIMIT", "2147483648", "off" },
	{ "ACTORS_TIMER_US", "5", "10 to 100000" },
	{ "ACTORS_TIMER_US", "1000000", "10 to 100000" },
	{ "ACTORS_TIMER_US", "", "10 to 100000" },
	{ "ACTORS_RING_ENTRIES", "0", "1 to 32768" },
	{ "ACTORS_RING_ENTRIES", "65536", "1 to 32768" },
	{ "ACTORS_STATS", "2", "0, 1 or an interval from 1ms to 3600s" },
	{ "ACTORS_STATS", "yes", "0, 1 or an interval from 1ms to 3600s" },
	{ "ACTORS_STATS", "500us", "an interval from 1ms" },
	{ "ACTORS_STATS", "1h", "an interval from 1ms" },
	{ "ACTORS_TRACE", "", "a file name" },
	{ "ACTORS_TRACE_BUFFER", "1k", "from 64k to 16g" },
	{ "ACTORS_LONG_SCHEDULE", "10", "off or a duration from 100us" },
	{ "ACTORS_LONG_SCHEDULE", "-5ms", "off or a duration from 100us" },
	{ "ACTORS_WAKE", "first", "waker or last" },
	{ "ACTORS_WAKE", "", "waker or last" },
	{ "ACTORS_PLACE", "near", "idle or random" },
	{ "ACTORS_BACKPRESSURE", "on", "mute or off" },
};

static void check_bad_value(const char *var, const char *value, const char *why)
{
	struct env_case ec = { var, value, shared_map() };
	struct tu_child c;
	char quoted[128];

	tu_run_child(child_env_main, &ec, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "%s=\"%s\": child status %#x", var, value, c.status);
	ck_assert_msg(ec.sh->rc == -EINVAL,
		      "%s=\"%s\": act_main returned %d, stderr: %s", var, value,
		      ec.sh->rc, c.err);
	snprintf(quoted, sizeof(quoted), "actors: %s=\"%s\"", var, value);
	assert_one_line(&c, quoted, why, NULL);
	munmap(ec.sh, sizeof(*ec.sh));
}

START_TEST(env_bad_values)
{
	unsigned i;
	char cpu[16];

	for (i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++)
		check_bad_value(bad_values[i].var, bad_values[i].value,
				bad_values[i].why);
	/* 99, or a CPU above the last one this process may use */
	snprintf(cpu, sizeof(cpu), "%d", my_cpus[my_ncpus - 1] + 1);
	if (my_cpus[my_ncpus - 1] < 99)
		snprintf(cpu, sizeof(cpu), "99");
	check_bad_value("ACTORS_CPUS", cpu, "not in the allowed set");
	check_bad_value("ACTORS_REACTOR_CPU", cpu,
			"not one this process may use");
}
END_TEST

/* ---- act_main with good values: what a process sees --------------------- */

static size_t seen_stack;
static int seen_workers;

static void record_main(void *arg)
{
	struct act__worker *w = act__tls_worker_self();

	(void)arg;
	seen_stack = w && w->current ? w->current->stack_size : 0;
	seen_workers = act_workers();
}

static void record_child(void *arg)
{
	struct act__worker *w = act__tls_worker_self();

	atomic_store((_Atomic size_t *)arg, w->current->stack_size);
}

static void spawn_record_main(void *arg)
{
	_Atomic size_t got = 0;
	act_pid pid;

	record_main(arg);
	pid = act_spawn(record_child, &got);
	ck_assert_uint_ne(pid.id, 0);
	/* it runs while we yield, here or on another worker */
	while (!atomic_load(&got))
		act_yield();
	ck_assert_uint_eq(atomic_load(&got), seen_stack);
}

START_TEST(env_stack_size_good)
{
	clear_env();
	setenv("ACTORS_STACK_SIZE", "1m", 1);
	seen_stack = 0;
	ck_assert_int_eq(act_main(NULL, spawn_record_main, NULL), 0);
	ck_assert_uint_eq(seen_stack, (size_t)1 << 20);
}
END_TEST

START_TEST(env_default_stack_size)
{
	clear_env();
	seen_stack = 0;
	ck_assert_int_eq(act_main(NULL, record_main, NULL), 0);
	ck_assert_uint_eq(seen_stack, 65536);
	/* the default count of the machine this runs on, simulated or not */
	ck_assert_int_eq(seen_workers, tu_default_workers());
}
END_TEST

START_TEST(env_schedulers_good)
{
	static const char *const v[] = { "1", "2", "4" };
	unsigned i;

	for (i = 0; i < 3; i++) {
		clear_env();
		setenv("ACTORS_SCHEDULERS", v[i], 1);
		seen_workers = 0;
		ck_assert_int_eq(act_main(NULL, record_main, NULL), 0);
		ck_assert_int_eq(seen_workers, atoi(v[i]));
	}
}
END_TEST

/* Touch most of a 1 MiB stack: it really is that big. */
static act__noinline int deep(int n)
{
	volatile char buf[1024];

	buf[0] = (char)n;
	buf[sizeof(buf) - 1] = (char)n;
	if (n == 0)
		return buf[0];
	return deep(n - 1) + buf[n % sizeof(buf)];
}

static int deep_result = -1;

static void deep_main(void *arg)
{
	(void)arg;
	/* ~800+ KiB of frames; ASan's redzones make each frame larger */
	deep_result = deep(TU_UNDER_ASAN ? 600 : 800);
}

START_TEST(env_stack_size_is_usable)
{
	clear_env();
	setenv("ACTORS_STACK_SIZE", "1m", 1);
	ck_assert_int_eq(act_main(NULL, deep_main, NULL), 0);
	ck_assert_int_ne(deep_result, -1);
}
END_TEST

START_TEST(config_beats_env)
{
	struct act_config cfg;

	clear_env();
	setenv("ACTORS_STACK_SIZE", "1m", 1);
	act_config_init(&cfg);
	cfg.stack_size = 128 << 10;
	seen_stack = 0;
	ck_assert_int_eq(act_main(&cfg, spawn_record_main, NULL), 0);
	ck_assert_uint_eq(seen_stack, 131072);
}
END_TEST

START_TEST(config_stack_size_rounded)
{
	struct act_config cfg;

	clear_env();
	act_config_init(&cfg);
	cfg.stack_size = 20000;
	seen_stack = 0;
	ck_assert_int_eq(act_main(&cfg, record_main, NULL), 0);
	ck_assert_uint_eq(seen_stack, 20480);
}
END_TEST

/* ---- act_main with bad config fields ------------------------------------ */

struct cfg_case {
	struct act_config cfg;
	struct shared *sh;
};

static void child_cfg_main(void *arg)
{
	struct cfg_case *cc = arg;

	clear_env();
	cc->sh->rc = act_main(&cc->cfg, noop_main, NULL);
}

/* Returns what act_main returned (the caller asserts -EINVAL). */
static int check_bad_cfg(const struct act_config *cfg, const char *field,
			 const char *value)
{
	struct cfg_case cc = { *cfg, shared_map() };
	struct tu_child c;
	int rc;

	tu_run_child(child_cfg_main, &cc, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "%s: child status %#x", field, c.status);
	ck_assert_msg(cc.sh->rc == -EINVAL, "%s=%s: act_main returned %d",
		      field, value, cc.sh->rc);
	assert_one_line(&c, field, value, NULL);
	rc = cc.sh->rc;
	munmap(cc.sh, sizeof(*cc.sh));
	return rc;
}

START_TEST(config_bad_fields)
{
	struct act_config cfg;

	act_config_init(&cfg);
	cfg.schedulers = -1;
	ck_assert_int_eq(check_bad_cfg(&cfg, "schedulers", "-1"), -EINVAL);

	act_config_init(&cfg);
	cfg.schedulers = 1025;
	ck_assert_int_eq(check_bad_cfg(&cfg, "schedulers", "1025"), -EINVAL);

	act_config_init(&cfg);
	cfg.stack_size = 100;
	ck_assert_int_eq(check_bad_cfg(&cfg, "stack_size", "100"), -EINVAL);

	act_config_init(&cfg);
	cfg.stack_size = ((size_t)1 << 30) + 1;
	ck_assert_int_eq(check_bad_cfg(&cfg, "stack_size", "1073741825"),
			 -EINVAL);

	act_config_init(&cfg);
	cfg.reductions = -5;
	ck_assert_int_eq(check_bad_cfg(&cfg, "reductions", "-5"), -EINVAL);

	act_config_init(&cfg);
	cfg.stack_guard = 99;
	ck_assert_int_eq(check_bad_cfg(&cfg, "stack_guard", "99"), -EINVAL);

	act_config_init(&cfg);
	cfg.stack_guard = -1;
	ck_assert_int_eq(check_bad_cfg(&cfg, "stack_guard", "-1"), -EINVAL);

	act_config_init(&cfg);
	cfg.reserved[0] = 1;
	ck_assert_int_eq(check_bad_cfg(&cfg, "reserved", "1"), -EINVAL);

	act_config_init(&cfg);
	/* the last one */
	cfg.reserved[sizeof(cfg.reserved) / sizeof(cfg.reserved[0]) - 1] = 3;
	ck_assert_int_eq(check_bad_cfg(&cfg, "reserved", "3"), -EINVAL);

	act_config_init(&cfg);
	cfg.max_procs = (1u << 31) + 1;
	ck_assert_int_eq(check_bad_cfg(&cfg, "max_procs", "2147483649"),
			 -EINVAL);
}
END_TEST

/* check_bad_cfg, and a third word the line must have. */
static void check_bad_cfg_why(const struct act_config *cfg, const char *field,
			      const char *value, const char *why)
{
	struct cfg_case cc = { *cfg, shared_map() };
	struct tu_child c;

	tu_run_child(child_cfg_main, &cc, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "%s: child status %#x", field, c.status);
	ck_assert_msg(cc.sh->rc == -EINVAL, "%s=%s: act_main returned %d",
		      field, value, cc.sh->rc);
	assert_one_line(&c, field, value, why);
	munmap(cc.sh, sizeof(*cc.sh));
}

START_TEST(config_bad_placement_fields)
{
	struct act_config cfg;

	act_config_init(&cfg);
	cfg.bind = 99;
	check_bad_cfg_why(&cfg, "act_config.bind", "99", "enum act_bind");
	act_config_init(&cfg);
	cfg.bind = -1;
	check_bad_cfg_why(&cfg, "act_config.bind", "-1", "enum act_bind");
	act_config_init(&cfg);
	cfg.bind = ACT_BIND_NUMA + 1;
	check_bad_cfg_why(&cfg, "act_config.bind", "7", "enum act_bind");
	act_config_init(&cfg);
	cfg.reactor_cpu = -4;
	check_bad_cfg_why(&cfg, "act_config.reactor_cpu", "-4",
			  "ACT_REACTOR_INLINE");
	/* inline, but more than one worker */
	act_config_init(&cfg);
	cfg.schedulers = 2;
	cfg.reactor_cpu = ACT_REACTOR_INLINE;
	check_bad_cfg_why(&cfg, "act_config.reactor_cpu=ACT_REACTOR_INLINE",
			  "only with one worker", "there are 2");
	act_config_init(&cfg);
	cfg.reactor_cpu = ACT_REACTOR_CPU(65536);
	check_bad_cfg_why(&cfg, "act_config.reactor_cpu", "65537",
			  "ACT_REACTOR_NONE");
	/* in range, but not a CPU this process may use */
	act_config_init(&cfg);
	cfg.reactor_cpu = ACT_REACTOR_CPU(65535);
	check_bad_cfg_why(&cfg, "act_config.reactor_cpu", "CPU 65535",
			  "not one this process may use");
	act_config_init(&cfg);
	cfg.cpus = "3-1";
	check_bad_cfg_why(&cfg, "act_config.cpus=\"3-1\"", "3-1", "reversed");
	act_config_init(&cfg);
	cfg.cpus = "";
	check_bad_cfg_why(&cfg, "act_config.cpus=\"\"", "", "empty");
	act_config_init(&cfg);
	cfg.cpus = "65535";
	check_bad_cfg_why(&cfg, "act_config.cpus=\"65535\"", "65535",
			  "not in the allowed set");
}
END_TEST

/* ---- placement settings: field set > environment > default --------------- */

struct placed {
	int rc, bind, reactor_cpu, nworkers;
	char usable[64];
};

struct place_case {
	struct act_config cfg;
	const char *env[2][2];
	struct placed *out;
};

static struct placed *placed_out;

static void placed_main(void *arg)
{
	struct act__rt *rt = act__rt_current;

	(void)arg;
	placed_out->bind = rt->plan.bind;
	placed_out->reactor_cpu = rt->plan.reactor_cpu;
	placed_out->nworkers = rt->plan.nworkers;
	hwloc_bitmap_list_snprintf(placed_out->usable,
				   sizeof(placed_out->usable), rt->topo.usable);
}

static void child_place_main(void *arg)
{
	struct place_case *pc = arg;
	int i;

	clear_env();
	for (i = 0; i < 2 && pc->env[i][0]; i++)
		setenv(pc->env[i][0], pc->env[i][1], 1);
	placed_out = pc->out;
	pc->out->rc = act_main(&pc->cfg, placed_main, NULL);
}

/* act_main with cfg and up to two variables; stderr must stay empty (but
 * for the note of a machine with fewer CPUs than workers). */
static struct placed run_placed(const struct act_config *cfg, const char *v1,
				const char *x1, const char *v2, const char *x2)
{
	struct place_case pc = { *cfg, { { v1, x1 }, { v2, x2 } }, NULL };
	struct tu_child c;
	struct placed r;

	pc.out = mmap(NULL, sizeof(*pc.out), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(pc.out, MAP_FAILED);
	pc.out->rc = 12345;
	tu_run_child(child_place_main, &pc, &c);
	tu_drop_lines_with(c.err, TU_FEW_CPUS_NOTE); /* a 1-CPU machine's */
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "child status %#x", c.status);
	ck_assert_msg(pc.out->rc == 0, "%s=%s %s=%s: act_main returned %d: %s",
		      v1 ? v1 : "", x1 ? x1 : "", v2 ? v2 : "", x2 ? x2 : "",
		      pc.out->rc, c.err);
	ck_assert_msg(c.err[0] == '\0', "stderr: %s", c.err);
	r = *pc.out;
	munmap(pc.out, sizeof(*pc.out));
	return r;
}

START_TEST(placement_precedence)
{
	struct act_config cfg;
	struct placed r;
	char first[16], second[16];

	snprintf(first, sizeof(first), "%d", my_cpus[0]);
	snprintf(second, sizeof(second), "%d", my_cpus[my_ncpus - 1]);

	/* bind: the default, the variable, the field over the variable
	 * (which is then not read at all, like every other setting) */
	act_config_init(&cfg);
	r = run_placed(&cfg, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(r.bind, ACT_BIND_CORE);
	r = run_placed(&cfg, "ACTORS_BIND", "pu", NULL, NULL);
	ck_assert_int_eq(r.bind, ACT_BIND_PU);
	cfg.bind = ACT_BIND_NONE;
	r = run_placed(&cfg, "ACTORS_BIND", "bogus", NULL, NULL);
	ck_assert_int_eq(r.bind, ACT_BIND_NONE);
	ck_assert_int_eq(r.reactor_cpu, -1);
	cfg.bind = ACT_BIND_PU;
	r = run_placed(&cfg, "ACTORS_BIND", "none", NULL, NULL);
	ck_assert_int_eq(r.bind, ACT_BIND_PU);

	/* reactor_cpu */
	act_config_init(&cfg);
	r = run_placed(&cfg, "ACTORS_REACTOR_CPU", first, NULL, NULL);
	ck_assert_int_eq(r.reactor_cpu, my_cpus[0]);
	r = run_placed(&cfg, "ACTORS_REACTOR_CPU", "none", NULL, NULL);
	ck_assert_int_eq(r.reactor_cpu, -1);
	cfg.reactor_cpu = ACT_REACTOR_NONE;
	r = run_placed(&cfg, "ACTORS_REACTOR_CPU", "bogus", NULL, NULL);
	ck_assert_int_eq(r.reactor_cpu, -1);
	cfg.reactor_cpu = ACT_REACTOR_CPU(my_cpus[0]);
	r = run_placed(&cfg, "ACTORS_REACTOR_CPU", "none", NULL, NULL);
	ck_assert_int_eq(r.reactor_cpu, my_cpus[0]);
	cfg.reactor_cpu = ACT_REACTOR_AUTO;
	r = run_placed(&cfg, "ACTORS_REACTOR_CPU", "none", NULL, NULL);
	if (my_ncpus > 1) /* one worker: a CPU is left for the reactor */
		ck_assert_int_ge(r.reactor_cpu, 0);

	/* cpus */
	act_config_init(&cfg);
	r = run_placed(&cfg, "ACTORS_CPUS", second, NULL, NULL);
	ck_assert_str_eq(r.usable, second);
	cfg.cpus = first;
	r = run_placed(&cfg, "ACTORS_CPUS", "bogus", NULL, NULL);
	ck_assert_str_eq(r.usable, first);
	r = run_placed(&cfg, "ACTORS_CPUS", second, NULL, NULL);
	ck_assert_str_eq(r.usable, first);

	/* and schedulers, the same way */
	act_config_init(&cfg);
	cfg.schedulers = 2;
	r = run_placed(&cfg, "ACTORS_SCHEDULERS", "bogus", NULL, NULL);
	ck_assert_int_eq(r.nworkers, 2);
}
END_TEST

START_TEST(config_init_zeroes)
{
	struct act_config cfg;
	unsigned i;

	memset(&cfg, 0xa5, sizeof(cfg));
	act_config_init(&cfg);
	ck_assert_int_eq(cfg.schedulers, 0);
	ck_assert_uint_eq(cfg.stack_size, 0);
	ck_assert_uint_eq(cfg.max_procs, 0);
	ck_assert_int_eq(cfg.reductions, 0);
	ck_assert_int_eq(cfg.stack_guard, ACT_GUARD_AUTO);
	for (i = 0; i < sizeof(cfg.reserved) / sizeof(cfg.reserved[0]); i++)
		ck_assert_uint_eq(cfg.reserved[i], 0);
}
END_TEST

/* ---- act_main's own contract -------------------------------------------- */

START_TEST(main_null_fn)
{
	struct act_config cfg;

	clear_env();
	ck_assert_int_eq(act_main(NULL, NULL, NULL), -EINVAL);
	act_config_init(&cfg);
	ck_assert_int_eq(act_main(&cfg, NULL, NULL), -EINVAL);
	/* and the runtime is still free to start afterwards */
	ck_assert_int_eq(act_main(NULL, noop_main, NULL), 0);
}
END_TEST

static int nested_rc = 1;
static int thread_rc = 1;

static void *thread_act_main(void *arg)
{
	(void)arg;
	thread_rc = act_main(NULL, noop_main, NULL);
	return NULL;
}

static void nested_main(void *arg)
{
	pthread_t t;

	(void)arg;
	nested_rc = act_main(NULL, noop_main, NULL);
	/* another OS thread while this runtime runs: one per OS process */
	ck_assert_int_eq(pthread_create(&t, NULL, thread_act_main, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
}

START_TEST(main_inside_process_busy)
{
	clear_env();
	ck_assert_int_eq(act_main(NULL, nested_main, NULL), 0);
	ck_assert_int_eq(nested_rc, -EBUSY);
	ck_assert_int_eq(thread_rc, -EBUSY);
}
END_TEST

static void exit_with(void *arg)
{
	act_exit((intptr_t)arg);
}

static void return_normally(void *arg)
{
	*(int *)arg += 1;
}

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(main_twice)
{
	int ran = 0, fds, threads;

	clear_env();
	fds = count_dir("/proc/self/fd");
	threads = tu_count_tasks(); /* less TSan's own thread */
	ck_assert_int_eq(act_main(NULL, exit_with, (void *)(intptr_t)7), 7);
	ck_assert_ptr_null(act__rt_current);
	ck_assert_int_eq(act_main(NULL, exit_with, (void *)(intptr_t)9), 9);
	ck_assert_int_eq(act_main(NULL, return_normally, &ran), 0);
	ck_assert_int_eq(ran, 1);
	tu_assert_no_leaks();
	/* I9: no thread and no descriptor left behind */
	ck_assert_int_eq(tu_count_tasks(), threads);
	ck_assert_int_eq(count_dir("/proc/self/fd"), fds);
}
END_TEST

/* A failed start leaves nothing behind: the next start works. */
START_TEST(main_after_failed_start)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	int rc;

	clear_env();
	setenv("ACTORS_STACK_SIZE", "bogus", 1);
	dup2(null, 2); /* the one-line error is checked in env_stack_size_bad */
	rc = act_main(NULL, exit_with, (void *)(intptr_t)3);
	dup2(saved, 2);
	close(null);
	close(saved);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_null(act__rt_current);
	unsetenv("ACTORS_STACK_SIZE");
	ck_assert_int_eq(act_main(NULL, exit_with, (void *)(intptr_t)3), 3);
}
END_TEST

static Suite *env_suite(void)
{
	Suite *s = suite_create("env");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, parse_size_accepts);
	tcase_add_test(tc, parse_size_rejects);
	tcase_add_test(tc, parse_uint_bounds);
	tcase_add_test(tc, stack_size_bounds);
	tcase_add_test(tc, config_init_zeroes);
	suite_add_tcase(s, tc);

	tc = tcase_create("act_main");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, env_stack_size_bad);
	tcase_add_test(tc, env_schedulers_bad);
	tcase_add_test(tc, env_bad_values);
	tcase_add_test(tc, env_stack_size_good);
	tcase_add_test(tc, env_default_stack_size);
	tcase_add_test(tc, env_schedulers_good);
	tcase_add_test(tc, env_stack_size_is_usable);
	tcase_add_test(tc, config_beats_env);
	tcase_add_test(tc, config_stack_size_rounded);
	tcase_add_test(tc, config_bad_fields);
	tcase_add_test(tc, config_bad_placement_fields);
	tcase_add_test(tc, placement_precedence);
	tcase_add_test(tc, main_null_fn);
	tcase_add_test(tc, main_inside_process_busy);
	tcase_add_test(tc, main_twice);
	tcase_add_test(tc, main_after_failed_start);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cpu_set_t m;
	int c;

	CPU_ZERO(&m);
	if (sched_getaffinity(0, sizeof(m), &m))
		return EXIT_FAILURE;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &m))
			my_cpus[my_ncpus++] = c;
	return tu_run_suite(env_suite());
}
