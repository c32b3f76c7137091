/* SPDX-License-Identifier: MIT */
/* numa.c - memory homes; see numa.h. (First step: one home, no binding.) */
#include <errno.h>
#include <string.h>

#include "numa.h"

int act__numa_init(struct act__numa *n, const int *os_node,
		   uint32_t nworkers, int *home)
{
	uint32_t i;

	(void)os_node;
	memset(n, 0, sizeof(*n));
	n->nnodes = 1;
	n->os[0] = -1;
	n->why_plain = "not yet";
	for (i = 0; i < nworkers; i++)
		home[i] = 0;
	return 0;
}

void act__numa_place(struct act__numa *n, int home, void *p, size_t len)
{
	(void)n;
	(void)home;
	(void)p;
	(void)len;
}
