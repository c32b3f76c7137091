/* SPDX-License-Identifier: MIT */
/*
 * fail_random.c - messaging, spawning, sleeping and pipe I/O while the
 * runtime's calls fail at random (ACT_TEST_FAIL, doc/testing.md): every
 * message sent is received or refused to its sender, exactly.
 *
 * The runtime runs with one call in --rate failing at each site a
 * running runtime reaches (slot, stack, envelope, slab, madvise, the
 * ring's submits and reaps, the futex sleeps), drawn from --seed. S
 * senders each try to send M DATA messages { sender, seq } to one
 * receiver: act_send's 0 counts the message as sent, -ENOMEM as refused
 * (and the sender goes on with the next seq), anything else is an error.
 * Then each sends END { sent, refused }, retried until it is taken. The
 * receiver checks that each sender's seqs come in order, none twice,
 * and at END that it got exactly the ones sent and that sent + refused
 * is M. Spawns that fail (-EAGAIN, -ENOMEM) are retried and counted.
 * Meanwhile a pipe carries --iters bytes between two processes through
 * act_io_write and act_io_read, checked byte for byte, and a sleeper
 * naps so that workers park. The result line gives every count; sent
 * must equal received, and sent + refused the messages tried.
 *
 * A start that the injection refuses (the main process's own spawn)
 * is run again, up to 10 times, with the next seed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <actors.h>

#include "common.h"

enum {
	FR_DATA = 1,
	FR_END,
	FR_DONE,
};

struct payload {
	uint32_t sender;
	uint32_t rsvd;
	uint64_t seq;	  /* DATA: its number; END: how many were sent */
	uint64_t refused; /* END: how many act_send refused */
};

/* The receiver's view of one sender. */
struct from {
	uint64_t next; /* the lowest seq not seen yet */
	uint64_t got;
	bool ended;
};

static long n_senders = 8, rate = 64, io_bytes = 65536;

static const struct st_flag flags[] = {
	{ "senders", &n_senders, 1, 10000, "senders" },
	{ "rate", &rate, 2, 1000000,
	  "one call in RATE fails at each site (ACT_TEST_FAIL site:1/RATE)" },
	{ "io", &io_bytes, 0, 1L << 30, "bytes through the pipe" },
	{ .name = NULL },
};

static struct st_args args = {
	.prog = "fail_random",
	.iters_name = "messages",
	.iters_help = "messages per sender",
	.workers = 4,
	.iters = 20000,
	.timeout = 60,
	.stall = 10,
	.flags = flags,
};

static struct {
	act_pid main, receiver;
	struct from *from; /* receiver only */
	_Atomic uint64_t sent, refused, received, ends;
	_Atomic uint64_t spawn_retries, end_retries, io_done;
	_Atomic uint64_t lost, dups, order, errors;
	_Atomic bool ran;
	_Atomic bool no_ring; /* act_io_* said -ENOSYS: no pipe check */
	int pipe[2];
} fr;

/* Spawn fn(arg), retried while the injection refuses it. */
static act_pid spawn_retry(void (*fn)(void *), void *arg)
{
	act_pid pid = ACT_PID_NONE;
	int rc, tries;

	for (tries = 0; tries < 1000; tries++) {
		rc = act_spawn_pid(fn, arg, NULL, &pid);
		if (!rc)
			return pid;
		if (rc != -EAGAIN && rc != -ENOMEM)
			break;
		st_add(&fr.spawn_retries, 1);
		act_yield();
	}
	st_report(&fr.errors, "act_spawn_pid: %s", strerror(-rc));
	return ACT_PID_NONE;
}

/* A message that must arrive: retried while its envelope is refused. */
static void send_must(act_pid to, uint32_t tag, const void *p, size_t len,
		      _Atomic uint64_t *retries)
{
	int rc;

	while ((rc = act_send(to, tag, p, len)) == -ENOMEM) {
		st_add(retries, 1);
		act_yield();
	}
	if (rc)
		st_report(&fr.errors, "act_send tag %u: %s", tag,
			  strerror(-rc));
}

/* ---- senders and the receiver ------------------------------------------ */

static void sender(void *arg)
{
	struct payload p = { .sender = (uint32_t)(uintptr_t)arg };
	uint64_t seq, sent = 0, refused = 0;
	struct st_rng rng;
	int rc;

	st_rng_init(&rng, args.seed, p.sender);
	for (seq = 0; seq < (uint64_t)args.iters; seq++) {
		p.seq = seq;
		rc = act_send(fr.receiver, FR_DATA, &p, sizeof(p));
		if (rc == 0) {
			sent++;
		} else if (rc == -ENOMEM) {
			refused++; /* reported to its sender: that is us */
		} else {
			st_report(&fr.errors, "sender %u: act_send: %s",
				  p.sender, strerror(-rc));
			break;
		}
		if (st_rng_below(&rng, 256) == 0)
			act_yield();
	}
	st_add(&fr.sent, sent);
	st_add(&fr.refused, refused);
	p.seq = sent;
	p.refused = refused;
	send_must(fr.receiver, FR_END, &p, sizeof(p), &fr.end_retries);
}

static void take_data(const struct payload *p)
{
	struct from *f = &fr.from[p->sender];

	st_add(&fr.received, 1);
	f->got++;
	if (p->seq < f->next)
		st_report(&fr.dups, "sender %u: seq %" PRIu64 " after %" PRIu64,
			  p->sender, p->seq, f->next - 1);
	else
		f->next = p->seq + 1; /* a gap: refused ones, checked at END */
}

static void take_end(const struct payload *p)
{
	struct from *f = &fr.from[p->sender];

	if (f->ended)
		st_report(&fr.dups, "sender %u: END again", p->sender);
	f->ended = true;
	st_add(&fr.ends, 1);
	if (f->got != p->seq)
		st_report(&fr.lost,
			  "sender %u: received %" PRIu64 " of the %" PRIu64
			  " it sent",
			  p->sender, f->got, p->seq);
	if (p->seq + p->refused != (uint64_t)args.iters)
		st_report(&fr.errors,
			  "sender %u: %" PRIu64 " sent + %" PRIu64
			  " refused, not %ld",
			  p->sender, p->seq, p->refused, args.iters);
}

static void receiver(void *arg)
{
	struct act_msg *m;
	struct payload p;
	long ends = 0;

	(void)arg;
	while (ends < n_senders) {
		m = act_receive(ACT_FOREVER);
		if (!m)
			continue;
		if ((m->tag != FR_DATA && m->tag != FR_END) ||
		    m->len != sizeof(p)) {
			st_report(&fr.errors, "receiver: tag %u, %zu bytes",
				  m->tag, m->len);
			act_msg_free(m);
			continue;
		}
		memcpy(&p, m->data, sizeof(p));
		if (p.sender >= (uint64_t)n_senders)
			st_report(&fr.errors, "receiver: sender %u", p.sender);
		else if (m->tag == FR_DATA)
			take_data(&p);
		else
			ends += (take_end(&p), 1);
		act_msg_free(m);
	}
	send_must(fr.main, FR_DONE, NULL, 0, &fr.end_retries);
}

/* ---- the pipe and the sleeper ------------------------------------------ */

static void io_writer(void *arg)
{
	char buf[512];
	long at = 0, i;
	ssize_t n;

	(void)arg;
	while (at < io_bytes) {
		n = io_bytes - at < (long)sizeof(buf) ? io_bytes - at :
							(long)sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = (char)((at + i) * 7);
		n = act_io_write(fr.pipe[1], buf, (size_t)n, -1);
		if (n == -ENOSYS) {
			atomic_store(&fr.no_ring, true);
			break;
		}
		if (n <= 0) {
			st_report(&fr.errors, "act_io_write: %s",
				  n ? strerror((int)-n) : "0 bytes");
			break;
		}
		at += n;
	}
	send_must(fr.main, FR_DONE, NULL, 0, &fr.end_retries);
}

static void io_reader(void *arg)
{
	char buf[700];
	long at = 0, i;
	ssize_t n;

	(void)arg;
	while (at < io_bytes) {
		n = act_io_read(fr.pipe[0], buf, sizeof(buf), -1);
		if (n == -ENOSYS) {
			atomic_store(&fr.no_ring, true);
			break;
		}
		if (n <= 0) {
			st_report(&fr.errors, "act_io_read: %s",
				  n ? strerror((int)-n) : "end of file");
			break;
		}
		for (i = 0; i < n; i++)
			if (buf[i] != (char)((at + i) * 7)) {
				st_report(&fr.errors, "pipe byte %ld", at + i);
				break;
			}
		at += n;
		st_add(&fr.io_done, (uint64_t)n);
	}
	send_must(fr.main, FR_DONE, NULL, 0, &fr.end_retries);
}

static void sleeper(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 20; i++)
		act_sleep(1000000);
	send_must(fr.main, FR_DONE, NULL, 0, &fr.end_retries);
}

/* ---- the main process ---------------------------------------------------- */

static void fr_main(void *arg)
{
	struct act_msg *m;
	long i, want = 2; /* the receiver's and the sleeper's */

	(void)arg;
	atomic_store(&fr.ran, true);
	fr.main = act_self();
	fr.receiver = spawn_retry(receiver, NULL);
	if (!fr.receiver.id)
		return;
	for (i = 0; i < n_senders; i++)
		if (!spawn_retry(sender, (void *)(uintptr_t)i).id)
			return; /* the receiver waits for every END */
	if (!spawn_retry(sleeper, NULL).id)
		return;
	if (io_bytes) {
		if (!spawn_retry(io_writer, NULL).id ||
		    !spawn_retry(io_reader, NULL).id)
			return;
		want += 2;
	}
	for (; want; want--) {
		m = act_receive(ACT_FOREVER);
		if (!m || m->tag != FR_DONE)
			st_report(&fr.errors, "main: tag %u, not DONE",
				  m ? m->tag : 0);
		act_msg_free(m);
	}
}

/* ---- watchdog and result ------------------------------------------------- */

static uint64_t fr_progress(void)
{
	return st_get(&fr.sent) + st_get(&fr.refused) + st_get(&fr.received) +
	       st_get(&fr.io_done) + st_get(&fr.spawn_retries);
}

static void fr_figures(char *buf, size_t n)
{
	snprintf(buf, n,
		 "sent %" PRIu64 ", refused %" PRIu64 ", received %" PRIu64
		 ", lost %" PRIu64 ", duplicated %" PRIu64 ", errors %" PRIu64
		 ", spawns retried %" PRIu64 ", ENDs retried %" PRIu64
		 ", pipe bytes %" PRIu64,
		 st_get(&fr.sent), st_get(&fr.refused), st_get(&fr.received),
		 st_get(&fr.lost), st_get(&fr.dups), st_get(&fr.errors),
		 st_get(&fr.spawn_retries), st_get(&fr.end_retries),
		 st_get(&fr.io_done));
}

static uint64_t fr_violations(void)
{
	return st_get(&fr.lost) + st_get(&fr.dups) + st_get(&fr.order) +
	       st_get(&fr.errors);
}

static uint64_t violations(void)
{
	uint64_t want = (uint64_t)n_senders * (uint64_t)args.iters;

	if (st_get(&fr.sent) != st_get(&fr.received) ||
	    st_get(&fr.sent) + st_get(&fr.refused) != want ||
	    st_get(&fr.ends) != (uint64_t)n_senders ||
	    (st_get(&fr.io_done) != (uint64_t)io_bytes &&
	     !atomic_load(&fr.no_ring)))
		st_report(&fr.errors,
			  "sent %" PRIu64 " + refused %" PRIu64 " of %" PRIu64
			  ", received %" PRIu64 ", ENDs %" PRIu64
			  ", pipe bytes %" PRIu64,
			  st_get(&fr.sent), st_get(&fr.refused), want,
			  st_get(&fr.received), st_get(&fr.ends),
			  st_get(&fr.io_done));
	return fr_violations();
}

/* ACT_TEST_FAIL for this run: every site a running runtime reaches. */
static void arm(uint64_t seed)
{
	static const char *const sites[] = {
		"slot",	       "stack",	       "envelope",     "slab",
		"madvise",     "submit_busy",  "submit_again", "cq_overflow",
		"futex_eintr", "futex_eagain",
	};
	char rules[512], seedv[16];
	size_t at = 0, i;

	for (i = 0; i < sizeof(sites) / sizeof(sites[0]); i++)
		at += (size_t)snprintf(rules + at, sizeof(rules) - at,
				       "%s%s:1/%ld", i ? "," : "", sites[i],
				       rate);
	snprintf(seedv, sizeof(seedv), "%u",
		 (unsigned)(seed % 4294967295u) + 1);
	setenv("ACT_TEST_FAIL", rules, 1);
	setenv("ACT_TEST_FAIL_SEED", seedv, 1);
}

int st_main_fail_random(int argc, char **argv)
{
	struct st_watch w = {
		.args = &args,
		.figures = fr_figures,
		.progress = fr_progress,
		.violations = fr_violations,
	};
	int rc = st_parse(&args, argc, argv), tries;

	if (rc != ST_RUN)
		return rc;
	fr.from = calloc((size_t)n_senders, sizeof(*fr.from));
	if (!fr.from || pipe(fr.pipe)) {
		fputs("fail_random: out of memory or descriptors\n", stderr);
		return ST_EXIT_FAIL;
	}
	for (tries = 0; tries < 10; tries++) {
		arm(args.seed + (uint64_t)tries);
		rc = st_run(&w, fr_main, NULL);
		/* the main process's own spawn refused: act_main said so,
		 * nothing ran */
		if (atomic_load(&fr.ran) || (rc != -ENOMEM && rc != -EAGAIN))
			break;
	}
	unsetenv("ACT_TEST_FAIL");
	unsetenv("ACT_TEST_FAIL_SEED");
	rc = st_finish(&w, rc, violations());
	close(fr.pipe[0]);
	close(fr.pipe[1]);
	free(fr.from);
	return rc;
}
