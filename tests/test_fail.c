/* SPDX-License-Identifier: MIT */
/*
 * test_fail.c - fault injection (ACT_TEST_FAIL, lib/base/fail.h): the
 * rules' syntax, and a case per site, each asserting what the runtime
 * does when that call fails: the error its caller gets, the retry that
 * then works, every message sent either received or refused to its
 * sender, and nothing left behind (descriptors, threads, slots, stacks,
 * envelopes). The madvise site's case is the reproducer
 * tests/regress/e839ffe-madvise-guard-refused-silent.c.
 *
 * Each case runs act_main in a child (tu_run_child: its own environment
 * and counters, stderr captured); what the child saw comes back through
 * shared memory and the parent asserts. A rule that must hit a call the
 * main process makes (the Nth envelope, say) is placed by a probe run
 * first: the same case with a rule that never fires counts the calls at
 * the site until the main process began, and the real run fails the one
 * after them. With one worker and the reactor started before the main
 * process runs, that count is the same in both runs on any machine.
 */
#include <numa.h>
#include <sys/mman.h>

#include "iotest.h"

#include "base/fail.h"

struct fail_out {
	int rc;		       /* act_main's */
	int ran;	       /* the main process got to its end */
	uint64_t before;       /* calls at the site when main began */
	uint64_t calls, fired; /* at the site, once act_main returned */
	int fds_before, fds_after;
	int tasks_after; /* threads of the child after act_main */
	struct act__leaks leaks;
	int err1, err2; /* the case's first and second try */
	long got;	/* messages received, or bytes read */
	long last;	/* the last message's payload */
	int io, slept;	/* ringless_main's read and sleep */
	int bad;	/* what the main process found wrong, or 0 */
};

static struct fail_out *out;	 /* shared with the child */
static enum act__fail_site site; /* the case's, as the child reads it */

struct fail_run {
	const char *rules;
	int workers;
	void (*fn)(void *);
	const char *var, *value; /* another variable for the run, or NULL */
};

/* ---- the child ---------------------------------------------------------- */

static void run_child(void *arg)
{
	const struct fail_run *fr = arg;
	struct act_config cfg = tu_with_workers(fr->workers);

	unsetenv("ACT_TEST_TOPOLOGY"); /* the real machine: hwloc's site */
	setenv("ACT_TEST_FAIL", fr->rules, 1);
	if (fr->var)
		setenv(fr->var, fr->value, 1);
	out->fds_before = tu_dir_entries("/proc/self/fd");
	out->rc = act_main(&cfg, fr->fn, NULL);
	out->fds_after = tu_dir_entries("/proc/self/fd");
	out->tasks_after = tu_count_tasks();
	out->calls = act__fail_calls(site);
	out->fired = act__fail_fired(site);
	out->leaks = act__last_leaks;
	_exit(0);
}

/* fr in a child, with ACT_TEST_FAIL=rules: it ended, leaving nothing. */
static void run(const struct fail_run *fr, struct tu_child *c)
{
	memset(out, 0, sizeof(*out));
	tu_run_child(run_child, (void *)fr, c);
	tu_drop_lines_with(c->err, TU_FEW_CPUS_NOTE);
	ck_assert_msg(WIFEXITED(c->status) && !WEXITSTATUS(c->status),
		      "%s: status %#x, stderr: %s", fr->rules, c->status,
		      c->err);
	ck_assert_msg(out->fds_after == out->fds_before,
		      "%s: %d descriptors before act_main, %d after", fr->rules,
		      out->fds_before, out->fds_after);
	ck_assert_msg(out->tasks_after == 1, "%s: %d threads after act_main",
		      fr->rules, out->tasks_after);
	ck_assert_int_eq(out->leaks.procs, 0);
	ck_assert_int_eq(out->leaks.stacks, 0);
	ck_assert_int_eq(out->leaks.envelopes, 0);
	ck_assert_int_eq(out->bad, 0);
}

/* s at fr's site with rule "N" (a number, N+ or 1/P); c as run's. */
static void run_rule(enum act__fail_site s, const char *rule,
		     struct fail_run fr, struct tu_child *c)
{
	char rules[64];

	site = s;
	snprintf(rules, sizeof(rules), "%s:%s", act__fail_name(s), rule);
	fr.rules = rules;
	run(&fr, c);
}

/* The kth call at site s after the main process began fails (k >= 1):
 * a probe run counts the calls before it. */
static void run_after_main(enum act__fail_site s, uint64_t k,
			   struct fail_run fr, struct tu_child *c)
{
	char rule[32];

	snprintf(rule, sizeof(rule), "%u", ACT_FAIL_N_MAX);
	run_rule(s, rule, fr, c);
	ck_assert_uint_eq(out->fired, 0);
	snprintf(rule, sizeof(rule), "%llu",
		 (unsigned long long)(out->before + k));
	run_rule(s, rule, fr, c);
}

/* ---- the main processes ----------------------------------------------- */

static void began(void)
{
	out->before = act__fail_calls(site);
}

/* Take every message there is now; the last one's int payload. */
static void take_all(int64_t first_timeout)
{
	struct act_msg *m;
	int v;

	for (m = act_receive(first_timeout); m; m = act_receive(0)) {
		out->got++;
		if (m->len == sizeof(v)) {
			memcpy(&v, m->data, sizeof(v));
			out->last = v;
		}
		act_msg_free(m);
	}
}

static void send_back(void *arg)
{
	act_pid to = { (uint64_t)(uintptr_t)arg };
	int v = 1;

	if (act_send(to, 1, &v, sizeof(v)))
		out->bad = __LINE__;
}

/* Spawn twice a child that sends back once; opts: a stack of its own
 * size (a pool of its own: mmap), or NULL. */
static void spawn_twice_opts(const struct act_spawn_opts *opts)
{
	void *self = (void *)(uintptr_t)act_self().id;
	act_pid kid;
	long want;

	began();
	out->err1 = act_spawn_pid(send_back, self, opts, &kid);
	out->err2 = act_spawn_pid(send_back, self, opts, &kid);
	want = (out->err1 == 0) + (out->err2 == 0);
	while (out->got < want && out->got >= 0) {
		long had = out->got;

		take_all(10 * 1000000000LL);
		if (out->got == had)
			out->got = -1; /* 10 s without the message */
	}
	out->ran = 1;
}

static void spawn_twice(void *arg)
{
	(void)arg;
	spawn_twice_opts(NULL);
}

static void spawn_twice_big(void *arg)
{
	struct act_spawn_opts o = { .stack_size = 512 << 10 };

	(void)arg;
	spawn_twice_opts(&o);
}

/* Two sends to itself, then what came. */
static void send_twice(void *arg)
{
	int one = 1, two = 2;

	(void)arg;
	began();
	out->err1 = act_send(act_self(), 7, &one, sizeof(one));
	out->err2 = act_send(act_self(), 7, &two, sizeof(two));
	take_all(0);
	out->ran = 1;
}

static void nop(void *arg)
{
	(void)arg;
}

static void blocking_twice(void *arg)
{
	(void)arg;
	began();
	out->err1 = act_blocking(nop, NULL);
	out->err2 = act_blocking(nop, NULL);
	out->ran = 1;
}

/* ---- the rules' syntax ------------------------------------------------- */

START_TEST(parse_rules)
{
	struct act__fail_spec s;

	ck_assert_int_eq(act__fail_parse("slot:1", &s), 0);
	ck_assert_uint_eq(s.rule[ACT_FAIL_SLOT].n, 1);
	ck_assert(!s.rule[ACT_FAIL_SLOT].every);
	ck_assert_int_eq(
		act__fail_parse("thread:3+,futex_eintr:1/8,hwloc:2", &s), 0);
	ck_assert_uint_eq(s.rule[ACT_FAIL_THREAD].n, 3);
	ck_assert(s.rule[ACT_FAIL_THREAD].every);
	ck_assert_uint_eq(s.rule[ACT_FAIL_FUTEX_EINTR].one_in, 8);
	ck_assert_uint_eq(s.rule[ACT_FAIL_HWLOC].n, 2);
	ck_assert_uint_eq(s.rule[ACT_FAIL_SLOT].n, 0);
	ck_assert_int_eq(act__fail_parse("envelope:1000000000", &s), 0);
	ck_assert_int_eq(act__fail_parse("slab:1/1000000", &s), 0);
}
END_TEST

START_TEST(parse_refuses)
{
	static const char *const bad[] = {
		"",
		"slot",
		"slot:",
		"slot:0",
		"slot:-1",
		"slot:+",
		"slot:1++",
		"slot:1 ",
		" slot:1",
		"slot:1,",
		",slot:1",
		"slot:1,slot:2",
		"Slot:1",
		"bogus:1",
		"slot:1000000001",
		"slot:2/5",
		"slot:1/0",
		"slot:1/1000001",
		"slot:1/",
		"slot:/5",
		"slot:1/5+",
		"slot:0x10",
		"slot::1",
		"slot:1:2",
		"slot:99999999999",
	};
	struct act__fail_spec s;
	unsigned i;

	for (i = 0; i < TU_N_BAD; i++) {
		ck_assert_msg(act__fail_parse(bad[i], &s) == -EINVAL, "\"%s\"",
			      bad[i]);
		ck_assert_uint_eq(s.rule[ACT_FAIL_SLOT].n, 0);
	}
	/* and act_main says so in one line */
	ck_assert_uint_eq(tu_assert_env_refused("ACT_TEST_FAIL", bad, TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

START_TEST(seed_refused)
{
	static const char *const bad[] = { "", "0", "-1", "4294967296", "x" };

	ck_assert_uint_eq(tu_assert_env_refused("ACT_TEST_FAIL_SEED", bad,
						TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

/* The same seed fails the same calls; another seed others. */
START_TEST(random_is_seeded)
{
	struct act__fail_spec s;
	uint64_t a = 0, b = 0, c = 0;
	int i;

	ck_assert_int_eq(act__fail_parse("slot:1/4", &s), 0);
	act__fail_arm(&s, 7);
	for (i = 0; i < 64; i++)
		a = a << 1 | ACT_FAIL(ACT_FAIL_SLOT);
	act__fail_arm(&s, 7);
	for (i = 0; i < 64; i++)
		b = b << 1 | ACT_FAIL(ACT_FAIL_SLOT);
	act__fail_arm(&s, 8);
	for (i = 0; i < 64; i++)
		c = c << 1 | ACT_FAIL(ACT_FAIL_SLOT);
	act__fail_disarm();
	ck_assert_uint_eq(a, b);
	ck_assert_uint_ne(a, c);
	/* about one in four: 16 of 64, give or take */
	ck_assert_int_ge(__builtin_popcountll(a), 4);
	ck_assert_int_le(__builtin_popcountll(a), 32);
	ck_assert_uint_eq(act__fail_fired(ACT_FAIL_SLOT),
			  (uint64_t)__builtin_popcountll(c));
	ck_assert(!ACT_FAIL(ACT_FAIL_SLOT)); /* disarmed */
}
END_TEST

/* ---- the sites -------------------------------------------------------- */

/* A spawn without a slot: -EAGAIN, the next spawn works. */
START_TEST(site_slot)
{
	struct fail_run fr = { .workers = 1, .fn = spawn_twice };
	struct tu_child c;

	run_after_main(ACT_FAIL_SLOT, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -EAGAIN);
	ck_assert_int_eq(out->err2, 0);
	ck_assert_int_eq(out->got, 1);
	ck_assert_uint_eq(out->fired, 1);
}
END_TEST

/* A spawn without a stack: -ENOMEM, its slot given back (no leak), the
 * next spawn works. */
START_TEST(site_stack)
{
	struct fail_run fr = { .workers = 1, .fn = spawn_twice };
	struct tu_child c;

	run_after_main(ACT_FAIL_STACK, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -ENOMEM);
	ck_assert_int_eq(out->err2, 0);
	ck_assert_int_eq(out->got, 1);
	ck_assert_uint_eq(out->fired, 1);
}
END_TEST

/* The main process's own spawn refused: act_main returns the error,
 * having stopped and joined every thread it started. */
START_TEST(site_main_spawn)
{
	struct fail_run fr = { .workers = 2, .fn = send_twice };
	struct tu_child c;

	run_rule(ACT_FAIL_SLOT, "1", fr, &c);
	ck_assert_int_eq(out->rc, -EAGAIN);
	ck_assert_int_eq(out->ran, 0);
	run_rule(ACT_FAIL_STACK, "1", fr, &c);
	ck_assert_int_eq(out->rc, -ENOMEM);
	ck_assert_int_eq(out->ran, 0);
}
END_TEST

/* A chunk of stacks that cannot be mapped: the spawn that needed it
 * gets -ENOMEM, the next one maps it. */
START_TEST(site_mmap_stacks)
{
	struct fail_run fr = { .workers = 1, .fn = spawn_twice_big };
	struct tu_child c;

	run_after_main(ACT_FAIL_MMAP, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -ENOMEM);
	ck_assert_int_eq(out->err2, 0);
	ck_assert_int_eq(out->got, 1);
}
END_TEST

/* Every mmap act_main makes before the main process (the process table,
 * the signal stacks, the main process's stacks): act_main returns
 * -ENOMEM, or a worker goes without its signal stack and says so. */
START_TEST(site_mmap_start)
{
	struct fail_run fr = { .workers = 2, .fn = send_twice };
	struct tu_child c;
	char n[16];
	uint64_t i, before;

	run_rule(ACT_FAIL_MMAP, "1000000000", fr, &c);
	before = out->before;
	ck_assert_uint_ge(before, 2);
	for (i = 1; i <= before; i++) {
		snprintf(n, sizeof(n), "%llu", (unsigned long long)i);
		run_rule(ACT_FAIL_MMAP, n, fr, &c);
		ck_assert_uint_eq(out->fired, 1);
		if (out->rc) {
			ck_assert_int_eq(out->rc, -ENOMEM);
			ck_assert_int_eq(out->ran, 0);
		} else {
			ck_assert_int_eq(out->ran, 1);
			ck_assert_int_eq(out->got, 2);
		}
	}
}
END_TEST

/* An envelope that cannot be had: act_send says -ENOMEM, the message is
 * not queued; the next send is received, and only it. */
START_TEST(site_envelope)
{
	struct fail_run fr = { .workers = 1, .fn = send_twice };
	struct tu_child c;

	run_after_main(ACT_FAIL_ENVELOPE, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -ENOMEM);
	ck_assert_int_eq(out->err2, 0);
	ck_assert_int_eq(out->got, 1);
	ck_assert_int_eq(out->last, 2);
}
END_TEST

/* A slab chunk that cannot be mapped: the same. */
START_TEST(site_slab)
{
	struct fail_run fr = { .workers = 1, .fn = send_twice };
	struct tu_child c;

	run_after_main(ACT_FAIL_SLAB, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -ENOMEM);
	ck_assert_int_eq(out->err2, 0);
	ck_assert_int_eq(out->got, 1);
	ck_assert_int_eq(out->last, 2);
}
END_TEST

/* A receiver with a mailbox limit of one: the send that found no
 * envelope gives its count back, so the next one is taken (else the
 * receiver would be killed for a message it never had). */
static void limited_rx(void *arg)
{
	act_pid parent = { (uint64_t)(uintptr_t)arg };
	struct act_msg *m = act_receive(10 * 1000000000LL);
	int v = 0;

	if (m) {
		memcpy(&v, m->data, sizeof(v));
		act_msg_free(m);
	}
	act_send(parent, 2, &v, sizeof(v));
}

static void send_limited(void *arg)
{
	struct act_spawn_opts o = { .mailbox_limit = 1,
				    .flags = ACT_SPAWN_MONITOR };
	int two = 2;
	act_pid kid;

	(void)arg;
	if (act_spawn_pid(limited_rx, (void *)(uintptr_t)act_self().id, &o,
			  &kid))
		out->bad = __LINE__;
	began();
	out->err1 = act_send(kid, 7, &two, sizeof(two));
	out->err2 = act_send(kid, 7, &two, sizeof(two));
	/* its reply (tag 2) and its DOWN: normal, not killed */
	take_all(10 * 1000000000LL);
	while (out->got < 2) {
		long had = out->got;

		take_all(10 * 1000000000LL);
		if (out->got == had)
			break;
	}
	out->ran = 1;
}

START_TEST(site_envelope_limit)
{
	struct fail_run fr = { .workers = 1, .fn = send_limited };
	struct tu_child c;

	run_after_main(ACT_FAIL_ENVELOPE, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -ENOMEM);
	ck_assert_int_eq(out->err2, 0);
	ck_assert_int_eq(out->got, 2); /* the reply and the DOWN */
}
END_TEST

/* A timer's message that finds no envelope when it fires is sent again
 * a tick later: it arrives. */
static void timer_main(void *arg)
{
	int one = 1;
	act_timer t;

	(void)arg;
	began();
	out->err1 =
		act_send_after(1000000, act_self(), 7, &one, sizeof(one), &t);
	take_all(10 * 1000000000LL);
	out->ran = 1;
}

START_TEST(site_envelope_timer)
{
	struct fail_run fr = { .workers = 1, .fn = timer_main };
	struct tu_child c;

	run_after_main(ACT_FAIL_ENVELOPE, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, 0);
	ck_assert_int_eq(out->got, 1);
	ck_assert_int_eq(out->last, 1);
	ck_assert_uint_eq(out->fired, 1);
}
END_TEST

/* A DOWN that finds no envelope is said on stderr, not dropped in
 * silence. */
static void exits(void *arg)
{
	(void)arg;
}

static void down_main(void *arg)
{
	struct act_spawn_opts o = { .flags = ACT_SPAWN_MONITOR };
	act_pid kid;

	(void)arg;
	began();
	out->err1 = act_spawn_pid(exits, NULL, &o, &kid);
	take_all(200 * 1000000LL); /* no DOWN comes */
	out->ran = 1;
}

START_TEST(site_envelope_down)
{
	struct fail_run fr = { .workers = 1, .fn = down_main };
	struct tu_child c;

	run_after_main(ACT_FAIL_ENVELOPE, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, 0);
	ck_assert_int_eq(out->got, 0);
	ck_assert_msg(strstr(c.err, "the DOWN message of process"),
		      "stderr: %s", c.err);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
}
END_TEST

/* pthread_create refused for the reactor (1) and each worker (2, 3):
 * act_main says -EAGAIN, having stopped and joined what it started. */
START_TEST(site_thread_start)
{
	struct fail_run fr = { .workers = 3, .fn = send_twice };
	static const char *const n[] = { "1", "2", "3" };
	struct tu_child c;
	unsigned i;

	for (i = 0; i < 3; i++) {
		run_rule(ACT_FAIL_THREAD, n[i], fr, &c);
		ck_assert_int_eq(out->rc, -EAGAIN);
		ck_assert_int_eq(out->ran, 0);
		ck_assert_uint_eq(out->fired, 1);
	}
	run_rule(ACT_FAIL_THREAD, "1+", fr, &c);
	ck_assert_int_eq(out->rc, -EAGAIN);
}
END_TEST

/* ... and for act_blocking's pool: -EAGAIN to the caller when no thread
 * runs, the next call starts one. */
START_TEST(site_thread_blocking)
{
	struct fail_run fr = { .workers = 1, .fn = blocking_twice };
	struct tu_child c;

	run_after_main(ACT_FAIL_THREAD, 1, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->err1, -EAGAIN);
	ck_assert_int_eq(out->err2, 0);
}
END_TEST

/* Workers whose futex sleeps end at once, one in two: a ping-pong
 * between two workers that sleep in between loses nothing. */
#define PINGS 2000

static void ponger(void *arg)
{
	act_pid to = { (uint64_t)(uintptr_t)arg };
	struct act_msg *m;
	int i;

	for (i = 0; i < PINGS; i++) {
		m = act_receive(30 * 1000000000LL);
		if (!m)
			return;
		act_msg_free(m);
		if (act_send(to, 2, &i, sizeof(i)))
			return;
	}
}

static void pinger(void *arg)
{
	act_pid kid;
	int i;

	(void)arg;
	began();
	if (act_spawn_pid(ponger, (void *)(uintptr_t)act_self().id, NULL,
			  &kid)) {
		out->bad = __LINE__;
		return;
	}
	for (i = 0; i < PINGS; i++) {
		if (i % 100 == 0)
			act_sleep(200000); /* the workers sleep */
		if (act_send(kid, 1, &i, sizeof(i))) {
			out->bad = __LINE__;
			return;
		}
		take_all(30 * 1000000000LL);
		if (out->got != i + 1) {
			out->bad = __LINE__;
			return;
		}
	}
	out->ran = 1;
}

static void futex_case(enum act__fail_site s)
{
	struct fail_run fr = { .workers = 2, .fn = pinger };
	struct tu_child c;

	run_rule(s, "1/2", fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->ran, 1);
	ck_assert_int_eq(out->got, PINGS);
	ck_assert_int_eq(out->last, PINGS - 1);
	ck_assert_uint_gt(out->fired, 0);
}

START_TEST(site_futex_eintr)
{
	futex_case(ACT_FAIL_FUTEX_EINTR);
}
END_TEST

START_TEST(site_futex_eagain)
{
	futex_case(ACT_FAIL_FUTEX_EAGAIN);
}
END_TEST

/* hwloc cannot load this machine: the plan for the affinity mask, said
 * once, and the runtime works. */
START_TEST(site_hwloc)
{
	struct fail_run fr = { .workers = 1, .fn = send_twice };
	struct tu_child c;

	run_rule(ACT_FAIL_HWLOC, "1", fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->got, 2);
	ck_assert_uint_eq(out->fired, 1);
	ck_assert_msg(strstr(c.err, "hwloc could not read this machine"),
		      "stderr: %s", c.err);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
}
END_TEST

/* mbind refused (ACT_TEST_NUMA=force binds even on one node): said
 * once, nothing bound from then on, the runtime works. */
START_TEST(site_mbind)
{
	struct fail_run fr = { .workers = 1,
			       .fn = send_twice,
			       .var = "ACT_TEST_NUMA",
			       .value = "force" };
	struct tu_child c;

	run_rule(ACT_FAIL_MBIND, "1", fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->got, 2);
	ck_assert_uint_eq(out->fired, 1);
	ck_assert_uint_eq(out->calls, 1); /* binding stopped */
	ck_assert_msg(strstr(c.err, "mbind to NUMA node"), "stderr: %s", c.err);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
}
END_TEST

/* I/O through a pipe, 64 writes of 64 bytes by one process, read by
 * another: every byte comes, in order. */
#define IO_CHUNK 64
#define IO_CHUNKS 64

static int io_pipe[2];

static void io_writer(void *arg)
{
	char buf[IO_CHUNK];
	int i;

	(void)arg;
	for (i = 0; i < IO_CHUNKS; i++) {
		memset(buf, 'a' + i % 26, sizeof(buf));
		if (act_io_write(io_pipe[1], buf, sizeof(buf), -1) !=
		    (ssize_t)sizeof(buf)) {
			out->bad = __LINE__;
			return;
		}
	}
}

static void io_main(void *arg)
{
	char buf[IO_CHUNK * IO_CHUNKS];
	long at = 0, i;
	ssize_t n;
	act_pid kid;

	(void)arg;
	began();
	if (pipe(io_pipe)) {
		out->bad = __LINE__;
		return;
	}
	if (act_spawn_pid(io_writer, NULL, NULL, &kid))
		out->bad = __LINE__;
	while (!out->bad && at < (long)sizeof(buf)) {
		n = act_io_read(io_pipe[0], buf + at, sizeof(buf) - (size_t)at,
				-1);
		if (n <= 0) {
			out->err1 = (int)n;
			break;
		}
		at += n;
	}
	out->got = at;
	for (i = 0; i < at; i++)
		if (buf[i] != 'a' + (i / IO_CHUNK) % 26)
			out->bad = __LINE__;
	close(io_pipe[0]);
	close(io_pipe[1]);
	out->ran = 1;
}

static void io_case(enum act__fail_site s, const char *rule)
{
	struct fail_run fr = { .workers = 2, .fn = io_main };
	struct tu_child c;

	run_rule(s, rule, fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->ran, 1);
	ck_assert_int_eq(out->err1, 0);
	ck_assert_int_eq(out->got, IO_CHUNK * IO_CHUNKS);
	ck_assert_uint_gt(out->fired, 0);
}

/* io_uring_enter refusing the SQEs, one time in two: they go with a
 * later enter. */
START_TEST(site_submit_busy)
{
	io_case(ACT_FAIL_SUBMIT_BUSY, "1/2");
}
END_TEST

START_TEST(site_submit_again)
{
	io_case(ACT_FAIL_SUBMIT_AGAIN, "1/2");
}
END_TEST

/* Completions held back from one reap in two: the next has them. */
START_TEST(site_cq_overflow)
{
	io_case(ACT_FAIL_CQ_OVERFLOW, "1/2");
}
END_TEST

/* No ring (io_uring_queue_init refused): timers and messages work, I/O
 * says -ENOSYS, nothing is left open. */
static void ringless_main(void *arg)
{
	char b;
	int p[2];

	(void)arg;
	began();
	if (pipe(p)) {
		out->bad = __LINE__;
		return;
	}
	out->io = (int)act_io_read(p[0], &b, 1, -1);
	close(p[0]);
	close(p[1]);
	out->slept = act_sleep(1000000);
	send_twice(NULL);
}

START_TEST(site_ring_setup)
{
	struct fail_run fr = { .workers = 1, .fn = ringless_main };
	struct tu_child c;

	run_rule(ACT_FAIL_RING_SETUP, "1", fr, &c);
	ck_assert_int_eq(out->rc, 0);
	ck_assert_int_eq(out->ran, 1);
	ck_assert_uint_eq(out->fired, 1);
	ck_assert_int_eq(out->io, -ENOSYS);
	ck_assert_int_eq(out->slept, 0);
	ck_assert_int_eq(out->got, 2);
}
END_TEST

/* ---- the suite ---------------------------------------------------------- */

static Suite *fail_suite(void)
{
	Suite *s = suite_create("fail");
	TCase *tc = tcase_create("rules");
	TCase *ts = tcase_create("sites");

	tcase_add_test(tc, parse_rules);
	tcase_add_test(tc, parse_refuses);
	tcase_add_test(tc, seed_refused);
	tcase_add_test(tc, random_is_seeded);
	suite_add_tcase(s, tc);

	tcase_set_timeout(ts, 120);
	tcase_add_test(ts, site_slot);
	tcase_add_test(ts, site_stack);
	tcase_add_test(ts, site_main_spawn);
	tcase_add_test(ts, site_mmap_stacks);
	tcase_add_test(ts, site_mmap_start);
	tcase_add_test(ts, site_envelope);
	tcase_add_test(ts, site_slab);
	tcase_add_test(ts, site_envelope_limit);
	tcase_add_test(ts, site_envelope_timer);
	tcase_add_test(ts, site_envelope_down);
	tcase_add_test(ts, site_thread_start);
	tcase_add_test(ts, site_thread_blocking);
	tcase_add_test(ts, site_futex_eintr);
	tcase_add_test(ts, site_futex_eagain);
	tcase_add_test(ts, site_hwloc);
	tu_add_test_unless(numa_available() < 0, "numa_available() < 0", ts,
			   site_mbind);
	tu_add_test_unless(!tu_have_ring(), "no io_uring", ts, site_ring_setup);
	tu_add_test_unless(!tu_have_ring(), "no io_uring", ts,
			   site_submit_busy);
	tu_add_test_unless(!tu_have_ring(), "no io_uring", ts,
			   site_submit_again);
	tu_add_test_unless(!tu_have_ring(), "no io_uring", ts,
			   site_cq_overflow);
	suite_add_tcase(s, ts);
	return s;
}

int main(void)
{
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED)
		return 99;
	return tu_run_suite(fail_suite());
}
