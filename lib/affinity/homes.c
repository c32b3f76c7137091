/* SPDX-License-Identifier: MIT */
/* homes.c - memory homes; see homes.h. */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fail.h"
#include "homes.h"
#include "settings/vars.h"

/* OS node numbers mbind can name here: Linux's MAX_NUMNODES tops out at
 * 1024 (NODES_SHIFT 10) */
#define OS_NODE_MAX 1024

/* the table's bound on fake:K leaves every home a slot of os[] */
_Static_assert(ACT_TEST_NUMA_FAKE_MAX <= ACT_NUMA_MAX, "fake:K past os[]");

static void one_home(struct act__numa *n, int os, const char *why,
		     uint32_t nworkers, int *home)
{
	uint32_t i;

	n->nnodes = 1;
	n->os[0] = os;
	n->why_plain = why;
	for (i = 0; i < nworkers; i++)
		home[i] = 0;
}

/* The home of OS node `node`, made if need be; -1 past ACT_NUMA_MAX. */
static int home_of_node(struct act__numa *n, int node)
{
	int h;

	for (h = 0; h < n->nnodes; h++)
		if (n->os[h] == node)
			return h;
	if (n->nnodes == ACT_NUMA_MAX)
		return -1;
	n->os[n->nnodes] = node;
	return n->nnodes++;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * The nodes the workers are bound to, each once, in increasing order,
 * become the homes; a worker bound to one of them gets its home. A
 * worker not bound to one node (-1) may run on any of them: it gets the
 * homes in turn by its index, so the memory of such workers is spread
 * over the nodes as an interleave would spread it, instead of piling up
 * on the first. Returns the number of known nodes (0 when none, or more
 * than ACT_NUMA_MAX: nothing set up then).
 */
static int homes_from_nodes(struct act__numa *n, const int *os_node,
			    uint32_t nworkers, int *home)
{
	int sorted[ACT_NUMA_MAX];
	uint32_t i;
	int h;

	n->nnodes = 0;
	for (i = 0; os_node && i < nworkers; i++) {
		if (os_node[i] < 0 || os_node[i] >= OS_NODE_MAX)
			continue;
		if (home_of_node(n, os_node[i]) < 0)
			return -1;
	}
	if (!n->nnodes)
		return 0;
	memcpy(sorted, n->os, (size_t)n->nnodes * sizeof(int));
	qsort(sorted, (size_t)n->nnodes, sizeof(int), cmp_int);
	memcpy(n->os, sorted, (size_t)n->nnodes * sizeof(int));
	for (i = 0; i < nworkers; i++) {
		h = os_node && os_node[i] >= 0 && os_node[i] < OS_NODE_MAX ?
			    home_of_node(n, os_node[i]) :
			    (int)(i % (uint32_t)n->nnodes);
		home[i] = h;
	}
	return n->nnodes;
}

void act__homes_init(struct act__numa *n, const int *os_node, uint32_t nworkers,
		     int *home, bool simulated, int test)
{
	int known, cpu, node;
	uint32_t i;

	memset(n, 0, sizeof(*n));
	atomic_store_explicit(&n->bind, false, memory_order_relaxed);
	if (test == ACT_TEST_NUMA_OFF) {
		one_home(n, -1, "ACT_TEST_NUMA=off", nworkers, home);
		return;
	}
	if (test > 0) { /* fake:K */
		n->nnodes = test;
		for (i = 0; i < (uint32_t)test; i++)
			n->os[i] = -1;
		n->why_plain = "ACT_TEST_NUMA=fake";
		for (i = 0; i < nworkers; i++)
			home[i] = (int)(i % (uint32_t)test);
		return;
	}
	if (simulated) {
		/* the nodes are not this machine's: a home per node of the
		 * plan, nothing bound */
		known = homes_from_nodes(n, os_node, nworkers, home);
		if (known <= 0)
			one_home(n, -1, "simulated machine", nworkers, home);
		n->why_plain = "simulated machine (ACT_TEST_TOPOLOGY)";
		return;
	}
	if (numa_available() < 0) {
		one_home(n, -1, "numa_available() < 0", nworkers, home);
		return;
	}
	known = homes_from_nodes(n, os_node, nworkers, home);
	if (known < 0) {
		one_home(n, -1, "more nodes than homes", nworkers, home);
		return;
	}
	if (known == 0 && test == ACT_TEST_NUMA_FORCE) {
		/* nothing placed: the node this thread runs on stands for
		 * all of them */
		cpu = sched_getcpu();
		node = cpu < 0 ? 0 : numa_node_of_cpu(cpu);
		one_home(n, node < 0 ? 0 : node, NULL, nworkers, home);
		known = 1;
	}
	if (known == 0) {
		one_home(n, -1, "workers not bound", nworkers, home);
		return;
	}
	if (known == 1 && test != ACT_TEST_NUMA_FORCE) {
		/* one node: every page lands there anyway; an mbind per
		 * chunk would only cost system calls */
		one_home(n, n->os[0], "one node", nworkers, home);
		return;
	}
	n->why_plain = NULL;
	atomic_store_explicit(&n->bind, true, memory_order_relaxed);
}

void act__homes_place(struct act__numa *n, int home, void *p, size_t len)
{
	unsigned long mask[OS_NODE_MAX / (8 * sizeof(unsigned long))];
	const size_t bits = 8 * sizeof(unsigned long);
	int node;

	/* relaxed: bind only ever goes from true to false, and a chunk
	 * placed after another thread's failure merely fails again */
	if (!n || !atomic_load_explicit(&n->bind, memory_order_relaxed))
		return;
	node = n->os[home];
	memset(mask, 0, sizeof(mask));
	mask[(size_t)node / bits] = 1ul << ((size_t)node % bits);
	/* MPOL_PREFERRED, not MPOL_BIND: a full node spills to another
	 * instead of failing the fault. No MPOL_MF_MOVE: the range is
	 * fresh, nothing of it is touched yet. The kernel reads maxnode - 1
	 * bits. */
	if (ACT_FAIL(ACT_FAIL_MBIND))
		errno = EIO;
	else if (!mbind(p, len, MPOL_PREFERRED, mask, OS_NODE_MAX + 1, 0))
		return;
	/* the first failing thread reports; binding stops for all */
	if (atomic_exchange_explicit(&n->bind, false, memory_order_relaxed)) {
		fprintf(stderr,
			"actors: mbind to NUMA node %d failed (%s): memory is "
			"no longer placed on the workers' nodes\n",
			node, strerror(errno));
		n->why_plain = "mbind failed";
	}
}
