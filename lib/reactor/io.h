/* SPDX-License-Identifier: MIT */
/*
 * io.h - I/O on the reactor's io_uring ring (act_io_*).
 *
 * A process that calls act_io_* fills a record (struct act__io) on its
 * own stack, hands it to the reactor through the command queue, rings
 * the reactor if it sleeps, and waits in state IOWAIT with a new ticket
 * (I4). The reactor puts the operation in the ring (with a linked
 * timeout for the _timeout forms), and when its completion comes it
 * stores the result and wakes the process with that ticket (I2, through
 * act__wake_state's CAS). Messages do not end an IOWAIT.
 *
 * I6: the record, the process's stack and the caller's buffer stay in
 * use until the completion has come, whatever happens meanwhile. A
 * killed process asks the reactor to cancel (IORING_OP_ASYNC_CANCEL) and
 * waits on for the completion; at runtime stop the reactor cancels what
 * is left and waits for every completion before the stacks are freed.
 *
 * The process's io_word (in its slot: a process has one operation at a
 * time) says who may still touch the record:
 *   COMPLETE     the reactor has the result (the CQE came, or the
 *                operation was dropped before it reached the kernel);
 *   CANCEL_REQ   the killed process pushed its cancel command;
 *   CANCEL_TAKEN the reactor took that command.
 * An accept that got a descriptor sets ACCEPTED with COMPLETE and leaves
 * the descriptor in the slot as well (accepted_fd), until the process
 * takes it: a process woken by that completion but discarded at stop
 * before it ran again would otherwise leave it open, nobody's; the
 * runtime's reclaim closes it (runtime.c).
 * The operation is over for the process when COMPLETE is set and, if
 * CANCEL_REQ is, CANCEL_TAKEN too: then neither of the record's queue
 * nodes is in the reactor's hands, and the reactor, whose update made it
 * so, reads nothing of it afterwards. The word is not in the record
 * because park_io reads it after publishing IOWAIT, and by then the
 * process may have been woken, run elsewhere and left io_run: a slot is
 * never freed, a stack frame is (model/io.pml found it; a late read
 * meets the next operation's word, and its CAS, for the old ticket,
 * fails).
 */
#ifndef ACT_IO_H
#define ACT_IO_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>

#include "proc/ioword.h"
#include "proc/proc.h"
#include "reactor.h"

/* Where the reactor keeps a record (act__io.where; reactor only). */
enum { ACT_IO_QUEUED = 0, ACT_IO_PENDING, ACT_IO_INFLIGHT, ACT_IO_DONE };

struct act__io {
	struct act__rcmd submit; /* ACT_RC_IO */
	struct act__rcmd cancel; /* ACT_RC_IOCANCEL */
	int32_t res;		 /* the result, before COMPLETE */
	/* the operation: the caller's, read-only once submitted */
	uint8_t op; /* IORING_OP_* */
	bool timed; /* with a linked timeout */
	int fd;
	uint32_t len;
	int flags;		     /* MSG_*, SOCK_*, poll events */
	void *buf;		     /* buffer, or sockaddr */
	uint64_t off;		     /* offset, socklen_t * or length */
	struct __kernel_timespec ts; /* the linked timeout */
	struct act__proc *p;
	uint64_t ticket;
	/* reactor only (timed_out: read by the process once over) */
	uint8_t where;		       /* ACT_IO_QUEUED... */
	uint8_t cqes;		       /* CQEs still to come: 1, or 2 */
	bool timed_out;		       /* the linked timeout fired */
	int32_t op_res;		       /* the operation's CQE's res */
	bool cancel_queued;	       /* on the cancel FIFO */
	struct act__io *rnext, *rprev; /* pending FIFO, or in-flight list */
	struct act__io *cnext;	       /* cancels waiting for SQ room */
};

/* The reactor's side (io.c), reactor thread only. */
void act__io_take(struct act__reactor *r, struct act__io *io);
void act__io_take_cancel(struct act__reactor *r, struct act__io *io);
/* Put pending operations and cancels in the SQ, as room allows. */
void act__io_fill(struct act__reactor *r);
/* A CQE of an operation, a linked timeout or a cancel. */
void act__io_cqe(struct act__reactor *r, uint64_t user_data, int32_t res);
/* At stop, after r->stopping is set and the last commands are taken:
 * cancel everything, wait for every completion. */
void act__io_drain(struct act__reactor *r);

#endif /* ACT_IO_H */
