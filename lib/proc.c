/* SPDX-License-Identifier: MIT */
/* proc.c - the slot table; see proc.h for pids and the state word. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "proc.h"

/* Three cache lines: remote-written, then owner-only. */
_Static_assert(sizeof(struct act__proc) == 3 * ACT_CACHELINE, "slot size");

int act__ptable_init(struct act__ptable *t, uint32_t cap)
{
	size_t len = (size_t)cap * sizeof(struct act__proc);
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	t->slots = m;
	t->cap = cap;
	t->map_len = len;
	atomic_store_explicit(&t->hwm, 0, memory_order_relaxed);
	return 0;
}

void act__ptable_destroy(struct act__ptable *t)
{
	if (t->slots)
		munmap(t->slots, t->map_len);
	t->slots = NULL;
}
