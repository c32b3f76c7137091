/* SPDX-License-Identifier: MIT */
/* trace.c - the trace buffers (trace.h). */
#include <errno.h>
#include <sys/mman.h>

#include "fail.h"
#include "trace.h"

int act__trace_buf_init(struct act__trace_buf *b, size_t bytes, uint32_t id,
			uint64_t t0)
{
	size_t n = 1024;
	void *m;

	while (n * 2 * sizeof(struct act__trace_ev) <= bytes)
		n *= 2;
	/* POPULATE: every page is touched now, at act_main, not as events
	 * fill them: a page fault a 4 KiB of events took a third of the
	 * traced pingpong's cost (1.45x untraced instead of 1.2x) */
	m = ACT_FAIL(ACT_FAIL_MMAP) ?
		    MAP_FAILED :
		    mmap(NULL, n * sizeof(struct act__trace_ev),
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
				 MAP_POPULATE,
			 -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	b->ev = m;
	b->mask = n - 1;
	b->n = 0;
	b->t0 = t0;
	b->flows = 0;
	b->sampled = 0;
	b->id = id;
	return 0;
}

void act__trace_buf_destroy(struct act__trace_buf *b)
{
	if (b->ev)
		munmap(b->ev, (b->mask + 1) * sizeof(struct act__trace_ev));
	b->ev = NULL;
}

void act__trace_event(struct act__trace_buf *b, unsigned kind, uint64_t a,
		      uint64_t x, uint64_t c)
{
	act__trace_put(b, kind, act__trace_now(b), a, x, c);
}

void act__trace_name(struct act__trace_buf *b, uint64_t pid, const char *name,
		     size_t len)
{
	uint64_t t = act__trace_now(b);
	size_t i;

	act__trace_put(b, ACT_TR_NAME, t, pid, len, 0);
	for (i = 0; i < len; i += 24) {
		uint64_t w[3] = { 0, 0, 0 };

		memcpy(w, name + i, len - i < 24 ? len - i : 24);
		act__trace_put(b, ACT_TR_BYTES, t, w[0], w[1], w[2]);
	}
}
