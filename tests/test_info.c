/* SPDX-License-Identifier: MIT */
/*
 * test_info.c - act_process_info, act_process_next, act_dump and
 * ACTORS_DUMP_SIGNAL (lib/node/info.c, doc/design/overview.md
 * "Observers"): a process set up with a name, two links, a monitor each
 * way, trap_exit, a mailbox limit and N messages behind a selective
 * receive with a deadline, one in an I/O wait on a pipe, seen from a
 * process and from a thread outside the runtime, at 1 and 2 workers;
 * the walk; dead and garbage pids; the dump's lines; what a process
 * waits for (a sleep, a receive with a deadline, one without after one
 * with: no deadline); a walk past a malloc'd envelope its owner frees
 * meanwhile; the signal's dump on stderr and the variable's refusals.
 *
 * The processes record what they saw; the checks run after act_main
 * returns, outside the runtime.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "proc/mailbox.h"
#include "testrt.h"

#define TAG_READY 1u
#define TAG_OTHER 2u
#define TAG_GO 3u
#define N_SKIPPED 5
#define LIMIT 1000u
#define NAME "info_target"

/* ======================================================================
 * 1. One process's info, the walk, the dump
 * ====================================================================== */

static struct info_res {
	act_pid main, target, l1, l2, io, dead;
	int rc_target, rc_foreign, rc_dead, rc_garbage, rc_none;
	_Atomic int rc_io; /* written by io_proc, read by main meanwhile */
	int rc_null, rc_dump;
	struct act_process_info t, foreign, io_info;
	int64_t now; /* when t was read */
	bool exact;  /* the target's count came exact */
	bool io_seen, no_ring;
	act_pid walk[16];
	uint32_t walk_idx[16]; /* their slots */
	int n_walk;
	char *dump;
	size_t dump_len;
	int pipe_fds[2];
} ir;

static void idle_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	m = act_receive(ACT_FOREVER); /* killed at the end */
	if (m)
		act_msg_free(m);
}

static void noop_proc(void *arg)
{
	(void)arg;
}

static void target_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	act_trap_exit(true);
	ck_assert_int_eq(act_link(ir.l1), 0);
	ck_assert_int_eq(act_link(ir.l2), 0);
	ck_assert(act_monitor(ir.l1) != 0);
	act_send(ir.main, TAG_READY, NULL, 0);
	/* skips the TAG_OTHER ones: they stay, in the save queue */
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_GO,
			      60 * TU_SEC);
	if (m)
		act_msg_free(m);
}

/* Reads the pipe; without io_uring (-ENOSYS) it waits for a message
 * instead, so that it is alive for the walk and the dump all the same. */
static void io_proc(void *arg)
{
	char c;
	int rc = (int)act_io_read(ir.pipe_fds[0], &c, 1, -1);

	(void)arg;
	atomic_store(&ir.rc_io, rc);
	if (rc == -ENOSYS)
		act_msg_free(act_receive(ACT_FOREVER));
}

static void *foreign_thread(void *arg)
{
	(void)arg;
	ir.rc_foreign = act_process_info(ir.target, &ir.foreign);
	return NULL;
}

/* Until target waits with its N messages counted exactly. */
static void read_target(void)
{
	int64_t deadline = 0;
	int i;

	for (i = 0;; i++) {
		ir.rc_target = act_process_info(ir.target, &ir.t);
		ir.now = act__clock_now();
		ir.exact = !(ir.t.flags & ACT_INFO_MAILBOX_INEXACT);
		if (ir.rc_target == 0 && ir.t.state == ACT_PROC_WAITING &&
		    ir.exact && ir.t.mailbox_len == N_SKIPPED)
			return;
		if (!tu_wait_step(&deadline, i))
			return;
	}
}

static void read_io(void)
{
	int64_t deadline = 0;
	int i;

	for (i = 0;; i++) {
		if (!act_process_info(ir.io, &ir.io_info) &&
		    ir.io_info.state == ACT_PROC_IOWAIT) {
			ir.io_seen = true;
			return;
		}
		if (atomic_load(&ir.rc_io) == -ENOSYS) {
			ir.no_ring = true;
			return;
		}
		if (!tu_wait_step(&deadline, i))
			return;
	}
}

static void info_main(void *arg)
{
	struct act_spawn_opts opts = { .mailbox_limit = LIMIT };
	struct act_msg *m;
	pthread_t th;
	act_pid p;
	FILE *f;
	int i;

	(void)arg;
	ir.main = act_self();
	ir.l1 = tu_spawn(idle_proc, NULL);
	ir.l2 = tu_spawn(idle_proc, NULL);
	ir.target = act_spawn_opt(target_proc, NULL, &opts);
	ck_assert(ir.target.id);
	ck_assert(act_monitor(ir.target) != 0);
	ck_assert_int_eq(act_register(NAME, ir.target), 0);
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_READY,
			      ACT_FOREVER);
	act_msg_free(m);
	for (i = 0; i < N_SKIPPED; i++)
		ck_assert_int_eq(act_send(ir.target, TAG_OTHER, &i, sizeof(i)),
				 0);
	ck_assert_int_eq(pipe(ir.pipe_fds), 0);
	atomic_store(&ir.rc_io, 1); /* not yet returned */
	ir.io = tu_spawn(io_proc, NULL);
	ir.dead = tu_spawn(noop_proc, NULL);
	ck_assert(tu_wait_gone(ir.dead));

	read_target();
	read_io();
	ck_assert_int_eq(pthread_create(&th, NULL, foreign_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ir.rc_dead = act_process_info(ir.dead, &(struct act_process_info){ 0 });
	ir.rc_garbage = act_process_info((act_pid){ 0x7fffffffffffull },
					 &(struct act_process_info){ 0 });
	ir.rc_none =
		act_process_info(ACT_PID_NONE, &(struct act_process_info){ 0 });
	ir.rc_null = act_process_info(ir.target, NULL);
	for (p = act_process_next(ACT_PID_NONE); p.id && ir.n_walk < 16;
	     p = act_process_next(p)) {
		ir.walk_idx[ir.n_walk] = tu_pid_index(p);
		ir.walk[ir.n_walk++] = p;
	}
	f = open_memstream(&ir.dump, &ir.dump_len);
	ck_assert(f);
	ir.rc_dump = act_dump(f);
	fclose(f);

	/* take it all down: the target first, so no link is left */
	ck_assert_int_eq(act_send(ir.target, TAG_GO, NULL, 0), 0);
	ck_assert(tu_wait_gone(ir.target));
	if (write(ir.pipe_fds[1], "x", 1) != 1)
		ck_abort_msg("pipe write");
	/* without a ring it waits for a message (it may have seen -ENOSYS
	 * after read_io gave up); with one it has read and may be gone */
	(void)act_send(ir.io, TAG_GO, NULL, 0);
	ck_assert(tu_wait_gone(ir.io));
	act_kill(ir.l1, ACT_EXIT_KILL);
	act_kill(ir.l2, ACT_EXIT_KILL);
	ck_assert(tu_wait_gone(ir.l1));
	ck_assert(tu_wait_gone(ir.l2));
	close(ir.pipe_fds[0]);
	close(ir.pipe_fds[1]);
}

static bool walked(act_pid p)
{
	int i;

	for (i = 0; i < ir.n_walk; i++)
		if (act_pid_eq(ir.walk[i], p))
			return true;
	return false;
}

/* The dump's line that starts with pid, or NULL. */
static const char *dump_line_of(act_pid pid, char *buf, size_t len)
{
	char head[ACT_PID_STRLEN + 1];
	const char *s = ir.dump, *end;
	int n = act_pid_format(pid, head, sizeof(head));

	head[n++] = ' ';
	head[n] = '\0';

	while (s && *s) {
		end = strchr(s, '\n');
		if (!end)
			end = s + strlen(s);
		if (!strncmp(s, head, (size_t)n)) {
			snprintf(buf, len, "%.*s", (int)(end - s), s);
			return buf;
		}
		s = *end ? end + 1 : end;
	}
	return NULL;
}

static void check_target(const struct act_process_info *t, int workers)
{
	ck_assert(act_pid_eq(t->pid, ir.target));
	ck_assert_int_eq(t->state, ACT_PROC_WAITING);
	ck_assert_int_ge(t->worker, 0);
	ck_assert_int_lt(t->worker, workers);
	ck_assert_str_eq(t->name, NAME);
	ck_assert(t->fn == target_proc);
	ck_assert_uint_eq(t->links, 2);
	ck_assert_uint_eq(t->monitors, 1);
	ck_assert_uint_eq(t->monitored_by, 1);
	ck_assert(t->trap_exit);
	ck_assert_uint_eq(t->mailbox_limit, LIMIT);
	ck_assert_uint_eq(t->mailbox_len, N_SKIPPED);
	ck_assert_int_eq(t->wait, ACT_WAIT_MATCH);
	ck_assert_int_eq(t->wait_fd, -1);
	ck_assert_uint_eq(t->run_ns, 0); /* turns are not timed */
	ck_assert(t->reductions > 0);
}

START_TEST(info_matches_setup)
{
	int workers = _i + 1; /* 1 and 2 */
	struct act_config cfg = tu_with_workers(workers);
	char buf[512];
	const char *line;
	int i, lines = 0;

	memset(&ir, 0, sizeof(ir));
	ck_assert_int_eq(tu_run_main(&cfg, info_main, NULL), 0);

	ck_assert_int_eq(ir.rc_target, 0);
	ck_assert_msg(ir.exact, "mailbox count never exact");
	check_target(&ir.t, workers);
	ck_assert(ir.t.wait_deadline > ir.now);
	ck_assert(ir.t.wait_deadline <= ir.now + 60 * TU_SEC);
	/* the same from a thread that is not a process */
	ck_assert_int_eq(ir.rc_foreign, 0);
	check_target(&ir.foreign, workers);

	if (!ir.no_ring) {
		ck_assert_msg(ir.io_seen, "io process never in IOWAIT");
		ck_assert_int_eq(ir.io_info.wait, ACT_WAIT_IO);
		ck_assert_int_eq(ir.io_info.wait_io_op, ACT_IO_OP_READ);
		ck_assert_int_eq(ir.io_info.wait_fd, ir.pipe_fds[0]);
		ck_assert_str_eq(ir.io_info.name, "");
		ck_assert(ir.io_info.fn == io_proc);
		ck_assert_int_eq(atomic_load(&ir.rc_io), 1);
	}

	ck_assert_int_eq(ir.rc_dead, -ESRCH);
	ck_assert_int_eq(ir.rc_garbage, -ESRCH);
	ck_assert_int_eq(ir.rc_none, -ESRCH);
	ck_assert_int_eq(ir.rc_null, -EINVAL);

	/* the walk: exactly the live ones, main included, in slot order */
	ck_assert_int_eq(ir.n_walk, 5);
	ck_assert(walked(ir.main) && walked(ir.target) && walked(ir.l1) &&
		  walked(ir.l2) && walked(ir.io));
	for (i = 1; i < ir.n_walk; i++)
		ck_assert_uint_lt(ir.walk_idx[i - 1], ir.walk_idx[i]);

	/* the dump: a header, a line per process, the count */
	ck_assert_int_eq(ir.rc_dump, 0);
	ck_assert(ir.dump);
	ck_assert_msg(!strncmp(ir.dump, "PID ", 4), "%s", ir.dump);
	for (i = 0; ir.dump[i]; i++)
		lines += ir.dump[i] == '\n';
	ck_assert_int_eq(lines, 5 + 2);
	ck_assert(strstr(ir.dump, "actors: 5 processes"));
	for (i = 0; i < ir.n_walk; i++)
		ck_assert_msg(dump_line_of(ir.walk[i], buf, sizeof(buf)),
			      "no line for %llu: %s",
			      (unsigned long long)ir.walk[i].id, ir.dump);
	line = dump_line_of(ir.target, buf, sizeof(buf));
	{
		unsigned long long reds, mbox;
		unsigned links, mons, monby;
		char pid[ACT_PID_STRLEN], state[16], wait[64], trap[8],
			name[300];
		int worker;
		double run_ms;

		ck_assert_int_eq(sscanf(line,
					"%31s %15s %d %llu %llu %lf %63s %u %u "
					"%u %7s %299s",
					pid, state, &worker, &mbox, &reds,
					&run_ms, wait, &links, &mons, &monby,
					trap, name),
				 12);
		ck_assert_str_eq(state, "waiting");
		ck_assert_uint_eq(mbox, N_SKIPPED);
		ck_assert_msg(!strncmp(wait, "match+", 6), "%s", wait);
		ck_assert_uint_eq(links, 2);
		ck_assert_uint_eq(mons, 1);
		ck_assert_uint_eq(monby, 1);
		ck_assert_str_eq(trap, "trap");
		ck_assert_str_eq(name, NAME);
	}
	line = dump_line_of(ir.l1, buf, sizeof(buf));
	ck_assert_msg(strstr(line, " waiting ") && strstr(line, " message ") &&
			      strstr(line, " fn="),
		      "%s", line);
	if (!ir.no_ring) {
		char want[32];

		snprintf(want, sizeof(want), " io:read:%d ", ir.pipe_fds[0]);
		line = dump_line_of(ir.io, buf, sizeof(buf));
		ck_assert_msg(strstr(line, " iowait ") && strstr(line, want),
			      "%s", line);
	}
	free(ir.dump);
}
END_TEST

/* ======================================================================
 * 2. What a waiting process waits for, after other waits
 * ====================================================================== */

#define TAG_LATE 4u

static struct wait_res {
	act_pid main, late, sleeper, timed;
	int rc_late, rc_sleeper, rc_timed;
	bool late_waits, sleeper_waits, timed_waits;
	struct act_process_info late_i, sleeper_i, timed_i;
	int64_t now;
} wr;

/* A receive with a deadline that passes, then one without: the second
 * wait has no deadline, whatever the first one left. */
static void late_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	ck_assert(!act_receive(TU_MS)); /* nobody sends: it times out */
	act_send(wr.main, TAG_LATE, NULL, 0);
	m = act_receive(ACT_FOREVER); /* killed at the end */
	if (m)
		act_msg_free(m);
}

static void sleeper_proc(void *arg)
{
	(void)arg;
	act_sleep(60 * TU_SEC); /* killed at the end */
}

static void timed_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	m = act_receive(60 * TU_SEC); /* killed at the end */
	if (m)
		act_msg_free(m);
}

static bool read_waiting(act_pid p, struct act_process_info *i, int *rc)
{
	int64_t deadline = 0;
	int k;

	for (k = 0;; k++) {
		*rc = act_process_info(p, i);
		if (!*rc && i->state == ACT_PROC_WAITING)
			return true;
		if (!tu_wait_step(&deadline, k))
			return false;
	}
}

static void wait_main(void *arg)
{
	struct act_msg *m;

	(void)arg;
	wr.main = act_self();
	wr.late = tu_spawn(late_proc, NULL);
	wr.sleeper = tu_spawn(sleeper_proc, NULL);
	wr.timed = tu_spawn(timed_proc, NULL);
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_LATE,
			      ACT_FOREVER);
	act_msg_free(m);
	/* after TAG_LATE, a WAITING late is in its second wait */
	wr.late_waits = read_waiting(wr.late, &wr.late_i, &wr.rc_late);
	wr.sleeper_waits =
		read_waiting(wr.sleeper, &wr.sleeper_i, &wr.rc_sleeper);
	wr.timed_waits = read_waiting(wr.timed, &wr.timed_i, &wr.rc_timed);
	wr.now = act__clock_now();
	act_kill(wr.late, ACT_EXIT_KILL);
	act_kill(wr.sleeper, ACT_EXIT_KILL);
	act_kill(wr.timed, ACT_EXIT_KILL);
	ck_assert(tu_wait_gone(wr.late) && tu_wait_gone(wr.sleeper) &&
		  tu_wait_gone(wr.timed));
}

START_TEST(info_wait_kinds)
{
	struct act_config cfg = tu_with_workers(_i + 1); /* 1 and 2 */

	memset(&wr, 0, sizeof(wr));
	ck_assert_int_eq(tu_run_main(&cfg, wait_main, NULL), 0);

	ck_assert_msg(wr.late_waits, "late never waiting (rc %d)", wr.rc_late);
	ck_assert_int_eq(wr.late_i.wait, ACT_WAIT_MESSAGE);
	ck_assert_msg(wr.late_i.wait_deadline == 0,
		      "an untimed wait shows the deadline %lld of the timed "
		      "one before it",
		      (long long)wr.late_i.wait_deadline);

	ck_assert_msg(wr.sleeper_waits, "sleeper never waiting (rc %d)",
		      wr.rc_sleeper);
	ck_assert_int_eq(wr.sleeper_i.wait, ACT_WAIT_SLEEP);
	ck_assert(wr.sleeper_i.wait_deadline > 0);
	ck_assert(wr.sleeper_i.wait_deadline <= wr.now + 60 * TU_SEC);

	ck_assert_msg(wr.timed_waits, "timed never waiting (rc %d)",
		      wr.rc_timed);
	ck_assert_int_eq(wr.timed_i.wait, ACT_WAIT_MESSAGE);
	ck_assert(wr.timed_i.wait_deadline > 0);
	ck_assert(wr.timed_i.wait_deadline <= wr.now + 60 * TU_SEC);
}
END_TEST

/* ======================================================================
 * 3. A walk while the owner frees what it walks
 *
 * (A walk at a slab envelope that a send reuses meanwhile is the
 * reproducer tests/regress/2b8699c-envelope-receiver-race.c.)
 * ====================================================================== */

#define TAG_BIG 5u
#define TAG_FREE 6u
/* past the slab's classes and glibc's mmap threshold: malloc'd, and
 * unmapped by the free unless a walk holds it back */
#define BIG_LEN ((size_t)512 << 10)

static struct free_res {
	act_pid target;
	_Atomic int freed;  /* the target freed the big message */
	_Atomic int hooked; /* the hook ran at the big envelope */
	_Atomic int walked; /* act_process_info returned */
	int rc;
	struct act_process_info info;
} fr;

static void big_target_proc(void *arg)
{
	struct act_msg *m;

	(void)arg;
	/* the big message waits, unmatched, behind this receive */
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_FREE,
			      ACT_FOREVER);
	act_msg_free(m);
	m = act_receive_match(tu_tag_is, (void *)(uintptr_t)TAG_BIG,
			      ACT_FOREVER);
	ck_assert(m && m->len == BIG_LEN);
	act_msg_free(m);
	atomic_store(&fr.freed, 1);
	m = act_receive(ACT_FOREVER); /* killed at the end */
	if (m)
		act_msg_free(m);
}

/* The walk, at the big envelope (before it reads the envelope's link):
 * has its owner free it, and waits until it did, up to 20 s. */
static void free_under_walk(struct act__envelope *e)
{
	struct timespec step = { 0, 100000 };
	int i;

	if (e->msg.tag != TAG_BIG || atomic_exchange(&fr.hooked, 1))
		return;
	act_send(fr.target, TAG_FREE, NULL, 0);
	for (i = 0; i < 200000 && !atomic_load(&fr.freed); i++)
		nanosleep(&step, NULL);
}

static void *walk_thread(void *arg)
{
	(void)arg;
	fr.rc = act_process_info(fr.target, &fr.info);
	atomic_store(&fr.walked, 1);
	return NULL;
}

static void free_main(void *arg)
{
	struct act_process_info i;
	int64_t deadline = 0;
	char *big = calloc(1, BIG_LEN);
	pthread_t th;
	int k;

	(void)arg;
	ck_assert(big);
	fr.target = tu_spawn(big_target_proc, NULL);
	ck_assert_int_eq(act_send(fr.target, TAG_BIG, big, BIG_LEN), 0);
	free(big);
	/* until the target waits with the big one queued */
	for (k = 0; !(act_process_info(fr.target, &i) == 0 &&
		      i.state == ACT_PROC_WAITING && i.mailbox_len == 1);
	     k++)
		ck_assert(tu_wait_step(&deadline, k));
	act__mailbox_walk_hook = free_under_walk;
	ck_assert_int_eq(pthread_create(&th, NULL, walk_thread, NULL), 0);
	/* the target must run meanwhile: this worker waits as a process */
	for (k = 0, deadline = 0; !atomic_load(&fr.walked); k++)
		ck_assert(tu_wait_step(&deadline, k));
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	act__mailbox_walk_hook = NULL;
	act_kill(fr.target, ACT_EXIT_KILL);
	ck_assert(tu_wait_gone(fr.target));
}

/* act_process_info's walk reaches a malloc'd envelope, and its owner
 * takes and frees it before the walk reads on: the walk still reads
 * memory of the envelope's, not memory gone back to the system (a
 * crash) or handed out again. */
START_TEST(walk_survives_free)
{
	struct act_config cfg = tu_with_workers(_i + 1); /* 1 and 2 */

	memset(&fr, 0, sizeof(fr));
	ck_assert_int_eq(tu_run_main(&cfg, free_main, NULL), 0);
	ck_assert_msg(atomic_load(&fr.hooked), "the walk never met it");
	ck_assert_msg(atomic_load(&fr.freed), "the owner never freed it");
	ck_assert_int_eq(fr.rc, 0);
	ck_assert(act_pid_eq(fr.info.pid, fr.target));
}
END_TEST

/* No runtime: every call says so. */
START_TEST(no_runtime)
{
	struct act_process_info info;

	ck_assert_int_eq(act_process_info((act_pid){ 1 }, &info), -ESRCH);
	ck_assert_int_eq(act_process_info((act_pid){ 1 }, NULL), -EINVAL);
	ck_assert(!act_process_next(ACT_PID_NONE).id);
	ck_assert_int_eq(act_dump(stderr), -ESRCH);
}
END_TEST

/* ======================================================================
 * 4. ACTORS_DUMP_SIGNAL
 * ====================================================================== */

static volatile sig_atomic_t prev_ran;

static void prev_handler(int sig)
{
	(void)sig;
	prev_ran = 1;
}

static struct sig_res {
	bool found;
	void (*during)(int);
	char got[4096];
} * sr;

/* In the child: stderr is a file; raise, then read the file until the
 * dump's last line is there (bounded: tu_wait_step). */
static void sig_main(void *arg)
{
	int fd = *(int *)arg, i;
	int64_t deadline = 0;
	struct sigaction sa;
	ssize_t n;

	sigaction(SIGUSR1, NULL, &sa);
	sr->during = sa.sa_handler;
	raise(SIGUSR1);
	for (i = 0;; i++) {
		n = pread(fd, sr->got, sizeof(sr->got) - 1, 0);
		sr->got[n > 0 ? n : 0] = '\0';
		if (strstr(sr->got, "actors: 1 processes")) {
			sr->found = true;
			return;
		}
		if (!tu_wait_step(&deadline, i))
			return;
	}
}

static void sig_child(void *arg)
{
	struct act_config cfg = tu_with_workers(2);
	struct sigaction sa, now;
	char path[] = "/tmp/test_info.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), ok;

	(void)arg;
	sr = mmap(NULL, sizeof(*sr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unlink(path);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = prev_handler;
	sigaction(SIGUSR1, &sa, NULL);
	setenv("ACTORS_DUMP_SIGNAL", "USR1", 1);
	dup2(fd, 2);
	ok = act_main(&cfg, sig_main, &fd) == 0;
	dup2(saved, 2);
	sigaction(SIGUSR1, NULL, &now);
	if (!ok || !sr->found || sr->during == prev_handler ||
	    sr->during == SIG_DFL || now.sa_handler != prev_handler ||
	    prev_ran) {
		fprintf(stderr, "ok %d found %d during %p now %p ran %d: %s\n",
			ok, sr->found, (void *)sr->during,
			(void *)now.sa_handler, prev_ran, sr->got);
		_exit(1);
	}
	/* the old action is back: it runs, and the dump does not */
	raise(SIGUSR1);
	_exit(prev_ran ? 0 : 2);
}

START_TEST(signal_prints_dump)
{
	struct tu_child c;

	tu_run_child(sig_child, NULL, &c);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "status %#x: %s", c.status, c.err);
}
END_TEST

/* Unset: no handler at all. */
static void nosig_main(void *arg)
{
	struct sigaction sa;

	sigaction(SIGUSR1, NULL, &sa);
	*(bool *)arg = sa.sa_handler == SIG_DFL;
}

START_TEST(no_handler_by_default)
{
	struct act_config cfg = tu_with_workers(1);
	bool dfl = false;

	unsetenv("ACTORS_DUMP_SIGNAL");
	signal(SIGUSR1, SIG_DFL);
	ck_assert_int_eq(tu_run_main(&cfg, nosig_main, &dfl), 0);
	ck_assert(dfl);
}
END_TEST

START_TEST(bad_values_refused)
{
	static const char *const bad[] = {
		"SIGSEGV", "SEGV", "11", "9",  "SIGKILL", "19",
		"SIGSTOP", "junk", "",	 "65", "USR3",	  "-10"
	};

	ck_assert_uint_eq(tu_assert_env_refused("ACTORS_DUMP_SIGNAL", bad,
						TU_N_BAD),
			  TU_N_BAD);
}
END_TEST

static Suite *info_suite(void)
{
	Suite *s = suite_create("info");
	TCase *tc = tcase_create("info");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, info_matches_setup, 0, 2);
	tcase_add_loop_test(tc, info_wait_kinds, 0, 2);
	tcase_add_loop_test(tc, walk_survives_free, 0, 2);
	tcase_add_test(tc, no_runtime);
	tcase_add_test(tc, signal_prints_dump);
	tcase_add_test(tc, no_handler_by_default);
	tcase_add_test(tc, bad_values_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(info_suite());
}
