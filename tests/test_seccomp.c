/* SPDX-License-Identifier: MIT */
/*
 * test_seccomp.c - kernel features refused by a container's seccomp
 * profile. Each case forks a child that installs a filter answering EPERM
 * for some system calls (as Docker's and Kubernetes' default profiles do
 * for calls they do not know), then runs a runtime there: every probed
 * feature must fall back to its older path, or say in one line that it
 * is off, and everything else must go on working. Never a spin, a hang or
 * a crash.
 *
 * The regression this program was written for: futex_waitv refused with
 * EPERM was taken for available (only ENOSYS meant missing), and every
 * failed wait was ignored, so idle workers spun (6 s of CPU in 3 s idle
 * at 2 workers).
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "testrt.h"

#include "mem/stack.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/* Refuse each of the n system calls in nrs with EPERM, in this thread and
 * every thread it makes from now on. */
static void deny(const long *nrs, int n)
{
	struct sock_filter f[4 + 2 * 8 + 1];
	struct sock_fprog prog;
	int k = 0, i;

	ck_assert_int_le(n, 8);
	f[k++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      NATIVE_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)nrs[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & 0xffff));
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)k;
	prog.filter = f;
	ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0);
}

/* What a child found, on a shared page. */
struct seen {
	int main_rc;
	int done;
	int waitv; /* act__park_waitv_available() */
	int ring_mode;
	int guard_mode;
	int io_rc;
	uint64_t sleeps; /* every worker's, over an idle spell */
	int64_t leaks[3];
};

static struct seen *seen;

static void map_seen(void)
{
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(seen, MAP_FAILED);
	memset(seen, 0, sizeof(*seen));
}

static uint64_t all_sleeps(void)
{
	struct act_worker_stats w[8];
	uint64_t n = 0;
	int i, k = act_stats(NULL, w, 8);

	for (i = 0; i < k && i < 8; i++)
		n += w[i].sleeps;
	return n;
}

/* A pair that bounces messages between two workers' processes. */
static void bouncer(void *arg)
{
	struct act_msg *m;

	(void)arg;
	while ((m = act_receive(ACT_FOREVER)) != NULL) {
		uint32_t tag = m->tag;
		act_pid from = m->from;

		act_msg_free(m);
		if (tag == 0)
			return;
		act_send(from, tag - 1, NULL, 0);
	}
}

/* Work across workers, then an idle spell in which every worker sleeps. */
static void workload_main(void *arg)
{
	act_pid peer = act_spawn(bouncer, NULL);
	struct act_msg *m;
	uint64_t before;
	char buf[4];
	int p[2], i;

	(void)arg;
	seen->ring_mode = act__rt_current->reactor->ring.mode;
	seen->guard_mode = act__stack_guard_mode();
	for (i = 0; i < 200; i++) {
		ck_assert_int_eq(act_send(peer, 1, NULL, 0), 0);
		m = act_receive(ACT_FOREVER);
		act_msg_free(m);
		if (i % 20 == 0) /* both workers fall idle now and then */
			ck_assert_int_eq(act_sleep(TU_MS), 0);
	}
	ck_assert_int_eq(act_send(peer, 0, NULL, 0), 0);
	ck_assert(tu_wait_gone(peer));
	/* idle for 300 ms: a worker that sleeps sleeps a few times; one
	 * whose sleep fails at once comes back hundreds of thousands */
	before = all_sleeps();
	ck_assert_int_eq(act_sleep(300 * TU_MS), 0);
	seen->sleeps = all_sleeps() - before;
	/* timers */
	ck_assert_int_eq(act_send_after(TU_MS, act_self(), 9, NULL, 0, NULL),
			 0);
	m = act_receive(ACT_FOREVER);
	ck_assert_uint_eq(m->tag, 9);
	act_msg_free(m);
	/* I/O, or -ENOSYS where there is no ring */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "sec", 3), 3);
	seen->io_rc = (int)act_io_read(p[0], buf, sizeof(buf), -1);
	close(p[0]);
	close(p[1]);
	seen->done = 1;
}

static const long *deny_list;
static int deny_n;

static void child(void *arg)
{
	struct act_config cfg = tu_with_workers(2);

	(void)arg;
	deny(deny_list, deny_n);
	seen->waitv = act__park_waitv_available();
	seen->main_rc = act_main(&cfg, workload_main, NULL);
	seen->leaks[0] = act__last_leaks.procs;
	seen->leaks[1] = act__last_leaks.stacks;
	seen->leaks[2] = act__last_leaks.envelopes;
}

/* Run the workload in a child that refuses nrs; its stderr in c. */
static void run_denied(const long *nrs, int n, struct tu_child *c)
{
	map_seen();
	deny_list = nrs;
	deny_n = n;
	tu_run_child(child, NULL, c);
	/* 2 workers: on a 1-CPU machine the plan says so */
	tu_drop_lines_with(c->err, TU_FEW_CPUS_NOTE);
	ck_assert_msg(WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0,
		      "child status %#x: %s", c->status, c->err);
	ck_assert_int_eq(seen->main_rc, 0);
	ck_assert_int_eq(seen->done, 1);
	ck_assert_int_eq(seen->leaks[0], 0);
	ck_assert_int_eq(seen->leaks[1], 0);
	ck_assert_int_eq(seen->leaks[2], 0);
	/* 2 workers idle 300 ms: a handful of sleeps, never a spin */
	ck_assert_msg(seen->sleeps < 1000, "%llu sleeps in 300 ms idle",
		      (unsigned long long)seen->sleeps);
}

START_TEST(futex_waitv_refused)
{
	static const long nrs[] = { SYS_futex_waitv };
	struct tu_child c;

	run_denied(nrs, 1, &c);
	ck_assert_int_eq(seen->waitv, 0);
	ck_assert_int_eq(seen->io_rc, 3);
	ck_assert_str_eq(c.err, "");
}
END_TEST

START_TEST(io_uring_setup_refused)
{
	static const long nrs[] = { SYS_io_uring_setup };
	struct tu_child c;

	run_denied(nrs, 1, &c);
	ck_assert_int_eq(seen->ring_mode, ACT_RING_NONE);
	ck_assert_int_eq(seen->io_rc, -ENOSYS);
	/* tu_run_child drops the line that says io_uring is unavailable:
	 * nothing else was said */
	ck_assert_str_eq(c.err, "");
}
END_TEST

/* No probe of the ring's opcodes: the eventfd doorbell, which every
 * kernel with a ring has. */
START_TEST(io_uring_register_refused)
{
	static const long nrs[] = { SYS_io_uring_register };
	struct tu_child c;

	run_denied(nrs, 1, &c);
	ck_assert_int_eq(seen->ring_mode, ACT_RING_EVENTFD);
	ck_assert_int_eq(seen->io_rc, 3);
	ck_assert_str_eq(c.err, "");
}
END_TEST

/* No eventfd either: no doorbell for the ring, said in one line; timers
 * and messages go on, I/O is -ENOSYS. */
START_TEST(eventfd_refused)
{
	static const long nrs[] = { SYS_io_uring_register, SYS_eventfd2 };
	struct tu_child c;

	run_denied(nrs, 2, &c);
	ck_assert_int_eq(seen->ring_mode, ACT_RING_NONE);
	ck_assert_int_eq(seen->io_rc, -ENOSYS);
	ck_assert_int_eq(tu_str_lines(c.err), 1);
	ck_assert_ptr_nonnull(strstr(c.err, "no eventfd for io_uring"));
}
END_TEST

/* The madvise guard's process_madvise (and its pidfd) refused: guards by
 * mprotect. */
START_TEST(madvise_guard_refused)
{
	static const long nrs[] = { SYS_process_madvise, SYS_pidfd_open };
	struct tu_child c;

	run_denied(nrs, 2, &c);
	ck_assert_int_eq(seen->guard_mode, ACT_GUARD_MPROTECT);
	ck_assert_str_eq(c.err, "");
}
END_TEST

/* mbind refused while chunks are bound to their node: said once, and
 * memory goes on unplaced. This machine's node: a simulated one binds
 * nothing. */
START_TEST(mbind_refused)
{
	static const long nrs[] = { SYS_mbind };
	struct tu_child c;

	tu_real_machine();
	setenv("ACT_TEST_NUMA", "force", 1);
	run_denied(nrs, 1, &c);
	unsetenv("ACT_TEST_NUMA");
	ck_assert_int_eq(tu_str_lines(c.err), 1);
	ck_assert_ptr_nonnull(strstr(c.err, "mbind to NUMA node"));
	ck_assert_ptr_nonnull(strstr(c.err, "Operation not permitted"));
}
END_TEST

/*
 * The ACTORS_STATS header names the path each refusal left the runtime
 * on (an operator reads why a fallback was taken there).
 */
static const struct {
	long nrs[2];
	int n;
	const char *want[2];
} said[] = {
	{ { SYS_futex_waitv },
	  1,
	  { "park FUTEX_WAIT (futex_waitv: Operation not permitted)", NULL } },
	{ { SYS_io_uring_setup },
	  1,
	  { "doorbell FUTEX_WAIT (no ring)",
	    "ring none (io_uring is unavailable (Operation not permitted))" } },
	{ { SYS_io_uring_register },
	  1,
	  { "doorbell eventfd read in the ring", NULL } },
	{ { SYS_process_madvise, SYS_pidfd_open },
	  2,
	  { "guard mprotect, 64 KiB", NULL } },
};

static void stats_child(void *arg)
{
	struct act_config cfg = tu_with_workers(2);
	int i = (int)(intptr_t)arg;

	deny(said[i].nrs, said[i].n);
	setenv("ACTORS_STATS", "1", 1);
	seen->main_rc = act_main(&cfg, workload_main, NULL);
}

START_TEST(stats_name_the_paths)
{
	struct tu_child c;
	const char *line;
	int k;

	map_seen();
	tu_run_child(stats_child, (void *)(intptr_t)_i, &c);
	ck_assert_int_eq(seen->main_rc, 0);
	line = strstr(c.err, "actors: paths: park ");
	ck_assert_msg(line != NULL, "no paths line: %s", c.err);
	for (k = 0; k < 2 && said[_i].want[k]; k++)
		ck_assert_msg(strstr(line, said[_i].want[k]) != NULL,
			      "case %d: \"%s\" not in %s", _i, said[_i].want[k],
			      line);
}
END_TEST

static Suite *seccomp_suite(void)
{
	Suite *s = suite_create("seccomp");
	TCase *tc = tcase_create("refused");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, futex_waitv_refused);
	tcase_add_test(tc, io_uring_setup_refused);
	tcase_add_test(tc, io_uring_register_refused);
	tcase_add_test(tc, eventfd_refused);
	tcase_add_test(tc, madvise_guard_refused);
	tcase_add_test(tc, mbind_refused);
	tcase_add_loop_test(tc, stats_name_the_paths, 0,
			    (int)(sizeof(said) / sizeof(said[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(seccomp_suite());
}
