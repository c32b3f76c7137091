/* SPDX-License-Identifier: MIT */
/*
 * test_io_kill.c - act_kill, of processes blocked in I/O (I6: a killed
 * reader's buffer is never written after it died) and elsewhere, and
 * act_io_* at its limits: kills racing completions; the runtime's stop
 * with reads in flight; descriptor exhaustion; a one-entry ring; signals
 * at the reactor thread. The operations themselves are test_io.c's;
 * iotest.h holds the helpers both use.
 *
 * Nothing here asserts how long an operation took, only that nothing is
 * lost. When this program runs without io_uring (ACT_TEST_RING=none, or
 * a kernel without it), the cases that need a ring, all of them, leave
 * the suite with a SKIP line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testrt.h"
#include "iotest.h"

#include "reactor/reactor.h"

/* ---- helpers ------------------------------------------------------------ */

/* Raise the soft RLIMIT_NOFILE to at least n if the hard one allows;
 * returns the soft limit now. */
static rlim_t want_fds(rlim_t n)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < n) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n ?
				      n :
				      rl.rlim_max;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	return rl.rlim_cur;
}

/* Readers on their own pipes for the volume cases: as many as the
 * descriptor limit allows, up to want. */
static unsigned pipe_readers(unsigned want)
{
	rlim_t lim = want_fds(2 * (rlim_t)want + 64);

	return lim >= 2 * (rlim_t)want + 64 ? want : (unsigned)(lim - 64) / 2;
}

/* ---- act_kill (struct tu_kill_basic and tu_kb_receiver: iotest.h) ----- */

static void kb_sleeper(void *arg)
{
	struct tu_kill_basic *kb = arg;

	act_sleep(TU_HOUR);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_yielder(void *arg)
{
	(void)arg;
	for (;;)
		act_yield();
}

static void kb_reader(void *arg)
{
	struct tu_kill_basic *kb = arg;
	char buf[8];

	act_io_read(kb->p[0], buf, sizeof(buf), -1);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_timed_recv(void *arg)
{
	struct tu_kill_basic *kb = arg;
	char buf[8];

	act_io_recv_timeout(kb->sv[0], buf, sizeof(buf), 0, TU_HOUR);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_acceptor(void *arg)
{
	struct tu_kill_basic *kb = arg;

	act_io_accept(kb->l, NULL, NULL, 0);
	atomic_fetch_add(&kb->after, 1);
}

static void kb_poller(void *arg)
{
	struct tu_kill_basic *kb = arg;

	act_io_poll(kb->sv[0], POLLIN);
	atomic_fetch_add(&kb->after, 1);
}

/* Kills itself: it runs no further than its next yield (the library
 * ends it at once, inside act_kill). */
static void kb_self(void *arg)
{
	struct tu_kill_basic *kb = arg;

	atomic_store(&kb->self_stage, 1);
	act_kill(act_self(), 5);
	act_yield();
	atomic_store(&kb->self_stage, 2);
}

struct foreign_kill {
	act_pid victim;
	int rc;
};

static void *foreign_killer(void *arg)
{
	struct foreign_kill *fk = arg;

	fk->rc = act_kill(fk->victim, ACT_EXIT_KILL);
	return NULL;
}

static void kill_basics_main(void *arg)
{
	static void (*const victims[])(void *) = {
		tu_kb_receiver, kb_sleeper,  kb_yielder, kb_reader,
		kb_timed_recv,	kb_acceptor, kb_poller,
	};
	static struct tu_kill_basic kb;
	struct foreign_kill fk;
	struct sockaddr_in a;
	act_pid v[8], s;
	pthread_t t;
	unsigned i, n = sizeof(victims) / sizeof(victims[0]);

	(void)arg;
	atomic_store(&kb.after, 0);
	atomic_store(&kb.self_stage, 0);
	tu_mkpipe(kb.p);
	kb.l = tu_tcp_bound(&a, 4);
	ck_assert_int_eq(
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, kb.sv), 0);
	for (i = 0; i < n; i++)
		v[i] = tu_spawn(victims[i], &kb);
	ck_assert(tu_wait_inflight(4)); /* read, recv, accept, poll */
	act_sleep(5 * TU_MS);		/* the others in their waits */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_kill(v[i], 1000 + (intptr_t)i), 0);
	ck_assert_uint_eq(tu_wait_all_gone(v, n), 0);
	ck_assert_int_eq(atomic_load(&kb.after), 0);
	ck_assert_uint_eq(tu_stats_now().io_inflight, 0);
	/* dead, stale, none */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_kill(v[i], 1), -ESRCH);
	ck_assert_int_eq(act_kill(ACT_PID_NONE, 1), -ESRCH);
	/* itself, at its next yield */
	s = tu_spawn(kb_self, &kb);
	ck_assert(tu_wait_gone(s));
	ck_assert_int_eq(atomic_load(&kb.self_stage), 1);
	/* from a thread that is not a process */
	fk.victim = tu_spawn(kb_reader, &kb);
	ck_assert(tu_wait_iowait(fk.victim));
	ck_assert_int_eq(pthread_create(&t, NULL, foreign_killer, &fk), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(fk.rc, 0);
	ck_assert(tu_wait_gone(fk.victim));
	ck_assert_int_eq(atomic_load(&kb.after), 0);
	/* nothing read the pipe, the socket or the listener meanwhile */
	ck_assert_int_eq(write(kb.p[1], "x", 1), 1);
	ck_assert_int_eq(tu_unread(kb.p[0]), 1);
	tu_close_pair(kb.p);
	tu_close_pair(kb.sv);
	close(kb.l);
	ck_assert_uint_eq(tu_stats_now().io_inflight, 0);
}

START_TEST(kill_basics)
{
	struct act_config cfg = tu_cfg_for(_i);

	ck_assert_int_eq(tu_run_main(&cfg, kill_basics_main, NULL), 0);
	ck_assert_int_eq(act_kill(ACT_PID_NONE, 1), -ESRCH); /* no runtime */
}
END_TEST

/* A process killed before its first turn never runs its function; the
 * spawner keeps the one worker until it waits. */
static _Atomic int unborn_ran;

static void unborn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&unborn_ran, 1);
}

static void unborn_main(void *arg)
{
	act_pid kids[100];
	int i;

	(void)arg;
	for (i = 0; i < 100; i++) {
		kids[i] = act_spawn(unborn, NULL);
		ck_assert(kids[i].id);
	}
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(act_kill(kids[i], 7), 0);
	for (i = 0; i < 100; i++)
		ck_assert(tu_wait_gone(kids[i]));
}

START_TEST(kill_before_first_turn)
{
	struct act_config cfg = tu_with_workers(1);

	atomic_store(&unborn_ran, 0);
	ck_assert_int_eq(tu_run_main(&cfg, unborn_main, NULL), 0);
	ck_assert_int_eq(atomic_load(&unborn_ran), 0);
}
END_TEST

/* The main process killed while it waits: act_main returns the reason,
 * ACT_EXIT_KILL as ACT_EXIT_KILLED. */
struct main_kill {
	act_pid main;
	intptr_t reason;
	int p[2];
	bool in_io;
};

static void main_killer(void *arg)
{
	struct main_kill *mk = arg;
	int rc;

	if (mk->in_io)
		ck_assert(tu_wait_inflight(1));
	else
		ck_assert(tu_wait_waiting(mk->main));
	ck_assert_int_eq(act_kill(mk->main, mk->reason), 0);
	/* a second kill: 0 if it had not exited yet (-ESRCH if it had),
	 * and the first reason stays */
	rc = act_kill(mk->main, 99);
	ck_assert(rc == 0 || rc == -ESRCH);
}

static void killed_main(void *arg)
{
	struct main_kill *mk = arg;
	char buf[8];

	mk->main = act_self();
	tu_spawn(main_killer, mk);
	if (mk->in_io)
		act_io_read(mk->p[0], buf, sizeof(buf), -1);
	else
		act_receive(ACT_FOREVER);
	ck_abort_msg("the killed main process ran on");
}

START_TEST(kill_main)
{
	struct act_config cfg = tu_with_workers(1 + _i);
	struct main_kill mk;

	tu_mkpipe(mk.p);
	mk.in_io = true;
	mk.reason = 42;
	ck_assert_int_eq(tu_run_main(&cfg, killed_main, &mk), 42);
	mk.reason = ACT_EXIT_KILL;
	ck_assert_int_eq(tu_run_main(&cfg, killed_main, &mk), ACT_EXIT_KILLED);
	mk.in_io = false;
	mk.reason = 7;
	ck_assert_int_eq(tu_run_main(&cfg, killed_main, &mk), 7);
	/* the reads were cancelled: what is written now stays */
	ck_assert_int_eq(write(mk.p[1], "x", 1), 1);
	ck_assert_int_eq(tu_unread(mk.p[0]), 1);
	tu_close_pair(mk.p);
}
END_TEST

/* ---- 1,000 processes killed mid-read (I6) ------------------------------ */

#define KILL_N (TU_UNDER_TSAN ? 200 : 1000)
#define KBUF 256
#define KDEPTH 4096 /* the reader's buffer lies this deep in its stack */
#define PAD 16384   /* a painter's painted stack, which covers that */
#define PAINT 0x5a

struct kill_slot {
	int p[2];
	act_pid pid;
	uintptr_t buf;	      /* where its buffer was */
	_Atomic int returned; /* its act_io_read returned: must not */
};

struct painter {
	uintptr_t lo, hi;
	act_pid main;
};

static struct kill_slot ks[KILL_N];
static struct painter pt[KILL_N];
static act_pid kpids[KILL_N];
static unsigned kill_n;

static __attribute__((noinline)) void kill_read_deep(struct kill_slot *s)
{
	unsigned char buf[KBUF];

	memset(buf, 0, sizeof(buf));
	s->buf = (uintptr_t)buf;
	act_io_read(s->p[0], buf, sizeof(buf), -1);
	atomic_store(&s->returned, 1);
	__asm__ volatile("" : : "r"(buf) : "memory");
}

static void kill_reader(void *arg)
{
	volatile unsigned char spacer[KDEPTH];

	spacer[0] = 0;
	spacer[KDEPTH - 1] = 0;
	kill_read_deep(arg);
	/* no tail call: the spacer stays below */
	__asm__ volatile("" : : "r"(spacer) : "memory");
}

/* Paints PAD bytes of its stack, waits for the word, checks them. */
static void painter(void *arg)
{
	struct painter *pp = arg;
	volatile unsigned char pad[PAD];
	unsigned i, bad = 0;

	for (i = 0; i < PAD; i++)
		pad[i] = PAINT;
	pp->lo = (uintptr_t)&pad[0];
	pp->hi = (uintptr_t)&pad[PAD - 1] + 1;
	ck_assert_int_eq(act_send(pp->main, 12, NULL, 0), 0);
	act_msg_free(tu_receive_tag(13));
	for (i = 0; i < PAD; i++)
		bad += pad[i] != PAINT;
	ck_assert_int_eq(act_send(pp->main, 14, &bad, sizeof(bad)), 0);
}

static void readers_start(unsigned n, void (*fn)(void *))
{
	unsigned i;

	for (i = 0; i < n; i++) {
		tu_mkpipe(ks[i].p);
		atomic_store(&ks[i].returned, 0);
		ks[i].buf = 0;
		ks[i].pid = kpids[i] = tu_spawn(fn, &ks[i]);
	}
}

static unsigned readers_returned(unsigned n)
{
	unsigned i, r = 0;

	for (i = 0; i < n; i++)
		r += atomic_load(&ks[i].returned);
	return r;
}

static void readers_close(unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		tu_close_pair(ks[i].p);
}

/* Readers whose buffer lay inside some painter's paint. */
static unsigned painted_over(unsigned n)
{
	unsigned i, j, covered = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (ks[i].buf >= pt[j].lo &&
			    ks[i].buf + KBUF <= pt[j].hi) {
				covered++;
				break;
			}
	return covered;
}

/*
 * One round: readers killed mid-read, then painters on the stacks they
 * left. Every assertion holds in every round. Returns whether the check
 * meant something: whether some dead reader's buffer lay under a
 * painter's paint, which depends on which stacks the painters were
 * given, which scheduling decides (a reader that dies on another worker
 * leaves its stack in that worker's cache, out of the painters' reach).
 */
static bool kill_mid_read_round(void)
{
	static unsigned char data[KBUF];
	static act_pid ppids[KILL_N];
	struct act_stats s0, s1;
	unsigned i, n = kill_n, kill_fails = 0, left = 0, bad = 0, b;
	act_pid self = act_self();
	struct act_msg *m;

	s0 = tu_stats_now();
	readers_start(n, kill_reader);
	ck_assert(tu_wait_inflight(n));
	for (i = 0; i < n; i++)
		kill_fails += act_kill(ks[i].pid, ACT_EXIT_KILL) != 0;
	ck_assert_uint_eq(kill_fails, 0);
	ck_assert_uint_eq(tu_wait_all_gone(kpids, n), 0);
	/* I6: each exited only after its operation's completion came */
	s1 = tu_stats_now();
	ck_assert_uint_eq(s1.io_inflight, 0);
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, n);
	ck_assert_uint_eq(s1.io_cancels - s0.io_cancels, n);
	ck_assert_uint_eq(readers_returned(n), 0);
	/* new processes on the dead ones' stacks, painted */
	for (i = 0; i < n; i++) {
		pt[i].main = self;
		ppids[i] = tu_spawn(painter, &pt[i]);
	}
	for (i = 0; i < n; i++)
		act_msg_free(tu_receive_tag(12));
	/* data into every pipe: no read is left to take it */
	memset(data, 0xab, sizeof(data));
	for (i = 0; i < n; i++)
		bad += write(ks[i].p[1], data, sizeof(data)) != KBUF;
	ck_assert_uint_eq(bad, 0);
	act_sleep(20 * TU_MS);
	for (i = 0; i < n; i++)
		left += tu_unread(ks[i].p[0]) == KBUF;
	ck_assert_uint_eq(left, n);
	/* the painters look at their paint */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(act_send(ppids[i], 13, NULL, 0), 0);
	for (i = 0; i < n; i++) {
		m = tu_receive_tag(14);
		memcpy(&b, m->data, sizeof(b));
		bad += b;
		act_msg_free(m);
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(readers_returned(n), 0);
	return painted_over(n) > 0;
}

/*
 * The premise (a dead reader's stack painted over) is arranged by trying
 * again: a round whose painters were given none of those stacks (the
 * readers died elsewhere: TSan's pace, a loaded machine) proves nothing
 * and is run again, up to 20 times, each on fresh pipes.
 */
static void kill_mid_read_main(void *arg)
{
	int round;

	(void)arg;
	for (round = 1; !kill_mid_read_round(); round++) {
		ck_assert_msg(round < 20,
			      "in %d rounds no painter was given a "
			      "dead reader's stack",
			      round);
		readers_close(kill_n);
	}
	if (round > 1)
		printf("kill_mid_read: the paint covered a dead reader's "
		       "buffer in round %d\n",
		       round);
}

START_TEST(kill_mid_read)
{
	struct act_config cfg = tu_cfg_for(_i);

	kill_n = pipe_readers(KILL_N);
	ck_assert_uint_ge(kill_n, 100);
	ck_assert_int_eq(tu_run_main(&cfg, kill_mid_read_main, NULL), 0);
	readers_close(kill_n);
}
END_TEST

/* Kills and writes interleaved: each read either completed with the data
 * (its completion came before its process exited) or was cancelled, never
 * both. A read killed before its data was written never returned; one
 * whose data came first may have returned before the kill came. */
static void plain_reader(void *arg)
{
	struct kill_slot *s = arg;
	unsigned char buf[KBUF];

	act_io_read(s->p[0], buf, sizeof(buf), -1);
	atomic_store(&s->returned, 1);
}

static void kill_race_main(void *arg)
{
	static unsigned char data[KBUF];
	struct act_stats s0, s1;
	unsigned i, n = kill_n, kill_fails = 0, bad = 0, drained = 0;
	unsigned kept = 0, partial = 0;
	int u, rc;

	(void)arg;
	memset(data, 0xcd, sizeof(data));
	s0 = tu_stats_now();
	readers_start(n, plain_reader);
	ck_assert(tu_wait_inflight(n));
	for (i = 0; i < n; i++) {
		if (i % 2) { /* data first: it may return and exit first */
			bad += write(ks[i].p[1], data, KBUF) != KBUF;
			rc = act_kill(ks[i].pid, ACT_EXIT_KILL);
			kill_fails += rc != 0 && rc != -ESRCH;
		} else {
			kill_fails += act_kill(ks[i].pid, ACT_EXIT_KILL) != 0;
			bad += write(ks[i].p[1], data, KBUF) != KBUF;
		}
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(kill_fails, 0);
	ck_assert_uint_eq(tu_wait_all_gone(kpids, n), 0);
	s1 = tu_stats_now();
	ck_assert_uint_eq(s1.io_inflight, 0);
	ck_assert_uint_eq(s1.io_ops - s0.io_ops, n);
	for (i = 0; i < n; i += 2)
		bad += atomic_load(&ks[i].returned);
	ck_assert_uint_eq(bad, 0);
	act_sleep(10 * TU_MS);
	for (i = 0; i < n; i++) {
		u = tu_unread(ks[i].p[0]);
		drained += u == 0;
		kept += u == KBUF;
		partial += u != 0 && u != KBUF;
	}
	ck_assert_uint_eq(partial, 0);
	ck_assert_uint_eq(drained + kept, n);
	/* a cancelled read took nothing, a completed one all */
	ck_assert_uint_eq(kept, s1.io_cancels - s0.io_cancels);
}

START_TEST(kill_races_completion)
{
	struct act_config cfg = tu_cfg_for(_i);

	kill_n = pipe_readers(KILL_N);
	ck_assert_uint_ge(kill_n, 100);
	ck_assert_int_eq(tu_run_main(&cfg, kill_race_main, NULL), 0);
	readers_close(kill_n);
}
END_TEST

/* ---- the main process returns while others wait in reads -------------- */

#define STOP_N 100

static void stop_main(void *arg)
{
	(void)arg;
	readers_start(STOP_N, plain_reader);
	ck_assert(tu_wait_inflight(STOP_N));
	/* returns: the runtime stops with 100 reads in the kernel */
}

/*
 * The runtime stops while an accept completes: whether its completion
 * comes before the stop (the process is woken, then discarded unrun),
 * during it, or after its cancel, the accepted descriptor is closed,
 * never left to nobody. 200 starts and stops, a connection made just
 * before each main process returns; the descriptors open after each are
 * those open before (118 to 187 of 200 runs leaked one).
 */
struct accept_stop {
	int l;
	struct sockaddr_in a;
};

static void stop_acceptor(void *arg)
{
	struct accept_stop *as = arg;
	int fd = act_io_accept(as->l, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0) /* it ran before the stop: its descriptor, closed */
		close(fd);
}

static void accept_stop_main(void *arg)
{
	struct accept_stop *as = arg;
	int c;

	tu_spawn(stop_acceptor, as);
	ck_assert(tu_wait_inflight(1));
	c = tu_tcp_socket();
	/* the handshake completes in connect: the accept's CQE comes at
	 * once, racing the stop that follows */
	ck_assert_int_eq(connect(c, TU_SA(&as->a), sizeof(as->a)), 0);
	close(c);
}

/* Accept and close every connection queued on l, without waiting. */
static void drain_listener(int l)
{
	int flags = fcntl(l, F_GETFL), fd;

	ck_assert_int_ge(flags, 0);
	ck_assert_int_eq(fcntl(l, F_SETFL, flags | O_NONBLOCK), 0);
	while ((fd = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(fd);
	ck_assert_msg(errno == EAGAIN || errno == EWOULDBLOCK,
		      "accept4 on the listener: %s", strerror(errno));
	ck_assert_int_eq(fcntl(l, F_SETFL, flags), 0);
}

START_TEST(stop_closes_accepted_fds)
{
	struct act_config cfg = tu_cfg_for(_i);
	struct accept_stop as;
	int i, fds, leaked = 0;

	as.l = tu_tcp_bound(&as.a, 256);
	fds = tu_count_entries("/proc/self/fd");
	for (i = 0; i < 200; i++) {
		/* the premise: an accept in flight until the connect. A run
		 * whose stop cancelled the accept left its connection queued
		 * on the listener, which the next run's accept would take at
		 * once, never in flight: take it here */
		drain_listener(as.l);
		ck_assert_int_eq(tu_run_main(&cfg, accept_stop_main, &as), 0);
		leaked += tu_count_entries("/proc/self/fd") != fds;
		fds = tu_count_entries("/proc/self/fd");
	}
	close(as.l);
	ck_assert_msg(leaked == 0, "%d of 200 runs left a descriptor open",
		      leaked);
}
END_TEST

START_TEST(stop_with_reads_in_flight)
{
	struct act_config cfg = tu_cfg_for(_i);
	static unsigned char data[KBUF];
	unsigned i, left = 0;

	ck_assert_int_eq(tu_run_main(&cfg, stop_main, NULL), 0); /* no leaks */
	ck_assert_ptr_null(act__rt_current);
	ck_assert_uint_eq(readers_returned(STOP_N), 0);
	/* no read is left in any kernel queue to take this */
	for (i = 0; i < STOP_N; i++) {
		ck_assert_int_eq(write(ks[i].p[1], data, KBUF), KBUF);
		left += tu_unread(ks[i].p[0]) == KBUF;
	}
	ck_assert_uint_eq(left, STOP_N);
	readers_close(STOP_N);
	/* and a runtime starts again */
	ck_assert_int_eq(tu_run_main(&cfg, tu_pipe_main, NULL), 0);
}
END_TEST

/* ---- descriptor exhaustion: EMFILE from accept, and a backing-off acceptor */

#define BACKOFF (10 * TU_MS)
#define EMFILE_LIMIT 64

struct emfile_case {
	int l;
	act_pid main;
};

static void backoff_acceptor(void *arg)
{
	struct emfile_case *ec = arg;
	int res[2] = { 0, 0 }; /* the descriptor, the EMFILEs seen */

	while ((res[0] = act_io_accept(ec->l, NULL, NULL, SOCK_CLOEXEC)) ==
	       -EMFILE) {
		res[1]++;
		ck_assert_int_eq(act_sleep(BACKOFF), 0);
	}
	ck_assert_int_eq(act_send(ec->main, 15, res, sizeof(res)), 0);
}

/* Open /dev/null until EMFILE; returns how many were opened. */
static int fill_fds(int *fds, int max)
{
	int n = 0, fd;

	while (n < max && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		fds[n++] = fd;
	ck_assert_int_lt(n, max);
	ck_assert_int_eq(errno, EMFILE);
	return n;
}

static void emfile_main(void *arg)
{
	struct emfile_case ec = { .main = act_self() };
	int fillers[EMFILE_LIMIT], n, fd, c1, c2, res[2];
	struct sockaddr_in a;
	struct act_stats s0, s1;
	struct act_msg *m;
	int64_t t0, t1;
	uint64_t calls, bound;
	char b;

	(void)arg;
	ec.l = tu_tcp_bound(&a, 8);
	c1 = tu_tcp_socket();
	ck_assert_int_eq(connect(c1, TU_SA(&a), sizeof(a)), 0); /* queued */
	n = fill_fds(fillers, EMFILE_LIMIT);
	ck_assert_int_eq(act_io_accept(ec.l, NULL, NULL, SOCK_CLOEXEC),
			 -EMFILE);
	ck_assert_int_eq(act_io_accept_timeout(ec.l, NULL, NULL, 0,
					       10 * TU_SEC),
			 -EMFILE);
	close(fillers[--n]);
	close(fillers[--n]);
	/* the connection waited in the queue: accepted now */
	fd = act_io_accept(ec.l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(send(c1, "x", 1, 0), 1);
	ck_assert_int_eq(act_io_recv(fd, &b, 1, 0), 1);
	ck_assert_int_eq(b, 'x');
	close(fd);
	close(c1);
	c2 = tu_tcp_socket();
	ck_assert_int_eq(connect(c2, TU_SA(&a), sizeof(a)), 0);
	n += fill_fds(fillers + n, EMFILE_LIMIT - n);
	/* an acceptor that sleeps BACKOFF after each EMFILE makes at most
	 * one accept per BACKOFF, whatever else runs (sleeps are never
	 * short): no spin, in the process or in the runtime */
	s0 = tu_stats_now();
	t0 = act__clock_now();
	tu_spawn(backoff_acceptor, &ec);
	act_sleep(200 * TU_MS);
	s1 = tu_stats_now();
	t1 = act__clock_now();
	calls = s1.io_ops - s0.io_ops;
	bound = (uint64_t)((t1 - t0) / BACKOFF) + 2;
	ck_assert_uint_ge(calls, 1);
	ck_assert_msg(calls <= bound, "%llu accepts in %lld ms (at most %llu)",
		      (unsigned long long)calls, (long long)((t1 - t0) / TU_MS),
		      (unsigned long long)bound);
	close(fillers[--n]);
	close(fillers[--n]);
	m = tu_receive_tag(15);
	memcpy(res, m->data, sizeof(res));
	act_msg_free(m);
	ck_assert_int_ge(res[0], 0);
	ck_assert_int_ge(res[1], 1);
	ck_assert_int_eq(send(c2, "y", 1, 0), 1);
	ck_assert_int_eq(act_io_recv(res[0], &b, 1, 0), 1);
	ck_assert_int_eq(b, 'y');
	close(res[0]);
	close(c2);
	close(ec.l);
	while (n > 0)
		close(fillers[--n]);
}

static void emfile_child(void *arg)
{
	struct act_config cfg = tu_with_workers((int)(intptr_t)arg);
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = EMFILE_LIMIT;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	_exit(act_main(&cfg, emfile_main, NULL) == 0 ? 0 : 1);
}

START_TEST(accept_emfile)
{
	struct tu_child c;

	tu_run_child(emfile_child, (void *)(intptr_t)(1 + _i), &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
}
END_TEST

/*
 * act_io_accept_shed: at the limit, with three clients waiting, the spare
 * lets each in turn be taken, answered and closed; it is set aside again
 * after; nobody waiting sheds nothing (and does not wait); the limit is
 * still there after (its spare holds the one number); a bad socket's
 * error comes back with the spare set aside again; bad arguments are
 * refused before anything is closed; outside a process, -EPERM.
 */
#define SHED_MSG "-ERR no\r\n"

static void shed_main(void *arg)
{
	int fillers[EMFILE_LIMIT], c[3], n, l, spare, i;
	struct sockaddr_in a;
	char buf[32];
	ssize_t k;

	(void)arg;
	l = tu_tcp_bound(&a, 8);
	spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(spare, 0);
	for (i = 0; i < 3; i++) {
		c[i] = tu_tcp_socket();
		ck_assert_int_eq(connect(c[i], TU_SA(&a), sizeof(a)), 0);
	}
	n = fill_fds(fillers, EMFILE_LIMIT);
	ck_assert_int_eq(act_io_accept(l, NULL, NULL, SOCK_CLOEXEC), -EMFILE);
	ck_assert_int_eq(
		act_io_accept_shed(l, &spare, SHED_MSG, strlen(SHED_MSG)), 3);
	ck_assert_int_ge(spare, 0);
	for (i = 0; i < 3; i++) {
		k = recv(c[i], buf, sizeof(buf), MSG_WAITALL);
		ck_assert_int_eq(k, (ssize_t)strlen(SHED_MSG));
		ck_assert_int_eq(memcmp(buf, SHED_MSG, (size_t)k), 0);
		/* then the end: the server's socket is closed (the client's
		 * stays open, so that the limit is still where it was) */
		ck_assert_int_eq(recv(c[i], buf, sizeof(buf), 0), 0);
	}
	ck_assert_int_eq(act_io_accept_shed(l, &spare, NULL, 0), 0);
	ck_assert_int_ge(spare, 0);
	ck_assert_int_eq(act_io_accept(l, NULL, NULL, SOCK_CLOEXEC), -EMFILE);
	ck_assert_int_eq(act_io_accept_shed(fillers[0], &spare, NULL, 0),
			 -ENOTSOCK);
	ck_assert_int_ge(spare, 0);
	ck_assert_int_eq(act_io_accept_shed(l, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(act_io_accept_shed(l, &spare, NULL, 1), -EINVAL);
	ck_assert_int_ge(spare, 0);
	close(spare);
	close(l);
	for (i = 0; i < 3; i++)
		close(c[i]);
	while (n > 0)
		close(fillers[--n]);
}

static void shed_child(void *arg)
{
	struct act_config cfg = tu_with_workers((int)(intptr_t)arg);
	struct rlimit rl;
	int spare = 7;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = EMFILE_LIMIT;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	if (act_main(&cfg, shed_main, NULL) != 0)
		_exit(1);
	/* outside a process: refused, the spare left alone */
	_exit(act_io_accept_shed(0, &spare, NULL, 0) == -EPERM && spare == 7 ?
		      0 :
		      2);
}

START_TEST(accept_shed)
{
	struct tu_child c;

	tu_run_child(shed_child, (void *)(intptr_t)(1 + _i), &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
}
END_TEST

/* ---- a one-entry ring: 1,000 reads outstanding, none lost ------------- */

#define RING1_N (TU_UNDER_TSAN ? 200 : 1000)
#define R1_MAGIC 0x5eed000000000000ull

static act_pid r1_main_pid;
static bool r1_timed;

/* With r1_timed, every other reader uses the _timeout form (two SQ
 * entries: the read and its linked timeout). */
static void r1_reader(void *arg)
{
	struct kill_slot *s = arg;
	uint64_t res[3] = { (uint64_t)(s - ks), 0, 0 };
	ssize_t n;

	if (r1_timed && res[0] % 2)
		n = act_io_read_timeout(s->p[0], &res[2], 8, -1, 600 * TU_SEC);
	else
		n = act_io_read(s->p[0], &res[2], 8, -1);
	res[1] = (uint64_t)n;
	ck_assert_int_eq(act_send(r1_main_pid, 16, res, sizeof(res)), 0);
}

/* n readers, each with a read outstanding, then data for each. */
static void r1_round(unsigned n, bool timed)
{
	unsigned i, bad = 0;
	uint64_t res[3], v;
	struct act_msg *m;

	r1_timed = timed;
	readers_start(n, r1_reader);
	ck_assert(tu_wait_inflight(n));
	for (i = 0; i < n; i++) {
		v = R1_MAGIC | i;
		bad += write(ks[i].p[1], &v, sizeof(v)) != sizeof(v);
	}
	ck_assert_uint_eq(bad, 0);
	for (i = 0; i < n; i++) {
		m = tu_receive_tag(16);
		memcpy(res, m->data, sizeof(res));
		act_msg_free(m);
		bad += res[1] != 8 || res[2] != (R1_MAGIC | res[0]);
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert(tu_wait_no_inflight());
	readers_close(n);
}

/* Timed calls alone; reports how many went wrong. */
static void r1_timed_alone(void *arg)
{
	unsigned bad = 0;
	char buf[8];
	int p[2];

	(void)arg;
	tu_mkpipe(p);
	bad += act_io_read_timeout(p[0], buf, sizeof(buf), -1, TU_TMO) !=
	       -ETIMEDOUT;
	bad += act_io_write_timeout(p[1], "12345678", 8, -1, TU_SEC) != 8;
	bad += act_io_read_timeout(p[0], buf, sizeof(buf), -1, TU_SEC) != 8;
	tu_close_pair(p);
	ck_assert_int_eq(act_send(r1_main_pid, 17, &bad, sizeof(bad)), 0);
}

static void ring1_main(void *arg)
{
	struct act_msg *m;
	unsigned bad;

	(void)arg;
	ck_assert_uint_eq(act__rt_current->cfg.ring_entries, 1);
	r1_main_pid = act_self();
	r1_round(kill_n, false);
	/* a timed operation takes two entries: it must complete anyway
	 * (it once waited for ever: 4cf464f); a bounded wait, so that a
	 * hang fails here and not by the case's timeout */
	tu_spawn(r1_timed_alone, NULL);
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)17, 10 * TU_SEC);
	ck_assert_msg(m != NULL, "a _timeout call on a ring of one entry "
				 "never completed");
	memcpy(&bad, m->data, sizeof(bad));
	act_msg_free(m);
	ck_assert_uint_eq(bad, 0);
	r1_round(kill_n, true);
}

START_TEST(ring_of_one_loses_nothing)
{
	struct act_config cfg = tu_with_workers(_i ? 4 : 1);

	cfg.ring_entries = 1;
	kill_n = pipe_readers(RING1_N);
	ck_assert_uint_ge(kill_n, 100);
	ck_assert_int_eq(tu_run_main(&cfg, ring1_main, NULL), 0);
}
END_TEST

/* ---- signals at the reactor thread lose nothing ------------------------ */

#define SIG_PAIRS 100
#define SIG_MIN (TU_UNDER_TSAN ? 500 : 3000)
#define SIG_ROUNDS 20

static _Atomic unsigned long sigs_sent, sigs_got;
static _Atomic int sig_stop;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&sigs_got, 1, memory_order_relaxed);
}

/* The reactor thread's id, by its name; 0 if none is found. */
/* The thread that owns the ring: the reactor's, or, inline, the one
 * worker's (the caller's: a process on it asks) */
static pid_t reactor_tid(void)
{
	DIR *d;
	char path[300], comm[32];
	struct dirent *e;
	pid_t tid = 0;
	FILE *f;

	if (act__rt_current->reactor->on_worker)
		return (pid_t)syscall(SYS_gettid);
	d = opendir("/proc/self/task");
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strcmp(comm, "act-reactor\n"))
			tid = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	return tid;
}

/* Does thread tid block SIGUSR1 (its SigBlk mask)? */
static bool blocks_usr1(pid_t tid)
{
	char path[64], line[128];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ull << (SIGUSR1 - 1));
}

static void *sig_thread(void *arg)
{
	pid_t tid = *(pid_t *)arg;
	struct timespec ts = { 0, 20000 };

	while (!atomic_load(&sig_stop)) {
		if (syscall(SYS_tgkill, getpid(), tid, SIGUSR1) == 0)
			atomic_fetch_add(&sigs_sent, 1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

struct sig_pair {
	int ab[2], ba[2];
	act_pid main;
	uint64_t idx;
};

static struct sig_pair sps[SIG_PAIRS];

static void sig_ping(void *arg)
{
	struct sig_pair *sp = arg;
	uint64_t v, w = 0, r;
	unsigned bad = 0;

	for (r = 0; r < SIG_ROUNDS ||
		    (atomic_load(&sigs_sent) < SIG_MIN && r < 1000000);
	     r++) {
		v = sp->idx << 32 | r;
		bad += act_io_write(sp->ab[1], &v, 8, -1) != 8;
		bad += act_io_read(sp->ba[0], &w, 8, -1) != 8;
		bad += w != v + 1;
		if (r % 8 == 0)
			bad += act_sleep((int64_t)(r % 3) * 100000) != 0;
	}
	v = UINT64_MAX;
	bad += act_io_write(sp->ab[1], &v, 8, -1) != 8;
	ck_assert_int_eq(act_send(sp->main, 17, &bad, sizeof(bad)), 0);
}

static void sig_pong(void *arg)
{
	struct sig_pair *sp = arg;
	unsigned bad = 0;
	uint64_t v;

	for (;;) {
		if (act_io_read_timeout(sp->ab[0], &v, 8, -1, 600 * TU_SEC) !=
		    8) {
			bad++;
			break;
		}
		if (v == UINT64_MAX)
			break;
		if ((v & 7) == 3)
			bad += act_io_poll_timeout(sp->ba[1], POLLOUT,
						   600 * TU_SEC) != POLLOUT;
		if ((v & 15) == 5)
			bad += act_sleep(50000) != 0;
		v++;
		bad += act_io_write(sp->ba[1], &v, 8, -1) != 8;
	}
	ck_assert_int_eq(act_send(sp->main, 18, &bad, sizeof(bad)), 0);
}

static void sig_main(void *arg)
{
	struct sigaction sa;
	unsigned i, bad = 0, b;
	struct act_msg *m;
	pthread_t t;
	pid_t tid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = *(int *)arg ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	atomic_store(&sigs_sent, 0);
	atomic_store(&sigs_got, 0);
	atomic_store(&sig_stop, 0);
	tid = reactor_tid();
	ck_assert_int_gt(tid, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, sig_thread, &tid), 0);
	for (i = 0; i < SIG_PAIRS; i++) {
		sps[i].main = act_self();
		sps[i].idx = i;
		tu_mkpipe(sps[i].ab);
		tu_mkpipe(sps[i].ba);
		tu_spawn(sig_pong, &sps[i]);
		tu_spawn(sig_ping, &sps[i]);
	}
	for (i = 0; i < 2 * SIG_PAIRS; i++) {
		m = act_receive(ACT_FOREVER);
		memcpy(&b, m->data, sizeof(b));
		bad += b;
		act_msg_free(m);
	}
	atomic_store(&sig_stop, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_ge(atomic_load(&sigs_sent), SIG_MIN);
	/* the reactor took them (unless the runtime blocks the signal
	 * there, which is as good) */
	if (!blocks_usr1(tid))
		ck_assert_uint_gt(atomic_load(&sigs_got), 0);
	for (i = 0; i < SIG_PAIRS; i++) {
		tu_close_pair(sps[i].ab);
		tu_close_pair(sps[i].ba);
	}
	ck_assert(tu_wait_no_inflight());
}

START_TEST(signals_at_reactor)
{
	struct act_config cfg = tu_with_workers(2);
	int restart = _i;

	ck_assert_int_eq(tu_run_main(&cfg, sig_main, &restart), 0);
}
END_TEST

/* Cases by area, each its own TCase: CK_RUN_CASE=kill runs one area. */
static Suite *io_kill_suite(void)
{
	Suite *s = suite_create("io_kill");
	TCase *kill = tcase_create("kill"), *lim = tcase_create("limits");
	bool no_ring = !tu_have_ring();

	tcase_set_timeout(kill, 60);
	TU_IO_LOOP(kill, kill_basics, 3);
	TU_IO_LOOP(kill, kill_main, 2);
	tcase_add_test(kill, kill_before_first_turn);
	TU_IO_LOOP(kill, kill_mid_read, 3);
	TU_IO_LOOP(kill, kill_races_completion, 2);
	TU_IO_LOOP(kill, stop_with_reads_in_flight, 3);
	TU_IO_LOOP(kill, stop_closes_accepted_fds, 2);
	suite_add_tcase(s, kill);

	tcase_set_timeout(lim, 60);
	TU_IO_LOOP(lim, accept_emfile, 2);
	TU_IO_LOOP(lim, accept_shed, 2);
	TU_IO_LOOP(lim, ring_of_one_loses_nothing, 2);
	TU_IO_LOOP(lim, signals_at_reactor, 2);
	suite_add_tcase(s, lim);

	return s;
}

int main(void)
{
	unsetenv("ACTORS_TIMER_US"); /* tu_run_suite does not know it yet */
	return tu_run_suite(io_kill_suite());
}
