/* SPDX-License-Identifier: MIT */
/*
 * io_cancel_race.c - kills during reads and accepts: no buffer is written
 * after its owner is gone and its stack is someone else's.
 *
 * Readers wait in act_io_read on pipes into a buffer on their stacks;
 * acceptors wait in act_io_accept on one listening socket, its address
 * buffer on their stacks. Feeders write into the pipes and connect to the
 * socket at random moments, so that completions land before, at and
 * after the kills. A killer kills a random reader or acceptor at a
 * random moment (act_kill: the runtime cancels its operation, I/O's
 * rule being that the buffer is the caller's again once the call
 * returns or the process is gone) and spawns a guard in its place: a
 * process that fills a big array on its stack (where the stacks of the
 * dead, reused, are) with a pattern, yields a while as more data and
 * connections come, and checks the pattern. A late completion that wrote
 * into a dead reader's buffer or a dead acceptor's address shows as a
 * corrupt byte there.
 *
 * What counts as a violation: a guard's corrupt bytes (written after
 * reuse), an operation's result that makes no sense (a read longer than
 * asked, an accept's bad descriptor), errors. Without io_uring there is
 * nothing to race: the run says so and exits 3 (skipped).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <actors.h>

#include "common.h"

enum {
	IC_DONE = 1,
	IC_STOP,
};

#define GUARD_BYTES 16384 /* a guard's array: most of a 64 KiB stack top */
#define READ_MAX 256

static long n_readers = 16, n_acceptors = 4, n_guards = 4;

static const struct st_flag flags[] = {
	{ "readers", &n_readers, 1, 4096, "processes in act_io_read" },
	{ "acceptors", &n_acceptors, 0, 1024, "processes in act_io_accept" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "io_cancel_race",
	.iters_name = "kills",
	.iters_help = "kills in all",
	.workers = 4,
	.iters = 20000,
	.timeout = 60,
	.stall = 5,
	.flags = flags,
};

struct slot {
	act_pid pid; /* the killer's only */
	int kind;    /* 0 reader, 1 acceptor */
	int fd;	     /* a reader's pipe (read end) */
};

static struct {
	act_pid main, killer;
	int (*pipes)[2];
	int lfd;
	struct sockaddr_in addr;
	struct slot *slot;
	long nslots;
	_Atomic int stop;
	_Atomic uint64_t kills, reads, accepts, connects, writes, guards;
	_Atomic uint64_t corrupt, bad_result, errors, skipped;
} ic;

/* ---- the racers --------------------------------------------------------- */

static void reader(void *arg)
{
	struct slot *s = arg;
	uint8_t buf[READ_MAX];
	ssize_t n;

	for (;;) {
		n = act_io_read(s->fd, buf, sizeof(buf), -1);
		if (n == -ENOSYS) {
			st_add(&ic.skipped, 1);
			return;
		}
		if (n < 0 || n > (ssize_t)sizeof(buf)) {
			if (atomic_load(&ic.stop))
				return;
			st_report(&ic.bad_result, "act_io_read: %zd", n);
			return;
		}
		st_add(&ic.reads, 1);
	}
}

static void acceptor(void *arg)
{
	struct sockaddr_in peer;
	socklen_t len;
	int fd;

	(void)arg;
	for (;;) {
		len = sizeof(peer);
		fd = act_io_accept(ic.lfd, (struct sockaddr *)&peer, &len, 0);
		if (fd == -ENOSYS) {
			st_add(&ic.skipped, 1);
			return;
		}
		if (fd < 0) {
			if (atomic_load(&ic.stop))
				return;
			st_report(&ic.bad_result, "act_io_accept: %s",
				  strerror(-fd));
			return;
		}
		if (len > sizeof(peer))
			st_report(&ic.bad_result, "accept: addrlen %u",
				  (unsigned)len);
		close(fd);
		st_add(&ic.accepts, 1);
	}
}

/* A fresh process on a reused stack: its array must stay as it wrote
 * it while completions come. */
static void guard(void *arg)
{
	volatile uint8_t area[GUARD_BYTES];
	uint8_t seed = (uint8_t)(uintptr_t)arg;
	size_t i, bad = 0;
	int k;

	for (i = 0; i < sizeof(area); i++)
		area[i] = (uint8_t)(seed + i * 31);
	for (k = 0; k < 64; k++)
		act_yield();
	for (i = 0; i < sizeof(area); i++)
		bad += area[i] != (uint8_t)(seed + i * 31);
	if (bad)
		st_report(&ic.corrupt,
			  "a guard on a reused stack found %zu bytes written "
			  "under it (a completion after its owner died)",
			  bad);
	st_add(&ic.guards, 1);
}

static act_pid start(struct slot *s)
{
	return act_spawn(s->kind ? acceptor : reader, s);
}

/* Kills and replaces: each kill, a guard on the dead one's worker. */
static void killer(void *arg)
{
	struct st_rng rng;
	uint64_t k;
	long i;

	(void)arg;
	st_rng_init(&rng, args.seed, 1);
	for (i = 0; i < ic.nslots; i++)
		ic.slot[i].pid = start(&ic.slot[i]);
	for (k = 0; k < (uint64_t)args.iters && !st_get(&ic.skipped); k++) {
		struct slot *s =
			&ic.slot[st_rng_below(&rng, (uint32_t)ic.nslots)];
		uint32_t x = st_rng_below(&rng, 8);

		if (x < 3)
			st_spin(st_rng_below(&rng, 4096));
		else if (x < 6)
			act_yield();
		act_kill(s->pid, ACT_EXIT_KILL);
		st_add(&ic.kills, 1);
		for (i = 0; i < n_guards; i++)
			act_spawn(guard, (void *)(uintptr_t)(k + (uint64_t)i));
		s->pid = start(s);
		if (!s->pid.id)
			st_report(&ic.errors, "act_spawn failed");
	}
	atomic_store(&ic.stop, 1);
	for (i = 0; i < ic.nslots; i++)
		act_kill(ic.slot[i].pid, ACT_EXIT_KILL);
	act_send(ic.main, IC_DONE, NULL, 0);
}

/* Writes into the pipes and connects, until told to stop. */
static void feeder(void *arg)
{
	struct st_rng rng;
	struct act_msg *m;
	char byte = 'x';
	int fd;

	(void)arg;
	st_rng_init(&rng, args.seed, 2);
	while (!(m = act_receive(0))) {
		uint32_t x = st_rng_below(&rng, 8);

		if (x < 5 || !n_acceptors) {
			int p = (int)st_rng_below(&rng, (uint32_t)n_readers);

			if (act_io_write(ic.pipes[p][1], &byte, 1, -1) == 1)
				st_add(&ic.writes, 1);
		} else {
			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd >= 0 &&
			    act_io_connect(fd, (struct sockaddr *)&ic.addr,
					   sizeof(ic.addr)) == 0)
				st_add(&ic.connects, 1);
			if (fd >= 0)
				close(fd);
		}
		if (st_get(&ic.skipped))
			break;
		act_yield();
	}
	act_msg_free(m);
	act_send(ic.main, IC_DONE, NULL, 0);
}

static void ic_main(void *arg)
{
	act_pid feed;
	struct act_msg *m;
	int done = 0;

	(void)arg;
	ic.main = act_self();
	feed = act_spawn(feeder, NULL);
	ic.killer = act_spawn(killer, NULL);
	while (done < 1) { /* the killer's */
		m = act_receive(ACT_FOREVER);
		done += m && m->tag == IC_DONE;
		act_msg_free(m);
	}
	act_send(feed, IC_STOP, NULL, 0);
	m = act_receive(ACT_FOREVER); /* the feeder's */
	act_msg_free(m);
}

/* ---- set-up, watchdog, result --------------------------------------------- */

static int set_up(void)
{
	socklen_t len = sizeof(ic.addr);
	long i;

	ic.nslots = n_readers + n_acceptors;
	ic.slot = calloc((size_t)ic.nslots, sizeof(*ic.slot));
	ic.pipes = calloc((size_t)n_readers, sizeof(*ic.pipes));
	if (!ic.slot || !ic.pipes)
		return -ENOMEM;
	for (i = 0; i < n_readers; i++) {
		if (pipe2(ic.pipes[i], O_CLOEXEC))
			return -errno;
		ic.slot[i].fd = ic.pipes[i][0];
	}
	for (; i < ic.nslots; i++)
		ic.slot[i].kind = 1;
	ic.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ic.lfd < 0)
		return -errno;
	ic.addr.sin_family = AF_INET;
	ic.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ic.lfd, (struct sockaddr *)&ic.addr, sizeof(ic.addr)) ||
	    listen(ic.lfd, 1024) ||
	    getsockname(ic.lfd, (struct sockaddr *)&ic.addr, &len))
		return -errno;
	return 0;
}

static void tear_down(void)
{
	long i;

	for (i = 0; ic.pipes && i < n_readers; i++) {
		close(ic.pipes[i][0]);
		close(ic.pipes[i][1]);
	}
	if (ic.lfd >= 0)
		close(ic.lfd);
	free(ic.pipes);
	free(ic.slot);
}

static uint64_t ic_progress(void)
{
	return st_get(&ic.kills) + st_get(&ic.reads) + st_get(&ic.accepts) +
	       st_get(&ic.guards);
}

static uint64_t ic_violations(void)
{
	return st_get(&ic.corrupt) + st_get(&ic.bad_result) +
	       st_get(&ic.errors);
}

static void ic_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "kills %" PRIu64 ", reads %" PRIu64 ", accepts %" PRIu64
		 ", writes %" PRIu64 ", connects %" PRIu64 ", guards %" PRIu64
		 ", written after reuse %" PRIu64 ", bad results %" PRIu64
		 ", errors %" PRIu64,
		 st_get(&ic.kills), st_get(&ic.reads), st_get(&ic.accepts),
		 st_get(&ic.writes), st_get(&ic.connects), st_get(&ic.guards),
		 st_get(&ic.corrupt), st_get(&ic.bad_result),
		 st_get(&ic.errors));
}

int st_main_io_cancel_race(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = ic_figures,
		.progress = ic_progress,
		.violations = ic_violations,
	};
	int rc = st_parse(&args, argc, argv);

	if (rc != ST_RUN)
		return rc;
	ic.lfd = -1;
	rc = set_up();
	if (rc) {
		fprintf(stderr, "io_cancel_race: set-up: %s\n", strerror(-rc));
		tear_down();
		return ST_EXIT_FAIL;
	}
	rc = st_run(&w, ic_main, NULL);
	if (!rc && st_get(&ic.skipped) && !ic_violations()) {
		st_result(&w, "SKIP (no io_uring: nothing to race)");
		tear_down();
		return ST_EXIT_SKIP;
	}
	rc = st_finish(&w, rc, ic_violations());
	tear_down();
	return rc;
}
