/* SPDX-License-Identifier: MIT */
/*
 * ioword.h - the bits of a process's I/O word (struct act__proc's
 * io_word: who may still touch its I/O record; lib/reactor/io.h has the
 * protocol), and the two questions the scheduler asks of it when it
 * parks a process on its I/O. Here, with the slot, so that the worker
 * (a layer below the reactor) reads the word without the reactor's
 * headers.
 */
#ifndef ACT_IOWORD_H
#define ACT_IOWORD_H

#include <stdatomic.h>
#include <stdbool.h>

#include "proc.h"

enum {
	ACT_IO_COMPLETE = 1u,
	ACT_IO_CANCEL_REQ = 2u,
	ACT_IO_CANCEL_TAKEN = 4u,
	ACT_IO_ACCEPTED = 8u, /* with COMPLETE: an accept's descriptor,
			       * in the slot's accepted_fd, not taken yet
			       * (cleared by io_run when it takes it) */
};

static inline bool act__ioword_over(unsigned word)
{
	return (word & ACT_IO_COMPLETE) &&
	       (!(word & ACT_IO_CANCEL_REQ) || (word & ACT_IO_CANCEL_TAKEN));
}

/*
 * Worker, in park_io: should p, just published IOWAIT, run again? Yes
 * when its operation is over, or when it was killed and has not asked
 * for the cancel yet.
 */
static inline bool act__ioword_wants_run(struct act__proc *p)
{
	/* seq_cst: the load half of the Dekker pair with the reactor's
	 * seq_cst RMW of io_word (io_settle), followed by its state load */
	unsigned word = atomic_load_explicit(&p->io_word, memory_order_seq_cst);

	return act__ioword_over(word) ||
	       (!(word & ACT_IO_CANCEL_REQ) && act__proc_killed(p));
}

#endif /* ACT_IOWORD_H */
