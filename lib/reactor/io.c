/* SPDX-License-Identifier: MIT */
/*
 * io.c - act_io_*: the process's side (fill a record, hand it over, wait)
 * and the reactor's (SQEs, CQEs, cancels, the drain at stop). The
 * protocol is in io.h.
 *
 * Reactor side. A taken operation joins a FIFO of pending ones; each
 * loop moves as many as the SQ has room for into it (two entries for a
 * timed one: the operation, IOSQE_IO_LINK, and its IORING_OP_LINK_TIMEOUT)
 * and onto the in-flight list. A full SQ is submitted and refilled; when
 * the kernel refuses more for now (-EBUSY: completions to reap first,
 * -EAGAIN: no memory) the rest waits for the next loop, in order. No
 * operation is dropped: the kernel keeps completions that overflow the
 * CQ (IORING_FEAT_NODROP) until they are reaped.
 *
 * Limits behave the same on every kernel (doc/kernels.md has what was
 * measured on 5.10, 6.1 and 6.12):
 *   - a zero limit on a read or write that the kernel hands to an io-wq
 *     thread (a file without non-blocking support: a pipe before 6.12)
 *     can cancel it before that thread starts it, data there or not; so
 *     one that comes back so is tried again if poll(2) finds the file
 *     ready (zero_retry);
 *   - a kernel that loses the bytes of a partial MSG_WAITALL receive when
 *     its limit cancels it (5.10: -ECANCELED, the bytes gone) gets
 *     receives without MSG_WAITALL, one after another (recv_all).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sched/backpressure.h"
#include "io.h"
#include "sched/overflow.h"
#include "sched/rt.h"
#include "mem/stack.h"
#include "sched/wake.h"
#include "sched/worker.h"

/* user_data: an operation's own entry is its record's address; its
 * linked timeout's is that | UD_LINK (records are 8-byte aligned) */
#define UD_LINK 1u
#define UD_CANCEL 3u /* an IORING_OP_ASYNC_CANCEL: no record */

/*
 * zero_retry's limits, in turn, for a zero-limit read or write that its
 * limit cancelled before it started while its file was ready: 0.1 ms,
 * doubled each time, 25.5 ms in all at worst. An io-wq thread that is
 * already there starts such an operation in microseconds; a new one
 * took 8 ms in QEMU.
 */
static const struct __kernel_timespec zero_steps[] = {
	{ 0, 100000 },	{ 0, 200000 },	{ 0, 400000 },	{ 0, 800000 },
	{ 0, 1600000 }, { 0, 3200000 }, { 0, 6400000 }, { 0, 12800000 },
};
#define ZERO_STEPS ((int)(sizeof(zero_steps) / sizeof(zero_steps[0])))

/* ---- the process's side ---------------------------------------------- */

/*
 * A buffer that reaches into the guard below the caller's own stack is a
 * frame that ran past the stack's end (an array too large for it, in code
 * built without stack-clash probes): the kernel would write through the
 * guard's far side into the next stack down (an 80 KB read on a 64 KiB
 * stack wrote 10 KB over another process's frames), or fault part way.
 * Reported as the overflow it is, as a fault in the guard would be. No
 * valid buffer can touch the guard: it is nobody's memory.
 */
static void check_stack_buf(const struct act__proc *p, const void *buf,
			    size_t n)
{
	uintptr_t lo = (uintptr_t)p->stack_lo, b = (uintptr_t)buf;

	if (act__unlikely(n && b < lo && b + n > lo - ACT_GUARD_SIZE))
		act__overflow_report(p->pid, p->stack_size);
}

static int64_t io_run(struct act__io *io, int64_t timeout_ns)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	struct act__reactor *r;
	uint8_t word;
	uint64_t t;

	if (!p)
		return -EPERM;
	if (io->op == IORING_OP_READ || io->op == IORING_OP_WRITE ||
	    io->op == IORING_OP_RECV || io->op == IORING_OP_SEND)
		check_stack_buf(p, io->buf, io->len);
	r = w->rt->reactor;
	if (r->ring.mode == ACT_RING_NONE)
		return -ENOSYS;
	act__spawn_die_if_killed(p);
	/* not reading its mail while it waits: its muted senders go on */
	act__backpressure_clear(w, p);
	io->timed = timeout_ns >= 0;
	if (io->timed) {
		io->ts.tv_sec = timeout_ns / 1000000000;
		io->ts.tv_nsec = timeout_ns % 1000000000;
	}
	t = act__ps_ticket(
		    atomic_load_explicit(&p->state, memory_order_relaxed)) +
	    1;
	p->wait_ticket = t;
	/* for observers (proc.h's fifth line): relaxed, read only while
	 * the state says IOWAIT, which the park publishes after these */
	atomic_store_explicit(&p->wait_op, io->op, memory_order_relaxed);
	atomic_store_explicit(&p->wait_on, (uint64_t)(uint32_t)io->fd,
			      memory_order_relaxed);
	io->p = p;
	io->ticket = t;
	io->res = 0;
	io->timed_out = false;
	/* the last operation's RMWs all came before it ended (io.h) */
	atomic_store_explicit(&p->io_word, 0, memory_order_relaxed);
	/* seq_cst push (act__mpsc_push), then the doorbell's seq_cst
	 * load in act__reactor_wake: the reactor sees the command before
	 * it sleeps, or it is woken (a system call only then) */
	act__reactor_push(r, &io->submit, ACT_RC_IO);
	act__reactor_wake(r);
	for (;;) {
		act__worker_switch_out_w(w, p, ACT_SW_IOWAIT);
		act__proc_turn_begin(p);
		w = act__tls_worker_self(); /* I8: we may have moved */
		/* acquire: pairs with the reactor's RMW that completed it,
		 * after its store of res */
		word = atomic_load_explicit(&p->io_word, memory_order_acquire);
		if (act__ioword_over(word))
			break;
		if ((word & ACT_IO_CANCEL_REQ) || !act__proc_killed(p))
			continue; /* a spurious wake: wait on */
		/* killed: ask for the cancel, unless it completed already;
		 * acq_rel: pairs with the reactor's RMWs of word */
		if (atomic_compare_exchange_strong_explicit(
			    &p->io_word, &word, word | ACT_IO_CANCEL_REQ,
			    memory_order_acq_rel, memory_order_acquire)) {
			act__reactor_push(r, &io->cancel, ACT_RC_IOCANCEL);
			act__reactor_wake(r);
		}
	}
	/* its descriptor is the process's now, not the slot's (io.h);
	 * relaxed: only this process and, once every thread has stopped,
	 * the reclaim read the bit */
	if (word & ACT_IO_ACCEPTED)
		atomic_fetch_and_explicit(&p->io_word,
					  (uint8_t)~ACT_IO_ACCEPTED,
					  memory_order_relaxed);
	/* I6: only now are the record and the buffer free, and may p die;
	 * an accept that won the race with the cancel leaves no fd open */
	if (act__proc_killed(p) && io->op == IORING_OP_ACCEPT && io->res >= 0)
		close(io->res);
	act__spawn_die_if_killed(p);
	/* the limit ended it (-ECANCELED, or -EINTR from an io-wq worker);
	 * a partial count that came before stays a count */
	if (io->timed_out && io->res < 0)
		return -ETIMEDOUT;
	return io->res;
}

static int64_t io_rw(uint8_t op, int fd, const void *buf, size_t n,
		     uint64_t off, int flags, int64_t timeout_ns)
{
	struct act__io io;

	io.op = op;
	io.fd = fd;
	io.buf = (void *)buf;
	/* one operation moves at most what read(2) would */
	io.len = n > 0x7ffff000u ? 0x7ffff000u : (uint32_t)n;
	io.off = off;
	io.flags = flags;
	return io_run(&io, timeout_ns);
}

ssize_t act_io_read_timeout(int fd, void *buf, size_t n, int64_t off,
			    int64_t timeout_ns)
{
	return io_rw(IORING_OP_READ, fd, buf, n, (uint64_t)off, 0, timeout_ns);
}

ssize_t act_io_write_timeout(int fd, const void *buf, size_t n, int64_t off,
			     int64_t timeout_ns)
{
	return io_rw(IORING_OP_WRITE, fd, buf, n, (uint64_t)off, 0, timeout_ns);
}

/*
 * Does a MSG_WAITALL receive that its linked timeout ends return the
 * bytes it has (6.1 and later), or -ECANCELED with the bytes gone (5.10,
 * whose kernel retries the short receive itself)? Asked once, on a ring
 * of its own: a receive of 2 bytes with 1 there and a zero limit must
 * give 1, after the limit passed (-ETIME). A kernel that returns the
 * short count at once (no MSG_WAITALL retry in io_uring) answers no too.
 * 0 unknown, 1 yes, -1 no; relaxed: whoever asks gets the same answer.
 */
static _Atomic int waitall_state;

static bool kernel_keeps_waitall(void)
{
	static const struct __kernel_timespec zero = { 0, 0 };
	static char sink[2]; /* the kernel's until both CQEs are in */
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int sv[2], i, rc, st = -1, op = 0, lt = 0;

	rc = atomic_load_explicit(&waitall_state, memory_order_relaxed);
	if (rc)
		return rc > 0;
	if (io_uring_queue_init(2, &ring, 0))
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		goto out_ring;
	if (send(sv[0], "w", 1, MSG_DONTWAIT) != 1)
		goto out_sock;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_recv(sqe, sv[1], sink, sizeof(sink), MSG_WAITALL);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_sqe_set_data64(sqe, 1);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_link_timeout(sqe, (struct __kernel_timespec *)&zero, 0);
	io_uring_sqe_set_data64(sqe, 2);
	if (io_uring_submit(&ring) != 2)
		goto out_sock;
	for (i = 0; i < 2; i++) {
		do
			rc = io_uring_wait_cqe(&ring, &cqe);
		while (rc == -EINTR);
		if (rc)
			goto out_sock;
		if (cqe->user_data == 1)
			op = cqe->res;
		else
			lt = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	st = op == 1 && lt == -ETIME ? 1 : -1;
out_sock:
	close(sv[0]);
	close(sv[1]);
out_ring:
	io_uring_queue_exit(&ring);
out:
	atomic_store_explicit(&waitall_state, st, memory_order_relaxed);
	return st > 0;
}

/*
 * A MSG_WAITALL receive with a limit, where the kernel would lose a
 * partial count to the limit: plain receives until n bytes, the end, an
 * error or the limit, and the count so far if any (as the kernel's
 * MSG_WAITALL gives on 6.1 and later).
 */
static int64_t recv_all(int fd, char *buf, size_t n, int flags,
			int64_t timeout_ns)
{
	int64_t deadline = act__clock_now() + timeout_ns, left = timeout_ns, rc;
	size_t got = 0;

	flags &= ~MSG_WAITALL;
	for (;;) {
		rc = io_rw(IORING_OP_RECV, fd, buf + got, n - got, 0, flags,
			   left);
		if (rc <= 0)
			return got ? (int64_t)got : rc;
		got += (size_t)rc;
		if (got >= n)
			return (int64_t)got;
		/* past the limit: one last try of what is there */
		left = deadline - act__clock_now();
		if (left < 0)
			left = 0;
	}
}

/*
 * A send or receive that must not wait (MSG_DONTWAIT) is one system call
 * made here, on the worker: the reactor would make the same call, after
 * a trip through its ring, a wake of its thread and one of this worker,
 * and two switches. No limit applies: the call never waits.
 */
static int64_t io_now(uint8_t op, int fd, void *buf, size_t n, int flags)
{
	struct act__worker *w = act__tls_worker_self();
	struct act__proc *p = w ? w->current : NULL;
	ssize_t k;

	if (!p)
		return -EPERM;
	check_stack_buf(p, buf, n);
	act__spawn_die_if_killed(p);
	/* errno is read on the thread that made the call, before any
	 * switch (I8) */
	do
		k = op == IORING_OP_SEND ? send(fd, buf, n, flags) :
					   recv(fd, buf, n, flags);
	while (k < 0 && errno == EINTR);
	return k < 0 ? -errno : (int64_t)k;
}

ssize_t act_io_recv_timeout(int fd, void *buf, size_t n, int flags,
			    int64_t timeout_ns)
{
	if (flags & MSG_DONTWAIT)
		return io_now(IORING_OP_RECV, fd, buf, n, flags);
	/* MSG_PEEK takes nothing: nothing to lose */
	if ((flags & (MSG_WAITALL | MSG_PEEK)) == MSG_WAITALL &&
	    timeout_ns >= 0 && n > 1 && !kernel_keeps_waitall())
		return recv_all(fd, buf, n, flags, timeout_ns);
	return io_rw(IORING_OP_RECV, fd, buf, n, 0, flags, timeout_ns);
}

ssize_t act_io_send_timeout(int fd, const void *buf, size_t n, int flags,
			    int64_t timeout_ns)
{
	if (flags & MSG_DONTWAIT)
		return io_now(IORING_OP_SEND, fd, (void *)buf, n, flags);
	return io_rw(IORING_OP_SEND, fd, buf, n, 0, flags, timeout_ns);
}

int act_io_accept_timeout(int fd, struct sockaddr *addr, socklen_t *addrlen,
			  int flags, int64_t timeout_ns)
{
	return (int)io_rw(IORING_OP_ACCEPT, fd, addr, 0,
			  (uint64_t)(uintptr_t)addrlen, flags, timeout_ns);
}

int act_io_connect_timeout(int fd, const struct sockaddr *addr,
			   socklen_t addrlen, int64_t timeout_ns)
{
	return (int)io_rw(IORING_OP_CONNECT, fd, addr, 0, addrlen, 0,
			  timeout_ns);
}

int act_io_close_timeout(int fd, int64_t timeout_ns)
{
	return (int)io_rw(IORING_OP_CLOSE, fd, NULL, 0, 0, 0, timeout_ns);
}

int act_io_fsync_timeout(int fd, unsigned flags, int64_t timeout_ns)
{
	/* the kernel's IORING_FSYNC_DATASYNC is the only flag it knows */
	if (flags & ~ACT_IO_FSYNC_DATASYNC)
		return -EINVAL;
	return (int)io_rw(IORING_OP_FSYNC, fd, NULL, 0, 0,
			  flags ? IORING_FSYNC_DATASYNC : 0, timeout_ns);
}

/*
 * Registration is an operation like the others (IORING_OP_FILES_UPDATE
 * of one slot, the descriptor's number): the ring is the reactor's, and
 * with SINGLE_ISSUER only its thread may change the table. The reactor
 * makes the table at the first one and keeps which slots are full.
 */
/* Slot fd of the ring's table to file (fd's own, or -1: empty). */
static int files_update(int fd, int file)
{
	int slot[1] = { file };
	int64_t rc;

	if (fd < 0)
		return -EBADF;
	rc = io_rw(IORING_OP_FILES_UPDATE, fd, slot, 1, (uint64_t)fd, 0,
		   ACT_FOREVER);
	return rc < 0 ? (int)rc : 0;
}

int act_io_register(int fd)
{
	return files_update(fd, fd);
}

int act_io_unregister(int fd)
{
	return files_update(fd, -1);
}

int act_io_poll_timeout(int fd, short events, int64_t timeout_ns)
{
	return (int)io_rw(IORING_OP_POLL_ADD, fd, NULL, 0, 0,
			  (unsigned short)events, timeout_ns);
}

ssize_t act_io_read(int fd, void *buf, size_t n, int64_t off)
{
	return act_io_read_timeout(fd, buf, n, off, ACT_FOREVER);
}

ssize_t act_io_write(int fd, const void *buf, size_t n, int64_t off)
{
	return act_io_write_timeout(fd, buf, n, off, ACT_FOREVER);
}

ssize_t act_io_recv(int fd, void *buf, size_t n, int flags)
{
	return act_io_recv_timeout(fd, buf, n, flags, ACT_FOREVER);
}

ssize_t act_io_send(int fd, const void *buf, size_t n, int flags)
{
	return act_io_send_timeout(fd, buf, n, flags, ACT_FOREVER);
}

int act_io_accept(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
	return act_io_accept_timeout(fd, addr, addrlen, flags, ACT_FOREVER);
}

/*
 * The shed. A process at its descriptor limit has no number to accept
 * with, and the kernel takes the number before it looks at the queue, so
 * act_io_accept says -EMFILE at once while the clients wait in the
 * listener's queue, answered by nobody. The caller's spare is that
 * number: closed, it lets each waiting connection in turn be taken,
 * answered and closed, then it is set aside again. Each accept goes
 * through the ring with a limit of 0, which ends at once when nobody
 * waits (-ETIMEDOUT), so the call never waits for a client; the answer is
 * one send that does not wait, into a new socket's empty buffer. A peer
 * that left meanwhile (-ECONNABORTED and the like) is passed over; any
 * other error ends the shed.
 */
#define SHED_MAX 1024

static bool shed_next(int err)
{
	return err == -ECONNABORTED || err == -EINTR || err == -EPROTO ||
	       err == -EPERM || err == -ENETDOWN || err == -EHOSTUNREACH ||
	       err == -ENETUNREACH || err == -EHOSTDOWN || err == -ENONET ||
	       err == -ENOPROTOOPT;
}

int act_io_accept_shed(int fd, int *spare, const void *msg, size_t len)
{
	struct act__worker *w = act__tls_worker_self();
	int i, c = 0, n = 0;

	if (!w || !w->current)
		return -EPERM;
	if (w->rt->reactor->ring.mode == ACT_RING_NONE)
		return -ENOSYS;
	if (!spare || (len && !msg))
		return -EINVAL;
	if (*spare >= 0)
		close(*spare);
	*spare = -1;
	for (i = 0; i < SHED_MAX; i++) {
		c = act_io_accept_timeout(fd, NULL, NULL, SOCK_CLOEXEC, 0);
		if (c < 0 && shed_next(c))
			continue;
		if (c < 0)
			break;
		if (len && send(c, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			/* the peer is gone, or reset: closed either way */
		}
		close(c);
		n++;
	}
	*spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* nobody waiting, or the number taken by another thread: done */
	if (n || c >= 0 || c == -ETIMEDOUT || c == -EMFILE || c == -ENFILE ||
	    shed_next(c))
		return n;
	return c;
}

int act_io_connect(int fd, const struct sockaddr *addr, socklen_t addrlen)
{
	return act_io_connect_timeout(fd, addr, addrlen, ACT_FOREVER);
}

int act_io_close(int fd)
{
	return act_io_close_timeout(fd, ACT_FOREVER);
}

int act_io_poll(int fd, short events)
{
	return act_io_poll_timeout(fd, events, ACT_FOREVER);
}

int act_io_fsync(int fd, unsigned flags)
{
	return act_io_fsync_timeout(fd, flags, ACT_FOREVER);
}

/* ---- the reactor's side ---------------------------------------------- */

/*
 * io's result is in: set bits (COMPLETE, or CANCEL_TAKEN) and, if that
 * ends the operation, wake its process. Nothing of io is read after the
 * RMW that ends it: the process may return and reuse its stack.
 */
static void io_settle(struct act__reactor *r, struct act__io *io, uint32_t bits)
{
	struct act__proc *p = io->p;
	uint64_t ticket = io->ticket;
	unsigned old;

	/* seq_cst: the store half of the Dekker pair with park_io's IOWAIT
	 * store and io_word load; release for res and the cancel's reads */
	old = atomic_fetch_or_explicit(&p->io_word, (uint8_t)bits,
				       memory_order_seq_cst);
	if (act__ioword_over(old) || !act__ioword_over(old | bits))
		return;
	if (!r->stopping)
		act__reactor_wake_proc(r, p, ticket, ACT_PS_IOWAIT);
}

static void inflight_del(struct act__reactor *r, struct act__io *io)
{
	if (io->rprev)
		io->rprev->rnext = io->rnext;
	else
		r->inflight = io->rnext;
	if (io->rnext)
		io->rnext->rprev = io->rprev;
	act__count_n(&r->n_inflight, -1);
}

/* Is fd in the ring's table? */
static bool is_fixed(const struct act__reactor *r, int fd)
{
	return fd >= 0 && (uint32_t)fd < r->nfixed && r->fixed[fd];
}

/*
 * Take fd out of the ring's table now (a system call of the reactor's):
 * before its close, so that the close is the file's last, and when an
 * accept gave its number to a new file, which means that the registered
 * one was closed with close(2) behind the runtime's back: the slot must
 * not name the old file for the new descriptor.
 */
static void unfix(struct act__reactor *r, int fd)
{
	int none = -1;
	int rc;

	if (!is_fixed(r, fd))
		return;
	r->fixed[fd] = 0;
	rc = io_uring_register_files_update(&r->ring.ring, (unsigned)fd, &none,
					    1);
	if (rc < 0) /* the ring keeps the file until it is closed */
		fprintf(stderr,
			"actors: the ring would not let go of "
			"descriptor %d's file (%s): it stays open until the "
			"runtime stops\n",
			fd, strerror(-rc));
}

/*
 * The table, at the first registration: a slot for each descriptor the
 * process may open (RLIMIT_NOFILE's soft limit then), at most 65,536.
 * Sparse (5.19), else an array of -1 (empty slots, older kernels).
 */
static int fixed_make(struct act__reactor *r)
{
	struct rlimit rl;
	uint32_t n = 65536, i;
	int rc, *none;

	if (r->fixed || r->fixed_err)
		return r->fixed_err;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < n)
		n = rl.rlim_cur ? (uint32_t)rl.rlim_cur : 1;
	r->fixed = calloc(n, 1);
	if (!r->fixed)
		return -ENOMEM; /* not kept: a later try may find memory */
	rc = io_uring_register_files_sparse(&r->ring.ring, n);
	if (rc == -EINVAL && (none = malloc(n * sizeof(*none))) != NULL) {
		for (i = 0; i < n; i++)
			none[i] = -1;
		rc = io_uring_register_files(&r->ring.ring, none, n);
		free(none);
	}
	if (rc < 0) {
		free(r->fixed);
		r->fixed = NULL;
		r->fixed_err = rc;
		return rc;
	}
	r->nfixed = n;
	return 0;
}

/* The operation's last CQE came (or it ends without one): it is done. */
static void io_complete(struct act__reactor *r, struct act__io *io, int32_t res)
{
	struct act__io **pp, *prev = NULL;

	if (io->cancel_queued) { /* its cancel must not outlive it: the
				  * record's address may name another
				  * operation soon */
		for (pp = &r->cancel_head; *pp != io; pp = &(*pp)->cnext)
			prev = *pp;
		*pp = io->cnext;
		if (r->cancel_tail == io)
			r->cancel_tail = prev;
		io->cancel_queued = false;
	}
	if (io->where == ACT_IO_INFLIGHT)
		inflight_del(r, io);
	io->where = ACT_IO_DONE;
	io->res = res;
	act__count(&r->n_io_ops);
	if (act__unlikely(r->trace))
		act__trace_event(r->trace, ACT_TR_IO_END, (uintptr_t)io,
				 (uint64_t)(int64_t)res,
				 (uint64_t)io->op << 32);
	/* a cancel is an operation that gave no result: one whose limit
	 * fired (-ETIME) but which still returned a count is not one (6.1
	 * says so for 1 in 1,000 zero-limit pipe reads with the data there,
	 * and for a MSG_WAITALL receive's partial count) */
	if (res == -ECANCELED || (io->timed_out && res < 0))
		act__count(&r->n_io_cancels);
	/* one slot updated: the table says so (buf: the process's array,
	 * still its own until the settle below) */
	if (io->op == IORING_OP_FILES_UPDATE && res >= 0)
		r->fixed[io->fd] = *(const int *)io->buf >= 0;
	/* at stop its process never runs again: an accepted fd would be
	 * nobody's; else the slot keeps it too, until the process takes it
	 * (io.h: ACCEPTED), so that a stop that discards the process first
	 * closes it. Written before io_settle's RMW, which publishes it */
	if (io->op == IORING_OP_ACCEPT && res >= 0) {
		unfix(r, res);
		if (r->stopping) {
			close(res);
		} else {
			io->p->accepted_fd = res;
			io_settle(r, io, ACT_IO_COMPLETE | ACT_IO_ACCEPTED);
			return;
		}
	}
	io_settle(r, io, ACT_IO_COMPLETE);
}

/* Put io at the tail of the FIFO of operations waiting for the SQ. */
static void pend_push(struct act__reactor *r, struct act__io *io)
{
	io->where = ACT_IO_PENDING;
	io->rnext = NULL;
	if (r->pend_tail)
		r->pend_tail->rnext = io;
	else
		r->pend_head = io;
	r->pend_tail = io;
}

void act__io_take(struct act__reactor *r, struct act__io *io)
{
	io->cancel_queued = false;
	if (r->stopping) { /* it never reaches the kernel */
		io->where = ACT_IO_QUEUED;
		io_complete(r, io, -ECANCELED);
		return;
	}
	if (io->op == IORING_OP_READ || io->op == IORING_OP_WRITE)
		io->flags = 0; /* zero_retry's count (read and write have no
				* flags; the process reads it no more) */
	if (io->op == IORING_OP_FILES_UPDATE) {
		int rc = fixed_make(r);

		if (!rc && (uint32_t)io->fd >= r->nfixed)
			rc = -ENOSPC;
		if (!rc && *(const int *)io->buf < 0 && !is_fixed(r, io->fd))
			rc = -EINVAL; /* an unregister of what is not in */
		if (rc) {
			io->where = ACT_IO_QUEUED;
			io_complete(r, io, rc);
			return;
		}
	}
	if (io->op == IORING_OP_CLOSE)
		unfix(r, io->fd);
	pend_push(r, io);
}

static void cancel_push(struct act__reactor *r, struct act__io *io)
{
	if (io->cancel_queued)
		return;
	io->cancel_queued = true;
	io->cnext = NULL;
	if (r->cancel_tail)
		r->cancel_tail->cnext = io;
	else
		r->cancel_head = io;
	r->cancel_tail = io;
}

void act__io_take_cancel(struct act__reactor *r, struct act__io *io)
{
	struct act__io **pp, *prev = NULL;

	switch (io->where) {
	case ACT_IO_DONE: /* completed meanwhile: the command ends it */
		io_settle(r, io, ACT_IO_CANCEL_TAKEN);
		return;
	case ACT_IO_PENDING: /* not in the kernel: drop it from the FIFO */
		for (pp = &r->pend_head; *pp != io; pp = &(*pp)->rnext)
			prev = *pp;
		*pp = io->rnext;
		if (r->pend_tail == io)
			r->pend_tail = prev;
		io_complete(r, io, -ECANCELED);
		io_settle(r, io, ACT_IO_CANCEL_TAKEN);
		return;
	default: /* in the kernel: ask it, and wait for the CQE */
		io_settle(r, io, ACT_IO_CANCEL_TAKEN);
		cancel_push(r, io);
		return;
	}
}

/* Fill sqe with io's operation. */
static void prep(const struct act__reactor *r, struct io_uring_sqe *sqe,
		 struct act__io *io)
{
	switch (io->op) {
	case IORING_OP_READ:
		io_uring_prep_read(sqe, io->fd, io->buf, io->len, io->off);
		break;
	case IORING_OP_WRITE:
		io_uring_prep_write(sqe, io->fd, io->buf, io->len, io->off);
		break;
	case IORING_OP_RECV:
		io_uring_prep_recv(sqe, io->fd, io->buf, io->len, io->flags);
		break;
	case IORING_OP_SEND:
		io_uring_prep_send(sqe, io->fd, io->buf, io->len, io->flags);
		break;
	case IORING_OP_ACCEPT:
		io_uring_prep_accept(sqe, io->fd, io->buf,
				     (socklen_t *)(uintptr_t)io->off,
				     io->flags);
		break;
	case IORING_OP_CONNECT:
		io_uring_prep_connect(sqe, io->fd, io->buf, (socklen_t)io->off);
		break;
	case IORING_OP_CLOSE:
		io_uring_prep_close(sqe, io->fd);
		break;
	case IORING_OP_POLL_ADD:
		io_uring_prep_poll_add(sqe, io->fd, (unsigned)io->flags);
		break;
	case IORING_OP_FSYNC:
		io_uring_prep_fsync(sqe, io->fd, (unsigned)io->flags);
		break;
	case IORING_OP_FILES_UPDATE:
		io_uring_prep_files_update(sqe, (int *)io->buf, 1,
					   (int)io->off);
		break;
	default:
		act__fatal("io: bad operation %u", io->op);
	}
	/* slot n is descriptor n: the kernel takes the file from the table
	 * instead of looking the number up (and no reference count) */
	if (io->op != IORING_OP_FILES_UPDATE && is_fixed(r, io->fd))
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
}

/* Room for n entries in the SQ, submitting what is there if need be. */
static bool sq_room(struct act__reactor *r, unsigned n)
{
	struct io_uring *ring = &r->ring.ring;
	int rc;

	if (io_uring_sq_space_left(ring) >= n)
		return true;
	/* -EBUSY, -EAGAIN: the kernel takes nothing now; the entries
	 * stay in the SQ for the next submit, after the CQ is reaped */
	do {
		rc = act__ring_refused();
		if (!rc)
			rc = io_uring_submit(ring);
	} while (rc == -EINTR);
	return io_uring_sq_space_left(ring) >= n;
}

static void put_cancel(struct act__reactor *r, struct act__io *io)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring.ring);

	io_uring_prep_cancel(sqe, io, 0);
	io_uring_sqe_set_data64(sqe, UD_CANCEL);
}

/* Is io a read or write with a zero limit? */
static bool zero_rw(const struct act__io *io)
{
	return io->timed && !io->ts.tv_sec && !io->ts.tv_nsec &&
	       (io->op == IORING_OP_READ || io->op == IORING_OP_WRITE);
}

/* The linked timeout of io: its own, or zero_retry's next step. */
static struct __kernel_timespec *io_limit(struct act__io *io)
{
	if (zero_rw(io) && io->flags > 0)
		return (struct __kernel_timespec *)&zero_steps[io->flags - 1];
	return &io->ts;
}

void act__io_fill(struct act__reactor *r)
{
	struct io_uring_sqe *sqe;
	struct act__io *io;

	while ((io = r->cancel_head) != NULL && sq_room(r, 1)) {
		r->cancel_head = io->cnext;
		if (!r->cancel_head)
			r->cancel_tail = NULL;
		io->cancel_queued = false;
		put_cancel(r, io);
	}
	while ((io = r->pend_head) != NULL && sq_room(r, io->timed ? 2 : 1)) {
		r->pend_head = io->rnext;
		if (!r->pend_head)
			r->pend_tail = NULL;
		sqe = io_uring_get_sqe(&r->ring.ring);
		prep(r, sqe, io);
		io->cqes = 1;
		r->turn_sqes += io->timed ? 2 : 1;
		if (act__unlikely(r->trace))
			act__trace_event(r->trace, ACT_TR_IO_BEGIN,
					 (uintptr_t)io, io->p->pid.id,
					 (uint64_t)io->op << 32 |
						 (uint32_t)io->fd);
		if (io->timed) {
			/* its own CQE says whether the limit passed (-ETIME),
			 * whatever the operation's says */
			sqe->flags |= IOSQE_IO_LINK;
			sqe = io_uring_get_sqe(&r->ring.ring);
			io_uring_prep_link_timeout(sqe, io_limit(io), 0);
			io_uring_sqe_set_data64(sqe, (uintptr_t)io | UD_LINK);
			io->cqes = 2;
		}
		io->where = ACT_IO_INFLIGHT;
		io->rprev = NULL;
		io->rnext = r->inflight;
		if (r->inflight)
			r->inflight->rprev = io;
		r->inflight = io;
		act__count(&r->n_inflight);
	}
}

/*
 * Both CQEs of io are in. A zero limit asks for what can be done at
 * once; but a read or write of a file without non-blocking support goes
 * to an io-wq thread, and the limit, armed at once, may cancel it before
 * that thread starts it (-ECANCELED; one that started and blocked says
 * -EINTR or its count). On 5.10 that took a pipe read with the data
 * there in 1 of 2 tries. So when io came back so, poll(2) says whether
 * it would have done something; if yes it goes into the ring again, with
 * the next of zero_steps as its limit. Not counted as an operation or a
 * cancel: the process sees one operation. True when io was put back.
 * On 6.1 the operation also comes back -ECANCELED with its limit's CQE
 * not saying -ETIME (the limit cancelled in turn: io-wq gave the work up
 * before it started, as it does when it cannot start a thread); that is
 * the same case, whoever cancelled it first.
 */
static bool zero_retry(struct act__reactor *r, struct act__io *io)
{
	struct pollfd pfd;

	if (io->op_res != -ECANCELED || !zero_rw(io) ||
	    io->flags >= ZERO_STEPS || r->stopping || io->cancel_queued)
		return false;
	/* a killed process's cancel: it wants the operation over; relaxed:
	 * one that comes later finds it PENDING (act__io_take_cancel) */
	if (atomic_load_explicit(&io->p->io_word, memory_order_relaxed) &
	    ACT_IO_CANCEL_REQ)
		return false;
	pfd.fd = io->fd;
	pfd.events = io->op == IORING_OP_READ ? POLLIN : POLLOUT;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) != 1)
		return false;
	inflight_del(r, io);
	io->timed_out = false;
	io->flags++;
	pend_push(r, io);
	return true;
}

void act__io_cqe(struct act__reactor *r, uint64_t user_data, int32_t res)
{
	struct act__io *io;

	if (user_data == UD_CANCEL)
		return; /* -EALREADY, -ENOENT: the operation ends by itself,
			 * and its own CQE is waited for as ever */
	io = (struct act__io *)(uintptr_t)(user_data & ~(uint64_t)UD_LINK);
	if (user_data & UD_LINK)
		io->timed_out = res == -ETIME;
	else
		io->op_res = res;
	/* a timed operation is done when both of its CQEs came, in
	 * whichever order: only then is the record free of the kernel */
	if (--io->cqes == 0 && !zero_retry(r, io)) {
		/* a zero limit's operation cancelled, whoever did it: the
		 * limit passed (the process sees -ETIMEDOUT, not -ECANCELED) */
		if (zero_rw(io) && io->op_res == -ECANCELED)
			io->timed_out = true;
		io_complete(r, io, io->op_res);
	}
}

/*
 * The workers have stopped: no process will run again, but the kernel
 * may still write into their stacks. Cancel every operation and wait for
 * every completion, so that reclaim frees no memory the kernel holds
 * (I6). An operation that a cancel cannot end (a read stuck in a device)
 * is waited for, with a line on stderr every 10 seconds.
 */
void act__io_drain(struct act__reactor *r)
{
	struct __kernel_timespec ts = { .tv_sec = 10, .tv_nsec = 0 };
	struct io_uring_cqe *cqe;
	struct act__io *io;
	unsigned head, n;

	while (r->pend_head) { /* never reached the kernel */
		io = r->pend_head;
		r->pend_head = io->rnext;
		io_complete(r, io, -ECANCELED);
	}
	r->pend_tail = NULL;
	if (r->ring.mode == ACT_RING_NONE)
		return;
	for (io = r->inflight; io; io = io->rnext)
		cancel_push(r, io);
	while (r->inflight || r->cancel_head) {
		act__io_fill(r);
		if (!act__ring_refused() &&
		    io_uring_submit_and_wait_timeout(&r->ring.ring, &cqe, 1,
						     &ts, NULL) == -ETIME)
			fprintf(stderr,
				"actors: stopping: %llu I/O operations "
				"not ended by their cancel; waiting\n",
				(unsigned long long)atomic_load_explicit(
					&r->n_inflight, memory_order_relaxed));
		n = 0;
		io_uring_for_each_cqe(&r->ring.ring, head, cqe) {
			if (cqe->user_data > UD_CANCEL &&
			    cqe->user_data != LIBURING_UDATA_TIMEOUT)
				act__io_cqe(r, cqe->user_data, cqe->res);
			n++;
		}
		io_uring_cq_advance(&r->ring.ring, n);
	}
}
